/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_probe.c - node discovery (probe/discover.c) on real hwloc topologies
 * from $GP_SHARED_DATA/hwloc, on synthetic ones from tests/data/probe, the
 * JSON fragment and `gpuplace cluster merge`. */
#include "config.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cmocka.h>

#include "discover.h"
#include "gpuplace.h"
#include "model.h"

static char shared[PATH_MAX];
static char srcdata[PATH_MAX];

static void paths_init(void)
{
	const char *s = getenv("GP_SHARED_DATA"), *t = getenv("GP_TOP_SRCDIR");

	if (s && *s)
		snprintf(shared, sizeof(shared), "%s/hwloc", s);
	else /* beside the source tree, as the Makefile sets it */
		snprintf(shared, sizeof(shared), "%s/../shared/data/hwloc", t && *t ? t : ".");
	snprintf(srcdata, sizeof(srcdata), "%s/tests/data/probe", t && *t ? t : ".");
}

/* Load dir/file, or skip the test when the file is absent. */
static gp_probe_t *load_or_skip(const char *dir, const char *file, const char *node)
{
	char path[PATH_MAX * 2];
	gp_error_t err = { "" };
	gp_probe_t *p = NULL;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (access(path, R_OK)) {
		print_message("# SKIP %s is absent (set GP_SHARED_DATA to the shared data directory)\n",
		              path);
		skip();
	}
	rc = gp__probe_load(path, node, &p, &err);
	if (rc)
		print_message("# %s: %s\n", path, err.text);
	assert_int_equal(rc, GP_OK);
	assert_non_null(p);
	assert_string_equal(p->node, node);
	return p;
}

/* Properties every result must have, whatever the machine. */
static void check_invariants(const gp_probe_t *p)
{
	int g, h, k;

	assert_int_equal(p->layout.ngpus, p->ngpus);
	assert_true(p->ngpus >= 0 && p->ngpus <= GP_MAX_GPUS_PER_NODE);
	for (g = 0; g < p->ngpus; g++) {
		/* one GPU per PCI function, sorted: cuda0+nvml0+PCI counted once */
		if (g)
			assert_true(strcmp(p->gpus[g - 1].bus_id, p->gpus[g].bus_id) < 0);
		assert_true(p->layout.island[g] < p->layout.nislands);
		for (h = 0; h < p->ngpus; h++) {
			assert_int_equal(p->layout.links[g][h], p->layout.links[h][g]);
			if (g == h)
				assert_int_equal(p->layout.links[g][h], -1);
			else if (p->layout.links[g][h] > 0)
				assert_int_equal(p->layout.island[g], p->layout.island[h]);
		}
		if (p->gpus[g].rail >= 0)
			assert_true(p->gpus[g].rail < p->nnics);
		else
			assert_int_equal(p->nnics, 0);
	}
	/* islands numbered in order of their lowest GPU */
	for (g = 0, k = 0; g < p->ngpus; g++) {
		assert_true(p->layout.island[g] <= k);
		if (p->layout.island[g] == k)
			k++;
	}
	assert_int_equal(k, p->layout.nislands);
}

static void test_dgx2(void **unused)
{
	gp_probe_t *p = load_or_skip(shared, "nvidiaDGX2.xml", "dgx01");
	char feat[64];
	int g, h;

	check_invariants(p);
	assert_int_equal(p->ngpus, 16);
	/* GPU-GPU bandwidth is 0 in the file: every link goes to an NVSwitch,
	 * 6 x 25000 MB/s per V100; one fabric, one island */
	assert_true(p->nvlink);
	assert_true(p->nvswitch);
	assert_true(p->layout.has_links);
	assert_int_equal(p->layout.nislands, 1);
	assert_true(p->link_mbps == 25000.0);
	for (g = 0; g < 16; g++) {
		assert_string_equal(p->gpus[g].backend, "NVML");
		assert_string_equal(p->gpus[g].type, "v100");
		assert_non_null(strstr(p->gpus[g].model, "V100"));
		assert_int_equal(p->gpus[g].cpu_links, 0);
		assert_true(p->gpus[g].cores[0] != '\0');
		/* the XML's PCI localities put buses 2b-67 on socket 0, ae-e7 on 1 */
		assert_int_equal(p->gpus[g].numa, g < 8 ? 0 : 1);
		for (h = 0; h < 16; h++)
			if (g != h)
				assert_int_equal(p->layout.links[g][h], 6);
	}
	assert_string_not_equal(p->gpus[0].cores, p->gpus[15].cores);
	assert_string_equal(p->gpus[0].file, "/dev/nvidia0");
	assert_string_equal(p->gpus[15].file, "/dev/nvidia15");
	assert_int_equal(p->nnics, 0);
	assert_int_equal(gp__probe_features(p, feat, sizeof(feat)), GP_OK);
	assert_string_equal(feat, "nvl16");
	gp__probe_destroy(p);
}

/* A real H200 VM (shared data h200-vm-1gpu.xml): hwloc saw PCI 10de:2335
 * with no NVML/CUDA OS device and no PCI name; the model and gres Type=
 * come from the PCI id (PCI ID Repository: 2335 = "GH100 [H200 SXM
 * 141GB]"). */
