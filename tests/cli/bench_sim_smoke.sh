#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/bench_sim still runs and prints its verdict: a short run (100 jobs
# per synthetic trace, no real trace), so a broken benchmark cannot hide
# until someone measures.  The throughput itself is the benchmark's to judge.
b=${GP_TOP_BUILDDIR:-.}
t=$(mktemp -d "${TMPDIR:-/tmp}/gp-bsim.XXXXXX")
trap 'rm -rf "$t"' EXIT
echo "1..2"
GP_SHARED_DATA="$t/none" "$b/bench/bench_sim" 100 >"$t/out" 2>&1
rc=$?
rows=0
for p in first-fit tree balanced pack performance power-save; do
	for tr in synth-philly synth-large; do
		grep -q "^$tr  *$p  *100 " "$t/out" && rows=$((rows + 1))
	done
done
if [ "$rows" = 12 ] && grep -q '^# real Philly trace not run: ' "$t/out"; then
	echo "ok 1 - bench_sim: a row per trace and policy, the real trace skipped without data"
else
	echo "not ok 1 - bench_sim rows ($rows of 12)"; sed 's/^/# /' "$t/out" | head -n 30
fi
if [ "$rc" = 0 ] && grep -q '^# slowest policy: .* target: PASS$' "$t/out"; then
	echo "ok 2 - bench_sim: verdict line and exit status 0"
else
	echo "not ok 2 - bench_sim verdict (exit $rc)"; tail -n 3 "$t/out" | sed 's/^/# /'
fi
