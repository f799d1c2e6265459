/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_degrade.c - per-part degradation of the configuration loaders
 * (conf/load_gpuplace.c, conf/load.c, conf/topo_build.c): each kind of
 * problem switches off the part it describes and nothing else.  Every row
 * starts from one good site (8 nodes of 4 H100 under two leaf switches,
 * two racks, a profile, a fabric level, two NVLink domains, a storage
 * target, a telemetry source), changes one thing, and checks that
 *   - the site still loads (gpuplace.conf(5), PROBLEMS),
 *   - one warning names file:line:key, the value and what is lost,
 *   - exactly that part is gone from the model, every other count is kept,
 *   - a job is still placed (gp_place, as the plugin decides).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "model.h"

static char tmpdir[256];

static const char *base_slurm =
	"ClusterName=t\n"
	"NodeName=DEFAULT Gres=gpu:h100:4\n"
	"NodeName=n[1-8]\n"
	"PartitionName=p Nodes=n[1-8] Default=YES\n";
static const char *base_topology =
	"SwitchName=s1 Nodes=n[1-4]\n"
	"SwitchName=s2 Nodes=n[5-8]\n"
	"SwitchName=top Switches=s[1-2]\n";
static const char *base_gres = "NodeName=n[1-8] Name=gpu Type=h100 File=/dev/nvidia[0-3]\n";
/* line numbers matter: the rows name them */
static const char *base_gpuplace =
	"GpuProfile=h100 TFLOPS=989 HBMGBps=3350 NVLinkGBps=450 TDPWatts=700 IdleWatts=70\n" /* 1 */
	"FabricLevel=0 LinkGBps=50\n"                                                        /* 2 */
	"Rack=r1 Nodes=n[1-4] PowerCapKW=40\n"                                               /* 3 */
	"Rack=r2 Nodes=n[5-8] PowerCapKW=40\n"                                               /* 4 */
	"NVLinkDomain=d1 Nodes=n[1-2]\n"                                                     /* 5 */
	"NVLinkDomain=d2 Nodes=n[3-4]\n"                                                     /* 6 */
	"Storage=nvme Scope=node WriteGBps=5\n"                                              /* 7 */
	"Telemetry=pdu Type=redfish URL=http://127.0.0.1:1/x Racks=r1,r2\n"                  /* 8 */
	"PowerMargin=0.1\n";                                                                  /* 9 */

static void write_file(const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "%s/gp-test-degrade-XXXXXX",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	static const char *const names[] = { "slurm.conf", "topology.conf", "gres.conf",
		                             "gpuplace.conf", "topology.yaml" };
	char path[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, names[i]);
		unlink(path);
	}
	return rmdir(tmpdir);
}

/* base_gpuplace with line `line' (1-based) replaced by `text' ("" drops
 * it, keeping the line numbers of the rest) and `extra' appended. */
static void write_gpuplace(int line, const char *text, const char *extra)
{
	char buf[4096];
	const char *p = base_gpuplace;
	size_t n = 0;
	int l;

	for (l = 1; *p; l++) {
		const char *e = strchr(p, '\n');
		size_t len = (size_t)(e - p) + 1;

		if (l == line)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s\n", text);
		else
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%.*s", (int)len, p);
		p = e + 1;
	}
	snprintf(buf + n, sizeof(buf) - n, "%s", extra ? extra : "");
	write_file("gpuplace.conf", buf);
}

static gp_cluster_t *load(const char *slurm)
{
	gp_cluster_t *c = NULL;
	gp_error_t err = { { 0 } };
	int rc;

	write_file("slurm.conf", slurm ? slurm : base_slurm);
	write_file("topology.conf", base_topology);
	write_file("gres.conf", base_gres);
	rc = gp_cluster_load_conf_dir(tmpdir, &c, &err);
	if (rc != GP_OK)
		fail_msg("the site does not load: %s", err.text);
	return c;
}

