#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gpuplace trace as a user runs it: synth -> check -> show, determinism of
# synth, the messages of bad traces, models as the cluster, usage errors.
b=${GP_TOP_BUILDDIR:-.}
s=${GP_TOP_SRCDIR:-.}
g="$b/gpuplace"
d="$s/tests/data/trace"
t=$(mktemp -d "${TMPDIR:-/tmp}/gp-trace.XXXXXX")
trap 'rm -rf "$t"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
no() { n=$((n + 1)); echo "not ok $n - $1"; sed 's/^/# /' "$t/out" "$t/err" 2>/dev/null | head -n 20; }
run() { "$@" >"$t/out" 2>"$t/err"; echo $? >"$t/rc"; }
rc() { cat "$t/rc"; }
echo "1..16"

run "$g" trace synth --jobs 2000 --gpus 512 --gpus-per-node 8 --seed 7 -o "$t/a.csv"
if [ "$(rc)" = 0 ] && [ "$(head -n 1 "$t/a.csv")" = "submit_time_s,duration_s,gpus,nodes" ] &&
	[ "$(wc -l <"$t/a.csv")" = 2001 ] && grep -q '2000 jobs .* on 512 GPUs, written to' "$t/err"; then
	ok "synth -o writes a header and 2000 rows"
else no "synth -o"; fi

run "$g" trace check "$t/a.csv"
if [ "$(rc)" = 0 ] && [ "$(cat "$t/out")" = "$t/a.csv: 2000 jobs ok" ]; then
	ok "check: the synthetic trace is valid"
else no "check"; fi

run "$g" trace show "$t/a.csv"
if [ "$(rc)" = 0 ] && grep -q '^jobs: *2000 ' "$t/out" && grep -q '^duration (s): p50 [0-9]*, p90 ' "$t/out" &&
	grep -q '^ *1 *[0-9][0-9]* ' "$t/out"; then
	ok "show: jobs, duration quantiles, GPU histogram"
else no "show"; fi

run "$g" trace show --jobs 10 "$t/a.csv"
if [ "$(rc)" = 0 ] && grep -q '^jobs: *10 ' "$t/out"; then ok "show --jobs 10 summarises the first 10"; else no "show --jobs"; fi

run "$g" trace synth --jobs 2000 --gpus 512 --gpus-per-node 8 --seed 7
if [ "$(rc)" = 0 ] && cmp -s "$t/out" "$t/a.csv"; then
	ok "synth: the same options give the same bytes (standard output = -o)"
else no "determinism"; fi

run "$g" trace synth --jobs 2000 --gpus 512 --gpus-per-node 8 --seed 8
if [ "$(rc)" = 0 ] && ! cmp -s "$t/out" "$t/a.csv"; then ok "synth: another seed, another trace"; else no "seed"; fi

# every job of 16 GPUs on 8-GPU nodes asks for 2 nodes; 4-GPU jobs leave nodes empty
run "$g" trace synth --jobs 300 --conf-dir "$s/etc/superpod-h100" --sizes 4:1,16:1 --median 600 --p90 3600
if [ "$(rc)" = 0 ] && [ "$(grep -c ',16,2$' "$t/out")" -gt 0 ] && [ "$(grep -c ',4,$' "$t/out")" -gt 0 ] &&
	[ "$(grep -c ',16,2$\|,4,$' "$t/out")" = 300 ]; then
	ok "synth --conf-dir: nodes from the model's GPUs per node"
else no "synth --conf-dir"; fi

"$g" cluster export --conf-dir "$s/etc/superpod-h100" >"$t/model.json" 2>"$t/err"
run "$g" trace synth --jobs 300 --json "$t/model.json" --sizes 4:1,16:1 --median 600 --p90 3600
cp "$t/out" "$t/json.csv"
run "$g" trace synth --jobs 300 --conf-dir "$s/etc/superpod-h100" --sizes 4:1,16:1 --median 600 --p90 3600
if [ "$(rc)" = 0 ] && [ -s "$t/json.csv" ] && cmp -s "$t/out" "$t/json.csv"; then
	ok "synth --json: the same cluster as JSON gives the same trace"
else no "synth --json"; fi

run "$g" trace check "$d/bad_gpus.csv"
if [ "$(rc)" = 1 ] && [ ! -s "$t/out" ] &&
	grep -q "^gpuplace trace check: $d/bad_gpus.csv:4: column 'gpus' value 'eight': not a whole number$" "$t/err"; then
	ok "check: a bad value is named with file, line, column and value; exit 1"
else no "bad value"; fi

run "$g" trace check "$d/philly_like.csv" "$d/bad_header.csv" "$d/crlf.csv"
if [ "$(rc)" = 1 ] && [ "$(wc -l <"$t/out")" = 2 ] && grep -q "^$d/crlf.csv: 3 jobs ok$" "$t/out" &&
	grep -q "bad_header.csv:2: header has no column 'duration_s' (header found: 'submit_time_s,duration,gpus_per_job'" "$t/err"; then
	ok "check of several files: each good one ok, the bad one's missing column and header"
else no "several files"; fi

run "$g" trace show "$t/no-such.csv"
if [ "$(rc)" = 1 ] && grep -q "cannot read $t/no-such.csv: No such file" "$t/err"; then
	ok "show of a missing file: exit 1 naming it"
else no "missing file"; fi

run "$g" trace synth --gpus 64
if [ "$(rc)" = 2 ] && grep -q -- '--jobs N is required' "$t/err"; then ok "synth without --jobs: usage error"; else no "no --jobs"; fi

run "$g" trace synth --jobs 10 --gpus 64 --conf-dir "$s/etc/superpod-h100"
if [ "$(rc)" = 2 ] && grep -q 'exactly one of' "$t/err"; then ok "synth with two clusters: usage error"; else no "two clusters"; fi

run "$g" trace synth --jobs 10 --gpus 64 --sizes 8:1,8:2
if [ "$(rc)" = 2 ] && grep -q "sizes: item '8:2': 8 GPUs given twice" "$t/err"; then
	ok "synth --sizes: the bad item is named"
else no "bad sizes"; fi

run "$g" trace synth --jobs 10 --gpus 64 --median 5000 --p90 4000
if [ "$(rc)" = 2 ] && grep -q 'dur_p90_s: 4000 must be above dur_median_s (5000)' "$t/err"; then
	ok "synth: a p90 below the median is a usage error naming the parameter"
else no "bad p90"; fi

run "$g" trace frobnicate
a=$(rc)
run "$g" trace synth --help
if [ "$a" = 2 ] && [ "$(rc)" = 0 ] && grep -q -- '--gpus-per-node G' "$t/out"; then
	ok "unknown sub-command exits 2; synth --help exits 0"
else no "usage"; fi
