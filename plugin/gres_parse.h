/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gres_parse.h - GPU counts and indices in Slurm TRES and GRES strings
 * (plugin side, Slurm-free; see gres_parse.c). */
#ifndef GP_GRES_PARSE_H
#define GP_GRES_PARSE_H

#include <stdint.h>

#include "model.h"

/*
 * The GPUs of the gpu entries of a Slurm GRES string such as
 * "gpu:a100:2(IDX:0-1),gpu:h100:0(IDX:N/A),mps:100" into *mask (indices
 * below GP_MAX_GPUS_PER_NODE), and into *unindexed the GPUs counted without
 * an index list ("gpu:2").  NULL or "" is no GPU.  0, or -1 if malformed.
 */
int gp_live_gres_gpus(const char *gres, uint32_t *mask, int32_t *unindexed);

/* GPUs in a Slurm TRES list: "gres:gpu:8", "gres/gpu:a100:8", "gres:gpu:8,..."
 * (22.05 writes gres:, newer versions gres/).  tres is borrowed.  0 when no
 * GPU is named (or tres is NULL), -1 when the count cannot be read; at most
 * 2^30.  Thread-safe. */
long gp_tres_gpus(const char *tres);

#endif /* GP_GRES_PARSE_H */
