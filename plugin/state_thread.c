/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * state_thread.c - job_submit/gpuplace's thread: it reloads the
 * configuration, builds the engine, reads the cluster state and steers.
 */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "job_submit_gpuplace.h"

/* ---- the state thread --------------------------------------------------- */

/* The plugin's thread and how it is woken or stopped. */
static struct {
	pthread_t thread;
	bool running;
	pthread_mutex_t lock;         /* stop and wake */
	pthread_cond_t cond;
	bool stop;                    /* fini asks it to end */
	bool wake;                    /* a decision asks for a reading now */
	gp_resv_cache_t resv_cache;   /* its cache of Slurm's reservation list */
	bool resv_failure_logged;     /* said once until it can be read again */
	int hres_seen;                /* PowerHres in slurmctld: 1 seen, -1 not, 0 not asked */
	int lic_seen;                 /* PowerLicenses' licenses: likewise */
} thr = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

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
	pthread_mutex_lock(&dec.lock);
	since =
	    dec.ledger.oldest ? dec.ledger.oldest - 2 : (int64_t)time(NULL) - 2 * GP_LEDGER_GRACE_S;
	pthread_mutex_unlock(&dec.lock);
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
	sn->resv_ok =
	    gp_resv_refresh(&thr.resv_cache, c->cluster, &sn->resv, why, sizeof(why)) == 0;
	if (!sn->resv_ok && !thr.resv_failure_logged)
		slurm_error("gpuplace: %s; jobs in a reservation pass unchanged", why);
	thr.resv_failure_logged = !sn->resv_ok;
	/* Slurm's backfill plans with the same job list: a new job is not
	 * PINned onto nodes planned for the jobs that wait before it, nor a
	 * pending one moved there (steer_rules.h) */
	steer_plans_read(c->cluster, lv->jobs, &sn->plans);
	/* the rack budget's resource (PowerHres): asked for only while
	 * slurmctld has it; a change is logged once */
	if (c->cluster->site.power_hres[0] && GP_SLURM_HRES_MODE3) {
		sn->hres = hres_known(c->cluster->site.power_hres, why, sizeof(why));
		if (!sn->hres && thr.hres_seen != -1)
			slurm_error("gpuplace: PowerHres=%s: %s; GPU jobs get no %s request",
			            c->cluster->site.power_hres, why, c->cluster->site.power_hres);
		else if (sn->hres && thr.hres_seen != 1)
			slurm_info("gpuplace: PowerHres=%s: slurmctld has it; every GPU job asks for "
			           "its watts per node", c->cluster->site.power_hres);
		thr.hres_seen = sn->hres ? 1 : -1;
	}
	/* the racks' licenses (PowerLicenses): asked for only while
	 * slurmctld has every one; a change is logged once */
	if (c->lic_name) {
		if ((sn->lic_free = calloc((size_t)c->cluster->nracks + 1, sizeof(*sn->lic_free))))
			sn->lic = lic_read(c, sn->lic_free, why, sizeof(why));
		else
			snprintf(why, sizeof(why), "out of memory");
		if (!sn->lic && thr.lic_seen != -1)
			slurm_error("gpuplace: PowerLicenses=%s: %s; GPU jobs get no rack license",
			            c->cluster->site.power_lic, why);
		else if (sn->lic && thr.lic_seen != 1)
			slurm_info("gpuplace: PowerLicenses=%s: slurmctld has the %d racks' licenses; "
			           "every GPU job is kept to a rack's budget",
			           c->cluster->site.power_lic, (int)c->cluster->nracks);
		thr.lic_seen = sn->lic ? 1 : -1;
	}
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

/* Ask the state thread for a reading now (after a decision, so the jobs it
 * let through show in Slurm's counts soon). */
void refresh_soon(void)
{
	pthread_mutex_lock(&thr.lock);
	thr.wake = true;
	pthread_cond_signal(&thr.cond);
	pthread_mutex_unlock(&thr.lock);
}

