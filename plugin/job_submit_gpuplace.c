/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * job_submit_gpuplace.c - job_submit/gpuplace, loaded by slurmctld.
 *
 * Enabled with JobSubmitPlugins=gpuplace in slurm.conf; the policy comes
 * from gpuplace_* keys in SchedulerParameters, the facts from gpuplace.conf
 * beside slurm.conf.  What it does for every submission today:
 *   - collects the job's hints (sbatch/srun/salloc --gpuplace* options from
 *     spank_gpuplace.so, else GPUPLACE_* variables in a batch job's
 *     environment) and rejects a job whose hints are malformed, with a
 *     message that names the hint;
 *   - fails open: without a valid configuration the job passes unchanged
 *     and slurmctld logs one line.
 *
 * Configuration is loaded at init and reloaded by a background thread when
 * slurm.conf, gpuplace.conf, topology.conf or gres.conf changes (checked
 * every GP_REFRESH_S seconds, so an edit takes effect with or without
 * `scontrol reconfigure`); a configuration that fails to
 * load is logged with file, line and key, and the last good one is kept.
 * job_submit never waits for a load: it takes a reference on the current
 * immutable configuration under a short lock.
 *
 * Everything handed to slurmctld is allocated with Slurm's allocator
 * (slurm_alloc.h); the engine library underneath uses malloc and never
 * sees a Slurm structure.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/spank.h>

#include "slurm_alloc.h"
#include "decide.h"
#include "gres_parse.h"
#include "live_state.h"
#include "model.h"
#include "cost.h"
#include "policy.h"
#include "power.h"
#include "request.h"

/* Slurm's plugin interface (src/plugins/job_submit, 22.05): slurmctld
 * resolves these by name; no installed header declares them. */
extern int init(void);
extern void fini(void);
extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg);
extern int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid,
                      char **err_msg);

const char plugin_name[] = "gpuplace: topology- and power-aware GPU placement";
const char plugin_type[] = "job_submit/gpuplace";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* Where slurm.conf lives when slurmctld was started without SLURM_CONF
 * (Debian's and Slurm's default sysconfdir). */
#ifndef GP_DEFAULT_SLURM_CONF
#define GP_DEFAULT_SLURM_CONF "/etc/slurm/slurm.conf"
#endif
#define GP_REFRESH_S 2            /* how often state is read and files checked */
#define GP_STATE_STALE_S 30       /* older cluster state: jobs pass unchanged */
#define GP_QUIET_FAILURES 15      /* refresh failures before one log line (30 s) */
#define GP_LEDGER_GRACE_S 10      /* a decision stays in the ledger this long
                                   * after a newer state snapshot */
#define GP_LEDGER_MAX 4096
#define GP_HINTS_MAX 1024

/* One loaded configuration; immutable, shared by reference count. */
struct gp_conf {
	unsigned refs;                /* under conf_lock */
	gp_cluster_t *cluster;
	gp_policy_t policy;
	struct timespec mtime[4];     /* of the files it was loaded from (watched[]) */
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
	gp_poller_destroy(c->poller);
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
	gp_state_t *state;
	gp_rack_view_t *racks;        /* the racks' power headroom in this state */
};

static struct gp_snap *snap_current;

