/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli.h - what every gpuplace sub-command shares (tools/cli.c): loading the
 * model a command names, and option values through the strict number
 * helpers with one message format.
 *
 * Messages go to stderr as "ME: OPT: 'VALUE' is not ..." where ME is the
 * command's name ("gpuplace trace synth").  Not thread-safe (stderr, and
 * the callers' getopt state); commands run single-threaded while parsing.
 */
#ifndef GP_CLI_H
#define GP_CLI_H

#include <stdio.h>

#include "model.h"

/* What a command's option parser returns to go on and run (any other value
 * is the exit status: 0 after --help, 2 for a usage error). */
#define GP_CLI_RUN (-1)

/*
 * The model a command names with --conf-dir DIR or --json FILE (exactly
 * one non-NULL) and, when s is not NULL, its state: the state file's
 * "state" section (its "model" section, if any, is ignored; names must be
 * this model's) when state is given, else the JSON document's own state
 * section (*s NULL when there is none).  On failure *c and *s are NULL and
 * err says what is wrong; both are the caller's (gp_cluster_destroy,
 * gp_state_destroy).  Every command that reads a model uses this one.
 */
int gp__model_load(const char *dir, const char *json, const char *state, gp_cluster_t **c,
                   gp_state_t **s, gp_error_t *err);

/* s as a whole number in [min, max] into *out: 0, or -1 with
 * "ME: OPT: 'S' is not a whole number in [MIN, MAX]" on stderr. */
int gp__cli_long(const char *me, const char *opt, const char *s, long min, long max,
                 long *out);

/* gp__cli_long() into an int32_t (min and max within int32_t's range). */
int gp__cli_int32(const char *me, const char *opt, const char *s, long min, long max,
                  int32_t *out);

/* s as a finite number in [min, max] into *out: 0, or -1 with
 * "ME: OPT: 'S' is not a number in [MIN, MAX]" on stderr. */
int gp__cli_double(const char *me, const char *opt, const char *s, double min, double max,
                   double *out);

/* A byte count "8", "64K", "8M", "8G" (binary multiples, as nccl-tests reads
 * them) in [1, 1e15] before the multiple; 0 or -1 with a message. */
int gp__cli_size(const char *me, const char *opt, const char *s, double *out);

/*
 * The topology-domain features the model's nodes lack (gp__domain_
 * features_check, what job_submit/gpuplace finds at its load), on f: one
 * warning for the switches and NVLink domains, one for the racks under
 * PowerLicenses, each naming slurm.conf (conf_dir) or the JSON model, the
 * first domain without its feature, what the plugin does then, instead
 * (NULL: nothing; else appended to that sentence, "; ...") and the command
 * that writes the NodeName lines.  Nothing when none lack them.  0, or 1
 * out of memory (said on stderr after me).
 */
int gp__cli_domain_features(const char *me, const char *conf_dir, const char *json,
                            const gp_cluster_t *c, const char *instead, FILE *f);

/*
 * A getopt_long() error, with an optstring that starts with ':' so that a
 * missing argument returns ':': prints "ME: OPT needs an argument" or
 * "ME: unknown option 'OPT'" (arg = argv[optind - 1] of the array getopt
 * read), then usage(stderr).  Returns 2, the usage-error status.
 */
int gp__cli_option_error(const char *me, int opt, const char *arg, void (*usage)(FILE *));

/*
 * The action word of "gpuplace CMD ACTION [OPTIONS]": --help/-h first
 * prints usage(stdout) (returns 0); a missing action or one not in the
 * NULL-terminated actions[] is a usage error (message, usage(stderr),
 * returns 2).  Else *action = argv[1] and GP_CLI_RUN.  The options then
 * follow the action: parse argc - 1, argv + 1.
 */
int gp__cli_action(const char *me, int argc, char **argv, const char *const actions[],
                   void (*usage)(FILE *), const char **action);

/*
 * The old spellings of options, kept for one release: argv (of the whole
 * command line, argv[1] the command) with each old spelling replaced by
 * the new one ("--old VALUE" and "--old=VALUE"), and a warning on stderr
 * for each.  One spelling per concept: --json FILE reads a model,
 * --json-out FILE|- writes JSON, --out-dir DIR is an output directory,
 * -o/--out FILE another output file, --gpu-type TYPE a GPU type.  `place
 * --json-out` without a FILE (its old flag) becomes --json-out -.
 * Returns a malloc'd array of *argc + 1 pointers (into argv or static
 * strings; the caller frees the array only), or NULL when out of memory.
 */
char **gp__cli_aliases(int *argc, char **argv);

#endif /* GP_CLI_H */
