#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm_shapes.sh - job shapes job_submit/gpuplace leaves to Slurm, on real
# daemons (tests/slurm/harness.sh: 8 nodes of 4 GPUs, two leaves):
#  1. a job array: every task inherits the array's record, so a placement
#     written into it would hold all tasks to the same nodes (four tasks
#     of 2 whole nodes ran two at a time on n[1-4] while n[5-8] stayed
#     free).  gpuplace passes the array unchanged, saying why, and Slurm
#     starts the four tasks at once on the eight nodes;
#  2. --contiguous: Slurm refuses required nodes that are not consecutive
#     in its node table ("Node count specification invalid": sbatch
#     failed when gpuplace pinned n[1,4]).  The job passes unchanged and
#     runs on two consecutive nodes;
#  3. a constraint with a node count (--constraint=gpsw_leafB*2), right
#     after a passed 1-GPU job (which keeps gpuplace from pinning):
#     slurmctld refuses counts inside parentheses ("Invalid feature
#     specification"), so gpuplace neither ANDs a domain to them nor
#     places the job; it is accepted and runs on leafB;
#  4. a pending job gpuplace pinned to 2 nodes, resized by `scontrol update
#     NumNodes=1`: slurmctld keeps the node list gpuplace set, so the job
#     would still run on both nodes.  The update gets the user's own list
#     back (none), as on stock Slurm, and the job runs on one node;
#  5. the same for a new partition (partition b, n[5-8]) and a new
#     exclusion (-x n1) of a job pinned to n[1-2]: slurmctld kept the
#     pinned list, which contradicts either, and the job pended as
#     BadConstraints for good; it runs inside the new bounds, as on stock
#     Slurm; and for a new partition after an update of the time limit
#     alone (which stops the steering of the job, and once made the
#     plugin forget the user's own list);
#  6. the same for a job gpuplace CONSTRAINed to a domain (right after a
#     passed job: Features=gpnvl_nvlA, n[1-4]) moved to partition b: the
#     constraint is the user's again (none), and the job runs in b;
#  7. a job pinned to n[1-2] whose request gpuplace no longer keeps
#     (slurmctld restarted with the plugin's originals file lost; a job
#     requeued after its node failed is the same), with n1 drained: slurmctld held it for n1 for good
#     ("ReqNodeNotAvail"), where stock Slurm starts it elsewhere.  The
#     steering pass gives it back its own node list (none), and it runs
#     on two other nodes;
#  8. a job of --gpus=8 PINned to two nodes, its GPUs given per node,
#     updated to 2 GPUs by `scontrol update TresPerJob`: slurmctld kept
#     the per-node count and node counts gpuplace set, which contradict
#     the new total.  The update gets the user's own request back (GPUs
#     per job, no node count, no node list) and the job runs on one node
#     with 2 GPUs;
#  9. a job pinned to n[1-2] that ran and was requeued (preemption, or
#     scontrol requeue) while another job took n[1-2]: slurmctld held it
#     for n[1-2] until that job ended, where stock Slurm starts it
#     elsewhere.  gpuplace no longer keeps its request; the steering pass
#     gives it back its own node list (none), and it runs elsewhere;
# 10. the same for a job pinned to n[1-2] (slurmctld restarted) with n1
#     put in a maintenance reservation: slurmctld held it until the
#     reservation ended;
# 11. but a job pinned to n[1-2] keeps its node list across a restart of
#     slurmctld alone: its nodes are "not responding" until their slurmd
#     registers again (the steering pass took that for down, and gave
#     every pinned job its own node list back on every restart);
# 12. the job of 8 across a restart of slurmctld (as every `scontrol
#     reconfigure` since 23.11): the plugin kept what users asked in
#     memory only, so the same update kept gpuplace's node list and GPUs
#     per node; it reads them back from StateSaveLocation now; the
#     slurmctld restarted, then the one a reconfigure starts, names
#     itself the originals' only writer (gpuplace_originals.lock);
# 13. the same with slurmctld stopped right after the submission: the
#     file is written at most once per refresh, after a reading; the
#     original is in the file's journal at once.
# Prints TAP; skips when not root or Slurm is missing.
set -u
top=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
N_TESTS=38
. "$top/tests/slurm/prelude.sh"

