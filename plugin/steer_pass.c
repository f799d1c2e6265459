/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * steer_pass.c - job_submit/gpuplace's steering of the pending jobs it
 * placed, on its own thread (steer.h, steer_rules.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "job_submit_gpuplace.h"
#include "orig_file.h"

/* ---- steering pending jobs (steer.h) -------------------------------------- */

/*
 * What the user asked, kept for each job gpuplace PINned or CONSTRAINed
 * (by its decision reference) so that a re-decision starts from the
 * user's own request, never from what gpuplace made of it: the fields
 * build_request(), job_need() and pin_exact() read, strings malloc'd here
 * (never handed to Slurm).  Kept in memory, and in StateSaveLocation's
 * gpuplace_originals after every change (origs_persist, on the plugin's
 * thread), which init() reads back (origs_restore): since Slurm 23.11
 * every `scontrol reconfigure` restarts slurmctld, and a job whose
 * original was lost could be neither steered nor given its own request
 * back on an update.  Under dec.lock.
 */
struct steer_orig {
	uint64_t ref;
	uint32_t job_id;          /* once the steering pass has seen it, else 0 */
	bool pending;             /* pending at the last reading of the job list */
	bool kept;                /* passed unchanged but kept to one rack
	                           * (PowerLicenses): its request is given back
	                           * on an update, it is never steered */
	bool lic;                 /* gpuplace added rack licenses to the job */
	bool sw;                  /* gpuplace set the job's --switches */
	bool counts;              /* gpuplace set its node counts (a PIN) */
	bool gpus;                /* gpuplace gave its GPUs per node (a PIN) */
	bool frozen;              /* never steered again: changed by someone
	                           * else, kept to give back where it may run
	                           * on a later update (orig_freeze); or cut
	                           * into segments by gpuplace, which Slurm
	                           * places (orig_segmented) */
	gp_steer_job_t st;        /* what the steering rules keep (steer_rules.h) */
	uint32_t uid;
	char *hints;              /* the hint string, NULL = none */
	job_desc_msg_t d;
	char *line;               /* its line of the file (orig_line), NULL
	                           * until made or after a change */
	bool journaled;           /* its line as it is now is in the journal
	                           * or the file (origs_journal) */
	bool from_file;           /* read back by origs_restore */
};

/* What steering keeps between passes. */
static struct {
	/* the originals (dec.lock), oldest first: at most GP_LEDGER_MAX of
	 * jobs gpuplace placed and as many of passed jobs it kept to a rack,
	 * so a flood of one-GPU jobs never pushes out the placed ones;
	 * pointers, so that dropping the oldest of a full table moves
	 * pointers, not job descriptions */
	struct steer_orig *origs[2 * GP_LEDGER_MAX];
	int norigs, nkept;
	/* the job the steering pass is updating right now (its own RPC comes
	 * back through job_modify), 0 = none */
	volatile uint32_t inflight;
	/* an original changed since the file was last written */
	bool dirty;
	/* the last write failed with this errno (logged once per errno) */
	int write_errno;
	int64_t written;          /* the thread's last origs_persist call */
	/* the journal's size as the thread last wrote or read it, and the
	 * errno of its last failed append (logged once per errno) */
	off_t journal_size;
	int journal_errno;
	/* the file's generation: one more at every write; the journal names
	 * the file it follows (origs_journal) */
	uint64_t generation;
	/* the generation the journal's last section names (journal_size > 0;
	 * UINT64_MAX: not known): a journal the file's write could not
	 * remove gets a new section before its next lines */
	uint64_t journal_gen;
	/* StateSaveLocation, as origs_restore found it ("": none) */
	char dir[4000];
	/* another slurmctld holds the file (orig_lock): said once */
	bool superseded;
	/* origs_restore called by origs_takeover, under the lock this
	 * slurmctld holds as the originals' owner */
	bool owned_read;
	/* a wait for the lock ran out: writes skip it until then */
	double lock_busy_until;
	/* the slurmctld named in the lock has ended: this one takes the
	 * originals over again before it writes (origs_resume_due) */
	bool resume;
} steer;

/* The job the steering pass is updating right now, 0 = none. */
uint32_t steer_updating(void)
{
	return steer.inflight;
}

void steer_set_updating(uint32_t job_id)
{
	steer.inflight = job_id;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* The fields an original and its line share: its flags, and the job
 * description's numbers (X: the field's name in both); gp_orig_rec_t is
 * orig_file.h's. */
#define ORIG_FLAGS(X) X(kept) X(lic) X(sw) X(counts) X(gpus) X(frozen)
#define ORIG_NUMBERS(X) X(min_nodes) X(max_nodes) X(time_limit) X(num_tasks) X(shared) \
	X(ntasks_per_node) X(cpus_per_task) X(pn_min_cpus) X(pn_min_memory)
/* the job description's strings it keeps, each with its place in the
 * line's record (the hints, its other string, are the original's own) */
#define ORIG_STRINGS(X) X(GP_ORIG_TRES_PER_JOB, tres_per_job) \
	X(GP_ORIG_TRES_PER_NODE, tres_per_node) X(GP_ORIG_TRES_PER_SOCKET, tres_per_socket) \
	X(GP_ORIG_TRES_PER_TASK, tres_per_task) \
	X(GP_ORIG_CPUS_PER_TRES, cpus_per_tres) X(GP_ORIG_MEM_PER_TRES, mem_per_tres) \
	X(GP_ORIG_RESERVATION, reservation) X(GP_ORIG_PARTITION, partition) \
	X(GP_ORIG_REQ_NODES, req_nodes) X(GP_ORIG_EXC_NODES, exc_nodes) \
	X(GP_ORIG_FEATURES, features) X(GP_ORIG_LICENSES, licenses) X(GP_ORIG_NAME, name)

/* each number as wide in the line's record as in Slurm's job description
 * (a narrower one would cut values on the way back) */
#define SAME_WIDTH(f) _Static_assert(sizeof(((gp_orig_rec_t *)0)->f) == \
                                     sizeof(((job_desc_msg_t *)0)->f), #f " width");
ORIG_NUMBERS(SAME_WIDTH)
#undef SAME_WIDTH

/* Where o keeps each string of gp_orig_rec_t's order. */
static void orig_slots(struct steer_orig *o, char **slot[GP_ORIG_NSTR])
{
	slot[GP_ORIG_HINTS] = &o->hints;
#define SLOT(i, f) slot[i] = &o->d.f;
	ORIG_STRINGS(SLOT)
#undef SLOT
}

static void orig_free(struct steer_orig *o)
{
	char **slot[GP_ORIG_NSTR];
	int i;

	if (!o)
		return;
	orig_slots(o, slot);
	for (i = 0; i < GP_ORIG_NSTR; i++)
		free(*slot[i]);
	free(o->line);
	free(o);
}

/* o changed: its line is made again at the next write (dec.lock). */
static void orig_changed(struct steer_orig *o)
{
	free(o->line);
	o->line = NULL;
	o->journaled = false;
	steer.dirty = true;
}

/* Drop origs[k] (dec.lock). */
static void orig_drop(int k)
{
	if (steer.origs[k]->kept)
		steer.nkept--;
	orig_free(steer.origs[k]);
	memmove(&steer.origs[k], &steer.origs[k + 1],
	        (size_t)(steer.norigs - k - 1) * sizeof(steer.origs[0]));
	steer.origs[--steer.norigs] = NULL;
}

/* Room for one more original of its kind (kept or placed): when the table
 * holds GP_LEDGER_MAX of them, the oldest goes (its job is left alone from
 * now on).  dec.lock. */
static void orig_make_room(bool kept)
{
	int k;

	if (kept ? steer.nkept < GP_LEDGER_MAX : steer.norigs - steer.nkept < GP_LEDGER_MAX)
		return;
	for (k = 0; k < steer.norigs && steer.origs[k]->kept != kept; k++)
		;
	orig_drop(k);
}

/* Called under dec.lock, before apply() or lic_keep() changes the
 * description. */
void orig_save(const job_desc_msg_t *j, uint64_t ref, const char *hints, double wait_s,
               uint32_t uid, bool every_refresh, bool kept)
{
	struct steer_orig *o;

	if (!(o = calloc(1, sizeof(*o))))
		return; /* memory short: this job is not steered */
	orig_make_room(kept);
	steer.origs[steer.norigs] = o;
	o->ref = ref;
	o->kept = kept;
	o->sw = every_refresh; /* waits through --switches gpuplace set */
	steer.nkept += kept;
	gp_steer_job_init(&o->st, false, (int64_t)time(NULL), wait_s, every_refresh);
	o->uid = uid;
	o->hints = dup_or_null(hints);
#define FROM_DESC(f) o->d.f = j->f;
	ORIG_NUMBERS(FROM_DESC)
#undef FROM_DESC
	GP_JOB_DESC_ID(&o->d) = NO_VAL;
#define FROM_DESC(i, f) o->d.f = dup_or_null(j->f);
	ORIG_STRINGS(FROM_DESC)
#undef FROM_DESC
	steer.norigs++;
	steer.dirty = true;
}

/* Forget every original (fini: the thread has stopped). */
void origs_clear(void)
{
	int k;

	for (k = 0; k < steer.norigs; k++) {
		orig_free(steer.origs[k]);
		steer.origs[k] = NULL;
	}
	steer.norigs = 0;
	steer.nkept = 0;
	steer.dirty = false;
	steer.superseded = false;
	steer.lock_busy_until = 0;
	steer.resume = false;
}

bool origs_resume_due(void)
{
	return steer.resume;
}

/* *field becomes a copy of v when v is given (an update's field). */
static void take_field(char **field, const char *v)
{
	char *c;

	if (!v || !(c = strdup(v)))
		return; /* not set, or memory short: the older value stays */
	free(*field);
	*field = c;
}

void orig_freeze(uint32_t job_id, const job_desc_msg_t *u)
{
	int k;

	pthread_mutex_lock(&dec.lock);
	/* pending at the last reading: an original read back after a restart
	 * is not known to be its job's until a reading confirms it */
	for (k = 0; k < steer.norigs; k++)
		if (steer.origs[k]->job_id == job_id && steer.origs[k]->pending) {
			struct steer_orig *o = steer.origs[k];

			o->frozen = true;
			take_field(&o->d.req_nodes, u->req_nodes);
			take_field(&o->d.exc_nodes, u->exc_nodes);
			take_field(&o->d.features, u->features);
			take_field(&o->d.licenses, u->licenses);
			if (u->req_switch != NO_VAL)
				o->sw = false; /* the update's own, or none */
			/* node counts and GPUs the update sets (its own, or
			 * the user's given back by job_modify) are no longer
			 * gpuplace's to give back */
			if (u->min_nodes != NO_VAL || u->max_nodes != NO_VAL)
				o->counts = false;
			if (u->tres_per_job || u->tres_per_node)
				o->gpus = false;
			orig_changed(o);
			break;
		}
	pthread_mutex_unlock(&dec.lock);
}

/* Copy src ("" for NULL) into dst of len bytes; false when it does not fit. */
static bool copy_fits(char *dst, size_t len, const char *src)
{
	if (!src)
		src = "";
	if (strlen(src) >= len)
		return false;
	memcpy(dst, src, strlen(src) + 1);
	return true;
}

bool orig_user_request(uint32_t job_id, struct user_where *w)
{
	bool found = false;
	int k;

	pthread_mutex_lock(&dec.lock);
	/* pending only: on a running job slurmctld takes a node list as a
	 * resize to those nodes */
	for (k = 0; k < steer.norigs && !found; k++)
		if (steer.origs[k]->job_id == job_id && steer.origs[k]->pending) {
			const job_desc_msg_t *d = &steer.origs[k]->d;

			found = copy_fits(w->req_nodes, sizeof(w->req_nodes), d->req_nodes) &&
			        copy_fits(w->exc_nodes, sizeof(w->exc_nodes), d->exc_nodes) &&
			        copy_fits(w->features, sizeof(w->features), d->features) &&
			        copy_fits(w->licenses, sizeof(w->licenses), d->licenses);
			w->lic = steer.origs[k]->lic;
			w->sw = steer.origs[k]->sw;
			w->counts = steer.origs[k]->counts;
			w->min_nodes = d->min_nodes;
			w->max_nodes = d->max_nodes;
			w->gpus = steer.origs[k]->gpus;
			found = found &&
			        copy_fits(w->tres_per_job, sizeof(w->tres_per_job), d->tres_per_job) &&
			        copy_fits(w->tres_per_node, sizeof(w->tres_per_node), d->tres_per_node);
		}
	pthread_mutex_unlock(&dec.lock);
	return found;
}

/* The original of ref, looked for from the newest (one just saved). */
static struct steer_orig *orig_newest(uint64_t ref)
{
	int k;

	for (k = steer.norigs - 1; k >= 0; k--)
		if (steer.origs[k]->ref == ref)
			return steer.origs[k];
	return NULL;
}

void orig_lic_added(uint64_t ref)
{
	struct steer_orig *o;

	pthread_mutex_lock(&dec.lock);
	if ((o = orig_newest(ref))) {
		o->lic = true;
		orig_changed(o);
	}
	pthread_mutex_unlock(&dec.lock);
}

void orig_pinned(uint64_t ref, bool gpus)
{
	struct steer_orig *o = orig_newest(ref);

	if (o) {
		o->counts = true;
		o->gpus |= gpus;
		orig_changed(o);
	}
}

void orig_segmented(uint64_t ref)
{
	struct steer_orig *o = orig_newest(ref);

	if (o) {
		o->frozen = true;
		orig_changed(o);
	}
}

/* The index of ref's original, -1 for none (dec.lock). */
static int orig_index(uint64_t ref)
{
	int k;

	for (k = 0; k < steer.norigs; k++)
		if (steer.origs[k]->ref == ref)
			return k;
	return -1;
}

static struct steer_orig *orig_find(uint64_t ref)
{
	int k = orig_index(ref);

	return k >= 0 ? steer.origs[k] : NULL;
}

struct ref_job {
	uint64_t ref; /* first: by_ref reads it */
	uint32_t job_id;
};

/* Order of structs whose first member is a uint64_t reference (ref_job,
 * ref_kept): a pointer to a struct points to its first member too. */
static int by_ref(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Drop the originals of jobs no longer pending (started, ended, gone)
 * once Slurm has had GP_LEDGER_GRACE_S to list them; learn the job ids of
 * the others (job_modify forgets a job changed by someone else). */
static void origs_prune(const job_info_msg_t *jobs, int64_t now)
{
	struct ref_job *pend = malloc(((size_t)jobs->record_count + 1) * sizeof(*pend)), key;
	const struct ref_job *hit;
	uint32_t i;
	int k, kept = 0, np = 0;

	if (!pend)
		return;
	for (i = 0; i < jobs->record_count; i++)
		if ((jobs->job_array[i].job_state & JOB_STATE_BASE) == JOB_PENDING &&
		    (pend[np].ref = gp_comment_ref(jobs->job_array[i].admin_comment)))
			pend[np++].job_id = jobs->job_array[i].job_id;
	qsort(pend, (size_t)np, sizeof(*pend), by_ref);
	pthread_mutex_lock(&dec.lock);
	for (k = 0; k < steer.norigs; k++) {
		key.ref = steer.origs[k]->ref;
		hit = bsearch(&key, pend, (size_t)np, sizeof(*pend), by_ref);
		if (hit && steer.origs[k]->job_id != hit->job_id) {
			steer.origs[k]->job_id = hit->job_id;
			orig_changed(steer.origs[k]);
		}
		steer.origs[k]->pending = hit != NULL;
		if (steer.origs[k]->st.decided + GP_LEDGER_GRACE_S < now && !hit) {
			steer.dirty = true;
			steer.nkept -= steer.origs[k]->kept;
			orig_free(steer.origs[k]);
			steer.origs[k] = NULL;
			continue;
		}
		if (kept != k) {
			steer.origs[kept] = steer.origs[k];
			steer.origs[k] = NULL;
		}
		kept++;
	}
	steer.norigs = kept;
	pthread_mutex_unlock(&dec.lock);
	free(pend);
}

/* ---- the originals' file (orig_file.h) ------------------------------------- */

#define ORIG_FILE "gpuplace_originals"
/* Seconds between two writes of the file at most: the plugin's refresh
 * (GP_REFRESH_S), which a decision's wake-up would otherwise shorten. */
#define GP_ORIG_WRITE_S GP_REFRESH_S

/* The line of o (malloc'd, with its newline), NULL when memory is short.
 * Its strings are borrowed for gp_orig_format, never freed here. */
static char *orig_line(struct steer_orig *o)
{
	char **slot[GP_ORIG_NSTR], *line, *nl;
	gp_orig_rec_t r;
	size_t n;
	int i;

	memset(&r, 0, sizeof(r));
	r.ref = o->ref;
	r.job_id = o->job_id;
#define TO_REC(f) r.f = o->f;
	ORIG_FLAGS(TO_REC)
#undef TO_REC
#define TO_REC(f) r.f = o->d.f;
	ORIG_NUMBERS(TO_REC)
#undef TO_REC
	r.pinned = o->st.pinned;
	r.every_refresh = o->st.every_refresh;
	r.moved = o->st.moved;
	r.decided = o->st.decided;
	r.updated = o->st.updated;
	r.checked = o->st.checked;
	r.wait_s = o->st.wait_s;
	r.uid = o->uid;
	orig_slots(o, slot);
	for (i = 0; i < GP_ORIG_NSTR; i++)
		r.str[i] = *slot[i];
	if (!(line = gp_orig_format(&r)))
		return NULL;
	n = strlen(line);
	if (!(nl = realloc(line, n + 2))) {
		free(line);
		return NULL;
	}
	nl[n] = '\n';
	nl[n + 1] = '\0';
	return nl;
}

/* A new original from r, whose strings it takes (r's are NULL after). */
static struct steer_orig *orig_from(gp_orig_rec_t *r)
{
	struct steer_orig *o = calloc(1, sizeof(*o));
	char **slot[GP_ORIG_NSTR];
	int i;

	if (!o)
		return NULL;
	o->ref = r->ref;
	o->job_id = r->job_id;
#define FROM_REC(f) o->f = r->f;
	ORIG_FLAGS(FROM_REC)
#undef FROM_REC
#define FROM_REC(f) o->d.f = r->f;
	ORIG_NUMBERS(FROM_REC)
#undef FROM_REC
	gp_steer_job_init(&o->st, r->pinned, r->decided, r->wait_s, r->every_refresh);
	o->st.moved = r->moved;
	o->st.updated = r->updated;
	o->st.checked = r->checked;
	o->uid = r->uid;
	GP_JOB_DESC_ID(&o->d) = NO_VAL;
	orig_slots(o, slot);
	for (i = 0; i < GP_ORIG_NSTR; i++) {
		*slot[i] = r->str[i];
		r->str[i] = NULL; /* o has it */
	}
	return o;
}

/* DIR/gpuplace_originals (and SUFFIX) into buf, DIR the StateSaveLocation
 * origs_restore copied at init (slurmctld may free its own copy on a
 * reconfigure while the thread writes); false: none (outside slurmctld,
 * or a path too long, which origs_restore logged). */
static bool orig_path(char *buf, size_t len, const char *suffix)
{
	int n;

	if (!steer.dir[0])
		return false;
	n = snprintf(buf, len, "%s/%s%s", steer.dir, ORIG_FILE, suffix);
	return n > 0 && (size_t)n < len;
}

/*
 * Which slurmctld writes the originals: StateSaveLocation/
 * gpuplace_originals.lock names the one that last took control
 * (origs_takeover), and every write of the file or its journal is made
 * under an exclusive flock of it, by that slurmctld only.  A reconfigure
 * since 24.11 execs a new slurmctld while the old one waits for it
 * (controller.c _try_to_reconfig: the old process exits only once the
 * new one has started), and the old one's thread may still write; a
 * primary and its backup share the directory.  Without the lock, a
 * write of the old process after the new one read the file could give
 * the file a generation the new one's journal does not follow (its lines
 * then skipped at the next start), or replace lines the new one wrote.
 * With it, the new one takes the lock, names itself and reads the file
 * under it: the old one's write came whole before that read, or finds
 * the lock not its own and is not made.  A directory where the lock
 * cannot be opened writes as before (the write fails there anyway, and
 * says so); a lock file nobody has named an owner in (written by a
 * release without it) is anyone's.
 */
#define GP_ORIG_LOCK_WAIT_MS 5000
/* after a wait that ran out, writes try again this much later (a writer
 * passes here up to four times per refresh) */
#define GP_ORIG_LOCK_BACKOFF_S 30

unsigned long long orig_proc_start(long pid)
{
	char path[64], buf[1024], *p;
	unsigned long long v = 0;
	size_t n;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (!(f = fopen(path, "re")))
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (!(p = strrchr(buf, ')')))
		return 0;
	/* after ")": state is field 3; starttime is field 22 */
	for (i = 3, p++; *p && i < 22; i++) {
		while (*p == ' ')
			p++;
		while (*p && *p != ' ')
			p++;
	}
	if (i == 22 && sscanf(p, " %llu", &v) != 1)
		v = 0;
	return v;
}

/* This host's name as a token writes it. */
static void own_host(char *buf, size_t len)
{
	char host[256] = "";

	(void)gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = '\0';
	snprintf(buf, len, "%.200s", host[0] ? host : "-");
}

/* This boot's id (/proc/sys/kernel/random/boot_id), "-" when unknown. */
static void own_boot(char *buf, size_t len)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	snprintf(buf, len, "-");
	if (f) {
		if (!fgets(buf, (int)len, f) || !*buf)
			snprintf(buf, len, "-");
		buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
}

/* This slurmctld's name in the lock: host, pid, and the pid's start time
 * and the boot, which tell it from a later process with the same pid. */
static const char *owner_token(void)
{
	static char tok[400];
	char host[256], boot[64];

	if (tok[0])
		return tok;
	own_host(host, sizeof(host));
	own_boot(boot, sizeof(boot));
	snprintf(tok, sizeof(tok), "gpuplace-owner host=%s pid=%ld start=%llu boot=%.40s\n", host,
	         (long)getpid(), orig_proc_start((long)getpid()), boot);
	return tok;
}

/* Do a and b have the same first line? */
static bool same_line(const char *a, const char *b)
{
	size_t n = strcspn(a, "\n");

	return n == strcspn(b, "\n") && !strncmp(a, b, n);
}

static double mono_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The value of " key=" in line up to the next space or newline, into buf
 * ("" when absent). */
static void token_field(const char *line, const char *key, char *buf, size_t len)
{
	const char *p = strstr(line, key);
	size_t n;

	buf[0] = '\0';
	if (!p)
		return;
	p += strlen(key);
	n = strcspn(p, " \n");
	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p);
}

/* Has the owner named by line (an owner_token) ended?  Known only for
 * one on this host: named in an earlier boot, or no process with its pid,
 * or one that started at another time (its pid used again).  Whatever is
 * not known (another host, no /proc) counts as alive. */
static bool owner_gone(const char *line)
{
	char host[256], h[256], v[64], boot[64];
	unsigned long long start, now;
	bool known;
	long pid;

	own_host(host, sizeof(host));
	token_field(line, " host=", h, sizeof(h));
	if (strcmp(h, host))
		return false;
	own_boot(boot, sizeof(boot));
	token_field(line, " boot=", v, sizeof(v));
	if (v[0] && strcmp(v, "-") && strcmp(boot, "-") && strcmp(v, boot))
		return true;
	/* a name without boot= counts its start in another unit */
	known = v[0] != '\0';
	token_field(line, " pid=", v, sizeof(v));
	pid = strtol(v, NULL, 10);
	if (pid <= 0 || pid == (long)getpid())
		return false; /* this process (an image exec'd in place) */
	if (kill((pid_t)pid, 0) && errno == ESRCH)
		return true;
	token_field(line, " start=", v, sizeof(v));
	start = known ? strtoull(v, NULL, 10) : 0;
	now = orig_proc_start(pid);
	return start && now && start != now;
}

/* This slurmctld's name into the locked file fd: written first, then the
 * file cut to it, so that no reader finds it empty. */
static void name_owner(int fd, const char *path)
{
	const char *tok = owner_token();
	size_t n = strlen(tok);

	errno = 0;
	if (pwrite(fd, tok, n, 0) != (ssize_t)n || ftruncate(fd, (off_t)n))
		slurm_error("gpuplace: cannot write %s: %s; a slurmctld before this one may still "
		            "write the originals", path, errno ? strerror(errno) : "short write");
}

/* The lock, held (close the fd to release it); -1 when it cannot be
 * opened (*ours true: the caller writes as without one), stayed busy, or
 * names a slurmctld of this host that has ended (*ours false; then
 * steer.resume: this one takes the originals over first).  claim: name
 * this slurmctld its owner; else *ours says whether it is (or nobody is
 * named). */
static int orig_lock(bool claim, bool *ours, char *holder, size_t hlen)
{
	static bool nolock_said;
	char path[4096], buf[400];
	const char *tok = owner_token();
	double deadline;
	ssize_t n;
	int fd;

	*ours = true;
	if (holder && hlen)
		holder[0] = '\0';
	if (!orig_path(path, sizeof(path), ".lock"))
		return -1;
	if (!claim && mono_s() < steer.lock_busy_until) {
		*ours = false;
		return -1;
	}
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0)
		return -1;
	/* a writer holds it for one write; a process slurmctld forked in
	 * that write, which has not exec'd yet, holds it as long: waited for
	 * GP_ORIG_LOCK_WAIT_MS at most, then a claim goes on without it and
	 * writes wait GP_ORIG_LOCK_BACKOFF_S.  A file system without flock
	 * (ENOLCK) leaves the owner's name alone to decide. */
	deadline = mono_s() + GP_ORIG_LOCK_WAIT_MS / 1000.0;
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			if (!nolock_said)
				slurm_info("gpuplace: cannot lock %s: %s; the owner named in it "
				           "alone decides which slurmctld writes the originals", path,
				           strerror(errno));
			nolock_said = true;
			break;
		}
		if (mono_s() < deadline) {
			usleep(10 * 1000);
			continue;
		}
		if (!claim) {
			steer.lock_busy_until = mono_s() + GP_ORIG_LOCK_BACKOFF_S;
			*ours = false;
			close(fd);
			return -1;
		}
		slurm_error("gpuplace: %s stayed locked for %d ms; this slurmctld takes the "
		            "originals over without it", path, GP_ORIG_LOCK_WAIT_MS);
		break;
	}
	steer.lock_busy_until = 0;
	if (claim) {
		name_owner(fd, path);
		return fd;
	}
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	if (n > 0 && !same_line(buf, tok)) {
		if (owner_gone(buf)) {
			/* a reconfigure's new slurmctld that took control and
			 * failed: this one takes the originals over again, as at
			 * a takeover (the file it wrote first read back) */
			if (!steer.resume)
				slurm_info("gpuplace: the slurmctld named in %s has ended (%.*s); this "
				           "one takes the originals over again", path,
				           (int)strcspn(buf, "\n"), buf);
			steer.resume = true;
			*ours = false;
			close(fd);
			return -1;
		}
		*ours = false;
		if (holder && hlen)
			snprintf(holder, hlen, "%.*s", (int)strcspn(buf, "\n"), buf);
	}
	return fd;
}

