/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace.c - job traces for the simulator: the CSV reader and writer, the
 * summary, and the seeded synthetic generator (interface in trace.h).
 *
 * The reader reads the whole file into one buffer and parses it in place:
 * one allocation for the text, one for the job array (sized by counting
 * the lines first), none per row, so a 100k-row trace loads in a few
 * milliseconds.  Fields are NUL-terminated where they lie and handed to
 * gp__parse_double / gp__parse_long, the project's one strict number parser.
 */
#include "config.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace.h"

/* Largest GPU count of one job the reader and the generator accept. */
#define TRACE_MAX_GPUS 1048576

/* The columns the reader knows; every other column is ignored. */
enum { COL_SUBMIT, COL_DURATION, COL_GPUS, COL_NODES, COL_TP, COL_PP, COL_PARAMS, COL_COMM,
       COL_LIMIT, COL_NODELIST, NCOLS };
static const char *const col_names[NCOLS] = {
	"submit_time_s", "duration_s", "gpus", "nodes", "tp", "pp", "params", "comm_fraction",
	"time_limit_s", "nodelist",
};
/* Largest params hint: 1e15 parameters, far above any model trained. */
#define TRACE_MAX_PARAMS 1e15

struct field {
	char *s;
	size_t len;
};

/* A bounded, printable copy of s[0..len) for messages: bytes outside
 * printable ASCII become '?', long values end in "...". */
