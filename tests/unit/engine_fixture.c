/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_fixture.c - small in-memory clusters for the engine tests. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_fixture.h"

static int32_t *range(int32_t first, int32_t n)
{
	int32_t *v = malloc((size_t)(n > 0 ? n : 1) * sizeof(*v)), i;

	if (v)
		for (i = 0; i < n; i++)
			v[i] = first + i;
	return v;
}

int fx_build(const fx_params_t *p, gp_cluster_t **out, gp_error_t *err)
{
	gp_cluster_t *c;
	int32_t i, j, nleaves = 0, nspines = 0, ntop, npr, nsw = 0, a, b;
	int rc = GP_ENOMEM;

	*out = NULL;
	c = gp__cluster_new();
	if (!c)
		return GP_ENOMEM;
	snprintf(c->name, sizeof(c->name), "fixture");
	c->nodes = calloc((size_t)p->nnodes, sizeof(*c->nodes));
	c->layouts = calloc(GP_MAX_GPUS_PER_NODE, sizeof(*c->layouts));
	if (!c->nodes || !c->layouts)
		goto error;
	c->nnodes = p->nnodes;
	c->nlayouts = GP_MAX_GPUS_PER_NODE;
	for (j = 0; j < GP_MAX_GPUS_PER_NODE; j++) {
		gp_gres_layout_t *l = &c->layouts[j];

		l->ngpus = j + 1;
		l->has_links = true;
		for (a = 0; a < l->ngpus; a++)
			for (b = 0; b < l->ngpus; b++)
				l->links[a][b] =
				    a == b ? -1 : ((a < l->ngpus / 2) == (b < l->ngpus / 2));
	}
	for (i = 0; i < p->nnodes; i++) {
		gp_node_t *n = &c->nodes[i];

		snprintf(n->name, sizeof(n->name), "n%d", (int)i);
		n->ngpus = p->ngpus ? p->ngpus[i] : p->gpus;
		n->profile = -1;
		n->layout = p->two_islands && n->ngpus > 0 ? n->ngpus - 1 : -1;
		n->weight = 1;
		n->order = (uint32_t)i;
		if (p->features && p->features[i]) {
			n->features = strdup(p->features[i]);
			if (!n->features)
				goto error;
		}
	}
	/* partitions */
	c->parts = calloc(2, sizeof(*c->parts));
	if (!c->parts)
		goto error;
	c->nparts = 2;
	snprintf(c->parts[0].name, GP_NAME_MAX, "gpu");
	c->parts[0].is_default = true;
	c->parts[0].up = true;
	c->parts[0].max_time_min = UINT32_MAX;
	c->parts[0].nodes = range(0, p->nnodes);
	snprintf(c->parts[1].name, GP_NAME_MAX, "debug");
	c->parts[1].up = true;
	c->parts[1].max_time_min = 60;
	c->parts[1].nodes = malloc((size_t)p->nnodes * sizeof(int32_t) + 4);
	if (!c->parts[0].nodes || !c->parts[1].nodes)
		goto error;
	for (i = 0; i < p->nnodes; i += 3)
		c->parts[1].nodes[c->parts[1].nnodes++] = i;
	c->parts[0].nnodes = p->nnodes;
	/* racks */
	npr = p->nodes_per_rack > 0 ? p->nodes_per_rack : 2;
	c->nracks = (p->nnodes + npr - 1) / npr;
	c->racks = calloc((size_t)c->nracks, sizeof(*c->racks));
	if (!c->racks)
		goto error;
	for (i = 0; i < c->nracks; i++) {
		int32_t first = i * npr, n = first + npr > p->nnodes ? p->nnodes - first : npr;

		snprintf(c->racks[i].name, GP_NAME_MAX, "r%d", (int)i);
		c->racks[i].nnodes = n;
		if (!(c->racks[i].nodes = range(first, n)))
			goto error;
	}
	/* NVLink domains */
	if (p->nvl_nodes > 0) {
		c->nnvl = (p->nnodes + p->nvl_nodes - 1) / p->nvl_nodes;
		c->nvl = calloc((size_t)c->nnvl, sizeof(*c->nvl));
		if (!c->nvl)
			goto error;
		for (i = 0; i < c->nnvl; i++) {
			int32_t first = i * p->nvl_nodes;
			int32_t n =
			    first + p->nvl_nodes > p->nnodes ? p->nnodes - first : p->nvl_nodes;

			snprintf(c->nvl[i].name, GP_NAME_MAX, "nvl%d", (int)i);
			c->nvl[i].nnodes = n;
			if (!(c->nvl[i].nodes = range(first, n)))
				goto error;
		}
	}
	/* switches: leaves, spines, core */
	if (p->nodes_per_leaf > 0) {
		nleaves = (p->nnodes + p->nodes_per_leaf - 1) / p->nodes_per_leaf;
		if (p->leaves_per_spine > 0)
			nspines = (nleaves + p->leaves_per_spine - 1) / p->leaves_per_spine;
		ntop = nspines ? nspines : nleaves;
		c->switches = calloc((size_t)(nleaves + nspines + 1), sizeof(*c->switches));
		if (!c->switches)
			goto error;
		c->nswitches = nleaves + nspines + 1; /* zeroed entries free as no-ops */
		for (i = 0; i < nleaves; i++) {
			gp_switch_t *w = &c->switches[nsw++];
			int32_t first = i * p->nodes_per_leaf;
			int32_t n = first + p->nodes_per_leaf > p->nnodes ? p->nnodes - first
			                                                  : p->nodes_per_leaf;

			snprintf(w->name, GP_NAME_MAX, "leaf%d", (int)i);
			w->nnodes = n;
			if (!(w->nodes = range(first, n)))
				goto error;
		}
		for (i = 0; i < nspines; i++) {
			gp_switch_t *w = &c->switches[nsw++];
			int32_t first = i * p->leaves_per_spine;
			int32_t n = first + p->leaves_per_spine > nleaves ? nleaves - first
			                                                  : p->leaves_per_spine;

			snprintf(w->name, GP_NAME_MAX, "spine%d", (int)i);
			w->nchildren = n;
			if (!(w->children = range(first, n)))
				goto error;
		}
		if (!p->forest && ntop > 1) {
			gp_switch_t *w = &c->switches[nsw++];

			snprintf(w->name, GP_NAME_MAX, "core");
			w->nchildren = ntop;
			if (!(w->children = range(nspines ? nleaves : 0, ntop)))
				goto error;
		}
		c->nswitches = nsw;
	}
	rc = gp__cluster_finish(c, err);
	if (rc)
		goto error;
	*out = c;
	return GP_OK;
error:
	gp_cluster_destroy(c);
	return rc;
}
