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
 * (tp_kernel_plan_converted_b). W8A8: the skeleton's blockwise-scaled
 * mainloop (tp_kernel_plan_blockwise) on the operands as the fold
 * prologue (device/fold.h) leaves them in the plan's workspace, after the
 * skeleton's own part (split-K's): A and B folded (K bytes a row), then
 * their scales. gpu_args fills the kernel's parameters for each run
 * (tilepipe/plugin/kernel/args.h) and says where the scales are and how
 * they are laid out. */
#include <stddef.h>
#include <stdio.h>

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

/* 128-blocks of n (rows, or K). */
static int64_t fold_blocks(int64_t n) {
  return (n + BLOCK_SCALED_FOLD_BLOCK - 1) / BLOCK_SCALED_FOLD_BLOCK;
}

/* W8A8's part of the workspace, each piece 256-byte aligned, from past
 * the skeleton's own (split-K's): the folded A [M, K] and B [N, K], then
 * a_scale [ceil(K/128), M rounded up to 4 (TMA's 16-byte rows)] and
 * b_scale [ceil(N/128), ceil(K/128)], f32. Offsets in bytes. */
typedef struct fold_layout {
  uint64_t a, b, a_scale, b_scale, end;
  int64_t a_scale_ld;
} fold_layout;

static uint64_t align256(uint64_t n) { return (n + 255u) / 256u * 256u; }

static fold_layout fold_layout_of(const tp_kernel_plan *kp, const tp_gemm_desc *desc) {
  const uint64_t m = (uint64_t)desc->m, n = (uint64_t)desc->n, k = (uint64_t)desc->k;
  const uint64_t k_blocks = (uint64_t)fold_blocks(desc->k);
  fold_layout w;
  w.a_scale_ld = (desc->m + 3) / 4 * 4;
  w.a = align256(tp_kernel_workspace_bytes(kp));
  w.b = align256(w.a + m * k);
  w.a_scale = align256(w.b + n * k);
  w.b_scale = align256(w.a_scale + k_blocks * (uint64_t)w.a_scale_ld * sizeof(float));
  w.end = w.b_scale + (uint64_t)fold_blocks(desc->n) * k_blocks * sizeof(float);
  return w;
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
  const tp_kernel_request rq = {.desc = desc,
                                .epilogue = epi,
                                .gpu = gpu,
                                .tuning = &tu->kernel,
                                .prefix = "tp_block_scaled",
                                .operands = operands,
                                .params_size = sizeof(tp_block_scaled_params),
                                .kernel_offset = offsetof(tp_block_scaled_params, kernel)};
  if (!block_scaled_a_scaled(desc))
    return tp_kernel_plan_converted_b(&rq, plan, launch, err, errlen);
  const int64_t k_blocks = fold_blocks(desc->k);
  if (k_blocks > 65535)
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "block_scaled's MXFP8 W8A8 kernel takes K up to %d (%lld given)",
                       65535 * BLOCK_SCALED_FOLD_BLOCK, (long long)desc->k);
  tp_status st = tp_kernel_plan_blockwise(&rq, plan, launch, err, errlen);
  if (st != TP_OK) return st;
  tp_kernel_plan kp;
  tp_kernel_plan_load(plan, &kp);
  const fold_layout w = fold_layout_of(&kp, desc);
  launch->workspace_bytes = w.end;
  snprintf(launch->prologue, sizeof launch->prologue, "tp_block_scaled_%s_fold", operands);
  launch->prologue_grid[0] = (uint32_t)(fold_blocks(desc->m) + fold_blocks(desc->n));
  launch->prologue_grid[1] = (uint32_t)k_blocks;
  launch->prologue_grid[2] = 1;
  launch->prologue_block[0] = BLOCK_SCALED_FOLD_THREADS;
  launch->prologue_block[1] = launch->prologue_block[2] = 1;
  return TP_OK;
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
  p->a_codes = codes_of(&desc->a_scale); /* absent (data NULL) under W8A16 */
  p->b_codes = codes_of(&desc->b_scale);
  p->scale_cols = (int32_t)(desc->k / BLOCK_SCALED_MX_VEC);
  p->b_e5m2 = desc->b.dtype == TP_DTYPE_E5M2;
  tp_status st = tp_kernel_args_fill(&kp, plan, desc, host, &p->kernel, err, errlen);
  if (st != TP_OK) return st;
  if (!block_scaled_a_scaled(desc))
    return tp_kernel_operands_fill(&kp, desc, host, &p->ab, err, errlen);
  /* W8A8: the fold prologue reads the caller's operands and writes the
   * kernel's into the workspace. */
  if (plan->workspace == NULL)
    return tp_kit_fail(err, errlen, TP_ERR_INTERNAL, "MXFP8 W8A8 plan without its workspace");
  const fold_layout w = fold_layout_of(&kp, desc);
  unsigned char *ws = plan->workspace;
  tp_block_scaled_fold *f = &p->fold;
  f->a = desc->a.data;
  f->b = desc->b.data;
  f->lda = desc->a.stride[0]; /* 1-byte elements */
  f->ldb = desc->b.stride[0];
  f->a_out = ws + w.a;
  f->b_out = ws + w.b;
  f->a_scale = (float *)(ws + w.a_scale);
  f->b_scale = (float *)(ws + w.b_scale);
  f->a_scale_ld = w.a_scale_ld;
  tp_gemm_desc folded = *desc;
  folded.a.data = f->a_out;
  folded.a.stride[0] = desc->k;
  folded.b.data = f->b_out;
  folded.b.stride[0] = desc->k;
  st = tp_kernel_operands_fill(&kp, &folded, host, &p->ab, err, errlen);
  if (st == TP_OK)
    st = tp_kernel_blockwise_a_scale(&kp, host, f->a_scale, fold_blocks(desc->k), desc->m,
                                     w.a_scale_ld, &p->a_scale, err, errlen);
  p->b_scale = f->b_scale;
  p->b_scale_ld = fold_blocks(desc->k);
  return st;
}