export D=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-shapes.XXXXXX")
export CTLPORT=${CTLPORT:-$((16847 + ${GP_PORT_OFFSET:-0}))} BASEPORT=${BASEPORT:-$((17250 + ${GP_PORT_OFFSET:-0}))}
export JOB_SUBMIT=gpuplace PLUGIN_DIR=$plugdir SPANK_PLUGINS=$plugdir/spank_gpuplace.so
export RACKA_KW=40 RACKB_KW=40
export PARTITIONS="PartitionName=gpu Nodes=ALL Default=YES State=UP
PartitionName=b Nodes=n[5-8] State=UP"
export SLURM_CONF=$D/etc/slurm.conf
H="bash $top/tests/slurm/harness.sh"

# scontrol update job $1 to TresPerJob=$2, again until the update has
# given back the user's request (no node list; job_modify learns the job's
# id at the plugin's first reading of it): sets out (scontrol's answer),
# req (ReqNodeList=...) and shown (its GPU requests)
update_gpus() {
	local t
	for t in $(seq 1 30); do
		out=$(scontrol update jobid="$1" TresPerJob="$2" 2>&1)
		req=$(scontrol show job "$1" | grep -o 'ReqNodeList=[^ ]*')
		[ "$req" = "ReqNodeList=(null)" ] && break
		sleep 1
	done
	shown=$(scontrol show job "$1" | grep -oE '(TresPerJob|TresPerNode)=[^ ]*' | tr '\n' ' ')
}
. "$top/tests/slurm/lib.sh"

# cancel every job and wait until the queue is empty and the plugin has
# read the state without them (it refreshes every 2 s)
clear_jobs() {
	scancel -u root
	for t in $(seq 1 40); do [ "$(squeue -h | wc -l)" = 0 ] && break; sleep 0.25; done
	sleep 3
}

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
clear_jobs

# 2. n2 and n3 partly busy: the free pairs of whole nodes n[1,4] (not
#    consecutive) and n[4-5] .. n[7-8]
sbatch -Q -w n2 --gpus=1 -o /dev/null --wrap='sleep 120'
sbatch -Q -w n3 --gpus=1 -o /dev/null --wrap='sleep 120'
sleep 3
j=$(sbatch --parsable --contiguous --nodes=2 --gpus-per-node=4 -o /dev/null --wrap='sleep 60' 2>"$D/contig.err")
nodes=$(running_on "$j")
check '[ -n "$j" ] && [ -n "$nodes" ]' "a --contiguous job of 2 whole nodes is accepted and runs ($nodes)" \
	"$(cat "$D/contig.err")"
first=$(scontrol show hostnames "$nodes" | head -n1 | tr -d n)
last=$(scontrol show hostnames "$nodes" | tail -n1 | tr -d n)
check '[ -n "$first" ] && [ $((last - first)) = 1 ]' "on two consecutive nodes ($nodes)" \
	"$(scontrol show job "$j" 2>&1 | grep -E 'NodeList|AdminComment')"
cmt=$(scontrol show job "$j" 2>/dev/null | grep -o 'AdminComment=.*')
check 'echo "$cmt" | grep -q "^AdminComment=gpuplace: PASS --contiguous is left to Slurm"' \
	"its comment says why gpuplace left it to Slurm: $(echo "$cmt" | cut -c1-90)" "$cmt"
clear_jobs

# 3. node counts in the user's constraint, right after a passed job
sbatch -Q -J one --gpus=1 -o /dev/null --wrap='sleep 60'
j=$(sbatch --parsable --constraint='gpsw_leafB*2' --nodes=2 --gpus-per-node=4 -o /dev/null --wrap='sleep 60' 2>"$D/count.err")
nodes=$(running_on "$j")
cmt=$(scontrol show job "$j" 2>/dev/null | grep -o 'AdminComment=.*')
check '[ -n "$j" ] && [ -n "$nodes" ] && [ "$(scontrol show hostnames "$nodes" | tr -d n | awk "\$1 >= 5" | wc -l)" = 2 ]' \
	"a job whose constraint has a node count is accepted and runs on leafB ($nodes)" \
	"$(cat "$D/count.err")" "$cmt"
