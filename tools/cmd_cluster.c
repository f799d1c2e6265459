/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_cluster.c - `gpuplace cluster show|check|export`. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "commands.h"
#include "gpuplace.h"
#include "model.h"
#include "request.h"

#define ME "gpuplace cluster"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: gpuplace cluster show   (--conf-dir DIR | --json FILE) [--json-out FILE|-]\n"
	        "       gpuplace cluster check  (--conf-dir DIR | --json FILE)\n"
	        "       gpuplace cluster export (--conf-dir DIR | --json FILE) [--json-out FILE|-]\n"
	        "       gpuplace cluster merge [--json-out FILE] FRAG.json...\n"
	        "\n"
	        "  show     print a summary of the cluster model\n"
	        "  check    load and validate; print warnings (also: nodes without the\n"
	        "           topology-domain features job_submit/gpuplace constrains jobs\n"
	        "           with, which `gpuplace conf --what nodes` writes) and\n"
	        "           \"OK: N nodes, G GPUs\"\n"
	        "  export   write the model as JSON (standard output unless --json-out FILE)\n"
	        "  merge    merge `gpuplace probe --json-out` fragments (see merge --help)\n"
	        "\n"
	        "  --conf-dir DIR     Slurm configuration directory (slurm.conf, gpuplace.conf,\n"
	        "                     optional topology.conf and gres.conf)\n"
	        "  --json FILE        a model written by `gpuplace cluster export`\n"
	        "  --json-out FILE    export: the model; show: the summary as JSON;\n"
	        "                     - for standard output\n");
}

/* What the command line asks for. */
struct args {
	const char *action, *conf_dir, *json, *out;
};

