/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_synth.c - `gpuplace synth`: write a synthetic cluster. */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "model.h"
#include "synth.h"

#define ME "gpuplace synth"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: gpuplace synth --nodes N [OPTIONS] (--out-dir DIR | --json FILE)\n"
	        "\n"
	        "A rail-optimized leaf/spine cluster: scalable units of nodes under one leaf,\n"
	        "leaves under spine groups, a core switch above several spine groups.\n"
	        "\n"
	        "  --nodes N                    number of nodes (required)\n"
	        "  --gpus-per-node G            GPUs per node (default 8)\n"
	        "  --gpu-type TYPE              h100 (default), h200, a100, b200, gb200\n"
	        "  --nodes-per-leaf L           nodes per leaf switch / scalable unit (default 32)\n"
	        "  --leaves-per-spine-group S   leaves under one spine group (default 16)\n"
	        "  --nodes-per-rack R           nodes per rack (default 4, or the NVLink domain)\n"
	        "  --rack-kw KW                 rack power cap (default: every node at peak)\n"
	        "  --nvl-domain-nodes D         nodes per cross-node NVLink domain (0 = none)\n"
	        "  --oversub X                  leaf uplink oversubscription (default 1)\n"
	        "  --name NAME                  ClusterName (default synth)\n"
	        "  --seed S                     vary rack caps +-15%% reproducibly (0 = regular)\n"
	        "  --out-dir DIR                write slurm.conf, topology.conf, gres.conf,\n"
	        "                               gpuplace.conf into DIR\n"
	        "  --json FILE                  write the model as JSON (- for standard output)\n");
}

int gp_cmd_synth(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "nodes", required_argument, NULL, 'n' },
		{ "gpus-per-node", required_argument, NULL, 'g' },
		{ "gpu-type", required_argument, NULL, 't' },
		{ "nodes-per-leaf", required_argument, NULL, 'l' },
		{ "leaves-per-spine-group", required_argument, NULL, 's' },
		{ "nodes-per-rack", required_argument, NULL, 'r' },
		{ "rack-kw", required_argument, NULL, 'k' },
		{ "nvl-domain-nodes", required_argument, NULL, 'v' },
		{ "oversub", required_argument, NULL, 'x' },
		{ "name", required_argument, NULL, 'N' },
		{ "seed", required_argument, NULL, 'S' },
		{ "out-dir", required_argument, NULL, 'o' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out_dir = NULL, *json = NULL;
	gp_synth_params_t p;
	gp_cluster_t *c = NULL;
	gp_error_t err = { "" };
	long v;
	int opt, rc;

	gp__synth_defaults(&p);
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		const char *name = argv[optind - 1];

		switch (opt) {
		case 'n':
			if (gp__cli_long(ME, "--nodes", optarg, 1, 1000000, &v))
				return 2;
			p.nodes = (int32_t)v;
			break;
		case 'g':
			if (gp__cli_long(ME, "--gpus-per-node", optarg, 1, GP_MAX_GPUS_PER_NODE, &v))
				return 2;
			p.gpus_per_node = (int32_t)v;
			break;
		case 't':
			if (strlen(optarg) >= sizeof(p.gpu_type)) {
				fprintf(stderr, "gpuplace synth: --gpu-type: too long\n");
				return 2;
			}
			snprintf(p.gpu_type, sizeof(p.gpu_type), "%s", optarg);
			break;
		case 'l':
			if (gp__cli_long(ME, "--nodes-per-leaf", optarg, 1, 100000, &v))
				return 2;
			p.nodes_per_leaf = (int32_t)v;
			break;
		case 's':
			if (gp__cli_long(ME, "--leaves-per-spine-group", optarg, 1, 100000, &v))
				return 2;
			p.leaves_per_spine_group = (int32_t)v;
			break;
		case 'r':
			if (gp__cli_long(ME, "--nodes-per-rack", optarg, 1, 100000, &v))
				return 2;
			p.nodes_per_rack = (int32_t)v;
			break;
		case 'k':
			if (gp__cli_double(ME, "--rack-kw", optarg, 0.001, 1e6, &p.rack_kw))
				return 2;
			break;
		case 'v':
			if (gp__cli_long(ME, "--nvl-domain-nodes", optarg, 0, 100000, &v))
				return 2;
			p.nvl_domain_nodes = (int32_t)v;
			break;
		case 'x':
			if (gp__cli_double(ME, "--oversub", optarg, 1, 64, &p.oversub))
				return 2;
			break;
		case 'N':
			if (!optarg[0] || strlen(optarg) >= sizeof(p.name) || strpbrk(optarg, " \t\"#=")) {
				fprintf(stderr, "gpuplace synth: --name: '%s' is not a valid ClusterName\n",
				        optarg);
				return 2;
			}
			snprintf(p.name, sizeof(p.name), "%s", optarg);
			break;
		case 'S':
			if (gp__cli_long(ME, "--seed", optarg, 0, LONG_MAX, &v))
				return 2;
			p.seed = (uint64_t)v;
			break;
		case 'o': out_dir = optarg; break;
		case 'j': json = optarg; break;
		case 'h': usage(stdout); return 0;
		case ':':
			fprintf(stderr, "gpuplace synth: %s needs an argument\n", name);
			usage(stderr);
			return 2;
		default:
			fprintf(stderr, "gpuplace synth: unknown option '%s'\n", name);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gpuplace synth: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!p.nodes) {
		fprintf(stderr, "gpuplace synth: --nodes N is required\n");
		usage(stderr);
		return 2;
	}
	if (!!out_dir == !!json) {
		fprintf(stderr, "gpuplace synth: give exactly one of --out-dir DIR or --json FILE\n");
		return 2;
	}
	if ((rc = gp__synth_check(&p, &err))) {
		fprintf(stderr, "gpuplace synth: %s\n", err.text);
		return 2;
	}
	if (out_dir) {
		rc = gp__synth_write_conf(&p, out_dir, &err);
	} else {
		rc = gp__synth_build(&p, &c, &err);
		if (!rc)
			rc = gp_cluster_save_json(c, NULL, json, &err);
		gp_cluster_destroy(c);
	}
	if (rc) {
		fprintf(stderr, "gpuplace synth: %s\n", err.text);
		return 1;
	}
	if (out_dir)
		fprintf(stderr, "gpuplace synth: %d nodes, %ld GPUs written to %s\n", (int)p.nodes,
		        (long)p.nodes * p.gpus_per_node, out_dir);
	return 0;
}
