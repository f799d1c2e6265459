#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# packages.sh - slow tier: the Debian packages, built, installed, loaded by
# a real slurmctld and removed, on the Slurm release installed here.
#   1. dpkg-buildpackage -b -us -uc builds them from a clean copy of the
#      tracked sources;
#   2. every package is named for the Slurm release it was built against
#      (slurmctld -V's major.minor);
#   3. they install (dpkg -i);
#   4. the plugins are in the Slurm package's own plugin directory (where
#      it ships job_submit_defaults.so), and the plugstack.conf.d snippet
#      sits beside the Slurm package's plugstack.conf and names the
#      installed SPANK plugin;
#   5. a real slurmctld (tests/slurm/harness.sh) whose PluginDir is only
#      Slurm's own directory loads job_submit/gpuplace from the package and
#      logs the release it was built for;
#   6. sbatch, with plugstack.conf including the installed snippet, offers
#      the SPANK plugin's --gpuplace-tp;
#   7. the installed command checks an installed example site;
#   8. the prolog/epilog pair is installed and executable;
#   9. dpkg --purge removes them all, leaving no gpuplace file in Slurm's
#      plugin directory or plugstack.conf.d.
# Everything from the install on runs in a private mount namespace with
# overlays on /usr, /etc and /var: the packages never appear in the
# machine's own Slurm plugin directory, where other test clusters on this
# machine would load them.
# Prints TAP; skips when not root, or dpkg-buildpackage, the build
# dependencies, unshare/overlayfs or Slurm's daemons are missing.
# GP_KEEP=1 keeps the work directory; GP_DEB_BUILD_OPTIONS adds to
# DEB_BUILD_OPTIONS (the test command builds with "noopt noautodbgsym": it
# tests the packages' shape and paths, not the compiler's optimiser).
# GP_PKG_DEBS=DIR takes the packages dpkg-buildpackage already built into
# DIR, with its output in DIR/deb-build.log, instead of building them (in
# the Debian roots, the test command builds the tree the release's tests
# run in with dpkg-buildpackage: scripts/build.sh --deb).
set -u
top=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
N_TESTS=9

