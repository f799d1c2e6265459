/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lic.c - the racks' power as Slurm cluster licenses, one per rack
 * (power.h, "Slurm's own budget on every release"): each license's name
 * and count, the rack a job is kept to, and the license string that
 * carries its watts.
 *
 * Slurm's side (SchedMD/slurm 22.05, slurm-22-05-9-1; the same in 24.11):
 *   - slurm.conf(5) Licenses=: "Specification of licenses (or other
 *     resources available on all nodes of the cluster) which can be
 *     allocated to jobs.  License names can optionally be followed by a
 *     colon and count ... Multiple license names should be comma separated
 *     ... Slurm prevents jobs from being scheduled if their required
 *     license specification is not available";
 *   - a license's count is per job, not per node (sbatch(1) -L: "licenses
 *     ... which must be allocated to this job"): a job over k nodes of a
 *     rack asks k x its per-node watts;
 *   - src/slurmctld/licenses.c: _build_license_list splits on ',' and ';',
 *     reads the count after ':' with strtol into an int32_t (a negative
 *     or non-numeric count, or a space, makes the list invalid), and sums
 *     a name given twice; license_job_test holds a job (EAGAIN, reason
 *     "Licenses", WAIT_LICENSES in slurm_protocol_defs.c) while its count
 *     plus the license's used count exceeds the total, for the main
 *     scheduler and backfill alike (backfill.c calls it before a start);
 *     license_job_get books the count when the job starts and
 *     license_job_return frees it when the job ends;
 *   - a name slurmctld does not have makes it refuse the job
 *     (license_validate with validate_existing: "Invalid license
 *     specification"), hence the plugin's check that slurmctld has every
 *     rack's license before it asks for one;
 *   - job_mgr.c _test_strlen: a job's licenses are at most 1024
 *     characters; job_mgr.c update_job: a pending job's licenses can be
 *     changed by its owner or an operator (the steering pass).
 * Rack counts are the same as the hierarchical resource's (hres.c,
 * gp__hres_rack_count) and a job's watts per node the same per GPU.
 */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "power.h"

/* job_mgr.c _test_strlen(job_desc->licenses, "licenses", 1024) */
#define SLURM_LICENSES_MAX 1024

int gp__lic_name(const char *prefix, const char *rack, char *buf, size_t len, gp_error_t *err)
{
	int k;
	size_t i;

	if (buf && len)
		buf[0] = '\0';
	if (gp__hres_name_check(prefix, err))
		return GP_EINVAL;
	if (!rack || !*rack)
		return gp__errorf(err, GP_EINVAL, "empty rack name");
	for (i = 0; rack[i]; i++) {
		unsigned char ch = (unsigned char)rack[i];

		/* what _build_license_list takes into a name and slurm.conf's
		 * parser keeps in one value: no ',' ';' ':' '=' '|' '(' or space */
		if (!isalnum(ch) && ch != '_' && ch != '-' && ch != '.')
			return gp__errorf(err, GP_EINVAL,
			                  "rack '%s': '%c' cannot be part of a license name (letters, "
			                  "digits, '_', '-', '.')",
			                  rack, ch);
	}
	k = snprintf(buf, len, "%s_%s", prefix, rack);
	if (k < 0 || (size_t)k >= len || k >= GP_NAME_MAX) {
		if (buf && len)
			buf[0] = '\0';
		return gp__errorf(err, GP_EINVAL, "license name '%s_%s' is longer than %d characters",
		                  prefix, rack, GP_NAME_MAX - 1);
	}
	return GP_OK;
}

int64_t gp__lic_gpu_watts(const gp_cluster_t *c, int32_t node, int32_t gpus)
{
	const gp_node_t *nd;
	double w;

	if (!c || node < 0 || node >= c->nnodes || gpus <= 0)
		return 0;
	nd = &c->nodes[node];
	if (nd->profile < 0)
		return 0; /* unknown type: the estimate counts it the same idle or busy */
	w = gpus * (gp__power_gpu_watts(&c->profiles[nd->profile], 1.0) -
	            gp__power_gpu_watts(&c->profiles[nd->profile], 0.0));
	w = ceil(w - 1e-9);
	if (!(w > 0))
		return 0;
	return w > 2147483647.0 ? 2147483647 : (int64_t)w;
}

int32_t gp__lic_choose_rack(int32_t nracks, const double *room_w, const bool *fits,
                            int32_t picked)
{
	int32_t i, best = -1;

	if (!room_w || !fits || nracks <= 0)
		return -1;
	if (picked >= 0 && picked < nracks && fits[picked])
		return picked;
	for (i = 0; i < nracks; i++)
		if (fits[i] && (best < 0 || room_w[i] > room_w[best]))
			best = i;
	return best;
}

/* The first of the n names lic names, or NULL. */
static const char *names_any(const char *lic, const char *const *names, int32_t n)
{
	int32_t i;

	for (i = 0; i < n; i++)
		if (gp__licenses_name_in(lic, names[i]))
			return names[i];
	return NULL;
}

