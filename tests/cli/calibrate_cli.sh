#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gpuplace calibrate: fitted on one nccl-tests file of a cluster, it predicts
# another file of the same cluster (other node count) within the same error.
# Cluster: the H100 NDR servers of nccl-tests #309 (tests/data/cost/measured,
# 2 and 4 nodes).  "Same error": the median |error| on the predicted file is
# at most 5 points above the fitted file's and at most 15 %.
# Also the command line of tools/cmd_calibrate.c: --defaults, --fit,
# --transport, files that cannot be read or do not go together, and the
# usage errors (exit 2) with their messages.
b=${GP_TOP_BUILDDIR:-.}
s=${GP_TOP_SRCDIR:-${srcdir:-.}}
d="$s/tests/data/cost/measured"
t=$(mktemp -d "${TMPDIR:-/tmp}/gp-cal.XXXXXX")
trap 'rm -rf "$t"' EXIT
echo "1..15"
n=0
check() { # name fitfile predictfile
	n=$((n + 1))
	"$b/gpuplace" calibrate "$d/$2" --predict "$d/$3" >"$t/out" 2>&1
	rc=$?
	meds=$(sed -n 's/^# median |error| \([0-9.]*\) %.*/\1/p' "$t/out" | tr '\n' ' ')
	set -- $meds
	if [ "$rc" = 0 ] && [ $# = 2 ] && awk -v f="$1" -v p="$2" 'BEGIN { exit !(p <= f + 5 && p <= 15) }'; then
		echo "ok $n - $name: fitted $1 %, predicted $2 %"
	else
		echo "not ok $n - $name (exit $rc, medians: $meds)"; sed 's/^/# /' "$t/out" | tail -n 20
	fi
}
name="2 nodes fitted, 4 nodes predicted" check x ib_ndr_h100_2n_a.txt ib_ndr_h100_4n_a.txt
name="4 nodes fitted, 2 nodes predicted" check x ib_ndr_h100_4n_a.txt ib_ndr_h100_2n_a.txt
n=$((n + 1))
"$b/gpuplace" calibrate "$d/tcp_g4dn_2n_socket.txt" >"$t/out" 2>&1
if grep -q '^FabricLevel=0 LinkGBps=6.25 Transport=tcp NetStepUs=[0-9.e+]* NetEfficiency=[0-9.e+]* NetFillUs=[0-9.e+]* NetFillLevelUs=[0-9.e+]*$' "$t/out"; then
	echo "ok $n - the fitted keys as a gpuplace.conf line"
else
	echo "not ok $n - gpuplace.conf line"; tail -n 3 "$t/out" | sed 's/^/# /'
fi
n=$((n + 1))
# bad_header HEADER MESSAGE DESCRIPTION: a table whose gpuplace-calib line
# is HEADER is refused with MESSAGE
bad_header() {
	printf '# gpuplace-calib: %s\n  8 2 float sum -1 30.1 0.00 0.00 0\n' "$1" >"$t/bad.txt"
	if ! "$b/gpuplace" calibrate "$t/bad.txt" >"$t/out" 2>&1 && grep -q "$2" "$t/out"; then
		echo "ok $n - $3"
	else
		echo "not ok $n - $3"; sed 's/^/# /' "$t/out"
	fi
	n=$((n + 1))
}
bad_header 'nodes=2 gpus_per_node=8 speed=9' "bad.txt:1: speed: '9' is not a known key" \
	"an unknown key is an error naming file, line, key and value"
bad_header 'nodes=1 gpus_per_node=2 gpu=t4 pcie_p2p=off' "bad.txt:1: pcie_p2p: 'off' is not yes or no" \
	"pcie_p2p takes yes or no"
bad_header 'nodes=2 gpus_per_node=8 algo=fast' "bad.txt:1: algo: 'fast' is not auto, ring, tree, nvls or hier" \
	"algo takes an algorithm name"
# algo=ring (a run with NCCL_ALGO=Ring): the same rows as #309's 8-node
# table, predicted with the ring instead of the algorithm the model picks
# there, and the header names it
{ echo '# gpuplace-calib: algo=ring'; cat "$d/ib_ndr_h100_8n_b.txt"; } >"$t/ring.txt"
"$b/gpuplace" calibrate "$d/ib_ndr_h100_8n_b.txt" --predict "$t/ring.txt" >"$t/out" 2>&1
awk '/^# .*ib_ndr_h100_8n_b.txt: /{k=1; next} /^# .*ring.txt: /{k=2; next}
     /^  +[0-9]+ +[0-9.]+ +[0-9.]+ +[-+][0-9.]+%$/ { p[k, $1] = $3 }
     END { for (key in p) { split(key, a, SUBSEP); if (a[1] == 1 && ((2, a[2]) in p) && p[2, a[2]] != p[key]) d++ }
           exit !(d > 0) }' "$t/out"
if [ $? = 0 ] && grep -q 'ring.txt: allreduce, 8 nodes x 8 GPUs, ib, algo=ring$' "$t/out"; then
	echo "ok $n - algo=ring: predicted with the ring (other times than the model's own choice), named in the header"
else
	echo "not ok $n - algo=ring"; sed 's/^/# /' "$t/out" | head -40
fi
n=$((n + 1))
"$b/gpuplace" calibrate --defaults >"$t/out" 2>&1
if [ "$(grep -c '^\(ib\|roce\|efa\|tcp\|offload\) ' "$t/out")" = 5 ] &&
   grep -q '^tcp  *no  *50 ' "$t/out" && grep -q '^ib  *yes  *0  *0.96 ' "$t/out" &&
   grep -q '^efa  *yes .* 20/23 *$' "$t/out" && grep -q '^roce  *yes .* 11/11 *$' "$t/out"; then
	echo "ok $n - --defaults lists the five transports and their constants, step floors (LL/Simple) included"
else
	echo "not ok $n - --defaults"; sed 's/^/# /' "$t/out"
fi
n=$((n + 1))
# standard nccl-tests text as mpirun --tag-output prints it with -g 4 on two
# hosts (tags inside rows too): collective, layout and all 7 rows are read
"$b/gpuplace" calibrate "$s/tests/data/cost/nccltests/allgather_2x4_tagged.txt" >"$t/out" 2>&1
rows=$(awk '/^  +[0-9]+ +[0-9.]+ +[0-9.]+ +[-+][0-9.]+%$/' "$t/out" | wc -l)
if grep -q 'allgather_2x4_tagged.txt: allgather, 2 nodes x 4 GPUs, ib$' "$t/out" && [ "$rows" = 7 ]; then
	echo "ok $n - tagged all_gather_perf output with -g 4: allgather, 2 x 4 GPUs, 7 rows"
else
	echo "not ok $n - tagged output ($rows rows)"; sed 's/^/# /' "$t/out" | head -20
fi
# usage errors: exit 2 and the message (cmd_calibrate.c's parse_args and
# select_fit): usage_error NAME WANT-TEXT ARGS...
usage_error() {
	name=$1 want=$2; shift 2
	n=$((n + 1))
	"$b/gpuplace" calibrate "$@" >"$t/out" 2>&1
	rc=$?
	if [ "$rc" = 2 ] && grep -qF -- "$want" "$t/out"; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name (exit $rc)"; sed 's/^/# /' "$t/out" | head -20
	fi
}
usage_error "no file is a usage error" "gpuplace calibrate: no nccl-tests file to fit"
usage_error "only --predict files leave nothing to fit" "gpuplace calibrate: no nccl-tests file to fit" \
	--predict "$d/ib_ndr_h100_2n_a.txt"
usage_error "--fit names an unknown constant" "gpuplace calibrate: --fit: 'speed' is not step, eff, fill or level" \
	--fit step,speed "$d/ib_ndr_h100_2n_a.txt"
usage_error "a file that cannot be read is named" "gpuplace calibrate: $t/missing.txt: " \
	"$d/ib_ndr_h100_2n_a.txt" "$t/missing.txt"
usage_error "fitted files of two transports" "name different transports" \
	"$d/ib_ndr_h100_2n_a.txt" "$d/tcp_g4dn_2n_socket.txt"
n=$((n + 1))
"$b/gpuplace" calibrate --transport roce --fit step,eff "$d/ib_ndr_h100_2n_a.txt" >"$t/out" 2>&1
if grep -q '^FabricLevel=0 LinkGBps=50 Transport=roce NetStepUs=' "$t/out"; then
	echo "ok $n - --transport overrides the file's transport, --fit a subset of the constants"
else
	echo "not ok $n - --transport roce --fit step,eff"; tail -n 5 "$t/out" | sed 's/^/# /'
fi
