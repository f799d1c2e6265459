/* SPDX-License-Identifier: GPL-2.0-or-later */
/* request.c - building and checking a job request. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "request.h"

void gp__request_init(gp_request_t *r)
{
	memset(r, 0, sizeof(*r));
	r->gpus = 1;
	r->partition = -1;
}

void gp__request_clear(gp_request_t *r)
{
	if (!r)
		return;
	free(r->required);
	free(r->excluded);
	gp__constraint_destroy(r->constraint);
	gp__request_init(r);
}

/* Expand a host list into node indices of c (deduplicated, in list order);
 * a list naming far more hosts than the cluster has is GP_ENOENT. */
static int expand_hostlist(const gp_cluster_t *c, const char *what, const char *list, int32_t **out,
                           int32_t *nout, gp_error_t *err)
{
	int rc;

	*out = NULL;
	*nout = 0;
	if (!list || !*list)
		return GP_OK;
	rc = gp__hostlist_nodes(c, what, list, c->nnodes + 1024, out, nout, err);
	return rc == GP_ELIMIT ? GP_ENOENT : rc;
}

uint8_t *gp__node_marks(int32_t nnodes, const int32_t *a, int32_t na, const int32_t *b,
                        int32_t nb)
{
	uint8_t *m = calloc(nnodes > 0 ? (size_t)nnodes : 1, 1);
	int32_t k;

	if (!m)
		return NULL;
	for (k = 0; a && k < na; k++)
		if (a[k] >= 0 && a[k] < nnodes)
			m[a[k]] |= GP_MARK_A;
	for (k = 0; b && k < nb; k++)
		if (b[k] >= 0 && b[k] < nnodes)
			m[b[k]] |= GP_MARK_B;
	return m;
}

int gp__request_set_required(gp_request_t *r, const gp_cluster_t *c, const char *hostlist,
                             gp_error_t *err)
{
	int32_t *v, n;
	int rc = expand_hostlist(c, "--nodelist", hostlist, &v, &n, err);

	if (rc)
		return rc;
	free(r->required);
	r->required = v;
	r->nrequired = n;
	return GP_OK;
}

int gp__request_set_excluded(gp_request_t *r, const gp_cluster_t *c, const char *hostlist,
                             gp_error_t *err)
{
	int32_t *v, n;
	int rc = expand_hostlist(c, "--exclude", hostlist, &v, &n, err);

	if (rc)
		return rc;
	free(r->excluded);
	r->excluded = v;
	r->nexcluded = n;
	return GP_OK;
}

int gp__request_set_constraint(gp_request_t *r, const char *expr, gp_error_t *err)
{
	gp_constraint_t *k = NULL;
	int rc;

	if (expr && *expr) {
		rc = gp__constraint_parse(expr, &k, err);
		if (rc)
			return rc;
	}
	gp__constraint_destroy(r->constraint);
	r->constraint = k;
	return GP_OK;
}

int gp__request_set_partition(gp_request_t *r, const gp_cluster_t *c, const char *name,
                              gp_error_t *err)
{
	int32_t i;

	if (!name || !*name) {
		r->partition = -1;
		return GP_OK;
	}
	for (i = 0; i < c->nparts; i++)
		if (strcmp(c->parts[i].name, name) == 0) {
			r->partition = i;
			return GP_OK;
		}
	return gp__errorf(err, GP_ENOENT, "partition '%.80s%s' does not exist", name,
	                  strlen(name) > 80 ? "..." : "");
}

int32_t gp__request_partition(const gp_request_t *r, const gp_cluster_t *c)
{
	int32_t i;

	if (r->partition >= 0)
		return r->partition;
	for (i = 0; i < c->nparts; i++)
		if (c->parts[i].is_default)
			return i;
	return -1;
}

int32_t gp__request_nodes(const gp_request_t *r)
{
	if (r->gpus_per_node > 0)
		return r->gpus % r->gpus_per_node ? 0 : r->gpus / r->gpus_per_node;
	if (r->min_nodes > 0 && (!r->max_nodes || r->max_nodes == r->min_nodes))
		return r->min_nodes;
	return 0;
}

/* --segment, as sbatch(1) of Slurm 24.05 .. 26.05 states it: the node
 * count is a multiple of the segment size, which is at most the planning
 * base block size. */
static int check_segment(const gp_request_t *r, const gp_cluster_t *c, gp_error_t *err)
{
	int32_t n = gp__request_nodes(r);

	if (r->segment_nodes < 0)
		return gp__errorf(err, GP_EINVAL, "--segment=%d is negative", (int)r->segment_nodes);
	if (r->segment_nodes == 0 || !gp__part_blocks(c, gp__request_partition(r, c)))
		return GP_OK; /* not placed by topology/block: no segments either */
	if (n <= 0)
		return gp__errorf(err, GP_EINVAL, "--segment=%d needs a fixed node count "
		                  "(--nodes=N or --gpus-per-node)", (int)r->segment_nodes);
	if (n % r->segment_nodes)
		return gp__errorf(err, GP_EINVAL, "--segment=%d does not divide the job's %d nodes",
		                  (int)r->segment_nodes, (int)n);
	if (r->gpus % n)
		return gp__errorf(err, GP_EINVAL, "--segment: %d GPUs do not spread evenly over %d "
		                  "nodes", (int)r->gpus, (int)n);
	if (r->segment_nodes > c->block_base)
		return gp__errorf(err, GP_EINVAL, "--segment=%d is larger than the base block size "
		                  "of %d nodes (BlockSizes)", (int)r->segment_nodes,
		                  (int)c->block_base);
	return GP_OK;
}

