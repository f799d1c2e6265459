/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * load.c - gp_cluster_load_conf_dir(): slurm.conf, topology.conf, gres.conf
 * and gpuplace.conf into one model.
 *
 * Parse, validate, then commit: everything is built in a fresh gp_cluster
 * that the caller sees only when every file and every cross-reference is
 * valid; on any error it is destroyed and *out stays NULL.  Order matters:
 * slurm.conf gives the nodes (and their index), topology.conf the levels
 * that FabricLevel= is checked against, gres.conf the GPU layouts, and
 * gpuplace.conf the profiles the node GPU types resolve to at the end.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "cost.h"

static uint32_t layout_hash(const gp_gres_layout_t *g)
{
	const unsigned char *p[3] = { (const void *)g->links, g->island, (const void *)g->cores };
	size_t len[3] = { sizeof(g->links), sizeof(g->island), sizeof(g->cores) }, i, k;
	uint32_t h = 2166136261u ^ (uint32_t)g->ngpus ^ ((uint32_t)g->has_links << 8);

	for (k = 0; k < 3; k++)
		for (i = 0; i < len[k]; i++) {
			h ^= p[k][i];
			h *= 16777619u;
		}
	return h;
}

static bool layout_eq(const gp_gres_layout_t *a, const gp_gres_layout_t *b)
{
	return a->ngpus == b->ngpus && a->has_links == b->has_links &&
	       a->nislands == b->nislands && !memcmp(a->links, b->links, sizeof(a->links)) &&
	       !memcmp(a->island, b->island, sizeof(a->island)) &&
	       !memcmp(a->cores, b->cores, sizeof(a->cores));
}

/* Islands per node, then one shared layout per distinct content. */
static int build_layouts(gp__load_t *ld, gp_error_t *err)
{
	gp_cluster_t *c = ld->c;
	uint32_t size = 16, mask, h;
	int32_t *tab, i, cap = 0;

	if (!ld->gres)
		return GP_OK;
	while (size < 2u * (uint32_t)c->nnodes + 1)
		size <<= 1;
	mask = size - 1;
	tab = malloc(size * sizeof(*tab));
	if (!tab)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	memset(tab, 0xff, size * sizeof(*tab));
	for (i = 0; i < c->nnodes; i++) {
		gp_gres_layout_t *g = &ld->gres[i];
		int32_t p = c->nodes[i].profile;

		if (g->ngpus == 0)
			continue;
		/* GPUs of several types share no NVLink unless Links= says so */
		gp__layout_islands(g, p >= 0 && c->profiles[p].nvlink_gbps > 0 &&
		                          !(c->nodes[i].gpu_types && strchr(c->nodes[i].gpu_types, ',')));
		h = layout_hash(g) & mask;
		while (tab[h] >= 0 && !layout_eq(&c->layouts[tab[h]], g))
			h = (h + 1) & mask;
		if (tab[h] < 0) {
			if (c->nlayouts == cap) {
				int32_t nc = cap ? cap * 2 : 8;

				if (gp__resize(&c->layouts, (size_t)cap, (size_t)nc, sizeof(*c->layouts))) {
					free(tab);
					return gp__errorf(err, GP_ENOMEM, "out of memory");
				}
				cap = nc;
			}
			c->layouts[c->nlayouts] = *g;
			tab[h] = c->nlayouts++;
		}
		c->nodes[i].layout = tab[h];
	}
	free(tab);
	return GP_OK;
}

/*
 * Does type t (lower case) name a MIG slice?  NVIDIA's MIG profiles are
 * "<compute slices>g.<memory>gb" (1g.5gb, 2g.10gb, 3g.20gb, 7g.80gb, with
 * "+me" or "-me" for media extensions: NVIDIA MIG User Guide, "Supported
 * MIG Profiles"); Slurm's AutoDetect names a slice "<GPU>_<profile>"
 * (gres.html, "MIG Management").
 */
static bool mig_profile(const char *t)
{
	const char *p;

	for (p = t; (p = strstr(p, "g.")) != NULL; p += 2) {
		const char *q = p + 2;

		if (p == t || !isdigit((unsigned char)p[-1]) || !isdigit((unsigned char)*q))
			continue;
		while (isdigit((unsigned char)*q))
			q++;
		if (q[0] == 'g' && q[1] == 'b')
			return true;
	}
	return false;
}

