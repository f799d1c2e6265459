/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * steer_rules.c - see steer_rules.h.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "steer_rules.h"

/* Watts above idle one GPU of node nodes[i] draws for a ledger job, or
 * -1 when the engine counts no power there (no rack, no profile, a draw
 * not above idle). */
static double ledger_gpu_w(const gp_cluster_t *c, int32_t node, double cap_w, int32_t *rack)
{
	const gp_node_t *nd;
	const gp_gpu_profile_t *prof;
	double per_gpu;

	if (node < 0 || node >= c->nnodes)
		return -1;
	nd = &c->nodes[node];
	if (nd->rack < 0 || nd->rack >= c->nracks || nd->profile < 0 || nd->profile >= c->nprofiles)
		return -1; /* the engine counts no power there either */
	prof = &c->profiles[nd->profile];
	per_gpu = (cap_w > 0 && cap_w < prof->tdp_w ? cap_w : prof->tdp_w) - prof->idle_w;
	*rack = nd->rack;
	return per_gpu > 0 ? per_gpu : -1;
}

void gp_ledger_power_subtract(const gp_cluster_t *c, gp_rack_view_t *racks,
                              const int32_t *nodes, const uint32_t *mask, int32_t n,
                              double cap_w)
{
	int32_t i, r;

	if (!c || !racks || !nodes || !mask)
		return;
	for (i = 0; i < n; i++) {
		double per_gpu = ledger_gpu_w(c, nodes[i], cap_w, &r);
		gp_rack_view_t *rv;

		if (per_gpu < 0)
			continue;
		rv = &racks[r];
		if (!isfinite(rv->headroom_w))
			continue;
		rv->headroom_w = fmax(0.0, rv->headroom_w - per_gpu * gp__popcount(mask[i]));
	}
}

int32_t gp_ledger_power_draw(const gp_cluster_t *c, double *draw, const int32_t *nodes,
                             const uint32_t *mask, int32_t n, double cap_w, int32_t *touched,
                             int32_t ntouched)
{
	int32_t i, r;

	if (!c || !draw || !nodes || !mask)
		return ntouched;
	for (i = 0; i < n; i++) {
		double per_gpu = ledger_gpu_w(c, nodes[i], cap_w, &r), w;

		if (per_gpu < 0 || !(w = per_gpu * gp__popcount(mask[i])))
			continue;
		if (draw[r] == 0 && touched)
			touched[ntouched++] = r;
		draw[r] += w;
	}
	return ntouched;
}

void gp_ledger_power_apply(gp_rack_view_t *racks, const double *draw, const int32_t *touched,
                           int32_t ntouched)
{
	int32_t k;

	if (!racks || !draw)
		return;
	for (k = 0; k < ntouched; k++) {
		gp_rack_view_t *rv = &racks[touched[k]];

		if (isfinite(rv->headroom_w))
			rv->headroom_w = fmax(0.0, rv->headroom_w - draw[touched[k]]);
	}
}

/* ---- steering pending jobs ------------------------------------------------- */

uint64_t gp_comment_ref(const char *comment)
{
	const char *p = comment ? strstr(comment, "; ref ") : NULL;
	unsigned long long v = 0;
	int digits = 0;

	if (!p)
		return 0;
	for (p += 6; *p >= '0' && *p <= '9' && digits < 20; p++, digits++)
		v = v * 10 + (unsigned long long)(*p - '0');
	return digits && (*p == '\0' || *p == ';' || *p == ' ') ? (uint64_t)v : 0;
}

void gp_steer_job_init(gp_steer_job_t *j, bool pinned, int64_t now, double wait_s,
                       bool every_refresh)
{
	memset(j, 0, sizeof(*j));
	j->pinned = pinned;
	j->decided = j->checked = now;
	j->wait_s = wait_s > 0 ? wait_s : 0.0;
	j->every_refresh = every_refresh;
}

