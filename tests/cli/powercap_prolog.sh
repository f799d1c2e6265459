#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# powercap_prolog.sh - etc/prolog/gpuplace-powercap against stand-ins for
# nvidia-smi (first on PATH) and scontrol.  The nvidia-smi stand-in keeps
# each GPU's power limit in a file, reports the limits of an H200 as
# nvidia-smi reported them on a real one (default 700 W, min 200 W, max
# 700 W; shared/data/hwloc/README.md) and refuses a limit outside them
# with nvidia-smi's own message; the scontrol stand-in keeps the job's
# AdminComment in a file and updates it.  Checked: the cap reaches exactly
# the job's GPUs clamped into the GPU's limits, is read back, and what the
# GPU enforces is recorded in the AdminComment the controller reads; the
# epilog restores each GPU's default; every fault (no cap, a bad cap, a
# failing or missing nvidia-smi, unreadable GPU indices) leaves the node
# usable: exit 0 and a log line.  Real GPUs are not needed; on a GPU node
# the same script drives the real nvidia-smi.  Prints TAP.
set -u
top=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
script=$top/etc/prolog/gpuplace-powercap
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-powercap.XXXXXX")
trap 'rm -rf "$T"' EXIT
echo "1..20"
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $*"; }
check() {
	if eval "$1"; then ok "$2"; else
		not_ok "$2"
		for f in calls err admin; do [ -s "$T/$f" ] && sed "s/^/# $f: /" "$T/$f"; done
	fi
}

mkdir -p "$T/bin" "$T/gpu"
# nvidia-smi stand-in: records its arguments; -i G -pl W sets GPU G's
# limit when W lies in [min, max], else fails as nvidia-smi does (message
# as printed by nvidia-smi 595.71 on a 200-700 W GPU,
# stackhpc/ansible-slurm-appliance#975); --query-gpu answers from the
# GPU's file; the floor is $T/min when it exists; every call fails when
# $T/fail exists.
cat >"$T/bin/nvidia-smi" <<SMI
#!/bin/sh
echo "\$*" >>"$T/calls"
[ -e "$T/fail" ] && { echo "Unable to set power limit: Insufficient Permissions"; exit 4; }
min=\$(cat "$T/min" 2>/dev/null || echo 200)
max=700
def=700
g=
while [ \$# -gt 0 ]; do
	case "\$1" in
	-i) g=\$2; shift ;;
	-pl)
		w=\$2
		if awk -v w="\$w" -v lo="\$min" -v hi="\$max" 'BEGIN { exit !(w + 0 >= lo && w + 0 <= hi) }'; then
			printf '%s.00\n' "\$w" >"$T/gpu/\$g"
			echo "Power limit for GPU 00000000:0\$g:00.0 was set to \$w.00 W from 700.00 W."
			exit 0
		fi
		echo "Provided power limit \$w.00 W is not a valid power limit which should be between \$min.00 W and \$max.00 W for GPU 00000000:0\$g:00.0"
		echo "Terminating early due to previous errors."
		exit 2
		;;
	--query-gpu=power.min_limit,power.max_limit,power.default_limit) echo "\$min.00, \$max.00, \$def.00"; exit 0 ;;
	--query-gpu=power.default_limit) echo "\$def.00"; exit 0 ;;
	--query-gpu=power.limit) cat "$T/gpu/\$g" 2>/dev/null || echo "\$def.00"; exit 0 ;;
	esac
	shift
done
exit 0
SMI
# scontrol stand-in: show job prints the record with the AdminComment kept
# in $T/admin; update JobId=N AdminComment=TEXT replaces it
cat >"$T/bin/scontrol" <<SCTL
#!/bin/sh
case "\$1" in
show)
	echo "JobId=\$3 JobName=train"
	echo "   AdminComment=\$(cat "$T/admin")"
	;;
update)
	case "\$3" in AdminComment=*) printf '%s\n' "\${3#AdminComment=}" >"$T/admin" ;; esac
	;;
