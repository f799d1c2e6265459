/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conf_reload.c - loading job_submit/gpuplace's configuration, reloading it
 * when a file changes, and what slurmctld's own configuration says.
 */
#include "config.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "job_submit_gpuplace.h"

/* The directory of slurm.conf and gpuplace.conf (set_conf_dir, at init). */
static char conf_dir[PATH_MAX];

const char *conf_dir_path(void)
{
	return conf_dir;
}

static void poller_log(void *arg, int level, const char *msg)
{
	if (level <= 0)
		slurm_error("gpuplace: %s", msg);
	else
		slurm_info("gpuplace: %s", msg);
}

/*
 * c->domfeat: the features of the domains a CONSTRAIN names (every switch
 * but the root, gpsw_NAME; every NVLink domain, gpnvl_NAME; as
 * gp_outcome_domain and the engine's alternatives write them) that
 * slurm.conf gives every node of that domain and no other
 * (gp__domain_features_check, which `gpuplace cluster check` reports
 * too).  One line when some domain's are missing: a job gpuplace would
 * keep to such a domain goes to Slurm without that constraint
 * (gp_outcome, feature_ok), where slurmctld would refuse the constraint
 * ("Invalid feature specification").  Out of memory: the table stays
 * empty and no domain feature is used.
 */
void domfeat_load(struct gp_conf *c)
{
	const gp_cluster_t *cl = c->cluster;
	gp_domfeat_check_t chk;
	int32_t id, dup, nd = cl->nswitches + cl->nnvl, first = -1, nmiss, ndom;
	char feat[GP_NAME_MAX + 16];

	memset(&c->domfeat, 0, sizeof(c->domfeat));
	if (gp__domain_features_check(cl, &chk))
		goto oom;
	if (gp__nametab_init(&c->domfeat, false))
		goto oom_chk;
	for (id = 0; id < nd; id++)
		if (chk.ok[id] && !gp__domain_feature_of(cl, id, feat, sizeof(feat)) &&
		    gp__nametab_add(&c->domfeat, feat, id, &dup))
			goto oom_chk;
	nmiss = chk.missing[GP_DOMKIND_SWITCH] + chk.missing[GP_DOMKIND_NVL];
	ndom = chk.named[GP_DOMKIND_SWITCH] + chk.named[GP_DOMKIND_NVL];
	first = chk.first_missing[GP_DOMKIND_SWITCH] >= 0 ? chk.first_missing[GP_DOMKIND_SWITCH]
	                                                  : chk.first_missing[GP_DOMKIND_NVL];
	if (nmiss) {
		gp__domain_feature_of(cl, first, feat, sizeof(feat));
		slurm_info("gpuplace: the nodes of %d of %d domains lack the domain features gpuplace "
		           "constrains jobs with in slurm.conf (feature %s is not on exactly the nodes "
		           "of %s; `gpuplace conf --what nodes` writes them): a job gpuplace would keep "
		           "to such a domain goes to Slurm without that constraint", (int)nmiss,
		           (int)ndom, feat, gp__domain_name_of(cl, first));
	}
	gp__domain_features_free(&chk);
	return;
oom_chk:
	gp__domain_features_free(&chk);
oom:
	slurm_error("gpuplace: out of memory reading the nodes' domain features: no job is "
	            "constrained to a domain");
	gp__nametab_free(&c->domfeat);
	memset(&c->domfeat, 0, sizeof(c->domfeat));
}

/* gp_outcome_in_t.feature_ok over c->domfeat (ctx: the struct gp_conf). */
bool domfeat_ok(const void *ctx, const char *feature)
{
	const struct gp_conf *c = ctx;

	return c && gp__nametab_find(&c->domfeat, feature) >= 0;
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
						  "gres.conf", "topology.yaml", "resources.yaml" };

static void watched_mtimes(struct timespec out[GP_NWATCHED])
{
	int i;

	for (i = 0; i < GP_NWATCHED; i++)
		out[i] = mtime_of(conf_dir, watched[i]);
}

/* Parse, validate, then commit: a new configuration or NULL with err. */
struct gp_conf *conf_load(gp_error_t *err)
{
	struct gp_conf *c = calloc(1, sizeof(*c));
	int rc, i;

