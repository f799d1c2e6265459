/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_steer.c - plugin/steer.c on the model alone: the power of the
 * plugin's own recent decisions (its ledger) taken off the racks' headroom,
 * so a burst of decisions made between two readings of the cluster cannot
 * over-commit a rack; and the advance reservations that keep a job off
 * nodes, or inside them; and which pending jobs the steering pass looks
 * at, in which order.  The cluster is the test cluster of
 * tests/slurm/harness.sh (tests/data/slurm/conf: 2 racks x 4 nodes x 4
 * A100, 400 W TDP, 50 W idle, 1 kW per node), its racks' caps lowered so
 * that each has room for two GPUs at full power.
 */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "decide.h"
#include "policy.h"
#include "request.h"
#include "steer.h"
#include "synth.h"

struct fx {
	gp_cluster_t *c;
	gp_state_t *s;
	gp_engine_t *e;
	gp_policy_t p;
	gp_rack_view_t racks[4];
};

static int setup(void **state)
{
	const char *top = getenv("GP_TOP_SRCDIR");
	struct fx *f = calloc(1, sizeof(*f));
	char dir[4096];
	gp_error_t err;
	int32_t r;

	snprintf(dir, sizeof(dir), "%s/tests/data/slurm/conf", top ? top : ".");
	if (gp_cluster_load_conf_dir(dir, &f->c, &err) != GP_OK)
		fail_msg("%s", err.text);
	assert_int_equal(f->c->nracks, 2);
	/* 4 x 1 kW + 16 idle GPUs x 50 W = 4.8 kW; a 6 kW cap less the policy's
	 * margin leaves some 900 W: two GPUs at 350 W above idle, not three */
	for (r = 0; r < f->c->nracks; r++)
		f->c->racks[r].power_cap_kw = f->c->racks[r].cooling_kw = 6.0;
	assert_int_equal(gp_state_create(f->c, &f->s), GP_OK);
	assert_int_equal(gp__engine_create(f->c, &f->e, &err), GP_OK);
	gp__policy_default(f->c, &f->p);
	gp__power_view_fill(f->c, f->s, NULL, &f->p, 0.0, f->racks);
	for (r = 0; r < f->c->nracks; r++) {
		assert_true(f->racks[r].headroom_w >= 700.0);
		assert_true(f->racks[r].headroom_w < 1050.0);
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	gp__engine_destroy(f->e);
	gp_state_destroy(f->s);
	gp_cluster_destroy(f->c);
	free(f);
	return 0;
}

static void subtract_counts_tdp_or_cap(void **state)
{
	struct fx *f = *state;
	gp_rack_view_t v[2];
	int32_t nodes[2] = { 0, 4 };             /* n1 (rack A), n5 (rack B) */
	uint32_t mask[2] = { 0x3, 0x1 };          /* 2 GPUs, 1 GPU */
	double a = f->racks[0].headroom_w, b = f->racks[1].headroom_w;

	memcpy(v, f->racks, sizeof(v));
	gp_ledger_power_subtract(f->c, v, nodes, mask, 2, 0.0);
	assert_float_equal(v[0].headroom_w, a - 2 * (400.0 - 50.0), 1e-9);
	assert_float_equal(v[1].headroom_w, b - 1 * (400.0 - 50.0), 1e-9);
	/* capped at 250 W: 200 W above idle per GPU */
	memcpy(v, f->racks, sizeof(v));
	gp_ledger_power_subtract(f->c, v, nodes, mask, 2, 250.0);
	assert_float_equal(v[0].headroom_w, a - 2 * 200.0, 1e-9);
	/* never below zero; a cap above TDP counts as TDP */
	memcpy(v, f->racks, sizeof(v));
	mask[0] = 0xf;
	gp_ledger_power_subtract(f->c, v, nodes, mask, 1, 900.0);
	gp_ledger_power_subtract(f->c, v, nodes, mask, 1, 900.0);
	assert_float_equal(v[0].headroom_w, 0.0, 1e-9);
	/* no limit known stays so; bad node indices are skipped */
	v[1].headroom_w = INFINITY;
	nodes[0] = 99;
	gp_ledger_power_subtract(f->c, v, nodes + 1, mask + 1, 1, 0.0);
	gp_ledger_power_subtract(f->c, v, nodes, mask, 1, 0.0);
	assert_true(isinf(v[1].headroom_w));
}

/*
 * A burst of 2-GPU decisions on one snapshot: each decision's GPUs become
 * busy for the next (the ledger's GPUs), and the racks' headroom is the
 * snapshot's less (with_ledger) or not less (!with_ledger) the power of the
 * earlier decisions.  Returns the most power planned on one rack above
 * that rack's headroom (<= 0 when no rack is over-committed).
 */
static double burst(struct fx *f, bool with_ledger, int jobs, int *placed)
{
	gp_rack_view_t v[2];
	double planned[2] = { 0, 0 }, over = -INFINITY;
	int i, r;

	memset(f->s->alloc_mask, 0, (size_t)f->c->nnodes * sizeof(*f->s->alloc_mask));
	*placed = 0;
	for (i = 0; i < jobs; i++) {
		gp_request_t rq;
		gp_decision_t d;
		gp_error_t err;
		gp_power_view_t pv = { v, gp__power_view_cap_speed, false };
		const gp_scored_t *b;
		int32_t k;

		memcpy(v, f->racks, sizeof(v));
		if (with_ledger)
			for (r = 0; r < 2; r++)
				v[r].headroom_w = fmax(0.0, f->racks[r].headroom_w - planned[r]);
		gp__request_init(&rq);
		rq.gpus = 2;
		memset(&d, 0, sizeof(d));
		assert_int_equal(gp__decide(f->e, f->s, &rq, NULL, &f->p, &pv, 0, NULL, 0, &d, &err),
		                 GP_OK);
		if (d.kind != GP_DECIDE_REJECT && d.ncands > 0 && !d.cands[0].future) {
			b = &d.cands[0];
			for (r = 0; r < 2; r++) {
				gp_rack_view_t one[2];

				memset(one, 0, sizeof(one));

				one[r].headroom_w = 1e9;
				gp_ledger_power_subtract(f->c, one, b->nodes, b->gpu_mask, b->nnodes,
				                         b->cap_w);
				planned[r] += 1e9 - one[r].headroom_w;
			}
			for (k = 0; k < b->nnodes; k++)
				f->s->alloc_mask[b->nodes[k]] |= b->gpu_mask[k];
			(*placed)++;
		}
		gp__decision_clear(&d);
		gp__request_clear(&rq);
	}
	for (r = 0; r < 2; r++)
		over = fmax(over, planned[r] - f->racks[r].headroom_w);
	return over;
}

static void burst_never_overcommits_a_rack(void **state)
{
	struct fx *f = *state;
	int placed;
	double over;

	f->p.allow_power_cap = false;
	/* the scenario is real: on the snapshot's headroom alone, every job
	 * of the burst sees room and the racks end up over-committed */
	over = burst(f, false, 8, &placed);
	assert_true(over > 0);
	/* with the ledger's power taken off: one 2-GPU job per rack, no more */
	over = burst(f, true, 8, &placed);
	assert_true(over <= 1e-6);
	assert_int_equal(placed, 2);
	/* with power caps allowed the ledger counts the caps: still within */
	f->p.allow_power_cap = true;
	over = burst(f, true, 8, &placed);
	assert_true(over <= 1e-6);
	assert_true(placed >= 2);
}

/* ---- reservations ---------------------------------------------------------- */

static void resv_convert_and_apply(void **state)
{
	struct fx *f = *state;
	reserve_info_t ri[4];
	reserve_info_msg_t msg;
	gp_resv_view_t v = { 0 };
	uint32_t flags[8];
	char why[256];
	int i;

	memset(ri, 0, sizeof(ri));
	memset(&msg, 0, sizeof(msg));
	/* the case: n[1-6] reserved now for another user, an hour */
	ri[0].name = "other";
	ri[0].node_list = "n[1-6]";
	ri[0].start_time = 1000;
	ri[0].end_time = 1000 + 3600;
	/* n8 reserved in two hours */
	ri[1].name = "later";
	ri[1].node_list = "n8,ghost";   /* a node outside the model is skipped */
	ri[1].start_time = 1000 + 7200;
	ri[1].end_time = 1000 + 9000;
	/* licenses only, and ANY_NODES: hold no node */
	ri[2].name = "lic";
	ri[2].licenses = "matlab:2";
	ri[2].start_time = 0;
	ri[2].end_time = 1 << 30;
	ri[3].name = "any";
	ri[3].node_list = "n7";
	ri[3].flags = RESERVE_FLAG_ANY_NODES;
	ri[3].start_time = 0;
	ri[3].end_time = 1 << 30;
	msg.record_count = 4;
	msg.reservation_array = ri;
	assert_int_equal(gp_resv_convert(f->c, &msg, &v, why, sizeof(why)), 0);
	assert_int_equal(v.n, 2);
	assert_string_equal(v.r[0].name, "other");
	assert_int_equal(v.r[0].nnodes, 6);
	assert_int_equal(v.r[1].nnodes, 1);

	/* a one-hour job at t=1000: n[1-6] are not its to take, n8 is (the
	 * later reservation starts after its run) */
	memset(flags, 0, sizeof(flags));
	assert_int_equal(gp_resv_apply(f->c, &v, NULL, 1000, 3600, flags, why, sizeof(why)), 0);
	for (i = 0; i < 6; i++)
		assert_true(flags[i] & GP_NODE_RESERVED);
	assert_false(flags[6] & GP_NODE_RESERVED);
	assert_false(flags[7] & GP_NODE_RESERVED);
	/* a three-hour job, or one without a time limit, would run into it */
	memset(flags, 0, sizeof(flags));
	assert_int_equal(gp_resv_apply(f->c, &v, "", 1000, 3 * 3600, flags, why, sizeof(why)), 0);
	assert_true(flags[7] & GP_NODE_RESERVED);
	memset(flags, 0, sizeof(flags));
	assert_int_equal(gp_resv_apply(f->c, &v, NULL, 1000, 0, flags, why, sizeof(why)), 0);
	assert_true(flags[7] & GP_NODE_RESERVED);
	assert_false(flags[6] & GP_NODE_RESERVED);
	/* after the first reservation ended, only the later one counts */
	memset(flags, 0, sizeof(flags));
	assert_int_equal(gp_resv_apply(f->c, &v, NULL, 1000 + 3600, 60, flags, why, sizeof(why)), 0);
	for (i = 0; i < 8; i++)
		assert_false(flags[i] & GP_NODE_RESERVED);

	/* a job in "other": inside n[1-6] only, Slurm's RESERVED state on
	 * them lifted, other flags (drained) kept */
	for (i = 0; i < 8; i++)
		flags[i] = GP_NODE_RESERVED;
	flags[2] |= GP_NODE_DRAIN;
	assert_int_equal(gp_resv_apply(f->c, &v, "other", 1000, 3600, flags, why, sizeof(why)), 0);
	for (i = 0; i < 6; i++)
		assert_false(flags[i] & GP_NODE_RESERVED);
	assert_true(flags[2] & GP_NODE_DRAIN);
	assert_true(flags[6] & GP_NODE_RESERVED);
	assert_true(flags[7] & GP_NODE_RESERVED);
	/* two reservations: their union */
	memset(flags, 0, sizeof(flags));
	assert_int_equal(gp_resv_apply(f->c, &v, "other,later", 1000, 60, flags, why, sizeof(why)),
	                 0);
	assert_false(flags[7] & GP_NODE_RESERVED);
	assert_true(flags[6] & GP_NODE_RESERVED);
	/* an unknown reservation: left to Slurm, named */
	assert_int_equal(gp_resv_apply(f->c, &v, "nosuch", 1000, 60, flags, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "nosuch"));
	assert_int_equal(gp_resv_apply(f->c, &v, "other,nosuch", 1000, 60, flags, why, sizeof(why)),
	                 -1);

	/* one node at a time (the release of a pinned job without its
	 * original, steer_pass.c): as the whole pass says, for every case */
	{
		static const struct {
			const char *resv;
			int64_t now, run;
		} cases[] = {
			{ NULL, 1000, 3600 }, { "", 1000, 3 * 3600 }, { NULL, 1000, 0 },
			{ NULL, 1000 + 3600, 60 }, { "other", 1000, 3600 }, { "later", 1000, 60 },
			{ "other,later", 1000, 60 }, { NULL, 1000 + 9000, 0 },
		};
		size_t q;
		int32_t blocked = 0;

		for (q = 0; q < sizeof(cases) / sizeof(cases[0]); q++) {
			memset(flags, 0, sizeof(flags));
			assert_int_equal(gp_resv_apply(f->c, &v, cases[q].resv, cases[q].now,
			                               cases[q].run, flags, why, sizeof(why)), 0);
			for (i = 0; i < 8; i++) {
				int b = gp_resv_node_blocked(&v, cases[q].resv, cases[q].now,
				                             cases[q].run, (int32_t)i);

				assert_int_equal(b, (flags[i] & GP_NODE_RESERVED) != 0);
				blocked += b;
			}
		}
		assert_true(blocked > 8); /* the cases block some nodes */
		assert_int_equal(gp_resv_node_blocked(&v, "nosuch", 1000, 60, 0), -1);
		assert_int_equal(gp_resv_node_blocked(&v, "other,nosuch", 1000, 60, 0), -1);
	}

	/* ALL holds every node; a node list that is not a host list is an error */
	ri[0].node_list = "ALL";
	msg.record_count = 1;
	assert_int_equal(gp_resv_convert(f->c, &msg, &v, why, sizeof(why)), 0);
	assert_int_equal(v.r[0].nnodes, 8);
	ri[0].node_list = "n[1-";
	assert_int_equal(gp_resv_convert(f->c, &msg, &v, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "reservation other"));
	assert_int_equal(v.n, 0);
	gp_resv_view_clear(&v);
}

/* ---- steering: which pending jobs, in which order -------------------------- */

static void comment_ref_reads_only_a_reference(void **state)
{
	(void)state;
	assert_true(gp_comment_ref("gpuplace: PIN n[1-2]; step 1 s; ref 1795444746000009") ==
	            1795444746000009ULL);
	assert_true(gp_comment_ref("gpuplace: PIN n1; ref 12; later") == 12);
	assert_true(gp_comment_ref("gpuplace: PIN n1; ref x") == 0);
	assert_true(gp_comment_ref("gpuplace: PIN n1; ref 12x") == 0);
	assert_true(gp_comment_ref("ref 12") == 0);
	assert_true(gp_comment_ref(NULL) == 0);
}

static void pick_pending_placed_jobs_by_priority(void **state)
{
	slurm_job_info_t j[8];
	gp_steer_cand_t out[8];
	int n, i;

	(void)state;
	memset(j, 0, sizeof(j));
	for (i = 0; i < 8; i++) {
		j[i].job_id = (uint32_t)(100 + i);
		j[i].job_state = JOB_PENDING;
		j[i].priority = 1000;
		j[i].submit_time = 50;
		j[i].state_reason = WAIT_RESOURCES;
	}
	/* after job_submit/lua's text: gpuplace's part is found where it is */
	j[0].admin_comment = "lua: site=x gpuplace: PIN n[1-2]; step 1 s; ref 7";
	j[0].priority = 10;
	j[1].admin_comment = "gpuplace: CONSTRAIN [a|b]; step 1 s; ref 8";
	j[1].priority = 20;
	j[2].admin_comment = "gpuplace: PIN n3; ref 9";        /* running: never */
	j[2].job_state = JOB_RUNNING;
	j[3].admin_comment = "gpuplace: PIN n4; ref 10";       /* held */
	j[3].priority = 0;
	j[3].state_reason = WAIT_HELD;
	j[4].admin_comment = "gpuplace: PIN n5; ref 11";       /* dependency */
	j[4].state_reason = WAIT_DEPENDENCY;
	j[5].admin_comment = "site note; ref 12 gpuplace: PASS two types; ref 0"; /* not placed */
	j[6].admin_comment = "gpuplace: PIN n6; step 1 s";     /* no reference */
	j[7].admin_comment = "gpuplace: PIN n7; ref 13";       /* configuring */
	j[7].job_state = JOB_PENDING | JOB_CONFIGURING;
	n = gp_steer_pick(j, 8, out, 8);
	assert_int_equal(n, 2);
	/* Slurm's priority order: 20 before 10 */
	assert_int_equal(out[0].job_id, 101);
	assert_false(out[0].pinned);
	assert_true(out[0].ref == 8);
	assert_int_equal(out[1].job_id, 100);
	assert_true(out[1].pinned);
	/* ties: the earlier submission first */
	j[0].priority = j[1].priority = 5;
	j[0].submit_time = 40;
	n = gp_steer_pick(j, 8, out, 8);
	assert_int_equal(n, 2);
	assert_int_equal(out[0].job_id, 100);
	/* a passed job kept to a rack carries a reference, for job_modify
	 * alone: never steered */
	j[5].admin_comment = "gpuplace: PASS kept to one rack for its power license; ref 14";
	n = gp_steer_pick(j, 8, out, 8);
	assert_int_equal(n, 2);
	assert_true(out[0].job_id != 105 && out[1].job_id != 105);
}

/* The steering rules both the plugin and the simulator apply
 * (cost_model/steer_rules.h): when a job is looked at, with which policy it is
 * re-decided, when a re-decision moves it, and the pass's budget. */
/* Nodes planned for jobs ahead in Slurm's priority order are held for a
 * re-decision; its own plan and plans of jobs behind it are not. */
static void steer_holds_nodes_planned_ahead(void **state)
{
	int32_t n1[] = { 0, 1 }, n2[] = { 2, 3 }, n3[] = { 4, 9, -1 }, n4[] = { 5 };
	gp_steer_plan_t plans[] = {
		{ .job_id = 10, .priority = 9, .submit_time = 50, .nodes = n1, .nnodes = 2 },
		{ .job_id = 11, .priority = 5, .submit_time = 10, .nodes = n2, .nnodes = 2 },
		{ .job_id = 12, .priority = 5, .submit_time = 20, .nodes = n3, .nnodes = 3 },
		{ .job_id = 13, .priority = 5, .submit_time = 20, .nodes = n4, .nnodes = 1 },
	};
	gp_steer_cand_t k = { .job_id = 12, .priority = 5, .submit_time = 20 };
	uint32_t flags[8] = { 0 };

	(void)state;
	/* ahead: higher priority (10), same priority submitted earlier (11);
	 * not: itself (12), same priority and time with a higher id (13);
	 * nodes outside the model are skipped */
	flags[1] = GP_NODE_DRAIN;
	assert_int_equal(gp_steer_hold_planned(&k, 0, plans, 4, flags, 8), 4);
	assert_true(flags[0] == GP_NODE_RESERVED);
	assert_true(flags[1] == (GP_NODE_DRAIN | GP_NODE_RESERVED));
	assert_true(flags[2] == GP_NODE_RESERVED && flags[3] == GP_NODE_RESERVED);
	assert_true(flags[4] == 0 && flags[5] == 0 && flags[6] == 0 && flags[7] == 0);
	/* the first job in the order: nothing held */
	memset(flags, 0, sizeof(flags));
	k = (gp_steer_cand_t){ .job_id = 10, .priority = 9, .submit_time = 50 };
	assert_int_equal(gp_steer_hold_planned(&k, 0, plans, 4, flags, 8), 0);
	/* same priority and submission: the lower job id is ahead */
	k = (gp_steer_cand_t){ .job_id = 14, .priority = 5, .submit_time = 20 };
	assert_int_equal(gp_steer_hold_planned(&k, 0, plans, 4, flags, 8), 6);
	assert_true(flags[5] == GP_NODE_RESERVED && flags[4] == GP_NODE_RESERVED);
	assert_int_equal(gp_steer_hold_planned(NULL, 0, plans, 4, flags, 8), 0);
	/* with planned starts: a job that reaches its limit by a plan's start
	 * is not held off that plan's nodes (Slurm backfills it there) */
	memset(flags, 0, sizeof(flags));
	plans[0].start_time = 1000;
	plans[1].start_time = 2000;
	assert_int_equal(gp_steer_hold_planned(&k, 1000, plans, 4, flags, 8), 2);
	assert_true(flags[0] == 0 && flags[1] == 0 && flags[2] == 0 && flags[3] == 0);
	assert_true(flags[4] == GP_NODE_RESERVED && flags[5] == GP_NODE_RESERVED);
	memset(flags, 0, sizeof(flags));
	assert_int_equal(gp_steer_hold_planned(&k, 1001, plans, 4, flags, 8), 4);
	assert_true(flags[0] == GP_NODE_RESERVED && flags[2] == 0);
}

static void steer_rules_table(void **state)
{
	gp_policy_t p, out;
	gp_steer_job_t j;
	gp_decision_t d;
	gp_scored_t sc;
	gp_steer_cand_t c[3] = {
		{ .job_id = 9, .priority = 5, .submit_time = 10 },
		{ .job_id = 7, .priority = 5, .submit_time = 10 },
		{ .job_id = 3, .priority = 6, .submit_time = 20 },
	};
	char why[160];

	(void)state;
	assert_int_equal(gp__policy_preset("balanced", &p, NULL), GP_OK);
	assert_int_equal(p.steer_max, 8);
	assert_int_equal(p.steer_interval_s, 30);
	/* budget: 8 moves and 32 re-decisions per refresh; none when off */
	assert_true(gp_steer_budget(&p, 7, 31));
	assert_false(gp_steer_budget(&p, 8, 0));
	assert_false(gp_steer_budget(&p, 0, 32));
	p.steer_max = 0;
	assert_false(gp_steer_budget(&p, 0, 0));
	p.steer_max = 8;

	/* PINned: looked at every refresh, re-decided only when taken */
	gp_steer_job_init(&j, true, 100, 0.0, false);
	assert_true(gp_steer_due(&j, &p, 100));
	assert_int_equal(gp_steer_redecide(&j, &p, 102, false, &out, why, sizeof(why)), 0);
	assert_int_equal(gp_steer_redecide(&j, &p, 102, true, &out, why, sizeof(why)), 1);
	assert_string_equal(why, "its pinned nodes were taken");
	assert_true(out.max_wait_s == p.max_wait_s);
	/* moved: not again within the interval */
	gp_steer_moved(&j, 102);
	assert_false(gp_steer_due(&j, &p, 131));
	assert_true(gp_steer_due(&j, &p, 132));
	/* moved at time 0 (a trace's first second) counts as moved too */
	gp_steer_job_init(&j, true, 0, 0.0, false);
	gp_steer_moved(&j, 0);
	assert_false(gp_steer_due(&j, &p, 29));

	/* CONSTRAINed: once per interval after its decision ... */
	gp_steer_job_init(&j, false, 100, 600.0, false);
	assert_false(gp_steer_due(&j, &p, 129));
	assert_true(gp_steer_due(&j, &p, 130));
	assert_int_equal(gp_steer_redecide(&j, &p, 130, false, &out, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "domains could not start it"));
	/* the budget counts from its decision, within its predicted wait too */
	assert_true(out.max_wait_s == p.max_wait_s - 30);
	assert_non_null(strstr(why, "(1770 s of its wait budget left)"));
	assert_false(gp_steer_due(&j, &p, 159));
	/* ... and past its predicted wait with what is left of its budget */
	assert_int_equal(gp_steer_redecide(&j, &p, 701, false, &out, why, sizeof(why)), 1);
	assert_true(out.max_wait_s == p.max_wait_s - 601);
	assert_string_equal(why, "waited 601 s, longer than the predicted 600 s (1199 s of its wait "
	                         "budget left)");
	/* waiting because nothing was free (no predicted wait): the same
	 * budget from its decision, not a fresh one at every interval */
	gp_steer_job_init(&j, false, 100, 0.0, false);
	assert_int_equal(gp_steer_redecide(&j, &p, 600, false, &out, why, sizeof(why)), 1);
	assert_true(out.max_wait_s == p.max_wait_s - 500);
	assert_non_null(strstr(why, "(1300 s of its wait budget left)"));
	gp_steer_job_init(&j, false, 100, 600.0, false);
	/* spent: it takes what is free */
	assert_int_equal(gp_steer_redecide(&j, &p, 100 + (int64_t)p.max_wait_s + 1, false, &out,
	                                   why, sizeof(why)), 1);
	assert_true(out.max_wait_s == 0);
	/* waiting through --switches: every refresh */
	gp_steer_job_init(&j, false, 100, 600.0, true);
	assert_true(gp_steer_due(&j, &p, 102));

	/* taken: down, drained, reserved, or too few GPUs free */
	assert_false(gp_steer_node_taken(0, 0xf, 0x3, 2));
	assert_true(gp_steer_node_taken(0, 0xf, 0x7, 2));
	assert_true(gp_steer_node_taken(GP_NODE_DRAIN, 0xf, 0, 2));
	assert_true(gp_steer_node_taken(GP_NODE_RESERVED, 0xf, 0, 2));

	/* a move is a PIN on a set free now */
	memset(&d, 0, sizeof(d));
	memset(&sc, 0, sizeof(sc));
	d.cands = &sc;
	d.ncands = 1;
	d.kind = GP_DECIDE_PIN;
	assert_true(gp_steer_moves(&d));
	sc.future = true;
	assert_false(gp_steer_moves(&d));
	sc.future = false;
	d.kind = GP_DECIDE_CONSTRAIN;
	assert_false(gp_steer_moves(&d));
	d.kind = GP_DECIDE_PIN;
	d.ncands = 0;
	assert_false(gp_steer_moves(&d));
	assert_false(gp_steer_moves(NULL));

	/* Slurm's priority order: priority, then submission, then job id */
	gp_steer_sort(c, 3);
	assert_int_equal(c[0].job_id, 3);
	assert_int_equal(c[1].job_id, 7);
	assert_int_equal(c[2].job_id, 9);
}

static void steer_keys_parse(void **state)
{
	gp_policy_t p;
	gp_error_t err;

	(void)state;
	gp__policy_default(NULL, &p);
	assert_int_equal(p.steer_max, 8);
	assert_int_equal(p.steer_interval_s, 30);
	assert_int_equal(gp__policy_parse("gpuplace_policy=pack,gpuplace_steer_max=0,"
	                                  "gpuplace_steer_interval=5", "slurm.conf", &p, &err),
	                 GP_OK);
	assert_int_equal(p.steer_max, 0);
	assert_int_equal(p.steer_interval_s, 5);
	assert_int_equal(gp__policy_parse("gpuplace_steer_max=-1", "slurm.conf", &p, &err),
	                 GP_ECONFIG);
	assert_non_null(strstr(err.text, "gpuplace_steer_max"));
	assert_non_null(strstr(err.text, "'-1'"));
	assert_int_equal(p.steer_max, 0); /* unchanged */
}

/* ---- --switches=count@max-time ---------------------------------------------- */

static void switch_request_from_the_wait_gain(void **state)
{
	gp_scored_t cand;
	gp_decision_t d;
	gp_policy_t p;
	uint32_t count = 0, max_s = 0;

	(void)state;
	gp__policy_default(NULL, &p); /* wait_gain 0.05, max_wait 1800 s */
	memset(&cand, 0, sizeof(cand));
	memset(&d, 0, sizeof(d));
	cand.nleaves = 1;
	d.cands = &cand;
	d.ncands = 1;
	d.kind = GP_DECIDE_CONSTRAIN;
	d.waited = true;
	/* the harness's case: a 60-minute job 17 % slower spread (4219 s),
	 * compact after ~298 s (done in 3898 s, so a 3600 s run): waiting pays
	 * while wait + 3600 <= 0.95 x 4219, up to 408.05 s */
	d.now_finish_s = 4219;
	d.wait_s = 298;
	d.wait_finish_s = 3898;
	assert_int_equal(gp_switch_request(&d, &p, &count, &max_s), 1);
	assert_int_equal(count, 1);
	assert_int_equal(max_s, 409);
	/* capped by the policy's max_wait */
	p.max_wait_s = 350;
	assert_int_equal(gp_switch_request(&d, &p, &count, &max_s), 1);
	assert_int_equal(max_s, 350);
	/* a wait that pays less long than predicted: no switch request */
	p.max_wait_s = 200;
	assert_int_equal(gp_switch_request(&d, &p, &count, &max_s), 0);
	p.max_wait_s = 1800;
	/* two leaves waited for */
	cand.nleaves = 2;
	assert_int_equal(gp_switch_request(&d, &p, &count, &max_s), 1);
	assert_int_equal(count, 2);
	/* not waiting, or a PIN: none */
	d.waited = false;
	assert_int_equal(gp_switch_request(&d, &p, &count, &max_s), 0);
	d.waited = true;
	d.kind = GP_DECIDE_PIN;
	assert_int_equal(gp_switch_request(&d, &p, &count, &max_s), 0);
}

/*
 * A held job re-decided past its predicted wait keeps what is left of its
 * wait budget, and the engine's wait rule decides.  16 nodes x 8 H100 in
 * 4 leaves of 4 (2 per spine group), uplinks 8:1 so that spreading costs
 * step time (the state of test_decide.c, test_wait_for_compact_set): free
 * now nodes 0, 1, 4 and 8, over three leaves; leaf 3 (nodes 12-15) frees
 * at 1600.  A 32-GPU job held at submission with a predicted wait of
 * 300 s is re-decided at 1000 (balanced: max_wait 1800 s).  Held since
 * 400, 1200 s of its budget are left, the leaf frees in 600 s and the
 * wait pays: it keeps waiting for it (not moved).  Held since -700, 100 s
 * are left: it moves to the spread set free now.
 */
static void redecide_waits_within_its_budget(void **unused)
{
	const char *hints = "gpus=32,tp=8,dp=4,params=8e9,step_s=0.5";
	gp_synth_params_t sp;
	gp_cluster_t *c = NULL;
	gp_engine_t *e = NULL;
	gp_state_t *s = NULL;
	gp_job_profile_t job;
	gp_request_t r;
	gp_policy_t p, pol;
	gp_decision_t d;
	gp_steer_job_t j;
	gp_error_t err;
	char why[160];
	int32_t i, k, leaf;

	(void)unused;
	gp__synth_defaults(&sp);
	sp.nodes = 16;
	sp.nodes_per_leaf = 4;
	sp.leaves_per_spine_group = 2;
	sp.nodes_per_rack = 4;
	sp.oversub = 8;
	if (gp__synth_build(&sp, &c, &err))
		fail_msg("synth: %s", err.text);
	assert_int_equal(gp__engine_create(c, &e, &err), GP_OK);
	assert_int_equal(gp_state_create(c, &s), GP_OK);
	for (i = 0; i < 12; i++)
		if (i != 0 && i != 1 && i != 4 && i != 8)
			s->alloc_mask[i] = 0xff;
	assert_non_null(s->jobs = calloc(1, sizeof(*s->jobs)));
	s->njobs = 1;
	s->jobs[0].job_id = 1;
	s->jobs[0].end_time = 1600;
	s->jobs[0].nnodes = 4;
	assert_non_null(s->jobs[0].nodes = calloc(4, sizeof(int32_t)));
	assert_non_null(s->jobs[0].gpu_mask = calloc(4, sizeof(uint32_t)));
	for (i = 0; i < 4; i++) {
		s->jobs[0].nodes[i] = 12 + i;
		s->jobs[0].gpu_mask[i] = 0xff;
		s->alloc_mask[12 + i] = 0xff;
	}
	s->time = 1000;
	assert_int_equal(gp__policy_preset("balanced", &p, &err), GP_OK);
	assert_true(p.max_wait_s == 1800);
	assert_int_equal(gp__job_profile_parse(hints, &job, &err), GP_OK);
	gp__request_init(&r);
	r.gpus = 32;
	r.time_limit_min = 600;
	memset(&d, 0, sizeof(d));

	/* 1200 s left: waits for leaf 3 */
	gp_steer_job_init(&j, false, 400, 300.0, false);
	assert_int_equal(gp_steer_redecide(&j, &p, 1000, false, &pol, why, sizeof(why)), 1);
	assert_true(pol.max_wait_s == 1200);
	assert_int_equal(gp__decide(e, s, &r, &job, &pol, NULL, 1000, NULL, 0, &d, &err), GP_OK);
	assert_int_equal(d.kind, GP_DECIDE_CONSTRAIN);
	assert_true(d.waited);
	assert_true(d.wait_s == 600);
	assert_false(gp_steer_moves(&d));
	for (k = 0; k < d.cands[0].nnodes; k++)
		assert_int_equal(c->nodes[d.cands[0].nodes[k]].leaf, c->nodes[12].leaf);
	gp__decision_clear(&d);

	/* 100 s left: the leaf frees too late, it moves to the spread set */
	gp_steer_job_init(&j, false, -700, 300.0, false);
	assert_int_equal(gp_steer_redecide(&j, &p, 1000, false, &pol, why, sizeof(why)), 1);
	assert_true(pol.max_wait_s == 100);
	assert_int_equal(gp__decide(e, s, &r, &job, &pol, NULL, 1000, NULL, 0, &d, &err), GP_OK);
	assert_true(gp_steer_moves(&d));
	leaf = c->nodes[d.cands[0].nodes[0]].leaf;
	for (k = 1; k < d.cands[0].nnodes && c->nodes[d.cands[0].nodes[k]].leaf == leaf; k++)
		;
	assert_true(k < d.cands[0].nnodes); /* over more than one leaf */
	gp__decision_clear(&d);

	gp__request_clear(&r);
	gp_state_destroy(s);
	gp__engine_destroy(e);
	gp_cluster_destroy(c);
}

/* The domains a set spans where topology.yaml has a tree topology
 * (partition tree, n[1-4], leaves of 2) and a block one (blk: blocks
 * n[5-6] and n[7-8]), tests/data/conf/yaml-parts: blocks for the block
 * partition's nodes, leaves for the tree partition's, which are in no
 * block (0 domains made a plan there never worth keeping). */
static void steer_domains_per_topology(void **unused)
{
	static const struct { const char *nodes[3]; int32_t want; } rows[] = {
		{ { "n3", "n4", NULL }, 1 }, { { "n1", "n3", NULL }, 2 },
		{ { "n5", "n6", NULL }, 1 }, { { "n5", "n7", NULL }, 2 },
	};
	const char *top = getenv("GP_TOP_SRCDIR");
	gp_cluster_t *c = NULL;
	gp_error_t err;
	char dir[4096];
	size_t i;

	(void)unused;
	snprintf(dir, sizeof(dir), "%s/tests/data/conf/yaml-parts", top ? top : ".");
	if (gp_cluster_load_conf_dir(dir, &c, &err) != GP_OK)
		fail_msg("%s", err.text);
	assert_int_equal(c->nblocks, 2);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int32_t nodes[2], n = 0;

		for (n = 0; n < 2 && rows[i].nodes[n]; n++)
			assert_true((nodes[n] = gp__node_find(c, rows[i].nodes[n])) >= 0);
		if (gp_steer_domains(c, nodes, n) != rows[i].want)
			fail_msg("%s,%s: %d domains, want %d", rows[i].nodes[0], rows[i].nodes[1],
			         (int)gp_steer_domains(c, nodes, n), (int)rows[i].want);
	}
	gp_cluster_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(subtract_counts_tdp_or_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(burst_never_overcommits_a_rack, setup, teardown),
		cmocka_unit_test_setup_teardown(resv_convert_and_apply, setup, teardown),
		cmocka_unit_test(comment_ref_reads_only_a_reference),
		cmocka_unit_test(pick_pending_placed_jobs_by_priority),
		cmocka_unit_test(steer_holds_nodes_planned_ahead),
		cmocka_unit_test(steer_domains_per_topology),
		cmocka_unit_test(steer_rules_table),
		cmocka_unit_test(steer_keys_parse),
		cmocka_unit_test(switch_request_from_the_wait_gain),
		cmocka_unit_test(redecide_waits_within_its_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
