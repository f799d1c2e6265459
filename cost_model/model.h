/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model.h - the cluster model and state as the engine sees them (internal).
 *
 * This is the contract every module reads: the loaders (conf files, JSON)
 * fill it, the cost model, power model, engine, simulator and plugin read
 * it.  A loaded gp_cluster is immutable; objects refer to each other by
 * index (int32_t, -1 = none) into the arrays of the cluster, never by
 * pointer, so a model can be copied, saved and shared between threads.
 *
 * Memory: every array below is malloc'd and owned by the gp_cluster; it is
 * released only by gp_cluster_destroy().  Names are fixed-size arrays so a
 * node costs no separate allocation (16k-node models stay compact).
 *
 * Units: bandwidth in GB/s (10^9 bytes per second, unidirectional per
 * direction of a link), latency in microseconds, power in watts unless the
 * field name says kW, time in seconds since the Unix epoch.
 */
#ifndef GP_MODEL_H
#define GP_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuplace.h"

#define GP_NAME_MAX 64           /* node, switch, rack, ... names incl. NUL */
/* GPUs (GRES gpu devices, MIG slices included) one node model holds.
 * Slurm sets no such limit; the model's GPU bitmasks are uint32_t, so 32.
 * Nodes with more than 16 exist as published (10-GPU PCIe chassis in
 * pairs, 8 A100 split into 1g MIG slices by fours); a node beyond 32 is
 * kept with its GPUs left to Slurm (conf/load_slurm.c). */
#define GP_MAX_GPUS_PER_NODE 32
#define GP_MAX_LEVELS 8          /* fabric levels: 0 = node<->leaf links */
/* Partitions the model holds: Slurm sets no limit (condo clusters publish
 * one partition per owning group, hundreds of them); membership is a
 * bitmap of nnodes x ceil(nparts / 64) words (gp_cluster.part_bits), so
 * 4096 partitions on 16k nodes cost 8 MB.  Partitions beyond it are left
 * to Slurm with a warning (conf/load_slurm.c). */
#define GP_MAX_PARTITIONS 4096
#define GP_PATH_MAX 1024

/* ---- static facts ---------------------------------------------------- */

/* A GPU model, keyed by the gres type written in slurm.conf (gpu:TYPE:N).
 * gpuplace.conf: GpuProfile=NAME TFLOPS= HBMGBps= NVLinkGBps= TDPWatts=
 * IdleWatts= [MinCapWatts=] [PCIeGen=] [PCIeP2P=yes|no] */
typedef struct gp_gpu_profile {
	char name[GP_NAME_MAX];
	double tflops_bf16;     /* dense bf16 TFLOP/s */
	double hbm_gbps;        /* HBM bandwidth, GB/s */
	double nvlink_gbps;     /* NVLink bandwidth per GPU per direction; 0 = no NVLink */
	double tdp_w;           /* board power limit at full speed, W */
	double idle_w;          /* idle power, W */
	double min_cap_w;       /* lowest settable power cap, W (0 = tdp_w/2) */
	int32_t pcie_gen;       /* PCIeGen= host link generation (3, 4, 5, 6); 0 = by GPU generation */
	/* PCIeP2P=no: GPUs of this type cannot reach each other by PCIe
	 * peer-to-peer (consumer boards, VMs whose hypervisor blocks it), so
	 * their GPU-to-GPU traffic without NVLink is staged through host
	 * memory and shares the node's host path (cost.c, HOST_STAGE_FRAC) */
	bool no_pcie_p2p;
} gp_gpu_profile_t;

/* The GPU layout inside one node model, shared by all nodes that have the
 * same gres.conf lines (deduplicated by the loader). */
