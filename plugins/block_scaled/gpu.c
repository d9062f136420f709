/* plugins/block_scaled/gpu.c: the block-scaled payload on the GPU, host
 * side (MXFP8 W8A16 and W8A8, NVFP4 and MXFP4 W4A16 and W4A4; plan.c
 * refuses the CUDA backend for W4A8 before gpu_plan is asked).
 *
 * gpu_plan picks one of device/block_scaled_mainloop.cu's kernels through
 * the planner for the structured kernel (tilepipe/plugin/kernel/gpu_plan.h).
 * The weight-only modes (W8A16, W4A16) at decode-sized M: the transposed
 * kernels (tiles of B's rows by A's, tilepipe/plugin/kernel/plan.h's
 * transposed request), a stage the two operand tiles, B converted in
 * registers; W4A16's A permuted first by a prologue, so that a thread's
 * share of B's operand is whole words of e2m1. W4A16 past them, and
 * W4A4: the 4-bit operands dequantized to bf16 by a prologue, then the
 * bf16 GEMM. Else W8A16: a stage holds a k-block of 64 of K, the operand
 * tiles the planner sizes from the dtypes (bf16 A in 128-byte rows, fp8 B in 64-byte ones,
 * tilepipe/plugin/kernel/operands.h), then the tensor that no load fills,
 * B scaled and converted to bf16 by the kernel's convert step
 * (tp_kernel_plan_converted_b). W8A8: the skeleton's blockwise-scaled
 * mainloop (tp_kernel_plan_blockwise) on the operands as the fold
 * prologue (device/fold.h) leaves them in the plan's workspace, after the
 * skeleton's own part (split-K's): A and B folded (K bytes a row), then
 * their scales. gpu_args fills the kernel's parameters for each run
 * (tilepipe/plugin/kernel/args.h) and says where the scales are and how
 * they are laid out. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "plugins/block_scaled/block_scaled.h"
#include "plugins/block_scaled/device/block_scaled_params.h"
#include "tilepipe/plugin/dtype_codec.h"
#include "tilepipe/plugin/kernel/args.h"
#include "tilepipe/plugin/kernel/gpu_plan.h"
#include "tilepipe/plugin/kit/error.h"
#include "tilepipe/plugin/kit/tuning.h"

/* How a problem runs: weight-only transposed, B converted in registers
 * (M up to BLOCK_SCALED_W8A16_TRANSPOSED_M, unless the registry forces a
 * tile or cluster, which name the other kernels), W8A16 converting B in
 * each stage, on the operands dequantized by the prologue (B: W8A16 from
 * M BLOCK_SCALED_W8A16_DEQUANTIZE_M on, W4A16 past the transposed
 * kernels; A and B: W4A4), W8A8 on both operands folded by the prologue. */
typedef enum route { TRANSPOSED, CONVERT_B, DEQUANTIZE, FOLD } route;

/* Whether the prologue dequantizes A too (W4A4). */
static bool a_dequantized(const tp_gemm_desc *desc) { return desc->a.dtype == TP_DTYPE_E2M1; }

static route route_of(const tp_gemm_desc *desc, bool transposed_ok) {
  if (a_dequantized(desc)) return DEQUANTIZE;
  if (block_scaled_a_scaled(desc)) return FOLD;
  if (transposed_ok && desc->m <= BLOCK_SCALED_W8A16_TRANSPOSED_M) return TRANSPOSED;
  return desc->m >= BLOCK_SCALED_W8A16_DEQUANTIZE_M || desc->b.dtype == TP_DTYPE_E2M1
             ? DEQUANTIZE
             : CONVERT_B;
}

/* Whether the prologue permutes A's K for W4A16's transposed kernels
 * (bs_permute_tokens in device/fold.h). */
static bool tokens_permuted(const tp_gemm_desc *desc, route r) {
  return r == TRANSPOSED && desc->b.dtype == TP_DTYPE_E2M1;
}

/* The operand group's part of the kernel name (block_scaled_params.h):
 * the group of the route's kernel operands. */
static const char *operands_name(const tp_gemm_desc *desc, route r) {
  const tp_dtype a = r == DEQUANTIZE ? TP_DTYPE_BF16 : desc->a.dtype;
  const tp_dtype b = r == DEQUANTIZE                                ? TP_DTYPE_BF16
                     : r > CONVERT_B || desc->b.dtype == TP_DTYPE_E2M1 ? desc->b.dtype
                                                                     : TP_DTYPE_NONE;
#define BS_OPERANDS_NAME(NAME, A, B, T) \
  if (a == A && b == B) return #NAME;
  TP_BLOCK_SCALED_OPERANDS(BS_OPERANDS_NAME)
#undef BS_OPERANDS_NAME
  return NULL;
}

