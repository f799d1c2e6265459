/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ledger.c - the decision side of job_submit/gpuplace: the placement
 * engine built for each configuration, the ledger of decisions Slurm has
 * not started yet, and the checkpoint plans made.
 */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "job_submit_gpuplace.h"

/* ---- the decision side (serialised: slurmctld calls job_submit with
 * its job write lock held; dec.lock makes that explicit) ------------ */

/* Serialises decisions and the ledger (slurmctld already calls job_submit
 * with its job write lock held; this makes it explicit). */
struct decide_state dec = { .lock = PTHREAD_MUTEX_INITIALIZER };

/*
 * The ledger: GPUs the plugin expects to become busy that Slurm's counts do
 * not show yet.  A PIN reserves its set and a CONSTRAIN the set the engine
 * chose in its domain, until Slurm lists the job as started (its GPUs are
 * then in gres_used) - however long it pends for resources, but not while
 * it is held or waits for a dependency or its begin time.  A job that
 * passed unchanged reserves where Slurm would most likely start it (lowest weight, then node
 * order, with enough free GPUs) until Slurm lists every job of its uid
 * and name submitted with it as started, at most GP_LEDGER_GRACE_S
 * (pending that long, it waits for resources and holds none); while such a
 * guess stands, no job is PINned (the guess may be wrong), only
 * CONSTRAINed - unless the passed job's own --nodelist names exactly the
 * nodes it takes.  An entry whose job Slurm has not listed GP_LEDGER_GRACE_S after
 * the decision (a later plugin rejected it, or it was cancelled) is
 * dropped.
 *
 * Bounded: at most GP_LEDGER_MAX entries.  A decision that cannot be
 * booked (the ledger full, or memory short) is never a PIN: the job is
 * CONSTRAINed to its set's domain instead (its comment says why), so no
 * two jobs are ever pinned to the same GPUs; a passed job that cannot be
 * booked blocks PINs like an unconfirmed guess until the next reading of
 * the cluster; steering moves no job it cannot book.  The ledger filling
 * up is logged once at info, and once more when it has room again.
 *
 * Indexed: what the entries hold is also kept per node (the OR of their
 * GPU masks) and per rack (the watts their jobs will draw), so applying
 * the ledger to a snapshot costs O(nodes and racks it touches), not
 * O(entries x nodes); whether an entry stays is decided once per entry and
 * snapshot, looking its job up in the snapshot's sorted index (snap_index),
 * not once per submission with a scan of every recent job.
 */

void bookings_prune(int64_t now)
{
	int i, kept = 0;

	for (i = 0; i < dec.bookings.n; i++)
		if (dec.bookings.until[i] > now) {
			dec.bookings.b[kept] = dec.bookings.b[i];
			dec.bookings.until[kept++] = dec.bookings.until[i];
		}
	dec.bookings.n = kept;
}

/*
 * The plans a new plan is staggered against: the GP_CKPT_STAGGER most
 * recent.  The planner compares every candidate offset with every booked
 * window (gp__ckpt_plan: O(bookings^2) per decision, about 0.1 s with 4,096
 * bookings on one target), and a shared target keeps at most
 * interval/write jobs apart anyway (8 for the 60 s write every 480 s of
 * the synthetic sites), so the most recent plans - the jobs that start
 * next - are the ones worth keeping apart; 64 keeps the planner's share of
 * a decision in the tens of microseconds (bench/bench_job_submit).
 */
#define GP_CKPT_STAGGER 64

const gp_ckpt_booking_t *recent_bookings(void)
{
	return dec.bookings.n > GP_CKPT_STAGGER
	           ? dec.bookings.b + (dec.bookings.n - GP_CKPT_STAGGER)
	           : dec.bookings.b;
}

int32_t nrecent_bookings(void)
{
	return dec.bookings.n > GP_CKPT_STAGGER ? GP_CKPT_STAGGER : dec.bookings.n;
}

void booking_add(const gp_decision_t *d, uint32_t time_limit_min, int64_t now)
{
	if (d->ckpt.storage < 0 || dec.bookings.n == GP_LEDGER_MAX)
		return;
	gp__ckpt_booking_of(&d->ckpt, ++dec.bookings.seq, &dec.bookings.b[dec.bookings.n]);
	dec.bookings.until[dec.bookings.n++] =
	    now + (time_limit_min ? (int64_t)time_limit_min * 60 : 86400);
}

