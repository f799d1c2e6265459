/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * load_yaml.c - topology.yaml (Slurm 25.05+, topology.yaml(5)), read with
 * libyaml into the same loader entries as topology.conf.
 *
 * The file is a sequence of topologies, each a mapping with `topology:
 * NAME`, optional `cluster_default: true|false`, and exactly one of
 *   tree:  { switches: [ {switch: NAME, children: LIST, nodes: LIST}, ... ] }
 *   block: { block_sizes: [N, ...], blocks: [ {block: NAME, nodes: LIST}, ... ] }
 *   flat:  true or a mapping of options
 *   ring, torus3d: (Slurm 26.05+)
 * Slurm uses the cluster_default topology where a partition names none
 * and lets partitions select others (Topology= in slurm.conf).  The model
 * has one switch tree and one set of blocks, so gpuplace takes the tree
 * topology and the block topology that Slurm would try first (the cluster
 * default, else the first in the file) and records a warning for every
 * other tree or block topology; flat, ring and torus3d topologies add no
 * structure to the model and are only noted.  With a tree and a block
 * topology both taken, the tree is the switch tree and the blocks give the
 * NVLink domains and segments.
 *
 * Every error names the file, the line of the offending YAML node, the
 * key and the value: "topology.yaml:12: block_sizes: 'x' is not a number".
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "conf.h"
#include "slurm_emit.h"

typedef struct yctx {
	gp__load_t *ld;
	yaml_document_t doc;
	const char *path;
} yctx_t;

