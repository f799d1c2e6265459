/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gres_parse.c - the two Slurm strings the plugin reads GPU counts and
 * indices from: a job's TRES request ("gres/gpu:a100:8") and a node's or
 * job's GRES detail ("gpu:a100:2(IDX:0-1)").  No Slurm calls, so the fuzz
 * targets (tests/fuzz/) link them without the plugin.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "gres_parse.h"

int gp_live_gpu_mask(const char *gres, uint32_t *mask)
{
	const char *p;

	*mask = 0;
	if (!gres)
		return 0;
	for (p = gres; (p = strstr(p, "(IDX:")); ) {
		const char *item = p, *q;
		long a, b;
		char *end;

		/* the item this index list belongs to starts after the previous
		 * ',' outside parentheses */
		while (item > gres && item[-1] != ',' && item[-1] != ')')
			item--;
		while (*item == ',')
			item++;
		p += 5;
		if (strncmp(item, "gpu", 3) || (item[3] != ':' && item[3] != '('))
			continue;
		if (!strncmp(p, "N/A", 3))
			continue;
		for (q = p; *q && *q != ')'; ) {
			a = strtol(q, &end, 10);
			if (end == q || a < 0 || a >= GP_MAX_GPUS_PER_NODE)
				return -1;
			b = a;
			q = end;
			if (*q == '-') {
				b = strtol(q + 1, &end, 10);
				if (end == q + 1 || b < a || b >= GP_MAX_GPUS_PER_NODE)
					return -1;
				q = end;
			}
			for (; a <= b; a++)
				*mask |= 1u << a;
			if (*q == ',')
				q++;
			else if (*q != ')')
				return -1;
		}
		if (*q != ')')
			return -1;
		p = q;
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

