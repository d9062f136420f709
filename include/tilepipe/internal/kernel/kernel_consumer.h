/* tilepipe/internal/kernel/kernel_consumer.h: a consumer warpgroup's loop.
 *
 * Warpgroup wg (1 or 2 of the CTA's consumer warpgroups) owns rows
 * 64wg..64wg+63 of each output tile. Per work unit: the mainloop's
 * tile_begin; for each k-block, acquire the input stage, its mma (one
 * wgmma group), and release the stage once that group has retired, then
 * the mainloop's k_block_done while the producer refills it: with
 * groups_in_flight() == 1 a stage stays held while the next k-block's
 * group is issued, so one group is always in flight behind the issue.
 * A mainloop with a convert step converts each stage as it takes it,
 * before its mma (every warpgroup whose rows start inside M takes part,
 * then waits for the others), while the group before it runs. Then
 * tile_end, split-K, and the epilogue
 * (kernel_epilogue.h; a transposed mainloop's straight from registers),
 * after which it goes on with the next unit's
 * mainloop while the store warp drains the tile's chunks. */
#ifndef TILEPIPE_INTERNAL_KERNEL_KERNEL_CONSUMER_H
#define TILEPIPE_INTERNAL_KERNEL_KERNEL_CONSUMER_H

#include <stdint.h>

#include "tilepipe/internal/kernel/kernel_epilogue.h"
#include "tilepipe/plugin/device/kernel_mainloop.h"
#include "tilepipe/plugin/device/kernel_operands.h"
#include "tilepipe/internal/kernel/split_k.h"
#include "tilepipe/plugin/device/wgmma.h"
#include "tilepipe/internal/pipeline/storage.h"

/* Split-K (and stream-K's shared tiles) for consumer warpgroup wg: a split
 * other than the last leaves its partial sums in its workspace slot and
 * returns false; the last adds the other splits' (in slot order, which is
 * K's) into acc and returns true. */
template <int BM, int BN>
TP_KERNEL_FN bool tp_kernel_split_k_reduce(const tp_kernel_params &k, float *acc,
                                           const tp_kernel_unit &w, uint32_t wg) {
  constexpr uint32_t wgs = tp_kernel_rows<BM>::warpgroups;
  constexpr int floats = BN / 2;                        /* accumulators per thread */
  constexpr uint32_t slot_float4s = 128u * floats / 4u; /* a warpgroup's 64 x BN */
  const uint32_t t = threadIdx.x % 128u;
  const int32_t tile = w.tile - k.split_from; /* among the split tiles */
  uint32_t *counter = k.counters + wgs * tile + wg;
  float4 *slots =
      (float4 *)k.partials + ((size_t)tile * (k.splits - 1) * wgs + wg) * slot_float4s;
  /* Slot of split s: (tile, s, wg), the warpgroups' slots side by side. */
  if (!w.last) {
    tp_split_k_store<floats>(acc, slots + (size_t)w.split * wgs * slot_float4s, t, 128u);
    tp_split_k_arrive(counter, TP_KERNEL_BAR_CONSUMER_0 + wg, t, 128u);
    return false;
  }
  tp_split_k_wait(counter, (uint32_t)w.partials, TP_KERNEL_BAR_CONSUMER_0 + wg, t, 128u);
  for (int32_t s = 0; s < w.partials; ++s)
    tp_split_k_add<floats>(acc, slots + (size_t)s * wgs * slot_float4s, t, 128u);
  return true;
}

/* The mainloop's convert step on stage st (k-block kb of tile t): every
 * warpgroup whose rows start inside M converts its share, fences its
 * writes for wgmma (the async proxy) and waits for the others. */
template <class ML, int BM, int BN>
TP_KERNEL_FN void tp_kernel_convert_stage(typename ML::template consumer_state<BM, BN> &ms,
                                          const typename ML::params &p,
                                          const tp_input_consumer_stage *st,
                                          const tp_kernel_tile &t, uint32_t wg, int32_t kb) {
  const tp_kernel_converter c = {wg * 128u + threadIdx.x % 128u, t.warpgroups_in_m * 128u, t.m0,
                                 t.n0, kb};
  ML::template convert<BM, BN>(ms, p, st, c);
  tp_fence_proxy_async_smem();
  /* A barrier id keeps one thread count: the two warpgroups meet on their
   * own, warpgroup 0 alone (a tile with one warpgroup's rows in M) on its
   * own one, while warpgroup 1, with nothing to do in such a tile, may
   * already wait at the next tile's meeting. */
  tp_named_barrier_sync(c.threads > 128u ? TP_KERNEL_BAR_CONVERT : TP_KERNEL_BAR_CONSUMER_0,
                        c.threads);
}

