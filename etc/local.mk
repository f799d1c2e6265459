# etc/: example sites (shipped through EXTRA_DIST in Makefile.am) and the
# GPU power-cap prolog/epilog pair, installed under two names because
# slurm.conf's Prolog= and Epilog= take a path without arguments.
pkglibexecdir = $(libexecdir)/gpuplace
EXTRA_DIST += etc/prolog/gpuplace-powercap
install-exec-local:
	$(MKDIR_P) '$(DESTDIR)$(pkglibexecdir)'
	$(INSTALL_SCRIPT) '$(srcdir)/etc/prolog/gpuplace-powercap' '$(DESTDIR)$(pkglibexecdir)/gpuplace-powercap-prolog'
	$(INSTALL_SCRIPT) '$(srcdir)/etc/prolog/gpuplace-powercap' '$(DESTDIR)$(pkglibexecdir)/gpuplace-powercap-epilog'
uninstall-local:
	rm -f '$(DESTDIR)$(pkglibexecdir)/gpuplace-powercap-prolog' '$(DESTDIR)$(pkglibexecdir)/gpuplace-powercap-epilog'

TESTS += tests/cli/powercap_prolog.sh
EXTRA_DIST += tests/cli/powercap_prolog.sh
TESTS += tests/cli/examples_cli.sh
EXTRA_DIST += tests/cli/examples_cli.sh

# Examples for an admin, installed under DOCDIR/examples: the slurm.conf
# lines that enable gpuplace, the plugstack.conf.d snippet for the SPANK
# plugin (with the plugin directory configure found), and the example sites.
examplesdir = $(docdir)/examples
dist_examples_DATA = etc/slurm.conf.gpuplace
plugstackexdir = $(examplesdir)/plugstack.conf.d
plugstackex_DATA = etc/plugstack.conf.d/gpuplace.conf
EXTRA_DIST += etc/plugstack.conf.d/gpuplace.conf.in
CLEANFILES += etc/plugstack.conf.d/gpuplace.conf
etc/plugstack.conf.d/gpuplace.conf: $(srcdir)/etc/plugstack.conf.d/gpuplace.conf.in Makefile
	$(AM_V_GEN)$(MKDIR_P) etc/plugstack.conf.d && \
		sed 's|%slurm_plugindir%|$(slurm_plugindir)|g' $(srcdir)/etc/plugstack.conf.d/gpuplace.conf.in >$@
sitesdir = $(examplesdir)
nobase_dist_sites_DATA = \
	etc/superpod-h100/slurm.conf etc/superpod-h100/gres.conf etc/superpod-h100/topology.conf etc/superpod-h100/gpuplace.conf \
	etc/nvl72-gb200/slurm.conf etc/nvl72-gb200/gres.conf etc/nvl72-gb200/topology.conf etc/nvl72-gb200/gpuplace.conf \
	etc/a100-oversub/slurm.conf etc/a100-oversub/gres.conf etc/a100-oversub/topology.conf etc/a100-oversub/gpuplace.conf \
	etc/mixed-pcie/slurm.conf etc/mixed-pcie/gres.conf etc/mixed-pcie/topology.conf etc/mixed-pcie/gpuplace.conf \
	etc/mixed-pcie/racks.conf

# Slow tier, not part of `make check`: tests/cli/packages.sh builds the Debian
# packages with dpkg-buildpackage, installs them (in a private mount
# namespace), has a real slurmctld load the plugin from the package's
# paths, and removes them; a few minutes.  Run with `make check-packages`.
EXTRA_DIST += tests/cli/packages.sh debian
# debian/ as the sources have it: what a package build of this tree leaves
# there (debian/tmp, each package's tree, debhelper's files) stays out of
# the tarball (made after a build, it carried the built binaries)
dist-hook:
	cd $(distdir)/debian && rm -f files *.substvars *.log debhelper-build-stamp autoreconf.before autoreconf.after && \
		for d in */ .debhelper/; do case $$d in source/) ;; *) rm -rf "$$d" ;; esac; done
check-packages:
	@$(AM_TESTS_ENVIRONMENT) $(SHELL) $(srcdir)/tests/cli/packages.sh
.PHONY: check-packages
# The RPM spec, parsed by rpmspec (quick).
TESTS += tests/cli/rpmspec.sh
EXTRA_DIST += tests/cli/rpmspec.sh gpuplace.spec
# README.md's commands and configuration lines run as written.
TESTS += tests/cli/readme_commands.sh
EXTRA_DIST += tests/cli/readme_commands.sh
