/* tilepipe/internal/kernel/kernel_source.h: the epilogue's source C, ahead of time.
 *
 * When the epilogue reads C (tp_epilogue_args.source_dtype), a tile's C
 * reaches shared memory before its epilogue needs it, in three steps
 * (docs/kernel.md, "The residual source"):
 *   1. where some chunks load late (more chunks than the ring holds: they
 *      come through step 3, or into the ring again once stored), the main
 *      loader asks for each chunk of C into L2 at a k-block of its own near
 *      the tile's end (tp_kernel_c_prefetch), so that the DRAM reads of
 *      every CTA's C do not all fall in one k-block and stall the operand
 *      loads there;
 *   2. the source loader loads the chunks of the ring (the output chunks:
 *      C is read and D written in place) once the main loader has issued
 *      all but the unit's last tp_kernel_c_ring_lead k-blocks;
 *   3. the chunks past the ring's depth come in one more input stage that
 *      the main loader fills right after the tile's last k-block
 *      (tp_kernel_staged_c), so they land about when the mainloop ends
 *      rather than once the epilogue has stored the chunks before them. */
#ifndef TILEPIPE_INTERNAL_KERNEL_KERNEL_SOURCE_H
#define TILEPIPE_INTERNAL_KERNEL_KERNEL_SOURCE_H

#include <stdint.h>

#include "tilepipe/internal/kernel/kernel_chunks.h"
#include "tilepipe/internal/kernel/kernel_schedule.h"
#include "tilepipe/plugin/device/tma.h"

/* C's TMA boxes: a chunk of C covers the D chunk's columns in 128-byte
 * boxes, two for an f32 C under a 16-bit D. */
typedef struct tp_kernel_c_boxes {
  int32_t cols, count; /* columns per box, boxes per chunk */
} tp_kernel_c_boxes;

template <int BN, int DT>
TP_KERNEL_FN tp_kernel_c_boxes tp_kernel_c_boxes_of(const tp_kernel_params &k) {
  tp_kernel_c_boxes b;
  b.cols = TP_KERNEL_ROW_BYTES / (k.epilogue.source_dtype == TP_DTYPE_F32 ? 4 : 2);
  b.count = tp_kernel_chunks<BN, DT>::cols / b.cols;
  return b;
}

/* Chunk c of a tile's C is asked for into L2 at k-block
 * kb_end - TP_KERNEL_C_PREFETCH_LEAD - (count - c) x TP_KERNEL_C_PREFETCH_SPREAD,
 * and not at all where that falls before the unit's first k-block (its
 * DRAM reads would then meet the tile's first loads and the last tile's
 * stores). */
enum { TP_KERNEL_C_PREFETCH_LEAD = 8, TP_KERNEL_C_PREFETCH_SPREAD = 8 };

/* The ring's chunks of C may load once the main loader has issued all but
 * the unit's last c_ring_lead k-blocks: TP_KERNEL_C_PREFETCH_LEAD, or a
 * quarter of a unit of fewer than 32 (at least one), so that a short
 * tile's C does not load in the burst of D stores and first operand loads
 * at the tile boundary. */
TP_KERNEL_FN int32_t tp_kernel_c_ring_lead(const tp_kernel_unit &w) {
  return max(1, min((int32_t)TP_KERNEL_C_PREFETCH_LEAD, (w.kb_end - w.kb_begin) / 4));
}

/* Step 1 at k-block kb: the one chunk whose turn it is, if any. Where the
 * ring holds every chunk, each loads c_ring_lead k-blocks ahead, in time
 * from DRAM, and a prefetch would only add traffic (docs/kernel.md, "The
 * residual source"). */
