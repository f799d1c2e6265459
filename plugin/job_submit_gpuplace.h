/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * job_submit_gpuplace.h - what the files of job_submit/gpuplace share.
 * Not installed; the plugin exports only Slurm's symbols (plugin/local.mk,
 * -export-symbols-regex), so nothing declared here is seen by slurmctld.
 *
 *   job_submit_gpuplace.c  Slurm's entry points: init, fini, job_submit,
 *                          job_modify
 *   log.c                  log lines (escaped) and the summary counters
 *   job_request.c          the job's hints, its request, what it needs
 *   slots.c                the configuration and cluster-state slots
 *   conf_reload.c          loading and reloading the configuration, and
 *                          what slurmctld's own configuration says
 *   ledger.c               the decider, the ledger and checkpoint bookings
 *   apply.c                writing a decision into the job description
 *   steer_pass.c           steering pending jobs
 *   lic_request.c          PowerLicenses: a rack license per GPU job
 *   state_thread.c         the plugin's thread
 */
#ifndef GP_JOB_SUBMIT_GPUPLACE_H
#define GP_JOB_SUBMIT_GPUPLACE_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "slurm_compat.h"

#include "decide.h"
#include "gres_parse.h"
#include "live_state.h"
#include "model.h"
#include "outcome.h"
#include "cost.h"
#include "policy.h"
#include "power.h"
#include "request.h"
#include "slurm_emit.h"
#include "steer.h"

/* Slurm's plugin interface (src/plugins/job_submit, 22.05): slurmctld
 * resolves these by name; no installed header declares them. */
extern int init(void);
extern void fini(void);
extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg);
extern int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid,
                      char **err_msg);

/* ---- log lines (log.c) ----------------------------------------------------- */

enum log_level { LOGL_ERROR, LOGL_INFO, LOGL_VERBOSE, LOGL_DEBUG };

void gp_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#ifdef GP_LOG_SINK
/* a program's own sink for the escaped lines (tests/unit/test_plugin_submit.c) */
void GP_LOG_SINK(int level, const char *line);
#endif

#define slurm_error(...) gp_log(LOGL_ERROR, __VA_ARGS__)
#define slurm_info(...) gp_log(LOGL_INFO, __VA_ARGS__)
#define slurm_verbose(...) gp_log(LOGL_VERBOSE, __VA_ARGS__)
#define slurm_debug(...) gp_log(LOGL_DEBUG, __VA_ARGS__)

/* Where slurm.conf lives when slurmctld was started without SLURM_CONF
 * (Debian's and Slurm's default sysconfdir). */
#ifndef GP_DEFAULT_SLURM_CONF
#define GP_DEFAULT_SLURM_CONF "/etc/slurm/slurm.conf"
#endif
#define GP_REFRESH_S 2            /* longest gap between two readings of the
                                   * cluster state (and file checks) */
#define GP_REFRESH_GAP_MS 250     /* shortest gap: a decision wakes the state
                                   * thread at once, a burst at most 4x a second */
#define GP_STATE_STALE_S 30       /* older cluster state: jobs pass unchanged */
/* A PIN needs a cluster state at most this old (outcome.h). */
#define GP_PIN_FRESH_S GP_OUTCOME_PIN_FRESH_S
#define GP_QUIET_S 30             /* failed readings this long before one log line
                                   * (slurmctld answers only once it is up) */
#define GP_LEDGER_GRACE_S 10      /* a decision whose job Slurm has not listed
                                   * this long after it leaves the ledger */
#define GP_SUMMARY_S 60           /* the summary line at info, at most this often */
/* Decisions Slurm has not started yet the ledger holds at most (and the
 * requests kept for steering, and the checkpoint plans): Slurm's default
 * MaxJobCount, 10,000 jobs in slurmctld at once (slurm.conf(5)), so with
 * Slurm's defaults it never fills; what happens when it does is under
 * "The ledger" below.  Indexed, its size costs a submission nothing. */
#define GP_LEDGER_MAX 10000
#define GP_HINTS_MAX 1024
/* slurm.conf, gpuplace.conf, topology.conf, gres.conf, topology.yaml,
 * resources.yaml */
#define GP_NWATCHED 6

