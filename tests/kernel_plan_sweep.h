/* tests/kernel_plan_sweep.h: a sweep of GEMMs through the structured
 * kernel's planner, and one line of what it decided for each.
 *
 * tests/test_kernel_plan.c plans every case and compares each line with
 * tests/kernel_plans.txt, which pins the heuristic: a change to the planner
 * that moves any plan's kernel, grid, splits, stages or shared memory fails
 * there. A deliberate change regenerates the table (the test's header says
 * how). The sweep crosses GPUs (132 and 114 SMs), operand and output dtypes,
 * with and without C, rows on and off 128-byte lines, the three mainloop
 * geometries of the shipped payloads (standard's A-and-B stage up to
 * 256 wide, int8_w8a8's up to 192, blockwise_fp8's two scale blocks and a
 * row of scales, widths dividing 128), shapes from decode-sized to many
 * waves, and the INI's tuning keys.
 *
 * Include it after tilepipe/plugin/kernel/gpu_plan.h; the includer defines
 * sweep_plan(), which plans one case. */
#ifndef TP_TESTS_KERNEL_PLAN_SWEEP_H
#define TP_TESTS_KERNEL_PLAN_SWEEP_H

#include <stdio.h>
#include <string.h>

#include "tilepipe/plugin/dtype_codec.h"
#include "tilepipe/tensor.h"

typedef enum sweep_mainloop {
  SWEEP_OPERANDS = 0, /* a stage of A and B, tiles up to 256 wide (standard) */
  SWEEP_OPERANDS_192, /* the same up to 192 wide (int8_w8a8) */
  SWEEP_BLOCKWISE,    /* k-tiles of 128 in pairs, a row of A scales, widths dividing 128 */
} sweep_mainloop;

typedef struct sweep_case {
  tp_gpu_info gpu;
  tp_gemm_desc desc;
  tp_epilogue_plan epilogue;
  sweep_mainloop mainloop;
  tp_kernel_tuning tuning;
  const char *tuning_name;
} sweep_case;

/* What a case's plan came to. */
typedef struct sweep_result {
  tp_status status;
  tp_kernel_plan kp;
  tp_payload_plan plan;
  tp_gpu_launch launch;
} sweep_result;

/* Plans c into *r (the includer's). */
static void sweep_plan(const sweep_case *c, sweep_result *r);

typedef struct sweep_operands {
  tp_dtype a, b, d, c;
  sweep_mainloop mainloop;
} sweep_operands;

static const sweep_operands sweep_operand_sets[] = {
    {TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_NONE, SWEEP_OPERANDS},
    {TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_F32, SWEEP_OPERANDS},
    {TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F32, TP_DTYPE_F32, SWEEP_OPERANDS},
    {TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F16, SWEEP_OPERANDS},
    {TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_BF16, TP_DTYPE_NONE, SWEEP_OPERANDS},
    {TP_DTYPE_E4M3, TP_DTYPE_E5M2, TP_DTYPE_F16, TP_DTYPE_F16, SWEEP_OPERANDS},
    {TP_DTYPE_S8, TP_DTYPE_S8, TP_DTYPE_BF16, TP_DTYPE_BF16, SWEEP_OPERANDS_192},
    {TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_BF16, TP_DTYPE_NONE, SWEEP_BLOCKWISE},
    {TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_F32, TP_DTYPE_F32, SWEEP_BLOCKWISE},
};

static const int64_t sweep_ms[] = {1, 8, 64, 100, 128, 256, 777, 4096};
static const int64_t sweep_ns[] = {48, 64, 144, 176, 256, 1000, 4224, 7168};
static const int64_t sweep_ks[] = {300, 4096, 16384};

/* The INI's keys, each on its own; tile K 0 stands for the case's own
 * (one 128-byte row of its operands: 64 of bf16, 128 of e4m3). */
typedef struct sweep_tuning {
  const char *name;
  tp_kernel_tuning tuning;
} sweep_tuning;

static const sweep_tuning sweep_tunings[] = {
    {"stages=3", {.stages = 3}},
    {"tile=128x128", {.tile_m = 128, .tile_n = 128}},
    {"tile=64x64", {.tile_m = 64, .tile_n = 64}},
    {"tile=128x176", {.tile_m = 128, .tile_n = 176}},
    {"cluster=2x1", {.cluster_m = 2, .cluster_n = 1}},
    {"tile=128x256,cluster=2x1", {.tile_m = 128, .tile_n = 256, .cluster_m = 2, .cluster_n = 1}},
    {"splits=2", {.splits = 2}},
    {"splits=16", {.splits = 16}},
    {"tail_splits=3", {.tail_splits = 3}},
    {"stream_k=on", {.stream_k = TP_KERNEL_STREAM_ON}},
    {"stream_k=off", {.stream_k = TP_KERNEL_STREAM_OFF}},
};
static const int64_t sweep_tuned_ms[] = {64, 256, 4096};
static const int64_t sweep_tuned_ns[] = {176, 4096};

