#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench_submit.sh - submit throughput of a real slurmctld with and without
# job_submit/gpuplace, side by side in one run on the same cluster
# (tests/slurm/harness.sh: 8 slurmd, fake GPUs; its N, LEAVES, WEIGHTS,
# NVL_NODES and RACK_NODES variables change the layout).  Rounds alternate
# the two configurations (JobSubmitPlugins switched by scontrol reconfigure)
# so the machine's noise falls on both; each round submits JOBS held 8-GPU
# batch jobs one after another and counts jobs per second, and sdiag gives
# the server's average time per submit RPC.  With BUSY="n1:4 n5:2 ..." those
# GPUs are held by running jobs for the whole run (submitted before the
# plugin is first enabled), so the plugin reads a cluster in use while the
# rounds submit.  Prints, against the 0.95 target,
# the median over rounds of the with/without ratio of each round pair (a
# single slow round, common on a shared 2-core machine, does not decide),
# and the ratio of the means beside it.
#   bench/bench_submit.sh [JOBS per round, default 200] [ROUNDS, default 5] [steer]
# With "steer", both configurations load the plugin and differ only in
# steering: on (gpuplace_steer_max=8 with gpuplace_steer_interval=0, so
# every refresh re-decides up to 32 pending jobs) against off
# (gpuplace_steer_max=0); the cluster is kept full and the submitted jobs
# are not held, so they pend in a backlog the plugin keeps re-deciding.
# Needs root and Debian's Slurm; run from a build tree (make) or set
# GP_TOP_BUILDDIR.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${GP_TOP_BUILDDIR:-$top}
JOBS=${1:-200}
ROUNDS=${2:-5}
STEER=${3:-}
[ "$(id -u)" = 0 ] || { echo "bench_submit: needs root" >&2; exit 2; }
[ -f "$build/plugin/.libs/job_submit_gpuplace.so" ] || { echo "bench_submit: build first (no plugin in $build)" >&2; exit 2; }
export D=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-bench.XXXXXX")
export CTLPORT=${CTLPORT:-$((16977 + ${GP_PORT_OFFSET:-0}))} BASEPORT=${BASEPORT:-$((17700 + ${GP_PORT_OFFSET:-0}))}
export PLUGIN_DIR=$build/plugin/.libs
if [ "$STEER" = steer ]; then
	# both configurations load the plugin and differ only in steering
	export JOB_SUBMIT=gpuplace SCHED_PARAMS=gpuplace_steer_max=8,gpuplace_steer_interval=0
else
	unset JOB_SUBMIT
fi
export SLURM_CONF=$D/etc/slurm.conf
H="bash $top/tests/slurm/harness.sh"
trap '$H down >/dev/null 2>&1; rm -rf "$D"' EXIT
$H up 2>/dev/null
nbusy=0
for spec in ${BUSY:-}; do
	sbatch -Q -J gpbusy -w "${spec%:*}" --gpus="${spec#*:}" -o /dev/null --wrap='sleep 3600'
	nbusy=$((nbusy + 1))
done
for i in $(seq 1 100); do
	[ "$(squeue -h -t R -n gpbusy -o %i | wc -l)" = "$nbusy" ] && break
	sleep 0.2
done

set_plugin() {
	if [ "$STEER" = steer ]; then
		# steering on (every refresh re-decides up to 32 pending jobs, no
		# wait between moves) or off, by a reconfigure
		if [ "$1" = on ]; then
			sed -i 's/^SchedulerParameters=.*/SchedulerParameters=gpuplace_steer_max=8,gpuplace_steer_interval=0/' "$SLURM_CONF"
		else
			sed -i 's/^SchedulerParameters=.*/SchedulerParameters=gpuplace_steer_max=0/' "$SLURM_CONF"
		fi
		timeout 30 scontrol reconfigure || true
	else
		$H plugin "$1"
	fi
	sleep 3 # the plugin's first state snapshot (its refresh is every 2 s)
}

