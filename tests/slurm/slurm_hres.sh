#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm_hres.sh - Slurm's own rack power budget (gpuplace.conf PowerHres=,
# gpuplace.conf(5)) in a real slurmctld with 4 slurmd of 4 fake A100 each
# (tests/slurm/harness.sh): rackA = n[1-2], rackB = n[3-4], 1,000 W base
# and 50 W idle per A100 (the harness's gpuplace.conf), so each rack idles
# at 2 x (1,000 + 4 x 50) = 2,400 W.  rackA's cap, 3.45 kW, leaves 1,050 W:
# three A100 at 400 - 50 W; rackB's, 20 kW, room for all its GPUs.
# `gpuplace conf --what resources` writes resources.yaml from that
# gpuplace.conf (MODE_3, Slurm 25.11+), job_submit/gpuplace adds each GPU
# job's watts per node to its licenses, and Slurm alone keeps rackA under
# its budget:
#   - five one-GPU jobs kept to rackA (-x n[3-4]): three run, two wait with
#     the reason Slurm shows while 5 of rackA's 8 GPUs are free (26.05.5:
#     "Insufficient resources in topology unit", which names no budget);
#   - a one-GPU job free to go anywhere starts (in rackB);
#   - a two-GPU job on one rackA node waits too;
#   - at no sample do the jobs running in rackA ask for more than its
#     count; when one of them ends a waiting one starts.
# Assertions check outcomes (which jobs run where, what they ask for, what
# Slurm says of the waiting ones), each wait bounded and ended by the state
# it waits for.  Skips, saying why, on a Slurm before 25.11 (MODE_3, a
# count per node, came with 25.11.0rc1: Slurm's CHANGELOG/slurm-25.11.md;
# 22.05 on the host and 24.11 in the Debian 13 root skip), when not root,
# or when Slurm is missing.  Prints TAP.  GP_KEEP=1 keeps the cluster.
set -u
top=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
N_TESTS=10
. "$top/tests/slurm/prelude.sh"
rel=$(echo "$ver" | awk -F. '{ printf "%d%02d", $1, $2 }')
[ "${rel:-0}" -ge 2511 ] ||
	skip_all "Slurm $ver: hierarchical resources count per node (resources.yaml MODE_3, what a rack power budget needs) from 25.11 on"

export D=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-hres.XXXXXX")
chmod 755 "$D"
export CTLPORT=${CTLPORT:-$((16907 + ${GP_PORT_OFFSET:-0}))} BASEPORT=${BASEPORT:-$((18300 + ${GP_PORT_OFFSET:-0}))}
export JOB_SUBMIT=gpuplace PLUGIN_DIR=$plugdir
export N=4 LEAVES=2 RACK_NODES=2 GPUS=4 RACK_KW="3.45 20"
export GPUPLACE_EXTRA="PowerHres=rackpower"
export RESOURCES_CMD="$build/gpuplace conf --conf-dir $D/etc --what resources"
# the plugin's per-job lines (verbose): the request it added
export CTLDEBUG=verbose
export SLURM_CONF=$D/etc/slurm.conf
H="bash $top/tests/slurm/harness.sh"
. "$top/tests/slurm/lib.sh"

cluster_up "cluster with resources.yaml and job_submit/gpuplace did not come up (Slurm $ver)" 'gpuplace|fatal|error|HRes|MODE' "$D/etc/resources.yaml"
yaml=$(cat "$D/etc/resources.yaml")
lic=$(scontrol show license 2>&1)
check 'echo "$yaml" | grep -q "^  mode: MODE_3" && echo "$yaml" | grep -A1 "\"n\[1-2\]\"" | grep -q "count: 1050" && echo "$yaml" | grep -A1 "\"n\[3-4\]\"" | grep -q "count: 17600" && echo "$lic" | grep -q rackpower' \
	"gpuplace conf writes rackA's budget as 3,450 - 2,400 = 1,050 W and rackB's as 17,600 W, and Slurm $ver loads it" \
	"$yaml" "$lic"

# the plugin asks for the resource once its thread has seen slurmctld
# have it (30 s at most)
for t in $(seq 1 120); do
	grep -q "gpuplace: PowerHres=rackpower: slurmctld has it" "$D/log/slurmctld.log" && break
	sleep 0.25
done
check 'grep -q "gpuplace: PowerHres=rackpower: slurmctld has it" "$D/log/slurmctld.log"' \
	"job_submit/gpuplace sees slurmctld's rackpower license and says so" \
	"$(grep 'gpuplace:' "$D/log/slurmctld.log" | head -n 8)"

# jobs kept to rackA, one GPU each, 350 W per node asked
ids=()
for i in 1 2 3 4 5; do
	ids+=("$(sbatch --parsable -J "a$i" -x 'n[3-4]' --gres=gpu:1 -t 5 -o /dev/null --wrap='sleep 300' 2>"$D/a$i.err")")
