# bench/: fragment of the top-level Makefile.am
# The benchmarks are built by `make bench` and by `make check` (whose smoke
# tests run bench_sim, bench_calib and bench_placement), not by `make`:
# neither the packages nor the test command's builds for the real-daemon
# tiers need them.
GP_BENCH = bench/bench_load bench/bench_candidates bench/bench_cost bench/bench_decide \
	bench/bench_sim bench/bench_calib bench/bench_job_submit bench/bench_placement
check_PROGRAMS += $(GP_BENCH)
bench: $(GP_BENCH)
.PHONY: bench
bench_bench_load_SOURCES = bench/bench_load.c
bench_bench_load_LDADD = $(GP_LIBS)
bench_bench_candidates_SOURCES = bench/bench_candidates.c bench/bench_util.c bench/bench_util.h
bench_bench_candidates_LDADD = $(GP_LIBS)
bench_bench_cost_SOURCES = bench/bench_cost.c
bench_bench_cost_LDADD = $(GP_LIBS)
bench_bench_decide_SOURCES = bench/bench_decide.c bench/bench_util.c bench/bench_util.h
bench_bench_decide_LDADD = $(GP_LIBS)
bench_bench_sim_SOURCES = bench/bench_sim.c
bench_bench_sim_LDADD = $(GP_LIBS)
TESTS += tests/cli/bench_sim_smoke.sh
EXTRA_DIST += tests/cli/bench_sim_smoke.sh
bench_bench_calib_SOURCES = bench/bench_calib.c
bench_bench_calib_LDADD = $(GP_LIBS)
TESTS += tests/cli/bench_calib_smoke.sh
EXTRA_DIST += tests/cli/bench_calib_smoke.sh
# job_submit() itself, the plugin's code linked in as tests/unit/test_plugin_apply
# links it, beside the engine-only decision of the same job.
bench_bench_job_submit_SOURCES = bench/bench_job_submit.c bench/bench_util.c bench/bench_util.h \
	tests/unit/plugin_job.c tests/unit/plugin_job.h
bench_bench_job_submit_LDADD = $(GP_PLUGIN_LA) $(GP_LIBS) $(DL_LIBS) $(PTHREAD_LIBS)
bench_bench_placement_SOURCES = bench/bench_placement.c
bench_bench_placement_LDADD = $(GP_LIBS)
TESTS += tests/cli/bench_placement_smoke.sh
EXTRA_DIST += tests/cli/bench_placement_smoke.sh
