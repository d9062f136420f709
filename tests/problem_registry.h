/* tests/problem_registry.h: the registry the tests of the reference
 * library describe their problems with (tilepipe/reference.h): the
 * build tree's (TP_TEST_REGISTRY, the shipped payloads) plus one payload
 * section,
 *
 *   [row_scales]   tests/plugins/fixture_problem: per-row and per-column
 *                  f32 scale vectors of s8 operands, the problem of
 *                  examples/int8_w8a8, which is built out of tree
 *
 * so that every shape of scale map the reference reads has a payload that
 * describes it. A test program opens it once, from INI text
 * (tp_ref_registry_open). */
#ifndef TP_TESTS_PROBLEM_REGISTRY_H
#define TP_TESTS_PROBLEM_REGISTRY_H

#include "tilepipe/registry.h"

/* The section of the fixture above. */
#define TP_TEST_ROW_SCALES "row_scales"

/* The registry, opened on the first call and closed at exit; NULL, after
 * printing why, when it cannot be made. */
tp_registry *tp_test_problem_registry(void);

#endif