template <int BN, int DT>
TP_KERNEL_FN void tp_kernel_c_prefetch(const tp_kernel_params &k, int32_t kb, int32_t kb_end,
                                       int32_t m0, int32_t n0) {
  constexpr int count = tp_kernel_chunks<BN, DT>::count;
  if (count <= (int)k.smem.source_stages) return;
  const int32_t ahead = kb_end - TP_KERNEL_C_PREFETCH_LEAD - kb;
  if (ahead <= 0 || ahead % TP_KERNEL_C_PREFETCH_SPREAD != 0 ||
      ahead > count * TP_KERNEL_C_PREFETCH_SPREAD)
    return;
  const int32_t col0 =
      n0 + (count - ahead / TP_KERNEL_C_PREFETCH_SPREAD) * tp_kernel_chunks<BN, DT>::cols;
  const tp_kernel_c_boxes b = tp_kernel_c_boxes_of<BN, DT>(k);
  for (int32_t x = 0; x < b.count; ++x) tp_tma_prefetch_l2_2d(&k.c, col0 + x * b.cols, m0);
}

/* Step 3: the chunks of C staged in one more input stage, its tensor 0
 * first, then its tensor 1, one chunk slot of the output chunk's bytes
 * each. */
typedef struct tp_kernel_staged_c {
  int32_t first, count; /* chunks [first, first + count) */
  int32_t a_slots;      /* of those, the first a_slots in tensor 0 */
  uint32_t slot_bytes;
} tp_kernel_staged_c;

/* Read from the parameters where it is used, not held in registers across
 * the mainloop. None under an f32 D: the host stages none there, and
 * leaving the code out keeps the f32 epilogue (8 chunks unrolled) clear of
 * a spill. */
template <int DT>
TP_KERNEL_FN tp_kernel_staged_c tp_kernel_staged_c_of(const tp_kernel_params &k) {
  tp_kernel_staged_c s;
  s.first = k.c_staged_first;
  s.count = DT == TP_DTYPE_F32 ? 0 : k.c_staged_count;
  s.a_slots = k.c_staged_a_slots;
  s.slot_bytes = k.smem.output.bytes;
  return s;
}

TP_KERNEL_FN bool tp_kernel_staged_c_has(const tp_kernel_staged_c &s, int c) {
  return c >= s.first && c < s.first + s.count;
}

/* Chunk c's slot in the staged stage whose tensors 0 and 1 are a and b. */
template <typename T>
TP_KERNEL_FN T *tp_kernel_staged_c_slot(const tp_kernel_staged_c &s, T *a, T *b, int c) {
  const int32_t i = c - s.first;
  return i < s.a_slots ? a + i * s.slot_bytes : b + (i - s.a_slots) * s.slot_bytes;
}

/* The bytes of chunk c of C: 128-byte boxes (two per chunk for an f32 C
 * under a 16-bit D), or for a tail chunk one box of its columns (C then in
 * D's dtype: the host takes no other under a tail chunk). */
template <int BM, int BN, int DT>
TP_KERNEL_FN uint32_t tp_kernel_c_chunk_bytes(const tp_kernel_params &k, int c) {
  if (tp_kernel_chunk_is_tail<BN, DT>(c)) return BM * tp_kernel_chunks<BN, DT>::tail_pitch;
  return (uint32_t)tp_kernel_c_boxes_of<BN, DT>(k).count * BM * TP_KERNEL_ROW_BYTES;
}

/* Loads chunk c of the tile at (m0, n0)'s C into `to`, completing on full. */
template <int BM, int BN, int DT>
TP_KERNEL_FN void tp_kernel_load_c_chunk(const tp_kernel_params &k, unsigned char *to,
                                         tp_mbar *full, int c, int32_t m0, int32_t n0) {
  const int32_t col0 = n0 + c * tp_kernel_chunks<BN, DT>::cols;
  if (tp_kernel_chunk_is_tail<BN, DT>(c)) {
    tp_tma_load_2d(to, &k.c_tail, full, col0, m0);
    return;
  }
  const tp_kernel_c_boxes b = tp_kernel_c_boxes_of<BN, DT>(k);
  for (int32_t x = 0; x < b.count; ++x)
    tp_tma_load_2d(to + x * BM * TP_KERNEL_ROW_BYTES, &k.c, full, col0 + x * b.cols, m0);
}

#endif
