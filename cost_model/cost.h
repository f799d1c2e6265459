/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cost.h - the communication cost model (internal, gp__ prefix).
 *
 * For a job profile (shape, parallelism, sizes, compute time) and a concrete
 * set of GPUs, predict the time of one training step and how much of it is
 * exposed communication.  Collectives use an alpha-beta model whose
 * constants come from NCCL's own tuning model and published measurements
 * (notes in cost.c beside each constant); bandwidth comes from the actual
 * placement: which ranks share an NVLink island or cross-node NVLink domain,
 * which rails they use, how much traffic must leave each switch subtree
 * versus the job's share of its uplinks (oversubscription), and the latency
 * of every fabric level crossed.
 *
 * Rank order: ranks are numbered as Slurm assigns them (block by node): the
 * placement's nodes in the order given, on each node its GPUs in increasing
 * index order.  Parallel dimensions are laid out innermost first in
 * job->order (default tp, cp, ep, dp, pp as in Megatron-LM); the EP degree
 * divides the DP degree (expert parallel groups are carved out of the data
 * parallel ones), so ep is not a separate factor of the GPU count.
 *
 * Thread safety: all functions are reentrant.  A gp_cost_scratch_t belongs
 * to one thread at a time; the cluster and the job profile are only read.
 */
#ifndef GP_COST_H
#define GP_COST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model.h"

/* Parallel dimensions, also the group kinds of a gp_cost_t. */
enum {
	GP_DIM_TP = 0,
	GP_DIM_CP = 1,
	GP_DIM_EP = 2,
	GP_DIM_DP = 3,
	GP_DIM_PP = 4,
	GP_NDIMS = 5,
};

/* Name of a dimension ("tp", ...); static string. */
const char *gp__dim_name(int dim);

/*
 * A job profile.  Zero means "not given" for every size field; derived
 * values are filled by gp__job_profile_resolve() (called by the evaluation
 * functions on a private copy, so callers may leave them at zero).
 */
typedef struct gp_job_profile {
	/* Shape */
	int32_t gpus;            /* total GPUs (0 = the placement's count) */
	int32_t nodes;           /* requested nodes (informative, 0 = any) */
	int32_t gpus_per_node;   /* requested GPUs per node (0 = any) */
	int32_t deg[GP_NDIMS];   /* tp, cp, ep, dp, pp degrees; 0 = default (1, dp = rest) */
	int8_t order[4];         /* GP_DIM_* innermost first, without EP;
	                          * all zero = default {TP, CP, DP, PP} */
	/* Size */
	double params;           /* model parameters P */
	double grad_bytes;       /* bytes per gradient / activation element (default 2) */
	double micro_batch;      /* b */
	double seq;              /* s */
	double hidden;           /* h */
	double layers;           /* l */
	double microbatches;     /* m per pipeline per step (default = pp) */
	double topk;             /* experts per token for EP volume (default 1) */
	double bytes[GP_NDIMS];  /* explicit bytes per rank per step per group;
	                          * 0 = derive from the sizes above */
	/* Compute */
	double compute_s;        /* compute time per step (no communication) */
	double flops;            /* FLOPs per step (whole job), if compute_s unknown */
	double efficiency;       /* achieved fraction of peak (default 0.4) */
	double dp_overlap;       /* fraction of DP communication overlapped with backward */
	double ckpt_bytes;       /* bytes of one checkpoint (checkpoint planning only;
	                          * 0 = params x 14 B when params is given) */
	double restart_s;        /* restart time after a failure before the
	                          * checkpoint read (checkpoint planning only;
	                          * 0 = the site's RestartSeconds) */
	bool is_default;         /* built by gp__job_profile_default() */
} gp_job_profile_t;

/* Fill *job with no hints (all zero, grad_bytes 2).  No allocation. */
void gp__job_profile_init(gp_job_profile_t *job);

/* The job's rank layout, innermost dimension first: job->order, or the
 * default (TP, CP, DP, PP) when it is all zero. */
const int8_t *gp__job_profile_order(const gp_job_profile_t *job);

/*
 * The documented default profile of a job without hints: pure data
 * parallelism over `gpus` GPUs, one gradient all-reduce per step of
 * c->site.default_grad_bytes, no compute time known (so step time is the
 * exposed communication alone and every multi-GPU job prefers compact
 * placements), no overlap.  c may be NULL (then 1e9 bytes).
 */
void gp__job_profile_default(const gp_cluster_t *c, int gpus, gp_job_profile_t *job);

