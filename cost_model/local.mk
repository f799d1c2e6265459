# cost_model/: the cluster model, its loaders and common helpers.
libgpuplace_core_la_SOURCES += \
	cost_model/gpuplace.h cost_model/model.h \
	cost_model/error.c cost_model/number.c cost_model/cluster.c

check_PROGRAMS += tests/test_number
tests_test_number_SOURCES = tests/test_number.c
tests_test_number_CFLAGS = $(TEST_CFLAGS)
tests_test_number_LDADD = $(TEST_LIBS)
TESTS += tests/test_number

# doc/: manual pages (gpuplace(1), gpuplace.conf(5)).
dist_man_MANS += doc/gpuplace.1 doc/gpuplace.conf.5

# configuration loaders (slurm.conf, topology.conf, gres.conf, gpuplace.conf)
libgpuplace_core_la_SOURCES += \
	cost_model/conf.c cost_model/conf.h cost_model/load.c cost_model/load_slurm.c \
	cost_model/load_topology.c cost_model/load_gres.c cost_model/load_gpuplace.c

check_PROGRAMS += tests/test_conf
tests_test_conf_SOURCES = tests/test_conf.c
tests_test_conf_CPPFLAGS = $(AM_CPPFLAGS) -DGP_SRCDIR='"$(abs_top_srcdir)"'
tests_test_conf_CFLAGS = $(TEST_CFLAGS)
tests_test_conf_LDADD = $(TEST_LIBS)
TESTS += tests/test_conf
TESTS += tests/test_conf_valgrind.sh
EXTRA_DIST += tests/test_conf_valgrind.sh

check_PROGRAMS += tests/fuzz_conf
tests_fuzz_conf_SOURCES = tests/fuzz_conf.c tests/fuzz_driver.c
tests_fuzz_conf_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_conf_LDADD = $(GP_LIBS)
TESTS += tests/fuzz_conf.sh
EXTRA_DIST += tests/fuzz_conf.sh

# JSON model format, summary, shared derivation, synthetic clusters.
libgpuplace_core_la_SOURCES += cost_model/json.c cost_model/finish.c cost_model/summary.c \
	cost_model/synth.c cost_model/synth.h

check_PROGRAMS += tests/test_json tests/test_synth
tests_test_json_SOURCES = tests/test_json.c
tests_test_json_CFLAGS = $(TEST_CFLAGS)
tests_test_json_LDADD = $(TEST_LIBS)
tests_test_synth_SOURCES = tests/test_synth.c
tests_test_synth_CFLAGS = $(TEST_CFLAGS)
tests_test_synth_LDADD = $(TEST_LIBS)
TESTS += tests/test_json tests/test_synth

check_PROGRAMS += tests/fuzz_json
tests_fuzz_json_SOURCES = tests/fuzz_json.c tests/fuzz_driver.c
tests_fuzz_json_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_json_LDADD = $(GP_LIBS)
TESTS += tests/fuzz_json.sh
EXTRA_DIST += tests/fuzz_json.sh
dist_man_MANS += doc/gpuplace-json.5
