/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_out.c - the simulator's outputs: the comparison table, CSV and JSON
 * files, and gnuplot plots.  Everything here only reads gp_sim_result_t.
 *
 * Files are written to a temporary name beside the target and renamed into
 * place, so a reader never sees half a file and a failed run leaves the
 * previous file intact.  Numbers are printed with the fewest digits that
 * read back to the same double (%.15g, else %.17g): deterministic and
 * exact.  A non-finite value (NaN, infinity) is an empty CSV field and a
 * JSON null.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "sim.h"

#define NUM_MAX 40  /* one formatted number */

/* ---- helpers ------------------------------------------------------------ */

/* The shortest text that reads back as v (gp__double_str); "" when v is
 * not finite. */
static const char *num(char buf[NUM_MAX], double v)
{
	if (!isfinite(v)) {
		buf[0] = '\0';
		return buf;
	}
	return gp__double_str(buf, v);
}

static bool finite_limit(double w)
{
	return isfinite(w) && w > 0;
}

/* Highest and mean rack draw / limit at sample i over racks with a finite
 * limit; false when there is none. */
static bool rack_fracs(const gp_sim_result_t *r, int32_t i, double *max, double *mean)
{
	double sum = 0, hi = -INFINITY;
	int32_t k, n = 0;

	if (!r->rack_w || !r->rack_limit_w)
		return false;
	for (k = 0; k < r->nracks; k++) {
		double lim = r->rack_limit_w[k], f;

		if (!finite_limit(lim))
			continue;
		f = r->rack_w[(size_t)i * (size_t)r->nracks + (size_t)k] / lim;
		sum += f;
		if (f > hi)
			hi = f;
		n++;
	}
	if (!n)
		return false;
	*max = hi;
	*mean = sum / n;
	return true;
}

static bool has_finite_limit(const gp_sim_result_t *r)
{
	int32_t k;

	if (!r->rack_w || !r->rack_limit_w || r->nsamples <= 0)
		return false;
	for (k = 0; k < r->nracks; k++)
		if (finite_limit(r->rack_limit_w[k]))
			return true;
	return false;
}

static int check_results(const gp_sim_result_t *const *res, int n, gp_error_t *err)
{
	int i;

	if (n < 0 || (n > 0 && !res))
		return gp__errorf(err, GP_EINVAL, "simulation output: no results");
	for (i = 0; i < n; i++) {
		const gp_sim_result_t *r = res[i];

		if (!r)
			return gp__errorf(err, GP_EINVAL, "simulation output: result %d is NULL", i);
		if ((r->njobs > 0 && !r->jobs) || r->njobs < 0 || r->nsamples < 0 ||
		    r->nracks < 0 ||
		    (r->nsamples > 0 && (!r->t || !r->util || !r->queued)))
			return gp__errorf(err, GP_EINVAL,
			                  "simulation output: result '%.*s' has missing arrays",
			                  (int)sizeof(r->policy), r->policy);
	}
	return GP_OK;
}

static int mkdir_error(const char *dir, const char *path, int e, gp_error_t *err)
{
	if (!strcmp(dir, path))
		return gp__errorf(err, GP_EIO, "cannot create directory %s: %s", dir, strerror(e));
	return gp__errorf(err, GP_EIO, "cannot create directory %s: %s: %s", dir, path,
	                  strerror(e));
}

/* mkdir -p; 0 or GP_EIO naming the directory and the component that failed. */
static int mkdir_p(const char *dir, gp_error_t *err)
{
	char path[GP_PATH_MAX];
	struct stat st;
	size_t len = strlen(dir), i;

	if (!len)
		return gp__errorf(err, GP_EINVAL, "simulation output: empty directory name");
	if (len >= sizeof(path))
		return gp__errorf(err, GP_EIO, "%s: path too long", dir);
	memcpy(path, dir, len + 1);
	for (i = 1; i <= len; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		if (path[i - 1] == '/')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0777)) {
			int e = errno;

			/* an existing directory is fine, whatever mkdir said */
			if (stat(path, &st))
				return mkdir_error(dir, path, e, err);
			if (!S_ISDIR(st.st_mode))
				return mkdir_error(dir, path, ENOTDIR, err);
		}
		path[i] = dir[i];
	}
	return GP_OK;
}

static int join(char *buf, size_t size, const char *dir, const char *name, gp_error_t *err)
{
	int k = snprintf(buf, size, "%s/%s", dir, name);

	if (k < 0 || (size_t)k >= size)
		return gp__errorf(err, GP_EIO, "%s/%s: path too long", dir, name);
	return GP_OK;
}

/* One output file written through a temporary name. */
struct out {
	FILE *f;
	int errnum;                 /* first write error, 0 = none */
	char path[GP_PATH_MAX];
	char tmp[GP_PATH_MAX + 32];
};

static int out_open(struct out *o, const char *dir, const char *name, gp_error_t *err)
{
	int fd, rc, tries;

	o->f = NULL;
	o->errnum = 0;
	o->tmp[0] = '\0';
	rc = join(o->path, sizeof(o->path), dir, name, err);
	if (rc)
		return rc;
	snprintf(o->tmp, sizeof(o->tmp), "%s.tmp.%ld", o->path, (long)getpid());
	/* O_EXCL: never write through a symlink left at the temporary name */
	for (tries = 0;; tries++) {
		fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST || tries)
			break;
		unlink(o->tmp);
	}
	if (fd < 0) {
		rc = gp__errorf(err, GP_EIO, "%s: %s", o->tmp, strerror(errno));
		o->tmp[0] = '\0';
		return rc;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		rc = gp__errorf(err, GP_EIO, "%s: %s", o->tmp, strerror(errno));
		close(fd);
		unlink(o->tmp);
		o->tmp[0] = '\0';
		return rc;
	}
	return GP_OK;
}

static void out_printf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void out_printf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (o->errnum)
		return;
	va_start(ap, fmt);
	k = vfprintf(o->f, fmt, ap);
	va_end(ap);
	if (k < 0)
		o->errnum = errno ? errno : EIO;
}

