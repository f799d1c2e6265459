/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decide.c - score candidates, choose PIN / CONSTRAIN / REJECT, explain. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <slurm/slurm.h>

#include "decide.h"
#include "power.h"

#define KMAX 16                 /* candidates one search keeps at most */
#define FUTURE_POINTS 4         /* future states tried for wait-or-spread */
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
	/* what the scoring callback computed, so keeping a candidate does not
	 * evaluate it again: memo[seq] is valid when memo_gen[seq] == gen */
	gp_scored_t memo[MEMO];
	uint32_t memo_gen[MEMO];
	uint32_t gen;
};

int gp__engine_create(const gp_cluster_t *c, gp_engine_t **out, gp_error_t *err)
{
	gp_engine_t *e;
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
	if ((rc = gp_state_create(c, &e->work)) || (rc = gp_state_create(c, &e->empty))) {
		gp__errorf(err, rc, "engine: %s", gp_strerror(rc));
		goto error;
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
		racks[r].cooling_binds = false;
	}
	if (!h || gp__power_headroom_all(c, s, snap, now, h) != GP_OK) {
		free(h);
		return; /* no limit known is the engine's safe default: fail open */
	}
	for (r = 0; r < c->nracks; r++) {
		double limit = fmin(h[r].cap_w, h[r].cooling_w) * (1.0 - p->power_margin);

		racks[r].headroom_w = fmax(0.0, limit - h[r].used_w);
		racks[r].cooling_binds = h[r].binding == GP_LIMIT_COOLING;
	}
	free(h);
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
};

static double default_cap_speed(const gp_gpu_profile_t *prof, double cap_w)
{
	/* Assumption, no published H100 training curve (notes/calibration.md
	 * 4): speed proportional to the cap.  Conservative: measured curves
	 * flatten near TDP, so real slowdowns are smaller. */
	return prof->tdp_w > 0 ? fmin(1.0, cap_w / prof->tdp_w) : 1.0;
}

