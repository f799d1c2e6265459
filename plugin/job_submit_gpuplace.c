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

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "job_submit_gpuplace.h"

const char plugin_name[] = "gpuplace: topology- and power-aware GPU placement";
const char plugin_type[] = "job_submit/gpuplace";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

extern int init(void)
{
	struct gp_conf *c;
	gp_error_t err;

	/* slurmctld calls init() only when plugin_version equals its own
	 * release (slurm_compat.h), so this names the running release too */
	slurm_info("gpuplace: job_submit/gpuplace built for Slurm %d.%02d.%d; rebuild it for any other release",
	           GP_SLURM_MAJOR, GP_SLURM_MINOR, GP_SLURM_MICRO);
	set_conf_dir();
	dec.ref_base = (uint64_t)time(NULL) * 1000000ULL;
	c = conf_load(&err);
	if (c) {
		slurm_info("gpuplace: loaded %s: %d nodes, %ld GPUs, policy %s (built for Slurm 0x%06x)",
		           conf_dir_path(), gp_cluster_node_count(c->cluster), gp_cluster_gpu_count(c->cluster),
		           c->policy.name, (unsigned)GP_SLURM_VERSION_BUILT);
		conf_log_warnings(c);
		conf_publish(c);
	} else {
		/* never stop slurmctld: run without a configuration, retry on change */
		slurm_error("gpuplace: %s; jobs pass unchanged until the configuration is fixed",
		            err.text);
	}
	origs_restore();
	if (!thread_start()) {
		slurm_error("gpuplace: cannot start the reload thread: configuration changes need a restart");
		decider_prepare(); /* no thread to build it: now, once */
	}
	return SLURM_SUCCESS;
}

