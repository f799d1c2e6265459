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
	trace_csv prometheus redfish jobspec slurm_gres
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
fuzz-work/bin/fuzz_slurm_gres: fuzz-work/obj/plugin/gres_parse.o

# make check-fuzz: each target briefly under libFuzzer and the sanitizers
FUZZ_TESTS += tests/fuzz/libfuzzer.sh
EXTRA_DIST += tests/fuzz/run-all.sh tests/fuzz/run-one.sh tests/fuzz/libfuzzer.sh tests/fuzz/targets tests/fuzz/README.md
clean-local: clean-fuzz
clean-fuzz:
	rm -rf fuzz-work asan-build
	rm -f tests/fuzz/libfuzzer.out
.PHONY: clean-fuzz
