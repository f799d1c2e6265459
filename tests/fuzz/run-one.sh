#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# run-one.sh TARGET - one libFuzzer run for tests/fuzz/run-all.sh, which
# sets GP_FUZZ_BIN (the binaries), GP_FUZZ_WORK (corpora, logs), GP_FUZZ_LIMIT (-runs=N
# and/or -max_total_time=S), GP_FUZZ_SHARDS (processes of this target at
# once, each with its own -seed and its share of -runs, all growing the one
# corpus; executions are their sum) and the sanitizer options.  Writes
# GP_FUZZ_WORK/log/TARGET.log (TARGET.N.log per shard) and a one-line
# TARGET.summary.
t=$1
work=$GP_FUZZ_WORK
mkdir -p "$work/crashes/$t"
shards=${GP_FUZZ_SHARDS:-1}
limit=$GP_FUZZ_LIMIT
runs=$(echo "$limit" | sed -n 's/.*-runs=\([0-9]*\).*/\1/p')
if [ -n "$runs" ] && [ "$shards" -gt 1 ]; then
	limit=$(echo "$limit" | sed "s/-runs=[0-9]*/-runs=$(((runs + shards - 1) / shards))/")
fi
start=$(date +%s)
# -detect_leaks=0: no LeakSanitizer pass after every input whose mallocs and
# frees differ (libslurm leaks on each rejected host range, suppressed but
# scanned: 100 times slower); the pass at exit still reports any leak.
pids=
i=1
while [ $i -le "$shards" ]; do
	log=$work/log/$t.log
	[ "$shards" -gt 1 ] && log=$work/log/$t.$i.log
	# shellcheck disable=SC2086
	"$GP_FUZZ_BIN/fuzz_$t" $limit -seed=$i -timeout=25 -rss_limit_mb=2048 -detect_leaks=0 \
		-print_final_stats=1 -artifact_prefix="$work/crashes/$t/" "$work/corpus/$t" \
		>"$log" 2>&1 &
	pids="$pids $!"
	i=$((i + 1))
done
rc=0
for p in $pids; do
	wait "$p" || rc=$?
done
end=$(date +%s)
if [ "$shards" -gt 1 ]; then
	i=1
	: >"$work/log/$t.log"
	while [ $i -le "$shards" ]; do
		{ echo "==== shard $i (-seed=$i)"; cat "$work/log/$t.$i.log"; } >>"$work/log/$t.log"
		i=$((i + 1))
	done
fi
# the executions of each shard: its final stats, or its last "Done N runs"
execs=0
i=1
while [ $i -le "$shards" ]; do
	l=$work/log/$t.log
	[ "$shards" -gt 1 ] && l=$work/log/$t.$i.log
	e=$(sed -n 's/^stat::number_of_executed_units: *//p' "$l" | tail -1)
	[ -n "$e" ] || e=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$l" | tail -1)
	execs=$((execs + ${e:-0}))
	i=$((i + 1))
done
# slow-unit-* files are reports, not failures
crashes=$(ls "$work/crashes/$t" | grep -c -v "^slow-unit-")
[ $rc -ne 0 ] && [ "$crashes" -eq 0 ] && crashes=1
printf '%-14s executions %10s  crashes %d  seconds %d  exit %d%s\n' "$t" "$execs" "$crashes" \
	$((end - start)) $rc "$([ "$shards" -gt 1 ] && echo "  shards $shards")" >"$work/log/$t.summary"
