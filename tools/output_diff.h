/* tools/output_diff.h: how far apart two outputs of one layout are, for
 * the benchmark's check of our D against cuBLASLt's. */
#ifndef TP_TOOLS_OUTPUT_DIFF_H
#define TP_TOOLS_OUTPUT_DIFF_H

#include "tilepipe/tensor.h"

/* ||x - y||_2 / ||y||_2 over the elements of the rank-2 strided tensor t
 * (its dtype, shape and row stride), x and y being host copies laid out
 * like t. INFINITY when an element of either is not finite (an unwritten,
 * poisoned element is NaN), so no such output ever passes. */
double tp_output_rel_diff(const tp_tensor *t, const void *x, const void *y);

#endif
