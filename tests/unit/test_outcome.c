/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_outcome.c - the plugin and the simulator turn a decision into the
 * same action (gp_outcome(), cost_model/outcome.h).  One table of cases,
 * each a site, a cluster state, the jobs passed before and a job; every
 * case runs
 *   - through the plugin: its real job_submit() (the plugin's files
 *     compiled in, as in test_plugin_submit), inside what looks to it like
 *     slurmctld running the site's topology plugin (this program exports
 *     slurmctld_config and sets libslurm's slurm_conf.topology_plugin), on
 *     a published cluster state; the action is read back from the job
 *     description (req_nodes, features, req_switch, admin comment);
 *   - through the simulator's plugin-faithful step: the same decision the
 *     plugin's engine makes on the same view, with the facts the simulator
 *     has (gp__sim_outcome_facts: the model's topology, its Weights, the
 *     GPU jobs let through and not seen started), into gp_outcome();
 * and both must give the same action, and the case's expected one, so that
 * the table covers each branch: PIN, CONSTRAIN on topology/tree (--switches,
 * a hold), CONSTRAIN on topology/block (the block rule), PASS, the
 * unconfirmed-pass rule, the job's own -w/-x lists.
 */
#include "config.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "job_submit_gpuplace.h"
#include "sim.h"
#include "plugin_job.h"

#include <cmocka.h>

/* What makes the plugin believe it runs inside slurmctld (in_slurmctld()
 * looks this symbol up; the program is linked with -export-dynamic).  Its
 * thread is never started here: no state is read from a controller. */
int slurmctld_config;

/* libslurm's configuration, which the plugin reads as slurmctld's
 * (topology_is, daemon_max_switch_wait). */
extern slurm_conf_t slurm_conf;

/* ---- one case ------------------------------------------------------------- */

/* What Slurm is told, as both paths report it. */
struct action {
	gp_action_t kind;
	char nodes[256];          /* PIN: the node list */
	char features[1040];      /* CONSTRAIN: the constraint added */
	uint32_t switches;        /* CONSTRAIN: --switches count, 0 = none */
	uint32_t switch_wait;
	bool unpinned;            /* a PIN became CONSTRAIN */
	bool holds;               /* CONSTRAIN waiting for a set not free now */
};

struct busy {
	const char *node;
	int64_t ends_in;          /* s from now */
};

struct ocase {
	const char *name;
	const char *site;         /* under the source tree */
	const char *topology;     /* slurmctld's TopologyPlugin */
	struct busy busy[8];      /* nodes whose GPUs are all allocated */
	const char *passed[3];    /* 1-GPU jobs submitted first: their -w ("" = none) */
	int32_t nodes, per_node;  /* the job: --nodes, --gpus-per-node */
	const char *req, *exc;    /* its -w and -x, NULL = none */
	gp_action_t want;
	bool want_switches, want_unpinned, want_hold;
	const char *part;         /* its -p, NULL = the default partition */
};

