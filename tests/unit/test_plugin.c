/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_plugin.c - job_submit/gpuplace without daemons: the plugin is
 * dlopen()ed into this program, which links libslurm (the same allocator
 * and log functions slurmctld provides), and fed job descriptions built
 * from Slurm-allocated memory, then freed field by field with xfree(), as
 * slurmctld does (libslurm's slurm_free_job_desc_msg() would need a whole
 * slurm.conf for its select plugin).  Run under valgrind this also proves
 * every string the plugin hands back or stores is Slurm-allocated.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "slurm_compat.h"

#include "http_server.h"
#include "slurm_alloc.h"
#include "plugin_job.h"


static void *handle;
static int (*p_init)(void);
static void (*p_fini)(void);
static int (*p_job_submit)(job_desc_msg_t *, uint32_t, char **);
static int (*p_job_modify)(job_desc_msg_t *, void *, uint32_t, char **);

/* A job description as slurmctld unpacks it. */
static job_desc_msg_t *job_new(const char *const *environment, const char *const *spank_env)
{
	job_desc_msg_t *j = gp_test_job_new("gres:gpu:8", NULL);

	if (environment)
		j->environment = gp_test_xarray(environment, -1, &j->env_size);
	if (spank_env)
		j->spank_job_env = gp_test_xarray(spank_env, -1, &j->spank_job_env_size);
	return j;
}

/* Submit and return the plugin's verdict; *msg gets the message (or NULL),
 * which the caller frees with xfree. */
static int submit(const char *const *environment, const char *const *spank_env, char **msg)
{
	job_desc_msg_t *j = job_new(environment, spank_env);
	int rc;

	*msg = NULL;
	rc = p_job_submit(j, 1000, msg);
	gp_test_job_free(j);
	return rc;
}

static int load(const char *conf_dir)
{
	const char *b = getenv("GP_TOP_BUILDDIR");
	char path[4096];

	snprintf(path, sizeof(path), "%s/plugin/.libs/job_submit_gpuplace.so", b ? b : ".");
	handle = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
	if (!handle) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return -1;
	}
	p_init = (int (*)(void))dlsym(handle, "init");
	p_fini = (void (*)(void))dlsym(handle, "fini");
	p_job_submit = (int (*)(job_desc_msg_t *, uint32_t, char **))dlsym(handle, "job_submit");
	p_job_modify = (int (*)(job_desc_msg_t *, void *, uint32_t, char **))dlsym(handle, "job_modify");
	if (!p_init || !p_fini || !p_job_submit || !p_job_modify)
		return -1;
	setenv("GPUPLACE_CONF_DIR", conf_dir, 1);
	return p_init() == SLURM_SUCCESS ? 0 : -1;
}

static int setup_valid(void **state)
{
	const char *s = getenv("GP_TOP_SRCDIR");
	static char dir[4096];

	snprintf(dir, sizeof(dir), "%s/etc/mixed-pcie", s ? s : ".");
	return load(dir);
}

static int setup_missing(void **state)
{
	return load("/nonexistent/gpuplace-test");
}

static int teardown(void **state)
{
	p_fini();
	dlclose(handle);
	handle = NULL;
	return 0;
}

static void test_plugin_identity(void **unused)
{
	const char *type = dlsym(handle, "plugin_type");
	const uint32_t *version = dlsym(handle, "plugin_version");

	assert_non_null(type);
	assert_string_equal(type, "job_submit/gpuplace");
	assert_non_null(version);
	/* slurmctld loads only a plugin built for exactly its version */
	assert_int_equal(*version, SLURM_VERSION_NUMBER);
}

static void test_no_hints_pass(void **unused)
{
	static const char *const env[] = { "PATH=/bin", "HOME=/root", NULL };
	char *msg;

	assert_int_equal(submit(env, NULL, &msg), SLURM_SUCCESS);
	assert_null(msg);
	assert_int_equal(submit(NULL, NULL, &msg), SLURM_SUCCESS); /* srun: no environment */
	assert_int_equal(p_job_submit(NULL, 0, &msg), SLURM_SUCCESS);
}

