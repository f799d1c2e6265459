/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * load_slurm.c - the parts of slurm.conf the model needs: ClusterName,
 * NodeName lines (with NodeName=DEFAULT) and PartitionName lines (with
 * PartitionName=DEFAULT).  Every other key is Slurm's business and ignored;
 * only malformed values of keys read here are errors.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"

/* What a NodeName line sets; NodeName=DEFAULT keeps one of these. */
typedef struct node_attr {
	int32_t ngpus;          /* every gpu entry summed (may pass GP_MAX_GPUS_PER_NODE) */
	char type[GP_NAME_MAX]; /* the type with the most GPUs, "" untyped */
	char types[1200];       /* "TYPE:N[,TYPE:N...]", "" untyped (gp_node.gpu_types) */
	int32_t ntypes;         /* distinct types in types */
	long cpus;              /* CPUs=; 0 = not given */
	long procs;             /* Procs= (CPUs' old name); 0 = not given */
	long sockets, cores, threads;
	long real_memory;
	long weight;
	char *features;         /* malloc'd or NULL */
} node_attr_t;

typedef struct part_attr {
	char *nodes;            /* malloc'd or NULL */
	char *topology;         /* Topology= (Slurm 25.05+), malloc'd or NULL */
	bool is_default;
	bool up;
	uint32_t max_time_min;
} part_attr_t;

/* A NodeSet= line (slurm.conf(5), NODESET CONFIGURATION). */
typedef struct nodeset {
	char name[GP_NAME_MAX];
	char *nodes;            /* Nodes= as written, NULL if absent */
	char *feature;          /* Feature= as written, NULL if absent */
	gp__conf_loc_t loc;
} nodeset_t;

typedef struct slurm_ctx {
	gp__load_t *ld;
	nodeset_t *sets;
	int32_t nsets;
	gp__conf_loc_t cluster_loc;     /* ClusterName's line, line 0 = not yet */
	node_attr_t ndef;
	part_attr_t pdef;
	/* the NodeName line being expanded */
	const node_attr_t *cur;
	const gp__conf_loc_t *cur_loc;
	int32_t parts_over;             /* PartitionName lines past GP_MAX_PARTITIONS */
	bool cur_gpus_off;              /* the line's nodes have more GPUs than the model holds */
} slurm_ctx_t;

static void node_attr_init(node_attr_t *a)
{
	memset(a, 0, sizeof(*a));
	a->sockets = a->cores = a->threads = 1;
	a->real_memory = 1; /* Slurm's default RealMemory */
	a->weight = 1;
}

static int dup_str(char **dst, const char *src, gp_error_t *err)
{
	char *s = src ? strdup(src) : NULL;

	if (src && !s)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	free(*dst);
	*dst = s;
	return GP_OK;
}

/*
 * Gres=gpu:N | gpu:TYPE:N | gpu | gpu:TYPE, optionally with a "(S:0-1)"
 * socket suffix, comma-separated with other gres that are ignored.
 */
