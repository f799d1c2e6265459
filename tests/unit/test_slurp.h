/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_slurp.h - the tests' one whole-file reader (include after
 * <cmocka.h>): the file at path, NUL-terminated, malloc'd; *len (when
 * len is not NULL) its size.  A file that cannot be read fails the test
 * with its name and the reason. */
#ifndef GP_TEST_SLURP_H
#define GP_TEST_SLURP_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline char *gp_test_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

#endif