check 'echo "$cmt" | grep -q "^AdminComment=gpuplace: PASS constraint .gpsw_leafB\*2.: node counts"' \
	"its comment: $(echo "$cmt" | cut -c1-120)" "$cmt"
clear_jobs

# 4. resized while pending (held, so that it waits); the plugin learns the
#    job's id from its next reading of the job list
j=$(sbatch --parsable --hold --nodes=2 --gpus-per-node=4 -o /dev/null --wrap='sleep 30')
req=$(scontrol show job "$j" | grep -o 'ReqNodeList=[^ ]*')
check '[ -n "$j" ] && [ "$req" != "ReqNodeList=(null)" ] && scontrol show job "$j" | grep -q "AdminComment=gpuplace: PIN "' \
	"a held 2-node job is PINned ($req)" "$(scontrol show job "$j" | grep -E 'ReqNodeList|AdminComment')"
# (until the plugin has read the job list since the submission: the update
# is repeated, each time the same for stock Slurm)
for t in $(seq 1 30); do
	scontrol update jobid="$j" NumNodes=1
	req=$(scontrol show job "$j" | grep -o 'ReqNodeList=[^ ]*')
	[ "$req" = "ReqNodeList=(null)" ] && break
	sleep 1
done
check '[ "$req" = "ReqNodeList=(null)" ] && grep -q "gpuplace: job $j: its request changed; its node list, exclusions and constraint are the user.s again (node list none)" "$D/log/slurmctld.log"' \
	"scontrol update NumNodes=1 gives the job the user's own node list back ($req)" \
	"$(grep "gpuplace: job $j" "$D/log/slurmctld.log" | tail -n 3)"
scontrol release "$j"
nodes=$(running_on "$j")
check '[ -n "$nodes" ] && [ "$(scontrol show hostnames "$nodes" | wc -l)" = 1 ]' \
	"released, it runs on one node ($nodes)" "$(scontrol show job "$j" | grep -E 'NodeList|NumNodes')"
clear_jobs

# 5. a new partition, a new exclusion
for upd in "Partition=b" "ExcNodeList=n1" "TimeLimit=20,Partition=b"; do
	j=$(sbatch --parsable --hold --nodes=2 --gpus-per-node=4 -o /dev/null --wrap='sleep 30')
	req0=$(scontrol show job "$j" | grep -o 'ReqNodeList=[^ ]*')
	main=${upd#*,}
	if [ "$main" != "$upd" ]; then
		# first the time limit alone, once the plugin has read the job
		# (a reading follows a decision within a quarter second)
		sleep 2
		scontrol update jobid="$j" "${upd%%,*}"
	fi
	for t in $(seq 1 30); do
		scontrol update jobid="$j" $main
		req=$(scontrol show job "$j" | grep -o 'ReqNodeList=[^ ]*')
		[ "$req" = "ReqNodeList=(null)" ] && break
		sleep 1
	done
	scontrol release "$j"
	nodes=$(running_on "$j")
	case "$upd" in
	*Partition=b) want='[ -n "$nodes" ] && [ "$(scontrol show hostnames "$nodes" | tr -d n | awk "\$1 >= 5" | wc -l)" = 2 ]' ;;
	*) want='[ -n "$nodes" ] && ! scontrol show hostnames "$nodes" | grep -qx n1' ;;
	esac
	# (the idle cluster's first set: n[1-2], outside partition b, n1 excluded)
	check '[ "$req0" = "ReqNodeList=n[1-2]" ] && [ "$req" = "ReqNodeList=(null)" ]' \
		"scontrol update $upd gives the job pinned to n[1-2] the user's own node list back ($req0, then $req)" \
		"$(scontrol show job "$j" | grep -E 'ReqNodeList|Partition|ExcNodeList|Reason')"
	check "$want" "and it runs inside the new bounds ($nodes)" \
		"$(scontrol show job "$j" | grep -E 'NodeList|Partition|Reason')"
	clear_jobs
