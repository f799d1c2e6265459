/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_live_state.c - the plugin's reader of Slurm's node and job records
 * (plugin/live_state.c) without a daemon.  The records are parsed from
 * `scontrol show node -d` and `scontrol show job -d` output captured on the
 * test cluster of tests/slurm/harness.sh (Slurm 22.05.8, 8 nodes x 4 GPUs)
 * into tests/data/slurm/:
 *   busy/    jobs started with -w and --gpus by hand: n1 three GPUs of two
 *            jobs, n2 all four, n3 all CPUs (no GPU), n4 all memory (no
 *            GPU), n[5-6] one job with three GPUs on each, a pending job;
 *   states/  n1 drained, n2 down, n3 in a maintenance reservation, n4 in a
 *            reservation, n5 draining with a job, n8 failed, n7 one GPU;
 *   plugin/  with job_submit/gpuplace: two 1-GPU jobs it passed, a PINned
 *            job running, a CONSTRAINed one pending, three ended ones.
 * conf/ is that cluster's configuration (paths renamed).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "test_slurp.h"

#include <slurm/slurm.h>

#include "live_state.h"
#include "model.h"
#include "power.h"

/* ---- records from captured scontrol output ------------------------------ */

struct capture {
	node_info_t *nodes;
	gp_live_alloc_t *alloc;
	uint32_t nnodes;
	slurm_job_info_t *jobs;
	uint32_t njobs;
};

static char *slurp(const char *rel)
{
	const char *top = getenv("GP_TOP_SRCDIR");
	char path[4096];

	snprintf(path, sizeof(path), "%s/tests/data/slurm/%s", top ? top : ".", rel);
	return gp_test_slurp(path, NULL);
}

/* Value of " KEY=" in line (up to the next blank), malloc'd, or NULL. */
static char *field(const char *line, const char *key)
{
	size_t k = strlen(key);
	const char *p = line, *e;

	for (; (p = strstr(p, key)); p++) {
		if ((p == line || p[-1] == ' ') && p[k] == '=') {
			p += k + 1;
			for (e = p; *e && *e != ' ' && *e != '\n'; e++)
				;
			return strndup(p, (size_t)(e - p));
		}
	}
	return NULL;
}

static long lfield(const char *line, const char *key, long dflt)
{
	char *v = field(line, key);
	long r = v ? strtol(v, NULL, 10) : dflt;

	free(v);
	return r;
}

/* scontrol's State= ("IDLE+MAINTENANCE+RESERVED", "DOWN*") as node_state. */
static uint32_t parse_state(const char *s)
{
	static const struct { const char *name; uint32_t v; } base[] = {
		{ "UNKNOWN", NODE_STATE_UNKNOWN }, { "DOWN", NODE_STATE_DOWN },
		{ "IDLE", NODE_STATE_IDLE }, { "ALLOCATED", NODE_STATE_ALLOCATED },
		{ "MIXED", NODE_STATE_MIXED }, { "FUTURE", NODE_STATE_FUTURE },
	}, flag[] = {
		{ "DRAIN", NODE_STATE_DRAIN }, { "FAIL", NODE_STATE_FAIL },
		{ "MAINTENANCE", NODE_STATE_MAINT }, { "RESERVED", NODE_STATE_RES },
		{ "COMPLETING", NODE_STATE_COMPLETING }, { "NOT_RESPONDING", NODE_STATE_NO_RESPOND },
		{ "POWERED_DOWN", NODE_STATE_POWERED_DOWN }, { "PLANNED", NODE_STATE_PLANNED },
		{ "INVALID_REG", NODE_STATE_INVALID_REG },
	};
	char buf[256], *tok, *save = NULL;
	uint32_t st = 0;
	size_t i;
	int first = 1;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, "+", &save); tok; tok = strtok_r(NULL, "+", &save), first = 0) {
		size_t n = strlen(tok);
		int found = 0;

		if (n && tok[n - 1] == '*') { /* not responding */
			tok[--n] = '\0';
			st |= NODE_STATE_NO_RESPOND;
		}
		for (i = 0; first && i < sizeof(base) / sizeof(base[0]); i++)
			if (!strcmp(tok, base[i].name))
				st |= base[i].v, found = 1;
		for (i = 0; !first && i < sizeof(flag) / sizeof(flag[0]); i++)
			if (!strcmp(tok, flag[i].name))
				st |= flag[i].v, found = 1;
		if (!found)
			fail_msg("unknown node state word '%s' in '%s'", tok, s);
	}
	return st;
}

