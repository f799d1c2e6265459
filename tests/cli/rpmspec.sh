#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# rpmspec.sh - gpuplace.spec parses (rpmspec -P) and has the shape of
# debian/control.in: the same packages, named for the Slurm release, with
# the plugins in the plugin directory of the Slurm that pkg-config's slurm
# module describes.  A slurm.pc for a Slurm 24.11.5 under /opt/slurm-test
# is written here (as slurm-devel installs one), so the release and the
# directory must come from it, not from the host.
# Prints TAP; skips when rpmspec (Debian's rpm package) is missing.
set -u
top=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
echo "1..4"
if ! command -v rpmspec >/dev/null 2>&1; then
	for i in 1 2 3 4; do echo "ok $i # SKIP rpmspec is not installed (Debian: rpm)"; done
	exit 0
fi
t=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-rpmspec.XXXXXX")
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/pc" "$t/home"
cat >"$t/pc/slurm.pc" <<'PC'
prefix=/opt/slurm-test
libdir=${prefix}/lib64
includedir=${prefix}/include

Name: slurm
Description: Slurm API
Version: 24.11.5
Cflags: -I${includedir}
Libs: -L${libdir} -lslurm
PC
# 1. it parses, the release from pkg-config
if HOME=$t/home PKG_CONFIG_PATH=$t/pc rpmspec -P "$top/gpuplace.spec" >"$t/spec" 2>"$t/err"; then
	echo "ok 1 - rpmspec -P gpuplace.spec"
else
	echo "not ok 1 - rpmspec -P failed"
	sed 's/^/# /' "$t/err"
fi
# 2. the packages: debian/control.in's, -dev spelled -devel
want=$(sed -n 's/^Package: //p' "$top/debian/control.in" | sed -e 's/@SLURM_MM@/24.11/' -e 's/-dev-/-devel-/' | sort | tr '\n' ' ')
got=$(sed -n 's/^%package -n //p' "$t/spec" | sort | tr '\n' ' ')
if [ -n "$got" ] && [ "$got" = "$want" ]; then
	echo "ok 2 - packages named for Slurm 24.11 as in debian/control.in: $got"
else
	echo "not ok 2 - packages '$got', want '$want'"
fi
# 3. the plugins in pkg-config's libdir/slurm, the snippet beside plugstack.conf
js=$(awk '/^%files -n gpuplace-jobsubmit-slurm24.11/ { getline; print }' "$t/spec")
sp=$(awk '/^%files -n gpuplace-spank-slurm24.11/ { getline; print; getline; print }' "$t/spec" | tr '\n' ' ')
case "$js|$sp" in
"/opt/slurm-test/lib64/slurm/job_submit_gpuplace.so|/opt/slurm-test/lib64/slurm/spank_gpuplace.so %config(noreplace) "*/plugstack.conf.d/gpuplace.conf" ")
	echo "ok 3 - plugins in pkg-config's slurm libdir/slurm: $js; $sp" ;;
*)
	echo "not ok 3 - job_submit files '$js', spank files '$sp'" ;;
esac
# 4. the plugin must not load into another release: exact slurmctld range
req=$(awk '/^%package -n gpuplace-jobsubmit-slurm24.11/ { f = 1 } f && /^Requires:/ { print; exit }' "$t/spec")
case "$req" in
*"slurm-slurmctld >= 24.11.5, slurm-slurmctld < 24.11.6") echo "ok 4 - $req" ;;
*) echo "not ok 4 - job_submit package requires '$req'" ;;
esac
