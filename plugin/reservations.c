/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reservations.c - reading Slurm's advance reservations (an RPC: the
 * plugin's own thread only, as gp_live_refresh reads nodes and jobs).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "slurm_compat.h"

#include "steer.h"

void gp_resv_cache_fini(gp_resv_cache_t *rc)
{
	if (rc && rc->msg)
		slurm_free_reservation_info_msg(rc->msg);
	if (rc)
		rc->msg = NULL;
}

int gp_resv_refresh(gp_resv_cache_t *rc, const gp_cluster_t *c, gp_resv_view_t *out, char *why,
                    size_t len)
{
	reserve_info_msg_t *m = NULL;

	/* asked with the cached update time: an unchanged list costs Slurm a
	 * "no change" answer */
	errno = 0;
	if (slurm_load_reservations(rc->msg ? rc->msg->last_update : 0, &m) == SLURM_SUCCESS) {
		gp_resv_cache_fini(rc);
		rc->msg = m;
	} else if (errno != SLURM_NO_CHANGE_IN_DATA) {
		snprintf(why, len, "cannot read reservations: %s", slurm_strerror(errno));
		return -1;
	}
	return gp_resv_convert(c, rc->msg, out, why, len);
}
