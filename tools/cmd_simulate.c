/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_simulate.c - gpuplace simulate: replay a job trace on a cluster model
 * under several policies, print the comparison and write files and plots.
 */
#include "config.h"

#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "gpuplace.h"
#include "model.h"
#include "sim.h"
#include "trace.h"

#define ME "gpuplace simulate"

#define MAX_POLICIES 16
#define DEFAULT_POLICIES "first-fit,tree,balanced,pack,performance,power-save"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: gpuplace simulate (--conf-dir DIR | --json FILE) --trace TRACE.csv\n"
	        "                         [--policies LIST] [--out DIR] [--no-plots]\n"
	        "                         [--max-jobs N] [--state STATE.json] [--threads N]\n"
	        "                         [--bf-max-job-test N] [--comm-fraction F]\n"
	        "                         [--samples N] [--check]\n"
	        "\n"
	        "Replay TRACE.csv (gpuplace trace; columns submit_time_s,duration_s,gpus[,nodes])\n"
	        "on the cluster with FIFO + EASY backfill under each policy and compare.\n"
	        "\n"
	        "  --policies LIST       comma-separated: first-fit, tree, balanced, pack,\n"
	        "                        performance, power-save, site (slurm.conf's policy)\n"
	        "                        (default " DEFAULT_POLICIES ")\n"
	        "  --out DIR             where CSV, JSON and plots go (default gpuplace-sim)\n"
	        "  --no-plots            do not run gnuplot\n"
	        "  --max-jobs N          only the first N jobs of the trace\n"
	        "  --state STATE.json    initial node flags (down/drained nodes stay unused)\n"
	        "  --threads N           policies simulated at once (default: CPUs online)\n"
	        "  --bf-max-job-test N   jobs tried per backfill pass (default 500, Slurm's)\n"
	        "  --comm-fraction F     exposed communication share of a job's step on its\n"
	        "                        ideal placement (default 0.2)\n"
	        "  --samples N           time-series points in the plots (default 500)\n"
	        "  --check               verify conservation after every event (slow)\n");
}

struct run {
	const gp_cluster_t *c;
	const gp_state_t *s;
	const gp_trace_t *t;
	gp_sim_policy_t policy;
	const gp_sim_opts_t *o;
	gp_sim_result_t *res;
	gp_error_t err;
	int rc;
	double wall_s;
};

struct pool {
	struct run *runs;
	int nruns;
	int next;
	pthread_mutex_t lock;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
	struct pool *p = arg;

	for (;;) {
		struct run *r;
		double t0;
		int i;

		pthread_mutex_lock(&p->lock);
		i = p->next < p->nruns ? p->next++ : -1;
		pthread_mutex_unlock(&p->lock);
		if (i < 0)
			return NULL;
		r = &p->runs[i];
		t0 = now_s();
		r->rc = gp__sim_run(r->c, r->s, r->t, &r->policy, r->o, &r->res, &r->err);
		r->wall_s = now_s() - t0;
	}
}

