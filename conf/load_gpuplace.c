/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * load_gpuplace.c - gpuplace.conf: what Slurm's files do not say (GPU
 * profiles, fabric bandwidths, NIC rails, NVLink domains, racks with power
 * caps, storage, telemetry sources, site settings).  Every key is listed
 * here; anything else is a problem.
 *
 * A problem switches off the part it describes and nothing else: a line
 * that describes one object (a GPU profile, a rack, an NVLink domain, a
 * storage target, a telemetry source, a fabric level, per-node NIC facts)
 * is dropped whole, a site key keeps its default, and each is a warning
 * naming file:line:key:value and what the model loses, so that every
 * problem of the file is reported in one pass (gpuplace.conf(5),
 * "PROBLEMS").  Only what the reader cannot get past (a file it cannot
 * read, a quote left open, an Include cycle) stops the load.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "cost.h"
#include "power.h"

typedef struct gpp_ctx {
	gp__load_t *ld;
	gp__nametab_t profiles, nvl, racks, storage, telemetry;
	gp__conf_loc_t level_loc[GP_MAX_LEVELS];
	gp__conf_loc_t *profile_loc, *storage_loc, *telemetry_loc;
	gp__conf_loc_t global_loc[16]; /* per key of globals[]: where it was set */
} gpp_ctx_t;

/* The site-wide keys (line_global), each allowed once in the file. */
static const char *const globals[] = { "DefaultGradientBytes", "NodeFailureRate",
	                               "RestartSeconds", "PowerMargin", "TelemetryStale",
	                               "BlockNVLinkDomains", "DefaultGpuProfile", "PowerHres",
	                               "PowerLicenses" };

/* A key of an object line: its spelling and the value found (NULL if absent). */
typedef struct okey {
	const char *name;
	const char *val;
} okey_t;

/* Match the keys of l (after the first) against keys[]; unknown = error. */
static int match_keys(const gp__conf_line_t *l, okey_t *keys, int nkeys, gp_error_t *err)
{
	int i, k;

	for (k = 0; k < nkeys; k++)
		keys[k].val = NULL;
	for (i = 1; i < l->n; i++) {
		for (k = 0; k < nkeys; k++)
			if (gp__conf_is(&l->kv[i], keys[k].name)) {
				keys[k].val = l->kv[i].val;
				break;
			}
		if (k == nkeys)
			return gp__conf_err(err, &l->loc, l->kv[i].key, "unknown key");
	}
	return GP_OK;
}

static int required(const gp__conf_line_t *l, const okey_t *k, const char *what,
                    gp_error_t *err)
{
	if (k->val)
		return GP_OK;
	return gp__conf_err(err, &l->loc, k->name, "required key missing (%s '%s')", what,
	                    l->kv[0].val);
}

/* Optional double: keeps *out (the default) when absent. */
/* Warning thresholds for bandwidths out of physical range (sources at
 * their use). */
#define NVLINK_GBPS_MAX 10000.0
#define LINK_GBPS_MAX 1000.0

/* Longest a telemetry read may take.  Prometheus refuses a scrape_timeout
 * longer than its scrape_interval and defaults it to 10 s (Prometheus
 * configuration docs, <scrape_config>); its own query API gives up after
 * --query.timeout, 2 minutes by default.  A rack power reading older than a
 * minute says little about the power a job placed now will draw, and the
 * poller is stopped between reads on slurmctld shutdown and reconfigure,
 * so 60 s bounds how long any source may hold it. */
#define TELEMETRY_TIMEOUT_MAX 60.0

static int opt_double(const gp__conf_line_t *l, const okey_t *k, double min, double max,
                      double *out, gp_error_t *err)
{
	if (!k->val)
		return GP_OK;
	return gp__conf_double(&l->loc, k->name, k->val, min, max, out, err);
}

/* The name-table index of a name whose line was dropped (a rack without
 * PowerCapKW, a line with a problem): known, so that a reference to it is
 * not a second problem, but not modelled. */
#define NAME_OFF (-2)

/* Append one element to an object array and its name table; checks the
 * name and duplicates.  Returns the new index through *idx. */
static int new_object(const gp__conf_line_t *l, const char *what, gp__nametab_t *tab,
                      void *arrp, int32_t *n, size_t sz, gp__conf_loc_t **locs,
                      int32_t *idx, gp_error_t *err)
{
	const char *name = l->kv[0].val;
	int32_t dup;
	int rc;

	if (!*name)
		return gp__conf_err(err, &l->loc, what, "empty name");
	if (strlen(name) >= GP_NAME_MAX)
		return gp__conf_err(err, &l->loc, what, "name '%.40s...' is longer than %d characters",
		                    name, GP_NAME_MAX - 1);
	if (gp__nametab_find(tab, name) == NAME_OFF) {
		/* its earlier line was dropped: this one is the object */
		dup = -1;
		gp__nametab_set(tab, name, *n);
	} else if ((rc = gp__nametab_add(tab, name, *n, &dup)))
		return gp__errorf(err, rc, "out of memory");
	if (dup >= 0)
		return gp__conf_err(err, &l->loc, what, "duplicate name '%s' (first at %s:%d)", name,
		                    (*locs)[dup].path, (*locs)[dup].line);
	if (gp__grow(arrp, (size_t)*n, sz) || gp__grow(locs, (size_t)*n, sizeof(**locs)))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	(*locs)[*n] = l->loc;
	*idx = (*n)++;
	/* every object struct starts with its name */
	snprintf(*(char **)arrp + (size_t)*idx * sz, GP_NAME_MAX, "%s", name);
	return GP_OK;
}

/*
 * The lowest power limit each known GPU model accepts (nvidia-smi
 * --query-gpu=power.min_limit, "Min Power Limit" of nvidia-smi -q), used
 * when a GpuProfile leaves MinCapWatts out.  A model is known by its
 * profile name and its TDPWatts together (an A100 is a 400 W SXM board or a
 * 300 W PCIe card, whose floors differ).  Models not listed keep the
 * documented default of TDPWatts / 2.
 */
