/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json.c - the cluster model and its dynamic state as JSON (json-c).
 *
 * Schema: doc/gpuplace-json.5.  Loading parses the whole document, checks
 * every member's type, range and reference (an error names the file and the
 * JSON path, e.g. "m.json: model.nodes[12].rack: unknown rack 'r9'"), fills
 * a new model, and only then derives the indexes with gp__cluster_finish(),
 * so a failed load leaves nothing behind.  Saving is deterministic (fixed
 * member order, shortest round-trip number text), so save -> load -> save
 * gives the same bytes.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cost.h"
#include "model.h"
#include "power.h"

#define GP_JSON_SCHEMA 1
#define GP_JSON_MAX_FILE (1L << 30)   /* refuse documents above 1 GiB */
#define JPATH 192                       /* JSON path buffer */

/* ---- name index over arrays whose elements start with char name[] ---- */

/* The shared name table (gp__nametab_t) with the array it names, so that an
 * element is added by its index. */
struct nidx {
	gp__nametab_t t;
	const char *base;
	size_t stride;
};

static int nidx_init(struct nidx *h, const void *base, size_t stride, size_t n)
{
	(void)n;
	h->base = base;
	h->stride = stride;
	return gp__nametab_init(&h->t, false);
}

static const char *nidx_name(const struct nidx *h, int32_t i)
{
	return h->base + (size_t)i * h->stride;
}

static int32_t nidx_find(const struct nidx *h, const char *name)
{
	return gp__nametab_find(&h->t, name);
}

/* Insert element i; returns -1, or the index of an element with its name
 * (GP_ENOMEM as -2: the callers' name checks then fail with it). */
static int32_t nidx_add(struct nidx *h, int32_t i)
{
	int32_t dup;

	if (gp__nametab_add(&h->t, nidx_name(h, i), i, &dup))
		return -2;
	return dup;
}

static void nidx_free(struct nidx *h)
{
	gp__nametab_free(&h->t);
}

/* ---- loading: typed member access with JSON paths in errors ----------- */

struct jx {
	const char *file;
	gp_error_t *err;
	gp_cluster_t *c;
	struct nidx nodes, profiles, switches, racks, nvl, blocks;
};

static int jfail(struct jx *x, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int jfail(struct jx *x, const char *path, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return gp__errorf(x->err, GP_EJSON, "%s: %s: %s", x->file, path, msg);
}

static const char *tname(json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null: return "null";
	case json_type_boolean: return "a boolean";
	case json_type_double: return "a number";
	case json_type_int: return "an integer";
	case json_type_object: return "an object";
	case json_type_array: return "an array";
	case json_type_string: return "a string";
	}
	return "?";
}

/* path of a member: "base.key" (or "key" at the root) */
static void mpath(char *out, const char *base, const char *key)
{
	if (snprintf(out, JPATH, "%s%s%s", base, base[0] ? "." : "", key) >= JPATH)
		out[JPATH - 2] = '~';   /* visibly cut (paths are short in practice) */
}

static void ipath(char *out, const char *base, size_t i)
{
	if (snprintf(out, JPATH, "%s[%zu]", base, i) >= JPATH)
		out[JPATH - 2] = '~';
}

/* Only the listed keys may appear in object o. */
static int j_keys(struct jx *x, json_object *o, const char *path, const char *const *allowed)
{
	json_object_object_foreach(o, key, val) {
		const char *const *a;

		(void)val;
		for (a = allowed; *a; a++)
			if (!strcmp(*a, key))
				break;
		if (!*a)
			return jfail(x, path, "unknown key '%s'", key);
	}
	return GP_OK;
}

/* Member key of o; *v = NULL when absent or null (then an error if required). */
static int j_get(struct jx *x, json_object *o, const char *path, const char *key,
                 bool required, json_object **v)
{
	char p[JPATH];

	*v = NULL;
	if (json_object_object_get_ex(o, key, v) && *v)
		return GP_OK;
	*v = NULL;
	if (required) {
		mpath(p, path, key);
		return jfail(x, p, "missing (required)");
	}
	return GP_OK;
}

static int j_string(struct jx *x, json_object *o, const char *path, const char *key,
                    bool required, char *buf, size_t size)
{
	char p[JPATH];
	json_object *v;
	int rc;

	if ((rc = j_get(x, o, path, key, required, &v)) < 0 || !v)
		return rc;
	mpath(p, path, key);
	if (!json_object_is_type(v, json_type_string))
		return jfail(x, p, "expected a string, got %s", tname(v));
	if ((size_t)json_object_get_string_len(v) >= size)
		return jfail(x, p, "longer than %zu characters", size - 1);
	if (strlen(json_object_get_string(v)) != (size_t)json_object_get_string_len(v))
		return jfail(x, p, "contains a NUL character");
	memcpy(buf, json_object_get_string(v), (size_t)json_object_get_string_len(v) + 1);
	return GP_OK;
}

/* A name: non-empty string that fits GP_NAME_MAX. */
static int j_name(struct jx *x, json_object *o, const char *path, const char *key, char *buf)
{
	char p[JPATH];
	int rc;

	if ((rc = j_string(x, o, path, key, true, buf, GP_NAME_MAX)) < 0)
		return rc;
	if (!buf[0]) {
		mpath(p, path, key);
		return jfail(x, p, "empty name");
	}
	return GP_OK;
}

static int j_double(struct jx *x, json_object *o, const char *path, const char *key,
                    bool required, double min, double max, double *out)
{
	char p[JPATH];
	json_object *v;
	double d;
	int rc;

	if ((rc = j_get(x, o, path, key, required, &v)) < 0 || !v)
		return rc;
	mpath(p, path, key);
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return jfail(x, p, "expected a number, got %s", tname(v));
	d = json_object_get_double(v);
	if (!isfinite(d) || d < min || d > max)
		return jfail(x, p, "%s is out of range [%g, %g]", json_object_get_string(v), min, max);
	*out = d;
	return GP_OK;
}

static int j_int(struct jx *x, json_object *o, const char *path, const char *key,
                 bool required, int64_t min, int64_t max, int64_t *out)
{
	char p[JPATH];
	json_object *v;
	int64_t i;
	int rc;

	if ((rc = j_get(x, o, path, key, required, &v)) < 0 || !v)
		return rc;
	mpath(p, path, key);
	if (!json_object_is_type(v, json_type_int))
		return jfail(x, p, "expected an integer, got %s", tname(v));
	errno = 0;
	i = json_object_get_int64(v);
	if (i < min || i > max || errno == ERANGE ||
	    (i == INT64_MAX && json_object_get_uint64(v) > (uint64_t)INT64_MAX))
		return jfail(x, p, "%s is out of range [%lld, %lld]", json_object_get_string(v),
		             (long long)min, (long long)max);
	*out = i;
	return GP_OK;
}

static int j_i32(struct jx *x, json_object *o, const char *path, const char *key,
                 bool required, int64_t min, int64_t max, int32_t *out)
{
	int64_t v = *out;
	int rc = j_int(x, o, path, key, required, min, max, &v);

	*out = (int32_t)v;
	return rc;
}

static int j_bool(struct jx *x, json_object *o, const char *path, const char *key,
                  bool required, bool *out)
{
	char p[JPATH];
	json_object *v;
	int rc;

	if ((rc = j_get(x, o, path, key, required, &v)) < 0 || !v)
		return rc;
	mpath(p, path, key);
	if (!json_object_is_type(v, json_type_boolean))
		return jfail(x, p, "expected a boolean, got %s", tname(v));
	*out = json_object_get_boolean(v);
	return GP_OK;
}

/* Array member; absent -> *a = NULL, *n = 0. */
static int j_array(struct jx *x, json_object *o, const char *path, const char *key,
                   bool required, json_object **a, size_t *n)
{
	char p[JPATH];
	int rc;

	*n = 0;
	if ((rc = j_get(x, o, path, key, required, a)) < 0 || !*a)
		return rc;
	if (!json_object_is_type(*a, json_type_array)) {
		mpath(p, path, key);
		return jfail(x, p, "expected an array, got %s", tname(*a));
	}
	*n = json_object_array_length(*a);
	if (*n > INT32_MAX / 2) {
		mpath(p, path, key);
		return jfail(x, p, "too many elements");
	}
	return GP_OK;
}

/* Element i of array a (at apath) must be an object with only the listed
 * keys; the element's path in p. */
static int j_elem(struct jx *x, json_object *a, size_t i, const char *apath,
                  const char *const *keys, char *p, json_object **e)
{
	ipath(p, apath, i);
	*e = json_object_array_get_idx(a, i);
	if (!json_object_is_type(*e, json_type_object))
		return jfail(x, p, "expected an object, got %s", tname(*e));
	return j_keys(x, *e, p, keys);
}

/* A list of names resolved through h into a malloc'd index array. */
static int j_name_list(struct jx *x, json_object *o, const char *path, const char *key,
                       const struct nidx *h, const char *what, int32_t **out, int32_t *nout)
{
	char p[JPATH], ep[JPATH];
	json_object *a;
	size_t n, i;
	int rc;

	*out = NULL;
	*nout = 0;
	if ((rc = j_array(x, o, path, key, false, &a, &n)) < 0 || !a)
		return rc;
	mpath(p, path, key);
	*out = malloc((n + 1) * sizeof(**out));
	if (!*out)
		return gp__errorf(x->err, GP_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(a, i);
		int32_t k;

		ipath(ep, p, i);
		if (!json_object_is_type(e, json_type_string))
			return jfail(x, ep, "expected a %s name, got %s", what, tname(e));
		if ((k = nidx_find(h, json_object_get_string(e))) < 0)
			return jfail(x, ep, "unknown %s '%s'", what, json_object_get_string(e));
		(*out)[i] = k;
	}
	*nout = (int32_t)n;
	return GP_OK;
}

/* Allocate an array member's C array; nothing for n == 0. */
static int alloc_n(struct jx *x, void **p, size_t n, size_t size)
{
	*p = calloc(n + 1, size);
	if (!*p)
		return gp__errorf(x->err, GP_ENOMEM, "out of memory");
	return GP_OK;
}

/* The preamble of an array section path.key (absent and not required:
 * n = 0): its elements *arr as a C array (alloc_n()) and, when h is not
 * NULL, h the name index over it. */
static int j_section(struct jx *x, json_object *o, const char *path, const char *key,
                     bool required, json_object **a, size_t *n, void **arr, size_t size,
                     struct nidx *h)
{
	int rc;

	if ((rc = j_array(x, o, path, key, required, a, n)) < 0 ||
	    (rc = alloc_n(x, arr, *n, size)) < 0 ||
	    (h && (rc = nidx_init(h, *arr, size, *n)) < 0))
		return rc;
	return GP_OK;
}

