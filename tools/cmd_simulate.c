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
#include "power.h"
#include "sim.h"
#include "trace.h"

#define ME "gpuplace simulate"

#define MAX_POLICIES 16
#define DEFAULT_POLICIES "first-fit,tree,balanced,pack,performance,power-save"
/* on a cluster with switches (topology/tree), stock Slurm with --switches
 * too; with topology/block blocks, Slurm's block plugin */
#define DEFAULT_POLICIES_TREE \
	"first-fit,tree,tree-switches,balanced,pack,performance,power-save"
#define DEFAULT_POLICIES_BLOCK "first-fit,tree,block,balanced,pack,performance,power-save"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: gpuplace simulate (--conf-dir DIR | --json FILE) --trace TRACE.csv\n"
	        "                         [--policies LIST] [--out-dir DIR] [--no-plots]\n"
	        "                         [--max-jobs N] [--state STATE.json] [--threads N]\n"
	        "                         [--bf-max-job-test N] [--bf-plans N]\n"
	        "                         [--comm-fraction F] [--samples N]\n"
	        "                         [--judge TABLE.csv] [--check]\n"
	        "\n"
	        "Replay TRACE.csv (gpuplace trace; columns submit_time_s,duration_s,gpus[,nodes]\n"
	        "[,time_limit_s]) on the cluster with FIFO + backfill (EASY, or --bf-plans jobs\n"
	        "planned) under each policy and compare.  Slurm and gpuplace see each job's\n"
	        "time limit (the trace's, else one drawn from published user-estimate\n"
	        "accuracy, gpuplace(1)), never its run time.\n"
	        "\n"
	        "  --policies LIST       comma-separated: first-fit, tree, tree-switches[@T]\n"
	        "                        (stock Slurm, every multi-node job with\n"
	        "                        --switches=N@T, T default 300 s), block and\n"
	        "                        block-segment (clusters with topology/block\n"
	        "                        blocks; --segment on jobs over a block),\n"
	        "                        balanced, pack, performance, power-save (as the\n"
	        "                        plugin decides), site (slurm.conf's policy),\n"
	        "                        NAME-ideal (re-decided at every pass: an upper\n"
	        "                        bound); all but NAME-ideal also as NAME-budget\n"
	        "                        (Slurm 25.11+ with the racks' power as a\n"
	        "                        hierarchical resource: no start over a rack's\n"
	        "                        limit), which the presets and site are without\n"
	        "                        the suffix where gpuplace.conf sets PowerHres\n"
	        "                        (default " DEFAULT_POLICIES ",\n"
	        "                        with tree-switches after tree where the cluster has\n"
	        "                        switches, block after tree where it has blocks)\n"
	        "  --out-dir DIR         where CSV, JSON and plots go (default gpuplace-sim)\n"
	        "  --no-plots            do not run gnuplot\n"
	        "  --max-jobs N          only the first N jobs of the trace\n"
	        "  --state STATE.json    initial node flags (down/drained nodes stay unused)\n"
	        "  --threads N           policies simulated at once (default: CPUs online)\n"
	        "  --bf-max-job-test N   jobs tried per backfill pass (default 500, Slurm's)\n"
	        "  --bf-plans N          queued jobs each backfill pass plans a start for, which\n"
	        "                        the jobs behind may not delay (default 1: EASY\n"
	        "                        backfill; Slurm's backfill plans every job it tests;\n"
	        "                        at most 256, each plan costs a search)\n"
	        "  --comm-fraction F     exposed communication share of a job's step on its\n"
	        "                        ideal placement when the trace gives none (default:\n"
	        "                        0.05 to 0.40 by job, see gpuplace(1) SIMULATE)\n"
	        "  --samples N           time-series points in the plots (default 500)\n"
	        "  --judge TABLE.csv     judge every policy's run times by this table of\n"
	        "                        slowdowns per spread (gpuplace(1), SIMULATE) instead\n"
	        "                        of the engine's cost model\n"
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
	int done;               /* runs finished (progress line) */
	bool progress;          /* stderr is a terminal: keep a progress line */
	double t0;
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
		if (p->progress) {
			pthread_mutex_lock(&p->lock);
			fprintf(stderr, "\r" ME ": %d of %d policies done, running %s (%.0f s)\033[K",
			        p->done, p->nruns, r->policy.name, now_s() - p->t0);
			pthread_mutex_unlock(&p->lock);
		}
		r->rc = gp__sim_run(r->c, r->s, r->t, &r->policy, r->o, &r->res, &r->err);
		r->wall_s = now_s() - t0;
		pthread_mutex_lock(&p->lock);
		p->done++;
		if (p->progress)
			fprintf(stderr, "\r" ME ": %d of %d policies done (%.0f s)\033[K", p->done,
			        p->nruns, now_s() - p->t0);
		pthread_mutex_unlock(&p->lock);
	}
}