static void test_good_hints_pass(void **unused)
{
	static const char *const sbatch_env[] = { "SLURM_SPANK_GPUPLACE_HINTS=tp=8,pp=2", NULL };
	static const char *const srun_spank[] = { "GPUPLACE_HINTS=tp=4", NULL };
	static const char *const vars[] = { "GPUPLACE_TP=2", "GPUPLACE_PARAMS=7e9", NULL };
	char *msg;

	assert_int_equal(submit(sbatch_env, NULL, &msg), SLURM_SUCCESS);
	assert_null(msg);
	assert_int_equal(submit(NULL, srun_spank, &msg), SLURM_SUCCESS);
	assert_null(msg);
	assert_int_equal(submit(vars, NULL, &msg), SLURM_SUCCESS);
	assert_null(msg);
}

static void test_bad_hints_rejected(void **unused)
{
	static const struct {
		const char *env;       /* batch environment variable, or NULL */
		const char *spank;     /* spank_job_env entry, or NULL */
		const char *want[2];   /* substrings of the message */
	} cases[] = {
		{ "SLURM_SPANK_GPUPLACE_HINTS=tp=eight", NULL, { "--gpuplace options", "tp" } },
		{ NULL, "GPUPLACE_HINTS=warp=9", { "--gpuplace options", "warp" } },
		{ "GPUPLACE_HINTS=pp=-2", NULL, { "GPUPLACE_HINTS", "pp" } },
		{ "GPUPLACE_PARAMS=lots", NULL, { "GPUPLACE_* variables", "params" } },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *env[] = { cases[i].env, NULL }, *spank[] = { cases[i].spank, NULL };
		char *msg;
		int rc = submit(cases[i].env ? env : NULL, cases[i].spank ? spank : NULL, &msg);

		assert_int_not_equal(rc, SLURM_SUCCESS);
		assert_non_null(msg);
		if (!strstr(msg, cases[i].want[0]) || !strstr(msg, cases[i].want[1]))
			fail_msg("case %zu: message '%s' lacks '%s' or '%s'", i, msg, cases[i].want[0],
			         cases[i].want[1]);
		slurm_xfree((void **)&msg); /* Slurm frees it so: must be xmalloc'd */
	}
}

static void test_too_long_hints_rejected(void **unused)
{
	static char var[4096];
	const char *env[] = { var, NULL };
	char *msg;

	memset(var, 0, sizeof(var));
	strcpy(var, "GPUPLACE_HINTS=tp=8");
	memset(var + strlen(var), '0', 2000);
	assert_int_not_equal(submit(env, NULL, &msg), SLURM_SUCCESS);
	assert_non_null(strstr(msg, "longer than"));
	slurm_xfree((void **)&msg);
}

static void test_job_modify_passes(void **unused)
{
	job_desc_msg_t *j = job_new(NULL, NULL);
	char *msg = NULL;

	assert_int_equal(p_job_modify(j, NULL, 0, &msg), SLURM_SUCCESS);
	assert_null(msg);
	gp_test_job_free(j);
}

/* A copy of etc/mixed-pcie whose gpuplace.conf adds a Prometheus source on
 * a loopback server that never answers, with the longest Timeout allowed:
 * the plugin starts its poller in init(), and fini() (slurmctld shutdown)
 * must still return within 2 s while the read is in progress. */
static ts_server_t *hung_srv;
static char hung_dir[256];

static int setup_hung_telemetry(void **state)
{
	static const char *const files[] = { "slurm.conf", "gres.conf", "topology.conf", "racks.conf",
		"gpuplace.conf" };
	ts_response_t hung = { .status = 200, .body = "{}", .delay_ms = 120000 };
	const char *s = getenv("GP_TOP_SRCDIR"), *t = getenv("TMPDIR");
	char from[4096], to[4096], line[512];
	size_t i;

	hung_srv = ts_start();
	if (!hung_srv || ts_route(hung_srv, "*", &hung))
		return -1;
	snprintf(hung_dir, sizeof(hung_dir), "%s/gp-plugin-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(hung_dir))
		return -1;
	snprintf(line, sizeof(line),
	         "\nTelemetry=hung Type=prometheus URL=%s Query=\"sum by (rack) (power)\" "
	         "Interval=60 Timeout=60\n", ts_url(hung_srv));
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(from, sizeof(from), "%s/etc/mixed-pcie/%s", s ? s : ".", files[i]);
		snprintf(to, sizeof(to), "%s/%s", hung_dir, files[i]);
		if (gp_test_copy_file(from, to, i == 4 ? line : NULL))
			return -1;
	}
	return load(hung_dir);
}

