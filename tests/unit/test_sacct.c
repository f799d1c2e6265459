/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_sacct.c - `sacct --parsable2` output into a trace (sim/sacct.c).
 * The inputs are written here by hand in the format sacct(1) documents: a
 * header line of field names, '|' between fields, Elapsed and Timelimit as
 * [days-]hours:minutes:seconds, "Unknown" and "None" for what is not
 * known, step lines (123.batch, 123.extern, 123.0) beside their job.
 */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model.h"
#include "sacct.h"
#include "trace.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Import s; the CSV into *csv (malloc'd, caller frees). */
static int import(const char *s, char **csv, gp_sacct_stats_t *st, gp_error_t *err)
{
	size_t len = 0;
	FILE *f = open_memstream(csv, &len);
	int rc;

	assert_non_null(f);
	rc = gp__sacct_import("sacct.txt", s, strlen(s), f, st, err);
	assert_int_equal(fclose(f), 0);
	return rc;
}

#define HDR "JobID|JobName|Submit|Start|End|Elapsed|Timelimit|AllocTRES|ReqTRES|NodeList|Partition|State\n"

/* A month's kinds of lines: a two-node job with its steps, a job with
 * typed GPUs only, a pending job (Unknown start, None assigned), a CPU
 * job, a job cancelled before it started, a job still running (End
 * Unknown), an array task and a job of over a day. */
static const char month[] =
	HDR
	"4001|train|2026-10-01T08:00:00|2026-10-01T08:00:30|2026-10-01T10:00:30|02:00:00|04:00:00|"
	"billing=16,cpu=16,gres/gpu=16,mem=256G,node=2|billing=16,cpu=16,gres/gpu=16,mem=256G,node=2|"
	"gpu[01-02]|batch|COMPLETED\n"
	"4001.batch|batch|2026-10-01T08:00:30|2026-10-01T08:00:30|2026-10-01T10:00:30|02:00:00||"
	"cpu=8,gres/gpu=8,mem=128G,node=1||gpu01||COMPLETED\n"
	"4001.extern|extern|2026-10-01T08:00:30|2026-10-01T08:00:30|2026-10-01T10:00:30|02:00:00||"
	"billing=16,cpu=16,gres/gpu=16,mem=256G,node=2||gpu[01-02]||COMPLETED\n"
	"4001.0|python|2026-10-01T08:00:31|2026-10-01T08:00:31|2026-10-01T10:00:29|01:59:58||"
	"cpu=16,gres/gpu=16,mem=256G,node=2||gpu[01-02]||COMPLETED\n"
	"4002|eval|2026-10-01T08:10:00|2026-10-01T08:20:00|2026-10-01T08:50:00|00:30:00|01:00:00|"
	"billing=4,cpu=4,gres/gpu:a100=2,gres/gpu:v100=2,mem=32G,node=1|"
	"billing=4,cpu=4,gres/gpu:a100=2,gres/gpu:v100=2,node=1|gpu03|debug|FAILED\n"
	"4003|big|2026-10-01T09:00:00|Unknown|Unknown|00:00:00|2-00:00:00||"
	"billing=64,cpu=64,gres/gpu=64,node=8|None assigned|batch|PENDING\n"
	"4004|post|2026-10-01T09:30:00|2026-10-01T09:30:00|2026-10-01T09:40:00|00:10:00|UNLIMITED|"
	"billing=2,cpu=2,mem=4G,node=1|billing=2,cpu=2,mem=4G,node=1|cpu07|cpu|COMPLETED\n"
	"4005|oops|2026-10-01T09:45:00|None|2026-10-01T09:46:00|00:00:00|Partition_Limit||"
	"billing=8,cpu=8,gres/gpu=8,node=1|None assigned|batch|CANCELLED by 1000\n"
	"4006|long|2026-10-01T10:00:00|2026-10-01T10:00:00|Unknown|05:00:00|3-00:00:00|"
	"billing=8,cpu=8,gres/gpu=8,node=1|billing=8,cpu=8,gres/gpu=8,node=1|gpu04|batch|RUNNING\n"
	"4007_3|sweep|2026-10-01T11:00:00|2026-10-01T11:00:00|2026-10-01T11:15:00|15:00|20:00|"
	"billing=1,cpu=1,gres/gpu=1,node=1|billing=1,cpu=1,gres/gpu=1,node=1|gpu05|batch|COMPLETED\n"
	"4008|week|2026-10-02T07:59:30|2026-10-02T08:00:00|2026-10-03T09:03:04|1-01:03:04|7-00:00:00|"
	"billing=32,cpu=32,gres/gpu=32,node=4|billing=32,cpu=32,gres/gpu=32,node=4|"
	"gpu[05-06,09-10]|batch|TIMEOUT\n";