/*
 * The built-in profile (cost_model/cost_shape.c) a GPU type stands for,
 * when the type is a name Slurm's AutoDetect gives or a common alias.
 * AutoDetect=nvml names a GPU after NVML's device name, lower-cased with
 * spaces as '_' (gres.conf(5), AutoDetect; Slurm's gpu_nvml.c): "NVIDIA
 * H100 80GB HBM3" is nvidia_h100_80gb_hbm3, "NVIDIA A100-SXM4-80GB" is
 * nvidia_a100-sxm4-80gb, "Tesla T4" is tesla_t4.  Only the SXM/HGX forms
 * map to the SXM profiles: a PCIe or NVL card has other TFLOPS, TDP and
 * no NVSwitch, so it resolves to nothing (predictions for it are marked
 * unknown) unless it is the H100 PCIe that the "pcie" profile describes.
 * A MIG slice ("1g.5gb", "a100_3g.20gb", "nvidia_a100-sxm4-40gb_1g.5gb")
 * is a fraction of its GPU, never the whole GPU's profile.
 * Returns the built-in name or NULL.
 */
static const char *builtin_alias(const char *type)
{
	char t[GP_NAME_MAX];
	size_t i;

	for (i = 0; type[i] && i + 1 < sizeof(t); i++)
		t[i] = (char)tolower((unsigned char)type[i]);
	t[i] = '\0';
	if (gp__cost_gpu_builtin(t, NULL))
		return NULL; /* the name itself: gp__cost_gpu_builtin finds it */
	if (mig_profile(t))
		return NULL;
	if (strstr(t, "gb200"))
		return "gb200";
	if (strstr(t, "pcie") || strstr(t, "nvl")) {
		/* H100 PCIe (756 TFLOPS BF16, 350 W): the "pcie" profile */
		return strstr(t, "h100") && strstr(t, "pcie") ? "pcie" : NULL;
	}
	if (strstr(t, "b200"))
		return "b200";
	if (strstr(t, "h100"))
		return "h100";
	if (strstr(t, "h200"))
		return "h200";
	if (strstr(t, "h800"))
		return "h800";
	if (strstr(t, "a100"))
		return "a100";
	if (!strcmp(t, "tesla_t4") || !strcmp(t, "nvidia_t4"))
		return "t4";
	return NULL;
}

/* Index of profile name in c, adding the built-in one if absent; -1 if
 * there is no such built-in (or out of memory: *oom set). */
static int32_t builtin_profile(gp_cluster_t *c, const char *name, bool *oom)
{
	gp_gpu_profile_t p;
	int32_t i;

	for (i = 0; i < c->nprofiles; i++)
		if (!strcasecmp(c->profiles[i].name, name))
			return i;
	if (!gp__cost_gpu_builtin(name, &p))
		return -1;
	if (gp__resize(&c->profiles, (size_t)c->nprofiles, (size_t)c->nprofiles + 1,
	               sizeof(*c->profiles))) {
		*oom = true;
		return -1;
	}
	c->profiles[c->nprofiles] = p;
	return c->nprofiles++;
}

