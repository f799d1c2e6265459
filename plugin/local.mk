# plugin/: the Slurm side, and the tests that run against real Slurm daemons.
# Plugins are built as Slurm loads them: -module -avoid-version, no -lslurm
# (their Slurm symbols come from the daemon that loads them).
slurmplugindir = $(slurm_plugindir)
slurmplugin_LTLIBRARIES = plugin/job_submit_gpuplace.la plugin/spank_gpuplace.la
# The entry file (Slurm's symbols) beside one file per concern, and the
# Slurm-side readers, compiled once into a convenience library that the
# plugin, its tests and bench/bench_job_submit all link (compiled into each
# program, the same 14 files were built 9 times per build tree); the log
# sink (plugin/log.c) apart, since two tests compile it with a sink of
# their own (GP_LOG_SINK).
noinst_LTLIBRARIES += plugin/libgp_jobsubmit.la plugin/libgp_jslog.la
plugin_libgp_jobsubmit_la_SOURCES = plugin/job_submit_gpuplace.c plugin/job_submit_gpuplace.h \
	plugin/job_request.c plugin/slots.c plugin/conf_reload.c plugin/ledger.c plugin/apply.c \
	plugin/steer_pass.c plugin/state_thread.c plugin/slurm_alloc.h plugin/slurm_compat.h \
	plugin/live_state.c plugin/live_state.h plugin/gres_parse.c plugin/gres_parse.h \
	plugin/steer.c plugin/steer.h plugin/reservations.c plugin/lic_request.c \
	plugin/orig_file.c plugin/orig_file.h
plugin_libgp_jslog_la_SOURCES = plugin/log.c
# what a program that stands in for slurmctld links: the plugin's code
# with Slurm's log functions as the sink
GP_PLUGIN_LA = plugin/libgp_jobsubmit.la plugin/libgp_jslog.la
plugin_job_submit_gpuplace_la_SOURCES =
# Only what slurmctld runs: steer, engine, conf and power over base; no
# simulator, no traces, no probe, no synth, no hwloc (tests/unit/plugin_symbols.sh).
plugin_job_submit_gpuplace_la_LIBADD = $(GP_PLUGIN_LA) libgp_steer.la $(GP_CORE_LA)
plugin_job_submit_gpuplace_la_LDFLAGS = -module -avoid-version -shared \
	-export-symbols-regex '^(plugin_name|plugin_type|plugin_version|init|fini|job_submit|job_modify)$$'
plugin_spank_gpuplace_la_SOURCES = plugin/spank_gpuplace.c
# the one place the plugin reads --segment (Slurm-release conditions included)
plugin_spank_gpuplace_la_LDFLAGS = -module -avoid-version -shared

# Slurm does not use libtool archives: keep only the .so in its directory.
# (A directory whose name has no "exec" is installed by install-data.)
install-data-hook:
	rm -f $(DESTDIR)$(slurmplugindir)/job_submit_gpuplace.la $(DESTDIR)$(slurmplugindir)/spank_gpuplace.la
uninstall-hook:
	rm -f $(DESTDIR)$(slurmplugindir)/job_submit_gpuplace.so $(DESTDIR)$(slurmplugindir)/spank_gpuplace.so

# Daemon-less tests: the plugin dlopen()ed into a program linked with
# libslurm, and an RTLD_NOW symbol check against libslurmfull.so.
# GP_PLUGIN_UNIT: the test programs that build against Slurm's headers or
# load the plugin (registered once here, in TESTS and in the Slurm-dependent
# quick tests below)
GP_PLUGIN_UNIT = tests/unit/test_plugin tests/unit/test_live_state tests/unit/test_plugin_apply \
	tests/unit/test_steer tests/unit/test_plugin_ledger tests/unit/test_plugin_submit \
	tests/unit/test_outcome tests/unit/test_slots tests/unit/test_conf_reload \
	tests/unit/test_state_thread tests/unit/test_orig_persist
