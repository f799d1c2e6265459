#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm_sites.sh - job_submit/gpuplace on real daemons configured the way
# sites and cluster managers write slurm.conf (tests/slurm/harness.sh,
# PARTITIONS and TOPOLOGY=yaml):
#  1. partitions whose Nodes= name NodeSets (slurm.conf(5), NODESET
#     CONFIGURATION: a NodeSet by Nodes=, by Feature=, and by both, which
#     is their union): 8 nodes under 4 leaves of 2 (leafA = n[1-2] ..
#     leafD = n[7-8]); partition front = NodeSet front_nodes (n[1-4]),
#     the default; partition back = NodeSets mid_nodes (Nodes=n5 and
#     Feature=gpnvl_nvlF: n[5-6]) and back_nodes (Feature=gpsw_leafD:
#     n[7-8]).  Jobs of each partition must run on that partition's nodes,
#     in one leaf, where gpuplace's decision says: a decision that ignored
#     the partition names nodes Slurm refuses for it (the first leaf for a
#     job of back), and the job never runs.  `gpuplace cluster check` and
#     `cluster show` load the same files.
#  2. Slurm 25.05+ only: topology.yaml (topology.yaml(5)) with two
#     topologies, a tree 'fabric' (leafA, leafB under a spine: n[1-4],
#     the cluster default) and a block topology 'nvl' (blkC = n[5-6], blkD
#     = n[7-8], block_sizes 2,4), bound to partition tree (a NodeSet of
#     n[1-4]) and partition blk (n[5-8]) by PartitionName=... Topology=
#     (slurm.conf(5)).  With n1 and n5 partly busy, a 2-node job of whole
#     nodes in tree runs in the one free leaf (n[3-4]) and one in blk in
#     the one free block (n[7-8]), where gpuplace's decision says.
# Each wait is bounded and ended by the state it waits for.
# Prints TAP; skips, saying why, when not root or Slurm is missing; part 2
# skips on Slurm before 25.05 (scripts/test.sh runs this test in a Debian
# root with the newest Slurm too).
# GP_KEEP=1 keeps the clusters' directories (logs) after the run.
set -u
top=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
N_TESTS=16
N_YAML=7
EXTRA_PROGS="sinfo"
. "$top/tests/slurm/prelude.sh"
[ -x "$build/gpuplace" ] || skip_all "gpuplace not built in $build"
major=${ver%%.*}
minor=${ver#*.}
minor=${minor%%.*}
case "$major.$minor" in
[0-9]*.[0-9]*) ;;
*) skip_all "cannot read the Slurm version from 'slurmctld -V' ($(slurmctld -V 2>&1 | head -n1))" ;;
esac
vnum=$((10#$major * 100 + 10#$minor))

export D=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-sites.XXXXXX")
chmod 755 "$D"
export CTLPORT=$((16897 + ${GP_PORT_OFFSET:-0})) BASEPORT=$((18100 + ${GP_PORT_OFFSET:-0}))
export JOB_SUBMIT=gpuplace PLUGIN_DIR=$plugdir SPANK_PLUGINS=$plugdir/spank_gpuplace.so
# 4 leaves of 2 nodes; each node its own NVLink domain, so that a leaf is
# what keeps a 2-node job together
export N=8 LEAVES=4 NVL_NODES=1
# the plugin's readings of the cluster state (debug)
export CTLDEBUG=debug
export PARTITIONS="NodeSet=front_nodes Nodes=n[1-4]
NodeSet=mid_nodes Nodes=n5 Feature=gpnvl_nvlF
NodeSet=back_nodes Feature=gpsw_leafD
PartitionName=front Nodes=front_nodes Default=YES MaxTime=INFINITE State=UP
PartitionName=back Nodes=mid_nodes,back_nodes MaxTime=INFINITE State=UP"
export SLURM_CONF=$D/etc/slurm.conf
H="bash $top/tests/slurm/harness.sh"
. "$top/tests/slurm/lib.sh"

# (run: tests/slurm/lib.sh)
# within NODE...: the job runs, and only on nodes among NODE...
within() {
	local h
	[ -n "$nodes" ] || return 1
	for h in $(hostlist_nodes "$nodes"); do
		case " $* " in *" $h "*) ;; *) return 1 ;; esac
	done
}
# one_of SET...: the job runs on exactly one of the host lists SET
one_of() { local s; for s in "$@"; do [ "$nodes" = "$s" ] && return 0; done; return 1; }
# decided: gpuplace placed the job where it runs: PINned there, or, when
# the state was too old to pin (a loaded machine), CONSTRAINed with those
# nodes as its best free set
decided() {
	[ -n "$nodes" ] && echo "$rec" | grep -qF -e "AdminComment=gpuplace: PIN $nodes;" \
		-e "best free set $nodes not pinned"
}
# running K: wait (bounded) for the plugin to read a state with K jobs
running() { plugin_read "[0-9]+ nodes, $1 running jobs" >/dev/null 2>&1 || true; }
# cli_check: `gpuplace cluster check` and `cluster show` on the cluster's
# files; cli (what they printed) and parts ("NAME COUNT" per partition)
cli_check() {
	cli=$("$build/gpuplace" cluster check --conf-dir "$D/etc" 2>&1; "$build/gpuplace" cluster show --conf-dir "$D/etc" 2>&1)
	parts=$(echo "$cli" | awk '/^Partitions:/ { p = 1; next } p && /^  [^ ]/ { print $1, $2; next } p { p = 0 }' | sort)
}
up_or_fail() {
	if ! $H up 2>"$D.up.log"; then
		not_ok "$1 did not come up (Slurm $ver)"
		sed 's/^/# /' "$D.up.log"
		grep -E 'gpuplace|fatal|error' "$D/log/slurmctld.log" 2>/dev/null | tail -n 10 | sed 's/^/# /'
		return 1
	fi
}
no_error() {
	check '! grep -q "gpuplace:.*\(error\|fatal\)" "$D/log/slurmctld.log"' \
		"no gpuplace error in slurmctld's log ($1)" \
		"$(grep 'gpuplace' "$D/log/slurmctld.log" | grep -E 'error|fatal' | head -n 3)"
}

