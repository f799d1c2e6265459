/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * steer.c - see steer.h.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gres_parse.h"
#include "steer.h"

/* ---- advance reservations ------------------------------------------------ */

void gp_resv_view_clear(gp_resv_view_t *v)
{
	int32_t i;

	if (!v)
		return;
	for (i = 0; i < v->n; i++)
		free(v->r[i].nodes);
	free(v->r);
	v->r = NULL;
	v->n = 0;
}

struct mark_arg {
	const gp_cluster_t *c;
	gp_resv_t *r;
};

/* a name the model does not know (a node outside gpuplace.conf) holds
 * nothing gpuplace places on */
static int mark_node(void *arg, const char *name, gp_error_t *err)
{
	struct mark_arg *a = arg;
	int32_t i = gp__node_find(a->c, name);

	(void)err;
	if (i >= 0 && !a->r->nodes[i]) {
		a->r->nodes[i] = 1;
		a->r->nnodes++;
	}
	return 0;
}

int gp_resv_convert(const gp_cluster_t *c, const reserve_info_msg_t *msg, gp_resv_view_t *out,
                    char *why, size_t len)
{
	uint32_t i;

	gp_resv_view_clear(out);
	if (!msg || !msg->record_count)
		return 0;
	if (!(out->r = calloc(msg->record_count, sizeof(*out->r)))) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	for (i = 0; i < msg->record_count; i++) {
		const reserve_info_t *ri = &msg->reservation_array[i];
		gp_resv_t *r = &out->r[out->n];
		gp_error_t err;

		if (ri->flags & RESERVE_FLAG_ANY_NODES)
			continue;
		if (!(r->nodes = calloc((size_t)c->nnodes + 1, 1))) {
			snprintf(why, len, "out of memory");
			gp_resv_view_clear(out);
			return -1;
		}
		if (ri->node_list && !strcasecmp(ri->node_list, "ALL")) {
			memset(r->nodes, 1, (size_t)c->nnodes);
			r->nnodes = c->nnodes;
		} else if (ri->node_list && *ri->node_list) {
			struct mark_arg a = { c, r };

			if (gp__hostlist_each("reservation", ri->node_list, 1 << 20, mark_node, &a,
			                      &err) != GP_OK) {
				snprintf(why, len, "reservation %s: %s", ri->name ? ri->name : "?", err.text);
				free(r->nodes);
				r->nodes = NULL;
				gp_resv_view_clear(out);
				return -1;
			}
		}
		if (!r->nnodes) {
			free(r->nodes);
			r->nodes = NULL;
			continue;
		}
		snprintf(r->name, sizeof(r->name), "%s", ri->name ? ri->name : "");
		r->start = (int64_t)ri->start_time;
		r->end = (int64_t)ri->end_time;
		r->flags = ri->flags;
		out->n++;
	}
	return 0;
}

/* Is name one of the comma-separated names of list? */
static bool list_has(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t l = end ? (size_t)(end - p) : strlen(p);

		if (l == n && !strncmp(p, name, n))
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

/* How many comma-separated names list has. */
static int list_count(const char *list)
{
	const char *p;
	int n = 0;

	for (p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		n++;
	return n;
}

/* Does reservation r hold its nodes during a run of run_s from now
 * (run_s <= 0: no time limit, so until it ends)?  Not when it is over or
 * starts after the run. */
static bool resv_overlaps(const gp_resv_t *r, int64_t now, int64_t run_s)
{
	return r->end > now && (run_s <= 0 || r->start < now + run_s);
}

int gp_resv_apply(const gp_cluster_t *c, const gp_resv_view_t *v, const char *job_resv,
                  int64_t now, int64_t run_s, uint32_t *node_flags, char *why, size_t len)
{
	int32_t i, k, found = 0, named = 0;
	uint8_t *inside;

	if (!c || !node_flags)
		return 0;
	if (!job_resv || !*job_resv) {
		for (k = 0; v && k < v->n; k++) {
			const gp_resv_t *r = &v->r[k];

			if (!resv_overlaps(r, now, run_s))
				continue;
			for (i = 0; i < c->nnodes; i++)
				if (r->nodes[i])
					node_flags[i] |= GP_NODE_RESERVED;
		}
		return 0;
	}
	named = list_count(job_resv);
	if (!(inside = calloc((size_t)c->nnodes + 1, 1))) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	for (k = 0; v && k < v->n; k++) {
		if (!list_has(job_resv, v->r[k].name))
			continue;
		found++;
		for (i = 0; i < c->nnodes; i++)
			inside[i] |= v->r[k].nodes[i];
	}
	if (found < named) {
		snprintf(why, len, "reservation %.200s not known to gpuplace (no nodes it places on, or "
		         "not read yet)", job_resv);
		free(inside);
		return -1;
	}
	for (i = 0; i < c->nnodes; i++) {
		if (inside[i])
			node_flags[i] &= ~(uint32_t)GP_NODE_RESERVED;
		else
			node_flags[i] |= GP_NODE_RESERVED;
	}
	free(inside);
	return 0;
}

int gp_resv_node_blocked(const gp_resv_view_t *v, const char *job_resv, int64_t now,
                         int64_t run_s, int32_t node)
{
	int32_t k;
	int named, found = 0;
	bool inside = false;

	if (!job_resv || !*job_resv) {
		for (k = 0; v && k < v->n; k++)
			if (v->r[k].nodes[node] && resv_overlaps(&v->r[k], now, run_s))
				return 1;
		return 0;
	}
	named = list_count(job_resv);
	for (k = 0; v && k < v->n; k++)
		if (list_has(job_resv, v->r[k].name)) {
			found++;
			inside |= v->r[k].nodes[node] != 0;
		}
	if (found < named)
		return -1;
	return !inside;
}

/* ---- steering pending jobs ------------------------------------------------- */

int gp_steer_pick(const slurm_job_info_t *jobs, uint32_t n, gp_steer_cand_t *out, int max)
{
	uint32_t i;
	int got = 0;

	for (i = 0; jobs && i < n && got < max; i++) {
		const slurm_job_info_t *j = &jobs[i];
		const char *c = j->admin_comment;
		size_t at, len;
		uint64_t ref;

		if ((j->job_state & JOB_STATE_BASE) != JOB_PENDING || (j->job_state & JOB_CONFIGURING))
			continue;
		if (j->priority == 0 || j->state_reason == WAIT_HELD ||
		    j->state_reason == WAIT_HELD_USER || j->state_reason == WAIT_DEPENDENCY ||
		    j->state_reason == WAIT_TIME)
			continue;
		/* gpuplace's part of the comment, wherever other text put it */
		if (!gp_comment_section(c, &at, &len))
			continue;
		c += at;
		/* a passed job's reference (one kept to a rack) is
		 * job_modify's: it is never steered */
		if (!(ref = gp_comment_ref(c)) || gp_comment_is_pass(c, len))
			continue;
		out[got].index = i;
		out[got].job_id = j->job_id;
		out[got].ref = ref;
		out[got].priority = j->priority;
		out[got].submit_time = (int64_t)j->submit_time;
		out[got].pinned = !strncmp(c, "gpuplace: PIN ", 14);
		got++;
	}
	gp_steer_sort(out, got);
	return got;
}