done
# 6. a CONSTRAINed job moved to partition b
sbatch -Q -J one --gpus=1 -o /dev/null --wrap='sleep 100'
j=$(sbatch --parsable --hold -J two --nodes=2 --gpus-per-node=2 -o /dev/null --wrap='sleep 30')
f0=$(scontrol show job "$j" | grep -o 'Features=[^ ]*')
# (PINned instead when the plugin had read where the passed job runs: a
# loaded machine; then the node list is what comes back)
check 'scontrol show job "$j" | grep -Eq "AdminComment=gpuplace: (PIN|CONSTRAIN gp)"' \
	"a held job right after a passed one is kept to a domain ($f0)" \
	"$(scontrol show job "$j" | grep -E 'Features|ReqNodeList|AdminComment')"
for t in $(seq 1 30); do
	scontrol update jobid="$j" Partition=b
	f=$(scontrol show job "$j" | grep -o 'Features=[^ ]*')
	req=$(scontrol show job "$j" | grep -o 'ReqNodeList=[^ ]*')
	[ "$f" = "Features=(null)" ] && [ "$req" = "ReqNodeList=(null)" ] && break
	sleep 1
done
check '[ "$f" = "Features=(null)" ] && [ "$req" = "ReqNodeList=(null)" ]' \
	"scontrol update Partition=b gives it the user's own constraint and node list back ($f0, then $f $req)" \
	"$(scontrol show job "$j" | grep -E 'Features|ReqNodeList|Partition|Reason')"
scontrol release "$j"
nodes=$(running_on "$j")
check '[ -n "$nodes" ] && [ "$(scontrol show hostnames "$nodes" | tr -d n | awk "\$1 >= 5" | wc -l)" = 2 ]' \
	"and it runs in partition b ($nodes)" "$(scontrol show job "$j" | grep -E 'NodeList|Partition|Reason')"
clear_jobs

# 7. pinned, slurmctld restarted without the plugin's originals (their
#    file lost), a pinned node drained
j=$(sbatch --parsable --hold --nodes=2 --gpus-per-node=4 -o /dev/null --wrap='sleep 30')
req0=$(scontrol show job "$j" | grep -o 'ReqNodeList=[^ ]*')
FORGET_ORIGINALS=1 PLUGIN_SWITCH=restart $H plugin on
scontrol update nodename=n1 state=drain reason=gpuplace-test
scontrol release "$j"
check '[ "$req0" = "ReqNodeList=n[1-2]" ] && timeout 10 scontrol ping | grep -q UP' \
	"a held job pinned to n[1-2] ($req0), slurmctld restarted, n1 drained" \
	"$(scontrol show job "$j" | grep -E 'ReqNodeList|AdminComment')"
nodes=$(running_on "$j" 30)
check '[ -n "$nodes" ] && ! scontrol show hostnames "$nodes" | grep -qx n1' \
	"the steering pass gives it back its own node list and it runs without n1 ($nodes)" \
	"$(scontrol show job "$j" | grep -E 'ReqNodeList|Reason|AdminComment')"
check 'scontrol show job "$j" | grep -q "AdminComment=gpuplace: PASS pinned node n1 is down or drained .*its node list is the job.s own again (none)"' \
	"its comment says why: $(scontrol show job "$j" | grep -o 'AdminComment=.*' | cut -c1-100)" \
	"$(scontrol show job "$j" | grep -o 'AdminComment=.*')"
scontrol update nodename=n1 state=resume
clear_jobs

# 8. a job of --gpus=8 (no node count) PINned to two nodes, its GPUs given
#    per node (4 on each), asks for 2 GPUs by `scontrol update TresPerJob`
j=$(sbatch --parsable --hold --gpus=8 -o /dev/null --wrap='sleep 30')
tpn=$(scontrol show job "$j" | grep -o 'TresPerNode=[^ ]*')
check '[ -n "$j" ] && echo "$tpn" | grep -Eq "^TresPerNode=gres[:/]gpu:4$" && scontrol show job "$j" | grep -q "AdminComment=gpuplace: PIN "' \
	"a held --gpus=8 job is PINned with its GPUs per node ($tpn)" \
	"$(scontrol show job "$j" | grep -E 'Tres|ReqNodeList|AdminComment')"
