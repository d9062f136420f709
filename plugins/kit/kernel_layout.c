/* plugins/kit/kernel_layout.c: step 2 of the structured kernel's
 * planner, the stage's operand tensors and the shared memory
 * (tilepipe/plugin/kernel/layout.h). */
#include <stdbool.h>

#include "tilepipe/plugin/kit/error.h"
#include "tilepipe/plugin/dtype_codec.h"
#include "tilepipe/plugin/kernel/layout.h"
#include "tilepipe/plugin/kernel/operands.h"

/* The fewest output chunks the ring holds. */
#define TP_KERNEL_OUTPUT_STAGES 2

int32_t tp_kernel_a_rows(int64_t m) {
  return m < TP_KERNEL_WARPGROUP_ROWS ? (int32_t)((m + 7) / 8 * 8) : TP_KERNEL_WARPGROUP_ROWS;
}

tp_status tp_kernel_plan_operand_tensors(tp_kernel_plan *kp, const tp_kernel_request *rq,
                                         tp_payload_plan *plan, char *err, size_t errlen) {
  tp_status st = tp_kernel_request_check(rq, err, errlen);
  if (st != TP_OK) return st;
  if (kp == NULL || plan == NULL) {
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "tp_kernel_plan_operand_tensors: no %s",
                       kp == NULL ? "kernel plan" : "plan");
  }
  tp_gemm_desc view;
  tp_kernel_request_view(rq, &view);
  const tp_gemm_desc *desc = &view;
  const uint32_t a_bits = tp_codec_bits(desc->a.dtype), b_bits = tp_codec_bits(desc->b.dtype);
  const int32_t k_tile = kp->k_group > 0 ? kp->k_elems / kp->k_group : 0;
  if (a_bits == 0 || b_bits == 0 || k_tile != (int32_t)tp_kernel_operand_k_elems(a_bits, b_bits)) {
    return tp_kit_fail(err, errlen, TP_ERR_INTERNAL,
                       "operand tiles of %s x %s hold one 128-byte row of the wider operand's K "
                       "(%d), not the plan's k-tile of %d",
                       tp_codec_name(desc->a.dtype), tp_codec_name(desc->b.dtype),
                       a_bits && b_bits ? (int)tp_kernel_operand_k_elems(a_bits, b_bits) : 0,
                       k_tile);
  }
  kp->a_row_bytes = (int32_t)tp_kernel_operand_row_bytes(a_bits, a_bits, b_bits);
  kp->b_row_bytes = (int32_t)tp_kernel_operand_row_bytes(b_bits, a_bits, b_bits);
  kp->a_rows = tp_kernel_a_rows(desc->m);
  /* Both at a 128B-swizzled chunk's alignment: staged chunks of C land in
   * them (tp_kernel_plan_lay_out), whatever the operands' own rows. */
  plan->num_tensors = 2;
  plan->tensors[0].bytes = (uint32_t)(kp->tile_m * kp->a_row_bytes);
  plan->tensors[0].align = TP_SWIZZLE_128B_ALIGN;
  plan->tensors[1].bytes = (uint32_t)(kp->tile_n * kp->b_row_bytes);
  plan->tensors[1].align = TP_SWIZZLE_128B_ALIGN;
  return TP_OK;
}