static void test_fini_with_hung_telemetry(void **unused)
{
	static const char *const files[] = { "slurm.conf", "gres.conf", "topology.conf", "racks.conf",
		"gpuplace.conf" };
	struct timespec t0, t1, ts = { 0, 20000000L };
	char path[4096];
	double dt;
	size_t i;
	int k;

	/* the poller's first read is with the server and unanswered */
	for (k = 0; k < 250 && ts_requests(hung_srv) < 1; k++)
		nanosleep(&ts, NULL);
	assert_true(ts_requests(hung_srv) >= 1);
	ts.tv_nsec = 300000000L;
	nanosleep(&ts, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	p_fini();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	dt = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	print_message("# fini returned after %.3f s (Timeout=60, server silent for 120 s)\n", dt);
	/* far below the 60 s a stuck poll would hold it, with slack for
	 * valgrind (tests/unit/valgrind_plugin.sh) on a loaded machine */
	assert_true(dt < 8.0);
	dlclose(handle);
	handle = NULL;
	ts_stop(hung_srv);
	hung_srv = NULL;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", hung_dir, files[i]);
		unlink(path);
	}
	rmdir(hung_dir);
}

/* The same with a Type=file source that is a FIFO with no writer: its
 * open() for reading blocks until a writer comes (fifo(7)).  The poller
 * must refuse it at once, so the configuration, the plugin's thread and
 * fini() are never held by it; SIGALRM fails the test rather than let it
 * hang. */
static char fifo_dir[256];

static int setup_fifo_telemetry(void **state)
{
	static const char *const files[] = { "slurm.conf", "gres.conf", "topology.conf", "racks.conf",
		"gpuplace.conf" };
	const char *s = getenv("GP_TOP_SRCDIR"), *t = getenv("TMPDIR");
	char from[4096], to[4096], line[4200];
	size_t i;

	snprintf(fifo_dir, sizeof(fifo_dir), "%s/gp-plugin-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(fifo_dir))
		return -1;
	snprintf(to, sizeof(to), "%s/power.json", fifo_dir);
	if (mkfifo(to, 0600))
		return -1;
	snprintf(line, sizeof(line), "\nTelemetry=pdus Type=file Path=%s Interval=1 Timeout=1\n", to);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(from, sizeof(from), "%s/etc/mixed-pcie/%s", s ? s : ".", files[i]);
		snprintf(to, sizeof(to), "%s/%s", fifo_dir, files[i]);
		if (gp_test_copy_file(from, to, i == 4 ? line : NULL))
			return -1;
	}
	alarm(30);
	return load(fifo_dir);
}

static void test_fini_with_fifo_telemetry(void **unused)
{
	static const char *const files[] = { "slurm.conf", "gres.conf", "topology.conf", "racks.conf",
		"gpuplace.conf", "power.json" };
	struct timespec t0, t1, ts = { 1, 500000000L };
	char path[4096];
	double dt;
	size_t i;

	/* the poller has tried the FIFO at least once */
	nanosleep(&ts, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	p_fini();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	dt = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	print_message("# fini returned after %.3f s (Type=file source on a FIFO)\n", dt);
	assert_true(dt < 8.0);
	alarm(0);
	dlclose(handle);
	handle = NULL;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", fifo_dir, files[i]);
		unlink(path);
	}
	rmdir(fifo_dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* a valid configuration */
		cmocka_unit_test_setup_teardown(test_plugin_identity, setup_valid, teardown),
		cmocka_unit_test_setup_teardown(test_no_hints_pass, setup_valid, teardown),
		cmocka_unit_test_setup_teardown(test_good_hints_pass, setup_valid, teardown),
		cmocka_unit_test_setup_teardown(test_bad_hints_rejected, setup_valid, teardown),
		cmocka_unit_test_setup_teardown(test_too_long_hints_rejected, setup_valid, teardown),
		cmocka_unit_test_setup_teardown(test_job_modify_passes, setup_valid, teardown),
		/* no configuration at all: fail open, hints are still checked */
		cmocka_unit_test_setup_teardown(test_no_hints_pass, setup_missing, teardown),
		cmocka_unit_test_setup_teardown(test_bad_hints_rejected, setup_missing, teardown),
		/* shutdown while a telemetry source hangs (the test calls fini) */
		cmocka_unit_test_setup(test_fini_with_hung_telemetry, setup_hung_telemetry),
		cmocka_unit_test_setup(test_fini_with_fifo_telemetry, setup_fifo_telemetry),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
