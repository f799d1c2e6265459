#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test_plugin under valgrind: no invalid access and no definite leak while
# job_submit/gpuplace handles Slurm-allocated job descriptions (it would
# also catch a malloc'd string handed to Slurm's xfree).
b=${GP_TOP_BUILDDIR:-.}
if ! command -v valgrind >/dev/null 2>&1; then
	echo "1..0 # SKIP valgrind is not installed"
	exit 0
fi
if [ -n "${GP_SANITIZERS:-}" ]; then
	echo "1..0 # SKIP built with sanitizers (valgrind cannot run ASan code)"
	exit 0
fi
echo "1..1"
log=$(mktemp)
if valgrind -q --leak-check=full --show-possibly-lost=no --errors-for-leak-kinds=definite \
	--error-exitcode=9 "$b/tests/unit/test_plugin" >"$log" 2>&1; then
	echo "ok 1 - test_plugin under valgrind: 0 errors"
else
	echo "not ok 1 - test_plugin under valgrind"
	sed 's/^/# /' "$log" | tail -n 40
fi
rm -f "$log"