/* 128-blocks of n (rows, or K). */
static int64_t fold_blocks(int64_t n) {
  return (n + BLOCK_SCALED_FOLD_BLOCK - 1) / BLOCK_SCALED_FOLD_BLOCK;
}

/* The prologue's part of the workspace, each piece 256-byte aligned, from
 * past the skeleton's own (split-K's). FOLD: the folded A [M, K] and B
 * [N, K], then a_scale [ceil(K/128), M rounded up to 4 (TMA's 16-byte
 * rows)] and b_scale [ceil(N/128), ceil(K/128)], f32. DEQUANTIZE: B as
 * bf16 [N, K] at b, after A as bf16 [M, K] at a where it is dequantized
 * too. W4A16 on the transposed kernels: A permuted, bf16 [M, K] at a.
 * Offsets in bytes. */
typedef struct prologue_layout {
  uint64_t a, b, a_scale, b_scale, end;
  int64_t a_scale_ld;
} prologue_layout;

static uint64_t align256(uint64_t n) { return (n + 255u) / 256u * 256u; }

static prologue_layout prologue_layout_of(const tp_kernel_plan *kp, const tp_gemm_desc *desc,
                                          route r) {
  const uint64_t m = (uint64_t)desc->m, n = (uint64_t)desc->n, k = (uint64_t)desc->k;
  const uint64_t k_blocks = (uint64_t)fold_blocks(desc->k);
  prologue_layout w = {0};
  w.a = w.b = align256(tp_kernel_workspace_bytes(kp));
  if (tokens_permuted(desc, r)) {
    w.end = w.a + m * k * 2u;
    return w;
  }
  if (r == DEQUANTIZE) {
    if (a_dequantized(desc)) w.b = align256(w.a + m * k * 2u);
    w.end = w.b + n * k * 2u;
    return w;
  }
  w.a_scale_ld = (desc->m + 3) / 4 * 4;
  w.b = align256(w.a + m * k);
  w.a_scale = align256(w.b + n * k);
  w.b_scale = align256(w.a_scale + k_blocks * (uint64_t)w.a_scale_ld * sizeof(float));
  w.end = w.b_scale + (uint64_t)fold_blocks(desc->n) * k_blocks * sizeof(float);
  return w;
}

/* A packed rows x K operand in the workspace (plugins build descriptors
 * themselves: tp_tensor_matrix is libtilepipe's, which a plugin never
 * links, and a host that loads libtilepipe with RTLD_LOCAL, as Python's
 * ctypes does, leaves it unresolved). */
static tp_tensor packed_rows(tp_dtype dtype, int64_t rows, int64_t k, void *data) {
  return (tp_tensor){.dtype = dtype, .layout = TP_LAYOUT_STRIDED, .rank = 2,
                     .shape = {rows, k}, .stride = {k, 1}, .data = data};
}

/* The problem the kernel runs: desc, with B (and A, W4A4) dequantized to
 * bf16 rows of K at b (and a; NULL at plan time) under DEQUANTIZE, with A
 * and B folded (rows of K bytes) at a and b under FOLD, with A permuted
 * (bf16 rows of K) at a for W4A16's transposed kernels. */
static tp_gemm_desc kernel_desc(const tp_gemm_desc *desc, route r, void *a, void *b) {
  tp_gemm_desc k = *desc;
  if (tokens_permuted(desc, r)) k.a = packed_rows(TP_DTYPE_BF16, desc->m, desc->k, a);
  if (r <= CONVERT_B) return k;
  k.b = packed_rows(r == DEQUANTIZE ? TP_DTYPE_BF16 : desc->b.dtype, desc->n, desc->k, b);
  if (r == FOLD || a_dequantized(desc))
    k.a = packed_rows(r == DEQUANTIZE ? TP_DTYPE_BF16 : desc->a.dtype, desc->m, desc->k, a);
  return k;
}