int gp__lic_licenses(const char *user, const char *const *names, const int64_t *counts,
                     int32_t n, const char *const *drop, int32_t ndrop, char *buf, size_t len,
                     const char **why)
{
	size_t used = 0;
	const char *p;
	int32_t i;
	int k;

	*why = "";
	if (buf && len)
		buf[0] = '\0';
	if (!names || !counts || n <= 0 || !buf || !len)
		return GP_EINVAL;
	for (i = 0; i < n; i++)
		if (counts[i] <= 0) {
			*why = "no GPU watts over idle to ask for";
			return 0;
		}
	if (user && strchr(user, '|')) {
		*why = "its licenses are an OR list ('|'), which takes no other term";
		return 0;
	}
	for (p = user; p && *p; p++)
		if (isspace((unsigned char)*p) || iscntrl((unsigned char)*p)) {
			*why = "its licenses hold a space or control character (Slurm's to refuse)";
			return 0;
		}
	/* the user's terms, less those naming a rack license gpuplace is
	 * replacing (drop: the steering pass moving the job to another rack) */
	for (p = user; p && *p;) {
		const char *end = p + strcspn(p, ",;");
		size_t tl = (size_t)(end - p);
		char term[GP_NAME_MAX * 2];

		if (tl > 0) {
			bool dropped = false;

			if (tl < sizeof(term)) {
				memcpy(term, p, tl);
				term[tl] = '\0';
				dropped = names_any(term, drop, ndrop) != NULL;
			}
			if (!dropped) {
				if (tl < sizeof(term) && names_any(term, names, n)) {
					*why = "it asks for a rack's power license itself";
					buf[0] = '\0';
					return 0;
				}
				k = snprintf(buf + used, len - used, "%s%.*s", used ? "," : "", (int)tl, p);
				if (k < 0 || (size_t)k >= len - used)
					goto too_long;
				used += (size_t)k;
			}
		}
		p = *end ? end + 1 : end;
	}
	for (i = 0; i < n; i++) {
		k = snprintf(buf + used, len - used, "%s%s:%lld", used ? "," : "", names[i],
		             (long long)(counts[i] > 2147483647 ? 2147483647 : counts[i]));
		if (k < 0 || (size_t)k >= len - used)
			goto too_long;
		used += (size_t)k;
	}
	if (used > SLURM_LICENSES_MAX) {
		buf[0] = '\0';
		*why = "its licenses would be longer than Slurm's 1024 characters";
		return 0;
	}
	return 1;
too_long:
	buf[0] = '\0';
	*why = "its licenses are too long";
	return GP_ELIMIT;
}

int64_t gp__power_rack_tdp_gpus(const gp_cluster_t *c, const gp_state_t *s, int32_t rack,
                                double headroom_w, int64_t *all, int64_t *free_gpus)
{
	const gp_rack_t *rk = c && rack >= 0 && rack < c->nracks ? &c->racks[rack] : NULL;
	int64_t n = 0, fr = 0, w = 0, k;
	int32_t j;

	/* the rack's own node list: one pass over its nodes, not the cluster's */
	for (j = 0; rk && j < rk->nnodes; j++) {
		int32_t i = rk->nodes[j];
		const gp_node_t *nd;
		int64_t g;

		if (i < 0 || i >= c->nnodes || (nd = &c->nodes[i])->rack != rack || nd->ngpus <= 0)
			continue;
		n += nd->ngpus;
		if (!s || !(s->node_flags[i] & (GP_NODE_DOWN | GP_NODE_DRAIN)))
			fr += nd->ngpus - (s ? gp__popcount(s->alloc_mask[i] &
			                                    gp__gpu_full_mask(nd->ngpus)) : 0);
		if ((g = gp__lic_gpu_watts(c, i, 1)) > w)
			w = g;
	}
	if (all)
		*all = n;
	if (free_gpus)
		*free_gpus = fr;
	if (w <= 0)
		return fr;
	k = gp__power_gpus_powered(headroom_w, (double)w);
	return k < fr ? k : fr;
}

int gp__power_rack_idle_tdp_gpus(const gp_cluster_t *c, int32_t rack, int64_t *powered,
                                 int64_t *all)
{
	gp_power_headroom_t h;
	int rc;

	if (!c || !powered)
		return GP_EINVAL;
	if ((rc = gp__power_headroom(c, NULL, NULL, rack, 0, 0, &h)) != GP_OK)
		return rc;
	*powered = gp__power_rack_tdp_gpus(c, NULL, rack, h.headroom_w, all, NULL);
	return GP_OK;
}

int gp__power_idle_tdp_gpus(const gp_cluster_t *c, int64_t *powered, int64_t *all)
{
	int64_t p = 0, n = 0, pr, a;
	int32_t r;
	int rc;

	if (!c || !powered || !all)
		return GP_EINVAL;
	for (r = 0; r < c->nracks; r++) {
		if ((rc = gp__power_rack_idle_tdp_gpus(c, r, &pr, &a)) != GP_OK)
			return rc;
		p += pr;
		n += a;
	}
	*powered = p;
	*all = n;
	return GP_OK;
}
