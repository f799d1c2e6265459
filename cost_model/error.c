/* SPDX-License-Identifier: GPL-2.0-or-later */
/* error.c - gp_strerror() and the error-detail helper. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "model.h"

const char *gp_strerror(int err)
{
	switch (err) {
	case GP_OK: return "success";
	case GP_ENOMEM: return "out of memory";
	case GP_EINVAL: return "invalid argument";
	case GP_ECONFIG: return "invalid configuration";
	case GP_EIO: return "input/output error";
	case GP_ENOENT: return "no such object";
	case GP_ERANGE: return "value out of range";
	case GP_EJSON: return "invalid JSON";
	case GP_ENET: return "network error";
	case GP_ESTALE: return "data is stale";
	case GP_ENOFIT: return "no placement fits";
	case GP_ELIMIT: return "a gpuplace limit was exceeded";
	case GP_EHWLOC: return "hwloc error";
	case GP_EINTERNAL: return "internal error";
	default: return "unknown error";
	}
}

int gp__errorf(gp_error_t *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->text, sizeof(err->text), fmt, ap);
		va_end(ap);
	}
	return code;
}