/* Add entry e to the per-node and per-rack sums. */
static void ledger_index_add(const struct ledger_entry *e)
{
	int32_t i;

	/* the job list is read for the jobs submitted since the oldest entry's
	 * job, so that every entry's job is there to match it */
	if (e->submitted && (!dec.ledger.oldest || e->submitted < dec.ledger.oldest))
		dec.ledger.oldest = e->submitted;
	if (!e->ref && !e->certain)
		dec.ledger.unconfirmed++;
	if (!dec.cur.led_mask)
		return;
	for (i = 0; i < e->n; i++) {
		if (!dec.cur.led_mask[e->nodes[i]] && e->mask[i])
			dec.cur.led_nodes[dec.ledger.nnodes++] = e->nodes[i];
		dec.cur.led_mask[e->nodes[i]] |= e->mask[i];
	}
	dec.ledger.nracks =
	    gp_ledger_power_draw(dec.cur.conf->cluster, dec.cur.led_draw, e->nodes, e->mask, e->n,
	                         e->cap_w, dec.cur.led_racks, dec.ledger.nracks);
}

/* The sums again from the entries (after some left or changed). */
void ledger_index_rebuild(void)
{
	int32_t i;
	int k;

	dec.ledger.oldest = 0;
	dec.ledger.unconfirmed = 0;
	if (dec.cur.led_mask) {
		for (i = 0; i < dec.ledger.nnodes; i++)
			dec.cur.led_mask[dec.cur.led_nodes[i]] = 0;
		for (i = 0; i < dec.ledger.nracks; i++)
			dec.cur.led_draw[dec.cur.led_racks[i]] = 0;
	}
	dec.ledger.nnodes = dec.ledger.nracks = 0;
	for (k = 0; k < dec.ledger.n; k++)
		ledger_index_add(&dec.ledger.e[k]);
}

static void ledger_clear(void)
{
	int i;

	for (i = 0; i < dec.ledger.n; i++) {
		free(dec.ledger.e[i].nodes);
		free(dec.ledger.e[i].mask);
	}
	dec.ledger.n = 0;
	dec.ledger.gen = 0;
	dec.ledger.nchecked = 0;
	dec.ledger.unbooked = 0;
	dec.ledger.unbooked_gen = 0;
	ledger_index_rebuild();
}

static const gp_cluster_t *order_cluster; /* for by_slurm_order (one builder at a time) */

