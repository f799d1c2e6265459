#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The built plugins resolve every symbol against the library slurmctld and
# the Slurm commands load them with (RTLD_NOW), and export Slurm's entry points.
b=${GP_TOP_BUILDDIR:-.}
if [ -z "${SLURM_FULL_LIB:-}" ] || [ ! -f "$SLURM_FULL_LIB" ]; then
	echo "1..0 # SKIP libslurmfull.so not found (slurmctld not installed)"
	exit 0
fi
"$b/tests/unit/dlcheck" "$SLURM_FULL_LIB" "$b/plugin/.libs/job_submit_gpuplace.so" \
	plugin_name plugin_type plugin_version init fini job_submit job_modify || exit 1
