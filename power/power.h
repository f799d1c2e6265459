/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * power.h - rack power and cooling headroom, GPU power-cap speed model and
 * the live power telemetry poller (internal to the engine library).
 *
 * Units: watts and seconds since the Unix epoch (double) unless a name says
 * kW.  Everything here reads a gp_cluster_t (immutable) and a gp_state_t;
 * neither is modified.
 *
 * Thread safety: gp__power_estimate_rack(), gp__power_headroom() and
 * gp__power_cap_speed*() are pure functions of their arguments and may run in
 * any number of threads.  A gp_power_snapshot_t is immutable once published;
 * gp__poller_snapshot_get() takes a brief mutex (no network I/O, no waiting on
 * a poll in progress) and returns a reference the caller drops with
 * gp__power_snapshot_put(), from any thread.
 */
#ifndef GP_POWER_H
#define GP_POWER_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "model.h"

/* ---- logging and clock hooks ------------------------------------------- */

enum { GP_LOG_ERROR = 0, GP_LOG_WARNING = 1, GP_LOG_INFO = 2 };

/* One complete line without a trailing newline; msg is valid only during the
 * call.  The plugin routes it to slurm_info/slurm_error, the CLI to stderr.
 * Called from the poller thread. */
typedef void (*gp_log_fn)(void *arg, int level, const char *msg);
/* Current time in seconds since the epoch (tests inject a fake clock). */
typedef double (*gp_clock_fn)(void *arg);

/* The default clock: CLOCK_REALTIME as a double. */
double gp__power_clock_real(void *arg);

/* ---- estimate and headroom --------------------------------------------- */

typedef enum gp_power_limit {
	GP_LIMIT_POWER = 0,     /* the rack's power cap binds */
	GP_LIMIT_COOLING = 1,   /* the rack's cooling capacity binds */
} gp_power_limit_t;

typedef enum gp_power_basis {
	GP_BASIS_ESTIMATE = 0,  /* no measurement: the estimate is used */
	GP_BASIS_MEASURED = 1,  /* a fresh measurement is used */
	GP_BASIS_STALE = 2,     /* stale measurement: max(estimate, last measured) */
} gp_power_basis_t;

/* One rack's measured draw as a snapshot (or gp_state) records it. */
typedef struct gp_power_sample {
	double watts;           /* < 0 = never measured */
	double time;            /* epoch s when it was taken; 0 = never */
	double stale_s;         /* staleness limit of the source that produced it */
	char source[GP_NAME_MAX]; /* telemetry name, "" = none */
} gp_power_sample_t;

typedef struct gp__power_headroom {
	double cap_w;           /* rack power cap, W */
	double cooling_w;       /* rack cooling capacity, W */
	double margin;          /* site PowerMargin applied to both limits */
	double limit_w;         /* min(cap_w, cooling_w) * (1 - margin) */
	double measured_w;      /* last measured draw, < 0 = none */
	double estimated_w;     /* estimate from the state (gp__power_estimate_rack) */
	double used_w;          /* draw headroom is computed from (see basis) */
	double extra_w;         /* the candidate's added draw, as passed */
	double headroom_w;      /* limit_w - used_w - extra_w (may be negative) */
	gp_power_limit_t binding; /* which limit is the smaller one */
	gp_power_basis_t basis;
	bool stale;             /* a measurement exists but is older than its limit */
	double age_s;           /* now - sample time, < 0 = no sample */
	char source[GP_NAME_MAX]; /* telemetry name, or "estimate" */
} gp_power_headroom_t;

/* Watts one GPU of profile p draws at load fraction `load` (0..1) of its
 * dynamic range: idle_w + load * (tdp_w - idle_w).  p == NULL (unknown GPU
 * type) counts GP_POWER_UNKNOWN_GPU_W whatever the load. */
double gp__power_gpu_watts(const gp_gpu_profile_t *p, double load);

/* Assumed draw of a GPU whose type is unknown (node profile -1), W: an
 * H100 SXM's 700 W TDP (Llama 3 paper sec. 3.3.1, notes/calibration.md
 * sec. 4), counted busy or idle.  An assumption chosen to err high; define
 * the node's GpuProfile in gpuplace.conf to replace it. */
#define GP_POWER_UNKNOWN_GPU_W 700.0

/*
 * Estimated draw of rack `rack` in state s, W: for every node of the rack
 * its base watts (node base_w, else the rack's NodeBaseWatts), plus per GPU
 * the idle draw when free, idle + load * (TDP - idle) when a job of s owns it
 * (load = the job's load class fraction) and the full TDP when it is
 * allocated but no job of s names it.  Down and drained nodes are counted
 * like the others (conservative).  s may be NULL (everything idle).
 * Returns the watts, or a negative gp_err code for a bad rack index.
 */