# with "steer": every GPU busy for the whole run, so submitted jobs pend and
# form a backlog (JOBS x ROUNDS) the plugin's thread keeps re-deciding
hold=--hold
if [ "$STEER" = steer ]; then
	hold=
	sbatch -Q -N "${N:-8}" --gpus-per-node="${GPUS:-4}" -o /dev/null -J full --wrap='sleep 100000'
	sleep 2
fi

# one round: jobs per second and the server's mean µs per submit RPC
round() {
	local t0 t1 i
	if [ "$STEER" = steer ]; then
		# the backlog stays: rounds add to it (the pending jobs are cancelled
		# only when there are more than 1,000)
		[ "$(squeue -h -t PD -n gpbench | wc -l)" -le 1000 ] || timeout 20 scancel -n gpbench 2>/dev/null || true
	else
		timeout 20 scancel -n gpbench 2>/dev/null || true
	fi
	sleep 1
	sdiag -r >/dev/null
	t0=$(date +%s.%N)
	for i in $(seq 1 "$JOBS"); do sbatch -Q -J gpbench $hold --gpus=8 -o /dev/null --wrap=true; done
	t1=$(date +%s.%N)
	rpc=$(sdiag | awk '/REQUEST_SUBMIT_BATCH_JOB/ { for (i = 1; i <= NF; i++) if ($i ~ /^ave_time:/) { sub("ave_time:", "", $i); print $i } }')
	echo "$(echo "$JOBS / ($t1 - $t0)" | bc -l) ${rpc:-0}"
}

on_rate=0 off_rate=0 on_rpc=0 off_rpc=0 pair=""
[ -z "${BUSY:-}" ] || echo "GPUs held by running jobs: $BUSY ($(squeue -h -t R -n gpbusy -o %i | wc -l) running)"
printf '%-6s %-8s %12s %14s\n' round "${STEER:-plugin}" jobs_per_s server_us_rpc
for r in $(seq 1 "$ROUNDS"); do
	for mode in off on; do
		set_plugin $mode
		read -r rate rpc < <(round)
		printf '%-6s %-8s %12.1f %14s\n' "$r" "$mode" "$rate" "$rpc"
		if [ $mode = on ]; then on_rate=$(echo "$on_rate + $rate" | bc -l); on_rpc=$((on_rpc + rpc)); on_r=$rate
		else off_rate=$(echo "$off_rate + $rate" | bc -l); off_rpc=$((off_rpc + rpc)); off_r=$rate; fi
	done
	pair="$pair $(echo "$on_r / $off_r" | bc -l)"
done
means=$(echo "$on_rate / $off_rate" | bc -l)
ratio=$(printf '%s\n' $pair | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
printf 'mean jobs/s: without %.1f, with %.1f; server us per submit RPC: without %d, with %d\n' \
	"$(echo "$off_rate / $ROUNDS" | bc -l)" "$(echo "$on_rate / $ROUNDS" | bc -l)" \
	$((off_rpc / ROUNDS)) $((on_rpc / ROUNDS))
printf 'ratio of the means with/without: %.3f\n' "$means"
printf 'throughput ratio with/without (median of round pairs): %.3f (target >= 0.95): %s\n' "$ratio" \
	"$(echo "$ratio >= 0.95" | bc -l | sed 's/1/PASS/; s/0/FAIL/')"
# the last round ran with the plugin: its held jobs carry the decisions
echo "jobs of the last round that carry a gpuplace decision: $(scontrol show job 2>/dev/null | awk '
	/JobName=/ { mine = ($0 ~ /JobName=gpbench$/) }
	/JobState=/ { held = ($0 ~ /JobState=PENDING/) }
	mine && held && /AdminComment=gpuplace: / { n++ } END { print n + 0 }') of $JOBS"
[ "$STEER" = steer ] && echo "pending backlog at the end: $(squeue -h -t PD -n gpbench | wc -l) jobs" \
	"(up to 1,000 carried into a round, then cancelled)"
exit 0
