#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm_steer.sh - job_submit/gpuplace beyond the submission, in a real
# slurmctld with 8 slurmd and fake GPUs (tests/slurm/harness.sh: two leaves
# and racks of 4 nodes x 4 GPUs):
#   - advance reservations: the issue's case (n[1-6] reserved for another
#     user, an 8-GPU job must not be pinned there), a reservation that
#     starts during the job's run, and a job with --reservation placed
#     inside its reservation;
#   - steering: a pending job whose pinned nodes were taken starts
#     elsewhere, a running job is never moved, a constrained job waits
#     through Slurm's --switches=1@max-time and starts on the compact set
#     when it frees, or is steered to a spread set (dropping the switch
#     count) when it does not free in the predicted wait, a burst of
#     BURST (100) submissions while steering loses nothing and double-books no GPU;
#   - a license the job waits for, --exclusive=user and =mcs respected;
#   - a new job is kept off the nodes Slurm's backfill planned for a job
#     that waits before it;
#   - a planned GPU power cap reaches the GPUs: Prolog/Epilog are
#     etc/prolog/gpuplace-powercap with a recording stand-in for
#     nvidia-smi, and the prolog must set the cap written in the job's
#     comment on exactly the job's GPUs of each of its nodes, the epilog
#     restore the default;
#   - chaining: with JobSubmitPlugins=lua,gpuplace, what job_submit/lua
#     wrote into the AdminComment stays after gpuplace's decision and after
#     steering, and the user's --comment is never touched.
# Waits follow what the plugin reports (its "cluster state read" lines at
# SlurmctldDebug=debug, tests/slurm/lib.sh plugin_read), and assertions
# check outcomes (where a job runs, whether it started), which hold on a
# loaded machine, where a PIN may become a CONSTRAIN because the state is
# older than 5 s when the job comes.
# Prints TAP; skips when not root or Slurm is missing.  GP_KEEP=1 keeps
# the cluster directory (logs) after the run; BURST (100) sets the burst's
# size (2-GPU jobs of 2 s on 32 GPUs: every GPU is taken and freed
# several times while steering passes run).
set -u
BURST=${BURST:-100}
top=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
N_TESTS=24
. "$top/tests/slurm/prelude.sh"

export D=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-steer.XXXXXX")
chmod 755 "$D"
export CTLPORT=${CTLPORT:-$((16977 + ${GP_PORT_OFFSET:-0}))} BASEPORT=${BASEPORT:-$((18200 + ${GP_PORT_OFFSET:-0}))}
export JOB_SUBMIT=gpuplace PLUGIN_DIR=$plugdir SPANK_PLUGINS=$plugdir/spank_gpuplace.so
# (bf_interval: Slurm's backfill plans a waiting job every 2 s, not 30,
# so its SchedNodeList shows soon; slurm.conf(5))
export SCHED_PARAMS=gpuplace_allow_power_cap=yes,bf_interval=2 LICENSES=lic:1
# the plugin's readings of the cluster state are logged at debug
export CTLDEBUG=debug
# MCS labels by user, given only to jobs that ask (--exclusive=mcs), whose
# nodes then take only jobs of the same label (slurm.conf(5), MCSParameters)
export MCS_PLUGIN=mcs/user MCS_PARAMS=ondemand,select
export SLURM_CONF=$D/etc/slurm.conf
# the prolog and epilog as a site installs them, with the recording
# nvidia-smi stand-in named through GPUPLACE_NVIDIA_SMI (slurmd runs
# Prolog/Epilog with a minimal environment, so a wrapper sets it)
mkdir -p "$D/bin"
cat >"$D/bin/nvidia-smi" <<SMI
#!/bin/sh
# an A100 SXM4's limits (100-400 W, default 400 W); power.limit reads back
# the last limit set on that GPU of that node
echo "job=\${SLURM_JOB_ID:-} node=\${SLURMD_NODENAME:-} \$*" >>"$D/smi.calls"
g=0
[ "\$1" = -i ] && g=\$2
f="$D/smi.limit.\${SLURMD_NODENAME:-x}.\$g"
case "\$*" in
*power.min_limit*) echo "100.00, 400.00, 400.00" ;;
*power.default_limit*) echo "400.00" ;;
*power.limit*) cat "\$f" 2>/dev/null || echo "400.00" ;;
*-pl*) for w; do :; done; printf '%s.00\n' "\$w" >"\$f" ;;
esac
exit 0
SMI
# (every job of the test runs them, except the burst's (8 below) while
# $D/prolog.off exists: the script's path for a job without a cap, which
# reads the job with scontrol, is run by every other job here, and the
# burst's prologs and epilogs were about 60 CPU-s, half of the test's CPU)
for m in prolog epilog; do
	cat >"$D/bin/gpuplace-powercap-$m" <<WRAP
