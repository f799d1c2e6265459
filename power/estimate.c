/* SPDX-License-Identifier: GPL-2.0-or-later */
/* estimate.c - estimated rack draw and headroom against power and cooling. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "power.h"

double gp__power_clock_real(void *arg)
{
	struct timespec ts;

	(void)arg;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double gp__power_gpu_watts(const gp_gpu_profile_t *p, double load)
{
	if (!p)
		/* Unknown GPU type: assume an H100 SXM at its 700 W TDP whatever
		 * the load (Llama 3 paper sec. 3.3.1, notes/calibration.md sec. 4).
		 * This is an assumption chosen to err high; give the node a
		 * GpuProfile in gpuplace.conf to replace it. */
		return GP_POWER_UNKNOWN_GPU_W;
	if (!(load >= 0.0))
		load = 0.0;
	if (load > 1.0)
		load = 1.0;
	return p->idle_w + load * (p->tdp_w - p->idle_w);
}

/* Load of the job owning GPU g of node n in s; -1 when no job names it. */
static double owner_load(const gp_state_t *s, int32_t n, int g)
{
	int32_t j, k;

	for (j = 0; j < s->njobs; j++) {
		const gp_job_alloc_t *a = &s->jobs[j];

		for (k = 0; k < a->nnodes; k++)
			if (a->nodes[k] == n && a->gpu_mask && (a->gpu_mask[k] >> g) & 1u)
				/* load 0 in a state means "not given": default 1 (model.h) */
				return a->load > 0.0 ? a->load : 1.0;
	}
	return -1.0;
}

double gp__power_estimate_rack(const gp_cluster_t *c, const gp_state_t *s, int32_t rack)
{
	const gp_rack_t *r;
	double w = 0.0;
	int32_t i;

	if (!c || rack < 0 || rack >= c->nracks)
		return (double)GP_EINVAL;
	if (s && s->nnodes != c->nnodes)
		s = NULL;
	r = &c->racks[rack];
	for (i = 0; i < r->nnodes; i++) {
		int32_t ni = r->nodes[i];
		const gp_node_t *n;
		const gp_gpu_profile_t *p;
		int g;

		if (ni < 0 || ni >= c->nnodes)
			continue;
		n = &c->nodes[ni];
		p = n->profile >= 0 && n->profile < c->nprofiles ? &c->profiles[n->profile] : NULL;
		w += n->base_w > 0.0 ? n->base_w : r->node_base_w;
		for (g = 0; g < n->ngpus && g < GP_MAX_GPUS_PER_NODE; g++) {
			double load;

			if (!s || !((s->alloc_mask[ni] >> g) & 1u)) {
				w += gp__power_gpu_watts(p, 0.0);
				continue;
			}
			load = owner_load(s, ni, g);
			/* allocated but no job names it: assume full TDP */
			w += gp__power_gpu_watts(p, load < 0.0 ? 1.0 : load);
		}
	}
	return w;
}

