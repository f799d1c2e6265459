# bench/: fragment of the top-level Makefile.am
noinst_PROGRAMS += bench/bench_load
bench_bench_load_SOURCES = bench/bench_load.c
bench_bench_load_LDADD = $(GP_LIBS)
