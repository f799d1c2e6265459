#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# harness.sh - a private Slurm cluster on this machine for integration tests:
# one munged, one slurmctld and N slurmd (Slurm's MULTIPLE_SLURMD mode), fake
# GPUs as character devices, a switch tree of LEAVES leaves under one spine,
# NVLink domains and racks as blocks of consecutive nodes.  Everything lives
# under $D; every daemon's PID is recorded and only those PIDs are ever
# signalled.
#
#   harness.sh up|down|status
#   harness.sh plugin on|off     set or remove JobSubmitPlugins on the running
#                                cluster (scontrol reconfigure, or a restart of
#                                slurmctld by its recorded PID)
#   harness.sh gpuplace-conf     rewrite gpuplace.conf from the environment
#                                (e.g. new RACK_KW) on the running cluster
#   (environment below)
#   D           work directory            (default ${TMPDIR:-/tmp}/gpuplace-slurm)
#   N           number of nodes, a multiple of LEAVES, >= 2 per leaf
#               (default 8)
#   LEAVES      leaf switches (leafA, leafB, ...), N/LEAVES consecutive nodes
#               each (default 2)
#   WEIGHTS     node Weight per leaf, e.g. "10 1 10" (default: none, Slurm's 1)
#   NVL_NODES   nodes per NVLink domain (nvlA, nvlB, ...), consecutive
#               (default N/LEAVES: one domain per leaf)
#   RACK_NODES  nodes per rack (rackA, rackB, ...), consecutive
#               (default N/LEAVES: one rack per leaf)
#   RACK_KW     PowerCapKW per rack, e.g. "40 14" (default RACKA_KW for the
#               first rack, RACKB_KW for the second, 20 for any other)
#   RACKA_KW, RACKB_KW  caps of the first two racks (default 20 each)
#   GPUS        GPUs per node             (default 4)
#   NODE_GPUS   each node's GPUs by type, one word per node (N words,
#               n1 first): TYPE:COUNT, or TYPE:COUNT,TYPE:COUNT for a node
#               of several types, e.g. "a100:4 a100:4 a100:4,l40s:2
#               l40s:4 l40s:4 l40s:4" (default: a100:GPUS on every node).
#               slurm.conf gets Gres=gpu:TYPE:COUNT[,...], gres.conf one
#               line per type (Type=, its own fake device files after the
#               types before it on the node), gpuplace.conf a GpuProfile
#               for each type (types with figures here: a100, h100, l40s)
#   JOB_SUBMIT  JobSubmitPlugins value    (default: none; "plugin on" uses
#               it, or gpuplace)
#   PLUGIN_SWITCH  how "plugin on|off" applies the change: reconfigure
#               (default) or restart (slurmctld stopped by its PID and
#               started again with its saved state)
#   FORGET_ORIGINALS  with restart: remove the plugin's originals
#               (StateSaveLocation/gpuplace_originals and its journal)
#               before the start
#   CTLD_ADDR   slurmctld's address in SlurmctldHost (default 127.0.0.1)
#   BACKUP_CTLD a backup controller, NAME(ADDR): a second SlurmctldHost
#               line (the test starts that slurmctld itself, under host
#               name NAME: tests/slurm/slurm_backup.sh)
#   CTLD_TIMEOUT  SlurmctldTimeout (default: Slurm's)
#   PLUGIN_DIR  extra PluginDir entry     (default: none)
#   SCHED_PARAMS  extra SchedulerParameters (default: none)
#   SPANK_PLUGINS SPANK plugin .so paths for plugstack.conf (default: none)
#   CTLPORT, BASEPORT  ports              (default 16817, 17000, each plus
#               GP_PORT_OFFSET, default 0: a second Slurm release's run sets
#               it so its clusters never meet the first's on loopback; nodes
#               use BASEPORT+1 .. BASEPORT+N).  Each test has its own pair,
#               so that tests run side by side (make -j): CTLPORT 16917
#               baseline, 16937 version_mismatch, 16947 vs_stock, 16957
#               plugin, 16967 smoke, 16977 steer, 16987 valgrind, 16997
#               block (its second cluster: 16998), 16927 sacct (slurmdbd 16928, MariaDB 16929), 16887
#               typed, 16907 hres, 16867 lic, 16877 packages (tests/cli/packages.sh), 16897 sites
#               (its second cluster, topology.yaml: 16898); BASEPORT
#               17100, 17300, 18600, 17500, 18400, 18200, 17800, 17900,
#               17700, 18000, 18300, 18700, 18500 (lic), 18100 (sites; its
#               second cluster 18150), 17950 (block's second cluster); 16857 and 17200 nofeat, 16847 and 17250 array, 16827 and 17400
#               backup.  All lie in
#               16817 .. 18712: scripts/test.sh
#               gives each Slurm release an offset 2000 apart.
#   TOPOLOGY    tree (default): topology/tree, the leaves under a spine and
#               the NVLink domains in gpuplace.conf; block: topology/block
#               (Slurm 23.11+), each leaf's nodes one block (blkA, blkB, ...;
#               BlockSizes=N/LEAVES,N), which gpuplace reads as the NVLink
#               domains, as an NVL72 site configures it (LEAVES=2 only);
#               with NVL_NODES below N/LEAVES, blocks of NVL_NODES nodes,
#               each leaf's blocks a group (BlockSizes=NVL_NODES,N/LEAVES,N:
#               both powers of two apart), as NVL72 racks under the leaf
#               switches of a scalable unit
#   TOPOLOGY=yaml  topology.yaml (Slurm 25.05+, topology.yaml(5)) with the
#               text of TOPOLOGY_YAML instead of topology.conf, and no
#               TopologyPlugin line (slurm.conf(5): ignored when
#               topology.yaml exists); nodes, features and gpuplace.conf as
#               for tree
#   PARTITIONS  the partition section of slurm.conf, one line per line:
#               NodeSet= and PartitionName= lines (default: one partition
#               gpu, Nodes=ALL, Default=YES)
#   TELEMETRY_URL a Prometheus URL gpuplace.conf polls for rack power
#                 (default: none)
#   PROLOG, EPILOG  Prolog= and Epilog= programs (default: none)
#   LICENSES    Licenses= value (default: none)
#   MCS_PLUGIN, MCS_PARAMS  MCSPlugin= and MCSParameters= values (default:
#               none)
#   CTLDEBUG    SlurmctldDebug level (default: info)
#   ACCT_PORT   accounting through the slurmdbd listening on 127.0.0.1 at
#               this port (AccountingStorageType=accounting_storage/
#               slurmdbd; the caller starts and stops slurmdbd and its
#               database: tests/slurm/slurm_sacct.sh) (default: none,
#               accounting_storage/none); GPUs as a TRES in the records
#               (AccountingStorageTRES=gres/gpu: sacct's AllocTRES shows
#               gres/gpu only then)
#   DOMAIN_FEATURES  no: the nodes carry none of the features `gpuplace conf
#               --what nodes` writes (gpsw_, gpnvl_, gprack_), only "site",
#               as slurm.conf reads before gpuplace is set up (default: yes)
#   GPUPLACE_EXTRA  lines appended to gpuplace.conf (default: none)
#   RESOURCES_CMD  a command whose output becomes resources.yaml beside
#               slurm.conf (Slurm 25.05+ hierarchical resources), run once
#               the other files are written, e.g. `gpuplace conf --conf-dir
#               $D/etc --what resources` (default: no resources.yaml)
#   LICENSES_CMD  a command whose output's Licenses= line is added to
#               slurm.conf (after LICENSES', which it then replaces), run
#               once gpuplace.conf is written, e.g. `gpuplace conf
#               --conf-dir $D/etc --what licenses` (default: none)
#   VALGRIND_LOG  run slurmctld in the foreground under valgrind, its report
#                 in this file (default: no valgrind)
#
# Requires root (slurmd runs jobs as root here) and Debian's slurmctld,
# slurmd, slurm-client and munge.
set -euo pipefail
D=${D:-${TMPDIR:-/tmp}/gpuplace-slurm}
N=${N:-8}
LEAVES=${LEAVES:-2}
GPUS=${GPUS:-4}
CTLPORT=${CTLPORT:-$((16817 + ${GP_PORT_OFFSET:-0}))}
BASEPORT=${BASEPORT:-$((17000 + ${GP_PORT_OFFSET:-0}))}
# the running Slurm release as a number, 22.05.8 -> 220508
SLURM_REL=$(slurmctld -V 2>/dev/null | awk '{ split($2, v, "."); printf "%d%02d%02d", v[1], v[2], v[3] }')
# Slurm's plugin directory (gen_conf), looked for only when a configuration
# is written and at most three levels down (Debian: /usr/lib/ARCH/slurm-wlm,
# RPM: /usr/lib64/slurm): a search of all of /usr/lib took 0.6 CPU-s, on
# every run of the harness (a test runs it for plugin on|off and
# gpuplace-conf too)
sysplugdir() {
	[ -n "${SYSPLUGDIR:-}" ] || SYSPLUGDIR=$(dirname "$(find /usr/lib /usr/lib64 /usr/local/lib -maxdepth 3 -name 'job_submit_defaults.so' 2>/dev/null | head -n1)")
	echo "$SYSPLUGDIR"
}
export SLURM_CONF=$D/etc/slurm.conf

