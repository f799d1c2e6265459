#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# README command (2): install what is missing, then build and run the test
# tiers (Makefile.am) where each matters:
#   host (Debian 12, Slurm 22.05)  check, check-slurm, check-fuzz, check-long
#   make distcheck                 check (the quick tier) from the tarball
#   a Debian 13 root (Slurm 24.11) check, check-slurm   } scripts/debian-root.sh,
#   a Debian sid root (the newest  check, check-slurm   } each from a clean
#     Slurm Debian ships, 26.05)                         } copy of the sources
# The places run one after another (side by side they overloaded the
# 2-core machine: real-daemon tests timed out), each
# Slurm release on its own ports (GP_PORT_OFFSET plus 0, 2000, 4000).
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
#       build here and run the tiers (check, slurm, fuzz, long) one after
#       the other: what runs inside a root.  Prints `tier TIER: P F S T`
#       per tier (T seconds) and `suite slurm X.Y.Z: P F S` last
# Environment: GP_SKIP_ROOTS="trixie sid" leaves those releases out (and
# says so), GP_SKIP_DISTCHECK=1 leaves distcheck out, GP_PORT_OFFSET.
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

# the Slurm release this tree was configured against, "22.05.8"
built_for() {
	v=$(awk '/define GP_SLURM_VERSION_BUILT/ { print $3 }' config.h)
	printf '%d.%02d.%d\n' $((v >> 16)) $(((v >> 8) & 255)) $((v & 255))
}

show_failures() {
	find tests -name '*.log' -exec grep -l -E '^(not ok|FAIL|ERROR)' {} + 2>/dev/null |
		grep -v -- '-suite.log$' |
		while read -r f; do echo "==== $f"; tail -n 40 "$f"; done
}

# the slowest tests of the last tier run, from each log's creation (the
# test driver opens it first) to its .trs (written last)
slowest() {
	for t in $(find tests -name '*.trs' -newer "$1"); do
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
	fuzz) target=check-fuzz log=tests/fuzz-suite.log ;;
	long) target=check-long log=tests/long-suite.log ;;
	*) echo "unknown tier $1" >&2; return 1 ;;
	esac
	rm -f "$log"
	touch .tier-start
	s=$(date +%s)
	rc=0
	# after make check, check-slurm leaves out the smoke test just run; the
	# real-daemon tests mostly wait on the daemons: two at a time.  The
	# make output goes to .tier-NAME.out; failures are printed below
	case $1 in
	slurm) make -j2 "$target" GP_CHECK_SLURM='$(SLURM_TESTS)' >".tier-$1.out" 2>&1 || rc=1 ;;
	*) make -j"$(nproc)" "$target" >".tier-$1.out" 2>&1 || rc=1 ;;
	esac
	[ $rc = 0 ] || grep -E -v '^(PASS|SKIP|XFAIL): |^  (CC|CCLD|GEN) ' ".tier-$1.out" | tail -n 40
	c=$(suite_counts "$log")
	[ -n "$c" ] || c="0 1 0"
	[ $rc = 0 ] || show_failures
	echo "slowest $1: $(slowest .tier-start)"
	echo "tier $1: $c $(($(date +%s) - s))"
}

if [ "${1:-}" = --suite ]; then
	shift
	sum_p=0 sum_f=0 sum_s=0
	if ! sh scripts/build.sh; then
		echo "suite slurm $(built_for 2>/dev/null || echo unknown): build failed"
		exit 1
	fi
	for tier in "$@"; do
		run_tier "$tier" | tee .tier-out
		set -- $(sed -n 's/^tier [a-z]*: //p' .tier-out)
		sum_p=$((sum_p + $1)) sum_f=$((sum_f + $2)) sum_s=$((sum_s + $3))
	done
	rm -f .tier-out .tier-start .tier-*.out
	echo "suite slurm $(built_for): $sum_p $sum_f $sum_s"
	[ "$sum_f" = 0 ]
	exit
fi

busy=
[ "${1:-}" = --busy-core ] && GP_BUSY_CORE=1
sh scripts/deps.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-test.XXXXXX")
# mktemp makes it 0700; the tests in a root run jobs as another user
# (daemon), whose batch scripts live under it (/gpbuild inside the root)
chmod 755 "$work"
cleanup() {
	[ -z "$busy" ] || kill "$busy" 2>/dev/null || true
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

# ---- the roots: one after another, each from a clean copy of the sources --
# root SUITE NAME OFFSET: prepare the root, run check and slurm inside; the
# result lines go to $work/SUITE.res
root() {
	suite=$1 name=$2 d=$work/$1
	mkdir -p "$d/src" "$d/tmp" "$d/shared"
	s=$(date +%s)
	if ! sh scripts/debian-root.sh "$suite" prepare 2>"$d/prepare.err"; then
		echo "place $name: FAILED, not tested: $(tail -n 1 "$d/prepare.err" | sed 's/^debian-root: //')" >"$d.res"
		return 0
	fi
	# the tracked files of a git checkout (as they are in the work tree),
	# else the dist tarball
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -z | tar --null -T - -cf - 2>/dev/null | tar -xf - -C "$d/src"
	else
		tar -xzf "$work"/gpuplace-*.tar.gz -C "$d/src" --strip-components=1
	fi
	[ -d ../shared/data ] && cp -rL ../shared/data "$d/shared/data"
	GP_PORT_OFFSET=$3 sh scripts/debian-root.sh "$suite" run "$d" \
		sh -c 'cd /gpbuild/src && TMPDIR=/gpbuild/tmp sh scripts/test.sh --suite check slurm' \
		>"$d/suite.log" 2>&1 || true
	{
		sed -n "s/^tier \\(.*\\)/tier \\1 $name/p; s/^slowest \\(.*\\)/slowest \\1 ($name)/p" "$d/suite.log"
		res=$(grep '^suite slurm ' "$d/suite.log" | tail -n 1)
		ver=${res#suite slurm }
		case "$res" in
		*": "[0-9]*" "[0-9]*" "[0-9]*) echo "release ${ver%%:*}: $name $(($(date +%s) - s))" ;;
		*) echo "place $name: FAILED, not tested: ${res:-the run inside the root ended without a result (log: $d/suite.log)}" ;;
		esac
	} >"$d.res"
}

