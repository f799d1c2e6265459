#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm_smoke.sh - the real-daemon smoke test of `make check`: a slurmctld
# with job_submit/gpuplace and the SPANK plugin, 8 slurmd with 4 fake GPUs
# each in two leaves (tests/slurm/harness.sh), and one decision that stock
# Slurm does not make: on the fragmented cluster of slurm_baseline.sh, where
# Slurm alone spreads an 8-GPU job over both leaves (n4 and n7), the plugin
# pins it to the two free nodes of leaf B.  Every other real-daemon test is
# in `make check-slurm`.  Prints TAP; skips when not root or Slurm is
# missing.
set -u
top=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
N_TESTS=4
. "$top/tests/slurm/prelude.sh"

export D=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-smoke.XXXXXX")
export CTLPORT=${CTLPORT:-$((16967 + ${GP_PORT_OFFSET:-0}))} BASEPORT=${BASEPORT:-$((18400 + ${GP_PORT_OFFSET:-0}))}
export JOB_SUBMIT=gpuplace PLUGIN_DIR=$plugdir SPANK_PLUGINS=$plugdir/spank_gpuplace.so
export SLURM_CONF=$D/etc/slurm.conf
# the plugin's readings of the state at debug (lib.sh plugin_read)
export CTLDEBUG=debug
H="bash $top/tests/slurm/harness.sh"
. "$top/tests/slurm/lib.sh"

cluster_up "cluster with job_submit/gpuplace did not come up"
ok "slurmctld loaded job_submit/gpuplace: $(grep -o 'gpuplace: loaded.*' "$D/log/slurmctld.log" | head -n1)"

# (running_on, lib.sh: a job's nodes once it runs, 20 s at most)
RUNNING_S=20

# the fragmented cluster: n1, n2, n6 full, n3 and n5 half used; free are
# n3 (2), n4 (4) in leaf A and n5 (2), n7 (4), n8 (4) in leaf B
ids=
for spec in n1:4 n2:4 n6:4 n5:2 n3:2; do
	ids="$ids $(sbatch --parsable -w "${spec%:*}" --gpus="${spec#*:}" -o /dev/null --wrap='sleep 600')"
done
# every filler runs, then the plugin's next reading of the state (every 2 s)
for t in $(seq 1 80); do
	[ "$(squeue -h -t R | wc -l)" = 5 ] && break
	sleep 0.25
done
plugin_read "[0-9]+ nodes, 5 running jobs" || true
j=$(sbatch --parsable --gpus=8 --gpuplace=params=1e9 -o "$D/out/pin.out" \
	--wrap='env | grep ^GPUPLACE_ | sort; sleep 60')
nodes=$(running_on "$j")
check '[ "$nodes" = "n[7-8]" ]' "fragmented cluster: the 8-GPU job stays in one leaf ($nodes)" \
	"$(scontrol show job "$j" | grep -E 'AdminComment|ReqNodeList|NodeList')"
check 'scontrol show job "$j" | grep -q "AdminComment=gpuplace: PIN n\[7-8\]"' \
	"the decision is in scontrol show job" "$(scontrol show job "$j" | grep AdminComment)"
for t in $(seq 1 80); do grep -q GPUPLACE_DECISION "$D/out/pin.out" 2>/dev/null && break; sleep 0.25; done
check 'grep -q "^GPUPLACE_DECISION=PIN$" "$D/out/pin.out"' \
	"the batch job ran and received its placement in its environment" \
	"$(cat "$D/out/pin.out" 2>/dev/null)"