/* Fill sc (not its node arrays) for the set nodes/mask. */
static int evaluate(const struct eval_ctx *x, const int32_t *nodes, const uint32_t *mask,
                    int32_t n, gp_scored_t *sc)
{
	const gp_cluster_t *c = x->e->c;
	gp_placement_t pl = { n, nodes, mask };
	struct { int32_t rack; double w; int32_t gpus; double idle, tdp, min_cap;
	         const gp_gpu_profile_t *prof; } rk[MAX_RACKS_PER_SET];
	int32_t nrk = 0, i, j;
	double speed = 1.0;
	gp_error_t err;
	int rc;

	sc->feasible = true;
	sc->why_not[0] = '\0';
	sc->cap_w = 0;
	sc->cap_speed = 1.0;
	sc->power_use = 0;
	rc = gp__cost_eval(c, x->job, &pl, x->e->scratch, x->ideal, &sc->cost, &err);
	if (rc != GP_OK) {
		if (rc == GP_ENOMEM || rc == GP_ELIMIT)
			return rc;
		sc->feasible = false;
		snprintf(sc->why_not, sizeof(sc->why_not), "%.150s", err.text);
		sc->score = INFEASIBLE;
		return GP_OK;
	}
	/* power: the job's GPUs above idle, per rack, against the headroom */
	for (i = 0; i < n; i++) {
		const gp_node_t *nd = &c->nodes[nodes[i]];
		const gp_gpu_profile_t *prof = nd->profile >= 0 ? &c->profiles[nd->profile] : NULL;
		int32_t g = gp__popcount(mask[i]);

		if (nd->rack < 0 || !prof)
			continue;
		for (j = 0; j < nrk && rk[j].rack != nd->rack; j++)
			;
		if (j == nrk) {
			if (nrk == MAX_RACKS_PER_SET)
				continue;
			memset(&rk[nrk], 0, sizeof(rk[nrk]));
			rk[nrk].rack = nd->rack;
			rk[nrk].prof = prof;
			rk[nrk].idle = prof->idle_w;
			rk[nrk].tdp = prof->tdp_w;
			rk[nrk].min_cap = prof->min_cap_w > 0 ? prof->min_cap_w : prof->tdp_w / 2;
			nrk++;
		}
		rk[j].w += g * (prof->tdp_w - prof->idle_w);
		rk[j].gpus += g;
	}
	for (j = 0; x->pv && x->pv->racks && j < nrk; j++) {
		const gp_rack_view_t *rv = &x->pv->racks[rk[j].rack];
		double share;

		if (!isfinite(rv->headroom_w) || rk[j].w <= 0)
			continue;
		share = rv->headroom_w > 0 ? rk[j].w / rv->headroom_w : INFINITY;
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
	sc->s_power = x->p->w_power * sc->power_use;
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

/* Release every running job of s that ends by time t from work. */
static void release_until(gp_state_t *work, const gp_state_t *s, int64_t t)
{
	int32_t j, i;

	for (j = 0; j < s->njobs; j++) {
		const gp_job_alloc_t *ja = &s->jobs[j];

		if (ja->end_time > t)
			continue;
		for (i = 0; i < ja->nnodes; i++)
			if (ja->nodes[i] >= 0 && ja->nodes[i] < work->nnodes)
				work->alloc_mask[ja->nodes[i]] &= ~ja->gpu_mask[i];
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
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
 * The request r with the nodes of power-starved racks added to its
 * --exclude, into *out (which borrows everything of r but its excluded
 * list; the caller frees out->excluded).  A rack is starved for a node when
 * its headroom cannot power the job's smallest share of that node: its GPUs
 * per node (all its GPUs on one node, else one), each at the lowest power
 * the policy allows (the GPU's lowest cap when it may cap, else TDP), above
 * idle.  Nodes the job requires are never added.  Returns how many nodes
 * were added (0: out is unused) or GP_ENOMEM.
 */
static int32_t exclude_power_starved(const struct eval_ctx *x, const gp_request_t *r,
                                     gp_request_t *out)
{
	const gp_cluster_t *c = x->e->c;
	int32_t per = r->gpus_per_node > 0 ? r->gpus_per_node : r->max_nodes == 1 ? r->gpus : 1;
	int32_t q, i, j, n = 0;
	int32_t *ex = NULL;

	for (q = 0; q < c->nracks; q++) {
		const gp_rack_t *rk = &c->racks[q];
		double head = x->pv->racks[q].headroom_w;

		if (!(head < INFINITY))
			continue;
		for (i = 0; i < rk->nnodes; i++) {
			const gp_node_t *nd = &c->nodes[rk->nodes[i]];
			const gp_gpu_profile_t *pr;
			double w;

			if (nd->profile < 0 || nd->profile >= c->nprofiles)
				continue;
			pr = &c->profiles[nd->profile];
			w = x->p->allow_power_cap ?
			    (pr->min_cap_w > 0 ? pr->min_cap_w : pr->tdp_w / 2) - pr->idle_w :
			    pr->tdp_w - pr->idle_w;
			if (!(head < per * w))
				continue;
			for (j = 0; j < r->nrequired; j++)
				if (r->required[j] == rk->nodes[i])
					break;
			if (j < r->nrequired)
				continue;
			if (!ex && !(ex = malloc(((size_t)r->nexcluded + (size_t)c->nnodes) * sizeof(*ex))))
				return GP_ENOMEM;
			ex[r->nexcluded + n++] = rk->nodes[i];
		}
	}
	if (n == 0)
		return 0;
	if (r->nexcluded)
		memcpy(ex, r->excluded, (size_t)r->nexcluded * sizeof(*ex));
	*out = *r;
	out->excluded = ex;
	out->nexcluded = r->nexcluded + n;
	return n;
}

static int32_t first_feasible(const gp_decision_t *d, int32_t from)
{
	int32_t i;

	for (i = from; i < d->ncands; i++)
		if (d->cands[i].feasible)
			return i;
	return -1;
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
	gp__cost_scratch_destroy(e->scratch);
	e->scratch = NULL;
	if ((rc = gp__cost_scratch_new(e->c, gpus, &e->scratch)))
		return gp__errorf(err, rc, "engine: cost model scratch for %d GPUs: %s", gpus,
		                  gp_strerror(rc));
	e->scratch_gpus = gpus;
	return GP_OK;
}

static void plan_checkpoint(gp_engine_t *e, const gp_job_profile_t *job,
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
	cj.restart_s = -1;
	cj.nodes = d->cands[0].nodes;
	cj.nnodes = d->cands[0].nnodes;
	if (gp__ckpt_plan(e->c, &cj, bookings, nbookings, &d->ckpt, &err) != GP_OK)
		d->ckpt.storage = -1;
}

int gp__decide(gp_engine_t *e, const gp_state_t *s, const gp_request_t *r,
               const gp_job_profile_t *job_in, const gp_policy_t *p,
               const gp_power_view_t *pv, int64_t now,
               const gp_ckpt_booking_t *bookings, int32_t nbookings,
               gp_decision_t *d, gp_error_t *err)
{
	const gp_cluster_t *c;
	gp_job_profile_t job;
	struct eval_ctx x;
	gp_error_t serr;
	int32_t best, i;
	int k, rc, nalts = 0;
	double run_s;

	if (d)
		memset(d, 0, sizeof(*d));
	if (!e || !r || !p || !d)
		return gp__errorf(err, GP_EINVAL, "decide: missing argument");
	c = e->c;
	d->ckpt.storage = -1;
	if ((rc = gp__request_check(r, c, err)))
		return rc;
	if (job_in) {
		job = *job_in;
		if (job.gpus == 0)
			job.gpus = r->gpus;
		if (job.gpus != r->gpus)
			return gp__errorf(err, GP_EINVAL, "hint gpus=%d, but the job asks for %d GPUs",
			                  job.gpus, r->gpus);
		/* hints without any size (parallelism alone, or only gpus=): the
		 * data-parallel gradient volume of the default profile, so the
		 * placement still pays for spreading */
		if (!(job.params > 0) && !(job.bytes[GP_DIM_TP] > 0) && !(job.bytes[GP_DIM_CP] > 0) &&
		    !(job.bytes[GP_DIM_EP] > 0) && !(job.bytes[GP_DIM_DP] > 0) &&
		    !(job.bytes[GP_DIM_PP] > 0) && !(job.hidden > 0))
			job.bytes[GP_DIM_DP] = c->site.default_grad_bytes > 0 ? c->site.default_grad_bytes
			                                                      : 1e9;
	} else {
		gp__job_profile_default(c, r->gpus, &job);
	}
	if ((rc = ensure_scratch(e, r->gpus, err)))
		return rc;
	x.e = e;
	x.job = &job;
	x.p = p;
	x.pv = pv;
	x.ideal = 0;
	rc = gp__cost_ideal(c, &job, -1, e->scratch, &x.ideal, err);
	if (rc == GP_EINVAL)
		return rc;
	if (rc != GP_OK)
		x.ideal = 0; /* no domain of this cluster holds it: REJECT below */
	d->ideal_step_s = x.ideal;
	k = p->topk < 1 ? 1 : p->topk > KMAX ? KMAX : p->topk;
	run_s = r->time_limit_min ? r->time_limit_min * 60.0 : GP_DECIDE_DEFAULT_RUN_S;

	/* 1. what is free now */
	state_copy(e->work, s, c->nnodes);
	rc = search_and_keep(&x, e->work, r, k, false, d, &serr);
	if (rc && rc != GP_ENOFIT) {
		gp__errorf(err, rc, "%s", rc == GP_EINVAL ? serr.text : gp_strerror(rc));
		goto error;
	}
	best = first_feasible(d, 0);
	if (best < 0 && d->ncands > 0 && pv && pv->racks && c->nracks > 0) {
		/* the best-fit sets all sit in racks short of power: search again
		 * without the racks that cannot take even a node's share */
		gp_request_t r2;
		int32_t added = exclude_power_starved(&x, r, &r2), from = d->ncands;

		if (added < 0) {
			rc = gp__errorf(err, GP_ENOMEM, "out of memory");
			goto error;
		}
		if (added > 0) {
			rc = search_and_keep(&x, e->work, &r2, k, false, d, &serr);
			free(r2.excluded);
			if (rc && rc != GP_ENOFIT) {
				gp__errorf(err, rc, "%s", rc == GP_EINVAL ? serr.text : gp_strerror(rc));
				goto error;
			}
			best = first_feasible(d, from);
		}
	}

	/* 2. wait or spread */
	if (best >= 0 && s && p->max_wait_s > 0 && s->njobs > 0 &&
	    d->cands[best].cost.slowdown > 1.0 + p->wait_gain) {
		int64_t *ends = malloc((size_t)s->njobs * sizeof(*ends));
		int32_t nends = 0, pt;
		double now_finish = run_s * d->cands[best].cost.slowdown, best_finish = now_finish;
		int32_t nbefore = d->ncands, chosen = -1;
		double chosen_wait = 0;

		if (!ends) {
			rc = gp__errorf(err, GP_ENOMEM, "out of memory");
			goto error;
		}
		for (i = 0; i < s->njobs; i++)
			if (s->jobs[i].end_time > now && s->jobs[i].end_time <= now + (int64_t)p->max_wait_s)
				ends[nends++] = s->jobs[i].end_time;
		qsort(ends, (size_t)nends, sizeof(*ends), cmp_i64);
		for (pt = 1; pt <= FUTURE_POINTS && nends > 0; pt++) {
			int64_t t = ends[(nends * pt + FUTURE_POINTS - 1) / FUTURE_POINTS - 1];
			int32_t from = d->ncands, f;

			if (pt > 1 && t == ends[(nends * (pt - 1) + FUTURE_POINTS - 1) / FUTURE_POINTS - 1])
				continue;
			state_copy(e->work, s, c->nnodes);
			release_until(e->work, s, t);
			rc = search_and_keep(&x, e->work, r, k, true, d, &serr);
			if (rc == GP_ENOFIT)
				continue;
			if (rc) {
				free(ends);
				gp__errorf(err, rc, "%s", gp_strerror(rc));
				goto error;
			}
			f = first_feasible(d, from);
			if (f >= 0) {
				double wait = (double)(t - now);
				double fin = wait + run_s * d->cands[f].cost.slowdown;

				if (fin < best_finish) {
					best_finish = fin;
					chosen = f;
					chosen_wait = wait;
				}
			}
		}
		free(ends);
		d->now_finish_s = now_finish;
		if (chosen >= 0 && best_finish < now_finish * (1.0 - p->wait_gain)) {
			d->waited = true;
			d->wait_s = chosen_wait;
			d->wait_finish_s = best_finish;
			to_front(d, chosen);
			d->kind = GP_DECIDE_CONSTRAIN;
			add_alternative(c, &d->cands[0], d->features, sizeof(d->features), &nalts);
			finish_alternatives(d->features, sizeof(d->features), nalts);
			snprintf(d->reason, sizeof(d->reason),
			         "waiting %.0f s for a compact set finishes in %.0f s instead of %.0f s "
			         "when started now on a spread set (slowdown %.2f)",
			         chosen_wait, best_finish, now_finish, now_finish / run_s);
			plan_checkpoint(e, &job, bookings, nbookings, d);
			return GP_OK;
		}
		/* keep only what was found now, the future sets were not chosen */
		for (i = nbefore; i < d->ncands; i++) {
			free(d->cands[i].nodes);
			free(d->cands[i].gpu_mask);
		}
		d->ncands = nbefore;
	}

	if (best >= 0) {
		to_front(d, best);
		d->kind = GP_DECIDE_PIN;
		d->now_finish_s = run_s * d->cands[0].cost.slowdown;
		snprintf(d->reason, sizeof(d->reason),
		         "best free set: predicted step %.3g s (ideal %.3g s, slowdown %.2f), "
		         "%d leaf switch%s, %d rack%s",
		         d->cands[0].cost.step_s, x.ideal, d->cands[0].cost.slowdown,
		         d->cands[0].nleaves, d->cands[0].nleaves == 1 ? "" : "es", d->cands[0].nracks,
		         d->cands[0].nracks == 1 ? "" : "s");
		plan_checkpoint(e, &job, bookings, nbookings, d);
		return GP_OK;
	}

	/* 3. nothing acceptable is free now: could it ever fit? */
	{
		char now_why[192];
		int32_t nbefore = d->ncands;

		snprintf(now_why, sizeof(now_why), "%.180s",
		         d->ncands ? d->cands[0].why_not : serr.text);
		/* Power headroom is today's: racks free up as jobs end, so it
		 * cannot make a job impossible, only make it wait. */
		x.pv = NULL;
		rc = search_and_keep(&x, e->empty, r, k, true, d, &serr);
		if (rc && rc != GP_ENOFIT) {
			gp__errorf(err, rc, "%s", gp_strerror(rc));
			goto error;
		}
		best = first_feasible(d, nbefore);
		if (best < 0) {
			d->kind = GP_DECIDE_REJECT;
			if (rc == GP_ENOFIT)
				snprintf(d->reason, sizeof(d->reason),
				         "the job can never fit this cluster: %.500s; ask for fewer GPUs or "
				         "fewer GPUs per node, or another partition", serr.text);
			else
				snprintf(d->reason, sizeof(d->reason),
				         "no node set of this cluster meets the policy: %s; ask for fewer GPUs "
				         "or change the job's parallelism",
				         d->ncands > nbefore ? d->cands[nbefore].why_not : "none fits");
			return GP_OK;
		}
		/* the feasible empty-cluster sets, best first, become the alternatives */
		for (i = 0; i < nbefore; i++) {
			free(d->cands[i].nodes);
			free(d->cands[i].gpu_mask);
		}
		memmove(d->cands, d->cands + nbefore, (size_t)(d->ncands - nbefore) * sizeof(*d->cands));
		d->ncands -= nbefore;
		for (i = 0; i < d->ncands; i++)
			if (d->cands[i].feasible)
				add_alternative(c, &d->cands[i], d->features, sizeof(d->features), &nalts);
		finish_alternatives(d->features, sizeof(d->features), nalts);
		to_front(d, first_feasible(d, 0));
		d->kind = GP_DECIDE_CONSTRAIN;
		snprintf(d->reason, sizeof(d->reason),
		         "no acceptable set is free now (%.180s); the job waits for %.500s",
		         now_why, *d->features ? d->features : "any set the policy accepts");
		plan_checkpoint(e, &job, bookings, nbookings, d);
		return GP_OK;
	}
error:
	gp__decision_clear(d);
	return rc;
}

/* ---- output ------------------------------------------------------------- */

char *gp__scored_nodelist(const gp_cluster_t *c, const gp_scored_t *sc)
{
	hostlist_t hl = slurm_hostlist_create("");
	char *s, *out;
	int32_t i;

	if (!hl)
		return NULL;
	for (i = 0; i < sc->nnodes; i++)
		slurm_hostlist_push_host(hl, c->nodes[sc->nodes[i]].name);
	s = slurm_hostlist_ranged_string_malloc(hl);
	slurm_hostlist_destroy(hl);
	if (!s)
		return NULL;
	out = strdup(s);
	free(s);
	return out;
}

static const char *domain_name(const gp_cluster_t *c, const gp_scored_t *sc)
{
	if (sc->kind == GP_DOM_NVL && sc->domain >= 0)
		return c->nvl[sc->domain].name;
	if (sc->kind == GP_DOM_SWITCH && sc->domain >= 0)
		return c->switches[sc->domain].name;
	return "(cluster)";
}

int gp__decision_print_text(const gp_cluster_t *c, const gp_decision_t *d, FILE *f)
{
	int32_t i;

	fprintf(f, "decision: %s\n", gp__decision_kind_name(d->kind));
	fprintf(f, "reason:   %s\n", d->reason);
	if (d->kind == GP_DECIDE_PIN && d->ncands > 0) {
		char *nl = gp__scored_nodelist(c, &d->cands[0]);

		fprintf(f, "nodes:    %s\n", nl ? nl : "?");
		free(nl);
	}
	if (*d->features)
		fprintf(f, "constraint: %s\n", d->features);
	if (d->now_finish_s > 0)
		fprintf(f, "completion if started now: %.0f s\n", d->now_finish_s);
	if (d->waited)
		fprintf(f, "completion after waiting %.0f s: %.0f s\n", d->wait_s, d->wait_finish_s);
	if (d->ckpt.storage >= 0) {
		fprintf(f, "checkpoint: every %.0f s to %s (write %.1f s, offset %.0f s%s), "
		           "expected waste %.2f %%, buddy %s, --signal lead %.0f s\n",
		        d->ckpt.interval_s, c->storage[d->ckpt.storage].name, d->ckpt.write_s,
		        d->ckpt.offset_s, d->ckpt.overlap ? ", overlaps others" : "",
		        100 * d->ckpt.waste, d->ckpt.buddy >= 0 ? c->nodes[d->ckpt.buddy].name : "none",
		        d->ckpt.signal_lead_s);
	}
	if (d->ncands == 0)
		return ferror(f) ? GP_EIO : GP_OK;
	fprintf(f, "\n%-3s %-24s %5s %-14s %6s %5s %5s %11s %11s %8s %9s %5s %7s %9s\n", "#",
	        "nodes", "gpus", "domain", "leaves", "racks", "hops", "step_ms", "ideal_ms",
	        "slowdown", "overhead%", "frag", "power%", "score");
	for (i = 0; i < d->ncands; i++) {
		const gp_scored_t *sc = &d->cands[i];
		char *nl = gp__scored_nodelist(c, sc);

		fprintf(f, "%-3d %-24s %5d %-14s %6d %5d %5d %11.3f %11.3f %8.3f %9.2f %5d %7.1f ",
		        i + 1, nl ? nl : "?", sc->ngpus, domain_name(c, sc), sc->nleaves, sc->nracks,
		        sc->hops, 1e3 * sc->cost.step_s, 1e3 * sc->cost.ideal_step_s, sc->cost.slowdown,
		        100 * sc->cost.overhead, sc->frag, 100 * sc->power_use);
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
