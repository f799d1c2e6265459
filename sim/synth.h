/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * synth.h - synthetic clusters for tests, benchmarks and `gpuplace synth`.
 *
 * The generated cluster is a rail-optimized leaf/spine fabric in the style of
 * NVIDIA's DGX SuperPOD reference architecture: a scalable unit (SU) of
 * nodes_per_leaf nodes whose rail leaves are modelled as one leaf switch
 * (topology.conf cannot express rails), leaves_per_spine_group SUs under one
 * spine group, and a core switch above the spine groups when there is more
 * than one.  Racks of nodes_per_rack nodes carry a power cap and a cooling
 * capacity, optional cross-node NVLink domains group nvl_domain_nodes nodes,
 * and there are two storage targets (node-local NVMe, a parallel file
 * system) and one partition "gpu" holding every node.
 *
 * Naming: nodes gpuNNNN, leaves suNNN, spine groups spineNN, root "core",
 * racks rNNNN, NVLink domains nvlNNN (widths grow with the counts).
 */
#ifndef GP_SYNTH_H
#define GP_SYNTH_H

#include <stdint.h>

#include "model.h"

typedef struct gp_synth_params {
	char name[GP_NAME_MAX];          /* ClusterName, default "synth" */
	int32_t nodes;                   /* required, >= 1 */
	int32_t gpus_per_node;           /* default 8 (1..GP_MAX_GPUS_PER_NODE) */
	char gpu_type[GP_NAME_MAX];      /* h100 (default), h200, a100, b200, gb200 */
	int32_t nodes_per_leaf;          /* default 32 (one SU) */
	int32_t leaves_per_spine_group;  /* default 16 (core layer above 16 SUs) */
	int32_t nodes_per_rack;          /* 0 = 4, or nvl_domain_nodes when set */
	double rack_kw;                  /* 0 = nodes_per_rack x node peak power */
	int32_t nvl_domain_nodes;        /* 0 = no cross-node NVLink domains */
	double oversub;                  /* leaf uplink oversubscription, default 1 */
	uint64_t seed;                   /* 0 = perfectly regular racks */
} gp_synth_params_t;

/* Fill p with the defaults above (nodes = 0: the caller must set it). */
void gp__synth_defaults(gp_synth_params_t *p);

/* Check p; 0 or GP_EINVAL with the offending parameter named in err. */
int gp__synth_check(const gp_synth_params_t *p, gp_error_t *err);

/*
 * Build the synthetic cluster in memory.  *out is set to NULL first and, on
 * success, to a finished model the caller frees with gp_cluster_destroy().
 * The model equals what gp_cluster_load_conf_dir() reads back from the
 * directory gp__synth_write_conf() writes for the same p (conf_dir aside).
 */
int gp__synth_build(const gp_synth_params_t *p, gp_cluster_t **out, gp_error_t *err);

/*
 * Write slurm.conf, topology.conf, gres.conf and gpuplace.conf for p into
 * dir (created if missing; existing files are replaced).  dir is the
 * caller's.  0 or a gp_err code (GP_EIO names the file).
 */
int gp__synth_write_conf(const gp_synth_params_t *p, const char *dir, gp_error_t *err);

#endif /* GP_SYNTH_H */
