#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# harness.sh - a private Slurm cluster on this machine for integration tests:
# one munged, one slurmctld and N slurmd (Slurm's MULTIPLE_SLURMD mode), fake
# GPUs as character devices, a two-leaf switch tree, two NVLink domains and
# two racks.  Everything lives under $D; every daemon's PID is recorded and
# only those PIDs are ever signalled.
#
#   harness.sh up|down|status          (environment below)
#   D           work directory            (default ${TMPDIR:-/tmp}/gpuplace-slurm)
#   N           number of nodes, even, >= 4 (default 8)
#   GPUS        GPUs per node             (default 4)
#   JOB_SUBMIT  JobSubmitPlugins value    (default: none)
#   PLUGIN_DIR  extra PluginDir entry     (default: none)
#   SCHED_PARAMS  extra SchedulerParameters (default: none)
#   SPANK_PLUGINS SPANK plugin .so paths for plugstack.conf (default: none)
#   CTLPORT, BASEPORT  ports              (default 16817, 17000)
#   TELEMETRY_URL a Prometheus URL gpuplace.conf polls for rack power
#                 (default: none)
#   PROLOG, EPILOG  Prolog= and Epilog= programs (default: none)
#   LICENSES    Licenses= value (default: none)
#   CTLDEBUG    SlurmctldDebug level (default: info)
#   VALGRIND_LOG  run slurmctld in the foreground under valgrind, its report
#                 in this file (default: no valgrind)
#
# Requires root (slurmd runs jobs as root here) and Debian's slurmctld,
# slurmd, slurm-client and munge.
set -euo pipefail
D=${D:-${TMPDIR:-/tmp}/gpuplace-slurm}
N=${N:-8}
GPUS=${GPUS:-4}
CTLPORT=${CTLPORT:-16817}
BASEPORT=${BASEPORT:-17000}
SYSPLUGDIR=${SYSPLUGDIR:-$(dirname "$(find /usr/lib /usr/lib64 /usr/local/lib -name 'job_submit_defaults.so' 2>/dev/null | head -n1)")}
export SLURM_CONF=$D/etc/slurm.conf

log() { printf '# harness: %s\n' "$*" >&2; }
# alive PID: exists and is not a zombie (PID 1 may reap orphans late)
alive() { [ -n "${1:-}" ] && [ -e "/proc/$1" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]; }
# ours PID: the PID from our pid file still runs one of our daemons (guards
# against PID reuse; it is never used to find processes by name)
ours() { case "$(cat "/proc/$1/comm" 2>/dev/null)" in slurmd|slurmctld|munged|memcheck-*) return 0 ;; esac; return 1; }

gen_conf() {
	local half=$((N / 2)) i g last=$((GPUS - 1))
	mkdir -p "$D"/{etc,state,log,pids,spool,dev,munge,out}
	for g in $(seq 0 "$last"); do [ -e "$D/dev/nvidia$g" ] || mknod "$D/dev/nvidia$g" c 195 "$g"; done
	for i in $(seq 1 "$N"); do mkdir -p "$D/spool/n$i"; done
	cat >"$D/etc/slurm.conf" <<CONF
ClusterName=gpharness
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$CTLPORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$D/munge/munge.sock
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool/%n
SlurmctldPidFile=$D/pids/slurmctld.pid
SlurmdPidFile=$D/pids/slurmd-%n.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd-%n.log
SlurmctldDebug=${CTLDEBUG:-info}
SlurmdDebug=info
PluginDir=$SYSPLUGDIR${PLUGIN_DIR:+:$PLUGIN_DIR}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
MailProg=/bin/true
MinJobAge=10
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1000
GresTypes=gpu
TopologyPlugin=topology/tree
ReturnToService=2
SlurmdParameters=config_overrides
${JOB_SUBMIT:+JobSubmitPlugins=$JOB_SUBMIT}
${SCHED_PARAMS:+SchedulerParameters=$SCHED_PARAMS}
${PROLOG:+Prolog=$PROLOG}
${LICENSES:+Licenses=$LICENSES}
${EPILOG:+Epilog=$EPILOG}
PlugStackConfig=$D/etc/plugstack.conf
NodeName=n[1-$half] NodeHostname=n[1-$half] NodeAddr=127.0.1.[1-$half] Port=[$((BASEPORT + 1))-$((BASEPORT + half))] Sockets=2 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=16000 Gres=gpu:a100:$GPUS Feature=gpsw_leafA,gpnvl_nvlA,gprack_rackA State=UNKNOWN
NodeName=n[$((half + 1))-$N] NodeHostname=n[$((half + 1))-$N] NodeAddr=127.0.1.[$((half + 1))-$N] Port=[$((BASEPORT + half + 1))-$((BASEPORT + N))] Sockets=2 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=16000 Gres=gpu:a100:$GPUS Feature=gpsw_leafB,gpnvl_nvlB,gprack_rackB State=UNKNOWN
PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
	: >"$D/etc/plugstack.conf"
	for p in ${SPANK_PLUGINS:-}; do echo "required $p" >>"$D/etc/plugstack.conf"; done
	{
		echo "AutoDetect=off"
		echo "NodeName=n[1-$N] Name=gpu Type=a100 File=$D/dev/nvidia[0-$last]"
	} >"$D/etc/gres.conf"
	cat >"$D/etc/topology.conf" <<CONF
SwitchName=leafA Nodes=n[1-$half]
SwitchName=leafB Nodes=n[$((half + 1))-$N]
SwitchName=spine Switches=leafA,leafB
CONF
	# gpuplace.conf: the facts Slurm has no word for.  A100 SXM figures:
	# 312 dense bf16 TFLOP/s, 2039 GB/s HBM, 12 NVLinks x 25 GB/s = 300 GB/s
	# per direction, 400 W TDP (NVIDIA A100 datasheet; calibration.md 1.4, 4).
	cat >"$D/etc/gpuplace.conf" <<CONF
GpuProfile=a100 TFLOPS=312 HBMGBps=2039 NVLinkGBps=300 TDPWatts=400 IdleWatts=50
FabricLevel=0 LinkGBps=25 LatencyUs=0.5
FabricLevel=1 LinkGBps=25 Oversubscription=2 LatencyUs=0.5
NodeName=n[1-$N] Rails=$GPUS NicGBps=25
NVLinkDomain=nvlA Nodes=n[1-$half]
NVLinkDomain=nvlB Nodes=n[$((half + 1))-$N]
Rack=rackA Nodes=n[1-$half] PowerCapKW=${RACKA_KW:-20} NodeBaseWatts=1000
Rack=rackB Nodes=n[$((half + 1))-$N] PowerCapKW=${RACKB_KW:-20} NodeBaseWatts=1000
Storage=nvme Scope=node WriteGBps=5
Storage=pfs Scope=cluster WriteGBps=50
CONF
	if [ -n "${TELEMETRY_URL:-}" ]; then
		echo "Telemetry=prom Type=prometheus URL=$TELEMETRY_URL Query=\"sum by (rack) (node_power_watts)\" Interval=2 Timeout=1" >>"$D/etc/gpuplace.conf"
	fi
}

