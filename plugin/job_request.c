/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * job_request.c - what a job description asks of job_submit/gpuplace: its
 * hints, the engine's request, what it needs of each node besides GPUs,
 * and Slurm's own answer to a request it refuses.
 */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "job_submit_gpuplace.h"

/* ---- hints ------------------------------------------------------------ */

/* Value of NAME= in a Slurm environment array of n entries, or NULL.  An
 * entry may be NULL: libslurm unpacks a zero-length string as NULL, so any
 * program using the submit API can send one; it is skipped, never read
 * (here, in env_set and in spank_env_set). */
static const char *env_find(char **env, uint32_t n, const char *name)
{
	size_t len = strlen(name);
	uint32_t i;

	for (i = 0; env && i < n; i++)
		if (env[i] && !strncmp(env[i], name, len) && env[i][len] == '=')
			return env[i] + len + 1;
	return NULL;
}

/* Individual GPUPLACE_<KEY> variables of a batch job, as hint keys. */
static const char *const single_keys[] = {
	"tp", "pp", "dp", "ep", "cp", "params", "grad_bytes", "step_s", "ckpt_bytes", NULL,
};

/*
 * The job's hint string and where it came from: the SPANK options (srun and
 * salloc send them in spank_job_env, sbatch in the job environment), else
 * GPUPLACE_HINTS or the single GPUPLACE_<KEY> variables of a batch job.
 * Returns 1 with hints in buf, 0 when the job has none, -1 when too long.
 */
int collect_hints(const job_desc_msg_t *job, char *buf, size_t len, const char **source)
{
	const char *v;
	size_t used = 0;
	int i;

	buf[0] = '\0';
	if ((v = env_find(job->spank_job_env, job->spank_job_env_size, "GPUPLACE_HINTS"))) {
		*source = "--gpuplace options";
	} else if ((v = env_find(job->environment, job->env_size, "SLURM_SPANK_GPUPLACE_HINTS"))) {
		*source = "--gpuplace options";
	} else if ((v = env_find(job->environment, job->env_size, "GPUPLACE_HINTS"))) {
		*source = "GPUPLACE_HINTS";
	}
	if (v) {
		if (strlen(v) >= len)
			return -1;
		snprintf(buf, len, "%s", v);
		return *buf ? 1 : 0;
	}
	*source = "GPUPLACE_* variables";
	for (i = 0; single_keys[i]; i++) {
		char name[64], *p;
		int n;

		snprintf(name, sizeof(name), "GPUPLACE_%s", single_keys[i]);
		for (p = name; *p; p++)
			if (*p >= 'a' && *p <= 'z')
				*p = (char)(*p - 'a' + 'A');
		if (!(v = env_find(job->environment, job->env_size, name)))
			continue;
		n = snprintf(buf + used, len - used, "%s%s=%s", used ? "," : "", single_keys[i], v);
		if (n < 0 || (size_t)n >= len - used)
			return -1;
		used += (size_t)n;
	}
	return used ? 1 : 0;
}

/* ---- the job's request ------------------------------------------------ */

/* --exclusive; and --exclusive=user or =mcs, which share a node only with
 * jobs of the same user or MCS label, which gpuplace cannot tell apart:
 * such a job gets only idle nodes (no GPU, CPU or memory allocated, by any
 * job), where Slurm can always start it */
static bool wants_idle_nodes(const job_desc_msg_t *j)
{
	return j->shared == JOB_SHARED_NONE || j->shared == JOB_SHARED_USER ||
	       j->shared == JOB_SHARED_MCS;
}

/* The job's --nodelist and --exclude into r, each read once per
 * submission (a host list can be a megabyte): a list r holds already is
 * not read again, and lists that could not be read leave nrequired and
 * nexcluded at -1, so that book_pass does not try them again.  0, or a
 * gp_err code with err. */
