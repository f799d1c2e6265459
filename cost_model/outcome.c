/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outcome.c - see outcome.h.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "outcome.h"
#include "power.h"
#include "steer_rules.h"

gp_slurm_topo_t gp_outcome_topology(const gp_cluster_t *c, const gp_request_t *r,
                                    gp_slurm_topo_t site)
{
	int32_t q, i;
	bool multi = false;

	if (!c || !r)
		return site;
	q = gp__request_partition(r, c);
	if (q < 0 || q >= c->nparts)
		return site;
	for (i = 0; i < c->nparts && !multi; i++)
		multi = c->parts[i].no_blocks;
	if (!multi)
		return site; /* one topology places every partition */
	if (gp__part_blocks(c, q))
		return GP_SLURM_TOPO_BLOCK;
	return c->root >= 0 && !c->parts[q].slurm_only ? GP_SLURM_TOPO_TREE : GP_SLURM_TOPO_FLAT;
}

bool gp_outcome_may_pin(const gp_outcome_in_t *in, char *why, size_t len)
{
	if (in->state_age_s > GP_OUTCOME_PIN_FRESH_S) {
		snprintf(why, len, "cluster state %lld s old", (long long)in->state_age_s);
		return false;
	}
	if (in->unconfirmed > 0) {
		/* where Slurm put them is a guess until the next reading */
		snprintf(why, len, "%d GPU job%s passed since the state was read", in->unconfirmed,
		         in->unconfirmed == 1 ? "" : "s");
		return false;
	}
	return true;
}

/* gp_outcome_pin_exact() less the facts of the plugin's state (its age,
 * the passes it has not seen started): can Slurm be told set at all? */
static int pin_shape(const gp_outcome_in_t *in, const gp_scored_t *set, int32_t *per_node,
                     char *why, size_t len)
{
	const gp_request_t *r = in->r;
	int32_t n = set->nnodes, per = gp__popcount(set->gpu_mask[0]), i;
	bool even = true;

	*per_node = 0;
	if (in->segment && n > (int32_t)in->segment && !in->segment_multi_ok) {
		snprintf(why, len, "this Slurm takes no required nodes with several --segment segments");
		return 0;
	}
	if (in->check_block && in->c &&
	    gp__part_blocks(in->c, r ? gp__request_partition(r, in->c) : -1) &&
	    !gp__block_pin_ok(in->c, set->nodes, n, (int32_t)in->segment)) {
		/* Slurm would refuse the job outright, not only wait */
		snprintf(why, len, "topology/block takes no required nodes outside one block of "
		         "the job's size");
		return 0;
	}
	for (i = 1; i < n; i++)
		if (gp__popcount(set->gpu_mask[i]) != per)
			even = false;
	if (r && (r->min_nodes > n || (r->max_nodes && r->max_nodes < n))) {
		snprintf(why, len, "the job asks for %d-%d nodes", r->min_nodes, r->max_nodes);
		return 0;
	}
	if (in->tasks > 0 && (in->tasks < n || (in->tasks_per_node > 0 &&
	                                        (int64_t)in->tasks_per_node * n < in->tasks))) {
		snprintf(why, len, "%lld tasks do not fit %d nodes", (long long)in->tasks, n);
		return 0;
	}
	if (r && r->gpus_per_node > 0) {
		if (!even || per != r->gpus_per_node) {
			snprintf(why, len, "the set's GPUs per node differ from --gpus-per-node=%d",
			         r->gpus_per_node);
			return 0;
		}
		return 1;
	}
	if (n == 1)
		return 1; /* one node holds all of the job's GPUs */
	if (!even) {
		snprintf(why, len, "uneven GPUs per node, which Slurm cannot be told");
		return 0;
	}
	if (!in->per_node_ok) {
		snprintf(why, len, "the GPU request %.100s cannot be given per node",
		         in->gpu_request ? in->gpu_request : "");
		return 0;
	}
	*per_node = per;
	return 1;
}

int gp_outcome_pin_exact(const gp_outcome_in_t *in, const gp_scored_t *set, int32_t *per_node,
                         char *why, size_t len)
{
	*per_node = 0;
	if (!gp_outcome_may_pin(in, why, len))
		return 0;
	return pin_shape(in, set, per_node, why, len);
}

void gp_outcome_domain(const gp_cluster_t *c, const gp_scored_t *set, char *buf, size_t len)
{
	buf[0] = '\0';
	if (set->kind == GP_DOM_NVL && set->domain >= 0)
		gp__domain_feature(GP_FEATURE_NVL, c->nvl[set->domain].name, buf, len);
	else if (set->kind == GP_DOM_SWITCH && set->domain >= 0 &&
	         c->switches[set->domain].parent >= 0)
		gp__domain_feature(GP_FEATURE_SWITCH, c->switches[set->domain].name, buf, len);
}

/* The PIN of in->d cannot be made: keep the job in the set's domain. */
static void unpin(const gp_outcome_in_t *in, gp_outcome_t *out)
{
	out->action = GP_ACT_CONSTRAIN;
	out->kind = GP_DECIDE_CONSTRAIN;
	out->per_node = 0;
	gp_outcome_domain(in->c, &in->d->cands[0], out->features, sizeof(out->features));
}