static void parse_nodes(struct capture *cap, const char *rel)
{
	char *text = slurp(rel), *line, *save = NULL;
	node_info_t *ni = NULL;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *v;

		if (!strncmp(line, "NodeName=", 9)) {
			cap->nodes = realloc(cap->nodes, (cap->nnodes + 1) * sizeof(*cap->nodes));
			cap->alloc = realloc(cap->alloc, (cap->nnodes + 1) * sizeof(*cap->alloc));
			assert_non_null(cap->nodes);
			assert_non_null(cap->alloc);
			ni = &cap->nodes[cap->nnodes];
			memset(ni, 0, sizeof(*ni));
			memset(&cap->alloc[cap->nnodes], 0, sizeof(*cap->alloc));
			cap->nnodes++;
			ni->name = field(line, "NodeName");
			continue;
		}
		if (!ni)
			continue;
		if (strstr(line, "CPUAlloc=")) {
			cap->alloc[cap->nnodes - 1].cpus = (uint16_t)lfield(line, "CPUAlloc", 0);
			ni->cpus = (uint16_t)lfield(line, "CPUTot", 0);
			ni->cpus_efctv = (uint16_t)lfield(line, "CPUEfctv", 0);
		}
		if (strstr(line, "RealMemory=")) {
			ni->real_memory = (uint64_t)lfield(line, "RealMemory", 0);
			cap->alloc[cap->nnodes - 1].mem_mb = (uint64_t)lfield(line, "AllocMem", 0);
		}
		if ((v = field(line, "MemSpecLimit"))) {
			ni->mem_spec_limit = strtoull(v, NULL, 10);
			free(v);
		}
		if ((v = field(line, "State")) && strstr(line, "ThreadsPerCore=")) {
			ni->node_state = parse_state(v);
		}
		free(v);
		if ((v = field(line, "GresUsed")))
			ni->gres_used = v;
	}
	free(text);
}

static time_t parse_time(const char *s)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	if (!s || !strptime(s, "%Y-%m-%dT%H:%M:%S", &tm))
		return 0;
	tm.tm_isdst = -1;
	return mktime(&tm);
}

/* The detail lines "Nodes=n[5-6] CPU_IDs=0 Mem=1000 GRES=gpu:a100:3(IDX:0-2)"
 * become gres_detail_str in the order of the job's node list, as libslurm
 * delivers them. */
struct detail {
	char *nodes, *gres;
};

static void finish_job(slurm_job_info_t *ji, struct detail *det, int ndet)
{
	gp_hostlist_t hl;
	char *host;
	int i, k = 0;

	if (ji->nodes && *ji->nodes && ndet) {
		hl = slurm_hostlist_create(ji->nodes);
		ji->gres_detail_cnt = (uint32_t)slurm_hostlist_count(hl);
		ji->gres_detail_str = calloc(ji->gres_detail_cnt, sizeof(char *));
		while ((host = slurm_hostlist_shift(hl))) {
			for (i = 0; i < ndet; i++) {
				gp_hostlist_t dh = slurm_hostlist_create(det[i].nodes);
				int in = slurm_hostlist_find(dh, host) >= 0;

				slurm_hostlist_destroy(dh);
				if (in) {
					ji->gres_detail_str[k] = strdup(det[i].gres);
					break;
				}
			}
			if (!ji->gres_detail_str[k])
				ji->gres_detail_str[k] = strdup("");
			k++;
			free(host);
		}
		slurm_hostlist_destroy(hl);
	}
	for (i = 0; i < ndet; i++) {
		free(det[i].nodes);
		free(det[i].gres);
	}
}

static void parse_jobs(struct capture *cap, const char *rel)
{
	char *text = slurp(rel), *line, *save = NULL, *v;
	slurm_job_info_t *ji = NULL;
	struct detail det[64];
	int ndet = 0;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *t = line + strspn(line, " ");

		if (!strncmp(line, "JobId=", 6)) {
			if (ji)
				finish_job(ji, det, ndet);
			ndet = 0;
			cap->jobs = realloc(cap->jobs, (cap->njobs + 1) * sizeof(*cap->jobs));
			assert_non_null(cap->jobs);
			ji = &cap->jobs[cap->njobs++];
			memset(ji, 0, sizeof(*ji));
			ji->pn_min_memory = NO_VAL64;
			ji->job_id = (uint32_t)lfield(line, "JobId", 0);
			ji->name = field(line, "JobName");
			continue;
		}
		if (!ji)
			continue;
		if (!strncmp(t, "UserId=", 7))
			ji->user_id = (uint32_t)strtoul(strchr(t, '(') + 1, NULL, 10);
		if ((v = field(line, "JobState"))) {
			ji->job_state = !strcmp(v, "RUNNING")   ? JOB_RUNNING
			                : !strcmp(v, "PENDING") ? JOB_PENDING
			                : !strcmp(v, "SUSPENDED") ? JOB_SUSPENDED
			                                          : JOB_COMPLETE;
			free(v);
		}
		if ((v = field(line, "Priority"))) {
			ji->priority = (uint32_t)strtoul(v, NULL, 10);
			free(v);
		}
		if ((v = field(line, "MinMemoryNode"))) {
			ji->pn_min_memory = strtoull(v, NULL, 10);
			free(v);
		}
		if ((v = field(line, "MinMemoryCPU"))) {
			ji->pn_min_memory = strtoull(v, NULL, 10) | MEM_PER_CPU;
			free(v);
		}
		if ((v = field(line, "SubmitTime"))) {
			ji->submit_time = parse_time(v);
			free(v);
		}
		if (!strncmp(t, "AdminComment=", 13))
			ji->admin_comment = strdup(t + 13);
		if (!strncmp(t, "NodeList=", 9)) {
			v = field(line, "NodeList");
			ji->nodes = v && strcmp(v, "(null)") ? v : (free(v), NULL);
		}
		if (!strncmp(t, "Nodes=", 6) && strstr(t, "GRES=") && ndet < 64) {
			det[ndet].nodes = field(line, "Nodes");
			det[ndet].gres = field(line, "GRES");
			if (!det[ndet].gres)
				det[ndet].gres = strdup("");
			ndet++;
		}
	}
	if (ji)
		finish_job(ji, det, ndet);
	free(text);
}

