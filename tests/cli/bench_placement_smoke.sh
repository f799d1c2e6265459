#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/bench_placement still runs, and its --jobs file agrees with the
# table it prints: a short run (300 jobs of the synthetic trace, the A100
# site at twice its density, where jobs wait), every policy's rows, each
# policy's mean wait from the file against the table's wait-h column, and
# the plugin's decisions only in the gpuplace policies' rows; and
# --draws: the printed draw's ratios among the draws' [lowest to highest],
# each median between them.  The verdicts are the benchmark's to judge,
# not this test's.
b=${GP_TOP_BUILDDIR:-.}
s=${GP_TOP_SRCDIR:-${srcdir:-.}}
t=$(mktemp -d "${TMPDIR:-/tmp}/gp-bpl.XXXXXX")
trap 'rm -rf "$t"' EXIT
echo "1..4"
GP_SRCDIR="$s" GP_SHARED_DATA="$t/none" "$b/bench/bench_placement" --published-only \
	--only a100-oversub/synthetic/dense --jobs "$t/jobs.csv" 300 >"$t/out" 2>&1
rc=$?
# the policies of the scenario's table: "name" or "name*" then numbers
sed -n '/^policy /,/^ratio /p' "$t/out" | sed '1d;$d' | awk '{sub(/\*$/, "", $1); print $1, $3}' \
	>"$t/table"
npol=$(wc -l <"$t/table")
head -n 1 "$t/jobs.csv" >"$t/header"
if [ "$rc" = 0 ] && [ "$npol" -ge 4 ] &&
	[ "$(cat "$t/header")" = "scenario,judge,policy,job,gpus,submit_s,start_s,wait_s,duration_s,leaves,decision,slowdown,steered,killed" ]; then
	echo "ok 1 - bench_placement --jobs: exit status 0, a table of $npol policies, the header"
else
	echo "not ok 1 - bench_placement (exit $rc, $npol policies)"
	sed 's/^/# /' "$t/out" | head -n 20
	sed 's/^/# /' "$t/header"
fi
bad=$(awk -F, -v table="$t/table" '
	BEGIN { while ((getline l < table) > 0) { split(l, f, " "); want[f[1]] = f[2]; np++ } }
	NR > 1 {
		n[$3]++
		if ($7 >= 0) { started[$3]++; w[$3] += $8
			if ($8 - ($7 - $6) > 0.002 || ($7 - $6) - $8 > 0.002) { print "job " $4 " of " $3 ": wait " $8 " is not start - submit"; e++ } }
	}
	END {
		for (p in want) {
			if (n[p] != 300) { print p ": " n[p] + 0 " rows, not 300"; e++; continue }
			m = w[p] / started[p] / 3600
			if (m - want[p] > 0.0006 || want[p] - m > 0.0006) {
				printf "%s: mean wait %.4f h from the file, %s in the table\n", p, m, want[p]; e++ }
		}
		for (p in n) if (!(p in want)) { print p ": rows but no table line"; e++ }
		exit e > 0
	}' "$t/jobs.csv")
if [ $? = 0 ]; then
	echo "ok 2 - bench_placement --jobs: 300 rows per policy, each mean wait as the table prints it"
else
	echo "not ok 2 - bench_placement --jobs rows"; echo "$bad" | head -n 10 | sed 's/^/# /'
fi
# Slurm's baselines carry no decision; the default preset decides its
# multi-GPU jobs (pin or constrain) and passes its one-GPU ones
bad=$(awk -F, 'NR > 1 {
	gp = $3 ~ /^balanced/
	if (!gp && $11 != "none") { print $3 " job " $4 ": decision " $11; e++ }
	if (gp && $5 > 1 && $11 == "none") { print $3 " job " $4 " (" $5 " GPUs): no decision"; e++ }
	if (gp && $11 == "pin") pins++
	} END { if (!pins) { print "no PIN in the default preset"; e++ } exit e > 0 }' "$t/jobs.csv")
if [ $? = 0 ]; then
	echo "ok 3 - bench_placement --jobs: decisions only where gpuplace decides"
else
	echo "not ok 3 - bench_placement --jobs decisions"; echo "$bad" | head -n 10 | sed 's/^/# /'
fi
# --draws 3: draw 1 is the run printed in full, so its ratios to the best
# target lie within each metric's [lowest to highest], around the median
GP_SRCDIR="$s" GP_SHARED_DATA="$t/none" "$b/bench/bench_placement" --published-only \
	--only a100-oversub/synthetic/dense --draws 3 300 >"$t/draws" 2>&1
rc=$?
"$b/bench/bench_placement" --draws 0 >/dev/null 2>&1
rc0=$?
bad=$(awk '
	/^against the best target, / {
		n = split($0, f, /(lost-GPUh|mean wait|GPUh-weighted wait) /)
		for (k = 2; k <= n; k++) { split(f[k], g, " "); one[k - 1] = g[1] }
	}
	/^over 3 draws of the time limits/ {
		seen = 1
		n = split($0, f, / median /)
		for (k = 2; k <= n; k++) {
			split(f[k], g, /[][ ;,]+/)
			med = g[1]; lo = g[2]; hi = g[4]
			if (!(lo + 0 <= med + 0 && med + 0 <= hi + 0)) { print "metric " k - 1 ": " med " not in [" lo ", " hi "]"; e++ }
			if (one[k - 1] != "0/0" && !(lo + 0 <= one[k - 1] + 0 && one[k - 1] + 0 <= hi + 0)) {
				print "metric " k - 1 ": draw 1 at " one[k - 1] " outside [" lo ", " hi "]"; e++ }
		}
		if ($0 !~ /within target in [0-3] of 3 draws; the medians within target: (yes|NO)$/) {
			print "no count of draws within target"; e++ }
	}
	END { if (!seen) { print "no line over 3 draws"; e++ } exit e > 0 }' "$t/draws")
if [ $? = 0 ] && [ "$rc" = 0 ] && [ "$rc0" = 2 ]; then
	echo "ok 4 - bench_placement --draws: the printed draw within every metric's range, the medians inside"
else
	echo "not ok 4 - bench_placement --draws (exit $rc, --draws 0: $rc0)"
	echo "$bad" | head -n 10 | sed 's/^/# /'; grep -E '^(over|against the best)' "$t/draws" | sed 's/^/# /'
fi