int gp__request_check(const gp_request_t *r, const gp_cluster_t *c, gp_error_t *err)
{
	int32_t p, i, j, nodes;

	if (r->gpus < 1)
		return gp__errorf(err, GP_EINVAL, "the job requests %d GPUs; at least 1 is needed",
		                  (int)r->gpus);
	if (r->min_nodes < 0 || r->max_nodes < 0 || r->gpus_per_node < 0)
		return gp__errorf(err, GP_EINVAL, "negative node or GPUs-per-node count");
	if (r->max_nodes && r->min_nodes > r->max_nodes)
		return gp__errorf(err, GP_EINVAL, "minimum nodes (%d) exceeds maximum nodes (%d)",
		                  (int)r->min_nodes, (int)r->max_nodes);
	if (r->min_nodes > r->gpus)
		return gp__errorf(err, GP_EINVAL, "%d nodes cannot each get a GPU of a %d-GPU job",
		                  (int)r->min_nodes, (int)r->gpus);
	if (r->gpus_per_node) {
		if (r->gpus_per_node > GP_MAX_GPUS_PER_NODE)
			return gp__errorf(err, GP_EINVAL,
			                  "%d GPUs per node exceeds the %d a node can have",
			                  (int)r->gpus_per_node, GP_MAX_GPUS_PER_NODE);
		if (r->gpus % r->gpus_per_node)
			return gp__errorf(err, GP_EINVAL,
			                  "%d GPUs is not a multiple of %d GPUs per node",
			                  (int)r->gpus, (int)r->gpus_per_node);
		nodes = r->gpus / r->gpus_per_node;
		if (nodes < r->min_nodes || (r->max_nodes && nodes > r->max_nodes))
			return gp__errorf(err, GP_EINVAL,
			                  "%d GPUs at %d per node is %d nodes, outside the %d-%d "
			                  "nodes requested",
			                  (int)r->gpus, (int)r->gpus_per_node, (int)nodes,
			                  (int)r->min_nodes, (int)r->max_nodes);
	}
	if (r->max_nodes && r->nrequired > r->max_nodes)
		return gp__errorf(err, GP_EINVAL,
		                  "--nodelist names %d nodes but at most %d are allowed",
		                  (int)r->nrequired, (int)r->max_nodes);
	if (r->nrequired > r->gpus)
		return gp__errorf(err, GP_EINVAL,
		                  "--nodelist names %d nodes but the job has only %d GPUs",
		                  (int)r->nrequired, (int)r->gpus);
	for (i = 0; i < r->nrequired; i++)
		if (r->required[i] < 0 || r->required[i] >= c->nnodes)
			return gp__errorf(err, GP_EINVAL, "--nodelist: bad node index %d",
			                  (int)r->required[i]);
	for (j = 0; j < r->nexcluded; j++)
		if (r->excluded[j] < 0 || r->excluded[j] >= c->nnodes)
			return gp__errorf(err, GP_EINVAL, "--exclude: bad node index %d",
			                  (int)r->excluded[j]);
	if (r->nrequired && r->nexcluded) {
		/* a map of the excluded nodes: linear in the lists, which may be
		 * long (a typed GPU request excludes every node of other types) */
		uint8_t *ex = gp__node_marks(c->nnodes, NULL, 0, r->excluded, r->nexcluded);

		if (!ex)
			return gp__errorf(err, GP_ENOMEM, "out of memory");
		for (i = 0; i < r->nrequired && !ex[r->required[i]]; i++)
			;
		free(ex);
		if (i < r->nrequired)
			return gp__errorf(err, GP_EINVAL, "node '%s' is both in --nodelist and --exclude",
			                  c->nodes[r->required[i]].name);
	}
	if (check_segment(r, c, err))
		return GP_EINVAL;
	if (r->partition >= c->nparts || r->partition < -1)
		return gp__errorf(err, GP_EINVAL, "bad partition index %d", (int)r->partition);
	p = gp__request_partition(r, c);
	if (p < 0 && c->nparts > 0)
		return gp__errorf(err, GP_EINVAL,
		                  "no partition given and the cluster has no "
		                  "default partition");
	if (p >= 0 && r->time_limit_min && c->parts[p].max_time_min != UINT32_MAX &&
	    r->time_limit_min > c->parts[p].max_time_min)
		return gp__errorf(err, GP_EINVAL,
		                  "time limit %u min exceeds partition '%s' MaxTime of %u min",
		                  r->time_limit_min, c->parts[p].name, c->parts[p].max_time_min);
	return GP_OK;
}
