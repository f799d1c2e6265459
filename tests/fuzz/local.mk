# tests/fuzz/: fragment of the top-level Makefile.am
# libFuzzer builds of every fuzz target (tests/fuzz/run-all.sh builds them
# with clang from the library's sources, listed by `make fuzz-sources`).
fuzz-sources:
	@echo $(filter %.c,$(libgpuplace_core_la_SOURCES))
.PHONY: fuzz-sources

# make check: each target briefly under libFuzzer and the sanitizers
# (SKIP without clang's libFuzzer).
TESTS += tests/fuzz/libfuzzer.sh
EXTRA_DIST += tests/fuzz/run-all.sh tests/fuzz/run-one.sh tests/fuzz/libfuzzer.sh tests/fuzz/targets tests/fuzz/README.md
clean-local: clean-fuzz
clean-fuzz:
	rm -rf fuzz-work asan-build
.PHONY: clean-fuzz
