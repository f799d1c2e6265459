#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm_vs_stock.sh - job_submit/gpuplace against stock Slurm on real
# daemons (tests/slurm/harness.sh): 12 slurmd as 3 leaves x 4 nodes x 4
# GPUs, node Weights 10/1/10 as many sites set them, NVLink domains of 2
# nodes, racks of 6 nodes.
#
# Every scenario fills the cluster with blocking jobs that gpuplace did not
# place (submitted with -w while the plugin is off, or as one-GPU jobs with
# -w that the plugin lets through), then submits the SAME job with the
# plugin off (stock Slurm) and on, and asserts for gpuplace:
#   (a) its nodes span no more leaves, NVLink domains and racks than stock
#       Slurm's (and, where a rack is near its cap, none of that rack);
#   (b) the job runs on exactly the nodes its AdminComment PINs, or inside
#       the features it was constrained to;
#   (c) it does not wait while a set the policy accepts is free (it starts
#       as stock Slurm's job did);
#   (d) where a scenario names words its comment must hold (WANT_COMMENT),
#       the comment of the job submitted after the blockers aged holds them.
# The plugin-on job is submitted twice: once after the blockers have run
# for a while (the plugin read them from Slurm), once right after they
# start (the plugin's state is seconds old, and the same nodes were just
# emptied by the previous blockers: the churn of a busy cluster); once
# more at once after the plugin is enabled on a cluster in use (it may then
# let the job through unchanged if it logs why, once).  Each TAP line
# prints both placements.  Then a burst of BURST (100) submissions with
# the plugin on: none lost, no GPU given to two jobs at once.
# Prints TAP; skips when not root, Slurm is missing or the plugin is not
# built.  About 3 to 4 minutes on a 2-core machine.  Environment: CTLPORT,
# BASEPORT (default 16947, 18600, each plus GP_PORT_OFFSET as in
# harness.sh: nodes take BASEPORT+1 .. BASEPORT+12), PLUGIN_SWITCH
# (reconfigure or restart, see harness.sh), BURST, AGE, START_S (below).
set -u
top=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BURST=${BURST:-100}
AGE=${AGE:-12}        # s the blockers run before the "aged" submission: longer
                      # than the plugin keeps a decision it cannot match (10 s)
START_S=${START_S:-15} # s a job may take to start when its set is free
                      # (stock Slurm here starts a batch job in ~3 s)
SCENARIOS=5
# (the fifth's submission after the blockers aged checks the comment too)
N_TESTS=$((1 + SCENARIOS * 7 + 1 + 4 + 3))
EXTRA_PROGS="scancel"
. "$top/tests/slurm/prelude.sh"
export D=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-vs.XXXXXX")
export CTLPORT=${CTLPORT:-$((16947 + ${GP_PORT_OFFSET:-0}))} BASEPORT=${BASEPORT:-$((18600 + ${GP_PORT_OFFSET:-0}))}
export N=12 LEAVES=3 WEIGHTS="10 1 10" NVL_NODES=2 RACK_NODES=6 RACK_KW="40 40"
export PLUGIN_DIR=$plugdir
unset JOB_SUBMIT SCHED_PARAMS SPANK_PLUGINS TELEMETRY_URL VALGRIND_LOG
export SLURM_CONF=$D/etc/slurm.conf
H="bash $top/tests/slurm/harness.sh"
. "$top/tests/slurm/lib.sh"
T0=$(date +%s)

cluster_up "cluster of 12 slurmd did not come up"
ok "12 slurmd up: 3 leaves x 4 nodes x 4 GPUs, Weights $WEIGHTS, NVLink domains of $NVL_NODES nodes, racks of $RACK_NODES"

# ---- the cluster as Slurm describes it ------------------------------------
# node -> its features (gpsw_ leaf, gpnvl_ NVLink domain, gprack_ rack)
declare -A FEAT
while read -r h f; do FEAT[$h]=$f; done < <(sinfo -h -N -o '%N %f')

