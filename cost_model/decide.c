/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decide.c - score candidates, choose PIN / CONSTRAIN / REJECT, explain. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "decide.h"
#include "power.h"

#define KMAX 16                 /* candidates one search keeps at most */
#define FUTURE_POINTS 4         /* future states tried for wait-or-spread */
#define FUTURE_K 2              /* candidates a future state's search keeps */
#define MAX_RACKS_PER_SET 256   /* racks one candidate may touch */
#define INFEASIBLE 1e12
#define MEMO 256                /* evaluations remembered per search, by candidate seq */

struct gp_engine {
	const gp_cluster_t *c;
	gp_search_ws_t *ws;
	gp_cost_scratch_t *scratch;
	int32_t scratch_gpus;
	gp_state_t *work;           /* the state a search runs on */
	gp_state_t *empty;          /* everything up and free */
	/* what each partition (index nparts: the whole cluster) can ever hold:
	 * GPUs, nodes with GPUs and the most GPUs on one node, so a request
	 * beyond it is answered before any scratch space is sized for it */
	int64_t *cap_gpus;
	int32_t *cap_nodes, *cap_per_node;
	/* power as a constraint of the search: per rack the most watts one of
	 * its GPUs adds above idle, at TDP and at the lowest settable cap; the
	 * GPU budget handed to the search; the racks' headroom when running
	 * jobs have ended (fut) and with every rack idle (idle) */
	double *rack_w, *rack_wcap, *head;
	int32_t *rack_free;        /* scratch: free GPUs per rack (block_power_binds) */
	/* the last ideal step time and the profile it is for (the same job
	 * submitted again, or array jobs, skip one evaluation) */
	gp_job_profile_t ideal_job;
	double ideal_s;
	int ideal_rc;
	bool ideal_valid;
	int32_t *budget;
	gp_rack_view_t *fut, *idle;
	/* the caller's power view with the draw of the jobs past their end
	 * given back (gp__decide), and the view that points to it */
	gp_rack_view_t *nowr;
	gp_power_view_t nowpv;
	/* racks whose future headroom changed since the budget was last set
	 * (chg, marked where chg_mark == chg_gen), and whether e->budget holds
	 * the TDP budgets of e->fut but for those racks (budget_fut) */
	int32_t *chg, nchg;
	uint32_t *chg_mark, chg_gen;
	bool budget_fut;
	/* the view and mode of the last set_budget() */
	const gp_rack_view_t *budget_view;
	bool budget_tdp;
	/* the running jobs' end times of the wait path, kept between
	 * decisions: one array per job would be an mmap()'d block (beyond
	 * glibc's 128 KiB threshold from 8,192 jobs on) whose pages fault in
	 * again on every decision */
	int64_t *ends;              /* per job of the state, its end time */
	int64_t *times;
	int32_t *rel;               /* the jobs one future point releases */
	int32_t ends_cap, nends;
	/* the jobs (indices, in job order) ending by hz_lim, overdue ones
	 * included: the wait path's candidates for release */
	int32_t *hz, nhz;
	int64_t hz_lim;
	bool hz_valid;
	int32_t *hist;              /* end times per second, for the quantiles */
	int64_t hist_cap;
	/* per node, compact for the wait path's release of every ending job
	 * (gp_node_t is large: one cache line or more per node read): its
	 * rack when the power estimate applies (a rack and a known GPU type),
	 * else -1, its GPU profile then, and the watts one of its GPUs adds
	 * above idle, in one 16-byte record (evaluate() read the profile from
	 * gp_node_t: a miss per rack of every scored set) */
	struct node_pw { int32_t rack, prof; double w; } *npw;
	/* evaluate(): the slot of each rack in its per-set table, valid where
	 * rk_mark == rk_gen, so finding a node's rack is O(1) instead of a
	 * scan of the racks seen so far (for a 1,024-GPU set spread over a
	 * hundred racks that scan was a twelfth of each evaluation) */
	int32_t *rk_slot;
	uint32_t *rk_mark, rk_gen;
	/* per rack: can its power bind at all?  Not when, with every GPU it
	 * has at TDP, its estimated draw stays within its limit less the
	 * policy's margin (set_binds): the score's power term counts only
	 * racks that can bind.  rk_idle: the GPUs it powers at TDP with
	 * every GPU idle, at most all it has.  For the margin binds_margin
	 * (NAN: not set). */
	bool *rk_binds;
	int64_t *rk_idle;
	double binds_margin;
	/* per rack, for set_binds (from the estimate with every GPU idle):
	 * min(PowerCapKW, CoolingKW) in W (NAN: no estimate or no limit), the
	 * idle draw, its GPUs and the most watts one of them adds at TDP */
	double *rk_limit, *rk_used, *rk_w;
	int64_t *rk_all;
	/* what the scoring callback computed, so keeping a candidate does not
	 * evaluate it again: memo[seq] is valid when memo_gen[seq] == gen */
	gp_scored_t memo[MEMO];
	uint32_t memo_gen[MEMO];
	uint32_t gen;
	/* compactness against the site's Slurm (slurm_bound()): per switch
	 * the units (nodes or GPUs) its subtree can give the job, and the
	 * leaves topology/tree would take; the most GPUs of one block */
	int64_t *sw_units;
	int32_t *sw_mark;
	int64_t block_gpus;
};

int gp__engine_create(const gp_cluster_t *c, gp_engine_t **out, gp_error_t *err)
{
	gp_engine_t *e;
	int32_t i;
	int rc;

	if (!out)
		return gp__errorf(err, GP_EINVAL, "engine: no output");
	*out = NULL;
	if (!c)
		return gp__errorf(err, GP_EINVAL, "engine: no cluster");
	if (!(e = calloc(1, sizeof(*e))))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	e->c = c;
	if ((rc = gp__search_ws_create(c, KMAX, &e->ws, err)))
		goto error;
	/* the cost model's scratch, grown for larger jobs as they come: made
	 * here, it reads the cluster's nodes when the engine is made, not in
	 * the first decision */
	if ((rc = gp__cost_scratch_new(c, 8, &e->scratch))) {
		gp__errorf(err, rc, "engine: cost model scratch: %s", gp_strerror(rc));
		goto error;
	}
	e->scratch_gpus = 8;
	if ((rc = gp_state_create(c, &e->work)) || (rc = gp_state_create(c, &e->empty))) {
		gp__errorf(err, rc, "engine: %s", gp_strerror(rc));
		goto error;
	}
	/* pages written now, not in the first decision that copies a state
	 * into work (calloc()'s zero pages are mapped on first write) */
	memset(e->work->node_flags, 0, (size_t)c->nnodes * sizeof(*e->work->node_flags));
	memset(e->work->alloc_mask, 0, (size_t)c->nnodes * sizeof(*e->work->alloc_mask));
	e->cap_gpus = calloc((size_t)c->nparts + 1, sizeof(*e->cap_gpus));
	e->cap_nodes = calloc((size_t)c->nparts + 1, sizeof(*e->cap_nodes));
	e->cap_per_node = calloc((size_t)c->nparts + 1, sizeof(*e->cap_per_node));
	e->rack_w = calloc((size_t)c->nracks + 1, sizeof(*e->rack_w));
	e->rack_free = calloc((size_t)c->nracks + 1, sizeof(*e->rack_free));
	e->rack_wcap = calloc((size_t)c->nracks + 1, sizeof(*e->rack_wcap));
	e->budget = calloc((size_t)c->nracks + 1, sizeof(*e->budget));
	e->head = calloc((size_t)c->nracks + 1, sizeof(*e->head));
	e->fut = calloc((size_t)c->nracks + 1, sizeof(*e->fut));
	e->nowr = calloc((size_t)c->nracks + 1, sizeof(*e->nowr));
	e->idle = calloc((size_t)c->nracks + 1, sizeof(*e->idle));
	e->npw = calloc((size_t)c->nnodes + 1, sizeof(*e->npw));
	e->chg = calloc((size_t)c->nracks + 1, sizeof(*e->chg));
	e->chg_mark = calloc((size_t)c->nracks + 1, sizeof(*e->chg_mark));
	e->rk_slot = calloc((size_t)c->nracks + 1, sizeof(*e->rk_slot));
	e->rk_mark = calloc((size_t)c->nracks + 1, sizeof(*e->rk_mark));
	e->rk_binds = calloc((size_t)c->nracks + 1, sizeof(*e->rk_binds));
	e->rk_idle = calloc((size_t)c->nracks + 1, sizeof(*e->rk_idle));
	e->rk_limit = calloc((size_t)c->nracks + 1, sizeof(*e->rk_limit));
	e->rk_used = calloc((size_t)c->nracks + 1, sizeof(*e->rk_used));
	e->rk_w = calloc((size_t)c->nracks + 1, sizeof(*e->rk_w));
	e->rk_all = calloc((size_t)c->nracks + 1, sizeof(*e->rk_all));
	e->binds_margin = NAN;
	e->sw_units = calloc((size_t)c->nswitches + 1, sizeof(*e->sw_units));
	e->sw_mark = calloc((size_t)c->nswitches + 1, sizeof(*e->sw_mark));
	if (!e->sw_units || !e->sw_mark) {
		rc = gp__errorf(err, GP_ENOMEM, "out of memory");
		goto error;
	}
	for (i = 0; i < c->nblocks; i++) {
		int64_t g = 0;
		int32_t k;

		for (k = 0; k < c->blocks[i].nnodes; k++)
			g += c->nodes[c->blocks[i].nodes[k]].ngpus;
		if (g > e->block_gpus)
			e->block_gpus = g;
	}
	if (!e->cap_gpus || !e->cap_nodes || !e->cap_per_node || !e->rack_w || !e->rack_free ||
	    !e->rack_wcap ||
	    !e->budget || !e->head || !e->fut || !e->nowr || !e->idle || !e->npw || !e->chg ||
	    !e->chg_mark || !e->rk_slot || !e->rk_mark || !e->rk_binds || !e->rk_limit ||
	    !e->rk_used || !e->rk_w || !e->rk_all || !e->rk_idle) {
		rc = gp__errorf(err, GP_ENOMEM, "out of memory");
		goto error;
	}
	/* what set_binds needs of each rack, once: O(nodes) */
	for (i = 0; i < c->nracks; i++) {
		const gp_rack_t *rk = &c->racks[i];
		gp_power_headroom_t h;
		int32_t j;

		e->rk_limit[i] = NAN;
		if (gp__power_headroom(c, NULL, NULL, i, 0, 0, &h) != GP_OK ||
		    !isfinite(fmin(h.cap_w, h.cooling_w)))
			continue;
		e->rk_limit[i] = fmin(h.cap_w, h.cooling_w);
		e->rk_used[i] = h.used_w;
		for (j = 0; j < rk->nnodes; j++) {
			int32_t v = rk->nodes[j];
			int64_t g;

			if (v < 0 || v >= c->nnodes || c->nodes[v].rack != i || c->nodes[v].ngpus <= 0)
				continue;
			e->rk_all[i] += c->nodes[v].ngpus;
			if ((g = gp__lic_gpu_watts(c, v, 1)) > e->rk_w[i])
				e->rk_w[i] = (double)g;
		}
	}
	for (i = 0; i < c->nnodes; i++) {
		const gp_node_t *nd = &c->nodes[i];
		int32_t q;

		e->npw[i].rack = -1;
		if (nd->rack >= 0 && nd->rack < c->nracks && nd->profile >= 0 &&
		    nd->profile < c->nprofiles) {
			e->npw[i].rack = nd->rack;
			e->npw[i].prof = nd->profile;
			e->npw[i].w = c->profiles[nd->profile].tdp_w - c->profiles[nd->profile].idle_w;
		}
		if (nd->ngpus <= 0)
			continue;
		if (nd->rack >= 0 && nd->rack < c->nracks && nd->profile >= 0 &&
		    nd->profile < c->nprofiles) {
			const gp_gpu_profile_t *pr = &c->profiles[nd->profile];
			double wt = pr->tdp_w - pr->idle_w;
			double wc = (pr->min_cap_w > 0 ? pr->min_cap_w : pr->tdp_w / 2) - pr->idle_w;

			e->rack_w[nd->rack] = fmax(e->rack_w[nd->rack], wt);
			e->rack_wcap[nd->rack] = fmax(e->rack_wcap[nd->rack], wc);
		}
		for (q = 0; q <= c->nparts; q++) {
			if (q < c->nparts && !gp__node_in_part(c, i, q))
				continue;
			e->cap_gpus[q] += nd->ngpus;
			e->cap_nodes[q]++;
			if (nd->ngpus > e->cap_per_node[q])
				e->cap_per_node[q] = nd->ngpus;
		}
	}
	*out = e;
	return GP_OK;
error:
	gp__engine_destroy(e);
	return rc;
}

void gp__engine_destroy(gp_engine_t *e)
{
	if (!e)
		return;
	gp__search_ws_destroy(e->ws);
	gp__cost_scratch_destroy(e->scratch);
	gp_state_destroy(e->work);
	gp_state_destroy(e->empty);
	free(e->cap_gpus);
	free(e->cap_nodes);
	free(e->cap_per_node);
	free(e->rack_w);
	free(e->rack_free);
	free(e->rack_wcap);
	free(e->budget);
	free(e->head);
	free(e->fut);
	free(e->nowr);
	free(e->idle);
	free(e->ends);
	free(e->times);
	free(e->rel);
	free(e->hz);
	free(e->hist);
	free(e->npw);
	free(e->chg);
	free(e->chg_mark);
	free(e->rk_slot);
	free(e->rk_mark);
	free(e->rk_binds);
	free(e->rk_idle);
	free(e->rk_limit);
	free(e->rk_used);
	free(e->rk_w);
	free(e->rk_all);
	free(e->sw_units);
	free(e->sw_mark);
	free(e);
}

void gp__decision_clear(gp_decision_t *d)
{
	int32_t i;

	if (!d)
		return;
	for (i = 0; i < d->ncands; i++) {
		free(d->cands[i].nodes);
		free(d->cands[i].gpu_mask);
	}
	free(d->cands);
	memset(d, 0, sizeof(*d));
}

const char *gp__decision_kind_name(gp_decision_kind_t k)
{
	switch (k) {
	case GP_DECIDE_PIN: return "PIN";
	case GP_DECIDE_CONSTRAIN: return "CONSTRAIN";
	case GP_DECIDE_REJECT: return "REJECT";
	default: return "?";
	}
}

/* ---- power ---------------------------------------------------------------- */