/*
 * Can a job on set be kept to one rack's license (PowerLicenses): all its
 * nodes in one rack, and its GPUs at that rack's dearest GPU's watts over
 * idle within the rack's count (the terms plugin/lic_request.c asks
 * for: lic_constrain, lic_conf_load)?  Also true when the job's GPUs draw
 * nothing over idle by the model (no rack's license would count them).
 * False with why saying why not.
 */
static bool one_rack_holds(const gp_cluster_t *c, const gp_request_t *r, const gp_scored_t *set,
                           char *why, size_t len)
{
	int32_t rack = -2, i, gpus = r && r->gpus > 0 ? r->gpus : set->ngpus;
	int64_t w = 0, need, count;

	for (i = 0; i < set->nnodes; i++) {
		int32_t n = set->nodes[i];
		int32_t rk = n >= 0 && n < c->nnodes ? c->nodes[n].rack : -1;

		rack = rack == -2 || rack == rk ? rk : -1;
	}
	if (rack < 0 || rack >= c->nracks) {
		snprintf(why, len, "its set spans racks, which no one rack's license covers");
		return false;
	}
	for (i = 0; i < c->nnodes; i++)
		if (c->nodes[i].rack == rack) {
			int64_t g = gp__lic_gpu_watts(c, i, 1);

			w = g > w ? g : w;
		}
	need = (int64_t)ceil((double)gpus * (double)w - 1e-9);
	count = gp__hres_rack_count(c, rack);
	if (need > count) {
		if (snprintf(why, len, "its %d GPUs' %lld W pass rack %.64s's license count of "
		             "%lld W", (int)gpus, (long long)need, c->racks[rack].name,
		             (long long)count) >= (int)len)
			why[len - 1] = '\0'; /* cut: a message */
		return false;
	}
	return true;
}

/* PowerLicenses (in->one_rack): a CONSTRAIN that cannot be kept to one
 * rack's license becomes a PIN of the decision's set, which asks each
 * rack it spans for its share (plugin/lic_request.c lic_set), whatever
 * the age of the plugin's state: a PIN on a set a passed job took waits
 * until the steering pass moves it, where a CONSTRAIN without a license
 * could start past a rack's count.  Left as it is when the set cannot be
 * told to Slurm or cannot be booked (unpinned says why). */
static void rack_pin(const gp_outcome_in_t *in, gp_outcome_t *out)
{
	const gp_scored_t *set = out->set;
	char why[160], shape[120];
	int32_t per;

	if (!in->one_rack || !in->c || out->action != GP_ACT_CONSTRAIN || !set ||
	    set->nnodes <= 0 || one_rack_holds(in->c, in->r, set, why, sizeof(why)))
		return;
	if (in->ledger_full && !set->future)
		return; /* unpinned says so */
	if (!pin_shape(in, set, &per, shape, sizeof(shape))) {
		if (!*out->unpinned)
			snprintf(out->unpinned, sizeof(out->unpinned), "%.70s, and %.80s", why, shape);
		return;
	}
	out->action = GP_ACT_PIN;
	out->kind = GP_DECIDE_PIN;
	out->per_node = per;
	out->features[0] = '\0';
	out->switches = out->switch_wait = out->switch_pays = 0;
	out->unpinned[0] = '\0';
	out->holds = false; /* a CONSTRAIN's */
	snprintf(out->why, sizeof(out->why), "pinned for the racks' licenses: %s", why);
}