/* Register element i's name in h; duplicate names are errors. */
static int add_name(struct jx *x, struct nidx *h, int32_t i, const char *p, const char *what)
{
	int32_t d = nidx_add(h, i);

	if (d == -2)
		return gp__errorf(x->err, GP_ENOMEM, "out of memory");
	if (d >= 0)
		return jfail(x, p, "duplicate %s name '%s' (also element %d)", what,
		             nidx_name(h, i), (int)d);
	return GP_OK;
}

/* ---- model sections ----------------------------------------------------- */

static int load_site(struct jx *x, json_object *m)
{
	static const char *const keys[] = { "default_gradient_bytes", "node_failure_rate",
		"power_margin", "telemetry_stale_s", "restart_s", "power_hres", "power_licenses", NULL };
	const char *path = "model.site";
	gp_site_t *s = &x->c->site;
	json_object *o;
	int rc;

	if ((rc = j_get(x, m, "model", "site", false, &o)) < 0 || !o)
		return rc;
	if (!json_object_is_type(o, json_type_object))
		return jfail(x, path, "expected an object, got %s", tname(o));
	if ((rc = j_keys(x, o, path, keys)) < 0 ||
	    (rc = j_double(x, o, path, "default_gradient_bytes", false, 0, 1e18,
	                   &s->default_grad_bytes)) < 0 ||
	    (rc = j_double(x, o, path, "node_failure_rate", false, 0, 1e6,
	                   &s->node_failures_per_1k_days)) < 0 ||
	    (rc = j_double(x, o, path, "power_margin", false, 0, 1, &s->power_margin)) < 0 ||
	    (rc = j_double(x, o, path, "restart_s", false, 0, 1e7, &s->restart_s)) < 0 ||
	    (rc = j_double(x, o, path, "telemetry_stale_s", false, 0, 1e9,
	                   &s->telemetry_stale_s)) < 0 ||
	    (rc = j_string(x, o, path, "power_hres", false, s->power_hres,
	                   sizeof(s->power_hres))) < 0 ||
	    (rc = j_string(x, o, path, "power_licenses", false, s->power_lic,
	                   sizeof(s->power_lic))) < 0)
		return rc;
	if (s->power_hres[0]) {
		gp_error_t e;

		if (gp__hres_name_check(s->power_hres, &e))
			return jfail(x, "model.site.power_hres", "'%s': %s", s->power_hres, e.text);
	}
	if (s->power_lic[0]) {
		gp_error_t e;

		if (gp__hres_name_check(s->power_lic, &e))
			return jfail(x, "model.site.power_licenses", "'%s': %s", s->power_lic, e.text);
	}
	return GP_OK;
}

static int load_profiles(struct jx *x, json_object *m)
{
	static const char *const keys[] = { "name", "tflops_bf16", "hbm_gbps", "nvlink_gbps",
		"tdp_w", "idle_w", "min_cap_w", "pcie_gen", "pcie_p2p", NULL };
	const char *ap = "model.profiles";
	gp_cluster_t *c = x->c;
	json_object *a, *e;
	char p[JPATH];
	size_t n, i;
	int rc;
	bool p2p;

	if ((rc = j_section(x, m, "model", "profiles", false, &a, &n, (void **)&c->profiles,
	                    sizeof(*c->profiles), &x->profiles)) < 0)
		return rc;
	for (i = 0; i < n; i++) {
		gp_gpu_profile_t *g = &c->profiles[i];

		if ((rc = j_elem(x, a, i, ap, keys, p, &e)) < 0 ||
		    (rc = j_name(x, e, p, "name", g->name)) < 0 ||
		    (rc = j_double(x, e, p, "tflops_bf16", true, 0, 1e7, &g->tflops_bf16)) < 0 ||
		    (rc = j_double(x, e, p, "hbm_gbps", true, 0, 1e7, &g->hbm_gbps)) < 0 ||
		    (rc = j_double(x, e, p, "nvlink_gbps", true, 0, 1e7, &g->nvlink_gbps)) < 0 ||
		    (rc = j_double(x, e, p, "tdp_w", true, 0, 1e6, &g->tdp_w)) < 0 ||
		    (rc = j_double(x, e, p, "idle_w", true, 0, 1e6, &g->idle_w)) < 0 ||
		    (rc = j_double(x, e, p, "min_cap_w", false, 0, 1e6, &g->min_cap_w)) < 0 ||
		    (rc = j_i32(x, e, p, "pcie_gen", false, 0, 6, &g->pcie_gen)) < 0)
			return rc;
		p2p = true;
		if ((rc = j_bool(x, e, p, "pcie_p2p", false, &p2p)) < 0)
			return rc;
		g->no_pcie_p2p = !p2p;
		c->nprofiles = (int32_t)i + 1;
		if ((rc = add_name(x, &x->profiles, (int32_t)i, p, "profile")) < 0)
			return rc;
	}
	return GP_OK;
}

static int load_layout_links(struct jx *x, json_object *e, const char *p, gp_gres_layout_t *g)
{
	char lp[JPATH], rp[JPATH], cp[JPATH];
	json_object *a, *row, *v;
	size_t n, i, j;
	int rc;

	if ((rc = j_array(x, e, p, "links", false, &a, &n)) < 0 || !a)
		return rc;
	mpath(lp, p, "links");
	if (n != (size_t)g->ngpus)
		return jfail(x, lp, "%zu rows for %d GPUs", n, g->ngpus);
	for (i = 0; i < n; i++) {
		ipath(rp, lp, i);
		row = json_object_array_get_idx(a, i);
		if (!json_object_is_type(row, json_type_array))
			return jfail(x, rp, "expected an array, got %s", tname(row));
		if (json_object_array_length(row) != n)
			return jfail(x, rp, "%zu entries for %d GPUs", json_object_array_length(row),
			             g->ngpus);
		for (j = 0; j < n; j++) {
			int64_t k;

			ipath(cp, rp, j);
			v = json_object_array_get_idx(row, j);
			if (!json_object_is_type(v, json_type_int))
				return jfail(x, cp, "expected an integer, got %s", tname(v));
			k = json_object_get_int64(v);
			if (k < (i == j ? -1 : 0) || k > (i == j ? -1 : 127))
				return jfail(x, cp, "%lld is out of range [%d, %d]", (long long)k,
				             i == j ? -1 : 0, i == j ? -1 : 127);
			g->links[i][j] = (int8_t)k;
		}
	}
	g->has_links = true;
	return GP_OK;
}

static int load_layouts(struct jx *x, json_object *m)
{
	static const char *const keys[] = { "ngpus", "links", "cores", NULL };
	const char *ap = "model.layouts";
	gp_cluster_t *c = x->c;
	json_object *a, *e, *cores;
	char p[JPATH], cp[JPATH], ep[JPATH];
	size_t n, i, k, nc;
	int rc;

	if ((rc = j_section(x, m, "model", "layouts", false, &a, &n, (void **)&c->layouts,
	                    sizeof(*c->layouts), NULL)) < 0)
		return rc;
	for (i = 0; i < n; i++) {
		gp_gres_layout_t *g = &c->layouts[i];
		int32_t ng = 0;

		c->nlayouts = (int32_t)i + 1;
		if ((rc = j_elem(x, a, i, ap, keys, p, &e)) < 0 ||
		    (rc = j_i32(x, e, p, "ngpus", true, 0, GP_MAX_GPUS_PER_NODE, &ng)) < 0)
			return rc;
		g->ngpus = ng;
		if ((rc = load_layout_links(x, e, p, g)) < 0 ||
		    (rc = j_array(x, e, p, "cores", false, &cores, &nc)) < 0)
			return rc;
		if (!cores)
			continue;
		mpath(cp, p, "cores");
		if (nc != (size_t)g->ngpus)
			return jfail(x, cp, "%zu entries for %d GPUs", nc, g->ngpus);
		for (k = 0; k < nc; k++) {
			json_object *v = json_object_array_get_idx(cores, k);

			ipath(ep, cp, k);
			if (!json_object_is_type(v, json_type_string))
				return jfail(x, ep, "expected a string, got %s", tname(v));
			if ((size_t)json_object_get_string_len(v) >= sizeof(g->cores[k]) ||
			    strlen(json_object_get_string(v)) != (size_t)json_object_get_string_len(v))
				return jfail(x, ep, "longer than %zu characters or has a NUL",
				             sizeof(g->cores[k]) - 1);
			snprintf(g->cores[k], sizeof(g->cores[k]), "%s", json_object_get_string(v));
		}
	}
	return GP_OK;
}

static int load_levels(struct jx *x, json_object *m)
{
	static const char *const keys[] = { "level", "link_gbps", "oversub", "latency_us",
		"transport", "step_us", "net_eff", "fill_us", "fill_level_us", NULL };
	const char *ap = "model.fabric_levels";
	json_object *a, *e;
	char p[JPATH];
	size_t n, i;
	int rc;

	if ((rc = j_array(x, m, "model", "fabric_levels", false, &a, &n)) < 0)
		return rc;
	for (i = 0; i < n; i++) {
		gp_fabric_level_t *l;
		int32_t lv = 0;
		char tr[16] = "";
		int t = GP_NET_IB;

		if ((rc = j_elem(x, a, i, ap, keys, p, &e)) < 0 ||
		    (rc = j_i32(x, e, p, "level", true, 0, GP_MAX_LEVELS - 1, &lv)) < 0)
			return rc;
		l = &x->c->levels[lv];
		if (l->set)
			return jfail(x, p, "level %d given twice", (int)lv);
		l->oversub = 1.0;
		l->latency_us = 0.5;
		if ((rc = j_double(x, e, p, "link_gbps", true, 0, 1e6, &l->link_gbps)) < 0 ||
		    (rc = j_double(x, e, p, "oversub", false, 1e-3, 1e3, &l->oversub)) < 0 ||
		    (rc = j_double(x, e, p, "latency_us", false, 0, 1e6, &l->latency_us)) < 0 ||
		    (rc = j_double(x, e, p, "step_us", false, 0, 1e6, &l->step_us)) < 0 ||
		    (rc = j_double(x, e, p, "net_eff", false, 0, 1, &l->net_eff)) < 0 ||
		    (rc = j_double(x, e, p, "fill_us", false, 0, 1e6, &l->fill_us)) < 0 ||
		    (rc = j_double(x, e, p, "fill_level_us", false, 0, 1e6, &l->fill_level_us)) < 0 ||
		    (rc = j_string(x, e, p, "transport", false, tr, sizeof(tr))) < 0)
			return rc;
		if (tr[0] && gp__transport_parse(tr, &t))
			return jfail(x, p, "transport '%s' is not ib, roce, efa, tcp or offload", tr);
		l->transport = tr[0] ? t : GP_NET_IB;
		l->set = true;
	}
	return GP_OK;
}

