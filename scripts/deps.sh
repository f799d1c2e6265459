#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install the Debian 12 packages gpuplace needs to build and test, only
# those that are missing (idempotent; needs root when something is
# missing).  debootstrap makes the Debian 13 root in which scripts/test.sh
# tests against Slurm 24.11; debhelper builds the Debian packages
# (tests/cli/packages.sh) and rpm provides rpmspec for the RPM spec check.
set -eu
PKGS="build-essential autoconf automake libtool pkg-config
libjson-c-dev libyaml-dev libcurl4-openssl-dev libhwloc-dev hwloc libcmocka-dev
libslurm-dev slurmctld slurmd slurm-client munge slurmdbd mariadb-server-core mariadb-client-core
valgrind gnuplot-nox procps iproute2 ca-certificates bc
debootstrap clang libclang-rt-14-dev prometheus prometheus-pushgateway curl
debhelper dpkg-dev fakeroot rpm"
missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in *"install ok installed"*) ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "gpuplace: missing Debian packages:$missing (run as root to install them)" >&2
	exit 1
fi
echo "gpuplace: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
