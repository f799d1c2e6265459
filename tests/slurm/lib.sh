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
# fail_rest WHY: "not ok" for every test not yet reported (up to
# N_TESTS), then exit: what follows needs what just failed
fail_rest() { local i; for i in $(seq $((n + 1)) "$N_TESTS"); do echo "not ok $i - $1"; done; exit 0; }
# cluster_up WHAT [PATTERN [FILE...]]: start the harness's cluster ($H up).
# When it does not come up: "not ok" for WHAT, the harness's output, each
# FILE and the last lines of slurmctld's log matching PATTERN (an extended
# regular expression, default gpuplace|fatal|error) as diagnostics, then
# fail_rest
cluster_up() {
	local what=$1 pat=${2:-gpuplace|fatal|error} f
	shift
	[ $# -gt 0 ] && shift
	$H up 2>"$D.up.log" && return 0
	not_ok "$what"
	sed 's/^/# /' "$D.up.log"
	for f in "$@"; do [ -r "$f" ] && sed 's/^/# /' "$f"; done
	grep -E "$pat" "$D/log/slurmctld.log" 2>/dev/null | tail -n 10 | sed 's/^/# /'
	fail_rest "no cluster"
}
# check COND TEXT [DIAG...]: COND is evaluated; DIAG lines on failure
check() { if eval "$1"; then ok "$2"; else not_ok "$2"; shift 2; diag "$@"; fi; }
# check_todo WHY COND TEXT [DIAG...]: a check that fails today for the
# known, open reason WHY: TAP's TODO (automake counts a failure as XFAIL and
# a pass as XPASS, which fails the suite, so the mark goes when the cause
# is fixed)
check_todo() {
	local why=$1
	shift
	if eval "$1"; then ok "$2 # TODO $why"; else not_ok "$2 # TODO $why"; shift 2; diag "$@"; fi
}
# alive PID: the process runs (not a zombie); as harness.sh's, for the
# daemons a test starts itself
alive() { [ -n "${1:-}" ] && [ -e "/proc/$1" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]; }
cleanup() { $H down >/dev/null 2>&1; [ -n "${GP_KEEP:-}" ] || rm -rf "$D" "$D.up.log"; }
trap cleanup EXIT

# plugin_read [ERE] [quarter seconds, default 240]: wait for the plugin to
# log a reading of the cluster state (at debug: CTLDEBUG=debug) after this
# call, matching ERE when given ("[0-9]+ nodes, 2 running jobs, 1
# reservations"), so that the next submission is decided on a state that
# shows what the test set up, however slow the machine; 1 after the time-out
# (then the test goes on and its outcome checks decide).
plugin_read() {
	local from t log=$D/log/slurmctld.log
	from=$(stat -c %s "$log" 2>/dev/null || echo 0)
	for t in $(seq 1 "${2:-240}"); do
		tail -c +$((from + 1)) "$log" 2>/dev/null |
			grep -Eq "gpuplace: cluster state read: ${1:-}" && return 0
		sleep 0.25
	done
	echo "# no plugin reading matching '${1:-}' within $((${2:-240} / 4)) s" >&2
	return 1
}

# fill_but_n4_n8 NAME LIMIT: a 4-GPU job NAMEi with a time limit of LIMIT
# minutes on each of n1-n3 and n5-n7; returns once all six run and n4 and
# n8 are idle (nodes of an earlier test may still be completing), and the
# plugin has read a state with the six running (plugin_read; with
# SlurmctldDebug below debug, 3 s later), with their end times, from which
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
	case "${CTLDEBUG:-info}" in
	debug*) plugin_read "[0-9]+ nodes, 6 running jobs" ;;
	*) sleep 3 ;;
	esac
}

# Every GPU a running job holds, one "node:index" line per GPU, from
# `scontrol show job -d` (Nodes=... GRES=gpu:...(IDX:0-1,3) lines; a node
# of several GPU types has one entry per type, "gpu:a100:1(IDX:0),
# gpu:l40s:1(IDX:4)", whose indices are the node's): a GPU listed twice is
# double-booked.  One scontrol call and one awk per sample, host lists and
# index ranges expanded in awk (a command per running job made the
# samples of a burst a large share of the real-daemon tier's CPU).
gpus_in_use() {
	scontrol show job -d 2>/dev/null | awk '
		# the hosts of a Slurm host list ("n[1-2,4]", "n3", "a1,b[2-3]")
		# in h[1..n]; the number of hosts returned
		function hosts(list, h,   n, depth, i, c, tok, toks, nt, t, o, e, pre, body, post, rs, nr, r, ab, lo, hi, w, x) {
			nt = 0; tok = ""; depth = 0
			for (i = 1; i <= length(list); i++) {
				c = substr(list, i, 1)
				if (c == "[") depth++
				else if (c == "]") depth--
				if (c == "," && depth == 0) { toks[++nt] = tok; tok = "" } else tok = tok c
			}
			if (tok != "") toks[++nt] = tok
			n = 0
			for (t = 1; t <= nt; t++) {
				o = index(toks[t], "["); e = index(toks[t], "]")
				if (o == 0 || e < o) { h[++n] = toks[t]; continue }
				pre = substr(toks[t], 1, o - 1); body = substr(toks[t], o + 1, e - o - 1); post = substr(toks[t], e + 1)
				nr = split(body, rs, ",")
				for (r = 1; r <= nr; r++) {
					if (split(rs[r], ab, "-") == 2) { lo = ab[1]; hi = ab[2] } else { lo = rs[r]; hi = rs[r] }
					w = length(lo)
					for (x = lo + 0; x <= hi + 0; x++) h[++n] = pre sprintf("%0" w "d", x) post
				}
			}
			return n
		}
		/JobState=/ { run = ($0 ~ /JobState=RUNNING/) }
		run && /^ +Nodes=.*GRES=.*IDX:/ {
			match($0, /Nodes=[^ ]+/); nodes = substr($0, RSTART + 6, RLENGTH - 6)
			g = $0; idx = ""
			while (match(g, /IDX:[^)]+/)) {
				if (substr(g, RSTART + 4, RLENGTH - 4) != "N/A")
					idx = idx (idx == "" ? "" : ",") substr(g, RSTART + 4, RLENGTH - 4)
				g = substr(g, RSTART + RLENGTH)
			}
			if (idx == "")
				next
			split("", hs)
			nh = hosts(nodes, hs)
			ni = split(idx, is, ",")
			for (k = 1; k <= nh; k++)
				for (m = 1; m <= ni; m++) {
					if (split(is[m], ab, "-") != 2) ab[2] = ab[1]
					for (x = ab[1] + 0; x <= ab[2] + 0; x++) print hs[k] ":" x
				}
		}'
}