static int load_racks(struct jx *x, json_object *m)
{
	static const char *const keys[] = { "name", "power_cap_kw", "cooling_kw", "node_base_w",
		NULL };
	const char *ap = "model.racks";
	gp_cluster_t *c = x->c;
	json_object *a, *e;
	char p[JPATH];
	size_t n, i;
	int rc;

	if ((rc = j_section(x, m, "model", "racks", false, &a, &n, (void **)&c->racks,
	                    sizeof(*c->racks), &x->racks)) < 0)
		return rc;
	for (i = 0; i < n; i++) {
		gp_rack_t *r = &c->racks[i];

		c->nracks = (int32_t)i + 1;
		r->cooling_kw = -1;
		if ((rc = j_elem(x, a, i, ap, keys, p, &e)) < 0 ||
		    (rc = j_name(x, e, p, "name", r->name)) < 0 ||
		    (rc = add_name(x, &x->racks, (int32_t)i, p, "rack")) < 0 ||
		    (rc = j_double(x, e, p, "power_cap_kw", true, 0, 1e6, &r->power_cap_kw)) < 0 ||
		    (rc = j_double(x, e, p, "cooling_kw", false, 0, 1e6, &r->cooling_kw)) < 0 ||
		    (rc = j_double(x, e, p, "node_base_w", false, 0, 1e6, &r->node_base_w)) < 0)
			return rc;
		if (r->cooling_kw < 0)
			r->cooling_kw = r->power_cap_kw;
	}
	return GP_OK;
}

static int load_nvl(struct jx *x, json_object *m)
{
	static const char *const keys[] = { "name", "gbps_per_gpu", NULL };
	const char *ap = "model.nvl_domains";
	gp_cluster_t *c = x->c;
	json_object *a, *e;
	char p[JPATH];
	size_t n, i;
	int rc;

	if ((rc = j_section(x, m, "model", "nvl_domains", false, &a, &n, (void **)&c->nvl,
	                    sizeof(*c->nvl), &x->nvl)) < 0)
		return rc;
	for (i = 0; i < n; i++) {
		gp_nvl_domain_t *d = &c->nvl[i];

		c->nnvl = (int32_t)i + 1;
		if ((rc = j_elem(x, a, i, ap, keys, p, &e)) < 0 ||
		    (rc = j_name(x, e, p, "name", d->name)) < 0 ||
		    (rc = add_name(x, &x->nvl, (int32_t)i, p, "NVLink domain")) < 0 ||
		    (rc = j_double(x, e, p, "gbps_per_gpu", true, 0, 1e7, &d->gbps_per_gpu)) < 0)
			return rc;
	}
	return GP_OK;
}

/* model.topology_block (optional): the blocks of Slurm's topology/block,
 * {"block_sizes": [base, ...], "tree_from_blocks": bool, "blocks":
 * [{"name": ...}, ...]}, the sizes in nodes as BlockSizes says them. */
static int load_blocks(struct jx *x, json_object *m)
{
	static const char *const keys[] = { "block_sizes", "tree_from_blocks", "blocks", NULL };
	static const char *const bkeys[] = { "name", NULL };
	const char *tp = "model.topology_block", *ap = "model.topology_block.blocks";
	gp_cluster_t *c = x->c;
	json_object *t, *a, *e;
	char p[JPATH];
	size_t n, i, ns;
	int rc, L;

	if ((rc = j_get(x, m, "model", "topology_block", false, &t)) < 0 || !t)
		return rc;
	if (!json_object_is_type(t, json_type_object))
		return jfail(x, tp, "expected an object, got %s", tname(t));
	if ((rc = j_keys(x, t, tp, keys)) < 0 ||
	    (rc = j_bool(x, t, tp, "tree_from_blocks", false, &c->tree_from_blocks)) < 0 ||
	    (rc = j_section(x, t, tp, "blocks", true, &a, &n, (void **)&c->blocks,
	                    sizeof(*c->blocks), &x->blocks)) < 0)
		return rc;
	for (i = 0; i < n; i++) {
		c->nblocks = (int32_t)i + 1;
		if ((rc = j_elem(x, a, i, ap, bkeys, p, &e)) < 0 ||
		    (rc = j_name(x, e, p, "name", c->blocks[i].name)) < 0 ||
		    (rc = add_name(x, &x->blocks, (int32_t)i, p, "block")) < 0)
			return rc;
	}
	if ((rc = j_array(x, t, tp, "block_sizes", true, &a, &ns)) < 0)
		return rc;
	if (ns < 1 || ns > GP_MAX_BLOCK_LEVELS)
		return jfail(x, "model.topology_block.block_sizes", "expected 1 to %d sizes, got %zu",
		             GP_MAX_BLOCK_LEVELS, ns);
	for (i = 0; i < ns; i++) {
		json_object *v = json_object_array_get_idx(a, i);
		int64_t sz;

		ipath(p, "model.topology_block.block_sizes", i);
		if (!json_object_is_type(v, json_type_int) || (sz = json_object_get_int64(v)) < 1 ||
		    sz > INT32_MAX)
			return jfail(x, p, "expected a positive node count, got %s",
			             json_object_get_string(v));
		if (i == 0) {
			c->block_base = (int32_t)sz;
			c->block_levels = 1;
			continue;
		}
		for (L = 1; L < GP_MAX_BLOCK_LEVELS && ((int64_t)c->block_base << L) < sz; L++)
			;
		if (L == GP_MAX_BLOCK_LEVELS || ((int64_t)c->block_base << L) != sz ||
		    (c->block_levels >> L) != 0)
			return jfail(x, p, "%lld is not the base %d times a larger power of two",
			             (long long)sz, (int)c->block_base);
		c->block_levels |= 1u << L;
	}
	return GP_OK;
}

/* A member naming an object through h; -1 when absent/null. */
static int j_ref(struct jx *x, json_object *o, const char *path, const char *key,
                 const struct nidx *h, const char *what, int32_t *out)
{
	char p[JPATH];
	json_object *v;
	int rc;

	*out = -1;
	if ((rc = j_get(x, o, path, key, false, &v)) < 0 || !v)
		return rc;
	mpath(p, path, key);
	if (!json_object_is_type(v, json_type_string))
		return jfail(x, p, "expected a %s name or null, got %s", what, tname(v));
	if ((*out = nidx_find(h, json_object_get_string(v))) < 0)
		return jfail(x, p, "unknown %s '%s'", what, json_object_get_string(v));
	return GP_OK;
}

/* Rack and NVLink domain node lists from the nodes' references: objects
 * of stride bytes at base, each with an int32_t *nodes and int32_t nnodes
 * at the given offsets. */
static int member_lists(struct jx *x, const int32_t *ref, char *base, int32_t nobj,
                        size_t stride, size_t off_nodes, size_t off_n)
{
	gp_cluster_t *c = x->c;
	int32_t i;

	for (i = 0; i < c->nnodes; i++)
		if (ref[i] >= 0)
			(*(int32_t *)(base + (size_t)ref[i] * stride + off_n))++;
	for (i = 0; i < nobj; i++) {
		int32_t **lp = (int32_t **)(base + (size_t)i * stride + off_nodes);
		int32_t *np = (int32_t *)(base + (size_t)i * stride + off_n);

		*lp = malloc(((size_t)*np + 1) * sizeof(**lp));
		if (!*lp)
			return gp__errorf(x->err, GP_ENOMEM, "out of memory");
		*np = 0;
	}
	for (i = 0; i < c->nnodes; i++)
		if (ref[i] >= 0) {
			char *obj = base + (size_t)ref[i] * stride;
			int32_t *np = (int32_t *)(obj + off_n);

			(*(int32_t **)(obj + off_nodes))[(*np)++] = i;
		}
	return GP_OK;
}

/* A node's "gpu_types": "TYPE:N[,TYPE:N...]" (gp_node.gpu_types) whose
 * counts add up to the node's ngpus, or null. */
static int node_gpu_types(struct jx *x, json_object *v, const char *p, gp_node_t *d)
{
	char fp[JPATH], *s, *item, *next, *colon;
	long sum = 0, k;

	mpath(fp, p, "gpu_types");
	if (json_object_is_type(v, json_type_null))
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return jfail(x, fp, "expected a string or null, got %s", tname(v));
	if (!(s = strdup(json_object_get_string(v))))
		return gp__errorf(x->err, GP_ENOMEM, "out of memory");
	for (item = s; item; item = next) {
		if ((next = strchr(item, ',')) != NULL)
			*next++ = '\0';
		colon = strchr(item, ':');
		if (!colon || colon == item || gp__parse_long(colon + 1, 0, 1L << 20, &k)) {
			jfail(x, fp, "'%s' is not TYPE:COUNT[,TYPE:COUNT...]",
			      json_object_get_string(v));
			free(s);
			return GP_EJSON;
		}
		sum += k;
	}
	free(s);
	if (sum != d->ngpus)
		return jfail(x, fp, "counts %ld GPUs, the node %d", sum, (int)d->ngpus);
	if (!(d->gpu_types = strdup(json_object_get_string(v))))
		return gp__errorf(x->err, GP_ENOMEM, "out of memory");
	return 0;
}

