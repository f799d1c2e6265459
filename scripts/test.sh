#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# README command (2): install what is missing, build, run the whole test
# suite (unit, fuzz, integration against real Slurm daemons), then
# `make distcheck`.  Exits non-zero when any test fails.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
sh scripts/build.sh
status=0
make -j"$(nproc)" check || status=1
# One closing line for any reader: counts from automake's test logs.
pass=0; fail=0; skip=0
for t in $(find . -name '*.trs' -not -path './gpuplace-*'); do
	pass=$((pass + $(grep -c '^:test-result: PASS' "$t" || true)))
	fail=$((fail + $(grep -c -E '^:test-result: (FAIL|XPASS|ERROR)' "$t" || true)))
	skip=$((skip + $(grep -c '^:test-result: SKIP' "$t" || true)))
done
if [ "$status" != 0 ]; then
	find . -name '*.log' -path './tests/*' -exec grep -l -E '^(not ok|FAIL|ERROR)' {} + 2>/dev/null |
		while read -r f; do echo "==== $f"; tail -n 40 "$f"; done
fi
if [ "$status" = 0 ] && [ "${GP_SKIP_DISTCHECK:-0}" != 1 ]; then
	GP_DISTCHECK=1 make distcheck >/tmp/gpuplace-distcheck.log 2>&1 || { tail -n 60 /tmp/gpuplace-distcheck.log; echo "make distcheck failed"; status=1; }
	[ "$status" = 0 ] && echo "make distcheck: ok"
fi
echo "$pass passed, $fail failed, $skip skipped"
exit $status