check_PROGRAMS += $(GP_PLUGIN_UNIT) tests/unit/dlcheck
# The originals file through the plugin's own restore and write, in a
# program that looks like slurmctld to it (StateSaveLocation from
# libslurm's slurm_conf), its log lines captured.
tests_unit_test_orig_persist_SOURCES = tests/unit/test_orig_persist.c plugin/log.c tests/unit/log_capture.c \
	tests/unit/log_capture.h
tests_unit_test_orig_persist_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_orig_persist_CPPFLAGS = $(AM_CPPFLAGS) -DGP_LOG_SINK=capture
# (--wrap=unlink: the test makes the journal's removal fail; --wrap=fopen:
# it counts files opened under the plugin's lock)
tests_unit_test_orig_persist_LDFLAGS = -export-dynamic -Wl,--wrap=unlink -Wl,--wrap=fopen
tests_unit_test_orig_persist_LDADD = plugin/libgp_jobsubmit.la $(TEST_LIBS) $(DL_LIBS)
# How a decision is written into a job description (the plugin's code
# linked in, its helpers declared in plugin/job_submit_gpuplace.h).
tests_unit_test_plugin_apply_SOURCES = tests/unit/test_plugin_apply.c tests/unit/plugin_job.c tests/unit/plugin_job.h
tests_unit_test_plugin_apply_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_plugin_apply_LDADD = $(GP_PLUGIN_LA) $(TEST_LIBS) $(DL_LIBS)
# The plugin's job_submit() and the simulator's plugin-faithful step give
# the same action for the same decision (gp_outcome, cost_model/outcome.h);
# exported symbols: the program stands in for slurmctld (slurmctld_config).
tests_unit_test_outcome_SOURCES = tests/unit/test_outcome.c tests/unit/plugin_job.c tests/unit/plugin_job.h
tests_unit_test_outcome_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_outcome_LDFLAGS = -export-dynamic
tests_unit_test_outcome_LDADD = $(GP_PLUGIN_LA) $(TEST_LIBS) $(DL_LIBS)
# plugin/slots.c: references, replacement under readers, the graveyard.
tests_unit_test_slots_SOURCES = tests/unit/test_slots.c
tests_unit_test_slots_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_slots_LDADD = $(GP_PLUGIN_LA) $(TEST_LIBS) $(DL_LIBS)
# plugin/conf_reload.c: reload on a change, a bad edit keeps the last good
# configuration with one log line (captured: GP_LOG_SINK).
tests_unit_test_conf_reload_SOURCES = tests/unit/test_conf_reload.c plugin/log.c
tests_unit_test_conf_reload_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_conf_reload_CPPFLAGS = $(AM_CPPFLAGS) -DGP_LOG_SINK=capture
tests_unit_test_conf_reload_LDADD = plugin/libgp_jobsubmit.la $(TEST_LIBS) $(DL_LIBS)
# plugin/state_thread.c: the thread stops within its bound with a
# telemetry source that never answers.
tests_unit_test_state_thread_SOURCES = tests/unit/test_state_thread.c
tests_unit_test_state_thread_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_state_thread_LDADD = $(GP_PLUGIN_LA) $(TEST_LIBS) $(DL_LIBS)
# The plugin's real job_submit() on the example sites, with an idle cluster
# state published as its thread would, and its log lines captured.
tests_unit_test_plugin_submit_SOURCES = tests/unit/test_plugin_submit.c plugin/log.c tests/unit/plugin_job.c tests/unit/plugin_job.h \
	tests/unit/log_capture.c tests/unit/log_capture.h \
	tests/unit/plugin_site.c tests/unit/plugin_site.h
