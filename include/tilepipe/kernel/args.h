/* tilepipe/kernel/args.h: a run's parameters of the structured kernel.
 *
 * A payload's gpu_args slot, for each run, fills its kernel's parameter
 * struct: the skeleton's part with tp_kernel_args_fill (D's and C's TMA
 * descriptors, the problem, the schedule tp_kernel_plan_shape decided, the
 * split-K workspace, the staged chunks of C), and for K-major A and B
 * tiles tp_kernel_operands_fill; then its own fields. TMA descriptors come
 * from the host API (plugins never open libcuda). Header only, C11. */
#ifndef TILEPIPE_KERNEL_ARGS_H
#define TILEPIPE_KERNEL_ARGS_H

#include "tilepipe/kernel/plan.h"

/* A descriptor of rows x cols of dtype (rows ld elements apart) read or
 * written in boxes of box_rows x one 128-byte swizzled row, or, with
 * tail_cols set, of box_rows x tail_cols unswizzled (a tile's tail chunk). */
static inline tp_status tp_kernel_encode(const tp_host_api *host, tp_tma_desc *out, tp_dtype dtype,
                                         const void *data, int64_t rows, int64_t cols, int64_t ld,
                                         uint32_t box_rows, uint32_t tail_cols, char *err,
                                         size_t errlen) {
  tp_tma_2d r;
  r.dtype = dtype;
  r.global = data;
  r.rows = rows;
  r.cols = cols;
  r.row_stride = ld;
  r.box_rows = box_rows;
  r.box_cols = tail_cols ? tail_cols : tp_kernel_row_elems(dtype);
  r.swizzle = tail_cols ? 0 : 128;
  return host->tma_encode_2d(out, &r, err, errlen);
}

/* The skeleton's parameters for desc under plan `kp` (plan: the payload
 * plan, for its workspace). */
static inline tp_status tp_kernel_args_fill(const tp_kernel_plan *kp, const tp_payload_plan *plan,
                                            const tp_gemm_desc *desc, const tp_host_api *host,
                                            tp_kernel_params *k, char *err, size_t errlen) {
  /* D's columns up to the last full 16-byte granule of a row go through TMA
   * (tilepipe/kernel/params.h); none when a row is shorter than 16 bytes. */
  const int64_t granule = 128 / tp_codec_bits(desc->d.dtype);
  const int64_t n_tma = desc->n / granule * granule;
  const uint32_t tail_cols = (uint32_t)(kp->tile_n % (int32_t)tp_kernel_row_elems(desc->d.dtype));
  const bool has_source = kp->source_dtype != TP_DTYPE_NONE;
  tp_status st = TP_OK;
  if (n_tma > 0) {
    st = tp_kernel_encode(host, &k->d, desc->d.dtype, desc->d.data, desc->m, n_tma,
                          desc->d.stride[0], (uint32_t)kp->tile_m, 0, err, errlen);
  }
  if (st == TP_OK && n_tma > 0 && tail_cols) {
    st = tp_kernel_encode(host, &k->d_tail, desc->d.dtype, desc->d.data, desc->m, n_tma,
                          desc->d.stride[0], (uint32_t)kp->tile_m, tail_cols, err, errlen);
  }
  if (st == TP_OK && has_source) {
    st = tp_kernel_encode(host, &k->c, desc->c.dtype, desc->c.data, desc->m, desc->n,
                          desc->c.stride[0], (uint32_t)kp->tile_m, 0, err, errlen);
  }
  if (st == TP_OK && has_source && tail_cols) {
    st = tp_kernel_encode(host, &k->c_tail, desc->c.dtype, desc->c.data, desc->m, desc->n,
                          desc->c.stride[0], (uint32_t)kp->tile_m, tail_cols, err, errlen);
  }
  if (st != TP_OK) return st;
  k->smem = kp->smem;
  k->m = (int32_t)desc->m;
  k->n = (int32_t)desc->n;
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
      return tp_kit_fail(err, errlen, TP_ERR_INTERNAL,
                         "split-K plan without its workspace");
    }
    k->counters = (uint32_t *)plan->workspace;
    k->partials = (float *)((unsigned char *)plan->workspace + tp_kernel_counter_bytes(kp));
  }
  return TP_OK;
}

/* A's and B's descriptors (A in boxes of kp->a_rows rows, B in boxes of
 * its slice of the tile in a cluster) and the L2 policies of their loads. With one tile
 * row (M within a tile, decode-sized shapes, bound by the bytes of B) each
 * k-block of B is read by one CTA and never again, while every CTA reads
 * the same few rows of A: B's lines go first (EVICT_FIRST), so that A's
 * stay (EVICT_LAST). Elsewhere both are read by several tiles and keep the
 * default. */
static inline tp_status tp_kernel_operands_fill(const tp_kernel_plan *kp, const tp_gemm_desc *desc,
                                                const tp_host_api *host, tp_kernel_operands *o,
                                                char *err, size_t errlen) {
  tp_status st = tp_kernel_encode(host, &o->a, desc->a.dtype, desc->a.data, desc->m, desc->k,
                                  desc->a.stride[0], (uint32_t)kp->a_rows, 0, err, errlen);
  if (st == TP_OK) {
    st = tp_kernel_encode(host, &o->b, desc->b.dtype, desc->b.data, desc->n, desc->k,
                          desc->b.stride[0], (uint32_t)(kp->tile_n / kp->cluster_m), 0, err,
                          errlen);
  }
  const bool one_row = kp->tiles_m == 1;
  o->a_policy = one_row ? TP_TMA_L2_EVICT_LAST : TP_TMA_L2_EVICT_NORMAL;
  o->b_policy = one_row ? TP_TMA_L2_EVICT_FIRST : TP_TMA_L2_EVICT_NORMAL;
  return st;
}

#endif
