/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_candidates.c - job requests, --constraint expressions and candidate
 * node sets: every rule of the request holds on every candidate, smallest
 * domain first, matching OR, NVLink islands, fragmentation, scoring order,
 * and a randomized check against a brute-force feasibility oracle.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "candidates.h"
#include "engine_fixture.h"
#include "request.h"

/* ---- constraint expressions ------------------------------------------- */

static const struct {
	const char *expr;
	const char *features; /* node Features= */
	int alt;
	bool expect;
	int nalts;
} eval_cases[] = {
    {"a", "a,b", 0, true, 1},
    {"c", "a,b", 0, false, 1},
    {"a", NULL, 0, false, 1},
    {"ab", "a,b", 0, false, 1}, /* whole names only */
    {"a", "ab,b", 0, false, 1},
    {"a&b", "a", 0, false, 1},
    {"a&b", "b,a", 0, true, 1},
    {"a|c", "c", 0, true, 1},
    {"a|c", "b", 0, false, 1},
    /* left to right, equal precedence, as Slurm: (a|b)&c */
    {"a|b&c", "a", 0, false, 1},
    {"a|b&c", "a,c", 0, true, 1},
    {"c&b|a", "a", 0, true, 1},
    {"(a&b)|c", "c", 0, true, 1},
    {"a&(b|c)", "a,c", 0, true, 1},
    {"a&(b|c)", "b,c", 0, false, 1},
    {"((a))", "a", 0, true, 1},
    {"[r1|r2]", "r1", 0, true, 2},
    {"[r1|r2]", "r1", 1, false, 2},
    {"[r1|r2]", "r2", 1, true, 2},
    {"gpu&[r1|r2|r3]", "gpu,r3", 2, true, 3},
    {"gpu&[r1|r2|r3]", "r3", 2, false, 3},
    {"[r1|r2]&gpu", "r1", 0, false, 2},
    {"[(a&b)|c]", "a,b", 0, true, 2},
    {"[(a&b)|c]", "a", 0, false, 2},
    {"h100.sxm-5_x:y", "h100.sxm-5_x:y", 0, true, 1},
};

static void test_constraint_eval(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(eval_cases) / sizeof(eval_cases[0]); i++) {
		gp_constraint_t *k = NULL;
		gp_error_t err = {""};
		int rc = gp__constraint_parse(eval_cases[i].expr, &k, &err);

		if (rc)
			print_error("case %zu '%s': %s\n", i, eval_cases[i].expr, err.text);
		assert_int_equal(rc, GP_OK);
		assert_int_equal(k->nalts, eval_cases[i].nalts);
		if (gp__constraint_eval(k, gp__constraint_node_mask(k, eval_cases[i].features),
		                        eval_cases[i].alt) != eval_cases[i].expect) {
			print_error("case %zu '%s' on '%s' alt %d: expected %d\n", i,
			            eval_cases[i].expr,
			            eval_cases[i].features ? eval_cases[i].features : "",
			            eval_cases[i].alt, eval_cases[i].expect);
			fail();
		}
		gp__constraint_destroy(k);
	}
}

static void test_constraint_alt_text(void **state)
{
	gp_constraint_t *k = NULL;
	char buf[64];

	(void)state;
	assert_int_equal(gp__constraint_parse("gpu&[r1|(a&b)]", &k, NULL), GP_OK);
	gp__constraint_alt_text(k, 0, buf, sizeof(buf));
	assert_string_equal(buf, "r1");
	gp__constraint_alt_text(k, 1, buf, sizeof(buf));
	assert_string_equal(buf, "(a&b)");
	gp__constraint_alt_text(k, 2, buf, sizeof(buf));
	assert_string_equal(buf, "");
	gp__constraint_destroy(k);
	gp__constraint_destroy(NULL);
}

static const struct {
	const char *expr;
	const char *msg; /* expected in the error text */
} error_cases[] = {
    {"", "empty expression"},
    {"a*2", "node counts"},
    {"[a*2&b*4]", "node counts"},
    {"*2", "before '*'"},
    {"a,b", "',' is not an operator"},
    {",a", "',' is not an operator"},
    {"a&", "missing feature name at the end"},
    {"&a", "missing feature name at character 1"},
    {"a||b", "missing feature name at character 3"},
    {"(a|b", "missing ')'"},
    {"a)", "unbalanced ')'"},
    {"()", "missing feature name"},
    {"[a|b", "missing ']'"},
    {"a]", "unbalanced ']'"},
    {"[a&b]", "'&' inside brackets"},
    {"[a|b]&[c|d]", "only one matching-OR"},
    {"[[a|b]]", "cannot be nested"},
    {"(a&[b|c])", "inside parentheses"},
    {"a b", "invalid character"},
    {"a!b", "invalid character"},
    {"a(b)", "missing operator"},
};

static void test_constraint_errors(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(error_cases) / sizeof(error_cases[0]); i++) {
		gp_constraint_t *k = (gp_constraint_t *)&k;
		gp_error_t err = {""};
		int rc = gp__constraint_parse(error_cases[i].expr, &k, &err);

		if (rc != GP_EINVAL || !strstr(err.text, error_cases[i].msg)) {
			print_error("case '%s': rc %d, message '%s', expected '%s'\n",
			            error_cases[i].expr, rc, err.text, error_cases[i].msg);
			fail();
		}
		assert_null(k);
	}
	/* 65 distinct names */
	{
		char buf[65 * 4 + 1];
		size_t at = 0;
		gp_constraint_t *k;
		gp_error_t err;
		int i2;

		for (i2 = 0; i2 < 65; i2++)
			at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%sf%d", i2 ? "|" : "",
			                       i2);
		assert_int_equal(gp__constraint_parse(buf, &k, &err), GP_EINVAL);
		assert_non_null(strstr(err.text, "more than 64 distinct"));
	}
	/* an expression of 4,000 characters: the message still says what is
	 * wrong and where, the expression cut to its start */
	{
		char buf[4003];
		gp_constraint_t *k;
		gp_error_t err;

		memset(buf, '(', 2000);
		memset(buf + 2000, 'a', 2000);
		buf[4000] = ')';
		buf[4001] = ')';
		buf[4002] = '\0';
		assert_int_equal(gp__constraint_parse(buf, &k, &err), GP_EINVAL);
		print_message("# %s\n", err.text);
		assert_non_null(strstr(err.text, "...': "));
		assert_non_null(strstr(err.text, "too many terms (at most 256) at character 257"));
	}
}

/* ---- requests ------------------------------------------------------------ */

static gp_cluster_t *build(const fx_params_t *p)
{
	gp_cluster_t *c = NULL;
	gp_error_t err = {""};

	if (fx_build(p, &c, &err))
		print_error("fixture: %s\n", err.text);
	assert_non_null(c);
	return c;
}

static void test_request_lists(void **state)
{
	fx_params_t p = {.nnodes = 8, .gpus = 8, .nodes_per_leaf = 4};
	gp_cluster_t *c;
	gp_request_t r;
	gp_error_t err;

	(void)state;
	c = build(&p);
	gp__request_init(&r);
	assert_int_equal(gp__request_set_required(&r, c, "n[0-2],n5,n1", &err), GP_OK);
	assert_int_equal(r.nrequired, 4);
	assert_int_equal(r.required[0], 0);
	assert_int_equal(r.required[3], 5);
	assert_int_equal(gp__request_set_excluded(&r, c, "n[6-7]", &err), GP_OK);
	assert_int_equal(r.nexcluded, 2);
	assert_int_equal(gp__request_set_excluded(&r, c, "n[6-9]", &err), GP_ENOENT);
	assert_non_null(strstr(err.text, "--exclude: unknown node 'n8'"));
	assert_int_equal(r.nexcluded, 2); /* unchanged on error */
	assert_int_equal(gp__request_set_excluded(&r, c, "n[1-", &err), GP_EINVAL);
	assert_non_null(strstr(err.text, "not a valid host list"));
	assert_int_equal(r.nexcluded, 2);
	assert_int_equal(gp__request_set_partition(&r, c, "nope", &err), GP_ENOENT);
	assert_non_null(strstr(err.text, "partition 'nope'"));
	assert_int_equal(gp__request_set_partition(&r, c, "debug", &err), GP_OK);
	assert_int_equal(r.partition, 1);
	assert_int_equal(gp__request_set_constraint(&r, "a*4", &err), GP_EINVAL);
	assert_null(r.constraint);
	assert_int_equal(gp__request_set_constraint(&r, "a|b", &err), GP_OK);
	assert_non_null(r.constraint);
	gp__request_clear(&r);
	assert_null(r.required);
	assert_int_equal(r.partition, -1);
	gp__request_clear(&r);
	gp_cluster_destroy(c);
}