typedef struct gp_gres_layout {
	int ngpus;
	/* gres.conf Links= semantics: links[i][j] = -1 for i == j, 0 no direct
	 * NVLink, n > 0 number of NVLinks between GPU i and GPU j. */
	int8_t links[GP_MAX_GPUS_PER_NODE][GP_MAX_GPUS_PER_NODE];
	bool has_links;         /* Links= given (else derived from the profile) */
	/* NVLink island (connected component of links > 0) of each GPU, 0-based;
	 * without Links=: one island of all GPUs when the GPU profile has NVLink
	 * (NVSwitch node), else one island per GPU (PCIe). */
	uint8_t island[GP_MAX_GPUS_PER_NODE];
	int nislands;
	char cores[GP_MAX_GPUS_PER_NODE][32]; /* gres.conf Cores= as written, "" if none */
} gp_gres_layout_t;

/* Node state flags (also used in gp_state). */
enum {
	GP_NODE_UP = 0,
	GP_NODE_DOWN = 1u << 0,
	GP_NODE_DRAIN = 1u << 1,
	GP_NODE_RESERVED = 1u << 2,
	/* with GP_NODE_DOWN: down for now only (not responding, its state not
	 * yet known after slurmctld restarted, rebooting, powering down):
	 * slurmctld waits for it, and marks it DOWN if it does not come back */
	GP_NODE_NORESP = 1u << 3,
};

typedef struct gp_node {
	char name[GP_NAME_MAX];
	int32_t ngpus;          /* from slurm.conf Gres=gpu[:TYPE]:N */
	int32_t profile;        /* index into profiles, -1 = unknown GPU type */
	int32_t layout;         /* index into layouts, -1 = no gres.conf lines */
	int32_t leaf;           /* index of the lowest switch listing it, -1 = none */
	int32_t rack;           /* index into racks, -1 = none */
	int32_t nvl_domain;     /* cross-node NVLink domain, -1 = none */
	int32_t block;          /* topology/block base block, -1 = none */
	int32_t rails;          /* scale-out NICs (rails), gpuplace.conf Rails= */
	double nic_gbps;        /* per-NIC bandwidth, GB/s */
	double base_w;          /* node power without GPUs (rack NodeBaseWatts) */
	uint32_t weight;        /* slurm.conf Weight (default 1) */
	int32_t cpus;           /* CPUs (or Sockets*CoresPerSocket*ThreadsPerCore) */
	int64_t real_memory_mb; /* RealMemory */
	char *features;         /* slurm.conf Features/Feature as written, malloc'd, may be NULL */
	/* slurm.conf Gres GPU entries with a type, as "TYPE:N[,TYPE:N...]" in
	 * slurm.conf order (entries of one type summed), malloc'd; NULL when
	 * untyped.  Several entries = a node of mixed GPU types: profile is
	 * then the type with the most GPUs (the first of equals).  Partition
	 * membership: gp__node_in_part(). */
	char *gpu_types;
	uint32_t order;         /* position in Slurm's node order (slurm.conf order) */
} gp_node_t;

/* topology.conf SwitchName line. The tree is rooted: a forest in
 * topology.conf (no top switch) gets a synthetic root named "(top)" with
 * disconnected = true, meaning jobs cannot span its children. */
typedef struct gp_switch {
	char name[GP_NAME_MAX];
	int32_t parent;         /* -1 = the root */
	int32_t level;          /* 0 = leaf (holds nodes); parent = 1 + max(children) */
	int32_t *children;      /* switch indices, malloc'd */
	int32_t nchildren;
	int32_t *nodes;         /* node indices directly under it, malloc'd */
	int32_t nnodes;
	/* All nodes in the subtree are node_order[first .. first+count-1] of the
	 * cluster (a DFS order), so subtree membership is a range check. */
	int32_t first;
	int32_t count;
	double link_speed;      /* LinkSpeed as written (Slurm: site units), 0 if absent */
	bool disconnected;      /* synthetic root over a forest */
} gp_switch_t;

