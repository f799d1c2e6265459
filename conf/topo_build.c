/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topo_build.c - the model's switch tree and blocks, built from what a
 * topology reader found: topology.conf's (load_topology.c) and
 * topology.yaml's (load_yaml.c) readers add switches, blocks, their member
 * lists and the block sizes here, and gp__topo_resolve() turns them into
 * the model.
 *
 * Tree: the rooted switch tree (parents, a synthetic "(top)" over a forest,
 * levels, the DFS node order and each switch's node range).
 *
 * Blocks: each block is a gp_block (and, unless gpuplace.conf says
 * otherwise, an NVLink domain: load.c).  Semantics follow Slurm's
 * topology/block (src/plugins/topology/block/block_record.c, 24.05 ..
 * 26.05): the first BlockSizes value is the base block size, every block
 * has at least that many nodes, every further value is the base times a
 * power of two 2^L (L <= 15), i.e. an aggregated level of 2^L consecutive
 * blocks in file order; without BlockSizes the levels are 1, 2, 4, 8 and 16
 * blocks; levels above the first one that holds every block are dropped;
 * a trailing partial group is kept only when it has more blocks than the
 * level below holds.  When the file has no switch tree, the aggregated
 * levels become the model's switch tree (a group of blocks = a switch named
 * "FIRST-LAST" after its first and last block, holding the nodes of its
 * blocks that no lower group holds; a block in no group is a switch of its
 * own, and several top groups sit under a disconnected "(top)" as a forest
 * of topology/tree does: no job spans them), so the fabric levels of gpuplace.conf
 * describe the links between blocks, between groups of blocks, and so on.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"

typedef struct topo_ctx {
	gp__load_t *ld;
	int32_t *cap;           /* per switch: capacity of children / nodes */
	int32_t nunknown;       /* unknown node names on the current line */
	char unknown[160];      /* the first of them, comma-separated */
	int32_t cur;            /* switch being resolved */
	const gp__conf_loc_t *cur_loc;
	const char *cur_key;    /* "Switches"/"Nodes" or topology.yaml's spelling */
} topo_ctx_t;

/* The key names of the two syntaxes, for messages. */
static const char *k_children(const gp__load_t *ld) { return ld->topo_yaml ? "children" : "Switches"; }
static const char *k_nodes(const gp__load_t *ld) { return ld->topo_yaml ? "nodes" : "Nodes"; }
static const char *k_switch(const gp__load_t *ld) { return ld->topo_yaml ? "switch" : "SwitchName"; }
static const char *k_block(const gp__load_t *ld) { return ld->topo_yaml ? "block" : "BlockName"; }

int gp__topo_init(gp__load_t *ld, gp_error_t *err)
{
	gp_cluster_t *c = ld->c;
	int32_t i;

	c->node_order = malloc(((size_t)c->nnodes + 1) * sizeof(*c->node_order));
	c->node_pos = malloc(((size_t)c->nnodes + 1) * sizeof(*c->node_pos));
	if (!c->node_order || !c->node_pos || gp__nametab_init(&ld->sw_names, false) ||
	    gp__nametab_init(&ld->blk_names, false))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	for (i = 0; i < c->nnodes; i++)
		c->node_order[i] = c->node_pos[i] = i;
	return GP_OK;
}

int gp__topo_add_switch(gp__load_t *ld, const gp__conf_loc_t *loc, const char *key,
                        const char *name, int32_t *idx, gp_error_t *err)
{
	gp_cluster_t *c = ld->c;
	gp_switch_t *w;
	gp__load_switch_t *ls;
	int32_t dup;
	int rc;

	if (gp__grow(&c->switches, (size_t)c->nswitches, sizeof(*c->switches)) ||
	    gp__grow(&ld->sw, (size_t)c->nswitches, sizeof(*ld->sw)))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	w = &c->switches[c->nswitches];
	ls = &ld->sw[c->nswitches];
	memset(w, 0, sizeof(*w));
	memset(ls, 0, sizeof(*ls));
	w->parent = -1;
	ls->loc = *loc;
	/* counted now so that the strings below are freed on error */
	c->nswitches++;
	ld->nsw = c->nswitches;
	if (!ld->tree_loc.line)
		ld->tree_loc = *loc;
	if ((rc = gp__conf_str(loc, key, name, w->name, sizeof(w->name), false, err)))
		return rc;
	if (gp__nametab_add(&ld->sw_names, w->name, c->nswitches - 1, &dup))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	if (dup >= 0)
		return gp__conf_err(err, loc, key, "duplicate switch '%s' (first at %s:%d)", w->name,
		                    ld->sw[dup].loc.path, ld->sw[dup].loc.line);
	*idx = c->nswitches - 1;
	return GP_OK;
}

