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
	tests/power_fixture.c tests/power_fixture.h
tests_test_telemetry_CPPFLAGS = $(AM_CPPFLAGS) -DGP_SRCDIR='"$(abs_top_srcdir)"'
tests_test_telemetry_CFLAGS = $(TEST_CFLAGS)
tests_test_telemetry_LDADD = $(TEST_LIBS)
TESTS += tests/test_telemetry