/* Flush, close and rename into place; 0 or GP_EIO naming the file. */
static int out_close(struct out *o, gp_error_t *err)
{
	int rc;

	if (!o->errnum && fflush(o->f))
		o->errnum = errno ? errno : EIO;
	if (!o->errnum && ferror(o->f))
		o->errnum = EIO;
	if (fclose(o->f) && !o->errnum)
		o->errnum = errno ? errno : EIO;
	o->f = NULL;
	if (!o->errnum && rename(o->tmp, o->path))
		o->errnum = errno;
	if (o->errnum) {
		rc = gp__errorf(err, GP_EIO, "%s: %s", o->path, strerror(o->errnum));
		unlink(o->tmp);
		o->tmp[0] = '\0';
		return rc;
	}
	o->tmp[0] = '\0';
	return GP_OK;
}

/* The policy name as a C string (the field need not be terminated). */
static void policy_name(char buf[40], const gp_sim_result_t *r)
{
	snprintf(buf, 40, "%.*s", (int)sizeof(r->policy), r->policy);
}

/* A CSV field: quoted (RFC 4180) when it holds a comma, quote or newline. */
static void out_csv_str(struct out *o, const char *s)
{
	const char *p;

	if (!strpbrk(s, ",\"\r\n")) {
		out_printf(o, "%s", s);
		return;
	}
	out_printf(o, "\"");
	for (p = s; *p; p++)
		out_printf(o, *p == '"' ? "\"\"" : "%c", *p);
	out_printf(o, "\"");
}

static void out_policy(struct out *o, const gp_sim_result_t *r)
{
	char pol[40];

	policy_name(pol, r);
	out_csv_str(o, pol);
}

static void out_num(struct out *o, double v)
{
	char b[NUM_MAX];

	out_printf(o, "%s", num(b, v));
}

/* ---- the metrics, field by field --------------------------------------- */

enum mtype { M_I32, M_I64, M_DBL };

static const struct mfield {
	const char *name;
	enum mtype type;
	size_t off;
} mfields[] = {
#define MF(f, t) { #f, t, offsetof(gp_sim_metrics_t, f) }
	MF(jobs, M_I32),
	MF(completed, M_I32),
	MF(rejected, M_I32),
	MF(backfilled, M_I32),
	MF(span_s, M_DBL),
	MF(jct_mean_s, M_DBL),
	MF(jct_p50_s, M_DBL),
	MF(jct_p95_s, M_DBL),
	MF(wait_mean_s, M_DBL),
	MF(wait_p50_s, M_DBL),
	MF(wait_p95_s, M_DBL),
	MF(slowdown_mean, M_DBL),
	MF(gpu_util, M_DBL),
	MF(overhead_gpuh, M_DBL),
	MF(multi_node, M_I32),
	MF(spread, M_I32),
	MF(violations, M_I32),
	MF(violation_gpuh, M_DBL),
	MF(frag_mean, M_DBL),
	MF(peak_rack_frac, M_DBL),
	MF(lost_place_gpuh, M_DBL),
	MF(lost_wait_gpuh, M_DBL),
	MF(wait_gpuh_mean_s, M_DBL),
#define MS(name, k) { name, M_DBL, offsetof(gp_sim_metrics_t, wait_size_mean_s) + \
	                            (k) * sizeof(double) }
	MS("wait_mean_s_1gpu", 0),
	MS("wait_mean_s_2_8gpu", 1),
	MS("wait_mean_s_9_32gpu", 2),
	MS("wait_mean_s_33_128gpu", 3),
	MS("wait_mean_s_gt128gpu", 4),
#undef MS
#define MJ(name, k) { name, M_I32, offsetof(gp_sim_metrics_t, size_jobs) + \
	                            (k) * sizeof(int32_t) }
	MJ("jobs_1gpu", 0),
	MJ("jobs_2_8gpu", 1),
	MJ("jobs_9_32gpu", 2),
	MJ("jobs_33_128gpu", 3),
	MJ("jobs_gt128gpu", 4),
#undef MJ
	MF(killed, M_I32),
	MF(limits_drawn, M_I32),
	MF(throughput, M_DBL),
	MF(decisions, M_I64),
	MF(events, M_I64),
	MF(passes, M_I64),
	MF(steered, M_I32),
	MF(steer_evals, M_I64),
#undef MF
};

#define NMFIELDS (sizeof(mfields) / sizeof(mfields[0]))

/* The last field listed ends the struct: a field added after it must be
 * added to mfields too. */
_Static_assert(offsetof(gp_sim_metrics_t, steer_evals) + sizeof(int64_t) == sizeof(gp_sim_metrics_t),
               "gp_sim_metrics_t grew: list the new field in mfields");
_Static_assert(GP_SIM_NSIZE == 5, "size classes changed: list them in mfields");

static void out_metric(struct out *o, const gp_sim_metrics_t *m, const struct mfield *f)
{
	const char *p = (const char *)m + f->off;
	int32_t i32;
	int64_t i64;
	double d;

	switch (f->type) {
	case M_I32:
		memcpy(&i32, p, sizeof(i32));
		out_printf(o, "%ld", (long)i32);
		break;
	case M_I64:
		memcpy(&i64, p, sizeof(i64));
		out_printf(o, "%lld", (long long)i64);
		break;
	case M_DBL:
		memcpy(&d, p, sizeof(d));
		out_num(o, d);
		break;
	}
}

static struct json_object *json_metric(const gp_sim_metrics_t *m, const struct mfield *f)
{
	const char *p = (const char *)m + f->off;
	char b[NUM_MAX];
	int32_t i32;
	int64_t i64;
	double d;

	switch (f->type) {
	case M_I32:
		memcpy(&i32, p, sizeof(i32));
		return json_object_new_int(i32);
	case M_I64:
		memcpy(&i64, p, sizeof(i64));
		return json_object_new_int64(i64);
	case M_DBL:
		memcpy(&d, p, sizeof(d));
		if (!isfinite(d))
			return NULL;    /* JSON null */
		/* the shortest exact text instead of json-c's %.17g, with a
		 * point or exponent so that it reads back as a double */
		num(b, d);
		if (!strpbrk(b, ".e")) {
			size_t l = strlen(b);

			snprintf(b + l, NUM_MAX - l, ".0");
		}
		return json_object_new_double_s(d, b);
	}
	return NULL;
}

/* ---- table -------------------------------------------------------------- */

/* v with prec decimals, "-" when not finite (e.g. no completed job). */
static const char *cell(char *buf, size_t size, int prec, double v)
{
	if (!isfinite(v))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.*f", prec, v);
	return buf;
}

#define H(s) ((s) / 3600.0)

