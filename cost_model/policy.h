/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.h - placement policy: named presets and explicit weights (internal).
 *
 * A site sets the policy in slurm.conf's SchedulerParameters with keys
 * prefixed gpuplace_ (Slurm ignores keys it does not know there), e.g.
 *   SchedulerParameters=bf_interval=30,gpuplace_policy=balanced,gpuplace_power_margin=0.1
 * The same string is accepted by the gpuplace command (--policy).
 * See gpuplace.conf(5), POLICY.
 */
#ifndef GP_POLICY_H
#define GP_POLICY_H

#include <stdbool.h>

#include "model.h"

typedef struct gp_policy {
	char name[32];          /* preset the values started from */
	/* Score of a candidate (lower is better):
	 *   w_step  * (predicted step time / ideal step time - 1)
	 * + w_frag  * fragmentation cost (whole free domains the set breaks)
	 * + w_power * power term: 0 while every rack the set touches stays at
	 *   or below power_knee of min(cap, cooling) with the job on it, then
	 *   ((use - knee) / (1 - knee))^2 / (1 - knee) of its most loaded rack
	 *   (decide.h) */
	double w_step;
	double w_frag;
	double w_power;
	double power_margin;    /* hard: fraction of each rack's cap and cooling kept free */
	double max_overhead;    /* hard: reject sets whose communication overhead
	                         * fraction exceeds this; 1 = no limit */
	double max_wait_s;      /* longest wait for a better placement (0 = never wait) */
	double wait_gain;       /* wait only if the predicted completion improves by
	                         * at least this fraction */
	bool allow_power_cap;   /* may cap GPUs so a job fits a tight rack */
	int topk;               /* candidates kept with their breakdowns */
	/* job_submit/gpuplace steering of pending jobs it placed (plugin only) */
	int steer_max;          /* job updates per state refresh, 0 = no steering */
	int steer_interval_s;   /* no second update of a job within this time */
	double power_knee;      /* rack use (fraction of min(cap, cooling)) below
	                         * which power does not weigh in the score */
	double compact_gain;    /* a set spanning more leaf switches or spine groups
	                         * than the site's Slurm topology plugin would give
	                         * the job is taken only when its predicted step is
	                         * faster by at least this fraction; < 0 = no rule */
	bool no_segments;       /* the Slurm decided for has no --segment (before
	                         * 24.05): no job is cut into segments (set by the
	                         * plugin, false in every preset) */
} gp_policy_t;

/* Fill p with the named preset ("balanced", "pack", "spread-power" ...).
 * Returns 0, or GP_ENOENT with the list of presets in err. */
int gp__policy_preset(const char *name, gp_policy_t *p, gp_error_t *err);

/* Default policy: the "balanced" preset with the site's power margin. */
void gp__policy_default(const gp_cluster_t *c, gp_policy_t *p);

/*
 * Apply a SchedulerParameters-style string ("a=1,gpuplace_x=y,...") to p:
 * gpuplace_policy= first (it resets p to that preset), then every other
 * gpuplace_* key in order.  Keys without the gpuplace_ prefix are ignored;
 * an unknown gpuplace_ key or a bad value is an error naming the key and
 * value, and p is left unchanged.  source names where the string came from
 * ("slurm.conf SchedulerParameters") for the message.
 */
int gp__policy_parse(const char *params, const char *source, gp_policy_t *p, gp_error_t *err);

/*
 * The site's policy of a loaded model: gp__policy_default(c) adjusted by
 * the SchedulerParameters the loader kept (c->sched_params, in file order,
 * Include and continued lines read as the model's reader reads them),
 * reading no file.  Errors name file, line and key; *p is set only on
 * success.
 */
int gp__policy_site(const gp_cluster_t *c, gp_policy_t *p, gp_error_t *err);

/* Names of the presets, NULL-terminated (for usage messages). */
extern const char *const gp__policy_presets[];

#endif /* GP_POLICY_H */