static const struct gpu_floor {
	const char *name;
	double tdp_w, min_cap_w;
} gpu_floors[] = {
	/* H200 SXM: nvidia-smi on a real H200 reported default 700 W, min
	 * 200 W, max 700 W (shared/data/hwloc/README.md) [S]. */
	{ "h200", 700.0, 200.0 },
	/* H100 SXM: 200-700 W, the H200's board limits (same board power,
	 * same SXM5 module); H100 cap sweeps start at 200 W (arXiv 2604.11391,
	 * notes/calibration.md sec. 4) [S abstract]; nvidia-smi -q "Min Power
	 * Limit: 200.00 W" [R]. */
	{ "h100", 700.0, 200.0 },
	/* A100 SXM4: nvidia-smi -q "Min Power Limit: 100.00 W", "Max Power
	 * Limit: 400.00 W" [R]; etc/prolog/gpuplace-powercap states the same
	 * range. */
	{ "a100", 400.0, 100.0 },
	/* A100 PCIe 80 GB: 150-300 W [R: nvidia-smi -q on the card]. */
	{ "a100", 300.0, 150.0 },
};

/* The built-in floor of profile name/tdp_w, or 0 when the model is not known. */
static double builtin_min_cap(const char *name, double tdp_w)
{
	size_t i;

	for (i = 0; i < sizeof(gpu_floors) / sizeof(gpu_floors[0]); i++)
		if (!strcasecmp(name, gpu_floors[i].name) && tdp_w == gpu_floors[i].tdp_w)
			return gpu_floors[i].min_cap_w;
	return 0.0;
}

static int line_profile(gpp_ctx_t *x, const gp__conf_line_t *l, gp_error_t *err)
{
	gp_cluster_t *c = x->ld->c;
	okey_t k[] = { { "TFLOPS", NULL }, { "HBMGBps", NULL }, { "NVLinkGBps", NULL }, { "TDPWatts", NULL },
		       { "IdleWatts", NULL }, { "MinCapWatts", NULL }, { "PCIeGen", NULL },
		       { "PCIeP2P", NULL } };
	gp_gpu_profile_t *p;
	int32_t i;
	int rc, j;
	long gen;

	if ((rc = match_keys(l, k, 8, err)))
		return rc;
	for (j = 0; j < 5; j++)
		if ((rc = required(l, &k[j], "GpuProfile", err)))
			return rc;
	if ((rc = new_object(l, "GpuProfile", &x->profiles, &c->profiles, &c->nprofiles,
	                     sizeof(*c->profiles), &x->profile_loc, &i, err)))
		return rc;
	p = &c->profiles[i];
	if ((rc = opt_double(l, &k[0], 0, 1e6, &p->tflops_bf16, err)) ||
	    (rc = opt_double(l, &k[1], 0, 1e6, &p->hbm_gbps, err)) ||
	    (rc = opt_double(l, &k[2], 0, 1e6, &p->nvlink_gbps, err)) ||
	    (rc = opt_double(l, &k[3], 1, 1e5, &p->tdp_w, err)) ||
	    (rc = opt_double(l, &k[4], 0, 1e5, &p->idle_w, err)) ||
	    (rc = opt_double(l, &k[5], 0, 1e5, &p->min_cap_w, err)))
		return rc;
	if (k[6].val) {
		if ((rc = gp__conf_long(&l->loc, "PCIeGen", k[6].val, 3, 6, &gen, err)))
			return rc;
		p->pcie_gen = (int32_t)gen;
	}
	if (k[7].val) {
		if (!strcasecmp(k[7].val, "no"))
			p->no_pcie_p2p = true;
		else if (strcasecmp(k[7].val, "yes"))
			return gp__conf_err(err, &l->loc, "PCIeP2P", "'%s' is not yes or no",
			                    k[7].val);
	}
	if (p->idle_w > p->tdp_w)
		return gp__conf_err(err, &l->loc, "IdleWatts", "'%s' is above TDPWatts '%s'",
		                    k[4].val, k[3].val);
	/* NVLink 5 gives a Blackwell GPU 1.8 TB/s (NVIDIA); 10 TB/s per GPU is
	 * beyond any NVLink generation: GB/s written as Gb/s or MB/s? */
	if (p->nvlink_gbps > NVLINK_GBPS_MAX &&
	    gp__cluster_warnf(c, "%s:%d: NVLinkGBps: %g GB/s is above %g GB/s, faster than any "
	                      "NVLink generation (NVLink 5: 1800 GB/s per GPU)", l->loc.path,
	                      l->loc.line, p->nvlink_gbps, NVLINK_GBPS_MAX))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	if (p->min_cap_w > p->tdp_w)
		return gp__conf_err(err, &l->loc, "MinCapWatts", "'%s' is above TDPWatts '%s'",
		                    k[5].val, k[3].val);
	/* a cap the GPU refuses is no plan: without MinCapWatts, the known
	 * model's floor (else TDPWatts / 2, model.h) */
	if (!k[5].val)
		p->min_cap_w = builtin_min_cap(p->name, p->tdp_w);
	return GP_OK;
}

