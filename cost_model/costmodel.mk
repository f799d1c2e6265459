# cost_model/: fragment of the top-level Makefile.am

# communication cost model
libgp_engine_la_SOURCES += cost_model/cost.h cost_model/cost.c \
	cost_model/jobspec.c cost_model/cost_shape.c
# cost_model/{request,features,candidates}.*: job request and candidate node sets.
libgp_engine_la_SOURCES += cost_model/request.c cost_model/request.h \
	cost_model/features.c cost_model/candidates.c cost_model/candidates.h

check_PROGRAMS += tests/test_cost
tests_test_cost_SOURCES = tests/test_cost.c tests/cost_fixture.c tests/cost_fixture.h
tests_test_cost_CPPFLAGS = $(AM_CPPFLAGS) -DCOST_DATA_DIR='"$(abs_top_srcdir)/tests/data/cost"'
tests_test_cost_CFLAGS = $(TEST_CFLAGS)
tests_test_cost_LDADD = $(TEST_CORE_LIBS)
TESTS += tests/test_cost
EXTRA_DIST += tests/data/cost
check_PROGRAMS += tests/test_candidates
tests_test_candidates_SOURCES = tests/test_candidates.c tests/engine_fixture.c tests/engine_fixture.h
tests_test_candidates_CFLAGS = $(TEST_CFLAGS)
tests_test_candidates_LDADD = $(TEST_CORE_LIBS)
TESTS += tests/test_candidates

# gpuplace model
gpuplace_SOURCES += tools/cmd_model.c
TESTS += tests/model_cli.sh
EXTRA_DIST += tests/model_cli.sh

# job hint parser fuzz target (hints come from users through the plugin)
check_PROGRAMS += tests/fuzz_jobspec
tests_fuzz_jobspec_SOURCES = tests/fuzz_jobspec.c tests/fuzz_driver.c
tests_fuzz_jobspec_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_jobspec_LDADD = $(GP_LIBS)
TESTS += tests/fuzz_jobspec.sh
EXTRA_DIST += tests/fuzz_jobspec.sh
