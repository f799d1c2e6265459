# cost_model/: fragment of the top-level Makefile.am

# communication cost model
libgp_engine_la_SOURCES += cost_model/cost.h cost_model/cost.c \
	cost_model/jobspec.c cost_model/cost_shape.c cost_model/calib.h cost_model/calib.c
# cost_model/{request,features,candidates}.*: job request and candidate node sets.
libgp_engine_la_SOURCES += cost_model/request.c cost_model/request.h \
	cost_model/features.c cost_model/candidates.c cost_model/candidates.h

check_PROGRAMS += tests/unit/test_cost
tests_unit_test_cost_SOURCES = tests/unit/test_cost.c tests/unit/cost_fixture.c tests/unit/cost_fixture.h
tests_unit_test_cost_CPPFLAGS = $(AM_CPPFLAGS) -DCOST_DATA_DIR='"$(abs_top_srcdir)/tests/data/cost"'
tests_unit_test_cost_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_cost_LDADD = $(TEST_CORE_LIBS)
TESTS += tests/unit/test_cost
EXTRA_DIST += tests/data/cost
check_PROGRAMS += tests/unit/test_candidates
tests_unit_test_candidates_SOURCES = tests/unit/test_candidates.c tests/unit/engine_fixture.c tests/unit/engine_fixture.h
tests_unit_test_candidates_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_candidates_LDADD = $(TEST_CORE_LIBS)
TESTS += tests/unit/test_candidates

# gpuplace model
gpuplace_SOURCES += tools/cmd_model.c tools/cmd_calibrate.c
TESTS += tests/cli/model_cli.sh
EXTRA_DIST += tests/cli/model_cli.sh tests/cli/calibrate_cli.sh tests/cli/model_placement.sh tests/cli/transport_conf.sh \
	tests/cli/calibrate_xval.sh
TESTS += tests/cli/transport_conf.sh
TESTS += tests/cli/model_placement.sh
TESTS += tests/cli/calibrate_cli.sh tests/cli/calibrate_xval.sh

# job hint parser fuzz target (hints come from users through the plugin)
check_PROGRAMS += tests/fuzz/fuzz_jobspec
tests_fuzz_fuzz_jobspec_SOURCES = tests/fuzz/fuzz_jobspec.c tests/fuzz/fuzz_driver.c
tests_fuzz_fuzz_jobspec_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_fuzz_jobspec_LDADD = $(GP_LIBS)
TESTS += tests/fuzz/fuzz_jobspec.sh
EXTRA_DIST += tests/fuzz/fuzz_jobspec.sh
