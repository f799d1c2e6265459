/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_sim.c - the simulator: determinism, conservation, and the baselines
 * and presets behaving as sim.h specifies on small hand-made traces.
 */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "model.h"
#include "cost.h"
#include "decide.h"
#include "request.h"
#include "sim.h"
#include "steer_rules.h"
#include "synth.h"
#include "trace.h"

/* ---- fixtures ----------------------------------------------------------- */

/* nodes x 8 GPUs in leaves of per_leaf nodes (8 nodes, 4 per leaf: n0-n3, n4-n7) under
 * one spine, racks of per_rack nodes at rack_kw (0 = room for all). */
static gp_cluster_t *cluster(int32_t nodes, int32_t per_leaf, int32_t per_rack, double rack_kw)
{
	gp_synth_params_t p;
	gp_cluster_t *c = NULL;
	gp_error_t err;

	gp__synth_defaults(&p);
	p.nodes = nodes;
	p.nodes_per_leaf = per_leaf;
	p.nodes_per_rack = per_rack;
	p.rack_kw = rack_kw;
	assert_int_equal(gp__synth_build(&p, &c, &err), GP_OK);
	if (rack_kw == 0) {
		/* the synthetic default is the racks' peak draw, which the site's
		 * power margin makes too tight for a full rack: room for all */
		p.rack_kw = 1.25 * c->racks[0].power_cap_kw;
		gp_cluster_destroy(c);
		assert_int_equal(gp__synth_build(&p, &c, &err), GP_OK);
	}
	return c;
}

/* A hand-made job.  Its time limit is its duration: the scenarios below
 * were drawn for a scheduler that knows run times, so their users ask for
 * exactly that (a job a slowdown pushes past it is killed there, sim.h);
 * a test that wants another limit sets limit_s itself. */
struct row {
	double submit, duration;
	int32_t gpus, nodes;
};

static gp_trace_t *trace_of(const struct row *rows, int32_t n)
{
	gp_trace_t *t = calloc(1, sizeof(*t));
	int32_t i;

	assert_non_null(t);
	t->jobs = calloc((size_t)n, sizeof(*t->jobs));
	assert_non_null(t->jobs);
	snprintf(t->name, sizeof(t->name), "hand-made");
	for (i = 0; i < n; i++) {
		t->jobs[i].id = (uint32_t)i + 1;
		t->jobs[i].submit_s = rows[i].submit;
		t->jobs[i].duration_s = rows[i].duration;
		t->jobs[i].gpus = rows[i].gpus;
		t->jobs[i].nodes = rows[i].nodes;
		t->jobs[i].limit_s = rows[i].duration;
	}
	t->njobs = n;
	return t;
}

/* A loaded random trace: sizes 1..32 GPUs, durations 10 s .. 3 h,
 * arrivals fast enough to keep a queue (xorshift, fixed seed). */
static gp_trace_t *random_trace(int32_t n, uint64_t seed, double gap_s)
{
	static const int32_t sizes[] = { 1, 1, 1, 2, 4, 8, 8, 16, 24, 32 };
	gp_trace_t *t = calloc(1, sizeof(*t));
	double now = 0;
	int32_t i;

	assert_non_null(t);
	t->jobs = calloc((size_t)n, sizeof(*t->jobs));
	assert_non_null(t->jobs);
	snprintf(t->name, sizeof(t->name), "random");
	for (i = 0; i < n; i++) {
		double u;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		u = (double)(seed >> 11) / 9007199254740992.0;
		t->jobs[i].id = (uint32_t)i + 1;
		t->jobs[i].submit_s = now;
		t->jobs[i].gpus = sizes[seed % 10];
		t->jobs[i].duration_s = 10.0 * pow(1080.0, u);
		now += gap_s * (double)((seed >> 20) % 100) / 50.0;
	}
	t->njobs = n;
	return t;
}

static void trace_free(gp_trace_t *t)
{
	if (!t)
		return;
	free(t->jobs);
	free(t);
}

static gp_sim_result_t *run(const gp_cluster_t *c, const gp_trace_t *t, const char *policy,
                            bool check)
{
	gp_sim_policy_t p;
	gp_sim_opts_t o;
	gp_sim_result_t *r = NULL;
	gp_error_t err = { "" };
	int rc;

	assert_int_equal(gp__sim_policy_parse(policy, c, &p, &err), GP_OK);
	gp__sim_opts_defaults(&o);
	o.check = check;
	rc = gp__sim_run(c, NULL, t, &p, &o, &r, &err);
	if (rc)
		fail_msg("%s: %s", policy, err.text);
	assert_non_null(r);
	return r;
}

static const char *const all_policies[] = {
	"first-fit", "tree", "balanced", "pack", "performance", "power-save", "balanced-ideal",
	"pack-ideal", "performance-ideal", "power-save-ideal", NULL
};

static bool is_ideal(const char *policy)
{
	return strstr(policy, "-ideal") != NULL;
}

/* ---- determinism ---------------------------------------------------------- */

/* Every job's fate equal, its full placement included (the pointers of
 * the node lists aside). */
static void same_jobs(const gp_sim_result_t *a, const gp_sim_result_t *b)
{
	int32_t j;

	for (j = 0; j < a->njobs; j++) {
		gp_sim_job_t x = a->jobs[j], y = b->jobs[j];

		assert_int_equal(x.nnodes, y.nnodes);
		assert_true(!x.nodes == !y.nodes);
		if (x.nodes) {
			assert_memory_equal(x.nodes, y.nodes, (size_t)x.nnodes * sizeof(*x.nodes));
			assert_memory_equal(x.node_gpus, y.node_gpus, (size_t)x.nnodes);
		}
		x.nodes = y.nodes = NULL;
		x.node_gpus = y.node_gpus = NULL;
		assert_memory_equal(&x, &y, sizeof(x));
	}
}

static void test_deterministic(void **state)
{
	gp_cluster_t *c = cluster(32, 8, 4, 0);
	gp_trace_t *t = random_trace(600, 7, 40);
	int i;

	(void)state;
	for (i = 0; all_policies[i]; i++) {
		gp_sim_result_t *a = run(c, t, all_policies[i], false);
		gp_sim_result_t *b = run(c, t, all_policies[i], false);

		assert_int_equal(a->njobs, b->njobs);
		assert_memory_equal(&a->m, &b->m, sizeof(a->m));
		same_jobs(a, b);
		assert_int_equal(a->nsamples, b->nsamples);
		assert_memory_equal(a->util, b->util, (size_t)a->nsamples * sizeof(*a->util));
		assert_memory_equal(a->rack_w, b->rack_w,
		                    (size_t)a->nsamples * (size_t)a->nracks * sizeof(*a->rack_w));
		gp__sim_result_destroy(a);
		gp__sim_result_destroy(b);
	}
	trace_free(t);
	gp_cluster_destroy(c);
}

/* ---- conservation --------------------------------------------------------- */

struct ev {
	double t;
	int32_t d;
};

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	/* ends before starts at the same instant */
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->d - y->d;
}

static void test_conservation(void **state)
{
	gp_cluster_t *c = cluster(32, 8, 4, 0);
	gp_trace_t *t = random_trace(800, 11, 25);
	int i;

	(void)state;
	for (i = 0; all_policies[i]; i++) {
		/* check mode verifies after every event that no GPU is booked
		 * twice, that the kept counters and rack draws equal the power
		 * model's recomputation, and that the engine's power view agrees */
		gp_sim_result_t *r = run(c, t, all_policies[i], true);
		struct ev *ev = calloc(2 * (size_t)r->njobs, sizeof(*ev));
		int32_t j, nev = 0, busy = 0, done = 0, rej = 0;

		assert_non_null(ev);
		for (j = 0; j < r->njobs; j++) {
			const gp_sim_job_t *J = &r->jobs[j];

			assert_int_equal(J->id, t->jobs[j].id);
			if (J->rejected) {
				assert_true(J->start_s < 0);
				rej++;
				continue;
			}
			/* started once, after its submission, ended once, after
			 * its duration stretched by its slowdown */
			assert_true(J->start_s >= J->submit_s);
			assert_true(J->slowdown >= 1.0);
			assert_true(fabs(J->end_s - (J->start_s + J->duration_s * J->slowdown)) < 1e-6);
			assert_int_equal(J->nnodes >= 1, 1);
			ev[nev++] = (struct ev){ J->start_s, J->gpus };
			ev[nev++] = (struct ev){ J->end_s, -J->gpus };
			done++;
		}
		assert_int_equal(done, r->m.completed);
		assert_int_equal(rej, r->m.rejected);
		assert_int_equal(done + rej, t->njobs);
		/* never more GPUs busy than the cluster has */
		qsort(ev, (size_t)nev, sizeof(*ev), cmp_ev);
		for (j = 0; j < nev; j++) {
			busy += ev[j].d;
			assert_true(busy >= 0);
			assert_true(busy <= gp_cluster_gpu_count(c));
		}
		assert_int_equal(busy, 0);
		assert_true(r->m.gpu_util > 0 && r->m.gpu_util <= 1.0);
		free(ev);
		gp__sim_result_destroy(r);
	}
	trace_free(t);
	gp_cluster_destroy(c);
}

/* ---- baselines and presets on hand-made traces ----------------------------- */

/* The synthetic cluster numbers its nodes in leaf order: node i is the
 * i-th node of the slurm.conf, nodes 0-3 under the first leaf. */
static int32_t node_index(const gp_cluster_t *c, int32_t i)
{
	assert_true(i < c->nnodes);
	assert_int_equal(c->nodes[i].order, (uint32_t)i);
	assert_int_equal(c->nodes[i].leaf, c->nodes[i < 4 ? 0 : 4].leaf);
	assert_true(c->nodes[0].leaf != c->nodes[4].leaf);
	return i;
}

/* FIFO: a job that does not fit waits, and the one behind it does not
 * jump ahead when it would delay it (EASY). */
static void test_fifo_and_easy_backfill(void **state)
{
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	static const struct row rows[] = {
		{ 0, 100, 32, 0 },   /* A: half the cluster until 100 */
		{ 1, 50, 64, 0 },    /* B: the whole cluster: waits for A, reserved at 100 */
		{ 2, 50, 8, 0 },     /* C: ends at 52 < 100: backfilled at once */
		{ 3, 200, 8, 0 },    /* D: would still run at 100 on B's GPUs: waits */
		{ 4, 20, 128, 0 },   /* E: more than the cluster: rejected */
	};
	gp_trace_t *t = trace_of(rows, 5);
	int i;

	(void)state;
	for (i = 0; all_policies[i]; i++) {
		gp_sim_result_t *r = run(c, t, all_policies[i], true);
		const gp_sim_job_t *A = &r->jobs[0], *B = &r->jobs[1], *C = &r->jobs[2],
		                   *D = &r->jobs[3], *E = &r->jobs[4];

		assert_true(A->start_s == 0);
		assert_true(B->start_s == A->end_s);
		assert_true(C->start_s == 2);
		assert_true(C->backfilled);
		assert_false(B->backfilled);
		assert_true(D->start_s >= B->end_s);
		assert_true(E->rejected);
		assert_int_equal(r->m.rejected, 1);
		assert_int_equal(r->m.completed, 4);
		gp__sim_result_destroy(r);
	}
	trace_free(t);
	gp_cluster_destroy(c);
}

/* With the reservation's GPUs left alone a long job may pass the queue. */
static void test_backfill_around_reservation(void **state)
{
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	static const struct row rows[] = {
		{ 0, 100, 40, 0 },   /* A: 5 nodes until 100 */
		{ 1, 50, 48, 0 },    /* B: 6 nodes: waits for A */
		{ 2, 500, 8, 0 },    /* C: 1 node for long: 3 free now, B needs 6 of 8 at 100 */
	};
	gp_trace_t *t = trace_of(rows, 3);
	int i;

	(void)state;
	for (i = 0; all_policies[i]; i++) {
		gp_sim_result_t *r = run(c, t, all_policies[i], true);
		bool baseline = i < 2;
		int32_t k;

		/* the baselines reserve the first six nodes, so C fits beside
		 * them; the engine may reserve others, but C never delays B.
		 * The plugin decides C at submission without Slurm's plan and
		 * may PIN it to a node planned for B; its steering reads the
		 * plan (B's SchedNodeList) at the refresh its decision asks
		 * for (250 ms later, state_thread.c) and moves C off it, so C
		 * does not wait for B to end */
		if (r->jobs[2].steered) {
			assert_false(baseline);
			assert_true(r->jobs[2].start_s == 2.25);
			for (k = 0; k < r->jobs[1].nnodes; k++)
				assert_int_not_equal(r->jobs[2].nodes[0], r->jobs[1].nodes[k]);
		} else if (baseline || r->jobs[2].start_s < r->jobs[1].start_s) {
			assert_true(r->jobs[2].start_s == 2);
		}
		if (baseline || r->jobs[2].start_s < r->jobs[1].start_s)
			assert_true(r->jobs[2].backfilled);
		assert_true(r->jobs[1].start_s == r->jobs[0].end_s);
		gp__sim_result_destroy(r);
	}
	trace_free(t);
	gp_cluster_destroy(c);
}

