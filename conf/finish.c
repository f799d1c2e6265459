/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * finish.c - derive what every loader derives the same way.
 *
 * A loader (conf files or JSON) fills the facts as lists: nodes, switches
 * with their child switches and node lists, racks / NVLink domains /
 * partitions with their node lists, GPU layouts.  gp__cluster_finish() then
 * builds everything that follows from them, so both loaders produce the
 * same model from the same facts:
 *   - the node name hash (gp__cluster_index), rejecting duplicate names;
 *   - node.rack, node.nvl_domain, node.leaf from the lists, the partition bitmap;
 *   - switch.parent, the root (a synthetic "(top)" over a forest), levels,
 *     nlevels, the DFS node order and every switch's [first, first+count);
 *   - NVLink domain GPU counts and the NVLink islands of each GPU layout.
 * It may be called again on a finished model (it recomputes from the lists).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "model.h"

/* Index list check shared by racks, domains, partitions, storage. */
static int check_node_list(const gp_cluster_t *c, const char *what, const char *name,
                           const int32_t *nodes, int32_t n, gp_error_t *err)
{
	int32_t i;

	if (n < 0 || (n > 0 && !nodes))
		return gp__errorf(err, GP_EINTERNAL, "%s '%s': bad node list", what, name);
	for (i = 0; i < n; i++)
		if (nodes[i] < 0 || nodes[i] >= c->nnodes)
			return gp__errorf(err, GP_EINTERNAL, "%s '%s': node index %d out of range",
			                  what, name, (int)nodes[i]);
	return GP_OK;
}

static int finish_nodes(gp_cluster_t *c, gp_error_t *err)
{
	int32_t i, j, dup;
	int rc;

	for (i = 0; i < c->nnodes; i++) {
		gp_node_t *n = &c->nodes[i];

		if (!n->name[0])
			return gp__errorf(err, GP_ECONFIG, "node %d has no name", (int)i);
		if (n->ngpus < 0 || n->ngpus > GP_MAX_GPUS_PER_NODE)
			return gp__errorf(err, GP_ELIMIT, "node '%s': %d GPUs (at most %d supported)",
			                  n->name, (int)n->ngpus, GP_MAX_GPUS_PER_NODE);
		if (n->profile < -1 || n->profile >= c->nprofiles)
			return gp__errorf(err, GP_EINTERNAL, "node '%s': bad profile index", n->name);
		if (n->layout < -1 || n->layout >= c->nlayouts)
			return gp__errorf(err, GP_EINTERNAL, "node '%s': bad layout index", n->name);
		if (n->layout >= 0 && c->layouts[n->layout].ngpus != n->ngpus)
			return gp__errorf(err, GP_ECONFIG,
			                  "node '%s': gres layout has %d GPUs, node has %d",
			                  n->name, c->layouts[n->layout].ngpus, (int)n->ngpus);
		n->rack = -1;
		n->nvl_domain = -1;
		n->block = -1;
		n->leaf = -1;
	}
	if ((rc = gp__cluster_index(c)) < 0)
		return gp__errorf(err, rc, "out of memory building the node index");
	for (i = 0; i < c->nnodes; i++)
		if ((dup = gp__node_find(c, c->nodes[i].name)) != i)
			return gp__errorf(err, GP_ECONFIG, "duplicate node name '%s'", c->nodes[i].name);

	for (i = 0; i < c->nracks; i++) {
		gp_rack_t *r = &c->racks[i];

		if ((rc = check_node_list(c, "rack", r->name, r->nodes, r->nnodes, err)) < 0)
			return rc;
		for (j = 0; j < r->nnodes; j++) {
			gp_node_t *n = &c->nodes[r->nodes[j]];

			if (n->rack >= 0)
				return gp__errorf(err, GP_ECONFIG, "node '%s' is in racks '%s' and '%s'",
				                  n->name, c->racks[n->rack].name, r->name);
			n->rack = i;
		}
	}
	for (i = 0; i < c->nnvl; i++) {
		gp_nvl_domain_t *d = &c->nvl[i];

		if ((rc = check_node_list(c, "NVLink domain", d->name, d->nodes, d->nnodes, err)) < 0)
			return rc;
		d->ngpus = 0;
		for (j = 0; j < d->nnodes; j++) {
			gp_node_t *n = &c->nodes[d->nodes[j]];

			if (n->nvl_domain >= 0)
				return gp__errorf(err, GP_ECONFIG,
				                  "node '%s' is in NVLink domains '%s' and '%s'",
				                  n->name, c->nvl[n->nvl_domain].name, d->name);
			n->nvl_domain = i;
			d->ngpus += n->ngpus;
		}
	}
	for (i = 0; i < c->nblocks; i++) {
		gp_block_t *b = &c->blocks[i];

		if ((rc = check_node_list(c, "block", b->name, b->nodes, b->nnodes, err)) < 0)
			return rc;
		for (j = 0; j < b->nnodes; j++) {
			gp_node_t *n = &c->nodes[b->nodes[j]];

			if (n->block >= 0)
				return gp__errorf(err, GP_ECONFIG, "node '%s' is in blocks '%s' and '%s'",
				                  n->name, c->blocks[n->block].name, b->name);
			n->block = i;
		}
	}
	if (c->nparts > GP_MAX_PARTITIONS)
		return gp__errorf(err, GP_ELIMIT, "%d partitions (at most %d supported)",
		                  (int)c->nparts, GP_MAX_PARTITIONS);
	for (i = 0; i < c->nparts; i++) {
		gp_partition_t *p = &c->parts[i];

		if ((rc = check_node_list(c, "partition", p->name, p->nodes, p->nnodes, err)) < 0)
			return rc;
	}
	if ((rc = gp__cluster_part_bits(c, err)) < 0)
		return rc;
	for (i = 0; i < c->nstorage; i++)
		if ((rc = check_node_list(c, "storage", c->storage[i].name, c->storage[i].nodes,
		                          c->storage[i].nnodes, err)) < 0)
			return rc;
	return GP_OK;
}