static int load_nodes(struct jx *x, json_object *m)
{
	static const char *const keys[] = { "name", "ngpus", "profile", "layout", "rack",
		"nvl_domain", "block", "rails", "nic_gbps", "base_w", "weight", "cpus",
		"real_memory_mb", "features", "order", "gpu_types", NULL };
	const char *ap = "model.nodes";
	gp_cluster_t *c = x->c;
	int32_t *rack = NULL, *nvl = NULL, *blk = NULL;
	json_object *a, *e, *v, *gt;
	char p[JPATH], fp[JPATH];
	size_t n, i;
	int rc;

	if ((rc = j_section(x, m, "model", "nodes", true, &a, &n, (void **)&c->nodes,
	                    sizeof(*c->nodes), &x->nodes)) < 0 ||
	    (rc = alloc_n(x, (void **)&rack, n, sizeof(*rack))) < 0 ||
	    (rc = alloc_n(x, (void **)&nvl, n, sizeof(*nvl))) < 0 ||
	    (rc = alloc_n(x, (void **)&blk, n, sizeof(*blk))) < 0)
		goto out;
	for (i = 0; i < n; i++) {
		gp_node_t *d = &c->nodes[i];
		int64_t w = 1, ord = (int64_t)i;

		c->nnodes = (int32_t)i + 1;
		d->rails = 1;
		d->layout = -1;
		if ((rc = j_elem(x, a, i, ap, keys, p, &e)) < 0 ||
		    (rc = j_name(x, e, p, "name", d->name)) < 0 ||
		    (rc = add_name(x, &x->nodes, (int32_t)i, p, "node")) < 0 ||
		    (rc = j_i32(x, e, p, "ngpus", true, 0, GP_MAX_GPUS_PER_NODE, &d->ngpus)) < 0 ||
		    (rc = j_ref(x, e, p, "profile", &x->profiles, "GPU profile", &d->profile)) < 0 ||
		    (rc = j_i32(x, e, p, "layout", false, 0, (int64_t)c->nlayouts - 1,
		                &d->layout)) < 0 ||
		    (rc = j_ref(x, e, p, "rack", &x->racks, "rack", &rack[i])) < 0 ||
		    (rc = j_ref(x, e, p, "nvl_domain", &x->nvl, "NVLink domain", &nvl[i])) < 0 ||
		    (rc = j_ref(x, e, p, "block", &x->blocks, "block", &blk[i])) < 0 ||
		    (rc = j_i32(x, e, p, "rails", false, 0, 64, &d->rails)) < 0 ||
		    (rc = j_double(x, e, p, "nic_gbps", false, 0, 1e6, &d->nic_gbps)) < 0 ||
		    (rc = j_double(x, e, p, "base_w", false, 0, 1e7, &d->base_w)) < 0 ||
		    (rc = j_int(x, e, p, "weight", false, 0, UINT32_MAX, &w)) < 0 ||
		    (rc = j_i32(x, e, p, "cpus", false, 0, INT32_MAX, &d->cpus)) < 0 ||
		    (rc = j_int(x, e, p, "real_memory_mb", false, 0, INT64_MAX,
		                &d->real_memory_mb)) < 0 ||
		    (rc = j_int(x, e, p, "order", false, 0, UINT32_MAX, &ord)) < 0 ||
		    (rc = j_get(x, e, p, "features", false, &v)) < 0 ||
		    (rc = j_get(x, e, p, "gpu_types", false, &gt)) < 0)
			goto out;
		d->weight = (uint32_t)w;
		d->order = (uint32_t)ord;
		if (d->layout >= 0 && c->layouts[d->layout].ngpus != d->ngpus) {
			mpath(fp, p, "layout");
			rc = jfail(x, fp, "layout %d has %d GPUs, the node %d", (int)d->layout,
			           c->layouts[d->layout].ngpus, (int)d->ngpus);
			goto out;
		}
		if (v) {
			mpath(fp, p, "features");
			if (!json_object_is_type(v, json_type_string)) {
				rc = jfail(x, fp, "expected a string or null, got %s", tname(v));
				goto out;
			}
			if (strlen(json_object_get_string(v)) != (size_t)json_object_get_string_len(v)) {
				rc = jfail(x, fp, "contains a NUL character");
				goto out;
			}
			if (!(d->features = strdup(json_object_get_string(v)))) {
				rc = gp__errorf(x->err, GP_ENOMEM, "out of memory");
				goto out;
			}
		}
		if (gt && (rc = node_gpu_types(x, gt, p, d)) < 0)
			goto out;
	}
	if ((rc = member_lists(x, rack, (char *)c->racks, c->nracks, sizeof(gp_rack_t),
	                       offsetof(gp_rack_t, nodes), offsetof(gp_rack_t, nnodes))) < 0)
		goto out;
	if ((rc = member_lists(x, nvl, (char *)c->nvl, c->nnvl, sizeof(gp_nvl_domain_t),
	                       offsetof(gp_nvl_domain_t, nodes),
	                       offsetof(gp_nvl_domain_t, nnodes))) < 0)
		goto out;
	rc = member_lists(x, blk, (char *)c->blocks, c->nblocks, sizeof(gp_block_t),
	                  offsetof(gp_block_t, nodes), offsetof(gp_block_t, nnodes));
out:
	free(rack);
	free(nvl);
	free(blk);
	return rc;
}

static int load_switches(struct jx *x, json_object *m)
{
	static const char *const keys[] = { "name", "switches", "nodes", "link_speed",
		"disconnected", NULL };
	const char *ap = "model.switches";
	gp_cluster_t *c = x->c;
	json_object *a, *e;
	char p[JPATH];
	size_t n, i;
	int rc;

	if ((rc = j_section(x, m, "model", "switches", false, &a, &n, (void **)&c->switches,
	                    sizeof(*c->switches), &x->switches)) < 0)
		return rc;
	c->nswitches = (int32_t)n;
	for (i = 0; i < n; i++) {  /* names first: lists may refer forward */
		if ((rc = j_elem(x, a, i, ap, keys, p, &e)) < 0 ||
		    (rc = j_name(x, e, p, "name", c->switches[i].name)) < 0 ||
		    (rc = add_name(x, &x->switches, (int32_t)i, p, "switch")) < 0)
			return rc;
	}
	for (i = 0; i < n; i++) {
		gp_switch_t *w = &c->switches[i];

		ipath(p, ap, i);
		e = json_object_array_get_idx(a, i);
		if ((rc = j_name_list(x, e, p, "switches", &x->switches, "switch", &w->children,
		                      &w->nchildren)) < 0 ||
		    (rc = j_name_list(x, e, p, "nodes", &x->nodes, "node", &w->nodes,
		                      &w->nnodes)) < 0 ||
		    (rc = j_double(x, e, p, "link_speed", false, 0, 1e9, &w->link_speed)) < 0 ||
		    (rc = j_bool(x, e, p, "disconnected", false, &w->disconnected)) < 0)
			return rc;
	}
	return GP_OK;
}

static int load_parts(struct jx *x, json_object *m)
{
	static const char *const keys[] = { "name", "nodes", "default", "up", "max_time_min",
		"slurm_only", "no_blocks", NULL };
	const char *ap = "model.partitions";
	gp_cluster_t *c = x->c;
	struct nidx h = { 0 };
	json_object *a, *e, *v;
	char p[JPATH], mp[JPATH];
	size_t n, i;
	int rc;

	if ((rc = j_array(x, m, "model", "partitions", false, &a, &n)) < 0)
		return rc;
	if (n > GP_MAX_PARTITIONS)
		return jfail(x, ap, "%zu partitions (at most %d supported)", n, GP_MAX_PARTITIONS);
	if ((rc = alloc_n(x, (void **)&c->parts, n, sizeof(*c->parts))) < 0 ||
	    (rc = nidx_init(&h, c->parts, sizeof(*c->parts), n)) < 0)
		return rc;
	for (i = 0; i < n; i++) {
		gp_partition_t *t = &c->parts[i];

		c->nparts = (int32_t)i + 1;
		t->up = true;
		t->max_time_min = UINT32_MAX;
		if ((rc = j_elem(x, a, i, ap, keys, p, &e)) < 0 ||
		    (rc = j_name(x, e, p, "name", t->name)) < 0 ||
		    (rc = add_name(x, &h, (int32_t)i, p, "partition")) < 0 ||
		    (rc = j_name_list(x, e, p, "nodes", &x->nodes, "node", &t->nodes,
		                      &t->nnodes)) < 0 ||
		    (rc = j_bool(x, e, p, "default", false, &t->is_default)) < 0 ||
		    (rc = j_bool(x, e, p, "up", false, &t->up)) < 0 ||
		    (rc = j_bool(x, e, p, "no_blocks", false, &t->no_blocks)) < 0 ||
		    (rc = j_get(x, e, p, "max_time_min", false, &v)) < 0)
			break;
		if (v && json_object_is_type(v, json_type_string)) {
			if (strcmp(json_object_get_string(v), "INFINITE")) {
				mpath(mp, p, "max_time_min");
				rc = jfail(x, mp, "'%s' is neither minutes nor \"INFINITE\"",
				           json_object_get_string(v));
				break;
			}
		} else if (v) {
			int64_t t64 = 0;

			if ((rc = j_int(x, e, p, "max_time_min", false, 0, UINT32_MAX - 1, &t64)) < 0)
				break;
			t->max_time_min = (uint32_t)t64;
		}
		/* why its jobs are Slurm's alone (gpuplace-json(5)) */
		{
			char why[1024] = "";

			if ((rc = j_string(x, e, p, "slurm_only", false, why, sizeof(why))) < 0)
				break;
			if (why[0] && !(t->slurm_only = strdup(why))) {
				rc = gp__errorf(x->err, GP_ENOMEM, "out of memory");
				break;
			}
		}
	}
	nidx_free(&h);
	return rc;
}

static int parse_enum(struct jx *x, json_object *o, const char *path, const char *key,
                      bool required, const char *const *names, int *out)
{
	char buf[GP_NAME_MAX] = "", p[JPATH];
	int rc, i;

	if ((rc = j_string(x, o, path, key, required, buf, sizeof(buf))) < 0)
		return rc;
	if (!buf[0] && !required)
		return GP_OK;
	for (i = 0; names[i]; i++)
		if (!strcmp(buf, names[i])) {
			*out = i;
			return GP_OK;
		}
	mpath(p, path, key);
	return jfail(x, p, "'%s' is not one of %s%s%s%s%s", buf, names[0], names[1] ? ", " : "",
	             names[1] ? names[1] : "", names[2] ? ", " : "", names[2] ? names[2] : "");
}

static const char *const scope_names[] = { "node", "rack", "cluster", NULL };
static const char *const tele_names[] = { "prometheus", "redfish", "file", NULL };
static const char *const auth_names[] = { "none", "bearer", "basic", NULL };

static int load_storage(struct jx *x, json_object *m)
{
	static const char *const keys[] = { "name", "scope", "write_gbps", "read_gbps", "nodes",
		NULL };
	const char *ap = "model.storage";
	gp_cluster_t *c = x->c;
	struct nidx h = { 0 };
	json_object *a, *e;
	char p[JPATH];
	size_t n, i;
	int rc;

	if ((rc = j_section(x, m, "model", "storage", false, &a, &n, (void **)&c->storage,
	                    sizeof(*c->storage), &h)) < 0)
		return rc;
	for (i = 0; i < n; i++) {
		gp_storage_t *s = &c->storage[i];
		int scope = 0;

		c->nstorage = (int32_t)i + 1;
		s->read_gbps = -1;
		if ((rc = j_elem(x, a, i, ap, keys, p, &e)) < 0 ||
		    (rc = j_name(x, e, p, "name", s->name)) < 0 ||
		    (rc = add_name(x, &h, (int32_t)i, p, "storage")) < 0 ||
		    (rc = parse_enum(x, e, p, "scope", true, scope_names, &scope)) < 0 ||
		    (rc = j_double(x, e, p, "write_gbps", true, 0, 1e9, &s->write_gbps)) < 0 ||
		    (rc = j_double(x, e, p, "read_gbps", false, 0, 1e9, &s->read_gbps)) < 0 ||
		    (rc = j_name_list(x, e, p, "nodes", &x->nodes, "node", &s->nodes,
		                      &s->nnodes)) < 0)
			break;
		s->scope = (gp_scope_t)scope;
		if (s->read_gbps < 0)
			s->read_gbps = s->write_gbps;
	}
	nidx_free(&h);
	return rc;
}