int gp__sim_print_table(const gp_sim_result_t *const *res, int n, FILE *f)
{
	int i, w = 11;
	char a[12][32];

	if (!f || check_results(res, n, NULL))
		return GP_EINVAL;
	for (i = 0; i < n; i++) {
		int k = (int)strnlen(res[i]->policy, sizeof(res[i]->policy));

		if (k > w)
			w = k;
	}
	fprintf(f, "%-*s %6s %5s %8s %8s %8s %8s %5s %6s %8s %9s %13s %7s %9s %5s\n", w,
	        "policy", "done", "rej", "JCT-mean", "JCT-p95", "wait-avg", "wait-p95", "util",
	        "tput", "lost-plc", "lost-wait", "spread(%mult)", "capviol", "viol-GPUh", "peak");
	for (i = 0; i < n; i++) {
		const gp_sim_metrics_t *m = &res[i]->m;
		char spread[32];

		if (m->multi_node > 0)
			snprintf(spread, sizeof(spread), "%ld (%.0f%%)", (long)m->spread,
			         100.0 * m->spread / m->multi_node);
		else
			snprintf(spread, sizeof(spread), "%ld (-)", (long)m->spread);
		fprintf(f, "%-*.*s %6ld %5ld %8s %8s %8s %8s %5s %6s %8s %9s %13s %7ld %9s %5s\n",
		        w, (int)sizeof(res[i]->policy), res[i]->policy, (long)m->completed,
		        (long)m->rejected,
		        cell(a[0], sizeof(a[0]), 2, H(m->jct_mean_s)),
		        cell(a[1], sizeof(a[1]), 2, H(m->jct_p95_s)),
		        cell(a[2], sizeof(a[2]), 2, H(m->wait_mean_s)),
		        cell(a[3], sizeof(a[3]), 2, H(m->wait_p95_s)),
		        cell(a[4], sizeof(a[4]), 1, 100.0 * m->gpu_util),
		        cell(a[5], sizeof(a[5]), 1, m->throughput),
		        cell(a[10], sizeof(a[10]), 0, m->lost_place_gpuh),
		        cell(a[11], sizeof(a[11]), 0, m->lost_wait_gpuh),
		        spread, (long)m->violations,
		        cell(a[7], sizeof(a[7]), 1, m->violation_gpuh),
		        cell(a[9], sizeof(a[9]), 0, 100.0 * m->peak_rack_frac));
	}
	fprintf(f, "JCT/wait: hours from submit; util, peak: %%; tput: useful GPU-h per hour; "
	        "lost-plc: GPU-h lost to placement\n"
	        "(run time over trace duration, power caps included, a job killed at its limit: "
	        "its run); lost-wait: GPU-h waited;\n"
	        "spread: jobs over >1 leaf (%% of multi-node); capviol: starts taking a rack over "
	        "min(cap, cooling), viol-GPUh: GPU-h run over it;\n"
	        "peak: top rack/limit\n");
	/* the waits per job size, and weighted by GPU-hours: a mean over jobs
	 * hides the large jobs' waits */
	fprintf(f, "\n%-*s %8s %8s %8s %8s %8s %8s %8s %7s\n", w, "wait (h)", "mean",
	        "GPUh-wtd", gp__sim_size_class_name(0), gp__sim_size_class_name(1),
	        gp__sim_size_class_name(2), gp__sim_size_class_name(3),
	        gp__sim_size_class_name(4), "killed");
	for (i = 0; i < n; i++) {
		const gp_sim_metrics_t *m = &res[i]->m;

		fprintf(f, "%-*.*s %8s %8s %8s %8s %8s %8s %8s %7ld\n", w,
		        (int)sizeof(res[i]->policy), res[i]->policy,
		        cell(a[0], sizeof(a[0]), 2, H(m->wait_mean_s)),
		        cell(a[1], sizeof(a[1]), 2, H(m->wait_gpuh_mean_s)),
		        cell(a[2], sizeof(a[2]), 2, H(m->wait_size_mean_s[0])),
		        cell(a[3], sizeof(a[3]), 2, H(m->wait_size_mean_s[1])),
		        cell(a[4], sizeof(a[4]), 2, H(m->wait_size_mean_s[2])),
		        cell(a[5], sizeof(a[5]), 2, H(m->wait_size_mean_s[3])),
		        cell(a[6], sizeof(a[6]), 2, H(m->wait_size_mean_s[4])), (long)m->killed);
	}
	fprintf(f, "wait: mean over started jobs, GPU-hour-weighted (GPUs x trace duration), "
	        "and per job size in GPUs;\n"
	        "killed: jobs Slurm ended at their time limit\n");
	if (fflush(f) || ferror(f))
		return GP_EIO;
	return GP_OK;
}

/* ---- files -------------------------------------------------------------- */

/* One policy's rows of a CSV file; c may be NULL (names then stand in). */
typedef void (*csv_rows_fn)(struct out *o, const gp_cluster_t *c, const gp_sim_result_t *r);

/* dir/name: the header line, then every policy's rows, written to a
 * temporary file and renamed (out_open/out_close); GP_OK or the error. */
static int write_csv(const gp_cluster_t *c, const gp_sim_result_t *const *res, int n,
                     const char *dir, const char *name, const char *header, csv_rows_fn rows,
                     gp_error_t *err)
{
	struct out o;
	int i, rc;

	rc = out_open(&o, dir, name, err);
	if (rc)
		return rc;
	out_printf(&o, "%s\n", header);
	for (i = 0; i < n && !o.errnum; i++)
		rows(&o, c, res[i]);
	return out_close(&o, err);
}

/* summary.csv's header: "policy" and every metric's name. */
static const char *summary_header(char *buf, size_t size)
{
	size_t used = (size_t)snprintf(buf, size, "policy"), k;

	for (k = 0; k < NMFIELDS && used < size; k++)
		used += (size_t)snprintf(buf + used, size - used, ",%s", mfields[k].name);
	return buf;
}

/* summary.csv: one row a policy, every metric. */
static void summary_rows(struct out *o, const gp_cluster_t *c, const gp_sim_result_t *r)
{
	size_t k;

	(void)c;
	out_policy(o, r);
	for (k = 0; k < NMFIELDS; k++) {
		out_printf(o, ",");
		out_metric(o, &r->m, &mfields[k]);
	}
	out_printf(o, "\n");
}

