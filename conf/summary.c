/* SPDX-License-Identifier: GPL-2.0-or-later */
/* summary.c - gp_cluster_print_summary(): the model as an admin reads it. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

static const char *scope_name(gp_scope_t s)
{
	return s == GP_SCOPE_NODE ? "per node" : s == GP_SCOPE_RACK ? "per rack" : "aggregate";
}

static const char *tele_name(gp_telemetry_kind_t k)
{
	return k == GP_TELEMETRY_PROMETHEUS ? "prometheus" :
	       k == GP_TELEMETRY_REDFISH ? "redfish" : "file";
}

/* Nodes of several GPU types (counted above under their most numerous
 * type's profile), one line per distinct mix with its counts per type. */
static void print_mixed(const gp_cluster_t *c, FILE *f)
{
	const char *seen[16];
	long count[16];
	int nseen = 0, k;
	int32_t i;

	for (i = 0; i < c->nnodes; i++) {
		const char *t = c->nodes[i].gpu_types;

		if (!t || !strchr(t, ','))
			continue;
		for (k = 0; k < nseen && strcmp(seen[k], t); k++)
			;
		if (k == nseen) {
			if (nseen == (int)(sizeof(seen) / sizeof(seen[0])))
				continue;
			seen[nseen] = t;
			count[nseen++] = 0;
		}
		count[k]++;
	}
	for (k = 0; k < nseen; k++)
		fprintf(f, "  %-10s %6ld nodes of mixed GPU types, each %s\n", "mixed", count[k],
		        seen[k]);
}

static void print_gpus(const gp_cluster_t *c, FILE *f)
{
	long *per = calloc((size_t)c->nprofiles + 1, sizeof(*per));
	long *nodes = calloc((size_t)c->nprofiles + 1, sizeof(*nodes));
	int32_t i, p;

	if (!per || !nodes) {
		free(per);
		free(nodes);
		return;
	}
	for (i = 0; i < c->nnodes; i++) {
		p = c->nodes[i].profile >= 0 ? c->nodes[i].profile : c->nprofiles;
		per[p] += c->nodes[i].ngpus;
		nodes[p] += c->nodes[i].ngpus > 0;
	}
	for (p = 0; p < c->nprofiles; p++) {
		const gp_gpu_profile_t *g = &c->profiles[p];

		fprintf(f, "  %-10s %6ld GPUs on %5ld nodes  %g TFLOP/s bf16, HBM %g GB/s, "
		        "NVLink %g GB/s, TDP %g W (idle %g W)\n", g->name, per[p], nodes[p],
		        g->tflops_bf16, g->hbm_gbps, g->nvlink_gbps, g->tdp_w, g->idle_w);
	}
	if (per[c->nprofiles])
		fprintf(f, "  %-10s %6ld GPUs on %5ld nodes  (no GPU profile)\n", "unknown",
		        per[c->nprofiles], nodes[c->nprofiles]);
	free(per);
	free(nodes);
	print_mixed(c, f);
}

static void print_islands(const gp_cluster_t *c, FILE *f)
{
	int32_t l, i;

	for (l = 0; l < c->nlayouts; l++) {
		const gp_gres_layout_t *g = &c->layouts[l];
		long users = 0;

		for (i = 0; i < c->nnodes; i++)
			users += c->nodes[i].layout == l;
		fprintf(f, "  layout %d: %d GPUs in %d NVLink island%s%s, %ld node%s\n", (int)l,
		        g->ngpus, g->nislands, g->nislands == 1 ? "" : "s",
		        g->has_links ? " (gres.conf Links=)" : "", users, users == 1 ? "" : "s");
	}
	if (c->nnvl) {
		long nodes = 0, gpus = 0;

		for (i = 0; i < c->nnvl; i++) {
			nodes += c->nvl[i].nnodes;
			gpus += c->nvl[i].ngpus;
		}
		fprintf(f, "  %d cross-node NVLink domain%s over %ld nodes / %ld GPUs "
		        "(first: %s, %d nodes, %g GB/s per GPU)\n", (int)c->nnvl,
		        c->nnvl == 1 ? "" : "s", nodes, gpus, c->nvl[0].name, (int)c->nvl[0].nnodes,
		        c->nvl[0].gbps_per_gpu);
	}
}

