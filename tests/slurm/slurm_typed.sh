#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm_typed.sh - typed GPU requests through job_submit/gpuplace in a real
# slurmctld with 6 slurmd and fake GPUs of two types (tests/slurm/
# harness.sh, NODE_GPUS): n[1-2] hold 4 A100 each, n3 4 A100 and 2 L40S
# (a node of two types), n[4-6] 4 L40S each; two leaves of 3 nodes, the
# L40S nodes in the second.  sbatch's typed forms (--gres=gpu:TYPE:N,
# --gpus=TYPE:N, --gpus-per-node=TYPE:N) must run only on nodes holding
# that type, with the count asked on each node, where gpuplace's decision
# (the AdminComment) says; a request of two types (--gres=gpu:a100:1,
# gpu:l40s:1), which gpuplace cannot express as one request, passes
# unchanged with its reason in the comment and in slurmctld's log and runs
# where Slurm alone puts it (n3); an untyped request may use the GPUs of
# both types of n3.  Slurm enforces types itself, so a decision that
# ignored the type shows here as a job Slurm refuses, or that never runs,
# or that runs where the comment does not say.
# Assertions check outcomes (where and with which GPUs a job runs, what
# the comment says), each wait bounded and ended by the state it waits
# for.  Runs on every Slurm release the test command covers (22.05 on the
# host, 24.11 and the newest in Debian roots).
# Prints TAP; skips, saying why, when not root or Slurm is missing.
# GP_KEEP=1 keeps the cluster directory (logs) after the run.
set -u
top=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
N_TESTS=19
. "$top/tests/slurm/prelude.sh"

export D=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-typed.XXXXXX")
chmod 755 "$D"
export CTLPORT=${CTLPORT:-$((16887 + ${GP_PORT_OFFSET:-0}))} BASEPORT=${BASEPORT:-$((18000 + ${GP_PORT_OFFSET:-0}))}
export JOB_SUBMIT=gpuplace PLUGIN_DIR=$plugdir SPANK_PLUGINS=$plugdir/spank_gpuplace.so
# each node its own NVLink domain (PCIe nodes: no NVLink between nodes)
export N=6 LEAVES=2 NVL_NODES=1 NODE_GPUS="a100:4 a100:4 a100:4,l40s:2 l40s:4 l40s:4 l40s:4"
# the plugin's readings of the cluster state (debug) and its per-job
# lines, the reasons of jobs passed unchanged among them (verbose)
export CTLDEBUG=debug
export SLURM_CONF=$D/etc/slurm.conf
H="bash $top/tests/slurm/harness.sh"
. "$top/tests/slurm/lib.sh"

cluster_up "cluster of two GPU types with job_submit/gpuplace did not come up (Slurm $ver)"
# Slurm's own view of the nodes' GPUs, one "node gres" line each
sgres=$(sinfo -h -N -o '%N %G' | sort -u)
check 'grep -q "gpuplace: loaded" "$D/log/slurmctld.log" && echo "$sgres" | grep -qx "n3 gpu:a100:4,gpu:l40s:2" && echo "$sgres" | grep -qx "n5 gpu:l40s:4" && echo "$sgres" | grep -qx "n1 gpu:a100:4"' \
	"Slurm $ver runs n3 with 4 A100 and 2 L40S beside single-type nodes, and loads job_submit/gpuplace" \
	"$sgres" "$(grep -E 'gpuplace: (loaded|.*error)' "$D/log/slurmctld.log" | head -n 3)"
plugin_read # the plugin's first reading of the state

