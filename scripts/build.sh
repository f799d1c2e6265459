#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Generate the build system if needed, configure once, build.
set -eu
cd "$(dirname "$0")/.."
[ -x configure ] && [ configure -nt configure.ac ] && [ configure -nt Makefile.am ] || autoreconf -fi >/dev/null
[ -f Makefile ] && [ config.status -nt configure ] || ./configure --quiet --enable-werror
make -j"$(nproc)" >/dev/null
