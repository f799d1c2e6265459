#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm_plugin.sh - job_submit/gpuplace and the SPANK options in a real
# slurmctld with 8 slurmd and fake GPUs (tests/slurm/harness.sh): two leaves,
# two NVLink domains, two racks, rack A capped so low it can take no GPU
# load, and a rack power telemetry source that is down (connection refused).  Each scenario asserts where jobs land with squeue/scontrol.
# Prints TAP; skips when not root or Slurm is missing.
set -u
top=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
N_TESTS=22
BURST=${BURST:-100}
. "$top/tests/slurm/prelude.sh"

export D=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-plugin.XXXXXX")
export CTLPORT=${CTLPORT:-$((16957 + ${GP_PORT_OFFSET:-0}))} BASEPORT=${BASEPORT:-$((17500 + ${GP_PORT_OFFSET:-0}))}
export JOB_SUBMIT=gpuplace PLUGIN_DIR=$plugdir SPANK_PLUGINS=$plugdir/spank_gpuplace.so
# rack A: 4 nodes x 1 kW base + 16 idle GPUs x 50 W = 4.8 kW against a
# 5 kW cap less the 5 % margin: no room for any GPU load
export RACKA_KW=5 RACKB_KW=40
# nothing listens on the discard port of the loopback address
export TELEMETRY_URL=http://127.0.0.1:9/api/v1/query
export SLURM_CONF=$D/etc/slurm.conf
H="bash $top/tests/slurm/harness.sh"
. "$top/tests/slurm/lib.sh"

cluster_up "cluster with job_submit/gpuplace did not come up"
t_up=$SECONDS
ok "slurmctld loaded job_submit/gpuplace: $(grep -o 'gpuplace: loaded.*' "$D/log/slurmctld.log" | head -n1)"

# wait until the plugin has read the cluster state once (it refreshes every 2 s)
sleep 3

# telemetry down: one log line names the source; placement goes on from the
# estimated rack draw (checked by every scenario below)
check 'grep -q "gpuplace: telemetry prom (http://127.0.0.1:9/api/v1/query)" "$D/log/slurmctld.log" && [ "$(grep -c "gpuplace: telemetry prom" "$D/log/slurmctld.log")" = 1 ]' \
	"telemetry down is logged once by name: $(grep -o 'gpuplace: telemetry prom.*' "$D/log/slurmctld.log" | head -n1 | cut -c1-110)" \
	"$(grep gpuplace "$D/log/slurmctld.log" | head -n 5)"