static const struct ocase cases[] = {
	{ "PIN on an idle tree", "tests/data/slurm/conf", "topology/tree", { { NULL, 0 } },
	  { NULL }, 2, 4, NULL, NULL, GP_ACT_PIN, false, false, false, NULL },
	{ "PIN within the job's -w and -x", "tests/data/slurm/conf", "topology/tree",
	  { { NULL, 0 } }, { NULL }, 2, 4, "n5", "n6", GP_ACT_PIN, false, false, false, NULL },
	{ "unconfirmed pass: CONSTRAIN to the domain", "tests/data/slurm/conf", "topology/tree",
	  { { NULL, 0 } }, { "" }, 2, 4, NULL, NULL, GP_ACT_CONSTRAIN, false, true, false, NULL },
	/* PowerLicenses (rack1 and rack2: 4 A100 nodes each): the same
	 * unconfirmed pass, and a 5-node set spans two racks, which no one
	 * rack's license covers: PINned to it all the same */
	{ "PowerLicenses, unconfirmed pass, a set across racks: PIN", "tests/data/conf/lic-racks",
	  "topology/tree", { { NULL, 0 } }, { "" }, 5, 4, NULL, NULL, GP_ACT_PIN, false, false,
	  false, "a100" },
	/* ... and one in a rack: its license there, a CONSTRAIN */
	{ "PowerLicenses, unconfirmed pass, a set in one rack: CONSTRAIN",
	  "tests/data/conf/lic-racks", "topology/tree", { { NULL, 0 } }, { "" }, 2, 4, NULL, NULL,
	  GP_ACT_CONSTRAIN, false, true, false, "a100" },
	{ "a pass on its own -w is certain: PIN", "tests/data/slurm/conf", "topology/tree",
	  { { NULL, 0 } }, { "n1" }, 2, 4, NULL, NULL, GP_ACT_PIN, false, false, false, NULL },
	{ "one GPU: PASS", "tests/data/slurm/conf", "topology/tree", { { NULL, 0 } }, { NULL },
	  1, 1, NULL, NULL, GP_ACT_PASS, false, false, false, NULL },
	{ "tree, compact set frees soon: hold by --switches", "tests/data/slurm/conf",
	  "topology/tree",
	  { { "n2", 120 }, { "n3", 120 }, { "n4", 120 }, { "n6", 120 }, { "n7", 120 },
	    { "n8", 120 }, { NULL, 0 } },
	  { NULL }, 2, 4, NULL, NULL, GP_ACT_CONSTRAIN, true, false, true, NULL },
	{ "idle block cluster, no rack's power binds: PIN inside one block",
	  "tests/data/sim/block", "topology/block",
	  { { NULL, 0 } }, { NULL }, 4, 4, NULL, NULL, GP_ACT_PIN, false, false, false, NULL },
	{ "block rule: free nodes only across blocks, left to Slurm", "tests/data/sim/block",
	  "topology/block",
	  { { "n01", 4000 }, { "n02", 4000 }, { "n05", 4000 }, { "n06", 4000 },
	    { "n09", 4000 }, { "n10", 4000 }, { "n13", 4000 }, { "n14", 4000 } },
	  { NULL }, 4, 4, NULL, NULL, GP_ACT_CONSTRAIN, false, false, false, NULL },
	{ "block, unconfirmed pass: CONSTRAIN to the block's domain",
	  "tests/data/sim/block", "topology/block", { { NULL, 0 } },
	  { "" }, 4, 4, NULL, NULL, GP_ACT_CONSTRAIN, false, true, false, NULL },
	/* topology.yaml with a tree (partition tree, n[1-4], leaves of 2) and
	 * a block topology (partition blk, blocks n[5-6] and n[7-8]); no
	 * TopologyPlugin, as slurm.conf(5) has it ignored then: each
	 * partition is placed by its own topology, the tree one as
	 * topology/tree */
	{ "two topologies: PIN in the tree partition's free leaf", "tests/data/conf/yaml-parts",
	  "topology/flat", { { "n1", 4000 }, { "n5", 4000 } }, { NULL }, 2, 4, NULL, NULL,
	  GP_ACT_PIN, false, false, false, "tree" },
	{ "two topologies: tree partition, compact set frees soon: hold by --switches",
	  "tests/data/conf/yaml-parts", "topology/flat", { { "n2", 120 }, { "n3", 120 } },
	  { NULL }, 2, 4, NULL, NULL, GP_ACT_CONSTRAIN, true, false, true, "tree" },
	{ "two topologies: the block partition's job PINned inside its free block",
	  "tests/data/conf/yaml-parts", "topology/flat", { { "n1", 4000 }, { "n5", 4000 } },
	  { NULL }, 2, 4, NULL, NULL, GP_ACT_PIN, false, false, false, "blk" },
	{ "two topologies: block rule in the block partition", "tests/data/conf/yaml-parts",
	  "topology/flat", { { "n5", 4000 }, { "n7", 4000 } }, { NULL }, 2, 4, NULL, NULL,
	  GP_ACT_CONSTRAIN, false, false, false, "blk" },
};

/* ---- the plugin's side ------------------------------------------------------ */

static job_desc_msg_t *job_new(int32_t nodes, int32_t per_node, const char *req, const char *exc)
{
	char per[32];
	job_desc_msg_t *j;

	snprintf(per, sizeof(per), "gres/gpu:%d", per_node);
	j = gp_test_job_new(NULL, per);
	j->min_nodes = j->max_nodes = (uint32_t)nodes;
	if (req)
		j->req_nodes = slurm_xstrdup(req);
	if (exc)
		j->exc_nodes = slurm_xstrdup(exc);
	return j;
}