/*
 * Parse a hint string "key=value,key=value" (see gpuplace(1), section
 * model, for the keys) into *job, which is first reset with
 * gp__job_profile_init().  Unknown keys, malformed or out-of-range numbers,
 * repeated keys and inconsistent degrees are errors naming the key.
 * spec is the caller's; err may be NULL.  Returns 0 or GP_EINVAL/GP_ERANGE;
 * on failure *job is left reset.
 */
int gp__job_profile_parse(const char *spec, gp_job_profile_t *job, gp_error_t *err);

/* Write the profile back as a hint string (round-trips through parse). */
int gp__job_profile_format(const gp_job_profile_t *job, char *buf, size_t len);

/*
 * Give a hinted profile the sizes its hints leave out, so a hint never
 * means zero traffic (gpuplace(1), model, "Defaults"; jobspec.c cites the
 * sources): a TP, CP, EP or PP degree above 1 without its own *_bytes
 * gets the model shape it needs, params = DefaultGradientBytes / grad_bytes
 * when not given, hidden from P = 12 l h^2 with h/l = 128 (rounded to a
 * multiple of 128), layers from the same (a multiple of pp), seq 2048,
 * mbs 1; a data-parallel-only profile without any size gets dp_bytes =
 * DefaultGradientBytes.  Values the user gave are kept.  c may be NULL
 * (then DefaultGradientBytes is 1e9).  used (may be NULL) receives what
 * was filled in, e.g. "hidden=2048 (P = 12 l h^2, h/l = 128), seq=2048";
 * "" when nothing was.  Returns how many values were filled in.  A
 * profile from gp__job_profile_default() is left as it is.
 */
int gp__job_profile_fill_defaults(const gp_cluster_t *c, gp_job_profile_t *job, char *used,
                                  size_t len);

/* A concrete placement: the job's nodes in rank order and, per node, the
 * mask of its GPUs the job uses.  The arrays are the caller's. */
typedef struct gp_placement {
	int32_t n;
	const int32_t *nodes;     /* cluster node indices */
	const uint32_t *gpu_mask; /* bit g = GPU g of that node */
} gp_placement_t;

/* Collective kinds. */
typedef enum gp_coll {
	GP_COLL_ALLREDUCE = 0,
	GP_COLL_ALLGATHER = 1,
	GP_COLL_REDUCESCATTER = 2,
	GP_COLL_ALLTOALL = 3,
	GP_COLL_SENDRECV = 4,
} gp_coll_t;

/* Algorithms (GP_ALGO_AUTO = the one NCCL's own tuning view picks for the case). */
typedef enum gp_algo {
	GP_ALGO_AUTO = 0,
	GP_ALGO_RING = 1,
	GP_ALGO_TREE = 2,
	GP_ALGO_NVLS = 3,
	GP_ALGO_HIER = 4,
	GP_ALGO_DIRECT = 5,     /* all-to-all and point-to-point */
} gp_algo_t;

const char *gp__coll_name(gp_coll_t coll);
const char *gp__algo_name(gp_algo_t algo);
/* Parse "allreduce"/"all_reduce"/..., "ring"/...; 0 or GP_EINVAL. */
int gp__coll_parse(const char *s, gp_coll_t *out);
int gp__algo_parse(const char *s, gp_algo_t *out);

/* Cost of one dimension's communication in one step. */
typedef struct gp_cost_group {
	int32_t degree;          /* group size */
	int32_t ngroups;         /* concurrent groups */
	int32_t units;           /* most NVLink units (islands/domains) one group spans */
	double bytes;            /* bytes per rank per step */
	double count;            /* collectives per step */
	double time_s;           /* communication time per step */
	double exposed_s;        /* of which on the critical path */
	double busbw_gbps;       /* achieved bus bandwidth (nccl-tests sense) */
	gp_algo_t algo;          /* algorithm the model chose */
	int32_t bottleneck;      /* GP_LIMIT_HOST, GP_LIMIT_PCIE, GP_LIMIT_NVLINK, GP_LIMIT_NIC, or >= 0 the
	                          * switch index whose uplinks limit */
	int32_t bottleneck_level;/* fabric level of those uplinks (switch level + 1), else 0 */
} gp_cost_group_t;

/* Resources a group's time can be limited by (gp_cost_group_t.bottleneck). */
enum {
	GP_LIMIT_HOST = -4,      /* a node's host path (PCIe switch uplink, root complex, host
	                          * memory) shared by its GPUs' host-staged traffic */
	GP_LIMIT_PCIE = -3,      /* GPU-to-GPU over PCIe inside a node */
	GP_LIMIT_NVLINK = -2,    /* NVLink (node island or cross-node domain) */
	GP_LIMIT_NIC = -1,       /* a node's scale-out NICs */
};

