/* tilepipe/internal/kernel/kernel_producers.h: the producer warpgroup's three roles.
 *
 *   warp 0  the main loader: each unit's k-blocks into the input pipeline
 *           through the mainloop's load(); for a tile's last split with C,
 *           C's L2 prefetches and the release of the source loader
 *           (kernel_source.h), then the staged stage of C;
 *   warp 1  the store warp: TMA stores of D chunks out of the output ring,
 *           each chunk freed (and with C handed back to the source loader)
 *           once the store has read it;
 *   warp 2  the source loader: C into the output chunks (the source ring
 *           lives in them), in the order the consumers use them.
 * Each runs on one elected thread. */
#ifndef TILEPIPE_INTERNAL_KERNEL_KERNEL_PRODUCERS_H
#define TILEPIPE_INTERNAL_KERNEL_KERNEL_PRODUCERS_H

#include <stdint.h>

#include "tilepipe/plugin/device/kernel_mainloop.h"
#include "tilepipe/internal/kernel/kernel_source.h"
#include "tilepipe/internal/pipeline/storage.h"

template <class ML, int BM, int BN, int DT, int CLUSTER_M>
TP_KERNEL_FN void tp_kernel_loader(const typename ML::params &p) {
  const tp_kernel_params &k = p.kernel;
  tp_input_pipeline ip = tp_storage_input_pipeline(tp_kernel_smem(), &k.smem, 1);
  tp_input_producer prod = tp_input_pipeline_producer(&ip);
  const tp_load_order order = tp_storage_load_order(tp_kernel_smem(), &k.smem);
  const bool has_source = k.epilogue.source_dtype != TP_DTYPE_NONE;
  tp_kernel_walk wk = tp_kernel_walk_make<CLUSTER_M>(k);
  for (tp_kernel_unit w; tp_kernel_walk_next(k, &wk, &w);) {
    const tp_kernel_tile t = tp_kernel_tile_of<CLUSTER_M, BM, BN>(k, w);
    if constexpr (ML::transposed) {
      /* The consumers read C themselves, from registers' positions. */
      for (int32_t kb = w.kb_begin; kb < w.kb_end; ++kb)
        TP_INPUT_PRODUCE(&prod, st) { ML::template load<BM, BN, CLUSTER_M>(p, &st, t, kb); }
    } else {
      const int32_t c_ring_kb = w.kb_end - tp_kernel_c_ring_lead(w); /* releases the ring's C */
      for (int32_t kb = w.kb_begin; kb < w.kb_end; ++kb) {
        TP_INPUT_PRODUCE(&prod, st) { ML::template load<BM, BN, CLUSTER_M>(p, &st, t, kb); }
        if (w.last && has_source) {
          tp_kernel_c_prefetch<BN, DT>(k, kb, w.kb_end, t.m0, t.n0);
          if (kb == c_ring_kb) tp_load_order_signal(&order);
        }
      }
      const tp_kernel_staged_c sc = tp_kernel_staged_c_of<DT>(k);
      if (w.last && sc.count > 0) {
        TP_INPUT_PRODUCE(&prod, st) {
          unsigned char *a = (unsigned char *)tp_input_producer_stage_tile(&st, 0, 0);
          unsigned char *b = (unsigned char *)tp_input_producer_stage_tile(&st, 1, 0);
          uint32_t bytes = 0;
          for (int c = sc.first; c < sc.first + sc.count; ++c)
            bytes += tp_kernel_c_chunk_bytes<BM, BN, DT>(k, c);
          tp_input_producer_stage_arrive_expect_bytes(&st, bytes);
          for (int c = sc.first; c < sc.first + sc.count; ++c) {
            tp_kernel_load_c_chunk<BM, BN, DT>(k, tp_kernel_staged_c_slot(sc, a, b, c),
                                               tp_input_producer_stage_barrier(&st), c, t.m0,
                                               t.n0);
          }
        }
      }
    }
  }
  tp_input_producer_drain(&prod);
}

