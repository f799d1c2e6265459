/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_power.c - rack draw estimate, headroom, cap speed curve, parsers. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "power.h"
#include "power_fixture.h"
#include "test_slurp.h"

#define T0 1763700000.0

static char *data(const char *name, size_t *len)
{
	const char *top = getenv("GP_TOP_SRCDIR");
	char path[1024];

	snprintf(path, sizeof(path), "%s/tests/data/telemetry/%s", top && *top ? top : GP_SRCDIR,
	         name);
	return gp_test_slurp(path, len);
}

/* ---- estimate ------------------------------------------------------------ */

static void test_estimate(void **unused)
{
	gp_cluster_t *c = pf_cluster(0);
	const gp_gpu_profile_t *p = &c->profiles[0];
	gp_state_t *s;

	assert_int_equal(gp_state_create(c, &s), 0);
	/* idle: base + 8 idle GPUs per node */
	assert_float_equal(gp__power_estimate_rack(c, NULL, 0), 2 * PF_IDLE_NODE_W, 1e-9);
	assert_float_equal(gp__power_estimate_rack(c, s, 0), 2 * PF_IDLE_NODE_W, 1e-9);
	assert_float_equal(gp__power_estimate_rack(c, s, 2), PF_IDLE_NODE_W, 1e-9);
	/* a job at load 0.5 on 4 GPUs of n1 */
	pf_alloc(s, 0, 0, 4, 0.5);
	assert_float_equal(gp__power_estimate_rack(c, s, 0),
	                   2 * PF_IDLE_NODE_W + 4 * 0.5 * (p->tdp_w - p->idle_w), 1e-9);
	/* allocated GPUs no job names count at TDP */
	pf_alloc(s, 1, 0, 2, -1);
	assert_float_equal(gp__power_estimate_rack(c, s, 0),
	                   2 * PF_IDLE_NODE_W + 4 * 0.5 * (p->tdp_w - p->idle_w) +
	                   2 * (p->tdp_w - p->idle_w), 1e-9);
	/* load 0 means "not given": full load */
	pf_alloc(s, 4, 0, 1, 0.0);
	assert_float_equal(gp__power_estimate_rack(c, s, 2), PF_IDLE_NODE_W + p->tdp_w - p->idle_w,
	                   1e-9);
	/* other racks unaffected; bad rack index */
	assert_float_equal(gp__power_estimate_rack(c, s, 1), 2 * PF_IDLE_NODE_W, 1e-9);
	assert_true(gp__power_estimate_rack(c, s, 3) < 0);
	assert_true(gp__power_estimate_rack(c, s, -1) < 0);
	assert_true(gp__power_estimate_rack(NULL, s, 0) < 0);
	/* unknown GPU type counts the assumed TDP per GPU */
	assert_float_equal(gp__power_gpu_watts(NULL, 0.0), GP_POWER_UNKNOWN_GPU_W, 1e-9);
	assert_float_equal(gp__power_gpu_watts(p, 2.0), p->tdp_w, 1e-9);
	assert_float_equal(gp__power_gpu_watts(p, -1.0), p->idle_w, 1e-9);
	assert_float_equal(gp__power_gpu_watts(p, NAN), p->idle_w, 1e-9);
	gp_state_destroy(s);
	gp_cluster_destroy(c);
}

static void test_job_watts(void **unused)
{
	gp_cluster_t *c = pf_cluster(0);
	const gp_gpu_profile_t *p = &c->profiles[0];
	/* n1 (r1): 4 GPUs, n3 (r2): 2 GPUs, n6 (no rack): 8 GPUs */
	int32_t nodes[] = { 0, 2, 5 };
	uint32_t masks[] = { 0x0f, 0x03, 0xff };
	gp_state_t *s;

	assert_float_equal(gp__power_job_watts(c, nodes, masks, 3, 0, 1.0), 4 * (p->tdp_w - p->idle_w),
	                   1e-9);
	assert_float_equal(gp__power_job_watts(c, nodes, masks, 3, 1, 0.5),
	                   2 * 0.5 * (p->tdp_w - p->idle_w), 1e-9);
	assert_float_equal(gp__power_job_watts(c, nodes, masks, 3, 2, 1.0), 0, 0);
	/* load out of range = full */
	assert_float_equal(gp__power_job_watts(c, nodes, masks, 1, 0, 0),
	                   gp__power_job_watts(c, nodes, masks, 1, 0, 1), 0);
	assert_true(gp__power_job_watts(c, nodes, masks, 1, 3, 1) < 0);
	assert_true(gp__power_job_watts(c, NULL, masks, 1, 0, 1) < 0);
	/* consistent with the estimate: placing it raises the estimate by as much */
	assert_int_equal(gp_state_create(c, &s), 0);
	{
		double before = gp__power_estimate_rack(c, s, 0);

		pf_alloc(s, 0, 0, 4, 0.7);
		assert_float_equal(gp__power_estimate_rack(c, s, 0) - before,
		                   gp__power_job_watts(c, nodes, masks, 1, 0, 0.7), 1e-9);
	}
	gp_state_destroy(s);
	gp_cluster_destroy(c);
}

/* ---- headroom ------------------------------------------------------------ */

struct hcase {
	const char *what;
	int32_t rack;
	double sample_w;        /* < 0: no sample */
	double age;             /* sample age at `now` */
	double extra_w;
	gp_power_basis_t basis;
	gp_power_limit_t binding;
};

