/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim.c - the discrete-event simulator (see sim.h for the model).
 *
 * Data: every trace job has a slot (struct sjob) indexed by its position in
 * the trace.  Queued jobs form a doubly linked list in FIFO order; running
 * jobs are the jobs of the gp_state_t the engine reads (gp_job_alloc_t,
 * swapped out on completion) and sit in a binary heap keyed by
 * (end time, trace position).  The state's alloc_mask is the truth of which
 * GPU is busy; counters (free GPUs, stranded GPUs, busy GPUs and draw per
 * rack) are kept beside it and re-derived from scratch in check mode.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "decide.h"
#include "outcome.h"
#include "power.h"
#include "sim.h"
#include "steer_rules.h"

const char *const gp__sim_policy_names[] = {
	"first-fit", "tree", "tree-switches", "balanced", "pack", "performance", "power-save", NULL
};

/* Per-size wait classes (sim.h): upper GPU bound of each but the last. */
static const int32_t size_class_max[GP_SIM_NSIZE - 1] = { 1, 8, 32, 128 };
static const char *const size_class_names[GP_SIM_NSIZE] = { "1", "2-8", "9-32", "33-128",
	                                                    ">128" };

int gp__sim_size_class(int32_t gpus)
{
	int k;

	for (k = 0; k < GP_SIM_NSIZE - 1; k++)
		if (gpus <= size_class_max[k])
			return k;
	return GP_SIM_NSIZE - 1;
}

const char *gp__sim_size_class_name(int k)
{
	return k >= 0 && k < GP_SIM_NSIZE ? size_class_names[k] : "?";
}


/* How often the plugin reads the cluster's state from slurmctld (plugin/
 * job_submit_gpuplace.h, GP_REFRESH_S): what a decision at submission
 * sees. */
#define SIM_PLUGIN_REFRESH_S 2.0
/* ... and how soon after a decision wakes it (GP_REFRESH_GAP_MS): a burst
 * of decisions gets one reading per gap. */
#define SIM_PLUGIN_REFRESH_GAP_S 0.25
/* How long the plugin's guess of where Slurm starts a job it passed holds
 * in its ledger while the job pends (plugin/job_submit_gpuplace.h,
 * GP_LEDGER_GRACE_S: pending that long, it waits and holds nothing). */
#define SIM_PLUGIN_GUESS_S 10.0

/* Slurm's max_switch_wait (slurm.conf(5), SchedulerParameters: "Maximum
 * number of seconds that a job can delay execution waiting for the
 * specified desired switch count.  The default value is 300 seconds"): the
 * cap the plugin puts on a --switches wait (plugin/conf_reload.c,
 * daemon_max_switch_wait).  A simulated site has no slurmctld whose
 * SchedulerParameters could change it. */
#define SIM_SLURM_MAX_SWITCH_WAIT_S 300u

/* Placement attempts for the reserved job per pass.  When they run out,
 * the reservation keeps what is known: the job cannot start before the
 * last instant tried, so only jobs that end by then may pass it.  The same
 * for every job Slurm places itself, under a baseline or within what the
 * plugin asked (a placement costs a pass over the nodes, not an engine
 * call), so the baselines' backfill plans as far as the plugin's jobs';
 * a PINned job's attempt checks only its own nodes and is never limited,
 * so its reservation is the end of the jobs on those nodes, as Slurm's
 * backfill plans a job with required nodes. */
#define SIM_MAX_RESV_TRIES 1024
/* The upper-bound mode (NAME-ideal), where each attempt is an engine
 * call. */
#define SIM_MAX_RESV_TRIES_ENGINE 64
/* Slots of the constrained jobs' "cannot start this pass" cache (jobs of
 * one shape kept to one domain behave alike), and probes per look-up. */
#define SIM_CFAIL 4096
#define SIM_CFAIL_PROBES 8

enum { JS_FUTURE = 0, JS_QUEUED, JS_RUNNING, JS_DONE, JS_REJECTED };

/* Outcome of one placement attempt. */
enum { PL_PLACED = 0, PL_NOFIT = 1, PL_WAIT = 2, PL_NEVER = 3 };

struct sjob {
	const gp_trace_job_t *tj;
	int32_t nn, gpn;          /* request: nn nodes x gpn GPUs */
	int32_t shape;            /* index into sim->shapes */
	int32_t segment;          /* --segment the plugin gave it (outcome.h), 0 none */
	int32_t st;               /* JS_* */
	int32_t prev, next;       /* queue links (-1 = none) */
	int32_t run;              /* index into cur->jobs while running */
	double start, end;
	uint64_t start_seq;       /* S->nstarts when it started (0: not yet) */
	double limit;             /* time limit Slurm and the engine see, s */
	double slowdown, overhead, load;
	double wait_until;        /* it chose to wait for a better set until then (-1: never) */
	int32_t nleaves, nracks, nnodes, node0;
	int32_t *nodes;           /* its placement once started (nnodes) */
	uint8_t *node_gpus;
	gp_sim_spread_t spread;
	int32_t spread_count;
	gp_sim_decision_t decision;
	/* as the plugin decided it at submission (GP_SIM_GPUPLACE) */
	int32_t npin;             /* PIN: nodes and the engine's GPU masks */
	int32_t *pin;
	uint32_t *pin_mask;
	int32_t nbook;            /* CONSTRAIN: the set the engine chose free now,
	                           * which the plugin's ledger holds for the job
	                           * (plugin/job_submit_gpuplace.c), 0 = none */
	int32_t *book;
	uint32_t *book_mask;
	double book_cap_w;        /* the GPU power cap the booked set was scored at */
	int32_t nalts;            /* CONSTRAIN: domain alternatives, in order */
	int32_t *alts;            /* indices into sim->doms */
	int32_t altset;           /* with several alternatives: the id of their set
	                           * (altset_id), for the "cannot start" cache */
	double cap_w, cap_speed;  /* the power cap of its PIN, if any */
	uint32_t switches;        /* --switches=count@max-time the plugin set, 0 = none */
	double switch_until;      /* eligible time + max-time: then Slurm may spread it */
	gp_steer_job_t steer;     /* what the plugin's steering keeps of it */
	gp_sim_decision_t decision0; /* the decision at submission, once steered */
	bool backfilled, violation, steered, killed;
};

/* A Slurm node feature gpuplace's CONSTRAIN names, and its nodes. */
struct dom {
	char feature[GP_NAME_MAX + 16];
	const int32_t *nodes;     /* borrowed from the model, or owned (switches) */
	int32_t n;
	bool owned;
};

/* An entry of the plugin's ledger (plugin/ledger.c). */
struct ledger {
	double time;              /* when it was made */
	int32_t j;                /* the job (its pin, else its book) */
	bool guess;               /* a job passed unchanged: where Slurm would most
	                           * likely start it */
};

/* Jobs of the same request shape share the cost model's ideal step, the
 * simulated profile and, per pass, the knowledge that they cannot start. */
struct shape {
	int32_t gpus, nn, gpn;
	int32_t tp, pp;           /* the trace's hints (0 = none) */
	double params;
	double cf;                /* exposed communication share on the ideal placement */
	gp_job_profile_t prof;    /* the simulated profile */
	double compute_s;         /* the profile's compute time */
	gp_sim_comm_t comm;       /* communication class for the judge */
	double ideal_s;           /* ideal step time with it (0 = none) */
	int32_t min_leaves;       /* fewest leaf switches that hold it (-1: unknown) */
	int never;                /* -1 unknown, 0 can fit the empty cluster, 1 never */
	uint32_t fail_pass[2];    /* pass number at which it failed: [0] now, [1] around the reservation */
};

struct heap_ent {
	double end;
	int32_t j;
};

struct placement {
	int32_t n;
	int32_t *nodes;           /* nnodes capacity */
	uint32_t *mask;
	double slowdown, overhead, cap_w;
	double cap_speed;         /* GPU speed under cap_w (1 = uncapped) */
};

struct sim {
	const gp_cluster_t *c;
	const gp_trace_t *t;
	const gp_sim_policy_t *p;
	gp_sim_opts_t o;
	double comm_fraction;
	gp_error_t *err;

	struct sjob *jobs;
	int32_t njobs;
	struct shape *shapes;
	int32_t nshapes, shapes_cap;

	/* cluster facts */
	bool *eligible;           /* node usable by the simulated partition */
	int32_t *order;           /* eligible nodes in Slurm order (Weight, slurm.conf order) */
	int32_t norder;
	int32_t max_gpn;          /* most GPUs on an eligible node */
	int64_t total_gpus;       /* GPUs on eligible nodes */
	int32_t partition;
	uint32_t part_max_min;    /* partition MaxTime in minutes */
	double *gpu_delta_w;      /* per node: watts one GPU adds at full load */
	uint32_t *gpu_full;       /* per node: the mask of all its GPUs */

	/* dynamic */
	gp_state_t *cur;
	int32_t jobs_cap;         /* capacity of cur->jobs */
	int32_t *run_j;           /* cur->jobs[i] belongs to sim job run_j[i] */
	struct heap_ent *heap;    /* running jobs by true end (events) */
	int32_t nheap;
	struct heap_ent *lheap;   /* running jobs by start + time limit, what
	                           * Slurm plans with: lheap[lhead .. nlheap)
	                           * sorted by that end (entries of ended jobs
	                           * are dropped lazily, from the front), so a
	                           * reservation reads it in order, no copy */
	int32_t nlheap, lhead;
	int32_t qhead, qtail, qlen;
	int64_t free_gpus;        /* free GPUs on eligible up nodes */
	int64_t stranded;         /* free GPUs on partly used eligible nodes */
	int32_t *rack_busy;       /* busy GPUs per rack */
	double *rack_w;           /* estimated draw per rack */
	double *rack_limit;       /* min(cap, cooling) per rack, W (INFINITY = none) */
	bool *rack_over;
	int32_t nover;
	double now;
	uint32_t pass;

	/* engine */
	gp_engine_t *engine;
	gp_cost_scratch_t *scratch;
	gp_rack_view_t *view;
	gp_rack_view_t *view2;
	gp_policy_t resv_policy;  /* the policy without waiting, for reservations */

	/* reservation of the current pass */
	bool have_resv;
	double shadow;
	uint32_t *resv_alloc;     /* alloc_mask | reserved GPUs */
	int64_t resv_free;
	uint32_t *work;           /* scratch alloc masks */
	double *work_rack_w;
	double *resv_rack_w;      /* draw per rack at the shadow time: what runs
	                           * then, the reserved job and the jobs started
	                           * around it */
	double *bf_rack_w;        /* scratch: the larger of now and the shadow */
	bool bf_dirty;            /* rack_w or resv_rack_w changed since bf_rack_w */

	/* plugin-faithful mode */
	struct dom *doms;
	int32_t ndoms;
	uint32_t *snap_alloc;     /* GPUs in use at the plugin's last refresh */
	double *snap_rack_w;      /* the racks' estimated draw then */
	/* Slurm's backfill plans then (sim_plans), node lists copied into
	 * snap_plan_nodes: what a decision before the next refresh reads */
	gp_steer_plan_t *snap_plans;
	int32_t nsnap_plans;
	int32_t *snap_plan_nodes;
	size_t snap_plan_cap;
	double snap_time;
	double next_refresh;      /* when the plugin reads the state next: 2 s
	                           * after its last reading, or the gap after a
	                           * decision that woke it */
	uint64_t nstarts;         /* jobs started so far */
	uint64_t snap_starts;     /* of which the last refresh read (the first
	                           * snap_starts: a job started at the instant of
	                           * the read, after it, is not among them) */
	struct ledger *ledger;
	int32_t nledger, ledger_cap;
	gp_job_alloc_t *recent;   /* jobs ended since the plugin's last refresh:
	                           * its view still lists them */
	int32_t nrecent, recent_cap;
	gp_job_alloc_t *view_jobs; /* scratch: the job list of the plugin's view */
	int32_t view_jobs_cap;
	int32_t guesses;          /* guesses in the ledger at the last plugin_view */
	int32_t constrained_queued; /* jobs it CONSTRAINed, not started */
	int32_t pinned_queued;    /* jobs it PINned, not started */
	double steer_at;          /* the next refresh at which the plugin's
	                           * steering pass may move a job (INFINITY: none) */
	gp_steer_cand_t *steer_cand; /* scratch: the pass's candidates (njobs) */
	int32_t *steer_usable;    /* per GPU count g (0..32): eligible nodes with
	                           * at least g GPUs free in the plugin's view at
	                           * this pass, every ledger entry counted */
	bool steer_usable_ok;     /* steer_usable is of the view as it stands */
	int32_t *steer_moved;     /* the jobs the last pass moved (steer_max) */
	int32_t nsteer_moved;
	int32_t resv_j;           /* the job holding the reservation (have_resv) */
	int32_t *resv_nodes;      /* the nodes its reservation plans for it, as
	                           * Slurm's backfill sets a pending job's
	                           * sched_nodes (none: no reservation, or one
	                           * that is a lower bound of its start only) */
	int32_t nresv_nodes;
	uint32_t *resv_mask;      /* the GPUs of each of those nodes */
	double resv_end;          /* shadow + the reserved job's time limit */
	/* the plans after the first (opts bf_resv > 1): a queued job that
	 * cannot start now or around the plans before it gets the earliest
	 * start at which it fits with them, and the jobs after it may not
	 * delay it either */
	struct xresv {
		int32_t j, n, cap;
		double shadow, end;
		int32_t *nodes;
		uint32_t *mask;
	} *xr;
	int32_t nxr;
	uint32_t *bf_alloc;       /* scratch: GPUs a backfill candidate may not take */
	uint32_t *rmark;          /* reserve(): the nodes the reserved job may take */
	uint32_t rmark_gen;
	int32_t *alt_of;          /* reserve(): a marked node's alternative */
	int32_t *alt_cnt;         /* reserve(): usable nodes per alternative */
	gp_steer_plan_t *plans;   /* scratch: the plans a refresh copies (snap_plans; bf_resv) */
	uint32_t *held;           /* scratch: GPUs planned for jobs, reserve_extra */
	uint32_t *steer_flags;    /* scratch: node flags with the nodes planned
	                           * for jobs ahead of a re-decided job reserved */
	struct heap_ent *sw_heap; /* --switches deadlines (switch_until, job) */
	int32_t nsw_heap;
	bool no_switch_hold;      /* never_fits: --switches waits do not count */
	int64_t *cfail_key;       /* per-pass "cannot start" cache of constrained
	                           * jobs (SIM_CFAIL slots): key shape x domain,
	                           * or shape x set of domains (altset_id) */
	/* the distinct sets of domain alternatives, each once (altset_id):
	 * their sorted indices as "3,7,12" -> id, and scratch to make one */
	gp__nametab_t altsets;
	int32_t nas, *as_tmp;
	char *as_key;
	uint32_t *cfail_pass;     /* 2 per slot, as struct shape's fail_pass */
	uint32_t *allowed;        /* allowed[n] == allowed_gen: node in the alternative */
	uint32_t allowed_gen;
	bool restrict_nodes;      /* baselines keep to allowed nodes */
	bool hres;                /* a -budget baseline's fit is under way */
	double *hres_w;           /* its racks' draw, with what it has taken */
	const double *hres_from;  /* the racks' draw the fit started from */
	double *hres_cnt_w;       /* scratch of tree_fit's count under budgets */
	double *idle_rack_w;      /* each rack's draw with every GPU idle */
	const int32_t *alt_nodes; /* the allowed nodes, alt_n of them */
	int32_t alt_n;

	/* block policy scratch (nblocks each) */
	int32_t *bb_cnt, *ll_cnt, *ll_tmp;
	char *bb_req;

	/* tree policy scratch */
	int32_t *sw_cnt;
	int32_t *leaves;          /* leaf switch indices */
	int32_t nleaves;

	struct placement pl, pl2;
	char *leaf_seen;
	char *rack_seen;

	/* metrics */
	gp_sim_result_t *res;
	double t_first, last_t;
	double busy_gs;           /* busy GPU-seconds */
	double frag_int, frag_time;
	double viol_gs;
	double peak_frac;
	int32_t samples_cap;
	double sample_dt, next_sample;
};

/* ---- small helpers -------------------------------------------------------- */

/* Seconds as int64_t for the engine, saturating (traces may hold times
 * beyond its range). */
static int64_t to_i64(double t)
{
	if (!(t < 9.2e18))
		return INT64_MAX;
	if (!(t > -9.2e18))
		return INT64_MIN;
	return (int64_t)t;
}

static uint32_t full_mask(int n)
{
	return n >= 32 ? ~0u : (1u << n) - 1;
}

/* (the GPU masks are read from a compact array: the scheduling passes ask
 * this of every node, and the node struct is large) */
static int node_free(const struct sim *S, const uint32_t *alloc, int32_t n)
{
	return gp__popcount(S->gpu_full[n] & ~alloc[n]);
}

/* The lowest-numbered k free GPUs of node n. */
static uint32_t take_gpus(const struct sim *S, const uint32_t *alloc, int32_t n, int k)
{
	uint32_t freem = ~alloc[n] & full_mask(S->c->nodes[n].ngpus), m = 0;

	while (k-- > 0 && freem) {
		uint32_t b = freem & -freem;

		m |= b;
		freem &= ~b;
	}
	if (S->hres && S->c->nodes[n].rack >= 0)
		S->hres_w[S->c->nodes[n].rack] += gp__popcount(m) * S->gpu_delta_w[n];
	return m;
}

static int cmp_order(const void *a, const void *b, void *arg)
{
	const gp_cluster_t *c = arg;
	const gp_node_t *x = &c->nodes[*(const int32_t *)a], *y = &c->nodes[*(const int32_t *)b];

	if (x->weight != y->weight)
		return x->weight < y->weight ? -1 : 1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return *(const int32_t *)a - *(const int32_t *)b;
}

static bool heap_less(const struct heap_ent *a, const struct heap_ent *b)
{
	return a->end < b->end || (a->end == b->end && a->j < b->j);
}