/* Why a job passed unchanged (one summary counter each). */
enum pass_reason {
	PASS_FEW_GPUS,                /* not a multi-GPU job */
	PASS_REQUEST,                 /* a request gpuplace leaves to Slurm */
	PASS_NO_CONF,                 /* no valid configuration */
	PASS_NO_STATE,                /* cluster state not read yet */
	PASS_OLD_CONF,                /* state read for an older configuration */
	PASS_STALE,                   /* state older than GP_STATE_STALE_S */
	PASS_NO_ENGINE,               /* the plugin's thread has not built the
	                               * engine for this configuration yet */
	PASS_ENGINE,                  /* the engine failed (logged at error) */
	PASS_USER,                    /* a request Slurm refuses or holds: the
	                               * user's to fix, Slurm's to say (verbose) */
	PASS_NREASONS
};

void count_pass(enum pass_reason why, const char *label, const char *detail);
void pass_resolved(enum pass_reason why);
void summary_log(void);
void count_bad_hints(void);
void count_pass_quiet(enum pass_reason why);
bool count_engine_error(void);
void count_decision(gp_decision_kind_t kind, bool unpinned);
void count_steered(void);
void stats_forget_announced(void);

/* ---- the job's request (job_request.c) ------------------------------------ */

int collect_hints(const job_desc_msg_t *job, char *buf, size_t len, const char **source);
bool job_asks_gpus(const job_desc_msg_t *j);
int node_lists(const job_desc_msg_t *j, const gp_cluster_t *c, gp_request_t *r, gp_error_t *err);
int64_t mixed_type_gpus(const gp_cluster_t *c, const gp_request_t *r, const char *type);
int restrict_to_type(gp_request_t *r, const gp_cluster_t *c, const char *type, char *why,
                     size_t len);
int build_request(const job_desc_msg_t *j, const gp_cluster_t *c, gp_request_t *r, char *type,
                  char *why, size_t len);
void job_label(const job_desc_msg_t *j, uint32_t uid, char *buf, size_t len);
void job_need(const job_desc_msg_t *j, uint64_t def_mem, gp_live_need_t *n);
int mistake_code(const gp_request_t *r, const gp_cluster_t *c, const char **name);

/* ---- the configuration and cluster-state slots (slots.c) ------------------- */

/*
 * One slot type for both (slots.c): the current object of a kind, replaced
 * whole by the plugin's thread (slot_publish) and shared by reference count
 * (slot_get, slot_put), freed by the slot's release function once its last
 * reference is put.
 */
struct gp_ref {
	unsigned refs;                /* under the slot's lock */
	uint64_t gen;                 /* publication number, never 0 */
};

struct gp_slot {
	pthread_mutex_t lock;
	struct gp_ref *current;       /* the slot's own reference, or NULL */
	uint64_t gen;                 /* publications so far */
	void (*release)(struct gp_ref *r); /* the last reference went (no lock held) */
};

#define GP_SLOT_INIT(release) { PTHREAD_MUTEX_INITIALIZER, NULL, 0, release }

struct gp_ref *slot_get(struct gp_slot *s);
void slot_hold(struct gp_slot *s, struct gp_ref *r);
void slot_put(struct gp_slot *s, struct gp_ref *r);
void slot_publish(struct gp_slot *s, struct gp_ref *r);
bool slot_empty(struct gp_slot *s);

/* One loaded configuration; immutable, shared by reference count. */
struct gp_conf {
	struct gp_ref ref;            /* first: the slot's header */
	gp_cluster_t *cluster;
	gp_policy_t policy;
	struct timespec mtime[GP_NWATCHED]; /* of the files it was loaded from (watched[]) */
	gp_poller_t *poller;          /* telemetry sources of gpuplace.conf, or NULL */
	/* PowerHres: an untyped request of g GPUs per node asks hres_w[min(g,
	 * GP_MAX_GPUS_PER_NODE)] W per node (gp__hres_node_watts, computed once
	 * per load so that a submission makes no pass over the nodes for it) */
	int64_t hres_w[GP_MAX_GPUS_PER_NODE + 1];
	/* PowerLicenses (lic_request.c), all NULL when off: each rack's
	 * license name and count, its dearest GPU's watts over idle, and each
	 * domain feature's rack (the alternatives of a CONSTRAIN) */
	char (*lic_name)[GP_NAME_MAX];
	int64_t *lic_count, *lic_gpu_w;
	struct lic_dom {
		char feat[GP_NAME_MAX + 16];
		int32_t rack;
	} *lic_dom;
	int32_t nlic_dom;
	/* per rack: whether Slurm's nodes lack its gprack_ feature (not on
	 * exactly its nodes), and then every other node as a host list, which
	 * a job kept to it excludes instead: made on the first job that needs
	 * it (lic_excl_lock; malloc'd, "" none), so a load makes no pass over
	 * the nodes per rack */
	bool *lic_nofeat;
	char **lic_excl;
	/* the domain features (gpsw_, gpnvl_) slurm.conf gives exactly their
	 * domain's nodes (domfeat_load): only those go into a CONSTRAIN, since
	 * slurmctld refuses a job whose constraint names a feature no node has */
	gp__nametab_t domfeat;
	struct gp_conf *next_dead;    /* graveyard link (conf_put) */
};

