/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_policy.c - presets and SchedulerParameters gpuplace_* keys. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "policy.h"

static void test_presets(void **unused)
{
	gp_policy_t p;
	gp_error_t err;
	int i;

	for (i = 0; gp__policy_presets[i]; i++) {
		assert_int_equal(gp__policy_preset(gp__policy_presets[i], &p, &err), GP_OK);
		assert_string_equal(p.name, gp__policy_presets[i]);
		assert_true(p.topk >= 1);
	}
	assert_int_equal(gp__policy_preset("PACK", &p, &err), GP_OK);
	assert_true(p.w_frag > 0.5);
	assert_int_equal(gp__policy_preset("fastest", &p, &err), GP_ENOENT);
	assert_non_null(strstr(err.text, "unknown policy 'fastest'"));
	assert_int_equal(gp__policy_preset("power-save", &p, &err), GP_OK);
	assert_true(p.allow_power_cap);
}

static void test_default_uses_site_margin(void **unused)
{
	gp_cluster_t *c = gp__cluster_new();
	gp_policy_t p;

	assert_non_null(c);
	c->site.power_margin = 0.12;
	gp__policy_default(c, &p);
	assert_string_equal(p.name, "balanced");
	assert_true(p.power_margin == 0.12);
	gp_cluster_destroy(c);
}

static void test_parse_ok(void **unused)
{
	gp_policy_t p;
	gp_error_t err;

	gp__policy_preset("balanced", &p, &err);
	/* other Slurm keys are ignored; the preset applies first even when it
	 * is written after the keys that adjust it */
	assert_int_equal(gp__policy_parse("bf_interval=30,gpuplace_w_frag=2.5,default_queue_depth=100,"
	                                  "gpuplace_policy=pack,gpuplace_topk=4,gpuplace_allow_power_cap=yes",
	                                  "slurm.conf SchedulerParameters", &p, &err), GP_OK);
	assert_string_equal(p.name, "pack");
	assert_true(p.w_frag == 2.5);
	assert_int_equal(p.topk, 4);
	assert_true(p.allow_power_cap);
	assert_int_equal(gp__policy_parse(NULL, NULL, &p, &err), GP_OK);
	assert_int_equal(gp__policy_parse("", NULL, &p, &err), GP_OK);
	assert_int_equal(gp__policy_parse(",,gpuplace_max_wait=600,", NULL, &p, &err), GP_OK);
	assert_true(p.max_wait_s == 600);
}

static void test_parse_errors_leave_policy(void **unused)
{
	static const struct {
		const char *in;
		const char *msg;
	} cases[] = {
		{ "gpuplace_w_step=fast", "SP: gpuplace_w_step: 'fast' is not a number" },
		{ "gpuplace_w_step=-1", "SP: gpuplace_w_step: '-1' is not a number in [0," },
		{ "gpuplace_power_margin=0.95", "gpuplace_power_margin: '0.95'" },
		{ "gpuplace_topk=0", "gpuplace_topk: '0' is not a whole number in [1, 64]" },
		{ "gpuplace_topk=2.5", "gpuplace_topk: '2.5'" },
		{ "gpuplace_allow_power_cap=maybe", "gpuplace_allow_power_cap: 'maybe' is not yes or no" },
		{ "gpuplace_bogus=1", "SP: unknown key 'gpuplace_bogus'" },
		{ "gpuplace_policy=fastest", "gpuplace_policy: unknown policy 'fastest'" },
		{ "gpuplace_w_frag", "gpuplace_w_frag: a value is required" },
		{ "gpuplace_w_frag=1,gpuplace_max_overhead=2", "gpuplace_max_overhead: '2'" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gp_policy_t p, before;
		gp_error_t err;

		gp__policy_preset("balanced", &p, &err);
		before = p;
		assert_int_equal(gp__policy_parse(cases[i].in, "SP", &p, &err), GP_ECONFIG);
		if (!strstr(err.text, cases[i].msg))
			fail_msg("'%s': got '%s', want '%s'", cases[i].in, err.text, cases[i].msg);
		/* no partial update: the policy is what it was */
		assert_memory_equal(&p, &before, sizeof(p));
	}
}

/* The example site etc/superpod-h100 copied with extra appended to its
 * slurm.conf, loaded, and the copy removed: the policy is read at load. */
static gp_cluster_t *load_site(const char *extra, int *line)
{
	const char *top = getenv("GP_TOP_SRCDIR");
	char dir[64] = "/tmp/gp-policy-XXXXXX", cmd[8192], path[128];
	gp_cluster_t *c = NULL;
	gp_error_t err = { "" };
	FILE *f;
	int ch;

	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp -r '%s/etc/superpod-h100/.' '%s/'", top ? top : ".", dir);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/slurm.conf", dir);
	assert_non_null(f = fopen(path, "r+"));
	*line = 1;
	while ((ch = fgetc(f)) != EOF)
		*line += ch == '\n';
	fputs(extra, f);
	fclose(f);
	if (gp_cluster_load_conf_dir(dir, &c, &err) != GP_OK)
		fail_msg("load %s: %s", dir, err.text);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	return c;
}

static void test_site_policy_from_slurm_conf(void **unused)
{
	gp_cluster_t *c;
	gp_policy_t p, def;
	gp_error_t err;
	char want[128];
	int line;

	/* no SchedulerParameters: the default, with the site's margin */
	c = load_site("", &line);
	gp__policy_default(c, &def);
	assert_int_equal(gp__policy_site(c, &p, &err), GP_OK);
	assert_memory_equal(&p, &def, sizeof(p));
	gp_cluster_destroy(c);
	/* a continued line: Slurm's keys ignored, gpuplace's taken */
	c = load_site("SchedulerParameters=bf_interval=30,\\\n"
	              "gpuplace_policy=pack,gpuplace_max_wait=120\n", &line);
	assert_int_equal(gp__policy_site(c, &p, &err), GP_OK);
	assert_string_equal(p.name, "pack");
	assert_true(p.max_wait_s == 120);
	gp_cluster_destroy(c);
	/* a bad value names file, line and key, and *p is untouched */
	c = load_site("\nSchedulerParameters=gpuplace_topk=many\n", &line);
	assert_int_equal(gp__policy_site(c, &p, &err), GP_ECONFIG);
	snprintf(want, sizeof(want), "slurm.conf:%d: SchedulerParameters: gpuplace_topk: 'many'", line + 1);
	if (!strstr(err.text, want))
		fail_msg("got '%s', want '%s'", err.text, want);
	assert_string_equal(p.name, "pack");
	gp_cluster_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_presets),
		cmocka_unit_test(test_default_uses_site_margin),
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_parse_errors_leave_policy),
		cmocka_unit_test(test_site_policy_from_slurm_conf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