#!/bin/sh
[ -e $D/prolog.off ] && exit 0
GPUPLACE_NVIDIA_SMI=$D/bin/nvidia-smi exec /bin/sh $top/etc/prolog/gpuplace-powercap $m 2>>$D/powercap.log
WRAP
done
chmod 755 "$D/bin"/*
export PROLOG=$D/bin/gpuplace-powercap-prolog EPILOG=$D/bin/gpuplace-powercap-epilog
H="bash $top/tests/slurm/harness.sh"
. "$top/tests/slurm/lib.sh"

cluster_up "cluster with job_submit/gpuplace did not come up"
plugin_read # the plugin's first reading of the state

# (running_on, lib.sh: a job's nodes once it runs, 15 s at most unless
# told, polled every 0.5 s: each poll is a command and an RPC)
RUNNING_S=15 RUNNING_EVERY=0.5
show() { scontrol show job "$1" | grep -E 'JobState|AdminComment|ReqNodeList|NodeList|Reason' | tr -s ' ' | head -n 6; }
# every job gone and every node done completing (sinfo's state idle, not
# completing), then a reading of the plugin with no job running: the next
# scenario starts from an idle cluster as the plugin sees it
clean() {
	local t
	scancel -u root
	scancel -u daemon 2>/dev/null
	for t in $(seq 1 40); do [ "$(squeue -h | wc -l)" = 0 ] && break; sleep 0.25; done
	for t in $(seq 1 80); do
		[ -z "$(sinfo -h -N -o %T | grep -v -x -e idle -e reserved)" ] && break
		sleep 0.25
	done
	plugin_read "[0-9]+ nodes, 0 running jobs"
}
# decided JOB NODES: gpuplace placed the job on NODES: PINned there, or,
# when the state was too old to pin (a loaded machine), CONSTRAINed with
# NODES as the best free set; where it runs is checked apart
decided() {
	scontrol show job "$1" | grep -qF -e "AdminComment=gpuplace: PIN $2;" \
		-e "best free set $2 not pinned"
}

# 1. the compact set does not free when predicted: n[1-3] and n[5-7]
#    full, n4 and n8 free; the blockers' 1-minute limits give a 1-minute
#    predicted wait, so the 8-GPU job waits through --switches for one
#    leaf (as in 7 below), and then their owner extends them.  Once the
#    predicted wait has passed, steering PINs the job to the spread n[4,8],
#    and the same update drops the --switches count, so it starts at once
#    rather than when Slurm's max-time (300 s) runs out.  First, on the
#    fresh cluster: right after other jobs were cancelled, a node may still
#    count as busy for a moment, and the job is then CONSTRAINed to a
#    domain (no switch count) until the next steering pass
# (a 7e9-parameter job with 0.5 s of compute per step: 12 % slower when
# spread over two leaves, so a 60-minute job gains 0.79 GPU-h by waiting
# 60 s against the 0.10 GPU-h the jobs behind it wait; 10 minutes would
# cost more than it gains: `gpuplace place` on this cluster prints both)
fill_but_n4_n8 ext 1
t0=$SECONDS
j=$(sbatch --parsable --gpus=8 --gpuplace=params=7e9,step_s=0.5 -t 60 -o /dev/null --wrap='sleep 300')
sleep 3
sw0=$(scontrol show job "$j" | grep -o 'Switches=[^ ]*')
cm0=$(scontrol show job "$j" | grep -o "AdminComment=.*")
for b in $(squeue -h -n ext1,ext2,ext3,ext5,ext6,ext7 -o %i); do scontrol update jobid="$b" TimeLimit=10; done
nodes=$(running_on "$j" 150)
took=$((SECONDS - t0))
sw1=$(scontrol show job "$j" | grep -o 'Switches=[^ ]*')
check 'echo "$sw0" | grep -q "^Switches=1@" && [ "$nodes" = "n[4,8]" ] && [ "$took" -lt 150 ] && ! echo "$sw1" | grep -q "^Switches=1@" && scontrol show job "$j" | grep -qF "AdminComment=gpuplace: PIN n[4,8]; exactly 2 nodes; steered while pending: "' \
	"a --switches job whose compact set does not free in its predicted wait is steered to the spread n[4,8] and starts ${took} s after submission, not at Slurm's max-time ($sw0 -> $sw1, $nodes)" "at submission: $cm0" "$(show "$j")"
# let it get past its prolog (the power-cap prolog) before it is cancelled:
# a job killed while its prolog runs leaves its nodes looking busy to the
# plugin for some seconds, and the next scenario expects an idle cluster
sleep 3
clean

# 2. the issue's case: n[1-6] reserved now for another user; an 8-GPU job
#    must start on n[7-8], not be pinned into the reservation (PINned to
#    n[7-8], or, on a state the plugin read while the last scenario's
#    nodes were still completing, CONSTRAINed to domains that Slurm then
#    fills outside the reservation)
scontrol create reservation reservationname=other users=daemon nodes='n[1-6]' starttime=now duration=60 >/dev/null
plugin_read "[0-9]+ nodes, 0 running jobs, 1 reservations"
j=$(sbatch --parsable --gpus=8 -o /dev/null --wrap='sleep 300')
nodes=$(running_on "$j" 60)
check '[ "$nodes" = "n[7-8]" ] && scontrol show job "$j" | grep -q "AdminComment=gpuplace: " && ! scontrol show job "$j" | grep -q "AdminComment=gpuplace: PIN n\[[1-6]"' \
	"n[1-6] reserved for another user: the 8-GPU job is not pinned into the reservation and runs on n[7-8] ($nodes)" "$(show "$j")"
clean
scontrol delete reservation=other

# 3. a reservation that starts during the job's run: n[5-6] reserved from
#    10 minutes on; n[1-4] busy (jobs placed by hand); a 60-minute 8-GPU job
#    must not be pinned to n[5-6], where Slurm would hold it
scontrol create reservation reservationname=later users=daemon nodes='n[5-6]' starttime=now+600 duration=60 >/dev/null
for i in 1 2 3 4; do sbatch -Q -w n$i --gpus=4 -o /dev/null --wrap='sleep 300'; done
for t in $(seq 1 240); do [ "$(squeue -h -t R | wc -l)" = 4 ] && break; sleep 0.25; done
plugin_read "[0-9]+ nodes, 4 running jobs, 1 reservations"
j=$(sbatch --parsable --gpus=8 -t 60 -o /dev/null --wrap='sleep 300')
# (60 s: decided on a reading where n7 or n8 still looked busy, the job
# waits CONSTRAINed until the steering pass re-decides it, one steering
# interval, 30 s, later; on failure the plugin's decision line says why)
nodes=$(running_on "$j" 60)
check '[ "$nodes" = "n[7-8]" ]' \
	"a reservation starting during the job's run keeps it off n[5-6]: runs on $nodes" "$(show "$j")" \
	"$(grep -F "gpuplace: job" "$D/log/slurmctld.log" | grep -F "(why: " | tail -n 2 | cut -c1-700)"
# a 5-minute job ends before it: n[5-6] are fine (lower node order)
k=$(sbatch --parsable --gpus=8 -t 5 -o /dev/null --wrap='sleep 300')
nodes=$(running_on "$k")
check '[ "$nodes" = "n[5-6]" ]' "a job that ends before the reservation starts may use its nodes: $nodes" "$(show "$k")"
clean
scontrol delete reservation=later

# 4. a job with --reservation is placed inside its reservation's nodes
scontrol create reservation reservationname=mine users=root nodes='n[3-6]' starttime=now duration=60 >/dev/null
plugin_read "[0-9]+ nodes, 0 running jobs, 1 reservations"
j=$(sbatch --parsable --reservation=mine --gpus=8 -o /dev/null --wrap='sleep 300')
nodes=$(running_on "$j" 60)
check 'in_range "$nodes" 3 6 && scontrol show job "$j" | grep -Eq "AdminComment=gpuplace: (PIN|CONSTRAIN) .*inside reservation mine"' \
	"a job with --reservation=mine is placed by gpuplace inside n[3-6]: $nodes" "$(show "$j")"
# the same leaf is preferred: n[3-4] or n[5-6], not one of each
check '[ "$nodes" = "n[3-4]" ] || [ "$nodes" = "n[5-6]" ]' "inside the reservation it stays in one leaf ($nodes)"
clean
scontrol delete reservation=mine

# 5. steering a pending job whose pinned nodes were taken: a held 8-GPU
#    job is PINned to a free pair; a job submitted with -w takes one of
#    those nodes; released, the job must start elsewhere at once rather
#    than wait for them
j=$(sbatch --parsable --hold --gpus=8 -t 60 -o /dev/null --wrap='sleep 300')
pin=$(scontrol show job "$j" | sed -n 's/.*ReqNodeList=\([^ ]*\).*/\1/p')
first=$(scontrol show hostnames "$pin" | head -n 1)
b=$(sbatch --parsable -w "$first" --gpus=4 -o /dev/null --wrap='sleep 300')
running_on "$b" >/dev/null
scontrol release "$j"
nodes=$(running_on "$j")
[ -n "$nodes" ] || { sleep 10; nodes=$(running_on "$j"); }
check '[ -n "$nodes" ] && ! scontrol show hostnames "$nodes" | grep -qx "$first" && scontrol show job "$j" | grep -qF "AdminComment=gpuplace: PIN $nodes; exactly 2 nodes; steered while pending: its pinned nodes were taken; step "' \
	"a pinned job whose node $first was taken is steered and starts elsewhere: $pin -> $nodes" "$(show "$j")"