int node_lists(const job_desc_msg_t *j, const gp_cluster_t *c, gp_request_t *r,
               gp_error_t *err)
{
	int rc = GP_OK;

	if (r->nrequired < 0 || r->nexcluded < 0)
		return GP_EINVAL; /* refused before; err was given then */
	if (j->req_nodes && !r->required)
		rc = gp__request_set_required(r, c, j->req_nodes, err);
	if (rc == GP_OK && j->exc_nodes && !r->excluded)
		rc = gp__request_set_excluded(r, c, j->exc_nodes, err);
	if (rc != GP_OK)
		r->nrequired = r->nexcluded = -1;
	return rc;
}

/* Does the job ask for GPUs in any of the fields Slurm keeps them in
 * (--gpus, --gres, --gpus-per-node, --tres-per-task, ...)?  A field that
 * cannot be read counts as asking. */
bool job_asks_gpus(const job_desc_msg_t *j)
{
	const char *f[] = { j->tres_per_job, j->tres_per_node, j->tres_per_socket, j->tres_per_task };
	char type[GP_NAME_MAX];
	size_t i;
	long n;
	int rc;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if ((rc = gp_tres_gpu_request(f[i], &n, type, sizeof(type))) < 0 || (rc > 0 && n > 0))
			return true;
	return false;
}

/*
 * Keep a request for GPUs of one type on the nodes whose GPUs are all of
 * that type: every other GPU node joins r's excluded nodes.  Types are
 * slurm.conf's (gpu:TYPE:N), compared without regard to case as Slurm
 * compares type names (gp__node_type_gpus; a node without a type in
 * slurm.conf answers by gpuplace.conf's DefaultProfile, so a request
 * naming that profile may take it: name the type in slurm.conf).  A node
 * of mixed types is left out: the engine counts a node's GPUs, not its
 * GPUs of one type, and could pin more than the node holds of it.  0, or
 * -1 with why when the request cannot be placed exactly: no node has the
 * type (or only nodes of mixed types), fewer GPUs of it than the job
 * asks, or --nodelist names a node not wholly of that type.
 */
int restrict_to_type(gp_request_t *r, const gp_cluster_t *c, const char *type, char *why,
                     size_t len)
{
	uint8_t *out = calloc((size_t)c->nnodes + 1, 1);
	int32_t i, k, n = 0, *ex, of;
	int64_t gpus = 0, mixed = 0;
	bool all;

	if (!out) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	for (i = 0; i < c->nnodes; i++) {
		const gp_node_t *nd = &c->nodes[i];

		if (nd->ngpus <= 0)
			continue;
		of = gp__node_type_gpus(c, i, type, &all);
		if (all) {
			gpus += nd->ngpus;
		} else {
			mixed += of;
			out[i] = 1;
		}
	}
	if (gpus < r->gpus) {
		if (mixed)
			snprintf(why, len, "the job asks for %d GPUs of type %.64s, nodes that hold "
			         "only that type have %lld (%lld more on nodes of mixed types, left "
			         "to Slurm)", (int)r->gpus, type, (long long)gpus, (long long)mixed);
		else if (gpus)
			snprintf(why, len, "the job asks for %d GPUs of type %.64s, the cluster has %lld",
			         (int)r->gpus, type, (long long)gpus);
		else
			snprintf(why, len, "no node has GPUs of type %.64s", type);
		free(out);
		return -1;
	}
	for (k = 0; k < r->nrequired; k++)
		if (out[r->required[k]]) {
			snprintf(why, len, "--nodelist names %.64s, which has no GPU of type %.64s",
			         c->nodes[r->required[k]].name, type);
			free(out);
			return -1;
		}
	for (k = 0; k < r->nexcluded; k++)
		out[r->excluded[k]] = 1;
	for (i = 0; i < c->nnodes; i++)
		n += out[i];
	if (n > r->nexcluded) {
		if (!(ex = malloc((size_t)n * sizeof(*ex)))) {
			snprintf(why, len, "out of memory");
			free(out);
			return -1;
		}
		for (i = 0, k = 0; i < c->nnodes; i++)
			if (out[i])
				ex[k++] = i;
		free(r->excluded);
		r->excluded = ex;
		r->nexcluded = n;
	}
	free(out);
	return 0;
}