/* One step of a mainloop that waits for its groups (groups_in_flight 0):
 * N stages (its step_stages, or fewer at a unit's end: kb is the step's
 * first k-block), their mma, the drain, the stages back to the producer
 * before k_block_done, so that their refill starts under the mainloop's
 * step. */
template <class ML, int BM, int BN, int N>
TP_KERNEL_FN void tp_kernel_drained_step(typename ML::template consumer_state<BM, BN> &ms,
                                         const typename ML::params &p, float *acc,
                                         tp_input_consumer *cons, const tp_kernel_tile &t,
                                         uint32_t wg, bool rows_in_m, int32_t kb,
                                         int32_t kb_begin) {
  tp_input_consumer_stage st[N];
#pragma unroll
  for (int j = 0; j < N; ++j) st[j] = tp_input_consumer_acquire_stage(cons);
  if (ML::converts && rows_in_m) tp_kernel_convert_stage<ML, BM, BN>(ms, p, st, t, wg, kb);
  if (rows_in_m) {
    if constexpr (ML::step_stages == 1) {
      ML::template mma<BM, BN>(ms, p, acc, st, wg, kb > kb_begin);
    } else {
      ML::template mma<BM, BN, N>(ms, p, acc, st, wg, kb > kb_begin);
    }
  }
  tp_wgmma_wait_group<0>();
#pragma unroll
  for (int j = 0; j < N; ++j) tp_input_consumer_stage_release(&st[j]);
  if (rows_in_m) ML::template k_block_done<BM, BN>(ms, p, acc, kb + N - 1, wg);
}

/* The step of n stages (1 <= n <= N), each count its own unrolled body. */
template <class ML, int BM, int BN, int N>
TP_KERNEL_FN void tp_kernel_drained_steps(typename ML::template consumer_state<BM, BN> &ms,
                                          const typename ML::params &p, float *acc,
                                          tp_input_consumer *cons, const tp_kernel_tile &t,
                                          uint32_t wg, bool rows_in_m, int32_t kb,
                                          int32_t kb_begin, int n) {
  if constexpr (N > 1) {
    if (n < N) {
      tp_kernel_drained_steps<ML, BM, BN, N - 1>(ms, p, acc, cons, t, wg, rows_in_m, kb, kb_begin,
                                                 n);
      return;
    }
  }
  tp_kernel_drained_step<ML, BM, BN, N>(ms, p, acc, cons, t, wg, rows_in_m, kb, kb_begin);
}