/* Backfill that plans several queued jobs (opts bf_resv), as Slurm's
 * backfill plans every job it tests (its node_space map): the second job
 * that cannot start gets a planned start too, and a long job behind may
 * not delay it.  8 nodes of 8 GPUs:
 *   A (6 nodes) runs until 100;
 *   B (7 nodes) waits: planned at 100 (A's end), until 200;
 *   C (8 nodes) waits: with two plans, planned at 200 (B's end);
 *   D (1 node, 500 s) fits now beside B's plan.  EASY plans B only, so D
 *   starts at 3 and C waits for D (503); with two plans D would hold a
 *   node at C's start, so D waits for C to end (300). */
static void test_backfill_plans_several(void **state)
{
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	static const struct row rows[] = {
		{ 0, 100, 48, 0 }, { 1, 100, 56, 0 }, { 2, 100, 64, 0 }, { 3, 500, 8, 0 },
	};
	static const char *const base[] = { "first-fit", "tree", NULL };
	gp_trace_t *t = trace_of(rows, 4);
	gp_error_t err = { "" };
	int i, k;

	(void)state;
	for (i = 0; base[i]; i++)
		for (k = 0; k < 3; k++) {
			static const int32_t plans[] = { 1, 2, 64 };
			gp_sim_policy_t p;
			gp_sim_opts_t o;
			gp_sim_result_t *r = NULL;

			assert_int_equal(gp__sim_policy_parse(base[i], c, &p, &err), GP_OK);
			gp__sim_opts_defaults(&o);
			assert_int_equal(o.bf_resv, 1); /* EASY by default */
			o.check = true;
			o.bf_resv = plans[k];
			if (gp__sim_run(c, NULL, t, &p, &o, &r, &err))
				fail_msg("%s, %d plans: %s", base[i], (int)plans[k], err.text);
			assert_true(r->jobs[1].start_s == 100);
			if (plans[k] == 1) {
				assert_true(r->jobs[3].start_s == 3);
				assert_true(r->jobs[3].backfilled);
				assert_true(r->jobs[2].start_s == 503);
			} else {
				assert_true(r->jobs[2].start_s == 200);
				assert_true(r->jobs[3].start_s == 300);
			}
			gp__sim_result_destroy(r);
		}
	/* 0 means the default; more than GP_SIM_MAX_BF_RESV is refused */
	for (k = 0; k < 2; k++) {
		gp_sim_policy_t p;
		gp_sim_opts_t o;
		gp_sim_result_t *r = NULL;

		assert_int_equal(gp__sim_policy_parse("tree", c, &p, &err), GP_OK);
		gp__sim_opts_defaults(&o);
		o.bf_resv = k == 0 ? 0 : GP_SIM_MAX_BF_RESV + 1;
		if (k == 0) {
			assert_int_equal(gp__sim_run(c, NULL, t, &p, &o, &r, &err), GP_OK);
			assert_true(r->jobs[3].start_s == 3);
			gp__sim_result_destroy(r);
		} else {
			assert_int_equal(gp__sim_run(c, NULL, t, &p, &o, &r, &err), GP_EINVAL);
			assert_non_null(strstr(err.text, "backfill plans"));
		}
	}
	trace_free(t);
	gp_cluster_destroy(c);
}

/* first-fit takes nodes in order across leaves; tree and gpuplace keep a
 * multi-node job under one leaf. */
static void test_first_fit_vs_tree(void **state)
{
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	static const struct row rows[] = {
		{ 0, 1000, 24, 0 },  /* 3 nodes: n0-n2 under su001 for every policy */
		{ 1, 100, 16, 0 },   /* 2 nodes: first-fit n3+n4 (two leaves), tree n4+n5 */
	};
	gp_trace_t *t = trace_of(rows, 2);
	int i;

	(void)state;
	for (i = 0; all_policies[i]; i++) {
		gp_sim_result_t *r = run(c, t, all_policies[i], true);
		const gp_sim_job_t *J = &r->jobs[1];

		assert_int_equal(J->nnodes, 2);
		if (!strcmp(all_policies[i], "first-fit")) {
			assert_int_equal(J->node0, node_index(c, 3));
			assert_int_equal(J->nleaves, 2);
			assert_int_equal(r->m.spread, 1);
		} else if (!strncmp(all_policies[i], "balanced", 8) ||
		           !strncmp(all_policies[i], "power-save", 10) ||
		           !strncmp(all_policies[i], "pack", 4)) {
			/* policies that weigh rack power or fragmentation may
			 * cross leaves when a set there takes a much smaller share
			 * of a rack's headroom or breaks fewer free nodes for a
			 * small slowdown (their score decides) */
			assert_true(J->nleaves == 1 || J->slowdown < 1.1);
			assert_true(J->start_s == 1);
		} else {
			assert_int_equal(J->nleaves, 1);
			assert_int_equal(r->m.spread, 0);
		}
		if (!strcmp(all_policies[i], "tree"))
			assert_int_equal(J->node0, node_index(c, 4));
		gp__sim_result_destroy(r);
	}
	trace_free(t);
	gp_cluster_destroy(c);
}

/* A one-node job: first-fit takes the first node with room, tree the one
 * with the fewest free GPUs that fits (best fit). */
static void test_tree_best_fit_node(void **state)
{
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	static const struct row rows[] = {
		{ 0, 10, 8, 0 },     /* n0, gone at 10 */
		{ 0, 1000, 4, 0 },   /* n1 half full */
		{ 0, 1000, 8, 0 },   /* n2 full */
		{ 20, 100, 4, 0 },   /* first-fit: n0 (first with 4 free); tree: n1 */
	};
	gp_trace_t *t = trace_of(rows, 4);
	gp_sim_result_t *ff, *tr;

	(void)state;
	ff = run(c, t, "first-fit", true);
	tr = run(c, t, "tree", true);
	assert_int_equal(ff->jobs[0].node0, node_index(c, 0));
	assert_int_equal(ff->jobs[1].node0, node_index(c, 1));
	assert_int_equal(ff->jobs[3].node0, node_index(c, 0));
	assert_int_equal(tr->jobs[3].node0, node_index(c, 1));
	/* best fit strands fewer free GPUs */
	assert_true(tr->m.frag_mean <= ff->m.frag_mean);
	gp__sim_result_destroy(ff);
	gp__sim_result_destroy(tr);
	trace_free(t);
	gp_cluster_destroy(c);
}

/* Racks that cannot power two busy nodes: the baselines start jobs past
 * the limit, the engine's presets never do. */
/* No start of r's a PIN decided took a rack over its limit. */
static void no_pin_over(const gp_sim_result_t *r, const char *policy)
{
	int32_t j;

	for (j = 0; j < r->njobs; j++)
		if (r->jobs[j].violation && r->jobs[j].decision != GP_SIM_DEC_CONSTRAIN)
			fail_msg("%s: job %u took a rack over its limit after a %d decision", policy,
			         r->jobs[j].id, (int)r->jobs[j].decision);
}

static void test_power_caps(void **state)
{
	/* racks of two synthetic H100 nodes with a limit (after the site's
	 * power margin) halfway between one and two nodes flat out */
	gp_cluster_t *c0 = cluster(8, 4, 2, 0);
	const gp_gpu_profile_t *g = &c0->profiles[c0->nodes[0].profile];
	double idle2 = 2 * (c0->nodes[0].base_w + 8 * g->idle_w);
	double one = idle2 + 8 * (g->tdp_w - g->idle_w), two = one + 8 * (g->tdp_w - g->idle_w);
	double cap_kw = (one + two) / 2 / (1.0 - c0->site.power_margin) / 1000.0;
	gp_cluster_t *c = cluster(8, 4, 2, cap_kw);
	static const struct row rows[] = {
		{ 0, 1000, 8, 0 }, { 1, 1000, 8, 0 }, { 2, 1000, 8, 0 }, { 3, 1000, 8, 0 },
		{ 4, 1000, 8, 0 }, { 5, 1000, 8, 0 },
	};
	gp_trace_t *t = trace_of(rows, 6);
	int i;

	(void)state;
	for (i = 0; all_policies[i]; i++) {
		gp_sim_result_t *r = run(c, t, all_policies[i], true);

		if (!strcmp(all_policies[i], "first-fit") || !strcmp(all_policies[i], "tree")) {
			assert_true(r->m.violations > 0);
			assert_true(r->m.violation_gpuh > 0);
			assert_true(r->m.peak_rack_frac > 1.0);
		} else if (is_ideal(all_policies[i])) {
			assert_int_equal(r->m.completed, 6);
			assert_int_equal(r->m.violations, 0);
			assert_true(r->m.violation_gpuh == 0);
			assert_true(r->m.peak_rack_frac <= 1.0 + 1e-9);
		} else if (!strcmp(all_policies[i], "power-save")) {
			/* a policy that weighs power: a PIN never takes a rack
			 * over its limit; a job CONSTRAINed to domains while
			 * racks lack power is placed by Slurm, which knows no
			 * power */
			assert_int_equal(r->m.completed, 6);
			no_pin_over(r, all_policies[i]);
		} else {
			/* one that does not, with no PowerLicenses or PowerHres:
			 * the racks' limits bind its sets only while the racks
			 * together are below the policy's knee (decide.c): never
			 * more starts over them than Slurm's */
			gp_sim_result_t *t0 = run(c, t, "tree", true);

			assert_int_equal(r->m.completed, 6);
			assert_true(r->m.violations <= t0->m.violations);
			gp__sim_result_destroy(t0);
		}
		gp__sim_result_destroy(r);
	}
	/* where Slurm holds every job to the racks' budgets (-budget, as the
	 * presets run where gpuplace.conf sets PowerLicenses or PowerHres):
	 * the limits bind the default's sets at any use, so no start of its
	 * goes over one */
	{
		gp_sim_result_t *r = run(c, t, "balanced-budget", true);

		assert_int_equal(r->m.completed, 6);
		assert_int_equal(r->m.violations, 0);
		gp__sim_result_destroy(r);
	}
	trace_free(t);
	gp_cluster_destroy(c);
	gp_cluster_destroy(c0);
}

/* Stock Slurm with the racks' power as hierarchical resources (the
 * "-budget" baselines): never a start over a rack's limit, the rest wait;
 * a two-node job whose leaf has room for one node per rack takes one node
 * in each of two racks.  The plain baselines on the same trace start every
 * job at once, past the limits. */
static void test_budget_baselines(void **state)
{
	/* racks of two nodes, a limit (with no margin: the violation limit)
	 * halfway between one and two nodes flat out; leaves of four nodes */
	gp_cluster_t *c0 = cluster(8, 4, 2, 0);
	const gp_gpu_profile_t *g = &c0->profiles[c0->nodes[0].profile];
	double idle2 = 2 * (c0->nodes[0].base_w + 8 * g->idle_w);
	double one = idle2 + 8 * (g->tdp_w - g->idle_w), two = one + 8 * (g->tdp_w - g->idle_w);
	gp_cluster_t *c = cluster(8, 4, 2, (one + two) / 2 / 1000.0);
	static const struct row rows[] = {
		{ 0, 1000, 16, 2 },  /* two nodes: one in each rack of leaf 0 */
		{ 1, 1000, 8, 0 }, { 2, 1000, 8, 0 },  /* one per rack of leaf 1 */
		{ 3, 1000, 8, 0 },   /* every rack has one busy node: waits */
		{ 4, 1000, 8, 0 },
	};
	static const char *const budget[] = { "first-fit-budget", "tree-budget",
	                                      "tree-switches-budget", NULL };
	gp_trace_t *t = trace_of(rows, 5);
	gp_sim_policy_t p;
	gp_error_t err;
	int i;

	(void)state;
	for (i = 0; budget[i]; i++) {
		gp_sim_result_t *r = run(c, t, budget[i], true), *plain;
		char base[32];

		assert_int_equal(r->m.completed, 5);
		assert_int_equal(r->m.violations, 0);
		assert_true(r->m.peak_rack_frac <= 1.0 + 1e-9);
		assert_int_equal(r->jobs[0].nracks, 2);
		assert_true(r->jobs[0].start_s == 0);
		assert_true(r->jobs[1].start_s == 1 && r->jobs[2].start_s == 2);
		assert_true(r->jobs[3].start_s >= 1000 && r->jobs[4].start_s >= 1000);
		snprintf(base, sizeof(base), "%.*s", (int)(strlen(budget[i]) - 7), budget[i]);
		plain = run(c, t, base, true);
		assert_true(plain->m.violations > 0);
		assert_true(plain->jobs[3].start_s < 1000);
		gp__sim_result_destroy(plain);
		gp__sim_result_destroy(r);
	}
	/* the presets as the plugin decides take the budget too (the site's
	 * PowerHres, or -budget); the -ideal bound places on its own */
	assert_int_equal(gp__sim_policy_parse("balanced-budget", c, &p, &err), GP_OK);
	assert_true(p.rack_budget && p.kind == GP_SIM_GPUPLACE);
	assert_int_equal(gp__sim_policy_parse("balanced", c, &p, &err), GP_OK);
	assert_false(p.rack_budget);
	assert_int_equal(gp__sim_policy_parse("balanced-ideal-budget", c, &p, &err), GP_EINVAL);
	assert_non_null(strstr(err.text, "-ideal"));
	assert_int_equal(gp__sim_policy_parse("tree-switches@60-budget", c, &p, &err), GP_OK);
	assert_true(p.rack_budget && p.kind == GP_SIM_TREE_SWITCHES && p.switch_wait_s == 60);
	trace_free(t);
	gp_cluster_destroy(c);
	gp_cluster_destroy(c0);
}

