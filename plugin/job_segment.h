/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * job_segment.h - the one place job_submit/gpuplace reads a job's
 * --segment.  job_desc_msg_t has segment_size from Slurm 24.05 on
 * (slurm/slurm.h of 24.05 .. 26.05: "uint16_t segment_size"; sbatch(1):
 * "--segment=<segment_size> ... When a block topology is used"); older
 * headers have no such field, so the job has no segment.  Unset is 0
 * (slurm_init_job_desc_msg) or NO_VAL16.
 */
#ifndef GP_JOB_SEGMENT_H
#define GP_JOB_SEGMENT_H

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

#endif /* GP_JOB_SEGMENT_H */
