/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gres_parse.c - the two Slurm strings the plugin reads GPU counts and
 * indices from: a job's TRES request ("gres/gpu:a100:8") and a node's or
 * job's GRES detail ("gpu:a100:2(IDX:0-1)").  No Slurm calls, so the fuzz
 * targets (tests/fuzz/) link them without the plugin.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gres_parse.h"

/* A non-negative decimal number filling [s, e); -1 if not one. */
static long number_in(const char *s, const char *e)
{
	long v = 0;

	if (s >= e)
		return -1;
	for (; s < e; s++) {
		if (*s < '0' || *s > '9' || v > 100000000L)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v;
}

/* "0-1,3" in [s, e) into *mask; 0 or -1. */
static int index_list(const char *s, const char *e, uint32_t *mask)
{
	while (s < e) {
		const char *comma = memchr(s, ',', (size_t)(e - s)), *dash;
		long a, b;

		if (!comma)
			comma = e;
		dash = memchr(s, '-', (size_t)(comma - s));
		a = number_in(s, dash ? dash : comma);
		b = dash ? number_in(dash + 1, comma) : a;
		if (a < 0 || b < a || b >= GP_MAX_GPUS_PER_NODE)
			return -1;
		for (; a <= b; a++)
			*mask |= 1u << a;
		s = comma < e ? comma + 1 : e;
	}
	return 0;
}

/* *acc + v, held at INT32_MAX: a node's GRES string may list several
 * items of counts up to 10^9 each (number_in), whose sum an int32_t cannot
 * hold (fuzz_slurm_gres found the overflow). */
static void add_held(int32_t *acc, long v)
{
	int64_t sum = (int64_t)*acc + v;

	*acc = sum > INT32_MAX ? INT32_MAX : (int32_t)sum;
}

/* One GRES item [s, e): "gpu:a100:2(IDX:0-1)", "gpu:2", "gpu(S:0-1)",
 * "mps:100"... */
static int gres_item(const char *s, const char *e, uint32_t *mask, int32_t *unindexed)
{
	const char *paren = memchr(s, '(', (size_t)(e - s)), *head_end = paren ? paren : e;
	const char *f[4], *p;
	int nf = 0, with_idx = 0;
	uint32_t m = 0;
	long count = 1;

	/* name[:type][:count] */
	f[nf++] = s;
	for (p = s; p < head_end; p++)
		if (*p == ':') {
			if (nf == 4)
				return -1;
			f[nf++] = p + 1;
		}
	if ((size_t)((nf > 1 ? f[1] - 1 : head_end) - s) != 3 || strncmp(s, "gpu", 3))
		return 0; /* not a GPU */
	if (nf == 3) {
		count = number_in(f[2], head_end);
		if (count < 0)
			return -1;
	} else if (nf == 2) {
		long v = number_in(f[1], head_end);

		if (v >= 0)
			count = v; /* "gpu:2"; "gpu:a100" is one GPU of that type */
	} else if (nf == 4) {
		return -1;
	}
	/* "(IDX:...)" or "(S:...)" groups, several in a row */
	for (p = paren; p && p < e; ) {
		const char *close = memchr(p, ')', (size_t)(e - p));

		if (*p != '(' || !close)
			return -1;
		if (close - p > 4 && !strncmp(p + 1, "IDX:", 4)) {
			with_idx = 1;
			if (!(close - p == 8 && !strncmp(p + 5, "N/A", 3)) &&
			    index_list(p + 5, close, &m) != 0)
				return -1;
		}
		p = close + 1;
	}
	*mask |= m;
	if (!with_idx)
		add_held(unindexed, count);
	else if (count > gp__popcount(m))
		add_held(unindexed, count - gp__popcount(m)); /* "gpu:2(IDX:N/A)" */
	return 0;
}

int gp_live_gres_gpus(const char *gres, uint32_t *mask, int32_t *unindexed)
{
	const char *s = gres, *p;
	int depth = 0;

	*mask = 0;
	*unindexed = 0;
	if (!gres || !*gres || !strcmp(gres, "(null)"))
		return 0;
	for (p = s;; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && --depth < 0)
			return -1;
		if ((*p == ',' && depth == 0) || !*p) {
			if (depth != 0 || (p > s && gres_item(s, p, mask, unindexed) != 0))
				return -1;
			if (!*p)
				break;
			s = p + 1;
		}
	}
	return 0;
}

