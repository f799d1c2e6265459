#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# TAP: `gpuplace cluster` and `gpuplace synth` as a user runs them: exit
# codes (0 ok, 1 failure, 2 usage), check's OK line, export round trips,
# and a synthetic conf dir that checks and exports like its JSON twin.
top_build=${GP_TOP_BUILDDIR:-.}
top_src=${GP_TOP_SRCDIR:-.}
gp="$top_build/gpuplace"
if [ ! -x "$gp" ]; then
	echo "1..0 # SKIP $gp not built"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gp-cli-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); echo "not ok $n - $1"; fail=1; }
# expect STATUS DESCRIPTION COMMAND...
expect() {
	want=$1; what=$2; shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -eq "$want" ]; then ok "$what (exit $want)"; else
		bad "$what: exit $got, wanted $want"; sed 's/^/# /' "$tmp/err"; fi
}

echo "1..21"
expect 2 "cluster without action" "$gp" cluster
expect 2 "cluster unknown action" "$gp" cluster frob --json x
expect 2 "cluster show without source" "$gp" cluster show
expect 2 "cluster show with two sources" "$gp" cluster show --json a --conf-dir b
expect 2 "cluster check --json-out" "$gp" cluster check --json a --json-out b
expect 2 "synth without --nodes" "$gp" synth --json-out "$tmp/x.json"
expect 2 "synth bad number" "$gp" synth --nodes 12x --json-out "$tmp/x.json"
expect 1 "check of a missing file" "$gp" cluster check --json "$tmp/none.json"

expect 0 "synth conf dir" "$gp" synth --nodes 70 --nodes-per-leaf 8 --leaves-per-spine-group 4 \
	--nvl-domain-nodes 6 --seed 3 --out-dir "$tmp/conf"
expect 0 "synth JSON" "$gp" synth --nodes 70 --nodes-per-leaf 8 --leaves-per-spine-group 4 \
	--nvl-domain-nodes 6 --seed 3 --json-out "$tmp/synth.json"
"$gp" cluster check --conf-dir "$tmp/conf" >"$tmp/check" 2>&1
if grep -qx "OK: 70 nodes, 560 GPUs" "$tmp/check"; then ok "check prints the counts"; else
	bad "check output"; sed 's/^/# /' "$tmp/check"; fi
# a complete site: its nodes carry the domain features the plugin keeps
# jobs inside one switch or NVLink domain with, so the check is clean
if ! grep -q "warning:" "$tmp/check" &&
	grep -q '^NodeName=gpu\[0001-0006\] Features=gpsw_su001,gpsw_spine01,gpnvl_nvl001,gprack_r0001$' "$tmp/conf/slurm.conf"; then
	ok "synth's slurm.conf gives its nodes the domain features: the check is clean"; else
	bad "synth's domain features"; sed 's/^/# /' "$tmp/check"; grep '^NodeName' "$tmp/conf/slurm.conf" | head -n 3 | sed 's/^/# /'; fi
# a leaf and the whole cluster past the 65,536 hosts Slurm's hostlist
# takes in one range: written in ranges it takes, loaded as built
"$gp" synth --nodes 70000 --nodes-per-leaf 70000 --out-dir "$tmp/big" >/dev/null 2>&1 &&
	"$gp" synth --nodes 70000 --nodes-per-leaf 70000 --json-out "$tmp/big.json" >/dev/null 2>&1 &&
	"$gp" cluster export --conf-dir "$tmp/big" --json-out "$tmp/bigc.json" 2>"$tmp/bigerr" &&
	"$gp" cluster check --conf-dir "$tmp/big" >"$tmp/bigcheck" 2>&1
if cmp -s "$tmp/big.json" "$tmp/bigc.json" && ! grep -q "warning:" "$tmp/bigcheck" &&
	grep -q "^SwitchName=su001 Nodes=gpu\[00001-65536,65537-70000\] " "$tmp/big/topology.conf"; then
	ok "70,000 nodes under one leaf: ranges of at most 65,536 hosts, loaded as built"; else
	bad "synth past 65,536 hosts in a range"; cat "$tmp/bigerr" "$tmp/bigcheck" | head -n 5 | sed 's/^/# /'; fi
