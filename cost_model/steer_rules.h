/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * steer_rules.h - what job_submit/gpuplace decides beyond one submission
 * that needs no Slurm type, shared by the plugin and the simulator's
 * plugin-faithful mode (internal): the power its own recent decisions
 * will draw, Slurm's wait-for-switch request, and the steering of pending
 * jobs.  Pure functions over the model; no RPC, no lock, no Slurm
 * allocator.
 */
#ifndef GP_STEER_RULES_H
#define GP_STEER_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decide.h"
#include "model.h"
#include "policy.h"

/*
 * Subtract from racks[] (c->nracks entries, as gp__power_view_fill filled
 * them) the power a decided job not yet in Slurm's counts will draw: on
 * nodes[i] the GPUs of mask[i], each at its profile's TDP above idle, or at
 * cap_w above idle when cap_w > 0 (the cap the decision planned).  This is
 * what the engine adds for a job (decide.c, evaluate), so a burst of
 * decisions made between two readings of the cluster sees the headroom the
 * earlier ones took.  A headroom never goes below 0; an infinite one
 * (no limit known) stays infinite.
 */
void gp_ledger_power_subtract(const gp_cluster_t *c, gp_rack_view_t *racks,
                              const int32_t *nodes, const uint32_t *mask, int32_t n,
                              double cap_w);

/*
 * The same power as a sum per rack, for a ledger kept indexed: adds to
 * draw[rack] (c->nracks entries, caller-owned, 0 where nothing is booked)
 * the watts above idle the GPUs of mask[i] on nodes[i] will draw (as
 * gp_ledger_power_subtract counts them), appends to touched[] (room for
 * c->nracks; NULL = not kept) each rack whose draw was 0 before, and
 * returns the new count of touched racks.
 */
int32_t gp_ledger_power_draw(const gp_cluster_t *c, double *draw, const int32_t *nodes,
                             const uint32_t *mask, int32_t n, double cap_w, int32_t *touched,
                             int32_t ntouched);

/*
 * Subtract the sums gp_ledger_power_draw() kept from racks[] in
 * O(racks touched): a finite headroom goes down by the rack's draw, never
 * below 0; an infinite one stays.  Equal to gp_ledger_power_subtract() over
 * the same entries up to rounding (a sum subtracted once instead of each
 * term in turn).
 */
void gp_ledger_power_apply(gp_rack_view_t *racks, const double *draw, const int32_t *touched,
                           int32_t ntouched);

/* ---- Slurm's own wait-for-switch ------------------------------------------- */

/*
 * For a decision that waits for a compact set (CONSTRAIN, d->waited):
 * Slurm's --switches=count@max-time, which topology/tree honours itself
 * (req_switch, wait4switch): count = the leaf switches of the set waited
 * for, max-time = the longest wait after which waiting still pays by the
 * policy's wait_gain (the compact run then ends no later than
 * (1 - wait_gain) x the spread run started now), at most the policy's
 * max_wait.  After that time Slurm may spread the job, as starting it now
 * would have.  1 with *count and *max_s, 0 when not applicable (not
 * waiting, or the wait that pays is shorter than the predicted one).
 */
int gp_switch_request(const gp_decision_t *d, const gp_policy_t *p, uint32_t *count,
                      uint32_t *max_s);

/* ---- steering pending jobs ------------------------------------------------- */

/* "ref N" that gpuplace wrote into an admin comment; 0 = none. */
uint64_t gp_comment_ref(const char *comment);

/* A pending job gpuplace placed, as the steering pass sees it. */
typedef struct gp_steer_cand {
	uint32_t index;         /* in the job array */
	uint32_t job_id;
	uint64_t ref;           /* the decision reference of its comment */
	uint32_t priority;
	int64_t submit_time;
	bool pinned;            /* the comment says PIN (else CONSTRAIN) */
} gp_steer_cand_t;

/* What the steering pass keeps of one pending job it placed (the plugin
 * beside the user's original request, the simulator per job). */
typedef struct gp_steer_job {
	bool pinned;            /* the job is PINned now (else CONSTRAINed) */
	bool every_refresh;     /* waits through --switches: re-decided at every
	                         * refresh, so it is PINned the moment a compact
	                         * set frees rather than at Slurm's next backfill
	                         * pass */
	int64_t decided;        /* when it was decided (submission) */
	bool moved;             /* steering has moved it */
	int64_t updated;        /* its last move (when moved) */
	int64_t checked;        /* CONSTRAIN: last re-decision (first: its decision) */
	double wait_s;          /* CONSTRAINed to wait: the predicted wait, else 0 */
} gp_steer_job_t;

/* Set *j for a job decided at now: pinned or not, the predicted wait of a
 * decision that waits (0 otherwise), whether it waits through --switches. */
