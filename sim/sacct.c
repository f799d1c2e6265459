/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sacct.c - `sacct --parsable2` output into the simulator's trace CSV
 * (sacct.h says what is read and how). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sacct.h"

enum { F_JOBID, F_SUBMIT, F_START, F_END, F_ELAPSED, F_TIMELIMIT, F_ALLOCTRES, F_REQTRES,
       F_NODELIST, F_PARTITION, F_STATE, NF };
static const char *const fnames[NF] = {
	"JobID", "Submit", "Start", "End", "Elapsed", "Timelimit", "AllocTRES", "ReqTRES",
	"NodeList", "Partition", "State",
};

/* Most fields of one line: sacct prints about 120 fields at most
 * (sacct --helpformat); a header with more is refused. */
#define SACCT_MAX_FIELDS 512
/* Largest GPU count of one job: the trace reader's (trace.c). */
#define SACCT_MAX_GPUS 1048576

struct rec {
	double submit, start, elapsed, timelimit; /* epoch s, epoch s or NAN, s, s or -1 */
	int32_t gpus, nodes;
	const char *jobid, *partition, *state, *nodelist; /* into the copy, or "" */
};

/* "Unknown", "None", "None assigned" and "" are "not given" (sacct(1)). */
static bool unset(const char *s)
{
	return !*s || !strcmp(s, "Unknown") || !strcmp(s, "None") || !strcmp(s, "None assigned");
}

/* Days from 1970-01-01 of a proleptic Gregorian date (H. Hinnant,
 * "chrono-Compatible Low-Level Date Algorithms", days_from_civil). */
static long days_from_civil(long y, long m, long d)
{
	long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* n decimal digits at s into *v. */
static bool digits(const char *s, int n, long *v)
{
	long x = 0;

	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		x = x * 10 + (s[i] - '0');
	}
	*v = x;
	return true;
}

/* "YYYY-MM-DDTHH:MM:SS" into seconds since the epoch, read as UTC: only
 * differences are used, so the site's time zone cancels out (a daylight
 * saving change inside the history shifts submissions by its hour). */