static void capture_free(struct capture *cap)
{
	uint32_t i, k;

	for (i = 0; i < cap->nnodes; i++) {
		free(cap->nodes[i].name);
		free(cap->nodes[i].gres_used);
	}
	for (i = 0; i < cap->njobs; i++) {
		free(cap->jobs[i].name);
		free(cap->jobs[i].nodes);
		free(cap->jobs[i].admin_comment);
		for (k = 0; k < cap->jobs[i].gres_detail_cnt; k++)
			free(cap->jobs[i].gres_detail_str[k]);
		free(cap->jobs[i].gres_detail_str);
	}
	free(cap->nodes);
	free(cap->alloc);
	free(cap->jobs);
	memset(cap, 0, sizeof(*cap));
}

/* ---- fixtures ------------------------------------------------------------ */

struct fx {
	gp_cluster_t *c;
	struct capture cap;
	gp_live_view_t v;
};

static int setup(void **state, const char *set)
{
	const char *top = getenv("GP_TOP_SRCDIR");
	struct fx *f = calloc(1, sizeof(*f));
	char dir[4096], rel[64];
	gp_error_t err;

	snprintf(dir, sizeof(dir), "%s/tests/data/slurm/conf", top ? top : ".");
	if (gp_cluster_load_conf_dir(dir, &f->c, &err) != GP_OK)
		fail_msg("%s", err.text);
	snprintf(rel, sizeof(rel), "%s/nodes.txt", set);
	parse_nodes(&f->cap, rel);
	snprintf(rel, sizeof(rel), "%s/jobs.txt", set);
	parse_jobs(&f->cap, rel);
	*state = f;
	return 0;
}

static int setup_busy(void **state)
{
	return setup(state, "busy");
}

static int setup_states(void **state)
{
	return setup(state, "states");
}

static int setup_plugin(void **state)
{
	return setup(state, "plugin");
}

static int teardown(void **state)
{
	struct fx *f = *state;

	gp_live_view_clear(&f->v);
	capture_free(&f->cap);
	gp_cluster_destroy(f->c);
	free(f);
	return 0;
}

static int32_t node(const struct fx *f, const char *name)
{
	int32_t i = gp__node_find(f->c, name);

	assert_true(i >= 0);
	return i;
}

static void convert(struct fx *f, int with_alloc, int64_t since)
{
	char why[128];

	gp_live_view_clear(&f->v);
	assert_int_equal(gp_live_convert(f->c, f->cap.nodes, with_alloc ? f->cap.alloc : NULL,
	                                 f->cap.nnodes, f->cap.jobs, f->cap.njobs, 1000, since, &f->v,
	                                 why, sizeof(why)),
	                 0);
}

/* ---- tests --------------------------------------------------------------- */

static void test_captured_records_parsed(void **state)
{
	struct fx *f = *state;

	/* the parser of this test read what scontrol printed */
	assert_int_equal(f->cap.nnodes, 8);
	assert_int_equal(f->cap.njobs, 7);
	assert_string_equal(f->cap.nodes[0].gres_used, "gpu:a100:3(IDX:0-2)");
	assert_int_equal(f->cap.alloc[2].cpus, 8);
	assert_int_equal(f->cap.alloc[3].mem_mb, 16000);
}

static void test_busy_gpus_seen(void **state)
{
	struct fx *f = *state;
	const gp_state_t *s;
	int32_t i;

	convert(f, 1, 0);
	s = f->v.state;
	assert_int_equal(f->v.unreadable, 0);
	assert_int_equal(s->alloc_mask[node(f, "n1")], 0x7); /* two jobs: IDX 0-1 and 2 */
	assert_int_equal(s->alloc_mask[node(f, "n2")], 0xf);
	assert_int_equal(s->alloc_mask[node(f, "n3")], 0);   /* gpu:a100:0(IDX:N/A) */
	assert_int_equal(s->alloc_mask[node(f, "n4")], 0);
	assert_int_equal(s->alloc_mask[node(f, "n5")], 0x7);
	assert_int_equal(s->alloc_mask[node(f, "n6")], 0x7);
	assert_int_equal(s->alloc_mask[node(f, "n7")], 0);
	for (i = 0; i < f->c->nnodes; i++)
		assert_int_equal(s->node_flags[i], 0);
	/* six running jobs, the pending one is not */
	assert_int_equal(s->njobs, 6);
	for (i = 0; i < s->njobs; i++)
		if (s->jobs[i].job_id == 6) {
			assert_int_equal(s->jobs[i].nnodes, 2);
			assert_int_equal(s->jobs[i].nodes[0], node(f, "n5"));
			assert_int_equal(s->jobs[i].nodes[1], node(f, "n6"));
			assert_int_equal(s->jobs[i].gpu_mask[0], 0x7);
			assert_int_equal(s->jobs[i].gpu_mask[1], 0x7);
		}
}

static void test_jobs_fill_gaps_of_gres_used(void **state)
{
	struct fx *f = *state;

	/* a node record read before its job started: the job's own index
	 * list still makes the GPUs busy */
	free(f->cap.nodes[1].gres_used);
	f->cap.nodes[1].gres_used = strdup("gpu:a100:0(IDX:N/A)");
	convert(f, 1, 0);
	assert_int_equal(f->v.state->alloc_mask[node(f, "n2")], 0xf);
}