log() { printf '# harness: %s\n' "$*" >&2; }
# alive PID: exists and is not a zombie (PID 1 may reap orphans late)
alive() { [ -n "${1:-}" ] && [ -e "/proc/$1" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]; }
# ours PID: the PID from our pid file still runs one of our daemons (guards
# against PID reuse; it is never used to find processes by name).  Debian
# 13 installs the daemons as slurmd-wlm and slurmctld-wlm behind
# alternatives links, and slurmctld 24.11+ re-executes itself at a
# reconfigure from readlink(/proc/self/exe): that process is slurmctld-wlm.
ours() { case "$(cat "/proc/$1/comm" 2>/dev/null)" in slurmd|slurmctld|slurmd-wlm|slurmctld-wlm|munged|memcheck-*) return 0 ;; esac; return 1; }

# ---- layout: leaves, NVLink domains and racks as blocks of nodes ----------
PER_LEAF=$((N / LEAVES))
NVL_NODES=${NVL_NODES:-$PER_LEAF}
RACK_NODES=${RACK_NODES:-$PER_LEAF}
check_layout() {
	local w e n seen bad
	case "$N$LEAVES$NVL_NODES$RACK_NODES$GPUS" in *[!0-9]*) log "N, LEAVES, NVL_NODES, RACK_NODES and GPUS must be whole numbers"; return 1 ;; esac
	if [ "$LEAVES" -lt 1 ] || [ "$LEAVES" -gt 26 ] || [ $((N % LEAVES)) != 0 ] || [ "$PER_LEAF" -lt 2 ]; then
		log "N=$N must be a multiple of LEAVES=$LEAVES (1..26) with at least 2 nodes per leaf"
		return 1
	fi
	if [ "$NVL_NODES" -lt 1 ] || [ "$RACK_NODES" -lt 1 ] || [ $(((N + NVL_NODES - 1) / NVL_NODES)) -gt 26 ] ||
		[ $(((N + RACK_NODES - 1) / RACK_NODES)) -gt 26 ]; then
		log "NVL_NODES=$NVL_NODES and RACK_NODES=$RACK_NODES must give 1..26 domains and racks"
		return 1
	fi
	if [ -n "${WEIGHTS:-}" ]; then
		set -- $WEIGHTS
		if [ $# != "$LEAVES" ]; then log "WEIGHTS=\"$WEIGHTS\" must give one weight per leaf ($LEAVES)"; return 1; fi
		for w in "$@"; do case "$w" in '' | *[!0-9]*) log "WEIGHTS: '$w' is not a whole number"; return 1 ;; esac; done
	fi
	if [ -n "${RACK_KW:-}" ]; then
		set -- $RACK_KW
		if [ $# != "$(nracks)" ]; then log "RACK_KW=\"$RACK_KW\" must give one cap per rack ($(nracks))"; return 1; fi
	fi
	if [ -n "${NODE_GPUS:-}" ]; then
		set -- $NODE_GPUS
		if [ $# != "$N" ]; then log "NODE_GPUS=\"$NODE_GPUS\" must give one word per node ($N)"; return 1; fi
		for w in "$@"; do
			# a type once per node; at most 32 GPUs per node (the
			# model's limit, cost_model/model.h GP_MAX_GPUS_PER_NODE)
			bad=""
			[[ $w =~ ^[a-z][a-z0-9_]*:[1-9][0-9]?(,[a-z][a-z0-9_]*:[1-9][0-9]?)*$ ]] || bad=1
			n=0 seen=" "
			for e in ${w//,/ }; do
				case "$seen" in *" ${e%%:*} "*) bad=1 ;; esac
				seen="$seen${e%%:*} "
				[ -n "$bad" ] || n=$((n + ${e#*:}))
			done
			if [ -n "$bad" ] || [ "$n" -gt 32 ]; then
				log "NODE_GPUS: '$w' is not TYPE:COUNT[,TYPE:COUNT...] with each type once and 1..32 GPUs"
				return 1
			fi
		done
	fi
	for w in $(gpu_types); do
		profile_of "$w" >/dev/null || { log "NODE_GPUS: no GpuProfile figures for type '$w' in the harness (profile_of)"; return 1; }
	done
}
letter() { printf "\\$(printf '%03o' $((65 + $1)))"; }
nracks() { echo $(((N + RACK_NODES - 1) / RACK_NODES)); }
nnvl() { echo $(((N + NVL_NODES - 1) / NVL_NODES)); }
leaf_of() { echo "leaf$(letter $((($1 - 1) / PER_LEAF)))"; }
nvl_of() { echo "nvl$(letter $((($1 - 1) / NVL_NODES)))"; }
rack_of() { echo "rack$(letter $((($1 - 1) / RACK_NODES)))"; }
weight_of() { [ -n "${WEIGHTS:-}" ] && echo "$WEIGHTS" | awk -v k=$((($1 - 1) / PER_LEAF + 1)) '{ print $k }'; }
range() { if [ "$1" = "$2" ]; then echo "$1"; else echo "[$1-$2]"; fi; }
# "first last" of each block of BLOCK consecutive nodes, one line each
blocks() { local b=$1 i; for i in $(seq 1 "$b" "$N"); do echo "$i $((i + b - 1 > N ? N : i + b - 1))"; done; }
# GPUs of node $1 by type: "a100:4" or "a100:4,l40s:2" (NODE_GPUS)
read -r -a NODE_GPUS_A <<<"${NODE_GPUS:-}"
gpus_of() { if [ -n "${NODE_GPUS:-}" ]; then echo "${NODE_GPUS_A[$(($1 - 1))]}"; else echo "a100:$GPUS"; fi; }
# the GPU types of NODE_GPUS (or a100), each once; in the shell itself (no
# process per node: the harness runs on loaded machines)
gpu_types() {
	local w e seen=" "
	for w in ${NODE_GPUS:-a100:$GPUS}; do
		for e in ${w//,/ }; do
			case "$seen" in *" ${e%%:*} "*) ;; *) seen="$seen${e%%:*} " && echo "${e%%:*}" ;; esac
		done
	done
}
# the most GPUs of any node (its fake devices are shared by all nodes)
max_gpus() {
	local w e n max=0
	for w in ${NODE_GPUS:-a100:$GPUS}; do
		n=0
		for e in ${w//,/ }; do n=$((n + ${e#*:})); done
		[ "$n" -gt "$max" ] && max=$n
	done
	echo "$max"
}
rack_kw() { # cap of rack number $1 (0-based)
	if [ -n "${RACK_KW:-}" ]; then echo "$RACK_KW" | awk -v k=$(($1 + 1)) '{ print $k }'
	elif [ "$1" = 0 ]; then echo "${RACKA_KW:-20}"
	elif [ "$1" = 1 ]; then echo "${RACKB_KW:-20}"
	else echo 20; fi
}

# NodeName lines: consecutive nodes with the same leaf, domain, rack and
# weight share one line
node_lines() {
	local i first=1 key prev="" w f g bpl lf
	for i in $(seq 1 $((N + 1))); do
		if [ "$i" -le "$N" ]; then key="$(leaf_of "$i") $(nvl_of "$i") $(rack_of "$i") $(gpus_of "$i") $(weight_of "$i")"; else key=END; fi
		if [ -n "$prev" ] && [ "$key" != "$prev" ]; then
			set -- $prev
			w=${5:+ Weight=$5}
			g=$(echo "$4" | sed 's/^/gpu:/; s/,/,gpu:/g')
			if [ "${TOPOLOGY:-tree}" = block ]; then
				# the features `gpuplace conf --what nodes` writes for
				# this model: the lowest group of blocks over the
				# block (its leaf's blocks, or with one block per
				# leaf both leaves' blocks) and the block as the
				# NVLink domain
				if [ "$NVL_NODES" -lt "$PER_LEAF" ]; then
					bpl=$((PER_LEAF / NVL_NODES)) lf=$(((first - 1) / PER_LEAF))
					f="gpsw_blk$(letter $((lf * bpl)))-blk$(letter $((lf * bpl + bpl - 1))),gpnvl_blk${2#nvl},gprack_$3"
				else
					f="gpsw_blkA-blkB,gpnvl_blk${1#leaf},gprack_$3"
				fi
			else
				f="gpsw_$1,gpnvl_$2,gprack_$3"
			fi
			[ "${DOMAIN_FEATURES:-yes}" = no ] && f=site
			echo "NodeName=n$(range $first $((i - 1))) NodeHostname=n$(range $first $((i - 1))) NodeAddr=127.0.1.$(range $first $((i - 1))) Port=$(range $((BASEPORT + first)) $((BASEPORT + i - 1))) Sockets=2 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=16000 Gres=$g Feature=$f$w State=UNKNOWN"
			first=$i
		fi
		prev=$key
	done
}

# The GpuProfile line of GPU type $1; 1 for a type without figures here.
profile_of() {
	case "$1" in
	# A100 SXM: 312 dense bf16 TFLOP/s, 2039 GB/s HBM, 12 NVLinks x 25
	# GB/s = 300 GB/s per direction, 400 W TDP (NVIDIA A100 datasheet;
	# calibration.md 1.4, 4)
	a100) echo "GpuProfile=a100 TFLOPS=312 HBMGBps=2039 NVLinkGBps=300 TDPWatts=400 IdleWatts=50" ;;
	# H100 SXM5: 989 dense bf16 TFLOP/s, 3350 GB/s HBM3 (NVIDIA H100
	# datasheet), 450 GB/s NVLink line rate per direction, 700 W TDP
	# (etc/superpod-h100/gpuplace.conf gives the sources)
	h100) echo "GpuProfile=h100 TFLOPS=989 HBMGBps=3350 NVLinkGBps=450 TDPWatts=700 IdleWatts=70" ;;
	# L40S, PCIe only: 362 dense bf16 TFLOP/s, 864 GB/s GDDR6, no NVLink,
	# 350 W TDP (NVIDIA L40S datasheet; etc/mixed-pcie/gpuplace.conf)
	l40s) echo "GpuProfile=l40s TFLOPS=362 HBMGBps=864 NVLinkGBps=0 TDPWatts=350 IdleWatts=35" ;;
	*) return 1 ;;
	esac
}