static const struct {
	int gpus, min_nodes, max_nodes, gpn;
	const char *required, *excluded, *partition;
	uint32_t time_limit;
	int rc;
	const char *msg;
} check_cases[] = {
    {8, 0, 0, 0, NULL, NULL, NULL, 0, GP_OK, NULL},
    {0, 0, 0, 0, NULL, NULL, NULL, 0, GP_EINVAL, "at least 1"},
    {8, 3, 2, 0, NULL, NULL, NULL, 0, GP_EINVAL, "minimum nodes (3) exceeds maximum nodes (2)"},
    {2, 3, 0, 0, NULL, NULL, NULL, 0, GP_EINVAL, "3 nodes cannot each get a GPU"},
    {12, 0, 0, 8, NULL, NULL, NULL, 0, GP_EINVAL, "not a multiple of 8"},
    {16, 0, 1, 8, NULL, NULL, NULL, 0, GP_EINVAL, "outside the 0-1 nodes"},
    {8, 0, 0, 33, NULL, NULL, NULL, 0, GP_EINVAL, "33 GPUs per node"},
    {8, 0, 1, 0, "n[0-1]", NULL, NULL, 0, GP_EINVAL, "at most 1 are allowed"},
    {1, 0, 0, 0, "n[0-1]", NULL, NULL, 0, GP_EINVAL, "only 1 GPUs"},
    {8, 0, 0, 0, "n1", "n[0-2]", NULL, 0, GP_EINVAL, "'n1' is both in --nodelist and --exclude"},
    {8, 0, 0, 0, NULL, NULL, "debug", 61, GP_EINVAL, "exceeds partition 'debug' MaxTime of 60"},
    {8, 0, 0, 0, NULL, NULL, "debug", 60, GP_OK, NULL},
};

static void test_request_check(void **state)
{
	fx_params_t p = {.nnodes = 8, .gpus = 8, .nodes_per_leaf = 4};
	gp_cluster_t *c;
	size_t i;

	(void)state;
	c = build(&p);
	for (i = 0; i < sizeof(check_cases) / sizeof(check_cases[0]); i++) {
		gp_request_t r;
		gp_error_t err = {""};
		int rc;

		gp__request_init(&r);
		r.gpus = check_cases[i].gpus;
		r.min_nodes = check_cases[i].min_nodes;
		r.max_nodes = check_cases[i].max_nodes;
		r.gpus_per_node = check_cases[i].gpn;
		r.time_limit_min = check_cases[i].time_limit;
		assert_int_equal(gp__request_set_required(&r, c, check_cases[i].required, &err), 0);
		assert_int_equal(gp__request_set_excluded(&r, c, check_cases[i].excluded, &err), 0);
		assert_int_equal(gp__request_set_partition(&r, c, check_cases[i].partition, &err),
		                 0);
		rc = gp__request_check(&r, c, &err);
		if (rc != check_cases[i].rc ||
		    (check_cases[i].msg && !strstr(err.text, check_cases[i].msg))) {
			print_error("check case %zu: rc %d '%s', expected %d '%s'\n", i, rc,
			            err.text, check_cases[i].rc,
			            check_cases[i].msg ? check_cases[i].msg : "");
			fail();
		}
		gp__request_clear(&r);
	}
	gp_cluster_destroy(c);
}

/* ---- invariants every candidate must satisfy ------------------------------ */

static int32_t top_of(const gp_cluster_t *c, int32_t node)
{
	int32_t sw = c->nodes[node].leaf;

	if (sw < 0)
		return -1;
	while (c->switches[sw].parent >= 0 && !c->switches[c->switches[sw].parent].disconnected)
		sw = c->switches[sw].parent;
	return sw;
}

/* Returns NULL or what the candidate violates. */
static const char *violation(const gp_cluster_t *c, const gp_state_t *s, const gp_request_t *r,
                             const gp_candidate_t *cd)
{
	int32_t part = gp__request_partition(r, c), i, j, total = 0;
	int alt = cd->alt < 0 ? 0 : cd->alt;

	if (cd->nnodes < 1)
		return "empty";
	if (r->min_nodes && cd->nnodes < r->min_nodes)
		return "fewer nodes than --nodes minimum";
	if (r->max_nodes && cd->nnodes > r->max_nodes)
		return "more nodes than --nodes maximum";
	if (r->constraint && r->constraint->match >= 0 && cd->alt < 0)
		return "matching OR without an alternative";
	for (i = 0; i < cd->nnodes; i++) {
		int32_t v = cd->nodes[i];
		const gp_node_t *nd = &c->nodes[v];
		uint32_t full = (1u << nd->ngpus) - 1, m = cd->gpu_mask[i];

		if (i && cd->nodes[i - 1] >= v)
			return "node list not ascending / duplicate";
		if (part >= 0 && !gp__node_in_part(c, v, part))
			return "node outside the partition";
		if (s->node_flags[v] & (GP_NODE_DOWN | GP_NODE_DRAIN | GP_NODE_RESERVED))
			return "down/drained/reserved node";
		for (j = 0; j < r->nexcluded; j++)
			if (r->excluded[j] == v)
				return "excluded node";
		if (!m)
			return "node without GPUs";
		if (m & ~full)
			return "GPU index beyond the node";
		if (m & s->alloc_mask[v])
			return "GPU already allocated";
		if (r->exclusive && s->alloc_mask[v])
			return "--exclusive on a node in use";
		if (r->gpus_per_node && gp__popcount(m) != r->gpus_per_node)
			return "wrong GPUs per node";
		if (r->constraint &&
		    !gp__constraint_eval(
		        r->constraint, gp__constraint_node_mask(r->constraint, nd->features), alt))
			return "constraint not met";
		if (c->root >= 0 && top_of(c, v) != top_of(c, cd->nodes[0]))
			return "spans disconnected parts of the fabric";
		total += gp__popcount(m);
	}
	if (total != r->gpus || cd->ngpus != r->gpus)
		return "wrong GPU total";
	for (j = 0; j < r->nrequired; j++) {
		for (i = 0; i < cd->nnodes; i++)
			if (cd->nodes[i] == r->required[j])
				break;
		if (i == cd->nnodes)
			return "required node missing";
	}
	return NULL;
}

static int search(const gp_cluster_t *c, const gp_state_t *s, const gp_request_t *r,
                  gp_search_ws_t *ws, const gp_candidate_t **cands, int *n, gp_error_t *err)
{
	int rc = gp__candidates_search(c, s, r, 8, NULL, NULL, ws, cands, n, err);
	int i;

	if (rc == GP_OK) {
		assert_true(*n >= 1 && *n <= 8);
		for (i = 0; i < *n; i++) {
			const char *why = violation(c, s, r, &(*cands)[i]);

			if (why) {
				print_error("candidate %d: %s\n", i, why);
				fail();
			}
			if (i)
				assert_true((*cands)[i - 1].score <= (*cands)[i].score);
		}
	}
	return rc;
}

/* ---- placement properties ------------------------------------------------ */

/* Busy nodes of a 2-leaf x 4-node x 8-GPU cluster, and the expected shape. */
static const struct {
	const char *name;
	uint32_t alloc[8];
	int gpus, gpn;
	int exp_nleaves; /* of the best candidate */
	int exp_leaf;    /* leaf switch index of the best, -1 = any */
	int exp_nnodes;
} shape_cases[] = {
    {"fits leaf1 only", {0xff, 0xff, 0, 0, 0, 0, 0, 0}, 24, 0, 1, 1, 3},
    {"fits both, tighter leaf0", {0xff, 0, 0, 0, 0x0f, 0, 0, 0}, 24, 0, 1, 0, 3},
    {"fits none, spans two", {0xff, 0xff, 0, 0, 0xff, 0, 0, 0}, 40, 0, 2, -1, 5},
    {"partial nodes first", {0x0f, 0, 0, 0, 0, 0, 0, 0}, 4, 0, 1, 0, 1},
    {"exact free match", {0x3f, 0x0f, 0, 0, 0xff, 0xff, 0xff, 0xff}, 4, 4, 1, 0, 1},
    {"per node spread", {0, 0, 0, 0, 0, 0, 0, 0}, 8, 2, 1, -1, 4},
};