/* A job that ended while its epilog still runs on some of its nodes holds
 * the GPUs those nodes still show in use, and ends now (the engine frees it
 * at its first predicted point); a GPU Slurm gave a new job on a node whose
 * epilog is done stays the new job's, and a job that has completed holds
 * nothing. */
static const gp_job_alloc_t *job_of(const gp_state_t *s, uint32_t id)
{
	int32_t i;

	for (i = 0; i < s->njobs; i++)
		if (s->jobs[i].job_id == id)
			return &s->jobs[i];
	return NULL;
}

static void set_str(char **p, const char *v)
{
	free(*p);
	*p = strdup(v);
	assert_non_null(*p);
}

static void test_completing_job_ends_now(void **state)
{
	struct fx *f = *state;
	slurm_job_info_t *two = NULL, *blk1 = NULL;
	const gp_job_alloc_t *ja;
	uint32_t i;

	for (i = 0; i < f->cap.njobs; i++) {
		if (f->cap.jobs[i].job_id == 6)
			two = &f->cap.jobs[i];
		if (f->cap.jobs[i].job_id == 2)
			blk1 = &f->cap.jobs[i];
	}
	assert_non_null(two);
	assert_non_null(blk1);
	assert_int_equal(two->gres_detail_cnt, 2);
	/* job 6 (three GPUs on each of n[5-6]) ended at 990; n6's epilog is
	 * done and Slurm has given n6's GPU 0 to job 2, moved there from n1 */
	two->job_state = JOB_COMPLETE | JOB_COMPLETING;
	two->end_time = 990;
	set_str(&blk1->nodes, "n6");
	set_str(&blk1->gres_detail_str[0], "gpu:a100:1(IDX:0)");
	set_str(&f->cap.nodes[node(f, "n1")].gres_used, "gpu:a100:2(IDX:0-1)");
	set_str(&f->cap.nodes[node(f, "n6")].gres_used, "gpu:a100:1(IDX:0)");
	convert(f, 1, 0);
	assert_int_equal(f->v.unreadable, 0);
	assert_int_equal(f->v.state->njobs, 6);
	ja = job_of(f->v.state, 6);
	assert_non_null(ja);
	assert_true(ja->end_time <= 1000);
	assert_int_equal(ja->nnodes, 2);
	assert_int_equal(ja->nodes[0], node(f, "n5"));
	assert_int_equal(ja->gpu_mask[0], 0x7);
	assert_int_equal(ja->gpu_mask[1], 0);
	ja = job_of(f->v.state, 2);
	assert_non_null(ja);
	assert_int_equal(ja->nodes[0], node(f, "n6"));
	assert_int_equal(ja->gpu_mask[0], 0x1);
	assert_int_equal(f->v.state->alloc_mask[node(f, "n5")], 0x7);
	assert_int_equal(f->v.state->alloc_mask[node(f, "n6")], 0x1);
	assert_int_equal(f->v.state->alloc_mask[node(f, "n1")], 0x3);

	/* an end time still ahead (a clock step) or none: now */
	two->end_time = 5000;
	convert(f, 1, 0);
	assert_int_equal(job_of(f->v.state, 6)->end_time, 1000);
	two->end_time = 0;
	convert(f, 1, 0);
	assert_int_equal(job_of(f->v.state, 6)->end_time, 1000);

	/* completed on every node: no job, and n5's GPUs as its record says */
	two->job_state = JOB_COMPLETE;
	set_str(&f->cap.nodes[node(f, "n5")].gres_used, "gpu:a100:0(IDX:N/A)");
	convert(f, 1, 0);
	assert_int_equal(f->v.state->njobs, 5);
	assert_null(job_of(f->v.state, 6));
	assert_int_equal(f->v.state->alloc_mask[node(f, "n5")], 0);
}

