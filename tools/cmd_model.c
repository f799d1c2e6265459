/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_model.c - `gpuplace model`: what the cost model predicts for a
 * collective (in nccl-tests' columns, to hold against measured tables) or
 * for a training job's step on a given node set.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>

#include "commands.h"
#include "cost.h"

#define ME "gpuplace model"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: gpuplace model [CLUSTER] [NODES] [COLLECTIVE | --job SPEC] [OPTIONS]\n"
	        "\n"
	        "Cluster (one of):\n"
	        "  --conf-dir DIR          Slurm configuration directory (slurm.conf, ...)\n"
	        "  --json FILE             cluster model as JSON\n"
	        "  --gpu TYPE              built-in shape: h100 h200 h800 a100 b200 gb200 pcie\n"
	        "                          (default h100 when no cluster is given)\n"
	        "    --nodes N             nodes in the shape (default: enough for --ngpus, else 1)\n"
	        "    --gpus-per-node G     GPUs per node (default 8)\n"
	        "    --rails R             NICs per node (default one per GPU)\n"
	        "    --nic-gbps X          per-NIC line rate, GB/s (default 50 = NDR 400 Gb/s)\n"
	        "    --nodes-per-leaf K    nodes under one leaf switch (default all)\n"
	        "    --leaves-per-spine L  leaves under one spine (default all)\n"
	        "    --oversub X           leaf uplink oversubscription (default 1)\n"
	        "    --nvl-nodes D         nodes per cross-node NVLink domain (default none)\n"
	        "Nodes and GPUs:\n"
	        "  --nodelist LIST        nodes in rank order (Slurm host list); default: the\n"
	        "                          first nodes of the cluster\n"
	        "  --ngpus N               total GPUs, filled node by node (default all GPUs\n"
	        "                          of the listed nodes)\n"
	        "  --use-gpus-per-node G   GPUs used on each node (default all)\n"
	        "Collective (default all-reduce), nccl-tests style:\n"
	        "  --op OP                 allreduce allgather reducescatter alltoall sendrecv\n"
	        "  --algo A                auto ring tree nvls hier direct (default auto)\n"
	        "  -b, --minbytes SIZE     smallest size (default 8; K M G suffixes, x1024)\n"
	        "  -e, --maxbytes SIZE     largest size (default 8G)\n"
	        "  -f, --stepfactor F      size multiplier (default 2)\n"
	        "Job:\n"
	        "  --job SPEC              job hints, e.g. tp=8,pp=2,params=70e9,step_s=2\n"
	        "                          (\"default\" = the default profile)\n"
	        "  --format text|json      breakdown format (default text)\n");
}

static uint32_t low_bits(int n)
{
	return n >= 32 ? ~0u : (1u << n) - 1;
}

static void print_header(const gp_cluster_t *c, const gp_placement_t *pl, int32_t G,
                         gp_coll_t coll, gp_algo_t algo)
{
	const gp_node_t *n0 = &c->nodes[pl->nodes[0]];
	const char *gpu = n0->profile >= 0 ? c->profiles[n0->profile].name : "unknown";

	printf("# gpuplace model: %s, %d ranks on %d node(s) (%s ... %s), GPU %s, algorithm %s\n",
	       gp__coll_name(coll), (int)G, (int)pl->n, n0->name,
	       c->nodes[pl->nodes[pl->n - 1]].name, gpu, gp__algo_name(algo));
	printf("# predicted by the cost model (no measurement); out-of-place columns\n");
	printf("#\n");
	printf("# %10s %12s %8s %6s %6s %10s %8s %8s  %s\n", "size", "count", "type", "redop",
	       "root", "time", "algbw", "busbw", "algo");
	printf("# %10s %12s %8s %6s %6s %10s %8s %8s\n", "(B)", "(elements)", "", "", "", "(us)",
	       "(GB/s)", "(GB/s)");
}

