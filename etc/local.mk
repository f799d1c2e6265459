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