static void test_smallest_domain(void **state)
{
	fx_params_t p = {.nnodes = 8, .gpus = 8, .nodes_per_leaf = 4, .leaves_per_spine = 2};
	gp_cluster_t *c;
	gp_state_t *s;
	gp_search_ws_t *ws;
	gp_error_t err;
	size_t i;

	(void)state;
	c = build(&p);
	assert_int_equal(gp_state_create(c, &s), GP_OK);
	assert_int_equal(gp__search_ws_create(c, 8, &ws, &err), GP_OK);
	for (i = 0; i < sizeof(shape_cases) / sizeof(shape_cases[0]); i++) {
		gp_request_t r;
		const gp_candidate_t *cd;
		int n, j, rc;

		memcpy(s->alloc_mask, shape_cases[i].alloc, sizeof(shape_cases[i].alloc));
		gp__request_init(&r);
		r.gpus = shape_cases[i].gpus;
		r.gpus_per_node = shape_cases[i].gpn;
		rc = search(c, s, &r, ws, &cd, &n, &err);
		if (rc)
			print_error("%s: %s\n", shape_cases[i].name, err.text);
		assert_int_equal(rc, GP_OK);
		if (cd[0].nleaves != shape_cases[i].exp_nleaves ||
		    cd[0].nnodes != shape_cases[i].exp_nnodes ||
		    (shape_cases[i].exp_leaf >= 0 && cd[0].top_switch != shape_cases[i].exp_leaf)) {
			print_error("%s: best spans %d leaves, %d nodes, switch %d\n",
			            shape_cases[i].name, cd[0].nleaves, cd[0].nnodes,
			            cd[0].top_switch);
			fail();
		}
		/* a job that fits one leaf never spans two */
		if (shape_cases[i].exp_nleaves == 1)
			for (j = 0; j < n; j++)
				assert_int_equal(cd[j].nleaves, 1);
		gp__request_clear(&r);
	}
	/* partial node chosen, exact match: case "exact free match" picked n1 */
	memcpy(s->alloc_mask, shape_cases[4].alloc, sizeof(shape_cases[4].alloc));
	{
		gp_request_t r;
		const gp_candidate_t *cd;
		int n;

		gp__request_init(&r);
		r.gpus = 4;
		assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_OK);
		assert_int_equal(cd[0].nodes[0], 1);
		assert_int_equal(cd[0].gpu_mask[0], 0xf0);
		assert_int_equal(cd[0].frag, 0);
		/* exclusive: only idle nodes, leaf 0 has n2, n3 */
		r.exclusive = true;
		assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_OK);
		assert_true(cd[0].nodes[0] == 2 || cd[0].nodes[0] == 3);
		/* breaking an idle node and, with the leaf all busy elsewhere, counted */
		assert_true(cd[0].frag >= 1);
		gp__request_clear(&r);
	}
	gp__search_ws_destroy(ws);
	gp_state_destroy(s);
	gp_cluster_destroy(c);
}

/* The tree-shaped fill takes the leaf with more usable GPUs first, whose
 * nodes are small; under --nodes=1-3 only the flat pass over the spine finds
 * the three whole nodes n3, n4, n5. */
static void test_node_limit_fallback(void **state)
{
	fx_params_t p = {.nnodes = 8, .gpus = 8, .nodes_per_leaf = 4};
	gp_cluster_t *c;
	gp_state_t *s;
	gp_search_ws_t *ws;
	gp_error_t err = {""};
	gp_request_t r;
	const gp_candidate_t *cd;
	int n;

	(void)state;
	c = build(&p);
	assert_int_equal(gp_state_create(c, &s), GP_OK);
	assert_int_equal(gp__search_ws_create(c, 8, &ws, &err), GP_OK);
	s->alloc_mask[0] = s->alloc_mask[1] = s->alloc_mask[2] = 0x0f;
	s->alloc_mask[6] = s->alloc_mask[7] = 0xff;
	gp__request_init(&r);
	r.gpus = 24;
	r.max_nodes = 3;
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_OK);
	assert_int_equal(cd[0].nnodes, 3);
	assert_int_equal(cd[0].nodes[0], 3);
	assert_int_equal(cd[0].nodes[1], 4);
	assert_int_equal(cd[0].nodes[2], 5);
	assert_int_equal(cd[0].nleaves, 2);
	r.max_nodes = 2;
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_ENOFIT);
	/* --nodes=5-: at least five nodes, so the 4-free nodes are used too */
	r.max_nodes = 0;
	r.min_nodes = 5;
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_OK);
	assert_true(cd[0].nnodes >= 5);
	gp__request_clear(&r);
	gp__search_ws_destroy(ws);
	gp_state_destroy(s);
	gp_cluster_destroy(c);
}

/* Three leaves of 4 x 8-GPU nodes under a core, with 2, 3 and 1 idle
 * nodes: 32 GPUs take the two fullest leaves, never all three; a required
 * node pulls the set into its leaf. */
static void test_fewest_leaves_and_required(void **state)
{
	fx_params_t p = {.nnodes = 12, .gpus = 8, .nodes_per_leaf = 4};
	gp_cluster_t *c;
	gp_state_t *s;
	gp_search_ws_t *ws;
	gp_error_t err = {""};
	gp_request_t r;
	const gp_candidate_t *cd;
	int n, i, j;

	(void)state;
	c = build(&p);
	assert_int_equal(gp_state_create(c, &s), GP_OK);
	assert_int_equal(gp__search_ws_create(c, 8, &ws, &err), GP_OK);
	s->alloc_mask[0] = s->alloc_mask[1] = 0xff;                     /* leaf0: 16 free */
	s->alloc_mask[4] = 0xff;                                        /* leaf1: 24 free */
	s->alloc_mask[8] = s->alloc_mask[9] = s->alloc_mask[10] = 0xff; /* leaf2: 8 free */
	gp__request_init(&r);
	r.gpus = 32;
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_OK);
	for (i = 0; i < n; i++) {
		assert_int_equal(cd[i].nleaves, 2);
		for (j = 0; j < cd[i].nnodes; j++)
			assert_true(cd[i].nodes[j] < 8);
	}
	/* 8 GPUs fit every leaf; the tightest (leaf2, node n11) comes first */
	r.gpus = 8;
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_OK);
	assert_int_equal(cd[0].nodes[0], 11);
	for (i = 0; i < n; i++)
		assert_int_equal(cd[i].nleaves, 1);
	/* --nodelist=n2 keeps the set in leaf0 */
	r.gpus = 16;
	assert_int_equal(gp__request_set_required(&r, c, "n2", &err), GP_OK);
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_OK);
	assert_int_equal(cd[0].nnodes, 2);
	assert_int_equal(cd[0].nodes[0], 2);
	assert_int_equal(cd[0].nodes[1], 3);
	assert_int_equal(cd[0].top_switch, 0);
	/* --nodelist=n2,n5 spans leaves 0 and 1 */
	assert_int_equal(gp__request_set_required(&r, c, "n2,n5", &err), GP_OK);
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_OK);
	assert_int_equal(cd[0].nnodes, 2);
	assert_int_equal(cd[0].nleaves, 2);
	assert_int_equal(cd[0].level, 1);
	gp__request_clear(&r);
	gp__search_ws_destroy(ws);
	gp_state_destroy(s);
	gp_cluster_destroy(c);
}

