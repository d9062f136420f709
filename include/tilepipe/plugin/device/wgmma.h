/* tilepipe/plugin/device/wgmma.h: warpgroup MMA (sm_90a) around wgmma_ops.h.
 *
 * Operands come from shared memory through 64-bit matrix descriptors. tilepipe
 * keeps every operand tile K-major with the 128-byte swizzle that TMA writes
 * (CU_TENSOR_MAP_SWIZZLE_128B): each row of the tile is 128 bytes of K (64
 * bf16/f16 or 128 fp8 values), 16-byte chunks XOR-swizzled by row % 8, the
 * tile 1024-byte aligned. Then:
 *   - rows advance in groups of 8 rows = 1024 bytes (the stride byte offset);
 *   - moving along K inside the 128-byte row is adding the byte offset to
 *     the start address (the swizzle is applied by the hardware on the
 *     absolute address bits, which is why tiles must be 1024-aligned).
 *
 * Accumulator fragment of m64nN (f32), thread t of the warpgroup, warp w =
 * t/32, lane l = t%32, for j in [0, N/8):
 *   d[4j+0], d[4j+1]  ->  row 16w + l/4,     cols 8j + 2(l%4) + {0, 1}
 *   d[4j+2], d[4j+3]  ->  row 16w + l/4 + 8, same cols
 *
 * Ordering: wgmma_fence before the first wgmma that touches registers written
 * by ordinary code; commit_group after issuing; wait_group<N> until at most N
 * groups are in flight (only then may the smem they read be released). */
#ifndef TILEPIPE_PLUGIN_DEVICE_WGMMA_H
#define TILEPIPE_PLUGIN_DEVICE_WGMMA_H

#include <stdint.h>

#include "tilepipe/dtype.h"
#include "tilepipe/plugin/device/wgmma_ops.h"

/* Descriptor of a K-major, 128B-swizzled tile starting at smem address
 * `addr` (shared-space byte address; tile base 1024-aligned, the start may be
 * offset along K by a multiple of 16 bytes). */
TP_WGMMA_FN uint64_t tp_wgmma_desc_sw128(uint32_t addr) {
  uint64_t desc = 0;
  desc |= (uint64_t)((addr & 0x3FFFFu) >> 4);   /* start address, 16-byte units */
  desc |= (uint64_t)1 << 16;                    /* leading byte offset: unused for swizzled K-major */
  desc |= (uint64_t)(1024u >> 4) << 32;         /* stride byte offset: 8 rows x 128 B */
  desc |= (uint64_t)1 << 62;                    /* layout: 128-byte swizzle */
  return desc;
}

/* The descriptor of the tile `bytes` further along: the start address
 * field's 14 bits hold every shared address (below 2^18) in 16-byte units
 * and never carry into the next field, so a descriptor built once takes its
 * k-steps and k-tiles as one 32-bit add to its low word instead of being
 * rebuilt from an address. */
TP_WGMMA_FN uint64_t tp_wgmma_desc_advance(uint64_t desc, uint32_t bytes) {
  const uint32_t lo = (uint32_t)desc + (bytes >> 4), hi = (uint32_t)(desc >> 32);
  return (uint64_t)hi << 32 | lo;
}

TP_WGMMA_FN void tp_wgmma_fence(void) { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }

TP_WGMMA_FN void tp_wgmma_commit_group(void) {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

template <int N>
TP_WGMMA_FN void tp_wgmma_wait_group(void) {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

/* One wgmma (m64nNk16 for 16-bit A and B, m64nNk32 for 8-bit) of the
 * compile-time dtype pair A x B (bf16 x bf16, f16 x f16, or fp8 x fp8 in
 * any pairing: Hopper has no wgmma of mixed widths). */
template <int A, int B>
TP_WGMMA_FN void tp_wgmma_typed(int n, float *d, uint64_t desc_a, uint64_t desc_b,
                                int accumulate) {
  if (A == TP_DTYPE_BF16) tp_wgmma_bf16(n, d, desc_a, desc_b, accumulate);
  else if (A == TP_DTYPE_F16) tp_wgmma_f16(n, d, desc_a, desc_b, accumulate);
  else if (A == TP_DTYPE_E4M3 && B == TP_DTYPE_E4M3) tp_wgmma_e4m3_e4m3(n, d, desc_a, desc_b, accumulate);
  else if (A == TP_DTYPE_E4M3) tp_wgmma_e4m3_e5m2(n, d, desc_a, desc_b, accumulate);
  else if (B == TP_DTYPE_E4M3) tp_wgmma_e5m2_e4m3(n, d, desc_a, desc_b, accumulate);
  else tp_wgmma_e5m2_e5m2(n, d, desc_a, desc_b, accumulate);
}

/* Keeps the compiler from moving accumulator reads/writes across an
 * in-flight wgmma (the registers are being written asynchronously). */
TP_WGMMA_FN void tp_wgmma_fence_operand(float &r) { asm volatile("" : "+f"(r)::"memory"); }

#endif
