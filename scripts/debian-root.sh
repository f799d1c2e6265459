#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A Debian 13 ("trixie") root with Slurm 24.11 from Debian's own packages,
# for building and testing gpuplace against a second Slurm release on a
# Debian 12 machine.
#
#   scripts/debian13-root.sh prepare        build or complete the root
#   scripts/debian13-root.sh run DIR CMD..  run CMD inside the root, with
#                                           DIR bound at /gpbuild
#
# The root is cached between runs on one machine (GP_DEBIAN13_ROOT, default
# /var/cache/gpuplace/debian13): it is made with `debootstrap --variant=
# minbase trixie` when absent or left incomplete by an interrupted run, and
# its packages are installed when the list below changed.  Commands run in
# their own mount and PID namespaces (unshare): /proc and /dev are mounted
# there only, and every process started inside, daemons included, ends with
# the command, so nothing outlives a run.  Needs root.  Exit status 0, or
# non-zero with the reason on stderr (package registry unreachable, ...).
set -eu
ROOT=${GP_DEBIAN13_ROOT:-/var/cache/gpuplace/debian13}
SUITE=trixie
# what the build and the whole test suite need inside (scripts/deps.sh has
# the same list for the host)
PKGS="build-essential autoconf automake libtool pkg-config
libjson-c-dev libyaml-dev libcurl4-openssl-dev libhwloc-dev hwloc libcmocka-dev
libslurm-dev slurmctld slurmd slurm-client munge
valgrind gnuplot-nox procps iproute2 ca-certificates bc"
STAMP=$ROOT/.gpuplace-packages

die() { echo "debian13-root: $*" >&2; exit 1; }

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
		echo "debian13-root: debootstrap --variant=minbase $SUITE $ROOT (about a minute)" >&2
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
		echo "debian13-root: installing the build and test packages (about a minute)" >&2
		# shellcheck disable=SC2086
		inside "" sh -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends $want" \
			>"$ROOT.log" 2>&1 ||
			{ tail -n 5 "$ROOT.log" >&2; die "apt-get inside the root failed (is Debian's package registry reachable?)"; }
		echo "$want" >"$STAMP"
	fi
}

case "${1:-}" in
prepare)
	prepare
	;;
run)
	[ $# -ge 3 ] || die "usage: $0 run DIR CMD..."
	dir=$2
	shift 2
	complete && [ -f "$STAMP" ] || die "no prepared root at $ROOT (run: $0 prepare)"
	inside "$dir" "$@"
	;;
*)
	echo "usage: $0 prepare | run DIR CMD..." >&2
	exit 2
	;;
esac
