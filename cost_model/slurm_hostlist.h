/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurm_hostlist.h - libslurm's host lists as the base layer uses them, the
 * same on every Slurm release.  The layers below plugin/ (cost_model/,
 * conf/, probe/) include this header, never plugin/slurm_compat.h, which
 * includes it too and keeps the rest of the differences between releases.
 *
 * - hostlist_t: a pointer type (struct hostlist *) up to 23.02; from 23.11
 *   it is the struct itself and the functions take and return hostlist_t *.
 *   gp_hostlist_t is the pointer in both.
 * - slurm_hostlist_ranged_string_malloc(): gone from 23.11.
 *   gp_hostlist_ranged() uses slurm_hostlist_ranged_string_xmalloc(),
 *   present in every release, and frees its result with Slurm's free.
 * - slurm_hostlist_shift() returns memory from malloc() in every release
 *   (hostrange_shift in src/common/hostlist.c): callers free() it.
 *
 * Checked against the public headers of 22.05.8 .. 26.05.3 (the list in
 * plugin/slurm_compat.h).
 */
#ifndef GP_SLURM_HOSTLIST_H
#define GP_SLURM_HOSTLIST_H

#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_version.h>

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
typedef hostlist_t *gp_hostlist_t;
#else
typedef hostlist_t gp_hostlist_t;
#endif

/* Slurm's free (src/common/xmalloc.h, not installed; exported by libslurm
 * and libslurmfull with this signature in 22.05 .. 26.05; the plugin's
 * allocator header plugin/slurm_alloc.h declares it the same way). */
extern void slurm_xfree(void **item);

/* Ranged form of hl ("n[1-4,7]") in memory from malloc(), which the caller
 * free()s; NULL when out of memory.  Slurm's own copy is freed with Slurm's
 * free. */
static inline char *gp_hostlist_ranged(gp_hostlist_t hl)
{
	char *s = slurm_hostlist_ranged_string_xmalloc(hl), *out;

	if (!s)
		return NULL;
	out = strdup(s);
	slurm_xfree((void **)&s);
	return out;
}

#endif /* GP_SLURM_HOSTLIST_H */