/* "host", "pcie", "nvlink", "nic", or "uplink-L<level>" into buf (at least 16 bytes). */
const char *gp__cost_limit_name(const gp_cost_group_t *g, char *buf, size_t len);

/* Result of an evaluation.  Plain data, no pointers. */
typedef struct gp_cost {
	gp_cost_group_t group[GP_NDIMS];
	double compute_s;        /* compute incl. pipeline bubble */
	double comm_s;           /* sum of group times */
	double exposed_s;        /* exposed communication */
	double step_s;           /* predicted step time */
	double overhead;         /* exposed_s / step_s */
	double ideal_step_s;     /* same job in the best possible domain (0 = not computed) */
	double slowdown;         /* step_s / ideal_step_s (1 if not computed) */
	int32_t gpus;
	int32_t nodes;
	int32_t n_leaves;        /* distinct leaf switches */
	int32_t top_level;       /* level of the lowest switch spanning the job (-1 one leaf-less node set) */
	int32_t hops;            /* links on the longest node-to-node path */
	int32_t misaligned;      /* groups whose nodes use different rails */
} gp_cost_t;

/* Per-thread working memory of the evaluation, sized for one cluster and a
 * largest job.  Created by gp__cost_scratch_new(), freed by
 * gp__cost_scratch_destroy() (NULL is a no-op). */
typedef struct gp_cost_scratch gp_cost_scratch_t;

/* max_gpus: largest job evaluated with it.  *out set to NULL first; on
 * success the caller owns it.  0, GP_EINVAL or GP_ENOMEM. */
int gp__cost_scratch_new(const gp_cluster_t *c, int32_t max_gpus, gp_cost_scratch_t **out);
void gp__cost_scratch_destroy(gp_cost_scratch_t *s);

/*
 * Contention on switch uplinks from the live state: every running job of st
 * on more than one node pushes, for a share of the time (CROSS_DUTY in
 * cost.c), its nodes' NIC rate (in proportion to the GPUs it holds there)
 * through the uplinks of each switch between its nodes and its lowest
 * common switch.  Evaluations with s after this call share those uplinks
 * with that traffic (cost.c, uplink_share()) until gp__cost_cross_clear().
 * Without it, a job shares uplinks with no other job (an idle fabric),
 * which is what gp__cost_ideal() should see.  Not thread-safe with other
 * uses of s.
 */
void gp__cost_cross_set(const gp_cluster_t *c, const gp_state_t *st, gp_cost_scratch_t *s);
void gp__cost_cross_clear(gp_cost_scratch_t *s);
/* Make s hold placements of up to max_gpus GPUs, keeping what it knows of
 * its cluster (a no-op when it already does).  0, GP_EINVAL or GP_ENOMEM
 * (s unchanged). */
int gp__cost_scratch_grow(gp_cost_scratch_t *s, int32_t max_gpus);

/*
 * Evaluate one placement.  The hot path of placement search: it does not
 * allocate and touches only the placement's nodes and their switch chains.
 * ideal_step_s (from gp__cost_ideal(), 0 = unknown) only fills
 * out->ideal_step_s and out->slowdown.  Returns 0, GP_EINVAL (profile
 * does not match the placement, or a node index / GPU mask is invalid),
 * GP_ELIMIT (more GPUs than the scratch was sized for) or GP_ENOFIT (the
 * placement spans switches that are not connected).  err may be NULL.
 */
int gp__cost_eval(const gp_cluster_t *c, const gp_job_profile_t *job,
                  const gp_placement_t *pl, gp_cost_scratch_t *s,
                  double ideal_step_s, gp_cost_t *out, gp_error_t *err);

/*
 * Step time of the same job in the best possible domain of this cluster
 * (ignoring what is allocated): the job packed onto whole nodes of the
 * GPU type of `like` (a node index; -1 = the first node with GPUs), placed
 * both in the first cross-node NVLink domain large enough and in the lowest
 * switch subtree with enough such nodes (or the first such nodes when there
 * is no topology); the faster of the two counts.  job->gpus must be set.
 * Uses s for its placement.  *ideal_step_s set on success; 0, GP_EINVAL,
 * GP_ENOFIT (not enough such nodes) or an error of gp__cost_eval().
 */
int gp__cost_ideal(const gp_cluster_t *c, const gp_job_profile_t *job, int32_t like,
                   gp_cost_scratch_t *s, double *ideal_step_s, gp_error_t *err);