static gp__conf_loc_t loc_of(const yctx_t *y, const yaml_node_t *n)
{
	gp__conf_loc_t l = { y->path, n ? (int)n->start_mark.line + 1 : 0 };

	return l;
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int want(const yctx_t *y, const yaml_node_t *n, yaml_node_type_t type, const char *key,
                gp_error_t *err)
{
	static const char *const names[] = { "nothing", "a scalar", "a list", "a mapping" };
	gp__conf_loc_t l = loc_of(y, n);

	if (n && n->type == type)
		return GP_OK;
	return gp__conf_err(err, &l, key, "expected %s%s%s%s", names[type],
	                    scalar(n) ? ", not '" : "", scalar(n) ? scalar(n) : "",
	                    scalar(n) ? "'" : "");
}

/* YAML 1.1 booleans as Slurm's parser takes them. */
static int boolean(const yctx_t *y, const yaml_node_t *n, const char *key, bool *out,
                   gp_error_t *err)
{
	const char *v = scalar(n);
	gp__conf_loc_t l = loc_of(y, n);

	if (v && (!strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcmp(v, "1")))
		*out = true;
	else if (v && (!strcasecmp(v, "false") || !strcasecmp(v, "no") || !strcmp(v, "0")))
		*out = false;
	else
		return gp__conf_err(err, &l, key, "'%s' is not true or false", v ? v : "(not a scalar)");
	return GP_OK;
}

/* Iterate the pairs of mapping m: key string and value node. */
#define FOR_PAIRS(y, m, p) \
	for (yaml_node_pair_t *p = (m)->data.mapping.pairs.start; p < (m)->data.mapping.pairs.top; p++)
#define FOR_ITEMS(y, s, it) \
	for (yaml_node_item_t *it = (s)->data.sequence.items.start; it < (s)->data.sequence.items.top; it++)

static yaml_node_t *node(yctx_t *y, int id) { return yaml_document_get_node(&y->doc, id); }

/* One `- switch: NAME ...` or `- block: NAME ...` entry. */
static int entry(yctx_t *y, yaml_node_t *m, bool sw, gp_error_t *err)
{
	gp__load_t *ld = y->ld;
	const char *self = sw ? "switch" : "block";
	const char *name = NULL;
	yaml_node_t *namen = NULL;
	gp__conf_loc_t l;
	int32_t idx;
	int rc;

	if ((rc = want(y, m, YAML_MAPPING_NODE, sw ? "switches" : "blocks", err)))
		return rc;
	FOR_PAIRS(y, m, p) {
		yaml_node_t *k = node(y, p->key), *v = node(y, p->value);

		if (scalar(k) && !strcmp(scalar(k), self)) {
			namen = v;
			name = scalar(v);
		}
	}
	l = loc_of(y, namen ? namen : m);
	if (!name)
		return gp__conf_err(err, &l, self, "required key missing");
	rc = sw ? gp__topo_add_switch(ld, &l, self, name, &idx, err)
	        : gp__topo_add_block(ld, &l, self, name, &idx, err);
	if (rc)
		return rc;
	FOR_PAIRS(y, m, p) {
		yaml_node_t *k = node(y, p->key), *v = node(y, p->value);
		const char *key = scalar(k) ? scalar(k) : "(key)";
		gp__conf_loc_t vl = loc_of(y, v);

		if (!strcmp(key, self))
			continue;
		if (strcmp(key, "nodes") && !(sw && !strcmp(key, "children"))) {
			gp__conf_loc_t kl = loc_of(y, k);

			return gp__conf_err(err, &kl, key, "unknown key");
		}
		if ((rc = want(y, v, YAML_SCALAR_NODE, key, err)))
			return rc;
		if (!sw)
			rc = gp__topo_set_list(&ld->blk[idx].nodes, &ld->blk[idx].nodes_loc, &vl,
			                       scalar(v), err);
		else if (!strcmp(key, "nodes"))
			rc = gp__topo_set_list(&ld->sw[idx].nodes, &ld->sw[idx].nodes_loc, &vl,
			                       scalar(v), err);
		else
			rc = gp__topo_set_list(&ld->sw[idx].switches, &ld->sw[idx].switches_loc, &vl,
			                       scalar(v), err);
		if (rc)
			return rc;
	}
	return GP_OK;
}

static int tree(yctx_t *y, yaml_node_t *m, gp_error_t *err)
{
	int rc;

	if ((rc = want(y, m, YAML_MAPPING_NODE, "tree", err)))
		return rc;
	FOR_PAIRS(y, m, p) {
		yaml_node_t *k = node(y, p->key), *v = node(y, p->value);
		gp__conf_loc_t kl = loc_of(y, k);

		if (!scalar(k) || strcmp(scalar(k), "switches"))
			return gp__conf_err(err, &kl, scalar(k) ? scalar(k) : "(key)", "unknown key");
		if ((rc = want(y, v, YAML_SEQUENCE_NODE, "switches", err)))
			return rc;
		FOR_ITEMS(y, v, it)
			if ((rc = entry(y, node(y, *it), true, err)))
				return rc;
	}
	return GP_OK;
}

static int block(yctx_t *y, yaml_node_t *m, gp_error_t *err)
{
	gp__load_t *ld = y->ld;
	int rc;

	if ((rc = want(y, m, YAML_MAPPING_NODE, "block", err)))
		return rc;
	FOR_PAIRS(y, m, p) {
		yaml_node_t *k = node(y, p->key), *v = node(y, p->value);
		gp__conf_loc_t kl = loc_of(y, k);
		const char *key = scalar(k) ? scalar(k) : "(key)";

		if (!strcmp(key, "blocks")) {
			if ((rc = want(y, v, YAML_SEQUENCE_NODE, key, err)))
				return rc;
			FOR_ITEMS(y, v, it)
				if ((rc = entry(y, node(y, *it), false, err)))
					return rc;
		} else if (!strcmp(key, "block_sizes")) {
			ld->bsizes_key = "block_sizes";
			ld->bsizes_loc[0] = kl;
			if (v && v->type == YAML_SCALAR_NODE) {
				/* "18,144" as a scalar */
				char buf[512], *item, *save = NULL;
				gp__conf_loc_t vl = loc_of(y, v);

				if ((rc = gp__conf_str(&vl, key, scalar(v), buf, sizeof(buf), false, err)))
					return rc;
				for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save))
					if ((rc = gp__topo_add_block_size(ld, &vl, key, item, err)))
						return rc;
				continue;
			}
			if ((rc = want(y, v, YAML_SEQUENCE_NODE, key, err)))
				return rc;
			FOR_ITEMS(y, v, it) {
				yaml_node_t *e = node(y, *it);
				gp__conf_loc_t el = loc_of(y, e);

				if ((rc = want(y, e, YAML_SCALAR_NODE, key, err)) ||
				    (rc = gp__topo_add_block_size(ld, &el, key, scalar(e), err)))
					return rc;
			}
		} else {
			return gp__conf_err(err, &kl, key, "unknown key");
		}
	}
	return GP_OK;
}

