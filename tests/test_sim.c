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

#include <cmocka.h>

#include "model.h"
#include "sim.h"
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
	"first-fit", "tree", "balanced", "pack", "performance", "power-save", NULL
};

/* ---- determinism ---------------------------------------------------------- */

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
		assert_memory_equal(a->jobs, b->jobs, (size_t)a->njobs * sizeof(*a->jobs));
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

		/* the baselines reserve the first six nodes, so C fits beside
		 * them; the engine may reserve others, but C never delays B */
		if (baseline || r->jobs[2].start_s < r->jobs[1].start_s) {
			assert_true(r->jobs[2].start_s == 2);
			assert_true(r->jobs[2].backfilled);
		}
		assert_true(r->jobs[1].start_s == r->jobs[0].end_s);
		gp__sim_result_destroy(r);
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
		} else if (!strcmp(all_policies[i], "balanced") ||
		           !strcmp(all_policies[i], "power-save")) {
			/* policies that weigh rack power may cross leaves when a
			 * set there takes a much smaller share of a rack's
			 * headroom for a small slowdown (their score decides) */
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
		} else {
			assert_int_equal(r->m.completed, 6);
			assert_int_equal(r->m.violations, 0);
			assert_true(r->m.violation_gpuh == 0);
			assert_true(r->m.peak_rack_frac <= 1.0 + 1e-9);
		}
		gp__sim_result_destroy(r);
	}
	trace_free(t);
	gp_cluster_destroy(c);
	gp_cluster_destroy(c0);
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
		gp_sim_result_t *a = run(c, t4, all_policies[i], true);
		gp_sim_result_t *b = run(c, t3, all_policies[i], true);

		if (strcmp(all_policies[i], "power-save")) {
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
		cmocka_unit_test(test_first_fit_vs_tree),
		cmocka_unit_test(test_tree_best_fit_node),
		cmocka_unit_test(test_power_caps),
		cmocka_unit_test(test_backfill_keeps_reserved_power),
		cmocka_unit_test(test_slowdown_stretches_run_time),
		cmocka_unit_test(test_initial_state_flags),
		cmocka_unit_test(test_policy_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
