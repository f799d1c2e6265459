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

#include <json-c/json.h>

#include "commands.h"
#include "cost.h"

#define ME "gpuplace model"
#define GP_MAX_NODES_ARG 4096

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: gpuplace model [CLUSTER] [NODES] [COLLECTIVE | --job SPEC] [OPTIONS]\n"
	        "\n"
	        "Cluster (one of):\n"
	        "  --conf-dir DIR          Slurm configuration directory (slurm.conf, ...)\n"
	        "  --json FILE             cluster model as JSON\n"
	        "  --gpu-type TYPE         built-in shape: h100 h200 h800 a100 b200 gb200 pcie t4\n"
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
	        "  --nodelist LIST         nodes in rank order (Slurm host list, or NODE:G,...\n"
	        "                          with the GPUs used on each); default: the first\n"
	        "                          nodes of the cluster\n"
	        "  --placement G,G,...     GPUs used on each node in rank order (uneven\n"
	        "                          placements such as 4,2,1,1)\n"
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
	        "  --format text|json      output format, for --job and for collectives\n"
	        "                          (default text)\n");
}

/* Parse "G,G,..." (GPUs per node) into counts[]; *n set.  0 or -1. */
static int parse_counts(const char *opt, const char *s, int32_t *counts, int32_t max, int32_t *n)
{
	char buf[64];
	const char *p = s;
	long v;

	*n = 0;
	while (*p) {
		size_t l = strcspn(p, ",");

		if (l == 0 || l >= sizeof(buf)) {
			fprintf(stderr, ME ": %s: '%s' is not a list of GPU counts\n", opt, s);
			return -1;
		}
		memcpy(buf, p, l);
		buf[l] = '\0';
		if (gp__cli_long(ME, "--placement", buf, 1, GP_MAX_GPUS_PER_NODE, &v))
			return -1;
		if (*n >= max) {
			fprintf(stderr, ME ": %s: more than %d nodes\n", opt, (int)max);
			return -1;
		}
		counts[(*n)++] = (int32_t)v;
		p += l;
		if (*p == ',')
			p++;
	}
	if (!*n) {
		fprintf(stderr, ME ": %s: empty list\n", opt);
		return -1;
	}
	return 0;
}

/* "NODE:G,NODE:G" (a count per node, NODE a single name); counts[i] = 0
 * where an entry has no count. */
static int parse_node_counts(const gp_cluster_t *c, const char *list, int32_t *nodes,
                             int32_t *counts, int32_t max, int32_t *n)
{
	char buf[GP_NAME_MAX + 16];
	const char *p = list;
	long v;

	*n = 0;
	while (*p) {
		size_t l = strcspn(p, ",");
		char *colon;
		int32_t i;

		if (l == 0 || l >= sizeof(buf)) {
			fprintf(stderr, ME ": --nodelist: '%s' is not NODE:GPUS,...\n", list);
			return -1;
		}
		memcpy(buf, p, l);
		buf[l] = '\0';
		colon = strchr(buf, ':');
		if (colon)
			*colon++ = '\0';
		i = gp__node_find(c, buf);
		if (i < 0) {
			fprintf(stderr, ME ": --nodelist: unknown node '%s'\n", buf);
			return -1;
		}
		if (*n >= max) {
			fprintf(stderr, ME ": --nodelist: more than %d nodes\n", (int)max);
			return -1;
		}
		v = 0;
		if (colon && gp__cli_long(ME, "--nodelist", colon, 1, GP_MAX_GPUS_PER_NODE, &v))
			return -1;
		nodes[*n] = i;
		counts[(*n)++] = (int32_t)v;
		p += l;
		if (*p == ',')
			p++;
	}
	return 0;
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
                           double maxb, double factor, bool json)
{
	double size;
	gp_error_t err = { "" };
	json_object *rows = NULL;
	int rc = 0;

	if (json && !(rows = json_object_new_array())) {
		fprintf(stderr, ME ": out of memory\n");
		return 1;
	}
	if (!json)
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
			json_object_put(rows);
			return 1;
		}
		if (rows) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "bytes", json_object_new_double(size));
			json_object_object_add(o, "count", json_object_new_double(count));
			json_object_object_add(o, "time_us", json_object_new_double(r.time_s * 1e6));
			json_object_object_add(o, "algbw_gbps", json_object_new_double(r.algbw_gbps));
			json_object_object_add(o, "busbw_gbps", json_object_new_double(r.busbw_gbps));
			json_object_object_add(o, "algo", json_object_new_string(gp__algo_name(r.algo)));
			json_object_array_add(rows, o);
		} else
			printf("  %10.0f %12.0f %8s %6s %6d %10.2f %8.2f %8.2f  %s\n", size, count, "float",
		       reduce ? "sum" : "none", -1, r.time_s * 1e6, r.algbw_gbps, r.busbw_gbps,
		       gp__algo_name(r.algo));
		if (factor <= 1)
			break;
	}
	if (rows) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "gpus", json_object_new_int(G));
		json_object_object_add(o, "nodes", json_object_new_int(pl->n));
		json_object_object_add(o, "rows", rows);
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
		                                              JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	}
	rc = ferror(stdout) ? 1 : 0;
	return rc;
}

