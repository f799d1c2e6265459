/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_plugin_apply.c - how job_submit/gpuplace writes a decision into a
 * job description, without a daemon: the plugin's files are compiled into
 * this program (GP_PLUGIN_SOURCES, their shared helpers declared in
 * plugin/job_submit_gpuplace.h) and linked with libslurm, whose
 * allocator slurmctld also uses.  What the comment says must be what Slurm
 * is told: the nodes, their number, the GPUs per node; a PIN Slurm cannot
 * be held to becomes a CONSTRAIN and says why.
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "job_submit_gpuplace.h"
#include "plugin_job.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

static gp_cluster_t *cl;

static int setup(void **unused)
{
	const char *top = getenv("GP_TOP_SRCDIR");
	char dir[4096];
	gp_error_t err;

	snprintf(dir, sizeof(dir), "%s/tests/data/slurm/conf", top ? top : ".");
	if (gp_cluster_load_conf_dir(dir, &cl, &err) != GP_OK)
		fail_msg("%s", err.text);
	return 0;
}

static int teardown(void **unused)
{
	gp_cluster_destroy(cl);
	return 0;
}

/* A candidate on the named nodes with these GPU masks. */
static void scored(gp_scored_t *sc, const char *const *names, const uint32_t *masks, int n)
{
	int i;

	memset(sc, 0, sizeof(*sc));
	sc->nnodes = n;
	sc->nodes = calloc((size_t)n, sizeof(*sc->nodes));
	sc->gpu_mask = calloc((size_t)n, sizeof(*sc->gpu_mask));
	for (i = 0; i < n; i++) {
		sc->nodes[i] = gp__node_find(cl, names[i]);
		assert_true(sc->nodes[i] >= 0);
		sc->gpu_mask[i] = masks[i];
		sc->ngpus += gp__popcount(masks[i]);
	}
	sc->kind = GP_DOM_NVL;
	sc->domain = cl->nodes[sc->nodes[0]].nvl_domain;
	sc->cost.step_s = 0.0146;
	sc->cost.slowdown = 1.0;
	sc->cost.overhead = 1.0;
	sc->feasible = true;
}

/* A decision with one candidate, four GPUs on each of n7 and n8, no
 * checkpoint plan; o cleared. */
static void one_set(gp_decision_t *d, struct outcome *o)
{
	static const char *const two[] = { "n7", "n8" };
	static const uint32_t even[] = { 0xf, 0xf };

	memset(d, 0, sizeof(*d));
	memset(o, 0, sizeof(*o));
	d->ncands = 1;
	d->cands = calloc(1, sizeof(*d->cands));
	scored(&d->cands[0], two, even, 2);
	d->ckpt.storage = -1;
}

static void test_per_node_tres(void **unused)
{
	char *t;

	t = per_node_tres("gres:gpu:8", 4);
	assert_string_equal(t, "gres:gpu:4");
	slurm_xfree((void **)&t);
	t = per_node_tres("gres/gpu:a100:8", 2);
	assert_string_equal(t, "gres/gpu:a100:2");
	slurm_xfree((void **)&t);
	assert_null(per_node_tres("gres:gpu:8,gres:nic:1", 4));
	assert_null(per_node_tres("license:x:1", 4));
	assert_null(per_node_tres(NULL, 4));
}

