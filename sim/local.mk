# sim/sim.*: the discrete-event simulator and `gpuplace simulate`.
libgp_sim_la_SOURCES += sim/sim.c sim/sim.h sim/judge.c
gpuplace_SOURCES += tools/cmd_simulate.c
check_PROGRAMS += tests/test_sim
tests_test_sim_SOURCES = tests/test_sim.c
tests_test_sim_CPPFLAGS = $(AM_CPPFLAGS) -DGP_SRCDIR='"$(abs_top_srcdir)"'
tests_test_sim_CFLAGS = $(TEST_CFLAGS)
tests_test_sim_LDADD = $(TEST_LIBS)
TESTS += tests/test_sim
TESTS += tests/simulate_cli.sh
EXTRA_DIST += tests/simulate_cli.sh
EXTRA_DIST += tests/data/sim

# sim/trace.*: job traces for the simulator (CSV, synthetic generator).
libgp_sim_la_SOURCES += sim/trace.c sim/trace.h
# sim/sacct.*: a site's sacct --parsable2 history into a trace.
libgp_sim_la_SOURCES += sim/sacct.c sim/sacct.h

check_PROGRAMS += tests/test_trace
tests_test_trace_SOURCES = tests/test_trace.c
tests_test_trace_CFLAGS = $(TEST_CFLAGS)
tests_test_trace_LDADD = $(TEST_LIBS)
TESTS += tests/test_trace
EXTRA_DIST += tests/data/trace

# gpuplace trace show|check|synth
gpuplace_SOURCES += tools/cmd_trace.c

# trace CSV reader fuzz target (traces come from outside the project), with
# the reader compiled in again under AddressSanitizer and UBSan so that an
# out-of-bounds read fails the test, not only a crash.
TRACE_ASAN_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
check_PROGRAMS += tests/fuzz_trace
tests_fuzz_trace_SOURCES = tests/fuzz_trace.c tests/fuzz_driver.c sim/trace.c
tests_fuzz_trace_CFLAGS = $(TEST_CFLAGS) $(TRACE_ASAN_FLAGS)
tests_fuzz_trace_LDFLAGS = $(TRACE_ASAN_FLAGS)
tests_fuzz_trace_LDADD = $(GP_LIBS)
TESTS += tests/fuzz_trace.sh
EXTRA_DIST += tests/fuzz_trace.sh

TESTS += tests/trace_cli.sh
EXTRA_DIST += tests/trace_cli.sh

# sim/sim_out.c: the simulator's table, CSV/JSON files and gnuplot plots.
libgp_sim_la_SOURCES += sim/sim_out.c sim/sim.h
check_PROGRAMS += tests/test_sim_out
tests_test_sim_out_SOURCES = tests/test_sim_out.c
tests_test_sim_out_CFLAGS = $(TEST_CFLAGS)
tests_test_sim_out_LDADD = $(TEST_LIBS)
TESTS += tests/test_sim_out

# sacct --parsable2 output into a trace (sim/sacct.c), and the command:
# import, then simulate's comparison with the nodes Slurm gave.
check_PROGRAMS += tests/test_sacct
tests_test_sacct_SOURCES = tests/test_sacct.c
tests_test_sacct_CFLAGS = $(TEST_CFLAGS)
tests_test_sacct_LDADD = $(TEST_LIBS)
TESTS += tests/test_sacct tests/sacct_cli.sh
EXTRA_DIST += tests/sacct_cli.sh
