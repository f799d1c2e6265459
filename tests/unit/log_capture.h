/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log_capture.h - the plugin's log lines, captured for a test: a program
 * built with -DGP_LOG_SINK=capture and plugin/log.c sends every line here
 * (the plugin's thread too), with its level. */
#ifndef GP_TEST_LOG_CAPTURE_H
#define GP_TEST_LOG_CAPTURE_H

#define LOG_CAPTURE_MAX 400

struct captured_line {
	int level;
	char *line;
};
/* the lines of the current test, oldest first */
extern struct captured_line captured[LOG_CAPTURE_MAX];
extern int ncaptured;

/* the sink plugin/log.c calls */
void capture(int level, const char *line);
/* forget every captured line */
void log_clear(void);
/* the first captured line containing want at level (-1: any), or NULL */
const char *log_find(int level, const char *want);
/* how many captured lines have level */
int log_count(int level);
/* how many captured lines contain want */
int log_matches(const char *want);
/* every captured line, as cmocka messages */
void log_dump(void);

#endif