# a job someone else changed while it pends is no longer steered: what
# gpuplace kept of the user's request may not be it any more
k=$(sbatch --parsable --hold --gpus=8 -t 60 -o /dev/null --wrap='sleep 300')
kpin=$(scontrol show job "$k" | sed -n 's/.*ReqNodeList=\([^ ]*\).*/\1/p')
sleep 3 # the steering pass learns its job id
scontrol update jobid="$k" TimeLimit=50
kb=$(sbatch --parsable -w "$(scontrol show hostnames "$kpin" | head -n 1)" --gpus=4 -o /dev/null --wrap='sleep 300')
running_on "$kb" >/dev/null
scontrol release "$k"
sleep 8
check '[ "$(squeue -h -j "$k" -o %T)" = PENDING ] && ! scontrol show job "$k" | grep -q "steered while pending"' \
	"a pending job changed by scontrol update is left alone (still pinned to $kpin, pending)" "$(show "$k")"
scancel "$k" "$kb"

# 6. a job is never moved once running: after several refreshes its nodes
#    and comment are those it started with
c0=$(scontrol show job "$j" | grep -o 'AdminComment=.*')
sleep 6
check '[ "$(running_on "$j")" = "$nodes" ] && [ "$(scontrol show job "$j" | grep -o "AdminComment=.*")" = "$c0" ]' \
	"a running job is never moved ($nodes, comment unchanged)" "$(show "$j")"