/*
 * The oversubscribed A100 example (etc/a100-oversub: racks of 4 DGX A100 at
 * 24 kW, 9.2 kW over idle for 64 GPUs of 350 W) with PowerHres set, on the
 * first 400 jobs of the trace scripts/setup.sh makes (load 0.9, seed 1,
 * the same size mix and longest run): every preset as the plugin decides
 * starts no job over a rack's limit, one-GPU and CONSTRAINed jobs
 * included, and completes every job; without the budget the same presets
 * and Slurm's tree do take racks over.  Prints each policy's throughput
 * against tree's, and the GPU-hours lost to placement and waited.
 */
static void test_presets_under_budget(void **state)
{
	static const char *const pols[] = { "tree", "tree-budget", "balanced", "pack",
		                             "performance", "power-save", NULL };
	gp_trace_synth_params_t sp;
	gp_trace_t *t = NULL;
	gp_cluster_t *c;
	gp_error_t err;
	double tree_tput = 0;
	int i;

	(void)state;
	if (gp_cluster_load_conf_dir(GP_SRCDIR "/etc/a100-oversub", &c, &err))
		fail_msg("a100-oversub: %s", err.text);
	gp__trace_synth_defaults(&sp);
	sp.jobs = 400;
	sp.seed = 1;
	sp.load = 0.9;
	sp.cluster_gpus = 640;
	sp.gpus_per_node = 8;
	sp.dur_max_s = 28800;
	if (gp__trace_parse_sizes("1:0.3,2:0.1,4:0.1,8:0.25,16:0.12,32:0.08,64:0.05", &sp, &err) ||
	    gp__trace_synth(&sp, &t, &err))
		fail_msg("trace: %s", err.text);
	/* without the budget: the presets take racks over too (what the
	 * budget is for) */
	{
		gp_sim_result_t *r = run(c, t, "balanced", false);

		assert_true(r->m.violations > 0);
		gp__sim_result_destroy(r);
	}
	snprintf(c->site.power_hres, sizeof(c->site.power_hres), "rackpower");
	print_message("# policy        tput  vs tree  lost-plc GPU-h  lost-wait GPU-h  violations\n");
	for (i = 0; pols[i]; i++) {
		gp_sim_result_t *r = run(c, t, pols[i], false);
		int32_t j, one = 0, constrained = 0;

		if (i == 0) {
			tree_tput = r->m.throughput;
			assert_true(r->m.violations > 0); /* Slurm alone knows no power */
		} else {
			assert_int_equal(r->m.completed, 400);
			assert_int_equal(r->m.violations, 0);
			assert_true(r->m.violation_gpuh == 0);
			assert_true(r->m.peak_rack_frac <= 1.0 + 1e-9);
			for (j = 0; j < r->njobs; j++) {
				one += r->jobs[j].gpus == 1;
				constrained += r->jobs[j].decision == GP_SIM_DEC_CONSTRAIN;
			}
			/* the jobs the plugin does not PIN were there to keep under */
			assert_true(one > 0);
			assert_true(i == 1 || constrained > 0);
		}
		print_message("# %-12s %6.1f %7.3f %15.0f %16.0f %11d\n", pols[i], r->m.throughput,
		              tree_tput > 0 ? r->m.throughput / tree_tput : 0, r->m.lost_place_gpuh,
		              r->m.lost_wait_gpuh, (int)r->m.violations);
		gp__sim_result_destroy(r);
	}
	/* PowerLicenses (a license per rack) is simulated as the same budget */
	c->site.power_hres[0] = '\0';
	snprintf(c->site.power_lic, sizeof(c->site.power_lic), "rackpw");
	{
		gp_sim_result_t *r = run(c, t, "balanced", false);

		assert_int_equal(r->m.completed, 400);
		assert_int_equal(r->m.violations, 0);
		gp__sim_result_destroy(r);
	}
	gp__trace_destroy(t);
	gp_cluster_destroy(c);
}

/* EASY with power: a job started around the reservation must leave the
 * reserved job the rack power it needs when its turn comes, so the
 * reserved job starts when it would have without the jobs behind it. */
static void test_backfill_keeps_reserved_power(void **state)
{
	/* one rack of two nodes whose limit (after the margin) holds ten
	 * GPUs at full power */
	gp_cluster_t *c0 = cluster(2, 2, 2, 0);
	const gp_gpu_profile_t *g = &c0->profiles[c0->nodes[0].profile];
	double idle = 2 * (c0->nodes[0].base_w + 8 * g->idle_w);
	double cap_kw = (idle + 10.5 * (g->tdp_w - g->idle_w)) / (1.0 - c0->site.power_margin) / 1000.0;
	gp_cluster_t *c = cluster(2, 2, 2, cap_kw);
	static const struct row rows[] = {
		{ 0, 100, 4, 0 },    /* 4 busy until 100 */
		{ 0, 1000, 2, 0 },   /* 6 busy */
		{ 0, 100, 8, 0 },    /* 14 would be too many: reserved at 100 */
		{ 0, 1000, 2, 0 },   /* fits now, but with it the reserved job would not at 100 */
	};
	gp_trace_t *t4 = trace_of(rows, 4), *t3 = trace_of(rows, 3);
	int i;

	(void)state;
	for (i = 2; all_policies[i]; i++) {
		gp_sim_result_t *a, *b;

		if (!is_ideal(all_policies[i]))
			continue; /* the reservation's power is the ideal mode's */
		a = run(c, t4, all_policies[i], true);
		b = run(c, t3, all_policies[i], true);
		if (strcmp(all_policies[i], "power-save-ideal")) {
			assert_true(b->jobs[2].start_s == 100);
		} else {
			/* power-save may cap GPUs: it starts at once, slower */
			assert_true(b->jobs[2].start_s == 0);
			assert_true(b->jobs[2].slowdown > 1.0);
		}
		assert_true(a->jobs[2].start_s == b->jobs[2].start_s);
		assert_int_equal(a->m.violations, 0);
		gp__sim_result_destroy(a);
		gp__sim_result_destroy(b);
	}
	trace_free(t4);
	trace_free(t3);
	gp_cluster_destroy(c);
	gp_cluster_destroy(c0);
}

/* Nodes the initial state marks down or drained are never used; a job
 * that needs more than the rest is rejected. */
static void test_initial_state_flags(void **state)
{
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	static const struct row rows[] = {
		{ 0, 100, 8, 0 }, { 0, 100, 1, 0 }, { 1, 50, 16, 0 }, { 2, 10, 4, 0 },
		{ 3, 10, 24, 0 },    /* three nodes: more than the two left */
	};
	gp_trace_t *t = trace_of(rows, 5);
	gp_state_t *s0 = NULL;
	int i, j;

	(void)state;
	assert_int_equal(gp_state_create(c, &s0), GP_OK);
	for (i = 0; i < 6; i++)
		s0->node_flags[i] = i % 2 ? GP_NODE_DRAIN : GP_NODE_DOWN;
	for (i = 0; all_policies[i]; i++) {
		gp_sim_policy_t p;
		gp_sim_opts_t o;
		gp_sim_result_t *r = NULL;
		gp_error_t err = { "" };

		assert_int_equal(gp__sim_policy_parse(all_policies[i], c, &p, &err), GP_OK);
		gp__sim_opts_defaults(&o);
		o.check = true;
		if (gp__sim_run(c, s0, t, &p, &o, &r, &err))
			fail_msg("%s: %s", all_policies[i], err.text);
		for (j = 0; j < 4; j++) {
			assert_false(r->jobs[j].rejected);
			assert_true(r->jobs[j].node0 >= 6);
		}
		assert_true(r->jobs[4].rejected);
		gp__sim_result_destroy(r);
	}
	gp_state_destroy(s0);
	trace_free(t);
	gp_cluster_destroy(c);
}

/* A spread placement runs longer than a compact one: slowdown from the
 * cost model stretches the run time. */
static void test_slowdown_stretches_run_time(void **state)
{
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	static const struct row rows[] = {
		{ 0, 1000, 24, 0 },
		{ 1, 100, 16, 0 },
	};
	gp_trace_t *t = trace_of(rows, 2);
	gp_sim_result_t *ff, *tr;

	(void)state;
	t->jobs[1].limit_s = 1000; /* room to run its slowdown out */
	ff = run(c, t, "first-fit", true);
	tr = run(c, t, "tree", true);
	assert_true(ff->jobs[1].slowdown > tr->jobs[1].slowdown);
	assert_true(ff->jobs[1].end_s - ff->jobs[1].start_s > tr->jobs[1].end_s - tr->jobs[1].start_s);
	assert_true(tr->jobs[0].slowdown == 1.0);
	gp__sim_result_destroy(ff);
	gp__sim_result_destroy(tr);
	trace_free(t);
	gp_cluster_destroy(c);
}

/* The engine's power view in the simulator is the plugin's
 * (gp__power_view_fill): a rack's draw comes from its unfloored headroom,
 * so racks far below the knee add nothing to a set's score.  8 nodes x 8
 * GPUs, leaves of 4 nodes, racks of 2, caps 1.25 x the racks' peak draw
 * (cluster()): A (16 GPUs) at 0 on the idle cluster is placed as with
 * the power term weighing nothing, in one rack (a view whose draw read as
 * the whole limit put every rack past the knee, and the term spread A's
 * watts over two racks). */
static void test_power_view_below_knee(void **state)
{
	static const struct row rows[] = { { 0, 100, 16, 0 } };
	gp_cluster_t *c = cluster(8, 4, 2, 0);
	gp_trace_t *t = trace_of(rows, 1);
	gp_sim_result_t *b = run(c, t, "balanced", true), *z;
	gp_sim_policy_t p;
	gp_sim_opts_t o;
	gp_error_t err = { "" };

	(void)state;
	assert_int_equal(gp__sim_policy_parse("balanced", c, &p, &err), GP_OK);
	p.policy.w_power = 0;
	gp__sim_opts_defaults(&o);
	o.check = true;
	z = NULL;
	assert_int_equal(gp__sim_run(c, NULL, t, &p, &o, &z, &err), GP_OK);
	assert_int_equal(b->jobs[0].nnodes, 2);
	assert_int_equal(b->jobs[0].nracks, 1);
	assert_int_equal(b->jobs[0].nracks, z->jobs[0].nracks);
	assert_memory_equal(b->jobs[0].nodes, z->jobs[0].nodes, 2 * sizeof(int32_t));
	gp__sim_result_destroy(b);
	gp__sim_result_destroy(z);
	trace_free(t);
	gp_cluster_destroy(c);
}

/* ---- plugin-faithful mode ---------------------------------------------------- */

/* The plugin decides at submission with the state it read at its last
 * refresh (every 2 s) plus its own PINs.  8 nodes x 8 GPUs, leaves n0-n3
 * and n4-n7.  A (32 GPUs, ends at 10.5) and X (24 GPUs, long) start at 0;
 * B (32 GPUs) arrives at 11, when A has ended; the plugin's last read (at
 * 10) still lists A, running past its end, so the engine counts its GPUs
 * free and PINs B to A's leaf (a view whose node masks and job list did
 * not come from the same read would see one free node and CONSTRAIN).  C
 * (8 GPUs) arrives at 13 and is PINned to the last free node.  On the idle
 * cluster (A, X) the shipped and the upper-bound mode make the same engine
 * call and so give the same nodes. */
static void test_plugin_faithful(void **state)
{
	static const struct row rows[] = {
		{ 0, 10.5, 32, 0 }, { 0, 1000, 24, 0 }, { 11, 100, 32, 0 }, { 13, 100, 8, 0 },
	};
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	gp_trace_t *t = trace_of(rows, 4);
	gp_sim_result_t *f = run(c, t, "performance", true), *u = run(c, t, "performance-ideal", true);
	int32_t j, k;

	(void)state;
	for (j = 0; j < 2; j++) {
		assert_int_equal(f->jobs[j].decision, GP_SIM_DEC_PIN);
		assert_int_equal(f->jobs[j].nnodes, u->jobs[j].nnodes);
		assert_memory_equal(f->jobs[j].nodes, u->jobs[j].nodes,
		                    (size_t)f->jobs[j].nnodes * sizeof(int32_t));
		assert_true(f->jobs[j].start_s == 0);
	}
	assert_int_equal(f->jobs[2].decision, GP_SIM_DEC_PIN);
	assert_true(f->jobs[2].start_s == 11);
	assert_int_equal(f->jobs[2].nnodes, 4);
	for (k = 0; k < 4; k++)
		assert_int_equal(c->nodes[f->jobs[2].nodes[k]].leaf, c->nodes[f->jobs[0].nodes[0]].leaf);
	assert_int_equal(f->jobs[3].decision, GP_SIM_DEC_PIN);
	assert_true(f->jobs[3].start_s == 13);
	gp__sim_result_destroy(f);
	gp__sim_result_destroy(u);
	trace_free(t);
	gp_cluster_destroy(c);
}

/* The ledger between refreshes: X (32 GPUs) runs on one leaf from 0 to
 * 0.5; at 1 the plugin (last read at 0) PINs Y (32 GPUs) to a leaf; Z (32
 * GPUs) arrives at 1.5, before the next read: only the ledger tells it
 * that Y holds its leaf, and Z is PINned to the other one.  Both start at
 * once: no job waits for pinned nodes another decision took. */
