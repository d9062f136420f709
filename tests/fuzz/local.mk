# tests/fuzz: libFuzzer harnesses (docs/fuzzing.md). Each harness source
# defines LLVMFuzzerTestOneInput and is built two ways:
#  - always, as a `make check` test (replay_*): tests/fuzz/replay.c runs it
#    on every file of its committed corpus, tests/fuzz/corpus/<name>/ (the
#    seeds and every input that once found a defect);
#  - with --enable-fuzzers (CC=clang), as a fuzzer (fuzz_*) that `make fuzz`
#    runs for FUZZ_SECONDS each under ASan + UBSan.
# The fuzzers link their own copy of the core compiled with libFuzzer's
# coverage instrumentation (TP_FUZZ_CFLAGS); nothing else gets it. The
# plugins they load are this build's ordinary plugins: a fuzzer loads and
# unloads them for every input, and an instrumented plugin would leave
# libFuzzer counting in memory that dlclose has unmapped.
noinst_HEADERS += tests/fuzz/fuzz.h
EXTRA_DIST += tests/fuzz/corpus
TP_FUZZ_CORPUS_DIR = $(abs_top_srcdir)/tests/fuzz/corpus
# The build tree's registry (plan) and plugin folders (registry).
TP_FUZZ_DEFINES = -DTP_FUZZ_REGISTRY='"$(abs_top_builddir)/tilepipe.ini"' \
	-DTP_FUZZ_PLUGIN_PATH='"$(abs_top_builddir)/plugins/standard/.libs:$(abs_top_builddir)/plugins/blockwise_fp8/.libs:$(abs_top_builddir)/plugins/block_scaled/.libs:$(abs_top_builddir)/plugins/store/.libs:$(abs_top_builddir)/plugins/residual/.libs"'
TP_FUZZ_CPP_FLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(TP_FUZZ_DEFINES)
TP_FUZZ_REGISTRY_SOURCES = tests/fuzz/fuzz_registry.c tests/tmpdir.c
TP_FUZZ_PLAN_SOURCES = tests/fuzz/fuzz_plan.c
TP_FUZZ_CACHE_FILE_SOURCES = tests/fuzz/fuzz_cache_file.c tests/tmpdir.c

check_PROGRAMS += tests/fuzz/replay_registry tests/fuzz/replay_plan tests/fuzz/replay_cache_file
tests_fuzz_replay_registry_SOURCES = $(TP_FUZZ_REGISTRY_SOURCES) tests/fuzz/replay.c
tests_fuzz_replay_registry_CPPFLAGS = $(TP_FUZZ_CPP_FLAGS) \
	-DTP_FUZZ_CORPUS='"$(TP_FUZZ_CORPUS_DIR)/registry"'
tests_fuzz_replay_registry_LDADD = core/libtilepipe.la
EXTRA_tests_fuzz_replay_registry_DEPENDENCIES = $(plugin_LTLIBRARIES)
tests_fuzz_replay_plan_SOURCES = $(TP_FUZZ_PLAN_SOURCES) tests/fuzz/replay.c
tests_fuzz_replay_plan_CPPFLAGS = $(TP_FUZZ_CPP_FLAGS) -DTP_FUZZ_CORPUS='"$(TP_FUZZ_CORPUS_DIR)/plan"'
tests_fuzz_replay_plan_LDADD = tools/reference/libtilepipe_reference.la core/libtilepipe.la
EXTRA_tests_fuzz_replay_plan_DEPENDENCIES = tilepipe.ini
tests_fuzz_replay_cache_file_SOURCES = $(TP_FUZZ_CACHE_FILE_SOURCES) tests/fuzz/replay.c
tests_fuzz_replay_cache_file_CPPFLAGS = $(TP_FUZZ_CPP_FLAGS) \
	-DTP_FUZZ_CORPUS='"$(TP_FUZZ_CORPUS_DIR)/cache_file"'
tests_fuzz_replay_cache_file_LDADD = core/libtilepipe_core.la

