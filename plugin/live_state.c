/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * live_state.c - the cluster's dynamic state, read from slurmctld through
 * libslurm (node and job information), as a gp_state the engine reads plus
 * what the plugin's bookkeeping needs (CPUs and memory left per node, the
 * jobs submitted lately).
 *
 * Nodes are read with SHOW_DETAIL: without it Slurm 22.05 sends no
 * gres_used, and every GPU would look free.  Jobs are read with SHOW_DETAIL
 * too, for their per-node GPU index lists (gres_detail_str, one entry per
 * node of the job in host list order).  Both are asked with the cached
 * update time at every refresh, so an unchanged cluster costs Slurm a "no
 * change" answer.  Runs on the plugin's own thread, never on the
 * submission path.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm_compat.h"

#include "gres_parse.h"
#include "live_state.h"

void gp_live_init(gp_live_t *lv)
{
	memset(lv, 0, sizeof(*lv));
}

void gp_live_fini(gp_live_t *lv)
{
	if (lv->nodes)
		slurm_free_node_info_msg(lv->nodes);
	if (lv->jobs)
		slurm_free_job_info_msg(lv->jobs);
	memset(lv, 0, sizeof(*lv));
}

void gp_live_view_clear(gp_live_view_t *v)
{
	if (!v)
		return;
	gp_state_destroy(v->state);
	free(v->res);
	free(v->seen);
	memset(v, 0, sizeof(*v));
}

uint64_t gp_live_name_hash(const char *name)
{
	uint64_t h = 1469598103934665603ULL;

	for (; name && *name; name++) {
		h ^= (unsigned char)*name;
		h *= 1099511628211ULL;
	}
	return h;
}

static uint32_t full_mask(int32_t ngpus)
{
	return ngpus >= 32 ? ~0u : ngpus <= 0 ? 0 : (1u << ngpus) - 1;
}

/* The n lowest free GPUs of a node become busy (a count without indices). */
static uint32_t take_lowest(uint32_t alloc, int32_t ngpus, int32_t n)
{
	int32_t g;

	for (g = 0; g < ngpus && n > 0; g++)
		if (!(alloc & (1u << g))) {
			alloc |= 1u << g;
			n--;
		}
	return alloc;
}

static uint32_t node_flags_of(uint32_t st)
{
	uint32_t base = st & NODE_STATE_BASE, f = 0;
	bool down = base == NODE_STATE_DOWN || base == NODE_STATE_FUTURE ||
	            (st & NODE_STATE_INVALID_REG);
	bool for_now = base == NODE_STATE_UNKNOWN ||
	               (st & (NODE_STATE_NO_RESPOND | NODE_STATE_REBOOT_ISSUED |
	                      NODE_STATE_POWERING_DOWN));

	if (down || for_now)
		f |= GP_NODE_DOWN;
	if (for_now && !down)
		f |= GP_NODE_NORESP;
	if (st & (NODE_STATE_DRAIN | NODE_STATE_FAIL))
		f |= GP_NODE_DRAIN;
	if (st & (NODE_STATE_MAINT | NODE_STATE_RES))
		f |= GP_NODE_RESERVED;
	return f;
}

/* "ref N" that gpuplace wrote into an admin comment; 0 = none. */
static uint64_t comment_ref(const char *comment)
{
	size_t at, len;
	const char *p;
	uint64_t v = 0;

	/* gpuplace's part ends with its reference; other text may surround it.
	 * A passed job's (one kept to a rack carries one, for job_modify) is
	 * no decision the ledger booked: the ledger's guess for it finds it
	 * by its user and name */
	if (!gp_comment_section(comment, &at, &len) ||
	    gp_comment_is_pass(comment + at, len))
		return 0;
	p = strstr(comment + at, "; ref ");
	for (p += 6; *p >= '0' && *p <= '9' && v < (1ULL << 60); p++)
		v = v * 10 + (uint64_t)(*p - '0');
	return v;
}

/* GPUs a job holds in all ("gres/gpu=N" of its TRES string, untyped);
 * 0 when none is named or the number cannot be read. */
