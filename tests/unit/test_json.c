/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_json.c - the JSON model format: round trips and every error path. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_slurp.h"

#include <json-c/json.h>

#include "model.h"
#include "synth.h"

static char tmpdir[256];

static int setup_dir(void **unused)
{
	const char *t = getenv("TMPDIR");

	snprintf(tmpdir, sizeof(tmpdir), "%s/gp-json-XXXXXX", t && *t ? t : "/tmp");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_dir(void **unused)
{
	char p[512];
	const char *names[] = { "a.json", "b.json", "c.json", "t.json" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", tmpdir, names[i]);
		unlink(p);
	}
	return rmdir(tmpdir);
}


static void path_of(char *out, size_t size, const char *name)
{
	snprintf(out, size, "%s/%s", tmpdir, name);
}

/* save c (+ s) to a, load a, save to b; a and b must be byte-identical */
static void round_trip(const gp_cluster_t *c, const gp_state_t *s, gp_cluster_t **c2,
                       gp_state_t **s2)
{
	char a[512], b[512];
	gp_error_t err = { "" };
	size_t la, lb;
	char *ta, *tb;

	path_of(a, sizeof(a), "a.json");
	path_of(b, sizeof(b), "b.json");
	assert_int_equal(gp_cluster_save_json(c, s, a, &err), GP_OK);
	if (gp_cluster_load_json(a, c2, s2, &err) != GP_OK)
		fail_msg("load: %s", err.text);
	assert_non_null(*c2);
	assert_int_equal(gp_cluster_save_json(*c2, s2 ? *s2 : NULL, b, &err), GP_OK);
	ta = gp_test_slurp(a, &la);
	tb = gp_test_slurp(b, &lb);
	assert_int_equal(la, lb);
	assert_memory_equal(ta, tb, la);
	free(ta);
	free(tb);
}

/* Same model facts and derived data, field by field. */
static void assert_same_model(const gp_cluster_t *x, const gp_cluster_t *y)
{
	int32_t i, j;

	assert_string_equal(x->name, y->name);
	assert_int_equal(x->nnodes, y->nnodes);
	assert_int_equal(gp_cluster_gpu_count(x), gp_cluster_gpu_count(y));
	assert_int_equal(x->nswitches, y->nswitches);
	assert_int_equal(x->nracks, y->nracks);
	assert_int_equal(x->nnvl, y->nnvl);
	assert_int_equal(x->nparts, y->nparts);
	assert_int_equal(x->nblocks, y->nblocks);
	assert_int_equal(x->block_base, y->block_base);
	for (i = 0; i < x->nparts; i++)
		assert_int_equal(x->parts[i].no_blocks, y->parts[i].no_blocks);
	assert_int_equal(x->nstorage, y->nstorage);
	assert_int_equal(x->ntelemetry, y->ntelemetry);
	assert_int_equal(x->root, y->root);
	assert_int_equal(x->nlevels, y->nlevels);
	for (i = 0; i < x->nnodes; i++) {
		assert_string_equal(x->nodes[i].name, y->nodes[i].name);
		assert_int_equal(x->nodes[i].rack, y->nodes[i].rack);
		assert_int_equal(x->nodes[i].leaf, y->nodes[i].leaf);
		assert_int_equal(x->nodes[i].nvl_domain, y->nodes[i].nvl_domain);
		for (j = 0; j < x->nparts; j++)
			assert_int_equal(gp__node_in_part(x, i, j), gp__node_in_part(y, i, j));
		assert_int_equal(x->node_order[i], y->node_order[i]);
		assert_int_equal(x->node_pos[i], y->node_pos[i]);
		assert_int_equal(gp__node_find(y, x->nodes[i].name), i);
	}
	for (i = 0; i < x->nswitches; i++) {
		assert_string_equal(x->switches[i].name, y->switches[i].name);
		assert_int_equal(x->switches[i].level, y->switches[i].level);
		assert_int_equal(x->switches[i].parent, y->switches[i].parent);
		assert_int_equal(x->switches[i].first, y->switches[i].first);
		assert_int_equal(x->switches[i].count, y->switches[i].count);
	}
	for (i = 0; i < x->nlayouts; i++) {
		assert_int_equal(x->layouts[i].nislands, y->layouts[i].nislands);
		assert_memory_equal(x->layouts[i].island, y->layouts[i].island,
		                    sizeof(x->layouts[i].island));
	}
	for (i = 0; i < x->nracks; i++)
		assert_true(x->racks[i].power_cap_kw == y->racks[i].power_cap_kw);
}

static gp_cluster_t *synth(int32_t nodes, int32_t nvl, uint64_t seed)
{
	gp_synth_params_t p;
	gp_cluster_t *c = NULL;
	gp_error_t err = { "" };

	gp__synth_defaults(&p);
	p.nodes = nodes;
	p.nvl_domain_nodes = nvl;
	p.nodes_per_leaf = 8;
	p.leaves_per_spine_group = 4;
	p.seed = seed;
	if (gp__synth_build(&p, &c, &err) != GP_OK)
		fail_msg("synth: %s", err.text);
	return c;
}

/* Fill what synth leaves empty so the round trip covers every member. */
static void decorate(gp_cluster_t *c)
{
	gp_gres_layout_t *l;
	gp_telemetry_t *t;
	int a, b;

	c->nodes[1].features = strdup("ib,\"quoted\",ünïcode");
	assert_non_null(c->nodes[1].features);
	/* a second layout with Links= (two NVLink pairs) and Cores= */
	l = realloc(c->layouts, 2 * sizeof(*l));
	assert_non_null(l);
	c->layouts = l;
	memset(&l[1], 0, sizeof(l[1]));
	l[1].ngpus = c->nodes[2].ngpus;
	l[1].has_links = true;
	for (a = 0; a < l[1].ngpus; a++)
		for (b = 0; b < l[1].ngpus; b++)
			l[1].links[a][b] = a == b ? -1 : (a / 2 == b / 2 ? 4 : 0);
	for (a = 0; a < l[1].ngpus; a++)
		snprintf(l[1].cores[a], sizeof(l[1].cores[a]), "%d-%d", a * 4, a * 4 + 3);
	c->nlayouts = 2;
	c->nodes[2].layout = 1;
	c->parts[0].max_time_min = 2880;
	c->storage[0].nodes = malloc(2 * sizeof(int32_t));
	assert_non_null(c->storage[0].nodes);
	c->storage[0].nodes[0] = 0;
	c->storage[0].nodes[1] = 3;
	c->storage[0].nnodes = 2;
	t = calloc(1, sizeof(*t));
	assert_non_null(t);
	snprintf(t->name, sizeof(t->name), "pdu");
	t->kind = GP_TELEMETRY_REDFISH;
	snprintf(t->url, sizeof(t->url), "https://bmc.example/redfish/v1/PowerEquipment");
	snprintf(t->rack_label, sizeof(t->rack_label), "rack");
	t->racks = malloc(sizeof(int32_t));
	t->nodes = malloc(sizeof(int32_t));
	assert_true(t->racks && t->nodes);
	t->racks[0] = 1;
	t->nracks = 1;
	t->nodes[0] = 5;
	t->nnodes = 1;
	t->interval_s = 10;
	t->timeout_s = 2.5;
	t->stale_s = 60;
	t->auth = GP_AUTH_BEARER;
	snprintf(t->auth_file, sizeof(t->auth_file), "/etc/gpuplace/token");
	c->telemetry = t;
	c->ntelemetry = 1;
	c->site.power_margin = 0.1;   /* not exactly representable: shortest text */
	c->site.default_grad_bytes = 1.0 / 3.0;
	assert_int_equal(gp__cluster_finish(c, NULL), GP_OK);
}

static void test_round_trip_model(void **unused)
{
	static const struct { int32_t nodes, nvl; uint64_t seed; } cases[] = {
		{ 1, 0, 0 }, { 8, 0, 0 }, { 20, 0, 3 }, { 100, 18, 0 }, { 300, 18, 42 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gp_cluster_t *c = synth(cases[i].nodes, cases[i].nvl, cases[i].seed), *c2 = NULL;

		if (c->nnodes >= 6)
			decorate(c);
		round_trip(c, NULL, &c2, NULL);
		assert_same_model(c, c2);
		if (c->nnodes >= 6) {
			assert_string_equal(c2->nodes[1].features, c->nodes[1].features);
			assert_int_equal(c2->layouts[1].nislands, c->nodes[2].ngpus / 2);
			assert_true(c2->site.power_margin == 0.1);
			assert_true(c2->site.default_grad_bytes == 1.0 / 3.0);
			assert_int_equal(c2->telemetry[0].auth, GP_AUTH_BEARER);
			assert_int_equal(c2->storage[0].nnodes, 2);
			assert_int_equal(c2->parts[0].max_time_min, 2880);
		}
		gp_cluster_destroy(c);
		gp_cluster_destroy(c2);
	}
}

static void test_round_trip_state(void **unused)
{
	gp_cluster_t *c = synth(40, 0, 0), *c2 = NULL;
	gp_state_t *s = NULL, *s2 = NULL;
	gp_job_alloc_t *j;

	assert_int_equal(gp_state_create(c, &s), GP_OK);
	s->time = 1763700000;
	s->node_flags[3] = GP_NODE_DRAIN;
	s->node_flags[7] = GP_NODE_DOWN | GP_NODE_RESERVED;
	s->node_flags[5] = GP_NODE_DOWN | GP_NODE_NORESP; /* down for now only */
	s->alloc_mask[0] = 0xff;
	s->alloc_mask[1] = 0x0f;
	s->alloc_mask[9] = 0x81;
	s->jobs = calloc(2, sizeof(*s->jobs));
	assert_non_null(s->jobs);
	s->njobs = 2;
	j = &s->jobs[0];
	j->job_id = 101;
	j->end_time = 1763703600;
	j->load = 0.75;
	j->nnodes = 2;
	j->nodes = malloc(2 * sizeof(int32_t));
	j->gpu_mask = malloc(2 * sizeof(uint32_t));
	assert_true(j->nodes && j->gpu_mask);
	j->nodes[0] = 0;
	j->gpu_mask[0] = 0xff;
	j->nodes[1] = 1;
	j->gpu_mask[1] = 0x0f;
	j = &s->jobs[1];
	j->job_id = 102;
	j->end_time = 1763790000;
	j->load = 1.0;
	j->nnodes = 1;
	j->nodes = malloc(sizeof(int32_t));
	j->gpu_mask = malloc(sizeof(uint32_t));
	assert_true(j->nodes && j->gpu_mask);
	j->nodes[0] = 9;
	j->gpu_mask[0] = 0x80;
	s->rack_power[2].measured_w = 31234.5;
	s->rack_power[2].sample_time = 1763699990;
	snprintf(s->rack_power[2].source, GP_NAME_MAX, "prom");

	round_trip(c, s, &c2, &s2);
	assert_non_null(s2);
	assert_same_model(c, c2);
	assert_int_equal(s2->time, s->time);
	assert_memory_equal(s2->node_flags, s->node_flags, (size_t)c->nnodes * sizeof(uint32_t));
	assert_memory_equal(s2->alloc_mask, s->alloc_mask, (size_t)c->nnodes * sizeof(uint32_t));
	assert_int_equal(s2->njobs, 2);
	assert_int_equal(s2->jobs[0].job_id, 101);
	assert_int_equal(s2->jobs[0].nnodes, 2);
	assert_int_equal(s2->jobs[0].gpu_mask[1], 0x0f);
	assert_true(s2->jobs[0].load == 0.75);
	assert_int_equal(s2->jobs[1].end_time, 1763790000);
	assert_true(s2->rack_power[2].measured_w == 31234.5);
	assert_true(s2->rack_power[0].measured_w < 0);
	assert_string_equal(s2->rack_power[2].source, "prom");

	/* without state_out the state section is skipped, and no state means none */
	gp_cluster_destroy(c2);
	gp_state_destroy(s2);
	{
		char a[512];
		gp_error_t err;

		path_of(a, sizeof(a), "a.json");
		assert_int_equal(gp_cluster_load_json(a, &c2, NULL, &err), GP_OK);
		gp_cluster_destroy(c2);
		assert_int_equal(gp_cluster_save_json(c, NULL, a, &err), GP_OK);
		s2 = (gp_state_t *)&err;   /* must be reset to NULL */
		assert_int_equal(gp_cluster_load_json(a, &c2, &s2, &err), GP_OK);
		assert_null(s2);
		gp_cluster_destroy(c2);
	}
	gp_state_destroy(s);
	gp_cluster_destroy(c);
}

/* A small valid document; the error cases edit one piece of it. */
static const char base_doc[] =
	"{\"gpuplace_model\": 1,\n"
	" \"model\": {\"name\": \"t\",\n"
	"  \"profiles\": [{\"name\": \"h100\", \"tflops_bf16\": 989, \"hbm_gbps\": 3350,"
	" \"nvlink_gbps\": 450, \"tdp_w\": 700, \"idle_w\": 70}],\n"
	"  \"layouts\": [{\"ngpus\": 8}],\n"
	"  \"fabric_levels\": [{\"level\": 0, \"link_gbps\": 50}],\n"
	"  \"racks\": [{\"name\": \"r1\", \"power_cap_kw\": 40}],\n"
	"  \"nodes\": [{\"name\": \"n1\", \"ngpus\": 8, \"profile\": \"h100\", \"layout\": 0,"
	" \"rack\": \"r1\"},\n"
	"            {\"name\": \"n2\", \"ngpus\": 8, \"profile\": \"h100\", \"rack\": \"r1\"}],\n"
	"  \"switches\": [{\"name\": \"s1\", \"nodes\": [\"n1\", \"n2\"]}],\n"
	"  \"partitions\": [{\"name\": \"p\", \"nodes\": [\"n1\", \"n2\"], \"max_time_min\": 60}]},\n"
	" \"state\": {\"time\": 100,\n"
	"  \"nodes\": [{\"name\": \"n1\", \"flags\": [\"drain\"], \"alloc\": [0, 1]}],\n"
	"  \"jobs\": [{\"job_id\": 7, \"end_time\": 200, \"nodes\": [{\"name\": \"n1\","
	" \"gpus\": [0, 1]}]}],\n"
	"  \"racks\": [{\"name\": \"r1\", \"measured_w\": 1000, \"sample_time\": 90,"
	" \"source\": \"prom\"}]}}\n";

/* Replace the first occurrence of from by to in base_doc. */
static char *edit(const char *from, const char *to)
{
	const char *at = strstr(base_doc, from);
	size_t n;
	char *out;

	if (!at)
		fail_msg("test bug: '%s' not in the base document", from);
	n = strlen(base_doc) - strlen(from) + strlen(to);
	out = malloc(n + 1);
	assert_non_null(out);
	memcpy(out, base_doc, (size_t)(at - base_doc));
	memcpy(out + (at - base_doc), to, strlen(to));
	memcpy(out + (at - base_doc) + strlen(to), at + strlen(from), strlen(at + strlen(from)) + 1);
	return out;
}

static void test_base_document(void **unused)
{
	gp_cluster_t *c = NULL;
	gp_state_t *s = NULL;
	gp_error_t err = { "" };

	if (gp__cluster_load_json_buf("t.json", base_doc, strlen(base_doc), &c, &s, &err))
		fail_msg("%s", err.text);
	assert_int_equal(c->nnodes, 2);
	assert_int_equal(c->nodes[1].layout, -1);
	assert_int_equal(c->nodes[0].rack, 0);
	assert_int_equal(c->racks[0].nnodes, 2);
	assert_true(c->racks[0].cooling_kw == 40);   /* defaults to the cap */
	assert_int_equal(c->root, 0);
	assert_int_equal(c->nlevels, 1);
	assert_int_equal(c->layouts[0].nislands, 1);  /* NVLink profile, no Links= */
	assert_int_equal(s->node_flags[0], GP_NODE_DRAIN);
	assert_int_equal(s->alloc_mask[0], 0x3);
	assert_int_equal(s->jobs[0].gpu_mask[0], 0x3);
	assert_true(s->jobs[0].load == 1.0);
	gp_state_destroy(s);
	gp_cluster_destroy(c);
}

static void test_errors(void **unused)
{
	static const struct {
		const char *from, *to;  /* edit of base_doc */
		const char *msg;        /* expected error text (substring) */
	} cases[] = {
		{ "\"ngpus\": 8, \"profile\": \"h100\", \"layout\"", "\"ngpus\": \"8\", \"layout\"",
		  "t.json: model.nodes[0].ngpus: expected an integer, got a string" },
		{ "\"rack\": \"r1\"}]", "\"rack\": \"r9\"}]",
		  "t.json: model.nodes[1].rack: unknown rack 'r9'" },
		{ "\"nodes\": [\"n1\", \"n2\"]}]", "\"nodes\": [\"n1\", \"n3\"]}]",
		  "t.json: model.switches[0].nodes[1]: unknown node 'n3'" },
		{ "\"alloc\": [0, 1]", "\"alloc\": [0, 8]",
		  "t.json: state.nodes[0].alloc[1]: GPU index 8 out of range (node 'n1' has 8 GPUs)" },
		{ "\"alloc\": [0, 1]", "\"alloc\": [0, -1]",
		  "t.json: state.nodes[0].alloc[1]: GPU index -1 out of range" },
		{ "\"alloc\": [0, 1]", "\"alloc\": [1, 1]",
		  "t.json: state.nodes[0].alloc[1]: GPU index 1 listed twice" },
		{ "\"alloc\": [0, 1]", "\"alloc\": [0, 1.5]",
		  "t.json: state.nodes[0].alloc[1]: expected a GPU index, got a number" },
		{ "\"gpus\": [0, 1]", "\"gpus\": [0, 2]",
		  "t.json: state.jobs[0].nodes[0]: GPUs of node 'n1' not in its state.nodes alloc list" },
		{ "{\"name\": \"n1\", \"gpus\"", "{\"name\": \"n5\", \"gpus\"",
		  "t.json: state.jobs[0].nodes[0].name: unknown node 'n5'" },
		{ "\"gpuplace_model\": 1", "\"gpuplace_model\": 2",
		  "t.json: gpuplace_model: unsupported schema version 2 (this gpuplace reads 1)" },
		{ "\"gpuplace_model\": 1", "\"gpuplace_model\": \"1\"",
		  "t.json: gpuplace_model: expected an integer, got a string" },
		{ "\"gpuplace_model\": 1,", "",
		  "t.json: gpuplace_model: missing (required)" },
		{ "\"name\": \"t\",", "\"name\": \"t\", \"colour\": 1,",
		  "t.json: model: unknown key 'colour'" },
		{ "{\"name\": \"n2\"", "{\"name\": \"n1\"",
		  "t.json: model.nodes[1]: duplicate node name 'n1' (also element 0)" },
		{ "{\"name\": \"n2\", \"ngpus\": 8, ", "{\"name\": \"n2\", ",
		  "t.json: model.nodes[1].ngpus: missing (required)" },
		{ "\"power_cap_kw\": 40", "\"power_cap_kw\": -4",
		  "t.json: model.racks[0].power_cap_kw: -4 is out of range [0, 1e+06]" },
		{ "\"tdp_w\": 700", "\"tdp_w\": true",
		  "t.json: model.profiles[0].tdp_w: expected a number, got a boolean" },
		{ "\"layouts\": [{\"ngpus\": 8}]", "\"layouts\": [{\"ngpus\": 4}]",
		  "t.json: model.nodes[0].layout: layout 0 has 4 GPUs, the node 8" },
		{ "\"layout\": 0", "\"layout\": 1",
		  "t.json: model.nodes[0].layout: 1 is out of range [0, 0]" },
		{ "\"ngpus\": 8, \"profile\": \"h100\", \"layout\"", "\"ngpus\": 33, \"layout\"",
		  "t.json: model.nodes[0].ngpus: 33 is out of range [0, 32]" },
		{ "\"max_time_min\": 60", "\"max_time_min\": \"forever\"",
		  "t.json: model.partitions[0].max_time_min: 'forever' is neither minutes nor" },
		{ "\"flags\": [\"drain\"]", "\"flags\": [\"drained\"]",
		  "t.json: state.nodes[0].flags[0]: 'drained' is not one of down, drain, reserved, "
		  "not_responding" },
		{ "\"racks\": [{\"name\": \"r1\", \"measured_w\"",
		  "\"racks\": [{\"name\": \"r2\", \"measured_w\"",
		  "t.json: state.racks[0].name: unknown rack 'r2'" },
		{ "\"switches\": [{\"name\": \"s1\", \"nodes\": [\"n1\", \"n2\"]}]",
		  "\"switches\": [{\"name\": \"s1\", \"nodes\": [\"n1\", \"n2\"]},"
		  " {\"name\": \"s2\", \"switches\": [\"s3\"]}, {\"name\": \"s3\", \"switches\": [\"s2\"]}]",
		  "t.json: model: switch cycle involving 's2'" },
		{ "\"switches\": [{\"name\": \"s1\", \"nodes\": [\"n1\", \"n2\"]}]",
		  "\"switches\": [{\"name\": \"s1\", \"nodes\": [\"n1\", \"n2\"]},"
		  " {\"name\": \"s2\", \"nodes\": [\"n2\"]}]",
		  "t.json: model: node 'n2' is listed under switches 's1' and 's2'" },
		{ "\"nodes\": [{\"name\": \"n1\", \"ngpus\"", "\"nodes\": {\"name\": \"n1\", \"ngpus\"",
		  "t.json:" },  /* broken bracket structure: a syntax error */
		{ "\"nodes\": [{\"name\": \"n1\", \"flags\"", "\"nodes\": [3, {\"name\": \"n1\", \"flags\"",
		  "t.json: state.nodes[0]: expected an object, got an integer" },
		{ "\"job_id\": 7", "\"job_id\": 0",
		  "t.json: state.jobs[0].job_id: 0 is out of range [1, 4294967295]" },
		{ "\"job_id\": 7", "\"job_id\": 99999999999999999999999",
		  "t.json: state.jobs[0].job_id:" },
		{ "\"name\": \"t\",", "\"name\": \"" "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\",",
		  "t.json: model.name: longer than 63 characters" },
		{ "\"name\": \"r1\", \"power_cap_kw\"", "\"name\": \"\", \"power_cap_kw\"",
		  "t.json: model.racks[0].name: empty name" },
		{ "\"state\": {\"time\": 100,", "\"state\": {\"time\": 100, \"extra\": [],",
		  "t.json: state: unknown key 'extra'" },
		{ "}}\n", "}} x\n", "t.json:14: byte " },
		{ "\"hbm_gbps\": 3350", "\"hbm_gbps\": 1e999",
		  "t.json: model.profiles[0].hbm_gbps:" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *doc = edit(cases[i].from, cases[i].to);
		gp_cluster_t *c = (gp_cluster_t *)doc;   /* must come back NULL */
		gp_state_t *s = (gp_state_t *)doc;
		gp_error_t err = { "" };
		int rc = gp__cluster_load_json_buf("t.json", doc, strlen(doc), &c, &s, &err);

		/* json-c 0.17 and later reject an integer beyond int64 in strict
		 * mode themselves, as a syntax error at its line and byte */
		const char *msg = strstr(cases[i].to, "99999999999999999999999") &&
		                          json_c_version_num() >= 0x001100
		                      ? "t.json:13: byte 723: number expected"
		                      : cases[i].msg;

		if (rc != GP_EJSON || !strstr(err.text, msg))
			fail_msg("case %zu: rc %d, message '%s', expected '%s'", i, rc, err.text, msg);
		assert_null(c);
		assert_null(s);
		free(doc);
	}
}

/* Truncations at many points: all fail with json-c's own description. */
static void test_truncated(void **unused)
{
	size_t len = strlen(base_doc), cut;
	const char *eof = json_tokener_error_desc(json_tokener_error_parse_eof);
	char path[512];

	for (cut = 0; cut < len - 2; cut += 7) {
		char *doc = strndup(base_doc, cut);
		gp_cluster_t *c;
		gp_error_t err = { "" };
		int rc;

		assert_non_null(doc);
		rc = gp__cluster_load_json_buf("t.json", doc, cut, &c, NULL, &err);
		assert_int_equal(rc, GP_EJSON);
		assert_null(c);
		if (!strstr(err.text, eof))
			fail_msg("cut %zu: '%s' lacks '%s'", cut, err.text, eof);
		free(doc);
	}
	/* the same through a file, naming the file */
	path_of(path, sizeof(path), "t.json");
	{
		FILE *f = fopen(path, "w");
		gp_cluster_t *c;
		gp_error_t err = { "" };
		char want[600];

		assert_non_null(f);
		fwrite(base_doc, 1, len / 2, f);
		fclose(f);
		assert_int_equal(gp_cluster_load_json(path, &c, NULL, &err), GP_EJSON);
		snprintf(want, sizeof(want), "%s:", path);
		assert_non_null(strstr(err.text, want));
		assert_non_null(strstr(err.text, eof));
	}
}

static void test_io_and_args(void **unused)
{
	gp_cluster_t *c = (gp_cluster_t *)&c;
	gp_error_t err = { "" };
	char path[512];

	assert_int_equal(gp_cluster_load_json("/nonexistent/m.json", &c, NULL, &err), GP_EIO);
	assert_null(c);
	assert_non_null(strstr(err.text, "/nonexistent/m.json"));
	assert_int_equal(gp_cluster_load_json(NULL, &c, NULL, &err), GP_EINVAL);
	assert_int_equal(gp_cluster_save_json(NULL, NULL, "x", &err), GP_EINVAL);
	c = synth(4, 0, 0);
	assert_int_equal(gp_cluster_save_json(c, NULL, "/nonexistent/dir/m.json", &err), GP_EIO);
	path_of(path, sizeof(path), "c.json");
	/* a state of another model is refused */
	{
		gp_cluster_t *other = synth(5, 0, 0);
		gp_state_t *s;

		assert_int_equal(gp_state_create(other, &s), GP_OK);
		assert_int_equal(gp_cluster_save_json(c, s, path, &err), GP_EINVAL);
		gp_state_destroy(s);
		gp_cluster_destroy(other);
	}
	gp_cluster_destroy(c);
	/* a document that is not an object */
	assert_int_equal(gp__cluster_load_json_buf("t.json", "[1]", 3, &c, NULL, &err), GP_EJSON);
	assert_non_null(strstr(err.text, "not an object"));
}

/* The example sites and the rich test configuration: conf dir -> JSON ->
 * model is the same model, and gp__cluster_finish() derives from the conf
 * loader's lists exactly what the conf loader derived itself. */
static void test_conf_sites(void **unused)
{
	static const char *const dirs[] = { "etc/superpod-h100", "etc/nvl72-gb200",
		"etc/mixed-pcie", "tests/data/conf/rich", "tests/data/conf/yaml-parts" };
	const char *src = getenv("GP_TOP_SRCDIR");
	size_t k;

	if (!src || !*src)
		skip();
	for (k = 0; k < sizeof(dirs) / sizeof(dirs[0]); k++) {
		gp_cluster_t *c = NULL, *c2 = NULL, *c3 = NULL;
		gp_error_t err = { "" };
		char dir[600];

		snprintf(dir, sizeof(dir), "%s/%s", src, dirs[k]);
		if (gp_cluster_load_conf_dir(dir, &c, &err))
			fail_msg("%s: %s", dirs[k], err.text);
		round_trip(c, NULL, &c2, NULL);
		assert_same_model(c, c2);
		assert_int_equal(c2->nwarnings, c->nwarnings);
		/* finish again on the conf-loaded model: nothing changes */
		if (gp_cluster_load_conf_dir(dir, &c3, &err))
			fail_msg("%s: %s", dirs[k], err.text);
		if (gp__cluster_finish(c3, &err))
			fail_msg("%s: finish: %s", dirs[k], err.text);
		assert_same_model(c, c3);
		gp_cluster_destroy(c);
		gp_cluster_destroy(c2);
		gp_cluster_destroy(c3);
	}
}

/* The state section alone, against a model loaded elsewhere. */
static void test_state_only(void **unused)
{
	const char *src = getenv("GP_TOP_SRCDIR");
	char path[4096], tmp[] = "/tmp/gp-state-XXXXXX";
	gp_cluster_t *c = NULL;
	gp_state_t *s1 = NULL, *s2 = NULL;
	gp_error_t err;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%s/tests/data/json/small-state.json", src ? src : ".");
	assert_int_equal(gp_cluster_load_json(path, &c, &s1, &err), GP_OK);
	assert_int_equal(gp_state_load_json(c, path, &s2, &err), GP_OK);
	assert_int_equal(s2->time, s1->time);
	assert_int_equal(s2->njobs, s1->njobs);
	assert_memory_equal(s2->alloc_mask, s1->alloc_mask, (size_t)c->nnodes * sizeof(uint32_t));
	assert_memory_equal(s2->node_flags, s1->node_flags, (size_t)c->nnodes * sizeof(uint32_t));
	assert_true(s2->rack_power[0].measured_w == s1->rack_power[0].measured_w);
	gp_state_destroy(s2);
	s2 = NULL;

	/* a document with no model section; an unknown node is named by path */
	assert_true((fd = mkstemp(tmp)) >= 0);
	assert_non_null(f = fdopen(fd, "w"));
	fputs("{\"gpuplace_model\": 1, \"state\": {\"nodes\": [{\"name\": \"n1\", \"alloc\": [1]}]}}", f);
	fclose(f);
	assert_int_equal(gp_state_load_json(c, tmp, &s2, &err), GP_OK);
	assert_int_equal(s2->alloc_mask[gp__node_find(c, "n1")], 0x2);
	gp_state_destroy(s2);
	s2 = NULL;
	assert_non_null(f = fopen(tmp, "w"));
	fputs("{\"gpuplace_model\": 1, \"state\": {\"nodes\": [{\"name\": \"zz9\"}]}}", f);
	fclose(f);
	assert_int_not_equal(gp_state_load_json(c, tmp, &s2, &err), GP_OK);
	assert_null(s2);
	assert_non_null(strstr(err.text, "state.nodes[0]"));
	assert_non_null(strstr(err.text, "unknown node 'zz9'"));
	assert_non_null(f = fopen(tmp, "w"));
	fputs("{\"gpuplace_model\": 1}", f);
	fclose(f);
	assert_int_not_equal(gp_state_load_json(c, tmp, &s2, &err), GP_OK);
	assert_non_null(strstr(err.text, "state"));
	unlink(tmp);
	gp_state_destroy(s1);
	gp_cluster_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_model),
		cmocka_unit_test(test_round_trip_state),
		cmocka_unit_test(test_base_document),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_io_and_args),
		cmocka_unit_test(test_conf_sites),
		cmocka_unit_test(test_state_only),
	};

	return cmocka_run_group_tests_name("json", tests, setup_dir, teardown_dir);
}
