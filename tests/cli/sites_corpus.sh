#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# TAP: the configurations of tests/data/sites/ (one per documented Slurm
# feature, each citing its man page section, plus shapes cluster managers
# and fabric-discovery tools generate) through `gpuplace cluster check`,
# `cluster show` and `place`.  The expected counts below are worked out by
# hand from the files (see each file's header), not from gpuplace.
top_build=${GP_TOP_BUILDDIR:-.}
top_src=${GP_TOP_SRCDIR:-.}
gp="$top_build/gpuplace"
data="$top_src/tests/data/sites"
if [ ! -x "$gp" ]; then
	echo "1..0 # SKIP $gp not built"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gp-sites-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); echo "not ok $n - $1"; fail=1; }

# has FILE PATTERN DESCRIPTION: a line of FILE matches the grep -E PATTERN
has() {
	if grep -Eq -- "$2" "$1"; then ok "$3"; else
		bad "$3: no line matching '$2'"; sed 's/^/# /' "$1"; fi
}

# site DIR NODES GPUS SWITCHES BLOCKS PARTITIONS JOB [PLACE-ARGS...]
# SWITCHES counts the synthetic "(top)" over a forest and "(unswitched)";
# 0 = no switch tree.
site() {
	d=$1 nodes=$2 gpus=$3 sw=$4 blocks=$5 parts=$6 job=$7
	shift 7
	if "$gp" cluster check --conf-dir "$data/$d" >"$tmp/check" 2>&1; then
		ok "$d: cluster check"
	else
		bad "$d: cluster check failed"; sed 's/^/# /' "$tmp/check"
	fi
	has "$tmp/check" "^OK: $nodes nodes, $gpus GPUs\$" "$d: check counts $nodes nodes, $gpus GPUs"
	"$gp" cluster show --conf-dir "$data/$d" >"$tmp/show" 2>&1 || bad "$d: cluster show failed"
	has "$tmp/show" "^Nodes: $nodes, GPUs: $gpus\$" "$d: show counts nodes and GPUs"
	if [ "$sw" -eq 0 ]; then
		has "$tmp/show" "^Fabric: no switch tree" "$d: no switch tree"
	else
		has "$tmp/show" "^Fabric: $sw switches," "$d: $sw switches"
	fi
	if [ "$blocks" -eq 0 ]; then
		if grep -q '^Blocks' "$tmp/show"; then bad "$d: blocks shown"; else ok "$d: no blocks"; fi
	else
		has "$tmp/show" "^Blocks \\(topology/block\\): $blocks," "$d: $blocks blocks"
	fi
	has "$tmp/show" "^Partitions: $parts\$" "$d: $parts partitions"
	if "$gp" place --conf-dir "$data/$d" --job "$job" "$@" >"$tmp/place" 2>&1; then
		ok "$d: place $job $*"
	else
		bad "$d: place $job $* failed"; sed 's/^/# /' "$tmp/place"
	fi
	has "$tmp/place" "^decision: (PIN|CONSTRAIN)" "$d: place decides"
}

echo "1..179"
#    dir                  nodes gpus sw blk parts job
site kv-spaces                8   48  3  0  2 gpus=16
has "$tmp/show" "^  gpu +6 nodes default" "kv-spaces: partition gpu from 'Key = Value'"
site nodeset                 12   26  0  0  5 gpus=8 --partition a100
has "$tmp/show" "^  gpu +9 nodes default" "nodeset: NodeSet by Nodes="
has "$tmp/show" "^  l40s +6 nodes" "nodeset: NodeSet by Feature= and Nodes= (union)"
has "$tmp/show" "^  mixed +6 nodes" "nodeset: a NodeSet and nodes in one list"
has "$tmp/show" "^  all +12 nodes" "nodeset: NodeSet Nodes=ALL"
has "$tmp/place" "^nodes: +a(\\[0|0)" "nodeset: the a100 partition places on a nodes"
site default-partition        8   32  0  0  3 gpus=8
has "$tmp/show" "^  gpu +4 nodes default" "default-partition: the last Default=YES wins"
has "$tmp/check" "partition 'cpu' is Default=YES but so is 'gpu'" "default-partition: both named"
has "$tmp/place" "^nodes: +h[1-4]" "default-partition: a plain request lands on GPU nodes"
site continuation-include    12   68  0  0  1 gpus=4
has "$tmp/show" "^  gpu +12 nodes default" "continuation-include: multi-range host list"
site topo-tree-warts         24  192  6  0  1 gpus=16
has "$tmp/check" "topology.conf:6: Nodes: 1 unknown node under switch 's0' \\(x019\\)" \
	"topo-tree-warts: unknown host named with its line"
