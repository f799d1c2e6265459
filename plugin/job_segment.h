/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * job_segment.h - the one place job_submit/gpuplace reads a job's
 * --segment.  job_desc_msg_t has segment_size from Slurm 24.05 on
 * (slurm/slurm.h of 24.05 .. 26.05: "uint16_t segment_size"; sbatch(1):
 * "--segment=<segment_size> ... When a block topology is used"); older
 * headers have no such field, so the job has no segment.  Unset is 0
 * (slurm_init_job_desc_msg) or NO_VAL16.  Every Slurm-release condition
 * about segments is in this file.
 */
#ifndef GP_JOB_SEGMENT_H
#define GP_JOB_SEGMENT_H

#include <stdbool.h>
#include <stdint.h>

#include <slurm/slurm.h>
#include <slurm/slurm_version.h>

static inline uint32_t gp_job_segment(const job_desc_msg_t *j)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 5, 0)
	return j->segment_size == NO_VAL16 ? 0 : j->segment_size;
#else
	(void)j;
	return 0;
#endif
}

/*
 * May gpuplace pin (req_nodes) a job of nodes nodes with this --segment?
 * topology/block of Slurm 24.05 .. 25.05 refuses required nodes when a job
 * has more than one segment ("requires nodes with segment are not
 * supported", src/plugins/topology/block/eval_nodes_block.c; the job fails
 * with "Requested topology configuration is not available"); 25.11 takes
 * a required set of the job's full size.
 */
static inline bool gp_job_segment_pin_ok(const job_desc_msg_t *j, int32_t nodes)
{
	uint32_t seg = gp_job_segment(j);

	if (!seg || nodes <= (int32_t)seg)
		return true;
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 11, 0)
	return true;
#else
	return false;
#endif
}

#endif /* GP_JOB_SEGMENT_H */