/* The site loaded as init() loads it (without its thread), every node up,
 * the busy ones' GPUs allocated to jobs ending at their time, read now. */
static struct gp_conf *site_load(const struct ocase *k)
{
	const char *top = getenv("GP_TOP_SRCDIR");
	static char dir[4096], topo[64];
	struct gp_conf *c;
	struct gp_snap *sn;
	gp_error_t err;
	int32_t i, nb;

	snprintf(dir, sizeof(dir), "%s/%s", top ? top : ".", k->site);
	setenv("GPUPLACE_CONF_DIR", dir, 1);
	snprintf(topo, sizeof(topo), "%s", k->topology);
	slurm_conf.topology_plugin = topo;
	set_conf_dir();
	dec.ref_base = 1000000;
	if (!(c = conf_load(&err)))
		fail_msg("%s: %s", k->name, err.text);
	conf_publish(c);
	c = conf_get();
	sn = calloc(1, sizeof(*sn));
	assert_non_null(sn);
	assert_int_equal(gp_state_create(c->cluster, &sn->view.state), GP_OK);
	sn->view.state->time = (int64_t)time(NULL);
	sn->view.jobs_time = sn->view.state->time;
	for (nb = 0; nb < 8 && k->busy[nb].node; nb++)
		;
	sn->view.state->jobs = calloc((size_t)nb + 1, sizeof(gp_job_alloc_t));
	assert_non_null(sn->view.state->jobs);
	for (i = 0; i < nb; i++) {
		gp_job_alloc_t *a = &sn->view.state->jobs[i];
		int32_t n = gp__node_find(c->cluster, k->busy[i].node);

		assert_true(n >= 0);
		sn->view.state->alloc_mask[n] = gp__gpu_full_mask(c->cluster->nodes[n].ngpus);
		a->job_id = (uint32_t)(100 + i);
		a->end_time = sn->view.state->time + k->busy[i].ends_in;
		a->nodes = malloc(sizeof(*a->nodes));
		a->gpu_mask = malloc(sizeof(*a->gpu_mask));
		assert_true(a->nodes && a->gpu_mask);
		a->nodes[0] = n;
		a->gpu_mask[0] = sn->view.state->alloc_mask[n];
		a->nnodes = 1;
		a->load = 1.0;
	}
	sn->view.state->njobs = nb;
	sn->view.res = calloc((size_t)c->cluster->nnodes + 1, sizeof(*sn->view.res));
	sn->racks = calloc((size_t)c->cluster->nracks + 1, sizeof(*sn->racks));
	assert_true(sn->view.res && sn->racks);
	gp__power_view_fill(c->cluster, sn->view.state, NULL, &c->policy,
	                    (double)sn->view.state->time, sn->racks);
	sn->resv_ok = true;
	if (c->lic_name) {
		/* PowerLicenses: slurmctld has every rack's license, all free */
		sn->lic = true;
		sn->lic_free = calloc((size_t)c->cluster->nracks + 1, sizeof(*sn->lic_free));
		assert_non_null(sn->lic_free);
		for (i = 0; i < c->cluster->nracks; i++)
			sn->lic_free[i] = c->lic_count[i];
	}
	sn->conf = c; /* the reference conf_get() took */
	snap_publish(sn);
	decider_prepare();
	return c;
}

static void site_unload(void)
{
	decider_reset();
	origs_clear();
	slots_clear();
	graveyard_empty();
	dec.ledger.unbooked = 0;
	dec.ref_seq = 0;
	slurm_conf.topology_plugin = NULL;
}