void domfeat_load(struct gp_conf *c);
bool domfeat_ok(const void *ctx, const char *feature);

/* Slurm's backfill plans for the jobs that wait (steer_plans_read): each
 * pending job with a SchedNodeList, its nodes as indices of the model. */
struct steer_plans {
	gp_steer_plan_t *p;
	int32_t n;
};

/* The cluster's state as read from slurmctld, for the configuration whose
 * model its node indices refer to; immutable, shared by reference count. */
struct gp_snap {
	struct gp_ref ref;            /* first: the slot's header; ref.gen is the
	                               * publication number the ledger checks */
	struct gp_conf *conf;         /* a reference */
	gp_live_view_t view;          /* the state, CPUs and memory left, recent jobs */
	gp_rack_view_t *racks;        /* the racks' power headroom in this state */
	gp_resv_view_t resv;          /* advance reservations (steer.h) */
	struct steer_plans plans;     /* Slurm's backfill plans, read with the jobs */
	bool resv_ok;                 /* resv was read with this state */
	bool hres;                    /* slurmctld has the license PowerHres names
	                               * (read with this state; hres_request) */
	bool lic;                     /* slurmctld has every rack's PowerLicenses
	                               * license (read with this state) */
	int64_t *lic_free;            /* per rack: its license's total less in use */
	/* set by snap_publish, on the plugin's thread: */
	struct seen_key *by_ref;      /* view.seen with a reference, by (ref, index) */
	struct seen_key *by_name;     /* view.seen without one, by (uid, name hash,
	                               * submit time, index) */
	int32_t nby_ref, nby_name;
	bool indexed;                 /* by_ref and by_name are there (else the
	                               * ledger scans view.seen: same answers) */
	/* over the nodes Slurm reported with their CPUs and memory that have
	 * a GPU free: the fewest CPUs and least memory free, whether any has
	 * some allocated, whether any lacks a memory size (need_limits) */
	int32_t min_cpus_free;
	int64_t min_mem_free_mb;
	bool some_allocated, some_mem_unknown;
};

/* One job of a snapshot's view.seen under a sort key: (ref) for jobs with
 * a decision reference, (uid, name hash, submit time) for the others, the
 * index last so that equal keys keep the list's order. */
struct seen_key {
	uint64_t a, b;
	int64_t t;
	int32_t k;
};

extern struct gp_slot conf_slot, snap_slot;

void graveyard_owned_by_thread(bool yes);
void graveyard_empty(void);
struct gp_conf *conf_get(void);
void conf_put(struct gp_conf *c);
void conf_publish(struct gp_conf *c);
void conf_free(struct gp_conf *c);
struct gp_snap *snap_get(void);
void snap_put(struct gp_snap *sn);
void snap_publish(struct gp_snap *sn);
int32_t seen_lower_bound(const struct seen_key *keys, int32_t n, const struct seen_key *want);
bool have_snapshot(void);
void slots_clear(void);

/* ---- loading the configuration (conf_reload.c) ------------------------------ */

struct gp_conf *conf_load(gp_error_t *err);
void reload_if_changed(struct timespec failed[GP_NWATCHED]);
void conf_log_warnings(const struct gp_conf *c);
bool in_slurmctld(void);
bool topology_is(const char *name);
const char *daemon_state_save_location(void);
bool daemon_in_control(void);
bool daemon_is_backup(void);
uint64_t daemon_default_mem(void);
uint32_t daemon_max_switch_wait(void);
uint32_t daemon_bf_interval(void);
void set_conf_dir(void);
const char *conf_dir_path(void);