static void test_h200_pci_id(void **unused)
{
	gp_probe_t *p = load_or_skip(shared, "h200-vm-1gpu.xml", "h200n1");
	char line[512];

	check_invariants(p);
	assert_int_equal(p->ngpus, 1);
	assert_string_equal(p->gpus[0].backend, "PCI");
	assert_string_equal(p->gpus[0].model, "H200 SXM 141GB");
	assert_string_equal(p->gpus[0].type, "h200");
	assert_int_equal(gp__probe_gres_body(p, 0, line, sizeof(line)), GP_OK);
	assert_non_null(strstr(line, "Type=h200"));
	gp__probe_destroy(p);
}

/* The table itself: both vendors, an unknown id, and the names reduce
 * to the Type= a site would write. */
static void test_pci_names(void **unused)
{
	static const struct { unsigned v, d; const char *type; } cases[] = {
		{ 0x10de, 0x1db5, "v100" }, { 0x10de, 0x20b2, "a100" }, { 0x10de, 0x2330, "h100" },
		{ 0x10de, 0x2335, "h200" }, { 0x10de, 0x2901, "b200" }, { 0x10de, 0x2909, "b200" },
		{ 0x10de, 0x1eb8, "t4" },   { 0x10de, 0x26b9, "l40s" }, { 0x1002, 0x74a1, "mi300x" },
		{ 0x1002, 0x740c, "mi250x" },
	};
	char type[GP_NAME_MAX];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *name = gp__probe_pci_gpu_name(cases[i].v, cases[i].d);

		assert_non_null(name);
		gp__probe_gpu_type(name, type, sizeof(type));
		assert_string_equal(type, cases[i].type);
	}
	assert_null(gp__probe_pci_gpu_name(0x10de, 0x0001));
	assert_null(gp__probe_pci_gpu_name(0x8086, 0x2335)); /* right device, other vendor */
}

static void test_power8(void **unused)
{
	gp_probe_t *p = load_or_skip(shared, "power8gpudistances.xml", "p8n1");
	char feat[64];
	int g;

	check_invariants(p);
	assert_int_equal(p->ngpus, 4); /* cuda, nvml, opencl and PCI: 4, not 12 */
	assert_true(p->nvlink);
	assert_false(p->nvswitch);
	/* P100: NVLink 1, 20000 MB/s per link; 40000 between pair members =
	 * 2 links, and 2 links to the CPU of each GPU */
	assert_true(p->link_mbps == 20000.0);
	assert_int_equal(p->layout.nislands, 2);
	assert_int_equal(p->layout.island[0], p->layout.island[1]);
	assert_int_equal(p->layout.island[2], p->layout.island[3]);
	assert_int_not_equal(p->layout.island[0], p->layout.island[2]);
	assert_int_equal(p->layout.links[0][1], 2);
	assert_int_equal(p->layout.links[2][3], 2);
	assert_int_equal(p->layout.links[0][2], 0);
	assert_int_equal(p->layout.links[1][3], 0);
	for (g = 0; g < 4; g++) {
		assert_string_equal(p->gpus[g].type, "p100");
		assert_string_equal(p->gpus[g].backend, "NVML");
		assert_int_equal(p->gpus[g].cpu_links, 2);
	}
	assert_int_equal(gp__probe_features(p, feat, sizeof(feat)), GP_OK);
	assert_string_equal(feat, "nvl2");
	gp__probe_destroy(p);
}

static void test_wholeio_hca(void **unused)
{
	gp_probe_t *p = load_or_skip(shared, "32em64t-2n8c2t-pci-wholeio.xml", "x1");
	char feat[64];
	int g;

	check_invariants(p);
	/* the K40m (CUDA) and the AMD GPU (OpenCL); the two M2075 3D
	 * controllers no backend lists are left out and counted */
	assert_int_equal(p->ngpus, 2);
	assert_int_equal(p->nignored, 2);
	assert_string_equal(p->gpus[0].backend, "CUDA");
	assert_string_equal(p->gpus[0].type, "k40m");
	assert_string_equal(p->gpus[0].file, "/dev/nvidia0");
	assert_string_equal(p->gpus[1].backend, "OpenCL");
	assert_string_equal(p->gpus[1].file, ""); /* AMD: no File= guessed */
	/* no NVML: NVLinks unknown, so no Links= claimed */
	assert_false(p->layout.has_links);
	assert_false(p->nvlink);
	assert_int_equal(p->layout.nislands, 2);
	assert_int_equal(p->nnics, 1);
	assert_string_equal(p->nics[0].name, "mlx5_0");
	assert_string_equal(p->nics[0].netdev, "ib0");
	for (g = 0; g < 2; g++) {
		assert_int_equal(p->gpus[g].rail, 0);
		assert_int_equal(p->gpus[g].rail_affinity, GP_PROBE_AFF_PIX);
	}
	assert_int_equal(gp__probe_features(p, feat, sizeof(feat)), GP_OK);
	assert_string_equal(feat, "rails1");
	gp__probe_destroy(p);
}

