#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# README command (2): install what is missing, then build and run the test
# tiers (Makefile.am) where each matters:
#   host (Debian 12, Slurm 22.05)  check (the quick tier), check-slurm,
#                                  check-fuzz, check-long, packages
#   a Debian 13 root (Slurm 24.11) check-slurm-unit,    } scripts/debian-root.sh
#   a Debian sid root (the newest  check-slurm,         }
#     Slurm Debian ships, 26.05)   packages             }
# Every release is built once, by dpkg-buildpackage (scripts/build.sh
# --deb: Debian's flags and hardening, plus --enable-werror), in a copy of
# the sources under the run's work directory, and its tests run in that
# tree: on the host a copy of this tree's tracked files (a checkout is never
# configured or built by the run); in each root the dist tarball `make
# dist` made in the host's tree once configured, before its build, so that
# what ships is what the roots build and test (when make dist failed, the
# same copy as the host's).
# (packages: tests/cli/packages.sh, the Debian packages that build made,
# installed, loaded by the release's slurmctld and removed)
# (check-slurm-unit: the quick tier's tests that build against Slurm's
# headers or load the plugin; the rest of the quick tier does not depend on
# the Slurm release and runs on the host)
# in lanes side by side (see "Three lanes" below): the real-daemon tiers
# of the three releases side by side (they mostly wait on their daemons),
# GP_SLURM_JOBS (3) tests at a time each, the longest first (Makefile.am
# GP_CHECK_SLURM), at normal priority; every build and CPU-bound
# tier beside them at nice 10, so that they never starve a daemon (run side
# by side at one priority, they overloaded the 2-core machine: real-daemon
# tests timed out).
# Prints one line per tier and place with its counts and time, one summary
# line per Slurm release, one per tier over all places, then the overall
# `N passed, N failed, N skipped` line last.  Exits non-zero when any test
# fails or a place could not be tested.
#
#   scripts/test.sh [--busy-core]
#       --busy-core (or GP_BUSY_CORE=1): keep one core busy the whole run
#       with `sh -c 'while :; do :; done'` (killed by its PID at the end),
#       to show that the suite passes on a loaded machine
#   scripts/test.sh --suite TIER...
#       build here and run the tiers (check, slurm-unit, slurm, fuzz,
#       long) one after
#       the other: what runs inside a root (no TIER: the build alone).
#       Prints `tier TIER: P F S T` per tier (T seconds) and `suite slurm
#       X.Y.Z: P F S` last
#   scripts/test.sh --root-lane WORK | --cpu-lane WORK
#       the root lane or the CPU lane of a run whose results go to WORK
#       (the main run starts them)
# Environment: GP_SKIP_ROOTS="trixie sid" leaves those releases out (and
# says so), GP_SLURM_JOBS, GP_PORT_OFFSET.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)

# pass, fail, skip counts of an automake test-suite log (or of the
# "Testsuite summary" a make check prints): "P F S", known failures (XFAIL, TAP TODO) among
# the skipped, never the passed; nothing when absent
suite_counts() {
	[ -f "$1" ] || return 0
	awk '/^# (TOTAL|PASS|SKIP|XFAIL|FAIL|XPASS|ERROR): / { sub(/^# /, ""); sub(/:/, ""); v[$1] = $2 }
		END { if ("TOTAL" in v) print v["PASS"], v["FAIL"] + v["XPASS"] + v["ERROR"], v["SKIP"] + v["XFAIL"] }' "$1"
}

# pass, fail, skip counts of a TAP stream (tests/cli/packages.sh prints
# one); "0 1 0" when it has no result line
tap_counts() {
	awk '/^ok .*# SKIP/ { s++; next } /^ok / { p++; next } /^not ok / { f++ }
		END { if (p + f + s == 0) f = 1; print p + 0, f + 0, s + 0 }' "$1" 2>/dev/null || echo "0 1 0"
}

# the Slurm release this tree was configured against, "22.05.8"
built_for() {
	v=$(awk '/define GP_SLURM_VERSION_BUILT/ { print $3 }' config.h)
	printf '%d.%02d.%d\n' $((v >> 16)) $(((v >> 8) & 255)) $((v & 255))
}

# the .trs of the tests of tier $1: those its make output names (tiers
# run side by side in one tree: the CPU lane's quick and fuzz tiers)
tier_trs() {
	sed -n 's/^\(PASS\|FAIL\|SKIP\|XFAIL\|XPASS\|ERROR\): \([^ ]*\).*/\2/p' ".tier-$1.out" 2>/dev/null |
		sort -u | while read -r t; do
		t=${t%.sh}.trs
		[ -f "$t" ] && echo "$t"
	done
}