static void test_forest_and_nvl(void **state)
{
	/* 2 leaves of 4 nodes x 4 GPUs, a forest under the synthetic root, and
	 * cross-node NVLink domains of 2 nodes */
	fx_params_t p = {
	    .nnodes = 8, .gpus = 4, .nodes_per_leaf = 4, .forest = true, .nvl_nodes = 2};
	gp_cluster_t *c;
	gp_state_t *s;
	gp_search_ws_t *ws;
	gp_error_t err = {""};
	gp_request_t r;
	const gp_candidate_t *cd;
	int n;

	(void)state;
	c = build(&p);
	assert_true(c->root >= 0 && c->switches[c->root].disconnected);
	assert_int_equal(gp_state_create(c, &s), GP_OK);
	assert_int_equal(gp__search_ws_create(c, 8, &ws, &err), GP_OK);
	gp__request_init(&r);
	/* 8 GPUs: one NVLink domain (2 nodes) is the smallest domain */
	r.gpus = 8;
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_OK);
	assert_true(cd[0].one_nvl);
	assert_int_equal(cd[0].kind, GP_DOM_NVL);
	/* two whole nodes and the whole NVLink domain taken, one idle leaf broken */
	assert_int_equal(cd[0].frag, 4);
	/* 20 GPUs: more than one leaf (16), and the root is disconnected */
	r.gpus = 20;
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_ENOFIT);
	assert_non_null(strstr(err.text, "no connected fabric domain"));
	/* required nodes in two different trees */
	r.gpus = 8;
	assert_int_equal(gp__request_set_required(&r, c, "n0,n7", &err), GP_OK);
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_ENOFIT);
	/* k out of range */
	assert_int_equal(gp__candidates_search(c, s, &r, 9, NULL, NULL, ws, &cd, &n, &err),
	                 GP_EINVAL);
	gp__request_clear(&r);
	gp__search_ws_destroy(ws);
	gp_state_destroy(s);
	gp_cluster_destroy(c);
}

static void test_matching_or(void **state)
{
	static const char *const feat[8] = {"r1", "r1", "r1", "r1,x", "r2", "r2", "r2", "r2,x"};
	fx_params_t p = {.nnodes = 8, .gpus = 8, .nodes_per_leaf = 8, .features = feat};
	gp_cluster_t *c;
	gp_state_t *s;
	gp_search_ws_t *ws;
	gp_error_t err = {""};
	gp_request_t r;
	const gp_candidate_t *cd;
	int n, i, j, alts_seen = 0;

	(void)state;
	c = build(&p);
	assert_int_equal(gp_state_create(c, &s), GP_OK);
	assert_int_equal(gp__search_ws_create(c, 8, &ws, &err), GP_OK);
	gp__request_init(&r);
	r.gpus = 24;
	assert_int_equal(gp__request_set_constraint(&r, "[r1|r2]", &err), GP_OK);
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_OK);
	for (i = 0; i < n; i++) {
		const char *want = cd[i].alt == 0 ? "r1" : "r2";

		alts_seen |= 1 << cd[i].alt;
		for (j = 0; j < cd[i].nnodes; j++)
			assert_non_null(strstr(c->nodes[cd[i].nodes[j]].features, want));
	}
	assert_int_equal(alts_seen, 3);
	/* 40 GPUs: the union has 64, each alternative only 32 */
	r.gpus = 40;
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_ENOFIT);
	assert_non_null(strstr(err.text, "matching-OR"));
	/* plain OR may mix */
	assert_int_equal(gp__request_set_constraint(&r, "r1|r2", &err), GP_OK);
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_OK);
	assert_int_equal(cd[0].alt, -1);
	/* AND: only n3 and n7 */
	r.gpus = 16;
	assert_int_equal(gp__request_set_constraint(&r, "x&(r1|r2)", &err), GP_OK);
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_OK);
	assert_int_equal(cd[0].nnodes, 2);
	assert_int_equal(cd[0].nodes[0], 3);
	assert_int_equal(cd[0].nodes[1], 7);
	r.gpus = 17;
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_ENOFIT);
	assert_non_null(strstr(err.text, "6 lack the constraint x&(r1|r2)"));
	gp__request_clear(&r);
	gp__search_ws_destroy(ws);
	gp_state_destroy(s);
	gp_cluster_destroy(c);
}

/* One 8-GPU node with islands {0-3} and {4-7}. */
static const struct {
	uint32_t alloc;
	int gpus;
	uint32_t mask;
	int split;
} island_cases[] = {
    {0x00, 4, 0x0f, 0}, {0x03, 4, 0xf0, 0}, /* island 0 has only 2 free */
    {0x03, 2, 0x0c, 0},                     /* tightest island that holds 2 */
    {0x11, 3, 0x0e, 0}, {0x03, 6, 0xfc, 1}, /* cannot stay in one island */
    {0x81, 5, 0x3e, 1},                     /* 3 + 2, the first of equal islands first */
};

static void test_islands(void **state)
{
	fx_params_t p = {.nnodes = 1, .gpus = 8, .two_islands = true};
	gp_cluster_t *c;
	gp_state_t *s;
	gp_search_ws_t *ws;
	gp_error_t err = {""};
	size_t i;

	(void)state;
	c = build(&p);
	assert_int_equal(c->layouts[7].nislands, 2);
	assert_int_equal(gp_state_create(c, &s), GP_OK);
	assert_int_equal(gp__search_ws_create(c, 8, &ws, &err), GP_OK);
	for (i = 0; i < sizeof(island_cases) / sizeof(island_cases[0]); i++) {
		gp_request_t r;
		const gp_candidate_t *cd;
		int n;

		gp__request_init(&r);
		r.gpus = island_cases[i].gpus;
		s->alloc_mask[0] = island_cases[i].alloc;
		assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_OK);
		if (cd[0].gpu_mask[0] != island_cases[i].mask ||
		    cd[0].split_nodes != island_cases[i].split) {
			print_error("island case %zu: mask %#x split %d\n", i, cd[0].gpu_mask[0],
			            cd[0].split_nodes);
			fail();
		}
		assert_int_equal(cd[0].kind, GP_DOM_CLUSTER);
	}
	gp__search_ws_destroy(ws);
	gp_state_destroy(s);
	gp_cluster_destroy(c);
}

/* ---- scoring callback ------------------------------------------------------ */

static int score_by_first_node_desc(void *arg, const gp_candidate_t *cd, double *score)
{
	int *calls = arg;

	(*calls)++;
	*score = -(double)cd->nodes[0];
	return 0;
}

static int score_fails(void *arg, const gp_candidate_t *cd, double *score)
{
	(void)arg;
	(void)cd;
	*score = 0;
	return GP_ENOMEM;
}

static int score_const(void *arg, const gp_candidate_t *cd, double *score)
{
	(void)arg;
	(void)cd;
	*score = 1.0;
	return 0;
}

static void test_scoring(void **state)
{
	fx_params_t p = {.nnodes = 16, .gpus = 8, .nodes_per_leaf = 2, .leaves_per_spine = 4};
	gp_cluster_t *c;
	gp_state_t *s;
	gp_search_ws_t *ws;
	gp_error_t err = {""};
	gp_request_t r;
	const gp_candidate_t *cd;
	int n, i, calls = 0;
	int32_t first[8];

	(void)state;
	c = build(&p);
	assert_int_equal(gp_state_create(c, &s), GP_OK);
	assert_int_equal(gp__search_ws_create(c, 8, &ws, &err), GP_OK);
	gp__request_init(&r);
	r.gpus = 16;
	assert_int_equal(
	    gp__candidates_search(c, s, &r, 8, score_by_first_node_desc, &calls, ws, &cd, &n, &err),
	    GP_OK);
	assert_true(n >= 2);
	assert_true(calls >= n);
	for (i = 1; i < n; i++)
		assert_true(cd[i - 1].nodes[0] > cd[i].nodes[0]);
	/* equal scores: generation order, identical on a repeated search */
	assert_int_equal(gp__candidates_search(c, s, &r, 8, score_const, NULL, ws, &cd, &n, &err),
	                 GP_OK);
	for (i = 0; i < n; i++) {
		first[i] = cd[i].nodes[0];
		if (i)
			assert_true(cd[i - 1].seq < cd[i].seq);
	}
	assert_int_equal(gp__candidates_search(c, s, &r, 8, score_const, NULL, ws, &cd, &n, &err),
	                 GP_OK);
	for (i = 0; i < n; i++)
		assert_int_equal(cd[i].nodes[0], first[i]);
	/* k = 1 keeps the best */
	assert_int_equal(
	    gp__candidates_search(c, s, &r, 1, score_by_first_node_desc, &calls, ws, &cd, &n, &err),
	    GP_OK);
	assert_int_equal(n, 1);
	/* a failing callback aborts with its code */
	assert_int_equal(gp__candidates_search(c, s, &r, 8, score_fails, NULL, ws, &cd, &n, &err),
	                 GP_ENOMEM);
	assert_non_null(strstr(err.text, "scoring a candidate failed"));
	gp__request_clear(&r);
	gp__search_ws_destroy(ws);
	assert_int_equal(gp__search_ws_create(c, 0, &ws, &err), GP_EINVAL);
	assert_null(ws);
	gp_state_destroy(s);
	gp_cluster_destroy(c);
}