static const struct hcase hcases[] = {
	{ "no sample: estimate, cooling binds", 0, -1, 0, 0, GP_BASIS_ESTIMATE, GP_LIMIT_COOLING },
	{ "fresh sample used", 0, 9000, 10, 500, GP_BASIS_MEASURED, GP_LIMIT_COOLING },
	{ "at the limit still fresh", 1, 4000, 60, 0, GP_BASIS_MEASURED, GP_LIMIT_POWER },
	{ "stale, measured above estimate", 1, 9000, 61, 0, GP_BASIS_STALE, GP_LIMIT_POWER },
	{ "stale, measured below estimate", 1, 3000, 600, 100, GP_BASIS_STALE, GP_LIMIT_POWER },
	{ "cooling 0 = cap", 2, 2000, 1, 0, GP_BASIS_MEASURED, GP_LIMIT_POWER },
};

static void test_headroom(void **unused)
{
	gp_cluster_t *c = pf_cluster(0);
	gp_state_t *s;
	size_t i;

	assert_int_equal(gp_state_create(c, &s), 0);
	for (i = 0; i < sizeof(hcases) / sizeof(hcases[0]); i++) {
		const struct hcase *k = &hcases[i];
		const gp_rack_t *r = &c->racks[k->rack];
		gp_power_sample_t smp[3];
		gp_power_snapshot_t snap = { .nracks = 3, .racks = smp };
		gp_power_headroom_t h;
		double est = gp__power_estimate_rack(c, s, k->rack), cap = r->power_cap_kw * 1e3;
		double cool = r->cooling_kw > 0 ? r->cooling_kw * 1e3 : cap, used;
		double lim = fmin(cap, cool) * (1 - c->site.power_margin);

		memset(smp, 0, sizeof(smp));
		smp[0].watts = smp[1].watts = smp[2].watts = -1;
		if (k->sample_w >= 0) {
			smp[k->rack].watts = k->sample_w;
			smp[k->rack].time = T0 - k->age;
			smp[k->rack].stale_s = 60;
			snprintf(smp[k->rack].source, GP_NAME_MAX, "prom");
		}
		print_message("# %s\n", k->what);
		assert_int_equal(gp__power_headroom(c, s, &snap, k->rack, k->extra_w, T0, &h), 0);
		used = k->basis == GP_BASIS_MEASURED ? k->sample_w :
		       k->basis == GP_BASIS_STALE ? fmax(k->sample_w, est) : est;
		assert_int_equal(h.basis, k->basis);
		assert_int_equal(h.binding, k->binding);
		assert_float_equal(h.limit_w, lim, 1e-6);
		assert_float_equal(h.used_w, used, 1e-6);
		assert_float_equal(h.headroom_w, lim - used - k->extra_w, 1e-6);
		assert_float_equal(h.estimated_w, est, 1e-6);
		assert_int_equal(h.stale, k->basis == GP_BASIS_STALE);
		assert_string_equal(h.source, k->sample_w >= 0 ? "prom" : "estimate");
		if (k->sample_w >= 0)
			assert_float_equal(h.age_s, k->age, 1e-6);
		else
			assert_true(h.age_s < 0);
	}
	gp_state_destroy(s);
	gp_cluster_destroy(c);
}

/* Without a snapshot the state's recorded sample is used, judged against
 * the site's TelemetryStale. */
static void test_headroom_state(void **unused)
{
	gp_cluster_t *c = pf_cluster(0);
	gp_state_t *s;
	gp_power_headroom_t h;

	assert_int_equal(gp_state_create(c, &s), 0);
	assert_int_equal(gp__power_headroom(c, s, NULL, 0, 0, T0, &h), 0);
	assert_int_equal(h.basis, GP_BASIS_ESTIMATE);
	s->rack_power[0].measured_w = 7000;
	s->rack_power[0].sample_time = (int64_t)T0 - 5;
	snprintf(s->rack_power[0].source, GP_NAME_MAX, "rec");
	assert_int_equal(gp__power_headroom(c, s, NULL, 0, 0, T0, &h), 0);
	assert_int_equal(h.basis, GP_BASIS_MEASURED);
	assert_float_equal(h.used_w, 7000, 1e-9);
	assert_string_equal(h.source, "rec");
	c->site.telemetry_stale_s = 4;
	assert_int_equal(gp__power_headroom(c, s, NULL, 0, 0, T0, &h), 0);
	assert_int_equal(h.basis, GP_BASIS_STALE);
	assert_float_equal(h.used_w, 7000, 1e-9);
	/* sample from the future (clock step): not stale, age 0 */
	s->rack_power[0].sample_time = (int64_t)T0 + 100;
	assert_int_equal(gp__power_headroom(c, s, NULL, 0, 0, T0, &h), 0);
	assert_int_equal(h.basis, GP_BASIS_MEASURED);
	assert_float_equal(h.age_s, 0, 1e-9);
	/* errors */
	assert_int_equal(gp__power_headroom(c, s, NULL, 3, 0, T0, &h), GP_ENOENT);
	assert_int_equal(gp__power_headroom(c, s, NULL, -1, 0, T0, &h), GP_ENOENT);
	assert_int_equal(gp__power_headroom(NULL, s, NULL, 0, 0, T0, &h), GP_EINVAL);
	assert_int_equal(gp__power_headroom(c, s, NULL, 0, 0, T0, NULL), GP_EINVAL);
	gp_state_destroy(s);
	gp_cluster_destroy(c);
}

/* GPUs a rack's headroom powers at TDP (gpuplace power show, GPUS_AT_TDP),
 * worked out from the fixture's figures: 630 W over idle per GPU, an idle
 * node 1,000 + 8 x 70 = 1,560 W. */