/* ---- the decision side (ledger.c) ---------------------------------------- */

struct ledger_entry {
	int64_t time;                 /* when the decision was made */
	int64_t submitted;            /* when its job was submitted (a steering
	                               * move's is older than the move): the job
	                               * list's jobs from then on are matched
	                               * against the entry */
	uint64_t ref;                 /* "ref N" in the admin comment, 0 = none */
	uint32_t uid;
	uint64_t name_hash;
	bool until_started;           /* PIN/CONSTRAIN: kept while the job pends */
	double cap_w;                 /* GPU power cap planned, 0 = none */
	bool certain;                 /* a passed job's nodes are known (its own
	                               * --nodelist names exactly them) */
	int32_t n;
	int32_t *nodes;
	uint32_t *mask;
};

/* What the decisions need for one configuration, built off the
 * submission path (decider_prepare) and installed whole. */
struct decider {
	struct gp_conf *conf;         /* a reference; the configuration engine and
	                               * ledger belong to */
	gp_engine_t *engine;
	gp_state_t *work;             /* snapshot + ledger, what a decision sees */
	int32_t *slurm_order;         /* nodes by (Weight, slurm.conf order) */
	/* every node's GPUs as a mask (node_full), one array: the pass over
	 * every node in prepare_work touches no node record */
	uint32_t *full;
	gp_rack_view_t *racks;        /* the snapshot's rack headroom less what the
	                               * ledger's jobs will draw */
	/* the ledger per node and per rack (ledger.c): led_mask[i] = OR of the
	 * entries' masks on node i, led_nodes[0..ledger.nnodes-1] the nodes
	 * where it is not 0; led_draw[r] = watts of rack r, led_racks the racks
	 * where it is not 0 */
	uint32_t *led_mask;
	int32_t *led_nodes, *led_racks;
	double *led_draw;
	bool one_weight;              /* every node of conf has the same Weight */
};

/* The ledger of decisions Slurm has not started yet (ledger.c). */
struct ledger {
	struct ledger_entry e[GP_LEDGER_MAX];
	int n;
	int32_t nnodes, nracks;       /* in use of decider.led_nodes, led_racks */
	/* the snapshot (gen) the ledger was last checked against, and how
	 * many of its first entries were */
	uint64_t gen;
	int nchecked;
	bool full_logged;
	/* passed GPU jobs Slurm has not shown started yet whose nodes are a
	 * guess (prepare_work) */
	int unconfirmed;
	/* passed GPU jobs the full ledger could not book since this snapshot
	 * (unbooked_gen): they count as unconfirmed guesses until the next one */
	int unbooked;
	uint64_t unbooked_gen;
	/* Jobs submitted since this time are listed with each snapshot, so the
	 * ledger can tell which of its decisions Slurm has started. */
	int64_t oldest;
	/* the decision whose own entry prepare_work leaves out (a steering
	 * re-decision of a pending job must not see its own set as taken), 0 =
	 * none */
	uint64_t skip_ref;
};

/* Checkpoint schedules this plugin planned, until the job's time limit (or
 * a day when it has none): later plans stagger their windows; when
 * GP_LEDGER_MAX are planned, later jobs' plans are not staggered against
 * each other. */
struct bookings {
	gp_ckpt_booking_t b[GP_LEDGER_MAX];
	int64_t until[GP_LEDGER_MAX];
	int n;
	uint32_t seq;
};

/* The decision side: everything in it under lock (serialised: slurmctld
 * calls job_submit with its job write lock held; the lock makes that
 * explicit and keeps the plugin's thread out). */
struct decide_state {
	pthread_mutex_t lock;
	struct decider cur;           /* the installed decider; cur.conf NULL: none */
	struct gp_conf *failed;       /* the configuration a decider failed for (a
	                               * reference), so that the failure is logged
	                               * once, not at every pass of the thread */
	struct ledger ledger;
	struct bookings bookings;
	uint64_t ref_base, ref_seq;   /* decision references: init time, counter */
};

extern struct decide_state dec;

static inline uint32_t node_full(int32_t i)
{
	return dec.cur.full[i];
}

