/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_trace.c - fuzz target for the trace CSV reader (gp__trace_parse).
 * Run by tests/fuzz/fuzz_trace.sh with tests/fuzz/fuzz_driver.c over the seeds in
 * tests/data/trace, or under libFuzzer when built with clang
 * -fsanitize=fuzzer.
 *
 * Whatever parses must hold the reader's promises (jobs valid and sorted
 * stably, ids a permutation of 1..n), summarise, and survive a write/parse
 * round trip unchanged; whatever fails must say why and leave nothing. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const gp_trace_t *t)
{
	unsigned char *seen;
	int32_t i;

	if (t->njobs < 1 || !(seen = calloc((size_t)t->njobs + 1, 1)))
		abort();
	for (i = 0; i < t->njobs; i++) {
		const gp_trace_job_t *j = &t->jobs[i];

		if (!(j->submit_s >= 0) || !isfinite(j->submit_s) || !(j->duration_s > 0) ||
		    !isfinite(j->duration_s) || j->gpus < 1 || j->gpus > 1048576 || j->nodes < 0 ||
		    j->nodes > j->gpus || j->line < 1 || j->id < 1 || j->id > (uint32_t)t->njobs ||
		    seen[j->id])
			abort();
		seen[j->id] = 1;
		if (i && (j->submit_s < j[-1].submit_s ||
		          (j->submit_s == j[-1].submit_s && j->id < j[-1].id)))
			abort();
	}
	free(seen);
}

static void round_trip(const gp_trace_t *t)
{
	gp_trace_t *u = NULL;
	gp_error_t err;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int32_t i;

	if (!f || gp__trace_write(t, f) || fclose(f))
		abort();
	if (gp__trace_parse("again.csv", buf, len, &u, &err) || u->njobs != t->njobs)
		abort();
	for (i = 0; i < t->njobs; i++) {
		const gp_trace_job_t *a = &t->jobs[i], *b = &u->jobs[i];

		if (memcmp(&a->submit_s, &b->submit_s, sizeof(double)) ||
		    memcmp(&a->duration_s, &b->duration_s, sizeof(double)) || a->gpus != b->gpus ||
		    a->nodes != b->nodes || b->id != (uint32_t)i + 1)
			abort();
	}
	gp__trace_destroy(u);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	gp_trace_t *t = (gp_trace_t *)&t;
	gp_error_t err;
	int rc;

	err.text[0] = '\0';
	rc = gp__trace_parse("fuzz.csv", (const char *)data, size, &t, &err);
	if (rc == GP_OK) {
		check(t);
		if (!devnull)
			devnull = fopen("/dev/null", "w");
		if (devnull && gp__trace_print_summary(t, devnull))
			abort();
		round_trip(t);
	} else if (t || !err.text[0] || strncmp(err.text, "fuzz.csv", 8)) {
		abort(); /* failures leave nothing behind, always say why, name the file */
	}
	gp__trace_destroy(t);
	return 0;
}