static void test_tdp_gpus(void **unused)
{
	gp_cluster_t *c = pf_cluster(0);
	gp_power_headroom_t h;
	gp_state_t *s;
	int64_t all, fr, p;

	assert_int_equal(gp_state_create(c, &s), 0);
	/* r3 (n5) held to 5 kW less 10 %: 4,500 - 1,560 = 2,940 W, 4.67 GPUs */
	c->racks[2].power_cap_kw = 5;
	c->site.power_margin = 0.1;
	assert_int_equal(gp__power_headroom(c, s, NULL, 2, 0, T0, &h), 0);
	assert_float_equal(h.headroom_w, 2940, 1e-6);
	assert_int_equal(gp__power_rack_tdp_gpus(c, s, 2, h.headroom_w, &all, &fr), 4);
	assert_int_equal(all, 8);
	assert_int_equal(fr, 8);
	/* r1: 18 kW cooling less 10 %, 16,200 - 3,120 = 13,080 W: more than
	 * its 16 GPUs need (20.8) */
	assert_int_equal(gp__power_headroom(c, s, NULL, 0, 0, T0, &h), 0);
	assert_int_equal(gp__power_rack_tdp_gpus(c, s, 0, h.headroom_w, &all, &fr), 16);
	/* 6 GPUs of n1 busy (no job: TDP): 13,080 - 6 x 630 = 9,300 W, 14.8
	 * GPUs, of the 10 free: 10; n2 drained: 2 free, both powered */
	pf_alloc(s, 0, 0, 6, -1);
	assert_int_equal(gp__power_headroom(c, s, NULL, 0, 0, T0, &h), 0);
	assert_float_equal(h.headroom_w, 9300, 1e-6);
	assert_int_equal(gp__power_rack_tdp_gpus(c, s, 0, h.headroom_w, &all, &fr), 10);
	assert_int_equal(fr, 10);
	s->node_flags[1] |= GP_NODE_DRAIN;
	assert_int_equal(gp__power_rack_tdp_gpus(c, s, 0, h.headroom_w, &all, &fr), 2);
	assert_int_equal(all, 16);
	assert_int_equal(fr, 2);
	/* a headroom for 1.5 GPUs powers 1; none or less powers 0 */
	assert_int_equal(gp__power_rack_tdp_gpus(c, NULL, 0, 945, NULL, NULL), 1);
	assert_int_equal(gp__power_rack_tdp_gpus(c, NULL, 0, 0, NULL, NULL), 0);
	assert_int_equal(gp__power_rack_tdp_gpus(c, NULL, 0, -50, NULL, NULL), 0);
	/* every rack idle: r1 16, r2 16, r3 4 of the 40 racked GPUs (n6 is
	 * in no rack) */
	assert_int_equal(gp__power_idle_tdp_gpus(c, &p, &all), 0);
	assert_int_equal(p, 36);
	assert_int_equal(all, 40);
	assert_int_equal(gp__power_idle_tdp_gpus(NULL, &p, &all), GP_EINVAL);
	/* a rack of GPUs of no known type: all of its free GPUs */
	c->nodes[4].profile = -1;
	assert_int_equal(gp__power_rack_tdp_gpus(c, NULL, 2, 0, &all, &fr), 8);
	gp_state_destroy(s);
	gp_cluster_destroy(c);
}

/* ---- cap speed ------------------------------------------------------------ */

static void test_cap_speed(void **unused)
{
	gp_gpu_profile_t p = { .name = "h100", .tdp_w = 700, .idle_w = 70, .min_cap_w = 200 };
	gp_gpu_profile_t half = p;
	const gp_cap_curve_t *d = gp__cap_curve_default();
	double w, prev = 0;
	int i;

	assert_true(d->npoints >= 2);
	assert_float_equal(d->frac[d->npoints - 1], 1.0, 0);
	assert_float_equal(d->speed[d->npoints - 1], 1.0, 0);
	assert_float_equal(gp__power_cap_speed(&p, 700), 1.0, 0);
	assert_float_equal(gp__power_cap_speed(&p, 900), 1.0, 0);
	assert_float_equal(gp__power_cap_speed(NULL, 300), 1.0, 0);
	/* at each curve point the curve's own speed */
	for (i = 0; i < d->npoints; i++)
		assert_float_equal(gp__power_cap_speed(&p, d->frac[i] * p.tdp_w), d->speed[i], 1e-9);
	/* monotone, in (0, 1] */
	for (w = 0; w <= 800; w += 10) {
		double v = gp__power_cap_speed(&p, w);

		assert_true(v > 0 && v <= 1);
		assert_true(v >= prev - 1e-12);
		prev = v;
	}
	/* below the lowest cap: clamped to it */
	assert_float_equal(gp__power_cap_speed(&p, 50), gp__power_cap_speed(&p, 200), 0);
	/* min_cap_w 0 = TDP / 2 */
	half.min_cap_w = 0;
	assert_float_equal(gp__power_cap_speed(&half, 100), gp__power_cap_speed(&half, 350), 0);
}

struct curve_case {
	const char *text;
	int rc;
};

static const struct curve_case curve_cases[] = {
	{ "1:1", 0 },
	{ "0.5:0.6,0.857:0.89,1:1", 0 },
	{ "", GP_EINVAL },
	{ "0.5", GP_EINVAL },
	{ "0.5:0.6", GP_EINVAL },               /* last point not 1:1 */
	{ "0.8:0.9,0.5:0.6,1:1", GP_EINVAL },   /* fractions fall */
	{ "0.5:0.9,0.8:0.6,1:1", GP_EINVAL },   /* speeds fall */
	{ "0:0.5,1:1", GP_EINVAL },             /* fraction 0 */
	{ "0.5:x,1:1", GP_EINVAL },
	{ "0.5:1.5,1:1", GP_EINVAL },
	{ "0.1:0.1,0.2:0.2,0.3:0.3,0.4:0.4,0.5:0.5,0.55:0.55,0.6:0.6,0.65:0.65,0.7:0.7,"
	  "0.75:0.75,0.8:0.8,0.85:0.85,0.9:0.9,0.95:0.95,0.97:0.97,0.98:0.98,1:1", GP_EINVAL },
};

