#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# TAP: `gpuplace power show` says how many GPUs each rack's headroom powers
# at TDP (GPUS_AT_TDP) and what share of the site's GPUs the racks power at
# all, on the example sites' own gpuplace.conf.  The expected counts are
# worked out here from the figures in etc/a100-oversub/gpuplace.conf, not
# read from the program:
#   a rack of four DGX A100: idle 4 x (3,300 + 8 x 50) W = 14,800 W; limit
#   24 kW x (1 - PowerMargin 0.05) = 22,800 W; headroom 8,000 W; a busy
#   A100 adds 400 - 50 = 350 W, so 8,000 / 350 = 22.9: 22 of its 32 GPUs;
#   20 racks: 440 of 640 GPUs (68.8 %).
#   With 12 GPUs of rack01 busy: draw 14,800 + 12 x 350 = 19,000 W,
#   headroom 3,800 W, 3,800 / 350 = 10.9: 10 of its 20 free GPUs; the
#   site: 10 + 19 x 22 = 428 of 628 free.
b=${GP_TOP_BUILDDIR:-.}
s=${GP_TOP_SRCDIR:-.}
g="$b/gpuplace"
t=$(mktemp -d "${TMPDIR:-/tmp}/gp-powercap.XXXXXX")
trap 'rm -rf "$t"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
no() { n=$((n + 1)); echo "not ok $n - $1"; sed 's/^/# /' "$t/out" "$t/err" 2>/dev/null | head -n 30; }
echo "1..6"

"$g" power show --conf-dir "$s/etc/a100-oversub" --no-telemetry >"$t/out" 2>"$t/err"
if [ "$(awk '/^rack[0-9]/ && $NF == "22/32"' "$t/out" | wc -l)" = 20 ]; then
	ok "a100-oversub idle: every one of the 20 racks powers 22 of its 32 GPUs at TDP"
else no "a100-oversub idle: GPUS_AT_TDP per rack"; fi
if grep -q 'with every rack idle the racks power 440 of their 640 GPUs at TDP (68.8 %)' "$t/out"; then
	ok "a100-oversub: the racks power 440 of 640 GPUs (68.8 %)"
else no "a100-oversub: the site's share"; fi

printf '{"gpuplace_model": 1, "state": {"time": 1000, "nodes": [%s, %s]}}\n' \
	'{"name": "dgx001", "alloc": [0,1,2,3,4,5,6,7]}' '{"name": "dgx002", "alloc": [0,1,2,3]}' \
	>"$t/state.json"
"$g" power show --conf-dir "$s/etc/a100-oversub" --no-telemetry --state "$t/state.json" \
	>"$t/out" 2>"$t/err"
if awk '$1 == "rack01" && $NF == "10/20" { f = 1 } END { exit !f }' "$t/out" &&
	awk '$1 == "rack02" && $NF == "22/32" { f = 1 } END { exit !f }' "$t/out" &&
	grep -q 'at TDP: 428 of 628 free (68.2 %); with every rack idle the racks power 440 of their 640' "$t/out"; then
	ok "12 busy GPUs in rack01: it powers 10 of its 20 free GPUs; the site 428 of 628"
else no "a state with busy GPUs"; fi

"$g" power show --conf-dir "$s/etc/a100-oversub" --no-telemetry --state "$t/state.json" \
	--json-out - >"$t/out" 2>"$t/err"
if tr -d ' \n' <"$t/out" | grep -q '"rack":"rack01",[^}]*"gpus_free":20,"gpus_at_tdp":10,"gpus":32,"gpus_at_tdp_idle":22'; then
	ok "--json-out: gpus_free, gpus_at_tdp, gpus and gpus_at_tdp_idle per rack"
else no "--json-out GPU counts"; fi

# racks far from their limits: every GPU at TDP (superpod-h100's racks
# are sized for their DGX H100, etc/superpod-h100/gpuplace.conf)
"$g" power show --conf-dir "$s/etc/superpod-h100" --no-telemetry >"$t/out" 2>"$t/err"
if grep -q 'racks power 1024 of their 1024 GPUs at TDP (100.0 %)' "$t/out"; then
	ok "superpod-h100: the racks power all 1024 GPUs at TDP"
else no "superpod-h100 share"; fi

# a drained node's GPUs are not free (nor powered)
printf '{"gpuplace_model": 1, "state": {"time": 1000, "nodes": [%s]}}\n' \
	'{"name": "dgx005", "flags": ["drain"], "alloc": []}' >"$t/drain.json"
"$g" power show --conf-dir "$s/etc/a100-oversub" --no-telemetry --state "$t/drain.json" \
	>"$t/out" 2>"$t/err"
if awk '$1 == "rack02" && $NF == "22/24" { f = 1 } END { exit !f }' "$t/out"; then
	ok "a drained node: rack02 powers 22 of its 24 free GPUs"
else no "drained node"; fi