/* The action job_submit() wrote into j (rc its return). */
static void plugin_action(const job_desc_msg_t *j, int rc, struct action *a)
{
	memset(a, 0, sizeof(*a));
	if (rc != SLURM_SUCCESS)
		a->kind = GP_ACT_REJECT;
	else if (j->admin_comment && strstr(j->admin_comment, "gpuplace: PIN "))
		a->kind = GP_ACT_PIN;
	else if (j->admin_comment && strstr(j->admin_comment, "gpuplace: CONSTRAIN"))
		a->kind = GP_ACT_CONSTRAIN;
	else
		a->kind = GP_ACT_PASS;
	if (a->kind == GP_ACT_PIN)
		snprintf(a->nodes, sizeof(a->nodes), "%s", j->req_nodes ? j->req_nodes : "(none)");
	if (a->kind == GP_ACT_CONSTRAIN && j->features)
		snprintf(a->features, sizeof(a->features), "%s", j->features);
	if (a->kind == GP_ACT_CONSTRAIN && j->req_switch != NO_VAL && j->req_switch > 0) {
		a->switches = j->req_switch;
		a->switch_wait = j->wait4switch;
	}
	a->unpinned = j->admin_comment && strstr(j->admin_comment, " not pinned: ");
	a->holds = a->kind == GP_ACT_CONSTRAIN && j->admin_comment &&
	           strstr(j->admin_comment, "; waits ~");
}

/* ---- the simulator's side --------------------------------------------------- */

/* The decision the plugin's engine makes for j on the plugin's view as it
 * stands (the steps of job_submit() before the outcome), through the
 * simulator's outcome: *a, and the number of 1-GPU jobs passed whose nodes
 * are a guess as the simulator counts them (unconfirmed). */
static void sim_action(struct gp_conf *c, job_desc_msg_t *j, int32_t unconfirmed,
                       struct action *a)
{
	struct gp_snap *sn = snap_get();
	char why[512], type[GP_NAME_MAX];
	gp_outcome_in_t in;
	gp_outcome_t out;
	gp_live_need_t need;
	gp_request_t r;
	gp_decision_t d;
	gp_error_t err;
	int want;

	memset(a, 0, sizeof(*a));
	assert_non_null(sn);
	gp__request_init(&r);
	want = build_request(j, c->cluster, &r, type, why, sizeof(why));
	if (want <= 0) {
		/* the simulator's plugin_decide: not a distributed GPU job */
		a->kind = GP_ACT_PASS;
		gp__request_clear(&r);
		snap_put(sn);
		return;
	}
	job_need(j, daemon_default_mem(), &need);
	memset(&d, 0, sizeof(d));
	pthread_mutex_lock(&dec.lock);
	prepare_work(sn, &need);
	{
		gp_power_view_t pv = { ledger_racks(sn->racks), gp__power_view_cap_speed,
		                       sn->hres || sn->lic };

		assert_int_equal(gp__decide(dec.cur.engine, dec.cur.work, &r, NULL, &c->policy, &pv,
		                            sn->view.state->time, recent_bookings(),
		                            nrecent_bookings(), &d, &err), GP_OK);
	}
	dec.cur.work->jobs = NULL; /* borrowed from the snapshot */
	dec.cur.work->njobs = 0;
	pthread_mutex_unlock(&dec.lock);
	gp__sim_outcome_facts(c->cluster, &c->policy, &r, &d, unconfirmed, &in);
	gp_outcome(&in, &out);
	a->kind = out.action;
	if (out.action == GP_ACT_PIN) {
		char *list = gp__scored_nodelist(c->cluster, out.set);

		assert_non_null(list);
		snprintf(a->nodes, sizeof(a->nodes), "%s", list);
		free(list);
	}
	if (out.action == GP_ACT_CONSTRAIN) {
		snprintf(a->features, sizeof(a->features), "%s", out.features);
		a->switches = out.switches;
		a->switch_wait = out.switch_wait;
	}
	a->unpinned = *out.unpinned != '\0';
	a->holds = out.holds;
	gp__decision_clear(&d);
	gp__request_clear(&r);
	snap_put(sn);
}

/* Host list `list' names node `name'. */
static bool list_has(struct gp_conf *c, const char *list, const char *name)
{
	int32_t *idx = NULL, n = 0, i, want = gp__node_find(c->cluster, name);
	gp_error_t err;
	bool has = false;

	if (gp__hostlist_nodes(c->cluster, "req_nodes", list, c->cluster->nnodes, &idx, &n, &err))
		fail_msg("%s: %s", list, err.text);
	for (i = 0; i < n; i++)
		has = has || idx[i] == want;
	free(idx);
	return has;
}