has "$tmp/check" "topology.conf:7: Nodes: 2 unknown nodes under switch 's1' \\(n030, n031\\)" \
	"topo-tree-warts: every unknown host in the same pass"
has "$tmp/check" "4 nodes are under no switch \\(n021" "topo-tree-warts: unswitched nodes, once"
has "$tmp/check" "node 'n008' is already under switch 's0'" "topo-tree-warts: node under two leaves"
site gres-links-order         4   24  0  0  1 gpus=2 --nodelist g1
has "$tmp/show" "layout .*: 4 GPUs in 2 NVLink islands \\(gres.conf Links=\\), 2 nodes" \
	"gres-links-order: Links rows in any order give two NVLink pairs"
# (7 switches: leaf1, leaf2, spine, a group per block of the block
# topology's nodes, which are under no switch, "(unswitched)" for eth's
# and the synthetic top)
site topology-yaml-multi     20  112  7  2  5 gpus=8 --partition nvl
has "$tmp/show" "2 cross-node NVLink domains over 8 nodes / 32 GPUs" \
	"topology-yaml-multi: GB200 blocks are NVLink domains"
has "$tmp/check" "partition 'eth': topology 'plain' is flat" "topology-yaml-multi: flat topology named"
has "$tmp/check" "partition 'tree2': topology 'fabric2' \\(tree" "topology-yaml-multi: second tree named"
has "$tmp/check" "partition 'typo': topology 'nosuch' is not in" "topology-yaml-multi: unknown topology named"
has "$tmp/place" "^nodes: +nvl(\\[0|0)" "topology-yaml-multi: the nvl partition places on its nodes"
site autodetect-types         5   34  0  0  1 gpus=16 --nodelist h[1-2]
has "$tmp/show" "^  h100 +16 GPUs on +2 nodes" "autodetect-types: nvidia_h100_80gb_hbm3 is the h100 profile"
has "$tmp/show" "^  a100 +16 GPUs on +2 nodes" "autodetect-types: nvidia_a100-sxm4-80gb is the a100 profile"
has "$tmp/check" "no profile for nvidia_xyz" "autodetect-types: a type without a profile is named"
"$gp" place --conf-dir "$data/autodetect-types" --job gpus=2 --nodelist z1 >"$tmp/z" 2>&1
has "$tmp/z" "no profile for the GPUs of z1: step time not predicted" \
	"autodetect-types: no step time printed without a profile"
