# cost_model/sim_out.c: the simulator's table, CSV/JSON files and gnuplot plots.
libgpuplace_core_la_SOURCES += cost_model/sim_out.c cost_model/sim.h
check_PROGRAMS += tests/test_sim_out
tests_test_sim_out_SOURCES = tests/test_sim_out.c
tests_test_sim_out_CFLAGS = $(TEST_CFLAGS)
tests_test_sim_out_LDADD = $(TEST_LIBS)
TESTS += tests/test_sim_out