esac
SCTL
chmod +x "$T/bin/nvidia-smi" "$T/bin/scontrol"
plan="gpuplace: PIN n[1-2]; step 1.02 s, slowdown 1.05; cap 275 W (speed 0.93); checkpoint every 1920 s to pfs at +0 s"

run() { # mode, then VAR=value... ; stderr to $T/err
	m=$1
	shift
	: >"$T/calls"
	env -i PATH="$T/bin:/usr/bin:/bin" SLURM_JOB_ID=42 SLURMD_NODENAME=n1 "$@" sh "$script" "$m" 2>"$T/err"
}
reset() { rm -f "$T"/gpu/* "$T/min"; echo "$plan" >"$T/admin"; }
pl_calls() { grep -- "-pl" "$T/calls" | tr '\n' '|'; }

reset
run prolog SPANK_GPUPLACE_POWER_CAP_W=300 SLURM_JOB_GPUS=0,2
rc=$?
check '[ $rc = 0 ] && [ "$(pl_calls)" = "-i 0 -pl 300|-i 2 -pl 300|" ]' \
	"prolog caps exactly the job's GPUs (0,2) at the planned 300 W"
check 'grep -q "job 42: GPU 2 capped at 300 W" "$T/err"' "prolog logs each cap with the job id"
check '[ "$(cat "$T/gpu/0") $(cat "$T/gpu/2")" = "300.00 300.00" ] && grep -q -- "-i 2 --query-gpu=power.limit" "$T/calls"' \
	"each GPU's limit is read back after it is set"
check '[ "$(cat "$T/admin")" = "$plan; applied cap n1 300 W" ]' \
	"what the GPUs enforce is appended to the job's AdminComment"

run epilog SPANK_GPUPLACE_POWER_CAP_W=300 SLURM_JOB_GPUS=0,2
check 'grep -q -- "-i 0 -pl 700" "$T/calls" && grep -q -- "-i 2 -pl 700" "$T/calls" && ! grep -q -- "-i 1" "$T/calls" && [ "$(cat "$T/gpu/0")" = 700.00 ]' \
	"epilog restores each of the job's GPUs to its default limit (700 W)"

# issue 28: a planned 150 W cap on a GPU whose floor is 200 W
reset
run prolog SPANK_GPUPLACE_POWER_CAP_W=150 SLURM_JOB_GPUS=0,1
rc=$?
check '[ $rc = 0 ] && [ "$(pl_calls)" = "-i 0 -pl 200|-i 1 -pl 200|" ] && [ "$(cat "$T/gpu/1")" = 200.00 ]' \
	"a planned 150 W cap on a 200 W-floor GPU applies 200 W, never asks for 150 W"
check 'grep -q "GPU 0: planned cap 150 W is below its lowest limit 200 W: 200 W" "$T/err"' \
	"the clamp is logged with both numbers"
check '[ "$(cat "$T/admin")" = "$plan; applied cap n1 200 W" ]' \
	"the recorded cap is the 200 W read back, not the planned 150 W"

# a two-node job; on the second node the GPU's floor is its maximum
reset
echo 250 >"$T/min"
run prolog SPANK_GPUPLACE_POWER_CAP_W=300 SLURM_JOB_GPUS=3 GPUPLACE_NODENAME=n7
echo 700 >"$T/min"
run prolog SPANK_GPUPLACE_POWER_CAP_W=300 SLURM_JOB_GPUS=5 GPUPLACE_NODENAME=n8
check '[ "$(pl_calls)" = "-i 5 -pl 700|" ] && grep -q "GPU 5 capped at 700 W" "$T/err"' \
	"a GPU whose floor is its maximum is set to its maximum"
check '[ "$(cat "$T/admin")" = "$plan; applied cap n7 300 W; applied cap n8 700 W" ]' \
	"each node of a job appends its own record; the uncappable GPU is recorded at its real 700 W"

# the limits cannot be read: the planned cap is tried, refused, and what
# the GPU enforces (its default) is what is recorded
reset
cat >"$T/bin/nvidia-smi-nolimits" <<NOLIM
#!/bin/sh
case "\$*" in *power.min_limit*) echo "[N/A], [N/A], [N/A]"; exit 0 ;; esac
exec "$T/bin/nvidia-smi" "\$@"
NOLIM
chmod +x "$T/bin/nvidia-smi-nolimits"
run prolog SPANK_GPUPLACE_POWER_CAP_W=150 SLURM_JOB_GPUS=2 GPUPLACE_NVIDIA_SMI="$T/bin/nvidia-smi-nolimits"
check 'grep -q "power limits unreadable" "$T/err" && grep -q "nvidia-smi -i 2 -pl 150 failed: Provided power limit 150.00 W is not a valid" "$T/err" && grep -q "GPU 2: asked 150 W, the GPU enforces 700 W" "$T/err" && [ "$(cat "$T/admin")" = "$plan; applied cap n1 700 W" ]' \
	"limits unreadable and the cap refused: the GPU's real 700 W is recorded, and why is logged"

reset
run prolog SLURM_JOB_GPUS=1
check 'grep -qx -- "-i 1 -pl 275" "$T/calls"' "without the SPANK variable the cap comes from the job's AdminComment (275 W)"

run prolog SLURM_JOB_GPUS=1 GPUPLACE_SCONTROL=/bin/false
check '[ ! -s "$T/calls" ] && [ ! -s "$T/err" ]' "no cap planned: no nvidia-smi call, nothing logged"

run epilog SLURM_JOB_GPUS=1 GPUPLACE_SCONTROL=/bin/false
check '[ ! -s "$T/calls" ]' "no cap planned: the epilog makes no nvidia-smi call either"

reset
run prolog SPANK_GPUPLACE_POWER_CAP_W=lots SLURM_JOB_GPUS=0
rc=$?
check '[ $rc = 0 ] && [ ! -s "$T/calls" ] && grep -q "planned cap .lots. is not a number" "$T/err" && [ "$(cat "$T/admin")" = "$plan; applied cap n1 none" ]' \
	"a cap that is not a number: exit 0, GPUs untouched, logged, recorded as none"

run prolog SPANK_GPUPLACE_POWER_CAP_W=20 SLURM_JOB_GPUS=0
rc=$?
check '[ $rc = 0 ] && [ ! -s "$T/calls" ] && grep -q "outside \[100, 1500\] W" "$T/err"' \
	"an implausible cap (20 W): exit 0, GPUs untouched, the bound named"

reset
touch "$T/fail"
run prolog SPANK_GPUPLACE_POWER_CAP_W=300 SLURM_JOB_GPUS=3
rc=$?
rm -f "$T/fail"
check '[ $rc = 0 ] && grep -q "nvidia-smi -i 3 -pl 300 failed: Unable to set power limit" "$T/err" && [ "$(cat "$T/admin")" = "$plan; applied cap n1 none" ]' \
	"nvidia-smi failing: exit 0 (the node is not drained), nvidia-smi's reason logged, recorded as none"

reset
run prolog SPANK_GPUPLACE_POWER_CAP_W=300 SLURM_JOB_GPUS=0 GPUPLACE_NVIDIA_SMI=/nonexistent/nvidia-smi
rc=$?
check '[ $rc = 0 ] && grep -q "not found" "$T/err" && [ "$(cat "$T/admin")" = "$plan; applied cap n1 none" ]' \
	"a missing nvidia-smi: exit 0, logged, recorded as none (the job counts uncapped)"

run prolog SPANK_GPUPLACE_POWER_CAP_W=300 SLURM_JOB_GPUS='0;rm -rf /'
rc=$?
check '[ $rc = 0 ] && [ ! -s "$T/calls" ] && grep -q "cannot read the job.s GPU indices" "$T/err"' \
	"GPU indices that are not numbers are refused, nothing run"

run prolog SPANK_GPUPLACE_POWER_CAP_W=300
rc=$?
check '[ $rc = 0 ] && [ ! -s "$T/calls" ]' "a job with no GPU on this node: nothing done"