static void test_cap_curve_parse(void **unused)
{
	gp_gpu_profile_t p = { .tdp_w = 700, .idle_w = 70, .min_cap_w = 100 };
	size_t i;

	for (i = 0; i < sizeof(curve_cases) / sizeof(curve_cases[0]); i++) {
		gp_cap_curve_t cv;
		gp_error_t err = { "" };
		int rc = gp__cap_curve_parse(curve_cases[i].text, &cv, &err);

		print_message("# '%s' -> %d %s\n", curve_cases[i].text, rc, err.text);
		assert_int_equal(rc, curve_cases[i].rc);
		if (rc)
			assert_true(strlen(err.text) > 0);
	}
	{
		gp_cap_curve_t cv;

		assert_int_equal(gp__cap_curve_parse("0.5:0.6,1:1", &cv, NULL), 0);
		/* halfway between 0.5 and 1: halfway between 0.6 and 1 */
		assert_float_equal(gp__power_cap_speed_curve(&cv, &p, 0.75 * 700), 0.8, 1e-9);
		/* below the first point: proportional */
		assert_float_equal(gp__power_cap_speed_curve(&cv, &p, 0.25 * 700), 0.3, 1e-9);
	}
}

static void test_fit_cap(void **unused)
{
	gp_gpu_profile_t p = { .tdp_w = 700, .idle_w = 70, .min_cap_w = 200 };
	double cap, speed;

	/* room for all at full load */
	assert_int_equal(gp__power_fit_cap(NULL, &p, 8, 1.0, 8 * 630, &cap, &speed), 0);
	assert_float_equal(cap, 700, 0);
	assert_float_equal(speed, 1, 0);
	/* half the room: cap = idle + room per GPU */
	assert_int_equal(gp__power_fit_cap(NULL, &p, 8, 1.0, 8 * 400, &cap, &speed), 0);
	assert_float_equal(cap, 470, 1e-9);
	assert_float_equal(speed, gp__power_cap_speed(&p, 470), 1e-12);
	assert_true(speed < 1);
	/* a job at half load fits uncapped in half the room */
	assert_int_equal(gp__power_fit_cap(NULL, &p, 8, 0.5, 8 * 315, &cap, &speed), 0);
	assert_float_equal(speed, 1, 0);
	/* not even the lowest cap fits */
	assert_int_equal(gp__power_fit_cap(NULL, &p, 8, 1.0, 8 * 50, &cap, &speed), GP_ENOFIT);
	assert_float_equal(cap, 200, 0);
	assert_float_equal(speed, gp__power_cap_speed(&p, 200), 1e-12);
	assert_int_equal(gp__power_fit_cap(NULL, &p, 0, 1.0, 100, &cap, &speed), GP_EINVAL);
	assert_int_equal(gp__power_fit_cap(NULL, NULL, 1, 1.0, 100, &cap, &speed), GP_EINVAL);
}

/* ---- units --------------------------------------------------------------- */

static void test_units(void **unused)
{
	gp_cluster_t *c = pf_cluster(0);
	struct { double w; int rc; const char *why; } k[] = {
		{ 9876.5, 0, "" },
		/* issue 27 item 6: 0 W for a rack with nodes is a missing value */
		{ 0, GP_ERANGE, "0 W is no measurement" },
		/* r1's idle draw is 2 x (1000 + 8 x 70) = 3120 W: below half of
		 * it, part of the rack is not measured */
		{ 1559, GP_ERANGE, "implausibly low" },
		{ 1560, 0, "" },
		{ -5, GP_ERANGE, "negative" },
		{ NAN, GP_ERANGE, "finite" },
		{ INFINITY, GP_ERANGE, "finite" },
		{ 9.8, GP_ERANGE, "kW" },   /* r1 cap 20 kW: a kW figure */
		{ 20, GP_ERANGE, "kW" },
		{ 21, GP_ERANGE, "implausibly low" },
		{ 2e5, 0, "" },
		{ 2.1e5, GP_ERANGE, "ten times" },
	};
	size_t i;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		gp_error_t err = { "" };

		assert_int_equal(gp__power_check_units(c, 0, k[i].w, &err), k[i].rc);
		if (k[i].rc)
			assert_non_null(strstr(err.text, k[i].why));
	}
	gp_cluster_destroy(c);
}

/* ---- parsers -------------------------------------------------------------- */

struct pcase {
	const char *file;       /* under tests/data/telemetry, or NULL: text */
	const char *text;
	int rc;
	int n;                  /* readings */
	int unknown;
	const char *err;        /* substring of the error */
};

