/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slurm_emit.c - slurm.conf node lines, topology.conf and gres.conf from
 * the cluster model. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>


#include "conf.h"
#include "power.h"
#include "slurm_emit.h"

#define FEATURES_MAX 4096

/* Append ",item" (or "item") to buf of len bytes holding *used. */
static int append(char *buf, size_t len, size_t *used, const char *item)
{
	int n;

	if (!*item)
		return GP_OK;
	n = snprintf(buf + *used, len - *used, "%s%s", *used ? "," : "", item);
	if (n < 0 || (size_t)n >= len - *used)
		return GP_ELIMIT;
	*used += (size_t)n;
	return GP_OK;
}

/* Append the site's own features of a node, those of features ("a,b,...")
 * that are not gpuplace's domain features: the domain features are written
 * again from the model, so a node's old ones (a leaf it has left) go and
 * none is written twice when slurm.conf has them already. */
static int append_own(char *buf, size_t len, size_t *used, const char *features)
{
	static const char *const ours[] = { GP_FEATURE_SWITCH, GP_FEATURE_NVL, GP_FEATURE_RACK };
	char tok[GP_NAME_MAX + 64];
	const char *p = features;
	size_t k, q;
	int rc;

	while (p && *p) {
		k = strcspn(p, ",");
		if (k > 0 && k < sizeof(tok)) {
			memcpy(tok, p, k);
			tok[k] = '\0';
			for (q = 0; q < sizeof(ours) / sizeof(ours[0]) &&
			            strncmp(tok, ours[q], strlen(ours[q])); q++)
				;
			if (q == sizeof(ours) / sizeof(ours[0]) && (rc = append(buf, len, used, tok)))
				return rc;
		} else if (k >= sizeof(tok)) {
			return GP_ELIMIT;
		}
		p += k + (p[k] == ',');
	}
	return GP_OK;
}

int gp__node_domain_features(const gp_cluster_t *c, int32_t n, char *buf, size_t len)
{
	const gp_node_t *node = &c->nodes[n];
	char feat[GP_NAME_MAX + 16];
	size_t used = 0;
	int32_t s;
	int rc;

	buf[0] = '\0';
	for (s = node->leaf; s >= 0; s = c->switches[s].parent) {
		if (c->switches[s].parent < 0 && s != node->leaf)
			break; /* the root: every node has it */
		if (c->switches[s].disconnected)
			break;
		if ((rc = gp__domain_feature(GP_FEATURE_SWITCH, c->switches[s].name, feat, sizeof(feat))) ||
		    (rc = append(buf, len, &used, feat)))
			return rc;
	}
	if (node->nvl_domain >= 0 &&
	    ((rc = gp__domain_feature(GP_FEATURE_NVL, c->nvl[node->nvl_domain].name, feat, sizeof(feat))) ||
	     (rc = append(buf, len, &used, feat))))
		return rc;
	if (node->rack >= 0 &&
	    ((rc = gp__domain_feature(GP_FEATURE_RACK, c->racks[node->rack].name, feat, sizeof(feat))) ||
	     (rc = append(buf, len, &used, feat))))
		return rc;
	return GP_OK;
}


/* ---- slurm.conf node lines ------------------------------------------- */

struct strv {
	char **v;
	int32_t n, cap;
};

static int strv_add(void *arg, const char *name, gp_error_t *err)
{
	struct strv *sv = arg;

	if (sv->n == sv->cap) {
		int32_t cap = sv->cap ? sv->cap * 2 : 64;
		char **v = realloc(sv->v, (size_t)cap * sizeof(*v));

		if (!v)
			return gp__errorf(err, GP_ENOMEM, "out of memory");
		sv->v = v;
		sv->cap = cap;
	}
	if (!(sv->v[sv->n] = strdup(name)))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	sv->n++;
	return GP_OK;
}

static void strv_free(struct strv *sv)
{
	int32_t i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	memset(sv, 0, sizeof(*sv));
}

/* Keys whose value is a host list parallel to NodeName. */
static const char *const parallel_keys[] = { "NodeHostname", "NodeAddr", "Port" };
#define NPARALLEL 3

struct emit_ctx {
	const gp_cluster_t *c;
	FILE *f;
};

