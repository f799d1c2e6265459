/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capspeed.c - GPU power cap -> relative speed, and the cap that fits. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "power.h"

/*
 * The default curve, as (cap / TDP, relative speed) points.
 *
 * Source for one point only: a vendor blog reports that capping H100s from
 * 700 W to 600 W (0.857 of TDP) costs 10-15 % step time in transformer
 * pretraining (factryze.ai, low confidence; notes/calibration.md sec. 4):
 * 1 / 1.125 = 0.89.  No measured H100 training cap curve was found; MIT LLSC
 * (arXiv 2402.18593) reports "minimal impact" at fleet-level 60 % caps,
 * which suggests this curve is pessimistic.
 *
 * ASSUMPTION: the points below 0.857 (0.7 -> 0.79, 0.5 -> 0.58) are a
 * straight extrapolation of that loss rate, flattening slightly as memory-
 * and communication-bound phases are less sensitive to clocks.  Override
 * with gp__cap_curve_parse() (gpuplace power show --cap-curve) once a site
 * has measured its own curve.
 */
static const gp_cap_curve_t default_curve = {
	.npoints = 4,
	.frac = { 0.5, 0.7, 0.857, 1.0 },
	.speed = { 0.58, 0.79, 0.89, 1.0 },
};

const gp_cap_curve_t *gp__cap_curve_default(void)
{
	return &default_curve;
}

int gp__cap_curve_parse(const char *text, gp_cap_curve_t *out, gp_error_t *err)
{
	gp_cap_curve_t c;
	char buf[512], *save = NULL, *tok;

	if (!out)
		return gp__errorf(err, GP_EINVAL, "cap curve: no output");
	memset(&c, 0, sizeof(c));
	if (!text || !*text)
		return gp__errorf(err, GP_EINVAL, "cap curve: empty");
	if (snprintf(buf, sizeof(buf), "%s", text) >= (int)sizeof(buf))
		return gp__errorf(err, GP_EINVAL, "cap curve: longer than %zu characters",
		                  sizeof(buf) - 1);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		double f, v;

		if (c.npoints >= GP_CAP_CURVE_MAX)
			return gp__errorf(err, GP_EINVAL, "cap curve: more than %d points",
			                  GP_CAP_CURVE_MAX);
		if (!colon)
			return gp__errorf(err, GP_EINVAL, "cap curve: '%s' is not FRACTION:SPEED", tok);
		*colon = '\0';
		if (gp__parse_double(tok, 1e-6, 1.0, &f) < 0 ||
		    gp__parse_double(colon + 1, 1e-6, 1.0, &v) < 0)
			return gp__errorf(err, GP_EINVAL,
			                  "cap curve: '%s:%s' needs two numbers in (0, 1]", tok,
			                  colon + 1);
		if (c.npoints && f <= c.frac[c.npoints - 1])
			return gp__errorf(err, GP_EINVAL, "cap curve: fractions must rise (%g)", f);
		if (c.npoints && v < c.speed[c.npoints - 1])
			return gp__errorf(err, GP_EINVAL, "cap curve: speeds must not fall (%g)", v);
		c.frac[c.npoints] = f;
		c.speed[c.npoints] = v;
		c.npoints++;
	}
	if (!c.npoints || c.frac[c.npoints - 1] != 1.0 || c.speed[c.npoints - 1] != 1.0)
		return gp__errorf(err, GP_EINVAL, "cap curve: the last point must be 1:1");
	*out = c;
	return GP_OK;
}

static double min_cap(const gp_gpu_profile_t *p)
{
	/* MinCapWatts=0 means TDP / 2 (model.h, gpuplace.conf(5)) */
	return p->min_cap_w > 0.0 ? p->min_cap_w : p->tdp_w / 2.0;
}

double gp__power_cap_speed_curve(const gp_cap_curve_t *curve, const gp_gpu_profile_t *p,
                                double cap_w)
{
	double f;
	int i;

	if (!curve)
		curve = &default_curve;
	if (!p || !(p->tdp_w > 0.0) || curve->npoints < 1)
		return 1.0;
	if (!(cap_w < p->tdp_w))
		return 1.0;
	if (cap_w < min_cap(p))
		cap_w = min_cap(p);
	f = cap_w / p->tdp_w;
	if (f <= curve->frac[0])
		/* below the first point: proportional to the cap (no faster than
		 * the power allows), never zero */
		return fmax(1e-3, curve->speed[0] * f / curve->frac[0]);
	for (i = 1; i < curve->npoints; i++)
		if (f <= curve->frac[i]) {
			double t = (f - curve->frac[i - 1]) / (curve->frac[i] - curve->frac[i - 1]);

			return curve->speed[i - 1] + t * (curve->speed[i] - curve->speed[i - 1]);
		}
	return 1.0;
}

double gp__power_cap_speed(const gp_gpu_profile_t *p, double cap_w)
{
	return gp__power_cap_speed_curve(NULL, p, cap_w);
}

int gp__power_fit_cap(const gp_cap_curve_t *curve, const gp_gpu_profile_t *p, int ngpus,
                     double load, double avail_w, double *cap_w, double *speed)
{
	double per_gpu, lo, want;

	if (cap_w)
		*cap_w = 0.0;
	if (speed)
		*speed = 0.0;
	if (!p || !cap_w || !speed || ngpus < 1 || !(p->tdp_w > 0.0))
		return GP_EINVAL;
	if (!(load > 0.0) || load > 1.0)
		load = 1.0;
	/* avail_w is the room above idle for these GPUs: each may add at most
	 * per_gpu watts over idle, i.e. draw idle + per_gpu. */
	per_gpu = avail_w / ngpus;
	want = load * (p->tdp_w - p->idle_w);
	if (per_gpu >= want) {
		*cap_w = p->tdp_w;
		*speed = 1.0;
		return GP_OK;
	}
	lo = min_cap(p);
	/* A cap bounds the board's draw: the job draws min(cap, idle + load *
	 * (TDP - idle)), so the cap that fits is idle + per_gpu. */
	*cap_w = p->idle_w + per_gpu;
	if (*cap_w < lo) {
		*cap_w = lo;
		*speed = gp__power_cap_speed_curve(curve, p, lo);
		return GP_ENOFIT;
	}
	*speed = gp__power_cap_speed_curve(curve, p, *cap_w);
	return GP_OK;
}
