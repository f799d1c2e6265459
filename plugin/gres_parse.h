/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gres_parse.h - GPU counts and indices in Slurm TRES and GRES strings
 * (plugin side, Slurm-free; see gres_parse.c). */
#ifndef GP_GRES_PARSE_H
#define GP_GRES_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/*
 * The GPU request of a Slurm TRES list (a job's tres_per_job or
 * tres_per_node: "gres:gpu:a100:4", "gres/gpu:8", "gres/gpu",
 * "gres:gpu:h100:8,gres:gpu:h100:8", 22.05 writing gres:, newer releases
 * gres/): the counts of every GPU entry summed into *count, their type into
 * type[typelen] ("" = any type).  Entries whose types differ only in case
 * are one type, as in Slurm.  Returns 1, 0 when no GPU is named (tres NULL
 * or ""), -1 when an entry cannot be read or the sum passes 2^30, -2 when
 * the entries name different types (or a type and no type), which one
 * count cannot express.  tres is borrowed.  Thread-safe.
 */
int gp_tres_gpu_request(const char *tres, long *count, char *type, size_t typelen);

/*
 * gpuplace's own part of a job's admin comment: "gpuplace: PIN ...",
 * "gpuplace: CONSTRAIN ..." or "gpuplace: PASS ..." (a request left to
 * Slurm, "ref 0"), starting the comment or after a space, up to
 * and including its "; ref <digits>" (which ends it: the end of the comment
 * or a space follows).  Whatever else the comment holds (job_submit/lua's
 * or the admin's text) is not gpuplace's and stays as it is.  true with
 * the part's offset and length, false when there is none (comment NULL
 * too).  comment is borrowed.
 */
bool gp_comment_section(const char *comment, size_t *start, size_t *len);

/* The start of the part of a job gpuplace passes unchanged (comment_pass
 * writes it; steering never takes such a job, and its reference, which a
 * passed job kept to a rack carries for job_modify, is no decision the
 * ledger booked). */
#define GP_COMMENT_PASS "gpuplace: PASS "

/* Is the part sec (len bytes, from gp_comment_section) a passed job's? */
static inline bool gp_comment_is_pass(const char *sec, size_t len)
{
	return len >= sizeof(GP_COMMENT_PASS) - 1 &&
	       !strncmp(sec, GP_COMMENT_PASS, sizeof(GP_COMMENT_PASS) - 1);
}

#endif /* GP_GRES_PARSE_H */
