/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_trace.c - `gpuplace trace show|check|synth`: read, check or generate
 * job traces for the simulator (sim/trace.h). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "model.h"
#include "sacct.h"
#include "trace.h"

#define ME_SHOW "gpuplace trace show"
#define ME_SYNTH "gpuplace trace synth"
#define ME_SACCT "gpuplace trace import-sacct"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: gpuplace trace show [--jobs N] FILE\n"
	        "       gpuplace trace check FILE...\n"
	        "       gpuplace trace synth --jobs N (--conf-dir DIR | --json FILE | --gpus TOTAL)\n"
	        "                            [--gpus-per-node G] [--load L] [--seed S]\n"
	        "                            [--sizes SPEC] [--median S] [--p90 S] [--min S]\n"
	        "                            [--max S] [-o FILE]\n"
	        "       gpuplace trace import-sacct [-o FILE] [SACCT_FILE|-]\n"
	        "\n"
	        "Job traces for the simulator: CSV with a header naming submit_time_s,\n"
	        "duration_s, gpus and optionally nodes (other columns are ignored).\n"
	        "\n"
	        "  show    summary: jobs, span, GPU-hours, GPUs per job, duration quantiles\n"
	        "  check   load each FILE and say whether it is valid\n"
	        "  synth   write a synthetic trace (see `gpuplace trace synth --help`)\n"
	        "  import-sacct  the site's own jobs from `sacct --parsable2` output\n");
}

static void usage_show(FILE *f)
{
	fprintf(f, "usage: gpuplace trace show [--jobs N] FILE\n"
	           "\n"
	           "Summarise a trace: jobs, span, GPU-hours, the GPU-count histogram and\n"
	           "the duration quantiles.\n"
	           "\n"
	           "  --jobs N   only the first N jobs by submit time\n");
}

static void usage_check(FILE *f)
{
	fprintf(f, "usage: gpuplace trace check FILE...\n"
	           "\n"
	           "Load each trace and print \"FILE: N jobs ok\", or the first error (file,\n"
	           "line, column, value); the exit status is 1 when any file is invalid.\n");
}

static void usage_synth(FILE *f)
{
	fprintf(f,
	        "usage: gpuplace trace synth --jobs N (--conf-dir DIR | --json FILE | --gpus TOTAL)\n"
	        "                            [OPTIONS] [-o FILE]\n"
	        "\n"
	        "A synthetic trace: GPU counts from a discrete mix (default: the Philly\n"
	        "trace's), log-normal durations truncated by redrawing, Poisson arrivals\n"
	        "at the rate that offers the cluster the requested load.  The same options\n"
	        "give the same CSV, byte for byte.\n"
	        "\n"
	        "  --jobs N            number of jobs (required)\n"
	        "  --conf-dir DIR      the cluster (its GPUs and largest node) from a conf dir\n"
	        "  --json FILE         ... or from a JSON model\n"
	        "  --gpus TOTAL        ... or just its number of GPUs\n"
	        "  --gpus-per-node G   nodes = ceil(gpus / G) for jobs larger than G (default:\n"
	        "                      the model's largest node; 0 leaves nodes empty)\n"
	        "  --load L            offered load, 0 < L <= 10 (default 0.8)\n"
	        "  --seed S            random seed (default 1)\n"
	        "  --sizes SPEC        GPU-count mix GPUS:WEIGHT,... e.g. 1:0.6,8:0.3,64:0.1\n"
	        "  --median S          median duration, s (default 1144)\n"
	        "  --p90 S             90th percentile duration, s (default 11265)\n"
	        "  --min S             shortest duration, s (default 60)\n"
	        "  --max S             longest duration, s (default 604800)\n"
	        "  -o, --out FILE      write to FILE instead of standard output\n");
}

static bool is_help(const char *s)
{
	return !strcmp(s, "--help") || !strcmp(s, "-h") || !strcmp(s, "help");
}

