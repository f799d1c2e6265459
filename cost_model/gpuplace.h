/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gpuplace.h - the public interface of the gpuplace engine library.
 *
 * Everything a caller needs is behind opaque handles with the gp_ prefix.
 * Error model: functions return 0 (GP_OK) or a negative gp_err code; when a
 * gp_error_t pointer is passed, a human-readable detail (naming file, line
 * and key for configuration errors) is written into it.  gp_strerror()
 * returns static strings.
 *
 * Thread safety: a gp_cluster_t is immutable after it is loaded and may be
 * read from any number of threads at once.  Functions that build or destroy
 * an object must not run concurrently with readers of that object.
 */
#ifndef GPUPLACE_H
#define GPUPLACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes.  Every function that can fail returns 0 or one of these. */
typedef enum gp_err {
	GP_OK = 0,
	GP_ENOMEM = -1,      /* out of memory */
	GP_EINVAL = -2,      /* invalid argument from the caller */
	GP_ECONFIG = -3,     /* invalid configuration (detail names file:line key) */
	GP_EIO = -4,         /* a file could not be read or written */
	GP_ENOENT = -5,      /* a named object (node, rack, file) does not exist */
	GP_ERANGE = -6,      /* a number is out of its allowed range */
	GP_EJSON = -7,       /* malformed or schema-violating JSON */
	GP_ENET = -8,        /* network / telemetry transport failure */
	GP_ESTALE = -9,      /* data older than its staleness limit */
	GP_ENOFIT = -10,     /* no placement satisfies the request */
	GP_ELIMIT = -11,     /* a fixed capacity limit of gpuplace was exceeded */
	GP_EHWLOC = -12,     /* hwloc could not load or describe a topology */
	GP_EINTERNAL = -13,  /* a bug caught at run time */
} gp_err_t;

/* Caller-owned buffer for error detail (like flux_error_t). */
typedef struct gp_error {
	char text[1024];
} gp_error_t;

/* Static description of an error code; never NULL, never freed. */
const char *gp_strerror(int err);

/* Opaque cluster model (static facts: nodes, GPUs, fabric, racks, ...). */
typedef struct gp_cluster gp_cluster_t;
/* Opaque dynamic state (free GPUs, node states, running jobs, power). */
typedef struct gp_state gp_state_t;

/*
 * Load a cluster model from a Slurm configuration directory: slurm.conf,
 * topology.conf (optional), gres.conf (optional) and gpuplace.conf.
 * On success *out is a new model the caller frees with gp_cluster_destroy().
 * On failure *out is NULL, nothing is leaked, and err (may be NULL) names
 * the file, line and key that is wrong.
 */
int gp_cluster_load_conf_dir(const char *dir, gp_cluster_t **out, gp_error_t *err);

/*
 * Load a cluster model and, if the document has a "state" section and
 * state_out is not NULL, its dynamic state from a JSON file (the
 * "simulated cluster state" format, see gpuplace-json(5)).
 * *state_out is set to NULL when there is no state section.
 * Both objects are owned by the caller.
 */
int gp_cluster_load_json(const char *path, gp_cluster_t **out,
                         gp_state_t **state_out, gp_error_t *err);

/*
 * Write a cluster model (and state, if not NULL) as JSON to path
 * ("-" for standard output).  The output loads back with
 * gp_cluster_load_json() into an equal model.
 */
int gp_cluster_save_json(const gp_cluster_t *c, const gp_state_t *s,
                         const char *path, gp_error_t *err);

/*
 * Load only the "state" section of a JSON document (gpuplace-json(5); a
 * "model" section, if present, is ignored) against the model c, whose node
 * and rack names it refers to.  *out is a new state owned by the caller
 * (gp_state_destroy), or NULL on failure with the JSON path in err.
 */
int gp_state_load_json(const gp_cluster_t *c, const char *path, gp_state_t **out,
                       gp_error_t *err);

/* Free a model.  gp_cluster_destroy(NULL) is a no-op. */
void gp_cluster_destroy(gp_cluster_t *c);

/* Print a human summary of the model to f. */
int gp_cluster_print_summary(const gp_cluster_t *c, FILE *f);

/*
 * Warnings recorded while loading a model (e.g. "topology.conf:7: Nodes:
 * node 'n3' is already under switch 's1'; ignored under 's2'").  The string is
 * owned by the model and valid until gp_cluster_destroy(); NULL when i is
 * out of range.
 */
int gp_cluster_warning_count(const gp_cluster_t *c);
const char *gp_cluster_warning(const gp_cluster_t *c, int i);

