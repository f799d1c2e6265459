/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * apply.c - how job_submit/gpuplace writes a decision into the job
 * description: PIN or CONSTRAIN, the admin comment, the environment.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_submit_gpuplace.h"

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

/* tres_per_node giving each node `per_node' GPUs: the job's per-job GPU
 * entries ("gres:gpu[:type]:N", several of one type summed) as one entry of
 * that type with N replaced (Slurm-allocated), or NULL when the request
 * holds anything but GPUs of one type. */
char *per_node_tres(const char *per_job, int32_t per_node)
{
	char type[GP_NAME_MAX];
	long n;

	if (!per_node_tres_ok(per_job) || gp_tres_gpu_request(per_job, &n, type, sizeof(type)) != 1)
		return NULL;
	/* "gres:" (22.05) or "gres/" (newer) as the job wrote it */
	return *type ? slurm_xstrdup_printf("%.8s:%s:%d", per_job, type, per_node)
	             : slurm_xstrdup_printf("%.8s:%d", per_job, per_node);
}

/* Can per_node_tres() give the per-job request per_job per node (GPUs of
 * one type and nothing else)?  Whatever the count per node. */
bool per_node_tres_ok(const char *per_job)
{
	char type[GP_NAME_MAX];
	const char *p;
	long n;

	if (gp_tres_gpu_request(per_job, &n, type, sizeof(type)) != 1)
		return false;
	for (p = per_job; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if ((strncmp(p, "gres:gpu", 8) && strncmp(p, "gres/gpu", 8)) ||
		    (p[8] && p[8] != ':' && p[8] != '=' && p[8] != ','))
			return false;
	return true;
}

/*
 * The admin comment `old' (NULL = none) with gpuplace's part
 * (gp_comment_section) set to `section': replaced where it stands, else
 * appended after the text already there with a space between.  What
 * job_submit/lua, another plugin or the admin wrote stays as it is.
 * malloc'd (the caller frees it), NULL when memory is short.
 */
char *comment_with(const char *old, const char *section)
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
 * The facts of the job and of the plugin that the outcome of a decision
 * depends on (outcome.h), for request r made from job j on a cluster
 * state age seconds old: --segment, --ntasks, whether its GPU request can
 * be given per node, what the ledger has not seen started.  The daemon's
 * facts (topology plugin, max_switch_wait, Weight tiers) and the decision
 * are the caller's to add.
 */
void outcome_facts(const job_desc_msg_t *j, const gp_request_t *r, int64_t age,
                   gp_outcome_in_t *in)
{
	memset(in, 0, sizeof(*in));
	in->c = dec.cur.conf ? dec.cur.conf->cluster : NULL;
	in->check_block = dec.cur.conf != NULL;
	/* only the domain features slurm.conf gives their nodes */
	in->feature_ok = dec.cur.conf ? domfeat_ok : NULL;
	in->feature_ctx = dec.cur.conf;
	in->r = r;
	in->user_switches = j->req_switch != NO_VAL && j->req_switch != 0;
	in->state_age_s = age;
	in->unconfirmed = dec.ledger.unconfirmed + dec.ledger.unbooked;
	in->segment = gp_job_segment(j);
	/* required nodes with several segments (gp_job_segment_pin_ok) */
	in->segment_multi_ok = SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 11, 0);
	if (j->num_tasks != NO_VAL && j->num_tasks > 0)
		in->tasks = (int32_t)j->num_tasks;
	if (j->ntasks_per_node != NO_VAL16 && j->ntasks_per_node > 0)
		in->tasks_per_node = j->ntasks_per_node;
	in->per_node_ok = per_node_tres_ok(j->tres_per_job);
	in->gpu_request = j->tres_per_job;
}

/* The action act as apply() writes it: o's kind, constraint, switch
 * request and, for a PIN whose GPUs go per node, the new tres_per_node
 * (Slurm-allocated). */
