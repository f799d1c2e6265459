/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_synth.c - synthetic clusters: counts, structure, conf files. */
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

#include "model.h"
#include "synth.h"

static int32_t cdiv(int32_t a, int32_t b)
{
	return (a + b - 1) / b;
}

static const struct {
	int32_t nodes, gpus, npl, lpg, npr, nvl;
	const char *type;
} shapes[] = {
	{ 1, 8, 32, 16, 0, 0, "h100" },        /* one leaf is the root */
	{ 32, 8, 32, 16, 0, 0, "h100" },       /* one full SU */
	{ 127, 8, 32, 16, 0, 0, "h100" },      /* RA-11333-001: 4 SUs, 127 nodes */
	{ 512, 8, 32, 16, 0, 0, "b200" },      /* 16 SUs: still one spine group */
	{ 513, 8, 32, 16, 0, 0, "h100" },      /* core layer appears */
	{ 1000, 4, 18, 8, 0, 18, "gb200" },    /* NVL72-like racks */
	{ 77, 2, 5, 3, 3, 0, "a100" },         /* ragged everything */
	{ 16384, 8, 32, 16, 4, 0, "h100" },    /* the benchmark's size */
};

static void test_counts(void **unused)
{
	size_t k;

	for (k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
		gp_synth_params_t p;
		gp_cluster_t *c = NULL;
		gp_error_t err = { "" };
		int32_t leaves, groups, nsw, levels, npr, racks, i;

		gp__synth_defaults(&p);
		p.nodes = shapes[k].nodes;
		p.gpus_per_node = shapes[k].gpus;
		p.nodes_per_leaf = shapes[k].npl;
		p.leaves_per_spine_group = shapes[k].lpg;
		p.nodes_per_rack = shapes[k].npr;
		p.nvl_domain_nodes = shapes[k].nvl;
		snprintf(p.gpu_type, sizeof(p.gpu_type), "%s", shapes[k].type);
		if (gp__synth_build(&p, &c, &err))
			fail_msg("shape %zu: %s", k, err.text);

		leaves = cdiv(p.nodes, p.nodes_per_leaf);
		groups = cdiv(leaves, p.leaves_per_spine_group);
		levels = leaves == 1 ? 1 : groups == 1 ? 2 : 3;
		nsw = leaves + (levels >= 2 ? groups : 0) + (levels == 3);
		npr = p.nodes_per_rack ? p.nodes_per_rack : p.nvl_domain_nodes ? p.nvl_domain_nodes : 4;
		racks = cdiv(p.nodes, npr);

		assert_int_equal(c->nnodes, p.nodes);
		assert_int_equal(gp_cluster_gpu_count(c), (long)p.nodes * p.gpus_per_node);
		assert_int_equal(c->nswitches, nsw);
		assert_int_equal(c->nlevels, levels);
		assert_int_equal(c->switches[c->root].level, levels - 1);
		assert_int_equal(c->switches[c->root].count, p.nodes);
		assert_int_equal(c->nracks, racks);
		assert_int_equal(c->nnvl, p.nvl_domain_nodes ? cdiv(p.nodes, p.nvl_domain_nodes) : 0);
		assert_int_equal(c->nparts, 1);
		assert_int_equal(c->parts[0].nnodes, p.nodes);
		assert_int_equal(c->nstorage, 2);
		assert_int_equal(c->nprofiles, 1);
		assert_string_equal(c->profiles[0].name, shapes[k].type);
		for (i = 0; i < GP_MAX_LEVELS; i++)
			assert_int_equal(c->levels[i].set, i < levels);
		for (i = 0; i < c->nnodes; i++) {
			const gp_node_t *n = &c->nodes[i];

			assert_true(n->leaf >= 0);
			assert_int_equal(c->switches[n->leaf].level, 0);
			assert_int_equal(n->leaf, i / p.nodes_per_leaf);
			assert_int_equal(n->rack, i / npr);
			assert_int_equal(n->rails, p.gpus_per_node);
			assert_true(gp__node_in_part(c, (int32_t)i, 0));
			assert_int_equal(n->nvl_domain, p.nvl_domain_nodes ? i / p.nvl_domain_nodes : -1);
			assert_int_equal(gp__node_find(c, n->name), i);
		}
		gp_cluster_destroy(c);
	}
}

