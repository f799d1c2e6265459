#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# README command (1): install what is missing, build, and run the main job
# on the bundled example clusters: a placement decision, then a short
# simulation comparing Slurm-like placement with gpuplace's policies.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
sh scripts/build.sh
./gpuplace cluster show --conf-dir etc/superpod-h100
echo
echo "# Where would a 64-GPU training job go on this cluster, and why?"
echo "# ./gpuplace place --conf-dir etc/superpod-h100 --job 'gpus=64,tp=8,pp=2,params=70e9,step_s=2'"
./gpuplace place --conf-dir etc/superpod-h100 --job 'gpus=64,tp=8,pp=2,params=70e9,step_s=2'
echo
echo "# What would gpuplace change on the GB200 NVL72 example?  3,000 synthetic jobs"
echo "# (1 to 64 GPUs, offered load 0.9), replayed under Slurm's own placement as a"
echo "# site runs it (first-fit: no topology plugin; tree; block: this site's"
echo "# topology/block) and every gpuplace preset as the plugin decides:"
mkdir -p gpuplace-sim
echo "# ./gpuplace trace synth --conf-dir etc/nvl72-gb200 --jobs 3000 --load 0.9 --seed 1 --max 28800 \\"
echo "#     --sizes 1:0.3,2:0.1,4:0.1,8:0.25,16:0.12,32:0.08,64:0.05 -o gpuplace-sim/trace.csv"
./gpuplace trace synth --conf-dir etc/nvl72-gb200 --jobs 3000 --load 0.9 --seed 1 --max 28800 \
	--sizes 1:0.3,2:0.1,4:0.1,8:0.25,16:0.12,32:0.08,64:0.05 -o gpuplace-sim/trace.csv
echo "# ./gpuplace simulate --conf-dir etc/nvl72-gb200 --trace gpuplace-sim/trace.csv --out-dir gpuplace-sim"
./gpuplace simulate --conf-dir etc/nvl72-gb200 --trace gpuplace-sim/trace.csv --out-dir gpuplace-sim
echo
echo "# The same on the 2:1 oversubscribed DGX A100 example, whose racks run out of"
echo "# power when the cluster is busy (topology/tree, so no block baseline):"
echo "# ./gpuplace trace synth --conf-dir etc/a100-oversub --jobs 3000 --load 0.9 --seed 1 --max 28800 \\"
echo "#     --sizes 1:0.3,2:0.1,4:0.1,8:0.25,16:0.12,32:0.08,64:0.05 -o gpuplace-sim/a100/trace.csv"
mkdir -p gpuplace-sim/a100
./gpuplace trace synth --conf-dir etc/a100-oversub --jobs 3000 --load 0.9 --seed 1 --max 28800 \
	--sizes 1:0.3,2:0.1,4:0.1,8:0.25,16:0.12,32:0.08,64:0.05 -o gpuplace-sim/a100/trace.csv
echo "# ./gpuplace simulate --conf-dir etc/a100-oversub --trace gpuplace-sim/a100/trace.csv --out-dir gpuplace-sim/a100 --no-plots"
./gpuplace simulate --conf-dir etc/a100-oversub --trace gpuplace-sim/a100/trace.csv --out-dir gpuplace-sim/a100 --no-plots
echo
echo "# Plots (PNG and SVG) and CSV/JSON results are in $(pwd)/gpuplace-sim/:"
ls gpuplace-sim/*.png gpuplace-sim/*.svg | sed 's/^/#   /'