/* gp_sim_decision_t as the plugin logs it; '-' for a Slurm baseline. */
static const char *const decision_names[] = { "-", "PIN", "CONSTRAIN", "REJECT" };

/* jobs.csv: one row a job. */
static void jobs_rows(struct out *o, const gp_cluster_t *c, const gp_sim_result_t *r)
{
	int32_t j;

	for (j = 0; j < r->njobs && !o->errnum; j++) {
		const gp_sim_job_t *b = &r->jobs[j];

		out_policy(o, r);
		out_printf(o, ",%lu,%ld,%ld,%ld,%ld,", (unsigned long)b->id, (long)b->gpus,
		           (long)b->nnodes, (long)b->nleaves, (long)b->nracks);
		out_num(o, b->submit_s);
		out_printf(o, ",");
		out_num(o, b->start_s);
		out_printf(o, ",");
		out_num(o, b->end_s);
		out_printf(o, ",");
		out_num(o, b->duration_s);
		out_printf(o, ",");
		out_num(o, b->slowdown);
		out_printf(o, ",");
		out_num(o, b->overhead);
		/* the job's first node (node names hold no comma) */
		out_printf(o, ",%d,%d,%d,%s,%s,", b->rejected, b->backfilled, b->violation,
		           c && b->node0 >= 0 && b->node0 < c->nnodes ? c->nodes[b->node0].name : "",
		           decision_names[b->decision <= GP_SIM_DEC_REJECT ? b->decision : 0]);
		if (b->nodes) {
			int32_t k;

			/* spread class, then every node with its GPUs in rank
			 * order, ';'-separated so the CSV needs no quoting:
			 * enough to re-score any placement */
			if (b->spread == GP_SIM_SPREAD_LEAVES || b->spread == GP_SIM_SPREAD_SPINES)
				out_printf(o, "%s:%ld,", gp__sim_spread_name(b->spread),
				           (long)b->spread_count);
			else
				out_printf(o, "%s,", gp__sim_spread_name(b->spread));
			for (k = 0; k < b->nnodes && c; k++)
				out_printf(o, "%s%s:%u", k ? ";" : "",
				           b->nodes[k] >= 0 && b->nodes[k] < c->nnodes ?
				           c->nodes[b->nodes[k]].name : "?", (unsigned)b->node_gpus[k]);
		} else {
			out_printf(o, ",");
		}
		out_printf(o, ",");
		out_num(o, b->limit_s);
		out_printf(o, ",%d\n", b->killed);
	}
}

/* timeseries.csv: one row a sample. */
static void timeseries_rows(struct out *o, const gp_cluster_t *c, const gp_sim_result_t *r)
{
	int32_t s;

	(void)c;
	for (s = 0; s < r->nsamples && !o->errnum; s++) {
		double mx, mean;

		out_policy(o, r);
		out_printf(o, ",");
		out_num(o, r->t[s]);
		out_printf(o, ",");
		out_num(o, r->util[s]);
		out_printf(o, ",%ld,", (long)r->queued[s]);
		if (rack_fracs(r, s, &mx, &mean)) {
			out_num(o, mx);
			out_printf(o, ",");
			out_num(o, mean);
		} else {
			out_printf(o, ",");
		}
		out_printf(o, "\n");
	}
}

/* racks.csv: one row a sample and rack (none for a run without racks). */
static void racks_rows(struct out *o, const gp_cluster_t *c, const gp_sim_result_t *r)
{
	int32_t s, k;

	if (!r->rack_w)
		return;
	for (s = 0; s < r->nsamples && !o->errnum; s++) {
		for (k = 0; k < r->nracks; k++) {
			out_policy(o, r);
			out_printf(o, ",");
			out_num(o, r->t[s]);
			out_printf(o, ",");
			if (c && k < c->nracks)
				out_csv_str(o, c->racks[k].name);
			else
				out_printf(o, "rack%ld", (long)k);
			out_printf(o, ",");
			out_num(o, r->rack_w[(size_t)s * (size_t)r->nracks + (size_t)k]);
			out_printf(o, ",");
			if (r->rack_limit_w)
				out_num(o, r->rack_limit_w[k]);
			out_printf(o, "\n");
		}
	}
}

/* json_object_object_add taking ownership of v (NULL = JSON null), also
 * when adding fails. */
static int jadd(struct json_object *o, const char *key, struct json_object *v)
{
	if (json_object_object_add(o, key, v)) {
		json_object_put(v);
		return GP_ENOMEM;
	}
	return GP_OK;
}

/* A JSON string of a fixed-size name field (need not be terminated). */
static struct json_object *jname(const char *s, size_t size)
{
	return json_object_new_string_len(s, (int)strnlen(s, size));
}

static int write_summary_json(const gp_cluster_t *c, const gp_trace_t *t,
                              const gp_sim_result_t *const *res, int n, const char *dir,
                              gp_error_t *err)
{
	struct json_object *root = NULL, *arr = NULL, *p = NULL, *v;
	const char *text;
	struct out o;
	size_t k;
	int i, rc = GP_ENOMEM;

	root = json_object_new_object();
	if (!root)
		goto error;
	v = c ? jname(c->name, sizeof(c->name)) : NULL;
	if ((c && !v) || jadd(root, "cluster", v))
		goto error;
	v = t ? jname(t->name, sizeof(t->name)) : NULL;
	if ((t && !v) || jadd(root, "trace", v))
		goto error;
	v = t ? json_object_new_int(t->njobs) : NULL;
	if ((t && !v) || jadd(root, "njobs", v))
		goto error;
	arr = json_object_new_array();
	if (!arr)
		goto error;
	if (jadd(root, "policies", arr))
		goto error;
	for (i = 0; i < n; i++) {
		p = json_object_new_object();
		if (!p)
			goto error;
		if (json_object_array_add(arr, p)) {
			json_object_put(p);
			goto error;
		}
		v = jname(res[i]->policy, sizeof(res[i]->policy));
		if (!v || jadd(p, "policy", v))
			goto error;
		for (k = 0; k < NMFIELDS; k++) {
			const char *f = (const char *)&res[i]->m + mfields[k].off;
			double d;

			v = json_metric(&res[i]->m, &mfields[k]);
			if (!v && mfields[k].type == M_DBL) {
				memcpy(&d, f, sizeof(d));
				if (isfinite(d))
					goto error;     /* allocation failed */
			} else if (!v) {
				goto error;
			}
			if (jadd(p, mfields[k].name, v))
				goto error;
		}
	}
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
	                                      JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text)
		goto error;
	rc = out_open(&o, dir, "summary.json", err);
	if (rc)
		goto out;
	out_printf(&o, "%s\n", text);
	rc = out_close(&o, err);
	goto out;