static void test_pin_exact(void **unused)
{
	static const char *const two[] = { "n7", "n8" };
	static const uint32_t even[] = { 0xf, 0xf }, uneven[] = { 0xf, 0x3 };
	static const struct {
		const char *name;
		const uint32_t *masks;
		const char *per_job, *per_node;
		int32_t min_nodes, max_nodes, gpus_per_node;
		uint32_t num_tasks;
		int64_t age;
		int passes;
		int want;
		const char *tres_or_why;
	} cases[] = {
		{ "--gpus over two nodes", even, "gres:gpu:8", NULL, 0, 0, 0, NO_VAL, 0, 0, 1, "gres:gpu:4" },
		{ "--gpus-per-node", even, NULL, "gres:gpu:4", 0, 0, 4, NO_VAL, 0, 0, 1, NULL },
		{ "other per-node count", even, NULL, "gres:gpu:2", 0, 0, 2, NO_VAL, 0, 0, 0, "--gpus-per-node=2" },
		{ "uneven", uneven, "gres:gpu:6", NULL, 0, 0, 0, NO_VAL, 0, 0, 0, "uneven" },
		{ "node range 3-4", even, "gres:gpu:8", NULL, 3, 4, 0, NO_VAL, 0, 0, 0, "3-4 nodes" },
		{ "node range 1-2 narrows", even, "gres:gpu:8", NULL, 1, 2, 0, NO_VAL, 0, 0, 1, "gres:gpu:4" },
		{ "one task", even, "gres:gpu:8", NULL, 0, 0, 0, 1, 0, 0, 0, "1 tasks" },
		{ "state 6 s old", even, "gres:gpu:8", NULL, 0, 0, 0, NO_VAL, 6, 0, 0, "6 s old" },
		{ "state 5 s old", even, "gres:gpu:8", NULL, 0, 0, 0, NO_VAL, GP_PIN_FRESH_S, 0, 1, "gres:gpu:4" },
		{ "a passed job unseen", even, "gres:gpu:8", NULL, 0, 0, 0, NO_VAL, 0, 2, 0, "2 GPU jobs passed" },
		{ "GPUs and licenses", even, "gres:gpu:8,license:x:1", NULL, 0, 0, 0, NO_VAL, 0, 0, 0, "per node" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		job_desc_msg_t *j = gp_test_job_new(cases[i].per_job, cases[i].per_node);
		gp_request_t r;
		gp_scored_t sc;
		char why[160] = "", *tres = NULL;
		int got;

		gp__request_init(&r);
		r.min_nodes = cases[i].min_nodes;
		r.max_nodes = cases[i].max_nodes;
		r.gpus_per_node = cases[i].gpus_per_node;
		j->num_tasks = cases[i].num_tasks;
		scored(&sc, two, cases[i].masks, 2);
		dec.ledger.unconfirmed = cases[i].passes;
		got = pin_exact(j, &r, &sc, cases[i].age, &tres, why, sizeof(why));
		if (got != cases[i].want)
			fail_msg("%s: pin_exact %d, expected %d (%s)", cases[i].name, got, cases[i].want, why);
		if (got && cases[i].tres_or_why && (!tres || strcmp(tres, cases[i].tres_or_why)))
			fail_msg("%s: tres_per_node '%s', expected '%s'", cases[i].name, tres ? tres : "NULL",
			         cases[i].tres_or_why);
		if (got && !cases[i].tres_or_why && tres)
			fail_msg("%s: tres_per_node '%s', expected none", cases[i].name, tres);
		if (!got && !strstr(why, cases[i].tres_or_why))
			fail_msg("%s: why '%s' lacks '%s'", cases[i].name, why, cases[i].tres_or_why);
		slurm_xfree((void **)&tres);
		free(sc.nodes);
		free(sc.gpu_mask);
		gp__request_clear(&r);
		gp_test_job_free(j);
	}
	dec.ledger.unconfirmed = 0;
}

static void test_apply_pin(void **unused)
{
	job_desc_msg_t *j = gp_test_job_new("gres:gpu:8", NULL);
	gp_decision_t d;
	struct outcome o;

	one_set(&d, &o);
	o.kind = GP_DECIDE_PIN;
	o.features = "";
	o.ref = 42;
	o.tres_node = per_node_tres(j->tres_per_job, 4);
	apply(j, cl, &d, &o);
	/* what Slurm is told */
	assert_string_equal(j->req_nodes, "n[7-8]");
	assert_int_equal(j->min_nodes, 2);
	assert_int_equal(j->max_nodes, 2);
	assert_null(j->tres_per_job);
	assert_string_equal(j->tres_per_node, "gres:gpu:4");
	assert_null(o.tres_node); /* handed to the job */
	/* and what the comment says */
	assert_non_null(strstr(j->admin_comment, "gpuplace: PIN n[7-8]; exactly 2 nodes, 4 GPUs each;"));
	assert_non_null(strstr(j->admin_comment, "(no hints: default profile assumed, data parallel "
	                                         "with a 1 GB gradient all-reduce per step"));
	assert_null(strstr(j->admin_comment, "overhead"));
	assert_non_null(strstr(j->admin_comment, "no checkpoint plan: no hints give the checkpoint size"));
	assert_non_null(strstr(j->admin_comment, "; ref 42"));
	/* no -w of the job's own: the comment names none */
	assert_null(strstr(j->admin_comment, GP_USER_NODES_TOKEN));
	gp__decision_clear(&d);
	gp_test_job_free(j);
}

/* A PIN's comment names the job's own -w, which the PIN replaces, so that
 * it can be given back (steer_release); only the token when the list is
 * too long to say. */
static void test_apply_pin_names_user_nodes(void **unused)
{
	char longlist[GP_USER_NODES_MAX + 40];
	int k;

	for (k = 0; k < 2; k++) {
		job_desc_msg_t *j = gp_test_job_new("gres:gpu:8", NULL);
		gp_decision_t d;
		struct outcome o;

		one_set(&d, &o);
		o.kind = GP_DECIDE_PIN;
		o.features = "";
		o.ref = 43;
		if (k == 0) {
			j->req_nodes = slurm_xstrdup("n7");
		} else {
			memset(longlist, 'x', sizeof(longlist) - 1);
			longlist[sizeof(longlist) - 1] = '\0';
			j->req_nodes = slurm_xstrdup(longlist);
		}
		apply(j, cl, &d, &o);
		assert_string_equal(j->req_nodes, "n[7-8]");
		if (k == 0)
			assert_non_null(strstr(j->admin_comment, "; within the job's own -w n7; ref 43"));
		else
			assert_non_null(strstr(j->admin_comment, "; within the job's own -w; ref 43"));
		gp__decision_clear(&d);
		gp_test_job_free(j);
	}
}

static void test_apply_constrain(void **unused)
{
	static const struct {
		const char *user;        /* the user's --constraint, or NULL */
		const char *features;    /* the job's features afterwards */
		const char *comment;     /* the start of the comment */
	} cases[] = {
		{ NULL, "gpnvl_nvlB", "gpuplace: CONSTRAIN gpnvl_nvlB; best free set n[7-8] not pinned: why" },
		{ "big", "(big)&gpnvl_nvlB", "gpuplace: CONSTRAIN gpnvl_nvlB;" },
		{ "[a|b]", "[a|b]", "gpuplace: CONSTRAIN not applied (gpnvl_nvlB): the job's own constraint "
		  "has a matching-OR group" },
		/* slurmctld refuses "(big*2)&...": counts take no parentheses */
		{ "big*2", "big*2", "gpuplace: CONSTRAIN not applied (gpnvl_nvlB): the job's own constraint "
		  "has node counts (feature*N)" },
	};
	gp_job_profile_t prof;
	size_t i;

	gp__job_profile_init(&prof);
	prof.compute_s = 1.0;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		job_desc_msg_t *j = gp_test_job_new("gres:gpu:8", NULL);
		gp_decision_t d;
		struct outcome o;
		char feat[64];

		one_set(&d, &o);
		if (cases[i].user)
			j->features = slurm_xstrdup(cases[i].user);
		domain_of(cl, &d.cands[0], feat, sizeof(feat));
		assert_string_equal(feat, "gpnvl_nvlB");
		o.kind = GP_DECIDE_CONSTRAIN;
		o.features = feat;
		o.profile = &prof;
		snprintf(o.unpinned, sizeof(o.unpinned), "why");
		apply(j, cl, &d, &o);
		assert_string_equal(j->features, cases[i].features);
		if (strncmp(j->admin_comment, cases[i].comment, strlen(cases[i].comment)))
			fail_msg("comment '%s' does not start with '%s'", j->admin_comment, cases[i].comment);
		/* no node list, node count or GPU split is imposed */
		assert_null(j->req_nodes);
		assert_int_equal(j->min_nodes, NO_VAL);
		assert_string_equal(j->tres_per_job, "gres:gpu:8");
		/* hints with a compute time: an overhead figure */
		assert_non_null(strstr(j->admin_comment, ", overhead 100.0 %"));
		assert_non_null(strstr(j->admin_comment,
		                       "no checkpoint plan: the hints give neither ckpt_bytes nor params"));
		gp__decision_clear(&d);
		gp_test_job_free(j);
	}
}

