#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# TAP wrapper: run the probe fragment fuzz target over tests/data/probe/*.json.
top_src=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
top_build=${GP_TOP_BUILDDIR:-.}
bin="$top_build/tests/fuzz/fuzz_probe"
if [ ! -x "$bin" ]; then
	echo "1..0 # SKIP $bin not built"
	exit 0
fi
GP_FUZZ_ITERATIONS=${GP_FUZZ_ITERATIONS:-20000}
export GP_FUZZ_ITERATIONS
exec "$bin" "$top_src"/tests/data/probe/*.json
