/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_redfish.c - fuzz target: the Redfish Power / EnvironmentMetrics
 * parser on arbitrary bytes, with and without a member name filter. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "power.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gp_error_t err;
	double w;
	int rc;
	char *buf = malloc(size + 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	err.text[0] = '\0';
	rc = gp__parse_redfish(buf, size, NULL, &w, &err);
	if (rc < 0 && !err.text[0])
		abort(); /* every failure says why */
	if (rc < 0 && w != 0.0)
		abort(); /* no half-written result */
	(void)gp__parse_redfish(buf, size, "r1", &w, &err);
	free(buf);
	return 0;
}