static int by_priority(const void *a, const void *b)
{
	const gp_steer_cand_t *x = a, *y = b;

	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	if (x->submit_time != y->submit_time)
		return x->submit_time < y->submit_time ? -1 : 1;
	return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

void gp_steer_sort(gp_steer_cand_t *c, int n)
{
	int i;

	/* read in order already (the simulator's FIFO queue, often Slurm's
	 * job list): one pass instead of a sort */
	for (i = 1; c && i < n && by_priority(&c[i - 1], &c[i]) <= 0; i++)
		;
	if (c && i < n)
		qsort(c, (size_t)n, sizeof(*c), by_priority);
}

bool gp_steer_budget(const gp_policy_t *p, int updates, int evaluations)
{
	/* bounded work: a submission waits for one re-decision at most, and
	 * a pass for 4 x steer_max of them */
	return p && p->steer_max > 0 && updates < p->steer_max && evaluations < 4 * p->steer_max;
}

bool gp_steer_due(const gp_steer_job_t *j, const gp_policy_t *p, int64_t now)
{
	if (!j || !p)
		return false;
	if (j->moved && now - j->updated < p->steer_interval_s)
		return false;
	/* a CONSTRAINed job is re-decided once per interval, not per refresh */
	if (!j->pinned && !j->every_refresh && now - j->checked < p->steer_interval_s)
		return false;
	return true;
}

bool gp_steer_node_taken(uint32_t flags, uint32_t full, uint32_t alloc, int32_t gpus)
{
	return (flags & (GP_NODE_DOWN | GP_NODE_DRAIN | GP_NODE_RESERVED)) ||
	       gp__popcount(full & ~alloc) < gpus;
}

int gp_steer_redecide(gp_steer_job_t *j, const gp_policy_t *p, int64_t now, bool taken,
                      gp_policy_t *out, char *why, size_t len)
{
	double waited;

	*out = *p;
	if (j->pinned) {
		if (!taken)
			return 0;
		snprintf(why, len, "its pinned nodes were taken");
		return 1;
	}
	/* the policy's wait budget counts from its decision, whatever it
	 * waited for (a compact set predicted free, or any set when none
	 * was free): what is left of it goes to the engine's wait rule
	 * (completion after waiting against starting now on the set free
	 * now, less the delay to the jobs behind it), so no job waits for a
	 * better set longer than max_wait_s in all (a large job is not held
	 * for ever, nor a job re-decided at every interval given a fresh
	 * budget each time); spent, it takes what is free */
	waited = (double)(now - j->decided);
	out->max_wait_s = p->max_wait_s > waited ? p->max_wait_s - waited : 0;
	if (j->wait_s > 0 && waited > j->wait_s)
		snprintf(why, len, "waited %lld s, longer than the predicted %.0f s (%.0f s of its "
		         "wait budget left)", (long long)(now - j->decided), j->wait_s,
		         out->max_wait_s);
	else
		snprintf(why, len, "its domains could not start it and a set the policy accepts is "
		         "free now (%.0f s of its wait budget left)", out->max_wait_s);
	j->checked = now;
	return 1;
}

/* Is plan a ahead of candidate k in Slurm's priority order (by_priority)? */
static bool plan_ahead(const gp_steer_plan_t *a, const gp_steer_cand_t *k)
{
	if (a->priority != k->priority)
		return a->priority > k->priority;
	if (a->submit_time != k->submit_time)
		return a->submit_time < k->submit_time;
	return a->job_id < k->job_id;
}

int32_t gp_steer_hold_planned(const gp_steer_cand_t *k, int64_t end, const gp_steer_plan_t *plans,
                              int32_t nplans, uint32_t *node_flags, int32_t nnodes)
{
	int32_t a, i, marked = 0;

	if (!k || !plans || !node_flags)
		return 0;
	for (a = 0; a < nplans; a++) {
		if (plans[a].job_id == k->job_id || !plan_ahead(&plans[a], k) || !plans[a].nodes)
			continue;
		if (end > 0 && plans[a].start_time > 0 && end <= plans[a].start_time)
			continue; /* it ends before that plan starts: Slurm backfills it */
		for (i = 0; i < plans[a].nnodes; i++) {
			int32_t n = plans[a].nodes[i];

			if (n < 0 || n >= nnodes || (node_flags[n] & GP_NODE_RESERVED))
				continue;
			node_flags[n] |= GP_NODE_RESERVED;
			marked++;
		}
	}
	return marked;
}

/* Node nd's domain for gp_steer_domains: its block where it is in one,
 * else its leaf switch after the blocks (a node of the tree partition of a
 * two-topology topology.yaml is in no block), -1 for neither. */
static int32_t steer_domain(const gp_cluster_t *c, int32_t nd)
{
	const gp_node_t *x = &c->nodes[nd];

	if (c->nblocks > 0 && x->block >= 0)
		return x->block;
	return x->leaf >= 0 ? (c->nblocks > 0 ? c->nblocks : 0) + x->leaf : -1;
}

int32_t gp_steer_domains(const gp_cluster_t *c, const int32_t *nodes, int32_t n)
{
	int32_t i, k, got = 0;

	if (!c || !nodes)
		return 0;
	/* sets are a few nodes to a few hundred: a quadratic count of the
	 * distinct domains allocates nothing */
	for (i = 0; i < n; i++) {
		int32_t d, nd = nodes[i];

		if (nd < 0 || nd >= c->nnodes)
			continue;
		if ((d = steer_domain(c, nd)) < 0)
			continue;
		for (k = 0; k < i; k++) {
			int32_t m = nodes[k];

			if (m >= 0 && m < c->nnodes && steer_domain(c, m) == d)
				break;
		}
		got += k == i;
	}
	return got;
}

bool gp_steer_plan_keeps(const gp_cluster_t *c, const gp_policy_t *p,
                         const gp_steer_plan_t *own, const gp_scored_t *sc, int64_t now)
{
	int32_t planned;

	if (!c || !p || !own || !own->nodes || own->nnodes <= 0 || !sc)
		return false;
	if (own->start_time <= 0 || own->start_time > now + p->steer_interval_s)
		return false; /* unknown, or starting now on sc may gain more than
		               * one interval */
	planned = gp_steer_domains(c, own->nodes, own->nnodes);
	return planned > 0 && planned <= gp_steer_domains(c, sc->nodes, sc->nnodes);
}

bool gp_steer_moves(const gp_decision_t *d)
{
	return d && d->kind == GP_DECIDE_PIN && d->ncands > 0 && !d->cands[0].future;
}

void gp_steer_moved(gp_steer_job_t *j, int64_t now)
{
	j->moved = true;
	j->updated = now;
	j->pinned = true;
}

/* ---- Slurm's own wait-for-switch ------------------------------------------- */

int gp_switch_request(const gp_decision_t *d, const gp_policy_t *p, uint32_t *count,
                      uint32_t *max_s)
{
	double compact_run, pays;

	if (!d || !p || d->kind != GP_DECIDE_CONSTRAIN || !d->waited || d->ncands < 1 ||
	    d->cands[0].nleaves < 1 || !(d->now_finish_s > 0))
		return 0;
	compact_run = d->wait_finish_s - d->wait_s;
	pays = d->now_finish_s * (1.0 - p->wait_gain) - compact_run;
	if (p->max_wait_s > 0 && pays > p->max_wait_s)
		pays = p->max_wait_s;
	if (!(pays >= d->wait_s) || pays < 1.0)
		return 0;
	*count = (uint32_t)d->cands[0].nleaves;
	*max_s = (uint32_t)ceil(pays);
	return 1;
}