int gp__cluster_part_bits(gp_cluster_t *c, gp_error_t *err)
{
	int32_t i, j;

	free(c->part_bits);
	c->part_words = (c->nparts + 63) / 64;
	if (c->part_words < 1)
		c->part_words = 1;
	c->part_bits = calloc((size_t)(c->nnodes > 0 ? c->nnodes : 1) * (size_t)c->part_words,
	                      sizeof(*c->part_bits));
	if (!c->part_bits)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	/* a node listed twice is folded, so that nnodes == the cluster's
	 * nnodes means the partition holds every node */
	for (i = 0; i < c->nparts; i++) {
		gp_partition_t *p = &c->parts[i];
		int32_t k = 0;

		for (j = 0; j < p->nnodes; j++) {
			uint64_t *w = &c->part_bits[(size_t)p->nodes[j] * (size_t)c->part_words +
			                            (size_t)(i >> 6)];

			if (*w & (UINT64_C(1) << (i & 63)))
				continue;
			*w |= UINT64_C(1) << (i & 63);
			p->nodes[k++] = p->nodes[j];
		}
		p->nnodes = k;
	}
	return GP_OK;
}

int gp__switch_add_synthetic_root(gp_cluster_t *c, int32_t ntops, gp_error_t *err)
{
	gp_switch_t *sw, *top;
	int32_t i, k = 0;

	sw = realloc(c->switches, ((size_t)c->nswitches + 1) * sizeof(*sw));
	if (!sw)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	c->switches = sw;
	top = &sw[c->nswitches];
	memset(top, 0, sizeof(*top));
	snprintf(top->name, sizeof(top->name), "(top)");
	top->parent = -1;
	top->disconnected = true;
	top->children = malloc((size_t)ntops * sizeof(*top->children));
	if (!top->children)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	for (i = 0; i < c->nswitches; i++)
		if (sw[i].parent < 0) {
			top->children[k++] = i;
			sw[i].parent = c->nswitches;
		}
	top->nchildren = k;
	c->root = c->nswitches;
	c->nswitches++;
	return GP_OK;
}