clean

# 7. a constrained job starts on the compact set when it frees: n[1-3] and
#    n[5-7] full, n4 and n8 free (8 GPUs, but in two leaves): the 8-GPU job
#    waits for one leaf; when n3's job ends it runs on n[3-4]
# (the blockers' 5-minute limit lets gpuplace predict the wait: 5 min
# against a 2-hour job 12 % slower when spread saves 1.18 GPU-h against
# the 0.50 GPU-h the jobs behind it wait, and would pay up to about 430 s)
fill_but_n4_n8 blk 5
j=$(sbatch --parsable --gpus=8 --gpuplace=params=7e9,step_s=0.5 -t 120 -o /dev/null --wrap='sleep 300')
sleep 4
st=$(squeue -h -j "$j" -o '%T %N')
sw=$(scontrol show job "$j" | grep -o 'Switches=[^ ]*')
cm=$(scontrol show job "$j" | grep -o 'AdminComment=gpuplace: CONSTRAIN --switches=[0-9]*@[0-9]* s')
cap=0; scontrol show job "$j" | grep -q "waiting would pay up to [0-9]* s, but Slurm's max_switch_wait is 300 s" && cap=1
scancel -n blk3
t0=$SECONDS
# Slurm alone starts a job waiting for a switch count at sched/backfill's
# next pass (bf_interval, 30 s by default); gpuplace's steering PINs it to
# the compact set at its next refresh (2 s), so it starts within seconds
nodes=$(running_on "$j" 15)
took=$((SECONDS - t0))
check '[ "${st%% *}" = PENDING ] && [ "$nodes" = "n[3-4]" ] && scontrol show job "$j" | grep -qF "AdminComment=gpuplace: PIN n[3-4]; exactly 2 nodes; steered while pending: "' \
	"a constrained job waits rather than spread over n[4,8] ($st) and is steered to the compact n[3-4] when it frees ($nodes, ${took} s later)" "$(show "$j")"
