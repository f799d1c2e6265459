#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm_lic.sh - the racks' power as Slurm cluster licenses, one per rack
# (gpuplace.conf PowerLicenses=, gpuplace.conf(5)), in a real slurmctld of
# any release with 4 slurmd of 4 fake A100 each (tests/slurm/harness.sh):
# rackA = n[1-2], rackB = n[3-4], 1,000 W base and 50 W idle per A100 (the
# harness's gpuplace.conf), so each rack idles at 2 x (1,000 + 4 x 50) =
# 2,400 W.  rackA's cap, 3.45 kW, leaves 1,050 W: three A100 at 400 - 50 W
# of its eight; rackB's, 20 kW, room for all its GPUs.  `gpuplace conf
# --what licenses` writes slurm.conf's Licenses= line from that
# gpuplace.conf, job_submit/gpuplace keeps every GPU job to one rack (its
# gprack_ feature, or the nodes it PINs) and adds its watts to that rack's
# license, and Slurm's own license accounting keeps rackA under its cap:
#   - 20 one-GPU jobs and 4 two-GPU jobs, 36 GPUs on a 16-GPU cluster: at
#     no sample do the jobs running in rackA hold more than 3 GPUs (the
#     GPUs in use, read from the jobs' records, not from the licenses);
#   - the rest start in rackB (its 8 GPUs all busy) or wait, some with
#     Slurm's Reason=Licenses;
#   - when rackA's running jobs end, jobs waiting on its license start
#     there, still at most 3 GPUs;
#   - when rackB's running jobs end, the steering pass moves jobs waiting
#     on rackA's license to rackB (features and licenses in one update),
#     where they start;
#   - a pending job gpuplace kept to a rack, moved by `scontrol update` to
#     a partition of the other rack's nodes, gets its own constraint and
#     licenses back and runs there, as on stock Slurm (with the rack's
#     feature and license left it pended as BadConstraints for good): a
#     one-GPU job gpuplace passes and a two-GPU job it places.
# Assertions check outcomes, each wait bounded and ended by the state it
# waits for.  Skips, saying why, when not root or when Slurm is missing.
# Prints TAP.  GP_KEEP=1 keeps the cluster.
set -u
top=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
N_TESTS=15
EXTRA_PROGS="scancel"
. "$top/tests/slurm/prelude.sh"

export D=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-lic.XXXXXX")
chmod 755 "$D"
export CTLPORT=${CTLPORT:-$((16867 + ${GP_PORT_OFFSET:-0}))} BASEPORT=${BASEPORT:-$((18500 + ${GP_PORT_OFFSET:-0}))}
export JOB_SUBMIT=gpuplace PLUGIN_DIR=$plugdir
export N=4 LEAVES=2 RACK_NODES=2 GPUS=4 RACK_KW="3.45 20"
export GPUPLACE_EXTRA="PowerLicenses=rackpw"
# partition ra: rackA's nodes alone, for the update of the last checks
export PARTITIONS="PartitionName=gpu Nodes=ALL Default=YES State=UP
PartitionName=ra Nodes=n[1-2] State=UP"
export LICENSES_CMD="$build/gpuplace conf --conf-dir $D/etc --what licenses"
# the plugin's per-job lines (verbose): the rack and license it added
export CTLDEBUG=verbose
export SLURM_CONF=$D/etc/slurm.conf
H="bash $top/tests/slurm/harness.sh"
. "$top/tests/slurm/lib.sh"

cluster_up "cluster with rack licenses and job_submit/gpuplace did not come up (Slurm $ver)" 'gpuplace|fatal|error|icense' "$D/etc/licenses.out"
line=$(grep '^Licenses=' "$D/etc/slurm.conf")
lic=$(scontrol show license 2>&1)
check '[ "$line" = "Licenses=rackpw_rackA:1050,rackpw_rackB:17600" ] && echo "$lic" | grep -q "rackpw_rackA" && echo "$lic" | grep -q "Total=1050"' \
	"gpuplace conf writes rackA's license as 3,450 - 2,400 = 1,050 W and rackB's as 17,600 W, and Slurm $ver has them" \
	"$line" "$lic"

