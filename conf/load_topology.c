/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * load_topology.c - the cluster's topology as Slurm reads it.
 *
 * Which file: topology.yaml (Slurm 25.05+) when it exists, and then
 * topology.conf is ignored as Slurm ignores it (load_yaml.c reads it);
 * else topology.conf in either of its syntaxes (topology.conf(5)):
 *   topology/tree:  SwitchName=NAME [Switches=LIST] [Nodes=LIST] [LinkSpeed=N]
 *   topology/block: BlockName=NAME Nodes=LIST ... [BlockSizes=N,N,...]
 *                   (Slurm 24.05+; Slurm 23.11 spelled the levels
 *                   BlockLevels=0-1,2, which is read too)
 * Slurm's TopologyPlugin reads one kind, so one topology.conf holding both
 * is an error.  Without either file the model has no switches and node
 * order = slurm.conf order.
 *
 * The switches, blocks and block sizes it reads go to the builder
 * (topo_build.c), which both readers share.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"

/* BlockLevels=0-1,2 (Slurm 23.11): a list of levels and level ranges. */
static int block_levels(gp__load_t *ld, const gp__conf_loc_t *loc, const char *val,
                        gp_error_t *err)
{
	char buf[256], *item, *save = NULL, *dash;
	long a, b;

	if (gp__conf_str(loc, "BlockLevels", val, buf, sizeof(buf), false, err))
		return GP_ECONFIG;
	for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		dash = strchr(item, '-');
		if (dash)
			*dash = '\0';
		if (gp__parse_long(item, 0, GP_MAX_BLOCK_LEVELS - 1, &a) ||
		    (dash && gp__parse_long(dash + 1, a, GP_MAX_BLOCK_LEVELS - 1, &b)))
			return gp__conf_err(err, loc, "BlockLevels",
			                    "'%s' is not a list of levels 0-%d (e.g. 0-1,3)", val,
			                    GP_MAX_BLOCK_LEVELS - 1);
		if (!dash)
			b = a;
		for (; a <= b; a++)
			ld->blevels |= 1u << a;
	}
	return GP_OK;
}

static int topo_line(void *arg, const gp__conf_line_t *l, gp_error_t *err)
{
	gp__load_t *ld = arg;
	const gp__conf_kv_t *k0 = &l->kv[0];
	bool sw = gp__conf_is(k0, "SwitchName"), blk = gp__conf_is(k0, "BlockName");
	int32_t idx;
	int i, rc;

	if (gp__conf_is(k0, "BlockSizes") || gp__conf_is(k0, "BlockLevels")) {
		const char *key = gp__conf_is(k0, "BlockSizes") ? "BlockSizes" : "BlockLevels";
		char buf[512], *item, *save = NULL;

		if (l->n > 1)
			return gp__conf_err(err, &l->loc, l->kv[1].key, "unknown key");
		if (ld->bsizes_key)
			return gp__conf_err(err, &l->loc, key, "%s given twice (first at %s:%d)",
			                    ld->bsizes_key, ld->bsizes_loc[0].path, ld->bsizes_loc[0].line);
		ld->bsizes_key = key;
		ld->bsizes_loc[0] = l->loc;
		if (gp__conf_is(k0, "BlockLevels"))
			return block_levels(ld, &l->loc, k0->val, err);
		if ((rc = gp__conf_str(&l->loc, key, k0->val, buf, sizeof(buf), false, err)))
			return rc;
		for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save))
			if ((rc = gp__topo_add_block_size(ld, &l->loc, key, item, err)))
				return rc;
		return GP_OK;
	}
	if (!sw && !blk)
		return gp__conf_err(err, &l->loc, k0->key, "unknown key");
	if ((sw && ld->block_loc.line) || (blk && ld->tree_loc.line)) {
		const gp__conf_loc_t *o = sw ? &ld->block_loc : &ld->tree_loc;

		return gp__conf_err(err, &l->loc, sw ? "SwitchName" : "BlockName",
		                    "topology/tree (SwitchName) and topology/block (BlockName) lines "
		                    "in one file (the other kind at line %d); Slurm's "
		                    "TopologyPlugin reads one kind", o->line);
	}
	rc = sw ? gp__topo_add_switch(ld, &l->loc, "SwitchName", k0->val, &idx, err)
	        : gp__topo_add_block(ld, &l->loc, "BlockName", k0->val, &idx, err);
	if (rc)
		return rc;
	for (i = 1; i < l->n; i++) {
		const gp__conf_kv_t *kv = &l->kv[i];

		if (sw && gp__conf_is(kv, "Switches")) {
			rc = gp__topo_set_list(&ld->sw[idx].switches, &ld->sw[idx].switches_loc, &l->loc,
			                       kv->val, err);
		} else if (sw && gp__conf_is(kv, "Nodes")) {
			rc = gp__topo_set_list(&ld->sw[idx].nodes, &ld->sw[idx].nodes_loc, &l->loc,
			                       kv->val, err);
		} else if (sw && gp__conf_is(kv, "LinkSpeed")) {
			rc = gp__conf_double(&l->loc, "LinkSpeed", kv->val, 0, 1e12,
			                     &ld->c->switches[idx].link_speed, err);
		} else if (blk && gp__conf_is(kv, "Nodes")) {
			rc = gp__topo_set_list(&ld->blk[idx].nodes, &ld->blk[idx].nodes_loc, &l->loc,
			                       kv->val, err);
		} else {
			return gp__conf_err(err, &l->loc, kv->key, "unknown key");
		}
		if (rc)
			return rc;
	}
	return GP_OK;
}

int gp__load_topology(gp__load_t *ld, gp_error_t *err)
{
	gp_cluster_t *c = ld->c;
	char path[GP_PATH_MAX];
	int rc, n;

	if ((rc = gp__topo_init(ld, err)))
		return rc;
	/* topology.yaml first: when it exists Slurm ignores topology.conf */
	n = snprintf(path, sizeof(path), "%s/topology.yaml", ld->dir);
	if (n < 0 || (size_t)n >= sizeof(path))
		return gp__errorf(err, GP_ECONFIG, "%s: path is too long", ld->dir);
	if (gp__conf_pool_exists(&ld->paths, path)) {
		if (!(ld->topo_path = gp__conf_pool_add(&ld->paths, path)))
			return gp__errorf(err, GP_ENOMEM, "out of memory");
		ld->topo_yaml = true;
		if ((rc = gp__load_topology_yaml(ld, ld->topo_path, err)) ||
		    (rc = gp__topo_partitions(ld, err)))
			return rc;
		snprintf(path, sizeof(path), "%s/topology.conf", ld->dir);
		if (gp__conf_pool_exists(&ld->paths, path) &&
		    gp__cluster_warnf(c, "%s exists, so %s is ignored (as Slurm 25.05+ ignores it)",
		                      ld->topo_path, path))
			return gp__errorf(err, GP_ENOMEM, "out of memory");
	} else {
		rc = gp__conf_read_slurm(&ld->paths, ld->dir, "topology.conf", true, c, topo_line,
		                         ld, err);
		if (rc == GP_CONF_ABSENT)
			return GP_OK;
		if (rc)
			return rc;
		snprintf(path, sizeof(path), "%s/topology.conf", ld->dir);
		if (!(ld->topo_path = gp__conf_pool_add(&ld->paths, path)))
			return gp__errorf(err, GP_ENOMEM, "out of memory");
	}
	/* (a topology file with no switch or block counts as absent) */
	ld->has_topology = c->nswitches > 0 || c->nblocks > 0;
	return gp__topo_resolve(ld, err);
}
