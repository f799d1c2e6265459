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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tres),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