/* A matching-OR group of 99 leaves' features of 9 characters each,
 * "[gpsw_l000|...|gpsw_l098]": 1 + 99 x 9 + 98 + 1 = 991 characters. */
static size_t leaf_group(char *group, size_t len)
{
	size_t used = 0;
	int i;

	group[used++] = '[';
	for (i = 0; i < 99; i++)
		used += (size_t)snprintf(group + used, len - used, "%sgpsw_l%03d", i ? "|" : "", i);
	group[used++] = ']';
	group[used] = '\0';
	return used;
}

/* Slurm refuses a constraint over 1024 characters (job_mgr.c
 * _test_job_desc_fields, after the job_submit plugins): a domain group
 * keeps its first alternatives that fit beside the user's constraint, one
 * left is one feature, none is not applied. */
static void test_apply_constrain_long(void **unused)
{
	char group[1040], user[1040], want[1100];
	size_t used, k;
	int cut;

	assert_int_equal(leaf_group(group, sizeof(group)), 991);
	assert_int_equal(strlen(group), 991);
	/* the function alone: whole, cut, one left, none */
	assert_int_equal(fit_alternatives(group, 1024, want, sizeof(want)), 0);
	assert_string_equal(want, group);
	assert_int_equal(fit_alternatives(group, 21, want, sizeof(want)), 97);
	assert_string_equal(want, "[gpsw_l000|gpsw_l001]");
	assert_int_equal(fit_alternatives(group, 20, want, sizeof(want)), 98);
	assert_string_equal(want, "gpsw_l000");
	assert_int_equal(fit_alternatives(group, 8, want, sizeof(want)), -1);
	assert_int_equal(fit_alternatives("gpsw_l000", 8, want, sizeof(want)), -1);
	for (k = 0; k < 3; k++) {
		/* a user constraint of 40, 1000 and 1020 characters */
		static const size_t ulen[] = { 40, 1000, 1020 };
		job_desc_msg_t *j = gp_test_job_new("gres:gpu:8", NULL);
		gp_decision_t d;
		struct outcome o;

		/* a1000&a100&a100... */
		memset(user, 0, sizeof(user));
		for (used = 0; used < ulen[k]; used += 5)
			memcpy(user + used, used ? "&a100" : "a1000", 5);
		user[ulen[k]] = '\0';
		one_set(&d, &o);
		j->features = slurm_xstrdup(user);
		o.kind = GP_DECIDE_CONSTRAIN;
		o.features = group;
		apply(j, cl, &d, &o);
		assert_true(strlen(j->features) <= 1024);
		if (k == 0) {
			/* "(user)&" is 43: 98 alternatives fit in 981, the
			 * last one is left out */
			cut = 1;
			assert_int_equal(strncmp(j->features, "(a1000&a100", 11), 0);
			assert_non_null(strstr(j->features, ")&[gpsw_l000|"));
			assert_non_null(strstr(j->features, "|gpsw_l097]"));
			assert_null(strstr(j->features, "gpsw_l098"));
			assert_int_equal(strlen(j->features), 1024);
			snprintf(want, sizeof(want), "gpuplace: CONSTRAIN [gpsw_l000|");
			assert_int_equal(strncmp(j->admin_comment, want, strlen(want)), 0);
			snprintf(want, sizeof(want), "|gpsw_l097] (%d more alternative left out: Slurm "
			         "takes a constraint of at most 1024 characters)", cut);
			assert_non_null(strstr(j->admin_comment, want));
		} else if (k == 1) {
			/* "(user)&" is 1003, and 21 for two alternatives */
			snprintf(want, sizeof(want), "(%s)&[gpsw_l000|gpsw_l001]", user);
			assert_string_equal(j->features, want);
		} else {
			/* 1023 + 9 does not fit: the user's alone */
			assert_string_equal(j->features, user);
			snprintf(want, sizeof(want), "gpuplace: CONSTRAIN not applied ([gpsw_l000|");
			assert_int_equal(strncmp(j->admin_comment, want, strlen(want)), 0);
			assert_non_null(strstr(j->admin_comment, "...): with the job's own constraint it "
			                       "would be longer than the 1024 characters Slurm takes"));
		}
		gp__decision_clear(&d);
		gp_test_job_free(j);
	}
}

