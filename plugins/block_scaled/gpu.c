/* plugins/block_scaled/gpu.c: the block-scaled payload on the GPU, host
 * side (MXFP8 W8A16 and W8A8; plan.c refuses the CUDA backend for NVFP4
 * before gpu_plan is asked).
 *
 * gpu_plan picks one of device/block_scaled_mainloop.cu's kernels through
 * the planner for the structured kernel (tilepipe/plugin/kernel/gpu_plan.h).
 * W8A16: a stage holds a k-block of 64 of K, the operand tiles the planner
 * sizes from the dtypes (bf16 A in 128-byte rows, fp8 B in 64-byte ones,
 * tilepipe/plugin/kernel/operands.h), then the tensor that no load fills,
 * B scaled and converted to bf16 by the kernel's convert step
 * (tp_kernel_plan_converted_b). W8A8: a k-tile is one fold block of 128 of
 * K and a stage BLOCK_SCALED_STEP_BLOCKS of them, tiles are at most 128
 * wide, and each k-tile holds the block's A and B tiles and the rows'
 * factors the convert step writes (tp_kernel_plan_row_factors). gpu_args
 * fills the kernel's parameters for each run (tilepipe/plugin/kernel/
 * args.h) and says where the scales are and how they are laid out. */
#include <stddef.h>

#include "plugins/block_scaled/block_scaled.h"
#include "plugins/block_scaled/device/block_scaled_params.h"
#include "tilepipe/plugin/dtype_codec.h"
#include "tilepipe/plugin/kernel/args.h"
#include "tilepipe/plugin/kernel/gpu_plan.h"
#include "tilepipe/plugin/kit/error.h"
#include "tilepipe/plugin/kit/tuning.h"

/* The operand group's part of the kernel name (block_scaled_params.h):
 * W8A16's for bf16 A, whichever fp8 B. */
static const char *operands_name(tp_dtype a, tp_dtype b) {
#define BS_OPERANDS_NAME(NAME, A, B) \
  if (a == A && (b == B || B == TP_DTYPE_NONE)) return #NAME;
  TP_BLOCK_SCALED_OPERANDS(BS_OPERANDS_NAME)
#undef BS_OPERANDS_NAME
  return NULL;
}

tp_status block_scaled_gpu_plan(void *state, const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                                const tp_epilogue_plan *epi, tp_payload_plan *plan,
                                tp_gpu_launch *launch, char *err, size_t errlen) {
  const tp_kit_tuning *tu = state;
  const char *operands = operands_name(desc->a.dtype, desc->b.dtype);
  if (operands == NULL)
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "block_scaled has no GPU kernel for A %s x B %s",
                       tp_codec_name(desc->a.dtype), tp_codec_name(desc->b.dtype));
  tp_kernel_request rq = {.desc = desc,
                          .epilogue = epi,
                          .gpu = gpu,
                          .tuning = &tu->kernel,
                          .prefix = "tp_block_scaled",
                          .operands = operands,
                          .params_size = sizeof(tp_block_scaled_params),
                          .kernel_offset = offsetof(tp_block_scaled_params, kernel)};
  if (!block_scaled_a_scaled(desc))
    return tp_kernel_plan_converted_b(&rq, plan, launch, err, errlen);
  rq.k_elems = BLOCK_SCALED_FOLD_BLOCK;
  rq.k_group = BLOCK_SCALED_STEP_BLOCKS;
  rq.max_tile_n = BLOCK_SCALED_W8A8_MAX_TILE_N;
  rq.n_block = BLOCK_SCALED_FOLD_BLOCK;
  /* Tensor 3, where a scale tensor is tiled: per fold block, the 512-byte
   * units of the 128x4 layout that hold the tile's rows' codes of A and of
   * B (docs/payloads.md), which the loader copies in. */
  const int tiled = desc->a_scale.layout == TP_LAYOUT_SF_128X4 ||
                    desc->b_scale.layout == TP_LAYOUT_SF_128X4;
  return tp_kernel_plan_row_factors(&rq, tiled ? 2u * BLOCK_SCALED_CODE_UNIT : 0u, plan, launch,
                                    err, errlen);
}

/* An operand's codes as the kernels read them. */
static tp_block_scaled_codes codes_of(const tp_tensor *t) {
  const int tiled = t->layout == TP_LAYOUT_SF_128X4;
  return (tp_block_scaled_codes){.data = t->data, .ld = tiled ? 0 : t->stride[0], .tiled = tiled};
}

tp_status block_scaled_gpu_args(const tp_payload_plan *plan, const tp_epilogue_plan *epi,
                                const tp_gemm_desc *desc, const tp_host_api *host, void *params,
                                char *err, size_t errlen) {
  (void)epi;
  tp_kernel_plan kp;
  tp_kernel_plan_load(plan, &kp);
  tp_block_scaled_params *p = params;
  tp_status st = tp_kernel_operands_fill(&kp, desc, host, &p->ab, err, errlen);
  if (st == TP_OK) st = tp_kernel_args_fill(&kp, plan, desc, host, &p->kernel, err, errlen);
  p->a_scale = codes_of(&desc->a_scale); /* absent (data NULL) under W8A16 */
  p->b_scale = codes_of(&desc->b_scale);
  p->scale_cols = (int32_t)(desc->k / BLOCK_SCALED_MX_VEC);
  p->b_e5m2 = desc->b.dtype == TP_DTYPE_E5M2;
  return st;
}
