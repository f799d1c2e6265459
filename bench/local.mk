# bench/: fragment of the top-level Makefile.am
noinst_PROGRAMS += bench/bench_load
bench_bench_load_SOURCES = bench/bench_load.c
bench_bench_load_LDADD = $(GP_LIBS)
noinst_PROGRAMS += bench/bench_candidates
bench_bench_candidates_SOURCES = bench/bench_candidates.c bench/bench_util.c bench/bench_util.h
bench_bench_candidates_LDADD = $(GP_LIBS)
noinst_PROGRAMS += bench/bench_cost
bench_bench_cost_SOURCES = bench/bench_cost.c
bench_bench_cost_LDADD = $(GP_LIBS)
noinst_PROGRAMS += bench/bench_decide
bench_bench_decide_SOURCES = bench/bench_decide.c bench/bench_util.c bench/bench_util.h
bench_bench_decide_LDADD = $(GP_LIBS)
noinst_PROGRAMS += bench/bench_sim
bench_bench_sim_SOURCES = bench/bench_sim.c
bench_bench_sim_LDADD = $(GP_LIBS)
TESTS += tests/bench_sim_smoke.sh
EXTRA_DIST += tests/bench_sim_smoke.sh
