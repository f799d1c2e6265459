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
build=${GP_TOP_BUILDDIR:-$top}
plugdir=$build/plugin/.libs
N_TESTS=18
echo "1..$N_TESTS"
skip_all() { for i in $(seq 1 $N_TESTS); do echo "ok $i # SKIP $1"; done; exit 0; }
[ -z "${GP_SANITIZERS:-}" ] || skip_all "built with sanitizers: slurmctld cannot load an ASan plugin (tests/unit/test_plugin runs it instrumented)"
[ "$(id -u)" = 0 ] || skip_all "integration tests need root"
for b in slurmctld slurmd munged sbatch squeue scontrol; do
	command -v $b >/dev/null 2>&1 || skip_all "$b is not installed"
done
[ -f "$plugdir/job_submit_gpuplace.so" ] || skip_all "plugin not built in $plugdir"
ver=$(slurmctld -V 2>/dev/null | awk '{print $2}')

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

if ! $H up 2>"$D.up.log"; then
	not_ok "cluster of two GPU types with job_submit/gpuplace did not come up (Slurm $ver)"
	sed 's/^/# /' "$D.up.log"
	grep -E 'gpuplace|fatal|error' "$D/log/slurmctld.log" 2>/dev/null | tail -n 10 | sed 's/^/# /'
	for i in $(seq 2 $N_TESTS); do echo "not ok $i - no cluster"; done
	exit 0
fi
# Slurm's own view of the nodes' GPUs, one "node gres" line each
sgres=$(sinfo -h -N -o '%N %G' | sort -u)
check 'grep -q "gpuplace: loaded" "$D/log/slurmctld.log" && echo "$sgres" | grep -qx "n3 gpu:a100:4,gpu:l40s:2" && echo "$sgres" | grep -qx "n5 gpu:l40s:4" && echo "$sgres" | grep -qx "n1 gpu:a100:4"' \
	"Slurm $ver runs n3 with 4 A100 and 2 L40S beside single-type nodes, and loads job_submit/gpuplace" \
	"$sgres" "$(grep -E 'gpuplace: (loaded|.*error)' "$D/log/slurmctld.log" | head -n 3)"
plugin_read # the plugin's first reading of the state

# running_on JOB [quarter seconds to wait, default 120]: the job's nodes
# once it runs; "" when it does not within the wait, or has ended without
# running
running_on() {
	local t nodes="" st
	for t in $(seq 1 "${2:-120}"); do
		st=$(squeue -h -t all -j "$1" -o '%T %N' 2>/dev/null)
		case "$st" in
		RUNNING*) nodes=${st#RUNNING }; break ;;
		COMPLETED*|COMPLETING*|FAILED*|CANCELLED*|TIMEOUT*|NODE_FAIL*|OUT_OF_MEMORY*|BOOT_FAIL*|DEADLINE*) break ;;
		esac
		sleep 0.25
	done
	echo "$nodes"
}
# The GPUs a running job holds, one "node type:count[,type:count]" line per
# node, types in name order, from Slurm's record (scontrol show job -d:
# "Nodes=n[1-2] ... GRES=gpu:a100:4(IDX:0-3)", several entries on a node of
# two types)
job_gpus() {
	scontrol show job -d "$1" 2>/dev/null | awk '
		/^ +Nodes=.*GRES=/ {
			match($0, /Nodes=[^ ]+/); nodes = substr($0, RSTART + 6, RLENGTH - 6)
			g = substr($0, index($0, "GRES=") + 5); out = ""
			while (match(g, /gpu:[A-Za-z0-9_]+:[0-9]+/)) {
				e = substr(g, RSTART + 4, RLENGTH - 4)
				out = out (out == "" ? "" : " ") e
				g = substr(g, RSTART + RLENGTH)
			}
			print nodes, out
		}' | while read -r nodes entries; do
		for h in $(scontrol show hostnames "$nodes"); do
			echo "$h $(echo "$entries" | tr ' ' '\n' | sort | paste -s -d, -)"
		done
	done | sort
}
# gpus_are JOB TYPE:COUNT: every node of the job holds exactly COUNT GPUs,
# all of TYPE; and it has at least one node
gpus_are() {
	local g
	g=$(job_gpus "$1")
	[ -n "$g" ] && [ -z "$(echo "$g" | awk -v w="$2" '$2 != w')" ]
}
# nodes_of TYPE: the nodes whose GPUs include TYPE (Slurm's sinfo)
nodes_of() { echo "$sgres" | awk -v t="gpu:$1:" 'index($2, t) { print $1 }'; }
# within HOSTLIST NODE...: every node of HOSTLIST is one of NODE...
within() {
	local h l=$1
	shift
	[ -n "$l" ] || return 1
	for h in $(scontrol show hostnames "$l"); do
		case " $* " in *" $h "*) ;; *) return 1 ;; esac
	done
}
# decided JOB NODES: gpuplace placed the job on NODES: PINned there, or,
# when the state was too old to pin (a loaded machine), CONSTRAINed with
# NODES as its best free set
decided() {
	scontrol show job "$1" | grep -qF -e "AdminComment=gpuplace: PIN $2;" \
		-e "best free set $2 not pinned"
}
show() { scontrol show job -d "$1" | grep -E 'JobState|AdminComment|ReqNodeList|NodeList|TresPer|GRES|Reason' | tr -s ' ' | head -n 9; }
# every job gone and every node idle, then a reading of the plugin with
# no job running: the next case starts from an idle cluster as the plugin
# sees it
clean() {
	local t
	scancel -u root
	for t in $(seq 1 40); do [ "$(squeue -h | wc -l)" = 0 ] && break; sleep 0.25; done
	for t in $(seq 1 80); do
		[ -z "$(sinfo -h -N -o %T | grep -v -x idle)" ] && break
		sleep 0.25
	done
	plugin_read "[0-9]+ nodes, 0 running jobs"
}
# sub NAME ARGS...: submit a 5-minute job; its id (empty when refused,
# sbatch's message in $D/NAME.err)
sub() {
	local name=$1
	shift
	sbatch --parsable -J "$name" -t 5 -o /dev/null "$@" --wrap='sleep 300' 2>"$D/$name.err"
}