static void print_blocks(const gp_cluster_t *c, FILE *f)
{
	int l;

	if (!c->nblocks)
		return;
	fprintf(f, "Blocks (topology/block): %d, first %s with %d nodes; BlockSizes", (int)c->nblocks,
	        c->blocks[0].name, (int)c->blocks[0].nnodes);
	for (l = 0; l < GP_MAX_BLOCK_LEVELS; l++)
		if ((c->block_levels >> l) & 1u)
			fprintf(f, "%s%ld", l ? "," : "=", (long)c->block_base << l);
	fprintf(f, "\n");
}

static void print_fabric(const gp_cluster_t *c, FILE *f)
{
	int32_t counts[GP_MAX_LEVELS + 1] = { 0 }, i;
	int l;

	if (c->root < 0) {
		fprintf(f, "Fabric: no switch tree (topology.conf absent)\n");
	} else {
		for (i = 0; i < c->nswitches; i++)
			if (c->switches[i].level >= 0 && c->switches[i].level <= GP_MAX_LEVELS)
				counts[c->switches[i].level]++;
		fprintf(f, "Fabric: %d switches, %d levels, root %s%s%s\n", (int)c->nswitches,
		        (int)c->nlevels, c->switches[c->root].name,
		        c->switches[c->root].disconnected ? " (synthetic: disconnected forest)" : "",
		        c->tree_from_blocks ? " (the block levels of topology/block)" : "");
		for (l = 0; l < c->nlevels && l <= GP_MAX_LEVELS; l++)
			fprintf(f, "  level %d: %d switch%s%s\n", l, (int)counts[l],
			        counts[l] == 1 ? "" : "es", l == 0 ? " (leaves)" : "");
	}
	for (l = 0; l < GP_MAX_LEVELS; l++) {
		const gp_fabric_level_t *v = &c->levels[l];

		if (!v->set)
			continue;
		if (l == 0)
			fprintf(f, "  links node<->leaf: %g GB/s, %g us per hop\n", v->link_gbps,
			        v->latency_us);
		else
			fprintf(f, "  links level %d->%d: %g GB/s, oversubscription %g:1, %g us per hop\n",
			        l - 1, l, v->link_gbps, v->oversub, v->latency_us);
	}
}

static void print_racks(const gp_cluster_t *c, FILE *f)
{
	double cap = 0, cool = 0, mincap = 0, maxcap = 0;
	int32_t i, shown;
	int w;

	if (!c->nracks) {
		fprintf(f, "Racks: none (no power or cooling limits)\n");
		return;
	}
	for (i = 0; i < c->nracks; i++) {
		const gp_rack_t *r = &c->racks[i];

		cap += r->power_cap_kw;
		cool += r->cooling_kw;
		if (i == 0 || r->power_cap_kw < mincap)
			mincap = r->power_cap_kw;
		if (i == 0 || r->power_cap_kw > maxcap)
			maxcap = r->power_cap_kw;
	}
	fprintf(f, "Racks: %d, power cap %.1f kW total (%g..%g kW per rack), cooling %.1f kW "
	        "total, power margin %g%%\n", (int)c->nracks, cap, mincap, maxcap, cool,
	        c->site.power_margin * 100.0);
	shown = c->nracks <= 8 ? c->nracks : 4;
	/* the name column as wide as the longest name shown */
	for (i = 0, w = 12; i < shown; i++)
		if ((int)strlen(c->racks[i].name) > w)
			w = (int)strlen(c->racks[i].name);
	for (i = 0; i < shown; i++) {
		const gp_rack_t *r = &c->racks[i];

		fprintf(f, "  %-*s %3d nodes  cap %g kW  cooling %g kW  node base %g W\n", w, r->name,
		        (int)r->nnodes, r->power_cap_kw, r->cooling_kw, r->node_base_w);
	}
	if (shown < c->nracks)
		fprintf(f, "  ... %d more\n", (int)(c->nracks - shown));
}

