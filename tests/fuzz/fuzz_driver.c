/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_driver.c - a main() for libFuzzer-style targets so that every fuzz
 * target also runs briefly inside `make check` with gcc alone.
 *
 * A target defines LLVMFuzzerTestOneInput().  This driver feeds it every
 * file named on the command line (the seed corpus), then a bounded number of
 * deterministic mutations of those seeds (bit flips, byte insertions and
 * deletions, truncations, splices), and prints TAP.  A crash or a sanitizer
 * report fails the test.  Built with clang -fsanitize=fuzzer instead, the
 * same target runs under libFuzzer (see tests/fuzz/README.md).
 *
 * Environment: GP_FUZZ_ITERATIONS (default 20000), GP_FUZZ_SEED (default 1).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT (1 << 20)

static uint64_t rng_state;

static uint64_t rng(void)
{
	/* xorshift64*: small, deterministic, good enough for mutation choice */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static unsigned char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	size_t n;

	if (!f)
		return NULL;
	buf = malloc(MAX_INPUT);
	if (!buf) {
		fclose(f);
		return NULL;
	}
	n = fread(buf, 1, MAX_INPUT, f);
	fclose(f);
	*len = n;
	return buf;
}

static size_t mutate(unsigned char *buf, size_t len, size_t cap,
                     const unsigned char *other, size_t olen)
{
	static const char *tokens[] = { "=", "\n", "\\\n", "[", "]", "-", ",", "\"", "{", "}",
		":", "#", "1e309", "-1", "NaN", "99999999999999999999", "\0", "Include ", "Nodes=" };
	int rounds = 1 + (int)(rng() % 4), r;

	for (r = 0; r < rounds; r++) {
		size_t pos = len ? (size_t)(rng() % len) : 0;

		switch (rng() % 6) {
		case 0: /* flip a bit */
			if (len)
				buf[pos] ^= (unsigned char)(1u << (rng() % 8));
			break;
		case 1: /* delete a run */
			if (len) {
				size_t n = 1 + (size_t)(rng() % 8);
				if (pos + n > len)
					n = len - pos;
				memmove(buf + pos, buf + pos + n, len - pos - n);
				len -= n;
			}
			break;
		case 2: { /* insert a token */
			const char *t = tokens[rng() % (sizeof(tokens) / sizeof(tokens[0]))];
			size_t n = strlen(t) ? strlen(t) : 1;
			if (len + n < cap) {
				memmove(buf + pos + n, buf + pos, len - pos);
				memcpy(buf + pos, t, n);
				len += n;
			}
			break;
		}
		case 3: /* truncate */
			len = pos;
			break;
		case 4: /* random byte */
			if (len)
				buf[pos] = (unsigned char)rng();
			break;
		default: /* splice from another seed */
			if (olen) {
				size_t from = (size_t)(rng() % olen), n = 1 + (size_t)(rng() % 32);
				if (from + n > olen)
					n = olen - from;
				if (pos + n > cap)
					n = cap - pos;
				memcpy(buf + pos, other + from, n);
				if (pos + n > len)
					len = pos + n;
			}
			break;
		}
	}
	return len;
}

int main(int argc, char **argv)
{
	long iterations = 20000;
	const char *e;
	unsigned char **seeds;
	size_t *lens, nseeds = 0;
	unsigned char *work;
	long i;
	int a;

	if ((e = getenv("GP_FUZZ_ITERATIONS")) && atol(e) > 0)
		iterations = atol(e);
	rng_state = 0x9E3779B97F4A7C15ULL ^ (uint64_t)((e = getenv("GP_FUZZ_SEED")) ? atol(e) : 1);
	seeds = calloc((size_t)argc + 1, sizeof(*seeds));
	lens = calloc((size_t)argc + 1, sizeof(*lens));
	work = malloc(MAX_INPUT);
	if (!seeds || !lens || !work) {
		printf("1..0 # SKIP out of memory\n");
		return 1;
	}
	for (a = 1; a < argc; a++) {
		seeds[nseeds] = read_file(argv[a], &lens[nseeds]);
		if (!seeds[nseeds]) {
			printf("Bail out! cannot read seed %s\n", argv[a]);
			return 1;
		}
		nseeds++;
	}
	printf("1..2\n");
	for (i = 0; i < (long)nseeds; i++)
		LLVMFuzzerTestOneInput(seeds[i], lens[i]);
	LLVMFuzzerTestOneInput((const uint8_t *)"", 0);
	printf("ok 1 - %zu seed inputs\n", nseeds);
	for (i = 0; i < iterations; i++) {
		size_t s = nseeds ? (size_t)(rng() % nseeds) : 0, o = nseeds ? (size_t)(rng() % nseeds) : 0;
		size_t len = nseeds ? lens[s] : 0;

		if (len)
			memcpy(work, seeds[s], len);
		len = mutate(work, len, MAX_INPUT / 2, nseeds ? seeds[o] : NULL, nseeds ? lens[o] : 0);
		LLVMFuzzerTestOneInput(work, len);
	}
	printf("ok 2 - %ld mutated inputs without a crash\n", iterations);
	for (i = 0; i < (long)nseeds; i++)
		free(seeds[i]);
	free(seeds);
	free(lens);
	free(work);
	return 0;
}
