/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_job_submit.c - fuzz target for the plugin's whole submission path:
 * job_submit() as slurmctld calls it, on a job description built from the
 * input, against an example site whose idle state is published as the
 * plugin's thread would publish slurmctld's (tests/unit/plugin_site.h).
 * Every field the plugin reads can be set, to any text or any number of
 * its width (NO_VAL and INFINITE included), and environment and SPANK
 * arrays may hold NULL elements, as libslurm unpacks them.  The plugin
 * must answer every one without crashing, leaking or reading out of
 * bounds; a job it pins must name nodes of the site, as many as it asks
 * for; job_modify() must take the result.
 *
 * Input, one field per line ("key=value"; unknown keys are ignored; "~"
 * as a value leaves a string NULL):
 *   site=N        the site: N modulo the sites below (default 0)
 *   busy=N        the cluster's state: 0 (default) every node up and idle,
 *                 else the running jobs, down nodes and measured racks N
 *                 seeds (gp_test_site_publish)
 *   per_job= per_node= per_socket= per_task= cpus_per_tres= mem_per_tres=
 *   features= req_nodes= exc_nodes= partition= reservation= licenses=
 *   comment= admin_comment= name= job_id_str=
 *                 the job description's strings
 *   min_nodes= max_nodes= time_limit= cpus_per_task= ntasks_per_node=
 *   pn_min_cpus= pn_min_memory= num_tasks= req_switch= wait4switch=
 *   shared= segment= job_id= uid=
 *                 its numbers (strtoull, base 0, cut to the field's width)
 *   env=NAME=VALUE, spank=NAME=VALUE
 *                 one element of the batch environment or the SPANK
 *                 environment each ("env=~": a NULL element)
 *   modify=1      job_modify() on the result too
 * GP_FUZZ_VERBOSE set: each input's answer and admin comment on stderr.
 * Run by tests/fuzz/fuzz_job_submit.sh with tests/fuzz/fuzz_driver.c over
 * tests/data/plugin/jobs/, or under libFuzzer (tests/fuzz/targets).
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_submit_gpuplace.h"
#include "plugin_job.h"
#include "plugin_site.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the plugin's log lines (GP_LOG_SINK): every one must be a string; kept
 * out of the output, which would be most of the run's time */
void fuzz_sink(int level, const char *line);
void fuzz_sink(int level, const char *line)
{
	(void)level;
	if (!line || strlen(line) > (1 << 20))
		abort();
}

/* The sites: etc/'s four, three of tests/data/sites, and etc/mixed-pcie
 * with its racks' power as Slurm licenses (PowerLicenses) and as a
 * hierarchical resource (PowerHres), copied to $TMPDIR at the first
 * input that names them. */
static const char *const sites[] = { "etc/mixed-pcie",
	                             "etc/superpod-h100",
	                             "etc/a100-oversub",
	                             "etc/nvl72-gb200",
	                             "tests/data/sites/mixed-types",
	                             "tests/data/sites/topology-yaml-multi",
	                             "tests/data/sites/mig",
	                             "@lic",
	                             "@hres" };
#define NSITES ((int)(sizeof(sites) / sizeof(sites[0])))
static char lic_dir[4096], hres_dir[4096];
static int loaded = -1;
static uint64_t published; /* the occupancy of the state published last */

static void remove_copies(void)
{
	if (loaded >= 0)
		fini();
	loaded = -1;
	if (*lic_dir)
		gp_test_site_remove(lic_dir);
	if (*hres_dir)
		gp_test_site_remove(hres_dir);
}

static void use_site(int k)
{
	const char *top = getenv("GP_TOP_SRCDIR");
	char dir[4200];

	if (k == loaded)
		return;
	if (loaded >= 0)
		fini();
	else
		atexit(remove_copies);
	loaded = -1;
	if (!strcmp(sites[k], "@lic")) {
		/* the example's nodes carry their racks' gprack_ features */
		if (!*lic_dir && gp_test_site_copy(lic_dir, sizeof(lic_dir), "fuzz-lic",
		                                   "\nPowerLicenses=rackpw\n", NULL, NULL, 0))
			abort();
		snprintf(dir, sizeof(dir), "%s", lic_dir);
	} else if (!strcmp(sites[k], "@hres")) {
		if (!*hres_dir && (gp_test_site_copy(hres_dir, sizeof(hres_dir), "fuzz-hres",
		                                     "\nPowerHres=rackpower\n", NULL, NULL, 0) ||
		                   gp_test_site_resources(hres_dir, GP_TEST_RESOURCES_OK)))
			abort();
		snprintf(dir, sizeof(dir), "%s", hres_dir);
	} else {
		snprintf(dir, sizeof(dir), "%s/%s", top ? top : GP_SRCDIR, sites[k]);
	}
	/* an example site that does not load is a broken tree, not a finding */
	if (gp_test_site_load(dir, true, true, k % 3 - 1)) {
		fprintf(stderr, "fuzz_job_submit: cannot load %s\n", dir);
		exit(2);
	}
	loaded = k;
	published = 0;
}

/* ---- the job description ------------------------------------------------------ */

#define MAX_ENV 16

struct input {
	int site;
	uint64_t busy;
	bool modify;
	uint32_t uid;
	const char *env[MAX_ENV], *spank[MAX_ENV];
	int nenv, nspank;
};

/* A Slurm-allocated copy of v ("~": NULL), replacing *field. */
static void set_str(char **field, const char *v)
{
	slurm_xfree((void **)field);
	*field = strcmp(v, "~") ? slurm_xstrdup(v) : NULL;
}

static void set_field(job_desc_msg_t *j, struct input *in, const char *key, const char *v)
{
	static const struct {
		const char *key;
		size_t off;
	} strs[] = {
		{ "per_job", offsetof(job_desc_msg_t, tres_per_job) },
		{ "per_node", offsetof(job_desc_msg_t, tres_per_node) },
		{ "per_socket", offsetof(job_desc_msg_t, tres_per_socket) },
		{ "per_task", offsetof(job_desc_msg_t, tres_per_task) },
		{ "cpus_per_tres", offsetof(job_desc_msg_t, cpus_per_tres) },
		{ "mem_per_tres", offsetof(job_desc_msg_t, mem_per_tres) },
		{ "features", offsetof(job_desc_msg_t, features) },
		{ "req_nodes", offsetof(job_desc_msg_t, req_nodes) },
		{ "exc_nodes", offsetof(job_desc_msg_t, exc_nodes) },
		{ "partition", offsetof(job_desc_msg_t, partition) },
		{ "reservation", offsetof(job_desc_msg_t, reservation) },
		{ "licenses", offsetof(job_desc_msg_t, licenses) },
		{ "comment", offsetof(job_desc_msg_t, comment) },
		{ "admin_comment", offsetof(job_desc_msg_t, admin_comment) },
		{ "name", offsetof(job_desc_msg_t, name) },
		{ "job_id_str", offsetof(job_desc_msg_t, job_id_str) },
	};
	unsigned long long n = strtoull(v, NULL, 0);
	size_t i;

	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (!strcmp(key, strs[i].key)) {
			set_str((char **)((char *)j + strs[i].off), v);
			return;
		}
	if (!strcmp(key, "site"))
		in->site = (int)(n % NSITES);
	else if (!strcmp(key, "busy"))
		in->busy = (uint64_t)n;
	else if (!strcmp(key, "modify"))
		in->modify = n != 0;
	else if (!strcmp(key, "uid"))
		in->uid = (uint32_t)n;
	else if (!strcmp(key, "env") && in->nenv < MAX_ENV)
		in->env[in->nenv++] = strcmp(v, "~") ? v : NULL;
	else if (!strcmp(key, "spank") && in->nspank < MAX_ENV)
		in->spank[in->nspank++] = strcmp(v, "~") ? v : NULL;
	else if (!strcmp(key, "min_nodes"))
		j->min_nodes = (uint32_t)n;
	else if (!strcmp(key, "max_nodes"))
		j->max_nodes = (uint32_t)n;
	else if (!strcmp(key, "time_limit"))
		j->time_limit = (uint32_t)n;
	else if (!strcmp(key, "cpus_per_task"))
		j->cpus_per_task = (uint16_t)n;
	else if (!strcmp(key, "ntasks_per_node"))
		j->ntasks_per_node = (uint16_t)n;
	else if (!strcmp(key, "pn_min_cpus"))
		j->pn_min_cpus = (uint16_t)n;
	else if (!strcmp(key, "pn_min_memory"))
		j->pn_min_memory = (uint64_t)n;
	else if (!strcmp(key, "num_tasks"))
		j->num_tasks = (uint32_t)n;
	else if (!strcmp(key, "req_switch"))
		j->req_switch = (uint32_t)n;
	else if (!strcmp(key, "wait4switch"))
		j->wait4switch = (uint32_t)n;
	else if (!strcmp(key, "shared"))
		j->shared = (uint16_t)n;
	else if (!strcmp(key, "job_id"))
		GP_JOB_DESC_ID(j) = (uint32_t)n;
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 5, 0)
	else if (!strcmp(key, "segment"))
		j->segment_size = (uint16_t)n;
#endif
}