gpu=$(echo "$tpn" | sed 's/^TresPerNode=\(gres.gpu\):4$/\1/')
update_gpus "$j" "$gpu:2"
# (Slurm 22.05 shows the cleared per-node request as an empty TresPerNode=)
check '[ -z "$out" ] && [ "$req" = "ReqNodeList=(null)" ] && ! echo "$shown" | grep -q "TresPerNode=gres" && echo "$shown" | grep -Eq "TresPerJob=gres[:/]gpu:2" && grep -q "gpuplace: job $j: its request changed; .*(node list none); its node counts (1 or more); its GPUs per node (none)$" "$D/log/slurmctld.log"' \
	"scontrol update TresPerJob=$gpu:2 is taken and gives back the user's request (${shown% }${out:+; $out})" \
	"$(scontrol show job "$j" | grep -E 'Tres|ReqNodeList|NumNodes')" "$out" \
	"$(grep "gpuplace: job $j: its request changed" "$D/log/slurmctld.log" | tail -n 1)"
scontrol release "$j"
nodes=$(running_on "$j")
alloc=$(scontrol show job -d "$j" | grep -oE '(^| )GRES=gpu[^ ]*' | sed 's/^ //' | tr '\n' ' ')
check '[ -n "$nodes" ] && [ "$(scontrol show hostnames "$nodes" | wc -l)" = 1 ] && echo "$alloc" | grep -Eq "^GRES=gpu(:[^:]+)?:2\(IDX:[0-9]+-[0-9]+\) $"' \
	"released, it runs with 2 GPUs on one node ($nodes, ${alloc% })" \
	"$(scontrol show job -d "$j" | grep -E 'NodeList|NumNodes|TRES|GRES|Reason')"
clear_jobs

# 9. a job pinned to n[1-2] that ran, requeued (and held), while another
#    job takes n[1-2]; released, it may start (StartTime=now: past the
#    requeue's delay)
j=$(sbatch --parsable --nodes=2 --gpus-per-node=4 -o /dev/null --wrap='sleep 300')
nodes=$(running_on "$j")
# (the plugin forgets its original once it has seen it run: GP_LEDGER_GRACE_S)
sleep 12
scontrol requeuehold "$j"
b=$(sbatch --parsable -w "n[1-2]" --nodes=2 --gpus-per-node=4 -o /dev/null --wrap='sleep 120')
bnodes=$(running_on "$b")
scontrol release "$j"
scontrol update jobid="$j" StartTime=now
again=$(running_on "$j" 40)
check '[ "$nodes" = "n[1-2]" ] && [ "$bnodes" = "n[1-2]" ] && [ -n "$again" ] && ! scontrol show hostnames "$again" | grep -qx "n[12]"' \
	"a job pinned to n[1-2] ($nodes), requeued while another job took n[1-2] ($bnodes), runs elsewhere (${again:-still pending})" \
	"$(scontrol show job "$j" | grep -E 'JobState|ReqNodeList|AdminComment')"
check 'scontrol show job "$j" | grep -q "AdminComment=gpuplace: PASS pinned node n[12] is in use by other jobs .*its node list is the job.s own again (none)"' \
	"its comment says why: $(scontrol show job "$j" | grep -o 'AdminComment=.*' | cut -c1-100)" \
	"$(scontrol show job "$j" | grep -o 'AdminComment=.*')"
clear_jobs

# 10. pinned, slurmctld restarted without the plugin's originals, a
#     maintenance reservation on a pinned node
j=$(sbatch --parsable --hold --nodes=2 --gpus-per-node=4 -o /dev/null --wrap='sleep 30')
req0=$(scontrol show job "$j" | grep -o 'ReqNodeList=[^ ]*')
FORGET_ORIGINALS=1 PLUGIN_SWITCH=restart $H plugin on
scontrol create reservation reservationname=gp_maint starttime=now duration=60 nodes=n1 \
	users=root flags=maint >/dev/null
scontrol release "$j"
nodes=$(running_on "$j" 30)
check '[ "$req0" = "ReqNodeList=n[1-2]" ] && [ -n "$nodes" ] && ! scontrol show hostnames "$nodes" | grep -qx n1' \
	"a held job pinned to n[1-2] ($req0), slurmctld restarted, n1 reserved for maintenance: it runs without n1 (${nodes:-still pending})" \
	"$(scontrol show job "$j" | grep -E 'ReqNodeList|Reason|AdminComment')" "$(scontrol show reservation gp_maint | head -n 3)"