static void test_no_gpu(void **unused)
{
	static const char *const files[] = {
		"96em64t-4n4d3ca2co-pci.xml", /* only a BMC VGA (AMD ES1000) */
		"nvidia-dgx-gb10.xml",        /* no I/O objects at all */
	};
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		gp_probe_t *p = load_or_skip(shared, files[i], "cpu1");
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		check_invariants(p);
		assert_int_equal(p->ngpus, 0);
		assert_non_null(f);
		assert_int_equal(gp__probe_write_conf(p, f, NULL), GP_OK);
		fclose(f);
		assert_non_null(strstr(buf, "no GPU found on cpu1"));
		assert_null(strstr(buf, "Name=gpu"));
		free(buf);
		gp__probe_destroy(p);
	}
}

static void test_switch_gpu_hca(void **unused)
{
	static const struct {
		const char *file;
		double link_mbps;
		int links01, links23;
	} cases[] = {
		/* 100000 and 50000 MB/s: multiples of A100's 25000 -> 4 and 2 */
		{ "switch-gpu-hca.xml", 25000, 4, 2 },
		/* 60000 and 30000: not multiples -> smallest nonzero -> 2 and 1 */
		{ "odd-bandwidth.xml", 30000, 2, 1 },
	};
	size_t i;
	int g;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gp_probe_t *p = load_or_skip(srcdata, cases[i].file, "hgx1");
		char feat[64];

		check_invariants(p);
		assert_int_equal(p->ngpus, 4); /* nvml + cuda per GPU, counted once */
		assert_true(p->link_mbps == cases[i].link_mbps);
		assert_int_equal(p->layout.links[0][1], cases[i].links01);
		assert_int_equal(p->layout.links[2][3], cases[i].links23);
		assert_int_equal(p->layout.links[1][2], 0);
		assert_int_equal(p->layout.nislands, 2);
		assert_int_equal(p->nnics, 2);
		/* each GPU's rail is the HCA behind its own PCIe switch */
		for (g = 0; g < 4; g++) {
			assert_int_equal(p->gpus[g].rail, g / 2);
			assert_int_equal(p->gpus[g].rail_affinity, GP_PROBE_AFF_PIX);
			assert_int_equal(p->gpus[g].numa, g / 2);
			assert_string_equal(p->gpus[g].cores, g < 2 ? "0-3" : "4-7");
		}
		assert_string_equal(p->nics[1].name, "mlx5_1");
		assert_int_equal(p->nics[1].numa, 1);
		assert_int_equal(gp__probe_features(p, feat, sizeof(feat)), GP_OK);
		assert_string_equal(feat, "nvl2,rails2");
		gp__probe_destroy(p);
	}
}