# hostlist_nodes HOSTLIST: its nodes, one a line ("n[1-2,4]" -> n1 n2
# n4; one bracket group at most), without asking slurmctld
hostlist_nodes() {
	local pre body part
	case "$1" in
	*\[*\]) pre=${1%%\[*} body=${1#*\[} body=${body%\]}
		for part in $(echo "$body" | tr ',' ' '); do seq -f "$pre%g" "${part%-*}" "${part#*-}"; done ;;
	?*) echo "$1" ;;
	esac
}

# in_range HOSTLIST LO HI: every node's number (nN) in [LO, HI], and some
in_range() {
	local h i
	for h in $(scontrol show hostnames "$1"); do
		i=${h#n}
		[ "$i" -ge "$2" ] && [ "$i" -le "$3" ] || return 1
	done
	[ -n "$1" ]
}

# running_on JOB [SECONDS] [EVERY]: the job's nodes as Slurm writes them
# ("n[3-4]") once it runs; "" when it does not within SECONDS (default
# RUNNING_S, else 30), at once when it has ended without running or JOB is
# empty (sbatch refused it).  Polled every EVERY seconds (default
# RUNNING_EVERY, else 0.25; each poll is a command and an RPC, so a test
# of many jobs on a busy cluster polls less often); the wait is a number of
# polls, so on a loaded machine it lasts longer, never shorter.
running_on() {
	local t st nodes="" every=${3:-${RUNNING_EVERY:-0.25}}
	if [ -n "$1" ]; then
		for t in $(seq 1 "$(awk -v s="${2:-${RUNNING_S:-30}}" -v e="$every" 'BEGIN { printf "%d", s / e + 0.5 }')"); do
			st=$(squeue -h -t all -j "$1" -o '%T %N' 2>/dev/null)
			case "$st" in
			RUNNING*) nodes=${st#RUNNING }; break ;;
			COMPLETED*|COMPLETING*|FAILED*|CANCELLED*|TIMEOUT*|NODE_FAIL*|OUT_OF_MEMORY*|BOOT_FAIL*|DEADLINE*) break ;;
			esac
			sleep "$every"
		done
	fi
	echo "$nodes"
}

# run [-g] NAME ARGS...: submit a 5-minute job NAME with sbatch ARGS, wait
# until it runs (30 s at most; at once when it ended or sbatch refused
# it), then read its record once:
#   j      its id ("" when sbatch refused it, the message in $D/NAME.err)
#   nodes  its nodes as Slurm writes them ("" when it does not run)
#   rec    `scontrol show job -d` of it
#   gpus   with -g: the GPUs it holds, one "node type:count[,type:count]"
#          line per node, types in name order (the record's "Nodes=n[1-2]
#          ... GRES=gpu:a100:4(IDX:0-3)" lines, one entry per type on a
#          node of two types)
#   seen   the record's lines that say where and why, for diagnostics
run() {
	local name t n e parse=
	[ "$1" = -g ] && { parse=1; shift; }
	name=$1
	shift
	j=$(sbatch --parsable -J "$name" -t 5 -o /dev/null "$@" --wrap='sleep 300' 2>"$D/$name.err")
	nodes=$(running_on "$j" 30 0.25)
	rec=$([ -n "$j" ] && scontrol show job -d "$j" 2>/dev/null)
	gpus=
	[ -z "$parse" ] || gpus=$(echo "$rec" | awk '
		/^ +Nodes=.*GRES=/ {
			match($0, /Nodes=[^ ]+/); n = substr($0, RSTART + 6, RLENGTH - 6)
			g = substr($0, index($0, "GRES=") + 5); out = ""
			while (match(g, /gpu:[A-Za-z0-9_]+:[0-9]+/)) {
				out = out (out == "" ? "" : " ") substr(g, RSTART + 4, RLENGTH - 4)
				g = substr(g, RSTART + RLENGTH)
			}
			print n, out
		}' | while read -r n e; do
		for t in $(hostlist_nodes "$n"); do echo "$t $(echo "$e" | tr ' ' '\n' | sort | paste -s -d, -)"; done
	done | sort)
	seen=$(cat "$D/$name.err"; echo "$rec" | grep -E 'JobState|Partition|AdminComment|ReqNodeList|NodeList|Features|TresPer|GRES' | tr -s ' ')
}
