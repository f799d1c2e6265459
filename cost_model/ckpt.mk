# cost_model/ckpt.*: the checkpoint planner.
libgpuplace_core_la_SOURCES += cost_model/ckpt.c cost_model/ckpt.h

check_PROGRAMS += tests/test_ckpt
tests_test_ckpt_SOURCES = tests/test_ckpt.c
tests_test_ckpt_CFLAGS = $(TEST_CFLAGS)
tests_test_ckpt_LDADD = $(TEST_LIBS)
TESTS += tests/test_ckpt
