/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_decide.c - latency of one whole placement decision under the
 * policy that ships, as job_submit/gpuplace makes it per submission: the
 * candidate search with every candidate scored by the cost model and the
 * racks' power headroom, wait-or-spread over the running jobs' end times,
 * the choice and the checkpoint plan.
 *
 * Clusters: `gpuplace synth` SuperPOD-style clusters of 1,024 to 65,536
 * nodes x 8 H100 (SUs of 32 nodes, racks of 4 whose cap is their nodes'
 * peak draw, so with the default PowerMargin of 0.05 no rack powers four
 * busy nodes: racks near their limits).  State: 70 % GPU occupancy with
 * GPU-level fragmentation (bench_util.c: fully busy, partly busy and idle
 * nodes), every busy node a running job (load 1) ending within two hours,
 * so the wait path has end times to search.  Jobs: 8 to 4,096 GPUs with a
 * hint profile of TP 8 inside nodes and data parallelism across
 * (params = 1e8 per GPU, step 1 s).  Policy: the site default
 * (gp__policy_default: balanced, max_wait 1800 s, PowerMargin 0.05).
 *
 * Side by side in the same run, on the same states and jobs: the path the
 * old benchmark timed (max_wait 0 and power margin 0: one search, no wait,
 * no rack near its limit); the ratio default/old is printed per row.
 * Times are thread CPU time per decision (what a decision costs on one
 * core; the machine is shared and wall-clock times include other
 * processes' slices), p50 and p99 of REPS decisions over NSTATES states,
 * after one untimed decision per path and row (the engine sizes its scratch
 * space for the job once, as the plugin's engine does for the largest job
 * it has seen).  Beside them the median predicted slowdown of the default
 * path's chosen set, so that a faster decision is seen not to pick a worse
 * set.  Per job size, the growth exponent b of p50 ~ nodes^b is fitted by least
 * squares over the cluster sizes.  Last, the racks' power view: a refill
 * per snapshot (gp__power_view_fill) against the incremental update of one
 * job start (gp__power_view_apply), side by side.
 *
 * Targets (issue 19): p99 <= 1 ms at 16,384 nodes for every job up to
 * 1,024 GPUs, <= 4 ms at 65,536 nodes; PASS/FAIL lines at the end.
 *
 * Usage: bench_decide [reps] [max nodes] [only this job size] [only this cluster size]
 *        (default 100, 65536, every size, every cluster size up to max nodes;
 *        the last two narrow a run to one cell, as for a profiler)
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "decide.h"
#include "synth.h"

#define NSTATES 4
#define OCC 0.7
#define NSIZES 5
#define NJOBS 6

static const int sizes[NSIZES] = { 1024, 4096, 16384, 32768, 65536 };
static const int jobs[NJOBS] = { 8, 64, 256, 512, 1024, 4096 };

/* Every busy node's GPUs as one running job ending within two hours. */
static int add_jobs(const gp_cluster_t *c, gp_state_t *s)
{
	int32_t i, n = 0;

	for (i = 0; i < c->nnodes; i++)
		n += s->alloc_mask[i] != 0;
	s->jobs = calloc((size_t)n + 1, sizeof(*s->jobs));
	if (!s->jobs)
		return -1;
	for (i = 0; i < c->nnodes; i++) {
		gp_job_alloc_t *j;

		if (!s->alloc_mask[i])
			continue;
		j = &s->jobs[s->njobs++];
		j->job_id = (uint32_t)s->njobs;
		j->end_time = 60 + (int64_t)(gp_bench_urand() * 7140);
		j->load = 1.0;
		j->nnodes = 1;
		j->nodes = malloc(sizeof(*j->nodes));
		j->gpu_mask = malloc(sizeof(*j->gpu_mask));
		if (!j->nodes || !j->gpu_mask)
			return -1;
		j->nodes[0] = i;
		j->gpu_mask[0] = s->alloc_mask[i];
	}
	return 0;
}

struct cell {
	double p50, p99, old_p50, old_p99;
	double slowdown; /* median predicted slowdown of the default path's set */
	int kinds[3];
	bool done;
};

static int time_cell(gp_engine_t *e, gp_state_t **st, gp_rack_view_t **racks,
                     gp_rack_view_t **racks0, const gp_policy_t *pol, const gp_policy_t *old,
                     int gpus, int reps, double *t, double *t2, double *sd, struct cell *out)
{
	gp_job_profile_t job;
	gp_request_t r;
	gp_error_t err;
	char spec[96];
	int i, rc;

	snprintf(spec, sizeof(spec), "gpus=%d,tp=8,params=%g,step_s=1", gpus, gpus * 1e8);
	if (gp__job_profile_parse(spec, &job, &err)) {
		fprintf(stderr, "bench_decide: %s\n", err.text);
		return -1;
	}
	gp__request_init(&r);
	r.gpus = gpus;
	memset(out->kinds, 0, sizeof(out->kinds));
	/* one untimed decision per path first: the engine sizes its scratch
	 * space for the largest job it has seen (fresh pages, faulted in on
	 * first use), once per engine as in slurmctld, where it lives as long
	 * as the daemon; timed, that first decision of a row was its slowest
	 * by far and, with 50 decisions a row, set the p99 */
	for (i = 0; i < 2; i++) {
		gp_power_view_t pv = { i ? racks0[0] : racks[0], gp__power_view_cap_speed, false };
		gp_decision_t d;

		rc = gp__decide(e, st[0], &r, &job, i ? old : pol, &pv, 0, NULL, 0, &d, &err);
		gp__decision_clear(&d);
		if (rc != GP_OK) {
			fprintf(stderr, "bench_decide: %s\n", err.text);
			return -1;
		}
	}
	/* alternate the two paths so drifts of a shared machine hit both */
	for (i = 0; i < reps; i++) {
		const gp_state_t *s = st[i % NSTATES];
		gp_power_view_t pv = { racks[i % NSTATES], gp__power_view_cap_speed, false };
		gp_power_view_t pv0 = { racks0[i % NSTATES], gp__power_view_cap_speed, false };
		gp_decision_t d;
		double t0 = gp_bench_now_us(CLOCK_THREAD_CPUTIME_ID);

		rc = gp__decide(e, s, &r, &job, pol, &pv, 0, NULL, 0, &d, &err);
		t[i] = gp_bench_now_us(CLOCK_THREAD_CPUTIME_ID) - t0;
		if (rc != GP_OK) {
			fprintf(stderr, "bench_decide: %s\n", err.text);
			return -1;
		}
		out->kinds[d.kind]++;
		sd[i] = d.ncands > 0 ? d.cands[0].cost.slowdown : NAN;
		gp__decision_clear(&d);
		t0 = gp_bench_now_us(CLOCK_THREAD_CPUTIME_ID);
		rc = gp__decide(e, s, &r, &job, old, &pv0, 0, NULL, 0, &d, &err);
		t2[i] = gp_bench_now_us(CLOCK_THREAD_CPUTIME_ID) - t0;
		if (rc != GP_OK) {
			fprintf(stderr, "bench_decide: %s\n", err.text);
			return -1;
		}
		gp__decision_clear(&d);
	}
	{
		int n = 0;

		for (i = 0; i < reps; i++)
			if (!isnan(sd[i]))
				sd[n++] = sd[i];
		out->slowdown = n ? gp_bench_quantile(sd, n, 0.5) : NAN;
	}
	out->p50 = gp_bench_quantile(t, reps, 0.5);
	out->p99 = gp_bench_quantile(t, reps, 0.99);
	out->old_p50 = gp_bench_quantile(t2, reps, 0.5);
	out->old_p99 = gp_bench_quantile(t2, reps, 0.99);
	out->done = true;
	gp__request_clear(&r);
	return 0;
}

int main(int argc, char **argv)
{
	static struct cell cells[NSIZES][NJOBS];
	int reps = 100, maxn = 65536, only = 0, only_n = 0, si, ji, i, rc, fails = 0;
	double *t, *t2, *sd, pv_fill[NSIZES], pv_apply[NSIZES];
	long v;

	if (argc > 1) {
		if (gp__parse_long(argv[1], 10, 1000000, &v)) {
			fprintf(stderr, "usage: %s [reps >= 10] [max nodes]\n", argv[0]);
			return 2;
		}
		reps = (int)v;
	}
	if (argc > 3) {
		if (gp__parse_long(argv[3], 1, 4096, &v)) {
			fprintf(stderr, "usage: %s [reps] [max nodes] [only this job size]\n", argv[0]);
			return 2;
		}
		only = (int)v;
	}
	if (argc > 4) {
		if (gp__parse_long(argv[4], 1024, 65536, &v)) {
			fprintf(stderr, "usage: %s [reps] [max nodes] [only this job size] [only this "
			        "cluster size]\n", argv[0]);
			return 2;
		}
		only_n = (int)v;
	}
	if (argc > 2) {
		if (gp__parse_long(argv[2], 1024, 65536, &v)) {
			fprintf(stderr, "usage: %s [reps >= 10] [max nodes 1024..65536]\n", argv[0]);
			return 2;
		}
		maxn = (int)v;
	}
	t = malloc((size_t)reps * sizeof(*t));
	t2 = malloc((size_t)reps * sizeof(*t2));
	sd = malloc((size_t)reps * sizeof(*sd));
	if (!t || !t2 || !sd)
		return 1;
	memset(pv_fill, 0, sizeof(pv_fill));
	memset(pv_apply, 0, sizeof(pv_apply));
	printf("# whole decisions under the default site policy (balanced, max_wait 1800 s,\n"
	       "# PowerMargin 0.05: racks near their limits), %.0f %% GPU occupancy with GPU-level\n"
	       "# fragmentation, every busy node a running job; jobs TP 8 + DP.  Beside each: the\n"
	       "# old benchmark's path (max_wait 0, power margin 0) on the same states and jobs.\n"
	       "# Thread CPU time in microseconds (the machine is shared: CPU time, not wall\n"
	       "# clock), %d decisions per row over %d states, after one untimed decision per\n"
	       "# path that sizes the engine's scratch space for the job (once per engine, as\n"
	       "# in slurmctld).  slowdown: the median predicted slowdown (step time over the\n"
	       "# ideal) of the default path's chosen set.\n",
	       OCC * 100, reps, NSTATES);
	printf("%-6s %-5s %-20s %9s %9s %9s %9s %9s %9s\n", "nodes", "gpus", "decisions (default)",
	       "p50_us", "p99_us", "old_p50", "old_p99", "p99/old", "slowdown");
	for (si = 0; si < NSIZES && sizes[si] <= maxn; si++) {
		gp_synth_params_t sp;
		gp_cluster_t *c = NULL;
		gp_state_t *st[NSTATES] = { NULL };
		gp_engine_t *e = NULL;
		gp_rack_view_t *racks[NSTATES], *racks0[NSTATES];
		gp_policy_t pol, old;
		gp_error_t err;
		double t0;
		int32_t probe[8];
		uint32_t pmask[8];

		if (only_n > 0 && sizes[si] != only_n)
			continue;
		gp__synth_defaults(&sp);
		sp.nodes = sizes[si];
		if ((rc = gp__synth_build(&sp, &c, &err)) != GP_OK ||
		    (rc = gp__engine_create(c, &e, &err)) != GP_OK) {
			fprintf(stderr, "bench_decide: %s\n", err.text);
			return 1;
		}
		gp__policy_default(c, &pol);
		old = pol;
		old.max_wait_s = 0;
		old.power_margin = 0;
		for (i = 0; i < NSTATES; i++) {
			if (!(racks[i] = calloc((size_t)c->nracks + 1, sizeof(*racks[i]))) ||
			    !(racks0[i] = calloc((size_t)c->nracks + 1, sizeof(*racks0[i]))) ||
			    gp_state_create(c, &st[i]) != GP_OK)
				return 1;
			gp_bench_occupy(c, st[i], OCC);
			if (add_jobs(c, st[i]))
				return 1;
		}
		/* the power view: a refill per snapshot against the update of
		 * one job start, timed side by side */
		t0 = gp_bench_now_us(CLOCK_THREAD_CPUTIME_ID);
		for (i = 0; i < NSTATES; i++) {
			gp__power_view_fill(c, st[i], NULL, &pol, 0, racks[i]);
			gp__power_view_fill(c, st[i], NULL, &old, 0, racks0[i]);
		}
		pv_fill[si] = (gp_bench_now_us(CLOCK_THREAD_CPUTIME_ID) - t0) / (2 * NSTATES);
		for (i = 0; i < 8; i++) {
			probe[i] = (int32_t)(gp_bench_urand() * c->nnodes);
			pmask[i] = 0x1;
		}
		t0 = gp_bench_now_us(CLOCK_THREAD_CPUTIME_ID);
		for (i = 0; i < 1000; i++) {
			/* start and end: the view is unchanged afterwards */
			gp__power_view_apply(c, racks[i % NSTATES], probe, pmask, 8, 1.0, +1);
			gp__power_view_apply(c, racks[i % NSTATES], probe, pmask, 8, 1.0, -1);
		}
		pv_apply[si] = (gp_bench_now_us(CLOCK_THREAD_CPUTIME_ID) - t0) / 2000;
		for (ji = 0; ji < NJOBS; ji++) {
			struct cell *ce = &cells[si][ji];
			char res[32];

			if (only > 0 && jobs[ji] != only)
				continue;

			if (time_cell(e, st, racks, racks0, &pol, &old, jobs[ji], reps, t, t2, sd, ce))
				return 1;
			snprintf(res, sizeof(res), "%d pin %d con %d rej", ce->kinds[0], ce->kinds[1],
			         ce->kinds[2]);
			printf("%-6d %-5d %-20s %9.1f %9.1f %9.1f %9.1f %9.2f %9.3f\n", sizes[si], jobs[ji],
			       res, ce->p50, ce->p99, ce->old_p50, ce->old_p99,
			       ce->old_p99 > 0 ? ce->p99 / ce->old_p99 : 0, ce->slowdown);
			fflush(stdout);
		}
		for (i = 0; i < NSTATES; i++) {
			gp_state_destroy(st[i]);
			free(racks[i]);
			free(racks0[i]);
		}
		gp__engine_destroy(e);
		gp_cluster_destroy(c);
	}
	printf("# growth of p50 with the cluster size, p50 ~ nodes^b (least squares over the "
	       "sizes run)\n");
	printf("%-5s %7s %7s\n", "gpus", "b", "b_old");
	for (ji = 0; ji < NJOBS; ji++) {
		double sx = 0, sy = 0, sxx = 0, sxy = 0, sy2 = 0, sxy2 = 0;
		int n = 0;

		for (si = 0; si < NSIZES; si++) {
			double x, y, y2;

			if (!cells[si][ji].done || !(cells[si][ji].p50 > 0) || !(cells[si][ji].old_p50 > 0))
				continue;
			x = log((double)sizes[si]);
			y = log(cells[si][ji].p50);
			y2 = log(cells[si][ji].old_p50);
			sx += x;
			sy += y;
			sy2 += y2;
			sxx += x * x;
			sxy += x * y;
			sxy2 += x * y2;
			n++;
		}
		if (n >= 2 && n * sxx - sx * sx > 0)
			printf("%-5d %7.3f %7.3f\n", jobs[ji], (n * sxy - sx * sy) / (n * sxx - sx * sx),
			       (n * sxy2 - sx * sy2) / (n * sxx - sx * sx));
	}
	printf("# racks' power view per snapshot: refill vs incremental update of one job "
	       "(8 nodes)\n");
	printf("%-6s %12s %12s %9s\n", "nodes", "refill_us", "apply_us", "ratio");
	for (si = 0; si < NSIZES && sizes[si] <= maxn; si++)
		if (!only_n || sizes[si] == only_n)
			printf("%-6d %12.1f %12.3f %9.0f\n", sizes[si], pv_fill[si], pv_apply[si],
			       pv_apply[si] > 0 ? pv_fill[si] / pv_apply[si] : 0);
	for (si = 0; si < NSIZES && sizes[si] <= maxn; si++) {
		double limit = sizes[si] == 16384 ? 1000.0 : sizes[si] == 65536 ? 4000.0 : 0;
		double worst = 0;

		if (limit == 0 || (only_n && sizes[si] != only_n))
			continue;
		for (ji = 0; ji < NJOBS; ji++)
			if (jobs[ji] <= 1024 && cells[si][ji].p99 > worst)
				worst = cells[si][ji].p99;
		printf("# worst p99 at %d nodes, jobs up to 1,024 GPUs: %.1f us = %.3f of the %.0f ms "
		       "target: %s\n", sizes[si], worst, worst / limit, limit / 1000,
		       worst <= limit ? "PASS" : "FAIL");
		fails += worst > limit;
	}
	free(t);
	free(t2);
	free(sd);
	return fails ? 1 : 0;
}