/* Elements of `dtype` in `cols` rounded up to a multiple of `bytes`. */
static int64_t sweep_ld(tp_dtype dtype, int64_t cols, int64_t bytes) {
  const int64_t per = bytes * 8 / (int64_t)tp_codec_bits(dtype);
  return (cols + per - 1) / per * per;
}

/* Case (gpu, operands, M, N, K, rows padded to pad bytes, tuning). */
static void sweep_make(sweep_case *c, int32_t sm_count, const sweep_operands *o, int64_t m,
                       int64_t n, int64_t k, int64_t pad, const sweep_tuning *tu) {
  memset(c, 0, sizeof *c);
  c->gpu.sm_count = sm_count;
  c->gpu.cc_major = 9;
  c->gpu.smem_per_block = 232448;
  c->desc.m = m;
  c->desc.n = n;
  c->desc.k = k;
  c->desc.alpha = 1.0f;
  c->desc.a = tp_tensor_matrix(o->a, m, k, sweep_ld(o->a, k, pad), NULL);
  c->desc.b = tp_tensor_matrix(o->b, n, k, sweep_ld(o->b, k, pad), NULL);
  c->desc.d = tp_tensor_matrix(o->d, m, n, sweep_ld(o->d, n, 16), NULL);
  if (o->c != TP_DTYPE_NONE) {
    c->desc.c = tp_tensor_matrix(o->c, m, n, sweep_ld(o->c, n, 16), NULL);
    c->desc.beta = 1.0f;
  }
  c->epilogue.source_dtype = o->c;
  c->mainloop = o->mainloop;
  c->tuning_name = tu ? tu->name : "-";
  if (tu) {
    c->tuning = tu->tuning;
    if (c->tuning.tile_m) c->tuning.tile_k = o->mainloop == SWEEP_BLOCKWISE
                                                 ? 128
                                                 : 1024 / (int32_t)tp_codec_bits(o->a);
  }
}

/* "M N K A B D C mainloop SMs pad tuning" of case c (pad: its rows'). */
static void sweep_key(const sweep_case *c, char *out, size_t size) {
  snprintf(out, size, "%lldx%lldx%lld %s*%s->%s c=%s mainloop %d, %d SMs, lda %lld, %s",
           (long long)c->desc.m, (long long)c->desc.n, (long long)c->desc.k,
           tp_codec_name(c->desc.a.dtype), tp_codec_name(c->desc.b.dtype),
           tp_codec_name(c->desc.d.dtype), tp_codec_name(c->epilogue.source_dtype),
           (int)c->mainloop, c->gpu.sm_count, (long long)c->desc.a.stride[0], c->tuning_name);
}

/* What the plan decided, in one line: the kernel, grid, work split,
 * stages and shared memory (and with `full`, every other figure of the
 * plan the kernel reads). */
static void sweep_line(const sweep_result *r, int full, char *out, size_t size) {
  if (r->status != TP_OK) {
    snprintf(out, size, "refused %d", (int)r->status);
    return;
  }
  const tp_kernel_plan *kp = &r->kp;
  const tp_gpu_launch *l = &r->launch;
  int w = snprintf(out, size, "%s g%u sp%d/%d/%d sk%u st%u sm%u ws%llu ar%d cs%d", l->kernel,
                   l->grid[0], kp->splits, kp->split_from, kp->split_lead, kp->stream_iters,
                   kp->smem.stages, l->smem_bytes, (unsigned long long)l->workspace_bytes,
                   kp->a_rows, kp->c_staged_count);
  if (!full || w < 0 || (size_t)w >= size) return;
  const tp_payload_plan *p = &r->plan;
  snprintf(out + w, size - (size_t)w,
           " | r%d lg%d div%u/%u/%u/%u/%u/%u/%u kb%d ke%d kg%d tm%d tn%d cf%d ca%d os%u ss%u "
           "t%u:%u/%u:%u/%u:%u/%u:%u off%u/%u/%u/%u/%u tile%dx%dx%d.%d.%d.%d.%d kblocks%lld "
           "blk%u cl%u ps%u eo%u",
           kp->raster_m, kp->last_group, kp->group_div.divisor, kp->rows_div.divisor,
           kp->last_rows_div.divisor, kp->splits_div.divisor, kp->stream_div.divisor,
           kp->k_blocks_div.divisor, kp->grid_div.divisor, kp->k_blocks, kp->k_elems,
           kp->k_group, kp->tiles_m, kp->tiles_n, kp->c_staged_first, kp->c_staged_a_slots,
           kp->smem.output_stages, kp->smem.source_stages, p->tensors[0].bytes,
           p->tensors[0].align, p->tensors[1].bytes, p->tensors[1].align, p->tensors[2].bytes,
           p->tensors[2].align, p->tensors[3].bytes, p->tensors[3].align,
           kp->smem.tensors[0].offset, kp->smem.tensors[1].offset, kp->smem.tensors[2].offset,
           kp->smem.output.offset, kp->smem.barrier_offset, p->tile.tile_m, p->tile.tile_n,
           p->tile.tile_k, p->tile.stages, p->tile.k_group_size, p->tile.cluster_m,
           p->tile.consumers, (long long)p->k_blocks, l->block[0], l->cluster[0], l->params_size,
           l->epilogue_args_offset);
}

