/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ckpt.h - checkpoint planning for one job on one placement (internal).
 *
 * Given the job's checkpoint size, its nodes, the cluster's storage targets
 * and the checkpoints other jobs already planned on those targets, choose:
 *   - the target with the least expected waste (checkpoint writes, lost work
 *     and restarts, under exponential failures at the job's failure rate),
 *   - the interval (Daly's higher-order optimum, rounded to a harmonic
 *     period GP_CKPT_BASE_S x 2^k so that windows of jobs sharing a target
 *     can be kept apart: of the three periods around the optimum, the one
 *     with the least expected waste); with a time limit only periods
 *     that end before it compete, with planning no periodic checkpoint
 *     at all, each by the expected waste of that finite run,
 *   - an offset that keeps this job's write windows disjoint from the
 *     windows already booked on the same target,
 *   - a buddy node for in-memory replicas in another rack (power domain),
 *     as few switch hops away as possible,
 *   - a lead time for sbatch --signal so one checkpoint fits before the
 *     time limit.
 *
 * Thread safety: all functions are pure functions of their arguments.
 */
#ifndef GP_CKPT_H
#define GP_CKPT_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"

/* Harmonic base period: every planned interval is GP_CKPT_BASE_S * 2^k so
 * that any two planned intervals divide one another. */
#define GP_CKPT_BASE_S 60.0

/* A checkpoint schedule already planned on a storage target. */
typedef struct gp_ckpt_booking {
	uint32_t job_id;
	int32_t storage;        /* index into c->storage */
	int32_t scope_index;    /* rack index for rack-scope targets, else -1 */
	double interval_s;      /* GP_CKPT_BASE_S * 2^k */
	double offset_s;        /* first write starts at offset_s (mod interval) */
	double write_s;         /* length of one write window */
} gp_ckpt_booking_t;

/* What is known of the job. */
typedef struct gp_ckpt_job {
	uint32_t job_id;
	double ckpt_bytes;      /* bytes of one checkpoint (whole job) */
	double restart_s;       /* time to restart after a failure, excluding the
	                         * read of the checkpoint (added per target);
	                         * < 0 = the site's RestartSeconds */
	double run_s;           /* the job's time limit, s: no checkpoint is planned
	                         * that the run cannot reach and the waste is that
	                         * of this run; <= 0 = unlimited (steady state) */
	const int32_t *nodes;   /* the job's node indices (borrowed) */
	int32_t nnodes;
} gp_ckpt_job_t;

/* The plan for one job. */
typedef struct gp_ckpt_plan {
	int32_t storage;        /* chosen target, -1 = no reachable target */
	int32_t scope_index;    /* rack of a rack-scope target, else -1 */
	double mttf_s;          /* job mean time to failure M */
	double write_s;         /* checkpoint write time delta on the chosen target */
	double restart_s;       /* restart time R (including the read) */
	double daly_s;          /* Daly's optimum interval before rounding */
	double interval_s;      /* planned interval (harmonic); 0 = no periodic
	                         * checkpoint (the time limit comes first) */
	int32_t count;          /* checkpoints the run reaches before its time
	                         * limit (0 without a limit) */
	double offset_s;        /* planned offset inside the interval */
	bool overlap;           /* no disjoint offset existed: least overlap chosen */
	double waste;           /* expected fraction of wall time lost (of the
	                         * run up to its time limit when it has one) */
	double gbps;            /* write bandwidth the job gets on the target */
	int32_t buddy;          /* buddy node for the job's first node, -1 none */
	int32_t buddy_hops;     /* switch hops writer -> buddy (2 per level up) */
	double signal_lead_s;   /* sbatch --signal lead time, s */
} gp_ckpt_plan_t;

/* Daly's higher-order optimum checkpoint interval (compute time between
 * checkpoints) for write time delta and MTTF M, both in seconds. */
double gp__ckpt_daly(double delta_s, double mttf_s);

/* Expected fraction of wall-clock time lost with interval tau, write time
 * delta, restart time R and MTTF M (Daly 2006, complete exponential model). */
double gp__ckpt_waste(double tau_s, double delta_s, double restart_s, double mttf_s);

/* Expected fraction of a run's wall time lost when its failure-free length
 * is run_s: periodic checkpoints every period_s (tau + delta; <= 0 = none)
 * that end strictly before run_s, restart R, MTTF M (Daly 2006 eq. 13 per
 * segment, the last segment the work left after the last checkpoint). */
double gp__ckpt_run_waste(double run_s, double period_s, double delta_s, double restart_s,
                          double mttf_s, int32_t *count);

/* MTTF of a job on n nodes at the site's per-node failure rate. */
double gp__ckpt_mttf(const gp_cluster_t *c, int32_t nnodes);

/* Switch hops between two nodes (0 same node, 2 same leaf, 4 siblings under
 * one level-1 switch, ...; -1 when they are not connected). */
int gp__node_hops(const gp_cluster_t *c, int32_t a, int32_t b);

/*
 * Plan checkpoints for job on cluster c.  bookings (may be NULL when
 * nbookings is 0) are other jobs' plans; they are read, not kept.
 * Returns 0 and fills *plan (plan->storage = -1 when no target is
 * reachable from all the job's nodes), or GP_EINVAL with detail in err.
 */
int gp__ckpt_plan(const gp_cluster_t *c, const gp_ckpt_job_t *job,
                  const gp_ckpt_booking_t *bookings, int32_t nbookings,
                  gp_ckpt_plan_t *plan, gp_error_t *err);

/* The booking a plan makes, to pass to later gp__ckpt_plan() calls. */
void gp__ckpt_booking_of(const gp_ckpt_plan_t *plan, uint32_t job_id,
                         gp_ckpt_booking_t *out);

#endif /* GP_CKPT_H */