/* Per-level fabric facts from gpuplace.conf:
 * FabricLevel=N LinkGBps= Oversubscription= LatencyUs=
 * Level 0 describes the node<->leaf links (the NICs), level L >= 1 the links
 * from level L-1 switches up into level L switches; oversub is the
 * downlink:uplink bandwidth ratio of the switches at level L-1 (1.0 = full
 * fat-tree, 2.0 = 2:1). */
/* Inter-node transports (FabricLevel=0 Transport=). */
typedef enum gp_transport {
	GP_NET_IB = 0,          /* InfiniBand verbs, GPUDirect RDMA */
	GP_NET_ROCE = 1,        /* RoCE v2 verbs, GPUDirect RDMA */
	GP_NET_TCP = 2,         /* kernel TCP sockets (NCCL NET/Socket) */
	GP_NET_EFA = 3,         /* AWS EFA through libfabric with GPUDirect RDMA (p4d, p5) */
	GP_NET_OFFLOAD = 4,     /* vendor offload NIC without GPUDirect RDMA (host-staged) */
	GP_NET_NTRANSPORTS = 5,
} gp_transport_t;

typedef struct gp_fabric_level {
	double link_gbps;
	double oversub;
	double latency_us;      /* per hop through this level */
	bool set;               /* given in gpuplace.conf */
	/* level 0 only (the NICs): the transport and its constants, 0 = the
	 * transport's default (cost.c, gpuplace.conf(5)) */
	int32_t transport;      /* gp_transport_t, Transport= */
	double step_us;         /* NetStepUs: cost of one inter-node step */
	double net_eff;         /* NetEfficiency: reached fraction of the NIC line rate */
	double fill_us;         /* NetFillUs: Simple-protocol pipeline fill between nodes */
	double fill_level_us;   /* NetFillLevelUs: fill added per doubling of the node count */
} gp_fabric_level_t;

/* NVLink domain spanning nodes (NVL72 rack): NVLinkDomain=NAME Nodes=LIST
 * [GBps=per-GPU bandwidth, default the GPU profile's nvlink_gbps] */
typedef struct gp_nvl_domain {
	char name[GP_NAME_MAX];
	int32_t *nodes;
	int32_t nnodes;
	int32_t ngpus;
	double gbps_per_gpu;
} gp_nvl_domain_t;

/* A base block of Slurm's topology/block (topology.conf BlockName=NAME
 * Nodes=LIST, or a topology.yaml block section), in file order: Slurm
 * aggregates consecutive blocks into the higher block levels.  Unless
 * gpuplace.conf says otherwise (NVLinkDomain lines, BlockNVLinkDomains=no)
 * every block is also a cross-node NVLink domain of the model. */
typedef struct gp_block {
	char name[GP_NAME_MAX];
	int32_t *nodes;
	int32_t nnodes;
} gp_block_t;

/* Slurm's limit on block levels (MAX_BLOCK_LEVELS = 16 in
 * src/plugins/topology/block/block_record.h, 24.05 .. 26.05): an aggregated
 * block holds at most 2^15 base blocks. */
#define GP_MAX_BLOCK_LEVELS 16

/* Rack=NAME Nodes=LIST PowerCapKW= CoolingKW= NodeBaseWatts= */
typedef struct gp_rack {
	char name[GP_NAME_MAX];
	int32_t *nodes;
	int32_t nnodes;
	double power_cap_kw;
	double cooling_kw;
	double node_base_w;
} gp_rack_t;

/* PartitionName line of slurm.conf. */
typedef struct gp_partition {
	char name[GP_NAME_MAX];
	int32_t *nodes;
	int32_t nnodes;
	bool is_default;
	bool up;
	uint32_t max_time_min;  /* UINT32_MAX = INFINITE */
	/* Why gpuplace leaves this partition's jobs to Slurm ("topology
	 * 'eth' is flat, placed by Slurm"), malloc'd; NULL = gpuplace places
	 * them.  Set by the loader when the part of the model they need is
	 * switched off (conf/topo_build.c); the plugin passes such a job
	 * unchanged with this reason. */
	char *slurm_only;
	/* Its jobs are placed by a topology of topology.yaml other than the
	 * block one (its Topology=, or the cluster default where it names
	 * none; conf/topo_build.c): Slurm's topology/block rules (one block
	 * per job, required nodes inside one block) do not bind them. */
	bool no_blocks;
} gp_partition_t;

