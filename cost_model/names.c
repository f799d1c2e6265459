/* SPDX-License-Identifier: GPL-2.0-or-later */
/* names.c - the one name -> index table (FNV-1a, open addressing) behind
 * every lookup by name: the model's node index, the loaders' object names,
 * the JSON reader's references. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model.h"

/* FNV-1a: short names, few collisions, no allocation. */
static uint32_t str_hash(const char *s, bool nocase)
{
	uint32_t h = 2166136261u;

	for (; *s; s++) {
		h ^= nocase ? (unsigned char)tolower((unsigned char)*s) : (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

int gp__nametab_init(gp__nametab_t *t, bool nocase)
{
	memset(t, 0, sizeof(*t));
	t->nocase = nocase;
	t->size = 16;
	t->names = calloc(t->size, sizeof(*t->names));
	t->idx = calloc(t->size, sizeof(*t->idx));
	if (!t->names || !t->idx) {
		gp__nametab_free(t);
		return GP_ENOMEM;
	}
	return GP_OK;
}

static bool name_eq(const gp__nametab_t *t, const char *a, const char *b)
{
	return t->nocase ? strcasecmp(a, b) == 0 : strcmp(a, b) == 0;
}

static void tab_put(gp__nametab_t *t, char *name, int32_t i)
{
	uint32_t mask = t->size - 1, h = str_hash(name, t->nocase) & mask;

	while (t->names[h])
		h = (h + 1) & mask;
	t->names[h] = name;
	t->idx[h] = i;
	t->used++;
}

int gp__nametab_add(gp__nametab_t *t, const char *name, int32_t i, int32_t *dup)
{
	int32_t old = gp__nametab_find(t, name);
	char *copy;

	*dup = old;
	if (old >= 0)
		return GP_OK;
	if (2 * (t->used + 1) > t->size) {
		gp__nametab_t nt = { .nocase = t->nocase, .size = t->size * 2 };
		uint32_t k;

		nt.names = calloc(nt.size, sizeof(*nt.names));
		nt.idx = calloc(nt.size, sizeof(*nt.idx));
		if (!nt.names || !nt.idx) {
			free(nt.names);
			free(nt.idx);
			return GP_ENOMEM;
		}
		for (k = 0; k < t->size; k++)
			if (t->names[k])
				tab_put(&nt, t->names[k], t->idx[k]);
		free(t->names); /* the strings moved to nt */
		free(t->idx);
		*t = nt;
	}
	copy = strdup(name);
	if (!copy)
		return GP_ENOMEM;
	tab_put(t, copy, i);
	return GP_OK;
}

int32_t gp__nametab_find(const gp__nametab_t *t, const char *name)
{
	uint32_t mask, h;

	if (!t->size)
		return -1;
	mask = t->size - 1;
	h = str_hash(name, t->nocase) & mask;
	while (t->names[h]) {
		if (name_eq(t, t->names[h], name))
			return t->idx[h];
		h = (h + 1) & mask;
	}
	return -1;
}

int gp__nametab_set(gp__nametab_t *t, const char *name, int32_t i)
{
	uint32_t mask, h;

	if (!t->size)
		return GP_ENOENT;
	mask = t->size - 1;
	h = str_hash(name, t->nocase) & mask;
	while (t->names[h]) {
		if (name_eq(t, t->names[h], name)) {
			t->idx[h] = i;
			return GP_OK;
		}
		h = (h + 1) & mask;
	}
	return GP_ENOENT;
}

void gp__nametab_free(gp__nametab_t *t)
{
	uint32_t k;

	for (k = 0; k < t->size && t->names; k++)
		free(t->names[k]);
	free(t->names);
	free(t->idx);
	t->names = NULL;
	t->idx = NULL;
	t->size = 0;
	t->used = 0;
}