static int parse_gres(const gp__conf_loc_t *loc, const char *val, node_attr_t *a,
                      gp_error_t *err)
{
	char buf[1024], *item, *p, *f[4], *type, *count, tname[16][GP_NAME_MAX];
	int depth = 0, nf, t, ntypes = 0, best = -1;
	long n, total = 0, tcount[16];
	size_t len;
	int rc;

	if (strlen(val) >= sizeof(buf))
		return gp__conf_err(err, loc, "Gres", "'%.40s...' is too long", val);
	memcpy(buf, val, strlen(val) + 1);
	/* commas inside parentheses belong to the socket suffix */
	for (p = buf; *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && depth > 0)
			depth--;
		else if (*p == ',' && depth == 0)
			*p = '\n';
	}
	a->ngpus = 0;
	a->type[0] = '\0';
	a->types[0] = '\0';
	a->ntypes = 0;
	for (item = buf; item; item = p) {
		p = strchr(item, '\n');
		if (p)
			*p++ = '\0';
		if (!*item)
			continue;
		if ((f[0] = strchr(item, '(')) != NULL)
			*f[0] = '\0';
		for (nf = 0, f[0] = item; nf < 4;) {
			char *colon = strchr(f[nf], ':');

			nf++;
			if (!colon)
				break;
			*colon = '\0';
			if (nf < 4)
				f[nf] = colon + 1;
		}
		if (strcasecmp(f[0], "gpu") != 0)
			continue;
		if (nf > 3)
			return gp__conf_err(err, loc, "Gres", "'%s' is not gpu[:TYPE][:COUNT]", val);
		type = count = NULL;
		if (nf == 3) {
			type = f[1];
			count = f[2];
		} else if (nf == 2) {
			if (gp__parse_long(f[1], 0, LONG_MAX, &n) == GP_EINVAL)
				type = f[1];
			else
				count = f[1];
		}
		n = 1;
		/* Slurm's count is 64-bit; 2^20 GPUs on one node is past any
		 * machine and keeps the sums below in range */
		if (count && (rc = gp__conf_long(loc, "Gres", count, 0, 1L << 20, &n, err)))
			return rc;
		if (type) {
			/* several types on one node: Slurm schedules each type
			 * apart (gres.html, "Multiple GPU types"; MIG slices of
			 * several profiles on one node, gres.html "MIG
			 * Management"); entries of one type add up */
			if (!*type)
				return gp__conf_err(err, loc, "Gres", "'%s' has an empty GPU type", val);
			for (t = 0; t < ntypes && strcasecmp(tname[t], type); t++)
				;
			if (t == ntypes) {
				if (ntypes == (int)(sizeof(tname) / sizeof(tname[0])))
					return gp__conf_err(err, loc, "Gres", "'%.60s...' names more than "
					                    "%d GPU types", val, ntypes);
				rc = gp__conf_str(loc, "Gres", type, tname[t], sizeof(tname[t]), false,
				                  err);
				if (rc)
					return rc;
				tcount[ntypes++] = 0;
			}
			tcount[t] += n;
		}
		total += n;
		if (total > (1L << 20))
			return gp__conf_err(err, loc, "Gres", "'%.60s' gives more than %ld GPUs per "
			                    "node", val, 1L << 20);
	}
	a->ngpus = (int32_t)total;
	for (t = 0, len = 0; t < ntypes; t++) {
		if (best < 0 || tcount[t] > tcount[best])
			best = t;
		len += (size_t)snprintf(a->types + len, sizeof(a->types) - len, "%s%s:%ld",
		                        t ? "," : "", tname[t], tcount[t]);
	}
	a->ntypes = ntypes;
	if (best >= 0)
		snprintf(a->type, sizeof(a->type), "%s", tname[best]);
	return GP_OK;
}

static int node_key(const gp__conf_loc_t *loc, const gp__conf_kv_t *kv, node_attr_t *a,
                    gp_error_t *err)
{
	/* both: Slurm takes CPUs (line, then DEFAULT) before Procs (line,
	 * then DEFAULT), whatever their order (read_config.c) */
	if (gp__conf_is(kv, "CPUs"))
		return gp__conf_long(loc, "CPUs", kv->val, 1, 1L << 24, &a->cpus, err);
	if (gp__conf_is(kv, "Procs"))
		return gp__conf_long(loc, "Procs", kv->val, 1, 1L << 24, &a->procs, err);
	if (gp__conf_is(kv, "Sockets"))
		return gp__conf_long(loc, "Sockets", kv->val, 1, 1L << 16, &a->sockets, err);
	if (gp__conf_is(kv, "CoresPerSocket"))
		return gp__conf_long(loc, "CoresPerSocket", kv->val, 1, 1L << 16, &a->cores, err);
	if (gp__conf_is(kv, "ThreadsPerCore"))
		return gp__conf_long(loc, "ThreadsPerCore", kv->val, 1, 1L << 10, &a->threads, err);
	if (gp__conf_is(kv, "RealMemory"))
		return gp__conf_long(loc, "RealMemory", kv->val, 0, INT64_MAX, &a->real_memory, err);
	if (gp__conf_is(kv, "Weight"))
		return gp__conf_long(loc, "Weight", kv->val, 0, UINT32_MAX, &a->weight, err);
	if (gp__conf_is(kv, "Gres"))
		return parse_gres(loc, kv->val, a, err);
	if (gp__conf_is(kv, "Feature") || gp__conf_is(kv, "Features"))
		return dup_str(&a->features, kv->val, err);
	return GP_OK; /* a key the model does not need */
}

