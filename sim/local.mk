# cost_model/sim.*: the discrete-event simulator and `gpuplace simulate`.
libgpuplace_core_la_SOURCES += cost_model/sim.c cost_model/sim.h
gpuplace_SOURCES += tools/cmd_simulate.c
check_PROGRAMS += tests/test_sim
tests_test_sim_SOURCES = tests/test_sim.c
tests_test_sim_CFLAGS = $(TEST_CFLAGS)
tests_test_sim_LDADD = $(TEST_LIBS)
TESTS += tests/test_sim
TESTS += tests/simulate_cli.sh
EXTRA_DIST += tests/simulate_cli.sh
EXTRA_DIST += tests/data/sim