/* Rack power budgets: no candidate takes more GPUs from a rack than its
 * budget, nodes of a rack share it, a rack with no budget gives nothing
 * (and GP_ENOFIT says so), and on clusters with NVLink domains and rails
 * the alternatives (fewest domains, same GPU indices) are among the sets. */
static void test_rack_budget(void **state)
{
	fx_params_t p = {.nnodes = 8, .gpus = 8, .nodes_per_leaf = 8, .nodes_per_rack = 2};
	gp_cluster_t *c;
	gp_state_t *s;
	gp_search_ws_t *ws;
	gp_error_t err = {""};
	gp_request_t r;
	const gp_candidate_t *cd;
	int32_t budget[4] = { 12, 0, 6, -1 }, per[4], i, j;
	int n;

	(void)state;
	c = build(&p);
	assert_int_equal(c->nracks, 4);
	assert_int_equal(gp_state_create(c, &s), GP_OK);
	assert_int_equal(gp__search_ws_create(c, 8, &ws, &err), GP_OK);
	gp__search_ws_set_rack_budget(ws, budget, NULL);
	gp__request_init(&r);
	r.gpus = 32;
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_OK);
	for (i = 0; i < n; i++) {
		memset(per, 0, sizeof(per));
		for (j = 0; j < cd[i].nnodes; j++)
			per[c->nodes[cd[i].nodes[j]].rack] += __builtin_popcount(cd[i].gpu_mask[j]);
		assert_true(per[0] <= 12);
		assert_int_equal(per[1], 0);
		assert_true(per[2] <= 6);
		assert_int_equal(per[0] + per[1] + per[2] + per[3], 32);
	}
	/* 12 + 6 + 16 = 34 GPUs can be powered: 35 cannot */
	r.gpus = 35;
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_ENOFIT);
	assert_non_null(strstr(err.text, "2 sit in racks without the power for their share"));
	/* 8 GPUs per node: rack 2 (6) cannot give a node its share either */
	r.gpus = 24;
	r.gpus_per_node = 8;
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_OK);
	for (i = 0; i < n; i++)
		for (j = 0; j < cd[i].nnodes; j++) {
			assert_int_not_equal(c->nodes[cd[i].nodes[j]].rack, 1);
			assert_int_not_equal(c->nodes[cd[i].nodes[j]].rack, 2);
		}
	/* no budget: every rack gives what its nodes have */
	gp__search_ws_set_rack_budget(ws, NULL, NULL);
	r.gpus = 64;
	r.gpus_per_node = 0;
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_OK);
	gp__request_clear(&r);
	gp__search_ws_destroy(ws);
	gp_state_destroy(s);
	gp_cluster_destroy(c);
}

/* Rails: with two nodes whose free GPUs are the upper half and two whose
 * free GPUs are the lower half, a 2-node job of 4 GPUs per node gets a
 * candidate whose nodes use the same GPU indices. */
static void test_rail_aligned_alternative(void **state)
{
	fx_params_t p = {.nnodes = 4, .gpus = 8, .nodes_per_leaf = 4};
	gp_cluster_t *c;
	gp_state_t *s;
	gp_search_ws_t *ws;
	gp_error_t err = {""};
	gp_request_t r;
	const gp_candidate_t *cd;
	int32_t i;
	int n;
	bool aligned = false;

	(void)state;
	c = build(&p);
	for (i = 0; i < c->nnodes; i++)
		c->nodes[i].rails = 8;
	assert_int_equal(gp_state_create(c, &s), GP_OK);
	assert_int_equal(gp__search_ws_create(c, 8, &ws, &err), GP_OK);
	s->alloc_mask[0] = 0x0f; /* free 4-7 */
	s->alloc_mask[1] = 0xf0; /* free 0-3 */
	s->alloc_mask[2] = 0x0f;
	s->alloc_mask[3] = 0xf0;
	gp__request_init(&r);
	r.gpus = 8;
	r.gpus_per_node = 4;
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_OK);
	for (i = 0; i < n; i++)
		if (cd[i].nnodes == 2 && cd[i].gpu_mask[0] == cd[i].gpu_mask[1])
			aligned = true;
	assert_true(aligned);
	gp__request_clear(&r);
	gp__search_ws_destroy(ws);
	gp_state_destroy(s);
	gp_cluster_destroy(c);
}

/* Whole groups per node (gp__search_ws_set_granule): leaf 0's four nodes
 * have 4 free GPUs each, nodes 4 and 8 (two spine groups) are idle.  A
 * 16-GPU search with groups of 8 makes the set {4, 8} of whole nodes
 * besides the fragments; with groups that do not divide the job, or with
 * --gpus-per-node, the search is the plain one. */
static void test_whole_groups(void **state)
{
	fx_params_t p = {.nnodes = 16, .gpus = 8, .nodes_per_leaf = 4, .leaves_per_spine = 2};
	gp_cluster_t *c;
	gp_state_t *s;
	gp_search_ws_t *ws, *plain;
	gp_error_t err = {""};
	gp_request_t r;
	const gp_candidate_t *cd, *cp;
	int32_t i, j;
	int n, np, whole = -1, pass;

	(void)state;
	c = build(&p);
	assert_int_equal(gp_state_create(c, &s), GP_OK);
	for (i = 0; i < 16; i++)
		s->alloc_mask[i] = i < 4 ? 0x0f : i == 4 || i == 8 ? 0 : 0xff;
	assert_int_equal(gp__search_ws_create(c, 8, &ws, &err), GP_OK);
	assert_int_equal(gp__search_ws_create(c, 8, &plain, &err), GP_OK);
	gp__request_init(&r);
	r.gpus = 16;
	gp__search_ws_set_granule(ws, 8);
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_OK);
	for (i = 0; i < n; i++)
		if (cd[i].nnodes == 2 && cd[i].nodes[0] == 4 && cd[i].nodes[1] == 8 &&
		    cd[i].gpu_mask[0] == 0xff && cd[i].gpu_mask[1] == 0xff)
			whole = i;
	assert_true(whole >= 0);
	/* the plain search has no such set here */
	assert_int_equal(search(c, s, &r, plain, &cp, &np, &err), GP_OK);
	for (i = 0; i < np; i++)
		assert_false(cp[i].nnodes == 2 && cp[i].nodes[0] == 4 && cp[i].nodes[1] == 8);
	/* 12 GPUs are not whole groups of 8; --gpus-per-node fixes the split */
	for (pass = 0; pass < 2; pass++) {
		r.gpus = pass ? 16 : 12;
		r.gpus_per_node = pass ? 4 : 0;
		assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_OK);
		assert_int_equal(search(c, s, &r, plain, &cp, &np, &err), GP_OK);
		assert_int_equal(n, np);
		for (i = 0; i < n; i++) {
			assert_int_equal(cd[i].nnodes, cp[i].nnodes);
			for (j = 0; j < cd[i].nnodes; j++) {
				assert_int_equal(cd[i].nodes[j], cp[i].nodes[j]);
				assert_int_equal(cd[i].gpu_mask[j], cp[i].gpu_mask[j]);
			}
		}
	}
	gp__request_clear(&r);
	gp__search_ws_destroy(ws);
	gp__search_ws_destroy(plain);
	gp_state_destroy(s);
	gp_cluster_destroy(c);
}