/* GPUs of type `type' on nodes of mixed types in the partition r resolves
 * to: the GPUs restrict_to_type() leaves out of a typed decision. */
int64_t mixed_type_gpus(const gp_cluster_t *c, const gp_request_t *r, const char *type)
{
	int32_t i, q = gp__request_partition(r, c), of;
	int64_t n = 0;
	bool all;

	for (i = 0; i < c->nnodes; i++) {
		if (c->nodes[i].ngpus <= 0 || (q >= 0 && !gp__node_in_part(c, i, q)))
			continue;
		of = gp__node_type_gpus(c, i, type, &all);
		if (!all)
			n += of;
	}
	return n;
}

/* The job's GPU count and type from one TRES field into *count and
 * type[GP_NAME_MAX]; 0, or -1 with why when gpuplace cannot express it. */
static int tres_field(const char *what, const char *tres, long *count, char *type, char *why,
                      size_t len)
{
	int rc = gp_tres_gpu_request(tres, count, type, GP_NAME_MAX);

	if (rc == -2)
		snprintf(why, len, "%s %.200s names more than one GPU type", what, tres);
	else if (rc < 0)
		snprintf(why, len, "cannot read the GPU request %s %.200s", what, tres);
	return rc < 0 ? -1 : 0;
}

/* The engine's request for job_desc.  1 = a request to decide on, 0 = not
 * gpuplace's job (passes unchanged; *why says why when not obvious).  The
 * GPUs are the sum of every GPU entry of --gpus (tres_per_job) or of
 * --gres / --gpus-per-node (tres_per_node), of one type: a request of
 * several types, or of a type gpuplace cannot place exactly, passes
 * unchanged with the reason in why.  The type, "" for any, goes into
 * type[GP_NAME_MAX]. */