int gp__topo_add_block(gp__load_t *ld, const gp__conf_loc_t *loc, const char *key,
                       const char *name, int32_t *idx, gp_error_t *err)
{
	gp_cluster_t *c = ld->c;
	gp_block_t *b;
	int32_t dup;
	int rc;

	if (gp__grow(&c->blocks, (size_t)c->nblocks, sizeof(*c->blocks)) ||
	    gp__grow(&ld->blk, (size_t)c->nblocks, sizeof(*ld->blk)))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	b = &c->blocks[c->nblocks];
	memset(b, 0, sizeof(*b));
	memset(&ld->blk[c->nblocks], 0, sizeof(*ld->blk));
	ld->blk[c->nblocks].loc = *loc;
	c->nblocks++;
	if (!ld->block_loc.line)
		ld->block_loc = *loc;
	if ((rc = gp__conf_str(loc, key, name, b->name, sizeof(b->name), false, err)))
		return rc;
	if (gp__nametab_add(&ld->blk_names, b->name, c->nblocks - 1, &dup))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	if (dup >= 0)
		return gp__conf_err(err, loc, key, "duplicate block '%s' (first at %s:%d)", b->name,
		                    ld->blk[dup].loc.path, ld->blk[dup].loc.line);
	*idx = c->nblocks - 1;
	return GP_OK;
}

int gp__topo_set_list(char **dst, gp__conf_loc_t *dst_loc, const gp__conf_loc_t *loc,
                      const char *val, gp_error_t *err)
{
	free(*dst);
	if (!(*dst = strdup(val)))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	*dst_loc = *loc;
	return GP_OK;
}

