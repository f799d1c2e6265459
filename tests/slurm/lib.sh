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

# fill_but_n4_n8 NAME LIMIT: a 4-GPU job NAMEi with a time limit of LIMIT
# minutes on each of n1-n3 and n5-n7; returns once all six run and n4 and
# n8 are idle (nodes of an earlier test may still be completing), 3 s
# later, so that a state refresh (2 s) has their end times, from which
# gpuplace predicts a wait.
fill_but_n4_n8() {
	local i t names=
	for i in 1 2 3 5 6 7; do
		sbatch -Q -w "n$i" --gpus=4 -t "$2" -o /dev/null -J "$1$i" --wrap='sleep 300'
		names=${names:+$names,}$1$i
	done
	for t in $(seq 1 80); do
		[ "$(squeue -h -t R -n "$names" | wc -l)" = 6 ] &&
			[ "$(sinfo -h -N -n n4,n8 -t idle -o %N | sort -u | wc -l)" = 2 ] && break
		sleep 0.25
	done
	sleep 3
}

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
