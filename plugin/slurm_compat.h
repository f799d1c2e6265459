/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurm_compat.h - the one place where Slurm releases differ for gpuplace.
 * Every source of plugin/ and tests/ that uses Slurm's API includes this
 * header instead of <slurm/slurm.h>; the layers below plugin/ use only
 * host lists, through cost_model/slurm_hostlist.h.  No other file tests
 * SLURM_VERSION_NUMBER.
 *
 * Checked against the public headers (slurm/slurm.h, slurm/slurm_errno.h,
 * slurm/spank.h) of the releases 22.05.8, 23.11.11, 24.05.8, 24.11.5,
 * 25.05.8, 25.11.7 and 26.05.3 by compiling every source that includes this
 * header against each with -Werror, and against src/common/xmalloc.h,
 * src/common/xstring.h and the job_submit interface of the same tags for
 * the declarations gpuplace writes itself (plugin/slurm_alloc.h and the
 * job_submit entry points):
 *
 * - host lists (hostlist_t, gp_hostlist_t, gp_hostlist_ranged()): in the
 *   base layer's cost_model/slurm_hostlist.h, included here.
 * - slurm_get_errno(): gone from 24.11; it always returned errno.
 * - slurm_xcalloc/xrecalloc/xfree/xstrdup/xstrdup_printf keep the same
 *   signatures through 26.05.3.
 * - job_submit(): same signature in every release.  job_modify(): 22.05
 *   calls it with three arguments (no err_msg), 23.02 and later with four;
 *   gpuplace's job_modify never reads err_msg, so one definition serves both.
 * - job_desc_msg_t, slurm_job_info_t, node_info_t and the SPANK calls the
 *   plugins use are unchanged for gpuplace's purposes.
 *
 * slurmctld loads a job_submit plugin only when plugin_version equals its
 * own SLURM_VERSION_NUMBER (major, minor and micro; SPANK plugins only
 * major and minor): the plugins are rebuilt for every Slurm release.
 */
#ifndef GP_SLURM_COMPAT_H
#define GP_SLURM_COMPAT_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/spank.h>
#include <slurm/slurm_version.h>

#include "slurm_alloc.h"
#include "slurm_hostlist.h"

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
#define gp_slurm_errno() (errno)
#else
#define gp_slurm_errno() slurm_get_errno()
#endif

/* CPUs and memory (MB) allocated on a node: node_info_t's alloc_cpus and
 * alloc_memory from 25.05 on; before, through select_nodeinfo (22.05 ..
 * 24.11, whose cons_tres writes the memory as a uint64_t whatever slurm.h
 * says).  Checked against the headers of 22.05.8, 24.05.8, 24.11.5,
 * 25.05.8, 25.11.0 and 26.05.3. */
static inline void gp_node_alloc(node_info_t *ni, uint32_t *cpus, uint64_t *mem_mb)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 5, 0)
	*cpus = ni->alloc_cpus;
	*mem_mb = ni->alloc_memory;
#else
	uint16_t c = 0;
	uint64_t m = 0;

	if (ni->select_nodeinfo) {
		slurm_get_select_nodeinfo(ni->select_nodeinfo, SELECT_NODEDATA_SUBCNT,
		                          NODE_STATE_ALLOCATED, &c);
		slurm_get_select_nodeinfo(ni->select_nodeinfo, SELECT_NODEDATA_MEM_ALLOC,
		                          NODE_STATE_ALLOCATED, &m);
	}
	*cpus = c;
	*mem_mb = m;
#endif
}

/* A job's --segment (job_desc_msg_t has segment_size from Slurm 24.05 on:
 * slurm/slurm.h of 24.05 .. 26.05 "uint16_t segment_size"; sbatch(1)
 * "--segment=<segment_size> ... When a block topology is used"); older
 * headers have no such field, so the job has no segment.  Unset is 0
 * (slurm_init_job_desc_msg) or NO_VAL16. */
static inline uint32_t gp_job_segment(const job_desc_msg_t *j)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 5, 0)
	return j->segment_size == NO_VAL16 ? 0 : j->segment_size;
#else
	(void)j;
	return 0;
#endif
}

/* Give a job --segment=seg nodes (job_desc_msg_t segment_size, 24.05 on;
 * job_mgr.c copies it into the job's details at submission and no update
 * changes it later).  False where this Slurm has no segments. */
static inline bool gp_job_set_segment(job_desc_msg_t *j, uint32_t seg)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 5, 0)
	if (seg == 0 || seg >= NO_VAL16)
		return false;
	j->segment_size = (uint16_t)seg;
	return true;
#else
	(void)j;
	(void)seg;
	return false;
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

/* CPUs a running job holds on node host, from its job_resrcs (0 when
 * unknown): slurm_job_cpus_allocated_on_node() exists in 22.05 .. 24.05 and
 * is gone from 24.11's slurm.h (checked against the headers), where the
 * node's own CPUAlloc count is all there is. */
static inline int gp_job_cpus_on_node(const slurm_job_info_t *ji, const char *host)
{
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(24, 11, 0)
	return ji->job_resrcs ? slurm_job_cpus_allocated_on_node(ji->job_resrcs, host) : 0;
#else
	(void)ji;
	(void)host;
	return 0;
#endif
}

/* A job description's job id (NO_VAL or 0 when Slurm has given none):
 * job_desc_msg_t's job_id in 22.05 .. 25.11; 26.05 replaced it with
 * step_id, a slurm_step_id_t whose job_id it is (slurm/slurm.h of Debian's
 * 26.05.5).  configure tests for the member rather than a release number,
 * as the change came within the 26.05 series. */
#ifdef HAVE_JOB_DESC_MSG_T_STEP_ID
#define GP_JOB_DESC_ID(j) ((j)->step_id.job_id)
#else
#define GP_JOB_DESC_ID(j) ((j)->job_id)
#endif

/*
 * Slurm's hierarchical resources (resources.yaml) in MODE_3, a count per
 * node summed up the layers, the mode a rack power budget needs: from
 * 25.11.0 (CHANGELOG/slurm-25.11.md, 25.11.0rc1: "Add a new mode of
 * operation to HRes (MODE_3)"; 25.05 has MODE_1 and MODE_2, per job).
 * Job arrays that request a MODE_3 resource crashed slurmctld until
 * 25.11.7 and 26.05.2 ("Fix slurmctld crashing when using job arrays that
 * request mode 3 HRES", both changelogs): before those, gpuplace adds no
 * request to an array job.  (The plugin is built for one release,
 * micro included: slurm_compat.h above.)
 */
#define GP_SLURM_HRES_MODE3 (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 11, 0))
#define GP_SLURM_HRES_ARRAYS                                             \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 2) ||          \
	 (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 11, 7) &&         \
	  SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(26, 5, 0)))

/* The release gpuplace was compiled against, as slurmctld prints versions
 * ("24.11.5"). */
#define GP_SLURM_MAJOR SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER)
#define GP_SLURM_MINOR SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER)
#define GP_SLURM_MICRO SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER)

#endif /* GP_SLURM_COMPAT_H */
