/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * job_submit_gpuplace.c - job_submit/gpuplace, loaded by slurmctld.
 *
 * Enabled with JobSubmitPlugins=gpuplace in slurm.conf; the policy comes
 * from gpuplace_* keys in SchedulerParameters, the facts (racks, power,
 * cooling, NVLink domains, GPU profiles, storage, telemetry) from
 * gpuplace.conf beside slurm.conf.  What it does for every submission:
 *   - collects the job's hints (sbatch/srun/salloc --gpuplace* options from
 *     spank_gpuplace.so, else GPUPLACE_* variables in a batch job's
 *     environment) and rejects a job whose hints are malformed, with a
 *     message that names the hint;
 *   - decides for a multi-GPU job on the cluster state its thread reads from
 *     slurmctld (live_state.h) plus its own ledger of recent decisions:
 *     PIN (req_nodes with min = max nodes, and GPUs per node where needed,
 *     so Slurm runs it on exactly that set), CONSTRAIN (a node feature
 *     expression keeping it in a domain, or Slurm's own --switches=N@T
 *     where topology/tree runs with one Weight) or REJECT, and writes the
 *     decision with what it assumed into the job's admin comment; nodes
 *     reserved during the job's run are not its to take, a job with
 *     --reservation stays inside it, and the racks' headroom is less the
 *     power of the ledger's jobs (steer.h); a planned GPU power cap goes
 *     into the job's SPANK environment for etc/prolog/gpuplace-powercap;
 *   - fails open: without a valid configuration or cluster state the job
 *     passes unchanged, and the reason is logged once, not once per job.
 * Per-job lines go to slurm_verbose (job id, or "job from uid N" before
 * slurmctld gives it one, and the job name), user mistakes too (with the
 * ESLURM_* code Slurm answers them with: they are Slurm's to judge),
 * failures of gpuplace itself to slurm_error (an engine failure at most once
 * a minute), and a summary of the last minute to slurm_info.  User text in
 * any line is escaped (gp_log).
 *
 * A background thread reads the cluster state (nodes, jobs, reservations)
 * every GP_REFRESH_S seconds, steers the pending jobs the plugin placed
 * whose situation changed (slurm_update_job, bounded by gpuplace_steer_max
 * and gpuplace_steer_interval; steer_pass), and reloads the configuration when slurm.conf, gpuplace.conf,
 * topology.conf, topology.yaml or gres.conf changes (so an edit takes effect with or
 * without `scontrol reconfigure`); a configuration that fails to load is
 * logged with file, line and key, and the last good one is kept.
 * job_submit never waits for a load or a network answer, nor builds the
 * placement engine (the thread builds it for each new configuration): it
 * takes references on the current immutable configuration and state under
 * short locks, and its own work grows with neither the ledger nor, beyond
 * one pass over the nodes, the cluster (bench/bench_job_submit).
 *
 * Linked with the run-time layers only (engine, conf, power over base; no
 * simulator, no hwloc: tests/unit/plugin_symbols.sh).  Everything handed to
 * slurmctld is allocated with Slurm's allocator (slurm_alloc.h); the engine
 * library underneath uses malloc and never sees a Slurm structure.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "slurm_compat.h"

#include "decide.h"
#include "gres_parse.h"
#include "live_state.h"
#include "model.h"
#include "cost.h"
#include "policy.h"
#include "power.h"
#include "request.h"
#include "slurm_emit.h"
#include "steer.h"

/* Slurm's plugin interface (src/plugins/job_submit, 22.05): slurmctld
 * resolves these by name; no installed header declares them. */
extern int init(void);
extern void fini(void);
extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg);
extern int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid,
                      char **err_msg);

/* ---- log lines ------------------------------------------------------------ */

/*
 * Every line this plugin writes to slurmctld's log goes through gp_log():
 * job names, comments, hints, node lists, partition and reservation names
 * come from the user, and a newline or another control character in one
 * of them must not end the line or forge another ("slurmctld: error: ...").
 * The slurm_error/info/verbose/debug calls below are macros for gp_log, so
 * no line can bypass it; log_sink calls Slurm's own functions.
 */
enum log_level { LOGL_ERROR, LOGL_INFO, LOGL_VERBOSE, LOGL_DEBUG };

/* s into buf[len] with each byte below 0x20, 0x7f and the backslash written
 * as \xNN (\\ for the backslash), cut with "..." when it does not fit.
 * Returns buf. */
static const char *log_escape(const char *s, char *buf, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (!len)
		return buf;
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		size_t need = ch < 0x20 || ch == 0x7f ? 4 : ch == '\\' ? 2 : 1;

		if (o + need + 4 > len) {
			if (o + 4 <= len)
				memcpy(buf + o, "...", 3), o += 3;
			break;
		}
		if (need == 4) {
			buf[o++] = '\\';
			buf[o++] = 'x';
			buf[o++] = hex[ch >> 4];
			buf[o++] = hex[ch & 15];
		} else {
			if (need == 2)
				buf[o++] = '\\';
			buf[o++] = (char)ch;
		}
	}
	buf[o] = '\0';
	return buf;
}

#ifndef GP_LOG_SINK
/* Slurm's log functions themselves (the parentheses keep the macros below
 * from applying). */
static void log_sink(int level, const char *line)
{
	switch (level) {
	case LOGL_ERROR:
		(slurm_error)("%s", line);
		break;
	case LOGL_INFO:
		(slurm_info)("%s", line);
		break;
	case LOGL_VERBOSE:
		(slurm_verbose)("%s", line);
		break;
	default:
		(slurm_debug)("%s", line);
		break;
	}
}
#define GP_LOG_SINK log_sink
#endif

static void gp_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void gp_log(int level, const char *fmt, ...)
{
	char raw[4096], line[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	GP_LOG_SINK(level, log_escape(raw, line, sizeof(line)));
}

#define slurm_error(...) gp_log(LOGL_ERROR, __VA_ARGS__)
#define slurm_info(...) gp_log(LOGL_INFO, __VA_ARGS__)
#define slurm_verbose(...) gp_log(LOGL_VERBOSE, __VA_ARGS__)
#define slurm_debug(...) gp_log(LOGL_DEBUG, __VA_ARGS__)

const char plugin_name[] = "gpuplace: topology- and power-aware GPU placement";
const char plugin_type[] = "job_submit/gpuplace";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* Where slurm.conf lives when slurmctld was started without SLURM_CONF
 * (Debian's and Slurm's default sysconfdir). */
#ifndef GP_DEFAULT_SLURM_CONF
#define GP_DEFAULT_SLURM_CONF "/etc/slurm/slurm.conf"
#endif
#define GP_REFRESH_S 2            /* longest gap between two readings of the
                                   * cluster state (and file checks) */
#define GP_REFRESH_GAP_MS 250     /* shortest gap: a decision wakes the state
                                   * thread at once, a burst at most 4x a second */
#define GP_STATE_STALE_S 30       /* older cluster state: jobs pass unchanged */
/* A PIN names nodes that were free when the state was read; if they were
 * taken since, Slurm holds the job for them.  The state is read every
 * GP_REFRESH_S (2 s) and right after each decision, so on a controller that
 * keeps up it is at most ~2 s old; older than 5 s means the readings fall
 * behind (a busy controller), and then the job is CONSTRAINed to the set's
 * domain, where Slurm may take any free set, instead of PINned. */
#define GP_PIN_FRESH_S 5
#define GP_QUIET_S 30             /* failed readings this long before one log line
                                   * (slurmctld answers only once it is up) */
#define GP_LEDGER_GRACE_S 10      /* a decision whose job Slurm has not listed
                                   * this long after it leaves the ledger */
#define GP_SUMMARY_S 60           /* the summary line at info, at most this often */
/* Decisions Slurm has not started yet the ledger holds at most (and the
 * requests kept for steering, and the checkpoint plans): Slurm's default
 * MaxJobCount, 10,000 jobs in slurmctld at once (slurm.conf(5)), so with
 * Slurm's defaults it never fills; what happens when it does is under
 * "The ledger" below.  Indexed, its size costs a submission nothing. */
#define GP_LEDGER_MAX 10000
#define GP_HINTS_MAX 1024
/* slurm.conf, gpuplace.conf, topology.conf, gres.conf, topology.yaml */
#define GP_NWATCHED 5

/* One loaded configuration; immutable, shared by reference count. */
struct gp_conf {
	unsigned refs;                /* under conf_lock */
	gp_cluster_t *cluster;
	gp_policy_t policy;
	struct timespec mtime[GP_NWATCHED]; /* of the files it was loaded from (watched[]) */
	gp_poller_t *poller;          /* telemetry sources of gpuplace.conf, or NULL */
	struct gp_conf *next_dead;    /* graveyard link (conf_put) */
};

static pthread_mutex_t conf_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gp_conf *conf_current;
static char conf_dir[PATH_MAX];

static pthread_t reload_thread;
static bool reload_running;
static pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stop_cond = PTHREAD_COND_INITIALIZER;
static bool stop_requested;

/* Configurations whose last reference was dropped, freed by the plugin's
 * thread: stopping a telemetry poller may wait for a source's time-out,
 * which the submission path must never do. */
static struct gp_conf *graveyard;
static bool thread_owns_graveyard;

static void conf_free(struct gp_conf *c)
{
	if (!c)
		return;
	gp__poller_destroy(c->poller);
	gp_cluster_destroy(c->cluster);
	free(c);
}

/* Free the graveyard (the plugin's thread, or fini after it stopped). */
static void graveyard_empty(void)
{
	struct gp_conf *c, *next;

	pthread_mutex_lock(&conf_lock);
	c = graveyard;
	graveyard = NULL;
	pthread_mutex_unlock(&conf_lock);
	for (; c; c = next) {
		next = c->next_dead;
		conf_free(c);
	}
}

/* A reference on the current configuration, or NULL (caller: conf_put). */
static struct gp_conf *conf_get(void)
{
	struct gp_conf *c;

	pthread_mutex_lock(&conf_lock);
	c = conf_current;
	if (c)
		c->refs++;
	pthread_mutex_unlock(&conf_lock);
	return c;
}

static void conf_put(struct gp_conf *c)
{
	bool last, deferred = false;

	if (!c)
		return;
	pthread_mutex_lock(&conf_lock);
	last = --c->refs == 0;
	if (last && thread_owns_graveyard) {
		c->next_dead = graveyard;
		graveyard = c;
		deferred = true;
	}
	pthread_mutex_unlock(&conf_lock);
	if (last && !deferred)
		conf_free(c);
}

static void poller_log(void *arg, int level, const char *msg)
{
	if (level <= 0)
		slurm_error("gpuplace: %s", msg);
	else
		slurm_info("gpuplace: %s", msg);
}

static void conf_publish(struct gp_conf *c)
{
	struct gp_conf *old;

	c->refs = 1; /* the reference held by conf_current */
	pthread_mutex_lock(&conf_lock);
	old = conf_current;
	conf_current = c;
	pthread_mutex_unlock(&conf_lock);
	conf_put(old);
}

/* The cluster's state as read from slurmctld, for the configuration whose
 * model its node indices refer to; immutable, shared by reference count. */
struct gp_snap {
	unsigned refs;                /* under conf_lock */
	struct gp_conf *conf;         /* a reference */
	gp_live_view_t view;          /* the state, CPUs and memory left, recent jobs */
	gp_rack_view_t *racks;        /* the racks' power headroom in this state */
	gp_resv_view_t resv;          /* advance reservations (steer.h) */
	bool resv_ok;                 /* resv was read with this state */
	/* set by snap_publish, on the plugin's thread: */
	uint64_t gen;                 /* publication number, never 0 */
	struct seen_key *by_ref;      /* view.seen with a reference, by (ref, index) */
	struct seen_key *by_name;     /* view.seen without one, by (uid, name hash,
	                               * submit time, index) */
	int32_t nby_ref, nby_name;
	bool indexed;                 /* by_ref and by_name are there (else the
	                               * ledger scans view.seen: same answers) */
	/* over the nodes Slurm reported with their CPUs and memory that have
	 * a GPU free: the fewest CPUs and least memory free, whether any has
	 * some allocated, whether any lacks a memory size (need_limits) */
	int32_t min_cpus_free;
	int64_t min_mem_free_mb;
	bool some_allocated, some_mem_unknown;
};

/* One job of a snapshot's view.seen under a sort key: (ref) for jobs with
 * a decision reference, (uid, name hash, submit time) for the others, the
 * index last so that equal keys keep the list's order. */
struct seen_key {
	uint64_t a, b;
	int64_t t;
	int32_t k;
};

static struct gp_snap *snap_current;
static uint64_t snap_gen;             /* under conf_lock */

static void snap_put(struct gp_snap *sn)
{
	bool last;

	if (!sn)
		return;
	pthread_mutex_lock(&conf_lock);
	last = --sn->refs == 0;
	pthread_mutex_unlock(&conf_lock);
	if (last) {
		free(sn->by_ref);
		free(sn->by_name);
		gp_live_view_clear(&sn->view);
		gp_resv_view_clear(&sn->resv);
		free(sn->racks);
		conf_put(sn->conf);
		free(sn);
	}
}

static struct gp_snap *snap_get(void)
{
	struct gp_snap *sn;

	pthread_mutex_lock(&conf_lock);
	sn = snap_current;
	if (sn)
		sn->refs++;
	pthread_mutex_unlock(&conf_lock);
	return sn;
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
static int32_t seen_lower_bound(const struct seen_key *keys, int32_t n, const struct seen_key *want)
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
static void snap_publish(struct gp_snap *sn)
{
	struct gp_snap *old;

	sn->refs = 1;
	snap_index(sn);
	snap_res_summary(sn);
	pthread_mutex_lock(&conf_lock);
	sn->gen = ++snap_gen;
	old = snap_current;
	snap_current = sn;
	pthread_mutex_unlock(&conf_lock);
	snap_put(old);
}

static struct timespec mtime_of(const char *dir, const char *name)
{
	struct timespec none = { 0, 0 };
	char path[PATH_MAX + 64];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path) ||
	    stat(path, &st) != 0)
		return none;
	return st.st_mtim;
}