static const struct pcase prom_cases[] = {
	{ "prom_ok.json", NULL, 0, 3, 0, NULL },
	{ "prom_missing_rack.json", NULL, 0, 2, 1, NULL },
	{ "prom_kw.json", NULL, 0, 3, 0, NULL },     /* units are judged later */
	{ "prom_negative.json", NULL, 0, 3, 0, NULL },
	{ "prom_empty.json", NULL, 0, 0, 0, NULL },
	{ "prom_duplicate.json", NULL, 0, 4, 0, NULL },
	{ "prom_error.json", NULL, GP_EJSON, 0, 0, "parse error" },
	{ "prom_matrix.json", NULL, GP_EJSON, 0, 0, "instant vector" },
	{ "garbage.html", NULL, GP_EJSON, 0, 0, "not JSON" },
	{ "redfish_power_node.json", NULL, GP_EJSON, 0, 0, "status" },
	{ NULL, "", GP_EJSON, 0, 0, "empty" },
	{ NULL, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[",
	  GP_EJSON, 0, 0, "truncated" },
	{ NULL, "{\"status\":\"success\"} trailing", GP_EJSON, 0, 0, "after the JSON" },
	{ NULL, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":"
	  "[{\"metric\":{\"rack\":\"r1\"},\"value\":[1,2]}]}}", GP_EJSON, 0, 0, "value" },
	{ NULL, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":"
	  "[{\"metric\":{\"rack\":\"r1\"},\"value\":[1,\"12kW\"]}]}}", GP_EJSON, 0, 0, "value" },
	{ NULL, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":"
	  "[{\"metric\":{\"host\":\"x\"},\"value\":[1,\"5\"]}]}}", 0, 0, 1, NULL },
	{ NULL, "[1,2,3]", GP_EJSON, 0, 0, "status" },
};

static void test_parse_prometheus(void **unused)
{
	gp_cluster_t *c = pf_cluster(0);
	size_t i;

	for (i = 0; i < sizeof(prom_cases) / sizeof(prom_cases[0]); i++) {
		const struct pcase *k = &prom_cases[i];
		gp__reading_t rd[4];
		gp_error_t err = { "" };
		int32_t n = -1, unknown = -1;
		size_t len = 0;
		char *buf = k->file ? data(k->file, &len) : NULL;
		int rc;

		if (!buf)
			len = strlen(k->text);
		rc = gp__parse_prometheus(c, "rack", buf ? buf : k->text, len, rd, 4, &n, &unknown,
		                          &err);
		print_message("# %s -> %d %s\n", k->file ? k->file : k->text, rc, err.text);
		assert_int_equal(rc, k->rc);
		if (!rc) {
			assert_int_equal(n, k->n);
			assert_int_equal(unknown, k->unknown);
		} else {
			assert_non_null(strstr(err.text, k->err));
		}
		free(buf);
	}
	/* the values of the good answer, by rack */
	{
		size_t len;
		char *buf = data("prom_ok.json", &len);
		gp__reading_t rd[4];
		int32_t n, unknown;

		assert_int_equal(gp__parse_prometheus(c, "rack", buf, len, rd, 4, &n, &unknown, NULL), 0);
		assert_int_equal(rd[0].rack, 0);
		assert_float_equal(rd[0].watts, 9876.5, 0);
		assert_int_equal(rd[2].rack, 2);
		assert_float_equal(rd[2].watts, 4000.25, 0);
		/* too small a result buffer is an error, not an overflow */
		assert_int_equal(gp__parse_prometheus(c, "rack", buf, len, rd, 2, &n, &unknown, NULL),
		                 GP_EJSON);
		/* another label: every series is unknown */
		assert_int_equal(gp__parse_prometheus(c, "pdu", buf, len, rd, 4, &n, &unknown, NULL), 0);
		assert_int_equal(n, 0);
		assert_int_equal(unknown, 3);
		free(buf);
	}
	gp_cluster_destroy(c);
}

struct rcase {
	const char *file;
	const char *text;
	const char *filter;
	int rc;
	double watts;
	const char *err;
};

static const struct rcase rf_cases[] = {
	{ "redfish_power_node.json", NULL, NULL, 0, 5210, NULL },
	{ "redfish_pdu_racks.json", NULL, NULL, 0, 10432.5 + 12870, NULL },
	{ "redfish_pdu_racks.json", NULL, "r1", 0, 10432.5, NULL },  /* by MemberId */
	{ "redfish_pdu_racks.json", NULL, "r2", 0, 12870, NULL },    /* by Name */
	{ "redfish_pdu_racks.json", NULL, "r3", GP_ENOENT, 0, "for 'r3'" },
	{ "redfish_envmetrics.json", NULL, NULL, 0, 4980.5, NULL },
	{ "redfish_null.json", NULL, NULL, GP_ENOENT, 0, "no power reading" },
	{ "prom_ok.json", NULL, NULL, GP_EJSON, 0, "neither" },
	{ "garbage.html", NULL, NULL, GP_EJSON, 0, "not JSON" },
	{ NULL, "{\"PowerControl\":{}}", NULL, GP_EJSON, 0, "not an array" },
	{ NULL, "{\"PowerControl\":[{\"PowerConsumedWatts\":\"5 kW\"}]}", NULL, GP_EJSON, 0,
	  "not a number" },
	{ NULL, "{\"PowerControl\":[7]}", NULL, GP_EJSON, 0, "not an object" },
	{ NULL, "{\"PowerWatts\":{\"Reading\":true}}", NULL, GP_EJSON, 0, "not a number" },
	{ NULL, "{\"PowerWatts\":3}", NULL, GP_EJSON, 0, "not an object" },
	{ NULL, "{\"PowerControl\":[{\"PowerConsumedWatts\":-40}]}", NULL, 0, -40, NULL },
	{ NULL, "\"x\"", NULL, GP_EJSON, 0, "not a JSON object" },
};

static void test_parse_redfish(void **unused)
{
	size_t i;

	for (i = 0; i < sizeof(rf_cases) / sizeof(rf_cases[0]); i++) {
		const struct rcase *k = &rf_cases[i];
		gp_error_t err = { "" };
		size_t len = 0;
		char *buf = k->file ? data(k->file, &len) : NULL;
		double w = -1;
		int rc;

		if (!buf)
			len = strlen(k->text);
		rc = gp__parse_redfish(buf ? buf : k->text, len, k->filter, &w, &err);
		print_message("# %s [%s] -> %d %s\n", k->file ? k->file : k->text,
		              k->filter ? k->filter : "", rc, err.text);
		assert_int_equal(rc, k->rc);
		if (!rc)
			assert_float_equal(w, k->watts, 1e-9);
		else
			assert_non_null(strstr(err.text, k->err));
		free(buf);
	}
}

static void test_parse_file(void **unused)
{
	gp_cluster_t *c = pf_cluster(0);
	struct { const char *file, *text; int rc, n, unknown; double time; } k[] = {
		{ "power_file.json", NULL, 0, 3, 0, T0 },
		{ NULL, "{\"racks\":{\"r1\":5000,\"zz\":1}}", 0, 1, 1, 0 },
		{ NULL, "{\"time\":\"now\",\"racks\":{}}", GP_EJSON, 0, 0, 0 },
		{ NULL, "{\"time\":-5,\"racks\":{}}", GP_EJSON, 0, 0, 0 },
		{ NULL, "{\"racks\":{\"r1\":\"5000\"}}", GP_EJSON, 0, 0, 0 },
		{ NULL, "{\"rack\":{}}", GP_EJSON, 0, 0, 0 },
		{ "garbage.html", NULL, GP_EJSON, 0, 0, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		gp__reading_t rd[4];
		int32_t n, unknown;
		double t;
		size_t len = 0;
		char *buf = k[i].file ? data(k[i].file, &len) : NULL;

		if (!buf)
			len = strlen(k[i].text);
		assert_int_equal(gp__parse_power_file(c, buf ? buf : k[i].text, len, rd, 4, &n,
		                                      &unknown, &t, NULL), k[i].rc);
		if (!k[i].rc) {
			assert_int_equal(n, k[i].n);
			assert_int_equal(unknown, k[i].unknown);
			assert_float_equal(t, k[i].time, 0);
		}
		free(buf);
	}
	gp_cluster_destroy(c);
}

/* gp__power_estimate_all() and gp__power_headroom_all() give what the per-rack
 * calls give, on random states with jobs of several loads, GPUs that no
 * job names and GPUs two jobs name. */
static void test_estimate_all_matches(void **unused)
{
	gp_cluster_t *c = pf_cluster(0);
	unsigned seed = 7;
	int iter;

	for (iter = 0; iter < 50; iter++) {
		gp_state_t *s = NULL;
		double all[64];
		gp_power_headroom_t h[64], one;
		int32_t r, n, k;

		assert_true(c->nracks < 64);
		assert_int_equal(gp_state_create(c, &s), GP_OK);
		for (k = 0; k < 12; k++) {
			n = (int32_t)(rand_r(&seed) % (unsigned)c->nnodes);
			pf_alloc(s, n, (int)(rand_r(&seed) % 4), 1 + (int)(rand_r(&seed) % 4),
			         (rand_r(&seed) % 10) / 10.0);
		}
		for (n = 0; n < c->nnodes; n++)
			if (rand_r(&seed) % 4 == 0)
				s->alloc_mask[n] |= 1u << (rand_r(&seed) % 8); /* named by no job */
		assert_int_equal(gp__power_estimate_all(c, s, all), GP_OK);
		assert_int_equal(gp__power_headroom_all(c, s, NULL, 1000.0, h), GP_OK);
		for (r = 0; r < c->nracks; r++) {
			assert_true(fabs(all[r] - gp__power_estimate_rack(c, s, r)) < 1e-6);
			assert_int_equal(gp__power_headroom(c, s, NULL, r, 0.0, 1000.0, &one), GP_OK);
			assert_true(fabs(h[r].headroom_w - one.headroom_w) < 1e-6);
			assert_int_equal(h[r].basis, one.basis);
		}
		gp_state_destroy(s);
	}
	gp_cluster_destroy(c);
}

/* ---- Slurm's own budget (hres.c) ------------------------------------------ */

/* Each rack's count: min(cap, cooling) less its idle draw (the fixture's
 * racks), never below 0; a rack whose idle draw reaches its limit has
 * none. */
static void test_hres_rack_count(void **unused)
{
	gp_cluster_t *c = pf_cluster(0);

	assert_int_equal(gp__hres_rack_count(c, 0), 18000 - 2 * (int64_t)PF_IDLE_NODE_W);
	assert_int_equal(gp__hres_rack_count(c, 1), 15000 - 2 * (int64_t)PF_IDLE_NODE_W);
	assert_int_equal(gp__hres_rack_count(c, 2), 10000 - (int64_t)PF_IDLE_NODE_W);
	c->racks[2].power_cap_kw = 1.0; /* below the idle 1,560 W */
	assert_int_equal(gp__hres_rack_count(c, 2), 0);
	c->racks[2].power_cap_kw = 10.0005; /* rounded down: 8440.5 W */
	assert_int_equal(gp__hres_rack_count(c, 2), 8440);
	assert_int_equal(gp__hres_rack_count(c, 3), GP_EINVAL);
	assert_int_equal(gp__hres_rack_count(c, -1), GP_EINVAL);
	gp_cluster_destroy(c);
}

/* A job's request per node: the most a node takes of its GPUs x 630 W
 * (h100: 700 - 70); the unknown-type node n6 adds nothing. */
static void test_hres_node_watts(void **unused)
{
	static const struct {
		int32_t gpus, gpn;
		const char *type;
		int64_t want;
	} cases[] = {
		{ 1, 0, NULL, 630 },
		{ 4, 0, "", 2520 },
		{ 16, 0, NULL, 8 * 630 },   /* more than a node holds: a full node */
		{ 16, 2, NULL, 2 * 630 },   /* --gpus-per-node=2 */
		{ 8, 0, "h100", 8 * 630 },
		{ 8, 0, "H100", 8 * 630 },  /* Slurm's types ignore case */
		{ 8, 0, "a100", 0 },        /* no such GPUs */
		{ 0, 0, NULL, 0 },
	};
	gp_cluster_t *c = pf_cluster(0);
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t w = gp__hres_node_watts(c, cases[i].gpus, cases[i].gpn, cases[i].type);

		if (w != cases[i].want)
			fail_msg("case %zu: %lld W, want %lld", i, (long long)w,
			         (long long)cases[i].want);
	}
	/* a fraction of a watt is asked for in full */
	c->profiles[0].idle_w = 69.5;
	assert_int_equal(gp__hres_node_watts(c, 1, 0, NULL), 631);
	gp_cluster_destroy(c);
}

static void test_hres_licenses(void **unused)
{
	static const struct {
		const char *user;
		int64_t watts;
		int rc;
		const char *want;       /* buf when rc 1 */
		const char *why;        /* part of *why when rc 0 */
	} cases[] = {
		{ NULL, 630, 1, "rackpower:630", NULL },
		{ "", 630, 1, "rackpower:630", NULL },
		{ "matlab:2", 630, 1, "matlab:2,rackpower:630", NULL },
		{ "matlab:2;fluent", 630, 1, "matlab:2;fluent,rackpower:630", NULL },
		{ "fs@db:1", 1, 1, "fs@db:1,rackpower:1", NULL },
		{ "rackpowerx:1", 5, 1, "rackpowerx:1,rackpower:5", NULL },   /* another name */
		{ "xrackpower", 5, 1, "xrackpower,rackpower:5", NULL },
		{ "a:1|b:1", 630, 0, NULL, "OR list" },
		{ "rackpower:9", 630, 0, NULL, "the resource itself" },
		{ "matlab,rackpower", 630, 0, NULL, "the resource itself" },
		{ "rackpower=3", 630, 0, NULL, "the resource itself" },
		{ "rackpower(n[1-2]):3", 630, 0, NULL, "the resource itself" },
		{ "matlab: 2", 630, 0, NULL, "space" },
		{ "matlab:2", 0, 0, NULL, "no GPU watts" },
	};
	char buf[64];
	const char *why;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rc = gp__hres_licenses(cases[i].user, "rackpower", cases[i].watts, buf, sizeof(buf),
		                       &why);
		if (rc != cases[i].rc)
			fail_msg("case %zu: rc %d, want %d (%s)", i, rc, cases[i].rc, why);
		if (rc == 1 && strcmp(buf, cases[i].want))
			fail_msg("case %zu: '%s', want '%s'", i, buf, cases[i].want);
		if (rc == 0 && (buf[0] || !strstr(why, cases[i].why)))
			fail_msg("case %zu: '%s' / why '%s'", i, buf, why);
	}
	/* too long for the buffer: nothing half-written */
	rc = gp__hres_licenses("a-very-long-license-name-that-fills:1", "rackpower", 123456, buf,
	                       40, &why);
	assert_int_equal(rc, GP_ELIMIT);
	assert_string_equal(buf, "");
	assert_int_equal(gp__hres_licenses(NULL, "", 1, buf, sizeof(buf), &why), GP_EINVAL);
}

