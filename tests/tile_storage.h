/* tests/tile_storage.h: what each payload kind puts in a stage, for the
 * storage planner's tests (test_storage.c, device/test_pipeline_device.cu).
 *
 * The seeds' tile storages (StandardTileStorage, BlockScaledTileStorage,
 * BlockwiseFP8TileStorage, OutputTileStorage) fix the tile arrays of a
 * kernel's shared memory. In tilepipe each payload's plan lists its own
 * stage tensors (tp_payload_plan.tensors, tilepipe/plugin/abi.h);
 * these builders make such lists, GPU style, from dtypes and a tile
 * configuration, so that the tests' worked layouts start from the tiles of
 * each payload kind. Host and device code (TP_PLAN_FN).
 *
 *   standard        A [tile_m x tile_k], B [tile_n x tile_k]: K-major,
 *                   128B-swizzled, 1024-aligned.
 *   blockwise FP8   A, B (e4m3/e5m2) as above, A-scales: f32 [tile_m], one
 *                   vector per k-block, unswizzled (128-aligned, TMA).
 *                   B-scales are not staged (read from global per tile).
 *   block-scaled    A, B (e4m3/e5m2 MXFP8, e2m1 NVFP4) as above, SFA, SFB:
 *                   one scale byte per `vec` elements along K (ue8m0 with
 *                   vec 32, ue4m3 with vec 16), rows padded to 128 (the
 *                   512-byte scale atom holds 128 rows x 4 k-scales), so
 *                   tile_k must be a multiple of 4 * vec. 128-aligned.
 *   chunk           an output (D) chunk [rows x cols], row-major,
 *                   128B-swizzled for TMA, 1024-aligned (C, when the
 *                   epilogue reads it, lands in the same chunks).
 *
 * The builders return TP_ERR_INVALID_ARGUMENT (bad shape) or
 * TP_ERR_UNSUPPORTED (dtype the payload kind does not take) and, when `why`
 * is not NULL, a static description of the problem. */
#ifndef TILEPIPE_TESTS_TILE_STORAGE_H
#define TILEPIPE_TESTS_TILE_STORAGE_H

#include "tilepipe/plugin/dtype_codec.h"
#include "tilepipe/internal/pipeline/defs.h"
#include "tilepipe/status.h"
#include "tilepipe/plugin/tile.h"

/* Dynamic shared memory one CTA may use on the H100 (227 KiB): the budget
 * of the tests' worked layouts. */
#define TP_SMEM_BUDGET_H100 232448u

/* Alignment of an unswizzled TMA tile in shared memory. */
#define TP_TMA_ALIGN 128u

/* Bytes of a rows x cols tile of dtype (fp4 packed two per byte); 0 for an
 * unknown dtype or a non-positive shape. 64-bit: the caller checks the range. */
TP_PLAN_FN uint64_t tp_tile_bytes(tp_dtype dtype, int32_t rows, int32_t cols) {
  uint64_t bits = tp_codec_bits(dtype);
  if (bits == 0 || rows <= 0 || cols <= 0) return 0;
  return ((uint64_t)rows * (uint64_t)cols * bits + 7u) / 8u;
}

/* A tile tensor of `bytes` at `align`, refused unless TMA can move it
 * (a positive multiple of 16 bytes that fits 32 bits). */
TP_PLAN_FN tp_status tp_stage_tensor_set(tp_stage_tensor *out, uint64_t bytes, uint32_t align,
                                         const char **why) {
  if (bytes == 0 || bytes % 16u != 0 || bytes > 0xFFFFFFFFu) {
    if (why) *why = "tile storage: a tile's size is zero, not a multiple of 16 bytes, or over 4 GiB";
    return TP_ERR_INVALID_ARGUMENT;
  }
  out->bytes = (uint32_t)bytes;
  out->align = align;
  return TP_OK;
}

TP_PLAN_FN tp_status tp_tile_storage_check_config(const tp_tile_config *cfg, const char **why) {
  if (cfg == 0 || cfg->tile_m <= 0 || cfg->tile_n <= 0 || cfg->tile_k <= 0) {
    if (why) *why = "tile storage: no tile configuration, or a tile size that is not positive";
    return TP_ERR_INVALID_ARGUMENT;
  }
  return TP_OK;
}

/* A [tile_m x tile_k] and B [tile_n x tile_k], swizzled. out holds 2. */
TP_PLAN_FN tp_status tp_tile_storage_ab(tp_dtype a, tp_dtype b, const tp_tile_config *cfg,
                                        tp_stage_tensor *out, const char **why) {
  tp_status st = tp_tile_storage_check_config(cfg, why);
  if (st != TP_OK) return st;
  if (tp_codec_bits(a) == 0 || tp_codec_bits(b) == 0) {
    if (why) *why = "tile storage: A or B has no known dtype";
    return TP_ERR_INVALID_ARGUMENT;
  }
  st = tp_stage_tensor_set(&out[0], tp_tile_bytes(a, cfg->tile_m, cfg->tile_k),
                           TP_SWIZZLE_128B_ALIGN, why);
  if (st != TP_OK) return st;
  return tp_stage_tensor_set(&out[1], tp_tile_bytes(b, cfg->tile_n, cfg->tile_k),
                             TP_SWIZZLE_128B_ALIGN, why);
}