static void put_kv(FILE *f, const char *key, const char *val)
{
	if (strpbrk(val, " \t#") || !*val)
		fprintf(f, " %s=\"%s\"", key, val);
	else
		fprintf(f, " %s=%s", key, val);
}

static void put_line(FILE *f, const gp__conf_line_t *line)
{
	int i;

	for (i = 0; i < line->n; i++) {
		if (i == 0)
			fprintf(f, "%s=%s", line->kv[i].key, line->kv[i].val);
		else
			put_kv(f, line->kv[i].key, line->kv[i].val);
	}
	fputc('\n', f);
}

/* Write nodes [from, to) of one NodeName line as one line. */
static int put_group(struct emit_ctx *ec, const gp__conf_line_t *line, struct strv *names,
                     struct strv *par, const int32_t *idx, int32_t from, int32_t to,
                     const char *domain, gp_error_t *err)
{
	const gp_node_t *node = &ec->c->nodes[idx[from]];
	char *s, features[FEATURES_MAX];
	size_t used = 0;
	int i, k;

	if (!(s = gp__hostlist_ranged_names(names->v + from, to - from)))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	fprintf(ec->f, "NodeName=%s", s);
	free(s);
	for (i = 1; i < line->n; i++) {
		const gp__conf_kv_t *kv = &line->kv[i];

		if (gp__conf_is(kv, "Feature") || gp__conf_is(kv, "Features"))
			continue;
		for (k = 0; k < NPARALLEL; k++)
			if (gp__conf_is(kv, parallel_keys[k]) && par[k].n > 1)
				break;
		if (k < NPARALLEL) {
			if (!(s = gp__hostlist_ranged_names(par[k].v + from, to - from)))
				return gp__errorf(err, GP_ENOMEM, "out of memory");
			put_kv(ec->f, kv->key, s);
			free(s);
		} else {
			put_kv(ec->f, kv->key, kv->val);
		}
	}
	features[0] = '\0';
	if ((node->features && append_own(features, sizeof(features), &used, node->features)) ||
	    append(features, sizeof(features), &used, domain))
		return gp__errorf(err, GP_ELIMIT, "%s: features of node %s are longer than %d characters",
		                  line->loc.path, node->name, FEATURES_MAX - 1);
	if (*features)
		put_kv(ec->f, "Features", features);
	fputc('\n', ec->f);
	return GP_OK;
}

