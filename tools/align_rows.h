/* tools/align_rows.h: the reference library's random problem
 * (tools/reference/problem.h) with every strided row padded to a multiple of
 * 16 bytes, the rule TMA sets for the GPU backend, so one problem runs on
 * either backend.
 *
 * The values, the 0xFF padding (NaN in every dtype) and the tiled scale
 * tensors stay as tp_ref_problem_create made them; only row strides grow,
 * so tp_ref_problem_poison_d, _padding_written and _destroy still apply. */
#ifndef TP_TOOLS_ALIGN_ROWS_H
#define TP_TOOLS_ALIGN_ROWS_H

#include <stddef.h>
#include "tilepipe/status.h"
#include "tools/reference/problem.h"

/* tp_ref_problem_create, then the rows of every strided matrix widened
 * (vectors, such as int8_w8a8's scales, have no rows and stay as they are).
 * On failure (reason in err) *p is empty. */
tp_status tp_tool_problem_create(tp_ref_problem *p, const tp_ref_problem_spec *spec,
                                 uint64_t seed, char *err, size_t errlen);

/* The same rule on a descriptor without buffers (tp_ref_problem_describe):
 * every strided matrix's row stride rounded up to 16 bytes. */
void tp_tool_align_desc(tp_gemm_desc *desc);

#endif
