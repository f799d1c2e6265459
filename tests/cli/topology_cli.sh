#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# TAP: topology as sites write it today, through the command a site runs:
# `gpuplace cluster check|show` on a conf dir with topology/block lines
# (etc/nvl72-gb200) and on ones with topology.yaml (Slurm 25.05+), which
# wins over topology.conf with a note; `gpuplace conf` writing block
# syntax and topology.yaml that load back to the same NVLink domains.
top_build=${GP_TOP_BUILDDIR:-.}
s=${GP_TOP_SRCDIR:-.}
gp="$top_build/gpuplace"
if [ ! -x "$gp" ]; then
	echo "1..0 # SKIP $gp not built"
	exit 0
fi
t=$(mktemp -d "${TMPDIR:-/tmp}/gp-topo-XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
no() { n=$((n + 1)); echo "not ok $n - $1"; fail=1; for f in out err; do [ -s "$t/$f" ] && sed 's/^/# /' "$t/$f"; done; }
run() { "$@" >"$t/out" 2>"$t/err"; echo $? >"$t/rc"; }
rc() { cat "$t/rc"; }

echo "1..15"
ex="$s/etc/nvl72-gb200"

# 1-2: the NVL72 example as a topology/block site writes it
run "$gp" cluster check --conf-dir "$ex"
if [ "$(rc)" = 0 ] && [ "$(cat "$t/out")" = "OK: 288 nodes, 1152 GPUs" ] && grep -q '^BlockName=' "$ex/topology.conf" &&
	! grep -q '^SwitchName=' "$ex/topology.conf"; then
	ok "cluster check on BlockName lines: OK, no warning"
else no "check of topology/block"; fi
run "$gp" cluster show --conf-dir "$ex"
if grep -q '16 cross-node NVLink domains over 288 nodes / 1152 GPUs (first: nvl01, 18 nodes' "$t/out" &&
	grep -q '^Blocks (topology/block): 16, first nvl01 with 18 nodes; BlockSizes=18,144,288$' "$t/out" &&
	grep -q '^Fabric: 3 switches, 2 levels, root nvl01-nvl16 (the block levels of topology/block)$' "$t/out"; then
	ok "cluster show: each block an NVLink domain, the block levels the fabric tree"
else no "show of topology/block"; fi

# 3-4: the same site on Slurm 25.05+ with a hand-written topology.yaml: an
# InfiniBand tree and the NVL72 blocks; its old topology.conf stays beside
mkdir "$t/yaml"
cp "$ex/slurm.conf" "$ex/gres.conf" "$ex/gpuplace.conf" "$t/yaml/"
printf 'SwitchName=stale Nodes=gb[001-288]\n' >"$t/yaml/topology.conf"
{
	printf -- '---\n- topology: ib\n  cluster_default: false\n  tree:\n    switches:\n'
	printf -- '      - switch: su1\n        nodes: gb[001-144]\n'
	printf -- '      - switch: su2\n        nodes: gb[145-288]\n'
	printf -- '      - switch: spine\n        children: su[1-2]\n'
	printf -- '- topology: nvl72\n  cluster_default: true\n  block:\n    block_sizes: [18, 144]\n    blocks:\n'
	i=1
	while [ $i -le 16 ]; do
		printf -- '      - block: rack%02d\n        nodes: "gb[%03d-%03d]"\n' $i $(((i - 1) * 18 + 1)) $((i * 18))
		i=$((i + 1))
	done
} >"$t/yaml/topology.yaml"
run "$gp" cluster check --conf-dir "$t/yaml"
if [ "$(rc)" = 0 ] && grep -q "^warning: $t/yaml/topology.yaml exists, so $t/yaml/topology.conf is ignored (as Slurm 25.05+ ignores it)$" "$t/out" &&
	grep -q '^OK: 288 nodes, 1152 GPUs$' "$t/out"; then
	ok "cluster check on topology.yaml notes that topology.conf is ignored"
else no "check of topology.yaml"; fi
run "$gp" cluster show --conf-dir "$t/yaml"
if grep -q '16 cross-node NVLink domains over 288 nodes / 1152 GPUs (first: rack01, 18 nodes' "$t/out" &&
	grep -q '^Fabric: 3 switches, 2 levels, root spine$' "$t/out" &&
	grep -q 'BlockSizes=18,144$' "$t/out"; then
	ok "topology.yaml: blocks give the NVLink domains, the tree the fabric"
else no "show of topology.yaml"; fi

# 5: a bad topology.yaml is named with file, line and key
printf -- '- topology: nvl72\n  block:\n    block_sizes: [18, 100]\n    blocks:\n      - block: r1\n        nodes: gb[001-288]\n' >"$t/yaml/topology.yaml"
run "$gp" cluster check --conf-dir "$t/yaml"
if [ "$(rc)" = 1 ] && grep -q "topology.yaml:3: block_sizes: '100' is not a multiple of the base block size 18" "$t/err"; then
	ok "a bad block_sizes names topology.yaml, its line and the key"
else no "bad topology.yaml"; fi

# 6-8: gpuplace conf writes block syntax for the NVLink-domain cluster
run "$gp" conf --conf-dir "$ex" --what topology
if [ "$(rc)" = 0 ] && [ "$(grep -c '^BlockName=' "$t/out")" = 16 ] && grep -q '^BlockSizes=18,144,288$' "$t/out" &&
	grep -q '^BlockName=nvl09 Nodes=gb\[145-162\]$' "$t/out"; then
	ok "conf --what topology writes BlockName lines and BlockSizes"
else no "conf block"; fi
run "$gp" conf --conf-dir "$ex" --what topology --topology-format yaml
cp "$t/out" "$t/written.yaml"
if [ "$(rc)" = 0 ] && grep -q '^- topology: block$' "$t/out" && grep -q '^      - block: "nvl16"$' "$t/out"; then
	ok "conf --topology-format yaml writes a block topology"
else no "conf yaml"; fi
run "$gp" conf --conf-dir "$ex" --topology-format ring
if [ "$(rc)" = 2 ] && grep -q "topology-format 'ring': use auto, tree, block or yaml" "$t/err"; then
	ok "an unknown --topology-format is a usage error"
else no "bad --topology-format"; fi

# 9-10: what conf writes loads back to the same domains and tree
mkdir "$t/back"
cp "$ex/slurm.conf" "$ex/gres.conf" "$ex/gpuplace.conf" "$t/back/"
cp "$t/written.yaml" "$t/back/topology.yaml"
"$gp" cluster show --conf-dir "$ex" | grep -E 'NVLink domains|^Fabric|^  level' >"$t/a"
"$gp" cluster show --conf-dir "$t/back" | grep -E 'NVLink domains|^Fabric|^  level' >"$t/b"
if [ -s "$t/a" ] && cmp -s "$t/a" "$t/b"; then
	ok "topology.yaml from conf loads back to the same domains and levels"
else no "yaml round trip"; diff "$t/a" "$t/b" | sed 's/^/# /'; fi
rm "$t/back/topology.yaml"
"$gp" conf --conf-dir "$ex" --what topology >"$t/back/topology.conf"
"$gp" cluster show --conf-dir "$t/back" | grep -E 'NVLink domains|^Fabric|^  level' >"$t/b"
if [ -s "$t/a" ] && cmp -s "$t/a" "$t/b"; then
	ok "block syntax from conf loads back to the same domains and levels"
else no "block round trip"; diff "$t/a" "$t/b" | sed 's/^/# /'; fi

# 11-12: gpuplace.conf has the last word over blocks
cp -r "$ex" "$t/off"
echo "BlockNVLinkDomains=no" >>"$t/off/gpuplace.conf"
run "$gp" cluster show --conf-dir "$t/off"
if [ "$(rc)" = 0 ] && grep -q 'no cross-node NVLink domains' "$t/out" && grep -q '^Blocks (topology/block): 16' "$t/out"; then
	ok "BlockNVLinkDomains=no keeps blocks as scheduling units only"
else no "BlockNVLinkDomains=no"; fi
cp "$ex/gpuplace.conf" "$t/off/gpuplace.conf"
echo "NVLinkDomain=half1 Nodes=gb[001-009]" >>"$t/off/gpuplace.conf"
run "$gp" cluster check --conf-dir "$t/off"
if [ "$(rc)" = 0 ] && grep -q 'NVLinkDomain: the NVLinkDomain lines of gpuplace.conf replace the 16 blocks of' "$t/out"; then
	ok "NVLinkDomain lines of gpuplace.conf replace the blocks, with a note"
else no "NVLinkDomain precedence"; fi

# 13-15: the JSON model keeps the blocks (gpuplace-json(5), topology_block)
"$gp" cluster export --conf-dir "$ex" --json-out "$t/nvl.json"
"$gp" cluster show --conf-dir "$ex" | sed 1d >"$t/a"
"$gp" cluster show --json "$t/nvl.json" | sed 1d >"$t/b"
"$gp" cluster export --json "$t/nvl.json" >"$t/again.json"
if cmp -s "$t/a" "$t/b" && cmp -s "$t/nvl.json" "$t/again.json" && grep -q '"topology_block"' "$t/nvl.json"; then
	ok "a topology/block model exported as JSON loads back the same, blocks included"
else no "JSON round trip of blocks"; diff "$t/a" "$t/b" | sed 's/^/# /'; fi
run "$gp" place --json "$t/nvl.json" --job gpus=144,gpus_per_node=4 --segment 36
if [ "$(rc)" = 2 ] && grep -q 'segment=36 is larger than the base block size of 18 nodes' "$t/err"; then
	ok "--segment is checked against the base block size of a JSON model"
else no "place --json --segment"; fi
sed 's/^        144,$/        100,/' "$t/nvl.json" >"$t/bad.json"
run "$gp" cluster check --json "$t/bad.json"
if [ "$(rc)" = 1 ] && grep -q 'model.topology_block.block_sizes\[1\]: 100 is not the base 18 times a larger power of two' "$t/err"; then
	ok "bad JSON block sizes are named by their path"
else no "bad JSON block_sizes"; fi
exit $fail