/* The action and its options into *a: GP_CLI_RUN, or the exit status. */
static int parse_args(int argc, char **argv, struct args *a)
{
	static const char *const actions[] = { "show", "check", "export", "merge", NULL };
	static const struct option opts[] = {
		{ "conf-dir", required_argument, NULL, 'c' },
		{ "json", required_argument, NULL, 'j' },
		{ "json-out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, rc;

	memset(a, 0, sizeof(*a));
	if ((rc = gp__cli_action(ME, argc, argv, actions, usage, &a->action)) != GP_CLI_RUN ||
	    !strcmp(a->action, "merge"))
		return rc;
	optind = 1;
	opterr = 0;
	/* options follow the action: parse argv[1..] with the action as argv[0] */
	while ((opt = getopt_long(argc - 1, argv + 1, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': a->conf_dir = optarg; break;
		case 'j': a->json = optarg; break;
		case 'o': a->out = optarg; break;
		case 'h': usage(stdout); return 0;
		default: return gp__cli_option_error(ME, opt, argv[optind], usage);
		}
	}
	if (optind < argc - 1) {
		fprintf(stderr, ME ": unexpected argument '%s'\n", argv[optind + 1]);
		return 2;
	}
	if (!!a->conf_dir == !!a->json) {
		fprintf(stderr, ME " %s: give exactly one of --conf-dir DIR or --json FILE\n",
		        a->action);
		return 2;
	}
	if (a->out && strcmp(a->action, "export") && strcmp(a->action, "show")) {
		fprintf(stderr, ME " %s: --json-out only applies to show and export\n", a->action);
		return 2;
	}
	return GP_CLI_RUN;
}

/* `show --json-out`: the summary's counts as JSON (the model itself is
 * `export`'s): name, nodes, GPUs, GPUs per profile, switches and leaves,
 * NVLink domains, blocks, racks with their limits, partitions, warnings. */
static int show_json(const gp_cluster_t *c, const char *out)
{
	json_object *o = json_object_new_object(), *gpus = json_object_new_object(),
	            *racks = json_object_new_array(), *parts = json_object_new_array(),
	            *warn = json_object_new_array();
	int32_t leaves = 0, i;
	long *per = calloc((size_t)c->nprofiles + 1, sizeof(*per)), other = 0;
	const char *txt;
	FILE *f;
	int rc = 1;

	if (!o || !gpus || !racks || !parts || !warn || !per) {
		fprintf(stderr, ME " show: out of memory\n");
		goto done;
	}
	for (i = 0; i < c->nnodes; i++) {
		if (c->nodes[i].profile >= 0)
			per[c->nodes[i].profile] += c->nodes[i].ngpus;
		else
			other += c->nodes[i].ngpus;
	}
	for (i = 0; i < c->nprofiles; i++)
		json_object_object_add(gpus, c->profiles[i].name, json_object_new_int64(per[i]));
	if (other)
		json_object_object_add(gpus, "(no profile)", json_object_new_int64(other));
	for (i = 0; i < c->nswitches; i++)
		leaves += c->switches[i].level == 0;
	for (i = 0; i < c->nracks; i++) {
		json_object *r = json_object_new_object();

		json_object_object_add(r, "name", json_object_new_string(c->racks[i].name));
		json_object_object_add(r, "nodes", json_object_new_int(c->racks[i].nnodes));
		json_object_object_add(r, "power_cap_kw", json_object_new_double(c->racks[i].power_cap_kw));
		json_object_object_add(r, "cooling_kw", json_object_new_double(c->racks[i].cooling_kw));
		json_object_array_add(racks, r);
	}
	for (i = 0; i < c->nparts; i++) {
		json_object *p = json_object_new_object();

		json_object_object_add(p, "name", json_object_new_string(c->parts[i].name));
		json_object_object_add(p, "nodes", json_object_new_int(c->parts[i].nnodes));
		json_object_object_add(p, "default", json_object_new_boolean(c->parts[i].is_default));
		if (c->parts[i].slurm_only)
			json_object_object_add(p, "slurm_only",
			                       json_object_new_string(c->parts[i].slurm_only));
		json_object_array_add(parts, p);
	}
	for (i = 0; i < gp_cluster_warning_count(c); i++)
		json_object_array_add(warn, json_object_new_string(gp_cluster_warning(c, i)));
	json_object_object_add(o, "name", json_object_new_string(c->name));
	json_object_object_add(o, "nodes", json_object_new_int(c->nnodes));
	json_object_object_add(o, "gpus", json_object_new_int64(gp_cluster_gpu_count(c)));
	json_object_object_add(o, "gpus_by_profile", gpus);
	json_object_object_add(o, "switches", json_object_new_int(c->nswitches));
	json_object_object_add(o, "leaves", json_object_new_int(leaves));
	json_object_object_add(o, "nvlink_domains", json_object_new_int(c->nnvl));
	json_object_object_add(o, "blocks", json_object_new_int(c->nblocks));
	json_object_object_add(o, "racks", racks);
	json_object_object_add(o, "partitions", parts);
	json_object_object_add(o, "warnings", warn);
	gpus = racks = parts = warn = NULL;
	txt = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	f = strcmp(out, "-") ? fopen(out, "w") : stdout;
	if (!f) {
		fprintf(stderr, ME " show: cannot write %s: %s\n", out, strerror(errno));
		goto done;
	}
	fprintf(f, "%s\n", txt);
	rc = (f == stdout ? fflush(f) : fclose(f)) ? 1 : 0;
	if (rc)
		fprintf(stderr, ME " show: cannot write %s\n", out);
done:
	json_object_put(gpus);
	json_object_put(racks);
	json_object_put(parts);
	json_object_put(warn);
	json_object_put(o);
	free(per);
	return rc;
}

/* show, check or export the loaded model; the exit status. */
static int run(const struct args *a, const gp_cluster_t *c)
{
	gp_error_t err = { "" };
	int i;

	if (!strcmp(a->action, "show"))
		return a->out ? show_json(c, a->out) : gp_cluster_print_summary(c, stdout) ? 1 : 0;
	if (!strcmp(a->action, "check")) {
		for (i = 0; i < gp_cluster_warning_count(c); i++)
			printf("warning: %s\n", gp_cluster_warning(c, i));
		if (gp__cli_domain_features(ME " check", a->conf_dir, a->json, c, NULL, stdout))
			return 1;
		printf("OK: %d nodes, %ld GPUs\n", gp_cluster_node_count(c), gp_cluster_gpu_count(c));
		return 0;
	}
	if (gp_cluster_save_json(c, NULL, a->out ? a->out : "-", &err)) {
		fprintf(stderr, ME " export: %s\n", err.text);
		return 1;
	}
	return 0;
}

int gp_cmd_cluster(int argc, char **argv)
{
	struct args a;
	gp_cluster_t *c = NULL;
	gp_error_t err = { "" };
	int rc;

	if ((rc = parse_args(argc, argv, &a)) != GP_CLI_RUN)
		return rc;
	if (!strcmp(a.action, "merge")) /* tools/cmd_cluster_merge.c */
		return gp_cmd_cluster_merge(argc - 1, argv + 1);
	if ((rc = gp__model_load(a.conf_dir, a.json, NULL, &c, NULL, &err))) {
		fprintf(stderr, ME " %s: %s\n", a.action, err.text[0] ? err.text : gp_strerror(rc));
		return 1;
	}
	rc = run(&a, c);
	if (fflush(stdout) != 0)
		rc = 1;
	gp_cluster_destroy(c);
	return rc;
}
