/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * orig_file.h - one line of the steering originals' file: what the user
 * asked for a job gpuplace placed (steer_pass.c keeps it in memory), as
 * text that survives a slurmctld restart.  Since Slurm 23.11 `scontrol
 * reconfigure` restarts slurmctld, and the old process ends with _exit()
 * (controller.c, _attempt_reconfig), so the plugin's fini never runs: the
 * state thread writes the file whenever an original changed, and init()
 * reads it back.
 *
 * A line is "gpuplace-orig" and then KEY=VALUE words, separated by one
 * space, in any order; numbers in decimal, strings percent-encoded (every
 * byte outside '!'..'~', and '%', as %XX), a string key left out for none.
 * No Slurm types here: tests/unit/test_orig_file.c and the fuzz target
 * read it without Slurm.
 */
#ifndef GP_PLUGIN_ORIG_FILE_H
#define GP_PLUGIN_ORIG_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The strings of a record, in the order they are written. */
enum {
	GP_ORIG_HINTS, GP_ORIG_TRES_PER_JOB, GP_ORIG_TRES_PER_NODE, GP_ORIG_TRES_PER_SOCKET,
	GP_ORIG_TRES_PER_TASK, GP_ORIG_CPUS_PER_TRES, GP_ORIG_MEM_PER_TRES, GP_ORIG_RESERVATION,
	GP_ORIG_PARTITION, GP_ORIG_REQ_NODES, GP_ORIG_EXC_NODES, GP_ORIG_FEATURES,
	GP_ORIG_LICENSES, GP_ORIG_NAME, GP_ORIG_NSTR
};

/* One original, flat. */
typedef struct gp_orig_rec {
	uint64_t ref;             /* the decision reference (never 0) */
	uint32_t job_id;          /* 0: not seen in Slurm's job list yet */
	bool kept, lic, sw, counts, gpus, frozen;
	/* gp_steer_job_t (steer_rules.h) */
	bool pinned, every_refresh, moved;
	int64_t decided, updated, checked;
	double wait_s;
	uint32_t uid;
	/* the job description's numbers (slurm.h widths) */
	uint32_t min_nodes, max_nodes, time_limit, num_tasks;
	uint16_t shared, ntasks_per_node, cpus_per_task, pn_min_cpus;
	uint64_t pn_min_memory;
	char *str[GP_ORIG_NSTR];  /* malloc'd, NULL = none */
} gp_orig_rec_t;

/* The line for r, without its newline (malloc'd; NULL: no memory). */
char *gp_orig_format(const gp_orig_rec_t *r);

/*
 * Read one line (no newline) into *r, which it clears first.  0: read;
 * -1: not a record, with err naming the key and its value (or what is
 * wrong with the line), r cleared.  Every key must appear at most once;
 * every number and flag is required ("ref" not 0), strings are not; a
 * number out of its field's range (decimal digits only, a minus sign
 * where a field may be negative), a string with a bad escape or an
 * unknown key is an error.
 */
int gp_orig_parse(const char *line, gp_orig_rec_t *r, char *err, size_t errlen);

/* Free r's strings and zero it. */
void gp_orig_clear(gp_orig_rec_t *r);

#endif
