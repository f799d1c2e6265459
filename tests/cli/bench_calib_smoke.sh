#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/bench_calib still runs over the calibration set in the repository
# (tests/data/cost/measured): a row per table, the ALL row, the size decades
# and the verdict line (blind tables of holdout.csv, which no default was
# derived from, stay out of it: their error and the verdict with them are
# the two lines after it); then the held-out score of
# tests/data/cost/holdout.csv: a row per score or blind table, the fits, the
# node-count groups and its verdict.
# Last, both targets are held: `bench_calib --check` exits 0 (in sample:
# median |error| <= 10 %, every decade's median signed error within 5 %;
# held out: median |error| <= 10 %, no size or node-count decade above
# 20 %), so a model change that loses either fails here.
b=${GP_TOP_BUILDDIR:-.}
s=${GP_TOP_SRCDIR:-${srcdir:-.}}
t=$(mktemp -d "${TMPDIR:-/tmp}/gp-bcal.XXXXXX")
trap 'rm -rf "$t"' EXIT
echo "1..5"
GP_SRCDIR="$s" "$b/bench/bench_calib" >"$t/out" 2>&1
rc=$?
n=$(ls "$s"/tests/data/cost/measured/*.txt | wc -l)
rows=$(sed '/^held out/,$d' "$t/out" | grep -c '\.txt  *[0-9]')
if [ "$rc" = 0 ] && [ "$rows" = "$n" ] && [ "$n" -ge 7 ]; then
	echo "ok 1 - bench_calib: a row per measured table ($n)"
else
	echo "not ok 1 - bench_calib rows ($rows of $n, exit $rc)"; sed 's/^/# /' "$t/out" | head -n 30
fi
pts=$(awk '$1 == "ALL" && $2 ~ /^[0-9]+$/ { print $2 }' "$t/out")
if [ -n "$pts" ] && [ "$pts" -ge 150 ] && grep -q '^1e0 \.\.1e1 ' "$t/out" && grep -q '^1e9 \.\.1e10' "$t/out"; then
	echo "ok 2 - bench_calib: $pts points, decades from 8 B to 8 GiB"
else
	echo "not ok 2 - bench_calib points/decades"; sed 's/^/# /' "$t/out" | tail -n 15
fi
nb=$(grep -c '^blind,' "$s/tests/data/cost/holdout.csv")
if grep -q '^target: median |error| <= 10 %, |median signed error| <= 5 % per decade: \(met\|NOT MET\)$' "$t/out" &&
   { [ "$nb" = 0 ] || { grep -q "^blind tables ($nb, not in this target; held out below): median |error| [0-9.]* %" "$t/out" &&
                        grep -q '^with them in sample: median |error| [0-9.]* %, target \(met\|NOT MET\)' "$t/out"; }; }; then
	echo "ok 3 - bench_calib: verdict line ($nb blind tables outside it, reported beside it)"
else
	echo "not ok 3 - bench_calib verdict"; tail -n 3 "$t/out" | sed 's/^/# /'
fi
nh=$(grep -c '^\(score\|blind\),' "$s/tests/data/cost/holdout.csv")
hrows=$(sed -n '/^score table/,/^ALL held out/p' "$t/out" | grep -c '\.txt  *[0-9]')
if [ "$nh" -ge 3 ] && [ "$hrows" = "$nh" ] && grep -q '^fit ib  *on [0-9]* table(s): NetStepUs=' "$t/out" &&
   grep -q '^2\.\.9  ' "$t/out" &&
   grep -q '^held-out target: median |error| <= 10 %, <= 20 % in every size and node-count decade: \(met\|NOT MET\)$' "$t/out"; then
	echo "ok 4 - bench_calib: held out, $hrows score tables, fits, node counts and verdict"
else
	echo "not ok 4 - bench_calib held out ($hrows of $nh score tables)"; sed -n '/^held out/,$p' "$t/out" | sed 's/^/# /'
fi
GP_SRCDIR="$s" "$b/bench/bench_calib" --check >"$t/check" 2>&1
rc=$?
if [ "$rc" = 0 ]; then
	echo "ok 5 - bench_calib --check: in-sample and held-out targets met ($(awk '$1 == "ALL" && $2 == "held" { print $5 }' "$t/check") held out)"
else
	echo "not ok 5 - bench_calib --check exit $rc"; grep -E '^(ALL|target|held-out target|1e|[0-9.]+ +[0-9])' "$t/check" | sed 's/^/# /'
fi
