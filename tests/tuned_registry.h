/* tests/tuned_registry.h: the build tree's registry plus tunings of its
 * payload libraries, for the GPU tests that force tiles, stages, splits or
 * clusters through registry sections (docs/payloads.md's tuning keys). */
#ifndef TP_TESTS_TUNED_REGISTRY_H
#define TP_TESTS_TUNED_REGISTRY_H

#include <check.h>
#include <stddef.h>

#include "tilepipe/plan.h"
#include "tilepipe/registry.h"

/* One extra section: [name], kind = payload, the library of the section
 * library_of, then keys ("splits = 3", lines separated by '\n'). */
typedef struct tp_test_tuning {
  const char *name;
  const char *library_of;
  const char *keys;
} tp_test_tuning;

/* Whether plan, made of registry section `section`, is what the
 * section's tuning asked for, as tp_plan_describe tells it: "tile = MxNxK"
 * its tile, "cluster = AxB" its cluster, "splits = S" (S >= 2) a split-K
 * workspace. A section that is not one of the tunings the program opened
 * (tp_test_tuned_registry_open) asks for nothing; keys the description
 * does not show (stages, tail_splits, stream_k) are not checked. text
 * (size bytes) receives the description, after what differs when it does.
 * Calls no Check assertion, so worker threads may use it. */
int tp_test_tuned_plan_is_asked(const char *section, const tp_plan *plan, char *text,
                                size_t size);

/* A test's setup: a scratch folder `name` (tests/tmpdir.h) into dir, with
 * TILEPIPE_CACHE_DIR pointed at an empty disk cache in it when
 * `fresh_cache`, and the tuned registry (TP_TEST_REGISTRY followed by the
 * count tunings) opened into *reg from its text (tp_ref_registry_open).
 * 1 on success (the caller removes dir); 0 after printing "setup failed:
 * <why>" with dir removed. */
int tp_test_tuned_registry_open(const char *name, const tp_test_tuning *tunings, size_t count,
                                int fresh_cache, char *dir, size_t dir_size,
                                tp_registry **reg);

/* A GPU test program's check: prints the GPU and returns 1, or prints why
 * there is none (SKIP) and returns 0, for the program to exit 77. */
int tp_test_gpu_usable(void);

/* A GPU test program's run after its GPU check: the setup above into *reg,
 * the tests add_tests puts in one test case of `timeout` seconds, run
 * without fork (CUDA cannot be used in a child forked after cuInit), then
 * *reg closed and the scratch folder removed. The exit status: 0 when all
 * pass, 1 when one fails, 99 when the setup fails. */
int tp_test_tuned_run(const char *name, const tp_test_tuning *tunings, size_t count,
                      int fresh_cache, int timeout, tp_registry **reg,
                      void (*add_tests)(TCase *tc));

#endif
