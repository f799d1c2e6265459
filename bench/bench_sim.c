/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_sim.c - simulator throughput: simulated jobs per minute on a
 * 1,000-node cluster, per policy, side by side in one run, against the
 * target of 100,000 jobs per minute.
 *
 * Cluster: `gpuplace synth` shape, 1,000 nodes x 8 H100, leaves of 32
 * nodes, racks of 4 with a limit 8 % above their peak draw (the SuperPOD
 * example's 44 kW cooling for 40.8 kW of DGX H100).  Traces: the
 * synthetic generator at offered load 1.2 (run times cut at 4 h so the
 * queue grows within the trace and backfill has work at every pass) with
 * the Philly job-size mix (mostly one GPU) and with a mix of large jobs;
 * and, when $GP_SHARED_DATA holds it, the real Philly trace (82,247 jobs,
 * lightly loaded on this cluster).  Time is the thread CPU time of
 * gp__sim_run.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model.h"
#include "sim.h"
#include "synth.h"
#include "trace.h"

#define TARGET_JOBS_PER_MIN 100000.0

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int bench_trace(const gp_cluster_t *c, const char *label, const gp_trace_t *t,
                       const char *const *policies, double *worst)
{
	int i;

	for (i = 0; policies[i]; i++) {
		gp_sim_policy_t p;
		gp_sim_opts_t o;
		gp_sim_result_t *r = NULL;
		gp_error_t err = { "" };
		double t0, dt, rate;

		gp__sim_opts_defaults(&o);
		if (gp__sim_policy_parse(policies[i], c, &p, &err)) {
			fprintf(stderr, "bench_sim: %s: %s\n", policies[i], err.text);
			return 1;
		}
		t0 = cpu_s();
		if (gp__sim_run(c, NULL, t, &p, &o, &r, &err)) {
			fprintf(stderr, "bench_sim: %s: %s\n", policies[i], err.text);
			return 1;
		}
		dt = cpu_s() - t0;
		rate = dt > 0 ? t->njobs * 60.0 / dt : 0;
		if (rate < *worst)
			*worst = rate;
		printf("%-14s %-12s %7d %8.3f %12.0f %7.2f %6.1f %9.0f %9.0f\n", label, policies[i],
		       t->njobs, dt, rate, rate / TARGET_JOBS_PER_MIN, 100 * r->m.gpu_util,
		       r->m.wait_mean_s, (double)r->m.decisions / t->njobs * 1000);
		gp__sim_result_destroy(r);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const policies[] = {
		"first-fit", "tree", "balanced", "pack", "performance", "power-save", NULL
	};
	gp_synth_params_t sp;
	gp_trace_synth_params_t tp;
	gp_cluster_t *c = NULL, *c0 = NULL;
	gp_trace_t *t = NULL;
	gp_error_t err = { "" };
	double worst = 1e300;
	int32_t njobs = argc > 1 ? atoi(argv[1]) : 20000;
	const char *shared = getenv("GP_SHARED_DATA");
	char path[1024];
	int rc = 1;

	if (njobs < 100)
		njobs = 100;
	gp__synth_defaults(&sp);
	sp.nodes = 1000;
	if (gp__synth_build(&sp, &c0, &err))
		goto fail;
	/* SuperPOD example: CoolingKW=44 for 4 x 10.2 kW of DGX H100 */
	sp.rack_kw = c0->racks[0].power_cap_kw * 44.0 / 40.8;
	if (gp__synth_build(&sp, &c, &err))
		goto fail;
	printf("# simulated jobs per minute of CPU time on %d nodes x %d GPUs (%d racks), "
	       "FIFO + EASY backfill\n", c->nnodes, sp.gpus_per_node, c->nracks);
	printf("# target %.0f jobs/min; ratio = measured / target\n", TARGET_JOBS_PER_MIN);
	printf("%-14s %-12s %7s %8s %12s %7s %6s %9s %9s\n", "trace", "policy", "jobs", "cpu_s",
	       "jobs/min", "ratio", "util%", "wait_s", "tries/kj");

	gp__trace_synth_defaults(&tp);
	tp.jobs = njobs;
	tp.cluster_gpus = (int32_t)gp_cluster_gpu_count(c);
	/* overloaded, with run times cut at 4 h, so that within a short trace
	 * the queue grows and every pass has backfill work to do */
	tp.load = 1.2;
	tp.dur_max_s = 4 * 3600.0;
	tp.gpus_per_node = sp.gpus_per_node;
	if (gp__trace_synth(&tp, &t, &err))
		goto fail;
	if (bench_trace(c, "synth-philly", t, policies, &worst))
		goto out;
	gp__trace_destroy(t);
	t = NULL;

	if (gp__trace_parse_sizes("1:0.4,2:0.1,4:0.1,8:0.2,16:0.1,32:0.06,64:0.03,128:0.01", &tp,
	                          &err) ||
	    gp__trace_synth(&tp, &t, &err))
		goto fail;
	if (bench_trace(c, "synth-large", t, policies, &worst))
		goto out;
	gp__trace_destroy(t);
	t = NULL;

	snprintf(path, sizeof(path), "%s/traces/philly_pollux_82k.csv",
	         shared && *shared ? shared : "../shared/data");
	if (gp__trace_load(path, &t, &err) == GP_OK) {
		if (bench_trace(c, "philly-real", t, policies, &worst))
			goto out;
	} else {
		printf("# real Philly trace not run: %s\n", err.text);
	}
	printf("# slowest policy: %.0f jobs/min = %.2f x the %.0f target: %s\n", worst,
	       worst / TARGET_JOBS_PER_MIN, TARGET_JOBS_PER_MIN,
	       worst >= TARGET_JOBS_PER_MIN ? "PASS" : "FAIL");
	rc = worst >= TARGET_JOBS_PER_MIN ? 0 : 1;
	goto out;
fail:
	fprintf(stderr, "bench_sim: %s\n", err.text);
out:
	gp__trace_destroy(t);
	gp_cluster_destroy(c);
	gp_cluster_destroy(c0);
	return rc;
}