static int load_telemetry(struct jx *x, json_object *m)
{
	static const char *const keys[] = { "name", "type", "url", "query", "rack_label",
		"racks", "nodes", "interval_s", "timeout_s", "stale_s", "auth", "auth_file",
		"ca_file", NULL };
	const char *ap = "model.telemetry";
	gp_cluster_t *c = x->c;
	struct nidx h = { 0 };
	json_object *a, *e;
	char p[JPATH];
	size_t n, i;
	int rc;

	if ((rc = j_section(x, m, "model", "telemetry", false, &a, &n, (void **)&c->telemetry,
	                    sizeof(*c->telemetry), &h)) < 0)
		return rc;
	for (i = 0; i < n; i++) {
		gp_telemetry_t *t = &c->telemetry[i];
		int kind = 0, auth = 0;

		c->ntelemetry = (int32_t)i + 1;
		snprintf(t->rack_label, sizeof(t->rack_label), "rack");
		t->interval_s = 10;
		t->timeout_s = 2;
		t->stale_s = c->site.telemetry_stale_s;
		if ((rc = j_elem(x, a, i, ap, keys, p, &e)) < 0 ||
		    (rc = j_name(x, e, p, "name", t->name)) < 0 ||
		    (rc = add_name(x, &h, (int32_t)i, p, "telemetry")) < 0 ||
		    (rc = parse_enum(x, e, p, "type", true, tele_names, &kind)) < 0 ||
		    (rc = j_string(x, e, p, "url", true, t->url, sizeof(t->url))) < 0 ||
		    (rc = j_string(x, e, p, "query", false, t->query, sizeof(t->query))) < 0 ||
		    (rc = j_string(x, e, p, "rack_label", false, t->rack_label,
		                   sizeof(t->rack_label))) < 0 ||
		    (rc = j_name_list(x, e, p, "racks", &x->racks, "rack", &t->racks,
		                      &t->nracks)) < 0 ||
		    (rc = j_name_list(x, e, p, "nodes", &x->nodes, "node", &t->nodes,
		                      &t->nnodes)) < 0 ||
		    (rc = j_double(x, e, p, "interval_s", false, 0, 1e9, &t->interval_s)) < 0 ||
		    (rc = j_double(x, e, p, "timeout_s", false, 0, 1e9, &t->timeout_s)) < 0 ||
		    (rc = j_double(x, e, p, "stale_s", false, 0, 1e9, &t->stale_s)) < 0 ||
		    (rc = parse_enum(x, e, p, "auth", false, auth_names, &auth)) < 0 ||
		    (rc = j_string(x, e, p, "auth_file", false, t->auth_file,
		                   sizeof(t->auth_file))) < 0 ||
		    (rc = j_string(x, e, p, "ca_file", false, t->ca_file, sizeof(t->ca_file))) < 0)
			break;
		t->kind = (gp_telemetry_kind_t)kind;
		t->auth = (gp_auth_kind_t)auth;
	}
	nidx_free(&h);
	return rc;
}

/* Loader warnings recorded with the model (e.g. by the conf loader). */
static int load_warnings(struct jx *x, json_object *m)
{
	gp_cluster_t *c = x->c;
	json_object *a;
	char p[JPATH];
	size_t n, i;
	int rc;

	if ((rc = j_section(x, m, "model", "warnings", false, &a, &n, (void **)&c->warnings,
	                    sizeof(*c->warnings), NULL)) < 0)
		return rc;
	for (i = 0; i < n; i++) {
		json_object *v = json_object_array_get_idx(a, i);

		ipath(p, "model.warnings", i);
		if (!json_object_is_type(v, json_type_string))
			return jfail(x, p, "expected a string, got %s", tname(v));
		if (strlen(json_object_get_string(v)) != (size_t)json_object_get_string_len(v))
			return jfail(x, p, "contains a NUL character");
		if (!(c->warnings[i] = strdup(json_object_get_string(v))))
			return gp__errorf(x->err, GP_ENOMEM, "out of memory");
		c->nwarnings = (int32_t)i + 1;
	}
	return GP_OK;
}

static int load_model(struct jx *x, json_object *m)
{
	static const char *const keys[] = { "name", "site", "profiles", "layouts",
		"fabric_levels", "nodes", "switches", "nvl_domains", "topology_block", "racks",
		"partitions", "storage", "telemetry", "warnings", NULL };
	gp_error_t ferr;
	int rc;

	if (!json_object_is_type(m, json_type_object))
		return jfail(x, "model", "expected an object, got %s", tname(m));
	if ((rc = j_keys(x, m, "model", keys)) < 0 ||
	    (rc = j_string(x, m, "model", "name", false, x->c->name, sizeof(x->c->name))) < 0 ||
	    (rc = load_site(x, m)) < 0 ||
	    (rc = load_profiles(x, m)) < 0 ||
	    (rc = load_layouts(x, m)) < 0 ||
	    (rc = load_levels(x, m)) < 0 ||
	    (rc = load_racks(x, m)) < 0 ||
	    (rc = load_nvl(x, m)) < 0 ||
	    (rc = load_blocks(x, m)) < 0 ||
	    (rc = load_nodes(x, m)) < 0 ||
	    (rc = load_switches(x, m)) < 0 ||
	    (rc = load_parts(x, m)) < 0 ||
	    (rc = load_storage(x, m)) < 0 ||
	    (rc = load_telemetry(x, m)) < 0 ||
	    (rc = load_warnings(x, m)) < 0)
		return rc;
	if ((rc = gp__cluster_finish(x->c, &ferr)) < 0)
		return gp__errorf(x->err, rc == GP_ENOMEM ? rc : GP_EJSON, "%s: model: %s", x->file,
		                  ferr.text);
	return GP_OK;
}

/* ---- state -------------------------------------------------------------- */

/* GP_NODE_* by bit (model.h): "not_responding" is GP_NODE_NORESP */
static const char *const flag_names[] = { "down", "drain", "reserved", "not_responding", NULL };

/* A list of GPU indices of node nd into a mask (no duplicates, in range). */
static int gpu_list(struct jx *x, json_object *o, const char *path, const char *key,
                    int32_t nd, uint32_t *mask)
{
	char p[JPATH], ep[JPATH];
	json_object *a;
	size_t n, i;
	int rc;

	*mask = 0;
	if ((rc = j_array(x, o, path, key, false, &a, &n)) < 0 || !a)
		return rc;
	mpath(p, path, key);
	for (i = 0; i < n; i++) {
		json_object *v = json_object_array_get_idx(a, i);
		int64_t g;

		ipath(ep, p, i);
		if (!json_object_is_type(v, json_type_int))
			return jfail(x, ep, "expected a GPU index, got %s", tname(v));
		g = json_object_get_int64(v);
		if (g < 0 || g >= x->c->nodes[nd].ngpus)
			return jfail(x, ep, "GPU index %lld out of range (node '%s' has %d GPUs)",
			             (long long)g, x->c->nodes[nd].name, (int)x->c->nodes[nd].ngpus);
		if (*mask & (1u << g))
			return jfail(x, ep, "GPU index %lld listed twice", (long long)g);
		*mask |= 1u << g;
	}
	return GP_OK;
}

static int j_node_ref(struct jx *x, json_object *o, const char *path, int32_t *nd)
{
	char name[GP_NAME_MAX], p[JPATH];
	int rc;

	if ((rc = j_name(x, o, path, "name", name)) < 0)
		return rc;
	if ((*nd = nidx_find(&x->nodes, name)) < 0) {
		mpath(p, path, "name");
		return jfail(x, p, "unknown node '%s'", name);
	}
	return GP_OK;
}

static int load_state_nodes(struct jx *x, json_object *st, gp_state_t *s)
{
	static const char *const keys[] = { "name", "flags", "alloc", NULL };
	const char *ap = "state.nodes";
	uint8_t *seen = NULL;
	json_object *a, *e, *fl;
	char p[JPATH], fp[JPATH], ep[JPATH];
	size_t n, i, k, nf;
	int rc;

	if ((rc = j_array(x, st, "state", "nodes", false, &a, &n)) < 0)
		return rc;
	if (!(seen = calloc((size_t)x->c->nnodes + 1, 1)))
		return gp__errorf(x->err, GP_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		int32_t nd;

		if ((rc = j_elem(x, a, i, ap, keys, p, &e)) < 0 ||
		    (rc = j_node_ref(x, e, p, &nd)) < 0)
			goto out;
		if (seen[nd]) {
			rc = jfail(x, p, "node '%s' listed twice", x->c->nodes[nd].name);
			goto out;
		}
		seen[nd] = 1;
		if ((rc = gpu_list(x, e, p, "alloc", nd, &s->alloc_mask[nd])) < 0 ||
		    (rc = j_array(x, e, p, "flags", false, &fl, &nf)) < 0)
			goto out;
		mpath(fp, p, "flags");
		for (k = 0; k < nf; k++) {
			json_object *v = json_object_array_get_idx(fl, k);
			int f;

			ipath(ep, fp, k);
			if (!json_object_is_type(v, json_type_string)) {
				rc = jfail(x, ep, "expected a string, got %s", tname(v));
				goto out;
			}
			for (f = 0; flag_names[f]; f++)
				if (!strcmp(flag_names[f], json_object_get_string(v)))
					break;
			if (!flag_names[f]) {
				rc = jfail(x, ep, "'%s' is not one of down, drain, reserved, "
				           "not_responding",
				           json_object_get_string(v));
				goto out;
			}
			s->node_flags[nd] |= 1u << f;
		}
	}
	rc = GP_OK;
out:
	free(seen);
	return rc;
}