static int add_node(void *arg, const char *name, gp_error_t *err)
{
	slurm_ctx_t *s = arg;
	gp__load_t *ld = s->ld;
	gp_cluster_t *c = ld->c;
	const node_attr_t *a = s->cur;
	gp_node_t *n;

	if (c->nnodes == ld->node_cap) {
		int32_t nc = ld->node_cap ? ld->node_cap * 2 : 64;

		if (gp__resize(&c->nodes, (size_t)ld->node_cap, (size_t)nc, sizeof(*c->nodes)) ||
		    gp__resize(&ld->node_loc, (size_t)ld->node_cap, (size_t)nc,
		               sizeof(*ld->node_loc)) ||
		    gp__resize(&ld->node_type, (size_t)ld->node_cap, (size_t)nc,
		               sizeof(*ld->node_type)) ||
		    gp__resize(&ld->gpus_off, (size_t)ld->node_cap, (size_t)nc,
		               sizeof(*ld->gpus_off)))
			return gp__errorf(err, GP_ENOMEM, "out of memory");
		ld->node_cap = nc;
	}
	if (c->nnodes >= INT32_MAX / 4)
		return gp__conf_err(err, s->cur_loc, "NodeName", "too many nodes");
	n = &c->nodes[c->nnodes];
	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", name);
	n->ngpus = a->ngpus;
	n->profile = n->layout = n->leaf = n->rack = n->nvl_domain = n->block = -1;
	n->rails = -1; /* gpuplace.conf default applied at the end */
	n->weight = (uint32_t)a->weight;
	n->cpus = (int32_t)(a->cpus ? a->cpus : a->procs ? a->procs
	                            : (a->sockets * a->cores * a->threads > (1L << 24)
	                                       ? (1L << 24)
	                                       : a->sockets * a->cores * a->threads));
	n->real_memory_mb = a->real_memory;
	n->order = (uint32_t)c->nnodes;
	if ((a->features && !(n->features = strdup(a->features))) ||
	    (a->types[0] && !(n->gpu_types = strdup(a->types))))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	ld->gpus_off[c->nnodes] = s->cur_gpus_off;
	ld->node_loc[c->nnodes] = *s->cur_loc;
	snprintf(ld->node_type[c->nnodes], GP_NAME_MAX, "%s", a->type);
	c->nnodes++;
	return GP_OK;
}

static int node_line(slurm_ctx_t *s, const gp__conf_line_t *l, gp_error_t *err)
{
	node_attr_t a = s->ndef;
	int i, rc = GP_OK;

	a.features = NULL;
	if (s->ndef.features && !(a.features = strdup(s->ndef.features)))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	for (i = 1; i < l->n && !rc; i++)
		rc = node_key(&l->loc, &l->kv[i], &a, err);
	if (rc)
		goto out;
	if (strcasecmp(l->kv[0].val, "DEFAULT") == 0) {
		free(s->ndef.features);
		s->ndef = a;
		return GP_OK;
	}
	s->cur_gpus_off = a.ngpus > GP_MAX_GPUS_PER_NODE;
	if (s->cur_gpus_off) {
		/* Slurm takes it; the model cannot: this line's nodes only */
		if (gp__cluster_warnf(s->ld->c, "%s:%d: Gres: nodes '%s' have %d GPUs each, more "
		                      "than the %d gpuplace models per node: their GPUs are left "
		                      "to Slurm (modelled without GPUs, gres.conf lines for them "
		                      "ignored)", l->loc.path, l->loc.line, l->kv[0].val,
		                      (int)a.ngpus, GP_MAX_GPUS_PER_NODE)) {
			rc = gp__errorf(err, GP_ENOMEM, "out of memory");
			goto out;
		}
		a.ngpus = a.ntypes = 0;
		a.type[0] = a.types[0] = '\0';
	} else if (a.ntypes > 1 &&
	           gp__cluster_warnf(s->ld->c, "%s:%d: Gres: nodes '%s' hold %d GPU types (%s): "
	                             "a request for one type is placed only on nodes whose GPUs "
	                             "are all of that type, the others are left to Slurm; step "
	                             "time and power use the profile of %s", l->loc.path,
	                             l->loc.line, l->kv[0].val, (int)a.ntypes, a.types, a.type)) {
		rc = gp__errorf(err, GP_ENOMEM, "out of memory");
		goto out;
	}
	s->cur = &a;
	s->cur_loc = &l->loc;
	rc = gp__conf_hostlist(&l->loc, "NodeName", l->kv[0].val, add_node, s, err);
out:
	free(a.features);
	return rc;
}