static int line_level(gpp_ctx_t *x, const gp__conf_line_t *l, gp_error_t *err)
{
	gp_cluster_t *c = x->ld->c;
	okey_t k[] = { { "LinkGBps", NULL }, { "Oversubscription", NULL }, { "LatencyUs", NULL },
		       { "Transport", NULL }, { "NetStepUs", NULL }, { "NetEfficiency", NULL },
		       { "NetFillUs", NULL }, { "NetFillLevelUs", NULL } };
	long n, max = c->nlevels < GP_MAX_LEVELS - 1 ? c->nlevels : GP_MAX_LEVELS - 1;
	gp_fabric_level_t *f;
	int rc, j, t;

	if (!x->ld->has_topology) {
		gp_error_t scratch;

		/* levels above 0 are switch levels, which only topology.conf gives */
		if (!gp__conf_long(&l->loc, "FabricLevel", l->kv[0].val, 1, GP_MAX_LEVELS - 1, &n,
		                   &scratch))
			return gp__conf_err(err, &l->loc, "FabricLevel",
			                    "level %ld is a switch level, but %s/topology.conf does not "
			                    "exist or has no SwitchName line", n, x->ld->dir);
	}
	if ((rc = gp__conf_long(&l->loc, "FabricLevel", l->kv[0].val, 0, max, &n, err)))
		return rc;
	if ((rc = match_keys(l, k, 8, err)) || (rc = required(l, &k[0], "FabricLevel", err)))
		return rc;
	/* the transport describes the NICs: level 0 only */
	for (j = 3; n > 0 && j < 8; j++)
		if (k[j].val)
			return gp__conf_err(err, &l->loc, k[j].name, "'%s': only FabricLevel=0 (the "
			                    "NICs) has a transport", k[j].val);
	f = &c->levels[n];
	if (f->set)
		return gp__conf_err(err, &l->loc, "FabricLevel", "duplicate level %ld (first at %s:%d)",
		                    n, x->level_loc[n].path, x->level_loc[n].line);
	x->level_loc[n] = l->loc;
	f->oversub = 1.0;
	f->latency_us = 0.5; /* default of gpuplace.conf(5) */
	if ((rc = opt_double(l, &k[0], 1e-6, 1e6, &f->link_gbps, err)) ||
	    (rc = opt_double(l, &k[1], 1, 1e3, &f->oversub, err)) ||
	    (rc = opt_double(l, &k[2], 0, 1e6, &f->latency_us, err)) ||
	    (rc = opt_double(l, &k[4], 0, 1e6, &f->step_us, err)) ||
	    (rc = opt_double(l, &k[5], 0.001, 1, &f->net_eff, err)) ||
	    (rc = opt_double(l, &k[6], 0, 1e6, &f->fill_us, err)) ||
	    (rc = opt_double(l, &k[7], 0, 1e6, &f->fill_level_us, err)))
		return rc;
	if (k[3].val) {
		if (gp__transport_parse(k[3].val, &t))
			return gp__conf_err(err, &l->loc, "Transport", "'%s' is not ib, roce, efa, tcp or offload",
			                    k[3].val);
		f->transport = t;
	}
	/* the fastest network ports are 800 Gb/s (100 GB/s); 8 rails of them
	 * make 800 GB/s per node, so a link above 1 TB/s is a unit slip (the
	 * SimAI constants in calibration.md give 48.5 GB/s per 400G NIC) */
	if (f->link_gbps > LINK_GBPS_MAX &&
	    gp__cluster_warnf(c, "%s:%d: LinkGBps: %g GB/s at level %ld is above %g GB/s, more "
	                      "than 8 rails of 800 Gb/s ports: Gb/s or MB/s written as GB/s?",
	                      l->loc.path, l->loc.line, f->link_gbps, n, LINK_GBPS_MAX))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	f->set = true;
	return GP_OK;
}

typedef struct node_set {
	gp__load_t *ld;
	const gp__conf_loc_t *loc;
	long rails;             /* < 0: keep */
	double nic;             /* < 0: keep */
	int32_t unknown;        /* names not in slurm.conf (skipped) */
	char first_unknown[GP_NAME_MAX];
} node_set_t;

static int set_node(void *arg, const char *name, gp_error_t *err)
{
	node_set_t *s = arg;
	int32_t i = gp__node_find(s->ld->c, name);

	(void)err;
	if (i < 0) {
		/* as gres.conf's lines for a node slurm.conf does not have:
		 * that name is skipped, the line's other nodes get it */
		if (s->unknown++ == 0)
			snprintf(s->first_unknown, sizeof(s->first_unknown), "%s", name);
		return GP_OK;
	}
	if (s->rails >= 0)
		s->ld->c->nodes[i].rails = (int32_t)s->rails;
	if (s->nic >= 0)
		s->ld->nic_gbps[i] = s->nic;
	return GP_OK;
}

static int line_node(gpp_ctx_t *x, const gp__conf_line_t *l, gp_error_t *err)
{
	okey_t k[] = { { "Rails", NULL }, { "NicGBps", NULL } };
	node_set_t s = { .ld = x->ld, .loc = &l->loc, .rails = -1, .nic = -1 };
	int rc;

	if ((rc = match_keys(l, k, 2, err)))
		return rc;
	if (k[0].val && (rc = gp__conf_long(&l->loc, "Rails", k[0].val, 0, 64, &s.rails, err)))
		return rc;
	if ((rc = opt_double(l, &k[1], 1e-6, 1e6, &s.nic, err)))
		return rc;
	if ((rc = gp__conf_hostlist(&l->loc, "NodeName", l->kv[0].val, set_node, &s, err)))
		return rc;
	if (s.unknown && gp__cluster_warnf(x->ld->c, "%s:%d: NodeName: %d node%s not in slurm.conf "
	                                   "(first '%s') ignored; the line's other nodes "
	                                   "get its values", l->loc.path, l->loc.line,
	                                   (int)s.unknown, s.unknown == 1 ? "" : "s",
	                                   s.first_unknown))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	return GP_OK;
}

