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
	        "usage: gpuplace synth --nodes N [OPTIONS] (--out-dir DIR | --json-out FILE)\n"
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
	        "  --rack-kw KW                 rack power cap (default: every node at peak\n"
	        "                               with the default 5 %% power margin free)\n"
	        "  --nvl-domain-nodes D         nodes per cross-node NVLink domain (0 = none)\n"
	        "  --oversub X                  leaf uplink oversubscription (default 1)\n"
	        "  --name NAME                  ClusterName (default synth)\n"
	        "  --seed S                     vary rack caps +-15%% reproducibly (0 = regular)\n"
	        "  --out-dir DIR                write slurm.conf, topology.conf, gres.conf,\n"
	        "                               gpuplace.conf into DIR\n"
	        "  --json-out FILE              write the model as JSON (- for standard output)\n");
}

/* What the command line asks for. */
struct args {
	gp_synth_params_t p;
	const char *out_dir, *json;
};

/* A ClusterName slurm.conf can carry. */
static int set_name(gp_synth_params_t *p, const char *v)
{
	if (!v[0] || strlen(v) >= sizeof(p->name) || strpbrk(v, " \t\"#=")) {
		fprintf(stderr, ME ": --name: '%s' is not a valid ClusterName\n", v);
		return -1;
	}
	snprintf(p->name, sizeof(p->name), "%s", v);
	return 0;
}

/* One option into p: 0, or -1 with the message printed. */
static int set_option(gp_synth_params_t *p, int opt, const char *name, const char *v)
{
	long seed;

	switch (opt) {
	case 'n': return gp__cli_int32(ME, name, v, 1, 1000000, &p->nodes);
	case 'g': return gp__cli_int32(ME, name, v, 1, GP_MAX_GPUS_PER_NODE, &p->gpus_per_node);
	case 'l': return gp__cli_int32(ME, name, v, 1, 100000, &p->nodes_per_leaf);
	case 's': return gp__cli_int32(ME, name, v, 1, 100000, &p->leaves_per_spine_group);
	case 'r': return gp__cli_int32(ME, name, v, 1, 100000, &p->nodes_per_rack);
	case 'v': return gp__cli_int32(ME, name, v, 0, 100000, &p->nvl_domain_nodes);
	case 'k': return gp__cli_double(ME, name, v, 0.001, 1e6, &p->rack_kw);
	case 'x': return gp__cli_double(ME, name, v, 1, 64, &p->oversub);
	case 'N': return set_name(p, v);
	case 't':
		if (strlen(v) >= sizeof(p->gpu_type)) {
			fprintf(stderr, ME ": --gpu-type: too long\n");
			return -1;
		}
		snprintf(p->gpu_type, sizeof(p->gpu_type), "%s", v);
		return 0;
	case 'S':
		if (gp__cli_long(ME, name, v, 0, LONG_MAX, &seed))
			return -1;
		p->seed = (uint64_t)seed;
		return 0;
	default:
		return -1;
	}
}

/* Options into *a: GP_CLI_RUN, or the exit status (0 --help, 2 usage). */
static int parse_args(int argc, char **argv, struct args *a)
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
		{ "json-out", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	gp_error_t err = { "" };
	char name[48];
	int opt, i = 0;

	memset(a, 0, sizeof(*a));
	gp__synth_defaults(&a->p);
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", opts, &i)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return 0;
		} else if (opt == 'o') {
			a->out_dir = optarg;
		} else if (opt == 'j') {
			a->json = optarg;
		} else if (opt == ':' || opt == '?') {
			return gp__cli_option_error(ME, opt, argv[optind - 1], usage);
		} else if (snprintf(name, sizeof(name), "--%s", opts[i].name),
		           set_option(&a->p, opt, name, optarg)) {
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, ME ": unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!a->p.nodes) {
		fprintf(stderr, ME ": --nodes N is required\n");
		usage(stderr);
		return 2;
	}
	if (!!a->out_dir == !!a->json) {
		fprintf(stderr, ME ": give exactly one of --out-dir DIR or --json-out FILE\n");
		return 2;
	}
	if (gp__synth_check(&a->p, &err)) {
		fprintf(stderr, ME ": %s\n", err.text);
		return 2;
	}
	return GP_CLI_RUN;
}

int gp_cmd_synth(int argc, char **argv)
{
	struct args a;
	gp_cluster_t *c = NULL;
	gp_error_t err = { "" };
	int rc;

	if ((rc = parse_args(argc, argv, &a)) != GP_CLI_RUN)
		return rc;
	if (a.out_dir) {
		rc = gp__synth_write_conf(&a.p, a.out_dir, &err);
	} else {
		rc = gp__synth_build(&a.p, &c, &err);
		if (!rc)
			rc = gp_cluster_save_json(c, NULL, a.json, &err);
		gp_cluster_destroy(c);
	}
	if (rc) {
		fprintf(stderr, ME ": %s\n", err.text);
		return 1;
	}
	if (a.out_dir)
		fprintf(stderr, ME ": %d nodes, %ld GPUs written to %s\n", (int)a.p.nodes,
		        (long)a.p.nodes * a.p.gpus_per_node, a.out_dir);
	return 0;
}