static void test_cpus_and_memory(void **state)
{
	static const gp_live_need_t any = { 1, 1, 0, 0, 0 };
	static const gp_live_need_t four_cpus_per_gpu = { 1, 1, 4, 0, 0 };
	static const gp_live_need_t whole_node_mem = { 1, -1, 0, 0, 0 };
	static const gp_live_need_t mem_per_gpu = { 1, 1, 0, 4000, 0 };
	static const gp_live_need_t exclusive = { 1, 1, 0, 0, 1 };
	struct fx *f = *state;
	const gp_live_res_t *r;

	convert(f, 1, 0);
	r = &f->v.res[node(f, "n3")]; /* -n8: every CPU taken */
	assert_true(r->known);
	assert_int_equal(r->cpus_free, 0);
	assert_int_equal(gp_live_usable_gpus(r, &any, 4), 0);
	r = &f->v.res[node(f, "n4")]; /* --mem=16000: no memory left */
	assert_int_equal(r->cpus_free, 7);
	assert_int_equal(r->mem_free_mb, 0);
	assert_int_equal(gp_live_usable_gpus(r, &any, 4), 0);
	r = &f->v.res[node(f, "n1")]; /* 6 CPUs, 14000 MB, 1 GPU free */
	assert_int_equal(r->cpus_free, 6);
	assert_int_equal(r->mem_free_mb, 14000);
	assert_int_equal(gp_live_usable_gpus(r, &any, 1), 1);
	assert_int_equal(gp_live_usable_gpus(r, &whole_node_mem, 1), 0);
	assert_int_equal(gp_live_usable_gpus(r, &exclusive, 1), 0);
	/* --exclusive: a node whose GPUs are all free but where a CPU-only
	 * job holds one CPU, or only memory, gives nothing */
	{
		gp_live_res_t cpu_job = { .known = 1, .cpus_total = 8, .cpus_free = 7,
		                          .mem_mb = 16000, .mem_free_mb = 16000 };
		gp_live_res_t mem_job = cpu_job;

		mem_job.cpus_free = 8;
		mem_job.mem_free_mb = 15000;
		assert_int_equal(gp_live_usable_gpus(&cpu_job, &any, 4), 4);
		assert_int_equal(gp_live_usable_gpus(&cpu_job, &exclusive, 4), 0);
		assert_int_equal(gp_live_usable_gpus(&mem_job, &exclusive, 4), 0);
		mem_job.mem_free_mb = 16000;
		assert_int_equal(gp_live_usable_gpus(&mem_job, &exclusive, 4), 4);
	}
	r = &f->v.res[node(f, "n7")]; /* idle: 8 CPUs, 16000 MB */
	assert_int_equal(gp_live_usable_gpus(r, &exclusive, 4), 4);
	assert_int_equal(gp_live_usable_gpus(r, &four_cpus_per_gpu, 4), 2);
	assert_int_equal(gp_live_usable_gpus(r, &mem_per_gpu, 4), 4);
	assert_int_equal(gp_live_usable_gpus(r, &whole_node_mem, 4), 4);
	/* a node's own count that lags behind its jobs: the jobs' memory per
	 * node (--mem=16000 on n4) still counts */
	f->cap.alloc[3].mem_mb = 0;
	convert(f, 1, 0);
	assert_int_equal(f->v.res[node(f, "n4")].mem_free_mb, 0);
	/* jobs whose memory sums past int64_t (Slurm runs any request where
	 * memory is no consumable resource): the node has none left, not a
	 * sum wrapped to a negative one */
	{
		uint32_t k, on_n1 = 0;

		f->cap.alloc[0].mem_mb = 0; /* the jobs' own figures decide */
		for (k = 0; k < f->cap.njobs; k++)
			if (f->cap.jobs[k].job_state == JOB_RUNNING && f->cap.jobs[k].nodes &&
			    !strcmp(f->cap.jobs[k].nodes, "n1")) {
				f->cap.jobs[k].pn_min_memory = 0x7000000000000000ULL;
				on_n1++;
			}
		assert_true(on_n1 >= 2);
		convert(f, 1, 0);
		assert_int_equal(f->v.res[node(f, "n1")].mem_free_mb, 0);
	}
	/* RealMemory and AllocMem past int64_t (uint64_t in Slurm): the node's
	 * memory is kept to INT64_MAX and what is left is none, not a
	 * difference of two wrapped values */
	{
		uint32_t k;

		for (k = 0; k < f->cap.nnodes; k++)
			if (f->cap.nodes[k].name && !strcmp(f->cap.nodes[k].name, "n7")) {
				f->cap.nodes[k].real_memory = UINT64_MAX;
				f->cap.nodes[k].mem_spec_limit = 0;
				f->cap.alloc[k].mem_mb = UINT64_MAX - 5;
			}
		convert(f, 1, 0);
		assert_true(f->v.res[node(f, "n7")].mem_mb == INT64_MAX);
		assert_true(f->v.res[node(f, "n7")].mem_free_mb == 0);
	}
	/* without the allocation figures nothing is limited */
	convert(f, 0, 0);
	assert_false(f->v.res[node(f, "n3")].known);
	assert_int_equal(gp_live_usable_gpus(&f->v.res[node(f, "n3")], &any, 4), 4);
}

static void test_recent_jobs_listed(void **state)
{
	struct fx *f = *state;
	int32_t k, pending = 0;

	convert(f, 1, 0);
	assert_int_equal(f->v.nseen, 7);
	for (k = 0; k < f->v.nseen; k++) {
		if (f->v.seen[k].job_id == 7) {
			assert_false(f->v.seen[k].started);
			assert_true(f->v.seen[k].name_hash == gp_live_name_hash("waits"));
			pending++;
		} else {
			assert_true(f->v.seen[k].started);
		}
		assert_int_equal(f->v.seen[k].uid, 0);
		assert_true(f->v.seen[k].ref == 0); /* not placed by gpuplace */
	}
	assert_int_equal(pending, 1);
	/* a placed job's reference is listed; a passed job's (one kept to a
	 * rack carries one, for job_modify) is not: the ledger's guess for a
	 * passed job finds it by user and name */
	{
		char *c0 = f->cap.jobs[0].admin_comment, *c1 = f->cap.jobs[1].admin_comment;
		int32_t both = 0;

		f->cap.jobs[0].admin_comment =
			(char *)"gpuplace: PASS kept to one rack for its power license; ref 77";
		f->cap.jobs[1].admin_comment = (char *)"lua: x gpuplace: PIN n1; step 1 s; ref 78";
		convert(f, 1, 0);
		for (k = 0; k < f->v.nseen; k++) {
			if (f->v.seen[k].job_id == f->cap.jobs[0].job_id) {
				assert_true(f->v.seen[k].ref == 0);
				both++;
			}
			if (f->v.seen[k].job_id == f->cap.jobs[1].job_id) {
				assert_true(f->v.seen[k].ref == 78);
				both++;
			}
		}
		assert_int_equal(both, 2);
		f->cap.jobs[0].admin_comment = c0;
		f->cap.jobs[1].admin_comment = c1;
	}
	/* jobs submitted before `since' are not listed */
	convert(f, 1, (int64_t)f->cap.jobs[0].submit_time + 100000);
	assert_int_equal(f->v.nseen, 0);
}

