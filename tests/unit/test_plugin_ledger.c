/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_plugin_ledger.c - job_submit/gpuplace's ledger of decisions Slurm
 * has not started yet, through the plugin's real job_submit() (its files
 * compiled in, as tests/unit/test_plugin_apply.c does, linked with libslurm's
 * allocator): the ledger is bounded and, at the bound, no two jobs are ever
 * pinned to the same GPUs; the indexed ledger (per-node masks, per-rack
 * draw, each entry checked once per snapshot) gives exactly the view a
 * straightforward recomputation over every entry gives, on random ledgers.
 *
 * The cluster state is published as the plugin's thread publishes it
 * (snap_publish): outside slurmctld that thread reads none.
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "job_submit_gpuplace.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "synth.h"
#include "plugin_job.h"

/* A configuration made of a synthetic site (racks with ample power: the
 * ledger, not the racks, decides here), published and with its engine
 * built, as init() and the plugin's thread make them. */
static struct gp_conf *site(int32_t nodes, double rack_kw)
{
	struct gp_conf *c = calloc(1, sizeof(*c));
	gp_synth_params_t sp;
	gp_error_t err;

	assert_non_null(c);
	gp__synth_defaults(&sp);
	sp.nodes = nodes;
	sp.rack_kw = rack_kw;
	if (gp__synth_build(&sp, &c->cluster, &err) != GP_OK)
		fail_msg("%s", err.text);
	gp__policy_default(c->cluster, &c->policy);
	conf_publish(c);
	decider_prepare();
	assert_true(dec.cur.conf == c);
	return c;
}