static long tres_alloc_gpus(const char *tres)
{
	const char *p;

	for (p = tres; p && (p = strstr(p, "gres/gpu=")); p++) {
		char *end;
		long v;

		if (p != tres && p[-1] != ',')
			continue;
		errno = 0;
		v = strtol(p + 9, &end, 10);
		if (errno || end == p + 9 || (*end && *end != ',') || v < 0 || v > 1L << 30)
			return 0;
		return v;
	}
	return 0;
}

/*
 * The power caps etc/prolog/gpuplace-powercap recorded for a running job:
 * each node's prolog appends "; applied cap NODE W W" (the highest limit
 * its GPUs read back after nvidia-smi -pl) or "; applied cap NODE none"
 * to the job's admin comment.  When every node of the job has a number,
 * the job's load becomes the fraction of its GPUs' dynamic range that cap
 * allows, (W - IdleWatts) / (TDPWatts - IdleWatts), the highest over its
 * nodes, if lower than the load it had: the estimate then counts what the
 * GPUs enforce, not the plan.  A node without a record, "none", or a GPU
 * of unknown profile leaves the load as it was (uncapped: conservative).
 */
static void applied_cap_load(const gp_cluster_t *c, const char *comment, gp_job_alloc_t *ja)
{
	static const char key[] = "; applied cap ";
	double frac = 0.0;
	int32_t k;

	if (!comment || strncmp(comment, "gpuplace: ", 10) || !strstr(comment, key))
		return;
	for (k = 0; k < ja->nnodes; k++) {
		const gp_node_t *n = &c->nodes[ja->nodes[k]];
		const gp_gpu_profile_t *p;
		size_t nl = strlen(n->name);
		const char *q;
		bool found = false;
		double w = 0.0, f;

		if (n->profile < 0 || n->profile >= c->nprofiles)
			return;
		p = &c->profiles[n->profile];
		for (q = comment; (q = strstr(q, key)); q++) {
			char *end;

			if (strncmp(q + sizeof(key) - 1, n->name, nl) || q[sizeof(key) - 1 + nl] != ' ')
				continue;
			errno = 0;
			w = strtod(q + sizeof(key) + nl, &end);
			/* the last record of the node counts (a requeued job's prolog ran again) */
			found = !errno && end != q + sizeof(key) + nl && !strncmp(end, " W", 2) &&
			        w > 0.0 && w < 1e5;
		}
		if (!found || !(p->tdp_w > p->idle_w))
			return;
		f = (w - p->idle_w) / (p->tdp_w - p->idle_w);
		frac = f > frac ? f : frac;
	}
	/* load 0 would mean "not given" (model.h): a cap at idle is 1e-6 */
	if (ja->nnodes > 0 && frac < ja->load)
		ja->load = frac > 1e-6 ? frac : 1e-6;
}

/* sum + a x b MB, at most INT64_MAX (sum >= 0) */
static int64_t mem_add(int64_t sum, uint64_t a, uint64_t b)
{
	uint64_t room = (uint64_t)(INT64_MAX - sum);

	return b && a > room / b ? INT64_MAX : sum + (int64_t)(a * b);
}

/* Add job ji to s; a running job's GPUs are added to owned (per node).  A
 * completing job (ended, its epilog not yet done on every node; added
 * after every running job) holds only those of its GPUs its nodes still
 * show in use (node_busy, the nodes' own records: Slurm keeps its whole
 * node list while nodes finish one by one) and no running job holds, adds
 * no CPUs or memory to the cross-check, and ends now: the engine frees it
 * at its first predicted point rather than never (a job then waited for
 * one NVLink domain while another stood free, tests/slurm/slurm_vs_stock.sh
 * 31-33 in the sid root, where slurmctld restarts on every reconfigure). */