static int run_collectives(const gp_cluster_t *c, const gp_placement_t *pl, int32_t G,
                           gp_cost_scratch_t *s, gp_coll_t coll, gp_algo_t algo, double minb,
                           double maxb, double factor)
{
	double size;
	gp_error_t err = { "" };

	print_header(c, pl, G, coll, algo);
	for (size = minb; size <= maxb * (1 + 1e-9); size *= factor) {
		gp_coll_result_t r;
		double count = size / 4.0;
		bool reduce = coll == GP_COLL_ALLREDUCE || coll == GP_COLL_REDUCESCATTER;

		/* nccl-tests counts per rank for the gathered and scattered buffers */
		if (coll == GP_COLL_ALLGATHER || coll == GP_COLL_REDUCESCATTER ||
		    coll == GP_COLL_ALLTOALL)
			count = size / 4.0 / G;
		if (gp__cost_collective(c, pl, coll, algo, size, s, &r, &err) != GP_OK) {
			fprintf(stderr, ME ": %s\n", err.text);
			return 1;
		}
		printf("  %10.0f %12.0f %8s %6s %6d %10.2f %8.2f %8.2f  %s\n", size, count, "float",
		       reduce ? "sum" : "none", -1, r.time_s * 1e6, r.algbw_gbps, r.busbw_gbps,
		       gp__algo_name(r.algo));
		if (factor <= 1)
			break;
	}
	return ferror(stdout) ? 1 : 0;
}

static int run_job(const gp_cluster_t *c, const gp_placement_t *pl, int32_t G,
                   gp_cost_scratch_t *s, const char *spec, bool json)
{
	gp_job_profile_t job;
	gp_cost_t cost;
	gp_error_t err = { "" };
	double ideal = 0;
	int rc;

	if (!strcmp(spec, "default")) {
		gp__job_profile_default(c, G, &job);
	} else if (gp__job_profile_parse(spec, &job, &err) != GP_OK) {
		fprintf(stderr, ME ": --job: %s\n", err.text);
		return 2;
	}
	if (!job.gpus)
		job.gpus = G;
	rc = gp__cost_ideal(c, &job, pl->nodes[0], s, &ideal, &err);
	if (rc != GP_OK && rc != GP_ENOFIT) {
		fprintf(stderr, ME ": %s\n", err.text);
		return 1;
	}
	if (gp__cost_eval(c, &job, pl, s, ideal, &cost, &err) != GP_OK) {
		fprintf(stderr, ME ": %s\n", err.text);
		return 1;
	}
	rc = json ? gp__cost_print_json(&cost, &job, stdout) : gp__cost_print_text(&cost, &job, stdout);
	return rc == GP_OK ? 0 : 1;
}

