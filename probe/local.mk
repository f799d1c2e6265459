# probe/: fragment of the top-level Makefile.am
# Node discovery with hwloc: `gpuplace probe` and `gpuplace cluster merge`.
libgp_probe_la_SOURCES += probe/discover.c probe/discover.h
gpuplace_SOURCES += tools/cmd_probe.c tools/cmd_cluster_merge.c

check_PROGRAMS += tests/unit/test_probe
tests_unit_test_probe_SOURCES = tests/unit/test_probe.c
tests_unit_test_probe_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_probe_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_probe
EXTRA_DIST += tests/data/probe
TESTS += tests/cli/probe_cmd.sh tests/cli/probe_crashes.sh
EXTRA_DIST += tests/cli/probe_cmd.sh tests/cli/probe_crashes.sh

check_PROGRAMS += tests/fuzz/fuzz_probe
tests_fuzz_fuzz_probe_SOURCES = tests/fuzz/fuzz_probe.c tests/fuzz/fuzz_driver.c
tests_fuzz_fuzz_probe_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_fuzz_probe_LDADD = $(GP_LIBS)
TESTS += tests/fuzz/fuzz_probe.sh
EXTRA_DIST += tests/fuzz/fuzz_probe.sh

check_PROGRAMS += tests/fuzz/fuzz_probe_xml
tests_fuzz_fuzz_probe_xml_SOURCES = tests/fuzz/fuzz_probe_xml.c tests/fuzz/fuzz_driver.c
tests_fuzz_fuzz_probe_xml_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_fuzz_probe_xml_LDADD = $(GP_LIBS)
TESTS += tests/fuzz/fuzz_probe_xml.sh
EXTRA_DIST += tests/fuzz/fuzz_probe_xml.sh