/* What one topology entry is; its body node and default flag. */
typedef struct topo {
	const char *name;
	gp__conf_loc_t loc;
	const char *kind;       /* "tree", "block", "flat", "ring", "torus3d" */
	yaml_node_t *body;
	bool cluster_default;
} topo_t;

static int topology(yctx_t *y, yaml_node_t *m, topo_t *t, gp_error_t *err)
{
	static const char *const kinds[] = { "tree", "block", "flat", "ring", "torus3d" };
	gp__conf_loc_t ml = loc_of(y, m);
	size_t i;
	int rc;

	memset(t, 0, sizeof(*t));
	t->loc = ml;
	if ((rc = want(y, m, YAML_MAPPING_NODE, "topology", err)))
		return rc;
	FOR_PAIRS(y, m, p) {
		yaml_node_t *k = node(y, p->key), *v = node(y, p->value);
		gp__conf_loc_t kl = loc_of(y, k);
		const char *key = scalar(k) ? scalar(k) : "(key)";

		if (!strcmp(key, "topology")) {
			if ((rc = want(y, v, YAML_SCALAR_NODE, key, err)))
				return rc;
			t->name = scalar(v);
			t->loc = kl;
			continue;
		}
		if (!strcmp(key, "cluster_default")) {
			if ((rc = boolean(y, v, key, &t->cluster_default, err)))
				return rc;
			continue;
		}
		for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (!strcmp(key, kinds[i]))
				break;
		if (i == sizeof(kinds) / sizeof(kinds[0]))
			return gp__conf_err(err, &kl, key, "unknown key");
		if (t->kind)
			return gp__conf_err(err, &kl, key, "topology '%s' is already of type %s",
			                    t->name ? t->name : "?", t->kind);
		t->kind = kinds[i];
		t->body = v;
	}
	if (!t->name)
		return gp__conf_err(err, &ml, "topology", "required key missing");
	if (!t->kind)
		return gp__conf_err(err, &t->loc, "topology",
		                    "topology '%s' has none of tree, block, flat, ring, torus3d", t->name);
	return GP_OK;
}

/* The topology of kind that Slurm tries first: the first cluster default,
 * else the first one; -1 if none. */
static int pick(const topo_t *t, int n, const char *kind)
{
	int i, first = -1;

	for (i = 0; i < n; i++) {
		if (strcmp(t[i].kind, kind))
			continue;
		if (t[i].cluster_default)
			return i;
		if (first < 0)
			first = i;
	}
	return first;
}

static int load_doc(yctx_t *y, gp_error_t *err)
{
	gp_cluster_t *c = y->ld->c;
	yaml_node_t *root = yaml_document_get_root_node(&y->doc);
	topo_t *t = NULL;
	int n = 0, i, itree, iblock, rc;

	if (!root) {
		gp__conf_loc_t l = { y->path, 1 };

		return gp__conf_err(err, &l, "topology", "no topology in the file");
	}
	if ((rc = want(y, root, YAML_SEQUENCE_NODE, "topology", err)))
		return rc;
	n = (int)(root->data.sequence.items.top - root->data.sequence.items.start);
	t = calloc((size_t)n + 1, sizeof(*t));
	if (!t)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		if ((rc = topology(y, node(y, root->data.sequence.items.start[i]), &t[i], err)))
			goto out;
	}
	itree = pick(t, n, "tree");
	iblock = pick(t, n, "block");
	/* every topology by name, for the partitions' Topology= */
	y->ld->topos = calloc((size_t)n + 1, sizeof(*y->ld->topos));
	if (!y->ld->topos) {
		rc = gp__errorf(err, GP_ENOMEM, "out of memory");
		goto out;
	}
	y->ld->ntopos = n;
	for (i = 0; i < n; i++) {
		gp__load_topo_t *lt = &y->ld->topos[i];

		snprintf(lt->name, sizeof(lt->name), "%s", t[i].name);
		lt->kind = t[i].kind;
		lt->line = t[i].loc.line;
		lt->modelled = i == itree || i == iblock;
		lt->cluster_default = t[i].cluster_default;
	}
	if (itree >= 0 && (rc = tree(y, t[itree].body, err)))
		goto out;
	if (iblock >= 0 && (rc = block(y, t[iblock].body, err)))
		goto out;
	for (i = 0; i < n; i++) {
		if (i == itree || i == iblock)
			continue;
		if (gp__cluster_warnf(c, "%s:%d: topology: '%s' (%s) is not modelled; gpuplace uses "
		                      "%s%s%s", y->path, t[i].loc.line, t[i].name, t[i].kind,
		                      !strcmp(t[i].kind, "tree") || !strcmp(t[i].kind, "block")
		                              ? "one topology of that type, '" : "the tree and block topologies",
		                      !strcmp(t[i].kind, "tree") ? t[itree].name
		                      : !strcmp(t[i].kind, "block") ? t[iblock].name : "",
		                      !strcmp(t[i].kind, "tree") || !strcmp(t[i].kind, "block") ? "'" : "")) {
			rc = gp__errorf(err, GP_ENOMEM, "out of memory");
			goto out;
		}
	}
	rc = GP_OK;