/* The warning that contains every one of subs (NULL-terminated), or fail. */
static void want_warning(const gp_cluster_t *c, const char *const *subs)
{
	int i, k;

	for (i = 0; i < gp_cluster_warning_count(c); i++) {
		for (k = 0; subs[k] && strstr(gp_cluster_warning(c, i), subs[k]); k++)
			;
		if (!subs[k])
			return;
	}
	for (i = 0; i < gp_cluster_warning_count(c); i++)
		print_message("# warning: %s\n", gp_cluster_warning(c, i));
	fail_msg("no warning with '%s' ... '%s'", subs[0], subs[1] ? subs[1] : "");
}

/* A 2-node, 8-GPU job is still decided, and pinned inside one leaf. */
static void want_placement(const gp_cluster_t *c)
{
	gp_place_request_t req = { .job = "gpus=8,gpus_per_node=4" };
	gp_place_result_t *r = NULL;
	gp_error_t err = { { 0 } };
	const char *nodes;

	if (gp_place(c, NULL, &req, &r, &err) != GP_OK)
		fail_msg("no decision: %s", err.text);
	assert_int_equal(gp_place_result_kind(r), GP_PLACE_PIN);
	nodes = gp_place_result_nodes(r);
	assert_non_null(nodes);
	assert_true(strlen(nodes) > 0);
	gp_place_result_destroy(r);
}

/* What the model holds after a row's load; the good site holds
 * { 1, 2, 2, 1, 1 }, and a row says what it loses. */
typedef struct counts {
	int32_t profiles, racks, nvl, storage, telemetry;
} counts_t;

typedef struct row {
	const char *what;
	int line;               /* line of base_gpuplace replaced, 0 = none */
	const char *text;       /* its replacement */
	const char *extra;      /* lines appended */
	const char *warn[4];    /* substrings of one warning */
	counts_t want;          /* the model's counts after the load */
} row_t;

