/* tools/reference/seeded_fill.h: the host reference of the benchmark's
 * device input generator (tools/seeded_values.h, tools/seeded_device.h):
 * the same bytes, written one element at a time with the library's codec
 * (tp_dtype_store) at the place tp_ref_index gives, so a test can hold the
 * device kernel to them bit for bit. A plain loop on one thread: for small
 * tensors, not for a benchmark's gigabytes.
 *
 * Which values a problem's tensors get (tp_seeded_role): A, B and C
 * operand values; each scale tensor the values of its map, as the payload
 * described it (tp_problem); D none (it is the output), nor a C asked for
 * as NaN (c_nan: it keeps the poison). Tensor `which` (TP_REF_A ...)
 * draws from key tp_seeded_key(seed, which). */
#ifndef TP_TOOLS_REFERENCE_SEEDED_FILL_H
#define TP_TOOLS_REFERENCE_SEEDED_FILL_H

#include <stdint.h>
#include "tilepipe/problem.h"
#include "tilepipe/tensor.h"
#include "tools/reference/problem.h"
#include "tools/seeded_values.h"

/* Every element of t (host memory; rank 1, or rank 2 strided or 128x4
 * tiled) gets its value; bytes outside the elements are not touched. */
void tp_seeded_fill_host(const tp_tensor *t, tp_seeded_values values, uint64_t key);

/* Whether tensor `which` of a problem whose scales mean `problem` gets
 * values, and which (above); c_nan: its C keeps its NaN. Absent tensors
 * are the caller's to skip. */
int tp_seeded_role(const tp_problem *problem, int c_nan, int which, tp_seeded_values *values);

/* Refills every input of p, a problem made from spec (tp_ref_problem_create
 * or tp_tool_problem_create), with seed's values; D and the padding keep
 * their bytes. */
void tp_seeded_fill_problem(tp_ref_problem *p, const tp_ref_problem_spec *spec, uint64_t seed);

#endif
