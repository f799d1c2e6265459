/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * request.h - a job request as the engine sees it (internal).
 *
 * What sbatch already says: total GPUs, node counts, GPUs per node,
 * partition, --exclusive, --nodelist, --exclude, --constraint and the time
 * limit.  Host lists are expanded by libslurm (slurm_hostlist_*), never here.
 *
 * Constraint syntax (Slurm's --constraint, as sbatch(1) documents it):
 *   name            nodes with feature "name"
 *   a&b             AND
 *   a|b             OR
 *   (a|b)&c         parentheses group
 *   [a|b|c]         matching OR: every node of the job must satisfy the
 *                   same one alternative (e.g. one rack)
 * Operators are evaluated left to right with equal precedence, as Slurm
 * evaluates its feature list (a|b&c means (a|b)&c); use parentheses.
 * Not supported, rejected with an error naming the position: node counts
 * (a*2, [a*2&b*4]), a comma (Slurm rejects it too), more than one bracket
 * group, brackets inside parentheses or brackets, '&' directly inside
 * brackets (Slurm requires counts there), more than 64 distinct names.
 */
#ifndef GP_REQUEST_H
#define GP_REQUEST_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"

#define GP_FEATURE_MAX_NAMES 64  /* distinct feature names: one uint64_t mask */
#define GP_FEATURE_MAX_ALTS  64  /* matching-OR alternatives */
#define GP_FEATURE_MAX_TERMS 256 /* names + groups in one expression */

/* One term of a parsed constraint (a flat tree, children by index). */
typedef struct gp_feature_term {
	uint8_t kind;  /* GP_FT_NAME, GP_FT_GROUP, GP_FT_MATCH */
	uint8_t op;    /* how it joins the previous sibling: '&' or '|' (0 for the first) */
	int16_t name;  /* GP_FT_NAME: index into names[] */
	int16_t child; /* first child (GROUP, MATCH), -1 none */
	int16_t next;  /* next sibling, -1 none */
} gp_feature_term_t;

enum { GP_FT_NAME = 1, GP_FT_GROUP = 2, GP_FT_MATCH = 3 };

/* A parsed --constraint.  Allocated by gp__constraint_parse(), freed with
 * gp__constraint_destroy(). */
typedef struct gp_constraint {
	char *text;   /* the expression as given, malloc'd */
	char **names; /* distinct feature names, malloc'd */
	int nnames;
	gp_feature_term_t *terms; /* terms[0] is the root GROUP */
	int nterms;
	int nalts; /* alternatives of the bracket group; 1 if none */
	int match; /* term index of the bracket group, -1 none */
} gp_constraint_t;

/*
 * Parse a Slurm constraint expression.  *out is set to NULL first, then to a
 * new constraint the caller frees with gp__constraint_destroy().  On a syntax
 * error returns GP_EINVAL and err says what is wrong and at which character.
 */
int gp__constraint_parse(const char *expr, gp_constraint_t **out, gp_error_t *err);
void gp__constraint_destroy(gp_constraint_t *k);

/*
 * Bit i of the result is set when the feature string (slurm.conf Features=,
 * comma-separated, may be NULL) contains names[i] of k.
 */
uint64_t gp__constraint_node_mask(const gp_constraint_t *k, const char *features);

/*
 * Evaluate k for a node whose feature mask is fmask (from
 * gp__constraint_node_mask).  alt selects the alternative of the bracket
 * group (0 .. nalts-1); it is ignored when there is none.
 */
bool gp__constraint_eval(const gp_constraint_t *k, uint64_t fmask, int alt);

/* Write alternative alt of the bracket group as text into buf ("" if none). */
void gp__constraint_alt_text(const gp_constraint_t *k, int alt, char *buf, size_t size);

/* ---- the request ------------------------------------------------------ */

typedef struct gp_request {
	int32_t gpus;          /* total GPUs, >= 1 */
	int32_t min_nodes;     /* 0 = any */
	int32_t max_nodes;     /* 0 = any */
	int32_t gpus_per_node; /* 0 = any */
	int32_t partition;     /* index into c->parts, -1 = the default partition */
	bool exclusive;        /* whole nodes: only nodes with nothing allocated */
	int32_t *required;     /* --nodelist node indices, malloc'd, owned by the request */
	int32_t nrequired;
	int32_t *excluded; /* --exclude node indices, malloc'd, owned by the request */
	int32_t nexcluded;
	gp_constraint_t *constraint; /* owned by the request, NULL = none */
	uint32_t time_limit_min;     /* minutes, 0 = the partition's limit */
	/* --segment (Slurm 24.05+, topology/block): nodes per segment, 0 =
	 * none.  On a cluster with blocks every candidate is made of whole
	 * segments, each inside one block; the job needs a fixed node count
	 * (gp__request_nodes) that is a multiple of it, no larger segment than
	 * the base block size, and GPUs spread evenly over its nodes.  Without
	 * blocks (no topology/block) it has no effect, as in Slurm; with
	 * --nodelist it is left to Slurm. */
	int32_t segment_nodes;
} gp_request_t;

/* Set r to an empty request (1 GPU, any node count, default partition). */
void gp__request_init(gp_request_t *r);

/* Free what r owns and re-initialise it.  r itself is the caller's. */
void gp__request_clear(gp_request_t *r);

/* Per node index below nnodes: GP_MARK_A where list a names it, GP_MARK_B
 * where list b does (either list may be NULL or empty); indices outside
 * [0, nnodes) are skipped.  calloc'd (free()), NULL when out of memory.
 * Linear in the lists, so that "is node i in --nodelist / --exclude"
 * costs O(1) where the lists name most of a large cluster (a typed GPU
 * request excludes every node of other types). */
#define GP_MARK_A 1
#define GP_MARK_B 2
uint8_t *gp__node_marks(int32_t nnodes, const int32_t *a, int32_t na, const int32_t *b,
                        int32_t nb);

/*
 * Set --nodelist / --exclude from a Slurm host list ("gpu[001-004],gpu9"),
 * expanded with slurm_hostlist_*.  Every name must be a node of c
 * (GP_ENOENT names the first unknown one); duplicates are folded.
 * Replaces any previous list.
 */
int gp__request_set_required(gp_request_t *r, const gp_cluster_t *c, const char *hostlist,
                             gp_error_t *err);
int gp__request_set_excluded(gp_request_t *r, const gp_cluster_t *c, const char *hostlist,
                             gp_error_t *err);

/* Parse and set --constraint (NULL or "" clears it). */
int gp__request_set_constraint(gp_request_t *r, const char *expr, gp_error_t *err);

/* Set the partition by name (NULL = the default); GP_ENOENT if unknown. */
int gp__request_set_partition(gp_request_t *r, const gp_cluster_t *c, const char *name,
                              gp_error_t *err);

/*
 * Check r against c: positive GPU count, node counts consistent with GPUs
 * and GPUs per node, a node cannot be both required and excluded, the
 * partition exists (or a default one does), the time limit fits the
 * partition, --segment as segment_nodes says.  GP_EINVAL with the detail
 * in err.
 */
int gp__request_check(const gp_request_t *r, const gp_cluster_t *c, gp_error_t *err);

/* The job's fixed node count: gpus / gpus_per_node when GPUs per node
 * are given, else min_nodes when max_nodes is 0 or equal; 0 when the
 * request leaves the node count open. */
int32_t gp__request_nodes(const gp_request_t *r);

/* The partition r resolves to: its index, or -1 when c has no partitions
 * (every node eligible) or r names none and there is no default. */
int32_t gp__request_partition(const gp_request_t *r, const gp_cluster_t *c);

/* ---- topology-domain features ------------------------------------------
 * The node features `gpuplace conf` writes (conf/slurm_emit.h) and the
 * engine names in a CONSTRAIN decision's matching-OR constraint. */
#define GP_FEATURE_SWITCH "gpsw_"
#define GP_FEATURE_NVL "gpnvl_"
#define GP_FEATURE_RACK "gprack_"

/* The feature of a domain: prefix + sanitised name, into buf (len bytes).
 * Returns 0 or GP_ELIMIT when it does not fit. */
int gp__domain_feature(const char *prefix, const char *name, char *buf, size_t len);

/*
 * Which topology domains' features the nodes carry as Slurm needs them.
 * Domains are numbered: switches [0, nswitches), NVLink domains
 * [nswitches, + nnvl), racks [nswitches + nnvl, + nracks).  A domain is
 * named when a decision can name its feature (gp__domain_feature_of: every
 * switch but the root and those of a forest's disconnected tops, every
 * NVLink domain and rack); ok[id] when every node of named domain id, and
 * no other node, lists that feature in its Features (as slurm.conf gives
 * them; slurmctld refuses a constraint that names a feature no node has,
 * and one on other nodes would let the job out of the domain).  Per kind
 * (GP_DOMKIND_*): how many are named, how many of them are not ok, and the
 * first that is not (-1 none).
 */
enum { GP_DOMKIND_SWITCH = 0, GP_DOMKIND_NVL = 1, GP_DOMKIND_RACK = 2, GP_DOMKINDS = 3 };

typedef struct gp_domfeat_check {
	int32_t ndomains;
	bool *ok;                      /* ndomains entries, malloc'd */
	int32_t named[GP_DOMKINDS];
	int32_t missing[GP_DOMKINDS];
	int32_t first_missing[GP_DOMKINDS];
} gp_domfeat_check_t;

/* Fill *out for c (free with gp__domain_features_free).  0 or GP_ENOMEM. */
int gp__domain_features_check(const gp_cluster_t *c, gp_domfeat_check_t *out);
void gp__domain_features_free(gp_domfeat_check_t *out);

/* Domain id's kind (GP_DOMKIND_*), its name, and its feature into buf
 * (len bytes; 0, or non-zero when it has none a decision names: the root,
 * a disconnected top, or a name too long). */
int gp__domain_kind_of(const gp_cluster_t *c, int32_t id);
const char *gp__domain_name_of(const gp_cluster_t *c, int32_t id);
int gp__domain_feature_of(const gp_cluster_t *c, int32_t id, char *buf, size_t len);

#endif /* GP_REQUEST_H */
