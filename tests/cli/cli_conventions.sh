#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# cli_conventions.sh - one spelling per concept across every sub-command's
# --help: --json FILE reads a model, --json-out FILE|- writes JSON,
# --out-dir DIR is an output directory, --gpu-type TYPE a GPU type.  The
# old spellings (--out for a directory or a JSON file, --gpu, --type,
# probe/synth --json, place's --json-out flag) still work, each with a
# warning on stderr.  Every show prints JSON with --json-out -, and model
# --format json prints JSON without --job; simulate keeps a progress line
# on stderr only when stderr is a terminal.
# Prints TAP.
set -u
top=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${GP_TOP_BUILDDIR:-$top}
gp=$build/gpuplace
t=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-cliconv.XXXXXX")
trap 'rm -rf "$t"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $*"; }

# ---- every sub-command's --help ----------------------------------------------
cmds=$("$gp" --help | awk '/^  [a-z]/ { print $1 }')
helps=""
for c in $cmds; do helps="$helps|$c"; done
for c in "cluster merge" "power show" "trace show" "trace check" "trace synth" "trace import-sacct"; do
	helps="$helps|$c"
done
: >"$t/all"
IFS='|' read -r -a list <<<"${helps#|}"
for c in "${list[@]}"; do
	# shellcheck disable=SC2086
	if ! "$gp" $c --help >"$t/h" 2>&1; then
		nok "gpuplace $c --help fails"
		continue
	fi
	sed "s|^|$c: |" "$t/h" >>"$t/all"
done
[ "$(wc -l <"$t/all")" -gt 100 ] && ok "--help of ${#list[@]} sub-commands read" || nok "too little help text"

# GPU type: --gpu-type only
bad=$(grep -E -e '(^|[^a-z-])--(gpu|type)([^-a-z]|$)' "$t/all")
if [ -z "$bad" ] && [ "$(grep -c -- '--gpu-type' "$t/all")" -ge 4 ]; then
	ok "GPU type: --gpu-type everywhere"
else
	nok "GPU type spelled otherwise:"; echo "$bad" | sed 's/^/# /'
fi
# output directory: --out-dir DIR only
bad=$(grep -E -e '(--out|-o)[ =]DIR' "$t/all")
if [ -z "$bad" ] && grep -q -- '--out-dir DIR' "$t/all"; then
	ok "output directory: --out-dir DIR everywhere"
else
	nok "output directory spelled otherwise:"; echo "$bad" | sed 's/^/# /'
fi
# JSON output: --json-out FILE only; --out never writes JSON
bad=$(grep -E -e '--json-out($|[^ `]| [^F])' -e '--out FILE.*JSON' "$t/all")
if [ -z "$bad" ] && [ "$(grep -c -- '--json-out FILE' "$t/all")" -ge 6 ]; then
	ok "JSON output: --json-out FILE everywhere"
else
	nok "JSON output spelled otherwise:"; echo "$bad" | sed 's/^/# /'
fi
# JSON input: --json FILE, never described as a destination
bad=$(grep -E -e '--json( |=)' "$t/all" | grep -E -i 'write|destination|output')
bad2=$(grep -E -e '--json([^- ]| [^F])' "$t/all")
if [ -z "$bad$bad2" ]; then
	ok "JSON input: --json FILE, only ever read"
else
	nok "--json used otherwise:"; echo "$bad$bad2" | sed 's/^/# /'
fi