template <int BM, int BN, int DT, int CLUSTER_M>
TP_KERNEL_FN void tp_kernel_storer(const tp_kernel_params &k) {
  tp_output_pipeline op = tp_storage_output_pipeline(tp_kernel_smem(), &k.smem);
  tp_output_store store = tp_output_pipeline_store(&op);
  /* With C, the store hands each chunk back to the source loader. */
  tp_input_pipeline ep = tp_storage_epi_load_pipeline(tp_kernel_smem(), &k.smem);
  tp_input_consumer freer = tp_input_pipeline_consumer(&ep, tp_arrival_thread());
  const bool has_source = k.epilogue.source_dtype != TP_DTYPE_NONE;
  tp_kernel_walk wk = tp_kernel_walk_make<CLUSTER_M>(k);
  for (tp_kernel_unit w; tp_kernel_walk_next(k, &wk, &w);) {
    if (!w.last) continue;
    int32_t m0, n0;
    tp_kernel_tile_origin<CLUSTER_M, BM, BN>(k, w.tile, &m0, &n0);
    for (int32_t c = 0; c < tp_kernel_chunks<BN, DT>::count; ++c) {
      TP_OUTPUT_STORE(&store, st) {
        const int32_t col0 = n0 + c * tp_kernel_chunks<BN, DT>::cols;
        if (col0 < k.n_tma) {
          tp_tma_store_2d(tp_kernel_chunk_is_tail<BN, DT>(c) ? &k.d_tail : &k.d,
                          tp_output_store_stage_tile(&st), col0, m0);
          tp_tma_store_commit_group();
          /* The chunk is free once the store has read it out of smem: the
           * next C may load into it at once. */
          tp_tma_store_wait_read<0>();
        }
      }
      if (has_source) {
        tp_input_consumer_stage freed = tp_input_consumer_acquire_stage(&freer);
        tp_input_consumer_stage_release(&freed);
      }
    }
  }
  tp_output_store_drain(&store);
  tp_tma_store_wait<0>();
}

template <int BM, int BN, int DT, int CLUSTER_M>
TP_KERNEL_FN void tp_kernel_source_loader(const tp_kernel_params &k) {
  tp_input_pipeline ep = tp_storage_epi_load_pipeline(tp_kernel_smem(), &k.smem);
  tp_input_producer prod = tp_input_pipeline_producer(&ep);
  const tp_load_order order = tp_storage_load_order(tp_kernel_smem(), &k.smem);
  tp_kernel_walk wk = tp_kernel_walk_make<CLUSTER_M>(k);
  const tp_kernel_staged_c sc = tp_kernel_staged_c_of<DT>(k);
  for (tp_kernel_unit w; tp_kernel_walk_next(k, &wk, &w);) {
    if (!w.last) continue;
    int32_t m0, n0;
    tp_kernel_tile_origin<CLUSTER_M, BM, BN>(k, w.tile, &m0, &n0);
    tp_load_order_wait(&order);
    for (int32_t c = 0; c < tp_kernel_chunks<BN, DT>::count; ++c) {
      TP_INPUT_PRODUCE(&prod, st) {
        /* A staged chunk's C is in the input stage already: its slot in the
         * ring only passes on, once stored, to the epilogue's D (no bytes),
         * so that every chunk keeps its place in the ring. */
        const bool staged = tp_kernel_staged_c_has(sc, c);
        tp_input_producer_stage_arrive_expect_bytes(
            &st, staged ? 0u : tp_kernel_c_chunk_bytes<BM, BN, DT>(k, c));
        if (!staged) {
          tp_kernel_load_c_chunk<BM, BN, DT>(
              k, (unsigned char *)tp_input_producer_stage_tile(&st, 0, 0),
              tp_input_producer_stage_barrier(&st), c, m0, n0);
        }
      }
    }
  }
  tp_input_producer_drain(&prod);
}

#endif