static int line_nvl(gpp_ctx_t *x, const gp__conf_line_t *l, gp_error_t *err)
{
	gp__load_t *ld = x->ld;
	gp_cluster_t *c = ld->c;
	okey_t k[] = { { "Nodes", NULL }, { "GBps", NULL } };
	gp_nvl_domain_t *d;
	int32_t i, j;
	int rc;

	if ((rc = match_keys(l, k, 2, err)) || (rc = required(l, &k[0], "NVLinkDomain", err)))
		return rc;
	if (gp__grow(&ld->nvl_gbps, (size_t)c->nnvl, sizeof(*ld->nvl_gbps)))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	if ((rc = new_object(l, "NVLinkDomain", &x->nvl, &c->nvl, &c->nnvl, sizeof(*c->nvl),
	                     &ld->nvl_loc, &i, err)))
		return rc;
	d = &c->nvl[i];
	ld->nvl_gbps[i] = -1;
	if ((rc = opt_double(l, &k[1], 1e-6, 1e6, &ld->nvl_gbps[i], err)))
		return rc;
	if ((rc = gp__conf_nodes(c, &l->loc, "Nodes", k[0].val, &d->nodes, &d->nnodes, err)))
		return rc;
	for (j = 0; j < d->nnodes; j++) {
		gp_node_t *n = &c->nodes[d->nodes[j]];

		if (n->nvl_domain >= 0)
			return gp__conf_err(err, &l->loc, "Nodes",
			                    "node '%s' is already in NVLink domain '%s' (%s:%d)", n->name,
			                    c->nvl[n->nvl_domain].name, ld->nvl_loc[n->nvl_domain].path,
			                    ld->nvl_loc[n->nvl_domain].line);
		n->nvl_domain = i;
		d->ngpus += n->ngpus;
	}
	return GP_OK;
}

/* The name-table index of a rack read without PowerCapKW (not modelled). */
#define RACK_OFF NAME_OFF

static int line_rack(gpp_ctx_t *x, const gp__conf_line_t *l, gp_error_t *err)
{
	gp__load_t *ld = x->ld;
	gp_cluster_t *c = ld->c;
	okey_t k[] = { { "Nodes", NULL }, { "PowerCapKW", NULL }, { "CoolingKW", NULL }, { "NodeBaseWatts", NULL } };
	gp_rack_t *r;
	int32_t i, j;
	int rc;

	if ((rc = match_keys(l, k, 4, err)) || (rc = required(l, &k[0], "Rack", err)))
		return rc;
	if (!k[1].val) {
		/* a rack without its cap: this rack's power is not modelled,
		 * the rest of the site is (its name stays known, as RACK_OFF,
		 * so Telemetry lines naming it are not errors) */
		int32_t *nodes = NULL, nn = 0, dup;

		if ((rc = gp__conf_nodes(c, &l->loc, "Nodes", k[0].val, &nodes, &nn, err)))
			return rc;
		free(nodes);
		if (gp__nametab_add(&x->racks, l->kv[0].val, RACK_OFF, &dup))
			return gp__errorf(err, GP_ENOMEM, "out of memory");
		if (gp__cluster_warnf(c, "%s:%d: PowerCapKW: rack '%s' has no PowerCapKW: power not "
		                      "considered on its %d node%s", l->loc.path, l->loc.line,
		                      l->kv[0].val, (int)nn, nn == 1 ? "" : "s"))
			return gp__errorf(err, GP_ENOMEM, "out of memory");
		return GP_OK;
	}
	if ((rc = new_object(l, "Rack", &x->racks, &c->racks, &c->nracks, sizeof(*c->racks),
	                     &ld->rack_loc, &i, err)))
		return rc;
	r = &c->racks[i];
	if ((rc = opt_double(l, &k[1], 0, 1e6, &r->power_cap_kw, err)))
		return rc;
	r->cooling_kw = r->power_cap_kw;
	if ((rc = opt_double(l, &k[2], 0, 1e6, &r->cooling_kw, err)) ||
	    (rc = opt_double(l, &k[3], 0, 1e5, &r->node_base_w, err)))
		return rc;
	if ((rc = gp__conf_nodes(c, &l->loc, "Nodes", k[0].val, &r->nodes, &r->nnodes, err)))
		return rc;
	for (j = 0; j < r->nnodes; j++) {
		gp_node_t *n = &c->nodes[r->nodes[j]];

		if (n->rack >= 0)
			return gp__conf_err(err, &l->loc, "Nodes",
			                    "node '%s' is already in rack '%s' (%s:%d)", n->name,
			                    c->racks[n->rack].name, ld->rack_loc[n->rack].path,
			                    ld->rack_loc[n->rack].line);
		n->rack = i;
		n->base_w = r->node_base_w;
	}
	return GP_OK;
}

static int line_storage(gpp_ctx_t *x, const gp__conf_line_t *l, gp_error_t *err)
{
	gp_cluster_t *c = x->ld->c;
	okey_t k[] = { { "Scope", NULL }, { "WriteGBps", NULL }, { "ReadGBps", NULL }, { "Nodes", NULL } };
	gp_storage_t *s;
	int32_t i;
	int rc;

	if ((rc = match_keys(l, k, 4, err)) || (rc = required(l, &k[0], "Storage", err)) ||
	    (rc = required(l, &k[1], "Storage", err)))
		return rc;
	if ((rc = new_object(l, "Storage", &x->storage, &c->storage, &c->nstorage,
	                     sizeof(*c->storage), &x->storage_loc, &i, err)))
		return rc;
	s = &c->storage[i];
	if (!strcasecmp(k[0].val, "node"))
		s->scope = GP_SCOPE_NODE;
	else if (!strcasecmp(k[0].val, "rack"))
		s->scope = GP_SCOPE_RACK;
	else if (!strcasecmp(k[0].val, "cluster"))
		s->scope = GP_SCOPE_CLUSTER;
	else
		return gp__conf_err(err, &l->loc, "Scope", "'%s' is not node, rack or cluster",
		                    k[0].val);
	if ((rc = opt_double(l, &k[1], 0, 1e7, &s->write_gbps, err)))
		return rc;
	s->read_gbps = s->write_gbps;
	if ((rc = opt_double(l, &k[2], 0, 1e7, &s->read_gbps, err)))
		return rc;
	if (k[3].val)
		return gp__conf_nodes(c, &l->loc, "Nodes", k[3].val, &s->nodes, &s->nnodes, err);
	return GP_OK;
}

