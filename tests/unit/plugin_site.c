/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plugin_site.c - sites for the programs that run the plugin's job_submit()
 * without a daemon (plugin_site.h) */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "job_submit_gpuplace.h"
#include "plugin_job.h"
#include "plugin_site.h"

/* etc/mixed-pcie's files, as gp_test_site_copy() copies them, and the
 * budget it may write */
static const char *const site_files[] = { "slurm.conf",    "gres.conf",     "topology.conf",
	                                  "racks.conf",    "gpuplace.conf", "resources.yaml" };
#define NCOPIED 5

/* Copy from to `to`, each of the n strings a[k] replaced by b[k]. */
static int copy_replacing(const char *from, const char *to, const char *const *a,
                          const char *const *b, int n)
{
	FILE *in = fopen(from, "r"), *out = in ? fopen(to, "w") : NULL;
	char line[4096];
	int rc = in && out ? 0 : -1, k;

	while (!rc && fgets(line, sizeof(line), in)) {
		char *p = line;

		while (*p) {
			for (k = 0; k < n; k++)
				if (!strncmp(p, a[k], strlen(a[k])))
					break;
			if (k < n) {
				fputs(b[k], out);
				p += strlen(a[k]);
			} else {
				fputc(*p++, out);
			}
		}
	}
	if (in)
		fclose(in);
	if (out && fclose(out))
		rc = -1;
	return rc;
}

int gp_test_site_copy(char *dir, size_t len, const char *tag, const char *extra,
                      const char *const *a, const char *const *b, int n)
{
	const char *top = getenv("GP_TOP_SRCDIR"), *tmp = getenv("TMPDIR");
	char from[4200], to[4200];
	size_t i;

	snprintf(dir, len, "%s/gp-%s.XXXXXX", tmp ? tmp : "/tmp", tag);
	if (!mkdtemp(dir))
		return -1;
	for (i = 0; i < NCOPIED; i++) {
		snprintf(from, sizeof(from), "%s/etc/mixed-pcie/%s", top ? top : ".", site_files[i]);
		snprintf(to, sizeof(to), "%s/%s", dir, site_files[i]);
		if (i == 0 && n > 0 ? copy_replacing(from, to, a, b, n)
		                    : gp_test_copy_file(from, to, i == 4 ? extra : NULL))
			return -1;
	}
	return 0;
}

void gp_test_site_remove(const char *dir)
{
	gp_test_dir_remove(dir, site_files, sizeof(site_files) / sizeof(site_files[0]));
}

int gp_test_site_resources(const char *dir, const char *text)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/resources.yaml", dir);
	if (!text)
		return unlink(path) && errno != ENOENT ? -1 : 0;
	if (!(f = fopen(path, "w")))
		return -1;
	fputs(text, f);
	return fclose(f) ? -1 : 0;
}

/* xorshift64*: the occupancy a seed stands for, the same on every run */
static uint64_t next(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ULL;
}