hosts() { [ -n "$1" ] && scontrol show hostnames "$1" 2>/dev/null; }
# distinct features with prefix $2 over the nodes of host list $1 (in the
# shell: it runs a dozen times per judgement, and a pipeline per node made
# it a share of the test's CPU)
count() {
	local h f seen=" "
	for h in $(hosts "$1"); do
		for f in ${FEAT[$h]//,/ }; do
			case "$f" in "$2"*) case "$seen" in *" $f "*) ;; *) seen="$seen$f " ;; esac ;; esac
		done
	done
	set -- $seen
	echo $#
}
# has_feature NODE FEATURE: the node carries the feature
has_feature() { case ",${FEAT[$1]}," in *",$2,"*) return 0 ;; esac; return 1; }
# "L leaves, D domains, R racks" of a host list
shape() {
	local l d r
	l=$(count "$1" gpsw_) d=$(count "$1" gpnvl_) r=$(count "$1" gprack_)
	echo "$l $([ "$l" = 1 ] && echo -n leaf || echo -n leaves), $d domain$([ "$d" = 1 ] || echo -n s), $r rack$([ "$r" = 1 ] || echo -n s)"
}
same_hosts() { [ -n "$1" ] && [ "$(hosts "$1" | sort)" = "$(hosts "$2" | sort)" ]; }

