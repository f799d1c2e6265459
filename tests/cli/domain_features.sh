#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# TAP: the admin's path to the topology-domain features job_submit/gpuplace
# constrains jobs with (gpsw_, gpnvl_, gprack_; gpuplace.conf(5), CONSTRAIN).
# slurmctld refuses a constraint naming a feature no node has, so without
# them the plugin keeps no job to a domain.  `gpuplace cluster check` on a
# site whose slurm.conf lacks them (the bundled SuperPOD example with its
# gp features taken out) warns, naming slurm.conf, the first domain and
# the command that writes them; a feature on a node outside its domain is
# caught too; under PowerLicenses so are the racks' gprack_ features; and
# once slurm.conf's NodeName lines are replaced by what that command
# writes, the check is clean.  `gpuplace simulate` says the same, and
# that it keeps such jobs to their domains as the plugin does once the
# features are there.  The bundled examples check clean.
top_build=${GP_TOP_BUILDDIR:-.}
top_src=${GP_TOP_SRCDIR:-.}
gp="$top_build/gpuplace"
site="$top_src/etc/superpod-h100"
if [ ! -x "$gp" ]; then
	echo "1..0 # SKIP $gp not built"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gp-domfeat-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); echo "not ok $n - $1"; fail=1; }
# has FILE FIXED-STRING DESCRIPTION
has() {
	if grep -Fq -- "$2" "$1"; then ok "$3"; else
		bad "$3: no '$2'"; sed 's/^/# /' "$1"; fi
}
# hasnt FILE FIXED-STRING DESCRIPTION
hasnt() {
	if ! grep -Fq -- "$2" "$1"; then ok "$3"; else
		bad "$3: '$2' found"; sed 's/^/# /' "$1"; fi
}

echo "1..15"
d="$tmp/site"
mkdir "$d"
cp "$site/slurm.conf" "$site/topology.conf" "$site/gres.conf" "$site/gpuplace.conf" "$d/"
# the example as a site that has not added gpuplace's features
sed -e 's/,gpsw_[^, ]*//g' -e 's/,gprack_[^, ]*//g' "$site/slurm.conf" >"$d/slurm.conf"
if grep -v '^#' "$d/slurm.conf" | grep -q 'gpsw_\|gprack_' || ! grep -q 'Features=su1,rack01$' "$d/slurm.conf"; then
	bad "the example's gp features could not be taken out"
else
	ok "the example's slurm.conf without gpuplace's features"
fi
"$gp" cluster check --conf-dir "$d" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 0 ]; then ok "check exits 0: the site still works, without domain constraints"; else
	bad "check exit $rc"; sed 's/^/# /' "$tmp/out" "$tmp/err"; fi
has "$tmp/out" "warning: $d/slurm.conf: NodeName: the nodes of 4 of 4 topology domains lack the feature job_submit/gpuplace constrains jobs to that domain with (Features=gpsw_su1 is not on exactly the nodes of switch su1)" \
	"the warning names slurm.conf, how many domains and the first one"
has "$tmp/out" "\`gpuplace conf --conf-dir $d --what nodes\` writes the NodeName lines with them" \
	"and the command that writes them"
hasnt "$tmp/out" "gprack_" "racks' features are not asked for without PowerLicenses"
has "$tmp/out" "OK: 128 nodes, 1024 GPUs" "every node and GPU is modelled"
# gpuplace simulate on that site says it too, and what it simulates
sim() {
	"$gp" simulate --conf-dir "$d" --trace "$tmp/trace.csv" --out-dir "$tmp/sim" --no-plots \
		--policies balanced >"$tmp/out" 2>"$tmp/err" || { echo "# simulate failed:"; sed 's/^/# /' "$tmp/err"; }
}
"$gp" trace synth --conf-dir "$d" --jobs 40 --load 0.5 --seed 1 -o "$tmp/trace.csv" 2>"$tmp/err" ||
	sed 's/^/# /' "$tmp/err"
sim
has "$tmp/out" "warning: $d/slurm.conf: NodeName: the nodes of 4 of 4 topology domains lack the feature job_submit/gpuplace constrains jobs to that domain with (Features=gpsw_su1 is not on exactly the nodes of switch su1); a job it would keep to such a domain goes to Slurm without that constraint (this simulation keeps such a job to its domain, as the plugin does once the nodes have the features); \`gpuplace conf --conf-dir $d --what nodes\` writes the NodeName lines with them" \
	"simulate says so too, and that it keeps such jobs to their domains as the plugin will"

