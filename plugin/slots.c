/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slots.c - the configuration and the cluster state job_submit/gpuplace
 * decides on: each immutable, published by the plugin's thread, shared by
 * reference count.
 */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "job_submit_gpuplace.h"

/* ---- one slot type ---------------------------------------------------------- */

struct gp_ref *slot_get(struct gp_slot *s)
{
	struct gp_ref *r;

	pthread_mutex_lock(&s->lock);
	r = s->current;
	if (r)
		r->refs++;
	pthread_mutex_unlock(&s->lock);
	return r;
}

void slot_hold(struct gp_slot *s, struct gp_ref *r)
{
	pthread_mutex_lock(&s->lock);
	r->refs++;
	pthread_mutex_unlock(&s->lock);
}

void slot_put(struct gp_slot *s, struct gp_ref *r)
{
	bool last;

	if (!r)
		return;
	pthread_mutex_lock(&s->lock);
	last = --r->refs == 0;
	pthread_mutex_unlock(&s->lock);
	if (last)
		s->release(r);
}

void slot_publish(struct gp_slot *s, struct gp_ref *r)
{
	struct gp_ref *old;

	r->refs = 1; /* the reference held by the slot */
	pthread_mutex_lock(&s->lock);
	r->gen = ++s->gen;
	old = s->current;
	s->current = r;
	pthread_mutex_unlock(&s->lock);
	slot_put(s, old);
}

bool slot_empty(struct gp_slot *s)
{
	bool empty;

	pthread_mutex_lock(&s->lock);
	empty = s->current == NULL;
	pthread_mutex_unlock(&s->lock);
	return empty;
}

/* The slot's reference on its current object, which leaves it (NULL when
 * empty; the caller puts it). */
static struct gp_ref *slot_take(struct gp_slot *s)
{
	struct gp_ref *r;

	pthread_mutex_lock(&s->lock);
	r = s->current;
	s->current = NULL;
	pthread_mutex_unlock(&s->lock);
	return r;
}

/* ---- the configuration ---------------------------------------------------- */

static void conf_release(struct gp_ref *r);

struct gp_slot conf_slot = GP_SLOT_INIT(conf_release);

/* Configurations whose last reference was dropped, freed by the plugin's
 * thread: stopping a telemetry poller may wait for a source's time-out,
 * which the submission path must never do. */
static struct {
	pthread_mutex_t lock;
	struct gp_conf *dead;        /* linked by next_dead */
	bool thread_owns;            /* the thread frees them (else the last put) */
} graveyard = { PTHREAD_MUTEX_INITIALIZER, NULL, false };

void conf_free(struct gp_conf *c)
{
	if (!c)
		return;
	gp__poller_destroy(c->poller);
	lic_conf_free(c);
	gp__nametab_free(&c->domfeat);
	gp_cluster_destroy(c->cluster);
	free(c);
}

static void conf_release(struct gp_ref *r)
{
	struct gp_conf *c = (struct gp_conf *)r;
	bool deferred = false;

	pthread_mutex_lock(&graveyard.lock);
	if (graveyard.thread_owns) {
		c->next_dead = graveyard.dead;
		graveyard.dead = c;
		deferred = true;
	}
	pthread_mutex_unlock(&graveyard.lock);
	if (!deferred)
		conf_free(c);
}

void graveyard_owned_by_thread(bool yes)
{
	pthread_mutex_lock(&graveyard.lock);
	graveyard.thread_owns = yes;
	pthread_mutex_unlock(&graveyard.lock);
}

/* Free the graveyard (the plugin's thread, or fini after it stopped). */
void graveyard_empty(void)
{
	struct gp_conf *c, *next;

	pthread_mutex_lock(&graveyard.lock);
	c = graveyard.dead;
	graveyard.dead = NULL;
	pthread_mutex_unlock(&graveyard.lock);
	for (; c; c = next) {
		next = c->next_dead;
		conf_free(c);
	}
}

/* A reference on the current configuration, or NULL (caller: conf_put). */
struct gp_conf *conf_get(void)
{
	return (struct gp_conf *)slot_get(&conf_slot);
}

void conf_put(struct gp_conf *c)
{
	slot_put(&conf_slot, c ? &c->ref : NULL);
}

void conf_publish(struct gp_conf *c)
{
	slot_publish(&conf_slot, &c->ref);
}

/* ---- the cluster state ------------------------------------------------------ */

static void snap_release(struct gp_ref *r)
{
	struct gp_snap *sn = (struct gp_snap *)r;

	free(sn->by_ref);
	free(sn->by_name);
	gp_live_view_clear(&sn->view);
	gp_resv_view_clear(&sn->resv);
	steer_plans_free(&sn->plans);
	free(sn->racks);
	free(sn->lic_free);
	conf_put(sn->conf);
	free(sn);
}