/* Every switch's subtree is exactly the node_order range it claims. */
static void test_structure(void **unused)
{
	gp_synth_params_t p;
	gp_cluster_t *c = NULL;
	int32_t s, k;

	gp__synth_defaults(&p);
	p.nodes = 1500;
	p.nodes_per_leaf = 20;
	p.leaves_per_spine_group = 6;
	assert_int_equal(gp__synth_build(&p, &c, NULL), GP_OK);
	for (s = 0; s < c->nswitches; s++) {
		const gp_switch_t *w = &c->switches[s];

		assert_true(w->first >= 0 && w->first + w->count <= c->nnodes);
		for (k = w->first; k < w->first + w->count; k++) {
			int32_t x = c->nodes[c->node_order[k]].leaf;

			while (x >= 0 && x != s)
				x = c->switches[x].parent;
			assert_int_equal(x, s);       /* node at k is below s */
			assert_int_equal(c->node_pos[c->node_order[k]], k);
		}
		if (s != c->root)
			assert_int_equal(c->switches[w->parent].level, w->level + 1);
	}
	assert_string_equal(c->switches[c->root].name, "core");
	assert_true(c->levels[1].oversub == p.oversub);
	gp_cluster_destroy(c);
}

static void test_power(void **unused)
{
	gp_synth_params_t p;
	gp_cluster_t *a = NULL, *b = NULL, *d = NULL;
	double peak, lo = 1e9, hi = 0;
	int32_t r, differ = 0;

	gp__synth_defaults(&p);
	p.nodes = 400;
	assert_int_equal(gp__synth_build(&p, &a, NULL), GP_OK);
	peak = p.gpus_per_node * a->profiles[0].tdp_w + a->racks[0].node_base_w;
	/* default cap: a full rack at full power fits with the default 5 %
	 * margin kept free, and no more than 0.1 kW above that */
	for (r = 0; r < a->nracks; r++) {
		double need = a->racks[r].nnodes * peak / 0.95;

		if (a->racks[r].nnodes < 4)
			continue;
		assert_true(a->racks[r].power_cap_kw * 1000.0 * (1.0 - a->site.power_margin) >=
		            a->racks[r].nnodes * peak - 1e-6);
		assert_true(a->racks[r].power_cap_kw * 1000.0 - need < 100.0 + 1e-6);
	}
	p.rack_kw = 30;
	p.seed = 11;
	assert_int_equal(gp__synth_build(&p, &b, NULL), GP_OK);
	assert_int_equal(gp__synth_build(&p, &d, NULL), GP_OK);
	for (r = 0; r < b->nracks; r++) {
		double cap = b->racks[r].power_cap_kw;

		assert_true(cap == d->racks[r].power_cap_kw);  /* same seed, same caps */
		assert_true(cap == b->racks[r].cooling_kw);
		lo = cap < lo ? cap : lo;
		hi = cap > hi ? cap : hi;
		differ += cap != 30.0;
	}
	assert_true(lo >= 30 * 0.85 - 1e-9 && hi <= 30 * 1.15 + 1e-9);
	assert_true(differ > b->nracks / 2);
	gp_cluster_destroy(a);
	gp_cluster_destroy(b);
	gp_cluster_destroy(d);
}

static void test_bad_params(void **unused)
{
	static const struct { const char *what; int field; double v; } cases[] = {
		{ "nodes:", 0, 0 }, { "gpus-per-node:", 1, 33 }, { "gpus-per-node:", 1, 0 },
		{ "nodes-per-leaf:", 2, 0 }, { "oversub:", 3, 0.5 }, { "rack-kw:", 4, -1 },
		{ "gpu-type:", 5, 0 }, { "nvl-domain-nodes:", 6, -2 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gp_synth_params_t p;
		gp_cluster_t *c = (gp_cluster_t *)&p;
		gp_error_t err = { "" };

		gp__synth_defaults(&p);
		p.nodes = 10;
		switch (cases[i].field) {
		case 0: p.nodes = (int32_t)cases[i].v; break;
		case 1: p.gpus_per_node = (int32_t)cases[i].v; break;
		case 2: p.nodes_per_leaf = (int32_t)cases[i].v; break;
		case 3: p.oversub = cases[i].v; break;
		case 4: p.rack_kw = cases[i].v; break;
		case 5: snprintf(p.gpu_type, sizeof(p.gpu_type), "tpu"); break;
		default: p.nvl_domain_nodes = (int32_t)cases[i].v; break;
		}
		assert_int_equal(gp__synth_build(&p, &c, &err), GP_EINVAL);
		assert_null(c);
		if (!strstr(err.text, cases[i].what))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.text, cases[i].what);
		assert_int_equal(gp__synth_write_conf(&p, "/nonexistent-dir-x", &err), GP_EINVAL);
	}
}