/* Slurm time: MIN, MIN:SEC, H:MIN:SEC, D-H, D-H:MIN, D-H:MIN:SEC, INFINITE. */
static int parse_time(const gp__conf_loc_t *loc, const char *val, uint32_t *out,
                      gp_error_t *err)
{
	char buf[64], *p, *f[3];
	long days = 0, v[3] = { 0, 0, 0 }, secs;
	int nf = 0, i;

	if (!strcasecmp(val, "INFINITE") || !strcasecmp(val, "UNLIMITED")) {
		*out = UINT32_MAX;
		return GP_OK;
	}
	if (strlen(val) >= sizeof(buf) || !*val)
		goto bad;
	memcpy(buf, val, strlen(val) + 1);
	p = buf;
	if ((f[0] = strchr(buf, '-')) != NULL) {
		*f[0] = '\0';
		if (gp__parse_long(buf, 0, 365L * 100, &days))
			goto bad;
		p = f[0] + 1;
	}
	f[nf++] = p;
	while ((p = strchr(p, ':')) != NULL) {
		if (nf == 3)
			goto bad;
		*p++ = '\0';
		f[nf++] = p;
	}
	for (i = 0; i < nf; i++)
		if (gp__parse_long(f[i], 0, 1L << 24, &v[i]))
			goto bad;
	if (strchr(val, '-')) /* D-H, D-H:M, D-H:M:S */
		secs = v[0] * 3600 + (nf > 1 ? v[1] * 60 : 0) + (nf > 2 ? v[2] : 0);
	else if (nf == 3) /* H:M:S */
		secs = v[0] * 3600 + v[1] * 60 + v[2];
	else /* M or M:S */
		secs = v[0] * 60 + (nf > 1 ? v[1] : 0);
	secs += days * 86400;
	/* Slurm rounds seconds up to whole minutes */
	*out = (uint32_t)((secs + 59) / 60);
	return GP_OK;
bad:
	return gp__conf_err(err, loc, "MaxTime", "'%s' is not a Slurm time", val);
}

static int part_line(slurm_ctx_t *s, const gp__conf_line_t *l, gp_error_t *err)
{
	gp__load_t *ld = s->ld;
	gp_cluster_t *c = ld->c;
	part_attr_t a = s->pdef;
	bool is_def = strcasecmp(l->kv[0].val, "DEFAULT") == 0;
	gp_partition_t *p;
	int i, rc = GP_OK;

	a.nodes = a.topology = NULL;
	if ((s->pdef.nodes && !(a.nodes = strdup(s->pdef.nodes))) ||
	    (s->pdef.topology && !(a.topology = strdup(s->pdef.topology)))) {
		free(a.nodes);
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	}
	for (i = 1; i < l->n && !rc; i++) {
		const gp__conf_kv_t *kv = &l->kv[i];

		if (gp__conf_is(kv, "Nodes")) {
			rc = dup_str(&a.nodes, kv->val, err);
		} else if (gp__conf_is(kv, "Topology")) {
			rc = dup_str(&a.topology, kv->val, err);
		} else if (gp__conf_is(kv, "Default")) {
			if (!strcasecmp(kv->val, "YES"))
				a.is_default = true;
			else if (!strcasecmp(kv->val, "NO"))
				a.is_default = false;
			else
				rc = gp__conf_err(err, &l->loc, "Default", "'%s' is not YES or NO",
				                  kv->val);
		} else if (gp__conf_is(kv, "State")) {
			if (!strcasecmp(kv->val, "UP"))
				a.up = true;
			else if (!strcasecmp(kv->val, "DOWN") || !strcasecmp(kv->val, "INACTIVE") ||
			         !strcasecmp(kv->val, "DRAIN"))
				a.up = false;
			else
				rc = gp__conf_err(err, &l->loc, "State",
				                  "'%s' is not UP, DOWN, INACTIVE or DRAIN", kv->val);
		} else if (gp__conf_is(kv, "MaxTime")) {
			rc = parse_time(&l->loc, kv->val, &a.max_time_min, err);
		}
	}
	if (rc)
		goto out;
	if (is_def) {
		free(s->pdef.nodes);
		free(s->pdef.topology);
		s->pdef = a;
		return GP_OK;
	}
	for (i = 0; i < c->nparts; i++)
		if (strcmp(c->parts[i].name, l->kv[0].val) == 0) {
			rc = gp__conf_err(err, &l->loc, "PartitionName",
			                  "duplicate partition '%s' (first at %s:%d)", l->kv[0].val,
			                  ld->part[i].loc.path, ld->part[i].loc.line);
			goto out;
		}
	if (c->nparts >= GP_MAX_PARTITIONS) {
		/* Slurm has no such limit: the partitions past it are Slurm's
		 * alone (a job naming one is not gpuplace's), said once */
		if (s->parts_over++ == 0 &&
		    gp__cluster_warnf(c, "%s:%d: PartitionName: '%s' and the partitions after it "
		                      "are past the %d gpuplace models; jobs in them are left to "
		                      "Slurm", l->loc.path, l->loc.line, l->kv[0].val,
		                      GP_MAX_PARTITIONS))
			rc = gp__errorf(err, GP_ENOMEM, "out of memory");
		goto out;
	}
	if (gp__grow(&c->parts, (size_t)c->nparts, sizeof(*c->parts)) ||
	    gp__grow(&ld->part, (size_t)c->nparts, sizeof(*ld->part))) {
		rc = gp__errorf(err, GP_ENOMEM, "out of memory");
		goto out;
	}
	p = &c->parts[c->nparts];
	rc = gp__conf_str(&l->loc, "PartitionName", l->kv[0].val, p->name, sizeof(p->name),
	                  false, err);
	if (rc)
		goto out;
	p->is_default = a.is_default;
	p->up = a.up;
	p->max_time_min = a.max_time_min;
	ld->part[c->nparts].loc = l->loc;
	ld->part[c->nparts].nodes = a.nodes;
	ld->part[c->nparts].topology = a.topology;
	a.nodes = a.topology = NULL;
	c->nparts++;
out:
	free(a.nodes);
	free(a.topology);
	return rc;
}