void outcome_take(const job_desc_msg_t *j, const gp_outcome_t *act, struct outcome *o)
{
	o->kind = act->kind;
	o->features = act->features;
	o->tres_node = act->action == GP_ACT_PIN && act->per_node > 0
	             ? per_node_tres(j->tres_per_job, act->per_node) : NULL;
	snprintf(o->unpinned, sizeof(o->unpinned), "%s", act->unpinned);
	snprintf(o->nofeat, sizeof(o->nofeat), "%s", act->nofeat);
	o->switches = act->switches;
	o->switch_wait = act->switch_wait;
	o->switch_pays = act->switch_pays;
	o->segment = act->segment;
}

/*
 * Can Slurm be told to run the job on exactly best's nodes with best's GPU
 * count on each (gp_outcome_pin_exact)?  1 = yes, with *tres_node the new
 * tres_per_node (NULL = keep the job's); 0 = no, why says why.
 */
int pin_exact(const job_desc_msg_t *j, const gp_request_t *r, const gp_scored_t *best,
              int64_t age, char **tres_node, char *why, size_t len)
{
	gp_outcome_in_t in;
	int32_t per;

	*tres_node = NULL;
	outcome_facts(j, r, age, &in);
	if (!gp_outcome_pin_exact(&in, best, &per, why, len))
		return 0;
	if (per > 0)
		*tres_node = per_node_tres(j->tres_per_job, per);
	return 1;
}

/* The constraint keeping a job in best's domain, "" when the set spans the
 * whole cluster (no domain to keep it in). */
void domain_of(const gp_cluster_t *c, const gp_scored_t *best, char *buf, size_t len)
{
	gp_outcome_domain(c, best, buf, len);
}

/*
 * Into out (outlen bytes), the domain constraint f ("[a|b|...]", the
 * alternatives best first, or one feature) cut to its first alternatives
 * so that it takes at most room characters: slurmctld refuses a job whose
 * constraint is longer than GP_SLURM_FEATURES_MAX (job_mgr.c
 * _test_job_desc_fields, after the job_submit plugins), and a site of many
 * leaves gives a group of up to 1,023 that the user's own constraint is
 * AND-ed to.  0 when f fits whole, else the alternatives left out; -1 when
 * not even the first fits.
 */
int fit_alternatives(const char *f, size_t room, char *out, size_t outlen)
{
	size_t len = strlen(f), used = 0, k;
	const char *p;
	int kept = 0, all = 0;

	if (len <= room && len < outlen) {
		memcpy(out, f, len + 1);
		return 0;
	}
	if (*f != '[' || len < 2 || f[len - 1] != ']')
		return -1;
	for (p = f + 1; *p && *p != ']'; p += k + (p[k] == '|')) {
		k = strcspn(p, "|]");
		all++;
		/* "[" + the kept ones + "|" + this one + "]" */
		if (k > 0 && used + 1 + k + 1 <= room && used + 1 + k + 2 <= outlen) {
			out[used++] = kept ? '|' : '[';
			memcpy(out + used, p, k);
			used += k;
			kept++;
		}
	}
	if (!kept)
		return -1;
	if (kept == 1) {
		/* one alternative is one feature */
		memmove(out, out + 1, used - 1);
		out[used - 1] = '\0';
	} else {
		out[used++] = ']';
		out[used] = '\0';
	}
	return all - kept;
}

/* A growing text: the comment is never cut, a PIN's node list included
 * (steering reads "gpuplace: PIN <list>" back and compares it with the
 * job's node list), and its ref stays last (the ledger, steering,
 * gp_comment_section).  Slurm takes an admin comment of any length
 * (job_mgr.c _test_job_desc_fields does not bound it, 22.05 to 25.11). */
struct text {
	char *p;
	size_t n, cap;
	bool oom;
};

__attribute__((format(printf, 2, 3)))
static void text_add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	char *grown;
	int n;

	while (!t->oom) {
		size_t room = t->cap - t->n;

		if (t->p) {
			va_start(ap, fmt);
			n = vsnprintf(t->p + t->n, room, fmt, ap);
			va_end(ap);
			if (n < 0) {
				t->oom = true; /* an encoding error: the text so far */
				return;
			}
			if ((size_t)n < room) {
				t->n += (size_t)n;
				return;
			}
		} else {
			n = 0;
		}
		room = 2 * (t->n + (size_t)n + 1) + 1024;
		if (!(grown = realloc(t->p, room))) {
			t->oom = true;
			return;
		}
		if (!t->p)
			grown[0] = '\0';
		t->p = grown;
		t->cap = room;
	}
}