static void rm_conf_dir(const char *dir)
{
	const char *files[] = { "slurm.conf", "topology.conf", "gres.conf", "gpuplace.conf",
		"a.json", "b.json" };
	char p[600];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		unlink(p);
	}
	rmdir(dir);
}


/* The conf directory synth writes loads into the model synth builds. */
static void test_conf_equivalent(void **unused)
{
	static const struct { int32_t nodes, gpus, nvl; const char *type; double kw, ovs;
		uint64_t seed; int32_t npl, lpg, npr; } cases[] = {
		{ 5, 8, 0, "h100", 0, 1, 0, 32, 16, 0 },
		{ 130, 8, 0, "h100", 0, 2, 0, 32, 16, 0 },
		{ 700, 8, 0, "h200", 45.5, 1.5, 9, 32, 16, 0 },
		{ 90, 4, 18, "gb200", 0, 1, 0, 32, 16, 0 },
		{ 29, 1, 0, "a100", 0, 1.25, 4, 4, 2, 3 },      /* ragged leaves, racks, core */
		{ 50, 16, 7, "b200", 100, 3, 0, 9, 1, 5 },       /* one leaf per spine group */
	};
	const char *t = getenv("TMPDIR");
	size_t k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char dir[256], a[600], b[600];
		gp_synth_params_t p;
		gp_cluster_t *c = NULL, *l = NULL;
		gp_error_t err = { "" };
		char *ta, *tb;

		snprintf(dir, sizeof(dir), "%s/gp-synth-XXXXXX", t && *t ? t : "/tmp");
		assert_non_null(mkdtemp(dir));
		gp__synth_defaults(&p);
		p.nodes = cases[k].nodes;
		p.gpus_per_node = cases[k].gpus;
		p.nvl_domain_nodes = cases[k].nvl;
		p.rack_kw = cases[k].kw;
		p.oversub = cases[k].ovs;
		p.seed = cases[k].seed;
		p.nodes_per_leaf = cases[k].npl;
		p.leaves_per_spine_group = cases[k].lpg;
		p.nodes_per_rack = cases[k].npr;
		snprintf(p.gpu_type, sizeof(p.gpu_type), "%s", cases[k].type);
		assert_int_equal(gp__synth_build(&p, &c, &err), GP_OK);
		if (gp__synth_write_conf(&p, dir, &err))
			fail_msg("write: %s", err.text);
		if (gp_cluster_load_conf_dir(dir, &l, &err))
			fail_msg("case %zu: load: %s", k, err.text);
		/* equal models save to equal JSON */
		snprintf(a, sizeof(a), "%s/a.json", dir);
		snprintf(b, sizeof(b), "%s/b.json", dir);
		assert_int_equal(gp_cluster_save_json(c, NULL, a, &err), GP_OK);
		assert_int_equal(gp_cluster_save_json(l, NULL, b, &err), GP_OK);
		ta = gp_test_slurp(a, NULL);
		tb = gp_test_slurp(b, NULL);
		if (strcmp(ta, tb)) {
			size_t i = 0;

			while (ta[i] == tb[i])
				i++;
			fail_msg("case %zu: JSON differs at byte %zu: built '%.60s' loaded '%.60s'",
			         k, i, ta + (i > 20 ? i - 20 : 0), tb + (i > 20 ? i - 20 : 0));
		}
		assert_int_equal(l->root, c->root);
		assert_int_equal(l->nlevels, c->nlevels);
		assert_memory_equal(l->node_order, c->node_order, (size_t)c->nnodes * sizeof(int32_t));
		free(ta);
		free(tb);
		gp_cluster_destroy(c);
		gp_cluster_destroy(l);
		rm_conf_dir(dir);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_power),
		cmocka_unit_test(test_bad_params),
		cmocka_unit_test(test_conf_equivalent),
	};

	return cmocka_run_group_tests_name("synth", tests, NULL, NULL);
}