/* NodeSet=NAME [Nodes=LIST|ALL] [Feature=F]: kept for the partitions. */
static int nodeset_line(slurm_ctx_t *s, const gp__conf_line_t *l, gp_error_t *err)
{
	nodeset_t *ns;
	int32_t i;
	int k, rc;

	for (i = 0; i < s->nsets; i++)
		if (!strcmp(s->sets[i].name, l->kv[0].val)) {
			/* Slurm replaces a partition's first match only: the first wins */
			if (gp__cluster_warnf(s->ld->c, "%s:%d: NodeSet: '%s' is already defined at "
			                      "%s:%d; this one is ignored, as Slurm uses the first",
			                      l->loc.path, l->loc.line, l->kv[0].val,
			                      s->sets[i].loc.path, s->sets[i].loc.line))
				return gp__errorf(err, GP_ENOMEM, "out of memory");
			return GP_OK;
		}
	if (gp__grow(&s->sets, (size_t)s->nsets, sizeof(*s->sets)))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	ns = &s->sets[s->nsets];
	memset(ns, 0, sizeof(*ns));
	if ((rc = gp__conf_str(&l->loc, "NodeSet", l->kv[0].val, ns->name, sizeof(ns->name),
	                       false, err)))
		return rc;
	ns->loc = l->loc;
	s->nsets++;
	for (k = 1; k < l->n; k++) {
		if (gp__conf_is(&l->kv[k], "Nodes"))
			rc = dup_str(&ns->nodes, l->kv[k].val, err);
		else if (gp__conf_is(&l->kv[k], "Feature") || gp__conf_is(&l->kv[k], "Features"))
			rc = dup_str(&ns->feature, l->kv[k].val, err);
		else
			rc = gp__conf_err(err, &l->loc, l->kv[k].key,
			                  "unknown key (a NodeSet has Nodes= and Feature=)");
		if (rc)
			return rc;
	}
	return GP_OK;
}

/* Keep the SchedulerParameters value of key i of line l, with where it was
 * read, for the site's policy (gp__policy_site); -1 when out of memory. */
static int keep_sched_params(gp_cluster_t *c, const gp__conf_line_t *l, int i)
{
	int32_t n = c->nsched_params;
	char **v, **src;

	if (!(v = realloc(c->sched_params, (size_t)(n + 1) * sizeof(*v))))
		return -1;
	c->sched_params = v;
	if (!(src = realloc(c->sched_params_src, (size_t)(n + 1) * sizeof(*src))))
		return -1;
	c->sched_params_src = src;
	v[n] = strdup(l->kv[i].val);
	if (asprintf(&src[n], "%s:%d: SchedulerParameters", l->loc.path, l->loc.line) < 0)
		src[n] = NULL;
	if (!v[n] || !src[n]) {
		free(v[n]);
		free(src[n]);
		return -1;
	}
	c->nsched_params = n + 1;
	return 0;
}