static int run_job(const gp_cluster_t *c, const gp_placement_t *pl, int32_t G,
                   gp_cost_scratch_t *s, const char *spec, bool json)
{
	gp_job_profile_t job;
	gp_cost_t cost;
	gp_error_t err = { "" };
	char used[320];
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
	if (gp__job_profile_fill_defaults(c, &job, used, sizeof(used)) > 0 && !json)
		printf("defaults: %s\n", used);
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

/* What the command line asks for. */
struct args {
	const char *conf_dir, *json_path, *nodelist, *job, *placement;
	int32_t pcounts[GP_MAX_NODES_ARG], npc; /* --placement's GPUs per node */
	gp_cost_shape_t sh;                     /* the built-in shape */
	bool shape_opt, json_out;               /* a shape option was given; --format json */
	gp_coll_t coll;
	gp_algo_t algo;
	long ngpus, use_gpn;
	double minb, maxb, factor;
};

/* One option of the built-in shape into a->sh (name: the option as
 * written, as the messages say it); 0, or 2 with the message printed. */
static int parse_shape_opt(struct args *a, int opt, const char *name, const char *arg)
{
	long v;

	a->shape_opt = true;
	switch (opt) {
	case 'g':
		if (!gp__cost_gpu_builtin(arg, NULL)) {
			fprintf(stderr, ME ": --gpu-type: unknown GPU '%s'\n", arg);
			return 2;
		}
		snprintf(a->sh.gpu, sizeof(a->sh.gpu), "%s", arg);
		return 0;
	case 'N':
		return gp__cli_double(ME, name, arg, 0.001, 1e6, &a->sh.nic_gbps) ? 2 : 0;
	case 'x':
		return gp__cli_double(ME, name, arg, 1, 1000, &a->sh.oversub[1]) ? 2 : 0;
	case 'G':
		if (gp__cli_long(ME, name, arg, 1, GP_MAX_GPUS_PER_NODE, &v))
			return 2;
		a->sh.gpus_per_node = (int32_t)v;
		return 0;
	case 'r':
		if (gp__cli_long(ME, name, arg, 1, 32, &v))
			return 2;
		a->sh.rails = (int32_t)v;
		return 0;
	}
	/* the counts of nodes, leaves and domains */
	if (gp__cli_long(ME, name, arg, 1, 1 << 20, &v))
		return 2;
	switch (opt) {
	case 'n': a->sh.nodes = (int32_t)v; break;
	case 'l': a->sh.nodes_per_leaf = (int32_t)v; break;
	case 's': a->sh.leaves_per_spine = (int32_t)v; break;
	case 'v': a->sh.nvl_nodes = (int32_t)v; break;
	}
	return 0;
}

/* One option of the nodes, the collective or the job into *a; 0, or 2 with
 * the message printed. */
static int parse_run_opt(struct args *a, int opt, const char *name, const char *arg)
{
	switch (opt) {
	case 'C': a->conf_dir = arg; return 0;
	case 'J': a->json_path = arg; return 0;
	case 'w': a->nodelist = arg; return 0;
	case 'j': a->job = arg; return 0;
	case 'L':
		a->placement = arg;
		return parse_counts("--placement", arg, a->pcounts, GP_MAX_NODES_ARG, &a->npc) ? 2 : 0;
	case 'p': return gp__cli_long(ME, name, arg, 1, 1 << 24, &a->ngpus) ? 2 : 0;
	case 'u': return gp__cli_long(ME, name, arg, 1, GP_MAX_GPUS_PER_NODE, &a->use_gpn) ? 2 : 0;
	case 'b': return gp__cli_size(ME, name, arg, &a->minb) ? 2 : 0;
	case 'e': return gp__cli_size(ME, name, arg, &a->maxb) ? 2 : 0;
	case 'f': return gp__cli_double(ME, name, arg, 1, 1024, &a->factor) ? 2 : 0;
	case 'o':
		if (gp__coll_parse(arg, &a->coll)) {
			fprintf(stderr, ME ": --op: unknown collective '%s'\n", arg);
			return 2;
		}
		return 0;
	case 'a':
		if (gp__algo_parse(arg, &a->algo)) {
			fprintf(stderr, ME ": --algo: unknown algorithm '%s'\n", arg);
			return 2;
		}
		return 0;
	case 'F':
		if (!strcmp(arg, "json")) {
			a->json_out = true;
		} else if (strcmp(arg, "text")) {
			fprintf(stderr, ME ": --format: '%s' is not text or json\n", arg);
			return 2;
		}
		return 0;
	}
	return 2;
}

/* Options that do not go together; 0, or 2 with the message printed. */
static int check_args(const struct args *a)
{
	const char *msg = NULL;

	if ((a->conf_dir != NULL) + (a->json_path != NULL) + a->shape_opt > 1)
		msg = "give one of --conf-dir, --json or a built-in shape";
	else if (a->minb > a->maxb)
		msg = "-b is larger than -e";
	else if (a->placement && (a->ngpus || a->use_gpn))
		msg = "--placement gives the GPUs of every node; drop --ngpus and --use-gpus-per-node";
	else if (a->placement && a->nodelist && strchr(a->nodelist, ':'))
		msg = "give the GPU counts either in --nodelist or in --placement";
	else if (a->job && (a->minb != 8 || a->factor != 2 || a->coll != GP_COLL_ALLREDUCE ||
	                    a->algo != GP_ALGO_AUTO))
		msg = "--job does not take collective options";
	if (msg)
		fprintf(stderr, ME ": %s\n", msg);
	return msg ? 2 : 0;
}

/* Options into *a: GP_CLI_RUN, or the exit status (0 --help, 2 usage). */
static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
		{ "conf-dir", required_argument, NULL, 'C' },
		{ "json", required_argument, NULL, 'J' },
		{ "gpu-type", required_argument, NULL, 'g' },
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
		{ "placement", required_argument, NULL, 'L' },
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
	int opt, li = -1;

	memset(a, 0, sizeof(*a));
	gp__cost_shape_defaults(&a->sh);
	a->sh.nodes = 0; /* from --nodes, else from the GPUs asked for */
	a->coll = GP_COLL_ALLREDUCE;
	a->algo = GP_ALGO_AUTO;
	a->minb = 8;
	a->maxb = 8.0 * 1073741824.0;
	a->factor = 2;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":hb:e:f:", opts, &li)) != -1) {
		/* the messages name the option: "--nodes" whether the user wrote
		 * "--nodes 0" or "--nodes=0" ("-b" for the short ones); an
		 * unknown or incomplete one as it was typed */
		char name[40];

		if (li >= 0)
			snprintf(name, sizeof(name), "--%s", opts[li].name);
		else if (opt != ':' && opt != '?')
			snprintf(name, sizeof(name), "-%c", opt);
		else
			snprintf(name, sizeof(name), "%s", argv[optind - 1]);
		li = -1;

		if (strchr("gnGrNlsxv", opt)) {
			if (parse_shape_opt(a, opt, name, optarg))
				return 2;
		} else if (strchr("CJwjLpubefoaF", opt)) {
			if (parse_run_opt(a, opt, name, optarg))
				return 2;
		} else if (opt == 'h') {
			usage(stdout);
			return 0;
		} else if (opt == ':') {
			fprintf(stderr, ME ": %s needs a value\n", name);
			return 2;
		} else {
			fprintf(stderr, ME ": unknown option '%s'\n", name);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, ME ": unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	return check_args(a) ? 2 : GP_CLI_RUN;
}

/* The model the options name, else the built-in shape; 0, or the exit
 * status with the message printed.  *c is the caller's. */
static int load_cluster(struct args *a, gp_cluster_t **c)
{
	gp_error_t err = { "" };

	if (a->conf_dir || a->json_path) {
		if (gp__model_load(a->conf_dir, a->json_path, NULL, c, NULL, &err) != GP_OK) {
			fprintf(stderr, ME ": %s\n", err.text);
			return 1;
		}
		return 0;
	}
	if (!a->sh.nodes) {
		long per = a->use_gpn ? a->use_gpn : a->sh.gpus_per_node;

		a->sh.nodes = a->placement ? a->npc
		            : a->ngpus ? (int32_t)((a->ngpus + per - 1) / per) : 1;
	}
	if (gp__cost_shape_build(&a->sh, c, &err) != GP_OK) {
		fprintf(stderr, ME ": %s\n", err.text);
		return 2;
	}
	return 0;
}

/* The nodes in rank order into nodes[] (c->nnodes + 1 entries), with the
 * GPU count of each given in --nodelist or --placement into counts[] (0:
 * none given); *nn set.  0, or 2 with the message printed. */
static int pick_nodes(const struct args *a, const gp_cluster_t *c, int32_t *nodes,
                      int32_t *counts, int32_t *nn)
{
	gp_error_t err = { "" };
	int32_t i;

	*nn = 0;
	if (a->nodelist && strchr(a->nodelist, ':')) {
		if (parse_node_counts(c, a->nodelist, nodes, counts, c->nnodes, nn))
			return 2;
	} else if (a->nodelist) {
		int32_t *idx = NULL;

		if (gp__hostlist_nodes(c, ME ": --nodelist", a->nodelist, c->nnodes, &idx, nn, &err)) {
			fprintf(stderr, "%s\n", err.text);
			return 2;
		}
		if (*nn)
			memcpy(nodes, idx, (size_t)*nn * sizeof(*idx));
		free(idx);
	} else {
		for (i = 0; i < c->nnodes; i++)
			nodes[(*nn)++] = c->node_order && c->root >= 0 ? c->node_order[i] : i;
	}
	if (a->placement) {
		if (a->npc > *nn) {
			fprintf(stderr, ME ": --placement: %d nodes asked, %d available\n", (int)a->npc,
			        (int)*nn);
			return 2;
		}
		*nn = a->npc;
		memcpy(counts, a->pcounts, (size_t)a->npc * sizeof(*counts));
	}
	return 0;
}

/* Each picked node's GPUs into mask[]: its count, else filled node by
 * node up to --ngpus; *nn cut to the nodes that have GPUs, *G their sum.
 * 0, or the exit status with the message printed. */
static int pick_gpus(const struct args *a, const gp_cluster_t *c, const int32_t *nodes,
                     const int32_t *counts, uint32_t *mask, int32_t *nn, int32_t *G)
{
	int32_t i;

	*G = 0;
	for (i = 0; i < *nn; i++) {
		int g = c->nodes[nodes[i]].ngpus;

		if (counts[i] > 0) {
			if (counts[i] > g) {
				fprintf(stderr, ME ": node '%s' has %d GPUs, %d asked\n",
				        c->nodes[nodes[i]].name, g, (int)counts[i]);
				return 2;
			}
			g = counts[i];
		} else if (a->use_gpn && a->use_gpn < g) {
			g = (int)a->use_gpn;
		}
		if (a->ngpus && *G + g > a->ngpus)
			g = (int)(a->ngpus - *G);
		if (g <= 0)
			break;
		mask[i] = low_bits(g);
		*G += g;
	}
	*nn = i;
	if (a->ngpus && *G < a->ngpus) {
		fprintf(stderr, ME ": the nodes hold %d GPUs, --ngpus asks for %ld\n", (int)*G,
		        a->ngpus);
		return 2;
	}
	if (*G < 1) {
		fprintf(stderr, ME ": no GPUs on the chosen nodes\n");
		return 1;
	}
	return 0;
}

/* The collectives or the job on the picked GPUs; the exit status. */
static int run(const struct args *a, const gp_cluster_t *c, const gp_placement_t *pl, int32_t G)
{
	gp_cost_scratch_t *s = NULL;
	int rc;

	if (gp__cost_scratch_new(c, G, &s) != GP_OK) {
		fprintf(stderr, ME ": out of memory\n");
		return 1;
	}
	if (a->job)
		rc = run_job(c, pl, G, s, a->job, a->json_out);
	else
		rc = run_collectives(c, pl, G, s, a->coll, a->algo, a->minb, a->maxb, a->factor,
		                     a->json_out);
	gp__cost_scratch_destroy(s);
	return rc;
}

int gp_cmd_model(int argc, char **argv)
{
	struct args a;
	gp_cluster_t *c = NULL;
	gp_placement_t pl;
	int32_t *nodes = NULL, *counts = NULL, nn = 0, G = 0;
	uint32_t *mask = NULL;
	int rc;

	if ((rc = parse_args(argc, argv, &a)) != GP_CLI_RUN)
		return rc;
	if ((rc = load_cluster(&a, &c)))
		return rc;
	nodes = calloc((size_t)c->nnodes + 1, sizeof(*nodes));
	mask = calloc((size_t)c->nnodes + 1, sizeof(*mask));
	counts = calloc((size_t)c->nnodes + 1, sizeof(*counts));
	if (!nodes || !mask || !counts) {
		fprintf(stderr, ME ": out of memory\n");
		rc = 1;
	} else if (!(rc = pick_nodes(&a, c, nodes, counts, &nn)) &&
	           !(rc = pick_gpus(&a, c, nodes, counts, mask, &nn, &G))) {
		pl.n = nn;
		pl.nodes = nodes;
		pl.gpu_mask = mask;
		rc = run(&a, c, &pl, G);
	}
	free(counts);
	free(nodes);
	free(mask);
	gp_cluster_destroy(c);
	return rc;
}
