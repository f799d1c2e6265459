/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_fileio.c - cost_model/fileio.c, gp__file_read(), the one bounded
 * whole-file reader: whole files up to the limit, and every refusal (a
 * missing file, a file over the limit, a directory, a FIFO) with the error
 * code, errno and a message that starts with the file's name.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "model.h"

static char tmpdir[] = "/tmp/gp-fileio-XXXXXX";

static int setup(void **unused)
{
	(void)unused;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **unused)
{
	char cmd[64];

	(void)unused;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* n bytes "abc...zab..." into tmpdir/name; its path into path. */
static void write_bytes(char *path, size_t size, const char *name, size_t n)
{
	FILE *f;
	size_t i;

	snprintf(path, size, "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	for (i = 0; i < n; i++)
		assert_int_equal(fputc('a' + (int)(i % 26), f), 'a' + (int)(i % 26));
	assert_int_equal(fclose(f), 0);
}

/* A refused read: rc, errno, out->buf NULL and "PATH: WHAT" in err. */
static void assert_refused(const char *path, size_t max, unsigned flags, int rc, int sys_errno,
                           const char *what)
{
	gp__file_t f;
	gp_error_t err = { "" };
	size_t l = strlen(path);

	assert_int_equal(gp__file_read(path, max, flags, &f, &err), rc);
	assert_null(f.buf);
	assert_int_equal(f.len, 0);
	assert_int_equal(f.sys_errno, sys_errno);
	/* the message names the file first, then says what is wrong */
	assert_memory_equal(err.text, path, l);
	assert_memory_equal(err.text + l, ": ", 2);
	assert_non_null(strstr(err.text + l, what));
}

/* A read that succeeds: n bytes of write_bytes()'s pattern, NUL after. */
static void assert_read(const char *path, size_t max, unsigned flags, size_t n)
{
	gp__file_t f;
	gp_error_t err = { "" };
	size_t i;

	assert_int_equal(gp__file_read(path, max, flags, &f, &err), GP_OK);
	assert_non_null(f.buf);
	assert_int_equal(f.len, n);
	assert_int_equal(f.sys_errno, 0);
	assert_int_equal(f.buf[f.len], '\0');
	for (i = 0; i < n; i++)
		assert_int_equal(f.buf[i], 'a' + (int)(i % 26));
	free(f.buf);
}

/* Whole files of every size around the buffer's first capacity (64 KiB),
 * each read at exactly its own size and refused one byte below it. */
static void test_sizes(void **unused)
{
	static const size_t sizes[] = { 0, 1, 4095, 65536, 65537, 200000 };
	char path[256];
	size_t i;

	(void)unused;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		gp__file_t f;
		gp_error_t err = { "" };

		write_bytes(path, sizeof(path), "sized", sizes[i]);
		assert_read(path, sizes[i], GP_FILE_REGULAR, sizes[i]);
		assert_read(path, sizes[i] + 1000, 0, sizes[i]);
		assert_int_equal(gp__file_read(path, sizes[i], 0, &f, &err), GP_OK);
		assert_true(f.mtime > 1e9); /* a regular file has its modification time */
		free(f.buf);
		if (sizes[i])
			assert_refused(path, sizes[i] - 1, 0, GP_ELIMIT, EFBIG, "larger than");
	}
}

/* One row a case: what is at the path, the limit, the flags, the result. */
static void test_table(void **unused)
{
	enum what { MISSING, FILE_OF, DIRECTORY, FIFO };
	static const struct {
		const char *name;
		enum what what;
		size_t bytes, max;
		unsigned flags;
		int rc, sys_errno;
		const char *text; /* after "PATH: "; NULL: strerror(sys_errno) */
	} cases[] = {
		{ "missing", MISSING, 0, 100, 0, GP_EIO, ENOENT, NULL },
		{ "missing-regular", MISSING, 0, 100, GP_FILE_REGULAR, GP_EIO, ENOENT, NULL },
		{ "empty", FILE_OF, 0, 100, GP_FILE_REGULAR, GP_OK, 0, NULL },
		{ "empty-limit-0", FILE_OF, 0, 0, 0, GP_OK, 0, NULL },
		{ "normal", FILE_OF, 1000, 4096, GP_FILE_REGULAR, GP_OK, 0, NULL },
		{ "at-limit", FILE_OF, 4096, 4096, 0, GP_OK, 0, NULL },
		{ "over-limit", FILE_OF, 4097, 4096, 0, GP_ELIMIT, EFBIG, "larger than 4096 bytes" },
		{ "over-limit-regular", FILE_OF, 10, 9, GP_FILE_REGULAR, GP_ELIMIT, EFBIG,
		  "larger than 9 bytes" },
		{ "dir-regular", DIRECTORY, 0, 100, GP_FILE_REGULAR, GP_EINVAL, EINVAL,
		  "not a regular file" },
		/* without GP_FILE_REGULAR a directory opens, and read() refuses it */
		{ "dir-read", DIRECTORY, 0, 100, 0, GP_EIO, EISDIR, NULL },
		/* a FIFO with no writer: refused at once, not waited on */
		{ "fifo", FIFO, 0, 100, GP_FILE_REGULAR, GP_EINVAL, EINVAL, "not a regular file" },
	};
	char path[256];
	size_t i;

	(void)unused;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, cases[i].name);
		switch (cases[i].what) {
		case MISSING: break;
		case FILE_OF: write_bytes(path, sizeof(path), cases[i].name, cases[i].bytes); break;
		case DIRECTORY: assert_int_equal(mkdir(path, 0700), 0); break;
		case FIFO: assert_int_equal(mkfifo(path, 0600), 0); break;
		}
		print_message("# %s\n", cases[i].name);
		if (cases[i].rc == GP_OK)
			assert_read(path, cases[i].max, cases[i].flags, cases[i].bytes);
		else
			assert_refused(path, cases[i].max, cases[i].flags, cases[i].rc,
			               cases[i].sys_errno,
			               cases[i].text ? cases[i].text : strerror(cases[i].sys_errno));
	}
}

/* "-" with GP_FILE_STDIN reads standard input (here a pipe, which has no
 * size to check first: the limit holds while reading); without the flag
 * "-" is a file name like any other. */
static void test_stdin(void **unused)
{
	char buf[5000];
	int fds[2], saved;
	size_t i;

	(void)unused;
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (char)('a' + (int)(i % 26));
	saved = dup(STDIN_FILENO);
	assert_true(saved >= 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(pipe(fds), 0);
		assert_int_equal(write(fds[1], buf, sizeof(buf)), (ssize_t)sizeof(buf));
		assert_int_equal(close(fds[1]), 0);
		assert_int_equal(dup2(fds[0], STDIN_FILENO), STDIN_FILENO);
		assert_int_equal(close(fds[0]), 0);
		if (i == 0)
			assert_read("-", sizeof(buf), GP_FILE_STDIN, sizeof(buf));
		else
			assert_refused("-", sizeof(buf) - 1, GP_FILE_STDIN, GP_ELIMIT, EFBIG,
			               "larger than 4999 bytes");
	}
	assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
	assert_int_equal(close(saved), 0);
	assert_int_equal(chdir(tmpdir), 0); /* no file "-" here */
	assert_refused("-", 100, 0, GP_EIO, ENOENT, strerror(ENOENT));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_stdin),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