/* Number of nodes / GPUs in a model. */
int gp_cluster_node_count(const gp_cluster_t *c);
long gp_cluster_gpu_count(const gp_cluster_t *c);

/*
 * New state for a model: every node up, no GPU allocated, no job.
 * Owned by the caller, freed with gp_state_destroy().
 */
int gp_state_create(const gp_cluster_t *c, gp_state_t **out);
void gp_state_destroy(gp_state_t *s);

/* ---- placement ----------------------------------------------------------- */

typedef enum gp_place_kind {
	GP_PLACE_PIN = 0,       /* start on gp_place_result_nodes() now */
	GP_PLACE_CONSTRAIN = 1, /* start when one of the domains in
	                         * gp_place_result_features() can hold it */
	GP_PLACE_REJECT = 2,    /* can never satisfy the policy on this cluster */
} gp_place_kind_t;

/*
 * One job as sbatch and its hints describe it.  Every string is borrowed
 * for the call only; NULL (or 0) = not given.  Zero-initialise the struct
 * and set what applies, so fields added later keep their defaults.
 */
typedef struct gp_place_request {
	const char *job;          /* required: "gpus=N[,nodes=N][,gpus_per_node=N]"
	                           * and the job's hints, as `gpuplace place --job`
	                           * takes them (gpuplace(1)), e.g.
	                           * "gpus=64,tp=8,pp=2,params=70e9" */
	const char *partition;    /* NULL = the default partition */
	const char *nodelist;     /* Slurm host list the job must include */
	const char *exclude;      /* Slurm host list the job must avoid */
	const char *constraint;   /* Slurm --constraint expression */
	const char *policy;       /* gpuplace_* keys as in SchedulerParameters,
	                           * applied after the site's slurm.conf */
	unsigned time_limit_min;  /* minutes; 0 = the partition's limit */
	int exclusive;            /* nonzero = whole nodes only */
	int64_t now;              /* decision time, epoch s; 0 = the state's
	                           * time, else the current time */
} gp_place_request_t;

/* Opaque result of gp_place(). */
typedef struct gp_place_result gp_place_result_t;

/*
 * Decide where job req goes on model c in state s (NULL = every GPU free),
 * as job_submit/gpuplace and `gpuplace place` decide: the site's policy
 * (slurm.conf SchedulerParameters when c was loaded from a conf dir, else
 * the default) adjusted by req->policy, the racks' power headroom from the
 * state's recorded samples or the power estimate.
 *
 * On success *out is a new result the caller frees with
 * gp_place_result_destroy(); a job that cannot fit is a GP_PLACE_REJECT
 * result, not an error.  On failure *out is NULL and err (may be NULL)
 * says what is wrong: GP_EINVAL for a malformed request (bad job spec,
 * unknown partition or node, bad constraint), GP_ECONFIG for a bad
 * slurm.conf policy, GP_ENOMEM.
 *
 * Thread safety: c and s are only read, so any number of threads may call
 * gp_place() at once on the same model and state; each call builds its own
 * engine (no state is kept between calls).
 */
int gp_place(const gp_cluster_t *c, const gp_state_t *s, const gp_place_request_t *req,
             gp_place_result_t **out, gp_error_t *err);

/* The accessors below take a result of gp_place() (never NULL); the strings
 * they return belong to r and stay valid until gp_place_result_destroy(r).
 * A result is immutable: any number of threads may read it at once. */

/* The decision's kind. */
gp_place_kind_t gp_place_result_kind(const gp_place_result_t *r);

/* PIN: the chosen nodes; CONSTRAIN: the best set (a Slurm ranged host list,
 * e.g. "gpu[001-008]"); REJECT: "".  Owned by r. */
const char *gp_place_result_nodes(const gp_place_result_t *r);

/* CONSTRAIN: the matching-OR constraint over the domain features
 * `gpuplace conf` writes ("[gpsw_leaf1|gpsw_leaf2]"); else "".  Owned by r. */
const char *gp_place_result_features(const gp_place_result_t *r);

/* Why, for the user: the reason, or what to change for a REJECT.  Owned by r. */
const char *gp_place_result_reason(const gp_place_result_t *r);

/* Predicted step time of the choice in seconds (power cap included);
 * 0 when there is no candidate. */
double gp_place_result_step_s(const gp_place_result_t *r);

/* The whole decision with every candidate's breakdown as one JSON object,
 * the document `gpuplace place --json-out` prints.  Owned by r. */
const char *gp_place_result_json(const gp_place_result_t *r);

/* Free a result; NULL is a no-op. */
void gp_place_result_destroy(gp_place_result_t *r);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLACE_H */