done
# rackA's booked watts now: the per-node requests of the jobs running on
# n1 and n2 (Licenses=rackpower:W in their records), summed per node
booked_a() {
	local j rec w nl
	total=0
	for j in $(squeue -h -t R -o '%i' 2>/dev/null); do
		rec=$(scontrol show job "$j" 2>/dev/null)
		w=$(echo "$rec" | grep -o 'Licenses=[^ ]*' | grep -o 'rackpower:[0-9]*' | cut -d: -f2)
		nl=$(echo "$rec" | grep -o ' NodeList=[^ ]*' | head -n 1 | cut -d= -f2)
		for h in $(hostlist_nodes "$nl"); do
			case "$h" in n1 | n2) total=$((total + ${w:-0})) ;; esac
		done
	done
	echo "$total"
}
max_booked=0
sample() {
	local b
	b=$(booked_a)
	[ "$b" -gt "$max_booked" ] && max_booked=$b
}
# until three run and the other two have been looked at by the scheduler
# (a reason other than None), 30 s at most
for t in $(seq 1 60); do
	sample
	nrun=$(squeue -h -t R -n a1,a2,a3,a4,a5 | wc -l)
	npend=$(squeue -h -t PD -n a1,a2,a3,a4,a5 -o '%r' | grep -vc '^None$')
	[ "$nrun" = 3 ] && [ "$npend" = 2 ] && break
	sleep 0.5
done
rec1=$(scontrol show job "${ids[0]}" 2>/dev/null)
check 'echo "$rec1" | grep -q "Licenses=rackpower:350"' \
	"job_submit/gpuplace adds rackpower:350 (an A100's 400 - 50 W) to a one-GPU job's licenses" \
	"$(echo "$rec1" | grep -E 'Licenses|JobState' | tr -s ' ')" "$(grep 'gpuplace:.*rackpower' "$D/log/slurmctld.log" | head -n 3)"
pend=$(squeue -h -t PD -n a1,a2,a3,a4,a5 -o '%i %r')
idle_a=$((8 - nrun))
check '[ "$nrun" = 3 ] && [ "$(echo "$pend" | grep -c .)" = 2 ]' \
	"three of five one-GPU jobs kept to rackA run, two wait, with $idle_a of its 8 GPUs free" \
	"running: $nrun" "pending: $pend" "$(squeue -h -o '%i %j %T %N %r')"
# the first waiting job's reason: Slurm 26.05.5 with topology/tree says
# "Insufficient resources in topology unit" (ESLURM_TOPO_INSUFFICIENT_
# RESOURCES: the nodes of a rack without room are filtered out before the
# tree's fit), the later ones Priority; the record's Licenses= says what
# it asks for
reason=$(echo "$pend" | sort -n | head -n 1 | cut -d' ' -f2-)
check '[ -n "$reason" ] && [ "$reason" != None ] && [ "$reason" != Priority ]' \
	"the first waiting job shows Slurm's reason: $reason" "$pend"
run free --gres=gpu:1
check '[ -n "$nodes" ] && case "$nodes" in n3|n4) true ;; *) false ;; esac' \
	"a one-GPU job free to go anywhere starts, in rackB ($nodes)" "$seen"
sample
run two -x 'n[3-4]' --gres=gpu:2 -N1
sample
st=$(squeue -h -j "$j" -o '%T %r' 2>/dev/null)
check 'case "$st" in PENDING*) true ;; *) false ;; esac && echo "$rec" | grep -q "Licenses=rackpower:700"' \
	"a two-GPU job kept to rackA asks for 700 W per node and waits ($st)" "$seen" "$(echo "$rec" | grep -o 'Licenses=[^ ]*')"
# one running rackA job ends: a waiting one takes its place
first=$(squeue -h -t R -n a1,a2,a3,a4,a5 -o '%i' | head -n 1)
scancel "$first"
for t in $(seq 1 60); do
	sample
	nrun=$(squeue -h -t R -n a1,a2,a3,a4,a5 | wc -l)
	[ "$nrun" = 3 ] && ! squeue -h -j "$first" -t R 2>/dev/null | grep -q . && break
	sleep 0.5
done
check '[ "$nrun" = 3 ] && [ "$(squeue -h -t PD -n a1,a2,a3,a4,a5 | wc -l)" = 1 ]' \
	"when a rackA job ends, a waiting one starts (three run again, one waits)" \
	"$(squeue -h -o '%i %j %T %N %r')"
for t in $(seq 1 10); do sample; sleep 0.5; done
check '[ "$max_booked" -le 1050 ] && [ "$max_booked" -ge 1050 ]' \
	"the jobs running in rackA never ask for more than its 1,050 W (at most $max_booked W seen)" \
	"$(squeue -h -o '%i %j %T %N %r')"
# what the log says of the request, once per job, at verbose
check 'grep -q "gpuplace: job [0-9]* .a1. of uid 0 asks for rackpower:350 per node" "$D/log/slurmctld.log" || grep -q "gpuplace: job from uid 0 .a1. asks for rackpower:350 per node" "$D/log/slurmctld.log"' \
	"slurmctld's log has the plugin's line for the request" \
	"$(grep 'gpuplace:' "$D/log/slurmctld.log" | grep -v 'cluster state' | tail -n 5)"
scancel -n a1,a2,a3,a4,a5,free,two 2>/dev/null
exit 0