static int add_job(gp_state_t *s, const gp_cluster_t *c, const slurm_job_info_t *ji,
                   uint32_t max_nodes, int32_t *unreadable, int32_t *job_cpus, int64_t *job_mem,
                   uint32_t *owned, const uint32_t *node_busy, bool completing, int64_t now)
{
	/* a job Slurm has just started may have no GPU indices in its record
	 * yet, while its nodes' gres_used also lags: its GPUs then count as
	 * the lowest free ones of each node (an even share of its total), so a
	 * decision never takes them */
	long share = 0;
	gp_hostlist_t hl;
	gp_job_alloc_t *ja, *grown;
	char *host;
	int32_t i = 0, n;

	/* a node list longer than slurmctld has nodes is no job's: it is
	 * not expanded (a product of ranges can name billions of
	 * hosts, an hour's work), nor one with junk in its ranges, which
	 * libslurm expands as ranges too; its nodes' own records still
	 * give their GPUs in use */
	if (!gp__hostlist_within(ji->nodes, max_nodes)) {
		(*unreadable)++;
		return 0;
	}
	hl = slurm_hostlist_create(ji->nodes);
	if (!hl)
		return -1;
	n = slurm_hostlist_count(hl);
	/* and as libslurm counts it, should it read a list otherwise */
	if (n < 0 || (uint32_t)n > max_nodes) {
		slurm_hostlist_destroy(hl);
		(*unreadable)++;
		return 0;
	}
	if (n > 0 && !completing)
		share = (tres_alloc_gpus(ji->tres_alloc_str) + n - 1) / n;
	grown = realloc(s->jobs, ((size_t)s->njobs + 1) * sizeof(*s->jobs));
	if (!grown || n <= 0) {
		if (grown)
			s->jobs = grown;
		slurm_hostlist_destroy(hl);
		return grown ? 0 : -1;
	}
	s->jobs = grown;
	ja = &s->jobs[s->njobs];
	memset(ja, 0, sizeof(*ja));
	ja->nodes = calloc((size_t)n, sizeof(*ja->nodes));
	ja->gpu_mask = calloc((size_t)n, sizeof(*ja->gpu_mask));
	if (!ja->nodes || !ja->gpu_mask) {
		free(ja->nodes);
		free(ja->gpu_mask);
		slurm_hostlist_destroy(hl);
		return -1;
	}
	ja->job_id = ji->job_id;
	ja->end_time = (int64_t)ji->end_time;
	if (completing && (ja->end_time <= 0 || ja->end_time > now))
		ja->end_time = now;
	ja->load = 1.0;
	while ((host = slurm_hostlist_shift(hl))) {
		int32_t idx = gp__node_find(c, host);

		if (idx >= 0 && i < n) {
			uint32_t m = 0;
			int32_t unidx = 0;

			if (ji->gres_detail_str && (uint32_t)i < ji->gres_detail_cnt) {
				if (gp_live_gres_gpus(ji->gres_detail_str[i], &m, &unidx) != 0) {
					/* unreadable: the node counts as fully busy
					 * (a completing job's: as its record says) */
					(*unreadable)++;
					if (!completing)
						s->alloc_mask[idx] = full_mask(c->nodes[idx].ngpus);
					m = 0;
				}
				/* a count without indices is already in the node's
				 * gres_used count */
			} else if (share > 0) {
				uint32_t before = s->alloc_mask[idx];

				s->alloc_mask[idx] = take_lowest(before, c->nodes[idx].ngpus,
				                                 (int32_t)(share < 32 ? share : 32));
				m = s->alloc_mask[idx] & ~before;
			}
			m &= full_mask(c->nodes[idx].ngpus);
			if (completing)
				m &= node_busy[idx] & ~owned[idx];
			else {
				int cpus = gp_job_cpus_on_node(ji, host);
				uint64_t mem = ji->pn_min_memory;

				owned[idx] |= m;
				if (cpus > 0)
					job_cpus[idx] += cpus;
				/* where memory is no consumable resource Slurm
				 * runs any request: sums kept to INT64_MAX */
				if (mem != NO_VAL64 && !(mem & MEM_PER_CPU))
					job_mem[idx] = mem_add(job_mem[idx], mem, 1);
				else if (mem != NO_VAL64 && cpus > 0)
					job_mem[idx] = mem_add(job_mem[idx], mem & ~MEM_PER_CPU,
					                       (uint64_t)cpus);
			}
			ja->nodes[ja->nnodes] = idx;
			ja->gpu_mask[ja->nnodes] = m;
			s->alloc_mask[idx] |= m; /* the job's indices, in case gres_used lags */
			ja->nnodes++;
		}
		i++;
		free(host);
	}
	slurm_hostlist_destroy(hl);
	applied_cap_load(c, ji->admin_comment, ja);
	s->njobs++;
	return 0;
}

