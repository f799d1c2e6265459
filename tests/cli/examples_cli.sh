#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every example site under etc/ loads and passes `gpuplace cluster check`,
# so a change to a loader or an example cannot leave a shipped example
# broken.  Prints TAP.
b=${GP_TOP_BUILDDIR:-.}
s=${GP_TOP_SRCDIR:-.}
g="$b/gpuplace"
t=$(mktemp -d "${TMPDIR:-/tmp}/gp-examples.XXXXXX")
trap 'rm -rf "$t"' EXIT
dirs=""
for d in "$s"/etc/*/; do [ -f "$d/slurm.conf" ] && dirs="$dirs $d"; done
set -- $dirs
echo "1..$#"
n=0
for d in "$@"; do
	n=$((n + 1))
	name=$(basename "$d")
	if "$g" cluster check --conf-dir "$d" >"$t/out" 2>&1 && grep -q '^OK: ' "$t/out"; then
		echo "ok $n - etc/$name: $(head -n 1 "$t/out")"
	else
		echo "not ok $n - etc/$name does not pass cluster check"
		sed 's/^/# /' "$t/out" | head -n 20
	fi
done