static const row_t rows[] = {
	{ "rack cap not a number", 4, "Rack=r2 Nodes=n[5-8] PowerCapKW=abc", NULL,
	  { "gpuplace.conf:4: PowerCapKW: 'abc' is not a number",
	    "rack 'r2' not modelled: power not considered on its nodes (n[5-8])" },
	  { 1, 1, 2, 1, 1 } },
	{ "rack naming a node slurm.conf does not have", 4, "Rack=r2 Nodes=n[5-9] PowerCapKW=40",
	  NULL,
	  { "gpuplace.conf:4: Nodes: unknown node 'n9'", "rack 'r2' not modelled" },
	  { 1, 1, 2, 1, 1 } },
	{ "node in two racks", 4, "Rack=r2 Nodes=n[4-8] PowerCapKW=40", NULL,
	  { "gpuplace.conf:4: Nodes: node 'n4' is already in rack 'r1'", "rack 'r2' not modelled" },
	  { 1, 1, 2, 1, 1 } },
	{ "rack cap above any rack (the first rack: the second moves up)", 3,
	  "Rack=r1 Nodes=n[1-4] PowerCapKW=4000", NULL,
	  { "gpuplace.conf:3: PowerCapKW: 4000 kW for rack 'r1' is above 1000 kW",
	    "rack 'r1' not modelled: power not considered on its 4 nodes" },
	  { 1, 1, 2, 1, 1 } },
	{ "rack cooling below its idle draw", 4,
	  "Rack=r2 Nodes=n[5-8] PowerCapKW=40 CoolingKW=0.5", NULL,
	  { "gpuplace.conf:4: CoolingKW: 0.5 kW for rack 'r2' is below its idle draw",
	    "rack 'r2' not modelled" },
	  { 1, 1, 2, 1, 1 } },
	{ "GPU profile with IdleWatts above TDPWatts", 0, NULL,
	  "GpuProfile=b200 TFLOPS=2250 HBMGBps=8000 NVLinkGBps=900 TDPWatts=1000 IdleWatts=2000\n",
	  { "gpuplace.conf:10: IdleWatts: '2000' is above TDPWatts '1000'",
	    "GPU profile 'b200' not used" },
	  { 1, 2, 2, 1, 1 } },
	{ "NVLink domain bandwidth not a number", 6, "NVLinkDomain=d2 Nodes=n[3-4] GBps=fast", NULL,
	  { "gpuplace.conf:6: GBps: 'fast' is not a number",
	    "NVLink domain 'd2' not modelled: its nodes (n[3-4]) share no NVLink across nodes" },
	  { 1, 2, 1, 1, 1 } },
	{ "node in two NVLink domains", 6, "NVLinkDomain=d2 Nodes=n[2-4]", NULL,
	  { "gpuplace.conf:6: Nodes: node 'n2' is already in NVLink domain 'd1'",
	    "NVLink domain 'd2' not modelled" },
	  { 1, 2, 1, 1, 1 } },
	{ "storage scope", 7, "Storage=nvme Scope=galaxy WriteGBps=5", NULL,
	  { "gpuplace.conf:7: Scope: 'galaxy' is not node, rack or cluster",
	    "storage 'nvme' not modelled: no checkpoint is planned to it" },
	  { 1, 2, 2, 0, 1 } },
	{ "a second rack of the same name", 0, NULL, "Rack=r1 Nodes=n[5-6] PowerCapKW=40\n",
	  { "gpuplace.conf:10: Rack: duplicate name 'r1' (first at ",
	    "line ignored: the first 'r1' is used" },
	  { 1, 2, 2, 1, 1 } },
	{ "telemetry time-out longer than its interval", 8,
	  "Telemetry=pdu Type=redfish URL=http://127.0.0.1:1/x Racks=r1,r2 Interval=5 Timeout=10",
	  NULL,
	  { "gpuplace.conf:8: Timeout: 10 s is longer than Interval=5 s",
	    "telemetry 'pdu' not used: the racks it measures keep the draw estimated" },
	  { 1, 2, 2, 1, 0 } },
	{ "telemetry naming an unknown rack", 8,
	  "Telemetry=pdu Type=redfish URL=http://127.0.0.1:1/x Racks=r1,r9", NULL,
	  { "gpuplace.conf:8: Racks: unknown rack 'r9'; telemetry 'pdu' is not read for it" },
	  { 1, 2, 2, 1, 1 } },
	{ "fabric level not a number", 2, "FabricLevel=0 LinkGBps=x", NULL,
	  { "gpuplace.conf:2: LinkGBps: 'x' is not a number", "line ignored: the level keeps" },
	  { 1, 2, 2, 1, 1 } },
	{ "NodeName line naming nodes slurm.conf does not have", 0, NULL,
	  "NodeName=n[7-10] Rails=4\n",
	  { "gpuplace.conf:10: NodeName: 2 nodes not in slurm.conf (first 'n9') ignored" },
	  { 1, 2, 2, 1, 1 } },
	{ "site key out of range", 9, "PowerMargin=2 NodeFailureRate=3", NULL,
	  { "gpuplace.conf:9: PowerMargin: '2' is out of range [0, 0.99]",
	    "its default applies" },
	  { 1, 2, 2, 1, 1 } },
	{ "unknown key", 0, NULL, "Colour=red\n",
	  { "gpuplace.conf:10: Colour: unknown key; ignored" },
	  { 1, 2, 2, 1, 1 } },
	{ "unknown DefaultGpuProfile", 0, NULL, "DefaultGpuProfile=b300\n",
	  { "gpuplace.conf:10: DefaultGpuProfile: unknown GPU profile 'b300'; ignored" },
	  { 1, 2, 2, 1, 1 } },
};

static void test_rows(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const row_t *r = &rows[i];
		gp_cluster_t *c;

		print_message("# %s\n", r->what);
		write_gpuplace(r->line, r->text, r->extra);
		c = load(NULL);
		want_warning(c, r->warn);
		/* the rest of the model is all there */
		assert_int_equal(c->nnodes, 8);
		assert_int_equal(gp_cluster_gpu_count(c), 32);
		assert_int_equal(c->nswitches, 3);
		assert_int_equal(c->nparts, 1);
		assert_int_equal(c->nprofiles, r->want.profiles);
		assert_int_equal(c->nracks, r->want.racks);
		assert_int_equal(c->nnvl, r->want.nvl);
		assert_int_equal(c->nstorage, r->want.storage);
		assert_int_equal(c->ntelemetry, r->want.telemetry);
		want_placement(c);
		gp_cluster_destroy(c);
	}
}

