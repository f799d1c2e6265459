#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm_shapes.sh - a job array under job_submit/gpuplace on real daemons
# (tests/slurm/harness.sh: 8 nodes of 4 GPUs, two leaves).  Every task of
# an array inherits the array's record, so a placement written into it
# would hold all tasks to the same nodes: four tasks of 2 whole nodes each
# ran two at a time on n[1-4] while n[5-8] stayed free.  gpuplace passes
# the array unchanged, saying why, and Slurm starts the four tasks at once
# on the eight nodes.
# Prints TAP; skips when not root or Slurm is missing.
set -u
top=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
N_TESTS=4
. "$top/tests/slurm/prelude.sh"

export D=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-array.XXXXXX")
export CTLPORT=${CTLPORT:-$((16847 + ${GP_PORT_OFFSET:-0}))} BASEPORT=${BASEPORT:-$((17250 + ${GP_PORT_OFFSET:-0}))}
export JOB_SUBMIT=gpuplace PLUGIN_DIR=$plugdir SPANK_PLUGINS=$plugdir/spank_gpuplace.so
export RACKA_KW=40 RACKB_KW=40
export SLURM_CONF=$D/etc/slurm.conf
H="bash $top/tests/slurm/harness.sh"
. "$top/tests/slurm/lib.sh"

cluster_up "cluster with job_submit/gpuplace did not come up"
ok "slurmctld loaded job_submit/gpuplace: $(grep -o 'gpuplace: loaded.*' "$D/log/slurmctld.log" | head -n1 | cut -c1-80)"
# wait until the plugin has read the cluster state once (it refreshes every 2 s)
sleep 3

j=$(sbatch --parsable --array=0-3 --nodes=2 --gpus-per-node=4 -o /dev/null --wrap='sleep 120' 2>"$D/array.err")
running=""
for t in $(seq 1 120); do
	running=$(squeue -h -r -j "$j" -t RUNNING -o %N 2>/dev/null | sort)
	[ "$(echo "$running" | grep -c .)" = 4 ] && break
	sleep 0.25
done
nodes=$(for n in $running; do scontrol show hostnames "$n"; done | sort -u | wc -l)
check '[ -n "$j" ] && [ "$(echo "$running" | grep -c .)" = 4 ] && [ "$nodes" = 8 ]' \
	"the array's four tasks of 2 nodes run at once on 8 distinct nodes ($(echo $running))" \
	"$(cat "$D/array.err")" "$(squeue -r -o '%i %T %N %R')"
cmt=$(scontrol show job "${j}_0" 2>/dev/null | grep -o 'AdminComment=.*')
check 'echo "$cmt" | grep -q "^AdminComment=gpuplace: PASS a job array is left to Slurm"' \
	"its comment says why gpuplace left it to Slurm: $(echo "$cmt" | cut -c1-100)" "$cmt"
scancel -u root
check '! grep -q "gpuplace:.*\(error\|fatal\)" "$D/log/slurmctld.log"' \
	"no gpuplace error in slurmctld's log" \
	"$(grep 'gpuplace' "$D/log/slurmctld.log" | grep -E 'error|fatal' | head -n 3)"
