/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decide.h - the placement decision (internal): candidates from the search,
 * scored by the cost model, the policy and the racks' power headroom, then
 * one of PIN, CONSTRAIN (possibly as advice to wait for a better set) or
 * REJECT, with the reasons and the checkpoint plan.
 *
 * Score of a feasible candidate (lower is better):
 *     w_step  * (step_s / ideal_step_s - 1)
 *   + w_frag  * frag / 100          (frag: candidates.h; one unit = 1 % of step time)
 *   + w_power * power term          (0 while every rack the set touches stays at or
 *                                    below the policy's power_knee of min(cap, cooling)
 *                                    with the job; quadratic above, decide.c power_term)
 * Hard limits make a candidate infeasible: a rack's headroom exceeded (unless
 * the policy allows power caps and a cap at or above the GPU's lowest
 * settable cap fits), or the communication overhead above max_overhead.
 *
 * Power is a constraint of the search, never dropped: each rack may give
 * the job only the GPUs its headroom powers at TDP (and, when the policy
 * may cap GPUs, a second search at their lowest cap competes by score).
 * When no set is acceptable now, the cluster is searched as it will be
 * when running jobs end, with the GPUs and the power they free (CONSTRAIN,
 * with the predicted wait); when not even the idle cluster with every rack
 * idle has one, the job is rejected with the reason.  A request larger
 * than its partition is rejected before anything is sized for it.
 *
 * Wait or spread: when the best set free now is slower than the ideal by
 * more than wait_gain and running jobs end within max_wait_s, the search is
 * repeated on the cluster as it will be when they have ended; the job waits
 * (CONSTRAIN to that set's domain) only if its predicted completion
 * (wait + run time x slowdown) beats starting now by more than wait_gain.
 * The run time is the request's time limit, else GP_DECIDE_DEFAULT_RUN_S.
 *
 * Hints that leave sizes out get documented defaults
 * (gp__job_profile_fill_defaults: a TP/CP/EP/PP degree gets a model shape,
 * no size at all the DefaultGradientBytes all-reduce); d->defaults says
 * which.
 *
 * Thread safety: a gp_engine_t serves one decision at a time.
 */
#ifndef GP_DECIDE_H
#define GP_DECIDE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "candidates.h"
#include "ckpt.h"
#include "cost.h"
#include "model.h"
#include "policy.h"
#include "request.h"

/* Run time assumed for wait-or-spread when the job gives no time limit. */
#define GP_DECIDE_DEFAULT_RUN_S 3600.0
/* Bytes of checkpoint per parameter when the job gives params but no
 * checkpoint size: mixed-precision Adam state without gradients, ~14 B/param
 * (ZeRO, Rajbhandari et al. SC'20, sec. 3; cross-checked by Megatron's 1T
 * checkpoint of 13.8 TB = 13.7 B/param; notes/calibration.md 3). */
#define GP_DECIDE_CKPT_BYTES_PER_PARAM 14.0

typedef enum gp_decision_kind {
	GP_DECIDE_PIN = 0,        /* start on these nodes now */
	GP_DECIDE_CONSTRAIN = 1,  /* start when one of these domains can hold it */
	GP_DECIDE_REJECT = 2,     /* can never satisfy the policy on this cluster */
} gp_decision_kind_t;

/* Racks' power as the caller sees it for this decision. */
typedef struct gp_rack_view {
	double headroom_w;        /* watts the rack can still take under its
	                           * binding limit less the policy margin;
	                           * INFINITY = no limit known */
	bool cooling_binds;       /* the binding limit is cooling, not power */
	double raw_w;             /* headroom before it is floored at 0 (negative:
	                           * over the limit), what gp__power_view_apply()
	                           * adjusts */
} gp_rack_view_t;

typedef struct gp_power_view {
	const gp_rack_view_t *racks;  /* c->nracks entries; NULL = no power limits */
	/* relative speed (0..1] of a GPU of profile p capped at cap_w;
	 * NULL = speed proportional to cap_w / tdp_w (an assumption) */
	double (*cap_speed)(const gp_gpu_profile_t *p, double cap_w);
	/* Slurm holds every GPU job to the racks' budgets (PowerLicenses or
	 * PowerHres in force): the racks' limits bind gpuplace's sets at any
	 * use.  false: only while the racks together are below the policy's
	 * knee (gp__decide, "racks past the knee") */
	bool held;
} gp_power_view_t;

struct gp_power_snapshot;

/*
 * Fill racks[0 .. c->nracks-1] for a decision at time now: each rack's
 * headroom is the lower of its power cap and cooling capacity less the
 * policy's margin, less the draw the power model uses (a fresh measurement
 * from snap or the state, else the estimate from s, never below a stale
 * measurement; power/power.h).  snap and s may be NULL.
 */
void gp__power_view_fill(const gp_cluster_t *c, const gp_state_t *s,
                         const struct gp_power_snapshot *snap, const gp_policy_t *p,
                         double now, gp_rack_view_t *racks);

/*
 * Keep a view filled by gp__power_view_fill() current without refilling
 * it: a job of load `load` (fraction of each GPU's dynamic range; <= 0 or
 * > 1 means 1) that started (sign +1) or ended (sign -1) on nodes[i] /
 * masks[i] (n entries) changes the racks it touches by its GPUs' draw above
 * idle, the same estimate the fill uses, in O(n) instead of a pass over
 * every node and job.  Exact while a rack's draw is the estimate; a rack
 * whose fresh telemetry sample changed is refilled with the fill (the
 * caller knows which).  Safe to call with a NULL view (no-op).
 */
void gp__power_view_apply(const gp_cluster_t *c, gp_rack_view_t *racks, const int32_t *nodes,
                          const uint32_t *masks, int32_t n, double load, int sign);

/* The power model's cap -> speed curve, for gp_power_view_t.cap_speed. */
double gp__power_view_cap_speed(const gp_gpu_profile_t *prof, double cap_w);

/* One scored candidate, owned by the decision. */
typedef struct gp_scored {
	int32_t nnodes, ngpus;
	int32_t *nodes;           /* malloc'd */
	uint32_t *gpu_mask;       /* malloc'd, per node */
	gp_domain_kind_t kind;
	int32_t domain;           /* nvl or switch index, -1 cluster */
	int32_t nleaves, nracks, frag, hops;
	gp_cost_t cost;           /* step_s already includes a power cap's slowdown */
	double power_use;         /* largest share of a rack's headroom taken */
	double rack_use;          /* highest projected use (fraction of min(cap,
	                           * cooling)) of a rack the set touches, job
	                           * included; what the score's power term weighs */
	double cap_w;             /* GPU power cap needed, 0 = none */
	double cap_speed;         /* speed at that cap, 1 = uncapped */
	double s_step, s_frag, s_power, score;
	bool feasible;
	char why_not[160];        /* why infeasible */
	bool future;              /* found on the cluster as it will be after waiting */
} gp_scored_t;

typedef struct gp_decision {
	gp_decision_kind_t kind;
	char reason[768];             /* for the user: why, and what to change */
	/* the racks' limits left out of this decision (gp__decide, past the
	 * knee) and why, also at the end of reason; "" when they were not */
	char power_note[200];
	char defaults[320];           /* sizes the job's hints left out and the
	                               * documented defaults used for them
	                               * (gp__job_profile_fill_defaults), "" none */
	gp_scored_t *cands;           /* best first; [0] is the choice (PIN) or the
	                               * best domain (CONSTRAIN) */
	int32_t ncands;
	char features[1024];          /* CONSTRAIN: matching-OR alternatives
	                               * "[f1|f2|...]", "" = no domain constraint */
	int32_t segment_nodes;        /* CONSTRAIN: the --segment gpuplace gives the
	                               * job (topology/block), 0 = none */
	bool waited;                  /* CONSTRAIN chosen because waiting is faster */
	double now_finish_s;          /* predicted completion if started now (0 = none) */
	double wait_s;                /* predicted wait for the better set */
	double wait_finish_s;         /* predicted completion after waiting */
	double ideal_step_s;
	double ckpt_bytes;            /* 0 = no checkpoint plan */
	gp_ckpt_plan_t ckpt;
} gp_decision_t;

typedef struct gp_engine gp_engine_t;

/* An engine for cluster c (which must outlive it).  *out NULL on failure. */
int gp__engine_create(const gp_cluster_t *c, gp_engine_t **out, gp_error_t *err);
void gp__engine_destroy(gp_engine_t *e);

/*
 * Decide for request r with profile job (NULL = the default profile for the
 * request's GPUs) on state s (NULL = everything free) under policy p and
 * power view pv (NULL = no power limits).  now is the snapshot time used
 * for running jobs' end times.  bookings: other jobs' checkpoint schedules
 * (may be NULL).  On success *d is filled (free with gp__decision_clear).
 * GP_EINVAL for a malformed request or profile (err says which); a job that
 * cannot fit is not an error but a REJECT decision.
 */
int gp__decide(gp_engine_t *e, const gp_state_t *s, const gp_request_t *r,
               const gp_job_profile_t *job, const gp_policy_t *p,
               const gp_power_view_t *pv, int64_t now,
               const gp_ckpt_booking_t *bookings, int32_t nbookings,
               gp_decision_t *d, gp_error_t *err);

/*
 * The engine's score of one given set (nodes[i], GPUs mask[i]; n nodes) in
 * state s (NULL = everything free) for job (resolved: gpus set), policy p
 * and power view pv (NULL = no limits), against ideal (gp__cost_ideal()):
 * out gets the breakdown, score, feasibility and why_not exactly as a
 * candidate of gp__decide() would (out->nodes / gpu_mask stay NULL).  For
 * rescoring a set a user names and for exhaustive checks of the search.
 * GP_EINVAL for an invalid set or profile.
 */
int gp__decide_rescore(gp_engine_t *e, const gp_state_t *s, const gp_job_profile_t *job,
                       const gp_policy_t *p, const gp_power_view_t *pv, double ideal,
                       const int32_t *nodes, const uint32_t *mask, int32_t n, gp_scored_t *out,
                       gp_error_t *err);

/* Free what d owns; d itself is the caller's. */
void gp__decision_clear(gp_decision_t *d);

const char *gp__decision_kind_name(gp_decision_kind_t k);

/* The decision and every candidate's breakdown, as text or one JSON object. */
int gp__decision_print_text(const gp_cluster_t *c, const gp_decision_t *d, FILE *f);
int gp__decision_print_json(const gp_cluster_t *c, const gp_decision_t *d, FILE *f);

/* Ranged host list of a candidate's nodes (malloc'd, caller frees). */
char *gp__scored_nodelist(const gp_cluster_t *c, const gp_scored_t *sc);

#endif /* GP_DECIDE_H */
