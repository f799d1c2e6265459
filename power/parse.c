/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parse.c - telemetry response parsers: Prometheus instant vectors, Redfish
 * power resources and the telemetry file format.  Pure functions, fuzzed by
 * tests/fuzz/fuzz_prom.c and tests/fuzz/fuzz_redfish.c.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <json-c/json.h>

#include "power.h"

/* Parse buf[0..len) as one JSON document; *root owned by the caller. */
static int parse_root(const char *what, const char *buf, size_t len, json_object **root,
                      gp_error_t *err)
{
	json_tokener *tok;
	enum json_tokener_error jerr;

	*root = NULL;
	if (!buf || !len)
		return gp__errorf(err, GP_EJSON, "%s: empty response", what);
	if (len > (size_t)INT32_MAX)
		return gp__errorf(err, GP_EJSON, "%s: response too large", what);
	tok = json_tokener_new();
	if (!tok)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	*root = json_tokener_parse_ex(tok, buf, (int)len);
	jerr = json_tokener_get_error(tok);
	if (!*root || jerr != json_tokener_success) {
		if (jerr == json_tokener_continue)
			gp__errorf(err, GP_EJSON, "%s: JSON ends early (truncated?)", what);
		else
			gp__errorf(err, GP_EJSON, "%s: not JSON: %s", what,
			           json_tokener_error_desc(jerr));
		json_object_put(*root);
		*root = NULL;
		json_tokener_free(tok);
		return GP_EJSON;
	}
	/* anything but white space after the document is garbage */
	{
		size_t off = json_tokener_get_parse_end(tok);

		while (off < len && strchr(" \t\r\n", buf[off]) && buf[off])
			off++;
		json_tokener_free(tok);
		if (off < len) {
			json_object_put(*root);
			*root = NULL;
			return gp__errorf(err, GP_EJSON, "%s: data after the JSON document", what);
		}
	}
	return GP_OK;
}

static int32_t rack_find(const gp_cluster_t *c, const char *name)
{
	int32_t i;

	for (i = 0; i < c->nracks; i++)
		if (!strcmp(c->racks[i].name, name))
			return i;
	return -1;
}

/* A rack's idle draw as the configuration states it: each node's
 * NodeBaseWatts plus its GPUs' IdleWatts (GPUs of no known profile count
 * nothing here: a floor must not be raised by a guess).  The same sum
 * conf/load.c holds PowerCapKW to. */
static double rack_idle_w(const gp_cluster_t *c, const gp_rack_t *r)
{
	double w = 0.0;
	int32_t i;

	for (i = 0; i < r->nnodes; i++) {
		const gp_node_t *n;

		if (r->nodes[i] < 0 || r->nodes[i] >= c->nnodes)
			continue;
		n = &c->nodes[r->nodes[i]];
		w += n->base_w > 0.0 ? n->base_w : r->node_base_w;
		if (n->profile >= 0 && n->profile < c->nprofiles)
			w += n->ngpus * c->profiles[n->profile].idle_w;
	}
	return w;
}

/* The lowest plausible reading as a fraction of the rack's configured idle
 * draw.  An assumption: NodeBaseWatts is usually taken from a system's
 * maximum (DGX H100: 10.2 kW less 8 x 700 W, calibration.md sec. 4), and a
 * server with idle CPUs draws less than that, so a real idle rack may read
 * below the configured figure -- but not below half of it while its nodes
 * are up.  A rack read lower is switched off, half measured (a PDU feed
 * missing from the sum) or not reported (0 from a collector that lost it);
 * taking such a number would grant headroom no one measured, so it is
 * refused and the estimate is used. */
#define GP_IDLE_FLOOR_FRACTION 0.5