# the logs of the tier's tests that failed
show_failures() {
	for t in $(tier_trs "$1"); do
		grep -q -E '^:test-result: (FAIL|ERROR|XPASS)' "$t" || continue
		echo "==== ${t%.trs}.log"
		tail -n 40 "${t%.trs}.log"
	done
}

# the slowest tests of the last tier run, from each log's creation (the
# test driver opens it first) to its .trs (written last)
slowest() {
	for t in $(tier_trs "$1"); do
		l=${t%.trs}.log
		b=$(stat -c %W "$l" 2>/dev/null || echo 0)
		[ "$b" -gt 0 ] 2>/dev/null || continue
		echo "$(($(stat -c %Y "$t") - b)) ${t%.trs}"
	done | sort -rn | head -n 4 | awk '{ printf "%s%s %s s", (NR > 1 ? ", " : ""), $2, $1 }'
}

# run_tier NAME: make check[-NAME] here; prints `tier NAME: P F S T`
run_tier() {
	case $1 in
	check) target=check log=test-suite.log ;;
	slurm) target=check-slurm log=tests/slurm-suite.log ;;
	slurm-unit) target=check-slurm-unit log=tests/slurm-unit-suite.log ;;
	fuzz) target=check-fuzz log=tests/fuzz-suite.log ;;
	long) target=check-long log=tests/long-suite.log ;;
	packages) target=check-packages log= ;;
	*) echo "unknown tier $1" >&2; return 1 ;;
	esac
	rm -f "$log"
	s=$(date +%s)
	rc=0
	# the real-daemon tests mostly wait on their daemons: three at a time,
	# so that the two that take over two minutes each (slurm_vs_stock,
	# slurm_steer) leave a slot to all the others.  The
	# make output goes to .tier-NAME.out; failures are printed below
	# the real-daemon smoke test of make check runs with the real-daemon
	# tier (SLURM_SMOKE_TESTS empty in the quick one): the quick tier runs
	# in the CPU lane, niced, where a daemon would wait behind a build
	case $1 in
	slurm) make -j"${GP_SLURM_JOBS:-3}" "$target" >".tier-$1.out" 2>&1 || rc=1 ;;
	# (the packages this tree's build made, beside it: scripts/build.sh --deb)
	packages) GP_PKG_DEBS=$(cd .. && pwd) make "$target" >".tier-$1.out" 2>&1 || rc=1 ;;
	check) make -j"$(nproc)" "$target" SLURM_SMOKE_TESTS= >".tier-$1.out" 2>&1 || rc=1 ;;
	# the libFuzzer builds at -O0: the tier runs a fixed number of inputs
	# per target, where the compile is most of its time, and -O0 compiles
	# faster than -O1 (tests/fuzz/local.mk FUZZ_OPT)
	fuzz) make -j"$(nproc)" "$target" FUZZ_OPT=-O0 >".tier-$1.out" 2>&1 || rc=1 ;;
	*) make -j"$(nproc)" "$target" >".tier-$1.out" 2>&1 || rc=1 ;;
	esac
	[ $rc = 0 ] || grep -E -v '^(PASS|SKIP|XFAIL): |^  (CC|CCLD|GEN) ' ".tier-$1.out" | tail -n 40
	if [ -n "$log" ]; then
		c=$(suite_counts "$log")
	else
		c=$(tap_counts ".tier-$1.out")
		grep -q '^not ok' ".tier-$1.out" && { rc=1; grep -A 12 '^not ok' ".tier-$1.out" | head -n 40; }
	fi
	[ -n "$c" ] || c="0 1 0"
	[ $rc = 0 ] || show_failures "$1"
	echo "slowest $1: $(slowest "$1")"
	echo "tier $1: $c $(($(date +%s) - s))"
}