static int node_line(void *arg, const gp__conf_line_t *line, gp_error_t *err)
{
	struct emit_ctx *ec = arg;
	struct strv names = { 0 }, par[NPARALLEL] = { { 0 } };
	char (*dom)[FEATURES_MAX] = NULL;
	int32_t *idx = NULL, i, start;
	int rc = GP_OK, k, j;

	if (line->n < 1 || !gp__conf_is(&line->kv[0], "NodeName"))
		return GP_OK;
	if (!strcasecmp(line->kv[0].val, "DEFAULT")) {
		put_line(ec->f, line);
		return GP_OK;
	}
	if ((rc = gp__conf_hostlist(&line->loc, "NodeName", line->kv[0].val, strv_add, &names, err)))
		goto out;
	for (j = 1; j < line->n; j++)
		for (k = 0; k < NPARALLEL; k++)
			if (gp__conf_is(&line->kv[j], parallel_keys[k])) {
				strv_free(&par[k]);
				if ((rc = gp__conf_hostlist(&line->loc, parallel_keys[k], line->kv[j].val,
				                            strv_add, &par[k], err)))
					goto out;
				if (par[k].n != 1 && par[k].n != names.n) {
					rc = gp__conf_err(err, &line->loc, parallel_keys[k],
					                  "%d values for %d nodes", par[k].n, names.n);
					goto out;
				}
			}
	idx = malloc(((size_t)names.n + 1) * sizeof(*idx));
	dom = malloc(((size_t)names.n + 1) * sizeof(*dom));
	if (!idx || !dom) {
		rc = gp__errorf(err, GP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < names.n; i++) {
		if ((idx[i] = gp__node_find(ec->c, names.v[i])) < 0) {
			rc = gp__conf_err(err, &line->loc, "NodeName", "node '%s' is not in the model",
			                  names.v[i]);
			goto out;
		}
		if (gp__node_domain_features(ec->c, idx[i], dom[i], sizeof(dom[i]))) {
			rc = gp__conf_err(err, &line->loc, "NodeName", "domain features of '%s' are too long",
			                  names.v[i]);
			goto out;
		}
	}
	/* one line per run of nodes with the same domain features */
	for (start = 0, i = 1; i <= names.n; i++) {
		if (i < names.n && !strcmp(dom[i], dom[start]) &&
		    !strcmp(ec->c->nodes[idx[i]].features ? ec->c->nodes[idx[i]].features : "",
		            ec->c->nodes[idx[start]].features ? ec->c->nodes[idx[start]].features : ""))
			continue;
		if ((rc = put_group(ec, line, &names, par, idx, start, i, dom[start], err)))
			goto out;
		start = i;
	}
out:
	strv_free(&names);
	for (k = 0; k < NPARALLEL; k++)
		strv_free(&par[k]);
	free(idx);
	free(dom);
	return rc;
}

/* Can nodes a and b share a line written from the model alone? */
static bool same_line(const gp_node_t *a, const gp_node_t *b)
{
	return a->ngpus == b->ngpus && a->profile == b->profile && a->cpus == b->cpus &&
	       a->real_memory_mb == b->real_memory_mb && a->weight == b->weight &&
	       !strcmp(a->features ? a->features : "", b->features ? b->features : "") &&
	       !strcmp(a->gpu_types ? a->gpu_types : "", b->gpu_types ? b->gpu_types : "");
}

/* One NodeName line for nodes [from, to) of c, all like nodes[from]. */
static int put_model_line(const gp_cluster_t *c, int32_t from, int32_t to, const char *domain,
                          FILE *f, gp_error_t *err)
{
	const gp_node_t *a = &c->nodes[from];
	char **names = malloc((size_t)(to - from) * sizeof(*names)), *list, features[FEATURES_MAX];
	size_t used = 0;
	int32_t i;

	if (!names)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	for (i = from; i < to; i++)
		names[i - from] = (char *)c->nodes[i].name;
	list = gp__hostlist_ranged_names(names, to - from);
	free(names);
	if (!list)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	fprintf(f, "NodeName=%s", list);
	free(list);
	if (a->cpus > 0)
		fprintf(f, " CPUs=%d", a->cpus);
	if (a->real_memory_mb > 0)
		fprintf(f, " RealMemory=%lld", (long long)a->real_memory_mb);
	if (a->ngpus > 0 && a->gpu_types) {
		/* slurm.conf's own types: "TYPE:N,TYPE:N" as gpu:TYPE:N,... */
		const char *t = a->gpu_types, *e;

		fprintf(f, " Gres=");
		for (; *t; t = *e ? e + 1 : e) {
			e = strchr(t, ',');
			if (!e)
				e = t + strlen(t);
			fprintf(f, "%sgpu:%.*s", t == a->gpu_types ? "" : ",", (int)(e - t), t);
		}
	} else if (a->ngpus > 0 && a->profile >= 0)
		fprintf(f, " Gres=gpu:%s:%d", c->profiles[a->profile].name, a->ngpus);
	else if (a->ngpus > 0)
		fprintf(f, " Gres=gpu:%d", a->ngpus);
	if (a->weight != 1)
		fprintf(f, " Weight=%u", a->weight);
	features[0] = '\0';
	if ((a->features && append_own(features, sizeof(features), &used, a->features)) ||
	    append(features, sizeof(features), &used, domain))
		return gp__errorf(err, GP_ELIMIT, "features of '%s' are too long", a->name);
	if (*features)
		put_kv(f, "Features", features);
	fputc('\n', f);
	return GP_OK;
}

/* Without slurm.conf: the lines the model can say, one per run of nodes
 * with equal attributes and domain features. */
static int nodes_from_model(const gp_cluster_t *c, FILE *f, gp_error_t *err)
{
	char dom[FEATURES_MAX], next[FEATURES_MAX];
	int32_t start, end;
	int rc;

	for (start = 0; start < c->nnodes; start = end) {
		if (gp__node_domain_features(c, start, dom, sizeof(dom)))
			return gp__errorf(err, GP_ELIMIT, "domain features of '%s' are too long",
			                  c->nodes[start].name);
		for (end = start + 1; end < c->nnodes; end++)
			if (!same_line(&c->nodes[start], &c->nodes[end]) ||
			    gp__node_domain_features(c, end, next, sizeof(next)) || strcmp(next, dom))
				break;
		if ((rc = put_model_line(c, start, end, dom, f, err)))
			return rc;
	}
	return GP_OK;
}

int gp__emit_slurm_nodes(const gp_cluster_t *c, const char *dir, FILE *f, gp_error_t *err)
{
	gp__conf_paths_t paths = { 0 };
	struct emit_ctx ec = { c, f };
	int rc;

	fprintf(f, "# NodeName lines for slurm.conf with gpuplace's topology-domain features\n"
	           "# (gpsw_ = switch, gpnvl_ = NVLink domain, gprack_ = rack); they replace\n"
	           "# the NodeName lines of %s%s.\n", dir ? dir : "the site's slurm.conf",
	        dir ? "/slurm.conf" : "");
	if (!dir)
		return nodes_from_model(c, f, err);
	rc = gp__conf_read_slurm(&paths, dir, "slurm.conf", false, NULL, node_line, &ec, err);
	gp__conf_paths_free(&paths);
	return rc;
}

/* ---- topology.conf / topology.yaml -------------------------------------- */

/* key: "s" as a double-quoted YAML scalar (\ and " escaped). */
static void yaml_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void yaml_kv(FILE *f, const char *indent, const char *key, const char *s)
{
	fprintf(f, "%s%s: ", indent, key);
	yaml_quoted(f, s);
	fputc('\n', f);
}

/* The SwitchName lines (or, yaml, the switch entries) of the tree. */
static int emit_tree(const gp_cluster_t *c, bool yaml, FILE *f, gp_error_t *err)
{
	int32_t level, s, k;

	for (level = 0; level < c->nlevels || (level == 0 && c->nswitches); level++) {
		for (s = 0; s < c->nswitches; s++) {
			const gp_switch_t *sw = &c->switches[s];
			char *list;

			if (sw->level != level || sw->disconnected)
				continue;
			if (yaml)
				yaml_kv(f, "      - ", "switch", sw->name);
			else
				fprintf(f, "SwitchName=%s", sw->name);
			if (sw->nchildren > 0) {
				char **names = malloc((size_t)sw->nchildren * sizeof(*names));

				if (!names)
					return gp__errorf(err, GP_ENOMEM, "out of memory");
				for (k = 0; k < sw->nchildren; k++)
					names[k] = (char *)c->switches[sw->children[k]].name;
				list = gp__hostlist_ranged_names(names, sw->nchildren);
				free(names);
				if (!list)
					return gp__errorf(err, GP_ENOMEM, "out of memory");
				if (yaml)
					yaml_kv(f, "        ", "children", list);
				else
					fprintf(f, " Switches=%s", list);
				free(list);
			}
			if (sw->nnodes > 0) {
				if (!(list = gp__nodes_ranged(c, sw->nodes, sw->nnodes)))
					return gp__errorf(err, GP_ENOMEM, "out of memory");
				if (yaml)
					yaml_kv(f, "        ", "nodes", list);
				else
					fprintf(f, " Nodes=%s", list);
				free(list);
			}
			/* LinkSpeed has no topology.yaml key (Slurm 25.05 .. 26.05) */
			if (!yaml && sw->link_speed > 0)
				fprintf(f, " LinkSpeed=%g", sw->link_speed);
			if (!yaml)
				fputc('\n', f);
		}
	}
	return GP_OK;
}

/* One block of the emitted list: a name and its nodes. */
typedef struct eblock {
	const char *name;
	const int32_t *nodes;
	int32_t nnodes;
	int32_t pos; /* first node's position in the DFS order */
} eblock_t;

static int eblock_cmp(const void *a, const void *b)
{
	const eblock_t *x = a, *y = b;

	return (x->pos > y->pos) - (x->pos < y->pos);
}

/*
 * The blocks to write: the model's blocks when it was read from
 * topology/block, else its cross-node NVLink domains in the fabric's node
 * order (Slurm aggregates consecutive blocks, so neighbours in the tree
 * become neighbours in the file).  *sizes gets BlockSizes: the model's own,
 * or the base (the smallest domain) and every switch level whose switches
 * each hold the base times the same power of two of nodes.
 */
static int collect_blocks(const gp_cluster_t *c, eblock_t **out, int32_t *n, long *sizes,
                          int *nsizes, gp_error_t *err)
{
	eblock_t *v;
	int32_t i, j, m = c->nblocks ? c->nblocks : c->nnvl, base = INT32_MAX;
	int L;

	*out = NULL;
	*n = 0;
	*nsizes = 0;
	if (m == 0)
		return GP_OK;
	if (!(v = calloc((size_t)m, sizeof(*v))))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	for (i = 0; i < m; i++) {
		v[i].name = c->nblocks ? c->blocks[i].name : c->nvl[i].name;
		v[i].nodes = c->nblocks ? c->blocks[i].nodes : c->nvl[i].nodes;
		v[i].nnodes = c->nblocks ? c->blocks[i].nnodes : c->nvl[i].nnodes;
		v[i].pos = INT32_MAX;
		for (j = 0; j < v[i].nnodes; j++)
			if (c->node_pos && c->node_pos[v[i].nodes[j]] < v[i].pos)
				v[i].pos = c->node_pos[v[i].nodes[j]];
		if (v[i].nnodes < base)
			base = v[i].nnodes;
	}
	if (c->nblocks) {
		for (L = 0; L < GP_MAX_BLOCK_LEVELS; L++)
			if ((c->block_levels >> L) & 1u)
				sizes[(*nsizes)++] = (long)c->block_base << L;
	} else {
		qsort(v, (size_t)m, sizeof(*v), eblock_cmp);
		sizes[(*nsizes)++] = base;
		for (L = 0; L < c->nlevels && base > 0; L++) {
			long count = -1, r;
			int32_t s;
			bool same = true;

			for (s = 0; s < c->nswitches; s++) {
				if (c->switches[s].level != L || c->switches[s].disconnected)
					continue;
				if (count < 0)
					count = c->switches[s].count;
				else if (count != c->switches[s].count)
					same = false;
			}
			if (!same || count <= 0 || count % base)
				continue;
			r = count / base;
			if (r > 1 && !(r & (r - 1)) && count > sizes[*nsizes - 1] &&
			    *nsizes < GP_MAX_BLOCK_LEVELS)
				sizes[(*nsizes)++] = count;
		}
	}
	*out = v;
	*n = m;
	return GP_OK;
}

static int emit_blocks(const gp_cluster_t *c, bool yaml, FILE *f, gp_error_t *err)
{
	eblock_t *v;
	long sizes[GP_MAX_BLOCK_LEVELS];
	int32_t n, i, outside = 0;
	int k, rc;

	if ((rc = collect_blocks(c, &v, &n, sizes, &k, err)))
		return rc;
	if (yaml) {
		fprintf(f, "    block_sizes:\n");
		for (i = 0; i < k; i++)
			fprintf(f, "      - %ld\n", sizes[i]);
		fprintf(f, "    blocks:\n");
	}
	for (i = 0; i < n; i++) {
		char *list = gp__nodes_ranged(c, v[i].nodes, v[i].nnodes);

		if (!list) {
			free(v);
			return gp__errorf(err, GP_ENOMEM, "out of memory");
		}
		if (yaml) {
			yaml_kv(f, "      - ", "block", v[i].name);
			yaml_kv(f, "        ", "nodes", list);
		} else
			fprintf(f, "BlockName=%s Nodes=%s\n", v[i].name, list);
		free(list);
	}
	if (!yaml) {
		fprintf(f, "BlockSizes=");
		for (i = 0; i < k; i++)
			fprintf(f, "%s%ld", i ? "," : "", sizes[i]);
		fputc('\n', f);
	}
	if (!c->nblocks && c->nlevels > 0 && k - 1 < c->nlevels)
		fprintf(f, "# %d of the %d switch levels hold a power-of-two number of base blocks;\n"
		           "# BlockSizes cannot say the others (topology.yaml keeps the tree)\n",
		        k - 1, (int)c->nlevels);
	for (i = 0; i < c->nnodes; i++)
		outside += c->nblocks ? c->nodes[i].block < 0 : c->nodes[i].nvl_domain < 0;
	if (outside)
		fprintf(f, "# %d node%s in no block\n", (int)outside, outside == 1 ? " is" : "s are");
	free(v);
	return GP_OK;
}

gp_topo_format_t gp__topo_format_auto(const gp_cluster_t *c)
{
	return c->nblocks > 0 || c->nnvl > 0 ? GP_TOPO_BLOCK : GP_TOPO_TREE;
}

int gp__emit_topology(const gp_cluster_t *c, gp_topo_format_t fmt, FILE *f, gp_error_t *err)
{
	bool tree, block;
	int rc;

	if (fmt == GP_TOPO_AUTO)
		fmt = gp__topo_format_auto(c);
	if (fmt == GP_TOPO_TREE) {
		fprintf(f, "# topology.conf (topology/tree) of cluster %s\n", c->name);
		return emit_tree(c, false, f, err);
	}
	if (fmt == GP_TOPO_BLOCK) {
		if (!c->nblocks && !c->nnvl)
			return gp__errorf(err, GP_EINVAL, "cluster %s has no blocks and no cross-node "
			                  "NVLink domains to write as topology/block", c->name);
		fprintf(f, "# topology.conf (topology/block, Slurm 24.05+: TopologyPlugin=topology/block)\n"
		           "# of cluster %s: one block per %s; BlockSizes = the base block size, then\n"
		           "# each aggregated level (a power-of-two number of consecutive blocks)\n",
		        c->name, c->nblocks ? "block of the model" : "cross-node NVLink domain");
		return emit_blocks(c, false, f, err);
	}
	/* topology.yaml: the block topology is the cluster default (what
	 * topology/block would do alone); a switch tree of its own follows as a
	 * second topology that partitions may select with Topology= */
	tree = c->root >= 0 && !c->tree_from_blocks;
	block = c->nblocks > 0 || c->nnvl > 0;
	fprintf(f, "# topology.yaml (Slurm 25.05+; topology.conf is ignored when it exists)\n"
	           "# of cluster %s\n---\n", c->name);
	if (block) {
		fprintf(f, "- topology: block\n  cluster_default: true\n  block:\n");
		if ((rc = emit_blocks(c, true, f, err)))
			return rc;
	}
	if (tree) {
		fprintf(f, "- topology: tree\n  cluster_default: %s\n  tree:\n    switches:\n",
		        block ? "false" : "true");
		if ((rc = emit_tree(c, true, f, err)))
			return rc;
	}
	if (!tree && !block)
		fprintf(f, "- topology: flat\n  cluster_default: true\n  flat: true\n");
	return GP_OK;
}

/* ---- gres.conf -------------------------------------------------------- */

struct gres_group {
	int32_t layout, profile, ngpus;
	int32_t *nodes;
	int32_t n, cap;
};

int gp__emit_gres(const gp_cluster_t *c, FILE *f, gp_error_t *err)
{
	struct gres_group *g = NULL;
	int32_t ng = 0, i, j, gpu, peer;
	int rc = GP_OK;

	for (i = 0; i < c->nnodes; i++) {
		const gp_node_t *n = &c->nodes[i];

		if (n->ngpus <= 0)
			continue;
		for (j = 0; j < ng; j++)
			if (g[j].layout == n->layout && g[j].profile == n->profile && g[j].ngpus == n->ngpus)
				break;
		if (j == ng) {
			struct gres_group *ngr = realloc(g, ((size_t)ng + 1) * sizeof(*g));

			if (!ngr) {
				rc = gp__errorf(err, GP_ENOMEM, "out of memory");
				goto out;
			}
			g = ngr;
			memset(&g[ng], 0, sizeof(g[ng]));
			g[ng].layout = n->layout;
			g[ng].profile = n->profile;
			g[ng].ngpus = n->ngpus;
			ng++;
		}
		if (g[j].n == g[j].cap) {
			int32_t cap = g[j].cap ? g[j].cap * 2 : 64, *nn = realloc(g[j].nodes, (size_t)cap * sizeof(int32_t));

			if (!nn) {
				rc = gp__errorf(err, GP_ENOMEM, "out of memory");
				goto out;
			}
			g[j].nodes = nn;
			g[j].cap = cap;
		}
		g[j].nodes[g[j].n++] = i;
	}
	fprintf(f, "# gres.conf of cluster %s (GPU device files assumed /dev/nvidiaN)\n", c->name);
	for (j = 0; j < ng; j++) {
		const gp_gres_layout_t *lay = g[j].layout >= 0 ? &c->layouts[g[j].layout] : NULL;
		char *list = gp__nodes_ranged(c, g[j].nodes, g[j].n), type[GP_NAME_MAX + 8] = "";

		if (!list) {
			rc = gp__errorf(err, GP_ENOMEM, "out of memory");
			goto out;
		}
		if (g[j].profile >= 0)
			snprintf(type, sizeof(type), " Type=%s", c->profiles[g[j].profile].name);
		if (!lay || (!lay->has_links && !lay->cores[0][0])) {
			fprintf(f, "NodeName=%s Name=gpu%s File=/dev/nvidia[0-%d]\n", list, type, g[j].ngpus - 1);
			free(list);
			continue;
		}
		for (gpu = 0; gpu < g[j].ngpus; gpu++) {
			fprintf(f, "NodeName=%s Name=gpu%s File=/dev/nvidia%d", list, type, gpu);
			if (lay->cores[gpu][0])
				fprintf(f, " Cores=%s", lay->cores[gpu]);
			if (lay->has_links) {
				fprintf(f, " Links=");
				for (peer = 0; peer < g[j].ngpus; peer++)
					fprintf(f, "%s%d", peer ? "," : "", lay->links[gpu][peer]);
			}
			fputc('\n', f);
		}
		free(list);
	}
out:
	for (j = 0; j < ng; j++)
		free(g[j].nodes);
	free(g);
	return rc;
}

/* ---- resources.yaml ------------------------------------------------------------ */

/* One layer of the resource: its nodes and count (-1: Slurm's INFINITE),
 * the comment saying where the count comes from. */
static int emit_layer(const gp_cluster_t *c, const int32_t *nodes, int32_t n, int64_t count,
                      const char *comment, FILE *f, gp_error_t *err)
{
	char *list = gp__nodes_ranged(c, nodes, n);

	if (!list)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	fprintf(f, "    # %s\n", comment);
	fprintf(f, "    - nodes:\n");
	fputs("        - ", f);
	yaml_quoted(f, list);
	fputc('\n', f);
	fprintf(f, "      count: %lld\n", (long long)count);
	free(list);
	return GP_OK;
}

int gp__emit_resources(const gp_cluster_t *c, const char *name, FILE *f, gp_error_t *err)
{
	int32_t *all = NULL, *loose = NULL, nall = 0, nloose = 0, i, leaves;
	char why[256];
	int rc = GP_OK;

	if (!name || !*name)
		return gp__errorf(err, GP_EINVAL,
		                  "no resource name: set PowerHres=NAME in gpuplace.conf (or give --hres NAME)");
	if ((rc = gp__hres_name_check(name, err))) {
		/* the check's message, copied: err->text is written below */
		char why_name[sizeof(err->text)];

		snprintf(why_name, sizeof(why_name), "%s", err->text);
		return gp__errorf(err, GP_EINVAL, "PowerHres '%s': %s", name, why_name);
	}
	if (c->nracks == 0)
		return gp__errorf(err, GP_EINVAL,
		                  "the model has no racks (gpuplace.conf Rack= lines): no power "
		                  "budget to write");
	all = malloc(((size_t)c->nnodes + 1) * sizeof(*all));
	loose = malloc(((size_t)c->nnodes + 1) * sizeof(*loose));
	if (!all || !loose) {
		rc = gp__errorf(err, GP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < c->nnodes; i++) {
		all[nall++] = i;
		if (c->nodes[i].rack < 0)
			loose[nloose++] = i;
	}
	for (i = 0, leaves = nloose > 0; i < c->nracks; i++)
		leaves += c->racks[i].nnodes > 0;
	fprintf(f, "# resources.yaml(5) for Slurm 25.11 or later: the racks' power as the\n"
	           "# hierarchical resource '%s' (MODE_3, counts per node summed per layer),\n"
	           "# written by `gpuplace conf --what resources` from gpuplace.conf.  A rack's\n"
	           "# count is min(PowerCapKW, CoolingKW) less its idle draw, in watts;\n"
	           "# job_submit/gpuplace asks per node for each GPU job's GPUs' TDP over idle\n"
	           "# (-L %s:WATTS).  Install it beside slurm.conf and restart slurmctld.\n"
	           "---\n"
	           "- resource: %s\n"
	           "  mode: MODE_3\n"
	           "  layers:\n",
	        name, name, name);
	/* a rooted tree of uniform depth (Slurm's MODE_3 rule): every node
	 * under one root, one leaf per rack (and one for nodes in no rack,
	 * which a job asking for the resource could not use otherwise) */
	if (leaves > 1 &&
	    (rc = emit_layer(c, all, nall, -1, "root: every node; no limit above the racks'", f,
	                     err)))
		goto out;
	for (i = 0; i < c->nracks; i++) {
		const gp_rack_t *r = &c->racks[i];
		double cool = r->cooling_kw > 0 ? r->cooling_kw : r->power_cap_kw;
		int64_t count = gp__hres_rack_count(c, i);

		if (count < 0) {
			rc = gp__errorf(err, GP_EINTERNAL, "rack '%s': no count", r->name);
			goto out;
		}
		if (r->nnodes == 0)
			continue;
		snprintf(why, sizeof(why), "rack %s: min(%.1f kW cap, %.1f kW cooling) - %.0f W idle%s",
		         r->name, r->power_cap_kw, cool, gp__power_estimate_rack(c, NULL, i),
		         count == 0 ? ": no room for any GPU job" : "");
		if ((rc = emit_layer(c, r->nodes, r->nnodes, count, why, f, err)))
			goto out;
	}
	if (nloose > 0 &&
	    (rc = emit_layer(c, loose, nloose, -1, "nodes in no rack: no budget", f, err)))
		goto out;
out:
	free(all);
	free(loose);
	return rc;
}

/* ---- slurm.conf Licenses= ----------------------------------------------------- */

int gp__emit_licenses(const gp_cluster_t *c, const char *prefix, FILE *f, gp_error_t *err)
{
	char name[GP_NAME_MAX];
	int32_t i, n = 0;
	int rc;

	if (!prefix || !*prefix)
		return gp__errorf(err, GP_EINVAL, "no license prefix: set PowerLicenses=PREFIX in "
		                  "gpuplace.conf (or give --licenses PREFIX)");
	if ((rc = gp__hres_name_check(prefix, err))) {
		char why[sizeof(err->text)];

		snprintf(why, sizeof(why), "%s", err->text);
		return gp__errorf(err, GP_EINVAL, "PowerLicenses '%s': %s", prefix, why);
	}
	if (c->nracks == 0)
		return gp__errorf(err, GP_EINVAL,
		                  "the model has no racks (gpuplace.conf Rack= lines): no power "
		                  "budget to write");
	/* every name first: nothing is written for a model one rack of
	 * which cannot have a license */
	for (i = 0; i < c->nracks; i++)
		if ((rc = gp__lic_name(prefix, c->racks[i].name, name, sizeof(name), err)))
			return rc;
	fprintf(f, "# slurm.conf Licenses= for every Slurm release: the racks' power as cluster\n"
	           "# licenses, one per rack named %s_RACK, written by `gpuplace conf --what\n"
	           "# licenses` from gpuplace.conf.  A rack's count is min(PowerCapKW, CoolingKW)\n"
	           "# less its idle draw, in watts; job_submit/gpuplace keeps each GPU job to\n"
	           "# one rack and asks for its GPUs' TDP over idle times its nodes there\n"
	           "# (-L %s_RACK:WATTS).  slurm.conf takes one Licenses= line: merge it with\n"
	           "# the site's own licenses, then restart slurmctld.\n",
	        prefix, prefix);
	for (i = 0; i < c->nracks; i++) {
		const gp_rack_t *r = &c->racks[i];
		double cool = r->cooling_kw > 0 ? r->cooling_kw : r->power_cap_kw;
		int64_t count = gp__hres_rack_count(c, i);

		if (count < 0)
			return gp__errorf(err, GP_EINTERNAL, "rack '%s': no count", r->name);
		fprintf(f, "# %s_%s: rack %s: min(%.1f kW cap, %.1f kW cooling) - %.0f W idle%s\n",
		        prefix, r->name, r->name, r->power_cap_kw, cool,
		        gp__power_estimate_rack(c, NULL, i),
		        count == 0 ? ": no room for any GPU job" : "");
	}
	fputs("Licenses=", f);
	for (i = 0; i < c->nracks; i++) {
		gp__lic_name(prefix, c->racks[i].name, name, sizeof(name), err);
		fprintf(f, "%s%s:%lld", n++ ? "," : "", name, (long long)gp__hres_rack_count(c, i));
	}
	fputc('\n', f);
	return GP_OK;
}
