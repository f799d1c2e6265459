#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# job_submit/gpuplace carries only what slurmctld runs: none of the symbols
# of the offline layers (simulator, traces, synthetic clusters, hwloc probe:
# libgp_sim and libgp_probe) is defined in it, no gp__sim_/gp__trace_/
# gp__probe_/gp__synth_ name at all, and it does not link libhwloc; and it
# exports Slurm's seven names only (its files share many non-static
# helpers: none may reach slurmctld's symbol space).
b=${GP_TOP_BUILDDIR:-.}
so=$b/plugin/.libs/job_submit_gpuplace.so
echo "1..6"
if [ ! -f "$so" ]; then
	echo "Bail out! $so not built"
	exit 1
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok $1 - $2"; }
notok() { echo "not ok $1 - $2"; fail=1; }

# every symbol the plugin defines, local ones included
nm --defined-only "$so" | awk 'NF == 3 { print $3 }' | sort -u > "$tmp/plugin"
# the offline layers' global symbols
nm -g --defined-only "$b/.libs/libgp_sim.a" "$b/.libs/libgp_probe.a" 2>/dev/null |
	awk 'NF == 3 && $2 ~ /[TDBR]/ { print $3 }' | sort -u > "$tmp/offline"
if [ "$(wc -l < "$tmp/offline")" -lt 20 ] || ! grep -qx 'gp__sim_run' "$tmp/offline" ||
   ! grep -qx 'gp__trace_destroy' "$tmp/offline" || ! grep -qx 'gp__synth_build' "$tmp/offline"; then
	notok 1 "libgp_sim/libgp_probe symbols listed (got $(wc -l < "$tmp/offline"))"
else
	ok 1 "libgp_sim/libgp_probe define $(wc -l < "$tmp/offline") symbols"
fi
both=$(comm -12 "$tmp/plugin" "$tmp/offline")
if [ -n "$both" ]; then
	notok 2 "the plugin defines offline symbols: $(echo $both | head -c 400)"
else
	ok 2 "the plugin defines none of the offline layers' symbols"
fi
names=$(grep -E '^gp__(sim|trace|probe|synth)_' "$tmp/plugin")
if [ -n "$names" ]; then
	notok 3 "simulator/trace/probe/synth names in the plugin: $(echo $names | head -c 400)"
else
	ok 3 "no gp__sim_/gp__trace_/gp__probe_/gp__synth_ symbol in the plugin"
fi
if readelf -d "$so" | grep NEEDED | grep -qi hwloc; then
	notok 4 "the plugin links libhwloc: $(readelf -d "$so" | grep -i hwloc)"
else
	ok 4 "readelf: the plugin does not link libhwloc"
fi
if ldd "$so" 2>/dev/null | grep -qi hwloc; then
	notok 5 "ldd: libhwloc is loaded with the plugin"
else
	ok 5 "ldd: libhwloc is not loaded with the plugin"
fi
# the dynamic symbols it defines, the loader's own left out
nm -D --defined-only "$so" | awk 'NF == 3 { print $3 }' |
	grep -v -E '^(_init|_fini|_edata|_end|__bss_start)$' | sort -u > "$tmp/exported"
want="fini init job_modify job_submit plugin_name plugin_type plugin_version"
if [ "$(echo $(cat "$tmp/exported"))" != "$want" ]; then
	notok 6 "the plugin exports more or less than Slurm's names: $(echo $(cat "$tmp/exported") | head -c 400)"
else
	ok 6 "the plugin exports only $want"
fi
exit $fail
