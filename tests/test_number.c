/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_number.c - the strict number parser and gp_strerror(). */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "model.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_long_table),
		cmocka_unit_test(test_parse_double_table),
		cmocka_unit_test(test_strerror),
		cmocka_unit_test(test_errorf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