int build_request(const job_desc_msg_t *j, const gp_cluster_t *c, gp_request_t *r,
                  char *type, char *why, size_t len)
{
	char node_type[GP_NAME_MAX];
	long per_job, per_node, n;
	uint32_t nodes = j->min_nodes == NO_VAL || j->min_nodes == 0 ? 0 : j->min_nodes;
	int64_t total;
	int32_t q;
	gp_error_t err;

	why[0] = '\0';
	type[0] = '\0';
	/* none until the request is read whole: a job that passes with a
	 * count gpuplace could not read or express (several types, GPUs per
	 * task) gets no rack license or booking for a guess of it */
	r->gpus = 0;
	if (tres_field("--gpus", j->tres_per_job, &per_job, type, why, len) ||
	    tres_field("--gres/--gpus-per-node", j->tres_per_node, &per_node, node_type, why, len))
		return 0;
	if (*node_type && *type && strcasecmp(node_type, type)) {
		snprintf(why, len, "GPUs of type %.64s per job and %.64s per node", type, node_type);
		return 0;
	}
	if (!*type)
		snprintf(type, GP_NAME_MAX, "%s", node_type);
	if (j->tres_per_socket || j->tres_per_task) {
		char t[GP_NAME_MAX];

		if (gp_tres_gpu_request(j->tres_per_socket, &n, t, sizeof(t)) ||
		    gp_tres_gpu_request(j->tres_per_task, &n, t, sizeof(t))) {
			snprintf(why, len, "GPUs per socket or per task are left to Slurm");
			return 0;
		}
	}
	/* per_node <= 2^30 and nodes < 2^32: the product fits in 64 bits;
	 * larger than the engine counts is Slurm's to refuse, not ours to wrap */
	total = per_job ? (int64_t)per_job : (int64_t)per_node * (nodes ? nodes : 1);
	if (total > INT32_MAX) {
		snprintf(why, len, "a request for %" PRId64 " GPUs is left to Slurm", total);
		return 0;
	}
	r->gpus = (int32_t)total;
	r->gpus_per_node = (int32_t)per_node;
	if (r->gpus <= 1)
		return 0; /* not a distributed GPU job */
	/* every task of a job array inherits the array's record, so one PIN
	 * (or domain) would hold all of them to the same nodes, to run one
	 * after another while other nodes stay free (tests/slurm/
	 * slurm_shapes.sh); Slurm places each task as it starts */
	if (j->array_inx && *j->array_inx) {
		snprintf(why, len, "a job array is left to Slurm: its tasks would inherit one "
		         "placement and run one after another on the same nodes");
		return 0;
	}
	/* --contiguous: Slurm refuses required nodes that are not consecutive
	 * in its node table at submission ("Node count specification
	 * invalid"), and places contiguous nodes itself */
	if (j->contiguous != NO_VAL16 && j->contiguous) {
		snprintf(why, len, "--contiguous is left to Slurm, which places consecutive nodes "
		         "itself");
		return 0;
	}
	r->min_nodes = (int32_t)nodes;
	r->max_nodes = j->max_nodes == NO_VAL || j->max_nodes == 0 ? 0 : (int32_t)j->max_nodes;
	r->exclusive = wants_idle_nodes(j);
	r->time_limit_min = j->time_limit == NO_VAL || j->time_limit == INFINITE ? 0 : j->time_limit;
	/* --segment stays in the job as given: candidates are made of whole
	 * segments so that Slurm can start the set gpuplace pins */
	r->segment_nodes = (int32_t)gp_job_segment(j);
	if (j->partition && strchr(j->partition, ',')) {
		snprintf(why, len, "several partitions are left to Slurm");
		return 0;
	}
	if ((j->partition && gp__request_set_partition(r, c, j->partition, &err)) ||
	    node_lists(j, c, r, &err) ||
	    (j->features && gp__request_set_constraint(r, j->features, &err))) {
		snprintf(why, len, "%.400s", err.text);
		return 0;
	}
	/* a partition whose part of the model is switched off (its
	 * topology is one gpuplace does not model): Slurm's, with the reason
	 * the load gave */
	if ((q = gp__request_partition(r, c)) >= 0 && c->parts[q].slurm_only) {
		snprintf(why, len, "%.400s", c->parts[q].slurm_only);
		return 0;
	}
	if (*type && restrict_to_type(r, c, type, why, len))
		return 0;
	return 1;
}

/* "job from uid U 'NAME'", or "job N 'NAME' of uid U" when the submitter
 * chose the id (slurmctld assigns it only after job_submit), for every
 * per-job line; the name is escaped with the whole line (gp_log). */
void job_label(const job_desc_msg_t *j, uint32_t uid, char *buf, size_t len)
{
	const char *name = j->name ? j->name : "";

	if (GP_JOB_DESC_ID(j) != NO_VAL && GP_JOB_DESC_ID(j) != 0)
		snprintf(buf, len, "job %u '%.100s' of uid %u", GP_JOB_DESC_ID(j), name, uid);
	else
		snprintf(buf, len, "job from uid %u '%.100s'", uid, name);
}

/* What the job needs of each node besides GPUs, with Slurm's defaults where
 * it says nothing: one CPU, and def_mem (slurmctld's DefMemPerCPU with
 * MEM_PER_CPU set, or DefMemPerNode; a partition's own default is not
 * seen), else at least 1 MB. */
