#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# run-one.sh TARGET - one libFuzzer run for tests/fuzz/run-all.sh, which
# sets GP_FUZZ_WORK (binaries, corpora, logs) and GP_FUZZ_LIMIT (-runs=N
# and/or -max_total_time=S) and the sanitizer options.  Writes
# GP_FUZZ_WORK/log/TARGET.log and a one-line TARGET.summary.
t=$1
work=$GP_FUZZ_WORK
mkdir -p "$work/crashes/$t"
start=$(date +%s)
# shellcheck disable=SC2086
# -detect_leaks=0: no LeakSanitizer pass after every input whose mallocs and
# frees differ (libslurm leaks on each rejected host range, suppressed but
# scanned: 100 times slower); the pass at exit still reports any leak.
"$work/bin/fuzz_$t" $GP_FUZZ_LIMIT -seed=1 -timeout=25 -rss_limit_mb=2048 -detect_leaks=0 \
	-print_final_stats=1 -artifact_prefix="$work/crashes/$t/" "$work/corpus/$t" \
	>"$work/log/$t.log" 2>&1
rc=$?
end=$(date +%s)
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log/$t.log" | tail -1)
[ -n "$execs" ] || execs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$work/log/$t.log" | tail -1)
# slow-unit-* files are reports, not failures
crashes=$(ls "$work/crashes/$t" | grep -c -v "^slow-unit-")
[ $rc -ne 0 ] && [ "$crashes" -eq 0 ] && crashes=1
printf '%-14s executions %10s  crashes %d  seconds %d  exit %d\n' "$t" "${execs:-0}" "$crashes" \
	$((end - start)) $rc >"$work/log/$t.summary"
