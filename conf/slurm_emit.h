/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurm_emit.h - Slurm configuration written from the cluster model
 * (internal): the node lines of slurm.conf with topology-domain features,
 * topology.conf, and gres.conf with Links= and Cores=.
 *
 * Domain features are how job_submit/gpuplace keeps a job inside one
 * domain when it cannot pin nodes: a matching-OR constraint over them,
 * e.g. --constraint='[gpsw_leaf1|gpsw_leaf2]', makes Slurm take every node
 * of the job from one alternative.  Every node gets
 *   gpsw_<switch>   for each switch above it, except the root (which every
 *                   node shares),
 *   gpnvl_<domain>  for its cross-node NVLink domain,
 *   gprack_<rack>   for its rack,
 * with characters other than letters, digits, '_', '-' and '.' replaced
 * by '_'.
 */
#ifndef GP_SLURM_EMIT_H
#define GP_SLURM_EMIT_H

#include <stdio.h>

#include "model.h"
#include "request.h" /* GP_FEATURE_*, gp__domain_feature() */

/* Comma-separated domain features of node n (no leading comma; "" when the
 * node is in no domain).  0 or GP_ELIMIT. */
int gp__node_domain_features(const gp_cluster_t *c, int32_t n, char *buf, size_t len);

/*
 * The NodeName lines of dir/slurm.conf with the domain features added:
 * each line is split where the domain features change, its parallel
 * NodeHostname=, NodeAddr= and Port= lists split with it, every other key
 * kept as written, Features= = the node's features + its domain features.
 * NodeName=DEFAULT lines are kept.  Without a conf dir (dir NULL, e.g. a
 * model loaded from JSON) minimal lines are written from the model.
 * 0, or GP_ECONFIG / GP_EIO / GP_ELIMIT / GP_ENOMEM with err filled.
 */
int gp__emit_slurm_nodes(const gp_cluster_t *c, const char *dir, FILE *f, gp_error_t *err);

/* What gp__emit_topology writes. */
typedef enum gp_topo_format {
	GP_TOPO_AUTO = 0,  /* block when the model has blocks or cross-node NVLink domains, else tree */
	GP_TOPO_TREE = 1,  /* topology.conf, topology/tree: SwitchName lines */
	GP_TOPO_BLOCK = 2, /* topology.conf, topology/block: BlockName lines and BlockSizes */
	GP_TOPO_YAML = 3,  /* topology.yaml (Slurm 25.05+): a block topology (cluster default)
	                    * and the switch tree when the model has one of its own */
} gp_topo_format_t;

/* The format GP_TOPO_AUTO stands for on c. */
gp_topo_format_t gp__topo_format_auto(const gp_cluster_t *c);

/*
 * The model's topology as Slurm reads it.  Tree: the switch tree (a
 * synthetic root is not written).  Block: one BlockName per block of the
 * model, or per cross-node NVLink domain when the model has no blocks (in
 * fabric order), and BlockSizes: the model's own, or the smallest domain's
 * node count followed by every switch level whose switches all hold that
 * size times the same power of two.  Loading the block output back gives
 * the same domains.  GP_EINVAL for block output of a model without
 * blocks or domains; GP_ENOMEM.
 */
int gp__emit_topology(const gp_cluster_t *c, gp_topo_format_t fmt, FILE *f, gp_error_t *err);

/* gres.conf: one line per GPU with File=/dev/nvidiaN, Cores= and Links=
 * where the layout has them, nodes of the same layout and type grouped. */
int gp__emit_gres(const gp_cluster_t *c, FILE *f, gp_error_t *err);

/*
 * resources.yaml for Slurm 25.11+: the racks' power as the hierarchical
 * resource `name` (MODE_3): a root layer of every node with count -1
 * (INFINITE), under it one layer per rack with gp__hres_rack_count() and
 * one of the nodes in no rack with -1 (a node in no layer cannot run a job
 * that asks for the resource); a single layer when there is one leaf only
 * (Slurm wants a rooted tree, and a root equal to its leaf is none).
 * GP_EINVAL (no or a bad name, no racks: err says which), GP_ENOMEM.
 */
int gp__emit_resources(const gp_cluster_t *c, const char *name, FILE *f, gp_error_t *err);

/*
 * slurm.conf's Licenses= line for every Slurm release: one cluster license
 * per rack, PREFIX_RACK (gp__lic_name) with gp__hres_rack_count(), under
 * comments that say where each count comes from.  GP_EINVAL (no or a bad
 * prefix, a rack name no license can carry, no racks: err says which).
 */
int gp__emit_licenses(const gp_cluster_t *c, const char *prefix, FILE *f, gp_error_t *err);

/* Does resources.yaml at path define the hierarchical resource `name` in
 * MODE_3 (gpuplace.conf PowerHres, power.h)?  0; GP_ENOENT (no such file),
 * GP_ECONFIG (bad YAML, no such resource, another mode: err names the
 * file, the line and what), GP_EIO, GP_ELIMIT, GP_ENOMEM.  Only what
 * gpuplace relies on is checked: slurmctld reads the file itself.
 * (conf/load_yaml.c) */
int gp__hres_file_check(const char *path, const char *name, gp_error_t *err);

#endif /* GP_SLURM_EMIT_H */
