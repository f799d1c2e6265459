/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_ckpt.c - checkpoint planning: Daly interval, target choice, staggered
 * windows, buddy across racks, --signal lead time, argument errors. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <cmocka.h>

#include "engine_fixture.h"

#include "ckpt.h"

/* 8 nodes; leafA = n0..n5, leafB = n6..n7, both under spine; rackA = n0..n3,
 * rackB = n4..n7 (so n4, n5 share leafA with rackA's nodes).  Storage:
 * node NVMe, a rack burst buffer and a cluster file system. */
static gp_cluster_t *fixture(double nvme_gbps, double bb_gbps, double pfs_gbps)
{
	gp_cluster_t *c = gp__cluster_new();
	int32_t i;

	assert_non_null(c);
	c->nnodes = 8;
	c->nodes = calloc(8, sizeof(*c->nodes));
	c->nswitches = 3;
	c->switches = calloc(3, sizeof(*c->switches));
	c->nracks = 2;
	c->racks = calloc(2, sizeof(*c->racks));
	c->nstorage = 3;
	c->storage = calloc(3, sizeof(*c->storage));
	assert_true(c->nodes && c->switches && c->racks && c->storage);
	snprintf(c->switches[0].name, GP_NAME_MAX, "leafA");
	snprintf(c->switches[1].name, GP_NAME_MAX, "leafB");
	snprintf(c->switches[2].name, GP_NAME_MAX, "spine");
	c->switches[0].parent = c->switches[1].parent = 2;
	c->switches[2].parent = -1;
	c->switches[2].level = 1;
	c->root = 2;
	for (i = 0; i < 8; i++) {
		snprintf(c->nodes[i].name, GP_NAME_MAX, "n%d", i);
		c->nodes[i].ngpus = 8;
		c->nodes[i].leaf = i < 6 ? 0 : 1;
		c->nodes[i].rack = i < 4 ? 0 : 1;
		c->nodes[i].nvl_domain = -1;
	}
	snprintf(c->racks[0].name, GP_NAME_MAX, "rackA");
	snprintf(c->racks[1].name, GP_NAME_MAX, "rackB");
	snprintf(c->storage[0].name, GP_NAME_MAX, "nvme");
	c->storage[0].scope = GP_SCOPE_NODE;
	c->storage[0].write_gbps = nvme_gbps;
	snprintf(c->storage[1].name, GP_NAME_MAX, "bb");
	c->storage[1].scope = GP_SCOPE_RACK;
	c->storage[1].write_gbps = bb_gbps;
	snprintf(c->storage[2].name, GP_NAME_MAX, "pfs");
	c->storage[2].scope = GP_SCOPE_CLUSTER;
	c->storage[2].write_gbps = pfs_gbps;
	assert_int_equal(gp__cluster_index(c), GP_OK);
	return c;
}

static void test_daly_formula(void **unused)
{
	/* delta = 60 s, M = 1 day: sqrt(2*60*86400) = 3219.94;
	 * x = 60/172800; factor 1 + sqrt(x)/3 + x/9 = 1.006250; minus delta. */
	assert_true(fabs(gp__ckpt_daly(60, 86400) - 3180.06) < 0.05);
	/* delta = 600 s, M = 6 h: sqrt(2*600*21600) = 5091.17; x = 600/43200;
	 * factor = 1 + 0.039284 + 0.001543 = 1.040827; 5299.03 - 600 = 4699.03 */
	assert_true(fabs(gp__ckpt_daly(600, 21600) - 4699.03) < 0.05);
	/* delta >= 2M: checkpoint every M (Daly's second case) */
	assert_true(gp__ckpt_daly(5000, 2000) == 2000);
	assert_true(gp__ckpt_daly(0, 1000) == 0);
}