/* However long the comment's text (a group of many leaves, a long reason
 * not to pin, a long reservation name), it is written whole and ends in
 * the job's ref, which links the job to its decision (it was cut at 1,536
 * bytes, the ref with it). */
/* The steering pass's comment rewrite (steer_pass.c, steer_comment). */
static void test_steer_comment(void **unused)
{
	static const char old[] =
		"user text gpuplace: PIN n[1-2]; exactly 2 nodes; best free set: predicted step "
		"0.5 s (ideal 0.5 s, slowdown 1.00), 1 leaf switch, 1 rack; step 0.5 s; checkpoint "
		"every 600 s to lustre at +0 s; ref 42 more user text";
	char *c, *list;
	size_t n = 3000, i, at, len;

	(void)unused;
	/* the old set's words go; the prediction, plan and reference stay;
	 * the user's text on both sides is not touched */
	c = steer_comment(old, "n[9-10]", 2, "its pinned nodes were taken");
	assert_non_null(c);
	assert_string_equal(c, "user text gpuplace: PIN n[9-10]; exactly 2 nodes; steered while "
	                       "pending: its pinned nodes were taken; step 0.5 s; checkpoint every "
	                       "600 s to lustre at +0 s; ref 42 more user text");
	assert_int_equal(gp_comment_ref(c), 42);
	free(c);
	/* a CONSTRAIN without a prediction: from its reference */
	c = steer_comment("gpuplace: CONSTRAIN gpsw_su1; no acceptable set is free now; ref 7",
	                  "n5", 1, "a set the policy accepts is free now");
	assert_non_null(c);
	assert_string_equal(c, "gpuplace: PIN n5; exactly 1 node; steered while pending: a set the "
	                       "policy accepts is free now; ref 7");
	free(c);
	/* a node list of thousands of names, whole, the reference last */
	assert_non_null(list = malloc(n * 8 + 1));
	for (i = 0, list[0] = '\0'; i < n; i++)
		snprintf(list + strlen(list), 9, "%sn%05zu", i ? "," : "", 2 * i);
	c = steer_comment(old, list, (int32_t)n, "why");
	assert_non_null(c);
	assert_non_null(strstr(c, list));
	assert_int_equal(gp_comment_ref(c), 42);
	assert_true(gp_comment_section(c, &at, &len));
	assert_int_equal(at, strlen("user text "));
	assert_int_equal(strcmp(c + at + len, " more user text"), 0);
	free(c);
	free(list);
	/* no section of gpuplace's with a reference: nothing to rewrite */
	assert_null(steer_comment("user text only", "n1", 1, "why"));
	assert_null(steer_comment("gpuplace: PIN n1; exactly 1 node; no reference", "n1", 1, "why"));
	assert_null(steer_comment(NULL, "n1", 1, "why"));
}

