# sim/sim.*: the discrete-event simulator and `gpuplace simulate`.
libgp_sim_la_SOURCES += sim/sim.c sim/sim.h sim/judge.c
gpuplace_SOURCES += tools/cmd_simulate.c
check_PROGRAMS += tests/unit/test_sim
tests_unit_test_sim_SOURCES = tests/unit/test_sim.c
tests_unit_test_sim_CPPFLAGS = $(AM_CPPFLAGS) -DGP_SRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_sim_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_sim_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_sim
TESTS += tests/cli/simulate_cli.sh
EXTRA_DIST += tests/cli/simulate_cli.sh
EXTRA_DIST += tests/data/sim
EXTRA_DIST += tests/data/judge

# sim/trace.*: job traces for the simulator (CSV, synthetic generator).
libgp_sim_la_SOURCES += sim/trace.c sim/trace.h
# sim/sacct.*: a site's sacct --parsable2 history into a trace.
libgp_sim_la_SOURCES += sim/sacct.c sim/sacct.h

check_PROGRAMS += tests/unit/test_trace
tests_unit_test_trace_SOURCES = tests/unit/test_trace.c
tests_unit_test_trace_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_trace_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_trace
EXTRA_DIST += tests/data/trace

# gpuplace trace show|check|synth
gpuplace_SOURCES += tools/cmd_trace.c

# trace CSV reader fuzz target (traces come from outside the project), with
# the reader compiled in again under AddressSanitizer and UBSan so that an
# out-of-bounds read fails the test, not only a crash.
TRACE_ASAN_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
check_PROGRAMS += tests/fuzz/fuzz_trace
tests_fuzz_fuzz_trace_SOURCES = tests/fuzz/fuzz_trace.c tests/fuzz/fuzz_driver.c sim/trace.c
tests_fuzz_fuzz_trace_CFLAGS = $(TEST_CFLAGS) $(TRACE_ASAN_FLAGS)
tests_fuzz_fuzz_trace_LDFLAGS = $(TRACE_ASAN_FLAGS)
tests_fuzz_fuzz_trace_LDADD = $(GP_LIBS)
TESTS += tests/fuzz/fuzz_trace.sh
EXTRA_DIST += tests/fuzz/fuzz_trace.sh

TESTS += tests/cli/trace_cli.sh
EXTRA_DIST += tests/cli/trace_cli.sh

# sim/sim_out.c: the simulator's table, CSV/JSON files and gnuplot plots.
libgp_sim_la_SOURCES += sim/sim_out.c sim/sim.h
check_PROGRAMS += tests/unit/test_sim_out
tests_unit_test_sim_out_SOURCES = tests/unit/test_sim_out.c tests/unit/test_slurp.h
tests_unit_test_sim_out_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_sim_out_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_sim_out

# sim/synth.*: synthetic clusters, offline-only (libgp_sim, never the plugin).
libgp_sim_la_SOURCES += sim/synth.c sim/synth.h
check_PROGRAMS += tests/unit/test_synth
tests_unit_test_synth_SOURCES = tests/unit/test_synth.c tests/unit/test_slurp.h
tests_unit_test_synth_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_synth_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_synth

# sacct --parsable2 output into a trace (sim/sacct.c), and the command:
# import, then simulate's comparison with the nodes Slurm gave.
check_PROGRAMS += tests/unit/test_sacct
tests_unit_test_sacct_SOURCES = tests/unit/test_sacct.c
tests_unit_test_sacct_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_sacct_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_sacct tests/cli/sacct_cli.sh
EXTRA_DIST += tests/cli/sacct_cli.sh
# 20,000 jobs of the real Philly trace (make check-long)
LONG_TESTS += tests/cli/simulate_long.sh
EXTRA_DIST += tests/cli/simulate_long.sh
