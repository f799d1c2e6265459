# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh - shell helpers the real-daemon tests share; sourced (bash) once D
# (the cluster's directory), H (the harness command) and SLURM_CONF are set.
# Sourcing it starts the TAP count and removes the cluster at exit
# (GP_KEEP=1 keeps its directory for a look).

n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $*"; }
# diagnostic lines, each line of each argument behind "#"
diag() { local l; for l in "$@"; do printf '%s\n' "$l" | sed 's/^/#   /'; done; }
# check COND TEXT [DIAG...]: COND is evaluated; DIAG lines on failure
check() { if eval "$1"; then ok "$2"; else not_ok "$2"; shift 2; diag "$@"; fi; }
cleanup() { $H down >/dev/null 2>&1; [ -n "${GP_KEEP:-}" ] || rm -rf "$D" "$D.up.log"; }
trap cleanup EXIT

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
