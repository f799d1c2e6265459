#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm_valgrind.sh - slurmctld runs under valgrind with job_submit/gpuplace
# loaded while it takes 250 submissions, 50 of each of five kinds
# (--gpus=8; --gpus=16 with hints; --gpus=2 on one node; a bad hint,
# rejected; no GPU, passed unchanged), held, so that the plugin's ledger
# and steering passes carry them, and is stopped; valgrind must report 0 errors
# and no definitely lost memory in every process it followed.
# (GP_VALGRIND_SUBMITS sets the count: each submission costs slurmctld
# about 0.1 CPU-second under valgrind, and every path is taken 50 times.)
# Prints TAP.  Slow (about a minute): skipped inside make distcheck, whose
# make check already ran it, and where valgrind or Slurm is missing.
set -u
top=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${GP_TOP_BUILDDIR:-$top}
N=${GP_VALGRIND_SUBMITS:-250}
echo "1..3"
skip_all() { for i in 1 2 3; do echo "ok $i # SKIP $1"; done; exit 0; }
[ -z "${GP_SANITIZERS:-}" ] || skip_all "built with sanitizers (valgrind cannot run ASan code)"
[ "$(id -u)" = 0 ] || skip_all "integration tests need root"
command -v valgrind >/dev/null 2>&1 || skip_all "valgrind is not installed"
for b in slurmctld slurmd munged sbatch; do command -v $b >/dev/null 2>&1 || skip_all "$b is not installed"; done
[ -f "$build/plugin/.libs/job_submit_gpuplace.so" ] || skip_all "plugin not built"

export D=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-vg.XXXXXX")
export CTLPORT=${CTLPORT:-$((16987 + ${GP_PORT_OFFSET:-0}))} BASEPORT=${BASEPORT:-$((17800 + ${GP_PORT_OFFSET:-0}))}
export JOB_SUBMIT=gpuplace PLUGIN_DIR=$build/plugin/.libs SPANK_PLUGINS=$build/plugin/.libs/spank_gpuplace.so
export VALGRIND_LOG=$D/valgrind.%p.log
# a telemetry source that is down: the poller thread runs its failure path too
export TELEMETRY_URL=http://127.0.0.1:9/api/v1/query
export SLURM_CONF=$D/etc/slurm.conf
H="bash $top/tests/slurm/harness.sh"
trap '$H down >/dev/null 2>&1; rm -rf "$D"' EXIT

if ! $H up 2>"$D/up.log"; then
	echo "not ok 1 - slurmctld under valgrind did not come up"; sed 's/^/# /' "$D/up.log"
	echo "not ok 2 - no submissions"; echo "not ok 3 - no report"; exit 0
fi
echo "ok 1 - slurmctld with job_submit/gpuplace up under valgrind"
sleep 4
accepted=0 rejected=0 failed=0
for i in $(seq 1 "$N"); do
	case $((i % 5)) in
	0) args="--gpus=8" ;;
	1) args="--gpus=16 --gpuplace=tp=8,params=7e9" ;;
	2) args="--gpus=2 -N1" ;;
	3) args="--gpus=8 --gpuplace-tp=x" ;;   # a bad hint: rejected
	4) args="-N1" ;;                       # no GPU: passes unchanged
	esac
	# a rejection names gpuplace; any other failure (a submission timing
	# out against slurmctld slowed down by valgrind on a busy machine) is
	# tried again, at most three times
	for try in 1 2 3; do
		# shellcheck disable=SC2086
		if sbatch -Q --hold $args -o /dev/null --wrap=true 2>"$D/sbatch.err"; then
			accepted=$((accepted + 1))
			break
		elif grep -q 'gpuplace' "$D/sbatch.err"; then
			rejected=$((rejected + 1))
			break
		elif [ $try = 3 ]; then
			failed=$((failed + 1))
			cp "$D/sbatch.err" "$D/failed.err"
		fi
		sleep 1
	done
done
if [ $rejected = $((N / 5)) ] && [ $accepted = $((N - N / 5)) ] && [ $failed = 0 ]; then
	echo "ok 2 - $N submissions: $accepted accepted, $rejected rejected for bad hints"
else
	echo "not ok 2 - $N submissions: $accepted accepted, $rejected rejected (expected $((N / 5))), $failed failed"
	sed 's/^/# /' "$D/failed.err" 2>/dev/null | head -n 3
fi
$H down >/dev/null 2>&1
bad=$(grep -h -E 'ERROR SUMMARY: [1-9]|definitely lost: [1-9]' "$D"/valgrind.*.log)
summaries=$(grep -h -c 'ERROR SUMMARY' "$D"/valgrind.*.log | paste -sd+ | bc)
if [ -z "$bad" ] && [ "${summaries:-0}" -ge 1 ]; then
	echo "ok 3 - valgrind: 0 errors, 0 bytes definitely lost in $summaries process(es)"
else
	echo "not ok 3 - valgrind reports errors or no summary"
	grep -h -E 'ERROR SUMMARY|definitely lost|Invalid|uninitialised' "$D"/valgrind.*.log | head -n 20 | sed 's/^/# /'
	# and where: each error's or lost block's stack
	grep -h -A 24 -E 'are definitely lost|^==[0-9]+== (Invalid|Conditional|Use of uninit)' "$D"/valgrind.*.log |
		head -n 60 | sed 's/^/# /'
fi
