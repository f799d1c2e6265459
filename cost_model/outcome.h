/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outcome.h - the step after a decision (internal, steer layer): what
 * Slurm is told for a job, from the engine's decision and the facts of
 * Slurm's side (its topology plugin, the job's own options, what the
 * plugin has not seen started yet).  One pure function, called by
 * job_submit/gpuplace at submission and by the simulator's
 * plugin-faithful mode, so that the simulator follows the plugin's rules
 * rather than a copy of them.  No Slurm type: the plugin turns the action
 * into job_desc_msg_t fields (plugin/apply.c), the simulator into its
 * record of the job (sim/sim.c).
 */
#ifndef GP_OUTCOME_H
#define GP_OUTCOME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decide.h"
#include "model.h"
#include "policy.h"
#include "request.h"

/* Slurm's topology plugin (slurm.conf TopologyPlugin). */
typedef enum gp_slurm_topo {
	GP_SLURM_TOPO_FLAT = 0,         /* none (topology/flat or default) */
	GP_SLURM_TOPO_TREE,             /* topology/tree: --switches is honoured */
	GP_SLURM_TOPO_BLOCK,            /* topology/block (23.11+) */
} gp_slurm_topo_t;

/* The topology Slurm places request r's partition by, given site, the
 * one slurmctld's TopologyPlugin names (or the model's own).  Where
 * topology.yaml binds partitions to different topologies (Slurm 25.05+,
 * slurm.conf(5) "Topology"; some partition of c is gp_partition_t
 * no_blocks), a partition placed by the tree topology is topology/tree
 * (--switches is honoured) and one held by the block topology's rules is
 * topology/block, whatever TopologyPlugin says (slurm.conf(5): it is
 * ignored when topology.yaml exists); elsewhere site. */
gp_slurm_topo_t gp_outcome_topology(const gp_cluster_t *c, const gp_request_t *r,
                                    gp_slurm_topo_t site);

/* A decision and the Slurm-side facts it is turned into an action with. */
typedef struct gp_outcome_in {
	const gp_cluster_t *c;    /* the model the decision's indices refer to */
	const gp_decision_t *d;   /* the engine's decision */
	const gp_policy_t *policy;
	const gp_request_t *r;    /* the request it was made for (node counts,
	                           * --gpus-per-node) */
	/* Slurm's side */
	gp_slurm_topo_t topology;
	bool one_weight;          /* every node has the same Weight (tiers make
	                           * cons_tres miss a switch count) */
	uint32_t max_switch_wait; /* SchedulerParameters max_switch_wait, s */
	bool user_switches;       /* the job gave --switches of its own */
	int64_t state_age_s;      /* age of the cluster state decided on */
	int32_t unconfirmed;      /* GPU jobs let through whose nodes are a guess
	                           * until the next reading of the state */
	uint32_t segment;         /* --segment nodes, 0 = none */
	bool segment_multi_ok;    /* this Slurm takes required nodes with several
	                           * segments (25.11 and later) */
	bool check_block;         /* topology/block's rule on required nodes is
	                           * checked against c's blocks (true on a
	                           * cluster without blocks too) */
	int64_t tasks;            /* --ntasks, 0 = not given */
	int32_t tasks_per_node;   /* --ntasks-per-node, 0 = not given */
	bool per_node_ok;         /* the job's per-job GPU request can be given per
	                           * node (GPUs of one type only) */
	const char *gpu_request;  /* that request as the job wrote it (messages) */
	const char *gpu_type;     /* the GPU type asked for, "" or NULL = none */
	int64_t mixed_gpus;       /* GPUs of that type on nodes of mixed types,
	                           * which the decision left out */
	bool ledger_full;         /* the PIN could not be booked: the ledger of
	                           * ledger_max decisions is full */
	int32_t ledger_max;
	bool one_rack;            /* PowerLicenses (gpuplace.conf(5)): a job not
	                           * PINned is kept to one rack's license, so a
	                           * CONSTRAIN whose set spans racks or whose GPUs
	                           * pass its rack's count is PINned instead */
	/* Do Slurm's nodes carry domain feature (gpsw_..., gpnvl_...) on
	 * exactly that domain's nodes?  slurmctld refuses a job whose
	 * constraint names a feature no node has ("Invalid feature
	 * specification"), so a CONSTRAIN keeps only the features this says
	 * are there.  NULL: every domain's feature is there (a site set up by
	 * `gpuplace conf --what nodes`, as the simulator models it). */
	bool (*feature_ok)(const void *ctx, const char *feature);
	const void *feature_ctx;
} gp_outcome_in_t;

