# cost_model/: the cluster model types and the engine.
# The base layer (libgp_base): model types, errors, numbers.
libgp_base_la_SOURCES += \
	cost_model/gpuplace.h cost_model/model.h \
	cost_model/error.c cost_model/number.c cost_model/cluster.c \
	cost_model/names.c cost_model/fileio.c cost_model/hostlist.c cost_model/slurm_hostlist.h

check_PROGRAMS += tests/unit/test_number
tests_unit_test_number_SOURCES = tests/unit/test_number.c
tests_unit_test_number_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_number_LDADD = $(TEST_CORE_LIBS)
TESTS += tests/unit/test_number

check_PROGRAMS += tests/unit/test_fileio
tests_unit_test_fileio_SOURCES = tests/unit/test_fileio.c
tests_unit_test_fileio_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_fileio_LDADD = $(TEST_CORE_LIBS)
TESTS += tests/unit/test_fileio

# doc/: manual pages (gpuplace(1), gpuplace.conf(5)).
dist_man_MANS += doc/gpuplace.1 doc/gpuplace.conf.5


# The installed library as others use it: only gpuplace.h, only libgpuplace.
check_PROGRAMS += tests/unit/test_api
tests_unit_test_api_SOURCES = tests/unit/test_api.c
tests_unit_test_api_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_api_LDADD = libgpuplace.la $(JSONC_LIBS) $(CMOCKA_LIBS) $(PTHREAD_LIBS)
TESTS += tests/unit/test_api
# Every symbol libgpuplace.so exports is declared in the installed header,
# and every function the header declares is exported.
TESTS += tests/unit/exports.sh
EXTRA_DIST += tests/unit/exports.sh
# The layers of doc/ARCHITECTURE.md: no call or include upward, no cycle
# between the libraries' files (nm over the built layers).
TESTS += tests/unit/layering.sh
EXTRA_DIST += tests/unit/layering.sh

# steer (cost_model/steer_rules.c): what the plugin decides beyond one
# submission that needs no Slurm type (its ledger's power, Slurm's wait-for-switch request, the steering
# rules for pending jobs), shared by job_submit/gpuplace and the
# simulator's plugin-faithful mode.  Its own layer over the engine: not in
# libgpuplace (nothing of it is installed or exported).
libgp_steer_la_SOURCES += cost_model/steer_rules.c cost_model/steer_rules.h
