/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_live.c - fuzz target for what the plugin's thread does inside
 * slurmctld with the records it reads: gp_live_convert() (plugin/
 * live_state.c) on node and job records built from the input, then a
 * placement decision (gp__decide) on the state it made, as the next
 * submission would take one.  Slurm writes most of these fields, but a
 * job's name, memory and times are the user's, its admin comment
 * gpuplace's and the admins', and a record of another release may hold
 * what this one never writes.  The conversion must not crash, leak or
 * read out of bounds, and what it makes must be a state the engine
 * accepts: GPUs only of the node's own, free CPUs and memory within the
 * node's, a decision or a clean error.
 *
 * Input, one record per line, fields separated by tabs ("key=value";
 * unknown keys ignored; numbers by strtoull, base 0, cut to the field's
 * width):
 *   site=N   the example site, N modulo etc/'s four (default 0)
 *   gpus=N   the GPUs the decision asks for (default 8)
 *   node\tname=..\tstate=..\tgres_used=..\tcpus=..\tefctv=..\tmem=..\tspec=..
 *            \tacpus=..\tamem=..   a node and what Slurm has allocated on it
 *   job\tid=..\tstate=..\tnodes=..\tgres=..(one per node, repeated)
 *            \ttres=..\tadmin=..\tname=..\tuid=..\tsubmit=..\tend=..
 *            \tprio=..\tmem=..\treason=..   a job
 *   resv\tname=..\tnodes=..\tstart=..\tend=..\tflags=..   a reservation
 *   use=NAME[,NAME]  the reservations the decision's job asks for
 *   run=S    its time limit, seconds (default 3600)
 * The reservations are read as the thread reads Slurm's
 * (gp_resv_convert) and applied to the decision's job (gp_resv_apply);
 * the pending jobs the steering pass would look at are picked
 * (gp_steer_pick).
 * Run by tests/fuzz/fuzz_live.sh with tests/fuzz/fuzz_driver.c over
 * tests/data/plugin/live/, or under libFuzzer (tests/fuzz/targets).
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide.h"
#include "live_state.h"
#include "policy.h"
#include "request.h"
#include "steer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_RECORDS 64
#define MAX_GRES 16

static const char *const sites[] = { "etc/mixed-pcie", "etc/superpod-h100", "etc/a100-oversub",
	                             "etc/nvl72-gb200" };
#define NSITES ((int)(sizeof(sites) / sizeof(sites[0])))
static gp_cluster_t *clusters[NSITES];
static gp_engine_t *engines[NSITES];

static void load(int k)
{
	const char *top = getenv("GP_TOP_SRCDIR");
	char dir[4200];
	gp_error_t err;

	if (clusters[k])
		return;
	snprintf(dir, sizeof(dir), "%s/%s", top ? top : GP_SRCDIR, sites[k]);
	/* an example site that does not load is a broken tree, not a finding */
	if (gp_cluster_load_conf_dir(dir, &clusters[k], &err) != GP_OK ||
	    gp__engine_create(clusters[k], &engines[k], &err) != GP_OK) {
		fprintf(stderr, "fuzz_live: %s: %s\n", dir, err.text);
		exit(2);
	}
}

struct input {
	reserve_info_t resv[MAX_RECORDS];
	uint32_t nresv;
	const char *use;
	int64_t run_s;
	node_info_t nodes[MAX_RECORDS];
	gp_live_alloc_t alloc[MAX_RECORDS];
	slurm_job_info_t jobs[MAX_RECORDS];
	char *gres[MAX_RECORDS][MAX_GRES];
	uint32_t nnodes, njobs;
	int site, gpus;
};

