/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_plugin_submit.c - job_submit/gpuplace's real job_submit() on the
 * example sites, without a daemon: the plugin's files are compiled into
 * this program (linked with libslurm, whose allocator slurmctld uses),
 * init() loads a site from etc/, and the cluster state the plugin's
 * thread would read from slurmctld is published as an idle cluster read
 * just now.  Job descriptions are built from Slurm-allocated memory as
 * slurmctld unpacks them, and every log line the plugin writes is
 * captured (GP_LOG_SINK) with its level.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "job_submit_gpuplace.h"
#include "plugin_job.h"
#include "plugin_site.h"

#include "log_capture.h"

#include <cmocka.h>

/* haystack holds needle, in any case */
static bool has_nocase(const char *haystack, const char *needle)
{
	size_t n = strlen(needle);

	for (; haystack && *haystack; haystack++)
		if (!strncasecmp(haystack, needle, n))
			return true;
	return false;
}


/* ---- the site and its state ------------------------------------------------ */

static bool snap_hres = true;
/* PowerLicenses: slurmctld has the racks' licenses, and which rack's has
 * none free (-1: every one all free) */
static bool snap_lic = true;
static int snap_lic_full = -1;

static int load_site(const char *site)
{
	const char *top = getenv("GP_TOP_SRCDIR");
	static char dir[4096];

	/* a name is one of etc/'s sites, a relative path one under the source
	 * tree, an absolute path a directory the test made */
	if (site[0] == '/')
		snprintf(dir, sizeof(dir), "%s", site);
	else
		snprintf(dir, sizeof(dir), "%s/%s%s", top ? top : ".",
		         strchr(site, '/') ? "" : "etc/", site);
	log_clear();
	return gp_test_site_load(dir, snap_hres, snap_lic, snap_lic_full);
}

static int setup_mixed(void **unused)
{
	return load_site("mixed-pcie");
}

static int setup_mixed_nodes(void **unused)
{
	return load_site("tests/data/sites/mixed-types");
}

static int setup_superpod(void **unused)
{
	return load_site("superpod-h100");
}

static int teardown_site(void **unused)
{
	fini();
	log_clear();
	return 0;
}

/* ---- job descriptions as slurmctld unpacks them ------------------------------ */

static int submit(job_desc_msg_t *j, char **msg)
{
	*msg = NULL;
	return job_submit(j, 1000, msg);
}

/* The nodes a job was pinned to all have names starting with prefix. */
static void assert_nodes_named(const job_desc_msg_t *j, const char *prefix)
{
	gp_error_t err;
	int32_t *idx = NULL, n = 0, i;

	if (!j->req_nodes)
		return;
	if (gp__hostlist_nodes(dec.cur.conf->cluster, "req_nodes", j->req_nodes,
	                       dec.cur.conf->cluster->nnodes, &idx, &n, &err) != GP_OK)
		fail_msg("req_nodes %s: %s", j->req_nodes, err.text);
	for (i = 0; i < n; i++)
		if (strncmp(dec.cur.conf->cluster->nodes[idx[i]].name, prefix, strlen(prefix)))
			fail_msg("pinned to %s: %s is not a %s node", j->req_nodes,
			         dec.cur.conf->cluster->nodes[idx[i]].name, prefix);
	free(idx);
}

/* ---- 1. a NULL element in environment or spank_job_env ----------------------- */

static void null_env_on(const char *site, const char *gpus)
{
	static const char *const env[] = { "PATH=/bin", NULL, "GPUPLACE_TP=2", NULL, "HOME=/" };
	static const char *const spank[] = { NULL, "OTHER=1", NULL };
	job_desc_msg_t *j;
	char *msg;
	uint32_t i;
	bool decision = false;

	if (load_site(site))
		fail_msg("cannot load %s", site);
	j = gp_test_job_new(gpus, NULL);
	j->environment = gp_test_xarray(env, 5, &j->env_size);
	j->spank_job_env = gp_test_xarray(spank, 3, &j->spank_job_env_size);
	assert_int_equal(submit(j, &msg), SLURM_SUCCESS);
	assert_null(msg);
	/* the job was decided on, and the decision written into its
	 * environment, past the NULL elements */
	if (!j->admin_comment || !strstr(j->admin_comment, "gpuplace: "))
		fail_msg("%s: no decision: %s", site, j->admin_comment ? j->admin_comment : "(none)");
	for (i = 0; i < j->env_size; i++)
		if (j->environment[i] && !strncmp(j->environment[i], "GPUPLACE_DECISION=", 18))
			decision = true;
	assert_true(decision);
	/* the hint after the NULL element was read (tp=2 assumed) */
	assert_null(strstr(j->admin_comment, "no hints"));
	gp_test_job_free(j);
	fini();
}

static void test_null_env_element(void **unused)
{
	null_env_on("mixed-pcie", "gres:gpu:8");
	null_env_on("superpod-h100", "gres:gpu:16");
	null_env_on("a100-oversub", "gres:gpu:8");
	null_env_on("nvl72-gb200", "gres:gpu:8");
	log_clear();
}

/* ---- 2. typed and multi-entry GPU requests ------------------------------------ */

