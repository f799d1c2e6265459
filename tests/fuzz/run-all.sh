#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run-all.sh - build every fuzz target of tests/fuzz/targets with clang's
# libFuzzer, AddressSanitizer (with LeakSanitizer) and UBSan, run them, and
# print executions and crashes per target.
#
#   tests/fuzz/run-all.sh [-b BUILDDIR] [-w WORKDIR] [-t SECONDS | -r RUNS]
#                         [-j PARALLEL] [-s SHARDS] [-n] [TARGET...]
#
#   -b  the configured build tree (`make fuzz-build` there); default .
#   -w  where binaries, corpora, crash inputs and logs go;
#       default BUILDDIR/fuzz-work
#   -t  run each target this many seconds (libFuzzer -max_total_time)
#   -r  run each target this many inputs (libFuzzer -runs); default 10000
#   -T  with -r: stop a target after this many seconds even if short of
#       its runs (the printed executions say how far it got)
#   -j  targets run at once (a pool: the next starts when one ends); default 1
#   -s  processes per target, each with its own seed and its share of -r,
#       all growing the target's one corpus; executions are their sum
#       (for the slow probe_xml on an otherwise idle machine); default 1
#   -n  build only
#
# Exit status 0 when every target ran without a crash, 1 on a crash or a
# build failure, 77 (automake's SKIP) when clang cannot build a libFuzzer
# program.  The corpus of each target persists in WORKDIR/corpus/NAME, so a
# second run continues where the first stopped; seeds come from tests/data
# and the shared data directory (see tests/fuzz/targets).
# Environment: CLANG (default clang), GP_SHARED_DATA.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
build=.
work=
secs=
runs=10000
cap=
par=1
shards=1
build_only=0
while getopts b:w:t:r:T:j:s:n opt; do
	case $opt in
	b) build=$OPTARG ;;
	w) work=$OPTARG ;;
	t) secs=$OPTARG; runs= ;;
	r) runs=$OPTARG; secs= ;;
	T) cap=$OPTARG ;;
	j) par=$OPTARG ;;
	s) shards=$OPTARG ;;
	n) build_only=1 ;;
	*) sed -n '6,21p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
build=$(cd "$build" && pwd) || exit 1
[ -n "$work" ] || work=$build/fuzz-work
mkdir -p "$work/obj" "$work/corpus" "$work/crashes" "$work/log" || exit 1
work=$(cd "$work" && pwd)
shared=${GP_SHARED_DATA:-$src/../shared/data}
cc=${CLANG:-clang}

# ---- can this clang build a libFuzzer program? ----------------------------
# (not obj/probe: with the default work directory, `make fuzz-build` puts
# the objects of probe/ in obj/probe/)
probe_c=$work/obj/clang-check.c
printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$probe_c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$probe_c" -o "$work/obj/clang-check" >/dev/null 2>&1; then
	echo "SKIP: $cc cannot build with -fsanitize=fuzzer,address,undefined (Debian: apt-get install clang libclang-rt-14-dev)"
	exit 77
fi

# ---- build ----------------------------------------------------------------
# the build tree's `make fuzz-build` (tests/fuzz/local.mk): every library
# source compiled once with clang, rebuilt only when it changed, in parallel;
# a make that runs this script (make check-fuzz) has built them already
targets=$(grep -v '^#' "$src/tests/fuzz/targets" | awk 'NF >= 1 { print $1 }')
[ $# -gt 0 ] && targets="$*"
seeds_of() { grep -v '^#' "$src/tests/fuzz/targets" | awk -v n="$1" '$1 == n { for (i = 2; i <= NF; i++) print $i }'; }
for t in $targets; do
	grep -v '^#' "$src/tests/fuzz/targets" | awk -v n="$t" '$1 == n { f = 1 } END { exit !f }' ||
		{ echo "$t: unknown target"; exit 1; }
done
bins=$(for t in $targets; do printf 'fuzz-work/bin/fuzz_%s ' "$t"; done)
# shellcheck disable=SC2086
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$build" -j"$par" CLANG="$cc" $bins >"$work/log/build.log" 2>&1 ||
	{ tail -n 30 "$work/log/build.log"; echo "building the fuzz targets with $cc failed"; exit 1; }

for t in $targets; do
	# seed the corpus once
	c=$work/corpus/$t
	if [ ! -d "$c" ]; then
		mkdir -p "$c"
		for g in $(seeds_of "$t"); do
			case $g in @*) g=$shared/${g#@} ;; *) g=$src/$g ;; esac
			for f in $g; do
				[ -f "$f" ] && [ "$(wc -c <"$f")" -le 1048576 ] &&
					cp "$f" "$c/seed_$(echo "${f#"$src"/}" | tr '/' '_')"
			done
		done
	fi
done
[ $build_only -eq 1 ] && { echo "built: $(echo $targets)"; exit 0; }

# ---- run ------------------------------------------------------------------
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export LSAN_OPTIONS="suppressions=$src/tests/data/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
if [ -n "$secs" ]; then limit="-max_total_time=$secs"; else limit="-runs=$runs${cap:+ -max_total_time=$cap}"; fi
export GP_FUZZ_WORK="$work" GP_FUZZ_BIN="$build/fuzz-work/bin" GP_FUZZ_LIMIT="$limit" GP_FUZZ_SHARDS="$shards"
# a pool of $par runners: xargs starts the next target when one ends
printf '%s\n' $targets | xargs -P "$par" -n 1 sh "$src/tests/fuzz/run-one.sh"

echo "libFuzzer ($("$cc" --version | head -1)), -fsanitize=fuzzer,address,undefined, LSan on; ${secs:+$secs s}${runs:+$runs runs}${cap:+ (at most $cap s)} per target$([ "$shards" -gt 1 ] && echo ", $shards processes each")"
bad=0
for t in $targets; do
	cat "$work/log/$t.summary"
	grep -q ' crashes 0 ' "$work/log/$t.summary" || {
		bad=1
		echo "  $t: see $work/log/$t.log and $work/crashes/$t/"
	}
done
exit $bad