l40s=$(nodes_of l40s)
a100=$(nodes_of a100)

# 1-2. --gres=gpu:l40s:4 on 2 nodes: two of the L40S-only nodes n[4-6]
#      (the A100 nodes come first in the cluster and in the first leaf)
j=$(sub gres_l40s --gres=gpu:l40s:4 -N 2)
nodes=$(running_on "$j")
check 'within "$nodes" n4 n5 n6 && gpus_are "$j" l40s:4 && [ "$(scontrol show hostnames "$nodes" | wc -l)" = 2 ]' \
	"--gres=gpu:l40s:4 -N2 runs on two L40S nodes with 4 L40S each (${nodes:-not running})" \
	"$(cat "$D/gres_l40s.err")" "$(show "$j")" "$(job_gpus "$j")"
check '[ -n "$nodes" ] && decided "$j" "$nodes"' \
	"gpuplace's decision for it names the nodes it runs on" "$(show "$j")"
clean

# 3-4. --gpus=a100:8 (a per-job count): the two A100-only nodes, 4 A100 each
j=$(sub gpus_a100 --gpus=a100:8)
nodes=$(running_on "$j")
check 'within "$nodes" $a100 && gpus_are "$j" a100:4 && [ "$(scontrol show hostnames "$nodes" | wc -l)" = 2 ]' \
	"--gpus=a100:8 runs on two nodes holding A100 with 4 A100 each (${nodes:-not running})" \
	"$(cat "$D/gpus_a100.err")" "$(show "$j")" "$(job_gpus "$j")"
check '[ -n "$nodes" ] && decided "$j" "$nodes"' \
	"gpuplace's decision for it names the nodes it runs on" "$(show "$j")"
clean

# 5-6. --gpus-per-node=l40s:2 on 3 nodes: 2 L40S on each of 3 nodes holding
#      L40S (n3 holds 2 L40S too; Slurm's first fit would take n[3-5])
j=$(sub gpn_l40s --gpus-per-node=l40s:2 -N 3)
nodes=$(running_on "$j")
check 'within "$nodes" $l40s && gpus_are "$j" l40s:2 && [ "$(scontrol show hostnames "$nodes" | wc -l)" = 3 ]' \
	"--gpus-per-node=l40s:2 -N3 runs on three nodes holding L40S with 2 L40S each (${nodes:-not running})" \
	"$(cat "$D/gpn_l40s.err")" "$(show "$j")" "$(job_gpus "$j")"
check '[ -n "$nodes" ] && decided "$j" "$nodes"' \
	"gpuplace's decision for it names the nodes it runs on" "$(show "$j")"
clean

# 7-9. two GPU types in one request: gpuplace's request holds one type, so
#      the job passes unchanged, the reason in its comment and in the log;
#      Slurm runs it on n3, the one node holding both
from=$(stat -c %s "$D/log/slurmctld.log")
j=$(sub two_types --gres=gpu:a100:1,gpu:l40s:1)
nodes=$(running_on "$j")
check '[ "$nodes" = n3 ] && [ "$(job_gpus "$j")" = "n3 a100:1,l40s:1" ]' \
	"--gres=gpu:a100:1,gpu:l40s:1 runs on n3 with one GPU of each type (${nodes:-not running})" \
	"$(cat "$D/two_types.err")" "$(show "$j")" "$(job_gpus "$j")"