/* What the command line asks for. */
struct args {
	const char *dir, *json, *trace, *state, *policies, *out, *judge;
	bool plots;
	long max_jobs, threads;
	gp_sim_opts_t o;
};

/* Options into *a: GP_CLI_RUN, or the exit status (0 --help, 2 usage). */
static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
		{ "conf-dir", required_argument, NULL, 'c' },
		{ "json", required_argument, NULL, 'j' },
		{ "trace", required_argument, NULL, 't' },
		{ "policies", required_argument, NULL, 'p' },
		{ "out-dir", required_argument, NULL, 'o' },
		{ "no-plots", no_argument, NULL, 'N' },
		{ "max-jobs", required_argument, NULL, 'm' },
		{ "state", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 'T' },
		{ "bf-max-job-test", required_argument, NULL, 'b' },
		{ "bf-plans", required_argument, NULL, 'B' },
		{ "comm-fraction", required_argument, NULL, 'f' },
		{ "samples", required_argument, NULL, 'S' },
		{ "check", no_argument, NULL, 'k' },
		{ "judge", required_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long l;
	int opt;

	memset(a, 0, sizeof(*a));
	a->policies = NULL; /* the default depends on the cluster */
	a->out = "gpuplace-sim";
	a->plots = true;
	gp__sim_opts_defaults(&a->o);
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': a->dir = optarg; break;
		case 'j': a->json = optarg; break;
		case 't': a->trace = optarg; break;
		case 'p': a->policies = optarg; break;
		case 'o': a->out = optarg; break;
		case 'N': a->plots = false; break;
		case 's': a->state = optarg; break;
		case 'k': a->o.check = true; break;
		case 'J': a->judge = optarg; break;
		case 'm':
			if (gp__cli_long(ME, "--max-jobs", optarg, 1, INT32_MAX, &a->max_jobs))
				return 2;
			break;
		case 'T':
			if (gp__cli_long(ME, "--threads", optarg, 1, MAX_POLICIES, &a->threads))
				return 2;
			break;
		case 'b':
			if (gp__cli_long(ME, "--bf-max-job-test", optarg, 1, 1000000, &l))
				return 2;
			a->o.bf_max_job_test = (int32_t)l;
			break;
		case 'B':
			if (gp__cli_long(ME, "--bf-plans", optarg, 1, GP_SIM_MAX_BF_RESV, &l))
				return 2;
			a->o.bf_resv = (int32_t)l;
			break;
		case 'S':
			if (gp__cli_long(ME, "--samples", optarg, 2, 1000000, &l))
				return 2;
			a->o.samples = (int32_t)l;
			break;
		case 'f':
			if (gp__cli_double(ME, "--comm-fraction", optarg, 0.001, 0.999,
			                   &a->o.comm_fraction))
				return 2;
			break;
		case 'h': usage(stdout); return 0;
		default: return gp__cli_option_error(ME, opt, argv[optind - 1], usage);
		}
	}
	if (optind < argc || !a->dir == !a->json || !a->trace) {
		fprintf(stderr, ME ": give --trace and exactly one of --conf-dir or --json\n");
		usage(stderr);
		return 2;
	}
	return GP_CLI_RUN;
}

