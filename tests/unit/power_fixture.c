/* SPDX-License-Identifier: GPL-2.0-or-later */
/* power_fixture.c - the in-memory cluster of power_fixture.h. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "power_fixture.h"

static int32_t *index_list(gp_cluster_t *c, const char *list, bool racks, int32_t *n)
{
	char buf[256], *save = NULL, *tok;
	int32_t *out = calloc(16, sizeof(*out));

	*n = 0;
	assert_non_null(out);
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int32_t i, found = -1;

		if (racks) {
			for (i = 0; i < c->nracks; i++)
				if (!strcmp(c->racks[i].name, tok))
					found = i;
		} else {
			found = gp__node_find(c, tok);
		}
		assert_true(found >= 0);
		out[(*n)++] = found;
	}
	return out;
}

gp_cluster_t *pf_cluster(int ntel)
{
	static const struct { const char *name, *nodes; double cap, cool; } racks[] = {
		{ "r1", "n1,n2", 20, 18 }, { "r2", "n3,n4", 15, 30 }, { "r3", "n5", 10, 0 } };
	gp_cluster_t *c = gp__cluster_new();
	gp_error_t err = { "" };
	int i;

	assert_non_null(c);
	snprintf(c->name, sizeof(c->name), "powertest");
	c->nprofiles = 1;
	c->profiles = calloc(1, sizeof(*c->profiles));
	assert_non_null(c->profiles);
	snprintf(c->profiles[0].name, GP_NAME_MAX, "h100");
	c->profiles[0].tflops_bf16 = 989;
	c->profiles[0].hbm_gbps = 3350;
	c->profiles[0].nvlink_gbps = 450;
	c->profiles[0].tdp_w = 700;
	c->profiles[0].idle_w = 70;
	c->profiles[0].min_cap_w = 200;
	c->nnodes = 6;
	c->nodes = calloc(6, sizeof(*c->nodes));
	assert_non_null(c->nodes);
	for (i = 0; i < 6; i++) {
		gp_node_t *n = &c->nodes[i];

		snprintf(n->name, sizeof(n->name), "n%d", i + 1);
		n->ngpus = 8;
		n->profile = i < 5 ? 0 : -1;
		n->layout = -1;
		n->rails = 1;
		n->weight = 1;
		n->base_w = i < 5 ? 1000 : 0;
		n->order = (uint32_t)i;
	}
	assert_int_equal(gp__cluster_index(c), 0);
	c->nracks = 3;
	c->racks = calloc(3, sizeof(*c->racks));
	assert_non_null(c->racks);
	for (i = 0; i < 3; i++) {
		gp_rack_t *r = &c->racks[i];

		snprintf(r->name, sizeof(r->name), "%s", racks[i].name);
		r->power_cap_kw = racks[i].cap;
		r->cooling_kw = racks[i].cool;
		r->node_base_w = 1000;
		r->nodes = index_list(c, racks[i].nodes, false, &r->nnodes);
	}
	c->ntelemetry = ntel;
	c->telemetry = calloc((size_t)ntel + 1, sizeof(*c->telemetry));
	assert_non_null(c->telemetry);
	for (i = 0; i < ntel; i++) {
		c->telemetry[i].interval_s = 10;
		c->telemetry[i].timeout_s = 2;
		c->telemetry[i].stale_s = 60;
		snprintf(c->telemetry[i].rack_label, GP_NAME_MAX, "rack");
	}
	if (gp__cluster_finish(c, &err) < 0)
		fail_msg("fixture: %s", err.text);
	return c;
}

void pf_telemetry(gp_cluster_t *c, int i, const char *name, gp_telemetry_kind_t kind,
                  const char *url, const char *racks, const char *nodes)
{
	gp_telemetry_t *t = &c->telemetry[i];

	snprintf(t->name, sizeof(t->name), "%s", name);
	t->kind = kind;
	snprintf(t->url, sizeof(t->url), "%s", url);
	free(t->racks);
	free(t->nodes);
	t->racks = NULL;
	t->nodes = NULL;
	t->nracks = t->nnodes = 0;
	if (racks)
		t->racks = index_list(c, racks, true, &t->nracks);
	if (nodes)
		t->nodes = index_list(c, nodes, false, &t->nnodes);
}

void pf_alloc(gp_state_t *s, int32_t node, int first, int n, double load)
{
	uint32_t mask = ((1u << n) - 1u) << first;
	gp_job_alloc_t *j;

	s->alloc_mask[node] |= mask;
	if (load < 0)
		return;
	j = realloc(s->jobs, sizeof(*s->jobs) * (size_t)(s->njobs + 1));
	assert_non_null(j);
	s->jobs = j;
	j = &s->jobs[s->njobs++];
	memset(j, 0, sizeof(*j));
	j->job_id = (uint32_t)(100 + s->njobs);
	j->nodes = malloc(sizeof(*j->nodes));
	j->gpu_mask = malloc(sizeof(*j->gpu_mask));
	assert_non_null(j->nodes);
	assert_non_null(j->gpu_mask);
	j->nodes[0] = node;
	j->gpu_mask[0] = mask;
	j->nnodes = 1;
	j->load = load;
}
