# power/: fragment of the top-level Makefile.am
# Rack power/cooling headroom, power-cap speed model, live telemetry poller.
libgp_power_la_SOURCES += power/power.h power/estimate.c power/capspeed.c power/hres.c power/lic.c \
	power/parse.c power/telemetry.c

check_PROGRAMS += tests/unit/test_power
tests_unit_test_power_SOURCES = tests/unit/test_power.c tests/unit/power_fixture.c tests/unit/power_fixture.h \
	tests/unit/test_slurp.h
tests_unit_test_power_CPPFLAGS = $(AM_CPPFLAGS) -DGP_SRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_power_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_power_LDADD = $(TEST_CORE_LIBS)
TESTS += tests/unit/test_power
EXTRA_DIST += tests/data/telemetry

check_PROGRAMS += tests/unit/test_telemetry
tests_unit_test_telemetry_SOURCES = tests/unit/test_telemetry.c tests/unit/http_server.c tests/unit/http_server.h \
	tests/unit/power_fixture.c tests/unit/power_fixture.h tools/cmd_power.c tools/cli.c
tests_unit_test_telemetry_CPPFLAGS = $(AM_CPPFLAGS) -DGP_SRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_telemetry_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_telemetry_LDADD = $(TEST_CORE_LIBS)
TESTS += tests/unit/test_telemetry
# gpuplace power show on a FIFO telemetry file (must not hang)
TESTS += tests/cli/power_fifo_cli.sh
EXTRA_DIST += tests/cli/power_fifo_cli.sh
# gpuplace power show: GPUs the racks power at TDP, on the example sites
TESTS += tests/cli/power_capacity.sh
EXTRA_DIST += tests/cli/power_capacity.sh

check_PROGRAMS += tests/fuzz/fuzz_prom tests/fuzz/fuzz_redfish
tests_fuzz_fuzz_prom_SOURCES = tests/fuzz/fuzz_prom.c tests/fuzz/fuzz_driver.c
tests_fuzz_fuzz_prom_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_fuzz_prom_LDADD = $(GP_LIBS)
tests_fuzz_fuzz_redfish_SOURCES = tests/fuzz/fuzz_redfish.c tests/fuzz/fuzz_driver.c
tests_fuzz_fuzz_redfish_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_fuzz_redfish_LDADD = $(GP_LIBS)
TESTS += tests/fuzz/fuzz_prom.sh tests/fuzz/fuzz_redfish.sh
LONG_TESTS += tests/unit/valgrind_telemetry.sh
LONG_BINS += tests/unit/test_telemetry$(EXEEXT) tests/unit/test_power$(EXEEXT)
EXTRA_DIST += tests/fuzz/fuzz_prom.sh tests/fuzz/fuzz_redfish.sh tests/unit/valgrind_telemetry.sh

# gpuplace power show|curve
gpuplace_SOURCES += tools/cmd_power.c

# The power module under AddressSanitizer and UndefinedBehaviorSanitizer:
# the telemetry tests (real HTTP over loopback, every failure mode) and both
# parser fuzz targets, with power/*.c compiled instrumented into each
# program (its symbols take precedence over the uninstrumented copies in
# libgp_power).
ASAN_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
GP_POWER_SOURCES = power/estimate.c power/capspeed.c power/parse.c power/telemetry.c
check_PROGRAMS += tests/unit/asan_telemetry tests/fuzz/asan_fuzz_prom tests/fuzz/asan_fuzz_redfish
tests_unit_asan_telemetry_SOURCES = $(tests_unit_test_telemetry_SOURCES) $(GP_POWER_SOURCES)
tests_unit_asan_telemetry_CPPFLAGS = $(tests_unit_test_telemetry_CPPFLAGS)
tests_unit_asan_telemetry_CFLAGS = $(TEST_CFLAGS) $(ASAN_FLAGS)
tests_unit_asan_telemetry_LDFLAGS = $(ASAN_FLAGS)
tests_unit_asan_telemetry_LDADD = $(TEST_LIBS)
tests_fuzz_asan_fuzz_prom_SOURCES = tests/fuzz/fuzz_prom.c tests/fuzz/fuzz_driver.c $(GP_POWER_SOURCES)
tests_fuzz_asan_fuzz_prom_CFLAGS = $(TEST_CFLAGS) $(ASAN_FLAGS)
tests_fuzz_asan_fuzz_prom_LDFLAGS = $(ASAN_FLAGS)
tests_fuzz_asan_fuzz_prom_LDADD = $(GP_LIBS)
tests_fuzz_asan_fuzz_redfish_SOURCES = tests/fuzz/fuzz_redfish.c tests/fuzz/fuzz_driver.c $(GP_POWER_SOURCES)
tests_fuzz_asan_fuzz_redfish_CFLAGS = $(TEST_CFLAGS) $(ASAN_FLAGS)
tests_fuzz_asan_fuzz_redfish_LDFLAGS = $(ASAN_FLAGS)
tests_fuzz_asan_fuzz_redfish_LDADD = $(GP_LIBS)
TESTS += tests/unit/asan_telemetry tests/fuzz/asan_power_fuzz.sh
EXTRA_DIST += tests/fuzz/asan_power_fuzz.sh

# The Prometheus source against a real Prometheus and Pushgateway on
# loopback (ports 29090/29091 unless GP_PROM_PORT/GP_PUSHGW_PORT say
# otherwise); SKIP without the Debian packages.
TESTS += tests/cli/prom_integration.sh
EXTRA_DIST += tests/cli/prom_integration.sh