static void node_field(node_info_t *ni, gp_live_alloc_t *a, const char *key, char *v)
{
	unsigned long long n = strtoull(v, NULL, 0);

	if (!strcmp(key, "name"))
		ni->name = v;
	else if (!strcmp(key, "state"))
		ni->node_state = (uint32_t)n;
	else if (!strcmp(key, "gres_used"))
		ni->gres_used = v;
	else if (!strcmp(key, "cpus"))
		ni->cpus = (uint16_t)n;
	else if (!strcmp(key, "efctv"))
		ni->cpus_efctv = (uint16_t)n;
	else if (!strcmp(key, "mem"))
		ni->real_memory = (uint64_t)n;
	else if (!strcmp(key, "spec"))
		ni->mem_spec_limit = (uint64_t)n;
	else if (!strcmp(key, "acpus"))
		a->cpus = (uint16_t)n;
	else if (!strcmp(key, "amem"))
		a->mem_mb = (uint64_t)n;
}

static void job_field(struct input *in, slurm_job_info_t *ji, const char *key, char *v)
{
	unsigned long long n = strtoull(v, NULL, 0);
	uint32_t k = (uint32_t)(ji - in->jobs);

	if (!strcmp(key, "id"))
		ji->job_id = (uint32_t)n;
	else if (!strcmp(key, "state"))
		ji->job_state = (uint32_t)n;
	else if (!strcmp(key, "nodes"))
		ji->nodes = v;
	else if (!strcmp(key, "gres") && ji->gres_detail_cnt < MAX_GRES)
		in->gres[k][ji->gres_detail_cnt++] = v;
	else if (!strcmp(key, "tres"))
		ji->tres_alloc_str = v;
	else if (!strcmp(key, "admin"))
		ji->admin_comment = v;
	else if (!strcmp(key, "name"))
		ji->name = v;
	else if (!strcmp(key, "uid"))
		ji->user_id = (uint32_t)n;
	else if (!strcmp(key, "submit"))
		ji->submit_time = (time_t)n;
	else if (!strcmp(key, "end"))
		ji->end_time = (time_t)n;
	else if (!strcmp(key, "prio"))
		ji->priority = (uint32_t)n;
	else if (!strcmp(key, "mem"))
		ji->pn_min_memory = (uint64_t)n;
	else if (!strcmp(key, "reason"))
		ji->state_reason = (uint32_t)n;
}

static void resv_field(reserve_info_t *ri, const char *key, char *v)
{
	unsigned long long n = strtoull(v, NULL, 0);

	if (!strcmp(key, "name"))
		ri->name = v;
	else if (!strcmp(key, "nodes"))
		ri->node_list = v;
	else if (!strcmp(key, "start"))
		ri->start_time = (time_t)n;
	else if (!strcmp(key, "end"))
		ri->end_time = (time_t)n;
	else if (!strcmp(key, "flags"))
		ri->flags = (uint64_t)n;
}

/* One record: its kind, then tab-separated key=value fields. */
static void record(struct input *in, char *line)
{
	char *f, *save = NULL;
	bool node = false, job = false, resv = false;

	for (f = strtok_r(line, "\t", &save); f; f = strtok_r(NULL, "\t", &save)) {
		char *eq = strchr(f, '=');

		if (!eq) {
			node = !strcmp(f, "node") && in->nnodes < MAX_RECORDS;
			job = !strcmp(f, "job") && in->njobs < MAX_RECORDS;
			resv = !strcmp(f, "resv") && in->nresv < MAX_RECORDS;
			if (resv)
				in->nresv++;
			if (node)
				in->nnodes++;
			if (job) {
				in->njobs++;
				in->jobs[in->njobs - 1].pn_min_memory = NO_VAL64;
				in->jobs[in->njobs - 1].gres_detail_str = in->gres[in->njobs - 1];
			}
			continue;
		}
		*eq = '\0';
		if (node)
			node_field(&in->nodes[in->nnodes - 1], &in->alloc[in->nnodes - 1], f, eq + 1);
		else if (job)
			job_field(in, &in->jobs[in->njobs - 1], f, eq + 1);
		else if (resv)
			resv_field(&in->resv[in->nresv - 1], f, eq + 1);
		else if (!strcmp(f, "use"))
			in->use = eq + 1;
		else if (!strcmp(f, "run"))
			in->run_s = (int64_t)(strtoull(eq + 1, NULL, 0) % (400LL * 86400));
		else if (!strcmp(f, "site"))
			in->site = (int)(strtoull(eq + 1, NULL, 0) % NSITES);
		else if (!strcmp(f, "gpus"))
			in->gpus = (int)(strtoull(eq + 1, NULL, 0) % 4096);
	}
}