check 'scontrol show job "$j" | grep -q "AdminComment=gpuplace: PASS pinned node n1 is in a reservation the job cannot use during its run .*its node list is the job.s own again (none)"' \
	"its comment says why: $(scontrol show job "$j" | grep -o 'AdminComment=.*' | cut -c1-100)" \
	"$(scontrol show job "$j" | grep -o 'AdminComment=.*')"
scontrol delete reservation gp_maint
clear_jobs

# 11. pinned, slurmctld restarted, nothing else: every node is "not
#     responding" until its slurmd registers again, which slurmctld waits
#     for; the job keeps its node list
j=$(sbatch --parsable --hold --nodes=2 --gpus-per-node=4 -o /dev/null --wrap='sleep 30')
req0=$(scontrol show job "$j" | grep -o 'ReqNodeList=[^ ]*')
PLUGIN_SWITCH=restart $H plugin on
sleep 6
scontrol release "$j"
nodes=$(running_on "$j" 30)
check '[ "$req0" = "ReqNodeList=n[1-2]" ] && [ "$nodes" = "n[1-2]" ] && scontrol show job "$j" | grep -q "AdminComment=gpuplace: PIN n\[1-2\]"' \
	"a held job pinned to n[1-2], slurmctld restarted: it keeps its node list and runs there (${nodes:-still pending})" \
	"$(scontrol show job "$j" | grep -E 'ReqNodeList|Reason|AdminComment')" \
	"$(grep "gpuplace: job $j" "$D/log/slurmctld.log" | tail -n 2)"
clear_jobs

# 12. the --gpus=8 job of 8, PINned with its GPUs per node, slurmctld
#     restarted (as every `scontrol reconfigure` does since 23.11): the
#     plugin reads back what the user asked, so the same update still
#     gives back the user's request
j=$(sbatch --parsable --hold --gpus=8 -o /dev/null --wrap='sleep 30')
tpn=$(scontrol show job "$j" | grep -o 'TresPerNode=[^ ]*')
# the plugin's thread writes the originals within a refresh (2 s) of the
# decision; slurmctld calls no plugin's fini when it stops
ref=$(scontrol show job "$j" | grep -o '; ref [0-9]*' | awk '{ print $3 }')
for t in $(seq 1 40); do
	grep -q "^gpuplace-orig ref=$ref " "$D/state/gpuplace_originals" 2>/dev/null && break
	sleep 0.25
done
from=$(wc -c < "$D/log/slurmctld.log")
PLUGIN_SWITCH=restart $H plugin on
restored=$(tail -c +"$((from + 1))" "$D/log/slurmctld.log" | grep -o 'gpuplace: restored the originals of [0-9]* jobs from [^ ]*' | tail -n 1)
check 'echo "$tpn" | grep -Eq "^TresPerNode=gres[:/]gpu:4$" && echo "$restored" | grep -q "of 1 jobs from $D/state/gpuplace_originals"' \
	"a held --gpus=8 job PINned ($tpn), slurmctld restarted: ${restored:-no originals restored}" \
	"$(tail -c +"$((from + 1))" "$D/log/slurmctld.log" | grep gpuplace | head -n 5)" "$(cat "$D/state/gpuplace_originals" 2>&1 | head -n 3)"
# the slurmctld started names itself the originals' only writer
# (gpuplace_originals.lock) at its first reading; so does a reconfigure's
# (a new process since 23.11, the same one before), while the old one,
# still running until the new one has started, writes them no more
owner_is_running() {
	local t ctl
	for t in $(seq 1 60); do
		ctl=$(cat "$D/pids/slurmctld.pid" 2>/dev/null)
		grep -q "^gpuplace-owner host=.* pid=$ctl start=" "$D/state/gpuplace_originals.lock" 2>/dev/null && return 0
		sleep 0.25
	done
	return 1
}
ctl0=$(cat "$D/pids/slurmctld.pid")
owner0=$(owner_is_running && echo yes)
timeout 30 scontrol reconfigure || true
for t in $(seq 1 80); do
	timeout 5 scontrol ping 2>/dev/null | grep -q UP && [ -s "$D/pids/slurmctld.pid" ] && break
	sleep 0.25