static void snap_put(struct gp_snap *sn)
{
	bool last;

	if (!sn)
		return;
	pthread_mutex_lock(&conf_lock);
	last = --sn->refs == 0;
	pthread_mutex_unlock(&conf_lock);
	if (last) {
		gp_state_destroy(sn->state);
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

static void snap_publish(struct gp_snap *sn)
{
	struct gp_snap *old;

	sn->refs = 1;
	pthread_mutex_lock(&conf_lock);
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
static const char *const watched[4] = { "slurm.conf", "gpuplace.conf", "topology.conf", "gres.conf" };

static void watched_mtimes(struct timespec out[4])
{
	int i;

	for (i = 0; i < 4; i++)
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

		rc = gp_poller_create(c->cluster, &opts, &c->poller, err);
		if (rc == GP_OK && gp_poller_start(c->poller, err) != GP_OK) {
			/* no live power: the estimate from the cluster state remains */
			slurm_error("gpuplace: telemetry not started: %s", err->text);
			gp_poller_destroy(c->poller);
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
static void reload_if_changed(struct timespec failed[4])
{
	struct timespec now[4];
	struct gp_conf *cur = conf_get(), *next;
	bool changed = !cur, had = cur != NULL, seen = true;
	gp_error_t err;
	int i;

	watched_mtimes(now);
	for (i = 0; i < 4; i++) {
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
	for (i = 0; i < 4; i++)
		failed[i].tv_sec = -1;
}

/* Only inside slurmctld is there a controller to read state from (the
 * daemon exports its globals to plugins); a test program loading the
 * plugin gets hints checking and fail-open only. */
static bool in_slurmctld(void)
{
	return dlsym(RTLD_DEFAULT, "slurmctld_config") != NULL;
}

static void refresh_state(gp_live_t *lv, unsigned *failures)
{
	struct gp_conf *c = conf_get();
	struct gp_snap *sn;
	gp_state_t *st = NULL;
	char why[256];

	if (!c)
		return;
	if (gp_live_refresh(lv, c->cluster, &st, why, sizeof(why)) != 0) {
		/* quiet while the controller is still starting */
		if (++*failures == GP_QUIET_FAILURES)
			slurm_error("gpuplace: %s; jobs pass unchanged until it can be read", why);
		conf_put(c);
		return;
	}
	if (*failures >= GP_QUIET_FAILURES)
		slurm_info("gpuplace: cluster state can be read again");
	*failures = 0;
	if (!(sn = calloc(1, sizeof(*sn))) ||
	    !(sn->racks = calloc((size_t)c->cluster->nracks + 1, sizeof(*sn->racks)))) {
		free(sn);
		gp_state_destroy(st);
		conf_put(c);
		return;
	}
	sn->conf = c; /* the reference conf_get() took */
	sn->state = st;
	/* once per snapshot, off the submission path: measured draw from the
	 * telemetry snapshot while fresh, else the estimate (power/power.h) */
	{
		const gp_power_snapshot_t *ps = c->poller ? gp_poller_snapshot_get(c->poller) : NULL;

		gp__power_view_fill(c->cluster, st, ps, &c->policy, (double)st->time, sn->racks);
		gp_power_snapshot_put(ps);
	}
	snap_publish(sn);
}

static void *reload_main(void *arg)
{
	struct timespec failed[4] = { { -1, 0 }, { -1, 0 }, { -1, 0 }, { -1, 0 } };
	bool live = in_slurmctld();
	unsigned failures = 0;
	gp_live_t lv;

	gp_live_init(&lv);
	pthread_mutex_lock(&stop_lock);
	while (!stop_requested) {
		struct timespec until;

		pthread_mutex_unlock(&stop_lock);
		graveyard_empty();
		reload_if_changed(failed);
		if (live)
			refresh_state(&lv, &failures);
		pthread_mutex_lock(&stop_lock);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += GP_REFRESH_S;
		if (!stop_requested)
			pthread_cond_timedwait(&stop_cond, &stop_lock, &until);
	}
	pthread_mutex_unlock(&stop_lock);
	gp_live_fini(&lv);
	return NULL;
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

struct ledger_entry {
	int64_t time;                 /* when the decision was made */
	int32_t n;
	int32_t *nodes;
	uint32_t *mask;
};

static pthread_mutex_t decide_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gp_conf *dec_conf;      /* the configuration engine and ledger belong to */
static gp_engine_t *engine;
static gp_state_t *work;              /* snapshot + ledger, what a decision sees */
static struct ledger_entry ledger[GP_LEDGER_MAX];
static int nledger;
/* checkpoint schedules this plugin planned, until the job's time limit
 * (or a day when it has none): later plans stagger their windows */
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

static void booking_add(const gp_decision_t *d, uint32_t time_limit_min, int64_t now)
{
	if (d->ckpt.storage < 0 || nbookings == GP_LEDGER_MAX)
		return;
	gp__ckpt_booking_of(&d->ckpt, ++booking_seq, &bookings[nbookings]);
	booking_until[nbookings++] = now + (time_limit_min ? (int64_t)time_limit_min * 60 : 86400);
}

static void ledger_clear(void)
{
	int i;

	for (i = 0; i < nledger; i++) {
		free(ledger[i].nodes);
		free(ledger[i].mask);
	}
	nledger = 0;
}

/* Bind the decider to configuration c (NULL: release everything).
 * Called with decide_lock held, or from fini. */
static int decider_reset(struct gp_conf *c)
{
	gp_error_t err;

	ledger_clear();
	nbookings = 0; /* storage indices belong to the old model */
	gp__engine_destroy(engine);
	engine = NULL;
	gp_state_destroy(work);
	work = NULL;
	conf_put(dec_conf);
	dec_conf = NULL;
	if (!c)
		return 0;
	if (gp__engine_create(c->cluster, &engine, &err) != GP_OK ||
	    gp_state_create(c->cluster, &work) != GP_OK) {
		gp__engine_destroy(engine);
		engine = NULL;
		slurm_error("gpuplace: cannot set up the placement engine: %s", err.text);
		return -1;
	}
	pthread_mutex_lock(&conf_lock);
	c->refs++;
	pthread_mutex_unlock(&conf_lock);
	dec_conf = c;
	return 0;
}

/* work := the snapshot plus the decisions made since it was taken. */
static void prepare_work(const gp_state_t *st)
{
	int32_t nn = dec_conf->cluster->nnodes, i;
	int k, kept = 0;

	memcpy(work->node_flags, st->node_flags, (size_t)nn * sizeof(*work->node_flags));
	memcpy(work->alloc_mask, st->alloc_mask, (size_t)nn * sizeof(*work->alloc_mask));
	work->time = st->time;
	/* the running jobs are the snapshot's: borrowed for this decision */
	work->jobs = st->jobs;
	work->njobs = st->njobs;
	for (k = 0; k < nledger; k++) {
		if (ledger[k].time + GP_LEDGER_GRACE_S < st->time) {
			free(ledger[k].nodes);
			free(ledger[k].mask);
			continue;
		}
		for (i = 0; i < ledger[k].n; i++)
			work->alloc_mask[ledger[k].nodes[i]] |= ledger[k].mask[i];
		ledger[kept++] = ledger[k];
	}
	nledger = kept;
}

static void ledger_add(const gp_scored_t *sc)
{
	struct ledger_entry *e;

	if (nledger == GP_LEDGER_MAX)
		return;
	e = &ledger[nledger];
	e->nodes = malloc((size_t)sc->nnodes * sizeof(*e->nodes));
	e->mask = malloc((size_t)sc->nnodes * sizeof(*e->mask));
	if (!e->nodes || !e->mask) {
		free(e->nodes);
		free(e->mask);
		return;
	}
	memcpy(e->nodes, sc->nodes, (size_t)sc->nnodes * sizeof(*e->nodes));
	memcpy(e->mask, sc->gpu_mask, (size_t)sc->nnodes * sizeof(*e->mask));
	e->n = sc->nnodes;
	e->time = (int64_t)time(NULL);
	nledger++;
}

extern int init(void)
{
	struct gp_conf *c;
	gp_error_t err;

	set_conf_dir();
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
	pthread_mutex_lock(&conf_lock);
	thread_owns_graveyard = false; /* from now on the last put frees */
	pthread_mutex_unlock(&conf_lock);
	decider_reset(NULL);
	pthread_mutex_lock(&conf_lock);
	sn = snap_current;
	snap_current = NULL;
	c = conf_current;
	conf_current = NULL;
	pthread_mutex_unlock(&conf_lock);
	snap_put(sn);
	conf_put(c);
	graveyard_empty();
}

/* ---- hints ------------------------------------------------------------ */

/* Value of NAME= in a Slurm environment array, or NULL. */
static const char *env_find(char **env, uint32_t n, const char *name)
{
	size_t len = strlen(name);
	uint32_t i;

	for (i = 0; env && i < n && env[i]; i++)
		if (!strncmp(env[i], name, len) && env[i][len] == '=')
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

/* The engine's request for job_desc.  1 = a request to decide on, 0 = not
 * gpuplace's job (passes unchanged; *why says why when not obvious), or -1
 * on an error named in *why. */
static int build_request(const job_desc_msg_t *j, const gp_cluster_t *c, gp_request_t *r,
                         char *why, size_t len)
{
	long per_job = gp_tres_gpus(j->tres_per_job), per_node = gp_tres_gpus(j->tres_per_node);
	uint32_t nodes = j->min_nodes == NO_VAL || j->min_nodes == 0 ? 0 : j->min_nodes;
	int64_t total;
	gp_error_t err;

	why[0] = '\0';
	if (per_job < 0 || per_node < 0) {
		snprintf(why, len, "cannot read the GPU request (%s)",
		         per_job < 0 ? j->tres_per_job : j->tres_per_node);
		return 0;
	}
	if (j->tres_per_socket || j->tres_per_task) {
		if (gp_tres_gpus(j->tres_per_socket) || gp_tres_gpus(j->tres_per_task)) {
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
	if (j->reservation && *j->reservation) {
		snprintf(why, len, "jobs in a reservation are left to Slurm");
		return 0;
	}
	r->min_nodes = (int32_t)nodes;
	r->max_nodes = j->max_nodes == NO_VAL || j->max_nodes == 0 ? 0 : (int32_t)j->max_nodes;
	r->exclusive = j->shared == 0; /* --exclusive */
	r->time_limit_min = j->time_limit == NO_VAL || j->time_limit == INFINITE ? 0 : j->time_limit;
	if (j->partition && strchr(j->partition, ',')) {
		snprintf(why, len, "several partitions are left to Slurm");
		return 0;
	}
	if ((j->partition && gp__request_set_partition(r, c, j->partition, &err)) ||
	    (j->req_nodes && gp__request_set_required(r, c, j->req_nodes, &err)) ||
	    (j->exc_nodes && gp__request_set_excluded(r, c, j->exc_nodes, &err)) ||
	    (j->features && gp__request_set_constraint(r, j->features, &err))) {
		snprintf(why, len, "%.400s", err.text);
		return 0;
	}
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
		if (!strncmp(j->environment[i], name, n) && j->environment[i][n] == '=') {
			slurm_xfree((void **)&j->environment[i]);
			j->environment[i] = slurm_xstrdup_printf("%s=%s", name, value);
			return;
		}
	gp_xrealloc(j->environment, sizeof(char *) * (j->env_size + 2));
	j->environment[j->env_size] = slurm_xstrdup_printf("%s=%s", name, value);
	j->env_size++;
}

/* A number as "%.<digits>g" (digits 1..17). */
static void env_num(job_desc_msg_t *j, const char *name, int digits, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*g", digits, v);
	env_set(j, name, buf);
}

static void apply(job_desc_msg_t *j, const gp_cluster_t *c, const gp_decision_t *d)
{
	const gp_scored_t *best = d->ncands ? &d->cands[0] : NULL;
	char comment[1024], *list = NULL;
	int n = 0;

	if (d->kind == GP_DECIDE_PIN && best && (list = gp__scored_nodelist(c, best))) {
		slurm_xfree((void **)&j->req_nodes);
		j->req_nodes = slurm_xstrdup(list);
	} else if (d->kind == GP_DECIDE_CONSTRAIN && *d->features) {
		char *old = j->features;

		/* narrow, never widen: AND the user's own constraint; a user's
		 * own bracket group cannot take a second one, so it stays alone */
		if (!old || !*old) {
			j->features = slurm_xstrdup(d->features);
			slurm_xfree((void **)&old);
		} else if (!strchr(old, '[')) {
			j->features = slurm_xstrdup_printf("(%s)&%s", old, d->features);
			slurm_xfree((void **)&old);
		}
	}
	n = snprintf(comment, sizeof(comment), "gpuplace: %s", gp__decision_kind_name(d->kind));
	if (list)
		n += snprintf(comment + n, sizeof(comment) - (size_t)n, " %s", list);
	else if (d->kind == GP_DECIDE_CONSTRAIN && *d->features)
		n += snprintf(comment + n, sizeof(comment) - (size_t)n, " %s", d->features);
	if (best && n < (int)sizeof(comment))
		n += snprintf(comment + n, sizeof(comment) - (size_t)n,
		              "; step %.3g s, slowdown %.2f, overhead %.1f %%, score %.3g",
		              best->cost.step_s, best->cost.slowdown, 100 * best->cost.overhead,
		              best->score);
	if (d->waited && n < (int)sizeof(comment))
		n += snprintf(comment + n, sizeof(comment) - (size_t)n,
		              "; waits ~%.0f s: done in %.0f s instead of %.0f s", d->wait_s,
		              d->wait_finish_s, d->now_finish_s);
	if (d->ckpt.storage >= 0 && n < (int)sizeof(comment))
		snprintf(comment + n, sizeof(comment) - (size_t)n,
		         "; checkpoint every %.0f s to %s at +%.0f s%s%s", d->ckpt.interval_s,
		         c->storage[d->ckpt.storage].name, d->ckpt.offset_s,
		         d->ckpt.buddy >= 0 ? ", buddy " : "",
		         d->ckpt.buddy >= 0 ? c->nodes[d->ckpt.buddy].name : "");
	slurm_xfree((void **)&j->admin_comment);
	j->admin_comment = slurm_xstrdup(comment);

	env_set(j, "GPUPLACE_DECISION", gp__decision_kind_name(d->kind));
	if (best) {
		env_num(j, "GPUPLACE_PREDICTED_STEP_S", 6, best->cost.step_s);
		env_num(j, "GPUPLACE_PREDICTED_OVERHEAD", 4, best->cost.overhead);
		env_num(j, "GPUPLACE_SLOWDOWN", 4, best->cost.slowdown);
	}
	if (d->ckpt.storage >= 0) {
		env_num(j, "GPUPLACE_CKPT_INTERVAL", 10, round(d->ckpt.interval_s));
		env_set(j, "GPUPLACE_CKPT_TARGET", c->storage[d->ckpt.storage].name);
		env_num(j, "GPUPLACE_CKPT_OFFSET", 10, round(d->ckpt.offset_s));
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

/* ---- entry points ------------------------------------------------------- */

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	char hints[GP_HINTS_MAX], why[512];
	const char *source = "";
	gp_job_profile_t profile;
	struct gp_conf *c;
	struct gp_snap *sn;
	gp_request_t r;
	gp_decision_t d;
	gp_error_t err;
	int found, rc = SLURM_SUCCESS, want;

	if (!job_desc)
		return SLURM_SUCCESS;
	found = collect_hints(job_desc, hints, sizeof(hints), &source);
	if (found < 0) {
		if (err_msg)
			*err_msg = slurm_xstrdup_printf("gpuplace: %s: hints are longer than %d characters",
			                                source, GP_HINTS_MAX - 1);
		return SLURM_ERROR;
	}
	if (found > 0 && gp__job_profile_parse(hints, &profile, &err) != GP_OK) {
		if (err_msg)
			*err_msg = slurm_xstrdup_printf("gpuplace: %s: %s", source, err.text);
		slurm_info("gpuplace: rejected a job of uid %u: %s: %s", submit_uid, source, err.text);
		return SLURM_ERROR;
	}
	c = conf_get();
	if (!c) {
		slurm_info("gpuplace: no valid configuration in %s: job of uid %u passes unchanged",
		           conf_dir, submit_uid);
		return SLURM_SUCCESS;
	}
	gp__request_init(&r);
	want = build_request(job_desc, c->cluster, &r, why, sizeof(why));
	if (want <= 0) {
		if (*why)
			slurm_info("gpuplace: job of uid %u passes unchanged: %s", submit_uid, why);
		goto out;
	}
	sn = snap_get();
	if (!sn || sn->conf != c || (int64_t)time(NULL) - sn->state->time > GP_STATE_STALE_S) {
		slurm_info("gpuplace: %s: job of uid %u passes unchanged",
		           !sn ? "no cluster state yet" : sn->conf != c ? "cluster state is for an older configuration"
		                                                       : "cluster state is stale",
		           submit_uid);
		snap_put(sn);
		goto out;
	}
	memset(&d, 0, sizeof(d));
	pthread_mutex_lock(&decide_lock);
	if (dec_conf != c && decider_reset(c) != 0) {
		pthread_mutex_unlock(&decide_lock);
		snap_put(sn);
		goto out;
	}
	prepare_work(sn->state);
	{
		gp_power_view_t pv = { sn->racks, gp__power_view_cap_speed };

		if (found > 0 && profile.gpus == 0)
			profile.gpus = r.gpus;
		bookings_prune((int64_t)time(NULL));
		rc = gp__decide(engine, work, &r, found > 0 ? &profile : NULL, &c->policy, &pv,
		                sn->state->time, bookings, nbookings, &d, &err);
	}
	work->jobs = NULL; /* borrowed from the snapshot */
	work->njobs = 0;
	if (rc == GP_EINVAL && found > 0) {
		/* the hints contradict what the job asks for: the user can fix it */
		pthread_mutex_unlock(&decide_lock);
		if (err_msg)
			*err_msg = slurm_xstrdup_printf("gpuplace: %s: %s", source, err.text);
		rc = SLURM_ERROR;
		snap_put(sn);
		goto out;
	}
	if (rc != GP_OK) {
		pthread_mutex_unlock(&decide_lock);
		slurm_info("gpuplace: job of uid %u passes unchanged: %s", submit_uid, err.text);
		rc = SLURM_SUCCESS;
		snap_put(sn);
		goto out;
	}
	if (d.kind == GP_DECIDE_PIN && d.ncands > 0)
		ledger_add(&d.cands[0]);
	if (d.kind != GP_DECIDE_REJECT)
		booking_add(&d, r.time_limit_min, (int64_t)time(NULL));
	pthread_mutex_unlock(&decide_lock);
	if (d.kind == GP_DECIDE_REJECT) {
		if (err_msg)
			*err_msg = slurm_xstrdup_printf("gpuplace: %s", d.reason);
		slurm_info("gpuplace: rejected a job of uid %u: %s", submit_uid, d.reason);
		rc = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	} else {
		apply(job_desc, c->cluster, &d);
		slurm_info("gpuplace: uid %u, %d GPUs: %s", submit_uid, r.gpus, job_desc->admin_comment);
		rc = SLURM_SUCCESS;
	}
	gp__decision_clear(&d);
	snap_put(sn);
out:
	gp__request_clear(&r);
	conf_put(c);
	return rc;
}

extern int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid, char **err_msg)
{
	/* job_ptr is slurmctld's private job_record_t: never dereferenced. */
	return SLURM_SUCCESS;
}