static int line_telemetry(gpp_ctx_t *x, const gp__conf_line_t *l, gp_error_t *err)
{
	gp__load_t *ld = x->ld;
	gp_cluster_t *c = ld->c;
	enum { TYPE, URL, PATH, QUERY, LABEL, RACKS, NODES, INTERVAL, TIMEOUT, STALE, AUTH,
	       AUTHFILE, CAFILE, NKEYS };
	okey_t k[NKEYS] = { { "Type", NULL }, { "URL", NULL }, { "Path", NULL }, { "Query", NULL }, { "RackLabel", NULL },
			    { "Racks", NULL }, { "Nodes", NULL }, { "Interval", NULL }, { "Timeout", NULL }, { "Stale", NULL },
			    { "AuthType", NULL }, { "AuthFile", NULL }, { "CAFile", NULL } };
	gp__load_telemetry_t *lt;
	gp_telemetry_t *t;
	int32_t i;
	int rc;

	if ((rc = match_keys(l, k, NKEYS, err)) || (rc = required(l, &k[TYPE], "Telemetry", err)))
		return rc;
	/* ld->tel first: it must cover every entry counted in ntelemetry */
	if (gp__grow(&ld->tel, (size_t)c->ntelemetry, sizeof(*ld->tel)))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	if ((rc = new_object(l, "Telemetry", &x->telemetry, &c->telemetry, &c->ntelemetry,
	                     sizeof(*c->telemetry), &x->telemetry_loc, &i, err)))
		return rc;
	t = &c->telemetry[i];
	lt = &ld->tel[i];
	lt->loc = l->loc;
	if (!strcasecmp(k[TYPE].val, "prometheus"))
		t->kind = GP_TELEMETRY_PROMETHEUS;
	else if (!strcasecmp(k[TYPE].val, "redfish"))
		t->kind = GP_TELEMETRY_REDFISH;
	else if (!strcasecmp(k[TYPE].val, "file"))
		t->kind = GP_TELEMETRY_FILE;
	else
		return gp__conf_err(err, &l->loc, "Type", "'%s' is not prometheus, redfish or file",
		                    k[TYPE].val);
	if (t->kind == GP_TELEMETRY_FILE) {
		if (k[URL].val && !k[PATH].val)
			k[PATH].val = k[URL].val;
		else if (k[URL].val)
			return gp__conf_err(err, &l->loc, "URL", "not used with Type=file (Path= is)");
		if ((rc = required(l, &k[PATH], "Telemetry", err)) ||
		    (rc = gp__conf_str(&l->loc, "Path", k[PATH].val, t->url, sizeof(t->url), false,
		                       err)))
			return rc;
	} else {
		if (k[PATH].val)
			return gp__conf_err(err, &l->loc, "Path", "only used with Type=file");
		if ((rc = required(l, &k[URL], "Telemetry", err)) ||
		    (rc = gp__conf_str(&l->loc, "URL", k[URL].val, t->url, sizeof(t->url), false,
		                       err)))
			return rc;
	}
	if (k[QUERY].val &&
	    (rc = gp__conf_str(&l->loc, "Query", k[QUERY].val, t->query, sizeof(t->query), true,
	                       err)))
		return rc;
	snprintf(t->rack_label, sizeof(t->rack_label), "rack");
	if (k[LABEL].val && (rc = gp__conf_str(&l->loc, "RackLabel", k[LABEL].val, t->rack_label,
	                                       sizeof(t->rack_label), false, err)))
		return rc;
	t->interval_s = 10.0;
	t->timeout_s = 2.0;
	t->stale_s = -1.0; /* TelemetryStale, applied at the end */
	if ((rc = opt_double(l, &k[INTERVAL], 1e-3, 86400, &t->interval_s, err)) ||
	    (rc = opt_double(l, &k[TIMEOUT], 1e-3, TELEMETRY_TIMEOUT_MAX, &t->timeout_s, err)) ||
	    (rc = opt_double(l, &k[STALE], 1e-3, 1e9, &t->stale_s, err)))
		return rc;
	if (t->timeout_s > t->interval_s)
		return gp__conf_err(err, &l->loc, "Timeout",
		                    "%g s is longer than Interval=%g s (a read must end before the "
		                    "next one is due)", t->timeout_s, t->interval_s);
	t->auth = GP_AUTH_NONE;
	if (k[AUTH].val) {
		if (!strcasecmp(k[AUTH].val, "none"))
			t->auth = GP_AUTH_NONE;
		else if (!strcasecmp(k[AUTH].val, "bearer"))
			t->auth = GP_AUTH_BEARER;
		else if (!strcasecmp(k[AUTH].val, "basic"))
			t->auth = GP_AUTH_BASIC;
		else
			return gp__conf_err(err, &l->loc, "AuthType", "'%s' is not none, bearer or basic",
			                    k[AUTH].val);
	}
	if (t->auth != GP_AUTH_NONE && !k[AUTHFILE].val)
		return gp__conf_err(err, &l->loc, "AuthFile", "required key missing (AuthType=%s)",
		                    k[AUTH].val);
	if ((k[AUTHFILE].val && (rc = gp__conf_str(&l->loc, "AuthFile", k[AUTHFILE].val,
	                                           t->auth_file, sizeof(t->auth_file), false,
	                                           err))) ||
	    (k[CAFILE].val && (rc = gp__conf_str(&l->loc, "CAFile", k[CAFILE].val, t->ca_file,
	                                         sizeof(t->ca_file), false, err))))
		return rc;
	if (k[NODES].val &&
	    (rc = gp__conf_nodes(c, &l->loc, "Nodes", k[NODES].val, &t->nodes, &t->nnodes, err)))
		return rc;
	if (k[RACKS].val && !(lt->racks = strdup(k[RACKS].val)))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	return GP_OK;
}

