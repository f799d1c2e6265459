/* SPDX-License-Identifier: GPL-2.0-or-later */
/* live_state.h - the cluster's dynamic state from slurmctld (plugin side). */
#ifndef GP_LIVE_STATE_H
#define GP_LIVE_STATE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <slurm/slurm.h>

#include "gres_parse.h"
#include "model.h"

/* Job information is read at most this often (node state every refresh). */
#define GP_LIVE_JOBS_EVERY_S 10

/* Cached libslurm responses; one per refreshing thread. */
typedef struct gp_live {
	node_info_msg_t *nodes;
	job_info_msg_t *jobs;
	time_t jobs_time;       /* when job information was last asked for */
} gp_live_t;

void gp_live_init(gp_live_t *lv);
/* Free the cached responses (libslurm's own free functions). */
void gp_live_fini(gp_live_t *lv);

/*
 * A new state of cluster c from Slurm's node and job information (asked
 * with the cached update times).  *out is owned by the caller
 * (gp_state_destroy).  0, or -1 with the reason in why.  Nodes Slurm knows
 * but the model does not are ignored; a node whose GPU indices cannot be
 * read counts as fully allocated.
 */
int gp_live_refresh(gp_live_t *lv, const gp_cluster_t *c, gp_state_t **out, char *why,
                    size_t len);


#endif /* GP_LIVE_STATE_H */