static int by_slurm_order(const void *a, const void *b)
{
	const gp_node_t *x = &order_cluster->nodes[*(const int32_t *)a];
	const gp_node_t *y = &order_cluster->nodes[*(const int32_t *)b];

	if (x->weight != y->weight)
		return x->weight < y->weight ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void decider_free(struct decider *d)
{
	gp__engine_destroy(d->engine);
	gp_state_destroy(d->work);
	free(d->slurm_order);
	free(d->full);
	free(d->racks);
	free(d->led_mask);
	free(d->led_nodes);
	free(d->led_racks);
	free(d->led_draw);
	conf_put(d->conf);
	memset(d, 0, sizeof(*d));
}

/* Build the decider for c (the engine for a 65,536-node site takes about
 * 0.1 s: never on the submission path); 0, or -1 with err. */
static int decider_build(struct gp_conf *c, struct decider *d, gp_error_t *err)
{
	const gp_cluster_t *cl = c->cluster;
	size_t nn = (size_t)cl->nnodes + 1, nr = (size_t)cl->nracks + 1;
	int32_t i;

	memset(d, 0, sizeof(*d));
	memset(err, 0, sizeof(*err));
	if (gp__engine_create(cl, &d->engine, err) != GP_OK ||
	    gp_state_create(cl, &d->work) != GP_OK ||
	    !(d->slurm_order = malloc(nn * sizeof(*d->slurm_order))) ||
	    !(d->full = malloc(nn * sizeof(*d->full))) ||
	    !(d->racks = calloc(nr, sizeof(*d->racks))) ||
	    !(d->led_mask = calloc(nn, sizeof(*d->led_mask))) ||
	    !(d->led_nodes = malloc(nn * sizeof(*d->led_nodes))) ||
	    !(d->led_racks = malloc(nr * sizeof(*d->led_racks))) ||
	    !(d->led_draw = calloc(nr, sizeof(*d->led_draw)))) {
		if (!*err->text)
			gp__errorf(err, GP_ENOMEM, "out of memory");
		decider_free(d);
		return -1;
	}
	d->one_weight = true;
	for (i = 0; i < cl->nnodes; i++) {
		int32_t g = cl->nodes[i].ngpus;

		d->full[i] = g >= 32 ? ~0u : g <= 0 ? 0 : (1u << g) - 1;
		d->slurm_order[i] = i;
		if (cl->nodes[i].weight != cl->nodes[0].weight)
			d->one_weight = false;
	}
	order_cluster = cl;
	qsort(d->slurm_order, (size_t)cl->nnodes, sizeof(*d->slurm_order), by_slurm_order);
	slot_hold(&conf_slot, &c->ref);
	d->conf = c;
	return 0;
}

/* Swap d in as the current decider (dec.lock held); the old one comes
 * back in d, for the caller to free outside the lock.  The ledger and the
 * checkpoint bookings belong to the old model and are emptied. */
static void decider_swap(struct decider *d)
{
	struct decider old = dec.cur;

	ledger_clear();
	dec.bookings.n = 0; /* storage indices belong to the old model */
	dec.cur = *d;
	dec.ledger.nnodes = dec.ledger.nracks = 0;
	*d = old;
}

/* Release everything (fini, after the thread stopped). */
void decider_reset(void)
{
	struct decider none;

	memset(&none, 0, sizeof(none));
	pthread_mutex_lock(&dec.lock);
	decider_swap(&none);
	pthread_mutex_unlock(&dec.lock);
	decider_free(&none);
}

/*
 * On the plugin's thread (and in init when it cannot start): when the
 * current configuration has no decider, build one outside every lock and
 * install it under dec.lock, as the snapshot is published.  Until then
 * job_submit lets jobs pass unchanged (PASS_NO_ENGINE, logged once).
 */
void decider_prepare(void)
{
	struct gp_conf *c = conf_get();
	struct decider d;
	gp_error_t err;
	bool have;

	if (!c)
		return;
	pthread_mutex_lock(&dec.lock);
	have = dec.cur.conf == c;
	pthread_mutex_unlock(&dec.lock);
	if (have || c == dec.failed) {
		conf_put(c);
		return;
	}
	if (decider_build(c, &d, &err) != 0) {
		slurm_error("gpuplace: cannot set up the placement engine: %s; jobs pass unchanged",
		            err.text);
		conf_put(dec.failed);
		dec.failed = c; /* the reference conf_get() took */
		return;
	}
	pthread_mutex_lock(&dec.lock);
	if (dec.cur.conf == c) {
		/* another caller installed one for c while this one was
		 * built: keep it, with the decisions already in its ledger
		 * (swapping would empty the ledger, and a job passed or pinned
		 * meanwhile would be forgotten) */
		pthread_mutex_unlock(&dec.lock);
		decider_free(&d);
		conf_put(c);
		return;
	}
	decider_swap(&d);
	pthread_mutex_unlock(&dec.lock);
	decider_free(&d); /* the old one */
	conf_put(dec.failed);
	dec.failed = NULL;
	conf_put(c);
	pass_resolved(PASS_NO_ENGINE);
}

/* A decision's job in the snapshot's recent jobs (by the reference in its
 * admin comment), the first one listed, or -1. */
static int32_t ledger_match(const struct ledger_entry *e, const struct gp_snap *sn)
{
	const gp_live_view_t *v = &sn->view;
	int32_t k;

	if (sn->indexed) {
		struct seen_key want = { e->ref, 0, 0, INT32_MIN };

		k = seen_lower_bound(sn->by_ref, sn->nby_ref, &want);
		return k < sn->nby_ref && sn->by_ref[k].a == e->ref ? sn->by_ref[k].k : -1;
	}
	for (k = 0; k < v->nseen; k++)
		if (v->seen[k].ref == e->ref)
			return k;
	return -1;
}

/* A passed job carries no reference: the jobs of its uid and name
 * submitted around its time stand for it (which of several identical jobs
 * went where is not known).  Returns how many there are, *pending how many
 * of them still pend. */
static int32_t guess_group(const struct ledger_entry *e, const struct gp_snap *sn,
                           int32_t *pending)
{
	const gp_live_view_t *v = &sn->view;
	int32_t k, n = 0;

	*pending = 0;
	if (sn->indexed) {
		struct seen_key want = { e->uid, e->name_hash, e->time - 1, INT32_MIN };

		for (k = seen_lower_bound(sn->by_name, sn->nby_name, &want);
		     k < sn->nby_name && sn->by_name[k].a == e->uid &&
		     sn->by_name[k].b == e->name_hash && sn->by_name[k].t <= e->time + GP_LEDGER_GRACE_S;
		     k++) {
			n++;
			if (!v->seen[sn->by_name[k].k].started)
				(*pending)++;
		}
		return n;
	}
	for (k = 0; k < v->nseen; k++) {
		const gp_live_seen_t *j = &v->seen[k];

		if (!j->ref && j->uid == e->uid && j->name_hash == e->name_hash &&
		    j->submit_time >= e->time - 1 && j->submit_time <= e->time + GP_LEDGER_GRACE_S) {
			n++;
			if (!j->started)
				(*pending)++;
		}
	}
	return n;
}

/* Does entry e leave the ledger in snapshot sn?  Depends on e and sn
 * alone, so it is asked once per entry and snapshot. */
static bool ledger_drops(const struct ledger_entry *e, const struct gp_snap *sn)
{
	const gp_live_view_t *v = &sn->view;
	bool expired = v->jobs_time >= e->time + GP_LEDGER_GRACE_S;

	if (e->ref) {
		int32_t m = ledger_match(e, sn);

		/* started: its GPUs are in Slurm's counts now; held (or
		 * waiting for a dependency or begin time): it takes
		 * nothing for now; pending: it waits for its set */
		return m >= 0 ? v->seen[m].started || v->seen[m].held : expired;
	} else {
		int32_t pending, n = guess_group(e, sn, &pending);

		return (n > 0 && pending == 0) || expired;
	}
}

/* Entries Slurm has caught up with in snapshot sn leave the ledger: each
 * entry is checked once per snapshot (the ones added since the last call
 * with the same snapshot only), and the sums are rebuilt only when one
 * left. */
static void ledger_prune(const struct gp_snap *sn)
{
	int k, kept;

	if (sn->ref.gen != dec.ledger.gen || dec.ledger.nchecked > dec.ledger.n) {
		dec.ledger.gen = sn->ref.gen;
		dec.ledger.nchecked = 0;
	}
	kept = dec.ledger.nchecked;
	for (k = dec.ledger.nchecked; k < dec.ledger.n; k++) {
		struct ledger_entry *e = &dec.ledger.e[k];

		if (ledger_drops(e, sn)) {
			free(e->nodes);
			free(e->mask);
			continue;
		}
		dec.ledger.e[kept++] = *e;
	}
	if (kept != dec.ledger.n) {
		dec.ledger.n = kept;
		ledger_index_rebuild();
	}
	dec.ledger.nchecked = dec.ledger.n;
	if (dec.ledger.full_logged && dec.ledger.n < GP_LEDGER_MAX) {
		slurm_info(
		    "gpuplace: the ledger has room again (%d of %d entries): jobs can be PINned",
		    dec.ledger.n, GP_LEDGER_MAX);
		dec.ledger.full_logged = false;
	}
}

/*
 * Can the CPUs or memory `need' asks for keep some node of snapshot sn
 * from giving the job a free GPU (gp_live_usable_gpus)?  false only when
 * no node with a GPU free can be short of them, by the snapshot's
 * summary: then the pass over every node is skipped.  The ledger only
 * takes GPUs, so nodes without a free GPU in the snapshot never matter.
 */
static bool need_limits(const struct gp_snap *sn, const gp_live_need_t *need)
{
	int32_t cpus = need->cpus_per_node > 0 ? need->cpus_per_node : 1;
	int64_t mem = need->mem_per_node_mb > 0 ? need->mem_per_node_mb : 1;

	if (sn->min_cpus_free == INT32_MAX)
		return false; /* no node reported: none is limited */
	if (need->idle_node && sn->some_allocated)
		return true;
	if (sn->min_cpus_free < cpus)
		return true;
	if (need->mem_per_node_mb < 0 ? sn->some_allocated || sn->some_mem_unknown
	                              : sn->min_mem_free_mb < mem)
		return true;
	/* per GPU: enough for every GPU a node can have */
	if (need->cpus_per_gpu > 0 &&
	    sn->min_cpus_free / need->cpus_per_gpu < GP_MAX_GPUS_PER_NODE)
		return true;
	if (need->mem_per_gpu_mb > 0 &&
	    sn->min_mem_free_mb / need->mem_per_gpu_mb < GP_MAX_GPUS_PER_NODE)
		return true;
	return false;
}

/*
 * work := the snapshot plus the ledger, then the GPUs of nodes that lack
 * the CPUs or memory `need' asks for count as busy (need NULL: only nodes
 * with no CPU or no memory left at all).  Entries Slurm has caught up with
 * leave the ledger.  O(nodes) copies and the need, O(nodes the ledger
 * touches) for the ledger.
 */
void prepare_work(const struct gp_snap *sn, const gp_live_need_t *need)
{
	static const gp_live_need_t any = { 1, 1, 0, 0, 0 };
	const gp_live_view_t *v = &sn->view;
	const gp_state_t *st = v->state;
	int32_t nn = dec.cur.conf->cluster->nnodes, i;
	int k;

	memcpy(dec.cur.work->node_flags, st->node_flags,
	       (size_t)nn * sizeof(*dec.cur.work->node_flags));
	memcpy(dec.cur.work->alloc_mask, st->alloc_mask,
	       (size_t)nn * sizeof(*dec.cur.work->alloc_mask));
	dec.cur.work->time = st->time;
	/* the running jobs are the snapshot's: borrowed for this decision */
	dec.cur.work->jobs = st->jobs;
	dec.cur.work->njobs = st->njobs;
	ledger_prune(sn);
	if (dec.ledger.unbooked_gen && dec.ledger.unbooked_gen != sn->ref.gen) {
		/* a reading since: the passed jobs show in Slurm's counts */
		dec.ledger.unbooked = 0;
		dec.ledger.unbooked_gen = 0;
	}
	if (dec.ledger.skip_ref) {
		/* a steering re-decision: every entry but its job's own (the
		 * plugin's thread, off the submission path) */
		for (k = 0; k < dec.ledger.n; k++)
			if (dec.ledger.e[k].ref != dec.ledger.skip_ref)
				for (i = 0; i < dec.ledger.e[k].n; i++)
					dec.cur.work->alloc_mask[dec.ledger.e[k].nodes[i]] |=
					    dec.ledger.e[k].mask[i];
	} else {
		for (i = 0; i < dec.ledger.nnodes; i++)
			dec.cur.work->alloc_mask[dec.cur.led_nodes[i]] |=
			    dec.cur.led_mask[dec.cur.led_nodes[i]];
	}
	if (!need)
		need = &any;
	if (!need_limits(sn, need))
		return; /* every node with a GPU free gives the job all of them */
	for (i = 0; i < nn; i++) {
		uint32_t full = node_full(i), freem = full & ~dec.cur.work->alloc_mask[i];
		int32_t nfree, use;
		int g;

		if (!freem)
			continue; /* nothing to give, nothing to take away */
		nfree = gp__popcount(freem);
		use = gp_live_usable_gpus(&v->res[i], need, nfree);
		/* the GPUs it cannot give this job count as busy, highest first */
		for (g = 31; g >= 0 && nfree > use; g--)
			if (freem & (1u << g)) {
				dec.cur.work->alloc_mask[i] |= 1u << g;
				nfree--;
			}
	}
}

/* dec.cur.racks := the snapshot's racks less the power of the ledger's jobs,
 * which Slurm's counts (and so the snapshot's estimate or measurement) do
 * not hold yet: a burst of decisions cannot over-commit a rack.  After
 * prepare_work (which leaves only such entries in the ledger). */
const gp_rack_view_t *ledger_racks(const gp_rack_view_t *from)
{
	int k;

	if (!from || !dec.cur.racks)
		return from;
	memcpy(dec.cur.racks, from, (size_t)dec.cur.conf->cluster->nracks * sizeof(*dec.cur.racks));
	if (!dec.ledger.skip_ref) {
		gp_ledger_power_apply(dec.cur.racks, dec.cur.led_draw, dec.cur.led_racks,
		                      dec.ledger.nracks);
		return dec.cur.racks;
	}
	for (k = 0; k < dec.ledger.n; k++)
		if (dec.ledger.e[k].ref != dec.ledger.skip_ref)
			gp_ledger_power_subtract(dec.cur.conf->cluster, dec.cur.racks,
			                         dec.ledger.e[k].nodes, dec.ledger.e[k].mask,
			                         dec.ledger.e[k].n, dec.ledger.e[k].cap_w);
	return dec.cur.racks;
}

/* The ledger is full: said once at info until it has room again. */
static void ledger_full_note(void)
{
	if (dec.ledger.full_logged)
		return;
	dec.ledger.full_logged = true;
	slurm_info("gpuplace: the ledger holds %d decisions Slurm has not started yet, its "
	           "bound: later jobs are CONSTRAINed to their domain instead of PINned, and "
	           "passed jobs block PINs until the next reading, until Slurm starts some",
	           GP_LEDGER_MAX);
}

/* Add an entry; false when the ledger is full or memory is short (the
 * caller must then not PIN the job). */
bool ledger_add(const int32_t *nodes, const uint32_t *mask, int32_t n, uint64_t ref,
                uint32_t uid, uint64_t name_hash, bool until_started, double cap_w,
                bool certain, int64_t submitted)
{
	struct ledger_entry *e;

	if (n <= 0)
		return false;
	if (dec.ledger.n == GP_LEDGER_MAX) {
		ledger_full_note();
		return false;
	}
	e = &dec.ledger.e[dec.ledger.n];
	e->nodes = malloc((size_t)n * sizeof(*e->nodes));
	e->mask = malloc((size_t)n * sizeof(*e->mask));
	if (!e->nodes || !e->mask) {
		free(e->nodes);
		free(e->mask);
		return false;
	}
	memcpy(e->nodes, nodes, (size_t)n * sizeof(*e->nodes));
	memcpy(e->mask, mask, (size_t)n * sizeof(*e->mask));
	e->n = n;
	e->time = (int64_t)time(NULL);
	e->submitted = submitted > 0 && submitted < e->time ? submitted : e->time;
	e->ref = ref;
	e->uid = uid;
	e->name_hash = name_hash;
	e->until_started = until_started;
	e->cap_w = cap_w;
	e->certain = certain;
	dec.ledger.n++;
	ledger_index_add(e);
	return true;
}

/*
 * Where Slurm would most likely start a job that passed unchanged, for the
 * ledger: nodes in Slurm's order (lowest Weight first, then slurm.conf
 * order) that are up and have the GPUs free, `per_node' GPUs on each of
 * `nodes' nodes, or the whole `gpus' on the first node that has them,
 * among the job's --nodelist if it has one and never on its --exclude.  A
 * guess (Slurm also weighs CPUs, topology and its own queue), which is why
 * the entry leaves the ledger as soon as Slurm lists the job.  Not booked
 * (the ledger full), it counts as an unconfirmed guess until the next
 * snapshot (sn).
 */
static void ledger_add_guess(const gp_request_t *r, int32_t nodes, uint32_t uid,
                             uint64_t name_hash, const struct gp_snap *sn, int32_t rack)
{
	int32_t gpus = r->gpus, per_node = r->gpus_per_node;
	const uint32_t bad = GP_NODE_DOWN | GP_NODE_DRAIN | GP_NODE_RESERVED;
	int32_t nn = dec.cur.conf->cluster->nnodes, k, got = 0, want, take;
	int32_t idx[64];
	uint32_t mask[64];
	bool booked = true;

	if (gpus <= 0)
		return;
	if (per_node <= 0) {
		per_node = nodes > 1 ? (gpus + nodes - 1) / nodes : gpus;
		want = nodes > 1 ? nodes : 1;
	} else {
		want = nodes > 0 ? nodes : 1;
	}
	if (want > 64)
		return;
	if (r->nrequired == want) {
		/* -w naming exactly the nodes it takes: they are booked even
		 * when this view (up to a refresh old) still shows them full,
		 * since their old jobs may just have ended; free GPUs first,
		 * then the lowest of the rest */
		for (k = 0; k < r->nrequired; k++) {
			int32_t i = r->required[k], g;
			uint32_t freem = node_full(i) & ~dec.cur.work->alloc_mask[i], m = 0;

			take = per_node;
			for (g = 0; g < 32 && take > 0; g++)
				if (freem & (1u << g)) {
					m |= 1u << g;
					take--;
				}
			for (g = 0; g < 32 && take > 0; g++)
				if ((node_full(i) & (1u << g)) && !(m & (1u << g))) {
					m |= 1u << g;
					take--;
				}
			idx[got] = i;
			mask[got++] = m;
		}
		booked = ledger_add(idx, mask, got, 0, uid, name_hash, false, 0.0, true, 0);
	} else {
		/* the lists as a map: linear in them, not their product with
		 * the nodes (a typed request excludes every node of other
		 * types) */
		uint8_t *lists = r->nrequired > 0 || r->nexcluded > 0
		               ? gp__node_marks(nn, r->required, r->nrequired, r->excluded,
		                                r->nexcluded)
		               : NULL;

		if (!lists && (r->nrequired > 0 || r->nexcluded > 0))
			want = 0; /* out of memory: no guess */
		for (k = 0; k < nn && got < want; k++) {
			int32_t i = dec.cur.slurm_order[k], g;
			uint32_t freem = node_full(i) & ~dec.cur.work->alloc_mask[i], m = 0;

			if ((dec.cur.work->node_flags[i] & bad) || gp__popcount(freem) < per_node ||
			    (rack >= 0 && dec.cur.conf->cluster->nodes[i].rack != rack) ||
			    (r->nrequired && !(lists[i] & GP_MARK_A)) ||
			    (lists && (lists[i] & GP_MARK_B)))
				continue;
			take = per_node;
			for (g = 0; g < 32 && take > 0; g++)
				if (freem & (1u << g)) {
					m |= 1u << g;
					take--;
				}
			idx[got] = i;
			mask[got++] = m;
		}
		free(lists);
		/* -w naming exactly the nodes it takes: only the GPU indices
		 * are a guess, the nodes and counts are not */
		if (got == want && want > 0)
			booked = ledger_add(idx, mask, got, 0, uid, name_hash, false, 0.0,
			                    r->nrequired == got, 0);
	}
	if (!booked) {
		/* where it goes is unknown to the ledger: no PIN until the
		 * next reading shows it */
		dec.ledger.unbooked++;
		dec.ledger.unbooked_gen = sn->ref.gen;
	}
}

/* A job passing unchanged still takes GPUs: book where Slurm would most
 * likely put it, so the next decisions do not count those GPUs free.
 * true when the ledger was asked (the caller then asks the plugin's
 * thread for a reading soon), false when there is no state to book on or
 * the job's node lists cannot be read. */
bool book_pass(struct gp_conf *c, job_desc_msg_t *j, gp_request_t *r,
               const char *type, uint32_t uid, const char *label, uint64_t *kept_ref)
{
	int32_t rack = -1;
	int64_t count = 0;
	char why[256];
	gp_error_t err;
	struct gp_snap *sn = snap_get();
	gp_live_need_t need;
	int32_t nodes = j->min_nodes == NO_VAL || j->min_nodes == 0 ? 0 : (int32_t)j->min_nodes;
	uint64_t ref = 0;

	*kept_ref = 0;
	if (!sn || sn->conf != c || (int64_t)time(NULL) - sn->view.state->time > GP_STATE_STALE_S) {
		snap_put(sn);
		return false;
	}
	/* the node lists, unless build_request read them already */
	if (node_lists(j, c->cluster, r, &err) ||
	    (*type && restrict_to_type(r, c->cluster, type, why, sizeof(why)))) {
		snap_put(sn);
		return false;
	}
	job_need(j, daemon_default_mem(), &need);
	pthread_mutex_lock(&dec.lock);
	if (dec.cur.conf == c) {
		prepare_work(sn, &need);
		/* PowerLicenses: the rack it is kept to, where the guess books it */
		if (c->lic_name)
			rack = lic_pick(c, sn, j, r, type, -1, &count, label);
		if (rack >= 0) {
			/* what the user asked, for an update that moves it
			 * (job_modify) */
			ref = dec.ref_base + ++dec.ref_seq;
			orig_save(j, ref, NULL, 0.0, uid, false, true);
		}
		ledger_add_guess(r, nodes, uid, gp_live_name_hash(j->name), sn, rack);
		dec.cur.work->jobs = NULL; /* borrowed from the snapshot */
		dec.cur.work->njobs = 0;
	}
	pthread_mutex_unlock(&dec.lock);
	snap_put(sn);
	if (rack >= 0 && lic_keep(j, c, rack, count, true, label)) {
		orig_lic_added(ref);
		*kept_ref = ref;
	}
	return true;
}
