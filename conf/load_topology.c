/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * load_topology.c - topology.conf (Slurm's topology/tree syntax):
 * SwitchName=NAME [Switches=LIST] [Nodes=LIST] [LinkSpeed=N].
 *
 * Builds the rooted switch tree: parents, a synthetic "(top)" over a
 * forest, levels, the DFS node order and each switch's node range.  Without
 * topology.conf the model has no switches and node order = slurm.conf order.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "conf.h"

typedef struct topo_ctx {
	gp__load_t *ld;
	gp__nametab_t names;
	int32_t *cap;           /* per switch: capacity of children / nodes */
	int32_t cur;            /* switch being resolved */
	const gp__conf_loc_t *cur_loc;
} topo_ctx_t;

static int topo_line(void *arg, const gp__conf_line_t *l, gp_error_t *err)
{
	topo_ctx_t *t = arg;
	gp__load_t *ld = t->ld;
	gp_cluster_t *c = ld->c;
	gp_switch_t *w;
	gp__load_switch_t *ls;
	int32_t dup;
	int i, rc;

	if (!gp__conf_is(&l->kv[0], "SwitchName"))
		return gp__conf_err(err, &l->loc, l->kv[0].key, "unknown key");
	if (gp__grow(&c->switches, (size_t)c->nswitches, sizeof(*c->switches)) ||
	    gp__grow(&ld->sw, (size_t)c->nswitches, sizeof(*ld->sw)))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	w = &c->switches[c->nswitches];
	ls = &ld->sw[c->nswitches];
	memset(w, 0, sizeof(*w));
	memset(ls, 0, sizeof(*ls));
	w->parent = -1;
	ls->loc = l->loc;
	/* counted now so that the strings below are freed on error */
	c->nswitches++;
	ld->nsw = c->nswitches;
	rc = gp__conf_str(&l->loc, "SwitchName", l->kv[0].val, w->name, sizeof(w->name), false,
	                  err);
	if (rc)
		return rc;
	if (gp__nametab_add(&t->names, w->name, c->nswitches - 1, &dup))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	if (dup >= 0)
		return gp__conf_err(err, &l->loc, "SwitchName", "duplicate switch '%s' (first at %s:%d)",
		                    w->name, ld->sw[dup].loc.path, ld->sw[dup].loc.line);
	for (i = 1; i < l->n; i++) {
		const gp__conf_kv_t *kv = &l->kv[i];
		char **dst = NULL;

		if (gp__conf_is(kv, "Switches")) {
			dst = &ls->switches;
			ls->switches_loc = l->loc;
		} else if (gp__conf_is(kv, "Nodes")) {
			dst = &ls->nodes;
			ls->nodes_loc = l->loc;
		} else if (gp__conf_is(kv, "LinkSpeed")) {
			rc = gp__conf_double(&l->loc, "LinkSpeed", kv->val, 0, 1e12, &w->link_speed, err);
			if (rc)
				return rc;
			continue;
		} else {
			return gp__conf_err(err, &l->loc, kv->key, "unknown key");
		}
		free(*dst);
		if (!(*dst = strdup(kv->val)))
			return gp__errorf(err, GP_ENOMEM, "out of memory");
	}
	return GP_OK;
}

static int push(int32_t **v, int32_t *n, int32_t *cap, int32_t x)
{
	if (*n == *cap) {
		int32_t nc = *cap ? *cap * 2 : 4;

		if (gp__resize(v, (size_t)*cap, (size_t)nc, sizeof(**v)))
			return GP_ENOMEM;
		*cap = nc;
	}
	(*v)[(*n)++] = x;
	return GP_OK;
}

static int add_child(void *arg, const char *name, gp_error_t *err)
{
	topo_ctx_t *t = arg;
	gp_cluster_t *c = t->ld->c;
	gp_switch_t *w = &c->switches[t->cur];
	int32_t ch = gp__nametab_find(&t->names, name);

	if (ch < 0)
		return gp__conf_err(err, t->cur_loc, "Switches", "unknown switch '%s'", name);
	if (c->switches[ch].parent >= 0) {
		if (c->switches[ch].parent == t->cur)
			return GP_OK; /* listed twice by the same switch */
		return gp__conf_err(err, t->cur_loc, "Switches",
		                    "switch '%s' listed under two parents ('%s' and '%s')", name,
		                    c->switches[c->switches[ch].parent].name, w->name);
	}
	c->switches[ch].parent = t->cur;
	if (push(&w->children, &w->nchildren, &t->cap[t->cur], ch))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	return GP_OK;
}

static int add_node(void *arg, const char *name, gp_error_t *err)
{
	topo_ctx_t *t = arg;
	gp_cluster_t *c = t->ld->c;
	gp_switch_t *w = &c->switches[t->cur];
	int32_t i = gp__node_find(c, name);

	if (i < 0)
		return gp__conf_err(err, t->cur_loc, "Nodes", "unknown node '%s'", name);
	if (c->nodes[i].leaf >= 0) {
		if (c->nodes[i].leaf == t->cur)
			return GP_OK;
		/* a real-world wart: keep the first switch, say so */
		if (gp__cluster_warnf(c, "%s:%d: Nodes: node '%s' is already under switch '%s'; "
		                      "ignored under '%s'", t->cur_loc->path, t->cur_loc->line,
		                      name, c->switches[c->nodes[i].leaf].name, w->name))
			return gp__errorf(err, GP_ENOMEM, "out of memory");
		return GP_OK;
	}
	c->nodes[i].leaf = t->cur;
	if (push(&w->nodes, &w->nnodes, &t->cap[t->cur], i))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	return GP_OK;
}

static int resolve(topo_ctx_t *t, gp_error_t *err)
{
	gp__load_t *ld = t->ld;
	gp_cluster_t *c = ld->c;
	int32_t i, ntops = 0, top = -1, nreal = c->nswitches;
	uint8_t *seen;
	int rc;

	t->cap = calloc((size_t)nreal + 1, sizeof(*t->cap));
	if (!t->cap)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	for (i = 0; i < nreal; i++) {
		if (!ld->sw[i].switches)
			continue;
		t->cur = i;
		t->cur_loc = &ld->sw[i].switches_loc;
		rc = gp__conf_hostlist(t->cur_loc, "Switches", ld->sw[i].switches, add_child, t, err);
		if (rc)
			return rc;
	}
	memset(t->cap, 0, ((size_t)nreal + 1) * sizeof(*t->cap));
	for (i = 0; i < nreal; i++) {
		if (!ld->sw[i].nodes)
			continue;
		t->cur = i;
		t->cur_loc = &ld->sw[i].nodes_loc;
		rc = gp__conf_hostlist(t->cur_loc, "Nodes", ld->sw[i].nodes, add_node, t, err);
		if (rc)
			return rc;
	}
	/* cycles: a switch that no top reaches has a parent chain that loops */
	seen = calloc((size_t)nreal + 1, 1);
	if (!seen)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	for (i = 0; i < nreal; i++) {
		int32_t s = i, k;

		if (seen[i])
			continue;
		for (k = 0; k <= nreal && s >= 0 && !seen[s]; k++)
			s = c->switches[s].parent;
		if (s >= 0 && !seen[s]) {
			/* looped: s is on the cycle; blame the line listing it */
			int32_t p = c->switches[s].parent;

			free(seen);
			return gp__conf_err(err, &ld->sw[p].switches_loc, "Switches",
			                    "switch cycle: '%s' is below itself", c->switches[s].name);
		}
		for (s = i; s >= 0 && !seen[s]; s = c->switches[s].parent)
			seen[s] = 1;
	}
	free(seen);
	for (i = 0; i < nreal; i++)
		if (c->switches[i].parent < 0) {
			ntops++;
			top = i;
		}
	if (ntops > 1) {
		if ((rc = gp__switch_add_synthetic_root(c, ntops, err)))
			return rc;
	} else {
		c->root = top;
	}
	if (c->root >= 0) {
		if ((rc = gp__switch_walk_tree(c, err)))
			return rc;
		c->nlevels = c->switches[c->root].level + 1;
		if (c->nlevels > GP_MAX_LEVELS - 1)
			return gp__conf_err(err, &ld->sw[0].loc, "SwitchName",
			                    "switch tree has %d levels (at most %d supported)",
			                    (int)c->nlevels, GP_MAX_LEVELS - 1);
	}
	for (i = 0; i < c->nnodes; i++)
		if (c->nodes[i].leaf < 0)
			return gp__conf_err(err, &ld->node_loc[i], "NodeName",
			                    "node '%s' is missing from the switch tree (topology.conf)",
			                    c->nodes[i].name);
	return GP_OK;
}

int gp__load_topology(gp__load_t *ld, gp_error_t *err)
{
	topo_ctx_t t = { .ld = ld };
	gp_cluster_t *c = ld->c;
	int32_t i;
	int rc;

	c->node_order = malloc(((size_t)c->nnodes + 1) * sizeof(*c->node_order));
	c->node_pos = malloc(((size_t)c->nnodes + 1) * sizeof(*c->node_pos));
	if (!c->node_order || !c->node_pos)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	for (i = 0; i < c->nnodes; i++)
		c->node_order[i] = c->node_pos[i] = i;
	if (gp__nametab_init(&t.names, false))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	rc = gp__conf_read(&ld->paths, ld->dir, "topology.conf", true, topo_line, &t, err);
	if (rc == GP_CONF_ABSENT) {
		rc = GP_OK;
	} else if (rc == GP_OK && c->nswitches > 0) {
		/* (a topology.conf with no SwitchName line counts as absent) */
		ld->has_topology = true;
		rc = resolve(&t, err);
	}
	gp__nametab_free(&t.names);
	free(t.cap);
	return rc;
}
