/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_emit.c - `gpuplace conf`: the slurm.conf node lines, topology.conf and
 * gres.conf written from a model load back into the same model, now with
 * the topology-domain features on every node; feature names are sanitised.
 */
#include "config.h"

#include <dirent.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <cmocka.h>

#include "slurm_emit.h"

static const char *srcdir(void)
{
	const char *s = getenv("GP_TOP_SRCDIR");

	return s ? s : ".";
}

static void copy_file(const char *from, const char *to, bool drop_nodes)
{
	FILE *in = fopen(from, "r"), *out = fopen(to, "w");
	char line[8192];
	bool dropping = false;

	assert_non_null(in);
	assert_non_null(out);
	while (fgets(line, sizeof(line), in)) {
		const char *p = line + strspn(line, " \t");
		size_t n = strlen(line);
		bool continued = n >= 2 && line[n - 2] == '\\' && line[n - 1] == '\n';

		/* a NodeName line and the lines that continue it */
		if (dropping || (drop_nodes && !strncasecmp(p, "NodeName=", 9))) {
			dropping = continued;
			continue;
		}
		fputs(line, out);
	}
	fclose(in);
	fclose(out);
}

static void emit_to(const gp_cluster_t *c, const char *dir, const char *path, const char *mode,
                    int (*fn)(const gp_cluster_t *, const char *, FILE *, gp_error_t *))
{
	FILE *f = fopen(path, mode);
	gp_error_t err;

	assert_non_null(f);
	if (fn(c, dir, f, &err))
		fail_msg("%s: %s", path, err.text);
	fclose(f);
}

