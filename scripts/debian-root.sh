#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A root of another Debian suite with that suite's Slurm from Debian's own
# packages, for building and testing gpuplace against other Slurm releases
# on a Debian 12 machine: trixie (Debian 13) has Slurm 24.11, sid (unstable)
# the newest Slurm Debian ships (25.11 in November 2026).
#
#   scripts/debian-root.sh SUITE prepare        build or complete the root
#   scripts/debian-root.sh SUITE version        print the root's Slurm
#                                               release ("24.11.5")
#   scripts/debian-root.sh SUITE run DIR CMD..  run CMD inside the root,
#                                               with DIR bound at /gpbuild
#
# The root of SUITE is cached between runs on one machine, in
# /var/cache/gpuplace/SUITE (trixie's in /var/cache/gpuplace/debian13;
# GP_DEBIAN_ROOT names another place): it is made with `debootstrap
# --variant=minbase SUITE` when absent or left incomplete by an interrupted
# run, and its packages are installed when the list below changed.  Commands run in
# their own mount and PID namespaces (unshare): /proc and /dev are mounted
# there only, and every process started inside, daemons included, ends with
# the command, so nothing outlives a run.  Needs root.  Exit status 0, or
# non-zero with the reason on stderr (package registry unreachable, ...).
set -eu
die() { echo "debian-root: $*" >&2; exit 1; }

SUITE=${1:-}
case "$SUITE" in
"" | -* | */* | *" "*) echo "usage: $0 SUITE prepare | version | run DIR CMD..." >&2; exit 2 ;;
trixie) ROOT=${GP_DEBIAN_ROOT:-/var/cache/gpuplace/debian13} ;;
*) ROOT=${GP_DEBIAN_ROOT:-/var/cache/gpuplace/$SUITE} ;;
esac
shift
# what the build and the whole test suite need inside (scripts/deps.sh has
# the same list for the host; debhelper for the packages tier,
# tests/cli/packages.sh)
PKGS="build-essential autoconf automake libtool pkg-config
libjson-c-dev libyaml-dev libcurl4-openssl-dev libhwloc-dev hwloc libcmocka-dev
libslurm-dev slurmctld slurmd slurm-client munge slurmdbd mariadb-server-core mariadb-client-core
valgrind gnuplot-nox procps iproute2 ca-certificates bc
debhelper dpkg-dev"
STAMP=$ROOT/.gpuplace-packages

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, unshare)"

# debootstrap removes ROOT/debootstrap when it has finished: a root that
# still has it, or has no apt-get, was interrupted and is made again
complete() { [ -x "$ROOT/usr/bin/apt-get" ] && [ ! -d "$ROOT/debootstrap" ]; }

# run "$@" inside the root in private namespaces; BIND (optional) at /gpbuild
inside() {
	bind=$1
	shift
	# the host's names, as the host resolves them: debootstrap writes no
	# /etc/hosts, and without one every lookup of this machine's name
	# (munged, slurmctld, slurmd) waits for DNS; with Slurm 24.11 that
	# stalled RPCs by about 5 s each (60 one-second jobs took 57 s to run,
	# 4 s with the host's /etc/hosts) and made sbatch and scancel time out
	cp /etc/hosts "$ROOT/etc/hosts"
	# shellcheck disable=SC2016
	unshare --mount --propagation private --pid --fork sh -c '
		set -e
		root=$1 bind=$2
		shift 2
		# the root a mount point of its own: inside, / is then a mount
		# whose propagation a nested unshare can change (packages.sh
		# mounts overlays in a namespace of its own)
		mount --bind "$root" "$root"
		mount -t proc proc "$root/proc"
		mount --bind /dev "$root/dev"
		if [ -n "$bind" ]; then
			mkdir -p "$root/gpbuild"
			mount --bind "$bind" "$root/gpbuild"
		fi
		exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
			${GP_PORT_OFFSET:+GP_PORT_OFFSET=$GP_PORT_OFFSET} "$@"
	' sh "$ROOT" "$bind" "$@"
}

prepare() {
	mkdir -p "$(dirname "$ROOT")"
	# one preparation at a time on this machine
	exec 9>"$ROOT.lock"
	flock 9
	if ! complete; then
		command -v debootstrap >/dev/null 2>&1 ||
			die "debootstrap is not installed (scripts/deps.sh installs it)"
		rm -rf "$ROOT" "$ROOT.new"
		echo "debian-root: debootstrap --variant=minbase $SUITE $ROOT (about a minute)" >&2
		debootstrap --variant=minbase "$SUITE" "$ROOT.new" >"$ROOT.log" 2>&1 ||
			{ tail -n 5 "$ROOT.log" >&2; rm -rf "$ROOT.new"; die "debootstrap $SUITE failed (is Debian's package registry reachable?)"; }
		mv "$ROOT.new" "$ROOT"
	fi
	want=$(echo $PKGS)
	if [ "$(cat "$STAMP" 2>/dev/null)" != "$want" ]; then
		# no service is started inside the root (policy-rc.d: 101 = forbidden)
		printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
		chmod 755 "$ROOT/usr/sbin/policy-rc.d"
		cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
		echo "debian-root: installing the build and test packages (about a minute)" >&2
		# shellcheck disable=SC2086
		# (Check-Valid-Until=false: a mirror that is a snapshot serves an
		# unstable suite whose Release file has expired, "invalid since
		# 22d"; its packages are still signed and checked)
		inside "" sh -c "apt-get -o Acquire::Check-Valid-Until=false update -qq && apt-get install -y -qq --no-install-recommends $want" \
			>"$ROOT.log" 2>&1 ||
			{ tail -n 5 "$ROOT.log" >&2; die "apt-get inside the root failed (is Debian's package registry reachable?)"; }
		echo "$want" >"$STAMP"
	fi
}

case "${1:-}" in
prepare)
	prepare
	;;
version)
	complete && [ -f "$STAMP" ] || die "no prepared root at $ROOT (run: $0 $SUITE prepare)"
	# the Slurm release of the root's libslurm-dev, as slurmctld prints it
	v=$(awk '/define SLURM_VERSION_NUMBER/ { print $3 }' "$ROOT/usr/include/slurm/slurm_version.h")
	printf '%d.%02d.%d\n' $((v >> 16)) $(((v >> 8) & 255)) $((v & 255))
	;;
run)
	[ $# -ge 3 ] || die "usage: $0 $SUITE run DIR CMD..."
	dir=$2
	shift 2
	complete && [ -f "$STAMP" ] || die "no prepared root at $ROOT (run: $0 $SUITE prepare)"
	inside "$dir" "$@"
	;;
*)
	echo "usage: $0 SUITE prepare | version | run DIR CMD..." >&2
	exit 2
	;;
esac