/* Calls fn(case, ctx) for every case: the table's sweep, or with `full`
 * a far larger one (more GPUs, shapes and strides) for comparing two
 * planners side by side. */
static void sweep_each(int full, void (*fn)(const sweep_case *, void *), void *ctx) {
  static const int64_t full_ms[] = {1,   2,   7,    8,    31,   64,   65,    100,  127,
                                    128, 129, 192,  255,  256,  257,  384,   512,  777,
                                    1000, 1024, 2048, 3000, 4096, 8192, 16384};
  static const int64_t full_ns[] = {16,   24,   48,   64,   65,   96,   128,  144,  160,
                                    176,  192,  208,  256,  300,  1000, 2112, 3584, 4096,
                                    4224, 5120, 7168, 8192, 18432, 24576, 32768};
  static const int64_t full_ks[] = {32, 64, 100, 300, 512, 1536, 4096, 7168, 16384, 65536};
  static const int32_t full_sms[] = {132, 114, 78, 16};
  static const int64_t full_pads[] = {16, 128};
  const int64_t *ms = full ? full_ms : sweep_ms, *ns = full ? full_ns : sweep_ns;
  const int64_t *ks = full ? full_ks : sweep_ks;
  const size_t n_m = full ? sizeof full_ms / sizeof *full_ms : sizeof sweep_ms / sizeof *sweep_ms;
  const size_t n_n = full ? sizeof full_ns / sizeof *full_ns : sizeof sweep_ns / sizeof *sweep_ns;
  const size_t n_k = full ? sizeof full_ks / sizeof *full_ks : sizeof sweep_ks / sizeof *sweep_ks;
  const size_t n_sm = full ? sizeof full_sms / sizeof *full_sms : 2;
  const size_t n_pad = full ? 2 : 1;
  const size_t n_ops = sizeof sweep_operand_sets / sizeof *sweep_operand_sets;
  const size_t n_tu = sizeof sweep_tunings / sizeof *sweep_tunings;
  sweep_case c;
  for (size_t g = 0; g < n_sm; ++g) {
    for (size_t o = 0; o < n_ops; ++o) {
      /* The table: every operand set on 132 SMs, the first on 114. */
      if (!full && g > 0 && o > 0) continue;
      for (size_t pad = 0; pad < n_pad; ++pad) {
        for (size_t i = 0; i < n_m; ++i)
          for (size_t j = 0; j < n_n; ++j)
            for (size_t kk = 0; kk < n_k; ++kk) {
              sweep_make(&c, full_sms[g], &sweep_operand_sets[o], ms[i], ns[j], ks[kk],
                         full_pads[pad], NULL);
              fn(&c, ctx);
            }
        const int64_t *tms = full ? ms : sweep_tuned_ms, *tns = full ? ns : sweep_tuned_ns;
        const size_t n_tm = full ? n_m : sizeof sweep_tuned_ms / sizeof *sweep_tuned_ms;
        const size_t n_tn = full ? n_n : sizeof sweep_tuned_ns / sizeof *sweep_tuned_ns;
        for (size_t t = 0; t < n_tu; ++t)
          for (size_t i = 0; i < n_tm; ++i)
            for (size_t j = 0; j < n_tn; ++j) {
              sweep_make(&c, full_sms[g], &sweep_operand_sets[o], tms[i], tns[j],
                         full ? 7168 : 4096, full_pads[pad], &sweep_tunings[t]);
              fn(&c, ctx);
            }
      }
    }
  }
}

#endif