# (running_on, lib.sh: a job's nodes once it runs, 60 s at most, enough
# on a loaded machine)
RUNNING_S=60
leaves_of() { scontrol show hostnames "$1" | while read -r h; do i=${h#n}; [ "$i" -le 4 ] && echo A || echo B; done | sort -u | tr -d '\n'; }

# 1. power: rack A has no headroom, so a 4-GPU job goes to rack B although
#    Slurm, by node order, would start it on n1
j=$(sbatch --parsable --gpus=4 -o /dev/null --wrap='sleep 600')
nodes=$(running_on "$j")
check '[ -n "$nodes" ] && [ "$(leaves_of "$nodes")" = B ]' \
	"a rack over its power cap is avoided: 4-GPU job on $nodes (rack B)" \
	"$(scontrol show job "$j" | grep -E 'AdminComment|ReqNodeList')"
# a job without hints: the comment names the defaults it assumed and why
# there is no checkpoint plan, never an "overhead 100 %"
check 'scontrol show job "$j" | grep -q "(no hints: default profile assumed, data parallel with a [0-9.]* GB gradient all-reduce per step and no compute time); no checkpoint plan: no hints give the checkpoint size" && ! scontrol show job "$j" | grep -q overhead' \
	"a job without hints says what was assumed" "$(scontrol show job "$j" | grep AdminComment)"
scancel "$j"
sleep 2

# 2. the fragmented cluster of slurm_baseline.sh: Slurm alone spread the
#    8-GPU job over n4 and n7; with gpuplace it stays in leaf B (n7, n8)
for spec in n1:4 n2:4 n6:4 n5:2 n3:2; do
	sbatch -Q -w "${spec%:*}" --gpus="${spec#*:}" -o /dev/null --wrap='sleep 600'
done
sleep 3
j=$(sbatch --parsable --gpus=8 --gpuplace=params=1e9 -o "$D/out/pin.out" \
	--wrap='env | grep ^GPUPLACE_ | sort; sleep 20')
nodes=$(running_on "$j")
check '[ "$nodes" = "n[7-8]" ]' "fragmented cluster: gpuplace packs the 8-GPU job into one leaf ($nodes)" \
	"$(scontrol show job "$j" | grep -E 'AdminComment|ReqNodeList|NodeList')"
check 'scontrol show job "$j" | grep -Eq "AdminComment=gpuplace: PIN n\[7-8\]; exactly 2 nodes, 4 GPUs each; step .* \(the hints give no compute time: the step is its communication alone\); checkpoint every .*; ref [0-9]+"' \
	"the decision, its prediction and what it assumed are in scontrol show job" \
	"$(scontrol show job "$j" | grep AdminComment)"
# what the comment says is what Slurm was told: these nodes, exactly two of
# them, four GPUs on each
show=$(scontrol show job "$j")
check 'echo "$show" | grep -q "ReqNodeList=n\[7-8\]" && echo "$show" | grep -q "NumNodes=2-2 \|NumNodes=2 " && echo "$show" | grep -Eq "TresPerNode=gres[:/]gpu:4"' \
	"a PIN fixes the nodes, their number and the GPUs per node" \
	"$(echo "$show" | grep -E 'ReqNodeList|NumNodes|TresPer')"
for t in $(seq 1 40); do grep -q GPUPLACE_DECISION "$D/out/pin.out" 2>/dev/null && break; sleep 0.25; done
check 'grep -q "^GPUPLACE_DECISION=PIN$" "$D/out/pin.out" && grep -q "^GPUPLACE_CKPT_INTERVAL=[0-9]" "$D/out/pin.out" && grep -q "^GPUPLACE_CKPT_TARGET=" "$D/out/pin.out"' \
	"the batch job receives its placement and checkpoint plan in its environment" \
	"$(cat "$D/out/pin.out" 2>/dev/null)"

# 3. no compact set free: the job is constrained to the domains, and waits
j=$(sbatch --parsable --gpus=16 -o /dev/null --wrap='sleep 5')
sleep 1
feat=$(squeue -h -j "$j" -o %f)
# (rack A has no power headroom, so nvlB may be the only domain left: then
# a single feature, else a matching OR over the domains)
check 'echo "$feat" | grep -q -E "^(\[gp[a-z]*_[^]|]*(\|gp[a-z]*_[^]|]*)+\]|gp[a-z]*_[^]|&]*)$"' \
	"nothing compact free: constrained to the domains that can hold it ($feat)" \
	"$(scontrol show job "$j" | grep -E 'AdminComment|Features|JobState')"
scancel "$j"

# 4. bad hints are rejected with a message naming the hint
msg=$(sbatch --gpus=8 --gpuplace-tp=eight -o /dev/null --wrap=true 2>&1)
check 'echo "$msg" | grep -q "tp" && echo "$msg" | grep -q "eight" && ! echo "$msg" | grep -q "Submitted"' \
	"bad hint rejected with its name: $(echo "$msg" | head -n1)"
msg=$(GPUPLACE_HINTS=pp=0 sbatch --gpus=8 -o /dev/null --wrap=true 2>&1)
check 'echo "$msg" | grep -q "GPUPLACE_HINTS" && echo "$msg" | grep -q "pp"' \
	"bad GPUPLACE_HINTS variable rejected: $(echo "$msg" | head -n1)"

# 5. a job that can never fit is rejected at submit with the reason
msg=$(sbatch --gpus=64 -o /dev/null --wrap=true 2>&1)
check 'echo "$msg" | grep -q -E "can never fit|has only 32 GPUs" && echo "$msg" | grep -q "Requested node configuration is not available"' \
	"a job that can never fit is rejected: $(echo "$msg" | head -n1 | cut -c1-120)"

# 6. two jobs that checkpoint to the shared file system get windows apart:
#    the second plan is offset from the first
a=$(sbatch --parsable --hold --gpus=8 --gpuplace=params=2e9 -o /dev/null --wrap=true)
b=$(sbatch --parsable --hold --gpus=8 --gpuplace=params=2e9 -o /dev/null --wrap=true)
ca=$(scontrol show job "$a" | grep -o 'checkpoint every [0-9]* s to [a-z]* at +[0-9]* s')
cb=$(scontrol show job "$b" | grep -o 'checkpoint every [0-9]* s to [a-z]* at +[0-9]* s')
check '[ -n "$ca" ] && [ -n "$cb" ] && [ "${ca##*to }" != "${cb##*to }" ] && [ "$(echo "$ca" | cut -d" " -f5)" = "$(echo "$cb" | cut -d" " -f5)" ]' \
	"two jobs on one checkpoint target get staggered windows ($ca | $cb)" \
	"$(scontrol show job "$a" | grep AdminComment)" "$(scontrol show job "$b" | grep AdminComment)"

scancel -u root
sleep 3

# 6b. occupancy gpuplace did not make: 1-GPU jobs with -w pass unchanged
#     and fill n5 and half of n6 (rack A has no power headroom); an 8-GPU
#     job submitted at once must not be pinned to them and runs exactly
#     where its comment says
for h in n5 n5 n5 n5 n6 n6; do sbatch -Q -J blk -w $h --gpus=1 -o /dev/null --wrap='sleep 600'; done
j=$(sbatch --parsable -J big --gpus=8 -o /dev/null --wrap='sleep 600')
nodes=$(running_on "$j")
# (the outcome: where it runs; a state older than 5 s on a loaded machine
# makes the PIN a CONSTRAIN naming the same set)
check '[ "$nodes" = "n[7-8]" ] && scontrol show job "$j" | grep -qF -e "AdminComment=gpuplace: PIN n[7-8];" -e "best free set n[7-8] not pinned"' \
	"jobs passed with -w count at once: the 8-GPU job runs on the free n[7-8] it was placed on ($nodes)" \
	"$(scontrol show job "$j" | grep -E 'AdminComment|NodeList')"
# a 1-GPU job without -w: where Slurm starts it is a guess until the next
# reading, so the 2-GPU job right after is kept in its domain, not pinned
scancel "$j"
sleep 2
sbatch -Q -J one --gpus=1 -o /dev/null --wrap='sleep 600'
j=$(sbatch --parsable -J two --gpus=2 -o /dev/null --wrap='sleep 600')
nodes=$(running_on "$j")
cmt=$(scontrol show job "$j" | grep -o 'AdminComment=.*')
feat=$(echo "$cmt" | sed -n 's/^AdminComment=gpuplace: CONSTRAIN \([a-z_A-Z0-9]*\);.*/\1/p')
outside=$(for h in $(scontrol show hostnames "$nodes"); do scontrol show node "$h" | grep -q "AvailableFeatures=.*$feat" || echo "$h"; done)
pin=$(echo "$cmt" | sed -n 's/^AdminComment=gpuplace: PIN \([^;]*\);.*/\1/p')
if [ -n "$pin" ]; then
	# a loaded machine: the plugin read a state in which Slurm had started
	# the passed job before this one came, so its place was known and a
	# PIN was right; the outcome is that the job runs on its PIN
	check '[ "$nodes" = "$pin" ]' \
		"right after a passed job that Slurm had started by the next reading: PIN $pin, and the job runs there ($nodes)" "$cmt"
else
	check '[ -n "$nodes" ] && [ -n "$feat" ] && [ -z "$outside" ] && echo "$cmt" | grep -q "not pinned: 1 GPU job passed since the state was read"' \
		"right after a passed job: CONSTRAIN to $feat, and the job runs inside it ($nodes)" "$cmt"
fi

scancel -u root
sleep 3

# 7. a burst of BURST (100) submissions: every one is accepted and no GPU
#    is ever given to two jobs at once (the plugin's ledger keeps a burst
#    apart).  Only rack B's 16 GPUs take load: 8 two-GPU jobs at a time,
#    each GPU taken and freed a dozen times over the burst (200, as it
#    was, took twice the rounds for no other assertion).
# sampled while it is submitted and runs (on a loaded machine the sbatch
# calls can take longer than the jobs): every (node, GPU index) held by a
# running job, one line each, about every 2 s until the queue is empty
(
	for i in $(seq 1 "$BURST"); do
		sbatch -Q --gpus=2 -o /dev/null --wrap='sleep 2' || echo "submit $i failed" >>"$D/burst.err"
	done
) &
sub=$!
overlap=0 seen=0
for sample in $(seq 1 90); do
	gpus_in_use >"$D/inuse.txt"
	seen=$((seen + $(wc -l <"$D/inuse.txt")))
	sort "$D/inuse.txt" | uniq -d | sed 's/^/double-booked /' >>"$D/overlap.txt"
	if ! kill -0 "$sub" 2>/dev/null && [ "$(squeue -h | wc -l)" = 0 ]; then break; fi
	sleep 2
done
wait "$sub"
[ -s "$D/overlap.txt" ] && overlap=1
check '[ ! -s "$D/burst.err" ] && [ "$overlap" = 0 ] && [ "$seen" -gt 0 ]' \
	"a burst of $BURST submissions: all accepted, no GPU double-booked ($seen GPU allocations sampled)" \
	"$(cat "$D/burst.err" "$D/overlap.txt" 2>/dev/null | head -n 5)"
for t in $(seq 1 120); do [ "$(squeue -h | wc -l)" = 0 ] && break; sleep 0.5; done
left=$(squeue -h | wc -l)
check '[ "$left" = 0 ]' "the burst ran to completion ($left left)"

# 8. one bad part switches off that part only: the rack's line is named
#    once at info with what is lost and the rest is reloaded; fail-open: a
#    file the reader cannot get past is named in the log, the last good
#    configuration stays, and jobs still run
echo "Rack=broken Nodes=n1 PowerCapKW=lots" >>"$D/etc/gpuplace.conf"
# the plugin's thread notices the change at its next pass: wait for what it
# logs, not a fixed time; the job runs long enough to be seen running on a
# loaded machine, where squeue answers slowly
for t in $(seq 1 240); do grep -q "PowerCapKW: .lots. is not a number; rack .broken. not modelled" "$D/log/slurmctld.log" && break; sleep 0.25; done
check 'grep -q "gpuplace: .*gpuplace.conf:[0-9]*: PowerCapKW: .lots. is not a number; rack .broken. not modelled: power not considered on its nodes (n1)" "$D/log/slurmctld.log"' \
	"a bad rack line is logged with file, line, key and what is lost; the rest reloads" \
	"$(grep gpuplace "$D/log/slurmctld.log" | tail -n 3)"
echo 'DefaultGpuProfile="a100' >>"$D/etc/gpuplace.conf"
for t in $(seq 1 240); do grep -q "unterminated quote.*keeping the last good" "$D/log/slurmctld.log" && break; sleep 0.25; done
j=$(sbatch --parsable --gpus=4 -o /dev/null --wrap='sleep 30')
nodes=$(running_on "$j")
check 'grep -q "gpuplace.conf:[0-9]*: DefaultGpuProfile: unterminated quote.*keeping the last good configuration" "$D/log/slurmctld.log" && [ -n "$nodes" ]' \
	"a broken gpuplace.conf is logged with file, line and key; jobs still run ($nodes)" \
	"$(grep gpuplace "$D/log/slurmctld.log" | tail -n 3)"

# 9. log lines an admin can use: per-job lines stay below info, reasons
#    that concern every job are logged once, and a summary line comes
#    every minute (the plugin has run for at least that long by now)
left=$((t_up + 63 - SECONDS)); [ "$left" -gt 0 ] && sleep "$left"
log=$D/log/slurmctld.log
check '[ "$(grep -c "gpuplace: job .*uid [0-9]" "$log")" = 0 ]' \
	"no per-job line at info level ($(grep -c "gpuplace:" "$log") gpuplace lines in all)" \
	"$(grep "gpuplace: job .*uid [0-9]" "$log" | head -n 3)"
check 'grep -q "gpuplace: last 60 s: [0-9]* PIN, [0-9]* CONSTRAIN .*[0-9]* REJECT, [0-9]* rejected hints; passed: " "$log"' \
	"a summary line at info: $(grep -o "gpuplace: last 60 s:.*" "$log" | head -n1 | cut -c1-150)" \
	"$(grep gpuplace "$log" | tail -n 5)"

# 10. the configuration directory comes from slurmctld -f even without
#     SLURM_CONF in slurmctld's environment
p=$(cat "$D/pids/slurmctld.pid")
kill -TERM "$p"
for t in $(seq 1 80); do [ -e "/proc/$p" ] && [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" != Z ] || break; sleep 0.25; done
env -u SLURM_CONF -u GPUPLACE_CONF_DIR slurmctld -f "$SLURM_CONF"
for t in $(seq 1 40); do [ "$(grep -c "gpuplace: loaded" "$log")" -ge 2 ] && break; sleep 0.25; done
check '[ "$(grep -o "gpuplace: loaded [^:]*" "$log" | tail -n1)" = "gpuplace: loaded $D/etc" ]' \
	"slurmctld -f without SLURM_CONF: $(grep -o "gpuplace: loaded [^:]*" "$log" | tail -n1)" \
	"$(grep -E "gpuplace|fatal" "$log" | tail -n 3)"