long gp_tres_gpus(const char *tres)
{
	const char *p;

	if (!tres)
		return 0;
	for (p = tres; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		const char *end = strchr(p, ','), *last, *q;
		char num[32];
		size_t len;
		long v;

		if (strncmp(p, "gres:gpu", 8) && strncmp(p, "gres/gpu", 8))
			continue;
		if (!end)
			end = p + strlen(p);
		if (p[8] != ':' && p[8] != '=')
			return p + 8 == end ? 1 : -1;
		/* the count is the last ':'/'=' field */
		for (last = p + 8, q = p + 8; q < end; q++)
			if (*q == ':' || *q == '=')
				last = q;
		len = (size_t)(end - last - 1);
		if (len == 0 || len >= sizeof(num))
			return -1;
		memcpy(num, last + 1, len);
		num[len] = '\0';
		if (gp__parse_long(num, 0, 1L << 30, &v))
			return -1;
		return v;
	}
	return 0;
}


/* One GPU entry's fields after "gres:gpu" / "gres/gpu" in [p, end): ""
 * (one GPU), ":N", ":TYPE", ":TYPE:N" (the count may follow '=' as in
 * "gres/gpu=8" or "gres/gpu:a100=8").  Type into type[typelen] ("" when
 * none), count into *count.  0 or -1. */
static int gpu_entry(const char *p, const char *end, char *type, size_t typelen, long *count)
{
	const char *sep = NULL, *q;
	char num[32];
	size_t len;

	type[0] = '\0';
	*count = 1;
	if (p == end)
		return 0;
	if (*p != ':' && *p != '=')
		return -1;
	p++;
	for (q = p; q < end; q++)
		if (*q == ':' || *q == '=') {
			if (sep)
				return -1; /* more than TYPE and N */
			sep = q;
		}
	if (sep) {
		len = (size_t)(sep - p);
		if (len == 0 || len >= typelen)
			return -1;
		memcpy(type, p, len);
		type[len] = '\0';
		p = sep + 1;
	}
	len = (size_t)(end - p);
	if (len == 0 || len >= sizeof(num))
		return -1;
	memcpy(num, p, len);
	num[len] = '\0';
	if (gp__parse_long(num, 0, 1L << 30, count) == 0)
		return 0;
	if (sep || *num < 'A' || strchr(num, '/'))
		return -1;
	/* "gres:gpu:a100": one GPU of that type (a type never starts with a digit) */
	if (len >= typelen)
		return -1;
	memcpy(type, num, len + 1);
	*count = 1;
	return 0;
}

int gp_tres_gpu_request(const char *tres, long *count, char *type, size_t typelen)
{
	const char *p, *end;
	bool found = false;
	char t[GP_NAME_MAX];
	long n;

	*count = 0;
	if (typelen)
		type[0] = '\0';
	if (!tres || !typelen)
		return 0;
	for (p = tres; *p; p = *end ? end + 1 : end) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		if (end - p < 8 || (strncmp(p, "gres:gpu", 8) && strncmp(p, "gres/gpu", 8)) ||
		    (p + 8 < end && p[8] != ':' && p[8] != '='))
			continue; /* not a GPU: gres:gpumem, license, cpu... */
		if (gpu_entry(p + 8, end, t, sizeof(t) < typelen ? sizeof(t) : typelen, &n))
			return -1;
		/* Slurm compares GRES type names without regard to case */
		if (found && strcasecmp(t, type))
			return -2;
		if (!found)
			memcpy(type, t, strlen(t) + 1);
		found = true;
		if (*count + n > 1L << 30)
			return -1;
		*count += n;
	}
	return found ? 1 : 0;
}

bool gp_comment_section(const char *comment, size_t *start, size_t *len)
{
	static const char *const kinds[] = { "gpuplace: PIN ", "gpuplace: CONSTRAIN ",
		                             GP_COMMENT_PASS };
	const char *p, *best = NULL, *end = NULL;
	size_t k;

	if (!comment)
		return false;
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (p = comment; (p = strstr(p, kinds[k])); p++) {
			const char *r, *d;

			if (p != comment && p[-1] != ' ')
				continue;
			/* the section ends with its reference: "; ref <digits>",
			 * then the end of the comment or a space */
			for (r = p; (r = strstr(r, "; ref ")); r++) {
				for (d = r + 6; *d >= '0' && *d <= '9'; d++)
					;
				if (d > r + 6 && (!*d || *d == ' '))
					break;
			}
			if (r && (!best || p < best)) {
				best = p;
				end = d;
			}
			if (r)
				break;
		}
	if (!best)
		return false;
	*start = (size_t)(best - comment);
	*len = (size_t)(end - best);
	return true;
}