/* Storage=NAME Scope=node|rack|cluster WriteGBps= [ReadGBps=] [Nodes=LIST]
 * write_gbps is per node (scope node), per rack (scope rack) or aggregate
 * (scope cluster). nodes == NULL means every node reaches it. */
typedef enum gp_scope {
	GP_SCOPE_NODE = 0,
	GP_SCOPE_RACK = 1,
	GP_SCOPE_CLUSTER = 2,
} gp_scope_t;

typedef struct gp_storage {
	char name[GP_NAME_MAX];
	gp_scope_t scope;
	double write_gbps;
	double read_gbps;
	int32_t *nodes;         /* NULL = all nodes */
	int32_t nnodes;
} gp_storage_t;

/* Telemetry=NAME Type=prometheus|redfish|file URL= (or Path= for file)
 * [Query=] [RackLabel=] [Racks=LIST] [Nodes=LIST] [Interval=s] [Timeout=s]
 * [Stale=s] [AuthType=none|bearer|basic] [AuthFile=] [CAFile=] */
typedef enum gp_telemetry_kind {
	GP_TELEMETRY_PROMETHEUS = 0,
	GP_TELEMETRY_REDFISH = 1,
	GP_TELEMETRY_FILE = 2,
} gp_telemetry_kind_t;

typedef enum gp_auth_kind {
	GP_AUTH_NONE = 0,
	GP_AUTH_BEARER = 1,
	GP_AUTH_BASIC = 2,
} gp_auth_kind_t;

typedef struct gp_telemetry {
	char name[GP_NAME_MAX];
	gp_telemetry_kind_t kind;
	char url[GP_PATH_MAX];      /* URL, or file path for kind file */
	char query[GP_PATH_MAX];    /* Prometheus PromQL, "" otherwise */
	char rack_label[GP_NAME_MAX]; /* Prometheus label naming the rack ("rack") */
	int32_t *racks;             /* redfish: racks whose PDU this URL measures */
	int32_t nracks;
	int32_t *nodes;             /* redfish: nodes whose chassis this URL measures */
	int32_t nnodes;
	double interval_s;          /* default 10 */
	double timeout_s;           /* default 2 */
	double stale_s;             /* default 60 */
	gp_auth_kind_t auth;
	char auth_file[GP_PATH_MAX];
	char ca_file[GP_PATH_MAX];
} gp_telemetry_t;

/* Site-wide settings from gpuplace.conf top-level keys (defaults in
 * parentheses; every default is documented in gpuplace.conf(5)). */
typedef struct gp_site {
	double default_grad_bytes;      /* DefaultGradientBytes: all-reduce size of a job without hints */
	double node_failures_per_1k_days; /* NodeFailureRate: failures per 1,000 node-days */
	double power_margin;            /* PowerMargin: fraction of a rack cap kept free */
	double telemetry_stale_s;       /* TelemetryStale: default staleness limit */
	double restart_s;               /* RestartSeconds: restart time after a failure
	                                 * before the checkpoint read, s */
	/* PowerHres: the name of the Slurm hierarchical resource (resources.yaml,
	 * MODE_3, Slurm 25.11+) that holds the racks' power budget; every GPU
	 * job then asks per node for its GPUs' watts over idle (power/hres.c).
	 * "" = none (the default). */
	char power_hres[GP_NAME_MAX];
	/* PowerLicenses: the prefix of the cluster licenses (slurm.conf
	 * Licenses=, every Slurm release) that hold the racks' power budget,
	 * one named PREFIX_RACK per rack; every GPU job gpuplace does not pin
	 * or constrain across racks is then kept to one rack and asks for its
	 * GPUs' watts over idle there (power/lic.c).  "" = none (the default). */
	char power_lic[GP_NAME_MAX];
} gp_site_t;

