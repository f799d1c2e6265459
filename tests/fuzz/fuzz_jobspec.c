/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_jobspec.c - fuzz target for job hint strings (they reach the Slurm
 * plugin from users' sbatch options): parse, format back and parse again
 * (must round-trip), then evaluate the job on a small in-memory cluster
 * when it fits (step time must be finite and not negative).
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static gp_cluster_t *cluster;
static gp_cost_scratch_t *scratch;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char spec[2048], back[2048];
	gp_job_profile_t a, b;
	gp_error_t err;
	gp_cost_t cost;
	int32_t nodes[8];
	uint32_t mask[8];
	gp_placement_t pl = { 0, nodes, mask };
	int32_t i, left;

	if (!cluster) {
		gp_cost_shape_t sh;

		gp__cost_shape_defaults(&sh);
		sh.nodes = 8;
		sh.nodes_per_leaf = 2;
		sh.oversub[1] = 2;
		if (gp__cost_shape_build(&sh, &cluster, NULL) || gp__cost_scratch_new(cluster, 64, &scratch))
			abort();
	}
	if (size >= sizeof(spec))
		size = sizeof(spec) - 1;
	memcpy(spec, data, size);
	spec[size] = '\0';
	if (gp__job_profile_parse(spec, &a, &err) != GP_OK)
		return 0;
	if (gp__job_profile_format(&a, back, sizeof(back)) != GP_OK)
		return 0;
	if (gp__job_profile_parse(back, &b, &err) != GP_OK || memcmp(&a, &b, sizeof(a)))
		abort();
	if (a.gpus < 1 || a.gpus > 64)
		return 0;
	for (i = 0, left = a.gpus; left > 0; i++) {
		int g = left < 8 ? left : 8;

		nodes[i] = i;
		mask[i] = (1u << g) - 1;
		left -= g;
	}
	pl.n = i;
	if (gp__cost_eval(cluster, &a, &pl, scratch, 0, &cost, &err) == GP_OK &&
	    (!isfinite(cost.step_s) || cost.step_s < 0 || cost.exposed_s > cost.step_s * (1 + 1e-9)))
		abort();
	return 0;
}
