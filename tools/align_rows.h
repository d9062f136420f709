/* tools/align_rows.h: the reference library's random problem
 * (tools/reference/problem.h) with every strided row padded to a multiple of
 * 16 bytes, the rule TMA sets for the GPU backend, so one problem runs on
 * either backend.
 *
 * The values, the 0xFF padding (NaN in every dtype) and the tiled scale
 * tensors stay as tp_ref_problem_create made them; only row strides grow,
 * so tp_ref_problem_poison_d, _padding_written and _destroy still apply.
 *
 * blockwise_fp8's scales (with pad 0, as the benchmark makes them) come
 * out in the layout cuBLASLt's blockwise FP8 GEMM takes as well
 * (docs/payloads.md): a_scale [L, M] with its rows M rounded up to 4, which
 * is M itself where cuBLASLt applies (M a multiple of 4), and b_scale
 * [ceil(N/128), L] with its rows L rounded up to 4 (L4). A strided scale
 * tensor's buffer holds whole rows, its last row's padding too
 * (tp_tool_buffer_bytes): cuBLASLt sizes the scales by the padded rows. */
#ifndef TP_TOOLS_ALIGN_ROWS_H
#define TP_TOOLS_ALIGN_ROWS_H

#include <stddef.h>
#include "tilepipe/status.h"
#include "tools/reference/problem.h"

/* tp_ref_problem_create, then the rows of every strided matrix widened
 * (vectors, such as per-row scales, have no rows and stay as they are).
 * On failure (reason in err) *p is empty. */
tp_status tp_tool_problem_create(tp_ref_problem *p, const tp_ref_problem_spec *spec,
                                 uint64_t seed, char *err, size_t errlen);

/* The same rule on a descriptor without buffers (tp_ref_problem_describe):
 * every strided matrix's row stride rounded up to 16 bytes. */
void tp_tool_align_desc(tp_gemm_desc *desc);

/* The bytes of the buffer that holds tensor `which` (TP_REF_A ...) of a
 * problem: its span, or for a strided scale matrix its rows times its row
 * stride. */
int64_t tp_tool_buffer_bytes(const tp_tensor *t, int which);

#endif
