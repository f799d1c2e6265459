#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Cross-validation of `gpuplace calibrate` on published nccl-tests runs, one
# per transport class the repository has data for (tests/data/cost/measured,
# each file citing its source):
#   ib      ib_ndr_h100_2n_a.txt     nccl-tests #309, 2 x 8 H100, NDR
#   roce    roce_a100_2n_oci.txt     oracle-quickstart/oci-hpc-oke, 2 x 8 A100
#   efa     efa_p5_h100_2n.txt       KeitaW/p5-nccl-test-2024-07-19, 2 x p5
#   tcp     tcp_g4dn_2n_socket.txt   aws-samples/aws-do-eks, 2 x g4dn, Socket
#   offload offload_g4dn_2n_efa.txt  the same README, AWS Libfabric, no GDR
# The rows of a run are split in two halves, every other size (1st, 3rd, ...
# and 2nd, 4th, ...); calibrate fits on one half and predicts the other, in
# both directions: the median |error| on the predicted half must be <= 5 %.
# Then the gpuplace.conf line it prints is loaded into a site
# (tests/data/conf/rich, in place of its FabricLevel=0 line): `cluster
# check` accepts it and `place` predicts another step time for the same job
# on the same nodes than with the site's own line.
# Every transport class of a multi-node table in tests/data/cost/measured
# (its "# gpuplace-calib:" line) must be one of the runs above, so a table of
# a new class cannot be added without its cross-validation.
# Last, a fit cannot stall: the p5 EFA run fitted as InfiniBand (the
# default transport, whose NetStepUs starts at 1 us, below NCCL's own NET
# latency, where the loss is flat) must leave that start and describe the
# table within 10 % (a descent from the start alone stayed at 1 us: 41 %).
b=${GP_TOP_BUILDDIR:-.}
s=${GP_TOP_SRCDIR:-${srcdir:-.}}
d="$s/tests/data/cost/measured"
t=$(mktemp -d "${TMPDIR:-/tmp}/gp-xv.XXXXXX")
trap 'rm -rf "$t"' EXIT
echo "1..17"
n=0
# the step time place predicts for a 2-node data-parallel job on dgx[04-05]
step_ms() {
	"$b/gpuplace" place --conf-dir "$1" --job 'gpus=16,nodes=2,params=7e9' \
		--nodelist 'dgx[04-05]' >"$t/place" 2>&1 &&
		awk '$1 == 1 && $2 == "dgx[04-05]" { print $8 }' "$t/place"
}
base=$(step_ms "$s/tests/data/conf/rich")
pairs="ib:ib_ndr_h100_2n_a roce:roce_a100_2n_oci efa:efa_p5_h100_2n
       tcp:tcp_g4dn_2n_socket offload:offload_g4dn_2n_efa"
for pair in $pairs; do
	tr=${pair%%:*} f=$d/${pair#*:}.txt
	awk '/^#/ { print; next } NF { if (++r % 2) print }' "$f" >"$t/odd.txt"
	awk '/^#/ { print; next } NF { if (!(++r % 2)) print }' "$f" >"$t/even.txt"
	for dir in odd:even even:odd; do
		n=$((n + 1))
		"$b/gpuplace" calibrate "$t/${dir%%:*}.txt" --predict "$t/${dir#*:}.txt" >"$t/out" 2>&1
		rc=$?
		med=$(sed -n 's/^# median |error| \([0-9.]*\) %.*/\1/p' "$t/out" | tail -n 1)
		if [ "$rc" = 0 ] && [ -n "$med" ] && awk -v m="$med" 'BEGIN { exit !(m <= 5) }'; then
			echo "ok $n - $tr: fitted on the ${dir%%:*} sizes, the ${dir#*:} predicted within $med %"
		else
			echo "not ok $n - $tr: fitted on the ${dir%%:*} sizes, the ${dir#*:} predicted: median |error| '$med' % (exit $rc)"
		fi
	done
	# the line printed by the last fit, as the site's FabricLevel=0 line
	n=$((n + 1))
	line=$(grep '^FabricLevel=0 ' "$t/out")
	rm -rf "$t/site"
	cp -r "$s/tests/data/conf/rich" "$t/site"
	awk -v l="$line" '/^FabricLevel=0 / { print l; next } { print }' \
		"$s/tests/data/conf/rich/gpuplace.conf" >"$t/site/gpuplace.conf"
	"$b/gpuplace" cluster check --conf-dir "$t/site" >"$t/check" 2>&1
	rc=$?
	got=$(step_ms "$t/site")
	if [ "$rc" = 0 ] && [ -n "$line" ] && [ -n "$base" ] && [ -n "$got" ] && [ "$got" != "$base" ]; then
		echo "ok $n - $tr: the printed line loads; place predicts $got ms instead of $base ms"
	else
		echo "not ok $n - $tr: line '$line' (check exit $rc), place '$got' ms vs '$base' ms"
		sed 's/^/# /' "$t/check" "$t/place" | head -n 20
	fi
done
n=$((n + 1))
classes=$(grep -h '^# gpuplace-calib:' "$d"/*.txt | awk '{
	nodes = 0; tr = "ib"
	for (i = 3; i <= NF; i++) {
		if ($i ~ /^nodes=/) nodes = substr($i, 7) + 0
		if ($i ~ /^transport=/) tr = substr($i, 11)
	}
	if (nodes > 1) print tr }' | sort -u | tr '\n' ' ' | sed 's/ $//')
missing=
for c in $classes; do
	case " $(echo $pairs | sed 's/:[^ ]*//g') " in
	*" $c "*) ;;
	*) missing="$missing $c" ;;
	esac
done
if [ -n "$classes" ] && [ -z "$missing" ]; then
	echo "ok $n - every transport class with a multi-node table is cross-validated ($classes)"
else
	echo "not ok $n - transport classes with multi-node tables but no cross-validation:$missing (classes: '$classes')"
fi
n=$((n + 1))
"$b/gpuplace" calibrate --transport ib "$d/efa_p5_h100_2n.txt" >"$t/out" 2>&1
rc=$?
med=$(sed -n 's/^# median |error| \([0-9.]*\) %.*/\1/p' "$t/out")
line=$(grep '^FabricLevel=0 ' "$t/out")
if [ "$rc" = 0 ] && [ -n "$med" ] && awk -v m="$med" 'BEGIN { exit !(m <= 10) }' &&
   ! echo "$line" | grep -q ' NetStepUs=1 '; then
	echo "ok $n - the p5 EFA run fitted as ib: median |error| $med % ($line)"
else
	echo "not ok $n - the p5 EFA run fitted as ib: median |error| '$med' % (exit $rc): $line"
fi
