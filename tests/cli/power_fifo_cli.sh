#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# TAP: `gpuplace power show` on a site whose Type=file telemetry source is a
# FIFO with no writer (what a stuck collector or a mistaken Path= leaves):
# opening a FIFO for reading blocks until a writer comes (fifo(7)), so a
# reader without O_NONBLOCK hangs forever.  power show must come back at
# once, name the file and say why it is refused, and still print every
# rack from the estimate.  `timeout` turns a hang into a failure.
top_build=${GP_TOP_BUILDDIR:-.}
s=${GP_TOP_SRCDIR:-.}
gp="$top_build/gpuplace"
if [ ! -x "$gp" ]; then
	echo "1..0 # SKIP $gp not built"
	exit 0
fi
if ! command -v timeout >/dev/null 2>&1 || ! command -v mkfifo >/dev/null 2>&1; then
	echo "1..0 # SKIP needs timeout(1) and mkfifo(1)"
	exit 0
fi
t=$(mktemp -d "${TMPDIR:-/tmp}/gp-fifo-XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
no() { n=$((n + 1)); echo "not ok $n - $1"; for f in out err; do [ -s "$t/$f" ] && sed 's/^/# /' "$t/$f"; done; }

echo "1..3"
mkdir "$t/etc"
cp "$s"/etc/mixed-pcie/*.conf "$t/etc/"
mkfifo "$t/rack-power.json"
printf '\nTelemetry=pdus Type=file Path=%s Timeout=60 Interval=60\n' "$t/rack-power.json" >>"$t/etc/gpuplace.conf"

start=$(date +%s)
timeout 20 "$gp" power show --conf-dir "$t/etc" >"$t/out" 2>"$t/err"
rc=$?
took=$(($(date +%s) - start))
if [ "$rc" = 0 ] && [ "$took" -le 5 ]; then
	ok "power show with a FIFO source returns (exit 0 after ${took} s)"
else
	no "power show with a FIFO source: exit $rc after ${took} s (124 = hung until timeout)"
fi
if grep -q "$t/rack-power.json: not a regular file" "$t/err"; then
	ok "the FIFO is refused by name: not a regular file"
else no "the refusal names the file"; fi
racks=$(grep -c '^[a-z0-9-]* .*estimate' "$t/out")
if [ "$racks" -ge 1 ] && grep -q 'telemetry pdus: failed' "$t/out"; then
	ok "every rack shown from the estimate ($racks), the source reported failed"
else no "racks from the estimate"; fi