static int slurm_line(void *arg, const gp__conf_line_t *l, gp_error_t *err)
{
	slurm_ctx_t *s = arg;
	int i;

	if (gp__conf_is(&l->kv[0], "NodeName"))
		return node_line(s, l, err);
	if (gp__conf_is(&l->kv[0], "PartitionName"))
		return part_line(s, l, err);
	if (gp__conf_is(&l->kv[0], "NodeSet"))
		return nodeset_line(s, l, err);
	for (i = 0; i < l->n; i++)
		if (gp__conf_is(&l->kv[i], "SchedulerParameters") && keep_sched_params(s->ld->c, l, i))
			return gp__errorf(err, GP_ENOMEM, "out of memory");
	for (i = 0; i < l->n; i++)
		if (gp__conf_is(&l->kv[i], "ClusterName")) {
			/* Slurm: "specified more than once, latest value used" */
			if (s->cluster_loc.line &&
			    gp__cluster_warnf(s->ld->c, "%s:%d: ClusterName: already set at %s:%d; "
			                      "the last is used, as Slurm uses it", l->loc.path,
			                      l->loc.line, s->cluster_loc.path, s->cluster_loc.line))
				return gp__errorf(err, GP_ENOMEM, "out of memory");
			s->cluster_loc = l->loc;
			return gp__conf_str(&l->loc, "ClusterName", l->kv[i].val, s->ld->c->name,
			                    sizeof(s->ld->c->name), false, err);
		}
	return GP_OK; /* global keys belong to Slurm */
}

/* Whether node n has feature f in its comma-separated Features=. */
static bool has_feature(const gp_node_t *n, const char *f)
{
	const char *p = n->features;
	size_t fl = strlen(f);

	while (p && *p) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == fl && !strncmp(p, f, fl))
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

/* A partition's member list being built. */
typedef struct part_acc {
	slurm_ctx_t *s;
	const gp__conf_loc_t *loc;
	uint8_t *in;            /* per node: already listed */
	int32_t *nodes, n;
} part_acc_t;

static int acc_node(part_acc_t *a, int32_t i, gp_error_t *err)
{
	if (a->in[i])
		return GP_OK;
	a->in[i] = 1;
	if (gp__grow(&a->nodes, (size_t)a->n, sizeof(*a->nodes)))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	a->nodes[a->n++] = i;
	return GP_OK;
}

static int acc_all(part_acc_t *a, gp_error_t *err)
{
	int32_t i;
	int rc;

	for (i = 0; i < a->s->ld->c->nnodes; i++)
		if ((rc = acc_node(a, i, err)))
			return rc;
	return GP_OK;
}

static int acc_plain(void *arg, const char *name, gp_error_t *err)
{
	part_acc_t *a = arg;
	int32_t i = gp__node_find(a->s->ld->c, name);

	if (i < 0)
		return gp__conf_err(err, a->loc, "Nodes", "unknown node '%s'", name);
	return acc_node(a, i, err);
}

/* One name of a partition's Nodes=: a NodeSet (its Nodes= and the nodes
 * with its Feature=, as slurmctld's nodespec_to_hostlist() swaps it in) or
 * a node. */
static int acc_name(void *arg, const char *name, gp_error_t *err)
{
	part_acc_t *a = arg;
	gp_cluster_t *c = a->s->ld->c;
	int32_t k, i;
	int rc;

	for (k = 0; k < a->s->nsets; k++) {
		const nodeset_t *ns = &a->s->sets[k];

		if (strcmp(ns->name, name))
			continue;
		if (ns->feature)
			for (i = 0; i < c->nnodes; i++)
				if (has_feature(&c->nodes[i], ns->feature) && (rc = acc_node(a, i, err)))
					return rc;
		if (ns->nodes && !strcasecmp(ns->nodes, "ALL"))
			return acc_all(a, err);
		if (ns->nodes && *ns->nodes) {
			part_acc_t sub = *a;

			sub.loc = &ns->loc;
			rc = gp__conf_hostlist(&ns->loc, "Nodes", ns->nodes, acc_plain, &sub, err);
			a->nodes = sub.nodes;
			a->n = sub.n;
			return rc;
		}
		return GP_OK;
	}
	return acc_plain(a, name, err);
}

