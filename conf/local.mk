# conf/: reading and writing the world: slurm.conf, topology.conf, gres.conf,
# gpuplace.conf loaders, the JSON model/state format, the summary and the
# Slurm file emitter.
# configuration loaders (slurm.conf, topology.conf, gres.conf, gpuplace.conf)
libgp_conf_la_SOURCES += \
	conf/conf.c conf/conf.h conf/load.c conf/load_slurm.c \
	conf/load_topology.c conf/topo_build.c conf/load_yaml.c conf/load_gres.c conf/load_gpuplace.c

check_PROGRAMS += tests/unit/test_conf
tests_unit_test_conf_SOURCES = tests/unit/test_conf.c
tests_unit_test_conf_CPPFLAGS = $(AM_CPPFLAGS) -DGP_SRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_conf_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_conf_LDADD = $(TEST_CORE_LIBS)
TESTS += tests/unit/test_conf
LONG_TESTS += tests/unit/test_conf_valgrind.sh
LONG_BINS += tests/unit/test_conf$(EXEEXT) tests/unit/test_emit$(EXEEXT)
EXTRA_DIST += tests/unit/test_conf_valgrind.sh

check_PROGRAMS += tests/fuzz/fuzz_conf
tests_fuzz_fuzz_conf_SOURCES = tests/fuzz/fuzz_conf.c tests/fuzz/fuzz_driver.c
tests_fuzz_fuzz_conf_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_fuzz_conf_LDADD = $(GP_LIBS)
TESTS += tests/fuzz/fuzz_conf.sh
EXTRA_DIST += tests/fuzz/fuzz_conf.sh

# JSON model format, summary, shared derivation.
libgp_conf_la_SOURCES += conf/json.c conf/finish.c conf/summary.c

check_PROGRAMS += tests/unit/test_json
tests_unit_test_json_SOURCES = tests/unit/test_json.c tests/unit/test_slurp.h
tests_unit_test_json_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_json_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_json

check_PROGRAMS += tests/fuzz/fuzz_json
tests_fuzz_fuzz_json_SOURCES = tests/fuzz/fuzz_json.c tests/fuzz/fuzz_driver.c
tests_fuzz_fuzz_json_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_fuzz_json_LDADD = $(GP_LIBS)
TESTS += tests/fuzz/fuzz_json.sh
EXTRA_DIST += tests/fuzz/fuzz_json.sh
dist_man_MANS += doc/gpuplace-json.5

# conf/slurm_emit.*: Slurm configuration from the model (gpuplace conf).
libgp_conf_la_SOURCES += conf/slurm_emit.c conf/slurm_emit.h
gpuplace_SOURCES += tools/cmd_conf.c
check_PROGRAMS += tests/unit/test_emit
tests_unit_test_emit_SOURCES = tests/unit/test_emit.c
tests_unit_test_emit_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_emit_LDADD = $(TEST_CORE_LIBS)
TESTS += tests/unit/test_emit


# topology/block and topology.yaml through `gpuplace cluster` and `gpuplace conf`.
TESTS += tests/cli/topology_cli.sh
EXTRA_DIST += tests/cli/topology_cli.sh

# job_submit/gpuplace on a real topology/block cluster (Slurm 23.11+; skips
# with the reason on older releases), through tests/slurm/harness.sh.
SLURM_TESTS += tests/slurm/slurm_block.sh
EXTRA_DIST += tests/slurm/slurm_block.sh

# job_submit/gpuplace on real daemons with NodeSet partitions (every
# release) and two topology.yaml topologies bound to two partitions by
# Topology= (Slurm 25.05+; skips with the reason on older releases).
SLURM_TESTS += tests/slurm/slurm_sites.sh
EXTRA_DIST += tests/slurm/slurm_sites.sh

# tests/data/sites/: one configuration per documented Slurm feature and the
# shapes cluster managers and fabric tools generate, through cluster check,
# cluster show and place, with hand-counted nodes, GPUs, switches, blocks
# and partitions.
TESTS += tests/cli/sites_corpus.sh
EXTRA_DIST += tests/cli/sites_corpus.sh tests/data/sites

# Per-part degradation: each kind of configuration problem switches off its
# own part and leaves the rest of the model placing jobs (gp_place).
check_PROGRAMS += tests/unit/test_degrade
tests_unit_test_degrade_SOURCES = tests/unit/test_degrade.c cost_model/api.c
tests_unit_test_degrade_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_degrade_LDADD = $(TEST_CORE_LIBS)
TESTS += tests/unit/test_degrade
