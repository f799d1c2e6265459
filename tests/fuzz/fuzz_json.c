/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_json.c - fuzz target for the JSON model loader (and the summary of
 * whatever it accepts).  Run by tests/fuzz/fuzz_json.sh with tests/fuzz/fuzz_driver.c,
 * or under libFuzzer when built with clang -fsanitize=fuzzer. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model.h"

/* Whatever loads must save, load again and save to the same bytes. */
static void check_round_trip(const gp_cluster_t *c, const gp_state_t *s)
{
	static char a[64], b[80];
	gp_cluster_t *c2 = NULL;
	gp_state_t *s2 = NULL;
	gp_error_t err;
	FILE *fa, *fb;
	int ca, cb;

	if (!a[0]) {
		int fd;

		snprintf(a, sizeof(a), "/tmp/gp-fuzz-json-XXXXXX");
		if ((fd = mkstemp(a)) < 0)
			abort();
		close(fd);
		snprintf(b, sizeof(b), "%s.b", a);
	}
	if (gp_cluster_save_json(c, s, a, &err) ||
	    gp_cluster_load_json(a, &c2, s ? &s2 : NULL, &err) ||
	    gp_cluster_save_json(c2, s2, b, &err))
		abort();
	fa = fopen(a, "rb");
	fb = fopen(b, "rb");
	if (!fa || !fb)
		abort();
	do {
		ca = fgetc(fa);
		cb = fgetc(fb);
		if (ca != cb)
			abort();
	} while (ca != EOF);
	fclose(fa);
	fclose(fb);
	unlink(a);
	unlink(b);
	gp_state_destroy(s2);
	gp_cluster_destroy(c2);
}

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
		check_round_trip(c, s);
	} else if ((c || s) || !err.text[0]) {
		abort();   /* failures leave nothing behind and always say why */
	}
	gp_state_destroy(s);
	gp_cluster_destroy(c);
	free(buf);
	return 0;
}