/* GPU types to profiles, defaults that depend on other lines. */
static int resolve_nodes(gp__load_t *ld, gp_error_t *err)
{
	gp_cluster_t *c = ld->c;
	int32_t i, p, def = -1, warned[64], nwarned = 0, w;
	double nic = c->levels[0].set ? c->levels[0].link_gbps : 0;

	for (p = 0; p < c->nprofiles; p++)
		if (ld->default_profile[0] && !strcasecmp(c->profiles[p].name, ld->default_profile))
			def = p;
	for (i = 0; i < c->nnodes; i++) {
		gp_node_t *n = &c->nodes[i];
		const char *type = ld->node_type[i];

		if (n->rails < 0)
			n->rails = 1;
		n->nic_gbps = ld->nic_gbps[i] >= 0 ? ld->nic_gbps[i] : nic;
		n->profile = -1;
		if (n->ngpus == 0)
			continue;
		if (!type[0]) {
			n->profile = def;
			continue;
		}
		for (p = 0; p < c->nprofiles; p++)
			if (!strcasecmp(c->profiles[p].name, type))
				break;
		if (p < c->nprofiles) {
			n->profile = p;
			continue;
		}
		/* an AutoDetect name or alias of a built-in profile, or the
		 * built-in of that very name */
		{
			const char *alias = builtin_alias(type);
			bool oom = false;

			p = builtin_profile(c, alias ? alias : type, &oom);
			if (oom)
				return gp__errorf(err, GP_ENOMEM, "out of memory");
			if (p >= 0) {
				n->profile = p;
				for (w = 0; w < nwarned; w++)
					if (!strcasecmp(ld->node_type[warned[w]], type))
						break;
				if (w < nwarned || nwarned == (int32_t)(sizeof(warned) / sizeof(warned[0])))
					continue;
				warned[nwarned++] = i;
				if (gp__cluster_warnf(c, "%s:%d: Gres: GPU type '%s' of node '%s' has no "
				                      "GpuProfile in gpuplace.conf; the built-in profile "
				                      "'%s' is used", ld->node_loc[i].path,
				                      ld->node_loc[i].line, type, n->name,
				                      c->profiles[p].name))
					return gp__errorf(err, GP_ENOMEM, "out of memory");
				continue;
			}
		}
		/* not an error: the model just knows nothing about this GPU;
		 * one warning per type (node_type entries are per node) */
		for (w = 0; w < nwarned; w++)
			if (!strcasecmp(ld->node_type[warned[w]], type))
				break;
		if (w < nwarned || nwarned == (int32_t)(sizeof(warned) / sizeof(warned[0])))
			continue; /* warned already, or enough said */
		warned[nwarned++] = i;
		if (gp__cluster_warnf(c, "%s:%d: Gres: no profile for %s (node '%s' and others "
		                      "of that type): no GpuProfile in gpuplace.conf and no built-in "
		                      "of that name; step time not predicted on them",
		                      ld->node_loc[i].path, ld->node_loc[i].line, type, n->name))
			return gp__errorf(err, GP_ENOMEM, "out of memory");
	}
	for (i = 0; i < c->nnvl; i++) {
		gp_nvl_domain_t *d = &c->nvl[i];

		d->gbps_per_gpu = ld->nvl_gbps[i];
		if (d->gbps_per_gpu >= 0)
			continue;
		d->gbps_per_gpu = 0;
		for (p = 0; p < d->nnodes; p++)
			if (c->nodes[d->nodes[p]].profile >= 0) {
				d->gbps_per_gpu = c->profiles[c->nodes[d->nodes[p]].profile].nvlink_gbps;
				break;
			}
	}
	for (i = 0; i < c->ntelemetry; i++)
		if (c->telemetry[i].stale_s < 0)
			c->telemetry[i].stale_s = c->site.telemetry_stale_s;
	return GP_OK;
}

/* Whether a Gres GPU type names a GPU that is NVLink-switched across the
 * nodes of its rack: GB200 NVL72 / GB300 NVL72, whose 18 compute trays
 * share 9 NVLink switch trays (NVIDIA DGX SuperPOD GB200 reference
 * architecture; shared/notes/real-topologies.md section 2).  Matches the
 * short names (gb200, gb300) and AutoDetect's (nvidia_gb200, ...). */
static bool rack_nvlink_type(const char *type)
{
	char t[GP_NAME_MAX];
	size_t i;

	for (i = 0; type[i] && i + 1 < sizeof(t); i++)
		t[i] = (char)tolower((unsigned char)type[i]);
	t[i] = '\0';
	return strstr(t, "gb200") || strstr(t, "gb300");
}

/*
 * Blocks of topology/block as NVLink domains (gpuplace.conf(5),
 * BlockNVLinkDomains).  A block is a scheduling unit to Slurm, not a fact
 * about links: cloud providers and fabric tools write blocks for
 * InfiniBand or EFA groups of HGX nodes, whose GPUs share no NVLink across
 * nodes.  So a block is an NVLink domain only when the site says so
 * (BlockNVLinkDomains=yes) or when every node in it has GPUs that are
 * NVLink-switched across nodes (rack_nvlink_type: GB200/GB300 NVL).
 * NVLinkDomain lines of gpuplace.conf replace blocks; BlockNVLinkDomains=no
 * keeps every block a scheduling unit only.
 */