# outside a git checkout the roots get the dist tarball
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	sh scripts/build.sh && make dist >/dev/null && cp gpuplace-*.tar.gz "$work/"
fi

# ---- the host: every tier, then distcheck of the quick tier ----------------
host_res=$work/host.res
: >"$host_res"
s=$(date +%s)
# distcheck: the quick tier from the tarball, after the host's tiers
distcheck() {
	s=$(date +%s)
	if make -j"$(nproc)" distcheck >"$work/distcheck.log" 2>&1; then
		grep -a '^# \(TOTAL\|PASS\|SKIP\|XFAIL\|FAIL\|XPASS\|ERROR\):' "$work/distcheck.log" | tail -n 7 >"$work/dc.sum"
		dc=$(suite_counts "$work/dc.sum")
		echo "tier check: ${dc:-0 1 0} $(($(date +%s) - s)) distcheck" >"$work/distcheck.res"
	else
		echo "place distcheck: FAILED (its log: ${GP_KEEP_LOGS:-the tail above})" >"$work/distcheck.res"
		tail -n 60 "$work/distcheck.log"
	fi
}
if sh scripts/build.sh; then
	ver=$(built_for)
	for tier in check slurm fuzz long; do
		run_tier "$tier" >"$work/host-$tier.out" 2>&1 || true
		grep -v '^tier \|^slowest ' "$work/host-$tier.out" || true
		sed -n 's/^\(tier\|slowest\) \(.*\)/\1 \2 host/p' "$work/host-$tier.out" >>"$host_res"
	done
	echo "release $ver: host $(($(date +%s) - s))" >>"$host_res"
	if [ "${GP_SKIP_DISTCHECK:-0}" != 1 ]; then
		distcheck || true
		cat "$work/distcheck.res" >>"$host_res"
	fi
else
	echo "place host: FAILED, not tested: the build failed (see above)" >>"$host_res"
fi

roots=""
i=0
for spec in trixie:"Debian 13 root" sid:"Debian sid root"; do
	i=$((i + 1))
	suite=${spec%%:*}
	case " ${GP_SKIP_ROOTS:-} " in
	*" $suite "*) echo "place ${spec#*:}: not run (GP_SKIP_ROOTS)" >"$work/$suite.res"; continue ;;
	esac
	root "$suite" "${spec#*:}" $((off + 2000 * i)) || true
done
for f in "$work"/*/suite.log; do
	[ -f "$f" ] && grep -q -E '^(not ok|FAIL|ERROR)' "$f" && { echo "==== $f"; grep -E -A20 '^(not ok|==== )' "$f" | tail -n 80; }
done

# ---- summary -------------------------------------------------------------
cat "$host_res" "$work"/trixie.res "$work"/sid.res 2>/dev/null >"$work/all.res"
status=0
awk -v total=$(($(date +%s) - t0)) '
	/^tier / {
		name = $2; sub(/:$/, "", name); place = $0; sub(/^tier [a-z]*: [0-9]+ [0-9]+ [0-9]+ [0-9]+ /, "", place)
		if (place == "host") place = "host"
		printf "tier %-6s %-16s %5d passed, %d failed, %d skipped (%d s)\n", name, place, $3, $4, $5, $6
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
			q = pl; if (pl == "host") { pp = rp["host"] + rp["distcheck"]; ff = rf["host"] + rf["distcheck"]; ss = rs["host"] + rs["distcheck"] }
			else { pp = rp[pl]; ff = rf[pl]; ss = rs[pl] }
			printf "slurm %s: %d passed, %d failed, %d skipped (%s, %d s)\n", v, pp, ff, ss, pl, secs
		}
		for (i = 1; i <= no; i++) { n = order[i]
			printf "tier %s (all places): %d passed, %d failed, %d skipped (%d s)\n", n, P[n], F[n], S[n], T[n] }
		printf "whole run: %d s\n", total
		printf "%d passed, %d failed, %d skipped\n", p, f, s
		exit (f > 0)
	}' "$work/all.res" || status=1
exit $status
