#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# layering.sh - the layers of doc/ARCHITECTURE.md hold in the code:
#   1. no object of a layer's library calls (or uses data of) a higher
#      layer (nm over the built libgp_*.a archives);
#   2. no cycle between the files of the libraries (file A calls B and B,
#      directly or through others, calls A): each file is one concern;
#   3. no source file includes a header of a higher layer (the layer of a
#      header is the library whose sources list it; the plugin and the
#      command are above every library and beside each other).
# The layers and their files come from the Makefile (make
# print-layer-sources), lowest first.  Prints TAP.
set -u
src=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
b=${GP_TOP_BUILDDIR:-$src}
echo "1..3"
t=$(mktemp -d "${TMPDIR:-/tmp}/gp-layering.XXXXXX")
trap 'rm -rf "$t"' EXIT
if ! make -s -C "$b" print-layer-sources >"$t/layers" 2>"$t/err" || ! command -v nm >/dev/null 2>&1; then
	for i in 1 2 3; do echo "ok $i # SKIP no layer list from make print-layer-sources or no nm: $(head -n 1 "$t/err")"; done
	exit 0
fi
# rank of each layer, and layer of each file (by path and, for headers, by
# base name: the tree includes headers by base name)
awk '{ print $1, NR }' "$t/layers" >"$t/rank"
awk '{ for (i = 2; i <= NF; i++) print $i, $1 }' "$t/layers" >"$t/files"

# ---- 1 and 2: symbols ----------------------------------------------------
# "object layer kind symbol" for every defined (D) and undefined (U) symbol
: >"$t/syms"
for l in base power engine conf steer sim probe; do
	a=$b/.libs/libgp_$l.a
	[ -f "$a" ] || { echo "not ok 1 - $a is not built"; echo "not ok 2 - $a is not built"; break; }
	# nm -A: "ARCHIVE:OBJECT:ADDRESS TYPE NAME", undefined "ARCHIVE:OBJECT: U NAME"
	nm -A "$a" | awk -v l="$l" 'NF == 3 {
		split($1, p, ":")
		if ($2 ~ /^[TDBRC]$/) print l "/" p[2], l, "D", $3
		else if ($2 == "U") print l "/" p[2], l, "U", $3
	}' >>"$t/syms"
done
awk 'NR == FNR { rank[$1] = $2; next }
	$3 == "D" { def[$4] = $1; lay[$1] = $2; next }
	$3 == "U" { use[++n] = $1 " " $4; lay[$1] = $2 }
	END {
		for (i = 1; i <= n; i++) {
			split(use[i], u, " ")
			if (!(u[2] in def) || def[u[2]] == u[1]) continue
			print u[1], def[u[2]], u[2] > "'"$t/edges"'"
			if (rank[lay[def[u[2]]]] > rank[lay[u[1]]])
				printf "%s (%s) uses %s of %s (%s)\n", u[1], lay[u[1]], u[2], def[u[2]], lay[def[u[2]]]
		}
	}' "$t/rank" "$t/syms" >"$t/up"
touch "$t/edges"
if [ -s "$t/up" ]; then
	echo "not ok 1 - a lower layer uses a higher one:"
	sed 's/^/#   /' "$t/up"
else
	echo "ok 1 - no layer uses a higher one ($(sort -u -k1,2 "$t/edges" | wc -l) file-to-file uses over $(awk '{ print $1 }' "$t/syms" | sort -u | wc -l) objects)"
fi
# cycles: strip every file that uses no remaining file or that no
# remaining file uses, until none is left; what remains lies on a cycle
awk '{ if ($1 != $2) e[$1 " " $2] = 1; n[$1] = 1; n[$2] = 1 }
	END {
		do {
			gone = 0
			for (v in n) {
				out = 0; in_ = 0
				for (k in e) {
					split(k, p, " ")
					if (!(p[1] in n) || !(p[2] in n)) continue
					if (p[1] == v) out = 1
					if (p[2] == v) in_ = 1
				}
				if (!out || !in_) { delete n[v]; gone = 1 }
			}
		} while (gone)
		for (k in e) { split(k, p, " "); if ((p[1] in n) && (p[2] in n)) print p[1] " -> " p[2] }
	}' "$t/edges" | sort >"$t/cyc"
if [ -s "$t/cyc" ]; then
	echo "not ok 2 - files that call each other (a cycle):"
	sed 's/^/#   /' "$t/cyc"
else
	echo "ok 2 - no cycle between the libraries' files"
fi

# ---- 3: includes ---------------------------------------------------------
: >"$t/inc"
while read -r f l; do
	case $f in *.c | *.h) ;; *) continue ;; esac
	[ -f "$src/$f" ] || continue
	sed -n 's/^#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$src/$f" | while read -r h; do
		echo "$f $l ${h##*/}"
	done >>"$t/inc"
done <"$t/files"
awk 'NR == FNR { rank[$1] = $2; next }
	FILENAME ~ /files$/ { n = $1; sub(/.*\//, "", n); hl[n] = $2; next }
	{
		if (!($3 in hl)) next
		a = rank[$2]; h = rank[hl[$3]]
		# the plugin and the command stand beside each other above all
		if ($2 == "plugin" || $2 == "tools") a = 100
		if (hl[$3] == "plugin" || hl[$3] == "tools") h = (hl[$3] == $2) ? 100 : 101
		if (h > a) printf "%s (%s) includes %s (%s)\n", $1, $2, $3, hl[$3]
	}' "$t/rank" "$t/files" "$t/inc" >"$t/badinc"
if [ -s "$t/badinc" ]; then
	echo "not ok 3 - a file includes a higher layer's header:"
	sed 's/^/#   /' "$t/badinc"
else
	echo "ok 3 - no file includes a higher layer's header ($(wc -l <"$t/inc") includes of $(awk '{ print $1 }' "$t/inc" | sort -u | wc -l) files)"
fi
