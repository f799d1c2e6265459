/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * live_state.c - the cluster's dynamic state, read from slurmctld through
 * libslurm (node and job information), as a gp_state the engine reads.
 *
 * GPUs in use come from each node's gres_used ("gpu:a100:2(IDX:0-1)"),
 * running jobs and their GPU indices from the jobs' gres_detail_str (one
 * entry per node of the job, in host list order).  Responses are cached and
 * asked for with their update time, so an unchanged cluster costs Slurm a
 * "no change" answer.  Runs on the plugin's own thread, never on the
 * submission path.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "live_state.h"

void gp_live_init(gp_live_t *lv)
{
	memset(lv, 0, sizeof(*lv));
}

void gp_live_fini(gp_live_t *lv)
{
	if (lv->nodes)
		slurm_free_node_info_msg(lv->nodes);
	if (lv->jobs)
		slurm_free_job_info_msg(lv->jobs);
	memset(lv, 0, sizeof(*lv));
}

/* Fetch node and job information, reusing the cached copies when Slurm
 * says nothing changed.  0 or a Slurm errno. */
static int fetch(gp_live_t *lv)
{
	node_info_msg_t *n = NULL;
	job_info_msg_t *j = NULL;
	int rc;

	rc = slurm_load_node(lv->nodes ? lv->nodes->last_update : 0, &n, SHOW_ALL);
	if (rc == SLURM_SUCCESS) {
		if (lv->nodes)
			slurm_free_node_info_msg(lv->nodes);
		lv->nodes = n;
	} else if (slurm_get_errno() != SLURM_NO_CHANGE_IN_DATA) {
		return slurm_get_errno();
	}
	/* Running jobs' end times and GPU indices only feed wait-or-spread and
	 * the power estimate's load; reading every job (the queue included) is
	 * the dearest call, so it is done less often than the node state. */
	if (lv->jobs && time(NULL) - lv->jobs_time < GP_LIVE_JOBS_EVERY_S)
		return lv->nodes ? SLURM_SUCCESS : SLURM_ERROR;
	lv->jobs_time = time(NULL);
	rc = slurm_load_jobs(lv->jobs ? lv->jobs->last_update : 0, &j, SHOW_ALL | SHOW_DETAIL);
	if (rc == SLURM_SUCCESS) {
		if (lv->jobs)
			slurm_free_job_info_msg(lv->jobs);
		lv->jobs = j;
	} else if (slurm_get_errno() != SLURM_NO_CHANGE_IN_DATA) {
		return slurm_get_errno();
	}
	return lv->nodes && lv->jobs ? SLURM_SUCCESS : SLURM_ERROR;
}

static int add_job(gp_state_t *s, const gp_cluster_t *c, const slurm_job_info_t *ji)
{
	hostlist_t hl = slurm_hostlist_create(ji->nodes);
	gp_job_alloc_t *ja, *grown;
	char *host;
	int32_t i = 0, n;

	if (!hl)
		return -1;
	n = slurm_hostlist_count(hl);
	grown = realloc(s->jobs, ((size_t)s->njobs + 1) * sizeof(*s->jobs));
	if (!grown || n <= 0) {
		if (grown)
			s->jobs = grown;
		slurm_hostlist_destroy(hl);
		return grown ? 0 : -1;
	}
	s->jobs = grown;
	ja = &s->jobs[s->njobs];
	memset(ja, 0, sizeof(*ja));
	ja->nodes = calloc((size_t)n, sizeof(*ja->nodes));
	ja->gpu_mask = calloc((size_t)n, sizeof(*ja->gpu_mask));
	if (!ja->nodes || !ja->gpu_mask) {
		free(ja->nodes);
		free(ja->gpu_mask);
		slurm_hostlist_destroy(hl);
		return -1;
	}
	ja->job_id = ji->job_id;
	ja->end_time = (int64_t)ji->end_time;
	ja->load = 1.0;
	while ((host = slurm_hostlist_shift(hl))) {
		int32_t idx = gp__node_find(c, host);

		if (idx >= 0 && i < n) {
			ja->nodes[ja->nnodes] = idx;
			if (ji->gres_detail_str && (uint32_t)i < ji->gres_detail_cnt &&
			    gp_live_gpu_mask(ji->gres_detail_str[i], &ja->gpu_mask[ja->nnodes]) != 0)
				ja->gpu_mask[ja->nnodes] = 0;
			ja->nnodes++;
		}
		i++;
		free(host);
	}
	slurm_hostlist_destroy(hl);
	s->njobs++;
	return 0;
}

int gp_live_refresh(gp_live_t *lv, const gp_cluster_t *c, gp_state_t **out, char *why,
                    size_t len)
{
	gp_state_t *s = NULL;
	uint32_t i;
	int rc;

	*out = NULL;
	if ((rc = fetch(lv)) != SLURM_SUCCESS) {
		snprintf(why, len, "cannot read node and job state: %s", slurm_strerror(rc));
		return -1;
	}
	if (gp_state_create(c, &s) != GP_OK) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	s->time = (int64_t)time(NULL);
	for (i = 0; i < lv->nodes->record_count; i++) {
		const node_info_t *ni = &lv->nodes->node_array[i];
		int32_t idx = ni->name ? gp__node_find(c, ni->name) : -1;
		uint32_t base;

		if (idx < 0)
			continue; /* a node gpuplace.conf's model does not know */
		base = ni->node_state & NODE_STATE_BASE;
		if (base == NODE_STATE_DOWN || base == NODE_STATE_UNKNOWN || base == NODE_STATE_FUTURE)
			s->node_flags[idx] |= GP_NODE_DOWN;
		if (ni->node_state & NODE_STATE_DRAIN)
			s->node_flags[idx] |= GP_NODE_DRAIN;
		if (gp_live_gpu_mask(ni->gres_used, &s->alloc_mask[idx]) != 0) {
			/* unreadable: count the node's GPUs as busy rather than guess */
			s->alloc_mask[idx] = c->nodes[idx].ngpus >= 32 ? ~0u
			                     : (1u << c->nodes[idx].ngpus) - 1;
		}
	}
	for (i = 0; i < lv->jobs->record_count; i++) {
		const slurm_job_info_t *ji = &lv->jobs->job_array[i];

		if ((ji->job_state & JOB_STATE_BASE) != JOB_RUNNING || !ji->nodes)
			continue;
		if (add_job(s, c, ji) != 0) {
			gp_state_destroy(s);
			snprintf(why, len, "out of memory");
			return -1;
		}
	}
	*out = s;
	return 0;
}