static void test_load_errors(void **unused)
{
	static const struct {
		const char *path; /* relative to srcdata when not absolute */
		const char *node;
		int rc;
		const char *msg;
	} cases[] = {
		{ "/nonexistent/topo.xml", "n1", GP_EIO, "/nonexistent/topo.xml" },
		{ "make-xml.py", "n1", GP_EHWLOC, "hwloc" },
		{ "too-many-gpus.xml", "n1", GP_ELIMIT, "more than 32 GPUs" },
		{ "switch-gpu-hca.xml",
		  "a-node-name-that-is-much-longer-than-sixty-three-characters-allowed", GP_EINVAL,
		  "longer than" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[PATH_MAX * 2];
		gp_error_t err = { "" };
		gp_probe_t *p = (gp_probe_t *)&err; /* must be reset to NULL */

		if (cases[i].path[0] == '/')
			snprintf(path, sizeof(path), "%s", cases[i].path);
		else
			snprintf(path, sizeof(path), "%s/%s", srcdata, cases[i].path);
		assert_int_equal(gp__probe_load(path, cases[i].node, &p, &err), cases[i].rc);
		assert_null(p);
		assert_non_null(strstr(err.text, cases[i].msg));
	}
	assert_int_equal(gp__probe_load(NULL, "n1", NULL, NULL), GP_EINVAL);
	gp__probe_destroy(NULL);
}

/* This machine: whatever it has, the probe works; on a build machine
 * without a GPU it says so. */
static void test_live_machine(void **unused)
{
	gp_error_t err = { "" };
	gp_probe_t *p = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	assert_int_equal(gp__probe_load(NULL, "here", &p, &err), GP_OK);
	check_invariants(p);
	assert_string_equal(p->source, "");
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(gp__probe_write_conf(p, f, &err), GP_OK);
	fclose(f);
	if (p->ngpus == 0)
		assert_non_null(strstr(buf, "no GPU found on here"));
	else
		assert_non_null(strstr(buf, "NodeName=here Name=gpu"));
	free(buf);
	gp__probe_destroy(p);
}

static void test_gres_lines(void **unused)
{
	gp_probe_t *p = load_or_skip(srcdata, "switch-gpu-hca.xml", "hgx1");
	char line[512];

	assert_int_equal(gp__probe_gres_body(p, 0, line, sizeof(line)), GP_OK);
	assert_string_equal(line, "Name=gpu Type=a100 File=/dev/nvidia0 Cores=0-3 Links=-1,4,0,0");
	assert_int_equal(gp__probe_gres_body(p, 3, line, sizeof(line)), GP_OK);
	assert_string_equal(line, "Name=gpu Type=a100 File=/dev/nvidia3 Cores=4-7 Links=0,0,2,-1");
	assert_int_equal(gp__probe_gres_body(p, 0, line, 20), GP_ELIMIT);
	assert_int_equal(gp__probe_gres_body(p, 4, line, sizeof(line)), GP_EINVAL);
	assert_int_equal(gp__probe_gres_body(p, -1, line, sizeof(line)), GP_EINVAL);
	gp__probe_destroy(p);
}

static void test_json_roundtrip(void **unused)
{
	/* nvlink-cpu-links-sum.xml: GPU 0 has 127 NVLinks to each package;
	 * its CPU link count stays within the fragment's 0-127 */
	static const char *const files[] = { "switch-gpu-hca.xml", "odd-bandwidth.xml",
		                             "nvlink-cpu-links-sum.xml" };
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		gp_probe_t *p = load_or_skip(srcdata, files[i], "hgx1"), *q = NULL;
		gp_error_t err = { "" };
		char *text = NULL, *again = NULL;
		int g;

		assert_int_equal(gp__probe_to_json(p, &text, &err), GP_OK);
		assert_int_equal(gp__probe_from_json(text, strlen(text), "t.json", &q, &err), GP_OK);
		assert_string_equal(q->node, p->node);
		assert_int_equal(q->ngpus, p->ngpus);
		assert_int_equal(q->nnics, p->nnics);
		assert_int_equal(q->layout.nislands, p->layout.nislands);
		assert_int_equal(q->layout.has_links, p->layout.has_links);
		assert_memory_equal(q->layout.links, p->layout.links, sizeof(p->layout.links));
		assert_memory_equal(q->layout.island, p->layout.island, sizeof(p->layout.island));
		for (g = 0; g < p->ngpus; g++) {
			assert_string_equal(q->gpus[g].bus_id, p->gpus[g].bus_id);
			assert_string_equal(q->gpus[g].cores, p->gpus[g].cores);
			assert_int_equal(q->gpus[g].rail, p->gpus[g].rail);
			assert_int_equal(q->gpus[g].rail_affinity, p->gpus[g].rail_affinity);
		}
		if (i == 2)
			assert_int_equal(p->gpus[0].cpu_links, 127);
		/* writing the parsed fragment again gives the same text */
		assert_int_equal(gp__probe_to_json(q, &again, &err), GP_OK);
		assert_string_equal(again, text);
		free(text);
		free(again);
		gp__probe_destroy(p);
		gp__probe_destroy(q);
	}
}

#define FRAG_HEAD "{\"gpuplace_probe\":1,\"node\":\"n1\","
#define GPU0 "{\"bus_id\":\"0000:03:00.0\",\"type\":\"a100\",\"island\":0}"
#define GPU1 "{\"bus_id\":\"0000:04:00.0\",\"type\":\"a100\",\"island\":0}"
#define GPU8 GPU0 "," GPU0 "," GPU0 "," GPU0 "," GPU0 "," GPU0 "," GPU0 "," GPU0

