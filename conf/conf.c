/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conf.c - the Slurm-style line reader every configuration loader uses,
 * strict value helpers, host list expansion and a small name table.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"

int gp__resize(void *arrp, size_t old_nelem, size_t nelem, size_t sz)
{
	void **pp = arrp;
	void *p;

	if (nelem == 0)
		nelem = 1;
	if (nelem > SIZE_MAX / sz)
		return GP_ENOMEM;
	p = realloc(*pp, nelem * sz);
	if (!p)
		return GP_ENOMEM;
	if (nelem > old_nelem)
		memset((char *)p + old_nelem * sz, 0, (nelem - old_nelem) * sz);
	*pp = p;
	return GP_OK;
}

int gp__grow(void *arrp, size_t n, size_t sz)
{
	if (n != 0 && (n & (n - 1)) != 0)
		return GP_OK; /* capacity is the next power of two: room left */
	return gp__resize(arrp, n, n ? 2 * n : 1, sz);
}

int gp__conf_err(gp_error_t *err, const gp__conf_loc_t *loc, const char *key,
                 const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return gp__errorf(err, GP_ECONFIG, "%s:%d: %s: %s", loc->path, loc->line, key, msg);
}

bool gp__conf_is(const gp__conf_kv_t *kv, const char *key)
{
	return strcasecmp(kv->key, key) == 0;
}

/* ---- the reader ----------------------------------------------------------- */

typedef struct reader {
	gp__conf_paths_t *paths;
	const char *dir;
	gp__conf_line_fn fn;
	void *arg;
	gp__conf_kv_t *kv;
	int kvcap;
	bool last_wins;         /* a key twice on a line: the last is used (else an error) */
	gp_cluster_t *warn;     /* with last_wins: where that is said, NULL = silently */
	const char *open[GP_CONF_INCLUDE_DEPTH]; /* files being read, outermost first */
} reader_t;

const char *gp__conf_pool_add(gp__conf_paths_t *pool, const char *path)
{
	char *s;

	if (gp__grow(&pool->paths, (size_t)pool->npaths, sizeof(*pool->paths)))
		return NULL;
	s = strdup(path);
	if (!s)
		return NULL;
	pool->paths[pool->npaths++] = s;
	return s;
}

void gp__conf_paths_free(gp__conf_paths_t *pool)
{
	int i;

	if (!pool)
		return;
	for (i = 0; i < pool->npaths; i++)
		free(pool->paths[i]);
	free(pool->paths);
	pool->paths = NULL;
	pool->npaths = 0;
}

/* Whole file into a NUL-terminated buffer; returns 0 or an errno value. */
int gp__conf_slurp(const char *path, char **out, size_t *len)
{
	gp__file_t f;

	*out = NULL;
	if (gp__file_read(path, GP_CONF_MAX_FILE, GP_FILE_REGULAR, &f, NULL))
		return f.sys_errno;
	*out = f.buf;
	*len = f.len;
	return 0;
}

static int read_file(reader_t *r, const char *name, int depth, bool optional,
                     const gp__conf_loc_t *from, gp_error_t *err);

/* slurp() from the memory files of the pool: a copy of the entry whose
 * mem_dir/name is path, else ENOENT. */
static int slurp_mem(const gp__conf_paths_t *pool, const char *path, char **out, size_t *len)
{
	size_t dl = strlen(pool->mem_dir);
	int i;

	*out = NULL;
	if (strncmp(path, pool->mem_dir, dl) || path[dl] != '/')
		return ENOENT;
	for (i = 0; i < pool->nmem; i++)
		if (!strcmp(path + dl + 1, pool->mem[i].name)) {
			if (pool->mem[i].len > GP_CONF_MAX_FILE)
				return EFBIG;
			*out = malloc(pool->mem[i].len + 1);
			if (!*out)
				return ENOMEM;
			memcpy(*out, pool->mem[i].text, pool->mem[i].len);
			(*out)[pool->mem[i].len] = '\0';
			*len = pool->mem[i].len;
			return 0;
		}
	return ENOENT;
}

