/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cost_fixture.h - in-memory clusters and placements for cost model tests
 * (and any test that needs a small fabric without files).
 */
#ifndef GP_COST_FIXTURE_H
#define GP_COST_FIXTURE_H

#include <stdint.h>

#include "cost.h"

#define CF_MAX_NODES 1024

/* A placement with its own arrays. */
typedef struct cf_placement {
	gp_placement_t pl;
	int32_t nodes[CF_MAX_NODES];
	uint32_t mask[CF_MAX_NODES];
} cf_placement_t;

/* A cluster of `nodes` nodes of `gpu` with gpn GPUs, npl nodes per leaf
 * (0 = one leaf), oversubscription ov1 at fabric level 1 (0 = 1).  Aborts
 * the test on failure; free with gp_cluster_destroy(). */
gp_cluster_t *cf_cluster(const char *gpu, int nodes, int gpn, int npl, double ov1);

/* Same from a full shape. */
gp_cluster_t *cf_cluster_shape(const gp_cost_shape_t *sh);

/* Placement on the given node indices (n of them), each with mask m. */
void cf_place(cf_placement_t *p, const int32_t *nodes, int n, uint32_t m);
/* Placement on nodes first, first+step, ... (n of them), each with mask m. */
void cf_place_range(cf_placement_t *p, int first, int step, int n, uint32_t m);

#endif
