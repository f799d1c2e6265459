# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh - shell helpers the real-daemon tests share; sourced (bash) after
# SLURM_CONF points at the harness's cluster.

# Every GPU a running job holds, one "node:index" line per GPU, from
# `scontrol show job -d` (Nodes=... GRES=gpu:...(IDX:0-1,3) lines): a GPU
# listed twice is double-booked.
gpus_in_use() {
	scontrol show job -d 2>/dev/null | awk '
		/JobState=/ { run = ($0 ~ /JobState=RUNNING/) }
		run && /^ +Nodes=.*GRES=.*IDX:/ {
			match($0, /Nodes=[^ ]+/); nodes = substr($0, RSTART + 6, RLENGTH - 6)
			match($0, /IDX:[^)]+/); idx = substr($0, RSTART + 4, RLENGTH - 4)
			print nodes, idx
		}' | while read -r nodes idx; do
		for h in $(scontrol show hostnames "$nodes"); do
			echo "$idx" | tr ',' '\n' | while IFS=- read -r a b; do
				for g in $(seq "$a" "${b:-$a}"); do echo "$h:$g"; done
			done
		done
	done
}