static void test_apply_comment_keeps_ref(void **unused)
{
	char group[1040], resv[256];
	size_t used, start, len;
	job_desc_msg_t *j = gp_test_job_new("gres:gpu:8", NULL);
	gp_decision_t d;
	struct outcome o;

	used = leaf_group(group, sizeof(group));
	memset(resv, 'r', 250);
	resv[250] = '\0';
	one_set(&d, &o);
	o.kind = GP_DECIDE_CONSTRAIN;
	o.features = group;
	o.ref = 4242424242ULL;
	memset(o.unpinned, 'u', sizeof(o.unpinned) - 1);
	j->reservation = slurm_xstrdup(resv);
	apply(j, cl, &d, &o);
	assert_string_equal(j->features, group); /* 991 characters fit whole */
	/* whole: the group, the reason not to pin, the reservation's name
	 * as the comment gives it (200 characters), then the ref */
	assert_true(strlen(j->admin_comment) > 1536);
	assert_int_equal(strncmp(j->admin_comment, "gpuplace: CONSTRAIN ", 20), 0);
	assert_non_null(strstr(j->admin_comment, group));
	memset(resv, 'u', sizeof(o.unpinned) - 1);
	resv[sizeof(o.unpinned) - 1] = '\0';
	assert_non_null(strstr(j->admin_comment, resv));
	memset(resv, 'r', 200);
	resv[200] = '\0';
	assert_non_null(strstr(j->admin_comment, "; inside reservation "));
	assert_non_null(strstr(j->admin_comment, resv));
	assert_null(strstr(j->admin_comment, "..."));
	used = strlen(j->admin_comment);
	assert_int_equal(strcmp(j->admin_comment + used - strlen("; ref 4242424242"),
	                        "; ref 4242424242"), 0);
	assert_int_equal(gp_comment_ref(j->admin_comment), 4242424242ULL);
	assert_true(gp_comment_section(j->admin_comment, &start, &len));
	assert_int_equal(start, 0);
	assert_int_equal(len, strlen(j->admin_comment));
	gp__decision_clear(&d);
	gp_test_job_free(j);
}