/* Standard payload: A, B. */
TP_PLAN_FN tp_status tp_tile_storage_standard(tp_dtype a, tp_dtype b, const tp_tile_config *cfg,
                                              tp_stage_tensor out[TP_MAX_STAGE_TENSORS],
                                              uint32_t *count, const char **why) {
  *count = 0;
  tp_status st = tp_tile_storage_ab(a, b, cfg, out, why);
  if (st == TP_OK) *count = 2;
  return st;
}

TP_PLAN_FN bool tp_tile_storage_is_fp8(tp_dtype d) {
  return d == TP_DTYPE_E4M3 || d == TP_DTYPE_E5M2;
}

/* Blockwise FP8 payload: A, B (fp8), A-scales (f32 [tile_m]). */
TP_PLAN_FN tp_status tp_tile_storage_blockwise_fp8(tp_dtype a, tp_dtype b,
                                                   const tp_tile_config *cfg,
                                                   tp_stage_tensor out[TP_MAX_STAGE_TENSORS],
                                                   uint32_t *count, const char **why) {
  *count = 0;
  if (!tp_tile_storage_is_fp8(a) || !tp_tile_storage_is_fp8(b)) {
    if (why) *why = "tile storage: blockwise FP8 takes e4m3 or e5m2 A and B";
    return TP_ERR_UNSUPPORTED;
  }
  tp_status st = tp_tile_storage_ab(a, b, cfg, out, why);
  if (st != TP_OK) return st;
  st = tp_stage_tensor_set(&out[2], tp_tile_bytes(TP_DTYPE_F32, 1, cfg->tile_m), TP_TMA_ALIGN, why);
  if (st == TP_OK) *count = 3;
  return st;
}

/* Block-scaled payload: A, B, SFA, SFB with one `sf` scale per `vec`
 * elements along K: MXFP8 (e4m3/e5m2, ue8m0, vec 32) or NVFP4 (e2m1, ue4m3,
 * vec 16). */
TP_PLAN_FN tp_status tp_tile_storage_block_scaled(tp_dtype a, tp_dtype b, tp_dtype sf,
                                                  int32_t vec, const tp_tile_config *cfg,
                                                  tp_stage_tensor out[TP_MAX_STAGE_TENSORS],
                                                  uint32_t *count, const char **why) {
  *count = 0;
  bool mx = tp_tile_storage_is_fp8(a) && tp_tile_storage_is_fp8(b) && sf == TP_DTYPE_UE8M0 &&
            vec == 32;
  bool nv = a == TP_DTYPE_E2M1 && b == TP_DTYPE_E2M1 && sf == TP_DTYPE_UE4M3 && vec == 16;
  if (!mx && !nv) {
    if (why)
      *why = "tile storage: block scaling takes MXFP8 (e4m3/e5m2 with ue8m0 per 32) or NVFP4 "
             "(e2m1 with ue4m3 per 16)";
    return TP_ERR_UNSUPPORTED;
  }
  tp_status st = tp_tile_storage_ab(a, b, cfg, out, why);
  if (st != TP_OK) return st;
  if (cfg->tile_k % (4 * vec) != 0) {
    if (why) *why = "tile storage: block-scaled tile_k is not a multiple of 4 scale vectors";
    return TP_ERR_INVALID_ARGUMENT;
  }
  int32_t k_scales = cfg->tile_k / vec;
  int32_t rows_a = (cfg->tile_m + 127) / 128 * 128;
  int32_t rows_b = (cfg->tile_n + 127) / 128 * 128;
  st = tp_stage_tensor_set(&out[2], tp_tile_bytes(sf, rows_a, k_scales), TP_TMA_ALIGN, why);
  if (st != TP_OK) return st;
  st = tp_stage_tensor_set(&out[3], tp_tile_bytes(sf, rows_b, k_scales), TP_TMA_ALIGN, why);
  if (st == TP_OK) *count = 4;
  return st;
}

/* An output chunk of rows x cols elements. */
TP_PLAN_FN tp_status tp_tile_storage_chunk(tp_dtype dtype, int32_t rows, int32_t cols,
                                           tp_stage_tensor *out, const char **why) {
  if (tp_codec_bits(dtype) == 0 || rows <= 0 || cols <= 0) {
    if (why) *why = "tile storage: a chunk has no known dtype or a shape that is not positive";
    return TP_ERR_INVALID_ARGUMENT;
  }
  return tp_stage_tensor_set(out, tp_tile_bytes(dtype, rows, cols), TP_SWIZZLE_128B_ALIGN, why);
}

#endif
