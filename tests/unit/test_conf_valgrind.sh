#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# TAP: run tests/unit/test_conf under valgrind; any leak or memory error fails.
# libslurm's own leak on a rejected host range is suppressed
# (tests/data/conf/libslurm.supp).  SKIPs when valgrind is not installed.
top_src=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
top_build=${GP_TOP_BUILDDIR:-.}
bin="$top_build/tests/unit/test_conf"
echo "1..1"
if ! command -v valgrind >/dev/null 2>&1; then
	echo "ok 1 - test_conf under valgrind # SKIP valgrind not installed"
	exit 0
fi
if [ -n "${GP_SANITIZERS:-}" ]; then
	echo "ok 1 - test_conf under valgrind # SKIP built with sanitizers"
	exit 0
fi
if [ ! -x "$bin" ]; then
	echo "ok 1 - test_conf under valgrind # SKIP $bin not built"
	exit 0
fi
log=$(mktemp "${TMPDIR:-/tmp}/gp-vg-conf.XXXXXX") || exit 1
if GP_TEST_NO_TIMING=1 CMOCKA_MESSAGE_OUTPUT=TAP valgrind -q --leak-check=full \
	--errors-for-leak-kinds=definite,possible --error-exitcode=99 \
	--suppressions="$top_src/tests/data/conf/libslurm.supp" "$bin" >"$log" 2>&1; then
	echo "ok 1 - test_conf under valgrind: no leak, no memory error"
else
	sed 's/^/# /' "$log"
	echo "not ok 1 - test_conf under valgrind"
fi
rm -f "$log"