double gp__power_estimate_rack(const gp_cluster_t *c, const gp_state_t *s, int32_t rack);

/*
 * Extra watts a candidate placement adds to rack `rack`: for each of its
 * nodes in that rack, each GPU of gpu_mask goes from idle to
 * idle + load * (TDP - idle).  nodes[i] / gpu_mask[i] (nnodes entries) are
 * borrowed; load <= 0 or > 1 means 1 (full load).  Nodes outside the rack
 * add nothing.  Returns the watts (>= 0), or a negative gp_err code.
 */
double gp__power_job_watts(const gp_cluster_t *c, const int32_t *nodes, const uint32_t *gpu_mask,
                          int32_t nnodes, int32_t rack, double load);

/*
 * gp__power_estimate_rack() for every rack at once into rack_w[0 ..
 * c->nracks-1], in one pass over the nodes and the jobs' allocations (the
 * per-rack call looks up each allocated GPU's job).  0, GP_EINVAL or
 * GP_ENOMEM.
 */
int gp__power_estimate_all(const gp_cluster_t *c, const gp_state_t *s, double *rack_w);

/*
 * Headroom of rack `rack` after adding a candidate placement drawing
 * extra_w more watts, at time now (epoch s).
 *
 * The measured draw comes from snap (may be NULL); without a snapshot from
 * s->rack_power (the state's recorded sample, judged against the site's
 * TelemetryStale).  Rules:
 *   - fresh sample (age <= its staleness limit): used = measured;
 *   - stale sample: used = max(estimate, last measured), stale = true;
 *   - no sample: used = estimate.
 * The limit is min(PowerCapKW, CoolingKW) in W, less the site PowerMargin
 * fraction; rack heat is taken as equal to its electrical draw (all power
 * drawn ends up as heat the rack cooling must remove).
 * c, s, snap and out are borrowed; out is always written.  Returns 0 or
 * GP_EINVAL / GP_ENOENT (bad rack).
 */
struct gp_power_snapshot;
int gp__power_headroom(const gp_cluster_t *c, const gp_state_t *s,
                      const struct gp_power_snapshot *snap, int32_t rack,
                      double extra_w, double now, gp_power_headroom_t *out);

/* gp__power_headroom() with no extra draw for every rack into out[0 ..
 * c->nracks-1], sharing one gp__power_estimate_all() pass.  0 or a gp_err. */
int gp__power_headroom_all(const gp_cluster_t *c, const gp_state_t *s,
                          const struct gp_power_snapshot *snap, double now,
                          gp_power_headroom_t *out);

/*
 * How many GPUs, each adding gpu_w watts at TDP (> 0), a headroom of
 * headroom_w watts powers (a hair of rounding forgiven): the count behind
 * gp__power_rack_tdp_gpus and the engine's racks that can bind.
 */
static inline int64_t gp__power_gpus_powered(double headroom_w, double gpu_w)
{
	return headroom_w > 0 ? (int64_t)floor(headroom_w / gpu_w + 1e-9) : 0;
}

/*
 * GPUs of rack `rack` at TDP: *all of them, *free_gpus those not allocated
 * in s (NULL: every GPU free) on nodes neither down nor drained; returns
 * how many of the free ones a headroom of headroom_w watts powers at TDP,
 * each adding the rack's dearest GPU's TDP over idle (gp__lic_gpu_watts,
 * what the engine and PowerLicenses count for a GPU job): all of them when
 * no GPU of the rack has a known type.  `gpuplace power show`'s
 * GPUS_AT_TDP.
 */
int64_t gp__power_rack_tdp_gpus(const gp_cluster_t *c, const gp_state_t *s, int32_t rack,
                                double headroom_w, int64_t *all, int64_t *free_gpus);

/*
 * With every rack idle, by the estimate: how many of rack `rack`'s GPUs its
 * headroom powers at TDP (gp__power_rack_tdp_gpus), and in *all (may be
 * NULL) its GPUs.  0, or a gp_err.
 */
int gp__power_rack_idle_tdp_gpus(const gp_cluster_t *c, int32_t rack, int64_t *powered,
                                 int64_t *all);

/*
 * With every rack idle, by the estimate: how many of the racks' GPUs their
 * headroom powers at TDP (gp__power_rack_tdp_gpus summed), and in *all the
 * GPUs of nodes in racks.  The share of the site a job mix at full power
 * can use before the racks bind.  0, or a gp_err.
 */