static void test_enofit_reasons(void **state)
{
	fx_params_t p = {.nnodes = 6, .gpus = 4, .nodes_per_leaf = 6};
	gp_cluster_t *c;
	gp_state_t *s;
	gp_search_ws_t *ws;
	gp_error_t err = {""};
	gp_request_t r;
	const gp_candidate_t *cd;
	int n;

	(void)state;
	c = build(&p);
	assert_int_equal(gp_state_create(c, &s), GP_OK);
	assert_int_equal(gp__search_ws_create(c, 8, &ws, &err), GP_OK);
	s->node_flags[0] = GP_NODE_DOWN;
	s->node_flags[1] = GP_NODE_DRAIN;
	s->alloc_mask[2] = 0x0f;
	s->alloc_mask[3] = 0x01;
	gp__request_init(&r);
	assert_int_equal(gp__request_set_excluded(&r, c, "n4", &err), GP_OK);
	r.gpus = 8;
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_ENOFIT);
	assert_non_null(strstr(err.text, "only 7 usable GPUs on 2 eligible nodes"));
	assert_non_null(strstr(err.text, "2 down/drained/reserved, 1 excluded"));
	assert_non_null(strstr(err.text, "1 have too few free GPUs"));
	r.gpus = 7;
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_OK);
	r.max_nodes = 1;
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_ENOFIT);
	assert_non_null(strstr(err.text, "node count limits"));
	r.max_nodes = 0;
	assert_int_equal(gp__request_set_required(&r, c, "n1", &err), GP_OK);
	gp__request_set_excluded(&r, c, NULL, &err);
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_ENOFIT);
	assert_non_null(strstr(err.text, "required node 'n1' is down, drained or reserved"));
	gp__request_clear(&r);
	/* partition debug = n0, n3; exclusive needs idle nodes */
	assert_int_equal(gp__request_set_partition(&r, c, "debug", &err), GP_OK);
	r.gpus = 2;
	r.exclusive = true;
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_ENOFIT);
	assert_non_null(strstr(err.text, "in partition 'debug'"));
	assert_non_null(strstr(err.text, "4 are not in the partition"));
	r.exclusive = false;
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_OK);
	assert_int_equal(cd[0].nodes[0], 3);
	gp__request_clear(&r);
	gp__search_ws_destroy(ws);
	gp_state_destroy(s);
	gp_cluster_destroy(c);
}

/* ---- randomized against a brute-force oracle ------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % n);
}

/* Usable GPUs of node v for r and alternative alt (0 = ineligible). */
static int oracle_usable(const gp_cluster_t *c, const gp_state_t *s, const gp_request_t *r,
                         int32_t v, int alt)
{
	const gp_node_t *nd = &c->nodes[v];
	int32_t part = gp__request_partition(r, c), j;
	uint32_t full = (1u << nd->ngpus) - 1;
	int f = gp__popcount(full & ~s->alloc_mask[v]);

	if (part >= 0 && !gp__node_in_part(c, v, part))
		return 0;
	if (s->node_flags[v])
		return 0;
	for (j = 0; j < r->nexcluded; j++)
		if (r->excluded[j] == v)
			return 0;
	if (r->constraint &&
	    !gp__constraint_eval(r->constraint,
	                         gp__constraint_node_mask(r->constraint, nd->features), alt))
		return 0;
	if (r->exclusive && (s->alloc_mask[v] & full))
		return 0;
	if (r->gpus_per_node)
		return f >= r->gpus_per_node ? r->gpus_per_node : 0;
	return f < r->gpus ? f : r->gpus;
}

static int cmp_desc(const void *a, const void *b)
{
	return *(const int *)b - *(const int *)a;
}

/* Can the job be placed inside one connected part of the fabric (a top
 * switch under the root, or the whole cluster without topology)? */
static bool oracle(const gp_cluster_t *c, const gp_state_t *s, const gp_request_t *r)
{
	int nalts = r->constraint ? r->constraint->nalts : 1, alt;
	int32_t g, v, j;

	for (alt = 0; alt < nalts; alt++)
		for (g = -1; g < c->nswitches; g++) {
			int u[16], nu = 0, req_sum = 0, nreq = r->nrequired, lo, hi, k, sum;
			bool ok = true;

			if (c->root < 0 && g >= 0)
				continue;
			if (c->root >= 0) {
				/* g must be a top switch of a connected subtree */
				if (g < 0 || c->switches[g].disconnected)
					continue;
				if (c->switches[g].parent >= 0 &&
				    !c->switches[c->switches[g].parent].disconnected)
					continue;
			}
			for (v = 0; v < c->nnodes; v++) {
				bool in = c->root < 0 || top_of(c, v) == g, req = false;
				int x = in ? oracle_usable(c, s, r, v, alt) : 0;

				for (j = 0; j < nreq; j++)
					if (r->required[j] == v)
						req = true;
				if (req) {
					if (!x)
						ok = false;
					req_sum += x;
				} else if (x) {
					u[nu++] = x;
				}
			}
			if (!ok)
				continue;
			if (r->gpus_per_node) {
				int need = r->gpus / r->gpus_per_node;

				if (nu + nreq >= need)
					return true;
				continue;
			}
			qsort(u, (size_t)nu, sizeof(int), cmp_desc);
			lo = r->min_nodes > nreq ? r->min_nodes : nreq;
			if (lo < 1)
				lo = 1;
			hi = nu + nreq;
			if (r->max_nodes && hi > r->max_nodes)
				hi = r->max_nodes;
			if (hi > r->gpus)
				hi = r->gpus;
			if (lo > hi)
				continue;
			sum = req_sum;
			for (k = 0; k < hi - nreq; k++)
				sum += u[k];
			if (sum >= r->gpus)
				return true;
		}
	return false;
}

static const char *const rand_constraints[] = {
    NULL, NULL, "a", "a|b", "a&b", "[a|b]", "c&[a|b]", "(a|c)&b", "[a|(b&c)|d]",
};
static const char *const rand_features[] = {NULL, "a", "b", "a,b", "c", "a,c", "b,c,d", "d"};

static void test_randomized(void **state)
{
	int inst, valid = 0, feasible = 0, placed = 0;

	(void)state;
	for (inst = 0; valid < 400 && inst < 4000; inst++) {
		int ngpus[16];
		const char *feat[16];
		fx_params_t p;
		gp_cluster_t *c;
		gp_state_t *s;
		gp_search_ws_t *ws;
		gp_request_t r;
		gp_error_t err = {""};
		const gp_candidate_t *cd;
		int n, rc, total = 0, topo = (int)rnd(4);
		int32_t i;
		bool want;

		memset(&p, 0, sizeof(p));
		p.nnodes = 1 + (int)rnd(16);
		for (i = 0; i < p.nnodes; i++) {
			static const int g[] = {1, 2, 4, 8};

			ngpus[i] = g[rnd(4)];
			feat[i] = rand_features[rnd(8)];
			total += ngpus[i];
		}
		p.ngpus = ngpus;
		p.features = feat;
		p.two_islands = rnd(2);
		p.nvl_nodes = rnd(3) == 0 ? 2 + (int)rnd(3) : 0;
		if (topo > 0) {
			p.nodes_per_leaf = 1 + (int)rnd(5);
			p.leaves_per_spine = topo >= 2 ? 1 + (int)rnd(3) : 0;
			p.forest = topo == 3 || rnd(3) == 0;
		}
		c = build(&p);
		assert_int_equal(gp_state_create(c, &s), GP_OK);
		for (i = 0; i < c->nnodes; i++) {
			uint32_t full = (1u << c->nodes[i].ngpus) - 1;

			if (rnd(2))
				s->alloc_mask[i] = (uint32_t)rnd(1u << 16) & full;
			if (rnd(10) == 0)
				s->node_flags[i] = rnd(2) ? GP_NODE_DOWN : GP_NODE_DRAIN;
		}
		assert_int_equal(gp__search_ws_create(c, 8, &ws, &err), GP_OK);
		gp__request_init(&r);
		r.gpus = 1 + (int)rnd((uint32_t)(total < 24 ? total : 24));
		if (rnd(3) == 0)
			r.gpus_per_node = 1 << rnd(3);
		if (rnd(4) == 0)
			r.min_nodes = (int)rnd(4);
		if (rnd(3) == 0)
			r.max_nodes = 1 + (int)rnd(4);
		r.exclusive = rnd(6) == 0;
		if (rnd(8) == 0)
			r.partition = 1;
		if (rnd(4) == 0) {
			char name[16];

			snprintf(name, sizeof(name), "n%u", rnd((uint32_t)c->nnodes));
			assert_int_equal(gp__request_set_required(&r, c, name, &err), GP_OK);
		}
		if (rnd(4) == 0) {
			char name[16];

			snprintf(name, sizeof(name), "n%u", rnd((uint32_t)c->nnodes));
			assert_int_equal(gp__request_set_excluded(&r, c, name, &err), GP_OK);
		}
		assert_int_equal(gp__request_set_constraint(&r, rand_constraints[rnd(9)], &err), 0);
		if (gp__request_check(&r, c, &err) == GP_OK) {
			valid++;
			want = oracle(c, s, &r);
			feasible += want;
			rc = search(c, s, &r, ws, &cd, &n, &err);
			if (rc != (want ? GP_OK : GP_ENOFIT)) {
				print_error(
				    "instance %d: %d nodes topo %d, %d GPUs gpn %d nodes %d-%d "
				    "excl %d req %d exc %d constraint '%s': rc %d, oracle %d "
				    "(%s)\n",
				    inst, c->nnodes, topo, r.gpus, r.gpus_per_node, r.min_nodes,
				    r.max_nodes, r.exclusive, r.nrequired, r.nexcluded,
				    r.constraint ? r.constraint->text : "", rc, want, err.text);
				fail();
			}
			if (rc == GP_ENOFIT)
				assert_non_null(strstr(err.text, "no placement for"));
			else
				placed++;
		}
		gp__request_clear(&r);
		gp__search_ws_destroy(ws);
		gp_state_destroy(s);
		gp_cluster_destroy(c);
	}
	print_message("# %d valid random instances, %d feasible, %d placed\n", valid, feasible,
	              placed);
	assert_true(valid >= 200);
	assert_true(feasible >= 50 && valid - feasible >= 50);
}

