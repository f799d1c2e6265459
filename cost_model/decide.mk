# cost_model/: the decision side of the engine: checkpoint planner, policy.
libgp_engine_la_SOURCES += cost_model/ckpt.c cost_model/ckpt.h

check_PROGRAMS += tests/unit/test_ckpt
tests_unit_test_ckpt_SOURCES = tests/unit/test_ckpt.c tests/unit/engine_fixture.c tests/unit/engine_fixture.h
tests_unit_test_ckpt_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_ckpt_LDADD = $(TEST_CORE_LIBS)
TESTS += tests/unit/test_ckpt

# cost_model/policy.*: presets and gpuplace_* SchedulerParameters.
libgp_engine_la_SOURCES += cost_model/policy.c cost_model/policy.h
check_PROGRAMS += tests/unit/test_policy
tests_unit_test_policy_SOURCES = tests/unit/test_policy.c
tests_unit_test_policy_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_policy_LDADD = $(TEST_CORE_LIBS)
TESTS += tests/unit/test_policy

# cost_model/decide.*: the placement decision and its explanation.
libgp_engine_la_SOURCES += cost_model/decide.c cost_model/decide.h
check_PROGRAMS += tests/unit/test_decide
tests_unit_test_decide_SOURCES = tests/unit/test_decide.c
tests_unit_test_decide_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_decide_CPPFLAGS = $(AM_CPPFLAGS) -DDECIDE_DATA_DIR='"$(abs_top_srcdir)/tests/data/json"'
tests_unit_test_decide_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_decide
EXTRA_DIST += tests/data/json/issue31-racks21.json
gpuplace_SOURCES += tools/cmd_place.c
TESTS += tests/cli/place_cli.sh
EXTRA_DIST += tests/cli/place_cli.sh
# The engine's pick against an exhaustive search of small random instances.
check_PROGRAMS += tests/unit/test_oracle
tests_unit_test_oracle_SOURCES = tests/unit/test_oracle.c
tests_unit_test_oracle_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_oracle_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_oracle
