#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gpuplace simulate as an admin runs it: a synthetic trace on a bundled
# example, the table, the files and the plots; the same numbers twice;
# the gpuplace presets beating first-fit on an NVLink-domain cluster; bad
# input named.  The real Philly trace: tests/cli/simulate_long.sh (make
# check-long).
b=${GP_TOP_BUILDDIR:-.}
s=${GP_TOP_SRCDIR:-.}
g="$b/gpuplace"
t=$(mktemp -d "${TMPDIR:-/tmp}/gp-sim.XXXXXX")
trap 'rm -rf "$t"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
no() { n=$((n + 1)); echo "not ok $n - $1"; sed 's/^/# /' "$t/out" "$t/err" 2>/dev/null | head -n 30; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
run() { "$@" >"$t/out" 2>"$t/err"; echo $? >"$t/rc"; }
rc() { cat "$t/rc"; }
# column $2 of policy $1's row of summary.csv in directory $3
col() {
	awk -F, -v p="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
		$1 == p { print $k }' "$3/summary.csv"
}
echo "1..17"

ex="$s/etc/nvl72-gb200"
"$g" trace synth --conf-dir "$ex" --jobs 1500 --load 0.9 --seed 3 --max 28800 \
	--sizes 1:0.3,2:0.1,4:0.1,8:0.25,16:0.12,32:0.08,64:0.05 -o "$t/trace.csv" 2>"$t/err"

run "$g" simulate --conf-dir "$ex" --trace "$t/trace.csv" --out-dir "$t/a"
if [ "$(rc)" = 0 ] && grep -q '^policy  *done  *rej' "$t/out" &&
	for p in first-fit tree block balanced pack performance power-save; do
		grep -q "^$p  *1500 " "$t/out" || exit 1
	done; then
	ok "simulate: a table row per policy (Slurm's block plugin too on this topology/block site), every job done"
else no "simulate table"; fi

if for f in summary.csv summary.json jobs.csv timeseries.csv racks.csv; do [ -s "$t/a/$f" ] || exit 1; done &&
	[ "$(wc -l <"$t/a/summary.csv")" = 8 ] && [ "$(wc -l <"$t/a/jobs.csv")" = $((7 * 1500 + 1)) ] &&
	[ "$(awk -F, 'NR > 1 && $13 == 0 && $16 !~ /^gb[0-9][0-9][0-9]$/' "$t/a/jobs.csv" | wc -l)" = 0 ]; then
	ok "simulate: summary, jobs (with their first node), time-series and rack files"
else no "simulate files"; fi

# jobs.csv: every started job's full node list with GPUs per node adds up
# to its GPUs; gpuplace presets log a decision for every multi-GPU job (a
# one-GPU job passes the plugin unchanged), baselines none
bad=$(awk -F, 'NR > 1 && $8 >= 0 { n = split($19, a, ";"); s = 0
		for (i = 1; i <= n; i++) { split(a[i], b, ":"); s += b[2] }
		if (n != $4 || s != $3) print }
	NR > 1 && $1 == "first-fit" && $17 != "-" { print }
	NR > 1 && $1 == "balanced" && $3 > 1 && $17 !~ /^(PIN|CONSTRAIN|REJECT)$/ { print }
	NR > 1 && $1 == "balanced" && $3 == 1 && $17 != "-" { print }' "$t/a/jobs.csv" | head -n 3)
if [ -z "$bad" ] && [ "$(awk -F, 'NR == 1 { print $17, $18, $19 }' "$t/a/jobs.csv")" = "decision spread nodes" ]; then
	ok "simulate: jobs.csv has every job's nodes and GPUs per node, and the decision gpuplace would log"
else
	n=$((n + 1)); echo "not ok $n - jobs.csv node lists"; echo "$bad" | sed 's/^/# /'
fi

if for p in jct_cdf utilization rack_power; do
		[ "$(head -c 4 "$t/a/$p.png" | od -An -c | tr -d ' ')" = '211PNG' ] || exit 1
		grep -q '<svg' "$t/a/$p.svg" || exit 1
	done; then
	ok "simulate: PNG and SVG plots of JCT CDF, utilization and rack power"
else no "plots"; fi

run "$g" simulate --conf-dir "$ex" --trace "$t/trace.csv" --out-dir "$t/b" --no-plots --threads 1
if [ "$(rc)" = 0 ] && cmp -s "$t/a/summary.csv" "$t/b/summary.csv" && cmp -s "$t/a/jobs.csv" "$t/b/jobs.csv" &&
	cmp -s "$t/a/racks.csv" "$t/b/racks.csv" && [ ! -e "$t/b/jct_cdf.png" ]; then
	ok "simulate: the same inputs give the same numbers (one thread or several)"
else no "determinism"; fi

# --judge: an independent table sets every policy's run times, gpuplace's
# included: with a job over several nodes of one NVLink domain judged 2x
# slower and every spread beyond it 3x, each row's GPU-hours lost to
# placement differ from the engine-judged run (on this NVL72 example the
# gpuplace presets, like Slurm's block, spread no job beyond a domain)
# (the first 300 jobs: enough for every policy to place some over several
# nodes, at a tenth of the CPU time of the whole trace)
printf '%s\n' "spread,count,gpus_per_node,comm,slowdown" "node,*,*,*,1" "domain,*,*,*,2" \
	"leaf,*,*,*,3" "leaves,*,*,*,3" "spines,*,*,*,3" >"$t/judge.csv"
"$g" simulate --conf-dir "$ex" --trace "$t/trace.csv" --out-dir "$t/j0" --no-plots --max-jobs 300 \
	>/dev/null 2>&1
run "$g" simulate --conf-dir "$ex" --trace "$t/trace.csv" --out-dir "$t/j" --no-plots --judge "$t/judge.csv" \
	--max-jobs 300
same=""
for p in first-fit tree balanced pack performance power-save; do
	[ "$(col "$p" lost_place_gpuh "$t/j0")" = "$(col "$p" lost_place_gpuh "$t/j")" ] && same="$same $p"
done
if [ "$(rc)" = 0 ] && [ -z "$same" ] && grep -q "^judge: $t/judge.csv" "$t/out"; then
	ok "simulate --judge: every policy's run times change, gpuplace's included (the table is named)"
else no "--judge changed nothing for:$same"; fi

# On 72-GPU NVLink domains a job that leaves its domain slows down: the
# engine's presets finish jobs sooner on average than first-fit.
ff=$(col first-fit jct_mean_s "$t/a")
bad=""
for p in balanced pack performance power-save; do
	v=$(col "$p" jct_mean_s "$t/a")
	[ -n "$v" ] && [ -n "$ff" ] && awk -v a="$v" -v b="$ff" 'BEGIN { exit !(a < b) }' || bad="$bad $p"
done
if [ -n "$ff" ] && [ -z "$bad" ]; then
	ok "simulate: every preset's mean JCT below first-fit's ($ff s)"
else no "presets vs first-fit:$bad"; fi

run "$g" simulate --conf-dir "$ex" --trace "$t/trace.csv" --out-dir "$t/c" --no-plots --policies tree,site --check --max-jobs 300
if [ "$(rc)" = 0 ] && [ "$(wc -l <"$t/c/summary.csv")" = 3 ] && grep -q '^site  *300 ' "$t/out"; then
	ok "simulate --policies tree,site --check --max-jobs 300"
else no "policies/check/max-jobs"; fi

# On a topology/tree site the default policies include stock Slurm with
# --switches; every policy's waits are reported per job size and weighted
# by GPU-hours, in the table and in summary.csv.
"$g" trace synth --conf-dir "$s/etc/a100-oversub" --jobs 300 --load 1.5 --seed 5 --max 14400 \
	--sizes 1:0.3,8:0.3,16:0.2,32:0.1,64:0.1 -o "$t/tree.csv" 2>"$t/err"
run "$g" simulate --conf-dir "$s/etc/a100-oversub" --trace "$t/tree.csv" --out-dir "$t/w" --no-plots
if [ "$(rc)" = 0 ] && grep -q '^tree-switches  *300 ' "$t/out" && grep -q '^wait (h) .*GPUh-wtd.*33-128' "$t/out" &&
	[ "$(wc -l <"$t/w/summary.csv")" = 8 ] &&
	[ -n "$(col tree-switches wait_mean_s_33_128gpu "$t/w")" ] &&
	[ -n "$(col balanced wait_gpuh_mean_s "$t/w")" ] &&
	[ "$(col tree limits_drawn "$t/w")" = 300 ] &&
	[ "$(awk -F, 'NR == 1 { print $20, $21 }' "$t/w/jobs.csv")" = "limit_s killed" ]; then
	ok "simulate: tree-switches beside tree; waits per size and GPU-hour-weighted; drawn time limits"
else no "tree-switches / per-size waits"; fi

# --bf-plans: backfill plans several queued jobs (conservation checked
# after every event); out of range named
run "$g" simulate --conf-dir "$s/etc/a100-oversub" --trace "$t/tree.csv" --out-dir "$t/bp" --no-plots \
	--policies tree,balanced --bf-plans 8 --check
r1=$(rc)
run "$g" simulate --conf-dir "$s/etc/a100-oversub" --trace "$t/tree.csv" --out-dir "$t/bp2" --no-plots \
	--policies tree --bf-plans 257
if [ "$r1" = 0 ] && [ "$(wc -l <"$t/bp/summary.csv")" = 3 ] && [ "$(rc)" = 2 ] &&
	grep -q -- "--bf-plans.*257" "$t/err"; then
	ok "simulate --bf-plans 8 --check; --bf-plans 257 refused"
else no "--bf-plans"; fi

printf 'submit_time_s,duration_s,gpus\n0,10,8\n5,x,8\n' >"$t/bad.csv"
run "$g" simulate --conf-dir "$ex" --trace "$t/bad.csv" --out-dir "$t/d"
if [ "$(rc)" = 1 ] && grep -q "bad.csv:3: .*duration_s.*'x'" "$t/err" && [ ! -e "$t/d" ]; then
	ok "simulate: a bad trace row is named (file:line, column, value), nothing written"
else no "bad trace"; fi

run "$g" simulate --conf-dir "$ex" --trace "$t/trace.csv" --policies fifo
if [ "$(rc)" = 2 ] && grep -q "unknown policy 'fifo'" "$t/err"; then
	ok "simulate: an unknown policy is named"
else no "unknown policy"; fi

run "$g" simulate --conf-dir "$ex" --trace "$t/trace.csv" --comm-fraction 1.5
if [ "$(rc)" = 2 ] && grep -q -- "--comm-fraction: '1.5' is not a number in \[0.001, 0.999\]" "$t/err"; then
	ok "simulate: --comm-fraction out of range is named"
else no "comm-fraction"; fi

run "$g" simulate --trace "$t/trace.csv"
if [ "$(rc)" = 2 ] && grep -q 'exactly one of --conf-dir or --json' "$t/err"; then
	ok "simulate: usage error without a cluster"
else no "usage"; fi

"$g" cluster export --conf-dir "$ex" >"$t/model.json" 2>/dev/null
run "$g" simulate --json "$t/model.json" --trace "$t/trace.csv" --out-dir "$t/e" --no-plots --policies first-fit,balanced
if [ "$(rc)" = 0 ] && [ "$(col balanced jct_mean_s "$t/e")" = "$(col balanced jct_mean_s "$t/a")" ]; then
	ok "simulate --json: the model as JSON gives the numbers of its conf dir"
else no "json model"; fi

# EASY: the jobs behind the reserved one (job 49, 4 GPUs on one node, after
# 48 one-GPU jobs with staggered ends) never delay its start, even when
# finding its start takes many placement attempts.  Its users ask for
# exactly their run times (time_limit_s = duration_s): with looser limits
# EASY promises only the start its plan computed from them.
r="$t/reservation.csv"
awk -F, 'NR == 1 { print $0 ",time_limit_s"; next } { print $0 "," $2 }' \
	"$s/tests/data/sim/reservation.csv" >"$r"
"$g" simulate --conf-dir "$s/etc/mixed-pcie" --trace "$r" --out-dir "$t/r1" --no-plots --check >"$t/out" 2>"$t/err"
"$g" simulate --conf-dir "$s/etc/mixed-pcie" --trace "$r" --out-dir "$t/r2" --no-plots --max-jobs 49 >>"$t/out" 2>>"$t/err"
with=$(awk -F, '$2 == 49 { printf "%s=%s ", $1, $8 }' "$t/r1/jobs.csv")
alone=$(awk -F, '$2 == 49 { printf "%s=%s ", $1, $8 }' "$t/r2/jobs.csv")
if [ -n "$with" ] && [ "$with" = "$alone" ] &&
	[ "$(awk -F, '$2 > 49 && $14 == 1' "$t/r1/jobs.csv" | wc -l)" -gt 0 ]; then
	ok "simulate: backfilled jobs never delay the reserved job ($with)"
else no "reservation: with the queue behind it: $with; alone: $alone"; fi

# the load line: the trace's offered load and the GPUs the racks power at
# TDP, worked out here from the files.  philly_like.csv: GPU-seconds
# 8 x 2,240,194 + 3,256,045 + 2,643,038 + 16 x 3,219,826 + 4 x 60 + 2 x 1.5
# = 75,338,094 over 640 GPUs x 301,000 s = 0.39; etc/a100-oversub's racks
# power 22 of their 32 GPUs each (tests/cli/power_capacity.sh): 440 of 640.
"$g" simulate --conf-dir "$s/etc/a100-oversub" --trace "$s/tests/data/trace/philly_like.csv" \
	--out-dir "$t/l" --no-plots --policies tree,balanced >"$t/out" 2>"$t/err"
if grep -q '^load: the trace offers 0.39 of the cluster.s 640 GPUs .*; with every rack idle the racks power 440 of their 640 GPUs at TDP (0.69)$' "$t/out"; then
	ok "simulate: the load line, 0.39 offered against racks that power 440 of 640 GPUs"
else no "simulate load line"; fi
