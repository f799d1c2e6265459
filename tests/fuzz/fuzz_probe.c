/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_probe.c - fuzz target for the probe's JSON fragment reader (what
 * `gpuplace cluster merge` reads from many nodes).  Run by
 * tests/fuzz/fuzz_probe.sh with tests/fuzz/fuzz_driver.c, or under libFuzzer. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "discover.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whatever is accepted must write, read back and write to the same text,
 * and produce configuration lines without failing. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gp_probe_t *p = NULL, *q = NULL;
	gp_error_t err;
	char *a = NULL, *b = NULL;
	FILE *null;

	if (gp__probe_from_json((const char *)data, size, "fuzz", &p, &err))
		return 0;
	if (gp__probe_to_json(p, &a, &err) || gp__probe_from_json(a, strlen(a), "again", &q, &err) ||
	    gp__probe_to_json(q, &b, &err) || strcmp(a, b))
		abort();
	null = fopen("/dev/null", "w");
	if (!null)
		abort();
	if (gp__probe_write_conf(q, null, &err) || gp__probe_merge(&q, 1, null, &err))
		abort();
	fclose(null);
	free(a);
	free(b);
	gp__probe_destroy(p);
	gp__probe_destroy(q);
	return 0;
}
