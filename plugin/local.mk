# plugin/: the Slurm side, and the tests that run against real Slurm daemons.
# Plugins are built as Slurm loads them: -module -avoid-version, no -lslurm
# (their Slurm symbols come from the daemon that loads them).
slurmplugindir = $(slurm_plugindir)
slurmplugin_LTLIBRARIES = plugin/spank_gpuplace.la
plugin_spank_gpuplace_la_SOURCES = plugin/spank_gpuplace.c
plugin_spank_gpuplace_la_LDFLAGS = -module -avoid-version -shared
noinst_HEADERS = plugin/slurm_alloc.h

# Slurm does not use libtool archives: keep only the .so in its directory.
install-exec-hook:
	rm -f $(DESTDIR)$(slurmplugindir)/spank_gpuplace.la
uninstall-hook:
	rm -f $(DESTDIR)$(slurmplugindir)/spank_gpuplace.so

EXTRA_DIST += tests/slurm
TESTS += tests/slurm_baseline.sh