static const char *kind_name(gp_action_t k)
{
	return k == GP_ACT_PIN ? "PIN" : k == GP_ACT_CONSTRAIN ? "CONSTRAIN"
	     : k == GP_ACT_REJECT ? "REJECT" : "PASS";
}

static void test_same_action(void **unused)
{
	size_t i, p;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct ocase *k = &cases[i];
		struct gp_conf *c = site_load(k);
		struct action pa, sa;
		job_desc_msg_t *j;
		int32_t unconfirmed = 0;
		char *msg = NULL;
		int rc;

		for (p = 0; p < 3 && k->passed[p]; p++) {
			job_desc_msg_t *one = job_new(1, 1, *k->passed[p] ? k->passed[p] : NULL, NULL);

			assert_int_equal(job_submit(one, 1000, &msg), SLURM_SUCCESS);
			gp_test_job_free(one);
			/* a pass on no -w of its own: its node is a guess */
			unconfirmed += !*k->passed[p];
		}
		j = job_new(k->nodes, k->per_node, k->req, k->exc);
		if (k->part)
			j->partition = slurm_xstrdup(k->part);
		sim_action(c, j, unconfirmed, &sa);
		rc = job_submit(j, 1000, &msg);
		slurm_xfree((void **)&msg);
		plugin_action(j, rc, &pa);
		print_message("# %s: plugin %s %s%s%s%s --switches=%u@%u; simulator %s %s%s%s%s "
		              "--switches=%u@%u\n", k->name, kind_name(pa.kind), pa.nodes,
		              pa.features, pa.unpinned ? " (unpinned)" : "",
		              pa.holds ? " (holds)" : "", pa.switches, pa.switch_wait,
		              kind_name(sa.kind), sa.nodes, sa.features,
		              sa.unpinned ? " (unpinned)" : "", sa.holds ? " (holds)" : "",
		              sa.switches, sa.switch_wait);
		if (pa.kind != sa.kind || strcmp(pa.nodes, sa.nodes) ||
		    strcmp(pa.features, sa.features) || pa.switches != sa.switches ||
		    pa.switch_wait != sa.switch_wait || pa.unpinned != sa.unpinned ||
		    pa.holds != sa.holds)
			fail_msg("%s: the plugin and the simulator differ (comment: %s)", k->name,
			         j->admin_comment ? j->admin_comment : "(none)");
		if (pa.kind != k->want || (pa.switches > 0) != k->want_switches ||
		    pa.unpinned != k->want_unpinned || pa.holds != k->want_hold)
			fail_msg("%s: %s%s%s, expected %s%s%s (comment: %s)", k->name,
			         kind_name(pa.kind), pa.switches ? " by --switches" : "",
			         pa.unpinned ? " (unpinned)" : "", kind_name(k->want),
			         k->want_switches ? " by --switches" : "",
			         k->want_unpinned ? " (unpinned)" : "",
			         j->admin_comment ? j->admin_comment : "(none)");
		/* -w and -x hold in the PIN */
		if (k->req && pa.kind == GP_ACT_PIN && !list_has(c, pa.nodes, k->req))
			fail_msg("%s: pinned to %s, without the job's -w %s", k->name, pa.nodes, k->req);
		if (k->exc && pa.kind == GP_ACT_PIN && list_has(c, pa.nodes, k->exc))
			fail_msg("%s: pinned to %s, which the job excluded", k->name, pa.nodes);
		gp_test_job_free(j);
		site_unload(); /* c's last references: the slot's and the snapshot's */
	}
}

/* ---- domain features Slurm's nodes lack ------------------------------------ */

/* feature_ok of a site whose nodes carry gpsw_b only */
static bool only_b(const void *ctx, const char *feature)
{
	(void)ctx;
	return !strcmp(feature, "gpsw_b");
}

static bool none_there(const void *ctx, const char *feature)
{
	(void)ctx;
	(void)feature;
	return false;
}

/* A CONSTRAIN keeps only the domain features the site's nodes carry
 * (slurmctld refuses a constraint naming a feature no node has): of a
 * matching-OR group the ones there, one alone without brackets; with none,
 * no constraint and no hold, and nofeat says which and why; without
 * feature_ok (the simulator) the group stays. */
