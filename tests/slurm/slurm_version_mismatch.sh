#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm_version_mismatch.sh - what a site sees when job_submit_gpuplace.so
# was built for another Slurm release than the slurmctld that loads it.
# slurmctld compares the plugin's plugin_version with its own full version
# (major, minor and micro) before it calls anything in the plugin.  A copy
# of the built plugin whose plugin_version is one micro release off (the
# 4 bytes of the symbol rewritten in the copy) is given to a real slurmctld
# (tests/slurm/harness.sh): slurmctld must refuse it, with the line the
# README and gpuplace(1) quote ("Incompatible Slurm plugin .../job_submit_
# gpuplace.so version (X.Y.Z)"), and stop with a fatal error; the unchanged
# plugin must load and log the release it was built for.
# Prints TAP; skips when not root or Slurm or readelf is missing.
set -u
top=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${GP_TOP_BUILDDIR:-$top}
plugdir=$build/plugin/.libs
echo "1..4"
skip_all() { for i in 1 2 3 4; do echo "ok $i # SKIP $1"; done; exit 0; }
[ -z "${GP_SANITIZERS:-}" ] || skip_all "built with sanitizers: slurmctld cannot load an ASan plugin (tests/unit/test_plugin runs it instrumented)"
[ "$(id -u)" = 0 ] || skip_all "integration tests need root"
for b in slurmctld slurmd munged scontrol readelf; do
	command -v $b >/dev/null 2>&1 || skip_all "$b is not installed"
done
[ -f "$plugdir/job_submit_gpuplace.so" ] || skip_all "plugin not built in $plugdir"

export D=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-mismatch.XXXXXX")
export CTLPORT=${CTLPORT:-$((16937 + ${GP_PORT_OFFSET:-0}))} BASEPORT=${BASEPORT:-$((17300 + ${GP_PORT_OFFSET:-0}))}
export N=4 JOB_SUBMIT=gpuplace
export SLURM_CONF=$D/etc/slurm.conf
H="bash $top/tests/slurm/harness.sh"
cleanup() { $H down >/dev/null 2>&1; rm -rf "$D"; }
trap cleanup EXIT

so=$plugdir/job_submit_gpuplace.so
# file offset of plugin_version: its address, less the address of the
# loaded segment that holds it, plus that segment's file offset
addr=$(readelf -sW "$so" | awk '$8 == "plugin_version" && $4 == "OBJECT" { print $2; exit }')
off=""
if [ -n "$addr" ]; then
	a=$((16#$addr))
	while read -r type o v _ fsz _; do
		[ "$type" = LOAD ] || continue
		if [ "$a" -ge $((v)) ] && [ "$a" -lt $((v + fsz)) ]; then off=$((a - v + o)); break; fi
	done < <(readelf -lW "$so")
fi
built=""
[ -n "$off" ] && built=$(od -An -tu4 -j "$off" -N4 "$so" | tr -d ' ')
if [ -z "$built" ] || [ "$built" = 0 ]; then
	echo "not ok 1 - plugin_version not found in $so"
	for i in 2 3 4; do echo "not ok $i - no plugin_version"; done
	exit 0
fi
ver() { printf '%d.%02d.%d' $(($1 >> 16)) $((($1 >> 8) & 255)) $(($1 & 255)); }
micro=$((built & 255))
wrong=$((micro > 0 ? built - 1 : built + 1))
mkdir -p "$D/wrong"
cp "$so" "$D/wrong/job_submit_gpuplace.so"
printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((wrong & 255)) $(((wrong >> 8) & 255)) \
	$(((wrong >> 16) & 255)) $(((wrong >> 24) & 255)))" |
	dd of="$D/wrong/job_submit_gpuplace.so" bs=1 seek="$off" conv=notrunc status=none
now=$(od -An -tu4 -j "$off" -N4 "$D/wrong/job_submit_gpuplace.so" | tr -d ' ')
echo "# plugin built for Slurm $(ver "$built"); the copy says $(ver "$now")"

# 1-2. the copy: refused by name and version, slurmctld stops
if PLUGIN_DIR=$D/wrong $H up 2>"$D/up.log"; then
	echo "not ok 1 - slurmctld started with a plugin built for Slurm $(ver "$now")"
	echo "not ok 2 - slurmctld did not stop"
else
	line=$(grep -o "Incompatible Slurm plugin [^ ]*job_submit_gpuplace.so version ([0-9.]*)" "$D/log/slurmctld.log" | head -n 1)
	if [ "$line" = "Incompatible Slurm plugin $D/wrong/job_submit_gpuplace.so version ($(ver "$now"))" ]; then
		echo "ok 1 - slurmctld $(slurmctld -V | awk '{print $2}') refuses the plugin built for another release: $line"
	else
		echo "not ok 1 - no 'Incompatible Slurm plugin' line naming the plugin and $(ver "$now")"
		grep -E 'gpuplace|fatal|error' "$D/log/slurmctld.log" 2>/dev/null | head -n 5 | sed 's/^/# /'
	fi
	fatal=$(grep -o 'fatal: .*' "$D/log/slurmctld.log" | head -n 1)
	pid=$(cat "$D/pids/slurmctld.pid" 2>/dev/null || true)
	alive=no
	[ -n "$pid" ] && [ -e "/proc/$pid" ] && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ] && alive=yes
	if [ -n "$fatal" ] && [ $alive = no ]; then
		echo "ok 2 - and stops: $fatal"
	else
		echo "not ok 2 - slurmctld did not stop with a fatal error (running: $alive)"
	fi
fi
$H down >/dev/null 2>&1
rm -rf "$D/state" "$D/log"

# 3-4. the plugin as built: loaded, and its log line names the release
if PLUGIN_DIR=$plugdir $H up 2>"$D/up.log"; then
	echo "ok 3 - slurmctld loads the plugin built for Slurm $(ver "$built")"
	line=$(grep -o 'gpuplace: job_submit/gpuplace built for Slurm [0-9.]*' "$D/log/slurmctld.log" | head -n 1)
	if [ "$line" = "gpuplace: job_submit/gpuplace built for Slurm $(ver "$built")" ]; then
		echo "ok 4 - its first log line names the release: $line"
	else
		echo "not ok 4 - no 'built for Slurm $(ver "$built")' line"
		grep gpuplace "$D/log/slurmctld.log" | head -n 3 | sed 's/^/# /'
	fi
else
	echo "not ok 3 - slurmctld did not start with the plugin as built"
	sed 's/^/# /' "$D/up.log"
	echo "not ok 4 - no cluster"
fi