tests_unit_test_plugin_submit_CFLAGS = $(TEST_CFLAGS)
# its log lines go to the test's own sink (plugin/log.c)
tests_unit_test_plugin_submit_CPPFLAGS = $(AM_CPPFLAGS) -DGP_LOG_SINK=capture
tests_unit_test_plugin_submit_LDADD = plugin/libgp_jobsubmit.la $(TEST_LIBS) $(DL_LIBS)
# The plugin's ledger through job_submit(): bounded (no two PINs share GPUs
# when it is full), and its index equal to a recomputation on random ledgers.
tests_unit_test_plugin_ledger_SOURCES = tests/unit/test_plugin_ledger.c tests/unit/plugin_job.c tests/unit/plugin_job.h
tests_unit_test_plugin_ledger_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_plugin_ledger_LDADD = $(GP_PLUGIN_LA) $(TEST_LIBS) $(DL_LIBS)
# The plugin's ledger power, reservations, steering picks and switch
# requests on the model alone.
tests_unit_test_steer_SOURCES = tests/unit/test_steer.c plugin/steer.c plugin/steer.h plugin/gres_parse.c plugin/gres_parse.h
tests_unit_test_steer_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_steer_LDADD = $(TEST_LIBS)
# The live-state reader on Slurm records parsed from captured scontrol output.
tests_unit_test_live_state_SOURCES = tests/unit/test_live_state.c tests/unit/test_slurp.h plugin/live_state.c plugin/live_state.h \
	plugin/gres_parse.c plugin/gres_parse.h
tests_unit_test_live_state_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_live_state_LDADD = $(TEST_LIBS)
tests_unit_test_plugin_SOURCES = tests/unit/test_plugin.c tests/unit/http_server.c tests/unit/http_server.h \
	tests/unit/plugin_job.c tests/unit/plugin_job.h
tests_unit_test_plugin_CPPFLAGS = $(AM_CPPFLAGS) -DGP_SRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_plugin_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_plugin_LDADD = $(SLURM_LDFLAGS) $(SLURM_LIBS) $(CMOCKA_LIBS) $(DL_LIBS) $(PTHREAD_LIBS)
tests_unit_dlcheck_SOURCES = tests/unit/dlcheck.c
tests_unit_dlcheck_LDADD = $(DL_LIBS)
TESTS += $(GP_PLUGIN_UNIT) tests/unit/plugin_dlcheck.sh tests/unit/spank_dlcheck.sh
# the plugin under valgrind inside test_plugin
LONG_TESTS += tests/unit/valgrind_plugin.sh
LONG_BINS += tests/unit/test_plugin$(EXEEXT)

EXTRA_DIST += tests/slurm/harness.sh tests/slurm/lib.sh tests/slurm/prelude.sh tests/slurm/slurmctld.supp tests/slurm/slurm_smoke.sh tests/slurm/slurm_baseline.sh tests/slurm/slurm_plugin.sh tests/slurm/slurm_valgrind.sh tests/slurm/slurm_vs_stock.sh tests/slurm/slurm_steer.sh bench/bench_submit.sh tests/unit/plugin_dlcheck.sh tests/unit/spank_dlcheck.sh \
	tests/unit/valgrind_plugin.sh tests/slurm/slurm_version_mismatch.sh tests/slurm/slurm_sacct.sh tests/slurm/slurm_typed.sh \
	tests/slurm/slurm_hres.sh tests/slurm/slurm_lic.sh tests/slurm/slurm_nofeat.sh tests/slurm/slurm_shapes.sh \
	tests/slurm/slurm_backup.sh
# Real daemons: one smoke test in make check, the others in make check-slurm.
SLURM_SMOKE_TESTS += tests/slurm/slurm_smoke.sh
SLURM_TESTS += tests/slurm/slurm_baseline.sh tests/slurm/slurm_plugin.sh tests/slurm/slurm_valgrind.sh tests/slurm/slurm_vs_stock.sh tests/slurm/slurm_version_mismatch.sh \
	tests/slurm/slurm_steer.sh tests/slurm/slurm_sacct.sh tests/slurm/slurm_typed.sh tests/slurm/slurm_hres.sh tests/slurm/slurm_lic.sh \
	tests/slurm/slurm_nofeat.sh tests/slurm/slurm_shapes.sh tests/slurm/slurm_backup.sh
# The plugin carries no offline-only code and does not link hwloc.
TESTS += tests/unit/plugin_symbols.sh
EXTRA_DIST += tests/unit/plugin_symbols.sh

