/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log_capture.c - see log_capture.h. */
#include "config.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "log_capture.h"

struct captured_line captured[LOG_CAPTURE_MAX];
int ncaptured;

static pthread_mutex_t capture_lock = PTHREAD_MUTEX_INITIALIZER;

void capture(int level, const char *line)
{
	pthread_mutex_lock(&capture_lock);
	if (ncaptured < LOG_CAPTURE_MAX) {
		captured[ncaptured].level = level;
		captured[ncaptured++].line = strdup(line);
	}
	pthread_mutex_unlock(&capture_lock);
}

void log_clear(void)
{
	int i;

	pthread_mutex_lock(&capture_lock);
	for (i = 0; i < ncaptured; i++)
		free(captured[i].line);
	ncaptured = 0;
	pthread_mutex_unlock(&capture_lock);
}

const char *log_find(int level, const char *want)
{
	int i;

	for (i = 0; i < ncaptured; i++)
		if ((level < 0 || captured[i].level == level) && strstr(captured[i].line, want))
			return captured[i].line;
	return NULL;
}

int log_count(int level)
{
	int i, n = 0;

	for (i = 0; i < ncaptured; i++)
		n += captured[i].level == level;
	return n;
}

int log_matches(const char *want)
{
	int i, n = 0;

	for (i = 0; i < ncaptured; i++)
		n += strstr(captured[i].line, want) != NULL;
	return n;
}

void log_dump(void)
{
	int i;

	for (i = 0; i < ncaptured; i++)
		print_message("#   [%d] %s\n", captured[i].level, captured[i].line);
}