static void test_json_errors(void **unused)
{
	static const struct {
		const char *text;
		int rc;
		const char *msg;
	} cases[] = {
		{ "", GP_EJSON, "unexpected end" },
		{ "{\"gpuplace_probe\":1,", GP_EJSON, "unexpected end" },
		{ "[1,2]", GP_EJSON, "not a JSON object" },
		{ "{\"gpuplace_probe\":2,\"node\":\"n1\",\"gpus\":[],\"nislands\":0,\"nics\":[]}",
		  GP_EJSON, "out of range" },
		{ "{\"gpuplace_probe\":1,\"gpus\":[],\"nislands\":0,\"nics\":[]}", GP_EJSON,
		  "\"node\" missing" },
		{ "{\"gpuplace_probe\":1,\"node\":\"\",\"gpus\":[],\"nislands\":0,\"nics\":[]}",
		  GP_EJSON, "empty" },
		{ "{\"gpuplace_probe\":1,\"node\":7,\"gpus\":[],\"nislands\":0,\"nics\":[]}",
		  GP_EJSON, "wrong type" },
		{ FRAG_HEAD "\"gpus\":{},\"nislands\":0,\"nics\":[]}", GP_EJSON, "wrong type" },
		{ FRAG_HEAD "\"gpus\":[],\"nislands\":0,\"nics\":[]} x", GP_EJSON, "text after" },
		{ FRAG_HEAD "\"gpus\":[" GPU0 "," GPU1 "],\"nislands\":1,\"nics\":[],"
		  "\"links\":[[-1,2],[2]]}", GP_EJSON, "not 2 x 2" },
		{ FRAG_HEAD "\"gpus\":[" GPU0 "," GPU1 "],\"nislands\":1,\"nics\":[],"
		  "\"links\":[[0,2],[2,-1]]}", GP_EJSON, "links[0][0]" },
		{ FRAG_HEAD "\"gpus\":[" GPU0 "," GPU1 "],\"nislands\":1,\"nics\":[],"
		  "\"links\":[[-1,200],[2,-1]]}", GP_EJSON, "links[0][1]" },
		{ FRAG_HEAD "\"gpus\":[" GPU0 "," GPU1 "],\"nislands\":1,\"nics\":[],"
		  "\"links\":[[-1,\"2\"],[2,-1]]}", GP_EJSON, "not an integer" },
		{ FRAG_HEAD "\"gpus\":[{\"bus_id\":\"x\",\"type\":\"a100\",\"island\":1}],"
		  "\"nislands\":1,\"nics\":[]}", GP_EJSON, "\"island\"" },
		{ FRAG_HEAD "\"gpus\":[{\"bus_id\":\"x\",\"type\":\"a 100\",\"island\":0}],"
		  "\"nislands\":1,\"nics\":[]}", GP_EJSON, "not usable in gres.conf" },
		{ FRAG_HEAD "\"gpus\":[{\"bus_id\":\"x\",\"type\":\"a100\",\"island\":0,"
		  "\"cores\":\"0-3;rm\"}],\"nislands\":1,\"nics\":[]}", GP_EJSON,
		  "not usable in gres.conf" },
		{ FRAG_HEAD "\"gpus\":[{\"bus_id\":\"x\",\"type\":\"a100\",\"island\":0,\"rail\":0}],"
		  "\"nislands\":1,\"nics\":[]}", GP_EJSON, "rail 0 but 0 NICs" },
		{ FRAG_HEAD "\"gpus\":[{\"bus_id\":\"0000:03:00.0000000000\",\"type\":\"a100\","
		  "\"island\":0}],\"nislands\":1,\"nics\":[]}", GP_ELIMIT, "longer than" },
		{ FRAG_HEAD "\"gpus\":[" GPU0 "],\"nislands\":1}", GP_EJSON, "\"nics\" missing" },
		{ FRAG_HEAD "\"gpus\":[" GPU8 "," GPU8 "," GPU8 "," GPU8 "," GPU0
		  "],\"nislands\":1,\"nics\":[]}", GP_ELIMIT, "more than 32" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gp_error_t err = { "" };
		gp_probe_t *q = (gp_probe_t *)&err;
		int rc = gp__probe_from_json(cases[i].text, strlen(cases[i].text), "f.json", &q,
		                             &err);

		if (rc != cases[i].rc || !strstr(err.text, cases[i].msg))
			print_message("# case %zu: rc %d, '%s'\n", i, rc, err.text);
		assert_int_equal(rc, cases[i].rc);
		assert_null(q);
		assert_non_null(strstr(err.text, "f.json"));
		assert_non_null(strstr(err.text, cases[i].msg));
	}
}

/* Count lines of buf that start with prefix. */
static int count_lines(const char *buf, const char *prefix)
{
	const char *s = buf;
	int n = 0;

	while (s && *s) {
		if (!strncmp(s, prefix, strlen(prefix)))
			n++;
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	return n;
}

static void test_merge(void **unused)
{
	static const char *const names[] = { "hgx03", "hgx01", "hgx02", "p8n1", "hgx10" };
	gp_probe_t *p[5], *last;
	gp_error_t err = { "" };
	char *buf = NULL, line[512], want[600];
	size_t len = 0, i;
	FILE *f;

	for (i = 0; i < 5; i++) {
		/* four identical nodes and one different: round-trip through JSON
		 * as the command does */
		gp_probe_t *t = load_or_skip(srcdata, i == 3 ? "odd-bandwidth.xml" : "switch-gpu-hca.xml",
		                             names[i]);
		char *text = NULL;

		assert_int_equal(gp__probe_to_json(t, &text, &err), GP_OK);
		assert_int_equal(gp__probe_from_json(text, strlen(text), names[i], &p[i], &err), GP_OK);
		free(text);
		gp__probe_destroy(t);
	}
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(gp__probe_merge(p, 5, f, &err), GP_OK);
	fclose(f);
	/* one hostlist for the identical nodes, one per GPU line */
	assert_int_equal(gp__probe_gres_body(p[0], 1, line, sizeof(line)), GP_OK);
	snprintf(want, sizeof(want), "NodeName=hgx[01-03,10] %s\n", line);
	assert_non_null(strstr(buf, want));
	assert_int_equal(count_lines(buf, "NodeName=hgx[01-03,10] Name=gpu"), 4);
	assert_int_equal(count_lines(buf, "NodeName=p8n1 Name=gpu"), 4);
	assert_int_equal(count_lines(buf, "NodeName=hgx[01-03,10] Rails=2"), 0);
	/* both groups have 2 HCAs: one Rails line for all five nodes */
	assert_int_equal(count_lines(buf, "NodeName=hgx[01-03,10],p8n1 Rails=2"), 1);
	assert_non_null(strstr(buf, "Gres=gpu:a100:4 Features=nvl2,rails2"));

	/* a node given twice is an error that names it */
	last = p[4];
	p[4] = p[1];
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(gp__probe_merge(p, 5, f, &err), GP_EINVAL);
	fclose(f);
	assert_non_null(strstr(err.text, "hgx01"));
	free(buf);
	for (i = 0; i < 4; i++)
		gp__probe_destroy(p[i]);
	gp__probe_destroy(last);
}

static void write_text(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX * 2];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

/* The merged lines are what the project's own loader reads: a conf dir made
 * from them loads, and every node gets the probed Links= matrix, islands and
 * Cores= back. */
static void test_merged_conf_loads(void **unused)
{
	static const char *const names[] = { "gn01", "gn02", "odd1" };
	char dir[] = "/tmp/gp-probe-XXXXXX", path[PATH_MAX * 2];
	gp_probe_t *p[3];
	gp_error_t err = { "" };
	gp_cluster_t *c = NULL;
	char *buf = NULL;
	size_t len = 0, i;
	int g;
	FILE *f;

	for (i = 0; i < 3; i++)
		p[i] = load_or_skip(srcdata, i == 2 ? "odd-bandwidth.xml" : "switch-gpu-hca.xml",
		                    names[i]);
	assert_non_null(mkdtemp(dir));
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(gp__probe_merge(p, 3, f, &err), GP_OK);
	fclose(f);
	/* the merge output is gres.conf lines, then gpuplace.conf lines, both
	 * with comments; give each file all of it minus the other's lines */
	{
		char *gres = strdup(buf), *gpc = strdup(buf), *cut;

		assert_non_null(gres);
		assert_non_null(gpc);
		cut = strstr(gres, "# gpuplace.conf");
		assert_non_null(cut);
		*cut = '\0';
		write_text(dir, "gres.conf", gres);
		cut = strstr(gpc, "# gpuplace.conf");
		memmove(gpc, cut, strlen(cut) + 1);
		cut = strstr(gpc, "# slurm.conf");
		assert_non_null(cut);
		*cut = '\0';
		write_text(dir, "gpuplace.conf", "GpuProfile=a100 TFLOPS=312 HBMGBps=1555 "
		           "NVLinkGBps=300 TDPWatts=400 IdleWatts=50\n");
		snprintf(path, sizeof(path), "%s/gpuplace.conf", dir);
		f = fopen(path, "a");
		assert_non_null(f);
		fputs(gpc, f);
		fclose(f);
		free(gres);
		free(gpc);
	}
	write_text(dir, "slurm.conf", "ClusterName=t\nNodeName=gn[01-02],odd1 CPUs=8 "
	           "Gres=gpu:a100:4\nPartitionName=all Nodes=ALL Default=YES\n");
	if (gp_cluster_load_conf_dir(dir, &c, &err))
		print_message("# %s\n%s", err.text, buf);
	assert_non_null(c);
	assert_int_equal(c->nnodes, 3);
	for (i = 0; i < 3; i++) {
		const gp_node_t *n = &c->nodes[gp__node_find(c, names[i])];
		const gp_gres_layout_t *L;

		assert_true(n->layout >= 0);
		L = &c->layouts[n->layout];
		assert_int_equal(L->ngpus, 4);
		assert_true(L->has_links);
		assert_memory_equal(L->links, p[i]->layout.links, sizeof(L->links));
		assert_int_equal(L->nislands, p[i]->layout.nislands);
		assert_int_equal(n->rails, p[i]->nnics);
		for (g = 0; g < 4; g++) {
			assert_int_equal(L->island[g], p[i]->layout.island[g]);
			assert_string_equal(L->cores[g], p[i]->gpus[g].cores);
		}
	}
	gp_cluster_destroy(c);
	free(buf);
	for (i = 0; i < 3; i++)
		gp__probe_destroy(p[i]);
	for (i = 0; i < 3; i++) {
		static const char *const files[] = { "gres.conf", "gpuplace.conf", "slurm.conf" };

		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		assert_int_equal(unlink(path), 0);
	}
	assert_int_equal(rmdir(dir), 0);
}

static void test_gpu_type(void **unused)
{
	static const struct {
		const char *model, *type;
	} cases[] = {
		{ "Tesla V100-SXM3-32GB-H", "v100" },
		{ "Tesla P100-SXM2-16GB", "p100" },
		{ "NVIDIA H100 80GB HBM3", "h100" },
		{ "NVIDIA A100-SXM4-80GB", "a100" },
		{ "NVIDIA GeForce RTX 4090", "rtx" },
		{ "Tesla K40m", "k40m" },
		{ "AMD Instinct MI250X", "mi250x" },
		{ "GA100 [A100 SXM4 80GB]", "a100" },
		{ "GV100GL [Tesla V100 SXM2 16GB]", "v100" },
		{ "Tesla M2075 Dual-Slot Computing Processor Module", "m2075" },
		{ "NVIDIA Tesla", "" },
		{ "", "" },
		{ "[]", "" },
		{ "a-very-long-model-name-without-spaces", "a" },
	};
	char out[GP_NAME_MAX], tiny[3];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(out, 'x', sizeof(out));
		gp__probe_gpu_type(cases[i].model, out, sizeof(out));
		assert_string_equal(out, cases[i].type);
	}
	gp__probe_gpu_type("Tesla V100-SXM3", tiny, sizeof(tiny)); /* cut, never overrun */
	assert_string_equal(tiny, "v1");
}

/* GPUs through ROCm SMI only, and by PCI class when hwloc has no GPU
 * backend; a BMC's VGA is never a GPU. */
static void test_other_backends(void **unused)
{
	static const struct {
		const char *file, *backend, *type, *file0;
	} cases[] = {
		{ "rsmi-amd.xml", "RSMI", "mi250x", "" },
		{ "pci-class-only.xml", "PCI", "a100", "/dev/nvidia0" },
	};
	size_t i;
	int g;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gp_probe_t *p = load_or_skip(srcdata, cases[i].file, "b1");
		char line[256];

		check_invariants(p);
		assert_int_equal(p->ngpus, 2);
		assert_int_equal(p->nignored, 0);
		for (g = 0; g < 2; g++) {
			assert_string_equal(p->gpus[g].backend, cases[i].backend);
			assert_string_equal(p->gpus[g].type, cases[i].type);
			assert_int_equal(p->gpus[g].rail, 0);
		}
		assert_string_equal(p->gpus[0].file, cases[i].file0);
		/* no NVML: nothing is known about NVLinks, so no Links= */
		assert_false(p->layout.has_links);
		assert_int_equal(p->layout.nislands, 2);
		assert_int_equal(gp__probe_gres_body(p, 1, line, sizeof(line)), GP_OK);
		assert_null(strstr(line, "Links="));
		gp__probe_destroy(p);
	}
}