up() {
	[ "$(id -u)" = 0 ] || { log "must run as root"; return 1; }
	gen_conf
	chmod 755 "$D/munge"
	[ -s "$D/munge/munge.key" ] || { dd if=/dev/urandom of="$D/munge/munge.key" bs=1024 count=1 status=none; chmod 400 "$D/munge/munge.key"; }
	munged --force --socket="$D/munge/munge.sock" --key-file="$D/munge/munge.key" \
		--pid-file="$D/pids/munged.pid" --log-file="$D/log/munged.log" \
		--seed-file="$D/munge/munged.seed"
	if [ -n "${VALGRIND_LOG:-}" ]; then
		# foreground (-D) under valgrind; slurmctld still writes its pid file
		valgrind --leak-check=full --errors-for-leak-kinds=definite --num-callers=30 \
			--suppressions="$(dirname "$0")/slurmctld.supp" \
			--log-file="$VALGRIND_LOG" slurmctld -D -f "$SLURM_CONF" -c </dev/null >/dev/null 2>&1 &
	else
		slurmctld -f "$SLURM_CONF" -c
	fi
	# slurmctld exits 0 before it daemonises: watch its log for fatal errors
	local ok=0 t i
	for t in $(seq 1 ${VALGRIND_LOG:+4}60); do
		if grep -q 'fatal:' "$D/log/slurmctld.log" 2>/dev/null; then break; fi
		if timeout 5 scontrol ping 2>/dev/null | grep -q 'UP'; then ok=1; break; fi
		sleep 0.25
	done
	if [ $ok = 0 ]; then
		log "slurmctld failed to start:"
		grep -E 'fatal|error' "$D/log/slurmctld.log" 2>/dev/null | tail -n 5 >&2 || true
		down || true
		return 1
	fi
	for i in $(seq 1 "$N"); do slurmd -f "$SLURM_CONF" -N "n$i"; done
	for t in $(seq 1 120); do
		if [ "$(timeout 5 sinfo -h -t idle -o %D 2>/dev/null)" = "$N" ]; then
			log "cluster up: $N idle nodes under $D"
			return 0
		fi
		sleep 0.5
	done
	log "cluster not ready:"
	timeout 5 sinfo -N >&2 || true
	return 1
}

down() {
	local pids="" f p left="" t
	if [ -f "$D/pids/slurmctld.pid" ] && alive "$(cat "$D/pids/slurmctld.pid")"; then
		timeout 10 scancel -u root 2>/dev/null || true
	fi
	for f in "$D"/pids/slurmd-*.pid "$D/pids/slurmctld.pid"; do [ -f "$f" ] && pids="$pids $(cat "$f")"; done
	for p in $pids; do if alive "$p" && ours "$p"; then kill -TERM "$p" 2>/dev/null || true; fi; done
	# under valgrind slurmctld needs time for its leak check before it exits
	for t in $(seq 1 ${VALGRIND_LOG:+4}40); do
		left=""
		for p in $pids; do alive "$p" && left="$left $p"; done
		[ -z "$left" ] && break
		sleep 0.5
	done
	# a slurmd still in its registration retry loop ignores SIGTERM
	for p in $left; do if ours "$p"; then kill -KILL "$p" 2>/dev/null && log "SIGKILL $p"; fi; done
	if [ -f "$D/pids/munged.pid" ]; then
		p=$(cat "$D/pids/munged.pid")
		if alive "$p" && ours "$p"; then kill -TERM "$p" 2>/dev/null || true; fi
		for t in $(seq 1 20); do alive "$p" || break; sleep 0.25; done
	fi
	rm -f "$D"/pids/*.pid
	return 0
}

case "${1:-}" in
up) up ;;
down) down ;;
status) sinfo -N -o '%N %T %G %f' ;;
*) echo "usage: $0 up|down|status" >&2; exit 2 ;;
esac
