#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Generate the build system if needed, configure once, build.
#   scripts/build.sh --deb: build this tree with dpkg-buildpackage -b
#   instead (Debian's configure flags and hardening, plus --enable-werror:
#   GP_DEB_CONFIGURE_FLAGS, debian/rules); the packages go beside the tree
#   (../*.deb, its output in ../deb-build.log) and the tree stays
#   configured and built, so that the tests run on the code that was
#   packaged and the packages tier installs these (tests/cli/packages.sh,
#   GP_PKG_DEBS).  For a fresh copy of the sources (the Debian roots of
#   scripts/test.sh).  With GP_DEB_DIST_DIR set, the dist tarball goes
#   there as soon as the tree is configured, before the build
#   (debian/rules).
set -eu
cd "$(dirname "$0")/.."
if [ "${1:-}" = --deb ]; then
	[ ! -f Makefile ] || { echo "build.sh --deb: $(pwd) is configured already; it wants a fresh copy" >&2; exit 1; }
	if DEB_BUILD_OPTIONS="nocheck noautodbgsym parallel=$(nproc)" GP_DEB_CONFIGURE_FLAGS=--enable-werror \
		dpkg-buildpackage -b -us -uc >../deb-build.log 2>&1; then
		exit 0
	fi
	tail -n 30 ../deb-build.log >&2
	exit 1
fi
[ -x configure ] && [ configure -nt configure.ac ] && [ configure -nt Makefile.am ] || autoreconf -fi >/dev/null
[ -f Makefile ] && [ config.status -nt configure ] || ./configure --quiet --enable-werror
make -j"$(nproc)" >/dev/null
