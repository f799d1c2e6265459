/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cost_fixture.c - in-memory clusters and placements for tests. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <cmocka.h>

#include "cost_fixture.h"

gp_cluster_t *cf_cluster_shape(const gp_cost_shape_t *sh)
{
	gp_cluster_t *c = NULL;
	gp_error_t err = { "" };
	int rc = gp__cost_shape_build(sh, &c, &err);

	if (rc != GP_OK)
		fail_msg("cf_cluster_shape: %s", err.text);
	return c;
}

gp_cluster_t *cf_cluster(const char *gpu, int nodes, int gpn, int npl, double ov1)
{
	gp_cost_shape_t sh;

	gp__cost_shape_defaults(&sh);
	snprintf(sh.gpu, sizeof(sh.gpu), "%s", gpu);
	sh.nodes = nodes;
	sh.gpus_per_node = gpn;
	sh.nodes_per_leaf = npl;
	sh.oversub[1] = ov1;
	return cf_cluster_shape(&sh);
}

void cf_place(cf_placement_t *p, const int32_t *nodes, int n, uint32_t m)
{
	int i;

	assert_true(n > 0 && n <= CF_MAX_NODES);
	for (i = 0; i < n; i++) {
		p->nodes[i] = nodes[i];
		p->mask[i] = m;
	}
	p->pl.n = n;
	p->pl.nodes = p->nodes;
	p->pl.gpu_mask = p->mask;
}

void cf_place_range(cf_placement_t *p, int first, int step, int n, uint32_t m)
{
	int i;

	assert_true(n > 0 && n <= CF_MAX_NODES);
	for (i = 0; i < n; i++) {
		p->nodes[i] = first + i * step;
		p->mask[i] = m;
	}
	p->pl.n = n;
	p->pl.nodes = p->nodes;
	p->pl.gpu_mask = p->mask;
}
