/* tilepipe/plugin/kernel/layout.h: step 2 of planning a GEMM on the structured
 * kernel: what one stage holds, and the shared memory.
 *
 * A payload lists its stage tensors in its tp_payload_plan, A's and B's
 * k-tiles first (tp_kernel_plan_operand_tensors sizes those from the
 * operands' dtypes), then its own (a row of scales, say). The layout step
 * hands them to the core's storage planner (tilepipe/internal/pipeline/storage.h):
 * as many stages as fit, the output chunk ring holding C, and which chunks
 * of C past the ring come through one more input stage, landing in its
 * tensors 0 and 1 (which therefore keep the 1024-byte alignment of a
 * 128B-swizzled chunk whatever their own rows). C11; compiled into each
 * plugin from the plugin kit. */
#ifndef TILEPIPE_PLUGIN_KERNEL_LAYOUT_H
#define TILEPIPE_PLUGIN_KERNEL_LAYOUT_H

#include <stddef.h>

#include "tilepipe/plugin/kernel/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A stage's first two tensors for kp's tile: A's and B's k-tiles
 * (tilepipe/plugin/kernel/operands.h: each operand's rows hold one 128-byte row
 * of the wider operand's K in its own dtype, so tile_m and tile_n rows of
 * kp->a_row_bytes and kp->b_row_bytes), and A's box of
 * tp_kernel_a_rows(M) rows. Fails where kp's k-tile is not that K (a
 * mainloop that plans another k-tile stages its operands itself). */
tp_status tp_kernel_plan_operand_tensors(tp_kernel_plan *kp, const tp_kernel_request *rq,
                                         tp_payload_plan *plan, char *err, size_t errlen);

/* The rows of A's TMA box: 64 (a consumer warpgroup's), or M rounded up
 * to 8 where M < 64. TMA's zero fill of rows past M costs about as much
 * as loading them, so a decode-sized M loads only its own rows and the
 * rest of each A tile, which no load then touches, is zeroed once at the
 * kernel's start (tilepipe/plugin/device/kernel_operands.h; docs/kernel.md). */
int32_t tp_kernel_a_rows(int64_t m);

/* Step 2: shared memory for stages of plan's stage tensors, k_group tiles
 * of each a stage, as many stages as the INI's (rq->tuning->stages; 0: as
 * many as fit the GPU's budget). The output ring holds at least two chunks
 * of D, as many more, up to a whole tile's, as the stages leave room for,
 * and with C each chunk also prefetches a chunk of C (the source ring
 * lives in them). The chunks of C past the ring go through one more input
 * stage, as many as its tensors 0 and 1 hold whole; none under an f32 D
 * (the kernel has no room in registers for it there). */
tp_status tp_kernel_plan_lay_out(tp_kernel_plan *kp, const tp_kernel_request *rq,
                                 const tp_payload_plan *plan, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
