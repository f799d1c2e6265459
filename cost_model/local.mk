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

