/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hostlist.c - the one host-list expander and compressor (model.h):
 * libslurm expands, this checks every name the same way for every caller,
 * and maps names to node indices; and node names back to a ranged list. */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "slurm_hostlist.h"

#include "model.h"

/* The first character in a bracket of list that is not a digit, '-' or
 * ',' (NULL: none).  libslurm reads such junk as part of a range and
 * expands it: "n[0l-16]" names n00 to n16, and
 * "g[00\x8d-9121][00gr\x8d-9121][00grff-9120]" 7.6e11 hosts, hours of
 * expansion before anything can count them (found by the live fuzz
 * target). */
const char *gp__hostlist_junk(const char *list)
{
	const char *p;
	bool in = false;

	for (p = list; p && *p; p++) {
		if (*p == '[')
			in = true;
		else if (*p == ']')
			in = false;
		else if (in && !(*p >= '0' && *p <= '9') && *p != '-' && *p != ',')
			return p;
	}
	return NULL;
}

/* How many names a host list expands to, counted without expanding it:
 * libslurm builds every range before anything can check its size, so
 * "n[0-88000000000]" kept it busy for minutes (found by the gres_conf
 * fuzz target).  Counts names separated by top-level commas, each the
 * product of its bracket expressions ("r[1-2]n[01-04]" is 8), a bracket
 * the sum of its "A" and "A-B" items.  Returns false once the count passes
 * max, and for a bracket holding anything but digits, '-' and ','
 * (gp__hostlist_junk: libslurm would read it as ranges); an unclosed
 * bracket is left to libslurm, which passes it through as one name. */
bool gp__hostlist_within(const char *list, unsigned long long max)
{
	unsigned long long total = 0, name = 1;
	const char *p;

	if (gp__hostlist_junk(list))
		return false;
	for (p = list;; p++) {
		if (*p == '[') {
			unsigned long long sum = 0;

			for (p++; *p && *p != ']';) {
				unsigned long long a = 0, b;
				int digits = 0;

				/* ',', or a '-' without its end (junk was refused
				 * above) */
				if (*p < '0' || *p > '9') {
					p++;
					continue;
				}
				for (; *p >= '0' && *p <= '9' && digits < 19; p++, digits++)
					a = a * 10 + (unsigned long long)(*p - '0');
				if (*p >= '0' && *p <= '9')
					return false; /* 19+ digits: too many names */
				b = a;
				if (*p == '-' && p[1] >= '0' && p[1] <= '9') {
					for (b = 0, digits = 0, p++; *p >= '0' && *p <= '9' && digits < 19;
					     p++, digits++)
						b = b * 10 + (unsigned long long)(*p - '0');
					if (*p >= '0' && *p <= '9')
						return false;
				}
				if (b >= a && (sum += b - a + 1) > max)
					return false;
			}
			if (*p != ']')
				return true; /* libslurm's to judge */
			name = sum ? name * sum : name;
			if (name > max)
				return false;
		} else if (*p == ',' || !*p) {
			if ((total += name) > max)
				return false;
			name = 1;
			if (!*p)
				return true;
		}
	}
}

/* Ranges per piece a long bracket is expanded in (expand_piece). */
#define HL_CHUNK 64

/* Every name of one piece of a host list, in order, to fn; what and list
 * for the messages. */
static int expand_piece(const char *what, const char *list, const char *piece,
                        gp__host_fn fn, void *arg, gp_error_t *err)
{
	gp_hostlist_t hl = slurm_hostlist_create(piece);
	char *h;
	int rc = GP_OK;

	if (!hl)
		return gp__errorf(err, GP_EINVAL, "%s: '%.80s%s' is not a valid host list", what, list,
		                  strlen(list) > 80 ? "..." : "");
	while ((h = slurm_hostlist_shift(hl)) != NULL) {
		if (strlen(h) >= GP_NAME_MAX)
			rc = gp__errorf(err, GP_EINVAL, "%s: name '%.40s...' is longer than %d characters",
			                what, h, GP_NAME_MAX - 1);
		/* libslurm passes an unbalanced range through as a name */
		else if (!*h || strpbrk(h, "[]\","))
			rc = gp__errorf(err, GP_EINVAL, "%s: '%.80s%s' is not a valid host list", what,
			                list, strlen(list) > 80 ? "..." : "");
		else
			rc = fn(arg, h, err);
		free(h);
		if (rc)
			break;
	}
	slurm_hostlist_destroy(hl);
	return rc;
}

