/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_cost.c - time to evaluate one placement with the cost model.
 *
 * A SuperPOD-like cluster (default 1,024 nodes x 8 H100, 32 nodes per leaf,
 * 16 leaves per spine group, a core above, 2:1 at the leaves) is built in
 * memory.  For jobs of 64 and 1,024 GPUs (default profile, and a 3-D
 * parallel job with TP, PP, DP and EP), a compact and a scattered placement
 * are each evaluated many times in a row; the median of several batches is
 * printed per evaluation, side by side with the target (20 us for the
 * 1,024-GPU job) and as ratios: 1,024 vs 64 GPUs (scaling), scattered vs
 * compact (placement shape), each against the target.
 *
 * usage: bench_cost [--nodes N] [--iters N] [--batches N]
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cost.h"

#define TARGET_US 20.0

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median microseconds per evaluation. */
static double bench(const gp_cluster_t *c, const gp_job_profile_t *job, const gp_placement_t *pl,
                    gp_cost_scratch_t *s, long iters, int batches, double *step)
{
	double t[64];
	gp_cost_t out;
	gp_error_t err = { "" };
	int b;
	long i;

	if (batches > 64)
		batches = 64;
	for (b = 0; b < batches; b++) {
		double t0 = now_s();

		for (i = 0; i < iters; i++)
			if (gp__cost_eval(c, job, pl, s, 0, &out, &err) != GP_OK) {
				fprintf(stderr, "bench_cost: %s\n", err.text);
				exit(1);
			}
		t[b] = (now_s() - t0) / iters * 1e6;
	}
	qsort(t, (size_t)batches, sizeof(t[0]), cmp_double);
	*step = out.step_s;
	return t[batches / 2];
}

static long arg_long(const char *s, long min, long max, const char *what)
{
	long v;

	if (gp__parse_long(s, min, max, &v) != GP_OK) {
		fprintf(stderr, "bench_cost: %s must be an integer in %ld..%ld\n", what, min, max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		const char *spec; /* "" = default profile */
	} jobs[] = {
		{ "default", "" },
		{ "3d+ep", "tp=8,pp=2,ep=4,params=175e9,mbs=1,seq=4096,hidden=12288,layers=96,"
		           "step_s=10,overlap=0.5" },
	};
	static const int sizes[] = { 64, 1024 };
	gp_cost_shape_t sh;
	gp_cluster_t *c = NULL;
	gp_cost_scratch_t *s = NULL;
	gp_error_t err = { "" };
	int32_t *nodes;
	uint32_t *mask;
	long iters = 20000, nn = 1024;
	int batches = 9, i;
	size_t j, k;
	double us[2][2][2], step[2][2][2];

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--nodes") && i + 1 < argc)
			nn = arg_long(argv[++i], 256, 1 << 20, "--nodes");
		else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
			iters = arg_long(argv[++i], 1, 100000000, "--iters");
		else if (!strcmp(argv[i], "--batches") && i + 1 < argc)
			batches = (int)arg_long(argv[++i], 1, 64, "--batches");
		else {
			fprintf(stderr, "usage: bench_cost [--nodes N] [--iters N] [--batches N]\n");
			return 2;
		}
	}
	gp__cost_shape_defaults(&sh);
	sh.nodes = (int32_t)nn;
	sh.nodes_per_leaf = 32;
	sh.leaves_per_spine = 16;
	sh.oversub[1] = 2.0;
	if (gp__cost_shape_build(&sh, &c, &err) != GP_OK ||
	    gp__cost_scratch_new(c, 8 * (int32_t)nn, &s) != GP_OK) {
		fprintf(stderr, "bench_cost: %s\n", err.text[0] ? err.text : "out of memory");
		return 1;
	}
	nodes = calloc((size_t)nn, sizeof(*nodes));
	mask = calloc((size_t)nn, sizeof(*mask));
	if (!nodes || !mask) {
		fprintf(stderr, "bench_cost: out of memory\n");
		return 1;
	}
	printf("cluster: %ld nodes x 8 GPUs, 32 nodes/leaf, 16 leaves/spine, 2:1 at leaves\n", nn);
	printf("%-8s %6s %-9s %12s %12s %14s\n", "job", "gpus", "placement", "us/eval",
	       "vs target", "step_s");
	for (j = 0; j < 2; j++)
		for (k = 0; k < 2; k++)
			for (i = 0; i < 2; i++) {
				int32_t n = sizes[k] / 8, q, stride = i ? (int32_t)(nn / n) : 1;
				gp_job_profile_t job;
				gp_placement_t pl = { n, nodes, mask };
				char spec[512];

				for (q = 0; q < n; q++) {
					nodes[q] = q * stride;
					mask[q] = 0xff;
				}
				if (!*jobs[j].spec) {
					gp__job_profile_default(c, sizes[k], &job);
				} else {
					snprintf(spec, sizeof(spec), "gpus=%d,%s", sizes[k], jobs[j].spec);
					if (gp__job_profile_parse(spec, &job, &err) != GP_OK) {
						fprintf(stderr, "bench_cost: %s\n", err.text);
						return 1;
					}
				}
				us[j][k][i] = bench(c, &job, &pl, s, sizes[k] >= 1024 ? iters / 8 :
				                    iters, batches, &step[j][k][i]);
				printf("%-8s %6d %-9s %12.3f %11.3fx %14.6g\n", jobs[j].name, sizes[k],
				       i ? "scattered" : "compact", us[j][k][i],
				       us[j][k][i] / TARGET_US, step[j][k][i]);
			}
	printf("\nratios measured in this run:\n");
	for (j = 0; j < 2; j++) {
		printf("  %-8s 1024 vs 64 GPUs (compact): %.2fx time per eval\n", jobs[j].name,
		       us[j][1][0] / us[j][0][0]);
		printf("  %-8s scattered vs compact (1024 GPUs): %.2fx time per eval, "
		       "%.3fx step time\n", jobs[j].name, us[j][1][1] / us[j][1][0],
		       step[j][1][1] / step[j][1][0]);
		printf("  %-8s 1024-GPU eval vs %.0f us target: %.3f (%s)\n", jobs[j].name,
		       TARGET_US, us[j][1][1] > us[j][1][0] ? us[j][1][1] / TARGET_US :
		       us[j][1][0] / TARGET_US,
		       (us[j][1][1] > us[j][1][0] ? us[j][1][1] : us[j][1][0]) < TARGET_US ?
		       "meets target" : "MISSES target");
	}
	free(nodes);
	free(mask);
	gp__cost_scratch_destroy(s);
	gp_cluster_destroy(c);
	return 0;
}
