/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_conf.c - feed arbitrary bytes to the configuration loaders.
 *
 * Each input is written in turn as gpuplace.conf, slurm.conf, topology.conf,
 * gres.conf and topology.yaml (which is otherwise absent) of a temporary
 * conf dir whose other files are a fixed small valid cluster, and loaded
 * with gp_cluster_load_conf_dir().  A load must
 * either succeed or fail with GP_ECONFIG / GP_ENOMEM and an error text that
 * names a file; nothing may crash, hang or leak (run under valgrind or
 * ASan).  Built with tests/fuzz_driver.c for make check, or with
 * clang -fsanitize=fuzzer.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static char dir[256];

static void cleanup(void)
{
	char path[512];
	int i;

	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, base[i][0]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/topology.yaml", dir);
	unlink(path);
	rmdir(dir);
}

static int put(const char *name, const void *data, size_t size)
{
	char path[512];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	ok = fwrite(data, 1, size, f) == size;
	return (fclose(f) == 0 && ok) ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int i;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "%s/gp-fuzz-conf-XXXXXX",
		         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		if (!mkdtemp(dir))
			abort();
		atexit(cleanup);
		for (i = 0; i < 4; i++)
			if (put(base[i][0], base[i][1], strlen(base[i][1])))
				abort();
	}
	for (i = 0; i < 5; i++) {
		gp_cluster_t *c = (gp_cluster_t *)1;
		gp_error_t err = { { 0 } };
		int rc;

		if (put(i < 4 ? base[i][0] : "topology.yaml", data, size))
			abort();
		rc = gp_cluster_load_conf_dir(dir, &c, &err);
		if (rc == GP_OK) {
			if (!c || gp_cluster_node_count(c) < 0)
				abort();
			/* a loaded model is consistent: the DFS order is a permutation */
			for (int32_t k = 0; k < c->nnodes; k++)
				if (c->node_order[c->node_pos[k]] != k)
					abort();
			gp_cluster_destroy(c);
		} else if (c != NULL || (rc != GP_ECONFIG && rc != GP_ENOMEM) ||
		           !strstr(err.text, dir)) {
			fprintf(stderr, "bad failure: rc %d: %s\n", rc, err.text);
			abort();
		}
		if (i == 4) {
			char path[512];

			snprintf(path, sizeof(path), "%s/topology.yaml", dir);
			if (unlink(path))
				abort();
		} else if (put(base[i][0], base[i][1], strlen(base[i][1]))) {
			abort();
		}
	}
	return 0;
}