/* Name -> index table (cost_model/names.c): FNV-1a, open addressing,
 * case-sensitive or not, growing as names are added; names are copied.
 * The one table behind every lookup by name (nodes, loaders, JSON). */
typedef struct gp__nametab {
	char **names;           /* owned copies */
	int32_t *idx;
	uint32_t size;          /* power of two */
	uint32_t used;
	bool nocase;
} gp__nametab_t;

int gp__nametab_init(gp__nametab_t *t, bool nocase);
/* Add name -> i (name copied); returns 0 or
 * GP_ENOMEM.  *dup = index already stored under that name (then nothing is
 * added), else -1. */
int gp__nametab_add(gp__nametab_t *t, const char *name, int32_t i, int32_t *dup);
/* The index stored under name, -1 when absent (or t never initialised). */
int32_t gp__nametab_find(const gp__nametab_t *t, const char *name);
/* Store i under name, which must be in t already (a loader marks a name
 * whose line it dropped); 0, or GP_ENOENT when name is not in t. */
int gp__nametab_set(gp__nametab_t *t, const char *name, int32_t i);
/* Free what t owns; t may be zeroed or freed already. */
void gp__nametab_free(gp__nametab_t *t);

struct gp_cluster {
	char name[GP_NAME_MAX];          /* slurm.conf ClusterName */
	char conf_dir[GP_PATH_MAX];      /* where it was loaded from ("" for JSON) */

	gp_gpu_profile_t *profiles;  int32_t nprofiles;
	gp_gres_layout_t *layouts;   int32_t nlayouts;
	gp_node_t *nodes;            int32_t nnodes;
	gp_switch_t *switches;       int32_t nswitches;
	int32_t root;                    /* root switch index, -1 if no topology */
	int32_t nlevels;                 /* switch levels (leaf = 0 .. root level) */
	int32_t *node_order;             /* DFS order of nodes under the root (nnodes) */
	int32_t *node_pos;               /* inverse: node index -> position in node_order */
	gp_fabric_level_t levels[GP_MAX_LEVELS];
	gp_nvl_domain_t *nvl;        int32_t nnvl;
	gp_block_t *blocks;          int32_t nblocks;
	int32_t block_base;              /* base block size in nodes (BlockSizes' first value), 0 = no blocks */
	uint32_t block_levels;           /* bit L: level of 2^L base blocks that Slurm enforces (bit 0 = the base) */
	bool tree_from_blocks;           /* the switches are the aggregated block levels */
	gp_rack_t *racks;            int32_t nracks;
	gp_partition_t *parts;       int32_t nparts;
	/* partition membership: bit q of part_bits[i * part_words + q / 64] =
	 * node i is in parts[q] (gp__cluster_finish builds it) */
	uint64_t *part_bits;         int32_t part_words;
	gp_storage_t *storage;       int32_t nstorage;
	gp_telemetry_t *telemetry;   int32_t ntelemetry;
	gp_site_t site;

	/* slurm.conf's SchedulerParameters values in file order (malloc'd),
	 * each with where it was read ("path:line: SchedulerParameters"): the
	 * site's policy is parsed from them (gp__policy_site), so that no
	 * decision reads a file after the model is loaded */
	char **sched_params;
	char **sched_params_src;
	int32_t nsched_params;

	/* Loader warnings (e.g. a node listed under two switches), malloc'd
	 * strings; read with gp_cluster_warning_count()/gp_cluster_warning(). */
	char **warnings;
	int32_t nwarnings;

	/* node name -> index, built by gp__cluster_index() */
	gp__nametab_t node_index;
};

