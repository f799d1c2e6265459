#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# README command (1): install what is missing, build, and run the main job
# on the bundled example cluster.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
sh scripts/build.sh
./gpuplace cluster show --conf-dir etc/superpod-h100
