/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * steer.h - what job_submit/gpuplace decides beyond one submission: the
 * power its own recent decisions will draw, and the advance reservations
 * that hold nodes.  Pure functions over the model and Slurm's records; no
 * RPC, no lock, no Slurm allocator (the plugin wraps them).
 */
#ifndef GP_STEER_H
#define GP_STEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slurm_compat.h"

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

/* ---- advance reservations ------------------------------------------------ */

/* One reservation as the plugin reads it. */
typedef struct gp_resv {
	char name[GP_NAME_MAX];
	int64_t start, end;     /* Slurm's start and end times */
	uint64_t flags;         /* RESERVE_FLAG_* */
	uint8_t *nodes;         /* per model node: 1 = reserved (malloc'd) */
	int32_t nnodes;         /* how many model nodes it holds */
} gp_resv_t;

/* Every reservation of one reading (malloc'd, gp_resv_view_clear). */
typedef struct gp_resv_view {
	gp_resv_t *r;
	int32_t n;
} gp_resv_view_t;

/*
 * The reservations of Slurm's answer msg (NULL = none) for cluster c into
 * *out (cleared first).  A node list of "ALL" (or empty with a node count)
 * holds every node; names the model does not know are skipped;
 * reservations without nodes (licenses or burst buffers only) and those
 * flagged ANY_NODES (which hold no node away from other jobs) are left
 * out.  0, or -1 (out of memory, or a node list that cannot be read) with
 * why.
 */
int gp_resv_convert(const gp_cluster_t *c, const reserve_info_msg_t *msg, gp_resv_view_t *out,
                    char *why, size_t len);

void gp_resv_view_clear(gp_resv_view_t *v);

/*
 * Make node_flags (c->nnodes entries, the decision's copy of the state)
 * say which nodes this job may be placed on as far as reservations go:
 *   - job_resv NULL or "": every node of a reservation that overlaps
 *     [now, now + run_s) is GP_NODE_RESERVED (run_s <= 0: the job has no
 *     time limit, so every reservation not yet ended overlaps) - Slurm
 *     starts no job there whose run would reach into the reservation;
 *   - job_resv "a" or "a,b": the job runs inside those reservations'
 *     nodes only: every other node is GP_NODE_RESERVED, and the flag Slurm
 *     sets on the reservation's own nodes (node state RESERVED) is lifted.
 * Returns 0, or -1 when a named reservation is not in v (why says which;
 * the job is then left to Slurm).
 */
int gp_resv_apply(const gp_cluster_t *c, const gp_resv_view_t *v, const char *job_resv,
                  int64_t now, int64_t run_s, uint32_t *node_flags, char *why, size_t len);

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

/*
 * The jobs of jobs[0..n-1] the steering pass may look at, in Slurm's
 * priority order (highest first; ties: earlier submission, lower job id)
 * into out[0..max-1]: PENDING (not running, not starting: a job Slurm has
 * begun to allocate is no longer PENDING), placed by gpuplace (its admin
 * comment starts "gpuplace: PIN" or "gpuplace: CONSTRAIN" and carries a
 * reference), and eligible now (not held, not waiting for a dependency or
 * its begin time).  Returns how many.
 */
int gp_steer_pick(const slurm_job_info_t *jobs, uint32_t n, gp_steer_cand_t *out, int max);

/* Slurm's last answer, kept so the next reading can ask "changed since?". */
typedef struct gp_resv_cache {
	reserve_info_msg_t *msg;
} gp_resv_cache_t;

/* Read the reservations from slurmctld (plugin/reservations.c: an RPC, so
 * the plugin's thread only, never the submission path) into *out. 0, or
 * -1 with why. */
int gp_resv_refresh(gp_resv_cache_t *rc, const gp_cluster_t *c, gp_resv_view_t *out, char *why,
                    size_t len);
void gp_resv_cache_fini(gp_resv_cache_t *rc);

#endif /* GP_STEER_H */
