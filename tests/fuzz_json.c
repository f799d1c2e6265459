/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_json.c - fuzz target for the JSON model loader (and the summary of
 * whatever it accepts).  Run by tests/fuzz_json.sh with tests/fuzz_driver.c,
 * or under libFuzzer when built with clang -fsanitize=fuzzer. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	gp_cluster_t *c = NULL;
	gp_state_t *s = NULL;
	gp_error_t err;
	char *buf = malloc(size + 1);
	int rc;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	rc = gp__cluster_load_json_buf("fuzz.json", buf, size, &c, &s, &err);
	if (rc == GP_OK) {
		if (!devnull)
			devnull = fopen("/dev/null", "w");
		if (devnull)
			gp_cluster_print_summary(c, devnull);
		/* invariants the loader promises */
		if (c->nnodes && (!c->node_order || !c->node_pos))
			abort();
		if (s && s->nnodes != c->nnodes)
			abort();
	} else if ((c || s) || !err.text[0]) {
		abort();   /* failures leave nothing behind and always say why */
	}
	gp_state_destroy(s);
	gp_cluster_destroy(c);
	free(buf);
	return 0;
}
