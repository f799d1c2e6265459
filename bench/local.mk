# bench/: fragment of the top-level Makefile.am
noinst_PROGRAMS += bench/bench_load
bench_bench_load_SOURCES = bench/bench_load.c
bench_bench_load_LDADD = $(GP_LIBS)
noinst_PROGRAMS += bench/bench_candidates
bench_bench_candidates_SOURCES = bench/bench_candidates.c
bench_bench_candidates_LDADD = $(GP_LIBS)
noinst_PROGRAMS += bench/bench_cost
bench_bench_cost_SOURCES = bench/bench_cost.c
bench_bench_cost_LDADD = $(GP_LIBS)
