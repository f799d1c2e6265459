/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spank_gpuplace.c - sbatch/srun/salloc options for gpuplace's job hints.
 *
 *   --gpuplace=SPEC              the whole profile, e.g. tp=8,pp=2,params=70e9
 *   --gpuplace-tp=N, --gpuplace-pp=N, --gpuplace-dp=N, --gpuplace-ep=N
 *   --gpuplace-params=N          model parameters (e.g. 70e9)
 *   --gpuplace-bytes-per-param=N bytes per gradient element (hint key grad_bytes)
 *   --gpuplace-step-time=S       compute time of one step, seconds (hint key step_s)
 *   --gpuplace-ckpt-size=BYTES   size of one checkpoint
 *
 * The client side only collects: in sbatch/salloc/srun (allocator and local
 * contexts) the options are joined into one SPEC and stored in the job
 * control environment as GPUPLACE_HINTS, which reaches slurmctld in the
 * job's spank_job_env (srun, salloc) or its environment as
 * SLURM_SPANK_GPUPLACE_HINTS (sbatch), where job_submit/gpuplace validates
 * it for a job that asks for GPUs and rejects a bad hint with a message
 * naming it (a job without GPUs has its hints ignored: doc/gpuplace.conf.5,
 * SLURM PLUGIN).  On the compute nodes the plugin does nothing.
 *
 * Enable with a line in plugstack.conf:  optional /path/spank_gpuplace.so
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "slurm_compat.h"

SPANK_PLUGIN(gpuplace, 1);

#define HINTS_MAX 1024

/* One slot per option; the callback stores the argument. */
struct hint {
	const char *key;   /* key in the SPEC ("" for the whole SPEC) */
	char value[256];
	int set;
};

static struct hint hints[] = {
	{ "", "", 0 }, { "tp", "", 0 }, { "pp", "", 0 }, { "dp", "", 0 }, { "ep", "", 0 },
	{ "params", "", 0 }, { "grad_bytes", "", 0 }, { "step_s", "", 0 },
	{ "ckpt_bytes", "", 0 },
};

static int store(int val, const char *optarg, int remote)
{
	if (val < 0 || (size_t)val >= sizeof(hints) / sizeof(hints[0]) || !optarg)
		return -1;
	if (strlen(optarg) >= sizeof(hints[val].value)) {
		slurm_error("gpuplace: --gpuplace%s%s: value is longer than %zu characters",
		            val ? "-" : "", val ? hints[val].key : "", sizeof(hints[val].value) - 1);
		return -1;
	}
	snprintf(hints[val].value, sizeof(hints[val].value), "%s", optarg);
	hints[val].set = 1;
	return 0;
}

static struct spank_option options[] = {
	{ "gpuplace", "SPEC",
	  "gpuplace job profile of a GPU job, e.g. tp=8,pp=2,params=70e9 (a bad hint rejects the "
	  "job with a message naming it; a job without GPUs ignores hints)",
	  1, 0, store },
	{ "gpuplace-tp", "N", "gpuplace: tensor-parallel degree", 1, 1, store },
	{ "gpuplace-pp", "N", "gpuplace: pipeline-parallel degree", 1, 2, store },
	{ "gpuplace-dp", "N", "gpuplace: data-parallel degree", 1, 3, store },
	{ "gpuplace-ep", "N", "gpuplace: expert-parallel degree", 1, 4, store },
	{ "gpuplace-params", "N", "gpuplace: model parameters (e.g. 70e9)", 1, 5, store },
	{ "gpuplace-bytes-per-param", "N", "gpuplace: bytes per gradient element", 1, 6, store },
	{ "gpuplace-step-time", "SECONDS", "gpuplace: compute time of one step", 1, 7, store },
	{ "gpuplace-ckpt-size", "BYTES", "gpuplace: size of one checkpoint", 1, 8, store },
	SPANK_OPTIONS_TABLE_END
};

/* Register the options in every context where they are parsed (sbatch,
 * salloc, srun and slurmstepd, which must know them to accept the job). */
int slurm_spank_init(spank_t sp, int ac, char **av)
{
	struct spank_option *o;

	for (o = options; o->name; o++)
		if (spank_option_register(sp, o) != ESPANK_SUCCESS) {
			slurm_error("gpuplace: cannot register option --%s", o->name);
			return -1;
		}
	return 0;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	char spec[HINTS_MAX];
	size_t i, len = 0;
	int n;

	if (spank_context() != S_CTX_ALLOCATOR && spank_context() != S_CTX_LOCAL)
		return 0;
	spec[0] = '\0';
	for (i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
		if (!hints[i].set)
			continue;
		if (i == 0)
			n = snprintf(spec + len, sizeof(spec) - len, "%s%s", len ? "," : "", hints[i].value);
		else
			n = snprintf(spec + len, sizeof(spec) - len, "%s%s=%s", len ? "," : "",
			             hints[i].key, hints[i].value);
		if (n < 0 || (size_t)n >= sizeof(spec) - len) {
			slurm_error("gpuplace: job hints are longer than %d characters", HINTS_MAX - 1);
			return -1;
		}
		len += (size_t)n;
	}
	if (!len)
		return 0;
	if (spank_job_control_setenv(sp, "GPUPLACE_HINTS", spec, 1) != ESPANK_SUCCESS) {
		slurm_error("gpuplace: cannot pass job hints to the controller");
		return -1;
	}
	return 0;
}