int gp__power_check_units(const gp_cluster_t *c, int32_t rack, double watts, gp_error_t *err)
{
	double cap_w, floor_w;

	if (!isfinite(watts))
		return gp__errorf(err, GP_ERANGE, "%g W is not a finite number", watts);
	if (watts < 0.0)
		return gp__errorf(err, GP_ERANGE, "%g W is negative (wrong units?)", watts);
	if (!c || rack < 0 || rack >= c->nracks)
		return GP_OK;
	cap_w = c->racks[rack].power_cap_kw * 1000.0;
	/* A rack in watts draws far more than its cap written in kW: a
	 * reading at or below the cap's kW figure is a kW value. */
	if (watts > 0.0 && watts <= c->racks[rack].power_cap_kw)
		return gp__errorf(err, GP_ERANGE,
		                  "%g looks like kW, not W (wrong units; the query must return watts)",
		                  watts);
	/* Ten times the cap cannot be drawn through the rack's feeds: mW?
	 * (The factor is an assumption: generous, as breakers and PDUs are
	 * sized within a small multiple of the cap.) */
	if (cap_w > 0.0 && watts > 10.0 * cap_w)
		return gp__errorf(err, GP_ERANGE,
		                  "%g W is over ten times the %g kW cap (wrong units?)", watts,
		                  c->racks[rack].power_cap_kw);
	/* A rack with nodes always draws: 0 W is a missing value, not a
	 * measurement; below half its idle draw it is not all measured. */
	if (c->racks[rack].nnodes > 0 && watts == 0.0)
		return gp__errorf(err, GP_ERANGE,
		                  "0 W is no measurement of a rack with %d nodes (switched off, or the "
		                  "value is missing)", (int)c->racks[rack].nnodes);
	floor_w = GP_IDLE_FLOOR_FRACTION * rack_idle_w(c, &c->racks[rack]);
	if (watts < floor_w)
		return gp__errorf(err, GP_ERANGE,
		                  "%g W is implausibly low: below half the rack's idle draw of %.0f W "
		                  "(its nodes' NodeBaseWatts plus their GPUs' IdleWatts); part of the "
		                  "rack unmeasured?", watts, floor_w / GP_IDLE_FLOOR_FRACTION);
	return GP_OK;
}

/* A Prometheus sample: [ <unix_time>, "<sample_value>" ], the time a JSON
 * number of seconds (fractions allowed), the value a JSON string holding a
 * float ("NaN", "+Inf" included), per the HTTP API docs ("Expression query
 * result formats", instant vectors).  *time is the sample's time. */
static int prom_value(json_object *v, double *out, double *time)
{
	json_object *num, *ts;
	const char *s;

	if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) != 2)
		return GP_EJSON;
	ts = json_object_array_get_idx(v, 0);
	if (!json_object_is_type(ts, json_type_int) && !json_object_is_type(ts, json_type_double))
		return GP_EJSON;
	*time = json_object_get_double(ts);
	if (!isfinite(*time) || *time < 0.0)
		return GP_EJSON;
	num = json_object_array_get_idx(v, 1);
	if (!json_object_is_type(num, json_type_string))
		return GP_EJSON;
	s = json_object_get_string(num);
	if (!strcmp(s, "NaN") || !strcmp(s, "+Inf") || !strcmp(s, "-Inf")) {
		*out = !strcmp(s, "-Inf") ? -INFINITY : s[0] == 'N' ? NAN : INFINITY;
		return GP_OK;
	}
	return gp__parse_double(s, -1e300, 1e300, out) < 0 ? GP_EJSON : GP_OK;
}