int gp__topo_add_block_size(gp__load_t *ld, const gp__conf_loc_t *loc, const char *key,
                            const char *val, gp_error_t *err)
{
	long v;
	int rc;

	if (ld->nbsizes == GP_MAX_BLOCK_LEVELS)
		return gp__conf_err(err, loc, key, "more than %d block sizes (Slurm's limit)",
		                    GP_MAX_BLOCK_LEVELS);
	if ((rc = gp__conf_long(loc, key, val, 1, 1L << 30, &v, err)))
		return rc;
	ld->bsizes_loc[ld->nbsizes] = *loc;
	ld->bsizes[ld->nbsizes++] = v;
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
	int32_t ch = gp__nametab_find(&t->ld->sw_names, name);

	if (ch < 0)
		return gp__conf_err(err, t->cur_loc, t->cur_key, "unknown switch '%s'", name);
	if (c->switches[ch].parent >= 0) {
		if (c->switches[ch].parent == t->cur)
			return GP_OK; /* listed twice by the same switch */
		return gp__conf_err(err, t->cur_loc, t->cur_key,
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

	if (i < 0) {
		/* slurmctld's topology/tree: "Invalid hostnames in switch
		 * configuration", a warning; the rest of the switch is used
		 * (switch_record.c, node_name2bitmap with an invalid list) */
		size_t ul = strlen(t->unknown);

		if (t->nunknown++ < 4)
			snprintf(t->unknown + ul, sizeof(t->unknown) - ul, "%s%s", ul ? ", " : "", name);
		return GP_OK;
	}
	if (c->nodes[i].leaf >= 0) {
		if (c->nodes[i].leaf == t->cur)
			return GP_OK;
		/* a real-world wart: keep the first switch, say so */
		if (gp__cluster_warnf(c, "%s:%d: %s: node '%s' is already under switch '%s'; "
		                      "ignored under '%s'", t->cur_loc->path, t->cur_loc->line,
		                      t->cur_key, name, c->switches[c->nodes[i].leaf].name, w->name))
			return gp__errorf(err, GP_ENOMEM, "out of memory");
		return GP_OK;
	}
	c->nodes[i].leaf = t->cur;
	if (push(&w->nodes, &w->nnodes, &t->cap[t->cur], i))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	return GP_OK;
}

/* Root, levels and DFS order of the switches now in c; loc names the file
 * in the "too many levels" error. */
static int finish_tree(gp__load_t *ld, const gp__conf_loc_t *loc, const char *key,
                       gp_error_t *err)
{
	gp_cluster_t *c = ld->c;
	int32_t i, ntops = 0, top = -1;
	int rc;

	for (i = 0; i < c->nswitches; i++)
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
	if (c->root < 0)
		return GP_OK;
	if ((rc = gp__switch_walk_tree(c, err)))
		return rc;
	c->nlevels = c->switches[c->root].level + 1;
	if (c->nlevels > GP_MAX_LEVELS - 1)
		return gp__conf_err(err, loc, key, "switch tree has %d levels (at most %d supported)",
		                    (int)c->nlevels, GP_MAX_LEVELS - 1);
	return GP_OK;
}

/* A leaf of its own beside the tree, named name, holding the nodes under
 * no switch whose block is `block' (-1: those in no block). */
static int unswitched_group(gp__load_t *ld, const char *name, int32_t block, gp_error_t *err)
{
	gp_cluster_t *c = ld->c;
	int32_t i, n = 0, idx;
	gp__conf_loc_t loc;
	gp_switch_t *w;
	int rc;

	for (i = 0; i < c->nnodes; i++)
		n += c->nodes[i].leaf < 0 && c->nodes[i].block == block;
	if (!n)
		return GP_OK;
	/* a copy: adding the switch moves ld->sw */
	loc = ld->sw[0].loc;
	if ((rc = gp__topo_add_switch(ld, &loc, k_switch(ld), name, &idx, err)))
		return rc;
	w = &c->switches[idx];
	w->nodes = malloc((size_t)n * sizeof(*w->nodes));
	if (!w->nodes)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	for (i = 0; i < c->nnodes; i++)
		if (c->nodes[i].leaf < 0 && c->nodes[i].block == block) {
			c->nodes[i].leaf = idx;
			w->nodes[w->nnodes++] = i;
		}
	return GP_OK;
}

/*
 * Nodes under no switch.  slurmctld warns ("switches lack access to N
 * nodes: LIST", topology/tree switch_record.c) and goes on; its tree
 * placement never reaches them.  Here they become leaves of their own
 * beside the tree under a disconnected top: gpuplace keeps placing jobs
 * inside one of them or inside the tree, never across.  Those in a block
 * (topology.yaml's block topology beside its tree: the nodes of
 * partitions bound to it) are a leaf per block, "(block NAME)", since
 * Slurm's topology/block keeps a job that fits a block inside one; the
 * rest are one leaf, "(unswitched)".  One warning for all of them, with
 * the count and the first names.
 */
static int unswitched(gp__load_t *ld, gp_error_t *err)
{
	gp_cluster_t *c = ld->c;
	char names[200] = "", name[GP_NAME_MAX + 16];
	int32_t i, n = 0, inblk = 0;
	int rc;

	for (i = 0; i < c->nnodes; i++)
		if (c->nodes[i].leaf < 0) {
			size_t ul = strlen(names);

			if (n++ < 4)
				snprintf(names + ul, sizeof(names) - ul, "%s%s (%s:%d)", ul ? ", " : "",
				         c->nodes[i].name, ld->node_loc[i].path, ld->node_loc[i].line);
			inblk += c->nodes[i].block >= 0;
		}
	if (!n)
		return GP_OK;
	if (gp__cluster_warnf(c, "%s: %d node%s under no switch (%s%s): Slurm's topology/tree has "
	                      "no switch for them; modelled as %s that no job spans with the "
	                      "tree", ld->topo_path, (int)n, n == 1 ? " is" : "s are", names,
	                      n > 4 ? ", ..." : "",
	                      inblk == n ? "a separate group per block, \"(block NAME)\","
	                      : inblk ? "a separate group per block, \"(block NAME)\", and the "
	                                "rest as \"(unswitched)\","
	                              : "a separate group \"(unswitched)\""))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	for (i = 0; inblk && i < c->nblocks; i++) {
		/* a name too long for a switch: the block's index */
		if (snprintf(name, sizeof(name), "(block %s)", c->blocks[i].name) >= GP_NAME_MAX)
			snprintf(name, sizeof(name), "(block %d)", (int)i + 1);
		if ((rc = unswitched_group(ld, name, i, err)))
			return rc;
	}
	return unswitched_group(ld, "(unswitched)", -1, err);
}

static int resolve_tree(topo_ctx_t *t, gp_error_t *err)
{
	gp__load_t *ld = t->ld;
	gp_cluster_t *c = ld->c;
	int32_t i, nreal = c->nswitches;
	uint8_t *seen;
	int rc;

	t->cap = calloc((size_t)nreal + 1, sizeof(*t->cap));
	if (!t->cap)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	t->cur_key = k_children(ld);
	for (i = 0; i < nreal; i++) {
		if (!ld->sw[i].switches)
			continue;
		t->cur = i;
		t->cur_loc = &ld->sw[i].switches_loc;
		rc = gp__conf_hostlist(t->cur_loc, t->cur_key, ld->sw[i].switches, add_child, t, err);
		if (rc)
			return rc;
	}
	memset(t->cap, 0, ((size_t)nreal + 1) * sizeof(*t->cap));
	t->cur_key = k_nodes(ld);
	for (i = 0; i < nreal; i++) {
		if (!ld->sw[i].nodes)
			continue;
		t->cur = i;
		t->cur_loc = &ld->sw[i].nodes_loc;
		t->nunknown = 0;
		t->unknown[0] = '\0';
		rc = gp__conf_hostlist(t->cur_loc, t->cur_key, ld->sw[i].nodes, add_node, t, err);
		if (rc)
			return rc;
		if (t->nunknown &&
		    gp__cluster_warnf(c, "%s:%d: %s: %d unknown node%s under switch '%s' (%s%s): "
		                      "not in slurm.conf, ignored as Slurm does", t->cur_loc->path,
		                      t->cur_loc->line, t->cur_key, (int)t->nunknown,
		                      t->nunknown == 1 ? "" : "s", c->switches[i].name, t->unknown,
		                      t->nunknown > 4 ? ", ..." : ""))
			return gp__errorf(err, GP_ENOMEM, "out of memory");
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
			return gp__conf_err(err, &ld->sw[p].switches_loc, k_children(ld),
			                    "switch cycle: '%s' is below itself", c->switches[s].name);
		}
		for (s = i; s >= 0 && !seen[s]; s = c->switches[s].parent)
			seen[s] = 1;
	}
	free(seen);
	if ((rc = unswitched(ld, err)))
		return rc;
	return finish_tree(ld, &ld->sw[0].loc, k_switch(ld), err);
}

/* The block levels in effect (see the file comment); 0 or GP_ECONFIG. */
static int block_sizes(gp__load_t *ld, gp_error_t *err)
{
	gp_cluster_t *c = ld->c;
	const char *key = ld->bsizes_key;
	uint32_t mask = 0;
	int32_t i, L;

	if (key && ld->nbsizes > 0) {
		long base = ld->bsizes[0];

		for (i = 0; i < ld->nbsizes; i++) {
			long v = ld->bsizes[i], r;
			const gp__conf_loc_t *loc = &ld->bsizes_loc[i];

			if (i > 0 && v <= ld->bsizes[i - 1])
				return gp__conf_err(err, loc, key, "'%ld' is not larger than the size "
				                    "before it (%ld)", v, ld->bsizes[i - 1]);
			if (v % base)
				return gp__conf_err(err, loc, key, "'%ld' is not a multiple of the base "
				                    "block size %ld", v, base);
			r = v / base;
			for (L = 0; (1L << L) < r && L < GP_MAX_BLOCK_LEVELS; L++)
				;
			if ((1L << L) != r || L >= GP_MAX_BLOCK_LEVELS)
				return gp__conf_err(err, loc, key, "'%ld' is not the base block size %ld "
				                    "times a power of two up to 2^%d", v, base,
				                    GP_MAX_BLOCK_LEVELS - 1);
			mask |= 1u << L;
		}
		c->block_base = (int32_t)base;
	} else {
		/* BlockLevels (23.11) as given, else Slurm's default: levels 0-4
		 * (1, 2, 4, 8, 16 blocks), also for an empty block_sizes list; the
		 * base is the size of the first block */
		mask = key && !strcmp(key, "BlockLevels") ? ld->blevels | 1u : 0x1fu;
		c->block_base = c->blocks[0].nnodes;
	}
	/* a level above the first one that holds every block is never used */
	for (L = 0; L < GP_MAX_BLOCK_LEVELS; L++)
		if ((mask >> L) & 1u && (1L << L) >= c->nblocks) {
			mask &= (2u << L) - 1;
			break;
		}
	c->block_levels = mask | 1u;
	for (i = 0; i < c->nblocks; i++)
		if (c->blocks[i].nnodes < c->block_base)
			return gp__conf_err(err, &ld->blk[i].loc, k_block(ld),
			                    "block '%s' has %d node%s, fewer than the base block size %d",
			                    c->blocks[i].name, (int)c->blocks[i].nnodes,
			                    c->blocks[i].nnodes == 1 ? "" : "s",
			                    (int)c->block_base);
	return GP_OK;
}

/* The aggregated block levels as a switch tree (no switch tree given). */
static int blocks_to_tree(gp__load_t *ld, gp_error_t *err)
{
	gp_cluster_t *c = ld->c;
	int32_t nb = c->nblocks, lv[GP_MAX_BLOCK_LEVELS], nlv = 0, k, g, b, j;
	int32_t *owner = NULL;
	gp__conf_loc_t loc = ld->bsizes_key ? ld->bsizes_loc[0] : ld->blk[0].loc;
	const char *key = ld->bsizes_key ? ld->bsizes_key : k_block(ld);
	int rc = GP_ENOMEM;

	for (k = 1; k < GP_MAX_BLOCK_LEVELS; k++)
		if ((c->block_levels >> k) & 1u)
			lv[nlv++] = k;
	if (nlv == 0)
		return GP_OK;
	/* owner[b]: the switch that holds block b's nodes (its lowest group) */
	owner = malloc((size_t)nb * sizeof(*owner));
	if (!owner) {
		gp__errorf(err, rc, "out of memory");
		goto out;
	}
	for (b = 0; b < nb; b++)
		owner[b] = -1;
	for (k = 0; k < nlv; k++) {
		int32_t size = 1 << lv[k], prev = k ? 1 << lv[k - 1] : 1;

		for (g = 0; g * size < nb; g++) {
			int32_t start = g * size, end = start + size < nb ? start + size : nb, idx;
			char name[GP_NAME_MAX * 2 + 2];

			/* Slurm keeps a partial group only when it holds more than
			 * the level below */
			if (end - start < size && end - start <= prev)
				continue;
			if (end - start == 1)
				snprintf(name, sizeof(name), "%s", c->blocks[start].name);
			else
				snprintf(name, sizeof(name), "%s-%s", c->blocks[start].name,
				         c->blocks[end - 1].name);
			if (strlen(name) >= GP_NAME_MAX)
				snprintf(name, sizeof(name), "blocks%d-%d", (int)start + 1, (int)end);
			if ((rc = gp__topo_add_switch(ld, &loc, key, name, &idx, err)))
				goto out;
			/* children: the groups of lower levels directly inside */
			for (b = start; b < end; b++) {
				int32_t o = owner[b];

				if (o >= 0) {
					while (c->switches[o].parent >= 0)
						o = c->switches[o].parent;
					if (o == idx)
						continue;
					c->switches[o].parent = idx;
					if (gp__grow(&c->switches[idx].children,
					             (size_t)c->switches[idx].nchildren, sizeof(int32_t))) {
						rc = gp__errorf(err, GP_ENOMEM, "out of memory");
						goto out;
					}
					c->switches[idx].children[c->switches[idx].nchildren++] = o;
				} else {
					owner[b] = idx;
					for (j = 0; j < c->blocks[b].nnodes; j++) {
						int32_t n = c->blocks[b].nodes[j];

						if (gp__grow(&c->switches[idx].nodes,
						             (size_t)c->switches[idx].nnodes, sizeof(int32_t))) {
							rc = gp__errorf(err, GP_ENOMEM, "out of memory");
							goto out;
						}
						c->switches[idx].nodes[c->switches[idx].nnodes++] = n;
						c->nodes[n].leaf = idx;
					}
				}
			}
		}
	}
	/* a block in no group (a trailing partial group Slurm drops) is a
	 * leaf of its own: jobs may use it, but not span it and the others */
	for (b = 0; b < nb; b++) {
		int32_t idx;

		if (owner[b] >= 0)
			continue;
		if ((rc = gp__topo_add_switch(ld, &loc, key, c->blocks[b].name, &idx, err)))
			goto out;
		for (j = 0; j < c->blocks[b].nnodes; j++) {
			int32_t n = c->blocks[b].nodes[j];

			if (gp__grow(&c->switches[idx].nodes, (size_t)c->switches[idx].nnodes,
			             sizeof(int32_t))) {
				rc = gp__errorf(err, GP_ENOMEM, "out of memory");
				goto out;
			}
			c->switches[idx].nodes[c->switches[idx].nnodes++] = n;
			c->nodes[n].leaf = idx;
		}
	}
	c->tree_from_blocks = c->nswitches > 0;
	rc = finish_tree(ld, &loc, key, err);
out:
	free(owner);
	return rc;
}

/* One node of block t->cur (the block's Nodes=). */
static int block_node(void *arg, const char *name, gp_error_t *err)
{
	topo_ctx_t *t = arg;
	gp__load_t *ld = t->ld;
	gp_cluster_t *c = ld->c;
	gp_block_t *b = &c->blocks[t->cur];
	int32_t i = gp__node_find(c, name);
	gp_node_t *n;

	if (i < 0) {
		/* topology/block: "Invalid hostnames in block configuration",
		 * a warning (block_record.c) */
		size_t ul = strlen(t->unknown);

		if (t->nunknown++ < 4)
			snprintf(t->unknown + ul, sizeof(t->unknown) - ul, "%s%s", ul ? ", " : "", name);
		return GP_OK;
	}
	n = &c->nodes[i];
	if (n->block == t->cur)
		return GP_OK;
	if (n->block >= 0)
		return gp__conf_err(err, t->cur_loc, k_nodes(ld),
		                    "node '%s' is already in block '%s' (%s:%d)", n->name,
		                    c->blocks[n->block].name, ld->blk[n->block].loc.path,
		                    ld->blk[n->block].loc.line);
	n->block = t->cur;
	if (gp__grow(&b->nodes, (size_t)b->nnodes, sizeof(*b->nodes)))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	b->nodes[b->nnodes++] = i;
	return GP_OK;
}

static int resolve_blocks(gp__load_t *ld, gp_error_t *err)
{
	gp_cluster_t *c = ld->c;
	topo_ctx_t t = { .ld = ld };
	int32_t i, nout = 0, firstout = -1;
	int rc;

	for (i = 0; i < c->nblocks; i++) {
		gp_block_t *b = &c->blocks[i];

		if (!ld->blk[i].nodes)
			return gp__conf_err(err, &ld->blk[i].loc, k_nodes(ld),
			                    "required key missing (block '%s')", b->name);
		t.cur = i;
		t.cur_loc = &ld->blk[i].nodes_loc;
		t.nunknown = 0;
		t.unknown[0] = '\0';
		if ((rc = gp__conf_hostlist(t.cur_loc, k_nodes(ld), ld->blk[i].nodes, block_node, &t,
		                            err)))
			return rc;
		if (!b->nodes && !(b->nodes = malloc(sizeof(*b->nodes))))
			return gp__errorf(err, GP_ENOMEM, "out of memory");
		if (t.nunknown &&
		    gp__cluster_warnf(c, "%s:%d: %s: %d unknown node%s in block '%s' (%s%s): "
		                      "not in slurm.conf, ignored as Slurm does", t.cur_loc->path,
		                      t.cur_loc->line, k_nodes(ld), (int)t.nunknown,
		                      t.nunknown == 1 ? "" : "s", b->name, t.unknown,
		                      t.nunknown > 4 ? ", ..." : ""))
			return gp__errorf(err, GP_ENOMEM, "out of memory");
	}
	for (i = 0; i < c->nnodes; i++)
		if (c->nodes[i].block < 0 && nout++ == 0)
			firstout = i;
	if (nout && gp__cluster_warnf(c, "%s: %d node%s in no block (first: '%s'); Slurm's "
	                              "topology/block has no access to them",
	                              ld->topo_path, (int)nout, nout == 1 ? " is" : "s are",
	                              c->nodes[firstout].name))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	return block_sizes(ld, err);
}

int gp__topo_resolve(gp__load_t *ld, gp_error_t *err)
{
	topo_ctx_t t = { .ld = ld };
	int rc = GP_OK;

	if (ld->bsizes_key && !ld->c->nblocks)
		return gp__conf_err(err, &ld->bsizes_loc[0], ld->bsizes_key, "given without blocks");
	if (ld->c->nblocks && (rc = resolve_blocks(ld, err)))
		return rc;
	if (ld->c->nswitches > 0)
		rc = resolve_tree(&t, err);
	else if (ld->c->nblocks > 0)
		rc = blocks_to_tree(ld, err);
	free(t.cap);
	return rc;
}

/*
 * PartitionName=... Topology=NAME (Slurm 25.05+, slurm.conf(5)): each
 * topology of topology.yaml covers its own nodes and its partitions.  The
 * model holds one tree and one block topology (load_yaml.c); a partition
 * bound to another is named once with what that means for it.  A
 * partition placed by a topology other than the block one (its Topology=,
 * or where it names none the first topology with cluster_default: true,
 * topology.yaml(5)) is marked no_blocks: Slurm's block rules are not its.
 */
int gp__topo_partitions(gp__load_t *ld, gp_error_t *err)
{
	const gp__load_topo_t *def = NULL;
	gp_cluster_t *c = ld->c;
	int32_t i;
	int k;

	for (k = ld->ntopos - 1; k >= 0; k--)
		if (ld->topos[k].cluster_default)
			def = &ld->topos[k];
	for (i = 0; i < c->nparts; i++) {
		const gp__load_part_t *lp = &ld->part[i];
		const gp__load_topo_t *t = NULL;
		int e = 0;

		if (!lp->topology) {
			c->parts[i].no_blocks = def && strcmp(def->kind, "block");
			continue;
		}
		for (k = 0; k < ld->ntopos; k++)
			if (!strcmp(ld->topos[k].name, lp->topology))
				t = &ld->topos[k];
		c->parts[i].no_blocks = t && strcmp(t->kind, "block");
		if (!t)
			e = gp__cluster_warnf(c, "%s:%d: Topology: partition '%s': topology '%s' is not in "
			                      "%s; its jobs are placed as the rest of the model says",
			                      lp->loc.path, lp->loc.line, c->parts[i].name, lp->topology,
			                      ld->topo_path ? ld->topo_path : "a topology.yaml");
		else if (!t->modelled && (!strcmp(t->kind, "tree") || !strcmp(t->kind, "block")))
			e = gp__cluster_warnf(c, "%s:%d: Topology: partition '%s': topology '%s' (%s, "
			                      "%s:%d) is not the one modelled; its nodes not in the "
			                      "modelled topology are a group of their own, without "
			                      "its switches", lp->loc.path, lp->loc.line,
			                      c->parts[i].name, t->name, t->kind, ld->topo_path, t->line);
		else if (!t->modelled) {
			/* Slurm places these jobs without switches, and so
			 * must gpuplace: it leaves them to Slurm, saying why */
			free(c->parts[i].slurm_only);
			if (asprintf(&c->parts[i].slurm_only, "partition '%s': topology '%s' is %s, "
			             "placed by Slurm", c->parts[i].name, t->name, t->kind) < 0) {
				c->parts[i].slurm_only = NULL;
				e = GP_ENOMEM;
			} else {
				e = gp__cluster_warnf(c, "%s:%d: Topology: partition '%s': topology '%s' "
				                      "is %s, placed by Slurm without topology; gpuplace "
				                      "passes its jobs unchanged", lp->loc.path,
				                      lp->loc.line, c->parts[i].name, t->name, t->kind);
			}
		}
		if (e)
			return gp__errorf(err, GP_ENOMEM, "out of memory");
	}
	return GP_OK;
}

