#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `gpuplace probe --xml` never ends by a signal: every malformed topology is
# either read or refused with exit 1 and a message.  Inputs: the
# regressions in tests/data/probe/bad-*.xml (two make hwloc 2.9 itself
# crash, one sent the PCIe affinity walk past the root), and every file in
# ../shared/data/hwloc-crashes (mutated real topologies that crashed the
# probe) when that directory is present.
b=${GP_TOP_BUILDDIR:-.}
s=${GP_TOP_SRCDIR:-.}
crashes=${GP_SHARED_DATA:-$s/../shared/data}/hwloc-crashes
gp="$b/gpuplace"
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
n=0

# one test per file: exit 0 or 1, and on 1 a message naming the file
run() {
	n=$((n + 1))
	"$gp" probe --xml "$1" --node-name x >"$t/out" 2>"$t/err"
	rc=$?
	if [ $rc -eq 0 ] || { [ $rc -eq 1 ] && grep -qF "$1" "$t/err"; }; then
		echo "ok $n - $(basename "$1"): exit $rc, no crash"
	else
		echo "not ok $n - $(basename "$1"): exit $rc"
		sed 's/^/# /' "$t/err" | head -5
	fi
}

set -- "$s"/tests/data/probe/bad-*.xml
shared=
if [ -d "$crashes" ]; then
	shared=$(ls "$crashes"/*.xml 2>/dev/null)
fi
total=$#
for f in $shared; do total=$((total + 1)); done
[ -n "$shared" ] || total=$((total + 1))
echo "1..$total"
for f in "$@"; do run "$f"; done
if [ -n "$shared" ]; then
	for f in $shared; do run "$f"; done
else
	n=$((n + 1))
	echo "ok $n # SKIP $crashes is absent (set GP_SHARED_DATA)"
fi