/* One site key of a line; GP_ECONFIG leaves the site as it was. */
static int one_global(gpp_ctx_t *x, const gp__conf_line_t *l, const gp__conf_kv_t *kv,
                      gp_error_t *err)
{
	gp__load_t *ld = x->ld;
	gp_site_t *s = &ld->c->site, keep = *s;
	size_t g;
	int rc;

	/* a second definition would silently replace the first: the first
	 * stays, and the second is named with both lines (gpuplace.conf is
	 * gpuplace's own file; for Slurm's files the reader does as Slurm
	 * does) */
	for (g = 0; g < sizeof(globals) / sizeof(globals[0]); g++)
		if (gp__conf_is(kv, globals[g])) {
			const gp__conf_loc_t *o = &x->global_loc[g];

			if (o->line)
				return gp__conf_err(err, &l->loc, globals[g],
				                    "already set at %s:%d; set it once", o->path,
				                    o->line);
		}
	if (gp__conf_is(kv, "DefaultGradientBytes"))
		rc = gp__conf_double(&l->loc, "DefaultGradientBytes", kv->val, 0, 1e15,
		                     &s->default_grad_bytes, err);
	else if (gp__conf_is(kv, "NodeFailureRate"))
		rc = gp__conf_double(&l->loc, "NodeFailureRate", kv->val, 0, 1e6,
		                     &s->node_failures_per_1k_days, err);
	else if (gp__conf_is(kv, "RestartSeconds"))
		rc = gp__conf_double(&l->loc, "RestartSeconds", kv->val, 0, 1e7, &s->restart_s, err);
	else if (gp__conf_is(kv, "PowerMargin"))
		rc = gp__conf_double(&l->loc, "PowerMargin", kv->val, 0, 0.99, &s->power_margin, err);
	else if (gp__conf_is(kv, "TelemetryStale"))
		rc = gp__conf_double(&l->loc, "TelemetryStale", kv->val, 1e-3, 1e9,
		                     &s->telemetry_stale_s, err);
	else if (gp__conf_is(kv, "BlockNVLinkDomains")) {
		rc = GP_OK;
		if (!strcasecmp(kv->val, "yes"))
			ld->block_nvl = 1;
		else if (!strcasecmp(kv->val, "no"))
			ld->block_nvl = 0;
		else
			rc = gp__conf_err(err, &l->loc, "BlockNVLinkDomains", "'%s' is not yes or no",
			                  kv->val);
		if (!rc)
			ld->block_nvl_loc = l->loc;
	} else if (gp__conf_is(kv, "PowerHres")) {
		rc = gp__hres_name_check(kv->val, err);
		if (rc) {
			/* the check's message, copied: err->text is written below */
			char why[sizeof(err->text)];

			snprintf(why, sizeof(why), "%s", err->text);
			rc = gp__conf_err(err, &l->loc, "PowerHres", "'%.80s': %s", kv->val, why);
		} else
			snprintf(s->power_hres, sizeof(s->power_hres), "%s", kv->val);
	} else if (gp__conf_is(kv, "PowerLicenses")) {
		/* the prefix; each rack's name is checked with the racks
		 * (gp__lic_name, when the model is complete) */
		rc = gp__hres_name_check(kv->val, err);
		if (rc)
			rc = gp__conf_err(err, &l->loc, "PowerLicenses", "'%.80s': %s", kv->val,
			                  err->text);
		else
			snprintf(s->power_lic, sizeof(s->power_lic), "%s", kv->val);
	} else if (gp__conf_is(kv, "DefaultGpuProfile")) {
		rc = gp__conf_str(&l->loc, "DefaultGpuProfile", kv->val, ld->default_profile,
		                  sizeof(ld->default_profile), false, err);
		if (rc)
			ld->default_profile[0] = '\0';
		else
			ld->default_profile_loc = l->loc;
	} else
		rc = gp__conf_err(err, &l->loc, kv->key, "unknown key");
	if (rc) {
		*s = keep;
		return rc;
	}
	for (g = 0; g < sizeof(globals) / sizeof(globals[0]); g++)
		if (gp__conf_is(kv, globals[g]))
			x->global_loc[g] = l->loc;
	return GP_OK;
}

/* Site keys: each problem is a warning and that key keeps its default
 * (or its first value), the line's other keys are read. */
static int line_global(gpp_ctx_t *x, const gp__conf_line_t *l, gp_error_t *err)
{
	int i, rc;

	for (i = 0; i < l->n; i++) {
		const gp__conf_kv_t *kv = &l->kv[i];
		const char *what = "ignored";
		size_t g;

		if ((rc = one_global(x, l, kv, err)) != GP_ECONFIG) {
			if (rc)
				return rc;
			continue;
		}
		for (g = 0; g < sizeof(globals) / sizeof(globals[0]); g++)
			if (gp__conf_is(kv, globals[g]))
				what = x->global_loc[g].line ? "ignored: the first value is used"
				       : "ignored: its default applies (gpuplace.conf(5))";
		if (gp__cluster_warnf(x->ld->c, "%s; %s", err->text, what))
			return gp__errorf(err, GP_ENOMEM, "out of memory");
	}
	return GP_OK;
}

static int gpp_dispatch(gpp_ctx_t *x, const gp__conf_line_t *l, gp_error_t *err)
{
	const gp__conf_kv_t *k0 = &l->kv[0];

	if (gp__conf_is(k0, "GpuProfile"))
		return line_profile(x, l, err);
	if (gp__conf_is(k0, "FabricLevel"))
		return line_level(x, l, err);
	if (gp__conf_is(k0, "NodeName"))
		return line_node(x, l, err);
	if (gp__conf_is(k0, "NVLinkDomain"))
		return line_nvl(x, l, err);
	if (gp__conf_is(k0, "Rack"))
		return line_rack(x, l, err);
	if (gp__conf_is(k0, "Storage"))
		return line_storage(x, l, err);
	if (gp__conf_is(k0, "Telemetry"))
		return line_telemetry(x, l, err);
	return line_global(x, l, err);
}