/* ---- reuse of the last eligibility pass ------------------------------------ */

/* A search that reuses the last pass (gp__search_ws_reuse) after some
 * nodes' GPUs were freed or taken, nodes went down or came back and racks'
 * budgets moved gives exactly what a search reading the whole state gives:
 * the same result code and message, the same candidates with the same
 * nodes, GPUs and scores.  Random clusters with leaves, spines, NVLink
 * domains and racks; random occupancy, budgets and requests (partition,
 * --exclusive, --gpus-per-node, --exclude, constraints); several changes in
 * a row per instance, each checked. */
static void test_reuse(void **state)
{
	int inst, checked = 0, deltas = 0;

	(void)state;
	for (inst = 0; inst < 300; inst++) {
		int ngpus[32];
		const char *feat[32];
		fx_params_t p;
		gp_cluster_t *c;
		gp_state_t *s;
		gp_search_ws_t *ws, *ws2;
		gp_request_t r;
		gp_error_t err = {""}, err2 = {""};
		const gp_candidate_t *cd, *cd2;
		int32_t budget[32], i, j, round;
		int n, n2, rc, rc2, total = 0, gran;

		memset(&p, 0, sizeof(p));
		p.nnodes = 8 + (int)rnd(25);
		for (i = 0; i < p.nnodes; i++) {
			static const int g[] = {2, 4, 8, 8};

			ngpus[i] = g[rnd(4)];
			feat[i] = rand_features[rnd(8)];
			total += ngpus[i];
		}
		p.ngpus = ngpus;
		p.features = feat;
		p.nodes_per_leaf = 2 + (int)rnd(4);
		p.leaves_per_spine = rnd(2) ? 2 : 0;
		p.nvl_nodes = rnd(3) == 0 ? 2 : 0;
		p.nodes_per_rack = 1 + (int)rnd(4);
		c = build(&p);
		assert_true(c->nracks <= 32);
		assert_int_equal(gp_state_create(c, &s), GP_OK);
		for (i = 0; i < c->nnodes; i++)
			if (rnd(3))
				s->alloc_mask[i] = (uint32_t)rnd(1u << 8) & ((1u << c->nodes[i].ngpus) - 1);
		for (i = 0; i < c->nracks; i++)
			budget[i] = (int32_t)rnd(20) - 2;
		assert_int_equal(gp__search_ws_create(c, 8, &ws, &err), GP_OK);
		assert_int_equal(gp__search_ws_create(c, 8, &ws2, &err), GP_OK);
		if (rnd(4)) {
			gp__search_ws_set_rack_budget(ws, budget, NULL);
			gp__search_ws_set_rack_budget(ws2, budget, NULL);
		}
		/* whole groups per node (a TP degree) in some: their prefix
		 * sums are kept by the reused pass too */
		gran = rnd(2) ? 1 : 2 + (int)rnd(7);
		gp__search_ws_set_granule(ws, gran);
		gp__search_ws_set_granule(ws2, gran);
		gp__request_init(&r);
		r.gpus = 1 + (int)rnd((uint32_t)(total / 2));
		if (rnd(4) == 0)
			r.gpus_per_node = 1 << rnd(3);
		r.exclusive = rnd(8) == 0;
		if (rnd(8) == 0)
			r.partition = 1;
		if (rnd(4) == 0) {
			char name[16];

			snprintf(name, sizeof(name), "n%u", rnd((uint32_t)c->nnodes));
			assert_int_equal(gp__request_set_excluded(&r, c, name, &err), GP_OK);
		}
		if (rnd(3) == 0)
			assert_int_equal(gp__request_set_constraint(&r, rand_constraints[rnd(9)], &err),
			                 0);
		if (gp__request_check(&r, c, &err) != GP_OK)
			goto next;
		/* the pass to reuse */
		gp__search_ws_reuse(ws, false);
		(void)gp__candidates_search(c, s, &r, 8, NULL, NULL, ws, &cd, &n, &err);
		gp__search_ws_reuse(ws, true);
		for (round = 0; round < 4; round++) {
			int nch = 1 + (int)rnd((uint32_t)c->nnodes);

			for (j = 0; j < nch; j++) {
				int32_t v = (int32_t)rnd((uint32_t)c->nnodes);
				uint32_t full = (1u << c->nodes[v].ngpus) - 1;

				switch (rnd(4)) {
				case 0: /* a job ends */
					s->alloc_mask[v] &= (uint32_t)rnd(1u << 8);
					break;
				case 1: /* a job starts */
					s->alloc_mask[v] |= (uint32_t)rnd(1u << 8) & full;
					break;
				case 2:
					s->node_flags[v] ^= GP_NODE_DOWN;
					break;
				default:
					s->alloc_mask[v] = 0;
				}
				gp__search_ws_changed(ws, v);
			}
			for (j = 0; j < c->nracks; j++)
				if (rnd(4) == 0)
					budget[j] = (int32_t)rnd(20) - 2;
			if (rnd(8) == 0) {
				/* another job's granule: the pass is made again */
				gran = 1 + (int)rnd(8);
				gp__search_ws_set_granule(ws, gran);
				gp__search_ws_set_granule(ws2, gran);
			}
			rc = gp__candidates_search(c, s, &r, 8, NULL, NULL, ws, &cd, &n, &err);
			rc2 = gp__candidates_search(c, s, &r, 8, NULL, NULL, ws2, &cd2, &n2, &err2);
			if (rc != rc2 || (rc == GP_OK && n != n2) ||
			    (rc != GP_OK && strcmp(err.text, err2.text)))
				fail_msg("instance %d round %d: reuse rc %d n %d (%s), full rc %d n %d (%s)",
				         inst, round, rc, rc == GP_OK ? n : 0, err.text, rc2,
				         rc2 == GP_OK ? n2 : 0, err2.text);
			for (i = 0; rc == GP_OK && i < n; i++) {
				assert_int_equal(cd[i].nnodes, cd2[i].nnodes);
				assert_memory_equal(cd[i].nodes, cd2[i].nodes,
				                    (size_t)cd[i].nnodes * sizeof(int32_t));
				assert_memory_equal(cd[i].gpu_mask, cd2[i].gpu_mask,
				                    (size_t)cd[i].nnodes * sizeof(uint32_t));
				assert_true(cd[i].score == cd2[i].score);
			}
			checked++;
			deltas += nch;
		}
	next:
		gp__request_clear(&r);
		gp__search_ws_destroy(ws);
		gp__search_ws_destroy(ws2);
		gp_state_destroy(s);
		gp_cluster_destroy(c);
	}
	print_message("# %d searches reusing the last pass (%d node changes) matched a full "
	              "pass\n", checked, deltas);
	assert_true(checked >= 500);
}