int gp__parse_prometheus(const gp_cluster_t *c, const char *label, const char *buf,
                         size_t len, gp__reading_t *readings, int32_t cap, int32_t *n,
                         int32_t *unknown, gp_error_t *err)
{
	json_object *root = NULL, *st, *data, *rt, *res;
	size_t i, nres;
	int rc = GP_EJSON;

	if (n)
		*n = 0;
	if (unknown)
		*unknown = 0;
	if (!c || !label || !n || !unknown || (cap > 0 && !readings))
		return gp__errorf(err, GP_EINVAL, "prometheus: bad arguments");
	if ((rc = parse_root("prometheus", buf, len, &root, err)) < 0)
		return rc;
	rc = GP_EJSON;
	if (!json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "status", &st) ||
	    !json_object_is_type(st, json_type_string)) {
		gp__errorf(err, rc, "prometheus: no \"status\" string");
		goto out;
	}
	if (strcmp(json_object_get_string(st), "success")) {
		json_object *e = NULL;

		json_object_object_get_ex(root, "error", &e);
		gp__errorf(err, rc, "prometheus: status %.32s: %.200s", json_object_get_string(st),
		           json_object_is_type(e, json_type_string) ? json_object_get_string(e)
		                                                    : "(no error text)");
		goto out;
	}
	if (!json_object_object_get_ex(root, "data", &data) ||
	    !json_object_is_type(data, json_type_object) ||
	    !json_object_object_get_ex(data, "resultType", &rt) ||
	    !json_object_is_type(rt, json_type_string) ||
	    !json_object_object_get_ex(data, "result", &res) ||
	    !json_object_is_type(res, json_type_array)) {
		gp__errorf(err, rc, "prometheus: no data.resultType / data.result array");
		goto out;
	}
	if (strcmp(json_object_get_string(rt), "vector")) {
		gp__errorf(err, rc, "prometheus: result type '%.32s', not an instant vector",
		           json_object_get_string(rt));
		goto out;
	}
	nres = json_object_array_length(res);
	for (i = 0; i < nres; i++) {
		json_object *e = json_object_array_get_idx(res, i), *m, *l, *v;
		int32_t r;
		double w, when;

		if (!json_object_is_type(e, json_type_object) ||
		    !json_object_object_get_ex(e, "metric", &m) ||
		    !json_object_is_type(m, json_type_object) ||
		    !json_object_object_get_ex(e, "value", &v)) {
			gp__errorf(err, rc, "prometheus: result %zu has no metric/value", i);
			goto out;
		}
		if (prom_value(v, &w, &when) < 0) {
			gp__errorf(err, rc, "prometheus: result %zu: value is not [time, \"number\"]", i);
			goto out;
		}
		if (!json_object_object_get_ex(m, label, &l) || !json_object_is_type(l, json_type_string) ||
		    (r = rack_find(c, json_object_get_string(l))) < 0) {
			(*unknown)++;
			continue;
		}
		if (*n >= cap) {
			gp__errorf(err, rc, "prometheus: more than %d series", (int)cap);
			goto out;
		}
		readings[*n].rack = r;
		readings[*n].watts = w;
		readings[*n].time = when;
		(*n)++;
	}
	rc = GP_OK;
out:
	json_object_put(root);
	return rc;
}

/* Add a Redfish number (int or double; null = no reading) to *sum. */
static int rf_add(json_object *v, double *sum, int *found)
{
	if (!v || json_object_is_type(v, json_type_null))
		return GP_OK;
	if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
		return GP_EJSON;
	*sum += json_object_get_double(v);
	(*found)++;
	return GP_OK;
}

