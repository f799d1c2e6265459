#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm_backup.sh - job_submit/gpuplace in a backup slurmctld (a second
# SlurmctldHost).  slurmctld starts the job_submit plugins before it waits
# in standby, so the plugin's thread runs in a backup too:
#  1. the backup's plugin says it stands by while the primary answers;
#  2. it reads no cluster state and steers no job meanwhile, while the
#     primary PINs a job (it would read and update the primary's jobs
#     through Slurm's API, and write the originals file the primary
#     writes);
#  3. the primary stopped, the backup takes control (SlurmctldTimeout):
#     its plugin says so once slurmctld does, not as soon as the primary
#     stops answering, and reads back the originals the primary wrote;
#  4. and reads the cluster's state from then on;
#  5. an update of the PINned job, sent to the backup, gives back the
#     user's request (GPUs per job, no node list);
#  6. the primary started again while the backup is in control: its
#     plugin (which slurmctld starts before it takes control back) reads
#     no cluster state before slurmctld says it runs as the primary
#     controller, and from then on it does;
#  7. the originals' only writer, named in gpuplace_originals.lock, is
#     the backup once it took control, then the primary once it took
#     control back.
# The backup runs in a network and a UTS namespace of its own (unshare):
# its own host name (gpbackup, its SlurmctldHost) and port space, joined
# to this machine's by a veth pair whose ends hold the two controllers'
# addresses, a /30 of 198.18.0.0/15 (RFC 2544's range for tests) per
# control port.  It cannot reach the slurmd (their addresses are on this
# machine's loopback): the test needs none after the takeover.
# Prints TAP; skips when not root or Slurm, ip or unshare is missing.
set -u
top=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
N_TESTS=7
EXTRA_PROGS="ip unshare"
. "$top/tests/slurm/prelude.sh"

export D=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-backup.XXXXXX")
export CTLPORT=${CTLPORT:-$((16827 + ${GP_PORT_OFFSET:-0}))} BASEPORT=${BASEPORT:-$((17400 + ${GP_PORT_OFFSET:-0}))}
a=$((CTLPORT % 16384 * 4))
net=198.$((18 + a / 65536)).$(((a / 256) % 256))
a=$((a % 256))
IF=gpb$CTLPORT
export CTLD_ADDR=$net.$((a + 1)) BACKUP_CTLD="gpbackup($net.$((a + 2)))" CTLD_TIMEOUT=6
export JOB_SUBMIT=gpuplace PLUGIN_DIR=$plugdir RACKA_KW=40 RACKB_KW=40
export SLURM_CONF=$D/etc/slurm.conf
H="bash $top/tests/slurm/harness.sh"
. "$top/tests/slurm/lib.sh"
BLOG=$D/log/backup.log
bpid=""
# the backup (by its PID), the veth pair, then the rest (lib.sh)
stop_backup() {
	local t
	if [ -n "$bpid" ] && alive "$bpid"; then
		kill -TERM "$bpid" 2>/dev/null
		for t in $(seq 1 80); do alive "$bpid" || break; sleep 0.25; done
		alive "$bpid" && kill -KILL "$bpid" 2>/dev/null
	fi
	ip link del "$IF" 2>/dev/null || true
}
trap 'stop_backup; cleanup' EXIT

# the backup's namespaces first: the primary's address is on the host's
# end of the pair, which must be there before the primary starts.  The
# shell in them waits for the go, then becomes the backup slurmctld (in
# the foreground: $bpid is its PID)
unshare -n -u sh -c '
	while [ ! -e "$1/backup.go" ]; do sleep 0.1; done
	ip link set lo up && ip addr add "$2/30" dev "$3" && ip link set "$3" up || exit 1
	hostname gpbackup
	exec slurmctld -D -f "$1/etc/slurm-backup.conf" </dev/null >"$1/log/backup.out" 2>&1
' sh "$D" "$net.$((a + 2))" "${IF}b" &
bpid=$!
for t in $(seq 1 50); do
	[ "$(readlink "/proc/$bpid/ns/net" 2>/dev/null)" != "$(readlink /proc/self/ns/net)" ] && break
	sleep 0.1
