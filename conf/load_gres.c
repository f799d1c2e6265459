/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * load_gres.c - gres.conf: [NodeName=LIST] Name=gpu [Type=] [File=LIST]
 * [Count=N] [Cores=] [CPUs=] [Links=] and AutoDetect=.
 *
 * The GPU lines of each node are collected into a per-node layout (one
 * entry per GPU in line order); load.c later computes NVLink islands and
 * shares identical layouts.  The GPUs gres.conf describes for a node must
 * match slurm.conf's Gres count for it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "slurm_hostlist.h"

#include "conf.h"

/* GPUs one gres.conf line may describe: slurm.conf's bound on a node
 * (load_slurm.c, 2^20) */
#define GRES_LINE_MAX (1L << 20)

typedef struct gres_line {
	gp__load_t *ld;
	const gp__conf_loc_t *loc;
	int ngpus;              /* GPUs this line describes */
	const char *cores;      /* "" if none */
	int8_t links[GP_MAX_GPUS_PER_NODE];
	int nlinks;             /* -1 = no Links= */
	int32_t unknown;        /* names not in slurm.conf (skipped) */
	char first_unknown[GP_NAME_MAX];
} gres_line_t;

static int count_files(const gp__conf_loc_t *loc, const char *key, const char *val,
                       long *n, gp_error_t *err)
{
	gp_hostlist_t hl;

	if (!*val)
		return gp__conf_err(err, loc, key, "empty value");
	/* a line may describe more GPUs than the model holds on a node that
	 * slurm.conf gives as many (its GPUs are then Slurm's alone);
	 * apply_node holds the count to the node's */
	if (gp__hostlist_junk(val))
		return gp__conf_err(err, loc, key, "'%.60s' is not a valid file list (a bracket holds "
		                    "only numbers, ranges A-B and commas)", val);
	if (!gp__hostlist_within(val, GRES_LINE_MAX))
		return gp__conf_err(err, loc, key, "'%.60s' names more than %ld files", val,
		                    GRES_LINE_MAX);
	hl = slurm_hostlist_create(val);
	if (!hl)
		return gp__conf_err(err, loc, key, "'%s' is not a valid file list", val);
	*n = slurm_hostlist_count(hl);
	slurm_hostlist_destroy(hl);
	if (*n < 1 || *n > GRES_LINE_MAX)
		return gp__conf_err(err, loc, key, "'%s' names %ld files (1 to %ld allowed)", val, *n,
		                    GRES_LINE_MAX);
	return GP_OK;
}

static int parse_links(const gp__conf_loc_t *loc, const char *val, gres_line_t *g,
                       gp_error_t *err)
{
	char buf[256], *p, *q;
	long v;

	if (strlen(val) >= sizeof(buf) || !*val)
		return gp__conf_err(err, loc, "Links", "'%.40s' is not a list of link counts", val);
	memcpy(buf, val, strlen(val) + 1);
	g->nlinks = 0;
	for (p = buf; p; p = q) {
		q = strchr(p, ',');
		if (q)
			*q++ = '\0';
		if (g->nlinks == GP_MAX_GPUS_PER_NODE)
			return gp__conf_err(err, loc, "Links", "'%s' has more than %d values", val,
			                    GP_MAX_GPUS_PER_NODE);
		if (gp__parse_long(p, -1, 127, &v))
			return gp__conf_err(err, loc, "Links", "'%s' is not a number in [-1, 127]", p);
		g->links[g->nlinks++] = (int8_t)v;
	}
	return GP_OK;
}