done
check '[ "$owner0" = yes ] && owner_is_running && grep -q "^gpuplace-orig ref=$ref " "$D/state/gpuplace_originals"' \
	"the restarted slurmctld ($ctl0), then the one after scontrol reconfigure ($(cat "$D/pids/slurmctld.pid")), named the originals' writer; the job's original kept" \
	"$(cat "$D/state/gpuplace_originals.lock" 2>&1)" "$(grep -h 'gpuplace: .*\(taken control\|writes them no more\|restored the originals\)' "$D/log/slurmctld.log" | tail -n 4)"
gpu=$(echo "$tpn" | sed 's/^TresPerNode=\(gres.gpu\):4$/\1/')
update_gpus "$j" "$gpu:2"
check '[ -z "$out" ] && [ "$req" = "ReqNodeList=(null)" ] && ! echo "$shown" | grep -q "TresPerNode=gres" && echo "$shown" | grep -Eq "TresPerJob=gres[:/]gpu:2" && grep -q "gpuplace: job $j: its request changed; .*(node list none); its node counts (1 or more); its GPUs per node (none)$" "$D/log/slurmctld.log"' \
	"after the restart, scontrol update TresPerJob=$gpu:2 still gives back the user's request (${shown% }${out:+; $out})" \
	"$(scontrol show job "$j" | grep -E 'Tres|ReqNodeList|NumNodes')" "$out" \
	"$(grep "gpuplace: job $j: its request changed" "$D/log/slurmctld.log" | tail -n 1)"
scontrol release "$j"
nodes=$(running_on "$j")
check '[ -n "$nodes" ] && [ "$(scontrol show hostnames "$nodes" | wc -l)" = 1 ]' \
	"released, it runs on one node ($nodes)" \
	"$(scontrol show job -d "$j" | grep -E 'NodeList|NumNodes|Reason')"
clear_jobs

# 13. the same job, slurmctld stopped right after the submission: the
#     plugin's thread writes the whole file at most once per refresh
#     (2 s), after the reading its wake-up starts, and a stopping
#     slurmctld calls no plugin's fini; the decision's original goes to
#     the file's journal as soon as the decision wakes the thread
j=$(sbatch --parsable --hold --gpus=8 -o /dev/null --wrap='sleep 30')
from=$(wc -c < "$D/log/slurmctld.log")
PLUGIN_SWITCH=restart $H plugin on
tpn=$(scontrol show job "$j" | grep -o 'TresPerNode=[^ ]*')
restored=$(tail -c +"$((from + 1))" "$D/log/slurmctld.log" | grep -o 'gpuplace: restored the originals of [0-9]* jobs from [^(]*\( (1 lines)\)\?' | tail -n 1)
check 'echo "$tpn" | grep -Eq "^TresPerNode=gres[:/]gpu:4$" && echo "$restored" | grep -q "jobs from $D/state/gpuplace_originals"' \
	"a held --gpus=8 job PINned ($tpn), slurmctld stopped at once and started again: ${restored:-no originals restored}" \
	"$(tail -c +"$((from + 1))" "$D/log/slurmctld.log" | grep gpuplace | head -n 5)" "$(ls -l "$D/state" | grep gpuplace)"
gpu=$(echo "$tpn" | sed 's/^TresPerNode=\(gres.gpu\):4$/\1/')
update_gpus "$j" "$gpu:2"
check '[ -z "$out" ] && [ "$req" = "ReqNodeList=(null)" ] && ! echo "$shown" | grep -q "TresPerNode=gres" && echo "$shown" | grep -Eq "TresPerJob=gres[:/]gpu:2"' \
	"then scontrol update TresPerJob=$gpu:2 gives back the user's request (${shown% }${out:+; $out})" \
	"$(scontrol show job "$j" | grep -E 'Tres|ReqNodeList|NumNodes')" "$out"
clear_jobs
check '! grep -q "gpuplace:.*\(error\|fatal\)" "$D/log/slurmctld.log"' \
	"no gpuplace error in slurmctld's log" \
	"$(grep 'gpuplace' "$D/log/slurmctld.log" | grep -E 'error|fatal' | head -n 3)"
