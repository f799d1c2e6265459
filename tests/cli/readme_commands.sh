#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# readme_commands.sh - every command README.md gives runs, or is one that
# scripts/setup.sh runs.  README's ```sh blocks are commands, its ```conf
# blocks configuration lines; each is checked:
#   - README is at most 150 lines and starts with Install, then Enable;
#   - sh scripts/setup.sh / sh scripts/test.sh: the scripts exist and parse
#     (sh -n), and are exactly the two set-up commands;
#   - gpuplace ...: every option it uses is in its sub-command's --help, and
#     the commands run for real on a site made of etc/superpod-h100's Slurm
#     files plus README's slurm.conf lines and gpuplace.conf (for
#     /etc/slurm), on a sacct history written here in sacct(1)'s format;
#   - sacct: every --format field and every option is in sacct(1) (sacct
#     itself answers nothing without a slurmdbd);
#   - scontrol reconfigure, autoreconf, ./configure, make, make install,
#     dpkg-buildpackage, dpkg -i: the program exists; dpkg -i's globs match
#     every package debian/control.in builds (tests/packages.sh builds and
#     installs them for real);
#   - the plugstack.conf line is the snippet the packages install, the
#     Prolog/Epilog paths the names the packages install.
# Prints TAP.
set -u
top=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${GP_TOP_BUILDDIR:-$top}
gp=$build/gpuplace
R=$top/README.md
t=$(mktemp -d "${TMPDIR:-/tmp}/gpuplace-readme.XXXXXX")
trap 'rm -rf "$t"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $*"; }

# the lines of the README's fenced blocks of one kind, continuation lines
# joined
block() {
	awk -v kind="$1" '
		/^```/ { if (inb) { inb = 0; next } if ($0 == "```" kind) { inb = 1; next } }
		inb { print }' "$R" | sed -e ':a' -e '/\\$/N; s/\\\n *//; ta'
}
block sh >"$t/cmds"
block conf >"$t/conf"

# ---- shape ----------------------------------------------------------------
lines=$(wc -l <"$R")
heads=$(grep '^## ' "$R" | head -n 2 | tr '\n' '|')
if [ "$lines" -le 150 ] && [ "$heads" = "## Install|## Enable|" ]; then
	ok "README.md: $lines lines, starts with Install and Enable"
else
	nok "README.md: $lines lines (at most 150), first sections '$heads'"
fi

# ---- the site the gpuplace commands run on ---------------------------------
site=$t/etc-slurm
mkdir -p "$site"
cp "$top/etc/superpod-h100/slurm.conf" "$top/etc/superpod-h100/topology.conf" \
	"$top/etc/superpod-h100/gres.conf" "$site/"
grep -E '^(JobSubmitPlugins|SchedulerParameters)=' "$t/conf" >>"$site/slurm.conf"
grep -E '^(GpuProfile|Rack)=' "$t/conf" >"$site/gpuplace.conf"
# a month of sacct --parsable2 on that site, in sacct(1)'s format
cat >"$t/sacct.txt" <<'EOF'
JobID|Submit|Start|End|Elapsed|Timelimit|AllocTRES|ReqTRES|NodeList|Partition|State
11|2026-10-01T10:00:00|2026-10-01T10:00:05|2026-10-01T12:00:05|02:00:00|04:00:00|billing=64,cpu=64,gres/gpu=16,node=2|billing=64,cpu=64,gres/gpu=16,node=2|dgx[001,017]|batch|COMPLETED
11.batch|2026-10-01T10:00:05|2026-10-01T10:00:05|2026-10-01T12:00:05|02:00:00||cpu=32,gres/gpu=8,node=1||dgx001||COMPLETED
12|2026-10-02T10:10:00|2026-10-02T10:10:00|2026-10-02T11:10:00|01:00:00|1-00:00:00|billing=8,cpu=8,gres/gpu:h100=8,node=1|billing=8,cpu=8,gres/gpu:h100=8,node=1|dgx002|batch|COMPLETED
EOF