if [ "${1:-}" = --suite ]; then
	shift
	sum_p=0 sum_f=0 sum_s=0
	# (GP_SUITE_DEB=1: the tree built by dpkg-buildpackage, its packages
	# beside it for the packages tier; a root's first suite)
	if ! sh scripts/build.sh ${GP_SUITE_DEB:+--deb}; then
		echo "suite slurm $(built_for 2>/dev/null || echo unknown): build failed"
		exit 1
	fi
	# (each tier's files its own: a root's quick tests and its real-daemon
	# tier run side by side in one tree, each a --suite of its own)
	tiers=$*
	for tier in $tiers; do
		run_tier "$tier" | tee ".tier-$tier.res"
		set -- $(sed -n 's/^tier [a-z-]*: //p' ".tier-$tier.res")
		sum_p=$((sum_p + $1)) sum_f=$((sum_f + $2)) sum_s=$((sum_s + $3))
		rm -f ".tier-$tier.res" ".tier-$tier.out"
	done
	echo "suite slurm $(built_for): $sum_p $sum_f $sum_s"
	[ "$sum_f" = 0 ]
	exit
fi

# Three lanes run side by side:
#   the root lane     from the start, a chain per root, the roots side
#                     by side: prepares the root, then, once the dist
#                     tarball is made, its build, then
#                     its Slurm-dependent quick tests (check-slurm-unit)
#                     and packages beside its real-daemon tier, at nice
#                     10 and in the idle I/O class (a root's build and
#                     real-daemon tier are the longest chain of a run)
#   the daemon lane   once the host is built: the real-daemon tier
#                     (check-slurm) on the host, in the Debian 13 root and
#                     in the sid root, side by side, at normal priority
#   the CPU lane      once the host is built: the host's quick tier then
#                     its long tier, beside its fuzz tier then its
#                     packages tier (--cpu-lane), at nice 15 and
#                     in the idle I/O class: it never delays a daemon nor a
#                     root's build
# A root's real-daemon tier starts once the root lane has built it.  Each
# Slurm release has its own ports (GP_PORT_OFFSET plus 0, 2000, 4000).
roots="trixie:Debian_13_root sid:Debian_sid_root"

# copy_sources DIR: the sources of this tree into DIR: the tracked files
# of a git checkout as they are in the work tree; outside one (an unpacked
# tarball), the tree as it is when it is not configured, else its dist
# tarball
copy_sources() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -z | tar --null -T - -cf - 2>/dev/null | tar -xf - -C "$1"
	elif [ ! -f Makefile ]; then
		tar -cf - . | tar -xf - -C "$1"
	else
		make dist >/dev/null && tar -xzf gpuplace-*.tar.gz -C "$1" --strip-components=1
	fi
}

# in_root SUITE OFFSET TIER [ENV]: build inside the root of SUITE (its
# sources in $work/SUITE/src) and run TIER there, on the ports of OFFSET,
# with the environment assignments ENV
in_root() {
	GP_PORT_OFFSET=$2 sh scripts/debian-root.sh "$1" run "$work/$1" \
		sh -c "cd /gpbuild/src && TMPDIR=/gpbuild/tmp ${GP_SLURM_JOBS:+GP_SLURM_JOBS=$GP_SLURM_JOBS }${4:+$4 }sh scripts/test.sh --suite $3"
}

# root_build SUITE NAME OFFSET: prepare the root, copy the sources and
# build them there with dpkg-buildpackage (the packages tier installs what
# it built; one build per release instead of two); $work/SUITE.ready (or
# .failed) says so.  The root's real-daemon tier starts then: its quick
# tests (root_unit) and packages (root_packages) run beside it
root_build() {
	suite=$1 name=$2 d=$work/$1
	mkdir -p "$d/src" "$d/tmp" "$d/shared"
	echo "$(date +%s)" >"$d.t0"
	if ! sh scripts/debian-root.sh "$suite" prepare 2>"$d/prepare.err"; then
		echo "place $name: FAILED, not tested: $(tail -n 1 "$d/prepare.err" | sed 's/^debian-root: //')" >"$d.res"
		: >"$d.failed"
		return 0
	fi
	# the dist tarball, once the host's tree has made it (or the host's
	# build has ended without it: then the sources as the host took them)
	while ! ls "$work"/gpuplace-*.tar.gz >/dev/null 2>&1 && [ ! -f "$work/dist.done" ]; do sleep 2; done
	if ls "$work"/gpuplace-*.tar.gz >/dev/null 2>&1; then
		tar -xzf "$work"/gpuplace-*.tar.gz -C "$d/src" --strip-components=1
	else
		copy_sources "$d/src"
	fi
	[ -d ../shared/data ] && cp -rL ../shared/data "$d/shared/data"
	# (--suite without a tier: the build alone)
	in_root "$suite" "$3" "" GP_SUITE_DEB=1 >"$d/build.log" 2>&1 || true
	if grep -q '^suite slurm [0-9]' "$d/build.log"; then
		: >"$d.ready"
	else
		echo "place $name: FAILED, not tested: $(grep '^suite slurm ' "$d/build.log" | tail -n 1 | sed 's/^suite slurm //')${name:+ (log: $d/build.log)}" >"$d.res"
		: >"$d.failed"
	fi
	echo "$(($(date +%s) - $(cat "$d.t0")))" >"$d.tb"
}