tp_status block_scaled_gpu_plan(void *state, const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                                const tp_epilogue_plan *epi, tp_payload_plan *plan,
                                tp_gpu_launch *launch, char *err, size_t errlen) {
  const tp_kit_tuning *tu = state;
  const route r =
      route_of(desc, !tu->kernel.tile_m && !tu->kernel.tile_n && !tu->kernel.cluster_m);
  const char *operands = operands_name(desc, r);
  if (operands == NULL)
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "block_scaled has no GPU kernel for A %s x B %s",
                       tp_codec_name(desc->a.dtype), tp_codec_name(desc->b.dtype));
  /* The prologue's CTAs along K: 128 bytes of B (and A) each. */
  const int64_t per_byte = 8 / (int64_t)tp_codec_bits(desc->b.dtype);
  const int64_t k_blocks = fold_blocks(desc->k / per_byte);
  if (r > CONVERT_B && k_blocks > 65535)
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "block_scaled's %s kernel takes K up to %lld (%lld given)",
                       r == FOLD ? "MXFP8 W8A8" : "dequantizing",
                       65535LL * BLOCK_SCALED_FOLD_BLOCK * per_byte, (long long)desc->k);
  const tp_gemm_desc kd = kernel_desc(desc, r, NULL, NULL);
  const tp_kernel_request rq = {.desc = &kd,
                                .epilogue = epi,
                                .gpu = gpu,
                                .tuning = &tu->kernel,
                                .prefix = "tp_block_scaled",
                                .operands = operands,
                                .params_size = sizeof(tp_block_scaled_params),
                                .kernel_offset = offsetof(tp_block_scaled_params, kernel),
                                .transposed = r == TRANSPOSED,
                                /* the transposed mainloop's stage: 128 of K */
                                .k_group =
                                    r == TRANSPOSED ? BLOCK_SCALED_W8A16_TRANSPOSED_K_TILES : 0};
  if (r == CONVERT_B) return tp_kernel_plan_converted_b(&rq, plan, launch, err, errlen);
  tp_status st = r == FOLD ? tp_kernel_plan_blockwise(&rq, plan, launch, err, errlen)
                           : tp_kernel_plan_operands(&rq, plan, launch, err, errlen);
  if (st != TP_OK || (r == TRANSPOSED && !tokens_permuted(desc, r))) return st;
  tp_kernel_plan kp;
  tp_kernel_plan_load(plan, &kp);
  launch->workspace_bytes = prologue_layout_of(&kp, desc, r).end;
  snprintf(launch->prologue, sizeof launch->prologue, "tp_block_scaled_%s_prologue", operands);
  /* Permuting A: a thread a 16-byte run of a row. */
  const int64_t runs = desc->m * (desc->k / 8);
  launch->prologue_grid[0] =
      r == TRANSPOSED
          ? (uint32_t)((runs + BLOCK_SCALED_FOLD_THREADS - 1) / BLOCK_SCALED_FOLD_THREADS)
          : (uint32_t)((r == FOLD || a_dequantized(desc) ? fold_blocks(desc->m) : 0) +
                       fold_blocks(desc->n));
  launch->prologue_grid[1] = r == TRANSPOSED ? 1u : (uint32_t)k_blocks;
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
  const route r = route_of(desc, kp.transposed);
  p->a_codes = codes_of(&desc->a_scale); /* absent (data NULL) under W8A16 */
  p->b_codes = codes_of(&desc->b_scale);
  const bool nvfp4 = desc->b_scale.dtype == TP_DTYPE_UE4M3;
  p->scale_cols = (int32_t)(desc->k / (nvfp4 ? 16 : BLOCK_SCALED_MX_VEC));
  p->b_format = desc->b.dtype == TP_DTYPE_E5M2   ? BLOCK_SCALED_B_E5M2
                : desc->b.dtype == TP_DTYPE_E4M3 ? BLOCK_SCALED_B_E4M3
                : nvfp4                          ? BLOCK_SCALED_B_NVFP4
                                                 : BLOCK_SCALED_B_MXFP4;
  tp_status st = tp_kernel_args_fill(&kp, plan, desc, host, &p->kernel, err, errlen);
  if (st != TP_OK) return st;
  if (r <= CONVERT_B && !tokens_permuted(desc, r))
    return tp_kernel_operands_fill(&kp, desc, host, &p->ab, err, errlen);
  /* The prologue reads the caller's operands and writes the kernel's into
   * the workspace. */
  if (plan->workspace == NULL)
    return tp_kit_fail(err, errlen, TP_ERR_INTERNAL, "block_scaled plan without its workspace");
  const prologue_layout w = prologue_layout_of(&kp, desc, r);
  unsigned char *ws = plan->workspace;
  tp_block_scaled_prologue *f = &p->prologue;
  f->a = desc->a.data;
  f->b = desc->b.data;
  f->lda = desc->a.stride[0] * (int64_t)tp_codec_bits(desc->a.dtype) / 8; /* unread under W8A16 */
  f->ldb = desc->b.stride[0] * (int64_t)tp_codec_bits(desc->b.dtype) / 8;
  f->a_out = ws + w.a;
  f->b_out = ws + w.b;
  const tp_gemm_desc kd = kernel_desc(desc, r, f->a_out, f->b_out);
  st = tp_kernel_operands_fill(&kp, &kd, host, &p->ab, err, errlen);
  if (r != FOLD || st != TP_OK) return st;
  f->a_scale = (float *)(ws + w.a_scale);
  f->b_scale = (float *)(ws + w.b_scale);
  f->a_scale_ld = w.a_scale_ld;
  p->b_scale = f->b_scale;
  p->b_scale_ld = fold_blocks(desc->k);
  return tp_kernel_blockwise_a_scale(&kp, host, f->a_scale, fold_blocks(desc->k), desc->m,
                                     w.a_scale_ld, &p->a_scale, err, errlen);
}
