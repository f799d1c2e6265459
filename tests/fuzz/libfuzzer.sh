#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: every libFuzzer target of tests/fuzz/targets built with clang
# (-fsanitize=fuzzer,address,undefined, LeakSanitizer on) and run for
# GP_LIBFUZZER_RUNS inputs (default 2000) from its seeds; one TAP line per
# target.  SKIP when clang cannot build a libFuzzer program.
src=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
b=${GP_TOP_BUILDDIR:-.}
out=$b/tests/fuzz/libfuzzer.out
mkdir -p "$b/tests/fuzz"
sh "$src/tests/fuzz/run-all.sh" -b "$b" -w "$b/fuzz-work/check" -r "${GP_LIBFUZZER_RUNS:-2000}" >"$out" 2>&1
rc=$?
if [ $rc -eq 77 ]; then
	echo "1..0 # SKIP $(head -1 "$out")"
	exit 0
fi
n=$(grep -c ' executions ' "$out")
if [ "$n" -eq 0 ]; then
	echo "1..1"
	echo "not ok 1 - libFuzzer build"
	sed 's/^/# /' "$out" | tail -30
	exit 0
fi
echo "1..$n"
i=0
grep ' executions ' "$out" | while read -r name _ execs _ crashes _; do
	i=$((i + 1))
	if [ "$crashes" = 0 ]; then
		echo "ok $i - $name: $execs inputs, no crash or sanitizer report"
	else
		echo "not ok $i - $name: $crashes crash(es)"
		sed 's/^/# /' "$b/fuzz-work/check/log/$name.log" | grep -A15 -m1 'ERROR\|runtime error\|deadly' 
	fi
done