/* ---- dynamic state ---------------------------------------------------- */

/* A running job as the state knows it. */
typedef struct gp_job_alloc {
	uint32_t job_id;
	int64_t end_time;         /* expected end (start + time limit), epoch s */
	int32_t *nodes;           /* node indices, malloc'd */
	uint32_t *gpu_mask;       /* per node: bit g = GPU g of that node is this job's */
	int32_t nnodes;
	double load;              /* expected GPU power fraction of TDP (0..1], default 1 */
} gp_job_alloc_t;

typedef struct gp_rack_power {
	double measured_w;        /* last measured draw, W; < 0 = never measured */
	int64_t sample_time;      /* epoch s of that sample; 0 = none */
	char source[GP_NAME_MAX]; /* telemetry name that produced it */
} gp_rack_power_t;

struct gp_state {
	int64_t time;             /* snapshot time, epoch s */
	int32_t nnodes;           /* == cluster nnodes */
	uint32_t *node_flags;     /* GP_NODE_* per node */
	uint32_t *alloc_mask;     /* per node: bit g = GPU g allocated */
	gp_job_alloc_t *jobs;
	int32_t njobs;
	gp_rack_power_t *rack_power; /* per rack (cluster nracks) */
	int32_t nracks;
};

/* ---- internal helpers shared by modules (gp__ prefix, not exported) ---- */

/* Write a formatted message into err (if not NULL); returns code. */
int gp__errorf(gp_error_t *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Strict number parsing: the whole string must be a number in [min, max].
 * Returns 0 or GP_EINVAL (not a number) / GP_ERANGE (out of range). */
int gp__parse_long(const char *s, long min, long max, long *out);
int gp__parse_double(const char *s, double min, double max, double *out);

/* Node lookup by name (after gp__cluster_index()); -1 if absent. */
int32_t gp__node_find(const gp_cluster_t *c, const char *name);
/* Build the node name index; 0 or GP_ENOMEM. */
int gp__cluster_index(gp_cluster_t *c);

/* Would Slurm's topology/block start a job on exactly nodes[0..n-1] as
 * its required nodes?  As eval_nodes_block.c (24.11 .. 25.11): with
 * segment (nodes per --segment, 0 = none) or else the job's n nodes
 * spanning ceil(that / base block) base blocks, the base blocks are
 * grouped by that many in file order and every required node must lie in
 * one group ("requires nodes that do not have shared block"), so a job no
 * larger than a base block lies in one.  With several segments (segment <
 * n: Slurm 25.11 and later take required nodes then; the plugin refuses
 * them before) each segment lies in one group: every group holds a whole
 * number of segments of the required nodes.  True on a cluster without
 * blocks. */
bool gp__block_pin_ok(const gp_cluster_t *c, const int32_t *nodes, int32_t n, int32_t segment);

/* ---- shared helpers (base layer) ------------------------------------- */

/* Flags of gp__file_read(). */
#define GP_FILE_STDIN   1u  /* "-" reads standard input */
#define GP_FILE_REGULAR 2u  /* only a regular file (a FIFO, directory or
                             * device is refused without blocking) */

/* A whole file read by gp__file_read(). */
typedef struct gp__file {
	char *buf;              /* malloc'd, NUL-terminated, the caller frees */
	size_t len;             /* bytes read (a NUL inside is the caller's concern) */
	double mtime;           /* modification time, epoch s; 0 for stdin */
	int sys_errno;          /* on failure the errno: ENOENT, EACCES, ...,
	                         * EFBIG (larger than max), EINVAL (not a regular
	                         * file with GP_FILE_REGULAR), ENOMEM; 0 = none */
} gp__file_t;

/*
 * The one bounded whole-file reader (cost_model/fileio.c): path into
 * out->buf, at most max bytes (a larger file is refused, not truncated).
 * Returns 0, or GP_EIO (cannot open or read: "PATH: strerror"), GP_ELIMIT
 * ("PATH: larger than MAX bytes"), GP_EINVAL ("PATH: not a regular file")
 * or GP_ENOMEM, with out->buf NULL and out->sys_errno set.
 */