gen_gpuplace_conf() {
	local a b k=0 t
	# gpuplace.conf: the facts Slurm has no word for
	{
		for t in $(gpu_types); do profile_of "$t"; done
		cat <<CONF
FabricLevel=0 LinkGBps=25 LatencyUs=0.5
FabricLevel=1 LinkGBps=25 Oversubscription=2 LatencyUs=0.5
NodeName=n[1-$N] Rails=$GPUS NicGBps=25
CONF
		# topology/block: the blocks are the NVLink domains
		if [ "${TOPOLOGY:-tree}" != block ]; then
			blocks "$NVL_NODES" | while read -r a b; do echo "NVLinkDomain=$(nvl_of "$a") Nodes=n$(range "$a" "$b")"; done
		fi
		blocks "$RACK_NODES" | while read -r a b; do
			echo "Rack=$(rack_of "$a") Nodes=n$(range "$a" "$b") PowerCapKW=$(rack_kw $(((a - 1) / RACK_NODES))) NodeBaseWatts=1000"
		done
		cat <<CONF
Storage=nvme Scope=node WriteGBps=5
Storage=pfs Scope=cluster WriteGBps=50
CONF
		if [ -n "${TELEMETRY_URL:-}" ]; then
			echo "Telemetry=prom Type=prometheus URL=$TELEMETRY_URL Query=\"sum by (rack) (node_power_watts)\" Interval=2 Timeout=1"
		fi
		if [ -n "${GPUPLACE_EXTRA:-}" ]; then printf '%s\n' "$GPUPLACE_EXTRA"; fi
	} >"$D/etc/gpuplace.conf.new"
	# one rename: the plugin never reads a half-written file
	mv -f "$D/etc/gpuplace.conf.new" "$D/etc/gpuplace.conf"
}

