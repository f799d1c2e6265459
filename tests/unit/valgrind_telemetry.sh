#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# TAP wrapper: the telemetry tests (real HTTP on loopback, the poller
# thread) and the power model tests under valgrind memcheck; any leak or
# memory error fails.  Skips when valgrind is not installed.
top_build=${GP_TOP_BUILDDIR:-.}
if ! command -v valgrind >/dev/null 2>&1; then
	echo "1..0 # SKIP valgrind not installed"
	exit 0
fi
if [ -n "${GP_SANITIZERS:-}" ]; then
	echo "1..0 # SKIP built with sanitizers (valgrind cannot run ASan code)"
	exit 0
fi
echo "1..2"
n=0
for t in test_telemetry test_power; do
	n=$((n + 1))
	bin="$top_build/tests/unit/$t"
	# libtool may have built a wrapper script: run the real binary
	[ -x "$top_build/tests/unit/.libs/$t" ] && bin="$top_build/tests/unit/.libs/$t"
	if [ ! -x "$bin" ]; then
		echo "ok $n - $t # SKIP not built"
		continue
	fi
	log=$(mktemp "${TMPDIR:-/tmp}/gp-vg-XXXXXX")
	if CMOCKA_MESSAGE_OUTPUT=TAP valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
		"$bin" >"$log" 2>&1 && ! grep -q "^not ok" "$log"; then
		echo "ok $n - $t clean under valgrind"
	else
		echo "not ok $n - $t under valgrind"
		sed 's/^/# /' "$log"
	fi
	rm -f "$log"
done