int gp__power_estimate_all(const gp_cluster_t *c, const gp_state_t *s, double *rack_w)
{
	uint32_t *named = NULL;
	int32_t r, i, j, k;

	if (!c || !rack_w)
		return GP_EINVAL;
	if (s && s->nnodes != c->nnodes)
		s = NULL;
	if (s && !(named = calloc((size_t)c->nnodes + 1, sizeof(*named))))
		return GP_ENOMEM;
	/* base and idle draw of every node */
	for (r = 0; r < c->nracks; r++) {
		const gp_rack_t *rk = &c->racks[r];

		rack_w[r] = 0.0;
		for (i = 0; i < rk->nnodes; i++) {
			const gp_node_t *n;
			int g;

			if (rk->nodes[i] < 0 || rk->nodes[i] >= c->nnodes)
				continue;
			n = &c->nodes[rk->nodes[i]];
			rack_w[r] += n->base_w > 0.0 ? n->base_w : rk->node_base_w;
			for (g = 0; g < n->ngpus && g < GP_MAX_GPUS_PER_NODE; g++)
				rack_w[r] += gp__power_gpu_watts(n->profile >= 0 && n->profile < c->nprofiles ?
				                                &c->profiles[n->profile] : NULL, 0.0);
		}
	}
	if (!s)
		return GP_OK;
	/* allocated GPUs a job names: the first job's load, as owner_load() */
	for (j = 0; j < s->njobs; j++) {
		const gp_job_alloc_t *a = &s->jobs[j];
		double load = a->load > 0.0 ? a->load : 1.0;

		for (k = 0; a->gpu_mask && k < a->nnodes; k++) {
			int32_t ni = a->nodes[k];
			const gp_node_t *n;
			uint32_t m;

			if (ni < 0 || ni >= c->nnodes)
				continue;
			n = &c->nodes[ni];
			m = a->gpu_mask[k] & s->alloc_mask[ni] & ~named[ni];
			named[ni] |= m;
			if (n->rack >= 0 && n->rack < c->nracks && n->profile >= 0 && n->profile < c->nprofiles)
				rack_w[n->rack] += gp__popcount(m) * load *
				                   (c->profiles[n->profile].tdp_w - c->profiles[n->profile].idle_w);
		}
	}
	/* allocated GPUs no job names: full TDP */
	for (r = 0; r < c->nracks; r++) {
		const gp_rack_t *rk = &c->racks[r];

		for (i = 0; i < rk->nnodes; i++) {
			int32_t ni = rk->nodes[i];
			const gp_node_t *n;
			uint32_t valid;

			if (ni < 0 || ni >= c->nnodes)
				continue;
			n = &c->nodes[ni];
			if (n->profile < 0 || n->profile >= c->nprofiles)
				continue; /* unknown GPUs are counted at their assumed draw */
			valid = gp__gpu_full_mask(n->ngpus);
			rack_w[r] += gp__popcount(s->alloc_mask[ni] & ~named[ni] & valid) *
			             (c->profiles[n->profile].tdp_w - c->profiles[n->profile].idle_w);
		}
	}
	free(named);
	return GP_OK;
}

double gp__power_job_watts(const gp_cluster_t *c, const int32_t *nodes, const uint32_t *gpu_mask,
                          int32_t nnodes, int32_t rack, double load)
{
	double w = 0.0;
	int32_t i;

	if (!c || rack < 0 || rack >= c->nracks || nnodes < 0 || (nnodes && (!nodes || !gpu_mask)))
		return (double)GP_EINVAL;
	if (!(load > 0.0) || load > 1.0)
		load = 1.0;
	for (i = 0; i < nnodes; i++) {
		const gp_node_t *n;
		const gp_gpu_profile_t *p;
		int g;

		if (nodes[i] < 0 || nodes[i] >= c->nnodes)
			return (double)GP_EINVAL;
		n = &c->nodes[nodes[i]];
		if (n->rack != rack)
			continue;
		p = n->profile >= 0 && n->profile < c->nprofiles ? &c->profiles[n->profile] : NULL;
		for (g = 0; g < n->ngpus && g < GP_MAX_GPUS_PER_NODE; g++)
			if ((gpu_mask[i] >> g) & 1u)
				/* an unknown GPU is already counted at its assumed
				 * maximum while idle: it adds nothing */
				w += gp__power_gpu_watts(p, load) - gp__power_gpu_watts(p, 0.0);
	}
	return w;
}

