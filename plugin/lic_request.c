/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lic_request.c - PowerLicenses (gpuplace.conf(5)): the racks' power as
 * one Slurm cluster license per rack (slurm.conf Licenses=, every
 * release; power/lic.c cites Slurm's sources).  Every GPU job gpuplace
 * does not pin is kept to one rack (its gprack_ feature) and asks for its
 * GPUs' watts over idle there; a PINned job asks each rack it spans for
 * its share.  Slurm then starts no job past a rack's count, backfill
 * included, and shows Reason=Licenses for a job that waits on one.
 * Fails open: without every rack's license in slurmctld, or when the
 * request cannot carry the terms, the job passes as before with one
 * verbose line.
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_submit_gpuplace.h"

/* ---- at load ----------------------------------------------------------------- */

/* The rack all nodes of a domain lie in: acc = -2 (none yet), then the
 * rack, then -1 once two racks (or a node in none) are seen. */
static void rack_acc(int32_t *acc, int32_t rack)
{
	if (*acc == -2)
		*acc = rack;
	else if (*acc != rack)
		*acc = -1;
}

static int dom_add(struct gp_conf *c, const char *prefix, const char *name, int32_t rack)
{
	struct lic_dom *d = &c->lic_dom[c->nlic_dom];

	if (gp__domain_feature(prefix, name, d->feat, sizeof(d->feat)))
		return -1;
	d->rack = rack;
	c->nlic_dom++;
	return 0;
}

/*
 * c->lic_nofeat[s] for every rack s: true unless every node of s, and no
 * other node, has s's gprack_ feature in the model's node features (as
 * Slurm's slurm.conf gives them; gp__domain_features_check).  The racks
 * that lack theirs are logged in one line.  0, or -1 out of memory.
 */
static int lic_features_check(struct gp_conf *c)
{
	const gp_cluster_t *cl = c->cluster;
	gp_domfeat_check_t chk;
	int32_t s, base = cl->nswitches + cl->nnvl, first;

	if (gp__domain_features_check(cl, &chk))
		return -1;
	for (s = 0; s < cl->nracks; s++)
		c->lic_nofeat[s] = !chk.ok[base + s];
	first = chk.first_missing[GP_DOMKIND_RACK];
	if (first >= 0)
		slurm_info("gpuplace: PowerLicenses=%s: the nodes of %d of %d racks lack their "
		           "gprack_ feature in slurm.conf (the nodes of rack %s lack its feature "
		           "gprack_%s; `gpuplace conf --what nodes` writes them): jobs kept to those "
		           "racks exclude the other racks' nodes instead, and are not moved by "
		           "steering", cl->site.power_lic, (int)chk.missing[GP_DOMKIND_RACK],
		           (int)cl->nracks, gp__domain_name_of(cl, first), gp__domain_name_of(cl, first));
	gp__domain_features_free(&chk);
	return 0;
}

static pthread_mutex_t lic_excl_lock = PTHREAD_MUTEX_INITIALIZER;

/* Every node but rack's, as a host list ("" none), made once per rack and
 * configuration on the first job that needs it; NULL out of memory. */
static const char *lic_excl_get(const struct gp_conf *c, int32_t rack)
{
	const gp_cluster_t *cl = c->cluster;
	const char *ex;

	pthread_mutex_lock(&lic_excl_lock);
	if (!c->lic_excl[rack]) {
		int32_t *out = malloc(((size_t)cl->nnodes + 1) * sizeof(*out)), nout = 0, i;

		if (out) {
			for (i = 0; i < cl->nnodes; i++)
				if (cl->nodes[i].rack != rack)
					out[nout++] = i;
			/* the configuration's own cache: allocated by this file,
			 * written only under lic_excl_lock */
			((struct gp_conf *)c)->lic_excl[rack] =
			        nout ? gp__nodes_ranged(cl, out, nout) : strdup("");
			free(out);
		}
	}
	ex = c->lic_excl[rack];
	pthread_mutex_unlock(&lic_excl_lock);
	return ex;
}

void lic_conf_load(struct gp_conf *c)
{
	const gp_cluster_t *cl = c->cluster;
	int32_t *sw = NULL, *nvl = NULL, i, s;
	gp_error_t e;

	if (!cl->site.power_lic[0])
		return;
	c->lic_name = calloc((size_t)cl->nracks + 1, sizeof(*c->lic_name));
	c->lic_count = calloc((size_t)cl->nracks + 1, sizeof(*c->lic_count));
	c->lic_gpu_w = calloc((size_t)cl->nracks + 1, sizeof(*c->lic_gpu_w));
	c->lic_dom = calloc((size_t)(cl->nswitches + cl->nnvl + cl->nracks) + 1,
	                    sizeof(*c->lic_dom));
	sw = malloc(((size_t)cl->nswitches + 1) * sizeof(*sw));
	nvl = malloc(((size_t)cl->nnvl + 1) * sizeof(*nvl));
	if (!c->lic_name || !c->lic_count || !c->lic_gpu_w || !c->lic_dom || !sw || !nvl) {
		slurm_error("gpuplace: PowerLicenses=%s: out of memory; GPU jobs get no rack "
		            "license", cl->site.power_lic);
		goto off;
	}
	if (cl->nracks == 0) {
		slurm_error("gpuplace: %s/gpuplace.conf: PowerLicenses=%s: the site has no racks "
		            "with PowerCapKW; GPU jobs get no rack license",
		            conf_dir_path(), cl->site.power_lic);
		goto off;
	}
	for (i = 0; i < cl->nracks; i++) {
		if (gp__lic_name(cl->site.power_lic, cl->racks[i].name, c->lic_name[i],
		                 sizeof(c->lic_name[i]), &e)) {
			slurm_error("gpuplace: %s/gpuplace.conf: PowerLicenses=%s: %s; GPU jobs get "
			            "no rack license", conf_dir_path(), cl->site.power_lic, e.text);
			goto off;
		}
		c->lic_count[i] = gp__hres_rack_count(cl, i);
	}
	/* a GPU's watts over idle in each rack: its most (a job of untyped
	 * GPUs asks for the dearest of its rack's, never less) */
	for (i = 0; i < cl->nnodes; i++) {
		int64_t w = gp__lic_gpu_watts(cl, i, 1);

		if (cl->nodes[i].rack >= 0 && w > c->lic_gpu_w[cl->nodes[i].rack])
			c->lic_gpu_w[cl->nodes[i].rack] = w;
	}
	/* each domain feature's rack (-1: several), for the alternatives of
	 * a CONSTRAIN (gp__node_domain_features names them the same) */
	for (s = 0; s < cl->nswitches; s++)
		sw[s] = -2;
	for (s = 0; s < cl->nnvl; s++)
		nvl[s] = -2;
	for (i = 0; i < cl->nnodes; i++) {
		for (s = cl->nodes[i].leaf; s >= 0; s = cl->switches[s].parent)
			rack_acc(&sw[s], cl->nodes[i].rack);
		if (cl->nodes[i].nvl_domain >= 0)
			rack_acc(&nvl[cl->nodes[i].nvl_domain], cl->nodes[i].rack);
	}
	for (s = 0; s < cl->nswitches; s++)
		if (sw[s] >= 0 && dom_add(c, GP_FEATURE_SWITCH, cl->switches[s].name, sw[s]))
			goto name;
	for (s = 0; s < cl->nnvl; s++)
		if (nvl[s] >= 0 && dom_add(c, GP_FEATURE_NVL, cl->nvl[s].name, nvl[s]))
			goto name;
	for (s = 0; s < cl->nracks; s++)
		if (dom_add(c, GP_FEATURE_RACK, cl->racks[s].name, s))
			goto name;
	/* does Slurm know each rack's gprack_ feature on exactly its nodes
	 * (slurm.conf as `gpuplace conf --what nodes` writes it)?  One pass
	 * over the nodes' features; where not, a job is kept to the rack by
	 * excluding every other node (lic_excl_get) */
	c->lic_excl = calloc((size_t)cl->nracks + 1, sizeof(*c->lic_excl));
	c->lic_nofeat = calloc((size_t)cl->nracks + 1, sizeof(*c->lic_nofeat));
	if (!c->lic_excl || !c->lic_nofeat || lic_features_check(c)) {
		slurm_error("gpuplace: PowerLicenses=%s: out of memory; GPU jobs get no rack "
		            "license", cl->site.power_lic);
		goto off;
	}
	free(sw);
	free(nvl);
	return;
name:
	slurm_error("gpuplace: PowerLicenses=%s: a domain's feature is too long; GPU jobs get "
	            "no rack license", cl->site.power_lic);
off:
	free(sw);
	free(nvl);
	lic_conf_free(c);
}

void lic_conf_free(struct gp_conf *c)
{
	int32_t k;

	for (k = 0; c->lic_excl && k < c->cluster->nracks; k++)
		free(c->lic_excl[k]);
	free(c->lic_excl);
	c->lic_excl = NULL;
	free(c->lic_nofeat);
	c->lic_nofeat = NULL;
	free(c->lic_name);
	free(c->lic_count);
	free(c->lic_gpu_w);
	free(c->lic_dom);
	c->lic_name = NULL;
	c->lic_count = NULL;
	c->lic_gpu_w = NULL;
	c->lic_dom = NULL;
	c->nlic_dom = 0;
}

/* ---- on the plugin's thread -------------------------------------------------- */

bool lic_read(const struct gp_conf *c, int64_t *free_w, char *err, size_t len)
{
	const gp_cluster_t *cl = c->cluster;
	license_info_msg_t *m = NULL;
	int32_t r, missing = -1;
	uint32_t i;

	if (slurm_load_licenses(0, &m, 0) != SLURM_SUCCESS || !m) {
		snprintf(err, len, "cannot read slurmctld's licenses: %s",
		         slurm_strerror(gp_slurm_errno()));
		return false;
	}
	for (r = 0; r < cl->nracks; r++) {
		bool found = false;

		for (i = 0; i < m->num_lic && !found; i++) {
			const slurm_license_info_t *l = &m->lic_array[i];

			if (l->name && !strcmp(l->name, c->lic_name[r])) {
				found = true;
				free_w[r] = (int64_t)l->total - (int64_t)l->in_use;
			}
		}
		if (!found && missing < 0)
			missing = r;
	}
	slurm_free_license_info_msg(m);
	if (missing >= 0) {
		snprintf(err, len, "slurmctld has no license '%s' (slurm.conf Licenses= without "
		         "the line `gpuplace conf --what licenses` writes: add it, then restart "
		         "slurmctld)", c->lic_name[missing]);
		return false;
	}
	return true;
}

/* ---- at submission ----------------------------------------------------------- */

/* Can job j carry a rack license now?  Says why not (verbose) when not,
 * unless label is NULL. */
static bool lic_active(const job_desc_msg_t *j, const struct gp_conf *c, const struct gp_snap *sn,
                       const gp_request_t *r, const char *label)
{
	if (!c->lic_name || r->gpus <= 0 || !job_asks_gpus(j))
		return false;
	if (!label)
		return sn && sn->conf == c && sn->lic && !j->tres_per_socket && !j->tres_per_task;
	if (!sn || sn->conf != c || !sn->lic) {
		slurm_verbose("gpuplace: %s: no rack license: slurmctld has not been seen to have "
		              "the %s_ licenses", label, c->cluster->site.power_lic);
		return false;
	}
	if (j->tres_per_socket || j->tres_per_task) {
		slurm_verbose("gpuplace: %s: no rack license: GPUs per socket or per task leave "
		              "its GPUs unknown", label);
		return false;
	}
	return true;
}

bool lic_on(const job_desc_msg_t *j, const struct gp_conf *c, const struct gp_snap *sn,
            const gp_request_t *r)
{
	return c && lic_active(j, c, sn, r, NULL);
}

/* The default partition's index, -1 when none is marked. */
static int32_t default_part(const gp_cluster_t *cl)
{
	int32_t q;

	for (q = 0; q < cl->nparts; q++)
		if (cl->parts[q].is_default)
			return q;
	return -1;
}

int32_t lic_pick(const struct gp_conf *c, const struct gp_snap *sn, const job_desc_msg_t *j,
                 const gp_request_t *r, const char *type, int32_t picked, int64_t *count,
                 const char *label)
{
	const gp_cluster_t *cl = c->cluster;
	const uint32_t bad = GP_NODE_DOWN | GP_NODE_DRAIN | GP_NODE_RESERVED;
	const gp_rack_view_t *rv = ledger_racks(sn->racks);
	int32_t nodes = gp__request_nodes(r), per, q, i, k;
	bool *inpart = NULL;
	int32_t *free_nodes = NULL, *free_gpus = NULL, *cap_nodes = NULL, *cap_gpus = NULL;
	double *room = NULL;
	bool *fits = NULL, *can = NULL;
	uint8_t *lists = NULL;
	gp_constraint_t *own = NULL;
	const gp_constraint_t *kc = r->constraint;
	int32_t rack = -1;
	gp_error_t err;

	*count = 0;
	if (!lic_active(j, c, sn, r, label))
		return -1;
	if (j->features && strpbrk(j->features, "|[(*")) {
		slurm_verbose("gpuplace: %s: no rack license: its constraint has an OR, brackets, "
		              "parentheses or counts, which a rack's feature cannot be AND-ed to",
		              label);
		return -1;
	}
	if (j->reservation && *j->reservation) {
		/* the reservation's nodes may lie in one rack only: the job
		 * is not kept to another */
		slurm_verbose("gpuplace: %s: no rack license: it runs in reservation %s", label,
		              j->reservation);
		return -1;
	}
	/* the request of a job gpuplace passes early may not hold its
	 * constraint: read here, so the rack has nodes it takes */
	if (!kc && j->features && *j->features) {
		if (gp__constraint_parse(j->features, &own, &err)) {
			slurm_verbose("gpuplace: %s: no rack license: its constraint: %s", label,
			              err.text);
			return -1;
		}
		kc = own;
	}
	if (nodes <= 0 && r->min_nodes > 0 && r->min_nodes == r->max_nodes)
		nodes = r->min_nodes;
	/* GPUs per node: given, or from a fixed node count, else unknown (the
	 * rack must then hold its GPUs in all) */
	per = r->gpus_per_node > 0 ? r->gpus_per_node
	      : nodes > 0          ? (r->gpus + nodes - 1) / nodes
	                           : 0;
	/* the job's partitions: the request of a job gpuplace passes early
	 * may not hold them (one GPU, several partitions), so read here;
	 * none given: the default */
	inpart = calloc((size_t)cl->nparts + 1, sizeof(*inpart));
	if (!inpart) {
		slurm_verbose("gpuplace: %s: no rack license: out of memory", label);
		goto out;
	}
	if (j->partition && *j->partition) {
		const char *p = j->partition;

		while (*p) {
			size_t n = strcspn(p, ",");

			for (q = 0; q < cl->nparts; q++)
				if (strlen(cl->parts[q].name) == n && !strncmp(cl->parts[q].name, p, n))
					break;
			if (q == cl->nparts) {
				slurm_verbose("gpuplace: %s: no rack license: partition '%.*s' is not in "
				              "the model", label, (int)(n < 64 ? n : 64), p);
				goto out;
			}
			inpart[q] = true;
			p += n;
			if (*p)
				p++;
		}
	} else if ((q = default_part(cl)) >= 0) {
		inpart[q] = true;
	} else {
		for (q = 0; q < cl->nparts; q++)
			inpart[q] = true; /* no default marked: Slurm's own choice, unknown */
	}
	free_nodes = calloc((size_t)cl->nracks + 1, sizeof(*free_nodes));
	free_gpus = calloc((size_t)cl->nracks + 1, sizeof(*free_gpus));
	cap_nodes = calloc((size_t)cl->nracks + 1, sizeof(*cap_nodes));
	cap_gpus = calloc((size_t)cl->nracks + 1, sizeof(*cap_gpus));
	room = calloc((size_t)cl->nracks + 1, sizeof(*room));
	fits = calloc((size_t)cl->nracks + 1, sizeof(*fits));
	can = calloc((size_t)cl->nracks + 1, sizeof(*can));
	/* the job's node lists as a map: linear in them, not their product
	 * with the nodes */
	if (r->nrequired > 0 || r->nexcluded > 0)
		lists = gp__node_marks(cl->nnodes, r->required, r->nrequired, r->excluded,
		                       r->nexcluded);
	if (!free_nodes || !free_gpus || !cap_nodes || !cap_gpus || !room || !fits || !can ||
	    (!lists && (r->nrequired > 0 || r->nexcluded > 0))) {
		slurm_verbose("gpuplace: %s: no rack license: out of memory", label);
		goto out;
	}
	for (i = 0; i < cl->nnodes; i++) {
		const gp_node_t *nd = &cl->nodes[i];
		int32_t have = nd->ngpus, fr;
		bool all;

		/* a node down now still counts for what a rack could hold: it
		 * may come back before the job starts */
		if (nd->rack < 0 || have <= 0)
			continue;
		for (q = 0; q < cl->nparts && !(inpart[q] && gp__node_in_part(cl, i, q)); q++)
			;
		if ((cl->nparts > 0 && q == cl->nparts) ||
		    (r->nrequired && !(lists[i] & GP_MARK_A)) || (lists && (lists[i] & GP_MARK_B)))
			continue;
		if (kc && !gp__constraint_eval(kc, gp__constraint_node_mask(kc, nd->features), 0))
			continue;
		if (type && *type && (have = gp__node_type_gpus(cl, i, type, &all)) <= 0)
			continue;
		fr = gp__popcount(node_full(i) & ~dec.cur.work->alloc_mask[i]);
		if (fr > have)
			fr = have;
		if (r->exclusive && dec.cur.work->alloc_mask[i])
			fr = 0;
		if (dec.cur.work->node_flags[i] & bad)
			fr = 0;
		if (per <= 0 || have >= per) {
			cap_nodes[nd->rack]++;
			cap_gpus[nd->rack] += have;
		}
		if (per <= 0 || fr >= per) {
			free_nodes[nd->rack] += fr > 0;
			free_gpus[nd->rack] += fr;
		}
	}
	*count = 0;
	for (k = 0; k < cl->nracks; k++) {
		int64_t need = (int64_t)ceil((double)r->gpus * (double)c->lic_gpu_w[k] - 1e-9);
		double lic_room = (double)sn->lic_free[k];

		/* never more than the rack's count: Slurm refuses such a job */
		bool holds = need > 0 && need <= c->lic_count[k] &&
		             (per > 0 ? cap_nodes[k] >= (nodes > 0 ? nodes : 1) : cap_gpus[k] >= r->gpus);

		/* room: headroom less what the ledger booked, and the license's
		 * own free count as slurmctld last showed it */
		room[k] = rv ? rv[k].headroom_w : INFINITY;
		if (lic_room < room[k])
			room[k] = lic_room;
		can[k] = holds;
		fits[k] = holds && (per > 0 ? free_nodes[k] >= (nodes > 0 ? nodes : 1)
		                            : free_gpus[k] >= r->gpus);
	}
	/* a rack with free GPUs; else one that could hold it at all, where it
	 * waits (the steering pass moves it when another has room) */
	rack = gp__lic_choose_rack(cl->nracks, room, fits, picked);
	if (rack < 0)
		rack = gp__lic_choose_rack(cl->nracks, room, can, picked);
	if (rack < 0)
		slurm_verbose("gpuplace: %s: no rack license: no rack can hold its %d GPUs within its "
		              "%s_ count", label, (int)r->gpus, cl->site.power_lic);
	else
		*count = (int64_t)ceil((double)r->gpus * (double)c->lic_gpu_w[rack] - 1e-9);
out:
	free(inpart);
	free(lists);
	gp__constraint_destroy(own);
	free(free_nodes);
	free(free_gpus);
	free(cap_nodes);
	free(cap_gpus);
	free(room);
	free(fits);
	free(can);
	return rack;
}

/* Replace j->licenses by the user's with names[0..n-1]:counts[] added.
 * True when done. */
static bool set_licenses(job_desc_msg_t *j, const struct gp_conf *c, const char *const *names,
                         const int64_t *counts, int32_t n, const char *label)
{
	size_t len = (j->licenses ? strlen(j->licenses) : 0) + (size_t)n * (GP_NAME_MAX + 24) + 8;
	const char *why = "";
	char *buf = malloc(len);
	int rc;

	int32_t k;

	if (!buf) {
		slurm_verbose("gpuplace: %s: no rack license: out of memory", label);
		return false;
	}
	/* a user who names any rack's license asks for the budget already */
	for (k = 0; j->licenses && k < c->cluster->nracks; k++)
		if (gp__licenses_name_in(j->licenses, c->lic_name[k])) {
			slurm_verbose("gpuplace: %s: no rack license: it asks for a rack's power "
			              "license itself (%s)", label, c->lic_name[k]);
			free(buf);
			return false;
		}
	rc = gp__lic_licenses(j->licenses, names, counts, n, NULL, 0, buf, len, &why);
	if (rc == 1) {
		slurm_xfree((void **)&j->licenses);
		j->licenses = slurm_xstrdup(buf);
	} else {
		slurm_verbose("gpuplace: %s: no rack license: %s", label,
		              *why ? why : gp_strerror(rc));
	}
	free(buf);
	return rc == 1;
}

bool lic_keep(job_desc_msg_t *j, const struct gp_conf *c, int32_t rack, int64_t count,
              bool feature, const char *label)
{
	const gp_cluster_t *cl = c->cluster;
	const char *name = c->lic_name[rack];
	bool excl = feature && c->lic_nofeat[rack];
	char feat[GP_NAME_MAX + 16], **field = excl ? &j->exc_nodes : &j->features, *nv = NULL;

	if (gp__domain_feature(GP_FEATURE_RACK, cl->racks[rack].name, feat, sizeof(feat)))
		return false;
	if (excl) {
		/* Slurm does not know the rack's feature: every other node
		 * excluded instead (the user's exclusions kept) */
		const char *all = lic_excl_get(c, rack);

		if (!all) {
			slurm_verbose("gpuplace: %s: no rack license: out of memory", label);
			return false;
		}
		if (*all)
			nv = *field && **field ? slurm_xstrdup_printf("%s,%s", *field, all)
			                       : slurm_xstrdup(all);
	} else if (feature) {
		/* the feature first: a license without it could be taken in
		 * another rack; lic_pick left out constraints it cannot be
		 * AND-ed to */
		if (*field && strlen(feat) + 1 + strlen(*field) > GP_SLURM_FEATURES_MAX) {
			slurm_verbose("gpuplace: %s: no rack license: with rack %s's feature its "
			              "constraint would be longer than the %d characters Slurm takes",
			              label, cl->racks[rack].name, GP_SLURM_FEATURES_MAX);
			return false;
		}
		nv = *field && **field ? slurm_xstrdup_printf("%s&%s", feat, *field)
		                       : slurm_xstrdup(feat);
	}
	if (!set_licenses(j, c, &name, &count, 1, label)) {
		slurm_xfree((void **)&nv);
		return false;
	}
	if (nv) {
		slurm_xfree((void **)field);
		*field = nv;
	}
	slurm_verbose("gpuplace: %s kept to rack %s: %s %s, licenses %s", label,
	              cl->racks[rack].name, excl ? "excluded" : "features",
	              *field ? *field : "(none)", j->licenses);
	return true;
}

bool lic_set(job_desc_msg_t *j, const struct gp_conf *c, const gp_scored_t *set,
             const struct gp_snap *sn, const gp_request_t *r, const char *label)
{
	const gp_cluster_t *cl = c->cluster;
	const char **names = NULL;
	int64_t *counts = NULL, *per_rack = NULL;
	int32_t i, n = 0;
	bool ok = false;

	if (!lic_active(j, c, sn, r, label) || !set || set->nnodes <= 0)
		return false;
	per_rack = calloc((size_t)cl->nracks + 1, sizeof(*per_rack));
	names = calloc((size_t)cl->nracks + 1, sizeof(*names));
	counts = calloc((size_t)cl->nracks + 1, sizeof(*counts));
	if (!per_rack || !names || !counts)
		goto out;
	for (i = 0; i < set->nnodes; i++) {
		int32_t nd = set->nodes[i], rk = cl->nodes[nd].rack;

		if (rk >= 0)
			per_rack[rk] += gp__lic_gpu_watts(cl, nd, gp__popcount(set->gpu_mask[i]));
	}
	for (i = 0; i < cl->nracks; i++)
		if (per_rack[i] > 0) {
			if (per_rack[i] > c->lic_count[i]) {
				slurm_verbose("gpuplace: %s: no rack license: its %lld W in rack %s are "
				              "more than the rack's %lld", label, (long long)per_rack[i],
				              cl->racks[i].name, (long long)c->lic_count[i]);
				goto out;
			}
			names[n] = c->lic_name[i];
			counts[n++] = per_rack[i];
		}
	if (n > 0 && (ok = set_licenses(j, c, names, counts, n, label)))
		slurm_verbose("gpuplace: %s: licenses %s", label, j->licenses);
out:
	free(per_rack);
	free(names);
	free(counts);
	return ok;
}

/* The rack all of set's nodes lie in, -1 when several or none. */
static int32_t set_rack(const gp_cluster_t *cl, const gp_scored_t *set)
{
	int32_t acc = -2, i;

	for (i = 0; set && i < set->nnodes; i++)
		rack_acc(&acc, cl->nodes[set->nodes[i]].rack);
	return acc >= 0 ? acc : -1;
}

int lic_constrain(const struct gp_conf *c, const struct gp_snap *sn, const job_desc_msg_t *j,
                  const gp_request_t *r, const gp_decision_t *d, struct outcome *o,
                  char *features, size_t flen, int32_t *rack, int64_t *count, const char *label)
{
	const gp_cluster_t *cl = c->cluster;
	const char *p;
	size_t used = 0;
	int32_t rk, kept = 0;

	*rack = -1;
	*count = 0;
	if (!lic_active(j, c, sn, r, label))
		return 0;
	rk = d->ncands > 0 ? set_rack(cl, &d->cands[0]) : -1;
	if (rk < 0) {
		/* gp_outcome PINs such a job where it can (outcome.h one_rack) */
		slurm_verbose("gpuplace: %s: CONSTRAINed across racks, no rack license (its set "
		              "could not be pinned%s%s): Slurm may start it in a rack without room",
		              label, *o->unpinned ? ": " : "", o->unpinned);
		return 0;
	}
	*count = (int64_t)ceil((double)r->gpus * (double)c->lic_gpu_w[rk] - 1e-9);
	if (*count <= 0 || *count > c->lic_count[rk]) {
		slurm_verbose("gpuplace: %s: no rack license: %lld W is more than rack %s's %lld",
		              label, (long long)*count, cl->racks[rk].name,
		              (long long)c->lic_count[rk]);
		return 0;
	}
	if (o->switches || !o->features || !*o->features) {
		/* the rack's feature goes with the license (lic_keep) */
		if (j->features && strpbrk(j->features, "|[(*")) {
			slurm_verbose("gpuplace: %s: no rack license: its constraint has an OR, "
			              "brackets, parentheses or counts, which a rack's feature cannot "
			              "be AND-ed to", label);
			return 0;
		}
		*rack = rk;
		return 1;
	}
	*rack = rk;
	p = o->features;
	if (!strpbrk(p, "[]|&()*,")) {
		/* one domain's feature (a PIN made a CONSTRAIN of the set's
		 * domain): kept, with the license, when that domain lies in
		 * the rack */
		int32_t k;

		for (k = 0; k < c->nlic_dom && strcmp(c->lic_dom[k].feat, p); k++)
			;
		if (k < c->nlic_dom && c->lic_dom[k].rack == rk && strlen(p) < flen) {
			snprintf(features, flen, "%s", p);
			o->features = features;
			return 2;
		}
		*rack = -1;
		slurm_verbose("gpuplace: %s: no rack license: its domain %s does not lie in rack %s",
		              label, p, cl->racks[rk].name);
		return 0;
	}
	/* "[a|b|c]": the alternatives inside the rack stay */
	if (*p != '[' || p[strlen(p) - 1] != ']') {
		*rack = -1;
		slurm_verbose("gpuplace: %s: no rack license: its constraint %s is not one "
		              "matching-OR group", label, o->features);
		return 0;
	}
	features[0] = '\0';
	for (p = o->features + 1; *p && *p != ']';) {
		size_t n = strcspn(p, "|]");
		int32_t k;

		for (k = 0; k < c->nlic_dom; k++)
			if (strlen(c->lic_dom[k].feat) == n && !strncmp(c->lic_dom[k].feat, p, n))
				break;
		if (k < c->nlic_dom && c->lic_dom[k].rack == rk && used + n + 3 < flen) {
			used += (size_t)snprintf(features + used, flen - used, "%s%.*s",
			                         kept ? "|" : "[", (int)n, p);
			kept++;
		}
		p += n;
		if (*p == '|')
			p++;
	}
	if (!kept) {
		*rack = -1;
		slurm_verbose("gpuplace: %s: CONSTRAINed to domains none of which lies in one rack, "
		              "no rack license: Slurm may start it in a rack without room", label);
		return 0;
	}
	snprintf(features + used, flen - used, "]");
	o->features = features;
	return 2;
}

/* ---- steering: a job waiting on a full rack moves to one with room ------------ */

/* The rack whose gprack_ feature begins features (up to '&' or its end),
 * -1 when none: the jobs lic_keep kept to a rack. */
static int32_t kept_rack(const struct gp_conf *c, const char *features, size_t *flen)
{
	size_t n;
	int32_t k;

	if (!features || strncmp(features, GP_FEATURE_RACK, strlen(GP_FEATURE_RACK)))
		return -1;
	n = strcspn(features, "&");
	*flen = n;
	for (k = 0; k < c->nlic_dom; k++)
		if (!strncmp(c->lic_dom[k].feat, GP_FEATURE_RACK, strlen(GP_FEATURE_RACK)) &&
		    strlen(c->lic_dom[k].feat) == n && !strncmp(c->lic_dom[k].feat, features, n))
			return c->lic_dom[k].rack;
	return -1;
}

/* The count of license name in lic ("NAME:COUNT" or "NAME=COUNT"; a bare
 * NAME is 1), -1 when lic does not name it. */
static int64_t lic_term(const char *lic, const char *name)
{
	size_t n = strlen(name);
	const char *p = lic;
	long v;

	while (p && *p) {
		const char *end = p + strcspn(p, ",;");

		if ((size_t)(end - p) >= n && !strncmp(p, name, n)) {
			if (p + n == end)
				return 1;
			if (p[n] == ':' || p[n] == '=') {
				char num[24];
				size_t k = (size_t)(end - p) - n - 1;

				if (k == 0 || k >= sizeof(num))
					return -1;
				memcpy(num, p + n + 1, k);
				num[k] = '\0';
				return gp__parse_long(num, 0, INT32_MAX, &v) == 0 ? v : -1;
			}
		}
		p = *end ? end + 1 : end;
	}
	return -1;
}

int lic_steer(const struct gp_conf *c, struct gp_snap *sn, const job_info_msg_t *jobs,
              int budget)
{
	const gp_cluster_t *cl = c->cluster;
	const uint32_t bad = GP_NODE_DOWN | GP_NODE_DRAIN | GP_NODE_RESERVED;
	const char **drop = NULL;
	int64_t *lfree = NULL;
	double *room = NULL;
	bool *fits = NULL;
	int32_t *freeg = NULL;
	uint32_t i;
	int moved = 0;

	if (!c->lic_name || !sn->lic || budget <= 0 || !jobs)
		return 0;
	lfree = malloc(((size_t)cl->nracks + 1) * sizeof(*lfree));
	room = malloc(((size_t)cl->nracks + 1) * sizeof(*room));
	fits = malloc(((size_t)cl->nracks + 1) * sizeof(*fits));
	drop = malloc(((size_t)cl->nracks + 1) * sizeof(*drop));
	freeg = malloc(((size_t)cl->nnodes + 1) * sizeof(*freeg));
	if (!lfree || !room || !fits || !drop || !freeg)
		goto out;
	memcpy(lfree, sn->lic_free, (size_t)cl->nracks * sizeof(*lfree));
	for (i = 0; i < (uint32_t)cl->nracks; i++)
		drop[i] = c->lic_name[i];
	/* free GPUs per node as the ledger sees them (jobs gpuplace let
	 * through count as started) */
	pthread_mutex_lock(&dec.lock);
	if (dec.cur.conf != c) {
		pthread_mutex_unlock(&dec.lock);
		goto out;
	}
	prepare_work(sn, NULL);
	for (i = 0; i < (uint32_t)cl->nnodes; i++)
		freeg[i] = (dec.cur.work->node_flags[i] & bad)
		               ? 0
		               : gp__popcount(node_full(i) & ~dec.cur.work->alloc_mask[i]);
	{
		const gp_rack_view_t *rv = ledger_racks(sn->racks);
		int32_t k;

		for (k = 0; k < cl->nracks; k++)
			room[k] = rv ? rv[k].headroom_w : INFINITY;
	}
	dec.cur.work->jobs = NULL; /* borrowed from the snapshot */
	dec.cur.work->njobs = 0;
	pthread_mutex_unlock(&dec.lock);
	for (i = 0; i < jobs->record_count && moved < budget; i++) {
		const slurm_job_info_t *ji = &jobs->job_array[i];
		int32_t from, to, k, nodes, q = -1, n, *exc = NULL, nexc = 0, pick = -1;
		uint8_t *excm = NULL;
		gp_constraint_t *kc;
		char type[GP_NAME_MAX], *feat = NULL, *lic = NULL;
		const char *why = "";
		int64_t cnt, want = 0;
		long g = 0;
		size_t flen = 0, blen;
		job_desc_msg_t u;
		int rc;
		gp_error_t err;

		if ((ji->job_state & JOB_STATE_BASE) != JOB_PENDING ||
		    (from = kept_rack(c, ji->features, &flen)) < 0 ||
		    (cnt = lic_term(ji->licenses, c->lic_name[from])) <= 0 ||
		    (ji->req_nodes && *ji->req_nodes) || (ji->resv_name && *ji->resv_name))
			continue;
		nodes = ji->num_nodes > 0 && ji->num_nodes != NO_VAL ? (int32_t)ji->num_nodes : 1;
		if (gp_tres_gpu_request(ji->tres_per_node, &g, type, sizeof(type)) == 1 && g > 0) {
			/* g per node */
		} else if (nodes == 1 &&
		           gp_tres_gpu_request(ji->tres_per_job, &g, type, sizeof(type)) == 1 && g > 0) {
			/* one node: all its GPUs there */
		} else {
			continue;
		}
		/* room where it waits: the license free and a node with its GPUs */
		n = 0;
		for (k = 0; k < cl->racks[from].nnodes; k++)
			n += freeg[cl->racks[from].nodes[k]] >= g;
		if (cnt <= lfree[from] && n >= nodes)
			continue;
		if (ji->partition && !strchr(ji->partition, ',')) {
			for (q = 0; q < cl->nparts && strcmp(cl->parts[q].name, ji->partition); q++)
				;
			if (q == cl->nparts)
				continue;
		} else if (ji->partition) {
			continue; /* several partitions: left where it is */
		}
		if (ji->exc_nodes && *ji->exc_nodes &&
		    gp__hostlist_nodes(cl, "ExcNodeList", ji->exc_nodes, cl->nnodes, &exc, &nexc, &err))
			continue;
		/* as a map: linear in the list, not its product with the nodes */
		if (nexc > 0) {
			excm = gp__node_marks(cl->nnodes, NULL, 0, exc, nexc);
			free(exc);
			exc = NULL;
			if (!excm)
				continue;
		}
		/* the user's own constraint after the rack's feature: the new
		 * rack's nodes must meet it too */
		kc = NULL;
		if (ji->features[flen] == '&' &&
		    gp__constraint_parse(ji->features + flen + 1, &kc, &err)) {
			free(excm);
			continue;
		}
		for (k = 0; k < cl->nracks; k++) {
			int32_t m, ok = 0;

			want = (int64_t)ceil((double)g * nodes * (double)c->lic_gpu_w[k] - 1e-9);
			fits[k] = false;
			if (k == from || want <= 0 || want > lfree[k] || want > room[k])
				continue;
			for (m = 0; m < cl->racks[k].nnodes; m++) {
				int32_t nd = cl->racks[k].nodes[m];
				bool all;

				if (freeg[nd] < g || (q >= 0 && !gp__node_in_part(cl, nd, q)) ||
				    (excm && excm[nd]) ||
				    (kc && !gp__constraint_eval(kc, gp__constraint_node_mask(
				                                        kc, cl->nodes[nd].features), 0)) ||
				    (*type && gp__node_type_gpus(cl, nd, type, &all) < g))
					continue;
				ok++;
			}
			fits[k] = ok >= nodes;
		}
		free(excm);
		gp__constraint_destroy(kc);
		for (k = 0; k < cl->nracks; k++)
			room[k] = room[k] < (double)lfree[k] ? room[k] : (double)lfree[k];
		to = gp__lic_choose_rack(cl->nracks, room, fits, -1);
		if (to < 0)
			continue;
		want = (int64_t)ceil((double)g * nodes * (double)c->lic_gpu_w[to] - 1e-9);
		/* the same request, kept to the other rack */
		{
			const char *nm = c->lic_name[to];
			char f2[GP_NAME_MAX + 16];

			if (gp__domain_feature(GP_FEATURE_RACK, cl->racks[to].name, f2, sizeof(f2)))
				continue;
			feat = malloc(strlen(f2) + strlen(ji->features) + 1);
			blen = (ji->licenses ? strlen(ji->licenses) : 0) + GP_NAME_MAX + 32;
			lic = malloc(blen);
			if (!feat || !lic ||
			    gp__lic_licenses(ji->licenses, &nm, &want, 1, drop, cl->nracks, lic, blen,
			                     &why) != 1) {
				free(feat);
				free(lic);
				continue;
			}
			snprintf(feat, strlen(f2) + strlen(ji->features) + 1, "%s%s", f2,
			         ji->features + flen);
		}
		slurm_init_job_desc_msg(&u);
		GP_JOB_DESC_ID(&u) = ji->job_id;
		u.features = feat;
		u.licenses = lic;
		steer_set_updating(ji->job_id); /* its own move: job_modify keeps
		                                 * what the user asked */
		rc = slurm_update_job(&u);
		steer_set_updating(0);
		if (rc == SLURM_SUCCESS) {
			slurm_verbose("gpuplace: job %u moved from rack %s (no room) to rack %s: "
			              "features %s, licenses %s", ji->job_id, cl->racks[from].name,
			              cl->racks[to].name, feat, lic);
			count_steered();
			lfree[to] -= want;
			/* its GPUs taken on the first nodes that had them */
			for (k = 0, pick = 0; k < cl->racks[to].nnodes && pick < nodes; k++)
				if (freeg[cl->racks[to].nodes[k]] >= g) {
					freeg[cl->racks[to].nodes[k]] -= (int32_t)g;
					pick++;
				}
			moved++;
		} else {
			slurm_verbose("gpuplace: job %u not moved to rack %s: %s", ji->job_id,
			              cl->racks[to].name, slurm_strerror(gp_slurm_errno()));
		}
		free(feat);
		free(lic);
	}
out:
	free(lfree);
	free(room);
	free(fits);
	free(drop);
	free(freeg);
	return moved;
}