/* hwloc 3 writes XML format 3.0 (osdev_type a bit mask), which hwloc 2
 * refuses; the probe reads it anyway.  Rewrite a hwloc 2 file into the 3.0
 * format and compare what the probe finds in both. */
static void test_xml_v3(void **unused)
{
	/* hwloc 2 enum -> hwloc 3 bit: GPU, network, OpenFabrics, COPROC */
	static const struct {
		const char *v2, *v3;
	} map[] = {
		{ " osdev_type=\"1\"", " osdev_type=\"4\"" },
		{ " osdev_type=\"2\"", " osdev_type=\"16\"" },
		{ " osdev_type=\"3\"", " osdev_type=\"48\"" },
		{ " osdev_type=\"5\"", " osdev_type=\"12\"" },
	};
	char path[PATH_MAX * 2], tmp[] = "/tmp/gp-probe-v3-XXXXXX", line[4096];
	gp_probe_t *a = load_or_skip(srcdata, "switch-gpu-hca.xml", "v"), *b = NULL;
	gp_error_t err = { "" };
	FILE *in, *out;
	int fd, g;
	size_t i;

	snprintf(path, sizeof(path), "%s/switch-gpu-hca.xml", srcdata);
	in = fopen(path, "r");
	assert_non_null(in);
	fd = mkstemp(tmp);
	assert_true(fd >= 0);
	out = fdopen(fd, "w");
	assert_non_null(out);
	while (fgets(line, sizeof(line), in)) {
		char *v = strstr(line, "<topology version=\"2.0\">");

		if (v)
			v[strlen("<topology version=\"")] = '3';
		for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
			char *m = strstr(line, map[i].v2);

			if (m) {
				fprintf(out, "%.*s%s%s", (int)(m - line), line, map[i].v3,
				        m + strlen(map[i].v2));
				break;
			}
		}
		if (i == sizeof(map) / sizeof(map[0]))
			fputs(line, out);
	}
	fclose(in);
	assert_int_equal(fclose(out), 0);
	assert_int_equal(gp__probe_load(tmp, "v", &b, &err), GP_OK);
	assert_int_equal(b->ngpus, a->ngpus);
	assert_int_equal(b->nnics, a->nnics);
	assert_memory_equal(b->layout.links, a->layout.links, sizeof(a->layout.links));
	for (g = 0; g < a->ngpus; g++) {
		assert_string_equal(b->gpus[g].backend, a->gpus[g].backend);
		assert_int_equal(b->gpus[g].rail, a->gpus[g].rail);
	}
	assert_string_equal(b->nics[0].netdev, a->nics[0].netdev);
	assert_int_equal(unlink(tmp), 0);
	gp__probe_destroy(a);
	gp__probe_destroy(b);
}