static void site_end(void)
{
	decider_reset();
	origs_clear();
	slots_clear();
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* publish(): CPUs and memory of half the nodes reported, random */
static bool random_res;

/*
 * A reading of the cluster: GPUs busy as busy[] says (NULL: none), CPUs
 * and memory not reported (not limiting; random_res: half of the nodes
 * reported with random CPUs and memory left), the recent jobs
 * seen[0..nseen-1] and Slurm's job list read at jobs_time; stamped now.
 */
static void publish(const uint32_t *busy, const gp_live_seen_t *seen, int32_t nseen,
                    int64_t jobs_time)
{
	struct gp_conf *c = conf_get();
	struct gp_snap *sn = calloc(1, sizeof(*sn));
	int32_t nn = c->cluster->nnodes;

	assert_non_null(sn);
	assert_int_equal(gp_state_create(c->cluster, &sn->view.state), GP_OK);
	if (busy)
		memcpy(sn->view.state->alloc_mask, busy, (size_t)nn * sizeof(*busy));
	sn->view.state->time = (int64_t)time(NULL);
	sn->view.res = calloc((size_t)nn, sizeof(*sn->view.res));
	sn->view.seen = calloc((size_t)nseen + 1, sizeof(*sn->view.seen));
	sn->racks = calloc((size_t)c->cluster->nracks + 1, sizeof(*sn->racks));
	assert_true(sn->view.res && sn->view.seen && sn->racks);
	for (int32_t i = 0; random_res && i < nn; i++) {
		gp_live_res_t *r = &sn->view.res[i];

		if (rnd(2))
			continue;
		r->known = true;
		r->cpus_total = 64;
		r->cpus_free = rnd(10) ? 64 - (int32_t)rnd(4) : (int32_t)rnd(65);
		r->mem_mb = rnd(20) ? 1000 : 0;
		r->mem_free_mb = rnd(10) ? 1000 : (int64_t)rnd(1001);
	}
	if (nseen)
		memcpy(sn->view.seen, seen, (size_t)nseen * sizeof(*seen));
	sn->view.nseen = nseen;
	sn->view.jobs_time = jobs_time;
	sn->resv_ok = true;
	gp__power_view_fill(c->cluster, sn->view.state, NULL, &c->policy,
	                    (double)sn->view.state->time, sn->racks);
	sn->conf = c; /* the reference conf_get() took */
	snap_publish(sn);
}

static job_desc_msg_t *job_new(int gpus)
{
	char per[32];
	job_desc_msg_t *j;

	snprintf(per, sizeof(per), "gres:gpu:%d", gpus);
	j = gp_test_job_new(per, NULL);
	j->name = slurm_xstrdup("burst");
	return j;
}

/* What Slurm is told for one job: PINned nodes (-1 = not a PIN) and its
 * decision reference. */
struct told {
	int32_t node;
	int32_t gpus;
	uint64_t ref;
	bool ledger_full;
};

static void submit(struct told *t)
{
	job_desc_msg_t *j = job_new(2);
	char *msg = NULL;

	assert_int_equal(job_submit(j, 1000, &msg), SLURM_SUCCESS);
	assert_non_null(j->admin_comment);
	t->ref = gp_comment_ref(j->admin_comment);
	t->node = -1;
	t->gpus = 0;
	t->ledger_full = strstr(j->admin_comment, "ledger") != NULL;
	if (!strncmp(j->admin_comment, "gpuplace: PIN ", 14)) {
		/* a 2-GPU job on one node: req_nodes is that node */
		assert_non_null(j->req_nodes);
		t->node = gp__node_find(dec.cur.conf->cluster, j->req_nodes);
		assert_true(t->node >= 0);
		assert_int_equal(j->min_nodes, 1);
		assert_int_equal(j->max_nodes, 1);
		t->gpus = 2;
	}
	slurm_xfree((void **)&msg);
	gp_test_job_free(j);
}

/*
 * More jobs than the ledger holds, submitted between two readings of an
 * idle cluster whose GPUs are enough for all of them: every PIN the plugin
 * hands Slurm must fit in what the reading showed free less the earlier
 * PINs, however many jobs came before.  (With the ledger full and its
 * refusal ignored, every later job was pinned to the same GPUs.)  Then
 * Slurm starts the first jobs: the ledger has room again, and new PINs
 * still never share GPUs with any job, started or pinned.
 */
static void test_ledger_bound(void **unused)
{
	const int32_t nodes = GP_LEDGER_MAX / 4 + 64, njobs = GP_LEDGER_MAX + 300;
	const int32_t nstarted = 1000, nafter = 100;
	struct told *t = calloc((size_t)(njobs + nafter), sizeof(*t));
	int32_t *used, i, k, pins = 0, refused = 0, over = 0;
	uint32_t *busy;
	gp_live_seen_t *seen;
	int64_t t0 = (int64_t)time(NULL);

	assert_non_null(t);
	site(nodes, 1000.0);
	used = calloc((size_t)nodes, sizeof(*used));
	busy = calloc((size_t)nodes, sizeof(*busy));
	seen = calloc((size_t)nstarted, sizeof(*seen));
	assert_true(used && busy && seen);
	publish(NULL, NULL, 0, t0);
	for (k = 0; k < njobs; k++) {
		/* the plugin reads the cluster every 2 s: a burst of jobs
		 * between readings that list none of them yet (Slurm's job
		 * list as read at t0) */
		if (k % 512 == 511)
			publish(NULL, NULL, 0, t0);
		submit(&t[k]);
		if (t[k].node >= 0) {
			pins++;
			used[t[k].node] += t[k].gpus;
		}
		refused += t[k].ledger_full;
	}
	for (i = 0; i < nodes; i++)
		if (used[i] > dec.cur.conf->cluster->nodes[i].ngpus)
			over++;
	print_message("# %d jobs: %d PINs, %d not pinned because the ledger was full "
	              "(%d entries), %d nodes over-committed\n",
	              njobs, pins, refused, dec.ledger.n, over);
	if (over)
		fail_msg("%d nodes pinned beyond their free GPUs", over);
	/* the scenario filled the ledger, and what happens at its bound */
	assert_true(pins >= GP_LEDGER_MAX);
	assert_int_equal(dec.ledger.n, GP_LEDGER_MAX);
	assert_true(refused >= njobs - GP_LEDGER_MAX - 8);
	assert_true(dec.ledger.full_logged);

	/* Slurm starts the first nstarted jobs: their GPUs are in its counts,
	 * their entries leave the ledger, and new jobs are PINned again */
	for (k = 0; k < nstarted; k++) {
		struct ledger_entry *e = ledger_find(t[k].ref);

		/* it runs on the GPUs it was pinned to */
		assert_true(t[k].node >= 0);
		assert_non_null(e);
		busy[t[k].node] |= e->mask[0];
		seen[k].job_id = (uint32_t)k + 1;
		seen[k].uid = 1000;
		seen[k].submit_time = t0;
		seen[k].ref = t[k].ref;
		seen[k].started = true;
	}
	publish(busy, seen, nstarted, (int64_t)time(NULL));
	pins = 0;
	for (k = njobs; k < njobs + nafter; k++) {
		submit(&t[k]);
		if (t[k].node >= 0) {
			pins++;
			used[t[k].node] += t[k].gpus;
		}
	}
	assert_int_equal(pins, nafter);
	assert_false(dec.ledger.full_logged);
	for (i = 0; i < nodes; i++)
		if (used[i] > dec.cur.conf->cluster->nodes[i].ngpus)
			fail_msg("node %d: %d GPUs pinned of %d", i, used[i],
			         dec.cur.conf->cluster->nodes[i].ngpus);
	site_end();
	free(t);
	free(used);
	free(busy);
	free(seen);
}

/* ---- the indexed ledger against a straightforward recomputation -------- */

/* The reference: every entry kept as the ledger was before it was
 * indexed, and its view recomputed from all of them at every call. */
struct ref_entry {
	int64_t time;
	uint64_t ref;
	uint32_t uid;
	uint64_t name_hash;
	bool certain;
	double cap_w;
	int32_t n;
	int32_t nodes[4];
	uint32_t mask[4];
};

static struct ref_entry *refl;
static int nrefl;

/* The old prepare_work and ledger_racks over the reference entries:
 * drop what the snapshot shows caught up with, then OR every remaining
 * entry's masks into alloc and subtract its power from racks, entry by
 * entry. */
static void reference_view(const gp_live_view_t *v, const gp_rack_view_t *from,
                           const gp_live_need_t *need, uint32_t *alloc, gp_rack_view_t *racks,
                           int *unconfirmed, int64_t *oldest)
{
	static const gp_live_need_t any = { 1, 1, 0, 0, 0 };
	const gp_cluster_t *c = dec.cur.conf->cluster;
	int k, kept = 0;
	int32_t i, m;

	memcpy(alloc, v->state->alloc_mask, (size_t)c->nnodes * sizeof(*alloc));
	memcpy(racks, from, (size_t)c->nracks * sizeof(*racks));
	*unconfirmed = 0;
	*oldest = 0;
	for (k = 0; k < nrefl; k++) {
		struct ref_entry *e = &refl[k];
		bool expired = v->jobs_time >= e->time + GP_LEDGER_GRACE_S, drop;

		if (e->ref) {
			for (m = 0; m < v->nseen && v->seen[m].ref != e->ref; m++)
				;
			drop = m < v->nseen ? v->seen[m].started || v->seen[m].held : expired;
		} else {
			int32_t n = 0, pending = 0;

			for (m = 0; m < v->nseen; m++) {
				const gp_live_seen_t *j = &v->seen[m];

				if (!j->ref && j->uid == e->uid && j->name_hash == e->name_hash &&
				    j->submit_time >= e->time - 1 &&
				    j->submit_time <= e->time + GP_LEDGER_GRACE_S) {
					n++;
					pending += !j->started;
				}
			}
			drop = (n > 0 && pending == 0) || expired;
		}
		if (drop)
			continue;
		for (i = 0; i < e->n; i++)
			alloc[e->nodes[i]] |= e->mask[i];
		gp_ledger_power_subtract(c, racks, e->nodes, e->mask, e->n, e->cap_w);
		if (!*oldest || e->time < *oldest)
			*oldest = e->time;
		if (!e->ref && !e->certain)
			(*unconfirmed)++;
		refl[kept++] = *e;
	}
	nrefl = kept;
	/* the GPUs a node cannot give for want of CPUs or memory: busy,
	 * highest first, on every node */
	if (!need)
		need = &any;
	for (i = 0; i < c->nnodes; i++) {
		int32_t g = c->nodes[i].ngpus;
		uint32_t full = g >= 32 ? ~0u : (1u << g) - 1, freem = full & ~alloc[i];
		int32_t nfree = gp__popcount(freem), use = gp_live_usable_gpus(&v->res[i], need, nfree);

		for (g = 31; g >= 0 && nfree > use; g--)
			if (freem & (1u << g)) {
				alloc[i] |= 1u << g;
				nfree--;
			}
	}
}

/* A random entry, added to the plugin's ledger and to the reference. */
static void add_random(uint64_t ref, uint32_t uid, uint64_t hash)
{
	const gp_cluster_t *c = dec.cur.conf->cluster;
	struct ref_entry *e = &refl[nrefl];
	int32_t i;

	memset(e, 0, sizeof(*e));
	e->n = 1 + (int32_t)rnd(4);
	for (i = 0; i < e->n; i++) {
		e->nodes[i] = (int32_t)rnd((uint32_t)c->nnodes);
		e->mask[i] = 1u + rnd(255);
	}
	e->ref = ref;
	e->uid = uid;
	e->name_hash = hash;
	e->certain = !ref && rnd(4) == 0;
	e->cap_w = rnd(3) == 0 ? 300.0 + rnd(400) : 0.0;
	assert_true(ledger_add(e->nodes, e->mask, e->n, ref, uid, hash, ref != 0, e->cap_w,
	                       e->certain, 0));
	e->time = dec.ledger.e[dec.ledger.n - 1].time;
	nrefl++;
}

/*
 * Random ledgers (decisions with references, passed jobs' guesses in a
 * few uid/name groups) against random readings (their jobs listed or not,
 * pending, held or started, Slurm's job list read before or long after the
 * decisions): after every submission-like call the plugin's view - GPUs in
 * use, racks' headroom, the guesses standing, the oldest entry, the
 * entries kept - must be the reference's.  Several calls per reading, with
 * entries added between them, exercise the once-per-reading checks.
 */
static void test_ledger_index_matches(void **unused)
{
	const int rounds = 60, per_round = 40;
	uint32_t *alloc;
	gp_rack_view_t *racks;
	gp_live_seen_t *seen;
	uint64_t next_ref = 1;
	int r, q, k, compared = 0;

	/* racks whose power binds (the synthetic default: cap = peak) */
	site(256, 0.0);
	alloc = calloc((size_t)dec.cur.conf->cluster->nnodes, sizeof(*alloc));
	racks = calloc((size_t)dec.cur.conf->cluster->nracks + 1, sizeof(*racks));
	refl = calloc(GP_LEDGER_MAX, sizeof(*refl));
	seen = calloc(4096, sizeof(*seen));
	assert_true(alloc && racks && refl && seen);
	nrefl = 0;
	for (r = 0; r < rounds; r++) {
		int64_t now = (int64_t)time(NULL);
		int32_t nseen = 0;
		struct gp_snap *sn;

		/* the reading lists some of the ledger's jobs (some twice, as
		 * a list read across a change could), and other jobs */
		for (k = 0; k < nrefl && nseen < 4000; k++) {
			struct ref_entry *e = &refl[k];
			int copies = rnd(8) == 0 ? 2 : 1, c;

			if (rnd(3) == 0)
				continue; /* not listed */
			for (c = 0; c < copies; c++) {
				gp_live_seen_t *j = &seen[nseen++];

				memset(j, 0, sizeof(*j));
				j->job_id = (uint32_t)nseen;
				j->ref = e->ref;
				j->uid = e->uid;
				j->name_hash = e->name_hash;
				j->submit_time = e->time + (int64_t)rnd(4) - 1;
				j->started = rnd(4) == 0;
				j->held = !j->started && rnd(6) == 0;
			}
		}
		for (k = 0; k < 20; k++) {
			gp_live_seen_t *j = &seen[nseen++];

			memset(j, 0, sizeof(*j));
			j->uid = 1000 + rnd(3);
			j->name_hash = rnd(3);
			j->submit_time = now - 12 + (int64_t)rnd(30);
			j->started = rnd(2);
		}
		random_res = r % 3 != 0;
		publish(NULL, seen, nseen, now + (rnd(4) == 0 ? 2 * GP_LEDGER_GRACE_S : 0) -
		                               (int64_t)rnd(3));
		sn = snap_get();
		for (q = 0; q < per_round; q++) {
			int unconfirmed;
			int64_t oldest;
			gp_live_need_t need, *np = NULL;
			const gp_rack_view_t *mine;
			int32_t i;

			if (nrefl < GP_LEDGER_MAX - 8) {
				bool guess = rnd(3) == 0;

				add_random(guess ? 0 : next_ref++, 1000 + rnd(3), rnd(3));
			}
			/* what the job asks besides GPUs: nothing, or at random */
			if (rnd(3)) {
				memset(&need, 0, sizeof(need));
				need.cpus_per_node = (int32_t)rnd(9);
				need.mem_per_node_mb = rnd(8) == 0 ? -1 : (int64_t)rnd(600);
				need.cpus_per_gpu = rnd(3) == 0 ? (int32_t)rnd(9) : 0;
				need.mem_per_gpu_mb = rnd(3) == 0 ? (int64_t)rnd(200) : 0;
				need.idle_node = rnd(6) == 0;
				np = &need;
			}
			pthread_mutex_lock(&dec.lock);
			prepare_work(sn, np);
			mine = ledger_racks(sn->racks);
			pthread_mutex_unlock(&dec.lock);
			reference_view(&sn->view, sn->racks, np, alloc, racks, &unconfirmed, &oldest);
			assert_int_equal(dec.ledger.n, nrefl);
			for (k = 0; k < nrefl; k++)
				if (dec.ledger.e[k].ref != refl[k].ref || dec.ledger.e[k].time != refl[k].time)
					fail_msg("round %d: entry %d differs", r, k);
			for (i = 0; i < dec.cur.conf->cluster->nnodes; i++)
				if (dec.cur.work->alloc_mask[i] != alloc[i])
					fail_msg("round %d call %d: node %d mask %#x, recomputed %#x", r, q, i,
					         dec.cur.work->alloc_mask[i], alloc[i]);
			for (i = 0; i < dec.cur.conf->cluster->nracks; i++)
				if (isfinite(racks[i].headroom_w) != isfinite(mine[i].headroom_w) ||
				    (isfinite(racks[i].headroom_w) &&
				     fabs(racks[i].headroom_w - mine[i].headroom_w) > 1e-6))
					fail_msg("round %d: rack %d headroom %.9g W, recomputed %.9g W", r, i,
					         mine[i].headroom_w, racks[i].headroom_w);
			assert_int_equal(dec.ledger.unconfirmed, unconfirmed);
			assert_int_equal(dec.ledger.oldest, oldest);
			dec.cur.work->jobs = NULL;
			dec.cur.work->njobs = 0;
			compared++;
		}
		snap_put(sn);
	}
	random_res = false;
	print_message("# %d views compared, %d entries at the end\n", compared, dec.ledger.n);
	assert_true(dec.ledger.n > 0);
	site_end();
	free(alloc);
	free(racks);
	free(refl);
	free(seen);
}

/* A configuration without an engine built yet: the job passes unchanged
 * (the engine is built by the plugin's thread, never by a submission). */
static void test_no_engine_passes(void **unused)
{
	struct gp_conf *c = calloc(1, sizeof(*c));
	gp_synth_params_t sp;
	gp_error_t err;
	job_desc_msg_t *j;
	char *msg = NULL;

	assert_non_null(c);
	gp__synth_defaults(&sp);
	sp.nodes = 64;
	assert_int_equal(gp__synth_build(&sp, &c->cluster, &err), GP_OK);
	gp__policy_default(c->cluster, &c->policy);
	conf_publish(c);
	publish(NULL, NULL, 0, (int64_t)time(NULL));
	j = job_new(8);
	assert_int_equal(job_submit(j, 1000, &msg), SLURM_SUCCESS);
	assert_null(j->admin_comment);
	assert_null(j->req_nodes);
	assert_null(dec.cur.engine);
	gp_test_job_free(j);
	/* once built, the same job is placed */
	decider_prepare();
	j = job_new(8);
	assert_int_equal(job_submit(j, 1000, &msg), SLURM_SUCCESS);
	assert_non_null(j->admin_comment);
	gp_test_job_free(j);
	site_end();
}

/* A host list is read once per submission: book_pass reuses what
 * build_request read, and does not read again a list that failed (a
 * megabyte-long -w was read twice).  Shown by changing the strings
 * between the two reads: the second read must not see the change. */
static void test_node_lists_read_once(void **unused)
{
	job_desc_msg_t *j = job_new(16);
	gp_request_t r;
	gp_error_t err;
	char why[512], type[GP_NAME_MAX];

	site(64, 0.0);
	/* read by build_request; a later call keeps what it read */
	j->req_nodes = slurm_xstrdup_printf("%s,%s", dec.cur.conf->cluster->nodes[0].name,
	                                    dec.cur.conf->cluster->nodes[1].name);
	j->exc_nodes = slurm_xstrdup(dec.cur.conf->cluster->nodes[2].name);
	gp__request_init(&r);
	if (build_request(j, dec.cur.conf->cluster, &r, type, why, sizeof(why)) != 1)
		fail_msg("%s", why);
	assert_int_equal(r.nrequired, 2);
	slurm_xfree((void **)&j->req_nodes);
	j->req_nodes = slurm_xstrdup("nosuchnode");
	assert_int_equal(node_lists(j, dec.cur.conf->cluster, &r, &err), GP_OK);
	assert_int_equal(r.nrequired, 2);
	gp__request_clear(&r);
	/* a list that cannot be read is refused once, and not read again */
	assert_int_equal(build_request(j, dec.cur.conf->cluster, &r, type, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "nosuchnode"));
	assert_int_equal(r.nrequired, -1);
	slurm_xfree((void **)&j->req_nodes);
	j->req_nodes = slurm_xstrdup(dec.cur.conf->cluster->nodes[0].name);
	assert_int_not_equal(node_lists(j, dec.cur.conf->cluster, &r, &err), GP_OK);
	gp__request_clear(&r);
	slurm_xfree((void **)&j->exc_nodes);
	gp_test_job_free(j);
	site_end();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ledger_bound),
		cmocka_unit_test(test_ledger_index_matches),
		cmocka_unit_test(test_no_engine_passes),
		cmocka_unit_test(test_node_lists_read_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
