/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conf.h - the Slurm-style configuration line reader and the loader
 * context shared by load_slurm.c, load_topology.c, load_gres.c,
 * load_gpuplace.c and load.c (internal, gp__ prefix).
 *
 * Syntax (every file): `#` starts a comment outside double quotes, a
 * trailing `\` continues a line, a line is whitespace-separated Key=Value
 * pairs, keys are case-insensitive, a value may be "double quoted" to hold
 * spaces, and `Include FILE` (relative to the conf dir) reads another file
 * in place.  Every error message has the form "FILE:LINE: Key: message".
 */
#ifndef GP_CONF_H
#define GP_CONF_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"

#define GP_CONF_INCLUDE_DEPTH 16      /* nested Include limit */
#define GP_CONF_MAX_FILE (64 << 20)   /* largest file read, bytes */
#define GP_CONF_MAX_HOSTS (1 << 20)   /* largest expanded host list */
#define GP_CONF_MAX_WARNINGS 1000     /* warnings kept per model, then one "more" */

/* Where a line came from.  path points into a gp__conf_paths pool and stays
 * valid until gp__conf_paths_free(). */
typedef struct gp__conf_loc {
	const char *path;
	int line;
} gp__conf_loc_t;

/* Every path opened while loading one directory (owned by the pool). */
typedef struct gp__conf_paths {
	char **paths;
	int npaths;
} gp__conf_paths_t;

typedef struct gp__conf_kv {
	char *key;              /* as written */
	char *val;              /* quotes removed; "" when empty */
} gp__conf_kv_t;

/* One logical line, valid only during the callback. */
typedef struct gp__conf_line {
	gp__conf_loc_t loc;
	int n;
	gp__conf_kv_t *kv;
} gp__conf_line_t;

/* Called for each logical line; returns 0 or a negative gp_err code with
 * err filled. */
typedef int (*gp__conf_line_fn)(void *arg, const gp__conf_line_t *line,
                                gp_error_t *err);

#define GP_CONF_ABSENT 1        /* gp__conf_read: optional file does not exist */

/*
 * Read dir/name and call fn for each line (Include handled inside).
 * paths: pool the opened paths are added to (caller frees with
 * gp__conf_paths_free).  optional: a missing file returns GP_CONF_ABSENT.
 * Returns 0, GP_CONF_ABSENT, GP_ECONFIG (err filled: "PATH: cannot read:
 * REASON" for a missing or unreadable file, "PATH:LINE: Key: message" for
 * syntax), GP_ENOMEM, or the callback's error.  fn and arg are borrowed.
 */
int gp__conf_read(gp__conf_paths_t *paths, const char *dir, const char *name,
                  bool optional, gp__conf_line_fn fn, void *arg, gp_error_t *err);
void gp__conf_paths_free(gp__conf_paths_t *paths);

/* "path:line: key: message" into err; returns GP_ECONFIG. */
int gp__conf_err(gp_error_t *err, const gp__conf_loc_t *loc, const char *key,
                 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Case-insensitive key test. */
bool gp__conf_is(const gp__conf_kv_t *kv, const char *key);

/* Numbers through gp__parse_*: "'abc' is not a number", "'-1' is negative",
 * "'x' is out of range [min, max]".  key is the spec's spelling. */
int gp__conf_double(const gp__conf_loc_t *loc, const char *key, const char *val,
                    double min, double max, double *out, gp_error_t *err);
int gp__conf_long(const gp__conf_loc_t *loc, const char *key, const char *val,
                  long min, long max, long *out, gp_error_t *err);
/* Copy a string value into buf (size bytes incl. NUL); too long = error.
 * empty_ok false: an empty value is an error. */
int gp__conf_str(const gp__conf_loc_t *loc, const char *key, const char *val,
                 char *buf, size_t size, bool empty_ok, gp_error_t *err);

/* Expand a Slurm host list with slurm_hostlist_*; fn gets each name
 * (borrowed for the call).  Names longer than GP_NAME_MAX-1 are errors. */
typedef gp__host_fn gp__conf_host_fn;
int gp__conf_hostlist(const gp__conf_loc_t *loc, const char *key, const char *list,
                      gp__conf_host_fn fn, void *arg, gp_error_t *err);

/* Expand a host list into node indices of c (indexed).  *out is malloc'd,
 * caller frees; unknown node -> "unknown node 'x'".  Duplicates in the
 * list are kept once. */
int gp__conf_nodes(const gp_cluster_t *c, const gp__conf_loc_t *loc,
                   const char *key, const char *list, int32_t **out,
                   int32_t *n, gp_error_t *err);

/* Record a warning in c (formatted); returns 0 or GP_ENOMEM.  After
 * GP_CONF_MAX_WARNINGS one last "more than N warnings" entry is kept and
 * the rest are dropped. */
int gp__cluster_warnf(gp_cluster_t *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- the loader context ------------------------------------------------ */

typedef struct gp__load_switch {
	gp__conf_loc_t loc;
	char *switches;         /* Switches= as written, NULL if absent */
	gp__conf_loc_t switches_loc;
	char *nodes;            /* Nodes= as written, NULL if absent */
	gp__conf_loc_t nodes_loc;
} gp__load_switch_t;

typedef struct gp__load_part {
	gp__conf_loc_t loc;
	char *nodes;            /* Nodes= as written, NULL if absent */
} gp__load_part_t;

typedef struct gp__load_telemetry {
	gp__conf_loc_t loc;
	char *racks;            /* Racks= as written */
	char *nodes;            /* Nodes= as written */
	bool stale_set;
} gp__load_telemetry_t;

typedef struct gp__load {
	gp_cluster_t *c;        /* the model being built */
	const char *dir;
	gp__conf_paths_t paths;

	/* slurm.conf */
	gp__conf_loc_t *node_loc;       /* per node: its NodeName line */
	char (*node_type)[GP_NAME_MAX]; /* per node: gres gpu TYPE, "" untyped */
	int32_t node_cap;
	gp__load_part_t *part;          /* per partition (cluster nparts) */

	/* topology.conf */
	bool has_topology;
	gp__load_switch_t *sw;          /* per switch read from the file */
	int32_t nsw;                    /* entries of sw (no synthetic root) */

	/* gres.conf */
	gp_gres_layout_t *gres;         /* per node, NULL without gres.conf */
	gp__conf_loc_t *gres_loc;       /* per node: first gres line naming it */

	/* gpuplace.conf */
	char default_profile[GP_NAME_MAX];
	gp__conf_loc_t default_profile_loc;
	double *nic_gbps;               /* per node, < 0 = default */
	double *nvl_gbps;               /* per domain, < 0 = default */
	gp__load_telemetry_t *tel;      /* per telemetry entry */
	gp__conf_loc_t *rack_loc;       /* per rack, its line */
	gp__conf_loc_t *nvl_loc;        /* per domain, its line */
} gp__load_t;

int gp__load_slurm(gp__load_t *ld, gp_error_t *err);
int gp__load_topology(gp__load_t *ld, gp_error_t *err);
int gp__load_gres(gp__load_t *ld, gp_error_t *err);
int gp__load_gpuplace(gp__load_t *ld, gp_error_t *err);

/* realloc *(void **)arrp to nelem elements of sz bytes; 0 or GP_ENOMEM
 * (then *arrp is unchanged).  New elements are zeroed from old_nelem on. */
int gp__resize(void *arrp, size_t old_nelem, size_t nelem, size_t sz);
/* Make room for element n of an array that holds n elements and only ever
 * grows through this function (capacity doubles at powers of two, so n
 * appends cost O(n)); new elements are zeroed.  0 or GP_ENOMEM. */
int gp__grow(void *arrp, size_t n, size_t sz);

#endif /* GP_CONF_H */
