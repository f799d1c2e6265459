/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_probe_xml.c - fuzz target for `gpuplace probe --xml`: a saved hwloc
 * topology read from memory (gp__probe_load_buffer; each input is first
 * read by hwloc in a child process, see discover.c), then everything the
 * command writes from it.  Run by tests/fuzz/fuzz_probe_xml.sh with
 * tests/fuzz/fuzz_driver.c, or under libFuzzer. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "discover.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	gp_probe_t *p = NULL, *q = NULL;
	gp_error_t err = { "" };
	char line[4096], *a = NULL, *b = NULL;
	int g, rc;

	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	rc = gp__probe_load_buffer((const char *)data, size, "fuzz.xml", "fuzz", &p, &err);
	if (rc) {
		if (p || !err.text[0])
			abort(); /* failures leave nothing and say why */
		return 0;
	}
	if (p->ngpus < 0 || p->ngpus > GP_MAX_GPUS_PER_NODE || p->nnics < 0 ||
	    p->nnics > GP_PROBE_MAX_NICS)
		abort();
	for (g = 0; g < p->ngpus; g++)
		if (gp__probe_gres_body(p, g, line, sizeof(line)) == GP_EINVAL)
			abort();
	(void)gp__probe_features(p, line, sizeof(line));
	(void)gp__probe_write_conf(p, null, &err);
	/* what the probe finds, the fragment carries unchanged */
	if (gp__probe_to_json(p, &a, &err) == GP_OK) {
		if (gp__probe_from_json(a, strlen(a), "again", &q, &err) ||
		    gp__probe_to_json(q, &b, &err) || strcmp(a, b))
			abort();
	}
	free(a);
	free(b);
	gp__probe_destroy(p);
	gp__probe_destroy(q);
	return 0;
}
