#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# sacct_cli.sh - `gpuplace trace import-sacct` on sacct --parsable2 output
# written here by hand (sacct(1)'s format), then `gpuplace simulate` on
# the DGX H100 example (etc/superpod-h100) replaying it: the table of
# placements against the nodes Slurm gave.  Under first-fit (nodes in
# slurm.conf order, dgx001 first) the three jobs go to dgx[001-002],
# dgx003 and dgx[004-007]; Slurm gave dgx[001,017], dgx002 and
# dgx[003-004,020-021]: no job on the same set, and 1/2, 0 and 1/4 of
# first-fit's nodes among Slurm's (mean 25.0 %).
set -u
top=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${GP_TOP_BUILDDIR:-$top}
gp=$build/gpuplace
t=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-sacct.XXXXXX")
trap 'rm -rf "$t"' EXIT
echo "1..5"
cat >"$t/sacct.txt" <<'SACCT'
JobID|Submit|Start|End|Elapsed|Timelimit|AllocTRES|ReqTRES|NodeList|Partition|State
201|2026-11-01T10:00:00|2026-11-01T10:00:05|2026-11-01T12:00:05|02:00:00|04:00:00|billing=64,cpu=64,gres/gpu=16,node=2|billing=64,cpu=64,gres/gpu=16,node=2|dgx[001,017]|batch|COMPLETED
201.batch|2026-11-01T10:00:05|2026-11-01T10:00:05|2026-11-01T12:00:05|02:00:00||cpu=32,gres/gpu=8,node=1||dgx001||COMPLETED
202|2026-11-01T10:10:00|2026-11-01T10:10:00|2026-11-01T11:10:00|01:00:00|1-00:00:00|billing=8,cpu=8,gres/gpu:h100=8,node=1|billing=8,cpu=8,gres/gpu:h100=8,node=1|dgx002|batch|COMPLETED
203|2026-11-01T10:20:00|2026-11-01T10:25:00|2026-11-02T11:28:04|1-01:03:04|2-00:00:00|billing=32,cpu=32,gres/gpu=32,node=4|billing=32,cpu=32,gres/gpu=32,node=4|dgx[003-004,020-021]|batch|TIMEOUT
204|2026-11-01T10:30:00|Unknown|Unknown|00:00:00|01:00:00||billing=8,cpu=8,gres/gpu=8,node=1|None assigned|batch|PENDING
SACCT

# 1. from a file, the counts on stderr
if "$gp" trace import-sacct -o "$t/trace.csv" "$t/sacct.txt" 2>"$t/err" &&
	grep -q 'import-sacct: 3 jobs from 5 lines (skipped: 1 steps, 0 without GPUs, 1 that never ran)' "$t/err"; then
	echo "ok 1 - import-sacct: $(cat "$t/err")"
else
	echo "not ok 1 - import-sacct failed or miscounted"; sed 's/^/# /' "$t/err"
fi
# 2. from standard input, the same trace
if "$gp" trace import-sacct <"$t/sacct.txt" 2>/dev/null | cmp -s - "$t/trace.csv"; then
	echo "ok 2 - standard input gives the same trace"
else
	echo "not ok 2 - standard input differs"
fi
# 3. the trace reader takes it
if "$gp" trace check "$t/trace.csv" | grep -q ': 3 jobs ok'; then
	echo "ok 3 - trace check: 3 jobs"
else
	echo "not ok 3 - trace check failed"
fi
# 4. simulate replays it and compares with Slurm's nodes
"$gp" simulate --conf-dir "$top/etc/superpod-h100" --trace "$t/trace.csv" --policies first-fit,tree,balanced \
	--out "$t/out" --no-plots --threads 1 >"$t/sim.out" 2>"$t/sim.err"
row=$(awk '/^Against the nodes Slurm gave/ { f = 1 } f && $1 == "first-fit"' "$t/sim.out")
set -- $row
if grep -q '^Against the nodes Slurm gave (the trace.s nodelist): 3 jobs with a node list, 0 naming nodes' "$t/sim.out" &&
	[ "${2:-}" = 3 ] && [ "${3:-}" = 0.0% ] && [ "${4:-}" = 25.0% ]; then
	echo "ok 4 - simulate: first-fit against Slurm's nodes: $row"
else
	echo "not ok 4 - first-fit row '$row'"; sed 's/^/# /' "$t/sim.out" "$t/sim.err" | tail -n 15
fi
# 5. a malformed line is named
printf 'JobID|Submit|AllocTRES\n9|yesterday|gres/gpu=1\n' >"$t/bad.txt"
if ! "$gp" trace import-sacct "$t/bad.txt" >/dev/null 2>"$t/err" &&
	grep -q "bad.txt:2: Submit 'yesterday': not YYYY-MM-DDTHH:MM:SS" "$t/err"; then
	echo "ok 5 - $(cat "$t/err")"
else
	echo "not ok 5 - no error naming line 2's Submit"; sed 's/^/# /' "$t/err"
fi