static int apply_node(gres_line_t *g, int32_t i, gp_error_t *err)
{
	gp__load_t *ld = g->ld;
	gp_node_t *n = &ld->c->nodes[i];
	gp_gres_layout_t *l = &ld->gres[i];
	int k, j, idx, self;

	if (ld->gpus_off && ld->gpus_off[i])
		return GP_OK; /* its GPUs are Slurm's alone (load_slurm.c said so) */
	if (l->ngpus == 0)
		ld->gres_loc[i] = *g->loc;
	if (l->ngpus + g->ngpus > n->ngpus)
		return gp__conf_err(err, g->loc, "NodeName",
		                    "node '%s' has %d GPUs in gres.conf up to here but %d in "
		                    "slurm.conf (%s:%d)", n->name, l->ngpus + g->ngpus,
		                    (int)n->ngpus, ld->node_loc[i].path, ld->node_loc[i].line);
	for (k = 0; k < g->ngpus; k++) {
		idx = l->ngpus++;
		snprintf(l->cores[idx], sizeof(l->cores[idx]), "%s", g->cores);
		if (g->nlinks < 0)
			continue;
		if (g->nlinks != n->ngpus)
			return gp__conf_err(err, g->loc, "Links",
			                    "%d values but node '%s' has %d GPUs", g->nlinks, n->name,
			                    (int)n->ngpus);
		/* the -1 marks the GPU itself: its device number, whatever
		 * the order of the lines (gres.conf(5), Links); rows are put
		 * in device order once the node is complete (sort_links) */
		for (j = 0, self = 0; j < g->nlinks; j++)
			self += g->links[j] == -1;
		if (self != 1)
			return gp__conf_err(err, g->loc, "Links",
			                    "%d values of -1 (node '%s'); one -1 marks the GPU itself",
			                    self, n->name);
		memcpy(l->links[idx], g->links, (size_t)g->nlinks);
	}
	return GP_OK;
}

static int apply_host(void *arg, const char *name, gp_error_t *err)
{
	gres_line_t *g = arg;
	int32_t i = gp__node_find(g->ld->c, name);

	if (i < 0) {
		/* a gres.conf shared between clusters names other clusters'
		 * nodes; slurmd also reads only its own lines */
		if (g->unknown++ == 0)
			snprintf(g->first_unknown, sizeof(g->first_unknown), "%s", name);
		return GP_OK;
	}
	return apply_node(g, i, err);
}

static int gres_line(void *arg, const gp__conf_line_t *l, gp_error_t *err)
{
	gp__load_t *ld = arg;
	gp_cluster_t *c = ld->c;
	gres_line_t g = { .ld = ld, .loc = &l->loc, .cores = "", .nlinks = -1 };
	const char *nodes = NULL, *name = NULL, *file = NULL, *count = NULL, *links = NULL;
	bool multi = false, autodetect = false;
	long n = 1;
	int i, rc;

	for (i = 0; i < l->n; i++) {
		const gp__conf_kv_t *kv = &l->kv[i];

		if (gp__conf_is(kv, "NodeName"))
			nodes = kv->val;
		else if (gp__conf_is(kv, "Name"))
			name = kv->val;
		else if (gp__conf_is(kv, "File"))
			file = kv->val;
		else if (gp__conf_is(kv, "MultipleFiles")) {
			file = kv->val;
			multi = true;
		} else if (gp__conf_is(kv, "Count"))
			count = kv->val;
		else if (gp__conf_is(kv, "Cores"))
			g.cores = kv->val;
		else if (gp__conf_is(kv, "Links"))
			links = kv->val;
		else if (gp__conf_is(kv, "AutoDetect"))
			autodetect = true;
		else if (!gp__conf_is(kv, "Type") && !gp__conf_is(kv, "CPUs") &&
		         !gp__conf_is(kv, "Flags"))
			return gp__conf_err(err, &l->loc, kv->key, "unknown key");
	}
	if (!name) {
		if (autodetect)
			return GP_OK;
		return gp__conf_err(err, &l->loc, "Name", "required key missing");
	}
	if (strcasecmp(name, "gpu") != 0)
		return GP_OK; /* mps, shard, other gres: not GPUs */
	if (file) {
		rc = count_files(&l->loc, multi ? "MultipleFiles" : "File", file, &n, err);
		if (rc)
			return rc;
		if (multi)
			n = 1; /* one GPU behind several device files */
	} else if (count) {
		rc = gp__conf_long(&l->loc, "Count", count, 1, GRES_LINE_MAX, &n, err);
		if (rc)
			return rc;
	}
	g.ngpus = (int)n;
	if (strlen(g.cores) >= sizeof(ld->gres->cores[0]))
		return gp__conf_err(err, &l->loc, "Cores", "'%.40s...' is longer than %zu characters",
		                    g.cores, sizeof(ld->gres->cores[0]) - 1);
	if (links) {
		if (g.ngpus != 1)
			return gp__conf_err(err, &l->loc, "Links",
			                    "only allowed on a line describing one GPU (this one has %d)",
			                    g.ngpus);
		rc = parse_links(&l->loc, links, &g, err);
		if (rc)
			return rc;
	}
	if (!ld->gres) {
		ld->gres = calloc((size_t)c->nnodes + 1, sizeof(*ld->gres));
		ld->gres_loc = calloc((size_t)c->nnodes + 1, sizeof(*ld->gres_loc));
		if (!ld->gres || !ld->gres_loc)
			return gp__errorf(err, GP_ENOMEM, "out of memory");
	}
	if (nodes) {
		rc = gp__conf_hostlist(&l->loc, "NodeName", nodes, apply_host, &g, err);
		if (!rc && g.unknown &&
		    gp__cluster_warnf(c, "%s:%d: NodeName: %d node(s) not in slurm.conf ignored "
		                      "(the first is '%s')", l->loc.path, l->loc.line,
		                      (int)g.unknown, g.first_unknown))
			rc = gp__errorf(err, GP_ENOMEM, "out of memory");
		return rc;
	}
	/* no NodeName: every node that has GPUs in slurm.conf */
	for (i = 0; i < c->nnodes; i++)
		if (c->nodes[i].ngpus > 0 && (rc = apply_node(&g, i, err)))
			return rc;
	return GP_OK;
}