if grep -Eq "slowdown [0-9]|[0-9]+ s$" "$tmp/z"; then bad "autodetect-types: numbers printed for z1"
else ok "autodetect-types: no prediction printed for z1"; fi
site gen-nodeset-cm          40  240  0  0  4 gpus=16 --partition p5
has "$tmp/show" "^  compute +4 nodes default" "gen-nodeset-cm: NodeSet by Nodes="
has "$tmp/show" "^  p5 +16 nodes" "gen-nodeset-cm: NodeSet by Feature="
has "$tmp/place" "^nodes: +p5-dy" "gen-nodeset-cm: p5 jobs land on p5 nodes"
site gen-uuid-blocks         24  192  5  6  1 gpus=32
has "$tmp/check" "6 of 6 blocks .* are not NVLink domains" "gen-uuid-blocks: HGX blocks are no NVLink domains"
if grep -q "cross-node NVLink domains over" "$tmp/show"; then bad "gen-uuid-blocks: NVLink domains"
else ok "gen-uuid-blocks: no cross-node NVLink domain"; fi
site gen-dotted-switches     32  256  7  0  1 gpus=64
has "$tmp/show" "root ib.core.0" "gen-dotted-switches: dotted names kept"
site gen-forest-6level      128  512 127 0  1 gpus=16
has "$tmp/show" "7 levels, root \\(top\\)" "gen-forest-6level: two 6-level trees under a disconnected top"
site many-gpus                7  112  0  0  3 gpus=40
has "$tmp/show" "layout 0: 20 GPUs in 20 NVLink islands, 4 nodes" "many-gpus: 20 GPUs per node from File=/dev/nvidia[0-19]"
has "$tmp/show" "layout 1: 16 GPUs in 16 NVLink islands, 2 nodes" "many-gpus: the 16-GPU nodes"
has "$tmp/check" "slurm.conf:14: Gres: nodes 'w01' have 40 GPUs each, more than the 32" \
	"many-gpus: a node past the model's limit is named, not fatal"
has "$tmp/place" "^nodes: +t\\[01-02\\]" "many-gpus: 40 GPUs on two 20-GPU nodes"
site many-partitions         78  312  0  0 73 gpus=4 --partition pi_grp070
has "$tmp/show" "^  pi_grp070 +1 nodes" "many-partitions: the 71st partition is kept"
has "$tmp/show" "^  gpu +78 nodes" "many-partitions: the last partition holds every node"
has "$tmp/place" "^nodes: +g070\$" "many-partitions: a job in the 71st partition lands on its node"
"$gp" place --conf-dir "$data/many-partitions" --job gpus=8 --partition pi_grp066 >"$tmp/p66" 2>&1
has "$tmp/p66" "partition 'pi_grp066' has only 4 GPUs on 1 nodes" \
	"many-partitions: a partition past the 64th has its own capacity"
site mixed-types             10   68  0  0  2 gpus=16 --partition viz
has "$tmp/show" "^  mixed +2 nodes of mixed GPU types, each a100:8,t4:2\$" \
	"mixed-types: a node of two types counted per type"
has "$tmp/show" "layout 0: 10 GPUs in 10 NVLink islands, 2 nodes" \
	"mixed-types: no NVLink assumed between GPUs of two types"
has "$tmp/check" "nodes 'm\\[1-2\\]' hold 2 GPU types \\(a100:8,t4:2\\)" "mixed-types: the mix is named once"
has "$tmp/place" "^nodes: +m\\[1-2\\]" "mixed-types: the viz partition places on its nodes"
"$gp" cluster export --conf-dir "$data/mixed-types" --json-out "$tmp/mixed.json" >/dev/null 2>&1
"$gp" cluster check --json "$tmp/mixed.json" >"$tmp/mcheck" 2>&1
has "$tmp/mcheck" "^OK: 10 nodes, 68 GPUs\$" "mixed-types: the JSON model loads with the same counts"
has "$tmp/mixed.json" "\"gpu_types\": \"a100:8,t4:2\"" "mixed-types: the JSON model keeps the types"
site mig                      8   66  0  0  2 gpus=16 --partition full
has "$tmp/check" "no profile for a100_1g.5gb" "mig: a MIG slice is not the whole A100's profile"
has "$tmp/check" "slurm.conf:18: Gres: nodes 'r1' have 56 GPUs each" "mig: 56 slices on a node named, not fatal"
has "$tmp/show" "^  mixed +2 nodes of mixed GPU types, each 1g.5gb:2,2g.10gb:1,3g.20gb:1\$" \
	"mig: slices of three profiles on one node counted per type"
has "$tmp/show" "layout 0: 7 GPUs in 7 NVLink islands, 2 nodes" "mig: MultipleFiles lines, one GPU each"
has "$tmp/place" "^nodes: +f\\[1-2\\]" "mig: whole-GPU jobs land on the unsplit nodes"
exit $fail
