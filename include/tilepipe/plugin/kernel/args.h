/* tilepipe/plugin/kernel/args.h: a run's parameters of the structured kernel.
 *
 * A payload's gpu_args slot, for each run, reads its plan back
 * (tp_kernel_plan_load) and fills its kernel's parameter struct: the
 * skeleton's part with tp_kernel_args_fill (D's and C's TMA descriptors,
 * or for a transposed plan their pointers and strides alone, the problem
 * as the kernel computes it, the schedule the planner decided, the
 * split-K workspace, the staged chunks of C), and for K-major A and B tiles
 * tp_kernel_operands_fill; then its own fields. TMA descriptors come from
 * the host API (plugins never open libcuda). C11; compiled into each
 * plugin from the plugin kit. */
#ifndef TILEPIPE_PLUGIN_KERNEL_ARGS_H
#define TILEPIPE_PLUGIN_KERNEL_ARGS_H

#include <stddef.h>

#include "tilepipe/plugin/kernel/params.h"
#include "tilepipe/plugin/kernel/plan.h"
#include "tilepipe/plugin/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The skeleton's parameters for desc under plan `kp` (plan: the payload
 * plan, for its workspace). */
tp_status tp_kernel_args_fill(const tp_kernel_plan *kp, const tp_payload_plan *plan,
                              const tp_gemm_desc *desc, const tp_host_api *host,
                              tp_kernel_params *k, char *err, size_t errlen);

/* A's and B's descriptors and the L2 policies of their loads, for a plan
 * whose stage tensors came from tp_kernel_plan_operand_tensors. Each box
 * is one k-tile's K by rows (A: kp->a_rows; B: its slice of the tile in a
 * cluster), swizzled by the operand's row bytes (tilepipe/plugin/kernel/
 * operands.h). With one tile row (M within
 * a tile, decode-sized shapes, bound by the bytes of B) each k-block of B
 * is read by one CTA and never again, while every CTA reads the same few
 * rows of A: B's lines go first (EVICT_FIRST), so that A's stay
 * (EVICT_LAST); the same under a transposed plan's one tile column, where
 * the kernel's A is B. Elsewhere both are read by several tiles and keep
 * the default. A transposed plan's kernel A and B are desc's B and A. */
tp_status tp_kernel_operands_fill(const tp_kernel_plan *kp, const tp_gemm_desc *desc,
                                  const tp_host_api *host, tp_kernel_operands *o, char *err,
                                  size_t errlen);

/* The blockwise-scaled mainloop's a_scale descriptor (tilepipe/plugin/
 * device/blockwise_mainloop.h): [k_blocks, m] f32 at data, rows ld floats
 * apart (ld a multiple of 4 and data 16-byte aligned: TMA's), read in
 * boxes of one row (a stage's block) x the plan's tile_m. */
tp_status tp_kernel_blockwise_a_scale(const tp_kernel_plan *kp, const tp_host_api *host,
                                      const float *data, int64_t k_blocks, int64_t m, int64_t ld,
                                      tp_tma_desc *out, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