int gp__switch_walk_tree(gp_cluster_t *c, gp_error_t *err)
{
	int32_t *stack = NULL, *next = NULL, sp = 0, pos = 0, i;
	int rc = GP_ENOMEM;

	stack = malloc(((size_t)c->nswitches + 1) * sizeof(*stack));
	next = calloc((size_t)c->nswitches + 1, sizeof(*next));
	if (!stack || !next) {
		gp__errorf(err, rc, "out of memory");
		goto out;
	}
	for (i = 0; i < c->nswitches; i++)
		c->switches[i].level = -1;
	stack[sp++] = c->root;
	c->switches[c->root].first = 0;
	while (sp > 0) {
		int32_t s = stack[sp - 1];
		gp_switch_t *w = &c->switches[s];

		if (next[s] == 0) {
			/* entering: own nodes first, then the subtrees */
			w->first = pos;
			for (i = 0; i < w->nnodes; i++) {
				c->node_order[pos] = w->nodes[i];
				c->node_pos[w->nodes[i]] = pos;
				pos++;
			}
		}
		if (next[s] < w->nchildren) {
			int32_t ch = w->children[next[s]++];

			if (sp > c->nswitches) { /* cannot happen with parents checked */
				rc = gp__errorf(err, GP_ECONFIG, "switch cycle at '%s'", w->name);
				goto out;
			}
			stack[sp++] = ch;
			continue;
		}
		/* leaving */
		w->count = pos - w->first;
		w->level = 0;
		for (i = 0; i < w->nchildren; i++)
			if (c->switches[w->children[i]].level + 1 > w->level)
				w->level = c->switches[w->children[i]].level + 1;
		sp--;
	}
	for (i = 0; i < c->nswitches; i++)
		if (c->switches[i].level < 0) {
			rc = gp__errorf(err, GP_ECONFIG, "switch cycle involving '%s'",
			                c->switches[i].name);
			goto out;
		}
	/* nodes outside the tree follow in index order */
	for (i = 0; i < c->nnodes; i++)
		if (c->nodes[i].leaf < 0) {
			c->node_order[pos] = i;
			c->node_pos[i] = pos++;
		}
	rc = GP_OK;
out:
	free(stack);
	free(next);
	return rc;
}

static int finish_switches(gp_cluster_t *c, gp_error_t *err)
{
	int32_t i, j, ntops = 0, top = -1;
	int rc;

	for (i = 0; i < c->nswitches; i++)
		c->switches[i].parent = -1;
	for (i = 0; i < c->nswitches; i++) {
		gp_switch_t *w = &c->switches[i];

		if ((w->nchildren > 0 && !w->children) || (w->nnodes > 0 && !w->nodes))
			return gp__errorf(err, GP_EINTERNAL, "switch '%s': bad lists", w->name);
		for (j = 0; j < w->nchildren; j++) {
			int32_t ch = w->children[j];

			if (ch < 0 || ch >= c->nswitches)
				return gp__errorf(err, GP_EINTERNAL, "switch '%s': bad child index",
				                  w->name);
			if (ch == i)
				return gp__errorf(err, GP_ECONFIG, "switch cycle: '%s' lists itself",
				                  w->name);
			if (c->switches[ch].parent >= 0)
				return gp__errorf(err, GP_ECONFIG,
				                  "switch '%s' is listed under '%s' and '%s'",
				                  c->switches[ch].name,
				                  c->switches[c->switches[ch].parent].name, w->name);
			c->switches[ch].parent = i;
		}
		if ((rc = check_node_list(c, "switch", w->name, w->nodes, w->nnodes, err)) < 0)
			return rc;
		for (j = 0; j < w->nnodes; j++) {
			gp_node_t *n = &c->nodes[w->nodes[j]];

			if (n->leaf >= 0)
				return gp__errorf(err, GP_ECONFIG,
				                  "node '%s' is listed under switches '%s' and '%s'",
				                  n->name, c->switches[n->leaf].name, w->name);
			n->leaf = i;
		}
	}
	for (i = 0; i < c->nswitches; i++)
		if (c->switches[i].parent < 0) {
			ntops++;
			top = i;
		}
	if (c->nswitches > 0 && ntops == 0)
		return gp__errorf(err, GP_ECONFIG, "switch cycle: no top switch");
	if (ntops > 1) {
		if ((rc = gp__switch_add_synthetic_root(c, ntops, err)) < 0)
			return rc;
	} else {
		c->root = top;
	}

	free(c->node_order);
	free(c->node_pos);
	c->node_order = malloc(((size_t)c->nnodes + 1) * sizeof(*c->node_order));
	c->node_pos = malloc(((size_t)c->nnodes + 1) * sizeof(*c->node_pos));
	if (!c->node_order || !c->node_pos)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	if (c->root < 0) {
		for (i = 0; i < c->nnodes; i++)
			c->node_order[i] = c->node_pos[i] = i;
		c->nlevels = 0;
		return GP_OK;
	}
	if ((rc = gp__switch_walk_tree(c, err)) < 0)
		return rc;
	c->nlevels = c->switches[c->root].level + 1;
	if (c->nlevels > GP_MAX_LEVELS - 1)
		return gp__errorf(err, GP_ELIMIT, "switch tree has %d levels (at most %d supported)",
		                  (int)c->nlevels, GP_MAX_LEVELS - 1);
	return GP_OK;
}