if TP_FUZZERS
noinst_LTLIBRARIES += tests/fuzz/libtp_core_fuzz.la
tests_fuzz_libtp_core_fuzz_la_SOURCES = $(core_libtilepipe_core_la_SOURCES)
tests_fuzz_libtp_core_fuzz_la_CPPFLAGS = $(core_libtilepipe_core_la_CPPFLAGS)
tests_fuzz_libtp_core_fuzz_la_CFLAGS = $(AM_CFLAGS) $(TP_FUZZ_CFLAGS)
tests_fuzz_libtp_core_fuzz_la_LIBADD = $(INIH_LIBS)
TP_FUZZ_NAMES = registry plan cache_file
noinst_PROGRAMS += tests/fuzz/fuzz_registry tests/fuzz/fuzz_plan tests/fuzz/fuzz_cache_file
TP_FUZZ_CFLAGS_ALL = $(AM_CFLAGS) $(TP_FUZZ_CFLAGS)
TP_FUZZ_LDFLAGS = -fsanitize=fuzzer
tests_fuzz_fuzz_registry_SOURCES = $(TP_FUZZ_REGISTRY_SOURCES)
tests_fuzz_fuzz_registry_CPPFLAGS = $(TP_FUZZ_CPP_FLAGS)
tests_fuzz_fuzz_registry_CFLAGS = $(TP_FUZZ_CFLAGS_ALL)
tests_fuzz_fuzz_registry_LDFLAGS = $(TP_FUZZ_LDFLAGS)
tests_fuzz_fuzz_registry_LDADD = tests/fuzz/libtp_core_fuzz.la
tests_fuzz_fuzz_plan_SOURCES = $(TP_FUZZ_PLAN_SOURCES)
tests_fuzz_fuzz_plan_CPPFLAGS = $(TP_FUZZ_CPP_FLAGS)
tests_fuzz_fuzz_plan_CFLAGS = $(TP_FUZZ_CFLAGS_ALL)
tests_fuzz_fuzz_plan_LDFLAGS = $(TP_FUZZ_LDFLAGS)
tests_fuzz_fuzz_plan_LDADD = tools/reference/libtilepipe_reference_core.la \
	tests/fuzz/libtp_core_fuzz.la
EXTRA_tests_fuzz_fuzz_plan_DEPENDENCIES = tilepipe.ini
tests_fuzz_fuzz_cache_file_SOURCES = $(TP_FUZZ_CACHE_FILE_SOURCES)
tests_fuzz_fuzz_cache_file_CPPFLAGS = $(TP_FUZZ_CPP_FLAGS)
tests_fuzz_fuzz_cache_file_CFLAGS = $(TP_FUZZ_CFLAGS_ALL)
tests_fuzz_fuzz_cache_file_LDFLAGS = $(TP_FUZZ_LDFLAGS)
tests_fuzz_fuzz_cache_file_LDADD = tests/fuzz/libtp_core_fuzz.la

# `make fuzz`: each fuzzer for FUZZ_SECONDS from its committed corpus; new
# inputs go to tests/fuzz/work/<name>/ in the build tree, and a crash, leak
# or sanitizer report stops it with the input saved there as crash-*,
# leak-* or timeout-* (add it to the corpus with the fix).
FUZZ_SECONDS = 60
fuzz: $(noinst_PROGRAMS) tilepipe.ini $(plugin_LTLIBRARIES)
	@for f in $(TP_FUZZ_NAMES); do \
	  work=tests/fuzz/work/$$f; $(MKDIR_P) $$work || exit 1; \
	  echo "fuzz_$$f: $(FUZZ_SECONDS) s from $(srcdir)/tests/fuzz/corpus/$$f"; \
	  tests/fuzz/fuzz_$$f -max_total_time=$(FUZZ_SECONDS) -timeout=30 -print_final_stats=1 \
	    -artifact_prefix=tests/fuzz/work/$$f- $$work $(srcdir)/tests/fuzz/corpus/$$f || exit 1; \
	done
else
fuzz:
	@echo "fuzz: the fuzzers are not built; configure CC=clang --enable-fuzzers"; exit 1
endif
.PHONY: fuzz
clean-local: clean-fuzz-work
clean-fuzz-work:
	-rm -rf tests/fuzz/work
.PHONY: clean-fuzz-work