void bookings_prune(int64_t now);
const gp_ckpt_booking_t *recent_bookings(void);
int32_t nrecent_bookings(void);
void booking_add(const gp_decision_t *d, uint32_t time_limit_min, int64_t now);
void ledger_index_rebuild(void);
void decider_reset(void);
void decider_prepare(void);
void prepare_work(const struct gp_snap *sn, const gp_live_need_t *need);
const gp_rack_view_t *ledger_racks(const gp_rack_view_t *from);
/* submitted: when the entry's job was submitted, 0 = now */
bool ledger_add(const int32_t *nodes, const uint32_t *mask, int32_t n, uint64_t ref, uint32_t uid,
                uint64_t name_hash, bool until_started, double cap_w, bool certain,
                int64_t submitted);
/* *kept_ref: the reference of the job kept to one rack (PowerLicenses),
 * 0 when it is not. */
bool book_pass(struct gp_conf *c, job_desc_msg_t *j, gp_request_t *r, const char *type,
               uint32_t uid, const char *label, uint64_t *kept_ref);

/* ---- applying a decision (apply.c) ---------------------------------------- */

/* slurmctld refuses a job whose constraint (or licenses) is longer than
 * 1024 characters: job_mgr.c _test_job_desc_fields, _test_strlen(
 * job_desc->features, "features", 1024), run after the job_submit
 * plugins (22.05 to 25.11). */
#define GP_SLURM_FEATURES_MAX 1024
int fit_alternatives(const char *f, size_t room, char *out, size_t outlen);

/* What was decided, as apply() writes it into the job. */
struct outcome {
	gp_decision_kind_t kind;      /* after exactness: a PIN may become CONSTRAIN */
	const char *features;         /* CONSTRAIN: the constraint to add, "" = none */
	char fit[1040];               /* features cut to Slurm's length (apply()) */
	bool applied;                 /* apply() added the features to the job's */
	char *tres_node;              /* PIN: new tres_per_node (Slurm-allocated) or NULL */
	char unpinned[160];           /* why a PIN became CONSTRAIN, "" = it did not */
	char nofeat[200];             /* domain features left out (gp_outcome_t) */
	uint32_t switches, switch_wait; /* CONSTRAIN by --switches=N@S, 0 = not */
	uint32_t switch_pays;           /* > switch_wait: the wait that would pay,
	                                 * cut to Slurm's max_switch_wait */
	uint32_t segment;             /* CONSTRAIN: --segment to give the job, 0 = none;
	                               * apply() leaves it set only when it gave it */
	uint64_t ref;
	const gp_job_profile_t *profile; /* the hints, NULL = none */
};

char *per_node_tres(const char *per_job, int32_t per_node);
bool per_node_tres_ok(const char *per_job);
char *comment_with(const char *old, const char *section);
/* steer_pass.c: a steered job's comment, from its old one (NULL: none fits) */
char *steer_comment(const char *old, const char *list, int32_t nnodes, const char *why);
void outcome_facts(const job_desc_msg_t *j, const gp_request_t *r, int64_t age,
                   gp_outcome_in_t *in);
void outcome_take(const job_desc_msg_t *j, const gp_outcome_t *act, struct outcome *o);
int pin_exact(const job_desc_msg_t *j, const gp_request_t *r, const gp_scored_t *best, int64_t age,
              char **tres_node, char *why, size_t len);
void domain_of(const gp_cluster_t *c, const gp_scored_t *best, char *buf, size_t len);
void apply(job_desc_msg_t *j, const gp_cluster_t *c, const gp_decision_t *d, struct outcome *o);
/* PowerHres (gpuplace.conf(5)): a GPU job's GPUs' watts over idle per node
 * added to its licenses as NAME:WATTS (power.h gp__hres_*), so that Slurm
 * 25.11+ starts it only where the racks' resources.yaml budget has room;
 * the user's licenses kept; nothing added, with one verbose line, when the
 * request cannot carry it (an OR list, the resource named already, GPUs
 * per socket or task, an array job on a Slurm that crashes on it, no
 * cluster state read yet or slurmctld without the resource).  r is
 * build_request's (its GPUs and GPUs per node), type its GPU type. */
void hres_request(job_desc_msg_t *j, const struct gp_conf *c, const gp_request_t *r,
                  const char *type, const char *label);
/* Does slurmctld have the license `name` (slurm_load_licenses: a
 * hierarchical resource shows as a license of its name)?  Read by the
 * plugin's thread with each state; false on an error (err says it). */
