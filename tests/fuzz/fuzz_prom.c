/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_prom.c - fuzz target: the Prometheus instant-vector parser and the
 * telemetry file parser on arbitrary bytes, against a small in-memory
 * cluster with racks r1..r3. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "power.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static gp_cluster_t *cluster(void)
{
	static gp_cluster_t *c;
	int i;

	if (c)
		return c;
	c = gp__cluster_new();
	if (!c)
		abort();
	c->racks = calloc(3, sizeof(*c->racks));
	if (!c->racks)
		abort();
	c->nracks = 3;
	for (i = 0; i < 3; i++) {
		snprintf(c->racks[i].name, GP_NAME_MAX, "r%d", i + 1);
		c->racks[i].power_cap_kw = 20;
	}
	return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gp_cluster_t *c = cluster();
	gp__reading_t rd[4];
	gp_error_t err;
	int32_t n, unknown, i;
	double t;
	char *buf = malloc(size + 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	if (gp__parse_prometheus(c, "rack", buf, size, rd, 4, &n, &unknown, &err) == 0) {
		if (n < 0 || n > 4 || unknown < 0)
			abort();
		for (i = 0; i < n; i++) {
			if (rd[i].rack < 0 || rd[i].rack >= c->nracks)
				abort();
			(void)gp__power_check_units(c, rd[i].rack, rd[i].watts, &err);
		}
	} else if (!err.text[0]) {
		abort(); /* every failure says why */
	}
	if (gp__parse_power_file(c, buf, size, rd, 4, &n, &unknown, &t, &err) == 0 &&
	    (n < 0 || n > 4 || t < 0))
		abort();
	free(buf);
	return 0;
}
