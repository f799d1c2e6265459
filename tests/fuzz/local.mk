# tests/fuzz/: fragment of the top-level Makefile.am
# The libFuzzer builds of every fuzz target (tests/fuzz/README.md), as
# ordinary make targets: each library source is compiled once with clang
# (-fsanitize=fuzzer-no-link, ASan, UBSan) into fuzz-work/obj/ and rebuilt
# only when it or a header changed, in parallel under make -j, and each
# target is linked into fuzz-work/bin/fuzz_NAME.  `make fuzz-build` builds
# them all; `make check-fuzz` builds and runs them (tests/fuzz/libfuzzer.sh,
# SKIP when $(CLANG) cannot build a libFuzzer program); run-all.sh builds
# through `make fuzz-build` too.  CLANG=clang-19 picks another clang.
CLANG = clang
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
# FUZZ_OPT: -O1 for campaigns of many inputs (run-all.sh -t); the test
# command's check-fuzz, a fixed 2,000 inputs per target, passes -O0, which
# compiles faster, the compile being most of that tier's time
# (scripts/test.sh)
FUZZ_OPT = -O1
FUZZ_COMPILE = $(CLANG) $(DEFS) -I$(top_builddir) $(AM_CPPFLAGS) -g $(FUZZ_OPT) $(FUZZ_SAN) -fsanitize=fuzzer-no-link
FUZZ_LIBS = $(SLURM_LDFLAGS) $(SLURM_LIBS) $(JSONC_LIBS) $(YAML_LIBS) $(CURL_LIBS) $(HWLOC_LIBS) \
	$(PTHREAD_LIBS) $(LIBM)
FUZZ_LIB_SRC = $(filter %.c,$(libgp_base_la_SOURCES) $(libgp_power_la_SOURCES) $(libgp_engine_la_SOURCES) \
	$(libgp_conf_la_SOURCES) $(libgp_steer_la_SOURCES) $(libgp_sim_la_SOURCES) $(libgp_probe_la_SOURCES))