error:
	rc = gp__errorf(err, GP_ENOMEM, "summary.json: out of memory");
out:
	json_object_put(root);
	return rc;
}

int gp__sim_write_files(const gp_cluster_t *c, const gp_trace_t *t,
                        const gp_sim_result_t *const *res, int n, const char *dir,
                        gp_error_t *err)
{
	char head[1024]; /* summary.csv's header */
	int rc;

	if (!dir)
		return gp__errorf(err, GP_EINVAL, "simulation output: no directory");
	rc = check_results(res, n, err);
	if (!rc)
		rc = mkdir_p(dir, err);
	if (!rc)
		rc = write_csv(c, res, n, dir, "summary.csv", summary_header(head, sizeof(head)),
		               summary_rows, err);
	if (!rc)
		rc = write_csv(c, res, n, dir, "jobs.csv",
		               "policy,id,gpus,nnodes,nleaves,nracks,submit_s,start_s,end_s,"
		               "duration_s,slowdown,overhead,rejected,backfilled,violation,node,"
		               "decision,spread,nodes,limit_s,killed", jobs_rows, err);
	if (!rc)
		rc = write_csv(c, res, n, dir, "timeseries.csv",
		               "policy,t_s,util,queued,max_rack_frac,mean_rack_frac", timeseries_rows,
		               err);
	if (!rc)
		rc = write_csv(c, res, n, dir, "racks.csv", "policy,t_s,rack,watts,limit_w",
		               racks_rows, err);
	if (!rc)
		rc = write_summary_json(c, t, res, n, dir, err);
	return rc;
}

/* ---- plots -------------------------------------------------------------- */

