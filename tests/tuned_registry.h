/* tests/tuned_registry.h: the build tree's registry plus tunings of its
 * payload libraries, for the GPU tests that force tiles, stages, splits or
 * clusters through registry sections (docs/payloads.md's tuning keys). */
#ifndef TP_TESTS_TUNED_REGISTRY_H
#define TP_TESTS_TUNED_REGISTRY_H

#include <stddef.h>

/* One extra section: [name], kind = payload, the library of the section
 * library_of, then keys ("splits = 3", lines separated by '\n'). */
typedef struct tp_test_tuning {
  const char *name;
  const char *library_of;
  const char *keys;
} tp_test_tuning;

/* Writes TP_TEST_REGISTRY followed by the count tunings to dir/registry.ini.
 * 1 on success; 0 with the reason in tp_error_message() or errno. */
int tp_test_tuned_registry(const char *dir, const tp_test_tuning *tunings, size_t count);

#endif