static void test_hres_name_check(void **unused)
{
	static const char *const good[] = { "rackpower", "rack_power", "p-1.w", "P" };
	static const char *const bad[] = { "", "1power", "rack power", "rack:power", "a,b", "a|b",
		                           "a(b)", "a=b", "a;b", "_x" };
	gp_error_t err;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (gp__hres_name_check(good[i], &err))
			fail_msg("'%s' refused: %s", good[i], err.text);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (gp__hres_name_check(bad[i], &err) != GP_EINVAL)
			fail_msg("'%s' accepted", bad[i]);
}

/* ---- a license per rack (lic.c) ---------------------------------------------- */

static void test_lic_name(void **unused)
{
	static const struct {
		const char *prefix, *rack, *want; /* want NULL: refused */
	} cases[] = {
		{ "rackpw", "r01", "rackpw_r01" },
		{ "p", "row-3.rack_7", "p_row-3.rack_7" },
		{ "rackpw", "r,1", NULL },   /* Slurm's separators */
		{ "rackpw", "r:1", NULL },
		{ "rackpw", "r;1", NULL },
		{ "rackpw", "r 1", NULL },
		{ "rackpw", "r|1", NULL },
		{ "rackpw", "r(1)", NULL },
		{ "rackpw", "r=1", NULL },
		{ "rackpw", "", NULL },
		{ "1pw", "r1", NULL },       /* the prefix is a resource name */
		{ "", "r1", NULL },
		/* 63 characters at most */
		{ "abcdefghijklmnopqrstuvwxyzabcdefghij", "abcdefghijklmnopqrstuvwxyz1", NULL },
		{ "abcdefghijklmnopqrstuvwxyzabcdefghij", "abcdefghijklmnopqrstuvwxy",
		  "abcdefghijklmnopqrstuvwxyzabcdefghij_abcdefghijklmnopqrstuvwxy" },
	};
	char buf[GP_NAME_MAX];
	gp_error_t err;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rc = gp__lic_name(cases[i].prefix, cases[i].rack, buf, sizeof(buf), &err);
		if (cases[i].want ? rc || strcmp(buf, cases[i].want) : rc != GP_EINVAL || buf[0])
			fail_msg("case %zu: rc %d '%s' (%s)", i, rc, buf, rc ? err.text : "");
	}
}

