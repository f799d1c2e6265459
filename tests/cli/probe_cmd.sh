#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `gpuplace probe` and `gpuplace cluster merge` as a user runs them: exit
# codes, the "no GPU found" message, fragments merged into host lists.
b=${GP_TOP_BUILDDIR:-.}
s=${GP_TOP_SRCDIR:-.}
hw=${GP_SHARED_DATA:-$s/../shared/data}/hwloc
gp="$b/gpuplace"
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else nok "$1"; fi; }
echo 1..9

# 1-2: this machine: exit 0; with no GPU it says so on stderr
"$gp" probe --node-name here >"$t/out" 2>"$t/err"; rc=$?
check "probe on this machine exits 0" '[ $rc -eq 0 ]'
check "this machine: gres lines or 'no GPU found'" \
	'grep -q "^NodeName=here Name=gpu" "$t/out" || grep -q "no GPU found on here" "$t/err"'

# 3: a machine without GPU: message and exit 0
if [ -r "$hw/nvidia-dgx-gb10.xml" ]; then
	"$gp" probe --xml "$hw/nvidia-dgx-gb10.xml" --node-name spark >"$t/out" 2>"$t/err"; rc=$?
	check "no GPU: exit 0 and a clear message" \
		'[ $rc -eq 0 ] && grep -q "no GPU found on spark" "$t/err"'
else
	n=$((n + 1)); echo "ok $n # SKIP $hw/nvidia-dgx-gb10.xml is absent"
fi

# 4: usage errors exit 2, unreadable files 1
"$gp" probe --bogus >/dev/null 2>&1; r1=$?
"$gp" probe --xml "$t/missing.xml" >/dev/null 2>&1; r2=$?
"$gp" cluster merge >/dev/null 2>&1; r3=$?
check "usage errors exit 2, a missing file 1" '[ $r1 -eq 2 ] && [ $r2 -eq 1 ] && [ $r3 -eq 2 ]'

# 5-8: fragments of three identical nodes and a different one, merged
x="$s/tests/data/probe/switch-gpu-hca.xml"
for h in gn03 gn01 gn02; do
	"$gp" probe --xml "$x" --node-name $h --json-out "$t/$h.json" || nok "probe --json $h"
done
"$gp" probe --xml "$s/tests/data/probe/odd-bandwidth.xml" --node-name odd1 --json-out - >"$t/odd1.json"
"$gp" probe --xml "$x" --node-name gn01 --gpu-type h100 >"$t/conf"
check "--gpu-type sets every GPU's Type" \
	'[ $(grep -c "^NodeName=gn01 Name=gpu Type=h100 " "$t/conf") -eq 4 ]'
"$gp" cluster merge --json-out "$t/merged" "$t/gn01.json" "$t/gn02.json" "$t/gn03.json" "$t/odd1.json"; rc=$?
check "merge exits 0" '[ $rc -eq 0 ]'
check "identical nodes share one host list" \
	'[ $(grep -c "^NodeName=gn\[01-03\] Name=gpu Type=a100 File=/dev/nvidia[0-3] Cores=[0-9-]* Links=" "$t/merged") -eq 4 ] &&
	 [ $(grep -c "^NodeName=odd1 Name=gpu" "$t/merged") -eq 4 ]'
check "gpuplace.conf Rails line for all" 'grep -q "^NodeName=gn\[01-03\],odd1 Rails=2$" "$t/merged"'

# 9: a node given twice is refused
"$gp" cluster merge --json-out "$t/dup" "$t/gn01.json" "$t/gn01.json" >/dev/null 2>"$t/err"; rc=$?
check "duplicate node: exit 1 naming it, nothing written" \
	'[ $rc -eq 1 ] && grep -q "gn01 is given twice" "$t/err" && [ ! -e "$t/dup" ]'
