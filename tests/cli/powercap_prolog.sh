#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# powercap_prolog.sh - etc/prolog/gpuplace-powercap against a recording
# stand-in for nvidia-smi (first on PATH) and for scontrol: the planned cap
# reaches exactly the job's GPUs, the epilog restores each GPU's default
# limit, and every fault (no cap, a bad cap, a failing or missing
# nvidia-smi, unreadable GPU indices) leaves the node usable: exit 0 and one
# log line.  Real GPUs are not needed; on a GPU node the same script drives
# the real nvidia-smi.  Prints TAP.
set -u
top=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
script=$top/etc/prolog/gpuplace-powercap
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-powercap.XXXXXX")
trap 'rm -rf "$T"' EXIT
echo "1..12"
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $*"; }
check() { if eval "$1"; then ok "$2"; else not_ok "$2"; sed 's/^/# /' "$T/calls" "$T/err" 2>/dev/null; fi; }

mkdir -p "$T/bin"
# nvidia-smi stand-in: records its arguments; answers the default-limit
# query with 400.00 (an A100 SXM's default, W); fails when $T/fail exists
cat >"$T/bin/nvidia-smi" <<EOF
#!/bin/sh
echo "\$*" >>"$T/calls"
[ -e "$T/fail" ] && { echo "Unable to set power limit: Insufficient Permissions"; exit 4; }
case "\$*" in *power.default_limit*) echo "400.00" ;; esac
exit 0
EOF
# scontrol stand-in: the job's record with the plugin's comment
cat >"$T/bin/scontrol" <<EOF
#!/bin/sh
echo "JobId=\$3 JobName=train"
echo "   AdminComment=gpuplace: PIN n[1-2]; step 1.02 s, slowdown 1.05; cap 275 W (speed 0.93); checkpoint every 1920 s to pfs at +0 s"
EOF
chmod +x "$T/bin/nvidia-smi" "$T/bin/scontrol"

run() { # mode, then VAR=value... ; stderr to $T/err
	m=$1
	shift
	: >"$T/calls"
	env -i PATH="$T/bin:/usr/bin:/bin" SLURM_JOB_ID=42 "$@" sh "$script" "$m" 2>"$T/err"
}

run prolog SPANK_GPUPLACE_POWER_CAP_W=300 SLURM_JOB_GPUS=0,2
rc=$?
check '[ $rc = 0 ] && [ "$(cat "$T/calls")" = "$(printf "%s\n" "-i 0 -pl 300" "-i 2 -pl 300")" ]' \
	"prolog caps exactly the job's GPUs (0,2) at the planned 300 W"
check 'grep -q "job 42: GPU 2 capped at 300 W" "$T/err"' "prolog logs each cap with the job id"

run epilog SPANK_GPUPLACE_POWER_CAP_W=300 SLURM_JOB_GPUS=0,2
check 'grep -q -- "-i 0 -pl 400" "$T/calls" && grep -q -- "-i 2 -pl 400" "$T/calls" && ! grep -q -- "-i 1" "$T/calls"' \
	"epilog restores each of the job's GPUs to its default limit (400 W)"

run prolog SLURM_JOB_GPUS=1
check 'grep -qx -- "-i 1 -pl 275" "$T/calls"' "without the SPANK variable the cap comes from the job's AdminComment (275 W)"

run prolog SLURM_JOB_GPUS=1 GPUPLACE_SCONTROL=/bin/false
check '[ ! -s "$T/calls" ] && [ ! -s "$T/err" ]' "no cap planned: no nvidia-smi call, nothing logged"

run epilog SLURM_JOB_GPUS=1 GPUPLACE_SCONTROL=/bin/false
check '[ ! -s "$T/calls" ]' "no cap planned: the epilog makes no nvidia-smi call either"

run prolog SPANK_GPUPLACE_POWER_CAP_W=lots SLURM_JOB_GPUS=0
rc=$?
check '[ $rc = 0 ] && [ ! -s "$T/calls" ] && grep -q "planned cap .lots. is not a number" "$T/err"' \
	"a cap that is not a number: exit 0, GPUs untouched, logged"

run prolog SPANK_GPUPLACE_POWER_CAP_W=20 SLURM_JOB_GPUS=0
rc=$?
check '[ $rc = 0 ] && [ ! -s "$T/calls" ] && grep -q "outside \[100, 1500\] W" "$T/err"' \
	"an implausible cap (20 W): exit 0, GPUs untouched, the bound named"

touch "$T/fail"
run prolog SPANK_GPUPLACE_POWER_CAP_W=300 SLURM_JOB_GPUS=3
rc=$?
rm -f "$T/fail"
check '[ $rc = 0 ] && grep -q "nvidia-smi -i 3 -pl 300 failed: Unable to set power limit" "$T/err"' \
	"nvidia-smi failing: the prolog still exits 0 (the node is not drained) and logs nvidia-smi's reason"

run prolog SPANK_GPUPLACE_POWER_CAP_W=300 SLURM_JOB_GPUS=0 GPUPLACE_NVIDIA_SMI=/nonexistent/nvidia-smi
rc=$?
check '[ $rc = 0 ] && grep -q "failed" "$T/err"' "a missing nvidia-smi: exit 0, logged"

run prolog SPANK_GPUPLACE_POWER_CAP_W=300 SLURM_JOB_GPUS='0;rm -rf /'
rc=$?
check '[ $rc = 0 ] && [ ! -s "$T/calls" ] && grep -q "cannot read the job.s GPU indices" "$T/err"' \
	"GPU indices that are not numbers are refused, nothing run"

run prolog SPANK_GPUPLACE_POWER_CAP_W=300
rc=$?
check '[ $rc = 0 ] && [ ! -s "$T/calls" ]' "a job with no GPU on this node: nothing done"
