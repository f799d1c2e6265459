#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gpuplace.conf names the inter-node transport (FabricLevel=0 Transport= and
# its constants) and a GPU profile's PCIe generation: the model uses them,
# they survive `gpuplace cluster export` to JSON, and bad values are errors
# naming file, line, key and value.  Base: tests/data/conf/rich.
b=${GP_TOP_BUILDDIR:-.}
s=${GP_TOP_SRCDIR:-${srcdir:-.}}
bin="$b/gpuplace"
t=$(mktemp -d "${TMPDIR:-/tmp}/gp-tr.XXXXXX")
trap 'rm -rf "$t"' EXIT
echo "1..9"
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; shift; for f in "$@"; do sed 's/^/# /' "$f"; done; }
us8() { awk '$1 == 8 { print $6 }' "$1"; }   # time of the 8 B all-reduce

cp -r "$s/tests/data/conf/rich" "$t/ib"
cp -r "$s/tests/data/conf/rich" "$t/tcp"
sed -i 's/^FabricLevel=0 LinkGBps=50$/FabricLevel=0 LinkGBps=50 Transport=tcp NetStepUs=50 NetEfficiency=0.32/' \
	"$t/tcp/gpuplace.conf"
grep -q 'Transport=tcp' "$t/tcp/gpuplace.conf" || echo "# fixture line changed" >&2

# 1. An 8 B all-reduce over 2 x 8 GPUs in different NVLink domains: InfiniBand's NCCL LL tree is near
# 25 us (6.8 + 2 x (7 x 0.6 + 5) plus links above the leaf); TCP sockets allow only Simple and
# pay 50 us per inter-node step, so it costs over 100 us.
"$bin" model --conf-dir "$t/ib" --nodelist 'dgx[04-05]' -b 8 -e 8 >"$t/o.ib" 2>&1
"$bin" model --conf-dir "$t/tcp" --nodelist 'dgx[04-05]' -b 8 -e 8 >"$t/o.tcp" 2>&1
a=$(us8 "$t/o.ib"); c=$(us8 "$t/o.tcp")
if awk -v a="$a" -v c="$c" 'BEGIN { exit !(a > 20 && a < 40 && c > 100) }'; then
	ok "8 B all-reduce: ib $a us, tcp $c us"
else
	nok "8 B all-reduce: ib '$a' us, tcp '$c' us" "$t/o.ib" "$t/o.tcp"
fi

# 2. The transport and its constants survive the JSON export.
"$bin" cluster export --conf-dir "$t/tcp" --json-out "$t/tcp.json" >"$t/exp" 2>&1
"$bin" model --json "$t/tcp.json" --nodelist 'dgx[04-05]' -b 8 -e 8 >"$t/o.json" 2>&1
if grep -q '"transport": *"tcp"' "$t/tcp.json" && [ "$(us8 "$t/o.json")" = "$c" ]; then
	ok "JSON export keeps Transport=tcp ($(us8 "$t/o.json") us)"
else
	nok "JSON round trip" "$t/exp" "$t/o.json"
fi

# 3. PCIeGen: PCIe Gen5 L40S cards move GPU-to-GPU traffic faster than Gen4.
cp -r "$s/tests/data/conf/rich" "$t/g5"
sed -i 's/^\(GpuProfile=L40S .*\)$/\1 PCIeGen=5/' "$t/g5/gpuplace.conf"
"$bin" model --conf-dir "$t/ib" --nodelist pcie1 -b 1G -e 1G >"$t/p4" 2>&1
"$bin" model --conf-dir "$t/g5" --nodelist pcie1 -b 1G -e 1G >"$t/p5" 2>&1
t4=$(awk '$1 == 1073741824 { print $6 }' "$t/p4"); t5=$(awk '$1 == 1073741824 { print $6 }' "$t/p5")
if awk -v a="$t4" -v b="$t5" 'BEGIN { exit !(a > 0 && b > 0 && b < 0.6 * a) }'; then
	ok "PCIeGen=5 halves the PCIe all-reduce ($t4 -> $t5 us)"
