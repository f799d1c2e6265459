/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_api.c - gp_place() through the installed library only: this program
 * includes nothing but gpuplace.h and links libgpuplace.so, as a program
 * of a site (or Python through ctypes) would.  The cluster is the
 * superpod-h100 example site (etc/): 128 DGX nodes of 8 GPUs, 4 scalable
 * units of 32 nodes, partitions batch (all), debug (dgx[001-004]).
 */
#include "config.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "gpuplace.h"

static gp_cluster_t *cluster;

static int setup(void **state)
{
	gp_error_t err = { "" };
	const char *top = getenv("GP_TOP_SRCDIR");
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/etc/superpod-h100", top ? top : ".");
	if (gp_cluster_load_conf_dir(dir, &cluster, &err) != GP_OK) {
		print_error("load %s: %s\n", dir, err.text);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	gp_cluster_destroy(cluster);
	return 0;
}

static gp_place_result_t *place_ok(const gp_place_request_t *req)
{
	gp_place_result_t *r = NULL;
	gp_error_t err = { "" };
	int rc = gp_place(cluster, NULL, req, &r, &err);

	if (rc != GP_OK)
		fail_msg("gp_place(%s): %s: %s", req->job, gp_strerror(rc), err.text);
	assert_non_null(r);
	return r;
}

/* Whether host list "dgx[001,005]" / "dgx[001-004]" names exactly n nodes,
 * all numbered lo..hi (one scalable unit of the SuperPOD example: 32
 * nodes under one leaf group).  The balanced policy may spread a job over
 * the racks of its unit for power headroom at the same step time, so the
 * exact nodes are the engine's choice; the unit is not. */
static bool in_unit(const char *list, int n, long lo, long hi)
{
	const char *p = strchr(list, '[');
	int count = 0;

	if (!p || strncmp(list, "dgx[", 4))
		return false;
	for (p++; *p && *p != ']';) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p)
			return false;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			p = end;
		}
		if (a < lo || b > hi || b < a)
			return false;
		count += (int)(b - a + 1);
		if (*p == ',')
			p++;
	}
	return count == n;
}

/* An empty cluster: 16 GPUs with tp=8 go on two whole nodes under one leaf. */
static void test_pin(void **state)
{
	gp_place_request_t req = { .job = "gpus=16,tp=8" };
	gp_place_result_t *r = place_ok(&req);
	json_object *root, *v;

	assert_int_equal(gp_place_result_kind(r), GP_PLACE_PIN);
	assert_true(in_unit(gp_place_result_nodes(r), 2, 1, 32));
	assert_string_equal(gp_place_result_features(r), "");
	assert_non_null(strstr(gp_place_result_reason(r), "best free set"));
	assert_true(gp_place_result_step_s(r) > 0);
	/* the JSON is the whole decision, and agrees with the accessors */
	root = json_tokener_parse(gp_place_result_json(r));
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "decision", &v));
	assert_string_equal(json_object_get_string(v), "PIN");
	assert_true(json_object_object_get_ex(root, "candidates", &v));
	assert_true(json_object_array_length(v) > 1);
	v = json_object_array_get_idx(v, 0);
	assert_true(json_object_object_get_ex(v, "nodes", &v));
	assert_string_equal(json_object_get_string(v), gp_place_result_nodes(r));
	json_object_put(root);
	gp_place_result_destroy(r);
}

/* sbatch's options reach the request: --nodelist, --exclude, --partition. */
static void test_request_options(void **state)
{
	gp_place_request_t req = { .job = "gpus=16", .nodelist = "dgx[033-034]" };
	gp_place_result_t *r = place_ok(&req);

	assert_int_equal(gp_place_result_kind(r), GP_PLACE_PIN);
	assert_string_equal(gp_place_result_nodes(r), "dgx[033-034]");
	gp_place_result_destroy(r);

	memset(&req, 0, sizeof(req));
	req.job = "gpus=16,tp=8";
	req.exclude = "dgx[001-032]";
	r = place_ok(&req);
	assert_true(in_unit(gp_place_result_nodes(r), 2, 33, 64));
	gp_place_result_destroy(r);

	/* debug has 4 nodes: 48 GPUs can never fit there */
	memset(&req, 0, sizeof(req));
	req.job = "gpus=48";
	req.partition = "debug";
	r = place_ok(&req);
	assert_int_equal(gp_place_result_kind(r), GP_PLACE_REJECT);
	assert_string_equal(gp_place_result_nodes(r), "");
	assert_non_null(strstr(gp_place_result_reason(r), "debug"));
	assert_true(gp_place_result_step_s(r) == 0);
	gp_place_result_destroy(r);
}