static void test_node_states(void **state)
{
	struct fx *f = *state;
	const gp_state_t *s;

	convert(f, 1, 0);
	s = f->v.state;
	assert_int_equal(s->node_flags[node(f, "n1")], GP_NODE_DRAIN);    /* IDLE+DRAIN */
	assert_int_equal(s->node_flags[node(f, "n2")], GP_NODE_DOWN);     /* DOWN */
	assert_int_equal(s->node_flags[node(f, "n3")], GP_NODE_RESERVED); /* +MAINTENANCE+RESERVED */
	assert_int_equal(s->node_flags[node(f, "n4")], GP_NODE_RESERVED); /* +RESERVED */
	assert_int_equal(s->node_flags[node(f, "n5")], GP_NODE_DRAIN);    /* MIXED+DRAIN */
	assert_int_equal(s->alloc_mask[node(f, "n5")], 0x7);
	assert_int_equal(s->node_flags[node(f, "n6")], 0);
	assert_int_equal(s->node_flags[node(f, "n7")], 0);
	assert_int_equal(s->alloc_mask[node(f, "n7")], 0x1);
	assert_int_equal(s->node_flags[node(f, "n8")], GP_NODE_DRAIN);    /* IDLE+FAIL */

	/* down for now only: not responding (every node right after
	 * slurmctld restarts, until its slurmd registers), state unknown,
	 * rebooting; DOWN itself, or not responding and DOWN, is down */
	f->cap.nodes[node(f, "n6")].node_state = NODE_STATE_IDLE | NODE_STATE_NO_RESPOND;
	f->cap.nodes[node(f, "n7")].node_state = NODE_STATE_UNKNOWN;
	f->cap.nodes[node(f, "n4")].node_state = NODE_STATE_MIXED | NODE_STATE_REBOOT_ISSUED;
	f->cap.nodes[node(f, "n2")].node_state = NODE_STATE_DOWN | NODE_STATE_NO_RESPOND;
	convert(f, 1, 0);
	s = f->v.state;
	assert_int_equal(s->node_flags[node(f, "n6")], GP_NODE_DOWN | GP_NODE_NORESP);
	assert_int_equal(s->node_flags[node(f, "n7")], GP_NODE_DOWN | GP_NODE_NORESP);
	assert_int_equal(s->node_flags[node(f, "n4")], GP_NODE_DOWN | GP_NODE_NORESP);
	assert_int_equal(s->node_flags[node(f, "n2")], GP_NODE_DOWN);
}

static void test_unreadable_strings(void **state)
{
	struct fx *f = *state;
	uint32_t k;

	free(f->cap.nodes[6].gres_used); /* n7 */
	f->cap.nodes[6].gres_used = strdup("gpu:a100:2(IDX:0-");
	for (k = 0; k < f->cap.njobs; k++)
		if (f->cap.jobs[k].job_id == 6) { /* n[5-6]: the second node's list */
			free(f->cap.jobs[k].gres_detail_str[1]);
			f->cap.jobs[k].gres_detail_str[1] = strdup("gpu:a100:3(IDX:zero)");
		}
	convert(f, 1, 0);
	assert_int_equal(f->v.unreadable, 2);
	assert_int_equal(f->v.state->alloc_mask[node(f, "n7")], 0xf);
	assert_int_equal(f->v.state->alloc_mask[node(f, "n6")], 0xf);
	assert_int_equal(f->v.state->alloc_mask[node(f, "n5")], 0x7);
}

/* A running job whose node list names more hosts than slurmctld has nodes
 * (a product of ranges: n[0-99]x[0-99] is 10,000 names; the live fuzz
 * target found one of 83 million, half a minute's work) is not expanded:
 * it counts as unreadable and adds no job, and its nodes' own records
 * still give their GPUs in use. */
static void test_job_list_beyond_the_cluster(void **state)
{
	struct fx *f = *state;
	uint32_t k;
	int32_t before;

	convert(f, 1, 0);
	before = f->v.state->njobs;
	for (k = 0; k < f->cap.njobs; k++)
		if (f->cap.jobs[k].job_id == 6) { /* n[5-6] */
			free(f->cap.jobs[k].nodes);
			f->cap.jobs[k].nodes = strdup("n[0-99]x[0-99]");
		}
	convert(f, 1, 0);
	assert_int_equal(f->v.unreadable, 1);
	assert_int_equal(f->v.state->njobs, before - 1);
	for (k = 0; k < (uint32_t)f->v.state->njobs; k++)
		assert_int_not_equal(f->v.state->jobs[k].job_id, 6);
	assert_int_equal(f->v.state->alloc_mask[node(f, "n5")], 0x7);
	/* lists with junk in their ranges, which libslurm reads as ranges
	 * (from the live fuzz target: 83 million hosts, half a minute of
	 * expansion; the second 7.6e11, hours): not expanded, and at once */
	{
		static const char *const junk[] = {
			"n[0\x8d-99][0grff-99],Mh",
			"g[00\x8d-9121][00gr\x8d-9121][00grff-9120],Mh",
		};
		size_t q;

		for (q = 0; q < sizeof(junk) / sizeof(junk[0]); q++) {
			struct timespec t0, t1;

			for (k = 0; k < f->cap.njobs; k++)
				if (f->cap.jobs[k].job_id == 6) {
					free(f->cap.jobs[k].nodes);
					f->cap.jobs[k].nodes = strdup(junk[q]);
				}
			assert_false(gp__hostlist_within(junk[q], 1000000));
			clock_gettime(CLOCK_MONOTONIC, &t0);
			convert(f, 1, 0);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			assert_int_equal(f->v.unreadable, 1);
			assert_int_equal(f->v.state->njobs, before - 1);
			for (k = 0; k < (uint32_t)f->v.state->njobs; k++)
				assert_int_not_equal(f->v.state->jobs[k].job_id, 6);
			/* expanded, the second runs for hours */
			assert_true((double)(t1.tv_sec - t0.tv_sec) +
			            1e-9 * (double)(t1.tv_nsec - t0.tv_nsec) < 5.0);
		}
	}
}