int gp__file_read(const char *path, size_t max, unsigned flags, gp__file_t *out,
                  gp_error_t *err);

/* Longest text gp__double_str() writes, with its NUL. */
#define GP_DOUBLE_STR 32
/* The shortest of %.15g, %.16g, %.17g that reads back as exactly v
 * (cost_model/number.c), into buf (GP_DOUBLE_STR bytes); returns buf.
 * Callers decide what a non-finite v prints as; here it is %g's. */
const char *gp__double_str(char buf[GP_DOUBLE_STR], double v);

/* Host-list callback: name is borrowed for the call; non-zero stops. */
typedef int (*gp__host_fn)(void *arg, const char *name, gp_error_t *err);

/* Whether host list `list' names at most max hosts, counted without
 * expanding it (libslurm builds every range first: "n[0-88000000000]" kept
 * it busy for minutes); false too for a bracket holding anything but
 * digits, '-' and ',' (gp__hostlist_junk), which libslurm reads as ranges. */
bool gp__hostlist_within(const char *list, unsigned long long max);

/* The first character in a bracket of list that is not a digit, '-' or
 * ',', NULL for none. */
const char *gp__hostlist_junk(const char *list);

/*
 * The one host-list expander (cost_model/hostlist.c), libslurm's
 * slurm_hostlist_*: fn(arg, name) for every host of list in order.  Every
 * caller checks the same way: an empty list, brackets libslurm passed
 * through unbalanced, a quote or comma left inside a name ("'LIST' is not a
 * valid host list"), a name of GP_NAME_MAX characters or more, more than
 * max hosts.  Messages start with what ("gpuplace.conf:3: Nodes",
 * "--nodelist"); codes GP_EINVAL / GP_ELIMIT / GP_ENOMEM, or fn's.
 */
int gp__hostlist_each(const char *what, const char *list, int32_t max, gp__host_fn fn,
                      void *arg, gp_error_t *err);

/*
 * Node indices of c for the hosts of list (gp__hostlist_each), in list
 * order with duplicates folded.  A name that is no node of c is GP_ENOENT
 * "WHAT: unknown node 'NAME'".  *out is malloc'd (the caller frees; NULL
 * when *n is 0).
 */
int gp__hostlist_nodes(const gp_cluster_t *c, const char *what, const char *list, int32_t max,
                       int32_t **out, int32_t *n, gp_error_t *err);

/* The ranged form ("n[1-4],m7", libslurm's) of names[0..n-1] in that
 * order, and of the nodes idx[0..n-1] of c: malloc'd, NULL when out of
 * memory.  The one compressor (cost_model/hostlist.c). */
char *gp__hostlist_ranged_names(char *const *names, int32_t n);
char *gp__nodes_ranged(const gp_cluster_t *c, const int32_t *idx, int32_t n);

/* Allocate an empty cluster (all counts 0, root -1, site defaults set). */
gp_cluster_t *gp__cluster_new(void);

/* Derive everything both loaders derive the same way (conf/finish.c):
 * the name hash (duplicate names are an error), node rack / NVLink domain /
 * partitions / leaf from the object node lists, switch parents from the
 * child lists, the root (a synthetic disconnected "(top)" over several top
 * switches), levels, nlevels, the DFS node order with every switch's
 * [first, first+count) range, NVLink domain GPU counts, and GPU layout
 * islands.  Call after the lists are filled; 0 or a gp_err code with the
 * detail in err.  Safe to call again. */
int gp__cluster_finish(gp_cluster_t *c, gp_error_t *err);

/* gp_cluster_load_json() on a document in memory (buf[len] must be '\0');
 * name is used in error messages.  Same ownership as gp_cluster_load_json. */
