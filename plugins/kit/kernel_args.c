/* plugins/kit/kernel_args.c: a run's parameters of the structured
 * kernel (tilepipe/plugin/kernel/args.h). */
#include <stdbool.h>

#include "tilepipe/plugin/kit/error.h"
#include "tilepipe/plugin/dtype_codec.h"
#include "tilepipe/plugin/kernel/args.h"
#include "tilepipe/plugin/kernel/launch.h"
#include "tilepipe/plugin/kernel/operands.h"

/* A descriptor of rows x cols of dtype (rows ld elements apart) read or
 * written in boxes of box_rows x box_cols, swizzled `swizzle` bytes (128,
 * or 0 for none). */
static tp_status encode(const tp_host_api *host, tp_tma_desc *out, tp_dtype dtype,
                        const void *data, int64_t rows, int64_t cols, int64_t ld,
                        uint32_t box_rows, uint32_t box_cols, uint32_t swizzle, char *err,
                        size_t errlen) {
  const tp_tma_2d r = {.dtype = dtype,
                       .global = data,
                       .rows = rows,
                       .cols = cols,
                       .row_stride = ld,
                       .box_rows = box_rows,
                       .box_cols = box_cols,
                       .swizzle = swizzle};
  return host->tma_encode_2d(out, &r, err, errlen);
}

/* D's or C's boxes: tile_m rows x one 128-byte swizzled row, or, with
 * tail_cols set, x tail_cols unswizzled (a tile's tail chunk). */
static tp_status encode_chunks(const tp_host_api *host, tp_tma_desc *out, const tp_tensor *t,
                               int64_t rows, int64_t cols, uint32_t tile_m, uint32_t tail_cols,
                               char *err, size_t errlen) {
  return encode(host, out, t->dtype, t->data, rows, cols, t->stride[0], tile_m,
                tail_cols ? tail_cols : tp_kernel_row_elems(tp_codec_bits(t->dtype)),
                tail_cols ? 0u : 128u, err, errlen);
}

tp_status tp_kernel_args_fill(const tp_kernel_plan *kp, const tp_payload_plan *plan,
                              const tp_gemm_desc *desc, const tp_host_api *host,
                              tp_kernel_params *k, char *err, size_t errlen) {
  if (kp == NULL || plan == NULL || desc == NULL || host == NULL || k == NULL) {
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT, "tp_kernel_args_fill: NULL argument");
  }
  /* D's columns up to the last full 16-byte granule of a row go through TMA
   * (tilepipe/plugin/kernel/params.h); none when a row is shorter than 16 bytes. */
  const int64_t granule = 128 / tp_codec_bits(desc->d.dtype);
  /* A transposed kernel writes D (and reads C) from registers, no TMA. */
  const int64_t n_tma = kp->transposed ? 0 : desc->n / granule * granule;
  const uint32_t tail_cols = (uint32_t)(kp->tile_n % (int32_t)tp_kernel_row_elems(
                                                         tp_codec_bits(desc->d.dtype)));
  const uint32_t tile_m = (uint32_t)kp->tile_m;
  const bool has_source = kp->source_dtype != TP_DTYPE_NONE && !kp->transposed;
  tp_status st = TP_OK;
  if (n_tma > 0)
    st = encode_chunks(host, &k->d, &desc->d, desc->m, n_tma, tile_m, 0, err, errlen);
  if (st == TP_OK && n_tma > 0 && tail_cols)
    st = encode_chunks(host, &k->d_tail, &desc->d, desc->m, n_tma, tile_m, tail_cols, err,
                       errlen);
  if (st == TP_OK && has_source)
    st = encode_chunks(host, &k->c, &desc->c, desc->m, desc->n, tile_m, 0, err, errlen);
  if (st == TP_OK && has_source && tail_cols)
    st = encode_chunks(host, &k->c_tail, &desc->c, desc->m, desc->n, tile_m, tail_cols, err,
                       errlen);
  if (st != TP_OK) return st;
  k->smem = kp->smem;
  k->m = (int32_t)(kp->transposed ? desc->n : desc->m);
  k->n = (int32_t)(kp->transposed ? desc->m : desc->n);
  k->k = (int32_t)desc->k;
  k->tiles_m = kp->tiles_m;
  k->tiles_n = kp->tiles_n;
  k->k_blocks = kp->k_blocks;
  k->raster_m = kp->raster_m;
  k->group_div = kp->group_div;
  k->rows_div = kp->rows_div;
  k->last_rows_div = kp->last_rows_div;
  k->splits_div = kp->splits_div;
  k->last_group = kp->last_group;
  k->n_tma = (int32_t)n_tma;
  k->d_data = desc->d.data;
  k->ldd = desc->d.stride[0];
  k->c_data = desc->c.data;
  k->ldc = desc->c.stride[0];
  k->splits = kp->splits;
  k->split_from = kp->split_from;
  k->split_lead = kp->split_lead;
  k->stream_iters = kp->stream_iters;
  k->stream_div = kp->stream_div;
  k->k_blocks_div = kp->k_blocks_div;
  k->grid_div = kp->grid_div;
  k->c_staged_first = kp->c_staged_first;
  k->c_staged_count = kp->c_staged_count;
  k->c_staged_a_slots = kp->c_staged_a_slots;
  k->a_rows = kp->a_rows;
  if (kp->splits > 1) {
    if (plan->workspace == NULL) {
      return tp_kit_fail(err, errlen, TP_ERR_INTERNAL, "split-K plan without its workspace");
    }
    k->counters = (uint32_t *)plan->workspace;
    k->partials = (float *)((unsigned char *)plan->workspace + tp_kernel_counter_bytes(kp));
  }
  return TP_OK;
}

