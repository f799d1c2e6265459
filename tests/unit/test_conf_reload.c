/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_conf_reload.c - plugin/conf_reload.c, what the plugin's thread does
 * at every pass (reload_if_changed), on a copy of a site in a directory of
 * its own (the plugin's files compiled in, its log lines captured):
 *   - nothing changed: the configuration stays the same object;
 *   - a watched file's modification time changes: a new configuration is
 *     published, and one line says so;
 *   - an edit with a problem in one part (a rack's cap not a number):
 *     the new configuration is published without that rack, and the
 *     problem is logged once at info, naming the line and what is lost;
 *   - a bad edit the reader cannot get past: the last good configuration
 *     stays, one error line names the file, line and key, and the next
 *     passes (file unchanged) log nothing more;
 *   - the edit fixed: loaded again.
 */
#include "config.h"

#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "job_submit_gpuplace.h"

#define LOG_MAX 64
static struct {
	int level;
	char line[512];
} captured[LOG_MAX];
static int ncaptured;

/* the plugin's sink (GP_LOG_SINK=capture, plugin/local.mk) */
void capture(int level, const char *line)
{
	if (ncaptured < LOG_MAX) {
		captured[ncaptured].level = level;
		snprintf(captured[ncaptured++].line, sizeof(captured[0].line), "%s", line);
	}
}

#include <cmocka.h>

static char dir[4096];

static int count_lines(int level, const char *want)
{
	int i, n = 0;

	for (i = 0; i < ncaptured; i++)
		n += captured[i].level == level && strstr(captured[i].line, want) != NULL;
	return n;
}

/* Copy file name from the source tree's site into dir. */
static void copy_in(const char *site, const char *name)
{
	const char *top = getenv("GP_TOP_SRCDIR");
	char from[4096], to[4200], buf[8192];
	FILE *in, *out;
	size_t n;

	snprintf(from, sizeof(from), "%s/%s/%s", top ? top : ".", site, name);
	snprintf(to, sizeof(to), "%s/%s", dir, name);
	in = fopen(from, "r");
	out = fopen(to, "w");
	assert_true(in && out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	assert_int_equal(fclose(out), 0);
}

/* Append text to dir/name and set its modification time to now + shift
 * seconds (a change the reload sees whatever the file system's clock
 * granularity). */
static void edit(const char *name, const char *text, int shift)
{
	char path[4200];
	struct timespec ts[2];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "a");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	clock_gettime(CLOCK_REALTIME, &ts[0]);
	ts[0].tv_sec += shift;
	ts[1] = ts[0];
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static void test_reload(void **unused)
{
	static const char *const files[] = { "slurm.conf", "gpuplace.conf", "topology.conf",
	                                     "gres.conf" };
	const char *site = "tests/data/slurm/conf";
	const char *tmp = getenv("TMPDIR");
	struct timespec failed[GP_NWATCHED];
	struct gp_conf *first, *c, *second;
	gp_error_t err;
	size_t i;

	snprintf(dir, sizeof(dir), "%s/gp-reload.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		copy_in(site, files[i]);
	setenv("GPUPLACE_CONF_DIR", dir, 1);
	set_conf_dir();
	for (i = 0; i < GP_NWATCHED; i++)
		failed[i].tv_sec = -1;
	first = conf_load(&err);
	if (!first)
		fail_msg("%s", err.text);
	conf_publish(first);

	/* nothing changed */
	reload_if_changed(failed);
	c = conf_get();
	assert_ptr_equal(c, first);
	conf_put(c);
	assert_int_equal(ncaptured, 0);

	/* a good edit of gpuplace.conf */
	edit("gpuplace.conf", "# a comment\n", 10);
	reload_if_changed(failed);
	second = conf_get();
	assert_non_null(second);
	assert_ptr_not_equal(second, first);
	conf_put(second);
	assert_int_equal(count_lines(LOGL_INFO, "gpuplace: configuration reloaded from "), 1);

	/* a problem in one part: that rack is off, the rest reloaded, the
	 * problem said once however often the thread passes */
	ncaptured = 0;
	edit("gpuplace.conf", "Rack=rackC Nodes=n[1-2] PowerCapKW=lots\n", 15);
	reload_if_changed(failed);
	reload_if_changed(failed);
	c = conf_get();
	assert_ptr_not_equal(c, second);
	assert_int_equal(c->cluster->nracks, 2);
	assert_int_equal(c->cluster->nnodes, 8);
	conf_put(c);
	if (ncaptured != 2 || count_lines(LOGL_INFO, "gpuplace: configuration reloaded from ") != 1 ||
	    count_lines(LOGL_INFO, "gpuplace: ") != 2 ||
	    count_lines(LOGL_INFO, "gpuplace.conf:") != 1 ||
	    count_lines(LOGL_INFO, "PowerCapKW: 'lots' is not a number; rack 'rackC' not modelled: "
	                           "power not considered on its nodes (n[1-2])") != 1) {
		for (i = 0; i < (size_t)ncaptured; i++)
			print_message("#   [%d] %s\n", captured[i].level, captured[i].line);
		fail_msg("%d lines for a per-part problem, expected the reload and one warning",
		         ncaptured);
	}
	second = conf_get();
	conf_put(second);

	/* a bad one: the last good configuration stays, one line */
	ncaptured = 0;
	edit("gpuplace.conf", "NoSuchKey=\"1\n", 20);
	reload_if_changed(failed);
	reload_if_changed(failed);
	reload_if_changed(failed);
	c = conf_get();
	assert_ptr_equal(c, second);
	conf_put(c);
	if (ncaptured != 1 || count_lines(LOGL_ERROR, "gpuplace.conf:") != 1 ||
	    count_lines(LOGL_ERROR, "NoSuchKey") != 1 ||
	    count_lines(LOGL_ERROR, "keeping the last good configuration") != 1) {
		for (i = 0; i < (size_t)ncaptured; i++)
			print_message("#   [%d] %s\n", captured[i].level, captured[i].line);
		fail_msg("%d lines for a bad edit, expected one error line", ncaptured);
	}

	/* fixed: a new file without the bad line */
	ncaptured = 0;
	copy_in(site, "gpuplace.conf");
	edit("gpuplace.conf", "", 30);
	reload_if_changed(failed);
	c = conf_get();
	assert_ptr_not_equal(c, second);
	conf_put(c);
	assert_int_equal(count_lines(LOGL_INFO, "gpuplace: configuration reloaded from "), 1);

	slots_clear();
	graveyard_empty();
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[4200];

		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reload),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