# under PowerLicenses the racks' gprack_ features count too
cp "$d/gpuplace.conf" "$tmp/gpuplace.conf.orig"
echo "PowerLicenses=rackpw" >>"$d/gpuplace.conf"
"$gp" cluster check --conf-dir "$d" >"$tmp/out" 2>&1
has "$tmp/out" "warning: $d/slurm.conf: NodeName: PowerLicenses=rackpw, and the nodes of 32 of 32 racks lack their rack's feature (Features=gprack_rack01 is not on exactly the nodes of rack rack01)" \
	"PowerLicenses: the racks' missing gprack_ features"

# the fix the warning names: slurm.conf's NodeName lines replaced by its output
"$gp" conf --conf-dir "$d" --what nodes >"$tmp/nodes" 2>"$tmp/err"
if [ $? -eq 0 ] && grep -q '^NodeName=dgx\[001-004\] Features=su1,rack01,gpsw_su1,gprack_rack01$' "$tmp/nodes"; then
	ok "gpuplace conf --what nodes writes the NodeName lines with the features"
else
	bad "gpuplace conf --what nodes"; sed 's/^/# /' "$tmp/nodes" "$tmp/err"
fi
# every NodeName line (and its continuation lines) out, the written ones in
awk '/^NodeName=/ { skip = /\\$/; next } skip { skip = /\\$/; next } { print }' "$d/slurm.conf" >"$tmp/rest"
grep -v '^#' "$tmp/nodes" | cat "$tmp/rest" - >"$d/slurm.conf"
"$gp" cluster check --conf-dir "$d" >"$tmp/out" 2>&1
hasnt "$tmp/out" "warning:" "with those lines in slurm.conf the check is clean, racks included"
has "$tmp/out" "OK: 128 nodes, 1024 GPUs" "and models the same site"
sim
hasnt "$tmp/out" "warning:" "and simulate says nothing of features"

# a domain's feature on a node outside it would let a job out of the
# domain: dgx033 (SU 2) given su1's feature
cp "$tmp/gpuplace.conf.orig" "$d/gpuplace.conf"
sed 's/^\(NodeName=dgx\[033-036\] Features=.*\)$/\1,gpsw_su1/' "$d/slurm.conf" >"$tmp/s" && mv "$tmp/s" "$d/slurm.conf"
"$gp" cluster check --conf-dir "$d" >"$tmp/out" 2>&1
has "$tmp/out" "the nodes of 1 of 4 topology domains lack the feature job_submit/gpuplace constrains jobs to that domain with (Features=gpsw_su1 is not on exactly the nodes of switch su1)" \
	"a feature on nodes of another domain is caught"

# the bundled examples are complete sites: they check clean
clean=0
for s in superpod-h100 a100-oversub nvl72-gb200 mixed-pcie; do
	"$gp" cluster check --conf-dir "$top_src/etc/$s" >"$tmp/ex" 2>&1
	if grep -q "warning:" "$tmp/ex" || ! grep -q "^OK: " "$tmp/ex"; then
		clean=1
		sed "s/^/# $s: /" "$tmp/ex"
	fi
done
if [ "$clean" -eq 0 ]; then ok "the four bundled examples check clean, features included"; else
	bad "a bundled example does not check clean"; fi
# and their NVLink domains' features too (nvl72-gb200)
sed -e 's/,gpnvl_[^, ]*//g' "$top_src/etc/nvl72-gb200/slurm.conf" >"$tmp/nvl.conf"
mkdir "$tmp/nvl"
cp "$top_src/etc/nvl72-gb200/"* "$tmp/nvl/" 2>/dev/null
cp "$tmp/nvl.conf" "$tmp/nvl/slurm.conf"
"$gp" cluster check --conf-dir "$tmp/nvl" >"$tmp/out" 2>&1
has "$tmp/out" "the nodes of 16 of 18 topology domains lack the feature job_submit/gpuplace constrains jobs to that domain with (Features=gpnvl_nvl01 is not on exactly the nodes of NVLink domain nvl01)" \
	"NVLink domains without their gpnvl_ feature are named"
exit $fail