/* NVML without a matrix: PCIe GPUs have no NVLink (Links= of zeros), but
 * GPUs that only exist with NVLink leave the links unknown (no Links=). */
static void test_nvml_without_matrix(void **unused)
{
	static const struct {
		const char *file;
		bool has_links;
	} cases[] = {
		{ "nvml-pcie.xml", true },
		{ "nvml-b200-no-matrix.xml", false },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gp_probe_t *p = load_or_skip(srcdata, cases[i].file, "m1");
		char line[256];

		check_invariants(p);
		assert_int_equal(p->ngpus, 2);
		assert_string_equal(p->gpus[0].backend, "NVML");
		assert_false(p->nvlink);
		assert_int_equal(p->layout.has_links, cases[i].has_links);
		assert_int_equal(p->layout.nislands, 2);
		assert_int_equal(gp__probe_gres_body(p, 0, line, sizeof(line)), GP_OK);
		if (cases[i].has_links)
			assert_non_null(strstr(line, " Links=-1,0"));
		else
			assert_null(strstr(line, "Links="));
		gp__probe_destroy(p);
	}
}

/* Malformed topologies (tests/data/probe/bad-*.xml): one whose NIC bridge
 * has an unreadable bus id is read, GPUs and NIC found, each GPU given a
 * rail (the affinity walk once left the tree and crashed); two that make
 * hwloc 2.9 itself crash are refused with GP_EHWLOC naming the input,
 * from a file and from memory alike. */