rm -rf "$tmp/big" "$tmp/big.json" "$tmp/bigc.json"
# and 70,000 leaves under one spine group
"$gp" synth --nodes 70000 --nodes-per-leaf 1 --leaves-per-spine-group 70000 --out-dir "$tmp/big" >/dev/null 2>&1 &&
	"$gp" synth --nodes 70000 --nodes-per-leaf 1 --leaves-per-spine-group 70000 --json-out "$tmp/big.json" >/dev/null 2>&1 &&
	"$gp" cluster export --conf-dir "$tmp/big" --json-out "$tmp/bigc.json" 2>"$tmp/bigerr" &&
	"$gp" cluster check --conf-dir "$tmp/big" >"$tmp/bigcheck" 2>&1
if cmp -s "$tmp/big.json" "$tmp/bigc.json" && ! grep -q "warning:" "$tmp/bigcheck" &&
	grep -q "^SwitchName=spine01 Switches=su\[00001-65536,65537-70000\] " "$tmp/big/topology.conf"; then
	ok "70,000 leaves under one spine group: ranges of at most 65,536 switches, loaded as built"; else
	bad "synth past 65,536 switches in a range"; cat "$tmp/bigerr" "$tmp/bigcheck" | head -n 5 | sed 's/^/# /'
	grep '^SwitchName=spine' "$tmp/big/topology.conf" | head -n 2 | cut -c1-120 | sed 's/^/# /'; fi
rm -rf "$tmp/big" "$tmp/big.json" "$tmp/bigc.json"
"$gp" cluster export --conf-dir "$tmp/conf" --json-out "$tmp/conf.json" &&
	"$gp" cluster export --json "$tmp/conf.json" >"$tmp/again.json"
if cmp -s "$tmp/conf.json" "$tmp/again.json"; then ok "export, load, export: same bytes"; else
	bad "export round trip differs"; fi
if cmp -s "$tmp/conf.json" "$tmp/synth.json"; then ok "conf dir and JSON of one synth agree"; else
	bad "synth conf dir and JSON differ"; fi
"$gp" cluster show --json "$tmp/synth.json" >"$tmp/show" 2>&1
if grep -q "^Nodes: 70, GPUs: 560" "$tmp/show" && grep -q "level 2: 1 switch" "$tmp/show"; then
	ok "show summarises nodes and switch levels"; else bad "show output"; sed 's/^/# /' "$tmp/show"; fi
# racks follow the NVLink domains (6 nodes): r0003 starts at node index 12
sed 's/"rack": "r0003"/"rack": "r9999"/' "$tmp/synth.json" >"$tmp/broken.json"
expect 1 "check of a JSON with an unknown rack" "$gp" cluster check --json "$tmp/broken.json"
if grep -q "model.nodes\[12\].rack: unknown rack 'r9999'" "$tmp/err"; then
	ok "the error names the JSON path"; else bad "error text"; sed 's/^/# /' "$tmp/err"; fi
# topology.yaml with a tree partition and a block one (yaml-parts): the
# export keeps which partitions the blocks' rules do not bind, so a 2-node
# job of the tree partition is pinned to a leaf from the JSON as from the
# files (lost, it was left to Slurm as "no block has room")
yp=$top_src/tests/data/conf/yaml-parts
"$gp" cluster export --conf-dir "$yp" --json-out "$tmp/yp.json" &&
	"$gp" cluster export --json "$tmp/yp.json" >"$tmp/yp2.json"
if cmp -s "$tmp/yp.json" "$tmp/yp2.json" && grep -q '"no_blocks": true' "$tmp/yp.json"; then
	ok "two-topology export keeps the tree partition's no_blocks, same bytes again"; else
	bad "two-topology export"; grep -n -A8 '"partitions"' "$tmp/yp.json" | sed 's/^/# /'; fi
"$gp" place --conf-dir "$yp" --job gpus=8,nodes=2,gpus_per_node=4 --partition tree >"$tmp/pc" 2>&1
"$gp" place --json "$tmp/yp.json" --job gpus=8,nodes=2,gpus_per_node=4 --partition tree >"$tmp/pj" 2>&1
if head -n 1 "$tmp/pc" | grep -qx "decision: PIN" && cmp -s "$tmp/pc" "$tmp/pj"; then
	ok "the exported model places a tree-partition job as the files do (PIN)"; else
	bad "place from the export differs"; head -n 2 "$tmp/pc" "$tmp/pj" | sed 's/^/# /'; fi
exit $fail
