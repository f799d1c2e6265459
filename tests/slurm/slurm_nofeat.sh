#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm_nofeat.sh - job_submit/gpuplace on a cluster whose slurm.conf gives
# the nodes none of the domain features `gpuplace conf --what nodes` writes
# (tests/slurm/harness.sh DOMAIN_FEATURES=no: two leaves of 4 nodes, each
# leaf an NVLink domain and a rack), as a site's slurm.conf reads before
# that step.  slurmctld refuses a job whose constraint names a feature no
# node has ("Invalid feature specification"), so gpuplace never adds one:
#  1. the load says in one line that the nodes lack the features;
#  2. a 2-GPU job right after a passed 1-GPU job, which gpuplace keeps to
#     a domain rather than pin (where Slurm put the passed job is a guess),
#     is accepted and runs, its comment saying why no feature was added;
#  3. a 2-node job with no set free now, which gpuplace holds for a leaf,
#     is accepted, pends, and runs once the jobs in its way end.
# Prints TAP; skips when not root or Slurm is missing.
set -u
top=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
N_TESTS=7
. "$top/tests/slurm/prelude.sh"

export D=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-nofeat.XXXXXX")
export CTLPORT=${CTLPORT:-$((16857 + ${GP_PORT_OFFSET:-0}))} BASEPORT=${BASEPORT:-$((17200 + ${GP_PORT_OFFSET:-0}))}
export JOB_SUBMIT=gpuplace PLUGIN_DIR=$plugdir SPANK_PLUGINS=$plugdir/spank_gpuplace.so
export DOMAIN_FEATURES=no RACKA_KW=40 RACKB_KW=40
export SLURM_CONF=$D/etc/slurm.conf
H="bash $top/tests/slurm/harness.sh"
. "$top/tests/slurm/lib.sh"

cluster_up "cluster with job_submit/gpuplace did not come up"
check 'grep -q "gpuplace: loaded" "$D/log/slurmctld.log" && grep -q "gpuplace: the nodes of .* lack the domain features" "$D/log/slurmctld.log" && [ "$(grep -c "lack the domain features" "$D/log/slurmctld.log")" = 1 ]' \
	"the load says once that the nodes lack the domain features: $(grep -o 'gpuplace: the nodes of .*' "$D/log/slurmctld.log" | head -n1 | cut -c1-120)" \
	"$(grep gpuplace "$D/log/slurmctld.log" | head -n 5)"

# wait until the plugin has read the cluster state once (it refreshes every 2 s)
sleep 3
RUNNING_S=30

# 2. right after a passed 1-GPU job
sbatch -Q -J one --gpus=1 -o /dev/null --wrap='sleep 600'
j=$(sbatch --parsable -J two --gpus=2 -o /dev/null --wrap='sleep 600' 2>"$D/two.err")
nodes=$(running_on "$j")
cmt=$(scontrol show job "$j" 2>/dev/null | grep -o 'AdminComment=.*')
check '[ -n "$j" ] && [ -n "$nodes" ]' \
	"a 2-GPU job right after a passed one is accepted and runs ($nodes)" \
	"$(cat "$D/two.err")" "$cmt"
# PINned when the plugin had already read where the passed job runs (a
# loaded machine); else kept to no domain, and the comment says why
check 'echo "$cmt" | grep -Eq "AdminComment=gpuplace: (PIN |CONSTRAIN none;.*feature gp(sw|nvl)_[A-Za-z]* .*not on its nodes)"' \
	"its comment: $(echo "$cmt" | cut -c1-150)" "$cmt"
scancel -u root
for t in $(seq 1 40); do [ "$(squeue -h | wc -l)" = 0 ] && break; sleep 0.25; done
sleep 3

# 3. every node has a GPU busy for 25 s: no set of 2 whole nodes is free
for i in 1 2 3 4 5 6 7 8; do sbatch -Q -J fill -w n$i --gpus=1 -t 1 -o /dev/null --wrap='sleep 25'; done
sleep 3
j=$(sbatch --parsable -J pair --nodes=2 --gpus-per-node=4 -o /dev/null --wrap='sleep 30' 2>"$D/pair.err")
sleep 1
st=$(squeue -h -j "$j" -o %T 2>/dev/null)
cmt=$(scontrol show job "$j" 2>/dev/null | grep -o 'AdminComment=.*')
check '[ -n "$j" ] && [ "$st" = PENDING ]' \
	"a 2-node job with no set free now is accepted and pends ($st)" \
	"$(cat "$D/pair.err")" "$cmt"
check 'echo "$cmt" | grep -Eq "^AdminComment=gpuplace: CONSTRAIN none; domain feature gp(sw|nvl)_[A-Za-z]* .*not on its nodes in slurm.conf.*: no acceptable set is free now"' \
	"its comment: held by no feature, and why: $(echo "$cmt" | cut -c1-150)" "$cmt"
nodes=$(running_on "$j" 60)
check '[ -n "$nodes" ] && [ "$(scontrol show hostnames "$nodes" | wc -l)" = 2 ]' \
	"it runs once the jobs in its way end ($nodes)" \
	"$(scontrol show job "$j" 2>&1 | grep -E 'JobState|Reason|AdminComment')"
scancel -u root

check '! grep -q "gpuplace:.*\(error\|fatal\)" "$D/log/slurmctld.log"' \
	"no gpuplace error in slurmctld's log" \
	"$(grep 'gpuplace' "$D/log/slurmctld.log" | grep -E 'error|fatal' | head -n 3)"