static void test_plugin_faithful_ledger(void **state)
{
	static const struct row rows[] = {
		{ 0, 0.5, 32, 0 }, { 1, 100, 32, 0 }, { 1.5, 100, 32, 0 },
	};
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	gp_trace_t *t = trace_of(rows, 3);
	gp_sim_result_t *f = run(c, t, "performance", true);

	(void)state;
	assert_int_equal(f->jobs[1].decision, GP_SIM_DEC_PIN);
	assert_true(f->jobs[1].start_s == 1);
	assert_int_equal(f->jobs[2].decision, GP_SIM_DEC_PIN);
	assert_true(f->jobs[2].start_s == 1.5);
	assert_true(c->nodes[f->jobs[1].nodes[0]].leaf != c->nodes[f->jobs[2].nodes[0]].leaf);
	gp__sim_result_destroy(f);
	trace_free(t);
	gp_cluster_destroy(c);
}

/* A preset as the plugin runs it, with its steering on (the preset's
 * gpuplace_steer_max) or off (steer_max 0). */
static gp_sim_result_t *run_steer(const gp_cluster_t *c, const gp_trace_t *t, const char *policy,
                                  bool steer)
{
	gp_sim_policy_t p;
	gp_sim_opts_t o;
	gp_sim_result_t *r = NULL;
	gp_error_t err = { "" };

	assert_int_equal(gp__sim_policy_parse(policy, c, &p, &err), GP_OK);
	assert_true(p.policy.steer_max > 0);
	if (!steer)
		p.policy.steer_max = 0;
	gp__sim_opts_defaults(&o);
	o.check = true;
	if (gp__sim_run(c, NULL, t, &p, &o, &r, &err))
		fail_msg("%s: %s", policy, err.text);
	assert_non_null(r);
	return r;
}

/* The ledger holds a CONSTRAIN's set too (plugin/job_submit_gpuplace.c
 * books every decision's first set that is free now), and its guess of
 * where Slurm starts a job it passed.  8 nodes x 8 GPUs, leaves
 * gpu0001-0004 and gpu0005-0008: P (1 GPU) passes at 0, booked on
 * gpu0001, the first node in Slurm's order, where Slurm starts it; until a
 * refresh lists it started (at 0.25, the gap after the pass woke the
 * plugin's thread) that is a guess, so A (16 GPUs, at 0.1) is CONSTRAINed
 * to the leaf of its set, gpu0001-0004 (which keeps the other leaf
 * whole), not PINned, and Slurm starts it there at once.  B (16 GPUs)
 * arrives at 0.2, before that refresh: only the ledger tells the plugin
 * that A holds two of the three whole nodes left on that leaf, so B's set
 * is on the other leaf and it starts at once too (without A's entry it
 * would wait for A there). */
static void test_plugin_faithful_ledger_constrain(void **state)
{
	static const struct row rows[] = {
		{ 0, 1000, 1, 0 }, { 0.1, 100, 16, 0 }, { 0.2, 100, 16, 0 },
	};
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	gp_trace_t *t = trace_of(rows, 3);
	gp_sim_result_t *f = run_steer(c, t, "performance", false);

	(void)state;
	assert_int_equal(f->jobs[1].decision, GP_SIM_DEC_CONSTRAIN);
	assert_true(f->jobs[1].start_s == 0.1);
	assert_true(f->jobs[2].start_s == 0.2);
	assert_true(c->nodes[f->jobs[1].nodes[0]].leaf != c->nodes[f->jobs[2].nodes[0]].leaf);
	gp__sim_result_destroy(f);
	trace_free(t);
	gp_cluster_destroy(c);
}

/* The plugin's guess of where Slurm starts a job it passed holds only
 * GP_LEDGER_GRACE_S while the job pends (plugin/ledger.c ledger_drops):
 * after that the job waits for resources and holds none, and no longer
 * keeps the plugin from PINning.  8 nodes x 8 GPUs: X (48 GPUs) runs from
 * 0 to 1000; T (64 GPUs, at 0) holds the backfill reservation for 1000 on
 * every node; P (1 GPU, 5000 s, at 1) is booked on gpu0007 but cannot
 * backfill (it would delay T) and pends; Q (16 GPUs, 100 s) arrives at 30,
 * many refreshes later: PINned to the two free nodes, it backfills at
 * once. */
static void test_plugin_faithful_guess_expires(void **state)
{
	static const struct row rows[] = {
		{ 0, 1000, 48, 0 }, { 0, 100, 64, 0 }, { 1, 5000, 1, 0 }, { 30, 100, 16, 0 },
	};
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	gp_trace_t *t = trace_of(rows, 4);
	gp_sim_result_t *f = run_steer(c, t, "performance", false);

	(void)state;
	assert_true(f->jobs[1].start_s == 1000);
	assert_true(f->jobs[2].start_s >= 1000); /* P pends past Q's arrival */
	assert_int_equal(f->jobs[3].decision, GP_SIM_DEC_PIN);
	assert_true(f->jobs[3].start_s == 30);
	gp__sim_result_destroy(f);
	trace_free(t);
	gp_cluster_destroy(c);
}

/*
 * The plugin's steering, hand-worked, on 8 nodes x 8 GPUs (leaves
 * gpu0001-0004 and gpu0005-0008), the performance preset (steer_max 8,
 * steer_interval 30 s), refreshes every 2 s:
 *   t=0  A (32 GPUs, 1000 s) is PINned to gpu0001-0004 and starts;
 *   t=0.5  B (48 GPUs, 3000 s) cannot fit: CONSTRAINed, first in the
 *        queue, it holds the backfill reservation for t=1000 on
 *        gpu0001-0006;
 *   t=0.6  C (16 GPUs, 5000 s) is decided on the state the plugin read
 *        at 0.25, before B's plan (the refresh B's decision asks for comes
 *        at 0.75): PINned to gpu0005-0006, free in the plugin's view, it
 *        cannot backfill: it would run past 1000 on GPUs reserved for B;
 *   t=1000  A ends, B starts on gpu0001-0006.
 * Without steering C waits for exactly those nodes until B ends: start
 * 4000.  With it, the refresh at 0.75 finds C's nodes planned for B,
 * ahead of it (B's SchedNodeList, as Slurm's backfill shows it): taken
 * for C.  It re-decides C with B's planned nodes held and PINs it to
 * gpu0007-0008, free: start 0.75 (before steering read Slurm's plan, C
 * was moved only when B took its nodes, at 1002; a job decided after
 * that refresh is PINned off B's nodes at once,
 * test_pin_keeps_off_planned_nodes).  The move is the one the plugin's
 * steer_decide makes on that state: the same rules
 * (cost_model/steer_rules.h) and the same engine call on the same view give the
 * same nodes.
 */
/* The ledger holds a PIN while its job pends, however long (plugin/
 * ledger.c ledger_drops), not only until the next refreshes.  8 nodes x 8
 * GPUs, leaves gpu0001-0004 and gpu0005-0008, steering off:
 *   t=0  A (32 GPUs, 1000 s) and E (16 GPUs, 5000 s) are PINned and start;
 *   t=0.5  B (48 GPUs) cannot fit: CONSTRAINed, first in the queue, it
 *        holds the backfill reservation for t=1000 on A's nodes and the
 *        two free;
 *   t=0.6  C (16 GPUs, 5000 s), decided on the state the plugin read at
 *        0.25, before B's plan, is PINned to those two, but cannot
 *        backfill: it would run past 1000 on GPUs reserved for B; it
 *        pends;
 *   t=30 D (16 GPUs) arrives, many refreshes later.  C's PIN still holds
 *        its nodes in the plugin's view, so nothing is free for D: it is
 *        not PINned to C's nodes (two jobs PINned to the same GPUs, one of
 *        which waits for the other). */
static void test_plugin_faithful_ledger_pending(void **state)
{
	static const struct row rows[] = {
		{ 0, 1000, 32, 0 }, { 0, 5000, 16, 0 }, { 0.5, 3000, 48, 0 }, { 0.6, 5000, 16, 0 },
		{ 30, 100, 16, 0 },
	};
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	gp_trace_t *t = trace_of(rows, 5);
	gp_sim_result_t *f = run_steer(c, t, "performance", false);
	int32_t k, m;

	(void)state;
	assert_int_equal(f->jobs[3].decision, GP_SIM_DEC_PIN);
	assert_true(f->jobs[3].start_s > 30); /* C pends past D's arrival */
	for (k = 0; k < f->jobs[4].nnodes && f->jobs[4].decision == GP_SIM_DEC_PIN; k++)
		for (m = 0; m < f->jobs[3].nnodes; m++)
			assert_int_not_equal(f->jobs[4].nodes[k], f->jobs[3].nodes[m]);
	assert_int_not_equal(f->jobs[4].decision, GP_SIM_DEC_PIN);
	gp__sim_result_destroy(f);
	trace_free(t);
	gp_cluster_destroy(c);
}

static void test_plugin_faithful_steering(void **state)
{
	static const struct row rows[] = {
		{ 0, 1000, 32, 0 }, { 0.5, 3000, 48, 0 }, { 0.6, 5000, 16, 0 },
	};
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	gp_trace_t *t = trace_of(rows, 3);
	gp_sim_result_t *on, *off;
	gp_sim_policy_t sp;
	gp_steer_job_t st;
	gp_policy_t pol;
	gp_state_t *s = NULL;
	gp_engine_t *e = NULL;
	gp_cost_scratch_t *scratch = NULL;
	gp_job_profile_t job;
	gp_request_t r;
	gp_decision_t d;
	gp_error_t err;
	char why[160];
	double comm = 0;
	int32_t k, gpn8 = 0xff, bnodes[6];
	gp_steer_cand_t kc = { .job_id = 3, .priority = 1, .submit_time = 1, .pinned = true };
	gp_steer_plan_t plan = { .job_id = 2, .priority = 1, .submit_time = 0, .start_time = 1000,
	                         .nodes = bnodes, .nnodes = 6 };

	(void)state;
	t->jobs[2].comm_fraction = 0.2; /* C's profile, rebuilt below */
	on = run_steer(c, t, "performance", true);
	off = run_steer(c, t, "performance", false);
	/* the same until C */
	for (k = 0; k < 2; k++) {
		assert_int_equal(on->jobs[k].decision, off->jobs[k].decision);
		assert_true(on->jobs[k].start_s == off->jobs[k].start_s);
		assert_false(on->jobs[k].steered);
	}
	assert_int_equal(on->jobs[0].decision, GP_SIM_DEC_PIN);
	assert_int_equal(on->jobs[1].decision, GP_SIM_DEC_CONSTRAIN);
	assert_true(on->jobs[1].start_s == 1000);
	assert_int_equal(on->jobs[1].nnodes, 6);
	for (k = 0; k < 6; k++)
		assert_int_equal(on->jobs[1].nodes[k], gp__node_find(c, (const char *[]){
			"gpu0001", "gpu0002", "gpu0003", "gpu0004", "gpu0005", "gpu0006" }[k]));
	/* without steering: C waits for its pinned nodes until B ends */
	assert_int_equal(off->jobs[2].decision, GP_SIM_DEC_PIN);
	assert_false(off->jobs[2].steered);
	assert_true(off->jobs[2].start_s == 4000);
	assert_int_equal(off->jobs[2].nodes[0], gp__node_find(c, "gpu0005"));
	assert_int_equal(off->jobs[2].nodes[1], gp__node_find(c, "gpu0006"));
	assert_int_equal(off->m.steered, 0);
	assert_int_equal(off->m.steer_evals, 0);
	/* with it: moved at the first refresh after its submission, which
	 * its decision asked for (the gap after it, state_thread.c) */
	assert_int_equal(on->jobs[2].decision, GP_SIM_DEC_PIN); /* as logged at submission */
	assert_true(on->jobs[2].steered);
	assert_true(on->jobs[2].start_s == 0.75);
	assert_int_equal(on->jobs[2].nnodes, 2);
	assert_int_equal(on->jobs[2].nodes[0], gp__node_find(c, "gpu0007"));
	assert_int_equal(on->jobs[2].nodes[1], gp__node_find(c, "gpu0008"));
	assert_int_equal(on->m.steered, 1);
	assert_true(on->jobs[2].end_s < off->jobs[2].end_s);

	/* the plugin's rules and engine call on the state of the refresh at
	 * 1.25 (second 1): A on gpu0001-0004, B planned on gpu0001-0006, C
	 * PINned at 1 to gpu0005-0006 */
	assert_int_equal(gp__sim_policy_parse("performance", c, &sp, &err), GP_OK);
	gp_steer_job_init(&st, true, 1, 0.0, false);
	assert_true(gp_steer_budget(&sp.policy, 0, 0));
	assert_true(gp_steer_due(&st, &sp.policy, 1));
	assert_int_equal(gp_state_create(c, &s), GP_OK);
	for (k = 0; k < 4; k++)
		s->alloc_mask[on->jobs[0].nodes[k]] = (uint32_t)gpn8;
	for (k = 0; k < 6; k++)
		bnodes[k] = on->jobs[1].nodes[k];
	s->time = 1;
	/* free, but planned for B: taken for C */
	assert_false(gp_steer_node_taken(s->node_flags[off->jobs[2].nodes[0]], (uint32_t)gpn8,
	                                 s->alloc_mask[off->jobs[2].nodes[0]], 8));
	assert_int_equal(gp_steer_hold_planned(&kc, 1 + 5000, &plan, 1, s->node_flags, c->nnodes), 6);
	assert_true(gp_steer_node_taken(s->node_flags[off->jobs[2].nodes[0]], (uint32_t)gpn8,
	                                s->alloc_mask[off->jobs[2].nodes[0]], 8));
	assert_int_equal(gp_steer_redecide(&st, &sp.policy, 1, true, &pol, why, sizeof(why)), 1);
	assert_string_equal(why, "its pinned nodes were taken");
	/* C's profile as the simulator builds it (sim.c, shape_get): the
	 * default data-parallel one, its compute time making communication
	 * 20 % of the ideal step */
	assert_int_equal(gp__cost_scratch_new(c, 64, &scratch), GP_OK);
	gp__job_profile_default(c, 16, &job);
	job.nodes = 2;
	job.gpus_per_node = 8;
	assert_int_equal(gp__cost_ideal(c, &job, -1, scratch, &comm, NULL), GP_OK);
	job.compute_s = comm * 0.8 / 0.2;
	gp__request_init(&r);
	r.gpus = 16;
	r.min_nodes = r.max_nodes = 2;
	r.gpus_per_node = 8;
	r.partition = gp__request_partition(&r, c);
	if (r.partition < 0 && c->nparts > 0)
		r.partition = 0;
	r.time_limit_min = 84; /* 5000 s in minutes, rounded up */
	assert_int_equal(gp__engine_create(c, &e, &err), GP_OK);
	assert_int_equal(gp__decide(e, s, &r, &job, &pol, NULL, 1, NULL, 0, &d, &err), GP_OK);
	assert_true(gp_steer_moves(&d));
	assert_int_equal(d.cands[0].nnodes, on->jobs[2].nnodes);
	assert_memory_equal(d.cands[0].nodes, on->jobs[2].nodes, 2 * sizeof(int32_t));
	/* Slurm's plan for it, if it had one as compact that started soon,
	 * would keep it (steer_rules.h, gp_steer_plan_keeps); B's plan is
	 * not C's */
	plan.job_id = 3;
	plan.start_time = 1;
	plan.nnodes = 2;
	assert_true(gp_steer_plan_keeps(c, &pol, &plan, &d.cands[0], 1));
	plan.start_time = 1 + pol.steer_interval_s + 1;
	assert_false(gp_steer_plan_keeps(c, &pol, &plan, &d.cands[0], 1));
	plan.start_time = 1;
	plan.nnodes = 6; /* over both leaves: less compact than the move */
	assert_false(gp_steer_plan_keeps(c, &pol, &plan, &d.cands[0], 1));
	gp_steer_moved(&st, 1);
	assert_false(gp_steer_due(&st, &sp.policy, 3)); /* not again within 30 s */
	gp__decision_clear(&d);
	gp__request_clear(&r);
	gp__engine_destroy(e);
	gp__cost_scratch_destroy(scratch);
	gp_state_destroy(s);
	gp__sim_result_destroy(on);
	gp__sim_result_destroy(off);
	trace_free(t);
	gp_cluster_destroy(c);
}