	if (!c) {
		gp__errorf(err, GP_ENOMEM, "out of memory");
		return NULL;
	}
	watched_mtimes(c->mtime);
	rc = gp_cluster_load_conf_dir(conf_dir, &c->cluster, err);
	if (rc == GP_OK)
		rc = gp__policy_site(c->cluster, &c->policy, err);
	/* a Slurm before 24.05 has no --segment to give a job (slurm_compat.h
	 * gp_job_set_segment): the engine then never cuts one into segments */
	c->policy.no_segments = SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(24, 5, 0);
	if (rc == GP_OK && c->cluster->site.power_hres[0] && GP_SLURM_HRES_MODE3) {
		/* a job asking for a resource slurmctld does not have is
		 * refused ("Invalid license specification"): without the
		 * resource in resources.yaml, no request at all */
		char path[sizeof(conf_dir) + 32];
		gp_error_t e;

		snprintf(path, sizeof(path), "%s/resources.yaml", conf_dir);
		if (gp__hres_file_check(path, c->cluster->site.power_hres, &e) != GP_OK) {
			slurm_error("gpuplace: %s/gpuplace.conf: PowerHres=%s: %s: jobs get no %s "
			            "request (write the file with `gpuplace conf --what resources`, "
			            "then restart slurmctld)",
			            conf_dir, c->cluster->site.power_hres, e.text,
			            c->cluster->site.power_hres);
			c->cluster->site.power_hres[0] = '\0';
		}
		for (i = 1; i <= GP_MAX_GPUS_PER_NODE; i++)
			c->hres_w[i] = gp__hres_node_watts(c->cluster, i, i, NULL);
	}
	if (rc == GP_OK)
		domfeat_load(c);
	if (rc == GP_OK && c->cluster->site.power_lic[0])
		lic_conf_load(c);
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

/* What a load switched off, each problem once per load (a configuration
 * is loaded once per change of its files): the part it names (a rack, a
 * profile, a node, a partition's topology) is left out of the model and
 * the jobs that needed it are placed without it or passed to Slurm. */
void conf_log_warnings(const struct gp_conf *c)
{
	int i, n = c && c->cluster ? gp_cluster_warning_count(c->cluster) : 0;

	for (i = 0; i < n; i++)
		slurm_info("gpuplace: %s", gp_cluster_warning(c->cluster, i));
	if (c && c->cluster && c->cluster->site.power_hres[0] && !GP_SLURM_HRES_MODE3)
		slurm_error("gpuplace: %s/gpuplace.conf: PowerHres=%s: Slurm's hierarchical "
		            "resources count per node (MODE_3) from 25.11 on, this "
		            "job_submit/gpuplace is built for %d.%02d.%d: jobs get no %s request, "
		            "racks keep gpuplace's own headroom only",
		            conf_dir, c->cluster->site.power_hres, GP_SLURM_MAJOR, GP_SLURM_MINOR,
		            GP_SLURM_MICRO, c->cluster->site.power_hres);
}

/* Reload when a watched file changed since the current configuration was
 * loaded; a failed load is logged once per change (failed[] holds the
 * times that failed) and the last good configuration stays. */
void reload_if_changed(struct timespec failed[GP_NWATCHED])
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
	conf_log_warnings(next);
	conf_publish(next);
	for (i = 0; i < GP_NWATCHED; i++)
		failed[i].tv_sec = -1;
}

/* Only inside slurmctld is there a controller to read state from (the
 * daemon exports its globals to plugins); a test program loading the
 * plugin gets hints checking and fail-open only. */
bool in_slurmctld(void)
{
	return dlsym(RTLD_DEFAULT, "slurmctld_config") != NULL;
}

/* slurmctld's exported slurm_conf_t, NULL outside slurmctld; looked up
 * once (its address never changes; its fields are read at every call, so
 * a reconfigure counts). */
static const slurm_conf_t *daemon_conf(void)
{
	static const slurm_conf_t *sc;
	static bool looked;

	if (!looked) {
		sc = in_slurmctld() ? dlsym(RTLD_DEFAULT, "slurm_conf") : NULL;
		looked = true;
	}
	return sc;
}

/* The path slurmctld was started with (-f FILE, else SLURM_CONF, else its
 * built-in default); NULL outside slurmctld or before it read its
 * configuration. */
static const char *daemon_conf_file(void)
{
	const slurm_conf_t *sc = daemon_conf();

	return sc && sc->slurm_conf && *sc->slurm_conf ? sc->slurm_conf : NULL;
}

/* Is this slurmctld a backup controller (SlurmctldHost listed second or
 * later: its exported backup_inx > 0)?  False outside slurmctld. */
bool daemon_is_backup(void)
{
	const int *inx;

	if (!in_slurmctld())
		return false;
	inx = dlsym(RTLD_DEFAULT, "backup_inx");
	return inx && *inx > 0;
}

/* slurmctld's StateSaveLocation, from its exported slurm_conf_t; NULL
 * outside slurmctld or when not set. */
const char *daemon_state_save_location(void)
{
	const slurm_conf_t *sc = daemon_conf();

	return sc && sc->state_save_location && *sc->state_save_location ?
	       sc->state_save_location : NULL;
}