# gres.conf lines: consecutive nodes with the same GPUs share a line per
# type, each type's devices numbered after the types before it on the
# node (gres.conf(5): one line per type with its own File=)
gres_lines() {
	local i first=1 prev="" key spec t c at
	for i in $(seq 1 $((N + 1))); do
		if [ "$i" -le "$N" ]; then key=$(gpus_of "$i"); else key=END; fi
		if [ -n "$prev" ] && [ "$key" != "$prev" ]; then
			at=0
			for spec in $(echo "$prev" | tr ',' ' '); do
				t=${spec%%:*} c=${spec#*:}
				echo "NodeName=n$(range $first $((i - 1))) Name=gpu Type=$t File=$D/dev/nvidia$(range $at $((at + c - 1)))"
				at=$((at + c))
			done
			first=$i
		fi
		prev=$key
	done
}

gen_conf() {
	local i g a b sw=""
	check_layout
	mkdir -p "$D"/{etc,state,log,pids,spool,dev,munge,out}
	for g in $(seq 0 $(($(max_gpus) - 1))); do [ -e "$D/dev/nvidia$g" ] || mknod "$D/dev/nvidia$g" c 195 "$g"; done
	for i in $(seq 1 "$N"); do mkdir -p "$D/spool/n$i"; done
	cat >"$D/etc/slurm.conf" <<CONF
ClusterName=gpharness
SlurmctldHost=$(hostname -s)(${CTLD_ADDR:-127.0.0.1})
${BACKUP_CTLD:+SlurmctldHost=$BACKUP_CTLD}
${CTLD_TIMEOUT:+SlurmctldTimeout=$CTLD_TIMEOUT}
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
PluginDir=$(sysplugdir)${PLUGIN_DIR:+:$PLUGIN_DIR}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/$([ -n "${ACCT_PORT:-}" ] && echo slurmdbd || echo none)
${ACCT_PORT:+AccountingStorageHost=127.0.0.1}
${ACCT_PORT:+AccountingStoragePort=$ACCT_PORT}
${ACCT_PORT:+AccountingStoragePass=$D/munge/munge.sock}
${ACCT_PORT:+AccountingStorageTRES=gres/gpu}
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
$([ "${TOPOLOGY:-tree}" = yaml ] || echo "TopologyPlugin=topology/${TOPOLOGY:-tree}")
ReturnToService=2
SlurmdParameters=config_overrides
${JOB_SUBMIT:+JobSubmitPlugins=$JOB_SUBMIT}
${SCHED_PARAMS:+SchedulerParameters=$SCHED_PARAMS}
${PROLOG:+Prolog=$PROLOG}
${LICENSES:+Licenses=$LICENSES}
${MCS_PLUGIN:+MCSPlugin=$MCS_PLUGIN}
${MCS_PARAMS:+MCSParameters=$MCS_PARAMS}
${EPILOG:+Epilog=$EPILOG}
PlugStackConfig=$D/etc/plugstack.conf
$(node_lines)
${PARTITIONS:-PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP}
CONF
	: >"$D/etc/plugstack.conf"
	for p in ${SPANK_PLUGINS:-}; do echo "required $p" >>"$D/etc/plugstack.conf"; done
	{
		echo "AutoDetect=off"
		gres_lines
	} >"$D/etc/gres.conf"
	# slurmd from 24.05 on initialises a cgroup plugin unless told not to,
	# and dies when it finds no cgroup file system it can use (Debian 13's
	# 24.11 in a chroot): cgroup.conf beside slurm.conf says CgroupPlugin=
	# disabled, a value 24.05 introduced (22.05 knows only autodetect, v1, v2)
	if [ "${SLURM_REL:-0}" -ge 240500 ]; then
		echo "CgroupPlugin=disabled" >"$D/etc/cgroup.conf"
	fi
	rm -f "$D/etc/topology.conf" "$D/etc/topology.yaml"
	if [ "${TOPOLOGY:-tree}" = yaml ]; then
		printf '%s\n' "${TOPOLOGY_YAML:?TOPOLOGY=yaml needs TOPOLOGY_YAML}" >"$D/etc/topology.yaml"
	elif [ "${TOPOLOGY:-tree}" = block ]; then
		# blocks of NVL_NODES nodes (PER_LEAF by default: one block per
		# leaf), grouped by leaf, then the whole cluster
		blocks "$NVL_NODES" | while read -r a b; do echo "BlockName=blk$(letter $(((a - 1) / NVL_NODES))) Nodes=n$(range "$a" "$b")"; done >"$D/etc/topology.conf"
		if [ "$NVL_NODES" -lt "$PER_LEAF" ]; then
			echo "BlockSizes=$NVL_NODES,$PER_LEAF,$N" >>"$D/etc/topology.conf"
		else
			echo "BlockSizes=$PER_LEAF,$N" >>"$D/etc/topology.conf"
		fi
	else
		blocks "$PER_LEAF" | while read -r a b; do echo "SwitchName=$(leaf_of "$a") Nodes=n$(range "$a" "$b")"; done >"$D/etc/topology.conf"
		for i in $(seq 0 $((LEAVES - 1))); do sw="$sw${sw:+,}leaf$(letter "$i")"; done
		echo "SwitchName=spine Switches=$sw" >>"$D/etc/topology.conf"
	fi
	gen_gpuplace_conf
	if [ -n "${LICENSES_CMD:-}" ]; then
		sh -c "$LICENSES_CMD" >"$D/etc/licenses.out" ||
			{ log "LICENSES_CMD failed: $LICENSES_CMD"; return 1; }
		grep '^Licenses=' "$D/etc/licenses.out" >>"$D/etc/slurm.conf" ||
			{ log "LICENSES_CMD wrote no Licenses= line"; return 1; }
	fi
	rm -f "$D/etc/resources.yaml"
	if [ -n "${RESOURCES_CMD:-}" ]; then
		sh -c "$RESOURCES_CMD" >"$D/etc/resources.yaml" ||
			{ log "RESOURCES_CMD failed: $RESOURCES_CMD"; return 1; }
	fi
}

# Start slurmctld (clean start with "-c" as $1) and wait until it answers;
# its log is read from byte $2 on, so a fatal line of an earlier run of the
# same cluster does not count.
start_ctld() {
	local clean=${1:-} from=${2:-0} ok=0 t
	if [ -n "${VALGRIND_LOG:-}" ]; then
		# foreground (-D) under valgrind; slurmctld still writes its pid file.
		# By its absolute path: slurmctld 24.11+ re-executes itself as
		# slurmscriptd from argv[0] when that is absolute, else from
		# readlink(/proc/self/exe), which valgrind 3.24 (Debian 13) answers
		# without a terminating NUL, so the re-exec fails
		valgrind --leak-check=full --errors-for-leak-kinds=definite --num-callers=30 \
			--suppressions="$(dirname "$0")/slurmctld.supp" \
			--log-file="$VALGRIND_LOG" "$(command -v slurmctld)" -D -f "$SLURM_CONF" $clean </dev/null >/dev/null 2>&1 &
	else
		slurmctld -f "$SLURM_CONF" $clean
	fi
	# slurmctld exits 0 before it daemonises: watch its log for fatal errors
	for t in $(seq 1 ${VALGRIND_LOG:+4}60); do
		if tail -c +$((from + 1)) "$D/log/slurmctld.log" 2>/dev/null | grep -q 'fatal:'; then break; fi
		if timeout 5 scontrol ping 2>/dev/null | grep -q 'UP'; then ok=1; break; fi
		sleep 0.25
	done
	if [ $ok = 0 ]; then
		log "slurmctld failed to start:"
		tail -c +$((from + 1)) "$D/log/slurmctld.log" 2>/dev/null | grep -E 'fatal|error' | tail -n 5 >&2 || true
		return 1
	fi
}

logsize() { stat -c %s "$D/log/slurmctld.log" 2>/dev/null || echo 0; }

up() {
	[ "$(id -u)" = 0 ] || { log "must run as root"; return 1; }
	gen_conf
	chmod 755 "$D/munge"
	[ -s "$D/munge/munge.key" ] || { dd if=/dev/urandom of="$D/munge/munge.key" bs=1024 count=1 status=none; chmod 400 "$D/munge/munge.key"; }
	# a munged of this directory may run already (the caller's slurmdbd
	# needed it first: slurm_sacct.sh)
	if ! { [ -f "$D/pids/munged.pid" ] && alive "$(cat "$D/pids/munged.pid")" && ours "$(cat "$D/pids/munged.pid")"; }; then
		munged --force --socket="$D/munge/munge.sock" --key-file="$D/munge/munge.key" \
			--pid-file="$D/pids/munged.pid" --log-file="$D/log/munged.log" \
			--seed-file="$D/munge/munged.seed"
	fi
	local t i
	if ! start_ctld -c "$(logsize)"; then
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
	# what the nodes that never came up said (a port taken by another
	# process shows here as a bind error)
	for i in $(timeout 5 sinfo -h -N -t unknown,down,notresponding -o %N 2>/dev/null | sort -u); do
		grep -E 'error|fatal' "$D/log/slurmd-$i.log" 2>/dev/null | tail -n 2 | sed "s/^/slurmd $i: /" >&2
	done
	return 1
}

# Stop slurmctld by its recorded PID (jobs keep running under their
# slurmstepd) and start it again from its saved state.
restart_ctld() {
	local p t from
	p=$(cat "$D/pids/slurmctld.pid" 2>/dev/null || true)
	if [ -n "$p" ] && alive "$p" && ours "$p"; then
		kill -TERM "$p"
		for t in $(seq 1 ${VALGRIND_LOG:+4}80); do alive "$p" || break; sleep 0.25; done
		if alive "$p"; then log "slurmctld $p did not stop"; return 1; fi
	fi
	# FORGET_ORIGINALS=1: start as a slurmctld whose plugin kept no
	# originals (its file lost, or a plugin before they were kept)
	[ -z "${FORGET_ORIGINALS:-}" ] || rm -f "$D/state/gpuplace_originals" "$D/state/gpuplace_originals.journal"
	from=$(logsize)
	start_ctld "" "$from" || return 1
	# the nodes are UNKNOWN until their slurmd register again
	for t in $(seq 1 240); do
		[ -z "$(timeout 5 sinfo -h -N -t unknown,no_respond -o %N 2>/dev/null)" ] && return 0
		sleep 0.25
	done
	log "nodes did not register again after the restart:"
	timeout 5 sinfo -N >&2 || true
	return 1
}

# JobSubmitPlugins of the running slurmctld ("(null)" when none)
running_plugins() { timeout 10 scontrol show config 2>/dev/null | awk -F' = ' '/^JobSubmitPlugins / { print $2 }'; }

# JobSubmitPlugins on or off on the running cluster.  scontrol reconfigure
# loads or unloads a job_submit plugin when the list changes (it does not
# reload a rebuilt .so under the same list: restart for that).  Returns when
# slurmctld runs with the new list and answers.
plugin() {
	local want=$1 val=${JOB_SUBMIT:-gpuplace} t try
	[ -f "$SLURM_CONF" ] || { log "no cluster under $D"; return 1; }
	sed -i '/^JobSubmitPlugins=/d' "$SLURM_CONF"
	case "$want" in
	on) echo "JobSubmitPlugins=$val" >>"$SLURM_CONF" ;;
	off) ;;
	*) log "plugin on|off"; return 2 ;;
	esac
	if [ "${PLUGIN_SWITCH:-reconfigure}" = restart ]; then
		restart_ctld
		return
	fi
	# Done when the running slurmctld reports the new list (scontrol show
	# config), which holds whether reconfigure is carried out in place
	# (22.05) or by a new slurmctld process (23.11 and later).  On a loaded
	# machine the request can time out on the client side and still be
	# carried out: the running configuration decides, and one more request
	# is sent if it has not changed within 20 s.
	for try in 1 2; do
		timeout 30 scontrol reconfigure || log "scontrol reconfigure: no answer (try $try)"
		for t in $(seq 1 80); do
			if [ "$(running_plugins)" = "$([ "$want" = on ] && echo "$val" || echo "(null)")" ] &&
				timeout 10 scontrol ping 2>/dev/null | grep -q UP; then
				return 0
			fi
			sleep 0.25
		done
	done
	log "slurmctld did not complete the reconfigure"
	return 1
}

down() {
	local pids="" f p left="" t
	if [ -f "$D/pids/slurmctld.pid" ] && alive "$(cat "$D/pids/slurmctld.pid")"; then
		# every user's jobs (tests submit as other users too): a job
		# still running when its slurmd stops leaves its slurmstepd
		# behind
		timeout 10 squeue -h -o %i 2>/dev/null | xargs -r timeout 10 scancel 2>/dev/null || true
		for t in $(seq 1 20); do
			[ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
			sleep 0.25
		done
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
status) sinfo -N -o '%N %T %G %f %w' ;;
plugin) plugin "${2:-}" ;;
gpuplace-conf) check_layout && gen_gpuplace_conf ;;
*) echo "usage: $0 up|down|status|plugin on|off|gpuplace-conf" >&2; exit 2 ;;
esac