/* Remove dir and the files in it: leave nothing behind. */
static void remove_dir(const char *dir)
{
	char path[8192];
	struct dirent *de;
	DIR *d;

	assert_non_null(d = opendir(dir));
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

static int emit_topology(const gp_cluster_t *c, const char *dir, FILE *f, gp_error_t *err)
{
	return gp__emit_topology(c, GP_TOPO_AUTO, f, err);
}

static int emit_gres(const gp_cluster_t *c, const char *dir, FILE *f, gp_error_t *err)
{
	return gp__emit_gres(c, f, err);
}

static bool has_feature(const char *list, const char *feat)
{
	size_t n = strlen(feat);
	const char *p = list;

	while (p && (p = strstr(p, feat))) {
		if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return true;
		p += n;
	}
	return false;
}

static void roundtrip(const char *example)
{
	char src[4096], tmp[] = "/tmp/gp-emit-XXXXXX", a[8192], b[8192];
	gp_cluster_t *c1, *c2;
	struct dirent *de;
	gp_error_t err;
	DIR *d;
	int32_t i, g, h;

	snprintf(src, sizeof(src), "%s/etc/%s", srcdir(), example);
	if (gp_cluster_load_conf_dir(src, &c1, &err))
		fail_msg("%s: %s", src, err.text);
	assert_non_null(mkdtemp(tmp));
	/* every file as it is, but the three that are written from the model */
	assert_non_null(d = opendir(src));
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "topology.conf") ||
		    !strcmp(de->d_name, "gres.conf"))
			continue;
		snprintf(a, sizeof(a), "%s/%s", src, de->d_name);
		snprintf(b, sizeof(b), "%s/%s", tmp, de->d_name);
		copy_file(a, b, !strcmp(de->d_name, "slurm.conf"));
	}
	closedir(d);
	snprintf(b, sizeof(b), "%s/slurm.conf", tmp);
	emit_to(c1, src, b, "a", gp__emit_slurm_nodes);
	snprintf(b, sizeof(b), "%s/topology.conf", tmp);
	emit_to(c1, src, b, "w", emit_topology);
	snprintf(b, sizeof(b), "%s/gres.conf", tmp);
	emit_to(c1, src, b, "w", emit_gres);

	if (gp_cluster_load_conf_dir(tmp, &c2, &err))
		fail_msg("%s written from %s does not load: %s", tmp, example, err.text);
	assert_int_equal(c2->nnodes, c1->nnodes);
	assert_int_equal(c2->nswitches, c1->nswitches);
	assert_int_equal(c2->nlevels, c1->nlevels);
	for (i = 0; i < c1->nnodes; i++) {
		const gp_node_t *n1 = &c1->nodes[i], *n2 = &c2->nodes[i];
		char dom[4096], *tok, *save = NULL;

		assert_string_equal(n2->name, n1->name);
		assert_int_equal(n2->ngpus, n1->ngpus);
		assert_int_equal(n2->weight, n1->weight);
		assert_int_equal(n2->cpus, n1->cpus);
		if (n1->profile >= 0)
			assert_string_equal(c2->profiles[n2->profile].name, c1->profiles[n1->profile].name);
		if (n1->leaf >= 0)
			assert_string_equal(c2->switches[n2->leaf].name, c1->switches[n1->leaf].name);
		assert_int_equal(n2->rack, n1->rack);
		assert_int_equal(n2->nvl_domain, n1->nvl_domain);
		if (n1->layout >= 0) {
			const gp_gres_layout_t *l1 = &c1->layouts[n1->layout], *l2 = &c2->layouts[n2->layout];

			assert_int_equal(l2->nislands, l1->nislands);
			assert_int_equal(l2->has_links, l1->has_links);
			for (g = 0; g < n1->ngpus; g++) {
				assert_string_equal(l2->cores[g], l1->cores[g]);
				for (h = 0; h < n1->ngpus; h++)
					assert_int_equal(l2->links[g][h], l1->links[g][h]);
			}
		}
		/* the original features survive, the domain features are added */
		if (n1->features) {
			snprintf(dom, sizeof(dom), "%s", n1->features);
			for (tok = strtok_r(dom, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
				assert_true(has_feature(n2->features, tok));
		}
		assert_int_equal(gp__node_domain_features(c1, i, dom, sizeof(dom)), GP_OK);
		for (tok = strtok_r(dom, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if (!has_feature(n2->features, tok))
				fail_msg("%s: node %s lacks %s in '%s'", example, n2->name, tok, n2->features);
	}
	gp_cluster_destroy(c1);
	gp_cluster_destroy(c2);
	remove_dir(tmp);
}

/* The NodeName lines of c as gp__emit_slurm_nodes writes them from dir,
 * the comment lines left out (they name dir). */
static char *nodes_text(const gp_cluster_t *c, const char *dir)
{
	char *buf = NULL, *out, line[8192];
	size_t len = 0, used = 0;
	gp_error_t err;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (gp__emit_slurm_nodes(c, dir, f, &err))
		fail_msg("%s: %s", dir, err.text);
	fclose(f);
	out = calloc(len + 1, 1);
	assert_non_null(out);
	f = fmemopen(buf, len, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (line[0] != '#') {
			memcpy(out + used, line, strlen(line));
			used += strlen(line);
		}
	fclose(f);
	free(buf);
	return out;
}

/* `gpuplace conf --what nodes` on a slurm.conf whose nodes carry gpuplace's
 * domain features already (the examples' do) writes each once, from the
 * model: a node's old ones (a leaf or rack it has left) go, the site's own
 * stay; and run again on its own output it writes the same lines. */
static void test_nodes_emit_idempotent(void **unused)
{
	char src[4096], tmp[] = "/tmp/gp-emit-XXXXXX", a[8192], b[8192], dom[1024], *t1, *t2;
	char want[2048];
	gp_cluster_t *c1, *c2;
	struct dirent *de;
	gp_error_t err;
	FILE *f;
	DIR *d;

	snprintf(src, sizeof(src), "%s/etc/superpod-h100", srcdir());
	if (gp_cluster_load_conf_dir(src, &c1, &err))
		fail_msg("%s: %s", src, err.text);
	assert_non_null(c1->nodes[0].features);
	assert_non_null(strstr(c1->nodes[0].features, "gpsw_"));
	/* the first node: a site feature, a leaf and a rack it has left, its
	 * own domain features again, another site feature */
	assert_int_equal(gp__node_domain_features(c1, 0, dom, sizeof(dom)), GP_OK);
	free(c1->nodes[0].features);
	snprintf(want, sizeof(want), "a100,gpsw_old,gprack_old,%s,ib", dom);
	assert_non_null(c1->nodes[0].features = strdup(want));
	t1 = nodes_text(c1, src);
	snprintf(want, sizeof(want), "NodeName=%s ", c1->nodes[0].name);
	{
		const char *l = strstr(t1, want), *e;
		char feats[2048];

		if (!l) {
			/* the first node opens a range */
			snprintf(want, sizeof(want), "NodeName=%.*s[", 3, c1->nodes[0].name);
			l = strstr(t1, want);
		}
		assert_non_null(l);
		l = strstr(l, " Features=");
		assert_non_null(l);
		l += 10;
		e = strchr(l, '\n');
		snprintf(feats, sizeof(feats), "%.*s", (int)(e - l), l);
		snprintf(want, sizeof(want), "a100,ib,%s", dom);
		assert_string_equal(feats, want);
	}
	/* written into slurm.conf, loaded, and written again: the same */
	free(c1->nodes[0].features);
	assert_non_null(c1->nodes[0].features = strdup("a100,gpsw_old,ib"));
	free(t1);
	t1 = nodes_text(c1, src);
	assert_non_null(mkdtemp(tmp));
	assert_non_null(d = opendir(src));
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(a, sizeof(a), "%s/%s", src, de->d_name);
		snprintf(b, sizeof(b), "%s/%s", tmp, de->d_name);
		copy_file(a, b, !strcmp(de->d_name, "slurm.conf"));
	}
	closedir(d);
	snprintf(b, sizeof(b), "%s/slurm.conf", tmp);
	assert_non_null(f = fopen(b, "a"));
	fputs(t1, f);
	fclose(f);
	if (gp_cluster_load_conf_dir(tmp, &c2, &err))
		fail_msg("%s: %s", tmp, err.text);
	t2 = nodes_text(c2, tmp);
	assert_string_equal(t2, t1);
	assert_null(strstr(t2, "gpsw_old"));
	free(t1);
	free(t2);
	gp_cluster_destroy(c1);
	gp_cluster_destroy(c2);
	remove_dir(tmp);
}

static void test_roundtrip_superpod(void **unused) { roundtrip("superpod-h100"); }
static void test_roundtrip_nvl72(void **unused) { roundtrip("nvl72-gb200"); }
static void test_roundtrip_mixed(void **unused) { roundtrip("mixed-pcie"); }

/* ---- topology/block and topology.yaml written, then read back ------------- */

/* Copy dir src to a new temporary directory *tmp, leaving out
 * topology.conf and the NVLinkDomain lines of gpuplace.conf, which then
 * says BlockNVLinkDomains=yes (the blocks written are those domains; the
 * rich example's GPUs are not GB200, so blocks are no NVLink domains
 * otherwise); no_tree: also the FabricLevel lines above 0 (a tree the
 * blocks do not carry). */
static void copy_for_topology(const char *src, char *tmp, bool no_tree)
{
	char a[8192], b[8192], line[8192];
	struct dirent *de;
	DIR *d;

	assert_non_null(mkdtemp(tmp));
	assert_non_null(d = opendir(src));
	while ((de = readdir(d))) {
		FILE *in, *out;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "topology.conf"))
			continue;
		snprintf(a, sizeof(a), "%s/%s", src, de->d_name);
		snprintf(b, sizeof(b), "%s/%s", tmp, de->d_name);
		assert_non_null(in = fopen(a, "r"));
		assert_non_null(out = fopen(b, "w"));
		while (fgets(line, sizeof(line), in))
			if (strncasecmp(line, "NVLinkDomain=", 13) &&
			    !(no_tree && !strncasecmp(line, "FabricLevel=", 12) && line[12] != '0'))
				fputs(line, out);
		if (!strcmp(de->d_name, "gpuplace.conf"))
			fputs("BlockNVLinkDomains=yes\n", out);
		fclose(in);
		fclose(out);
	}
	closedir(d);
}

/* Same NVLink domains: names and node sets (by node name). */
static void same_domains(const gp_cluster_t *c1, const gp_cluster_t *c2)
{
	int32_t i, j;

	assert_int_equal(c2->nnvl, c1->nnvl);
	for (i = 0; i < c1->nnvl; i++) {
		const gp_nvl_domain_t *d1 = &c1->nvl[i], *d2 = NULL;

		for (j = 0; j < c2->nnvl; j++)
			if (!strcmp(c2->nvl[j].name, d1->name))
				d2 = &c2->nvl[j];
		if (!d2)
			fail_msg("domain %s lost", d1->name);
		assert_int_equal(d2->nnodes, d1->nnodes);
		assert_int_equal(d2->ngpus, d1->ngpus);
		for (j = 0; j < d1->nnodes; j++) {
			int32_t n2 = gp__node_find(c2, c1->nodes[d1->nodes[j]].name);

			assert_true(n2 >= 0);
			assert_string_equal(c2->nvl[c2->nodes[n2].nvl_domain].name, d1->name);
		}
	}
}

/* The rich test conf (NVLinkDomain lines and a switch tree) written as
 * topology/block, or as topology.yaml, and read back without its
 * NVLinkDomain lines: the blocks give the same domains; topology.yaml
 * also keeps the switch tree. */
static void block_roundtrip(gp_topo_format_t fmt)
{
	char src[4096], tmp[] = "/tmp/gp-emit-XXXXXX", path[8192];
	gp_cluster_t *c1, *c2;
	gp_error_t err;
	FILE *f;
	int32_t i;

	snprintf(src, sizeof(src), "%s/tests/data/conf/rich", srcdir());
	if (gp_cluster_load_conf_dir(src, &c1, &err))
		fail_msg("%s: %s", src, err.text);
	assert_true(c1->nnvl > 0 && c1->nblocks == 0);
	copy_for_topology(src, tmp, fmt == GP_TOPO_BLOCK);
	snprintf(path, sizeof(path), "%s/%s", tmp,
	         fmt == GP_TOPO_YAML ? "topology.yaml" : "topology.conf");
	assert_non_null(f = fopen(path, "w"));
	if (gp__emit_topology(c1, fmt, f, &err))
		fail_msg("emit: %s", err.text);
	fclose(f);
	if (gp_cluster_load_conf_dir(tmp, &c2, &err))
		fail_msg("%s does not load: %s", path, err.text);
	assert_int_equal(c2->nblocks, c1->nnvl);
	same_domains(c1, c2);
	/* the blocks are as big as the smallest domain (4 nodes) and no switch
	 * level holds a power of two of them: no tree, and the file says so */
	if (fmt == GP_TOPO_BLOCK)
		assert_int_equal(c2->nswitches, 0);
	if (fmt == GP_TOPO_YAML) {
		assert_false(c2->tree_from_blocks);
		assert_int_equal(c2->nswitches, c1->nswitches);
		for (i = 0; i < c1->nnodes; i++)
			assert_string_equal(c2->switches[c2->nodes[i].leaf].name,
			                    c1->switches[c1->nodes[i].leaf].name);
	}
	gp_cluster_destroy(c1);
	gp_cluster_destroy(c2);
	remove_dir(tmp);
}

static void test_block_roundtrip(void **unused) { block_roundtrip(GP_TOPO_BLOCK); }
static void test_yaml_roundtrip(void **unused) { block_roundtrip(GP_TOPO_YAML); }

/* The NVL72 example (topology/block): the text a site would write, and
 * BlockSizes kept through the model. */
static void test_block_text(void **unused)
{
	char src[4096], *buf = NULL;
	size_t len = 0;
	gp_cluster_t *c;
	gp_error_t err;
	FILE *f;

	snprintf(src, sizeof(src), "%s/etc/nvl72-gb200", srcdir());
	if (gp_cluster_load_conf_dir(src, &c, &err))
		fail_msg("%s: %s", src, err.text);
	assert_int_equal(gp__topo_format_auto(c), GP_TOPO_BLOCK);
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(gp__emit_topology(c, GP_TOPO_AUTO, f, &err), GP_OK);
	fclose(f);
	assert_non_null(strstr(buf, "\nBlockName=nvl01 Nodes=gb[001-018]\n"));
	assert_non_null(strstr(buf, "\nBlockName=nvl16 Nodes=gb[271-288]\n"));
	assert_non_null(strstr(buf, "\nBlockSizes=18,144,288\n"));
	assert_null(strstr(buf, "SwitchName="));
	free(buf);
	buf = NULL;
	/* a tree of its own is asked for explicitly: the derived one is written */
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(gp__emit_topology(c, GP_TOPO_TREE, f, &err), GP_OK);
	fclose(f);
	assert_non_null(strstr(buf, "\nSwitchName=nvl01-nvl16 Switches=nvl01-nvl08,nvl09-nvl16\n"));
	free(buf);
	gp_cluster_destroy(c);
}

/* resources.yaml of the oversubscribed A100 example: a root of every node
 * with no limit, one layer per rack of min(cap, cooling) less the idle
 * draw (24 kW - 4 x (3,300 W base + 8 x 50 W idle A100) = 9,200 W), the
 * name given or gpuplace.conf's; no name or no racks is an error. */
static void test_resources_yaml(void **unused)
{
	char src[4096], *buf = NULL;
	size_t len = 0;
	gp_cluster_t *c;
	gp_error_t err;
	FILE *f;

	snprintf(src, sizeof(src), "%s/etc/a100-oversub", srcdir());
	if (gp_cluster_load_conf_dir(src, &c, &err))
		fail_msg("%s: %s", src, err.text);
	assert_string_equal(c->site.power_hres, "");
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(gp__emit_resources(c, "", f, &err), GP_EINVAL);
	assert_non_null(strstr(err.text, "set PowerHres=NAME"));
	assert_int_equal(gp__emit_resources(c, "rack power", f, &err), GP_EINVAL);
	assert_int_equal(gp__emit_resources(c, "rackpower", f, &err), GP_OK);
	fclose(f);
	assert_non_null(strstr(buf, "\n---\n- resource: rackpower\n  mode: MODE_3\n  layers:\n"));
	assert_non_null(strstr(buf, "    - nodes:\n        - \"dgx[001-080]\"\n      count: -1\n"));
	assert_non_null(strstr(buf, "    - nodes:\n        - \"dgx[001-004]\"\n      count: 9200\n"));
	assert_non_null(strstr(buf, "    - nodes:\n        - \"dgx[077-080]\"\n      count: 9200\n"));
	assert_null(strstr(buf, "in no rack"));
	free(buf);
	buf = NULL;
	/* one rack and a node in none: a root over both leaves, the loose
	 * node's without a limit; one rack alone: a single layer */
	c->nodes[79].rack = -1;
	c->racks[19].nnodes = 3;
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(gp__emit_resources(c, "rackpower", f, &err), GP_OK);
	fclose(f);
	assert_non_null(strstr(buf, "# nodes in no rack: no budget\n    - nodes:\n        - \"dgx080\"\n      count: -1\n"));
	free(buf);
	buf = NULL;
	c->nracks = 0;
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(gp__emit_resources(c, "rackpower", f, &err), GP_EINVAL);
	assert_non_null(strstr(err.text, "no racks"));
	fclose(f);
	free(buf);
	c->nracks = 20;
	gp_cluster_destroy(c);
}

/* slurm.conf's Licenses= line of the same example: one license per rack,
 * PREFIX_RACK, each with the hierarchical resource's count (9,200 W); no
 * prefix, a bad one, a rack name no license can carry or no racks is an
 * error, and nothing is written then. */
static void test_licenses_line(void **unused)
{
	char src[4096], *buf = NULL;
	size_t len = 0;
	gp_cluster_t *c;
	gp_error_t err;
	FILE *f;
	int32_t i;

	snprintf(src, sizeof(src), "%s/etc/a100-oversub", srcdir());
	if (gp_cluster_load_conf_dir(src, &c, &err))
		fail_msg("%s: %s", src, err.text);
	assert_string_equal(c->site.power_lic, "");
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(gp__emit_licenses(c, "", f, &err), GP_EINVAL);
	assert_non_null(strstr(err.text, "set PowerLicenses=PREFIX"));
	assert_int_equal(gp__emit_licenses(c, "rack:pw", f, &err), GP_EINVAL);
	assert_non_null(strstr(err.text, "':' is not allowed"));
	assert_int_equal(gp__emit_licenses(c, "rackpw", f, &err), GP_OK);
	fclose(f);
	assert_non_null(strstr(buf, "# rackpw_rack01: rack rack01: min(24.0 kW cap, 24.0 kW cooling) - "
	                            "14800 W idle\n"));
	assert_non_null(strstr(buf, "\nLicenses=rackpw_rack01:9200,rackpw_rack02:9200,"));
	assert_non_null(strstr(buf, ",rackpw_rack20:9200\n"));
	for (i = 0; i < c->nracks; i++) {
		char name[GP_NAME_MAX + 16];

		snprintf(name, sizeof(name), "rackpw_%s:", c->racks[i].name);
		if (!strstr(buf, name))
			fail_msg("no license for rack %s", c->racks[i].name);
	}
	free(buf);
	buf = NULL;
	/* a rack whose name Slurm's license syntax would split: nothing */
	snprintf(c->racks[3].name, sizeof(c->racks[3].name), "rack,4");
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(gp__emit_licenses(c, "rackpw", f, &err), GP_EINVAL);
	assert_non_null(strstr(err.text, "rack 'rack,4': ','"));
	fclose(f);
	assert_int_equal(len, 0);
	free(buf);
	buf = NULL;
	c->nracks = 0;
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(gp__emit_licenses(c, "rackpw", f, &err), GP_EINVAL);
	assert_non_null(strstr(err.text, "no racks"));
	fclose(f);
	free(buf);
	c->nracks = 20;
	gp_cluster_destroy(c);
}

/* What the plugin checks of resources.yaml before asking for the resource:
 * the file, the resource by name, MODE_3; a file gpuplace wrote passes. */
static void test_resources_yaml_check(void **unused)
{
	static const struct {
		const char *text;       /* NULL: no file */
		int rc;
		const char *msg;        /* part of the error */
	} cases[] = {
		{ NULL, GP_ENOENT, "no such file" },
		{ "- resource: rackpower\n  mode: MODE_3\n", GP_OK, NULL },
		{ "---\n- resource: flat\n  mode: MODE_2\n- resource: rackpower\n  mode: MODE_3\n",
		  GP_OK, NULL },
		{ "- resource: rackpower\n  mode: MODE_1\n", GP_ECONFIG,
		  "resources.yaml:1: mode: resource 'rackpower' is MODE_1, not MODE_3" },
		{ "- resource: rackpower\n", GP_ECONFIG, "is without a mode, not MODE_3" },
		{ "- resource: rackpowerx\n  mode: MODE_3\n", GP_ECONFIG, "no resource 'rackpower'" },
		{ "resource: rackpower\n", GP_ECONFIG, "no resource 'rackpower'" },
		{ "", GP_ECONFIG, "no resource 'rackpower'" },
		{ "- resource: [rackpower\n", GP_ECONFIG, "resources.yaml:" },
	};
	char dir[] = "/tmp/gp-res.XXXXXX", path[64], src[4096], *buf = NULL;
	size_t i, len = 0;
	gp_cluster_t *c;
	gp_error_t err;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/resources.yaml", dir);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;

		unlink(path);
		if (cases[i].text) {
			assert_non_null(f = fopen(path, "w"));
			fputs(cases[i].text, f);
			assert_int_equal(fclose(f), 0);
		}
		rc = gp__hres_file_check(path, "rackpower", &err);
		if (rc != cases[i].rc || (cases[i].msg && !strstr(err.text, cases[i].msg)))
			fail_msg("case %zu: %d '%s'", i, rc, rc ? err.text : "");
	}
	/* what gpuplace conf writes */
	snprintf(src, sizeof(src), "%s/etc/a100-oversub", srcdir());
	if (gp_cluster_load_conf_dir(src, &c, &err))
		fail_msg("%s: %s", src, err.text);
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(gp__emit_resources(c, "rackpower", f, &err), GP_OK);
	fclose(f);
	assert_non_null(f = fopen(path, "w"));
	fputs(buf, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(gp__hres_file_check(path, "rackpower", &err), GP_OK);
	free(buf);
	gp_cluster_destroy(c);
	unlink(path);
	rmdir(dir);
}

static void test_feature_names(void **unused)
{
	char buf[32];

	assert_int_equal(gp__domain_feature("gpsw_", "leaf-1.a", buf, sizeof(buf)), GP_OK);
	assert_string_equal(buf, "gpsw_leaf-1.a");
	/* operators of Slurm's constraint syntax never reach a feature name */
	assert_int_equal(gp__domain_feature("gprack_", "r&1|[x]*2,(y)", buf, sizeof(buf)), GP_OK);
	assert_string_equal(buf, "gprack_r_1__x__2__y_");
	assert_int_equal(gp__domain_feature("gpsw_", "a-name-that-is-far-too-long-for-it", buf, sizeof(buf)),
	                 GP_ELIMIT);
}

static void test_domain_features_of_a_node(void **unused)
{
	char src[4096], buf[1024];
	gp_cluster_t *c;
	gp_error_t err;
	int32_t n;

	snprintf(src, sizeof(src), "%s/etc/nvl72-gb200", srcdir());
	if (gp_cluster_load_conf_dir(src, &c, &err))
		fail_msg("%s", err.text);
	n = 0;
	assert_int_equal(gp__node_domain_features(c, n, buf, sizeof(buf)), GP_OK);
	/* leaf switch, NVLink domain and rack of the first node, never the root */
	assert_non_null(strstr(buf, "gpnvl_"));
	assert_non_null(strstr(buf, "gprack_"));
	assert_non_null(strstr(buf, "gpsw_"));
	assert_null(strstr(buf, c->switches[c->root].name));
	assert_int_equal(gp__node_domain_features(c, n, buf, 8), GP_ELIMIT);
	gp_cluster_destroy(c);
}

/* The switch, NVLink domain or rack of c named name, as a domain id of
 * gp__domain_features_check. */
static int32_t domain_id(const gp_cluster_t *c, int kind, const char *name)
{
	int32_t id;

	for (id = 0; id < c->nswitches + c->nnvl + c->nracks; id++)
		if (gp__domain_kind_of(c, id) == kind && !strcmp(gp__domain_name_of(c, id), name))
			return id;
	fail_msg("no domain %s", name);
	return -1;
}

static void set_features(gp_cluster_t *c, int32_t node, const char *f)
{
	free(c->nodes[node].features);
	assert_non_null(c->nodes[node].features = strdup(f));
}

/* What `gpuplace cluster check` and the plugin's load read of slurm.conf's
 * nodes: each topology domain's feature on exactly its nodes. */
static void test_domain_features_check(void **unused)
{
	char src[4096];
	gp_domfeat_check_t k;
	gp_cluster_t *c;
	gp_error_t err;
	int32_t su1, su2, r1, id, n33;

	snprintf(src, sizeof(src), "%s/etc/superpod-h100", srcdir());
	if (gp_cluster_load_conf_dir(src, &c, &err))
		fail_msg("%s", err.text);
	/* the bundled example carries them all: 4 leaves (not the root
	 * spine), 32 racks, no NVLink domain */
	assert_int_equal(gp__domain_features_check(c, &k), GP_OK);
	assert_int_equal(k.named[GP_DOMKIND_SWITCH], 4);
	assert_int_equal(k.named[GP_DOMKIND_NVL], 0);
	assert_int_equal(k.named[GP_DOMKIND_RACK], 32);
	for (id = 0; id < GP_DOMKINDS; id++) {
		assert_int_equal(k.missing[id], 0);
		assert_int_equal(k.first_missing[id], -1);
	}
	gp__domain_features_free(&k);
	su1 = domain_id(c, GP_DOMKIND_SWITCH, "su1");
	su2 = domain_id(c, GP_DOMKIND_SWITCH, "su2");
	r1 = domain_id(c, GP_DOMKIND_RACK, "rack01");
	/* one node of su1 and rack01 without gpuplace's features: both
	 * domains lack theirs, the others keep them */
	set_features(c, gp__node_find(c, "dgx002"), "su1,rack01");
	assert_int_equal(gp__domain_features_check(c, &k), GP_OK);
	assert_false(k.ok[su1]);
	assert_false(k.ok[r1]);
	assert_true(k.ok[su2]);
	assert_int_equal(k.missing[GP_DOMKIND_SWITCH], 1);
	assert_int_equal(k.first_missing[GP_DOMKIND_SWITCH], su1);
	assert_int_equal(k.missing[GP_DOMKIND_RACK], 1);
	assert_int_equal(k.first_missing[GP_DOMKIND_RACK], r1);
	gp__domain_features_free(&k);
	/* each named twice (as `gpuplace conf --what nodes` wrote them on
	 * nodes that had them, before b50982d; Slurm takes it): still its
	 * domain's, once */
	set_features(c, gp__node_find(c, "dgx002"),
	             "su1,rack01,gpsw_su1,gprack_rack01,gpsw_su1,gprack_rack01");
	assert_int_equal(gp__domain_features_check(c, &k), GP_OK);
	assert_true(k.ok[su1]);
	assert_true(k.ok[r1]);
	assert_int_equal(k.missing[GP_DOMKIND_SWITCH], 0);
	assert_int_equal(k.missing[GP_DOMKIND_RACK], 0);
	gp__domain_features_free(&k);
	/* restored, then su1's feature on a node of su2 as well: a job kept
	 * by it could start outside su1 */
	set_features(c, gp__node_find(c, "dgx002"), "su1,rack01,gpsw_su1,gprack_rack01");
	n33 = gp__node_find(c, "dgx033");
	set_features(c, n33, "su2,rack09,gpsw_su2,gprack_rack09,gpsw_su1");
	assert_int_equal(gp__domain_features_check(c, &k), GP_OK);
	assert_false(k.ok[su1]);
	assert_true(k.ok[su2]);
	assert_true(k.ok[r1]);
	assert_int_equal(k.missing[GP_DOMKIND_SWITCH], 1);
	assert_int_equal(k.missing[GP_DOMKIND_RACK], 0);
	gp__domain_features_free(&k);
	gp_cluster_destroy(c);

	/* NVLink domains: the NVL72 example's 16, each on its 18 nodes */
	snprintf(src, sizeof(src), "%s/etc/nvl72-gb200", srcdir());
	if (gp_cluster_load_conf_dir(src, &c, &err))
		fail_msg("%s", err.text);
	assert_int_equal(gp__domain_features_check(c, &k), GP_OK);
	assert_int_equal(k.named[GP_DOMKIND_NVL], 16);
	assert_int_equal(k.missing[GP_DOMKIND_NVL], 0);
	gp__domain_features_free(&k);
	id = domain_id(c, GP_DOMKIND_NVL, "nvl02");
	set_features(c, gp__node_find(c, "gb019"), "su1,nvl02,gpsw_nvl01-nvl08,gprack_rack02");
	assert_int_equal(gp__domain_features_check(c, &k), GP_OK);
	assert_false(k.ok[id]);
	assert_int_equal(k.missing[GP_DOMKIND_NVL], 1);
	assert_int_equal(k.first_missing[GP_DOMKIND_NVL], id);
	gp__domain_features_free(&k);
	gp_cluster_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_feature_names),
		cmocka_unit_test(test_resources_yaml),
		cmocka_unit_test(test_resources_yaml_check),
		cmocka_unit_test(test_licenses_line),
		cmocka_unit_test(test_domain_features_of_a_node),
		cmocka_unit_test(test_nodes_emit_idempotent),
		cmocka_unit_test(test_domain_features_check),
		cmocka_unit_test(test_roundtrip_superpod),
		cmocka_unit_test(test_roundtrip_nvl72),
		cmocka_unit_test(test_roundtrip_mixed),
		cmocka_unit_test(test_block_roundtrip),
		cmocka_unit_test(test_yaml_roundtrip),
		cmocka_unit_test(test_block_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
