/* SPDX-License-Identifier: GPL-2.0-or-later */
/* number.c - the one strict number parser every configuration reader uses,
 * and the one round-trip double formatter every writer uses. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
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

const char *gp__double_str(char buf[GP_DOUBLE_STR], double v)
{
	int prec;

	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, GP_DOUBLE_STR, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return buf;
	}
	snprintf(buf, GP_DOUBLE_STR, "%.17g", v);
	return buf;
}
