/* tests/build_registry.h: the build tree's registry (TP_TEST_REGISTRY, the
 * shipped plugins as built) for the tests that plan with them, opened and
 * closed as a Check unchecked fixture:
 *
 *     tcase_add_unchecked_fixture(tc, build_registry_open, build_registry_close);
 *
 * A registry that does not open leaves build_registry NULL, with the reason
 * on stderr, and the tests that use it fail there. */
#ifndef TP_TESTS_BUILD_REGISTRY_H
#define TP_TESTS_BUILD_REGISTRY_H

#include "tilepipe/registry.h"

extern tp_registry *build_registry;

void build_registry_open(void);
void build_registry_close(void);

#endif