/* What a dropped part leaves behind, for the rows where it matters. */
static void test_dropped_parts(void **state)
{
	static const char *const w_rack[] = { "rack 'r1' not modelled", NULL };
	static const char *const w_nvl[] = { "NVLink domain 'd2' not modelled", NULL };
	static const char *const w_site[] = { "PowerMargin: '2'", NULL };
	gp_cluster_t *c;
	int32_t i;

	(void)state;
	/* the first rack dropped after the reading (its cap): its nodes have
	 * no rack, the second rack is index 0 now for its nodes and for the
	 * telemetry source that measures it */
	write_gpuplace(3, "Rack=r1 Nodes=n[1-4] PowerCapKW=4000", NULL);
	c = load(NULL);
	want_warning(c, w_rack);
	assert_int_equal(c->nracks, 1);
	assert_string_equal(c->racks[0].name, "r2");
	for (i = 0; i < 8; i++)
		assert_int_equal(c->nodes[i].rack, i < 4 ? -1 : 0);
	assert_int_equal(c->telemetry[0].nracks, 1);
	assert_int_equal(c->telemetry[0].racks[0], 0);
	gp_cluster_destroy(c);

	/* a domain dropped while its line was read: no node keeps it, the
	 * other domain is whole */
	write_gpuplace(6, "NVLinkDomain=d2 Nodes=n[3-4] GBps=fast", NULL);
	c = load(NULL);
	want_warning(c, w_nvl);
	for (i = 0; i < 8; i++)
		assert_int_equal(c->nodes[i].nvl_domain, i < 2 ? 0 : -1);
	gp_cluster_destroy(c);

	/* a duplicate rack line: the first rack and its telemetry stay */
	write_gpuplace(0, NULL, "Rack=r1 Nodes=n[5-6] PowerCapKW=40\n");
	c = load(NULL);
	assert_int_equal(c->nracks, 2);
	assert_int_equal(c->telemetry[0].nracks, 2);
	for (i = 0; i < 8; i++)
		assert_int_equal(c->nodes[i].rack, i < 4 ? 0 : 1);
	gp_cluster_destroy(c);

	/* a node of two racks: the first rack keeps it, the second is gone */
	write_gpuplace(4, "Rack=r2 Nodes=n[4-8] PowerCapKW=40", NULL);
	c = load(NULL);
	for (i = 0; i < 8; i++)
		assert_int_equal(c->nodes[i].rack, i < 4 ? 0 : -1);
	gp_cluster_destroy(c);

	/* a bad site key keeps its default, the line's other key is read */
	write_gpuplace(9, "PowerMargin=2 NodeFailureRate=3", NULL);
	c = load(NULL);
	want_warning(c, w_site);
	assert_true(c->site.node_failures_per_1k_days == 3.0);
	gp_cluster_destroy(c);

	/* a dropped line's name may be given again: that line is the object */
	write_gpuplace(7, "Storage=nvme Scope=galaxy WriteGBps=5", "Storage=nvme Scope=node WriteGBps=7\n");
	c = load(NULL);
	assert_int_equal(c->nstorage, 1);
	assert_true(c->storage[0].write_gbps == 7.0);
	gp_cluster_destroy(c);
}

/* Every problem of the file in one pass: one warning each, in file order,
 * and the parts without a problem all modelled. */