void job_need(const job_desc_msg_t *j, uint64_t def_mem, gp_live_need_t *n)
{
	uint64_t mem = j->pn_min_memory != NO_VAL64 ? j->pn_min_memory : def_mem;

	int32_t cpt = j->cpus_per_task == NO_VAL16 || j->cpus_per_task == 0 ? 1 : j->cpus_per_task;
	long v;

	memset(n, 0, sizeof(*n));
	n->cpus_per_node = cpt; /* at least one task per node */
	if (j->pn_min_cpus != NO_VAL16 && j->pn_min_cpus > n->cpus_per_node)
		n->cpus_per_node = j->pn_min_cpus;
	/* tasks x CPUs per task: up to 65,534 x 65,535, past int32_t; a
	 * product no node holds stays one (INT32_MAX) */
	if (j->ntasks_per_node != NO_VAL16 && j->ntasks_per_node > 0 &&
	    (int64_t)j->ntasks_per_node * cpt > n->cpus_per_node)
		n->cpus_per_node = (int64_t)j->ntasks_per_node * cpt > INT32_MAX
		                   ? INT32_MAX : (int32_t)j->ntasks_per_node * cpt;
	v = gp_tres_gpus(j->cpus_per_tres);
	n->cpus_per_gpu = v > 0 ? (int32_t)v : 0;
	v = gp_tres_gpus(j->mem_per_tres);
	n->mem_per_gpu_mb = v > 0 ? v : 0;
	n->mem_per_node_mb = 1;
	if (mem != NO_VAL64 && (mem || j->pn_min_memory == 0)) {
		uint64_t per_cpu = mem & ~MEM_PER_CPU;

		if (mem & MEM_PER_CPU) /* per CPU x CPUs, at most INT64_MAX */
			n->mem_per_node_mb =
				per_cpu > (uint64_t)INT64_MAX / (uint64_t)n->cpus_per_node
					? INT64_MAX
					: (int64_t)per_cpu * n->cpus_per_node;
		else if (mem == 0)
			n->mem_per_node_mb = -1; /* --mem=0: the whole node's memory */
		else
			n->mem_per_node_mb = (int64_t)mem;
		if (n->mem_per_node_mb == 0)
			n->mem_per_node_mb = 1;
	}
	n->idle_node = wants_idle_nodes(j);
}

/*
 * Slurm's own answer to a request gp__request_check() refused: the error
 * slurmctld rejects such a job with, or holds it pending for (a time
 * limit over the partition's MaxTime is rejected only with
 * EnforcePartLimits; job_mgr.c).  The user's to fix and Slurm's to say:
 * the job passes unchanged.  The conditions in gp__request_check()'s order.
 */
int mistake_code(const gp_request_t *r, const gp_cluster_t *c, const char **name)
{
	int32_t p = gp__request_partition(r, c), i, k;

	if (r->gpus_per_node > GP_MAX_GPUS_PER_NODE ||
	    (r->gpus_per_node > 0 && r->gpus % r->gpus_per_node)) {
		*name = "ESLURM_INVALID_GRES";
		return ESLURM_INVALID_GRES;
	}
	if (r->nrequired > 0 && r->nexcluded > 0) {
		/* linear in the lists, which may name most of the cluster */
		uint8_t *m = gp__node_marks(c->nnodes, r->required, r->nrequired, r->excluded,
		                            r->nexcluded);

		for (i = 0; m && i < c->nnodes && m[i] != (GP_MARK_A | GP_MARK_B); i++)
			;
		k = m && i < c->nnodes;
		free(m);
		if (k) {
			/* "Job's required and excluded node lists overlap" */
			*name = "ESLURM_INVALID_NODE_NAME";
			return ESLURM_INVALID_NODE_NAME;
		}
	}
	if (p < 0 && c->nparts > 0) {
		*name = "ESLURM_DEFAULT_PARTITION_NOT_SET";
		return ESLURM_DEFAULT_PARTITION_NOT_SET;
	}
	if (p >= 0 && r->time_limit_min && c->parts[p].max_time_min != UINT32_MAX &&
	    r->time_limit_min > c->parts[p].max_time_min) {
		*name = "ESLURM_INVALID_TIME_LIMIT";
		return ESLURM_INVALID_TIME_LIMIT;
	}
	*name = "ESLURM_INVALID_NODE_COUNT";
	return ESLURM_INVALID_NODE_COUNT;
}
