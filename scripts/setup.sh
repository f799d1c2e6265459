#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# README command (1): install what is missing, build, and run the main job
# on the bundled example cluster.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
sh scripts/build.sh
./gpuplace cluster show --conf-dir etc/superpod-h100
echo
echo "# Where would a 64-GPU training job go on this cluster, and why?"
echo "# ./gpuplace place --conf-dir etc/superpod-h100 --job 'gpus=64,tp=8,pp=2,params=70e9,step_s=2'"
./gpuplace place --conf-dir etc/superpod-h100 --job 'gpus=64,tp=8,pp=2,params=70e9,step_s=2'