int gp__power_idle_tdp_gpus(const gp_cluster_t *c, int64_t *powered, int64_t *all);

/* ---- power cap -> speed curve ------------------------------------------ */

#define GP_CAP_CURVE_MAX 16

/* Relative speed (throughput at cap / throughput uncapped) as a piecewise
 * linear function of cap / TDP.  Points sorted by rising cap fraction; the
 * last point has fraction 1 and speed 1. */
typedef struct gp_cap_curve {
	int npoints;
	double frac[GP_CAP_CURVE_MAX];
	double speed[GP_CAP_CURVE_MAX];
} gp_cap_curve_t;

/* The built-in curve (see power/capspeed.c for where its numbers come from). */
const gp_cap_curve_t *gp__cap_curve_default(void);

/*
 * Parse "FRAC:SPEED,FRAC:SPEED,..." (e.g. "0.5:0.6,0.857:0.89,1:1") into
 * *out: fractions in (0, 1] strictly rising, speeds in (0, 1] not falling,
 * the last point 1:1.  Returns 0 or GP_EINVAL with the detail in err.
 */
int gp__cap_curve_parse(const char *text, gp_cap_curve_t *out, gp_error_t *err);

/* Relative speed of a GPU of profile p capped to cap_w (curve NULL = the
 * default curve).  Caps at or above TDP give 1; caps below the profile's
 * lowest settable cap (min_cap_w, 0 = tdp_w / 2) are clamped to it.
 * Returns a value in (0, 1], or 1 when p is NULL or has no TDP. */
double gp__power_cap_speed(const gp_gpu_profile_t *p, double cap_w);
double gp__power_cap_speed_curve(const gp_cap_curve_t *curve, const gp_gpu_profile_t *p,
                                double cap_w);

/*
 * The highest per-GPU cap that lets ngpus GPUs of profile p (running at
 * load fraction load) fit into avail_w more watts than idle, and the speed
 * at that cap.  When they fit uncapped, *cap_w = tdp_w and *speed = 1.
 * Returns 0, or GP_ENOFIT when even the lowest settable cap does not fit
 * (*cap_w and *speed then describe the lowest cap).  curve NULL = default.
 */
int gp__power_fit_cap(const gp_cap_curve_t *curve, const gp_gpu_profile_t *p, int ngpus,
                     double load, double avail_w, double *cap_w, double *speed);

/* ---- telemetry snapshot and poller ------------------------------------- */

typedef enum gp_source_state {
	GP_SOURCE_NEVER = 0,    /* not polled yet */
	GP_SOURCE_OK = 1,       /* last poll succeeded for every rack it covers */
	GP_SOURCE_PARTIAL = 2,  /* last poll answered but some racks were missing or wrong */
	GP_SOURCE_FAILED = 3,   /* last poll failed (network, HTTP, parse) */
} gp_source_state_t;

typedef struct gp_source_status {
	char name[GP_NAME_MAX];
	gp_source_state_t state;
	double last_poll;       /* epoch s of the last attempt, 0 = never */
	double last_ok;         /* epoch s of the last success, 0 = never */
	char message[256];      /* last problem, "" when none */
} gp_source_status_t;

/* Immutable once published.  Read rack r's sample as snap->racks[r]. */
typedef struct gp_power_snapshot {
	int refs;               /* atomic; private to power/ */
	double time;            /* epoch s when it was published */
	uint64_t generation;    /* 1, 2, ... in publication order */
	int32_t nracks;
	gp_power_sample_t *racks;
	int32_t nsources;
	gp_source_status_t *sources;
} gp_power_snapshot_t;

/* Drop a reference from gp__poller_snapshot_get(); NULL is a no-op. */
void gp__power_snapshot_put(const gp_power_snapshot_t *snap);

typedef struct gp_poller_opts {
	gp_clock_fn clock;      /* NULL = gp__power_clock_real */
	void *clock_arg;
	gp_log_fn log;          /* NULL = no logging */
	void *log_arg;
	size_t max_body;        /* largest accepted response/file, bytes; 0 = 4 MiB */
	/* Type=file reader, NULL = gp__file_read (tests pass one that stalls
	 * like a hung mount); runs in a thread of its own, may outlive the
	 * poller, so it must not use anything the poller owns */
	int (*file_read)(const char *path, size_t max, unsigned flags, gp__file_t *out,
	                 gp_error_t *err);
} gp_poller_opts_t;

typedef struct gp_poller gp_poller_t;

