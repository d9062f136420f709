/* tilepipe/plugin/device/tma.h: the tensor memory accelerator (bulk tensor copies).
 *
 * A TMA descriptor (CUtensorMap, 128 bytes, built on the host by the core)
 * travels in the kernel parameters as a __grid_constant__; copies name it by
 * its generic address. Loads land in shared memory and complete on an
 * mbarrier with a transaction byte count (the barrier's expect_tx must cover
 * them); out-of-bounds elements read as zero. Stores read shared memory and
 * are clipped to the tensor's bounds; their completion is tracked with bulk
 * async-groups, not barriers.
 *
 * Coordinates are in elements, innermost dimension first (c0 = K column or N
 * column, c1 = row). */
#ifndef TILEPIPE_PLUGIN_DEVICE_TMA_H
#define TILEPIPE_PLUGIN_DEVICE_TMA_H

#include <stdint.h>

#include "tilepipe/internal/pipeline/mbarrier.h"
#include "tilepipe/plugin/tma_desc.h"

#define TP_TMA_FN static __device__ __forceinline__


TP_TMA_FN void tp_tma_prefetch_desc(const tp_tma_desc *desc) {
  asm volatile("prefetch.tensormap [%0];" ::"l"((uint64_t)desc) : "memory");
}

TP_TMA_FN void tp_tma_load_2d(void *dst, const tp_tma_desc *desc, tp_mbar *bar, int32_t c0,
                              int32_t c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];" ::"r"(tp_smem_addr(dst)),
      "l"((uint64_t)desc), "r"(tp_smem_addr(bar)), "r"(c0), "r"(c1)
      : "memory");
}

/* tp_tma_load_2d with an L2 cache policy for the lines it brings in (one of
 * tilepipe/plugin/tma_desc.h's TP_TMA_L2_*). */
TP_TMA_FN void tp_tma_load_2d_hint(void *dst, const tp_tma_desc *desc, tp_mbar *bar, int32_t c0,
                                   int32_t c1, uint64_t policy) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".L2::cache_hint [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(tp_smem_addr(dst)),
      "l"((uint64_t)desc), "r"(tp_smem_addr(bar)), "r"(c0), "r"(c1), "l"(policy)
      : "memory");
}

/* The same tile into the same smem offset of every CTA in cta_mask (bit i =
 * cluster rank i); each receiving CTA's barrier at bar's offset gets the
 * bytes. With an L2 cache policy, as tp_tma_load_2d_hint. */
TP_TMA_FN void tp_tma_load_2d_multicast_hint(void *dst, const tp_tma_desc *desc, tp_mbar *bar,
                                             int32_t c0, int32_t c1, uint16_t cta_mask,
                                             uint64_t policy) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".multicast::cluster.L2::cache_hint [%0], [%1, {%4, %5}], [%2], %3, %6;" ::"r"(
          tp_smem_addr(dst)),
      "l"((uint64_t)desc), "r"(tp_smem_addr(bar)), "h"(cta_mask), "r"(c0), "r"(c1),
      "l"(policy)
      : "memory");
}

/* Starts bringing the box at (c0, c1) into L2 and completes on nothing: a
 * later load of the same box then waits on L2 rather than DRAM. */
TP_TMA_FN void tp_tma_prefetch_l2_2d(const tp_tma_desc *desc, int32_t c0, int32_t c1) {
  asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];" ::"l"(
                   (uint64_t)desc),
               "r"(c0), "r"(c1)
               : "memory");
}

TP_TMA_FN void tp_tma_store_2d(const tp_tma_desc *desc, const void *src, int32_t c0, int32_t c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                   (uint64_t)desc),
               "r"(tp_smem_addr(src)), "r"(c0), "r"(c1)
               : "memory");
}

TP_TMA_FN void tp_tma_store_commit_group(void) {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

/* Waits until at most N committed store groups still read shared memory. */
template <int N>
TP_TMA_FN void tp_tma_store_wait_read(void) {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}

/* Waits until at most N committed store groups are incomplete (globally
 * visible writes). */
template <int N>
TP_TMA_FN void tp_tma_store_wait(void) {
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
}

/* Orders this thread's ordinary shared-memory writes before later reads by
 * the async proxy (a TMA store or wgmma reading what we wrote). */
TP_TMA_FN void tp_fence_proxy_async_smem(void) {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

#endif