/* Which rack a job is kept to: the decision's rack where the job fits
 * there; else the fitting rack with the most room, the first of equals;
 * none when it fits nowhere. */
static void test_lic_choose_rack(void **unused)
{
	const double room[4] = { 100, 900, 900, 5000 };
	const bool fits[4] = { true, true, true, false }, none[4] = { false, false, false, false };

	assert_int_equal(gp__lic_choose_rack(4, room, fits, -1), 1);
	assert_int_equal(gp__lic_choose_rack(4, room, fits, 0), 0);  /* the decision's */
	assert_int_equal(gp__lic_choose_rack(4, room, fits, 3), 1);  /* it does not fit there */
	assert_int_equal(gp__lic_choose_rack(4, room, fits, 7), 1);  /* no such rack */
	assert_int_equal(gp__lic_choose_rack(4, room, none, -1), -1);
	assert_int_equal(gp__lic_choose_rack(0, room, fits, -1), -1);
	assert_int_equal(gp__lic_choose_rack(4, NULL, fits, -1), -1);
}

static void test_lic_licenses(void **unused)
{
	static const char *const two[] = { "rackpw_r1", "rackpw_r2" };
	static const char *const drop[] = { "rackpw_r1", "rackpw_r2", "rackpw_r3" };
	static const int64_t counts[] = { 630, 1260 };
	static const struct {
		const char *user;
		int32_t n, ndrop;
		int rc;
		const char *want, *why;
	} cases[] = {
		{ NULL, 1, 0, 1, "rackpw_r1:630", NULL },
		{ "", 2, 0, 1, "rackpw_r1:630,rackpw_r2:1260", NULL },
		{ "matlab:2;fluent", 1, 0, 1, "matlab:2,fluent,rackpw_r1:630", NULL },
		{ "rackpw_r10:1", 1, 0, 1, "rackpw_r10:1,rackpw_r1:630", NULL }, /* another name */
		{ "rackpw_r1:5", 1, 0, 0, NULL, "license itself" },
		{ "x,rackpw_r2", 2, 0, 0, NULL, "license itself" },
		/* moved by the steering pass: the old rack's term goes */
		{ "matlab:2,rackpw_r3:630", 1, 3, 1, "matlab:2,rackpw_r1:630", NULL },
		{ "rackpw_r2:1260", 1, 3, 1, "rackpw_r1:630", NULL },
		{ "a:1|b:1", 1, 0, 0, NULL, "OR list" },
		{ "a: 1", 1, 0, 0, NULL, "space" },
	};
	char buf[128], big[2048];
	const char *why;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rc = gp__lic_licenses(cases[i].user, two, counts, cases[i].n, drop, cases[i].ndrop,
		                      buf, sizeof(buf), &why);
		if (rc != cases[i].rc)
			fail_msg("case %zu: rc %d, want %d (%s)", i, rc, cases[i].rc, why);
		if (rc == 1 && strcmp(buf, cases[i].want))
			fail_msg("case %zu: '%s', want '%s'", i, buf, cases[i].want);
		if (rc == 0 && (buf[0] || !strstr(why, cases[i].why)))
			fail_msg("case %zu: '%s' / why '%s'", i, buf, why);
	}
	/* a count of 0: nothing to ask */
	{
		const int64_t zero = 0;

		assert_int_equal(gp__lic_licenses(NULL, two, &zero, 1, NULL, 0, buf, sizeof(buf), &why), 0);
		assert_non_null(strstr(why, "no GPU watts"));
	}
	/* more than Slurm's 1024 characters: nothing */
	memset(big, 'a', 1020);
	big[1020] = '\0';
	assert_int_equal(gp__lic_licenses(big, two, counts, 1, NULL, 0, big + 1024, 1000, &why),
	                 GP_ELIMIT);
	{
		char out[2048];

		assert_int_equal(gp__lic_licenses(big, two, counts, 1, NULL, 0, out, sizeof(out), &why), 0);
		assert_non_null(strstr(why, "1024"));
	}
	assert_int_equal(gp__lic_licenses(NULL, two, counts, 0, NULL, 0, buf, sizeof(buf), &why),
	                 GP_EINVAL);
}

