# SPDX-License-Identifier: GPL-2.0-or-later
# prelude.sh - what each real-daemon test of job_submit/gpuplace does before
# its cluster; sourced (bash) once top (the source tree) and N_TESTS are
# set, and EXTRA_PROGS (optional) names the programs the test needs beyond
# slurmctld, slurmd, munged, sbatch, squeue and scontrol.  Prints the TAP
# plan, defines skip_all REASON (every test skipped with REASON, then exit)
# and skips when built with sanitizers, when not root, when a program is
# missing or the plugin is not built; sets build, plugdir and ver (the
# installed Slurm's version: "slurm 24.11.5" / "slurm-wlm 22.05.8" give
# 24.11.5 / 22.05.8).
build=${GP_TOP_BUILDDIR:-$top}
plugdir=$build/plugin/.libs
echo "1..$N_TESTS"
skip_all() { local i; for i in $(seq 1 "$N_TESTS"); do echo "ok $i # SKIP $1"; done; exit 0; }
[ -z "${GP_SANITIZERS:-}" ] || skip_all "built with sanitizers: slurmctld cannot load an ASan plugin (tests/unit/test_plugin runs it instrumented)"
[ "$(id -u)" = 0 ] || skip_all "integration tests need root"
for b in slurmctld slurmd munged sbatch squeue scontrol ${EXTRA_PROGS:-}; do
	command -v "$b" >/dev/null 2>&1 || skip_all "$b is not installed"
done
[ -f "$plugdir/job_submit_gpuplace.so" ] || skip_all "plugin not built in $plugdir"
ver=$(slurmctld -V 2>/dev/null | awk '{print $2}')
