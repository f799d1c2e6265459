/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gpuplace.c - the gpuplace command: dispatch to sub-commands. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

/* One line per sub-command, in the order `gpuplace --help` lists them. */
static const struct command commands[] = {
	{ "cluster", gp_cmd_cluster, "show, check or export a cluster model" },
	{ "synth", gp_cmd_synth, "generate a synthetic cluster (conf files or JSON)" },
	{ "conf", gp_cmd_conf, "write slurm.conf node lines, topology.conf and gres.conf" },
	{ "place", gp_cmd_place, "decide where a job goes and explain why" },
	{ "probe", gp_cmd_probe, "discover this node's GPUs, NVLinks and NICs with hwloc" },
	{ "model", gp_cmd_model, "predict collective and training-step times on a node set" },
	{ "calibrate", gp_cmd_calibrate, "fit the network constants to this site's nccl-tests output" },
	{ "power", gp_cmd_power, "rack power and cooling headroom from telemetry; cap speed curve" },
	{ "simulate", gp_cmd_simulate, "replay a job trace under several policies and compare them" },
	{ "trace", gp_cmd_trace, "read, check or generate job traces for the simulator" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: gpuplace COMMAND [OPTIONS]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n`gpuplace COMMAND --help` describes each command.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("gpuplace %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name)) {
			char **av = gp__cli_aliases(&argc, argv);
			int rc;

			if (!av) {
				fprintf(stderr, "gpuplace: out of memory\n");
				return 1;
			}
			rc = commands[i].fn(argc - 1, av + 1);
			free(av);
			return rc;
		}
	fprintf(stderr, "gpuplace: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