# root_unit SUITE NAME OFFSET: the Slurm-dependent quick tests
# (check-slurm-unit) inside a built root, beside its real-daemon tier (they
# build their own programs only; `all` is built); $work/SUITE.unit says
# they have ended
root_unit() {
	suite=$1 d=$work/$1
	[ ! -f "$d.ready" ] || in_root "$suite" "$3" slurm-unit >"$d/check.log" 2>&1 || true
	: >"$d.unit"
}

# root_packages SUITE NAME OFFSET: the packages tier inside a built root,
# on the packages its build made (root_build), beside its real-daemon tier;
# $work/SUITE.pkg.res has its tier line
root_packages() {
	suite=$1 name=$2 d=$work/$1
	[ -f "$d.ready" ] || return 0
	s=$(date +%s)
	GP_PORT_OFFSET=$3 sh scripts/debian-root.sh "$suite" run "$d" \
		sh -c 'cd /gpbuild/src && TMPDIR=/gpbuild/tmp GP_PKG_DEBS=/gpbuild bash tests/cli/packages.sh' \
		>"$d/packages.log" 2>&1 || true
	echo "tier packages: $(tap_counts "$d/packages.log") $(($(date +%s) - s)) $name" >"$work/$suite.pkg.res"
}

# root_slurm SUITE NAME OFFSET: once built, the real-daemon tier inside
root_slurm() {
	suite=$1 name=$2 d=$work/$1
	# (until the root lane says so, or has ended without a word: then the
	# root was not built)
	while [ ! -f "$d.ready" ] && [ ! -f "$d.failed" ]; do
		kill -0 "$rlane" 2>/dev/null || break
		sleep 2
	done
	if [ ! -f "$d.ready" ] && [ ! -f "$d.failed" ]; then
		echo "place $name: FAILED, not tested: the root lane ended before building it" >"$d.res"
		return 0
	fi
	[ -f "$d.ready" ] || return 0
	s=$(date +%s)
	in_root "$suite" "$3" slurm >"$d/slurm.log" 2>&1 || true
	# (its quick tests, which the root lane runs beside it)
	while [ ! -f "$d.unit" ] && kill -0 "$rlane" 2>/dev/null; do sleep 2; done
	{
		cat "$d/check.log" "$d/slurm.log" 2>/dev/null |
			sed -n "s/^tier \\(.*\\)/tier \\1 $name/p; s/^slowest \\(.*\\)/slowest \\1 ($name)/p"
		grep -q '^tier slurm-unit: ' "$d/check.log" 2>/dev/null ||
			echo "place $name: FAILED: its quick tests (check-slurm-unit) gave no result (log: $d/check.log)"
		res=$(grep '^suite slurm ' "$d/slurm.log" | tail -n 1)
		ver=${res#suite slurm }
		case "$res" in
		*": "[0-9]*" "[0-9]*" "[0-9]*) echo "release ${ver%%:*}: $name $(($(cat "$d.tb") + $(date +%s) - s))" ;;
		*) echo "place $name: FAILED, not tested: ${res:-the run inside the root ended without a result (log: $d/slurm.log)}" ;;
		esac
	} >"$d.res"
}

skipped() {
	case " ${GP_SKIP_ROOTS:-} " in *" $1 "*) return 0 ;; esac
	return 1
}

# --root-lane WORK: the root lane (run niced by the main invocation): a
# chain per root, side by side (a build does not keep both cores busy,
# most of a first run's preparation waits on the network): prepare and
# build, then its quick tests and its packages, beside its real-daemon
# tier (root_slurm)
if [ "${1:-}" = --root-lane ]; then
	work=$2 off=${GP_PORT_OFFSET:-0}
	i=0
	for spec in $roots; do
		i=$((i + 1))
		suite=${spec%%:*} name=$(echo "${spec#*:}" | tr _ ' ')
		if skipped "$suite"; then
			echo "place $name: not run (GP_SKIP_ROOTS)" >"$work/$suite.res"
			: >"$work/$suite.failed"
			continue
		fi
		p=$((off + 2000 * i))
		{
			root_build "$suite" "$name" $p
			root_unit "$suite" "$name" $p
			root_packages "$suite" "$name" $p
		} &
	done
	wait
	exit 0