int gp_cluster_print_summary(const gp_cluster_t *c, FILE *f)
{
	long unracked = 0, noleaf = 0;
	int32_t i;

	if (!c || !f)
		return GP_EINVAL;
	for (i = 0; i < c->nnodes; i++) {
		unracked += c->nodes[i].rack < 0;
		noleaf += c->nodes[i].leaf < 0;
	}
	fprintf(f, "Cluster %s%s%s\n", c->name[0] ? c->name : "(unnamed)",
	        c->conf_dir[0] ? " from " : "", c->conf_dir);
	fprintf(f, "Nodes: %d, GPUs: %ld\n", (int)c->nnodes, gp_cluster_gpu_count(c));
	fprintf(f, "GPUs by type:\n");
	print_gpus(c, f);
	fprintf(f, "NVLink:\n");
	print_islands(c, f);
	if (!c->nnvl)
		fprintf(f, "  no cross-node NVLink domains\n");
	print_blocks(c, f);
	print_fabric(c, f);
	print_racks(c, f);
	fprintf(f, "Partitions: %d\n", (int)c->nparts);
	for (i = 0; i < c->nparts; i++) {
		const gp_partition_t *p = &c->parts[i];

		fprintf(f, "  %-12s %5d nodes%s%s", p->name, (int)p->nnodes,
		        p->is_default ? " default" : "", p->up ? "" : " down");
		if (p->max_time_min == UINT32_MAX)
			fprintf(f, " max time INFINITE");
		else
			fprintf(f, " max time %u min", (unsigned)p->max_time_min);
		/* its jobs are Slurm's: the part of the model they need is off */
		fprintf(f, "%s\n", p->slurm_only ? ", placed by Slurm" : "");
	}
	fprintf(f, "Storage: %d\n", (int)c->nstorage);
	for (i = 0; i < c->nstorage; i++) {
		const gp_storage_t *s = &c->storage[i];

		fprintf(f, "  %-12s write %g GB/s, read %g GB/s %s, ", s->name, s->write_gbps,
		        s->read_gbps, scope_name(s->scope));
		if (s->nodes)
			fprintf(f, "%d nodes\n", (int)s->nnodes);
		else
			fprintf(f, "all nodes\n");
	}
	fprintf(f, "Telemetry: %d\n", (int)c->ntelemetry);
	for (i = 0; i < c->ntelemetry; i++) {
		const gp_telemetry_t *t = &c->telemetry[i];

		fprintf(f, "  %-12s %s %s every %g s, stale after %g s\n", t->name,
		        tele_name(t->kind), t->url, t->interval_s, t->stale_s);
	}
	fprintf(f, "Site: default gradient %g bytes, %g node failures per 1,000 node-days\n",
	        c->site.default_grad_bytes, c->site.node_failures_per_1k_days);
	if (unracked && c->nracks)
		fprintf(f, "Note: %ld node%s in no rack (no power limit applies)\n", unracked,
		        unracked == 1 ? "" : "s");
	if (noleaf && c->root >= 0)
		fprintf(f, "Note: %ld node%s outside the switch tree\n", noleaf,
		        noleaf == 1 ? "" : "s");
	if (c->nwarnings)
		fprintf(f, "Warnings: %d\n", (int)c->nwarnings);
	for (i = 0; i < c->nwarnings; i++)
		fprintf(f, "  %s\n", c->warnings[i]);
	return ferror(f) ? GP_EIO : GP_OK;
}