# The quick tier's tests that build against Slurm's headers or load the
# plugin into a process: what `make check-slurm-unit` runs (in the roots of
# other Slurm releases, beside check-slurm), building only their programs.
SLURM_UNIT_TESTS += $(GP_PLUGIN_UNIT) tests/unit/plugin_dlcheck.sh tests/unit/spank_dlcheck.sh tests/unit/plugin_symbols.sh
SLURM_UNIT_BINS += $(GP_PLUGIN_UNIT:=$(EXEEXT)) tests/unit/dlcheck$(EXEEXT)

# The plugin's Slurm-string readers, without Slurm (plugin/gres_parse.c).
check_PROGRAMS += tests/unit/test_gres_parse
tests_unit_test_gres_parse_SOURCES = tests/unit/test_gres_parse.c plugin/gres_parse.c plugin/gres_parse.h
tests_unit_test_gres_parse_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_gres_parse_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_gres_parse
# A line of the steering originals' file, without Slurm (plugin/orig_file.c).
check_PROGRAMS += tests/unit/test_orig_file
tests_unit_test_orig_file_SOURCES = tests/unit/test_orig_file.c plugin/orig_file.c plugin/orig_file.h
tests_unit_test_orig_file_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_orig_file_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_orig_file
check_PROGRAMS += tests/fuzz/fuzz_gres
tests_fuzz_fuzz_gres_SOURCES = tests/fuzz/fuzz_gres.c tests/fuzz/fuzz_driver.c plugin/gres_parse.c plugin/gres_parse.h \
	plugin/orig_file.c plugin/orig_file.h
tests_fuzz_fuzz_gres_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_fuzz_gres_LDADD = $(GP_LIBS)
TESTS += tests/fuzz/fuzz_gres.sh
EXTRA_DIST += tests/fuzz/fuzz_gres.sh
# The plugin's whole submission path (job_submit(), job_modify()) on job
# descriptions built from the input, on the example sites; in the other
# Slurm releases' roots too (their job_desc_msg_t).
check_PROGRAMS += tests/fuzz/fuzz_job_submit
tests_fuzz_fuzz_job_submit_SOURCES = tests/fuzz/fuzz_job_submit.c tests/fuzz/fuzz_driver.c plugin/log.c \
	tests/unit/plugin_job.c tests/unit/plugin_job.h tests/unit/plugin_site.c tests/unit/plugin_site.h
tests_fuzz_fuzz_job_submit_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_fuzz_job_submit_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/unit -DGP_LOG_SINK=fuzz_sink -DGP_SRCDIR='"$(abs_top_srcdir)"'
tests_fuzz_fuzz_job_submit_LDADD = plugin/libgp_jobsubmit.la $(TEST_LIBS) $(DL_LIBS)
TESTS += tests/fuzz/fuzz_job_submit.sh
EXTRA_DIST += tests/fuzz/fuzz_job_submit.sh
SLURM_UNIT_TESTS += tests/fuzz/fuzz_job_submit.sh
SLURM_UNIT_BINS += tests/fuzz/fuzz_job_submit$(EXEEXT)
# What the plugin's thread makes of the node, job and reservation records
# it reads (gp_live_convert, gp_resv_convert, gp_steer_pick), and a decision
# on it; in the other releases' roots too.
check_PROGRAMS += tests/fuzz/fuzz_live
tests_fuzz_fuzz_live_SOURCES = tests/fuzz/fuzz_live.c tests/fuzz/fuzz_driver.c plugin/live_state.c \
	plugin/live_state.h plugin/gres_parse.c plugin/gres_parse.h plugin/steer.c plugin/steer.h
tests_fuzz_fuzz_live_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_fuzz_live_CPPFLAGS = $(AM_CPPFLAGS) -DGP_SRCDIR='"$(abs_top_srcdir)"'
tests_fuzz_fuzz_live_LDADD = $(GP_LIBS)
TESTS += tests/fuzz/fuzz_live.sh
EXTRA_DIST += tests/fuzz/fuzz_live.sh
SLURM_UNIT_TESTS += tests/fuzz/fuzz_live.sh
SLURM_UNIT_BINS += tests/fuzz/fuzz_live$(EXEEXT)