template <class ML, int BM, int BN, int DT, int CLUSTER_M>
TP_KERNEL_FN void tp_kernel_consumer(const typename ML::params &p, uint32_t wg) {
  const tp_kernel_params &k = p.kernel;
  constexpr int in_flight = ML::template groups_in_flight<BM, BN>();
  constexpr int G = ML::step_stages;
  static_assert(G >= 1, "step_stages is at least 1");
  static_assert(G == 1 || (in_flight == 0 && !ML::converts),
                "a step of several stages drains its groups and converts nothing");
  static_assert(in_flight == 0 || in_flight == 1, "groups_in_flight() is 0 or 1");
  /* Each consumer warp frees a stage in every CTA whose multicast filled it
   * (lane r arrives on CTA r): empty[] counts the consumer warps x
   * CLUSTER_M. */
  const tp_arrival arrival = tp_arrival_make(1, CLUSTER_M > 1 ? (1u << CLUSTER_M) - 1u : 0u);
  tp_input_pipeline ip = tp_storage_input_pipeline(tp_kernel_smem(), &k.smem, 1);
  tp_input_consumer cons = tp_input_pipeline_consumer(&ip, arrival);
  tp_output_pipeline op = tp_storage_output_pipeline(tp_kernel_smem(), &k.smem);
  tp_output_writer out = tp_output_pipeline_writer(&op, tp_arrival_warp());
  tp_input_pipeline ep = tp_storage_epi_load_pipeline(tp_kernel_smem(), &k.smem);
  tp_input_consumer src = tp_input_pipeline_consumer(&ep, tp_arrival_warp());
  tp_kernel_walk wk = tp_kernel_walk_make<CLUSTER_M>(k);
  typename ML::template consumer_state<BM, BN> ms;
  /* Zeroed once: a warpgroup whose rows all lie past M never writes them,
   * and its dropped results should still come from defined values. */
  float acc[BN / 2];
#pragma unroll
  for (int i = 0; i < BN / 2; ++i) acc[i] = 0.0f;
  /* Short A boxes (M < 64): only warpgroup 0's rows are ever multiplied.
   * Zeroing here, not before the kernel's first barrier, lets the loader's
   * first stages fly meanwhile (docs/kernel.md, "One tile"). */
  if (wg == 0)
    tp_kernel_zero_a_rows<ML::a_row_bytes>(k, threadIdx.x % 128u, TP_KERNEL_BAR_CONSUMER_0);

  for (tp_kernel_unit w; tp_kernel_walk_next(k, &wk, &w);) {
    const tp_kernel_tile t = tp_kernel_tile_of<CLUSTER_M, BM, BN>(k, w);
    /* Rows wholly past M: the mainloop left our operand rows unloaded, so
     * we only pass the stages on. The accumulators keep whatever they held:
     * every result of these rows is dropped (the TMA store clips rows past
     * M, tp_kernel_store_ragged skips them), and zeroing them would cost
     * selects on every tile, since the compiler does not branch around
     * them. */
    const bool rows_in_m = wg < t.warpgroups_in_m;
    ML::template tile_begin<BM, BN>(ms, p, t, wg);
    tp_input_consumer_stage held;
    for (int32_t kb = w.kb_begin; kb < w.kb_end; kb += G) {
      if constexpr (in_flight == 0) {
        /* A step of G stages; at the unit's end, of those left. */
        const int n = w.kb_end - kb < G ? (int)(w.kb_end - kb) : G;
        tp_kernel_drained_steps<ML, BM, BN, G>(ms, p, acc, &cons, t, wg, rows_in_m, kb,
                                               w.kb_begin, n);
      } else {
        tp_input_consumer_stage st = tp_input_consumer_acquire_stage(&cons);
        if (ML::converts && rows_in_m) tp_kernel_convert_stage<ML, BM, BN>(ms, p, &st, t, wg, kb);
        if (rows_in_m) ML::template mma<BM, BN>(ms, p, acc, &st, wg, kb > w.kb_begin);
        tp_wgmma_wait_group<1>();
        if (kb > w.kb_begin) {
          tp_input_consumer_stage_release(&held);
          if (rows_in_m) ML::template k_block_done<BM, BN>(ms, p, acc, kb - 1, wg);
        }
        held = st;
      }
    }
    tp_wgmma_wait_group<0>();
    if (in_flight == 1) {
      tp_input_consumer_stage_release(&held);
      if (rows_in_m) ML::template k_block_done<BM, BN>(ms, p, acc, w.kb_end - 1, wg);
    }
    ML::template tile_end<BM, BN>(ms, p, acc, t, wg);
    if (w.split_k && !tp_kernel_split_k_reduce<BM, BN>(k, acc, w, wg)) continue;
    if constexpr (ML::transposed) {
      if (rows_in_m) tp_kernel_epilogue_transposed<BN, DT>(k, acc, t.m0, t.n0, wg);
    } else {
      /* The input stage with the tile's staged chunks of C, held over the
       * whole epilogue: a wait or an arrival between its chunks would cut
       * the epilogue's unrolled chunks apart. */
      tp_input_consumer_stage staged;
      const unsigned char *staged_a = NULL, *staged_b = NULL;
      const bool c_staged = tp_kernel_staged_c_of<DT>(k).count > 0;
      if (c_staged) {
        staged = tp_input_consumer_acquire_stage(&cons);
        staged_a = (const unsigned char *)tp_input_consumer_stage_tile(&staged, 0, 0);
        staged_b = (const unsigned char *)tp_input_consumer_stage_tile(&staged, 1, 0);
      }
      tp_kernel_consumer_epilogue<BM, BN, DT>(k, acc, t.m0, t.n0, wg, &out, &src, staged_a,
                                              staged_b);
      if (c_staged) tp_input_consumer_stage_release(&staged);
    }
  }
  tp_input_consumer_drain(&cons);
  tp_output_writer_drain(&out);
}

#endif