static int blocks_to_domains(gp__load_t *ld, gp_error_t *err)
{
	gp_cluster_t *c = ld->c;
	int32_t i, j, nd = 0, nskip = 0, firstskip = -1;
	bool *take;

	if (c->nblocks == 0 || ld->block_nvl == 0)
		return GP_OK;
	if (c->nnvl > 0) {
		if (ld->block_nvl == 1)
			return gp__conf_err(err, &ld->block_nvl_loc, "BlockNVLinkDomains",
			                    "'yes' but gpuplace.conf has NVLinkDomain lines (%s:%d); "
			                    "use one or the other", ld->nvl_loc[0].path,
			                    ld->nvl_loc[0].line);
		if (gp__cluster_warnf(c, "%s:%d: NVLinkDomain: the NVLinkDomain lines of gpuplace.conf "
		                      "replace the %d blocks of %s as NVLink domains",
		                      ld->nvl_loc[0].path, ld->nvl_loc[0].line, (int)c->nblocks,
		                      ld->topo_path))
			return gp__errorf(err, GP_ENOMEM, "out of memory");
		return GP_OK;
	}
	take = calloc((size_t)c->nblocks, sizeof(*take));
	if (!take)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	for (i = 0; i < c->nblocks; i++) {
		const gp_block_t *b = &c->blocks[i];

		take[i] = ld->block_nvl == 1;
		if (!take[i]) {
			take[i] = b->nnodes > 0;
			for (j = 0; j < b->nnodes && take[i]; j++)
				take[i] = rack_nvlink_type(ld->node_type[b->nodes[j]]);
		}
		if (take[i])
			nd++;
		else if (nskip++ == 0)
			firstskip = i;
	}
	if (nskip && gp__cluster_warnf(c, "%s:%d: BlockName: %d of %d blocks (first '%s') are not "
	                               "NVLink domains: their nodes' GPUs are not NVLink-switched "
	                               "across nodes (GB200/GB300 NVL); BlockNVLinkDomains=yes in "
	                               "gpuplace.conf if they are", ld->blk[firstskip].loc.path,
	                               ld->blk[firstskip].loc.line, (int)nskip, (int)c->nblocks,
	                               c->blocks[firstskip].name)) {
		free(take);
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	}
	if (!nd) {
		free(take);
		return GP_OK;
	}
	c->nvl = calloc((size_t)nd, sizeof(*c->nvl));
	ld->nvl_gbps = malloc((size_t)nd * sizeof(*ld->nvl_gbps));
	ld->nvl_loc = malloc((size_t)nd * sizeof(*ld->nvl_loc));
	if (!c->nvl || !ld->nvl_gbps || !ld->nvl_loc) {
		free(take);
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	}
	for (i = 0; i < c->nblocks; i++) {
		const gp_block_t *b = &c->blocks[i];
		gp_nvl_domain_t *d = &c->nvl[c->nnvl];

		if (!take[i])
			continue;
		memcpy(d->name, b->name, sizeof(d->name));
		d->nodes = malloc(((size_t)b->nnodes + 1) * sizeof(*d->nodes));
		if (!d->nodes) {
			free(take);
			return gp__errorf(err, GP_ENOMEM, "out of memory");
		}
		memcpy(d->nodes, b->nodes, (size_t)b->nnodes * sizeof(*d->nodes));
		d->nnodes = b->nnodes;
		for (j = 0; j < b->nnodes; j++) {
			c->nodes[b->nodes[j]].nvl_domain = c->nnvl;
			d->ngpus += c->nodes[b->nodes[j]].ngpus;
		}
		ld->nvl_gbps[c->nnvl] = -1; /* the GPU profile's NVLinkGBps */
		ld->nvl_loc[c->nnvl] = ld->blk[i].loc;
		c->nnvl++;
	}
	free(take);
	return GP_OK;
}

static void load_free(gp__load_t *ld)
{
	int32_t i;

	for (i = 0; ld->part && i < ld->c->nparts; i++) {
		free(ld->part[i].nodes);
		free(ld->part[i].topology);
	}
	free(ld->topos);
	for (i = 0; ld->sw && i < ld->nsw; i++) {
		free(ld->sw[i].switches);
		free(ld->sw[i].nodes);
	}
	for (i = 0; ld->blk && i < ld->c->nblocks; i++)
		free(ld->blk[i].nodes);
	free(ld->blk);
	gp__nametab_free(&ld->sw_names);
	gp__nametab_free(&ld->blk_names);
	for (i = 0; ld->tel && i < ld->c->ntelemetry; i++)
		free(ld->tel[i].racks);
	free(ld->part);
	free(ld->sw);
	free(ld->tel);
	free(ld->node_loc);
	free(ld->node_type);
	free(ld->gpus_off);
	free(ld->gres);
	free(ld->gres_loc);
	free(ld->nic_gbps);
	free(ld->nvl_gbps);
	free(ld->rack_loc);
	free(ld->nvl_loc);
	gp__conf_paths_free(&ld->paths);
}