static void test_unknown_node_ignored(void **state)
{
	struct fx *f = *state;

	free(f->cap.nodes[7].name);
	f->cap.nodes[7].name = strdup("elsewhere1");
	convert(f, 1, 0);
	assert_int_equal(f->v.state->alloc_mask[node(f, "n8")], 0);
	assert_false(f->v.res[node(f, "n8")].known);
}

/* The reference gpuplace wrote into each admin comment, read back from
 * what Slurm shows: the ledger's link between a decision and its job. */
static void test_decision_refs(void **state)
{
	struct fx *f = *state;
	int32_t k, checked = 0;
	uint32_t i;

	convert(f, 1, 0);
	assert_int_equal(f->v.nseen, (int32_t)f->cap.njobs);
	for (k = 0; k < f->v.nseen; k++) {
		const gp_live_seen_t *j = &f->v.seen[k];
		const char *cmt = NULL, *p;

		for (i = 0; i < f->cap.njobs; i++)
			if (f->cap.jobs[i].job_id == j->job_id)
				cmt = f->cap.jobs[i].admin_comment;
		if (!cmt) {
			assert_true(j->ref == 0); /* passed unchanged: no comment */
			continue;
		}
		p = strstr(cmt, "; ref ");
		assert_non_null(p);
		assert_true(j->ref == strtoull(p + 6, NULL, 10));
		assert_true(j->ref != 0);
		assert_int_equal(j->started, j->job_id != 15); /* 15 pends, 9-11 ended */
		checked++;
	}
	assert_int_equal(checked, 5);
	for (k = 0; k < f->v.nseen; k++)
		assert_false(f->v.seen[k].held); /* 15 pends for resources */
	/* held (priority 0), or waiting for a dependency: not about to start */
	for (i = 0; i < f->cap.njobs; i++)
		if (f->cap.jobs[i].job_id == 15)
			f->cap.jobs[i].priority = 0;
	convert(f, 1, 0);
	for (k = 0; k < f->v.nseen; k++)
		assert_int_equal(f->v.seen[k].held, f->v.seen[k].job_id == 15);
	for (i = 0; i < f->cap.njobs; i++)
		if (f->cap.jobs[i].job_id == 15) {
			f->cap.jobs[i].priority = 1;
			f->cap.jobs[i].state_reason = WAIT_DEPENDENCY;
		}
	convert(f, 1, 0);
	for (k = 0; k < f->v.nseen; k++)
		assert_int_equal(f->v.seen[k].held, f->v.seen[k].job_id == 15);
	/* only the three running jobs hold GPUs */
	assert_int_equal(f->v.state->njobs, 3);
	assert_int_equal(f->v.state->alloc_mask[node(f, "n1")], 0x3);
	assert_int_equal(f->v.state->alloc_mask[node(f, "n2")], 0xf);
	assert_int_equal(f->v.state->alloc_mask[node(f, "n3")], 0xf);
	assert_int_equal(f->v.state->alloc_mask[node(f, "n4")], 0);
}

/* The caps etc/prolog/gpuplace-powercap recorded (issue 28): job 14 runs
 * on n[2-3], 4 A100s (TDP 400 W, idle 50 W) on each.  With both nodes
 * recorded at 225 W its GPUs count at the cap, (225 - 50) / 350 = half
 * their range, and rack A's estimate drops by 8 x 175 W; a node without a
 * record or recorded "none" leaves the job uncapped. */
static void set_comment(struct fx *f, uint32_t job, const char *extra)
{
	uint32_t i;

	for (i = 0; i < f->cap.njobs; i++)
		if (f->cap.jobs[i].job_id == job) {
			const char *base = "gpuplace: PIN n[2-3]; exactly 2 nodes, 4 GPUs each; cap 150 W "
			                   "(speed 0.50); ref 1795443871000012";
			size_t n = strlen(base) + strlen(extra) + 1;

			free(f->cap.jobs[i].admin_comment);
			f->cap.jobs[i].admin_comment = malloc(n);
			assert_non_null(f->cap.jobs[i].admin_comment);
			snprintf(f->cap.jobs[i].admin_comment, n, "%s%s", base, extra);
		}
}

static double job_load(struct fx *f, uint32_t job, double *rack_a_w)
{
	int32_t k;

	*rack_a_w = gp__power_estimate_rack(f->c, f->v.state, 0);
	for (k = 0; k < f->v.state->njobs; k++)
		if (f->v.state->jobs[k].job_id == job)
			return f->v.state->jobs[k].load;
	fail_msg("job %u not in the state", job);
	return -1;
}