# ---- 1. NodeSet partitions ------------------------------------------------
if ! up_or_fail "cluster with NodeSet partitions and job_submit/gpuplace"; then
	for i in $(seq 2 $((N_TESTS - N_YAML))); do not_ok "no cluster"; done
else
	# Slurm's own expansion of the NodeSets: "PARTITION NODELIST"
	sparts=$(sinfo -h -o '%R %N' | sort)
	check 'grep -q "gpuplace: loaded" "$D/log/slurmctld.log" && [ "$sparts" = "$(printf "back n[5-8]\nfront n[1-4]")" ]' \
		"Slurm $ver expands the NodeSets to front n[1-4] and back n[5-8], and loads job_submit/gpuplace" \
		"$sparts" "$(grep -E 'gpuplace: (loaded|.*error)' "$D/log/slurmctld.log" | head -n 3)"
	cli_check
	check 'echo "$cli" | grep -qx "OK: 8 nodes, 32 GPUs" && [ "$parts" = "$(printf "back 4\nfront 4")" ]' \
		"gpuplace cluster check loads the NodeSet partitions (front 4 nodes, back 4)" "$cli"
	running 0

	# 3-4. back, all free: 2 whole nodes in one leaf of back's n[5-8] (the
	#      first leaf of the cluster is front's)
	run back1 -p back -N 2 --gpus-per-node=4
	check 'one_of "n[5-6]" "n[7-8]"' \
		"a 2-node job of partition back runs in one leaf of back's nodes (${nodes:-not running})" "$seen"
	check decided "gpuplace's decision for it names the nodes it runs on" "$seen"
	b1=$nodes
	running 1
	# 5-6. back's other leaf is all it has left: --gpus=8
	run back2 -p back --gpus=8
	check 'one_of "n[5-6]" "n[7-8]" && [ "$nodes" != "$b1" ]' \
		"--gpus=8 in back runs on back's other leaf (${nodes:-not running}; the first job on ${b1:-none})" "$seen"
	check decided "gpuplace's decision for it names the nodes it runs on" "$seen"
	running 2
	# 7-8. the default partition (front, a NodeSet) with back full
	run front1 -N 2 --gpus-per-node=4
	check 'one_of "n[1-2]" "n[3-4]" && echo "$rec" | grep -q "Partition=front "' \
		"a 2-node job with no -p runs in front, in one leaf of front's nodes (${nodes:-not running})" "$seen"
	check decided "gpuplace's decision for it names the nodes it runs on" "$seen"
	no_error "NodeSet partitions"
