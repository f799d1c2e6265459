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

/* A configuration file held in memory: name as Include and the loaders
 * name it ("slurm.conf", "racks.conf"; read as DIR/name), text of len
 * bytes (need not be NUL-terminated).  Both borrowed. */
typedef struct gp__conf_memfile {
	const char *name;
	const char *text;
	size_t len;
} gp__conf_memfile_t;

/* Every path opened while loading one directory (owned by the pool).
 * mem/nmem, when set, replace the file system: a file is read from the
 * entry whose DIR/name equals its path, and any other path is missing
 * (borrowed; for fuzzing and tests, see gp__cluster_load_conf_mem). */
typedef struct gp__conf_paths {
	char **paths;
	int npaths;
	const gp__conf_memfile_t *mem;
	int nmem;
	const char *mem_dir;
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
/* gp__conf_read() for the files Slurm reads (slurm.conf, topology.conf,
 * gres.conf): a key given twice on one line is a warning recorded in warn
 * and the last value is used, as Slurm does (parse_config.c: "specified
 * more than once, latest value used"); gp__conf_read() makes it an error.
 * warn may be NULL only when no warning is wanted (the last value is used
 * silently then; slurm_emit.c). */
int gp__conf_read_slurm(gp__conf_paths_t *paths, const char *dir, const char *name,
                        bool optional, gp_cluster_t *warn, gp__conf_line_fn fn, void *arg,
                        gp_error_t *err);
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

typedef struct gp__load_block {
	gp__conf_loc_t loc;     /* its BlockName line (topology.yaml: "block:") */
	char *nodes;            /* Nodes= as written, NULL if absent */
	gp__conf_loc_t nodes_loc;
} gp__load_block_t;

typedef struct gp__load_part {
	gp__conf_loc_t loc;
	char *nodes;            /* Nodes= as written, NULL if absent */
	char *topology;         /* Topology= (Slurm 25.05+) as written, NULL if absent */
} gp__load_part_t;

/* A topology of topology.yaml: its name, kind and whether the model holds it. */
typedef struct gp__load_topo {
	char name[GP_NAME_MAX];
	const char *kind;       /* "tree", "block", "flat", "ring", "torus3d" (static) */
	int line;
	bool modelled;
	bool cluster_default;   /* cluster_default: true */
} gp__load_topo_t;

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
	bool *gpus_off;                 /* per node: more GPUs than the model holds,
	                                 * modelled without them (gres.conf skips it) */
	int32_t node_cap;
	gp__load_part_t *part;          /* per partition (cluster nparts) */

	/* topology.conf or topology.yaml (load_topology.c, load_yaml.c) */
	bool has_topology;
	const char *topo_path;          /* the file read (in paths), NULL if none */
	bool topo_yaml;                 /* it is topology.yaml */
	gp__load_topo_t *topos;         /* topology.yaml: every topology */
	int ntopos;
	gp__nametab_t sw_names, blk_names; /* switch / block name -> index */
	gp__load_switch_t *sw;          /* per switch read from the file */
	int32_t nsw;                    /* entries of sw (no synthetic root) */
	gp__conf_loc_t tree_loc;        /* first switch line, line 0 = none */
	gp__load_block_t *blk;          /* per block (cluster nblocks) */
	gp__conf_loc_t block_loc;       /* first block line, line 0 = none */
	long bsizes[GP_MAX_BLOCK_LEVELS + 1]; /* BlockSizes values as written */
	gp__conf_loc_t bsizes_loc[GP_MAX_BLOCK_LEVELS + 1];
	int nbsizes;
	const char *bsizes_key;         /* "BlockSizes", "BlockLevels", "block_sizes"; NULL = none */
	uint32_t blevels;               /* BlockLevels (Slurm 23.11) as a level mask */

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
	int block_nvl;                  /* BlockNVLinkDomains: -1 not given, 0 no, 1 yes */
	gp__conf_loc_t block_nvl_loc;
} gp__load_t;

/* gp_cluster_load_conf_dir() over files held in memory instead of the
 * file system: dir is only the name the files are known by (in messages
 * and in the model's conf_dir), files[0..n-1] the directory's content;
 * nothing is read from disk (an Include of any other name is a missing
 * file).  Same results, ownership and errors as the directory loader.
 * For fuzzing (tests/fuzz/) and tests. */
int gp__cluster_load_conf_mem(const char *dir, const gp__conf_memfile_t *files, int n,
                              gp_cluster_t **out, gp_error_t *err);

int gp__load_slurm(gp__load_t *ld, gp_error_t *err);
int gp__load_topology(gp__load_t *ld, gp_error_t *err);
/* topology.yaml at path (already in ld->paths): fills ld->sw / ld->blk and
 * the block sizes as topology.conf's reader does (load_yaml.c). */
int gp__load_topology_yaml(gp__load_t *ld, const char *path, gp_error_t *err);
/* The topology builder (topo_build.c), shared by both readers: the empty
 * tree and node order; then, once a reader has added what it found, the
 * model's blocks and switch tree; and, after topology.yaml, what its
 * partitions' Topology= means for them. */
int gp__topo_init(gp__load_t *ld, gp_error_t *err);
int gp__topo_resolve(gp__load_t *ld, gp_error_t *err);
int gp__topo_partitions(gp__load_t *ld, gp_error_t *err);
/* Append a switch / block entry named name read at loc (shared by both
 * readers); *idx is its index.  0 or GP_ECONFIG (empty, too long or
 * duplicate name) / GP_ENOMEM. */
int gp__topo_add_switch(gp__load_t *ld, const gp__conf_loc_t *loc, const char *key,
                        const char *name, int32_t *idx, gp_error_t *err);
int gp__topo_add_block(gp__load_t *ld, const gp__conf_loc_t *loc, const char *key,
                       const char *name, int32_t *idx, gp_error_t *err);
/* Store a switch's or block's member list (copied) for the resolve step. */
int gp__topo_set_list(char **dst, gp__conf_loc_t *dst_loc, const gp__conf_loc_t *loc,
                      const char *val, gp_error_t *err);
/* One BlockSizes value (a node count) read at loc under key. */
int gp__topo_add_block_size(gp__load_t *ld, const gp__conf_loc_t *loc, const char *key,
                            const char *val, gp_error_t *err);
/* Add path to the pool; returns the pooled copy or NULL (out of memory). */
const char *gp__conf_pool_add(gp__conf_paths_t *pool, const char *path);
/* Whole regular file path into a NUL-terminated malloc'd buffer (the
 * bounded reader every loader uses); 0 or an errno value (EINVAL: not a
 * regular file, EFBIG: above GP_CONF_MAX_FILE). */
/* gp__conf_slurp through the pool: its in-memory files when it has
 * them (gp__cluster_load_conf_mem), else the file system; and whether
 * path exists there. */
int gp__conf_pool_slurp(const gp__conf_paths_t *pool, const char *path, char **out, size_t *len);
bool gp__conf_pool_exists(const gp__conf_paths_t *pool, const char *path);
int gp__conf_slurp(const char *path, char **out, size_t *len);
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