static int cmd_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "jobs", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	gp_trace_t *t = NULL;
	gp_error_t err = { "" };
	long n = 0;
	int opt, rc;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (gp__cli_long(ME_SHOW, "--jobs", optarg, 1, INT32_MAX, &n))
				return 2;
			break;
		case 'h': usage_show(stdout); return 0;
		default: return gp__cli_option_error(ME_SHOW, opt, argv[optind - 1], usage_show);
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "gpuplace trace show: give one trace FILE\n");
		usage_show(stderr);
		return 2;
	}
	if ((rc = gp__trace_load(argv[optind], &t, &err))) {
		fprintf(stderr, "gpuplace trace show: %s\n", err.text);
		return 1;
	}
	gp__trace_truncate(t, (int32_t)n);
	rc = gp__trace_print_summary(t, stdout);
	gp__trace_destroy(t);
	if (rc || fflush(stdout)) {
		fprintf(stderr, "gpuplace trace show: %s\n", gp_strerror(rc ? rc : GP_EIO));
		return 1;
	}
	return 0;
}

static int cmd_check(int argc, char **argv)
{
	int i, status = 0;

	if (argc > 1 && is_help(argv[1])) {
		usage_check(stdout);
		return 0;
	}
	if (argc < 2) {
		fprintf(stderr, "gpuplace trace check: give one or more trace FILEs\n");
		usage_check(stderr);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		gp_trace_t *t = NULL;
		gp_error_t err = { "" };

		if (gp__trace_load(argv[i], &t, &err)) {
			fprintf(stderr, "gpuplace trace check: %s\n", err.text);
			status = 1;
			continue;
		}
		printf("%s: %d jobs ok\n", argv[i], (int)t->njobs);
		gp__trace_destroy(t);
	}
	return status;
}

static int num_double(const char *opt, const char *s, double *out)
{
	if (gp__parse_double(s, 0, 1e12, out) || !(*out > 0)) {
		fprintf(stderr, "gpuplace trace synth: %s: '%s' is not a number > 0\n", opt, s);
		return -1;
	}
	return 0;
}

/* The cluster's GPUs and largest node from a model; 0 or 1 (message
 * printed). */
static int cluster_gpus(const char *dir, const char *json, int32_t *total, int32_t *per_node)
{
	gp_cluster_t *c = NULL;
	gp_error_t err = { "" };
	long n;
	int32_t i, max = 0;

	if (gp__model_load(dir, json, NULL, &c, NULL, &err)) {
		fprintf(stderr, "gpuplace trace synth: %s\n", err.text);
		return 1;
	}
	n = gp_cluster_gpu_count(c);
	for (i = 0; i < c->nnodes; i++)
		if (c->nodes[i].ngpus > max)
			max = c->nodes[i].ngpus;
	gp_cluster_destroy(c);
	if (n < 1 || n > INT32_MAX) {
		fprintf(stderr, "gpuplace trace synth: %s: the cluster has %ld GPUs\n",
		        dir ? dir : json, n);
		return 1;
	}
	*total = (int32_t)n;
	*per_node = max;
	return 0;
}

/* What `trace synth`'s command line asks for. */
struct synth_args {
	gp_trace_synth_params_t p;
	const char *dir, *json, *out;
	long gpn;               /* --gpus-per-node, -1 = the model's */
	int sources;            /* how many of --conf-dir, --json, --gpus */
};

/* One option into a: 0, or -1 with the message printed. */
static int synth_option(struct synth_args *a, int opt, const char *name, const char *v)
{
	gp_trace_synth_params_t *p = &a->p;
	gp_error_t err = { "" };
	long seed;

	switch (opt) {
	case 'n': return gp__cli_int32(ME_SYNTH, name, v, 1, 100000000, &p->jobs);
	case 'c': a->dir = v; a->sources++; return 0;
	case 'j': a->json = v; a->sources++; return 0;
	case 'g': a->sources++; return gp__cli_int32(ME_SYNTH, name, v, 1, INT32_MAX, &p->cluster_gpus);
	case 'G': return gp__cli_long(ME_SYNTH, name, v, 0, 1048576, &a->gpn);
	case 'm': return num_double(name, v, &p->dur_median_s);
	case 'p': return num_double(name, v, &p->dur_p90_s);
	case 'a': return num_double(name, v, &p->dur_min_s);
	case 'b': return num_double(name, v, &p->dur_max_s);
	case 'o': a->out = v; return 0;
	case 'l':
		if (gp__parse_double(v, 0, 10, &p->load) || !(p->load > 0)) {
			fprintf(stderr, ME_SYNTH ": --load: '%s' is not a number in (0, 10]\n", v);
			return -1;
		}
		return 0;
	case 'S':
		if (gp__cli_long(ME_SYNTH, name, v, 0, LONG_MAX, &seed))
			return -1;
		p->seed = (uint64_t)seed;
		return 0;
	case 'z':
		if (gp__trace_parse_sizes(v, p, &err)) {
			fprintf(stderr, ME_SYNTH ": --%s\n", err.text);
			return -1;
		}
		return 0;
	default:
		return -1;
	}
}