static void test_daly_minimises_waste(void **unused)
{
	static const double cases[][3] = { /* delta, R, M */
		{ 30, 300, 86400 }, { 120, 300, 20000 }, { 600, 600, 21600 }, { 10, 60, 3600 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double d = cases[i][0], r = cases[i][1], m = cases[i][2];
		double t = gp__ckpt_daly(d, m), w = gp__ckpt_waste(t, d, r, m);

		assert_true(w > 0 && w < 1);
		/* Daly's estimate sits at the minimum of the complete model:
		 * moving 20 % either way never lowers the waste */
		assert_true(w <= gp__ckpt_waste(t * 0.8, d, r, m) + 1e-12);
		assert_true(w <= gp__ckpt_waste(t * 1.25, d, r, m) + 1e-12);
	}
	/* more failures -> more waste; slower writes -> more waste */
	assert_true(gp__ckpt_waste(3000, 60, 300, 20000) > gp__ckpt_waste(3000, 60, 300, 80000));
	assert_true(gp__ckpt_waste(3000, 120, 300, 20000) > gp__ckpt_waste(3000, 60, 300, 20000));
}

static void test_mttf_scales_with_nodes(void **unused)
{
	gp_cluster_t *c = fixture(5, 20, 50);

	/* the default, 23.7 failures per 1,000 node-days (Meta RSC-1's
	 * 1,024-GPU jobs failing every 7.9 h): 128 nodes fail every 7.9 h */
	assert_true(fabs(gp__ckpt_mttf(c, 128) / 3600.0 - 7.91) < 0.01);
	c->site.node_failures_per_1k_days = 3.8;
	/* 3.8 failures per 1,000 node-days: 1,000 nodes fail every 1/3.8 day */
	assert_true(fabs(gp__ckpt_mttf(c, 1000) - 86400.0 / 3.8) < 1e-6);
	assert_true(fabs(gp__ckpt_mttf(c, 8) * 8 - gp__ckpt_mttf(c, 1)) < 1e-6);
	gp_cluster_destroy(c);
}

static void plan_for(gp_cluster_t *c, const int32_t *nodes, int32_t n, double bytes,
                     const gp_ckpt_booking_t *b, int32_t nb, gp_ckpt_plan_t *p)
{
	gp_ckpt_job_t job = { .job_id = 1, .ckpt_bytes = bytes, .restart_s = 300,
	                      .nodes = nodes, .nnodes = n };
	gp_error_t err;

	assert_int_equal(gp__ckpt_plan(c, &job, b, nb, p, &err), GP_OK);
}

static void test_target_choice_follows_bandwidth(void **unused)
{
	static const int32_t all[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	gp_ckpt_plan_t p;
	gp_ckpt_booking_t busy[3];
	gp_cluster_t *c = fixture(5, 20, 50);
	int i;

	/* 8 x 5 GB/s NVMe = 40 GB/s < 50 GB/s file system < 2 x 20 GB/s... per
	 * rack 4 nodes' shards through 20 GB/s = 40 GB/s aggregate: pfs wins */
	plan_for(c, all, 8, 1e12, NULL, 0, &p);
	assert_string_equal(c->storage[p.storage].name, "pfs");
	assert_true(fabs(p.write_s - 20.0) < 1e-9); /* 1 TB / 50 GB/s */
	assert_true(p.signal_lead_s >= p.write_s);

	/* the file system is 90 % booked by others: node NVMe wins */
	for (i = 0; i < 3; i++) {
		busy[i] = (gp_ckpt_booking_t){ .job_id = 100 + i, .storage = 2, .scope_index = -1,
		                               .interval_s = 1000, .offset_s = i * 300, .write_s = 300 };
	}
	plan_for(c, all, 8, 1e12, busy, 3, &p);
	assert_string_equal(c->storage[p.storage].name, "nvme");
	assert_true(fabs(p.write_s - 25.0) < 1e-9); /* 125 GB per node / 5 GB/s */
	gp_cluster_destroy(c);

	/* faster NVMe beats the idle file system too */
	c = fixture(10, 20, 50);
	plan_for(c, all, 8, 1e12, NULL, 0, &p);
	assert_string_equal(c->storage[p.storage].name, "nvme");
	gp_cluster_destroy(c);

	/* a job in one rack: the rack buffer (20 GB/s) beats 2 x 5 GB/s NVMe but
	 * not the 50 GB/s file system; with a slow file system it wins */
	c = fixture(5, 20, 15);
	plan_for(c, all, 2, 1e11, NULL, 0, &p);
	assert_string_equal(c->storage[p.storage].name, "bb");
	assert_int_equal(p.scope_index, 0);
	gp_cluster_destroy(c);
}

static void test_unreachable_storage(void **unused)
{
	static const int32_t nodes[] = { 0, 1 };
	gp_cluster_t *c = fixture(5, 20, 50);
	gp_ckpt_plan_t p;
	int32_t only6 = 6;
	int i;

	for (i = 0; i < 3; i++) {
		c->storage[i].nodes = malloc(sizeof(int32_t));
		assert_non_null(c->storage[i].nodes);
		c->storage[i].nodes[0] = only6;
		c->storage[i].nnodes = 1;
	}
	plan_for(c, nodes, 2, 1e11, NULL, 0, &p);
	assert_int_equal(p.storage, -1);
	gp_cluster_destroy(c);
}

/* Is time t inside any window of booking b? */
static bool in_window(const gp_ckpt_booking_t *b, double t)
{
	double x = fmod(t - b->offset_s + 1e6 * b->interval_s, b->interval_s);

	return x < b->write_s;
}

static void test_staggered_windows_disjoint(void **unused)
{
	/* only the shared file system is reachable: every job books it */
	gp_cluster_t *c = fixture(0, 0, 100);
	gp_ckpt_booking_t book[8];
	int32_t nodes[8][1];
	double h = 0, t;
	int j, k;

	for (j = 0; j < 8; j++) {
		gp_ckpt_plan_t p;

		nodes[j][0] = j;
		/* sizes 200..900 GB: writes of 2..9 s on 100 GB/s */
		plan_for(c, nodes[j], 1, (2.0 + j) * 1e11, book, j, &p);
		assert_string_equal(c->storage[p.storage].name, "pfs");
		assert_false(p.overlap);
		/* harmonic period: base * 2^k */
		assert_true(fabs(log2(p.interval_s / GP_CKPT_BASE_S) -
		                 round(log2(p.interval_s / GP_CKPT_BASE_S))) < 1e-9);
		gp__ckpt_booking_of(&p, (uint32_t)j, &book[j]);
		if (p.interval_s > h)
			h = p.interval_s;
	}
	/* check independently: at no sampled instant do two jobs write */
	for (t = 0; t < h; t += 0.25) {
		int writing = 0;

		for (k = 0; k < 8; k++)
			writing += in_window(&book[k], t + 0.125);
		if (writing > 1)
			fail_msg("%d jobs write at t=%.3f", writing, t + 0.125);
	}
	gp_cluster_destroy(c);
}

static void test_saturated_target_reports_overlap(void **unused)
{
	gp_cluster_t *c = fixture(0, 0, 1);
	gp_ckpt_booking_t book[4];
	int32_t n0 = 0;
	gp_ckpt_plan_t p;
	int j;

	/* 60 s windows every 60 s (base period) fill the target */
	for (j = 0; j < 4; j++)
		book[j] = (gp_ckpt_booking_t){ .storage = 2, .scope_index = -1,
		                               .interval_s = 60, .offset_s = 15 * j, .write_s = 15 };
	plan_for(c, &n0, 1, 1e10, book, 4, &p);
	assert_true(p.overlap);
	gp_cluster_destroy(c);
}

static void test_buddy_other_rack_fewest_hops(void **unused)
{
	static const int32_t in_a[] = { 0, 1 };
	static const int32_t spans[] = { 0, 1, 6 };
	static const int32_t in_b[] = { 6, 7 };
	gp_cluster_t *c = fixture(5, 20, 50);
	gp_ckpt_plan_t p;

	assert_int_equal(gp__node_hops(c, 0, 0), 0);
	assert_int_equal(gp__node_hops(c, 0, 5), 2);
	assert_int_equal(gp__node_hops(c, 0, 6), 4);

	/* job inside rackA: n4 is in rackB but on n0's leaf (2 hops) */
	plan_for(c, in_a, 2, 1e11, NULL, 0, &p);
	assert_string_equal(c->nodes[p.buddy].name, "n4");
	assert_int_equal(p.buddy_hops, 2);
	/* a job that has a node in another rack uses its own node first */
	plan_for(c, spans, 3, 1e11, NULL, 0, &p);
	assert_string_equal(c->nodes[p.buddy].name, "n6");
	/* job inside rackB on leafB: nearest rackA node is 4 hops away */
	plan_for(c, in_b, 2, 1e11, NULL, 0, &p);
	assert_int_equal(c->nodes[p.buddy].rack, 0);
	assert_int_equal(p.buddy_hops, 4);
	assert_int_not_equal(c->nodes[p.buddy].rack, c->nodes[6].rack);
	gp_cluster_destroy(c);
}

/* Expected waste of a finite run by simulation: exponential failures of
 * mean M, restart R, a dump of delta after every tau of work that ends
 * before the limit T, the lost work since the last dump redone.  The
 * scenario is made here, independently of the formula under test. */
static double simulate_waste(double T, double P, double delta, double R, double M, int runs,
                             unsigned *seed)
{
	double wall_sum = 0, work_total;
	int k = 0, i;

	if (P > delta && P < T)
		k = (int)ceil(T / P) - 1;
	work_total = T - k * delta;
	for (i = 0; i < runs; i++) {
		double wall = 0;
		int seg = 0;

		while (seg <= k) {
			double len = seg < k ? P : work_total - k * (P - delta); /* last: no dump */
			double u = (rand_r(seed) + 1.0) / ((double)RAND_MAX + 2.0);
			double fail = -M * log(u);

			if (fail >= len) {
				wall += len;
				seg++;
				continue;
			}
			wall += fail + R; /* lost: fail, then the restart */
		}
		wall_sum += wall;
	}
	return 1.0 - work_total * runs / wall_sum;
}

/* The plan honours the time limit: no checkpoint the run cannot reach,
 * and the waste is that of the real run (checked by simulation). */
/* The buddy on finished clusters (searched up the writer's switches) is
 * the one a scan of every node picks: the job's own nodes first (the first
 * of the fewest hops in job order), else the node of the fewest hops in
 * another rack, the lowest index among equals.  Random clusters of leaves,
 * spines and a core, racks smaller or larger than leaves; random jobs. */
static void test_buddy_search_matches_scan(void **unused)
{
	uint64_t rng = 0x2545f4914f6cdd1dull;
	int inst, checked = 0;

	(void)unused;
	for (inst = 0; inst < 300; inst++) {
		fx_params_t fp;
		gp_cluster_t *c = NULL;
		gp_error_t err = { "" };
		int32_t nodes[8], n, i, want = -1, whops = -1;
		gp_ckpt_plan_t p;

#define RND(k) (rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17, (int32_t)(rng % (uint64_t)(k)))
		memset(&fp, 0, sizeof(fp));
		fp.nnodes = 4 + RND(60);
		fp.gpus = 8;
		fp.nodes_per_leaf = 1 + RND(8);
		fp.leaves_per_spine = RND(3) ? 1 + RND(4) : 0;
		fp.nodes_per_rack = 1 + RND(12);
		assert_int_equal(fx_build(&fp, &c, &err), GP_OK);
		assert_non_null(c->node_order);
		n = 1 + RND(3);
		for (i = 0; i < n; i++)
			nodes[i] = RND(c->nnodes);
		if (n > 1 && nodes[1] == nodes[0])
			n = 1;
		if (n > 2 && (nodes[2] == nodes[0] || nodes[2] == nodes[1]))
			n = 2;
		/* the reference: a scan of the job's nodes, then of every node */
		if (c->nodes[nodes[0]].rack >= 0) {
			int pass;

			for (pass = 0; pass < 2 && want < 0; pass++)
				for (i = 0; i < (pass ? c->nnodes : n); i++) {
					int32_t cand = pass ? i : nodes[i];
					int h;

					if (c->nodes[cand].rack < 0 ||
					    c->nodes[cand].rack == c->nodes[nodes[0]].rack)
						continue;
					h = gp__node_hops(c, nodes[0], cand);
					if (h >= 0 && (want < 0 || h < whops)) {
						want = cand;
						whops = h;
					}
				}
		}
		plan_for(c, nodes, n, 1e11, NULL, 0, &p);
		if (p.buddy != want || p.buddy_hops != whops)
			fail_msg("instance %d (%d nodes, %d per leaf, %d per rack): buddy %d (%d hops), "
			         "a scan gives %d (%d hops)", inst, (int)c->nnodes, fp.nodes_per_leaf,
			         fp.nodes_per_rack, (int)p.buddy, p.buddy_hops, (int)want, whops);
		checked += want >= 0;
		gp_cluster_destroy(c);
#undef RND
	}
	assert_true(checked >= 200);
}

static void test_plan_fits_time_limit(void **unused)
{
	static const int32_t all[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	gp_cluster_t *c = fixture(5, 20, 50);
	gp_ckpt_job_t job = { .job_id = 1, .ckpt_bytes = 1e12, .restart_s = 300,
	                      .nodes = all, .nnodes = 8 };
	gp_ckpt_plan_t unl, lim;
	gp_error_t err;
	unsigned seed = 19;
	double sim;
	int32_t n;

	/* 3.8 per 1,000 node-days on 8 nodes: Daly's optimum is far beyond an
	 * hour */
	c->site.node_failures_per_1k_days = 3.8;
	assert_int_equal(gp__ckpt_plan(c, &job, NULL, 0, &unl, &err), GP_OK);
	assert_true(unl.interval_s > 3600);
	job.run_s = 3600;
	assert_int_equal(gp__ckpt_plan(c, &job, NULL, 0, &lim, &err), GP_OK);
	assert_true(lim.interval_s < 3600);
	assert_true(lim.interval_s == 0 || lim.count * lim.interval_s < 3600);
	assert_true(lim.waste < unl.waste); /* no write the run never needed */
	assert_true(fabs(lim.waste - gp__ckpt_run_waste(3600, lim.interval_s, lim.write_s,
	                                                 lim.restart_s, lim.mttf_s, &n)) < 1e-12);
	assert_int_equal(n, lim.count);

	/* a short MTTF: periodic checkpoints pay, all before the limit */
	c->site.node_failures_per_1k_days = 2000; /* 8 nodes: MTTF 5,400 s */
	job.run_s = 8 * 3600;
	assert_int_equal(gp__ckpt_plan(c, &job, NULL, 0, &lim, &err), GP_OK);
	assert_true(lim.interval_s > 0 && lim.count >= 1);
	assert_true(lim.count * lim.interval_s < job.run_s);
	assert_true((lim.count + 1) * lim.interval_s >= job.run_s);
	/* the waste the plan reports is what a simulation of that run loses */
	sim = simulate_waste(job.run_s, lim.interval_s, lim.write_s, lim.restart_s, lim.mttf_s,
	                     20000, &seed);
	assert_true(fabs(sim - lim.waste) < 0.01 + 0.05 * lim.waste);
	/* and every other harmonic period (or none) loses more */
	for (n = 0; n <= 12; n++) {
		double per = GP_CKPT_BASE_S * ldexp(1.0, n);

		if (per >= job.run_s || per <= lim.write_s)
			continue;
		assert_true(gp__ckpt_run_waste(job.run_s, per, lim.write_s, lim.restart_s,
		                               lim.mttf_s, NULL) >= lim.waste - 1e-12);
	}
	assert_true(gp__ckpt_run_waste(job.run_s, 0, lim.write_s, lim.restart_s, lim.mttf_s,
	                               NULL) >= lim.waste);
	gp_cluster_destroy(c);
}

/* The restart time is the site's (RestartSeconds) unless the job gives
 * its own; the checkpoint read is added to either. */
static void test_restart_from_site_or_job(void **unused)
{
	static const int32_t all[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	gp_cluster_t *c = fixture(5, 20, 50);
	gp_ckpt_job_t job = { .job_id = 1, .ckpt_bytes = 1e12, .restart_s = -1,
	                      .nodes = all, .nnodes = 8 };
	gp_ckpt_plan_t a, b;
	gp_error_t err;
	double read_s;

	assert_true(c->site.restart_s == 300.0); /* the documented default */
	c->site.restart_s = 1800;
	assert_int_equal(gp__ckpt_plan(c, &job, NULL, 0, &a, &err), GP_OK);
	read_s = a.restart_s - 1800;
	assert_true(read_s >= 0 && read_s < 1e3);
	c->site.restart_s = 60;
	assert_int_equal(gp__ckpt_plan(c, &job, NULL, 0, &b, &err), GP_OK);
	assert_true(fabs(b.restart_s - (60 + read_s)) < 1e-9);
	/* a longer restart makes failures dearer: more waste */
	assert_true(a.waste > b.waste);
	/* the job's own restart time wins over the site's */
	job.restart_s = 900;
	assert_int_equal(gp__ckpt_plan(c, &job, NULL, 0, &b, &err), GP_OK);
	assert_true(fabs(b.restart_s - (900 + read_s)) < 1e-9);
	gp_cluster_destroy(c);
}

static void test_errors(void **unused)
{
	gp_cluster_t *c = fixture(5, 20, 50);
	int32_t bad = 99, ok = 0;
	gp_ckpt_job_t job = { .job_id = 7, .ckpt_bytes = 1e9, .nodes = &ok, .nnodes = 1 };
	gp_ckpt_plan_t p;
	gp_error_t err;

	job.nnodes = 0;
	assert_int_equal(gp__ckpt_plan(c, &job, NULL, 0, &p, &err), GP_EINVAL);
	assert_non_null(strstr(err.text, "job 7 has no nodes"));
	job.nnodes = 1;
	job.ckpt_bytes = 0;
	assert_int_equal(gp__ckpt_plan(c, &job, NULL, 0, &p, &err), GP_EINVAL);
	assert_non_null(strstr(err.text, "checkpoint size"));
	job.ckpt_bytes = 1e9;
	job.nodes = &bad;
	assert_int_equal(gp__ckpt_plan(c, &job, NULL, 0, &p, &err), GP_EINVAL);
	assert_non_null(strstr(err.text, "node index 99"));
	assert_int_equal(gp__ckpt_plan(c, NULL, NULL, 0, &p, &err), GP_EINVAL);
	assert_int_equal(p.storage, -1);
	gp_cluster_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_daly_formula),
		cmocka_unit_test(test_daly_minimises_waste),
		cmocka_unit_test(test_mttf_scales_with_nodes),
		cmocka_unit_test(test_target_choice_follows_bandwidth),
		cmocka_unit_test(test_unreachable_storage),
		cmocka_unit_test(test_staggered_windows_disjoint),
		cmocka_unit_test(test_saturated_target_reports_overlap),
		cmocka_unit_test(test_buddy_other_rack_fewest_hops),
		cmocka_unit_test(test_buddy_search_matches_scan),
		cmocka_unit_test(test_plan_fits_time_limit),
		cmocka_unit_test(test_restart_from_site_or_job),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
