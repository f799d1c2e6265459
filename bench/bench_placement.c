/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_placement.c - does the default preset earn its place against the
 * Slurm a site runs?  Replays traces on the three example sites under the
 * default preset (balanced, as the plugin decides) and stock Slurm's
 * placements, and prints each metric as a ratio to the best Slurm
 * baseline.
 *
 * Sites: etc/superpod-h100 (non-blocking topology/tree), etc/a100-oversub
 * (topology/tree, 2:1 oversubscribed spine), etc/nvl72-gb200
 * (topology/block, NVL72 domains).  Baselines: first-fit, tree and
 * tree-switches (--switches=N@300, Slurm's default max_switch_wait) on
 * the tree sites; first-fit, tree, block and block with --segment (jobs
 * over one NVL72 domain in segments of whole domains) on the block site.
 *
 * Traces: the Philly trace (../shared/data/traces, or $GP_SHARED_DATA/
 * traces; skipped with a message when absent): N jobs (default 3,000, a
 * window of a few days, to keep the run to minutes on a small machine)
 * from its 40,001st on (its first weeks hold jobs that started before the
 * log, runs of weeks that the sites' 7- and 14-day MaxTime would cut); and a synthetic trace (trace.h's generator, sizes 1 to 64 GPUs
 * weighted toward multi-node jobs, run times cut at 8 h), N jobs generated
 * at offered load 0.9 of the site.  Scenarios: the trace at its recorded
 * load (Philly: its own submit times; synthetic: as generated), at
 * moderate load (submit times stretched or squeezed to an offered load of
 * 0.7) and at twice its recorded density (submit times halved: the dense,
 * overloaded case).  Time limits: the trace has none, so every job gets
 * the simulator's drawn one (trace.h): the engine sees limits only.
 *
 * Judges: the published table (tests/data/judge/published.csv, each factor
 * cited there) and the engine's own cost model.
 *
 * Targets: the default is judged against the stock Slurm configurations
 * the site could run as it is configured, not against every baseline: a
 * block site (its topology configuration has NVL72 blocks, so its Slurm
 * runs topology/block) against first-fit, block and block --segment; a
 * tree site against first-fit, tree and tree --switches.  topology/tree
 * on the block site is printed beside them but is no target: it spreads
 * jobs over NVLink domains, which no site with those domains configures.
 *
 * Printed per scenario: on a site with racks, how many of its GPUs the
 * racks power at TDP with every rack idle (gpuplace power show), beside
 * the offered load; GPU-hours lost to placement, mean wait, GPU-hour-
 * weighted wait, mean wait per job size and cap violations, for every
 * policy, then the default preset's ratio to the best target of each
 * metric (the smallest value among the targets) and whether it is at
 * most 1.0 (and, in the dense scenario, at most 0.8 on lost GPU-hours),
 * then a "loses to" line for every baseline, target or not, that beats
 * the default on any metric.
 * A ratio over a best of nothing (at most 0.01 GPU-hours lost, a second of
 * mean wait, no violation) prints as "0/0" when the default's is nothing
 * too, else as "+x" (the default's value).  Exit status 0 whatever the verdicts:
 * this measures, it does not gate.
 *
 *   GP_SRCDIR=. ./bench/bench_placement [--only PATTERN] [--published-only] [-v]
 *                                       [--draws N] [--bf-plans N] [--racks-unbound]
 *                                       [--jobs FILE] [jobs per trace] [default preset]
 *
 * --draws N runs every scenario N times, the time limits drawn with seeds
 * 1 to N (trace.h: the same users' estimates, drawn again; seed 1 is the
 * simulator's default and the run printed in full), and prints per
 * scenario the default's ratios to each draw's best target as median
 * [lowest to highest], the draws within target, and whether the medians
 * are: a simulated schedule is chaotic (one job started a minute earlier
 * changes every later start), so a verdict of one draw near 1.0 is not a
 * measurement of the policy.
 *
 * --bf-plans N: backfill plans a start for N queued jobs per pass (sim.h
 * bf_resv; 1, EASY, by default), nearer Slurm's backfill, which plans
 * every job it tests; several times the CPU.
 *
 * --racks-unbound: a control, not the sites as they are: every rack's
 * PowerCapKW and CoolingKW ten times the site's, so that no rack binds
 * and every policy is placed as if power were not short (what the racks'
 * power costs the default where they bind: the A100 example).
 *
 * --only runs the scenarios whose "site/trace/scenario" name (e.g.
 * "a100-oversub/synthetic/moderate-0.7") contains PATTERN; the summary
 * counts only those.  --published-only leaves out the engine-model judge
 * (half the run time).  Both are for iterating on one scenario.  -v adds,
 * per policy, the multi-GPU jobs' waits by the plugin's decision at their
 * submission (pin, constrain, none), steered jobs, leaves spanned and
 * GPU-hours lost to placement, and the room a large job finds
 * (explain_room).  --jobs FILE writes every job of every
 * policy, scenario and judge run to FILE as CSV (header first): its
 * submission, start, wait, trace duration, leaves, the plugin's decision,
 * the judged slowdown, whether it was steered and killed, so that one
 * policy's waits and spreads can be set beside another's job by job (with
 * --draws, those of the draw printed in full, seed 1).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuplace.h"
#include "model.h"
#include "sim.h"
#include "trace.h"
#include "power.h"

#define MAX_POL 8
/* Philly jobs skipped before the window (about 6 weeks into the trace). */
#define PHILLY_SKIP 40000

struct scenario {
	const char *name;
	int kind;         /* 0 recorded, 1 moderate (0.7), 2 dense (2x) */
};

static const struct scenario scenarios[] = {
	{ "recorded", 0 }, { "moderate-0.7", 1 }, { "dense-2x", 2 },
};

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A copy of t with submit times scaled by f from its first submit. */
static gp_trace_t *scaled(const gp_trace_t *t, double f)
{
	gp_trace_t *u = calloc(1, sizeof(*u));
	int32_t i;

	if (!u || !(u->jobs = malloc((size_t)t->njobs * sizeof(*u->jobs)))) {
		free(u);
		return NULL;
	}
	memcpy(u->jobs, t->jobs, (size_t)t->njobs * sizeof(*u->jobs));
	u->njobs = t->njobs;
	snprintf(u->name, sizeof(u->name), "%s", t->name);
	for (i = 0; i < u->njobs; i++)
		u->jobs[i].submit_s = t->jobs[0].submit_s + (t->jobs[i].submit_s - t->jobs[0].submit_s) * f;
	return u;
}

static void free_trace(gp_trace_t *t)
{
	if (t) {
		free(t->jobs);
		free(t);
	}
}

/* Values at most this are nothing (floating-point residue, a second of
 * wait on average, a hundredth of a GPU-hour): a ratio over them means
 * nothing.  Units of the value (hours or GPU-hours, or counts). */
#define NIL 0.01

/* default / best ratio cell */
static const char *ratio(char *b, size_t n, double dflt, double best, double nil)
{
	if (!isfinite(dflt) || !isfinite(best))
		snprintf(b, n, "-");
	else if (best > nil)
		snprintf(b, n, "%.2f", dflt / best);
	else if (dflt <= nil)
		snprintf(b, n, "0/0");
	else
		snprintf(b, n, "+%.3g", dflt);
	return b;
}

/* A ratio as a number: 0 when both are nothing (nothing to lose to),
 * infinite when only the best is nothing. */
static double ratio_num(double dflt, double best, double nil)
{
	if (best > nil)
		return dflt / best;
	return dflt <= nil ? 0.0 : INFINITY;
}

static bool le(double dflt, double best, double r, double nil)
{
	if (!isfinite(dflt) || !isfinite(best))
		return true; /* no job of that kind: nothing to lose */
	return ratio_num(dflt, best, nil) <= r;
}

/* -v: where a policy's wait comes from, by what the plugin decided at
 * submission (none for a Slurm baseline or a job the plugin passes),
 * with how many of those jobs were steered and the leaves they spanned. */
static bool verbose;
/* --jobs FILE: every job's row (jobs_rows), NULL = none */
static FILE *jobs_out;

/* --jobs: the jobs of every policy of one scenario and judge. */
static void jobs_rows(gp_sim_result_t *const *r, const char *const *pols, int npol,
                      const char *scen, const char *jname)
{
	static const char *const kinds[] = { "none", "pin", "constrain", "reject" };
	int i;
	int32_t q;

	for (i = 0; jobs_out && i < npol; i++)
		for (q = 0; q < r[i]->njobs; q++) {
			const gp_sim_job_t *j = &r[i]->jobs[q];

			fprintf(jobs_out, "%s,%s,%s,%lu,%ld,%.3f,%.3f,%.3f,%.0f,%ld,%s,%.4f,%d,%d\n", scen,
			        jname, pols[i], (unsigned long)j->id, (long)j->gpus, j->submit_s,
			        j->start_s, j->start_s >= 0 ? j->start_s - j->submit_s : -1.0,
			        j->duration_s, (long)j->nleaves,
			        kinds[j->decision <= GP_SIM_DEC_REJECT ? j->decision : 0], j->slowdown, j->steered,
			        j->killed);
		}
}

static void explain(const gp_sim_result_t *r)
{
	static const char *const kinds[] = { "none", "pin", "constrain", "reject" };
	double w[4] = { 0 }, wg[4] = { 0 }, lv[4] = { 0 }, lost[4] = { 0 };
	int32_t n[4] = { 0 }, st[4] = { 0 }, i, k;

	for (i = 0; i < r->njobs; i++) {
		const gp_sim_job_t *j = &r->jobs[i];

		if (j->killed && j->start_s >= 0)
			printf("#   %-14s killed: job %u, %d GPUs, %s, %d leaves, slowdown %.3f, run %.0f s "
			       "of limit %.0f s\n", r->policy, (unsigned)j->id, (int)j->gpus,
			       kinds[(int)j->decision & 3], (int)j->nleaves, j->slowdown,
			       j->duration_s, j->limit_s);
		if (j->start_s < 0 || j->gpus <= 1)
			continue;
		k = (int)j->decision & 3;
		n[k]++;
		w[k] += j->start_s - j->submit_s;
		wg[k] += j->gpus * (j->start_s - j->submit_s);
		lv[k] += j->nleaves;
		st[k] += j->steered;
		lost[k] += j->gpus * j->duration_s * (j->slowdown - 1.0) / 3600;
	}
	for (k = 0; k < 4; k++)
		if (n[k])
			printf("#   %-14s %-9s %5d multi-GPU jobs, mean wait %7.3f h, %9.1f GPU-h "
			       "waited, %4.2f leaves, %d steered, %.1f GPU-h lost\n", r->policy, kinds[k],
			       (int)n[k], w[k] / n[k] / 3600, wg[k] / 3600, lv[k] / n[k], (int)st[k],
			       lost[k]);
}

/*
 * -v: the room a large job finds, per policy: over 500 instants evenly
 * spaced between the first and the last submission, the mean of the most
 * whole free nodes (up, no GPU allocated) under one leaf switch and of the
 * whole free nodes in all, from the jobs' placements and run times.  A
 * policy that spreads its jobs evenly over the leaves leaves as many whole
 * nodes free as one that packs them, but fewer under any one leaf, where a
 * job held for one leaf waits for them.
 */
#define ROOM_SAMPLES 500
static void explain_room(const gp_cluster_t *c, const gp_sim_result_t *r)
{
	double t0 = INFINITY, t1 = -INFINITY, sum_leaf = 0, sum_all = 0;
	int32_t *used = calloc((size_t)c->nnodes, sizeof(*used));
	int32_t *room = calloc((size_t)c->nswitches + 1, sizeof(*room));
	int32_t i, q, n, k;

	if (!used || !room || r->njobs == 0 || c->nswitches == 0) {
		free(used);
		free(room);
		return;
	}
	for (q = 0; q < r->njobs; q++) {
		t0 = fmin(t0, r->jobs[q].submit_s);
		t1 = fmax(t1, r->jobs[q].submit_s);
	}
	for (i = 0; i < ROOM_SAMPLES; i++) {
		double t = t0 + (t1 - t0) * (i + 0.5) / ROOM_SAMPLES;
		int32_t most = 0, all = 0;

		memset(used, 0, (size_t)c->nnodes * sizeof(*used));
		memset(room, 0, ((size_t)c->nswitches + 1) * sizeof(*room));
		for (q = 0; q < r->njobs; q++) {
			const gp_sim_job_t *j = &r->jobs[q];

			if (j->start_s < 0 || j->start_s > t || j->end_s <= t || !j->nodes)
				continue;
			for (n = 0; n < j->nnodes; n++)
				used[j->nodes[n]] += j->node_gpus[n];
		}
		for (n = 0; n < c->nnodes; n++) {
			if (used[n] || c->nodes[n].ngpus <= 0)
				continue;
			all++;
			if ((k = c->nodes[n].leaf) >= 0 && ++room[k] > most)
				most = room[k];
		}
		sum_leaf += most;
		sum_all += all;
	}
	printf("#   %-14s room: %.1f whole free nodes under the leaf with the most, %.1f in all "
	       "(means over %d instants)\n", r->policy, sum_leaf / ROOM_SAMPLES,
	       sum_all / ROOM_SAMPLES, ROOM_SAMPLES);
	free(used);
	free(room);
}

/* -v: the GPU-hours the default's steered jobs waited, and the same jobs'
 * under each baseline (a steered job that waits longer than it would under
 * stock Slurm was moved somewhere worse for it). */
static void explain_steered(gp_sim_result_t *const *r, const char *const *pols, int npol)
{
	double w[MAX_POL] = { 0 };
	int32_t i, n = 0;
	int k;

	for (i = 0; i < r[0]->njobs; i++) {
		const gp_sim_job_t *j = &r[0]->jobs[i];

		if (!j->steered || j->start_s < 0)
			continue;
		for (k = 1; k < npol; k++)
			if (i >= r[k]->njobs || r[k]->jobs[i].id != j->id || r[k]->jobs[i].start_s < 0)
				break;
		if (k < npol)
			continue; /* not started under every policy: no comparison */
		n++;
		for (k = 0; k < npol; k++)
			w[k] += r[k]->jobs[i].gpus * (r[k]->jobs[i].start_s - r[k]->jobs[i].submit_s) / 3600;
	}
	printf("#   steered jobs under %s: %d, %.1f GPU-h waited; the same jobs under", pols[0],
	       (int)n, w[0]);
	for (k = 1; k < npol; k++)
		printf(" %s %.1f%s", pols[k], w[k], k + 1 < npol ? "," : "\n");
}

/* -v: where the default (r[a]: as it ships, or under the racks' budget)
 * and baseline r[b] differ, by the job's size class and what the plugin
 * decided for it under the default: the GPU-hours the same jobs waited and
 * lost to placement under each (a job not started under both is left
 * out). */
static void explain_sizes(gp_sim_result_t *const *r, const char *const *pols, int a, int b)
{
	static const char *const kinds[] = { "none", "pin", "constrain", "reject" };
	double w[GP_SIM_NSIZE][4][2] = { { { 0 } } }, l[GP_SIM_NSIZE][4][2] = { { { 0 } } };
	int32_t n[GP_SIM_NSIZE][4] = { { 0 } }, i;
	int k, q, p;

	for (i = 0; i < r[a]->njobs && i < r[b]->njobs; i++) {
		const gp_sim_job_t *j[2] = { &r[a]->jobs[i], &r[b]->jobs[i] };

		if (j[0]->id != j[1]->id || j[0]->start_s < 0 || j[1]->start_s < 0 || j[0]->gpus <= 1)
			continue;
		k = gp__sim_size_class(j[0]->gpus);
		q = (int)j[0]->decision & 3;
		if (k < 0 || k >= GP_SIM_NSIZE)
			continue;
		n[k][q]++;
		for (p = 0; p < 2; p++) {
			w[k][q][p] += j[p]->gpus * (j[p]->start_s - j[p]->submit_s) / 3600;
			l[k][q][p] += j[p]->gpus * j[p]->duration_s * (j[p]->slowdown - 1.0) / 3600;
		}
	}
	printf("#   the same multi-GPU jobs under %s and %s, by size and the default's "
	       "decision: GPU-h waited, GPU-h lost to placement\n", pols[a], pols[b]);
	for (k = 0; k < GP_SIM_NSIZE; k++)
		for (q = 0; q < 4; q++)
			if (n[k][q])
				printf("#     %-8s %-9s %5d jobs  waited %9.1f against %9.1f  lost %7.1f "
				       "against %7.1f\n", gp__sim_size_class_name(k), kinds[q], (int)n[k][q],
				       w[k][q][0], w[k][q][1], l[k][q][0], l[k][q][1]);
}

/* Whether some rack of c cannot run every GPU of its nodes at TDP within
 * min(PowerCapKW, CoolingKW): then stock Slurm, which knows no power,
 * starts jobs over the rack's limit, and the site's Slurm with the racks'
 * power as hierarchical resources (the "-budget" baselines, sim.h) is the
 * Slurm that keeps the limits gpuplace keeps.  The power model's idle
 * estimate plus every GPU's TDP over idle, against the limit the
 * simulator counts violations by (sim.c setup). */
static bool racks_bind(const gp_cluster_t *c)
{
	double *w = calloc((size_t)c->nracks + 1, sizeof(*w));
	bool bind = false;
	int32_t r, i;

	if (!w || gp__power_estimate_all(c, NULL, w) != GP_OK) {
		free(w);
		return false;
	}
	for (i = 0; i < c->nnodes; i++) {
		const gp_node_t *n = &c->nodes[i];

		if (n->rack >= 0 && n->profile >= 0)
			w[n->rack] += n->ngpus * (gp__power_gpu_watts(&c->profiles[n->profile], 1.0) -
			                          gp__power_gpu_watts(&c->profiles[n->profile], 0.0));
	}
	for (r = 0; r < c->nracks && !bind; r++) {
		double cap = c->racks[r].power_cap_kw * 1000.0;
		double cool = c->racks[r].cooling_kw > 0.0 ? c->racks[r].cooling_kw * 1000.0 : cap;

		bind = w[r] > fmin(cap, cool);
	}
	free(w);
	return bind;
}

struct tally {
	int scen, lost_ok, mean_ok, wtd_ok, dense, dense_ok, loses;
	int one_ok, one_dense_ok;  /* all three within target of the best baseline */
	int budget, budget_ok;     /* scenarios with -budget baselines; all three within */
	/* --draws: scenarios whose median ratios are all within target, whose
	 * every draw is, and the draws within target of all draws run */
	int med_ok, med_dense_ok, every_ok, draws_ok, draws;
};

/* --draws N: every scenario is also run with the time limits drawn with
 * seeds 2 .. N (seed 1, the simulator's default, is the run printed in
 * full) */
static int ndraws = 1;
/* --bf-plans N: queued jobs each backfill pass plans a start for (sim.h
 * bf_resv; 1, the default, is EASY backfill) */
static int bf_plans = 1;
/* --racks-unbound: every rack's limits x10 (a control) */
static bool racks_unbound;

/* GPU-hours a policy's jobs waited: sum of GPUs x wait over started jobs. */
static double gpuh_waited(const gp_sim_result_t *r)
{
	double w = 0;
	int32_t i;

	for (i = 0; i < r->njobs; i++)
		if (r->jobs[i].start_s >= 0)
			w += r->jobs[i].gpus * (r->jobs[i].start_s - r->jobs[i].submit_s) / 3600;
	return w;
}

/* The best baseline among those picked by want[]: the fewest GPU-hours
 * lost to placement plus GPU-hours waited (what the site's GPUs and users
 * lose in all); -1 when none is picked. */
static int best_baseline(gp_sim_result_t *const *r, const bool *want, int npol)
{
	int i, b = -1;
	double bc = INFINITY;

	for (i = 1; i < npol; i++) {
		double cst;

		if (!want[i])
			continue;
		cst = r[i]->m.lost_place_gpuh + gpuh_waited(r[i]);
		if (cst < bc) {
			bc = cst;
			b = i;
		}
	}
	return b;
}

/* One verdict line: the default against baseline b on lost GPU-hours
 * (within lost_r), mean wait and GPU-hour-weighted wait (within 1.0);
 * true when all three hold. */
static bool verdict_against(gp_sim_result_t *const *r, const char *const *pols, int di, int b,
                            double lost_r, const char *what)
{
	const gp_sim_metrics_t *d = &r[di]->m, *m = &r[b]->m;
	char a[3][32];
	bool lo = le(d->lost_place_gpuh, m->lost_place_gpuh, lost_r, NIL),
	     mo = le(d->wait_mean_s / 3600, m->wait_mean_s / 3600, 1.0, 1.0 / 3600),
	     wo = le(d->wait_gpuh_mean_s / 3600, m->wait_gpuh_mean_s / 3600, 1.0, 1.0 / 3600);

	printf("%s %s (%.0f GPU-h lost + %.0f waited; %s %.0f + %.0f): lost-GPUh %s %s, "
	       "mean wait %s %s, GPUh-weighted wait %s %s, violations %d against %d\n", what,
	       pols[b], m->lost_place_gpuh, gpuh_waited(r[b]), di ? pols[di] : "the default",
	       d->lost_place_gpuh, gpuh_waited(r[di]),
	       ratio(a[0], sizeof(a[0]), d->lost_place_gpuh, m->lost_place_gpuh, NIL),
	       lo ? "yes" : "NO",
	       ratio(a[1], sizeof(a[1]), d->wait_mean_s / 3600, m->wait_mean_s / 3600, 1.0 / 3600),
	       mo ? "yes" : "NO",
	       ratio(a[2], sizeof(a[2]), d->wait_gpuh_mean_s / 3600, m->wait_gpuh_mean_s / 3600,
	             1.0 / 3600),
	       wo ? "yes" : "NO", (int)d->violations, (int)m->violations);
	return lo && mo && wo;
}

/* Metric k of a result (the table's columns): lost GPU-hours, mean wait,
 * GPU-hour-weighted wait, mean wait per size class (hours), violations. */
#define NMETRIC (4 + GP_SIM_NSIZE)
static const char *const metric_name[NMETRIC] = { "lost-GPUh", "wait-h", "wtd-h", "w1", "w2-8",
                                                  "w9-32", "w33-128", "w>128", "viol" };

static double metric(const gp_sim_metrics_t *m, int k)
{
	return k == 0 ? m->lost_place_gpuh : k == 1 ? m->wait_mean_s / 3600 :
	       k == 2 ? m->wait_gpuh_mean_s / 3600 :
	       k < 3 + GP_SIM_NSIZE ? m->wait_size_mean_s[k - 3] / 3600 : (double)m->violations;
}

/* What counts as nothing for metric k (see NIL). */
static double metric_nil(int k)
{
	return k == 0 ? NIL : k < 3 + GP_SIM_NSIZE ? 1.0 / 3600 : 0;
}

/* Print a "loses to" line for each baseline that beats the default on any
 * metric (targets or not): returns how many baselines did. */
static int print_losses(gp_sim_result_t *const *r, const char *const *pols, const bool *target,
                        int npol)
{
	char a[32];
	int i, k, lost = 0;

	for (i = 1; i < npol; i++) {
		int n = 0;

		for (k = 0; k < NMETRIC; k++) {
			double d = metric(&r[0]->m, k), b = metric(&r[i]->m, k);

			if (le(d, b, 1.0, metric_nil(k)))
				continue;
			if (!n++)
				printf("loses to %s%s:", pols[i], target[i] ? "" : " (no target)");
			printf(" %s %s%s", metric_name[k], ratio(a, sizeof(a), d, b, metric_nil(k)),
			       strchr(a, '+') ? "" : "x");
		}
		if (n) {
			printf("\n");
			lost++;
		}
	}
	return lost;
}

/* The default's (r[0]) ratios to the best target of one draw: lost
 * GPU-hours, mean wait, GPU-hour-weighted wait (rat[3]); false when no
 * target was run. */
static bool draw_ratios(gp_sim_result_t *const *r, const bool *target, int npol, double *rat)
{
	int b = best_baseline(r, target, npol);
	const gp_sim_metrics_t *d = &r[0]->m, *m;

	if (b <= 0)
		return false;
	m = &r[b]->m;
	rat[0] = ratio_num(d->lost_place_gpuh, m->lost_place_gpuh, NIL);
	rat[1] = ratio_num(d->wait_mean_s / 3600, m->wait_mean_s / 3600, 1.0 / 3600);
	rat[2] = ratio_num(d->wait_gpuh_mean_s / 3600, m->wait_gpuh_mean_s / 3600, 1.0 / 3600);
	return true;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of v[0..n-1] (sorts v). */
static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Run every policy of one scenario with the time limits drawn with seed;
 * r[] filled (the caller destroys them), 0 or 1 with a message. */
static int run_draw(const gp_cluster_t *c, const char *site, const char *tname,
                    const gp_trace_t *t, const char *const *pols, int npol,
                    const gp_sim_judge_t *judge, uint64_t seed, gp_sim_result_t **r)
{
	gp_error_t err = { "" };
	int i;

	for (i = 0; i < npol; i++) {
		gp_sim_policy_t p;
		gp_sim_opts_t o;

		gp__sim_opts_defaults(&o);
		o.judge = judge;
		o.limit_seed = seed;
		o.bf_resv = bf_plans;
		if (gp__sim_policy_parse(pols[i], c, &p, &err) ||
		    gp__sim_run(c, NULL, t, &p, &o, &r[i], &err)) {
			fprintf(stderr, "bench_placement: %s %s %s (time limits of seed %llu): %s\n",
			        site, pols[i], tname, (unsigned long long)seed, err.text);
			return 1;
		}
	}
	return 0;
}

/* --draws: the default against the best target of each of the ndraws
 * draws of the time limits (rat1: the printed draw's, seed 1), printed as
 * median [min - max] per metric with the draws within target, and
 * tallied. */
static int print_draws(const gp_cluster_t *c, const char *site, const char *tname, int dense,
                       const gp_trace_t *t, const char *const *pols, const bool *target,
                       int npol, const gp_sim_judge_t *judge, const double *rat1,
                       struct tally *ty)
{
	static const char *const what[3] = { "lost-GPUh", "mean wait", "GPUh-weighted wait" };
	double v[3][101], lim[3] = { dense ? 0.8 : 1.0, 1.0, 1.0 }, med[3];
	int d, k, n = 0, within = 0, i;
	bool med_ok = true;

	for (d = 1; d <= ndraws; d++) {
		gp_sim_result_t *r[MAX_POL] = { NULL };
		double rat[3];
		bool have, all = true;

		if (d == 1) {
			memcpy(rat, rat1, sizeof(rat));
			have = !isnan(rat1[0]); /* NAN: no target was run */
		} else {
			if (run_draw(c, site, tname, t, pols, npol, judge, (uint64_t)d, r)) {
				for (i = 0; i < npol; i++)
					gp__sim_result_destroy(r[i]);
				return 1;
			}
			have = draw_ratios(r, target, npol, rat);
			for (i = 0; i < npol; i++)
				gp__sim_result_destroy(r[i]);
		}
		if (!have)
			continue;
		for (k = 0; k < 3; k++) {
			v[k][n] = rat[k];
			all = all && rat[k] <= lim[k];
		}
		within += all;
		n++;
	}
	if (!n)
		return 0;
	printf("over %d draws of the time limits (seeds 1 to %d), against each draw's best target:",
	       n, ndraws);
	for (k = 0; k < 3; k++) {
		double lo, hi;

		med[k] = median(v[k], n); /* sorted: v[k][0] and v[k][n - 1] are the ends */
		lo = v[k][0];
		hi = v[k][n - 1];
		med_ok = med_ok && med[k] <= lim[k];
		printf("%s %s median %.2f [%.2f to %.2f]", k ? "," : "", what[k], med[k], lo, hi);
	}
	printf("; all three within target in %d of %d draws; the medians within target: %s\n",
	       within, n, med_ok ? "yes" : "NO");
	if (judge) {
		ty->med_ok += med_ok;
		ty->med_dense_ok += dense && med_ok;
		ty->every_ok += within == n;
		ty->draws_ok += within;
		ty->draws += n;
	}
	return 0;
}

static int run_scenario(const gp_cluster_t *c, const char *site, const char *tname,
                        const char *sname, int dense, const gp_trace_t *t,
                        const char *const *pols, const bool *target, int npol,
                        const gp_sim_judge_t *judge, const char *jname, struct tally *ty)
{
	gp_sim_result_t *r[MAX_POL] = { NULL };
	double best[3 + GP_SIM_NSIZE], v, rat1[3];
	char a[8][32];
	int i, k, rc = 1, losses, dbud = -1;
	bool lost_ok, mean_ok, wtd_ok;
	size_t dl = strlen(pols[0]);

	for (i = 1; i < npol; i++)
		if (!strncmp(pols[i], pols[0], dl) && !strcmp(pols[i] + dl, "-budget"))
			dbud = i;
	/* seed 1: the simulator's default draw of the time limits */
	if (run_draw(c, site, tname, t, pols, npol, judge, 1, r))
		goto out;
	if (!draw_ratios(r, target, npol, rat1))
		rat1[0] = rat1[1] = rat1[2] = NAN;
	if (jobs_out) {
		char scen[256];

		snprintf(scen, sizeof(scen), "%s/%s/%s", site, tname, sname);
		jobs_rows(r, pols, npol, scen, jname);
	}
	printf("\n## %s | %s | %s (offered load %.2f, %d jobs) | judge: %s\n", site, tname, sname,
	       gp__trace_offered_load(t, gp_cluster_gpu_count(c)), t->njobs, jname);
	if (c->nracks > 0) {
		/* where power binds whatever the placement: the share of the
		 * GPUs the racks power at TDP (gpuplace power show) against the
		 * offered load */
		int64_t pw, all;

		if (gp__power_idle_tdp_gpus(c, &pw, &all) == GP_OK && all > 0)
			printf("racks: with every rack idle they power %lld of their %lld GPUs at TDP "
			       "(%.1f %%)\n", (long long)pw, (long long)all,
			       100.0 * (double)pw / (double)all);
	}
	printf("targets (the stock Slurm this site runs as configured):");
	for (i = 1; i < npol; i++)
		if (target[i])
			printf(" %s", pols[i]);
	printf("; * printed, no target\n");
	printf("%-14s %9s %8s %8s %8s %8s %8s %8s %8s %6s %6s\n", "policy", "lost-GPUh",
	       "wait-h", "wtd-h", "w1", "w2-8", "w9-32", "w33-128", "w>128", "viol", "killed");
	for (k = 0; k < 3 + GP_SIM_NSIZE; k++)
		best[k] = INFINITY;
	for (i = 0; i < npol; i++) {
		const gp_sim_metrics_t *m = &r[i]->m;
		double vals[3 + GP_SIM_NSIZE];
		char name[32];

		vals[0] = m->lost_place_gpuh;
		vals[1] = m->wait_mean_s / 3600;
		vals[2] = m->wait_gpuh_mean_s / 3600;
		for (k = 0; k < GP_SIM_NSIZE; k++)
			vals[3 + k] = m->wait_size_mean_s[k] / 3600;
		snprintf(name, sizeof(name), "%s%s", pols[i], i == 0 || target[i] ? "" : "*");
		printf("%-14s %9.1f %8.3f %8.3f", name, vals[0], vals[1], vals[2]);
		for (k = 0; k < GP_SIM_NSIZE; k++) {
			if (isfinite(vals[3 + k]))
				printf(" %8.3f", vals[3 + k]);
			else
				printf(" %8s", "-");
		}
		printf(" %6d %6d\n", (int)m->violations, (int)m->killed);
		if (verbose) {
			explain(r[i]);
			explain_room(c, r[i]);
		}
		if (i == 0 || !target[i])
			continue; /* the default preset, or printed only */
		for (k = 0; k < 3 + GP_SIM_NSIZE; k++)
			if (isfinite(vals[k]) && vals[k] < best[k])
				best[k] = vals[k];
	}
	if (verbose)
		explain_steered(r, pols, npol);
	{
		const gp_sim_metrics_t *m = &r[0]->m;
		double vb = INFINITY;

		for (i = 1; i < npol; i++)
			if (target[i] && r[i]->m.violations < vb)
				vb = r[i]->m.violations;
		lost_ok = le(m->lost_place_gpuh, best[0], dense ? 0.8 : 1.0, NIL);
		mean_ok = le(m->wait_mean_s / 3600, best[1], 1.0, 1.0 / 3600);
		wtd_ok = le(m->wait_gpuh_mean_s / 3600, best[2], 1.0, 1.0 / 3600);
		printf("%-14s %9s %8s %8s", "ratio",
		       ratio(a[0], sizeof(a[0]), m->lost_place_gpuh, best[0], NIL),
		       ratio(a[1], sizeof(a[1]), m->wait_mean_s / 3600, best[1], 1.0 / 3600),
		       ratio(a[2], sizeof(a[2]), m->wait_gpuh_mean_s / 3600, best[2], 1.0 / 3600));
		for (k = 0; k < GP_SIM_NSIZE; k++) {
			v = m->wait_size_mean_s[k] / 3600;
			printf(" %8s", ratio(a[3], sizeof(a[3]), v, best[3 + k], 1.0 / 3600));
		}
		printf(" %6s\n", ratio(a[4], sizeof(a[4]), m->violations, vb, 0));
		printf("verdict: lost-GPUh <= %.1fx %s, mean wait <= 1.0x %s, GPUh-weighted wait "
		       "<= 1.0x %s\n", dense ? 0.8 : 1.0, lost_ok ? "yes" : "NO",
		       mean_ok ? "yes" : "NO", wtd_ok ? "yes" : "NO");
		{
			bool budget[MAX_POL], one_ok, b_ok = false;
			int b = best_baseline(r, target, npol), nb = 0;

			one_ok = b > 0 && verdict_against(r, pols, 0, b, dense ? 0.8 : 1.0,
			                                  "against the best target,");
			if (verbose && b > 0)
				explain_sizes(r, pols, 0, b);
			/* the default under the same budget (DFLT-budget, the last
			 * policy where racks bind: PowerHres or PowerLicenses) against
			 * the Slurm baselines under it: both keep every rack's limit */
			for (i = 0; i < npol; i++) {
				budget[i] = i > 0 && i != dbud && strstr(pols[i], "-budget") != NULL;
				nb += budget[i];
			}
			if (nb && dbud > 0) {
				b = best_baseline(r, budget, npol);
				b_ok = verdict_against(r, pols, dbud, b, dense ? 0.8 : 1.0,
				                       "under the racks' budget, against the best Slurm "
				                       "that keeps the racks' limits,");
				if (verbose && b > 0)
					explain_sizes(r, pols, dbud, b);
			}
			if (judge) {
				ty->one_ok += one_ok;
				ty->one_dense_ok += dense && one_ok;
				ty->budget += nb > 0;
				ty->budget_ok += nb > 0 && b_ok;
			}
		}
		losses = print_losses(r, pols, target, npol);
		if (!losses)
			printf("loses to no baseline on any metric\n");
		if (ndraws > 1 && print_draws(c, site, tname, dense, t, pols, target, npol, judge,
		                              rat1, ty))
			goto out;
		if (judge) {
			ty->scen++;
			ty->lost_ok += lost_ok;
			ty->mean_ok += mean_ok;
			ty->wtd_ok += wtd_ok;
			ty->dense += dense;
			ty->dense_ok += dense && lost_ok;
			ty->loses += losses > 0;
		}
	}
	rc = 0;
out:
	for (i = 0; i < npol; i++)
		gp__sim_result_destroy(r[i]);
	return rc;
}

/* *out = arg, a whole number from 1 to max; else -1 with a message. */
static int count_arg(const char *opt, const char *arg, long max, int *out)
{
	char *end;
	long n = strtol(arg, &end, 10);

	if (end == arg || *end || n < 1 || n > max) {
		fprintf(stderr, "bench_placement: %s %s: a whole number from 1 to %ld\n", opt, arg,
		        max);
		return -1;
	}
	*out = (int)n;
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const sites[] = { "superpod-h100", "a100-oversub", "nvl72-gb200" };
	const char *src = getenv("GP_SRCDIR"), *shared = getenv("GP_SHARED_DATA");
	const char *dflt = "balanced", *only = NULL;
	static char dflt_budget[64];
	long njobs = 3000;
	bool published_only = false;
	int ai, npos = 0;
	char path[2048], jpath[2048];
	gp_trace_t *philly = NULL;
	gp_sim_judge_t *judge = NULL;
	gp_error_t err = { "" };
	struct tally ty = { 0 };
	double t0 = cpu_s();
	size_t s;
	int rc = 1;

	for (ai = 1; ai < argc; ai++) {
		if (!strcmp(argv[ai], "--only") && ai + 1 < argc)
			only = argv[++ai];
		else if (!strcmp(argv[ai], "--published-only"))
			published_only = true;
		else if (!strcmp(argv[ai], "-v"))
			verbose = true;
		else if (!strcmp(argv[ai], "--draws") && ai + 1 < argc) {
			if (count_arg("--draws", argv[++ai], 101, &ndraws))
				return 2;
		} else if (!strcmp(argv[ai], "--bf-plans") && ai + 1 < argc) {
			if (count_arg("--bf-plans", argv[++ai], GP_SIM_MAX_BF_RESV, &bf_plans))
				return 2;
		} else if (!strcmp(argv[ai], "--racks-unbound")) {
			racks_unbound = true;
		} else if (!strcmp(argv[ai], "--jobs") && ai + 1 < argc) {
			if (jobs_out)
				fclose(jobs_out);
			if (!(jobs_out = fopen(argv[++ai], "w"))) {
				perror(argv[ai]);
				return 2;
			}
			fprintf(jobs_out, "scenario,judge,policy,job,gpus,submit_s,start_s,wait_s,"
			                  "duration_s,leaves,decision,slowdown,steered,killed\n");
		} else if (argv[ai][0] == '-') {
			fprintf(stderr, "usage: bench_placement [--only SITE/TRACE/SCENARIO] "
			                "[--published-only] [-v] [--draws N] [--bf-plans N] "
			                "[--racks-unbound] [--jobs FILE] [jobs per trace] "
			                "[default preset]\n");
			return 2;
		} else if (npos++ == 0)
			njobs = strtol(argv[ai], NULL, 10);
		else
			dflt = argv[ai];
	}
	if (!src || !*src)
		src = ".";
	snprintf(dflt_budget, sizeof(dflt_budget), "%s-budget", dflt);
	if (njobs < 100)
		njobs = 100;
	snprintf(jpath, sizeof(jpath), "%s/tests/data/judge/published.csv", src);
	if (gp__sim_judge_load(jpath, &judge, &err)) {
		fprintf(stderr, "bench_placement: %s\n", err.text);
		return 1;
	}
	if (shared && *shared)
		snprintf(path, sizeof(path), "%s/traces/philly_pollux_82k.csv", shared);
	else
		snprintf(path, sizeof(path), "%s/../shared/data/traces/philly_pollux_82k.csv", src);
	if (gp__trace_load(path, &philly, &err)) {
		printf("# Philly trace not run: %s\n", err.text);
		philly = NULL;
	} else if (philly->njobs > PHILLY_SKIP + njobs) {
		/* a window past the trace's start, where jobs that began before
		 * the log fill the first days with runs of weeks */
		memmove(philly->jobs, philly->jobs + PHILLY_SKIP,
		        (size_t)njobs * sizeof(*philly->jobs));
		philly->njobs = (int32_t)njobs;
	} else {
		gp__trace_truncate(philly, (int32_t)njobs);
	}
	printf("# default preset '%s' vs stock Slurm, %ld jobs per trace, time limits drawn "
	       "(the engine sees limits only)\n# judge tables: %s and the engine's model\n", dflt,
	       njobs, jpath);
	if (racks_unbound)
		printf("# control (--racks-unbound), not the sites as they are: every rack's "
		       "PowerCapKW and CoolingKW x10, no rack binds\n");

	for (s = 0; s < sizeof(sites) / sizeof(sites[0]); s++) {
		gp_cluster_t *c = NULL;
		const char *pols[MAX_POL];
		bool target[MAX_POL];
		int npol = 0, k;
		long g;
		gp_trace_t *synth = NULL;
		gp_trace_synth_params_t tp;

		snprintf(path, sizeof(path), "%s/etc/%s", src, sites[s]);
		if (gp_cluster_load_conf_dir(path, &c, &err)) {
			fprintf(stderr, "bench_placement: %s: %s\n", path, err.text);
			goto out;
		}
		g = gp_cluster_gpu_count(c);
		for (k = 0; racks_unbound && k < c->nracks; k++) {
			c->racks[k].power_cap_kw *= 10.0;
			c->racks[k].cooling_kw *= 10.0;
		}
		/* the targets: what the site's Slurm runs as configured (a
		 * topology with blocks: topology/block, with or without
		 * --segment; a switch tree: topology/tree, with or without
		 * --switches) and first-fit, which any site gets without a
		 * topology plugin; tree on a block site is printed only */
		target[npol] = false;
		pols[npol++] = dflt;
		target[npol] = true;
		pols[npol++] = "first-fit";
		target[npol] = c->nblocks == 0;
		pols[npol++] = "tree";
		if (c->nblocks > 0) {
			target[npol] = true;
			pols[npol++] = "block";
			target[npol] = true;
			pols[npol++] = "block-segment";
		} else {
			target[npol] = true;
			pols[npol++] = "tree-switches";
		}
		if (racks_bind(c)) {
			target[npol] = false;
			pols[npol++] = c->nblocks > 0 ? "block-budget" : "tree-budget";
			if (c->nblocks == 0) {
				target[npol] = false;
				pols[npol++] = "tree-switches-budget";
			}
			/* the default as a site that keeps its caps runs it
			 * (gpuplace.conf PowerHres or PowerLicenses: sim.h) */
			target[npol] = false;
			pols[npol++] = dflt_budget;
		}

		gp__trace_synth_defaults(&tp);
		tp.jobs = (int32_t)njobs;
		tp.seed = 7;
		tp.cluster_gpus = (int32_t)g;
		tp.load = 0.9;
		tp.dur_max_s = 8 * 3600.0;
		tp.gpus_per_node = c->nodes[0].ngpus;
		if (gp__trace_parse_sizes("1:0.3,2:0.1,4:0.1,8:0.25,16:0.12,32:0.08,64:0.05", &tp,
		                          &err) ||
		    gp__trace_synth(&tp, &synth, &err)) {
			fprintf(stderr, "bench_placement: synthetic trace: %s\n", err.text);
			gp_cluster_destroy(c);
			goto out;
		}
		for (k = 0; k < 2; k++) {
			const gp_trace_t *base = k == 0 ? philly : synth;
			const char *tname = k == 0 ? "philly" : "synthetic";
			double l0;
			size_t sc;

			if (!base)
				continue;
			l0 = gp__trace_offered_load(base, g);
			for (sc = 0; sc < sizeof(scenarios) / sizeof(scenarios[0]); sc++) {
				double f = scenarios[sc].kind == 0 ? 1.0 :
				           scenarios[sc].kind == 1 ? (l0 > 0 ? l0 / 0.7 : 1.0) : 0.5;
				gp_trace_t *t;
				char full[256];
				int bad;

				snprintf(full, sizeof(full), "%s/%s/%s", sites[s], tname,
				         scenarios[sc].name);
				if (only && !strstr(full, only))
					continue;
				t = scaled(base, f);
				if (!t) {
					fprintf(stderr, "bench_placement: out of memory\n");
					gp__trace_destroy(synth);
					gp_cluster_destroy(c);
					goto out;
				}
				bad = run_scenario(c, sites[s], tname, scenarios[sc].name,
				                   scenarios[sc].kind == 2, t, pols, target, npol,
				                   judge, "published table", &ty) ||
				      (!published_only && run_scenario(c, sites[s], tname, scenarios[sc].name,
				                   scenarios[sc].kind == 2, t, pols, target, npol, NULL,
				                   "engine model", &ty));
				free_trace(t);
				if (bad) {
					gp__trace_destroy(synth);
					gp_cluster_destroy(c);
					goto out;
				}
			}
		}
		gp__trace_destroy(synth);
		gp_cluster_destroy(c);
	}
	printf("\n# under the published judge: lost GPU-hours within target in %d of %d scenarios "
	       "(dense: %d of %d at <= 0.8x); mean wait <= 1.0x in %d; GPU-hour-weighted wait "
	       "<= 1.0x in %d\n", ty.lost_ok, ty.scen, ty.dense_ok, ty.dense, ty.mean_ok, ty.wtd_ok);
	printf("# (ratios to the targets: the stock Slurm each site runs as configured); it loses to "
	       "some baseline on some metric in %d of %d scenarios (the \"loses to\" lines)\n",
	       ty.loses, ty.scen);
	printf("# against the best target of each scenario (the fewest GPU-hours lost to placement "
	       "plus waited): lost GPU-hours, mean wait and GPU-hour-weighted wait all within "
	       "target in %d of %d scenarios (dense: %d of %d)\n", ty.one_ok, ty.scen,
	       ty.one_dense_ok, ty.dense);
	if (ty.budget)
		printf("# under the racks' budget (the default as %s, where racks bind), against the "
		       "best stock Slurm that keeps the racks' limits (-budget): all three within "
		       "target in %d of %d scenarios\n", dflt_budget, ty.budget_ok, ty.budget);
	if (ndraws > 1)
		printf("# over %d draws of the time limits, against each draw's best target: the "
		       "median ratios all within target in %d of %d scenarios (dense: %d of %d); "
		       "every draw within target in %d; %d of %d draws within target\n", ndraws,
		       ty.med_ok, ty.scen, ty.med_dense_ok, ty.dense, ty.every_ok, ty.draws_ok,
		       ty.draws);
	printf("# %.1f s CPU\n", cpu_s() - t0);
	rc = 0;
out:
	if (jobs_out && fclose(jobs_out)) {
		perror("bench_placement: --jobs");
		rc = 1;
	}
	gp__trace_destroy(philly);
	gp__sim_judge_destroy(judge);
	return rc;
}
