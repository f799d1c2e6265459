#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# TAP: run tests/unit/test_conf and tests/unit/test_emit (the readers and
# writers of the configuration files) under valgrind; any leak or memory
# error fails (test_emit found a message formatted from the buffer it was
# written to).  libslurm's own leak on a rejected host range is suppressed
# (tests/data/conf/libslurm.supp).  SKIPs when valgrind is not installed.
top_src=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
top_build=${GP_TOP_BUILDDIR:-.}
echo "1..2"
k=0
for t in test_conf test_emit; do
	k=$((k + 1))
	bin="$top_build/tests/unit/$t"
	if ! command -v valgrind >/dev/null 2>&1; then
		echo "ok $k - $t under valgrind # SKIP valgrind not installed"
		continue
	fi
	if [ -n "${GP_SANITIZERS:-}" ]; then
		echo "ok $k - $t under valgrind # SKIP built with sanitizers"
		continue
	fi
	if [ ! -x "$bin" ]; then
		echo "ok $k - $t under valgrind # SKIP $bin not built"
		continue
	fi
	log=$(mktemp "${TMPDIR:-/tmp}/gp-vg-conf.XXXXXX") || exit 1
	if GP_TEST_NO_TIMING=1 CMOCKA_MESSAGE_OUTPUT=TAP valgrind -q --leak-check=full \
		--errors-for-leak-kinds=definite,possible --error-exitcode=99 \
		--suppressions="$top_src/tests/data/conf/libslurm.supp" "$bin" >"$log" 2>&1; then
		echo "ok $k - $t under valgrind: no leak, no memory error"
	else
		sed 's/^/# /' "$log"
		echo "not ok $k - $t under valgrind"
	fi
	rm -f "$log"
done
