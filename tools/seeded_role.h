/* tools/seeded_role.h: which values the benchmark's device generator
 * (tools/seeded_problem.h) writes into each tensor of a problem: the ones
 * the reference library's tp_ref_problem_create writes on the host from
 * the same seed (tools/reference/problem.c), so that the two problems are
 * the same bytes (tests/test_seeded_fill.c checks the roles against the
 * host problem, tests/test_seeded_gpu.c the device problem against it).
 *
 * A, B, C and the bias get operand values; each scale tensor the values of
 * its map, as the payload described it (tp_problem); D none (it is the
 * output), nor a C asked for as NaN (c_nan: it keeps the poison). Tensor
 * `which` (TP_REF_A ...) draws from key tp_seeded_key(seed, which). */
#ifndef TP_TOOLS_SEEDED_ROLE_H
#define TP_TOOLS_SEEDED_ROLE_H

#include "tilepipe/problem.h"
#include "tilepipe/reference.h"
#include "tools/seeded_values.h"

/* Whether tensor `which` of a problem whose scales mean `problem` gets
 * values, and which (above). Absent tensors are the caller's to skip. */
int tp_seeded_role(const tp_problem *problem, int c_nan, tp_ref_tensor which,
                   tp_seeded_values *values);

#endif