# (running_on, lib.sh: a job's nodes once it runs, START_S at most;
# polled every 0.5 s: each poll is a command and an RPC, and with three
# clusters on the machine at once the polls were a large share of the
# suite's CPU)
RUNNING_S=$START_S RUNNING_EVERY=0.5
# wait until none of the given jobs (or no job at all) is pending, running
# or completing
wait_gone() {
	local t
	for t in $(seq 1 60); do
		if [ $# -gt 0 ]; then
			[ -z "$(squeue -h -t PD,R,CG -j "$(echo "$@" | tr ' ' ',')" -o %i 2>/dev/null)" ] && return 0
		else
			[ -z "$(squeue -h -t PD,R,CG -o %i 2>/dev/null)" ] && return 0
		fi
		sleep 0.5
	done
	return 1
}
# wait until all given jobs run; 0 if they do within 30 s
wait_running() {
	local t want=$# list
	list=$(echo "$@" | tr ' ' ',')
	for t in $(seq 1 60); do
		[ "$(squeue -h -t R -j "$list" -o %i 2>/dev/null | wc -l)" = "$want" ] && return 0
		sleep 0.5
	done
	return 1
}
# blockers SPEC MODE: occupancy "n1:4 n3:2 ..." as one job per node with
# --gpus=K (MODE=whole) or K one-GPU jobs (MODE=single); job ids on stdout
blockers() {
	local s k i
	for s in $1; do
		if [ "$2" = whole ]; then
			sbatch --parsable -J blk -w "${s%:*}" --gpus="${s#*:}" -o /dev/null --wrap='sleep 900'
		else
			for i in $(seq 1 "${s#*:}"); do
				sbatch --parsable -J blk -w "${s%:*}" --gpus=1 -o /dev/null --wrap='sleep 900'
			done
		fi
	done
}
plugin() {
	local out
	out=$($H plugin "$1" 2>&1) || { echo "# plugin $1 failed: $out"; return 1; }
}
# GPUs in use on a host list: "n1:4 n2:0"
busy_gpus() {
	local h
	for h in $(hosts "$1"); do
		echo -n "$h:$(scontrol show node -d "$h" | grep -o 'GresUsed=gpu:[^:]*:[0-9]*' | awk -F: '{ print $NF }') "
	done
}
# host list of the nodes carrying any alternative of constraint $1
with_features() {
	local h alt
	local alts=${1//[\[\]]/}
	for h in "${!FEAT[@]}"; do
		for alt in ${alts//|/ }; do
			has_feature "$h" "$alt" && { echo "$h"; break; }
		done
	done | sort -V | paste -sd,
}
# the nodes an AdminComment's decision names: PIN list, or empty
pin_of() { echo "$1" | sed -n 's/.*gpuplace: PIN \([^ ;]*\).*/\1/p'; }
cons_of() { echo "$1" | sed -n 's/.*gpuplace: CONSTRAIN \([^ ;]*\).*/\1/p'; }
# 0 when every node of host list $1 carries one and the same alternative of
# the matching-OR constraint $2 ("[a|b]" or a single feature)
inside_alternative() {
	local alt h all alts=${2//[\[\]]/}
	for alt in ${alts//|/ }; do
		all=1
		for h in $(hosts "$1"); do has_feature "$h" "$alt" || all=0; done
		[ $all = 1 ] && return 0
	done
	return 1
}

# ---- one scenario --------------------------------------------------------
# scenario WHEN NAME BLOCKERS "SBATCH ARGS" DISCRIMINATES AVOID_RACK [RACK_KW]
#   WHEN: "running" = the plugin-on job twice, blockers AGE s old and just
#   started (7 TAP lines); "startup" = once, at once after the plugin is
#   enabled on a cluster already in use (4 TAP lines).
#   DISCRIMINATES: shell condition on $stock that holds when stock Slurm's
#   choice is worse than what gpuplace can do (the scenario shows
#   something); AVOID_RACK: a gprack_ feature gpuplace must not use, or "".
scenario() {
	local when=$1 name=$2 spec=$3 args=$4 disc=$5 avoid=$6 kw=${7:-40 40}
	local ids s stock t_blk j from want
	RACK_KW=$kw $H gpuplace-conf 2>/dev/null
	plugin off
	ids=$(blockers "$spec" whole | tr '\n' ' ')
	wait_running $ids
	t_blk=$(date +%s)
	# stock Slurm: the same job with the plugin off
	s=$(sbatch --parsable -J stock $args -o /dev/null --wrap='sleep 120')
	stock=$(running_on "$s")
	check '[ -n "$stock" ] && eval "$disc"' \
		"$name: blockers not placed by gpuplace ($spec); stock Slurm: ${stock:-not started} ($(shape "$stock"))" \
		"stock job $s: $(squeue -h -j "$s" -o '%T %r %N')" "expected of stock: $disc"
	scancel "$s"
	wait_gone "$s"
	from=$(stat -c %s "$D/log/slurmctld.log")
	plugin on
	if [ "$when" = startup ]; then
		judge "$name, plugin just enabled" "$args" "$stock" "$avoid" "$from"
		scancel $ids $j
		wait_gone
		return
	fi
	while [ $(($(date +%s) - t_blk)) -lt "$AGE" ]; do sleep 0.5; done
	judge "$name, blockers ${AGE} s old" "$args" "$stock" "$avoid"
	# right after the blockers start: one-GPU -w jobs the plugin lets through
	scancel $ids $j
	wait_gone $ids $j
	ids=$(blockers "$spec" single | tr '\n' ' ')
	wait_running $ids
	# (d) only once the plugin has read the blockers: seconds after they
	# start its reading may not hold them all yet, nor the draw they add
	want=${WANT_COMMENT:-}
	WANT_COMMENT=
	judge "$name, blockers just started" "$args" "$stock" "$avoid"
	WANT_COMMENT=$want
	scancel $ids $j
	wait_gone
}

# judge LABEL "SBATCH ARGS" STOCK_NODES AVOID_RACK [LOG_FROM]: submits the
# job with the plugin on (job id left in $j) and prints assertions (a), (b),
# (c).  With LOG_FROM (a byte offset of slurmctld.log taken before the
# plugin was enabled) a job the plugin lets through unchanged also passes
# (b) when the plugin logged why exactly once since then.
judge() {
	local label=$1 args=$2 stock=$3 avoid=$4 from=${5:-} nodes ac pin cons st why="" cmp=1 f np
	j=$(sbatch --parsable -J gp $args -o /dev/null --wrap='sleep 120')
	nodes=$(running_on "$j")
	ac=$(scontrol show job "$j" | sed -n 's/^ *AdminComment=//p')
	pin=$(pin_of "$ac")
	cons=$(cons_of "$ac")
	st=$(squeue -h -j "$j" -o '%T %r' 2>/dev/null)
	# (a) at least as compact as stock Slurm, and off the rack near its cap
	if [ -n "$nodes" ] && [ -n "$stock" ]; then
		for f in gpsw_ gpnvl_ gprack_; do
			[ "$(count "$nodes" $f)" -le "$(count "$stock" $f)" ] || cmp=0
		done
		if [ -n "$avoid" ]; then
			for f in $(hosts "$nodes"); do has_feature "$f" "$avoid" && cmp=0; done
		fi
	else
		cmp=0
	fi
	check '[ $cmp = 1 ]' \
		"$label: stock ${stock:-not started} ($(shape "$stock")) | gpuplace ${nodes:-not started} ($(shape "$nodes"))${avoid:+, avoids $avoid}" \
		"gpuplace job $j: $st; AdminComment=$ac" \
		"$(grep "gpuplace" "$D/log/slurmctld.log" | tail -n 3)"
	# (b) runs where the comment says
	if [ -n "$pin" ]; then
		check 'same_hosts "$nodes" "$pin"' \
			"$label: runs exactly on its PIN ($pin: ran on ${nodes:-nothing yet})" \
			"AdminComment=$ac" "$(scontrol show job "$j" | grep -E 'ReqNodeList|NumNodes')"
	elif [ "$cons" = "none:" ]; then
		# no domain to keep it in (its set spans the whole cluster, or no
		# set, the reason after the colon): Slurm places it as it would
		# without the plugin, and (a) held it to stock's compactness
		check '[ -n "$nodes" ] && [ -n "$(echo "$ac" | sed -n "s/.*CONSTRAIN none: \([^;]*\).*/\1/p")" ]' \
			"$label: left to Slurm, the reason in its comment (ran on ${nodes:-nothing yet})" \
			"AdminComment=$ac" "$(scontrol show job "$j" | grep -E 'Features|NumNodes')"
	elif [ -n "$cons" ]; then
		check '[ -n "$nodes" ] && inside_alternative "$nodes" "$cons"' \
			"$label: runs inside its constraint ($cons: ran on ${nodes:-nothing yet})" \
			"AdminComment=$ac" "$(scontrol show job "$j" | grep -E 'Features|NumNodes')"
	elif [ -n "$from" ]; then
		np=$(tail -c +$((from + 1)) "$D/log/slurmctld.log" | grep -c 'gpuplace:.*pass.* unchanged')
		check '[ -n "$nodes" ] && [ "$np" = 1 ]' \
			"$label: no decision yet; passed unchanged with the reason logged $np time(s): $(tail -c +$((from + 1)) "$D/log/slurmctld.log" | grep -o 'gpuplace:.*pass.* unchanged.*' | head -n 1 | cut -c1-100)" \
			"AdminComment=${ac:-none}" "$(tail -c +$((from + 1)) "$D/log/slurmctld.log" | grep gpuplace | head -n 5)"
	else
		not_ok "$label: gpuplace recorded no PIN or CONSTRAIN (AdminComment=${ac:-none})"
		diag "$(grep "gpuplace" "$D/log/slurmctld.log" | tail -n 3)"
	fi
	# (c) no wait while stock Slurm's set (and a set the policy accepts) is free
	[ -n "$pin" ] && why="pinned nodes' GPUs in use: $(busy_gpus "$pin")"
	[ -n "$cons" ] && why="GPUs in use on the constraint's nodes: $(busy_gpus "$(with_features "$cons")")"
	check '[ -n "$nodes" ] || [ -z "$stock" ]' \
		"$label: starts without waiting (stock started at once; gpuplace: ${nodes:+started on }${nodes:-${st:-gone}})" \
		"$why" "$(scontrol show job "$j" | grep -E 'ReqNodeList|Features|Reason')"
	# (d) with WANT_COMMENT set: the comment says it (a fixed string)
	if [ -n "${WANT_COMMENT:-}" ]; then
		check 'echo "$ac" | grep -qF "$WANT_COMMENT"' \
			"$label: the comment says \"$WANT_COMMENT\"" "AdminComment=$ac"
	fi
}

# 1. the issue's fragmented leaves: an 8-GPU job; leaf C (n9, n10) holds it
#    whole, stock Slurm takes the free GPUs of the low-weight leaf B first
scenario running "fragmented leaves, --gpus=8" \
	"n1:4 n2:4 n3:2 n5:2 n6:4 n7:3 n8:4 n11:2 n12:4" "--gpus=8" \
	'[ "$(count "$stock" gpsw_)" -ge 2 ]' ""
# 2. fragmented NVLink domains: leaf B has 8 free GPUs over two domains,
#    domain nvlE (n9-n10) is whole; nvlA (n1-n2) is full
scenario running "fragmented NVLink domains, --gpus=8 fits one domain" \
	"n1:4 n2:4 n3:1 n4:1 n5:2 n6:2 n7:2 n8:2 n11:3 n12:1" "--gpus=8" \
	'[ "$(count "$stock" gpnvl_)" -ge 2 ]' ""
# 3. a rack near its power cap: rack B (n7-n12) draws 6 x 1 kW + 24 x 50 W
#    idle + 16 x 350 W = 12.8 kW of its 14 kW (13.3 kW after the 5 % margin):
#    even two more GPUs at full load do not fit; stock Slurm takes n7-n8
scenario running "rack near its power cap, --gpus=8" \
	"n1:2 n5:4 n6:4 n9:4 n10:4 n11:4 n12:4" "--gpus=8" \
	'hosts "$stock" | grep -qE "^n([7-9]|1[0-2])$"' gprack_rackB "40 14"
# 3b. racks past the knee: the blockers of 3, rack A capped at 15 kW.  It
#    draws 6 x 1 kW + 24 x 50 W idle + 10 x 350 W = 10.7 kW, room for the
#    job's 8 x 350 W under its 14.25 kW; rack B 12.8 kW as in 3.  Together
#    23.5 kW of 29 kW, 81 %: past the policy's knee (80 %), with no
#    PowerLicenses here, so the racks' limits are left out and the job is
#    placed as compactly as stock Slurm's, on the rack it picks if need be,
#    and its comment says why once the plugin has read the blockers
#    (cost_model/decide.c, gp__decide)
WANT_COMMENT="; the racks' limits left out: together they draw 81 % of them, past the policy's knee (80 %)"
scenario running "racks past the knee, --gpus=8" \
	"n1:2 n5:4 n6:4 n9:4 n10:4 n11:4 n12:4" "--gpus=8" \
	'hosts "$stock" | grep -qE "^n([7-9]|1[0-2])$"' "" "15 14"
WANT_COMMENT=
# 4. node weights that mislead stock Slurm: the low-weight leaf B offers two
#    whole nodes in two NVLink domains and two racks, nvlA (n1-n2) is whole
scenario running "weights mislead stock Slurm, -N2 --gpus-per-node=4" \
	"n3:1 n4:3 n6:4 n8:4 n9:1 n10:2 n11:4 n12:1" "-N2 --gpus-per-node=4" \
	'[ "$(count "$stock" gpnvl_)" -ge 2 ]' ""
# 5. the plugin enabled on a cluster already in use (the blockers of 1):
#    the first job is decided from the state Slurm shows, or passes with the
#    reason logged once
scenario startup "fragmented leaves, --gpus=8" \
	"n1:4 n2:4 n3:2 n5:2 n6:4 n7:3 n8:4 n11:2 n12:4" "--gpus=8" \
	'[ "$(count "$stock" gpsw_)" -ge 2 ]' ""
RACK_KW="40 40" $H gpuplace-conf 2>/dev/null
echo "# scenarios took $(($(date +%s) - T0)) s"

# ---- the burst -----------------------------------------------------------
# BURST submissions with the plugin on, one after another: 2-GPU jobs and
# every 5th an 8-GPU job (a PIN over two nodes).  Each job writes its
# node, GPU indices and start/end times; none may be lost and no GPU may
# be held by two jobs at once (sampled from scontrol show job -d while the
# burst runs, and from the jobs' own records).
mkdir -p "$D/burst"
t_b=$(date +%s.%N)
for i in $(seq 1 "$BURST"); do
	g=2; [ $((i % 5)) = 0 ] && g=8
	sbatch --parsable -J burst --gpus=$g -o "$D/burst/%j.out" \
		--wrap='echo "start $(date +%s.%N) $SLURMD_NODENAME $SLURM_JOB_GPUS"; sleep 1; echo "end $(date +%s.%N)"' \
		>>"$D/burst.ids" 2>>"$D/burst.err" || echo "submit $i failed" >>"$D/burst.err"
done
t_s=$(date +%s.%N)
# every (node, GPU index) held by a running job, one line each
seen=0 samples=0
: >"$D/overlap.txt"
# (until the queue is empty, at most 300 s: on a loaded 2-core machine the
# 500 one-second jobs took 100-140 s to run; a late job is not a lost one)
t=0 until=$((SECONDS + 300))
# (the queue polled every second and GPUs sampled every other poll: each
# poll is a command and an RPC, and the samples ran beside the jobs)
while [ $SECONDS -lt $until ]; do
	t=$((t + 1))
	left=$(squeue -h -t PD,R,CG -o %i 2>/dev/null | wc -l)
	[ "$left" = 0 ] && break
	if [ $((t % 2)) = 1 ]; then
		gpus_in_use >"$D/inuse.txt"
		seen=$((seen + $(wc -l <"$D/inuse.txt")))
		samples=$((samples + 1))
		sort "$D/inuse.txt" | uniq -d | sed 's/^/double-booked in a sample: /' >>"$D/overlap.txt"
	fi
	sleep 1
done
t_e=$(date +%s.%N)
submitted=$(grep -c '^[0-9]' "$D/burst.ids" 2>/dev/null || echo 0)
check '[ ! -s "$D/burst.err" ] && [ "$submitted" = "$BURST" ]' \
	"burst: $submitted of $BURST submissions accepted with the plugin on ($(echo "$BURST / ($t_s - $t_b)" | bc) jobs/s)" \
	"$(head -n 5 "$D/burst.err" 2>/dev/null)"
# the jobs' own records: every job ran to its end
ran=$(grep -l '^end ' "$D"/burst/*.out 2>/dev/null | wc -l)
check '[ "$left" = 0 ] && [ "$ran" = "$BURST" ]' \
	"burst: none lost, $ran of $BURST jobs ran to their end in $(printf '%.0f' "$(echo "$t_e - $t_s" | bc)") s ($left left in the queue)" \
	"$(squeue -h -o '%i %T %r %N' | head -n 5)"
# same GPU of the same node in two jobs whose run times overlap
awk '/^start / { s = $2; node = $3; gpus = $4 } /^end / { n = split(gpus, g, ","); for (i = 1; i <= n; i++) print node ":" g[i], s, $2, FILENAME }' \
	"$D"/burst/*.out 2>/dev/null | sort -k1,1 -k2,2g | awk '
	$1 == k && $2 < e { print "double-booked: " $1 " in " f " and " $4 }
	{ if ($1 != k || $3 > e) { e = $3; f = $4 }; k = $1 }' >>"$D/overlap.txt"
check '[ ! -s "$D/overlap.txt" ] && [ "$seen" -gt 0 ]' \
	"burst: no GPU double-booked ($samples samples, $seen GPU allocations sampled; $ran jobs' own records)" \
	"$(head -n 5 "$D/overlap.txt")"
echo "# whole script took $(($(date +%s) - T0)) s"
