#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# TAP: `gpuplace cluster check` on a site whose gpuplace.conf has several
# problems, each in one part (gpuplace.conf(5), PROBLEMS): one run names
# every one of them with file:line:key and what is lost, exits 0, and the
# rest of the site is modelled (its node and GPU counts, the racks without
# a problem); a problem the reader cannot get past still fails (exit 1).
top_build=${GP_TOP_BUILDDIR:-.}
top_src=${GP_TOP_SRCDIR:-.}
gp="$top_build/gpuplace"
site="$top_src/etc/superpod-h100"
if [ ! -x "$gp" ]; then
	echo "1..0 # SKIP $gp not built"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gp-problems-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); echo "not ok $n - $1"; fail=1; }
# has FILE FIXED-STRING DESCRIPTION
has() {
	if grep -Fq -- "$2" "$1"; then ok "$3"; else
		bad "$3: no '$2'"; sed 's/^/# /' "$1"; fi
}

echo "1..12"
mkdir "$tmp/site"
cp "$site/slurm.conf" "$site/topology.conf" "$site/gres.conf" "$tmp/site/"
# the site's gpuplace.conf, rack02's cap written in W, and five lines with
# a problem each appended (line numbers counted from the end of the file)
sed 's/^Rack=rack02 Nodes=dgx\[005-008\] PowerCapKW=45 /Rack=rack02 Nodes=dgx[005-008] PowerCapKW=45000 /' \
	"$site/gpuplace.conf" >"$tmp/site/gpuplace.conf"
base=$(wc -l <"$tmp/site/gpuplace.conf")
cat >>"$tmp/site/gpuplace.conf" <<'CONF'
Rack=rack33 Nodes=dgx[129-132] PowerCapKW=45
GpuProfile=b200 TFLOPS=2250 HBMGBps=8000 NVLinkGBps=900 TDPWatts=1000 IdleWatts=2000
Storage=scratch Scope=galaxy WriteGBps=100
NodeName=dgx[127-130] Rails=8
PowerMarginTypo=0.1
CONF
d="$tmp/site"
"$gp" cluster check --conf-dir "$d" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 0 ]; then ok "check of a site with only per-part problems exits 0"; else
	bad "check exit $rc"; sed 's/^/# /' "$tmp/out" "$tmp/err"; fi
has "$tmp/out" "OK: 128 nodes, 1024 GPUs" "every node and GPU is still modelled"
has "$tmp/out" "$d/gpuplace.conf:$((base + 1)): Nodes: unknown node 'dgx129'; rack 'rack33' not modelled: power not considered on its nodes (dgx[129-132])" \
	"the rack naming unknown nodes, what is lost"
has "$tmp/out" "$d/gpuplace.conf:$((base + 2)): IdleWatts: '2000' is above TDPWatts '1000'; GPU profile 'b200' not used" \
	"the bad profile"
has "$tmp/out" "$d/gpuplace.conf:$((base + 3)): Scope: 'galaxy' is not node, rack or cluster; storage 'scratch' not modelled" \
	"the bad storage line"
has "$tmp/out" "$d/gpuplace.conf:$((base + 4)): NodeName: 2 nodes not in slurm.conf (first 'dgx129') ignored" \
	"the unknown nodes of a NodeName line"
has "$tmp/out" "$d/gpuplace.conf:$((base + 5)): PowerMarginTypo: unknown key; ignored" "the unknown key"
has "$tmp/out" "PowerCapKW: 45000 kW for rack 'rack02' is above 1000 kW" "the implausible cap"
has "$tmp/out" "rack 'rack02' not modelled: power not considered on its 4 nodes" \
	"what the implausible cap switches off"
"$gp" cluster show --conf-dir "$d" >"$tmp/show" 2>&1
has "$tmp/show" "Racks: 31," "the 31 racks without a problem are modelled"
# the reader cannot get past an open quote: the load fails, naming it
printf 'DefaultGpuProfile="h100\n' >>"$d/gpuplace.conf"
"$gp" cluster check --conf-dir "$d" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 1 ]; then ok "an open quote still fails the check (exit 1)"; else
	bad "open quote: exit $rc"; fi
has "$tmp/err" "gpuplace.conf:$((base + 6)): DefaultGpuProfile: unterminated quote" \
	"the fatal problem is named"
exit $fail