static void *reload_main(void *arg)
{
	struct timespec failed[GP_NWATCHED] = { { -1, 0 }, { -1, 0 }, { -1, 0 }, { -1, 0 }, { -1, 0 },
						{ -1, 0 } };
	bool live = in_slurmctld(), standby = false, claimed = false;
	time_t failing_since = 0;
	bool failure_logged = false;
	time_t next_summary = time(NULL) + GP_SUMMARY_S;
	gp_live_t lv;

	gp_live_init(&lv);
	pthread_mutex_lock(&thr.lock);
	while (!thr.stop) {
		struct timespec until, gap = { 0, GP_REFRESH_GAP_MS * 1000000L };
		bool woken;

		pthread_mutex_unlock(&thr.lock);
		graveyard_empty();
		reload_if_changed(failed);
		/* the engine for a new configuration, before its first state */
		decider_prepare();
		if (live && !daemon_in_control()) {
			/* a backup controller in standby: the primary reads,
			 * steers and keeps the originals */
			if (!standby) {
				if (daemon_is_backup())
					slurm_info("gpuplace: this slurmctld is a backup in standby: "
					           "no state read and no job steered until it takes "
					           "control");
				else /* every start of a primary: verbose */
					slurm_verbose("gpuplace: this slurmctld has not taken "
					              "control yet: no state read and no job "
					              "steered until it does");
				/* what it kept goes at its next takeover: the primary
				 * goes on from the file (origs_takeover) */
				origs_to_standby();
			}
			standby = true;
		} else if (live) {
			if (standby || !claimed || origs_resume_due()) {
				/* taken over: the originals as the slurmctld before
				 * last wrote them, and this one their only writer
				 * from now on (steer_pass.c, orig_lock) */
				if (standby && daemon_is_backup())
					slurm_info("gpuplace: this backup slurmctld has taken control");
				else if (standby)
					slurm_verbose("gpuplace: this slurmctld has taken control");
				origs_takeover();
				standby = false;
				claimed = true;
			}
			/* what changed since the last wake (an update's
			 * freeze, a job id learned), before the reading */
			origs_journal();
			/* Slurm's plans change once per backfill pass */
			lv.full_every_s = daemon_bf_interval();
			refresh_state(&lv, &failing_since, &failure_logged);
			/* and what the decisions during the reading kept */
			origs_journal();
			steer_pass(&lv);
		}
		if (time(NULL) >= next_summary) {
			summary_log();
			next_summary = time(NULL) + GP_SUMMARY_S;
		}
		pthread_mutex_lock(&thr.lock);
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
		while (!thr.stop && !thr.wake &&
		       pthread_cond_timedwait(&thr.cond, &thr.lock, &until) == 0)
			;
		woken = thr.wake;
		thr.wake = false;
		if (woken && !thr.stop && live && !standby) {
			/* what the decisions kept, on disk before the gap and
			 * the reading: a slurmctld stopped right after a
			 * submission (a reconfigure restarts it since 23.11)
			 * reads it back */
			pthread_mutex_unlock(&thr.lock);
			origs_journal();
			pthread_mutex_lock(&thr.lock);
		}
		if (woken && !thr.stop) {
			/* a burst of decisions: at most one reading per gap; a
			 * stop (fini) ends the gap, the decisions' wakes do not */
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_nsec += gap.tv_nsec;
			if (until.tv_nsec >= 1000000000L) {
				until.tv_sec++;
				until.tv_nsec -= 1000000000L;
			}
			while (!thr.stop && pthread_cond_timedwait(&thr.cond, &thr.lock, &until) == 0)
				;
		}
	}
	pthread_mutex_unlock(&thr.lock);
	/* a stop with a decision's wake pending: its original still goes */
	if (live && !standby)
		origs_journal();
	gp_live_fini(&lv);
	gp_resv_cache_fini(&thr.resv_cache);
	return NULL;
}

/* Start the thread; false when it cannot be (then the last put of a
 * configuration frees it, and nothing reloads). */
bool thread_start(void)
{
	thr.stop = false;
	graveyard_owned_by_thread(true);
	if (pthread_create(&thr.thread, NULL, reload_main, NULL) != 0) {
		graveyard_owned_by_thread(false);
		return false;
	}
	thr.running = true;
	return true;
}

/* Stop the thread and wait for it (fini); from then on the last put of a
 * configuration frees it. */
void thread_stop(void)
{
	if (thr.running) {
		pthread_mutex_lock(&thr.lock);
		thr.stop = true;
		pthread_cond_signal(&thr.cond);
		pthread_mutex_unlock(&thr.lock);
		pthread_join(thr.thread, NULL);
		thr.running = false;
	}
	graveyard_owned_by_thread(false);
}
