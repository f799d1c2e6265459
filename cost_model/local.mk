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

# steer (cost_model/steer_rules.c, outcome.c): what the plugin decides
# beyond one submission that needs no Slurm type (its ledger's power,
# Slurm's wait-for-switch request, the steering rules for pending jobs) and
# what Slurm is told for a decision (outcome.c), shared by job_submit/gpuplace and the
# simulator's plugin-faithful mode.  Its own layer over the engine: not in
# libgpuplace (nothing of it is installed or exported).
libgp_steer_la_SOURCES += cost_model/steer_rules.c cost_model/steer_rules.h \
	cost_model/outcome.c cost_model/outcome.h

# the communication cost model

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