#define ADD(...) text_add(&cm, __VA_ARGS__)

void apply(job_desc_msg_t *j, const gp_cluster_t *c, const gp_decision_t *d,
           struct outcome *o)
{
	const gp_scored_t *best = d->ncands ? &d->cands[0] : NULL;
	const gp_job_profile_t *p = o->profile;
	bool compute = p && (p->compute_s > 0 || p->flops > 0);
	char *list = best ? gp__scored_nodelist(c, best) : NULL;
	struct text cm = { NULL, 0, 0, false };
	char tail[GP_USER_NODES_MAX + 96];

	/* a segment goes with a feature CONSTRAIN only (below) */
	if (o->kind != GP_DECIDE_CONSTRAIN || o->switches)
		o->segment = 0;
	/* the job's own -w, which a PIN replaces: said in the comment
	 * (steer_release reads it back), just the token when long */
	if (o->kind == GP_DECIDE_PIN && best && list && j->req_nodes && *j->req_nodes &&
	    strlen(j->req_nodes) > GP_USER_NODES_MAX)
		snprintf(tail, sizeof(tail), "%s; ref %llu", GP_USER_NODES_TOKEN,
		         (unsigned long long)o->ref);
	else if (o->kind == GP_DECIDE_PIN && best && list && j->req_nodes && *j->req_nodes)
		snprintf(tail, sizeof(tail), "%s %s; ref %llu", GP_USER_NODES_TOKEN, j->req_nodes,
		         (unsigned long long)o->ref);
	else
		snprintf(tail, sizeof(tail), "; ref %llu", (unsigned long long)o->ref);
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
		bool added = false, segmented, too_long = false;
		int cut = 0;

