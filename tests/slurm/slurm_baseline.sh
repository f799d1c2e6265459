#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm_baseline.sh - brings up a real munged + slurmctld + 8 slurmd with fake
# GPUs (tests/slurm/harness.sh) and records what Slurm does on its own in the
# fragmented-cluster scenario that gpuplace exists to fix: with leafA holding
# 6 free GPUs (n3: 2, n4: 4) and leafB 10 (n5: 2, n7: 4, n8: 4), an 8-GPU job
# fits inside leafB, yet Slurm's own choice spans both leaves.  The same
# scenario runs with the plugin in the plugin's integration test.
# Prints TAP.  Skips (with the reason) when not root or Slurm is missing.
set -u
top=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
echo "1..4"
skip_all() { for i in 1 2 3 4; do echo "ok $i # SKIP $1"; done; exit 0; }
[ "$(id -u)" = 0 ] || skip_all "integration tests need root"
for b in slurmctld slurmd munged sbatch squeue scontrol; do
	command -v $b >/dev/null 2>&1 || skip_all "$b is not installed"
done
export D=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-base.XXXXXX")
export CTLPORT=${CTLPORT:-$((16917 + ${GP_PORT_OFFSET:-0}))} BASEPORT=${BASEPORT:-$((17100 + ${GP_PORT_OFFSET:-0}))}
export SLURM_CONF=$D/etc/slurm.conf
H="bash $top/tests/slurm/harness.sh"
cleanup() { $H down >/dev/null 2>&1; rm -rf "$D"; }
trap cleanup EXIT

if $H up 2>"$D.up.log"; then
	echo "ok 1 - munged, slurmctld and 8 slurmd up with fake GPUs"
else
	echo "not ok 1 - cluster did not come up"; sed 's/^/# /' "$D.up.log"; rm -f "$D.up.log"
	for i in 2 3 4; do echo "not ok $i - no cluster"; done
	exit 0
fi
rm -f "$D.up.log"

busy() { sbatch --parsable -w "$1" --gpus="$2" -o /dev/null --wrap='sleep 600'; }
ids="$(busy n1 4) $(busy n2 4) $(busy n6 4) $(busy n5 2) $(busy n3 2)"
running=0
for t in $(seq 1 40); do
	running=$(squeue -h -t R -o %i | wc -l)
	[ "$running" = 5 ] && break
	sleep 0.25
done
[ "$running" = 5 ] && echo "ok 2 - fragmenting jobs running: $ids" || echo "not ok 2 - only $running of 5 fragmenting jobs running"

j=$(sbatch --parsable --gpus=8 -o /dev/null --wrap='sleep 60')
nodes=""
for t in $(seq 1 40); do
	nodes=$(squeue -h -j "$j" -t R -o %N)
	[ -n "$nodes" ] && break
	sleep 0.25
done
[ -n "$nodes" ] && echo "ok 3 - 8-GPU job $j started on $nodes" || echo "not ok 3 - 8-GPU job $j did not start"

leaves=$(scontrol show hostnames "$nodes" 2>/dev/null | while read -r n; do
	i=${n#n}; [ "$i" -le 4 ] && echo leafA || echo leafB; done | sort -u | wc -l)
if [ "$leaves" = 2 ]; then
	echo "ok 4 - Slurm alone spreads the job over $leaves leaves ($nodes) although leafB fits it"
else
	echo "not ok 4 - expected Slurm alone to span 2 leaves, got $leaves ($nodes)"
fi
