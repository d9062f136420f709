/* tests/build_registry.c: the build tree's registry as a test fixture
 * (tests/build_registry.h). */
#include "tests/build_registry.h"

#include <stdio.h>

#include "tilepipe/status.h"

tp_registry *build_registry;

void build_registry_open(void) {
  if (tp_registry_open(&build_registry, TP_TEST_REGISTRY) != TP_OK) {
    fprintf(stderr, "cannot open %s: %s\n", TP_TEST_REGISTRY, tp_error_message());
    build_registry = NULL;
  }
}

void build_registry_close(void) {
  tp_registry_close(build_registry);
  build_registry = NULL;
}