/*
 * Create a poller for the telemetry sources of c (c must outlive it).
 * Nothing is fetched yet: call gp__poller_start() for the background thread
 * or gp__poller_poll_once() to poll synchronously (CLI, tests).  opts may be
 * NULL (defaults).  On success *out is owned by the caller and freed with
 * gp__poller_destroy().  Returns 0, GP_ENOMEM, or GP_ECONFIG (a source that
 * cannot be polled: a Redfish Nodes= URL for several nodes without "{node}").
 */
int gp__poller_create(const gp_cluster_t *c, const gp_poller_opts_t *opts, gp_poller_t **out,
                     gp_error_t *err);

/* Start the background thread: every source is polled at its Interval and
 * a new snapshot published after each poll.  0, GP_EINVAL (already
 * running) or GP_ENOMEM. */
int gp__poller_start(gp_poller_t *p, gp_error_t *err);

/* Stop the thread (waits at most one source time-out).  No-op when not
 * running or p is NULL. */
void gp__poller_stop(gp_poller_t *p);

/* Stop and free; snapshots still referenced stay valid until put. */
void gp__poller_destroy(gp_poller_t *p);

/* Poll every source once in the calling thread and publish a snapshot.
 * Must not be called while the thread runs (GP_EINVAL).  Returns 0 even when
 * sources fail (their status says why). */
int gp__poller_poll_once(gp_poller_t *p);

/* The current snapshot with a reference taken, or NULL before the first
 * publication.  Never blocks on the network.  Drop with
 * gp__power_snapshot_put(). */
const gp_power_snapshot_t *gp__poller_snapshot_get(gp_poller_t *p);

/* ---- response parsers (pure; exposed for tests and fuzzing) ------------ */

/* Per-rack readings found in one response. */
typedef struct gp__reading {
	int32_t rack;           /* index into c->racks */
	double watts;
	double time;            /* epoch s the sample was taken, < 0 = the poll's time */
} gp__reading_t;

/*
 * Parse a Prometheus /api/v1/query instant-vector answer: every series whose
 * label `label` names a rack of c gives a reading.  Values are watts.
 * Out: readings[0..*n) (capacity cap), *unknown = series naming no rack.
 * Returns 0 or GP_EJSON (not JSON, status not success, not a vector, a
 * value not a number) with the detail in err.
 */
int gp__parse_prometheus(const gp_cluster_t *c, const char *label, const char *buf,
                         size_t len, gp__reading_t *readings, int32_t cap, int32_t *n,
                         int32_t *unknown, gp_error_t *err);

/*
 * Parse a Redfish Chassis Power resource (sum of PowerControl[].
 * PowerConsumedWatts) or an EnvironmentMetrics resource (PowerWatts.Reading).
 * When name_filter is not NULL only PowerControl members whose Name or
 * MemberId equals it are summed.  Out: *watts.  Returns 0, GP_ENOENT (no
 * reading for name_filter / all readings null) or GP_EJSON.
 */
int gp__parse_redfish(const char *buf, size_t len, const char *name_filter, double *watts,
                      gp_error_t *err);

/* Parse a telemetry file: {"time": EPOCH (optional), "racks": {"NAME": W, ...}}.
 * *time is 0 when absent.  Same returns as gp__parse_prometheus. */
int gp__parse_power_file(const gp_cluster_t *c, const char *buf, size_t len,
                         gp__reading_t *readings, int32_t cap, int32_t *n, int32_t *unknown,
                         double *time, gp_error_t *err);

/* Plausibility of a reading in watts for rack r: 0, or GP_ERANGE with why
 * in err ("negative", "not finite", "looks like kW", "ten times" the cap,
 * "0 W is no measurement" of a rack with nodes, "implausibly low": below
 * half the rack's idle draw from its nodes' NodeBaseWatts and IdleWatts). */
int gp__power_check_units(const gp_cluster_t *c, int32_t rack, double watts, gp_error_t *err);

/* ---- Slurm's own budget: hierarchical resources (hres.c) --------------- */

/*
 * The racks' power as one Slurm hierarchical resource (resources.yaml(5),
 * MODE_3, Slurm 25.11+; hres.c cites Slurm's sources).  Sites name it
 * with gpuplace.conf PowerHres=; `gpuplace conf --what resources` writes
 * the file, job_submit/gpuplace adds each GPU job's request.
 */

/* Is name usable as the resource's name (letters, digits, '_', '-', '.',
 * starting with a letter, shorter than GP_NAME_MAX)?  0, or GP_EINVAL with
 * the reason in err (no file or key: the caller adds them). */
int gp__hres_name_check(const char *name, gp_error_t *err);