fi

# ---- 2. two topologies of topology.yaml bound to two partitions ----------
if [ "$vnum" -lt 2505 ]; then
	for i in $(seq 1 $N_YAML); do
		skip "Slurm $ver has no topology.yaml or partition Topology= (25.05+); scripts/test.sh runs this test with the newest Slurm in a Debian root"
	done
	exit 0
fi
$H down >/dev/null 2>&1
[ -n "${GP_KEEP:-}" ] || rm -rf "$D" "$D.up.log"
export D=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-sites.XXXXXX")
chmod 755 "$D"
export SLURM_CONF=$D/etc/slurm.conf
export CTLPORT=$((16898 + ${GP_PORT_OFFSET:-0})) BASEPORT=$((18150 + ${GP_PORT_OFFSET:-0}))
export TOPOLOGY=yaml TOPOLOGY_YAML="---
- topology: fabric
  cluster_default: true
  tree:
    switches:
      - switch: spine
        children: leafA,leafB
      - switch: leafA
        nodes: n[1-2]
      - switch: leafB
        nodes: n[3-4]
- topology: nvl
  cluster_default: false
  block:
    block_sizes:
      - 2
      - 4
    blocks:
      - block: blkC
        nodes: n[5-6]
      - block: blkD
        nodes: n[7-8]"
export PARTITIONS="NodeSet=tree_nodes Nodes=n[1-4]
PartitionName=tree Nodes=tree_nodes Topology=fabric Default=YES MaxTime=INFINITE State=UP
PartitionName=blk Nodes=n[5-8] Topology=nvl MaxTime=INFINITE State=UP"
if ! up_or_fail "cluster with two topologies in topology.yaml"; then
	for i in $(seq 2 $N_YAML); do not_ok "no cluster"; done
	exit 0
fi
stopo=$(scontrol show partition 2>/dev/null | grep -oE '^PartitionName=[a-z]+|Topology=[a-z]+' | paste -s -d' ')
check 'grep -q "gpuplace: loaded" "$D/log/slurmctld.log" && [ "$(sinfo -h -o "%R %N" | sort | paste -s -d" ")" = "blk n[5-8] tree n[1-4]" ]' \
	"Slurm $ver runs partitions tree and blk bound to two topologies of topology.yaml, and loads job_submit/gpuplace" \
	"$stopo" "$(grep -E 'gpuplace: (loaded|.*(error|warning))|topology' "$D/log/slurmctld.log" | head -n 5)"
cli_check
check 'echo "$cli" | grep -qx "OK: 8 nodes, 32 GPUs" && echo "$cli" | grep -q "^Blocks (topology/block): 2" && [ "$parts" = "$(printf "blk 4\ntree 4")" ]' \
	"gpuplace cluster check loads topology.yaml's tree and blocks and the two partitions" "$cli"

# n1 and n5 half busy: one leaf of tree (leafB) and one block of blk (blkD)
# are left whole
run fill_tree -p tree -w n1 --gpus=2
f1=$nodes
run fill_blk -p blk -w n5 --gpus=2
[ -n "$f1" ] && [ -n "$nodes" ] && running 2
# 12-13. tree: the one free leaf
run tree1 -p tree -N 2 --gpus-per-node=4
check '[ "$nodes" = "n[3-4]" ]' \
	"a 2-node job of partition tree (topology fabric) runs in its free leaf n[3-4] (${nodes:-not running})" "$seen"
# pinned, or unpinned only for a stale state: the blocks' rule on required
# nodes is not the tree partition's
check 'decided && ! echo "$rec" | grep -q "not pinned: topology/block"' \
	"gpuplace's decision for it names the nodes it runs on, not held to the blocks' rule" "$seen"
running 3
# 14-15. blk: the one free block
run blk1 -p blk -N 2 --gpus-per-node=4
check '[ "$nodes" = "n[7-8]" ]' \
	"a 2-node job of partition blk (topology nvl) runs in its free block n[7-8] (${nodes:-not running})" "$seen"
check 'echo "$rec" | grep -q "AdminComment=gpuplace: PIN n\[7-8\]"' \
	"gpuplace pins it inside the free block, by the block partition's rule" "$seen"
no_error "topology.yaml"
