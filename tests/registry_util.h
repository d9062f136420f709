/* tests/registry_util.h: scratch folders and INI files for the registry and
 * loader tests.
 *
 * Every test case gets a fresh folder from tu_setup() (tests/tmpdir.h: under
 * $TMPDIR, else /tmp, never the source tree), with TILEPIPE_PLUGIN_PATH at the
 * fixtures (TP_TEST_PLUGIN_DIR) and TILEPIPE_REGISTRY, TILEPIPE_LOG unset;
 * tu_teardown() removes the folder and goes back to the first working
 * directory. Use them as a Check checked fixture. */
#ifndef TP_TESTS_REGISTRY_UTIL_H
#define TP_TESTS_REGISTRY_UTIL_H

#include <string.h>
#include <check.h>
#include "tilepipe/registry.h"

/* The current test case's scratch folder (absolute). */
extern char tu_dir[];

void tu_setup(void);
void tu_teardown(void);

/* Writes `text` to tu_dir/name (creating tu_dir/sub folders as needed) and
 * returns the file's path in a static buffer that the next call reuses. */
const char *tu_write(const char *name, const char *text);
const char *tu_write_bytes(const char *name, const void *data, size_t size);

/* Path of a fixture library in TP_TEST_PLUGIN_DIR (static buffer, as above). */
const char *tu_fixture(const char *name);

/* fixture_tunable's count of live states (its inits less its finis): the
 * registry's dlopen of the same file gets the same object, so this sees
 * its inits and finis. dlclose(*handle) when done. */
int *tu_tunable_live(void **handle);

/* tu_write(name, text), then tp_registry_open on it. */
tp_status tu_open(tp_registry **reg, const char *name, const char *text);

/* The entry `name` of reg, asserting that it exists. */
tp_plugin_info tu_info(const tp_registry *reg, const char *name);

#define TU_ASSERT_HAS(haystack, needle)                                                     \
  ck_assert_msg(strstr((haystack), (needle)) != NULL, "\"%s\" does not contain \"%s\"",   \
                (haystack), (needle))

/* Asserts that the entry `name` is broken with `status` and that its error
 * is "<file>:<line>: ..." and contains `needle`. */
void tu_assert_broken(const tp_registry *reg, const char *name, tp_status status, int line,
                      const char *needle);

#endif