# (run -g: tests/slurm/lib.sh)
# gpus_are TYPE:COUNT: every node of the job holds exactly COUNT GPUs, all
# of TYPE, and it has a node
gpus_are() { [ -n "$gpus" ] && [ -z "$(echo "$gpus" | awk -v w="$1" '$2 != w')" ]; }
# nodes_of TYPE: the nodes whose GPUs include TYPE (Slurm's sinfo)
nodes_of() { echo "$sgres" | awk -v t="gpu:$1:" 'index($2, t) { print $1 }'; }
# within NODE...: the job runs, and only on nodes among NODE...
within() {
	local h
	[ -n "$nodes" ] || return 1
	for h in $(hostlist_nodes "$nodes"); do
		case " $* " in *" $h "*) ;; *) return 1 ;; esac
	done
}
count() { hostlist_nodes "$nodes" | wc -l; }
# decided: gpuplace placed the job where it runs: PINned there, or, when
# the state was too old to pin (a loaded machine), CONSTRAINed with those
# nodes as its best free set
decided() {
	[ -n "$nodes" ] && echo "$rec" | grep -qF -e "AdminComment=gpuplace: PIN $nodes;" \
		-e "best free set $nodes not pinned"
}
# every job gone and every node idle, then a reading of the plugin with
# no job running: the next case starts from an idle cluster as the plugin
# sees it
clean() {
	local t
	scancel -u root
	for t in $(seq 1 80); do
		[ -z "$(squeue -h)" ] && [ -z "$(sinfo -h -N -o %T | grep -v -x idle)" ] && break
		sleep 0.25
	done
	plugin_read "[0-9]+ nodes, 0 running jobs"
}

l40s=$(nodes_of l40s)
a100=$(nodes_of a100)

# 2-3. --gres=gpu:l40s:4 on 2 nodes: two of the L40S-only nodes n[4-6]
#      (the A100 nodes come first in the cluster and in the first leaf)
run -g gres_l40s --gres=gpu:l40s:4 -N 2
check 'within n4 n5 n6 && gpus_are l40s:4 && [ "$(count)" = 2 ]' \
	"--gres=gpu:l40s:4 -N2 runs on two L40S nodes with 4 L40S each (${nodes:-not running})" "$seen"
check decided "gpuplace's decision for it names the nodes it runs on" "$seen"
clean

# 4-5. --gpus=a100:8 (a per-job count): the two A100-only nodes, 4 A100 each
run -g gpus_a100 --gpus=a100:8
check 'within $a100 && gpus_are a100:4 && [ "$(count)" = 2 ]' \
	"--gpus=a100:8 runs on two nodes holding A100 with 4 A100 each (${nodes:-not running})" "$seen"
check decided "gpuplace's decision for it names the nodes it runs on" "$seen"
clean

# 6-7. --gpus-per-node=l40s:2 on 3 nodes: 2 L40S on each of 3 nodes holding
#      L40S (n3 holds 2 L40S too; Slurm's first fit would take n[3-5])
run -g gpn_l40s --gpus-per-node=l40s:2 -N 3
check 'within $l40s && gpus_are l40s:2 && [ "$(count)" = 3 ]' \
	"--gpus-per-node=l40s:2 -N3 runs on three nodes holding L40S with 2 L40S each (${nodes:-not running})" "$seen"
check decided "gpuplace's decision for it names the nodes it runs on" "$seen"
clean

# 8-10. two GPU types in one request: gpuplace's request holds one type, so
#      the job passes unchanged, the reason in its comment and in the log;
#      Slurm runs it on n3, the one node holding both
from=$(stat -c %s "$D/log/slurmctld.log")
run -g two_types --gres=gpu:a100:1,gpu:l40s:1
check '[ "$nodes" = n3 ] && [ "$gpus" = "n3 a100:1,l40s:1" ]' \
	"--gres=gpu:a100:1,gpu:l40s:1 runs on n3 with one GPU of each type (${nodes:-not running})" "$seen"
check 'echo "$rec" | grep -Eq "AdminComment=gpuplace: PASS .*gpu:a100:1,gres.gpu:l40s:1 names more than one GPU type; ref 0"' \
	"it passed unchanged, the reason in its AdminComment" "$seen"
