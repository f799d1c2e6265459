/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * orig_file.c - see orig_file.h.  No Slurm calls.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orig_file.h"

#define MAGIC "gpuplace-orig"

enum kind { K_U, K_I, K_D, K_B, K_S };

struct key {
	const char *name;
	enum kind kind;
	size_t off;        /* of the field in gp_orig_rec_t (K_S: the index) */
	size_t width;      /* K_U: bytes of the field */
};

#define U(n, f) { n, K_U, offsetof(gp_orig_rec_t, f), sizeof(((gp_orig_rec_t *)0)->f) }
#define I(n, f) { n, K_I, offsetof(gp_orig_rec_t, f), 0 }
#define B(n, f) { n, K_B, offsetof(gp_orig_rec_t, f), 0 }
#define S(n, i) { n, K_S, i, 0 }
static const struct key keys[] = {
	U("ref", ref), U("job", job_id),
	B("kept", kept), B("lic", lic), B("sw", sw), B("counts", counts), B("gpus", gpus),
	B("frozen", frozen), B("pinned", pinned), B("every_refresh", every_refresh),
	B("moved", moved),
	I("decided", decided), I("updated", updated), I("checked", checked),
	{ "wait", K_D, offsetof(gp_orig_rec_t, wait_s), 0 },
	U("uid", uid),
	U("min_nodes", min_nodes), U("max_nodes", max_nodes), U("time_limit", time_limit),
	U("num_tasks", num_tasks), U("shared", shared), U("ntasks_per_node", ntasks_per_node),
	U("cpus_per_task", cpus_per_task), U("pn_min_cpus", pn_min_cpus),
	U("pn_min_memory", pn_min_memory),
	S("hints", GP_ORIG_HINTS), S("tres_per_job", GP_ORIG_TRES_PER_JOB),
	S("tres_per_node", GP_ORIG_TRES_PER_NODE), S("tres_per_socket", GP_ORIG_TRES_PER_SOCKET),
	S("tres_per_task", GP_ORIG_TRES_PER_TASK), S("cpus_per_tres", GP_ORIG_CPUS_PER_TRES),
	S("mem_per_tres", GP_ORIG_MEM_PER_TRES), S("reservation", GP_ORIG_RESERVATION),
	S("partition", GP_ORIG_PARTITION), S("req_nodes", GP_ORIG_REQ_NODES),
	S("exc_nodes", GP_ORIG_EXC_NODES), S("features", GP_ORIG_FEATURES),
	S("licenses", GP_ORIG_LICENSES), S("name", GP_ORIG_NAME),
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

void gp_orig_clear(gp_orig_rec_t *r)
{
	int i;

	if (!r)
		return;
	for (i = 0; i < GP_ORIG_NSTR; i++)
		free(r->str[i]);
	memset(r, 0, sizeof(*r));
}

static uint64_t get_u(const gp_orig_rec_t *r, const struct key *k)
{
	const char *p = (const char *)r + k->off;

	switch (k->width) {
	case 2: return *(const uint16_t *)(const void *)p;
	case 4: return *(const uint32_t *)(const void *)p;
	default: return *(const uint64_t *)(const void *)p;
	}
}

static void put_u(gp_orig_rec_t *r, const struct key *k, uint64_t v)
{
	char *p = (char *)r + k->off;

	switch (k->width) {
	case 2: *(uint16_t *)(void *)p = (uint16_t)v; break;
	case 4: *(uint32_t *)(void *)p = (uint32_t)v; break;
	default: *(uint64_t *)(void *)p = v; break;
	}
}

/* Append s to the growing buffer *b (len *n, room *cap); false: no memory. */
static bool add(char **b, size_t *n, size_t *cap, const char *s, size_t len)
{
	if (*n + len + 1 > *cap) {
		size_t c = (*cap ? *cap : 256);
		char *g;

		while (*n + len + 1 > c)
			c *= 2;
		if (!(g = realloc(*b, c)))
			return false;
		*b = g;
		*cap = c;
	}
	memcpy(*b + *n, s, len);
	*n += len;
	(*b)[*n] = '\0';
	return true;
}

char *gp_orig_format(const gp_orig_rec_t *r)
{
	static const char hex[] = "0123456789ABCDEF";
	char *b = NULL, w[64];
	size_t n = 0, cap = 0, i;
	bool ok;

	if (!r)
		return NULL;
	ok = add(&b, &n, &cap, MAGIC, strlen(MAGIC));
	for (i = 0; ok && i < NKEYS; i++) {
		const struct key *k = &keys[i];
		const char *p = (const char *)r + k->off;
		int len = 0;

		switch (k->kind) {
		case K_U:
			len = snprintf(w, sizeof(w), " %s=%llu", k->name,
			               (unsigned long long)get_u(r, k));
			break;
		case K_I:
			len = snprintf(w, sizeof(w), " %s=%lld", k->name,
			               (long long)*(const int64_t *)(const void *)p);
			break;
		case K_D:
			/* as the parser takes it: finite, not negative */
			len = snprintf(w, sizeof(w), " %s=%.17g", k->name,
			               isfinite(*(const double *)(const void *)p) &&
			               *(const double *)(const void *)p > 0 ?
			               *(const double *)(const void *)p : 0.0);
			break;
		case K_B:
			len = snprintf(w, sizeof(w), " %s=%d", k->name, *(const bool *)p ? 1 : 0);
			break;
		case K_S: {
			const unsigned char *s = (const unsigned char *)r->str[k->off];

			if (!s)
				continue;
			len = snprintf(w, sizeof(w), " %s=", k->name);
			ok = add(&b, &n, &cap, w, (size_t)len);
			for (; ok && *s; s++) {
				char e[3] = { '%', hex[*s >> 4], hex[*s & 15] };

				if (*s > ' ' && *s <= '~' && *s != '%')
					ok = add(&b, &n, &cap, (const char *)s, 1);
				else
					ok = add(&b, &n, &cap, e, 3);
			}
			continue;
		}
		}
		ok = add(&b, &n, &cap, w, (size_t)len);
	}
	if (!ok) {
		free(b);
		return NULL;
	}
	return b;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The percent-decoded copy of [v, v + len), NULL when an escape is bad
 * (*bad set) or memory is short (*bad clear). */
static char *decode(const char *v, size_t len, bool *bad)
{
	char *s = malloc(len + 1), *o = s;
	size_t i;

	*bad = false;
	if (!s)
		return NULL;
	for (i = 0; i < len; i++) {
		if (v[i] != '%') {
			*o++ = v[i];
			continue;
		}
		if (i + 2 >= len) {
			*bad = true;
			break;
		}
		{
			int hi = hexval(v[i + 1]), lo = hexval(v[i + 2]);

			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
				*bad = true; /* %00 would cut the string short */
				break;
			}
			*o++ = (char)(hi << 4 | lo);
			i += 2;
		}
	}
	if (*bad) {
		free(s);
		return NULL;
	}
	*o = '\0';
	return s;
}

static int fail(gp_orig_rec_t *r, char *err, size_t errlen, const char *key, const char *v,
                size_t vlen, const char *why)
{
	if (err && errlen)
		snprintf(err, errlen, "key '%s' value '%.*s': %s", key, (int)(vlen > 64 ? 64 : vlen),
		         v, why);
	gp_orig_clear(r);
	return -1;
}

int gp_orig_parse(const char *line, gp_orig_rec_t *r, char *err, size_t errlen)
{
	bool seen[NKEYS];
	const char *p;
	size_t i;

	if (!r)
		return -1;
	memset(r, 0, sizeof(*r));
	memset(seen, 0, sizeof(seen));
	if (!line || strncmp(line, MAGIC, strlen(MAGIC)) ||
	    (line[strlen(MAGIC)] != ' ' && line[strlen(MAGIC)] != '\0')) {
		if (err && errlen)
			snprintf(err, errlen, "not a record: it does not start with '%s'", MAGIC);
		return -1;
	}
	for (p = line + strlen(MAGIC); *p;) {
		const char *w, *eq, *v, *end;
		char name[32];
		size_t nlen, vlen;

		if (*p != ' ')
			return fail(r, err, errlen, "", p, strcspn(p, " "), "words are separated by one space");
		w = ++p;
		if (*w == ' ' || *w == '\0')
			return fail(r, err, errlen, "", w, 0, "words are separated by one space");
		end = w + strcspn(w, " ");
		eq = memchr(w, '=', (size_t)(end - w));
		if (!eq || eq == w)
			return fail(r, err, errlen, "", w, (size_t)(end - w), "not KEY=VALUE");
		nlen = (size_t)(eq - w);
		v = eq + 1;
		vlen = (size_t)(end - v);
		snprintf(name, sizeof(name), "%.*s", (int)(nlen < sizeof(name) - 1 ? nlen : sizeof(name) - 1), w);
		for (i = 0; i < NKEYS; i++)
			if (strlen(keys[i].name) == nlen && !strncmp(keys[i].name, w, nlen))
				break;
		if (i == NKEYS)
			return fail(r, err, errlen, name, v, vlen, "unknown key");
		if (seen[i])
			return fail(r, err, errlen, name, v, vlen, "given twice");
		seen[i] = true;
		{
			const struct key *k = &keys[i];
			char num[32], *e;

			if (k->kind != K_S) {
				if (vlen == 0 || vlen >= sizeof(num))
					return fail(r, err, errlen, name, v, vlen, "not a number");
				memcpy(num, v, vlen);
				num[vlen] = '\0';
			}
			errno = 0;
			switch (k->kind) {
			case K_U: {
				unsigned long long u;
				uint64_t max = k->width == 2 ? UINT16_MAX :
				               k->width == 4 ? UINT32_MAX : UINT64_MAX;

				if (num[0] < '0' || num[0] > '9')
					return fail(r, err, errlen, name, v, vlen, "not a whole number");
				u = strtoull(num, &e, 10);
				if (*e || errno || u > max)
					return fail(r, err, errlen, name, v, vlen,
					            "not a whole number in the field's range");
				put_u(r, k, (uint64_t)u);
				break;
			}
			case K_I: {
				long long l;

				if ((num[0] < '0' || num[0] > '9') &&
				    !(num[0] == '-' && num[1] >= '0' && num[1] <= '9'))
					return fail(r, err, errlen, name, v, vlen, "not a whole number");
				l = strtoll(num, &e, 10);
				if (*e || errno || e == num)
					return fail(r, err, errlen, name, v, vlen, "not a whole number");
				*(int64_t *)(void *)((char *)r + k->off) = (int64_t)l;
				break;
			}
			case K_D: {
				double d;

				/* decimal only: strtod also takes hex, inf and nan */
				if (num[0] < '0' || num[0] > '9' ||
				    strspn(num, "0123456789.eE+-") != vlen)
					return fail(r, err, errlen, name, v, vlen,
					            "not a finite number >= 0");
				d = strtod(num, &e);

				if (*e || e == num || !isfinite(d) || d < 0)
					return fail(r, err, errlen, name, v, vlen,
					            "not a finite number >= 0");
				*(double *)(void *)((char *)r + k->off) = d;
				break;
			}
			case K_B:
				if (vlen != 1 || (*v != '0' && *v != '1'))
					return fail(r, err, errlen, name, v, vlen, "not 0 or 1");
				*(bool *)((char *)r + k->off) = *v == '1';
				break;
			case K_S: {
				bool bad;
				char *s = decode(v, vlen, &bad);

				if (!s)
					return fail(r, err, errlen, name, v, vlen,
					            bad ? "a bad %XX escape" : "out of memory");
				r->str[k->off] = s;
				break;
			}
			}
		}
		p = end;
	}
	if (!seen[0] || r->ref == 0)
		return fail(r, err, errlen, "ref", "", 0, "required, and not 0");
	/* every number and flag is written: one missing is a cut or edited
	 * line, whose 0 would stand for a value never given */
	for (i = 0; i < NKEYS; i++)
		if (keys[i].kind != K_S && !seen[i])
			return fail(r, err, errlen, keys[i].name, "", 0, "missing");
	return 0;
}