out:
	free(t);
	return rc;
}

int gp__load_topology_yaml(gp__load_t *ld, const char *path, gp_error_t *err)
{
	yctx_t y = { .ld = ld, .path = path };
	yaml_parser_t parser;
	char *buf = NULL;
	size_t len = 0;
	int e, rc;

	e = gp__conf_pool_slurp(&ld->paths, path, &buf, &len);
	if (e == ENOMEM)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	if (e)
		return gp__errorf(err, GP_ECONFIG, "%s: cannot read: %s", path,
		                  e == EINVAL ? "not a regular file" : strerror(e));
	if (!yaml_parser_initialize(&parser)) {
		free(buf);
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &y.doc)) {
		gp__conf_loc_t l = { path, (int)parser.problem_mark.line + 1 };

		rc = gp__conf_err(err, &l, "(yaml)", "%s%s%s", parser.problem ? parser.problem : "syntax error",
		                  parser.context ? " " : "", parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		free(buf);
		return rc;
	}
	rc = load_doc(&y, err);
	yaml_document_delete(&y.doc);
	yaml_parser_delete(&parser);
	free(buf);
	return rc;
}

/* ---- resources.yaml: is the rack budget there? ----------------------------- */

int gp__hres_file_check(const char *path, const char *name, gp_error_t *err)
{
	yctx_t y = { .path = path };
	yaml_parser_t parser;
	yaml_node_t *root;
	gp__file_t f;
	int rc, i, n;

	/* Slurm's own limit on a configuration file is far above this */
	if ((rc = gp__file_read(path, (size_t)16 << 20, GP_FILE_REGULAR, &f, err)))
		return f.sys_errno == ENOENT ? gp__errorf(err, GP_ENOENT, "%s: no such file", path)
		                             : rc;
	if (!yaml_parser_initialize(&parser)) {
		free(f.buf);
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)f.buf, f.len);
	if (!yaml_parser_load(&parser, &y.doc)) {
		gp__conf_loc_t l = { path, (int)parser.problem_mark.line + 1 };

		rc = gp__conf_err(err, &l, "(yaml)", "%s", parser.problem ? parser.problem : "syntax error");
		yaml_parser_delete(&parser);
		free(f.buf);
		return rc;
	}
	rc = GP_ECONFIG;
	root = yaml_document_get_root_node(&y.doc);
	n = root && root->type == YAML_SEQUENCE_NODE ?
	    (int)(root->data.sequence.items.top - root->data.sequence.items.start) : 0;
	gp__errorf(err, GP_ECONFIG, "%s: no resource '%s'", path, name);
	for (i = 0; i < n; i++) {
		yaml_node_t *m = node(&y, root->data.sequence.items.start[i]);
		const char *res = NULL, *mode = NULL;
		yaml_node_pair_t *p;

		if (!m || m->type != YAML_MAPPING_NODE)
			continue;
		for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
			const char *k = scalar(node(&y, p->key)), *v = scalar(node(&y, p->value));

			if (k && !strcmp(k, "resource"))
				res = v;
			else if (k && !strcmp(k, "mode"))
				mode = v;
		}
		if (!res || strcmp(res, name))
			continue;
		if (mode && !strcmp(mode, "MODE_3")) {
			rc = GP_OK;
		} else {
			gp__conf_loc_t l = loc_of(&y, m);

			gp__conf_err(err, &l, "mode", "resource '%s' is %s, not MODE_3 (a count per "
			             "node)", name, mode ? mode : "without a mode");
		}
		break;
	}
	yaml_document_delete(&y.doc);
	yaml_parser_delete(&parser);
	free(f.buf);
	return rc;
}