static int load_state_jobs(struct jx *x, json_object *st, gp_state_t *s)
{
	static const char *const keys[] = { "job_id", "end_time", "load", "nodes", NULL };
	static const char *const nkeys[] = { "name", "gpus", NULL };
	const char *ap = "state.jobs";
	struct { uint32_t id; size_t at; } *ids = NULL;
	json_object *a, *e, *na, *ne;
	char p[JPATH], np[JPATH], nep[JPATH];
	size_t n, i, k, nn;
	int rc;

	if ((rc = j_section(x, st, "state", "jobs", false, &a, &n, (void **)&s->jobs,
	                    sizeof(*s->jobs), NULL)) < 0 ||
	    (rc = alloc_n(x, (void **)&ids, n, sizeof(*ids))) < 0)
		goto out;
	for (i = 0; i < n; i++) {
		gp_job_alloc_t *j = &s->jobs[i];
		int64_t id = 0;

		s->njobs = (int32_t)i + 1;
		j->load = 1.0;
		if ((rc = j_elem(x, a, i, ap, keys, p, &e)) < 0 ||
		    (rc = j_int(x, e, p, "job_id", true, 1, UINT32_MAX, &id)) < 0 ||
		    (rc = j_int(x, e, p, "end_time", false, 0, INT64_MAX, &j->end_time)) < 0 ||
		    (rc = j_double(x, e, p, "load", false, 0, 1, &j->load)) < 0 ||
		    (rc = j_array(x, e, p, "nodes", true, &na, &nn)) < 0)
			goto out;
		j->job_id = (uint32_t)id;
		for (k = 0; k < i; k++)
			if (ids[k].id == j->job_id) {
				rc = jfail(x, p, "job %u listed twice (also state.jobs[%zu])",
				           (unsigned)j->job_id, ids[k].at);
				goto out;
			}
		ids[i].id = j->job_id;
		ids[i].at = i;
		if ((rc = alloc_n(x, (void **)&j->nodes, nn, sizeof(*j->nodes))) < 0 ||
		    (rc = alloc_n(x, (void **)&j->gpu_mask, nn, sizeof(*j->gpu_mask))) < 0)
			goto out;
		mpath(np, p, "nodes");
		for (k = 0; k < nn; k++) {
			int32_t nd;
			size_t q;

			if ((rc = j_elem(x, na, k, np, nkeys, nep, &ne)) < 0 ||
			    (rc = j_node_ref(x, ne, nep, &nd)) < 0)
				goto out;
			for (q = 0; q < k; q++)
				if (j->nodes[q] == nd) {
					rc = jfail(x, nep, "node '%s' listed twice in the job",
					           x->c->nodes[nd].name);
					goto out;
				}
			j->nodes[k] = nd;
			j->nnodes = (int32_t)k + 1;
			if ((rc = gpu_list(x, ne, nep, "gpus", nd, &j->gpu_mask[k])) < 0)
				goto out;
			if (j->gpu_mask[k] & ~s->alloc_mask[nd]) {
				rc = jfail(x, nep, "GPUs of node '%s' not in its state.nodes alloc list",
				           x->c->nodes[nd].name);
				goto out;
			}
		}
	}
	rc = GP_OK;
out:
	free(ids);
	return rc;
}

static int load_state_racks(struct jx *x, json_object *st, gp_state_t *s)
{
	static const char *const keys[] = { "name", "measured_w", "sample_time", "source", NULL };
	const char *ap = "state.racks";
	uint8_t *seen = NULL;
	json_object *a, *e;
	char p[JPATH], name[GP_NAME_MAX], np[JPATH];
	size_t n, i;
	int rc;

	if ((rc = j_array(x, st, "state", "racks", false, &a, &n)) < 0)
		return rc;
	if (!(seen = calloc((size_t)x->c->nracks + 1, 1)))
		return gp__errorf(x->err, GP_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		gp_rack_power_t *r;
		int32_t k;

		if ((rc = j_elem(x, a, i, ap, keys, p, &e)) < 0 ||
		    (rc = j_name(x, e, p, "name", name)) < 0)
			goto out;
		mpath(np, p, "name");
		if ((k = nidx_find(&x->racks, name)) < 0) {
			rc = jfail(x, np, "unknown rack '%s'", name);
			goto out;
		}
		if (seen[k]) {
			rc = jfail(x, np, "rack '%s' listed twice", name);
			goto out;
		}
		seen[k] = 1;
		r = &s->rack_power[k];
		if ((rc = j_double(x, e, p, "measured_w", false, -1, 1e9, &r->measured_w)) < 0 ||
		    (rc = j_int(x, e, p, "sample_time", false, 0, INT64_MAX, &r->sample_time)) < 0 ||
		    (rc = j_string(x, e, p, "source", false, r->source, sizeof(r->source))) < 0)
			goto out;
	}
	rc = GP_OK;
out:
	free(seen);
	return rc;
}

static int load_state(struct jx *x, json_object *st, gp_state_t **out)
{
	static const char *const keys[] = { "time", "nodes", "jobs", "racks", NULL };
	gp_state_t *s = NULL;
	int rc;

	if (!json_object_is_type(st, json_type_object))
		return jfail(x, "state", "expected an object, got %s", tname(st));
	if ((rc = j_keys(x, st, "state", keys)) < 0)
		return rc;
	if ((rc = gp_state_create(x->c, &s)) < 0)
		return gp__errorf(x->err, rc, "out of memory");
	if ((rc = j_int(x, st, "state", "time", false, 0, INT64_MAX, &s->time)) < 0 ||
	    (rc = load_state_nodes(x, st, s)) < 0 ||
	    (rc = load_state_jobs(x, st, s)) < 0 ||
	    (rc = load_state_racks(x, st, s)) < 0) {
		gp_state_destroy(s);
		return rc;
	}
	*out = s;
	return GP_OK;
}

/* ---- file reading and the public loader -------------------------------- */

static int read_all(const char *path, char **buf, size_t *len, gp_error_t *err)
{
	gp__file_t f;
	int rc = gp__file_read(path, GP_JSON_MAX_FILE, GP_FILE_STDIN, &f, err);

	*buf = f.buf;
	*len = f.len;
	return rc == GP_EINVAL ? GP_EIO : rc;
}

/* One json-c parse of buf[0..len] (the NUL included) with flags into *o
 * (NULL on a syntax error, *je and *end saying what and where).  GP_OK, or
 * GP_ENOMEM when no tokener can be had. */
static int tokenize(const char *buf, size_t len, int flags, json_object **o,
                    enum json_tokener_error *je, size_t *end)
{
	struct json_tokener *tok = json_tokener_new();

	*o = NULL;
	if (!tok)
		return GP_ENOMEM;
	json_tokener_set_flags(tok, flags);
	/* the terminating NUL marks the end: a truncated document then fails
	 * with "unexpected end of data" instead of waiting for more */
	*o = json_tokener_parse_ex(tok, buf, (int)(len + 1 > INT32_MAX ? INT32_MAX : len + 1));
	*je = json_tokener_get_error(tok);
	*end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (*o && *je != json_tokener_success) {
		json_object_put(*o);
		*o = NULL;
	}
	return GP_OK;
}

/* Parse buf into a json-c tree, strictly; syntax errors name line and byte.
 * json-c 0.18's strict mode takes every byte above 0x7f in a string for a
 * control character (json-c issue #875, fixed after 0.18; Debian 13 ships
 * 0.18): there the syntax is checked strictly on a copy whose non-ASCII
 * bytes are replaced by 'x', byte for byte, and the values are read from a
 * second parse, which checks UTF-8, without the strict flag. */
static int parse_doc(const char *file, const char *buf, size_t len, json_object **root,
                     gp_error_t *err)
{
	enum json_tokener_error je;
	size_t end, i;
	int line = 1;

	int rc;

	*root = NULL;
	if (json_c_version_num() >> 8 == 0x0012) {
		char *ascii = malloc(len + 1);

		if (!ascii)
			return gp__errorf(err, GP_ENOMEM, "out of memory");
		for (i = 0; i <= len; i++)
			ascii[i] = (unsigned char)buf[i] > 0x7f ? 'x' : buf[i];
		rc = tokenize(ascii, len, JSON_TOKENER_STRICT, root, &je, &end);
		free(ascii);
		if (rc == GP_OK && *root) {
			json_object_put(*root);
			rc = tokenize(buf, len, JSON_TOKENER_VALIDATE_UTF8, root, &je, &end);
		}
	} else {
		rc = tokenize(buf, len, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8, root, &je,
		              &end);
	}
	if (rc != GP_OK)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	if (!*root || je != json_tokener_success) {
		if (end > len)
			end = len;
		for (i = 0; i < end; i++)
			line += buf[i] == '\n';
		json_object_put(*root);
		*root = NULL;
		return gp__errorf(err, GP_EJSON, "%s:%d: byte %zu: %s", file, line, end,
		                  je == json_tokener_continue ? "unexpected end of data"
		                                              : json_tokener_error_desc(je));
	}
	for (i = end; i < len; i++)
		if (buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' && buf[i] != '\r') {
			for (end = 0; end < i; end++)
				line += buf[end] == '\n';
			json_object_put(*root);
			*root = NULL;
			return gp__errorf(err, GP_EJSON, "%s:%d: byte %zu: data after the JSON document",
			                  file, line, i);
		}
	return GP_OK;
}

/* Parse buf into *root and check it is a gpuplace document of our schema
 * with only the top-level keys gpuplace_model, model and state.  On error
 * *root is NULL (nothing to put) and err says why. */
static int open_doc(struct jx *x, const char *buf, size_t len, json_object **root)
{
	static const char *const keys[] = { "gpuplace_model", "model", "state", NULL };
	int64_t ver = 0;
	int rc;

	if ((rc = parse_doc(x->file, buf, len, root, x->err)) < 0)
		return rc;
	if (!json_object_is_type(*root, json_type_object))
		rc = gp__errorf(x->err, GP_EJSON, "%s: the document is %s, not an object", x->file,
		                tname(*root));
	else if ((rc = j_int(x, *root, "", "gpuplace_model", true, INT64_MIN + 1, INT64_MAX, &ver)) >= 0 &&
	         ver != GP_JSON_SCHEMA)
		rc = jfail(x, "gpuplace_model", "unsupported schema version %lld (this gpuplace "
		           "reads %d)", (long long)ver, GP_JSON_SCHEMA);
	else if (rc >= 0)
		rc = j_keys(x, *root, "(document)", keys);
	if (rc < 0) {
		json_object_put(*root);
		*root = NULL;
		return rc;
	}
	return GP_OK;
}

int gp__cluster_load_json_buf(const char *name, const char *buf, size_t len,
                             gp_cluster_t **out, gp_state_t **state_out, gp_error_t *err)
{
	struct jx x = { 0 };
	json_object *root = NULL, *m, *st;
	gp_state_t *s = NULL;
	int rc;

	if (out)
		*out = NULL;
	if (state_out)
		*state_out = NULL;
	if (!out || !buf)
		return gp__errorf(err, GP_EINVAL, "no output pointer or buffer");
	x.file = name ? name : "(json)";
	x.err = err;
	if ((rc = open_doc(&x, buf, len, &root)) < 0)
		return rc;
	if ((rc = j_get(&x, root, "", "model", true, &m)) < 0)
		goto out;
	if (!(x.c = gp__cluster_new())) {
		rc = gp__errorf(err, GP_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = load_model(&x, m)) < 0 ||
	    (rc = j_get(&x, root, "", "state", false, &st)) < 0)
		goto out;
	if (st && state_out && (rc = load_state(&x, st, &s)) < 0)
		goto out;
	*out = x.c;
	x.c = NULL;
	if (state_out)
		*state_out = s;
	rc = GP_OK;
out:
	gp_cluster_destroy(x.c);
	nidx_free(&x.nodes);
	nidx_free(&x.profiles);
	nidx_free(&x.switches);
	nidx_free(&x.racks);
	nidx_free(&x.nvl);
	nidx_free(&x.blocks);
	json_object_put(root);
	return rc;
}