void gp_steer_job_init(gp_steer_job_t *j, bool pinned, int64_t now, double wait_s,
                       bool every_refresh);

/* Sort c[0..n-1] in Slurm's priority order: highest priority first; ties:
 * earlier submission, then lower job id (the order the steering pass
 * looks at them). */
void gp_steer_sort(gp_steer_cand_t *c, int n);

/* May one pass re-decide another job?  At most policy.steer_max updates
 * and 4 x steer_max re-decisions per refresh (false when steer_max is 0:
 * steering off). */
bool gp_steer_budget(const gp_policy_t *p, int updates, int evaluations);

/*
 * Is job j due for a look at this refresh?  Not when it was updated less
 * than policy.steer_interval_s ago, nor, CONSTRAINed and not waiting
 * through --switches, when it was re-decided less than an interval ago.
 */
bool gp_steer_due(const gp_steer_job_t *j, const gp_policy_t *p, int64_t now);

/* A node of a pinned job cannot give it its `gpus' GPUs now: it is down,
 * drained or reserved (flags), or fewer than gpus of full (its GPUs) are
 * free of alloc. */
bool gp_steer_node_taken(uint32_t flags, uint32_t full, uint32_t alloc, int32_t gpus);

/*
 * Should job j be re-decided, and with which policy?  taken: for a PINned
 * job, its set is no longer free for it (gp_steer_node_taken on one of its
 * nodes).  PINned and not taken: 0 (Slurm starts it there as soon as it
 * gets to it).  Otherwise 1 with *out = p, except that a CONSTRAINed job
 * that has waited longer than its predicted wait re-decides with what is
 * left of its wait budget (max_wait_s less the time since its decision,
 * at least 0: spent, it takes what is free), so the engine's wait rule
 * decides whether waiting on still pays; why (len bytes) says
 * which situation it is, for the job's comment.  A CONSTRAINed job's
 * checked time becomes now.
 */
int gp_steer_redecide(gp_steer_job_t *j, const gp_policy_t *p, int64_t now, bool taken,
                      gp_policy_t *out, char *why, size_t len);

/*
 * Nodes Slurm's backfill has planned for a pending job (its SchedNodeList,
 * slurm_job_info_t.sched_nodes, set by the backfill scheduler for a job it
 * plans to start later on them), with the job's place in Slurm's priority
 * order.
 */
typedef struct gp_steer_plan {
	uint32_t job_id;
	uint32_t priority;
	int64_t submit_time;
	int64_t start_time;     /* the planned start (0 = unknown) */
	const int32_t *nodes;   /* node indices of the model */
	int32_t nnodes;
} gp_steer_plan_t;

/*
 * Keep a re-decision of candidate k off the nodes planned for jobs ahead
 * of it in Slurm's priority order (gp_steer_sort's order; its own plan and
 * plans of jobs behind it do not count): each such node gets
 * GP_NODE_RESERVED in node_flags (nnodes entries), so the engine places
 * nothing there and a PINned job whose set holds one is taken
 * (gp_steer_node_taken).  A job steered onto them could not start there
 * before the job they are planned for, which Slurm starts first.  end:
 * when k, started now, would reach its time limit (0 = unknown); a plan
 * that starts at or after it does not hold its nodes, as Slurm's backfill
 * starts a job on planned nodes that it ends before the planned start.
 * Returns how many nodes it marked.
 */
int32_t gp_steer_hold_planned(const gp_steer_cand_t *k, int64_t end, const gp_steer_plan_t *plans,
                              int32_t nplans, uint32_t *node_flags, int32_t nnodes);

/* The NVLink blocks (topology/block sites) or else the leaf switches
 * nodes[0..n-1] span, node by node: a node in no block (the tree
 * partition's of a two-topology topology.yaml) counts its leaf; 0 when
 * they have neither. */
int32_t gp_steer_domains(const gp_cluster_t *c, const int32_t *nodes, int32_t n);

/*
 * Should job k be left where Slurm has planned it (own: its own plan, NULL
 * = none) rather than moved to set sc?  Yes when Slurm starts it there
 * within one steering interval of now (its planned start, or it can start
 * now) and the plan spans no more NVLink blocks or leaves than sc: the
 * move gains no compactness and at most one interval of wait, and it
 * drops the place Slurm's plan keeps for it.
 */
bool gp_steer_plan_keeps(const gp_cluster_t *c, const gp_policy_t *p,
                         const gp_steer_plan_t *own, const gp_scored_t *sc, int64_t now);

/* Does re-decision d move the job: a PIN on a set free now (not a future
 * one)?  Never wider than the request it was made from. */
bool gp_steer_moves(const gp_decision_t *d);

/* Job j was moved (PINned) at now: no second move within the interval. */
void gp_steer_moved(gp_steer_job_t *j, int64_t now);

#endif /* GP_STEER_RULES_H */