# topology/tree and one Weight for all nodes: the wait goes through Slurm's
# own --switches=1@max-time, max-time from the predicted gain (about 430 s here),
# cut to what Slurm grants (max_switch_wait, 300 s by default): Slurm holds
# the job to exactly the time gpuplace states
secs=${cm##*@}; secs=${secs% s}
hms=${sw#*@}
slurm_s=$(echo "$hms" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
check '[ -n "$cm" ] && echo "$sw" | grep -q "^Switches=1@" && [ "$secs" = 300 ] && [ "$slurm_s" = "$secs" ] && [ "$cap" = 1 ]' \
	"the wait is Slurm's --switches, capped at its max_switch_wait: $sw, ${cm#AdminComment=} (Slurm: $slurm_s s)" "$(show "$j")"
clean

# 7b. the same job, held, then told to exclude n8: an update of where it
#     may run gives back the user's own node list and constraint, and
#     drops the --switches count gpuplace set, which would hold it for one
#     leaf of its old bounds for up to max_switch_wait (300 s)
#     First, the blockers: 7's job, steered to n[3-4], ran there and
#     was cancelled within seconds; its booking must not outlive it (it
#     was kept 10 s after the move, as its job, submitted earlier, was not
#     looked for in the job list): the job asking for n3 is placed there
fill_but_n4_n8 blk 5
b3=$(squeue -h -n blk3 -o %i)
check 'decided "$b3" n3' "right after a steered job ran on n[3-4] and ended, a job asking for n3 is placed there" \
	"$(show "$b3")"
j=$(sbatch --parsable --hold --gpus=8 --gpuplace=params=7e9,step_s=0.5 -t 120 -o /dev/null --wrap='sleep 300')
sleep 2
sw0=$(scontrol show job "$j" | grep -o 'Switches=[^ ]*')
sw1=$sw0
for t in $(seq 1 10); do
	scontrol update jobid="$j" ExcNodeList=n8
	sw1=$(scontrol show job "$j" | grep -o 'Switches=[^ ]*')
	echo "$sw1" | grep -q "^Switches=1@" || break
	sleep 1
done
if echo "$sw0" | grep -q "^Switches=1@"; then
	check '! echo "$sw1" | grep -q "^Switches=1@"' \
		"an update of where a job waiting through gpuplace's --switches may run drops the count ($sw0, then ${sw1:-none})" \
		"$(show "$j")"
else
	skip "the held job was not decided to wait through --switches (a loaded machine): $(show "$j" | tr '\n' ' ')"
fi
clean

# 8. a burst of BURST submissions while steering: all accepted, no GPU
#    double-booked, none lost (the power-cap prolog and epilog skipped:
#    $D/prolog.off, above)
: >"$D/burst.err"
: >"$D/prolog.off"
for i in $(seq 1 "$BURST"); do
	sbatch -Q --gpus=2 -o /dev/null --wrap='sleep 2' || echo "submit $i failed" >>"$D/burst.err"
done
: >"$D/overlap.txt"
seen=0 steered=0
for sample in 1 2 3 4 5 6; do
	gpus_in_use >"$D/inuse.txt"
	seen=$((seen + $(wc -l <"$D/inuse.txt")))
	sort "$D/inuse.txt" | uniq -d | sed 's/^/double-booked /' >>"$D/overlap.txt"
	steered=$((steered + $(scontrol show job 2>/dev/null | grep -c 'steered while pending')))
	sleep 3
done
# (on a loaded machine slurmd may time out a launch and Slurm requeues the
# job: it is late, not lost, so the wait is generous)
for t in $(seq 1 300); do [ "$(squeue -h 2>/dev/null | wc -l)" = 0 ] && break; sleep 1; done
left=$(squeue -h | wc -l)
rm -f "$D/prolog.off"
check '[ ! -s "$D/burst.err" ] && [ ! -s "$D/overlap.txt" ] && [ "$seen" -gt 0 ] && [ "$left" = 0 ]' \
	"a burst of $BURST submissions while steering: all accepted and run, none left, no GPU double-booked ($seen GPU allocations sampled, $steered steered-job sightings)" \
	"$(cat "$D/burst.err" "$D/overlap.txt" 2>/dev/null | head -n 5)" "$left left"
clean

# 9. what the user required stays: a license held elsewhere keeps the job
#    pending for it (Reason=Licenses) with its license, and it starts once
#    the license is free; --exclusive=user keeps a job off a node where
#    another user's job runs
l=$(sbatch --parsable -L lic:1 -o /dev/null --wrap='sleep 300')
j=$(sbatch --parsable -L lic:1 --gpus=8 -o /dev/null --wrap='sleep 300')
sleep 3
st=$(squeue -h -j "$j" -o '%T %r')
lic=$(scontrol show job "$j" | grep -o 'Licenses=[^ ]*')
scancel "$l"
nodes=$(running_on "$j" 50)
check '[ "$st" = "PENDING Licenses" ] && [ "$lic" = "Licenses=lic:1" ] && [ -n "$nodes" ] && scontrol show job "$j" | grep -q "AdminComment=gpuplace: "' \
	"a job waiting for its license keeps it ($st, $lic) and runs once it is free ($nodes)" "$(show "$j")"
clean
# Another user's jobs: one GPU on n1, and one CPU but no GPU on n2 (a node
# all of whose GPUs are free is still not idle).  Both must be running
# before the exclusive job is submitted: the nodes may still be completing
# the jobs just cancelled, and a loaded machine may take a while.
# (the other user must reach the cluster's directory, where slurmd keeps
# its batch scripts: a TMPDIR only root may enter ends their jobs at launch)
if runuser -u daemon -- test -x "$D" 2>/dev/null; then
	o=$(sbatch --parsable --uid=daemon -w n1 --gpus=1 -o /dev/null --wrap='sleep 300')
	c=$(sbatch --parsable --uid=daemon -w n2 -n 1 -o /dev/null --wrap='sleep 300')
	onodes=$(running_on "$o" 60)
	cnodes=$(running_on "$c" 60)
	plugin_read "[0-9]+ nodes, 2 running jobs"
	j=$(sbatch --parsable --exclusive=user --gpus=2 -o /dev/null --wrap='sleep 300')
	nodes=$(running_on "$j")
	check '[ "$onodes" = n1 ] && [ "$cnodes" = n2 ] && [ -n "$nodes" ] && ! scontrol show hostnames "$nodes" | grep -qx "n[12]"' \
		"--exclusive=user: not placed beside another user's GPU job on n1 nor CPU-only job on n2 (theirs on ${onodes:-nothing yet} and ${cnodes:-nothing yet}, this one on $nodes)" "$(show "$j")" "$(show "$o")"
	# --exclusive=mcs (mcs/user: the label is the user's name) beside the same
	# jobs of another user
	m=$(sbatch --parsable --exclusive=mcs --gpus=2 -o /dev/null --wrap='sleep 300')
	mnodes=$(running_on "$m")
	label=$(scontrol show job "$m" | grep -o 'MCS_label=[^ ]*')
	check '[ "$onodes" = n1 ] && [ "$cnodes" = n2 ] && [ -n "$mnodes" ] && [ "$label" = MCS_label=root ] && ! scontrol show hostnames "$mnodes" | grep -qx "n[12]" && decided "$m" "$mnodes"' \
		"--exclusive=mcs: placed away from the other label's jobs on n1 and n2 (runs on ${mnodes:-nothing yet}, $label)" "$(show "$m")"
else
	skip "--exclusive=user: user daemon cannot enter $D (TMPDIR=${TMPDIR:-/tmp} is closed to other users)"
	skip "--exclusive=mcs: user daemon cannot enter $D (TMPDIR=${TMPDIR:-/tmp} is closed to other users)"
fi
clean

# 10. chaining: job_submit/lua before gpuplace writes the AdminComment of
#     jobs whose --comment is "chain"; gpuplace's decision and a steering
#     move replace only gpuplace's part of it (doc/gpuplace.conf.5)
cat >"$D/etc/job_submit.lua" <<'LUA'
function slurm_job_submit(job_desc, part_list, submit_uid)
	if job_desc.comment == "chain" then
		job_desc.admin_comment = "lua: project=chain tier=2"
	end
	return slurm.SUCCESS
end
function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
	return slurm.SUCCESS
end
LUA
JOB_SUBMIT=lua,gpuplace $H plugin on 2>>"$D.up.log"
plugin_read
j=$(sbatch --parsable --hold --comment=chain --gpus=8 -t 60 -o /dev/null --wrap='sleep 300')
ac0=$(scontrol show job "$j" | sed -n 's/^ *AdminComment=//p' | sed 's/ *$//')
ucm=$(scontrol show job "$j" | grep -Eo "(^| )Comment=[^ ]*" | sed 's/^ *Comment=//')
check 'echo "$ac0" | grep -Eq "^lua: project=chain tier=2 gpuplace: (PIN|CONSTRAIN) .*; ref [0-9]+$" && [ "$ucm" = chain ]' \
	"job_submit/lua's AdminComment stays before gpuplace's part after the decision, --comment untouched: $ac0" "$(show "$j")"
# steer it: its first pinned node taken, then released (as in 5)
pin=$(scontrol show job "$j" | sed -n 's/.*ReqNodeList=\([^ ]*\).*/\1/p')
first=$(scontrol show hostnames "$pin" | head -n 1)
b=$(sbatch --parsable -w "${first:-n1}" --gpus=4 -o /dev/null --wrap='sleep 300')
running_on "$b" 60 >/dev/null
scontrol release "$j"
nodes=$(running_on "$j" 60)
ac1=$(scontrol show job "$j" | sed -n 's/^ *AdminComment=//p' | sed 's/ *$//')
# (PINned at submission, it must have been steered; CONSTRAINed there, on
# a loaded machine, Slurm may start it in its domain before any steering)
want="PIN [^;]*; exactly 2 nodes; steered while pending: "
[ -n "$pin" ] || want="(PIN|CONSTRAIN) "
check '[ -n "$nodes" ] && echo "$ac1" | grep -Eq "^lua: project=chain tier=2 gpuplace: $want.*; ref [0-9]+$" && [ "${ac1##*; ref }" = "${ac0##*; ref }" ]' \
	"after steering ($pin -> $nodes) the lua text is still there and gpuplace's part was replaced in place: $ac1" "$(show "$j")"
clean

# 11. a new job is not PINned onto nodes Slurm's backfill has planned for
#     a job that waits before it (its SchedNodeList, which the plugin reads
#     with the job list): n[1-4] run 10-minute jobs; a 24-GPU job waits for
#     them, planned on n[1-4] and two of n[5-8]; an 8-GPU 60-minute job
#     submitted then could not start on those two before the planned
#     start, so it is PINned to the other two at submission (not steered
#     there later) and starts at once
for i in 1 2 3 4; do sbatch -Q -w "n$i" --gpus=4 -t 10 -o /dev/null -J "pl$i" --wrap='sleep 300'; done
for t in $(seq 1 80); do [ "$(squeue -h -t R -n pl1,pl2,pl3,pl4 | wc -l)" = 4 ] && break; sleep 0.25; done
b=$(sbatch --parsable --gpus=24 -t 60 -o /dev/null --wrap='sleep 300')
plan=
for t in $(seq 1 120); do
	plan=$(scontrol show job "$b" | sed -n 's/.*SchedNodeList=\([^ ]*\).*/\1/p')
	[ -n "$plan" ] && [ "$plan" != "(null)" ] && break
	plan=
	sleep 0.25
done
# two readings after the plan shows: the second reads the whole job list
# (the plugin re-reads it once per bf_interval while jobs pend: Slurm
# plans without marking the list changed)
plugin_read "[0-9]+ nodes, 4 running jobs"
plugin_read "[0-9]+ nodes, 4 running jobs"
c=$(sbatch --parsable --gpus=8 -t 60 -o /dev/null --wrap='sleep 300')
nodes=$(running_on "$c")
check '[ -n "$plan" ] && [ -n "$nodes" ] && ! scontrol show hostnames "$nodes" | grep -qxF -f <(scontrol show hostnames "$plan") && decided "$c" "$nodes" && ! scontrol show job "$c" | grep -q "steered while pending"' \
	"a job submitted while Slurm plans $plan for a job ahead is PINned off those nodes at submission and starts at once on $nodes" \
	"$(show "$c")" "$(show "$b")"
clean

# 12. a power cap reaches the GPUs: both racks near their cap (6 kW: 4 nodes
#    x 1 kW + 16 idle GPUs x 50 W = 4.8 kW, less the 5 % margin leaves
#    ~900 W each), so a 4-GPU job (4 x 350 W above idle) runs only
#    capped; the prolog must set that cap on the job's GPUs
sed -i 's/^\(Rack=rack[AB] .*\)PowerCapKW=[0-9]*/\1PowerCapKW=6/' "$D/etc/gpuplace.conf"
for t in $(seq 1 40); do [ "$(grep -c 'gpuplace: configuration reloaded' "$D/log/slurmctld.log")" -ge 1 ] && break; sleep 0.25; done
plugin_read "[0-9]+ nodes, 0 running jobs"
: >"$D/smi.calls"
j=$(sbatch --parsable --gpus=4 --gpuplace=params=1e9 -o "$D/out/cap.out" --wrap='env | grep ^GPUPLACE_POWER; sleep 4')
nodes=$(running_on "$j")
cap=$(scontrol show job "$j" | sed -n 's/.*AdminComment=.*gpuplace:.*; cap \([0-9]*\) W.*/\1/p')
check '[ -n "$cap" ] && [ "$cap" -ge 200 ] && [ "$cap" -lt 400 ] && [ -n "$nodes" ]' \
	"the engine plans a power cap for the tight racks: $cap W, on $nodes" "$(show "$j")"
for t in $(seq 1 40); do [ "$(grep -c "job=$j .* -pl $cap" "$D/smi.calls" 2>/dev/null)" -ge 4 ] && break; sleep 0.25; done
# every (node, GPU) of the job, from Slurm, against the stand-in's record
want=$(scontrol show job -d "$j" | awk '/^ +Nodes=.*IDX:/ {
		match($0, /Nodes=[^ ]+/); nodes = substr($0, RSTART + 6, RLENGTH - 6)
		match($0, /IDX:[^)]+/); print nodes, substr($0, RSTART + 4, RLENGTH - 4) }' |
	while read -r hl idx; do for h in $(scontrol show hostnames "$hl"); do
		echo "$idx" | tr ',' '\n' | while IFS=- read -r a b; do for g in $(seq "$a" "${b:-$a}"); do echo "$h $g"; done; done
	done; done | sort)
got=$(sed -n "s/^job=$j node=\([^ ]*\) -i \([0-9]*\) -pl $cap\$/\1 \2/p" "$D/smi.calls" | sort)
check '[ -n "$want" ] && [ "$want" = "$got" ]' \
	"the prolog set the planned $cap W on exactly the job's GPUs ($(echo "$got" | wc -l) GPUs on $(echo "$got" | cut -d" " -f1 | sort -u | tr '\n' ' '))" \
	"Slurm: $(echo $want)" "stand-in: $(echo $got)" "$(cat "$D/powercap.log" 2>/dev/null | tail -n 3)"
for t in $(seq 1 60); do [ "$(grep -c "job=$j .* -pl 400" "$D/smi.calls" 2>/dev/null)" -ge 4 ] && break; sleep 0.25; done
check '[ "$(grep -c "job=$j .* -pl 400$" "$D/smi.calls")" = "$(echo "$want" | wc -l)" ]' \
	"the epilog restored the default 400 W on each of them" "$(grep "job=$j" "$D/smi.calls" | tail -n 4)"
check 'grep -q "^GPUPLACE_POWER_CAP_W=$cap$" "$D/out/cap.out"' \
	"the batch job sees its cap in GPUPLACE_POWER_CAP_W" "$(cat "$D/out/cap.out" 2>/dev/null)"
clean