FUZZ_LIB_OBJ = $(FUZZ_LIB_SRC:%.c=fuzz-work/obj/%.o)
# every object depends on every header of the tree (no per-file dependency
# tracking for these objects)
FUZZ_DEPS = $(top_builddir)/config.h $(wildcard $(srcdir)/*/*.h)
FUZZ_NAMES = slurm_conf topology_conf gres_conf gpuplace_conf topology_yaml json probe_json probe_xml \
	trace_csv prometheus redfish jobspec slurm_gres job_submit live
FUZZ_BIN = $(FUZZ_NAMES:%=fuzz-work/bin/fuzz_%)

fuzz-build: $(FUZZ_BIN)
.PHONY: fuzz-build
fuzz-work/obj/%.o: %.c $(FUZZ_DEPS)
	$(AM_V_CC)$(MKDIR_P) $(@D) && $(FUZZ_COMPILE) -c -o $@ $<
fuzz-work/bin/fuzz_%: fuzz-work/obj/t_%.o $(FUZZ_LIB_OBJ)
	@$(MKDIR_P) $(@D)
	$(AM_V_CCLD)$(CLANG) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(FUZZ_LIBS)
# the targets: NAME's entry point and its flags (seeds: tests/fuzz/targets)
fuzz-work/obj/t_slurm_conf.o: tests/fuzz/fuzz_conf.c $(FUZZ_DEPS)
	$(AM_V_CC)$(MKDIR_P) $(@D) && $(FUZZ_COMPILE) -DGP_FUZZ_FILE=1 -c -o $@ $<
fuzz-work/obj/t_topology_conf.o: tests/fuzz/fuzz_conf.c $(FUZZ_DEPS)
	$(AM_V_CC)$(MKDIR_P) $(@D) && $(FUZZ_COMPILE) -DGP_FUZZ_FILE=2 -c -o $@ $<
fuzz-work/obj/t_gres_conf.o: tests/fuzz/fuzz_conf.c $(FUZZ_DEPS)
	$(AM_V_CC)$(MKDIR_P) $(@D) && $(FUZZ_COMPILE) -DGP_FUZZ_FILE=3 -c -o $@ $<
fuzz-work/obj/t_gpuplace_conf.o: tests/fuzz/fuzz_conf.c $(FUZZ_DEPS)
	$(AM_V_CC)$(MKDIR_P) $(@D) && $(FUZZ_COMPILE) -DGP_FUZZ_FILE=0 -c -o $@ $<
fuzz-work/obj/t_topology_yaml.o: tests/fuzz/fuzz_conf.c $(FUZZ_DEPS)
	$(AM_V_CC)$(MKDIR_P) $(@D) && $(FUZZ_COMPILE) -DGP_FUZZ_FILE=4 -c -o $@ $<
fuzz-work/obj/t_json.o: tests/fuzz/fuzz_json.c $(FUZZ_DEPS)
	$(AM_V_CC)$(MKDIR_P) $(@D) && $(FUZZ_COMPILE) -c -o $@ $<
fuzz-work/obj/t_probe_json.o: tests/fuzz/fuzz_probe.c $(FUZZ_DEPS)
	$(AM_V_CC)$(MKDIR_P) $(@D) && $(FUZZ_COMPILE) -c -o $@ $<
fuzz-work/obj/t_probe_xml.o: tests/fuzz/fuzz_probe_xml.c $(FUZZ_DEPS)
	$(AM_V_CC)$(MKDIR_P) $(@D) && $(FUZZ_COMPILE) -c -o $@ $<
fuzz-work/obj/t_trace_csv.o: tests/fuzz/fuzz_trace.c $(FUZZ_DEPS)
	$(AM_V_CC)$(MKDIR_P) $(@D) && $(FUZZ_COMPILE) -c -o $@ $<
fuzz-work/obj/t_prometheus.o: tests/fuzz/fuzz_prom.c $(FUZZ_DEPS)
	$(AM_V_CC)$(MKDIR_P) $(@D) && $(FUZZ_COMPILE) -c -o $@ $<
fuzz-work/obj/t_redfish.o: tests/fuzz/fuzz_redfish.c $(FUZZ_DEPS)
	$(AM_V_CC)$(MKDIR_P) $(@D) && $(FUZZ_COMPILE) -c -o $@ $<
fuzz-work/obj/t_jobspec.o: tests/fuzz/fuzz_jobspec.c $(FUZZ_DEPS)
	$(AM_V_CC)$(MKDIR_P) $(@D) && $(FUZZ_COMPILE) -c -o $@ $<
fuzz-work/obj/t_slurm_gres.o: tests/fuzz/fuzz_gres.c $(FUZZ_DEPS)
	$(AM_V_CC)$(MKDIR_P) $(@D) && $(FUZZ_COMPILE) -c -o $@ $<
fuzz-work/bin/fuzz_slurm_gres: fuzz-work/obj/plugin/gres_parse.o fuzz-work/obj/plugin/orig_file.o
# job_submit: the plugin's submission path, its code and the test sites'
# helpers compiled in, its log lines to the target's sink
FUZZ_JS_SRC = $(filter-out plugin/log.c,$(filter %.c,$(plugin_libgp_jobsubmit_la_SOURCES))) \
	tests/unit/plugin_job.c tests/unit/plugin_site.c
FUZZ_JS_FLAGS = -I$(srcdir)/tests/unit -DGP_LOG_SINK=fuzz_sink -DGP_SRCDIR='"$(abs_top_srcdir)"'
fuzz-work/obj/t_job_submit.o: tests/fuzz/fuzz_job_submit.c $(FUZZ_DEPS)
	$(AM_V_CC)$(MKDIR_P) $(@D) && $(FUZZ_COMPILE) $(FUZZ_JS_FLAGS) -c -o $@ $<
fuzz-work/obj/js_log.o: plugin/log.c $(FUZZ_DEPS)
	$(AM_V_CC)$(MKDIR_P) $(@D) && $(FUZZ_COMPILE) $(FUZZ_JS_FLAGS) -c -o $@ $<
fuzz-work/obj/tests/unit/%.o: tests/unit/%.c $(FUZZ_DEPS)
	$(AM_V_CC)$(MKDIR_P) $(@D) && $(FUZZ_COMPILE) $(FUZZ_JS_FLAGS) -c -o $@ $<
fuzz-work/bin/fuzz_job_submit: fuzz-work/obj/js_log.o $(FUZZ_JS_SRC:%.c=fuzz-work/obj/%.o)
# live: the plugin's reading of Slurm's records, compiled in
fuzz-work/obj/t_live.o: tests/fuzz/fuzz_live.c $(FUZZ_DEPS)
	$(AM_V_CC)$(MKDIR_P) $(@D) && $(FUZZ_COMPILE) -DGP_SRCDIR='"$(abs_top_srcdir)"' -c -o $@ $<
fuzz-work/bin/fuzz_live: fuzz-work/obj/plugin/live_state.o fuzz-work/obj/plugin/gres_parse.o \
	fuzz-work/obj/plugin/steer.o
# objects made by pattern rules for a target named on the command line are
# kept (make deletes such intermediates), so that the next build reuses them
.SECONDARY: $(FUZZ_LIB_OBJ) $(FUZZ_JS_SRC:%.c=fuzz-work/obj/%.o) fuzz-work/obj/js_log.o \
	$(FUZZ_NAMES:%=fuzz-work/obj/t_%.o)

# make check-fuzz: each target briefly under libFuzzer and the sanitizers
FUZZ_TESTS += tests/fuzz/libfuzzer.sh
EXTRA_DIST += tests/fuzz/run-all.sh tests/fuzz/run-one.sh tests/fuzz/libfuzzer.sh tests/fuzz/targets tests/fuzz/README.md
clean-local: clean-fuzz
clean-fuzz:
	rm -rf fuzz-work asan-build
	rm -f tests/fuzz/libfuzzer.out
.PHONY: clean-fuzz