/* Put node i's Links rows (and the Cores that came with them) in device
 * order: row d is the one whose -1 is at position d.  Slurm numbers the
 * GPUs by PCI bus id and reads each row's own position from its -1
 * (gres.conf(5), Links), so rows may be listed in any order. */
static int sort_links(gp__load_t *ld, int32_t i, gp_error_t *err)
{
	gp_gres_layout_t *l = &ld->gres[i], tmp;
	int g, d, from[GP_MAX_GPUS_PER_NODE];

	for (d = 0; d < l->ngpus; d++)
		from[d] = -1;
	for (g = 0; g < l->ngpus; g++) {
		for (d = 0; d < l->ngpus && l->links[g][d] != -1; d++)
			;
		if (from[d] >= 0)
			return gp__conf_err(err, &ld->gres_loc[i], "Links",
			                    "two GPUs of node '%s' have their -1 at position %d "
			                    "(rows %d and %d of the node's Links)", ld->c->nodes[i].name,
			                    d, from[d] + 1, g + 1);
		from[d] = g;
	}
	tmp = *l;
	for (d = 0; d < l->ngpus; d++) {
		memcpy(l->links[d], tmp.links[from[d]], sizeof(l->links[d]));
		memcpy(l->cores[d], tmp.cores[from[d]], sizeof(l->cores[d]));
	}
	return GP_OK;
}

int gp__load_gres(gp__load_t *ld, gp_error_t *err)
{
	gp_cluster_t *c = ld->c;
	int32_t i;
	int rc, g, rows;

	rc = gp__conf_read_slurm(&ld->paths, ld->dir, "gres.conf", true, c, gres_line, ld, err);
	if (rc == GP_CONF_ABSENT)
		return GP_OK;
	if (rc || !ld->gres)
		return rc;
	for (i = 0; i < c->nnodes; i++) {
		gp_gres_layout_t *l = &ld->gres[i];

		if (l->ngpus == 0)
			continue;
		if (l->ngpus != c->nodes[i].ngpus)
			return gp__conf_err(err, &ld->gres_loc[i], "NodeName",
			                    "node '%s' has %d GPUs in gres.conf but %d in slurm.conf "
			                    "(%s:%d)", c->nodes[i].name, l->ngpus, (int)c->nodes[i].ngpus,
			                    ld->node_loc[i].path, ld->node_loc[i].line);
		for (g = rows = 0; g < l->ngpus; g++)
			rows += memchr(l->links[g], 0xff, (size_t)l->ngpus) != NULL;
		if (rows && rows != l->ngpus)
			return gp__conf_err(err, &ld->gres_loc[i], "Links",
			                    "given for %d of the %d GPUs of node '%s'", rows, l->ngpus,
			                    c->nodes[i].name);
		l->has_links = rows > 0;
		if (rows && (rc = sort_links(ld, i, err)))
			return rc;
	}
	return GP_OK;
}