fi
# --cpu-lane WORK: the CPU lane (run niced by the main invocation, in the
# host's tree)
# Two chains side by side, as neither builds what the other does: the
# quick tier (it builds the test programs) then the long tier (it runs
# programs the quick tier built); the fuzz tier (its own clang objects in
# fuzz-work/, no test program) then the packages tier (the packages the
# host's build made)
if [ "${1:-}" = --cpu-lane ]; then
	work=$2
	for tier in check long; do
		run_tier "$tier" >"$work/host-$tier.out" 2>&1 || true
	done &
	quick=$!
	for tier in fuzz packages; do
		run_tier "$tier" >"$work/host-$tier.out" 2>&1 || true
	done
	wait "$quick" || true
	exit 0
fi

busy=
[ "${1:-}" = --busy-core ] && GP_BUSY_CORE=1
sh scripts/deps.sh
# the shared data beside the tree, by its absolute path: the tests run in a
# copy of the sources, where ../shared/data is not beside them
[ -d ../shared/data ] && GP_SHARED_DATA=${GP_SHARED_DATA:-$(cd ../shared/data && pwd)} && export GP_SHARED_DATA
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-test.XXXXXX")
# mktemp makes it 0700; the tests in a root run jobs as another user
# (daemon), whose batch scripts live under it (/gpbuild inside the root)
chmod 755 "$work"
lane= rlane= daemons=
cleanup() {
	[ -z "$busy" ] || kill "$busy" 2>/dev/null || true
	[ -z "$lane" ] || kill "$lane" 2>/dev/null || true
	[ -z "$rlane" ] || kill "$rlane" 2>/dev/null || true
	[ -z "$daemons" ] || kill $daemons 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ "${GP_BUSY_CORE:-0}" = 1 ]; then
	sh -c 'while :; do :; done' &
	busy=$!
	echo "one core kept busy by PID $busy for the whole run"
fi
t0=$(date +%s)
off=${GP_PORT_OFFSET:-0}
# the daemons' ports (16817 .. 18712 plus the offset, plus 2000 per root:
# tests/slurm/harness.sh) should lie below the kernel's ephemeral ports,
# which outgoing connections take at random: a daemon whose port one holds
# cannot bind it and its test finds no cluster
eph=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
[ $((18712 + off + 4000)) -lt "${eph:-32768}" ] ||
	echo "warning: GP_PORT_OFFSET=$off puts the test daemons' ports (up to $((18712 + off + 4000))) among the ephemeral ports (from $eph): a daemon may fail to bind"
# /dev/null must be the null device, on the host and in the roots (which
# bind the host's /dev): once, something replaced it with a regular file
# during a run, and the packages built then carried what had been written
# to it (dpkg: "triggers ... contains unknown directive '1+0'", dd's
# output from a configure check).  Checked before and after the run.
if [ ! -c /dev/null ]; then
	echo "place host: FAILED, not tested: /dev/null is not a character device ($(ls -l /dev/null 2>&1)); restore it: rm /dev/null; mknod -m 666 /dev/null c 1 3"
	exit 1
fi

