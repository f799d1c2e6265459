#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gpuplace model --placement / --nodelist NODE:G: uneven placements against
# hand-worked step times (a data-parallel all-reduce of 1e9 bytes, so the
# step is the collective alone) and the resource named as the limit.
#
# Constants used below (cost_model/cost.c): NIC efficiency 0.96 (IB); PCIe
# Gen4 25.6 GB/s per GPU; H100 NVLink 450 x 20.6/25 = 370.8 GB/s; NCCL
# Simple latencies: ring base 8.4 us, NET step 14 us, PCI ring step 5.7,
# NVLink ring step 3.4, x1.4 plateau on multi-node rings; 0.5 us per link
# above the leaf switch, twice per level (the NIC-to-leaf links are in
# NCCL's NET latency); InfiniBand fill of rings 56 us x S / (S + 16 MiB),
# with S = 1e9: 56 x 1e9 / 1016777216 = 55.076 us.
b=${GP_TOP_BUILDDIR:-.}
bin="$b/gpuplace"
t=$(mktemp -d "${TMPDIR:-/tmp}/gp-mpl.XXXXXX")
trap 'rm -rf "$t"' EXIT
echo "1..8"
n=0
# dp row: $4 units, $7 time_s, $10 algo, $11 limit
row() { awk '$1 == "dp" { print $4, $7, $10, $11 }' "$1"; }
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-5 * b) }'; }
check() { # name file units time_s algo limit
	n=$((n + 1))
	set -- "$1" "$2" "$3" "$4" "$5" "$6" $(row "$2")
	if [ "$7" = "$3" ] && near "$8" "$4" && [ "$9" = "$5" ] && [ "${10}" = "$6" ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1: got units $7 time $8 algo $9 limit ${10}, want $3 $4 $5 $6"
		sed 's/^/# /' "$2"
	fi
}
job=dp_bytes=1e9
pcie="--gpu-type pcie --gpus-per-node 4 --rails 1 --nic-gbps 25"

# A. PCIe nodes, one 25 GB/s NIC, 1+1: ring of 2 ranks.  Each node's NIC
# carries 2(2-1)/2 x 1e9 = 1e9 B at 25 x 0.96 = 24 GB/s: 41.6667 ms (PCIe
# 1e9 / 25.6e9 = 39.06 ms is faster).  Latency 8.4 + 1.4 x 2 x 14
# + 55.076 = 102.676 us.  Total 41.769343 ms, limited by the NIC.
"$bin" model $pcie --placement 1,1 --job $job >"$t/a" 2>&1
check "1+1 PCIe: NIC-bound ring, 41.769343 ms" "$t/a" 2 0.0417693 ring nic

# B. The same nodes, 4+4: 8 ranks, the ring's 2(8-1)/8 x 1e9 = 1.75e9 B per
# GPU over PCIe at 25.6 GB/s = 68.359375 ms, above the NIC's 1e9 B / 24 GB/s
# (hierarchical pattern) = 41.667 ms: PCIe limits.  Latency: 14 steps, 2
# between nodes: 1.4 x (12 x 5.7 + 2 x 14) + 8.4 + 55.076 = 198.436 us.
# Total 68.557811 ms: four GPUs per NIC sync 64 % slower than one.
"$bin" model $pcie --placement 4,4 --job $job >"$t/b" 2>&1
check "4+4 PCIe: PCIe-bound, 68.557811 ms" "$t/b" 2 0.0685578 hier pcie

# C. H100 nodes with one 50 GB/s NIC each, uneven 2+1+1 (4 ranks, 3 units).
# Hierarchical pattern: each node's NIC carries 2(3-1)/3 x 1e9 = 1.3333e9 B
# at 48 GB/s = 27.777778 ms; NVLink 2(4-1)/4 x 1e9 / 370.8e9 = 4.045 ms.
# Latency: 6 steps, 4 between nodes: 1.4 x (2 x 3.4 + 4 x 14) + 8.4 +
# 55.076 = 151.396 us.  Total 27.929174 ms, NIC-bound.
"$bin" model --gpu-type h100 --rails 1 --placement 2,1,1 --job $job >"$t/c" 2>&1
check "2+1+1 H100: NIC-bound, 27.929174 ms" "$t/c" 3 0.0279292 hier nic

# D. 1+1 on nodes under different leaves with 4:1 uplinks: the leaf's
# uplink share is 48 / 4 = 12 GB/s, less the 0.15 equal-cost-routing
# collisions take of an uplink at the floor load (cost.c ECMP_LOSS x
# ECMP_LOAD_FLOOR): 10.2 GB/s for the 1e9 B ring edge = 98.039216 ms;
# the leaf-to-spine links add 2 x 0.5 = 1 us per step, latency 8.4 + 1.4 x
# 2 x 15 + 55.076 = 105.476 us.  Total 98.144692 ms, uplink of level 1.
"$bin" model --gpu-type h100 --rails 1 --nodes-per-leaf 1 --oversub 4 --placement 1,1 \
	--job $job >"$t/d" 2>&1
check "1+1 across 4:1 leaves: uplink-L1, 98.144692 ms" "$t/d" 2 0.0981447 ring uplink-L1

# E. --nodelist NODE:G is the same placement as --placement on those nodes.
"$bin" model --gpu-type h100 --nodes 4 --rails 1 --nodelist n0001:2,n0002:1,n0003:1 \
	--job $job >"$t/e" 2>&1
check "--nodelist n0001:2,n0002:1,n0003:1 equals 2+1+1" "$t/e" 3 0.0279292 hier nic

# F. Inside one node over NVLink: the limit is NVLink, not a NIC.
n=$((n + 1))
"$bin" model --gpu-type h100 --placement 8 --job $job >"$t/f" 2>&1
set -- $(row "$t/f")
if [ "$1" = 1 ] && [ "$4" = nvlink ]; then
	echo "ok $n - one node: limit nvlink"
else
	echo "not ok $n - one node: got $*"; sed 's/^/# /' "$t/f"
fi

# G. Bad input names the option and the value.
n=$((n + 1))
if ! "$bin" model --gpu-type h100 --placement 4,x --job $job >"$t/g" 2>&1 &&
   grep -q "^gpuplace model: --placement: 'x' is not a whole number" "$t/g"; then
	echo "ok $n - --placement 4,x is an error naming the value"
else
	echo "not ok $n - bad count"; sed 's/^/# /' "$t/g"
fi
n=$((n + 1))
if ! "$bin" model --gpu-type h100 --nodes 2 --nodelist n0001:9 --job $job >"$t/h" 2>&1 &&
   grep -q "node 'n0001' has 8 GPUs, 9 asked" "$t/h"; then
	echo "ok $n - more GPUs than the node has is an error naming the node"
else
	echo "not ok $n - too many GPUs"; sed 's/^/# /' "$t/h"
fi
