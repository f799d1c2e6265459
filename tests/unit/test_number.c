/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_number.c - the base layer's helpers: the strict number parser,
 * gp_strerror(), the round-trip double formatter, the host-list expander
 * and the name table (the bounded file reader: test_fileio.c). */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "model.h"
#include "slurm_hostlist.h"

static void test_parse_long_table(void **unused)
{
	static const struct {
		const char *in;
		long min, max;
		int rc;
		long val;
	} cases[] = {
		{ "0", 0, 10, GP_OK, 0 },
		{ "10", 0, 10, GP_OK, 10 },
		{ "-3", -5, 5, GP_OK, -3 },
		{ "11", 0, 10, GP_ERANGE, 0 },
		{ "-1", 0, 10, GP_ERANGE, 0 },
		{ "", 0, 10, GP_EINVAL, 0 },
		{ "4x", 0, 10, GP_EINVAL, 0 },
		{ "x4", 0, 10, GP_EINVAL, 0 },
		{ "4 ", 0, 10, GP_EINVAL, 0 },
		{ "99999999999999999999999", 0, 10, GP_ERANGE, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long v = -77;
		int rc = gp__parse_long(cases[i].in, cases[i].min, cases[i].max, &v);

		assert_int_equal(rc, cases[i].rc);
		if (rc == GP_OK)
			assert_int_equal(v, cases[i].val);
		else
			assert_int_equal(v, -77); /* out-parameter untouched on error */
	}
	assert_int_equal(gp__parse_long(NULL, 0, 1, NULL), GP_EINVAL);
}

static void test_parse_double_table(void **unused)
{
	static const struct {
		const char *in;
		int rc;
		double val;
	} cases[] = {
		{ "1.5", GP_OK, 1.5 },
		{ "2e3", GP_OK, 2000.0 },
		{ "0", GP_OK, 0.0 },
		{ "-0.5", GP_ERANGE, 0 },
		{ "1e400", GP_ERANGE, 0 },
		{ "nan", GP_EINVAL, 0 },
		{ "inf", GP_EINVAL, 0 },
		{ "1.5GB", GP_EINVAL, 0 },
		{ "", GP_EINVAL, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double v = -1;
		int rc = gp__parse_double(cases[i].in, 0.0, 1e300, &v);

		assert_int_equal(rc, cases[i].rc);
		if (rc == GP_OK)
			assert_true(v == cases[i].val);
	}
}

static void test_strerror(void **unused)
{
	int e;

	for (e = GP_OK; e >= GP_EINTERNAL; e--)
		assert_string_not_equal(gp_strerror(e), "unknown error");
	assert_string_equal(gp_strerror(-999), "unknown error");
}

static void test_errorf(void **unused)
{
	gp_error_t err;

	assert_int_equal(gp__errorf(&err, GP_ECONFIG, "%s:%d: key '%s'", "f.conf", 3, "Nodes"), GP_ECONFIG);
	assert_string_equal(err.text, "f.conf:3: key 'Nodes'");
	assert_int_equal(gp__errorf(NULL, GP_EIO, "ignored"), GP_EIO);
}

/* Shortest exact text: reads back bit for bit, never longer than needed. */
static void test_double_str(void **unused)
{
	static const struct {
		double v;
		const char *want;
	} cases[] = {
		{ 0.1, "0.1" },
		{ 1.0 / 3.0, "0.3333333333333333" },   /* needs %.16g */
		{ 0.1 + 0.2, "0.30000000000000004" },  /* needs %.17g */
		{ 2.5e-7, "2.5e-07" },
		{ 1e300, "1e+300" },
		{ -42.0, "-42" },
		{ 9007199254740993.0, "9007199254740992" },
	};
	char b[GP_DOUBLE_STR];
	size_t i;
	double x = 1.0;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(gp__double_str(b, cases[i].v), cases[i].want);
	/* a walk over many magnitudes: always exact, always fits */
	for (i = 0; i < 2000; i++) {
		x = x * 1.37 + 1e-3 / (double)(i + 1);
		if (!isfinite(x) || x > 1e300)
			x = DBL_MIN * (double)(i + 1);
		gp__double_str(b, x);
		assert_true(strtod(b, NULL) == x);
		assert_true(strlen(b) < GP_DOUBLE_STR);
	}
}

/* A four-node model with just names, indexed. */
static gp_cluster_t *names_cluster(void)
{
	static const char *const names[] = { "n1", "n2", "n3", "gpu10" };
	gp_cluster_t *c = gp__cluster_new();
	int i;

	assert_non_null(c);
	c->nodes = calloc(4, sizeof(*c->nodes));
	assert_non_null(c->nodes);
	c->nnodes = 4;
	for (i = 0; i < 4; i++)
		snprintf(c->nodes[i].name, sizeof(c->nodes[i].name), "%s", names[i]);
	assert_int_equal(gp__cluster_index(c), GP_OK);
	return c;
}

static void test_hostlist(void **unused)
{
	static const struct {
		const char *list;
		int rc;
		const char *want;   /* node indices, or the message */
	} cases[] = {
		{ "n[1-3]", GP_OK, "0 1 2" },
		{ "n3,n1,n[1-2]", GP_OK, "2 0 1" },       /* list order, duplicates folded */
		{ "gpu10,n2", GP_OK, "3 1" },
		{ "n[3-1]", GP_EINVAL, "W: 'n[3-1]' is not a valid host list" },
		{ "n[1-2", GP_EINVAL, "W: 'n[1-2' is not a valid host list" },
		{ "n1]", GP_EINVAL, "W: 'n1]' is not a valid host list" },
		{ "n\"1", GP_EINVAL, "W: 'n\"1' is not a valid host list" },
		/* junk in a range, which libslurm reads as n0 to n3 */
		{ "n[0l-3]", GP_EINVAL, "W: 'n[0l-3]' is not a valid host list: 'l' in a bracket "
		  "(only numbers, ranges A-B and commas)" },
		{ "n[1-2, 3]", GP_EINVAL, "W: 'n[1-2, 3]' is not a valid host list: ' ' in a "
		  "bracket (only numbers, ranges A-B and commas)" },
		{ "n[1\x8d-3]", GP_EINVAL, "W: 'n[1\x8d-3]' is not a valid host list: '?' in a "
		  "bracket (only numbers, ranges A-B and commas)" },
		{ "", GP_EINVAL, "W: empty host list" },
		{ "n[1-9]", GP_ELIMIT, "W: 'n[1-9]' names more than 8 hosts" },
		{ "n1,n9", GP_ENOENT, "W: unknown node 'n9'" },
		/* a long list is named by its first 80 characters, so that the
		 * message still says what is wrong with it */
		{ "n[1-2],n[1-2],n[1-2],n[1-2],n[1-2],n[1-2],n[1-2],n[1-2],n[1-2],n[1-2],n[1-2],n[1-2]",
		  GP_ELIMIT, "W: 'n[1-2],n[1-2],n[1-2],n[1-2],n[1-2],n[1-2],n[1-2],n[1-2],"
		  "n[1-2],n[1-2],n[1-2],n[1...' names more than 8 hosts" },
	};
	gp_cluster_t *c = names_cluster();
	gp_error_t err;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int32_t *v = NULL, n = -1, k;
		char got[64] = "";
		size_t used = 0;
		int rc = gp__hostlist_nodes(c, "W", cases[i].list, 8, &v, &n, &err);

		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, want %d (%s)", cases[i].list, rc, cases[i].rc, err.text);
		if (rc == GP_OK) {
			for (k = 0; k < n; k++)
				used += (size_t)snprintf(got + used, sizeof(got) - used, "%s%d", k ? " " : "",
				                         (int)v[k]);
			assert_string_equal(got, cases[i].want);
		} else {
			assert_null(v);
			assert_int_equal(n, 0);
			assert_string_equal(err.text, cases[i].want);
		}
		free(v);
	}
	gp_cluster_destroy(c);
}

struct names { char *buf; size_t used, cap; };

static int collect(void *arg, const char *name, gp_error_t *err)
{
	struct names *a = arg;
	size_t n = strlen(name);

	(void)err;
	if (a->used + n + 2 > a->cap) {
		a->cap = 2 * (a->used + n + 2);
		a->buf = realloc(a->buf, a->cap);
		assert_non_null(a->buf);
	}
	memcpy(a->buf + a->used, name, n);
	a->used += n;
	a->buf[a->used++] = ' ';
	a->buf[a->used] = '\0';
	return 0;
}

/* gp__hostlist_each expands a list piece by piece (each item, a long
 * bracket 64 ranges at a time): the names, in order, are libslurm's for
 * the whole list. */
static void test_hostlist_pieces(void **unused)
{
	static const char *const fixed[] = {
		"n1 n2,n3\tn[4-5]", "r[01-03]n[1-2],x", "n[001-002]", "n[8-10]", "n1\nn[2-3],n4",
		"n[1-2],n[1-2]",
	};
	char *list = malloc(1 << 20);
	unsigned seed = 12345;
	int t;

	assert_non_null(list);
	for (t = 0; t < 40; t++) {
		struct names got = { NULL, 0, 0 }, want = { NULL, 0, 0 };
		gp_error_t err;
		gp_hostlist_t hl;
		char *h;
		size_t used = 0;
		int k, nr;

		if (t < (int)(sizeof(fixed) / sizeof(fixed[0]))) {
			snprintf(list, 1 << 20, "%s", fixed[t]);
		} else {
			/* items: plain names, and brackets of up to 300 ranges
			 * (single numbers and A-B, zero-padded or not) after a
			 * prefix (22.05's libslurm takes no suffix) */
			int items = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 4;

			for (k = 0; k < items; k++) {
				int i;

				seed = seed * 1103515245u + 12345u;
				if (k)
					list[used++] = (seed >> 20) % 3 ? ',' : ' ';
				if ((seed >> 8) % 4 == 0) {
					used += (size_t)sprintf(list + used, "h%u", (seed >> 4) % 1000);
					continue;
				}
				nr = 1 + (int)((seed >> 12) % 300);
				used += (size_t)sprintf(list + used, "gpu%c[", 'a' + k);
				for (i = 0; i < nr; i++) {
					unsigned a = (unsigned)(i * 7 + (int)((seed >> 3) % 5));

					seed = seed * 1103515245u + 12345u;
					used += (size_t)sprintf(list + used, "%s%0*u", i ? "," : "",
					                        (seed >> 9) % 2 ? 4 : 1, a);
					if ((seed >> 14) % 3 == 0)
						used += (size_t)sprintf(list + used, "-%u", a + 1 + (seed >> 17) % 4);
				}
				list[used++] = ']';
			}
			list[used] = '\0';
		}
		hl = slurm_hostlist_create(list);
		if (!hl)
			fail_msg("libslurm refuses '%.300s'", list);
		while ((h = slurm_hostlist_shift(hl)) != NULL) {
			collect(&want, h, &err);
			free(h);
		}
		slurm_hostlist_destroy(hl);
		if (gp__hostlist_each("W", list, 1 << 20, collect, &got, &err) != GP_OK)
			fail_msg("'%.200s': %s", list, err.text);
		if (!want.buf || !got.buf || strcmp(want.buf, got.buf))
			fail_msg("'%.200s': %.200s against libslurm's %.200s", list,
			         got.buf ? got.buf : "", want.buf ? want.buf : "");
		free(got.buf);
		free(want.buf);
	}
	free(list);
}

/* The name table: growth past its first size, case folding, duplicates. */
static void test_nametab(void **unused)
{
	gp__nametab_t t, u;
	char name[32];
	int32_t i, dup;

	assert_int_equal(gp__nametab_init(&t, false), GP_OK);
	for (i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "node%04d", (int)i);
		assert_int_equal(gp__nametab_add(&t, name, i, &dup), GP_OK);
		assert_int_equal(dup, -1);
	}
	assert_int_equal(gp__nametab_add(&t, "node0500", 7, &dup), GP_OK);
	assert_int_equal(dup, 500);
	for (i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "node%04d", (int)i);
		assert_int_equal(gp__nametab_find(&t, name), i);
	}
	assert_int_equal(gp__nametab_find(&t, "NODE0001"), -1);
	assert_int_equal(gp__nametab_find(&t, "node1000"), -1);
	gp__nametab_free(&t);
	assert_int_equal(gp__nametab_find(&t, "node0001"), -1);
	gp__nametab_free(&t);

	assert_int_equal(gp__nametab_init(&u, true), GP_OK);
	assert_int_equal(gp__nametab_add(&u, "H100", 3, &dup), GP_OK);
	assert_int_equal(gp__nametab_find(&u, "h100"), 3);
	assert_int_equal(gp__nametab_add(&u, "h100", 4, &dup), GP_OK);
	assert_int_equal(dup, 3);
	gp__nametab_free(&u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_long_table),
		cmocka_unit_test(test_parse_double_table),
		cmocka_unit_test(test_strerror),
		cmocka_unit_test(test_errorf),
		cmocka_unit_test(test_double_str),
		cmocka_unit_test(test_hostlist),
		cmocka_unit_test(test_hostlist_pieces),
		cmocka_unit_test(test_nametab),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
