/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_gres_parse.c - the plugin's readers of Slurm TRES requests and GRES
 * index lists (plugin/gres_parse.c), table-driven, failures included. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gres_parse.h"

static void test_tres(void **state)
{
	static const struct {
		const char *in;
		long want;
	} t[] = {
		{ NULL, 0 },
		{ "", 0 },
		{ "cpu=4", 0 },
		{ "gres:gpu:8", 8 },
		{ "gres/gpu:a100:8", 8 },
		{ "gres/gpu=3", 3 },
		{ "gres/gpu", 1 },
		{ "cpu=2,gres/gpu:h100:4,mem=1G", 4 },
		{ "gres/gpu:1073741824", 1073741824 },
		{ "gres/gpu:1073741825", -1 },
		{ "gres/gpu:-1", -1 },
		{ "gres/gpu:", -1 },
		{ "gres/gpu:a100:", -1 },
		{ "gres/gpux", -1 },
		{ "gres/gpu:99999999999999999999999999999999", -1 },
		{ "gres/gpu:8x", -1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		long got = gp_tres_gpus(t[i].in);

		if (got != t[i].want)
			fail_msg("'%s': %ld, expected %ld", t[i].in ? t[i].in : "(null)", got, t[i].want);
	}
}

static void test_mask(void **state)
{
	static const struct {
		const char *in;
		int rc;
		uint32_t mask;
	} t[] = {
		{ NULL, 0, 0 },
		{ "", 0, 0 },
		{ "gpu:a100:2(IDX:0-1)", 0, 0x3 },
		{ "gpu:a100:3(IDX:0,2,5),mps:0", 0, 0x25 },
		{ "mps:100(IDX:0-3),gpu:1(IDX:7)", 0, 0x80 },
		{ "gpu(IDX:N/A)", 0, 0 },
		{ "gpu:8(IDX:0-7)", 0, 0xff },
		{ "gpu:1(IDX:32)", -1, 0 },
		{ "gpu:1(IDX:3-1)", -1, 0 },
		{ "gpu:1(IDX:-1)", -1, 0 },
		{ "gpu:1(IDX:1", -1, 0 },
		{ "gpu:1(IDX:1;2)", -1, 0 },
		{ "gpu:1(IDX:)", 0, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint32_t m = 0xdeadbeef;
		int rc = gp_live_gpu_mask(t[i].in, &m);

		if (rc != t[i].rc || (rc == 0 && m != t[i].mask))
			fail_msg("'%s': rc %d mask %#x, expected %d %#x", t[i].in ? t[i].in : "(null)", rc,
			         m, t[i].rc, t[i].mask);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tres),
		cmocka_unit_test(test_mask),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