# ---- the root lane, the host build, then the other two lanes ----------------
# (the root lane prepares the roots, then waits for the tarball)
nice -n 10 ionice -c 3 sh scripts/test.sh --root-lane "$work" &
rlane=$!
host_res=$work/host.res
: >"$host_res"
hs=$(date +%s)
hostd=$work/host
mkdir -p "$hostd/src"
copy_sources "$hostd/src"
# the tarball the roots build from: `make dist` in the host's tree once it
# is configured, before it builds (GP_DEB_DIST_DIR, debian/rules), so that
# the roots' builds start beside the host's; $work/dist.done once the
# host's build has ended (then, without a tarball, the roots take the
# sources as the host did)
if (cd "$hostd/src" && GP_DEB_DIST_DIR=$work sh scripts/build.sh --deb); then
	ls "$work"/gpuplace-*.tar.gz >/dev/null 2>&1 ||
		echo "place host: FAILED: make dist ($(grep -B 2 'debian/rules: make dist failed' "$hostd/deb-build.log" | head -n 1))" >>"$host_res"
	: >"$work/dist.done"
	host_ver=$(cd "$hostd/src" && built_for)
	# the CPU lane, in the background, as its own niced invocation
	nice -n 15 ionice -c 3 sh "$hostd/src/scripts/test.sh" --cpu-lane "$work" &
	lane=$!
	# the daemon lane: each release's real-daemon tier in the background,
	# a root's once the root lane has built it
	(cd "$hostd/src" && run_tier slurm) >"$work/host-slurm.out" 2>&1 &
	daemons=$!
	i=0
	for spec in $roots; do
		i=$((i + 1))
		suite=${spec%%:*} name=$(echo "${spec#*:}" | tr _ ' ')
		skipped "$suite" && continue
		root_slurm "$suite" "$name" $((off + 2000 * i)) &
		daemons="$daemons $!"
	done
	for p in $daemons; do wait "$p" || true; done
	daemons=
	wait "$lane" || true
	lane=
	wait "$rlane" || true
	rlane=
	for tier in check slurm fuzz long packages; do
		[ -f "$work/host-$tier.out" ] || continue
		grep -v '^tier \|^slowest ' "$work/host-$tier.out" 2>/dev/null || true
		sed -n 's/^\(tier\|slowest\) \(.*\)/\1 \2 host/p' "$work/host-$tier.out" >>"$host_res" 2>/dev/null
	done
	echo "release $host_ver: host $(($(date +%s) - hs))" >>"$host_res"
else
	: >"$work/dist.done"
	tail -n 30 "$hostd/deb-build.log" 2>/dev/null
	echo "place host: FAILED, not tested: the build failed (dpkg-buildpackage, see above)" >>"$host_res"
	wait "$rlane" || true
	rlane=
fi
for f in "$work"/*/check.log "$work"/*/slurm.log "$work"/*/packages.log; do
	# from the first failed test's log on (its tail, as show_failures
	# printed it there), at most 120 lines: a root's check.log holds no
	# "not ok" of a test that died (ERROR), only its log's tail
	[ -f "$f" ] && grep -q -E '^(not ok|FAIL|ERROR|XPASS)' "$f" &&
		{ echo "==== $f"; awk '/^==== / { p = 1 } p || /^not ok/' "$f" | tail -n 120; }
done

# ---- summary -------------------------------------------------------------
[ -c /dev/null ] ||
	echo "place host: FAILED: /dev/null was replaced during the run ($(ls -l --time-style=full-iso /dev/null 2>&1)); every test that read or copied it is suspect" >>"$host_res"
cat "$host_res" "$work"/trixie.res "$work"/sid.res "$work"/*.pkg.res 2>/dev/null >"$work/all.res"
status=0
awk -v total=$(($(date +%s) - t0)) '
	/^tier / {
		name = $2; sub(/:$/, "", name); place = $0; sub(/^tier [a-z-]*: [0-9]+ [0-9]+ [0-9]+ [0-9]+ /, "", place)
		if (place == "host") place = "host"
		printf "tier %-10s %-16s %5d passed, %d failed, %d skipped (%d s)\n", name, place, $3, $4, $5, $6
		P[name] += $3; F[name] += $4; S[name] += $5; T[name] += $6
		rp[place] += $3; rf[place] += $4; rs[place] += $5
		p += $3; f += $4; s += $5
		if (!(name in seen)) { seen[name] = 1; order[++no] = name }
	}
	/^slowest / { sl[++ns] = $0 }
	/^release / { rel[++nr] = $0 }
	/^place / { sub(/^place /, ""); print; f++ }
	END {
		for (i = 1; i <= ns; i++) print sl[i]
		for (i = 1; i <= nr; i++) {
			split(rel[i], a, " "); v = a[2]; sub(/:$/, "", v); where = rel[i]; sub(/^release [^ ]+ /, "", where)
			secs = where; sub(/.* /, "", secs); sub(/ [0-9]+$/, "", where)
			pl = (where == "host") ? "host" : where
			pp = rp[pl]; ff = rf[pl]; ss = rs[pl]
			printf "slurm %s: %d passed, %d failed, %d skipped (%s, %d s)\n", v, pp, ff, ss, pl, secs
		}
		for (i = 1; i <= no; i++) { n = order[i]
			printf "tier %s (all places): %d passed, %d failed, %d skipped (%d s)\n", n, P[n], F[n], S[n], T[n] }
		printf "whole run: %d s\n", total
		printf "%d passed, %d failed, %d skipped\n", p, f, s
		exit (f > 0)
	}' "$work/all.res" || status=1
exit $status