/* Node lists of the partitions, once every node is known: host lists,
 * ALL and NodeSet names (slurm.conf(5): "Comma-separated list of nodes or
 * nodesets"). */
static int resolve_partitions(slurm_ctx_t *s, gp_error_t *err)
{
	gp__load_t *ld = s->ld;
	gp_cluster_t *c = ld->c;
	int32_t i, j, k, ndef = 0, lastdef = -1;
	int rc = GP_OK;
	uint8_t *in;

	/* a NodeSet named like a node is refused by Slurm
	 * (_validate_conf_nodeset_vs_nodenames) */
	for (k = 0; k < s->nsets; k++)
		if ((i = gp__node_find(c, s->sets[k].name)) >= 0)
			return gp__conf_err(err, &s->sets[k].loc, "NodeSet",
			                    "'%s' is also a node (%s:%d); Slurm refuses a NodeSet "
			                    "named like a node", s->sets[k].name, ld->node_loc[i].path,
			                    ld->node_loc[i].line);
	in = calloc((size_t)c->nnodes + 1, 1);
	if (!in)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	for (i = 0; i < c->nparts && !rc; i++) {
		gp_partition_t *p = &c->parts[i];
		const char *list = ld->part[i].nodes;
		part_acc_t a = { .s = s, .loc = &ld->part[i].loc, .in = in };

		if (p->is_default) {
			ndef++;
			lastdef = i;
		}
		if (!list || !*list)
			continue;
		if (!strcasecmp(list, "ALL"))
			rc = acc_all(&a, err);
		else
			rc = gp__conf_hostlist(&ld->part[i].loc, "Nodes", list, acc_name, &a, err);
		for (j = 0; j < a.n; j++)
			in[a.nodes[j]] = 0;
		if (rc) {
			free(a.nodes);
			break;
		}
		p->nodes = a.nodes;
		p->nnodes = a.n;
		if (!p->nodes && !(p->nodes = malloc(sizeof(*p->nodes))))
			rc = gp__errorf(err, GP_ENOMEM, "out of memory");
	}
	free(in);
	if (rc || (rc = gp__cluster_part_bits(c, err)))
		return rc;
	/* several Default=YES: slurmctld keeps the last one read ("changing
	 * default partition from A to B", slurmctld/read_config.c) */
	for (i = 0; i < c->nparts && ndef > 1; i++)
		if (c->parts[i].is_default && i != lastdef) {
			c->parts[i].is_default = false;
			if (gp__cluster_warnf(c, "%s:%d: Default: partition '%s' is Default=YES but so "
			                      "is '%s' (%s:%d); the last is the default, as in Slurm",
			                      ld->part[i].loc.path, ld->part[i].loc.line,
			                      c->parts[i].name, c->parts[lastdef].name,
			                      ld->part[lastdef].loc.path, ld->part[lastdef].loc.line))
				return gp__errorf(err, GP_ENOMEM, "out of memory");
		}
	return GP_OK;
}

int gp__load_slurm(gp__load_t *ld, gp_error_t *err)
{
	slurm_ctx_t s = { .ld = ld };
	gp_cluster_t *c = ld->c;
	int32_t i, first;
	int rc;

	node_attr_init(&s.ndef);
	s.pdef.up = true;
	s.pdef.max_time_min = UINT32_MAX;
	rc = gp__conf_read_slurm(&ld->paths, ld->dir, "slurm.conf", false, c, slurm_line, &s,
	                         err);
	free(s.ndef.features);
	free(s.pdef.nodes);
	free(s.pdef.topology);
	if (rc)
		goto out;
	if (gp__cluster_index(c)) {
		rc = gp__errorf(err, GP_ENOMEM, "out of memory");
		goto out;
	}
	/* the hash finds the first of equal names: a later one is a duplicate
	 * (slurmctld: fatal "Duplicated NodeName") */
	for (i = 0; i < c->nnodes; i++)
		if ((first = gp__node_find(c, c->nodes[i].name)) != i) {
			rc = gp__conf_err(err, &ld->node_loc[i], "NodeName",
			                  "duplicate node '%s' (first at %s:%d)", c->nodes[i].name,
			                  ld->node_loc[first].path, ld->node_loc[first].line);
			goto out;
		}
	rc = resolve_partitions(&s, err);
out:
	for (i = 0; i < s.nsets; i++) {
		free(s.sets[i].nodes);
		free(s.sets[i].feature);
	}
	free(s.sets);
	return rc;
}