extern void fini(void)
{
	thread_stop(); /* from now on the last put of a configuration frees it */
	summary_log();
	decider_reset();
	conf_put(dec.failed);
	dec.failed = NULL;
	origs_clear();
	slots_clear();
	graveyard_empty();
	stats_forget_announced();
}

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
	gp_outcome_in_t in;
	gp_outcome_t act;
	char lic_feat[1040];
	int lic_how = 0;
	int32_t lic_rack = -1;
	int64_t lic_count = 0;

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
		count_bad_hints();
		return SLURM_ERROR;
	}
	if (found > 0 && gp__job_profile_parse(hints, &profile, &err) != GP_OK) {
		if (err_msg)
			*err_msg = slurm_xstrdup_printf("gpuplace: %s: %s", source, err.text);
		slurm_verbose("gpuplace: %s rejected: %s: %s", label, source, err.text);
		count_bad_hints();
		return SLURM_ERROR;
	}
	c = conf_get();
	if (!c) {
		count_pass(PASS_NO_CONF, label, conf_dir_path());
		return SLURM_SUCCESS;
	}
	pass_resolved(PASS_NO_CONF);
	gp__request_init(&r);
	want = build_request(job_desc, c->cluster, &r, type, why, sizeof(why));
	/* Slurm's own rack budget, for every GPU job whatever gpuplace decides
	 * below (a job it rejects is never scheduled, so the request does
	 * no harm there either) */
	hres_request(job_desc, c, &r, type, label);
	if (want <= 0) {
		uint64_t kept = 0;
		bool booked;

		count_pass(*why ? PASS_REQUEST : PASS_FEW_GPUS, label, why);
		booked = r.gpus > 0 && book_pass(c, job_desc, &r, type, submit_uid, label, &kept);
		/* a job kept to a rack carries its reference, so that an
		 * update moving it gets its own constraint and licenses back */
		if (*why || kept)
			comment_pass(job_desc, *why ? why : "kept to one rack for its power license",
			             kept);
		if (booked)
			refresh_soon();
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
		count_pass_quiet(PASS_USER);
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
	pthread_mutex_lock(&dec.lock);
	if (dec.cur.conf != c) {
		/* the plugin's thread builds it (decider_prepare): never here */
		pthread_mutex_unlock(&dec.lock);
		snap_put(sn);
		count_pass(PASS_NO_ENGINE, label, NULL);
		goto out;
	}
	prepare_work(sn, &need);
	/* nodes reserved during the job's run are not its to take; a job in a
	 * reservation stays inside it (time limit 0: no limit, every
	 * reservation not yet over counts) */
	if (gp_resv_apply(c->cluster, &sn->resv, job_desc->reservation, (int64_t)time(NULL),
	                  (int64_t)r.time_limit_min * 60, dec.cur.work->node_flags, why, sizeof(why))) {
		dec.cur.work->jobs = NULL; /* borrowed from the snapshot */
		dec.cur.work->njobs = 0;
		pthread_mutex_unlock(&dec.lock);
		snap_put(sn);
		count_pass(PASS_REQUEST, label, why);
		goto out;
	}
	{
		/* nodes Slurm's backfill has planned for the jobs that wait are
		 * not this job's: its priority is not known yet, so it comes
		 * after every one of them, and a PIN there would wait until
		 * they start and end (steer_rules.h; the steering pass keeps
		 * moved jobs off them too).  A plan that starts after the job's
		 * time limit would end holds nothing. */
		int64_t now = (int64_t)time(NULL);
		gp_steer_cand_t me = { .job_id = UINT32_MAX, .priority = 0, .submit_time = now };

		gp_steer_hold_planned(&me, r.time_limit_min > 0 ? now + (int64_t)r.time_limit_min * 60 : 0,
		                      sn->plans.p, sn->plans.n, dec.cur.work->node_flags,
		                      c->cluster->nnodes);
	}
	{
		gp_power_view_t pv = { ledger_racks(sn->racks), gp__power_view_cap_speed,
		                       sn->hres || sn->lic };

		if (found > 0 && profile.gpus == 0)
			profile.gpus = r.gpus;
		bookings_prune((int64_t)time(NULL));
		rc = gp__decide(dec.cur.engine, dec.cur.work, &r, found > 0 ? &profile : NULL, &c->policy, &pv,
		                sn->view.state->time, recent_bookings(), nrecent_bookings(), &d, &err);
	}
	dec.cur.work->jobs = NULL; /* borrowed from the snapshot */
	dec.cur.work->njobs = 0;
	if (rc == GP_EINVAL && found > 0) {
		/* the hints contradict what the job asks for: the user can fix it */
		pthread_mutex_unlock(&dec.lock);
		if (err_msg)
			*err_msg = slurm_xstrdup_printf("gpuplace: %s: %s", source, err.text);
		slurm_verbose("gpuplace: %s rejected: %s: %s", label, source, err.text);
		count_bad_hints();
		rc = SLURM_ERROR;
		snap_put(sn);
		goto out;
	}
	if (rc != GP_OK) {
		bool loud;

		pthread_mutex_unlock(&dec.lock);
		loud = count_engine_error();
		gp_log(loud ? LOGL_ERROR : LOGL_VERBOSE,
		       "gpuplace: %s: the engine failed: %s; the job passes unchanged%s", label, err.text,
		       loud ? " (further engine failures this minute at verbose level)" : "");
		rc = SLURM_SUCCESS;
		snap_put(sn);
		goto out;
	}
	/* what Slurm is told: the rules the simulator follows too (outcome.h) */
	outcome_facts(job_desc, &r, age, &in);
	in.d = &d;
	in.policy = &c->policy;
	in.topology = gp_outcome_topology(c->cluster, &r, topology_is("tree") ? GP_SLURM_TOPO_TREE
	                                  : topology_is("block") ? GP_SLURM_TOPO_BLOCK
	                                  : GP_SLURM_TOPO_FLAT);
	in.one_weight = dec.cur.one_weight;
	in.max_switch_wait = daemon_max_switch_wait();
	in.gpu_type = type;
	if (d.kind != GP_DECIDE_PIN && *type)
		in.mixed_gpus = mixed_type_gpus(c->cluster, &r, type);
	/* PowerLicenses: a job no one rack's license holds is PINned, so
	 * that each rack it spans is asked for its share (lic_set) */
	in.one_rack = lic_on(job_desc, c, sn, &r);
	gp_outcome(&in, &act);
	if (act.action == GP_ACT_PASS) {
		int32_t rack = -1;
		int64_t count = 0;
		uint64_t kept = 0;

		/* Where Slurm starts it is unknown to the ledger: no PIN until
		 * the next reading shows it */
		dec.ledger.unbooked++;
		dec.ledger.unbooked_gen = sn->ref.gen;
		/* PowerLicenses: kept to the rack of the decision's best set
		 * when it lies in one, else the one with most room */
		if (c->lic_name) {
			int32_t i, picked = -2;

			for (i = 0; d.ncands > 0 && i < d.cands[0].nnodes; i++) {
				int32_t rk = c->cluster->nodes[d.cands[0].nodes[i]].rack;

				picked = picked == -2 || picked == rk ? rk : -1;
			}
			rack = lic_pick(c, sn, job_desc, &r, type, picked, &count, label);
			if (rack >= 0) {
				kept = dec.ref_base + ++dec.ref_seq;
				orig_save(job_desc, kept, NULL, 0.0, submit_uid, false, true);
			}
		}
		pthread_mutex_unlock(&dec.lock);
		if (rack >= 0 && lic_keep(job_desc, c, rack, count, true, label))
			orig_lic_added(kept);
		else
			kept = 0; /* nothing to give back: its comment names no reference */
		count_pass(PASS_REQUEST, label, act.why);
		comment_pass(job_desc, act.why, kept);
		gp__decision_clear(&d);
		snap_put(sn);
		if (kept)
			refresh_soon(); /* its original to the journal at once */
		goto out;
	}
	o.ref = dec.ref_base + ++dec.ref_seq;
	if (act.action != GP_ACT_REJECT && d.ncands > 0 && !d.cands[0].future &&
	    !ledger_add(d.cands[0].nodes, d.cands[0].gpu_mask, d.cands[0].nnodes, o.ref, submit_uid,
	                gp_live_name_hash(job_desc->name), true, d.cands[0].cap_w, false, 0) &&
	    act.action == GP_ACT_PIN) {
		in.ledger_full = true; /* not booked: the next decision would pin
		                        * another job to this set */
		in.ledger_max = GP_LEDGER_MAX;
		gp_outcome(&in, &act);
	}
	outcome_take(job_desc, &act, &o);
	o.profile = found > 0 ? &profile : NULL;
	if (c->lic_name && o.kind == GP_DECIDE_CONSTRAIN)
		lic_how = lic_constrain(c, sn, job_desc, &r, &d, &o, lic_feat, sizeof(lic_feat),
		                        &lic_rack, &lic_count, label);
	if (o.kind != GP_DECIDE_REJECT)
		orig_save(job_desc, o.ref, found > 0 ? hints : NULL,
		          d.waited ? d.wait_s : 0.0, submit_uid, o.switches > 0, false);
	if (o.kind == GP_DECIDE_PIN && d.ncands > 0)
		orig_pinned(o.ref, o.tres_node != NULL); /* what apply() sets below */
	if (o.kind != GP_DECIDE_REJECT)
		booking_add(&d, r.time_limit_min, (int64_t)time(NULL));
	pthread_mutex_unlock(&dec.lock);
	count_decision(o.kind, *o.unpinned != '\0');
	if (o.kind == GP_DECIDE_REJECT) {
		if (err_msg)
			*err_msg = slurm_xstrdup_printf("gpuplace: %s", d.reason);
		slurm_verbose("gpuplace: %s rejected: %s", label, d.reason);
		rc = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	} else {
		apply(job_desc, c->cluster, &d, &o);
		if (o.segment) {
			pthread_mutex_lock(&dec.lock);
			orig_segmented(o.ref);
			pthread_mutex_unlock(&dec.lock);
		}
		/* PowerLicenses: a PIN asks each rack it spans for its share, a
		 * CONSTRAIN the rack of its best domain */
		if (c->lic_name && o.kind == GP_DECIDE_PIN && d.ncands > 0) {
			if (act.action == GP_ACT_PIN && *act.why)
				slurm_verbose("gpuplace: %s %s", label, act.why);
			if (lic_set(job_desc, c, &d.cands[0], sn, &r, label))
				orig_lic_added(o.ref);
		}
		else if (lic_how == 2 && !o.applied)
			/* the license went with the domain's feature, which the
			 * job's own constraint did not take (a matching-OR group,
			 * node counts, Slurm's length): nothing keeps the job in
			 * that rack */
			slurm_verbose("gpuplace: %s: no rack license: its domain's constraint was not "
			              "applied", label);
		else if (lic_how > 0 && lic_keep(job_desc, c, lic_rack, lic_count, lic_how == 1, label))
			orig_lic_added(o.ref);
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

/* Does an update change what decides where the job may run (its
 * partition, exclusions, constraint, reservation, GPUs, node and task
 * counts, sharing, memory, CPUs), which the node list gpuplace pinned may
 * then contradict? */
static bool changes_where(const job_desc_msg_t *j)
{
	return j->exc_nodes || j->features || j->partition || j->reservation ||
	       j->tres_per_job || j->tres_per_node || j->tres_per_socket || j->tres_per_task ||
	       j->min_nodes != NO_VAL || j->max_nodes != NO_VAL || j->num_tasks != NO_VAL ||
	       j->shared != NO_VAL16 || j->pn_min_memory != NO_VAL64 || j->cpus_per_task != NO_VAL16;
}

/* Does an update touch what gpuplace keeps of the request (a hold or a
 * release, which change the priority only, does not)? */
static bool changes_request(const job_desc_msg_t *j)
{
	return j->req_nodes || j->time_limit != NO_VAL || changes_where(j);
}

/* Append the formatted text to buf (len bytes), cut at its end. */
__attribute__((format(printf, 3, 4)))
static void also_add(char *buf, size_t len, const char *fmt, ...)
{
	size_t at = strlen(buf);
	va_list ap;

	if (at + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + at, len - at, fmt, ap);
	va_end(ap);
}

extern int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid, char **err_msg)
{
	/* job_ptr is slurmctld's private job_record_t: never dereferenced.
	 * Someone else changed the job: what gpuplace kept of the user's
	 * request may no longer be it, so the job is not steered again; what
	 * it kept of where the job may run stays, with the update's own
	 * values, for a later update (orig_freeze). */
	uint32_t id = 0, inflight;
	long v;

	if (!job_desc)
		return SLURM_SUCCESS;
	if (GP_JOB_DESC_ID(job_desc) != NO_VAL && GP_JOB_DESC_ID(job_desc) != 0)
		id = GP_JOB_DESC_ID(job_desc);
	else if (job_desc->job_id_str && gp__parse_long(job_desc->job_id_str, 1, UINT32_MAX, &v) == 0)
		id = (uint32_t)v; /* scontrol update names the job as a string */
	inflight = steer_updating();
	slurm_debug("gpuplace: job %u modified%s", id, id && id == inflight ? " by steering" : "");
	/* a new partition, exclusion, constraint, node count... for a job
	 * gpuplace decided: slurmctld keeps the node list gpuplace pinned,
	 * or the domain constraint (or rack exclusions) it added, which the
	 * new request may contradict (a partition without those nodes, an
	 * excluded one: the job pends as BadConstraints for good) or
	 * override (a job resized to 1 node still runs on the 2 pinned).  So
	 * each of those the update does not set itself goes back to what the
	 * user submitted, as on stock Slurm (slurmctld applies them before
	 * the node count: job_mgr.c _update_job); unchanged ones are no-ops */
	if (id && id != inflight && changes_where(job_desc)) {
		struct user_where *w = malloc(sizeof(*w));

		if (w && orig_user_request(id, w)) {
			/* what else is given back, for the log line */
			char also[600] = "";

			if (!job_desc->req_nodes)
				job_desc->req_nodes = slurm_xstrdup(w->req_nodes);
			if (!job_desc->exc_nodes)
				job_desc->exc_nodes = slurm_xstrdup(w->exc_nodes);
			if (!job_desc->features)
				job_desc->features = slurm_xstrdup(w->features);
			/* and the rack licenses gpuplace added go ("" clears
			 * them: job_mgr.c _update_job, license_validate) */
			if (w->lic && !job_desc->licenses) {
				job_desc->licenses = slurm_xstrdup(w->licenses);
				also_add(also, sizeof(also), "; its licenses (%.100s)",
				         *w->licenses ? w->licenses : "none");
			}
			/* and the --switches count gpuplace set to wait for one
			 * leaf of the old bounds (0: none; job_mgr.c _update_job
			 * takes both of a pending job) */
			if (w->sw && job_desc->req_switch == NO_VAL) {
				job_desc->req_switch = 0;
				job_desc->wait4switch = 0;
				also_add(also, sizeof(also), "; its switch count (none)");
			}
			/* and the node counts a PIN set (the user's, else
			 * what slurmctld gives a job that names none:
			 * job_mgr.c _job_create, min 1 and no max), unless
			 * the update sets either */
			if (w->counts && job_desc->min_nodes == NO_VAL &&
			    job_desc->max_nodes == NO_VAL) {
				job_desc->min_nodes = w->min_nodes != NO_VAL ? w->min_nodes : 1;
				job_desc->max_nodes = w->max_nodes != NO_VAL ? w->max_nodes : 0;
				if (job_desc->max_nodes)
					also_add(also, sizeof(also), "; its node counts (%u-%u)",
					         job_desc->min_nodes, job_desc->max_nodes);
				else
					also_add(also, sizeof(also), "; its node counts (%u or more)",
					         job_desc->min_nodes);
			}
			/* and the GPU request a PIN gave per node: the user's
			 * per job again ("" clears the per-node one:
			 * job_mgr.c _update_job) */
			if (w->gpus) {
				if (!job_desc->tres_per_job) {
					job_desc->tres_per_job = slurm_xstrdup(w->tres_per_job);
					also_add(also, sizeof(also), "; its GPUs per job (%.100s)",
					         *w->tres_per_job ? w->tres_per_job : "none");
				}
				if (!job_desc->tres_per_node) {
					job_desc->tres_per_node = slurm_xstrdup(w->tres_per_node);
					also_add(also, sizeof(also), "; its GPUs per node (%.100s)",
					         *w->tres_per_node ? w->tres_per_node : "none");
				}
			}
			slurm_info("gpuplace: job %u: its request changed; its node list, exclusions "
			           "and constraint are the user's again (node list %.200s)%s", id,
			           *w->req_nodes ? w->req_nodes : "none", also);
		}
		free(w);
	}
	if (id && id != inflight && changes_request(job_desc)) {
		orig_freeze(id, job_desc);
		refresh_soon(); /* the frozen original to the journal at once */
	}
	return SLURM_SUCCESS;
}
