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
	        "usage: gpuplace conf (--conf-dir DIR | --json FILE)\n"
	        "                     [--what nodes|topology|gres|resources|licenses|all]\n"
	        "                     [--topology-format auto|tree|block|yaml] [--hres NAME]\n"
	        "                     [--licenses PREFIX]\n"
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
	        "  resources resources.yaml (Slurm 25.11+): the racks' power as the hierarchical\n"
	        "            resource gpuplace.conf's PowerHres= names (or --hres NAME), MODE_3,\n"
	        "            one layer per rack of min(cap, cooling) less its idle draw, W\n"
	        "  licenses  slurm.conf's Licenses= line (every Slurm release): the racks' power\n"
	        "            as one cluster license per rack, PREFIX_RACK, with gpuplace.conf's\n"
	        "            PowerLicenses= prefix (or --licenses PREFIX), each of min(cap,\n"
	        "            cooling) less its rack's idle draw, W\n"
	        "  all       nodes, topology and gres, resources when PowerHres= is set and\n"
	        "            licenses when PowerLicenses= is, each under a comment naming its\n"
	        "            file (default)\n");
}

/* What the command line asks for. */
struct args {
	const char *dir, *json;
	const char *hres;                /* --hres: the resource's name, else PowerHres */
	const char *lic;                 /* --licenses: the prefix, else PowerLicenses */
	bool nodes, topology, gres, resources, licenses, all; /* --what: each asked for; all: "all" */
	gp_topo_format_t fmt;            /* --topology-format */
};

/* Options into *a: GP_CLI_RUN, or the exit status (0 --help, 2 usage). */
static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
		{ "conf-dir", required_argument, NULL, 'c' },
		{ "json", required_argument, NULL, 'j' },
		{ "what", required_argument, NULL, 'w' },
		{ "topology-format", required_argument, NULL, 't' },
		{ "hres", required_argument, NULL, 'r' },
		{ "licenses", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const fmts[] = { "auto", "tree", "block", "yaml" };
	static const gp_topo_format_t fmt_of[] = { GP_TOPO_AUTO, GP_TOPO_TREE, GP_TOPO_BLOCK,
		                                   GP_TOPO_YAML };
	const char *what = "all", *tfmt = "auto";
	size_t i;
	int opt;

	memset(a, 0, sizeof(*a));
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': a->dir = optarg; break;
		case 'j': a->json = optarg; break;
		case 'w': what = optarg; break;
		case 't': tfmt = optarg; break;
		case 'r': a->hres = optarg; break;
		case 'l': a->lic = optarg; break;
		case 'h': usage(stdout); return 0;
		default:
			fprintf(stderr, "gpuplace conf: unknown or incomplete option '%s'\n", argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || (!a->dir == !a->json)) {
		fprintf(stderr, "gpuplace conf: give exactly one of --conf-dir or --json\n");
		usage(stderr);
		return 2;
	}
	a->all = !strcmp(what, "all");
	a->nodes = a->all || !strcmp(what, "nodes");
	a->topology = a->all || !strcmp(what, "topology");
	a->gres = a->all || !strcmp(what, "gres");
	a->resources = !strcmp(what, "resources"); /* with all: when PowerHres= is set */
	a->licenses = !strcmp(what, "licenses"); /* with all: when PowerLicenses= is set */
	if (!a->nodes && !a->topology && !a->gres && !a->resources && !a->licenses) {
		fprintf(stderr,
		        "gpuplace conf: --what '%s': use nodes, topology, gres, resources, licenses "
		        "or all\n",
		        what);
		return 2;
	}
	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]) && strcmp(tfmt, fmts[i]); i++)
		;
	if (i == sizeof(fmts) / sizeof(fmts[0])) {
		fprintf(stderr, "gpuplace conf: --topology-format '%s': use auto, tree, block or yaml\n",
		        tfmt);
		return 2;
	}
	a->fmt = fmt_of[i];
	return GP_CLI_RUN;
}

/* The files asked for on stdout, each under a comment naming it when all
 * are; GP_OK or the error in err. */
static int emit(const struct args *a, const gp_cluster_t *c, gp_error_t *err)
{
	gp_topo_format_t fmt = a->fmt == GP_TOPO_AUTO ? gp__topo_format_auto(c) : a->fmt;
	int rc = GP_OK;

	if (a->nodes) {
		if (a->all)
			printf("##### slurm.conf #####\n");
		rc = gp__emit_slurm_nodes(c, a->dir, stdout, err);
	}
	if (!rc && a->topology) {
		if (a->all)
			printf("\n##### %s #####\n", fmt == GP_TOPO_YAML ? "topology.yaml" : "topology.conf");
		rc = gp__emit_topology(c, fmt, stdout, err);
	}
	if (!rc && a->gres) {
		if (a->all)
			printf("\n##### gres.conf #####\n");
		rc = gp__emit_gres(c, stdout, err);
	}
	if (!rc && (a->resources || (a->all && (a->hres || c->site.power_hres[0])))) {
		if (a->all)
			printf("\n##### resources.yaml #####\n");
		rc = gp__emit_resources(c, a->hres ? a->hres : c->site.power_hres, stdout, err);
	}
	if (!rc && (a->licenses || (a->all && (a->lic || c->site.power_lic[0])))) {
		if (a->all)
			printf("\n##### slurm.conf Licenses= #####\n");
		rc = gp__emit_licenses(c, a->lic ? a->lic : c->site.power_lic, stdout, err);
	}
	return rc;
}

int gp_cmd_conf(int argc, char **argv)
{
	struct args a;
	gp_cluster_t *c = NULL;
	gp_error_t err = { "" };
	int rc;

	if ((rc = parse_args(argc, argv, &a)) != GP_CLI_RUN)
		return rc;
	rc = gp__model_load(a.dir, a.json, NULL, &c, NULL, &err);
	if (rc == GP_OK)
		rc = emit(&a, c, &err);
	gp_cluster_destroy(c);
	if (rc) {
		fprintf(stderr, "gpuplace conf: %s\n", err.text);
		return 1;
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