struct gp_slot snap_slot = GP_SLOT_INIT(snap_release);

void snap_put(struct gp_snap *sn)
{
	slot_put(&snap_slot, sn ? &sn->ref : NULL);
}

/* A reference on the current cluster state, or NULL (caller: snap_put). */
struct gp_snap *snap_get(void)
{
	return (struct gp_snap *)slot_get(&snap_slot);
}

static int seen_key_cmp(const void *x, const void *y)
{
	const struct seen_key *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	if (p->t != q->t)
		return p->t < q->t ? -1 : 1;
	return p->k < q->k ? -1 : p->k > q->k;
}

/* The ledger's look-ups into sn's recent jobs, sorted once here (the
 * plugin's thread) so that a submission finds a decision's job in
 * O(log jobs) instead of a scan of every job per ledger entry.  Out of
 * memory: not indexed, and the ledger scans. */
static void snap_index(struct gp_snap *sn)
{
	const gp_live_view_t *v = &sn->view;
	int32_t k;

	sn->indexed = false;
	sn->nby_ref = sn->nby_name = 0;
	sn->by_ref = malloc(((size_t)(v->nseen > 0 ? v->nseen : 0) + 1) * sizeof(*sn->by_ref));
	sn->by_name = malloc(((size_t)(v->nseen > 0 ? v->nseen : 0) + 1) * sizeof(*sn->by_name));
	if (!sn->by_ref || !sn->by_name) {
		free(sn->by_ref);
		free(sn->by_name);
		sn->by_ref = sn->by_name = NULL;
		return;
	}
	for (k = 0; k < v->nseen; k++) {
		const gp_live_seen_t *j = &v->seen[k];

		if (j->ref)
			sn->by_ref[sn->nby_ref++] = (struct seen_key){ j->ref, 0, 0, k };
		else
			sn->by_name[sn->nby_name++] =
				(struct seen_key){ j->uid, j->name_hash, j->submit_time, k };
	}
	qsort(sn->by_ref, (size_t)sn->nby_ref, sizeof(*sn->by_ref), seen_key_cmp);
	qsort(sn->by_name, (size_t)sn->nby_name, sizeof(*sn->by_name), seen_key_cmp);
	sn->indexed = true;
}

/* What need_limits() reads: CPUs and memory left on the nodes with a GPU
 * free, summed up once per snapshot (the plugin's thread). */
static void snap_res_summary(struct gp_snap *sn)
{
	const gp_cluster_t *c = sn->conf ? sn->conf->cluster : NULL;
	const gp_live_view_t *v = &sn->view;
	int32_t i;

	sn->min_cpus_free = INT32_MAX;
	sn->min_mem_free_mb = INT64_MAX;
	sn->some_allocated = sn->some_mem_unknown = false;
	if (!c || !v->res || !v->state) {
		sn->min_cpus_free = 0; /* unknown: every decision checks every node */
		return;
	}
	for (i = 0; i < c->nnodes; i++) {
		const gp_live_res_t *r = &v->res[i];
		int32_t g = c->nodes[i].ngpus;
		uint32_t full = g >= 32 ? ~0u : g <= 0 ? 0 : (1u << g) - 1;

		if (!r->known || !(full & ~v->state->alloc_mask[i]))
			continue;
		if (r->cpus_free < sn->min_cpus_free)
			sn->min_cpus_free = r->cpus_free;
		if (r->mem_free_mb < sn->min_mem_free_mb)
			sn->min_mem_free_mb = r->mem_free_mb;
		if (r->cpus_free < r->cpus_total || r->mem_free_mb < r->mem_mb)
			sn->some_allocated = true;
		if (r->mem_mb <= 0)
			sn->some_mem_unknown = true;
	}
}

/* The first key of keys[0..n-1] (sorted) not below want. */
int32_t seen_lower_bound(const struct seen_key *keys, int32_t n, const struct seen_key *want)
{
	int32_t lo = 0, hi = n;

	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;

		if (seen_key_cmp(&keys[mid], want) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Publish sn (caller's reference handed over); indexes it first, so call
 * it off the submission path. */
void snap_publish(struct gp_snap *sn)
{
	snap_index(sn);
	snap_res_summary(sn);
	slot_publish(&snap_slot, &sn->ref);
}

bool have_snapshot(void)
{
	return !slot_empty(&snap_slot);
}

/* Empty both slots, the state first (fini, and a test between sites). */
void slots_clear(void)
{
	snap_put((struct gp_snap *)slot_take(&snap_slot));
	conf_put((struct gp_conf *)slot_take(&conf_slot));
}
