/* SPDX-License-Identifier: GPL-2.0-or-later */
/* number.c - the one strict number parser every configuration reader uses. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "model.h"

int gp__parse_long(const char *s, long min, long max, long *out)
{
	char *end = NULL;
	long v;

	if (!s || !*s || !out)
		return GP_EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end != '\0')
		return GP_EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return GP_ERANGE;
	*out = v;
	return GP_OK;
}

int gp__parse_double(const char *s, double min, double max, double *out)
{
	char *end = NULL;
	double v;

	if (!s || !*s || !out)
		return GP_EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0')
		return GP_EINVAL;
	if (errno == ERANGE)
		return GP_ERANGE;
	/* strtod accepts "nan" and "inf": neither is a configuration value */
	if (!isfinite(v))
		return GP_EINVAL;
	if (v < min || v > max)
		return GP_ERANGE;
	*out = v;
	return GP_OK;
}