void gp__power_view_fill(const gp_cluster_t *c, const gp_state_t *s,
                         const struct gp_power_snapshot *snap, const gp_policy_t *p,
                         double now, gp_rack_view_t *racks)
{
	gp_power_headroom_t *h = malloc(((size_t)c->nracks + 1) * sizeof(*h));
	int32_t r;

	for (r = 0; r < c->nracks; r++) {
		racks[r].headroom_w = INFINITY;
		racks[r].raw_w = INFINITY;
		racks[r].cooling_binds = false;
	}
	if (!h || gp__power_headroom_all(c, s, snap, now, h) != GP_OK) {
		free(h);
		return; /* no limit known is the engine's safe default: fail open */
	}
	for (r = 0; r < c->nracks; r++) {
		double limit = fmin(h[r].cap_w, h[r].cooling_w) * (1.0 - p->power_margin);

		racks[r].raw_w = limit - h[r].used_w;
		racks[r].headroom_w = fmax(0.0, racks[r].raw_w);
		racks[r].cooling_binds = h[r].binding == GP_LIMIT_COOLING;
	}
	free(h);
}

void gp__power_view_apply(const gp_cluster_t *c, gp_rack_view_t *racks, const int32_t *nodes,
                          const uint32_t *masks, int32_t n, double load, int sign)
{
	int32_t i;

	if (!c || !racks || !nodes || !masks)
		return;
	if (!(load > 0) || load > 1)
		load = 1.0;
	for (i = 0; i < n; i++) {
		const gp_node_t *nd;
		gp_rack_view_t *rv;
		double per;

		if (nodes[i] < 0 || nodes[i] >= c->nnodes)
			continue;
		nd = &c->nodes[nodes[i]];
		if (nd->rack < 0 || nd->rack >= c->nracks)
			continue;
		rv = &racks[nd->rack];
		if (!(rv->raw_w < INFINITY))
			continue;
		/* as the estimate: idle -> idle + load (TDP - idle); unknown GPU
		 * types count the same watts busy or idle (power/power.h) */
		per = nd->profile >= 0 && nd->profile < c->nprofiles ?
		      load * (c->profiles[nd->profile].tdp_w - c->profiles[nd->profile].idle_w) : 0.0;
		rv->raw_w -= sign * gp__popcount(masks[i]) * per;
		rv->headroom_w = fmax(0.0, rv->raw_w);
	}
}

double gp__power_view_cap_speed(const gp_gpu_profile_t *prof, double cap_w)
{
	return gp__power_cap_speed(prof, cap_w);
}

/* ---- evaluation of one node set ----------------------------------------- */

struct eval_ctx {
	gp_engine_t *e;
	const gp_job_profile_t *job;
	const gp_policy_t *p;
	const gp_power_view_t *pv;
	double ideal;
	/* search_future on a topology/block site: the sets Slurm takes as
	 * required nodes only (gp__block_pin_ok with this --segment, 0 none;
	 * segments also inside one leaf switch), -1 any set */
	int32_t block_seg;
};

static double default_cap_speed(const gp_gpu_profile_t *prof, double cap_w)
{
	/* Assumption, no published H100 training curve (notes/calibration.md
	 * 4): speed proportional to the cap.  Conservative: measured curves
	 * flatten near TDP, so real slowdowns are smaller. */
	return prof->tdp_w > 0 ? fmin(1.0, cap_w / prof->tdp_w) : 1.0;
}

/*
 * Projected use of rack r with the job's w watts on it, as a fraction of
 * the rack's binding limit min(PowerCapKW, CoolingKW): its draw (the limit
 * less the policy's margin less the view's unfloored headroom, i.e. the
 * draw the view was filled from) plus w.  A rack without a limit in the
 * model (a view written by hand) counts its headroom as the whole limit.
 */
static double rack_use(const gp_cluster_t *c, const gp_policy_t *p, int32_t r,
                       const gp_rack_view_t *rv, double w)
{
	const gp_rack_t *rk = &c->racks[r];
	double cap = rk->power_cap_kw > 0 ? rk->power_cap_kw * 1000.0 : INFINITY;
	double cool = rk->cooling_kw > 0 ? rk->cooling_kw * 1000.0 : INFINITY;
	double limit = fmin(cap, cool), draw;

	if (!isfinite(limit) || !isfinite(rv->raw_w))
		return rv->headroom_w > 0 ? w / rv->headroom_w : INFINITY;
	draw = limit * (1.0 - p->power_margin) - rv->raw_w;
	return (fmax(0.0, draw) + w) / limit;
}

/*
 * Which racks can be short of power (e->rk_binds), for the policy's margin:
 * a rack whose estimated draw with every GPU it has at TDP stays within
 * min(PowerCapKW, CoolingKW) less the margin never is (as
 * gp__power_rack_tdp_gpus counts the GPUs its idle headroom powers: all of
 * them).  A rack without an estimate or a limit counts as one that can.
 * O(racks) when the margin changes (the engine's per-rack figures are
 * read once, gp__engine_create), else nothing.
 */
static void set_binds(gp_engine_t *e, double margin)
{
	int32_t r;

	if (e->binds_margin == margin)
		return;
	for (r = 0; r < e->c->nracks; r++) {
		int64_t g;

		e->rk_idle[r] = e->rk_all[r];
		if (isnan(e->rk_limit[r])) {
			e->rk_binds[r] = true;
			continue;
		}
		if (e->rk_w[r] <= 0) {
			e->rk_binds[r] = false; /* no GPU watts known: none to power */
			continue;
		}
		g = gp__power_gpus_powered(e->rk_limit[r] * (1.0 - margin) - e->rk_used[r],
		                           e->rk_w[r]);
		e->rk_binds[r] = g < e->rk_all[r];
		if (e->rk_binds[r])
			e->rk_idle[r] = g;
	}
	e->binds_margin = margin;
}

/*
 * The score's power term for a set whose most loaded rack reaches `use`
 * of its limit: 0 up to the policy's knee (policy.c says why 0.8), then
 * quadratic, ((use - knee) / (1 - knee))^2 / (1 - knee): 5 at the limit
 * with the 0.8 knee, i.e. w_power x 5 (5 for power-save, balanced has none)
 * where the old linear term gave w_power x 1, and 0 where racks are not
 * short of power, so no job is spread over leaves or racks for power that
 * does not bind.
 */
static double power_term(const gp_policy_t *p, double use)
{
	double knee = p->power_knee, x;

	if (!(use > knee))
		return 0.0;
	if (knee >= 1.0)
		return 0.0;
	x = (fmin(use, 2.0) - knee) / (1.0 - knee);
	return x * x / (1.0 - knee);
}

/* Fill sc (not its node arrays) for the set nodes/mask. */
static int evaluate(const struct eval_ctx *x, const int32_t *nodes, const uint32_t *mask,
                    int32_t n, gp_scored_t *sc)
{
	gp_engine_t *e = x->e;
	const gp_cluster_t *c = e->c;
	gp_placement_t pl = { n, nodes, mask };
	struct { int32_t rack; double w; int32_t gpus; double idle, tdp, min_cap;
	         const gp_gpu_profile_t *prof; } rk[MAX_RACKS_PER_SET];
	int32_t nrk = 0, i, j;
	double speed = 1.0, bind_use = 0.0;
	gp_error_t err;
	int rc;

	sc->feasible = true;
	sc->why_not[0] = '\0';
	sc->cap_w = 0;
	sc->cap_speed = 1.0;
	sc->power_use = 0;
	sc->rack_use = 0;
	rc = gp__cost_eval(c, x->job, &pl, x->e->scratch, x->ideal, &sc->cost, &err);
	if (rc != GP_OK) {
		if (rc == GP_ENOMEM || rc == GP_ELIMIT)
			return rc;
		sc->feasible = false;
		snprintf(sc->why_not, sizeof(sc->why_not), "%.150s", err.text);
		sc->score = INFEASIBLE;
		return GP_OK;
	}
	/* power: the job's GPUs above idle, per rack (in the order the set
	 * first touches them), against the headroom; npw holds the
	 * engine's compact copies of the node's rack, profile and its GPUs'
	 * watts above idle (-1: no rack or no GPU type, as before) */
	if (++e->rk_gen == 0) {
		memset(e->rk_mark, 0, ((size_t)c->nracks + 1) * sizeof(*e->rk_mark));
		e->rk_gen = 1;
	}
	for (i = 0; i < n; i++) {
		int32_t v = nodes[i], rack = e->npw[v].rack;
		int32_t g = gp__popcount(mask[i]);

		if (rack < 0)
			continue;
		if (e->rk_mark[rack] == e->rk_gen) {
			j = e->rk_slot[rack];
		} else {
			const gp_gpu_profile_t *prof = &c->profiles[e->npw[v].prof];

			if (nrk == MAX_RACKS_PER_SET)
				continue;
			j = nrk++;
			e->rk_mark[rack] = e->rk_gen;
			e->rk_slot[rack] = j;
			memset(&rk[j], 0, sizeof(rk[j]));
			rk[j].rack = rack;
			rk[j].prof = prof;
			rk[j].idle = prof->idle_w;
			rk[j].tdp = prof->tdp_w;
			rk[j].min_cap = prof->min_cap_w > 0 ? prof->min_cap_w : prof->tdp_w / 2;
		}
		rk[j].w += g * e->npw[v].w;
		rk[j].gpus += g;
	}
	for (j = 0; x->pv && x->pv->racks && j < nrk; j++) {
		const gp_rack_view_t *rv = &x->pv->racks[rk[j].rack];
		double share;

		if (!isfinite(rv->headroom_w) || rk[j].w <= 0)
			continue;
		share = rv->headroom_w > 0 ? rk[j].w / rv->headroom_w : INFINITY;
		{
			double u = rack_use(c, x->p, rk[j].rack, rv, rk[j].w);

			sc->rack_use = fmax(sc->rack_use, u);
			/* a rack that powers all its GPUs at TDP is never short:
			 * no job is steered away from it for power (its use
			 * still shows in rack_use) */
			if (e->rk_binds[rk[j].rack] || share > 1.0)
				bind_use = fmax(bind_use, u);
		}
		if (share <= 1.0) {
			sc->power_use = fmax(sc->power_use, share);
			continue;
		}
		if (x->p->allow_power_cap && rk[j].gpus > 0 && rv->headroom_w > 0) {
			double cap = rk[j].idle + rv->headroom_w / rk[j].gpus;

			if (cap >= rk[j].min_cap) {
				double sp = x->pv->cap_speed ? x->pv->cap_speed(rk[j].prof, cap)
				                             : default_cap_speed(rk[j].prof, cap);

				if (sp < speed) {
					speed = sp;
					sc->cap_w = cap;
				}
				sc->power_use = 1.0;
				continue;
			}
		}
		sc->feasible = false;
		snprintf(sc->why_not, sizeof(sc->why_not),
		         "rack %s: the job adds %.0f W, %s headroom is %.0f W",
		         c->racks[rk[j].rack].name, rk[j].w, rv->cooling_binds ? "cooling" : "power",
		         rv->headroom_w);
		break;
	}
	if (speed < 1.0) {
		/* the slowest (capped) GPU gates every synchronous step */
		sc->cap_speed = speed;
		sc->cost.compute_s /= speed;
		sc->cost.step_s = sc->cost.compute_s + sc->cost.exposed_s;
		sc->cost.overhead = sc->cost.step_s > 0 ? sc->cost.exposed_s / sc->cost.step_s : 0;
		if (sc->cost.ideal_step_s > 0)
			sc->cost.slowdown = sc->cost.step_s / sc->cost.ideal_step_s;
	}
	if (sc->feasible && sc->cost.overhead > x->p->max_overhead + 1e-12) {
		sc->feasible = false;
		snprintf(sc->why_not, sizeof(sc->why_not),
		         "communication overhead %.1f %% is above the policy's maximum %.1f %%",
		         100 * sc->cost.overhead, 100 * x->p->max_overhead);
	}
	sc->hops = sc->cost.hops;
	sc->s_step = x->p->w_step * fmax(0.0, sc->cost.slowdown - 1.0);
	sc->s_power = x->p->w_power * power_term(x->p, bind_use);
	sc->score = sc->s_step + sc->s_power; /* + s_frag, added by the caller */
	if (!sc->feasible)
		sc->score = INFEASIBLE + sc->cost.slowdown;
	return GP_OK;
}

static int score_cb(void *arg, const gp_candidate_t *cd, double *score)
{
	const struct eval_ctx *x = arg;
	gp_engine_t *e = x->e;
	gp_scored_t sc;
	int rc;

	memset(&sc, 0, sizeof(sc));
	sc.s_frag = x->p->w_frag * cd->frag / 100.0;
	if ((rc = evaluate(x, cd->nodes, cd->gpu_mask, cd->nnodes, &sc)))
		return rc;
	sc.score += sc.feasible ? sc.s_frag : 0.0;
	if (cd->seq < MEMO) {
		e->memo[cd->seq] = sc;
		e->memo_gen[cd->seq] = e->gen;
	}
	*score = sc.score;
	return GP_OK;
}

/* Copy a found candidate into the decision's list with its breakdown. */
static int keep(const struct eval_ctx *x, const gp_candidate_t *cd, bool future, gp_decision_t *d)
{
	gp_scored_t *sc, *grown;
	int rc;

	grown = realloc(d->cands, ((size_t)d->ncands + 1) * sizeof(*d->cands));
	if (!grown)
		return GP_ENOMEM;
	d->cands = grown;
	sc = &d->cands[d->ncands];
	memset(sc, 0, sizeof(*sc));
	sc->nodes = malloc((size_t)cd->nnodes * sizeof(*sc->nodes));
	sc->gpu_mask = malloc((size_t)cd->nnodes * sizeof(*sc->gpu_mask));
	if (!sc->nodes || !sc->gpu_mask) {
		free(sc->nodes);
		free(sc->gpu_mask);
		return GP_ENOMEM;
	}
	d->ncands++;
	memcpy(sc->nodes, cd->nodes, (size_t)cd->nnodes * sizeof(*sc->nodes));
	memcpy(sc->gpu_mask, cd->gpu_mask, (size_t)cd->nnodes * sizeof(*sc->gpu_mask));
	sc->nnodes = cd->nnodes;
	sc->ngpus = cd->ngpus;
	sc->kind = cd->kind;
	sc->domain = cd->domain;
	sc->nleaves = cd->nleaves;
	sc->nracks = cd->nracks;
	sc->frag = cd->frag;
	sc->future = future;
	sc->s_frag = x->p->w_frag * cd->frag / 100.0;
	if (cd->seq < MEMO && x->e->memo_gen[cd->seq] == x->e->gen) {
		const gp_scored_t *m = &x->e->memo[cd->seq];

		sc->cost = m->cost;
		sc->power_use = m->power_use;
		sc->rack_use = m->rack_use;
		sc->cap_w = m->cap_w;
		sc->cap_speed = m->cap_speed;
		sc->s_step = m->s_step;
		sc->s_power = m->s_power;
		sc->score = m->score;
		sc->feasible = m->feasible;
		sc->hops = m->hops;
		memcpy(sc->why_not, m->why_not, sizeof(sc->why_not));
		return GP_OK;
	}
	if ((rc = evaluate(x, sc->nodes, sc->gpu_mask, sc->nnodes, sc)))
		return rc;
	sc->score += sc->feasible ? sc->s_frag : 0.0;
	return GP_OK;
}