static bool same_time(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

/* The files whose change triggers a reload (an Include'd file does not:
 * touch gpuplace.conf after editing one). */
static const char *const watched[GP_NWATCHED] = { "slurm.conf", "gpuplace.conf", "topology.conf",
						  "gres.conf", "topology.yaml" };

static void watched_mtimes(struct timespec out[GP_NWATCHED])
{
	int i;

	for (i = 0; i < GP_NWATCHED; i++)
		out[i] = mtime_of(conf_dir, watched[i]);
}

/* Parse, validate, then commit: a new configuration or NULL with err. */
static struct gp_conf *conf_load(gp_error_t *err)
{
	struct gp_conf *c = calloc(1, sizeof(*c));
	int rc;

	if (!c) {
		gp__errorf(err, GP_ENOMEM, "out of memory");
		return NULL;
	}
	watched_mtimes(c->mtime);
	rc = gp_cluster_load_conf_dir(conf_dir, &c->cluster, err);
	if (rc == GP_OK)
		rc = gp__policy_load(conf_dir, c->cluster, &c->policy, err);
	if (rc == GP_OK && c->cluster->ntelemetry > 0) {
		gp_poller_opts_t opts = { .log = poller_log };

		rc = gp__poller_create(c->cluster, &opts, &c->poller, err);
		if (rc == GP_OK && gp__poller_start(c->poller, err) != GP_OK) {
			/* no live power: the estimate from the cluster state remains */
			slurm_error("gpuplace: telemetry not started: %s", err->text);
			gp__poller_destroy(c->poller);
			c->poller = NULL;
		}
	}
	if (rc != GP_OK) {
		conf_free(c);
		return NULL;
	}
	return c;
}

/* Reload when a watched file changed since the current configuration was
 * loaded; a failed load is logged once per change (failed[] holds the
 * times that failed) and the last good configuration stays. */
static void reload_if_changed(struct timespec failed[GP_NWATCHED])
{
	struct timespec now[GP_NWATCHED];
	struct gp_conf *cur = conf_get(), *next;
	bool changed = !cur, had = cur != NULL, seen = true;
	gp_error_t err;
	int i;

	watched_mtimes(now);
	for (i = 0; i < GP_NWATCHED; i++) {
		if (cur && !same_time(cur->mtime[i], now[i]))
			changed = true;
		if (!same_time(failed[i], now[i]))
			seen = false;
	}
	conf_put(cur);
	if (!changed || seen)
		return;
	next = conf_load(&err);
	if (!next) {
		slurm_error("gpuplace: %s; %s", err.text,
		            had ? "keeping the last good configuration" : "jobs pass unchanged");
		memcpy(failed, now, sizeof(now));
		return;
	}
	slurm_info("gpuplace: configuration reloaded from %s: %d nodes, %ld GPUs, policy %s",
	           conf_dir, gp_cluster_node_count(next->cluster),
	           gp_cluster_gpu_count(next->cluster), next->policy.name);
	conf_publish(next);
	for (i = 0; i < GP_NWATCHED; i++)
		failed[i].tv_sec = -1;
}

/* Serialises decisions and the ledger (slurmctld already calls job_submit
 * with its job write lock held; this makes it explicit). */
static pthread_mutex_t decide_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- counters for the summary line ------------------------------------- */

/* Why a job passed unchanged (one summary counter each). */
enum pass_reason {
	PASS_FEW_GPUS,                /* not a multi-GPU job */
	PASS_REQUEST,                 /* a request gpuplace leaves to Slurm */
	PASS_NO_CONF,                 /* no valid configuration */
	PASS_NO_STATE,                /* cluster state not read yet */
	PASS_OLD_CONF,                /* state read for an older configuration */
	PASS_STALE,                   /* state older than GP_STATE_STALE_S */
	PASS_NO_ENGINE,               /* the plugin's thread has not built the
	                               * engine for this configuration yet */
	PASS_ENGINE,                  /* the engine failed (logged at error) */
	PASS_USER,                    /* a request Slurm refuses or holds: the
	                               * user's to fix, Slurm's to say (verbose) */
	PASS_NREASONS
};

static const char *const pass_names[PASS_NREASONS] = {
	"not a multi-GPU job", "request left to Slurm", "no valid configuration",
	"no cluster state yet", "cluster state is for an older configuration",
	"cluster state is stale", "placement engine not ready for this configuration",
	"engine error", "request Slurm judges",
};

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long stat_kind[3];            /* PIN, CONSTRAIN, REJECT */
static unsigned long stat_pass[PASS_NREASONS];
static unsigned long stat_bad_hints;
static unsigned long stat_unpinned;           /* PINs turned into CONSTRAIN */
static unsigned long stat_steered;            /* pending jobs moved (steer_pass) */
/* a pass reason that concerns every job (no state, stale...) is logged at
 * info once until it no longer holds, not once per job */
static bool pass_announced[PASS_NREASONS];

static void count_pass(enum pass_reason why, const char *label, const char *detail)
{
	bool announce = false;

	pthread_mutex_lock(&stats_lock);
	stat_pass[why]++;
	if (why >= PASS_NO_CONF && why <= PASS_NO_ENGINE && !pass_announced[why]) {
		pass_announced[why] = announce = true;
	}
	pthread_mutex_unlock(&stats_lock);
	if (announce)
		slurm_info("gpuplace: %s%s%s: jobs pass unchanged until it is resolved",
		           pass_names[why], detail && *detail ? ": " : "", detail ? detail : "");
	slurm_verbose("gpuplace: %s passes unchanged: %s%s%s", label, pass_names[why],
	              detail && *detail ? ": " : "", detail ? detail : "");
}

static void pass_resolved(enum pass_reason why)
{
	pthread_mutex_lock(&stats_lock);
	pass_announced[why] = false;
	pthread_mutex_unlock(&stats_lock);
}

/* One info line per GP_SUMMARY_S with what happened in it; nothing when no
 * job was seen (an idle controller's log stays quiet). */
static void summary_log(void)
{
	unsigned long kind[3], pass[PASS_NREASONS], bad, unpinned, total, steered;
	char passes[512];
	size_t used = 0;
	int i;

	pthread_mutex_lock(&stats_lock);
	memcpy(kind, stat_kind, sizeof(kind));
	memcpy(pass, stat_pass, sizeof(pass));
	bad = stat_bad_hints;
	unpinned = stat_unpinned;
	steered = stat_steered;
	stat_steered = 0;
	memset(stat_kind, 0, sizeof(stat_kind));
	memset(stat_pass, 0, sizeof(stat_pass));
	stat_bad_hints = stat_unpinned = 0;
	pthread_mutex_unlock(&stats_lock);
	total = kind[0] + kind[1] + kind[2] + bad + steered;
	passes[0] = '\0';
	for (i = 0; i < PASS_NREASONS; i++) {
		total += pass[i];
		if (pass[i] && used < sizeof(passes)) {
			int n = snprintf(passes + used, sizeof(passes) - used, "%s%lu %s",
			                 used ? ", " : "", pass[i], pass_names[i]);

			if (n > 0)
				used += (size_t)n;
		}
	}
	if (!total)
		return;
	slurm_info("gpuplace: last %d s: %lu PIN, %lu CONSTRAIN (%lu of them instead of a PIN "
	           "Slurm could not be held to), %lu REJECT, %lu rejected hints; passed: %s; "
	           "pending jobs steered: %lu",
	           GP_SUMMARY_S, kind[GP_DECIDE_PIN], kind[GP_DECIDE_CONSTRAIN], unpinned,
	           kind[GP_DECIDE_REJECT], bad, used ? passes : "none", steered);
}

/* ---- the state thread --------------------------------------------------- */

/* Only inside slurmctld is there a controller to read state from (the
 * daemon exports its globals to plugins); a test program loading the
 * plugin gets hints checking and fail-open only. */
static bool in_slurmctld(void)
{
	return dlsym(RTLD_DEFAULT, "slurmctld_config") != NULL;
}

static bool have_snapshot(void)
{
	bool have;

	pthread_mutex_lock(&conf_lock);
	have = snap_current != NULL;
	pthread_mutex_unlock(&conf_lock);
	return have;
}

static void steer_pass(gp_live_t *lv);
static void decider_prepare(void);

/* Jobs submitted since this time are listed with each snapshot, so the
 * ledger can tell which of its decisions Slurm has started (decide_lock). */
static int64_t ledger_oldest;
/* the decision whose own ledger entry prepare_work leaves out (a steering
 * re-decision of a pending job must not see its own set as taken), 0 =
 * none (decide_lock) */
static uint64_t prepare_skip_ref;

/* the plugin's thread's cache of Slurm's reservation list */
static gp_resv_cache_t resv_cache;
static bool resv_failure_logged;

static void refresh_state(gp_live_t *lv, time_t *failing_since, bool *failure_logged)
{
	struct gp_conf *c = conf_get();
	struct gp_snap *sn;
	char why[256];
	int64_t since;

	if (!c)
		return;
	if (!(sn = calloc(1, sizeof(*sn))) ||
	    !(sn->racks = calloc((size_t)c->cluster->nracks + 1, sizeof(*sn->racks)))) {
		free(sn);
		conf_put(c);
		return;
	}
	pthread_mutex_lock(&decide_lock);
	since = ledger_oldest ? ledger_oldest - 2 : (int64_t)time(NULL) - 2 * GP_LEDGER_GRACE_S;
	pthread_mutex_unlock(&decide_lock);
	if (gp_live_refresh(lv, c->cluster, since, &sn->view, why, sizeof(why)) != 0) {
		/* quiet while the controller is still starting */
		if (!*failing_since)
			*failing_since = time(NULL);
		if (!*failure_logged && time(NULL) - *failing_since >= GP_QUIET_S) {
			slurm_error("gpuplace: %s; jobs pass unchanged until it can be read", why);
			*failure_logged = true;
		}
		free(sn->racks);
		free(sn);
		conf_put(c);
		return;
	}
	if (*failure_logged || !have_snapshot())
		slurm_info("gpuplace: cluster state %s: %d nodes, %d running jobs",
		           *failure_logged ? "can be read again" : "read", (int)c->cluster->nnodes,
		           (int)sn->view.state->njobs);
	*failing_since = 0;
	*failure_logged = false;
	if (sn->view.unreadable)
		slurm_debug("gpuplace: %d GRES strings could not be read; their nodes count as busy",
		            (int)sn->view.unreadable);
	/* reservations with the state: a job is never placed onto nodes a
	 * reservation holds during its run, and a job in a reservation is
	 * placed inside it; unread, such jobs pass (active reservations still
	 * show in the nodes' state) */
	sn->resv_ok = gp_resv_refresh(&resv_cache, c->cluster, &sn->resv, why, sizeof(why)) == 0;
	if (!sn->resv_ok && !resv_failure_logged)
		slurm_error("gpuplace: %s; jobs in a reservation pass unchanged", why);
	resv_failure_logged = !sn->resv_ok;
	sn->conf = c; /* the reference conf_get() took */
	/* once per snapshot, off the submission path: measured draw from the
	 * telemetry snapshot while fresh, else the estimate (power/power.h) */
	{
		const gp_power_snapshot_t *ps = c->poller ? gp__poller_snapshot_get(c->poller) : NULL;

		gp__power_view_fill(c->cluster, sn->view.state, ps, &c->policy,
		                    (double)sn->view.state->time, sn->racks);
		gp__power_snapshot_put(ps);
	}
	/* what this reading holds, at debug: the real-daemon tests wait for
	 * a reading that shows what they set up (tests/slurm/lib.sh) */
	slurm_debug("gpuplace: cluster state read: %d nodes, %d running jobs, %d reservations%s",
	            (int)c->cluster->nnodes, (int)sn->view.state->njobs, (int)sn->resv.n,
	            sn->resv_ok ? "" : " (not read)");
	snap_publish(sn);
	pass_resolved(PASS_NO_STATE);
	pass_resolved(PASS_STALE);
	pass_resolved(PASS_OLD_CONF);
}

static bool wake_requested;

/* Ask the state thread for a reading now (after a decision, so the jobs it
 * let through show in Slurm's counts soon). */
static void refresh_soon(void)
{
	pthread_mutex_lock(&stop_lock);
	wake_requested = true;
	pthread_cond_signal(&stop_cond);
	pthread_mutex_unlock(&stop_lock);
}

static void *reload_main(void *arg)
{
	struct timespec failed[GP_NWATCHED] = { { -1, 0 }, { -1, 0 }, { -1, 0 }, { -1, 0 },
						{ -1, 0 } };
	bool live = in_slurmctld();
	time_t failing_since = 0;
	bool failure_logged = false;
	time_t next_summary = time(NULL) + GP_SUMMARY_S;
	gp_live_t lv;

	gp_live_init(&lv);
	pthread_mutex_lock(&stop_lock);
	while (!stop_requested) {
		struct timespec until, gap = { 0, GP_REFRESH_GAP_MS * 1000000L };
		bool woken;

		pthread_mutex_unlock(&stop_lock);
		graveyard_empty();
		reload_if_changed(failed);
		/* the engine for a new configuration, before its first state */
		decider_prepare();
		if (live) {
			refresh_state(&lv, &failing_since, &failure_logged);
			steer_pass(&lv);
		}
		if (time(NULL) >= next_summary) {
			summary_log();
			next_summary = time(NULL) + GP_SUMMARY_S;
		}
		pthread_mutex_lock(&stop_lock);
		clock_gettime(CLOCK_REALTIME, &until);
		if (live && !have_snapshot()) {
			/* start-up: read the state as soon as slurmctld answers */
			until.tv_nsec += GP_REFRESH_GAP_MS * 1000000L;
			if (until.tv_nsec >= 1000000000L) {
				until.tv_sec++;
				until.tv_nsec -= 1000000000L;
			}
		} else {
			until.tv_sec += GP_REFRESH_S;
		}
		while (!stop_requested && !wake_requested &&
		       pthread_cond_timedwait(&stop_cond, &stop_lock, &until) == 0)
			;
		woken = wake_requested;
		wake_requested = false;
		if (woken && !stop_requested) {
			/* a burst of decisions: at most one reading per gap */
			pthread_mutex_unlock(&stop_lock);
			nanosleep(&gap, NULL);
			pthread_mutex_lock(&stop_lock);
		}
	}
	pthread_mutex_unlock(&stop_lock);
	gp_live_fini(&lv);
	gp_resv_cache_fini(&resv_cache);
	return NULL;
}

/* The path slurmctld was started with (-f FILE, else SLURM_CONF, else its
 * built-in default), from the daemon's exported slurm_conf_t; NULL outside
 * slurmctld or before it read its configuration. */
static const char *daemon_conf_file(void)
{
	const slurm_conf_t *sc;

	if (!in_slurmctld())
		return NULL;
	sc = dlsym(RTLD_DEFAULT, "slurm_conf");
	return sc && sc->slurm_conf && *sc->slurm_conf ? sc->slurm_conf : NULL;
}

/* slurmctld runs topology/NAME ("tree"; "block", 23.11+), read from its
 * exported slurm_conf_t; false outside slurmctld. */
static bool topology_is(const char *name)
{
	const slurm_conf_t *sc;

	if (!in_slurmctld())
		return false;
	sc = dlsym(RTLD_DEFAULT, "slurm_conf");
	return sc && sc->topology_plugin && strstr(sc->topology_plugin, name);
}

/* slurmctld's DefMemPerCPU (with MEM_PER_CPU set) or DefMemPerNode, 0 when
 * none or outside slurmctld; read at every call, so a reconfigure counts. */
static uint64_t daemon_default_mem(void)
{
	static const slurm_conf_t *sc;
	static bool looked;

	if (!looked) {
		sc = in_slurmctld() ? dlsym(RTLD_DEFAULT, "slurm_conf") : NULL;
		looked = true;
	}
	return sc ? sc->def_mem_per_cpu : 0;
}

/* Longest wait for a switch count slurmctld grants (SchedulerParameters
 * max_switch_wait=N; 300 s when not set, its documented default in
 * slurm.conf(5), SchedulerParameters); read at every call, so a reconfigure
 * counts.  300 outside slurmctld. */
static uint32_t daemon_max_switch_wait(void)
{
	static const slurm_conf_t *sc;
	static bool looked;
	const char *p;
	char *end;
	unsigned long v;

	if (!looked) {
		sc = in_slurmctld() ? dlsym(RTLD_DEFAULT, "slurm_conf") : NULL;
		looked = true;
	}
	if (!sc || !sc->sched_params)
		return 300;
	for (p = sc->sched_params; (p = strstr(p, "max_switch_wait=")); p++)
		if (p == sc->sched_params || p[-1] == ',') {
			v = strtoul(p + 16, &end, 10);
			if (end != p + 16 && (*end == ',' || !*end))
				return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
		}
	return 300;
}

static void set_conf_dir(void)
{
	const char *env = getenv("GPUPLACE_CONF_DIR");
	const char *slash;
	size_t len;

	if (env && *env) {
		snprintf(conf_dir, sizeof(conf_dir), "%s", env);
		return;
	}
	if (!(env = daemon_conf_file()))
		env = getenv("SLURM_CONF");
	if (!env || !*env)
		env = GP_DEFAULT_SLURM_CONF;
	slash = strrchr(env, '/');
	len = slash ? (size_t)(slash - env) : 1;
	if (!slash)
		env = ".";
	if (len == 0)
		len = 1; /* "/slurm.conf" lives in "/" */
	if (len >= sizeof(conf_dir))
		len = sizeof(conf_dir) - 1;
	memcpy(conf_dir, env, len);
	conf_dir[len] = '\0';
}

/* ---- the decision side (serialised: slurmctld calls job_submit with
 * its job write lock held; decide_lock makes that explicit) ------------ */

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
struct ledger_entry {
	int64_t time;                 /* when the decision was made */
	uint64_t ref;                 /* "ref N" in the admin comment, 0 = none */
	uint32_t uid;
	uint64_t name_hash;
	bool until_started;           /* PIN/CONSTRAIN: kept while the job pends */
	double cap_w;                 /* GPU power cap planned, 0 = none */
	bool certain;                 /* a passed job's nodes are known (its own
	                               * --nodelist names exactly them) */
	int32_t n;
	int32_t *nodes;
	uint32_t *mask;
};

static struct gp_conf *dec_conf;      /* the configuration engine and ledger belong to */
static bool dec_one_weight;           /* every node of dec_conf has the same Weight */
static gp_engine_t *engine;
static gp_state_t *work;              /* snapshot + ledger, what a decision sees */
static int32_t *slurm_order;          /* nodes by (Weight, slurm.conf order) */
/* every node's GPUs as a mask (node_full), one array: the pass over every
 * node in prepare_work touches no node record */
static uint32_t *dec_full;
/* the snapshot's rack headroom less what the ledger's jobs will draw */
static gp_rack_view_t *dec_racks;
static struct ledger_entry ledger[GP_LEDGER_MAX];
static int nledger;
/* the ledger per node and per rack (see above): led_mask[i] = OR of the
 * entries' masks on node i, led_nodes[0..nled_nodes-1] the nodes where it
 * is not 0; led_draw[r] = watts of rack r, led_racks the racks where it is
 * not 0 */
static uint32_t *led_mask;
static int32_t *led_nodes, nled_nodes;
static double *led_draw;
static int32_t *led_racks, nled_racks;
/* the snapshot (gen) the ledger was last checked against, and how many of
 * its first entries were */
static uint64_t ledger_gen;
static int ledger_nchecked;
static bool ledger_full_logged;
/* passed GPU jobs Slurm has not shown started yet whose nodes are a
 * guess (prepare_work) */
static int unconfirmed_passes;
/* passed GPU jobs the full ledger could not book since this snapshot
 * (gen): they count as unconfirmed guesses until the next one */
static int unbooked_passes;
static uint64_t unbooked_gen;
static uint64_t ref_base, ref_seq;    /* decision references: init time, counter */
/* checkpoint schedules this plugin planned, until the job's time limit
 * (or a day when it has none): later plans stagger their windows; when
 * GP_LEDGER_MAX are planned, later jobs' plans are not staggered against
 * each other */
static gp_ckpt_booking_t bookings[GP_LEDGER_MAX];
static int64_t booking_until[GP_LEDGER_MAX];
static int nbookings;
static uint32_t booking_seq;

static void bookings_prune(int64_t now)
{
	int i, kept = 0;

	for (i = 0; i < nbookings; i++)
		if (booking_until[i] > now) {
			bookings[kept] = bookings[i];
			booking_until[kept++] = booking_until[i];
		}
	nbookings = kept;
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

static const gp_ckpt_booking_t *recent_bookings(void)
{
	return nbookings > GP_CKPT_STAGGER ? bookings + (nbookings - GP_CKPT_STAGGER) : bookings;
}

static int32_t nrecent_bookings(void)
{
	return nbookings > GP_CKPT_STAGGER ? GP_CKPT_STAGGER : nbookings;
}

static void booking_add(const gp_decision_t *d, uint32_t time_limit_min, int64_t now)
{
	if (d->ckpt.storage < 0 || nbookings == GP_LEDGER_MAX)
		return;
	gp__ckpt_booking_of(&d->ckpt, ++booking_seq, &bookings[nbookings]);
	booking_until[nbookings++] = now + (time_limit_min ? (int64_t)time_limit_min * 60 : 86400);
}

/* Add entry e to the per-node and per-rack sums. */
static void ledger_index_add(const struct ledger_entry *e)
{
	int32_t i;

	if (e->time && (!ledger_oldest || e->time < ledger_oldest))
		ledger_oldest = e->time;
	if (!e->ref && !e->certain)
		unconfirmed_passes++;
	if (!led_mask)
		return;
	for (i = 0; i < e->n; i++) {
		if (!led_mask[e->nodes[i]] && e->mask[i])
			led_nodes[nled_nodes++] = e->nodes[i];
		led_mask[e->nodes[i]] |= e->mask[i];
	}
	nled_racks = gp_ledger_power_draw(dec_conf->cluster, led_draw, e->nodes, e->mask, e->n,
	                                  e->cap_w, led_racks, nled_racks);
}

/* The sums again from the entries (after some left or changed). */
static void ledger_index_rebuild(void)
{
	int32_t i;
	int k;

	ledger_oldest = 0;
	unconfirmed_passes = 0;
	if (led_mask) {
		for (i = 0; i < nled_nodes; i++)
			led_mask[led_nodes[i]] = 0;
		for (i = 0; i < nled_racks; i++)
			led_draw[led_racks[i]] = 0;
	}
	nled_nodes = nled_racks = 0;
	for (k = 0; k < nledger; k++)
		ledger_index_add(&ledger[k]);
}

static void ledger_clear(void)
{
	int i;

	for (i = 0; i < nledger; i++) {
		free(ledger[i].nodes);
		free(ledger[i].mask);
	}
	nledger = 0;
	ledger_gen = 0;
	ledger_nchecked = 0;
	unbooked_passes = 0;
	unbooked_gen = 0;
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

/* What the decisions need for one configuration, built off the
 * submission path (decider_prepare) and installed whole. */
struct decider {
	struct gp_conf *conf;         /* a reference */
	gp_engine_t *engine;
	gp_state_t *work;
	int32_t *slurm_order;
	uint32_t *full;
	gp_rack_view_t *racks;
	uint32_t *led_mask;
	int32_t *led_nodes, *led_racks;
	double *led_draw;
	bool one_weight;
};

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
	pthread_mutex_lock(&conf_lock);
	c->refs++;
	pthread_mutex_unlock(&conf_lock);
	d->conf = c;
	return 0;
}

/* Swap d in as the current decider (decide_lock held); the old one comes
 * back in d, for the caller to free outside the lock.  The ledger and the
 * checkpoint bookings belong to the old model and are emptied. */
static void decider_swap(struct decider *d)
{
	struct decider old = { dec_conf, engine, work, slurm_order, dec_full, dec_racks,
			       led_mask, led_nodes, led_racks, led_draw, dec_one_weight };

	ledger_clear();
	nbookings = 0; /* storage indices belong to the old model */
	dec_conf = d->conf;
	engine = d->engine;
	work = d->work;
	slurm_order = d->slurm_order;
	dec_full = d->full;
	dec_racks = d->racks;
	led_mask = d->led_mask;
	led_nodes = d->led_nodes;
	led_racks = d->led_racks;
	led_draw = d->led_draw;
	dec_one_weight = d->one_weight;
	nled_nodes = nled_racks = 0;
	*d = old;
}

/* Release everything (fini, after the thread stopped). */
static void decider_reset(void)
{
	struct decider none;

	memset(&none, 0, sizeof(none));
	pthread_mutex_lock(&decide_lock);
	decider_swap(&none);
	pthread_mutex_unlock(&decide_lock);
	decider_free(&none);
}

/* The configuration a decider failed for (a reference), so that the
 * failure is logged once, not at every pass of the thread. */
static struct gp_conf *dec_failed;

/*
 * On the plugin's thread (and in init when it cannot start): when the
 * current configuration has no decider, build one outside every lock and
 * install it under decide_lock, as the snapshot is published.  Until then
 * job_submit lets jobs pass unchanged (PASS_NO_ENGINE, logged once).
 */
static void decider_prepare(void)
{
	struct gp_conf *c = conf_get();
	struct decider d;
	gp_error_t err;
	bool have;

	if (!c)
		return;
	pthread_mutex_lock(&decide_lock);
	have = dec_conf == c;
	pthread_mutex_unlock(&decide_lock);
	if (have || c == dec_failed) {
		conf_put(c);
		return;
	}
	if (decider_build(c, &d, &err) != 0) {
		slurm_error("gpuplace: cannot set up the placement engine: %s; jobs pass unchanged",
		            err.text);
		conf_put(dec_failed);
		dec_failed = c; /* the reference conf_get() took */
		return;
	}
	pthread_mutex_lock(&decide_lock);
	decider_swap(&d);
	pthread_mutex_unlock(&decide_lock);
	decider_free(&d); /* the old one */
	conf_put(dec_failed);
	dec_failed = NULL;
	conf_put(c);
	pass_resolved(PASS_NO_ENGINE);
}

static uint32_t node_full(int32_t i)
{
	return dec_full[i];
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

	if (sn->gen != ledger_gen || ledger_nchecked > nledger) {
		ledger_gen = sn->gen;
		ledger_nchecked = 0;
	}
	kept = ledger_nchecked;
	for (k = ledger_nchecked; k < nledger; k++) {
		struct ledger_entry *e = &ledger[k];

		if (ledger_drops(e, sn)) {
			free(e->nodes);
			free(e->mask);
			continue;
		}
		ledger[kept++] = *e;
	}
	if (kept != nledger) {
		nledger = kept;
		ledger_index_rebuild();
	}
	ledger_nchecked = nledger;
	if (ledger_full_logged && nledger < GP_LEDGER_MAX) {
		slurm_info("gpuplace: the ledger has room again (%d of %d entries): jobs can be PINned",
		           nledger, GP_LEDGER_MAX);
		ledger_full_logged = false;
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
static void prepare_work(const struct gp_snap *sn, const gp_live_need_t *need)
{
	static const gp_live_need_t any = { 1, 1, 0, 0, 0 };
	const gp_live_view_t *v = &sn->view;
	const gp_state_t *st = v->state;
	int32_t nn = dec_conf->cluster->nnodes, i;
	int k;

	memcpy(work->node_flags, st->node_flags, (size_t)nn * sizeof(*work->node_flags));
	memcpy(work->alloc_mask, st->alloc_mask, (size_t)nn * sizeof(*work->alloc_mask));
	work->time = st->time;
	/* the running jobs are the snapshot's: borrowed for this decision */
	work->jobs = st->jobs;
	work->njobs = st->njobs;
	ledger_prune(sn);
	if (unbooked_gen && unbooked_gen != sn->gen) {
		/* a reading since: the passed jobs show in Slurm's counts */
		unbooked_passes = 0;
		unbooked_gen = 0;
	}
	if (prepare_skip_ref) {
		/* a steering re-decision: every entry but its job's own (the
		 * plugin's thread, off the submission path) */
		for (k = 0; k < nledger; k++)
			if (ledger[k].ref != prepare_skip_ref)
				for (i = 0; i < ledger[k].n; i++)
					work->alloc_mask[ledger[k].nodes[i]] |= ledger[k].mask[i];
	} else {
		for (i = 0; i < nled_nodes; i++)
			work->alloc_mask[led_nodes[i]] |= led_mask[led_nodes[i]];
	}
	if (!need)
		need = &any;
	if (!need_limits(sn, need))
		return; /* every node with a GPU free gives the job all of them */
	for (i = 0; i < nn; i++) {
		uint32_t full = node_full(i), freem = full & ~work->alloc_mask[i];
		int32_t nfree, use;
		int g;

		if (!freem)
			continue; /* nothing to give, nothing to take away */
		nfree = gp__popcount(freem);
		use = gp_live_usable_gpus(&v->res[i], need, nfree);
		/* the GPUs it cannot give this job count as busy, highest first */
		for (g = 31; g >= 0 && nfree > use; g--)
			if (freem & (1u << g)) {
				work->alloc_mask[i] |= 1u << g;
				nfree--;
			}
	}
}

/* dec_racks := the snapshot's racks less the power of the ledger's jobs,
 * which Slurm's counts (and so the snapshot's estimate or measurement) do
 * not hold yet: a burst of decisions cannot over-commit a rack.  After
 * prepare_work (which leaves only such entries in the ledger). */
static const gp_rack_view_t *ledger_racks(const gp_rack_view_t *from)
{
	int k;

	if (!from || !dec_racks)
		return from;
	memcpy(dec_racks, from, (size_t)dec_conf->cluster->nracks * sizeof(*dec_racks));
	if (!prepare_skip_ref) {
		gp_ledger_power_apply(dec_racks, led_draw, led_racks, nled_racks);
		return dec_racks;
	}
	for (k = 0; k < nledger; k++)
		if (ledger[k].ref != prepare_skip_ref)
			gp_ledger_power_subtract(dec_conf->cluster, dec_racks, ledger[k].nodes,
			                         ledger[k].mask, ledger[k].n, ledger[k].cap_w);
	return dec_racks;
}

/* The ledger is full: said once at info until it has room again. */
static void ledger_full_note(void)
{
	if (ledger_full_logged)
		return;
	ledger_full_logged = true;
	slurm_info("gpuplace: the ledger holds %d decisions Slurm has not started yet, its "
	           "bound: later jobs are CONSTRAINed to their domain instead of PINned, and "
	           "passed jobs block PINs until the next reading, until Slurm starts some",
	           GP_LEDGER_MAX);
}

/* Add an entry; false when the ledger is full or memory is short (the
 * caller must then not PIN the job). */
static bool ledger_add(const int32_t *nodes, const uint32_t *mask, int32_t n, uint64_t ref,
                       uint32_t uid, uint64_t name_hash, bool until_started, double cap_w,
                       bool certain)
{
	struct ledger_entry *e;

	if (n <= 0)
		return false;
	if (nledger == GP_LEDGER_MAX) {
		ledger_full_note();
		return false;
	}
	e = &ledger[nledger];
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
	e->ref = ref;
	e->uid = uid;
	e->name_hash = name_hash;
	e->until_started = until_started;
	e->cap_w = cap_w;
	e->certain = certain;
	nledger++;
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
static bool in_list(const int32_t *list, int32_t n, int32_t i)
{
	int32_t k;

	for (k = 0; k < n; k++)
		if (list[k] == i)
			return true;
	return false;
}

static void ledger_add_guess(const gp_request_t *r, int32_t nodes, uint32_t uid,
                             uint64_t name_hash, const struct gp_snap *sn)
{
	int32_t gpus = r->gpus, per_node = r->gpus_per_node;
	const uint32_t bad = GP_NODE_DOWN | GP_NODE_DRAIN | GP_NODE_RESERVED;
	int32_t nn = dec_conf->cluster->nnodes, k, got = 0, want, take;
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
			uint32_t freem = node_full(i) & ~work->alloc_mask[i], m = 0;

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
		booked = ledger_add(idx, mask, got, 0, uid, name_hash, false, 0.0, true);
	} else {
		for (k = 0; k < nn && got < want; k++) {
			int32_t i = slurm_order[k], g;
			uint32_t freem = node_full(i) & ~work->alloc_mask[i], m = 0;

			if ((work->node_flags[i] & bad) || gp__popcount(freem) < per_node ||
			    (r->nrequired && !in_list(r->required, r->nrequired, i)) ||
			    in_list(r->excluded, r->nexcluded, i))
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
		/* -w naming exactly the nodes it takes: only the GPU indices
		 * are a guess, the nodes and counts are not */
		if (got == want)
			booked = ledger_add(idx, mask, got, 0, uid, name_hash, false, 0.0,
			                    r->nrequired == got);
	}
	if (!booked) {
		/* where it goes is unknown to the ledger: no PIN until the
		 * next reading shows it */
		unbooked_passes++;
		unbooked_gen = sn->gen;
	}
}

static void origs_clear(void);

extern int init(void)
{
	struct gp_conf *c;
	gp_error_t err;

	/* slurmctld calls init() only when plugin_version equals its own
	 * release (slurm_compat.h), so this names the running release too */
	slurm_info("gpuplace: job_submit/gpuplace built for Slurm %d.%02d.%d; rebuild it for any other release",
	           GP_SLURM_MAJOR, GP_SLURM_MINOR, GP_SLURM_MICRO);
	set_conf_dir();
	ref_base = (uint64_t)time(NULL) * 1000000ULL;
	c = conf_load(&err);
	if (c) {
		slurm_info("gpuplace: loaded %s: %d nodes, %ld GPUs, policy %s (built for Slurm 0x%06x)",
		           conf_dir, gp_cluster_node_count(c->cluster), gp_cluster_gpu_count(c->cluster),
		           c->policy.name, (unsigned)GP_SLURM_VERSION_BUILT);
		conf_publish(c);
	} else {
		/* never stop slurmctld: run without a configuration, retry on change */
		slurm_error("gpuplace: %s; jobs pass unchanged until the configuration is fixed",
		            err.text);
	}
	stop_requested = false;
	thread_owns_graveyard = true;
	if (pthread_create(&reload_thread, NULL, reload_main, NULL) == 0) {
		reload_running = true;
	} else {
		thread_owns_graveyard = false;
		slurm_error("gpuplace: cannot start the reload thread: configuration changes need a restart");
		decider_prepare(); /* no thread to build it: now, once */
	}
	return SLURM_SUCCESS;
}

extern void fini(void)
{
	struct gp_snap *sn;
	struct gp_conf *c;

	if (reload_running) {
		pthread_mutex_lock(&stop_lock);
		stop_requested = true;
		pthread_cond_signal(&stop_cond);
		pthread_mutex_unlock(&stop_lock);
		pthread_join(reload_thread, NULL);
		reload_running = false;
	}
	summary_log();
	pthread_mutex_lock(&conf_lock);
	thread_owns_graveyard = false; /* from now on the last put frees */
	pthread_mutex_unlock(&conf_lock);
	decider_reset();
	conf_put(dec_failed);
	dec_failed = NULL;
	origs_clear();
	pthread_mutex_lock(&conf_lock);
	sn = snap_current;
	snap_current = NULL;
	c = conf_current;
	conf_current = NULL;
	pthread_mutex_unlock(&conf_lock);
	snap_put(sn);
	conf_put(c);
	graveyard_empty();
	memset(pass_announced, 0, sizeof(pass_announced));
}

/* ---- hints ------------------------------------------------------------ */

/* Value of NAME= in a Slurm environment array of n entries, or NULL.  An
 * entry may be NULL: libslurm unpacks a zero-length string as NULL, so any
 * program using the submit API can send one; it is skipped, never read
 * (here, in env_set and in spank_env_set). */
static const char *env_find(char **env, uint32_t n, const char *name)
{
	size_t len = strlen(name);
	uint32_t i;

	for (i = 0; env && i < n; i++)
		if (env[i] && !strncmp(env[i], name, len) && env[i][len] == '=')
			return env[i] + len + 1;
	return NULL;
}

/* Individual GPUPLACE_<KEY> variables of a batch job, as hint keys. */
static const char *const single_keys[] = {
	"tp", "pp", "dp", "ep", "cp", "params", "grad_bytes", "step_s", "ckpt_bytes", NULL,
};

/*
 * The job's hint string and where it came from: the SPANK options (srun and
 * salloc send them in spank_job_env, sbatch in the job environment), else
 * GPUPLACE_HINTS or the single GPUPLACE_<KEY> variables of a batch job.
 * Returns 1 with hints in buf, 0 when the job has none, -1 when too long.
 */
static int collect_hints(const job_desc_msg_t *job, char *buf, size_t len, const char **source)
{
	const char *v;
	size_t used = 0;
	int i;

	buf[0] = '\0';
	if ((v = env_find(job->spank_job_env, job->spank_job_env_size, "GPUPLACE_HINTS"))) {
		*source = "--gpuplace options";
	} else if ((v = env_find(job->environment, job->env_size, "SLURM_SPANK_GPUPLACE_HINTS"))) {
		*source = "--gpuplace options";
	} else if ((v = env_find(job->environment, job->env_size, "GPUPLACE_HINTS"))) {
		*source = "GPUPLACE_HINTS";
	}
	if (v) {
		if (strlen(v) >= len)
			return -1;
		snprintf(buf, len, "%s", v);
		return *buf ? 1 : 0;
	}
	*source = "GPUPLACE_* variables";
	for (i = 0; single_keys[i]; i++) {
		char name[64], *p;
		int n;

		snprintf(name, sizeof(name), "GPUPLACE_%s", single_keys[i]);
		for (p = name; *p; p++)
			if (*p >= 'a' && *p <= 'z')
				*p = (char)(*p - 'a' + 'A');
		if (!(v = env_find(job->environment, job->env_size, name)))
			continue;
		n = snprintf(buf + used, len - used, "%s%s=%s", used ? "," : "", single_keys[i], v);
		if (n < 0 || (size_t)n >= len - used)
			return -1;
		used += (size_t)n;
	}
	return used ? 1 : 0;
}

/* ---- the job's request ------------------------------------------------ */

/* --exclusive; and --exclusive=user or =mcs, which share a node only with
 * jobs of the same user or MCS label, which gpuplace cannot tell apart:
 * such a job gets only idle nodes (no GPU, CPU or memory allocated, by any
 * job), where Slurm can always start it */
static bool wants_idle_nodes(const job_desc_msg_t *j)
{
	return j->shared == JOB_SHARED_NONE || j->shared == JOB_SHARED_USER ||
	       j->shared == JOB_SHARED_MCS;
}

/* The job's --nodelist and --exclude into r, each read once per
 * submission (a host list can be a megabyte): a list r holds already is
 * not read again, and lists that could not be read leave nrequired and
 * nexcluded at -1, so that book_pass does not try them again.  0, or a
 * gp_err code with err. */
static int node_lists(const job_desc_msg_t *j, const gp_cluster_t *c, gp_request_t *r,
                      gp_error_t *err)
{
	int rc = GP_OK;

	if (r->nrequired < 0 || r->nexcluded < 0)
		return GP_EINVAL; /* refused before; err was given then */
	if (j->req_nodes && !r->required)
		rc = gp__request_set_required(r, c, j->req_nodes, err);
	if (rc == GP_OK && j->exc_nodes && !r->excluded)
		rc = gp__request_set_excluded(r, c, j->exc_nodes, err);
	if (rc != GP_OK)
		r->nrequired = r->nexcluded = -1;
	return rc;
}

/* Does the job ask for GPUs in any of the fields Slurm keeps them in
 * (--gpus, --gres, --gpus-per-node, --tres-per-task, ...)?  A field that
 * cannot be read counts as asking. */
static bool job_asks_gpus(const job_desc_msg_t *j)
{
	const char *f[] = { j->tres_per_job, j->tres_per_node, j->tres_per_socket, j->tres_per_task };
	char type[GP_NAME_MAX];
	size_t i;
	long n;
	int rc;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if ((rc = gp_tres_gpu_request(f[i], &n, type, sizeof(type))) < 0 || (rc > 0 && n > 0))
			return true;
	return false;
}

/*
 * Keep a request for GPUs of one type on the nodes whose GPUs are all of
 * that type: every other GPU node joins r's excluded nodes.  Types are
 * slurm.conf's (gpu:TYPE:N), compared without regard to case as Slurm
 * compares type names (gp__node_type_gpus; a node without a type in
 * slurm.conf answers by gpuplace.conf's DefaultProfile, so a request
 * naming that profile may take it: name the type in slurm.conf).  A node
 * of mixed types is left out: the engine counts a node's GPUs, not its
 * GPUs of one type, and could pin more than the node holds of it.  0, or
 * -1 with why when the request cannot be placed exactly: no node has the
 * type (or only nodes of mixed types), fewer GPUs of it than the job
 * asks, or --nodelist names a node not wholly of that type.
 */
static int restrict_to_type(gp_request_t *r, const gp_cluster_t *c, const char *type, char *why,
                            size_t len)
{
	uint8_t *out = calloc((size_t)c->nnodes + 1, 1);
	int32_t i, k, n = 0, *ex, of;
	int64_t gpus = 0, mixed = 0;
	bool all;

	if (!out) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	for (i = 0; i < c->nnodes; i++) {
		const gp_node_t *nd = &c->nodes[i];

		if (nd->ngpus <= 0)
			continue;
		of = gp__node_type_gpus(c, i, type, &all);
		if (all) {
			gpus += nd->ngpus;
		} else {
			mixed += of;
			out[i] = 1;
		}
	}
	if (gpus < r->gpus) {
		if (mixed)
			snprintf(why, len, "the job asks for %d GPUs of type %.64s, nodes that hold "
			         "only that type have %lld (%lld more on nodes of mixed types, left "
			         "to Slurm)", (int)r->gpus, type, (long long)gpus, (long long)mixed);
		else if (gpus)
			snprintf(why, len, "the job asks for %d GPUs of type %.64s, the cluster has %lld",
			         (int)r->gpus, type, (long long)gpus);
		else
			snprintf(why, len, "no node has GPUs of type %.64s", type);
		free(out);
		return -1;
	}
	for (k = 0; k < r->nrequired; k++)
		if (out[r->required[k]]) {
			snprintf(why, len, "--nodelist names %.64s, which has no GPU of type %.64s",
			         c->nodes[r->required[k]].name, type);
			free(out);
			return -1;
		}
	for (k = 0; k < r->nexcluded; k++)
		out[r->excluded[k]] = 1;
	for (i = 0; i < c->nnodes; i++)
		n += out[i];
	if (n > r->nexcluded) {
		if (!(ex = malloc((size_t)n * sizeof(*ex)))) {
			snprintf(why, len, "out of memory");
			free(out);
			return -1;
		}
		for (i = 0, k = 0; i < c->nnodes; i++)
			if (out[i])
				ex[k++] = i;
		free(r->excluded);
		r->excluded = ex;
		r->nexcluded = n;
	}
	free(out);
	return 0;
}

/* GPUs of type `type' on nodes of mixed types in the partition r resolves
 * to: the GPUs restrict_to_type() leaves out of a typed decision. */
static int64_t mixed_type_gpus(const gp_cluster_t *c, const gp_request_t *r, const char *type)
{
	int32_t i, q = gp__request_partition(r, c), of;
	int64_t n = 0;
	bool all;

	for (i = 0; i < c->nnodes; i++) {
		if (c->nodes[i].ngpus <= 0 || (q >= 0 && !gp__node_in_part(c, i, q)))
			continue;
		of = gp__node_type_gpus(c, i, type, &all);
		if (!all)
			n += of;
	}
	return n;
}

/* The job's GPU count and type from one TRES field into *count and
 * type[GP_NAME_MAX]; 0, or -1 with why when gpuplace cannot express it. */
static int tres_field(const char *what, const char *tres, long *count, char *type, char *why,
                      size_t len)
{
	int rc = gp_tres_gpu_request(tres, count, type, GP_NAME_MAX);

	if (rc == -2)
		snprintf(why, len, "%s %.200s names more than one GPU type", what, tres);
	else if (rc < 0)
		snprintf(why, len, "cannot read the GPU request %s %.200s", what, tres);
	return rc < 0 ? -1 : 0;
}

/* The engine's request for job_desc.  1 = a request to decide on, 0 = not
 * gpuplace's job (passes unchanged; *why says why when not obvious).  The
 * GPUs are the sum of every GPU entry of --gpus (tres_per_job) or of
 * --gres / --gpus-per-node (tres_per_node), of one type: a request of
 * several types, or of a type gpuplace cannot place exactly, passes
 * unchanged with the reason in why.  The type, "" for any, goes into
 * type[GP_NAME_MAX]. */
static int build_request(const job_desc_msg_t *j, const gp_cluster_t *c, gp_request_t *r,
                         char *type, char *why, size_t len)
{
	char node_type[GP_NAME_MAX];
	long per_job, per_node, n;
	uint32_t nodes = j->min_nodes == NO_VAL || j->min_nodes == 0 ? 0 : j->min_nodes;
	int64_t total;
	gp_error_t err;

	why[0] = '\0';
	type[0] = '\0';
	if (tres_field("--gpus", j->tres_per_job, &per_job, type, why, len) ||
	    tres_field("--gres/--gpus-per-node", j->tres_per_node, &per_node, node_type, why, len))
		return 0;
	if (*node_type && *type && strcasecmp(node_type, type)) {
		snprintf(why, len, "GPUs of type %.64s per job and %.64s per node", type, node_type);
		return 0;
	}
	if (!*type)
		snprintf(type, GP_NAME_MAX, "%s", node_type);
	if (j->tres_per_socket || j->tres_per_task) {
		char t[GP_NAME_MAX];

		if (gp_tres_gpu_request(j->tres_per_socket, &n, t, sizeof(t)) ||
		    gp_tres_gpu_request(j->tres_per_task, &n, t, sizeof(t))) {
			snprintf(why, len, "GPUs per socket or per task are left to Slurm");
			return 0;
		}
	}
	/* per_node <= 2^30 and nodes < 2^32: the product fits in 64 bits;
	 * larger than the engine counts is Slurm's to refuse, not ours to wrap */
	total = per_job ? (int64_t)per_job : (int64_t)per_node * (nodes ? nodes : 1);
	if (total > INT32_MAX) {
		snprintf(why, len, "a request for %" PRId64 " GPUs is left to Slurm", total);
		return 0;
	}
	r->gpus = (int32_t)total;
	r->gpus_per_node = (int32_t)per_node;
	if (r->gpus <= 1)
		return 0; /* not a distributed GPU job */
	r->min_nodes = (int32_t)nodes;
	r->max_nodes = j->max_nodes == NO_VAL || j->max_nodes == 0 ? 0 : (int32_t)j->max_nodes;
	r->exclusive = wants_idle_nodes(j);
	r->time_limit_min = j->time_limit == NO_VAL || j->time_limit == INFINITE ? 0 : j->time_limit;
	/* --segment stays in the job as given: candidates are made of whole
	 * segments so that Slurm can start the set gpuplace pins */
	r->segment_nodes = (int32_t)gp_job_segment(j);
	if (j->partition && strchr(j->partition, ',')) {
		snprintf(why, len, "several partitions are left to Slurm");
		return 0;
	}
	if ((j->partition && gp__request_set_partition(r, c, j->partition, &err)) ||
	    node_lists(j, c, r, &err) ||
	    (j->features && gp__request_set_constraint(r, j->features, &err))) {
		snprintf(why, len, "%.400s", err.text);
		return 0;
	}
	if (*type && restrict_to_type(r, c, type, why, len))
		return 0;
	return 1;
}

/* ---- applying a decision ------------------------------------------------ */

/* Add NAME=VALUE to a batch job's environment (Slurm-allocated, as
 * job_submit/lua does it); srun and salloc have none. */
static void env_set(job_desc_msg_t *j, const char *name, const char *value)
{
	size_t n = strlen(name);
	uint32_t i;

	if (!j->environment)
		return;
	for (i = 0; i < j->env_size; i++)
		if (j->environment[i] && !strncmp(j->environment[i], name, n) &&
		    j->environment[i][n] == '=') {
			slurm_xfree((void **)&j->environment[i]);
			j->environment[i] = slurm_xstrdup_printf("%s=%s", name, value);
			return;
		}
	gp_xrealloc(j->environment, sizeof(char *) * (j->env_size + 2));
	j->environment[j->env_size] = slurm_xstrdup_printf("%s=%s", name, value);
	j->env_size++;
}

/*
 * Add NAME=VALUE to the job's SPANK environment, which slurmd hands to
 * Prolog and Epilog as SPANK_NAME (slurm.conf(5), "Prolog and Epilog
 * Scripts"), for batch jobs, srun and salloc alike.  job_desc_msg_t has
 * spank_job_env (char **) and spank_job_env_size (uint32_t) from 22.05
 * through 24.11 (slurm.h); slurmctld copies the array into the job record
 * and frees the description's with xfree, so every string and the array
 * come from Slurm's allocator.  A job without SPANK variables has a NULL
 * array: it is created here.
 */
static void spank_env_set(job_desc_msg_t *j, const char *name, const char *value)
{
	size_t n = strlen(name);
	uint32_t i;

	for (i = 0; j->spank_job_env && i < j->spank_job_env_size; i++)
		if (j->spank_job_env[i] && !strncmp(j->spank_job_env[i], name, n) &&
		    j->spank_job_env[i][n] == '=') {
			slurm_xfree((void **)&j->spank_job_env[i]);
			j->spank_job_env[i] = slurm_xstrdup_printf("%s=%s", name, value);
			return;
		}
	if (!j->spank_job_env)
		j->spank_job_env_size = 0;
	gp_xrealloc(j->spank_job_env, sizeof(char *) * (j->spank_job_env_size + 2));
	j->spank_job_env[j->spank_job_env_size] = slurm_xstrdup_printf("%s=%s", name, value);
	j->spank_job_env_size++;
}

/* A number as "%.<digits>g" (digits 1..17). */
static void env_num(job_desc_msg_t *j, const char *name, int digits, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*g", digits, v);
	env_set(j, name, buf);
}

/* "job from uid U 'NAME'", or "job N 'NAME' of uid U" when the submitter
 * chose the id (slurmctld assigns it only after job_submit), for every
 * per-job line; the name is escaped with the whole line (gp_log). */
static void job_label(const job_desc_msg_t *j, uint32_t uid, char *buf, size_t len)
{
	const char *name = j->name ? j->name : "";

	if (GP_JOB_DESC_ID(j) != NO_VAL && GP_JOB_DESC_ID(j) != 0)
		snprintf(buf, len, "job %u '%.100s' of uid %u", GP_JOB_DESC_ID(j), name, uid);
	else
		snprintf(buf, len, "job from uid %u '%.100s'", uid, name);
}

/* What the job needs of each node besides GPUs, with Slurm's defaults where
 * it says nothing: one CPU, and def_mem (slurmctld's DefMemPerCPU with
 * MEM_PER_CPU set, or DefMemPerNode; a partition's own default is not
 * seen), else at least 1 MB. */
static void job_need(const job_desc_msg_t *j, uint64_t def_mem, gp_live_need_t *n)
{
	uint64_t mem = j->pn_min_memory != NO_VAL64 ? j->pn_min_memory : def_mem;

	int32_t cpt = j->cpus_per_task == NO_VAL16 || j->cpus_per_task == 0 ? 1 : j->cpus_per_task;
	long v;

	memset(n, 0, sizeof(*n));
	n->cpus_per_node = cpt; /* at least one task per node */
	if (j->pn_min_cpus != NO_VAL16 && j->pn_min_cpus > n->cpus_per_node)
		n->cpus_per_node = j->pn_min_cpus;
	if (j->ntasks_per_node != NO_VAL16 && j->ntasks_per_node > 0 &&
	    (int32_t)j->ntasks_per_node * cpt > n->cpus_per_node)
		n->cpus_per_node = (int32_t)j->ntasks_per_node * cpt;
	v = gp_tres_gpus(j->cpus_per_tres);
	n->cpus_per_gpu = v > 0 ? (int32_t)v : 0;
	v = gp_tres_gpus(j->mem_per_tres);
	n->mem_per_gpu_mb = v > 0 ? v : 0;
	n->mem_per_node_mb = 1;
	if (mem != NO_VAL64 && (mem || j->pn_min_memory == 0)) {
		if (mem & MEM_PER_CPU)
			n->mem_per_node_mb = (int64_t)(mem & ~MEM_PER_CPU) * n->cpus_per_node;
		else if (mem == 0)
			n->mem_per_node_mb = -1; /* --mem=0: the whole node's memory */
		else
			n->mem_per_node_mb = (int64_t)mem;
		if (n->mem_per_node_mb == 0)
			n->mem_per_node_mb = 1;
	}
	n->idle_node = wants_idle_nodes(j);
}

/* tres_per_node giving each node `per_node' GPUs: the job's per-job GPU
 * entries ("gres:gpu[:type]:N", several of one type summed) as one entry of
 * that type with N replaced (Slurm-allocated), or NULL when the request
 * holds anything but GPUs of one type. */
static char *per_node_tres(const char *per_job, int32_t per_node)
{
	char type[GP_NAME_MAX];
	const char *p;
	long n;

	if (gp_tres_gpu_request(per_job, &n, type, sizeof(type)) != 1)
		return NULL;
	for (p = per_job; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if ((strncmp(p, "gres:gpu", 8) && strncmp(p, "gres/gpu", 8)) ||
		    (p[8] && p[8] != ':' && p[8] != '=' && p[8] != ','))
			return NULL;
	/* "gres:" (22.05) or "gres/" (newer) as the job wrote it */
	return *type ? slurm_xstrdup_printf("%.8s:%s:%d", per_job, type, per_node)
	             : slurm_xstrdup_printf("%.8s:%d", per_job, per_node);
}

/*
 * The admin comment `old' (NULL = none) with gpuplace's part
 * (gp_comment_section) set to `section': replaced where it stands, else
 * appended after the text already there with a space between.  What
 * job_submit/lua, another plugin or the admin wrote stays as it is.
 * malloc'd (the caller frees it), NULL when memory is short.
 */
static char *comment_with(const char *old, const char *section)
{
	size_t at, len, ol = old ? strlen(old) : 0, sl = strlen(section);
	const char *sep = "";
	char *out;

	if (!gp_comment_section(old, &at, &len)) {
		at = ol; /* appended */
		len = 0;
		if (ol && old[ol - 1] != ' ')
			sep = " ";
	}
	if (!(out = malloc(ol - len + strlen(sep) + sl + 1)))
		return NULL;
	snprintf(out, ol - len + strlen(sep) + sl + 1, "%.*s%s%s%s", (int)at, old ? old : "", sep,
	         section, old ? old + at + len : "");
	return out;
}

/*
 * Can Slurm be told to run the job on exactly best's nodes with best's GPU
 * count on each?  req_nodes names the nodes, min_nodes = max_nodes = their
 * number stops Slurm adding any, and GPUs per node (the job's own
 * --gpus-per-node, or --gpus turned into the same count per node) stop it
 * spreading the GPUs differently.  1 = yes, with *tres_node the new
 * tres_per_node (NULL = keep the job's); 0 = no, why says why.
 */
static int pin_exact(const job_desc_msg_t *j, const gp_request_t *r, const gp_scored_t *best,
                     int64_t age, char **tres_node, char *why, size_t len)
{
	int32_t n = best->nnodes, per = gp__popcount(best->gpu_mask[0]), i;
	bool even = true;

	*tres_node = NULL;
	if (age > GP_PIN_FRESH_S) {
		snprintf(why, len, "cluster state %lld s old", (long long)age);
		return 0;
	}
	if (unconfirmed_passes + unbooked_passes) {
		/* where Slurm put them is a guess until the next reading */
		snprintf(why, len, "%d GPU job%s passed since the state was read",
		         unconfirmed_passes + unbooked_passes,
		         unconfirmed_passes + unbooked_passes == 1 ? "" : "s");
		return 0;
	}
	if (!gp_job_segment_pin_ok(j, n)) {
		snprintf(why, len, "this Slurm takes no required nodes with several --segment segments");
		return 0;
	}
	if (dec_conf &&
	    !gp__block_pin_ok(dec_conf->cluster, best->nodes, n, (int32_t)gp_job_segment(j))) {
		/* Slurm would refuse the job outright, not only wait */
		snprintf(why, len, "topology/block takes no required nodes outside one block of "
		         "the job's size");
		return 0;
	}
	for (i = 1; i < n; i++)
		if (gp__popcount(best->gpu_mask[i]) != per)
			even = false;
	if (r->min_nodes > n || (r->max_nodes && r->max_nodes < n)) {
		snprintf(why, len, "the job asks for %d-%d nodes", r->min_nodes, r->max_nodes);
		return 0;
	}
	if (j->num_tasks != NO_VAL && j->num_tasks > 0 &&
	    ((int32_t)j->num_tasks < n ||
	     (j->ntasks_per_node != NO_VAL16 && j->ntasks_per_node > 0 &&
	      (int64_t)j->ntasks_per_node * n < (int64_t)j->num_tasks))) {
		snprintf(why, len, "%u tasks do not fit %d nodes", j->num_tasks, n);
		return 0;
	}
	if (r->gpus_per_node > 0) {
		if (!even || per != r->gpus_per_node) {
			snprintf(why, len, "the set's GPUs per node differ from --gpus-per-node=%d",
			         r->gpus_per_node);
			return 0;
		}
		return 1;
	}
	if (n == 1)
		return 1; /* one node holds all of the job's GPUs */
	if (!even) {
		snprintf(why, len, "uneven GPUs per node, which Slurm cannot be told");
		return 0;
	}
	if (!(*tres_node = per_node_tres(j->tres_per_job, per))) {
		snprintf(why, len, "the GPU request %.100s cannot be given per node",
		         j->tres_per_job ? j->tres_per_job : "");
		return 0;
	}
	return 1;
}

/* The constraint keeping a job in best's domain, "" when the set spans the
 * whole cluster (no domain to keep it in). */
static void domain_of(const gp_cluster_t *c, const gp_scored_t *best, char *buf, size_t len)
{
	buf[0] = '\0';
	if (best->kind == GP_DOM_NVL && best->domain >= 0)
		gp__domain_feature(GP_FEATURE_NVL, c->nvl[best->domain].name, buf, len);
	else if (best->kind == GP_DOM_SWITCH && best->domain >= 0 &&
	         c->switches[best->domain].parent >= 0)
		gp__domain_feature(GP_FEATURE_SWITCH, c->switches[best->domain].name, buf, len);
}

/* What was decided, as apply() writes it into the job. */
struct outcome {
	gp_decision_kind_t kind;      /* after exactness: a PIN may become CONSTRAIN */
	const char *features;         /* CONSTRAIN: the constraint to add, "" = none */
	char *tres_node;              /* PIN: new tres_per_node (Slurm-allocated) or NULL */
	char unpinned[160];           /* why a PIN became CONSTRAIN, "" = it did not */
	uint32_t switches, switch_wait; /* CONSTRAIN by --switches=N@S, 0 = not */
	uint32_t switch_pays;           /* > switch_wait: the wait that would pay,
	                                 * cut to Slurm's max_switch_wait */
	uint64_t ref;
	const gp_job_profile_t *profile; /* the hints, NULL = none */
};

#define ADD(...) do { if (n < (int)sizeof(comment)) \
	n += snprintf(comment + n, sizeof(comment) - (size_t)n, __VA_ARGS__); } while (0)

static void apply(job_desc_msg_t *j, const gp_cluster_t *c, const gp_decision_t *d,
                  struct outcome *o)
{
	const gp_scored_t *best = d->ncands ? &d->cands[0] : NULL;
	const gp_job_profile_t *p = o->profile;
	bool compute = p && (p->compute_s > 0 || p->flops > 0);
	char comment[1536], *list = best ? gp__scored_nodelist(c, best) : NULL;
	int n = 0;

	if (o->kind == GP_DECIDE_PIN && best && list) {
		slurm_xfree((void **)&j->req_nodes);
		j->req_nodes = slurm_xstrdup(list);
		j->min_nodes = j->max_nodes = (uint32_t)best->nnodes;
		if (o->tres_node) {
			slurm_xfree((void **)&j->tres_per_job);
			slurm_xfree((void **)&j->tres_per_node);
			j->tres_per_node = o->tres_node;
			o->tres_node = NULL;
		}
		ADD("gpuplace: PIN %s; exactly %d node%s, %d GPUs%s", list, best->nnodes,
		    best->nnodes == 1 ? "" : "s",
		    best->nnodes == 1 ? best->ngpus : gp__popcount(best->gpu_mask[0]),
		    best->nnodes == 1 ? "" : " each");
	} else if (o->kind == GP_DECIDE_CONSTRAIN && o->switches) {
		j->req_switch = o->switches;
		j->wait4switch = o->switch_wait;
		if (o->switch_pays > o->switch_wait)
			ADD("gpuplace: CONSTRAIN --switches=%u@%u s: Slurm (topology/tree) waits up to %u s "
			    "for %u leaf switch%s, then may spread the job; waiting would pay up to %u s, "
			    "but Slurm's max_switch_wait is %u s",
			    o->switches, o->switch_wait, o->switch_wait, o->switches,
			    o->switches == 1 ? "" : "es", o->switch_pays, o->switch_wait);
		else
			ADD("gpuplace: CONSTRAIN --switches=%u@%u s: Slurm (topology/tree) waits up to %u s "
			    "for %u leaf switch%s, then may spread the job, which no longer pays after that",
			    o->switches, o->switch_wait, o->switch_wait, o->switches,
			    o->switches == 1 ? "" : "es");
	} else if (o->kind == GP_DECIDE_CONSTRAIN) {
		char *old = j->features;
		bool added = false;

		/* narrow, never widen: AND the user's own constraint; a user's
		 * own bracket group cannot take a second one, so it stays alone */
		if (*o->features && (!old || !*old)) {
			j->features = slurm_xstrdup(o->features);
			slurm_xfree((void **)&old);
			added = true;
		} else if (*o->features && !strchr(old, '[')) {
			j->features = slurm_xstrdup_printf("(%s)&%s", old, o->features);
			slurm_xfree((void **)&old);
			added = true;
		}
		if (added)
			ADD("gpuplace: CONSTRAIN %s", o->features);
		else if (*o->features)
			ADD("gpuplace: CONSTRAIN not applied (%s): the job's own constraint has a "
			    "matching-OR group", o->features);
		else if (!best)
			/* no set chosen: left to Slurm's placement, the reason
			 * says why (a job that fits one block with no block free) */
			ADD("gpuplace: CONSTRAIN none: %.600s", d->reason);
		else
			ADD("gpuplace: CONSTRAIN none: the chosen set spans the whole cluster");
		/* waiting for a block: --segment=<nodes> would let Slurm take
		 * whichever block frees first, but Slurm gives it no max-time
		 * and takes no change of a pending job's segment (job_mgr.c
		 * _update_job has no segment_size, 24.11 to 25.11): a job held
		 * by it could never be released.  The block's feature can be:
		 * steering PINs the job elsewhere once the predicted wait is
		 * over (steer_rules.h) */
		if (added && d->waited && topology_is("block"))
			ADD(" (a block's feature, not --segment, which Slurm cannot lift from a pending "
			    "job: gpuplace releases it after the predicted %.0f s)", d->wait_s);
		if (*o->unpinned && list)
			ADD("; best free set %s not pinned: %s", list, o->unpinned);
	}
	if (best) {
		ADD("; step %.3g s, slowdown %.2f", best->cost.step_s, best->cost.slowdown);
		if (compute)
			ADD(", overhead %.1f %%", 100 * best->cost.overhead);
		else if (p)
			ADD(" (the hints give no compute time: the step is its communication alone)");
		else
			ADD(" (no hints: default profile assumed, data parallel with a %.3g GB gradient "
			    "all-reduce per step and no compute time)",
			    (c->site.default_grad_bytes > 0 ? c->site.default_grad_bytes : 1e9) / 1e9);
	}
	if (best && best->cap_w > 0)
		/* read back by etc/prolog/gpuplace-powercap ("cap <W> W") */
		ADD("; cap %.0f W (speed %.2f)", floor(best->cap_w), best->cap_speed);
	if (d->waited)
		ADD("; waits ~%.0f s: done in %.0f s instead of %.0f s", d->wait_s, d->wait_finish_s,
		    d->now_finish_s);
	if (d->ckpt.storage >= 0 && d->ckpt.interval_s > 0)
		ADD("; checkpoint every %.0f s to %s at +%.0f s%s%s", d->ckpt.interval_s,
		    c->storage[d->ckpt.storage].name, d->ckpt.offset_s,
		    d->ckpt.buddy >= 0 ? ", buddy " : "",
		    d->ckpt.buddy >= 0 ? c->nodes[d->ckpt.buddy].name : "");
	else if (d->ckpt.storage >= 0)
		/* a time limit short against the MTTF: no periodic checkpoint
		 * pays (gp__ckpt_plan), one final write at the signal lead */
		ADD("; no periodic checkpoint: the time limit comes first (job MTTF %.0f s); one "
		    "to %s %.0f s before it%s%s", d->ckpt.mttf_s, c->storage[d->ckpt.storage].name,
		    d->ckpt.signal_lead_s, d->ckpt.buddy >= 0 ? ", buddy " : "",
		    d->ckpt.buddy >= 0 ? c->nodes[d->ckpt.buddy].name : "");
	else if (d->ckpt_bytes > 0 && !best)
		ADD("; no checkpoint plan for %.3g GB: its nodes are left to Slurm's placement",
		    d->ckpt_bytes / 1e9);
	else if (d->ckpt_bytes > 0)
		ADD("; no checkpoint plan: no storage target of gpuplace.conf could be planned for "
		    "%.3g GB", d->ckpt_bytes / 1e9);
	else
		ADD("; no checkpoint plan: %s", p ? "the hints give neither ckpt_bytes nor params"
		                                  : "no hints give the checkpoint size");
	if (j->reservation && *j->reservation)
		ADD("; inside reservation %.200s", j->reservation);
	ADD("; ref %llu", (unsigned long long)o->ref);
	{
		/* gpuplace's part only: what else the comment holds stays */
		char *merged = comment_with(j->admin_comment, comment);

		slurm_xfree((void **)&j->admin_comment);
		j->admin_comment = slurm_xstrdup(merged ? merged : comment);
		free(merged);
	}

	env_set(j, "GPUPLACE_DECISION", gp__decision_kind_name(o->kind));
	if (best && best->cap_w > 0) {
		char w[32];

		/* whole watts, rounded down so the cap never exceeds the plan */
		snprintf(w, sizeof(w), "%.0f", floor(best->cap_w));
		spank_env_set(j, "GPUPLACE_POWER_CAP_W", w);
		env_set(j, "GPUPLACE_POWER_CAP_W", w);
	}
	if (best) {
		env_num(j, "GPUPLACE_PREDICTED_STEP_S", 6, best->cost.step_s);
		if (compute)
			env_num(j, "GPUPLACE_PREDICTED_OVERHEAD", 4, best->cost.overhead);
		env_num(j, "GPUPLACE_SLOWDOWN", 4, best->cost.slowdown);
	}
	if (d->ckpt.storage >= 0) {
		/* an interval and offset only for a periodic plan; the target
		 * and buddy serve the final checkpoint too */
		if (d->ckpt.interval_s > 0) {
			env_num(j, "GPUPLACE_CKPT_INTERVAL", 10, round(d->ckpt.interval_s));
			env_num(j, "GPUPLACE_CKPT_OFFSET", 10, round(d->ckpt.offset_s));
		}
		env_set(j, "GPUPLACE_CKPT_TARGET", c->storage[d->ckpt.storage].name);
		if (d->ckpt.buddy >= 0)
			env_set(j, "GPUPLACE_CKPT_BUDDY", c->nodes[d->ckpt.buddy].name);
		/* one checkpoint before the time limit, unless the user asked
		 * for a signal of their own */
		if ((j->warn_signal == 0 || j->warn_signal == NO_VAL16) && d->ckpt.signal_lead_s > 0) {
			j->warn_signal = SIGUSR1;
			j->warn_time = (uint16_t)fmin(d->ckpt.signal_lead_s, 65535.0);
			j->warn_flags = KILL_JOB_BATCH;
		}
	}
	free(list);
}

#undef ADD

/* ---- entry points ------------------------------------------------------- */

/* A job passing unchanged still takes GPUs: book where Slurm would most
 * likely put it, so the next decisions do not count those GPUs free. */
static void book_pass(struct gp_conf *c, const job_desc_msg_t *j, gp_request_t *r,
                      const char *type, uint32_t uid)
{
	char why[256];
	gp_error_t err;
	struct gp_snap *sn = snap_get();
	gp_live_need_t need;
	int32_t nodes = j->min_nodes == NO_VAL || j->min_nodes == 0 ? 0 : (int32_t)j->min_nodes;

	if (!sn || sn->conf != c || (int64_t)time(NULL) - sn->view.state->time > GP_STATE_STALE_S) {
		snap_put(sn);
		return;
	}
	/* the node lists, unless build_request read them already */
	if (node_lists(j, c->cluster, r, &err) ||
	    (*type && restrict_to_type(r, c->cluster, type, why, sizeof(why)))) {
		snap_put(sn);
		return;
	}
	job_need(j, daemon_default_mem(), &need);
	pthread_mutex_lock(&decide_lock);
	if (dec_conf == c) {
		prepare_work(sn, &need);
		ledger_add_guess(r, nodes, uid, gp_live_name_hash(j->name), sn);
		work->jobs = NULL; /* borrowed from the snapshot */
		work->njobs = 0;
	}
	pthread_mutex_unlock(&decide_lock);
	snap_put(sn);
	refresh_soon();
}

static void orig_save(const job_desc_msg_t *j, uint64_t ref, const char *hints, double wait_s,
                      uint32_t uid, bool every_refresh);

/* A GPU request gpuplace leaves to Slurm because it cannot express it
 * exactly (several GPU types, a type no node has, GPUs per task...): the
 * reason goes into gpuplace's part of the admin comment as "gpuplace: PASS
 * <why>; ref 0" (ref 0: no decision to match or steer), so the job record
 * says why the job is Slurm's alone.  A ';' of the reason, which may quote
 * the job's own strings, becomes ',' so that it cannot end the part. */
static void comment_pass(job_desc_msg_t *j, const char *why)
{
	char reason[512], section[640], *p, *merged;

	snprintf(reason, sizeof(reason), "%s", why);
	for (p = reason; *p; p++)
		if (*p == ';' || (unsigned char)*p < 0x20)
			*p = ',';
	snprintf(section, sizeof(section), "gpuplace: PASS %s; ref 0", reason);
	if (!(merged = comment_with(j->admin_comment, section)))
		return;
	slurm_xfree((void **)&j->admin_comment);
	j->admin_comment = slurm_xstrdup(merged);
	free(merged);
}

/*
 * Slurm's own answer to a request gp__request_check() refused: the error
 * slurmctld rejects such a job with, or holds it pending for (a time
 * limit over the partition's MaxTime is rejected only with
 * EnforcePartLimits; job_mgr.c).  The user's to fix and Slurm's to say:
 * the job passes unchanged.  The conditions in gp__request_check()'s order.
 */
static int mistake_code(const gp_request_t *r, const gp_cluster_t *c, const char **name)
{
	int32_t p = gp__request_partition(r, c), i, k;

	if (r->gpus_per_node > GP_MAX_GPUS_PER_NODE ||
	    (r->gpus_per_node > 0 && r->gpus % r->gpus_per_node)) {
		*name = "ESLURM_INVALID_GRES";
		return ESLURM_INVALID_GRES;
	}
	for (i = 0; i < r->nrequired; i++)
		for (k = 0; k < r->nexcluded; k++)
			if (r->required[i] == r->excluded[k]) {
				/* "Job's required and excluded node lists overlap" */
				*name = "ESLURM_INVALID_NODE_NAME";
				return ESLURM_INVALID_NODE_NAME;
			}
	if (p < 0 && c->nparts > 0) {
		*name = "ESLURM_DEFAULT_PARTITION_NOT_SET";
		return ESLURM_DEFAULT_PARTITION_NOT_SET;
	}
	if (p >= 0 && r->time_limit_min && c->parts[p].max_time_min != UINT32_MAX &&
	    r->time_limit_min > c->parts[p].max_time_min) {
		*name = "ESLURM_INVALID_TIME_LIMIT";
		return ESLURM_INVALID_TIME_LIMIT;
	}
	*name = "ESLURM_INVALID_NODE_COUNT";
	return ESLURM_INVALID_NODE_COUNT;
}

/* An engine failure is gpuplace's own: at error level, but at most once
 * per GP_SUMMARY_S (the rest at verbose, all counted in the summary), so a
 * burst of submissions that all meet it writes one error line. */
static time_t engine_error_logged;

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	char hints[GP_HINTS_MAX], why[512], label[160], type[GP_NAME_MAX];
	const char *source = "";
	gp_job_profile_t profile;
	struct gp_conf *c;
	struct gp_snap *sn;
	struct outcome o;
	gp_live_need_t need;
	gp_request_t r;
	gp_decision_t d;
	gp_error_t err;
	int64_t age;
	int found, rc = SLURM_SUCCESS, want;
	int64_t mixed;
	char feat[GP_NAME_MAX + 16];

	if (!job_desc)
		return SLURM_SUCCESS;
	job_label(job_desc, submit_uid, label, sizeof(label));
	found = collect_hints(job_desc, hints, sizeof(hints), &source);
	if (found != 0 && !job_asks_gpus(job_desc)) {
		/* hints describe a GPU job: a stray GPUPLACE_* variable in the
		 * environment of a job without GPUs is none of gpuplace's */
		slurm_verbose("gpuplace: %s asks for no GPU: its %s are ignored", label, source);
		found = 0;
	}
	if (found < 0) {
		if (err_msg)
			*err_msg = slurm_xstrdup_printf("gpuplace: %s: hints are longer than %d characters",
			                                source, GP_HINTS_MAX - 1);
		slurm_verbose("gpuplace: %s rejected: %s longer than %d characters", label, source,
		              GP_HINTS_MAX - 1);
		pthread_mutex_lock(&stats_lock);
		stat_bad_hints++;
		pthread_mutex_unlock(&stats_lock);
		return SLURM_ERROR;
	}
	if (found > 0 && gp__job_profile_parse(hints, &profile, &err) != GP_OK) {
		if (err_msg)
			*err_msg = slurm_xstrdup_printf("gpuplace: %s: %s", source, err.text);
		slurm_verbose("gpuplace: %s rejected: %s: %s", label, source, err.text);
		pthread_mutex_lock(&stats_lock);
		stat_bad_hints++;
		pthread_mutex_unlock(&stats_lock);
		return SLURM_ERROR;
	}
	c = conf_get();
	if (!c) {
		count_pass(PASS_NO_CONF, label, conf_dir);
		return SLURM_SUCCESS;
	}
	pass_resolved(PASS_NO_CONF);
	gp__request_init(&r);
	want = build_request(job_desc, c->cluster, &r, type, why, sizeof(why));
	if (want <= 0) {
		count_pass(*why ? PASS_REQUEST : PASS_FEW_GPUS, label, why);
		if (*why)
			comment_pass(job_desc, why);
		if (r.gpus > 0)
			book_pass(c, job_desc, &r, type, submit_uid);
		goto out;
	}
	/* a request Slurm refuses or holds (a time limit over MaxTime, -w and
	 * -x naming one node, ...) is the user's mistake, whatever the hints
	 * say: it reaches Slurm unchanged, which answers it with its own
	 * message */
	if (gp__request_check(&r, c->cluster, &err) == GP_EINVAL) {
		const char *code_name;
		int code = mistake_code(&r, c->cluster, &code_name);

		slurm_verbose("gpuplace: %s passes unchanged: %s; Slurm's to judge (%s, %d: %s)", label,
		              err.text, code_name, code, slurm_strerror(code));
		pthread_mutex_lock(&stats_lock);
		stat_pass[PASS_USER]++;
		pthread_mutex_unlock(&stats_lock);
		goto out;
	}
	sn = snap_get();
	if (!sn || sn->conf != c) {
		count_pass(!sn ? PASS_NO_STATE : PASS_OLD_CONF, label, NULL);
		snap_put(sn);
		goto out;
	}
	age = (int64_t)time(NULL) - sn->view.state->time;
	if (age > GP_STATE_STALE_S) {
		snprintf(why, sizeof(why), "read %lld s ago", (long long)age);
		count_pass(PASS_STALE, label, why);
		snap_put(sn);
		goto out;
	}
	job_need(job_desc, daemon_default_mem(), &need);
	memset(&d, 0, sizeof(d));
	memset(&o, 0, sizeof(o));
	pthread_mutex_lock(&decide_lock);
	if (dec_conf != c) {
		/* the plugin's thread builds it (decider_prepare): never here */
		pthread_mutex_unlock(&decide_lock);
		snap_put(sn);
		count_pass(PASS_NO_ENGINE, label, NULL);
		goto out;
	}
	prepare_work(sn, &need);
	/* nodes reserved during the job's run are not its to take; a job in a
	 * reservation stays inside it (time limit 0: no limit, every
	 * reservation not yet over counts) */
	if (gp_resv_apply(c->cluster, &sn->resv, job_desc->reservation, (int64_t)time(NULL),
	                  (int64_t)r.time_limit_min * 60, work->node_flags, why, sizeof(why))) {
		work->jobs = NULL; /* borrowed from the snapshot */
		work->njobs = 0;
		pthread_mutex_unlock(&decide_lock);
		snap_put(sn);
		count_pass(PASS_REQUEST, label, why);
		goto out;
	}
	{
		gp_power_view_t pv = { ledger_racks(sn->racks), gp__power_view_cap_speed };

		if (found > 0 && profile.gpus == 0)
			profile.gpus = r.gpus;
		bookings_prune((int64_t)time(NULL));
		rc = gp__decide(engine, work, &r, found > 0 ? &profile : NULL, &c->policy, &pv,
		                sn->view.state->time, recent_bookings(), nrecent_bookings(), &d, &err);
	}
	work->jobs = NULL; /* borrowed from the snapshot */
	work->njobs = 0;
	if (rc == GP_EINVAL && found > 0) {
		/* the hints contradict what the job asks for: the user can fix it */
		pthread_mutex_unlock(&decide_lock);
		if (err_msg)
			*err_msg = slurm_xstrdup_printf("gpuplace: %s: %s", source, err.text);
		slurm_verbose("gpuplace: %s rejected: %s: %s", label, source, err.text);
		pthread_mutex_lock(&stats_lock);
		stat_bad_hints++;
		pthread_mutex_unlock(&stats_lock);
		rc = SLURM_ERROR;
		snap_put(sn);
		goto out;
	}
	if (rc != GP_OK) {
		bool loud;

		pthread_mutex_unlock(&decide_lock);
		pthread_mutex_lock(&stats_lock);
		stat_pass[PASS_ENGINE]++;
		loud = time(NULL) >= engine_error_logged + GP_SUMMARY_S;
		if (loud)
			engine_error_logged = time(NULL);
		pthread_mutex_unlock(&stats_lock);
		gp_log(loud ? LOGL_ERROR : LOGL_VERBOSE,
		       "gpuplace: %s: the engine failed: %s; the job passes unchanged%s", label, err.text,
		       loud ? " (further engine failures this minute at verbose level)" : "");
		rc = SLURM_SUCCESS;
		snap_put(sn);
		goto out;
	}
	if (d.kind != GP_DECIDE_PIN && *type && (mixed = mixed_type_gpus(c->cluster, &r, type)) > 0) {
		/* the nodes of mixed types were left out of this decision (the
		 * engine counts a node's GPUs, not its GPUs of one type): a
		 * constraint or a wait on the others would hold the job off
		 * nodes Slurm can start it on, a REJECT would not know them.
		 * Only a free set of single-type nodes is gpuplace's to pin.
		 * Where Slurm starts it is unknown to the ledger: no PIN
		 * until the next reading shows it (as book_pass's guess that
		 * finds no place) */
		unbooked_passes++;
		unbooked_gen = sn->gen;
		pthread_mutex_unlock(&decide_lock);
		snprintf(why, sizeof(why), "no free set of nodes holding only GPUs of type %.64s "
		         "(nodes of mixed types hold %lld more, which gpuplace does not count per "
		         "type): left to Slurm", type, (long long)mixed);
		count_pass(PASS_REQUEST, label, why);
		comment_pass(job_desc, why);
		gp__decision_clear(&d);
		snap_put(sn);
		goto out;
	}
	o.kind = d.kind;
	o.features = d.features;
	/* waiting for a compact set: Slurm's own wait-for-switch where it
	 * applies (topology/tree, one Weight for all nodes - Weight tiers make
	 * cons_tres force lower-weight nodes in and never meet the switch
	 * count, notes/slurm-on-one-machine.md C2 - and no --switches of the
	 * user's) */
	if (d.kind == GP_DECIDE_CONSTRAIN && topology_is("tree") && dec_one_weight &&
	    (job_desc->req_switch == NO_VAL || job_desc->req_switch == 0) &&
	    gp_switch_request(&d, &c->policy, &o.switches, &o.switch_wait)) {
		/* Slurm waits no longer than its max_switch_wait whatever the
		 * job asks: ask for that, and say so; when even the predicted
		 * wait is longer, the switch request cannot hold the job and
		 * the constraint stays */
		uint32_t cap = daemon_max_switch_wait();

		if (o.switch_wait > cap && (double)cap < ceil(d.wait_s)) {
			o.switches = o.switch_wait = 0;
		} else {
			if (o.switch_wait > cap) {
				o.switch_pays = o.switch_wait;
				o.switch_wait = cap;
			}
			o.features = "";
		}
	}
	o.ref = ref_base + ++ref_seq;
	o.profile = found > 0 ? &profile : NULL;
	if (d.kind == GP_DECIDE_PIN && d.ncands > 0 &&
	    !pin_exact(job_desc, &r, &d.cands[0], age, &o.tres_node, o.unpinned,
	               sizeof(o.unpinned))) {
		/* Slurm cannot be held to this set: keep the job in its domain */
		o.kind = GP_DECIDE_CONSTRAIN;
		domain_of(c->cluster, &d.cands[0], feat, sizeof(feat));
		o.features = feat;
	}
	if (o.kind != GP_DECIDE_REJECT && d.ncands > 0 && !d.cands[0].future &&
	    !ledger_add(d.cands[0].nodes, d.cands[0].gpu_mask, d.cands[0].nnodes, o.ref, submit_uid,
	                gp_live_name_hash(job_desc->name), true, d.cands[0].cap_w, false) &&
	    o.kind == GP_DECIDE_PIN) {
		/* not booked (the ledger full): the next decision would count
		 * this set free and pin another job to it; only a domain */
		o.kind = GP_DECIDE_CONSTRAIN;
		domain_of(c->cluster, &d.cands[0], feat, sizeof(feat));
		o.features = feat;
		snprintf(o.unpinned, sizeof(o.unpinned), "the ledger of %d decisions Slurm has not "
		         "started is full", GP_LEDGER_MAX);
	}
	if (o.kind != GP_DECIDE_REJECT)
		orig_save(job_desc, o.ref, found > 0 ? hints : NULL,
		          d.waited ? d.wait_s : 0.0, submit_uid, o.switches > 0);
	if (o.kind != GP_DECIDE_REJECT)
		booking_add(&d, r.time_limit_min, (int64_t)time(NULL));
	pthread_mutex_unlock(&decide_lock);
	pthread_mutex_lock(&stats_lock);
	stat_kind[o.kind]++;
	if (*o.unpinned)
		stat_unpinned++;
	pthread_mutex_unlock(&stats_lock);
	if (o.kind == GP_DECIDE_REJECT) {
		if (err_msg)
			*err_msg = slurm_xstrdup_printf("gpuplace: %s", d.reason);
		slurm_verbose("gpuplace: %s rejected: %s", label, d.reason);
		rc = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	} else {
		apply(job_desc, c->cluster, &d, &o);
		slurm_verbose("gpuplace: %s, %d GPUs: %s (why: %s)", label, r.gpus,
		              job_desc->admin_comment, d.reason);
		rc = SLURM_SUCCESS;
		refresh_soon();
	}
	slurm_xfree((void **)&o.tres_node);
	gp__decision_clear(&d);
	snap_put(sn);
out:
	gp__request_clear(&r);
	conf_put(c);
	return rc;
}

static void orig_forget_job(uint32_t job_id);

/* Does an update touch what gpuplace keeps of the request (a hold or a
 * release, which change the priority only, does not)? */
static bool changes_request(const job_desc_msg_t *j)
{
	return j->req_nodes || j->exc_nodes || j->features || j->partition || j->reservation ||
	       j->tres_per_job || j->tres_per_node || j->tres_per_socket || j->tres_per_task ||
	       j->min_nodes != NO_VAL || j->max_nodes != NO_VAL || j->num_tasks != NO_VAL ||
	       j->shared != NO_VAL16 || j->time_limit != NO_VAL || j->pn_min_memory != NO_VAL64 ||
	       j->cpus_per_task != NO_VAL16;
}

/* The job the steering pass is updating right now (its own RPC comes back
 * through job_modify), 0 = none. */
static volatile uint32_t steer_inflight;

extern int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid, char **err_msg)
{
	/* job_ptr is slurmctld's private job_record_t: never dereferenced.
	 * Someone else changed the job: what gpuplace kept of the user's
	 * request may no longer be it, so the job is not steered again. */
	uint32_t id = 0;
	long v;

	if (!job_desc)
		return SLURM_SUCCESS;
	if (GP_JOB_DESC_ID(job_desc) != NO_VAL && GP_JOB_DESC_ID(job_desc) != 0)
		id = GP_JOB_DESC_ID(job_desc);
	else if (job_desc->job_id_str && gp__parse_long(job_desc->job_id_str, 1, UINT32_MAX, &v) == 0)
		id = (uint32_t)v; /* scontrol update names the job as a string */
	slurm_debug("gpuplace: job %u modified%s", id, id && id == steer_inflight ? " by steering" : "");
	if (id && id != steer_inflight && changes_request(job_desc))
		orig_forget_job(id);
	return SLURM_SUCCESS;
}

/* ---- steering pending jobs (steer.h) -------------------------------------- */

/*
 * What the user asked, kept for each job gpuplace PINned or CONSTRAINed
 * (by its decision reference) so that a re-decision starts from the
 * user's own request, never from what gpuplace made of it: the fields
 * build_request(), job_need() and pin_exact() read, strings malloc'd here
 * (never handed to Slurm).  In memory only: after a slurmctld restart the
 * original of a pending job is unknown and the job is left alone.
 * Under decide_lock.
 */
struct steer_orig {
	uint64_t ref;
	uint32_t job_id;          /* once the steering pass has seen it, else 0 */
	gp_steer_job_t st;        /* what the steering rules keep (steer_rules.h) */
	uint32_t uid;
	char *hints;              /* the hint string, NULL = none */
	job_desc_msg_t d;
};

/* pointers, so that dropping the oldest of a full table moves
 * GP_LEDGER_MAX pointers, not GP_LEDGER_MAX job descriptions */
static struct steer_orig *origs[GP_LEDGER_MAX];
static int norigs;

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void orig_free(struct steer_orig *o)
{
	if (!o)
		return;
	free(o->hints);
	free(o->d.tres_per_job);
	free(o->d.tres_per_node);
	free(o->d.tres_per_socket);
	free(o->d.tres_per_task);
	free(o->d.cpus_per_tres);
	free(o->d.mem_per_tres);
	free(o->d.reservation);
	free(o->d.partition);
	free(o->d.req_nodes);
	free(o->d.exc_nodes);
	free(o->d.features);
	free(o->d.name);
	free(o);
}

/* Called under decide_lock, before apply() changes the description. */
static void orig_save(const job_desc_msg_t *j, uint64_t ref, const char *hints, double wait_s,
                      uint32_t uid, bool every_refresh)
{
	struct steer_orig *o;

	if (!(o = calloc(1, sizeof(*o))))
		return; /* memory short: this job is not steered */
	if (norigs == GP_LEDGER_MAX) {
		/* full: the oldest goes (its job is left alone from now on) */
		orig_free(origs[0]);
		memmove(&origs[0], &origs[1], (size_t)(GP_LEDGER_MAX - 1) * sizeof(origs[0]));
		origs[GP_LEDGER_MAX - 1] = NULL;
		norigs--;
	}
	origs[norigs] = o;
	o->ref = ref;
	gp_steer_job_init(&o->st, false, (int64_t)time(NULL), wait_s, every_refresh);
	o->uid = uid;
	o->hints = dup_or_null(hints);
	o->d.min_nodes = j->min_nodes;
	o->d.max_nodes = j->max_nodes;
	o->d.shared = j->shared;
	o->d.time_limit = j->time_limit;
	o->d.num_tasks = j->num_tasks;
	o->d.ntasks_per_node = j->ntasks_per_node;
	o->d.cpus_per_task = j->cpus_per_task;
	o->d.pn_min_cpus = j->pn_min_cpus;
	o->d.pn_min_memory = j->pn_min_memory;
	GP_JOB_DESC_ID(&o->d) = NO_VAL;
	o->d.tres_per_job = dup_or_null(j->tres_per_job);
	o->d.tres_per_node = dup_or_null(j->tres_per_node);
	o->d.tres_per_socket = dup_or_null(j->tres_per_socket);
	o->d.tres_per_task = dup_or_null(j->tres_per_task);
	o->d.cpus_per_tres = dup_or_null(j->cpus_per_tres);
	o->d.mem_per_tres = dup_or_null(j->mem_per_tres);
	o->d.reservation = dup_or_null(j->reservation);
	o->d.partition = dup_or_null(j->partition);
	o->d.req_nodes = dup_or_null(j->req_nodes);
	o->d.exc_nodes = dup_or_null(j->exc_nodes);
	o->d.features = dup_or_null(j->features);
	o->d.name = dup_or_null(j->name);
	norigs++;
}

/* Forget every original (fini: the thread has stopped). */
static void origs_clear(void)
{
	int k;

	for (k = 0; k < norigs; k++) {
		orig_free(origs[k]);
		origs[k] = NULL;
	}
	norigs = 0;
}

static void orig_forget_job(uint32_t job_id)
{
	int k;

	pthread_mutex_lock(&decide_lock);
	for (k = 0; k < norigs; k++)
		if (origs[k]->job_id == job_id) {
			orig_free(origs[k]);
			memmove(&origs[k], &origs[k + 1], (size_t)(norigs - k - 1) * sizeof(origs[0]));
			origs[norigs - 1] = NULL;
			norigs--;
			break;
		}
	pthread_mutex_unlock(&decide_lock);
}

static struct steer_orig *orig_find(uint64_t ref)
{
	int k;

	for (k = 0; k < norigs; k++)
		if (origs[k]->ref == ref)
			return origs[k];
	return NULL;
}

struct ref_job {
	uint64_t ref;
	uint32_t job_id;
};

static int by_ref(const void *a, const void *b)
{
	uint64_t x = ((const struct ref_job *)a)->ref, y = ((const struct ref_job *)b)->ref;

	return x < y ? -1 : x > y;
}

/* Drop the originals of jobs no longer pending (started, ended, gone)
 * once Slurm has had GP_LEDGER_GRACE_S to list them; learn the job ids of
 * the others (job_modify forgets a job changed by someone else). */
static void origs_prune(const job_info_msg_t *jobs, int64_t now)
{
	struct ref_job *pend = malloc(((size_t)jobs->record_count + 1) * sizeof(*pend)), key;
	const struct ref_job *hit;
	uint32_t i;
	int k, kept = 0, np = 0;

	if (!pend)
		return;
	for (i = 0; i < jobs->record_count; i++)
		if ((jobs->job_array[i].job_state & JOB_STATE_BASE) == JOB_PENDING &&
		    (pend[np].ref = gp_comment_ref(jobs->job_array[i].admin_comment)))
			pend[np++].job_id = jobs->job_array[i].job_id;
	qsort(pend, (size_t)np, sizeof(*pend), by_ref);
	pthread_mutex_lock(&decide_lock);
	for (k = 0; k < norigs; k++) {
		key.ref = origs[k]->ref;
		hit = bsearch(&key, pend, (size_t)np, sizeof(*pend), by_ref);
		if (hit)
			origs[k]->job_id = hit->job_id;
		if (origs[k]->st.decided + GP_LEDGER_GRACE_S < now && !hit) {
			orig_free(origs[k]);
			origs[k] = NULL;
			continue;
		}
		if (kept != k) {
			origs[kept] = origs[k];
			origs[k] = NULL;
		}
		kept++;
	}
	norigs = kept;
	pthread_mutex_unlock(&decide_lock);
	free(pend);
}

static struct ledger_entry *ledger_find(uint64_t ref)
{
	int k;

	for (k = 0; k < nledger; k++)
		if (ledger[k].ref == ref)
			return &ledger[k];
	return NULL;
}

/* An update the steering pass sends (malloc'd strings). */
struct steer_plan {
	uint32_t job_id;
	char *req_nodes;
	uint32_t nodes;
	char *features;           /* the user's own constraint, "" = none */
	char *comment;
	bool drop_switch;         /* it waited through gpuplace's --switches */
	char why[160];
};

static void plan_clear(struct steer_plan *p)
{
	free(p->req_nodes);
	free(p->features);
	free(p->comment);
	memset(p, 0, sizeof(*p));
}

/*
 * Re-decide pending job ji (candidate k) on the current snapshot; 1 with
 * *plan filled when it should be moved, else 0.  Under decide_lock, no
 * RPC.  Situations that move a job:
 *   PIN:       its pinned set is no longer free for it (taken by jobs
 *              gpuplace did not place, or by higher-priority ones), and a
 *              set the policy accepts is free now: PINned there;
 *   CONSTRAIN: a set the policy accepts is free now (its domains could not
 *              start it, or it waited longer than its predicted wait, after
 *              which waiting is no longer considered): PINned there.
 * The re-decision starts from the user's original request (partition,
 * reservation, --nodelist, --exclude, --constraint, node counts), so it
 * never widens it.
 */
/* Node nd cannot give a pinned job its `gpus' GPUs now (work as prepared). */
static bool pinned_node_taken(int32_t nd, int32_t gpus)
{
	return gp_steer_node_taken(work->node_flags[nd], node_full(nd), work->alloc_mask[nd], gpus);
}

static int steer_decide(struct gp_conf *c, struct gp_snap *sn, const slurm_job_info_t *ji,
                        const gp_steer_cand_t *k, int64_t now, struct steer_plan *plan,
                        int *evaluations)
{
	struct steer_orig *o = orig_find(k->ref);
	struct ledger_entry *e;
	gp_job_profile_t profile;
	gp_live_need_t need;
	gp_policy_t pol;
	gp_request_t r;
	gp_decision_t d;
	gp_error_t err;
	char why[512], *tres_node = NULL, *list = NULL, type[GP_NAME_MAX];
	const char *tail, *sec;
	size_t sec_at, sec_len;
	int moved = 0, found = 0, rc;
	int32_t i;
	bool taken = false;

	if (!o)
		return 0; /* not known (slurmctld restarted, or the job was changed
		           * by someone else) */
	o->st.pinned = k->pinned;
	/* moved lately, or CONSTRAINed and re-decided within the interval */
	if (!gp_steer_due(&o->st, &c->policy, now))
		return 0;
	if (dec_conf != c)
		return 0; /* built by this thread before the next pass */
	if (o->hints && gp__job_profile_parse(o->hints, &profile, &err) == GP_OK)
		found = 1;
	gp__request_init(&r);
	memset(&d, 0, sizeof(d));
	if (build_request(&o->d, c->cluster, &r, type, why, sizeof(why)) <= 0)
		goto out;
	job_need(&o->d, daemon_default_mem(), &need);
	prepare_skip_ref = k->ref;
	prepare_work(sn, &need);
	if (gp_resv_apply(c->cluster, &sn->resv, o->d.reservation, now,
	                  (int64_t)r.time_limit_min * 60, work->node_flags, why, sizeof(why)))
		goto out;
	if (k->pinned) {
		/* is the pinned set still free for it?  The ledger says how many
		 * GPUs on each node; a held job left the ledger, then its
		 * record's nodes and GPUs per node say it */
		int32_t *pn = NULL, npn = 0, per;

		if ((e = ledger_find(k->ref))) {
			for (i = 0; i < e->n; i++)
				if (pinned_node_taken(e->nodes[i], gp__popcount(e->mask[i])))
					taken = true;
		} else if (ji->req_nodes && gp__hostlist_nodes(c->cluster, "ReqNodeList", ji->req_nodes,
		                                                c->cluster->nnodes, &pn, &npn, &err) == GP_OK &&
		           npn > 0) {
			per = (int32_t)gp_tres_gpus(ji->tres_per_node);
			if (per <= 0)
				per = (r.gpus + npn - 1) / npn;
			for (i = 0; i < npn; i++)
				if (pinned_node_taken(pn[i], per))
					taken = true;
		}
		free(pn);
	}
	/* pinned and not taken: Slurm starts it there as soon as it gets to it */
	if (!gp_steer_redecide(&o->st, &c->policy, now, taken, &pol, plan->why, sizeof(plan->why)))
		goto out;
	(*evaluations)++;
	{
		gp_power_view_t pv = { ledger_racks(sn->racks), gp__power_view_cap_speed };

		if (found && profile.gpus == 0)
			profile.gpus = r.gpus;
		bookings_prune(now);
		rc = gp__decide(engine, work, &r, found ? &profile : NULL, &pol, &pv,
		                sn->view.state->time, recent_bookings(), nrecent_bookings(), &d, &err);
	}
	if (rc != GP_OK || !gp_steer_moves(&d))
		goto out;
	if (!pin_exact(&o->d, &r, &d.cands[0], now - sn->view.state->time, &tres_node, why,
	               sizeof(why)))
		goto out;
	if (!(list = gp__scored_nodelist(c->cluster, &d.cands[0])))
		goto out;
	if (k->pinned && ji->req_nodes && !strcmp(ji->req_nodes, list))
		goto out; /* the same set again */
	/* the old comment's prediction, checkpoint plan, cap and reference
	 * stay; what it said about the old set goes; text outside gpuplace's
	 * part of the comment is not touched */
	if (!gp_comment_section(ji->admin_comment, &sec_at, &sec_len))
		goto out;
	sec = ji->admin_comment + sec_at;
	tail = strstr(sec, "; step ");
	if (!tail || tail >= sec + sec_len)
		tail = strstr(sec, "; ref ");
	plan->job_id = ji->job_id;
	plan->req_nodes = strdup(list);
	plan->nodes = (uint32_t)d.cands[0].nnodes;
	plan->features = strdup(o->d.features ? o->d.features : "");
	/* a job that waited through gpuplace's --switches: the PIN is exact
	 * now, and a spread set would otherwise be held by the switch count
	 * until max-time */
	plan->drop_switch = o->st.every_refresh;
	{
		char comment[1536];

		snprintf(comment, sizeof(comment), "gpuplace: PIN %s; exactly %d node%s; steered while "
		         "pending: %s%.*s", list, d.cands[0].nnodes, d.cands[0].nnodes == 1 ? "" : "s",
		         plan->why, (int)(sec + sec_len - tail), tail);
		plan->comment = comment_with(ji->admin_comment, comment);
	}
	if (!plan->req_nodes || !plan->features || !plan->comment) {
		plan_clear(plan);
		goto out;
	}
	/* the new set is this job's from now on: later decisions see it
	 * taken; a move the ledger cannot book is not made */
	if ((e = ledger_find(k->ref))) {
		int32_t *nn = malloc((size_t)d.cands[0].nnodes * sizeof(*nn));
		uint32_t *nm = malloc((size_t)d.cands[0].nnodes * sizeof(*nm));
		bool booked = nn && nm;

		if (booked) {
			memcpy(nn, d.cands[0].nodes, (size_t)d.cands[0].nnodes * sizeof(*nn));
			memcpy(nm, d.cands[0].gpu_mask, (size_t)d.cands[0].nnodes * sizeof(*nm));
			free(e->nodes);
			free(e->mask);
			e->nodes = nn;
			e->mask = nm;
			e->n = d.cands[0].nnodes;
			e->cap_w = d.cands[0].cap_w;
			nn = NULL;
			nm = NULL;
			ledger_index_rebuild();
		}
		free(nn);
		free(nm);
		if (!booked) {
			plan_clear(plan);
			goto out;
		}
	} else if (!ledger_add(d.cands[0].nodes, d.cands[0].gpu_mask, d.cands[0].nnodes, k->ref,
	                       o->uid, gp_live_name_hash(o->d.name), true, d.cands[0].cap_w,
	                       false)) {
		plan_clear(plan);
		goto out;
	}
	gp_steer_moved(&o->st, now);
	o->st.every_refresh = false; /* a PIN from now on */
	moved = 1;
out:
	prepare_skip_ref = 0;
	if (work) {
		work->jobs = NULL; /* borrowed from the snapshot */
		work->njobs = 0;
	}
	slurm_xfree((void **)&tres_node);
	free(list);
	gp__decision_clear(&d);
	gp__request_clear(&r);
	return moved;
}

/*
 * Once per state refresh, on the plugin's thread (never the submission
 * path): the pending jobs gpuplace placed, in Slurm's priority order, are
 * re-decided and at most policy.steer_max of them updated through Slurm's
 * public API (slurm_update_job, an RPC to this slurmctld like the
 * thread's readings).  No plugin lock is held across the RPC; Slurm
 * itself refuses to change the nodes of a job that is no longer pending,
 * so a job that starts meanwhile is never moved.
 */
static void steer_pass(gp_live_t *lv)
{
	struct gp_snap *sn = snap_get();
	struct gp_conf *c;
	gp_steer_cand_t *cand = NULL;
	int64_t now = (int64_t)time(NULL);
	int nc, k, updates = 0, evaluations = 0;

	if (!sn || !lv->jobs)
		goto done;
	c = sn->conf;
	origs_prune(lv->jobs, now);
	if (c->policy.steer_max <= 0 || now - sn->view.state->time > GP_PIN_FRESH_S)
		goto done;
	if (!(cand = malloc(((size_t)lv->jobs->record_count + 1) * sizeof(*cand))))
		goto done;
	nc = gp_steer_pick(lv->jobs->job_array, lv->jobs->record_count, cand,
	                   (int)lv->jobs->record_count);
	/* bounded work: at most steer_max updates and 4x as many
	 * re-decisions per pass, decide_lock taken per job, so a submission
	 * waits for one re-decision at most */
	for (k = 0; k < nc && gp_steer_budget(&c->policy, updates, evaluations); k++) {
		struct steer_plan plan;
		job_desc_msg_t u;
		int moved, rc;

		memset(&plan, 0, sizeof(plan));
		pthread_mutex_lock(&decide_lock);
		moved = steer_decide(c, sn, &lv->jobs->job_array[cand[k].index], &cand[k], now, &plan,
		                     &evaluations);
		pthread_mutex_unlock(&decide_lock);
		if (!moved)
			continue;
		/* the RPC, with no plugin lock held */
		slurm_init_job_desc_msg(&u);
		GP_JOB_DESC_ID(&u) = plan.job_id;
		u.req_nodes = plan.req_nodes;
		u.min_nodes = u.max_nodes = plan.nodes;
		u.features = plan.features;
		u.admin_comment = plan.comment;
		if (plan.drop_switch) {
			/* job_mgr.c _update_job takes both on a pending job;
			 * 0 = no switch count (topology/tree evaluates
			 * req_switch only when > 0) */
			u.req_switch = 0;
			u.wait4switch = 0;
		}
		updates++;
		steer_inflight = plan.job_id;
		rc = slurm_update_job(&u);
		steer_inflight = 0;
		if (rc == SLURM_SUCCESS) {
			slurm_verbose("gpuplace: job %u steered: %s", plan.job_id, plan.comment);
			pthread_mutex_lock(&stats_lock);
			stat_steered++;
			pthread_mutex_unlock(&stats_lock);
		} else {
			/* most often: it started meanwhile, which Slurm refuses to move */
			slurm_verbose("gpuplace: job %u not steered to %s: %s", plan.job_id,
			              plan.req_nodes, slurm_strerror(errno));
		}
		plan_clear(&plan);
	}
done:
	free(cand);
	snap_put(sn);
}