int gp_cmd_simulate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "conf-dir", required_argument, NULL, 'c' },
		{ "json", required_argument, NULL, 'j' },
		{ "trace", required_argument, NULL, 't' },
		{ "policies", required_argument, NULL, 'p' },
		{ "out", required_argument, NULL, 'o' },
		{ "no-plots", no_argument, NULL, 'N' },
		{ "max-jobs", required_argument, NULL, 'm' },
		{ "state", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 'T' },
		{ "bf-max-job-test", required_argument, NULL, 'b' },
		{ "comm-fraction", required_argument, NULL, 'f' },
		{ "samples", required_argument, NULL, 'S' },
		{ "check", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *json = NULL, *trace = NULL, *state = NULL;
	const char *policies = DEFAULT_POLICIES, *out = "gpuplace-sim";
	bool plots = true;
	long max_jobs = 0, threads = 0, l;
	double d;
	gp_sim_opts_t o;
	gp_cluster_t *c = NULL;
	gp_state_t *s = NULL;
	gp_trace_t *t = NULL;
	gp_error_t err = { "" };
	struct run runs[MAX_POLICIES];
	const gp_sim_result_t *res[MAX_POLICIES];
	struct pool pool;
	pthread_t tids[MAX_POLICIES];
	int nruns = 0, opt, rc, status = 1, i, nthreads;
	char *list = NULL, *tok, *save = NULL;
	double t0;

	memset(runs, 0, sizeof(runs));
	gp__sim_opts_defaults(&o);
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': dir = optarg; break;
		case 'j': json = optarg; break;
		case 't': trace = optarg; break;
		case 'p': policies = optarg; break;
		case 'o': out = optarg; break;
		case 'N': plots = false; break;
		case 's': state = optarg; break;
		case 'k': o.check = true; break;
		case 'm':
			if (gp__cli_long(ME, "--max-jobs", optarg, 1, INT32_MAX, &max_jobs))
				return 2;
			break;
		case 'T':
			if (gp__cli_long(ME, "--threads", optarg, 1, MAX_POLICIES, &threads))
				return 2;
			break;
		case 'b':
			if (gp__cli_long(ME, "--bf-max-job-test", optarg, 1, 1000000, &l))
				return 2;
			o.bf_max_job_test = (int32_t)l;
			break;
		case 'S':
			if (gp__cli_long(ME, "--samples", optarg, 2, 1000000, &l))
				return 2;
			o.samples = (int32_t)l;
			break;
		case 'f':
			if (gp__parse_double(optarg, 0.001, 0.999, &d)) {
				fprintf(stderr, "gpuplace simulate: --comm-fraction '%s': expected a number "
				        "in [0.001, 0.999]\n", optarg);
				return 2;
			}
			o.comm_fraction = d;
			break;
		case 'h': usage(stdout); return 0;
		default:
			fprintf(stderr, "gpuplace simulate: unknown or incomplete option '%s'\n",
			        argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || !dir == !json || !trace) {
		fprintf(stderr, "gpuplace simulate: give --trace and exactly one of --conf-dir or --json\n");
		usage(stderr);
		return 2;
	}
	rc = gp__model_load(dir, json, state, &c, &s, &err);
	if (rc == GP_OK)
		rc = gp__trace_load(trace, &t, &err);
	if (rc != GP_OK) {
		fprintf(stderr, "gpuplace simulate: %s\n", err.text);
		goto done;
	}
	if (max_jobs > 0)
		gp__trace_truncate(t, (int32_t)max_jobs);

	/* the policies */
	if (!(list = strdup(policies))) {
		fprintf(stderr, "gpuplace simulate: out of memory\n");
		goto done;
	}
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (nruns == MAX_POLICIES) {
			fprintf(stderr, "gpuplace simulate: --policies: at most %d\n", MAX_POLICIES);
			status = 2;
			goto done;
		}
		for (i = 0; i < nruns; i++)
			if (!strcmp(runs[i].policy.name, tok))
				break;
		if (i < nruns)
			continue; /* named twice */
		if ((rc = gp__sim_policy_parse(tok, c, &runs[nruns].policy, &err))) {
			fprintf(stderr, "gpuplace simulate: --policies: %s\n", err.text);
			status = 2;
			goto done;
		}
		runs[nruns].c = c;
		runs[nruns].s = s;
		runs[nruns].t = t;
		runs[nruns].o = &o;
		nruns++;
	}
	if (nruns == 0) {
		fprintf(stderr, "gpuplace simulate: --policies: no policy given\n");
		status = 2;
		goto done;
	}

	/* one thread per CPU, each taking the next policy */
	nthreads = threads > 0 ? (int)threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (nthreads < 1)
		nthreads = 1;
	if (nthreads > nruns)
		nthreads = nruns;
	pool.runs = runs;
	pool.nruns = nruns;
	pool.next = 0;
	pthread_mutex_init(&pool.lock, NULL);
	fprintf(stderr, "gpuplace simulate: %d jobs of %s on %s (%d nodes, %ld GPUs), %d policies\n",
	        t->njobs, t->name, c->name, gp_cluster_node_count(c), gp_cluster_gpu_count(c), nruns);
	t0 = now_s();
	for (i = 1; i < nthreads; i++)
		if (pthread_create(&tids[i], NULL, worker, &pool)) {
			nthreads = i;
			break;
		}
	worker(&pool);
	for (i = 1; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	pthread_mutex_destroy(&pool.lock);
	for (i = 0; i < nruns; i++) {
		if (runs[i].rc) {
			fprintf(stderr, "gpuplace simulate: policy %s: %s\n", runs[i].policy.name,
			        runs[i].err.text);
			goto done;
		}
		res[i] = runs[i].res;
		fprintf(stderr, "gpuplace simulate: %-12s %.2f s (%.0f jobs/min)\n", runs[i].policy.name,
		        runs[i].wall_s, runs[i].wall_s > 0 ? t->njobs * 60.0 / runs[i].wall_s : 0.0);
	}
	fprintf(stderr, "gpuplace simulate: all policies in %.2f s\n", now_s() - t0);

	if (gp__sim_print_table(res, nruns, stdout)) {
		fprintf(stderr, "gpuplace simulate: cannot write the table\n");
		goto done;
	}
	if ((rc = gp__sim_write_files(c, t, res, nruns, out, &err))) {
		fprintf(stderr, "gpuplace simulate: %s\n", err.text);
		goto done;
	}
	printf("\nfiles: %s/summary.csv summary.json jobs.csv timeseries.csv racks.csv\n", out);
	if (plots) {
		if ((rc = gp__sim_plot(res, nruns, out, &err))) {
			fprintf(stderr, "gpuplace simulate: %s\n", err.text);
			goto done;
		}
		printf("plots: %s/jct_cdf.png utilization.png rack_power.png (and .svg)\n", out);
	}
	status = 0;
done:
	for (i = 0; i < nruns; i++)
		gp__sim_result_destroy(runs[i].res);
	free(list);
	gp__trace_destroy(t);
	gp_state_destroy(s);
	gp_cluster_destroy(c);
	return status;
}
