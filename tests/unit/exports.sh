#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The installed library exports exactly what its installed header declares:
# every function symbol of .libs/libgpuplace.so (nm -D) is declared in
# cost_model/gpuplace.h (the one header `make install` installs,
# include_HEADERS), and every function the header declares is exported.
b=${GP_TOP_BUILDDIR:-.}
s=${GP_TOP_SRCDIR:-.}
so=$b/.libs/libgpuplace.so
hdr=$s/cost_model/gpuplace.h
echo "1..3"
if [ ! -f "$so" ] || [ ! -f "$hdr" ]; then
	echo "Bail out! $so or $hdr missing"
	exit 1
fi
if ! grep -q '^include_HEADERS = cost_model/gpuplace.h$' "$s/Makefile.am"; then
	echo "Bail out! Makefile.am installs other headers than cost_model/gpuplace.h: check them here too"
	exit 1
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

# exported symbols: defined, dynamic, not the loader's own
nm -D --defined-only "$so" | awk 'NF == 3 && $2 ~ /[TtDdBbRrWwVv]/ { print $3 }' |
	grep -v -E '^(_init|_fini|_edata|_end|__bss_start)$' | sort -u > "$tmp/exported"
# declared functions: a gp_ name followed by '(' outside comments
sed -e 's://.*$::' "$hdr" | awk '
	{ line = $0
	  out = ""
	  while (length(line) > 0) {
		if (incomment) {
			i = index(line, "*/"); if (!i) { line = ""; break }
			line = substr(line, i + 2); incomment = 0
		} else {
			i = index(line, "/*"); if (!i) { out = out line; line = ""; break }
			out = out substr(line, 1, i - 1); line = substr(line, i + 2); incomment = 1
		}
	  }
	  print out }' |
	grep -o -E '\bgp_[a-z][a-z0-9_]*[[:space:]]*\(' | sed -e 's/[[:space:]]*($//' | sort -u > "$tmp/declared"

n=$(wc -l < "$tmp/exported")
if [ "$n" -lt 10 ] || ! grep -qx gp_place "$tmp/exported"; then
	echo "not ok 1 - libgpuplace.so exports $n symbols (expected gp_place among them)"
	fail=1
else
	echo "ok 1 - libgpuplace.so exports $n symbols"
fi
extra=$(comm -23 "$tmp/exported" "$tmp/declared")
if [ -n "$extra" ]; then
	echo "not ok 2 - exported but not declared in gpuplace.h: $(echo $extra)"
	fail=1
else
	echo "ok 2 - every exported symbol is declared in gpuplace.h"
fi
missing=$(comm -13 "$tmp/exported" "$tmp/declared")
if [ -n "$missing" ]; then
	echo "not ok 3 - declared in gpuplace.h but not exported: $(echo $missing)"
	fail=1
else
	echo "ok 3 - every function gpuplace.h declares is exported"
fi
exit $fail