/* Under orig_lock: may this slurmctld write?  1 yes, 0 another has
 * taken the originals over (said once), -1 the lock stayed busy (the
 * next write tries again), -2 the one named has ended and this one
 * takes the originals over first (origs_resume_due). */
static int orig_mine(int *fd)
{
	char holder[400];
	bool ours;

	*fd = orig_lock(false, &ours, holder, sizeof(holder));
	if (ours)
		return 1;
	if (steer.resume)
		return -2; /* the owner named has ended: a takeover first */
	if (*fd < 0)
		return -1;
	if (!steer.superseded)
		slurm_info("gpuplace: another slurmctld has taken control of the originals "
		           "(%s.lock: %s); this one writes them no more", ORIG_FILE, holder);
	steer.superseded = true;
	close(*fd);
	*fd = -1;
	return 0;
}

/*
 * On the plugin's thread, after a reading: when an original changed,
 * write them all to StateSaveLocation/gpuplace_originals (a new file
 * renamed over the old, so a reader sees the old or the new one whole).
 * The lines are made under dec.lock (in memory: a submission waits for
 * no file), written without it.  A failed write is logged once per
 * error and tried again after the next reading.
 */
void origs_persist(void)
{
	char path[4096], tmp[4096], **lines = NULL;
	int k, n = 0, fd, err = 0, lk;
	FILE *f;

	if (!orig_path(path, sizeof(path), "") || !orig_path(tmp, sizeof(tmp), ".new"))
		return;
	pthread_mutex_lock(&dec.lock);
	if (!steer.dirty) {
		pthread_mutex_unlock(&dec.lock);
		return;
	}
	if (steer.norigs > 0 && !(lines = calloc((size_t)steer.norigs, sizeof(*lines)))) {
		pthread_mutex_unlock(&dec.lock);
		return; /* memory short: the next reading tries again */
	}
	/* a line is made once per change (formatting all 20,000 originals
	 * takes tens of ms, a copy of their lines a few) */
	for (k = 0; k < steer.norigs; k++) {
		struct steer_orig *o = steer.origs[k];

		if (!o->line)
			o->line = orig_line(o);
		if (o->line && (lines[n] = strdup(o->line)))
			n++;
	}
	if (n < steer.norigs) {
		/* memory short: no file missing originals replaces a whole
		 * one; again next time */
		pthread_mutex_unlock(&dec.lock);
		for (k = 0; k < n; k++)
			free(lines[k]);
		free(lines);
		return;
	}
	steer.dirty = false;
	pthread_mutex_unlock(&dec.lock);
	if (orig_mine(&lk) != 1) {
		/* not this slurmctld's to write (now) */
		for (k = 0; k < n; k++)
			free(lines[k]);
		free(lines);
		pthread_mutex_lock(&dec.lock);
		steer.dirty = true;
		pthread_mutex_unlock(&dec.lock);
		return;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		err = errno;
		if (fd >= 0)
			close(fd);
	} else {
		fputs("# gpuplace: what users asked of the pending jobs gpuplace placed "
		      "(job_submit/gpuplace writes and reads this file)\n", f);
		fprintf(f, "# generation %llu\n", (unsigned long long)(steer.generation + 1));
		errno = 0;
		for (k = 0; k < n; k++)
			fputs(lines[k], f);
		/* a failed write may leave nothing for fflush to report */
		if (fflush(f) || ferror(f) || fsync(fileno(f)))
			err = errno ? errno : EIO;
		if (fclose(f) && !err)
			err = errno;
		if (!err && rename(tmp, path))
			err = errno;
		if (err) {
			unlink(tmp);
		} else {
			/* the file holds every line of the journal, which names
			 * the generation before (a journal left by a crash is
			 * not read over this file) */
			steer.generation++;
			if (orig_path(tmp, sizeof(tmp), ".journal")) {
				if (unlink(tmp) == 0 || errno == ENOENT)
					steer.journal_size = 0;
				else /* its next lines go in a section of their own */
					slurm_error("gpuplace: cannot remove %s: %s; its next lines "
					            "follow generation %llu of %s", tmp, strerror(errno),
					            (unsigned long long)steer.generation, ORIG_FILE);
			}
			if ((fd = open(steer.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
				(void)fsync(fd); /* the rename and the unlink, on disk */
				close(fd);
			}
		}
	}
	if (lk >= 0)
		close(lk); /* the lock, after the rename and the journal's removal */
	for (k = 0; k < n; k++)
		free(lines[k]);
	free(lines);
	if (err) {
		pthread_mutex_lock(&dec.lock);
		steer.dirty = true;
		pthread_mutex_unlock(&dec.lock);
		if (err != steer.write_errno)
			slurm_error("gpuplace: cannot write %s: %s; the originals of pending jobs are "
			            "kept in memory only until it can", path, strerror(err));
	} else if (steer.write_errno) {
		slurm_info("gpuplace: wrote %s again", path);
	}
	steer.write_errno = err;
}

/*
 * Where each reference's original is in steer.origs, for n lookups over
 * m originals at once (a journal read back, restore_file; an append's
 * originals marked again after it failed, origs_journal): open addressing
 * on the reference (never 0), so that they cost n + m, not n x m (a
 * journal near GP_ORIG_JOURNAL_MAX over 2 x GP_LEDGER_MAX originals,
 * under dec.lock).  Made again whenever the table moves (orig_make_room
 * drops its oldest).  No memory: cap 0, and orig_index's scan is used.
 */
struct ref_map {
	uint64_t *ref;
	int *at;
	size_t cap;   /* a power of two, at least twice the entries; 0 = none */
};

static size_t ref_slot(const struct ref_map *m, uint64_t ref)
{
	size_t h = (size_t)((ref * 0x9e3779b97f4a7c15ULL) >> 17) & (m->cap - 1);

	while (m->ref[h] && m->ref[h] != ref)
		h = (h + 1) & (m->cap - 1);
	return h;
}

/* m for steer.origs as it is, with room for `more` entries after it. */
static void ref_map_make(struct ref_map *m, size_t more)
{
	size_t want = 16, i;

	while (want < 2 * ((size_t)steer.norigs + more))
		want *= 2;
	if (want != m->cap) {
		free(m->ref);
		free(m->at);
		m->ref = calloc(want, sizeof(*m->ref));
		m->at = calloc(want, sizeof(*m->at));
		m->cap = m->ref && m->at ? want : 0;
		if (!m->cap) {
			free(m->ref);
			free(m->at);
			m->ref = NULL;
			m->at = NULL;
			return;
		}
	} else {
		memset(m->ref, 0, m->cap * sizeof(*m->ref));
	}
	for (i = 0; i < (size_t)steer.norigs; i++) {
		size_t h = ref_slot(m, steer.origs[i]->ref);

		if (!m->ref[h]) { /* the first of a reference, as orig_index */
			m->ref[h] = steer.origs[i]->ref;
			m->at[h] = (int)i;
		}
	}
}

/* The index of ref's original, -1 for none. */
static int ref_map_find(const struct ref_map *m, uint64_t ref)
{
	size_t h;

	if (!m->cap)
		return orig_index(ref);
	h = ref_slot(m, ref);
	return m->ref[h] ? m->at[h] : -1;
}

static void ref_map_free(struct ref_map *m)
{
	free(m->ref);
	free(m->at);
	memset(m, 0, sizeof(*m));
}

/* The journal's most: past it, new lines wait for the next write of the
 * file (a file that cannot be written for long would grow it without end;
 * 2 x GP_LEDGER_MAX lines are under 40 MiB). */
#define GP_ORIG_JOURNAL_MAX ((off_t)64 << 20)

/*
 * On the plugin's thread, as soon as a decision wakes it: the lines of the
 * originals saved or changed since they were last written, appended to
 * StateSaveLocation/gpuplace_originals.journal with one write, after a
 * first line naming the file's generation it follows.  No fsync: what a
 * slurmctld that stops, or is killed, has written stays (a crash of the
 * machine loses the last seconds, as of Slurm's own state).  The next
 * write of the file holds them all and removes the journal
 * (origs_persist); init() reads the file, then the journal
 * (origs_restore).  So a job decided just before slurmctld stops (an
 * `scontrol reconfigure` right after a submission restarts it since
 * 23.11) keeps its original, while the whole file is still written at
 * most once per refresh.  Lines are made under dec.lock, written without
 * it.
 */
void origs_journal(void)
{
	char path[4096], head[64], *buf = NULL, *grown;
	size_t len = 0, cap = 0, done = 0;
	struct stat sb;
	bool sized = false;
	int k, fd, err = 0, nb = 0, lk = -1, mine;
	/* the originals of this append and their lines: journaled again
	 * when it fails (memory short: left to the file) */
	struct { uint64_t ref; const char *line; } *batch = NULL;

	if (!orig_path(path, sizeof(path), ".journal"))
		return;
	pthread_mutex_lock(&dec.lock);
	batch = malloc(((size_t)steer.norigs + 1) * sizeof(*batch));
	for (k = 0; k < steer.norigs; k++) {
		struct steer_orig *o = steer.origs[k];
		size_t n;

		if (o->journaled)
			continue;
		if (!o->line)
			o->line = orig_line(o);
		if (!o->line)
			continue; /* memory short: the file will hold it */
		n = strlen(o->line);
		if (len + n > cap) {
			if (!(grown = realloc(buf, 2 * (len + n))))
				break; /* the rest next time, or in the file */
			buf = grown;
			cap = 2 * (len + n);
		}
		memcpy(buf + len, o->line, n);
		len += n;
		o->journaled = true;
		if (batch) {
			batch[nb].ref = o->ref;
			batch[nb++].line = o->line;
		}
	}
	pthread_mutex_unlock(&dec.lock);
	if (!len) {
		free(buf);
		free(batch);
		return;
	}
	if ((mine = orig_mine(&lk)) == 0) {
		err = -1; /* another slurmctld's now: kept for none (said once) */
	} else if (mine == -2) {
		err = -2; /* after this one has taken them over again */
	} else if (mine < 0) {
		err = EBUSY; /* its lock stayed busy: again at the next append */
	} else if (steer.journal_size + (off_t)len > GP_ORIG_JOURNAL_MAX) {
		err = EFBIG;
	} else if ((fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600)) < 0) {
		err = errno;
	} else {
		if (fstat(fd, &sb))
			err = errno;
		else
			sized = true;
		/* after a line cut short (a slurmctld killed in a write):
		 * on a line of its own, the cut one is skipped when read */
		if (!err && sb.st_size > 0) {
			char last;

			if (pread(fd, &last, 1, sb.st_size - 1) == 1 && last != '\n' &&
			    write(fd, "\n", 1) != 1)
				err = errno ? errno : EIO;
		}
		/* a new journal first names the file it follows, and so does
		 * a new section of one the file's last write could not remove */
		if (!err && (sb.st_size == 0 || steer.journal_gen != steer.generation)) {
			int hn = snprintf(head, sizeof(head), "# generation %llu\n",
			                  (unsigned long long)steer.generation);

			if (write(fd, head, (size_t)hn) != hn)
				err = errno ? errno : EIO;
		}
		while (!err && done < len) {
			ssize_t w = write(fd, buf + done, len - done);

			if (w < 0 && errno != EINTR)
				err = errno;
			else if (w == 0)
				err = EIO;
			else if (w > 0)
				done += (size_t)w;
		}
		/* a line cut short would join the next append's first */
		if (err && sized && ftruncate(fd, sb.st_size))
			err = errno;
		if (!err && !fstat(fd, &sb)) {
			steer.journal_size = sb.st_size;
			steer.journal_gen = steer.generation;
		}
		close(fd);
	}
	if (lk >= 0)
		close(lk);
	free(buf);
	if ((err > 0 || err == -2) && batch) {
		/* again at the next append, unless changed since (then it is
		 * due anyway) or gone */
		struct ref_map map = { 0 };

		pthread_mutex_lock(&dec.lock);
		ref_map_make(&map, 0);
		for (k = 0; k < nb; k++) {
			int i = ref_map_find(&map, batch[k].ref);

			if (i >= 0 && steer.origs[i]->line == batch[k].line)
				steer.origs[i]->journaled = false;
		}
		pthread_mutex_unlock(&dec.lock);
		ref_map_free(&map);
	}
	free(batch);
	if (err < 0)
		return;
	if (err) {
		if (err != steer.journal_errno)
			slurm_error("gpuplace: cannot append to %s: %s; the originals of jobs "
			            "decided since %s was last written wait for its next write",
			            path, err == EFBIG ? "it has grown too large" : strerror(err),
			            ORIG_FILE);
	} else if (steer.journal_errno) {
		slurm_info("gpuplace: appended to %s again", path);
	}
	steer.journal_errno = err;
}

/* What restore_file read. */
struct restore_count {
	int restored;    /* originals */
	int journal;     /* records of the journal read */
	int bad, repeated;
	bool stale;      /* a section of the journal follows an older file */
	bool live;       /* a section of it follows the file read */
	uint64_t last_gen; /* the generation its last section names */
	uint64_t maxref;
};

/*
 * The records of f (path names it in the log): the file (journal false:
 * its "# generation N" line into *gen; a record right after itself is
 * skipped), or its journal (a record replaces the original of its
 * reference, as it changed later; a journal that follows another
 * generation than *gen (NULL: the file was not read, no check) is older
 * than the file, which holds its lines: a
 * crash came before its removal was on disk, and it is not read).  A line
 * that is not a record is logged with the file, its line number, key and
 * value, and skipped.  Under dec.lock.
 */
static void restore_file(FILE *f, const char *path, bool journal, uint64_t *gen,
                         struct restore_count *n)
{
	char err[256], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long lineno = 0;
	uint64_t last = 0;
	unsigned long long g;
	struct ref_map map = { 0 };
	/* a section of the journal that follows an older file */
	bool skip = false;

	if (journal)
		ref_map_make(&map, 1024);

	while ((len = getline(&line, &cap, f)) >= 0) {
		gp_orig_rec_t r;
		struct steer_orig *o;
		int k;

		lineno++;
		if (len > 0 && line[len - 1] == '\n') {
			line[--len] = '\0';
		} else if (*line && *line != '#') {
			/* the last line, cut short (a full disk, a crash) */
			if (n->bad++ < 10)
				slurm_error("gpuplace: %s:%ld: the line ends without a newline (cut "
				            "short); line skipped", path, lineno);
			continue;
		}
		if (sscanf(line, "# generation %llu", &g) == 1) {
			if (!journal) {
				*gen = g;
				continue;
			}
			n->last_gen = g;
			skip = gen && g != *gen;
			if (skip)
				slurm_info("gpuplace: %s%s follows generation %llu of %s, which is "
				           "at %llu and holds its lines: not read", path,
				           n->live || lineno > 1 ? " (a section of it)" : "", g,
				           ORIG_FILE, (unsigned long long)*gen);
			n->stale |= skip;
			n->live |= !skip;
			continue;
		}
		if (!*line || *line == '#' || skip)
			continue;
		if (gp_orig_parse(line, &r, err, sizeof(err))) {
			if (n->bad++ < 10)
				slurm_error("gpuplace: %s:%ld: %s; line skipped", path, lineno, err);
			continue;
		}
		if (!journal && r.ref == last) {
			gp_orig_clear(&r);
			n->repeated++;
			continue; /* the line again: the first is kept */
		}
		last = r.ref;
		if (!(o = orig_from(&r))) {
			gp_orig_clear(&r);
			break;
		}
		o->line = orig_line(o); /* made here, not under a later write */
		o->journaled = true;
		o->from_file = true;
		n->journal += journal;
		if (journal && (k = ref_map_find(&map, o->ref)) >= 0) {
			steer.nkept += o->kept - steer.origs[k]->kept;
			orig_free(steer.origs[k]);
			steer.origs[k] = o;
		} else {
			int before = steer.norigs;

			orig_make_room(o->kept);
			steer.origs[steer.norigs++] = o;
			steer.nkept += o->kept;
			n->restored++;
			if (journal && map.cap) {
				if (steer.norigs <= before ||
				    2 * (size_t)steer.norigs > map.cap) {
					/* the oldest went (indices moved), or full */
					ref_map_make(&map, 1024);
				} else {
					size_t h = ref_slot(&map, o->ref);

					map.ref[h] = o->ref;
					map.at[h] = steer.norigs - 1;
				}
			}
		}
		if (o->ref > n->maxref)
			n->maxref = o->ref;
	}
	ref_map_free(&map);
	free(line);
}

/* The rest of f, malloc'd and NUL-terminated, its length in *len; NULL
 * with errno on a read error or when memory is short. */
static char *slurp_stream(FILE *f, size_t *len)
{
	size_t cap = 65536, n = 0, got;
	char *buf = malloc(cap), *grown;

	*len = 0;
	if (!buf) {
		errno = ENOMEM;
		return NULL;
	}
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n - 1 == 0) {
			if (!(grown = realloc(buf, 2 * cap))) {
				free(buf);
				errno = ENOMEM;
				return NULL;
			}
			buf = grown;
			cap *= 2;
		}
	}
	if (ferror(f)) {
		int e = errno ? errno : EIO;

		free(buf);
		errno = e;
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* restore_file over the bytes buf[0, len) read from path; false with
 * errno when they cannot be opened as a stream (memory short). */
static bool restore_buf(char *buf, size_t len, const char *path, bool journal, uint64_t *gen,
                        struct restore_count *n)
{
	FILE *m;

	if (!len)
		return true; /* an empty file: no line */
	if (!(m = fmemopen(buf, len, "r")))
		return false;
	restore_file(m, path, journal, gen, n);
	fclose(m);
	return true;
}

/*
 * At init(), before the thread starts: the originals the last slurmctld
 * wrote: the file (origs_persist), then its journal (origs_journal), whose
 * lines then go into the file at the thread's next write.  A line that is
 * not a record is logged with the file, its line number, key and value,
 * and skipped; the others are kept (at most GP_LEDGER_MAX of each kind,
 * the newest).  Originals of jobs that are no longer pending go at the
 * thread's first reading (origs_prune).  No file (a first start, or
 * outside slurmctld): none.
 */
void origs_restore(void)
{
	char path[4096], jpath[4096], jn[64] = "";
	struct restore_count n = { 0 };
	uint64_t gen = 0;
	const char *dir = daemon_state_save_location();
	bool any = false, unread = false, jsized = false;
	char *fbuf = NULL, *jbuf = NULL;
	size_t flen = 0, jlen = 0;
	struct stat sb;
	FILE *f, *jf;
	int jerr, ferr;

	steer.dir[0] = '\0';
	steer.journal_size = 0;
	steer.journal_gen = UINT64_MAX;
	if (dir && strlen(dir) + sizeof("/" ORIG_FILE ".journal") > sizeof(steer.dir)) {
		slurm_error("gpuplace: StateSaveLocation %.200s... is too long; the originals "
		            "of pending jobs are kept in memory only", dir);
		return;
	}
	if (dir)
		memcpy(steer.dir, dir, strlen(dir) + 1);
	if (!orig_path(path, sizeof(path), "") || !orig_path(jpath, sizeof(jpath), ".journal"))
		return;
	/* the journal opened before the file: a write of the file by the
	 * slurmctld before this one (a reconfigure's old process ends after
	 * the new one starts) then either came before both, or gave the file
	 * a generation this journal does not follow (the file holds its
	 * lines); opened the other way round, the journal could be gone and
	 * the file read the old one */
	jf = fopen(jpath, "re");
	jerr = errno;
	f = fopen(path, "re");
	ferr = errno;
	/* both read whole before dec.lock, which submissions take: a slow
	 * StateSaveLocation (NFS, shared with a backup) holds none of them;
	 * only the parsing is done under it */
	if (f) {
		fbuf = slurp_stream(f, &flen);
		ferr = errno;
		fclose(f);
	}
	if (jf) {
		jbuf = slurp_stream(jf, &jlen);
		jerr = errno;
		jsized = !fstat(fileno(jf), &sb);
		fclose(jf);
	}
	pthread_mutex_lock(&dec.lock);
	if (fbuf && !restore_buf(fbuf, flen, path, false, &gen, &n)) {
		ferr = errno;
		free(fbuf);
		fbuf = NULL;
	}
	if (fbuf) {
		any = true;
	} else if (f || ferr != ENOENT) {
		slurm_error("gpuplace: cannot read %s: %s; pending jobs placed before this "
		            "start are not steered", path, strerror(ferr));
		/* its generation unknown: the journal is read whole, and
		 * nothing is written over the file before a change */
		unread = true;
	}
	steer.generation = gen;
	if (jbuf && !restore_buf(jbuf, jlen, jpath, true, unread ? NULL : &gen, &n)) {
		jerr = errno;
		free(jbuf);
		jbuf = NULL;
	}
	if (jbuf) {
		struct stat now;

		if (jsized) {
			steer.journal_size = sb.st_size;
			/* the file unread: its lines go on under the journal's
			 * last section, as they were read */
			steer.journal_gen = unread ? steer.generation :
			                    n.stale || n.live ? n.last_gen : UINT64_MAX;
			/* one wholly older than the file goes now, unless another
			 * has replaced it (new lines follow the file's generation
			 * in a section of their own anyway) */
			if (steer.owned_read && n.stale && !n.live && !stat(jpath, &now) &&
			    now.st_ino == sb.st_ino && now.st_dev == sb.st_dev && unlink(jpath) == 0)
				steer.journal_size = 0;
		}
		any = true;
		/* its lines go into the file, which then replaces it */
		steer.dirty = !unread;
	} else if (jf || jerr != ENOENT) {
		slurm_error("gpuplace: cannot read %s: %s; jobs decided just before the last "
		            "stop may not be steered", jpath, strerror(jerr));
	}
	/* new decisions' references above every restored one (a clock set
	 * back, or a restart within the second of the last decision) */
	if (n.maxref >= dec.ref_base)
		dec.ref_base = n.maxref;
	/* a file with lines skipped is written again without them */
	if (n.bad || n.repeated)
		steer.dirty = true;
	pthread_mutex_unlock(&dec.lock);
	free(fbuf);
	free(jbuf);
	if (n.bad > 10)
		slurm_error("gpuplace: %d more lines of the originals skipped", n.bad - 10);
	if (n.journal > 0)
		snprintf(jn, sizeof(jn), " and its journal (%d lines)", n.journal);
	if (any)
		slurm_info("gpuplace: restored the originals of %d jobs from %s%s%s", n.restored, path,
		           jn, n.bad ? " (some lines skipped, above)" : "");
}

void origs_to_standby(void)
{
	int k;

	pthread_mutex_lock(&dec.lock);
	for (k = 0; k < steer.norigs; k++)
		steer.origs[k]->from_file = true;
	pthread_mutex_unlock(&dec.lock);
}

/*
 * A backup controller has taken control: the originals it read back at
 * its own start are stale (the primary went on deciding and writing), so
 * they go and the file is read again; originals of jobs submitted to
 * this controller since it took control (before the thread saw it) stay.
 */
void origs_takeover(void)
{
	int k, kept = 0, lk;
	bool ours;

	/* named the owner, then the originals dropped and the file read,
	 * under the lock: a write of the slurmctld before came whole before,
	 * and none comes after */
	lk = orig_lock(true, &ours, NULL, 0);
	steer.superseded = false;
	steer.resume = false;
	pthread_mutex_lock(&dec.lock);
	for (k = 0; k < steer.norigs; k++) {
		struct steer_orig *o = steer.origs[k];

		steer.origs[k] = NULL;
		if (o->from_file) {
			steer.nkept -= o->kept;
			orig_free(o);
		} else {
			steer.origs[kept++] = o;
		}
	}
	steer.norigs = kept;
	pthread_mutex_unlock(&dec.lock);
	steer.owned_read = true;
	origs_restore();
	steer.owned_read = false;
	if (lk >= 0)
		close(lk);
}

struct ledger_entry *ledger_find(uint64_t ref)
{
	int k;

	for (k = 0; k < dec.ledger.n; k++)
		if (dec.ledger.e[k].ref == ref)
			return &dec.ledger.e[k];
	return NULL;
}

/* An update the steering pass sends (malloc'd strings). */
struct steer_plan {
	uint32_t job_id;
	char *req_nodes;
	uint32_t nodes;
	char *features;           /* the user's own constraint, "" = none */
	char *comment;
	char *licenses;           /* PowerLicenses: the new set's, NULL = unchanged */
	bool drop_switch;         /* it waited through gpuplace's --switches */
	char why[160];
};

static void plan_clear(struct steer_plan *p)
{
	free(p->req_nodes);
	free(p->features);
	free(p->comment);
	free(p->licenses);
	memset(p, 0, sizeof(*p));
}

/*
 * Re-decide pending job ji (candidate k) on the current snapshot; 1 with
 * *plan filled when it should be moved, else 0.  Under dec.lock, no
 * RPC.  Situations that move a job:
 *   PIN:       its pinned set is no longer free for it (taken by jobs
 *              gpuplace did not place, or by higher-priority ones, or
 *              planned by Slurm's backfill for a job ahead of it), and a
 *              set the policy accepts is free now: PINned there;
 *   CONSTRAIN: a set the policy accepts is free now (its domains could not
 *              start it, or it waited longer than its predicted wait, after
 *              which waiting is no longer considered): PINned there.
 * Never onto nodes Slurm's backfill planned for a job ahead of it (their
 * SchedNodeList), and not away from its own plan when that starts within
 * a steering interval and is as compact (steer_rules.h).
 * The re-decision starts from the user's original request (partition,
 * reservation, --nodelist, --exclude, --constraint, node counts), so it
 * never widens it.
 */
/*
 * Slurm's backfill plans: the pending jobs with a SchedNodeList
 * (slurm_job_info_t.sched_nodes, which the backfill scheduler sets for a
 * job it plans to start later, in 22.05 as in 24.11) as node indices of
 * the model.  A list naming a node the model lacks is left out: the plan
 * of a job on nodes gpuplace does not place changes nothing it chooses.
 */
void steer_plans_read(const gp_cluster_t *cl, const job_info_msg_t *jobs, struct steer_plans *pl)
{
	uint32_t i;

	pl->p = NULL;
	pl->n = 0;
	if (!jobs || !(pl->p = calloc((size_t)jobs->record_count + 1, sizeof(*pl->p))))
		return; /* memory short: decisions as before, without plans */
	for (i = 0; i < jobs->record_count; i++) {
		const slurm_job_info_t *j = &jobs->job_array[i];
		gp_steer_plan_t *p = &pl->p[pl->n];
		int32_t *nodes = NULL, n = 0;
		gp_error_t err;

		if ((j->job_state & JOB_STATE_BASE) != JOB_PENDING || !j->sched_nodes ||
		    !j->sched_nodes[0])
			continue;
		if (gp__hostlist_nodes(cl, "SchedNodeList", j->sched_nodes, cl->nnodes, &nodes, &n,
		                       &err) != GP_OK || n <= 0) {
			free(nodes);
			continue;
		}
		p->job_id = j->job_id;
		p->priority = j->priority;
		p->submit_time = (int64_t)j->submit_time;
		p->start_time = (int64_t)j->start_time; /* expected, for a pending job */
		p->nodes = nodes;
		p->nnodes = n;
		pl->n++;
	}
}

void steer_plans_free(struct steer_plans *pl)
{
	int32_t k;

	for (k = 0; pl->p && k < pl->n; k++)
		free((void *)pl->p[k].nodes);
	free(pl->p);
	pl->p = NULL;
	pl->n = 0;
}

/* Node nd cannot give a pinned job its `gpus' GPUs now (work as prepared). */
static bool pinned_node_taken(int32_t nd, int32_t gpus)
{
	return gp_steer_node_taken(dec.cur.work->node_flags[nd], node_full(nd),
	                           dec.cur.work->alloc_mask[nd], gpus);
}

/*
 * A steered job's new comment: gpuplace's part of old becomes "gpuplace:
 * PIN <list>; exactly N nodes; steered while pending: <why>" followed by
 * the old part's prediction, checkpoint plan, cap and reference (from its
 * "; step ", else its "; ref "), whole however long the list
 * (steer_release reads "gpuplace: PIN <list>" back); what it said about
 * the old set goes, and text outside gpuplace's part is not touched.  NULL
 * when old has no gpuplace part with a reference, or out of memory.
 */
char *steer_comment(const char *old, const char *list, int32_t nnodes, const char *why)
{
	const char *sec, *tail;
	char *section = NULL, *out;
	size_t at, len;

	if (!old || !list || !why || !gp_comment_section(old, &at, &len))
		return NULL;
	sec = old + at;
	tail = strstr(sec, "; step ");
	if (!tail || tail >= sec + len)
		tail = strstr(sec, "; ref ");
	if (!tail || tail >= sec + len)
		return NULL;
	if (asprintf(&section, "gpuplace: PIN %s; exactly %d node%s; steered while pending: %s%.*s",
	             list, (int)nnodes, nnodes == 1 ? "" : "s", why, (int)(sec + len - tail),
	             tail) < 0)
		return NULL;
	out = comment_with(old, section);
	free(section);
	return out;
}

/* The licenses of pending job ji PINned to set: the user's terms, every
 * rack license before dropped, each rack of set with its share (malloc'd;
 * NULL when they cannot say it). */
static char *steer_licenses(const struct gp_conf *c, const slurm_job_info_t *ji,
                            const gp_scored_t *set)
{
	const gp_cluster_t *cl = c->cluster;
	const char **names = calloc((size_t)cl->nracks + 1, sizeof(*names));
	const char **drop = calloc((size_t)cl->nracks + 1, sizeof(*drop));
	int64_t *per = calloc((size_t)cl->nracks + 1, sizeof(*per));
	int64_t *counts = calloc((size_t)cl->nracks + 1, sizeof(*counts));
	size_t len = (ji->licenses ? strlen(ji->licenses) : 0) +
	             ((size_t)cl->nracks + 1) * (GP_NAME_MAX + 24);
	char *buf = malloc(len);
	const char *why = "";
	int32_t i, n = 0;
	int rc = 0;

	if (names && drop && per && counts && buf) {
		for (i = 0; i < cl->nracks; i++)
			drop[i] = c->lic_name[i];
		for (i = 0; i < set->nnodes; i++)
			if (cl->nodes[set->nodes[i]].rack >= 0)
				per[cl->nodes[set->nodes[i]].rack] +=
				    gp__lic_gpu_watts(cl, set->nodes[i], gp__popcount(set->gpu_mask[i]));
		for (i = 0; i < cl->nracks; i++)
			if (per[i] > 0 && per[i] <= c->lic_count[i]) {
				names[n] = c->lic_name[i];
				counts[n++] = per[i];
			} else if (per[i] > 0) {
				n = 0;
				break;
			}
		if (n > 0)
			rc = gp__lic_licenses(ji->licenses, names, counts, n, drop, cl->nracks, buf,
			                      len, &why);
	}
	free(names);
	free(drop);
	free(per);
	free(counts);
	if (rc != 1) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int steer_decide(struct gp_conf *c, struct gp_snap *sn, const slurm_job_info_t *ji,
                        const gp_steer_cand_t *k, const struct steer_plans *plans, int64_t now,
                        struct steer_plan *plan, int *evaluations)
{
	struct steer_orig *o = orig_find(k->ref);
	struct ledger_entry *e;
	gp_job_profile_t profile;
	gp_live_need_t need;
	gp_policy_t pol;
	gp_request_t r;
	gp_decision_t d;
	gp_error_t err;
	char why[512], *tres_node = NULL, *list = NULL, type[GP_NAME_MAX];
	int moved = 0, found = 0, rc;
	int32_t i;
	bool taken = false;
	const gp_steer_plan_t *own = NULL;

	if (!o || o->kept || o->frozen)
		return 0; /* not known (slurmctld restarted), changed by someone
		           * else, or passed and only kept to a rack */
	o->st.pinned = k->pinned;
	/* moved lately, or CONSTRAINed and re-decided within the interval */
	if (!gp_steer_due(&o->st, &c->policy, now))
		return 0;
	if (dec.cur.conf != c)
		return 0; /* built by this thread before the next pass */
	if (o->hints && gp__job_profile_parse(o->hints, &profile, &err) == GP_OK)
		found = 1;
	gp__request_init(&r);
	memset(&d, 0, sizeof(d));
	if (build_request(&o->d, c->cluster, &r, type, why, sizeof(why)) <= 0)
		goto out;
	job_need(&o->d, daemon_default_mem(), &need);
	dec.ledger.skip_ref = k->ref;
	prepare_work(sn, &need);
	if (gp_resv_apply(c->cluster, &sn->resv, o->d.reservation, now,
	                  (int64_t)r.time_limit_min * 60, dec.cur.work->node_flags, why,
	                  sizeof(why)))
		goto out;
	/* the nodes Slurm's backfill planned for jobs ahead of it are not
	 * free for it: a job moved there could not start before them
	 * (steer_rules.h); a pinned set holding one is taken */
	gp_steer_hold_planned(k, r.time_limit_min > 0 ? now + (int64_t)r.time_limit_min * 60 : 0,
	                      plans->p, plans->n, dec.cur.work->node_flags, c->cluster->nnodes);
	for (i = 0; i < plans->n; i++)
		if (plans->p[i].job_id == k->job_id)
			own = &plans->p[i];
	if (k->pinned) {
		/* is the pinned set still free for it?  The ledger says how many
		 * GPUs on each node; a held job left the ledger, then its
		 * record's nodes and GPUs per node say it */
		int32_t *pn = NULL, npn = 0, per;

		if ((e = ledger_find(k->ref))) {
			for (i = 0; i < e->n; i++)
				if (pinned_node_taken(e->nodes[i], gp__popcount(e->mask[i])))
					taken = true;
		} else if (ji->req_nodes && gp__hostlist_nodes(c->cluster, "ReqNodeList", ji->req_nodes,
		                                                c->cluster->nnodes, &pn, &npn, &err) == GP_OK &&
		           npn > 0) {
			per = (int32_t)gp_tres_gpus(ji->tres_per_node);
			if (per <= 0)
				per = (r.gpus + npn - 1) / npn;
			for (i = 0; i < npn; i++)
				if (pinned_node_taken(pn[i], per))
					taken = true;
		}
		free(pn);
	}
	/* pinned and not taken: Slurm starts it there as soon as it gets to it */
	if (!gp_steer_redecide(&o->st, &c->policy, now, taken, &pol, plan->why, sizeof(plan->why)))
		goto out;
	(*evaluations)++;
	{
		gp_power_view_t pv = { ledger_racks(sn->racks), gp__power_view_cap_speed,
		                       sn->hres || sn->lic };

		if (found && profile.gpus == 0)
			profile.gpus = r.gpus;
		bookings_prune(now);
		rc = gp__decide(dec.cur.engine, dec.cur.work, &r, found ? &profile : NULL, &pol,
		                &pv, sn->view.state->time, recent_bookings(), nrecent_bookings(),
		                &d, &err);
	}
	if (rc != GP_OK || !gp_steer_moves(&d))
		goto out;
	if (!pin_exact(&o->d, &r, &d.cands[0], now - sn->view.state->time, &tres_node, why,
	               sizeof(why)))
		goto out;
	if (!(list = gp__scored_nodelist(c->cluster, &d.cands[0])))
		goto out;
	if (k->pinned && ji->req_nodes && !strcmp(ji->req_nodes, list))
		goto out; /* the same set again */
	if (gp_steer_plan_keeps(c->cluster, &pol, own, &d.cands[0], now))
		goto out; /* Slurm starts it as compactly within an interval */
	plan->job_id = ji->job_id;
	plan->req_nodes = strdup(list);
	plan->nodes = (uint32_t)d.cands[0].nnodes;
	plan->features = strdup(o->d.features ? o->d.features : "");
	/* a job that waited through gpuplace's --switches: the PIN is exact
	 * now, and a spread set would otherwise be held by the switch count
	 * until max-time */
	plan->drop_switch = o->st.every_refresh;
	plan->comment = steer_comment(ji->admin_comment, list, d.cands[0].nnodes, plan->why);
	if (!plan->req_nodes || !plan->features || !plan->comment) {
		plan_clear(plan);
		goto out;
	}
	/* PowerLicenses: the racks of the new set, each its share, in place
	 * of the licenses asked for before; a job whose licenses cannot say
	 * so is not moved */
	if (c->lic_name && sn->lic && !(plan->licenses = steer_licenses(c, ji, &d.cands[0]))) {
		plan_clear(plan);
		goto out;
	}
	/* the new set is this job's from now on: later decisions see it
	 * taken; a move the ledger cannot book is not made.  A new entry
	 * carries the job's submission time, older than the move: the job
	 * list is read from then on, so that the entry leaves once the job
	 * is seen started, not only GP_LEDGER_GRACE_S after the move (which
	 * left the nodes of a job that ran and ended within that time
	 * looking taken) */
	if ((e = ledger_find(k->ref))) {
		int32_t *nn = malloc((size_t)d.cands[0].nnodes * sizeof(*nn));
		uint32_t *nm = malloc((size_t)d.cands[0].nnodes * sizeof(*nm));
		bool booked = nn && nm;

		if (booked) {
			memcpy(nn, d.cands[0].nodes, (size_t)d.cands[0].nnodes * sizeof(*nn));
			memcpy(nm, d.cands[0].gpu_mask, (size_t)d.cands[0].nnodes * sizeof(*nm));
			free(e->nodes);
			free(e->mask);
			e->nodes = nn;
			e->mask = nm;
			e->n = d.cands[0].nnodes;
			e->cap_w = d.cands[0].cap_w;
			nn = NULL;
			nm = NULL;
			ledger_index_rebuild();
		}
		free(nn);
		free(nm);
		if (!booked) {
			plan_clear(plan);
			goto out;
		}
	} else if (!ledger_add(d.cands[0].nodes, d.cands[0].gpu_mask, d.cands[0].nnodes, k->ref,
	                       o->uid, gp_live_name_hash(o->d.name), true, d.cands[0].cap_w,
	                       false, k->submit_time)) {
		plan_clear(plan);
		goto out;
	}
	gp_steer_moved(&o->st, now);
	o->st.every_refresh = false; /* a PIN from now on */
	o->counts = true;            /* of the new set's node count */
	orig_changed(o);
	moved = 1;
out:
	dec.ledger.skip_ref = 0;
	if (dec.cur.work) {
		dec.cur.work->jobs = NULL; /* borrowed from the snapshot */
		dec.cur.work->njobs = 0;
	}
	slurm_xfree((void **)&tres_node);
	free(list);
	gp__decision_clear(&d);
	gp__request_clear(&r);
	return moved;
}

/*
 * A pending job gpuplace PINned whose request it no longer keeps (no
 * original: slurmctld restarted, or the job ran and was requeued, after a
 * node failed, by preemption or by scontrol requeue) and one of whose
 * pinned nodes is down or drained in state st: slurmctld would hold it for
 * that node for good ("ReqNodeNotAvail"), where stock Slurm starts it
 * elsewhere; or in a reservation of resv (NULL: not read) that the job
 * cannot use during its run (held until the reservation ends: a
 * maintenance); or, the job not held, one of whose pinned nodes has fewer
 * GPUs free than it needs there: it would wait for the other jobs there to
 * end (a preempted job for its preemptor), where stock Slurm starts it
 * elsewhere.  Its node list goes back to the
 * job's own (after GP_USER_NODES_TOKEN in its comment, none without the
 * token; left alone when the token has no list, one too long to say),
 * through the same RPC as steering; at most max jobs per pass.  Returns
 * the updates made.
 */
/* An original as steer_release looks it up: its reference, and whether
 * the steering pass moves its job (not frozen, not kept to a rack). */
struct ref_kept {
	uint64_t ref; /* first: by_ref reads it */
	bool steered;
};

/* The originals' references and flags, sorted (malloc'd; NULL when memory
 * is short: then each job is looked up under dec.lock).  One copy under
 * dec.lock per pass: each lookup in the table itself reads up to 2 x
 * GP_LEDGER_MAX originals, for every pending PINned job. */
static struct ref_kept *refs_sorted(int *n)
{
	struct ref_kept *v;
	int k;

	pthread_mutex_lock(&dec.lock);
	*n = steer.norigs;
	if ((v = malloc(((size_t)steer.norigs + 1) * sizeof(*v))))
		for (k = 0; k < steer.norigs; k++) {
			v[k].ref = steer.origs[k]->ref;
			v[k].steered = !steer.origs[k]->frozen && !steer.origs[k]->kept;
		}
	pthread_mutex_unlock(&dec.lock);
	if (v)
		qsort(v, (size_t)*n, sizeof(*v), by_ref);
	return v;
}

static int steer_release(const gp_cluster_t *cl, const gp_state_t *st, const gp_resv_view_t *resv,
                         const job_info_msg_t *jobs, int max, int64_t now)
{
	uint32_t i;
	int done = 0, nrefs = 0;
	struct ref_kept *refs = NULL;
	bool looked = false;

	for (i = 0; i < jobs->record_count && done < max; i++) {
		const slurm_job_info_t *ji = &jobs->job_array[i];
		char user[GP_USER_NODES_MAX + 1] = "", down[GP_NAME_MAX] = "", *name;
		const char *pin;
		char section[600], *comment;
		const char *sec, *tok;
		size_t at, len, k;
		gp_hostlist_t hl;
		uint64_t ref;
		bool known, orphan = false;
		const char *why = "";
		/* held (priority 0): its pinned nodes are looked at once it is
		 * released, when they may be free again; requeued and still
		 * completing: the GPUs in use there may be its own */
		bool held = ji->priority == 0 || (ji->job_state & JOB_COMPLETING);
		long per;
		int n;
		job_desc_msg_t u;

		if ((ji->job_state & JOB_STATE_BASE) != JOB_PENDING || !ji->req_nodes ||
		    !*ji->req_nodes || !(ref = gp_comment_ref(ji->admin_comment)) ||
		    !gp_comment_section(ji->admin_comment, &at, &len))
			continue;
		sec = ji->admin_comment + at;
		if (len < 14 || strncmp(sec, "gpuplace: PIN ", 14))
			continue;
		/* the list the PIN named, of any length, is still the job's */
		k = strcspn(sec + 14, ";");
		if (14 + k > len || strlen(ji->req_nodes) != k || strncmp(sec + 14, ji->req_nodes, k))
			continue; /* someone else set its nodes */
		pin = ji->req_nodes;
		if (!looked) {
			refs = refs_sorted(&nrefs);
			looked = true;
		}
		if (refs) {
			struct ref_kept key = { .ref = ref };
			const struct ref_kept *o = bsearch(&key, refs, (size_t)nrefs, sizeof(*refs),
			                                   by_ref);

			known = o && o->steered;
			orphan = !o;
		} else {
			pthread_mutex_lock(&dec.lock);
			{
				const struct steer_orig *o = orig_find(ref);

				known = o && !o->frozen && !o->kept;
				orphan = !o;
			}
			pthread_mutex_unlock(&dec.lock);
		}
		if (known)
			continue; /* steer_decide moves it */
		if (!gp__hostlist_within(pin, (uint32_t)cl->nnodes) ||
		    !(hl = slurm_hostlist_create(pin)))
			continue;
		/* the GPUs it needs on each pinned node: its per-node count, or
		 * its total over the pinned nodes (0: unknown, not checked) */
		per = gp_tres_gpus(ji->tres_per_node);
		if (per <= 0 && (n = slurm_hostlist_count(hl)) > 0 &&
		    (per = gp_tres_gpus(ji->tres_per_job)) > 0)
			per = (per + n - 1) / n;
		while (!*down && (name = slurm_hostlist_shift(hl))) {
			int32_t nd = gp__node_find(cl, name);

			/* (not a node down for now only: after slurmctld
			 * restarts every node is, until its slurmd registers,
			 * and slurmctld waits for it) */
			uint32_t fl = nd >= 0 ? st->node_flags[nd] : 0;

			if (nd >= 0 && ((fl & GP_NODE_DRAIN) ||
			                (fl & (GP_NODE_DOWN | GP_NODE_NORESP)) == GP_NODE_DOWN)) {
				snprintf(down, sizeof(down), "%s", name);
				why = "down or drained";
			} else if (!orphan) {
				/* changed by someone else (job_modify): left
				 * alone but for a node down or drained */
			} else if (nd >= 0 && resv &&
			           gp_resv_node_blocked(resv, ji->resv_name, now,
			                                ji->time_limit == NO_VAL ||
			                                ji->time_limit == INFINITE
			                                ? 0 : (int64_t)ji->time_limit * 60, nd) == 1) {
				/* a reservation that overlaps its run and that it
				 * cannot use (read with this state; one it names
				 * that gpuplace does not know: not judged) */
				snprintf(down, sizeof(down), "%s", name);
				why = "in a reservation the job cannot use during its run";
			} else if (nd >= 0 && per > 0 && !held && !(fl & GP_NODE_DOWN) &&
			           cl->nodes[nd].ngpus - gp__popcount(st->alloc_mask[nd]) < per) {
				snprintf(down, sizeof(down), "%s", name);
				why = "in use by other jobs";
			}
			free(name);
		}
		slurm_hostlist_destroy(hl);
		if (!*down)
			continue;
		tok = strstr(sec, GP_USER_NODES_TOKEN);
		if (tok && tok < sec + len) {
			tok += strlen(GP_USER_NODES_TOKEN);
			if (*tok != ' ')
				continue; /* the job's own list was too long to say */
			k = strcspn(tok + 1, ";");
			if (k > GP_USER_NODES_MAX)
				continue;
			memcpy(user, tok + 1, k);
			user[k] = '\0';
		}
		snprintf(section, sizeof(section),
		         GP_COMMENT_PASS "pinned node %s is %s and gpuplace no longer keeps the job's "
		         "request (slurmctld restarted, or the job was requeued): its node list is the "
		         "job's own again (%.250s); ref 0", down, why, *user ? user : "none");
		if (!(comment = comment_with(ji->admin_comment, section)))
			continue;
		slurm_init_job_desc_msg(&u);
		GP_JOB_DESC_ID(&u) = ji->job_id;
		u.req_nodes = user;
		u.admin_comment = comment;
		steer.inflight = ji->job_id;
		if (slurm_update_job(&u) == SLURM_SUCCESS)
			slurm_info("gpuplace: job %u: %s", ji->job_id, section);
		else
			slurm_verbose("gpuplace: job %u not released from %.200s: %s", ji->job_id, pin,
			              slurm_strerror(errno));
		steer.inflight = 0;
		free(comment);
		done++;
	}
	free(refs);
	return done;
}

/*
 * Once per state refresh, on the plugin's thread (never the submission
 * path): the pending jobs gpuplace placed, in Slurm's priority order, are
 * re-decided and at most policy.steer_max of them updated through Slurm's
 * public API (slurm_update_job, an RPC to this slurmctld like the
 * thread's readings).  No plugin lock is held across the RPC; Slurm
 * itself refuses to change the nodes of a job that is no longer pending,
 * so a job that starts meanwhile is never moved.
 */
void steer_pass(gp_live_t *lv)
{
	struct gp_snap *sn = snap_get();
	struct gp_conf *c;
	gp_steer_cand_t *cand = NULL;
	int64_t now = (int64_t)time(NULL);
	int nc, k, updates = 0, evaluations = 0;

	if (!sn || !lv->jobs)
		goto done;
	c = sn->conf;
	origs_prune(lv->jobs, now);
	if (c->policy.steer_max <= 0 || now - sn->view.state->time > GP_PIN_FRESH_S)
		goto done;
	if (!(cand = malloc(((size_t)lv->jobs->record_count + 1) * sizeof(*cand))))
		goto done;
	nc = gp_steer_pick(lv->jobs->job_array, lv->jobs->record_count, cand,
	                   (int)lv->jobs->record_count);
	/* bounded work: at most steer_max updates and 4x as many
	 * re-decisions per pass, dec.lock taken per job, so a submission
	 * waits for one re-decision at most */
	for (k = 0; k < nc && gp_steer_budget(&c->policy, updates, evaluations); k++) {
		struct steer_plan plan;
		job_desc_msg_t u;
		int moved, rc;

		memset(&plan, 0, sizeof(plan));
		pthread_mutex_lock(&dec.lock);
		moved = steer_decide(c, sn, &lv->jobs->job_array[cand[k].index], &cand[k], &sn->plans, now,
		                     &plan, &evaluations);
		pthread_mutex_unlock(&dec.lock);
		if (!moved)
			continue;
		/* the RPC, with no plugin lock held */
		slurm_init_job_desc_msg(&u);
		GP_JOB_DESC_ID(&u) = plan.job_id;
		u.req_nodes = plan.req_nodes;
		u.min_nodes = u.max_nodes = plan.nodes;
		u.features = plan.features;
		u.admin_comment = plan.comment;
		if (plan.licenses)
			u.licenses = plan.licenses;
		if (plan.drop_switch) {
			/* job_mgr.c _update_job takes both on a pending job;
			 * 0 = no switch count (topology/tree evaluates
			 * req_switch only when > 0) */
			u.req_switch = 0;
			u.wait4switch = 0;
		}
		updates++;
		steer.inflight = plan.job_id;
		rc = slurm_update_job(&u);
		steer.inflight = 0;
		if (rc == SLURM_SUCCESS) {
			slurm_verbose("gpuplace: job %u steered: %s", plan.job_id, plan.comment);
			count_steered();
		} else {
			/* most often: it started meanwhile, which Slurm refuses to move */
			slurm_verbose("gpuplace: job %u not steered to %s: %s", plan.job_id,
			              plan.req_nodes, slurm_strerror(errno));
		}
		plan_clear(&plan);
	}
	/* pinned jobs gpuplace no longer keeps, held for a node that is down,
	 * reserved or taken */
	updates += steer_release(c->cluster, sn->view.state, sn->resv_ok ? &sn->resv : NULL,
	                         lv->jobs, c->policy.steer_max - updates, now);
	/* PowerLicenses: jobs kept to a rack without room move to one with
	 * room, within what is left of this pass's updates */
	if (c->lic_name)
		lic_steer(c, sn, lv->jobs, c->policy.steer_max - updates);
done:
	free(cand);
	snap_put(sn);
	/* at most one write per GP_ORIG_WRITE_S: a burst of submissions
	 * wakes the thread several times a second, and the file holds up to
	 * 2 x GP_LEDGER_MAX lines */
	if (now - steer.written >= GP_ORIG_WRITE_S) {
		steer.written = now;
		origs_persist();
	}
}