/* What the model holds before a line, to drop what the line added. */
typedef struct gpp_mark {
	int32_t nprofiles, nracks, nnvl, nstorage, ntelemetry;
	gp_fabric_level_t levels[GP_MAX_LEVELS];
	gp__conf_loc_t level_loc[GP_MAX_LEVELS];
} gpp_mark_t;

/* The line's object (index first_new or later) is dropped: its name
 * stays known as NAME_OFF.  A name of an earlier object (the line was a
 * duplicate) keeps that object. */
static void name_off(gp__nametab_t *tab, const char *name, int32_t first_new)
{
	if (gp__nametab_find(tab, name) >= first_new)
		gp__nametab_set(tab, name, NAME_OFF);
}

/* The line repeats the name of an object read before it, which stays. */
static bool is_dup(const gp__nametab_t *tab, const char *name, int32_t first_new)
{
	int32_t i = gp__nametab_find(tab, name);

	return i >= 0 && i < first_new;
}

/* Undo what line l added before its problem, and say what is lost. */
static const char *gpp_drop(gpp_ctx_t *x, const gp__conf_line_t *l, const gpp_mark_t *m,
                            char *buf, size_t size)
{
	gp__load_t *ld = x->ld;
	gp_cluster_t *c = ld->c;
	const char *name = l->kv[0].val;
	const char *nodes = "";
	int32_t i, j;
	bool dup = (gp__conf_is(&l->kv[0], "GpuProfile") && is_dup(&x->profiles, name, m->nprofiles)) ||
	           (gp__conf_is(&l->kv[0], "Rack") && is_dup(&x->racks, name, m->nracks)) ||
	           (gp__conf_is(&l->kv[0], "NVLinkDomain") && is_dup(&x->nvl, name, m->nnvl)) ||
	           (gp__conf_is(&l->kv[0], "Storage") && is_dup(&x->storage, name, m->nstorage)) ||
	           (gp__conf_is(&l->kv[0], "Telemetry") && is_dup(&x->telemetry, name, m->ntelemetry));

	for (j = 1; j < l->n; j++)
		if (gp__conf_is(&l->kv[j], "Nodes"))
			nodes = l->kv[j].val;
	if (gp__conf_is(&l->kv[0], "GpuProfile")) {
		if (c->nprofiles > m->nprofiles) {
			c->nprofiles = m->nprofiles;
			memset(&c->profiles[c->nprofiles], 0, sizeof(c->profiles[0]));
		}
		name_off(&x->profiles, name, m->nprofiles);
		snprintf(buf, size, "GPU profile '%s' not used: its GPU type is modelled as if this "
		         "line were not there", name);
	} else if (gp__conf_is(&l->kv[0], "Rack")) {
		for (i = m->nracks; i < c->nracks; i++) {
			for (j = 0; j < c->nnodes; j++)
				if (c->nodes[j].rack == i) {
					c->nodes[j].rack = -1;
					c->nodes[j].base_w = 0;
				}
			free(c->racks[i].nodes);
			memset(&c->racks[i], 0, sizeof(c->racks[i]));
		}
		c->nracks = m->nracks;
		name_off(&x->racks, name, m->nracks);
		snprintf(buf, size, "rack '%s' not modelled: power not considered on its nodes (%s)",
		         name, nodes);
	} else if (gp__conf_is(&l->kv[0], "NVLinkDomain")) {
		for (i = m->nnvl; i < c->nnvl; i++) {
			for (j = 0; j < c->nnodes; j++)
				if (c->nodes[j].nvl_domain == i)
					c->nodes[j].nvl_domain = -1;
			free(c->nvl[i].nodes);
			memset(&c->nvl[i], 0, sizeof(c->nvl[i]));
		}
		c->nnvl = m->nnvl;
		name_off(&x->nvl, name, m->nnvl);
		snprintf(buf, size, "NVLink domain '%s' not modelled: its nodes (%s) share no NVLink "
		         "across nodes in the model", name, nodes);
	} else if (gp__conf_is(&l->kv[0], "Storage")) {
		for (i = m->nstorage; i < c->nstorage; i++) {
			free(c->storage[i].nodes);
			memset(&c->storage[i], 0, sizeof(c->storage[i]));
		}
		c->nstorage = m->nstorage;
		name_off(&x->storage, name, m->nstorage);
		snprintf(buf, size, "storage '%s' not modelled: no checkpoint is planned to it", name);
	} else if (gp__conf_is(&l->kv[0], "Telemetry")) {
		for (i = m->ntelemetry; i < c->ntelemetry; i++) {
			free(c->telemetry[i].nodes);
			free(c->telemetry[i].racks);
			free(ld->tel[i].racks);
			memset(&c->telemetry[i], 0, sizeof(c->telemetry[i]));
			memset(&ld->tel[i], 0, sizeof(ld->tel[i]));
		}
		c->ntelemetry = m->ntelemetry;
		name_off(&x->telemetry, name, m->ntelemetry);
		snprintf(buf, size, "telemetry '%s' not used: the racks it measures keep the draw "
		         "estimated from the cluster state", name);
	} else if (gp__conf_is(&l->kv[0], "FabricLevel")) {
		memcpy(c->levels, m->levels, sizeof(m->levels));
		memcpy(x->level_loc, m->level_loc, sizeof(m->level_loc));
		snprintf(buf, size, "line ignored: the level keeps what it had (the defaults of "
		         "gpuplace.conf(5) unless set on another line)");
	} else {
		/* NodeName: every check comes before the first node is set */
		snprintf(buf, size, "line ignored: its nodes keep their Rails and NicGBps");
	}
	if (dup)
		snprintf(buf, size, "line ignored: the first '%s' is used", name);
	return buf;
}

