/* SPDX-License-Identifier: GPL-2.0-or-later */
/* synth.c - synthetic rail-optimized leaf/spine clusters (see synth.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "slurm_emit.h"
#include "synth.h"

/*
 * GPU profiles the generator knows.  Tags as in notes/calibration.md:
 * [S] read in the source, [S2] faithful secondary, [R] recalled/vendor.
 */
static const struct synth_gpu {
	const char *name;
	double tflops, hbm, nvlink, tdp, idle, min_cap;
	double node_base_w;     /* node power without its GPUs */
	int32_t cpus;
	int64_t mem_mb;
} synth_gpus[] = {
	/* H100 SXM: 989 dense bf16 TFLOP/s, 3.35 TB/s HBM3 [R: NVIDIA H100
	 * datasheet]; NVLink "450 GB/s is the line rate" per direction
	 * (sjeaugey, NVIDIA/nccl-tests #212) [S]; 700 W TDP (Llama 3 sec.
	 * 3.3.1) [S2]; idle ~70 W [R]; caps swept down to 200 W (arXiv
	 * 2604.11391) [S abstract].  DGX H100 ~10.2 kW per system [R] ->
	 * 10200 - 8 x 700 = 4600 W without GPUs; 2 x Xeon 8480C = 224 threads,
	 * 2 TB DDR5 (RA-11333-001) [NVIDIA]. */
	{ "h100", 989.0, 3350.0, 450.0, 700.0, 70.0, 200.0, 4600.0, 224, 2048000 },
	/* H200: H100 compute, 4.8 TB/s HBM3e [R: NVIDIA H200 datasheet];
	 * 8-GPU NVLS peak 475 GB/s like H100 (nccl-tests #272) [S]. */
	{ "h200", 989.0, 4800.0, 450.0, 700.0, 70.0, 200.0, 4600.0, 224, 2048000 },
	/* A100 SXM: 312 bf16 TFLOP/s, 2039 GB/s [R: datasheet]; NVLink 300 GB/s
	 * (calculon systems/a100_80g.json) [S]; 400 W (calibration sec. 4) [R];
	 * DGX A100 6.5 kW max [R]. */
	{ "a100", 312.0, 2039.0, 300.0, 400.0, 50.0, 100.0, 3300.0, 256, 1024000 },
	/* B200: 2250 dense bf16 TFLOP/s, 8 TB/s [R: NVIDIA DGX B200 datasheet];
	 * NVLink 5 1.8 TB/s per GPU = 900 GB/s per direction (GB200 SuperPOD
	 * RA) [NVIDIA]; 1000 W [R]; DGX B200 ~14.3 kW [R]. */
	{ "b200", 2250.0, 8000.0, 900.0, 1000.0, 100.0, 200.0, 6300.0, 224, 4096000 },
	/* GB200 (4 per compute tray): NVL72 ~120 kW per rack, 18 trays x
	 * ~6.5 kW [R: calibration sec. 4] -> 4 x 1200 W + 1700 W per tray. */
	{ "gb200", 2500.0, 8000.0, 900.0, 1200.0, 100.0, 200.0, 1700.0, 144, 960000 },
};

/* NDR InfiniBand 400 Gb/s = 50 GB/s per link, one NIC per GPU (rail)
 * (RA-11333-001, notes/real-topologies.md) [NVIDIA]; measured 46-49 GB/s
 * per NIC (nccl-tests #290, #267) [S] is the cost model's business. */
#define SYNTH_LINK_GBPS 50.0
/* 500 ns per NIC/switch link (SimAI gen_Topo_Template.py) [S]. */
#define SYNTH_HOP_US 0.5
/* Node-local NVMe checkpoint target: 4 x Gen4 NVMe in RAID 0 [R: estimate]. */
#define SYNTH_NVME_WRITE_GBPS 10.0
#define SYNTH_NVME_READ_GBPS 25.0
/* Shared parallel file system: Selene write 273 GB/s, read 1 TB/s
 * (calibration sec. 3) [S2]. */
#define SYNTH_PFS_WRITE_GBPS 273.0
#define SYNTH_PFS_READ_GBPS 1000.0