/*
 * Is this slurmctld the one in control?  A backup controller
 * (SlurmctldHost listed second or later: slurmctld's exported backup_inx
 * > 0) loads the plugins and starts the plugin's thread before it waits
 * in standby (controller.c main: job_submit_g_init before the
 * primary/backup loop), and Slurm's API would read and update the
 * primary's jobs from it.  It is in control once slurmctld runs it as the
 * primary: slurmctld's exported control_time is set then ("Running as
 * primary controller") and reset to 0 at every switch back to standby
 * (controller.c main, 22.05 to 26.05).  Not when the primary stops
 * answering: the backup takes control only SlurmctldTimeout later, and not
 * at all if the primary answers again (tests/slurm/slurm_backup.sh).
 * A backup that had control keeps it through a failed reconfigure, which
 * leaves control_time 0, while the primary does not answer.
 * The primary (or only controller) starts the plugins too before it asks
 * a backup in control to give control back and reads its state (job_
 * submit_g_init, then _shutdown_backup_controller and read_slurm_conf):
 * it is in control once control_time is set, and from then on (a failed
 * reconfigure leaves it 0 in the primary that goes on;
 * tests/slurm/slurm_backup.sh 6).
 * True outside slurmctld, and for a slurmctld that exports no
 * control_time and is the primary.
 */
bool daemon_in_control(void)
{
	/* this process has run as the controller in control (the thread's
	 * own: only it asks) */
	static bool had, missing, primary_had;
	const int *inx;
	const volatile time_t *since;

	if (!in_slurmctld())
		return true;
	inx = dlsym(RTLD_DEFAULT, "backup_inx");
	since = dlsym(RTLD_DEFAULT, "control_time");
	if (!inx || *inx <= 0) {
		if (since && *since != 0)
			primary_had = true;
		return !since || primary_had;
	}
	if (!since) {
		if (!missing)
			slurm_error("gpuplace: slurmctld exports no control_time: this backup "
			            "counts as in control whenever the primary does not answer a ping");
		missing = true;
		return slurm_ping(0) != SLURM_SUCCESS;
	}
	if (*since != 0) {
		had = true;
		return true;
	}
	/* 0 at every switch to standby, and (23.11 to 26.05) after a
	 * reconfigure that failed, which sets it again only when not
	 * reconfiguring: one that had control keeps it while the primary
	 * does not answer; once the primary answers it stands by, and waits
	 * for slurmctld again at the next takeover */
	if (had && slurm_ping(0) != SLURM_SUCCESS)
		return true;
	had = false;
	return false;
}

/* slurmctld runs topology/NAME ("tree"; "block", 23.11+), read from its
 * exported slurm_conf_t; false outside slurmctld. */
bool topology_is(const char *name)
{
	const slurm_conf_t *sc = daemon_conf();

	return sc && sc->topology_plugin && strstr(sc->topology_plugin, name);
}

/* slurmctld's DefMemPerCPU (with MEM_PER_CPU set) or DefMemPerNode, 0 when
 * none or outside slurmctld; read at every call, so a reconfigure counts. */
uint64_t daemon_default_mem(void)
{
	const slurm_conf_t *sc = daemon_conf();

	return sc ? sc->def_mem_per_cpu : 0;
}

/* SchedulerParameters key=N of slurmctld's configuration (key with its
 * '='), dflt when not set or outside slurmctld; read at every call, so a
 * reconfigure counts. */
static uint32_t sched_param(const char *key, uint32_t dflt)
{
	const slurm_conf_t *sc = daemon_conf();
	size_t kl = strlen(key);
	const char *p;
	char *end;
	unsigned long v;

	if (!sc || !sc->sched_params)
		return dflt;
	for (p = sc->sched_params; (p = strstr(p, key)); p++)
		if (p == sc->sched_params || p[-1] == ',') {
			v = strtoul(p + kl, &end, 10);
			if (end != p + kl && (*end == ',' || !*end))
				return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
		}
	return dflt;
}

/* Longest wait for a switch count slurmctld grants (SchedulerParameters
 * max_switch_wait=N; 300 s when not set, its documented default in
 * slurm.conf(5), SchedulerParameters).  300 outside slurmctld. */
uint32_t daemon_max_switch_wait(void)
{
	return sched_param("max_switch_wait=", 300);
}

/* Seconds between Slurm's backfill passes (SchedulerParameters
 * bf_interval=N; 30 s when not set, its documented default in
 * slurm.conf(5), SchedulerParameters).  30 outside slurmctld. */
uint32_t daemon_bf_interval(void)
{
	return sched_param("bf_interval=", 30);
}

void set_conf_dir(void)
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