static void test_month(void **unused)
{
	gp_sacct_stats_t st;
	gp_error_t err = { "" };
	char *csv = NULL;

	assert_int_equal(import(month, &csv, &st, &err), 0);
	assert_string_equal(csv,
	        "submit_time_s,duration_s,gpus,nodes,job_id,partition,state,nodelist,wait_s,"
	        "timelimit_s\n"
	        "0,7200,16,2,4001,batch,COMPLETED,gpu[01-02],30,14400\n"
	        "600,1800,4,1,4002,debug,FAILED,gpu03,600,3600\n"
	        "10800,900,1,1,4007_3,batch,COMPLETED,gpu05,0,1200\n"
	        /* 1 day 23:59:30 after the first, 1-01:03:04 = 90,184 s */
	        "86370,90184,32,4,4008,batch,TIMEOUT,\"gpu[05-06,09-10]\",30,604800\n");
	assert_int_equal(st.lines, 11);
	assert_int_equal(st.steps, 3);
	assert_int_equal(st.no_gpus, 1);  /* 4004 */
	assert_int_equal(st.not_run, 3);  /* 4003 pending, 4005 cancelled, 4006 running */
	assert_int_equal(st.jobs, 4);
	free(csv);
}

/* What import-sacct writes, the trace reader reads: the jobs, and the
 * nodes Slurm gave them for simulate. */
static void test_round_trip(void **unused)
{
	gp_sacct_stats_t st;
	gp_error_t err = { "" };
	gp_trace_t *t = NULL;
	char *csv = NULL;

	assert_int_equal(import(month, &csv, &st, &err), 0);
	assert_int_equal(gp__trace_parse("trace.csv", csv, strlen(csv), &t, &err), 0);
	assert_int_equal(t->njobs, 4);
	assert_int_equal(t->jobs[0].gpus, 16);
	assert_int_equal(t->jobs[0].nodes, 2);
	assert_true(t->jobs[3].duration_s == 90184);
	assert_string_equal(t->jobs[0].nodelist, "gpu[01-02]");
	assert_string_equal(t->jobs[3].nodelist, "gpu[05-06,09-10]");
	gp__trace_truncate(t, 1); /* frees the others' node lists (valgrind/ASan) */
	assert_int_equal(t->njobs, 1);
	gp__trace_destroy(t);
	free(csv);
}

/* sacct --parsable: every line ends with '|'; field order is free and
 * names are case-insensitive; without Elapsed, End - Start. */
static void test_parsable_and_order(void **unused)
{
	static const char in[] =
		"state|nodelist|reqtres|submit|start|end|jobid|\n"
		"COMPLETED|n[1-2]|gres/gpu=8,node=2|2026-01-31T23:00:00|2026-02-01T00:00:00|"
		"2026-02-01T01:30:00|7|\n";
	gp_sacct_stats_t st;
	gp_error_t err = { "" };
	char *csv = NULL;

	assert_int_equal(import(in, &csv, &st, &err), 0);
	assert_string_equal(csv, "submit_time_s,duration_s,gpus,nodes,job_id,partition,state,"
	                         "nodelist,wait_s,timelimit_s\n"
	                         "0,5400,8,2,7,,COMPLETED,n[1-2],3600,\n");
	free(csv);
}