tp_status tp_kernel_operands_fill(const tp_kernel_plan *kp, const tp_gemm_desc *desc,
                                  const tp_host_api *host, tp_kernel_operands *o, char *err,
                                  size_t errlen) {
  if (kp == NULL || desc == NULL || host == NULL || o == NULL) {
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "tp_kernel_operands_fill: NULL argument");
  }
  if (kp->a_row_bytes <= 0 || kp->b_row_bytes <= 0) {
    return tp_kit_fail(err, errlen, TP_ERR_INTERNAL,
                       "tp_kernel_operands_fill: the plan has no operand tiles "
                       "(tp_kernel_plan_operand_tensors sizes them)");
  }
  /* One k-tile's K per box, in elements of either operand. The kernel's A
   * and B: the GEMM's, or B and A for a transposed plan. */
  const uint32_t k_tile = (uint32_t)(kp->k_elems / kp->k_group);
  const tp_tensor *a = kp->transposed ? &desc->b : &desc->a;
  const tp_tensor *b = kp->transposed ? &desc->a : &desc->b;
  const int64_t m = kp->transposed ? desc->n : desc->m, n = kp->transposed ? desc->m : desc->n;
  tp_status st = encode(host, &o->a, a->dtype, a->data, m, desc->k, a->stride[0],
                        (uint32_t)kp->a_rows, k_tile,
                        tp_kernel_operand_swizzle((uint32_t)kp->a_row_bytes), err, errlen);
  if (st == TP_OK) {
    st = encode(host, &o->b, b->dtype, b->data, n, desc->k, b->stride[0],
                (uint32_t)(kp->tile_n / kp->cluster_m), k_tile,
                tp_kernel_operand_swizzle((uint32_t)kp->b_row_bytes), err, errlen);
  }
  /* The operand read by one tile row or column only streams through L2
   * once: B under one tile row, A (the weight) under one transposed tile
   * column; the other, read by every CTA, stays. */
  const bool a_once = kp->transposed && kp->tiles_n == 1;
  const bool b_once = !kp->transposed && kp->tiles_m == 1;
  o->a_policy = a_once   ? TP_TMA_L2_EVICT_FIRST
                : b_once ? TP_TMA_L2_EVICT_LAST
                         : TP_TMA_L2_EVICT_NORMAL;
  o->b_policy = b_once   ? TP_TMA_L2_EVICT_FIRST
                : a_once ? TP_TMA_L2_EVICT_LAST
                         : TP_TMA_L2_EVICT_NORMAL;
  return st;
}

tp_status tp_kernel_blockwise_a_scale(const tp_kernel_plan *kp, const tp_host_api *host,
                                      const float *data, int64_t k_blocks, int64_t m, int64_t ld,
                                      tp_tma_desc *out, char *err, size_t errlen) {
  /* a stage's one block */
  return encode(host, out, TP_DTYPE_F32, data, k_blocks, m, ld, 1,
                (uint32_t)kp->tile_m, 0, err, errlen);
}
