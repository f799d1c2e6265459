/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_cluster_merge.c - `gpuplace cluster merge FRAG.json...`: many nodes'
 * probe fragments into compressed gres.conf and gpuplace.conf lines. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "discover.h"

#define FRAG_MAX_BYTES (4L << 20) /* a 16-GPU fragment is about 10 kB */

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: gpuplace cluster merge [--json-out FILE] FRAG.json...\n"
	        "\n"
	        "Merge the JSON fragments written by `gpuplace probe --json-out` on many nodes:\n"
	        "gres.conf lines with identical nodes grouped under one host list, the\n"
	        "gpuplace.conf NodeName=LIST Rails=N lines, and each group's slurm.conf\n"
	        "Gres= and Features= as comments.\n"
	        "\n"
	        "  --json-out FILE  write to FILE instead of standard output\n"
	        "  -h, --help   this help\n");
}

/* Read one fragment; *out freed by the caller with gp__probe_destroy(). */
static int load_fragment(const char *path, gp_probe_t **out, gp_error_t *err)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;
	int rc;

	*out = NULL;
	if (!f)
		return gp__errorf(err, GP_EIO, "%s: %s", path, strerror(errno));
	buf = malloc(FRAG_MAX_BYTES + 1);
	if (!buf) {
		fclose(f);
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	}
	n = fread(buf, 1, FRAG_MAX_BYTES + 1, f);
	if (ferror(f))
		rc = gp__errorf(err, GP_EIO, "%s: read error", path);
	else if (n > FRAG_MAX_BYTES)
		rc = gp__errorf(err, GP_ELIMIT, "%s: larger than %ld bytes", path, FRAG_MAX_BYTES);
	else
		rc = gp__probe_from_json(buf, n, path, out, err);
	fclose(f);
	free(buf);
	return rc;
}

int gp_cmd_cluster_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json-out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	gp_error_t err = { "" };
	gp_probe_t **p = NULL;
	FILE *f = stdout, *mem;
	char *text = NULL;
	size_t len = 0;
	int c, i, rc, n = 0, status = 1;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'h': usage(stdout); return 0;
		default:
			return gp__cli_option_error("gpuplace cluster merge", c, argv[optind - 1], usage);
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "gpuplace cluster merge: no fragment given\n");
		usage(stderr);
		return 2;
	}
	p = calloc((size_t)(argc - optind), sizeof(*p));
	if (!p) {
		fprintf(stderr, "gpuplace cluster merge: out of memory\n");
		return 1;
	}
	for (i = optind; i < argc; i++, n++)
		if (load_fragment(argv[i], &p[n], &err))
			goto out;
	/* merge into memory first: on any error nothing is written */
	mem = open_memstream(&text, &len);
	if (!mem) {
		gp__errorf(&err, GP_ENOMEM, "out of memory");
		goto out;
	}
	rc = gp__probe_merge(p, n, mem, &err);
	if (fclose(mem) && !rc)
		rc = gp__errorf(&err, GP_ENOMEM, "out of memory");
	if (rc)
		goto out;
	if (out && !(f = fopen(out, "w"))) {
		gp__errorf(&err, GP_EIO, "%s: %s", out, strerror(errno));
		goto out;
	}
	fwrite(text, 1, len, f);
	if (f != stdout ? fclose(f) != 0 : fflush(f) != 0) {
		gp__errorf(&err, GP_EIO, "%s: write error", out ? out : "standard output");
		goto out;
	}
	status = 0;
out:
	free(text);
	if (status)
		fprintf(stderr, "gpuplace cluster merge: %s\n", err.text);
	for (i = 0; i < n; i++)
		gp__probe_destroy(p[i]);
	free(p);
	return status;
}