# the plugin asks for them once its thread has seen slurmctld have them
# (30 s at most)
for t in $(seq 1 120); do
	grep -q "gpuplace: PowerLicenses=rackpw: slurmctld has the 2 racks' licenses" "$D/log/slurmctld.log" && break
	sleep 0.25
done
check 'grep -q "gpuplace: PowerLicenses=rackpw: slurmctld has the 2 racks. licenses" "$D/log/slurmctld.log"' \
	"job_submit/gpuplace sees slurmctld's rack licenses and says so" \
	"$(grep 'gpuplace:' "$D/log/slurmctld.log" | head -n 8)"

# GPUs the running jobs hold in rackA (n1, n2) and rackB (n3, n4), from
# the jobs' records (gpus_in_use: one node:index line per GPU)
max_a=0
max_used=0
sample() {
	local g u
	g=$(gpus_in_use)
	in_a=$(echo "$g" | grep -c '^n[12]:')
	in_b=$(echo "$g" | grep -c '^n[34]:')
	[ "$in_a" -gt "$max_a" ] && max_a=$in_a
	u=$(scontrol show license rackpw_rackA 2>/dev/null | grep -o 'Used=[0-9]*' | cut -d= -f2)
	[ "${u:-0}" -gt "$max_used" ] && max_used=${u:-0}
}
# every node up and the plugin's reading showing it (3 s: its refresh is
# 2 s at most) before the burst
for t in $(seq 1 120); do
	[ "$(sinfo -h -N -t idle -o %N | sort -u | wc -l)" = 4 ] && break
	sleep 0.25
done
sleep 3
names=
for i in $(seq 1 20); do
	sbatch -Q -J "o$i" --gres=gpu:1 -t 5 -o /dev/null --wrap='sleep 300' 2>>"$D/sub.err"
	names=${names:+$names,}o$i
done
for i in 1 2 3 4; do
	sbatch -Q -J "c$i" -N1 --gres=gpu:2 -t 5 -o /dev/null --wrap='sleep 300' 2>>"$D/sub.err"
	names=$names,c$i
done
# until rackB's 8 GPUs and rackA's 3 are busy and a job waits on a license
# (60 s at most)
for t in $(seq 1 120); do
	sample
	nlic=$(squeue -h -t PD -n "$names" -o '%r' | grep -c '^Licenses$')
	[ "$in_b" = 8 ] && [ "$in_a" = 3 ] && [ "$nlic" -ge 1 ] && break
	sleep 0.5
done
njobs=$(squeue -h -n "$names" | wc -l)
check '[ "$njobs" = 24 ] && [ ! -s "$D/sub.err" ]' "Slurm $ver takes all 24 jobs with their rack licenses ($njobs queued)" \
	"$(cat "$D/sub.err")" "$(grep 'gpuplace:' "$D/log/slurmctld.log" | grep -v 'cluster state' | tail -n 5)"
all_lic=$(squeue -h -n "$names" -o '%i' | while read -r j; do scontrol show job "$j" | grep -o 'Licenses=[^ ]*'; done | sort | uniq -c)
check '! echo "$all_lic" | grep -q "Licenses=(null)" && echo "$all_lic" | grep -q "rackpw_rackA:350" && echo "$all_lic" | grep -q "rackpw_rackB:350" && echo "$all_lic" | grep -q "rackpw_rack.:700"' \
	"every job asks for a rack's license: 350 W a one-GPU job, 700 W a two-GPU one" "$all_lic"
# the two-GPU jobs gpuplace PINs or CONSTRAINs: a PIN asks its node's
# rack, a CONSTRAIN is narrowed to the NVLink domain of one rack (nvlA is
# rackA's nodes, nvlB rackB's) and asks that rack
cjobs=$(for i in 1 2 3 4; do
	printf ' %s \n' "$(scontrol show job "$(squeue -h -n "c$i" -o %i)" 2>/dev/null | grep -oE '(Features|Licenses|ReqNodeList)=[^ ]*' | tr '\n' ' ')"
done)
cbad=$(echo "$cjobs" | awk '{
	ok = (/Features=\[gpnvl_nvlA\] / || / ReqNodeList=n[12] /) && /Licenses=rackpw_rackA:700 / ||
	     (/Features=\[gpnvl_nvlB\] / || / ReqNodeList=n[34] /) && /Licenses=rackpw_rackB:700 /
	if (!ok) print
}')
check '[ -z "$cbad" ]' "each two-GPU job is PINned or CONSTRAINed inside one rack and asks that rack for 700 W" "$cjobs"
check '[ "$in_b" = 8 ]' "jobs rackA has no room for start in rackB: its 8 GPUs busy" \
	"rackA $in_a, rackB $in_b GPUs" "$(squeue -h -o '%i %j %T %N %r')"
