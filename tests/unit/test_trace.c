/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_trace.c - job traces: the CSV reader (good files, one case per
 * error), writer round trips, summary, truncation, the synthetic
 * generator's determinism, statistics and parameter checks, and the real
 * Philly trace from $GP_SHARED_DATA/traces.
 */
#include "config.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "model.h"
#include "trace.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static char srcdata[PATH_MAX];
static char shared[PATH_MAX];

static int setup(void **unused)
{
	const char *s = getenv("GP_SHARED_DATA"), *t = getenv("GP_TOP_SRCDIR");

	snprintf(srcdata, sizeof(srcdata), "%s/tests/data/trace", t && *t ? t : ".");
	if (s && *s)
		snprintf(shared, sizeof(shared), "%s/traces", s);
	else /* beside the source tree, as the Makefile sets it */
		snprintf(shared, sizeof(shared), "%s/../shared/data/traces", t && *t ? t : ".");
	return 0;
}

/* ---- reading good files ------------------------------------------------ */

struct job {
	double submit, dur;
	int gpus, nodes;
	unsigned id;
	int line;
};

static void check_jobs(const char *what, const gp_trace_t *t, const struct job *want, int n)
{
	int i;

	if (t->njobs != n)
		fail_msg("%s: %d jobs, want %d", what, (int)t->njobs, n);
	for (i = 0; i < n; i++) {
		const gp_trace_job_t *j = &t->jobs[i];

		if (j->submit_s != want[i].submit || j->duration_s != want[i].dur ||
		    j->gpus != want[i].gpus || j->nodes != want[i].nodes || j->id != want[i].id ||
		    j->line != want[i].line)
			fail_msg("%s: job %d is (%.17g, %.17g, %d, %d, id %u, line %d), want "
			         "(%.17g, %.17g, %d, %d, id %u, line %d)",
			         what, i, j->submit_s, j->duration_s, (int)j->gpus, (int)j->nodes,
			         (unsigned)j->id, (int)j->line, want[i].submit, want[i].dur,
			         want[i].gpus, want[i].nodes, want[i].id, want[i].line);
	}
}

static const struct {
	const char *what;
	const char *text;
	size_t len; /* 0 = strlen(text) */
	int njobs;
	struct job jobs[6];
} good[] = {
	{ "plain, nodes empty or given",
	  "submit_time_s,duration_s,gpus,nodes\n0,100,1,\n5,200,8,1\n10,300.5,16,2\n", 0, 3,
	  { { 0, 100, 1, 0, 1, 2 }, { 5, 200, 8, 1, 2, 3 }, { 10, 300.5, 16, 2, 3, 4 } } },
	{ "columns in any order, other columns ignored, no nodes column",
	  "vc,gpus,status,duration_s,submit_time_s\nab,4,Pass,60,7\ncd,1,,1e3,3.25\n", 0, 2,
	  { { 3.25, 1000, 1, 0, 2, 3 }, { 7, 60, 4, 0, 1, 2 } } },
	{ "CRLF, byte order mark, comments and blank lines, no final newline",
	  "\xef\xbb\xbf# a comment\r\n\r\nsubmit_time_s,duration_s,gpus\r\n# another\r\n1,2,3\r\n"
	  "   \r\n4,5,6",
	  0, 2, { { 1, 2, 3, 0, 1, 5 }, { 4, 5, 6, 0, 2, 7 } } },
	{ "unsorted rows: stable sort by submit time",
	  "submit_time_s,duration_s,gpus\n5,1,1\n0,2,1\n5,3,1\n0,4,1\n5,5,1\n", 0, 5,
	  { { 0, 2, 1, 0, 2, 3 },
	    { 0, 4, 1, 0, 4, 5 },
	    { 5, 1, 1, 0, 1, 2 },
	    { 5, 3, 1, 0, 3, 4 },
	    { 5, 5, 1, 0, 5, 6 } } },
	{ "blanks around fields and names, -0 reads as 0",
	  "submit_time_s , duration_s,\tgpus,nodes\n -0 , 1.5 , 2 , 2 \n", 0, 1,
	  { { 0, 1.5, 2, 2, 1, 2 } } },
	{ "the largest job", "submit_time_s,duration_s,gpus,nodes\n0,1,1048576,1048576\n", 0, 1,
	  { { 0, 1, 1048576, 1048576, 1, 2 } } },
	{ "RFC 4180: quoted header, quoted fields with commas, quotes and line breaks",
	  "\"submit_time_s\",\"duration_s\",\"gpus\",\"name\"\r\n"
	  "0,10,8,\"train, v2\"\r\n"
	  "5,\"20\",4,\"multi\nline \"\"quoted\"\"\"\n"
	  "7, \"30\" ,2,plain\n"
	  "9,40,1,\"\"\n",
	  0, 4,
	  { { 0, 10, 8, 0, 1, 2 }, { 5, 20, 4, 0, 2, 3 }, { 7, 30, 2, 0, 3, 5 },
	    { 9, 40, 1, 0, 4, 6 } } },
	{ "a quote inside an unquoted field is a character", "submit_time_s,duration_s,gpus,x\n1,2,3,a\"b\n",
	  0, 1, { { 1, 2, 3, 0, 1, 2 } } },
	{ "the buffer ends before the text does (no NUL needed)",
	  "submit_time_s,duration_s,gpus\n0,1,12345", 36, 1, { { 0, 1, 12, 0, 1, 2 } } },
};

static void test_parse_good(void **unused)
{
	size_t k;

	for (k = 0; k < N(good); k++) {
		gp_trace_t *t = (gp_trace_t *)1;
		gp_error_t err = { "" };
		size_t len = good[k].len ? good[k].len : strlen(good[k].text);
		int rc = gp__trace_parse("t.csv", good[k].text, len, &t, &err);

		if (rc)
			fail_msg("%s: %s", good[k].what, err.text);
		assert_string_equal(t->name, "t.csv");
		check_jobs(good[k].what, t, good[k].jobs, good[k].njobs);
		gp__trace_destroy(t);
	}
}

/* Many rows, few distinct times, in an order no sort keeps by accident:
 * equal times must stay in file order whatever the size of the array. */