/* Options into *a: GP_CLI_RUN, or the exit status (0 --help, 2 usage). */
static int synth_parse_args(int argc, char **argv, struct synth_args *a)
{
	static const struct option opts[] = {
		{ "jobs", required_argument, NULL, 'n' },
		{ "conf-dir", required_argument, NULL, 'c' },
		{ "json", required_argument, NULL, 'j' },
		{ "gpus", required_argument, NULL, 'g' },
		{ "gpus-per-node", required_argument, NULL, 'G' },
		{ "load", required_argument, NULL, 'l' },
		{ "seed", required_argument, NULL, 'S' },
		{ "sizes", required_argument, NULL, 'z' },
		{ "median", required_argument, NULL, 'm' },
		{ "p90", required_argument, NULL, 'p' },
		{ "min", required_argument, NULL, 'a' },
		{ "max", required_argument, NULL, 'b' },
		{ "out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char name[32];
	int opt, i = -1;

	memset(a, 0, sizeof(*a));
	gp__trace_synth_defaults(&a->p);
	a->gpn = -1;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":ho:", opts, &i)) != -1) {
		if (opt == 'h') {
			usage_synth(stdout);
			return 0;
		}
		if (opt == ':' || opt == '?')
			return gp__cli_option_error(ME_SYNTH, opt, argv[optind - 1], usage_synth);
		/* -o has no long index */
		snprintf(name, sizeof(name), "--%s", i >= 0 ? opts[i].name : "out");
		i = -1;
		if (synth_option(a, opt, name, optarg))
			return 2;
	}
	if (optind < argc) {
		fprintf(stderr, ME_SYNTH ": unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!a->p.jobs) {
		fprintf(stderr, ME_SYNTH ": --jobs N is required\n");
		usage_synth(stderr);
		return 2;
	}
	if (a->sources != 1) {
		fprintf(stderr, ME_SYNTH ": give exactly one of --conf-dir DIR, --json FILE "
		                "or --gpus TOTAL\n");
		return 2;
	}
	return GP_CLI_RUN;
}

/* t as CSV to out ("-" or NULL = standard output); 0 or 1 (message printed). */
static int write_trace(const gp_trace_t *t, const gp_trace_synth_params_t *p, const char *out)
{
	FILE *f = !out || !strcmp(out, "-") ? stdout : fopen(out, "w");
	int rc;

	if (!f) {
		fprintf(stderr, ME_SYNTH ": cannot write %s: %s\n", out, strerror(errno));
		return 1;
	}
	rc = gp__trace_write(t, f);
	if (f == stdout ? fflush(f) : fclose(f))
		rc = GP_EIO;
	if (rc) {
		fprintf(stderr, ME_SYNTH ": cannot write %s: %s\n",
		        f == stdout ? "standard output" : out, strerror(errno));
		return 1;
	}
	if (f != stdout)
		fprintf(stderr, ME_SYNTH ": %d jobs over %.1f days, offered load %g on %d GPUs, "
		        "written to %s\n",
		        (int)t->njobs, (t->jobs[t->njobs - 1].submit_s - t->jobs[0].submit_s) / 86400,
		        p->load, (int)p->cluster_gpus, out);
	return 0;
}