/* The action for in->d before rack_pin. */
static void outcome_plain(const gp_outcome_in_t *in, gp_outcome_t *out)
{
	const gp_decision_t *d = in->d;

	memset(out, 0, sizeof(*out));
	out->kind = d->kind;
	out->set = d->ncands > 0 ? &d->cands[0] : NULL;
	if (d->kind != GP_DECIDE_PIN && in->gpu_type && *in->gpu_type && in->mixed_gpus > 0) {
		/* nodes of mixed types were left out of this decision (the
		 * engine counts a node's GPUs, not its GPUs of one type): a
		 * constraint or a wait would hold the job off nodes Slurm can
		 * start it on; only a free set of single-type nodes is
		 * gpuplace's to pin */
		out->action = GP_ACT_PASS;
		snprintf(out->why, sizeof(out->why), "no free set of nodes holding only GPUs of type "
		         "%.64s (nodes of mixed types hold %lld more, which gpuplace does not count "
		         "per type): left to Slurm", in->gpu_type, (long long)in->mixed_gpus);
		return;
	}
	if (d->kind == GP_DECIDE_REJECT) {
		out->action = GP_ACT_REJECT;
		return;
	}
	if (d->kind == GP_DECIDE_PIN && out->set) {
		out->action = GP_ACT_PIN;
		if (!gp_outcome_pin_exact(in, out->set, &out->per_node, out->unpinned,
		                          sizeof(out->unpinned)))
			unpin(in, out); /* Slurm cannot be held to this set */
		else if (in->ledger_full && !out->set->future) {
			/* not booked: the next decision would count this set
			 * free and pin another job to it; only a domain */
			unpin(in, out);
			snprintf(out->unpinned, sizeof(out->unpinned), "the ledger of %d decisions "
			         "Slurm has not started is full", in->ledger_max);
		}
		return;
	}
	out->action = GP_ACT_CONSTRAIN;
	out->kind = GP_DECIDE_CONSTRAIN;
	out->holds = d->waited;
	snprintf(out->features, sizeof(out->features), "%s", d->features);
	/* segments the engine cut a job into where no block had room: only
	 * topology/block places them, and only a job without its own */
	if (d->segment_nodes > 0 && in->topology == GP_SLURM_TOPO_BLOCK && in->segment == 0)
		out->segment = (uint32_t)d->segment_nodes;
	/* waiting for a compact set: Slurm's own wait-for-switch where it
	 * applies (topology/tree, one Weight for all nodes - Weight tiers make
	 * cons_tres force lower-weight nodes in and never meet the switch
	 * count, notes/slurm-on-one-machine.md C2 - and no --switches of the
	 * user's) */
	if (d->kind == GP_DECIDE_CONSTRAIN && in->topology == GP_SLURM_TOPO_TREE && in->one_weight &&
	    !in->user_switches && gp_switch_request(d, in->policy, &out->switches, &out->switch_wait)) {
		/* Slurm waits no longer than its max_switch_wait whatever the
		 * job asks: ask for that, and say so; when even the predicted
		 * wait is longer, the switch request cannot hold the job and
		 * the constraint stays */
		uint32_t cap = in->max_switch_wait;

		if (out->switch_wait > cap && (double)cap < ceil(d->wait_s)) {
			out->switches = out->switch_wait = 0;
		} else {
			if (out->switch_wait > cap) {
				out->switch_pays = out->switch_wait;
				out->switch_wait = cap;
			}
			out->features[0] = '\0';
		}
	}
}

/*
 * A CONSTRAIN keeps only the domain features Slurm's nodes carry
 * (in->feature_ok): out->features is one feature or a matching-OR group
 * "[a|b|...]" of them (decide.c, finish_alternatives).  With none left the
 * job goes to Slurm with no constraint of gpuplace's, as a pass would;
 * out->nofeat names the first feature left out and what it means.
 */
static void known_features(const gp_outcome_in_t *in, gp_outcome_t *out)
{
	char kept[sizeof(out->features)], tok[sizeof(out->features)], first[GP_NAME_MAX + 16] = "";
	const char *p = out->features;
	size_t used = 0, k;
	int nkept = 0, ndrop = 0, all = 0;

	if (!in->feature_ok || out->action != GP_ACT_CONSTRAIN || !*out->features)
		return;
	if (*p == '[')
		p++;
	while (*p && *p != ']') {
		k = strcspn(p, "|]");
		if (k > 0 && k < sizeof(tok)) {
			memcpy(tok, p, k);
			tok[k] = '\0';
			all++;
			if (in->feature_ok(in->feature_ctx, tok)) {
				/* a subset of out->features: it fits */
				if (nkept)
					kept[used++] = '|';
				memcpy(kept + used, tok, k);
				used += k;
				nkept++;
			} else if (!ndrop++) {
				snprintf(first, sizeof(first), "%.*s", (int)sizeof(first) - 1, tok);
			}
		}
		p += k;
		if (*p == '|')
			p++;
	}
	if (!ndrop)
		return;
	kept[used] = '\0';
	if (nkept == 0) {
		out->features[0] = '\0';
		out->holds = false; /* nothing holds it: Slurm starts it anywhere */
	} else if (nkept == 1) {
		memcpy(out->features, kept, used + 1);
	} else {
		/* two fewer than the group it came from at most: it fits */
		out->features[0] = '[';
		memcpy(out->features + 1, kept, used);
		out->features[used + 1] = ']';
		out->features[used + 2] = '\0';
	}
	if (nkept == 0)
		snprintf(out->nofeat, sizeof(out->nofeat), "domain feature %.64s%s not on its nodes in "
		         "slurm.conf (`gpuplace conf --what nodes` writes them), so no constraint was "
		         "added", first, all > 1 ? " and the others" : "");
	else
		snprintf(out->nofeat, sizeof(out->nofeat), "domain feature %.64s%s not on its nodes in "
		         "slurm.conf (`gpuplace conf --what nodes` writes them), left out", first,
		         ndrop > 1 ? " and others" : "");
}

void gp_outcome(const gp_outcome_in_t *in, gp_outcome_t *out)
{
	outcome_plain(in, out);
	rack_pin(in, out);
	known_features(in, out);
	/* segments only with the leaf constraint that keeps them on one
	 * leaf switch (decide.c, segment_job): not when Slurm's nodes lack
	 * every feature of it */
	if (out->segment && !*out->features && *in->d->features)
		out->segment = 0;
}