int gp__conf_pool_slurp(const gp__conf_paths_t *pool, const char *path, char **out, size_t *len)
{
	return pool && pool->mem ? slurp_mem(pool, path, out, len) : gp__conf_slurp(path, out, len);
}

bool gp__conf_pool_exists(const gp__conf_paths_t *pool, const char *path)
{
	size_t dl;
	int i;

	if (!pool || !pool->mem)
		return access(path, F_OK) == 0;
	dl = strlen(pool->mem_dir);
	if (strncmp(path, pool->mem_dir, dl) || path[dl] != '/')
		return false;
	for (i = 0; i < pool->nmem; i++)
		if (!strcmp(path + dl + 1, pool->mem[i].name))
			return true;
	return false;
}

/* Order a line's keys for the duplicate check: ix[0..n-1] sorted by
 * case-insensitive name, then position (insertion sort, stable: a line
 * holds a few dozen keys; no file-scope comparison context, as the
 * plugin's threads and the library's callers read files concurrently). */
static void kv_sort(const gp__conf_kv_t *kv, int *ix, int n)
{
	int i, j, v;

	for (i = 1; i < n; i++) {
		v = ix[i];
		for (j = i; j > 0 && strcasecmp(kv[ix[j - 1]].key, kv[v].key) > 0; j--)
			ix[j] = ix[j - 1];
		ix[j] = v;
	}
}

/*
 * A key given more than once on one line.  Slurm logs "KEY specified more
 * than once, latest value used" and goes on (parse_config.c,
 * _handle_common / _handle_pointer): with r->last_wins that is what
 * happens here, as a warning naming the key, both values and the line;
 * without it (gpuplace.conf, which is gpuplace's own) it is an error.
 * The later value takes the first one's place, so a callback sees each
 * key once and the line's first key stays first.
 */
static int dedup_keys(reader_t *r, gp__conf_line_t *line, gp_error_t *err)
{
	int *ix, i, j, g, n = line->n, out;
	bool any = false;

	if (n < 2)
		return GP_OK;
	ix = malloc((size_t)n * sizeof(*ix));
	if (!ix)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	for (i = 0; i < n; i++)
		ix[i] = i;
	kv_sort(r->kv, ix, n);
	/* groups of equal keys, each in line order */
	for (g = 0; g < n; g = j) {
		gp__conf_kv_t *first = &r->kv[ix[g]];

		for (j = g + 1; j < n && !strcasecmp(r->kv[ix[j]].key, first->key); j++)
			;
		if (j - g == 1)
			continue;
		if (!r->last_wins) {
			int rc = gp__conf_err(err, &line->loc, r->kv[ix[g + 1]].key,
			                      "given twice on this line ('%s' and '%s')", first->val,
			                      r->kv[ix[g + 1]].val);

			free(ix);
			return rc;
		}
		if (r->warn && gp__cluster_warnf(r->warn, "%s:%d: %s: given twice on this line ('%s' "
		                                 "and '%s'); the last is used, as Slurm uses it",
		                                 line->loc.path, line->loc.line,
		                                 r->kv[ix[j - 1]].key, first->val,
		                                 r->kv[ix[j - 1]].val)) {
			free(ix);
			return gp__errorf(err, GP_ENOMEM, "out of memory");
		}
		first->val = r->kv[ix[j - 1]].val;
		for (i = g + 1; i < j; i++)
			r->kv[ix[i]].val = NULL; /* dropped below */
		any = true;
	}
	free(ix);
	if (!any)
		return GP_OK;
	for (i = out = 0; i < n; i++)
		if (r->kv[i].val)
			r->kv[out++] = r->kv[i];
	line->n = out;
	return GP_OK;
}

/*
 * Split a logical line (comments removed, continuations joined; modified in
 * place) into Key=Value pairs and hand it on, or follow an Include.
 *
 * Pairs are read as Slurm's parser reads them (parse_config.c,
 * keyvalue_pattern): white space may stand on either side of '=' ("Key =
 * Value", as configuration-management tools write it); the value is the
 * next word, which may hold "double quoted" spaces; a key with '=' and no
 * word after it on the line is empty.
 */