static void test_malformed_xml(void **state)
{
	static const char *const crash[] = { "bad-root-cpuset.xml", "bad-numa-nodeset.xml" };
	char path[PATH_MAX * 2], *buf;
	gp_error_t err = { "" };
	gp_probe_t *p = NULL, *q = NULL;
	FILE *f;
	long len;
	size_t i;
	int g;

	(void)state;
	p = load_or_skip(srcdata, "bad-bridge-busid.xml", "bad");
	assert_int_equal(p->ngpus, 2);
	assert_int_equal(p->nnics, 1);
	for (g = 0; g < p->ngpus; g++)
		assert_int_equal(p->gpus[g].rail, 0);
	snprintf(path, sizeof(path), "%s/bad-bridge-busid.xml", srcdata);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	rewind(f);
	buf = malloc((size_t)len);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	/* not NUL-terminated: the loader copies */
	assert_int_equal(gp__probe_load_buffer(buf, (size_t)len, "mem.xml", "bad", &q, &err), GP_OK);
	assert_string_equal(q->source, "mem.xml");
	assert_int_equal(q->ngpus, p->ngpus);
	assert_int_equal(q->nnics, p->nnics);
	free(buf);
	gp__probe_destroy(p);
	gp__probe_destroy(q);
	for (i = 0; i < sizeof(crash) / sizeof(crash[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", srcdata, crash[i]);
		p = (gp_probe_t *)1;
		assert_int_equal(gp__probe_load(path, "bad", &p, &err), GP_EHWLOC);
		assert_null(p);
		assert_non_null(strstr(err.text, path));
		/* hwloc 2.9 (Debian 12) crashes on these; a newer hwloc (Debian
		 * sid's) may end its checker without a signal, or refuse the
		 * file ("hwloc cannot load it: Invalid argument") instead */
		if (!strstr(err.text, "crashed") && !strstr(err.text, "failed reading it") &&
		    !strstr(err.text, "cannot load it"))
			fail_msg("%s", err.text);
	}
}

/* hwloc sizes its root cpuset and nodeset by the os_index of every PU and
 * NUMA node, 2^32 - 1 when it is missing: each of these made hwloc
 * allocate 512 MB (tests/data/probe/make-xml.py).  They are refused before
 * hwloc reads them, naming file, line and the attribute, and the process
 * stays small. */
static void test_bitmap_bloat(void **state)
{
	static const struct {
		const char *file, *line, *says;
	} bad[] = {
		{ "big-pu-no-os-index.xml", ":11:", "object type 'PU' has no os_index" },
		{ "big-numa-os-index.xml", ":57:", "os_index '4294967295' of a 'NUMANode' object" },
		{ "big-pu-attr-form.xml", ":11:", "at 'cpus=2 os_index=\"1\"" },
	};
	char path[PATH_MAX * 2];
	struct rusage before, after;
	gp_error_t err = { "" };
	size_t i;

	(void)state;
	assert_int_equal(getrusage(RUSAGE_SELF, &before), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gp_probe_t *p = (gp_probe_t *)1;
		char where[PATH_MAX * 2 + 8];

		snprintf(path, sizeof(path), "%s/%s", srcdata, bad[i].file);
		assert_int_equal(gp__probe_load(path, "big", &p, &err), GP_EHWLOC);
		assert_null(p);
		snprintf(where, sizeof(where), "%s%s", path, bad[i].line);
		if (!strstr(err.text, where) || !strstr(err.text, bad[i].says))
			fail_msg("%s: %s", bad[i].file, err.text);
	}
	assert_int_equal(getrusage(RUSAGE_SELF, &after), 0);
	/* ru_maxrss in kB: hwloc's bitmap alone would add 524288 */
	if (after.ru_maxrss - before.ru_maxrss > 65536)
		fail_msg("resident size grew by %ld kB", after.ru_maxrss - before.ru_maxrss);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dgx2),
		cmocka_unit_test(test_h200_pci_id),
		cmocka_unit_test(test_pci_names),
		cmocka_unit_test(test_power8),
		cmocka_unit_test(test_wholeio_hca),
		cmocka_unit_test(test_no_gpu),
		cmocka_unit_test(test_switch_gpu_hca),
		cmocka_unit_test(test_other_backends),
		cmocka_unit_test(test_nvml_without_matrix),
		cmocka_unit_test(test_xml_v3),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_live_machine),
		cmocka_unit_test(test_gres_lines),
		cmocka_unit_test(test_gpu_type),
		cmocka_unit_test(test_json_roundtrip),
		cmocka_unit_test(test_json_errors),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_merged_conf_loads),
		cmocka_unit_test(test_malformed_xml),
		cmocka_unit_test(test_bitmap_bloat),
	};

	paths_init();
	return cmocka_run_group_tests_name("probe", tests, NULL, NULL);
}