/* Running jobs on st as busy seeds them (plugin_site.h); 0 or -1. */
static int occupy(const gp_cluster_t *c, gp_state_t *st, uint64_t busy)
{
	uint64_t x = busy * 0x9E3779B97F4A7C15ULL + 1;
	unsigned share = (unsigned)(busy & 0xff); /* of 256 nodes, how many run a job */
	int32_t i, k;

	if (!(st->jobs = calloc((size_t)c->nnodes + 1, sizeof(*st->jobs))))
		return -1;
	for (i = 0; i < c->nnodes; i++) {
		int32_t ng = c->nodes[i].ngpus, span, take;
		gp_job_alloc_t *jb;

		if (next(&x) % 64 == 0) {
			st->node_flags[i] |= next(&x) % 2 ? GP_NODE_DOWN : GP_NODE_DRAIN;
			continue;
		}
		if (ng <= 0 || next(&x) % 256 >= share || st->alloc_mask[i])
			continue;
		/* one node, or this one and the next ones with a GPU free */
		span = next(&x) % 4 == 0 ? 1 + (int32_t)(next(&x) % 4) : 1;
		if (span > c->nnodes - i)
			span = c->nnodes - i;
		jb = &st->jobs[st->njobs];
		if (!(jb->nodes = calloc((size_t)span, sizeof(*jb->nodes))) ||
		    !(jb->gpu_mask = calloc((size_t)span, sizeof(*jb->gpu_mask))))
			return -1;
		st->njobs++;
		jb->job_id = 1000u + (uint32_t)st->njobs;
		/* ends within a day, or is past its expected end (ending) */
		jb->end_time = st->time + (next(&x) % 16 == 0 ? -10 : 60 + (int64_t)(next(&x) % 86400));
		jb->load = 0.3 + 0.7 * (double)(next(&x) % 1000) / 999.0;
		take = 1 + (int32_t)(next(&x) % (uint64_t)ng);
		for (k = 0; k < span; k++) {
			int32_t n = i + k, g, got = 0;
			uint32_t m = 0;

			for (g = 0; g < c->nodes[n].ngpus && g < 32 && got < take; g++)
				if (!(st->alloc_mask[n] & (1u << g))) {
					m |= 1u << g;
					got++;
				}
			if (!m)
				continue;
			jb->nodes[jb->nnodes] = n;
			jb->gpu_mask[jb->nnodes++] = m;
			st->alloc_mask[n] |= m;
		}
	}
	/* some racks measured, some not */
	for (k = 0; k < st->nracks; k++)
		if (next(&x) % 2) {
			st->rack_power[k].measured_w = (double)(next(&x) % 60000);
			st->rack_power[k].sample_time = st->time - (int64_t)(next(&x) % 600);
		}
	return 0;
}

int gp_test_site_publish(bool hres, bool lic, int lic_full, uint64_t busy)
{
	struct gp_conf *c = conf_get();
	struct gp_snap *sn;

	if (!c)
		return -1;
	/* what the state thread publishes inside slurmctld: here every node
	 * up and idle, or the occupancy busy seeds, read now */
	sn = calloc(1, sizeof(*sn));
	if (!sn || gp_state_create(c->cluster, &sn->view.state) != GP_OK)
		return -1;
	sn->view.state->time = (int64_t)time(NULL);
	sn->view.jobs_time = sn->view.state->time;
	if (busy && occupy(c->cluster, sn->view.state, busy))
		return -1;
	sn->view.res = calloc((size_t)c->cluster->nnodes + 1, sizeof(*sn->view.res));
	sn->racks = calloc((size_t)c->cluster->nracks + 1, sizeof(*sn->racks));
	if (!sn->view.res || !sn->racks)
		return -1;
	gp__power_view_fill(c->cluster, sn->view.state, NULL, &c->policy,
	                    (double)sn->view.state->time, sn->racks);
	sn->resv_ok = true;
	/* slurmctld has the rack budget's license (what the state thread
	 * reads with hres_known), unless the caller says it has not */
	sn->hres = hres;
	if (c->lic_name) {
		int32_t k;

		sn->lic = lic;
		if (!(sn->lic_free = calloc((size_t)c->cluster->nracks + 1, sizeof(*sn->lic_free))))
			return -1;
		for (k = 0; k < c->cluster->nracks; k++)
			sn->lic_free[k] = k == lic_full ? 0 : c->lic_count[k];
	}
	sn->conf = c; /* the reference conf_get() took */
	snap_publish(sn);
	return 0;
}

int gp_test_site_load(const char *dir, bool hres, bool lic, int lic_full)
{
	setenv("GPUPLACE_CONF_DIR", dir, 1);
	if (init() != SLURM_SUCCESS || gp_test_site_publish(hres, lic, lic_full, 0))
		return -1;
	/* the engine the plugin's thread builds for a new configuration: built
	 * here too, so that the first submission finds it */
	decider_prepare();
	return 0;
}