pend=$(squeue -h -t PD -n "$names" -o '%i %j %r')
check 'echo "$pend" | grep -q " Licenses$"' \
	"jobs kept to rackA wait with Slurm's Reason=Licenses" "$pend"
# rackA's running jobs end: jobs waiting on its license start there
waiting_a=$(squeue -h -t PD -n "$names" -o '%i %r %f' | awk '$2 == "Licenses" && $3 ~ /gprack_rackA/ { print $1 }')
run_a=$(squeue -h -t R -n "$names" -o '%i %N' | awk '$2 ~ /^n[12]$/ { print $1 }')
[ -n "$run_a" ] && scancel $run_a
started=
for t in $(seq 1 120); do
	sample
	for j in $waiting_a; do
		squeue -h -t R -j "$j" 2>/dev/null | grep -q . && started="$started $j"
	done
	[ -n "$started" ] && [ "$in_a" = 3 ] && break
	sleep 0.5
done
check '[ -n "$run_a" ] && [ -n "$started" ]' \
	"when rackA's jobs end, jobs waiting on its license start there (${started# })" \
	"cancelled: $run_a" "waited: $waiting_a" "$(squeue -h -o '%i %j %T %N %r %f')"
# rackB drains (its running jobs end, and the jobs waiting for it go):
# a job still waiting on rackA's license is moved to rackB by the
# steering pass and starts there
waiting_a=$(squeue -h -t PD -n "$names" -o '%i %r %f' | awk '$2 == "Licenses" && $3 ~ /gprack_rackA/ { print $1 }')
others=$(squeue -h -t PD -n "$names" -o '%i %r %f' | awk '!($2 == "Licenses" && $3 ~ /gprack_rackA/) { print $1 }')
run_b=$(squeue -h -t R -n "$names" -o '%i %N' | awk '$2 ~ /^n[34]$/ { print $1 }')
[ -n "$others" ] && scancel $others
[ -n "$run_b" ] && scancel $run_b
moved=
for t in $(seq 1 120); do
	sample
	for j in $waiting_a; do
		st=$(squeue -h -t R -j "$j" -o '%N' 2>/dev/null)
		case "$st" in n3|n4) moved="$moved $j" ;; esac
	done
	[ -n "$moved" ] && break
	sleep 0.5
done
if [ -z "$waiting_a" ]; then
	skip "no job waited on rackA's license when rackB drained"
else
	first=$(echo $moved | awk '{ print $1 }')
	rec=$([ -n "$first" ] && scontrol show job "$first" 2>/dev/null | grep -oE '(Features|Licenses)=[^ ]*' | tr '\n' ' ')
	check '[ -n "$moved" ] && echo "$rec" | grep -q "gprack_rackB" && echo "$rec" | grep -q "rackpw_rackB" && ! echo "$rec" | grep -q "rackpw_rackA"' \
		"the steering pass moves a job waiting on rackA's license to rackB when it drains, and it starts there ($first: $rec)" \
		"waited: $waiting_a" "$(squeue -h -o '%i %j %T %N %r %f')" \
		"$(grep 'gpuplace: job .* moved\|not moved' "$D/log/slurmctld.log" | tail -n 5)"
fi
for t in $(seq 1 10); do sample; sleep 0.5; done
check '[ "$max_a" -le 3 ] && [ "$max_a" -ge 3 ]' \
	"the jobs running in rackA never hold more than its 1,050 W allow (3 GPUs; at most $max_a seen)" \
	"$(squeue -h -o '%i %j %T %N %r')"
