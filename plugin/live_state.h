/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * live_state.h - the cluster's dynamic state from slurmctld (plugin side).
 *
 * Two halves: gp_live_refresh() asks Slurm (an RPC, on the plugin's own
 * thread only), gp_live_convert() turns Slurm's records into what the engine
 * and the plugin's bookkeeping read.  The conversion needs no daemon: the
 * unit test feeds it records parsed from captured `scontrol show node -d`
 * and `scontrol show job -d` output (tests/data/slurm/).
 */
#ifndef GP_LIVE_STATE_H
#define GP_LIVE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "slurm_compat.h"

#include "gres_parse.h"

#include "gres_parse.h"
#include "model.h"

/* What Slurm has allocated on a node apart from its GPUs.  Slurm 22.05
 * keeps it in the select plugin's per-node data (scontrol's CPUAlloc and
 * AllocMem), newer versions in node_info_t itself, so it travels beside the
 * node record. */
typedef struct gp_live_alloc {
	uint16_t cpus;          /* CPUs allocated (CPUAlloc) */
	uint64_t mem_mb;        /* memory allocated, MB (AllocMem) */
} gp_live_alloc_t;

/* What a node of the model has left for new jobs. */
typedef struct gp_live_res {
	bool known;             /* Slurm reported the node with its allocation */
	int32_t cpus_total;     /* usable CPUs (CPUEfctv) */
	int32_t cpus_free;      /* cpus_total less CPUAlloc, or less the CPUs
	                         * of the running jobs when those are more */
	int64_t mem_mb;         /* RealMemory less MemSpecLimit */
	int64_t mem_free_mb;    /* mem_mb less AllocMem, or less the memory of
	                         * the running jobs when that is more */
} gp_live_res_t;

/* A recently submitted job, as the plugin's ledger matches its decisions
 * with what Slurm has done since. */
typedef struct gp_live_seen {
	uint32_t job_id;
	uint32_t uid;
	int64_t submit_time;
	uint64_t name_hash;     /* gp_live_name_hash() of the job name */
	uint64_t ref;           /* the decision reference gpuplace wrote into its
	                         * admin comment ("ref N"), 0 = none */
	bool started;           /* no longer pending: running, or already ended;
	                         * either way its resources are in Slurm's counts */
	bool held;              /* pending but not eligible to start: held, or
	                         * waiting for a dependency or its begin time */
} gp_live_seen_t;

/* One reading of the cluster.  Everything is malloc'd and owned by the
 * view (gp_live_view_clear). */
typedef struct gp_live_view {
	gp_state_t *state;      /* flags, GPUs in use, running jobs */
	gp_live_res_t *res;     /* per model node */
	gp_live_seen_t *seen;   /* jobs submitted at or after the `since' time */
	int32_t nseen;
	int32_t unreadable;     /* GRES strings that could not be read; the
	                         * nodes they describe count as fully busy */
	int64_t jobs_time;      /* when Slurm's job list was last read */
} gp_live_view_t;

/* Cached libslurm responses; one per refreshing thread. */
typedef struct gp_live {
	node_info_msg_t *nodes;
	job_info_msg_t *jobs;
	int64_t jobs_time;      /* when job information was last asked for */
	/* Slurm's backfill sets a pending job's SchedNodeList without marking
	 * the job list changed (backfill.c: sched_nodes, no last_job_update),
	 * so while jobs pend the whole list is asked for again every
	 * full_every_s (the caller sets it: Slurm's bf_interval; 0 = never),
	 * the last whole read at full_time */
	int64_t full_every_s;
	int64_t full_time;
} gp_live_t;

void gp_live_init(gp_live_t *lv);
/* Free the cached responses (libslurm's own free functions). */
void gp_live_fini(gp_live_t *lv);

/*
 * Read node and job information from slurmctld (asked with the cached
 * update times, so an unchanged cluster costs Slurm a "no change" answer;
 * the whole job list every full_every_s while the cached one has a
 * pending job)
 * and convert it with gp_live_convert() into *out (cleared first; the
 * caller owns it afterwards).  0, or -1 with the reason in why.
 */
int gp_live_refresh(gp_live_t *lv, const gp_cluster_t *c, int64_t since, gp_live_view_t *out,
                    char *why, size_t len);

/*
 * The engine's view of cluster c from Slurm's records: nodes[0..nnodes-1]
 * with alloc[i] beside nodes[i] (alloc NULL: CPUs and memory unknown), and
 * jobs[0..njobs-1] (may be NULL/0).  now stamps the state; jobs submitted
 * at or after `since' are listed in out->seen.
 *
 * Node state: DOWN, UNKNOWN, FUTURE, NOT_RESPONDING, INVALID_REG and a
 * reboot in progress count as down; DRAIN and FAIL as drained (no new
 * work); MAINT and RESERVED (an advance reservation holds the node) as
 * reserved.  GPUs in use are the union of the node's gres_used (every gpu
 * entry, every type: "gpu:a100:2(IDX:0-1),gpu:h100:0(IDX:N/A)") and the
 * GPU index lists of its running and suspended jobs (gres_detail_str); a
 * count without indices takes the node's lowest free GPUs; a string that
 * cannot be read makes its node fully busy.  Nodes Slurm knows but the
 * model does not are ignored.  0, or -1 (out of memory) with why.
 */
int gp_live_convert(const gp_cluster_t *c, const node_info_t *nodes, const gp_live_alloc_t *alloc,
                    uint32_t nnodes, const slurm_job_info_t *jobs, uint32_t njobs, int64_t now,
                    int64_t since, gp_live_view_t *out, char *why, size_t len);

/* Free what v owns and zero it; NULL-safe. */
void gp_live_view_clear(gp_live_view_t *v);

/* gp_live_gres_gpus(): see gres_parse.h. */

/* FNV-1a hash of a job name (NULL hashes as ""). */
uint64_t gp_live_name_hash(const char *name);

/* What a job needs of each node besides GPUs, from its request. */
typedef struct gp_live_need {
	int32_t cpus_per_node;  /* at least this many free CPUs (>= 1) */
	int64_t mem_per_node_mb;/* at least this much free memory (>= 1);
	                         * -1 = the whole node (--mem=0) */
	int32_t cpus_per_gpu;   /* --cpus-per-gpu, 0 = none */
	int64_t mem_per_gpu_mb; /* --mem-per-gpu, 0 = none */
	int32_t idle_node;      /* nonzero: --exclusive (any form): a node
	                         * with any CPU or memory allocated, by a GPU
	                         * job or not, gives it nothing */
} gp_live_need_t;

/*
 * How many more GPUs node r can give a job needing `need', given it has
 * free_gpus GPUs free: 0 when it lacks the CPUs or memory per node, else
 * free_gpus less what --cpus-per-gpu/--mem-per-gpu leave no room for; 0 when
 * the job wants an idle node and some of this one is allocated.  A node
 * Slurm did not report (!r->known) is not limited.
 */
int32_t gp_live_usable_gpus(const gp_live_res_t *r, const gp_live_need_t *need,
                            int32_t free_gpus);

#endif /* GP_LIVE_STATE_H */
