/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cost_shape.c - small in-memory clusters of built-in shapes, so that
 * `gpuplace model --gpu h100 --nodes 2` runs without a cluster file and
 * tests can build exactly the fabric a case needs.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cost.h"

/*
 * Built-in GPU profiles.  Sources: H100 SXM 700 W TDP (Llama 3 paper
 * sec. 3.3.1); NVLink per GPU per direction = links x 25 GB/s (NCCL
 * src/graph/topo.h link counts: H100/H200 18, H800 8, A100 12; B200/GB200
 * 18 x 50 GB/s); dense BF16 TFLOPS, HBM bandwidth, other TDPs and idle
 * power from NVIDIA datasheets [R, notes/calibration.md tag].  Host link
 * (last column, PCIeGen): H100/H200/H800 SXM and B200/GB200 Gen5 x16, A100
 * and the PCIe card Gen4 x16, T4 Gen3 x16 (NVIDIA datasheets [R]); T4: 65
 * TFLOPS FP16 (no BF16), 320 GB/s GDDR6, 70 W, settable down to 60 W [R].
 */
static const gp_gpu_profile_t builtin[] = {
	{ "h100", 989.0, 3350.0, 450.0, 700.0, 90.0, 200.0, 5, false },
	{ "h200", 989.0, 4800.0, 450.0, 700.0, 90.0, 200.0, 5, false },
	{ "h800", 989.0, 3350.0, 200.0, 700.0, 90.0, 200.0, 5, false },
	{ "a100", 312.0, 2039.0, 300.0, 400.0, 60.0, 100.0, 4, false },
	{ "b200", 2250.0, 8000.0, 900.0, 1000.0, 140.0, 300.0, 5, false },
	{ "gb200", 2500.0, 8000.0, 900.0, 1200.0, 150.0, 300.0, 5, false },
	{ "pcie", 756.0, 2000.0, 0.0, 350.0, 50.0, 150.0, 4, false },
	{ "t4", 65.0, 320.0, 0.0, 70.0, 10.0, 60.0, 3, false },
};

bool gp__cost_gpu_builtin(const char *name, gp_gpu_profile_t *out)
{
	size_t i;

	for (i = 0; name && i < sizeof(builtin) / sizeof(builtin[0]); i++)
		if (!strcasecmp(name, builtin[i].name)) {
			if (out)
				*out = builtin[i];
			return true;
		}
	return false;
}

void gp__cost_shape_defaults(gp_cost_shape_t *sh)
{
	memset(sh, 0, sizeof(*sh));
	snprintf(sh->gpu, sizeof(sh->gpu), "h100");
	sh->nodes = 1;
	sh->gpus_per_node = 8;
	sh->nic_gbps = 50.0; /* NDR 400 Gb/s line rate */
}

static int add_switch(gp_cluster_t *c, int32_t i, const char *prefix, int num, int32_t level,
                      int32_t nkids)
{
	gp_switch_t *sw = &c->switches[i];

	snprintf(sw->name, sizeof(sw->name), "%s%03d", prefix, num);
	sw->parent = -1;
	sw->level = level;
	if (nkids > 0) {
		if (level == 0)
			sw->nodes = calloc((size_t)nkids, sizeof(*sw->nodes));
		else
			sw->children = calloc((size_t)nkids, sizeof(*sw->children));
		if (!sw->nodes && !sw->children)
			return GP_ENOMEM;
	}
	return GP_OK;
}

