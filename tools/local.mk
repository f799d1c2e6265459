# tools/: the gpuplace command.
bin_PROGRAMS += gpuplace
gpuplace_SOURCES = tools/gpuplace.c tools/commands.h tools/cli.c tools/cli.h
gpuplace_LDADD = $(GP_LIBS)
gpuplace_SOURCES += tools/cmd_cluster.c tools/cmd_synth.c
TESTS += tests/cli/test_cluster_cli.sh
EXTRA_DIST += tests/cli/test_cluster_cli.sh