static int parse_time(const char *s, double *out)
{
	long y, mo, d, h, mi, se;

	if (strlen(s) != 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
	    s[16] != ':' || !digits(s, 4, &y) || !digits(s + 5, 2, &mo) || !digits(s + 8, 2, &d) ||
	    !digits(s + 11, 2, &h) || !digits(s + 14, 2, &mi) || !digits(s + 17, 2, &se) || mo < 1 ||
	    mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
		return GP_EINVAL;
	*out = (double)days_from_civil(y, mo, d) * 86400.0 + (double)(h * 3600 + mi * 60 + se);
	return 0;
}

int gp__sacct_duration(const char *s, size_t len, double *out)
{
	long part[3] = { 0, 0, 0 }, days = 0, v;
	size_t i = 0;
	int n = 0;

	*out = 0;
	/* "[DD-]": the days, then hours:minutes:seconds */
	for (size_t k = 0; k < len; k++) {
		if (s[k] == '-') {
			if (!k || k > 9)
				return GP_EINVAL;
			if (!digits(s, (int)k, &days))
				return GP_EINVAL;
			i = k + 1;
			break;
		}
	}
	while (i < len && n < 3) {
		size_t k = i;

		while (k < len && isdigit((unsigned char)s[k]))
			k++;
		if (k == i || k - i > 9 || !digits(s + i, (int)(k - i), &v))
			return GP_EINVAL;
		part[n++] = v;
		i = k;
		if (i < len && s[i] == ':') {
			i++;
			if (i == len)
				return GP_EINVAL;
			continue;
		}
		break;
	}
	/* "[.microseconds]" of CPU-time fields: ignored */
	if (i < len && s[i] == '.') {
		for (i++; i < len && isdigit((unsigned char)s[i]); i++)
			;
	}
	if (i != len || n < 2 || (days && n != 3))
		return GP_EINVAL;
	if (n == 2) { /* MM:SS */
		if (part[1] > 59)
			return GP_EINVAL;
		*out = (double)(part[0] * 60 + part[1]);
	} else {
		if (part[1] > 59 || part[2] > 59)
			return GP_EINVAL;
		*out = (double)days * 86400.0 + (double)(part[0] * 3600 + part[1] * 60 + part[2]);
	}
	return 0;
}

/* GPUs and nodes of a TRES list "billing=8,cpu=8,gres/gpu:a100=4,
 * gres/gpu=4,mem=64G,node=1": gres/gpu=N, else the sum of the typed
 * gres/gpu:TYPE=N; node=N.  -1 = not in the list.  GP_EINVAL on a bad
 * count, *bad pointing at the item. */
static int parse_tres(const char *s, int32_t *gpus, int32_t *nodes, const char **bad)
{
	long total = -1, typed = -1, v;
	const char *p = s;

	*gpus = *nodes = -1;
	while (*p) {
		const char *e = strchr(p, ','), *eq;
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char num[24];
		long *dst = NULL;
		bool node = false;

		eq = memchr(p, '=', n);
		if (eq) {
			size_t kl = (size_t)(eq - p), vl = n - kl - 1;

			if (kl == 8 && !memcmp(p, "gres/gpu", 8))
				dst = &total;
			else if (kl > 9 && !memcmp(p, "gres/gpu:", 9))
				dst = &typed;
			else if (kl == 4 && !memcmp(p, "node", 4))
				node = true;
			if (dst || node) {
				if (!vl || vl >= sizeof(num)) {
					*bad = p;
					return GP_EINVAL;
				}
				memcpy(num, eq + 1, vl);
				num[vl] = '\0';
				if (gp__parse_long(num, 0, SACCT_MAX_GPUS, &v)) {
					*bad = p;
					return GP_EINVAL;
				}
				if (node)
					*nodes = (int32_t)v;
				else
					*dst = (*dst < 0 ? 0 : *dst) + v;
			}
		}
		p += n + (e != NULL);
	}
	if (total >= 0)
		*gpus = (int32_t)total;
	else if (typed >= 0)
		*gpus = (int32_t)(typed > SACCT_MAX_GPUS ? SACCT_MAX_GPUS : typed);
	return 0;
}

/* One CSV field (RFC 4180): quoted when it holds a comma, quote or line
 * break. */
static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* Split the line s (NUL-terminated, in place) at '|' into at most max
 * fields; returns the count, or max + 1 when there are more. */
static int split(char *s, char **fld, int max)
{
	int n = 0;

	for (;;) {
		char *e = strchr(s, '|');

		if (n == max)
			return max + 1;
		fld[n++] = s;
		if (!e)
			return n;
		*e = '\0';
		s = e + 1;
	}
}

static int bad(gp_error_t *err, const char *name, long line, int f, const char *v,
               const char *what)
{
	char shown[64];
	size_t i;

	for (i = 0; v[i] && i < sizeof(shown) - 4; i++)
		shown[i] = (v[i] >= 0x20 && v[i] < 0x7f) ? v[i] : '?';
	if (v[i]) {
		memcpy(shown + i, "...", 3);
		i += 3;
	}
	shown[i] = '\0';
	return gp__errorf(err, GP_EINVAL, "%s:%ld: %s '%s': %s", name, line, fnames[f], shown, what);
}

int gp__sacct_import(const char *name, const char *buf, size_t len, FILE *out,
                     gp_sacct_stats_t *st, gp_error_t *err)
{
	char *copy = NULL, *p, *end, **fld = NULL;
	struct rec *recs = NULL;
	size_t nrec = 0, cap = 0;
	int col[NF], nfields = 0, rc = 0;
	bool header = false, trailing = false;
	double t0 = INFINITY;
	long line = 0;

	memset(st, 0, sizeof(*st));
	for (int k = 0; k < NF; k++)
		col[k] = -1;
	if (!(copy = malloc(len + 1)) || !(fld = calloc(SACCT_MAX_FIELDS + 1, sizeof(*fld)))) {
		rc = gp__errorf(err, GP_ENOMEM, "%s: out of memory", name);
		goto done;
	}
	memcpy(copy, buf, len);
	copy[len] = '\0';
	if (memchr(copy, '\0', len)) {
		rc = gp__errorf(err, GP_EINVAL, "%s: contains a NUL byte", name);
		goto done;
	}
	for (p = copy; p < copy + len; p = end + 1) {
		struct rec r;
		int n, k;
		const char *badp = NULL;

		end = strchr(p, '\n');
		if (!end)
			end = copy + len;
		*end = '\0';
		line++;
		if (end > p && end[-1] == '\r')
			end[-1] = '\0';
		if (!*p)
			continue;
		n = split(p, fld, SACCT_MAX_FIELDS);
		if (n > SACCT_MAX_FIELDS) {
			rc = gp__errorf(err, GP_ELIMIT, "%s:%ld: more than %d fields", name, line,
			                SACCT_MAX_FIELDS);
			goto done;
		}
		if (!header) {
			/* sacct --parsable ends every line with '|' */
			if (n > 1 && !*fld[n - 1]) {
				trailing = true;
				n--;
			}
			for (int i = 0; i < n; i++)
				for (k = 0; k < NF; k++)
					if (!strcasecmp(fld[i], fnames[k]) && col[k] < 0)
						col[k] = i;
			if (col[F_SUBMIT] < 0 || (col[F_ALLOCTRES] < 0 && col[F_REQTRES] < 0)) {
				rc = gp__errorf(err, GP_EINVAL,
				                "%s:%ld: the header names no %s field: run sacct --parsable2 "
				                "with --format=JobID,Submit,Start,End,Elapsed,Timelimit,"
				                "AllocTRES,ReqTRES,NodeList,Partition,State",
				                name, line, col[F_SUBMIT] < 0 ? "Submit" : "AllocTRES or ReqTRES");
				goto done;
			}
			nfields = n;
			header = true;
			continue;
		}
		if (trailing && n > 1 && !*fld[n - 1])
			n--;
		if (n != nfields) {
			rc = gp__errorf(err, GP_EINVAL, "%s:%ld: expected %d fields as in the header, "
			                "found %d (a '|' inside a field, such as a job name?)",
			                name, line, nfields, n);
			goto done;
		}
		st->lines++;
#define FLD(k) (col[k] >= 0 ? fld[col[k]] : (char *)"")
		if (col[F_JOBID] >= 0 && strchr(FLD(F_JOBID), '.')) {
			st->steps++;
			continue;
		}
		memset(&r, 0, sizeof(r));
		r.jobid = FLD(F_JOBID);
		r.partition = unset(FLD(F_PARTITION)) ? "" : FLD(F_PARTITION);
		r.state = unset(FLD(F_STATE)) ? "" : FLD(F_STATE);
		r.nodelist = unset(FLD(F_NODELIST)) ? "" : FLD(F_NODELIST);
		if (parse_time(FLD(F_SUBMIT), &r.submit)) {
			rc = bad(err, name, line, F_SUBMIT, FLD(F_SUBMIT), "not YYYY-MM-DDTHH:MM:SS");
			goto done;
		}
		for (k = F_ALLOCTRES; k <= F_REQTRES; k++) {
			int32_t g, nn;

			if (parse_tres(FLD(k), &g, &nn, &badp)) {
				rc = bad(err, name, line, k, badp, "not a count");
				goto done;
			}
			if (!r.gpus && g > 0)
				r.gpus = g;
			if (!r.nodes && nn > 0)
				r.nodes = nn;
		}
		r.start = NAN;
		if (!unset(FLD(F_START)) && parse_time(FLD(F_START), &r.start)) {
			rc = bad(err, name, line, F_START, FLD(F_START), "not YYYY-MM-DDTHH:MM:SS");
			goto done;
		}
		if (col[F_ELAPSED] >= 0 && !unset(FLD(F_ELAPSED))) {
			if (gp__sacct_duration(FLD(F_ELAPSED), strlen(FLD(F_ELAPSED)), &r.elapsed)) {
				rc = bad(err, name, line, F_ELAPSED, FLD(F_ELAPSED),
				         "not [DD-]HH:MM:SS");
				goto done;
			}
		} else if (!isnan(r.start) && !unset(FLD(F_END))) {
			double e;

			if (parse_time(FLD(F_END), &e)) {
				rc = bad(err, name, line, F_END, FLD(F_END), "not YYYY-MM-DDTHH:MM:SS");
				goto done;
			}
			r.elapsed = e > r.start ? e - r.start : 0;
		}
		r.timelimit = -1;
		if (col[F_TIMELIMIT] >= 0 && !unset(FLD(F_TIMELIMIT)) &&
		    strcmp(FLD(F_TIMELIMIT), "UNLIMITED") && strcmp(FLD(F_TIMELIMIT), "Partition_Limit") &&
		    gp__sacct_duration(FLD(F_TIMELIMIT), strlen(FLD(F_TIMELIMIT)), &r.timelimit)) {
			rc = bad(err, name, line, F_TIMELIMIT, FLD(F_TIMELIMIT),
			         "not [DD-]HH:MM:SS, UNLIMITED or Partition_Limit");
			goto done;
		}
#undef FLD
		if (r.gpus <= 0) {
			st->no_gpus++;
			continue;
		}
		/* ran no time: never started, or still running (no End) */
		if (isnan(r.start) || r.elapsed <= 0 ||
		    (col[F_END] >= 0 && unset(fld[col[F_END]]))) {
			st->not_run++;
			continue;
		}
		if (r.nodes > r.gpus)
			r.nodes = r.gpus;
		if (nrec == cap) {
			size_t nc = cap ? 2 * cap : 256;
			struct rec *nr = realloc(recs, nc * sizeof(*nr));

			if (!nr) {
				rc = gp__errorf(err, GP_ENOMEM, "%s: out of memory", name);
				goto done;
			}
			recs = nr;
			cap = nc;
		}
		recs[nrec++] = r;
		if (r.submit < t0)
			t0 = r.submit;
	}
	if (!header) {
		rc = gp__errorf(err, GP_EINVAL, "%s: no header line (the input is empty)", name);
		goto done;
	}
	if (!nrec) {
		/* Slurm records a GRES in AllocTRES/ReqTRES only when
		 * AccountingStorageTRES names it (slurm.conf(5); seen with
		 * Slurm 22.05's slurmdbd in tests/slurm/slurm_sacct.sh): jobs
		 * that all lack GPUs most likely come from such a cluster */
		rc = gp__errorf(err, GP_EINVAL, "%s: no job with GPUs that ran (%d lines: %d steps, "
		                "%d without GPUs, %d that never ran)%s",
		                name, st->lines, st->steps, st->no_gpus, st->not_run,
		                st->no_gpus ? "; sacct shows GPUs only where slurm.conf's "
		                "AccountingStorageTRES lists gres/gpu" : "");
		goto done;
	}
	fputs("submit_time_s,duration_s,gpus,nodes,job_id,partition,state,nodelist,wait_s,"
	      "timelimit_s\n", out);
	for (size_t i = 0; i < nrec; i++) {
		const struct rec *r = &recs[i];

		fprintf(out, "%.0f,%.0f,%d,", r->submit - t0, r->elapsed, (int)r->gpus);
		if (r->nodes > 0)
			fprintf(out, "%d", (int)r->nodes);
		fputc(',', out);
		csv_field(out, r->jobid);
		fputc(',', out);
		csv_field(out, r->partition);
		fputc(',', out);
		csv_field(out, r->state);
		fputc(',', out);
		csv_field(out, r->nodelist);
		fprintf(out, ",%.0f,", r->start > r->submit ? r->start - r->submit : 0.0);
		if (r->timelimit >= 0)
			fprintf(out, "%.0f", r->timelimit);
		fputc('\n', out);
	}
	st->jobs = (int32_t)nrec;
	if (fflush(out) || ferror(out))
		rc = gp__errorf(err, GP_EIO, "writing the trace: %s", strerror(errno));
done:
	free(recs);
	free(fld);
	free(copy);
	return rc;
}