int gp_cluster_load_json(const char *path, gp_cluster_t **out, gp_state_t **state_out,
                         gp_error_t *err)
{
	size_t len = 0;
	char *buf;
	int rc;

	if (out)
		*out = NULL;
	if (state_out)
		*state_out = NULL;
	if (!path || !out)
		return gp__errorf(err, GP_EINVAL, "no path or output pointer");
	if ((rc = read_all(path, &buf, &len, err)) < 0)
		return rc;
	rc = gp__cluster_load_json_buf(path, buf, len, out, state_out, err);
	free(buf);
	return rc;
}

int gp_state_load_json(const gp_cluster_t *c, const char *path, gp_state_t **out, gp_error_t *err)
{
	struct jx x = { 0 };
	json_object *root = NULL, *st;
	gp_state_t *s = NULL;
	size_t len = 0;
	char *buf = NULL;
	int32_t i;
	int rc;

	if (out)
		*out = NULL;
	if (!c || !path || !out)
		return gp__errorf(err, GP_EINVAL, "no model, path or output pointer");
	if ((rc = read_all(path, &buf, &len, err)) < 0)
		return rc;
	x.file = path;
	x.err = err;
	/* the state section refers to nodes and racks by name: index the
	 * model's; it is only read */
	x.c = (gp_cluster_t *)c;
	if ((rc = open_doc(&x, buf, len, &root)) < 0 ||
	    (rc = j_get(&x, root, "", "state", true, &st)) < 0)
		goto out;
	if ((rc = nidx_init(&x.nodes, c->nodes, sizeof(*c->nodes), (size_t)c->nnodes)) < 0 ||
	    (rc = nidx_init(&x.racks, c->racks, sizeof(*c->racks), (size_t)c->nracks)) < 0) {
		rc = gp__errorf(err, GP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < c->nnodes; i++)
		if (nidx_add(&x.nodes, i) == -2)
			rc = GP_ENOMEM;
	for (i = 0; i < c->nracks; i++)
		if (nidx_add(&x.racks, i) == -2)
			rc = GP_ENOMEM;
	if (rc == GP_ENOMEM) {
		rc = gp__errorf(err, GP_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = load_state(&x, st, &s)) < 0)
		goto out;
	*out = s;
	rc = GP_OK;
out:
	nidx_free(&x.nodes);
	nidx_free(&x.racks);
	json_object_put(root);
	free(buf);
	return rc;
}

/* ---- saving ------------------------------------------------------------- */

/* A JSON number with the shortest text that reads back as the same value. */
static json_object *jnum(double v)
{
	char buf[GP_DOUBLE_STR];

	if (!isfinite(v))
		v = 0;
	return json_object_new_double_s(v, gp__double_str(buf, v));
}

/* Adders that remember the first allocation failure. */
struct jw {
	bool nomem;
};

static json_object *jadd(struct jw *w, json_object *o, const char *key, json_object *v)
{
	if (!v || json_object_object_add(o, key, v) < 0) {
		json_object_put(v);
		w->nomem = true;
		return NULL;
	}
	return v;
}

static json_object *jpush(struct jw *w, json_object *a, json_object *v)
{
	if (!v || json_object_array_add(a, v) < 0) {
		json_object_put(v);
		w->nomem = true;
		return NULL;
	}
	return v;
}

static json_object *jstr_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static void jadd_nullable(struct jw *w, json_object *o, const char *key, json_object *v,
                          bool is_null)
{
	if (is_null)
		json_object_object_add(o, key, NULL) < 0 ? (void)(w->nomem = true) : (void)0;
	else
		jadd(w, o, key, v);
}

static json_object *node_names(struct jw *w, const gp_cluster_t *c, const int32_t *v, int32_t n)
{
	json_object *a = json_object_new_array_ext(n > 0 ? n : 1);
	int32_t i;

	if (!a) {
		w->nomem = true;
		return NULL;
	}
	for (i = 0; i < n; i++)
		jpush(w, a, json_object_new_string(c->nodes[v[i]].name));
	return a;
}

static json_object *save_model(struct jw *w, const gp_cluster_t *c)
{
	json_object *m = json_object_new_object(), *a, *o, *r;
	int32_t i, j, k;

	if (!m) {
		w->nomem = true;
		return NULL;
	}
	jadd(w, m, "name", json_object_new_string(c->name));
	if ((o = jadd(w, m, "site", json_object_new_object()))) {
		jadd(w, o, "default_gradient_bytes", jnum(c->site.default_grad_bytes));
		jadd(w, o, "node_failure_rate", jnum(c->site.node_failures_per_1k_days));
		jadd(w, o, "power_margin", jnum(c->site.power_margin));
		jadd(w, o, "telemetry_stale_s", jnum(c->site.telemetry_stale_s));
		jadd(w, o, "restart_s", jnum(c->site.restart_s));
		if (c->site.power_hres[0])
			jadd(w, o, "power_hres", json_object_new_string(c->site.power_hres));
		if (c->site.power_lic[0])
			jadd(w, o, "power_licenses", json_object_new_string(c->site.power_lic));
	}
	if ((a = jadd(w, m, "profiles", json_object_new_array())))
		for (i = 0; i < c->nprofiles; i++) {
			const gp_gpu_profile_t *g = &c->profiles[i];

			if (!(o = jpush(w, a, json_object_new_object())))
				continue;
			jadd(w, o, "name", json_object_new_string(g->name));
			jadd(w, o, "tflops_bf16", jnum(g->tflops_bf16));
			jadd(w, o, "hbm_gbps", jnum(g->hbm_gbps));
			jadd(w, o, "nvlink_gbps", jnum(g->nvlink_gbps));
			jadd(w, o, "tdp_w", jnum(g->tdp_w));
			jadd(w, o, "idle_w", jnum(g->idle_w));
			jadd(w, o, "min_cap_w", jnum(g->min_cap_w));
			if (g->pcie_gen > 0)
				jadd(w, o, "pcie_gen", json_object_new_int(g->pcie_gen));
			if (g->no_pcie_p2p)
				jadd(w, o, "pcie_p2p", json_object_new_boolean(0));
		}
	if ((a = jadd(w, m, "layouts", json_object_new_array())))
		for (i = 0; i < c->nlayouts; i++) {
			const gp_gres_layout_t *g = &c->layouts[i];
			bool cores = false;

			if (!(o = jpush(w, a, json_object_new_object())))
				continue;
			jadd(w, o, "ngpus", json_object_new_int(g->ngpus));
			if (g->has_links && (r = jadd(w, o, "links", json_object_new_array())))
				for (j = 0; j < g->ngpus; j++) {
					json_object *row = jpush(w, r, json_object_new_array());

					for (k = 0; row && k < g->ngpus; k++)
						jpush(w, row, json_object_new_int(g->links[j][k]));
				}
			for (j = 0; j < g->ngpus; j++)
				cores |= g->cores[j][0] != '\0';
			if (cores && (r = jadd(w, o, "cores", json_object_new_array())))
				for (j = 0; j < g->ngpus; j++)
					jpush(w, r, json_object_new_string(g->cores[j]));
		}
	if ((a = jadd(w, m, "fabric_levels", json_object_new_array())))
		for (i = 0; i < GP_MAX_LEVELS; i++) {
			const gp_fabric_level_t *l = &c->levels[i];

			if (!l->set || !(o = jpush(w, a, json_object_new_object())))
				continue;
			jadd(w, o, "level", json_object_new_int(i));
			jadd(w, o, "link_gbps", jnum(l->link_gbps));
			jadd(w, o, "oversub", jnum(l->oversub));
			jadd(w, o, "latency_us", jnum(l->latency_us));
			if (l->transport != GP_NET_IB)
				jadd(w, o, "transport", json_object_new_string(
				             gp__transport_name(l->transport)));
			if (l->step_us > 0)
				jadd(w, o, "step_us", jnum(l->step_us));
			if (l->net_eff > 0)
				jadd(w, o, "net_eff", jnum(l->net_eff));
			if (l->fill_us > 0)
				jadd(w, o, "fill_us", jnum(l->fill_us));
			if (l->fill_level_us > 0)
				jadd(w, o, "fill_level_us", jnum(l->fill_level_us));
		}
	if ((a = jadd(w, m, "racks", json_object_new_array())))
		for (i = 0; i < c->nracks; i++) {
			const gp_rack_t *rk = &c->racks[i];

			if (!(o = jpush(w, a, json_object_new_object())))
				continue;
			jadd(w, o, "name", json_object_new_string(rk->name));
			jadd(w, o, "power_cap_kw", jnum(rk->power_cap_kw));
			jadd(w, o, "cooling_kw", jnum(rk->cooling_kw));
			jadd(w, o, "node_base_w", jnum(rk->node_base_w));
		}
	if ((a = jadd(w, m, "nvl_domains", json_object_new_array())))
		for (i = 0; i < c->nnvl; i++) {
			if (!(o = jpush(w, a, json_object_new_object())))
				continue;
			jadd(w, o, "name", json_object_new_string(c->nvl[i].name));
			jadd(w, o, "gbps_per_gpu", jnum(c->nvl[i].gbps_per_gpu));
		}
	/* only a model with blocks has the member (older documents stay as
	 * they were) */
	if (c->nblocks > 0 && (o = jadd(w, m, "topology_block", json_object_new_object()))) {
		int L;

		if ((a = jadd(w, o, "block_sizes", json_object_new_array())))
			for (L = 0; L < GP_MAX_BLOCK_LEVELS; L++)
				if ((c->block_levels >> L) & 1u)
					jpush(w, a, json_object_new_int64((int64_t)c->block_base << L));
		jadd(w, o, "tree_from_blocks", json_object_new_boolean(c->tree_from_blocks));
		if ((a = jadd(w, o, "blocks", json_object_new_array())))
			for (i = 0; i < c->nblocks; i++) {
				json_object *b = jpush(w, a, json_object_new_object());

				if (b)
					jadd(w, b, "name", json_object_new_string(c->blocks[i].name));
			}
	}
	if ((a = jadd(w, m, "nodes", json_object_new_array_ext(c->nnodes > 0 ? c->nnodes : 1))))
		for (i = 0; i < c->nnodes; i++) {
			const gp_node_t *n = &c->nodes[i];

			if (!(o = jpush(w, a, json_object_new_object())))
				continue;
			jadd(w, o, "name", json_object_new_string(n->name));
			jadd(w, o, "ngpus", json_object_new_int(n->ngpus));
			jadd_nullable(w, o, "profile", n->profile >= 0 ?
			              json_object_new_string(c->profiles[n->profile].name) : NULL,
			              n->profile < 0);
			jadd_nullable(w, o, "layout", n->layout >= 0 ? json_object_new_int(n->layout)
			              : NULL, n->layout < 0);
			jadd_nullable(w, o, "rack", n->rack >= 0 ?
			              json_object_new_string(c->racks[n->rack].name) : NULL, n->rack < 0);
			jadd_nullable(w, o, "nvl_domain", n->nvl_domain >= 0 ?
			              json_object_new_string(c->nvl[n->nvl_domain].name) : NULL,
			              n->nvl_domain < 0);
			if (n->block >= 0 && n->block < c->nblocks)
				jadd(w, o, "block", json_object_new_string(c->blocks[n->block].name));
			jadd(w, o, "rails", json_object_new_int(n->rails));
			jadd(w, o, "nic_gbps", jnum(n->nic_gbps));
			jadd(w, o, "base_w", jnum(n->base_w));
			jadd(w, o, "weight", json_object_new_int64(n->weight));
			jadd(w, o, "cpus", json_object_new_int(n->cpus));
			jadd(w, o, "real_memory_mb", json_object_new_int64(n->real_memory_mb));
			jadd_nullable(w, o, "features", jstr_or_null(n->features), !n->features);
			jadd(w, o, "order", json_object_new_int64(n->order));
			if (n->gpu_types)
				jadd(w, o, "gpu_types", json_object_new_string(n->gpu_types));
		}
	if ((a = jadd(w, m, "switches", json_object_new_array())))
		for (i = 0; i < c->nswitches; i++) {
			const gp_switch_t *s = &c->switches[i];

			if (!(o = jpush(w, a, json_object_new_object())))
				continue;
			jadd(w, o, "name", json_object_new_string(s->name));
			if ((r = jadd(w, o, "switches", json_object_new_array())))
				for (j = 0; j < s->nchildren; j++)
					jpush(w, r, json_object_new_string(c->switches[s->children[j]].name));
			jadd(w, o, "nodes", node_names(w, c, s->nodes, s->nnodes));
			jadd(w, o, "link_speed", jnum(s->link_speed));
			jadd(w, o, "disconnected", json_object_new_boolean(s->disconnected));
		}
	if ((a = jadd(w, m, "partitions", json_object_new_array())))
		for (i = 0; i < c->nparts; i++) {
			const gp_partition_t *t = &c->parts[i];

			if (!(o = jpush(w, a, json_object_new_object())))
				continue;
			jadd(w, o, "name", json_object_new_string(t->name));
			jadd(w, o, "nodes", node_names(w, c, t->nodes, t->nnodes));
			jadd(w, o, "default", json_object_new_boolean(t->is_default));
			jadd(w, o, "up", json_object_new_boolean(t->up));
			jadd(w, o, "max_time_min", t->max_time_min == UINT32_MAX ?
			     json_object_new_string("INFINITE") : json_object_new_int64(t->max_time_min));
			if (t->slurm_only)
				jadd(w, o, "slurm_only", json_object_new_string(t->slurm_only));
			/* placed by another topology of topology.yaml than the
			 * block one: written only then, as older models lack it */
			if (t->no_blocks)
				jadd(w, o, "no_blocks", json_object_new_boolean(true));
		}
	if ((a = jadd(w, m, "storage", json_object_new_array())))
		for (i = 0; i < c->nstorage; i++) {
			const gp_storage_t *s = &c->storage[i];

			if (!(o = jpush(w, a, json_object_new_object())))
				continue;
			jadd(w, o, "name", json_object_new_string(s->name));
			jadd(w, o, "scope", json_object_new_string(scope_names[s->scope]));
			jadd(w, o, "write_gbps", jnum(s->write_gbps));
			jadd(w, o, "read_gbps", jnum(s->read_gbps));
			jadd_nullable(w, o, "nodes", s->nodes ? node_names(w, c, s->nodes, s->nnodes)
			              : NULL, !s->nodes);
		}
	if ((a = jadd(w, m, "telemetry", json_object_new_array())))
		for (i = 0; i < c->ntelemetry; i++) {
			const gp_telemetry_t *t = &c->telemetry[i];

			if (!(o = jpush(w, a, json_object_new_object())))
				continue;
			jadd(w, o, "name", json_object_new_string(t->name));
			jadd(w, o, "type", json_object_new_string(tele_names[t->kind]));
			jadd(w, o, "url", json_object_new_string(t->url));
			jadd(w, o, "query", json_object_new_string(t->query));
			jadd(w, o, "rack_label", json_object_new_string(t->rack_label));
			if ((r = jadd(w, o, "racks", json_object_new_array())))
				for (j = 0; j < t->nracks; j++)
					jpush(w, r, json_object_new_string(c->racks[t->racks[j]].name));
			jadd(w, o, "nodes", node_names(w, c, t->nodes, t->nnodes));
			jadd(w, o, "interval_s", jnum(t->interval_s));
			jadd(w, o, "timeout_s", jnum(t->timeout_s));
			jadd(w, o, "stale_s", jnum(t->stale_s));
			jadd(w, o, "auth", json_object_new_string(auth_names[t->auth]));
			jadd(w, o, "auth_file", json_object_new_string(t->auth_file));
			jadd(w, o, "ca_file", json_object_new_string(t->ca_file));
		}
	if ((a = jadd(w, m, "warnings", json_object_new_array())))
		for (i = 0; i < c->nwarnings; i++)
			jpush(w, a, json_object_new_string(c->warnings[i]));
	return m;
}

static json_object *gpu_array(struct jw *w, uint32_t mask)
{
	json_object *a = json_object_new_array();
	int g;

	if (!a) {
		w->nomem = true;
		return NULL;
	}
	for (g = 0; g < 32; g++)
		if (mask & (1u << g))
			jpush(w, a, json_object_new_int(g));
	return a;
}

static json_object *save_state(struct jw *w, const gp_cluster_t *c, const gp_state_t *s)
{
	json_object *st = json_object_new_object(), *a, *o, *r, *e;
	int32_t i, k;
	int f;

	if (!st) {
		w->nomem = true;
		return NULL;
	}
	jadd(w, st, "time", json_object_new_int64(s->time));
	if ((a = jadd(w, st, "nodes", json_object_new_array())))
		for (i = 0; i < s->nnodes; i++) {
			if (!s->node_flags[i] && !s->alloc_mask[i])
				continue;
			if (!(o = jpush(w, a, json_object_new_object())))
				continue;
			jadd(w, o, "name", json_object_new_string(c->nodes[i].name));
			if ((r = jadd(w, o, "flags", json_object_new_array())))
				for (f = 0; flag_names[f]; f++)
					if (s->node_flags[i] & (1u << f))
						jpush(w, r, json_object_new_string(flag_names[f]));
			jadd(w, o, "alloc", gpu_array(w, s->alloc_mask[i]));
		}
	if ((a = jadd(w, st, "jobs", json_object_new_array())))
		for (i = 0; i < s->njobs; i++) {
			const gp_job_alloc_t *j = &s->jobs[i];

			if (!(o = jpush(w, a, json_object_new_object())))
				continue;
			jadd(w, o, "job_id", json_object_new_int64(j->job_id));
			jadd(w, o, "end_time", json_object_new_int64(j->end_time));
			jadd(w, o, "load", jnum(j->load));
			if ((r = jadd(w, o, "nodes", json_object_new_array())))
				for (k = 0; k < j->nnodes; k++) {
					if (!(e = jpush(w, r, json_object_new_object())))
						continue;
					jadd(w, e, "name", json_object_new_string(c->nodes[j->nodes[k]].name));
					jadd(w, e, "gpus", gpu_array(w, j->gpu_mask[k]));
				}
		}
	if ((a = jadd(w, st, "racks", json_object_new_array())))
		for (i = 0; i < s->nracks; i++) {
			const gp_rack_power_t *p = &s->rack_power[i];

			if (p->measured_w < 0 && !p->sample_time && !p->source[0])
				continue;
			if (!(o = jpush(w, a, json_object_new_object())))
				continue;
			jadd(w, o, "name", json_object_new_string(c->racks[i].name));
			jadd(w, o, "measured_w", jnum(p->measured_w));
			jadd(w, o, "sample_time", json_object_new_int64(p->sample_time));
			jadd(w, o, "source", json_object_new_string(p->source));
		}
	return st;
}

int gp_cluster_save_json(const gp_cluster_t *c, const gp_state_t *s, const char *path,
                         gp_error_t *err)
{
	char tmp[GP_PATH_MAX + 16];
	struct jw w = { false };
	json_object *root;
	const char *text;
	size_t len = 0;
	FILE *f;
	int rc = GP_OK;

	if (!c || !path)
		return gp__errorf(err, GP_EINVAL, "no cluster or path");
	if (s && (s->nnodes != c->nnodes || s->nracks != c->nracks))
		return gp__errorf(err, GP_EINVAL, "%s: the state does not belong to the model", path);
	if (!(root = json_object_new_object()))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	jadd(&w, root, "gpuplace_model", json_object_new_int(GP_JSON_SCHEMA));
	jadd(&w, root, "model", save_model(&w, c));
	if (s)
		jadd(&w, root, "state", save_state(&w, c, s));
	text = w.nomem ? NULL : json_object_to_json_string_length(root,
	        JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
	        JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	if (!text) {
		json_object_put(root);
		return gp__errorf(err, GP_ENOMEM, "out of memory writing %s", path);
	}
	if (!strcmp(path, "-")) {
		if (fwrite(text, 1, len, stdout) != len || fputc('\n', stdout) == EOF ||
		    fflush(stdout) != 0)
			rc = gp__errorf(err, GP_EIO, "standard output: write failed");
		json_object_put(root);
		return rc;
	}
	/* write beside the target and rename: readers never see half a file */
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!(f = fopen(tmp, "w"))) {
		rc = gp__errorf(err, GP_EIO, "%s: %s", tmp, strerror(errno));
	} else {
		bool bad = fwrite(text, 1, len, f) != len || fputc('\n', f) == EOF;

		if (fclose(f) != 0 || bad) {
			rc = gp__errorf(err, GP_EIO, "%s: write failed", tmp);
			remove(tmp);
		} else if (rename(tmp, path) < 0) {
			rc = gp__errorf(err, GP_EIO, "%s: %s", path, strerror(errno));
			remove(tmp);
		}
	}
	json_object_put(root);
	return rc;
}
