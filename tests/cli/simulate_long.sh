#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check-long: gpuplace simulate on 20,000 jobs of the real Philly trace
# (../shared/data, GP_SHARED_DATA) on the SuperPOD example, three policies;
# SKIP when the trace is absent.  The short runs: tests/cli/simulate_cli.sh.
b=${GP_TOP_BUILDDIR:-.}
s=${GP_TOP_SRCDIR:-.}
g="$b/gpuplace"
t=$(mktemp -d "${TMPDIR:-/tmp}/gp-simlong.XXXXXX")
trap 'rm -rf "$t"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
no() { n=$((n + 1)); echo "not ok $n - $1"; sed 's/^/# /' "$t/out" "$t/err" 2>/dev/null | head -n 30; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
run() { "$@" >"$t/out" 2>"$t/err"; echo $? >"$t/rc"; }
rc() { cat "$t/rc"; }
echo "1..1"

real="${GP_SHARED_DATA:-$s/../shared/data}/traces/philly_pollux_82k.csv"
if [ ! -r "$real" ]; then
	skip "real Philly trace not found at $real (GP_SHARED_DATA)"
else
	run "$g" simulate --conf-dir "$s/etc/superpod-h100" --trace "$real" --out-dir "$t/f" --no-plots \
		--policies first-fit,tree,balanced --max-jobs 20000
	if [ "$(rc)" = 0 ] && grep -q '^balanced  *[0-9]' "$t/out" &&
		[ "$(awk -F, 'NR > 1 { s += $3 + $4 } END { print s }' "$t/f/summary.csv")" -gt 0 ] &&
		[ "$(wc -l <"$t/f/jobs.csv")" = $((3 * 20000 + 1)) ]; then
		ok "simulate: 20,000 jobs of the real Philly trace on the SuperPOD example"
	else no "real trace"; fi
fi