void gp__synth_defaults(gp_synth_params_t *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "synth");
	snprintf(p->gpu_type, sizeof(p->gpu_type), "h100");
	p->gpus_per_node = 8;
	p->nodes_per_leaf = 32;         /* "SUs of 32 DGX H100 systems" (RA-11333-001) */
	p->leaves_per_spine_group = 16; /* B200 SuperPOD adds a core layer from 16 SUs */
	p->oversub = 1.0;               /* "full fat-tree" (RA-11333-001) */
}

static const struct synth_gpu *find_gpu(const char *type)
{
	size_t i;

	for (i = 0; i < sizeof(synth_gpus) / sizeof(synth_gpus[0]); i++)
		if (!strcasecmp(type, synth_gpus[i].name))
			return &synth_gpus[i];
	return NULL;
}

int gp__synth_check(const gp_synth_params_t *p, gp_error_t *err)
{
	if (!p)
		return gp__errorf(err, GP_EINVAL, "no parameters");
	if (p->nodes < 1 || p->nodes > 1000000)
		return gp__errorf(err, GP_EINVAL, "nodes: %d is not in [1, 1000000]", (int)p->nodes);
	if (p->gpus_per_node < 1 || p->gpus_per_node > GP_MAX_GPUS_PER_NODE)
		return gp__errorf(err, GP_EINVAL, "gpus-per-node: %d is not in [1, %d]",
		                  (int)p->gpus_per_node, GP_MAX_GPUS_PER_NODE);
	if (!find_gpu(p->gpu_type))
		return gp__errorf(err, GP_EINVAL,
		                  "gpu-type: '%s' is not one of h100, h200, a100, b200, gb200",
		                  p->gpu_type);
	if (p->nodes_per_leaf < 1)
		return gp__errorf(err, GP_EINVAL, "nodes-per-leaf: %d is not >= 1",
		                  (int)p->nodes_per_leaf);
	if (p->leaves_per_spine_group < 1)
		return gp__errorf(err, GP_EINVAL, "leaves-per-spine-group: %d is not >= 1",
		                  (int)p->leaves_per_spine_group);
	if (p->nodes_per_rack < 0)
		return gp__errorf(err, GP_EINVAL, "nodes-per-rack: %d is negative",
		                  (int)p->nodes_per_rack);
	if (p->nvl_domain_nodes < 0)
		return gp__errorf(err, GP_EINVAL, "nvl-domain-nodes: %d is negative",
		                  (int)p->nvl_domain_nodes);
	if (!(p->rack_kw >= 0 && p->rack_kw <= 1e6))
		return gp__errorf(err, GP_EINVAL, "rack-kw: %g is not in [0, 1e6]", p->rack_kw);
	if (!(p->oversub >= 1.0 && p->oversub <= 64.0))
		return gp__errorf(err, GP_EINVAL, "oversub: %g is not in [1, 64]", p->oversub);
	if (!p->name[0])
		return gp__errorf(err, GP_EINVAL, "name: empty");
	return GP_OK;
}

/* Everything both the in-memory builder and the conf writer derive. */
struct geo {
	const struct synth_gpu *gpu;
	int32_t nodes, gpus, npl, lpg, npr, nvld;
	int32_t nleaves, ngroups, nracks, nnvl;
	int nlevels;                /* 1 leaf only, 2 spine root, 3 core root */
	int wnode, wleaf, wgroup, wrack, wnvl;
	double node_peak_w, rack_kw;
	uint64_t seed;
};