/* One run per distinct policy of the comma-separated list (at most
 * MAX_POLICIES).  0, or 2 with the message printed. */
static int add_policies(const char *policies, const gp_cluster_t *c, struct run *runs,
                        int *nruns)
{
	char *list = strdup(policies), *tok, *save = NULL;
	gp_error_t err = { "" };
	int i, status = 0;

	if (!list) {
		fprintf(stderr, ME ": out of memory\n");
		return 1;
	}
	for (tok = strtok_r(list, ",", &save); tok && !status; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < *nruns; i++)
			if (!strcmp(runs[i].policy.name, tok))
				break;
		if (i < *nruns)
			continue; /* named twice */
		if (*nruns == MAX_POLICIES) {
			fprintf(stderr, ME ": --policies: at most %d\n", MAX_POLICIES);
			status = 2;
		} else if (gp__sim_policy_parse(tok, c, &runs[*nruns].policy, &err)) {
			fprintf(stderr, ME ": --policies: %s\n", err.text);
			status = 2;
		} else {
			(*nruns)++;
		}
	}
	free(list);
	if (!status && *nruns == 0) {
		fprintf(stderr, ME ": --policies: no policy given\n");
		status = 2;
	}
	return status;
}

/* Every run, nthreads at once (0 = one per CPU online), each thread taking
 * the next policy; timings on stderr.  0, or 1 when a run failed. */