# ---- the old spellings: still accepted, with a warning -------------------------
for old in "simulate --out x:--out-dir" "model --gpu h100:--gpu-type" "calibrate --gpu h100:--gpu-type" \
	"probe --type h100:--gpu-type" "probe --json x:--json-out" "synth --json x:--json-out" \
	"cluster export --out x:--json-out" "cluster merge --out x:--json-out"; do
	args=${old%%:*} new=${old##*:}
	# shellcheck disable=SC2086
	if "$gp" $args --help >/dev/null 2>"$t/err" && grep -q "is now $new" "$t/err"; then
		ok "old spelling: gpuplace $args works, warns: $(head -n 1 "$t/err")"
	else
		nok "gpuplace $args: no warning naming $new, or it failed"; sed 's/^/# /' "$t/err"
	fi
done
if "$gp" place --conf-dir "$top/etc/superpod-h100" --job gpus=16 --json-out >"$t/p" 2>"$t/err" &&
	grep -q -- 'now --json-out -' "$t/err" && grep -q '"decision"' "$t/p"; then
	ok "place --json-out without FILE: JSON on standard output, with a warning"
else
	nok "place's old --json-out flag"; sed 's/^/# /' "$t/err"
fi

# ---- JSON from every show, and from model without --job --------------------------
isjson() {
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import json, sys; json.load(sys.stdin)' <"$1" 2>/dev/null
	else
		head -c 1 "$1" | grep -q '[[{]'
	fi
}
for c in "cluster show --conf-dir $top/etc/mixed-pcie --json-out -" \
	"power show --conf-dir $top/etc/mixed-pcie --no-telemetry --json-out -" \
	"place --conf-dir $top/etc/superpod-h100 --job gpus=16 --json-out -" \
	"model --gpu-type h100 --ngpus 8 -b 8 -e 1K -f 2 --format json"; do
	# shellcheck disable=SC2086
	if "$gp" $c >"$t/j" 2>"$t/err" && isjson "$t/j"; then
		ok "JSON: gpuplace ${c%% --*} ... prints JSON"
	else
		nok "gpuplace $c: not JSON"; head -n 3 "$t/j" "$t/err" | sed 's/^/# /'
	fi
done
"$gp" cluster show --conf-dir "$top/etc/mixed-pcie" --json-out "$t/show.json" >"$t/o" 2>&1
if isjson "$t/show.json" && [ ! -s "$t/o" ]; then
	ok "cluster show --json-out FILE writes the file, nothing on stdout"
else
	nok "cluster show --json-out FILE"
fi

# ---- progress only on a terminal ---------------------------------------------------
"$gp" trace synth --conf-dir "$top/etc/mixed-pcie" --jobs 200 --seed 2 -o "$t/tr.csv" 2>/dev/null
"$gp" simulate --conf-dir "$top/etc/mixed-pcie" --trace "$t/tr.csv" --policies first-fit,tree \
	--out-dir "$t/s1" --no-plots >/dev/null 2>"$t/err"
if ! grep -q 'policies done' "$t/err" && ! grep -q "$(printf '\r')" "$t/err"; then
	ok "simulate: no progress line when stderr is a file"
else
	nok "simulate printed a progress line into a file"
fi
if ! command -v script >/dev/null 2>&1; then
	skip "script (util-linux) is not installed: no terminal to test with"
elif ! script -qec true /dev/null >/dev/null 2>&1; then
	skip "script cannot open a pseudo-terminal here (no /dev/pts): no terminal to test with"
else
	script -qec "$gp simulate --conf-dir $top/etc/mixed-pcie --trace $t/tr.csv --policies first-fit,tree --out-dir $t/s2 --no-plots --threads 1 >/dev/null" \
		/dev/null >"$t/tty" 2>&1
	if grep -q '2 of 2 policies done' "$t/tty"; then
		ok "simulate: a progress line on a terminal"
	else
		nok "simulate: no progress line on a terminal"; tail -c 300 "$t/tty" | sed 's/^/# /'
	fi
fi
# ---- tables fit long names -------------------------------------------------------
cp -r "$top/etc/mixed-pcie" "$t/long"
sed -i 's/\brack1\b/rack-row17-hall-b-liquid-cooled-01/' "$t/long"/*.conf
"$gp" power show --conf-dir "$t/long" --no-telemetry >"$t/pw" 2>&1
# right edge of the CAP_KW column in the header and in the long name's row
hdr=$(awk 'NR == 1 { print index($0, "CAP_KW") + 5 }' "$t/pw")
row=$(awk '/^rack-row17/ { p = index($0, $2); print p + length($2) - 1 }' "$t/pw")
if [ -n "$hdr" ] && [ "$hdr" = "$row" ]; then
	ok "power show: the columns stay aligned under a 34-character rack name"
else
	nok "power show: CAP_KW ends at column $hdr in the header, $row in the long rack's row"
	sed 's/^/# /' "$t/pw" | head -n 4
fi
"$gp" cluster show --conf-dir "$t/long" >"$t/cs" 2>&1
a=$(awk '/^  rack-row17/ { print index($0, " nodes") }' "$t/cs")
b=$(awk '/^  rack2 / { print index($0, " nodes") }' "$t/cs")
if [ -n "$a" ] && [ "$a" = "$b" ]; then
	ok "cluster show: rack rows aligned under a long rack name"
else
	nok "cluster show: ' nodes' at column $a for the long name, $b for rack2"
fi
echo "1..$n"
