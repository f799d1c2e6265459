#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm_block.sh - job_submit/gpuplace on a topology/block cluster as an
# NVL72 site runs one (Slurm 23.11+): a real slurmctld with 8 slurmd and
# fake GPUs (tests/slurm/harness.sh, TOPOLOGY=block), two blocks of 4 nodes
# (blkA = n[1-4], blkB = n[5-8], BlockSizes=4,8) that gpuplace reads from
# topology.conf as its NVLink domains.  A job that fits one block is
# PINned inside one block (a job of a few GPUs to a partly used node, whole
# nodes kept for an NVL72-style job, --nodes --gpus-per-node); with every
# rack's power covering its free GPUs a job with --segment (24.05+) is left
# to Slurm's block placement and runs on whole segments; a set that
# topology/block would refuse as required nodes (two nodes in two blocks)
# is never pinned; an NVL72-style job that no block has room for, with no
# block predicted to free in time, is cut into segments (--segment).  A
# second cluster (NVL_NODES=2: blocks of two nodes, two to a leaf group,
# its own ports CTLPORT + 1 and BASEPORT + 50) runs such a job inside one
# leaf group by a matching-OR constraint with --segment.
# Prints TAP; skips, saying why, when not root, when Slurm is missing, or
# when the installed Slurm has no topology/block (22.05: scripts/test.sh
# runs this again inside a Debian 13 root with Slurm 24.11).
set -u
top=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
N_TESTS=15
. "$top/tests/slurm/prelude.sh"
major=${ver%%.*}
minor=${ver#*.}
minor=${minor%%.*}
case "$major.$minor" in
[0-9]*.[0-9]*) ;;
*) skip_all "cannot read the Slurm version from 'slurmctld -V' ($(slurmctld -V 2>&1 | head -n1))" ;;
esac
vnum=$((10#$major * 100 + 10#$minor))
[ "$vnum" -ge 2311 ] ||
	skip_all "Slurm $ver has no topology/block (23.11+); scripts/test.sh runs this test against Slurm 24.11 in a Debian 13 root"

export D=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-block.XXXXXX")
export CTLPORT=${CTLPORT:-$((16997 + ${GP_PORT_OFFSET:-0}))} BASEPORT=${BASEPORT:-$((17900 + ${GP_PORT_OFFSET:-0}))}
export JOB_SUBMIT=gpuplace PLUGIN_DIR=$plugdir SPANK_PLUGINS=$plugdir/spank_gpuplace.so TOPOLOGY=block RACKA_KW=40 RACKB_KW=40
export SLURM_CONF=$D/etc/slurm.conf
H="bash $top/tests/slurm/harness.sh"
. "$top/tests/slurm/lib.sh"

cluster_up "topology/block cluster with job_submit/gpuplace did not come up (Slurm $ver)"
# (the one topology.conf line expected: the notice that these blocks of
# A100 nodes are not NVLink domains, which the plugin logs once per load)
check 'grep -q "gpuplace: loaded" "$D/log/slurmctld.log" && ! grep "gpuplace:.*topology.conf:[0-9]*:" "$D/log/slurmctld.log" | grep -q -v "are not NVLink domains"' \
	"Slurm $ver with topology/block loads job_submit/gpuplace and its model from BlockName lines" \
	"$(grep -E 'gpuplace|topology' "$D/log/slurmctld.log" | head -n 5)"

# wait until the plugin has read the cluster state once (it refreshes every 2 s)
sleep 3

# (running_on, lib.sh: a job's nodes once it runs, 10 s at most)
RUNNING_S=10
# "A2B2": how many of the job's nodes are in each block
per_block() {
	scontrol show hostnames "$1" | while read -r h; do i=${h#n}; [ "$i" -le 4 ] && echo A || echo B; done |
		sort | uniq -c | awk '{printf "%s%s", $2, $1}'
}
fill() { for spec in "$@"; do sbatch -Q -w "${spec%:*}" --gpus="${spec#*:}" -o /dev/null --wrap='sleep 600'; done; sleep 3; }
clear_jobs() {
	scancel -u root
	for t in $(seq 1 40); do [ "$(squeue -h | wc -l)" = 0 ] && break; sleep 0.25; done
	sleep 2
}

# 1-3. blkA has n3 and n4 free; blkB has n8 free and 2 GPUs on each of
#      n5-n7.  A 2-GPU job goes to a partly used node of blkB (Slurm's
#      block placement alone would take the first free node of the block
#      with the fewest usable nodes, n3: eval_nodes_block.c, the
#      simulator's block_fit), which keeps n3 and n4 whole for the
#      NVL72-style job after it: 2 whole nodes, inside one block
fill n1:4 n2:4 n5:2 n6:2 n7:2
j0=$(sbatch --parsable --nodes=1 --gpus-per-node=2 -o /dev/null --wrap='sleep 120' 2>"$D/small.err")
nodes=$(running_on "$j0")
check '[ -n "$j0" ] && case "$nodes" in n5|n6|n7) true ;; *) false ;; esac' \
	"a 2-GPU job runs on a partly used node of a block ($nodes), no whole node broken" \
	"$(cat "$D/small.err")" "$(scontrol show job "$j0" | grep -E 'AdminComment|ReqNodeList|NodeList|Reason')"
j=$(sbatch --parsable --nodes=2 --gpus-per-node=4 -o /dev/null --wrap='sleep 30' 2>"$D/nvl.err")
nodes=$(running_on "$j")
check '[ -n "$j" ] && [ "$nodes" = "n[3-4]" ]' "an NVL72-style job runs inside one block, its NVLink domain ($nodes)" \
	"$(cat "$D/nvl.err")" "$(scontrol show job "$j" | grep -E 'AdminComment|ReqNodeList|NodeList|Reason')"
check '[ -n "$j" ] && scontrol show job "$j" | grep -q "AdminComment=gpuplace: PIN n\[3-4\]"' \
	"the decision, in scontrol show job, pins it inside the block" \
	"$(scontrol show job "$j" | grep AdminComment)"
clear_jobs

# 4-5. --segment=2 (Slurm 24.05+): n1 and n5 busy, so no block holds 4
#      whole nodes; the job keeps its --segment and runs on one segment in
#      each block, placed by Slurm's topology/block (no rack's power
#      binds, so gpuplace does not choose the nodes).
if [ "$vnum" -lt 2405 ]; then
	skip "Slurm $ver has no --segment (24.05+)"
	skip "Slurm $ver has no --segment (24.05+)"
else
	fill n1:4 n5:4
	j=$(sbatch --parsable --nodes=4 --gpus-per-node=4 --segment=2 -o /dev/null --wrap='sleep 30' 2>"$D/seg.err")
	nodes=$(running_on "$j")
	check '[ -n "$j" ] && [ -n "$nodes" ] && [ "$(per_block "$nodes")" = A2B2 ]' \
		"--segment=2: the job runs on whole 2-node segments, one in each block ($nodes)" \
		"$(cat "$D/seg.err")" "$(scontrol show job "$j" 2>&1 | grep -E 'AdminComment|ReqNodeList|NodeList|Reason')"
	want="AdminComment=gpuplace: CONSTRAIN none: left to Slurm.s topology/block, which keeps each of the job.s --segment segments in one block"
	check '[ -n "$j" ] && scontrol show job "$j" | grep -q "$want"' \
		"gpuplace left the segments to Slurm $ver's block placement" \
		"$(scontrol show job "$j" | grep -E 'AdminComment|JobState')"
	clear_jobs
fi
# 6-7. a set Slurm's topology/block refuses is never pinned: n[1-3] and
#      n[5-7] full, n4 and n8 free (8 GPUs, one node in each block).  A
#      2-node job must lie in one base block (eval_nodes_block.c groups the
#      base blocks by ceil(nodes / 4)), so required nodes n[4,8] would make
#      Slurm refuse the job at submission.  gpuplace keeps the job (no
#      PIN, no feature: Slurm's block placement starts it in the first
#      block that frees; the reason in its comment); it starts inside blkA
#      when n3 frees
fill_but_n4_n8 wblk 5
j=$(sbatch --parsable --gpus=8 --gpuplace=params=7e9,step_s=1 -t 60 -o /dev/null --wrap='sleep 30' 2>"$D/across.err")
sleep 2
st=$(squeue -h -j "$j" -o %T 2>/dev/null)
check '[ -n "$j" ] && [ "$st" = PENDING ] && scontrol show job "$j" | grep -q "AdminComment=gpuplace: CONSTRAIN none: no block has room for the job now (the free sets span blocks, which Slurm refuses as required nodes)"' \
	"one free node in each block: the 8-GPU job is accepted and not pinned across the blocks (${st:-refused})" \
	"$(cat "$D/across.err")" "$(scontrol show job "$j" 2>&1 | grep -E 'AdminComment|JobState|Features')"
scancel -n wblk3
# Slurm (its next scheduling or backfill pass) or gpuplace's steering (its
# next pass over a CONSTRAINed job, within gpuplace_steer_interval, 30 s)
nodes=""
for t in $(seq 1 60); do nodes=$(squeue -h -j "$j" -t R -o %N 2>/dev/null); [ -n "$nodes" ] && break; sleep 1; done
check '[ "$nodes" = "n[3-4]" ]' "when n3 frees, it runs inside blkA: $nodes" \
	"$(scontrol show job "$j" 2>&1 | grep -E 'AdminComment|JobState|NodeList')"
clear_jobs
# 8. a job that fits one block is never held by gpuplace on a block site,
#    however much slower the model finds it across the blocks: Slurm's
#    topology/block keeps it in one block anyway (6-7 above), and a job
#    whose node count Slurm chooses (--gpus) is never given a --segment
#    (9-10 below: one with --nodes and --gpus-per-node may be).  n[1-3] and
#    n[5-7] full for one more minute, n4 and n8 free; the job has ten
#    times the gradient of 6-7: it pends, left to Slurm, with the reason
#    in its comment
fill_but_n4_n8 hblk 1
j=$(sbatch --parsable --gpus=8 --gpuplace=params=7e10,step_s=1 -t 60 -o /dev/null --wrap='sleep 30' 2>"$D/hold.err")
sleep 2
cm=$(scontrol show job "$j" 2>/dev/null | grep -o 'AdminComment=.*')
seg=$(scontrol show job "$j" 2>/dev/null | grep -o 'Segment=[^ ]*')
check '[ -n "$j" ] && [ "$(squeue -h -j "$j" -o %T)" = PENDING ] && echo "$cm" | grep -q "^AdminComment=gpuplace: CONSTRAIN none: no block has room for the job now" && [ -z "$seg" ]' \
	"a job that fits one block, much slower across the blocks, is left to topology/block: pending, not pinned across, no --segment ($(echo "$cm" | grep -o "CONSTRAIN [^;]*" | cut -c1-60))" \
	"$(cat "$D/hold.err")" "$cm" "$seg" "$(scontrol show job "$j" 2>&1 | grep -E 'JobState|Features')"
clear_jobs
# 9-11. n4 and n8 free, the six other nodes busy for ten more minutes, and
#      an NVL72-style job (--nodes=2 --gpus-per-node=4, one hour): no block
#      is predicted to free before it could finish on the two blocks' free
#      nodes, and these blocks of A100 nodes are no NVLink domains
#      (crossing them costs nothing more in gpuplace's model), so gpuplace
#      cuts it into segments of one node (--segment=1, which the plugin
#      sets at submission, Slurm 24.05+): Slurm's topology/block starts it
#      at once, one segment in each block
if [ "$vnum" -lt 2405 ]; then
	skip "Slurm $ver has no --segment (24.05+)"
	skip "Slurm $ver has no --segment (24.05+)"
	skip "Slurm $ver has no --segment (24.05+)"
else
	fill_but_n4_n8 sblk 10
	j=$(sbatch --parsable --nodes=2 --gpus-per-node=4 -t 60 -o /dev/null --wrap='sleep 30' 2>"$D/segjob.err")
	nodes=$(running_on "$j")
	check '[ -n "$j" ] && [ -n "$nodes" ] && [ "$(per_block "$nodes")" = A1B1 ]' \
		"no block has room and none frees in time: the job runs at once in one-node segments, one in each block ($nodes)" \
		"$(cat "$D/segjob.err")" "$(scontrol show job "$j" 2>&1 | grep -E 'AdminComment|JobState|NodeList|Reason|Features')"
	check '[ -n "$j" ] && scontrol show job "$j" | grep -q "AdminComment=gpuplace: CONSTRAIN --segment=1: Slurm.s topology/block starts the job in segments of 1 node"' \
		"the plugin gave it --segment=1 and its comment says so" \
		"$(scontrol show job "$j" 2>&1 | grep -E 'AdminComment')"
	# never steered: the original of such a job (a held one, so that it
	# stays pending; written within a refresh) is frozen, as Slurm before
	# 25.11 takes no required nodes with several segments
	scancel "$j"
	for t in $(seq 1 40); do [ "$(sinfo -h -N -n n4,n8 -t idle -o %N | sort -u | wc -l)" = 2 ] && break; sleep 0.25; done
	sleep 3
	j=$(sbatch --parsable --hold --nodes=2 --gpus-per-node=4 -t 60 -o /dev/null --wrap='sleep 30' 2>>"$D/segjob.err")
	ref=$(scontrol show job "$j" | grep -o '; ref [0-9]*' | awk '{ print $3 }')
	line=""
	for t in $(seq 1 40); do
		line=$(grep "^gpuplace-orig ref=$ref " "$D/state/gpuplace_originals" 2>/dev/null)
		[ -n "$line" ] && break
		sleep 0.25
	done
	check '[ -n "$ref" ] && scontrol show job "$j" | grep -q "AdminComment=gpuplace: CONSTRAIN --segment=1" && echo "$line" | grep -q " frozen=1 "' \
		"a held job given --segment keeps a frozen original: the steering pass never pins a job in segments" \
		"ref ${ref:-none}: ${line:-no line}" "$(scontrol show job "$j" 2>&1 | grep AdminComment)" "$(cat "$D/state/gpuplace_originals" 2>&1 | head -n 3)"
	clear_jobs
fi
check '! grep -q "gpuplace:.*\(error\|fatal\)" "$D/log/slurmctld.log"' \
	"no gpuplace error in slurmctld's log" \
	"$(grep 'gpuplace' "$D/log/slurmctld.log" | grep -E 'error|fatal' | head -n 3)"

# ---- 2. blocks of two nodes, two to a leaf switch ----------------------------
# 14-15. blkA = n[1-2], blkB = n[3-4] under one leaf group (gpsw_blkA-blkB),
#      blkC, blkD under the other (BlockSizes=2,4,8), as NVL72 racks under
#      the leaf switches of a scalable unit.  n1, n4 and n5-n7 busy for ten
#      minutes: n2 (blkA), n3 (blkB) and n8 (blkD) free, no block with two.
#      An NVL72-style 2-node job is cut into one-node segments and kept to
#      one leaf by a matching-OR constraint of the leaf groups: Slurm's
#      topology/block starts it at once on n[2-3], one leaf, never n8 with
#      either of them
if [ "$vnum" -lt 2405 ]; then
	skip "Slurm $ver has no --segment (24.05+)"
	skip "Slurm $ver has no --segment (24.05+)"
	exit 0
fi
$H down >/dev/null 2>&1
[ -n "${GP_KEEP:-}" ] || rm -rf "$D" "$D.up.log"
export D=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-block.XXXXXX")
export SLURM_CONF=$D/etc/slurm.conf NVL_NODES=2
export CTLPORT=$((CTLPORT + 1)) BASEPORT=$((BASEPORT + 50))
if ! $H up 2>"$D.up.log"; then
	not_ok "a cluster of blocks of two nodes came up"
	sed 's/^/# /' "$D.up.log"
	not_ok "no gpuplace error in slurmctld's log (second cluster)"
	exit 0
fi
sleep 3
fill n1:4 n4:4 n5:4 n6:4 n7:4
for t in $(seq 1 40); do [ "$(squeue -h -t R | wc -l)" = 5 ] && break; sleep 0.25; done
sleep 3
j=$(sbatch --parsable --nodes=2 --gpus-per-node=4 -t 60 -o /dev/null --wrap='sleep 30' 2>"$D/leafseg.err")
nodes=$(running_on "$j")
check '[ -n "$j" ] && [ "$nodes" = "n[2-3]" ] && scontrol show job "$j" | grep -q "AdminComment=gpuplace: CONSTRAIN \[gpsw_blkA-blkB|gpsw_blkC-blkD\] --segment=1: "' \
	"no block has two free nodes: the job runs at once in one-node segments inside one leaf group, its matching-OR constraint and --segment=1 (${nodes:-not running})" \
	"$(cat "$D/leafseg.err")" "$(scontrol show job "$j" 2>&1 | grep -E 'AdminComment|JobState|NodeList|Reason|Features')" \
	"$(grep -E '^(BlockName|BlockSizes)' "$D/etc/topology.conf")"
clear_jobs
check '! grep -q "gpuplace:.*\(error\|fatal\)" "$D/log/slurmctld.log"' \
	"no gpuplace error in slurmctld's log (second cluster)" \
	"$(grep 'gpuplace' "$D/log/slurmctld.log" | grep -E 'error|fatal' | head -n 3)"