/* ---- plausibility ---------------------------------------------------------
 * Values a unit mistake produces (kW written as W, W as kW) pass every
 * range check and then make every job wait; catch them here with the file,
 * line, key and the bound.  Bounds and where they come from: */

/* The densest rack in shared/notes/calibration.md section 4 is a GB200
 * NVL72: ~120 kW, 8 power shelves of 132 kW DC in all.  1 MW, 7.5 times
 * that, leaves room for denser racks and still catches W written as kW. */
#define RACK_KW_MAX 1000.0
/* A GPU node without its GPUs still draws for CPUs, memory, NICs and
 * fans: NVIDIA's DGX H100 (10.2 kW maximum, calibration.md section 4,
 * less 8 x 700 W GPUs) leaves ~4.6 kW; the PCIe nodes of etc/mixed-pcie
 * are given 800 W.  50 W, 16 times below the smaller, is no real server:
 * most likely kW written where W is meant. */
#define NODE_BASE_W_MIN 50.0

/* Take rack i out of the model (its nodes have no rack, so no power limit
 * applies to them), keeping the other racks' order and every index into
 * them. */
static void rack_drop(gp__load_t *ld, int32_t i)
{
	gp_cluster_t *c = ld->c;
	int32_t j, k, n;

	for (j = 0; j < c->nnodes; j++) {
		if (c->nodes[j].rack == i) {
			c->nodes[j].rack = -1;
			c->nodes[j].base_w = 0;
		} else if (c->nodes[j].rack > i) {
			c->nodes[j].rack--;
		}
	}
	for (j = 0; j < c->ntelemetry; j++) {
		gp_telemetry_t *t = &c->telemetry[j];

		for (k = n = 0; k < t->nracks; k++)
			if (t->racks[k] != i)
				t->racks[n++] = t->racks[k] > i ? t->racks[k] - 1 : t->racks[k];
		t->nracks = n;
	}
	free(c->racks[i].nodes);
	memmove(&c->racks[i], &c->racks[i + 1], (size_t)(c->nracks - i - 1) * sizeof(*c->racks));
	memmove(&ld->rack_loc[i], &ld->rack_loc[i + 1],
	        (size_t)(c->nracks - i - 1) * sizeof(*ld->rack_loc));
	c->nracks--;
}

/* A rack whose limit cannot be right: one warning, and the rack is left
 * out of the model (its nodes are placed without power, the other racks
 * keep theirs). */