static void test_duration(void **unused)
{
	static const struct {
		const char *s;
		double want; /* < 0: an error */
	} cases[] = {
		{ "1-02:03:04", 93784 }, { "02:03:04", 7384 }, { "00:00:00", 0 },
		{ "03:04", 184 }, { "100:00:00", 360000 }, { "12-00:00:00", 1036800 },
		{ "00:01:02.345", 62 }, { "", -1 }, { "1-", -1 }, { "1-02:03", -1 },
		{ "02:60:00", -1 }, { "02:00:60", -1 }, { "1:2:3:4", -1 }, { "a:00", -1 },
		{ "-02:00:00", -1 }, { "02::00", -1 }, { "02:00:", -1 }, { "UNLIMITED", -1 },
	};

	for (size_t i = 0; i < N(cases); i++) {
		double v = -1;
		int rc = gp__sacct_duration(cases[i].s, strlen(cases[i].s), &v);

		if (cases[i].want < 0) {
			if (rc != GP_EINVAL)
				fail_msg("'%s' accepted as %g", cases[i].s, v);
		} else if (rc || v != cases[i].want) {
			fail_msg("'%s': rc %d, %g, want %g", cases[i].s, rc, v, cases[i].want);
		}
	}
}

static void test_errors(void **unused)
{
	static const struct {
		const char *in, *msg;
	} cases[] = {
		{ "", "sacct.txt: no header line" },
		{ "JobID|Start|AllocTRES\n1|2026-01-01T00:00:00|gres/gpu=1\n",
		  "sacct.txt:1: the header names no Submit field" },
		{ "JobID|Submit|Elapsed\n1|2026-01-01T00:00:00|01:00:00\n",
		  "sacct.txt:1: the header names no AllocTRES or ReqTRES field" },
		{ "JobID|Submit|Start|End|Elapsed|AllocTRES\n"
		  "1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|01:00:00\n",
		  "sacct.txt:2: expected 6 fields as in the header, found 5" },
		{ "JobID|JobName|Submit|Start|End|Elapsed|AllocTRES\n"
		  "1|a|b|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|01:00:00|gres/gpu=1\n",
		  "sacct.txt:2: expected 7 fields as in the header, found 8 (a '|' inside" },
		{ "JobID|Submit|Start|End|Elapsed|AllocTRES\n"
		  "1|2026-01-01 00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|01:00:00|gres/gpu=1\n",
		  "sacct.txt:2: Submit '2026-01-01 00:00:00': not YYYY-MM-DDTHH:MM:SS" },
		{ "JobID|Submit|Start|End|Elapsed|AllocTRES\n"
		  "1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|1 hour|gres/gpu=1\n",
		  "sacct.txt:2: Elapsed '1 hour': not [DD-]HH:MM:SS" },
		{ "JobID|Submit|Start|End|Elapsed|AllocTRES\n"
		  "1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|01:00:00|gres/gpu=x,node=1\n",
		  "sacct.txt:2: AllocTRES 'gres/gpu=x,node=1': not a count" },
		{ "JobID|Submit|Start|End|Elapsed|AllocTRES|Timelimit\n"
		  "1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|01:00:00|gres/gpu=1|soon\n",
		  "sacct.txt:2: Timelimit 'soon': not [DD-]HH:MM:SS, UNLIMITED or Partition_Limit" },
		{ "JobID|Submit|Start|End|Elapsed|AllocTRES\n"
		  "1.batch|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|01:00:00|gres/gpu=1\n"
		  "2|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|01:00:00|cpu=4\n",
		  "sacct.txt: no job with GPUs that ran (2 lines: 1 steps, 1 without GPUs, 0 that never ran); "
		  "sacct shows GPUs only where slurm.conf's AccountingStorageTRES lists gres/gpu" },
	};

	for (size_t i = 0; i < N(cases); i++) {
		gp_sacct_stats_t st;
		gp_error_t err = { "" };
		char *csv = NULL;
		int rc = import(cases[i].in, &csv, &st, &err);

		if (rc == 0 || strncmp(err.text, cases[i].msg, strlen(cases[i].msg)))
			fail_msg("case %zu: rc %d '%s', want '%s'", i, rc, err.text, cases[i].msg);
		/* nothing written on an error */
		assert_true(!csv || !*csv);
		free(csv);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_month),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_parsable_and_order),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
