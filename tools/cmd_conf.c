/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_conf.c - `gpuplace conf`: Slurm configuration from the cluster model. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "model.h"
#include "slurm_emit.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: gpuplace conf (--conf-dir DIR | --json FILE) [--what nodes|topology|gres|all]\n"
	        "                     [--topology-format auto|tree|block|yaml]\n"
	        "\n"
	        "Write what Slurm needs from the cluster model:\n"
	        "  nodes     the NodeName lines of slurm.conf with topology-domain features\n"
	        "            (gpsw_SWITCH, gpnvl_DOMAIN, gprack_RACK) that job_submit/gpuplace\n"
	        "            uses to keep a job inside one domain\n"
	        "  topology  the topology as --topology-format says:\n"
	        "              auto   block when the model has blocks or cross-node NVLink\n"
	        "                     domains, else tree (default)\n"
	        "              tree   topology.conf for topology/tree (SwitchName lines)\n"
	        "              block  topology.conf for topology/block (BlockName lines, one\n"
	        "                     per block or NVLink domain, and BlockSizes)\n"
	        "              yaml   topology.yaml (Slurm 25.05+): a block topology and the\n"
	        "                     switch tree\n"
	        "  gres      gres.conf with Cores= and Links=\n"
	        "  all       the three, each under a comment naming its file (default)\n");
}

int gp_cmd_conf(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "conf-dir", required_argument, NULL, 'c' },
		{ "json", required_argument, NULL, 'j' },
		{ "what", required_argument, NULL, 'w' },
		{ "topology-format", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *json = NULL, *what = "all", *tfmt = "auto";
	gp_topo_format_t fmt;
	gp_cluster_t *c = NULL;
	gp_error_t err = { "" };
	int opt, rc = GP_OK;
	bool all;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': dir = optarg; break;
		case 'j': json = optarg; break;
		case 'w': what = optarg; break;
		case 't': tfmt = optarg; break;
		case 'h': usage(stdout); return 0;
		default:
			fprintf(stderr, "gpuplace conf: unknown or incomplete option '%s'\n", argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || (!dir == !json)) {
		fprintf(stderr, "gpuplace conf: give exactly one of --conf-dir or --json\n");
		usage(stderr);
		return 2;
	}
	all = !strcmp(what, "all");
	if (!all && strcmp(what, "nodes") && strcmp(what, "topology") && strcmp(what, "gres")) {
		fprintf(stderr, "gpuplace conf: --what '%s': use nodes, topology, gres or all\n", what);
		return 2;
	}
	if (!strcmp(tfmt, "auto"))
		fmt = GP_TOPO_AUTO;
	else if (!strcmp(tfmt, "tree"))
		fmt = GP_TOPO_TREE;
	else if (!strcmp(tfmt, "block"))
		fmt = GP_TOPO_BLOCK;
	else if (!strcmp(tfmt, "yaml"))
		fmt = GP_TOPO_YAML;
	else {
		fprintf(stderr, "gpuplace conf: --topology-format '%s': use auto, tree, block or yaml\n",
		        tfmt);
		return 2;
	}
	rc = gp__model_load(dir, json, NULL, &c, NULL, &err);
	if (rc) {
		fprintf(stderr, "gpuplace conf: %s\n", err.text);
		return 1;
	}
	if (all || !strcmp(what, "nodes")) {
		if (all)
			printf("##### slurm.conf #####\n");
		rc = gp__emit_slurm_nodes(c, dir, stdout, &err);
	}
	if (!rc && (all || !strcmp(what, "topology"))) {
		if (fmt == GP_TOPO_AUTO)
			fmt = gp__topo_format_auto(c);
		if (all)
			printf("\n##### %s #####\n", fmt == GP_TOPO_YAML ? "topology.yaml" : "topology.conf");
		rc = gp__emit_topology(c, fmt, stdout, &err);
	}
	if (!rc && (all || !strcmp(what, "gres"))) {
		if (all)
			printf("\n##### gres.conf #####\n");
		rc = gp__emit_gres(c, stdout, &err);
	}
	gp_cluster_destroy(c);
	if (rc) {
		fprintf(stderr, "gpuplace conf: %s\n", err.text);
		return 1;
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
