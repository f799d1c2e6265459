#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The Prometheus/file and Redfish parser fuzz targets built with
# AddressSanitizer and UndefinedBehaviorSanitizer, over the same seeds as
# fuzz_prom.sh and fuzz_redfish.sh; any sanitizer report fails.  TAP.
src=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
b=${GP_TOP_BUILDDIR:-.}
d=$src/tests/data/telemetry
GP_FUZZ_ITERATIONS=${GP_FUZZ_ITERATIONS:-5000}
export GP_FUZZ_ITERATIONS
echo "1..2"
if "$b/tests/fuzz/asan_fuzz_prom" "$d"/prom_*.json "$d/power_file.json" "$d/garbage.html" >"$b/tests/fuzz/asan_fuzz_prom.out" 2>&1; then
	echo "ok 1 - Prometheus/file parsers: $GP_FUZZ_ITERATIONS mutations, no sanitizer report"
else
	echo "not ok 1 - Prometheus/file parsers under the sanitizers"; sed 's/^/# /' "$b/tests/fuzz/asan_fuzz_prom.out" | tail -n 30
fi
if "$b/tests/fuzz/asan_fuzz_redfish" "$d"/redfish_*.json "$d/garbage.html" >"$b/tests/fuzz/asan_fuzz_redfish.out" 2>&1; then
	echo "ok 2 - Redfish parser: $GP_FUZZ_ITERATIONS mutations, no sanitizer report"
else
	echo "not ok 2 - Redfish parser under the sanitizers"; sed 's/^/# /' "$b/tests/fuzz/asan_fuzz_redfish.out" | tail -n 30
fi
rm -f "$b/tests/fuzz/asan_fuzz_prom.out" "$b/tests/fuzz/asan_fuzz_redfish.out"