static void test_one_pass(void **state)
{
	static const char *const lines[] = { "gpuplace.conf:3: PowerCapKW", "gpuplace.conf:6: GBps",
		                             "gpuplace.conf:7: Scope", "gpuplace.conf:10: Colour",
		                             "gpuplace.conf:11: IdleWatts" };
	gp_cluster_t *c;
	size_t k;
	int i, at = -1;

	(void)state;
	write_gpuplace(0, NULL, NULL);
	{
		char text[2048];

		snprintf(text, sizeof(text),
		         "GpuProfile=h100 TFLOPS=989 HBMGBps=3350 NVLinkGBps=450 TDPWatts=700 IdleWatts=70\n"
		         "FabricLevel=0 LinkGBps=50\n"
		         "Rack=r1 Nodes=n[1-4] PowerCapKW=lots\n"
		         "Rack=r2 Nodes=n[5-8] PowerCapKW=40\n"
		         "NVLinkDomain=d1 Nodes=n[1-2]\n"
		         "NVLinkDomain=d2 Nodes=n[3-4] GBps=fast\n"
		         "Storage=nvme Scope=galaxy WriteGBps=5\n"
		         "Telemetry=pdu Type=redfish URL=http://127.0.0.1:1/x Racks=r1,r2\n"
		         "PowerMargin=0.1\n"
		         "Colour=red\n"
		         "GpuProfile=b200 TFLOPS=1 HBMGBps=1 NVLinkGBps=1 TDPWatts=1 IdleWatts=5\n");
		write_file("gpuplace.conf", text);
	}
	c = load(NULL);
	for (k = 0; k < sizeof(lines) / sizeof(lines[0]); k++) {
		for (i = at + 1; i < gp_cluster_warning_count(c); i++)
			if (strstr(gp_cluster_warning(c, i), lines[k]))
				break;
		if (i == gp_cluster_warning_count(c)) {
			for (i = 0; i < gp_cluster_warning_count(c); i++)
				print_message("# warning: %s\n", gp_cluster_warning(c, i));
			fail_msg("'%s' not warned (after warning %d)", lines[k], at);
		}
		at = i;
	}
	assert_int_equal(c->nracks, 1);
	assert_int_equal(c->nnvl, 1);
	assert_int_equal(c->nstorage, 0);
	assert_int_equal(c->ntelemetry, 1);
	assert_int_equal(c->nprofiles, 1);
	/* the telemetry line named r1, whose line was dropped: not a second
	 * problem, and it measures r2 only */
	assert_int_equal(c->telemetry[0].nracks, 1);
	want_placement(c);
	gp_cluster_destroy(c);
}

/* A partition bound to a flat topology of topology.yaml is left to Slurm,
 * with the reason; the other partition is modelled as before. */
static void test_flat_partition(void **state)
{
	static const char *const w[] = { "slurm.conf:5: Topology: partition 'eth': topology 'plain' "
		                         "is flat", "gpuplace passes its jobs unchanged", NULL };
	gp_cluster_t *c;
	char path[512];

	(void)state;
	write_gpuplace(0, NULL, NULL);
	write_file("topology.yaml",
	           "- topology: fabric\n  cluster_default: true\n  tree:\n    switches:\n"
	           "      - switch: s1\n        nodes: n[1-4]\n"
	           "      - switch: s2\n        nodes: n[5-8]\n"
	           "      - switch: top\n        children: s[1-2]\n"
	           "- topology: plain\n  flat: true\n");
	c = load("ClusterName=t\nNodeName=DEFAULT Gres=gpu:h100:4\nNodeName=n[1-8]\n"
	         "PartitionName=p Nodes=n[1-6] Default=YES Topology=fabric\n"
	         "PartitionName=eth Nodes=n[7-8] Topology=plain\n");
	snprintf(path, sizeof(path), "%s/topology.yaml", tmpdir);
	unlink(path);
	want_warning(c, w);
	assert_int_equal(c->nparts, 2);
	assert_null(c->parts[0].slurm_only);
	assert_non_null(c->parts[1].slurm_only);
	assert_string_equal(c->parts[1].slurm_only,
	                    "partition 'eth': topology 'plain' is flat, placed by Slurm");
	assert_int_equal(c->parts[1].nnodes, 2);
	want_placement(c);
	gp_cluster_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_dropped_parts),
		cmocka_unit_test(test_one_pass),
		cmocka_unit_test(test_flat_partition),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