/* A single collective, as `gpuplace model` prints it. */
typedef struct gp_coll_result {
	double time_s;
	double algbw_gbps;
	double busbw_gbps;
	gp_algo_t algo;          /* algorithm used */
	int32_t units;           /* NVLink units spanned */
} gp_coll_result_t;

/*
 * Predict one collective of `bytes` (nccl-tests size: total buffer for
 * all-reduce/all-gather/reduce-scatter/all-to-all, message for send/recv)
 * among all the placement's GPUs in rank order.  algo forces an algorithm
 * (GP_EINVAL if it does not apply to the case).  0 or a gp_err code.
 */
int gp__cost_collective(const gp_cluster_t *c, const gp_placement_t *pl, gp_coll_t coll,
                        gp_algo_t algo, double bytes, gp_cost_scratch_t *s,
                        gp_coll_result_t *out, gp_error_t *err);

/* The inter-node transport as the model uses it: FabricLevel=0 keys of
 * gpuplace.conf where given, else the transport's defaults (cost.c). */
typedef struct gp_net_consts {
	int transport;          /* gp_transport_t */
	bool rdma;              /* LL/LL128 allowed across nodes */
	double step_us;         /* cost of one inter-node step beyond NCCL's NET latency */
	double eff;             /* reached fraction of the NIC line rate */
	double fill_us;         /* Simple-protocol pipeline fill between nodes, full depth */
	double fill_level_us;   /* fill added per doubling of the node count */
	double fill_bytes;      /* message size at half the fill (the transport's) */
	double floor_us;        /* the transport class's own step floor (cost.c), not a
	                         * gpuplace.conf key: set by gp__cost_net() */
	double floor_simple_us; /* added to floor_us for the Simple protocol (likewise) */
} gp_net_consts_t;

void gp__cost_net(const gp_cluster_t *c, gp_net_consts_t *out);
/* "ib" "roce" "tcp" "efa"; parse: 0 or GP_EINVAL. */
const char *gp__transport_name(int t);
int gp__transport_parse(const char *s, int *out);

/* nccl-tests bus bandwidth factor of a collective on n ranks. */
double gp__busbw_factor(gp_coll_t coll, int n);

/* Print a breakdown as text or one JSON object (with a newline).  job may
 * be NULL.  Return 0 or GP_EIO. */
int gp__cost_print_text(const gp_cost_t *cost, const gp_job_profile_t *job, FILE *f);
int gp__cost_print_json(const gp_cost_t *cost, const gp_job_profile_t *job, FILE *f);

/* ---- in-memory clusters of built-in shapes (gpuplace model, tests) ---- */

typedef struct gp_cost_shape {
	char gpu[GP_NAME_MAX];   /* built-in GPU: h100 h200 h800 a100 b200 gb200 pcie */
	int32_t nodes;
	int32_t gpus_per_node;   /* default 8 */
	int32_t rails;           /* NICs per node, default gpus_per_node */
	double nic_gbps;         /* per NIC line rate, default 50 (NDR 400 Gb/s) */
	int32_t nodes_per_leaf;  /* 0 = all nodes under one leaf */
	int32_t leaves_per_spine;/* 0 = all leaves under one spine (adds a core above when smaller) */
	double oversub[GP_MAX_LEVELS]; /* per fabric level (index >= 1), 0 = 1.0 */
	double latency_us[GP_MAX_LEVELS]; /* per fabric level, 0 = default */
	int32_t nvl_nodes;       /* nodes per cross-node NVLink domain (0 = none) */
	int32_t islands;         /* NVLink islands per node (0/1 = one; 2 = two halves) */
	int32_t transport;       /* gp_transport_t of the NICs (default ib) */
	gp_net_consts_t net;     /* step_us, eff, fill_us overrides (0 = default) */
} gp_cost_shape_t;

void gp__cost_shape_defaults(gp_cost_shape_t *sh);

/* Build the shape as a cluster (nodes nNNNN, leaves leafNNN, spines
 * spineNNN, root core000).  *out NULL first; caller frees with
 * gp_cluster_destroy().  0, GP_EINVAL (bad shape, named in err), GP_ENOMEM. */
int gp__cost_shape_build(const gp_cost_shape_t *sh, gp_cluster_t **out, gp_error_t *err);

/* Built-in GPU profile by name (case-insensitive); false if unknown. */
bool gp__cost_gpu_builtin(const char *name, gp_gpu_profile_t *out);

#endif /* GP_COST_H */