/*
 * Steering keeps off the nodes Slurm's backfill planned for a job ahead
 * (its SchedNodeList).  8 nodes x 8 GPUs (leaves gpu0001-0004 and
 * gpu0005-0008), the performance preset:
 *   t=0  A (32 GPUs, 1000 s) starts on gpu0001-0004; B (48 GPUs) cannot
 *        fit: first in the queue, it holds the reservation for t=1000 on
 *        gpu0001-0006; G (16 GPUs, 10 s) backfills on gpu0005-0006 (it
 *        ends before 1000); E (1 GPU, 500 s, let through) backfills on
 *        gpu0007;
 *   t=3  D (16 GPUs, 5000 s): no two nodes free: CONSTRAINed to the
 *        leaf gpu0005-0008;
 *   t=10 G ends: gpu0005-0006 are free, but planned for B.
 * The old steering re-pinned D there at the next refresh; D could not
 * start on them (it runs past 1000 on GPUs reserved for B) and waited
 * until B took them, then was steered again: start 1002.  Steering that
 * keeps off B's planned nodes leaves D where it is, and Slurm starts it
 * when E ends: 500, on gpu0007-0008.
 */
static void test_steering_keeps_off_planned_nodes(void **state)
{
	static const struct row rows[] = {
		{ 0, 1000, 32, 0 }, { 0, 3000, 48, 0 }, { 0, 10, 16, 0 }, { 0, 500, 1, 0 },
		{ 3, 5000, 16, 0 },
	};
	static const char *const bnodes[] = { "gpu0001", "gpu0002", "gpu0003", "gpu0004",
	                                      "gpu0005", "gpu0006" };
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	gp_trace_t *t = trace_of(rows, 5);
	gp_sim_result_t *on;
	gp_steer_cand_t kb = { .job_id = 2, .priority = 1, .submit_time = 0 };
	gp_steer_cand_t kd = { .job_id = 5, .priority = 1, .submit_time = 3 };
	gp_steer_plan_t plan = { .job_id = 2, .priority = 1, .submit_time = 0, .start_time = 1000 };
	int32_t planned[6], k;
	uint32_t *flags;

	(void)state;
	on = run_steer(c, t, "performance", true);
	assert_true(on->jobs[0].start_s == 0);
	assert_true(on->jobs[1].start_s == 1000);
	assert_int_equal(on->jobs[1].nnodes, 6);
	for (k = 0; k < 6; k++) {
		planned[k] = gp__node_find(c, bnodes[k]);
		assert_int_equal(on->jobs[1].nodes[k], planned[k]);
	}
	assert_true(on->jobs[2].start_s == 0);
	assert_int_equal(on->jobs[2].nodes[0], gp__node_find(c, "gpu0005"));
	assert_true(on->jobs[3].start_s == 0);
	assert_int_equal(on->jobs[3].nodes[0], gp__node_find(c, "gpu0007"));
	/* D: not moved onto B's planned nodes; started where its decision
	 * kept it, when E ended */
	assert_int_equal(on->jobs[4].decision, GP_SIM_DEC_CONSTRAIN);
	assert_false(on->jobs[4].steered);
	assert_int_equal(on->m.steered, 0);
	assert_true(on->jobs[4].start_s == 500);
	assert_int_equal(on->jobs[4].nnodes, 2);
	assert_int_equal(on->jobs[4].nodes[0], gp__node_find(c, "gpu0007"));
	assert_int_equal(on->jobs[4].nodes[1], gp__node_find(c, "gpu0008"));

	/* the shared rule on that plan: B's nodes are held for D, which is
	 * behind B, and not for B itself */
	plan.nodes = planned;
	plan.nnodes = 6;
	flags = calloc((size_t)c->nnodes, sizeof(*flags));
	assert_non_null(flags);
	assert_int_equal(gp_steer_hold_planned(&kb, 12 + 3000, &plan, 1, flags, c->nnodes), 0);
	/* a job that ends by B's planned start could backfill there */
	assert_int_equal(gp_steer_hold_planned(&kd, 12 + 988, &plan, 1, flags, c->nnodes), 0);
	assert_int_equal(gp_steer_hold_planned(&kd, 12 + 5000, &plan, 1, flags, c->nnodes), 6);
	for (k = 0; k < c->nnodes; k++)
		assert_int_equal(!!(flags[k] & GP_NODE_RESERVED), k == planned[0] || k == planned[1] ||
		                 k == planned[2] || k == planned[3] || k == planned[4] || k == planned[5]);
	free(flags);
	gp__sim_result_destroy(on);
	trace_free(t);
	gp_cluster_destroy(c);
}

/*
 * A new job is not PINned onto the nodes Slurm's backfill planned for the
 * jobs that wait before it (their SchedNodeList; plugin/
 * job_submit_gpuplace.c, as the steering pass).  8 nodes x 8 GPUs (leaves
 * gpu0001-0004 and gpu0005-0008), the performance preset, steering off:
 *   t=0  A (32 GPUs, 1000 s) starts on gpu0001-0004; B (48 GPUs, 3000 s)
 *        cannot fit: first in the queue, it holds the reservation for
 *        t=1000 on gpu0001-0006.
 *   t=1  D (16 GPUs on 2 nodes, 5000 s): gpu0005-0008 are free; D runs
 *        past 1000, so gpu0005-0006 are B's from then on.  PINned there,
 *        D could not start before B ended (4000); on gpu0007-0008 it
 *        starts at once.
 */
static void test_pin_keeps_off_planned_nodes(void **state)
{
	static const struct row rows[] = {
		{ 0, 1000, 32, 0 }, { 0, 3000, 48, 0 }, { 1, 5000, 16, 2 },
	};
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	gp_trace_t *t = trace_of(rows, 3);
	gp_sim_result_t *r;

	(void)state;
	r = run_steer(c, t, "performance", false);
	assert_true(r->jobs[0].start_s == 0);
	assert_true(r->jobs[1].start_s == 1000);
	assert_int_equal(r->jobs[1].nnodes, 6);
	assert_int_equal(r->jobs[2].decision, GP_SIM_DEC_PIN);
	assert_true(r->jobs[2].start_s < 2);
	assert_int_equal(r->jobs[2].nnodes, 2);
	assert_int_equal(r->jobs[2].nodes[0], gp__node_find(c, "gpu0007"));
	assert_int_equal(r->jobs[2].nodes[1], gp__node_find(c, "gpu0008"));
	gp__sim_result_destroy(r);
	trace_free(t);
	gp_cluster_destroy(c);
}

/* A plugin-faithful run of the balanced preset (gpuplace_max_wait 1800 s,
 * gpuplace_wait_gain 0.05) on c with gpu0007-0008 and gpu0011-0012
 * drained; steering on or off. */
static gp_sim_result_t *switch_run(const gp_cluster_t *c, const gp_trace_t *t, bool steer)
{
	static const char *const drained[] = { "gpu0007", "gpu0008", "gpu0011", "gpu0012" };
	gp_sim_policy_t p;
	gp_sim_opts_t o;
	gp_sim_result_t *r = NULL;
	gp_state_t *s0 = NULL;
	gp_error_t err = { "" };
	int32_t k;

	assert_int_equal(gp_state_create(c, &s0), GP_OK);
	for (k = 0; k < 4; k++)
		s0->node_flags[gp__node_find(c, drained[k])] |= GP_NODE_DRAIN;
	assert_int_equal(gp__sim_policy_parse("balanced", c, &p, &err), GP_OK);
	if (!steer)
		p.policy.steer_max = 0;
	gp__sim_opts_defaults(&o);
	o.check = true;
	if (gp__sim_run(c, s0, t, &p, &o, &r, &err))
		fail_msg("%s", err.text);
	gp_state_destroy(s0);
	return r;
}

/* Job j of r ran on exactly the nodes named. */
static void ran_on(const gp_cluster_t *c, const gp_sim_result_t *r, int32_t j,
                   const char *const *names)
{
	int32_t k;

	assert_int_equal(r->jobs[j].nnodes, 4);
	for (k = 0; k < 4; k++)
		assert_int_equal(r->jobs[j].nodes[k], gp__node_find(c, names[k]));
}

/*
 * Slurm's --switches wait as the plugin asks for it (plugin/
 * job_submit_gpuplace.c: a CONSTRAIN that waits, topology/tree, one
 * Weight, no --switches of the user's), hand-worked.  12 nodes x 8 GPUs,
 * every node Weight 1, leaves L1 gpu0001-0004, L2 gpu0005-0008, L3
 * gpu0009-0012 with 4:1 oversubscribed uplinks, gpu0007-0008 and
 * gpu0011-0012 drained: the free nodes outside L1 are gpu0005-0006 and
 * gpu0009-0010, over two leaves.  Every job has 4 nodes x 8 GPUs and a
 * communication share of 0.4.
 *   t=0  A (101 s) is PINned to L1 and starts.
 *   t=3  C (3600 s): spread now over L2 and L3 it runs 3600 x s s (s > 1,
 *        the cost model's slowdown on the oversubscribed spine); on L1,
 *        free at 101, it runs 3600 s: it waits (predicted wait 98 s).
 *        gp_switch_request: count 1 leaf; the wait that still pays is
 *        (1 - 0.05) x 3600 x s - 3600 s (about 446 s here, below the
 *        preset's 1800 s), more than 300 s, so max-time is cut to Slurm's
 *        max_switch_wait of 300 s (the predicted 98 s is within it):
 *        --switches=1@300 and no feature constraint.
 *  Case 1: nothing else: L1 frees at 101 < 3 + 300, C starts there at 101.
 *  Case 2: D, the same as C, is submitted at 2.9 and gets --switches=1@300
 *        too (C is decided at 3, before the refresh D's decision asks
 *        for, at 3.15: the plugin's state does not show D yet).  At 101 D, first in the queue, takes L1 (until 3701).  C's
 *        compact set now frees only at 3701: Slurm holds it (L2 + L3 are
 *        two leaves) until its 300 s are over and places it anywhere at
 *        3 + 300 = 303, on gpu0005-0006 and gpu0009-0010.  With steering
 *        the plugin PINs C to that same spread set at the refresh after it
 *        waited longer than predicted (102), but Slurm keeps the job's
 *        --switches: it still starts at 303.
 */