static void test_typed_requests(void **unused)
{
	static const struct {
		const char *per_job, *per_node;
		uint32_t nodes;
		const char *prefix;     /* node names it may be pinned to */
	} cases[] = {
		{ "gres:gpu:a100:4", NULL, NO_VAL, "a100n" },     /* --gpus=a100:4, 22.05 */
		{ "gres/gpu:a100:4", NULL, NO_VAL, "a100n" },     /* the same, 24.11 */
		{ "gres/gpu:A100:4", NULL, NO_VAL, "a100n" },     /* Slurm ignores case */
		{ NULL, "gres:gpu:a100:4", 2, "a100n" },          /* --gres=gpu:a100:4 -N2 */
		{ NULL, "gres/gpu:a100:2", 2, "a100n" },          /* --gpus-per-node=a100:2 -N2 */
		{ "gres:gpu:l40s:4", NULL, NO_VAL, "l40s" },
		{ NULL, "gres/gpu:l40s:2", 2, "l40s" },
		{ "gres:gpu:a100:2,gres:gpu:a100:2", NULL, NO_VAL, "a100n" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		job_desc_msg_t *j = gp_test_job_new(cases[i].per_job, cases[i].per_node);
		char *msg;

		j->min_nodes = cases[i].nodes;
		assert_int_equal(submit(j, &msg), SLURM_SUCCESS);
		if (!j->admin_comment || (!strstr(j->admin_comment, "gpuplace: PIN ") &&
		                          !strstr(j->admin_comment, "gpuplace: CONSTRAIN "))) {
			log_dump();
			fail_msg("case %zu: not decided: %s", i, j->admin_comment);
		}
		assert_nodes_named(j, cases[i].prefix);
		/* the GPUs Slurm is told per node keep the type */
		if (j->tres_per_node &&
		    !has_nocase(j->tres_per_node, cases[i].prefix[0] == 'a' ? ":a100:" : ":l40s:"))
			fail_msg("case %zu: tres_per_node %s lost the type", i, j->tres_per_node);
		gp_test_job_free(j);
		decider_reset(); /* each case on an empty ledger */
		decider_prepare();
	}
}

/* tests/data/sites/mixed-types: m[1-2] hold 8 A100 and 2 T4 each, a[1-4]
 * 8 A100, l[1-4] 4 L40S.  A typed request is pinned only to nodes whose
 * GPUs are all of its type; one only nodes of mixed types hold passes
 * unchanged with the reason. */
static void test_typed_requests_mixed_nodes(void **unused)
{
	static const struct {
		const char *per_job;
		const char *pinned;     /* node-name prefix, NULL = passes unchanged */
		const char *why;
	} cases[] = {
		{ "gres/gpu:a100:16", "a", NULL },
		{ "gres/gpu:l40s:8", "l", NULL },
		{ "gres/gpu:t4:2", NULL, "nodes that hold only that type have 0 (4 more on nodes of "
		  "mixed types, left to Slurm)" },
		{ "gres/gpu:a100:40", NULL, "nodes that hold only that type have 32 (16 more on "
		  "nodes of mixed types" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		job_desc_msg_t *j = gp_test_job_new(cases[i].per_job, NULL);
		char *msg;

		log_clear();
		assert_int_equal(submit(j, &msg), SLURM_SUCCESS);
		if (cases[i].pinned) {
			if (!j->admin_comment || !strstr(j->admin_comment, "gpuplace: PIN ")) {
				log_dump();
				fail_msg("case %zu: not pinned: %s", i, j->admin_comment);
			}
			assert_nodes_named(j, cases[i].pinned);
			assert_null(strstr(j->req_nodes, "m1"));
			assert_null(strstr(j->req_nodes, "m2"));
		} else {
			assert_null(j->req_nodes);
			if (!j->admin_comment || !strstr(j->admin_comment, cases[i].why)) {
				log_dump();
				fail_msg("case %zu: '%s' not in the comment '%s'", i, cases[i].why,
				         j->admin_comment ? j->admin_comment : "(none)");
			}
		}
		gp_test_job_free(j);
		decider_reset();
		decider_prepare();
	}
}

/* Every GPU of the nodes whose names start with prefix allocated, in the
 * published state (as a reading of Slurm's would show them). */
static void make_busy(const char *prefix)
{
	struct gp_snap *sn = snap_get();
	int32_t i;

	assert_non_null(sn);
	for (i = 0; i < sn->conf->cluster->nnodes; i++)
		if (!strncmp(sn->conf->cluster->nodes[i].name, prefix, strlen(prefix)))
			sn->view.state->alloc_mask[i] =
				gp__gpu_full_mask(sn->conf->cluster->nodes[i].ngpus);
	snap_put(sn);
}

/* tests/data/sites/mixed-types with a[1-4] full: the A100 that are free
 * are m[1-2]'s, on nodes of mixed types, which a typed decision leaves
 * out.  The job is neither constrained to the single-type nodes (it would
 * wait for them while m1 can start it now) nor rejected: it passes
 * unchanged with the reason, and Slurm starts it on m[1-2]. */
static void test_typed_request_mixed_nodes_free(void **unused)
{
	static const char *const per_job[] = { "gres/gpu:a100:8", "gres:gpu:a100:16" };
	size_t i;

	make_busy("a");
	for (i = 0; i < sizeof(per_job) / sizeof(per_job[0]); i++) {
		job_desc_msg_t *j = gp_test_job_new(per_job[i], NULL);
		char *msg = NULL;

		log_clear();
		assert_int_equal(submit(j, &msg), SLURM_SUCCESS);
		assert_null(msg);
		assert_null(j->req_nodes);
		assert_null(j->features);
		assert_int_equal(j->min_nodes, NO_VAL);
		assert_true(j->req_switch == NO_VAL || j->req_switch == 0);
		if (!j->admin_comment ||
		    strncmp(j->admin_comment, "gpuplace: PASS ", 15) ||
		    !strstr(j->admin_comment, "no free set of nodes holding only GPUs of type a100 "
		            "(nodes of mixed types hold 16 more") ||
		    !log_find(LOGL_VERBOSE, "passes unchanged: request left to Slurm: no free set")) {
			log_dump();
			fail_msg("case %zu: not passed with the reason: %s", i,
			         j->admin_comment ? j->admin_comment : "(none)");
		}
		gp_test_job_free(j);
		/* where Slurm starts it is unknown to the ledger: the next
		 * job is not pinned before a reading shows it */
		j = gp_test_job_new("gres/gpu:l40s:8", NULL);
		assert_int_equal(submit(j, &msg), SLURM_SUCCESS);
		if (!j->admin_comment || !strstr(j->admin_comment, "not pinned: 1 GPU job passed "
		                                                    "since the state was read")) {
			log_dump();
			fail_msg("case %zu: the next job: %s", i,
			         j->admin_comment ? j->admin_comment : "(none)");
		}
		gp_test_job_free(j);
		decider_reset();
		decider_prepare();
	}
}

/* What gpuplace cannot place exactly passes unchanged, with the reason in
 * one verbose line and in the comment. */
static void test_typed_requests_left_to_slurm(void **unused)
{
	static const struct {
		const char *per_job, *per_node, *per_task;
		const char *why;
	} cases[] = {
		{ "gres:gpu:a100:4,gres:gpu:l40s:4", NULL, NULL, "names more than one GPU type" },
		{ "gres/gpu:a100:2,gres/gpu:4", NULL, NULL, "names more than one GPU type" },
		{ "gres:gpu:a100:8", "gres:gpu:l40s:4", NULL, "GPUs of type a100 per job and l40s per node" },
		{ "gres:gpu:h100:4", NULL, NULL, "no node has GPUs of type h100" },
		{ "gres:gpu:l40s:20", NULL, NULL, "the job asks for 20 GPUs of type l40s, the cluster has 16" },
		{ NULL, NULL, "gres/gpu:1", NULL }, /* --tres-per-task: not gpuplace's */
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		job_desc_msg_t *j = gp_test_job_new(cases[i].per_job, cases[i].per_node);
		char *msg;

		if (cases[i].per_task) {
			j->tres_per_task = slurm_xstrdup(cases[i].per_task);
			j->num_tasks = 8;
		}
		log_clear();
		assert_int_equal(submit(j, &msg), SLURM_SUCCESS);
		assert_null(msg);
		/* unchanged for Slurm */
		assert_null(j->req_nodes);
		assert_null(j->features);
		assert_int_equal(j->min_nodes, NO_VAL);
		if (cases[i].per_job)
			assert_string_equal(j->tres_per_job, cases[i].per_job);
		if (cases[i].why) {
			const char *line = log_find(LOGL_VERBOSE, cases[i].why);

			if (!line || !j->admin_comment || !strstr(j->admin_comment, cases[i].why) ||
			    strncmp(j->admin_comment, "gpuplace: PASS ", 15)) {
				log_dump();
				fail_msg("case %zu: '%s' not in a verbose line and the comment '%s'", i,
				         cases[i].why, j->admin_comment ? j->admin_comment : "(none)");
			}
			assert_non_null(strstr(line, "passes unchanged"));
		}
		assert_int_equal(log_count(LOGL_ERROR), 0);
		gp_test_job_free(j);
	}
}

/* A partition whose topology gpuplace does not model (topology.yaml's
 * flat 'plain' for partition eth): init() logged the load's warning once,
 * that partition's jobs pass unchanged naming it, and the other
 * partitions' jobs are still placed. */
static void test_partition_left_to_slurm(void **unused)
{
	const char *why = "partition 'eth': topology 'plain' is flat, placed by Slurm";
	job_desc_msg_t *j;
	const char *line;
	char *msg;

	line = log_find(LOGL_INFO, "Topology: partition 'eth': topology 'plain' is flat");
	if (!line) {
		log_dump();
		fail_msg("init() did not log the warning for partition eth");
	}
	/* eth's job: Slurm's, with the reason, in the log and the comment */
	log_clear();
	j = gp_test_job_new("gres:gpu:8", NULL);
	j->partition = slurm_xstrdup("eth");
	assert_int_equal(submit(j, &msg), SLURM_SUCCESS);
	assert_null(msg);
	assert_null(j->req_nodes);
	assert_null(j->features);
	line = log_find(LOGL_VERBOSE, why);
	if (!line || !strstr(line, "passes unchanged") || !j->admin_comment ||
	    strncmp(j->admin_comment, "gpuplace: PASS ", 15) || !strstr(j->admin_comment, why)) {
		log_dump();
		fail_msg("eth's job: '%s' not in a verbose line and the comment '%s'", why,
		         j->admin_comment ? j->admin_comment : "(none)");
	}
	slurm_xfree((void **)&j->partition);
	gp_test_job_free(j);
	/* the default partition's job: decided by gpuplace, on its nodes */
	log_clear();
	j = gp_test_job_new("gres:gpu:8", NULL);
	assert_int_equal(submit(j, &msg), SLURM_SUCCESS);
	assert_null(msg);
	if (!j->admin_comment || strncmp(j->admin_comment, "gpuplace: ", 10) ||
	    !strncmp(j->admin_comment, "gpuplace: PASS ", 15)) {
		log_dump();
		fail_msg("the ib job was not placed: %s", j->admin_comment ? j->admin_comment : "(none)");
	}
	assert_nodes_named(j, "ib");
	assert_int_equal(log_count(LOGL_ERROR), 0);
	gp_test_job_free(j);
}

static int setup_multi_topo(void **unused)
{
	return load_site("tests/data/sites/topology-yaml-multi");
}

/* Homogeneous site: two entries of one type are one request of their sum,
 * never pinned to one node that holds half of it. */
static void test_multi_entry_request(void **unused)
{
	static const char *const per_job[] = { "gres:gpu:h100:8,gres:gpu:h100:8",
		                               "gres/gpu:h100:8,gres/gpu:H100:8" };
	size_t i;

	for (i = 0; i < sizeof(per_job) / sizeof(per_job[0]); i++) {
		job_desc_msg_t *j = gp_test_job_new(per_job[i], NULL);
		char *msg;

		assert_int_equal(submit(j, &msg), SLURM_SUCCESS);
		if (!j->admin_comment || !strstr(j->admin_comment, "gpuplace: PIN ")) {
			log_dump();
			fail_msg("not pinned: %s", j->admin_comment ? j->admin_comment : "(none)");
		}
		/* 16 GPUs on two 8-GPU nodes, and Slurm is told so */
		assert_int_equal(j->min_nodes, 2);
		assert_int_equal(j->max_nodes, 2);
		assert_non_null(strstr(j->admin_comment, "exactly 2 nodes, 8 GPUs each"));
		assert_null(j->tres_per_job);
		assert_string_equal(j->tres_per_node, i == 0 ? "gres:gpu:h100:8" : "gres/gpu:h100:8");
		assert_nodes_named(j, "dgx");
		gp_test_job_free(j);
		decider_reset();
		decider_prepare();
	}
}

/* A job array passes unchanged, saying why: its tasks inherit the array's
 * record, so one PIN would run them one after another on the same nodes.
 * So does a --contiguous job, whose required nodes Slurm refuses unless
 * consecutive.  The same request without either is PINned. */
static void test_job_array_left_to_slurm(void **unused)
{
	job_desc_msg_t *j = gp_test_job_new("gres/gpu:h100:16", NULL);
	char *msg;

	(void)unused;
	j->array_inx = slurm_xstrdup("0-3");
	assert_int_equal(submit(j, &msg), SLURM_SUCCESS);
	assert_null(msg);
	assert_null(j->req_nodes);
	assert_null(j->features);
	if (!j->admin_comment || strncmp(j->admin_comment, "gpuplace: PASS ", 15) ||
	    !strstr(j->admin_comment, "a job array is left to Slurm")) {
		log_dump();
		fail_msg("the array: %s", j->admin_comment ? j->admin_comment : "(none)");
	}
	slurm_xfree((void **)&j->array_inx);
	gp_test_job_free(j);
	decider_reset();
	decider_prepare();
	/* --contiguous: Slurm refuses required nodes that are not consecutive */
	j = gp_test_job_new("gres/gpu:h100:16", NULL);
	j->contiguous = 1;
	assert_int_equal(submit(j, &msg), SLURM_SUCCESS);
	assert_null(j->req_nodes);
	if (!j->admin_comment || strncmp(j->admin_comment, "gpuplace: PASS ", 15) ||
	    !strstr(j->admin_comment, "--contiguous is left to Slurm")) {
		log_dump();
		fail_msg("--contiguous: %s", j->admin_comment ? j->admin_comment : "(none)");
	}
	gp_test_job_free(j);
	decider_reset();
	decider_prepare();
	j = gp_test_job_new("gres/gpu:h100:16", NULL);
	assert_int_equal(submit(j, &msg), SLURM_SUCCESS);
	if (!j->admin_comment || !strstr(j->admin_comment, "gpuplace: PIN ")) {
		log_dump();
		fail_msg("not pinned: %s", j->admin_comment ? j->admin_comment : "(none)");
	}
	gp_test_job_free(j);
}

/* ---- 5. log lines ----------------------------------------------------------- */

static void test_log_escapes_user_text(void **unused)
{
	job_desc_msg_t *j = gp_test_job_new("gres:gpu:8", NULL);
	char *msg;
	int i;

	j->name = slurm_xstrdup("train\nslurmctld: error: forged\r\x1b[31m\\");
	j->admin_comment = slurm_xstrdup("site\nnote");
	log_clear();
	assert_int_equal(submit(j, &msg), SLURM_SUCCESS);
	assert_true(ncaptured > 0);
	for (i = 0; i < ncaptured; i++) {
		const unsigned char *p;

		for (p = (const unsigned char *)captured[i].line; *p; p++)
			if (*p < 0x20 || *p == 0x7f)
				fail_msg("raw control character 0x%02x in line '%s'", *p, captured[i].line);
	}
	/* the name is there, escaped */
	assert_non_null(log_find(LOGL_VERBOSE, "'train\\x0aslurmctld: error: forged\\x0d\\x1b[31m\\\\"));
	gp_test_job_free(j);
}

static void test_user_mistakes_at_verbose(void **unused)
{
	static const struct {
		const char *per_job, *per_node;
		uint32_t nodes, time_limit;
		const char *req, *exc;
		const char *code;
	} cases[] = {
		/* MaxTime of partition gpu is 2 days = 2880 min */
		{ "gres:gpu:8", NULL, NO_VAL, 5000, NULL, NULL, "ESLURM_INVALID_TIME_LIMIT" },
		{ "gres:gpu:8", NULL, NO_VAL, NO_VAL, "a100n01", "a100n01", "ESLURM_INVALID_NODE_NAME" },
		{ NULL, "gres:gpu:1000", 2, NO_VAL, NULL, NULL, "ESLURM_INVALID_GRES" },
	};
	size_t i;
	int k;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		log_clear();
		/* a burst of the same mistake */
		for (k = 0; k < 20; k++) {
			job_desc_msg_t *j = gp_test_job_new(cases[i].per_job, cases[i].per_node);
			char *msg;

			j->min_nodes = cases[i].nodes;
			j->time_limit = cases[i].time_limit;
			if (cases[i].req)
				j->req_nodes = slurm_xstrdup(cases[i].req);
			if (cases[i].exc)
				j->exc_nodes = slurm_xstrdup(cases[i].exc);
			assert_int_equal(submit(j, &msg), SLURM_SUCCESS);
			assert_null(msg);
			assert_null(j->admin_comment); /* unchanged: Slurm's to judge */
			gp_test_job_free(j);
		}
		if (log_count(LOGL_ERROR) || !log_find(LOGL_VERBOSE, cases[i].code) ||
		    !log_find(LOGL_VERBOSE, "job from uid 1000")) {
			log_dump();
			fail_msg("case %zu: %d error lines; want %s at verbose with the uid", i,
			         log_count(LOGL_ERROR), cases[i].code);
		}
	}
}

/* Junk in a node list's ranges, which libslurm reads as ranges (h100n[01l-02]
 * as two nodes; the second list as 7.6e11 hosts, hours of expansion): the
 * job passes at once, unchanged but for the comment that says why. */
static void test_junk_node_lists(void **unused)
{
	static const struct {
		const char *req, *exc, *why;
	} cases[] = {
		{ "h100n[01l-02]", NULL, "gpuplace: PASS --nodelist: 'h100n[01l-02]' is not a valid "
		  "host list: 'l' in a bracket" },
		{ NULL, "g[00\x8d-9121][00gr\x8d-9121][00grff-9120],Mh", "gpuplace: PASS --exclude: "
		  "'g[00\x8d-9121][00gr\x8d-9121][00grff-9120],Mh' is not a valid host list: '?' in "
		  "a bracket" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		job_desc_msg_t *j = gp_test_job_new("gres:gpu:16", NULL);
		struct timespec t0, t1;
		char *msg;

		if (cases[i].req)
			j->req_nodes = slurm_xstrdup(cases[i].req);
		if (cases[i].exc)
			j->exc_nodes = slurm_xstrdup(cases[i].exc);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		assert_int_equal(submit(j, &msg), SLURM_SUCCESS);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		assert_null(msg);
		if (!j->admin_comment || strncmp(j->admin_comment, cases[i].why, strlen(cases[i].why)))
			fail_msg("case %zu: comment %s", i, j->admin_comment ? j->admin_comment : "(none)");
		assert_string_equal(j->req_nodes ? j->req_nodes : "", cases[i].req ? cases[i].req : "");
		assert_string_equal(j->exc_nodes ? j->exc_nodes : "", cases[i].exc ? cases[i].exc : "");
		assert_null(j->features);
		assert_true((double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec) <
		            5.0);
		gp_test_job_free(j);
	}
}

/* ---- 7. hints never change whether Slurm accepts a job ---------------------------- */

static void test_hints_do_not_change_acceptance(void **unused)
{
	static const char *const hinted[] = { "SLURM_SPANK_GPUPLACE_HINTS=tp=8", NULL };
	job_desc_msg_t *a = gp_test_job_new("gres:gpu:8", NULL), *b = gp_test_job_new("gres:gpu:8", NULL);
	char *ma, *mb;
	int ra, rb;

	/* the same job with and without hints, a time limit over MaxTime */
	a->time_limit = b->time_limit = 5000;
	b->environment = gp_test_xarray(hinted, 1, &b->env_size);
	ra = submit(a, &ma);
	rb = submit(b, &mb);
	assert_int_equal(ra, SLURM_SUCCESS);
	assert_int_equal(rb, ra);
	assert_null(ma);
	assert_null(mb);
	assert_null(b->admin_comment);
	assert_null(b->req_nodes);
	assert_int_equal(b->time_limit, 5000);
	assert_null(log_find(-1, "--gpuplace options"));
	gp_test_job_free(a);
	gp_test_job_free(b);
}

static void test_stray_hint_without_gpus(void **unused)
{
	static const char *const stray[] = { "GPUPLACE_TP=abc", "GPUPLACE_HINTS=warp=9", NULL };
	job_desc_msg_t *j = gp_test_job_new(NULL, NULL);
	char *msg;

	j->environment = gp_test_xarray(stray, 2, &j->env_size);
	log_clear();
	assert_int_equal(submit(j, &msg), SLURM_SUCCESS);
	assert_null(msg);
	assert_non_null(log_find(LOGL_VERBOSE, "asks for no GPU"));
	gp_test_job_free(j);
	/* the same variable on a GPU job is a hint, and a bad one: rejected
	 * with a message naming it (doc/gpuplace.1, HINTS) */
	j = gp_test_job_new("gres:gpu:8", NULL);
	j->environment = gp_test_xarray(stray, 1, &j->env_size);
	assert_int_not_equal(submit(j, &msg), SLURM_SUCCESS);
	assert_non_null(msg);
	assert_non_null(strstr(msg, "GPUPLACE_* variables"));
	assert_non_null(strstr(msg, "tp"));
	slurm_xfree((void **)&msg);
	gp_test_job_free(j);
}

/* ---- chaining: the admin comment's other text stays --------------------------------- */

static void test_admin_comment_kept(void **unused)
{
	job_desc_msg_t *j = gp_test_job_new("gres:gpu:8", NULL);
	char *msg, *again;
	size_t at, len;

	j->admin_comment = slurm_xstrdup("lua: project=climate tier=2");
	assert_int_equal(submit(j, &msg), SLURM_SUCCESS);
	if (!j->admin_comment || strncmp(j->admin_comment, "lua: project=climate tier=2 gpuplace: ", 38))
		fail_msg("comment '%s'", j->admin_comment ? j->admin_comment : "(none)");
	assert_true(gp_comment_section(j->admin_comment, &at, &len));
	assert_int_equal(at, 28);
	assert_int_equal(at + len, strlen(j->admin_comment));
	/* a later update of gpuplace's part (steering) replaces only it, and
	 * text written after it stays too */
	again = comment_with("lua: a gpuplace: PIN n1; step 1 s; ref 5 epilog: b",
	                     "gpuplace: PIN n2; ref 5");
	assert_string_equal(again, "lua: a gpuplace: PIN n2; ref 5 epilog: b");
	free(again);
	again = comment_with(NULL, "gpuplace: PIN n2; ref 5");
	assert_string_equal(again, "gpuplace: PIN n2; ref 5");
	free(again);
	/* a comment mentioning gpuplace without a part of its own */
	again = comment_with("see gpuplace: docs", "gpuplace: PIN n2; ref 5");
	assert_string_equal(again, "see gpuplace: docs gpuplace: PIN n2; ref 5");
	free(again);
	gp_test_job_free(j);
}

/* ---- PowerHres: Slurm's own rack budget ------------------------------------- */

/* etc/mixed-pcie with PowerHres=rackpower, in a directory of the test's */
static char hres_dir[4000];

static int setup_hres(void **unused)
{
	(void)unused;
	if (gp_test_site_copy(hres_dir, sizeof(hres_dir), "hres", "\nPowerHres=rackpower\n", NULL, NULL,
	                      0))
		return -1;
	if (gp_test_site_resources(hres_dir, GP_TEST_RESOURCES_OK))
		return -1;
	snap_hres = true;
	return load_site(hres_dir);
}

static int teardown_hres(void **unused)
{
	teardown_site(unused);
	gp_test_site_resources(hres_dir, NULL);
	snap_hres = true;
	gp_test_site_remove(hres_dir);
	return 0;
}

/* Every GPU job asks per node for its GPUs' TDP over idle (mixed-pcie:
 * A100 300 - 35 W, L40S 350 - 35 W; 4 GPUs a node), the user's
 * licenses kept; requests that cannot carry it pass as written, with a
 * line that says why.  Before Slurm 25.11 nothing is added and the load
 * says so once. */
static void test_hres_licenses(void **unused)
{
	static const struct {
		const char *per_job, *per_node;
		uint32_t nodes;
		const char *user;       /* licenses the user gave */
		const char *want;       /* licenses after job_submit (25.11+) */
		const char *why;        /* the verbose line when nothing is added */
	} cases[] = {
		{ "gres/gpu:a100:4", NULL, NO_VAL, NULL, "rackpower:1060", NULL },
		{ "gres/gpu:1", NULL, NO_VAL, NULL, "rackpower:315", NULL },
		/* more per node than any node has: the most a node takes */
		{ NULL, "gres/gpu:8", 2, NULL, "rackpower:1260", NULL },
		{ NULL, "gres/gpu:l40s:2", 2, "matlab:2", "matlab:2,rackpower:630", NULL },
		{ "gres/gpu:a100:2", NULL, NO_VAL, "a:1|b:1", "a:1|b:1", "an OR list" },
		{ "gres/gpu:a100:2", NULL, NO_VAL, "rackpower:5", "rackpower:5", "the resource itself" },
		{ NULL, NULL, NO_VAL, "matlab:1", "matlab:1", NULL },      /* no GPUs */
		/* a count gpuplace cannot read or express: as written */
		{ "gres/gpu:a100:2,gres/gpu:l40s:2", NULL, NO_VAL, NULL, NULL, NULL },
		{ "gres/gpu:a100:2:x", NULL, NO_VAL, "matlab:1", "matlab:1", NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		job_desc_msg_t *j = gp_test_job_new(cases[i].per_job, cases[i].per_node);
		const char *want = GP_SLURM_HRES_MODE3 ? cases[i].want : cases[i].user;
		char *msg;

		j->min_nodes = cases[i].nodes;
		if (cases[i].user)
			j->licenses = slurm_xstrdup(cases[i].user);
		log_clear();
		/* whatever gpuplace decides (case 2 is rejected: no node has
		 * 8 GPUs), the request is there */
		(void)submit(j, &msg);
		slurm_xfree((void **)&msg);
		if (want ? !j->licenses || strcmp(j->licenses, want) : j->licenses != NULL) {
			log_dump();
			fail_msg("case %zu: licenses '%s', want '%s'", i,
			         j->licenses ? j->licenses : "(none)", want ? want : "(none)");
		}
		if (GP_SLURM_HRES_MODE3 && cases[i].why && !log_find(LOGL_VERBOSE, cases[i].why)) {
			log_dump();
			fail_msg("case %zu: no line saying '%s'", i, cases[i].why);
		}
		gp_test_job_free(j);
		decider_reset();
		decider_prepare();
	}
}

/* One GPU job's licenses after job_submit (a static copy, "" for none). */
static const char *licenses_of_one_gpu_job(void)
{
	static char out[256];
	job_desc_msg_t *j = gp_test_job_new("gres/gpu:1", NULL);
	char *msg;

	(void)submit(j, &msg);
	slurm_xfree((void **)&msg);
	snprintf(out, sizeof(out), "%s", j->licenses ? j->licenses : "");
	gp_test_job_free(j);
	return out;
}

/* The load names the key and what it does on this release; without the
 * resource in resources.yaml, or while slurmctld has not been seen to
 * have it, no job asks for it (Slurm would refuse every GPU job). */
static void test_hres_load(void **unused)
{
	static const struct {
		const char *yaml;       /* resources.yaml, NULL: none */
		bool in_ctld;           /* slurmctld has the license */
		const char *line;       /* what the load or the job's line says */
		bool asks;
	} cases[] = {
		{ GP_TEST_RESOURCES_OK, true, NULL, true },
		{ NULL, true, "resources.yaml: no such file: jobs get no rackpower request", false },
		{ "- resource: rackpower\n  mode: MODE_2\n  layers: []\n", true,
		  "resources.yaml:1: mode: resource 'rackpower' is MODE_2, not MODE_3", false },
		{ "- resource: other\n  mode: MODE_3\n", true, "no resource 'rackpower'", false },
		{ "- resource: [\n", true, "resources.yaml:", false },
		{ GP_TEST_RESOURCES_OK, false, "slurmctld has not been seen to have it", false },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *lic;

		fini();
		assert_int_equal(gp_test_site_resources(hres_dir, cases[i].yaml), 0);
		snap_hres = cases[i].in_ctld;
		assert_int_equal(load_site(hres_dir), 0);
		lic = licenses_of_one_gpu_job();
		if (!GP_SLURM_HRES_MODE3) {
			if (*lic || !log_find(LOGL_ERROR, "gpuplace.conf: PowerHres=rackpower: Slurm's "
			                                  "hierarchical resources count per node (MODE_3) from 25.11")) {
				log_dump();
				fail_msg("case %zu: licenses '%s' or no load line on Slurm %d.%02d", i, lic,
				         GP_SLURM_MAJOR, GP_SLURM_MINOR);
			}
			continue;
		}
		if (cases[i].asks != (*lic != '\0') ||
		    (cases[i].line && !log_find(-1, cases[i].line))) {
			log_dump();
			fail_msg("case %zu: licenses '%s'%s", i, lic,
			         cases[i].line ? ", or no line with the reason" : "");
		}
	}
}

/* ---- PowerLicenses: a license per rack ------------------------------------------ */

/* etc/mixed-pcie with PowerLicenses=rackpw, in a directory of the test's:
 * rack1 and rack2 (4 A100 nodes each, 300 - 35 W a GPU) count 9,000 -
 * 3,760 W idle = 5,240 W and have 9,000 x 0.9 - 3,760 = 4,340 W of
 * headroom; rack3 (4 L40S nodes, 350 - 35 W, and 2 CPU nodes) 12,000 -
 * 5,360 = 6,640 W and 5,440 W */
static char lic_dir[4000];

/* with_features: slurm.conf's nodes carry the gpsw_ and gprack_ features
 * `gpuplace conf --what nodes` writes (as the example's do); without, a job
 * is kept to a rack by excluding the other racks' nodes, and no CONSTRAIN
 * names a leaf */
static int setup_lic_site(bool with_features, const char *const *b)
{
	static const char *const a[] = { "rack1,gpsw_leaf1,gprack_rack1\n",
		                         "rack2,gpsw_leaf2,gprack_rack2\n",
		                         "rack3,gpsw_leaf3,gprack_rack3 " };
	static const char *const none[] = { "rack1\n", "rack2\n", "rack3 " };

	if (gp_test_site_copy(lic_dir, sizeof(lic_dir), "lic", "\nPowerLicenses=rackpw\n", a,
	                      b ? b : with_features ? a : none, 3))
		return -1;
	snap_lic = true;
	snap_lic_full = -1;
	return load_site(lic_dir);
}

static int setup_lic(void **unused)
{
	return setup_lic_site(true, NULL);
}

/* rack1's feature also on rack2's nodes, rack3's on none of its own */
static int setup_lic_mixed(void **unused)
{
	static const char *const b[] = { "rack1,gprack_rack1\n", "rack2,gprack_rack2,gprack_rack1\n",
		                         "rack3 " };

	(void)unused;
	return setup_lic_site(true, b);
}

static int setup_lic_nofeat(void **unused)
{
	return setup_lic_site(false, NULL);
}

static int teardown_lic(void **unused)
{
	teardown_site(unused);
	snap_lic = true;
	snap_lic_full = -1;
	gp_test_site_remove(lic_dir);
	return 0;
}

/* Each job's features and licenses after job_submit: a job gpuplace
 * passes is kept to the rack with the most room that has its GPUs, a
 * PIN asks its rack for its GPUs' share; the user's licenses and
 * constraint kept; what cannot carry the terms passes with a line. */
static void test_lic_requests(void **unused)
{
	static const struct {
		const char *per_job, *per_node;
		uint32_t nodes;
		const char *features, *user; /* the user's constraint and licenses */
		bool lic_in_ctld;
		int full;                     /* the rack whose license has none free */
		const char *want_feat, *want_lic; /* NULL: unchanged */
		const char *why;              /* the verbose line when nothing is added */
	} cases[] = {
		/* untyped: rack3 has the most room (5,440 W) */
		{ "gres/gpu:1", NULL, NO_VAL, NULL, NULL, true, -1, "gprack_rack3", "rackpw_rack3:315", NULL },
		/* A100 only in rack1 and rack2, equal room: the first */
		{ "gres/gpu:a100:1", NULL, NO_VAL, NULL, NULL, true, -1, "gprack_rack1", "rackpw_rack1:265",
		  NULL },
		{ "gres/gpu:1", NULL, NO_VAL, NULL, "matlab:2", true, -1, "gprack_rack3",
		  "matlab:2,rackpw_rack3:315", NULL },
		{ "gres/gpu:1", NULL, NO_VAL, "a100", NULL, true, -1, "gprack_rack1&a100",
		  "rackpw_rack1:265", NULL },
		/* rack3's license all in use: the rack with the most room now */
		{ "gres/gpu:1", NULL, NO_VAL, NULL, NULL, true, 2, "gprack_rack1", "rackpw_rack1:265", NULL },
		{ "gres/gpu:1", NULL, NO_VAL, "a100|l40s", NULL, true, -1, NULL, NULL, "has an OR" },
		{ "gres/gpu:1", NULL, NO_VAL, NULL, "a:1|b:1", true, -1, NULL, NULL, "an OR list" },
		{ "gres/gpu:1", NULL, NO_VAL, NULL, "rackpw_rack2:5", true, -1, NULL, NULL,
		  "a rack's power license itself" },
		{ "gres/gpu:1", NULL, NO_VAL, NULL, NULL, false, -1, NULL, NULL,
		  "slurmctld has not been seen to have the rackpw_ licenses" },
		/* a PIN: no feature, its node's rack for 4 x 265 W */
		{ NULL, "gres/gpu:a100:4", 1, NULL, NULL, true, -1, NULL, "rackpw_rack1:1060", NULL },
		{ NULL, NULL, NO_VAL, NULL, "matlab:1", true, -1, NULL, NULL, NULL }, /* no GPUs */
		/* in a reservation (its nodes may be one rack's): as it is */
		{ "gres/gpu:1", NULL, NO_VAL, NULL, NULL, true, -1, NULL, NULL, "runs in reservation" },
		/* GPUs gpuplace cannot read or express pass unchanged: no rack
		 * (rack1 has no L40S) and no license for a guess of the count */
		{ "gres/gpu:a100:2,gres/gpu:l40s:2", NULL, NO_VAL, NULL, NULL, true, -1, NULL, NULL,
		  "names more than one GPU type" },
		{ "gres/gpu:a100:2:x", NULL, NO_VAL, NULL, NULL, true, -1, NULL, NULL,
		  "cannot read the GPU request" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		job_desc_msg_t *j = gp_test_job_new(cases[i].per_job, cases[i].per_node);
		const char *want_lic = cases[i].want_lic ? cases[i].want_lic : cases[i].user;
		const char *want_feat = cases[i].want_feat ? cases[i].want_feat : cases[i].features;
		char *msg;

		fini();
		snap_lic = cases[i].lic_in_ctld;
		snap_lic_full = cases[i].full;
		assert_int_equal(load_site(lic_dir), 0);
		j->min_nodes = cases[i].nodes;
		if (cases[i].per_node)
			j->max_nodes = cases[i].nodes;
		if (cases[i].user)
			j->licenses = slurm_xstrdup(cases[i].user);
		if (cases[i].features)
			j->features = slurm_xstrdup(cases[i].features);
		if (cases[i].why && !strcmp(cases[i].why, "runs in reservation"))
			j->reservation = slurm_xstrdup("maint");
		log_clear();
		(void)submit(j, &msg);
		slurm_xfree((void **)&msg);
		if (want_lic ? !j->licenses || strcmp(j->licenses, want_lic) : j->licenses != NULL) {
			log_dump();
			fail_msg("case %zu: licenses '%s', want '%s'", i,
			         j->licenses ? j->licenses : "(none)", want_lic ? want_lic : "(none)");
		}
		if (cases[i].per_node && cases[i].want_lic) {
			/* the PIN: its nodes, no rack feature */
			if (!j->req_nodes || (j->features && strstr(j->features, "gprack_")))
				fail_msg("case %zu: a PIN with nodes '%s' and features '%s'", i,
				         j->req_nodes ? j->req_nodes : "(none)",
				         j->features ? j->features : "(none)");
			assert_nodes_named(j, "a100n0");
		} else if (want_feat ? !j->features || strcmp(j->features, want_feat)
		                     : j->features != NULL) {
			log_dump();
			fail_msg("case %zu: features '%s', want '%s'", i,
			         j->features ? j->features : "(none)", want_feat ? want_feat : "(none)");
		}
		if (cases[i].why && !log_find(LOGL_VERBOSE, cases[i].why)) {
			log_dump();
			fail_msg("case %zu: no line saying '%s'", i, cases[i].why);
		}
		gp_test_job_free(j);
	}
}

/* A rack's feature AND-ed to a constraint of 1,014 characters would make
 * it longer than the 1024 Slurm takes (job_mgr.c _test_job_desc_fields,
 * after the job_submit plugins, refuses the job): the job keeps its own
 * constraint and gets no license, with a line that says why; one of 1,011
 * still takes both. */
static void test_lic_long_constraint(void **unused)
{
	static const size_t len[] = { 1014, 1011 };
	char user[1100], want[1200];
	size_t k, used;
	int i;

	for (k = 0; k < 2; k++) {
		job_desc_msg_t *j = gp_test_job_new("gres/gpu:1", NULL);
		char *msg;

		/* a100&a100&...: 203 of them (1,014), or 200 and rack1&rack1
		 * (1,011) */
		for (used = 0, i = 0; i < (k ? 200 : 203); i++)
			used += (size_t)snprintf(user + used, sizeof(user) - used, "%sa100", i ? "&" : "");
		if (k)
			used += (size_t)snprintf(user + used, sizeof(user) - used, "&rack1&rack1");
		assert_int_equal(used, len[k]);
		j->features = slurm_xstrdup(user);
		log_clear();
		(void)submit(j, &msg);
		slurm_xfree((void **)&msg);
		assert_true(strlen(j->features) <= 1024);
		if (k == 0) {
			assert_string_equal(j->features, user);
			assert_null(j->licenses);
			if (!log_find(LOGL_VERBOSE, "constraint would be longer than the 1024 characters "
			              "Slurm takes")) {
				log_dump();
				fail_msg("no line saying why");
			}
		} else {
			snprintf(want, sizeof(want), "gprack_rack1&%s", user);
			assert_string_equal(j->features, want);
			assert_string_equal(j->licenses, "rackpw_rack1:265");
		}
		gp_test_job_free(j);
	}
}

/* The job's partitions bound its rack (the request of a one-GPU job holds
 * none): partition a100 has no rack3 node, however much room rack3 has;
 * of two partitions, the nodes of either. */
static void test_lic_partitions(void **unused)
{
	static const struct {
		const char *part, *want_feat, *want_lic;
	} cases[] = {
		{ "a100", "gprack_rack1", "rackpw_rack1:265" },
		{ "a100,gpu", "gprack_rack3", "rackpw_rack3:315" },
		{ "cpu", NULL, NULL }, /* no GPU there: no rack holds it */
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		job_desc_msg_t *j = gp_test_job_new("gres/gpu:1", NULL);
		char *msg;

		j->partition = slurm_xstrdup(cases[i].part);
		(void)submit(j, &msg);
		slurm_xfree((void **)&msg);
		if ((cases[i].want_feat ? !j->features || strcmp(j->features, cases[i].want_feat)
		                        : j->features != NULL) ||
		    (cases[i].want_lic ? !j->licenses || strcmp(j->licenses, cases[i].want_lic)
		                       : j->licenses != NULL)) {
			log_dump();
			fail_msg("case %zu: features '%s', licenses '%s'", i,
			         j->features ? j->features : "(none)",
			         j->licenses ? j->licenses : "(none)");
		}
		gp_test_job_free(j);
		decider_reset();
		decider_prepare();
	}
}

/* A PIN over two racks: each rack's license with its nodes' share (5
 * A100 nodes of 4 GPUs, 265 W each over idle: 20 x 265 = 5,300 W in all,
 * at most 4 nodes, 4,240 W, in one rack). */
static void test_lic_pin_two_racks(void **unused)
{
	job_desc_msg_t *j = gp_test_job_new(NULL, "gres/gpu:a100:4");
	long a = 0, b = 0;
	const char *p;
	char *msg;

	j->min_nodes = j->max_nodes = 5;
	(void)submit(j, &msg);
	slurm_xfree((void **)&msg);
	if (!j->req_nodes || !j->licenses || !(p = strstr(j->licenses, "rackpw_rack1:")) ||
	    (a = strtol(p + 13, NULL, 10)) <= 0 || !(p = strstr(j->licenses, "rackpw_rack2:")) ||
	    (b = strtol(p + 13, NULL, 10)) <= 0 || a + b != 5300 || a > 4240 || b > 4240 ||
	    strstr(j->licenses, "rack3")) {
		log_dump();
		fail_msg("nodes '%s', licenses '%s'", j->req_nodes ? j->req_nodes : "(none)",
		         j->licenses ? j->licenses : "(none)");
	}
	gp_test_job_free(j);
}

/* The two racks' licenses of j, each its share: 0 when both are there,
 * their sum is want, neither passes its rack's count of 5,240 W and rack3
 * is not named. */
static int two_rack_shares(const job_desc_msg_t *j, long want)
{
	const char *p;
	long a, b;

	if (!j->licenses || !(p = strstr(j->licenses, "rackpw_rack1:")) ||
	    (a = strtol(p + 13, NULL, 10)) <= 0 || !(p = strstr(j->licenses, "rackpw_rack2:")) ||
	    (b = strtol(p + 13, NULL, 10)) <= 0 || strstr(j->licenses, "rack3"))
		return -1;
	return a + b == want && a <= 5240 && b <= 5240 ? 0 : -1;
}

/* A job that cannot be kept to one rack's license: after a one-GPU job
 * passed (its nodes a guess until the next reading, so the engine's PIN
 * of a free set becomes a CONSTRAIN of its domain), a job of 5 A100 nodes
 * spans rack1 and rack2, and one of 20 A100 GPUs (5,300 W) passes either
 * rack's count of 5,240 W.  Under PowerLicenses each is PINned to its
 * set and asks each rack for its share, with a line saying why; without,
 * each stays a CONSTRAIN without licenses, as before. */
static void test_lic_cross_rack_pin(void **unused)
{
	static const struct {
		const char *per_job, *per_node;
		uint32_t nodes;
	} cases[] = {
		{ NULL, "gres/gpu:a100:4", 5 },       /* -N5 --gpus-per-node=a100:4 */
		{ "gres/gpu:a100:20", NULL, NO_VAL }, /* --gpus=a100:20 */
	};
	size_t i;
	int lic;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (lic = 1; lic >= 0; lic--) {
			job_desc_msg_t *one = gp_test_job_new("gres/gpu:1", NULL);
			job_desc_msg_t *j = gp_test_job_new(cases[i].per_job, cases[i].per_node);
			char *msg;

			fini();
			assert_int_equal(load_site(lic ? lic_dir : "mixed-pcie"), 0);
			(void)submit(one, &msg);
			slurm_xfree((void **)&msg);
			j->min_nodes = cases[i].nodes;
			if (cases[i].per_node)
				j->max_nodes = cases[i].nodes;
			log_clear();
			assert_int_equal(submit(j, &msg), SLURM_SUCCESS);
			slurm_xfree((void **)&msg);
			if (!j->admin_comment ||
			    !strstr(j->admin_comment, lic ? "gpuplace: PIN " : "gpuplace: CONSTRAIN")) {
				log_dump();
				fail_msg("case %zu%s: %s", i, lic ? "" : " without PowerLicenses",
				         j->admin_comment ? j->admin_comment : "(no comment)");
			}
			if (lic && (!j->req_nodes || two_rack_shares(j, 5300) ||
			            (j->features && strstr(j->features, "gprack_")) ||
			            !log_find(LOGL_VERBOSE, "pinned for the racks' licenses"))) {
				log_dump();
				fail_msg("case %zu: nodes '%s', licenses '%s', features '%s'", i,
				         j->req_nodes ? j->req_nodes : "(none)",
				         j->licenses ? j->licenses : "(none)",
				         j->features ? j->features : "(none)");
			}
			if (!lic && (j->req_nodes || j->licenses)) {
				log_dump();
				fail_msg("case %zu without PowerLicenses: nodes '%s', licenses '%s'", i,
				         j->req_nodes ? j->req_nodes : "(none)",
				         j->licenses ? j->licenses : "(none)");
			}
			assert_nodes_named(j, "a100n");
			gp_test_job_free(one);
			gp_test_job_free(j);
		}
	fini();
	assert_int_equal(load_site(lic_dir), 0);
}

/* The same pass, and a job of 2 A100 nodes: the engine's PIN becomes a
 * CONSTRAIN of its leaf, which lies in one rack: kept there, that rack's
 * license for its 8 x 265 W. */
static void test_lic_unpinned_in_one_rack(void **unused)
{
	job_desc_msg_t *one = gp_test_job_new("gres/gpu:1", NULL);
	job_desc_msg_t *j = gp_test_job_new(NULL, "gres/gpu:a100:4");
	char *msg;

	(void)submit(one, &msg);
	slurm_xfree((void **)&msg);
	j->min_nodes = j->max_nodes = 2;
	log_clear();
	assert_int_equal(submit(j, &msg), SLURM_SUCCESS);
	slurm_xfree((void **)&msg);
	if (!j->admin_comment || !strstr(j->admin_comment, "gpuplace: CONSTRAIN gpsw_") ||
	    !j->licenses || (strcmp(j->licenses, "rackpw_rack1:2120") &&
	                     strcmp(j->licenses, "rackpw_rack2:2120")) ||
	    !j->features || strncmp(j->features, "gpsw_", 5)) {
		log_dump();
		fail_msg("features '%s', licenses '%s', comment '%s'",
		         j->features ? j->features : "(none)", j->licenses ? j->licenses : "(none)",
		         j->admin_comment ? j->admin_comment : "(none)");
	}
	gp_test_job_free(one);
	gp_test_job_free(j);
}

/* The same job with a constraint of its own that its domain's feature
 * cannot be AND-ed to within Slurm's 1024 characters (203 x a100, 1,014):
 * the CONSTRAIN is not applied, and so no rack license either, which only
 * the domain's feature would have kept the job to. */
static void test_lic_unapplied_constraint(void **unused)
{
	job_desc_msg_t *one = gp_test_job_new("gres/gpu:1", NULL);
	job_desc_msg_t *j = gp_test_job_new(NULL, "gres/gpu:a100:4");
	char user[1100], *msg;
	size_t used = 0;
	int i;

	for (i = 0; i < 203; i++)
		used += (size_t)snprintf(user + used, sizeof(user) - used, "%sa100", i ? "&" : "");
	assert_int_equal(used, 1014);
	(void)submit(one, &msg);
	slurm_xfree((void **)&msg);
	j->min_nodes = j->max_nodes = 2;
	j->features = slurm_xstrdup(user);
	log_clear();
	assert_int_equal(submit(j, &msg), SLURM_SUCCESS);
	slurm_xfree((void **)&msg);
	if (!j->admin_comment || !strstr(j->admin_comment, "gpuplace: CONSTRAIN not applied (gpsw_") ||
	    j->licenses || !j->features || strcmp(j->features, user) ||
	    !log_find(LOGL_VERBOSE, "no rack license: its domain's constraint was not applied")) {
		log_dump();
		fail_msg("licenses '%s', comment '%s'", j->licenses ? j->licenses : "(none)",
		         j->admin_comment ? j->admin_comment : "(none)");
	}
	gp_test_job_free(one);
	gp_test_job_free(j);
}

/* Slurm's nodes without the racks' features: a job is kept to a rack by
 * excluding every other node (the user's exclusions kept), and the load
 * says so in one line for all racks. */
static void test_lic_without_features(void **unused)
{
	job_desc_msg_t *j = gp_test_job_new("gres/gpu:1", NULL);
	char *msg;

	assert_non_null(log_find(LOGL_INFO, "the nodes of 3 of 3 racks lack their gprack_ feature "
	                                    "in slurm.conf (the nodes of rack rack1 lack its "
	                                    "feature gprack_rack1;"));
	j->exc_nodes = slurm_xstrdup("l40s04");
	(void)submit(j, &msg);
	slurm_xfree((void **)&msg);
	if (!j->licenses || strcmp(j->licenses, "rackpw_rack3:315") || !j->exc_nodes ||
	    strcmp(j->exc_nodes, "l40s04,a100n[01-08]") || j->features) {
		log_dump();
		fail_msg("licenses '%s', excluded '%s', features '%s'",
		         j->licenses ? j->licenses : "(none)", j->exc_nodes ? j->exc_nodes : "(none)",
		         j->features ? j->features : "(none)");
	}
	gp_test_job_free(j);
}

/* Some racks' features right, some not: a feature on a node of another
 * rack (rack1's on rack2's nodes) and a rack whose nodes lack it (rack3)
 * both count; rack2's, on exactly its nodes, does not.  One line. */
static void test_lic_some_features(void **unused)
{
	(void)unused;
	if (!log_find(LOGL_INFO, "the nodes of 2 of 3 racks lack their gprack_ feature in "
	                         "slurm.conf (the nodes of rack rack1 lack its feature gprack_rack1;")) {
		log_dump();
		fail_msg("no line for racks rack1 and rack3");
	}
}

/* A burst of one-GPU jobs: the ledger books each where it was kept, so
 * they spread over the racks by room rather than all going to one. */
static void test_lic_burst(void **unused)
{
	int per_rack[3] = { 0, 0, 0 }, i;

	for (i = 0; i < 12; i++) {
		job_desc_msg_t *j = gp_test_job_new("gres/gpu:1", NULL);
		char *msg;

		(void)submit(j, &msg);
		slurm_xfree((void **)&msg);
		if (!j->features || strncmp(j->features, "gprack_rack", 11) || j->features[11] < '1' ||
		    j->features[11] > '3')
			fail_msg("job %d: features '%s'", i, j->features ? j->features : "(none)");
		per_rack[j->features[11] - '1']++;
		gp_test_job_free(j);
	}
	/* 12 x 315 W would take rack3 (5,440 W of room) to 1,660 W, below
	 * rack1's and rack2's 4,340: some go there, and rack3 has 16 GPUs */
	if (per_rack[0] + per_rack[1] == 0 || per_rack[2] == 0)
		fail_msg("kept to racks 1, 2, 3: %d, %d, %d", per_rack[0], per_rack[1], per_rack[2]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_env_element),
		cmocka_unit_test_setup_teardown(test_typed_requests, setup_mixed, teardown_site),
		cmocka_unit_test_setup_teardown(test_typed_requests_mixed_nodes, setup_mixed_nodes,
		                                teardown_site),
		cmocka_unit_test_setup_teardown(test_typed_request_mixed_nodes_free, setup_mixed_nodes,
		                                teardown_site),
		cmocka_unit_test_setup_teardown(test_typed_requests_left_to_slurm, setup_mixed,
		                                teardown_site),
		cmocka_unit_test_setup_teardown(test_multi_entry_request, setup_superpod, teardown_site),
		cmocka_unit_test_setup_teardown(test_job_array_left_to_slurm, setup_superpod,
		                                teardown_site),
		cmocka_unit_test_setup_teardown(test_partition_left_to_slurm, setup_multi_topo,
		                                teardown_site),
		cmocka_unit_test_setup_teardown(test_log_escapes_user_text, setup_mixed, teardown_site),
		cmocka_unit_test_setup_teardown(test_user_mistakes_at_verbose, setup_mixed, teardown_site),
		cmocka_unit_test_setup_teardown(test_junk_node_lists, setup_superpod,
		                                teardown_site),
		cmocka_unit_test_setup_teardown(test_hints_do_not_change_acceptance, setup_mixed,
		                                teardown_site),
		cmocka_unit_test_setup_teardown(test_stray_hint_without_gpus, setup_mixed, teardown_site),
		cmocka_unit_test_setup_teardown(test_admin_comment_kept, setup_superpod, teardown_site),
		cmocka_unit_test_setup_teardown(test_hres_licenses, setup_hres, teardown_hres),
		cmocka_unit_test_setup_teardown(test_hres_load, setup_hres, teardown_hres),
		cmocka_unit_test_setup_teardown(test_lic_requests, setup_lic, teardown_lic),
		cmocka_unit_test_setup_teardown(test_lic_burst, setup_lic, teardown_lic),
		cmocka_unit_test_setup_teardown(test_lic_long_constraint, setup_lic, teardown_lic),
		cmocka_unit_test_setup_teardown(test_lic_pin_two_racks, setup_lic, teardown_lic),
		cmocka_unit_test_setup_teardown(test_lic_cross_rack_pin, setup_lic, teardown_lic),
		cmocka_unit_test_setup_teardown(test_lic_unpinned_in_one_rack, setup_lic, teardown_lic),
		cmocka_unit_test_setup_teardown(test_lic_unapplied_constraint, setup_lic,
		                                teardown_lic),
		cmocka_unit_test_setup_teardown(test_lic_partitions, setup_lic, teardown_lic),
		cmocka_unit_test_setup_teardown(test_lic_some_features, setup_lic_mixed,
		                                teardown_lic),
		cmocka_unit_test_setup_teardown(test_lic_without_features, setup_lic_nofeat,
		                                teardown_lic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
