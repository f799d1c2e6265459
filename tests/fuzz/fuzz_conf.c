/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_conf.c - feed arbitrary bytes to the configuration loaders.
 *
 * Each input is used in turn as gpuplace.conf, slurm.conf, topology.conf,
 * gres.conf and topology.yaml (otherwise absent) of a conf dir held in
 * memory whose other files are a fixed small valid cluster, and loaded with
 * gp__cluster_load_conf_mem() (the directory loader without file I/O).  A
 * load must
 * either succeed or fail with GP_ECONFIG / GP_ENOMEM and an error text that
 * names a file; nothing may crash, hang or leak (run under valgrind or
 * ASan).  Built with tests/fuzz/fuzz_driver.c for make check, or with
 * clang -fsanitize=fuzzer.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *base[4][2] = {
	{ "gpuplace.conf",
	  "GpuProfile=h100 TFLOPS=989 HBMGBps=3350 NVLinkGBps=450 TDPWatts=700 IdleWatts=70\n"
	  "FabricLevel=0 LinkGBps=50\n"
	  "Rack=r1 Nodes=n[1-2] PowerCapKW=10\n"
	  "Rack=r2 Nodes=n[3-4] PowerCapKW=10\n" },
	{ "slurm.conf",
	  "ClusterName=fuzz\n"
	  "NodeName=DEFAULT Gres=gpu:h100:4\n"
	  "NodeName=n[1-4]\n"
	  "PartitionName=p Nodes=n[1-4] Default=YES\n" },
	{ "topology.conf",
	  "SwitchName=s1 Nodes=n[1-2]\n"
	  "SwitchName=s2 Nodes=n[3-4]\n"
	  "SwitchName=top Switches=s[1-2]\n" },
	{ "gres.conf",
	  "NodeName=n[1-4] Name=gpu Type=h100 File=/dev/nvidia[0-3]\n" },
};

/* The virtual directory the files are known by (errors must name it). */
#define DIR "fuzz-conf"

/* Which file the input replaces: all five in turn by default (the gcc
 * driver in make check), one with -DGP_FUZZ_FILE=0..4 (the libFuzzer
 * targets fuzz_gpuplace_conf, fuzz_slurm_conf, fuzz_topology_conf,
 * fuzz_gres_conf and fuzz_topology_yaml built by tests/fuzz/run-all.sh);
 * 4 adds topology.yaml, which Slurm 25.05+ reads instead of topology.conf. */
#ifdef GP_FUZZ_FILE
#define FIRST GP_FUZZ_FILE
#define LAST GP_FUZZ_FILE
#else
#define FIRST 0
#define LAST 4
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gp__conf_memfile_t files[5];
	int i, k;

	for (i = FIRST; i <= LAST; i++) {
		gp_cluster_t *c = (gp_cluster_t *)1;
		gp_error_t err = { { 0 } };
		int rc;

		for (k = 0; k < 4; k++) {
			files[k].name = base[k][0];
			files[k].text = k == i ? (const char *)data : base[k][1];
			files[k].len = k == i ? size : strlen(base[k][1]);
		}
		files[4].name = "topology.yaml";
		files[4].text = (const char *)data;
		files[4].len = size;
		rc = gp__cluster_load_conf_mem(DIR, files, i == 4 ? 5 : 4, &c, &err);
		if (rc == GP_OK) {
			if (!c || gp_cluster_node_count(c) < 0)
				abort();
			/* a loaded model is consistent: the DFS order is a permutation */
			for (int32_t n = 0; n < c->nnodes; n++)
				if (c->node_order[c->node_pos[n]] != n)
					abort();
			gp_cluster_destroy(c);
		} else if (c != NULL || (rc != GP_ECONFIG && rc != GP_ENOMEM) ||
		           !strstr(err.text, DIR)) {
			fprintf(stderr, "bad failure: rc %d: %s\n", rc, err.text);
			abort();
		}
	}
	return 0;
}
