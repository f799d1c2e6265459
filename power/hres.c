/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hres.c - the racks' power as a Slurm hierarchical resource (power.h,
 * "Slurm's own budget"): each rack's count, each GPU job's request, and the
 * license string that carries it.
 *
 * Slurm's side (SchedMD/slurm, doc/html/hres.shtml and
 * doc/man/man5/resources.yaml.5 of 25.11/26.05; src/slurmctld/licenses.c):
 *   - resources.yaml beside slurm.conf defines each resource as layers of
 *     nodes with a count; MODE_3 ("allocated on a per-node basis, with the
 *     total consumption being calculated from the most granular layer and
 *     summed up into the successively higher layers ... designed for
 *     consumable resources like power") came with 25.11.0rc1
 *     (CHANGELOG/slurm-25.11.md: "Add a new mode of operation to HRes
 *     (MODE_3)"); 25.05 has MODE_1 and MODE_2 only, whose counts are per
 *     job, not per node;
 *   - a job asks with the license syntax, `sbatch -L NAME:COUNT`
 *     (job_desc->licenses), and under MODE_3 COUNT is per node: "A job that
 *     requests 1000 of the power resource and is allocated node[01-16]
 *     will pull ... 8000 from node[01-08]" (hres.shtml);
 *   - the layers of a MODE_3 resource must form "a rooted uniform depth
 *     tree" (licenses.c _foreach_license_set_mode3: "isn't a rooted tree",
 *     _foreach_license_set_cnt: "isn't a perfect tree"), a count of -1 is
 *     INFINITE (25.11.0: "Add infinite (-1) layer support to HRes mode 3"),
 *     and a node in no layer cannot run a job asking for the resource
 *     (select/cons_tres job_test.c: "Test fail on node %s:
 *     hres_select_find_leaf");
 *   - one MODE_3 resource per job ("Only one HRes Mode 3 can be used per
 *     job", licenses.c), AND lists separated by ',' or ';', OR lists by
 *     '|' and never both (licenses.c _build_license_list), a name given
 *     twice has its counts summed.
 * The simulator's -budget baselines model the same budget (sim/sim.h):
 * rack count = min(cap, cooling) less the rack's idle draw, a job asks per
 * node for its GPUs' TDP over idle.
 */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "power.h"

int gp__hres_name_check(const char *name, gp_error_t *err)
{
	size_t i, n = name ? strlen(name) : 0;

	if (n == 0)
		return gp__errorf(err, GP_EINVAL, "empty resource name");
	if (n >= GP_NAME_MAX)
		return gp__errorf(err, GP_EINVAL, "longer than %d characters", GP_NAME_MAX - 1);
	if (!isalpha((unsigned char)name[0]))
		return gp__errorf(err, GP_EINVAL, "a resource name starts with a letter");
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)name[i];

		/* what _build_license_list reads as part of a name: anything
		 * but separators, ':'/'=' (count), '(' (layer) and spaces;
		 * kept to the characters a YAML plain scalar takes as is */
		if (!isalnum(ch) && ch != '_' && ch != '-' && ch != '.')
			return gp__errorf(err, GP_EINVAL,
			                  "'%c' is not allowed in a resource name (letters, digits, "
			                  "'_', '-', '.')", ch);
	}
	return GP_OK;
}

int64_t gp__hres_rack_count(const gp_cluster_t *c, int32_t rack)
{
	double cap, cool, idle, room;

	if (!c || rack < 0 || rack >= c->nracks)
		return GP_EINVAL;
	cap = c->racks[rack].power_cap_kw * 1000.0;
	/* CoolingKW 0 = not given: the cap alone (as sim.c and estimate.c) */
	cool = c->racks[rack].cooling_kw > 0.0 ? c->racks[rack].cooling_kw * 1000.0 : cap;
	idle = gp__power_estimate_rack(c, NULL, rack);
	if (idle < 0)
		return (int64_t)idle;
	room = floor(fmin(cap, cool) - idle);
	if (!(room > 0))
		return 0;
	return room > 2147483647.0 ? 2147483647 : (int64_t)room; /* Slurm's counts are 32-bit */
}

/* Watts one GPU of node n adds from idle to TDP (0 for an unknown type,
 * which the estimate counts at GP_POWER_UNKNOWN_GPU_W busy or idle). */
static double gpu_delta_w(const gp_cluster_t *c, int32_t n)
{
	const gp_node_t *nd = &c->nodes[n];

	if (nd->profile < 0)
		return 0.0;
	return gp__power_gpu_watts(&c->profiles[nd->profile], 1.0) -
	       gp__power_gpu_watts(&c->profiles[nd->profile], 0.0);
}

int64_t gp__hres_node_watts(const gp_cluster_t *c, int32_t gpus, int32_t gpus_per_node,
                            const char *type)
{
	double best = 0;
	int32_t i;

	if (!c || gpus <= 0)
		return 0;
	for (i = 0; i < c->nnodes; i++) {
		int32_t have = c->nodes[i].ngpus, g;
		bool all;

		if (have <= 0)
			continue;
		if (type && *type && (have = gp__node_type_gpus(c, i, type, &all)) <= 0)
			continue;
		g = gpus_per_node > 0 ? gpus_per_node : gpus;
		if (g > have)
			g = have;
		if (g * gpu_delta_w(c, i) > best)
			best = g * gpu_delta_w(c, i);
	}
	best = ceil(best - 1e-9);
	return best > 2147483647.0 ? 2147483647 : (int64_t)best;
}

bool gp__licenses_name_in(const char *lic, const char *name)
{
	size_t n = strlen(name);
	const char *p = lic;

	while (p && *p) {
		const char *end = p + strcspn(p, ",;|");

		if ((size_t)(end - p) >= n && !strncmp(p, name, n) &&
		    (p + n == end || p[n] == ':' || p[n] == '=' || p[n] == '('))
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

int gp__hres_licenses(const char *user, const char *name, int64_t watts, char *buf, size_t len,
                      const char **why)
{
	int k;

	*why = "";
	if (buf && len)
		buf[0] = '\0';
	if (!name || !*name || !buf || !len)
		return GP_EINVAL;
	if (watts <= 0) {
		*why = "no GPU watts over idle to ask for";
		return 0;
	}
	if (user && *user) {
		if (strchr(user, '|')) {
			/* an OR list takes no AND term: left as the user wrote it */
			*why = "its licenses are an OR list ('|'), which takes no other term";
			return 0;
		}
		if (gp__licenses_name_in(user, name)) {
			*why = "it asks for the resource itself";
			return 0;
		}
		for (k = 0; user[k]; k++)
			if (isspace((unsigned char)user[k]) || iscntrl((unsigned char)user[k])) {
				*why = "its licenses hold a space or control character (Slurm's to refuse)";
				return 0;
			}
		k = snprintf(buf, len, "%s,%s:%lld", user, name, (long long)watts);
	} else {
		k = snprintf(buf, len, "%s:%lld", name, (long long)watts);
	}
	if (k < 0 || (size_t)k >= len) {
		buf[0] = '\0';
		*why = "its licenses are too long";
		return GP_ELIMIT;
	}
	return 1;
}
