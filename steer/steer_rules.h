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

#endif /* GP_STEER_RULES_H */