static void test_applied_caps(void **state)
{
	struct fx *f = *state;
	double full_w, capped_w, w;

	set_comment(f, 14, "");
	convert(f, 1, 0);
	assert_float_equal(job_load(f, 14, &full_w), 1.0, 0);
	/* the plan alone (cap 150 W) changes nothing: only what was applied */
	set_comment(f, 14, "; applied cap n2 225 W; applied cap n3 225 W");
	convert(f, 1, 0);
	assert_float_equal(job_load(f, 14, &capped_w), 0.5, 1e-12);
	assert_float_equal(full_w - capped_w, 8 * 175.0, 1e-6);
	/* nodes differ: the highest counts */
	set_comment(f, 14, "; applied cap n2 225 W; applied cap n3 400 W");
	convert(f, 1, 0);
	assert_float_equal(job_load(f, 14, &w), 1.0, 0);
	/* one node not (yet) recorded, or recorded as none: uncapped */
	set_comment(f, 14, "; applied cap n2 225 W");
	convert(f, 1, 0);
	assert_float_equal(job_load(f, 14, &w), 1.0, 0);
	set_comment(f, 14, "; applied cap n2 225 W; applied cap n3 none");
	convert(f, 1, 0);
	assert_float_equal(job_load(f, 14, &w), 1.0, 0);
	/* a node name that only starts like n2 is not n2 */
	set_comment(f, 14, "; applied cap n22 225 W; applied cap n3 225 W");
	convert(f, 1, 0);
	assert_float_equal(job_load(f, 14, &w), 1.0, 0);
}

static void test_gres_strings(void **unused)
{
	static const struct {
		const char *in;
		int rc;
		uint32_t mask;
		int32_t unindexed;
	} cases[] = {
		{ NULL, 0, 0, 0 },
		{ "", 0, 0, 0 },
		{ "(null)", 0, 0, 0 },
		{ "gpu:a100:2(IDX:0-1)", 0, 0x3, 0 },
		{ "gpu:h100:0(IDX:N/A)", 0, 0, 0 },
		{ "gpu:a100:2(IDX:0-1),gpu:h100:0(IDX:N/A)", 0, 0x3, 0 },
		{ "gpu:h100:1(IDX:5),gpu:a100:2(IDX:0,2)", 0, 0x25, 0 },
		{ "mps:100(IDX:0),gpu:a100:1(IDX:3)", 0, 0x8, 0 },
		{ "gpu:1(IDX:7)", 0, 0x80, 0 },
		{ "gpu(IDX:1)", 0, 0x2, 0 },
		{ "gpu:2", 0, 0, 2 },
		{ "gpu:a100:3", 0, 0, 3 },
		{ "gpu:a100:2(S:0-1)(IDX:2-3)", 0, 0xc, 0 },
		{ "gpu:a100:2(IDX:N/A)", 0, 0, 2 },
		{ "nic:4,gpumem:100", 0, 0, 0 },
		/* counts summed without overflow, held at INT32_MAX */
		{ "gpu:999999999,gpu:2", 0, 0, 1000000001 },
		{ "gpu:910910000,gpu:910910000,gpu:910910000(IDX:N/A)", 0, 0, 2147483647 },
		{ "gpu:a100:2(IDX:0-1", -1, 0, 0 },
		{ "gpu:a100:x(IDX:0)", -1, 0, 0 },
		{ "gpu:a100:2(IDX:40)", -1, 0, 0 },
		{ "gpu:a100:2(IDX:1-0)", -1, 0, 0 },
		{ "gpu:a100:2(IDX:0,,1)", -1, 0, 0 },
		{ "gpu:a:b:c:2", -1, 0, 0 },
		{ "gpu:a100:2)", -1, 0, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t mask = 0xdead;
		int32_t un = -1;
		int rc = gp_live_gres_gpus(cases[i].in, &mask, &un);

		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, expected %d", cases[i].in ? cases[i].in : "NULL", rc,
			         cases[i].rc);
		if (rc == 0 && (mask != cases[i].mask || un != cases[i].unindexed))
			fail_msg("'%s': mask 0x%x/%d, expected 0x%x/%d", cases[i].in ? cases[i].in : "NULL",
			         mask, un, cases[i].mask, cases[i].unindexed);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_captured_records_parsed, setup_busy, teardown),
		cmocka_unit_test_setup_teardown(test_busy_gpus_seen, setup_busy, teardown),
		cmocka_unit_test_setup_teardown(test_jobs_fill_gaps_of_gres_used, setup_busy, teardown),
		cmocka_unit_test_setup_teardown(test_completing_job_ends_now, setup_busy, teardown),
		cmocka_unit_test_setup_teardown(test_cpus_and_memory, setup_busy, teardown),
		cmocka_unit_test_setup_teardown(test_recent_jobs_listed, setup_busy, teardown),
		cmocka_unit_test_setup_teardown(test_node_states, setup_states, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_strings, setup_busy, teardown),
		cmocka_unit_test_setup_teardown(test_job_list_beyond_the_cluster, setup_busy, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_node_ignored, setup_busy, teardown),
		cmocka_unit_test_setup_teardown(test_decision_refs, setup_plugin, teardown),
		cmocka_unit_test_setup_teardown(test_applied_caps, setup_plugin, teardown),
		cmocka_unit_test(test_gres_strings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