/*
 * Every name of list, in order, to fn, libslurm expanding it piece by
 * piece: each item between top-level separators (',', ' ' and '\t', as
 * libslurm splits them; not '\n': "n1\nn[2-3]" is two names to it), and
 * an item of one bracket in pieces of
 * HL_CHUNK of its ranges.  slurm_hostlist_shift() moves every remaining
 * range each time it empties one (src/common/hostlist.c hostlist_shift),
 * so a list of n scattered names, n ranges, took O(n^2): 5 ms for the
 * 8,192 of every other node of a 16,384-node site (bench_job_submit),
 * under slurmctld's job write lock.  The public API has no iterator.
 */
static int expand_pieces(const char *what, const char *list, gp__host_fn fn, void *arg,
                         gp_error_t *err)
{
	size_t len = strlen(list), i = 0, n, k;
	char *buf = malloc(len + 1);
	int rc = GP_OK;

	if (!buf)
		return gp__errorf(err, GP_ENOMEM, "%s: out of memory", what);
	while (i < len && rc == GP_OK) {
		const char *item, *open, *close;
		int depth = 0, brackets = 0, ranges = 1;

		while (i < len && list[i] && strchr(", \t", list[i]))
			i++;
		item = list + i;
		for (n = 0; i + n < len; n++) {
			char ch = item[n];

			if (ch == '[' && depth++ == 0)
				brackets++;
			else if (ch == ']' && depth > 0)
				depth--;
			else if (depth == 0 && ch && strchr(", \t", ch))
				break;
			else if (depth > 0 && ch == ',')
				ranges++;
		}
		i += n;
		if (!n)
			continue;
		open = memchr(item, '[', n);
		close = open ? memchr(open, ']', n - (size_t)(open - item)) : NULL;
		if (brackets != 1 || depth || ranges <= HL_CHUNK || !close) {
			memcpy(buf, item, n);
			buf[n] = '\0';
			rc = expand_piece(what, list, buf, fn, arg, err);
			continue;
		}
		/* prefix[r1,...,r64]suffix, prefix[r65,...]suffix, ... */
		{
			size_t pre = (size_t)(open - item) + 1, suf_at = (size_t)(close - item);
			const char *r = open + 1;

			while (rc == GP_OK && r < close) {
				size_t used = pre;

				memcpy(buf, item, pre);
				for (k = 0; k < HL_CHUNK && r < close; k++) {
					const char *e = memchr(r, ',', (size_t)(close - r));
					size_t rl = e ? (size_t)(e - r) : (size_t)(close - r);

					if (k)
						buf[used++] = ',';
					memcpy(buf + used, r, rl);
					used += rl;
					r += rl + (e ? 1 : 0);
				}
				memcpy(buf + used, item + suf_at, n - suf_at);
				used += n - suf_at;
				buf[used] = '\0';
				rc = expand_piece(what, list, buf, fn, arg, err);
			}
		}
	}
	free(buf);
	return rc;
}