static int add_seen(gp_live_view_t *v, const slurm_job_info_t *ji, int32_t *cap)
{
	gp_live_seen_t *e;

	if (v->nseen == *cap) {
		int32_t ncap = *cap ? 2 * *cap : 64;
		gp_live_seen_t *grown = realloc(v->seen, (size_t)ncap * sizeof(*grown));

		if (!grown)
			return -1;
		v->seen = grown;
		*cap = ncap;
	}
	e = &v->seen[v->nseen++];
	e->job_id = ji->job_id;
	e->uid = ji->user_id;
	e->submit_time = (int64_t)ji->submit_time;
	e->name_hash = gp_live_name_hash(ji->name);
	e->ref = comment_ref(ji->admin_comment);
	e->started = (ji->job_state & JOB_STATE_BASE) != JOB_PENDING;
	e->held = !e->started &&
	          (ji->priority == 0 || ji->state_reason == WAIT_HELD ||
	           ji->state_reason == WAIT_HELD_USER || ji->state_reason == WAIT_DEPENDENCY ||
	           ji->state_reason == WAIT_TIME);
	return 0;
}

int gp_live_convert(const gp_cluster_t *c, const node_info_t *nodes, const gp_live_alloc_t *alloc,
                    uint32_t nnodes, const slurm_job_info_t *jobs, uint32_t njobs, int64_t now,
                    int64_t since, gp_live_view_t *out, char *why, size_t len)
{
	uint32_t i, ncompleting = 0, *owned = NULL, *node_busy = NULL;
	uint32_t max_nodes = nnodes > (uint32_t)c->nnodes ? nnodes : (uint32_t)c->nnodes;
	int32_t cap = 0, *job_cpus = NULL, k;
	int64_t *job_mem = NULL;

	memset(out, 0, sizeof(*out));
	if (gp_state_create(c, &out->state) != GP_OK ||
	    !(out->res = calloc((size_t)c->nnodes + 1, sizeof(*out->res))) ||
	    !(job_cpus = calloc((size_t)c->nnodes + 1, sizeof(*job_cpus))) ||
	    !(job_mem = calloc((size_t)c->nnodes + 1, sizeof(*job_mem))) ||
	    !(owned = calloc((size_t)c->nnodes + 1, sizeof(*owned))) ||
	    !(node_busy = calloc((size_t)c->nnodes + 1, sizeof(*node_busy))))
		goto nomem;
	out->state->time = now;
	out->jobs_time = now;
	for (i = 0; i < nnodes; i++) {
		const node_info_t *ni = &nodes[i];
		int32_t idx = ni->name ? gp__node_find(c, ni->name) : -1, unidx = 0;
		gp_live_res_t *r;
		uint32_t m = 0;

		if (idx < 0)
			continue; /* a node gpuplace.conf's model does not know */
		out->state->node_flags[idx] |= node_flags_of(ni->node_state);
		if (gp_live_gres_gpus(ni->gres_used, &m, &unidx) != 0) {
			/* unreadable: count the node's GPUs as busy rather than guess */
			out->unreadable++;
			m = full_mask(c->nodes[idx].ngpus);
		} else if (unidx > 0) {
			m = take_lowest(m, c->nodes[idx].ngpus, unidx);
		}
		out->state->alloc_mask[idx] |= m & full_mask(c->nodes[idx].ngpus);
		if (!alloc)
			continue;
		r = &out->res[idx];
		r->known = true;
		r->cpus_total = (int32_t)(ni->cpus_efctv ? ni->cpus_efctv : ni->cpus);
		r->cpus_free = r->cpus_total - (int32_t)alloc[i].cpus;
		if (r->cpus_free < 0)
			r->cpus_free = 0;
		{
			/* in uint64_t as Slurm keeps them; what is left kept
			 * within int64_t, so no difference below overflows */
			uint64_t usable = ni->real_memory -
			                  (ni->mem_spec_limit < ni->real_memory ? ni->mem_spec_limit : 0);

			r->mem_mb = usable > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)usable;
			r->mem_free_mb = alloc[i].mem_mb >= (uint64_t)r->mem_mb
			                 ? 0 : r->mem_mb - (int64_t)alloc[i].mem_mb;
		}
	}
	memcpy(node_busy, out->state->alloc_mask, (size_t)c->nnodes * sizeof(*node_busy));
	for (i = 0; i < njobs; i++) {
		const slurm_job_info_t *ji = &jobs[i];
		uint32_t base = ji->job_state & JOB_STATE_BASE;

		if ((int64_t)ji->submit_time >= since && add_seen(out, ji, &cap) != 0)
			goto nomem;
		if (!ji->nodes || !*ji->nodes)
			continue;
		if (base != JOB_RUNNING && base != JOB_SUSPENDED) {
			ncompleting += (ji->job_state & JOB_COMPLETING) != 0;
			continue;
		}
		if (add_job(out->state, c, ji, max_nodes, &out->unreadable, job_cpus, job_mem,
		            owned, node_busy, false, now) != 0)
			goto nomem;
	}
	for (i = 0; i < njobs && ncompleting > 0; i++) {
		const slurm_job_info_t *ji = &jobs[i];
		uint32_t base = ji->job_state & JOB_STATE_BASE;

		if (base == JOB_RUNNING || base == JOB_SUSPENDED || !(ji->job_state & JOB_COMPLETING) ||
		    !ji->nodes || !*ji->nodes)
			continue;
		if (add_job(out->state, c, ji, max_nodes, &out->unreadable, job_cpus, job_mem,
		            owned, node_busy, true, now) != 0)
			goto nomem;
	}
	/* the running jobs' CPUs (their job_resrcs, when Slurm sent them) and
	 * memory (per node, or per CPU times those CPUs) as a cross-check of
	 * the node's own counts */
	for (k = 0; k < c->nnodes; k++) {
		gp_live_res_t *r = &out->res[k];

		if (!r->known)
			continue;
		if (r->cpus_free > r->cpus_total - job_cpus[k])
			r->cpus_free = r->cpus_total - job_cpus[k] < 0 ? 0 : r->cpus_total - job_cpus[k];
		if (r->mem_free_mb > r->mem_mb - job_mem[k])
			r->mem_free_mb = r->mem_mb - job_mem[k] < 0 ? 0 : r->mem_mb - job_mem[k];
	}
	free(job_cpus);
	free(job_mem);
	free(owned);
	free(node_busy);
	return 0;
