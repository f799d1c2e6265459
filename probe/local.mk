# probe/: fragment of the top-level Makefile.am
# Node discovery with hwloc: `gpuplace probe` and `gpuplace cluster merge`.
libgp_probe_la_SOURCES += probe/discover.c probe/discover.h
gpuplace_SOURCES += tools/cmd_probe.c tools/cmd_cluster_merge.c

check_PROGRAMS += tests/test_probe
tests_test_probe_SOURCES = tests/test_probe.c
tests_test_probe_CFLAGS = $(TEST_CFLAGS)
tests_test_probe_LDADD = $(TEST_LIBS)
TESTS += tests/test_probe
EXTRA_DIST += tests/data/probe
TESTS += tests/probe_cmd.sh
EXTRA_DIST += tests/probe_cmd.sh

check_PROGRAMS += tests/fuzz_probe
tests_fuzz_probe_SOURCES = tests/fuzz_probe.c tests/fuzz_driver.c
tests_fuzz_probe_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_probe_LDADD = $(GP_LIBS)
TESTS += tests/fuzz_probe.sh
EXTRA_DIST += tests/fuzz_probe.sh