static int do_line(reader_t *r, char *s, const gp__conf_loc_t *loc, int depth,
                   gp_error_t *err)
{
	gp__conf_line_t line = { .loc = *loc };
	char *p = s;
	int rc;

	for (;;) {
		char *key, *val, *w;
		bool inq = false;

		while (*p && isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		key = p;
		while (*p && !isspace((unsigned char)*p) && *p != '=' && *p != '"')
			p++;
		if (p > key && line.n == 0 && (p - key) == 7 && !strncasecmp(key, "Include", 7) &&
		    isspace((unsigned char)*p)) {
			char *q = p, *fname;

			while (*q && isspace((unsigned char)*q))
				q++;
			if (*q != '=') {
				/* the file name: the rest of the line, unquoted, trimmed */
				fname = q;
				for (w = fname; *q; q++)
					if (*q != '"')
						*w++ = *q;
				*w = '\0';
				while (w > fname && isspace((unsigned char)w[-1]))
					*--w = '\0';
				key[7] = '\0';
				if (!*fname)
					return gp__conf_err(err, loc, "Include", "missing file name");
				if (depth + 1 >= GP_CONF_INCLUDE_DEPTH)
					return gp__conf_err(err, loc, "Include",
					                    "'%s' nested more than %d deep", fname,
					                    GP_CONF_INCLUDE_DEPTH);
				return read_file(r, fname, depth + 1, false, loc, err);
			}
		}
		{
			char *ke = p, *q = p;

			while (*q && isspace((unsigned char)*q))
				q++;
			if (ke == key || *q != '=') {
				/* not Key=Value: name the word as written */
				while (*p && !isspace((unsigned char)*p))
					p++;
				*p = '\0';
				return gp__conf_err(err, loc, key, "expected Key=Value");
			}
			*ke = '\0';
			p = q + 1;
		}
		while (*p && isspace((unsigned char)*p))
			p++;
		/* the value: one word, quotes removed, quoted spaces kept */
		val = w = p;
		for (; *p; p++) {
			if (*p == '"') {
				inq = !inq;
				continue;
			}
			if (!inq && isspace((unsigned char)*p))
				break;
			*w++ = *p;
		}
		if (*p)
			p++;
		*w = '\0';
		if (inq)
			return gp__conf_err(err, loc, key, "unterminated quote");
		if (line.n == r->kvcap) {
			if (gp__resize(&r->kv, (size_t)r->kvcap, (size_t)r->kvcap * 2 + 8,
			               sizeof(*r->kv)))
				return gp__errorf(err, GP_ENOMEM, "out of memory");
			r->kvcap = r->kvcap * 2 + 8;
		}
		r->kv[line.n].key = key;
		r->kv[line.n].val = val;
		line.n++;
	}
	if (line.n == 0)
		return GP_OK;
	if ((rc = dedup_keys(r, &line, err)))
		return rc;
	line.kv = r->kv;
	rc = r->fn(r->arg, &line, err);
	return rc;
}

static int read_file(reader_t *r, const char *name, int depth, bool optional,
                     const gp__conf_loc_t *from, gp_error_t *err)
{
	char pathbuf[GP_PATH_MAX];
	gp__conf_loc_t loc;
	const char *path;
	char *buf = NULL, *lb = NULL, *p, *end;
	size_t len = 0, lblen = 0;
	int e, rc = GP_OK, lineno = 0;

	if (name[0] == '/')
		e = snprintf(pathbuf, sizeof(pathbuf), "%s", name);
	else
		e = snprintf(pathbuf, sizeof(pathbuf), "%s/%s", r->dir, name);
	if (e < 0 || (size_t)e >= sizeof(pathbuf)) {
		if (from)
			return gp__conf_err(err, from, "Include", "path '%s' is too long", name);
		return gp__errorf(err, GP_ECONFIG, "%s/%s: path is too long", r->dir, name);
	}
	/* an Include of a file that is being read (itself, or a file that
	 * includes it) would never end: say so at the Include line */
	for (e = 0; from && e < depth; e++)
		if (!strcmp(r->open[e], pathbuf))
			return gp__conf_err(err, from, "Include", "'%s' includes itself (%s is "
			                    "already being read%s)", name, pathbuf,
			                    e == depth - 1 ? "" : " further up");
	path = gp__conf_pool_add(r->paths, pathbuf);
	if (!path)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	r->open[depth] = path;
	e = r->paths->mem ? slurp_mem(r->paths, path, &buf, &len) : gp__conf_slurp(path, &buf, &len);
	if (e) {
		if (e == ENOENT && optional)
			return GP_CONF_ABSENT;
		if (e == ENOMEM)
			return gp__errorf(err, GP_ENOMEM, "out of memory");
		if (from)
			return gp__conf_err(err, from, "Include", "cannot read '%s': %s", path,
			                    e == EINVAL ? "not a regular file" : strerror(e));
		return gp__errorf(err, GP_ECONFIG, "%s: cannot read: %s", path,
		                  e == EINVAL ? "not a regular file" : strerror(e));
	}
	if ((p = memchr(buf, '\0', len)) != NULL) {
		for (end = buf, lineno = 1; end < p; end++)
			lineno += *end == '\n';
		loc.path = path;
		loc.line = lineno;
		rc = gp__conf_err(err, &loc, "(line)", "contains a NUL byte");
		free(buf);
		return rc;
	}
	lb = malloc(len + 1);
	if (!lb) {
		free(buf);
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	}
	loc.path = path;
	loc.line = 0;
	p = buf;
	while (*p) {
		char *q;
		bool inq = false, cont;

		end = strchr(p, '\n');
		if (!end)
			end = p + strlen(p);
		lineno++;
		if (lblen == 0)
			loc.line = lineno;
		/* comment: '#' outside quotes */
		for (q = p; q < end; q++) {
			if (*q == '"')
				inq = !inq;
			else if (*q == '#' && !inq)
				break;
		}
		while (q > p && isspace((unsigned char)q[-1]))
			q--;
		cont = q > p && q[-1] == '\\';
		if (cont)
			q--;
		memcpy(lb + lblen, p, (size_t)(q - p));
		lblen += (size_t)(q - p);
		/* As Slurm's parser does, the next line is joined right after the
		 * backslash ("a=1,\" + "b=2" is "a=1,b=2"); white space before the
		 * backslash or at the start of the next line separates pairs. */
		if (!cont) {
			lb[lblen] = '\0';
			rc = do_line(r, lb, &loc, depth, err);
			lblen = 0;
			if (rc)
				break;
		}
		p = *end ? end + 1 : end;
	}
	if (!rc && lblen) {
		lb[lblen] = '\0';
		rc = do_line(r, lb, &loc, depth, err);
	}
	free(lb);
	free(buf);
	return rc;
}

int gp__conf_read_slurm(gp__conf_paths_t *paths, const char *dir, const char *name,
                        bool optional, gp_cluster_t *warn, gp__conf_line_fn fn, void *arg,
                        gp_error_t *err)
{
	reader_t r = { .paths = paths, .dir = dir, .fn = fn, .arg = arg,
		       .last_wins = true, .warn = warn };
	int rc;

	rc = read_file(&r, name, 0, optional, NULL, err);
	free(r.kv);
	return rc;
}

int gp__conf_read(gp__conf_paths_t *paths, const char *dir, const char *name,
                  bool optional, gp__conf_line_fn fn, void *arg, gp_error_t *err)
{
	reader_t r = { .paths = paths, .dir = dir, .fn = fn, .arg = arg };
	int rc;

	rc = read_file(&r, name, 0, optional, NULL, err);
	free(r.kv);
	return rc;
}

/* ---- values --------------------------------------------------------------- */

static int number_err(const gp__conf_loc_t *loc, const char *key, const char *val,
                      int rc, double min, double max, gp_error_t *err)
{
	double v;
	char *end;

	if (rc == GP_EINVAL)
		return gp__conf_err(err, loc, key, "'%s' is not a number", val);
	v = strtod(val, &end);
	if (v < 0 && min >= 0)
		return gp__conf_err(err, loc, key, "'%s' is negative", val);
	return gp__conf_err(err, loc, key, "'%s' is out of range [%g, %g]", val, min, max);
}

int gp__conf_double(const gp__conf_loc_t *loc, const char *key, const char *val,
                    double min, double max, double *out, gp_error_t *err)
{
	int rc = gp__parse_double(val, min, max, out);

	return rc ? number_err(loc, key, val, rc, min, max, err) : GP_OK;
}

int gp__conf_long(const gp__conf_loc_t *loc, const char *key, const char *val,
                  long min, long max, long *out, gp_error_t *err)
{
	int rc = gp__parse_long(val, min, max, out);

	return rc ? number_err(loc, key, val, rc, (double)min, (double)max, err) : GP_OK;
}

int gp__conf_str(const gp__conf_loc_t *loc, const char *key, const char *val,
                 char *buf, size_t size, bool empty_ok, gp_error_t *err)
{
	size_t n = strlen(val);

	if (!n && !empty_ok)
		return gp__conf_err(err, loc, key, "empty value");
	if (n >= size)
		return gp__conf_err(err, loc, key, "'%.40s...' is longer than %zu characters",
		                    val, size - 1);
	memcpy(buf, val, n + 1);
	return GP_OK;
}

/* ---- host lists ------------------------------------------------------------- */

/* The shared expander (gp__hostlist_each) with "path:line: key" before
 * its messages; its own failures are configuration errors. */
int gp__conf_hostlist(const gp__conf_loc_t *loc, const char *key, const char *list,
                      gp__conf_host_fn fn, void *arg, gp_error_t *err)
{
	char what[GP_PATH_MAX + 96];
	int rc;

	snprintf(what, sizeof(what), "%s:%d: %s", loc->path, loc->line, key);
	rc = gp__hostlist_each(what, list, GP_CONF_MAX_HOSTS, fn, arg, err);
	return rc == GP_EINVAL || rc == GP_ELIMIT ? GP_ECONFIG : rc;
}

int gp__conf_nodes(const gp_cluster_t *c, const gp__conf_loc_t *loc,
                   const char *key, const char *list, int32_t **out,
                   int32_t *n, gp_error_t *err)
{
	char what[GP_PATH_MAX + 96];
	int rc;

	snprintf(what, sizeof(what), "%s:%d: %s", loc->path, loc->line, key);
	rc = gp__hostlist_nodes(c, what, list, GP_CONF_MAX_HOSTS, out, n, err);
	return rc == GP_EINVAL || rc == GP_ELIMIT || rc == GP_ENOENT ? GP_ECONFIG : rc;
}

/* ---- warnings --------------------------------------------------------------- */

int gp__cluster_warnf(gp_cluster_t *c, const char *fmt, ...)
{
	char buf[1024], *s;
	va_list ap;

	if (c->nwarnings > GP_CONF_MAX_WARNINGS)
		return GP_OK;
	if (c->nwarnings == GP_CONF_MAX_WARNINGS) {
		snprintf(buf, sizeof(buf), "more than %d warnings: the rest are not recorded",
		         GP_CONF_MAX_WARNINGS);
	} else {
		va_start(ap, fmt);
		vsnprintf(buf, sizeof(buf), fmt, ap);
		va_end(ap);
	}
	/* exact size: other loaders (JSON) allocate this array exactly too */
	if (gp__resize(&c->warnings, (size_t)c->nwarnings, (size_t)c->nwarnings + 1,
	               sizeof(*c->warnings)))
		return GP_ENOMEM;
	s = strdup(buf);
	if (!s)
		return GP_ENOMEM;
	c->warnings[c->nwarnings++] = s;
	return GP_OK;
}

int gp_cluster_warning_count(const gp_cluster_t *c)
{
	return c ? c->nwarnings : 0;
}

const char *gp_cluster_warning(const gp_cluster_t *c, int i)
{
	if (!c || i < 0 || i >= c->nwarnings)
		return NULL;
	return c->warnings[i];
}