static int digits(int32_t n)
{
	int d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

static int32_t ceil_div(int32_t a, int32_t b)
{
	return (a + b - 1) / b;
}

static void geo_init(struct geo *g, const gp_synth_params_t *p)
{
	memset(g, 0, sizeof(*g));
	g->gpu = find_gpu(p->gpu_type);
	g->nodes = p->nodes;
	g->gpus = p->gpus_per_node;
	g->npl = p->nodes_per_leaf;
	g->lpg = p->leaves_per_spine_group;
	g->nvld = p->nvl_domain_nodes;
	g->npr = p->nodes_per_rack ? p->nodes_per_rack : (g->nvld ? g->nvld : 4);
	g->nleaves = ceil_div(g->nodes, g->npl);
	g->ngroups = ceil_div(g->nleaves, g->lpg);
	g->nlevels = g->nleaves == 1 ? 1 : (g->ngroups == 1 ? 2 : 3);
	g->nracks = ceil_div(g->nodes, g->npr);
	g->nnvl = g->nvld ? ceil_div(g->nodes, g->nvld) : 0;
	g->wnode = digits(g->nodes) < 4 ? 4 : digits(g->nodes);
	g->wleaf = digits(g->nleaves) < 3 ? 3 : digits(g->nleaves);
	g->wgroup = digits(g->ngroups) < 2 ? 2 : digits(g->ngroups);
	g->wrack = digits(g->nracks) < 4 ? 4 : digits(g->nracks);
	g->wnvl = digits(g->nnvl) < 3 ? 3 : digits(g->nnvl);
	g->node_peak_w = g->gpus * g->gpu->tdp + g->gpu->node_base_w;
	/* default: a full rack at peak fits under the cap with the default
	 * PowerMargin (5 %, cluster.c and gpuplace.conf(5)) kept free, rounded
	 * up to 0.1 kW; a cap at exactly the peak would never let a full rack
	 * run once the margin is kept */
	g->rack_kw = p->rack_kw > 0 ? p->rack_kw :
	             ceil(g->npr * g->node_peak_w / (1.0 - 0.05) / 100.0) / 10.0;
	g->seed = p->seed;
}

/* splitmix64: a seeded, stateless value per rack. */
static uint64_t mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

/* Rack cap in kW: the nominal cap, or with a seed between 85 % and 115 %
 * of it in 0.1 kW steps (real sites have unevenly provisioned racks). */
static double rack_cap(const struct geo *g, int32_t r)
{
	uint64_t v;

	if (!g->seed)
		return g->rack_kw;
	v = mix(g->seed ^ ((uint64_t)r * 0x100000001B3ULL));
	return round(g->rack_kw * (0.85 + 0.30 * (double)(v >> 11) / 9007199254740992.0) * 10.0)
	       / 10.0;
}

static void node_name(const struct geo *g, int32_t i, char *buf, size_t size)
{
	snprintf(buf, size, "gpu%0*d", g->wnode, (int)(i + 1));
}

/* Hosts in one range of a host list: Slurm's hostlist refuses more
 * ("Too many hosts in range", MAX_RANGE in src/common/hostlist.c). */
#define SYNTH_MAX_RANGE 65536
/* The longest node_range: 1000000 nodes in ranges of SYNTH_MAX_RANGE. */
#define SYNTH_RANGE_MAX 512

/* Hostlist expression for names PREFIX<a+1> to PREFIX<b+1> (a, b 0-based,
 * inclusive; numbers width digits wide), in ranges of at most
 * SYNTH_MAX_RANGE names. */
static void name_range(const char *prefix, int width, int32_t a, int32_t b, char *buf,
                       size_t size)
{
	size_t used;
	int32_t x;

	if (a == b) {
		snprintf(buf, size, "%s%0*d", prefix, width, (int)(a + 1));
		return;
	}
	used = (size_t)snprintf(buf, size, "%s[", prefix);
	for (x = a; x <= b && used < size; x += SYNTH_MAX_RANGE) {
		int32_t y = b - x >= SYNTH_MAX_RANGE ? x + SYNTH_MAX_RANGE - 1 : b;

		if (y == x)
			used += (size_t)snprintf(buf + used, size - used, "%s%0*d", x > a ? "," : "",
			                         width, (int)(x + 1));
		else
			used += (size_t)snprintf(buf + used, size - used, "%s%0*d-%0*d",
			                         x > a ? "," : "", width, (int)(x + 1), width,
			                         (int)(y + 1));
	}
	if (used < size)
		snprintf(buf + used, size - used, "]");
}

/* Hostlist expression for nodes [a, b] (0-based, inclusive). */
static void node_range(const struct geo *g, int32_t a, int32_t b, char *buf, size_t size)
{
	name_range("gpu", g->wnode, a, b, buf, size);
}

static int32_t min32(int32_t a, int32_t b)
{
	return a < b ? a : b;
}

static int32_t *range_list(int32_t a, int32_t n)
{
	int32_t *v = malloc(((size_t)n + 1) * sizeof(*v)), i;

	if (v)
		for (i = 0; i < n; i++)
			v[i] = a + i;
	return v;
}

int gp__synth_build(const gp_synth_params_t *p, gp_cluster_t **out, gp_error_t *err)
{
	gp_cluster_t *c = NULL;
	struct geo g;
	char tbuf[GP_NAME_MAX + 16];
	int32_t i, s;
	int rc;

	if (out)
		*out = NULL;
	if (!out)
		return gp__errorf(err, GP_EINVAL, "no output pointer");
	if ((rc = gp__synth_check(p, err)) < 0)
		return rc;
	geo_init(&g, p);
	rc = GP_ENOMEM;
	if (!(c = gp__cluster_new()))
		goto nomem;
	snprintf(c->name, sizeof(c->name), "%s", p->name);

	c->profiles = calloc(1, sizeof(*c->profiles));
	c->layouts = calloc(1, sizeof(*c->layouts));
	if (!c->profiles || !c->layouts)
		goto nomem;
	c->nprofiles = 1;
	snprintf(c->profiles[0].name, GP_NAME_MAX, "%s", g.gpu->name);
	c->profiles[0].tflops_bf16 = g.gpu->tflops;
	c->profiles[0].hbm_gbps = g.gpu->hbm;
	c->profiles[0].nvlink_gbps = g.gpu->nvlink;
	c->profiles[0].tdp_w = g.gpu->tdp;
	c->profiles[0].idle_w = g.gpu->idle;
	c->profiles[0].min_cap_w = g.gpu->min_cap;
	c->nlayouts = 1;
	c->layouts[0].ngpus = g.gpus;

	c->nodes = calloc((size_t)g.nodes, sizeof(*c->nodes));
	if (!c->nodes)
		goto nomem;
	c->nnodes = g.nodes;
	for (i = 0; i < g.nodes; i++) {
		gp_node_t *n = &c->nodes[i];

		node_name(&g, i, n->name, sizeof(n->name));
		n->ngpus = g.gpus;
		n->profile = 0;
		/* as the slurm.conf it writes says: Gres=gpu:TYPE:N */
		if (snprintf(tbuf, sizeof(tbuf), "%s:%d", c->profiles[0].name, (int)g.gpus) < 0 ||
		    !(n->gpu_types = strdup(tbuf)))
			goto nomem;
		n->layout = 0;
		n->rails = g.gpus;              /* one NIC per GPU: rail-optimized */
		n->nic_gbps = SYNTH_LINK_GBPS;
		n->base_w = g.gpu->node_base_w;
		n->weight = 1;
		n->cpus = g.gpu->cpus;
		n->real_memory_mb = g.gpu->mem_mb;
		n->order = (uint32_t)i;
	}

	/* switches: leaves, then spine groups, then the core */
	c->nswitches = g.nleaves + (g.nlevels >= 2 ? g.ngroups : 0) + (g.nlevels == 3 ? 1 : 0);
	c->switches = calloc((size_t)c->nswitches, sizeof(*c->switches));
	if (!c->switches)
		goto nomem;
	for (s = 0; s < g.nleaves; s++) {
		gp_switch_t *w = &c->switches[s];
		int32_t a = s * g.npl;

		snprintf(w->name, GP_NAME_MAX, "su%0*d", g.wleaf, (int)(s + 1));
		w->nnodes = min32(g.npl, g.nodes - a);
		if (!(w->nodes = range_list(a, w->nnodes)))
			goto nomem;
		w->link_speed = SYNTH_LINK_GBPS;
	}
	if (g.nlevels >= 2)
		for (s = 0; s < g.ngroups; s++) {
			gp_switch_t *w = &c->switches[g.nleaves + s];
			int32_t a = s * g.lpg;

			snprintf(w->name, GP_NAME_MAX, "spine%0*d", g.wgroup, (int)(s + 1));
			w->nchildren = min32(g.lpg, g.nleaves - a);
			if (!(w->children = range_list(a, w->nchildren)))
				goto nomem;
			w->link_speed = SYNTH_LINK_GBPS;
		}
	if (g.nlevels == 3) {
		gp_switch_t *w = &c->switches[c->nswitches - 1];

		snprintf(w->name, GP_NAME_MAX, "core");
		w->nchildren = g.ngroups;
		if (!(w->children = range_list(g.nleaves, g.ngroups)))
			goto nomem;
		w->link_speed = SYNTH_LINK_GBPS;
	}
	for (i = 0; i < g.nlevels; i++) {
		c->levels[i].link_gbps = SYNTH_LINK_GBPS;
		c->levels[i].oversub = i == 1 ? p->oversub : 1.0;
		c->levels[i].latency_us = SYNTH_HOP_US;
		c->levels[i].set = true;
	}

	c->racks = calloc((size_t)g.nracks, sizeof(*c->racks));
	if (!c->racks)
		goto nomem;
	c->nracks = g.nracks;
	for (s = 0; s < g.nracks; s++) {
		gp_rack_t *r = &c->racks[s];
		int32_t a = s * g.npr;

		snprintf(r->name, GP_NAME_MAX, "r%0*d", g.wrack, (int)(s + 1));
		r->nnodes = min32(g.npr, g.nodes - a);
		if (!(r->nodes = range_list(a, r->nnodes)))
			goto nomem;
		r->power_cap_kw = rack_cap(&g, s);
		r->cooling_kw = r->power_cap_kw;
		r->node_base_w = g.gpu->node_base_w;
	}
	if (g.nnvl) {
		c->nvl = calloc((size_t)g.nnvl, sizeof(*c->nvl));
		if (!c->nvl)
			goto nomem;
		c->nnvl = g.nnvl;
		for (s = 0; s < g.nnvl; s++) {
			gp_nvl_domain_t *d = &c->nvl[s];
			int32_t a = s * g.nvld;

			snprintf(d->name, GP_NAME_MAX, "nvl%0*d", g.wnvl, (int)(s + 1));
			d->nnodes = min32(g.nvld, g.nodes - a);
			if (!(d->nodes = range_list(a, d->nnodes)))
				goto nomem;
			d->gbps_per_gpu = g.gpu->nvlink;
		}
	}

	c->parts = calloc(1, sizeof(*c->parts));
	if (!c->parts)
		goto nomem;
	c->nparts = 1;
	snprintf(c->parts[0].name, GP_NAME_MAX, "gpu");
	c->parts[0].is_default = true;
	c->parts[0].up = true;
	c->parts[0].max_time_min = UINT32_MAX;
	c->parts[0].nnodes = g.nodes;
	if (!(c->parts[0].nodes = range_list(0, g.nodes)))
		goto nomem;

	c->storage = calloc(2, sizeof(*c->storage));
	if (!c->storage)
		goto nomem;
	c->nstorage = 2;
	snprintf(c->storage[0].name, GP_NAME_MAX, "nvme");
	c->storage[0].scope = GP_SCOPE_NODE;
	c->storage[0].write_gbps = SYNTH_NVME_WRITE_GBPS;
	c->storage[0].read_gbps = SYNTH_NVME_READ_GBPS;
	snprintf(c->storage[1].name, GP_NAME_MAX, "pfs");
	c->storage[1].scope = GP_SCOPE_CLUSTER;
	c->storage[1].write_gbps = SYNTH_PFS_WRITE_GBPS;
	c->storage[1].read_gbps = SYNTH_PFS_READ_GBPS;

	if ((rc = gp__cluster_finish(c, err)) < 0)
		goto error;
	/* the topology-domain features job_submit/gpuplace constrains jobs
	 * with, as `gpuplace conf --what nodes` writes them and the
	 * slurm.conf synth writes gives them: a synthetic site is complete */
	for (i = 0; i < g.nodes; i++) {
		char feat[1024];

		if (gp__node_domain_features(c, i, feat, sizeof(feat))) {
			rc = gp__errorf(err, GP_ELIMIT, "domain features of '%s' are too long",
			                c->nodes[i].name);
			goto error;
		}
		if (feat[0] && !(c->nodes[i].features = strdup(feat)))
			goto nomem;
	}
	*out = c;
	return GP_OK;
nomem:
	rc = gp__errorf(err, GP_ENOMEM, "out of memory building a %d-node cluster", (int)p->nodes);
error:
	gp_cluster_destroy(c);
	return rc;
}

/* ---- configuration files ---------------------------------------------- */

static FILE *open_conf(const char *dir, const char *file, char *path, size_t size,
                       gp_error_t *err)
{
	FILE *f;

	snprintf(path, size, "%s/%s", dir, file);
	if (!(f = fopen(path, "w")))
		gp__errorf(err, GP_EIO, "%s: %s", path, strerror(errno));
	return f;
}

static int close_conf(FILE *f, const char *path, gp_error_t *err)
{
	int bad = ferror(f);

	if (fclose(f) != 0 || bad)
		return gp__errorf(err, GP_EIO, "%s: write failed", path);
	return GP_OK;
}

/* slurm.conf; c: the model synth builds from the same parameters, whose
 * nodes' features (the domain features) the NodeName lines give, one line
 * per run of nodes with the same ones. */
static void write_slurm_conf(FILE *f, const struct geo *g, const gp_synth_params_t *p,
                             const gp_cluster_t *c)
{
	char nl[SYNTH_RANGE_MAX];
	int32_t a, b;

	fprintf(f, "# slurm.conf for a synthetic %d-node cluster (gpuplace synth), its\n"
	        "# nodes with the topology-domain features job_submit/gpuplace keeps a job\n"
	        "# inside one domain with (gpsw_ switch, gpnvl_ NVLink domain, gprack_ rack)\n",
	        (int)g->nodes);
	fprintf(f, "ClusterName=%s\n", p->name);
	fprintf(f, "SlurmctldHost=localhost\nSelectType=select/cons_tres\n"
	        "TopologyPlugin=topology/tree\nGresTypes=gpu\n\n");
	fprintf(f, "NodeName=DEFAULT CPUs=%d RealMemory=%lld Gres=gpu:%s:%d State=UNKNOWN\n",
	        (int)g->gpu->cpus, (long long)g->gpu->mem_mb, g->gpu->name, (int)g->gpus);
	for (a = 0; a < g->nodes; a = b + 1) {
		const char *fa = c->nodes[a].features;

		for (b = a; b + 1 < g->nodes; b++) {
			const char *fb = c->nodes[b + 1].features;

			if (!fa != !fb || (fa && strcmp(fa, fb)))
				break;
		}
		node_range(g, a, b, nl, sizeof(nl));
		if (fa)
			fprintf(f, "NodeName=%s Features=%s\n", nl, fa);
		else
			fprintf(f, "NodeName=%s\n", nl);
	}
	fprintf(f, "\nPartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n");
}

static void write_topology_conf(FILE *f, const struct geo *g)
{
	char nl[SYNTH_RANGE_MAX];
	int32_t s;

	fprintf(f, "# Rail-optimized leaf/spine fabric: one leaf switch per scalable unit\n"
	        "# of %d nodes (its rail leaves), %d units per spine group%s.\n",
	        (int)g->npl, (int)g->lpg, g->nlevels == 3 ? ", a core above" : "");
	for (s = 0; s < g->nleaves; s++) {
		int32_t a = s * g->npl, b = min32(a + g->npl, g->nodes) - 1;

		node_range(g, a, b, nl, sizeof(nl));
		fprintf(f, "SwitchName=su%0*d Nodes=%s LinkSpeed=%g\n", g->wleaf, (int)(s + 1), nl,
		        SYNTH_LINK_GBPS);
	}
	if (g->nlevels >= 2)
		for (s = 0; s < g->ngroups; s++) {
			int32_t a = s * g->lpg, b = min32(a + g->lpg, g->nleaves) - 1;

			name_range("su", g->wleaf, a, b, nl, sizeof(nl));
			fprintf(f, "SwitchName=spine%0*d Switches=%s LinkSpeed=%g\n", g->wgroup,
			        (int)(s + 1), nl, SYNTH_LINK_GBPS);
		}
	if (g->nlevels == 3) {
		name_range("spine", g->wgroup, 0, g->ngroups - 1, nl, sizeof(nl));
		fprintf(f, "SwitchName=core Switches=%s LinkSpeed=%g\n", nl, SYNTH_LINK_GBPS);
	}
}

static void write_gres_conf(FILE *f, const struct geo *g)
{
	fprintf(f, "# Every node: %d %s GPUs behind NVSwitch\n", (int)g->gpus, g->gpu->name);
	if (g->gpus == 1)
		fprintf(f, "Name=gpu Type=%s File=/dev/nvidia0\n", g->gpu->name);
	else
		fprintf(f, "Name=gpu Type=%s File=/dev/nvidia[0-%d]\n", g->gpu->name,
		        (int)g->gpus - 1);
}

static void write_gpuplace_conf(FILE *f, const struct geo *g, const gp_synth_params_t *p)
{
	const struct synth_gpu *u = g->gpu;
	char nl[SYNTH_RANGE_MAX], b1[32], b2[32];
	int32_t s;
	int l;

	fprintf(f, "# gpuplace.conf for a synthetic cluster (gpuplace synth)\n");
	/* the defaults of gp__cluster_new() (cost_model/cluster.c cites them),
	 * written out so the site sees and can change them */
	fprintf(f, "DefaultGradientBytes=1e9 NodeFailureRate=23.7 RestartSeconds=300 "
	        "PowerMargin=0.05 TelemetryStale=60\n\n");
	fprintf(f, "GpuProfile=%s TFLOPS=%g HBMGBps=%g NVLinkGBps=%g TDPWatts=%g IdleWatts=%g "
	        "MinCapWatts=%g\n\n", u->name, u->tflops, u->hbm, u->nvlink, u->tdp, u->idle,
	        u->min_cap);
	for (l = 0; l < g->nlevels; l++)
		fprintf(f, "FabricLevel=%d LinkGBps=%g Oversubscription=%s LatencyUs=%g\n", l,
		        SYNTH_LINK_GBPS, gp__double_str(b1, l == 1 ? p->oversub : 1.0),
		        SYNTH_HOP_US);
	node_range(g, 0, g->nodes - 1, nl, sizeof(nl));
	fprintf(f, "\nNodeName=%s Rails=%d NicGBps=%g\n\n", nl, (int)g->gpus, SYNTH_LINK_GBPS);
	for (s = 0; s < g->nnvl; s++) {
		int32_t a = s * g->nvld, b = min32(a + g->nvld, g->nodes) - 1;

		node_range(g, a, b, nl, sizeof(nl));
		fprintf(f, "NVLinkDomain=nvl%0*d Nodes=%s GBps=%g\n", g->wnvl, (int)(s + 1), nl,
		        u->nvlink);
	}
	if (g->nnvl)
		fprintf(f, "\n");
	for (s = 0; s < g->nracks; s++) {
		int32_t a = s * g->npr, b = min32(a + g->npr, g->nodes) - 1;
		double cap = rack_cap(g, s);

		node_range(g, a, b, nl, sizeof(nl));
		fprintf(f, "Rack=r%0*d Nodes=%s PowerCapKW=%s CoolingKW=%s NodeBaseWatts=%g\n",
		        g->wrack, (int)(s + 1), nl, gp__double_str(b1, cap),
		        gp__double_str(b2, cap), u->node_base_w);
	}
	fprintf(f, "\nStorage=nvme Scope=node WriteGBps=%g ReadGBps=%g\n", SYNTH_NVME_WRITE_GBPS,
	        SYNTH_NVME_READ_GBPS);
	fprintf(f, "Storage=pfs Scope=cluster WriteGBps=%g ReadGBps=%g\n", SYNTH_PFS_WRITE_GBPS,
	        SYNTH_PFS_READ_GBPS);
}

int gp__synth_write_conf(const gp_synth_params_t *p, const char *dir, gp_error_t *err)
{
	char path[GP_PATH_MAX + 32];
	gp_cluster_t *c = NULL;
	struct geo g;
	FILE *f;
	int rc;

	if (!dir)
		return gp__errorf(err, GP_EINVAL, "no directory");
	if ((rc = gp__synth_check(p, err)) < 0)
		return rc;
	if (mkdir(dir, 0777) < 0 && errno != EEXIST)
		return gp__errorf(err, GP_EIO, "%s: %s", dir, strerror(errno));
	geo_init(&g, p);
	if ((rc = gp__synth_build(p, &c, err)) < 0)
		return rc;

	if (!(f = open_conf(dir, "slurm.conf", path, sizeof(path), err))) {
		gp_cluster_destroy(c);
		return GP_EIO;
	}
	write_slurm_conf(f, &g, p, c);
	gp_cluster_destroy(c);
	if ((rc = close_conf(f, path, err)) < 0)
		return rc;
	if (!(f = open_conf(dir, "topology.conf", path, sizeof(path), err)))
		return GP_EIO;
	write_topology_conf(f, &g);
	if ((rc = close_conf(f, path, err)) < 0)
		return rc;
	if (!(f = open_conf(dir, "gres.conf", path, sizeof(path), err)))
		return GP_EIO;
	write_gres_conf(f, &g);
	if ((rc = close_conf(f, path, err)) < 0)
		return rc;
	if (!(f = open_conf(dir, "gpuplace.conf", path, sizeof(path), err)))
		return GP_EIO;
	write_gpuplace_conf(f, &g, p);
	return close_conf(f, path, err);
}