check '[ -n "$j" ] && scontrol show job "$j" | grep -Eq "AdminComment=gpuplace: PASS .*gpu:a100:1,gres.gpu:l40s:1 names more than one GPU type; ref 0"' \
	"it passed unchanged, the reason in its AdminComment" "$(show "$j")"
check 'tail -c +$((from + 1)) "$D/log/slurmctld.log" | grep -q "gpuplace: job .*two_types.* passes unchanged: request left to Slurm: .*names more than one GPU type"' \
	"and the reason in slurmctld's log" \
	"$(tail -c +$((from + 1)) "$D/log/slurmctld.log" | grep 'gpuplace: job' | head -n 3)"
clean

# 10-11. an untyped request that only the node of two types can hold:
#        --gres=gpu:6 -N1 takes n3's 4 A100 and 2 L40S
j=$(sub untyped6 --gres=gpu:6 -N 1)
nodes=$(running_on "$j")
check '[ "$nodes" = n3 ] && [ "$(job_gpus "$j")" = "n3 a100:4,l40s:2" ]' \
	"an untyped --gres=gpu:6 -N1 runs on n3 with its GPUs of both types (${nodes:-not running})" \
	"$(cat "$D/untyped6.err")" "$(show "$j")" "$(job_gpus "$j")"
check '[ -n "$nodes" ] && decided "$j" "$nodes"' \
	"gpuplace's decision for it names n3" "$(show "$j")"
clean

# 12-13. an untyped --gpus=8: placed by gpuplace, 8 GPUs in all
j=$(sub untyped8 --gpus=8)
nodes=$(running_on "$j")
total=$(job_gpus "$j" | awk '{ n = split($2, e, ","); for (i = 1; i <= n; i++) { split(e[i], f, ":"); s += f[2] } } END { print s + 0 }')
check '[ -n "$nodes" ] && [ "$total" = 8 ]' \
	"an untyped --gpus=8 runs with 8 GPUs ($nodes: $(job_gpus "$j" | paste -s -d' ' -))" \
	"$(cat "$D/untyped8.err")" "$(show "$j")"
check '[ -n "$nodes" ] && decided "$j" "$nodes"' \
	"gpuplace's decision for it names the nodes it runs on" "$(show "$j")"
clean

# 14-15. the A100-only nodes busy: --gres=gpu:a100:4 -N1 runs at once on
#        n3, the node of two types with 4 A100 free: gpuplace, which does
#        not count a node's GPUs per type, neither constrains it to the
#        busy single-type nodes nor makes it wait for them, but passes it
#        to Slurm with the reason (or pins it to n3)
b1=$(sub busy1 -w n1 --gres=gpu:a100:4)
b2=$(sub busy2 -w n2 --gres=gpu:a100:4)
[ -n "$(running_on "$b1")" ] && [ -n "$(running_on "$b2")" ] && plugin_read "[0-9]+ nodes, 2 running jobs"
j=$(sub a100_on_n3 --gres=gpu:a100:4 -N 1)
nodes=$(running_on "$j")
check '[ "$nodes" = n3 ] && [ "$(job_gpus "$j")" = "n3 a100:4" ]' \
	"with n1 and n2 busy, --gres=gpu:a100:4 -N1 runs on n3 with its 4 A100 (${nodes:-not running})" \
	"$(cat "$D/a100_on_n3.err")" "$(show "$j")" "$(job_gpus "$j")"
check '[ -n "$j" ] && scontrol show job "$j" | grep -Eq "AdminComment=gpuplace: (PIN n3;|PASS no free set of nodes holding only GPUs of type a100 \(nodes of mixed types hold 4 more)"' \
	"gpuplace left it to Slurm, saying why, or pinned it to n3" "$(show "$j")"
clean

# 16. more GPUs of a type than the single-type nodes hold: 4 A100 on each
#     of 3 nodes needs n3 too; the job runs on n[1-3] with 4 A100 each
j=$(sub a100_x3 --gres=gpu:a100:4 -N 3)
nodes=$(running_on "$j")
check '[ "$nodes" = "n[1-3]" ] && gpus_are "$j" a100:4 && scontrol show job "$j" | grep -Eq "AdminComment=gpuplace: (PIN n\[1-3\];|PASS .*a100)"' \
	"--gres=gpu:a100:4 -N3 runs on n[1-3] with 4 A100 each (${nodes:-not running})" \
	"$(cat "$D/a100_x3.err")" "$(show "$j")" "$(job_gpus "$j")"
clean

check '! grep -q "gpuplace:.*\(error\|fatal\)" "$D/log/slurmctld.log"' \
	"no gpuplace error in slurmctld's log" \
	"$(grep 'gpuplace' "$D/log/slurmctld.log" | grep -E 'error|fatal' | head -n 3)"