static void test_sort_many(void **unused)
{
	const int n = 20000;
	size_t cap = 64 + (size_t)n * 16, len;
	char *text = malloc(cap);
	gp_trace_t *t = NULL;
	gp_error_t err = { "" };
	int i;

	assert_non_null(text);
	len = (size_t)snprintf(text, cap, "submit_time_s,duration_s,gpus\n");
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len, "%d,%d,1\n", (i * 7919) % 13 % 4,
		                        i + 1);
	if (gp__trace_parse("many.csv", text, len, &t, &err))
		fail_msg("%s", err.text);
	assert_int_equal(t->njobs, n);
	for (i = 0; i < n; i++) {
		const gp_trace_job_t *j = &t->jobs[i];

		/* the duration column carries the row number */
		assert_true(j->duration_s == j->id);
		assert_int_equal(j->line, (int)j->id + 1);
		assert_true(j->submit_s == (double)(((int)j->id - 1) * 7919 % 13 % 4));
		if (i && (j->submit_s < j[-1].submit_s ||
		          (j->submit_s == j[-1].submit_s && j->id <= j[-1].id)))
			fail_msg("rows %d and %d out of order: (%g, id %u) after (%g, id %u)", i - 1, i,
			         j->submit_s, (unsigned)j->id, j[-1].submit_s, (unsigned)j[-1].id);
	}
	gp__trace_destroy(t);
	free(text);
}

/* The same through files (tests/data/trace). */
static void test_load_good(void **unused)
{
	static const struct {
		const char *file;
		int njobs;
		struct job jobs[6];
	} files[] = {
		{ "philly_like.csv", 6,
		  { { 0, 2240194, 8, 0, 1, 2 },
		    { 235696, 3256045, 1, 0, 2, 3 },
		    { 257229, 2643038, 1, 0, 3, 4 },
		    { 258252, 3219826, 16, 2, 4, 5 },
		    { 301000, 60, 4, 1, 5, 6 },
		    { 301000, 1.5, 2, 0, 6, 7 } } },
		{ "reordered.csv", 3,
		  { { 0, 45.25, 1, 0, 2, 4 }, { 120.5, 3600, 4, 0, 1, 3 }, { 7200, 86400, 128, 0, 3, 5 } } },
		{ "crlf.csv", 3,
		  { { 5, 200, 8, 1, 2, 7 }, { 10, 100, 1, 0, 1, 4 }, { 20, 300, 32, 4, 3, 8 } } },
		{ "quoted.csv", 3,
		  { { 0, 3600, 8, 1, 1, 2 }, { 60, 1800, 16, 2, 2, 3 }, { 120, 600, 1, 0, 3, 4 } } },
		{ "unsorted.csv", 6,
		  { { 0, 2, 2, 0, 2, 3 },
		    { 0, 4, 8, 0, 4, 5 },
		    { 25, 5, 16, 0, 5, 6 },
		    { 50, 1, 1, 0, 1, 2 },
		    { 50, 3, 4, 0, 3, 4 },
		    { 50, 6, 1, 0, 6, 7 } } },
	};
	size_t k;

	for (k = 0; k < N(files); k++) {
		char path[PATH_MAX + 64];
		gp_trace_t *t = NULL;
		gp_error_t err = { "" };

		snprintf(path, sizeof(path), "%s/%s", srcdata, files[k].file);
		if (gp__trace_load(path, &t, &err))
			fail_msg("%s: %s", path, err.text);
		assert_string_equal(t->name, path);
		check_jobs(files[k].file, t, files[k].jobs, files[k].njobs);
		gp__trace_destroy(t);
	}
}

/* ---- errors -------------------------------------------------------------- */

#define H "submit_time_s,duration_s,gpus,nodes\n"

/* A bad value: the message is "t.csv:LINE: column 'COL' value 'VALUE': WHAT". */
static const struct {
	const char *text;
	int line;
	const char *col, *value, *what;
} bad_values[] = {
	{ H "0,1,abc,\n", 2, "gpus", "abc", "not a whole number" },
	{ H "0,1,2.0,\n", 2, "gpus", "2.0", "not a whole number" },
	{ H "0,1,0,\n", 2, "gpus", "0", "must be between 1 and 1048576" },
	{ H "0,1,1048577,\n", 2, "gpus", "1048577", "must be between 1 and 1048576" },
	{ H "0,1,-3,\n", 2, "gpus", "-3", "must be between 1 and 1048576" },
	{ H "0,1,99999999999999999999,\n", 2, "gpus", "99999999999999999999", "must be between" },
	{ H "0,1,,\n", 2, "gpus", "", "missing" },
	{ H "-1,1,1,\n", 2, "submit_time_s", "-1", "must be >= 0" },
	{ H "nan,1,1,\n", 2, "submit_time_s", "nan", "not a finite number" },
	{ H "inf,1,1,\n", 2, "submit_time_s", "inf", "not a finite number" },
	{ H "1e999,1,1,\n", 2, "submit_time_s", "1e999", "out of range" },
	{ H "12:00,1,1,\n", 2, "submit_time_s", "12:00", "not a finite number" },
	{ H ",1,1,\n", 2, "submit_time_s", "", "missing" },
	{ H "0,0,1,\n", 2, "duration_s", "0", "must be > 0" },
	{ H "0,-5,1,\n", 2, "duration_s", "-5", "must be > 0" },
	{ H "0,1h,1,\n", 2, "duration_s", "1h", "not a finite number" },
	{ H "0,,1,\n", 2, "duration_s", "", "missing" },
	{ H "0,1,8,9\n", 2, "nodes", "9", "must be between 1 and the job's GPUs (8)" },
	{ H "0,1,8,0\n", 2, "nodes", "0", "must be between 1 and the job's GPUs (8)" },
	{ H "0,1,8,two\n", 2, "nodes", "two", "not a whole number" },
	{ "# c\n" H "0,1,1,\n\n# c\n1,1,x,\n", 6, "gpus", "x", "not a whole number" },
	{ H "0,1,1,\r\n1,2,1 1,\r\n", 3, "gpus", "1 1", "not a whole number" },
	{ H "0,1,\x01\xff,\n", 2, "gpus", "??", "not a whole number" },
#define HH "submit_time_s,duration_s,gpus,tp,pp,params,comm_fraction\n"
	{ HH "0,1,8,16,,,\n", 2, "tp", "16", "must be between 1 and the job's GPUs (8)" },
	{ HH "0,1,8,x,,,\n", 2, "tp", "x", "not a whole number" },
	{ HH "0,1,8,,0,,\n", 2, "pp", "0", "must be between 1 and the job's GPUs (8)" },
	{ HH "0,1,8,,,-1e9,\n", 2, "params", "-1e9", "must be > 0 and at most 1e15" },
	{ HH "0,1,8,,,7B,\n", 2, "params", "7B", "not a finite number" },
	{ HH "0,1,8,,,,1\n", 2, "comm_fraction", "1", "must lie in (0, 1)" },
	{ HH "0,1,8,,,,0\n", 2, "comm_fraction", "0", "must lie in (0, 1)" },
};