nomem:
	free(job_cpus);
	free(job_mem);
	free(owned);
	free(node_busy);
	gp_live_view_clear(out);
	snprintf(why, len, "out of memory");
	return -1;
}

int32_t gp_live_usable_gpus(const gp_live_res_t *r, const gp_live_need_t *need,
                            int32_t free_gpus)
{
	int32_t n = free_gpus;

	if (!r->known || free_gpus <= 0)
		return free_gpus < 0 ? 0 : free_gpus;
	if (need->idle_node && (r->cpus_free < r->cpus_total || r->mem_free_mb < r->mem_mb))
		return 0;
	if (r->cpus_free < (need->cpus_per_node > 0 ? need->cpus_per_node : 1))
		return 0;
	if (need->mem_per_node_mb < 0 ? r->mem_free_mb < r->mem_mb || r->mem_mb <= 0
	                              : r->mem_free_mb < (need->mem_per_node_mb > 0 ? need->mem_per_node_mb : 1))
		return 0;
	if (need->cpus_per_gpu > 0 && r->cpus_free / need->cpus_per_gpu < n)
		n = r->cpus_free / need->cpus_per_gpu;
	if (need->mem_per_gpu_mb > 0 && r->mem_free_mb / need->mem_per_gpu_mb < n)
		n = (int32_t)(r->mem_free_mb / need->mem_per_gpu_mb);
	return n;
}

