#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The SPANK plugin resolves against libslurmfull.so and exports its hooks.
b=${GP_TOP_BUILDDIR:-.}
if [ -z "${SLURM_FULL_LIB:-}" ] || [ ! -f "$SLURM_FULL_LIB" ]; then
	echo "1..0 # SKIP libslurmfull.so not found (Slurm not installed)"
	exit 0
fi
"$b/tests/unit/dlcheck" "$SLURM_FULL_LIB" "$b/plugin/.libs/spank_gpuplace.so" \
	plugin_name plugin_type plugin_version slurm_spank_init slurm_spank_init_post_opt || exit 1
