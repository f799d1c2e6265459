#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# TAP wrapper: run the prom parser fuzz target over the recorded answers in
# tests/data/telemetry as seeds (20,000 mutations take a few seconds).
top_src=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
top_build=${GP_TOP_BUILDDIR:-.}
bin="$top_build/tests/fuzz/fuzz_prom"
if [ ! -x "$bin" ]; then
	echo "1..0 # SKIP $bin not built"
	exit 0
fi
GP_FUZZ_ITERATIONS=${GP_FUZZ_ITERATIONS:-20000}
export GP_FUZZ_ITERATIONS
exec "$bin" "$top_src"/tests/data/telemetry/prom_*.json "$top_src"/tests/data/telemetry/power_file.json "$top_src"/tests/data/telemetry/garbage.html
