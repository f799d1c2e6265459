# tools/: the gpuplace command.
bin_PROGRAMS += gpuplace
gpuplace_SOURCES = tools/gpuplace.c tools/commands.h tools/cli.c tools/cli.h
gpuplace_LDADD = $(GP_LIBS)
gpuplace_SOURCES += tools/cmd_cluster.c tools/cmd_synth.c
TESTS += tests/cli/test_cluster_cli.sh
EXTRA_DIST += tests/cli/test_cluster_cli.sh
# several per-part problems of one file reported in one run (gpuplace.conf(5))
TESTS += tests/cli/cluster_problems.sh
EXTRA_DIST += tests/cli/cluster_problems.sh
# the admin's path to the topology-domain features: check warns, conf writes them
TESTS += tests/cli/domain_features.sh
EXTRA_DIST += tests/cli/domain_features.sh
# One spelling per concept across every sub-command's --help; the old
# spellings as aliases with a warning; JSON from every show.
TESTS += tests/cli/cli_conventions.sh
EXTRA_DIST += tests/cli/cli_conventions.sh
