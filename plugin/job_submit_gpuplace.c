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
 * slurm.conf or gpuplace.conf changes (so `scontrol reconfigure` after an
 * edit, or the edit alone, takes effect); a configuration that fails to
 * load is logged with file, line and key, and the last good one is kept.
 * job_submit never waits for a load: it takes a reference on the current
 * immutable configuration under a short lock.
 *
 * Everything handed to slurmctld is allocated with Slurm's allocator
 * (slurm_alloc.h); the engine library underneath uses malloc and never
 * sees a Slurm structure.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
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
#include "model.h"
#include "cost.h"
#include "policy.h"

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
#define GP_RELOAD_CHECK_S 5       /* how often the files' mtimes are checked */
#define GP_HINTS_MAX 1024

/* One loaded configuration; immutable, shared by reference count. */
struct gp_conf {
	unsigned refs;                /* under conf_lock */
	gp_cluster_t *cluster;
	gp_policy_t policy;
	struct timespec mtime_slurm;  /* of the files it was loaded from */
	struct timespec mtime_gpuplace;
};

static pthread_mutex_t conf_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gp_conf *conf_current;
static char conf_dir[PATH_MAX];

static pthread_t reload_thread;
static bool reload_running;
static pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stop_cond = PTHREAD_COND_INITIALIZER;
static bool stop_requested;

static void conf_free(struct gp_conf *c)
{
	if (!c)
		return;
	gp_cluster_destroy(c->cluster);
	free(c);
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
	bool last;

	if (!c)
		return;
	pthread_mutex_lock(&conf_lock);
	last = --c->refs == 0;
	pthread_mutex_unlock(&conf_lock);
	if (last)
		conf_free(c);
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

/* Parse, validate, then commit: a new configuration or NULL with err. */
static struct gp_conf *conf_load(gp_error_t *err)
{
	struct gp_conf *c = calloc(1, sizeof(*c));
	int rc;

	if (!c) {
		gp__errorf(err, GP_ENOMEM, "out of memory");
		return NULL;
	}
	c->mtime_slurm = mtime_of(conf_dir, "slurm.conf");
	c->mtime_gpuplace = mtime_of(conf_dir, "gpuplace.conf");
	rc = gp_cluster_load_conf_dir(conf_dir, &c->cluster, err);
	if (rc == GP_OK)
		rc = gp__policy_load(conf_dir, c->cluster, &c->policy, err);
	if (rc != GP_OK) {
		conf_free(c);
		return NULL;
	}
	return c;
}

/* Reload when either file changed since the current configuration was
 * loaded; a failed load is logged once per change and the last good
 * configuration stays. */
static void reload_if_changed(struct timespec *failed_slurm, struct timespec *failed_gpuplace)
{
	struct timespec ms = mtime_of(conf_dir, "slurm.conf");
	struct timespec mg = mtime_of(conf_dir, "gpuplace.conf");
	struct gp_conf *cur = conf_get(), *next;
	bool changed, had = cur != NULL;
	gp_error_t err;

	changed = !cur || !same_time(cur->mtime_slurm, ms) || !same_time(cur->mtime_gpuplace, mg);
	conf_put(cur);
	if (!changed || (same_time(*failed_slurm, ms) && same_time(*failed_gpuplace, mg)))
		return;
	next = conf_load(&err);
	if (!next) {
		slurm_error("gpuplace: %s; %s", err.text,
		            had ? "keeping the last good configuration" : "jobs pass unchanged");
		*failed_slurm = ms;
		*failed_gpuplace = mg;
		return;
	}
	slurm_info("gpuplace: configuration reloaded from %s: %d nodes, %ld GPUs, policy %s",
	           conf_dir, gp_cluster_node_count(next->cluster),
	           gp_cluster_gpu_count(next->cluster), next->policy.name);
	conf_publish(next);
	failed_slurm->tv_sec = failed_gpuplace->tv_sec = -1;
}

static void *reload_main(void *arg)
{
	struct timespec failed_s = { -1, 0 }, failed_g = { -1, 0 };

	pthread_mutex_lock(&stop_lock);
	while (!stop_requested) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += GP_RELOAD_CHECK_S;
		pthread_cond_timedwait(&stop_cond, &stop_lock, &until);
		if (stop_requested)
			break;
		pthread_mutex_unlock(&stop_lock);
		reload_if_changed(&failed_s, &failed_g);
		pthread_mutex_lock(&stop_lock);
	}
	pthread_mutex_unlock(&stop_lock);
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
	if (pthread_create(&reload_thread, NULL, reload_main, NULL) == 0)
		reload_running = true;
	else
		slurm_error("gpuplace: cannot start the reload thread: configuration changes need a restart");
	return SLURM_SUCCESS;
}

extern void fini(void)
{
	if (reload_running) {
		pthread_mutex_lock(&stop_lock);
		stop_requested = true;
		pthread_cond_signal(&stop_cond);
		pthread_mutex_unlock(&stop_lock);
		pthread_join(reload_thread, NULL);
		reload_running = false;
	}
	pthread_mutex_lock(&conf_lock);
	if (conf_current && --conf_current->refs == 0)
		conf_free(conf_current);
	conf_current = NULL;
	pthread_mutex_unlock(&conf_lock);
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

/* ---- entry points ------------------------------------------------------- */

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	char hints[GP_HINTS_MAX];
	const char *source = "";
	gp_job_profile_t profile;
	struct gp_conf *c;
	gp_error_t err;
	int found;

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
	conf_put(c);
	return SLURM_SUCCESS;
}

extern int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid, char **err_msg)
{
	/* job_ptr is slurmctld's private job_record_t: never dereferenced. */
	return SLURM_SUCCESS;
}