/*
 * One line of gpuplace.conf.  A problem on it (GP_ECONFIG) becomes one
 * warning, "FILE:LINE: Key: message; what is lost", the line's object is
 * taken out of the model and reading goes on, so that one pass names every
 * problem of the file.  Out of memory stays an error.
 */
static int gpp_line(void *arg, const gp__conf_line_t *l, gp_error_t *err)
{
	gpp_ctx_t *x = arg;
	gp_cluster_t *c = x->ld->c;
	gpp_mark_t m = { .nprofiles = c->nprofiles, .nracks = c->nracks, .nnvl = c->nnvl,
		         .nstorage = c->nstorage, .ntelemetry = c->ntelemetry };
	char lost[512];
	int rc;

	memcpy(m.levels, c->levels, sizeof(m.levels));
	memcpy(m.level_loc, x->level_loc, sizeof(m.level_loc));
	if ((rc = gpp_dispatch(x, l, err)) != GP_ECONFIG)
		return rc;
	if (gp__cluster_warnf(c, "%s; %s", err->text, gpp_drop(x, l, &m, lost, sizeof(lost))))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	return GP_OK;
}

typedef struct rack_acc {
	gpp_ctx_t *x;
	gp_telemetry_t *t;
	const gp__conf_loc_t *loc;
} rack_acc_t;

static int add_rack(void *arg, const char *name, gp_error_t *err)
{
	rack_acc_t *a = arg;
	gp_telemetry_t *t = a->t;
	int32_t r = gp__nametab_find(&a->x->racks, name), j;

	if (r == RACK_OFF)
		return GP_OK; /* its power is not modelled (warned at its line) */
	if (r < 0) {
		/* the source's other racks are still read */
		if (gp__cluster_warnf(a->x->ld->c, "%s:%d: Racks: unknown rack '%s'; telemetry '%s' "
		                      "is not read for it", a->loc->path, a->loc->line, name,
		                      a->t->name))
			return gp__errorf(err, GP_ENOMEM, "out of memory");
		return GP_OK;
	}
	for (j = 0; j < t->nracks; j++)
		if (t->racks[j] == r)
			return GP_OK;
	if (gp__grow(&t->racks, (size_t)t->nracks, sizeof(*t->racks)))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	t->racks[t->nracks++] = r;
	return GP_OK;
}

int gp__load_gpuplace(gp__load_t *ld, gp_error_t *err)
{
	gpp_ctx_t x = { .ld = ld };
	gp_cluster_t *c = ld->c;
	int32_t i;
	int rc = GP_ENOMEM;

	ld->nic_gbps = malloc(((size_t)c->nnodes + 1) * sizeof(*ld->nic_gbps));
	if (!ld->nic_gbps || gp__nametab_init(&x.profiles, true) ||
	    gp__nametab_init(&x.nvl, false) || gp__nametab_init(&x.racks, false) ||
	    gp__nametab_init(&x.storage, false) || gp__nametab_init(&x.telemetry, false)) {
		gp__errorf(err, rc, "out of memory");
		goto out;
	}
	for (i = 0; i < c->nnodes; i++)
		ld->nic_gbps[i] = -1;
	rc = gp__conf_read(&ld->paths, ld->dir, "gpuplace.conf", false, gpp_line, &x, err);
	if (rc)
		goto out;
	for (i = 0; i < c->ntelemetry; i++) {
		rack_acc_t a = { .x = &x, .t = &c->telemetry[i], .loc = &ld->tel[i].loc };

		if (!ld->tel[i].racks)
			continue;
		rc = gp__conf_hostlist(a.loc, "Racks", ld->tel[i].racks, add_rack, &a, err);
		if (rc == GP_ECONFIG &&
		    (rc = gp__cluster_warnf(c, "%s; telemetry '%s' is not read for these racks",
		                            err->text, c->telemetry[i].name)))
			rc = gp__errorf(err, GP_ENOMEM, "out of memory");
		if (rc)
			goto out;
	}
	/* PowerLicenses: every rack's license name must be one Slurm reads
	 * as a name (named at the rack's line, PowerLicenses' line in the
	 * text) */
	for (i = 0; c->site.power_lic[0] && i < c->nracks; i++) {
		char name[GP_NAME_MAX];
		const gp__conf_loc_t *pl = &x.global_loc[8];
		gp_error_t e;

		if (gp__lic_name(c->site.power_lic, c->racks[i].name, name, sizeof(name), &e)) {
			/* the part it describes is disabled: no rack licenses */
			gp__conf_err(err, &ld->rack_loc[i], "Rack", "'%s': %s (PowerLicenses=%s at %s:%d)",
			             c->racks[i].name, e.text, c->site.power_lic,
			             pl->path ? pl->path : "?", pl->line);
			c->site.power_lic[0] = '\0';
			if ((rc = gp__cluster_warnf(c, "%s; ignored: no rack licenses", err->text))) {
				rc = gp__errorf(err, GP_ENOMEM, "out of memory");
				goto out;
			}
		}
	}
	if (ld->default_profile[0] && gp__nametab_find(&x.profiles, ld->default_profile) < 0) {
		gp__conf_err(err, &ld->default_profile_loc, "DefaultGpuProfile",
		             "unknown GPU profile '%s'", ld->default_profile);
		ld->default_profile[0] = '\0';
		if (gp__cluster_warnf(c, "%s; ignored: GPU types without a profile stay without one",
		                      err->text)) {
			rc = gp__errorf(err, GP_ENOMEM, "out of memory");
			goto out;
		}
	}
	rc = GP_OK;
out:
	gp__nametab_free(&x.profiles);
	gp__nametab_free(&x.nvl);
	gp__nametab_free(&x.racks);
	gp__nametab_free(&x.storage);
	gp__nametab_free(&x.telemetry);
	free(x.profile_loc);
	free(x.storage_loc);
	free(x.telemetry_loc);
	return rc;
}