/* ---- reading Slurm ------------------------------------------------------ */

/* CPUs and memory allocated on node ni (slurm_compat.h reads them as the
 * release keeps them). */
static void node_alloc(node_info_t *ni, gp_live_alloc_t *a)
{
	uint32_t cpus = 0;
	uint64_t mem = 0;

	gp_node_alloc(ni, &cpus, &mem);
	a->cpus = cpus;
	a->mem_mb = mem;
}

/* Does the job list hold a pending job? */
static bool any_pending(const job_info_msg_t *jobs)
{
	uint32_t i;

	for (i = 0; i < jobs->record_count; i++)
		if ((jobs->job_array[i].job_state & JOB_STATE_BASE) == JOB_PENDING)
			return true;
	return false;
}

/* Fetch node and job information, reusing the cached copies when Slurm
 * says nothing changed.  0 or a Slurm errno. */
static int fetch(gp_live_t *lv)
{
	node_info_msg_t *n = NULL;
	job_info_msg_t *j = NULL;
	bool full;
	int rc;

	rc = slurm_load_node(lv->nodes ? lv->nodes->last_update : 0, &n, SHOW_ALL | SHOW_DETAIL);
	if (rc == SLURM_SUCCESS) {
		if (lv->nodes)
			slurm_free_node_info_msg(lv->nodes);
		lv->nodes = n;
	} else if (gp_slurm_errno() != SLURM_NO_CHANGE_IN_DATA) {
		return gp_slurm_errno();
	}
	/* every refresh: jobs started or submitted since the last one must
	 * count at once, and an unchanged job list costs a "no change"; but
	 * Slurm's backfill plans pending jobs (SchedNodeList) without marking
	 * the list changed, so while one pends the whole list is read again
	 * once per backfill interval */
	lv->jobs_time = (int64_t)time(NULL);
	full = !lv->jobs || (lv->full_every_s > 0 &&
	                     lv->jobs_time - lv->full_time >= lv->full_every_s &&
	                     any_pending(lv->jobs));
	rc = slurm_load_jobs(full ? 0 : lv->jobs->last_update, &j, SHOW_ALL | SHOW_DETAIL);
	if (rc == SLURM_SUCCESS) {
		if (lv->jobs)
			slurm_free_job_info_msg(lv->jobs);
		lv->jobs = j;
		if (full)
			lv->full_time = lv->jobs_time;
	} else if (gp_slurm_errno() != SLURM_NO_CHANGE_IN_DATA) {
		return gp_slurm_errno();
	}
	return lv->nodes && lv->jobs ? SLURM_SUCCESS : SLURM_ERROR;
}

int gp_live_refresh(gp_live_t *lv, const gp_cluster_t *c, int64_t since, gp_live_view_t *out,
                    char *why, size_t len)
{
	gp_live_alloc_t *alloc;
	uint32_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = fetch(lv)) != SLURM_SUCCESS) {
		snprintf(why, len, "cannot read node and job state: %s", slurm_strerror(rc));
		return -1;
	}
	alloc = calloc((size_t)lv->nodes->record_count + 1, sizeof(*alloc));
	if (!alloc) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	for (i = 0; i < lv->nodes->record_count; i++)
		node_alloc(&lv->nodes->node_array[i], &alloc[i]);
	rc = gp_live_convert(c, lv->nodes->node_array, alloc, lv->nodes->record_count,
	                     lv->jobs->job_array, lv->jobs->record_count, (int64_t)time(NULL), since,
	                     out, why, len);
	free(alloc);
	if (rc == 0)
		out->jobs_time = lv->jobs_time;
	return rc;
}
