/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plugin_job.h - job descriptions as slurmctld unpacks them, for the
 * programs that call the plugin's job_submit() (tests/unit/test_plugin*.c,
 * test_outcome.c, bench/bench_job_submit.c): every field allocated with
 * Slurm's allocator and freed field by field with xfree(), as slurmctld
 * does (libslurm's slurm_free_job_desc_msg() would need a whole slurm.conf
 * for its select plugin), so that under valgrind a string the plugin
 * stores or hands back that is not Slurm-allocated shows.
 */
#ifndef GP_TEST_PLUGIN_JOB_H
#define GP_TEST_PLUGIN_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "slurm_compat.h"

/* A description with slurm_init_job_desc_msg()'s defaults and these GPU
 * requests (tres_per_job, tres_per_node; NULL: none). */
job_desc_msg_t *gp_test_job_new(const char *per_job, const char *per_node);

/* A Slurm-allocated array of the first N strings of VARS (N < 0: up to
 * VARS' terminating NULL; VARS NULL: none), NULL-terminated, its length
 * in *COUNT; a NULL entry within the N stays NULL (libslurm unpacks a
 * zero-length string so). */
char **gp_test_xarray(const char *const *vars, int n, uint32_t *count);

/* Free every field a job_submit plugin reads or writes, then J itself. */
void gp_test_job_free(job_desc_msg_t *j);

/* Remove the N files FILES of directory DIR (those absent skipped), then
 * DIR: the site directories these programs write. */
void gp_test_dir_remove(const char *dir, const char *const *files, size_t n);

/* Copy file from to `to`, then append extra (NULL: nothing).  0 or -1. */
int gp_test_copy_file(const char *from, const char *to, const char *extra);

#endif
