#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# libtool-link.sh SHELL LIBTOOL ARGS...: what the Makefile runs as
# $(LIBTOOL) (Makefile.am).  Every call goes to the real libtool script
# (SHELL LIBTOOL ARGS...), except the link of a program against the tree's
# convenience libraries only: that one is the compiler command libtool
# would run, run here without libtool.
#
# Why: libtool is a large shell script that forks about 280 subshells and
# 80 seds per program link; on the 2-core CI machine that took about
# 3.7 CPU-s per test program against 0.2 for the link itself, and the test
# command links some fifty programs per Slurm release (the quick tier's,
# the long tier's, the roots' slurm-unit tier's).
#
# The fast path is taken only when nothing but libtool could do the link:
# an output that is not a libtool library (.la); no libtool-only flag
# (-rpath, -module, -version-info, ...); every .la argument a convenience
# library (no shared library in it: library_names and dlname empty) whose
# archive is DIR/.libs/OLD_LIBRARY and whose dependency_libs name no other
# .la.  Then, as libtool does: each such .la becomes its archive, and its
# dependency_libs and inherited_linker_flags go at the end of the command.
# Anything else, the real libtool.
set -u
sh_=$1 lt=$2
shift 2
case " $* " in
*" --mode=link "*) ;;
*) exec "$sh_" "$lt" "$@" ;;
esac
real() { exec "$sh_" "$lt" "$@"; }
# la FILE: read the libtool library FILE; 0 when it is a convenience
# library as above, its archive in $ar
la() {
	dlname= library_names= old_library= dependency_libs= inherited_linker_flags=
	[ -f "$1" ] || return 1
	case "$1" in /*) f=$1 ;; *) f=./${1#./} ;; esac
	# shellcheck disable=SC1090
	. "$f" 2>/dev/null || return 1
	[ -z "$dlname" ] && [ -z "$library_names" ] && [ -n "$old_library" ] || return 1
	case "$dependency_libs" in *.la*) return 1 ;; esac
	case "$1" in */*) ar=${1%/*}/.libs/$old_library ;; *) ar=./.libs/$old_library ;; esac
	[ -f "$ar" ]
}

# first the checks, then the command
silent= cc= out= next=
for a in "$@"; do
	if [ -z "$cc" ]; then
		case "$a" in
		--silent | --quiet) silent=1 ;;
		--mode=link | --tag=*) ;;
		--*) real "$@" ;;
		*) cc=$a ;;
		esac
		continue
	fi
	if [ -n "$next" ]; then
		next= out=$a
		case "$a" in *.la | *.lo) real "$@" ;; esac
		continue
	fi
	case "$a" in
	-o) next=1 ;;
	-rpath | -R | -module | -shared | -static | -all-static | -static-libtool-libs | -avoid-version | \
		-version-info | -version-number | -release | -export-symbols* | -export-dynamic | -no-undefined | \
		-no-install | -dlopen | -dlpreopen | -Wc,* | -Xcompiler | -Xlinker | -XCClinker | -shrext | \
		-bindir | -precious-files-regex | -weak | -objectlist | *.lo)
		real "$@" ;;
	*.la) la "$a" || real "$@" ;;
	esac
done
[ -n "$cc" ] && [ -n "$out" ] || real "$@"

n=$# tail= seen=
for a in "$@"; do
	if [ -z "$seen" ]; then
		case "$a" in --*) continue ;; esac
		seen=1
	fi
	case "$a" in
	*.la)
		la "$a"
		set -- "$@" "$ar"
		tail="$tail $dependency_libs $inherited_linker_flags"
		;;
	*) set -- "$@" "$a" ;;
	esac
done
shift "$n"
# (the libraries' own dependencies: plain -l, -L and -pthread words)
# shellcheck disable=SC2086
set -- "$@" $tail
[ -n "$silent" ] || echo "libtool-link: $*"
exec "$@"