/* A job left to Slurm's placement (CONSTRAIN, no feature, no set: a job
 * that fits one block with no block free) whose hints size its
 * checkpoint: the comment says the nodes are Slurm's to choose, not that
 * the hints give no size. */
static void test_apply_left_to_slurm_ckpt(void **unused)
{
	job_desc_msg_t *j = gp_test_job_new("gres:gpu:8", NULL);
	gp_job_profile_t prof;
	gp_decision_t d;
	struct outcome o;

	gp__job_profile_init(&prof);
	prof.params = 7e9;
	memset(&d, 0, sizeof(d));
	memset(&o, 0, sizeof(o));
	d.kind = GP_DECIDE_CONSTRAIN;
	d.ckpt.storage = -1;
	d.ckpt_bytes = 7e9 * 14;
	snprintf(d.reason, sizeof(d.reason), "no block has room for the job now; left to Slurm");
	o.kind = GP_DECIDE_CONSTRAIN;
	o.features = "";
	o.profile = &prof;
	apply(j, cl, &d, &o);
	assert_null(j->features);
	assert_non_null(strstr(j->admin_comment, "gpuplace: CONSTRAIN none: no block has room"));
	assert_non_null(strstr(j->admin_comment,
	                       "no checkpoint plan for 98 GB: its nodes are left to Slurm's placement"));
	assert_null(strstr(j->admin_comment, "neither ckpt_bytes nor params"));
	gp_test_job_free(j);
}

/* A job the engine cut into segments (CONSTRAIN with leaf switches and a
 * --segment): the leaves go into its constraint, the segment into its
 * description where this Slurm has one (24.05+), and the comment says
 * both; o.segment stays set only then (the plugin then freezes its
 * original).  With a matching-OR constraint of the user's own, which
 * takes no second group, neither goes in and o.segment is cleared. */
static void test_apply_segments(void **unused)
{
	job_desc_msg_t *j = gp_test_job_new("gres:gpu:8", NULL);
	gp_decision_t d;
	struct outcome o;
	bool has = SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 5, 0);

	(void)unused;
	memset(&d, 0, sizeof(d));
	memset(&o, 0, sizeof(o));
	d.kind = GP_DECIDE_CONSTRAIN;
	d.ckpt.storage = -1;
	d.segment_nodes = 2;
	snprintf(d.reason, sizeof(d.reason), "no block has room for the job now; in 2 segments");
	o.kind = GP_DECIDE_CONSTRAIN;
	o.features = "[gpsw_a|gpsw_b]";
	o.segment = 2;
	apply(j, cl, &d, &o);
	assert_string_equal(j->features, "[gpsw_a|gpsw_b]");
	assert_int_equal(gp_job_segment(j), has ? 2 : 0);
	assert_int_equal(o.segment, has ? 2 : 0);
	if (has) {
		if (!strstr(j->admin_comment, "gpuplace: CONSTRAIN [gpsw_a|gpsw_b] --segment=2: Slurm's "
		                              "topology/block starts the job in segments of 2 nodes"))
			fail_msg("%s", j->admin_comment);
	} else {
		assert_null(strstr(j->admin_comment, "--segment"));
	}
	gp_test_job_free(j);

	j = gp_test_job_new("gres:gpu:8", NULL);
	j->features = slurm_xstrdup("[x|y]");
	o.segment = 2;
	apply(j, cl, &d, &o);
	assert_string_equal(j->features, "[x|y]");
	assert_int_equal(gp_job_segment(j), 0);
	assert_int_equal(o.segment, 0);
	assert_null(strstr(j->admin_comment, "--segment"));
	gp_test_job_free(j);
}