static void test_plugin_faithful_switches(void **state)
{
	static const struct row one[] = { { 0, 101, 32, 4 }, { 3, 3600, 32, 4 } };
	static const struct row two[] = {
		{ 0, 101, 32, 4 }, { 2.9, 3600, 32, 4 }, { 3, 3600, 32, 4 },
	};
	static const char *const l1[] = { "gpu0001", "gpu0002", "gpu0003", "gpu0004" };
	static const char *const spread[] = { "gpu0005", "gpu0006", "gpu0009", "gpu0010" };
	gp_cluster_t *c = NULL;
	gp_synth_params_t sp;
	gp_error_t err;
	gp_trace_t *t1 = trace_of(one, 2), *t2 = trace_of(two, 3);
	gp_sim_result_t *r, *on, *off;
	double run_s;
	int32_t j;

	(void)state;
	gp__synth_defaults(&sp);
	sp.nodes = 12;
	sp.nodes_per_leaf = 4;
	sp.nodes_per_rack = 4;
	/* 8:1 uplinks: with the live state's demand-shared uplinks (cost.c,
	 * uplink_share()) the spread set of 4 nodes over two idle leaves is
	 * predicted 8 % slower at 4:1, too little for a wait to pay; at 8:1 it
	 * is slow enough that waiting 98 s for one leaf pays */
	sp.oversub = 8;
	assert_int_equal(gp__synth_build(&sp, &c, &err), GP_OK);
	sp.rack_kw = 1.25 * c->racks[0].power_cap_kw; /* room for all, as cluster() */
	gp_cluster_destroy(c);
	assert_int_equal(gp__synth_build(&sp, &c, &err), GP_OK);
	assert_int_equal(c->nblocks, 0);
	assert_true(c->root >= 0);
	for (j = 1; j < c->nnodes; j++)
		assert_int_equal(c->nodes[j].weight, c->nodes[0].weight);
	for (j = 0; j < 3; j++)
		t2->jobs[j].comm_fraction = 0.4;
	for (j = 0; j < 2; j++)
		t1->jobs[j].comm_fraction = 0.4;
	/* the long jobs ask for room to run a spread placement's slowdown */
	t1->jobs[1].limit_s = t2->jobs[1].limit_s = t2->jobs[2].limit_s = 7200;

	/* case 1: the compact set frees before max-time */
	r = switch_run(c, t1, true);
	assert_int_equal(r->jobs[0].decision, GP_SIM_DEC_PIN);
	assert_true(r->jobs[0].start_s == 0 && r->jobs[0].end_s == 101);
	ran_on(c, r, 0, l1);
	assert_int_equal(r->jobs[1].decision, GP_SIM_DEC_CONSTRAIN);
	assert_true(r->jobs[1].start_s == 101);
	assert_true(r->jobs[1].end_s == 101 + 3600);
	ran_on(c, r, 1, l1);
	gp__sim_result_destroy(r);

	/* case 2: it frees only after max-time, with steering and without.
	 * Without, Slurm holds the job to one leaf until max-time (300 s
	 * after its submission at 3 s); with, steering reads Slurm's plan:
	 * job 1, ahead of it, holds the reservation of the leaf job 0 frees
	 * at 101 s (its SchedNodeList), so waiting for that leaf cannot pay.
	 * It PINs job 2 to the spread set at its first refresh after the
	 * submission (3.15 s: job 1's decision woke the plugin's thread,
	 * which reads the state 250 ms later, state_thread.c) and drops the switch
	 * count as the plugin's update does, so it starts then (it once
	 * waited for that leaf until 101 s, when job 1 took it) */
	on = switch_run(c, t2, true);
	off = switch_run(c, t2, false);
	printf("# case 2: spread start %.0f s with steering, %.0f s without\n",
	       on->jobs[2].start_s, off->jobs[2].start_s);
	assert_true(off->jobs[2].start_s == 3 + 300);
	assert_true(on->jobs[2].start_s == 3.15);
	for (r = on; r; r = r == on ? off : NULL) {
		assert_true(r->jobs[0].end_s == 101);
		assert_int_equal(r->jobs[1].decision, GP_SIM_DEC_CONSTRAIN);
		assert_true(r->jobs[1].start_s == 101);
		ran_on(c, r, 1, l1);
		assert_int_equal(r->jobs[2].decision, GP_SIM_DEC_CONSTRAIN);
		ran_on(c, r, 2, spread);
		/* spread, it runs longer; by more than the 300 s that still
		 * paid, so max-time was Slurm's cap, not the policy's */
		run_s = r->jobs[2].end_s - r->jobs[2].start_s;
		assert_true(run_s > 3600);
		assert_true(0.95 * run_s - 3600 > 300);
	}
	assert_false(off->jobs[2].steered);
	assert_true(on->jobs[2].steered);
	gp__sim_result_destroy(on);
	gp__sim_result_destroy(off);
	trace_free(t1);
	trace_free(t2);
	gp_cluster_destroy(c);
}

/* ---- Slurm's topology/block baseline ------------------------------------------ */

/* Which required node sets Slurm's topology/block accepts
 * (gp__block_pin_ok, the plugin's PIN guard): eval_nodes_block.c groups
 * the base blocks by ceil(nodes / base block size) and wants every
 * required node in one group. */
static int32_t pin_ok_of(const gp_cluster_t *c, const char *list, int32_t segment)
{
	int32_t nodes[32], n = 0;
	char buf[256], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok && n < 32; tok = strtok_r(NULL, ",", &save))
		nodes[n++] = gp__node_find(c, tok);
	return gp__block_pin_ok(c, nodes, n, segment);
}

static void test_block_pin_ok(void **state)
{
	gp_cluster_t *c = NULL;
	gp_error_t err = { "" };

	(void)state;
	if (gp_cluster_load_conf_dir(GP_SRCDIR "/tests/data/sim/block", &c, &err))
		fail_msg("%s", err.text);
	/* no larger than a base block: inside one, never across two */
	assert_true(pin_ok_of(c, "n03,n04", 0));
	assert_false(pin_ok_of(c, "n04,n05", 0));
	assert_false(pin_ok_of(c, "n01,n02,n03,n16", 0));
	/* 5 to 8 nodes: base blocks paired b1+b2, b3+b4 */
	assert_true(pin_ok_of(c, "n01,n02,n03,n05,n06,n07", 0));
	assert_true(pin_ok_of(c, "n09,n10,n11,n12,n13,n14,n15,n16", 0));
	assert_false(pin_ok_of(c, "n05,n06,n07,n08,n09,n10,n11,n12", 0));
	/* 9 to 12 nodes: groups of three base blocks, b1-b3 and b4 */
	assert_true(pin_ok_of(c, "n01,n02,n03,n04,n05,n06,n07,n08,n09", 0));
	assert_false(pin_ok_of(c, "n05,n06,n07,n08,n09,n10,n11,n12,n13", 0));
	/* one --segment of 2: the segment's size decides, as for 2 nodes */
	assert_false(pin_ok_of(c, "n04,n05", 2));
	assert_true(pin_ok_of(c, "n07,n08", 2));
	/* several segments of 2: whole segments in each block, in any blocks */
	assert_true(pin_ok_of(c, "n02,n03,n06,n07", 2));
	assert_true(pin_ok_of(c, "n01,n02,n03,n04,n15,n16", 2));
	assert_false(pin_ok_of(c, "n02,n03,n04,n07", 2));
	assert_false(pin_ok_of(c, "n01,n05,n09,n13", 2));
	/* segments of 6 nodes span two base blocks: groups b1+b2, b3+b4 */
	assert_true(pin_ok_of(c, "n01,n02,n03,n05,n06,n07,n09,n10,n11,n13,n14,n15", 6));
	assert_false(pin_ok_of(c, "n05,n06,n07,n08,n09,n10,n01,n02,n03,n13,n14,n15", 6));
	gp_cluster_destroy(c);
}

/* Run one job of gpus GPUs (4 per node) on tests/data/sim/block (blocks
 * b1-b4 of four nodes, BlockSizes=4,8,16) with the nodes in busy[] drained
 * (standing for other jobs' nodes); its node names, or "rejected". */
static void block_run(const char *policy, int32_t gpus, const char *const *busy, char *out,
                      size_t len)
{
	gp_cluster_t *c = NULL;
	gp_state_t *s0 = NULL;
	gp_sim_policy_t p;
	gp_sim_opts_t o;
	gp_sim_result_t *r = NULL;
	gp_error_t err = { "" };
	struct row row = { 0, 100, gpus, 0 };
	gp_trace_t *t = trace_of(&row, 1);
	size_t used = 0;
	int32_t i;

	if (gp_cluster_load_conf_dir(GP_SRCDIR "/tests/data/sim/block", &c, &err))
		fail_msg("%s", err.text);
	assert_int_equal(gp_state_create(c, &s0), GP_OK);
	for (i = 0; busy[i]; i++)
		s0->node_flags[gp__node_find(c, busy[i])] |= GP_NODE_DRAIN;
	assert_int_equal(gp__sim_policy_parse(policy, c, &p, &err), GP_OK);
	gp__sim_opts_defaults(&o);
	o.check = true;
	if (gp__sim_run(c, s0, t, &p, &o, &r, &err))
		fail_msg("%s", err.text);
	out[0] = '\0';
	if (r->jobs[0].rejected)
		snprintf(out, len, "rejected");
	for (i = 0; r->jobs[0].nodes && i < r->jobs[0].nnodes; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s", i ? "," : "",
		                         c->nodes[r->jobs[0].nodes[i]].name);
	gp__sim_result_destroy(r);
	gp_state_destroy(s0);
	trace_free(t);
	gp_cluster_destroy(c);
}

/*
 * Hand-worked from Slurm 24.11's eval_nodes_block() and
 * _choose_best_bblock().  Free nodes: b1 n01; b2 n06-n08; b3 n09-n12; b4
 * n15-n16 (the rest busy).
 *  - 2 nodes: one base block (level 0) with 2 or more free nodes, the one
 *    with the fewest free: b4 -> n15,n16.
 *  - 6 nodes: level 1 (8 nodes): {b1,b2} has 4 free, {b3,b4} 6 -> {b3,b4};
 *    no base block holds 6, so the fullest first (b3: n09-n12), then the
 *    smallest that holds the remaining 2 (b4: n15,n16).  First-fit takes
 *    n01,n06-n08,n09,n10 over three blocks.
 *  - 7 nodes: level 1 again, and no pair of blocks has 7 free nodes: the
 *    job cannot run here although 10 nodes are free (rejected when nothing
 *    else will ever free), where tree places it.
 *  - 12 nodes on an idle cluster minus b2: level 2 (16 nodes), the fullest
 *    base blocks b1, b3 and b4 whole.
 */
static void test_block_baseline(void **state)
{
	static const char *const busy[] = { "n02", "n03", "n04", "n05", "n13", "n14", NULL };
	static const char *const b2[] = { "n05", "n06", "n07", "n08", NULL };
	char got[256];

	(void)state;
	block_run("block", 8, busy, got, sizeof(got));
	assert_string_equal(got, "n15,n16");
	block_run("block", 24, busy, got, sizeof(got));
	assert_string_equal(got, "n09,n10,n11,n12,n15,n16");
	block_run("first-fit", 24, busy, got, sizeof(got));
	assert_string_equal(got, "n01,n06,n07,n08,n09,n10");
	block_run("block", 28, busy, got, sizeof(got));
	assert_string_equal(got, "rejected");
	block_run("tree", 28, busy, got, sizeof(got));
	assert_string_not_equal(got, "rejected");
	block_run("block", 48, b2, got, sizeof(got));
	assert_string_equal(got, "n01,n02,n03,n04,n09,n10,n11,n12,n13,n14,n15,n16");
}

/* block with --segment: a job of one base block or less is placed as
 * block places it; a larger one goes in segments, each whole in one base
 * block, fullest first, no aggregated block needed.  With n02-n05 and
 * n13-n14 out, 24 GPUs (6 nodes) go as two segments of 3 into b2 (3
 * usable) and b3 (4), where block needs the aggregated b3+b4; 28 GPUs (7
 * nodes, segments of 1) start where block rejects them. */
static void test_block_segment_baseline(void **state)
{
	static const char *const busy[] = { "n02", "n03", "n04", "n05", "n13", "n14", NULL };
	char got[256];

	(void)state;
	block_run("block-segment", 8, busy, got, sizeof(got));
	assert_string_equal(got, "n15,n16");
	block_run("block-segment", 24, busy, got, sizeof(got));
	assert_string_equal(got, "n06,n07,n08,n09,n10,n11");
	block_run("block-segment", 28, busy, got, sizeof(got));
	assert_string_not_equal(got, "rejected");
	assert_int_equal((int)strlen(got), 7 * 3 + 6);
}

/*
 * topology.yaml with a tree topology (partition tree, the default: n[1-4]
 * under leafA = n[1-2] and leafB = n[3-4]) and a block one (partition
 * blk: n[5-8]), tests/data/conf/yaml-parts.  Slurm places the simulated
 * partition, tree, by its tree (slurm.conf(5) "Topology"): the block
 * baselines do not apply to it and tree-switches does; a job the plugin
 * passes (one GPU) is placed as topology/tree places it, not by the
 * blocks, which hold none of its nodes; a 2-node job runs in one leaf.
 */
