/* SPDX-License-Identifier: GPL-2.0-or-later */
/* commands.h - sub-commands of the gpuplace command.  Each takes the
 * arguments after its own name (argv[0] is the sub-command name) and
 * returns the process exit status: 0 success, 1 failure, 2 usage error. */
#ifndef GP_COMMANDS_H
#define GP_COMMANDS_H

#include "cli.h" /* model loading and option values shared by every command */

int gp_cmd_cluster(int argc, char **argv);  /* tools/cmd_cluster.c */
int gp_cmd_synth(int argc, char **argv);    /* tools/cmd_synth.c */
int gp_cmd_conf(int argc, char **argv);     /* tools/cmd_conf.c */
int gp_cmd_place(int argc, char **argv);    /* tools/cmd_place.c */
int gp_cmd_probe(int argc, char **argv);    /* tools/cmd_probe.c */
int gp_cmd_cluster_merge(int argc, char **argv); /* tools/cmd_cluster_merge.c */
int gp_cmd_model(int argc, char **argv);    /* tools/cmd_model.c */
int gp_cmd_power(int argc, char **argv);    /* tools/cmd_power.c */
int gp_cmd_simulate(int argc, char **argv); /* tools/cmd_simulate.c */
int gp_cmd_trace(int argc, char **argv);    /* tools/cmd_trace.c */

#endif