done
if ! ip link add "$IF" type veth peer name "${IF}b" netns "$bpid" 2>"$D.ip.log" ||
	! ip addr add "$CTLD_ADDR/30" dev "$IF" 2>>"$D.ip.log" || ! ip link set "$IF" up 2>>"$D.ip.log"; then
	skip_reason="no veth pair for the backup's network namespace: $(head -c 200 "$D.ip.log")"
	for i in $(seq 1 "$N_TESTS"); do skip "$skip_reason"; done
	exit 0
fi

cluster_up "cluster with job_submit/gpuplace and a backup controller did not come up"
# the backup's slurm.conf: its own log (at debug, where the plugin's
# readings show) and pid file
sed -e "s|^SlurmctldLogFile=.*|SlurmctldLogFile=$BLOG|" \
	-e "s|^SlurmctldPidFile=.*|SlurmctldPidFile=$D/pids/backup.pid|" \
	-e "s|^SlurmctldDebug=.*|SlurmctldDebug=debug|" "$SLURM_CONF" >"$D/etc/slurm-backup.conf"
touch "$D/backup.go"
for t in $(seq 1 120); do
	grep -q "gpuplace: this slurmctld is a backup in standby" "$BLOG" 2>/dev/null && break
	alive "$bpid" || break
	sleep 0.25
done
check 'grep -q "gpuplace: this slurmctld is a backup in standby" "$BLOG"' \
	"the backup's plugin stands by while the primary answers" \
	"$(grep -E "gpuplace|fatal|error" "$BLOG" 2>/dev/null | head -n 5)" "$(head -c 400 "$D/log/backup.out" 2>/dev/null)"

# 2. the primary PINs a held job of 8 GPUs (two nodes, GPUs per node),
# once its plugin has read the cluster (it refreshes every 2 s)
sleep 3
j=$(sbatch --parsable --hold --gpus=8 -o /dev/null --wrap='sleep 30')
ref=$(scontrol show job "$j" | grep -o '; ref [0-9]*' | awk '{ print $3 }')
tpn=$(scontrol show job "$j" | grep -o 'TresPerNode=[^ ]*')
for t in $(seq 1 40); do
	grep -q "^gpuplace-orig ref=$ref " "$D/state/gpuplace_originals" 2>/dev/null && break
	sleep 0.25
done
# three of the backup's refreshes (2 s each)
sleep 6
check '[ -n "$ref" ] && echo "$tpn" | grep -Eq "^TresPerNode=gres[:/]gpu:4$" && ! grep -Eq "gpuplace: (cluster state read|job [0-9]+ steered)" "$BLOG"' \
	"meanwhile it reads no cluster state and steers no job, while the primary PINs job $j ($tpn)" \
	"$(grep -E "gpuplace: (cluster state read|job [0-9]+ steered)" "$BLOG" | head -n 3)" \
	"$(scontrol show job "$j" | grep -E 'AdminComment|Tres')"

# 3. the primary stops; the backup takes control after SlurmctldTimeout
from=$(stat -c %s "$BLOG")
p=$(cat "$D/pids/slurmctld.pid" 2>/dev/null || true)
[ -n "$p" ] && alive "$p" && case "$(cat "/proc/$p/comm")" in slurmctld|slurmctld-wlm) true ;; *) false ;; esac && kill -TERM "$p"
for t in $(seq 1 240); do
	tail -c +$((from + 1)) "$BLOG" | grep -q "gpuplace: restored the originals" && break
	alive "$bpid" || break
	sleep 0.25
done
after=$(tail -c +$((from + 1)) "$BLOG" | grep -A 50 "gpuplace: this backup slurmctld has taken control")
# where slurmctld says it took control, and where the plugin does
ctl=$(tail -c +$((from + 1)) "$BLOG" | grep -n "Running as primary controller" | head -n 1 | cut -d: -f1)
plg=$(tail -c +$((from + 1)) "$BLOG" | grep -n "gpuplace: this backup slurmctld has taken control" | head -n 1 | cut -d: -f1)
check '[ -n "$ctl" ] && [ -n "$plg" ] && [ "$plg" -gt "$ctl" ] && echo "$after" | grep -q "gpuplace: restored the originals of [1-9][0-9]* jobs from $D/state/gpuplace_originals"' \
	"the primary stopped, the backup's plugin takes control once slurmctld does (log line ${plg:-none} after ${ctl:-none}) and reads back the originals the primary wrote" \
	"$(tail -c +$((from + 1)) "$BLOG" | grep -E "gpuplace|fatal|error" | head -n 6)"