tp_status tp_kernel_plan_lay_out(tp_kernel_plan *kp, const tp_kernel_request *rq,
                                 const tp_payload_plan *plan, char *err, size_t errlen) {
  tp_status st = tp_kernel_request_check(rq, err, errlen);
  if (st != TP_OK) return st;
  if (kp == NULL || plan == NULL) {
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT, "tp_kernel_plan_lay_out: no %s",
                       kp == NULL ? "kernel plan" : "plan");
  }
  tp_storage_request r = tp_storage_request_make(rq->gpu->smem_per_block);
  if (plan->num_tensors < 2 || plan->num_tensors > TP_MAX_STAGE_TENSORS) {
    return tp_kit_fail(err, errlen, TP_ERR_INTERNAL,
                       "a stage of the structured kernel holds 2 to %d tensors, not %u",
                       TP_MAX_STAGE_TENSORS, plan->num_tensors);
  }
  r.num_tensors = plan->num_tensors;
  for (uint32_t i = 0; i < plan->num_tensors; ++i) r.tensors[i] = plan->tensors[i];
  r.k_group_size = (uint32_t)kp->k_group;
  r.stages = (uint32_t)rq->tuning->stages;
  /* D's chunks: 128 bytes of D per row each (176 columns of a 16-bit D
   * make 3, the last 48 columns wide). */
  const uint32_t d_bits = tp_codec_bits(kp->d_dtype);
  const uint32_t chunks = ((uint32_t)kp->tile_n * d_bits + TP_KERNEL_ROW_BYTES * 8 - 1) /
                          (TP_KERNEL_ROW_BYTES * 8);
  r.output_chunk.bytes = (uint32_t)kp->tile_m * TP_KERNEL_ROW_BYTES;
  r.output_chunk.align = TP_SWIZZLE_128B_ALIGN;
  r.output_stages = TP_KERNEL_OUTPUT_STAGES;
  r.output_stages_max = chunks > TP_KERNEL_OUTPUT_STAGES ? chunks : TP_KERNEL_OUTPUT_STAGES;
  if (kp->source_dtype != TP_DTYPE_NONE) {
    /* A C chunk spans D's chunk columns: twice the bytes for f32 C under a
     * 16-bit D, and the output chunk holds it. */
    const uint32_t c_bits = tp_codec_bits(kp->source_dtype);
    if (c_bits != 32 && c_bits != d_bits) {
      return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                         "the GPU kernels stage C as f32 or as D's dtype, not %s under a %s D",
                         tp_codec_name(kp->source_dtype), tp_codec_name(kp->d_dtype));
    }
    if (c_bits > d_bits) r.output_chunk.bytes = r.output_chunk.bytes * c_bits / d_bits;
    r.source_in_output = 1;
  }
  st = tp_storage_plan(&r, &kp->smem);
  if (st != TP_OK) {
    return tp_kit_fail(err, errlen, st, "%s (%llu bytes needed, %u available)", kp->smem.error,
                       (unsigned long long)kp->smem.need_bytes, rq->gpu->smem_per_block);
  }
  /* A step acquires step_stages stages before it releases any. */
  if ((int32_t)kp->smem.stages < rq->step_stages && rq->tuning->stages) {
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "%s: its mainloop takes %d stages a step, more than the tuning's "
                       "stages = %d",
                       rq->prefix, rq->step_stages, rq->tuning->stages);
  }
  if ((int32_t)kp->smem.stages < rq->step_stages) {
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "%s: its mainloop takes %d stages a step, and only %u of %dx%d tiles fit",
                       rq->prefix, rq->step_stages, kp->smem.stages, kp->tile_m, kp->tile_n);
  }
  /* The chunks of C past the ring in whole output chunks (slots) of the
   * extra stage's tensors 0 and 1: fewer where an operand's rows are
   * narrower than 128 bytes (tilepipe/plugin/kernel/operands.h). */
  const uint32_t slot = kp->smem.output.bytes;
  const int32_t a_slots = (int32_t)(kp->smem.tensors[0].bytes / slot);
  const int32_t slots = a_slots + (int32_t)(kp->smem.tensors[1].bytes / slot);
  const int32_t past_ring = (int32_t)chunks - (int32_t)kp->smem.source_stages;
  /* A transposed tile writes D, and reads C, from registers: nothing staged. */
  const bool staged =
      kp->source_dtype != TP_DTYPE_NONE && kp->d_dtype != TP_DTYPE_F32 && !kp->transposed;
  kp->c_staged_first = (int32_t)kp->smem.source_stages;
  kp->c_staged_count = !staged || past_ring <= 0 ? 0 : (past_ring < slots ? past_ring : slots);
  kp->c_staged_a_slots = a_slots;
  /* Staged C lands in tensor 0 and would overwrite the rows kept zero. */
  if (kp->c_staged_count > 0) kp->a_rows = TP_KERNEL_WARPGROUP_ROWS;
  return TP_OK;
}
