/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_gres_parse.c - the plugin's readers of Slurm TRES requests and GRES
 * index lists (plugin/gres_parse.c), table-driven, failures included. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
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

/* A job's GPU request: every entry summed, of one type (any case). */
static void test_gpu_request(void **state)
{
	static const struct {
		const char *in;
		int rc;
		long count;
		const char *type;
	} t[] = {
		{ NULL, 0, 0, "" },
		{ "", 0, 0, "" },
		{ "cpu=4,gres:gpumem:8", 0, 0, "" },
		{ "gres:gpu:8", 1, 8, "" },                    /* 22.05 */
		{ "gres/gpu:8", 1, 8, "" },                    /* 24.11 */
		{ "gres/gpu", 1, 1, "" },
		{ "gres/gpu=3", 1, 3, "" },
		{ "gres:gpu:a100:4", 1, 4, "a100" },
		{ "gres/gpu:a100=4", 1, 4, "a100" },
		{ "gres:gpu:a100", 1, 1, "a100" },             /* one GPU of that type */
		{ "gres:gpu:h100:8,gres:gpu:h100:8", 1, 16, "h100" },
		{ "gres/gpu:h100:8,gres/gpu:H100:8", 1, 16, "h100" },
		{ "gres:gpu:4,gres:gpu:4", 1, 8, "" },
		{ "gres/gpu:a100:2,gres/nic:1,gres/gpu:a100:2", 1, 4, "a100" },
		{ "gres:gpu:a100:4,gres:gpu:l40s:4", -2, 0, NULL },
		{ "gres:gpu:a100:4,gres:gpu:4", -2, 0, NULL },  /* a type and any type */
		{ "gres:gpu:a100:4:2", -1, 0, NULL },
		{ "gres:gpu:a100:", -1, 0, NULL },
		{ "gres:gpu:8k", -1, 0, NULL },
		{ "gres/gpu:1073741824,gres/gpu:1", -1, 0, NULL },
		{ "gres/gpu:averyveryveryveryveryveryveryveryveryveryveryveryverylongtypename:1", -1, 0, NULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char type[64];
		long count = -5;
		int rc = gp_tres_gpu_request(t[i].in, &count, type, sizeof(type));

		if (rc != t[i].rc || (rc > 0 && (count != t[i].count || strcasecmp(type, t[i].type))))
			fail_msg("'%s': %d, %ld '%s'; expected %d, %ld '%s'", t[i].in ? t[i].in : "(null)",
			         rc, count, rc > 0 ? type : "", t[i].rc, t[i].count,
			         t[i].type ? t[i].type : "");
	}
}

/* gpuplace's own part of an admin comment, among other text. */
static void test_comment_section(void **state)
{
	static const struct {
		const char *in;
		long at, len;      /* -1: none */
	} t[] = {
		{ NULL, -1, 0 },
		{ "", -1, 0 },
		{ "lua: site=x", -1, 0 },
		{ "gpuplace: PIN n[1-2]; step 1 s; ref 7", 0, 37 },
		{ "lua: x gpuplace: PIN n1; ref 7", 7, 23 },
		{ "lua: x gpuplace: CONSTRAIN f; ref 70 admin: y", 7, 29 },
		{ "gpuplace: PASS two GPU types; ref 0", 0, 35 },
		{ "gpuplace: PIN n1; step 1 s", -1, 0 },          /* no reference: not a part */
		{ "xgpuplace: PIN n1; ref 7", -1, 0 },            /* not at a word's start */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		size_t at = 999, len = 999;
		bool got = gp_comment_section(t[i].in, &at, &len);

		if (got != (t[i].at >= 0) || (got && ((long)at != t[i].at || (long)len != t[i].len)))
			fail_msg("'%s': %d %zu+%zu; expected %ld+%ld", t[i].in ? t[i].in : "(null)", got, at,
			         len, t[i].at, t[i].len);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tres),
		cmocka_unit_test(test_gpu_request),
		cmocka_unit_test(test_comment_section),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