check 'tail -c +$((from + 1)) "$D/log/slurmctld.log" | grep -q "gpuplace: job .*two_types.* passes unchanged: request left to Slurm: .*names more than one GPU type"' \
	"and the reason in slurmctld's log" \
	"$(tail -c +$((from + 1)) "$D/log/slurmctld.log" | grep 'gpuplace: job' | head -n 3)"
clean

# 11-12. an untyped request that only the node of two types can hold:
#        --gres=gpu:6 -N1 takes n3's 4 A100 and 2 L40S
run -g untyped6 --gres=gpu:6 -N 1
check '[ "$nodes" = n3 ] && [ "$gpus" = "n3 a100:4,l40s:2" ]' \
	"an untyped --gres=gpu:6 -N1 runs on n3 with its GPUs of both types (${nodes:-not running})" "$seen"
check decided "gpuplace's decision for it names n3" "$seen"
clean

# 13-14. an untyped --gpus=8: placed by gpuplace, 8 GPUs in all
run -g untyped8 --gpus=8
total=$(echo "$gpus" | awk '{ n = split($2, e, ","); for (i = 1; i <= n; i++) { split(e[i], f, ":"); s += f[2] } } END { print s + 0 }')
check '[ -n "$nodes" ] && [ "$total" = 8 ]' \
	"an untyped --gpus=8 runs with 8 GPUs ($nodes: $(echo "$gpus" | paste -s -d' ' -))" "$seen"
check decided "gpuplace's decision for it names the nodes it runs on" "$seen"
clean

# 15-17. the A100-only nodes busy: --gres=gpu:a100:4 -N1 runs at once on
#        n3, the node of two types with 4 A100 free: gpuplace, which does
#        not count a node's GPUs per type, neither constrains it to the
#        busy single-type nodes nor makes it wait for them, but passes it
#        to Slurm with the reason (or pins it to n3)
run -g busy1 -w n1 --gres=gpu:a100:4
b1=$nodes
run -g busy2 -w n2 --gres=gpu:a100:4
[ -n "$b1" ] && [ -n "$nodes" ] && plugin_read "[0-9]+ nodes, 2 running jobs"
run -g a100_on_n3 --gres=gpu:a100:4 -N 1
check '[ "$nodes" = n3 ] && [ "$gpus" = "n3 a100:4" ]' \
	"with n1 and n2 busy, --gres=gpu:a100:4 -N1 runs on n3 with its 4 A100 (${nodes:-not running})" "$seen"
used=$(gpus_in_use | sort)
check '[ -n "$nodes" ] && [ "$(echo "$used" | grep -c "^n[123]:")" = 12 ] && [ -z "$(echo "$used" | uniq -d)" ]' \
	"n1, n2 and n3's A100 each held once ($(echo "$used" | paste -s -d' ' -))" "$(echo "$used" | uniq -d)"
check 'echo "$rec" | grep -Eq "AdminComment=gpuplace: (PIN n3;|PASS no free set of nodes holding only GPUs of type a100 \(nodes of mixed types hold 4 more)"' \
	"gpuplace left it to Slurm, saying why, or pinned it to n3" "$seen"
clean

# 18. more GPUs of a type than the single-type nodes hold: 4 A100 on each
#     of 3 nodes needs n3 too; the job runs on n[1-3] with 4 A100 each
run -g a100_x3 --gres=gpu:a100:4 -N 3
check '[ "$nodes" = "n[1-3]" ] && gpus_are a100:4 && echo "$rec" | grep -Eq "AdminComment=gpuplace: (PIN n\[1-3\];|PASS .*a100)"' \
	"--gres=gpu:a100:4 -N3 runs on n[1-3] with 4 A100 each (${nodes:-not running})" "$seen"

check '! grep -q "gpuplace:.*\(error\|fatal\)" "$D/log/slurmctld.log"' \
	"no gpuplace error in slurmctld's log" \
	"$(grep 'gpuplace' "$D/log/slurmctld.log" | grep -E 'error|fatal' | head -n 3)"