/* A GPU's watts over idle on a node: 630 W (h100: 700 - 70) a GPU, rounded
 * up; none for an unknown type or a bad node. */
static void test_lic_gpu_watts(void **unused)
{
	gp_cluster_t *c = pf_cluster(0);

	assert_int_equal(gp__lic_gpu_watts(c, 0, 1), 630);
	assert_int_equal(gp__lic_gpu_watts(c, 0, 3), 1890);
	assert_int_equal(gp__lic_gpu_watts(c, 0, 0), 0);
	assert_int_equal(gp__lic_gpu_watts(c, -1, 1), 0);
	assert_int_equal(gp__lic_gpu_watts(c, c->nnodes, 1), 0);
	assert_int_equal(gp__lic_gpu_watts(c, 5, 1), 0); /* n6: no profile */
	c->profiles[0].idle_w = 69.5;
	assert_int_equal(gp__lic_gpu_watts(c, 0, 1), 631);
	gp_cluster_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_estimate),
		cmocka_unit_test(test_estimate_all_matches),
		cmocka_unit_test(test_job_watts),
		cmocka_unit_test(test_headroom),
		cmocka_unit_test(test_headroom_state),
		cmocka_unit_test(test_cap_speed),
		cmocka_unit_test(test_cap_curve_parse),
		cmocka_unit_test(test_fit_cap),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_parse_prometheus),
		cmocka_unit_test(test_parse_redfish),
		cmocka_unit_test(test_parse_file),
		cmocka_unit_test(test_hres_rack_count),
		cmocka_unit_test(test_hres_node_watts),
		cmocka_unit_test(test_hres_licenses),
		cmocka_unit_test(test_hres_name_check),
		cmocka_unit_test(test_lic_name),
		cmocka_unit_test(test_lic_choose_rack),
		cmocka_unit_test(test_lic_licenses),
		cmocka_unit_test(test_lic_gpu_watts),
		cmocka_unit_test(test_tdp_gpus),
	};

	return cmocka_run_group_tests_name("power", tests, NULL, NULL);
}
