/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * steer.h - what job_submit/gpuplace decides beyond one submission over
 * Slurm's records: the advance reservations that hold nodes, and the
 * pending jobs the steering pass looks at.  Pure functions; no RPC, no
 * lock, no Slurm allocator (the plugin wraps them).  The rules that need
 * no Slurm type are in cost_model/steer_rules.h, shared with the simulator.
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
#include "steer_rules.h"

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

/*
 * gp_resv_apply for one model node, from the reservations alone (node
 * state flags aside): 1 when the job may not run on it for reservations,
 * 0 when it may, -1 when the job names a reservation not in v.  O(the
 * reservations) per node, for a question about a few nodes.
 */
int gp_resv_node_blocked(const gp_resv_view_t *v, const char *job_resv, int64_t now,
                         int64_t run_s, int32_t node);

/* ---- steering pending jobs ------------------------------------------------- */

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