/* Any other error: the message starts with prefix and contains part. */
static const struct {
	const char *what, *text;
	size_t len;
	const char *prefix, *part;
} bad_other[] = {
	{ "missing column", "submit_time_s,gpus,vc\n0,1,a\n", 0,
	  "t.csv:1: header has no column 'duration_s'", "header found: 'submit_time_s,gpus,vc'" },
	{ "missing column after comments", "# x\n\nduration_s,gpus\n1,1\n", 0,
	  "t.csv:3: header has no column 'submit_time_s'", "'duration_s,gpus'" },
	{ "gpus column missing", "submit_time_s,duration_s,nodes\n0,1,1\n", 0,
	  "t.csv:1: header has no column 'gpus'", "needed: submit_time_s,duration_s,gpus" },
	{ "quoted field never closed", H "0,1,1,\"open\n2,3,4,\n", 0,
	  "t.csv:2: quoted field not closed before the end of the file", "" },
	{ "text after a closing quote", H "0,1,1,\"a\"b\n", 0,
	  "t.csv:2: text after a closing quote", "" },
	{ "quoted header without a needed column", "\"submit_time_s\",\"gpus\"\n0,1\n", 0,
	  "t.csv:1: header has no column 'duration_s'", "'\"submit_time_s\",\"gpus\"'" },
	{ "a bad value after a multi-line record names its own line",
	  "submit_time_s,duration_s,gpus,x\n0,1,1,\"a\nb\"\n0,1,z,y\n", 0,
	  "t.csv:4: column 'gpus' value 'z'", "" },
	{ "column twice", "gpus,submit_time_s,duration_s,gpus\n1,0,1,1\n", 0,
	  "t.csv:1: column 'gpus' appears twice in the header", "" },
	{ "too few fields", H "0,1,1,\n0,1,1\n", 0,
	  "t.csv:3: expected 4 fields as in the header, found 3", "" },
	{ "too many fields", H "0,1,1,,x\n", 0,
	  "t.csv:2: expected 4 fields as in the header, found 5", "" },
	{ "empty file", "", 0, "t.csv: no header line", "" },
	{ "comments only", "# x\n\n  \n", 0, "t.csv: no header line", "" },
	{ "header only", "# x\n" H "\n# y\n", 0, "t.csv: no jobs", "" },
	{ "NUL byte", H "0,1\0,1,\n", sizeof(H "0,1\0,1,\n") - 1,
	  "t.csv:2: line contains a NUL byte", "" },
	{ "degrees that do not divide the GPUs", HH "0,1,8,,,,\n0,1,12,8,,,\n", 0,
	  "t.csv:3: tp 8 x pp 1 does not divide the job's 12 GPUs", "" },
};

/* The job-shape hints are read, written back and read again unchanged;
 * empty fields mean "not given". */