static void test_yaml_tree_partition(void **state)
{
	static const char *const policies[] = { "balanced", "tree", "tree-switches", NULL };
	static const struct row rows[] = { { 0, 100, 1, 0 }, { 1, 100, 8, 2 } };
	gp_cluster_t *c = NULL;
	gp_sim_policy_t p;
	gp_sim_opts_t o;
	gp_error_t err = { "" };
	gp_trace_t *t = trace_of(rows, 2);
	int32_t i, j, k;

	(void)state;
	if (gp_cluster_load_conf_dir(GP_SRCDIR "/tests/data/conf/yaml-parts", &c, &err))
		fail_msg("%s", err.text);
	assert_int_equal(c->nblocks, 2);
	assert_string_equal(c->parts[gp__sim_partition(c)].name, "tree");
	assert_false(gp__sim_blocks(c));
	assert_int_equal(gp__sim_policy_parse("block", c, &p, &err), GP_EINVAL);
	assert_non_null(strstr(err.text, "partition 'tree'"));
	assert_int_equal(gp__sim_policy_parse("block-segment", c, &p, &err), GP_EINVAL);
	for (i = 0; policies[i]; i++) {
		gp_sim_result_t *r = NULL;

		assert_int_equal(gp__sim_policy_parse(policies[i], c, &p, &err), GP_OK);
		gp__sim_opts_defaults(&o);
		o.check = true;
		if (gp__sim_run(c, NULL, t, &p, &o, &r, &err))
			fail_msg("%s: %s", policies[i], err.text);
		for (j = 0; j < r->njobs; j++) {
			const gp_sim_job_t *x = &r->jobs[j];

			if (x->rejected || !x->nodes)
				fail_msg("%s: job %d did not run", policies[i], (int)j + 1);
			for (k = 0; k < x->nnodes; k++)
				assert_true(gp__node_in_part(c, x->nodes[k], gp__sim_partition(c)));
			if (x->nnodes == 2)
				assert_int_equal(c->nodes[x->nodes[0]].leaf, c->nodes[x->nodes[1]].leaf);
		}
		gp__sim_result_destroy(r);
	}
	trace_free(t);
	gp_cluster_destroy(c);
}

/* ---- the judge ------------------------------------------------------------- */

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/gpuplace-judge.XXXXXX");
	int fd;
	FILE *f;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static gp_sim_result_t *run_judged(const gp_cluster_t *c, const gp_trace_t *t, const char *policy,
                                   const gp_sim_judge_t *j, int want_rc, gp_error_t *err)
{
	gp_sim_policy_t p;
	gp_sim_opts_t o;
	gp_sim_result_t *r = NULL;

	assert_int_equal(gp__sim_policy_parse(policy, c, &p, err), GP_OK);
	gp__sim_opts_defaults(&o);
	o.check = true;
	o.judge = j;
	assert_int_equal(gp__sim_run(c, NULL, t, &p, &o, &r, err), want_rc);
	return r;
}

/* Hand-worked: 8 nodes x 8 GPUs, leaves n0-n3 and n4-n7 under one spine.
 * A (24 GPUs, 1000 s) at t=0 takes n0-n2 under every policy: one leaf,
 * judged 1.25 -> 1250 s.  B (16 GPUs, 100 s) at t=1: first-fit takes n3
 * and n4 (two leaves, 8 GPUs per node, dp) -> 1.5 -> 150 s; tree and
 * gpuplace keep it in the second leaf -> 1.25 -> 125 s.  The judge, not
 * the engine's model, sets every policy's run times. */
static void test_judge_table(void **state)
{
	static const char table[] =
		"# hand-made judge\n"
		"spread, count, gpus_per_node, comm, slowdown\n"
		"node,*,*,*,1\n"
		"leaf,*,*,*,1.25\n"
		"leaves,2,8,dp,1.5\n"
		"leaves,*,*,*,3\n"
		"spines,*,*,*,4\n";
	static const struct row rows[] = {
		{ 0, 1000, 24, 0 },
		{ 1, 100, 16, 0 },
	};
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	gp_trace_t *t = trace_of(rows, 2);
	char *path = write_tmp(table), *path2;
	gp_sim_judge_t *j = NULL, *j2 = NULL;
	gp_sim_result_t *ff, *tr, *gp;
	gp_error_t err = { "" };

	(void)state;
	t->jobs[0].limit_s = t->jobs[1].limit_s = 4000; /* room for every slowdown */
	assert_int_equal(gp__sim_judge_load(path, &j, &err), GP_OK);
	ff = run_judged(c, t, "first-fit", j, GP_OK, &err);
	tr = run_judged(c, t, "tree", j, GP_OK, &err);
	gp = run_judged(c, t, "performance", j, GP_OK, &err);
	assert_true(fabs(ff->jobs[0].end_s - ff->jobs[0].start_s - 1250) < 1e-9);
	assert_int_equal(ff->jobs[0].spread, GP_SIM_SPREAD_LEAF);
	assert_int_equal(ff->jobs[1].spread, GP_SIM_SPREAD_LEAVES);
	assert_int_equal(ff->jobs[1].spread_count, 2);
	assert_true(fabs(ff->jobs[1].end_s - ff->jobs[1].start_s - 150) < 1e-9);
	assert_true(fabs(tr->jobs[1].end_s - tr->jobs[1].start_s - 125) < 1e-9);
	assert_true(fabs(gp->jobs[0].end_s - gp->jobs[0].start_s - 1250) < 1e-9);
	assert_true(fabs(gp->jobs[1].end_s - gp->jobs[1].start_s - 125) < 1e-9);
	/* GPU-hours lost to placement: A 24 x 250 s, B 16 x 50 s (first-fit) */
	assert_true(fabs(ff->m.lost_place_gpuh - (24 * 250.0 + 16 * 50.0) / 3600) < 1e-9);
	assert_true(fabs(tr->m.lost_place_gpuh - (24 * 250.0 + 16 * 25.0) / 3600) < 1e-9);
	assert_int_equal(gp->jobs[1].decision, GP_SIM_DEC_PIN);
	assert_int_equal(ff->jobs[1].decision, GP_SIM_DEC_NONE);
	assert_int_equal(gp->jobs[1].nnodes, 2);
	assert_non_null(gp->jobs[1].nodes);
	assert_int_equal(gp->jobs[1].node_gpus[0] + gp->jobs[1].node_gpus[1], 16);
	gp__sim_result_destroy(ff);
	gp__sim_result_destroy(tr);
	gp__sim_result_destroy(gp);

	/* a table without a row for B's spread stops the run, naming it */
	path2 = write_tmp("spread,count,gpus_per_node,comm,slowdown\nnode,*,*,*,1\nleaf,*,*,*,1.1\n");
	assert_int_equal(gp__sim_judge_load(path2, &j2, &err), GP_OK);
	assert_null(run_judged(c, t, "first-fit", j2, GP_ENOENT, &err));
	assert_non_null(strstr(err.text, "spread=leaves count=2 gpus_per_node=8 comm=dp"));
	gp__sim_judge_destroy(j2);
	unlink(path2);
	free(path2);

	gp__sim_judge_destroy(j);
	unlink(path);
	free(path);
	trace_free(t);
	gp_cluster_destroy(c);
}

/* A trace's job-shape hints reach the simulated profile: a 16-GPU job
 * with tp=8 over two nodes of one leaf is of communication class tp, and
 * a judge that charges tensor parallelism off one node more slows it more
 * than the same job without the hint. */
static void test_trace_hints(void **state)
{
	static const struct row rows[] = { { 0, 1000, 16, 2 }, { 0, 1000, 16, 2 } };
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	gp_trace_t *t = trace_of(rows, 2);
	char *path;
	gp_sim_judge_t *j = NULL;
	gp_sim_result_t *r;
	gp_error_t err = { "" };

	(void)state;
	path = write_tmp("spread,count,gpus_per_node,comm,slowdown\n"
	                 "node,*,*,*,1\nleaf,*,*,tp,2\nleaf,*,*,*,1.25\n"
	                 "leaves,*,*,*,3\nspines,*,*,*,3\n");
	assert_int_equal(gp__sim_judge_load(path, &j, &err), GP_OK);
	t->jobs[0].tp = 8;
	t->jobs[0].limit_s = t->jobs[1].limit_s = 4000; /* room for every slowdown */
	r = run_judged(c, t, "first-fit", j, GP_OK, &err);
	assert_true(fabs(r->jobs[0].end_s - r->jobs[0].start_s - 2000) < 1e-9);
	assert_true(fabs(r->jobs[1].end_s - r->jobs[1].start_s - 1250) < 1e-9);
	gp__sim_result_destroy(r);
	gp__sim_judge_destroy(j);
	unlink(path);
	free(path);
	trace_free(t);
	gp_cluster_destroy(c);
}

/* Bad tables are refused with file:line, the field and the value. */
static void test_judge_errors(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "spread,count,comm,slowdown\n", ":1: the first line must be the header" },
		{ "spread,count,gpus_per_node,comm,slowdown\n", ": no rows" },
		{ "spread,count,gpus_per_node,comm,slowdown\nrack,*,*,*,1\n", ":2: spread: 'rack'" },
		{ "spread,count,gpus_per_node,comm,slowdown\nleaves,0,*,*,1\n", ":2: count: '0'" },
		{ "spread,count,gpus_per_node,comm,slowdown\nleaf,*,99,*,1\n", ":2: gpus_per_node: '99'" },
		{ "spread,count,gpus_per_node,comm,slowdown\nleaf,*,*,allreduce,1\n", ":2: comm: 'allreduce'" },
		{ "# c\nspread,count,gpus_per_node,comm,slowdown\n\nleaf,*,*,*,0.5\n", ":4: slowdown: '0.5'" },
		{ "spread,count,gpus_per_node,comm,slowdown\nleaf,*,*,1\n", ":2: expected 5 fields" },
		{ "spread,count,gpus_per_node,comm,slowdown\nleaf,*,*,*,1,2\n", ":2: expected 5 fields" },
	};
	gp_sim_judge_t *j = NULL;
	gp_error_t err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *path = write_tmp(cases[i].text);

		assert_int_equal(gp__sim_judge_load(path, &j, &err), GP_ECONFIG);
		assert_null(j);
		if (!strstr(err.text, cases[i].want) || !strstr(err.text, path))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.text, cases[i].want);
		unlink(path);
		free(path);
	}
	assert_int_equal(gp__sim_judge_load("/nonexistent/judge.csv", &j, &err), GP_EIO);
	assert_non_null(strstr(err.text, "/nonexistent/judge.csv"));
}

/* ---- time limits: what Slurm and the engine know ------------------------------ */

/* EASY backfill plans with limits, not run times.  A (32 GPUs) runs 100 s
 * but asked for 1,000; B (64 GPUs) waits for it and is reserved at A's
 * limit; C (8 GPUs, 50 s) passes B only when its own limit ends before
 * that reservation: with a 100 s limit it starts at once, with a 2,000 s
 * limit (the same run time) it waits, although it would have ended long
 * before A did.  B starts when A really ends (at 100 s, or later when a
 * policy spreads A), not at its limit. */
static void test_backfill_sees_limits(void **state)
{
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	static const struct row rows[] = {
		{ 0, 100, 32, 0 }, { 1, 50, 64, 0 }, { 2, 50, 8, 0 },
	};
	gp_trace_t *t = trace_of(rows, 3);
	gp_sim_result_t *r;
	const char *const pol[] = { "first-fit", "tree", "balanced", NULL };
	int i;

	(void)state;
	t->jobs[0].limit_s = 1000;
	for (i = 0; pol[i]; i++) {
		t->jobs[2].limit_s = 100;
		r = run(c, t, pol[i], true);
		assert_true(r->jobs[2].start_s == 2);
		assert_true(r->jobs[2].backfilled);
		assert_true(r->jobs[1].start_s == r->jobs[0].end_s);
		assert_true(r->jobs[0].end_s < 1000);
		assert_int_equal(r->m.limits_drawn, 0);
		gp__sim_result_destroy(r);

		t->jobs[2].limit_s = 2000;
		r = run(c, t, pol[i], true);
		assert_true(r->jobs[2].start_s >= r->jobs[1].start_s);
		assert_false(r->jobs[2].backfilled);
		assert_true(r->jobs[1].start_s == r->jobs[0].end_s);
		assert_true(r->jobs[2].limit_s == 2000);
		gp__sim_result_destroy(r);
	}
	trace_free(t);
	gp_cluster_destroy(c);
}

/* The engine sees limits, never run times.  test_plugin_faithful's scene:
 * A (32 GPUs) ends at 10.5 s; B (32 GPUs) arrives at 11 while the
 * plugin's last read (at 10) still lists A.  When A asked for 10.5 s, the
 * engine counts A's leaf free by 11 and PINs B there; when A asked for an
 * hour (the same run), the engine expects A to hold its leaf and does not
 * PIN B at once.  And a run time the limit hides changes nothing the
 * engine decides: X running 1,000 s or 2,000 s under the same limit gives
 * B and C the same decisions and starts. */