static void test_domain_features_slurm_lacks(void **unused)
{
	gp_decision_t d;
	gp_policy_t p;
	gp_outcome_in_t in;
	gp_outcome_t out;

	(void)unused;
	memset(&d, 0, sizeof(d));
	assert_int_equal(gp__policy_preset("balanced", &p, NULL), 0);
	d.kind = GP_DECIDE_CONSTRAIN;
	d.waited = true;
	snprintf(d.features, sizeof(d.features), "[gpsw_a|gpsw_b|gpsw_c]");
	memset(&in, 0, sizeof(in));
	in.d = &d;
	in.policy = &p;
	in.topology = GP_SLURM_TOPO_FLAT;
	gp_outcome(&in, &out);
	assert_int_equal(out.action, GP_ACT_CONSTRAIN);
	assert_string_equal(out.features, "[gpsw_a|gpsw_b|gpsw_c]");
	assert_string_equal(out.nofeat, "");
	assert_true(out.holds);

	in.feature_ok = only_b;
	gp_outcome(&in, &out);
	assert_int_equal(out.action, GP_ACT_CONSTRAIN);
	assert_string_equal(out.features, "gpsw_b");
	assert_non_null(strstr(out.nofeat, "domain feature gpsw_a and others not on its nodes"));
	assert_true(out.holds);

	snprintf(d.features, sizeof(d.features), "[gpsw_b|gpsw_c|gpsw_b2]");
	gp_outcome(&in, &out);
	assert_string_equal(out.features, "gpsw_b");
	assert_non_null(strstr(out.nofeat, "domain feature gpsw_c and others"));

	in.feature_ok = none_there;
	snprintf(d.features, sizeof(d.features), "gpnvl_x");
	gp_outcome(&in, &out);
	assert_int_equal(out.action, GP_ACT_CONSTRAIN);
	assert_string_equal(out.features, "");
	assert_false(out.holds);
	assert_non_null(strstr(out.nofeat, "domain feature gpnvl_x not on its nodes in slurm.conf"));
	assert_non_null(strstr(out.nofeat, "so no constraint was added"));

	snprintf(d.features, sizeof(d.features), "[gpsw_a|gpsw_b]");
	in.feature_ok = only_b;
	d.kind = GP_DECIDE_REJECT;
	gp_outcome(&in, &out);
	assert_int_equal(out.action, GP_ACT_REJECT);
	assert_string_equal(out.nofeat, "");
}

/* The --segment the engine cut a job into where no block had room goes to
 * Slurm only under topology/block, only for a job without a --segment of
 * its own, and only with the leaf constraint that keeps the segments on
 * one leaf (not when the nodes lack every feature of it). */
static void test_segment_only_under_block(void **unused)
{
	gp_decision_t d;
	gp_policy_t p;
	gp_outcome_in_t in;
	gp_outcome_t out;

	(void)unused;
	memset(&d, 0, sizeof(d));
	assert_int_equal(gp__policy_preset("balanced", &p, NULL), 0);
	d.kind = GP_DECIDE_CONSTRAIN;
	d.segment_nodes = 8;
	snprintf(d.features, sizeof(d.features), "[gpsw_a|gpsw_b]");
	memset(&in, 0, sizeof(in));
	in.d = &d;
	in.policy = &p;
	in.topology = GP_SLURM_TOPO_BLOCK;
	gp_outcome(&in, &out);
	assert_int_equal(out.action, GP_ACT_CONSTRAIN);
	assert_string_equal(out.features, "[gpsw_a|gpsw_b]");
	assert_int_equal(out.segment, 8);

	in.topology = GP_SLURM_TOPO_TREE;
	gp_outcome(&in, &out);
	assert_int_equal(out.segment, 0);

	in.topology = GP_SLURM_TOPO_BLOCK;
	in.segment = 4; /* the job's own */
	gp_outcome(&in, &out);
	assert_int_equal(out.segment, 0);

	in.segment = 0;
	in.feature_ok = only_b;
	gp_outcome(&in, &out);
	assert_string_equal(out.features, "gpsw_b");
	assert_int_equal(out.segment, 8);

	in.feature_ok = none_there;
	gp_outcome(&in, &out);
	assert_string_equal(out.features, "");
	assert_int_equal(out.segment, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_action),
		cmocka_unit_test(test_domain_features_slurm_lacks),
		cmocka_unit_test(test_segment_only_under_block),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