int gp__cluster_load_json_buf(const char *name, const char *buf, size_t len,
                              gp_cluster_t **out, gp_state_t **state_out, gp_error_t *err);

/* c->part_bits from the partitions' node lists (which must hold valid
 * node indices; a node listed twice is folded); 0 or GP_ENOMEM.  Part of
 * gp__cluster_finish(). */
int gp__cluster_part_bits(gp_cluster_t *c, gp_error_t *err);

/* Shared by the loaders (conf/finish.c):
 * a synthetic root "(top)" (disconnected) over the ntops switches without a
 * parent; 0 or GP_ENOMEM. */
int gp__switch_add_synthetic_root(gp_cluster_t *c, int32_t ntops, gp_error_t *err);
/* From c->root: every switch's level (post-order), the DFS node order
 * (each switch's own nodes, then its subtrees; nodes outside the tree last)
 * into c->node_order/node_pos (allocated by the caller, nnodes each) and
 * every switch's [first, first+count); 0, GP_ENOMEM or GP_ECONFIG (cycle). */
int gp__switch_walk_tree(gp_cluster_t *c, gp_error_t *err);
/* NVLink islands of a layout: connected components of links > 0 when it
 * has Links=, else one island (NVLink, NVSwitch node) or one per GPU. */
void gp__layout_islands(gp_gres_layout_t *g, bool nvlink);

/* Is node i a member of partition q (0 <= q < nparts)? */
static inline bool gp__node_in_part(const gp_cluster_t *c, int32_t i, int32_t q)
{
	return (c->part_bits[(size_t)i * (size_t)c->part_words + (size_t)(q >> 6)] >> (q & 63)) & 1;
}

/* Do Slurm's topology/block rules (one block per job, required nodes in
 * one block, --segment) bind the jobs of partition q (-1 = none given)?
 * Where the cluster has blocks, yes unless q is placed by another
 * topology of topology.yaml (gp_partition_t.no_blocks): Slurm 25.05+
 * places each partition by its own topology (slurm.conf(5), "Topology"),
 * so a tree partition beside a block one gets tree semantics. */
static inline bool gp__part_blocks(const gp_cluster_t *c, int32_t q)
{
	return c->nblocks > 0 && (q < 0 || q >= c->nparts || !c->parts[q].no_blocks);
}

/* Does the site hold every GPU job to its racks' power budget through
 * Slurm (gpuplace.conf PowerHres or PowerLicenses)? */
static inline bool gp__site_racks_held(const gp_cluster_t *c)
{
	return c->site.power_hres[0] || c->site.power_lic[0];
}

/* The mask of every GPU of a node with ngpus GPUs (0 for none). */
static inline uint32_t gp__gpu_full_mask(int32_t ngpus)
{
	return ngpus >= 32 ? UINT32_MAX : ngpus <= 0 ? 0 : (UINT32_C(1) << ngpus) - 1;
}

/* GPUs of node i whose slurm.conf type is `type' (compared without
 * regard to case, as Slurm compares GRES types); *all set when every GPU
 * of the node is of that type.  A node with no type names in slurm.conf
 * answers by its profile's name (gpuplace.conf DefaultProfile). */
int32_t gp__node_type_gpus(const gp_cluster_t *c, int32_t i, const char *type, bool *all);

/* Number of set bits in a GPU mask. */
/* Set bits of a GPU mask.  Written out (SWAR, Hacker's Delight 5-2)
 * rather than __builtin_popcount, which without -mpopcnt is a call into
 * libgcc on x86-64 and showed at the top of the simulator's profile. */
static inline int gp__popcount(uint32_t m)
{
	m = m - ((m >> 1) & 0x55555555u);
	m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
	m = (m + (m >> 4)) & 0x0F0F0F0Fu;
	return (int)((m * 0x01010101u) >> 24);
}

#endif /* GP_MODEL_H */
