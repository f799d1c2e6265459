/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_orig_file.c - a line of the steering originals' file
 * (plugin/orig_file.c): every field survives a write and a read, strings
 * with spaces, percent signs and bytes outside ASCII included; a line that
 * is not a record is refused with its key and value named. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "orig_file.h"

static void fill(gp_orig_rec_t *r)
{
	memset(r, 0, sizeof(*r));
	r->ref = 1764400000000123ULL;
	r->job_id = 4294967294u;
	r->kept = false;
	r->lic = true;
	r->sw = true;
	r->counts = true;
	r->gpus = false;
	r->frozen = true;
	r->pinned = true;
	r->every_refresh = false;
	r->moved = true;
	r->decided = 1764400000;
	r->updated = 1764400031;
	r->checked = -5;
	r->wait_s = 1234.5678901234567;
	r->uid = 1000;
	r->min_nodes = 2;
	r->max_nodes = 4294967294u; /* NO_VAL - 1 */
	r->time_limit = 4294967294u;
	r->num_tasks = 16;
	r->shared = 65534;
	r->ntasks_per_node = 8;
	r->cpus_per_task = 65534;
	r->pn_min_cpus = 1;
	r->pn_min_memory = 0x8000000000000400ULL; /* MEM_PER_CPU | 1024 */
	r->str[GP_ORIG_HINTS] = strdup("tp=8,pp=2 params=70e9");
	r->str[GP_ORIG_TRES_PER_JOB] = strdup("gres/gpu:8");
	r->str[GP_ORIG_PARTITION] = strdup("gpu");
	r->str[GP_ORIG_REQ_NODES] = strdup("n[1-2]");
	r->str[GP_ORIG_FEATURES] = strdup("[a|b]&c");
	r->str[GP_ORIG_LICENSES] = strdup("");
	r->str[GP_ORIG_NAME] = strdup("100% my job\t\xc3\xa9t\xc3\xa9\n=x");
}

static void assert_same(const gp_orig_rec_t *a, const gp_orig_rec_t *b)
{
	int i;

	assert_true(a->ref == b->ref);
	assert_int_equal(a->job_id, b->job_id);
	assert_int_equal(a->kept, b->kept);
	assert_int_equal(a->lic, b->lic);
	assert_int_equal(a->sw, b->sw);
	assert_int_equal(a->counts, b->counts);
	assert_int_equal(a->gpus, b->gpus);
	assert_int_equal(a->frozen, b->frozen);
	assert_int_equal(a->pinned, b->pinned);
	assert_int_equal(a->every_refresh, b->every_refresh);
	assert_int_equal(a->moved, b->moved);
	assert_true(a->decided == b->decided);
	assert_true(a->updated == b->updated);
	assert_true(a->checked == b->checked);
	assert_true(a->wait_s == b->wait_s);
	assert_int_equal(a->uid, b->uid);
	assert_int_equal(a->min_nodes, b->min_nodes);
	assert_int_equal(a->max_nodes, b->max_nodes);
	assert_int_equal(a->time_limit, b->time_limit);
	assert_int_equal(a->num_tasks, b->num_tasks);
	assert_int_equal(a->shared, b->shared);
	assert_int_equal(a->ntasks_per_node, b->ntasks_per_node);
	assert_int_equal(a->cpus_per_task, b->cpus_per_task);
	assert_int_equal(a->pn_min_cpus, b->pn_min_cpus);
	assert_true(a->pn_min_memory == b->pn_min_memory);
	for (i = 0; i < GP_ORIG_NSTR; i++) {
		if (!a->str[i] || !b->str[i]) {
			assert_null(a->str[i]);
			assert_null(b->str[i]);
		} else {
			assert_string_equal(a->str[i], b->str[i]);
		}
	}
}

/* every field, written and read back; none (NULL) stays none, "" stays "" */
static void test_round_trip(void **state)
{
	gp_orig_rec_t a, b;
	char err[256], *line, *again;

	(void)state;
	fill(&a);
	line = gp_orig_format(&a);
	assert_non_null(line);
	/* one line, words separated by single spaces */
	assert_null(strchr(line, '\n'));
	assert_null(strchr(line, '\t'));
	assert_null(strstr(line, "  "));
	assert_non_null(strstr(line, " name=100%25%20my%20job%09%C3%A9t%C3%A9%0A=x"));
	assert_null(strstr(line, "tres_per_node=")); /* none: left out */
	assert_non_null(strstr(line, " licenses= name=")); /* "": an empty value */
	if (gp_orig_parse(line, &b, err, sizeof(err)) != 0)
		fail_msg("%s: %s", line, err);
	assert_same(&a, &b);
	again = gp_orig_format(&b);
	assert_non_null(again);
	assert_string_equal(line, again);
	free(line);
	free(again);
	gp_orig_clear(&a);
	gp_orig_clear(&b);
	/* no strings at all, a negative time, a negative wait written as 0 */
	memset(&a, 0, sizeof(a));
	a.ref = 7;
	a.decided = -1;
	a.wait_s = -3.0;
	line = gp_orig_format(&a);
	assert_non_null(line);
	assert_non_null(strstr(line, " decided=-1 "));
	assert_non_null(strstr(line, " wait=0 "));
	assert_int_equal(gp_orig_parse(line, &b, err, sizeof(err)), 0);
	assert_true(b.ref == 7 && b.decided == -1 && b.wait_s == 0.0);
	assert_null(b.str[GP_ORIG_FEATURES]);
	gp_orig_clear(&b);
	/* every number and flag is required: a line cut before one is not
	 * read as 0 */
	*strstr(line, " pn_min_memory=") = '\0';
	assert_int_equal(gp_orig_parse(line, &b, err, sizeof(err)), -1);
	assert_string_equal(err, "key 'pn_min_memory' value '': missing");
	free(line);
}