else
	nok "PCIeGen: '$t4' vs '$t5'" "$t/p4" "$t/p5"
fi

# 4. PCIeP2P=no: without peer-to-peer the 4 L40S of pcie1 stage every
# ring edge through host memory, 2 edges through each of the host paths of
# its two Cores= sets per direction instead of the 1 that crosses between
# them (cost.c, HOST_STAGE_FRAC): the all-reduce takes twice as long,
# busbw 2 x 0.625 x 25.6 GB/s / 4 = 8.0 GB/s, not 16.0.
cp -r "$s/tests/data/conf/rich" "$t/np"
sed -i 's/^\(GpuProfile=L40S .*\)$/\1 PCIeP2P=no/' "$t/np/gpuplace.conf"
"$bin" model --conf-dir "$t/np" --nodelist pcie1 -b 1G -e 1G >"$t/pn" 2>&1
tn=$(awk '$1 == 1073741824 { print $6 }' "$t/pn"); bn=$(awk '$1 == 1073741824 { print $8 }' "$t/pn")
if awk -v a="$t4" -v b="$tn" -v w="$bn" 'BEGIN { exit !(a > 0 && b > 1.99 * a && b < 2.01 * a && w == 8.00) }'; then
	ok "PCIeP2P=no stages the PCIe all-reduce through the host ($t4 -> $tn us, busbw $bn GB/s)"
else
	nok "PCIeP2P=no: '$t4' vs '$tn'" "$t/p4" "$t/pn"
fi

# 5. ... and survives the JSON export.
"$bin" cluster export --conf-dir "$t/np" --json-out "$t/np.json" >"$t/exp" 2>&1
"$bin" model --json "$t/np.json" --nodelist pcie1 -b 1G -e 1G >"$t/pj" 2>&1
if grep -q '"pcie_p2p": *false' "$t/np.json" &&
	[ "$(awk '$1 == 1073741824 { print $6 }' "$t/pj")" = "$tn" ]; then
	ok "JSON export keeps PCIeP2P=no"
else
	nok "PCIeP2P JSON round trip" "$t/exp" "$t/pj"
fi

# 6-9. A bad value is named with file, line, key and value, and switches
# off that line only (gpuplace.conf(5), PROBLEMS): cluster check warns,
# says what is lost, and the site still loads (exit 0).
bad() { # name sed-expression expected-text
	cp -r "$s/tests/data/conf/rich" "$t/bad"
	sed -i "$2" "$t/bad/gpuplace.conf"
	if "$bin" cluster check --conf-dir "$t/bad" >"$t/e" 2>&1 && grep -q "^warning: .*$3" "$t/e" &&
		grep -q '^OK: 15 nodes, 82 GPUs' "$t/e"; then
		ok "$1"
	else
		nok "$1" "$t/e"
	fi
	rm -rf "$t/bad"
}
bad "unknown transport" 's/^FabricLevel=0 LinkGBps=50$/FabricLevel=0 LinkGBps=50 Transport=ipoib/' \
	"gpuplace.conf:7: Transport: 'ipoib' is not ib, roce, efa, tcp or offload; line ignored"
bad "transport on an upper level" 's/^FabricLevel=2 LinkGBps=100$/FabricLevel=2 LinkGBps=100 Transport=tcp/' \
	"gpuplace.conf:9: Transport: 'tcp': only FabricLevel=0 .*; line ignored"
bad "PCIeGen out of range" 's/^\(GpuProfile=L40S .*\)$/\1 PCIeGen=2/' "gpuplace.conf:6: PCIeGen: '2' is out of range \\[3, 6\\]; GPU profile 'L40S' not used"
bad "PCIeP2P not yes or no" 's/^\(GpuProfile=L40S .*\)$/\1 PCIeP2P=off/' "gpuplace.conf:6: PCIeP2P: 'off' is not yes or no; GPU profile 'L40S' not used"