/* gp__power_headroom() with the rack's estimate given (< 0 = compute it). */
static int headroom_with(const gp_cluster_t *c, const gp_state_t *s,
                         const gp_power_snapshot_t *snap, int32_t rack, double estimate,
                         double extra_w, double now, gp_power_headroom_t *out)
{
	const gp_rack_t *r;
	gp_power_sample_t smp = { .watts = -1.0 };
	double margin, power_lim, cool_lim;

	if (!out)
		return GP_EINVAL;
	memset(out, 0, sizeof(*out));
	out->measured_w = -1.0;
	out->age_s = -1.0;
	snprintf(out->source, sizeof(out->source), "estimate");
	if (!c)
		return GP_EINVAL;
	if (rack < 0 || rack >= c->nracks)
		return GP_ENOENT;
	r = &c->racks[rack];

	if (snap && rack < snap->nracks) {
		smp = snap->racks[rack];
	} else if (!snap && s && s->rack_power && rack < s->nracks &&
	           s->rack_power[rack].sample_time > 0 && s->rack_power[rack].measured_w >= 0) {
		smp.watts = s->rack_power[rack].measured_w;
		smp.time = (double)s->rack_power[rack].sample_time;
		smp.stale_s = c->site.telemetry_stale_s;
		snprintf(smp.source, sizeof(smp.source), "%s", s->rack_power[rack].source);
	}

	margin = c->site.power_margin;
	if (!(margin >= 0.0) || margin >= 1.0)
		margin = 0.0;
	out->margin = margin;
	out->cap_w = r->power_cap_kw * 1000.0;
	/* CoolingKW defaults to PowerCapKW (gpuplace.conf(5)); 0 = not given */
	out->cooling_w = r->cooling_kw > 0.0 ? r->cooling_kw * 1000.0 : out->cap_w;
	power_lim = out->cap_w * (1.0 - margin);
	cool_lim = out->cooling_w * (1.0 - margin);
	out->binding = cool_lim < power_lim ? GP_LIMIT_COOLING : GP_LIMIT_POWER;
	out->limit_w = out->binding == GP_LIMIT_COOLING ? cool_lim : power_lim;
	out->estimated_w = estimate >= 0.0 ? estimate : gp__power_estimate_rack(c, s, rack);
	out->extra_w = extra_w;

	if (smp.watts >= 0.0 && smp.time > 0.0) {
		out->measured_w = smp.watts;
		out->age_s = now - smp.time;
		if (out->age_s < 0.0)
			out->age_s = 0.0; /* a clock step back: treat the sample as new */
		snprintf(out->source, sizeof(out->source), "%s", smp.source[0] ? smp.source : "state");
		if (out->age_s <= smp.stale_s) {
			out->basis = GP_BASIS_MEASURED;
			out->used_w = smp.watts;
		} else {
			/* Stale: the conservative estimate, but never below what was
			 * last measured. */
			out->basis = GP_BASIS_STALE;
			out->stale = true;
			out->used_w = fmax(out->estimated_w, smp.watts);
		}
	} else {
		out->basis = GP_BASIS_ESTIMATE;
		out->used_w = out->estimated_w;
	}
	out->headroom_w = out->limit_w - out->used_w - extra_w;
	return GP_OK;
}

int gp__power_headroom(const gp_cluster_t *c, const gp_state_t *s,
                      const gp_power_snapshot_t *snap, int32_t rack, double extra_w,
                      double now, gp_power_headroom_t *out)
{
	return headroom_with(c, s, snap, rack, -1.0, extra_w, now, out);
}

int gp__power_headroom_all(const gp_cluster_t *c, const gp_state_t *s,
                          const gp_power_snapshot_t *snap, double now, gp_power_headroom_t *out)
{
	double *est;
	int32_t r;
	int rc;

	if (!c || !out)
		return GP_EINVAL;
	if (!(est = malloc(((size_t)c->nracks + 1) * sizeof(*est))))
		return GP_ENOMEM;
	if ((rc = gp__power_estimate_all(c, s, est)) == GP_OK)
		for (r = 0; r < c->nracks && rc == GP_OK; r++)
			rc = headroom_with(c, s, snap, r, est[r], 0.0, now, &out[r]);
	free(est);
	return rc;
}
