# power/: fragment of the top-level Makefile.am
# Rack power/cooling headroom, power-cap speed model, live telemetry poller.
libgpuplace_core_la_SOURCES += power/power.h power/estimate.c power/capspeed.c \
	power/parse.c power/telemetry.c

check_PROGRAMS += tests/test_power
tests_test_power_SOURCES = tests/test_power.c tests/power_fixture.c tests/power_fixture.h
tests_test_power_CPPFLAGS = $(AM_CPPFLAGS) -DGP_SRCDIR='"$(abs_top_srcdir)"'
tests_test_power_CFLAGS = $(TEST_CFLAGS)
tests_test_power_LDADD = $(TEST_LIBS)
TESTS += tests/test_power
EXTRA_DIST += tests/data/telemetry

check_PROGRAMS += tests/test_telemetry
tests_test_telemetry_SOURCES = tests/test_telemetry.c tests/http_server.c tests/http_server.h \
	tests/power_fixture.c tests/power_fixture.h tools/cmd_power.c
tests_test_telemetry_CPPFLAGS = $(AM_CPPFLAGS) -DGP_SRCDIR='"$(abs_top_srcdir)"'
tests_test_telemetry_CFLAGS = $(TEST_CFLAGS)
tests_test_telemetry_LDADD = $(TEST_LIBS)
TESTS += tests/test_telemetry

check_PROGRAMS += tests/fuzz_prom tests/fuzz_redfish
tests_fuzz_prom_SOURCES = tests/fuzz_prom.c tests/fuzz_driver.c
tests_fuzz_prom_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_prom_LDADD = $(GP_LIBS)
tests_fuzz_redfish_SOURCES = tests/fuzz_redfish.c tests/fuzz_driver.c
tests_fuzz_redfish_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_redfish_LDADD = $(GP_LIBS)
TESTS += tests/fuzz_prom.sh tests/fuzz_redfish.sh tests/valgrind_telemetry.sh
EXTRA_DIST += tests/fuzz_prom.sh tests/fuzz_redfish.sh tests/valgrind_telemetry.sh

# gpuplace power show|curve
gpuplace_SOURCES += tools/cmd_power.c
