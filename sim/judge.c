/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * judge.c - an independent judge of placements for the simulator: a table
 * the user supplies that maps how a job is spread, its GPUs per node and
 * its communication class to a slowdown (format in sim.h and gpuplace(1),
 * SIMULATE).  It replaces the engine's cost model as the judge of every
 * policy alike, so gpuplace's presets are not graded by the function they
 * optimise.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/* A table line longer than this is an error (a judge row is ~40 bytes). */
#define JUDGE_LINE_MAX 1024
/* Rows in one table: far more than the spread classes x counts x GPUs per
 * node x classes anyone writes; bounds memory for a hostile file. */
#define JUDGE_ROWS_MAX 100000

struct judge_row {
	gp_sim_spread_t spread;
	int32_t count;            /* -1 = any */
	int32_t gpn;              /* -1 = any */
	gp_sim_comm_t comm;       /* GP_SIM_COMM_ANY = any */
	double slowdown;
	int32_t line;
};

struct gp_sim_judge {
	char path[256];
	struct judge_row *rows;
	int32_t nrows;
};

static const char *const spread_names[] = { "node", "domain", "leaf", "leaves", "spines" };
static const char *const comm_names[] = { "*", "dp", "tp", "pp", "ep" };

const char *gp__sim_spread_name(gp_sim_spread_t s)
{
	return s >= 0 && s <= GP_SIM_SPREAD_SPINES ? spread_names[s] : "?";
}

const char *gp__sim_comm_name(gp_sim_comm_t c)
{
	return c >= 0 && c <= GP_SIM_COMM_EP ? comm_names[c] : "?";
}

void gp__sim_judge_destroy(gp_sim_judge_t *j)
{
	if (!j)
		return;
	free(j->rows);
	free(j);
}

/* Split s at commas into at most max fields (in place); the count. */
static int split(char *s, char **f, int max)
{
	int n = 0;

	for (;;) {
		char *end = strchr(s, ',');

		if (n == max)
			return max + 1;
		f[n++] = s;
		if (!end)
			return n;
		*end = '\0';
		s = end + 1;
	}
}

/* Trim spaces and tabs at both ends, in place. */
static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

static int parse_row(const char *path, int32_t line, char *text, struct judge_row *r,
                     gp_error_t *err)
{
	char *f[5];
	long v;
	int n = split(text, f, 5), i;

	if (n != 5)
		return gp__errorf(err, GP_ECONFIG,
		                  "%s:%d: expected 5 fields (spread,count,gpus_per_node,comm,slowdown), "
		                  "found %d", path, line, n > 5 ? 6 : n);
	for (i = 0; i < 5; i++)
		f[i] = trim(f[i]);
	memset(r, 0, sizeof(*r));
	r->line = line;
	for (i = 0; i <= GP_SIM_SPREAD_SPINES; i++)
		if (!strcmp(f[0], spread_names[i]))
			break;
	if (i > GP_SIM_SPREAD_SPINES)
		return gp__errorf(err, GP_ECONFIG,
		                  "%s:%d: spread: '%s' is not node, domain, leaf, leaves or spines",
		                  path, line, f[0]);
	r->spread = (gp_sim_spread_t)i;
	if (!strcmp(f[1], "*")) {
		r->count = -1;
	} else if (gp__parse_long(f[1], 1, 1L << 20, &v)) {
		return gp__errorf(err, GP_ECONFIG, "%s:%d: count: '%s' is not '*' or an integer in "
		                  "[1, 1048576]", path, line, f[1]);
	} else {
		r->count = (int32_t)v;
	}
	if (!strcmp(f[2], "*")) {
		r->gpn = -1;
	} else if (gp__parse_long(f[2], 1, GP_MAX_GPUS_PER_NODE, &v)) {
		return gp__errorf(err, GP_ECONFIG, "%s:%d: gpus_per_node: '%s' is not '*' or an "
		                  "integer in [1, %d]", path, line, f[2], GP_MAX_GPUS_PER_NODE);
	} else {
		r->gpn = (int32_t)v;
	}
	for (i = 0; i <= GP_SIM_COMM_EP; i++)
		if (!strcmp(f[3], comm_names[i]))
			break;
	if (i > GP_SIM_COMM_EP)
		return gp__errorf(err, GP_ECONFIG, "%s:%d: comm: '%s' is not *, dp, tp, pp or ep",
		                  path, line, f[3]);
	r->comm = (gp_sim_comm_t)i;
	/* a slowdown below 1 would make a spread placement faster than the
	 * job alone on its ideal nodes; above 100 no site would run it */
	if (gp__parse_double(f[4], 1.0, 100.0, &r->slowdown))
		return gp__errorf(err, GP_ECONFIG, "%s:%d: slowdown: '%s' is not a number in [1, 100]",
		                  path, line, f[4]);
	return GP_OK;
}