/* A gnuplot single-quoted string: only ' needs escaping, as ''. */
static void out_gp_str(struct out *o, const char *s)
{
	out_printf(o, "'");
	for (; *s; s++)
		out_printf(o, *s == '\'' ? "''" : "%c", *s);
	out_printf(o, "'");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* NAME.N.dat for policy i: "# policy NAME" then the columns. */
static int dat_open(struct out *o, const char *dir, const char *plot, int i,
                    const gp_sim_result_t *r, const char *columns, gp_error_t *err)
{
	char name[96], pol[40];
	int rc;

	snprintf(name, sizeof(name), "%s.%d.dat", plot, i + 1);
	rc = out_open(o, dir, name, err);
	if (rc)
		return rc;
	policy_name(pol, r);
	out_printf(o, "# policy %s\n# %s\n", pol, columns);
	return GP_OK;
}

/* Data of jct_cdf: completion time (h) and the fraction of completed jobs
 * done by then; *has = it holds a point. */
static int dat_jct(const char *dir, int i, const gp_sim_result_t *r, void *arg, int32_t *count,
                   gp_error_t *err)
{
	(void)arg;
	double *v = NULL;
	int32_t j, m = 0;
	struct out o;
	int rc;

	*count = 0;
	if (r->njobs > 0) {
		v = malloc((size_t)r->njobs * sizeof(*v));
		if (!v)
			return gp__errorf(err, GP_ENOMEM, "jct_cdf: out of memory");
	}
	for (j = 0; j < r->njobs; j++) {
		const gp_sim_job_t *b = &r->jobs[j];
		double jct = b->end_s - b->submit_s;

		/* completed jobs only; the log axis cannot show 0 */
		if (b->rejected || b->start_s < 0 || !isfinite(jct) || jct <= 0)
			continue;
		v[m++] = jct / 3600.0;
	}
	if (m)
		qsort(v, (size_t)m, sizeof(*v), cmp_double);
	rc = dat_open(&o, dir, "jct_cdf", i, r, "jct_h cumulative_fraction", err);
	if (rc) {
		free(v);
		return rc;
	}
	/* the curve rises from 0 at the shortest completion time */
	if (m) {
		out_num(&o, v[0]);
		out_printf(&o, " 0\n");
	}
	for (j = 0; j < m; j++) {
		out_num(&o, v[j]);
		out_printf(&o, " ");
		out_num(&o, (double)(j + 1) / m);
		out_printf(&o, "\n");
	}
	free(v);
	*count = m;
	return out_close(&o, err);
}

static int dat_util(const char *dir, int i, const gp_sim_result_t *r, void *arg, int32_t *has,
                    gp_error_t *err)
{
	struct out o;
	int32_t s;
	int rc;

	(void)arg;
	rc = dat_open(&o, dir, "utilization", i, r, "t_days util_percent queued", err);
	if (rc)
		return rc;
	for (s = 0; s < r->nsamples; s++) {
		out_num(&o, r->t[s] / 86400.0);
		out_printf(&o, " ");
		out_num(&o, 100.0 * r->util[s]);
		out_printf(&o, " %ld\n", (long)r->queued[s]);
	}
	*has = r->nsamples > 0;
	return out_close(&o, err);
}

/* What the rack power data writer needs: limits or kW, and the top value. */
struct rack_arg {
	bool pct;
	double top;
};

/* Rack power: with limits (pct), highest and mean draw / limit in %; else
 * the highest and mean absolute draw in kW. */
static int dat_rack(const char *dir, int i, const gp_sim_result_t *r, void *arg, int32_t *has,
                    gp_error_t *err)
{
	struct rack_arg *ra = arg;
	bool pct = ra->pct;
	double *top = &ra->top;
	struct out o;
	int32_t s, k;
	int rc;

	*has = false;
	rc = dat_open(&o, dir, "rack_power", i, r,
	              pct ? "t_days max_rack_percent_of_limit mean_rack_percent_of_limit"
	                  : "t_days max_rack_kw mean_rack_kw", err);
	if (rc)
		return rc;
	for (s = 0; s < r->nsamples && r->rack_w && r->nracks > 0; s++) {
		double mx = -INFINITY, mean = 0;

		if (pct) {
			if (!rack_fracs(r, s, &mx, &mean))
				continue;
			mx *= 100.0;
			mean *= 100.0;
		} else {
			for (k = 0; k < r->nracks; k++) {
				double w = r->rack_w[(size_t)s * (size_t)r->nracks + (size_t)k];

				mean += w;
				if (w > mx)
					mx = w;
			}
			mx /= 1000.0;
			mean /= 1000.0 * r->nracks;
		}
		if (mx > *top)
			*top = mx;
		out_num(&o, r->t[s] / 86400.0);
		out_printf(&o, " ");
		out_num(&o, mx);
		out_printf(&o, " ");
		out_num(&o, mean);
		out_printf(&o, "\n");
		*has = true;
	}
	return out_close(&o, err);
}

/* The script preamble: PNG (pngcairo when this gnuplot has it) first. */
static void gp_head(struct out *o, const char *plot, const char *title, const char *xlabel,
                    const char *ylabel)
{
	out_printf(o, "# %s.gp: run as `gnuplot %s.gp` in this directory\n", plot, plot);
	out_printf(o, "if (strstrt(GPVAL_TERMINALS, ' pngcairo ') > 0) {\n"
	           "\tset terminal pngcairo size 1200,700 noenhanced font ',11'\n"
	           "} else {\n"
	           "\tset terminal png size 1200,700 noenhanced\n"
	           "}\n");
	out_printf(o, "set output '%s.png'\n", plot);
	out_printf(o, "set title ");
	out_gp_str(o, title);
	out_printf(o, "\nset xlabel ");
	out_gp_str(o, xlabel);
	out_printf(o, "\nset ylabel ");
	out_gp_str(o, ylabel);
	out_printf(o, "\nset grid\nset key outside right top\n");
}

static void gp_tail(struct out *o, const char *plot)
{
	out_printf(o, "set terminal svg size 1200,700 noenhanced dynamic\n"
	           "set output '%s.svg'\nreplot\nunset output\n", plot);
}

/* One plot entry per policy: its data file when it has data, else a key
 * entry saying it has none. */
static void gp_series(struct out *o, const char *plot, int i, const gp_sim_result_t *r,
                      bool has, const char *using, const char *with, const char *suffix,
                      const char *style, const char *none)
{
	char pol[40], title[96];

	policy_name(pol, r);
	if (has) {
		out_printf(o, "'%s.%d.dat' using %s with %s lw 2 lc %d %s title ", plot, i + 1, using,
		           with, i + 1, style);
		snprintf(title, sizeof(title), "%s%s", pol, suffix);
	} else {
		out_printf(o, "NaN lc %d title ", i + 1);
		snprintf(title, sizeof(title), "%s (%s)", pol, none);
	}
	out_gp_str(o, title);
}

/* Run gnuplot on dir/NAME.gp in dir, its stderr into dir/NAME.log. */
static int run_gnuplot(const char *dir, const char *plot, gp_error_t *err)
{
	char script[GP_PATH_MAX], log[GP_PATH_MAX], gpname[96], msg[640];
	int pfd[2] = { -1, -1 }, logfd = -1, nullfd = -1, status, rc, child_errno = 0;
	pid_t pid;
	ssize_t k;

	snprintf(gpname, sizeof(gpname), "%s.gp", plot);
	rc = join(script, sizeof(script), dir, gpname, err);
	if (!rc) {
		snprintf(gpname, sizeof(gpname), "%s.log", plot);
		rc = join(log, sizeof(log), dir, gpname, err);
	}
	if (rc)
		return rc;
	snprintf(gpname, sizeof(gpname), "%s.gp", plot);
	logfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (logfd < 0)
		return gp__errorf(err, GP_EIO, "%s: %s", log, strerror(errno));
	nullfd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (nullfd < 0 || pipe2(pfd, O_CLOEXEC)) {
		rc = gp__errorf(err, GP_EIO, "gnuplot: %s", strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		rc = gp__errorf(err, GP_EIO, "gnuplot: fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		/* child: only async-signal-safe calls until exec */
		char *argv[] = { (char *)"gnuplot", gpname, NULL };
		int e;

		if (chdir(dir) || dup2(nullfd, 0) < 0 || dup2(nullfd, 1) < 0 || dup2(logfd, 2) < 0) {
			e = errno;
		} else {
			execvp("gnuplot", argv);
			e = errno;
		}
		if (write(pfd[1], &e, sizeof(e)) < 0)
			_exit(126);
		_exit(127);
	}
	close(pfd[1]);
	pfd[1] = -1;
	/* the pipe closes on exec (nothing read) or carries the exec errno */
	do
		k = read(pfd[0], &child_errno, sizeof(child_errno));
	while (k < 0 && errno == EINTR);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			rc = gp__errorf(err, GP_EIO, "gnuplot %s: waitpid: %s", script,
			                strerror(errno));
			goto out;
		}
	}
	if (k == (ssize_t)sizeof(child_errno)) {
		if (child_errno == ENOENT)
			rc = gp__errorf(err, GP_EIO, "gnuplot not found in PATH; install gnuplot-nox "
			                "(needed for %s)", script);
		else
			rc = gp__errorf(err, GP_EIO, "cannot run gnuplot on %s: %s", script,
			                strerror(child_errno));
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		FILE *lf = fopen(log, "r");
		size_t got = 0;
		long size;

		msg[0] = '\0';
		if (lf) {
			/* the end of the log holds the error */
			if (!fseek(lf, 0, SEEK_END) && (size = ftell(lf)) > 0)
				fseek(lf, size > (long)sizeof(msg) - 1 ? size - (long)sizeof(msg) + 1 : 0,
				      SEEK_SET);
			else
				rewind(lf);
			got = fread(msg, 1, sizeof(msg) - 1, lf);
			msg[got] = '\0';
			fclose(lf);
		}
		while (got && (msg[got - 1] == '\n' || msg[got - 1] == ' '))
			msg[--got] = '\0';
		if (WIFEXITED(status))
			rc = gp__errorf(err, GP_EIO, "gnuplot failed on %s (exit %d; %s): %s", script,
			                WEXITSTATUS(status), log, msg);
		else
			rc = gp__errorf(err, GP_EIO, "gnuplot killed by signal %d on %s (%s): %s",
			                WIFSIGNALED(status) ? WTERMSIG(status) : 0, script, log, msg);
		goto out;
	}
	rc = GP_OK;
out:
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	if (nullfd >= 0)
		close(nullfd);
	close(logfd);
	return rc;
}

/* The start every plot shares: one data file per policy written by dat
 * (points[i] > 0 when policy i has any; *any when one has), then NAME.gp
 * opened with its head.  points is the caller's to free, also on error. */
static int plot_begin(const gp_sim_result_t *const *res, int n, const char *dir, const char *name,
                      int (*dat)(const char *, int, const gp_sim_result_t *, void *, int32_t *,
                                 gp_error_t *),
                      void *arg, int32_t **points, bool *any, struct out *o, gp_error_t *err)
{
	char file[64];
	int i, rc;

	*any = false;
	if (!(*points = calloc((size_t)n + 1, sizeof(**points))))
		return gp__errorf(err, GP_ENOMEM, "%s: out of memory", name);
	for (i = 0; i < n; i++) {
		if ((rc = dat(dir, i, res[i], arg, &(*points)[i], err)))
			return rc;
		*any |= (*points)[i] > 0;
	}
	snprintf(file, sizeof(file), "%s.gp", name);
	return out_open(o, dir, file, err);
}

/* The end every plot shares: an empty plot when there was no series, the
 * script's tail, the file closed and gnuplot run on it. */
static int plot_end(struct out *o, int nseries, const char *dir, const char *name,
                    gp_error_t *err)
{
	int rc;

	if (!nseries)
		out_printf(o, "NaN notitle");
	out_printf(o, "\n");
	gp_tail(o, name);
	rc = out_close(o, err);
	if (!rc)
		rc = run_gnuplot(dir, name, err);
	return rc;
}

/* A plot of one series per policy. */
struct plot_spec {
	const char *name, *title, *xlabel, *ylabel;
	const char *settings;     /* gnuplot lines after the head */
	const char *empty;        /* lines when no policy has a point */
	const char *style;        /* "steps", "lines" */
	const char *no_data;      /* a policy's title when it has no point */
	bool count_in_title;      /* "(N jobs)" after each policy's name */
	int (*dat)(const char *, int, const gp_sim_result_t *, void *, int32_t *, gp_error_t *);
};

static int plot_simple(const gp_sim_result_t *const *res, int n, const char *dir,
                       const struct plot_spec *ps, gp_error_t *err)
{
	int32_t *points = NULL;
	bool any = false;
	char suffix[48] = "";
	struct out o;
	int i, rc;

	rc = plot_begin(res, n, dir, ps->name, ps->dat, NULL, &points, &any, &o, err);
	if (rc)
		goto out;
	gp_head(&o, ps->name, ps->title, ps->xlabel, ps->ylabel);
	out_printf(&o, "%s", ps->settings);
	if (!any)
		out_printf(&o, "%s", ps->empty);
	out_printf(&o, "plot ");
	for (i = 0; i < n; i++) {
		out_printf(&o, i ? ", \\\n     " : "");
		if (ps->count_in_title)
			snprintf(suffix, sizeof(suffix), " (%ld jobs)", (long)points[i]);
		gp_series(&o, ps->name, i, res[i], points[i] > 0, "1:2", ps->style, suffix, "",
		          ps->no_data);
	}
	rc = plot_end(&o, n, dir, ps->name, err);
out:
	free(points);
	return rc;
}

static const struct plot_spec plot_jct_spec = {
	"jct_cdf", "Job completion time (submit to end) of completed jobs",
	"completion time (hours, log scale)", "fraction of completed jobs",
	"set logscale x\nset yrange [0:1]\nset key bottom right inside\n",
	"set xrange [0.1:100]\nset label 'no completed jobs' at graph 0.5, graph 0.5 center\n",
	"steps", "no completed jobs", true, dat_jct,
};

static const struct plot_spec plot_util_spec = {
	"utilization", "GPU utilization: busy GPUs / all GPUs of the cluster",
	"time since the trace's start (days)", "GPUs busy (%)",
	"set yrange [0:105]\n",
	"set xrange [0:1]\nset label 'no samples' at graph 0.5, graph 0.5 center\n",
	"lines", "no samples", false, dat_util,
};

static int plot_rack(const gp_sim_result_t *const *res, int n, const char *dir, gp_error_t *err)
{
	struct rack_arg ra = { false, 0 };
	int32_t *has = NULL;
	bool any = false, pct = false;
	double top = 0;
	struct out o;
	int i, rc;

	for (i = 0; i < n; i++)
		ra.pct |= has_finite_limit(res[i]);
	pct = ra.pct;
	rc = plot_begin(res, n, dir, "rack_power", dat_rack, &ra, &has, &any, &o, err);
	top = ra.top;
	if (rc)
		goto out;
	if (pct) {
		gp_head(&o, "rack_power",
		        "Rack power (estimated): highest rack and mean over racks, % of the rack's "
		        "limit min(PowerCapKW, CoolingKW)",
		        "time since the trace's start (days)", "rack draw (% of limit)");
		/* room above the limit line, so it never hides on the border */
		out_printf(&o, "set yrange [0:%.0f]\n", top > 100 ? 10 * ceil(top * 1.1 / 10) : 120);
		out_printf(&o, "set label 'cap/cooling limit' at graph 0.01, first 100 offset 0,0.7 "
		           "textcolor rgb 'red'\n");
	} else {
		gp_head(&o, "rack_power",
		        "Rack power (estimated), absolute draw in kW: no rack has a power cap or "
		        "cooling limit",
		        "time since the trace's start (days)", "rack draw (kW)");
		out_printf(&o, "set yrange [0:*]\n");
	}
	if (!any)
		out_printf(&o, "set xrange [0:1]\nset yrange [0:%d]\nset label 'no rack power "
		           "samples' at graph 0.5, graph 0.5 center\n", pct ? 120 : 1);
	out_printf(&o, "plot ");
	for (i = 0; i < n; i++) {
		out_printf(&o, i ? ", \\\n     " : "");
		gp_series(&o, "rack_power", i, res[i], has[i], "1:2", "lines", " highest rack", "",
		          pct ? "no rack limits" : "no racks");
		if (has[i]) {
			out_printf(&o, ", \\\n     ");
			gp_series(&o, "rack_power", i, res[i], true, "1:3", "lines", " mean of racks",
			          "dt 2", "");
		}
	}
	if (pct)
		out_printf(&o, "%s100 with lines lw 2 lc rgb 'red' dt 4 title 'cap/cooling limit "
		           "(100 %%)'", n ? ", \\\n     " : "");
	rc = plot_end(&o, n || pct, dir, "rack_power", err);
out:
	free(has);
	return rc;
}

int gp__sim_plot(const gp_sim_result_t *const *res, int n, const char *dir, gp_error_t *err)
{
	int rc;

	if (!dir)
		return gp__errorf(err, GP_EINVAL, "simulation plots: no directory");
	rc = check_results(res, n, err);
	if (!rc)
		rc = mkdir_p(dir, err);
	if (!rc)
		rc = plot_simple(res, n, dir, &plot_jct_spec, err);
	if (!rc)
		rc = plot_simple(res, n, dir, &plot_util_spec, err);
	if (!rc)
		rc = plot_rack(res, n, dir, err);
	return rc;
}

/* ---- placements against the nodes Slurm gave ---------------------------- */

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/* Distinct leaves (what = 0) or racks (1) of nodes[0..n) (sorted scratch
 * in tmp). */
static int32_t span(const gp_cluster_t *c, const int32_t *nodes, int32_t n, int what,
                    int32_t *tmp)
{
	int32_t k = 0, d = 0;

	for (int32_t i = 0; i < n; i++) {
		int32_t v = what ? c->nodes[nodes[i]].rack : c->nodes[nodes[i]].leaf;

		if (v >= 0)
			tmp[k++] = v;
	}
	qsort(tmp, (size_t)k, sizeof(*tmp), cmp_i32);
	for (int32_t i = 0; i < k; i++)
		d += !i || tmp[i] != tmp[i - 1];
	return d;
}

int gp__sim_vs_slurm(const gp_cluster_t *c, const gp_trace_t *t, const gp_sim_result_t *r,
                     gp_sim_vs_slurm_t *out, gp_error_t *err)
{
	int32_t *tmp = NULL, *pol = NULL;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!c || !t || !r || r->njobs != t->njobs)
		return gp__errorf(err, GP_EINVAL, "the result is not a replay of this trace");
	if (!(tmp = malloc(((size_t)c->nnodes + 1) * sizeof(*tmp))) ||
	    !(pol = malloc(((size_t)c->nnodes + 1) * sizeof(*pol)))) {
		rc = gp__errorf(err, GP_ENOMEM, "out of memory comparing with Slurm's nodes");
		goto done;
	}
	for (int32_t i = 0; i < t->njobs; i++) {
		const gp_trace_job_t *tj = &t->jobs[i];
		const gp_sim_job_t *J = &r->jobs[i];
		int32_t *sl = NULL, ns = 0, common = 0;
		gp_error_t e = { "" };

		if (!tj->nodelist)
			continue;
		out->with_list++;
		if (J->id != tj->id) {
			rc = gp__errorf(err, GP_EINVAL, "job %u of the result is not job %u of the trace",
			                (unsigned)J->id, (unsigned)tj->id);
			goto done;
		}
		if (gp__hostlist_nodes(c, "nodelist", tj->nodelist, c->nnodes, &sl, &ns, &e) || !ns) {
			free(sl);
			out->unknown++;
			continue;
		}
		if (J->start_s < 0 || J->nnodes <= 0 || !J->nodes) {
			free(sl);
			continue;
		}
		out->compared++;
		memcpy(pol, J->nodes, (size_t)J->nnodes * sizeof(*pol));
		qsort(pol, (size_t)J->nnodes, sizeof(*pol), cmp_i32);
		qsort(sl, (size_t)ns, sizeof(*sl), cmp_i32);
		for (int32_t a = 0, b = 0; a < J->nnodes && b < ns;) {
			if (pol[a] == sl[b]) {
				common++;
				a++;
				b++;
			} else if (pol[a] < sl[b]) {
				a++;
			} else {
				b++;
			}
		}
		out->same += common == J->nnodes && common == ns;
		out->shared += (double)common / J->nnodes;
		{
			int32_t lp = span(c, pol, J->nnodes, 0, tmp), ls = span(c, sl, ns, 0, tmp);

			out->leaves_policy += lp;
			out->leaves_slurm += ls;
			out->spread_policy += lp > 1;
			out->spread_slurm += ls > 1;
		}
		out->racks_policy += span(c, pol, J->nnodes, 1, tmp);
		out->racks_slurm += span(c, sl, ns, 1, tmp);
		free(sl);
	}
	if (out->compared) {
		out->shared /= out->compared;
		out->leaves_policy /= out->compared;
		out->leaves_slurm /= out->compared;
		out->racks_policy /= out->compared;
		out->racks_slurm /= out->compared;
	}
done:
	free(tmp);
	free(pol);
	return rc;
}

