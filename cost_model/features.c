/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * features.c - Slurm --constraint expressions over node features.
 *
 * The expression compiles into a small flat tree (request.h); every
 * distinct name gets one bit, so a node's features are matched once into a
 * uint64_t and the expression is then evaluated with bit tests only.
 * Evaluation folds each group left to right with equal precedence, which is
 * how Slurm combines its feature list (an AND or OR of the bitmap so far
 * with the next term's bitmap).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "request.h"

typedef struct parser {
	const char *s;
	size_t pos;
	gp_constraint_t *k;
	int cap_names;
	bool in_paren;
	bool in_bracket;
	gp_error_t *err;
} parser_t;

/* Characters that end a feature name. */
static bool is_special(char ch)
{
	return ch == '&' || ch == '|' || ch == '(' || ch == ')' || ch == '[' || ch == ']' ||
	       ch == '*' || ch == ',' || ch == '\0';
}

static int perr(parser_t *p, const char *what)
{
	/* the expression's first 80 characters: a longer one (a user's
	 * --constraint may run to thousands) would leave no room for what is
	 * wrong and where */
	return gp__errorf(p->err, GP_EINVAL, "constraint '%.80s%s': %s at character %zu", p->s,
	                  strlen(p->s) > 80 ? "..." : "", what, p->pos + 1);
}

static int new_term(parser_t *p, int kind)
{
	gp_feature_term_t *t;

	if (p->k->nterms >= GP_FEATURE_MAX_TERMS)
		return perr(p, "too many terms (at most 256)");
	t = &p->k->terms[p->k->nterms];
	t->kind = (uint8_t)kind;
	t->op = 0;
	t->name = -1;
	t->child = -1;
	t->next = -1;
	return p->k->nterms++;
}

static int add_name(parser_t *p, const char *name, size_t len)
{
	gp_constraint_t *k = p->k;
	int i;

	for (i = 0; i < k->nnames; i++)
		if (strlen(k->names[i]) == len && memcmp(k->names[i], name, len) == 0)
			return i;
	if (k->nnames >= GP_FEATURE_MAX_NAMES)
		return perr(p, "more than 64 distinct feature names");
	k->names[k->nnames] = malloc(len + 1);
	if (!k->names[k->nnames])
		return gp__errorf(p->err, GP_ENOMEM, "out of memory");
	memcpy(k->names[k->nnames], name, len);
	k->names[k->nnames][len] = '\0';
	return k->nnames++;
}

static int parse_group(parser_t *p, int kind);

/* One operand: a name, (group) or [matching OR]. Returns the term index. */
static int parse_primary(parser_t *p)
{
	char ch = p->s[p->pos];
	int t, rc;

	if (ch == '(') {
		bool saved = p->in_paren;

		p->pos++;
		p->in_paren = true;
		t = parse_group(p, GP_FT_GROUP);
		if (t < 0)
			return t;
		if (p->s[p->pos] != ')')
			return perr(p, "missing ')'");
		p->pos++;
		p->in_paren = saved;
		return t;
	}
	if (ch == '[') {
		if (p->in_bracket)
			return perr(p, "brackets cannot be nested");
		if (p->in_paren)
			return perr(p, "a matching-OR bracket cannot be inside parentheses");
		if (p->k->match >= 0)
			return perr(p, "only one matching-OR bracket group is supported");
		p->pos++;
		p->in_bracket = true;
		t = parse_group(p, GP_FT_MATCH);
		if (t < 0)
			return t;
		if (p->s[p->pos] != ']')
			return perr(p, "missing ']'");
		p->pos++;
		p->in_bracket = false;
		p->k->match = t;
		return t;
	}
	if (ch == '*')
		return perr(p, "a node count needs a feature name before '*'");
	if (ch == ',')
		return perr(p, "',' is not an operator (use '&' for AND, '|' for OR)");
	if (is_special(ch)) {
		if (ch == '\0')
			return perr(p, "missing feature name at the end");
		return perr(p, "missing feature name");
	}
	{
		size_t start = p->pos;

		while (!is_special(p->s[p->pos])) {
			unsigned char u = (unsigned char)p->s[p->pos];

			if (u <= ' ' || u == 0x7f || u == '!' || u == '"' || u == '\'')
				return perr(p, "invalid character in feature name");
			p->pos++;
		}
		rc = add_name(p, p->s + start, p->pos - start);
		if (rc < 0)
			return rc;
		t = new_term(p, GP_FT_NAME);
		if (t < 0)
			return t;
		p->k->terms[t].name = (int16_t)rc;
	}
	if (p->s[p->pos] == '*')
		return perr(p, "node counts ('*N') are not supported by gpuplace; "
		               "request the feature without a count");
	return t;
}

/* operand (op operand)* up to ')' ']' or the end. */
static int parse_group(parser_t *p, int kind)
{
	int g, t, prev = -1;
	char op = 0;

	g = new_term(p, kind);
	if (g < 0)
		return g;
	for (;;) {
		t = parse_primary(p);
		if (t < 0)
			return t;
		p->k->terms[t].op = (uint8_t)op;
		if (prev < 0)
			p->k->terms[g].child = (int16_t)t;
		else
			p->k->terms[prev].next = (int16_t)t;
		prev = t;
		if (kind == GP_FT_MATCH && p->k->nalts++ >= GP_FEATURE_MAX_ALTS)
			return perr(p, "more than 64 matching-OR alternatives");
		op = p->s[p->pos];
		if (op == '&' || op == '|') {
			if (kind == GP_FT_MATCH && op == '&')
				return perr(
				    p, "'&' inside brackets needs node counts, which are not "
				       "supported; brackets hold alternatives separated by '|'");
			p->pos++;
			continue;
		}
		if (op == ',')
			return perr(p, "',' is not an operator (use '&' for AND, '|' for OR)");
		if (op == '[' || op == '(')
			return perr(p, "missing operator before a group");
		break;
	}
	return g;
}

int gp__constraint_parse(const char *expr, gp_constraint_t **out, gp_error_t *err)
{
	parser_t p;
	gp_constraint_t *k;
	int rc;

	*out = NULL;
	if (!expr || !*expr)
		return gp__errorf(err, GP_EINVAL, "constraint: empty expression");
	k = calloc(1, sizeof(*k));
	if (!k)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	k->match = -1;
	k->text = strdup(expr);
	k->names = calloc(GP_FEATURE_MAX_NAMES, sizeof(*k->names));
	k->terms = calloc(GP_FEATURE_MAX_TERMS, sizeof(*k->terms));
	if (!k->text || !k->names || !k->terms) {
		rc = gp__errorf(err, GP_ENOMEM, "out of memory");
		goto error;
	}
	memset(&p, 0, sizeof(p));
	p.s = expr;
	p.k = k;
	p.err = err;
	rc = parse_group(&p, GP_FT_GROUP);
	if (rc < 0)
		goto error;
	if (expr[p.pos] == ')') {
		rc = perr(&p, "unbalanced ')'");
		goto error;
	}
	if (expr[p.pos] == ']') {
		rc = perr(&p, "unbalanced ']'");
		goto error;
	}
	if (expr[p.pos] != '\0') {
		rc = perr(&p, "unexpected character");
		goto error;
	}
	if (k->match < 0)
		k->nalts = 1;
	*out = k;
	return GP_OK;
error:
	gp__constraint_destroy(k);
	return rc;
}

void gp__constraint_destroy(gp_constraint_t *k)
{
	int i;

	if (!k)
		return;
	if (k->names)
		for (i = 0; i < k->nnames; i++)
			free(k->names[i]);
	free(k->names);
	free(k->terms);
	free(k->text);
	free(k);
}

uint64_t gp__constraint_node_mask(const gp_constraint_t *k, const char *features)
{
	uint64_t m = 0;
	const char *s = features, *e;
	size_t len;
	int i;

	if (!k || !features)
		return 0;
	while (*s) {
		e = strchr(s, ',');
		len = e ? (size_t)(e - s) : strlen(s);
		for (i = 0; i < k->nnames; i++)
			if (strncmp(k->names[i], s, len) == 0 && k->names[i][len] == '\0')
				m |= 1ull << i;
		if (!e)
			break;
		s = e + 1;
	}
	return m;
}

static bool eval_term(const gp_constraint_t *k, int t, uint64_t fmask, int alt)
{
	const gp_feature_term_t *x = &k->terms[t];
	bool acc = false;
	int c, i;

	switch (x->kind) {
	case GP_FT_NAME:
		return (fmask >> x->name) & 1;
	case GP_FT_MATCH:
		for (c = x->child, i = 0; c >= 0; c = k->terms[c].next, i++)
			if (i == alt)
				return eval_term(k, c, fmask, alt);
		return false;
	default:
		for (c = x->child; c >= 0; c = k->terms[c].next) {
			bool v = eval_term(k, c, fmask, alt);

			if (k->terms[c].op == '&')
				acc = acc && v;
			else if (k->terms[c].op == '|')
				acc = acc || v;
			else
				acc = v;
		}
		return acc;
	}
}

bool gp__constraint_eval(const gp_constraint_t *k, uint64_t fmask, int alt)
{
	if (!k)
		return true;
	return eval_term(k, 0, fmask, alt);
}

/* Print term t back as text. */
static size_t term_text(const gp_constraint_t *k, int t, char *buf, size_t size, size_t at)
{
	const gp_feature_term_t *x = &k->terms[t];
	int c;

	if (at >= size)
		return at;
	if (x->kind == GP_FT_NAME) {
		int n = snprintf(buf + at, size - at, "%s", k->names[x->name]);

		return at + (n > 0 ? (size_t)n : 0);
	}
	if (at < size)
		at += (size_t)snprintf(buf + at, size - at, "(");
	for (c = x->child; c >= 0; c = k->terms[c].next) {
		if (k->terms[c].op && at < size)
			at += (size_t)snprintf(buf + at, size - at, "%c", k->terms[c].op);
		at = term_text(k, c, buf, size, at);
	}
	if (at < size)
		at += (size_t)snprintf(buf + at, size - at, ")");
	return at;
}

void gp__constraint_alt_text(const gp_constraint_t *k, int alt, char *buf, size_t size)
{
	int c, i;

	if (!size)
		return;
	buf[0] = '\0';
	if (!k || k->match < 0)
		return;
	for (c = k->terms[k->match].child, i = 0; c >= 0; c = k->terms[c].next, i++)
		if (i == alt) {
			term_text(k, c, buf, size, 0);
			return;
		}
}

int gp__domain_feature(const char *prefix, const char *name, char *buf, size_t len)
{
	size_t n = strlen(prefix), i;

	if (n + strlen(name) + 1 > len)
		return GP_ELIMIT;
	memcpy(buf, prefix, n);
	for (i = 0; name[i]; i++) {
		char ch = name[i];
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		          (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.';

		buf[n++] = ok ? ch : '_';
	}
	buf[n] = '\0';
	return GP_OK;
}

/* ---- topology-domain features on the nodes -------------------------------- */

int gp__domain_kind_of(const gp_cluster_t *c, int32_t id)
{
	return id < c->nswitches ? GP_DOMKIND_SWITCH
	       : id < c->nswitches + c->nnvl ? GP_DOMKIND_NVL : GP_DOMKIND_RACK;
}

const char *gp__domain_name_of(const gp_cluster_t *c, int32_t id)
{
	int32_t nsw = c->nswitches, nnvl = c->nnvl;

	return id < nsw ? c->switches[id].name
	       : id < nsw + nnvl ? c->nvl[id - nsw].name : c->racks[id - nsw - nnvl].name;
}

int gp__domain_feature_of(const gp_cluster_t *c, int32_t id, char *buf, size_t len)
{
	int32_t nsw = c->nswitches;

	switch (gp__domain_kind_of(c, id)) {
	case GP_DOMKIND_SWITCH:
		if (c->switches[id].parent < 0 || c->switches[id].disconnected)
			return GP_ENOENT;
		return gp__domain_feature(GP_FEATURE_SWITCH, c->switches[id].name, buf, len);
	case GP_DOMKIND_NVL:
		return gp__domain_feature(GP_FEATURE_NVL, c->nvl[id - nsw].name, buf, len);
	default:
		return gp__domain_feature(GP_FEATURE_RACK, gp__domain_name_of(c, id), buf, len);
	}
}

/* Is node v in domain id (a switch's subtree is a range of node_order,
 * model.h)? */
static bool in_domain(const gp_cluster_t *c, int32_t v, int32_t id)
{
	const gp_switch_t *w;

	switch (gp__domain_kind_of(c, id)) {
	case GP_DOMKIND_SWITCH:
		if (!c->node_pos) { /* not laid out yet: the switches above its leaf */
			int32_t s;

			for (s = c->nodes[v].leaf; s >= 0 && s != id; s = c->switches[s].parent)
				;
			return s == id;
		}
		w = &c->switches[id];
		return c->node_pos[v] >= w->first && c->node_pos[v] < w->first + w->count;
	case GP_DOMKIND_NVL:
		return c->nodes[v].nvl_domain == id - c->nswitches;
	default:
		return c->nodes[v].rack == id - c->nswitches - c->nnvl;
	}
}

void gp__domain_features_free(gp_domfeat_check_t *out)
{
	if (out) {
		free(out->ok);
		out->ok = NULL;
	}
}

int gp__domain_features_check(const gp_cluster_t *c, gp_domfeat_check_t *out)
{
	gp__nametab_t want;
	int32_t nd = c->nswitches + c->nnvl + c->nracks, *have = NULL, *size = NULL, i, id, k, dup;
	int32_t *last = NULL;
	bool *stray = NULL, *named = NULL;
	char feat[GP_NAME_MAX + 16];
	int rc = GP_ENOMEM;

	memset(out, 0, sizeof(*out));
	for (k = 0; k < GP_DOMKINDS; k++)
		out->first_missing[k] = -1;
	out->ndomains = nd;
	if (gp__nametab_init(&want, false))
		return GP_ENOMEM;
	out->ok = calloc((size_t)nd + 1, sizeof(*out->ok));
	have = calloc((size_t)nd + 1, sizeof(*have));
	size = calloc((size_t)nd + 1, sizeof(*size));
	stray = calloc((size_t)nd + 1, sizeof(*stray));
	named = calloc((size_t)nd + 1, sizeof(*named));
	last = malloc(((size_t)nd + 1) * sizeof(*last));
	if (!out->ok || !have || !size || !stray || !named || !last)
		goto out;
	for (id = 0; id <= nd; id++)
		last[id] = -1;
	for (id = 0; id < nd; id++) {
		if (gp__domain_feature_of(c, id, feat, sizeof(feat)))
			continue; /* never a constraint's */
		named[id] = true;
		if (gp__nametab_add(&want, feat, id, &dup))
			goto out;
	}
	/* one pass over the nodes: each node counts in the domains it is
	 * in, and each of its features that names a domain is checked */
	for (i = 0; i < c->nnodes; i++) {
		const gp_node_t *n = &c->nodes[i];
		const char *p = n->features;
		int32_t s;

		for (s = n->leaf; s >= 0; s = c->switches[s].parent)
			size[s]++;
		if (n->nvl_domain >= 0)
			size[c->nswitches + n->nvl_domain]++;
		if (n->rack >= 0)
			size[c->nswitches + c->nnvl + n->rack]++;
		while (p && *p) {
			size_t len = strcspn(p, ",");

			if (len > 0 && len < sizeof(feat)) {
				memcpy(feat, p, len);
				feat[len] = '\0';
				/* a feature a node names twice counts once (Slurm
				 * takes "Features=a,b,a,b") */
				if ((id = gp__nametab_find(&want, feat)) >= 0 && last[id] != i) {
					last[id] = i;
					if (in_domain(c, i, id))
						have[id]++;
					else
						stray[id] = true;
				}
			}
			p += len;
			if (*p)
				p++;
		}
	}
	for (id = 0; id < nd; id++) {
		k = gp__domain_kind_of(c, id);
		if (!named[id])
			continue;
		out->named[k]++;
		out->ok[id] = size[id] > 0 && have[id] == size[id] && !stray[id];
		if (!out->ok[id] && !out->missing[k]++)
			out->first_missing[k] = id;
	}
	rc = GP_OK;
out:
	if (rc)
		gp__domain_features_free(out);
	gp__nametab_free(&want);
	free(have);
	free(size);
	free(stray);
	free(named);
	free(last);
	return rc;
}
