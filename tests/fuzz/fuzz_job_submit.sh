#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# TAP wrapper: run the plugin's submission-path fuzz target
# (tests/fuzz/fuzz_job_submit.c) over tests/data/plugin/jobs/*.txt and
# their mutations.  Each input is a whole decision, so fewer of them than
# the string targets take.
top_src=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
top_build=${GP_TOP_BUILDDIR:-.}
bin="$top_build/tests/fuzz/fuzz_job_submit"
if [ ! -x "$bin" ]; then
	echo "1..0 # SKIP $bin not built"
	exit 0
fi
GP_TOP_SRCDIR=$top_src
GP_FUZZ_ITERATIONS=${GP_FUZZ_ITERATIONS:-10000}
export GP_TOP_SRCDIR GP_FUZZ_ITERATIONS
exec "$bin" "$top_src"/tests/data/plugin/jobs/*.txt
