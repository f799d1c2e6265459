/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_cluster.c - `gpuplace cluster show|check|export`. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "gpuplace.h"
#include "model.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: gpuplace cluster show   (--conf-dir DIR | --json FILE)\n"
	        "       gpuplace cluster check  (--conf-dir DIR | --json FILE)\n"
	        "       gpuplace cluster export (--conf-dir DIR | --json FILE) [--json-out FILE|-]\n"
	        "       gpuplace cluster merge [--out FILE] FRAG.json...\n"
	        "\n"
	        "  show     print a summary of the cluster model\n"
	        "  check    load and validate; print warnings and \"OK: N nodes, G GPUs\"\n"
	        "  export   write the model as JSON (standard output unless --json-out)\n"
	        "  merge    merge `gpuplace probe --json` fragments (see merge --help)\n"
	        "\n"
	        "  --conf-dir DIR     Slurm configuration directory (slurm.conf, gpuplace.conf,\n"
	        "                     optional topology.conf and gres.conf)\n"
	        "  --json FILE        a model written by `gpuplace cluster export`\n"
	        "  --json-out FILE    export destination, - for standard output (alias: --out)\n");
}

int gp_cmd_cluster(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "conf-dir", required_argument, NULL, 'c' },
		{ "json", required_argument, NULL, 'j' },
		{ "json-out", required_argument, NULL, 'o' },
		{ "out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *conf_dir = NULL, *json = NULL, *out = NULL, *action;
	gp_cluster_t *c = NULL;
	gp_error_t err = { "" };
	int opt, rc, i, status = 1;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "gpuplace cluster: missing action (show, check, export or merge)\n");
		usage(stderr);
		return 2;
	}
	action = argv[1];
	if (!strcmp(action, "merge")) /* tools/cmd_cluster_merge.c */
		return gp_cmd_cluster_merge(argc - 1, argv + 1);
	if (strcmp(action, "show") && strcmp(action, "check") && strcmp(action, "export")) {
		fprintf(stderr, "gpuplace cluster: unknown action '%s'\n", action);
		usage(stderr);
		return 2;
	}
	optind = 1;
	opterr = 0;
	/* options follow the action: parse argv[1..] with the action as argv[0] */
	while ((opt = getopt_long(argc - 1, argv + 1, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': conf_dir = optarg; break;
		case 'j': json = optarg; break;
		case 'o': out = optarg; break;
		case 'h': usage(stdout); return 0;
		case ':':
			fprintf(stderr, "gpuplace cluster: %s needs an argument\n", argv[optind]);
			usage(stderr);
			return 2;
		default:
			fprintf(stderr, "gpuplace cluster: unknown option '%s'\n", argv[optind]);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc - 1) {
		fprintf(stderr, "gpuplace cluster: unexpected argument '%s'\n", argv[optind + 1]);
		return 2;
	}
	if (!!conf_dir == !!json) {
		fprintf(stderr, "gpuplace cluster %s: give exactly one of --conf-dir DIR or "
		        "--json FILE\n", action);
		return 2;
	}
	if (out && strcmp(action, "export")) {
		fprintf(stderr, "gpuplace cluster %s: --json-out only applies to export\n", action);
		return 2;
	}

	rc = gp__model_load(conf_dir, json, NULL, &c, NULL, &err);
	if (rc) {
		fprintf(stderr, "gpuplace cluster %s: %s\n", action,
		        err.text[0] ? err.text : gp_strerror(rc));
		return 1;
	}
	if (!strcmp(action, "show")) {
		status = gp_cluster_print_summary(c, stdout) ? 1 : 0;
	} else if (!strcmp(action, "check")) {
		for (i = 0; i < gp_cluster_warning_count(c); i++)
			printf("warning: %s\n", gp_cluster_warning(c, i));
		printf("OK: %d nodes, %ld GPUs\n", gp_cluster_node_count(c), gp_cluster_gpu_count(c));
		status = 0;
	} else {
		rc = gp_cluster_save_json(c, NULL, out ? out : "-", &err);
		if (rc)
			fprintf(stderr, "gpuplace cluster export: %s\n", err.text);
		status = rc ? 1 : 0;
	}
	if (fflush(stdout) != 0)
		status = 1;
	gp_cluster_destroy(c);
	return status;
}