/* The nodes a PIN names are the site's, as many as min = max nodes. */
static void check_pin(const job_desc_msg_t *j)
{
	struct gp_conf *c = conf_get();
	int32_t *idx = NULL, n = 0;
	gp_error_t err;

	if (!c)
		return;
	if (gp__hostlist_nodes(c->cluster, "req_nodes", j->req_nodes, c->cluster->nnodes, &idx,
	                       &n, &err) != GP_OK ||
	    n < 1 || (uint32_t)n != j->min_nodes || j->min_nodes != j->max_nodes)
		abort();
	free(idx);
	conf_put(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *line, *save = NULL;
	struct input in = { 0, 0, false, 1000, { NULL }, { NULL }, 0, 0 };
	job_desc_msg_t *j;
	char *msg = NULL;
	bool had_nodes, fits;
	int rc;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	j = gp_test_job_new(NULL, NULL);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');

		if (eq) {
			*eq = '\0';
			set_field(j, &in, line, eq + 1);
		}
	}
	if (in.nenv)
		j->environment = gp_test_xarray(in.env, in.nenv, &j->env_size);
	if (in.nspank)
		j->spank_job_env = gp_test_xarray(in.spank, in.nspank, &j->spank_job_env_size);
	use_site(in.site);
	if (in.busy != published && gp_test_site_publish(true, true, in.site % 3 - 1, in.busy))
		abort();
	published = in.busy;
	had_nodes = j->req_nodes != NULL;
	fits = (!j->features || strlen(j->features) <= 1024) &&
	       (!j->licenses || strlen(j->licenses) <= 1024);
	rc = job_submit(j, in.uid, &msg);
	/* an answer, and a message only with a refusal, as Slurm reads them */
	if ((rc == SLURM_SUCCESS && msg) || (msg && strlen(msg) > 65536))
		abort();
	/* a constraint and licenses Slurm took stay within what it takes
	 * (job_mgr.c _test_job_desc_fields: 1024 characters each) */
	if (rc == SLURM_SUCCESS && fits &&
	    ((j->features && strlen(j->features) > 1024) ||
	     (j->licenses && strlen(j->licenses) > 1024)))
		abort();
	if (rc == SLURM_SUCCESS && !had_nodes && j->req_nodes)
		check_pin(j);
	if (getenv("GP_FUZZ_VERBOSE")) /* what each input led to, for its seeds */
		fprintf(stderr, "site %s: rc %d%s%s; %s\n", sites[in.site], rc, msg ? ": " : "",
		        msg ? msg : "", j->admin_comment ? j->admin_comment : "no comment");
	if (in.modify && job_modify(j, NULL, in.uid, &msg) != SLURM_SUCCESS)
		abort();
	slurm_xfree((void **)&msg);
	gp_test_job_free(j);
	free(text);
	return 0;
}
