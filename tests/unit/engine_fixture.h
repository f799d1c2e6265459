/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine_fixture.h - small in-memory clusters for the engine tests.
 *
 * Nodes n0..nN-1 in consecutive leaves of nodes_per_leaf, leaves grouped
 * under spines, optionally a core switch (else a forest under the synthetic
 * root), racks and cross-node NVLink domains of consecutive nodes, and two
 * partitions: "gpu" (default, every node) and "debug" (every third node).
 */
#ifndef GP_ENGINE_FIXTURE_H
#define GP_ENGINE_FIXTURE_H

#include <stdbool.h>

#include "model.h"

typedef struct fx_params {
	int nnodes;
	const int *ngpus; /* per node, NULL = gpus for every node */
	int gpus;
	const char *const *features; /* per node (NULL entries allowed), NULL = none */
	int nodes_per_leaf;          /* 0 = no topology at all */
	int leaves_per_spine;        /* 0 = no spine level */
	bool forest;                 /* no single top switch: synthetic disconnected root */
	int nvl_nodes;               /* nodes per cross-node NVLink domain, 0 = none */
	int nodes_per_rack;          /* 0 = 2 */
	bool two_islands;            /* GPUs of a node form two NVLink islands (halves) */
} fx_params_t;

/* Build and finish the cluster; *out is the caller's (gp_cluster_destroy). */
int fx_build(const fx_params_t *p, gp_cluster_t **out, gp_error_t *err);

#endif /* GP_ENGINE_FIXTURE_H */
