/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * api.c - gp_place(), the placement call of the installed library
 * (gpuplace.h): the same steps as `gpuplace place` and job_submit/gpuplace
 * (policy, power view, engine, decision) behind one call and an opaque
 * result, for programs that link libgpuplace (C, or Python through ctypes).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decide.h"
#include "gpuplace.h"

struct gp_place_result {
	gp_place_kind_t kind;
	char *nodes;            /* malloc'd ranged host list, "" when none */
	char *json;             /* malloc'd */
	char features[1024];
	char reason[768];
	double step_s;
};

void gp_place_result_destroy(gp_place_result_t *r)
{
	if (!r)
		return;
	free(r->nodes);
	free(r->json);
	free(r);
}

gp_place_kind_t gp_place_result_kind(const gp_place_result_t *r) { return r->kind; }
const char *gp_place_result_nodes(const gp_place_result_t *r) { return r->nodes; }
const char *gp_place_result_features(const gp_place_result_t *r) { return r->features; }
const char *gp_place_result_reason(const gp_place_result_t *r) { return r->reason; }
double gp_place_result_step_s(const gp_place_result_t *r) { return r->step_s; }
const char *gp_place_result_json(const gp_place_result_t *r) { return r->json; }

/* The request sbatch would make from req, into r (initialised by the caller). */
static int build_request(const gp_cluster_t *c, const gp_place_request_t *req,
                         const gp_job_profile_t *job, gp_request_t *r, gp_error_t *err)
{
	int rc;

	r->gpus = job->gpus;
	r->min_nodes = r->max_nodes = job->nodes;
	r->gpus_per_node = job->gpus_per_node;
	r->exclusive = req->exclusive != 0;
	r->time_limit_min = req->time_limit_min;
	if ((req->partition && (rc = gp__request_set_partition(r, c, req->partition, err))) ||
	    (req->nodelist && (rc = gp__request_set_required(r, c, req->nodelist, err))) ||
	    (req->exclude && (rc = gp__request_set_excluded(r, c, req->exclude, err))) ||
	    (req->constraint && (rc = gp__request_set_constraint(r, req->constraint, err))))
		return rc == GP_ENOMEM ? GP_ENOMEM : GP_EINVAL;
	return GP_OK;
}

/* The decision as the result's JSON document (malloc'd into *out). */
static int decision_json(const gp_cluster_t *c, const gp_decision_t *d, char **out)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	*out = NULL;
	if (!f)
		return GP_ENOMEM;
	rc = gp__decision_print_json(c, d, f);
	if (fclose(f) != 0 && rc == GP_OK)
		rc = GP_ENOMEM;
	if (rc != GP_OK) {
		free(buf);
		return rc;
	}
	*out = buf;
	return GP_OK;
}

int gp_place(const gp_cluster_t *c, const gp_state_t *s, const gp_place_request_t *req,
             gp_place_result_t **out, gp_error_t *err)
{
	gp_place_result_t *res = NULL;
	gp_engine_t *e = NULL;
	gp_rack_view_t *racks = NULL;
	gp_power_view_t pv = { NULL, NULL, false };
	gp_job_profile_t job;
	gp_request_t r;
	gp_policy_t p;
	gp_decision_t d;
	int64_t now;
	int rc;

	if (out)
		*out = NULL;
	memset(&d, 0, sizeof(d));
	gp__request_init(&r);
	if (!c || !req || !out || !req->job)
		return gp__errorf(err, GP_EINVAL, "gp_place: no model, request, job or output");
	if (gp__job_profile_parse(req->job, &job, err))
		return GP_EINVAL;
	if (job.gpus < 1)
		return gp__errorf(err, GP_EINVAL, "job '%s': gpus=N is required", req->job);
	/* the site's policy as the model was loaded (no file is read here) */
	if ((rc = gp__policy_site(c, &p, err)) != GP_OK)
		return rc;
	if (req->policy && gp__policy_parse(req->policy, "policy", &p, err))
		return GP_EINVAL;
	if ((rc = build_request(c, req, &job, &r, err)))
		goto out;
	now = req->now ? req->now : s ? s->time : (int64_t)time(NULL);
	if (c->nracks > 0) {
		if (!(racks = calloc((size_t)c->nracks, sizeof(*racks)))) {
			rc = gp__errorf(err, GP_ENOMEM, "out of memory");
			goto out;
		}
		gp__power_view_fill(c, s, NULL, &p, (double)now, racks);
		pv.racks = racks;
		pv.cap_speed = gp__power_view_cap_speed;
		/* as the plugin: the racks' limits bind at any use where Slurm
		 * holds every GPU job to them (PowerLicenses, PowerHres) */
		pv.held = gp__site_racks_held(c);
	}
	if ((rc = gp__engine_create(c, &e, err)) ||
	    (rc = gp__decide(e, s, &r, &job, &p, &pv, now, NULL, 0, &d, err)))
		goto out;
	if (!(res = calloc(1, sizeof(*res)))) {
		rc = gp__errorf(err, GP_ENOMEM, "out of memory");
		goto out;
	}
	res->kind = d.kind == GP_DECIDE_PIN ? GP_PLACE_PIN
	          : d.kind == GP_DECIDE_CONSTRAIN ? GP_PLACE_CONSTRAIN : GP_PLACE_REJECT;
	snprintf(res->features, sizeof(res->features), "%s", d.features);
	snprintf(res->reason, sizeof(res->reason), "%s", d.reason);
	if (d.ncands > 0 && d.kind != GP_DECIDE_REJECT) {
		res->step_s = d.cands[0].cost.step_s;
		res->nodes = gp__scored_nodelist(c, &d.cands[0]);
	} else {
		res->nodes = strdup("");
	}
	if (!res->nodes || (rc = decision_json(c, &d, &res->json))) {
		rc = gp__errorf(err, GP_ENOMEM, "out of memory");
		goto out;
	}
	*out = res;
	res = NULL;
	rc = GP_OK;
out:
	gp_place_result_destroy(res);
	gp__decision_clear(&d);
	gp__engine_destroy(e);
	gp__request_clear(&r);
	free(racks);
	return rc;
}