void gp__layout_islands(gp_gres_layout_t *g, bool nvlink)
{
	int map[GP_MAX_GPUS_PER_NODE];
	int a, b, changed;

	memset(g->island, 0, sizeof(g->island));
	g->nislands = 0;
	if (!g->has_links) {
		for (a = 0; a < g->ngpus; a++)
			g->island[a] = nvlink ? 0 : (uint8_t)a;
		g->nislands = g->ngpus == 0 ? 0 : (nvlink ? 1 : g->ngpus);
		return;
	}
	/* label propagation: tiny matrices (<= 16 x 16) */
	for (a = 0; a < g->ngpus; a++)
		g->island[a] = (uint8_t)a;
	do {
		changed = 0;
		for (a = 0; a < g->ngpus; a++)
			for (b = 0; b < g->ngpus; b++)
				if (a != b && (g->links[a][b] > 0 || g->links[b][a] > 0) &&
				    g->island[b] < g->island[a]) {
					g->island[a] = g->island[b];
					changed = 1;
				}
	} while (changed);
	/* renumber islands densely in GPU order */
	for (a = 0; a < GP_MAX_GPUS_PER_NODE; a++)
		map[a] = -1;
	for (a = 0; a < g->ngpus; a++) {
		if (map[g->island[a]] < 0)
			map[g->island[a]] = g->nislands++;
		g->island[a] = (uint8_t)map[g->island[a]];
	}
}

/* NVLink islands of every layout; NVLink or not from the first node using it. */
static void finish_layouts(gp_cluster_t *c)
{
	int32_t l, i;

	for (l = 0; l < c->nlayouts; l++) {
		bool nvlink = false;

		for (i = 0; i < c->nnodes; i++)
			if (c->nodes[i].layout == l) {
				int32_t p = c->nodes[i].profile;

				/* several GPU types: no NVLink unless Links= says so */
				nvlink = p >= 0 && c->profiles[p].nvlink_gbps > 0 &&
				         !(c->nodes[i].gpu_types && strchr(c->nodes[i].gpu_types, ','));
				break;
			}
		gp__layout_islands(&c->layouts[l], nvlink);
	}
}

int gp__cluster_finish(gp_cluster_t *c, gp_error_t *err)
{
	int rc;

	if (!c)
		return gp__errorf(err, GP_EINVAL, "no cluster");
	/* a synthetic root from an earlier call has one child list and stays */
	c->root = -1;
	if ((rc = finish_nodes(c, err)) < 0)
		return rc;
	if ((rc = finish_switches(c, err)) < 0)
		return rc;
	finish_layouts(c);
	return GP_OK;
}