/* ---- --segment: whole segments inside one block ---------------------------- */

/* Blocks of per consecutive nodes (Slurm's topology/block, base = per). */
static void add_blocks(gp_cluster_t *c, int per)
{
	gp_error_t err;
	int32_t b, i, nb = (c->nnodes + per - 1) / per;

	c->blocks = calloc((size_t)nb, sizeof(*c->blocks));
	assert_non_null(c->blocks);
	c->nblocks = nb;
	for (b = 0; b < nb; b++) {
		gp_block_t *k = &c->blocks[b];

		snprintf(k->name, sizeof(k->name), "b%d", (int)b);
		k->nodes = calloc((size_t)per, sizeof(*k->nodes));
		assert_non_null(k->nodes);
		for (i = b * per; i < c->nnodes && i < (b + 1) * per; i++)
			k->nodes[k->nnodes++] = i;
	}
	c->block_base = per;
	c->block_levels = 1;
	if (gp__cluster_finish(c, &err))
		fail_msg("%s", err.text);
}

/* Every block holds a multiple of seg of the candidate's nodes, and every
 * node gets the same GPUs. */
static void check_segments(const gp_cluster_t *c, const gp_candidate_t *cd, int seg, int nodes)
{
	int32_t per[64] = { 0 }, i;

	assert_int_equal(cd->nnodes, nodes);
	for (i = 0; i < cd->nnodes; i++) {
		assert_true(c->nodes[cd->nodes[i]].block >= 0);
		per[c->nodes[cd->nodes[i]].block]++;
		assert_int_equal(__builtin_popcount(cd->gpu_mask[i]), cd->ngpus / nodes);
	}
	for (i = 0; i < c->nblocks; i++)
		if (per[i] % seg)
			fail_msg("block %d holds %d nodes of a --segment=%d set", (int)i, (int)per[i], seg);
}

static void test_segments(void **state)
{
	/* 12 nodes of 4 GPUs on one leaf, blocks b0 = n0-3, b1 = n4-7, b2 = n8-11;
	 * busy: n0, n1 (b0 has 2 free nodes), n8 (b2 has 3), b1 all free */
	fx_params_t p = {.nnodes = 12, .gpus = 4, .nodes_per_leaf = 12};
	static const struct {
		const char *name;
		int gpus, seg;
		int first[6]; /* the best candidate's nodes */
	} rows[] = {
	    {"2 segments of 2: the one block that holds both, the tightest", 16, 2, {4, 5, 6, 7}},
	    {"1 segment of 4: the only block with 4 free nodes", 16, 4, {4, 5, 6, 7}},
	    {"3 segments of 2: most segments first, then the lower block", 24, 2, {2, 3, 4, 5, 6, 7}},
	    {"6 segments of 1: any free node", 24, 1, {4, 5, 6, 7, 9, 10}},
	};
	gp_cluster_t *c;
	gp_state_t *s;
	gp_search_ws_t *ws;
	gp_error_t err;
	gp_request_t r;
	const gp_candidate_t *cd;
	size_t i;
	int n, j, k;

	(void)state;
	c = build(&p);
	add_blocks(c, 4);
	assert_int_equal(gp_state_create(c, &s), GP_OK);
	s->alloc_mask[0] = s->alloc_mask[1] = s->alloc_mask[8] = 0xf;
	assert_int_equal(gp__search_ws_create(c, 8, &ws, &err), GP_OK);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int nodes = rows[i].gpus / 4;

		gp__request_init(&r);
		r.gpus = rows[i].gpus;
		r.gpus_per_node = 4;
		r.segment_nodes = rows[i].seg;
		if (search(c, s, &r, ws, &cd, &n, &err))
			fail_msg("%s: %s", rows[i].name, err.text);
		for (k = 0; k < n; k++)
			check_segments(c, &cd[k], rows[i].seg, nodes);
		for (j = 0; j < nodes; j++)
			if (cd[0].nodes[j] != rows[i].first[j])
				fail_msg("%s: node %d of the best set is n%d, not n%d", rows[i].name, j,
				         (int)cd[0].nodes[j], rows[i].first[j]);
		gp__request_clear(&r);
	}
	/* 4 nodes in one segment: with n5 busy no block has 4 free nodes, though
	 * 8 free nodes remain (without --segment the job fits) */
	s->alloc_mask[5] = 0xf;
	gp__request_init(&r);
	r.gpus = 16;
	r.gpus_per_node = 4;
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_OK);
	r.segment_nodes = 4;
	assert_int_equal(gp__candidates_search(c, s, &r, 8, NULL, NULL, ws, &cd, &n, &err),
	                 GP_ENOFIT);
	/* --nodes=4 --gpus=16 gives the node count too */
	r.gpus_per_node = 0;
	r.min_nodes = r.max_nodes = 4;
	r.segment_nodes = 2;
	assert_int_equal(search(c, s, &r, ws, &cd, &n, &err), GP_OK);
	check_segments(c, &cd[0], 2, 4);
	gp__request_clear(&r);
	gp__search_ws_destroy(ws);
	gp_state_destroy(s);
	gp_cluster_destroy(c);
}

/* What sbatch(1) requires of --segment, as errors of the request. */
static void test_segment_errors(void **state)
{
	fx_params_t p = {.nnodes = 12, .gpus = 4, .nodes_per_leaf = 12};
	static const struct {
		int gpus, gpn, min, max, seg;
		const char *msg;
	} rows[] = {
	    {16, 4, 0, 0, 3, "--segment=3 does not divide the job's 4 nodes"},
	    {32, 4, 0, 0, 8, "--segment=8 is larger than the base block size of 4 nodes (BlockSizes)"},
	    {16, 0, 2, 4, 2, "--segment=2 needs a fixed node count (--nodes=N or --gpus-per-node)"},
	    {15, 0, 4, 4, 2, "--segment: 15 GPUs do not spread evenly over 4 nodes"},
	    {16, 4, 0, 0, -1, "--segment=-1 is negative"},
	};
	gp_cluster_t *c;
	gp_error_t err;
	size_t i;

	(void)state;
	c = build(&p);
	add_blocks(c, 4);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		gp_request_t r;

		gp__request_init(&r);
		r.gpus = rows[i].gpus;
		r.gpus_per_node = rows[i].gpn;
		r.min_nodes = rows[i].min;
		r.max_nodes = rows[i].max;
		r.segment_nodes = rows[i].seg;
		memset(&err, 0, sizeof(err));
		assert_int_equal(gp__request_check(&r, c, &err), GP_EINVAL);
		if (!strstr(err.text, rows[i].msg))
			fail_msg("row %zu: '%s', want '%s'", i, err.text, rows[i].msg);
	}
	/* without blocks (no topology/block) --segment has no effect */
	for (i = 0; i < (size_t)c->nnodes; i++)
		c->nodes[i].block = -1;
	c->nblocks = 0;
	{
		gp_request_t r;

		gp__request_init(&r);
		r.gpus = 16;
		r.gpus_per_node = 4;
		r.segment_nodes = 3;
		assert_int_equal(gp__request_check(&r, c, &err), GP_OK);
	}
	c->nblocks = (c->nnodes + 3) / 4;
	gp_cluster_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_constraint_eval),
	    cmocka_unit_test(test_constraint_alt_text),
	    cmocka_unit_test(test_constraint_errors),
	    cmocka_unit_test(test_request_lists),
	    cmocka_unit_test(test_request_check),
	    cmocka_unit_test(test_smallest_domain),
	    cmocka_unit_test(test_node_limit_fallback),
	    cmocka_unit_test(test_fewest_leaves_and_required),
	    cmocka_unit_test(test_forest_and_nvl),
	    cmocka_unit_test(test_matching_or),
	    cmocka_unit_test(test_islands),
	    cmocka_unit_test(test_scoring),
	    cmocka_unit_test(test_enofit_reasons),
	    cmocka_unit_test(test_rack_budget),
	    cmocka_unit_test(test_rail_aligned_alternative),
	    cmocka_unit_test(test_randomized),
	    cmocka_unit_test(test_whole_groups),
	    cmocka_unit_test(test_reuse),
	    cmocka_unit_test(test_segments),
	    cmocka_unit_test(test_segment_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