/* What the conversion made is a state: GPUs of the node's own, free CPUs
 * and memory within the node's, jobs on nodes of the model. */
static void check(const gp_cluster_t *c, const gp_live_view_t *v)
{
	int32_t i, k;

	for (i = 0; i < c->nnodes; i++) {
		const gp_live_res_t *r = &v->res[i];
		uint32_t full = c->nodes[i].ngpus >= 32 ? 0xffffffffu
		                : (1u << c->nodes[i].ngpus) - 1;

		if (v->state->alloc_mask[i] & ~full)
			abort();
		if (r->known && (r->cpus_free < 0 || r->cpus_free > r->cpus_total ||
		                 r->mem_free_mb < 0 || (r->mem_mb >= 0 && r->mem_free_mb > r->mem_mb)))
			abort();
	}
	for (k = 0; k < v->state->njobs; k++)
		for (i = 0; i < v->state->jobs[k].nnodes; i++)
			if (v->state->jobs[k].nodes[i] < 0 || v->state->jobs[k].nodes[i] >= c->nnodes)
				abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *line, *save = NULL, why[128];
	struct input *in = calloc(1, sizeof(*in));
	gp_live_view_t v;
	gp_rack_view_t *racks;
	gp_power_view_t pv = { NULL, gp__power_view_cap_speed, false };
	gp_decision_t d;
	gp_request_t r;
	gp_policy_t p;
	gp_error_t err;
	const gp_cluster_t *c;
	int64_t now = 1800000000;

	if (!text || !in) {
		free(text);
		free(in);
		return 0;
	}
	memcpy(text, data, size);
	text[size] = '\0';
	in->gpus = 8;
	in->run_s = 3600;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		record(in, line);
	load(in->site);
	c = clusters[in->site];
	if (gp_live_convert(c, in->nodes, in->alloc, in->nnodes, in->jobs, in->njobs, now,
	                    now - 600, &v, why, sizeof(why)) == 0) {
		reserve_info_msg_t msg = { 0 };
		gp_resv_view_t rv = { NULL, 0 }; /* convert clears it first */
		gp_steer_cand_t picked[MAX_RECORDS];
		int npicked, k;

		check(c, &v);
		/* the reservations as the thread reads them, applied to the
		 * decision's job as job_submit applies them */
		msg.record_count = in->nresv;
		msg.reservation_array = in->resv;
		if (gp_resv_convert(c, &msg, &rv, why, sizeof(why)) == 0) {
			gp_resv_apply(c, &rv, in->use, now, in->run_s, v.state->node_flags, why,
			              sizeof(why));
			gp_resv_view_clear(&rv);
		}
		/* the pending jobs steering would look at */
		npicked = gp_steer_pick(in->jobs, in->njobs, picked, MAX_RECORDS);
		if (npicked < 0 || npicked > (int)in->njobs)
			abort();
		for (k = 1; k < npicked; k++)
			if (picked[k - 1].priority < picked[k].priority)
				abort();
		/* the next submission's decision on that state */
		gp__policy_default(c, &p);
		gp__request_init(&r);
		r.gpus = in->gpus > 0 ? in->gpus : 1;
		r.time_limit_min = (uint32_t)(in->run_s / 60);
		racks = calloc((size_t)c->nracks + 1, sizeof(*racks));
		if (racks) {
			gp__power_view_fill(c, v.state, NULL, &p, (double)now, racks);
			pv.racks = racks;
			if (gp__decide(engines[in->site], v.state, &r, NULL, &p, &pv, now, NULL, 0, &d,
			               &err) == GP_OK)
				gp__decision_clear(&d);
			free(racks);
		}
		gp__request_clear(&r);
		gp_live_view_clear(&v);
	}
	free(in);
	free(text);
	return 0;
}