static int rack_off(gp__load_t *ld, int32_t i, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int rack_off(gp__load_t *ld, int32_t i, const char *key, const char *fmt, ...)
{
	const gp__conf_loc_t *loc = &ld->rack_loc[i];
	char msg[768];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rc = gp__cluster_warnf(ld->c, "%s:%d: %s: %s; rack '%s' not modelled: power not "
	                       "considered on its %d node%s", loc->path, loc->line, key, msg,
	                       ld->c->racks[i].name, (int)ld->c->racks[i].nnodes,
	                       ld->c->racks[i].nnodes == 1 ? "" : "s");
	rack_drop(ld, i);
	return rc;
}

static int plausibility(gp__load_t *ld, gp_error_t *err)
{
	gp_cluster_t *c = ld->c;
	int32_t i, j;
	int k, rc;

	for (i = 0; i < c->nracks; i++) {
		const gp_rack_t *r = &c->racks[i];
		const gp__conf_loc_t *loc = &ld->rack_loc[i];
		double idle_w = 0;

		if (r->node_base_w > 0 && r->node_base_w < NODE_BASE_W_MIN &&
		    gp__cluster_warnf(c, "%s:%d: NodeBaseWatts: %g W for rack '%s' is below %g W, less "
		                      "than any GPU server draws without its GPUs: kW written as W?",
		                      loc->path, loc->line, r->node_base_w, r->name, NODE_BASE_W_MIN))
			return gp__errorf(err, GP_ENOMEM, "out of memory");
		for (j = 0; j < r->nnodes; j++) {
			const gp_node_t *n = &c->nodes[r->nodes[j]];

			idle_w += n->base_w;
			if (n->profile >= 0)
				idle_w += n->ngpus * c->profiles[n->profile].idle_w;
		}
		/* One rule for both limits: heat equals the electrical draw
		 * (power.h), so cooling below the idle draw can no more be met
		 * than such a cap, and 0 is no limit a rack runs under (an
		 * unset CoolingKW is the cap, never 0). */
		for (k = 0; k < 2; k++) {
			const char *key = k ? "CoolingKW" : "PowerCapKW";
			double kw = k ? r->cooling_kw : r->power_cap_kw;

			rc = 1;
			if (kw > RACK_KW_MAX)
				rc = rack_off(ld, i, key,
				              "%g kW for rack '%s' is above %g kW, more than any rack "
				              "draws (a GB200 NVL72 has 132 kW of power shelves): watts "
				              "written as kW?", kw, r->name, RACK_KW_MAX);
			else if (!(kw > 0.0))
				rc = rack_off(ld, i, key,
				              "%g kW for rack '%s': no rack runs on 0 kW of %s%s", kw,
				              r->name, k ? "cooling" : "power",
				              k ? " (leave CoolingKW out to mean the power cap)" : "");
			/* a limit below what the rack draws doing nothing can never be met */
			else if (kw * 1000.0 < idle_w)
				rc = rack_off(ld, i, key,
				              "%g kW for rack '%s' is below its idle draw of %.1f kW "
				              "(%d nodes at NodeBaseWatts=%g plus their GPUs' IdleWatts): "
				              "kW written as MW, or a wrong rack?",
				              kw, r->name, idle_w / 1000.0, (int)r->nnodes,
				              r->node_base_w);
			if (rc == 1)
				continue;
			if (rc)
				return gp__errorf(err, GP_ENOMEM, "out of memory");
			i--; /* rack i is gone: the next one is at i now */
			break;
		}
	}
	return GP_OK;
}

static int load_dir(const char *dir, const gp__conf_memfile_t *mem, int nmem, gp_cluster_t **out,
                    gp_error_t *err)
{
	gp__load_t ld = { .block_nvl = -1 };
	size_t n;
	int rc;

	if (!out)
		return gp__errorf(err, GP_EINVAL, "gp_cluster_load_conf_dir: out is NULL");
	*out = NULL;
	if (!dir || !*dir)
		return gp__errorf(err, GP_EINVAL, "gp_cluster_load_conf_dir: no directory");
	if (strlen(dir) >= GP_PATH_MAX - 32)
		return gp__errorf(err, GP_ECONFIG, "%s: path is too long", dir);
	ld.c = gp__cluster_new();
	if (!ld.c)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	/* "etc/x/" names its files etc/x/slurm.conf, not etc/x//slurm.conf */
	snprintf(ld.c->conf_dir, sizeof(ld.c->conf_dir), "%s", dir);
	n = strlen(ld.c->conf_dir);
	while (n > 1 && ld.c->conf_dir[n - 1] == '/')
		ld.c->conf_dir[--n] = '\0';
	ld.dir = ld.c->conf_dir;
	ld.paths.mem = mem;
	ld.paths.nmem = nmem;
	ld.paths.mem_dir = ld.dir;
	if ((rc = gp__load_slurm(&ld, err)) || (rc = gp__load_topology(&ld, err)) ||
	    (rc = gp__load_gres(&ld, err)) || (rc = gp__load_gpuplace(&ld, err)) ||
	    (rc = blocks_to_domains(&ld, err)) || (rc = resolve_nodes(&ld, err)) ||
	    (rc = build_layouts(&ld, err)) || (rc = plausibility(&ld, err)))
		goto error;
	load_free(&ld);
	*out = ld.c;
	return GP_OK;
error:
	load_free(&ld);
	gp_cluster_destroy(ld.c);
	/* every configuration problem is GP_ECONFIG; memory stays ENOMEM */
	return rc == GP_ENOMEM ? GP_ENOMEM : GP_ECONFIG;
}

int gp_cluster_load_conf_dir(const char *dir, gp_cluster_t **out, gp_error_t *err)
{
	return load_dir(dir, NULL, 0, out, err);
}

int gp__cluster_load_conf_mem(const char *dir, const gp__conf_memfile_t *files, int n,
                              gp_cluster_t **out, gp_error_t *err)
{
	static const gp__conf_memfile_t none;

	if (n < 0 || (n > 0 && !files))
		return gp__errorf(err, GP_EINVAL, "gp__cluster_load_conf_mem: bad file table");
	/* mem set even when n is 0: an empty directory, not the file system */
	return load_dir(dir, n ? files : &none, n, out, err);
}
