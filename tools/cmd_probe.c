/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_probe.c - `gpuplace probe`: describe this node (or a saved hwloc
 * topology) as gres.conf / slurm.conf / gpuplace.conf lines or as the JSON
 * fragment `gpuplace cluster merge` reads. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "discover.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: gpuplace probe [--xml FILE] [--node-name NAME] [--gpu-type TYPE] [--json-out FILE]\n"
	        "\n"
	        "Find this node's GPUs, NVLinks and GPU-NIC affinity with hwloc and print\n"
	        "its gres.conf lines (Cores=, Links=), slurm.conf Gres=/Features= and\n"
	        "gpuplace.conf Rails= line.\n"
	        "\n"
	        "  --xml FILE        read a saved hwloc XML topology instead of this machine\n"
	        "  --node-name NAME  node name in the lines (default: the host name)\n"
	        "  --gpu-type TYPE   gres Type= of every GPU (default: from the GPU model)\n"
	        "  --json-out FILE   write the node's JSON fragment to FILE ('-' = standard\n"
	        "                    output, instead of the configuration lines)\n"
	        "  -h, --help        this help\n");
}

static int set_type(gp_probe_t *p, const char *type)
{
	int g;

	if (strlen(type) >= sizeof(p->gpus[0].type) || !*type || strpbrk(type, " \t,:=\"")) {
		fprintf(stderr, "gpuplace probe: --gpu-type: '%s' is not a gres type\n", type);
		return 2;
	}
	for (g = 0; g < p->ngpus; g++)
		snprintf(p->gpus[g].type, sizeof(p->gpus[g].type), "%s", type);
	return 0;
}

static int write_json(const gp_probe_t *p, const char *path)
{
	gp_error_t err = { "" };
	char *text = NULL;
	FILE *f;
	int rc = gp__probe_to_json(p, &text, &err);

	if (rc) {
		fprintf(stderr, "gpuplace probe: %s\n", err.text);
		return 1;
	}
	f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	if (!f) {
		perror(path);
		free(text);
		return 1;
	}
	fprintf(f, "%s\n", text);
	free(text);
	if (f != stdout ? fclose(f) != 0 : fflush(f) != 0) {
		fprintf(stderr, "gpuplace probe: %s: write error\n", path);
		return 1;
	}
	return 0;
}

int gp_cmd_probe(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "xml", required_argument, NULL, 'x' },
		{ "node-name", required_argument, NULL, 'n' },
		{ "gpu-type", required_argument, NULL, 't' },
		{ "json-out", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *xml = NULL, *node = NULL, *type = NULL, *json = NULL;
	gp_error_t err = { "" };
	gp_probe_t *p = NULL;
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'x': xml = optarg; break;
		case 'n': node = optarg; break;
		case 't': type = optarg; break;
		case 'j': json = optarg; break;
		case 'h': usage(stdout); return 0;
		default: return gp__cli_option_error("gpuplace probe", c, argv[optind - 1], usage);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gpuplace probe: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	rc = gp__probe_load(xml, node, &p, &err);
	if (rc) {
		fprintf(stderr, "gpuplace probe: %s\n", err.text);
		return rc == GP_EINVAL ? 2 : 1;
	}
	if (type && (rc = set_type(p, type))) {
		gp__probe_destroy(p);
		return rc;
	}
	if (p->ngpus == 0)
		fprintf(stderr, "gpuplace probe: no GPU found on %s (%s): hwloc shows no CUDA, "
		        "NVML, RSMI, Level Zero or OpenCL GPU and no GPU PCI device\n",
		        p->node, xml ? xml : "this machine");
	if (json)
		rc = write_json(p, json);
	else if (gp__probe_write_conf(p, stdout, &err) || fflush(stdout)) {
		fprintf(stderr, "gpuplace probe: %s\n", err.text[0] ? err.text : "write error");
		rc = 1;
	}
	gp__probe_destroy(p);
	return rc;
}