if [ "${1:-}" != --inside ]; then
	echo "1..$N_TESTS"
	skip_all() { for i in $(seq 1 $N_TESTS); do echo "ok $i # SKIP $1"; done; exit 0; }
	[ -z "${GP_SANITIZERS:-}" ] || skip_all "built with sanitizers"
	[ -z "${GP_DISTCHECK:-}" ] || skip_all "not run under make distcheck"
	[ "$(id -u)" = 0 ] || skip_all "installing packages needs root"
	for b in dpkg-buildpackage dpkg-checkbuilddeps dh unshare slurmctld slurmd munged sbatch scontrol; do
		command -v $b >/dev/null 2>&1 || skip_all "$b is not installed (scripts/deps.sh)"
	done
	[ -f "$top/debian/rules" ] || skip_all "no debian/ in $top"
	if ! missing=$(cd "$top" && dpkg-checkbuilddeps 2>&1); then
		skip_all "build dependencies missing: ${missing##*: }"
	fi
	D=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-pkg.XXXXXX")
	chmod 755 "$D"
	[ "${GP_KEEP:-0}" = 1 ] || trap 'rm -rf "$D"' EXIT
	if [ -n "${GP_PKG_DEBS:-}" ]; then
		# 1. built already, by dpkg-buildpackage in the tree the
		# real-daemon tests of this release ran in (scripts/test.sh):
		# its log and the packages it wrote beside the tree
		if grep -q '^dpkg-buildpackage: info: binary-only upload' "$GP_PKG_DEBS/deb-build.log" 2>/dev/null &&
			cp "$GP_PKG_DEBS"/*.deb "$D/" 2>/dev/null; then
			echo "ok 1 - dpkg-buildpackage -b -us -uc built $(ls "$D"/*.deb | wc -l) packages (in the tested tree, $GP_PKG_DEBS)"
		else
			echo "not ok 1 - no packages or no successful build log in $GP_PKG_DEBS"
			tail -n 30 "$GP_PKG_DEBS/deb-build.log" 2>/dev/null | sed 's/^/# /'
			for i in $(seq 2 $N_TESTS); do echo "not ok $i - no packages"; done
			exit 0
		fi
	else
		mkdir -p "$D/src"
		# a clean copy: the tracked files as they are in the work tree, else
		# the whole source directory without build products
		if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
			(cd "$top" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$D/src"
		else
			(cd "$top" && tar --exclude='*.o' --exclude='*.lo' --exclude=.libs -cf - .) | tar -xf - -C "$D/src"
		fi
		# 1. the build
		if (cd "$D/src" && DEB_BUILD_OPTIONS="nocheck parallel=2${GP_DEB_BUILD_OPTIONS:+ $GP_DEB_BUILD_OPTIONS}" nice dpkg-buildpackage -b -us -uc) \
			>"$D/build.log" 2>&1; then
			echo "ok 1 - dpkg-buildpackage -b -us -uc builds $(ls "$D"/*.deb | wc -l) packages"
		else
			echo "not ok 1 - dpkg-buildpackage failed"
			tail -n 30 "$D/build.log" | sed 's/^/# /'
			for i in $(seq 2 $N_TESTS); do echo "not ok $i - no packages"; done
			exit 0
		fi
	fi
	# 2. the names
	mm=$(slurmctld -V | awk '{ split($2, v, "."); print v[1] "." v[2] }')
	# (debhelper's automatic -dbgsym packages aside)
	names=$(for f in "$D"/*.deb; do dpkg-deb -f "$f" Package; done | grep -v -- '-dbgsym$' | sort | tr '\n' ' ')
	want="gpuplace-doc-slurm$mm gpuplace-jobsubmit-slurm$mm gpuplace-prolog-slurm$mm gpuplace-slurm$mm gpuplace-spank-slurm$mm libgpuplace-dev-slurm$mm libgpuplace0-slurm$mm "
	if [ "$names" = "$want" ]; then
		echo "ok 2 - packages named for Slurm $mm: $names"
	else
		echo "not ok 2 - packages: $names; want: $want"
	fi
	# 3-9 in a private mount namespace with overlays (see the top)
	GP_PKG_DIR=$D unshare --mount --propagation private bash "$0" --inside
	exit 0
fi

# ---- inside the private mount namespace ----------------------------------
D=$GP_PKG_DIR
for d in usr etc var; do
	mkdir -p "$D/ov/$d/up" "$D/ov/$d/work"
	if ! mount -t overlay overlay -o "lowerdir=/$d,upperdir=$D/ov/$d/up,workdir=$D/ov/$d/work" "/$d"; then
		for i in $(seq 3 $N_TESTS); do echo "ok $i # SKIP no overlay mount over /$d"; done
		exit 0
	fi
done
# the Slurm package's own plugin and configuration directories
sysplug=$(dirname "$(dpkg-query -S '*/job_submit_defaults.so' | sed -n '1s/^[^:]*: //p')")
stackdir=$(dpkg-query -S '*/plugstack.conf.d' | sed -n '1s/^[^:]*: //p')
pkgs=$(for f in "$D"/*.deb; do dpkg-deb -f "$f" Package; done)
# files of the packages (one per line)
files() { dpkg -L $pkgs 2>/dev/null; }

# 3. install
if DEBIAN_FRONTEND=noninteractive dpkg -i "$D"/*.deb >"$D/install.log" 2>&1; then
	echo "ok 3 - dpkg -i installs them"
else
	echo "not ok 3 - dpkg -i failed"
	tail -n 20 "$D/install.log" | sed 's/^/# /'
	# each package's triggers file as built (once, under load, dpkg refused
	# one: "triggers ci file contains unknown directive syntax")
	for f in "$D"/*.deb; do
		t=$(dpkg-deb -I "$f" triggers 2>/dev/null) && echo "# $(basename "$f") triggers: $(echo "$t" | od -c | head -n 4 | tr '\n' ' ')"
	done
fi

# 4. where the files went
js=$(files | grep '/job_submit_gpuplace\.so$')
sp=$(files | grep '/spank_gpuplace\.so$')
snip=$(files | grep '/plugstack\.conf\.d/gpuplace\.conf$' | grep -v /usr/share/doc)
line=$(grep -v '^#' "$snip" 2>/dev/null | grep .)
if [ "$js" = "$sysplug/job_submit_gpuplace.so" ] && [ "$sp" = "$sysplug/spank_gpuplace.so" ] &&
	[ "$snip" = "$stackdir/gpuplace.conf" ] && [ "$line" = "optional $sp" ] && [ -f "$sp" ]; then
	echo "ok 4 - plugins in Slurm's plugin directory $sysplug; $snip: $line"
else
	echo "not ok 4 - job_submit '$js', spank '$sp' (want $sysplug), snippet '$snip' (want $stackdir/gpuplace.conf): '$line'"
fi

# 5-6. a real slurmctld with only Slurm's own PluginDir
export D_H=$D/cluster
export D=$D_H N=2 LEAVES=1 JOB_SUBMIT=gpuplace SYSPLUGDIR=$sysplug
export CTLPORT=${CTLPORT:-$((16877 + ${GP_PORT_OFFSET:-0}))} BASEPORT=${BASEPORT:-$((18700 + ${GP_PORT_OFFSET:-0}))}
export SLURM_CONF=$D/etc/slurm.conf
unset PLUGIN_DIR SPANK_PLUGINS
H="bash $top/tests/slurm/harness.sh"
trap '$H down >/dev/null 2>&1' EXIT
rel=$(slurmctld -V | awk '{ print $2 }')
if $H up 2>"$GP_PKG_DIR/up.log"; then
	got=$(grep -o 'gpuplace: job_submit/gpuplace built for Slurm [0-9.]*' "$D/log/slurmctld.log" | head -n 1)
	if grep -q "^PluginDir=$sysplug\$" "$SLURM_CONF" && [ "$got" = "gpuplace: job_submit/gpuplace built for Slurm $rel" ]; then
		echo "ok 5 - slurmctld $rel loads the packaged plugin from $sysplug: $got"
	else
		echo "not ok 5 - no '$rel' line from the packaged plugin (got '$got')"
		grep -E 'gpuplace|job_submit|fatal' "$D/log/slurmctld.log" | head -n 5 | sed 's/^/# /'
	fi
	echo "include $stackdir/*.conf" >"$D/etc/plugstack.conf"
	if sbatch --help 2>&1 | grep -q -- '--gpuplace-tp'; then
		echo "ok 6 - sbatch offers --gpuplace-tp through $stackdir/gpuplace.conf"
	else
		echo "not ok 6 - sbatch --help has no --gpuplace-tp"
		sbatch --help 2>&1 | tail -n 5 | sed 's/^/# /'
	fi
else
	echo "not ok 5 - the cluster did not start with the packaged plugin"
	sed 's/^/# /' "$GP_PKG_DIR/up.log" | tail -n 10
	grep -E 'gpuplace|fatal|error' "$D/log/slurmctld.log" 2>/dev/null | head -n 5 | sed 's/^/# /'
	echo "not ok 6 - no cluster"
fi
$H down >/dev/null 2>&1
D=$GP_PKG_DIR

# 7. the command on an installed example
ex=/usr/share/doc/gpuplace/examples/etc/superpod-h100
if out=$(/usr/bin/gpuplace cluster check --conf-dir "$ex" 2>&1); then
	echo "ok 7 - /usr/bin/gpuplace cluster check --conf-dir $ex"
else
	echo "not ok 7 - gpuplace cluster check on $ex failed"
	echo "$out" | tail -n 5 | sed 's/^/# /'
fi

# 8. prolog/epilog
pro=$(files | grep '/gpuplace-powercap-prolog$')
epi=$(files | grep '/gpuplace-powercap-epilog$')
if [ -n "$pro" ] && [ -x "$pro" ] && [ -n "$epi" ] && [ -x "$epi" ]; then
	echo "ok 8 - Prolog=$pro Epilog=$epi"
else
	echo "not ok 8 - prolog '$pro' / epilog '$epi' missing or not executable"
fi

# 9. removal
# shellcheck disable=SC2086
if dpkg --purge $pkgs >"$D/purge.log" 2>&1 &&
	! ls "$sysplug"/*gpuplace* "$stackdir"/gpuplace* /usr/bin/gpuplace >/dev/null 2>&1 &&
	[ -z "$(dpkg-query -W -f='${Package} ${Status}\n' $pkgs 2>/dev/null | grep ' installed$')" ]; then
	echo "ok 9 - dpkg --purge removes them: no gpuplace file left in $sysplug or $stackdir"
else
	echo "not ok 9 - removal left files or packages"
	ls "$sysplug"/*gpuplace* "$stackdir"/gpuplace* 2>/dev/null | sed 's/^/# /'
	tail -n 10 "$D/purge.log" | sed 's/^/# /'
fi
exit 0
