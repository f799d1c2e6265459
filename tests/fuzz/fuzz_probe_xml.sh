#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# TAP wrapper: run the hwloc XML fuzz target over tests/data/probe/*.xml
# (and the crash inputs of ../shared/data/hwloc-crashes when present).
# Every input costs a fork (the trial load), hence fewer iterations.
top_src=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
top_build=${GP_TOP_BUILDDIR:-.}
crashes=${GP_SHARED_DATA:-$top_src/../shared/data}/hwloc-crashes
bin="$top_build/tests/fuzz/fuzz_probe_xml"
if [ ! -x "$bin" ]; then
	echo "1..0 # SKIP $bin not built"
	exit 0
fi
GP_FUZZ_ITERATIONS=${GP_FUZZ_ITERATIONS:-500}
export GP_FUZZ_ITERATIONS
set -- "$top_src"/tests/data/probe/*.xml
[ -d "$crashes" ] && set -- "$@" "$crashes"/*.xml
exec "$bin" "$@"
