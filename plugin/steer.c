/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * steer.c - see steer.h.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "steer.h"

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
