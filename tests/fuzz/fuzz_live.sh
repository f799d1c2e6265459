#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# TAP wrapper: run the fuzz target of the plugin's reading of Slurm's node
# and job records (tests/fuzz/fuzz_live.c) over tests/data/plugin/live/*.txt
# and their mutations.
top_src=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
top_build=${GP_TOP_BUILDDIR:-.}
bin="$top_build/tests/fuzz/fuzz_live"
if [ ! -x "$bin" ]; then
	echo "1..0 # SKIP $bin not built"
	exit 0
fi
GP_TOP_SRCDIR=$top_src
GP_FUZZ_ITERATIONS=${GP_FUZZ_ITERATIONS:-10000}
export GP_TOP_SRCDIR GP_FUZZ_ITERATIONS
exec "$bin" "$top_src"/tests/data/plugin/live/*.txt
