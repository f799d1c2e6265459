/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim.h - the discrete-event simulator (internal): replay a job trace on a
 * cluster model under a placement policy and measure what it gives.
 *
 * Events are job arrivals (trace submit times) and completions.  After the
 * events of one instant, one scheduling pass runs, as Slurm's scheduler
 * with sched/backfill would: jobs in FIFO order (submit time, then trace
 * id); each starts if the policy places it now; the first that cannot gets
 * a reservation (EASY backfill: the earliest instant, among the predicted
 * completions of running jobs, at which the policy can place it, and the
 * GPUs it would use then); later jobs may start now if they end before
 * that instant or keep off the reserved GPUs (when 64 placement attempts
 * find no such instant, only jobs that end before the last one tried may
 * pass).  With opts bf_resv > 1 the next jobs that cannot start get a
 * planned start beside the plans before them, which later jobs may not
 * delay either (nearer Slurm's backfill, which plans every job it tests).
 * Up to bf_max_job_test jobs
 * after the reserved one are tried per pass (Slurm's bf_max_job_test).
 * Run-time estimates are time limits, as Slurm has them: every decision
 * the simulator asks of the engine (submission, the plugin's steering,
 * the wait path's estimates of when running jobs end) and every backfill
 * plan, gpuplace's and the baselines', sees each job's time limit (the
 * trace's time_limit_s, else one drawn as trace.h's gp__trace_draw_limit
 * documents, with gp_sim_opts_t's limit_seed), never its run time.  A job
 * ends at its true run time (duration x slowdown), or is killed at its
 * limit when it runs over, as Slurm's time limit does: a killed job's
 * whole run counts as GPU-hours lost to placement when its trace duration
 * fits its limit (placement pushed it over), none otherwise.
 *
 * A job's run time is its trace duration x slowdown, where slowdown = the
 * cost model's predicted step time on its placement / the predicted step
 * time on the ideal placement (gp__cost_ideal), so placement changes
 * completion times (or the --judge table's slowdown, see below).  A job's
 * profile is the trace's hints (tp, pp, params; trace.h) with the engine's
 * documented defaults for the sizes they leave out, else the engine's
 * default data-parallel profile of its GPU count (one all-reduce of
 * DefaultGradientBytes per step, cost.h); plus a compute time that makes
 * the exposed communication its share of the step on the ideal placement:
 * the trace's comm_fraction, else the constant of gp_sim_opts_t, else one
 * of 0.05, 0.10, ... 0.40 by a hash of its id (an assumption: no public
 * trace records per-job communication shares).  A one-GPU job never slows
 * down.
 *
 * Requests: a job of g GPUs on a cluster whose largest node has G GPUs asks
 * for one node when g <= G (GPUs per node g), else for n = ceil(g / G)
 * nodes (the trace's nodes column when given) with g / n GPUs per node when
 * that divides, in the default partition.
 *
 * Policies:
 *   first-fit  Slurm without topology: nodes in Slurm's order (Weight, then
 *              slurm.conf order); a one-node job takes the first node with
 *              enough free GPUs, a multi-node job the first nodes that have.
 *   tree       Slurm's topology/tree: the lowest-level switch whose subtree
 *              can hold the job, the one with the fewest usable nodes
 *              (nodes with enough free GPUs) among those (best fit, counted
 *              in nodes as Slurm does); under it, the leaf with the fewest
 *              usable nodes that holds the rest alone, else the leaf with
 *              the most, until placed; a one-node job takes the node with
 *              the fewest free GPUs that fits (best fit), nodes in order
 *              otherwise.
 *   block      Slurm's topology/block (23.11+), when the model has blocks:
 *              eval_nodes_block's choice of one aggregated block, then base
 *              blocks by fit (block_fit in sim.c says how).
 *   PRESET     gpuplace as the plugin ships (balanced, pack, performance,
 *              power-save): at each job's submission gp__decide() with
 *              that preset on the state the plugin would see (the cluster
 *              as read at its last refresh, every SIM_PLUGIN_REFRESH_S
 *              and the gap after a decision, plus its ledger: decided
 *              sets Slurm has not started, guesses for passed jobs), the
 *              racks' power headroom as that refresh estimated it less
 *              the ledger's draw.  PIN: the job is held to
 *              exactly those nodes (min = max nodes) and starts when they
 *              have its GPUs free, which may be later than the decision
 *              when the plugin's view was stale.  CONSTRAIN: Slurm places
 *              it, with the site's topology plugin (block when the model
 *              has blocks, else tree when it has switches, else
 *              first-fit), inside the first of the
 *              matching-OR alternatives that can hold it, in order; no
 *              power check (Slurm knows none; but see the racks' budget
 *              below).  REJECT at submission.
 *              One-GPU jobs pass unchanged (Slurm's own placement).
 *              Then, at each of the plugin's state refreshes, its
 *              steering pass (plugin/steer_pass.c, steer_pass)
 *              with the same rules (cost_model/steer_rules.h) and the policy's
 *              gpuplace_steer_max / gpuplace_steer_interval: the pending
 *              jobs it placed, in Slurm's priority order (here: submission,
 *              then trace id), are re-decided when their pinned nodes were
 *              taken or, CONSTRAINed, once per interval (without waiting
 *              once past their predicted wait), from the same request, and
 *              PINned to a set free now.  Slurm's --switches wait as the
 *              plugin asks for it: a CONSTRAIN that waits for a compact
 *              set, on a site whose Slurm runs topology/tree with one
 *              Weight for every node, gets --switches=count@max-time
 *              (gp_switch_request, max-time capped at Slurm's default
 *              max_switch_wait of 300 s; when the predicted wait is longer
 *              than that, the features stay) instead of features, and
 *              Slurm's tree placement starts it only on at most count
 *              leaf switches until max-time after its submission, then
 *              anywhere (topology/tree, _eval_nodes_topo); a job steered
 *              to a PIN keeps its --switches.
 *   PRESET-ideal  the same preset as an upper bound the plugin does not
 *              ship: the engine re-decides at every scheduling pass on the
 *              true state and starts the job on the best free set; a job
 *              waits for a better set once, then takes the best set free.
 *   site       the policy of the cluster's slurm.conf SchedulerParameters
 *              (gp__policy_site), when the model came from a conf dir
 *              (site-ideal too).
 * Baselines see GPUs only: they start jobs whatever the racks' power,
 * except their "-budget" forms (first-fit-budget, tree-budget,
 * tree-switches-budget, block-budget, block-segment-budget): stock Slurm
 * 25.11 or later with each rack's power as a hierarchical resource
 * (resources.yaml(5): a layer per rack, count = min(cap, cooling) less
 * the rack's idle draw; MODE_3 "allocated on a per-node basis ... designed
 * for consumable resources like power", Slurm 25.11) and every GPU job
 * asking per node for its GPUs' TDP over idle (what a job_submit rule or
 * the user adds).  Modelled in Slurm's favour: a node whose rack has not
 * that room left is not usable, and the fit goes on to other nodes (the
 * rooms of the nodes it has taken so far counted), so the baseline never
 * starts a job over a rack's limit and gives up no placement it need not.
 * The presets and site as the plugin decides (not -ideal) take the same
 * budget when the model's gpuplace.conf names the resource (PowerHres,
 * power.h gp__hres_*: the plugin then adds the request to every GPU job)
 * or their name ends in "-budget": a PINned job starts only when every
 * node's rack has the room, a CONSTRAINed or passed one is placed by
 * Slurm's fit under the same rule.
 *
 * Power: each rack's draw is the power model's estimate
 * (gp__power_estimate_all: node base, idle GPUs at idle watts, busy GPUs at
 * TDP) kept up to date at every start and end.  A cap violation is a job
 * start after which a rack draws more than min(PowerCapKW, CoolingKW)
 * (margin not applied); the violation GPU-hours are the GPU-hours run in
 * racks while they draw more than that.
 *
 * Determinism: no randomness and no clock reading influences the result;
 * the same cluster, trace, policy and options give the same numbers.
 */
#ifndef GP_SIM_H
#define GP_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model.h"
#include "outcome.h"
#include "policy.h"
#include "trace.h"

typedef enum gp_sim_kind {
	GP_SIM_FIRST_FIT = 0,
	GP_SIM_TREE = 1,
	GP_SIM_GPUPLACE = 2,       /* as the plugin decides (default for presets) */
	GP_SIM_GPUPLACE_IDEAL = 3, /* re-decided at every pass: an upper bound */
	GP_SIM_BLOCK = 4,          /* Slurm's topology/block */
	GP_SIM_TREE_SWITCHES = 5,  /* topology/tree with --switches=N@T on every job */
	GP_SIM_BLOCK_SEGMENT = 6,  /* topology/block with --segment on jobs over a block */
} gp_sim_kind_t;

/* Slurm's default max_switch_wait (slurm.conf(5), SchedulerParameters:
 * "Maximum number of seconds that a job can delay execution waiting for
 * the specified desired switch count.  The default value is 300
 * seconds"; sbatch(1) --switches: the max-time defaults to it): the T of
 * the tree-switches baseline when its name gives none. */
#define GP_SIM_MAX_SWITCH_WAIT_S 300.0

typedef struct gp_sim_policy {
	char name[32];          /* "first-fit", "tree", "block", a preset name or "site",
	                         * each optionally with "-ideal" */
	gp_sim_kind_t kind;
	gp_policy_t policy;     /* GP_SIM_GPUPLACE only */
	double switch_wait_s;   /* GP_SIM_TREE_SWITCHES: T of --switches=N@T */
	bool rack_budget;       /* a baseline with "-budget": Slurm with the racks'
	                         * power as a hierarchical resource (below) */
} gp_sim_policy_t;

/* Resolve a policy name: first-fit, tree, tree-switches (stock Slurm with
 * every multi-node job submitted with sbatch --switches=N@T, N the fewest
 * leaf switches that can hold it (1 for a job that fits one leaf), T
 * GP_SIM_MAX_SWITCH_WAIT_S or the seconds of "tree-switches@T"; Slurm's
 * topology/tree then starts it only on at most N leaves until T after its
 * submission, then anywhere), block, block-segment (topology/block with
 * every job larger than a base block submitted with --segment=S, S the
 * largest divisor of its node count that fits a base block: its segments
 * go into base blocks with room, fullest first, one aggregated block not
 * required), any gp__policy_presets name, or
 * site (the policy of c's conf dir; GP_EINVAL when c has none), the last
 * two also with the suffix "-ideal" (the upper-bound mode).  GP_ENOENT
 * lists the names. */
int gp__sim_policy_parse(const char *name, const gp_cluster_t *c, gp_sim_policy_t *out,
                         gp_error_t *err);

/* The partition every trace job is submitted to: the default one, else
 * the first (-1 when c has none). */
int32_t gp__sim_partition(const gp_cluster_t *c);
/* Does Slurm place that partition by topology/block (gp__part_blocks): the
 * block and block-segment baselines need it, tree-switches needs it not;
 * the tree partition of a two-topology topology.yaml is placed by its
 * tree. */
bool gp__sim_blocks(const gp_cluster_t *c);

/* Names gp__sim_policy_parse accepts, NULL-terminated (site aside). */
extern const char *const gp__sim_policy_names[];

/*
 * The judge (--judge FILE): how a placement is spread, for a table that
 * maps it to a slowdown.  Classes, from the most compact:
 *   node     one node;
 *   domain   several nodes of one cross-node NVLink domain;
 *   leaf     several nodes under one leaf switch (not one NVLink domain);
 *   leaves   several leaf switches under one level-1 switch; count = leaves;
 *   spines   several level-1 switches; count = level-1 switches touched.
 * A job's communication class: tp when its profile has TP > 1 across GPUs,
 * else ep when EP > 1, else pp when PP > 1, else dp.
 *
 * The table is CSV: '#' comments and blank lines ignored, then the header
 * "spread,count,gpus_per_node,comm,slowdown", then rows; count,
 * gpus_per_node and comm may be '*' (any); the first row that matches a
 * job's class gives its slowdown (in [1, 100]).  A job no row matches
 * stops the run with an error naming its class.
 */
typedef enum gp_sim_spread {
	GP_SIM_SPREAD_NODE = 0,
	GP_SIM_SPREAD_DOMAIN = 1,
	GP_SIM_SPREAD_LEAF = 2,
	GP_SIM_SPREAD_LEAVES = 3,
	GP_SIM_SPREAD_SPINES = 4,
} gp_sim_spread_t;

typedef enum gp_sim_comm {
	GP_SIM_COMM_ANY = 0,
	GP_SIM_COMM_DP = 1,
	GP_SIM_COMM_TP = 2,
	GP_SIM_COMM_PP = 3,
	GP_SIM_COMM_EP = 4,
} gp_sim_comm_t;

typedef struct gp_sim_judge gp_sim_judge_t;

/* Load a judge table from path; *out NULL first, freed by the caller with
 * gp__sim_judge_destroy().  0, GP_EIO (cannot read), GP_ECONFIG (bad row:
 * err names file:line, the field and the value), GP_ENOMEM. */
int gp__sim_judge_load(const char *path, gp_sim_judge_t **out, gp_error_t *err);
void gp__sim_judge_destroy(gp_sim_judge_t *j);
/* The slowdown of the first matching row; GP_ENOENT (err names the class)
 * when no row matches.  count: leaves or level-1 switches (1 otherwise). */
int gp__sim_judge_slowdown(const gp_sim_judge_t *j, gp_sim_spread_t spread, int32_t count,
                           int32_t gpn, gp_sim_comm_t comm, double *slowdown, gp_error_t *err);
const char *gp__sim_spread_name(gp_sim_spread_t s);
const char *gp__sim_comm_name(gp_sim_comm_t c);

typedef struct gp_sim_opts {
	int32_t bf_max_job_test;  /* jobs tried per backfill pass, default 500 (Slurm's) */
	int32_t samples;          /* time-series points over the run, default 500 */
	double comm_fraction;     /* exposed communication share of a job's step on
	                           * its ideal placement for every job whose trace
	                           * gives none (0 < f < 1); default 0: the
	                           * documented spread of shares (above) */
	bool check;               /* verify conservation after every event (slow):
	                           * GP_EINTERNAL names the first breach */
	const gp_sim_judge_t *judge; /* NULL: the engine's cost model judges run
	                           * times; else this table, for every policy
	                           * (borrowed, must outlive the run) */
	uint64_t limit_seed;      /* seed of the time limits drawn for jobs whose
	                           * trace gives none (trace.h), default 1 */
	int32_t bf_resv;          /* queued jobs a backfill pass plans a start
	                           * for, 1 to GP_SIM_MAX_BF_RESV (0: 1): 1, the
	                           * default, is EASY backfill, the first job that cannot
	                           * start; more is nearer Slurm's backfill, which
	                           * plans every job it tests (gp__sim_run) */
} gp_sim_opts_t;

#define GP_SIM_MAX_BF_RESV 256

/* Job size classes of the per-size waits, by GPUs: 1, 2-8, 9-32, 33-128,
 * >128 (gp__sim_size_class_name). */
#define GP_SIM_NSIZE 5
int gp__sim_size_class(int32_t gpus);
const char *gp__sim_size_class_name(int k);

void gp__sim_opts_defaults(gp_sim_opts_t *o);

/*
 * The Slurm-side facts the plugin-faithful mode (GP_SIM_GPUPLACE) turns
 * the engine's decision d for request r into an action with
 * (gp_outcome(), outcome.h): the Slurm the model describes (topology/block
 * where it has blocks, else topology/tree where it has switches; one
 * Weight or not; Slurm's default max_switch_wait of 300 s), a state read
 * at the decision, a trace job's options (GPUs per node, nothing else),
 * and unconfirmed: the GPU jobs let through whose nodes are still a guess.
 * d may be NULL (facts before a decision).
 */
void gp__sim_outcome_facts(const gp_cluster_t *c, const gp_policy_t *p, const gp_request_t *r,
                           const gp_decision_t *d, int32_t unconfirmed, gp_outcome_in_t *in);

/* What the plugin would have logged for a job at its submission. */
typedef enum gp_sim_decision {
	GP_SIM_DEC_NONE = 0,      /* a Slurm baseline: no gpuplace decision */
	GP_SIM_DEC_PIN = 1,       /* placed on the set it was given at once */
	GP_SIM_DEC_CONSTRAIN = 2, /* kept to domains; started later */
	GP_SIM_DEC_REJECT = 3,
} gp_sim_decision_t;

/* One job's fate. */
typedef struct gp_sim_job {
	uint32_t id;              /* trace id */
	int32_t gpus;
	int32_t nnodes;           /* nodes of its placement (0 if never started) */
	int32_t node0;            /* its first node (cluster index), -1 if never started */
	int32_t *nodes;           /* nnodes cluster indices, in rank order (NULL if never
	                           * started; owned by the result) */
	uint8_t *node_gpus;       /* GPUs it holds on each of those nodes */
	gp_sim_spread_t spread;   /* how it was spread (judge classes above) */
	int32_t spread_count;     /* leaves or level-1 switches of that class, else 1 */
	gp_sim_decision_t decision;
	int32_t nleaves;          /* leaf switches spanned (0 without topology) */
	int32_t nracks;           /* racks touched */
	double submit_s;
	double start_s;           /* < 0: never started (rejected) */
	double end_s;
	double duration_s;        /* trace duration */
	double limit_s;           /* time limit the scheduler saw */
	double slowdown;          /* run time / duration (>= 1), power caps included */
	double overhead;          /* predicted communication overhead fraction (the
	                           * engine's model; informational, not a score) */
	bool rejected;            /* the policy can never place it */
	bool backfilled;          /* started ahead of an earlier queued job */
	bool violation;           /* its start took a rack above its limit */
	bool steered;             /* moved while pending by the plugin's steering */
	bool killed;              /* ran over its time limit and was killed there */
} gp_sim_job_t;

typedef struct gp_sim_metrics {
	int32_t jobs;             /* trace jobs */
	int32_t completed;
	int32_t rejected;
	int32_t backfilled;
	double span_s;            /* first submit .. last completion */
	double jct_mean_s, jct_p50_s, jct_p95_s;    /* completion - submit */
	double wait_mean_s, wait_p50_s, wait_p95_s; /* start - submit */
	double slowdown_mean;     /* GPU-hour-weighted mean slowdown */
	double gpu_util;          /* busy GPU-seconds / (cluster GPUs x span) */
	double overhead_gpuh;     /* GPU-hour-weighted mean predicted comm overhead */
	int32_t multi_node;       /* jobs placed on more than one node */
	int32_t spread;           /* jobs placed under more than one leaf switch */
	int32_t violations;       /* job starts taking a rack above its limit */
	double violation_gpuh;    /* GPU-hours run in racks above their limit */
	double frag_mean;         /* time-weighted mean fraction of free GPUs
	                           * stranded on partly used nodes */
	double peak_rack_frac;    /* highest rack draw / limit seen (NaN: no rack
	                           * has a limit); JCT and wait are NaN when no
	                           * job completed */
	double lost_place_gpuh;   /* GPU-hours lost to placement: sum of GPUs x
	                           * (run time - trace duration), power caps
	                           * included (a cap is a loss, never a gain) */
	double lost_wait_gpuh;    /* GPU-hours waited: sum of GPUs x (start - submit) */
	double wait_gpuh_mean_s;  /* mean wait weighted by the jobs' GPU-hours
	                           * (GPUs x trace duration) */
	double wait_size_mean_s[GP_SIM_NSIZE]; /* mean wait per size class (NaN:
	                           * no started job of that class) */
	int32_t size_jobs[GP_SIM_NSIZE]; /* started jobs per size class */
	int32_t killed;           /* jobs killed at their time limit */
	int32_t limits_drawn;     /* jobs whose time limit was drawn */
	double throughput;        /* useful GPU-hours (GPUs x trace duration of the
	                           * completed jobs) per hour of the span */
	int64_t decisions;        /* placement attempts (engine or baseline) */
	int64_t events;           /* arrivals + completions processed */
	int64_t passes;           /* scheduling passes */
	int32_t steered;          /* plugin-faithful mode: pending jobs the
	                           * plugin's steering moved (moves, not jobs) */
	int64_t steer_evals;      /* its re-decisions */
} gp_sim_metrics_t;

typedef struct gp_sim_result {
	char policy[32];
	gp_sim_metrics_t m;
	gp_sim_job_t *jobs;       /* njobs, in trace order (by submit) */
	int32_t njobs;
	/* Time series, nsamples points at t[i] (equally spaced from the first
	 * submit to the last completion): */
	int32_t nsamples;
	double *t;                /* seconds */
	double *util;             /* busy GPUs / cluster GPUs */
	int32_t *queued;          /* jobs waiting */
	int32_t nracks;
	double *rack_w;           /* nsamples x nracks: estimated draw, W, row-major */
	double *rack_limit_w;     /* nracks: min(PowerCapKW, CoolingKW), W */
} gp_sim_result_t;

/*
 * Replay trace t on cluster c under policy p.  s0 (may be NULL) gives the
 * initial node flags (DOWN/DRAIN/RESERVED nodes are never used); its
 * running jobs are ignored.  *out NULL first; the caller frees it with
 * gp__sim_result_destroy().  0, GP_EINVAL (bad argument), GP_ENOMEM,
 * GP_EINTERNAL (o->check found a breach; err says what).
 */
int gp__sim_run(const gp_cluster_t *c, const gp_state_t *s0, const gp_trace_t *t,
                const gp_sim_policy_t *p, const gp_sim_opts_t *o, gp_sim_result_t **out,
                gp_error_t *err);

void gp__sim_result_destroy(gp_sim_result_t *r);

/* ---- output (sim/sim_out.c) ------------------------------------ */

/* Comparison table, one row per result, columns: policy, completed,
 * rejected, mean/p95 JCT and wait (h), GPU util %, overhead % (GPU-hour
 * weighted), spread jobs, violations (count, GPU-h), fragmentation %. */
int gp__sim_print_table(const gp_sim_result_t *const *res, int n, FILE *f);

/* Files in dir (created if missing): summary.csv (one row per policy),
 * jobs.csv (one row per job and policy), timeseries.csv (policy, t_s,
 * util, queued, max and mean rack draw / limit), racks.csv (policy, t_s,
 * rack, watts, limit_w), summary.json (everything of summary.csv plus the
 * cluster and trace names).  0 or GP_EIO naming the file. */
int gp__sim_write_files(const gp_cluster_t *c, const gp_trace_t *t,
                        const gp_sim_result_t *const *res, int n, const char *dir,
                        gp_error_t *err);

/* Plots in dir with gnuplot (PNG and SVG): jct_cdf (CDF of completion time
 * per policy), utilization (GPU utilization over time per policy),
 * rack_power (per policy, the highest and the mean rack draw as a
 * fraction of its limit over time, the limit at 100 %).  The gnuplot
 * scripts (*.gp) and data they read stay beside the pictures.  GP_EIO
 * when gnuplot is missing or fails (err names the script). */
int gp__sim_plot(const gp_sim_result_t *const *res, int n, const char *dir, gp_error_t *err);

/*
 * Placements against the nodes Slurm actually gave (the trace's nodelist,
 * from sacct's NodeList: gpuplace trace import-sacct).  Over the jobs that
 * have a nodelist naming only nodes of c and that r started: how many the
 * policy put on exactly Slurm's nodes, the mean share of the policy's
 * nodes that Slurm gave too, and the leaf switches and racks each spanned
 * (means; a node without a leaf or rack counts none) and how many jobs
 * spanned more than one leaf.
 */
typedef struct gp_sim_vs_slurm {
	int32_t with_list;      /* trace jobs with a nodelist */
	int32_t unknown;        /* ... that names a node c does not have */
	int32_t compared;       /* with a known nodelist, started by the policy */
	int32_t same;           /* placed on exactly Slurm's node set */
	double shared;          /* mean |policy's nodes among Slurm's| / |policy's| */
	double leaves_policy, leaves_slurm; /* mean leaf switches spanned */
	double racks_policy, racks_slurm;   /* mean racks spanned */
	int32_t spread_policy, spread_slurm; /* jobs spanning more than one leaf */
} gp_sim_vs_slurm_t;

/* The comparison for r (trace t replayed on c); 0 or GP_ENOMEM,
 * GP_EINVAL (r is not a replay of t). */
int gp__sim_vs_slurm(const gp_cluster_t *c, const gp_trace_t *t, const gp_sim_result_t *r,
                     gp_sim_vs_slurm_t *out, gp_error_t *err);

/* One table row per result ("policy  same  shared  leaves policy/Slurm
 * racks policy/Slurm  multi-leaf policy/Slurm"), after a line naming how
 * many jobs were compared; nothing when no job of t has a nodelist.
 * 0, or GP_EIO / the error of gp__sim_vs_slurm. */
int gp__sim_print_vs_slurm(const gp_cluster_t *c, const gp_trace_t *t,
                           const gp_sim_result_t *const *res, int n, FILE *f, gp_error_t *err);

#endif /* GP_SIM_H */