/* Bad requests are errors with a message, and *out stays NULL. */
static void test_errors(void **state)
{
	static const struct {
		gp_place_request_t req;
		int rc;
		const char *msg;
	} cases[] = {
		{ { .job = "gpus=16,tp=banana" }, GP_EINVAL, "tp" },
		{ { .job = "tp=8" }, GP_EINVAL, "gpus=N" },
		{ { .job = "gpus=8", .partition = "nosuch" }, GP_EINVAL, "nosuch" },
		{ { .job = "gpus=8", .nodelist = "dgx999" }, GP_EINVAL, "dgx999" },
		{ { .job = "gpus=8", .constraint = "a&&b" }, GP_EINVAL, "" },
		{ { .job = "gpus=8", .policy = "gpuplace_policy=nosuch" }, GP_EINVAL, "nosuch" },
		{ { .job = NULL }, GP_EINVAL, "gp_place" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gp_place_result_t *r = (gp_place_result_t *)&r;
		gp_error_t err = { "" };

		assert_int_equal(gp_place(cluster, NULL, &cases[i].req, &r, &err), cases[i].rc);
		assert_null(r);
		assert_true(err.text[0] != '\0');
		if (!strstr(err.text, cases[i].msg))
			fail_msg("case %zu: '%s' does not name '%s'", i, err.text, cases[i].msg);
	}
	assert_int_equal(gp_place(NULL, NULL, &cases[0].req, NULL, NULL), GP_EINVAL);
	gp_place_result_destroy(NULL);
}

/* A state with the first two nodes' GPUs taken moves the job on. */
static void test_state(void **state)
{
	static const char doc[] =
		"{\"gpuplace_model\": 1, \"state\": {\"time\": 1700000000, \"nodes\": ["
		"{\"name\": \"dgx001\", \"alloc\": [0,1,2,3,4,5,6,7]},"
		"{\"name\": \"dgx002\", \"alloc\": [0,1,2,3,4,5,6,7]}]}}\n";
	char path[] = "/tmp/test_api_XXXXXX";
	gp_place_request_t req = { .job = "gpus=16,tp=8" };
	gp_place_result_t *r = NULL;
	gp_state_t *s = NULL;
	gp_error_t err = { "" };
	int fd = mkstemp(path);
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(fputs(doc, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	if (gp_state_load_json(cluster, path, &s, &err) != GP_OK)
		fail_msg("state: %s", err.text);
	unlink(path);
	assert_int_equal(gp_place(cluster, s, &req, &r, &err), GP_OK);
	assert_int_equal(gp_place_result_kind(r), GP_PLACE_PIN);
	assert_null(strstr(gp_place_result_nodes(r), "dgx[001"));
	assert_null(strstr(gp_place_result_nodes(r), "dgx001"));
	assert_null(strstr(gp_place_result_nodes(r), "dgx002"));
	gp_place_result_destroy(r);
	gp_state_destroy(s);
}

/* Several threads on one model at once decide as one thread does. */
struct worker {
	pthread_t tid;
	char nodes[64];
	int rc;
};

static void *worker(void *arg)
{
	struct worker *w = arg;
	gp_place_request_t req = { .job = "gpus=32,tp=8,pp=2,params=70e9", .exclusive = 1 };
	gp_place_result_t *r = NULL;
	int i;

	for (i = 0; i < 20; i++) {
		gp_place_result_destroy(r);
		r = NULL;
		if ((w->rc = gp_place(cluster, NULL, &req, &r, NULL)) != GP_OK)
			return NULL;
	}
	snprintf(w->nodes, sizeof(w->nodes), "%s", gp_place_result_nodes(r));
	gp_place_result_destroy(r);
	return NULL;
}

static void test_threads(void **state)
{
	struct worker w[4];
	int i;

	memset(w, 0, sizeof(w));
	for (i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&w[i].tid, NULL, worker, &w[i]), 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(w[i].tid, NULL), 0);
		assert_int_equal(w[i].rc, GP_OK);
		assert_string_equal(w[i].nodes, w[0].nodes);
	}
	assert_true(in_unit(w[0].nodes, 4, 1, 32));
}

/* The site's policy comes with the model: gp_place() reads no file.  A
 * copy of the site is loaded with a SchedulerParameters line, then its
 * files are removed; a place still works, and a bad policy value is still
 * reported at its file and line. */
static void run(const char *cmd)
{
	assert_int_equal(system(cmd), 0);
}

static void test_policy_with_model(void **unused)
{
	const char *top = getenv("GP_TOP_SRCDIR");
	char dir[64] = "/tmp/gp-api-XXXXXX", cmd[8192];
	gp_error_t err = { "" };
	gp_cluster_t *c = NULL;
	gp_place_request_t req = { .job = "gpus=16,tp=8" };
	gp_place_result_t *r = NULL;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		assert_non_null(mkdtemp(dir));
		snprintf(cmd, sizeof(cmd), "cp -r '%s/etc/superpod-h100/.' '%s/' && printf "
		         "'SchedulerParameters=gpuplace_policy=pack,gpuplace_topk=%s\n' >> '%s/slurm.conf'",
		         top ? top : ".", dir, pass ? "many" : "4", dir);
		run(cmd);
		if (gp_cluster_load_conf_dir(dir, &c, &err) != GP_OK)
			fail_msg("load %s: %s", dir, err.text);
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		run(cmd);
		if (!pass) {
			assert_int_equal(gp_place(c, NULL, &req, &r, &err), GP_OK);
			assert_int_equal(gp_place_result_kind(r), GP_PLACE_PIN);
			gp_place_result_destroy(r);
		} else {
			assert_int_equal(gp_place(c, NULL, &req, &r, &err), GP_ECONFIG);
			if (!strstr(err.text, "slurm.conf:") || !strstr(err.text, "SchedulerParameters: gpuplace_topk: 'many'"))
				fail_msg("error does not name file, line, key and value: %s", err.text);
		}
		gp_cluster_destroy(c);
		snprintf(dir, sizeof(dir), "/tmp/gp-api-XXXXXX");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_with_model),
		cmocka_unit_test(test_pin),
		cmocka_unit_test(test_request_options),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_state),
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests_name("api", tests, setup, teardown);
}
