# tests/fuzz/: fragment of the top-level Makefile.am
# libFuzzer builds of every fuzz target (tests/fuzz/run-all.sh builds them
# with clang from the library's sources, listed by `make fuzz-sources`).
fuzz-sources:
	@echo $(filter %.c,$(libgp_base_la_SOURCES) $(libgp_power_la_SOURCES) $(libgp_engine_la_SOURCES) $(libgp_conf_la_SOURCES) $(libgp_steer_la_SOURCES) $(libgp_sim_la_SOURCES) $(libgp_probe_la_SOURCES))
.PHONY: fuzz-sources

# make check: each target briefly under libFuzzer and the sanitizers
# (SKIP without clang's libFuzzer).
TESTS += tests/fuzz/libfuzzer.sh
EXTRA_DIST += tests/fuzz/run-all.sh tests/fuzz/run-one.sh tests/fuzz/libfuzzer.sh tests/fuzz/targets tests/fuzz/README.md
clean-local: clean-fuzz
clean-fuzz:
	rm -rf fuzz-work asan-build
	rm -f tests/fuzz/libfuzzer.out
.PHONY: clean-fuzz