static void test_engine_sees_limits(void **state)
{
	static const struct row rows[] = {
		{ 0, 10.5, 32, 0 }, { 0, 1000, 24, 0 }, { 11, 100, 32, 0 }, { 13, 100, 8, 0 },
	};
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	gp_trace_t *t = trace_of(rows, 4);
	gp_sim_result_t *a, *b, *x1, *x2;
	int32_t j;

	(void)state;
	a = run(c, t, "performance", true);
	assert_int_equal(a->jobs[2].decision, GP_SIM_DEC_PIN);
	assert_true(a->jobs[2].start_s == 11);
	t->jobs[0].limit_s = 3600;
	b = run(c, t, "performance", true);
	assert_int_not_equal(b->jobs[2].decision, GP_SIM_DEC_PIN);
	assert_true(b->jobs[0].end_s == 10.5); /* it still ran 10.5 s */

	t->jobs[1].limit_s = 7200;
	x1 = run(c, t, "performance", true);
	t->jobs[1].duration_s = 2000;
	x2 = run(c, t, "performance", true);
	for (j = 2; j < 4; j++) {
		assert_int_equal(x1->jobs[j].decision, x2->jobs[j].decision);
		assert_true(x1->jobs[j].start_s == x2->jobs[j].start_s);
		assert_int_equal(x1->jobs[j].nnodes, x2->jobs[j].nnodes);
		assert_memory_equal(x1->jobs[j].nodes, x2->jobs[j].nodes,
		                    (size_t)x1->jobs[j].nnodes * sizeof(int32_t));
	}
	assert_true(x2->jobs[1].end_s > x1->jobs[1].end_s);
	gp__sim_result_destroy(a);
	gp__sim_result_destroy(b);
	gp__sim_result_destroy(x1);
	gp__sim_result_destroy(x2);
	trace_free(t);
	gp_cluster_destroy(c);
}

/* A job over its limit is killed there, as Slurm does.  A (8 GPUs) runs
 * 500 s against a 200 s limit: it ends at 200, killed, and is no placement
 * loss (it ran over on the ideal placement too).  B (16 GPUs, 100 s, limit
 * 100 s) spread by first-fit over two leaves runs slower than its limit
 * allows: killed at 100, and its whole run is lost to placement. */
static void test_killed_at_limit(void **state)
{
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	static const struct row rows[] = {
		{ 0, 500, 8, 0 }, { 0, 1000, 16, 0 }, { 1, 100, 16, 0 },
	};
	gp_trace_t *t = trace_of(rows, 3);
	gp_sim_result_t *r;

	(void)state;
	t->jobs[0].limit_s = 200;
	t->jobs[1].limit_s = 4000;
	r = run(c, t, "first-fit", true);
	assert_true(r->jobs[0].end_s == 200);
	assert_true(r->jobs[0].killed);
	/* first-fit: A on n0, the 16-GPU job on n1-n2, B on n3 + n4 */
	assert_int_equal(r->jobs[2].nleaves, 2);
	assert_true(r->jobs[2].slowdown > 1.0);
	assert_true(r->jobs[2].killed);
	assert_true(r->jobs[2].end_s - r->jobs[2].start_s == 100);
	assert_false(r->jobs[1].killed);
	assert_int_equal(r->m.killed, 2);
	assert_true(fabs(r->m.lost_place_gpuh - (16 * 100.0) / 3600 -
	                 16 * (r->jobs[1].end_s - r->jobs[1].start_s - 1000) / 3600) < 1e-9);
	gp__sim_result_destroy(r);
	trace_free(t);
	gp_cluster_destroy(c);
}

/* A trace without limits gets drawn ones: the same seed the same limits,
 * every one at least the job's run (none is killed on the ideal
 * placement), and another seed others. */
static void test_drawn_limits(void **state)
{
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	gp_trace_t *t = random_trace(200, 7, 30);
	gp_sim_policy_t p;
	gp_sim_opts_t o;
	gp_sim_result_t *a = NULL, *b = NULL, *d = NULL;
	gp_error_t err = { "" };
	int32_t j, differ = 0;

	(void)state;
	assert_int_equal(gp__sim_policy_parse("tree", c, &p, &err), GP_OK);
	gp__sim_opts_defaults(&o);
	assert_int_equal(gp__sim_run(c, NULL, t, &p, &o, &a, &err), GP_OK);
	assert_int_equal(gp__sim_run(c, NULL, t, &p, &o, &b, &err), GP_OK);
	o.limit_seed = 2;
	assert_int_equal(gp__sim_run(c, NULL, t, &p, &o, &d, &err), GP_OK);
	assert_int_equal(a->m.limits_drawn, 200);
	for (j = 0; j < 200; j++) {
		assert_true(a->jobs[j].limit_s == b->jobs[j].limit_s);
		assert_true(a->jobs[j].limit_s >= t->jobs[j].duration_s);
		assert_true(a->jobs[j].limit_s ==
		            gp__trace_draw_limit(1, t->jobs[j].id, t->jobs[j].duration_s));
		differ += a->jobs[j].limit_s != d->jobs[j].limit_s;
	}
	assert_true(differ > 50);
	gp__sim_result_destroy(a);
	gp__sim_result_destroy(b);
	gp__sim_result_destroy(d);
	trace_free(t);
	gp_cluster_destroy(c);
}

/* ---- tree + --switches ---------------------------------------------------------- */

/* A (24 GPUs) holds n0-n2 for long; B (24 GPUs) n4-n6 until 100.  C (16
 * GPUs) arrives at 1, when only n3 and n7 are free, one per leaf.  tree
 * starts it at once over two leaves; tree-switches (--switches=1@300)
 * holds it for one leaf and starts it at 100 on B's leaf;
 * tree-switches@50 gives up at 51 (its submission + T) and spreads it. */
static void test_tree_switches(void **state)
{
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	static const struct row rows[] = {
		{ 0, 5000, 24, 0 }, { 0, 100, 24, 0 }, { 1, 500, 16, 0 },
	};
	gp_trace_t *t = trace_of(rows, 3);
	gp_sim_result_t *tr, *sw, *sw50;
	gp_sim_policy_t p;
	gp_error_t err = { "" };

	(void)state;
	t->jobs[2].limit_s = 1000;
	tr = run(c, t, "tree", true);
	sw = run(c, t, "tree-switches", true);
	sw50 = run(c, t, "tree-switches@50", true);
	assert_true(tr->jobs[2].start_s == 1);
	assert_int_equal(tr->jobs[2].nleaves, 2);
	assert_true(sw->jobs[2].start_s == 100);
	assert_int_equal(sw->jobs[2].nleaves, 1);
	assert_int_equal(c->nodes[sw->jobs[2].node0].leaf, c->nodes[node_index(c, 4)].leaf);
	assert_true(sw50->jobs[2].start_s == 51);
	assert_int_equal(sw50->jobs[2].nleaves, 2);
	/* the wait is the baseline's: A, B and C are all of 9-32 GPUs */
	assert_true(sw->m.wait_size_mean_s[2] == 99.0 / 3);
	assert_true(tr->m.wait_size_mean_s[2] == 0);
	gp__sim_result_destroy(tr);
	gp__sim_result_destroy(sw);
	gp__sim_result_destroy(sw50);

	assert_int_equal(gp__sim_policy_parse("tree-switches", c, &p, &err), GP_OK);
	assert_int_equal(p.kind, GP_SIM_TREE_SWITCHES);
	assert_true(p.switch_wait_s == GP_SIM_MAX_SWITCH_WAIT_S);
	assert_int_equal(gp__sim_policy_parse("tree-switches@x", c, &p, &err), GP_EINVAL);
	assert_non_null(strstr(err.text, "tree-switches@x"));
	trace_free(t);
	gp_cluster_destroy(c);
}

/* A job larger than a leaf asks for the fewest leaves that hold it: 6
 * nodes on leaves of 4 get --switches=2, and start on the idle cluster
 * over two leaves at once. */
static void test_tree_switches_large_job(void **state)
{
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	static const struct row rows[] = { { 0, 100, 48, 0 } };
	gp_trace_t *t = trace_of(rows, 1);
	gp_sim_result_t *r;

	(void)state;
	r = run(c, t, "tree-switches", true);
	assert_true(r->jobs[0].start_s == 0);
	assert_int_equal(r->jobs[0].nleaves, 2);
	gp__sim_result_destroy(r);
	trace_free(t);
	gp_cluster_destroy(c);
}

/* ---- waits per size --------------------------------------------------------- */

/* A (64 GPUs, the whole cluster) runs 0..100; B (1 GPU, 100 s) arrives at
 * 10, C (16 GPUs, 100 s) at 20: both wait for A.  Mean waits per class:
 * 1 GPU 90 s, 9-32 GPUs 80 s, 33-128 GPUs 0, 2-8 and >128 none (NaN);
 * weighted by GPU-hours (GPUs x duration): (1x100x90 + 16x100x80) /
 * (64x100 + 1x100 + 16x100). */
static void test_wait_per_size(void **state)
{
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	static const struct row rows[] = { { 0, 100, 64, 0 }, { 10, 100, 1, 0 }, { 20, 100, 16, 0 } };
	gp_trace_t *t = trace_of(rows, 3);
	gp_sim_result_t *r;

	(void)state;
	r = run(c, t, "tree", true);
	assert_true(r->m.wait_size_mean_s[0] == 90);
	assert_true(isnan(r->m.wait_size_mean_s[1]));
	assert_true(r->m.wait_size_mean_s[2] == 80);
	assert_true(r->m.wait_size_mean_s[3] == 0);
	assert_true(isnan(r->m.wait_size_mean_s[4]));
	assert_int_equal(r->m.size_jobs[0], 1);
	assert_int_equal(r->m.size_jobs[1], 0);
	assert_int_equal(r->m.size_jobs[2], 1);
	assert_int_equal(r->m.size_jobs[3], 1);
	assert_true(fabs(r->m.wait_gpuh_mean_s - (100.0 * 90 + 1600.0 * 80) / (6400 + 100 + 1600)) <
	            1e-9);
	assert_true(fabs(r->m.wait_mean_s - 170.0 / 3) < 1e-9);
	assert_true(fabs(r->m.lost_wait_gpuh - (90.0 + 16 * 80.0) / 3600) < 1e-9);
	assert_int_equal(gp__sim_size_class(1), 0);
	assert_int_equal(gp__sim_size_class(2), 1);
	assert_int_equal(gp__sim_size_class(8), 1);
	assert_int_equal(gp__sim_size_class(9), 2);
	assert_int_equal(gp__sim_size_class(128), 3);
	assert_int_equal(gp__sim_size_class(129), 4);
	assert_string_equal(gp__sim_size_class_name(4), ">128");
	gp__sim_result_destroy(r);
	trace_free(t);
	gp_cluster_destroy(c);
}

static void test_policy_names(void **state)
{
	gp_cluster_t *c = cluster(8, 4, 4, 0);
	gp_sim_policy_t p;
	gp_error_t err = { "" };
	int i;

	(void)state;
	for (i = 0; gp__sim_policy_names[i]; i++)
		assert_int_equal(gp__sim_policy_parse(gp__sim_policy_names[i], c, &p, &err), GP_OK);
	assert_int_equal(gp__sim_policy_parse("fastest", c, &p, &err), GP_ENOENT);
	assert_non_null(strstr(err.text, "fastest"));
	/* a synthetic model has no conf dir, so no site policy */
	assert_int_equal(gp__sim_policy_parse("site", c, &p, &err), GP_EINVAL);
	gp_cluster_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_conservation),
		cmocka_unit_test(test_fifo_and_easy_backfill),
		cmocka_unit_test(test_backfill_around_reservation),
		cmocka_unit_test(test_backfill_plans_several),
		cmocka_unit_test(test_first_fit_vs_tree),
		cmocka_unit_test(test_tree_best_fit_node),
		cmocka_unit_test(test_power_caps),
		cmocka_unit_test(test_budget_baselines),
		cmocka_unit_test(test_presets_under_budget),
		cmocka_unit_test(test_backfill_keeps_reserved_power),
		cmocka_unit_test(test_slowdown_stretches_run_time),
		cmocka_unit_test(test_initial_state_flags),
		cmocka_unit_test(test_policy_names),
		cmocka_unit_test(test_block_baseline),
		cmocka_unit_test(test_block_segment_baseline),
		cmocka_unit_test(test_yaml_tree_partition),
		cmocka_unit_test(test_power_view_below_knee),
		cmocka_unit_test(test_plugin_faithful),
		cmocka_unit_test(test_plugin_faithful_ledger),
		cmocka_unit_test(test_plugin_faithful_ledger_pending),
		cmocka_unit_test(test_plugin_faithful_ledger_constrain),
		cmocka_unit_test(test_plugin_faithful_guess_expires),
		cmocka_unit_test(test_plugin_faithful_steering),
		cmocka_unit_test(test_steering_keeps_off_planned_nodes),
		cmocka_unit_test(test_pin_keeps_off_planned_nodes),
		cmocka_unit_test(test_plugin_faithful_switches),
		cmocka_unit_test(test_block_pin_ok),
		cmocka_unit_test(test_judge_table),
		cmocka_unit_test(test_judge_errors),
		cmocka_unit_test(test_trace_hints),
		cmocka_unit_test(test_backfill_sees_limits),
		cmocka_unit_test(test_engine_sees_limits),
		cmocka_unit_test(test_killed_at_limit),
		cmocka_unit_test(test_drawn_limits),
		cmocka_unit_test(test_tree_switches),
		cmocka_unit_test(test_tree_switches_large_job),
		cmocka_unit_test(test_wait_per_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