static void test_hint_columns(void **unused)
{
	static const char text[] = HH "0,100,16,8,2,7e10,0.3\n5,10,4,,,,\n9,20,8,,,1.3e9,\n";
	gp_trace_t *t = NULL, *u = NULL;
	gp_error_t err = { "" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int32_t i;

	(void)unused;
	if (gp__trace_parse("h.csv", text, strlen(text), &t, &err))
		fail_msg("%s", err.text);
	assert_int_equal(t->jobs[0].tp, 8);
	assert_int_equal(t->jobs[0].pp, 2);
	assert_true(t->jobs[0].params == 7e10);
	assert_true(t->jobs[0].comm_fraction == 0.3);
	assert_int_equal(t->jobs[1].tp, 0);
	assert_true(t->jobs[1].params == 0 && t->jobs[1].comm_fraction == 0);
	assert_true(t->jobs[2].params == 1.3e9);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(gp__trace_write(t, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "tp,pp,params,comm_fraction"));
	if (gp__trace_parse("h2.csv", buf, len, &u, &err))
		fail_msg("%s", err.text);
	for (i = 0; i < t->njobs; i++) {
		assert_int_equal(u->jobs[i].tp, t->jobs[i].tp);
		assert_int_equal(u->jobs[i].pp, t->jobs[i].pp);
		assert_true(u->jobs[i].params == t->jobs[i].params);
		assert_true(u->jobs[i].comm_fraction == t->jobs[i].comm_fraction);
	}
	free(buf);
	gp__trace_destroy(t);
	gp__trace_destroy(u);
}

/* time_limit_s: read when given (an empty field = not given), refused
 * when not a positive number, written back only when a job has one; a
 * limit drawn for a job without one is the same for the same (seed, id),
 * at least the run, one of the round values users pick below a week, and
 * spread as uniform accuracy makes it (half the jobs ask for more than
 * twice their run). */
static void test_time_limits(void **unused)
{
	static const char text[] = "submit_time_s,duration_s,gpus,time_limit_s\n"
	                           "0,100,8,3600\n5,10,4,\n";
	static const double round_s[] = {
		300, 600, 900, 1200, 1800, 2700, 3600, 5400, 7200, 10800, 14400, 21600, 28800,
		36000, 43200, 57600, 72000, 86400, 129600, 172800, 259200, 345600, 432000, 604800,
	};
	gp_trace_t *t = NULL, *u = NULL;
	gp_error_t err = { "" };
	char *buf = NULL;
	size_t len = 0, k;
	FILE *f;
	int32_t i, over2 = 0;

	(void)unused;
	if (gp__trace_parse("l.csv", text, strlen(text), &t, &err))
		fail_msg("%s", err.text);
	assert_true(t->jobs[0].limit_s == 3600);
	assert_true(t->jobs[1].limit_s == 0);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(gp__trace_write(t, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "submit_time_s,duration_s,gpus,nodes,time_limit_s\n"));
	if (gp__trace_parse("l2.csv", buf, len, &u, &err))
		fail_msg("%s", err.text);
	assert_true(u->jobs[0].limit_s == 3600 && u->jobs[1].limit_s == 0);
	free(buf);
	gp__trace_destroy(u);

	/* fill: only the job without one, deterministically */
	assert_int_equal(gp__trace_fill_limits(t, 9), 1);
	assert_true(t->jobs[0].limit_s == 3600);
	assert_true(t->jobs[1].limit_s == gp__trace_draw_limit(9, t->jobs[1].id, 10));
	assert_int_equal(gp__trace_fill_limits(t, 9), 0);
	gp__trace_destroy(t);

	for (i = 1; i <= 2000; i++) {
		double d = 60.0 + 37.0 * i, l = gp__trace_draw_limit(1, (uint32_t)i, d);
		bool found = false;

		assert_true(l == gp__trace_draw_limit(1, (uint32_t)i, d));
		assert_true(l >= d);
		for (k = 0; k < sizeof(round_s) / sizeof(round_s[0]); k++)
			found |= l == round_s[k];
		if (!found)
			assert_true(l > 604800 && fmod(l, 86400) == 0);
		over2 += l > 2 * d;
	}
	assert_true(over2 > 900 && over2 < 1500);
	assert_true(gp__trace_draw_limit(1, 1, 100) != gp__trace_draw_limit(2, 1, 100) ||
	            gp__trace_draw_limit(1, 2, 100) != gp__trace_draw_limit(2, 2, 100));

	/* a bad limit is named */
	assert_int_equal(gp__trace_parse("b.csv", "submit_time_s,duration_s,gpus,time_limit_s\n"
	                                 "0,100,8,0\n", 53, &t, &err), GP_EINVAL);
	assert_non_null(strstr(err.text, "time_limit_s"));
	assert_non_null(strstr(err.text, "b.csv:2"));
	assert_int_equal(gp__trace_parse("b.csv", "submit_time_s,duration_s,gpus,time_limit_s\n"
	                                 "0,100,8,soon\n", 56, &t, &err), GP_EINVAL);
	assert_non_null(strstr(err.text, "soon"));
}

static void test_parse_errors(void **unused)
{
	size_t k;

	for (k = 0; k < N(bad_values); k++) {
		gp_trace_t *t = (gp_trace_t *)1;
		gp_error_t err = { "" };
		char want[512];
		int rc = gp__trace_parse("t.csv", bad_values[k].text, strlen(bad_values[k].text), &t,
		                         &err);

		snprintf(want, sizeof(want), "t.csv:%d: column '%s' value '%s': %s",
		         bad_values[k].line, bad_values[k].col, bad_values[k].value,
		         bad_values[k].what);
		if (rc != GP_EINVAL || t || strncmp(err.text, want, strlen(want)))
			fail_msg("case %zu: rc %d, message '%s', want '%s'", k, rc, err.text, want);
	}
	for (k = 0; k < N(bad_other); k++) {
		gp_trace_t *t = (gp_trace_t *)1;
		gp_error_t err = { "" };
		size_t len = bad_other[k].len ? bad_other[k].len : strlen(bad_other[k].text);
		int rc = gp__trace_parse("t.csv", bad_other[k].text, len, &t, &err);

		if (rc != GP_EINVAL || t ||
		    strncmp(err.text, bad_other[k].prefix, strlen(bad_other[k].prefix)) ||
		    !strstr(err.text, bad_other[k].part))
			fail_msg("%s: rc %d, message '%s', want '%s' ... '%s'", bad_other[k].what, rc,
			         err.text, bad_other[k].prefix, bad_other[k].part);
	}
}

/* Files: the message names the path, line, column and value. */
static void test_load_errors(void **unused)
{
	static const struct {
		const char *file;
		int rc;
		const char *part; /* after "PATH" */
	} files[] = {
		{ "bad_gpus.csv", GP_EINVAL, ":4: column 'gpus' value 'eight': not a whole number" },
		{ "bad_fields.csv", GP_EINVAL, ":3: expected 4 fields as in the header, found 3" },
		{ "bad_header.csv", GP_EINVAL, ":2: header has no column 'duration_s'" },
		{ "bad_nodes.csv", GP_EINVAL, ":2: column 'nodes' value '9': must be between 1" },
		{ "no-such-file.csv", GP_EIO, ": No such file or directory" },
		{ "", GP_EIO, ": Is a directory" },
	};
	size_t k;

	for (k = 0; k < N(files); k++) {
		char path[PATH_MAX + 64], want[PATH_MAX + 256];
		gp_trace_t *t = (gp_trace_t *)1;
		gp_error_t err = { "" };
		int rc;

		snprintf(path, sizeof(path), "%s/%s", srcdata, files[k].file);
		snprintf(want, sizeof(want), "%s%s", path, files[k].part);
		rc = gp__trace_load(path, &t, &err);
		if (rc != files[k].rc || t || !strstr(err.text, want))
			fail_msg("%s: rc %d, message '%s', want '%s'", path, rc, err.text, want);
	}
}

/* ---- writer, truncation, summary ---------------------------------------- */

static char *write_mem(const gp_trace_t *t, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	assert_non_null(f);
	assert_int_equal(gp__trace_write(t, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void assert_same_jobs(const gp_trace_t *a, const gp_trace_t *b)
{
	int32_t i;

	assert_int_equal(a->njobs, b->njobs);
	for (i = 0; i < a->njobs; i++) {
		const gp_trace_job_t *x = &a->jobs[i], *y = &b->jobs[i];

		if (memcmp(&x->submit_s, &y->submit_s, sizeof(double)) ||
		    memcmp(&x->duration_s, &y->duration_s, sizeof(double)) || x->gpus != y->gpus ||
		    x->nodes != y->nodes || x->id != y->id)
			fail_msg("job %d: (%.17g, %.17g, %d, %d, %u) != (%.17g, %.17g, %d, %d, %u)",
			         (int)i, x->submit_s, x->duration_s, (int)x->gpus, (int)x->nodes,
			         (unsigned)x->id, y->submit_s, y->duration_s, (int)y->gpus,
			         (int)y->nodes, (unsigned)y->id);
	}
}

static void test_write(void **unused)
{
	/* canonical text: whole numbers as integers, nodes empty when not given */
	static const char canon[] = "submit_time_s,duration_s,gpus,nodes\n"
	                            "0,100,1,\n"
	                            "0.1,2.5,8,1\n"
	                            "0.30000000000000004,1e-05,16,2\n"
	                            "123456789.123,86400,4,\n"
	                            "1e+16,1e+300,2,2\n";
	/* awkward doubles, unsorted, extra columns: parse, write, parse again */
	static const char awkward[] = "gpus,duration_s,x,submit_time_s\n"
	                              "3,0.1,a,1e-300\n"
	                              "1,3.141592653589793,b,2.5e-7\n"
	                              "7,1e15,c,0.1\n"
	                              "2,4.9406564584124654e-300,d,1.7976931348623157e308\n"
	                              "5,123456.78901234567,e,0.1\n";
	gp_trace_t *a = NULL, *b = NULL;
	gp_error_t err = { "" };
	size_t len;
	char *out;

	if (gp__trace_parse("canon.csv", canon, strlen(canon), &a, &err))
		fail_msg("%s", err.text);
	out = write_mem(a, &len);
	assert_int_equal(len, strlen(canon));
	assert_string_equal(out, canon);
	free(out);
	gp__trace_destroy(a);

	if (gp__trace_parse("awkward.csv", awkward, strlen(awkward), &a, &err))
		fail_msg("%s", err.text);
	out = write_mem(a, &len);
	if (gp__trace_parse("again.csv", out, len, &b, &err))
		fail_msg("%s", err.text);
	/* the first parse sorted the rows, so the ids of the second are 1..n in
	 * that order: compare everything but the ids */
	{
		int32_t i;

		for (i = 0; i < b->njobs; i++)
			b->jobs[i].id = a->jobs[i].id;
	}
	assert_same_jobs(a, b);
	free(out);
	gp__trace_destroy(a);
	gp__trace_destroy(b);

	assert_int_equal(gp__trace_write(NULL, stdout), GP_EINVAL);
}

static void test_truncate(void **unused)
{
	static const struct {
		int32_t n, want;
	} cases[] = { { 0, 5 }, { -1, 5 }, { 1, 1 }, { 3, 3 }, { 5, 5 }, { 6, 5 }, { INT32_MAX, 5 } };
	static const char text[] = "submit_time_s,duration_s,gpus\n4,1,1\n3,1,1\n2,1,1\n1,1,1\n0,1,1\n";
	size_t k;

	for (k = 0; k < N(cases); k++) {
		gp_trace_t *t = NULL;
		gp_error_t err = { "" };
		int32_t i;

		assert_int_equal(gp__trace_parse("t.csv", text, strlen(text), &t, &err), 0);
		gp__trace_truncate(t, cases[k].n);
		assert_int_equal(t->njobs, cases[k].want);
		for (i = 0; i < t->njobs; i++) /* the first by submit time */
			assert_true(t->jobs[i].submit_s == i);
		gp__trace_destroy(t);
	}
	gp__trace_truncate(NULL, 3);
}

static char *summary_of(const gp_trace_t *t)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(gp__trace_print_summary(t, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_summary(void **unused)
{
	/* 4 jobs over 2 days: GPU-seconds 1*3600 + 8*7200 + 1*1800 + 2*36000
	 * = 135000 s = 37.5 GPU-h; durations sorted 1800 3600 7200 36000:
	 * p50 = (3600+7200)/2 = 5400, p90 = 7200 + 0.7*(36000-7200) = 27360,
	 * p99 = 7200 + 0.97*28800 = 35136. */
	static const char text[] = "submit_time_s,duration_s,gpus,nodes\n"
	                           "0,3600,1,\n86400,7200,8,1\n100,1800,1,\n172800,36000,2,2\n";
	static const char *want[] = {
		"trace:        s.csv\n",
		"jobs:         4 (2 with a nodes count)\n",
		"span:         2.0 days (submits from 0 s to 172800 s)\n",
		"GPU-hours:    38 (0.8 GPUs busy on average over the span)\n",
		"duration (s): p50 5400, p90 27360, p99 35136, min 1800, max 36000\n",
		"                    1        2   50.00     4.00\n",
		"                    2        1   25.00    53.33\n",
		"                    8        1   25.00    42.67\n",
	};
	gp_trace_t *t = NULL;
	gp_error_t err = { "" };
	char *out;
	size_t k;

	assert_int_equal(gp__trace_parse("s.csv", text, strlen(text), &t, &err), 0);
	out = summary_of(t);
	for (k = 0; k < N(want); k++)
		if (!strstr(out, want[k]))
			fail_msg("summary lacks '%s':\n%s", want[k], out);
	/* histogram rows in GPU order */
	assert_true(strstr(out, want[5]) < strstr(out, want[6]));
	assert_true(strstr(out, want[6]) < strstr(out, want[7]));
	free(out);
	gp__trace_destroy(t);
}

/* ---- synthetic traces ------------------------------------------------------ */

/* Jobs per GPU count in the Philly trace (../shared/data/traces/README.md;
 * Jeon et al., ATC'19). */
static const struct {
	int gpus;
	long jobs;
} philly_mix[] = { { 1, 76627 }, { 2, 1818 }, { 4, 1870 }, { 8, 1643 }, { 12, 7 },
	           { 16, 199 },  { 24, 7 },    { 32, 67 },   { 64, 6 },    { 128, 3 } };

static void test_synth_defaults(void **unused)
{
	gp_trace_synth_params_t p;

	memset(&p, 0x5a, sizeof(p));
	gp__trace_synth_defaults(&p);
	assert_int_equal(p.jobs, 0);
	assert_int_equal(p.seed, 1);
	assert_int_equal(p.cluster_gpus, 0);
	assert_true(p.load == 0.8);
	assert_int_equal(p.nsizes, 0);
	assert_true(p.dur_median_s == 1144);
	assert_true(p.dur_p90_s == 11265);
	assert_true(p.dur_min_s == 60);
	assert_true(p.dur_max_s == 604800);
	assert_int_equal(p.gpus_per_node, 0);
}

static char *synth_csv(const gp_trace_synth_params_t *p, size_t *len)
{
	gp_trace_t *t = NULL;
	gp_error_t err = { "" };
	char *out;

	if (gp__trace_synth(p, &t, &err))
		fail_msg("synth: %s", err.text);
	assert_string_equal(t->name, "synthetic");
	out = write_mem(t, len);
	gp__trace_destroy(t);
	return out;
}

static void test_synth_determinism(void **unused)
{
	gp_trace_synth_params_t p, q;
	size_t la, lb;
	char *a, *b;

	gp__trace_synth_defaults(&p);
	p.jobs = 3000;
	p.cluster_gpus = 512;
	p.gpus_per_node = 8;
	a = synth_csv(&p, &la);
	b = synth_csv(&p, &lb);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	free(b);

	/* 0 means the default for every duration parameter */
	q = p;
	q.dur_median_s = q.dur_p90_s = q.dur_min_s = q.dur_max_s = 0;
	b = synth_csv(&q, &lb);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	free(b);

	/* an explicit Philly mix is the default mix */
	q = p;
	for (q.nsizes = 0; q.nsizes < (int32_t)N(philly_mix); q.nsizes++) {
		q.sizes[q.nsizes] = philly_mix[q.nsizes].gpus;
		q.weights[q.nsizes] = (double)philly_mix[q.nsizes].jobs;
	}
	b = synth_csv(&q, &lb);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	free(b);

	/* any other seed gives another trace */
	q = p;
	q.seed = 2;
	b = synth_csv(&q, &lb);
	assert_false(la == lb && !memcmp(a, b, la));
	free(b);
	q.seed = 0;
	b = synth_csv(&q, &lb);
	assert_false(la == lb && !memcmp(a, b, la));
	free(b);
	free(a);
}

/* Synthetic traces survive a write/parse round trip unchanged. */
static void test_synth_round_trip(void **unused)
{
	gp_trace_synth_params_t p;
	gp_trace_t *t = NULL, *u = NULL;
	gp_error_t err = { "" };
	size_t len;
	char *csv;
	int32_t i;

	gp__trace_synth_defaults(&p);
	p.jobs = 5000;
	p.cluster_gpus = 64;
	p.gpus_per_node = 4;
	p.seed = 99;
	assert_int_equal(gp__trace_synth(&p, &t, &err), 0);
	for (i = 0; i < t->njobs; i++) {
		assert_int_equal(t->jobs[i].id, i + 1);
		assert_int_equal(t->jobs[i].line, 0);
	}
	csv = write_mem(t, &len);
	if (gp__trace_parse("synth.csv", csv, len, &u, &err))
		fail_msg("%s", err.text);
	assert_same_jobs(t, u);
	free(csv);
	gp__trace_destroy(t);
	gp__trace_destroy(u);
}

/* Phi and its inverse, computed here independently of the generator. */
static double phi(double x)
{
	return 0.5 * erfc(-x / sqrt(2.0));
}

static double phi_inv(double p)
{
	double lo = -40, hi = 40;
	int i;

	for (i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (phi(mid) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* Quantile q of a log-normal (median med, 90th percentile p90) truncated
 * to [lo, hi]. */
static double trunc_lognormal_q(double med, double p90, double lo, double hi, double q)
{
	double mu = log(med), sigma = log(p90 / med) / phi_inv(0.9);
	double a = phi((log(lo) - mu) / sigma), b = phi((log(hi) - mu) / sigma);

	return exp(mu + sigma * phi_inv(a + q * (b - a)));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double sorted_q(const double *v, size_t n, double q)
{
	return v[(size_t)(q * (double)(n - 1) + 0.5)];
}

static void within(const char *what, double got, double want, double rel)
{
	print_message("# %s: %.6g (want %.6g, %+.2f %%)\n", what, got, want,
	              100 * (got - want) / want);
	if (!(fabs(got - want) <= rel * fabs(want)))
		fail_msg("%s: %.6g is not within %.1f %% of %.6g", what, got, 100 * rel, want);
}

static const struct {
	const char *what;
	const char *sizes;  /* NULL = the Philly mix */
	int32_t cluster_gpus, gpus_per_node;
	double load, median, p90, lo, hi;
	bool parameters;    /* quantiles are the parameters (truncation negligible) */
} stats[] = {
	{ "Philly mix, wide truncation", NULL, 1024, 0, 0.8, 1144, 11265, 1, 1e8, true },
	{ "Philly mix, default truncation", NULL, 1024, 8, 0.8, 0, 0, 0, 0, false },
	{ "three sizes, other durations", "1:0.6,8:0.3,64:0.1", 4096, 8, 0.5, 600, 3600, 10, 1e7,
	  true },
	{ "load above one", "4:1,16:3", 256, 4, 2.5, 7200, 20000, 60, 86400 * 30, false },
};

static void test_synth_stats(void **unused)
{
	const size_t njobs = 200000;
	size_t k;

	for (k = 0; k < N(stats); k++) {
		gp_trace_synth_params_t p;
		gp_trace_t *t = NULL;
		gp_error_t err = { "" };
		double *dur = malloc(njobs * sizeof(*dur)), sumw = 0, gpus_s = 0, lo, hi, med, p90,
		       span;
		long *count;
		int32_t i, s, nsizes;
		char what[160];

		assert_non_null(dur);
		print_message("# %s\n", stats[k].what);
		gp__trace_synth_defaults(&p);
		p.jobs = (int32_t)njobs;
		p.seed = 20261121 + k;
		p.cluster_gpus = stats[k].cluster_gpus;
		p.gpus_per_node = stats[k].gpus_per_node;
		p.load = stats[k].load;
		if (stats[k].median) {
			p.dur_median_s = stats[k].median;
			p.dur_p90_s = stats[k].p90;
			p.dur_min_s = stats[k].lo;
			p.dur_max_s = stats[k].hi;
		}
		if (stats[k].sizes && gp__trace_parse_sizes(stats[k].sizes, &p, &err))
			fail_msg("%s", err.text);
		nsizes = stats[k].sizes ? p.nsizes : (int32_t)N(philly_mix);
		count = calloc((size_t)nsizes, sizeof(*count));
		assert_non_null(count);
		if (gp__trace_synth(&p, &t, &err))
			fail_msg("%s", err.text);
		assert_int_equal(t->njobs, (int32_t)njobs);
		med = stats[k].median ? stats[k].median : 1144;
		p90 = stats[k].median ? stats[k].p90 : 11265;
		lo = stats[k].median ? stats[k].lo : 60;
		hi = stats[k].median ? stats[k].hi : 604800;

		for (i = 0; i < t->njobs; i++) {
			const gp_trace_job_t *j = &t->jobs[i];
			int32_t g = j->gpus, want_nodes;

			dur[i] = j->duration_s;
			gpus_s += g * j->duration_s;
			if (!(j->duration_s >= lo && j->duration_s <= hi))
				fail_msg("job %d: duration %.17g outside [%g, %g]", (int)i,
				         j->duration_s, lo, hi);
			if (i && j->submit_s < t->jobs[i - 1].submit_s)
				fail_msg("job %d: submit times not sorted", (int)i);
			for (s = 0; s < nsizes; s++)
				if (g == (stats[k].sizes ? p.sizes[s] : philly_mix[s].gpus))
					break;
			if (s == nsizes)
				fail_msg("job %d: %d GPUs is not in the mix", (int)i, (int)g);
			count[s]++;
			want_nodes = p.gpus_per_node && g > p.gpus_per_node
			                     ? (g + p.gpus_per_node - 1) / p.gpus_per_node
			                     : 0;
			if (j->nodes != want_nodes)
				fail_msg("job %d: %d GPUs, %d nodes, want %d", (int)i, (int)g,
				         (int)j->nodes, (int)want_nodes);
		}
		assert_true(t->jobs[0].submit_s == 0);

		/* durations */
		qsort(dur, njobs, sizeof(*dur), cmp_double);
		if (stats[k].parameters) {
			within("median duration vs the parameter", sorted_q(dur, njobs, 0.5), med,
			       0.03);
			within("p90 duration vs the parameter", sorted_q(dur, njobs, 0.9), p90, 0.03);
		}
		within("median duration vs the truncated log-normal", sorted_q(dur, njobs, 0.5),
		       trunc_lognormal_q(med, p90, lo, hi, 0.5), 0.03);
		within("p90 duration vs the truncated log-normal", sorted_q(dur, njobs, 0.9),
		       trunc_lognormal_q(med, p90, lo, hi, 0.9), 0.03);

		/* sizes: each frequency within 4.5 standard deviations of its weight */
		for (s = 0; s < nsizes; s++)
			sumw += stats[k].sizes ? p.weights[s] : (double)philly_mix[s].jobs;
		for (s = 0; s < nsizes; s++) {
			double w = (stats[k].sizes ? p.weights[s] : (double)philly_mix[s].jobs) / sumw;
			double sd = sqrt(w * (1 - w) / (double)njobs), f = (double)count[s] / njobs;

			if (fabs(f - w) > 4.5 * sd + 1e-9)
				fail_msg("%d GPUs: frequency %.6f, weight %.6f (sd %.2g)",
				         (int)(stats[k].sizes ? p.sizes[s] : philly_mix[s].gpus), f, w,
				         sd);
		}

		/* offered load from the jobs themselves */
		span = t->jobs[t->njobs - 1].submit_s - t->jobs[0].submit_s;
		snprintf(what, sizeof(what), "offered load on %d GPUs", (int)p.cluster_gpus);
		within(what, gpus_s / (p.cluster_gpus * span), p.load, 0.03);

		free(count);
		free(dur);
		gp__trace_destroy(t);
	}
}

static void test_synth_errors(void **unused)
{
	static const struct {
		const char *what, *name;
		int field;
		double v;
	} cases[] = {
		{ "no jobs", "jobs", 0, 0 },
		{ "negative jobs", "jobs", 0, -5 },
		{ "no cluster", "cluster_gpus", 1, 0 },
		{ "load 0", "load", 2, 0 },
		{ "load negative", "load", 2, -0.5 },
		{ "load above 10", "load", 2, 10.5 },
		{ "load NaN", "load", 2, NAN },
		{ "too many sizes", "nsizes", 3, GP_TRACE_MAX_SIZES + 1 },
		{ "negative nsizes", "nsizes", 3, -1 },
		{ "size 0", "sizes[1]", 4, 0 },
		{ "size too large", "sizes[1]", 4, 1048577 },
		{ "size twice", "sizes[1]", 4, 1 },
		{ "weight 0", "weights[0]", 5, 0 },
		{ "weight negative", "weights[0]", 5, -1 },
		{ "weight infinite", "weights[0]", 5, INFINITY },
		{ "weight NaN", "weights[0]", 5, NAN },
		{ "median negative", "dur_median_s", 6, -1 },
		{ "median NaN", "dur_median_s", 6, NAN },
		{ "p90 below the median", "dur_p90_s", 7, 1000 },
		{ "p90 equal to the median", "dur_p90_s", 7, 1144 },
		{ "min negative", "dur_min_s", 8, -60 },
		{ "min above max", "dur_max_s", 8, 700000 },
		{ "max above the limit", "dur_max_s", 9, 2e9 },
		{ "max infinite", "dur_max_s", 9, INFINITY },
		{ "window too narrow", "dur_min_s, dur_max_s", 10, 0 },
		{ "gpus per node negative", "gpus_per_node", 11, -1 },
	};
	size_t k;

	for (k = 0; k < N(cases); k++) {
		gp_trace_synth_params_t p;
		gp_trace_t *t = (gp_trace_t *)1;
		gp_error_t err = { "" };
		int rc;

		gp__trace_synth_defaults(&p);
		p.jobs = 100;
		p.cluster_gpus = 64;
		p.nsizes = 2;
		p.sizes[0] = 1;
		p.sizes[1] = 8;
		p.weights[0] = p.weights[1] = 1;
		switch (cases[k].field) {
		case 0: p.jobs = (int32_t)cases[k].v; break;
		case 1: p.cluster_gpus = (int32_t)cases[k].v; break;
		case 2: p.load = cases[k].v; break;
		case 3: p.nsizes = (int32_t)cases[k].v; break;
		case 4: p.sizes[1] = (int32_t)cases[k].v; break;
		case 5: p.weights[0] = cases[k].v; break;
		case 6: p.dur_median_s = cases[k].v; break;
		case 7: p.dur_p90_s = cases[k].v; break;
		case 8: p.dur_min_s = cases[k].v; break;
		case 9: p.dur_max_s = cases[k].v; break;
		case 10: p.dur_min_s = 1e6; p.dur_max_s = 1e6 + 1; break;
		case 11: p.gpus_per_node = (int32_t)cases[k].v; break;
		}
		rc = gp__trace_synth(&p, &t, &err);
		if (rc != GP_EINVAL || t || strncmp(err.text, cases[k].name, strlen(cases[k].name)) ||
		    err.text[strlen(cases[k].name)] != ':')
			fail_msg("%s: rc %d, message '%s', want it to start with '%s:'", cases[k].what,
			         rc, err.text, cases[k].name);
	}
}

static void test_parse_sizes(void **unused)
{
	static const struct {
		const char *spec;
		int n;
		int32_t sizes[4];
		double weights[4];
	} good_specs[] = {
		{ "1:0.6,8:0.3,64:0.1", 3, { 1, 8, 64 }, { 0.6, 0.3, 0.1 } },
		{ "8:1", 1, { 8 }, { 1 } },
		{ " 2 : 5 , 4:1e-3", 2, { 2, 4 }, { 5, 1e-3 } },
		{ "1048576:7,1:76627", 2, { 1048576, 1 }, { 7, 76627 } },
	};
	static const struct {
		const char *spec, *part;
	} bad_specs[] = {
		{ "", "sizes: empty" },
		{ "8", "sizes: item '8': expected GPUS:WEIGHT" },
		{ "1:1,8", "sizes: item '8': expected GPUS:WEIGHT" },
		{ "x:1", "sizes: item 'x:1': GPUs must be a whole number from 1 to 1048576" },
		{ "0:1", "sizes: item '0:1': GPUs" },
		{ "1048577:1", "sizes: item '1048577:1': GPUs" },
		{ "1.5:1", "sizes: item '1.5:1': GPUs" },
		{ "1:0.5,2:0", "sizes: item '2:0': weight must be a number > 0" },
		{ "1:-1", "sizes: item '1:-1': weight" },
		{ "1:abc", "sizes: item '1:abc': weight" },
		{ "1:nan", "sizes: item '1:nan': weight" },
		{ "1:", "sizes: item '1:': weight" },
		{ "1:1,,2:1", "sizes: item '': expected GPUS:WEIGHT" },
		{ "1:1,", "sizes: item '': expected GPUS:WEIGHT" },
		{ "4:1,8:1,4:2", "sizes: item '4:2': 4 GPUs given twice" },
		{ "1:1,2:1,3:1,4:1,5:1,6:1,7:1,8:1,9:1,10:1,11:1,12:1,13:1,14:1,15:1,16:1,17:1,"
		  "18:1,19:1,20:1,21:1,22:1,23:1,24:1,25:1,26:1,27:1,28:1,29:1,30:1,31:1,32:1,33:1",
		  "sizes: item '33:1': more than 32 sizes" },
		{ "1:1111111111111111111111111111111111111111111111111111111111111111111111",
		  "sizes: item '1:1111111111111111111111111111111111111111111111111111111111...': "
		  "too long" },
	};
	size_t k;
	int i;

	for (k = 0; k < N(good_specs); k++) {
		gp_trace_synth_params_t p;
		gp_error_t err = { "" };

		gp__trace_synth_defaults(&p);
		if (gp__trace_parse_sizes(good_specs[k].spec, &p, &err))
			fail_msg("'%s': %s", good_specs[k].spec, err.text);
		assert_int_equal(p.nsizes, good_specs[k].n);
		for (i = 0; i < good_specs[k].n; i++) {
			assert_int_equal(p.sizes[i], good_specs[k].sizes[i]);
			assert_true(p.weights[i] == good_specs[k].weights[i]);
		}
	}
	for (k = 0; k < N(bad_specs); k++) {
		gp_trace_synth_params_t p;
		gp_error_t err = { "" };
		int rc;

		gp__trace_synth_defaults(&p);
		p.nsizes = 1;
		p.sizes[0] = 3;
		p.weights[0] = 1;
		rc = gp__trace_parse_sizes(bad_specs[k].spec, &p, &err);
		if (rc != GP_EINVAL || strncmp(err.text, bad_specs[k].part, strlen(bad_specs[k].part)))
			fail_msg("'%s': rc %d, message '%s', want '%s'", bad_specs[k].spec, rc, err.text,
			         bad_specs[k].part);
		/* a bad spec leaves the parameters as they were */
		assert_int_equal(p.nsizes, 1);
		assert_int_equal(p.sizes[0], 3);
	}
}

/* ---- the real trace ---------------------------------------------------- */

static void test_philly(void **unused)
{
	char path[PATH_MAX + 64], *out;
	gp_trace_t *t = NULL;
	gp_error_t err = { "" };
	struct timespec a, b;
	size_t k;
	int32_t i;

	snprintf(path, sizeof(path), "%s/philly_pollux_82k.csv", shared);
	if (access(path, R_OK)) {
		print_message("# SKIP %s is absent (set GP_SHARED_DATA to the shared data directory)\n",
		              path);
		skip();
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (gp__trace_load(path, &t, &err))
		fail_msg("%s", err.text);
	clock_gettime(CLOCK_MONOTONIC, &b);
	print_message("# loaded %d jobs in %.1f ms\n", (int)t->njobs,
	              (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6);
	assert_int_equal(t->njobs, 82247);
	/* the file is sorted: ids in order, lines = id + 1 (header) */
	for (i = 0; i < t->njobs; i++) {
		assert_int_equal(t->jobs[i].id, i + 1);
		assert_int_equal(t->jobs[i].line, i + 2);
		assert_int_equal(t->jobs[i].nodes, 0);
	}
	/* the README's GPU histogram, row by row */
	for (k = 0; k < N(philly_mix); k++) {
		long n = 0;

		for (i = 0; i < t->njobs; i++)
			n += t->jobs[i].gpus == philly_mix[k].gpus;
		if (n != philly_mix[k].jobs)
			fail_msg("%d GPUs: %ld jobs, README says %ld", philly_mix[k].gpus, n,
			         philly_mix[k].jobs);
	}
	/* README: 108.9 days; duration quantiles p50 1,144, p90 11,265, p99 254,758 */
	out = summary_of(t);
	if (!strstr(out, "jobs:         82247 (0 with a nodes count)\n") ||
	    !strstr(out, "span:         108.9 days") ||
	    !strstr(out, "duration (s): p50 1144, p90 11265, p99 254758,") ||
	    !strstr(out, "                    1    76627   93.17"))
		fail_msg("summary:\n%s", out);
	free(out);
	gp__trace_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_sort_many),
		cmocka_unit_test(test_load_good),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_hint_columns),
		cmocka_unit_test(test_time_limits),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_truncate),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_synth_defaults),
		cmocka_unit_test(test_synth_determinism),
		cmocka_unit_test(test_synth_round_trip),
		cmocka_unit_test(test_synth_stats),
		cmocka_unit_test(test_synth_errors),
		cmocka_unit_test(test_parse_sizes),
		cmocka_unit_test(test_philly),
	};

	return cmocka_run_group_tests_name("trace", tests, setup, NULL);
}