check '[ "$max_used" -le 1050 ]' \
	"rackA's license never has more than its 1,050 in use (at most $max_used seen)"
check 'grep -q "gpuplace: .* kept to rack rack[AB]: features gprack_rack[AB], licenses rackpw_rack[AB]:350" "$D/log/slurmctld.log"' \
	"slurmctld's log has the plugin's line for a job it kept to a rack" \
	"$(grep 'gpuplace:' "$D/log/slurmctld.log" | grep -v 'cluster state' | tail -n 5)"
scancel -n "$names" 2>/dev/null

# an update moving a held job kept to a rack to partition ra (n[1-2],
# rackA): a one-GPU job gpuplace passes, kept to the rack with the most
# room (rackB, whose license has 17,600 W), and a two-GPU job it places
# there; a reading of the job list (every 2 s) links each to what its
# user asked before the update
for t in $(seq 1 80); do [ "$(squeue -h | wc -l)" = 0 ] && break; sleep 0.25; done
rec() {
	scontrol show job "$1" 2>/dev/null | grep -oE '(Partition|Features|Licenses|ReqNodeList)=[^ ]*' | tr '\n' ' '
	scontrol show job "$1" 2>/dev/null | grep -o 'AdminComment=.*' | cut -c1-300
}
m1=$(sbatch -H --parsable -J mv1 --gres=gpu:1 -t 5 -o /dev/null --wrap='sleep 300')
m2=$(sbatch -H --parsable -J mv2 -N1 --gres=gpu:2 -t 5 -o /dev/null --wrap='sleep 300')
b1=$(rec "$m1")
b2=$(rec "$m2")
sleep 5
for m in $m1 $m2; do
	scontrol update jobid="$m" Partition=ra
	scontrol release "$m"
done
r1=$(running_on "$m1" 30)
r2=$(running_on "$m2" 30)
a1=$(rec "$m1")
a2=$(rec "$m2")
check 'echo "$b1" | grep -q "Features=gprack_rackB" && echo "$b1" | grep -q "Licenses=rackpw_rackB:350" && echo "$b1" | grep -Eq "gpuplace: PASS .*; ref [1-9]" && in_range "$r1" 1 2 && ! echo "$a1" | grep -q "rackpw_\|gprack_"' \
	"a passed one-GPU job kept to rackB and moved to partition ra gets its own constraint and licenses back and runs there ($r1)" \
	"before: $b1" "after: $a1" "$(squeue -h -j "$m1" -o '%T %r')"
check 'echo "$b2" | grep -q "Licenses=rackpw_rack[AB]:700" && in_range "$r2" 1 2 && ! echo "$a2" | grep -q "rackpw_"' \
	"a two-GPU job gpuplace placed, moved to partition ra, gets its own licenses back and runs there ($r2)" \
	"before: $b2" "after: $a2" "$(squeue -h -j "$m2" -o '%T %r')"
scancel "$m1" "$m2" 2>/dev/null

# a passed one-GPU job kept to a rack blocks PINs only until a reading of
# the job list shows where Slurm started it (its comment's reference is
# job_modify's: the ledger still finds the job by its user and name, not
# only 10 s after the decision)
for t in $(seq 1 80); do [ "$(squeue -h | wc -l)" = 0 ] && break; sleep 0.25; done
k1=$(sbatch --parsable -J one --gres=gpu:1 -t 5 -o /dev/null --wrap='sleep 300')
r1=$(running_on "$k1" 30)
sleep 3
k2=$(sbatch --parsable -J two -N1 --gres=gpu:2 -t 5 -o /dev/null --wrap='sleep 300')
c2=$(scontrol show job "$k2" 2>/dev/null | grep -o 'AdminComment=.*' | cut -c1-200)
check '[ -n "$r1" ] && echo "$c2" | grep -q "^AdminComment=gpuplace: PIN "' \
	"3 s after a passed one-GPU job kept to a rack started ($r1), the next job is PINned" \
	"$c2" "$(scontrol show job "$k1" 2>/dev/null | grep -o 'AdminComment=.*' | cut -c1-200)"
scancel "$k1" "$k2" 2>/dev/null
exit 0