/* The checkpoint plan as the job sees it: a periodic plan gives its
 * interval and offset; a plan whose time limit comes before any period
 * pays (interval 0) says so, and gives no interval of 0 s to act on. */
/* A decision that left the racks' limits out says so in the comment, after
 * its prediction (decide.c, gp__decide); one that did not says nothing of
 * them. */
static void test_apply_power_note(void **unused)
{
	static const char note[] = "the racks' limits left out: together they draw 83 % of them, "
	                           "past the policy's knee (80 %), and Slurm holds no job to them "
	                           "(PowerLicenses or PowerHres would)";
	int k;

	(void)unused;
	for (k = 0; k < 2; k++) {
		job_desc_msg_t *j = gp_test_job_new("gres:gpu:8", NULL);
		gp_decision_t d;
		struct outcome o;
		const char *at;

		one_set(&d, &o);
		o.kind = GP_DECIDE_PIN;
		o.ref = 9;
		if (k)
			snprintf(d.power_note, sizeof(d.power_note), "%s", note);
		apply(j, cl, &d, &o);
		assert_non_null(j->admin_comment);
		at = strstr(j->admin_comment, note);
		if (!k) {
			assert_null(strstr(j->admin_comment, "racks' limits"));
		} else {
			assert_non_null(at);
			assert_true(at > strstr(j->admin_comment, "; step "));
			assert_int_equal(gp_comment_ref(j->admin_comment), 9);
		}
		gp__decision_clear(&d);
		gp_test_job_free(j);
	}
}

static void test_apply_ckpt(void **unused)
{
	static const struct {
		double interval_s;
		const char *says, *not_says;
		bool env_interval;
	} cases[] = {
		{ 1920, "; checkpoint every 1920 s to pfs at +60 s, buddy n1;", "no periodic", true },
		{ 0, "; no periodic checkpoint: the time limit comes first (job MTTF 48000 s); one to "
		     "pfs 40 s before it, buddy n1;", "checkpoint every", false },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		job_desc_msg_t *j = gp_test_job_new("gres:gpu:8", NULL);
		gp_decision_t d;
		struct outcome o;
		bool interval = false, target = false;
		uint32_t e;

		j->environment = slurm_xcalloc(2, sizeof(char *), true, false, __FILE__, __LINE__,
		                               __func__);
		j->environment[0] = slurm_xstrdup("PATH=/bin");
		j->env_size = 1;
		one_set(&d, &o);
		for (e = 0; e < (uint32_t)cl->nstorage; e++)
			if (!strcmp(cl->storage[e].name, "pfs"))
				d.ckpt.storage = (int32_t)e;
		assert_true(d.ckpt.storage >= 0);
		d.ckpt.interval_s = cases[i].interval_s;
		d.ckpt.offset_s = cases[i].interval_s > 0 ? 60 : 0;
		d.ckpt.mttf_s = 48000;
		d.ckpt.signal_lead_s = 40;
		d.ckpt.buddy = gp__node_find(cl, "n1");
		o.kind = GP_DECIDE_PIN;
		o.features = "";
		o.ref = 7;
		o.tres_node = per_node_tres(j->tres_per_job, 4);
		apply(j, cl, &d, &o);
		if (!strstr(j->admin_comment, cases[i].says) || strstr(j->admin_comment, cases[i].not_says))
			fail_msg("comment '%s'", j->admin_comment);
		for (e = 0; e < j->env_size; e++) {
			interval |= !strncmp(j->environment[e], "GPUPLACE_CKPT_INTERVAL=", 23);
			target |= !strcmp(j->environment[e], "GPUPLACE_CKPT_TARGET=pfs");
		}
		assert_int_equal(interval, cases[i].env_interval);
		assert_true(target);
		/* a final checkpoint either way: the signal before the limit */
		assert_int_equal(j->warn_time, 40);
		for (e = 0; e < j->env_size; e++)
			slurm_xfree((void **)&j->environment[e]);
		slurm_xfree((void **)&j->environment);
		gp__decision_clear(&d);
		gp_test_job_free(j);
	}
}

