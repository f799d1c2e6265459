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

#include <slurm/slurm.h>

#include "decide.h"
#include "model.h"

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

#endif /* GP_STEER_H */