int gp__sim_judge_load(const char *path, gp_sim_judge_t **out, gp_error_t *err)
{
	gp_sim_judge_t *j = NULL;
	char buf[JUDGE_LINE_MAX + 2];
	int32_t line = 0, cap = 0;
	bool header = false;
	FILE *f;
	int rc;

	*out = NULL;
	if (!(f = fopen(path, "r")))
		return gp__errorf(err, GP_EIO, "%s: %s", path, strerror(errno));
	if (!(j = calloc(1, sizeof(*j)))) {
		fclose(f);
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	}
	snprintf(j->path, sizeof(j->path), "%s", path);
	while (fgets(buf, sizeof(buf), f)) {
		size_t len = strlen(buf);
		char *s;

		line++;
		if (len > JUDGE_LINE_MAX) {
			rc = gp__errorf(err, GP_ECONFIG, "%s:%d: line longer than %d characters", path,
			                line, JUDGE_LINE_MAX);
			goto error;
		}
		s = trim(buf);
		if (!*s || *s == '#')
			continue;
		if (!header) {
			char want[] = "spread,count,gpus_per_node,comm,slowdown";
			char *p, *q;

			/* the header, spaces around the commas allowed */
			for (p = q = s; *p; p++)
				if (*p != ' ' && *p != '\t')
					*q++ = *p;
			*q = '\0';
			if (strcmp(s, want)) {
				rc = gp__errorf(err, GP_ECONFIG, "%s:%d: the first line must be the header "
				                "'%s', not '%.80s'", path, line, want, s);
				goto error;
			}
			header = true;
			continue;
		}
		if (j->nrows == JUDGE_ROWS_MAX) {
			rc = gp__errorf(err, GP_ECONFIG, "%s:%d: more than %d rows", path, line,
			                JUDGE_ROWS_MAX);
			goto error;
		}
		if (j->nrows == cap) {
			struct judge_row *nr;

			cap = cap ? 2 * cap : 16;
			if (!(nr = realloc(j->rows, (size_t)cap * sizeof(*nr)))) {
				rc = gp__errorf(err, GP_ENOMEM, "out of memory");
				goto error;
			}
			j->rows = nr;
		}
		if ((rc = parse_row(path, line, s, &j->rows[j->nrows], err)))
			goto error;
		j->nrows++;
	}
	if (ferror(f)) {
		rc = gp__errorf(err, GP_EIO, "%s: read error", path);
		goto error;
	}
	if (j->nrows == 0) {
		rc = gp__errorf(err, GP_ECONFIG, "%s: no rows (after the header '%s')", path,
		                "spread,count,gpus_per_node,comm,slowdown");
		goto error;
	}
	fclose(f);
	*out = j;
	return GP_OK;
error:
	fclose(f);
	gp__sim_judge_destroy(j);
	return rc;
}

int gp__sim_judge_slowdown(const gp_sim_judge_t *j, gp_sim_spread_t spread, int32_t count,
                           int32_t gpn, gp_sim_comm_t comm, double *slowdown, gp_error_t *err)
{
	int32_t i;

	for (i = 0; i < j->nrows; i++) {
		const struct judge_row *r = &j->rows[i];

		if (r->spread == spread && (r->count < 0 || r->count == count) &&
		    (r->gpn < 0 || r->gpn == gpn) && (r->comm == GP_SIM_COMM_ANY || r->comm == comm)) {
			*slowdown = r->slowdown;
			return GP_OK;
		}
	}
	return gp__errorf(err, GP_ENOENT,
	                  "%s: no row for spread=%s count=%d gpus_per_node=%d comm=%s (add one, "
	                  "or a row with '*' fields)", j->path, gp__sim_spread_name(spread), count,
	                  gpn, gp__sim_comm_name(comm));
}