static void test_job_need(void **unused)
{
	job_desc_msg_t *j = gp_test_job_new("gres:gpu:8", NULL);
	gp_live_need_t n;

	job_need(j, 0, &n); /* nothing asked: one CPU, some memory */
	assert_int_equal(n.cpus_per_node, 1);
	assert_int_equal(n.mem_per_node_mb, 1);
	assert_int_equal(n.cpus_per_gpu, 0);
	j->ntasks_per_node = 2;
	j->cpus_per_task = 3;
	j->pn_min_memory = 1000 | MEM_PER_CPU;
	j->cpus_per_tres = slurm_xstrdup("gres:gpu:4");
	j->mem_per_tres = slurm_xstrdup("gres:gpu:8000");
	job_need(j, 0, &n);
	assert_int_equal(n.cpus_per_node, 6);
	assert_int_equal(n.mem_per_node_mb, 6000);
	assert_int_equal(n.cpus_per_gpu, 4);
	assert_int_equal(n.mem_per_gpu_mb, 8000);
	j->pn_min_memory = 0; /* --mem=0: the whole node */
	job_need(j, 0, &n);
	assert_int_equal(n.mem_per_node_mb, -1);
	j->pn_min_memory = 12000;
	j->pn_min_cpus = 8;
	job_need(j, 0, &n);
	assert_int_equal(n.mem_per_node_mb, 12000);
	assert_int_equal(n.cpus_per_node, 8);
	/* nothing asked: slurmctld's DefMemPerCPU or DefMemPerNode */
	j->pn_min_memory = NO_VAL64;
	job_need(j, 1000 | MEM_PER_CPU, &n);
	assert_int_equal(n.mem_per_node_mb, 8000);
	job_need(j, 4000, &n);
	assert_int_equal(n.mem_per_node_mb, 4000);
	j->pn_min_memory = 0; /* the user's --mem=0 wins */
	job_need(j, 4000, &n);
	assert_int_equal(n.mem_per_node_mb, -1);
	/* products past their types (fuzz_job_submit: signed overflow) stay
	 * needs no node meets: the most CPUs and memory there are */
	j->pn_min_cpus = NO_VAL16;
	j->ntasks_per_node = 65008;
	j->cpus_per_task = 65535;
	j->pn_min_memory = (1ULL << 62) | MEM_PER_CPU;
	job_need(j, 0, &n);
	assert_int_equal(n.cpus_per_node, INT32_MAX);
	assert_true(n.mem_per_node_mb == INT64_MAX);
	j->ntasks_per_node = 256;
	j->cpus_per_task = 64;
	job_need(j, 0, &n);
	assert_int_equal(n.cpus_per_node, 16384);
	assert_true(n.mem_per_node_mb == INT64_MAX);
	j->pn_min_memory = 1000 | MEM_PER_CPU;
	job_need(j, 0, &n);
	assert_true(n.mem_per_node_mb == 16384000);
	slurm_xfree((void **)&j->cpus_per_tres);
	slurm_xfree((void **)&j->mem_per_tres);
	gp_test_job_free(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_per_node_tres),
		cmocka_unit_test(test_pin_exact),
		cmocka_unit_test(test_apply_pin),
		cmocka_unit_test(test_apply_pin_names_user_nodes),
		cmocka_unit_test(test_apply_constrain),
		cmocka_unit_test(test_apply_constrain_long),
		cmocka_unit_test(test_apply_comment_keeps_ref),
		cmocka_unit_test(test_steer_comment),
		cmocka_unit_test(test_apply_left_to_slurm_ckpt),
		cmocka_unit_test(test_apply_segments),
		cmocka_unit_test(test_apply_ckpt),
		cmocka_unit_test(test_apply_power_note),
		cmocka_unit_test(test_job_need),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
