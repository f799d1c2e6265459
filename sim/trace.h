/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace.h - job traces for the simulator (internal): a CSV reader and
 * writer, and a seeded synthetic generator with documented distributions.
 *
 * CSV format (RFC 4180: fields and header names may be "quoted", holding
 * commas, line breaks and "" for a quote; one header line):
 *   submit_time_s,duration_s,gpus[,nodes][,tp][,pp][,params][,comm_fraction]
 *   [,time_limit_s][,other columns...]
 * Columns are found by name in the header, in any order; submit_time_s,
 * duration_s and gpus are required; nodes and the job-shape hints tp, pp
 * (degrees dividing gpus), params (model parameters, > 0) and
 * comm_fraction (exposed communication share of the step on the ideal
 * placement, in (0, 1)) and time_limit_s (the time limit the job asked
 * Slurm for, seconds > 0: all the scheduler knows of its run time) are
 * optional (a missing column or an empty field = not given: the
 * simulator's documented defaults, sim.h, and for the limit a drawn one,
 * gp__trace_draw_limit); nodelist, the nodes Slurm gave the job (a Slurm
 * host list, as `trace import-sacct` writes it from sacct's NodeList), is
 * kept for `simulate` to compare its placements with, not checked against
 * the cluster here; every other
 * column (status, vc, ...) is ignored.  submit_time_s is
 * seconds from the trace's start (>= 0), duration_s the job's run time on
 * an ideal placement (> 0), gpus the job's total GPUs (>= 1), nodes the
 * nodes it asked for (>= 1, at most gpus).  Blank lines and lines starting
 * with '#' are skipped.  Rows need not be sorted: the loader sorts them by
 * submit time, stably (equal times keep file order).
 *
 * Any malformed row is an error naming file, line, column and value; no
 * row is skipped silently.
 */
#ifndef GP_TRACE_H
#define GP_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "model.h"

typedef struct gp_trace_job {
	uint32_t id;          /* 1-based position in the file's data rows (file order) */
	int32_t line;         /* line number in the file (0 for generated jobs) */
	double submit_s;      /* seconds from the trace's start, >= 0 */
	double duration_s;    /* run time on an ideal placement, > 0 */
	int32_t gpus;         /* total GPUs, >= 1 */
	int32_t nodes;        /* nodes asked for, 0 = not given */
	int32_t tp, pp;       /* parallelism hints, 0 = not given */
	double params;        /* model parameters hint, 0 = not given */
	double comm_fraction; /* exposed communication share, 0 = not given */
	double limit_s;       /* time limit asked for (--time), 0 = not given */
	char *nodelist;       /* the nodes Slurm gave it (host list), NULL = not
	                       * given; owned by the trace */
} gp_trace_job_t;

typedef struct gp_trace {
	char name[GP_PATH_MAX];   /* file name, or "synthetic" */
	gp_trace_job_t *jobs;     /* malloc'd, sorted by submit_s (stable) */
	int32_t njobs;
} gp_trace_t;

/* Load a trace CSV.  *out is set to NULL first, then to a new trace the
 * caller frees with gp__trace_destroy().  GP_EIO (cannot read, naming the
 * file), GP_EINVAL (bad header or row: file:line column 'value' and what is
 * wrong), GP_ENOMEM. */
int gp__trace_load(const char *path, gp_trace_t **out, gp_error_t *err);

/* The same on a buffer in memory (buf[len] need not be '\0'); name is used
 * in messages. */
int gp__trace_parse(const char *name, const char *buf, size_t len, gp_trace_t **out,
                    gp_error_t *err);

void gp__trace_destroy(gp_trace_t *t);

/* Offered load of t on gpus GPUs: the jobs' GPU-seconds (GPUs x run time)
 * over gpus x the span of submit times; 0 with fewer than two jobs, a
 * span of 0 or no GPUs. */
double gp__trace_offered_load(const gp_trace_t *t, int64_t gpus);

/* Keep only the first n jobs (by submit order); n <= 0 or >= njobs keeps all. */
void gp__trace_truncate(gp_trace_t *t, int32_t n);

/* Write t as CSV (header submit_time_s,duration_s,gpus,nodes, then the hint
 * columns and time_limit_s when a job has one); 0 or GP_EIO. */
int gp__trace_write(const gp_trace_t *t, FILE *f);

/* Summary: jobs, span, GPU-hours, GPU-count histogram, duration quantiles. */
int gp__trace_print_summary(const gp_trace_t *t, FILE *f);

/*
 * A time limit for a job whose trace gives none, as users ask for them
 * (seconds, >= duration_s unless the duration exceeds the longest popular
 * value): the accuracy a = run time / limit is drawn uniform in (0, 1],
 * then the limit duration / a is rounded up to the next of the values
 * users pick (gp__trace_limit_values).  Sources: Mu'alem and Feitelson,
 * "Utilization, Predictability, Workloads, and User Runtime Estimates in
 * Scheduling the IBM SP2 with Backfilling", IEEE TPDS 12(6), 2001 (the
 * accuracy of the CTC and SDSC SP2 logs spread roughly evenly over (0, 1]);
 * Tsafrir, Etsion and Feitelson, "Modeling User Runtime Estimates",
 * JSSPP 2005 (estimates are modal: some 20 round values cover about 90 %
 * of the jobs of every log studied).  The draw is a function of (seed,
 * job id) alone, so truncating a trace keeps every other job's limit.
 */
double gp__trace_draw_limit(uint64_t seed, uint32_t id, double duration_s);

/* Give every job of t without a time limit a drawn one
 * (gp__trace_draw_limit with seed); returns how many were drawn. */
int32_t gp__trace_fill_limits(gp_trace_t *t, uint64_t seed);

/* ---- synthetic traces ------------------------------------------------- */

/* Largest trace file read, bytes: the JSON model reader's limit (1 GiB);
 * at about 100 bytes a CSV row that is some 10 million jobs. */
#define GP_TRACE_MAX_FILE ((size_t)1 << 30)
/* Longest nodelist field kept, bytes: a host list of a job on a whole
 * 65,536-node cluster compresses far below this. */
#define GP_TRACE_MAX_NODELIST 65536

#define GP_TRACE_MAX_SIZES 32

/*
 * Synthetic trace parameters.  Distributions (documented in gpuplace(1),
 * TRACES):
 *   - job size: GPU counts drawn from a discrete distribution, sizes[i] with
 *     probability weights[i] / sum(weights); default the GPU-count mix of
 *     the Philly trace (Jeon et al., ATC'19; counts in
 *     ../shared/data/traces/README.md);
 *   - duration: log-normal, median dur_median_s and 90th percentile
 *     dur_p90_s (sigma = ln(p90/median) / 1.2816), truncated to
 *     [dur_min_s, dur_max_s] by redrawing; defaults median 1,144 s and p90
 *     11,265 s (Philly, same README), 60 s .. 7 days;
 *   - arrivals: a Poisson process (exponential gaps) whose rate makes the
 *     offered load (sum of GPU-seconds / (cluster_gpus x span)) equal
 *     `load`: rate = load x cluster_gpus / mean(gpus x duration) of the
 *     drawn jobs.
 * The generator is a xorshift-style PRNG seeded with seed; the same
 * parameters always give the same trace.
 */
typedef struct gp_trace_synth_params {
	int32_t jobs;                 /* required, >= 1 */
	uint64_t seed;                /* default 1 */
	int32_t cluster_gpus;         /* required for the arrival rate, >= 1 */
	double load;                  /* offered load, default 0.8 (0 < load <= 10) */
	int32_t nsizes;               /* 0 = the Philly mix */
	int32_t sizes[GP_TRACE_MAX_SIZES];
	double weights[GP_TRACE_MAX_SIZES];
	double dur_median_s;          /* 0 = 1,144 */
	double dur_p90_s;             /* 0 = 11,265 */
	double dur_min_s;             /* 0 = 60 */
	double dur_max_s;             /* 0 = 604,800 */
	int32_t gpus_per_node;        /* > 0: jobs larger than a node get
	                               * nodes = ceil(gpus / gpus_per_node);
	                               * 0 = nodes left empty */
} gp_trace_synth_params_t;

void gp__trace_synth_defaults(gp_trace_synth_params_t *p);

/* Parse a size mix "1:0.6,8:0.3,64:0.1" (GPUs:weight, weights > 0) into p;
 * GP_EINVAL naming the bad item. */
int gp__trace_parse_sizes(const char *spec, gp_trace_synth_params_t *p, gp_error_t *err);

/* Generate; *out NULL first.  GP_EINVAL names a bad parameter. */
int gp__trace_synth(const gp_trace_synth_params_t *p, gp_trace_t **out, gp_error_t *err);

#endif /* GP_TRACE_H */
