/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fileio.c - the one bounded whole-file reader (model.h, gp__file_read):
 * configuration files, JSON models and states, hwloc XML, telemetry files
 * and job traces all come in through it, each with its own limit. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model.h"

static int fail(gp__file_t *out, int e, const char *path, size_t max, gp_error_t *err)
{
	free(out->buf);
	out->buf = NULL;
	out->len = 0;
	out->sys_errno = e;
	switch (e) {
	case ENOMEM:
		return gp__errorf(err, GP_ENOMEM, "%s: out of memory", path);
	case EFBIG:
		return gp__errorf(err, GP_ELIMIT, "%s: larger than %zu bytes", path, max);
	case EINVAL:
		return gp__errorf(err, GP_EINVAL, "%s: not a regular file", path);
	default:
		return gp__errorf(err, GP_EIO, "%s: %s", path, strerror(e));
	}
}

int gp__file_read(const char *path, size_t max, unsigned flags, gp__file_t *out,
                  gp_error_t *err)
{
	bool use_stdin = (flags & GP_FILE_STDIN) && !strcmp(path, "-");
	size_t cap = 1 << 16;
	struct stat st;
	ssize_t r;
	char *nb;
	int fd, e = 0;

	memset(out, 0, sizeof(*out));
	if (use_stdin) {
		fd = STDIN_FILENO;
	} else {
		/* O_NONBLOCK with GP_FILE_REGULAR: opening a FIFO must not hang */
		fd = open(path, O_RDONLY | O_CLOEXEC | ((flags & GP_FILE_REGULAR) ? O_NONBLOCK : 0));
		if (fd < 0)
			return fail(out, errno, path, max, err);
		if (fstat(fd, &st) != 0) {
			e = errno;
			goto out;
		}
		if ((flags & GP_FILE_REGULAR) && !S_ISREG(st.st_mode)) {
			e = EINVAL;
			goto out;
		}
		if (S_ISREG(st.st_mode)) {
			if ((uintmax_t)st.st_size > (uintmax_t)max) {
				e = EFBIG;
				goto out;
			}
			out->mtime = (double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec * 1e-9;
			cap = (size_t)st.st_size + 1; /* one read past the end sees EOF */
		}
	}
	/* cap: bytes the buffer holds before its NUL; reading max + 1 bytes
	 * proves the file is too large */
	if (cap > max + 1)
		cap = max + 1;
	if (!(out->buf = malloc(cap + 1))) {
		e = ENOMEM;
		goto out;
	}
	for (;;) {
		if (out->len == cap) {
			size_t ncap = cap > max / 2 ? max + 1 : cap * 2;

			if (cap > max) {
				e = EFBIG;
				break;
			}
			if (!(nb = realloc(out->buf, ncap + 1))) {
				e = ENOMEM;
				break;
			}
			out->buf = nb;
			cap = ncap;
		}
		r = read(fd, out->buf + out->len, cap - out->len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			break;
		}
		if (r == 0)
			break;
		out->len += (size_t)r;
	}
out:
	if (!use_stdin)
		close(fd);
	if (e)
		return fail(out, e, path, max, err);
	out->buf[out->len] = '\0';
	return GP_OK;
}