for t in $(seq 1 80); do
	tail -c +$((from + 1)) "$BLOG" | grep -q "gpuplace: cluster state read" && break
	sleep 0.25
done
owner_b=$(cat "$D/state/gpuplace_originals.lock" 2>/dev/null)
check 'tail -c +$((from + 1)) "$BLOG" | grep -A 1000 "has taken control" | grep -q "gpuplace: cluster state read"' \
	"from then on it reads the cluster's state" \
	"$(tail -c +$((from + 1)) "$BLOG" | grep -E "gpuplace" | tail -n 4)"

# 5. an update through the backup gives back the user's request
gpu=$(echo "$tpn" | sed 's/^TresPerNode=\(gres.gpu\):4$/\1/')
for t in $(seq 1 30); do
	out=$(timeout 20 scontrol update jobid="$j" TresPerJob="$gpu:2" 2>&1)
	req=$(timeout 20 scontrol show job "$j" | grep -o 'ReqNodeList=[^ ]*')
	[ "$req" = "ReqNodeList=(null)" ] && break
	sleep 1
done
shown=$(timeout 20 scontrol show job "$j" | grep -oE '(TresPerJob|TresPerNode)=[^ ]*' | tr '\n' ' ')
check '[ -z "$out" ] && [ "$req" = "ReqNodeList=(null)" ] && ! echo "$shown" | grep -q "TresPerNode=gres" && echo "$shown" | grep -Eq "TresPerJob=gres[:/]gpu:2"' \
	"an update sent to the backup gives back the user's request (${shown% }${out:+; $out})" \
	"$(timeout 20 scontrol show job "$j" | grep -E 'Tres|ReqNodeList|NumNodes')" "$out" \
	"$(grep "gpuplace: job $j" "$BLOG" | tail -n 2)"

# 6. the primary starts again (at debug, where the readings show) while
# the backup is in control: slurmctld starts its plugins, then asks the
# backup to give control back, then runs as the primary controller
sed -i "s|^SlurmctldDebug=.*|SlurmctldDebug=debug|" "$SLURM_CONF"
from=$(stat -c %s "$D/log/slurmctld.log" 2>/dev/null || echo 0)
slurmctld -f "$SLURM_CONF"
for t in $(seq 1 240); do
	tail -c +$((from + 1)) "$D/log/slurmctld.log" | grep -A 1000 "Running as primary controller" |
		grep -q "gpuplace: cluster state read" && break
	sleep 0.25
done
new=$(tail -c +$((from + 1)) "$D/log/slurmctld.log")
ctl=$(echo "$new" | grep -n "Running as primary controller" | head -n 1 | cut -d: -f1)
rd=$(echo "$new" | grep -n "gpuplace: cluster state read" | head -n 1 | cut -d: -f1)
check '[ -n "$ctl" ] && [ -n "$rd" ] && [ "$rd" -gt "$ctl" ]' \
	"the primary started again while the backup is in control reads the cluster's state only once it runs as the primary controller (first reading at log line ${rd:-none}, control at ${ctl:-none})" \
	"$(echo "$new" | grep -E "gpuplace|Running as primary|fatal|error" | head -n 8)"

# 7. the originals' writer is named in StateSaveLocation/gpuplace_
# originals.lock by the controller in control: the backup (host gpbackup)
# once it took control, the primary once it took control back
ppid=$(cat "$D/pids/slurmctld.pid" 2>/dev/null)
for t in $(seq 1 40); do
	grep -q "^gpuplace-owner host=$(hostname) pid=$ppid " "$D/state/gpuplace_originals.lock" 2>/dev/null && break
	sleep 0.25
done
owner_p=$(cat "$D/state/gpuplace_originals.lock" 2>/dev/null)
check 'echo "$owner_b" | grep -q "^gpuplace-owner host=gpbackup pid=[0-9]* start=" && echo "$owner_p" | grep -q "^gpuplace-owner host=$(hostname) pid=$ppid start="' \
	"the originals' writer was the backup once it took control, then the primary ($ppid) once it took control back" \
	"backup: $owner_b" "primary: $owner_p"
