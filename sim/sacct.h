/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sacct.h - a site's own accounting history as a simulator trace
 * (internal): what `sacct --parsable2` prints, read into the trace CSV of
 * trace.h.
 *
 * Input, as sacct(1) prints it with --parsable2: one header line of field
 * names, then one line per job or step, fields separated by '|' (no
 * trailing '|'; with --parsable, one trailing '|' is accepted too).  Field
 * names are matched case-insensitively, in any order:
 *   Submit      required; "YYYY-MM-DDTHH:MM:SS" (sacct's default
 *               SLURM_TIME_FORMAT, "standard")
 *   GPUs        AllocTRES, else ReqTRES: "gres/gpu=N", else the sum of the
 *               typed "gres/gpu:TYPE=N" (at least one of the two fields;
 *               Slurm records gres/gpu there only when slurm.conf's
 *               AccountingStorageTRES lists it)
 *   Elapsed     "[DD-]HH:MM:SS" (sacct(1): "[days-]hours:minutes:
 *               seconds[.microseconds]"); without it End - Start
 *   Start, End  as Submit; a job without both ran no time and is skipped
 *   JobID       lines whose JobID holds '.' are steps (123.batch,
 *               123.extern, 123.0) and skipped
 *   Timelimit   "[DD-]HH:MM:SS", "MM:SS", UNLIMITED, Partition_Limit
 *   NodeList, Partition, State   copied (NodeList: the nodes Slurm gave)
 *   nodes       AllocTRES's, else ReqTRES's "node=N"
 * Values "Unknown", "None", "None assigned" and "" are "not given".  Every
 * other field is ignored.
 *
 * Output: trace CSV with the columns
 *   submit_time_s,duration_s,gpus,nodes,job_id,partition,state,nodelist,
 *   wait_s,timelimit_s
 * submit_time_s from the earliest Submit imported; duration_s = Elapsed;
 * jobs in input order.  The trace reader takes the first four and
 * nodelist (what `simulate` compares its placements with); the others are
 * for the reader's eye.
 *
 * Skipped and counted (never silently): steps, jobs without GPUs, jobs that
 * never ran (no Start or End, or Elapsed 0).  A malformed line is an error
 * naming file, line, field and value.
 */
#ifndef GP_SACCT_H
#define GP_SACCT_H

#include <stdint.h>
#include <stdio.h>

#include "model.h"

typedef struct gp_sacct_stats {
	int32_t lines;      /* data lines read */
	int32_t jobs;       /* jobs written */
	int32_t steps;      /* step lines skipped */
	int32_t no_gpus;    /* jobs without GPUs skipped */
	int32_t not_run;    /* jobs that ran no time skipped */
} gp_sacct_stats_t;

/*
 * Read buf[0..len) (sacct --parsable2 output named name in messages) and
 * write the trace CSV to out.  *st is filled (zeroed first).  0, GP_EINVAL
 * (malformed: "NAME:LINE: FIELD 'VALUE': what"), GP_EIO (writing out),
 * GP_ENOMEM.  Nothing is written before the whole input is read and
 * checked.
 */
int gp__sacct_import(const char *name, const char *buf, size_t len, FILE *out,
                     gp_sacct_stats_t *st, gp_error_t *err);

/* "[DD-][HH:]MM:SS[.micro]" into seconds; 0 or GP_EINVAL. */
int gp__sacct_duration(const char *s, size_t len, double *out);

#endif /* GP_SACCT_H */