int gp__cost_shape_build(const gp_cost_shape_t *sh, gp_cluster_t **out, gp_error_t *err)
{
	gp_cluster_t *c = NULL;
	int32_t npl, nleaves, lps, nspines, i, g, sw0, nsw;
	int rc = GP_ENOMEM;

	if (!out)
		return GP_EINVAL;
	*out = NULL;
	if (!sh)
		return GP_EINVAL;
	if (!gp__cost_gpu_builtin(sh->gpu, NULL))
		return gp__errorf(err, GP_EINVAL, "gpu: unknown GPU '%s' (h100 h200 h800 a100 b200 "
		                  "gb200 pcie t4)", sh->gpu);
	if (sh->nodes < 1 || sh->nodes > (1 << 20))
		return gp__errorf(err, GP_EINVAL, "nodes: %d is not in 1..%d", (int)sh->nodes, 1 << 20);
	if (sh->gpus_per_node < 1 || sh->gpus_per_node > GP_MAX_GPUS_PER_NODE)
		return gp__errorf(err, GP_EINVAL, "gpus-per-node: %d is not in 1..%d",
		                  (int)sh->gpus_per_node, GP_MAX_GPUS_PER_NODE);
	if (sh->rails < 0 || sh->nic_gbps < 0 || sh->nodes_per_leaf < 0 ||
	    sh->leaves_per_spine < 0 || sh->nvl_nodes < 0 || sh->islands < 0 ||
	    sh->islands > sh->gpus_per_node)
		return gp__errorf(err, GP_EINVAL, "shape: negative or inconsistent count");
	for (i = 0; i < GP_MAX_LEVELS; i++)
		if (sh->oversub[i] < 0 || (sh->oversub[i] > 0 && sh->oversub[i] < 1) ||
		    sh->latency_us[i] < 0)
			return gp__errorf(err, GP_EINVAL, "oversub: level %d value must be >= 1", (int)i);

	c = gp__cluster_new();
	if (!c)
		return GP_ENOMEM;
	snprintf(c->name, sizeof(c->name), "shape");
	c->profiles = calloc(1, sizeof(*c->profiles));
	c->layouts = calloc(1, sizeof(*c->layouts));
	c->nodes = calloc((size_t)sh->nodes, sizeof(*c->nodes));
	c->node_order = calloc((size_t)sh->nodes, sizeof(*c->node_order));
	c->node_pos = calloc((size_t)sh->nodes, sizeof(*c->node_pos));
	if (!c->profiles || !c->layouts || !c->nodes || !c->node_order || !c->node_pos)
		goto error;
	gp__cost_gpu_builtin(sh->gpu, &c->profiles[0]);
	c->nprofiles = 1;

	/* one GPU layout: one island, or `islands` equal NVLink islands */
	{
		gp_gres_layout_t *L = &c->layouts[0];
		int k = sh->islands > 1 ? sh->islands : 1, per = (sh->gpus_per_node + k - 1) / k;
		int a, b;

		L->ngpus = sh->gpus_per_node;
		L->nislands = c->profiles[0].nvlink_gbps > 0 ? k : sh->gpus_per_node;
		L->has_links = k > 1;
		for (a = 0; a < L->ngpus; a++) {
			L->island[a] = (uint8_t)(c->profiles[0].nvlink_gbps > 0 ? a / per : a);
			for (b = 0; b < L->ngpus; b++)
				L->links[a][b] = (int8_t)(a == b ? -1 : (L->has_links &&
				                  a / per == b / per) ? 2 : 0);
		}
		c->nlayouts = 1;
	}

	npl = sh->nodes_per_leaf > 0 ? sh->nodes_per_leaf : sh->nodes;
	nleaves = (sh->nodes + npl - 1) / npl;
	lps = sh->leaves_per_spine > 0 ? sh->leaves_per_spine : nleaves;
	nspines = nleaves > 1 ? (nleaves + lps - 1) / lps : 0;
	nsw = nleaves + nspines + (nspines > 1 ? 1 : 0);
	c->switches = calloc((size_t)nsw, sizeof(*c->switches));
	if (!c->switches)
		goto error;
	c->nswitches = nsw;
	for (i = 0; i < nleaves; i++) {
		int32_t cnt = i == nleaves - 1 ? sh->nodes - i * npl : npl;

		if (add_switch(c, i, "leaf", (int)i, 0, cnt) < 0)
			goto error;
		c->switches[i].first = i * npl;
		c->switches[i].count = cnt;
	}
	sw0 = nleaves;
	for (i = 0; i < nspines; i++) {
		int32_t lo = i * lps, hi = lo + lps < nleaves ? lo + lps : nleaves, k;

		if (add_switch(c, sw0 + i, "spine", (int)i, 1, hi - lo) < 0)
			goto error;
		for (k = lo; k < hi; k++) {
			c->switches[sw0 + i].children[c->switches[sw0 + i].nchildren++] = k;
			c->switches[k].parent = sw0 + i;
		}
		c->switches[sw0 + i].first = c->switches[lo].first;
		c->switches[sw0 + i].count = c->switches[hi - 1].first + c->switches[hi - 1].count -
		                             c->switches[lo].first;
	}
	if (nspines > 1) {
		int32_t top = sw0 + nspines;

		if (add_switch(c, top, "core", 0, 2, nspines) < 0)
			goto error;
		for (i = 0; i < nspines; i++) {
			c->switches[top].children[c->switches[top].nchildren++] = sw0 + i;
			c->switches[sw0 + i].parent = top;
		}
		c->switches[top].first = 0;
		c->switches[top].count = sh->nodes;
	}
	c->root = nsw - 1;
	c->nlevels = c->switches[c->root].level + 1;

	if (sh->nvl_nodes > 0) {
		int32_t nd = (sh->nodes + sh->nvl_nodes - 1) / sh->nvl_nodes;

		c->nvl = calloc((size_t)nd, sizeof(*c->nvl));
		if (!c->nvl)
			goto error;
		for (i = 0; i < nd; i++) {
			gp_nvl_domain_t *d = &c->nvl[i];
			int32_t lo = i * sh->nvl_nodes, k;

			snprintf(d->name, sizeof(d->name), "nvl%03d", (int)i);
			d->nodes = calloc((size_t)sh->nvl_nodes, sizeof(*d->nodes));
			if (!d->nodes)
				goto error;
			c->nnvl = i + 1;
			for (k = lo; k < sh->nodes && k < lo + sh->nvl_nodes; k++)
				d->nodes[d->nnodes++] = k;
			d->ngpus = d->nnodes * sh->gpus_per_node;
			d->gbps_per_gpu = c->profiles[0].nvlink_gbps;
		}
	}

	for (i = 0; i < sh->nodes; i++) {
		gp_node_t *n = &c->nodes[i];
		gp_switch_t *leaf = &c->switches[i / npl];

		snprintf(n->name, sizeof(n->name), "n%04d", (int)i);
		n->ngpus = sh->gpus_per_node;
		n->profile = 0;
		n->layout = 0;
		n->leaf = i / npl;
		n->rack = -1;
		n->nvl_domain = sh->nvl_nodes > 0 ? i / sh->nvl_nodes : -1;
		n->block = -1;
		n->rails = sh->rails > 0 ? sh->rails : sh->gpus_per_node;
		n->nic_gbps = sh->nic_gbps > 0 ? sh->nic_gbps : 50.0;
		n->weight = 1;
		n->order = (uint32_t)i;
		leaf->nodes[leaf->nnodes++] = i;
		c->node_order[i] = i;
		c->node_pos[i] = i;
		c->nnodes = i + 1;
	}
	for (g = 0; g < GP_MAX_LEVELS; g++) {
		gp_fabric_level_t *L = &c->levels[g];

		L->link_gbps = sh->nic_gbps > 0 ? sh->nic_gbps : 50.0;
		L->oversub = g > 0 && sh->oversub[g] > 0 ? sh->oversub[g] : 1.0;
		L->latency_us = sh->latency_us[g];
		L->set = g < c->nlevels + 1;
	}
	c->levels[0].transport = sh->transport;
	c->levels[0].step_us = sh->net.step_us;
	c->levels[0].net_eff = sh->net.eff;
	c->levels[0].fill_us = sh->net.fill_us;
	c->levels[0].fill_level_us = sh->net.fill_level_us;
	if ((rc = gp__cluster_index(c)) < 0)
		goto error;
	*out = c;
	return GP_OK;
error:
	gp_cluster_destroy(c);
	return gp__errorf(err, rc, "out of memory building the cluster shape");
}