int gp__parse_redfish(const char *buf, size_t len, const char *name_filter, double *watts,
                      gp_error_t *err)
{
	json_object *root = NULL, *pc, *pw;
	double sum = 0.0;
	int found = 0, rc;

	if (!watts)
		return gp__errorf(err, GP_EINVAL, "redfish: bad arguments");
	*watts = 0.0;
	if ((rc = parse_root("redfish", buf, len, &root, err)) < 0)
		return rc;
	rc = GP_EJSON;
	if (!json_object_is_type(root, json_type_object)) {
		gp__errorf(err, rc, "redfish: not a JSON object");
		goto out;
	}
	if (json_object_object_get_ex(root, "PowerControl", &pc)) {
		/* Power resource (Power.v1_x): PowerControl[].PowerConsumedWatts */
		size_t i, np;

		if (!json_object_is_type(pc, json_type_array)) {
			gp__errorf(err, rc, "redfish: PowerControl is not an array");
			goto out;
		}
		np = json_object_array_length(pc);
		for (i = 0; i < np; i++) {
			json_object *m = json_object_array_get_idx(pc, i), *v = NULL, *nm;

			if (!json_object_is_type(m, json_type_object)) {
				gp__errorf(err, rc, "redfish: PowerControl[%zu] is not an object", i);
				goto out;
			}
			if (name_filter) {
				bool match = false;

				if (json_object_object_get_ex(m, "Name", &nm) &&
				    json_object_is_type(nm, json_type_string) &&
				    !strcmp(json_object_get_string(nm), name_filter))
					match = true;
				if (json_object_object_get_ex(m, "MemberId", &nm) &&
				    json_object_is_type(nm, json_type_string) &&
				    !strcmp(json_object_get_string(nm), name_filter))
					match = true;
				if (!match)
					continue;
			}
			json_object_object_get_ex(m, "PowerConsumedWatts", &v);
			if (rf_add(v, &sum, &found) < 0) {
				gp__errorf(err, rc, "redfish: PowerControl[%zu].PowerConsumedWatts is not a number", i);
				goto out;
			}
		}
	} else if (json_object_object_get_ex(root, "PowerWatts", &pw)) {
		/* EnvironmentMetrics (v1_x): PowerWatts is a SensorPowerExcerpt */
		json_object *v = NULL;

		if (!json_object_is_type(pw, json_type_object)) {
			gp__errorf(err, rc, "redfish: PowerWatts is not an object");
			goto out;
		}
		json_object_object_get_ex(pw, "Reading", &v);
		if (rf_add(v, &sum, &found) < 0) {
			gp__errorf(err, rc, "redfish: PowerWatts.Reading is not a number");
			goto out;
		}
	} else {
		gp__errorf(err, rc, "redfish: neither PowerControl nor PowerWatts in the resource");
		goto out;
	}
	if (!found) {
		rc = gp__errorf(err, GP_ENOENT, "redfish: no power reading%s%s%s",
		                name_filter ? " for '" : "", name_filter ? name_filter : "",
		                name_filter ? "'" : "");
		goto out;
	}
	*watts = sum;
	rc = GP_OK;
out:
	json_object_put(root);
	return rc;
}

int gp__parse_power_file(const gp_cluster_t *c, const char *buf, size_t len,
                         gp__reading_t *readings, int32_t cap, int32_t *n, int32_t *unknown,
                         double *time, gp_error_t *err)
{
	json_object *root = NULL, *racks, *t;
	int rc;

	if (n)
		*n = 0;
	if (unknown)
		*unknown = 0;
	if (time)
		*time = 0.0;
	if (!c || !n || !unknown || !time || (cap > 0 && !readings))
		return gp__errorf(err, GP_EINVAL, "file: bad arguments");
	if ((rc = parse_root("file", buf, len, &root, err)) < 0)
		return rc;
	rc = GP_EJSON;
	if (!json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "racks", &racks) ||
	    !json_object_is_type(racks, json_type_object)) {
		gp__errorf(err, rc, "file: no \"racks\" object");
		goto out;
	}
	if (json_object_object_get_ex(root, "time", &t)) {
		if (!json_object_is_type(t, json_type_int) && !json_object_is_type(t, json_type_double)) {
			gp__errorf(err, rc, "file: \"time\" is not a number");
			goto out;
		}
		*time = json_object_get_double(t);
		if (!(*time > 0.0) || !isfinite(*time)) {
			gp__errorf(err, rc, "file: \"time\" is not a positive epoch time");
			goto out;
		}
	}
	{
		json_object_object_foreach(racks, key, val) {
			int32_t r = rack_find(c, key);

			if (!json_object_is_type(val, json_type_int) &&
			    !json_object_is_type(val, json_type_double)) {
				gp__errorf(err, rc, "file: racks.%.64s is not a number", key);
				goto out;
			}
			if (r < 0) {
				(*unknown)++;
				continue;
			}
			if (*n >= cap) {
				gp__errorf(err, rc, "file: more than %d racks", (int)cap);
				goto out;
			}
			readings[*n].rack = r;
			readings[*n].watts = json_object_get_double(val);
			readings[*n].time = -1.0; /* the file's "time" or mtime */
			(*n)++;
		}
	}
	rc = GP_OK;
out:
	json_object_put(root);
	return rc;
}