/* The count of rack `rack`'s layer: min(PowerCapKW, CoolingKW) in W less
 * the rack's idle draw (gp__power_estimate_rack on an idle cluster),
 * rounded down, 0 when the idle draw reaches the limit.  No PowerMargin:
 * the budget is the hard limit, the margin is gpuplace's own headroom.
 * >= 0, or GP_EINVAL for a bad rack. */
int64_t gp__hres_rack_count(const gp_cluster_t *c, int32_t rack);

/* A GPU job's request per node, W: the most any node can take of its GPUs
 * (gpus_per_node when > 0, else gpus, at most the node's GPUs of type, or
 * of any type when type is NULL or "") times that node's TDP - idle per
 * GPU, rounded up; 0 when no node has such GPUs or their type is unknown
 * (no profile: the estimate counts them at GP_POWER_UNKNOWN_GPU_W idle or
 * busy).  Over the nodes rather than on the nodes Slurm will pick, which
 * the plugin does not know at submission: on a site with one GPU model and
 * jobs of whole nodes or one node it is the simulator's gpn x (TDP - idle);
 * otherwise it asks for more, never less. */
int64_t gp__hres_node_watts(const gp_cluster_t *c, int32_t gpus, int32_t gpus_per_node,
                            const char *type);

/*
 * The job's license string with "name:watts" added: user (job_desc->
 * licenses, may be NULL or "") kept as written, ",name:watts" appended.
 * Into buf (len bytes).  Returns 1 (buf holds the new string), 0 when
 * nothing is to be added (buf "", *why says why: no watts, the user named
 * the resource already, an OR list, characters Slurm refuses), GP_ELIMIT
 * (does not fit buf), GP_EINVAL (no name or buffer).  *why is a static
 * string, "" when 1.
 */
int gp__hres_licenses(const char *user, const char *name, int64_t watts, char *buf, size_t len,
                      const char **why);

/* ---- Slurm's own budget on every release: a license per rack (lic.c) ---- */

/*
 * The racks' power as Slurm cluster licenses (slurm.conf Licenses=, every
 * release; lic.c cites Slurm's sources), one per rack named PREFIX_RACK
 * with the rack's count of gp__hres_rack_count.  Sites name the prefix
 * with gpuplace.conf PowerLicenses=; `gpuplace conf --what licenses`
 * writes the line, job_submit/gpuplace keeps each GPU job to one rack and
 * adds its watts there (a license's count is per job: watts per node x
 * the job's nodes in the rack).
 */

/* The license of rack `rack` under `prefix`, "PREFIX_RACK", into buf (len
 * bytes).  0, or GP_EINVAL with the reason in err: a prefix that is no
 * resource name (gp__hres_name_check), a rack name with a character
 * Slurm's license syntax reads otherwise, a name of GP_NAME_MAX or more. */
int gp__lic_name(const char *prefix, const char *rack, char *buf, size_t len, gp_error_t *err);

/* Watts `gpus` GPUs of node `node` add from idle to TDP, rounded up; 0 for
 * a bad node, no GPUs or an unknown type. */
int64_t gp__lic_gpu_watts(const gp_cluster_t *c, int32_t node, int32_t gpus);

/* The rack a job is kept to: `picked` when it is a rack (>= 0) where the
 * job fits (fits[picked]); else of the racks where it fits the one with
 * the most room (room_w: headroom less what is booked, W; the first of
 * equals); -1 when it fits none.  room_w and fits have nracks entries. */
int32_t gp__lic_choose_rack(int32_t nracks, const double *room_w, const bool *fits,
                            int32_t picked);

/* Does the license list lic name `name` as a whole name (before its ':',
 * '=' count or '(' layer)? */
bool gp__licenses_name_in(const char *lic, const char *name);

/*
 * The job's license string with "names[i]:counts[i]" added for each of the
 * n racks: the user's terms (user, may be NULL or "") kept as written but
 * for those naming one of drop[0..ndrop-1] (rack licenses a previous
 * request added, which this one replaces; drop may be NULL), then the new
 * terms, ',' between.  Into buf (len bytes).  Returns 1 (buf holds it), 0
 * when nothing is to be added (buf "", *why says why: a count <= 0, an OR
 * list, the user naming one of the names, a space or control character,
 * more than Slurm's 1024 characters), GP_ELIMIT (does not fit buf),
 * GP_EINVAL (no names or buffer).  *why is a static string, "" when 1.
 */
int gp__lic_licenses(const char *user, const char *const *names, const int64_t *counts,
                     int32_t n, const char *const *drop, int32_t ndrop, char *buf, size_t len,
                     const char **why);

#endif /* GP_POWER_H */
