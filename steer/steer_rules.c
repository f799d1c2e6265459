/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * steer_rules.c - see steer_rules.h.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "steer_rules.h"

void gp_ledger_power_subtract(const gp_cluster_t *c, gp_rack_view_t *racks,
                              const int32_t *nodes, const uint32_t *mask, int32_t n,
                              double cap_w)
{
	int32_t i;

	if (!c || !racks || !nodes || !mask)
		return;
	for (i = 0; i < n; i++) {
		const gp_node_t *nd;
		const gp_gpu_profile_t *prof;
		double per_gpu;
		gp_rack_view_t *rv;

		if (nodes[i] < 0 || nodes[i] >= c->nnodes)
			continue;
		nd = &c->nodes[nodes[i]];
		if (nd->rack < 0 || nd->rack >= c->nracks || nd->profile < 0 ||
		    nd->profile >= c->nprofiles)
			continue; /* the engine counts no power there either */
		prof = &c->profiles[nd->profile];
		per_gpu = (cap_w > 0 && cap_w < prof->tdp_w ? cap_w : prof->tdp_w) - prof->idle_w;
		rv = &racks[nd->rack];
		if (!isfinite(rv->headroom_w) || per_gpu <= 0)
			continue;
		rv->headroom_w = fmax(0.0, rv->headroom_w - per_gpu * gp__popcount(mask[i]));
	}
}

/* ---- steering pending jobs ------------------------------------------------- */

uint64_t gp_comment_ref(const char *comment)
{
	const char *p = comment ? strstr(comment, "; ref ") : NULL;
	unsigned long long v = 0;
	int digits = 0;

	if (!p)
		return 0;
	for (p += 6; *p >= '0' && *p <= '9' && digits < 20; p++, digits++)
		v = v * 10 + (unsigned long long)(*p - '0');
	return digits && (*p == '\0' || *p == ';' || *p == ' ') ? (uint64_t)v : 0;
}

/* ---- Slurm's own wait-for-switch ------------------------------------------- */

int gp_switch_request(const gp_decision_t *d, const gp_policy_t *p, uint32_t *count,
                      uint32_t *max_s)
{
	double compact_run, pays;

	if (!d || !p || d->kind != GP_DECIDE_CONSTRAIN || !d->waited || d->ncands < 1 ||
	    d->cands[0].nleaves < 1 || !(d->now_finish_s > 0))
		return 0;
	compact_run = d->wait_finish_s - d->wait_s;
	pays = d->now_finish_s * (1.0 - p->wait_gain) - compact_run;
	if (p->max_wait_s > 0 && pays > p->max_wait_s)
		pays = p->max_wait_s;
	if (!(pays >= d->wait_s) || pays < 1.0)
		return 0;
	*count = (uint32_t)d->cands[0].nleaves;
	*max_s = (uint32_t)ceil(pays);
	return 1;
}
