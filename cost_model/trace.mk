# cost_model/trace.*: job traces for the simulator (CSV, synthetic generator).
libgpuplace_core_la_SOURCES += cost_model/trace.c cost_model/trace.h

check_PROGRAMS += tests/test_trace
tests_test_trace_SOURCES = tests/test_trace.c
tests_test_trace_CFLAGS = $(TEST_CFLAGS)
tests_test_trace_LDADD = $(TEST_LIBS)
TESTS += tests/test_trace
EXTRA_DIST += tests/data/trace

# gpuplace trace show|check|synth
gpuplace_SOURCES += tools/cmd_trace.c