static int run_all(struct run *runs, int nruns, long threads, const gp_trace_t *t)
{
	pthread_t tids[MAX_POLICIES];
	/* a progress line only where someone watches it (a terminal), never
	 * in a log or a pipe */
	struct pool pool = { runs, nruns, 0, 0, isatty(STDERR_FILENO) == 1, now_s(),
	                     PTHREAD_MUTEX_INITIALIZER };
	int nthreads = threads > 0 ? (int)threads : (int)sysconf(_SC_NPROCESSORS_ONLN), i;
	double t0 = now_s();

	if (nthreads < 1)
		nthreads = 1;
	if (nthreads > nruns)
		nthreads = nruns;
	for (i = 1; i < nthreads; i++)
		if (pthread_create(&tids[i], NULL, worker, &pool)) {
			nthreads = i;
			break;
		}
	worker(&pool);
	for (i = 1; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	pthread_mutex_destroy(&pool.lock);
	if (pool.progress)
		fputs("\r\033[K", stderr);
	for (i = 0; i < nruns; i++) {
		if (runs[i].rc) {
			fprintf(stderr, ME ": policy %s: %s\n", runs[i].policy.name, runs[i].err.text);
			return 1;
		}
		fprintf(stderr, ME ": %-12s %.2f s (%.0f jobs/min)\n", runs[i].policy.name,
		        runs[i].wall_s, runs[i].wall_s > 0 ? t->njobs * 60.0 / runs[i].wall_s : 0.0);
	}
	fprintf(stderr, ME ": all policies in %.2f s\n", now_s() - t0);
	return 0;
}

/* The table on stdout, the files and (unless --no-plots) the plots. */
static int report(const struct args *a, const gp_cluster_t *c, const gp_trace_t *t,
                  const struct run *runs, int nruns)
{
	const gp_sim_result_t *res[MAX_POLICIES];
	gp_error_t err = { "" };
	int i;

	for (i = 0; i < nruns; i++)
		res[i] = runs[i].res;
	printf("judge: %s\n", a->judge ? a->judge : "the engine's cost model (default; --judge "
	       "FILE for an independent one)");
	/* how busy the trace keeps the cluster, and where the racks' power
	 * binds whatever the placement (gpuplace power show) */
	printf("load: the trace offers %.2f of the cluster's %lld GPUs (GPU-seconds over GPUs "
	       "x submit span)", gp__trace_offered_load(t, gp_cluster_gpu_count(c)),
	       (long long)gp_cluster_gpu_count(c));
	if (c->nracks > 0) {
		int64_t pw, all;

		if (gp__power_idle_tdp_gpus(c, &pw, &all) == GP_OK && all > 0)
			printf("; with every rack idle the racks power %lld of their %lld GPUs at TDP "
			       "(%.2f)", (long long)pw, (long long)all, (double)pw / (double)all);
	}
	printf("\n");
	/* the plugin, as this run simulates it, keeps jobs to domains with
	 * features slurm.conf may not have yet (out of memory: said, and the
	 * results are still written) */
	(void)gp__cli_domain_features(ME, a->dir, a->json, c, " (this simulation keeps such a "
	                              "job to its domain, as the plugin does once the nodes have "
	                              "the features)", stdout);
	if (gp__sim_print_table(res, nruns, stdout)) {
		fprintf(stderr, ME ": cannot write the table\n");
		return 1;
	}
	if (gp__sim_print_vs_slurm(c, t, res, nruns, stdout, &err)) {
		fprintf(stderr, ME ": %s\n", err.text);
		return 1;
	}
	if (gp__sim_write_files(c, t, res, nruns, a->out, &err)) {
		fprintf(stderr, ME ": %s\n", err.text);
		return 1;
	}
	printf("\nfiles: %s/summary.csv summary.json jobs.csv timeseries.csv racks.csv\n", a->out);
	if (a->plots) {
		if (gp__sim_plot(res, nruns, a->out, &err)) {
			fprintf(stderr, ME ": %s\n", err.text);
			return 1;
		}
		printf("plots: %s/jct_cdf.png utilization.png rack_power.png (and .svg)\n", a->out);
	}
	return 0;
}

int gp_cmd_simulate(int argc, char **argv)
{
	struct args a;
	struct run runs[MAX_POLICIES];
	gp_cluster_t *c = NULL;
	gp_state_t *s = NULL;
	gp_trace_t *t = NULL;
	gp_sim_judge_t *judge = NULL;
	gp_error_t err = { "" };
	int nruns = 0, status, i;

	if ((status = parse_args(argc, argv, &a)) != GP_CLI_RUN)
		return status;
	memset(runs, 0, sizeof(runs));
	if (gp__model_load(a.dir, a.json, a.state, &c, &s, &err) ||
	    gp__trace_load(a.trace, &t, &err)) {
		fprintf(stderr, ME ": %s\n", err.text);
		status = 1;
		goto done;
	}
	if (a.max_jobs > 0)
		gp__trace_truncate(t, (int32_t)a.max_jobs);
	if (a.judge && gp__sim_judge_load(a.judge, &judge, &err)) {
		fprintf(stderr, ME ": --judge: %s\n", err.text);
		status = 2;
		goto done;
	}
	a.o.judge = judge;
	if (!a.policies)
		a.policies = gp__sim_blocks(c) ? DEFAULT_POLICIES_BLOCK :
		             c->root >= 0 ? DEFAULT_POLICIES_TREE : DEFAULT_POLICIES;
	if ((status = add_policies(a.policies, c, runs, &nruns)))
		goto done;
	for (i = 0; i < nruns; i++) {
		runs[i].c = c;
		runs[i].s = s;
		runs[i].t = t;
		runs[i].o = &a.o;
	}
	fprintf(stderr, ME ": %d jobs of %s on %s (%d nodes, %ld GPUs), %d policies\n", t->njobs,
	        t->name, c->name, gp_cluster_node_count(c), gp_cluster_gpu_count(c), nruns);
	status = run_all(runs, nruns, a.threads, t) || report(&a, c, t, runs, nruns) ? 1 : 0;
done:
	for (i = 0; i < nruns; i++)
		gp__sim_result_destroy(runs[i].res);
	gp__sim_judge_destroy(judge);
	gp__trace_destroy(t);
	gp_state_destroy(s);
	gp_cluster_destroy(c);
	return status;
}