bool hres_known(const char *name, char *err, size_t len);
/* The job's comment says it passes and why; ref: its decision reference
 * (0 = none: nothing of it is kept). */
void comment_pass(job_desc_msg_t *j, const char *why, uint64_t ref);

/* ---- PowerLicenses: a rack license per GPU job (lic_request.c) ---------------- */

/* At load: c's lic_* tables when gpuplace.conf sets PowerLicenses (one
 * error line and none when they cannot be made); lic_conf_free frees them. */
void lic_conf_load(struct gp_conf *c);
void lic_conf_free(struct gp_conf *c);
/* On the plugin's thread: does slurmctld have every rack's license?  Its
 * free count per rack into free_w (c->cluster->nracks entries); false
 * with err saying why. */
bool lic_read(const struct gp_conf *c, int64_t *free_w, char *err, size_t len);
/* Will job j carry its racks' licenses (PowerLicenses loaded, slurmctld
 * seen to have them, its GPUs known per node)?  Quiet. */
bool lic_on(const job_desc_msg_t *j, const struct gp_conf *c, const struct gp_snap *sn,
            const gp_request_t *r);
/*
 * Under dec.lock, prepare_work done on sn: the rack a GPU job gpuplace
 * does not pin is kept to, -1 for none (a verbose line says why): picked
 * when the job fits there, else of the racks with its GPUs free (type,
 * partition, node lists and constraint respected) the one with the most
 * room (ledger headroom and license free count), else of those that could
 * hold it at all.  *count: its licence count there, W (its GPUs x the
 * rack's dearest GPU over idle, never above the rack's count).
 */
int32_t lic_pick(const struct gp_conf *c, const struct gp_snap *sn, const job_desc_msg_t *j,
                 const gp_request_t *r, const char *type, int32_t picked, int64_t *count,
                 const char *label);
/* Add the rack's license (count) to j's licenses, and with feature its
 * gprack_ feature AND-ed to its constraint; false (nothing changed, a
 * verbose line) when the licenses cannot carry it. */
bool lic_keep(job_desc_msg_t *j, const struct gp_conf *c, int32_t rack, int64_t count,
              bool feature, const char *label);
/* A PINned set: each rack it spans, that rack's share (its nodes' GPUs'
 * watts over idle); false when none added. */
bool lic_set(job_desc_msg_t *j, const struct gp_conf *c, const gp_scored_t *set,
             const struct gp_snap *sn, const gp_request_t *r, const char *label);
/*
 * A CONSTRAIN: when its best domain (d->cands[0]) lies in one rack, that
 * rack and count (*rack, *count) and either 1 (add the rack's feature and
 * license: no matching-OR group to narrow) or 2 (o->features now points
 * at features, the group's alternatives inside that rack; add the
 * license).  0 (*rack -1): no rack license, a verbose line says why.
 */
int lic_constrain(const struct gp_conf *c, const struct gp_snap *sn, const job_desc_msg_t *j,
                  const gp_request_t *r, const gp_decision_t *d, struct outcome *o,
                  char *features, size_t flen, int32_t *rack, int64_t *count, const char *label);
/*
 * On the plugin's thread, with the steering pass: each pending job kept
 * to a rack (its constraint starting with that rack's gprack_ feature and
 * its licenses naming the rack's) whose rack has no room for it now (its
 * license's free count below its count, or too few nodes with its GPUs
 * free) moves, features and licenses in one update, to the rack with the
 * most room that has both; at most budget updates.  Jobs of several
 * partitions, in a reservation, with --nodelist, or whose GPUs per node
 * are unknown stay.
 * Returns the number moved.  Takes dec.lock itself.
 */
int lic_steer(const struct gp_conf *c, struct gp_snap *sn, const job_info_msg_t *jobs,
              int budget);

/* ---- steering pending jobs (steer_pass.c) ---------------------------------- */

/* Keep what the user asked of job j (decision reference ref), before
 * gpuplace changes it; kept: a job passed unchanged but kept to one rack
 * (PowerLicenses), whose request is only given back on an update. */
void orig_save(const job_desc_msg_t *j, uint64_t ref, const char *hints, double wait_s,
               uint32_t uid, bool every_refresh, bool kept);
/* gpuplace added rack licenses to the job of ref (an update gives the
 * user's back). */