int gp_cmd_model(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "conf-dir", required_argument, NULL, 'C' },
		{ "json", required_argument, NULL, 'J' },
		{ "gpu", required_argument, NULL, 'g' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "gpus-per-node", required_argument, NULL, 'G' },
		{ "rails", required_argument, NULL, 'r' },
		{ "nic-gbps", required_argument, NULL, 'N' },
		{ "nodes-per-leaf", required_argument, NULL, 'l' },
		{ "leaves-per-spine", required_argument, NULL, 's' },
		{ "oversub", required_argument, NULL, 'x' },
		{ "nvl-nodes", required_argument, NULL, 'v' },
		{ "nodelist", required_argument, NULL, 'w' },
		{ "ngpus", required_argument, NULL, 'p' },
		{ "use-gpus-per-node", required_argument, NULL, 'u' },
		{ "op", required_argument, NULL, 'o' },
		{ "algo", required_argument, NULL, 'a' },
		{ "minbytes", required_argument, NULL, 'b' },
		{ "maxbytes", required_argument, NULL, 'e' },
		{ "stepfactor", required_argument, NULL, 'f' },
		{ "job", required_argument, NULL, 'j' },
		{ "format", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *conf_dir = NULL, *json_path = NULL, *nodelist = NULL, *job = NULL;
	gp_cost_shape_t sh;
	gp_cluster_t *c = NULL;
	gp_cost_scratch_t *s = NULL;
	gp_coll_t coll = GP_COLL_ALLREDUCE;
	gp_algo_t algo = GP_ALGO_AUTO;
	gp_error_t err = { "" };
	gp_placement_t pl;
	int32_t *nodes = NULL, nn = 0, i, G = 0;
	uint32_t *mask = NULL;
	long v, ngpus = 0, use_gpn = 0;
	double minb = 8, maxb = 8.0 * 1073741824.0, factor = 2, x;
	bool shape_opt = false, json_out = false;
	int opt, rc = 1;

	gp__cost_shape_defaults(&sh);
	sh.nodes = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":hb:e:f:", opts, NULL)) != -1) {
		const char *name = argv[optind - 1];

		switch (opt) {
		case 'C': conf_dir = optarg; break;
		case 'J': json_path = optarg; break;
		case 'g':
			if (!gp__cost_gpu_builtin(optarg, NULL)) {
				fprintf(stderr, ME ": --gpu: unknown GPU '%s'\n", optarg);
				return 2;
			}
			snprintf(sh.gpu, sizeof(sh.gpu), "%s", optarg);
			shape_opt = true;
			break;
		case 'n':
			if (gp__cli_long(ME, name, optarg, 1, 1 << 20, &v))
				return 2;
			sh.nodes = (int32_t)v;
			shape_opt = true;
			break;
		case 'G':
			if (gp__cli_long(ME, name, optarg, 1, GP_MAX_GPUS_PER_NODE, &v))
				return 2;
			sh.gpus_per_node = (int32_t)v;
			shape_opt = true;
			break;
		case 'r':
			if (gp__cli_long(ME, name, optarg, 1, 32, &v))
				return 2;
			sh.rails = (int32_t)v;
			shape_opt = true;
			break;
		case 'N':
			if (gp__cli_double(ME, name, optarg, 0.001, 1e6, &sh.nic_gbps))
				return 2;
			shape_opt = true;
			break;
		case 'l':
			if (gp__cli_long(ME, name, optarg, 1, 1 << 20, &v))
				return 2;
			sh.nodes_per_leaf = (int32_t)v;
			shape_opt = true;
			break;
		case 's':
			if (gp__cli_long(ME, name, optarg, 1, 1 << 20, &v))
				return 2;
			sh.leaves_per_spine = (int32_t)v;
			shape_opt = true;
			break;
		case 'x':
			if (gp__cli_double(ME, name, optarg, 1, 1000, &x))
				return 2;
			sh.oversub[1] = x;
			shape_opt = true;
			break;
		case 'v':
			if (gp__cli_long(ME, name, optarg, 1, 1 << 20, &v))
				return 2;
			sh.nvl_nodes = (int32_t)v;
			shape_opt = true;
			break;
		case 'w': nodelist = optarg; break;
		case 'p':
			if (gp__cli_long(ME, name, optarg, 1, 1 << 24, &ngpus))
				return 2;
			break;
		case 'u':
			if (gp__cli_long(ME, name, optarg, 1, GP_MAX_GPUS_PER_NODE, &use_gpn))
				return 2;
			break;
		case 'o':
			if (gp__coll_parse(optarg, &coll)) {
				fprintf(stderr, ME ": --op: unknown collective '%s'\n", optarg);
				return 2;
			}
			break;
		case 'a':
			if (gp__algo_parse(optarg, &algo)) {
				fprintf(stderr, ME ": --algo: unknown algorithm '%s'\n", optarg);
				return 2;
			}
			break;
		case 'b':
			if (gp__cli_size(ME, name, optarg, &minb))
				return 2;
			break;
		case 'e':
			if (gp__cli_size(ME, name, optarg, &maxb))
				return 2;
			break;
		case 'f':
			if (gp__cli_double(ME, name, optarg, 1, 1024, &factor))
				return 2;
			break;
		case 'j': job = optarg; break;
		case 'F':
			if (!strcmp(optarg, "json")) {
				json_out = true;
			} else if (strcmp(optarg, "text")) {
				fprintf(stderr, ME ": --format: '%s' is not text or json\n", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			fprintf(stderr, ME ": %s needs a value\n", name);
			return 2;
		default:
			fprintf(stderr, ME ": unknown option '%s'\n", name);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, ME ": unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if ((conf_dir != NULL) + (json_path != NULL) + shape_opt > 1) {
		fprintf(stderr, ME ": give one of --conf-dir, --json or a built-in shape\n");
		return 2;
	}
	if (minb > maxb) {
		fprintf(stderr, ME ": -b is larger than -e\n");
		return 2;
	}
	if (job && (minb != 8 || factor != 2 || coll != GP_COLL_ALLREDUCE || algo != GP_ALGO_AUTO)) {
		fprintf(stderr, ME ": --job does not take collective options\n");
		return 2;
	}

	if (conf_dir || json_path) {
		if (gp__model_load(conf_dir, json_path, NULL, &c, NULL, &err) != GP_OK) {
			fprintf(stderr, ME ": %s\n", err.text);
			return 1;
		}
	} else {
		if (!sh.nodes) {
			long per = use_gpn ? use_gpn : sh.gpus_per_node;

			sh.nodes = ngpus ? (int32_t)((ngpus + per - 1) / per) : 1;
		}
		if (gp__cost_shape_build(&sh, &c, &err) != GP_OK) {
			fprintf(stderr, ME ": %s\n", err.text);
			return 2;
		}
	}

	nodes = calloc((size_t)c->nnodes + 1, sizeof(*nodes));
	mask = calloc((size_t)c->nnodes + 1, sizeof(*mask));
	if (!nodes || !mask) {
		fprintf(stderr, ME ": out of memory\n");
		goto out;
	}
	if (nodelist) {
		int32_t *idx = NULL;

		if (gp__hostlist_nodes(c, ME ": --nodelist", nodelist, c->nnodes, &idx, &nn, &err)) {
			fprintf(stderr, "%s\n", err.text);
			rc = 2;
			goto out;
		}
		if (nn)
			memcpy(nodes, idx, (size_t)nn * sizeof(*idx));
		free(idx);
	} else {
		for (i = 0; i < c->nnodes; i++)
			nodes[nn++] = c->node_order && c->root >= 0 ? c->node_order[i] : i;
	}
	/* fill GPUs node by node up to --ngpus */
	for (i = 0; i < nn; i++) {
		int g = c->nodes[nodes[i]].ngpus;

		if (use_gpn && use_gpn < g)
			g = (int)use_gpn;
		if (ngpus && G + g > ngpus)
			g = (int)(ngpus - G);
		if (g <= 0)
			break;
		mask[i] = low_bits(g);
		G += g;
	}
	nn = i;
	if (ngpus && G < ngpus) {
		fprintf(stderr, ME ": the nodes hold %d GPUs, --ngpus asks for %ld\n", (int)G, ngpus);
		rc = 2;
		goto out;
	}
	if (G < 1) {
		fprintf(stderr, ME ": no GPUs on the chosen nodes\n");
		goto out;
	}
	pl.n = nn;
	pl.nodes = nodes;
	pl.gpu_mask = mask;
	if (gp__cost_scratch_new(c, G, &s) != GP_OK) {
		fprintf(stderr, ME ": out of memory\n");
		goto out;
	}
	if (job)
		rc = run_job(c, &pl, G, s, job, json_out);
	else
		rc = run_collectives(c, &pl, G, s, coll, algo, minb, maxb, factor);
out:
	gp__cost_scratch_destroy(s);
	free(nodes);
	free(mask);
	gp_cluster_destroy(c);
	return rc;
}