int gp__sim_print_vs_slurm(const gp_cluster_t *c, const gp_trace_t *t,
                           const gp_sim_result_t *const *res, int n, FILE *f, gp_error_t *err)
{
	gp_sim_vs_slurm_t v;
	int32_t with = 0;
	int rc, w = 11;

	for (int32_t i = 0; i < t->njobs; i++)
		with += t->jobs[i].nodelist != NULL;
	if (!with)
		return 0;
	for (int i = 0; i < n; i++)
		if ((int)strlen(res[i]->policy) > w)
			w = (int)strlen(res[i]->policy);
	for (int i = 0; i < n; i++) {
		if ((rc = gp__sim_vs_slurm(c, t, res[i], &v, err)))
			return rc;
		if (!i) {
			fprintf(f, "\nAgainst the nodes Slurm gave (the trace's nodelist): %d jobs with a "
			        "node list, %d naming nodes this cluster does not have\n",
			        (int)v.with_list, (int)v.unknown);
			fprintf(f, "%-*s %8s %9s %8s %8s %8s %8s %8s %10s %8s\n", w, "policy",
			        "compared", "same set", "shared", "leaves", "(Slurm)", "racks", "(Slurm)",
			        "multi-leaf", "(Slurm)");
		}
		fprintf(f, "%-*s %8d %8.1f%% %7.1f%% %8.2f %8.2f %8.2f %8.2f %10d %8d\n", w,
		        res[i]->policy, (int)v.compared,
		        v.compared ? 100.0 * v.same / v.compared : 0.0, 100.0 * v.shared,
		        v.leaves_policy, v.leaves_slurm, v.racks_policy, v.racks_slurm,
		        (int)v.spread_policy, (int)v.spread_slurm);
	}
	if (ferror(f))
		return gp__errorf(err, GP_EIO, "cannot write the comparison with Slurm's nodes");
	return 0;
}