static const char *shown(char *dst, size_t n, const char *s, size_t len)
{
	size_t i, max = n - 4;

	for (i = 0; i < len && i < max; i++)
		dst[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	if (i < len) {
		memcpy(dst + i, "...", 3);
		i += 3;
	}
	dst[i] = '\0';
	return dst;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

static void trim(struct field *f)
{
	while (f->len && is_space(f->s[0])) {
		f->s++;
		f->len--;
	}
	while (f->len && is_space(f->s[f->len - 1]))
		f->len--;
}

static bool is_blank(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!is_space(s[i]))
			return false;
	return true;
}

/* "FILE:LINE: column 'NAME' value 'VALUE': what" */
static int bad_value(gp_error_t *err, const char *name, long line, int col, const struct field *f,
                     const char *what)
{
	char v[64];

	return gp__errorf(err, GP_EINVAL, "%s:%ld: column '%s' value '%s': %s", name, line,
	                  col_names[col], shown(v, sizeof(v), f->s, f->len), what);
}

/* Terminate a (trimmed) field in place; the byte after it is its separator,
 * trailing blank, or the line's terminator, all of which are free to use. */
static const char *field_str(struct field *f)
{
	f->s[f->len] = '\0';
	return f->s;
}

/*
 * RFC 4180 fields.  One field from buf[*pos..len): a quoted field (after
 * optional blanks) runs to the closing quote, may hold commas and line
 * breaks, and "" inside it is one quote; it is unquoted in place (it only
 * gets shorter, so the byte after it stays free for field_str).  An
 * unquoted field runs to the next ',' or line end; a quote inside it is an
 * ordinary character.  *term gets ',' (another field follows), '\n' or 0
 * (end of record: line break or end of text).  *lines counts the line
 * breaks consumed, the record's own included.  0, or -1 with *what set.
 */
static int next_field(char *buf, size_t len, size_t *pos, struct field *f, int *term,
                      long *lines, const char **what)
{
	char *p = buf + *pos, *end = buf + len, *w;

	while (p < end && is_space(*p))
		p++;
	if (p < end && *p == '"') {
		f->s = w = ++p;
		for (;;) {
			if (p >= end) {
				*what = "quoted field not closed before the end of the file";
				return -1;
			}
			if (*p == '"') {
				if (p + 1 < end && p[1] == '"') {
					*w++ = '"';
					p += 2;
					continue;
				}
				p++;
				break;
			}
			if (*p == '\n')
				(*lines)++;
			*w++ = *p++;
		}
		f->len = (size_t)(w - f->s);
		while (p < end && (is_space(*p) || (*p == '\r' && p + 1 < end && p[1] == '\n')))
			p++;
		if (p < end && *p != ',' && *p != '\n') {
			*what = "text after a closing quote (a quote inside a quoted field is written \"\")";
			return -1;
		}
	} else {
		f->s = p;
		while (p < end && *p != ',' && *p != '\n')
			p++;
		f->len = (size_t)(p - f->s);
		if (p < end && *p == '\n' && f->len && f->s[f->len - 1] == '\r')
			f->len--;
	}
	trim(f);
	*term = p < end ? *p : 0;
	if (p < end) {
		if (*p == '\n')
			(*lines)++;
		p++;
	}
	*pos = (size_t)(p - buf);
	return 0;
}

/* An optional hint: params > 0, comm_fraction in (0, 1); empty = 0. */
static int parse_hint(const char *name, long line, int col, struct field *f, double *out,
                      gp_error_t *err)
{
	double v;
	int rc;

	*out = 0;
	if (!f->len)
		return 0;
	rc = gp__parse_double(field_str(f), -DBL_MAX, DBL_MAX, &v);
	if (rc)
		return bad_value(err, name, line, col, f, "not a finite number");
	if (col == COL_PARAMS && !(v > 0 && v <= TRACE_MAX_PARAMS))
		return bad_value(err, name, line, col, f, "must be > 0 and at most 1e15");
	if (col == COL_COMM && !(v > 0 && v < 1))
		return bad_value(err, name, line, col, f, "must lie in (0, 1)");
	*out = v;
	return 0;
}

static int parse_seconds(const char *name, long line, int col, struct field *f, double *out,
                         gp_error_t *err)
{
	double v;
	int rc;

	if (!f->len && col == COL_LIMIT) {
		*out = 0; /* not given: the simulator draws one */
		return 0;
	}
	if (!f->len)
		return bad_value(err, name, line, col, f, "missing");
	rc = gp__parse_double(field_str(f), -DBL_MAX, DBL_MAX, &v);
	if (rc == GP_ERANGE)
		return bad_value(err, name, line, col, f, "out of range");
	if (rc)
		return bad_value(err, name, line, col, f, "not a finite number");
	if (col == COL_SUBMIT && v < 0)
		return bad_value(err, name, line, col, f, "must be >= 0");
	if ((col == COL_DURATION || col == COL_LIMIT) && !(v > 0))
		return bad_value(err, name, line, col, f, "must be > 0");
	*out = v + 0.0; /* -0 reads as 0 */
	return 0;
}

static int parse_count(const char *name, long line, int col, struct field *f, long max,
                       int32_t *out, gp_error_t *err)
{
	char what[96];
	long v;
	int rc;

	if (!f->len) {
		if (col != COL_SUBMIT && col != COL_DURATION && col != COL_GPUS) {
			*out = 0; /* an optional column left empty: not given */
			return 0;
		}
		return bad_value(err, name, line, col, f, "missing");
	}
	rc = gp__parse_long(field_str(f), 1, max, &v);
	if (rc == GP_ERANGE) {
		if (col != COL_GPUS)
			snprintf(what, sizeof(what), "must be between 1 and the job's GPUs (%ld)", max);
		else
			snprintf(what, sizeof(what), "must be between 1 and %ld", max);
		return bad_value(err, name, line, col, f, what);
	}
	if (rc)
		return bad_value(err, name, line, col, f, "not a whole number");
	*out = (int32_t)v;
	return 0;
}

/* Header: find the columns by name (quoted or not) in the record at
 * buf[*pos..]; col[] gets each known column's index (-1 = absent),
 * *nfields the number of fields, *lines the line breaks consumed. */
static int parse_header(const char *name, long line, char *buf, size_t len, size_t *pos,
                        long *lines, long col[NCOLS], size_t *nfields, gp_error_t *err)
{
	char v[256], raw[256];
	size_t i = 0, rawlen = len - *pos;
	const char *what = NULL, *nl = memchr(buf + *pos, '\n', len - *pos);
	int k, term;

	/* the first line as written, for the message (fields unquote in place) */
	if (nl)
		rawlen = (size_t)(nl - (buf + *pos));
	if (rawlen && buf[*pos + rawlen - 1] == '\r')
		rawlen--;
	if (rawlen > sizeof(raw))
		rawlen = sizeof(raw);
	memcpy(raw, buf + *pos, rawlen);
	for (k = 0; k < NCOLS; k++)
		col[k] = -1;
	for (;;) {
		struct field f;

		if (next_field(buf, len, pos, &f, &term, lines, &what))
			return gp__errorf(err, GP_EINVAL, "%s:%ld: header: %s", name, line, what);
		for (k = 0; k < NCOLS; k++) {
			if (f.len != strlen(col_names[k]) || memcmp(f.s, col_names[k], f.len))
				continue;
			if (col[k] >= 0)
				return gp__errorf(err, GP_EINVAL,
				                  "%s:%ld: column '%s' appears twice in the header", name,
				                  line, col_names[k]);
			col[k] = (long)i;
		}
		i++;
		if (term != ',')
			break;
	}
	for (k = 0; k < NCOLS; k++)
		if ((k == COL_SUBMIT || k == COL_DURATION || k == COL_GPUS) && col[k] < 0)
			return gp__errorf(err, GP_EINVAL,
			                  "%s:%ld: header has no column '%s' (header found: '%s'; "
			                  "needed: submit_time_s,duration_s,gpus[,nodes])",
			                  name, line, col_names[k], shown(v, sizeof(v), raw, rawlen));
	*nfields = i;
	return 0;
}

/* The nodelist column: a copy of the field (unquoted), NULL when empty;
 * a host list of GP_TRACE_MAX_NODELIST bytes or more is an error. */
static int keep_nodelist(const char *name, long line, const struct field *f, gp_trace_job_t *j,
                         gp_error_t *err)
{
	char v[64];

	if (!f->s || !f->len)
		return 0;
	if (f->len >= GP_TRACE_MAX_NODELIST || memchr(f->s, '\n', f->len))
		return gp__errorf(err, GP_EINVAL, "%s:%ld: nodelist '%s': %s", name, line,
		                  shown(v, sizeof(v), f->s, f->len),
		                  f->len >= GP_TRACE_MAX_NODELIST ? "too long" : "holds a line break");
	if (!(j->nodelist = malloc(f->len + 1)))
		return gp__errorf(err, GP_ENOMEM, "%s:%ld: out of memory", name, line);
	memcpy(j->nodelist, f->s, f->len);
	j->nodelist[f->len] = '\0';
	return 0;
}

static int cmp_job(const void *a, const void *b)
{
	const gp_trace_job_t *x = a, *y = b;

	if (x->submit_s != y->submit_s)
		return x->submit_s < y->submit_s ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Stable sort by submit time: ids are unique and in file order, so sorting
 * on (submit_s, id) keeps equal times in file order. */
static void sort_jobs(gp_trace_t *t)
{
	int32_t i;

	for (i = 1; i < t->njobs; i++)
		if (t->jobs[i].submit_s < t->jobs[i - 1].submit_s)
			break;
	if (i < t->njobs)
		qsort(t->jobs, (size_t)t->njobs, sizeof(*t->jobs), cmp_job);
}

static gp_trace_t *trace_new(const char *name, size_t njobs_max)
{
	gp_trace_t *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->jobs = calloc(njobs_max ? njobs_max : 1, sizeof(*t->jobs));
	if (!t->jobs) {
		free(t);
		return NULL;
	}
	return t;
}

/* Parse buf[0..len) in place; buf[len] must be writable. */
static int parse_mut(const char *name, char *buf, size_t len, gp_trace_t **out, gp_error_t *err)
{
	gp_trace_t *t = NULL;
	const char *q;
	size_t pos = 0, rows = 1, nfields = 0;
	long col[NCOLS], line = 0;
	bool header = false;
	int rc;

	for (q = buf; (q = memchr(q, '\n', len - (size_t)(q - buf))); q++)
		rows++;
	if (rows > INT32_MAX)
		return gp__errorf(err, GP_ELIMIT, "%s: more than %d lines", name, INT32_MAX);
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		pos = 3; /* a UTF-8 byte order mark, as spreadsheets write */
	if (!(t = trace_new(name, rows)))
		return gp__errorf(err, GP_ENOMEM, "%s: out of memory for %zu rows", name, rows);

	while (pos < len) {
		char *s = buf + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos, i;
		struct field f[NCOLS];
		const char *what = NULL;
		long lines = 0;
		gp_trace_job_t *j;
		int k, term;

		line++;
		if (n && s[n - 1] == '\r')
			n--;
		if (is_blank(s, n) || s[0] == '#') {
			pos += (size_t)(nl ? nl - s + 1 : (ptrdiff_t)(len - pos));
			continue;
		}
		if (memchr(s, '\0', n)) {
			rc = gp__errorf(err, GP_EINVAL, "%s:%ld: line contains a NUL byte", name, line);
			goto error;
		}
		if (!header) {
			if ((rc = parse_header(name, line, buf, len, &pos, &lines, col, &nfields, err)))
				goto error;
			line += lines - (lines > 0);
			header = true;
			continue;
		}

		memset(f, 0, sizeof(f));
		for (i = 0;; i++) {
			struct field x;
			size_t before = pos;

			if (next_field(buf, len, &pos, &x, &term, &lines, &what)) {
				rc = gp__errorf(err, GP_EINVAL, "%s:%ld: %s", name, line, what);
				goto error;
			}
			if (memchr(buf + before, '\0', pos - before)) {
				rc = gp__errorf(err, GP_EINVAL, "%s:%ld: line contains a NUL byte", name,
				                line);
				goto error;
			}
			for (k = 0; k < NCOLS; k++)
				if (col[k] == (long)i)
					f[k] = x;
			if (term != ',')
				break;
		}
		if (i + 1 != nfields) {
			rc = gp__errorf(err, GP_EINVAL,
			                "%s:%ld: expected %zu fields as in the header, found %zu", name,
			                line, nfields, i + 1);
			goto error;
		}
		j = &t->jobs[t->njobs];
		j->id = (uint32_t)t->njobs + 1;
		j->line = (int32_t)line;
		if ((rc = parse_seconds(name, line, COL_SUBMIT, &f[COL_SUBMIT], &j->submit_s, err)) ||
		    (rc = parse_seconds(name, line, COL_DURATION, &f[COL_DURATION], &j->duration_s,
		                        err)) ||
		    (rc = parse_count(name, line, COL_GPUS, &f[COL_GPUS], TRACE_MAX_GPUS, &j->gpus,
		                      err)))
			goto error;
		j->nodes = j->tp = j->pp = 0;
		j->params = j->comm_fraction = j->limit_s = 0;
		if ((col[COL_NODES] >= 0 &&
		     (rc = parse_count(name, line, COL_NODES, &f[COL_NODES], j->gpus, &j->nodes, err))) ||
		    (col[COL_TP] >= 0 &&
		     (rc = parse_count(name, line, COL_TP, &f[COL_TP], j->gpus, &j->tp, err))) ||
		    (col[COL_PP] >= 0 &&
		     (rc = parse_count(name, line, COL_PP, &f[COL_PP], j->gpus, &j->pp, err))) ||
		    (col[COL_PARAMS] >= 0 &&
		     (rc = parse_hint(name, line, COL_PARAMS, &f[COL_PARAMS], &j->params, err))) ||
		    (col[COL_COMM] >= 0 &&
		     (rc = parse_hint(name, line, COL_COMM, &f[COL_COMM], &j->comm_fraction, err))) ||
		    (col[COL_LIMIT] >= 0 &&
		     (rc = parse_seconds(name, line, COL_LIMIT, &f[COL_LIMIT], &j->limit_s, err))))
			goto error;
		j->nodelist = NULL;
		if ((j->tp > 1 || j->pp > 1) && j->gpus % ((j->tp ? j->tp : 1) * (j->pp ? j->pp : 1))) {
			rc = gp__errorf(err, GP_EINVAL, "%s:%ld: tp %d x pp %d does not divide the job's "
			                "%d GPUs", name, line, (int)(j->tp ? j->tp : 1),
			                (int)(j->pp ? j->pp : 1), (int)j->gpus);
			goto error;
		}
		if (col[COL_NODELIST] >= 0 && (rc = keep_nodelist(name, line, &f[COL_NODELIST], j, err)))
			goto error;
		t->njobs++;
		/* the record's line breaks beyond its last one are lines too */
		line += lines - (lines > 0);
	}
	if (!header) {
		rc = gp__errorf(err, GP_EINVAL, "%s: no header line (the file is empty)", name);
		goto error;
	}
	if (!t->njobs) {
		rc = gp__errorf(err, GP_EINVAL, "%s: no jobs (only a header)", name);
		goto error;
	}
	sort_jobs(t);
	*out = t;
	return 0;
error:
	gp__trace_destroy(t);
	return rc;
}

int gp__trace_parse(const char *name, const char *buf, size_t len, gp_trace_t **out,
                    gp_error_t *err)
{
	char *copy;
	int rc;

	if (out)
		*out = NULL;
	if (!name || (!buf && len) || !out)
		return gp__errorf(err, GP_EINVAL, "trace parse: missing argument");
	if (!(copy = malloc(len + 1)))
		return gp__errorf(err, GP_ENOMEM, "%s: out of memory (%zu bytes)", name, len);
	if (len)
		memcpy(copy, buf, len);
	rc = parse_mut(name, copy, len, out, err);
	free(copy);
	return rc;
}

int gp__trace_load(const char *path, gp_trace_t **out, gp_error_t *err)
{
	gp__file_t f;
	int rc;

	if (out)
		*out = NULL;
	if (!path || !out)
		return gp__errorf(err, GP_EINVAL, "trace load: missing argument");
	if ((rc = gp__file_read(path, GP_TRACE_MAX_FILE, 0, &f, err))) {
		if (rc == GP_EIO)
			return gp__errorf(err, GP_EIO, "cannot read %s: %s", path,
			                  strerror(f.sys_errno));
		return rc;
	}
	rc = parse_mut(path, f.buf, f.len, out, err);
	free(f.buf);
	return rc;
}

void gp__trace_destroy(gp_trace_t *t)
{
	if (!t)
		return;
	for (int32_t i = 0; i < t->njobs; i++)
		free(t->jobs[i].nodelist);
	free(t->jobs);
	free(t);
}

double gp__trace_offered_load(const gp_trace_t *t, int64_t gpus)
{
	double w = 0, span;
	int32_t i;

	if (!t || t->njobs < 2 || gpus <= 0)
		return 0;
	for (i = 0; i < t->njobs; i++)
		w += t->jobs[i].gpus * t->jobs[i].duration_s;
	span = t->jobs[t->njobs - 1].submit_s - t->jobs[0].submit_s;
	return span > 0 ? w / ((double)gpus * span) : 0;
}

void gp__trace_truncate(gp_trace_t *t, int32_t n)
{
	if (t && n > 0 && n < t->njobs) {
		for (int32_t i = n; i < t->njobs; i++) {
			free(t->jobs[i].nodelist);
			t->jobs[i].nodelist = NULL;
		}
		t->njobs = n;
	}
}

/* Whole numbers below 2^53 as integers, else the shortest text that
 * reads back to v (gp__double_str). */
static const char *fmt_num(char *b, size_t n, double v)
{
	if (v == floor(v) && fabs(v) < 9007199254740992.0) {
		snprintf(b, n, "%.0f", v);
		return b;
	}
	return gp__double_str(b, v);
}

int gp__trace_write(const gp_trace_t *t, FILE *f)
{
	char a[40], b[40];
	int32_t i;
	bool hints = false, limits = false;

	if (!t || !f)
		return GP_EINVAL;
	for (i = 0; i < t->njobs && !hints; i++)
		hints = t->jobs[i].tp || t->jobs[i].pp || t->jobs[i].params > 0 ||
		        t->jobs[i].comm_fraction > 0;
	for (i = 0; i < t->njobs && !limits; i++)
		limits = t->jobs[i].limit_s > 0;
	/* the hint and limit columns only when a job has one: older readers
	 * keep working */
	fprintf(f, "submit_time_s,duration_s,gpus,nodes%s%s\n",
	        hints ? ",tp,pp,params,comm_fraction" : "", limits ? ",time_limit_s" : "");
	for (i = 0; i < t->njobs; i++) {
		const gp_trace_job_t *j = &t->jobs[i];

		fprintf(f, "%s,%s,%d,", fmt_num(a, sizeof(a), j->submit_s),
		        fmt_num(b, sizeof(b), j->duration_s), (int)j->gpus);
		if (j->nodes > 0)
			fprintf(f, "%d", (int)j->nodes);
		if (hints) {
			fputc(',', f);
			if (j->tp > 0)
				fprintf(f, "%d", (int)j->tp);
			fputc(',', f);
			if (j->pp > 0)
				fprintf(f, "%d", (int)j->pp);
			fprintf(f, ",%s,%s", j->params > 0 ? fmt_num(a, sizeof(a), j->params) : "",
			        j->comm_fraction > 0 ? fmt_num(b, sizeof(b), j->comm_fraction) : "");
		}
		if (limits) {
			fputc(',', f);
			if (j->limit_s > 0)
				fputs(fmt_num(a, sizeof(a), j->limit_s), f);
		}
		fputc('\n', f);
	}
	return ferror(f) ? GP_EIO : 0;
}

/* ---- summary ---------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmp_gpus(const void *a, const void *b)
{
	const gp_trace_job_t *x = a, *y = b;

	return x->gpus < y->gpus ? -1 : x->gpus > y->gpus;
}

/* Quantile q of sorted v[0..n) by linear interpolation between order
 * statistics (the default of numpy and of R's type 7), which is how the
 * Philly README's quantiles were computed. */
static double quantile(const double *v, int32_t n, double q)
{
	double h = q * (n - 1);
	int32_t lo = (int32_t)floor(h);

	if (lo >= n - 1)
		return v[n - 1];
	return v[lo] + (h - lo) * (v[lo + 1] - v[lo]);
}

int gp__trace_print_summary(const gp_trace_t *t, FILE *f)
{
	gp_trace_job_t *by_gpus;
	double *dur, gpus_s = 0, first, last, span;
	int32_t i, with_nodes = 0;

	if (!t || !f || t->njobs < 1)
		return GP_EINVAL;
	dur = malloc((size_t)t->njobs * sizeof(*dur));
	by_gpus = malloc((size_t)t->njobs * sizeof(*by_gpus));
	if (!dur || !by_gpus) {
		free(dur);
		free(by_gpus);
		return GP_ENOMEM;
	}
	first = last = t->jobs[0].submit_s;
	for (i = 0; i < t->njobs; i++) {
		const gp_trace_job_t *j = &t->jobs[i];

		dur[i] = j->duration_s;
		gpus_s += j->gpus * j->duration_s;
		with_nodes += j->nodes > 0;
		if (j->submit_s < first)
			first = j->submit_s;
		if (j->submit_s > last)
			last = j->submit_s;
	}
	span = last - first;
	memcpy(by_gpus, t->jobs, (size_t)t->njobs * sizeof(*by_gpus));
	qsort(dur, (size_t)t->njobs, sizeof(*dur), cmp_double);
	qsort(by_gpus, (size_t)t->njobs, sizeof(*by_gpus), cmp_gpus);

	fprintf(f, "trace:        %s\n", t->name);
	fprintf(f, "jobs:         %d (%d with a nodes count)\n", (int)t->njobs, (int)with_nodes);
	fprintf(f, "span:         %.1f days (submits from %.0f s to %.0f s)\n", span / 86400, first,
	        last);
	fprintf(f, "GPU-hours:    %.0f", gpus_s / 3600);
	if (span > 0)
		fprintf(f, " (%.1f GPUs busy on average over the span)", gpus_s / span);
	fputc('\n', f);
	fprintf(f, "duration (s): p50 %.0f, p90 %.0f, p99 %.0f, min %.0f, max %.0f\n",
	        quantile(dur, t->njobs, 0.5), quantile(dur, t->njobs, 0.9),
	        quantile(dur, t->njobs, 0.99), dur[0], dur[t->njobs - 1]);
	fprintf(f, "GPUs per job:    GPUs     jobs  jobs %%  GPU-h %%\n");
	for (i = 0; i < t->njobs;) {
		int32_t g = by_gpus[i].gpus, n = 0;
		double s = 0;

		for (; i < t->njobs && by_gpus[i].gpus == g; i++, n++)
			s += by_gpus[i].gpus * by_gpus[i].duration_s;
		fprintf(f, "              %7d %8d %7.2f %8.2f\n", (int)g, (int)n, 100.0 * n / t->njobs,
		        gpus_s > 0 ? 100.0 * s / gpus_s : 0.0);
	}
	free(dur);
	free(by_gpus);
	return ferror(f) ? GP_EIO : 0;
}

/* ---- synthetic traces ------------------------------------------------- */

/*
 * The Philly GPU-count mix: jobs per GPU count in the Philly trace
 * (Jeon et al., "Analysis of Large-Scale Multi-Tenant GPU Clusters for DNN
 * Training Workloads", USENIX ATC'19), as counted in the 82,247-job Pollux
 * OSDI'21 processing of it (../shared/data/traces/README.md).
 */
static const int32_t philly_sizes[] = { 1, 2, 4, 8, 12, 16, 24, 32, 64, 128 };
static const double philly_jobs[] = { 76627, 1818, 1870, 1643, 7, 199, 7, 67, 6, 3 };

/* Durations of the same trace (same README): median 1,144 s, 90th
 * percentile 11,265 s. */
#define PHILLY_DUR_MEDIAN_S 1144.0
#define PHILLY_DUR_P90_S 11265.0
/* Truncation: a minute (jobs shorter than that are start-up failures more
 * than work) to a week. */
#define DUR_MIN_S 60.0
#define DUR_MAX_S 604800.0
/* Longest duration the generator accepts as a parameter (about 32 years),
 * so that sums of GPU-seconds stay finite. */
#define DUR_LIMIT_S 1e9
/* The standard normal's 90th percentile, Phi^-1(0.9) (trace.h rounds it
 * to 1.2816). */
#define Z90 1.2815515655446004

/*
 * PRNG: xoshiro256** (D. Blackman and S. Vigna, "Scrambled Linear
 * Pseudorandom Number Generators", ACM TOMS 47(4), 2021), its state
 * seeded by splitmix64 (G. Steele, D. Lea and C. Flood, "Fast Splittable
 * Pseudorandom Number Generators", OOPSLA 2014) as its authors recommend,
 * so every 64-bit seed, 0 included, gives a good state.
 */
struct rng {
	uint64_t s[4];
	double spare;   /* second normal of the last Box-Muller pair */
	bool has_spare;
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

static void rng_seed(struct rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
	r->has_spare = false;
}

/* Uniform in the open interval (0, 1): 53 random bits, centred. */
static double rng_unit(struct rng *r)
{
	return ((double)(rng_next(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* Standard normal by the Box-Muller transform (G. Box and M. Muller, Ann.
 * Math. Statist. 29(2), 1958); both values of a pair are used. */
static double rng_normal(struct rng *r)
{
	double rad, ang;

	if (r->has_spare) {
		r->has_spare = false;
		return r->spare;
	}
	rad = sqrt(-2.0 * log(rng_unit(r)));
	ang = 2.0 * M_PI * rng_unit(r);
	r->spare = rad * sin(ang);
	r->has_spare = true;
	return rad * cos(ang);
}

/* ---- time limits ------------------------------------------------------- */

/* The time limits users ask for (trace.h, gp__trace_draw_limit): round
 * values, as Tsafrir, Etsion and Feitelson (JSSPP 2005) found estimates to
 * be modal (about 20 values for 90 % of jobs; the most popular in their
 * logs were round minutes and hours up to the site's maximum).  The list
 * itself (minutes: 5 .. 30, then hours: 1 .. 7 days) is an assumption of
 * which round values: the logs' own lists differ per site. */
static const double limit_values_s[] = {
	300, 600, 900, 1200, 1800, 2700, 3600, 5400, 7200, 10800, 14400, 21600, 28800,
	36000, 43200, 57600, 72000, 86400, 129600, 172800, 259200, 345600, 432000, 604800,
};

double gp__trace_draw_limit(uint64_t seed, uint32_t id, double duration_s)
{
	uint64_t x = seed ^ ((uint64_t)id * 0x9e3779b97f4a7c15ULL);
	double a, want;
	size_t i;

	(void)splitmix64(&x);
	/* accuracy uniform in (0, 1]: 53 random bits */
	a = ((double)(splitmix64(&x) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
	want = duration_s / a;
	for (i = 0; i < sizeof(limit_values_s) / sizeof(limit_values_s[0]); i++)
		if (limit_values_s[i] >= want)
			return limit_values_s[i];
	/* beyond a week: whole days, at least the run itself */
	return ceil(fmax(duration_s, fmin(want, 4.0 * 604800.0)) / 86400.0) * 86400.0;
}

int32_t gp__trace_fill_limits(gp_trace_t *t, uint64_t seed)
{
	int32_t i, n = 0;

	if (!t)
		return 0;
	for (i = 0; i < t->njobs; i++)
		if (!(t->jobs[i].limit_s > 0)) {
			t->jobs[i].limit_s = gp__trace_draw_limit(seed, t->jobs[i].id,
			                                          t->jobs[i].duration_s);
			n++;
		}
	return n;
}

void gp__trace_synth_defaults(gp_trace_synth_params_t *p)
{
	if (!p)
		return;
	memset(p, 0, sizeof(*p));
	p->jobs = 0;
	p->seed = 1;
	p->cluster_gpus = 0;
	p->load = 0.8;
	p->nsizes = 0;
	p->dur_median_s = PHILLY_DUR_MEDIAN_S;
	p->dur_p90_s = PHILLY_DUR_P90_S;
	p->dur_min_s = DUR_MIN_S;
	p->dur_max_s = DUR_MAX_S;
	p->gpus_per_node = 0;
}

int gp__trace_parse_sizes(const char *spec, gp_trace_synth_params_t *p, gp_error_t *err)
{
	int32_t sizes[GP_TRACE_MAX_SIZES];
	double weights[GP_TRACE_MAX_SIZES];
	const char *s = spec;
	char item[64], v[64];
	int32_t n = 0, k;

	if (!spec || !p)
		return gp__errorf(err, GP_EINVAL, "sizes: missing argument");
	if (!*spec)
		return gp__errorf(err, GP_EINVAL, "sizes: empty (expected GPUS:WEIGHT[,...])");
	for (;;) {
		const char *c = strchr(s, ',');
		size_t len = c ? (size_t)(c - s) : strlen(s);
		struct field f;
		char *colon;
		double w;
		long g;

		shown(v, sizeof(v), s, len);
		if (n == GP_TRACE_MAX_SIZES)
			return gp__errorf(err, GP_EINVAL, "sizes: item '%s': more than %d sizes", v,
			                  GP_TRACE_MAX_SIZES);
		if (len >= sizeof(item))
			return gp__errorf(err, GP_EINVAL, "sizes: item '%s': too long", v);
		memcpy(item, s, len);
		item[len] = '\0';
		if (!(colon = strchr(item, ':')))
			return gp__errorf(err, GP_EINVAL,
			                  "sizes: item '%s': expected GPUS:WEIGHT, e.g. 8:0.3", v);
		*colon = '\0';
		f.s = item;
		f.len = (size_t)(colon - item);
		trim(&f);
		if (gp__parse_long(field_str(&f), 1, TRACE_MAX_GPUS, &g))
			return gp__errorf(err, GP_EINVAL,
			                  "sizes: item '%s': GPUs must be a whole number from 1 to %d",
			                  v, TRACE_MAX_GPUS);
		f.s = colon + 1;
		f.len = strlen(f.s);
		trim(&f);
		if (gp__parse_double(field_str(&f), 0, DBL_MAX, &w) || !(w > 0))
			return gp__errorf(err, GP_EINVAL, "sizes: item '%s': weight must be a number > 0",
			                  v);
		for (k = 0; k < n; k++)
			if (sizes[k] == (int32_t)g)
				return gp__errorf(err, GP_EINVAL, "sizes: item '%s': %ld GPUs given twice",
				                  v, g);
		sizes[n] = (int32_t)g;
		weights[n] = w;
		n++;
		if (!c)
			break;
		s = c + 1;
	}
	p->nsizes = n;
	memcpy(p->sizes, sizes, (size_t)n * sizeof(*sizes));
	memcpy(p->weights, weights, (size_t)n * sizeof(*weights));
	return 0;
}

/* Standard normal CDF. */
static double phi(double x)
{
	return 0.5 * erfc(-x / M_SQRT2);
}

/* The parameters with defaults filled in and checked. */
struct synth {
	int32_t nsizes;
	const int32_t *sizes;
	double cum[GP_TRACE_MAX_SIZES]; /* cumulative weights */
	double mu, sigma, lo, hi;
};

/* A duration parameter: 0 = dflt, else a number in (0, DUR_LIMIT_S]. */
static int dur_param(const char *name, double v, double dflt, double *out, gp_error_t *err)
{
	if (!(v >= 0 && v <= DUR_LIMIT_S))
		return gp__errorf(err, GP_EINVAL, "%s: %g is not a number of seconds in (0, %g]", name,
		                  v, DUR_LIMIT_S);
	*out = v > 0 ? v : dflt;
	return 0;
}

static int synth_check(const gp_trace_synth_params_t *p, struct synth *s, gp_error_t *err)
{
	const double *w;
	double med = 0, p90 = 0, total = 0, mass;
	int32_t i, k;
	int rc;

	if (p->jobs < 1)
		return gp__errorf(err, GP_EINVAL, "jobs: %d; give the number of jobs (>= 1)",
		                  (int)p->jobs);
	if (p->cluster_gpus < 1)
		return gp__errorf(err, GP_EINVAL,
		                  "cluster_gpus: %d; the arrival rate needs the cluster's GPUs (>= 1)",
		                  (int)p->cluster_gpus);
	if (!(p->load > 0 && p->load <= 10))
		return gp__errorf(err, GP_EINVAL, "load: %g is not in (0, 10]", p->load);
	if (p->nsizes < 0 || p->nsizes > GP_TRACE_MAX_SIZES)
		return gp__errorf(err, GP_EINVAL, "nsizes: %d is not in [0, %d]", (int)p->nsizes,
		                  GP_TRACE_MAX_SIZES);
	if (p->gpus_per_node < 0 || p->gpus_per_node > TRACE_MAX_GPUS)
		return gp__errorf(err, GP_EINVAL, "gpus_per_node: %d is not in [0, %d]",
		                  (int)p->gpus_per_node, TRACE_MAX_GPUS);
	if (p->nsizes) {
		s->nsizes = p->nsizes;
		s->sizes = p->sizes;
		w = p->weights;
	} else {
		s->nsizes = (int32_t)(sizeof(philly_sizes) / sizeof(philly_sizes[0]));
		s->sizes = philly_sizes;
		w = philly_jobs;
	}
	for (i = 0; i < s->nsizes; i++) {
		if (s->sizes[i] < 1 || s->sizes[i] > TRACE_MAX_GPUS)
			return gp__errorf(err, GP_EINVAL, "sizes[%d]: %d GPUs is not in [1, %d]", (int)i,
			                  (int)s->sizes[i], TRACE_MAX_GPUS);
		if (!(w[i] > 0) || !isfinite(w[i]))
			return gp__errorf(err, GP_EINVAL, "weights[%d]: %g is not a number > 0", (int)i,
			                  w[i]);
		for (k = 0; k < i; k++)
			if (s->sizes[k] == s->sizes[i])
				return gp__errorf(err, GP_EINVAL, "sizes[%d]: %d GPUs given twice", (int)i,
				                  (int)s->sizes[i]);
		total += w[i];
		s->cum[i] = total;
	}
	if (!isfinite(total))
		return gp__errorf(err, GP_EINVAL, "weights: their sum is not finite");

	if ((rc = dur_param("dur_median_s", p->dur_median_s, PHILLY_DUR_MEDIAN_S, &med, err)) ||
	    (rc = dur_param("dur_p90_s", p->dur_p90_s, PHILLY_DUR_P90_S, &p90, err)) ||
	    (rc = dur_param("dur_min_s", p->dur_min_s, DUR_MIN_S, &s->lo, err)) ||
	    (rc = dur_param("dur_max_s", p->dur_max_s, DUR_MAX_S, &s->hi, err)))
		return rc;
	if (!(p90 > med))
		return gp__errorf(err, GP_EINVAL, "dur_p90_s: %g must be above dur_median_s (%g)", p90,
		                  med);
	if (!(s->hi > s->lo))
		return gp__errorf(err, GP_EINVAL, "dur_max_s: %g must be above dur_min_s (%g)", s->hi,
		                  s->lo);
	s->mu = log(med);
	s->sigma = log(p90 / med) / Z90;
	/* Redrawing must end: the window has to hold a fair share of the
	 * distribution. */
	mass = phi((log(s->hi) - s->mu) / s->sigma) - phi((log(s->lo) - s->mu) / s->sigma);
	if (!(mass >= 0.01))
		return gp__errorf(err, GP_EINVAL,
		                  "dur_min_s, dur_max_s: [%g, %g] holds %.3g %% of the log-normal "
		                  "durations (median %g, p90 %g); at least 1 %% is needed",
		                  s->lo, s->hi, 100 * mass, med, p90);
	return 0;
}

int gp__trace_synth(const gp_trace_synth_params_t *p, gp_trace_t **out, gp_error_t *err)
{
	struct synth s = { 0 };
	struct rng r;
	gp_trace_t *t;
	double gpus_s = 0, rate, now = 0;
	int32_t i;
	int rc;

	if (out)
		*out = NULL;
	if (!p || !out)
		return gp__errorf(err, GP_EINVAL, "trace synth: missing argument");
	if ((rc = synth_check(p, &s, err)))
		return rc;
	if (!(t = trace_new("synthetic", (size_t)p->jobs)))
		return gp__errorf(err, GP_ENOMEM, "trace synth: out of memory for %d jobs",
		                  (int)p->jobs);
	rng_seed(&r, p->seed);

	/* Sizes and durations first: the arrival rate depends on their mean. */
	for (i = 0; i < p->jobs; i++) {
		gp_trace_job_t *j = &t->jobs[i];
		double u = rng_unit(&r) * s.cum[s.nsizes - 1], d;
		int32_t k = 0;

		while (k < s.nsizes - 1 && u >= s.cum[k])
			k++;
		do
			d = exp(s.mu + s.sigma * rng_normal(&r));
		while (d < s.lo || d > s.hi);
		j->id = (uint32_t)i + 1;
		j->line = 0;
		j->gpus = s.sizes[k];
		j->duration_s = d;
		j->nodes = p->gpus_per_node > 0 && j->gpus > p->gpus_per_node
		                   ? (j->gpus + p->gpus_per_node - 1) / p->gpus_per_node
		                   : 0;
		gpus_s += j->gpus * d;
	}
	/* Poisson arrivals: exponential gaps at the rate whose offered load is
	 * `load`; the first job arrives at 0. */
	rate = p->load * p->cluster_gpus / (gpus_s / p->jobs);
	for (i = 0; i < p->jobs; i++) {
		if (i)
			now += -log(rng_unit(&r)) / rate;
		t->jobs[i].submit_s = now;
	}
	t->njobs = p->jobs;
	if (!isfinite(now)) {
		gp__trace_destroy(t);
		return gp__errorf(err, GP_EINVAL, "load: %g is too low: submit times overflow",
		                  p->load);
	}
	*out = t;
	return 0;
}