# ---- each command ------------------------------------------------------------
setup_seen=0
while IFS= read -r cmd; do
	[ -n "$cmd" ] || continue
	set -f
	# shellcheck disable=SC2086
	set -- $cmd
	set +f
	case "$1" in
	sh)
		case "$2" in
		scripts/setup.sh | scripts/test.sh)
			if [ -f "$top/$2" ] && sh -n "$top/$2"; then
				setup_seen=$((setup_seen + 1))
				ok "$cmd: the set-up script exists and parses"
			else
				nok "$cmd: $2 missing or does not parse"
			fi ;;
		*) nok "$cmd: not a set-up script" ;;
		esac ;;
	gpuplace)
		# sub-command words (before the first option), then the options
		sub=""
		shift
		while [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; do sub="$sub $1"; shift; done
		# shellcheck disable=SC2086
		help=$("$gp" $sub --help 2>&1)
		missing=""
		for w in "$@"; do
			case "$w" in --*) o=${w%%=*}; echo "$help" | grep -q -- "$o" || missing="$missing $o" ;; -?) echo "$help" | grep -q -- "$w" || missing="$missing $w" ;; esac
		done
		# and run it on the site above, in $t
		run=$(printf '%s\n' "$cmd" | sed -e "s|/etc/slurm|$site|g" -e 's|^gpuplace |'"$gp"' |')
		if [ -n "$missing" ]; then
			nok "$cmd: not in '$sub --help':$missing"
		elif (cd "$t" && eval "$run") >"$t/out" 2>&1; then
			ok "$cmd: runs ($(grep -m1 -E '^OK|jobs from|^policy' "$t/out" | cut -c1-60))"
		else
			nok "$cmd: fails"
			tail -n 5 "$t/out" | sed 's/^/# /'
		fi ;;
	sacct)
		# sacct itself needs a reachable slurmdbd even for --helpformat:
		# the fields and options are checked against its manual page
		man=$(man -w sacct 2>/dev/null || ls /usr/share/man/man1/sacct.1* 2>/dev/null | head -n 1)
		if [ -z "$man" ]; then
			skip "$cmd: no sacct(1) installed"
			continue
		fi
		page=$(zcat -f "$man" | sed 's/\\-/-/g')
		bad=""
		for w in "$@"; do
			case "$w" in
			--format=*)
				for f in $(echo "${w#--format=}" | tr ',' ' '); do
					echo "$page" | grep -q -i -w "$f" || bad="$bad field:$f"
				done ;;
			--*) echo "$page" | grep -q -- "${w%%=*}" || bad="$bad ${w%%=*}" ;;
			esac
		done
		if [ -z "$bad" ]; then ok "sacct: every field and option is in sacct(1)"; else nok "sacct: not in sacct(1):$bad"; fi ;;
	scontrol)
		if ! command -v scontrol >/dev/null 2>&1; then
			skip "$cmd: scontrol is not installed"
		elif SLURM_CONF=$site/slurm.conf scontrol help 2>&1 | grep -q "$2"; then
			ok "$cmd: a scontrol command"
		else
			nok "$cmd: scontrol help does not list $2"
		fi ;;
	dpkg)
		want=$(sed -n 's/^Package: //p' "$top/debian/control.in" | sed 's/@SLURM_MM@/22.05/')
		unmatched=""
		for p in $want; do
			hit=0
			for g in "${@:3}"; do
				gb=$(basename "$g")
				# shellcheck disable=SC2254
				case "${p}_0.1.0_amd64.deb" in $gb) hit=1 ;; esac
			done
			[ $hit = 1 ] || unmatched="$unmatched $p"
		done
		if [ "$2" = -i ] && [ -z "$unmatched" ]; then
			ok "$cmd: installs every package of debian/control.in"
		else
			nok "$cmd: misses$unmatched"
		fi ;;
	dpkg-buildpackage | autoreconf | make)
		if command -v "$1" >/dev/null 2>&1; then ok "$cmd: $1 is installed"; else skip "$cmd: $1 is not installed"; fi ;;
	./configure)
		if [ -f "$top/configure.ac" ]; then ok "$cmd: made by autoreconf -fi from configure.ac"; else nok "$cmd: no configure.ac"; fi ;;
	*) nok "$cmd: no check for this command" ;;
	esac
done <"$t/cmds"
if [ $setup_seen = 2 ]; then ok "both set-up commands are in README"; else nok "README has $setup_seen of the 2 set-up commands"; fi

# ---- configuration lines ----------------------------------------------------
out=$("$gp" cluster check --conf-dir "$site" 2>&1)
if echo "$out" | grep -q '^OK: ' && ! echo "$out" | grep -q warning; then
	ok "README's slurm.conf lines and gpuplace.conf check clean: $(echo "$out" | tail -n 1)"
else
	nok "README's configuration does not check clean"
	echo "$out" | tail -n 5 | sed 's/^/# /'
fi
stack=$(grep '^optional ' "$t/conf")
want=$(grep -v '^#' "$top/etc/plugstack.conf.d/gpuplace.conf.in" | sed 's/%slurm_plugindir%/PLUGINDIR/')
if [ -n "$stack" ] && [ "$stack" = "$want" ]; then
	ok "plugstack.conf line is the packages' snippet: $stack"
else
	nok "plugstack.conf line '$stack', the snippet says '$want'"
fi
pro=$(sed -n 's/^Prolog=//p' "$t/conf")
epi=$(sed -n 's/^Epilog=//p' "$t/conf")
if [ "$pro" = /usr/libexec/gpuplace/gpuplace-powercap-prolog ] &&
	[ "$epi" = /usr/libexec/gpuplace/gpuplace-powercap-epilog ] &&
	grep -q -- '--libexecdir=/usr/libexec' "$top/debian/rules" &&
	grep -q 'gpuplace-powercap-prolog' "$top/etc/local.mk"; then
	ok "Prolog/Epilog are the packages' paths"
else
	nok "Prolog '$pro' / Epilog '$epi' are not what the packages install"
fi
echo "1..$n"