static void heap_push(struct heap_ent *h, int32_t *n, struct heap_ent e)
{
	int32_t i = (*n)++;

	while (i > 0) {
		int32_t p = (i - 1) / 2;

		if (!heap_less(&e, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = e;
}

static struct heap_ent heap_pop(struct heap_ent *h, int32_t *n)
{
	struct heap_ent top = h[0], last = h[--(*n)];
	int32_t i = 0;

	for (;;) {
		int32_t l = 2 * i + 1, r = l + 1, m = i;
		const struct heap_ent *mv = &last;

		if (l < *n && heap_less(&h[l], mv)) {
			m = l;
			mv = &h[l];
		}
		if (r < *n && heap_less(&h[r], mv))
			m = r;
		if (m == i)
			break;
		h[i] = h[m];
		i = m;
	}
	if (*n > 0)
		h[i] = last;
	return top;
}

/* ---- shapes and the simulated job profile --------------------------------- */

static void shape_profile(const struct sim *S, const struct shape *sh, gp_job_profile_t *job)
{
	(void)S;
	*job = sh->prof;
}

/* Communication shares given to jobs whose trace has none, when
 * --comm-fraction sets no constant: 0.05 to 0.40 in steps of 0.05, one per
 * job by a hash of its trace id (the same job, the same share, under every
 * policy).  An assumption, not a measurement: no public trace records
 * per-job communication shares; the range spans compute-bound (5 %) to
 * strongly communication-bound (40 %) data-parallel training. */
static const double sim_comm_fractions[] = { 0.05, 0.10, 0.15, 0.20, 0.25, 0.30, 0.35, 0.40 };

/* The communication share of trace job tj. */
static double job_comm_fraction(const struct sim *S, const gp_trace_job_t *tj)
{
	uint64_t x = (uint64_t)tj->id * 0x9E3779B97F4A7C15ULL;

	if (tj->comm_fraction > 0)
		return tj->comm_fraction;
	if (S->comm_fraction > 0)
		return S->comm_fraction;
	x ^= x >> 31;
	x *= 0xBF58476D1CE4E5B9ULL;
	x ^= x >> 29;
	return sim_comm_fractions[x % (sizeof(sim_comm_fractions) / sizeof(sim_comm_fractions[0]))];
}

/* Index of the shape of job tj as (gpus, nn, gpn) with its hints and
 * communication share, created with its ideal step on first use; < 0 on
 * error. */
static int32_t shape_get(struct sim *S, const gp_trace_job_t *tj, int32_t nn, int32_t gpn)
{
	struct shape *sh;
	gp_job_profile_t job;
	double comm = 0, cf = job_comm_fraction(S, tj);
	int32_t i, gpus = tj->gpus;

	for (i = 0; i < S->nshapes; i++)
		if (S->shapes[i].gpus == gpus && S->shapes[i].nn == nn && S->shapes[i].gpn == gpn &&
		    S->shapes[i].tp == tj->tp && S->shapes[i].pp == tj->pp &&
		    S->shapes[i].params == tj->params && S->shapes[i].cf == cf)
			return i;
	if (S->nshapes == S->shapes_cap) {
		int32_t cap = S->shapes_cap ? 2 * S->shapes_cap : 16;
		struct shape *ns = realloc(S->shapes, (size_t)cap * sizeof(*ns));

		if (!ns)
			return gp__errorf(S->err, GP_ENOMEM, "out of memory");
		S->shapes = ns;
		S->shapes_cap = cap;
	}
	sh = &S->shapes[S->nshapes];
	memset(sh, 0, sizeof(*sh));
	sh->gpus = gpus;
	sh->nn = nn;
	sh->gpn = gpn;
	sh->tp = tj->tp;
	sh->pp = tj->pp;
	sh->params = tj->params;
	sh->cf = cf;
	sh->never = -1;
	sh->min_leaves = -1;
	sh->comm = GP_SIM_COMM_DP;
	/* the profile: the trace's hints with the engine's documented defaults
	 * for the sizes they leave out, else the default data-parallel one */
	if (tj->tp > 1 || tj->pp > 1 || tj->params > 0) {
		gp__job_profile_init(&job);
		job.gpus = gpus;
		job.deg[GP_DIM_TP] = tj->tp;
		job.deg[GP_DIM_PP] = tj->pp;
		job.params = tj->params;
		gp__job_profile_fill_defaults(S->c, &job, NULL, 0);
	} else {
		gp__job_profile_default(S->c, gpus, &job);
	}
	job.nodes = nn;
	job.gpus_per_node = gpn;
	sh->prof = job;
	if (gpus > 1) {
		/* exposed communication alone on the ideal placement, then the
		 * compute time that makes it the job's share of the step */
		if (gp__cost_ideal(S->c, &job, -1, S->scratch, &comm, NULL) != GP_OK)
			comm = 0;
		sh->comm = job.deg[GP_DIM_TP] > 1 ? GP_SIM_COMM_TP :
		           job.deg[GP_DIM_EP] > 1 ? GP_SIM_COMM_EP :
		           job.deg[GP_DIM_PP] > 1 ? GP_SIM_COMM_PP : GP_SIM_COMM_DP;
		if (comm > 0) {
			sh->compute_s = comm * (1.0 - cf) / cf;
			sh->prof.compute_s = sh->compute_s;
			job = sh->prof;
			if (gp__cost_ideal(S->c, &job, -1, S->scratch, &sh->ideal_s, NULL) != GP_OK)
				sh->ideal_s = 0;
		}
	}
	return S->nshapes++;
}

/* The request shape of a trace job (sim.h, Requests). */
static void job_shape(const struct sim *S, const gp_trace_job_t *tj, int32_t *nn, int32_t *gpn)
{
	int32_t g = tj->gpus, G = S->max_gpn > 0 ? S->max_gpn : 1, n;

	/* a job larger than the partition never runs: skip the search */
	if (g > S->total_gpus) {
		*nn = (g + G - 1) / G;
		*gpn = G;
		return;
	}
	n = tj->nodes > 0 ? tj->nodes : (g + G - 1) / G;
	if (n < 1)
		n = 1;
	while (n < g && (g % n || g / n > G))
		n++;
	if (n > g)
		n = g;
	*nn = n;
	*gpn = g / n;
}

/* ---- evaluation of a placement ------------------------------------------- */

/* Fill the placement's slowdown, overhead and shape counts with the cost
 * model (baselines; the engine fills its own). */
static int evaluate(struct sim *S, const struct shape *sh, struct placement *pl)
{
	gp_job_profile_t job;
	gp_placement_t gpl = { pl->n, pl->nodes, pl->mask };
	gp_cost_t cost;
	int rc;

	pl->slowdown = 1.0;
	pl->overhead = 0.0;
	pl->cap_w = 0;
	pl->cap_speed = 1.0;
	if (sh->gpus <= 1 || sh->ideal_s <= 0)
		return GP_OK;
	shape_profile(S, sh, &job);
	rc = gp__cost_eval(S->c, &job, &gpl, S->scratch, sh->ideal_s, &cost, NULL);
	if (rc == GP_ENOFIT)
		return PL_NOFIT; /* spans disconnected switches */
	if (rc)
		return gp__errorf(S->err, rc, "cost model: %s", gp_strerror(rc));
	pl->slowdown = cost.slowdown > 1.0 ? cost.slowdown : 1.0;
	pl->overhead = cost.overhead;
	return GP_OK;
}

/* ---- baselines -------------------------------------------------------------- */

/* Room in node n's rack for gpn more GPUs at TDP, in a -budget baseline's
 * fit (sim.h: Slurm's hierarchical resources); always, otherwise. */
static bool hres_room(const struct sim *S, int32_t n, int32_t gpn)
{
	int32_t r = S->c->nodes[n].rack;

	return !S->hres || r < 0 ||
	       S->hres_w[r] + gpn * S->gpu_delta_w[n] <= S->rack_limit[r] * (1.0 + 1e-12);
}

static bool usable(const struct sim *S, const uint32_t *alloc, int32_t n, int32_t gpn)
{
	return S->eligible[n] && (!S->restrict_nodes || S->allowed[n] == S->allowed_gen) &&
	       node_free(S, alloc, n) >= gpn && hres_room(S, n, gpn);
}

static int first_fit(struct sim *S, const struct shape *sh, const uint32_t *alloc,
                     struct placement *pl)
{
	int32_t i;

	pl->n = 0;
	for (i = 0; i < S->norder && pl->n < sh->nn; i++) {
		int32_t n = S->order[i];

		if (!usable(S, alloc, n, sh->gpn))
			continue;
		pl->nodes[pl->n] = n;
		pl->mask[pl->n++] = take_gpus(S, alloc, n, sh->gpn);
	}
	return pl->n == sh->nn ? PL_PLACED : PL_NOFIT;
}

/* Usable nodes under leaf l, in topology order. */
static int32_t take_from_leaf(struct sim *S, const struct shape *sh, const uint32_t *alloc,
                              int32_t l, int32_t want, struct placement *pl)
{
	const gp_switch_t *sw = &S->c->switches[l];
	int32_t i, got = 0;

	if (sh->nn == 1) {
		/* one node: best fit, the fewest free GPUs that hold the job */
		int32_t best = -1, bestfree = 0;

		for (i = 0; i < sw->nnodes; i++) {
			int32_t n = sw->nodes[i], f;

			if (!usable(S, alloc, n, sh->gpn))
				continue;
			f = node_free(S, alloc, n);
			if (best < 0 || f < bestfree) {
				best = n;
				bestfree = f;
			}
		}
		if (best < 0)
			return 0;
		pl->nodes[pl->n] = best;
		pl->mask[pl->n++] = take_gpus(S, alloc, best, sh->gpn);
		return 1;
	}
	for (i = 0; i < sw->nnodes && got < want; i++) {
		int32_t n = sw->nodes[i];

		if (!usable(S, alloc, n, sh->gpn))
			continue;
		pl->nodes[pl->n] = n;
		pl->mask[pl->n++] = take_gpus(S, alloc, n, sh->gpn);
		got++;
	}
	return got;
}

static int tree_fit(struct sim *S, const struct shape *sh, const uint32_t *alloc,
                    struct placement *pl)
{
	const gp_cluster_t *c = S->c;
	int32_t i, k, best = -1, lvl, rem;

	if (c->root < 0)
		return first_fit(S, sh, alloc, pl);
	memset(S->sw_cnt, 0, (size_t)c->nswitches * sizeof(*S->sw_cnt));
	if (S->hres)
		memcpy(S->hres_cnt_w, S->hres_w, (size_t)c->nracks * sizeof(*S->hres_cnt_w));
	/* usable nodes per switch: every node, or only those of the domain
	 * alternative the job is kept to; under rack budgets, only as many
	 * of a rack's nodes as its room holds (the fit takes no more) */
	for (k = 0; k < (S->restrict_nodes ? S->alt_n : c->nnodes); k++) {
		int32_t n = S->restrict_nodes ? S->alt_nodes[k] : k;
		int32_t s = c->nodes[n].leaf, r = c->nodes[n].rack;

		if (s < 0 || !usable(S, alloc, n, sh->gpn))
			continue;
		if (S->hres && r >= 0) {
			double need = sh->gpn * S->gpu_delta_w[n];

			if (S->hres_cnt_w[r] + need > S->rack_limit[r] * (1.0 + 1e-12))
				continue;
			S->hres_cnt_w[r] += need;
		}
		for (; s >= 0; s = c->switches[s].parent)
			S->sw_cnt[s]++;
	}
	/* the lowest level with a switch that holds the job, best fit there */
	for (lvl = 0; lvl < c->nlevels && best < 0; lvl++)
		for (i = 0; i < c->nswitches; i++) {
			const gp_switch_t *sw = &c->switches[i];

			if (sw->level != lvl || sw->disconnected || S->sw_cnt[i] < sh->nn)
				continue;
			if (best < 0 || S->sw_cnt[i] < S->sw_cnt[best])
				best = i;
		}
	pl->n = 0;
	if (best < 0)
		return PL_NOFIT;
	if (c->switches[best].level == 0) {
		take_from_leaf(S, sh, alloc, best, sh->nn, pl);
		return pl->n == sh->nn ? PL_PLACED : PL_NOFIT;
	}
	/* leaves under it: the smallest that holds the rest, else the largest */
	rem = sh->nn;
	while (rem > 0) {
		const gp_switch_t *top = &c->switches[best];
		int32_t fit = -1, most = -1;

		for (i = 0; i < S->nleaves; i++) {
			int32_t l = S->leaves[i];
			const gp_switch_t *lw = &c->switches[l];

			if (lw->first < top->first || lw->first + lw->count > top->first + top->count ||
			    S->sw_cnt[l] <= 0)
				continue;
			if (S->sw_cnt[l] >= rem && (fit < 0 || S->sw_cnt[l] < S->sw_cnt[fit]))
				fit = l;
			if (most < 0 || S->sw_cnt[l] > S->sw_cnt[most])
				most = l;
		}
		if (fit < 0)
			fit = most;
		if (fit < 0)
			return PL_NOFIT;
		i = take_from_leaf(S, sh, alloc, fit, rem, pl);
		if (i <= 0)
			return PL_NOFIT;
		rem -= i;
		S->sw_cnt[fit] = 0;
	}
	return PL_PLACED;
}

/* ---- Slurm's topology/block ------------------------------------------------ */

/* Lowest set level >= from of mask (-1: none), highest set level <= from
 * (-1: none): bit_ffs_from_bit / bit_fls_from_bit on Slurm's block_levels. */
static int level_ffs_from(uint32_t mask, int from)
{
	int L;

	for (L = from < 0 ? 0 : from; L < GP_MAX_BLOCK_LEVELS; L++)
		if ((mask >> L) & 1u)
			return L;
	return -1;
}

static int level_fls_from(uint32_t mask, int from)
{
	int L;

	for (L = from; L >= 0; L--)
		if ((mask >> L) & 1u)
			return L;
	return -1;
}

static int cmp_desc_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x > y ? -1 : x < y;
}

/* State of one block_fit call. */
struct bfit {
	int32_t bpll;             /* base blocks per llblock */
	bool track_ll;            /* llblocks are counted (nodes_on_llblock) */
	int32_t *on_bb, *on_ll;   /* candidate nodes per base block / llblock */
	char *req;                /* base block in use */
	int32_t first, last;      /* the chosen aggregated block's base blocks */
};

static bool ll_has_req(const struct bfit *f, int32_t b)
{
	int32_t j, lo = (b / f->bpll) * f->bpll, hi = lo + f->bpll;

	for (j = lo; j < hi && j < f->last; j++)
		if (f->req[j])
			return true;
	return false;
}

/* _choose_best_bblock(): may base block b replace *best? */
static void choose_bb(const struct bfit *f, int32_t rem, int32_t b, int32_t *best,
                      bool *best_fit, bool *best_same)
{
	bool fit = f->on_bb[b] >= rem;

	if (f->track_ll && (*best < 0 || *best / f->bpll != b / f->bpll)) {
		bool same = ll_has_req(f, b), llfit, bllfit;
		int32_t lln, blln;

		if (*best < 0 || (same && !*best_same)) {
			*best = b, *best_fit = fit, *best_same = same;
			return;
		}
		if (!same && *best_same)
			return;
		lln = f->on_ll[b / f->bpll];
		blln = f->on_ll[*best / f->bpll];
		llfit = lln >= rem;
		bllfit = blln >= rem;
		if (llfit != bllfit) {
			if (llfit)
				*best = b, *best_fit = fit, *best_same = same;
			return;
		}
		/* both hold the rest: the smaller llblock; neither: the fuller */
		if (llfit ? lln < blln : lln > blln) {
			*best = b, *best_fit = fit, *best_same = same;
			return;
		}
		if (lln != blln)
			return;
	}
	/* the fewest base blocks: the smallest that holds the rest, else the
	 * fullest */
	if (*best < 0 || (fit && !*best_fit) ||
	    (!fit && !*best_fit && f->on_bb[b] >= f->on_bb[*best]) ||
	    (fit && f->on_bb[b] <= f->on_bb[*best])) {
		*best = b;
		*best_fit = fit;
	}
}

/*
 * Slurm's topology/block placement (src/plugins/topology/block/
 * eval_nodes_block.c: eval_nodes_block() and _choose_best_bblock(), Slurm
 * 24.11) for a job of sh->nn nodes with sh->gpn free GPUs each; CPUs and
 * memory are not modelled and trace jobs give no --segment.  The job goes
 * into one aggregated block of 2^L consecutive base blocks, L the smallest
 * enforced level whose size holds it.  Among the aggregated blocks with
 * enough usable nodes (counting only the needed number of the fullest
 * next-lower-level blocks, the "llblocks") it takes the one whose least
 * node Weight is lowest, then the one with the fewest usable nodes (the
 * last of equals, as Slurm's <= compare).  Inside it only nodes up to the
 * Weight tier that completes the job are candidates, and every node of a
 * lower tier is taken (eval_nodes_block's req2 nodes, as topology/tree
 * does); the base blocks they are in come first, then base blocks one by
 * one: one in an llblock already used, else one whose llblock holds the
 * rest (the smallest such llblock, else the fullest), then the smallest
 * base block that holds the rest, else the fullest; nodes in a base block
 * in node order.
 */
static int block_fit(struct sim *S, const struct shape *sh, const uint32_t *alloc,
                     struct placement *pl)
{
	const gp_cluster_t *c = S->c;
	int32_t B = c->nblocks, bsize = c->block_base > 0 ? c->block_base : 1;
	int32_t rem = sh->nn, bpb, llsize, max_ll, block_cnt, i, b, k, choice = -1, choice_cnt = 0;
	uint32_t choice_w = 0, wmax = 0;
	int lvl, lllvl;
	struct bfit f = { 0 };

	pl->n = 0;
	if (B <= 0)
		return first_fit(S, sh, alloc, pl);
	f.on_bb = S->bb_cnt;
	f.on_ll = S->ll_cnt;
	f.req = S->bb_req;
	/* the levels (bblock_per_block, block_level, llblock_level) */
	bpb = (rem + bsize - 1) / bsize;
	for (lvl = 0; (1 << lvl) < bpb && lvl < GP_MAX_BLOCK_LEVELS - 1; lvl++)
		;
	lllvl = lvl > 0 ? level_fls_from(c->block_levels, lvl - 1) : 0;
	if (lllvl < 0)
		lllvl = 0;
	lvl = level_ffs_from(c->block_levels, lvl);
	f.bpll = 1 << lllvl;
	llsize = f.bpll * bsize;
	max_ll = (rem + llsize - 1) / llsize;
	if (lvl < 0) {
		bpb = B;
		block_cnt = 1;
	} else {
		bpb = 1 << lvl;
		block_cnt = (B + bpb - 1) / bpb;
	}
	f.track_ll = bpb != f.bpll * max_ll;

	/* usable nodes per base block and llblock, and the aggregated block */
	memset(f.on_bb, 0, (size_t)B * sizeof(*f.on_bb));
	memset(f.on_ll, 0, (size_t)B * sizeof(*f.on_ll));
	for (b = 0; b < B; b++)
		for (k = 0; k < c->blocks[b].nnodes; k++)
			if (usable(S, alloc, c->blocks[b].nodes[k], sh->gpn)) {
				f.on_bb[b]++;
				f.on_ll[b / f.bpll]++;
			}
	for (i = 0; i < block_cnt; i++) {
		int32_t first = i * bpb, last = first + bpb < B ? first + bpb : B, bnc = 0, avail = 0;
		uint32_t w = UINT32_MAX;

		for (b = first; b < last; b++) {
			bnc += f.on_bb[b];
			for (k = 0; k < c->blocks[b].nnodes; k++) {
				int32_t n = c->blocks[b].nodes[k];

				if (c->nodes[n].weight < w && usable(S, alloc, n, sh->gpn))
					w = c->nodes[n].weight;
			}
		}
		if (f.track_ll) {
			/* the max_ll fullest llblocks of this block */
			int32_t nll = 0, j;

			for (j = first / f.bpll; j * f.bpll < last; j++)
				S->ll_tmp[nll++] = f.on_ll[j];
			qsort(S->ll_tmp, (size_t)nll, sizeof(*S->ll_tmp), cmp_desc_i32);
			for (j = 0; j < nll && j < max_ll; j++)
				avail += S->ll_tmp[j];
		} else {
			avail = bnc;
		}
		if (avail < rem || bnc == 0)
			continue;
		if (choice < 0 || w < choice_w || (w == choice_w && bnc <= choice_cnt)) {
			choice = i;
			choice_w = w;
			choice_cnt = bnc;
		}
	}
	if (choice < 0)
		return PL_NOFIT;
	f.first = choice * bpb;
	f.last = f.first + bpb < B ? f.first + bpb : B;

	/* Weight tiers: the tier that completes the job bounds the candidates */
	{
		int32_t have = 0;
		uint32_t tier = 0;

		for (;;) {
			uint32_t next = UINT32_MAX;
			int32_t cnt = 0;

			for (b = f.first; b < f.last; b++)
				for (k = 0; k < c->blocks[b].nnodes; k++) {
					int32_t n = c->blocks[b].nodes[k];
					uint32_t w = c->nodes[n].weight;

					if (w >= tier && w < next && usable(S, alloc, n, sh->gpn))
						next = w;
				}
			if (next == UINT32_MAX)
				return PL_NOFIT; /* not enough usable nodes */
			for (b = f.first; b < f.last; b++)
				for (k = 0; k < c->blocks[b].nnodes; k++)
					cnt += c->nodes[c->blocks[b].nodes[k]].weight == next &&
					       usable(S, alloc, c->blocks[b].nodes[k], sh->gpn);
			have += cnt;
			if (have >= rem) {
				wmax = next;
				break;
			}
			tier = next + 1;
		}
	}
	/* the lower tiers' nodes are taken, their base blocks in use */
	memset(f.req, 0, (size_t)B);
	{
		int32_t last_ll = -1;

		for (b = f.first; b < f.last; b++) {
			for (k = 0; k < c->blocks[b].nnodes; k++) {
				int32_t n = c->blocks[b].nodes[k];

				if (c->nodes[n].weight >= wmax || !usable(S, alloc, n, sh->gpn))
					continue;
				pl->nodes[pl->n] = n;
				pl->mask[pl->n++] = take_gpus(S, alloc, n, sh->gpn);
				rem--;
				f.req[b] = 1;
			}
			if (f.req[b] && f.track_ll && (last_ll < 0 || last_ll / f.bpll != b / f.bpll)) {
				max_ll--;
				last_ll = b;
			}
		}
		if (max_ll < 0)
			return PL_NOFIT;
	}
	/* candidates of the completing tier: first in the base blocks in use */
	for (b = f.first; b < f.last && rem > 0; b++) {
		if (!f.req[b])
			continue;
		for (k = 0; k < c->blocks[b].nnodes && rem > 0; k++) {
			int32_t n = c->blocks[b].nodes[k];

			if (c->nodes[n].weight != wmax || !usable(S, alloc, n, sh->gpn))
				continue;
			pl->nodes[pl->n] = n;
			pl->mask[pl->n++] = take_gpus(S, alloc, n, sh->gpn);
			rem--;
		}
	}
	/* then base blocks one by one */
	for (b = f.first; b < f.last; b++) {
		f.on_bb[b] = 0;
		f.on_ll[b / f.bpll] = 0;
	}
	for (b = f.first; b < f.last; b++) {
		if (f.req[b])
			continue;
		for (k = 0; k < c->blocks[b].nnodes; k++) {
			int32_t n = c->blocks[b].nodes[k];

			f.on_bb[b] += c->nodes[n].weight == wmax && usable(S, alloc, n, sh->gpn);
		}
		f.on_ll[b / f.bpll] += f.on_bb[b];
	}
	while (rem > 0) {
		int32_t best = -1;
		bool best_fit = false, best_same = true;

		for (b = f.first; b < f.last; b++)
			if (!f.req[b])
				choose_bb(&f, rem, b, &best, &best_fit, &best_same);
		if (best < 0 || (max_ll <= 0 && !best_same))
			break;
		f.req[best] = 1;
		for (k = 0; k < c->blocks[best].nnodes && rem > 0; k++) {
			int32_t n = c->blocks[best].nodes[k];

			if (c->nodes[n].weight != wmax || !usable(S, alloc, n, sh->gpn))
				continue;
			pl->nodes[pl->n] = n;
			pl->mask[pl->n++] = take_gpus(S, alloc, n, sh->gpn);
			rem--;
		}
		if (!best_same)
			max_ll--;
	}
	if (rem > 0)
		return PL_NOFIT;
	/* Slurm's allocation is a node bitmap: ranks follow node order */
	for (i = 1; i < pl->n; i++) {
		int32_t n = pl->nodes[i];
		uint32_t m = pl->mask[i];

		for (k = i; k > 0 && pl->nodes[k - 1] > n; k--) {
			pl->nodes[k] = pl->nodes[k - 1];
			pl->mask[k] = pl->mask[k - 1];
		}
		pl->nodes[k] = n;
		pl->mask[k] = m;
	}
	return PL_PLACED;
}

/* ---- the engine ------------------------------------------------------------- */

/* Racks' power view as gp__power_view_fill computes it from the estimate,
 * from the draws rack_w. */
static void fill_view(const struct sim *S, const gp_policy_t *p, const double *rack_w,
                      gp_rack_view_t *view)
{
	const gp_cluster_t *c = S->c;
	int32_t r;

	for (r = 0; r < c->nracks; r++) {
		double cap = c->racks[r].power_cap_kw * 1000.0;
		double cool = c->racks[r].cooling_kw > 0.0 ? c->racks[r].cooling_kw * 1000.0 : cap;
		double limit = fmin(cap, cool) * (1.0 - p->power_margin);

		/* the draw less the limit unfloored too: the score's power
		 * term reads the rack's use from it (decide.c rack_use) */
		view[r].raw_w = limit - rack_w[r];
		view[r].headroom_w = fmax(0.0, view[r].raw_w);
		view[r].cooling_binds = cool < cap;
	}
}

/* The engine's decision for job J as sbatch would ask for it (its nodes,
 * GPUs per node, the partition and its time limit rounded up to minutes,
 * within the partition's MaxTime: never its run time), on state view: the
 * one call both the plugin-faithful and the upper-bound mode make. */
static void sim_request(const struct sim *S, const struct sjob *J, const struct shape *sh,
                        gp_request_t *r)
{
	double lim;

	gp__request_init(r);
	r->gpus = sh->gpus;
	r->min_nodes = r->max_nodes = sh->nn;
	r->gpus_per_node = sh->gpn;
	r->partition = S->partition;
	r->segment_nodes = J->segment; /* the plugin's, as Slurm then reports it */
	lim = ceil(J->limit / 60.0);
	if (lim < 1)
		lim = 1;
	if (lim > S->part_max_min)
		lim = S->part_max_min;
	r->time_limit_min = (uint32_t)lim;
}

/* Is every GPU job held to the racks' budgets (gp_power_view_t.held)?  By
 * Slurm where the site's racks are its licenses or hierarchical resource
 * (rack_budget), and by the engine itself where it places every job (the
 * NAME-ideal mode). */
static bool sim_held(const struct sim *S)
{
	return S->p->rack_budget || S->p->kind == GP_SIM_GPUPLACE_IDEAL;
}

static int sim_decide(struct sim *S, const struct sjob *J, const struct shape *sh,
                      gp_state_t *view, const gp_policy_t *pol, gp_power_view_t *pv, double now,
                      gp_decision_t *d, gp_error_t *derr)
{
	gp_request_t r;
	gp_job_profile_t job;
	int rc;

	sim_request(S, J, sh, &r);
	shape_profile(S, sh, &job);
	rc = gp__decide(S->engine, view, &r, &job, pol, S->c->nracks ? pv : NULL,
	                to_i64(floor(now)), NULL, 0, d, derr);
	gp__request_clear(&r);
	return rc;
}

static int engine_place(struct sim *S, struct sjob *J, const struct shape *sh,
                        const uint32_t *alloc, const double *rack_w, double now,
                        const gp_policy_t *pol, struct placement *pl)
{
	gp_state_t view = *S->cur;
	gp_power_view_t pv = { S->view, gp__power_view_cap_speed, sim_held(S) };
	gp_decision_t d;
	gp_error_t derr;
	gp_policy_t nowait;
	int rc, out;
	int32_t i;

	if (pol->max_wait_s > 0 && J->wait_until >= 0 && now >= J->wait_until) {
		/* it waited once for the set the engine predicted; as the
		 * domain constraint would let Slurm, it now takes the best set
		 * free instead of waiting again */
		nowait = *pol;
		nowait.max_wait_s = 0;
		pol = &nowait;
	}

	view.alloc_mask = (uint32_t *)alloc;
	view.time = to_i64(floor(now));
	fill_view(S, pol, rack_w, S->view);
	rc = sim_decide(S, J, sh, &view, pol, &pv, now, &d, &derr);
	if (rc == GP_EINVAL)
		return PL_NEVER; /* a request this cluster cannot take */
	if (rc)
		return gp__errorf(S->err, rc, "job %u: %s", J->tj->id, derr.text);
	out = d.kind == GP_DECIDE_PIN ? PL_PLACED : d.kind == GP_DECIDE_REJECT ? PL_NEVER :
	      d.waited ? PL_WAIT : PL_NOFIT;
	if (out == PL_WAIT && J->wait_until < 0)
		J->wait_until = now + d.wait_s;
	if (out == PL_PLACED) {
		const gp_scored_t *sc = &d.cands[0];

		pl->n = sc->nnodes;
		for (i = 0; i < sc->nnodes; i++) {
			pl->nodes[i] = sc->nodes[i];
			pl->mask[i] = sc->gpu_mask[i];
		}
		pl->slowdown = sh->gpus > 1 && sh->ideal_s > 0 && sc->cost.slowdown > 1.0 ?
		               sc->cost.slowdown : 1.0;
		/* a power cap slows the job down even alone */
		if (sc->cap_w > 0 && sc->cap_speed > 0 && sc->cap_speed < 1.0 && sh->gpus <= 1)
			pl->slowdown = 1.0 / sc->cap_speed;
		pl->overhead = sc->cost.overhead;
		pl->cap_w = sc->cap_w;
		pl->cap_speed = sc->cap_w > 0 && sc->cap_speed > 0 && sc->cap_speed < 1.0 ?
		                sc->cap_speed : 1.0;
	}
	gp__decision_clear(&d);
	return out;
}

/* How placement pl is spread (sim.h, the judge's classes). */
static void spread_of(const struct sim *S, const struct placement *pl, gp_sim_spread_t *spread,
                      int32_t *count)
{
	const gp_cluster_t *c = S->c;
	int32_t i, dom, leaf, nl = 0, ns = 0;
	bool one_dom = true, one_leaf = true;

	*count = 1;
	if (pl->n <= 1) {
		*spread = GP_SIM_SPREAD_NODE;
		return;
	}
	dom = c->nodes[pl->nodes[0]].nvl_domain;
	leaf = c->nodes[pl->nodes[0]].leaf;
	for (i = 1; i < pl->n; i++) {
		one_dom &= dom >= 0 && c->nodes[pl->nodes[i]].nvl_domain == dom;
		one_leaf &= c->nodes[pl->nodes[i]].leaf == leaf;
	}
	if (one_dom) {
		*spread = GP_SIM_SPREAD_DOMAIN;
		return;
	}
	if (one_leaf) {
		*spread = GP_SIM_SPREAD_LEAF;
		return;
	}
	/* distinct leaves and distinct level-1 switches (their parents); a
	 * node outside the tree counts as its own leaf and spine */
	for (i = 0; i < pl->n; i++) {
		int32_t l = c->nodes[pl->nodes[i]].leaf, k, p;
		bool seen = false, pseen = false;

		for (k = 0; k < i && !seen; k++)
			seen = l >= 0 && c->nodes[pl->nodes[k]].leaf == l;
		if (seen)
			continue;
		nl++;
		p = l >= 0 ? c->switches[l].parent : -1;
		for (k = 0; k < i && !pseen && p >= 0; k++) {
			int32_t lk = c->nodes[pl->nodes[k]].leaf;

			pseen = lk >= 0 && c->switches[lk].parent == p;
		}
		if (!pseen)
			ns++;
	}
	if (ns <= 1) {
		*spread = GP_SIM_SPREAD_LEAVES;
		*count = nl;
	} else {
		*spread = GP_SIM_SPREAD_SPINES;
		*count = ns;
	}
}

/* The judge's run-time factor for placement pl (the table's slowdown, over
 * the speed a power cap leaves). */
static int judge(struct sim *S, const struct shape *sh, struct placement *pl)
{
	gp_sim_spread_t spread;
	int32_t count, i, gpn = 0;
	double f;
	int rc;

	spread_of(S, pl, &spread, &count);
	for (i = 0; i < pl->n; i++)
		if (gp__popcount(pl->mask[i]) > gpn)
			gpn = gp__popcount(pl->mask[i]);
	rc = gp__sim_judge_slowdown(S->o.judge, spread, count, gpn, sh->comm, &f, S->err);
	if (rc)
		return rc;
	pl->slowdown = f / (pl->cap_speed > 0 && pl->cap_speed < 1.0 ? pl->cap_speed : 1.0);
	return GP_OK;
}

/* Slurm's placement of a job the plugin PINned: exactly its nodes, each
 * with the job's GPUs free (the engine's GPUs when still free, else the
 * lowest free ones, as gres/gpu picks). */
static int pinned_fit(struct sim *S, const struct sjob *J, const struct shape *sh,
                      const uint32_t *alloc, struct placement *pl)
{
	int32_t i;

	pl->n = 0;
	for (i = 0; i < J->npin; i++) {
		int32_t n = J->pin[i];

		/* under the racks' budget (the site's PowerHres, sim.h) Slurm
		 * starts it only where every node's rack has the room */
		if (!S->eligible[n] || node_free(S, alloc, n) < sh->gpn || !hres_room(S, n, sh->gpn))
			return PL_NOFIT;
		pl->nodes[pl->n] = n;
		if (!(alloc[n] & J->pin_mask[i]) && gp__popcount(J->pin_mask[i]) == sh->gpn) {
			pl->mask[pl->n++] = J->pin_mask[i];
			if (S->hres && S->c->nodes[n].rack >= 0) /* as take_gpus books it */
				S->hres_w[S->c->nodes[n].rack] += sh->gpn * S->gpu_delta_w[n];
		} else {
			pl->mask[pl->n++] = take_gpus(S, alloc, n, sh->gpn);
		}
	}
	return pl->n == sh->nn ? PL_PLACED : PL_NOFIT;
}

/* The Slurm topology that places the simulated partition (block when its
 * jobs are bound by topology/block blocks, gp__sim_blocks; else tree when
 * the model has switches, else first-fit), within the allowed nodes when
 * restrict_nodes is set. */
static int slurm_fit(struct sim *S, const struct shape *sh, const uint32_t *alloc,
                     struct placement *pl)
{
	return gp__part_blocks(S->c, S->partition) ? block_fit(S, sh, alloc, pl) :
	       S->c->root >= 0 ? tree_fit(S, sh, alloc, pl) : first_fit(S, sh, alloc, pl);
}

static int segment_fit(struct sim *S, const struct shape *sh, const uint32_t *alloc,
                       struct placement *pl, int32_t xseg);

/* Slurm's placement of job J by its own options: in the segments the
 * plugin gave it (--segment, topology/block), else slurm_fit. */
static int job_fit(struct sim *S, const struct sjob *J, const struct shape *sh,
                   const uint32_t *alloc, struct placement *pl)
{
	return J->segment > 0 && gp__part_blocks(S->c, S->partition) ?
	       segment_fit(S, sh, alloc, pl, J->segment) : slurm_fit(S, sh, alloc, pl);
}

/* Slurm's placement of a job the plugin CONSTRAINed: the alternatives of
 * the matching OR in order, the first that can hold the job now wins
 * (slurm-on-one-machine.md, B: "all nodes in ONE alternative ... the first
 * that can start now is taken"); none given: anywhere. */
static int constrained_fit(struct sim *S, const struct sjob *J, const struct shape *sh,
                           const uint32_t *alloc, struct placement *pl)
{
	int32_t a, i;
	int rc = PL_NOFIT;

	if (J->nalts == 0)
		return job_fit(S, J, sh, alloc, pl);
	for (a = 0; a < J->nalts && rc != PL_PLACED; a++) {
		const struct dom *d = &S->doms[J->alts[a]];
		int32_t cnt = 0;

		if (S->hres) /* what a failed alternative took is not taken */
			memcpy(S->hres_w, S->hres_from, (size_t)S->c->nracks * sizeof(*S->hres_w));
		/* no fit takes more nodes than the alternative has usable (each
		 * with its rack's room for it alone: an upper bound under the
		 * racks' budget too), so one short of them is passed over */
		for (i = 0; i < d->n && cnt < sh->nn; i++)
			cnt += usable(S, alloc, d->nodes[i], sh->gpn);
		if (cnt < sh->nn)
			continue;
		if (++S->allowed_gen == 0) {
			memset(S->allowed, 0, (size_t)S->c->nnodes * sizeof(*S->allowed));
			S->allowed_gen = 1;
		}
		for (i = 0; i < d->n; i++)
			S->allowed[d->nodes[i]] = S->allowed_gen;
		S->alt_nodes = d->nodes;
		S->alt_n = d->n;
		S->restrict_nodes = true;
		rc = job_fit(S, J, sh, alloc, pl);
		S->restrict_nodes = false;
	}
	return rc;
}

/* Does Slurm's --switches request of job J let it start on placement pl
 * at now?  As topology/tree's _eval_nodes_topo (src/plugins/topology/tree/
 * eval_nodes_tree.c, at fini): with req_switch set, the leaf switches the
 * allocation touches are counted; before wait4switch seconds have passed
 * since the wait started (the job's eligible time, its submission here)
 * more leaves than req_switch clear best_switch and the job is not
 * started; after that any placement is taken. */
static bool switch_holds(struct sim *S, const struct sjob *J, const struct placement *pl,
                         double now)
{
	const gp_cluster_t *c = S->c;
	int32_t i, nl = 0;

	if (!J->switches || !(now < J->switch_until) || S->no_switch_hold)
		return true;
	for (i = 0; i < pl->n; i++) {
		int32_t l = c->nodes[pl->nodes[i]].leaf;

		if (l >= 0 && !S->leaf_seen[l]) {
			S->leaf_seen[l] = 1;
			nl++;
		}
	}
	for (i = 0; i < pl->n; i++)
		if (c->nodes[pl->nodes[i]].leaf >= 0)
			S->leaf_seen[c->nodes[pl->nodes[i]].leaf] = 0;
	return nl <= (int32_t)J->switches;
}

/* Slurm's topology/block for a job submitted with --segment=S (sim.h,
 * block-segment): a job of at most one base block is placed as block_fit
 * places it; a larger one is cut into nn / S segments of S nodes, S the
 * largest divisor of nn not above the base block size (xseg, when not 0:
 * a --segment the plugin gave the job, which cuts a job of any size), and each segment
 * goes whole into one base block (as eval_nodes_block places segments:
 * no aggregated block needed), the base blocks with the fewest usable
 * nodes that still hold a segment first (best fit), as many segments in
 * one as its usable nodes allow, nodes in node order.  An approximation of
 * Slurm's segment search: it ignores Weight tiers. */
static int segment_fit(struct sim *S, const struct shape *sh, const uint32_t *alloc,
                       struct placement *pl, int32_t xseg)
{
	const gp_cluster_t *c = S->c;
	int32_t bsize = c->block_base > 0 ? c->block_base : 1, seg, need, b, k, i;

	if (c->nblocks <= 0 || (xseg <= 0 && sh->nn <= bsize))
		return block_fit(S, sh, alloc, pl);
	for (seg = bsize; seg > 1 && sh->nn % seg; seg--)
		;
	if (xseg > 0)
		seg = xseg;
	need = sh->nn / seg;
	/* usable nodes per base block */
	for (b = 0; b < c->nblocks; b++) {
		const gp_block_t *bl = &c->blocks[b];

		S->bb_cnt[b] = 0;
		for (k = 0; k < bl->nnodes; k++)
			S->bb_cnt[b] += usable(S, alloc, bl->nodes[k], sh->gpn);
	}
	pl->n = 0;
	while (need > 0) {
		int32_t best = -1;

		for (b = 0; b < c->nblocks; b++)
			if (S->bb_cnt[b] >= seg && (best < 0 || S->bb_cnt[b] < S->bb_cnt[best]))
				best = b;
		if (best < 0)
			return PL_NOFIT;
		for (i = 0; i < seg; i++) {
			const gp_block_t *bl = &c->blocks[best];
			int32_t had = pl->n;

			for (k = 0; k < bl->nnodes; k++) {
				int32_t nd = bl->nodes[k], j;
				bool taken = false;

				if (!usable(S, alloc, nd, sh->gpn))
					continue;
				for (j = 0; j < pl->n && !taken; j++)
					taken = pl->nodes[j] == nd;
				if (taken)
					continue;
				pl->nodes[pl->n] = nd;
				pl->mask[pl->n++] = take_gpus(S, alloc, nd, sh->gpn);
				break;
			}
			if (pl->n == had)
				return PL_NOFIT; /* a node the count had went (a rack's room) */
		}
		S->bb_cnt[best] -= seg;
		need--;
	}
	return PL_PLACED;
}

/* The fewest leaf switches whose eligible nodes with sh->gpn GPUs can hold
 * the job's sh->nn nodes on the idle cluster (what a user asks for with
 * --switches; 1 when one leaf can), cached per shape. */
static int32_t min_leaves(struct sim *S, struct shape *sh)
{
	const gp_cluster_t *c = S->c;
	int32_t i, k, n = 0, got = 0;

	if (sh->min_leaves >= 0)
		return sh->min_leaves;
	for (i = 0; i < c->nswitches; i++) {
		const gp_switch_t *sw = &c->switches[i];
		int32_t cnt = 0;

		if (sw->level != 0)
			continue;
		for (k = 0; k < sw->nnodes; k++) {
			int32_t nd = sw->nodes[k];

			cnt += S->eligible[nd] && c->nodes[nd].ngpus >= sh->gpn;
		}
		S->sw_cnt[n++] = cnt;
	}
	qsort(S->sw_cnt, (size_t)n, sizeof(*S->sw_cnt), cmp_desc_i32);
	for (i = 0; i < n && got < sh->nn; i++)
		got += S->sw_cnt[i];
	sh->min_leaves = i > 0 ? i : 1;
	return sh->min_leaves;
}

/* One placement attempt of job J on the GPUs alloc leaves free. */
static int place(struct sim *S, struct sjob *J, const uint32_t *alloc, const double *rack_w,
                 double now, const gp_policy_t *pol, struct placement *pl)
{
	const struct shape *sh = &S->shapes[J->shape];
	int rc;

	S->res->m.decisions++;
	pl->cap_speed = 1.0;
	pl->cap_w = 0;
	/* the racks' power as Slurm's hierarchical resource (sim.h): the
	 * baselines' -budget forms, and gpuplace's presets where the site
	 * names one (PowerHres) or the policy asks for it, for every job
	 * Slurm starts (PINned, CONSTRAINed, passed) */
	if (S->p->rack_budget && S->p->kind != GP_SIM_GPUPLACE_IDEAL) {
		S->hres = true;
		S->hres_from = rack_w;
		memcpy(S->hres_w, rack_w, (size_t)S->c->nracks * sizeof(*S->hres_w));
	}
	if (S->p->kind == GP_SIM_GPUPLACE_IDEAL) {
		rc = engine_place(S, J, sh, alloc, rack_w, now, pol, pl);
	} else if (S->p->kind == GP_SIM_GPUPLACE && J->decision == GP_SIM_DEC_PIN) {
		rc = pinned_fit(S, J, sh, alloc, pl);
		if (rc == PL_PLACED && !switch_holds(S, J, pl, now))
			rc = PL_NOFIT; /* its --switches, until steered */
		if (rc == PL_PLACED && (rc = evaluate(S, sh, pl)) == PL_PLACED && J->cap_w > 0) {
			/* the cap the engine planned slows the job down */
			pl->cap_w = J->cap_w;
			pl->cap_speed = J->cap_speed;
			pl->slowdown /= J->cap_speed;
		}
	} else if (S->p->kind == GP_SIM_GPUPLACE && J->decision == GP_SIM_DEC_CONSTRAIN) {
		rc = constrained_fit(S, J, sh, alloc, pl);
		if (rc == PL_PLACED && !switch_holds(S, J, pl, now))
			rc = PL_NOFIT;
		if (rc == PL_PLACED)
			rc = evaluate(S, sh, pl);
	} else {
		/* the baselines, and jobs the plugin passes (one GPU) */
		rc = S->p->kind == GP_SIM_TREE || S->p->kind == GP_SIM_TREE_SWITCHES ?
		     tree_fit(S, sh, alloc, pl) :
		     S->p->kind == GP_SIM_BLOCK ? block_fit(S, sh, alloc, pl) :
		     S->p->kind == GP_SIM_BLOCK_SEGMENT ? segment_fit(S, sh, alloc, pl, 0) :
		     S->p->kind == GP_SIM_GPUPLACE ? slurm_fit(S, sh, alloc, pl) :
		     first_fit(S, sh, alloc, pl);
		if (rc == PL_PLACED && S->p->kind == GP_SIM_TREE_SWITCHES &&
		    !switch_holds(S, J, pl, now))
			rc = PL_NOFIT; /* its --switches wait */
		if (rc == PL_PLACED)
			rc = evaluate(S, sh, pl);
	}
	S->hres = false;
	if (rc == PL_PLACED && S->o.judge && (rc = judge(S, sh, pl)) != GP_OK)
		return rc;
	return rc;
}

/* Can the job ever run here (on the idle cluster)?  Cached per shape. */
static int never_fits(struct sim *S, struct sjob *J)
{
	struct shape *sh = &S->shapes[J->shape];
	int rc;

	if (sh->never >= 0)
		return sh->never;
	if (sh->gpn > S->max_gpn || (int64_t)sh->gpus > S->total_gpus) {
		sh->never = 1;
		return 1;
	}
	if (S->p->kind == GP_SIM_GPUPLACE_IDEAL) {
		/* the engine answers REJECT itself at the first attempt */
		sh->never = 0;
		return 0;
	}
	if (S->p->kind == GP_SIM_GPUPLACE && J->decision != GP_SIM_DEC_NONE)
		return 0; /* decided at submission; not a per-shape fact */
	memset(S->work, 0, (size_t)S->c->nnodes * sizeof(*S->work));
	S->no_switch_hold = true; /* a --switches wait ends: not a fact of the shape */
	/* on the idle cluster: every rack at its idle draw (the budget
	 * baselines' racks; the other fits read no power) */
	rc = place(S, J, S->work, S->idle_rack_w, S->now, NULL, &S->pl2);
	S->no_switch_hold = false;
	if (rc < 0)
		return rc;
	sh->never = rc == PL_PLACED ? 0 : 1;
	return sh->never;
}

/* ---- the plugin's decision at submission (plugin-faithful mode) ----------- */

void gp__sim_outcome_facts(const gp_cluster_t *c, const gp_policy_t *p, const gp_request_t *r,
                           const gp_decision_t *d, int32_t unconfirmed, gp_outcome_in_t *in)
{
	int32_t i;

	memset(in, 0, sizeof(*in));
	in->c = c;
	in->d = d;
	in->policy = p;
	in->r = r;
	/* the Slurm the model describes for the request's partition:
	 * topology/block where blocks bind it (a tree partition of a
	 * two-topology topology.yaml is placed by its tree), else
	 * topology/tree where it has a switch tree (as slurm_emit writes
	 * them) */
	in->topology = gp_outcome_topology(c, r, c->nblocks > 0 ? GP_SLURM_TOPO_BLOCK
	                                   : c->root >= 0 ? GP_SLURM_TOPO_TREE
	                                   : GP_SLURM_TOPO_FLAT);
	in->one_weight = true;
	for (i = 1; i < c->nnodes; i++)
		if (c->nodes[i].weight != c->nodes[0].weight)
			in->one_weight = false;
	in->max_switch_wait = SIM_SLURM_MAX_SWITCH_WAIT_S;
	/* the plugin reads the state at every refresh and after each decision,
	 * and the simulator decides on the state as it is: never stale */
	in->state_age_s = 0;
	in->unconfirmed = unconfirmed;
	in->check_block = true;
	/* a trace job asks sbatch for GPUs per node (sim_request): no
	 * --switches, --segment, --ntasks, GPU type of its own; a --segment
	 * the plugin gave it at submission Slurm reports as the job's */
	in->segment = r->segment_nodes > 0 ? (uint32_t)r->segment_nodes : 0;
	in->per_node_ok = true;
	/* PowerLicenses: a CONSTRAIN no one rack's license holds is PINned
	 * (the plugin sets it once slurmctld has the licenses, which the
	 * simulated Slurm has) */
	in->one_rack = c->site.power_lic[0] != '\0';
}

/* GPU jobs the plugin let through whose place is still a guess: its
 * ledger's guesses (plugin/apply.c, ledger.unconfirmed; ledger.unbooked
 * counts passes it could not book for a full ledger or short memory,
 * which the simulated one never is), as of the last plugin_view. */
static int32_t sim_unconfirmed(const struct sim *S)
{
	return S->guesses;
}

/* Does ledger entry e still hold its set at the plugin's last refresh?  As
 * plugin/ledger.c ledger_drops: while its job pends, however long, and
 * until a refresh has seen it started (its GPUs are in the snapshot
 * then); every simulated job is listed, so none expires unseen. */
static bool ledger_holds(const struct sim *S, const struct ledger *e)
{
	const struct sjob *L = &S->jobs[e->j];

	if (L->start_seq && L->start_seq <= S->snap_starts)
		return false; /* a refresh saw it started */
	return !e->guess || S->snap_time < e->time + SIM_PLUGIN_GUESS_S;
}

/* The set ledger entry e holds for its job: its PIN, else what the ledger
 * booked for it (a CONSTRAIN's set, a passed job's guess), with the GPU
 * power cap it was scored at. */
static void ledger_set(const struct sim *S, const struct ledger *e, const int32_t **nodes,
                       const uint32_t **masks, int32_t *n, double *cap_w)
{
	const struct sjob *L = &S->jobs[e->j];

	*nodes = L->npin ? L->pin : L->book;
	*masks = L->npin ? L->pin_mask : L->book_mask;
	*n = L->npin ? L->npin : L->nbook;
	*cap_w = L->npin ? L->cap_w : L->book_cap_w;
}

/* The plugin's view: the GPUs in use at its last refresh plus its ledger
 * (but the entry of job skip, as its prepare_work leaves out the job being
 * re-decided; -1: none). */
static void plugin_view(struct sim *S, uint32_t *view, int32_t skip)
{
	int32_t k, i, kept = 0, guesses = 0;

	memcpy(view, S->snap_alloc, (size_t)S->c->nnodes * sizeof(*view));
	for (k = 0; k < S->nledger; k++) {
		const struct ledger *e = &S->ledger[k];
		const int32_t *nodes;
		const uint32_t *masks;
		int32_t n;
		double cap_w;

		if (!ledger_holds(S, e))
			continue; /* dropped, as the plugin's ledger_prune does */
		guesses += e->guess;
		ledger_set(S, e, &nodes, &masks, &n, &cap_w);
		for (i = 0; e->j != skip && i < n; i++)
			view[nodes[i]] |= masks[i];
		S->ledger[kept++] = *e;
	}
	S->nledger = kept;
	S->guesses = guesses;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

/* The id of J's set of alternatives (several), the same for every job
 * kept to the same domains in any order: *id, or GP_ENOMEM. */
static int altset_id(struct sim *S, const struct sjob *J, int32_t *id)
{
	int32_t *v = S->as_tmp, n = J->nalts, k, dup;
	size_t len = 0;

	memcpy(v, J->alts, (size_t)n * sizeof(*v));
	qsort(v, (size_t)n, sizeof(*v), cmp_i32);
	for (k = 0; k < n; k++)
		len += (size_t)sprintf(S->as_key + len, "%s%d", k ? "," : "", (int)v[k]);
	if (gp__nametab_add(&S->altsets, S->as_key, S->nas, &dup))
		return gp__errorf(S->err, GP_ENOMEM, "out of memory");
	*id = dup >= 0 ? dup : S->nas++;
	return GP_OK;
}

/* Record the CONSTRAIN alternatives "[f1|f2]" / "f1" of features as
 * domain indices. */
static int set_alternatives(struct sim *S, struct sjob *J, const char *features)
{
	char buf[1024], *tok, *save = NULL;
	int32_t k;

	J->nalts = 0;
	free(J->alts);
	J->alts = NULL;
	if (!*features)
		return GP_OK;
	{
		const char *f = features[0] == '[' ? features + 1 : features;
		size_t len = strnlen(f, sizeof(buf) - 1);

		memcpy(buf, f, len);
		buf[len] = '\0';
		if (len && buf[len - 1] == ']')
			buf[len - 1] = '\0';
	}
	if (!(J->alts = malloc(((size_t)S->ndoms + 1) * sizeof(*J->alts))))
		return gp__errorf(S->err, GP_ENOMEM, "out of memory");
	for (tok = strtok_r(buf, "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
		for (k = 0; k < S->ndoms && strcmp(S->doms[k].feature, tok); k++)
			;
		if (k == S->ndoms)
			return gp__errorf(S->err, GP_EINTERNAL, "job %u: CONSTRAIN feature '%s' names "
			                  "no domain of the model", J->tj->id, tok);
		if (J->nalts < S->ndoms)
			J->alts[J->nalts++] = k;
	}
	J->altset = -1;
	if (J->nalts > 1)
		return altset_id(S, J, &J->altset);
	return GP_OK;
}

/* The state the plugin decides on at time now, leaving out the ledger
 * entry of job skip (-1: none): its view of the GPUs in S->work, its job
 * list (what runs, and what ended since its last refresh), the racks'
 * power as its refresh would estimate it under policy pol. */
static int plugin_state(struct sim *S, int32_t skip, double now, const gp_policy_t *pol,
                        gp_state_t *view)
{
	int32_t k;

	*view = *S->cur;
	plugin_view(S, S->work, skip);
	view->alloc_mask = S->work;
	/* its job list is the last refresh's: the jobs running then, those
	 * that ended since included, those started since not (the ledger
	 * holds their GPUs) */
	if (S->nrecent > 0 || S->nstarts > S->snap_starts) {
		int32_t n = S->cur->njobs + S->nrecent, m = 0;

		if (n > S->view_jobs_cap) {
			gp_job_alloc_t *nj = realloc(S->view_jobs, (size_t)n * sizeof(*nj));

			if (!nj)
				return gp__errorf(S->err, GP_ENOMEM, "out of memory");
			S->view_jobs = nj;
			S->view_jobs_cap = n;
		}
		for (k = 0; k < S->cur->njobs; k++)
			if (S->jobs[S->run_j[k]].start_seq <= S->snap_starts)
				S->view_jobs[m++] = S->cur->jobs[k];
		memcpy(S->view_jobs + m, S->recent, (size_t)S->nrecent * sizeof(*S->recent));
		view->jobs = S->view_jobs;
		view->njobs = m + S->nrecent;
	}
	view->time = to_i64(floor(now));
	/* the racks as its last refresh estimated them, less the power of
	 * the ledger's jobs, which that estimate does not hold yet (its
	 * headroom only, as plugin/ledger.c ledger_racks) */
	fill_view(S, pol, S->snap_rack_w, S->view);
	for (k = 0; k < S->nledger; k++) {
		const int32_t *nodes;
		const uint32_t *masks;
		int32_t n;
		double cap_w;

		if (S->ledger[k].j == skip)
			continue;
		ledger_set(S, &S->ledger[k], &nodes, &masks, &n, &cap_w);
		gp_ledger_power_subtract(S->c, S->view, nodes, masks, n, cap_w);
	}
	return GP_OK;
}

/* The ledger holds job j's set (its pin, else its book): a new entry at
 * now unless it has one (whose time stays); guess: the job passed
 * unchanged. */
static int ledger_add(struct sim *S, int32_t j, bool guess)
{
	int32_t k;

	for (k = 0; k < S->nledger; k++)
		if (S->ledger[k].j == j)
			return GP_OK;
	if (S->nledger == S->ledger_cap) {
		int32_t cap = S->ledger_cap ? 2 * S->ledger_cap : 64;
		struct ledger *nl = realloc(S->ledger, (size_t)cap * sizeof(*nl));

		if (!nl)
			return gp__errorf(S->err, GP_ENOMEM, "out of memory");
		S->ledger = nl;
		S->ledger_cap = cap;
	}
	S->ledger[S->nledger++] = (struct ledger){ S->now, j, guess };
	return GP_OK;
}

/* *nodes, *masks, *n := a copy of the n_in nodes and GPU masks given (the
 * old arrays freed); GP_ENOMEM (with *n 0) when memory is short. */
static int copy_set(struct sim *S, const int32_t *nodes_in, const uint32_t *masks_in,
                    int32_t n_in, int32_t **nodes, uint32_t **masks, int32_t *n)
{
	free(*nodes);
	free(*masks);
	*nodes = malloc((size_t)n_in * sizeof(**nodes));
	*masks = malloc((size_t)n_in * sizeof(**masks));
	*n = 0;
	if (!*nodes || !*masks)
		return gp__errorf(S->err, GP_ENOMEM, "out of memory");
	memcpy(*nodes, nodes_in, (size_t)n_in * sizeof(**nodes));
	memcpy(*masks, masks_in, (size_t)n_in * sizeof(**masks));
	*n = n_in;
	return GP_OK;
}

/* Job j's CONSTRAIN was decided on set sc, free now: the ledger holds it
 * until Slurm starts the job somewhere in its domain, as the plugin books
 * every decision's first set that is free now (job_submit_gpuplace.c). */
static int set_book(struct sim *S, int32_t j, const gp_scored_t *sc)
{
	struct sjob *J = &S->jobs[j];
	int rc = copy_set(S, sc->nodes, sc->gpu_mask, sc->nnodes, &J->book, &J->book_mask,
	                  &J->nbook);

	J->book_cap_w = sc->cap_w;
	return rc ? rc : ledger_add(S, j, false);
}

/* Job j (one GPU) passed unchanged: the plugin books where Slurm would most
 * likely start it, the lowest free GPU of the first node in Slurm's order
 * (Weight, then slurm.conf order) with one free in its view, until a
 * refresh lists it started or for SIM_PLUGIN_GUESS_S while it pends
 * (plugin/ledger.c ledger_add_guess); with none free, nothing. */
static int book_guess(struct sim *S, int32_t j)
{
	struct sjob *J = &S->jobs[j];
	int32_t k;

	plugin_view(S, S->work, -1);
	for (k = 0; k < S->norder; k++) {
		int32_t i = S->order[k];
		uint32_t freem = full_mask(S->c->nodes[i].ngpus) & ~S->work[i], m;
		int rc;

		if ((S->cur->node_flags[i] & (GP_NODE_DOWN | GP_NODE_DRAIN | GP_NODE_RESERVED)) ||
		    !freem)
			continue;
		m = freem & (~freem + 1u); /* its lowest free GPU */
		rc = copy_set(S, &i, &m, 1, &J->book, &J->book_mask, &J->nbook);
		return rc ? rc : ledger_add(S, j, true);
	}
	return GP_OK;
}

/* Job j's PIN becomes set sc (its nodes and GPU masks, its cap), and the
 * ledger holds it: a new entry unless it has one (a job steered to a new
 * set keeps its entry, as the plugin's ledger_find path does). */
static int set_pin(struct sim *S, int32_t j, const gp_scored_t *sc)
{
	struct sjob *J = &S->jobs[j];
	int rc = copy_set(S, sc->nodes, sc->gpu_mask, sc->nnodes, &J->pin, &J->pin_mask,
	                  &J->npin);

	if (rc)
		return rc;
	J->cap_w = J->cap_speed = 0;
	if (sc->cap_w > 0 && sc->cap_speed > 0 && sc->cap_speed < 1.0) {
		J->cap_w = sc->cap_w;
		J->cap_speed = sc->cap_speed;
	}
	return ledger_add(S, j, false);
}

/* A decision wakes the plugin's thread: it reads the state the gap after
 * (plugin/state_thread.c), unless it reads it sooner anyway. */
static void refresh_soon(struct sim *S)
{
	S->next_refresh = fmin(S->next_refresh, S->now + SIM_PLUGIN_REFRESH_GAP_S);
}

/* Slurm's plans for the jobs that wait, each with its sched_nodes: the job
 * holding the reservation, and with opts bf_resv > 1 the jobs planned
 * after it (EASY backfill plans one job; Slurm's backfill plans every job
 * it tests).  Returns how many it wrote to plan[]. */
static int32_t sim_plans(struct sim *S, gp_steer_plan_t *plan)
{
	int32_t nplans = 0, k;

	if (S->have_resv && S->nresv_nodes > 0 && S->resv_j >= 0 &&
	    S->jobs[S->resv_j].st == JS_QUEUED) {
		const struct sjob *R = &S->jobs[S->resv_j];

		plan[nplans++] = (gp_steer_plan_t){ .job_id = R->tj->id, .priority = 1,
		                                    .submit_time = to_i64(floor(R->tj->submit_s)),
		                                    .start_time = to_i64(ceil(fmax(S->shadow, 1.0))),
		                                    .nodes = S->resv_nodes,
		                                    .nnodes = S->nresv_nodes };
		for (k = 0; k < S->nxr; k++) {
			const struct xresv *x = &S->xr[k];

			R = &S->jobs[x->j];
			if (R->st != JS_QUEUED)
				continue;
			plan[nplans++] = (gp_steer_plan_t){ .job_id = R->tj->id, .priority = 1,
			                                    .submit_time = to_i64(floor(R->tj->submit_s)),
			                                    .start_time = to_i64(ceil(fmax(x->shadow, 1.0))),
			                                    .nodes = x->nodes, .nnodes = x->n };
		}
	}
	return nplans;
}

/* The plans as the plugin's refresh reads them (with the job list):
 * copied, since Slurm's backfill replans after it. */
static int snap_plans(struct sim *S)
{
	int32_t n = sim_plans(S, S->plans), k;
	size_t need = 0, at = 0;

	for (k = 0; k < n; k++)
		need += (size_t)S->plans[k].nnodes;
	if (need > S->snap_plan_cap) {
		int32_t *grown = realloc(S->snap_plan_nodes, need * sizeof(*grown));

		if (!grown)
			return gp__errorf(S->err, GP_ENOMEM, "out of memory");
		S->snap_plan_nodes = grown;
		S->snap_plan_cap = need;
	}
	for (k = 0; k < n; k++) {
		S->snap_plans[k] = S->plans[k];
		memcpy(S->snap_plan_nodes + at, S->plans[k].nodes,
		       (size_t)S->plans[k].nnodes * sizeof(int32_t));
		S->snap_plans[k].nodes = S->snap_plan_nodes + at;
		at += (size_t)S->plans[k].nnodes;
	}
	S->nsnap_plans = n;
	return GP_OK;
}

/* The plugin's decision for job j at its submission. */
static int plugin_decide(struct sim *S, int32_t j)
{
	struct sjob *J = &S->jobs[j];
	const struct shape *sh = &S->shapes[J->shape];
	const gp_policy_t *pol = &S->p->policy;
	gp_state_t view;
	gp_power_view_t pv = { S->view, gp__power_view_cap_speed, sim_held(S) };
	gp_outcome_in_t in;
	gp_outcome_t act;
	gp_request_t r;
	gp_decision_t d;
	gp_error_t derr;
	int rc;

	if (sh->gpus <= 1) {
		/* not a distributed GPU job: passes unchanged, and a GPU job
		 * is booked where Slurm would most likely start it */
		if (sh->gpus != 1)
			return GP_OK;
		refresh_soon(S);
		return book_guess(S, j);
	}
	S->res->m.decisions++;
	if ((rc = plugin_state(S, -1, S->now, pol, &view)))
		return rc;
	/* the nodes Slurm's backfill planned for the jobs that wait, as the
	 * plugin's last refresh read them, are not free for a new job, which
	 * comes after them all (job_submit_gpuplace.c, as the steering pass:
	 * steer_rules.h); a PIN there would wait for them */
	if (S->nsnap_plans > 0) {
		gp_steer_cand_t kn = { .index = (uint32_t)j, .job_id = J->tj->id, .priority = 0,
		                       .submit_time = to_i64(floor(J->tj->submit_s)) };

		memcpy(S->steer_flags, view.node_flags, (size_t)S->c->nnodes * sizeof(*S->steer_flags));
		if (gp_steer_hold_planned(&kn, to_i64(ceil(S->now + J->limit)), S->snap_plans,
		                          S->nsnap_plans, S->steer_flags, S->c->nnodes) > 0)
			view.node_flags = S->steer_flags;
	}
	rc = sim_decide(S, J, sh, &view, pol, &pv, S->now, &d, &derr);
	if (rc == GP_EINVAL) {
		J->decision = GP_SIM_DEC_REJECT;
		return GP_OK;
	}
	if (rc)
		return gp__errorf(S->err, rc, "job %u: %s", J->tj->id, derr.text);
	/* what the plugin tells Slurm: its own rules (outcome.h) on the
	 * facts of the simulated Slurm */
	sim_request(S, J, sh, &r);
	gp__sim_outcome_facts(S->c, pol, &r, &d, sim_unconfirmed(S), &in);
	gp_outcome(&in, &act);
	if (act.action == GP_ACT_PIN || act.action == GP_ACT_CONSTRAIN)
		refresh_soon(S); /* job_submit_gpuplace.c: a decision wakes the thread */
	if (act.action == GP_ACT_PIN) {
		J->decision = GP_SIM_DEC_PIN;
		gp_steer_job_init(&J->steer, true, to_i64(floor(S->now)), 0.0, false);
		rc = set_pin(S, j, act.set);
		S->pinned_queued++;
	} else if (act.action == GP_ACT_REJECT) {
		J->decision = GP_SIM_DEC_REJECT;
	} else if (act.action == GP_ACT_CONSTRAIN) {
		if (act.switches > 0) {
			/* Slurm's own wait-for-switch: after max-time it may
			 * spread the job */
			J->switches = act.switches;
			J->switch_until = J->tj->submit_s + (double)act.switch_wait;
			heap_push(S->sw_heap, &S->nsw_heap, (struct heap_ent){ J->switch_until, j });
		}
		J->decision = GP_SIM_DEC_CONSTRAIN;
		J->segment = (int32_t)act.segment;
		gp_steer_job_init(&J->steer, false, to_i64(floor(S->now)), d.waited ? d.wait_s : 0.0,
		                  act.switches > 0);
		rc = set_alternatives(S, J, act.features);
		if (!rc && d.ncands > 0 && !d.cands[0].future)
			rc = set_book(S, j, &d.cands[0]);
		S->constrained_queued++;
	}
	/* GP_ACT_PASS needs a GPU type, which no trace job names: left to
	 * Slurm's placement as it stands (GP_SIM_DEC_NONE) */
	gp__request_clear(&r);
	gp__decision_clear(&d);
	return rc;
}

/* ---- the plugin's steering of pending jobs (plugin-faithful mode) -------- */

/* Is the set job j is PINned to no longer free for it in the plugin's view
 * at its refresh (the snapshot plus the other jobs' ledger entries)? */
static bool steer_taken(const struct sim *S, int32_t j, const uint32_t *flags)
{
	const struct sjob *J = &S->jobs[j];
	int32_t i, k, m;

	for (i = 0; i < J->npin; i++) {
		int32_t n = J->pin[i];
		uint32_t alloc = S->snap_alloc[n];

		for (k = 0; k < S->nledger; k++) {
			const struct ledger *e = &S->ledger[k];
			const int32_t *nodes;
			const uint32_t *masks;
			int32_t cnt;
			double cap_w;

			if (e->j == j || !ledger_holds(S, e))
				continue;
			ledger_set(S, e, &nodes, &masks, &cnt, &cap_w);
			for (m = 0; m < cnt; m++)
				if (nodes[m] == n)
					alloc |= masks[m];
		}
		if (gp_steer_node_taken(flags[n], full_mask(S->c->nodes[n].ngpus), alloc,
		                        gp__popcount(J->pin_mask[i])))
			return true;
	}
	return false;
}

/* The plugin's steer_decide for pending job j (candidate k) at its refresh
 * now, with Slurm's plans (the reserved job's nodes): 1 moved (PINned to a
 * set free in its view), 0 not, < 0 error. */
static int steer_one(struct sim *S, const gp_steer_cand_t *k, int64_t now, int *evaluations,
                     const gp_steer_plan_t *plans, int32_t nplans)
{
	int32_t j = (int32_t)k->index;
	struct sjob *J = &S->jobs[j];
	const struct shape *sh = &S->shapes[J->shape];
	gp_power_view_t pv = { S->view, gp__power_view_cap_speed, sim_held(S) };
	gp_state_t view;
	gp_policy_t pol;
	gp_decision_t d;
	gp_error_t derr;
	const gp_scored_t *sc;
	gp_outcome_in_t in;
	gp_request_t r;
	char why[160];
	bool taken = false;
	uint32_t *flags = S->cur->node_flags;
	const gp_steer_plan_t *own = NULL;
	int32_t i, per;
	int rc;

	J->steer.pinned = J->decision == GP_SIM_DEC_PIN;
	/* a job the plugin cut into segments is never steered (its original
	 * is frozen: orig_segmented) */
	if (J->segment > 0 || !gp_steer_due(&J->steer, &S->p->policy, now))
		return 0;
	/* the nodes Slurm's backfill planned for jobs ahead of it are not
	 * free for it (steer_rules.h), as the plugin reads them */
	for (i = 0; i < nplans; i++)
		if (plans[i].job_id == k->job_id)
			own = &plans[i];
	if (nplans > (own ? 1 : 0)) {
		memcpy(S->steer_flags, S->cur->node_flags, (size_t)S->c->nnodes * sizeof(*S->steer_flags));
		if (gp_steer_hold_planned(k, to_i64(ceil(S->now + J->limit)), plans, nplans,
		                          S->steer_flags, S->c->nnodes) > 0)
			flags = S->steer_flags;
	}
	if (J->steer.pinned)
		taken = steer_taken(S, j, flags);
	if (!gp_steer_redecide(&J->steer, &S->p->policy, now, taken, &pol, why, sizeof(why)))
		return 0;
	(*evaluations)++;
	S->res->m.steer_evals++;
	/* while a job it let through is unconfirmed (not seen started), it
	 * may take the set first, so no PIN is made at all (outcome.h): the
	 * re-decision cannot move the job.  (sim_request allocates nothing:
	 * r needs no clearing.) */
	sim_request(S, J, sh, &r);
	gp__sim_outcome_facts(S->c, &pol, &r, NULL, sim_unconfirmed(S), &in);
	if (!gp_outcome_may_pin(&in, why, sizeof(why)))
		return 0;
	/* a PIN needs nn nodes with gpn GPUs free in its view: with fewer the
	 * engine cannot move the job and is not asked (the answer, not the
	 * work, is the plugin's).  Its view is the pass's less its own ledger
	 * entry, which frees at most its own npin nodes. */
	if (!S->steer_usable_ok) {
		int32_t g;

		plugin_view(S, S->work, -1);
		memset(S->steer_usable, 0, 33 * sizeof(*S->steer_usable));
		for (i = 0; i < S->norder; i++)
			S->steer_usable[node_free(S, S->work, S->order[i])]++;
		for (g = 31; g >= 0; g--)
			S->steer_usable[g] += S->steer_usable[g + 1];
		S->steer_usable_ok = true;
	}
	if (sh->gpn > 32 || S->steer_usable[sh->gpn] + (J->decision == GP_SIM_DEC_PIN ? J->npin :
	                                                J->nbook) < sh->nn)
		return 0;
	if ((rc = plugin_state(S, j, S->snap_time, &pol, &view)))
		return rc;
	view.node_flags = flags;
	rc = sim_decide(S, J, sh, &view, &pol, &pv, S->snap_time, &d, &derr);
	if (rc == GP_EINVAL)
		return 0;
	if (rc)
		return gp__errorf(S->err, rc, "job %u: %s", J->tj->id, derr.text);
	if (!gp_steer_moves(&d)) {
		gp__decision_clear(&d);
		return 0;
	}
	sc = &d.cands[0];
	if (J->decision == GP_SIM_DEC_PIN && sc->nnodes == J->npin) {
		for (i = 0; i < sc->nnodes && sc->nodes[i] == J->pin[i]; i++)
			;
		if (i == sc->nnodes) {
			gp__decision_clear(&d); /* the same set again */
			return 0;
		}
	}
	if (gp_steer_plan_keeps(S->c, &pol, own, sc, now)) {
		gp__decision_clear(&d); /* Slurm starts it as compactly soon */
		return 0;
	}
	if (!gp_outcome_pin_exact(&in, sc, &per, why, sizeof(why))) {
		gp__decision_clear(&d); /* Slurm cannot be held to it (the plugin's pin_exact) */
		return 0;
	}
	if (!J->steered)
		J->decision0 = J->decision;
	if (J->decision == GP_SIM_DEC_CONSTRAIN) {
		S->constrained_queued--;
		S->pinned_queued++;
	}
	J->decision = GP_SIM_DEC_PIN;
	rc = set_pin(S, j, sc);
	gp__decision_clear(&d);
	if (rc)
		return rc;
	S->steer_usable_ok = false; /* the ledger holds its new set */
	S->steer_moved[S->nsteer_moved++] = j; /* at most steer_max per pass */
	gp_steer_moved(&J->steer, now);
	/* the plugin's steering update clears the switch request with the
	 * PIN (steer_pass: req_switch = 0), so a spread set starts now */
	J->switches = 0;
	J->steer.every_refresh = false;
	J->steered = true;
	S->res->m.steered++;
	return 1;
}

/* The first refresh at or after t (strictly after `after') the plugin's
 * thread makes unless a decision wakes it: S->next_refresh, then every
 * SIM_PLUGIN_REFRESH_S. */
static double refresh_at(const struct sim *S, double t, double after)
{
	double from = fmax(t, nextafter(after, INFINITY)), r = S->next_refresh;

	if (r < from)
		r += ceil((from - r) / SIM_PLUGIN_REFRESH_S) * SIM_PLUGIN_REFRESH_S;
	return r;
}

/*
 * The plugin's steering pass at its refresh (S->snap_time, the snapshot
 * just taken), as steer_pass: the pending jobs it placed in Slurm's
 * priority order, re-decided within the pass's budget.  *moved: how many
 * it PINned anew.  Sets S->steer_at to the next refresh at which a job
 * becomes due by time alone (its interval over), or the next refresh when
 * the budget ran out; state changes schedule their own (gp__sim_run).
 */
static int steer_pass(struct sim *S, int *moved)
{
	const gp_policy_t *pol = &S->p->policy;
	int64_t now = to_i64(S->snap_time);
	int nc = 0, k, evaluations = 0, rc;
	double wake = INFINITY;
	int32_t j;

	*moved = 0;
	S->nsteer_moved = 0;
	S->steer_usable_ok = false;
	if (pol->steer_max <= 0 || S->pinned_queued + S->constrained_queued <= 0)
		return GP_OK;
	/* the ledger as this refresh leaves it (steer_pass.c prepare_work):
	 * the guesses it has seen started no longer block a PIN */
	plugin_view(S, S->work, -1);
	for (j = S->qhead; j >= 0; j = S->jobs[j].next) {
		const struct sjob *J = &S->jobs[j];

		if (J->decision != GP_SIM_DEC_PIN && J->decision != GP_SIM_DEC_CONSTRAIN)
			continue;
		/* Slurm's default priority (priority/basic) is the same for
		 * every job: the order is submission, then job id */
		S->steer_cand[nc++] = (gp_steer_cand_t){ .index = (uint32_t)j, .job_id = J->tj->id,
		                                         .ref = (uint64_t)j + 1, .priority = 1,
		                                         .submit_time = to_i64(floor(J->tj->submit_s)),
		                                         .pinned = J->decision == GP_SIM_DEC_PIN };
	}
	gp_steer_sort(S->steer_cand, nc);
	/* Slurm's plans as this refresh read them (snap_plans), as the
	 * plugin's pass reads its snapshot's */
	for (k = 0; k < nc && gp_steer_budget(pol, *moved, evaluations); k++) {
		rc = steer_one(S, &S->steer_cand[k], now, &evaluations, S->snap_plans,
		               S->nsnap_plans);
		if (rc < 0)
			return rc;
		*moved += rc;
	}
	if (k < nc) {
		wake = S->snap_time + SIM_PLUGIN_REFRESH_S; /* work left for the next pass */
	} else {
		for (k = 0; k < nc; k++) {
			const gp_steer_job_t *st = &S->jobs[S->steer_cand[k].index].steer;
			double due = st->pinned ? -INFINITY : (double)st->checked + pol->steer_interval_s;

			if (st->moved && (double)st->updated + pol->steer_interval_s > due)
				due = (double)st->updated + pol->steer_interval_s;
			if (due > (double)now && due < wake)
				wake = due;
		}
	}
	if (wake < INFINITY)
		S->steer_at = fmin(S->steer_at, refresh_at(S, wake, S->now));
	return GP_OK;
}

/* ---- state changes -------------------------------------------------------- */

static void node_alloc_change(struct sim *S, int32_t n, uint32_t before, uint32_t after)
{
	int ng = S->c->nodes[n].ngpus, ub = gp__popcount(before), ua = gp__popcount(after);

	if (!S->eligible[n])
		return;
	S->free_gpus += ub - ua;
	if (ub > 0 && ub < ng)
		S->stranded -= ng - ub;
	if (ua > 0 && ua < ng)
		S->stranded += ng - ua;
}

static void rack_add(struct sim *S, int32_t r, int gpus, double w)
{
	bool over;

	S->rack_busy[r] += gpus;
	S->rack_w[r] += w;
	S->bf_dirty = true;
	over = S->rack_w[r] > S->rack_limit[r] * (1.0 + 1e-12);
	if (over != S->rack_over[r]) {
		S->rack_over[r] = over;
		S->nover += over ? 1 : -1;
	}
}

/* Load fraction of a placement's GPUs: 1, or what its power cap allows
 * (never 0, which the power model reads as "not given", i.e. full load). */
static double placement_load(const gp_cluster_t *c, const struct placement *pl)
{
	const gp_node_t *n0;
	const gp_gpu_profile_t *pr;

	if (!(pl->cap_w > 0) || pl->n < 1)
		return 1.0;
	n0 = &c->nodes[pl->nodes[0]];
	if (n0->profile < 0)
		return 1.0;
	pr = &c->profiles[n0->profile];
	if (!(pr->tdp_w > pr->idle_w))
		return 1.0;
	return fmin(1.0, fmax(1e-6, (pl->cap_w - pr->idle_w) / (pr->tdp_w - pr->idle_w)));
}

/* Add the draw of placement pl at load to the per-rack watts w. */
static void placement_watts(const struct sim *S, const struct placement *pl, double load,
                            double *w)
{
	int32_t i;

	for (i = 0; i < pl->n; i++) {
		int32_t n = pl->nodes[i];

		if (S->c->nodes[n].rack >= 0)
			w[S->c->nodes[n].rack] += gp__popcount(pl->mask[i]) * load * S->gpu_delta_w[n];
	}
}

/* Take job j off the queue. */
static void queue_remove(struct sim *S, int32_t j)
{
	struct sjob *J = &S->jobs[j];

	if (J->prev >= 0)
		S->jobs[J->prev].next = J->next;
	else
		S->qhead = J->next;
	if (J->next >= 0)
		S->jobs[J->next].prev = J->prev;
	else
		S->qtail = J->prev;
	J->prev = J->next = -1;
	S->qlen--;
}

/* Insert e into lheap[lhead .. nlheap) after the entries that end no
 * later (binary search, then a move of the later ones).  A job starts
 * once, so the njobs + 1 entries allocated always hold every insertion. */
static void lsorted_insert(struct sim *S, struct heap_ent e)
{
	int32_t lo = S->lhead, hi = S->nlheap;

	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;

		if (S->lheap[mid].end <= e.end)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(S->lheap + lo + 1, S->lheap + lo, (size_t)(S->nlheap - lo) * sizeof(*S->lheap));
	S->lheap[lo] = e;
	S->nlheap++;
}

static int start_job(struct sim *S, int32_t j, const struct placement *pl, double now,
                     bool backfilled)
{
	const gp_cluster_t *c = S->c;
	struct sjob *J = &S->jobs[j];
	gp_job_alloc_t *a;
	int32_t i, nl = 0, nr = 0;
	double load;
	bool viol = false;

	if (S->cur->njobs == S->jobs_cap) {
		int32_t cap = S->jobs_cap ? 2 * S->jobs_cap : 256;
		gp_job_alloc_t *nj = realloc(S->cur->jobs, (size_t)cap * sizeof(*nj));
		int32_t *nr_ = realloc(S->run_j, (size_t)cap * sizeof(*nr_));

		if (nj)
			S->cur->jobs = nj;
		if (nr_)
			S->run_j = nr_;
		if (!nj || !nr_)
			return gp__errorf(S->err, GP_ENOMEM, "out of memory");
		S->jobs_cap = cap;
	}
	a = &S->cur->jobs[S->cur->njobs];
	memset(a, 0, sizeof(*a));
	a->nodes = malloc((size_t)pl->n * sizeof(*a->nodes));
	a->gpu_mask = malloc((size_t)pl->n * sizeof(*a->gpu_mask));
	if (!a->nodes || !a->gpu_mask) {
		free(a->nodes);
		free(a->gpu_mask);
		return gp__errorf(S->err, GP_ENOMEM, "out of memory");
	}
	load = placement_load(c, pl);
	for (i = 0; i < pl->n; i++) {
		int32_t n = pl->nodes[i];
		uint32_t before = S->cur->alloc_mask[n];

		if (before & pl->mask[i]) {
			free(a->nodes);
			free(a->gpu_mask);
			return gp__errorf(S->err, GP_EINTERNAL,
			                  "job %u: GPU mask 0x%x of node %s is already allocated (0x%x)",
			                  J->tj->id, pl->mask[i], c->nodes[n].name, before);
		}
		a->nodes[i] = n;
		a->gpu_mask[i] = pl->mask[i];
		S->cur->alloc_mask[n] |= pl->mask[i];
		node_alloc_change(S, n, before, S->cur->alloc_mask[n]);
		if (c->nodes[n].leaf >= 0 && !S->leaf_seen[c->nodes[n].leaf]) {
			S->leaf_seen[c->nodes[n].leaf] = 1;
			nl++;
		}
		if (c->nodes[n].rack >= 0) {
			int32_t r = c->nodes[n].rack;

			if (!S->rack_seen[r]) {
				S->rack_seen[r] = 1;
				nr++;
			}
			rack_add(S, r, gp__popcount(pl->mask[i]),
			         gp__popcount(pl->mask[i]) * load * S->gpu_delta_w[n]);
			if (S->rack_over[r])
				viol = true;
		}
	}
	for (i = 0; i < pl->n; i++) {
		int32_t n = pl->nodes[i];

		if (c->nodes[n].leaf >= 0)
			S->leaf_seen[c->nodes[n].leaf] = 0;
		if (c->nodes[n].rack >= 0)
			S->rack_seen[c->nodes[n].rack] = 0;
	}
	a->nnodes = pl->n;
	a->job_id = J->tj->id;
	a->load = load;
	free(J->nodes);
	free(J->node_gpus);
	J->nodes = malloc((size_t)pl->n * sizeof(*J->nodes));
	J->node_gpus = malloc((size_t)pl->n);
	if (!J->nodes || !J->node_gpus) {
		free(J->nodes);
		free(J->node_gpus);
		J->nodes = NULL;
		J->node_gpus = NULL;
		return gp__errorf(S->err, GP_ENOMEM, "out of memory");
	}
	for (i = 0; i < pl->n; i++) {
		J->nodes[i] = pl->nodes[i];
		J->node_gpus[i] = (uint8_t)gp__popcount(pl->mask[i]);
	}
	spread_of(S, pl, &J->spread, &J->spread_count);
	J->start = now;
	J->slowdown = pl->slowdown;
	J->overhead = pl->overhead;
	J->load = load;
	/* it runs its duration x slowdown, or until Slurm kills it at its
	 * time limit; Slurm and the engine know only the limit */
	J->end = now + J->tj->duration_s * pl->slowdown;
	J->killed = J->end > now + J->limit;
	if (J->killed)
		J->end = now + J->limit;
	a->end_time = to_i64(ceil(now + J->limit));
	J->nnodes = pl->n;
	J->node0 = pl->nodes[0];
	J->nleaves = nl;
	J->nracks = nr;
	J->backfilled = backfilled;
	J->violation = viol;
	J->run = S->cur->njobs;
	S->run_j[S->cur->njobs++] = j;
	J->st = JS_RUNNING;
	J->start_seq = ++S->nstarts;
	if (S->p->kind == GP_SIM_GPUPLACE && J->decision == GP_SIM_DEC_CONSTRAIN)
		S->constrained_queued--;
	if (S->p->kind == GP_SIM_GPUPLACE && J->decision == GP_SIM_DEC_PIN)
		S->pinned_queued--;
	heap_push(S->heap, &S->nheap, (struct heap_ent){ J->end, j });
	lsorted_insert(S, (struct heap_ent){ J->start + J->limit, j });
	if (S->have_resv)
		/* the GPUs are taken for the reservation's planning too */
		for (i = 0; i < pl->n; i++) {
			int32_t n = pl->nodes[i];
			uint32_t newly = pl->mask[i] & ~S->resv_alloc[n];

			S->resv_alloc[n] |= pl->mask[i];
			if (S->eligible[n])
				S->resv_free -= gp__popcount(newly);
		}
	queue_remove(S, j);
	return GP_OK;
}

static bool recent_grow(struct sim *S)
{
	int32_t cap = S->recent_cap ? 2 * S->recent_cap : 64;
	gp_job_alloc_t *n = realloc(S->recent, (size_t)cap * sizeof(*n));

	if (!n)
		return false; /* the view then forgets it: only less conservative */
	S->recent = n;
	S->recent_cap = cap;
	return true;
}

static void recent_clear(struct sim *S)
{
	int32_t i;

	for (i = 0; i < S->nrecent; i++) {
		free(S->recent[i].nodes);
		free(S->recent[i].gpu_mask);
	}
	S->nrecent = 0;
}

static void end_job(struct sim *S, int32_t j)
{
	const gp_cluster_t *c = S->c;
	struct sjob *J = &S->jobs[j];
	gp_job_alloc_t *a = &S->cur->jobs[J->run];
	int32_t i, last;

	for (i = 0; i < a->nnodes; i++) {
		int32_t n = a->nodes[i];
		uint32_t before = S->cur->alloc_mask[n];

		S->cur->alloc_mask[n] &= ~a->gpu_mask[i];
		node_alloc_change(S, n, before, S->cur->alloc_mask[n]);
		if (c->nodes[n].rack >= 0)
			rack_add(S, c->nodes[n].rack, -gp__popcount(a->gpu_mask[i]),
			         -gp__popcount(a->gpu_mask[i]) * J->load * S->gpu_delta_w[n]);
	}
	if (S->snap_alloc && J->start_seq <= S->snap_starts &&
	    (S->nrecent < S->recent_cap || recent_grow(S))) {
		/* the plugin's view lists it until its next refresh (a job
		 * started since that refresh it never listed) */
		S->recent[S->nrecent++] = *a;
	} else {
		free(a->nodes);
		free(a->gpu_mask);
	}
	last = --S->cur->njobs;
	if (J->run != last) {
		S->cur->jobs[J->run] = S->cur->jobs[last];
		S->run_j[J->run] = S->run_j[last];
		S->jobs[S->run_j[J->run]].run = J->run;
	}
	J->st = JS_DONE;
	J->run = -1;
	S->res->m.completed++;
}

static void reject_job(struct sim *S, int32_t j)
{
	if (S->p->kind == GP_SIM_GPUPLACE && S->jobs[j].decision == GP_SIM_DEC_CONSTRAIN)
		S->constrained_queued--;
	if (S->p->kind == GP_SIM_GPUPLACE && S->jobs[j].decision == GP_SIM_DEC_PIN)
		S->pinned_queued--;
	queue_remove(S, j);
	S->jobs[j].st = JS_REJECTED;
	S->res->m.rejected++;
}

/* ---- the reservation (EASY backfill) ------------------------------------- */

/* Placement attempts a reservation of J may make (SIM_MAX_RESV_TRIES*): a
 * PINned job's are not limited, its attempt checks its own nodes only. */
static int32_t resv_tries(const struct sim *S, const struct sjob *J)
{
	return S->p->kind == GP_SIM_GPUPLACE_IDEAL ? SIM_MAX_RESV_TRIES_ENGINE :
	       S->p->kind == GP_SIM_GPUPLACE && J->decision == GP_SIM_DEC_PIN ? INT32_MAX :
	       SIM_MAX_RESV_TRIES;
}

/* Stamp the nodes job J may be placed on (its PIN, or its domain
 * alternatives) in S->rmark with a new generation; for alternatives, each
 * node's alternative in S->alt_of and each alternative's nodes usable for
 * J in alloc now in S->alt_cnt.  True when the alternatives are disjoint
 * (alt_of and alt_cnt then hold). */
static bool resv_mark_nodes(struct sim *S, const struct sjob *J, const uint32_t *alloc)
{
	const struct shape *sh = &S->shapes[J->shape];
	int32_t a, i;
	bool disjoint = true;

	if (++S->rmark_gen == 0) {
		memset(S->rmark, 0, (size_t)S->c->nnodes * sizeof(*S->rmark));
		S->rmark_gen = 1;
	}
	if (J->decision == GP_SIM_DEC_PIN) {
		for (i = 0; i < J->npin; i++)
			S->rmark[J->pin[i]] = S->rmark_gen;
		return false;
	}
	for (a = 0; a < J->nalts; a++) {
		const struct dom *d = &S->doms[J->alts[a]];

		S->alt_cnt[a] = 0;
		for (i = 0; i < d->n; i++) {
			int32_t n = d->nodes[i];

			disjoint = disjoint && S->rmark[n] != S->rmark_gen;
			S->rmark[n] = S->rmark_gen;
			S->alt_of[n] = a;
			S->alt_cnt[a] += usable(S, alloc, n, sh->gpn);
		}
	}
	return disjoint;
}

/* Earliest predicted completion at which the policy can place J, and the
 * GPUs it would take then: sets have_resv, shadow, resv_alloc, resv_free. */
static int reserve(struct sim *S, struct sjob *J)
{
	const gp_cluster_t *c = S->c;
	const struct shape *sh = &S->shapes[J->shape];
	int32_t i, k, tries = 0;
	int64_t freeg = S->free_gpus;
	int rc = PL_NOFIT;
	double last_tried = S->now;
	int32_t max_tries = resv_tries(S, J);
	/* a job kept to its PINned nodes or to its domain alternatives, with
	 * no --switches deadline and no rack budget, fits or not by the GPUs
	 * of those nodes alone: an attempt after ends that freed none of them
	 * fails as the last one did, and is not made (it still counts as
	 * tried) */
	bool local = S->p->kind == GP_SIM_GPUPLACE && !S->p->rack_budget && !J->switches &&
	             ((J->decision == GP_SIM_DEC_CONSTRAIN && J->nalts > 0) ||
	              J->decision == GP_SIM_DEC_PIN);
	bool dirty = true;
	/* a job kept to domain alternatives fits only where one of them has
	 * as many usable nodes as it needs: with disjoint alternatives, each
	 * one's count is kept up as ends free nodes, and no attempt is made
	 * before one has enough (it still counts as tried) */
	bool counted = false;
	int32_t most = 0;

	S->restrict_nodes = false;
	if (S->p->kind == GP_SIM_GPUPLACE &&
	    (local || (J->decision == GP_SIM_DEC_CONSTRAIN && J->nalts > 0))) {
		counted = resv_mark_nodes(S, J, S->cur->alloc_mask) &&
		          J->decision == GP_SIM_DEC_CONSTRAIN;
		for (k = 0; counted && k < J->nalts; k++)
			most = S->alt_cnt[k] > most ? S->alt_cnt[k] : most;
	}
	S->have_resv = false;
	S->nresv_nodes = 0;
	memcpy(S->work, S->cur->alloc_mask, (size_t)c->nnodes * sizeof(*S->work));
	memcpy(S->work_rack_w, S->rack_w, (size_t)c->nracks * sizeof(*S->work_rack_w));
	/* running jobs by their planned end (start + time limit, as Slurm's
	 * backfill plans), read in order (usually a few find the
	 * reservation) */
	i = S->lhead;
	while (i < S->nlheap) {
		double t = S->lheap[i].end;

		/* release every job planned to end at t */
		while (i < S->nlheap && S->lheap[i].end == t) {
			struct heap_ent e = S->lheap[i++];
			const struct sjob *R = &S->jobs[e.j];
			const gp_job_alloc_t *a;

			if (R->st != JS_RUNNING)
				continue; /* ended early: an entry left behind */
			a = &S->cur->jobs[R->run];

			for (k = 0; k < a->nnodes; k++) {
				int32_t nd = a->nodes[k];
				bool in = S->rmark[nd] == S->rmark_gen,
				     was = counted && in && usable(S, S->work, nd, sh->gpn);

				S->work[nd] &= ~a->gpu_mask[k];
				if (S->eligible[nd])
					freeg += gp__popcount(a->gpu_mask[k]);
				if (c->nodes[nd].rack >= 0)
					S->work_rack_w[c->nodes[nd].rack] -=
						gp__popcount(a->gpu_mask[k]) * R->load * S->gpu_delta_w[nd];
				dirty = dirty || (local && in);
				if (counted && in && !was && usable(S, S->work, nd, sh->gpn) &&
				    ++S->alt_cnt[S->alt_of[nd]] > most)
					most = S->alt_cnt[S->alt_of[nd]];
			}
		}
		if (freeg < sh->gpus)
			continue;
		if (++tries > max_tries) {
			/* a lower bound of the start: nothing may run past it */
			S->have_resv = true;
			S->shadow = last_tried;
			memset(S->resv_alloc, 0xff, (size_t)c->nnodes * sizeof(*S->resv_alloc));
			S->resv_free = 0;
			memcpy(S->resv_rack_w, S->rack_w, (size_t)c->nracks * sizeof(*S->resv_rack_w));
			S->bf_dirty = true;
			return GP_OK;
		}
		last_tried = t;
		if ((local && !dirty) || (counted && most < sh->nn))
			continue;
		rc = place(S, J, S->work, S->work_rack_w, t, &S->resv_policy, &S->pl2);
		if (rc < 0)
			return rc;
		if (rc == PL_PLACED) {
			S->shadow = t;
			break;
		}
		dirty = false;
	}
	if (rc != PL_PLACED)
		return GP_OK; /* no reservation: backfill is unconstrained */
	S->have_resv = true;
	memcpy(S->resv_alloc, S->cur->alloc_mask, (size_t)c->nnodes * sizeof(*S->resv_alloc));
	S->resv_free = S->free_gpus;
	memcpy(S->resv_rack_w, S->work_rack_w, (size_t)c->nracks * sizeof(*S->resv_rack_w));
	placement_watts(S, &S->pl2, placement_load(c, &S->pl2), S->resv_rack_w);
	S->bf_dirty = true;
	S->resv_end = S->shadow + J->limit;
	for (k = 0; k < S->pl2.n; k++) {
		int32_t nd = S->pl2.nodes[k];
		uint32_t newly = S->pl2.mask[k] & ~S->resv_alloc[nd];

		S->resv_alloc[nd] |= S->pl2.mask[k];
		if (S->eligible[nd])
			S->resv_free -= gp__popcount(newly);
		S->resv_mask[S->nresv_nodes] = S->pl2.mask[k];
		S->resv_nodes[S->nresv_nodes++] = nd;
	}
	return GP_OK;
}

/* The GPUs planned for jobs that still hold them after time t into
 * S->held: the first reservation's and every later one's, each until its
 * planned end (so a later plan never takes GPUs an earlier one holds,
 * even before that one starts: a conservative reading of Slurm's
 * node_space map, which lets a plan use them until the earlier start). */
static void held_at(struct sim *S, double t)
{
	int32_t k, i;

	memset(S->held, 0, (size_t)S->c->nnodes * sizeof(*S->held));
	if (S->resv_end > t)
		for (i = 0; i < S->nresv_nodes; i++)
			S->held[S->resv_nodes[i]] |= S->resv_mask[i];
	for (k = 0; k < S->nxr; k++)
		if (S->xr[k].end > t)
			for (i = 0; i < S->xr[k].n; i++)
				S->held[S->xr[k].nodes[i]] |= S->xr[k].mask[i];
}

/* Plan a start for queued job j that could not start now, after the plans
 * of this pass (opts bf_resv > 1): the first planned end of a running job
 * (start + time limit, as reserve()) or of a plan at which it fits on the
 * GPUs neither running nor planned for another job then.  None is made
 * when the first reservation is only a lower bound (nodes unknown), when
 * the attempts run out, or when it never fits; the racks' power is not
 * planned for these (the first reservation's is). */
static int reserve_extra(struct sim *S, int32_t j)
{
	const gp_cluster_t *c = S->c;
	struct sjob *J = &S->jobs[j];
	const struct shape *sh = &S->shapes[J->shape];
	int32_t i, k, nev, room, tries = 0;
	int32_t max_tries = resv_tries(S, J);
	double t = S->now;
	struct xresv *x;
	int rc;

	if (S->nxr >= S->o.bf_resv - 1 || !S->have_resv || S->nresv_nodes == 0 ||
	    J->st != JS_QUEUED || j == S->resv_j)
		return GP_OK;
	memcpy(S->work, S->cur->alloc_mask, (size_t)c->nnodes * sizeof(*S->work));
	memcpy(S->work_rack_w, S->rack_w, (size_t)c->nracks * sizeof(*S->work_rack_w));
	nev = S->lhead;
	for (;;) {
		double next = INFINITY;

		/* the next instant anything ends: a running job by its plan,
		 * or a plan */
		if (nev < S->nlheap)
			next = S->lheap[nev].end;
		if (S->resv_end > t && S->resv_end < next)
			next = S->resv_end;
		for (k = 0; k < S->nxr; k++)
			if (S->xr[k].end > t && S->xr[k].end < next)
				next = S->xr[k].end;
		if (!isfinite(next))
			return GP_OK; /* never fits beside the plans */
		t = fmax(next, t); /* a running job past its planned end: now */
		while (nev < S->nlheap && S->lheap[nev].end <= t) {
			struct heap_ent e = S->lheap[nev++];
			const struct sjob *R = &S->jobs[e.j];
			const gp_job_alloc_t *a;

			if (R->st != JS_RUNNING)
				continue;
			a = &S->cur->jobs[R->run];
			for (k = 0; k < a->nnodes; k++) {
				int32_t nd = a->nodes[k];

				S->work[nd] &= ~a->gpu_mask[k];
				if (c->nodes[nd].rack >= 0)
					S->work_rack_w[c->nodes[nd].rack] -=
						gp__popcount(a->gpu_mask[k]) * R->load * S->gpu_delta_w[nd];
			}
		}
		if (++tries > max_tries)
			return GP_OK;
		held_at(S, t);
		/* the nodes with GPUs enough for J beside the plans: with fewer
		 * than it needs no policy places it, and no attempt is made
		 * (it still counts as tried, as reserve()'s) */
		for (i = 0, room = 0; i < c->nnodes; i++) {
			S->held[i] |= S->work[i];
			room += S->eligible[i] && node_free(S, S->held, i) >= sh->gpn;
		}
		if (room < sh->nn)
			continue;
		rc = place(S, J, S->held, S->work_rack_w, t, &S->resv_policy, &S->pl2);
		if (rc < 0)
			return rc;
		if (rc == PL_PLACED)
			break;
		if (rc == PL_NEVER)
			return GP_OK;
	}
	x = &S->xr[S->nxr];
	if (x->cap < S->pl2.n) {
		int32_t *nn = realloc(x->nodes, (size_t)S->pl2.n * sizeof(*nn));
		uint32_t *nm = nn ? realloc(x->mask, (size_t)S->pl2.n * sizeof(*nm)) : NULL;

		if (nn)
			x->nodes = nn;
		if (!nm)
			return gp__errorf(S->err, GP_ENOMEM, "out of memory");
		x->mask = nm;
		x->cap = S->pl2.n;
	}
	x->j = j;
	x->shadow = t;
	x->end = t + J->limit;
	x->n = S->pl2.n;
	memcpy(x->nodes, S->pl2.nodes, (size_t)x->n * sizeof(*x->nodes));
	memcpy(x->mask, S->pl2.mask, (size_t)x->n * sizeof(*x->mask));
	S->nxr++;
	return GP_OK;
}

/* The GPUs a backfill candidate ending at end may not take: base (the
 * GPUs in use, or those and the first plan's) and the GPUs of every later
 * plan that starts before end.  base itself when no later plan does. */
static const uint32_t *bf_mask(struct sim *S, const uint32_t *base, double end)
{
	int32_t k, i;
	bool any = false;

	for (k = 0; k < S->nxr && !any; k++)
		any = S->xr[k].shadow < end;
	if (!any)
		return base;
	memcpy(S->bf_alloc, base, (size_t)S->c->nnodes * sizeof(*S->bf_alloc));
	for (k = 0; k < S->nxr; k++)
		if (S->xr[k].shadow < end)
			for (i = 0; i < S->xr[k].n; i++)
				S->bf_alloc[S->xr[k].nodes[i]] |= S->xr[k].mask[i];
	return S->bf_alloc;
}

/* ---- scheduling pass -------------------------------------------------------- */

/* Try to start job j now: 1 started, 0 not, < 0 error.  As a backfill
 * candidate (after a reservation) it must end before the shadow time or
 * keep off the reserved GPUs. */
static int try_start_(struct sim *S, int32_t j, bool backfill);

/* Where job J's "cannot start this pass" marks live ([0] now, [1] around
 * the reservation): its shape's, or for a job the plugin CONSTRAINed to at
 * most one domain the slot of (shape, domain), or none (a PINned job has
 * nodes of its own, a slot taken by another key). */
static uint32_t *fail_cache(struct sim *S, const struct sjob *J, struct shape *sh)
{
	int64_t key;
	int32_t k;
	uint32_t h;
	/* within its --switches wait a job is stricter than its shape: its
	 * switch count is part of the key (every job still waiting with that
	 * count fails alike) */
	uint32_t sw = J->switches && S->now < J->switch_until ? J->switches : 0;

	if (S->p->kind != GP_SIM_GPUPLACE || J->decision == GP_SIM_DEC_NONE)
		return sw ? NULL : sh->fail_pass;
	if (J->decision != GP_SIM_DEC_CONSTRAIN || !S->cfail_key || sw > 0xff || J->segment > 0)
		return NULL; /* (segments: fits unlike the shape's others) */
	/* one alternative: its domain; several: their set, after the domains
	 * (no alternative fits whatever their order) */
	key = ((int64_t)J->shape << 40) | ((int64_t)sw << 32) |
	      (uint32_t)(J->nalts == 0 ? S->ndoms : J->nalts == 1 ? J->alts[0] :
	                 S->ndoms + 1 + J->altset);
	h = (uint32_t)(((uint64_t)key * 0x9e3779b97f4a7c15ULL) >> 40) % SIM_CFAIL;
	for (k = 0; k < SIM_CFAIL_PROBES; k++, h = (h + 1) % SIM_CFAIL) {
		if (S->cfail_key[h] == key)
			return &S->cfail_pass[2 * h];
		if (S->cfail_key[h] < 0) {
			S->cfail_key[h] = key;
			return &S->cfail_pass[2 * h];
		}
	}
	return NULL;
}

/* try_start_, and the decision the plugin would have logged when it first
 * saw the job: PIN when it started at once, REJECT, else CONSTRAIN. */
static int try_start(struct sim *S, int32_t j, bool backfill)
{
	struct sjob *J = &S->jobs[j];
	int rc = try_start_(S, j, backfill);

	if (rc >= 0 && S->p->kind == GP_SIM_GPUPLACE_IDEAL && J->decision == GP_SIM_DEC_NONE)
		J->decision = J->st == JS_RUNNING ? GP_SIM_DEC_PIN :
		              J->st == JS_REJECTED ? GP_SIM_DEC_REJECT : GP_SIM_DEC_CONSTRAIN;
	return rc;
}

static int try_start_(struct sim *S, int32_t j, bool backfill)
{
	struct sjob *J = &S->jobs[j];
	struct shape *sh = &S->shapes[J->shape];
	int32_t r;
	uint32_t *fp;
	int rc;

	rc = never_fits(S, J);
	if (rc < 0)
		return rc;
	if (rc == 1) {
		reject_job(S, j);
		return 0;
	}
	fp = fail_cache(S, J, sh);
	if ((!fp || fp[0] != S->pass) && S->free_gpus >= sh->gpus &&
	    (!backfill || !S->have_resv || S->now + J->limit <= S->shadow)) {
		/* the later plans (opts bf_resv) it would still run at */
		const uint32_t *a = backfill && S->have_resv ?
		                    bf_mask(S, S->cur->alloc_mask, S->now + J->limit) :
		                    S->cur->alloc_mask;

		rc = place(S, J, a, S->rack_w, S->now, &S->p->policy, &S->pl);
		if (rc < 0)
			return rc;
		if (rc == PL_NEVER) {
			reject_job(S, j);
			return 0;
		}
		if (rc == PL_PLACED && (!backfill || !S->have_resv ||
		                        S->now + J->limit <= S->shadow)) {
			rc = start_job(S, j, &S->pl, S->now, backfill);
			if (rc)
				return rc;
			return 1;
		}
		if (rc == PL_NOFIT && fp && a == S->cur->alloc_mask)
			fp[0] = S->pass;
		if (!backfill || !S->have_resv)
			return 0;
	}
	if (!backfill || !S->have_resv || (fp && fp[1] == S->pass) ||
	    S->resv_free < sh->gpus)
		return 0;
	/* around the reservation: off its GPUs, and within every rack's limit
	 * both now and at the shadow time, when the reserved job draws too */
	if (S->bf_dirty) {
		for (r = 0; r < S->c->nracks; r++)
			S->bf_rack_w[r] = fmax(S->rack_w[r], S->resv_rack_w[r]);
		S->bf_dirty = false;
	}
	{
		const uint32_t *a = bf_mask(S, S->resv_alloc, S->now + J->limit);

		rc = place(S, J, a, S->bf_rack_w, S->now, &S->p->policy, &S->pl);
		if (rc < 0)
			return rc;
		if (rc == PL_NEVER) {
			reject_job(S, j);
			return 0;
		}
		if (rc != PL_PLACED) {
			if (rc == PL_NOFIT && fp && a == S->resv_alloc)
				fp[1] = S->pass;
			return 0;
		}
	}
	placement_watts(S, &S->pl, placement_load(S->c, &S->pl), S->resv_rack_w);
	S->bf_dirty = true;
	rc = start_job(S, j, &S->pl, S->now, true);
	return rc ? rc : 1;
}

/* A pass.  At an instant with arrivals only, when a reservation stands
 * from the last pass, nothing was freed since and every queued job has
 * been tried against that state, so only the new jobs (from first_new on)
 * are tried, as backfill candidates at their queue position; a
 * completion makes the whole queue be tried again. */
static int schedule(struct sim *S, int32_t first_new, int32_t qlen_before, bool freed)
{
	int32_t j, next, tested = 0;
	int rc;

	if (!freed && S->have_resv && qlen_before > 0 && first_new >= 0) {
		S->res->m.passes++;
		tested = qlen_before - 1;
		for (j = first_new; j >= 0; j = next) {
			next = S->jobs[j].next;
			if (++tested > S->o.bf_max_job_test)
				break;
			rc = try_start(S, j, true);
			if (rc == 0)
				rc = reserve_extra(S, j);
			if (rc < 0)
				return rc;
		}
		return GP_OK;
	}
	S->pass++;
	S->res->m.passes++;
	S->have_resv = false;
	S->nresv_nodes = 0;
	S->nxr = 0;
	for (j = S->qhead; j >= 0; j = next) {
		bool resv_before = S->have_resv;

		next = S->jobs[j].next;
		if (resv_before && ++tested > S->o.bf_max_job_test)
			break;
		rc = try_start(S, j, resv_before);
		if (rc == 0 && resv_before)
			rc = reserve_extra(S, j);
		if (rc < 0)
			return rc;
		if (rc == 0 && !resv_before && S->jobs[j].st == JS_QUEUED) {
			/* the first job that cannot start gets the reservation */
			S->resv_j = j;
			rc = reserve(S, &S->jobs[j]);
			if (rc < 0)
				return rc;
			if (!S->have_resv) {
				/* cannot be placed even when all has ended (power,
				 * policy): let the others pass it */
				S->have_resv = true;
				S->shadow = INFINITY;
				memcpy(S->resv_alloc, S->cur->alloc_mask,
				       (size_t)S->c->nnodes * sizeof(*S->resv_alloc));
				S->resv_free = S->free_gpus;
				memcpy(S->resv_rack_w, S->rack_w,
				       (size_t)S->c->nracks * sizeof(*S->resv_rack_w));
				S->bf_dirty = true;
			}
		}
	}
	return GP_OK;
}

/* ---- metrics ----------------------------------------------------------------- */

static int sample(struct sim *S, double t)
{
	gp_sim_result_t *R = S->res;
	int32_t r;

	if (R->nsamples == S->samples_cap) {
		int32_t cap = S->samples_cap ? 2 * S->samples_cap : 1024;
		double *nt = realloc(R->t, (size_t)cap * sizeof(*nt));
		double *nu = nt ? realloc(R->util, (size_t)cap * sizeof(*nu)) : NULL;
		int32_t *nq = nu ? realloc(R->queued, (size_t)cap * sizeof(*nq)) : NULL;
		double *nw = nq ? realloc(R->rack_w, (size_t)cap * (size_t)(R->nracks + 1) *
		                          sizeof(*nw)) : NULL;

		if (nt)
			R->t = nt;
		if (nu)
			R->util = nu;
		if (nq)
			R->queued = nq;
		if (!nw)
			return gp__errorf(S->err, GP_ENOMEM, "out of memory");
		R->rack_w = nw;
		S->samples_cap = cap;
	}
	R->t[R->nsamples] = t;
	R->util[R->nsamples] = S->total_gpus ?
		(double)(S->total_gpus - S->free_gpus) / (double)S->total_gpus : 0;
	R->queued[R->nsamples] = S->qlen;
	for (r = 0; r < R->nracks; r++)
		R->rack_w[(size_t)R->nsamples * (size_t)R->nracks + (size_t)r] = S->rack_w[r];
	R->nsamples++;
	return GP_OK;
}

/* Keep every k-th sample. */
static void thin(struct sim *S, int32_t k)
{
	gp_sim_result_t *R = S->res;
	size_t nr = (size_t)R->nracks;
	int32_t i, o = 0;

	for (i = 0; i < R->nsamples; i += k, o++) {
		R->t[o] = R->t[i];
		R->util[o] = R->util[i];
		R->queued[o] = R->queued[i];
		memmove(&R->rack_w[(size_t)o * nr], &R->rack_w[(size_t)i * nr], nr * sizeof(double));
	}
	R->nsamples = o;
}

/* The state held from last_t until t: integrate, and sample. */
static int advance(struct sim *S, double t)
{
	double dt = t - S->last_t;
	int32_t r;
	int rc;

	if (dt > 0) {
		int64_t busy = S->total_gpus - S->free_gpus;

		S->busy_gs += (double)busy * dt;
		if (S->free_gpus > 0) {
			S->frag_int += (double)S->stranded / (double)S->free_gpus * dt;
			S->frag_time += dt;
		}
		if (S->nover > 0)
			for (r = 0; r < S->c->nracks; r++)
				if (S->rack_over[r])
					S->viol_gs += (double)S->rack_busy[r] * dt;
		while (S->next_sample <= t) {
			double nx;

			if ((rc = sample(S, S->next_sample)))
				return rc;
			nx = S->next_sample + S->sample_dt;
			if (S->res->nsamples >= 4 * (S->o.samples > 0 ? S->o.samples : 500)) {
				/* the run outlasts the guess: keep every other
				 * point and sample half as often */
				thin(S, 2);
				S->sample_dt *= 2;
				nx = S->res->t[S->res->nsamples - 1] + S->sample_dt;
			}
			if (!(nx > S->next_sample) || !isfinite(nx)) {
				/* times beyond double precision: stop sampling */
				S->next_sample = INFINITY;
				break;
			}
			S->next_sample = nx;
		}
	}
	for (r = 0; r < S->c->nracks; r++)
		if (isfinite(S->rack_limit[r]) && S->rack_limit[r] > 0 &&
		    S->rack_w[r] / S->rack_limit[r] > S->peak_frac)
			S->peak_frac = S->rack_w[r] / S->rack_limit[r];
	S->last_t = t;
	return GP_OK;
}

/* Conservation check after an event (o->check). */
static int check(struct sim *S)
{
	const gp_cluster_t *c = S->c;
	uint32_t *m = S->work;
	int64_t freeg = 0, strand = 0;
	int32_t i, k, r;

	memset(m, 0, (size_t)c->nnodes * sizeof(*m));
	for (i = 0; i < S->cur->njobs; i++) {
		const gp_job_alloc_t *a = &S->cur->jobs[i];

		if (S->jobs[S->run_j[i]].st != JS_RUNNING || S->jobs[S->run_j[i]].run != i)
			return gp__errorf(S->err, GP_EINTERNAL, "t=%.0f: running job %u out of place",
			                  S->now, a->job_id);
		for (k = 0; k < a->nnodes; k++) {
			if (m[a->nodes[k]] & a->gpu_mask[k])
				return gp__errorf(S->err, GP_EINTERNAL,
				                  "t=%.0f: GPU of node %s booked twice (job %u)", S->now,
				                  c->nodes[a->nodes[k]].name, a->job_id);
			m[a->nodes[k]] |= a->gpu_mask[k];
		}
	}
	for (i = 0; i < c->nnodes; i++) {
		int ng = c->nodes[i].ngpus, u = gp__popcount(m[i]);

		if (m[i] != S->cur->alloc_mask[i] || (m[i] & ~full_mask(ng)))
			return gp__errorf(S->err, GP_EINTERNAL,
			                  "t=%.0f: node %s: allocation 0x%x, jobs hold 0x%x", S->now,
			                  c->nodes[i].name, S->cur->alloc_mask[i], m[i]);
		if (!S->eligible[i])
			continue;
		freeg += ng - u;
		if (u > 0 && u < ng)
			strand += ng - u;
	}
	if (freeg != S->free_gpus || strand != S->stranded)
		return gp__errorf(S->err, GP_EINTERNAL, "t=%.0f: free GPUs %lld/%lld, stranded %lld/%lld",
		                  S->now, (long long)S->free_gpus, (long long)freeg,
		                  (long long)S->stranded, (long long)strand);
	if (c->nracks > 0) {
		gp_rack_view_t *want = S->view2;

		/* the draws must be the power model's own estimate */
		if (gp__power_estimate_all(c, S->cur, S->work_rack_w) != GP_OK)
			return gp__errorf(S->err, GP_ENOMEM, "out of memory");
		for (r = 0; r < c->nracks; r++)
			if (fabs(S->work_rack_w[r] - S->rack_w[r]) > 1e-6 * fmax(1.0, S->rack_w[r]))
				return gp__errorf(S->err, GP_EINTERNAL,
				                  "t=%.0f: rack %s draws %.3f W by the power model, %.3f W "
				                  "as kept", S->now, c->racks[r].name, S->work_rack_w[r],
				                  S->rack_w[r]);
		gp__power_view_fill(c, S->cur, NULL, &S->resv_policy, S->now, want);
		fill_view(S, &S->resv_policy, S->rack_w, S->view);
		for (r = 0; r < c->nracks; r++)
			if (fabs(want[r].headroom_w - S->view[r].headroom_w) > 1e-6 * fmax(1.0, want[r].headroom_w) ||
			    fabs(want[r].raw_w - S->view[r].raw_w) > 1e-6 * fmax(1.0, fabs(want[r].raw_w)))
				return gp__errorf(S->err, GP_EINTERNAL,
				                  "t=%.0f: rack %s headroom %.3f W (%.3f W unfloored), "
				                  "engine's view %.3f W (%.3f W)", S->now, c->racks[r].name,
				                  want[r].headroom_w, want[r].raw_w, S->view[r].headroom_w,
				                  S->view[r].raw_w);
	}
	return GP_OK;
}

/* ---- set-up and the run ------------------------------------------------------- */

void gp__sim_opts_defaults(gp_sim_opts_t *o)
{
	memset(o, 0, sizeof(*o));
	/* Slurm's default bf_max_job_test (slurm.conf(5), SchedulerParameters) */
	o->bf_max_job_test = 500;
	o->samples = 500;
	o->comm_fraction = 0; /* per job: the trace's, else sim_comm_fractions */
	o->limit_seed = 1;
	o->bf_resv = 1;
}

int32_t gp__sim_partition(const gp_cluster_t *c)
{
	gp_request_t r;
	int32_t q;

	gp__request_init(&r);
	q = gp__request_partition(&r, c);
	return q < 0 && c->nparts > 0 ? 0 : q;
}

bool gp__sim_blocks(const gp_cluster_t *c)
{
	return gp__part_blocks(c, gp__sim_partition(c));
}

/* The error of a block policy on a cluster whose simulated partition is
 * not placed by topology/block. */
static int no_blocks_policy(const gp_cluster_t *c, const char *name, gp_error_t *err)
{
	int32_t q = c ? gp__sim_partition(c) : -1;

	if (c && c->nblocks > 0 && q >= 0)
		return gp__errorf(err, GP_EINVAL, "policy '%s': the simulated partition '%s' is "
		                  "placed by another topology of topology.yaml than the block one "
		                  "(its Topology=, or the cluster default), not by topology/block",
		                  name, c->parts[q].name);
	return gp__errorf(err, GP_EINVAL, "policy '%s' needs a cluster whose topology.conf or "
	                  "topology.yaml has topology/block blocks", name);
}

int gp__sim_policy_parse(const char *name, const gp_cluster_t *c, gp_sim_policy_t *out,
                         gp_error_t *err)
{
	gp_error_t perr;
	char base[32];
	size_t len;

	memset(out, 0, sizeof(*out));
	if (!name || !*name)
		return gp__errorf(err, GP_EINVAL, "empty policy name");
	snprintf(out->name, sizeof(out->name), "%s", name);
	len = strlen(name);
	if (len > 7 && !strcmp(name + len - 7, "-budget") && len - 7 < sizeof(base)) {
		/* a Slurm baseline with the racks' power budgets (sim.h) */
		int rc;

		memcpy(base, name, len - 7);
		base[len - 7] = '\0';
		rc = gp__sim_policy_parse(base, c, out, err);
		if (rc)
			return rc;
		if (out->kind == GP_SIM_GPUPLACE_IDEAL)
			return gp__errorf(err, GP_EINVAL, "policy '%s': '-budget' is for Slurm's "
			                  "baselines and gpuplace's presets as the plugin decides; "
			                  "the -ideal bound places on its own", name);
		snprintf(out->name, sizeof(out->name), "%s", name);
		out->rack_budget = true;
		return GP_OK;
	}
	if (!strcmp(name, "first-fit")) {
		out->kind = GP_SIM_FIRST_FIT;
		return GP_OK;
	}
	if (!strcmp(name, "tree")) {
		out->kind = GP_SIM_TREE;
		return GP_OK;
	}
	if (!strncmp(name, "tree-switches", 13) && (!name[13] || name[13] == '@')) {
		double T = GP_SIM_MAX_SWITCH_WAIT_S;

		if (name[13] == '@' && gp__parse_double(name + 14, 0, 1e9, &T))
			return gp__errorf(err, GP_EINVAL, "policy '%s': the wait after '@' must be "
			                  "seconds from 0 to 1e9", name);
		if (!c || c->root < 0 || gp__sim_blocks(c))
			return gp__errorf(err, GP_EINVAL, "policy '%s' needs a cluster whose Slurm "
			                  "places the simulated partition by topology/tree (switches, "
			                  "no blocks)", name);
		out->kind = GP_SIM_TREE_SWITCHES;
		out->switch_wait_s = T;
		return GP_OK;
	}
	if (!strcmp(name, "block-segment")) {
		if (!c || !gp__sim_blocks(c))
			return no_blocks_policy(c, name, err);
		out->kind = GP_SIM_BLOCK_SEGMENT;
		return GP_OK;
	}
	if (!strcmp(name, "block")) {
		if (!c || !gp__sim_blocks(c))
			return no_blocks_policy(c, name, err);
		out->kind = GP_SIM_BLOCK;
		return GP_OK;
	}
	out->kind = GP_SIM_GPUPLACE;
	len = strlen(name);
	if (len > 6 && !strcmp(name + len - 6, "-ideal") && len - 6 < sizeof(base)) {
		/* the upper-bound mode of a preset or of site */
		out->kind = GP_SIM_GPUPLACE_IDEAL;
		memcpy(base, name, len - 6);
		base[len - 6] = '\0';
		name = base;
	}
	if (!strcmp(name, "site")) {
		if (!c || !c->conf_dir[0])
			return gp__errorf(err, GP_EINVAL,
			                  "policy 'site' needs a cluster loaded from a conf dir "
			                  "(its slurm.conf SchedulerParameters)");
		out->rack_budget = out->kind == GP_SIM_GPUPLACE && gp__site_racks_held(c);
		return gp__policy_site(c, &out->policy, err);
	}
	if (gp__policy_preset(name, &out->policy, &perr) == GP_OK) {
		/* as gp__policy_site: the larger of the preset's and the site's */
		if (c && c->site.power_margin > out->policy.power_margin)
			out->policy.power_margin = c->site.power_margin;
		/* a site whose racks' power is Slurm's hierarchical resource
		 * (PowerHres) or one license per rack (PowerLicenses): the
		 * plugin asks for it on every GPU job.  The licenses are
		 * modelled as the same budget (no start over a rack's count)
		 * and the PIN of a job no one rack's license holds
		 * (gp__sim_outcome_facts); the plugin's keeping of a job to one
		 * rack and the steering pass's moves between racks are not
		 * (gpuplace.conf(5)) */
		out->rack_budget = out->kind == GP_SIM_GPUPLACE && c && gp__site_racks_held(c);
		return GP_OK;
	}
	return gp__errorf(err, GP_ENOENT,
	                  "unknown policy '%s': use first-fit, tree, tree-switches[@T], block, "
	                  "block-segment, "
	                  "balanced, pack, performance, "
	                  "power-save or site (the last five also as NAME-ideal; all but "
	                  "the -ideal ones also as NAME-budget)", out->name);
}

void gp__sim_result_destroy(gp_sim_result_t *r)
{
	int32_t i;

	if (!r)
		return;
	for (i = 0; r->jobs && i < r->njobs; i++) {
		free(r->jobs[i].nodes);
		free(r->jobs[i].node_gpus);
	}
	free(r->jobs);
	free(r->t);
	free(r->util);
	free(r->queued);
	free(r->rack_w);
	free(r->rack_limit_w);
	free(r);
}

static void sim_free(struct sim *S)
{
	int32_t i;

	for (i = 0; S->jobs && i < S->njobs; i++) {
		free(S->jobs[i].nodes);
		free(S->jobs[i].node_gpus);
		free(S->jobs[i].pin);
		free(S->jobs[i].pin_mask);
		free(S->jobs[i].book);
		free(S->jobs[i].book_mask);
		free(S->jobs[i].alts);
	}
	for (i = 0; S->doms && i < S->ndoms; i++)
		if (S->doms[i].owned)
			free((void *)S->doms[i].nodes);
	free(S->doms);
	free(S->snap_alloc);
	free(S->steer_cand);
	free(S->steer_usable);
	free(S->steer_moved);
	free(S->sw_heap);
	free(S->ledger);
	free(S->allowed);
	recent_clear(S);
	free(S->recent);
	free(S->view_jobs);
	free(S->cfail_key);
	free(S->cfail_pass);
	gp__nametab_free(&S->altsets);
	free(S->as_tmp);
	free(S->as_key);
	free(S->jobs);
	free(S->shapes);
	free(S->eligible);
	free(S->order);
	free(S->gpu_delta_w);
	free(S->gpu_full);
	gp_state_destroy(S->cur);
	free(S->run_j);
	free(S->heap);
	free(S->lheap);
	free(S->rack_busy);
	free(S->rack_w);
	free(S->snap_rack_w);
	free(S->snap_plans);
	free(S->snap_plan_nodes);
	free(S->rack_limit);
	free(S->hres_w);
	free(S->hres_cnt_w);
	free(S->idle_rack_w);
	free(S->rack_over);
	gp__engine_destroy(S->engine);
	gp__cost_scratch_destroy(S->scratch);
	free(S->view);
	free(S->view2);
	free(S->resv_alloc);
	free(S->resv_nodes);
	free(S->resv_mask);
	free(S->bf_alloc);
	free(S->rmark);
	free(S->alt_of);
	free(S->alt_cnt);
	free(S->plans);
	free(S->held);
	if (S->xr)
		for (i = 0; i < S->o.bf_resv - 1; i++) {
			free(S->xr[i].nodes);
			free(S->xr[i].mask);
		}
	free(S->xr);
	free(S->steer_flags);
	free(S->work);
	free(S->work_rack_w);
	free(S->resv_rack_w);
	free(S->bf_rack_w);
	free(S->sw_cnt);
	free(S->bb_cnt);
	free(S->ll_cnt);
	free(S->ll_tmp);
	free(S->bb_req);
	free(S->leaves);
	free(S->pl.nodes);
	free(S->pl.mask);
	free(S->pl2.nodes);
	free(S->pl2.mask);
	free(S->leaf_seen);
	free(S->rack_seen);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double quantile(double *v, int32_t n, double q)
{
	double pos;
	int32_t i;

	if (n <= 0)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	pos = q * (double)(n - 1);
	i = (int32_t)pos;
	if (i >= n - 1)
		return v[n - 1];
	return v[i] + (pos - (double)i) * (v[i + 1] - v[i]);
}

static int finish_metrics(struct sim *S)
{
	gp_sim_result_t *R = S->res;
	gp_sim_metrics_t *m = &R->m;
	double *jct = malloc(((size_t)S->njobs + 1) * sizeof(*jct));
	double *wait = malloc(((size_t)S->njobs + 1) * sizeof(*wait));
	double gpuh = 0, ovh = 0, slow = 0, t_end = S->t_first, useful = 0;
	double wsize[GP_SIM_NSIZE] = { 0 }, wgh = 0, gh_all = 0;
	int32_t i, k, n = 0;

	if (!jct || !wait) {
		free(jct);
		free(wait);
		return gp__errorf(S->err, GP_ENOMEM, "out of memory");
	}
	for (i = 0; i < S->njobs; i++) {
		struct sjob *J = &S->jobs[i];
		gp_sim_job_t *o = &R->jobs[i];
		double gh;

		o->id = J->tj->id;
		o->gpus = J->tj->gpus;
		o->submit_s = J->tj->submit_s;
		o->duration_s = J->tj->duration_s;
		o->limit_s = J->limit;
		o->rejected = J->st == JS_REJECTED;
		o->decision = J->steered ? J->decision0 : J->decision;
		o->steered = J->steered;
		o->start_s = -1;
		o->end_s = -1;
		o->node0 = -1;
		if (J->st != JS_DONE)
			continue;
		/* the placement moves to the result */
		o->nodes = J->nodes;
		o->node_gpus = J->node_gpus;
		J->nodes = NULL;
		J->node_gpus = NULL;
		o->spread = J->spread;
		o->spread_count = J->spread_count;
		/* (rounding can leave a job's run a hair under its duration); a
		 * job killed at its limit that would have fitted it on the ideal
		 * placement lost its whole run to placement (sim.h) */
		if (J->killed && J->tj->duration_s <= J->limit)
			m->lost_place_gpuh += J->tj->gpus * (J->end - J->start) / 3600.0;
		else
			m->lost_place_gpuh += J->tj->gpus *
			                      fmax(0.0, J->end - J->start - J->tj->duration_s) / 3600.0;
		m->lost_wait_gpuh += J->tj->gpus * (J->start - J->tj->submit_s) / 3600.0;
		if (!J->killed)
			useful += J->tj->gpus * J->tj->duration_s / 3600.0;
		m->killed += J->killed;
		o->killed = J->killed;
		k = gp__sim_size_class(J->tj->gpus);
		m->size_jobs[k]++;
		wsize[k] += J->start - J->tj->submit_s;
		wgh += J->tj->gpus * J->tj->duration_s * (J->start - J->tj->submit_s);
		gh_all += J->tj->gpus * J->tj->duration_s;
		o->start_s = J->start;
		o->end_s = J->end;
		o->nnodes = J->nnodes;
		o->node0 = J->node0;
		o->nleaves = J->nleaves;
		o->nracks = J->nracks;
		o->slowdown = J->slowdown;
		o->overhead = J->overhead;
		o->backfilled = J->backfilled;
		o->violation = J->violation;
		jct[n] = J->end - J->tj->submit_s;
		wait[n] = J->start - J->tj->submit_s;
		n++;
		if (J->end > t_end)
			t_end = J->end;
		gh = J->tj->gpus * (J->end - J->start) / 3600.0;
		gpuh += gh;
		ovh += gh * J->overhead;
		slow += gh * J->slowdown;
		m->backfilled += J->backfilled;
		m->multi_node += J->nnodes > 1;
		m->spread += J->nleaves > 1;
		m->violations += J->violation;
	}
	m->jobs = S->njobs;
	m->span_s = t_end - S->t_first;
	m->throughput = m->span_s > 0 ? useful / (m->span_s / 3600.0) : NAN;
	if (n > 0) {
		double sj = 0, sw = 0;

		for (i = 0; i < n; i++) {
			sj += jct[i];
			sw += wait[i];
		}
		m->jct_mean_s = sj / n;
		m->wait_mean_s = sw / n;
		m->jct_p50_s = quantile(jct, n, 0.5);
		m->jct_p95_s = quantile(jct, n, 0.95);
		m->wait_p50_s = quantile(wait, n, 0.5);
		m->wait_p95_s = quantile(wait, n, 0.95);
	}
	for (k = 0; k < GP_SIM_NSIZE; k++)
		m->wait_size_mean_s[k] = m->size_jobs[k] > 0 ? wsize[k] / m->size_jobs[k] : NAN;
	m->wait_gpuh_mean_s = gh_all > 0 ? wgh / gh_all : NAN;
	m->slowdown_mean = gpuh > 0 ? slow / gpuh : 1.0;
	m->overhead_gpuh = gpuh > 0 ? ovh / gpuh : 0;
	m->gpu_util = m->span_s > 0 && S->total_gpus > 0 ?
	              S->busy_gs / ((double)S->total_gpus * m->span_s) : 0;
	m->violation_gpuh = S->viol_gs / 3600.0;
	m->frag_mean = S->frag_time > 0 ? S->frag_int / S->frag_time : 0;
	m->peak_rack_frac = S->peak_frac;
	{
		int32_t r;
		bool limited = false;

		for (r = 0; r < S->c->nracks; r++)
			limited |= isfinite(S->rack_limit[r]) && S->rack_limit[r] > 0;
		if (!limited)
			m->peak_rack_frac = NAN; /* no rack has a limit: printed as '-' */
	}
	if (n == 0)
		m->jct_mean_s = m->jct_p50_s = m->jct_p95_s = m->wait_mean_s = m->wait_p50_s =
			m->wait_p95_s = NAN; /* nothing completed */
	free(jct);
	free(wait);
	return GP_OK;
}

/* Thin the time series to about o->samples points (every k-th). */
static void thin_samples(struct sim *S)
{
	if (S->o.samples <= 0 || S->res->nsamples <= 2 * S->o.samples)
		return;
	thin(S, (S->res->nsamples + S->o.samples - 1) / S->o.samples);
}

/* The domains a CONSTRAIN can name (switches under the root, NVLink
 * domains, racks: the features `gpuplace conf` writes), the plugin's
 * snapshot and the alternatives' node marks. */
static int setup_plugin(struct sim *S)
{
	const gp_cluster_t *c = S->c;
	int32_t i, k, n = c->nswitches + c->nnvl + c->nracks;

	S->doms = calloc((size_t)n + 1, sizeof(*S->doms));
	S->alt_cnt = calloc((size_t)n + 1, sizeof(*S->alt_cnt));
	S->snap_alloc = calloc((size_t)c->nnodes + 1, sizeof(*S->snap_alloc));
	S->allowed = calloc((size_t)c->nnodes + 1, sizeof(*S->allowed));
	S->cfail_key = malloc(SIM_CFAIL * sizeof(*S->cfail_key));
	S->cfail_pass = calloc(2 * SIM_CFAIL, sizeof(*S->cfail_pass));
	S->as_tmp = malloc(((size_t)n + 1) * sizeof(*S->as_tmp));
	/* an index of at most 11 characters and its comma, per domain */
	S->as_key = malloc(((size_t)n + 1) * 12 + 1);
	S->steer_cand = malloc(((size_t)S->njobs + 1) * sizeof(*S->steer_cand));
	S->steer_usable = calloc(34, sizeof(*S->steer_usable));
	S->steer_moved = calloc((size_t)(S->p->policy.steer_max > 0 ? S->p->policy.steer_max : 1),
	                        sizeof(*S->steer_moved));
	if (!S->doms || !S->snap_alloc || !S->allowed || !S->cfail_key || !S->cfail_pass ||
	    !S->as_tmp || !S->as_key || !S->alt_cnt || gp__nametab_init(&S->altsets, false) ||
	    !S->steer_cand || !S->steer_usable || !S->steer_moved)
		return gp__errorf(S->err, GP_ENOMEM, "out of memory");
	for (i = 0; i < SIM_CFAIL; i++)
		S->cfail_key[i] = -1;
	memcpy(S->snap_alloc, S->cur->alloc_mask, (size_t)c->nnodes * sizeof(*S->snap_alloc));
	S->snap_time = -INFINITY;
	S->next_refresh = 0;
	for (i = 0; i < c->nswitches; i++) {
		const gp_switch_t *sw = &c->switches[i];
		struct dom *d = &S->doms[S->ndoms];
		int32_t *nodes;

		if (sw->parent < 0 || sw->count <= 0 ||
		    gp__domain_feature(GP_FEATURE_SWITCH, sw->name, d->feature, sizeof(d->feature)))
			continue;
		if (!(nodes = malloc((size_t)sw->count * sizeof(*nodes))))
			return gp__errorf(S->err, GP_ENOMEM, "out of memory");
		for (k = 0; k < sw->count; k++)
			nodes[k] = c->node_order[sw->first + k];
		d->nodes = nodes;
		d->n = sw->count;
		d->owned = true;
		S->ndoms++;
	}
	for (i = 0; i < c->nnvl; i++) {
		struct dom *d = &S->doms[S->ndoms];

		if (gp__domain_feature(GP_FEATURE_NVL, c->nvl[i].name, d->feature, sizeof(d->feature)))
			continue;
		d->nodes = c->nvl[i].nodes;
		d->n = c->nvl[i].nnodes;
		S->ndoms++;
	}
	for (i = 0; i < c->nracks; i++) {
		struct dom *d = &S->doms[S->ndoms];

		if (gp__domain_feature(GP_FEATURE_RACK, c->racks[i].name, d->feature, sizeof(d->feature)))
			continue;
		d->nodes = c->racks[i].nodes;
		d->n = c->racks[i].nnodes;
		S->ndoms++;
	}
	return GP_OK;
}

static int setup(struct sim *S, const gp_state_t *s0)
{
	const gp_cluster_t *c = S->c;
	int32_t i, nsw = c->nswitches > 0 ? c->nswitches : 1, nr = c->nracks;
	double last_submit = 0, maxdur = 0;
	int rc;

	S->njobs = S->t->njobs;
	S->jobs = calloc((size_t)S->njobs + 1, sizeof(*S->jobs));
	S->eligible = calloc((size_t)c->nnodes + 1, sizeof(*S->eligible));
	S->order = malloc(((size_t)c->nnodes + 1) * sizeof(*S->order));
	S->gpu_delta_w = calloc((size_t)c->nnodes + 1, sizeof(*S->gpu_delta_w));
	S->gpu_full = calloc((size_t)c->nnodes + 1, sizeof(*S->gpu_full));
	S->run_j = NULL;
	S->heap = malloc(((size_t)S->njobs + 1) * sizeof(*S->heap));
	S->lheap = malloc(((size_t)S->njobs + 1) * sizeof(*S->lheap));
	S->rack_busy = calloc((size_t)nr + 1, sizeof(*S->rack_busy));
	S->rack_w = calloc((size_t)nr + 1, sizeof(*S->rack_w));
	S->snap_rack_w = calloc((size_t)nr + 1, sizeof(*S->snap_rack_w));
	S->snap_plans = calloc((size_t)S->o.bf_resv + 1, sizeof(*S->snap_plans));
	S->rack_limit = calloc((size_t)nr + 1, sizeof(*S->rack_limit));
	S->hres_w = calloc((size_t)nr + 1, sizeof(*S->hres_w));
	S->hres_cnt_w = calloc((size_t)nr + 1, sizeof(*S->hres_cnt_w));
	S->idle_rack_w = calloc((size_t)nr + 1, sizeof(*S->idle_rack_w));
	S->rack_over = calloc((size_t)nr + 1, sizeof(*S->rack_over));
	S->work_rack_w = calloc((size_t)nr + 1, sizeof(*S->work_rack_w));
	S->resv_rack_w = calloc((size_t)nr + 1, sizeof(*S->resv_rack_w));
	S->bf_rack_w = calloc((size_t)nr + 1, sizeof(*S->bf_rack_w));
	S->view = calloc((size_t)nr + 1, sizeof(*S->view));
	S->view2 = calloc((size_t)nr + 1, sizeof(*S->view2));
	S->resv_alloc = calloc((size_t)c->nnodes + 1, sizeof(*S->resv_alloc));
	S->resv_nodes = calloc((size_t)c->nnodes + 1, sizeof(*S->resv_nodes));
	S->resv_mask = calloc((size_t)c->nnodes + 1, sizeof(*S->resv_mask));
	S->xr = S->o.bf_resv > 1 ? calloc((size_t)S->o.bf_resv - 1, sizeof(*S->xr)) : NULL;
	S->bf_alloc = calloc((size_t)c->nnodes + 1, sizeof(*S->bf_alloc));
	S->rmark = calloc((size_t)c->nnodes + 1, sizeof(*S->rmark));
	S->alt_of = calloc((size_t)c->nnodes + 1, sizeof(*S->alt_of));
	S->plans = calloc((size_t)S->o.bf_resv, sizeof(*S->plans));
	S->held = calloc((size_t)c->nnodes + 1, sizeof(*S->held));
	S->steer_flags = calloc((size_t)c->nnodes + 1, sizeof(*S->steer_flags));
	S->work = calloc((size_t)c->nnodes + 1, sizeof(*S->work));
	S->sw_cnt = calloc((size_t)nsw, sizeof(*S->sw_cnt));
	S->bb_cnt = calloc((size_t)c->nblocks + 1, sizeof(*S->bb_cnt));
	S->ll_cnt = calloc((size_t)c->nblocks + 1, sizeof(*S->ll_cnt));
	S->ll_tmp = calloc((size_t)c->nblocks + 1, sizeof(*S->ll_tmp));
	S->bb_req = calloc((size_t)c->nblocks + 1, 1);
	S->leaves = calloc((size_t)nsw, sizeof(*S->leaves));
	S->pl.nodes = malloc(((size_t)c->nnodes + 1) * sizeof(int32_t));
	S->pl.mask = malloc(((size_t)c->nnodes + 1) * sizeof(uint32_t));
	S->pl2.nodes = malloc(((size_t)c->nnodes + 1) * sizeof(int32_t));
	S->pl2.mask = malloc(((size_t)c->nnodes + 1) * sizeof(uint32_t));
	S->leaf_seen = calloc((size_t)nsw, 1);
	S->rack_seen = calloc((size_t)nr + 1, 1);
	if (!S->jobs || !S->eligible || !S->order || !S->gpu_delta_w || !S->gpu_full || !S->heap ||
	    !S->lheap ||
	    !S->rack_busy || !S->rack_w || !S->snap_rack_w || !S->snap_plans || !S->rack_limit || !S->hres_w || !S->hres_cnt_w || !S->idle_rack_w || !S->rack_over || !S->work_rack_w ||
	    !S->resv_rack_w || !S->bf_rack_w ||
	    !S->view || !S->view2 || !S->resv_alloc || !S->resv_nodes || !S->resv_mask ||
	    !S->bf_alloc || !S->held || !S->plans || !S->rmark || !S->alt_of || (S->o.bf_resv > 1 && !S->xr) ||
	    !S->steer_flags || !S->work || !S->sw_cnt || !S->leaves ||
	    !S->pl.nodes || !S->pl.mask || !S->pl2.nodes || !S->pl2.mask || !S->leaf_seen ||
	    !S->rack_seen || !S->bb_cnt || !S->ll_cnt || !S->ll_tmp || !S->bb_req)
		return gp__errorf(S->err, GP_ENOMEM, "out of memory");
	if ((rc = gp_state_create(c, &S->cur)))
		return gp__errorf(S->err, rc, "out of memory");
	/* node flags of the initial state: such nodes are never used */
	if (s0)
		memcpy(S->cur->node_flags, s0->node_flags, (size_t)c->nnodes * sizeof(uint32_t));

	/* the partition every trace job is submitted to */
	S->partition = gp__sim_partition(c);
	S->part_max_min = S->partition >= 0 ? c->parts[S->partition].max_time_min : UINT32_MAX;
	for (i = 0; i < c->nnodes; i++) {
		const gp_node_t *n = &c->nodes[i];

		S->gpu_full[i] = full_mask(n->ngpus);
		S->eligible[i] = n->ngpus > 0 &&
		                 (S->partition < 0 || gp__node_in_part(c, i, S->partition)) &&
		                 !(S->cur->node_flags[i]);
		if (S->eligible[i]) {
			S->order[S->norder++] = i;
			S->total_gpus += n->ngpus;
			if (n->ngpus > S->max_gpn)
				S->max_gpn = n->ngpus;
		}
		if (n->profile >= 0)
			S->gpu_delta_w[i] = gp__power_gpu_watts(&c->profiles[n->profile], 1.0) -
			                    gp__power_gpu_watts(&c->profiles[n->profile], 0.0);
	}
	qsort_r(S->order, (size_t)S->norder, sizeof(*S->order), cmp_order, (void *)c);
	S->free_gpus = S->total_gpus;
	for (i = 0; i < c->nswitches; i++)
		if (c->switches[i].level == 0 && c->switches[i].nnodes > 0)
			S->leaves[S->nleaves++] = i;
	if (nr > 0 && gp__power_estimate_all(c, NULL, S->rack_w) != GP_OK)
		return gp__errorf(S->err, GP_ENOMEM, "out of memory");
	if (nr > 0)
		memcpy(S->idle_rack_w, S->rack_w, (size_t)nr * sizeof(*S->idle_rack_w));
	for (i = 0; i < nr; i++) {
		double cap = c->racks[i].power_cap_kw * 1000.0;
		double cool = c->racks[i].cooling_kw > 0.0 ? c->racks[i].cooling_kw * 1000.0 : cap;

		/* as the engine's power view: PowerCapKW=0 is a rack that may
		 * draw nothing */
		S->rack_limit[i] = fmin(cap, cool);
		S->rack_over[i] = S->rack_w[i] > S->rack_limit[i];
		S->nover += S->rack_over[i];
	}
	if (S->total_gpus == 0)
		return gp__errorf(S->err, GP_EINVAL,
		                  "cluster '%s' has no node with GPUs in partition %s that is up",
		                  c->name, S->partition >= 0 ? c->parts[S->partition].name : "(none)");

	if ((rc = gp__cost_scratch_new(c, (int32_t)(S->total_gpus < INT32_MAX ? S->total_gpus : INT32_MAX),
	                               &S->scratch)))
		return gp__errorf(S->err, rc, "cost model scratch: %s", gp_strerror(rc));
	if ((S->p->kind == GP_SIM_GPUPLACE || S->p->kind == GP_SIM_GPUPLACE_IDEAL) &&
	    (rc = gp__engine_create(c, &S->engine, S->err)))
		return rc;
	if (S->p->kind == GP_SIM_GPUPLACE && (rc = setup_plugin(S)))
		return rc;
	if (S->p->kind == GP_SIM_GPUPLACE) {
		/* whether the plugin asks for --switches: gp__sim_outcome_facts */
		if (!(S->sw_heap = malloc(((size_t)S->njobs + 1) * sizeof(*S->sw_heap))))
			return gp__errorf(S->err, GP_ENOMEM, "out of memory");
	}
	if (S->p->kind == GP_SIM_TREE_SWITCHES &&
	    !(S->sw_heap = malloc(((size_t)S->njobs + 1) * sizeof(*S->sw_heap))))
		return gp__errorf(S->err, GP_ENOMEM, "out of memory");
	S->resv_policy = S->p->policy;
	S->resv_policy.max_wait_s = 0;
	S->resv_policy.topk = 1;

	for (i = 0; i < S->njobs; i++) {
		struct sjob *J = &S->jobs[i];
		int32_t sh;

		J->tj = &S->t->jobs[i];
		J->prev = J->next = J->run = -1;
		J->wait_until = -1;
		job_shape(S, J->tj, &J->nn, &J->gpn);
		sh = shape_get(S, J->tj, J->nn, J->gpn);
		if (sh < 0)
			return sh;
		J->shape = sh;
		/* its time limit: the trace's, else drawn (trace.h); at most the
		 * partition's MaxTime, as Slurm takes no longer one */
		J->limit = J->tj->limit_s > 0 ? J->tj->limit_s :
		           gp__trace_draw_limit(S->o.limit_seed, J->tj->id, J->tj->duration_s);
		if (!(J->tj->limit_s > 0))
			S->res->m.limits_drawn++;
		if (S->part_max_min != UINT32_MAX && J->limit > 60.0 * S->part_max_min)
			J->limit = 60.0 * S->part_max_min;
		if (J->tj->submit_s > last_submit)
			last_submit = J->tj->submit_s;
		if (J->tj->duration_s > maxdur)
			maxdur = J->tj->duration_s;
	}
	S->t_first = S->njobs ? S->t->jobs[0].submit_s : 0;
	S->last_t = S->t_first;
	S->res->nracks = nr;
	S->res->rack_limit_w = calloc((size_t)nr + 1, sizeof(double));
	S->res->jobs = calloc((size_t)S->njobs + 1, sizeof(*S->res->jobs));
	if (!S->res->rack_limit_w || !S->res->jobs)
		return gp__errorf(S->err, GP_ENOMEM, "out of memory");
	for (i = 0; i < nr; i++)
		S->res->rack_limit_w[i] = S->rack_limit[i];
	S->sample_dt = (last_submit - S->t_first + maxdur) / (S->o.samples > 0 ? S->o.samples : 500);
	if (!(S->sample_dt > 0))
		S->sample_dt = 1;
	S->next_sample = S->t_first;
	return GP_OK;
}

int gp__sim_run(const gp_cluster_t *c, const gp_state_t *s0, const gp_trace_t *t,
                const gp_sim_policy_t *p, const gp_sim_opts_t *o, gp_sim_result_t **out,
                gp_error_t *err)
{
	struct sim S;
	int32_t next_arrival = 0;
	int rc;

	if (out)
		*out = NULL;
	if (!c || !t || !p || !out)
		return gp__errorf(err, GP_EINVAL, "simulate: missing argument");
	memset(&S, 0, sizeof(S));
	S.c = c;
	S.t = t;
	S.p = p;
	S.err = err;
	if (o)
		S.o = *o;
	else
		gp__sim_opts_defaults(&S.o);
	if (S.o.bf_max_job_test <= 0)
		S.o.bf_max_job_test = 500;
	if (S.o.bf_resv <= 0)
		S.o.bf_resv = 1;
	if (S.o.bf_resv > GP_SIM_MAX_BF_RESV)
		return gp__errorf(err, GP_EINVAL, "backfill plans per pass: %d, not 1 to %d",
		                  (int)S.o.bf_resv, GP_SIM_MAX_BF_RESV);
	S.comm_fraction = S.o.comm_fraction;
	if (S.comm_fraction != 0 && !(S.comm_fraction > 0 && S.comm_fraction < 1))
		return gp__errorf(err, GP_EINVAL, "communication fraction %g: it must lie in (0, 1)",
		                  S.comm_fraction);
	S.qhead = S.qtail = -1;
	S.res = calloc(1, sizeof(*S.res));
	if (!S.res)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	snprintf(S.res->policy, sizeof(S.res->policy), "%s", p->name);
	S.res->njobs = t->njobs;
	if (s0 && s0->nnodes != c->nnodes) {
		rc = gp__errorf(err, GP_EINVAL, "the initial state has %d nodes, the cluster %d",
		                s0->nnodes, c->nnodes);
		goto error;
	}
	if ((rc = setup(&S, s0)))
		goto error;
	S.steer_at = INFINITY;
	while (next_arrival < S.njobs || S.nheap > 0 || S.nsw_heap > 0) {
		double ta = next_arrival < S.njobs ? S.jobs[next_arrival].tj->submit_s : INFINITY;
		double tc = S.nheap > 0 ? S.heap[0].end : INFINITY;
		double ts = S.nsw_heap > 0 ? S.sw_heap[0].end : INFINITY;
		double now = fmin(fmin(fmin(ta, tc), ts), S.steer_at);
		int32_t first_new = -1, qlen_before;
		bool freed = false, arrived = false;
		int moved = 0;

		if ((rc = advance(&S, now)))
			goto error;
		S.now = now;
		if (now >= S.steer_at)
			S.steer_at = INFINITY;
		if (S.snap_alloc && now >= S.next_refresh) {
			/* a refresh of the plugin happened since the last event
			 * (the last of them, every SIM_PLUGIN_REFRESH_S after the
			 * first): it read the state as it stood until now, and
			 * steered */
			double last = S.next_refresh + floor((now - S.next_refresh) /
			                                     SIM_PLUGIN_REFRESH_S) * SIM_PLUGIN_REFRESH_S;

			memcpy(S.snap_alloc, S.cur->alloc_mask, (size_t)c->nnodes * sizeof(*S.snap_alloc));
			S.snap_starts = S.nstarts;
			memcpy(S.snap_rack_w, S.rack_w, (size_t)c->nracks * sizeof(*S.snap_rack_w));
			if ((rc = snap_plans(&S)))
				goto error;
			recent_clear(&S);
			S.snap_time = last;
			S.next_refresh = last + SIM_PLUGIN_REFRESH_S;
			if ((rc = steer_pass(&S, &moved)))
				goto error;
		}
		/* completions first, then arrivals, of this instant */
		while (S.nheap > 0 && S.heap[0].end <= now) {
			struct heap_ent e = heap_pop(S.heap, &S.nheap);

			end_job(&S, e.j);
			S.res->m.events++;
			freed = true;
		}
		/* planned ends of jobs that have ended: drop them from the front */
		while (S.lhead < S.nlheap && S.jobs[S.lheap[S.lhead].j].st != JS_RUNNING)
			S.lhead++;
		/* a job's --switches wait is over: Slurm may now place it
		 * anywhere, so the whole queue is tried again */
		while (S.nsw_heap > 0 && S.sw_heap[0].end <= now) {
			struct heap_ent e = heap_pop(S.sw_heap, &S.nsw_heap);

			if (S.jobs[e.j].st == JS_QUEUED) {
				S.res->m.events++;
				freed = true;
			}
		}
		qlen_before = S.qlen;
		while (next_arrival < S.njobs && S.jobs[next_arrival].tj->submit_s <= now) {
			struct sjob *J = &S.jobs[next_arrival];

			J->st = JS_QUEUED;
			J->prev = S.qtail;
			J->next = -1;
			if (S.qtail >= 0)
				S.jobs[S.qtail].next = next_arrival;
			else
				S.qhead = next_arrival;
			S.qtail = next_arrival;
			S.qlen++;
			S.res->m.events++;
			arrived = true;
			if (S.p->kind == GP_SIM_TREE_SWITCHES && J->nn > 1 && c->root >= 0) {
				/* submitted with --switches=N@T (sim.h) */
				J->switches = (uint32_t)min_leaves(&S, &S.shapes[J->shape]);
				J->switch_until = J->tj->submit_s + S.p->switch_wait_s;
				heap_push(S.sw_heap, &S.nsw_heap,
				          (struct heap_ent){ J->switch_until, next_arrival });
			}
			if (S.p->kind == GP_SIM_GPUPLACE) {
				/* the plugin decides at submission */
				if ((rc = plugin_decide(&S, next_arrival)))
					goto error;
				if (J->decision == GP_SIM_DEC_REJECT)
					reject_job(&S, next_arrival);
			}
			if (first_new < 0 && J->st == JS_QUEUED)
				first_new = next_arrival;
			next_arrival++;
		}
		/* a refresh alone (no arrival, no completion) changes nothing
		 * Slurm schedules on unless the plugin moved a job */
		if (moved && !freed && !arrived && S.have_resv) {
			/* a refresh alone moved jobs: the last pass's reservation
			 * stands, so they are tried as the backfill candidates they
			 * are (the reserved job itself: a whole pass) */
			int32_t k;

			for (k = 0; k < S.nsteer_moved && S.steer_moved[k] != S.resv_j; k++)
				;
			if (k < S.nsteer_moved) {
				if ((rc = schedule(&S, -1, 0, true)))
					goto error;
			} else {
				S.res->m.passes++;
				for (k = 0; k < S.nsteer_moved; k++)
					if ((rc = try_start(&S, S.steer_moved[k], true)) < 0)
						goto error;
			}
		} else if ((freed || arrived || moved) &&
		           (rc = schedule(&S, first_new, qlen_before, freed || moved))) {
			goto error;
		}
		if ((freed || arrived || moved) && S.snap_alloc && S.p->policy.steer_max > 0 &&
		    S.pinned_queued + S.constrained_queued > 0)
			/* the state changed: the plugin's next refresh sees it */
			S.steer_at = fmin(S.steer_at, refresh_at(&S, now, now));
		if (S.o.check && (rc = check(&S)))
			goto error;
		if (S.nheap == 0 && next_arrival >= S.njobs && S.qhead >= 0) {
			/* one last pass without the backfill test limit: jobs
			 * past it were never tried on the idle cluster */
			int32_t limit = S.o.bf_max_job_test;

			S.o.bf_max_job_test = INT32_MAX;
			rc = schedule(&S, -1, 0, true);
			S.o.bf_max_job_test = limit;
			if (rc)
				goto error;
		}
		if (S.nheap == 0 && next_arrival >= S.njobs && S.qhead >= 0 && S.nsw_heap == 0) {
			/* nothing runs, nothing will arrive and no --switches
			 * wait will end: the queue cannot move any more (a job
			 * only the busy cluster blocked would have started); the
			 * rest can never run */
			while (S.qhead >= 0)
				reject_job(&S, S.qhead);
		}
	}
	if ((rc = advance(&S, S.last_t)))
		goto error;
	if ((rc = sample(&S, S.last_t)))
		goto error;
	if ((rc = finish_metrics(&S)))
		goto error;
	thin_samples(&S);
	*out = S.res;
	S.res = NULL;
	sim_free(&S);
	return GP_OK;
error:
	gp__sim_result_destroy(S.res);
	sim_free(&S);
	return rc;
}