int gp__hostlist_each(const char *what, const char *list, int32_t max, gp__host_fn fn,
                      void *arg, gp_error_t *err)
{
	gp_hostlist_t hl;
	const char *junk;
	int count;

	if (!list || !*list)
		return gp__errorf(err, GP_EINVAL, "%s: empty host list", what);
	if ((junk = gp__hostlist_junk(list)) != NULL)
		return gp__errorf(err, GP_EINVAL, "%s: '%.80s%s' is not a valid host list: '%c' "
		                  "in a bracket (only numbers, ranges A-B and commas)", what, list,
		                  strlen(list) > 80 ? "..." : "",
		                  *junk >= ' ' && *junk < 127 ? *junk : '?');
	if (max < 0 || !gp__hostlist_within(list, (unsigned long long)max))
		return gp__errorf(err, GP_ELIMIT, "%s: '%.80s%s' names more than %d hosts", what,
		                  list, strlen(list) > 80 ? "..." : "", (int)max);
	hl = slurm_hostlist_create(list);
	if (!hl)
		return gp__errorf(err, GP_EINVAL, "%s: '%.80s%s' is not a valid host list", what, list,
		                  strlen(list) > 80 ? "..." : "");
	count = slurm_hostlist_count(hl);
	slurm_hostlist_destroy(hl);
	if (count > max)
		return gp__errorf(err, GP_ELIMIT, "%s: '%.80s%s' names more than %d hosts", what,
		                  list, strlen(list) > 80 ? "..." : "", (int)max);
	/* the whole list was read once, for its validity and its count; its
	 * names come piece by piece */
	return expand_pieces(what, list, fn, arg, err);
}

typedef struct nodes_acc {
	const gp_cluster_t *c;
	const char *what;
	int32_t *v;
	int32_t n, cap;
	uint8_t *seen;          /* bit per node: already in the list */
} nodes_acc_t;

static int nodes_add(void *arg, const char *name, gp_error_t *err)
{
	nodes_acc_t *a = arg;
	int32_t i = gp__node_find(a->c, name);

	if (i < 0)
		return gp__errorf(err, GP_ENOENT, "%s: unknown node '%s'", a->what, name);
	if (a->seen[i >> 3] & (1u << (i & 7)))
		return GP_OK;
	a->seen[i >> 3] |= (uint8_t)(1u << (i & 7));
	if (a->n == a->cap) {
		int32_t nc = a->cap ? a->cap * 2 : 16;
		int32_t *nv = realloc(a->v, (size_t)nc * sizeof(*nv));

		if (!nv)
			return gp__errorf(err, GP_ENOMEM, "out of memory");
		a->v = nv;
		a->cap = nc;
	}
	a->v[a->n++] = i;
	return GP_OK;
}

int gp__hostlist_nodes(const gp_cluster_t *c, const char *what, const char *list, int32_t max,
                       int32_t **out, int32_t *n, gp_error_t *err)
{
	nodes_acc_t a = { .c = c, .what = what };
	int rc;

	*out = NULL;
	*n = 0;
	a.seen = calloc((size_t)c->nnodes / 8 + 1, 1);
	if (!a.seen)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	rc = gp__hostlist_each(what, list, max, nodes_add, &a, err);
	free(a.seen);
	if (rc) {
		free(a.v);
		return rc;
	}
	*out = a.v;
	*n = a.n;
	return GP_OK;
}

char *gp__hostlist_ranged_names(char *const *names, int32_t n)
{
	gp_hostlist_t hl = slurm_hostlist_create("");
	char *out;
	int32_t i;

	if (!hl)
		return NULL;
	for (i = 0; i < n; i++)
		slurm_hostlist_push_host(hl, names[i]);
	out = gp_hostlist_ranged(hl);
	slurm_hostlist_destroy(hl);
	return out;
}

char *gp__nodes_ranged(const gp_cluster_t *c, const int32_t *idx, int32_t n)
{
	char **names = malloc(((size_t)n + 1) * sizeof(*names)), *s;
	int32_t i;

	if (!names)
		return NULL;
	for (i = 0; i < n; i++)
		names[i] = (char *)c->nodes[idx[i]].name;
	s = gp__hostlist_ranged_names(names, n);
	free(names);
	return s;
}
