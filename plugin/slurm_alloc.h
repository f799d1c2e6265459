/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurm_alloc.h - Slurm's allocator, as exported by libslurmfull.so inside
 * slurmctld (and by libslurm.so for tests).  Slurm frees what a job_submit
 * plugin stores in a job description with xfree(), and xmalloc'd memory has
 * a hidden header, so every string handed to slurmctld must come from here,
 * never from malloc()/strdup().  Signatures of Slurm 22.05 through 26.05
 * (src/common/xmalloc.h, src/common/xstring.h), which are not installed.
 */
#ifndef GP_SLURM_ALLOC_H
#define GP_SLURM_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

extern void *slurm_xcalloc(size_t count, size_t size, bool clear, bool try,
                           const char *file, int line, const char *func);
extern void *slurm_xrecalloc(void **item, size_t count, size_t size, bool clear,
                             bool try, const char *file, int line, const char *func);
extern void slurm_xfree(void **item);
extern char *slurm_xstrdup(const char *str);
extern char *slurm_xstrdup_printf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

#define gp_xmalloc(sz) slurm_xcalloc(1, (sz), true, false, __FILE__, __LINE__, __func__)
#define gp_xrealloc(p, sz) \
	slurm_xrecalloc((void **)&(p), 1, (sz), true, false, __FILE__, __LINE__, __func__)
#define gp_xfree(p) slurm_xfree((void **)&(p))

#endif /* GP_SLURM_ALLOC_H */