		/* narrow, never widen: AND the user's own constraint; a user's
		 * own bracket group cannot take a second one, so it stays
		 * alone, and neither can node counts (feature*N), which
		 * slurmctld refuses inside parentheses (job_scheduler.c
		 * build_feature_list: "Invalid feature specification") */
		if (*o->features && (!old || !*old)) {
			if ((cut = fit_alternatives(o->features, GP_SLURM_FEATURES_MAX, o->fit,
			                            sizeof(o->fit))) >= 0) {
				o->features = o->fit;
				j->features = slurm_xstrdup(o->features);
				slurm_xfree((void **)&old);
				added = true;
			} else {
				too_long = true;
			}
		} else if (*o->features && !strchr(old, '[') && !strchr(old, '*')) {
			/* "(old)&" before the domain's */
			size_t have = strlen(old) + 3;

			if (have < GP_SLURM_FEATURES_MAX &&
			    (cut = fit_alternatives(o->features, GP_SLURM_FEATURES_MAX - have, o->fit,
			                            sizeof(o->fit))) >= 0) {
				o->features = o->fit;
				j->features = slurm_xstrdup_printf("(%s)&%s", old, o->features);
				slurm_xfree((void **)&old);
				added = true;
			} else {
				too_long = true;
			}
		}
		/* cut into segments where no block had room (decide.c,
		 * segment_job): only with the leaf constraint that keeps the
		 * segments on one leaf switch */
		segmented = o->segment && (added || !*o->features) &&
		            gp_job_set_segment(j, o->segment);
		if (!segmented)
			o->segment = 0;
		o->applied = added;
		if (added && cut > 0)
			ADD("gpuplace: CONSTRAIN %s (%d more alternative%s left out: Slurm takes a "
			    "constraint of at most %d characters)", o->features, cut, cut == 1 ? "" : "s",
			    GP_SLURM_FEATURES_MAX);
		else if (added)
			ADD("gpuplace: CONSTRAIN %s", o->features);
		else if (segmented)
			ADD("gpuplace: CONSTRAIN");
		else if (too_long)
			ADD("gpuplace: CONSTRAIN not applied (%.200s%s): with the job's own constraint "
			    "it would be longer than the %d characters Slurm takes", o->features,
			    strlen(o->features) > 200 ? "..." : "", GP_SLURM_FEATURES_MAX);
		else if (*o->features)
			ADD("gpuplace: CONSTRAIN not applied (%s): the job's own constraint has %s",
			    o->features, strchr(old, '[') ? "a matching-OR group"
			                                  : "node counts (feature*N)");
		else if (*o->nofeat)
			/* slurmctld refuses a feature no node has: the job goes
			 * to Slurm without gpuplace's constraint, and says why */
			ADD("gpuplace: CONSTRAIN none; %s%s%.600s", o->nofeat, *o->unpinned ? "" : ": ",
			    *o->unpinned ? "" : d->reason);
		else if (!best)
			/* no set chosen: left to Slurm's placement, the reason
			 * says why (a job that fits one block with no block free) */
			ADD("gpuplace: CONSTRAIN none: %.600s", d->reason);
		else
			ADD("gpuplace: CONSTRAIN none: the chosen set spans the whole cluster");
		if (segmented)
			ADD(" --segment=%u: Slurm's topology/block starts the job in segments of %u "
			    "node%s, each inside one block", o->segment, o->segment,
			    o->segment == 1 ? "" : "s");
		/* waiting for a block: --segment=<nodes> would let Slurm take
		 * whichever block frees first, but Slurm gives it no max-time
		 * and takes no change of a pending job's segment (job_mgr.c
		 * _update_job has no segment_size, 24.11 to 25.11): a job held
		 * by it could never be released.  The block's feature can be:
		 * steering PINs the job elsewhere once the predicted wait is
		 * over (steer_rules.h) */
		if (added && d->waited && !segmented && topology_is("block"))
			ADD(" (a block's feature, not --segment, which Slurm cannot lift from a pending "
			    "job: gpuplace releases it after the predicted %.0f s)", d->wait_s);
		if (*o->nofeat && *o->features)
			ADD(" (%s)", o->nofeat);
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
	if (*d->power_note)
		ADD("; %s", d->power_note);
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
	ADD("%s", tail);
	if (cm.p && !cm.oom) {
		/* gpuplace's part only: what else the comment holds stays */
		char *merged = comment_with(j->admin_comment, cm.p);

		slurm_xfree((void **)&j->admin_comment);
		j->admin_comment = slurm_xstrdup(merged ? merged : cm.p);
		free(merged);
	} else {
		/* out of memory: the decision and its ref, which the ledger
		 * matches the job by */
		char small[sizeof(tail) + 32], *merged;

		snprintf(small, sizeof(small), "gpuplace: %s%s",
		         gp__decision_kind_name(o->kind), tail);
		merged = comment_with(j->admin_comment, small);
		slurm_xfree((void **)&j->admin_comment);
		j->admin_comment = slurm_xstrdup(merged ? merged : small);
		free(merged);
	}
	free(cm.p);

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

/* A GPU request gpuplace leaves to Slurm because it cannot express it
 * exactly (several GPU types, a type no node has, GPUs per task...): the
 * reason goes into gpuplace's part of the admin comment as "gpuplace: PASS
 * <why>; ref 0" (ref 0: no decision to match or steer), so the job record
 * says why the job is Slurm's alone; a passed job kept to one rack
 * (PowerLicenses) carries its reference instead, never steered but given
 * its own constraint and licenses back by an update (job_modify).  A ';'
 * of the reason, which may quote the job's own strings, becomes ',' so
 * that it cannot end the part. */
void comment_pass(job_desc_msg_t *j, const char *why, uint64_t ref)
{
	char reason[512], section[640], *p, *merged;

	snprintf(reason, sizeof(reason), "%s", why);
	for (p = reason; *p; p++)
		if (*p == ';' || (unsigned char)*p < 0x20)
			*p = ',';
	snprintf(section, sizeof(section), GP_COMMENT_PASS "%s; ref %llu", reason,
	         (unsigned long long)ref);
	if (!(merged = comment_with(j->admin_comment, section)))
		return;
	slurm_xfree((void **)&j->admin_comment);
	j->admin_comment = slurm_xstrdup(merged);
	free(merged);
}

/* ---- Slurm's own budget (PowerHres) ----------------------------------------- */

bool hres_known(const char *name, char *err, size_t len)
{
	license_info_msg_t *m = NULL;
	bool found = false;
	uint32_t i;

	if (slurm_load_licenses(0, &m, 0) != SLURM_SUCCESS || !m) {
		snprintf(err, len, "cannot read slurmctld's licenses: %s",
		         slurm_strerror(gp_slurm_errno()));
		return false;
	}
	for (i = 0; i < m->num_lic && !found; i++) {
		const char *n = m->lic_array[i].name;
		size_t k = strlen(name);

		/* a layer may be shown as NAME(nodes) */
		found = n && !strncmp(n, name, k) && (n[k] == '\0' || n[k] == '(');
	}
	slurm_free_license_info_msg(m);
	if (!found)
		snprintf(err, len, "slurmctld has no license '%s' (resources.yaml not loaded: "
		         "restart slurmctld after writing it)", name);
	return found;
}

void hres_request(job_desc_msg_t *j, const struct gp_conf *conf, const gp_request_t *r,
                  const char *type, const char *label)
{
	const gp_cluster_t *c = conf->cluster;
	const char *name = c->site.power_hres, *why = "";
	struct gp_snap *sn;
	bool known;
	size_t len;
	int64_t w;
	char *buf;
	int rc;

	if (!*name || r->gpus <= 0 || !job_asks_gpus(j))
		return;
	if (!GP_SLURM_HRES_MODE3)
		return; /* said once at load (conf_log_warnings) */
	/* a license slurmctld does not have makes it refuse the job: only
	 * once the plugin's thread has seen it there (logged when not) */
	sn = snap_get();
	known = sn && sn->conf == conf && sn->hres;
	snap_put(sn);
	if (!known) {
		slurm_verbose("gpuplace: %s: no %s request: slurmctld has not been seen to have it",
		              label, name);
		return;
	}
	if (j->array_inx && !GP_SLURM_HRES_ARRAYS) {
		slurm_verbose("gpuplace: %s: no %s request: job arrays asking for a MODE_3 resource "
		              "crash slurmctld %d.%02d.%d (fixed in 25.11.7 and 26.05.2)",
		              label, name, GP_SLURM_MAJOR, GP_SLURM_MINOR, GP_SLURM_MICRO);
		return;
	}
	if (j->tres_per_socket || j->tres_per_task) {
		slurm_verbose("gpuplace: %s: no %s request: GPUs per socket or per task leave its "
		              "GPUs per node unknown", label, name);
		return;
	}
	if (type && *type) {
		w = gp__hres_node_watts(c, r->gpus, r->gpus_per_node, type);
	} else {
		int32_t g = r->gpus_per_node > 0 ? r->gpus_per_node : r->gpus;

		w = conf->hres_w[g < GP_MAX_GPUS_PER_NODE ? g : GP_MAX_GPUS_PER_NODE];
	}
	len = (j->licenses ? strlen(j->licenses) : 0) + strlen(name) + 32;
	if (!(buf = malloc(len))) {
		slurm_error("gpuplace: %s: no %s request: out of memory", label, name);
		return;
	}
	rc = gp__hres_licenses(j->licenses, name, w, buf, len, &why);
	if (rc == 1) {
		slurm_xfree((void **)&j->licenses);
		j->licenses = slurm_xstrdup(buf);
		slurm_verbose("gpuplace: %s asks for %s:%lld per node (licenses %s)", label, name,
		              (long long)w, buf);
	} else {
		slurm_verbose("gpuplace: %s: no %s request: %s", label, name,
		              *why ? why : gp_strerror(rc));
	}
	free(buf);
}