static int cmd_synth(int argc, char **argv)
{
	struct synth_args a;
	gp_trace_t *t = NULL;
	gp_error_t err = { "" };
	int rc;

	if ((rc = synth_parse_args(argc, argv, &a)) != GP_CLI_RUN)
		return rc;
	if ((a.dir || a.json) &&
	    cluster_gpus(a.dir, a.json, &a.p.cluster_gpus, &a.p.gpus_per_node))
		return 1;
	if (a.gpn >= 0)
		a.p.gpus_per_node = (int32_t)a.gpn;
	if ((rc = gp__trace_synth(&a.p, &t, &err))) {
		fprintf(stderr, ME_SYNTH ": %s\n", err.text);
		return rc == GP_EINVAL ? 2 : 1;
	}
	rc = write_trace(t, &a.p, a.out);
	gp__trace_destroy(t);
	return rc;
}

static void usage_sacct(FILE *f)
{
	fprintf(f,
	        "usage: gpuplace trace import-sacct [-o FILE] [SACCT_FILE|-]\n"
	        "\n"
	        "The site's own history as a trace: read what sacct --parsable2 printed\n"
	        "(standard input without SACCT_FILE or with -), for example\n"
	        "\n"
	        "  sacct --allusers --parsable2 --starttime 2026-10-01 --endtime 2026-11-01 \\\n"
	        "    --format=JobID,Submit,Start,End,Elapsed,Timelimit,AllocTRES,ReqTRES,NodeList,Partition,State\n"
	        "\n"
	        "and write the trace CSV that `gpuplace simulate --trace` replays, with\n"
	        "the nodes Slurm gave each job (NodeList) for simulate to compare with.\n"
	        "Steps (123.batch, 123.0), jobs without GPUs (AllocTRES, else ReqTRES\n"
	        "gres/gpu) and jobs that never ran are skipped and counted on stderr.\n"
	        "\n"
	        "  -o, --out FILE   write to FILE instead of standard output\n");
}

static int cmd_import_sacct(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *in = "-", *outp = NULL;
	gp__file_t file = { 0 };
	gp_sacct_stats_t st;
	gp_error_t err = { "" };
	FILE *f;
	int opt, rc;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		switch (opt) {
		case 'o': outp = optarg; break;
		case 'h': usage_sacct(stdout); return 0;
		default: return gp__cli_option_error(ME_SACCT, opt, argv[optind - 1], usage_sacct);
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, ME_SACCT ": give at most one SACCT_FILE\n");
		usage_sacct(stderr);
		return 2;
	}
	if (argc - optind == 1)
		in = argv[optind];
	if (gp__file_read(in, GP_TRACE_MAX_FILE, GP_FILE_STDIN, &file, &err)) {
		fprintf(stderr, ME_SACCT ": %s\n", err.text);
		return 1;
	}
	f = !outp || !strcmp(outp, "-") ? stdout : fopen(outp, "w");
	if (!f) {
		fprintf(stderr, ME_SACCT ": cannot write %s: %s\n", outp, strerror(errno));
		free(file.buf);
		return 1;
	}
	rc = gp__sacct_import(strcmp(in, "-") ? in : "standard input", file.buf, file.len, f, &st,
	                      &err);
	free(file.buf);
	if (f != stdout && fclose(f) && !rc)
		rc = gp__errorf(&err, GP_EIO, "%s: %s", outp, strerror(errno));
	if (rc) {
		fprintf(stderr, ME_SACCT ": %s\n", err.text);
		if (f != stdout)
			remove(outp);
		return rc == GP_EINVAL ? 2 : 1;
	}
	fprintf(stderr, ME_SACCT ": %d jobs from %d lines (skipped: %d steps, %d without GPUs, "
	        "%d that never ran)\n", (int)st.jobs, (int)st.lines, (int)st.steps, (int)st.no_gpus,
	        (int)st.not_run);
	return 0;
}

int gp_cmd_trace(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (is_help(argv[1])) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "show"))
		return cmd_show(argc - 1, argv + 1);
	if (!strcmp(argv[1], "check"))
		return cmd_check(argc - 1, argv + 1);
	if (!strcmp(argv[1], "synth"))
		return cmd_synth(argc - 1, argv + 1);
	if (!strcmp(argv[1], "import-sacct"))
		return cmd_import_sacct(argc - 1, argv + 1);
	fprintf(stderr, "gpuplace trace: unknown sub-command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
