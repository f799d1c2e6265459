#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# README command (2): install what is missing, then build and run the whole
# test suite (unit, fuzz, integration against real Slurm daemons) on two
# Slurm releases: the host's (Debian 12: 22.05) and Debian 13's 24.11 in a
# cached Debian 13 root (scripts/debian13-root.sh), each from a clean copy
# of the sources; then `make distcheck` on the host.  Prints one summary
# line per Slurm release, then the overall `N passed, N failed, N skipped`
# line last.  Exits non-zero when any test fails or a release could not be
# tested (GP_SKIP_DEBIAN13=1 leaves the second release out, and says so).
#
#   scripts/test.sh --suite   build here and run `make check` only (what
#                             runs inside the root); prints one line
#                             `suite slurm X.Y.Z: P F S`
set -eu
cd "$(dirname "$0")/.."

# pass, fail and skip counts of the automake test logs under $1
counts() {
	p=0 f=0 s=0
	for t in $(find "$1" -name '*.trs' -not -path '*/gpuplace-[0-9]*'); do
		p=$((p + $(grep -c '^:test-result: PASS' "$t" || true)))
		f=$((f + $(grep -c -E '^:test-result: (FAIL|XPASS|ERROR)' "$t" || true)))
		s=$((s + $(grep -c '^:test-result: SKIP' "$t" || true)))
	done
	echo "$p $f $s"
}

# the Slurm release this tree was configured against, "22.05.8"
built_for() {
	v=$(awk '/define GP_SLURM_VERSION_BUILT/ { print $3 }' config.h)
	printf '%d.%02d.%d\n' $((v >> 16)) $(((v >> 8) & 255)) $((v & 255))
}

show_failures() {
	find . -name '*.log' -path './tests/*' -exec grep -l -E '^(not ok|FAIL|ERROR)' {} + 2>/dev/null |
		while read -r f; do echo "==== $f"; tail -n 40 "$f"; done
}

if [ "${1:-}" = --suite ]; then
	rc=0
	sh scripts/build.sh || rc=1
	if [ $rc = 0 ]; then
		make -j2 check || { rc=1; show_failures; }
		echo "suite slurm $(built_for): $(counts .)"
	else
		echo "suite slurm $(built_for 2>/dev/null || echo unknown): build failed"
	fi
	exit $rc
fi

sh scripts/deps.sh
status=0
lines=""
add_line() { lines="$lines$1
"; }
pass=0 fail=0 skip=0
t0=$(date +%s)

# ---- 1. the host's Slurm ---------------------------------------------------
if sh scripts/build.sh; then
	make -j"$(nproc)" check || { status=1; show_failures; }
	set -- $(counts .)
	pass=$((pass + $1)) fail=$((fail + $2)) skip=$((skip + $3))
	add_line "slurm $(built_for): $1 passed, $2 failed, $3 skipped (host, $(($(date +%s) - t0)) s)"
else
	add_line "slurm (host): FAILED, not tested: the build failed (see above)"
	status=1
	fail=$((fail + 1))
fi

if [ "$status" = 0 ] && [ "${GP_SKIP_DISTCHECK:-0}" != 1 ]; then
	t1=$(date +%s)
	if GP_DISTCHECK=1 make distcheck >/tmp/gpuplace-distcheck.log 2>&1; then
		add_line "make distcheck: ok ($(($(date +%s) - t1)) s)"
	else
		tail -n 60 /tmp/gpuplace-distcheck.log
		add_line "make distcheck: FAILED (log above, whole in /tmp/gpuplace-distcheck.log)"
		status=1
	fi
fi

# ---- 2. Debian 13's Slurm 24.11 in a Debian 13 root --------------------------
second="slurm 24.11 (Debian 13 root)"
if [ "${GP_SKIP_DEBIAN13:-0}" = 1 ]; then
	add_line "$second: not run (GP_SKIP_DEBIAN13=1)"
else
	t2=$(date +%s)
	why=""
	work=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-deb13.XXXXXX")
	# mktemp makes it 0700; the tests run jobs as another user (daemon),
	# whose batch scripts live under it (/gpbuild inside the root)
	chmod 755 "$work"
	trap 'rm -rf "$work"' EXIT
	if ! sh scripts/debian13-root.sh prepare 2>"$work/prepare.err"; then
		cat "$work/prepare.err"
		why=$(tail -n 1 "$work/prepare.err" | sed 's/^debian13-root: //')
	else
		# a clean copy of the sources: the tracked files of a git checkout
		# (as they are in the work tree), else the dist tarball
		mkdir -p "$work/src" "$work/tmp" "$work/shared"
		if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
			git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$work/src"
		else
			make dist >/dev/null && tar -xzf gpuplace-*.tar.gz -C "$work/src" --strip-components=1
		fi
		[ -d ../shared/data ] && cp -rL ../shared/data "$work/shared/data"
		# its own ports: the two releases' clusters never meet on loopback
		GP_PORT_OFFSET=$((${GP_PORT_OFFSET:-0} + 500)) sh scripts/debian13-root.sh run "$work" \
			sh -c 'cd /gpbuild/src && TMPDIR=/gpbuild/tmp sh scripts/test.sh --suite' 2>&1 |
			tee "$work/suite.log"
		res=$(grep '^suite slurm ' "$work/suite.log" | tail -n 1)
		case "$res" in
		*": "[0-9]*" "[0-9]*" "[0-9]*)
			set -- ${res##*: }
			ver=${res#suite slurm }
			ver=${ver%%:*}
			pass=$((pass + $1)) fail=$((fail + $2)) skip=$((skip + $3))
			[ "$2" = 0 ] || status=1
			add_line "slurm $ver: $1 passed, $2 failed, $3 skipped (Debian 13 root, $(($(date +%s) - t2)) s)"
			;;
		*)
			why="${res#suite }"
			[ -n "$why" ] || why="the run inside the root ended without a result"
			;;
		esac
	fi
	if [ -n "$why" ]; then
		add_line "$second: FAILED, not tested: $why"
		status=1
		fail=$((fail + 1))
	fi
fi

printf '%s' "$lines"
echo "$pass passed, $fail failed, $skip skipped"
exit $status
