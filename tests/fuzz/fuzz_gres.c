/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_gres.c - fuzz target for the plugin's readers of Slurm strings
 * (plugin/gres_parse.c): a job's TRES GPU request and a node's or job's
 * GRES index list, as slurmctld hands them to the plugin; the summed GPU
 * request with its type, and gpuplace's part of an admin comment; and a
 * line of the steering originals' file (plugin/orig_file.c), which read
 * must write back as it reads again.  Run by
 * tests/fuzz/fuzz_gres.sh with tests/fuzz/fuzz_driver.c, or under libFuzzer. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gres_parse.h"
#include "orig_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	uint32_t mask = 1;
	int32_t unindexed = -1;
	char type[64];
	size_t at, len;
	long n;
	int rc;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	n = gp_tres_gpus(s);
	if (n < -1 || n > (1L << 30))
		abort();
	rc = gp_live_gres_gpus(s, &mask, &unindexed);
	if (rc != 0 && rc != -1)
		abort();
	/* no GPU entry with an index list: no index taken; counts stay sane */
	if (rc == 0 && ((mask && !strstr(s, "(IDX:")) || unindexed < 0))
		abort();
	rc = gp_tres_gpu_request(s, &n, type, sizeof(type));
	if (rc < -2 || rc > 1 || (rc == 1 && (n < 0 || n > (1L << 30) || strlen(type) >= sizeof(type))))
		abort();
	/* the part lies inside the comment and ends with its reference */
	if (gp_comment_section(s, &at, &len) &&
	    (at + len > size || len < 14 || s[at + len - 1] < '0' || s[at + len - 1] > '9'))
		abort();
	{
		gp_orig_rec_t r, r2;
		char err[256], *line, *again;

		if (gp_orig_parse(s, &r, err, sizeof(err)) == 0) {
			if (!(line = gp_orig_format(&r)))
				abort();
			if (gp_orig_parse(line, &r2, err, sizeof(err)) != 0 ||
			    !(again = gp_orig_format(&r2)) || strcmp(line, again))
				abort();
			free(line);
			free(again);
			gp_orig_clear(&r2);
		} else if (r.ref != 0 || !*err) {
			abort(); /* refused: cleared, and said why */
		}
		gp_orig_clear(&r);
	}
	free(s);
	return 0;
}