/* ---- states ------------------------------------------------------------- */

static void state_copy(gp_state_t *dst, const gp_state_t *src, int32_t nnodes)
{
	if (src) {
		memcpy(dst->node_flags, src->node_flags, (size_t)nnodes * sizeof(*dst->node_flags));
		memcpy(dst->alloc_mask, src->alloc_mask, (size_t)nnodes * sizeof(*dst->alloc_mask));
		dst->time = src->time;
	} else {
		memset(dst->node_flags, 0, (size_t)nnodes * sizeof(*dst->node_flags));
		memset(dst->alloc_mask, 0, (size_t)nnodes * sizeof(*dst->alloc_mask));
	}
}

/*
 * Partial order v[0..n) by end time so that v[k] is the k-th earliest,
 * everything before it no later and everything after no earlier (Hoare's
 * selection, O(n) expected; the middle element as pivot).
 */
static void select_kth(int64_t *v, int32_t n, int32_t k)
{
	int32_t lo = 0, hi = n - 1;

	while (lo < hi) {
		int64_t pivot = v[lo + (hi - lo) / 2], t;
		int32_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

/*
 * Every running job's end time, in the state's job order, in e->ends
 * (e->nends): one pass over the state's jobs per decision, which both the
 * release of overdue jobs and the wait path then read (8 bytes per job
 * instead of gp_job_alloc_t's 48, and the jobs' memory once).  In the same
 * pass, the jobs that end by lim (e->hz): the wait path reads only those,
 * where a pass over every job's end time of its own cost it more than its
 * search (by then the now search has pushed the end times out of the
 * cache).  Returns whether a job is overdue (ended by now), or a gp_err
 * code.
 */
static int64_t horizon_end(int64_t now, double horizon)
{
	return horizon < 9e15 ? now + (int64_t)horizon : INT64_MAX;
}

static int read_ends(gp_engine_t *e, const gp_state_t *s, int64_t now, int64_t lim)
{
	int32_t i;
	bool overdue = false;

	e->nends = 0;
	if (s->njobs >= e->ends_cap) {
		int64_t *grown = realloc(e->ends, ((size_t)s->njobs + 1) * sizeof(*grown));
		int64_t *tg;
		int32_t *rg;

		if (!grown)
			return GP_ENOMEM;
		e->ends = grown;
		if (!(tg = realloc(e->times, ((size_t)s->njobs + 1) * sizeof(*tg))))
			return GP_ENOMEM;
		e->times = tg;
		if (!(rg = realloc(e->rel, ((size_t)s->njobs + 1) * sizeof(*rg))))
			return GP_ENOMEM;
		e->rel = rg;
		if (!(rg = realloc(e->hz, ((size_t)s->njobs + 1) * sizeof(*rg))))
			return GP_ENOMEM;
		e->hz = rg;
		e->ends_cap = s->njobs + 1;
	}
	e->nhz = 0;
	for (i = 0; i < s->njobs; i++) {
		int64_t et = s->jobs[i].end_time;

		e->ends[i] = et;
		overdue |= et <= now;
		e->hz[e->nhz] = i;
		e->nhz += et <= lim;
	}
	e->nends = s->njobs;
	e->hz_lim = lim;
	e->hz_valid = true;
	return overdue;
}

/* Free job ja's GPUs in e->work and, with power, its draw above idle in
 * e->fut (the estimate the power model uses, power/power.h). */
static void release_job(gp_engine_t *e, const gp_job_alloc_t *ja, bool power)
{
	const gp_cluster_t *c = e->c;
	double load = ja->load > 0 && ja->load <= 1 ? ja->load : 1.0;
	int32_t i;

	for (i = 0; i < ja->nnodes; i++) {
		int32_t v = ja->nodes[i], rk;

		if (v < 0 || v >= c->nnodes)
			continue;
		e->work->alloc_mask[v] &= ~ja->gpu_mask[i];
		gp__search_ws_changed(e->ws, v);
		if (!power)
			continue;
		rk = e->npw[v].rack;
		if (rk < 0 || !(e->fut[rk].headroom_w < INFINITY))
			continue;
		e->fut[rk].headroom_w += gp__popcount(ja->gpu_mask[i]) * load * e->npw[v].w;
		if (e->chg_mark[rk] != e->chg_gen) {
			e->chg_mark[rk] = e->chg_gen;
			e->chg[e->nchg++] = rk;
		}
	}
}

/* Give racks[] back the draw above idle of job ja (its load, as
 * gp__power_view_fill estimates it): it has ended. */
static void release_power(const gp_engine_t *e, const gp_job_alloc_t *ja, gp_rack_view_t *racks)
{
	double load = ja->load > 0 && ja->load <= 1 ? ja->load : 1.0;
	int32_t i;

	for (i = 0; i < ja->nnodes; i++) {
		int32_t v = ja->nodes[i], rk;
		double w;

		if (v < 0 || v >= e->c->nnodes || (rk = e->npw[v].rack) < 0 ||
		    !(racks[rk].headroom_w < INFINITY))
			continue;
		w = gp__popcount(ja->gpu_mask[i]) * load * e->npw[v].w;
		racks[rk].headroom_w += w;
		if (racks[rk].raw_w < INFINITY)
			racks[rk].raw_w += w;
	}
}

/* ---- domain features for CONSTRAIN --------------------------------------- */

static void add_alternative(const gp_cluster_t *c, const gp_scored_t *sc, char *out, size_t len,
                            int *nalts)
{
	char feat[GP_NAME_MAX + 16], probe[GP_NAME_MAX + 18];
	size_t used = strlen(out);
	int rc;

	if (sc->kind == GP_DOM_NVL && sc->domain >= 0)
		rc = gp__domain_feature(GP_FEATURE_NVL, c->nvl[sc->domain].name, feat, sizeof(feat));
	else if (sc->kind == GP_DOM_SWITCH && sc->domain >= 0 && c->switches[sc->domain].parent >= 0)
		rc = gp__domain_feature(GP_FEATURE_SWITCH, c->switches[sc->domain].name, feat, sizeof(feat));
	else
		return; /* the whole cluster: no domain to keep the job in */
	if (rc)
		return;
	snprintf(probe, sizeof(probe), "|%s|", feat);
	if (*nalts && strstr(out, probe))
		return;
	if (used + strlen(feat) + 3 >= len)
		return;
	snprintf(out + used, len - used, "%s%s|", *nalts ? "" : "|", feat);
	(*nalts)++;
}

/* Every switch at the level of sc's domain whose subtree has r's GPUs,
 * as alternatives after those in out (add_alternative). */
static void add_level_alternatives(const gp_cluster_t *c, const gp_request_t *r,
                                   const gp_scored_t *sc, char *out, size_t len, int *nalts)
{
	int32_t lv = c->switches[sc->domain].level, sw, i;

	for (sw = 0; sw < c->nswitches; sw++) {
		const gp_switch_t *w = &c->switches[sw];
		gp_scored_t alt;
		int64_t g = 0;

		if (w->level != lv || w->disconnected || sw == sc->domain)
			continue;
		for (i = w->first; i < w->first + w->count && g < r->gpus; i++)
			g += c->nodes[c->node_order[i]].ngpus;
		if (g < r->gpus)
			continue;
		alt = *sc;
		alt.domain = sw;
		add_alternative(c, &alt, out, len, nalts);
	}
}

/* Every other cross-node NVLink domain with r's GPUs, as alternatives
 * after those in out (add_alternative). */
static void add_nvl_alternatives(const gp_cluster_t *c, const gp_request_t *r,
                                 const gp_scored_t *sc, char *out, size_t len, int *nalts)
{
	int32_t v, i;

	for (v = 0; v < c->nnvl; v++) {
		gp_scored_t alt;
		int64_t g = 0;

		if (v == sc->domain)
			continue;
		for (i = 0; i < c->nvl[v].nnodes && g < r->gpus; i++)
			g += c->nodes[c->nvl[v].nodes[i]].ngpus;
		if (g < r->gpus)
			continue;
		alt = *sc;
		alt.domain = v;
		add_alternative(c, &alt, out, len, nalts);
	}
}

/* "|a|b|" -> "[a|b]" or "a"; "" stays "". */
static void finish_alternatives(char *buf, size_t len, int nalts)
{
	char tmp[1024];
	size_t n = strlen(buf);

	if (!nalts) {
		buf[0] = '\0';
		return;
	}
	buf[n - 1] = '\0';
	if (nalts == 1)
		snprintf(tmp, sizeof(tmp), "%s", buf + 1);
	else
		snprintf(tmp, sizeof(tmp), "[%s]", buf + 1);
	snprintf(buf, len, "%s", tmp);
}

/* ---- the decision ------------------------------------------------------- */

static int search_and_keep(const struct eval_ctx *x, const gp_state_t *st, const gp_request_t *r,
                           int k, bool future, gp_decision_t *d, gp_error_t *serr)
{
	const gp_candidate_t *cands;
	int ncands = 0, i, rc;

	if (++x->e->gen == 0) { /* wrapped: forget every memo */
		memset(x->e->memo_gen, 0, sizeof(x->e->memo_gen));
		x->e->gen = 1;
	}
	rc = gp__candidates_search(x->e->c, st, r, k, score_cb, (void *)x, x->e->ws, &cands, &ncands,
	                           serr);
	if (rc)
		return rc;
	for (i = 0; i < ncands; i++)
		if ((rc = keep(x, &cands[i], future, d)))
			return rc;
	return GP_OK;
}

/*
 * Power as a constraint of the search: each rack may give the job only the
 * GPUs its headroom powers, headroom / (watts one of its GPUs adds above
 * idle), at TDP or, when at_cap, at the GPUs' lowest settable cap.  racks
 * NULL removes the limit.  Every set the search then makes fits the racks
 * (evaluate() still checks, and scores the share of headroom it takes).
 */
static inline void rack_budget(gp_engine_t *e, const gp_rack_view_t *racks, bool at_cap,
                               int32_t q)
{
	double w = at_cap ? e->rack_wcap[q] : e->rack_w[q], h = racks[q].headroom_w;

	if (!(h < INFINITY) || !(w > 0))
		e->budget[q] = -1;
	else if (!(h > 0))
		e->budget[q] = 0;
	else
		/* h / w > 0 here, where truncation is floor() without the libm
		 * call (one per rack and search) */
		e->budget[q] = h / w >= 1e6 ? 1000000 : (int32_t)(h / w + 1e-9);
	e->head[q] = h;
}

/* Forget the racks marked as changed. */
static void chg_clear(gp_engine_t *e)
{
	e->nchg = 0;
	if (++e->chg_gen == 0) {
		memset(e->chg_mark, 0, ((size_t)e->c->nracks + 1) * sizeof(*e->chg_mark));
		e->chg_gen = 1;
	}
}

static void set_budget(gp_engine_t *e, const gp_rack_view_t *racks, bool at_cap)
{
	const gp_cluster_t *c = e->c;
	int32_t q;

	e->budget_fut = false;
	e->budget_view = racks;
	e->budget_tdp = !at_cap;
	if (!racks || c->nracks == 0) {
		gp__search_ws_set_rack_budget(e->ws, NULL, NULL);
		return;
	}
	for (q = 0; q < c->nracks; q++)
		rack_budget(e, racks, at_cap, q);
	gp__search_ws_set_rack_budget(e->ws, e->budget, e->head);
}

/* The TDP budgets of e->fut: only the racks whose headroom changed when
 * the budgets already are e->fut's but for them (one division per changed
 * rack, not per rack of the cluster, at each future point). */
static void set_budget_fut(gp_engine_t *e)
{
	int32_t k;

	if (!e->budget_fut) {
		set_budget(e, e->fut, false);
	} else {
		for (k = 0; k < e->nchg; k++)
			rack_budget(e, e->fut, false, e->chg[k]);
		gp__search_ws_set_rack_budget(e->ws, e->budget, e->head);
	}
	/* the budgets are e->fut's now, not the view's a later search of
	 * the future starts from (it would count them as that view's) */
	e->budget_view = e->fut;
	e->budget_fut = true;
	chg_clear(e);
}

/*
 * GPUs of the job's innermost parallel group when it is on the critical
 * path (tensor or context parallel: ranks next to each other, which the
 * cost model lays out node by node), whole nodes' worth when it is larger
 * than a node: what the search keeps on one node
 * (gp__search_ws_set_granule).  1 when the innermost dimension is data or
 * pipeline parallel, or none is hinted.
 */
static int32_t job_granule(const gp_engine_t *e, const gp_job_profile_t *job)
{
	const int8_t *order = gp__job_profile_order(job);
	int32_t gpn = e->cap_per_node[e->c->nparts], g, i;

	for (i = 0; i < 4; i++) {
		int d = order[i];

		if (d < 0 || d >= GP_NDIMS || job->deg[d] <= 1)
			continue;
		if (d != GP_DIM_TP && d != GP_DIM_CP)
			return 1;
		g = job->deg[d];
		if (gpn > 0 && g > gpn)
			g = g % gpn ? 1 : gpn; /* groups of whole nodes */
		return g;
	}
	return 1;
}

static int32_t first_feasible(const gp_decision_t *d, int32_t from)
{
	int32_t i;

	for (i = from; i < d->ncands; i++)
		if (d->cands[i].feasible)
			return i;
	return -1;
}

/* The first feasible candidate from index from on that topology/block
 * takes as required nodes with --segment seg (0 none: inside one block);
 * with seg, one that it cuts over several blocks, all under one leaf
 * switch (the job stays on one InfiniBand leaf, segment_job).  -1 none. */
static int32_t first_block_feasible(const gp_cluster_t *c, const gp_decision_t *d, int32_t from,
                                    int32_t seg)
{
	int32_t i;

	for (i = from; i < d->ncands; i++) {
		const gp_scored_t *sc = &d->cands[i];

		if (!sc->feasible)
			continue;
		if (seg == 0 ? gp__block_pin_ok(c, sc->nodes, sc->nnodes, 0) :
		    sc->nleaves <= 1 && gp__block_pin_ok(c, sc->nodes, sc->nnodes, seg) &&
		    !gp__block_pin_ok(c, sc->nodes, sc->nnodes, 0))
			return i;
	}
	return -1;
}

static int cmp_scored(const void *a, const void *b)
{
	const gp_scored_t *x = a, *y = b;

	return x->score < y->score ? -1 : x->score > y->score;
}

static bool same_set(const gp_scored_t *a, const gp_scored_t *b)
{
	return a->nnodes == b->nnodes &&
	       !memcmp(a->nodes, b->nodes, (size_t)a->nnodes * sizeof(*a->nodes)) &&
	       !memcmp(a->gpu_mask, b->gpu_mask, (size_t)a->nnodes * sizeof(*a->gpu_mask));
}

/* Sort the candidates from index from on by score (stable for equal
 * scores: the insertion order, i.e. the search's own order), then drop
 * repeats of a set (two searches may find the same one). */
static void sort_by_score(gp_decision_t *d, int32_t from)
{
	int32_t i, j, n;

	for (i = from + 1; i < d->ncands; i++) {
		gp_scored_t t = d->cands[i];

		for (j = i; j > from && cmp_scored(&d->cands[j - 1], &t) > 0; j--)
			d->cands[j] = d->cands[j - 1];
		d->cands[j] = t;
	}
	for (i = n = from; i < d->ncands; i++) {
		for (j = from; j < n && !same_set(&d->cands[j], &d->cands[i]); j++)
			;
		if (j < n) {
			free(d->cands[i].nodes);
			free(d->cands[i].gpu_mask);
			continue;
		}
		d->cands[n++] = d->cands[i];
	}
	d->ncands = n;
}

/* Move cands[i] to the front, keeping the others' order. */
static void to_front(gp_decision_t *d, int32_t i)
{
	gp_scored_t t;

	if (i <= 0)
		return;
	t = d->cands[i];
	memmove(&d->cands[1], &d->cands[0], (size_t)i * sizeof(t));
	d->cands[0] = t;
}

static int ensure_scratch(gp_engine_t *e, int32_t gpus, gp_error_t *err)
{
	int rc;

	if (e->scratch && e->scratch_gpus >= gpus)
		return GP_OK;
	/* grown, not made anew: what the scratch keeps of the cluster (its
	 * nodes' facts, per-switch arrays) is read once per engine, and the
	 * first decision for a larger job does not read every node again */
	rc = e->scratch ? gp__cost_scratch_grow(e->scratch, gpus) :
	                  gp__cost_scratch_new(e->c, gpus, &e->scratch);
	if (rc)
		return gp__errorf(err, rc, "engine: cost model scratch for %d GPUs: %s", gpus,
		                  gp_strerror(rc));
	e->scratch_gpus = gpus;
	return GP_OK;
}

/*
 * A request no state of the cluster could ever hold (more GPUs or nodes
 * than its partition has, or more GPUs per node than any node there):
 * d becomes a REJECT saying so and true is returned.  Checked in O(1)
 * from the engine's per-partition totals, before the job's profile is
 * resolved or any scratch space is sized for its GPU count.
 */
static bool beyond_cluster(const gp_engine_t *e, const gp_request_t *r, gp_decision_t *d)
{
	const gp_cluster_t *c = e->c;
	int32_t q = gp__request_partition(r, c);
	char where[GP_NAME_MAX + 16];
	int64_t g;
	int32_t n, per;

	if (q < 0 || q >= c->nparts)
		q = c->nparts;
	g = e->cap_gpus[q];
	n = e->cap_nodes[q];
	per = e->cap_per_node[q];
	if (q < c->nparts)
		snprintf(where, sizeof(where), "partition '%s'", c->parts[q].name);
	else
		snprintf(where, sizeof(where), "this cluster");
	if (r->gpus > g)
		snprintf(d->reason, sizeof(d->reason),
		         "the job asks for %d GPUs but %s has only %lld GPUs on %d nodes; ask for "
		         "at most %lld GPUs or another partition",
		         (int)r->gpus, where, (long long)g, (int)n, (long long)g);
	else if (r->min_nodes > n)
		snprintf(d->reason, sizeof(d->reason),
		         "the job asks for at least %d nodes but %s has only %d nodes with GPUs",
		         (int)r->min_nodes, where, (int)n);
	else if (r->gpus_per_node > per)
		snprintf(d->reason, sizeof(d->reason),
		         "the job asks for %d GPUs per node but no node of %s has more than %d",
		         (int)r->gpus_per_node, where, (int)per);
	else if (r->gpus_per_node && r->gpus / r->gpus_per_node > n)
		snprintf(d->reason, sizeof(d->reason),
		         "the job needs %d nodes of %d GPUs but %s has only %d nodes with GPUs",
		         (int)(r->gpus / r->gpus_per_node), (int)r->gpus_per_node, where, (int)n);
	else
		return false;
	d->kind = GP_DECIDE_REJECT;
	return true;
}

static void plan_checkpoint(gp_engine_t *e, const gp_job_profile_t *job, const gp_request_t *r,
                            const gp_ckpt_booking_t *bookings, int32_t nbookings, gp_decision_t *d)
{
	gp_ckpt_job_t cj = { 0 };
	gp_error_t err;

	d->ckpt.storage = -1;
	d->ckpt_bytes = job->ckpt_bytes > 0 ? job->ckpt_bytes
	                : job->params > 0 ? job->params * GP_DECIDE_CKPT_BYTES_PER_PARAM : 0;
	if (d->ckpt_bytes <= 0 || d->ncands < 1)
		return;
	cj.ckpt_bytes = d->ckpt_bytes;
	/* the job's restart time (hint restart_s=), else the site's */
	cj.restart_s = job->restart_s > 0 ? job->restart_s : -1;
	/* the time limit: the job's, else its partition's MaxTime (Slurm's
	 * limit for a job that gives none); unlimited = steady state */
	cj.run_s = 0;
	if (r->time_limit_min) {
		cj.run_s = r->time_limit_min * 60.0;
	} else {
		int32_t q = gp__request_partition(r, e->c);

		if (q >= 0 && q < e->c->nparts && e->c->parts[q].max_time_min != UINT32_MAX)
			cj.run_s = e->c->parts[q].max_time_min * 60.0;
	}
	cj.nodes = d->cands[0].nodes;
	cj.nnodes = d->cands[0].nnodes;
	if (gp__ckpt_plan(e->c, &cj, bookings, nbookings, &d->ckpt, &err) != GP_OK)
		d->ckpt.storage = -1;
}

/* Free the candidates from index from on. */
static void drop_from(gp_decision_t *d, int32_t from)
{
	int32_t i;

	for (i = from; i < d->ncands; i++) {
		free(d->cands[i].nodes);
		free(d->cands[i].gpu_mask);
	}
	if (from < d->ncands)
		d->ncands = from;
}

/* Free the candidates before index n and move the rest to the front. */
static void drop_before(gp_decision_t *d, int32_t n)
{
	int32_t i;

	for (i = 0; i < n; i++) {
		free(d->cands[i].nodes);
		free(d->cands[i].gpu_mask);
	}
	memmove(d->cands, d->cands + n, (size_t)(d->ncands - n) * sizeof(*d->cands));
	d->ncands -= n;
}

/*
 * Why the racks' power keeps the job from every free set, when it does:
 * the watts one GPU adds, the rack with the most headroom and how many of
 * the job's GPUs all racks together can power.  false when power is not
 * what limits (no view, or the racks could power the whole job).
 */
static bool power_why(const gp_engine_t *e, const gp_power_view_t *pv, const gp_request_t *r,
                      char *buf, size_t len)
{
	const gp_cluster_t *c = e->c;
	int64_t total = 0;
	int32_t q, top = -1;
	double w = 0;

	if (!pv || !pv->racks || c->nracks == 0)
		return false;
	for (q = 0; q < c->nracks; q++) {
		w = fmax(w, e->rack_w[q]);
		if (e->budget[q] < 0)
			return false; /* a rack without a limit */
		total += e->budget[q];
		if (top < 0 || pv->racks[q].headroom_w > pv->racks[top].headroom_w)
			top = q;
	}
	if (top < 0 || total >= r->gpus)
		return false;
	snprintf(buf, len,
	         "rack power: a GPU adds up to %.0f W; rack %.48s has the most headroom, %.0f W "
	         "(%s), and all racks together power %lld of the job's %d GPUs",
	         w, c->racks[top].name, pv->racks[top].headroom_w,
	         pv->racks[top].cooling_binds ? "cooling binds" : "power binds", (long long)total,
	         (int)r->gpus);
	return true;
}

/*
 * The end times of the wait path's points: pts[p - 1] is the q-th
 * earliest of times[0..n), q = ceil(n p / FUTURE_POINTS) - 1.  Within a
 * horizon of minutes the times span few seconds, so a count per second
 * finds them in one pass without a branch per time (a selection over
 * 12,000 end times mispredicted about every other comparison); over a
 * wide span, Hoare's selection.  0 or GP_ENOMEM.
 */
static int quantiles(gp_engine_t *e, int64_t *times, int32_t n, int64_t tmin, int64_t tmax,
                     int64_t *pts)
{
	int32_t pt, base, i;
	int64_t span = tmax - tmin + 1;

	if (span > 0 && span <= 4 * (int64_t)n + 4096) {
		int64_t v, seen = 0;

		if (span > e->hist_cap) {
			int32_t *grown = realloc(e->hist, (size_t)span * sizeof(*grown));

			if (!grown)
				return GP_ENOMEM;
			e->hist = grown;
			e->hist_cap = span;
		}
		memset(e->hist, 0, (size_t)span * sizeof(*e->hist));
		for (i = 0; i < n; i++)
			e->hist[times[i] - tmin]++;
		for (pt = 1, v = 0; pt <= FUTURE_POINTS; pt++) {
			int32_t q = (n * pt + FUTURE_POINTS - 1) / FUTURE_POINTS - 1;

			while (seen + e->hist[v] <= q)
				seen += e->hist[v++];
			pts[pt - 1] = tmin + v;
		}
		return GP_OK;
	}
	/* after each selection times[0..q] are no later than times[q] */
	for (pt = 1, base = 0; pt <= FUTURE_POINTS; pt++) {
		int32_t q = (n * pt + FUTURE_POINTS - 1) / FUTURE_POINTS - 1;

		if (q >= base) {
			select_kth(times + base, n - base, q - base);
			base = q + 1;
		}
		pts[pt - 1] = times[q];
	}
	return GP_OK;
}

/*
 * The cluster as it will be when running jobs of s have ended: up to
 * FUTURE_POINTS of their end times in (now, now + horizon] (quantiles),
 * each searched with the GPUs and the power those jobs free (kept as
 * future candidates).  The point whose best feasible set completes first
 * (wait + run_s x slowdown) below *finish is returned in *chosen with its
 * wait and completion (*chosen unchanged when none).  A point whose wait
 * plus the run at the ideal speed (slowdown >= 1) cannot finish before
 * `beat` is not searched, nor any later one.  0 or a gp_err code.
 */
static int search_future(const struct eval_ctx *x0, const gp_state_t *s, const gp_request_t *r,
                         int k, int64_t now, double horizon, double run_s, double beat,
                         gp_decision_t *d, int32_t *chosen, double *wait_out, double *finish)
{
	gp_engine_t *e = x0->e;
	const gp_cluster_t *c = e->c;
	struct eval_ctx x = *x0;
	bool power = x0->pv && x0->pv->racks && c->nracks > 0;
	gp_power_view_t fpv;
	int64_t *times = e->times, lim, prev_t = INT64_MIN, tmin = INT64_MAX, tmax = INT64_MIN;
	int64_t pts[FUTURE_POINTS];
	int32_t nends = 0, pt, i, j, nrel;
	gp_error_t serr;
	int rc = GP_OK;

	/* the jobs ending by the horizon's end, as read_ends() listed them
	 * for the policy's horizon, else listed here */
	lim = horizon_end(now, horizon);
	if (!e->hz_valid || e->hz_lim != lim) {
		e->nhz = 0;
		for (i = 0; i < e->nends; i++) {
			e->hz[e->nhz] = i;
			e->nhz += e->ends[i] <= lim;
		}
		e->hz_lim = lim;
		e->hz_valid = true;
	}
	/* their end times after now, appended without a branch per job */
	for (j = 0; j < e->nhz; j++) {
		int64_t et = e->ends[e->hz[j]];
		bool in = et > now;

		times[nends] = et;
		nends += in;
		/* & and not &&, which the compiler may make a branch on each
		 * test, mispredicted about as often as a job is overdue */
		tmin = in & (et < tmin) ? et : tmin;
		tmax = in & (et > tmax) ? et : tmax;
	}
	if (nends == 0)
		return GP_OK;
	if ((rc = quantiles(e, times, nends, tmin, tmax, pts)))
		return rc;
	/* the points come in time order and the loop below stops at the first
	 * one that cannot finish in time even at the ideal speed: when that is
	 * the first point, nothing is searched and the copies are not made */
	if ((double)(pts[0] - now) + run_s >= fmin(beat, *finish))
		return GP_OK;
	/* one copy of the state and of the power view, then each point
	 * releases the jobs that end since the previous one; each point's
	 * search reads only the nodes released since the last search (the
	 * state searched now differs from s only in overdue jobs, which the
	 * first point releases again) */
	state_copy(e->work, s, c->nnodes);
	gp__search_ws_reuse(e->ws, true);
	chg_clear(e);
	if (power) {
		memcpy(e->fut, x0->pv->racks, (size_t)c->nracks * sizeof(*e->fut));
		/* the budgets are e->fut's when the last were set from the same
		 * view at TDP (the search of the free set) */
		e->budget_fut = e->budget_tdp && e->budget_view == x0->pv->racks;
	}
	if (power) {
		fpv.racks = e->fut;
		fpv.cap_speed = x0->pv->cap_speed;
		fpv.held = x0->pv->held;
		x.pv = &fpv;
	}
	for (pt = 1; pt <= FUTURE_POINTS; pt++) {
		int32_t from = d->ncands, f;
		int64_t t = pts[pt - 1];

		if (t == prev_t)
			continue;
		if ((double)(t - now) + run_s >= fmin(beat, *finish))
			break; /* even an ideal set then finishes later than needed or
			        * than the best found so far */
		/* free every job that has ended by t and not at an earlier
		 * point (at the first, the overdue ones too): one pass over
		 * the horizon's jobs in the state's job order, not in end-time
		 * order, so the jobs and their node lists are read front to
		 * back (at 65,536 nodes a quarter of the running jobs, each
		 * read in end-time order, cost more than the search itself) */
		for (j = 0, nrel = 0; j < e->nhz; j++) {
			int32_t q = e->hz[j];
			int64_t et = e->ends[q];

			e->rel[nrel] = q;
			nrel += (et <= t) & (et > prev_t); /* & as above */
		}
		for (i = 0; i < nrel; i++) {
			/* each release reads the job, its node list and its
			 * nodes' records, a miss each once the cluster's state
			 * outgrows the cache: fetched a few jobs ahead */
			if (i + 16 < nrel)
				__builtin_prefetch(&s->jobs[e->rel[i + 16]]);
			if (i + 8 < nrel && s->jobs[e->rel[i + 8]].nnodes > 0) {
				__builtin_prefetch(s->jobs[e->rel[i + 8]].nodes);
				__builtin_prefetch(s->jobs[e->rel[i + 8]].gpu_mask);
			}
			if (i + 4 < nrel && s->jobs[e->rel[i + 4]].nnodes > 0) {
				int32_t v = s->jobs[e->rel[i + 4]].nodes[0];

				if (v >= 0 && v < c->nnodes) {
					__builtin_prefetch(&e->npw[v]);
					__builtin_prefetch(&e->work->alloc_mask[v]);
				}
			}
			if (power && i + 2 < nrel && s->jobs[e->rel[i + 2]].nnodes > 0) {
				int32_t v = s->jobs[e->rel[i + 2]].nodes[0];

				if (v >= 0 && v < c->nnodes && e->npw[v].rack >= 0) {
					__builtin_prefetch(&e->fut[e->npw[v].rack]);
					__builtin_prefetch(&e->chg_mark[e->npw[v].rack]);
				}
			}
			release_job(e, &s->jobs[e->rel[i]], power);
		}
		prev_t = t;
		if (power)
			set_budget_fut(e);
		else
			set_budget(e, NULL, false);
		/* a quick look: is a much better set there then?  The best-fit
		 * set of the FUTURE_K smallest domains answers it */
		gp__search_ws_set_best_fit_only(e->ws, true);
		rc = search_and_keep(&x, e->work, r, k < FUTURE_K ? k : FUTURE_K, true, d, &serr);
		gp__search_ws_set_best_fit_only(e->ws, false);
		if (rc == GP_ENOFIT) {
			rc = GP_OK;
			continue;
		}
		if (rc)
			break;
		f = x.block_seg >= 0 ? first_block_feasible(e->c, d, from, x.block_seg)
		                     : first_feasible(d, from);
		if (f >= 0) {
			double wait = (double)(t - now);
			double fin = wait + run_s * d->cands[f].cost.slowdown;

			if (fin < *finish) {
				*finish = fin;
				*chosen = f;
				*wait_out = wait;
			}
		}
	}
	gp__search_ws_reuse(e->ws, false);
	return rc;
}

/* ---- compactness against the site's Slurm -------------------------------- */

/* The level-1 switch (spine group) above leaf sw, else the leaf itself. */
static int32_t spine_group(const gp_cluster_t *c, int32_t sw)
{
	int32_t up = sw >= 0 ? c->switches[sw].parent : -1;

	return up >= 0 && !c->switches[up].disconnected ? up : sw;
}

/* Leaf switches and spine groups a scored set spans. */
static void set_span(const gp_cluster_t *c, gp_engine_t *e, const gp_scored_t *sc,
                     int32_t *leaves, int32_t *groups)
{
	int32_t i, nl = 0, ng = 0;

	/* two passes over at most the set's nodes, marks cleared after */
	for (i = 0; i < sc->nnodes; i++) {
		int32_t lf = c->nodes[sc->nodes[i]].leaf, gr;

		if (lf < 0 || lf >= c->nswitches)
			continue;
		if (!(e->sw_mark[lf] & 1)) {
			e->sw_mark[lf] |= 1;
			nl++;
		}
		gr = spine_group(c, lf);
		if (!(e->sw_mark[gr] & 2)) {
			e->sw_mark[gr] |= 2;
			ng++;
		}
	}
	for (i = 0; i < sc->nnodes; i++) {
		int32_t lf = c->nodes[sc->nodes[i]].leaf;

		if (lf < 0 || lf >= c->nswitches)
			continue;
		e->sw_mark[lf] = 0;
		e->sw_mark[spine_group(c, lf)] = 0;
	}
	*leaves = nl;
	*groups = ng;
}

/*
 * How many leaf switches and spine groups Slurm's topology/tree would give
 * request r on state st (as sim/sim.c tree_fit and topology/tree's
 * _eval_nodes_topo in src/plugins/topology/tree/eval_nodes_tree.c choose):
 * the lowest-level switch whose subtree can hold the job, the one with the
 * fewest usable units among those (best fit); under it, the leaf with the
 * fewest usable units that holds the rest alone, else the leaf with the
 * most, until placed.  Units are nodes with the job's GPUs per node free
 * when the request fixes it (or its node count), else free GPUs.  Nodes
 * down, drained, reserved, outside the partition or excluded are not
 * usable.  false when the rule does not apply: no switch tree (first-fit),
 * topology/block (blocks keep a job in its block already), a node list or
 * a feature constraint the user chose, or no subtree can hold the job now.
 */
static bool slurm_bound(gp_engine_t *e, const gp_state_t *st, const gp_request_t *r,
                        int32_t *leaves, int32_t *groups)
{
	const gp_cluster_t *c = e->c;
	int32_t q = gp__request_partition(r, c), nn = gp__request_nodes(r), gpn = 0, i, k;
	int32_t best = -1, nl = 0, ng = 0, top;
	int64_t need, rem;

	if (c->nswitches == 0 || gp__part_blocks(c, q) || r->nrequired > 0 || r->constraint)
		return false;
	if (r->gpus_per_node > 0)
		gpn = r->gpus_per_node;
	else if (nn > 0)
		gpn = (r->gpus + nn - 1) / nn;
	need = gpn > 0 ? (nn > 0 ? nn : (r->gpus + gpn - 1) / gpn) : r->gpus;
	memset(e->sw_units, 0, (size_t)c->nswitches * sizeof(*e->sw_units));
	for (i = 0; i < c->nnodes; i++) {
		const gp_node_t *nd = &c->nodes[i];
		int32_t fr, sw;
		int64_t u;

		if (nd->ngpus <= 0 || nd->leaf < 0 || nd->leaf >= c->nswitches)
			continue;
		if (st->node_flags[i] & (GP_NODE_DOWN | GP_NODE_DRAIN | GP_NODE_RESERVED))
			continue;
		if (q >= 0 && !gp__node_in_part(c, i, q))
			continue;
		if (r->exclusive && st->alloc_mask[i])
			continue;
		fr = nd->ngpus - gp__popcount(st->alloc_mask[i] & gp__gpu_full_mask(nd->ngpus));
		u = gpn > 0 ? (fr >= gpn) : fr;
		if (u <= 0)
			continue;
		for (k = 0; k < r->nexcluded && r->excluded[k] != i; k++)
			;
		if (k < r->nexcluded)
			continue;
		for (sw = nd->leaf; sw >= 0; sw = c->switches[sw].parent)
			e->sw_units[sw] += u;
	}
	/* the lowest level that holds it, best fit there */
	for (i = 0; i < c->nswitches; i++) {
		if (c->switches[i].disconnected || e->sw_units[i] < need)
			continue;
		if (best < 0 || c->switches[i].level < c->switches[best].level ||
		    (c->switches[i].level == c->switches[best].level &&
		     e->sw_units[i] < e->sw_units[best]))
			best = i;
	}
	if (best < 0)
		return false;
	/* its leaves, greedily as topology/tree takes them */
	top = best;
	for (rem = need; rem > 0;) {
		int32_t fit = -1, most = -1;

		for (i = 0; i < c->nswitches; i++) {
			int32_t a;

			if (c->switches[i].level != 0 || e->sw_units[i] <= 0 || (e->sw_mark[i] & 4))
				continue;
			for (a = i; a >= 0 && a != top; a = c->switches[a].parent)
				;
			if (a != top)
				continue;
			if (e->sw_units[i] >= rem && (fit < 0 || e->sw_units[i] < e->sw_units[fit]))
				fit = i;
			if (most < 0 || e->sw_units[i] > e->sw_units[most])
				most = i;
		}
		if (fit < 0 && most < 0)
			break;
		k = fit >= 0 ? fit : most;
		e->sw_mark[k] |= 4;
		rem -= e->sw_units[k];
		nl++;
		if (!(e->sw_mark[spine_group(c, k)] & 8)) {
			e->sw_mark[spine_group(c, k)] |= 8;
			ng++;
		}
	}
	for (i = 0; i < c->nswitches; i++)
		e->sw_mark[i] = 0;
	if (rem > 0)
		return false;
	*leaves = nl;
	*groups = ng;
	return true;
}

/*
 * The compactness rule (policy compact_gain >= 0): the chosen free set
 * (index best of d) spans no more leaf switches or spine groups than the
 * site's Slurm topology plugin would give the job, unless its predicted
 * step is faster than the best set that is as compact by at least
 * compact_gain; then note says so for the job's comment.  Returns the
 * index of the set to take.
 */
static int32_t compact_rule(gp_engine_t *e, const gp_state_t *st, const gp_request_t *r,
                            const gp_policy_t *p, gp_decision_t *d, int32_t best, char *note,
                            size_t len)
{
	const gp_cluster_t *c = e->c;
	int32_t bl, bg, l, g, i, alt = -1;

	note[0] = '\0';
	if (p->compact_gain < 0)
		return best;
	/* one leaf is as compact as Slurm can be: no pass over the nodes */
	set_span(c, e, &d->cands[best], &l, &g);
	if (l <= 1 || !slurm_bound(e, st, r, &bl, &bg) || (l <= bl && g <= bg))
		return best;
	for (i = 0; i < d->ncands && alt < 0; i++) {
		int32_t li, gi;

		if (!d->cands[i].feasible || d->cands[i].future)
			continue;
		set_span(c, e, &d->cands[i], &li, &gi);
		if (li <= bl && gi <= bg)
			alt = i;
	}
	if (alt >= 0 && !(d->cands[best].cost.step_s <
	                  d->cands[alt].cost.step_s * (1.0 - p->compact_gain)))
		return alt;
	snprintf(note, len,
	         "; %d leaf switch%s and %d spine group%s where Slurm's topology/tree would "
	         "use %d and %d: %s",
	         (int)l, l == 1 ? "" : "es", (int)g, g == 1 ? "" : "s", (int)bl, (int)bg,
	         alt >= 0 ? "predicted step faster by more than the policy's compact_gain" :
	                    "no set as compact was found");
	if (alt >= 0) {
		size_t n = strlen(note);

		snprintf(note + n, len - n, " (%.3g s against %.3g s)", d->cands[best].cost.step_s,
		         d->cands[alt].cost.step_s);
	}
	return best;
}

/* Allocated fraction of the GPUs of state st. */
static double busy_fraction(const gp_cluster_t *c, const gp_state_t *st)
{
	int64_t all = 0, used = 0;
	int32_t i;

	for (i = 0; i < c->nnodes; i++) {
		all += c->nodes[i].ngpus;
		used += gp__popcount(st->alloc_mask[i]);
	}
	return all > 0 ? (double)used / (double)all : 0.0;
}

/*
 * PIN candidate i of d: moved to the front, with its completion if started
 * now (run_s at its slowdown), the reason ("best free set" and where, its
 * predicted step, leaves and racks, then note) and its checkpoint plan.
 */
static int pin_front(gp_engine_t *e, const gp_request_t *r, const gp_job_profile_t *job,
                     const gp_ckpt_booking_t *bookings, int32_t nbookings, gp_decision_t *d,
                     int32_t i, double run_s, double ideal, const char *where, const char *note)
{
	const gp_scored_t *sc;

	to_front(d, i);
	sc = &d->cands[0];
	d->kind = GP_DECIDE_PIN;
	d->now_finish_s = run_s * sc->cost.slowdown;
	snprintf(d->reason, sizeof(d->reason),
	         "best free set%s: predicted step %.3g s (ideal %.3g s, slowdown %.2f), "
	         "%d leaf switch%s, %d rack%s%s",
	         where, sc->cost.step_s, ideal, sc->cost.slowdown, sc->nleaves,
	         sc->nleaves == 1 ? "" : "es", sc->nracks, sc->nracks == 1 ? "" : "s", note);
	plan_checkpoint(e, job, r, bookings, nbookings, d);
	return GP_OK;
}

/* Do Slurm's topology/block rules bind request r: the site has blocks and
 * r's partition is not placed by another topology of topology.yaml (a
 * tree partition beside a block one, gp_partition_t.no_blocks)? */
static bool blocks_bind(const gp_cluster_t *c, const gp_request_t *r)
{
	return gp__part_blocks(c, gp__request_partition(r, c));
}

/* Does request r fit one block of a topology/block site, with no required
 * nodes (which Slurm places itself)?  Such a job runs in one block. */
static bool fits_one_block(const gp_engine_t *e, const gp_request_t *r)
{
	return blocks_bind(e->c, r) && r->gpus <= e->block_gpus && r->nrequired == 0;
}

/*
 * Does request r fix its node count and GPUs per node (sbatch --nodes
 * --gpus-per-node, as an NVL72 job asks)?  Such a job with --segment
 * Slurm's topology/block places by itself (block_job); one with a per-job
 * GPU count (--gpus) it can leave pending on a cluster with a block free
 * (Slurm 24.11 and 26.05, tests/slurm/slurm_block.sh 8), so gpuplace keeps
 * choosing its nodes.
 */
static bool fixed_shape(const gp_request_t *r)
{
	return r->gpus_per_node > 0 && r->min_nodes > 0 && r->min_nodes == r->max_nodes;
}

/*
 * Could Slurm start request r where a rack's power does not cover it: is
 * there a rack of view pv whose headroom cannot power, at TDP, as many of
 * the job's GPUs as the rack has free in state st?  Each rack on its own:
 * a block of a topology/block site is a rack or lies in one.
 */
static bool block_power_binds(gp_engine_t *e, const gp_power_view_t *pv, const gp_state_t *st,
                              const gp_request_t *r)
{
	const gp_cluster_t *c = e->c;
	int32_t k, v;

	if (!pv || !pv->racks || c->nracks == 0)
		return false;
	memset(e->rack_free, 0, (size_t)c->nracks * sizeof(*e->rack_free));
	for (v = 0; v < c->nnodes; v++) {
		const gp_node_t *nd = &c->nodes[v];

		if (nd->rack < 0 || nd->rack >= c->nracks ||
		    (st->node_flags[v] & (GP_NODE_DOWN | GP_NODE_DRAIN | GP_NODE_RESERVED)))
			continue;
		e->rack_free[nd->rack] += nd->ngpus - gp__popcount(st->alloc_mask[v] &
		                                                   gp__gpu_full_mask(nd->ngpus));
	}
	for (k = 0; k < c->nracks; k++) {
		int32_t g = e->rack_free[k] < r->gpus ? e->rack_free[k] : r->gpus;

		/* e->rack_w: the most a GPU of the rack draws over idle */
		if (isfinite(pv->racks[k].headroom_w) &&
		    g * e->rack_w[k] > pv->racks[k].headroom_w + 1e-6)
			return true;
	}
	return false;
}

/* The first feasible set free now from index from on (from < 0: none)
 * that Slurm takes as required nodes inside one block, with the job's own
 * --segment if any; -1 for none. */
static int32_t first_inside_block(const gp_cluster_t *c, const gp_decision_t *d, int32_t from,
                                  int32_t segment)
{
	int32_t i;

	for (i = from < 0 ? d->ncands : from; i < d->ncands; i++)
		if (d->cands[i].feasible && !d->cands[i].future &&
		    gp__block_pin_ok(c, d->cands[i].nodes, d->cands[i].nnodes, segment))
			return i;
	return -1;
}

/*
 * A job that fits one block of a topology/block site (gp__decide).  Slurm's
 * topology/block keeps it in one block, that block's NVLink domain, but
 * inside the block it takes the first nodes in node order that have the
 * GPUs free (eval_nodes_block.c; the simulator's block_fit), so a job of a
 * few GPUs breaks a whole node where a partly used one would hold it; the
 * engine's set fills partly used nodes and blocks first (its fragmentation
 * term, gp__candidate_frag) and keeps whole nodes for the jobs that need
 * them (bench_placement, nvl72-gb200, offered load 0.7: GPU-hour-weighted
 * wait 0.82x topology/block's by the median of 7 draws, 1.00x when every
 * such job was left to Slurm).  So the best feasible free set
 * inside one block, as Slurm takes it for required nodes, is PINned.  A job
 * with --segment is left to Slurm (CONSTRAIN with no feature), which starts
 * its segments where blocks have room, unless power binds (pin_for_power:
 * some rack's power does not cover the GPUs it has free,
 * block_power_binds; or the shape is not fixed, fixed_shape).  With no
 * free set inside one block, and no segments that pay (segment_job), the
 * job is left to Slurm too, which starts it in the first block that frees.
 */
static int block_job(gp_engine_t *e, const gp_request_t *r, gp_decision_t *d, int32_t best,
                     bool pin_for_power, double run_s, double ideal,
                     const gp_ckpt_booking_t *bookings, int32_t nbookings,
                     const gp_job_profile_t *job)
{
	int32_t i = first_inside_block(e->c, d, best, r->segment_nodes);
	bool inside = i >= 0;

	if (inside && (pin_for_power || r->segment_nodes <= 0))
		return pin_front(e, r, job, bookings, nbookings, d, i, run_s, ideal,
		                 " inside one block", "");
	/* no set is booked for it (the plugin's ledger books cands[0]) */
	drop_from(d, 0);
	d->kind = GP_DECIDE_CONSTRAIN;
	d->features[0] = '\0';
	if (inside)
		snprintf(d->reason, sizeof(d->reason),
		         "left to Slurm's topology/block, which keeps each of the job's --segment "
		         "segments in one block and starts it where blocks have room now; every "
		         "rack's power covers the GPUs it has free, so gpuplace does not choose the "
		         "nodes");
	else
		snprintf(d->reason, sizeof(d->reason),
		         "no block has room for the job now%s; left to Slurm's topology/block, which "
		         "keeps it in one block and starts it in the first block that frees",
		         best >= 0 ? " (the free sets span blocks, which Slurm refuses as required "
		                     "nodes)" : "");
	/* Slurm chooses its nodes: no checkpoint plan (none without a node
	 * set), but its size, so the job's comment says why there is none */
	plan_checkpoint(e, job, r, bookings, nbookings, d);
	return GP_OK;
}

/*
 * The --segment gpuplace may give a job that fits one block of a
 * topology/block site when no block has room for it: the largest divisor
 * of its node count below that count and not above the base block, so that
 * Slurm places it as two or more segments, each inside one block
 * (eval_nodes_block.c: each segment goes to the block with the fewest
 * free nodes that holds it).  0 for a job it is not given to: one node,
 * a node count Slurm chooses (no --nodes with --gpus-per-node), required
 * nodes, or a --segment of its own.
 */
static int32_t segment_for(const gp_cluster_t *c, const gp_request_t *r)
{
	int32_t nn = r->min_nodes, sg;

	if (!fixed_shape(r) || nn < 2 || r->segment_nodes > 0 || r->nrequired > 0 ||
	    c->block_base < 1)
		return 0;
	for (sg = nn / 2 < c->block_base ? nn / 2 : c->block_base; sg > 1 && nn % sg; sg--)
		;
	return sg;
}

/*
 * A job that fits one block of a topology/block site when no block has
 * room for it now (gp__decide): Slurm's topology/block would hold it until
 * one block frees.  Cut into segments (segment_for), each inside one
 * block and all of them on one leaf switch (a domain constraint), it can
 * start where several blocks of one leaf have room between them; it then
 * crosses NVLink domains over that leaf, which the model prices.  Done
 * (*done) when the model predicts that the job finishes sooner so, now or
 * when the running jobs' time limits free a segmented set, than in one
 * block when one is predicted to free: the job is CONSTRAINed to the leaf
 * switches that can hold it, with --segment, and the reason states both
 * completions.  Otherwise d is as it was and the job is left to Slurm's
 * block placement (block_job).  bench_placement, nvl72-gb200, synthetic
 * trace: with no block free, a job held for one block waits while first-
 * fit starts it across blocks.
 */
static int segment_job(const struct eval_ctx *x, const gp_state_t *s, const gp_state_t *now_st,
                       const gp_request_t *r, int k, int64_t now, double run_s,
                       const gp_ckpt_booking_t *bookings, int32_t nbookings, gp_decision_t *d,
                       bool *done, gp_error_t *err)
{
	gp_engine_t *e = x->e;
	const gp_cluster_t *c = e->c;
	int32_t sg = segment_for(c, r), nb = d->ncands, seg = -1, blk = -1;
	double seg_wait = 0, seg_fin = INFINITY, blk_wait = 0, blk_fin = INFINITY;
	struct eval_ctx xf = *x;
	gp_request_t r2;
	gp_error_t serr;
	int nalts = 0, rc;

	*done = false;
	/* PowerLicenses keep a job not PINned to one rack's license, and a
	 * job in segments spans racks (a block is a rack or lies in one):
	 * one rack's license could not cover it (lic_request.c); and a Slurm
	 * without --segment (before 24.05) cannot be told */
	if (sg <= 0 || c->site.power_lic[0] || x->p->no_segments)
		return GP_OK;
	r2 = *r;
	r2.segment_nodes = sg;
	/* in segments, now (the budget of the racks' power now: a search of
	 * the future before this one leaves its own); not when nothing is
	 * free now (now_st NULL: then no set in segments is free either, and
	 * a search of the future may have written over the state now) */
	if (now_st) {
		set_budget(e, x->pv ? x->pv->racks : NULL, false);
		rc = search_and_keep(x, now_st, &r2, k, false, d, &serr);
		if (rc && rc != GP_ENOFIT)
			return gp__errorf(err, rc, "%s",
			                  rc == GP_EINVAL ? serr.text : gp_strerror(rc));
	}
	seg = first_block_feasible(c, d, nb, sg);
	if (seg >= 0) {
		seg_fin = run_s * d->cands[seg].cost.slowdown;
	} else if (s && s->njobs > 0) {
		/* or as running jobs end, by their time limits */
		xf.block_seg = sg;
		rc = search_future(&xf, s, &r2, k, now, INFINITY, run_s, INFINITY, d, &seg,
		                   &seg_wait, &seg_fin);
		if (rc)
			return gp__errorf(err, rc, "%s", gp_strerror(rc));
	}
	if (seg < 0) {
		drop_from(d, nb);
		return GP_OK;
	}
	/* in one block, when one is predicted to free: only points at which
	 * it could still finish first are searched */
	if (s && s->njobs > 0) {
		int32_t nseg = d->ncands;

		xf.block_seg = 0;
		rc = search_future(&xf, s, r, k, now, INFINITY, run_s, seg_fin, d, &blk, &blk_wait,
		                   &blk_fin);
		if (rc)
			return gp__errorf(err, rc, "%s", gp_strerror(rc));
		drop_from(d, nseg);
	}
	if (blk >= 0 && blk_fin <= seg_fin) {
		drop_from(d, nb);
		return GP_OK;
	}
	to_front(d, seg);
	drop_from(d, 1);
	d->kind = GP_DECIDE_CONSTRAIN;
	d->segment_nodes = sg;
	d->features[0] = '\0';
	/* the set's leaf switch, then every other leaf that can hold the
	 * job: Slurm takes the first that can start it */
	{
		gp_scored_t leaf = d->cands[0];

		leaf.kind = GP_DOM_SWITCH;
		leaf.domain = c->nodes[leaf.nodes[0]].leaf;
		if (leaf.domain >= 0) {
			add_alternative(c, &leaf, d->features, sizeof(d->features), &nalts);
			if (nalts > 0)
				add_level_alternatives(c, r, &leaf, d->features, sizeof(d->features),
				                       &nalts);
		}
	}
	finish_alternatives(d->features, sizeof(d->features), nalts);
	d->waited = seg_wait > 0;
	d->wait_s = seg_wait;
	d->wait_finish_s = seg_fin;
	d->now_finish_s = seg_wait > 0 ? 0 : seg_fin;
	snprintf(d->reason, sizeof(d->reason),
	         "no block has room for the job now; in %d segments of %d node%s, each inside "
	         "one block and all on one leaf switch, it is predicted to %s and finish in "
	         "%.0f s (slowdown %.2f over NVLink domains), %s: --segment=%d",
	         (int)(r->min_nodes / sg), (int)sg, sg == 1 ? "" : "s",
	         seg_wait > 0 ? "wait for its time-limit-predicted set" : "start now", seg_fin,
	         d->cands[0].cost.slowdown,
	         blk >= 0 ? "sooner than in one block" :
	                    "and no block is predicted to free in time for it to finish sooner "
	                    "in one (time limits)",
	         (int)sg);
	if (seg_wait > 0) {
		size_t used = strlen(d->reason);

		snprintf(d->reason + used, sizeof(d->reason) - used, " (wait %.0f s)", seg_wait);
	}
	plan_checkpoint(e, x->job, r, bookings, nbookings, d);
	*done = true;
	return GP_OK;
}

static int decide_in(gp_engine_t *e, const gp_state_t *s, const gp_request_t *r,
                     const gp_job_profile_t *job_in, const gp_policy_t *p,
                     const gp_power_view_t *pv, int64_t now,
                     const gp_ckpt_booking_t *bookings, int32_t nbookings,
                     gp_decision_t *d, gp_error_t *err)
{
	const gp_cluster_t *c;
	const gp_state_t *now_st;
	gp_job_profile_t job;
	struct eval_ctx x;
	gp_error_t serr;
	int32_t best, i;
	int k, rc, nalts = 0;
	double run_s;
	char note[200];

	if (d)
		memset(d, 0, sizeof(*d));
	if (!e || !r || !p || !d)
		return gp__errorf(err, GP_EINVAL, "decide: missing argument");
	c = e->c;
	d->ckpt.storage = -1;
	if ((rc = gp__request_check(r, c, err)))
		return rc;
	if (beyond_cluster(e, r, d))
		return GP_OK; /* REJECT, decided before anything is sized for the job */
	memset(&job, 0, sizeof(job)); /* padding too: the ideal cache compares bytes */
	if (job_in) {
		job = *job_in;
		if (job.gpus == 0)
			job.gpus = r->gpus;
		if (job.gpus != r->gpus)
			return gp__errorf(err, GP_EINVAL, "hint gpus=%d, but the job asks for %d GPUs",
			                  job.gpus, r->gpus);
		/* hints that leave sizes out get documented defaults, so a
		 * hinted dimension never means zero traffic; the decision says
		 * which were used */
		gp__job_profile_fill_defaults(c, &job, d->defaults, sizeof(d->defaults));
	} else {
		gp__job_profile_default(c, r->gpus, &job);
	}
	if ((rc = ensure_scratch(e, r->gpus, err)))
		return rc;
	set_binds(e, p->power_margin);
	x.e = e;
	x.job = &job;
	x.p = p;
	x.pv = pv;
	x.ideal = 0;
	x.block_seg = -1;
	/* the ideal is the job alone on an idle fabric; its candidates share
	 * the uplinks with the running jobs that cross them */
	gp__cost_cross_clear(e->scratch);
	if (e->ideal_valid && !memcmp(&job, &e->ideal_job, sizeof(job))) {
		rc = e->ideal_rc;
		x.ideal = e->ideal_s;
	} else {
		rc = gp__cost_ideal(c, &job, -1, e->scratch, &x.ideal, err);
		if (rc != GP_EINVAL) {
			memcpy(&e->ideal_job, &job, sizeof(job));
			e->ideal_s = x.ideal;
			e->ideal_rc = rc;
			e->ideal_valid = true;
		}
	}
	if (rc == GP_EINVAL)
		return rc;
	if (rc != GP_OK)
		x.ideal = 0; /* no domain of this cluster holds it: REJECT below */
	d->ideal_step_s = x.ideal;
	if (s)
		gp__cost_cross_set(c, s, e->scratch);
	k = p->topk < 1 ? 1 : p->topk > KMAX ? KMAX : p->topk;
	gp__search_ws_set_granule(e->ws, job_granule(e, &job));
	run_s = r->time_limit_min ? r->time_limit_min * 60.0 : GP_DECIDE_DEFAULT_RUN_S;

	/* 1. what is free now, within each rack's power (at TDP, then, when the
	 * policy may cap GPUs, at their lowest cap) */
	now_st = s ? s : e->empty; /* only read: no copy */
	e->hz_valid = false;
	gp__search_ws_reuse(e->ws, false); /* this search reads the whole state */
	if (s) {
		/* a job past its expected end has ended or is being ended: its
		 * GPUs count as free now (a state read a few seconds ago still
		 * lists a job that has just finished) */
		if ((rc = read_ends(e, s, now, horizon_end(now, p->max_wait_s))) < 0) {
			gp__errorf(err, rc, "%s", gp_strerror(rc));
			goto error;
		}
		if (rc) {
			state_copy(e->work, s, c->nnodes);
			for (i = 0; i < e->nends; i++)
				if (e->ends[i] <= now)
					release_job(e, &s->jobs[i], false);
			now_st = e->work;
			/* and their power with them: the view was filled from a
			 * state that still lists them */
			if (pv && pv->racks && c->nracks > 0) {
				memcpy(e->nowr, pv->racks, (size_t)c->nracks * sizeof(*e->nowr));
				for (i = 0; i < e->nends; i++)
					if (e->ends[i] <= now)
						release_power(e, &s->jobs[i], e->nowr);
				e->nowpv.racks = e->nowr;
				e->nowpv.cap_speed = pv->cap_speed;
				e->nowpv.held = pv->held;
				pv = &e->nowpv;
				x.pv = pv;
			}
		}
	}
	set_budget(e, pv ? pv->racks : NULL, false);
	rc = search_and_keep(&x, now_st, r, k, false, d, &serr);
	if (rc && rc != GP_ENOFIT) {
		gp__errorf(err, rc, "%s", rc == GP_EINVAL ? serr.text : gp_strerror(rc));
		goto error;
	}
	if (pv && pv->racks && c->nracks > 0 && p->allow_power_cap) {
		/* capped sets in fewer racks compete with uncapped spread ones:
		 * the score decides */
		set_budget(e, pv->racks, true);
		rc = search_and_keep(&x, now_st, r, k, false, d, &serr);
		if (rc && rc != GP_ENOFIT) {
			gp__errorf(err, rc, "%s", rc == GP_EINVAL ? serr.text : gp_strerror(rc));
			goto error;
		}
		sort_by_score(d, 0);
	}
	best = first_feasible(d, 0);
	/* never less compact than the site's Slurm would place it, unless
	 * the model predicts a gain it states */
	if (best >= 0)
		best = compact_rule(e, now_st, r, p, d, best, note, sizeof(note));
	/* a job that fits one block of a topology/block site runs in one
	 * block, or in segments (--segment) each inside one: Slurm refuses
	 * required nodes outside one block (gp__block_pin_ok), and a domain
	 * constraint to the spread set's switch only narrows the blocks
	 * Slurm may start it in.  With no free set inside one block, the
	 * job is cut into segments on one leaf where the model predicts it
	 * finishes sooner so (segment_job), else left to Slurm's own block
	 * placement, which starts it in the first block that frees; so is
	 * it when nothing is free now (step 3 below would narrow it to the
	 * blocks predicted from time limits, which are longer than the
	 * runs; bench_placement, nvl72-gb200) */
	if (best >= 0 && fits_one_block(e, r) && first_inside_block(c, d, best, r->segment_nodes) < 0) {
		bool done;

		if ((rc = segment_job(&x, s, now_st, r, k, now, run_s, bookings, nbookings, d, &done,
		                      err)))
			goto error;
		if (done)
			return GP_OK;
	}
	if (best >= 0 && fits_one_block(e, r))
		return block_job(e, r, d, best, !fixed_shape(r) ||
		                 block_power_binds(e, pv, now_st, r), run_s, x.ideal, bookings,
		                 nbookings, &job);

	/* 2. wait or spread; a job that fits one block of a topology/block
	 * site is not held: Slurm's block placement keeps it in one NVLink
	 * domain anyway (those without required nodes were decided above) */
	if (best >= 0 && s && p->max_wait_s > 0 && s->njobs > 0 &&
	    !(r->nrequired > 0 && blocks_bind(c, r) && r->gpus <= e->block_gpus) &&
	    d->cands[best].cost.slowdown > 1.0 + p->wait_gain) {
		double now_finish = run_s * d->cands[best].cost.slowdown, best_finish = now_finish;
		int32_t nbefore = d->ncands, chosen = -1;
		double chosen_wait = 0, behind = 0;

		rc = search_future(&x, s, r, k, now, p->max_wait_s, run_s,
		                   now_finish * (1.0 - p->wait_gain), d, &chosen, &chosen_wait,
		                   &best_finish);
		if (rc) {
			gp__errorf(err, rc, "%s", gp_strerror(rc));
			goto error;
		}
		d->now_finish_s = now_finish;
		/* the wait pays only when the completion it gains outweighs
		 * the delay it passes on: while the job waits, the jobs behind
		 * it wait too, about the busy share of the cluster's GPUs per
		 * GPU it would hold (GPU-seconds, so a large job's wait weighs
		 * by its size) */
		if (chosen >= 0)
			behind = r->gpus * chosen_wait * busy_fraction(c, now_st);
		if (chosen >= 0 && best_finish < now_finish * (1.0 - p->wait_gain) &&
		    r->gpus * (now_finish - best_finish) > behind) {
			d->waited = true;
			d->wait_s = chosen_wait;
			d->wait_finish_s = best_finish;
			to_front(d, chosen);
			d->kind = GP_DECIDE_CONSTRAIN;
			add_alternative(c, &d->cands[0], d->features, sizeof(d->features), &nalts);
			finish_alternatives(d->features, sizeof(d->features), nalts);
			snprintf(d->reason, sizeof(d->reason),
			         "waiting %.0f s for a compact set finishes in %.0f s instead of %.0f s "
			         "when started now on a spread set (slowdown %.2f); it saves %.2f "
			         "GPU-h against %.2f GPU-h the jobs behind it wait",
			         chosen_wait, best_finish, now_finish, now_finish / run_s,
			         r->gpus * (now_finish - best_finish) / 3600.0, behind / 3600.0);
			plan_checkpoint(e, &job, r, bookings, nbookings, d);
			return GP_OK;
		}
		/* keep only what was found now, the future sets were not chosen */
		drop_from(d, nbefore);
	}

	if (best >= 0)
		return pin_front(e, r, &job, bookings, nbookings, d, best, run_s, x.ideal, "", note);

	/* 3. nothing acceptable is free now: later (as running jobs end, with
	 * the power they free), or never (not even on the idle cluster with
	 * every rack's full headroom)?  Power stays a constraint throughout. */
	{
		char now_why[400];
		int32_t nbefore = d->ncands, chosen = -1;
		double chosen_wait = 0, fin = INFINITY;
		gp_power_view_t ipv;

		if (d->ncands)
			snprintf(now_why, sizeof(now_why), "%.250s", d->cands[0].why_not);
		else if (!power_why(e, pv, r, now_why, sizeof(now_why)))
			snprintf(now_why, sizeof(now_why), "%.180s", serr.text);
		if (s && s->njobs > 0) {
			rc = search_future(&x, s, r, k, now, INFINITY, run_s, INFINITY, d, &chosen,
			                   &chosen_wait, &fin);
			if (rc) {
				gp__errorf(err, rc, "%s", gp_strerror(rc));
				goto error;
			}
		}
		if (chosen < 0) {
			drop_from(d, nbefore);
			if (pv && pv->racks && c->nracks > 0) {
				gp__power_view_fill(c, e->empty, NULL, p, (double)now, e->idle);
				ipv.racks = e->idle;
				ipv.cap_speed = pv->cap_speed;
				ipv.held = pv->held;
				x.pv = &ipv;
				set_budget(e, e->idle, p->allow_power_cap);
			} else {
				x.pv = NULL;
				set_budget(e, NULL, false);
			}
			rc = search_and_keep(&x, e->empty, r, k, true, d, &serr);
			if (rc && rc != GP_ENOFIT) {
				gp__errorf(err, rc, "%s", gp_strerror(rc));
				goto error;
			}
			chosen = first_feasible(d, nbefore);
			if (chosen < 0) {
				d->kind = GP_DECIDE_REJECT;
				if (rc == GP_ENOFIT && strstr(serr.text, "without the power"))
					snprintf(d->reason, sizeof(d->reason),
					         "the racks can never power the job, even with every node "
					         "free and every rack idle: %.500s; ask for fewer GPUs per "
					         "rack or allow power caps (gpuplace_allow_power_cap)",
					         serr.text);
				else if (rc == GP_ENOFIT)
					snprintf(d->reason, sizeof(d->reason),
					         "the job can never fit this cluster: %.500s; ask for fewer "
					         "GPUs or fewer GPUs per node, or another partition",
					         serr.text);
				else
					snprintf(d->reason, sizeof(d->reason),
					         "no node set of this cluster meets the policy, even with "
					         "every node free and every rack idle: %s; ask for fewer "
					         "GPUs or change the job's parallelism",
					         d->ncands > nbefore ? d->cands[nbefore].why_not
					                             : "none fits");
				return GP_OK;
			}
		}
		if (fits_one_block(e, r)) {
			bool done = false;

			/* a later set in segments (not after the idle cluster's
			 * search, which changed the power view); none free now */
			if (x.pv == pv &&
			    (rc = segment_job(&x, s, NULL, r, k, now, run_s, bookings, nbookings,
			                      d, &done, err)))
				goto error;
			if (done)
				return GP_OK;
			return block_job(e, r, d, -1, false, run_s, x.ideal, bookings, nbookings,
			                 &job);
		}
		/* the feasible later sets, best first, become the alternatives */
		drop_before(d, nbefore);
		chosen -= nbefore;
		to_front(d, chosen);
		for (i = 0; i < d->ncands; i++)
			if (d->cands[i].feasible)
				add_alternative(c, &d->cands[i], d->features, sizeof(d->features), &nalts);
		/* then every other switch of the chosen set's level that can
		 * hold the job: the predicted ones come from time limits, which
		 * users set longer than their runs, so another domain often
		 * frees first; Slurm takes the first alternative that can start
		 * the job (slurm-on-one-machine.md, B), so the predicted ones
		 * keep their precedence and the job still stays in one domain
		 * (bench_placement: the tree sites' synthetic traces waited
		 * 1.3 to 4.3 times as long as tree when held to the predicted
		 * domains alone) */
		if (nalts > 0 && d->cands[0].kind == GP_DOM_SWITCH && d->cands[0].domain >= 0)
			add_level_alternatives(c, r, &d->cands[0], d->features, sizeof(d->features),
			                       &nalts);
		/* and so every other NVLink domain that can hold it, for a set
		 * kept to one: the predicted domain is no better a guess there
		 * (and a reading of the cluster taken while Slurm still
		 * completes a job, or recovers its state after a restart,
		 * shows GPUs in use that no job owns and no end time frees: a
		 * job held to the one domain predicted from it waited while
		 * another stood free, tests/slurm/slurm_vs_stock.sh 31-33) */
		else if (nalts > 0 && d->cands[0].kind == GP_DOM_NVL && d->cands[0].domain >= 0)
			add_nvl_alternatives(c, r, &d->cands[0], d->features, sizeof(d->features),
			                     &nalts);
		finish_alternatives(d->features, sizeof(d->features), nalts);
		d->kind = GP_DECIDE_CONSTRAIN;
		if (isfinite(fin)) {
			d->wait_s = chosen_wait;
			d->wait_finish_s = fin;
			snprintf(d->reason, sizeof(d->reason),
			         "no acceptable set is free now (%.250s); one is predicted in %lld s, "
			         "when running jobs end and free their GPUs and power; the job waits "
			         "for %.330s", now_why, (long long)chosen_wait,
			         *d->features ? d->features : "any set the policy accepts");
		} else {
			snprintf(d->reason, sizeof(d->reason),
			         "no acceptable set is free now (%.250s); the job waits for %.450s",
			         now_why, *d->features ? d->features : "any set the policy accepts");
		}
		plan_checkpoint(e, &job, r, bookings, nbookings, d);
		return GP_OK;
	}
error:
	gp__decision_clear(d);
	return rc;
}

/*
 * Racks past the knee: the draw of every rack with a limit and an estimate,
 * summed, as a fraction of their limits summed (*use), and whether it is
 * past the policy's knee, one of them can be short of power (set_binds)
 * and the racks, every one idle, would still power the job's GPUs (so a
 * job no rack state can power is still answered by the power it needs: a
 * REJECT at any load).
 */
static bool racks_past_knee(gp_engine_t *e, const gp_policy_t *p, const gp_power_view_t *pv,
                            const gp_request_t *r, double *use)
{
	const gp_cluster_t *c = e->c;
	double draw = 0, limit = 0;
	int64_t idle_gpus = 0, rack_gpus = 0;
	int32_t i;
	bool binds = false;

	*use = 0;
	set_binds(e, p->power_margin);
	for (i = 0; i < c->nracks; i++) {
		const gp_rack_view_t *rv = &pv->racks[i];

		if (isnan(e->rk_limit[i]) || !isfinite(rv->raw_w))
			continue;
		binds |= e->rk_binds[i];
		draw += fmax(0.0, e->rk_limit[i] * (1.0 - p->power_margin) - rv->raw_w);
		limit += e->rk_limit[i];
		rack_gpus += e->rk_all[i];
		idle_gpus += e->rk_idle[i];
	}
	if (!(limit > 0) || !binds)
		return false; /* no rack can be short: nothing to leave out */
	*use = draw / limit;
	return *use > p->power_knee &&
	       (int64_t)r->gpus <= e->cap_gpus[e->c->nparts] - rack_gpus + idle_gpus;
}

/*
 * Rack power binds gpuplace's sets (decide_in) unless Slurm holds no job to
 * the racks' budgets (no PowerLicenses or PowerHres in force, pv->held),
 * the policy weighs no power (w_power 0 and no power caps: balanced, pack,
 * performance) and the racks together are past the policy's knee.  There
 * the racks as a whole are short of power, and every job Slurm starts
 * itself takes it whatever gpuplace does: keeping only its own sets within
 * the racks' limits moved them to the leaves whose racks still had room,
 * evening out the leaves' load, so a large job found fewer whole nodes
 * free under any one leaf and waited longer.  Measured on etc/a100-oversub
 * at moderate load (its racks power 68.8 % of its GPUs at TDP;
 * bench_placement -v, the draw printed in full): 8.4 whole free nodes
 * under the best leaf against tree + --switches' 11.2, and medians of 7
 * draws of GPU-hours lost to placement, mean and GPU-hour-weighted wait
 * against the best target 0.73, 0.98, 1.24 with the limit at any use,
 * 0.90, 0.72, 0.93 with it only below the knee (starts over a rack's
 * limit 1,250 then 2,107; tree + --switches 2,240).  Below the knee other
 * racks have room near the tight one and keeping off it is cheap (a rack
 * capped at its idle draw: tests/slurm/slurm_plugin.sh 1).  The decision
 * says when the racks' limits were left out.
 */
int gp__decide(gp_engine_t *e, const gp_state_t *s, const gp_request_t *r,
               const gp_job_profile_t *job_in, const gp_policy_t *p,
               const gp_power_view_t *pv, int64_t now,
               const gp_ckpt_booking_t *bookings, int32_t nbookings,
               gp_decision_t *d, gp_error_t *err)
{
	double use = 0;
	int rc;

	if (e && r && p && d && pv && pv->racks && e->c->nracks > 0 && !pv->held &&
	    !(p->w_power > 0) && !p->allow_power_cap && racks_past_knee(e, p, pv, r, &use)) {
		size_t n;

		rc = decide_in(e, s, r, job_in, p, NULL, now, bookings, nbookings, d, err);
		if (rc != GP_OK || d->kind == GP_DECIDE_REJECT)
			return rc;
		snprintf(d->power_note, sizeof(d->power_note),
		         "the racks' limits left out: together they draw %.0f %% of them, past the "
		         "policy's knee (%.0f %%), and Slurm holds no job to them (PowerLicenses or "
		         "PowerHres would)", 100 * use, 100 * p->power_knee);
		if ((n = strlen(d->reason)) + 1 < sizeof(d->reason))
			snprintf(d->reason + n, sizeof(d->reason) - n, "; %s", d->power_note);
		return rc;
	}
	return decide_in(e, s, r, job_in, p, pv, now, bookings, nbookings, d, err);
}

int gp__decide_rescore(gp_engine_t *e, const gp_state_t *s, const gp_job_profile_t *job,
                       const gp_policy_t *p, const gp_power_view_t *pv, double ideal,
                       const int32_t *nodes, const uint32_t *mask, int32_t n, gp_scored_t *out,
                       gp_error_t *err)
{
	struct eval_ctx x;
	int32_t i, g = 0;
	int rc;

	if (out)
		memset(out, 0, sizeof(*out));
	if (!e || !job || !p || !nodes || !mask || n < 1 || !out)
		return gp__errorf(err, GP_EINVAL, "rescore: missing argument");
	for (i = 0; i < n; i++) {
		if (nodes[i] < 0 || nodes[i] >= e->c->nnodes)
			return gp__errorf(err, GP_EINVAL, "rescore: node index %d out of range",
			                  (int)nodes[i]);
		g += gp__popcount(mask[i]);
	}
	if ((rc = ensure_scratch(e, g, err)))
		return rc;
	set_binds(e, p->power_margin);
	/* the running jobs' traffic on the uplinks, as gp__decide() sees it */
	if (s)
		gp__cost_cross_set(e->c, s, e->scratch);
	else
		gp__cost_cross_clear(e->scratch);
	x.e = e;
	x.job = job;
	x.p = p;
	x.pv = pv;
	x.ideal = ideal;
	x.block_seg = -1;
	out->nnodes = n;
	out->ngpus = g;
	out->kind = GP_DOM_CLUSTER;
	out->domain = -1;
	out->frag = gp__candidate_frag(e->c, s ? s : e->empty, nodes, mask, n);
	out->s_frag = p->w_frag * out->frag / 100.0;
	if ((rc = evaluate(&x, nodes, mask, n, out)))
		return gp__errorf(err, rc, "rescore: %s", gp_strerror(rc));
	out->score += out->feasible ? out->s_frag : 0.0;
	return GP_OK;
}

/* ---- output ------------------------------------------------------------- */

char *gp__scored_nodelist(const gp_cluster_t *c, const gp_scored_t *sc)
{
	return gp__nodes_ranged(c, sc->nodes, sc->nnodes);
}

static const char *domain_name(const gp_cluster_t *c, const gp_scored_t *sc)
{
	if (sc->kind == GP_DOM_NVL && sc->domain >= 0)
		return c->nvl[sc->domain].name;
	if (sc->kind == GP_DOM_SWITCH && sc->domain >= 0)
		return c->switches[sc->domain].name;
	return "(cluster)";
}

/* The first node of sc whose GPUs have no profile (no GpuProfile and no
 * built-in for their type), -1 if none: the cost model's step time for
 * such a set is no prediction, only the defaults' arithmetic. */
static int32_t unprofiled(const gp_cluster_t *c, const gp_scored_t *sc)
{
	int32_t i;

	for (i = 0; i < sc->nnodes; i++)
		if (c->nodes[sc->nodes[i]].ngpus > 0 && c->nodes[sc->nodes[i]].profile < 0)
			return sc->nodes[i];
	return -1;
}

int gp__decision_print_text(const gp_cluster_t *c, const gp_decision_t *d, FILE *f)
{
	int32_t i, u = d->ncands > 0 ? unprofiled(c, &d->cands[0]) : -1;

	fprintf(f, "decision: %s\n", gp__decision_kind_name(d->kind));
	/* facts or nothing: no step time printed for GPUs without a profile */
	if (u >= 0 && !strncmp(d->reason, "best free set: predicted step", 29))
		fprintf(f, "reason:   best free set; no profile for the GPUs of %s: step time not "
		           "predicted\n", c->nodes[u].name);
	else
		fprintf(f, "reason:   %s\n", d->reason);
	if (*d->defaults)
		fprintf(f, "defaults: %s\n", d->defaults);
	if (d->kind == GP_DECIDE_PIN && d->ncands > 0) {
		char *nl = gp__scored_nodelist(c, &d->cands[0]);

		fprintf(f, "nodes:    %s\n", nl ? nl : "?");
		free(nl);
	}
	if (*d->features)
		fprintf(f, "constraint: %s\n", d->features);
	if (d->segment_nodes > 0)
		fprintf(f, "segment:  %d nodes (--segment, topology/block)\n", (int)d->segment_nodes);
	if (d->now_finish_s > 0 && u >= 0)
		fprintf(f, "completion if started now: not predicted (no profile for the GPUs of %s)\n",
		        c->nodes[u].name);
	else if (d->now_finish_s > 0)
		fprintf(f, "completion if started now: %.0f s\n", d->now_finish_s);
	if (d->waited)
		fprintf(f, "completion after waiting %.0f s: %.0f s\n", d->wait_s, d->wait_finish_s);
	if (d->ckpt.storage >= 0 && d->ckpt.interval_s > 0) {
		fprintf(f, "checkpoint: every %.0f s to %s (write %.1f s, offset %.0f s%s), "
		           "expected waste %.2f %%, buddy %s, --signal lead %.0f s\n",
		        d->ckpt.interval_s, c->storage[d->ckpt.storage].name, d->ckpt.write_s,
		        d->ckpt.offset_s, d->ckpt.overlap ? ", overlaps others" : "",
		        100 * d->ckpt.waste, d->ckpt.buddy >= 0 ? c->nodes[d->ckpt.buddy].name : "none",
		        d->ckpt.signal_lead_s);
		if (d->ckpt.count > 0)
			fprintf(f, "checkpoint: %d before the time limit, MTTF %.0f s, restart %.0f s\n",
			        (int)d->ckpt.count, d->ckpt.mttf_s, d->ckpt.restart_s);
	} else if (d->ckpt.storage >= 0) {
		fprintf(f, "checkpoint: none periodic, the time limit comes first (MTTF %.0f s, "
		           "write %.1f s to %s, restart %.0f s), expected waste %.2f %%, --signal lead "
		           "%.0f s\n",
		        d->ckpt.mttf_s, d->ckpt.write_s, c->storage[d->ckpt.storage].name,
		        d->ckpt.restart_s, 100 * d->ckpt.waste, d->ckpt.signal_lead_s);
	}
	if (d->ncands == 0)
		return ferror(f) ? GP_EIO : GP_OK;
	fprintf(f, "\n%-3s %-24s %5s %-14s %6s %5s %5s %11s %11s %8s %9s %5s %7s %9s\n", "#",
	        "nodes", "gpus", "domain", "leaves", "racks", "hops", "step_ms", "ideal_ms",
	        "slowdown", "overhead%", "frag", "power%", "score");
	for (i = 0; i < d->ncands; i++) {
		const gp_scored_t *sc = &d->cands[i];
		char *nl = gp__scored_nodelist(c, sc);

		if (unprofiled(c, sc) >= 0)
			fprintf(f, "%-3d %-24s %5d %-14s %6d %5d %5d %11s %11s %8s %9s %5d %7.1f ",
			        i + 1, nl ? nl : "?", sc->ngpus, domain_name(c, sc), sc->nleaves,
			        sc->nracks, sc->hops, "unknown", "unknown", "unknown", "unknown",
			        sc->frag, 100 * sc->power_use);
		else
			fprintf(f, "%-3d %-24s %5d %-14s %6d %5d %5d %11.3f %11.3f %8.3f %9.2f %5d %7.1f ",
			        i + 1, nl ? nl : "?", sc->ngpus, domain_name(c, sc), sc->nleaves,
			        sc->nracks, sc->hops, 1e3 * sc->cost.step_s, 1e3 * sc->cost.ideal_step_s,
			        sc->cost.slowdown, 100 * sc->cost.overhead, sc->frag, 100 * sc->power_use);
		if (sc->feasible)
			fprintf(f, "%9.4f%s\n", sc->score, sc->future ? "  (after waiting)" : "");
		else
			fprintf(f, "%9s  %s\n", "-", sc->why_not);
		free(nl);
	}
	return ferror(f) ? GP_EIO : GP_OK;
}

int gp__decision_print_json(const gp_cluster_t *c, const gp_decision_t *d, FILE *f)
{
	json_object *root = json_object_new_object(), *arr = json_object_new_array();
	int32_t i;
	int rc = GP_OK;

	if (!root || !arr) {
		json_object_put(root);
		json_object_put(arr);
		return GP_ENOMEM;
	}
	json_object_object_add(root, "decision", json_object_new_string(gp__decision_kind_name(d->kind)));
	json_object_object_add(root, "reason", json_object_new_string(d->reason));
	json_object_object_add(root, "constraint", json_object_new_string(d->features));
	json_object_object_add(root, "segment_nodes", json_object_new_int(d->segment_nodes));
	json_object_object_add(root, "defaults", json_object_new_string(d->defaults));
	json_object_object_add(root, "ideal_step_s", json_object_new_double(d->ideal_step_s));
	json_object_object_add(root, "now_finish_s", json_object_new_double(d->now_finish_s));
	json_object_object_add(root, "waited", json_object_new_boolean(d->waited));
	json_object_object_add(root, "wait_s", json_object_new_double(d->wait_s));
	json_object_object_add(root, "wait_finish_s", json_object_new_double(d->wait_finish_s));
	if (d->ckpt.storage >= 0) {
		json_object *ck = json_object_new_object();

		json_object_object_add(ck, "target", json_object_new_string(c->storage[d->ckpt.storage].name));
		json_object_object_add(ck, "bytes", json_object_new_double(d->ckpt_bytes));
		json_object_object_add(ck, "interval_s", json_object_new_double(d->ckpt.interval_s));
		json_object_object_add(ck, "offset_s", json_object_new_double(d->ckpt.offset_s));
		json_object_object_add(ck, "write_s", json_object_new_double(d->ckpt.write_s));
		json_object_object_add(ck, "waste", json_object_new_double(d->ckpt.waste));
		json_object_object_add(ck, "mttf_s", json_object_new_double(d->ckpt.mttf_s));
		json_object_object_add(ck, "restart_s", json_object_new_double(d->ckpt.restart_s));
		json_object_object_add(ck, "count", json_object_new_int(d->ckpt.count));
		json_object_object_add(ck, "buddy", d->ckpt.buddy >= 0 ?
		                       json_object_new_string(c->nodes[d->ckpt.buddy].name) : NULL);
		json_object_object_add(ck, "signal_lead_s", json_object_new_double(d->ckpt.signal_lead_s));
		json_object_object_add(root, "checkpoint", ck);
	}
	for (i = 0; i < d->ncands; i++) {
		const gp_scored_t *sc = &d->cands[i];
		json_object *o = json_object_new_object(), *m = json_object_new_array();
		char *nl = gp__scored_nodelist(c, sc);
		int32_t j;

		json_object_object_add(o, "nodes", json_object_new_string(nl ? nl : ""));
		free(nl);
		for (j = 0; j < sc->nnodes; j++)
			json_object_array_add(m, json_object_new_int64(sc->gpu_mask[j]));
		json_object_object_add(o, "gpu_masks", m);
		json_object_object_add(o, "gpus", json_object_new_int(sc->ngpus));
		json_object_object_add(o, "domain", json_object_new_string(domain_name(c, sc)));
		json_object_object_add(o, "leaves", json_object_new_int(sc->nleaves));
		json_object_object_add(o, "racks", json_object_new_int(sc->nracks));
		json_object_object_add(o, "hops", json_object_new_int(sc->hops));
		json_object_object_add(o, "step_s", json_object_new_double(sc->cost.step_s));
		json_object_object_add(o, "ideal_step_s", json_object_new_double(sc->cost.ideal_step_s));
		json_object_object_add(o, "slowdown", json_object_new_double(sc->cost.slowdown));
		json_object_object_add(o, "overhead", json_object_new_double(sc->cost.overhead));
		json_object_object_add(o, "frag", json_object_new_int(sc->frag));
		json_object_object_add(o, "power_use", json_object_new_double(sc->power_use));
		json_object_object_add(o, "rack_use", json_object_new_double(sc->rack_use));
		json_object_object_add(o, "cap_w", json_object_new_double(sc->cap_w));
		json_object_object_add(o, "score", json_object_new_double(sc->score));
		json_object_object_add(o, "score_step", json_object_new_double(sc->s_step));
		json_object_object_add(o, "score_frag", json_object_new_double(sc->s_frag));
		json_object_object_add(o, "score_power", json_object_new_double(sc->s_power));
		json_object_object_add(o, "feasible", json_object_new_boolean(sc->feasible));
		if (!sc->feasible)
			json_object_object_add(o, "why_not", json_object_new_string(sc->why_not));
		json_object_object_add(o, "after_waiting", json_object_new_boolean(sc->future));
		json_object_array_add(arr, o);
	}
	json_object_object_add(root, "candidates", arr);
	if (fprintf(f, "%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
	                                                     JSON_C_TO_STRING_SPACED |
	                                                     JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		rc = GP_EIO;
	json_object_put(root);
	return rc;
}