/* What Slurm is told. */
typedef enum gp_action {
	GP_ACT_PASS = 0,          /* the job unchanged (why says why) */
	GP_ACT_PIN,               /* required nodes = set, min = max nodes */
	GP_ACT_CONSTRAIN,         /* features AND-ed in, or --switches */
	GP_ACT_REJECT,            /* refused with the decision's reason */
} gp_action_t;

typedef struct gp_outcome {
	gp_action_t action;
	gp_decision_kind_t kind;  /* the decision kind the action reports (PIN,
	                           * CONSTRAIN, REJECT; PASS: the engine's) */
	const gp_scored_t *set;   /* PIN: the set (the decision's first
	                           * candidate); else that candidate or NULL */
	int32_t per_node;         /* PIN: GPUs per node to give as tres_per_node
	                           * in place of the per-job count, 0 = keep */
	char features[1040];      /* CONSTRAIN: the constraint to add, "" = none */
	uint32_t switches;        /* CONSTRAIN by --switches=switches@switch_wait,
	                           * 0 = not */
	uint32_t switch_wait;
	uint32_t switch_pays;     /* > switch_wait: the wait that would pay, cut
	                           * to Slurm's max_switch_wait */
	uint32_t segment;         /* CONSTRAIN: --segment=<nodes> to give the job
	                           * (the decision's, topology/block only; the
	                           * plugin sets it at submission), 0 = none */
	bool holds;               /* CONSTRAIN waiting for a set not free now */
	char unpinned[160];       /* why a PIN became CONSTRAIN, "" = it did not */
	char nofeat[200];         /* CONSTRAIN: the domain features left out
	                           * because Slurm's nodes lack them (feature_ok)
	                           * and what that means, "" = none */
	char why[512];            /* PASS: why the job is left to Slurm; a PIN
	                           * made for one_rack: why ("" otherwise) */
} gp_outcome_t;

/*
 * Can Slurm be held to exactly set's nodes (required nodes, min = max
 * nodes, GPUs per node)?  1 with *per_node (GPUs per node to write, 0 =
 * keep the job's request), 0 with why (len bytes) saying why not: the
 * state is older than GP_OUTCOME_PIN_FRESH_S, a passed job's nodes are a
 * guess, --segment or topology/block would refuse the nodes, the node or
 * task counts, GPUs per node Slurm cannot be told.
 */
int gp_outcome_pin_exact(const gp_outcome_in_t *in, const gp_scored_t *set, int32_t *per_node,
                         char *why, size_t len);

/* May any set be PINned with these facts (state age, unconfirmed passes)?
 * The part of gp_outcome_pin_exact() that does not depend on the set. */
bool gp_outcome_may_pin(const gp_outcome_in_t *in, char *why, size_t len);

/* The constraint keeping a job in set's domain, "" when the set spans the
 * whole cluster (no domain to keep it in). */
void gp_outcome_domain(const gp_cluster_t *c, const gp_scored_t *set, char *buf, size_t len);

/* The action for in->d with in's facts.  Pure: no allocation, no state.
 * With in->one_rack, a CONSTRAIN that no one rack's license can hold (its
 * set spans racks, or its GPUs at the rack's dearest GPU's watts over idle
 * pass the rack's count, gp__hres_rack_count) is a PIN of the decision's
 * set where Slurm can be told that set (gp_outcome_pin_exact() less the
 * state's age and the unconfirmed passes) and the ledger is not full. */
void gp_outcome(const gp_outcome_in_t *in, gp_outcome_t *out);

/* A PIN names nodes that were free when the state was read; if they were
 * taken since, Slurm holds the job for them.  The plugin reads the state
 * every 2 s (GP_REFRESH_S, plugin/job_submit_gpuplace.h) and right after
 * each decision, so on a controller that keeps up it is at most ~2 s old;
 * older than 5 s means the readings fall behind (a busy controller), and
 * then the job is CONSTRAINed to the set's domain, where Slurm may take
 * any free set, instead of PINned. */
#define GP_OUTCOME_PIN_FRESH_S 5

#endif /* GP_OUTCOME_H */