void orig_lic_added(uint64_t ref);
/* The job of reference ref (its original just saved) was PINned: gpuplace
 * set its node counts, and with gpus its GPUs per node.  Under dec.lock. */
void orig_pinned(uint64_t ref, bool gpus);
/* apply() gave the job of ref --segment (dec.lock): it is never steered,
 * as a job someone else changed is not.  Its segments are Slurm's to
 * place inside the leaf constraint; Slurm 24.05 to 25.05 refuses required
 * nodes with several segments (gp_job_segment_pin_ok), and no update
 * changes a pending job's segment, so a PIN could only strand it. */
void orig_segmented(uint64_t ref);
/* Job job_id was changed by someone else with update u (after job_modify
 * gave back what it gives back): it is never steered again, and what u
 * sets of where it may run (node list, exclusions, constraint, licenses)
 * becomes the user's own for a later update. */
void orig_freeze(uint32_t job_id, const job_desc_msg_t *u);
/* A PIN's comment names the job's own --nodelist, which the PIN replaced,
 * after this token (just the token when longer than GP_USER_NODES_MAX), so
 * that steer_release can give it back once gpuplace no longer keeps the
 * job's request (apply, steer_pass.c). */
#define GP_USER_NODES_TOKEN "; within the job's own -w"
#define GP_USER_NODES_MAX 200

/* What the user gave job job_id at submission that bounds where it runs
 * and that gpuplace may have changed ("" = none). */
struct user_where {
	char req_nodes[4096], exc_nodes[4096], features[4096], licenses[1024];
	bool lic;                 /* gpuplace added licenses: give the user's back */
	bool sw;                  /* gpuplace set --switches: none again */
	bool counts;              /* gpuplace set the node counts: the user's
	                           * again (NO_VAL: Slurm's own defaults) */
	uint32_t min_nodes, max_nodes;
	bool gpus;                /* gpuplace gave the GPUs per node: the
	                           * user's GPU request again */
	char tres_per_job[1024], tres_per_node[1024];
};
/* Fill w for job job_id when gpuplace decided the job and still keeps its
 * request (its id learnt from a reading of the job list, which showed it
 * pending); false otherwise, or when a field does not fit. */
bool orig_user_request(uint32_t job_id, struct user_where *w);
uint32_t steer_updating(void);
/* The plugin's own thread updates job_id now (0: done): job_modify leaves
 * that update alone (lic_steer's rack moves, as the steering pass's). */
void steer_set_updating(uint32_t job_id);
void origs_clear(void);
/* StateSaveLocation/gpuplace_originals: written on the plugin's thread
 * when an original changed, read back at init (steer_pass.c). */
void origs_persist(void);
void origs_restore(void);
/* the lines of originals saved or changed since, appended to the file's
 * journal as soon as a decision wakes the thread (steer_pass.c) */
void origs_journal(void);
/* a controller going to standby: every original counts as read back, so
 * the next takeover replaces them all with the file's */
void origs_to_standby(void);
/* this slurmctld took control (a backup, or any at its first reading):
 * what it read at its start goes, it names itself the originals' only
 * writer (StateSaveLocation/gpuplace_originals.lock) and reads the file
 * again under that lock */
void origs_takeover(void);
/* the slurmctld named as the originals' writer has ended (a reconfigure's
 * new one that failed): this one takes them over again (origs_takeover)
 * before it writes */
bool origs_resume_due(void);
/* The start of process pid in clock ticks after boot (/proc/PID/stat,
 * field 22, after the command's closing parenthesis), as the owner's name
 * in gpuplace_originals.lock gives it; 0 when unknown. */
unsigned long long orig_proc_start(long pid);
struct ledger_entry *ledger_find(uint64_t ref);
void steer_pass(gp_live_t *lv);
/* Slurm's backfill plans in job list jobs (NULL: none), into *pl (empty
 * when memory is short); steer_plans_free releases them. */
void steer_plans_read(const gp_cluster_t *cl, const job_info_msg_t *jobs, struct steer_plans *pl);
void steer_plans_free(struct steer_plans *pl);

/* ---- the plugin's thread (state_thread.c) ---------------------------------- */

void refresh_soon(void);
bool thread_start(void);
void thread_stop(void);

#endif /* GP_JOB_SUBMIT_GPUPLACE_H */