/* every string of the record, each with its own value, back in its own
 * field */
static void test_every_string(void **state)
{
	gp_orig_rec_t a, b;
	char err[256], *line;
	int i;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.ref = 9;
	for (i = 0; i < GP_ORIG_NSTR; i++) {
		char v[32];

		snprintf(v, sizeof(v), "s%d x", i);
		a.str[i] = strdup(v);
	}
	line = gp_orig_format(&a);
	assert_non_null(line);
	assert_int_equal(gp_orig_parse(line, &b, err, sizeof(err)), 0);
	assert_same(&a, &b);
	free(line);
	gp_orig_clear(&a);
	gp_orig_clear(&b);
}

/* lines that are not records: refused, naming the key and value */
static void test_refused(void **state)
{
	static const struct {
		const char *line;
		const char *want; /* in the error */
	} t[] = {
		{ "", "does not start with 'gpuplace-orig'" },
		{ "gpuplace-origx ref=1", "does not start" },
		{ "gpuplace-orig", "key 'ref'" },
		{ "gpuplace-orig ref=0", "key 'ref'" },
		{ "gpuplace-orig job=3", "key 'ref'" },
		{ "gpuplace-orig ref=1 colour=blue", "key 'colour' value 'blue': unknown key" },
		{ "gpuplace-orig ref=1 ref=2", "key 'ref' value '2': given twice" },
		{ "gpuplace-orig ref=1  job=2", "one space" },
		{ "gpuplace-orig ref=1 job", "not KEY=VALUE" },
		{ "gpuplace-orig ref=1 =5", "not KEY=VALUE" },
		{ "gpuplace-orig ref=1 shared=65536", "key 'shared' value '65536'" },
		{ "gpuplace-orig ref=1 job=4294967296", "key 'job' value '4294967296'" },
		{ "gpuplace-orig ref=1 job=-1", "key 'job' value '-1'" },
		{ "gpuplace-orig ref=1 job=", "key 'job' value ''" },
		{ "gpuplace-orig ref=18446744073709551616", "key 'ref'" },
		{ "gpuplace-orig ref=1 min_nodes=2x", "key 'min_nodes' value '2x'" },
		{ "gpuplace-orig ref=1 decided=1.5", "key 'decided' value '1.5'" },
		{ "gpuplace-orig ref=1 wait=-3", "key 'wait' value '-3'" },
		{ "gpuplace-orig ref=1 wait=nan", "key 'wait' value 'nan'" },
		{ "gpuplace-orig ref=1 wait=inf", "key 'wait' value 'inf'" },
		{ "gpuplace-orig ref=1 kept=2", "key 'kept' value '2': not 0 or 1" },
		{ "gpuplace-orig ref=1 kept=", "key 'kept' value ''" },
		{ "gpuplace-orig ref=1 features=a%G0", "key 'features' value 'a%G0': a bad %XX escape" },
		{ "gpuplace-orig ref=1 features=a%4", "key 'features' value 'a%4'" },
		{ "gpuplace-orig ref=1 features=%", "key 'features' value '%'" },
		{ "gpuplace-orig ref=1 features=a%00b", "key 'features' value 'a%00b'" },
		{ "gpuplace-orig ref=1 job=+5", "key 'job' value '+5'" },
		{ "gpuplace-orig ref=1 decided=+5", "key 'decided' value '+5'" },
		{ "gpuplace-orig ref=1 decided=-", "key 'decided' value '-'" },
		{ "gpuplace-orig ref=1 wait=0x10", "key 'wait' value '0x10'" },
		{ "gpuplace-orig ref=1 wait=.5", "key 'wait' value '.5'" },
		{ "gpuplace-orig ref=1 job=2", "key 'kept' value '': missing" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		gp_orig_rec_t r;
		char err[256] = "";

		memset(&r, 0x5a, sizeof(r));
		if (gp_orig_parse(t[i].line, &r, err, sizeof(err)) != -1)
			fail_msg("'%s' was read", t[i].line);
		if (!strstr(err, t[i].want))
			fail_msg("'%s': error '%s' lacks '%s'", t[i].line, err, t[i].want);
		/* refused: nothing kept, nothing to free */
		assert_true(r.ref == 0);
		assert_null(r.str[GP_ORIG_FEATURES]);
	}
}

/* a long value is cut in the error, never overflows it */
static void test_error_bounded(void **state)
{
	char line[9000], err[64];
	gp_orig_rec_t r;

	(void)state;
	memcpy(line, "gpuplace-orig ref=1 colour=", 27);
	memset(line + 27, 'x', sizeof(line) - 28);
	line[sizeof(line) - 1] = '\0';
	assert_int_equal(gp_orig_parse(line, &r, err, sizeof(err)), -1);
	assert_true(strlen(err) < sizeof(err));
	assert_non_null(strstr(err, "key 'colour'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_every_string),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_error_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
