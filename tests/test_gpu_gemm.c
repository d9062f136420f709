/* tests/test_gpu_gemm.c: the standard payload's fused GPU kernels against the
 * naive f64 reference.
 *
 * Every dtype combination of the standard payload, with the store and the
 * residual epilogue (C in D's dtype or f32, C aliasing D, beta = 0 with NaN
 * in C), over ragged and large shapes; fresh random inputs per case, D
 * poisoned with NaN (0xFF bytes) on the device before every run, every
 * element checked against a bound derived from the dtypes' roundoff
 * (tp_ref_problem_check). Split-K runs where the heuristic picks it
 * (few tiles, long K: 129x257x1009, in 64-wide tiles) and, forced through registry
 * sections of the standard library with `splits = 3` (uneven k-blocks per
 * split) and `splits = 16` (one k-block each), with both epilogues and C
 * aliasing D; asking for more splits than k-blocks is refused at plan time.
 * The 64-wide tile, the 64 x 64 tile, the 144-, 160-, 176- and 208-wide
 * tiles (their last chunk narrower), the 64 x 48 tile (one chunk,
 * narrower), 2-CTA clusters and the split of a partial last wave run
 * forced the same way (`tile = 128x64x..`, `tile = 64x64x..`, `tile =
 * 128x176x..`, `tile = 64x48x..`, `cluster = 2x1`, `tail_splits`), and
 * stream-K (`stream_k = on`).
 * Exits 77 when there is no usable GPU (tests/gpu_case.h runs the cases). */
#include <check.h>
#include <string.h>

#include "tests/gpu_case.h"
#include "tilepipe/reference.h"

/* Shapes with one row padding that keeps every row 16-byte aligned (TMA's
 * rule) for 1-, 2- and 4-byte elements: n + pad and k + pad multiples of 16. */
static const int64_t shapes[][4] = {
    {1, 1, 1, 15},      {7, 7, 7, 9},        {127, 129, 129, 15}, {129, 257, 1009, 15},
    {1000, 1000, 1000, 8}, {4097, 513, 257, 15}, {2048, 4096, 256, 0},
};

/* Every operand pairing and output dtype, store epilogue, every shape. */
static const tp_dtype operand_pairs[][2] = {
    {TP_DTYPE_BF16, TP_DTYPE_BF16}, {TP_DTYPE_F16, TP_DTYPE_F16},   {TP_DTYPE_E4M3, TP_DTYPE_E4M3},
    {TP_DTYPE_E4M3, TP_DTYPE_E5M2}, {TP_DTYPE_E5M2, TP_DTYPE_E4M3}, {TP_DTYPE_E5M2, TP_DTYPE_E5M2},
};
static const tp_dtype outputs[] = {TP_DTYPE_BF16, TP_DTYPE_F16, TP_DTYPE_F32};

START_TEST(store_every_dtype) {
  const size_t pairs = sizeof operand_pairs / sizeof operand_pairs[0];
  const size_t nshapes = sizeof shapes / sizeof shapes[0];
  for (size_t p = 0; p < pairs; ++p) {
    for (size_t o = 0; o < 3; ++o) {
      for (size_t s = 0; s < nshapes; ++s) {
        /* Every combination on the small shapes; each large shape once per pair. */
        if (s >= 4 && o != (p + s) % 3) continue;
        gpu_case gc = {"standard", operand_pairs[p][0], operand_pairs[p][1], outputs[o],
                       TP_DTYPE_NONE, "store", 0, 0, 1.5f, 0.0f, shapes[s][0], shapes[s][1],
                       shapes[s][2], shapes[s][3], 1};
        run_case(&gc, 1000u * p + 100u * o + s);
      }
    }
  }
}
END_TEST

START_TEST(residual_sources) {
  const size_t nshapes = sizeof shapes / sizeof shapes[0];
  for (size_t s = 0; s < nshapes; ++s) {
    const tp_dtype d = outputs[s % 3];
    /* C in D's dtype, C in f32, C aliasing D (in-place accumulate). */
    gpu_case same = {"standard", TP_DTYPE_BF16, TP_DTYPE_BF16, d, d, "residual", 0, 0, 0.75f,
                     -1.25f, shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3], 1};
    run_case(&same, 7000u + s);
    gpu_case f32c = same;
    f32c.c = TP_DTYPE_F32;
    f32c.a = f32c.b = TP_DTYPE_E4M3;
    run_case(&f32c, 8000u + s);
    gpu_case alias = same;
    alias.c_is_d = 1;
    alias.a = alias.b = TP_DTYPE_F16;
    run_case(&alias, 9000u + s);
  }
}
END_TEST

START_TEST(residual_beta_zero_ignores_nan_c) {
  gpu_case gc = {"standard", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16,
                 "residual", 0, 1, 2.0f, 0.0f, 129, 257, 1009, 15, 1};
  run_case(&gc, 42);
}
END_TEST

/* Forced split-K: 16 bf16 k-blocks split 5/5/6 and 1 x 16, several tiles
 * (each with its own counters and slots), both epilogues, C aliasing D;
 * three runs of one plan, so the counters must have returned to 0. */
START_TEST(split_k_forced) {
  static const char *sections[] = {"standard_split3", "standard_split16"};
  for (size_t i = 0; i < 2; ++i) {
    gpu_case store = {sections[i], TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_F32, TP_DTYPE_NONE,
                      "store", 0, 0, 1.5f, 0.0f, 300, 521, 1009, 15, 3};
    run_case(&store, 11000u + i);
    gpu_case alias = {sections[i], TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_BF16, TP_DTYPE_BF16,
                      "residual", 1, 0, 0.75f, -1.25f, 129, 257, 1009, 15, 1};
    run_case(&alias, 12000u + i);
  }
  gpu_case fp8 = {"standard_split3", TP_DTYPE_E4M3, TP_DTYPE_E5M2, TP_DTYPE_BF16, TP_DTYPE_F32,
                  "residual", 0, 0, 0.5f, 2.0f, 64, 4096, 2048, 0, 2};
  run_case(&fp8, 13000u);
}
END_TEST

/* The 64-wide tile, which the heuristic picks for few tiles only: one D
 * chunk per tile in 16 bits, two in f32; ragged edges, split in 2 (16-bit
 * operands) and whole (fp8), both epilogues, C aliasing D. */
START_TEST(tile_n64) {
  static const gpu_case cases[] = {
      {"standard_n64", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_F32, TP_DTYPE_NONE, "store", 0, 0,
       1.5f, 0.0f, 300, 521, 1009, 15, 2},
      {"standard_n64", TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_BF16, TP_DTYPE_BF16, "residual", 1,
       0, 0.75f, -1.25f, 129, 257, 1009, 15, 1},
      {"standard_n64_fp8", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_BF16, TP_DTYPE_F32, "residual",
       0, 0, 0.5f, 2.0f, 4097, 513, 257, 15, 1},
      {"standard_n64_fp8", TP_DTYPE_E5M2, TP_DTYPE_E4M3, TP_DTYPE_F16, TP_DTYPE_NONE, "store", 0,
       0, 1.0f, 0.0f, 127, 129, 129, 15, 1},
  };
  run_cases(cases, sizeof cases / sizeof cases[0], 14000u);
}
END_TEST

/* 2-CTA clusters sharing B by multicast, opt-in through the INI: an odd
 * number of tile rows leaves a pair's second CTA wholly past M (300 rows:
 * 3 tile rows), a second tile row of one row (129), both epilogues, fp8, C
 * aliasing D. */
START_TEST(cluster_2x1) {
  static const gpu_case cases[] = {
      {"standard_cluster2", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_NONE, "store",
       0, 0, 1.5f, 0.0f, 300, 521, 1009, 15, 2},
      {"standard_cluster2", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_F32, TP_DTYPE_F32, "residual",
       0, 0, 0.5f, 2.0f, 129, 257, 305, 15, 1},
      {"standard_cluster2", TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F16, "residual", 1,
       0, 0.75f, -1.25f, 1000, 1000, 1000, 8, 1},
  };
  run_cases(cases, sizeof cases / sizeof cases[0], 15000u);
}
END_TEST

/* The partial last wave split (tail_splits, forced with 128-wide tiles):
 * 1025 x 2017 makes 144 tiles, a wave of 132 and 12 in 3 splits of 5, 5
 * and 6 k-blocks (bf16, K = 1009); 135 tiles of 1025 x 1900 make a wave of
 * 130 (the grid a multiple of 5) and 5 in 5 splits; fp8 in 2. Tail tiles
 * share their counters and slots by index from the first split tile; both
 * epilogues, C aliasing D, two runs of one plan (the counters must return
 * to 0). */
START_TEST(tail_split) {
  static const gpu_case cases[] = {
      {"standard_tail3", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_NONE, "store", 0,
       0, 1.5f, 0.0f, 1025, 2017, 1009, 15, 2},
      {"standard_tail3", TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F16, "residual", 1, 0,
       0.75f, -1.25f, 1025, 2017, 1009, 15, 1},
      {"standard_tail5", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_F32, TP_DTYPE_F32, "residual", 0,
       0, 0.5f, 2.0f, 1025, 1900, 1308, 4, 2},
      {"standard_tail2_fp8", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_BF16, TP_DTYPE_NONE, "store",
       0, 0, 1.0f, 0.0f, 1025, 2017, 1105, 15, 1},
  };
  run_cases(cases, sizeof cases / sizeof cases[0], 16000u);
}
END_TEST

/* 176-wide tiles, whose last chunk is 48 columns stored and loaded through
 * boxes of their own: N = 529 (three tiles and one of a single column, past
 * the TMA store's 16-byte reach) in few enough tiles to split K, N = 1000
 * and 513 (a last tile whose narrow chunk lies wholly or partly past N),
 * 4096 x 2112 in whole tiles (384, 3 waves), both epilogues, C aliasing
 * D, f16 and fp8. */
START_TEST(tile_n176) {
  static const gpu_case cases[] = {
      {"standard_n176", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_NONE, "store", 0,
       0, 1.5f, 0.0f, 300, 529, 1009, 15, 2},
      {"standard_n176", TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F16, "residual", 1, 0,
       0.75f, -1.25f, 1000, 1000, 1000, 8, 1},
      {"standard_n176", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, "residual",
       0, 0, 0.5f, 2.0f, 4096, 2112, 256, 0, 2},
      {"standard_n176_fp8", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_BF16, TP_DTYPE_BF16,
       "residual", 1, 0, 1.0f, 1.0f, 4097, 513, 257, 15, 1},
  };
  run_cases(cases, sizeof cases / sizeof cases[0], 17000u);
}
END_TEST

/* The other widths that end in a tail chunk: 144 (two chunks and 16
 * columns), 160 (32) and 208 (three chunks and 16). Each N ends inside a
 * last tile's tail chunk (425 = 2 x 144 + 137, 1000 = 6 x 144 + 136, 629
 * = 3 x 160 + 149, 405 = 208 + 197), and but for 1000 past the TMA
 * store's 16-byte reach: both epilogues, C aliasing D, f16 and fp8, K
 * split where the tiles are few. */
START_TEST(tile_tail_widths) {
  static const gpu_case cases[] = {
      {"standard_n144", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_NONE, "store", 0,
       0, 1.5f, 0.0f, 300, 425, 1009, 15, 2},
      {"standard_n144", TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F16, "residual", 1, 0,
       0.75f, -1.25f, 1000, 1000, 1000, 8, 1},
      {"standard_n160_fp8", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_BF16, TP_DTYPE_BF16,
       "residual", 0, 0, 1.0f, 1.0f, 4097, 629, 257, 15, 2},
      {"standard_n160", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_NONE, "store", 0,
       0, 1.0f, 0.0f, 129, 629, 2049, 15, 1},
      {"standard_n208", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, "residual",
       1, 0, 0.5f, 2.0f, 777, 405, 1009, 15, 1},
      {"standard_n208_fp8", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_F16, TP_DTYPE_NONE, "store", 0,
       0, 1.0f, 0.0f, 1000, 1000, 1000, 8, 2},
  };
  run_cases(cases, sizeof cases / sizeof cases[0], 23000u);
}
END_TEST

/* 64 x 64 tiles (one consumer warpgroup), forced on shapes of many
 * tile rows, ragged M and N: both epilogues, C aliasing D, f32 C under a
 * bf16 D (its two boxes per chunk 64 rows apart), fp8 into f32, 2-CTA
 * clusters (5 tile rows: the last pair's second CTA lies past M), K split
 * 3 ways unevenly; and the heuristic at M = 128 (128 x 64 tiles in 2
 * splits, under the L2 policies of one tile row) and M = 64 (64 x 64, K
 * split). */
START_TEST(tile_m64) {
  static const gpu_case cases[] = {
      {"standard_m64", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_NONE, "store", 0, 0,
       1.5f, 0.0f, 300, 521, 1009, 15, 2},
      {"standard_m64", TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F16, "residual", 1, 0,
       0.75f, -1.25f, 1000, 1000, 1000, 8, 1},
      {"standard_m64", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_F32, "residual", 0,
       0, 0.5f, 2.0f, 129, 257, 305, 15, 2},
      {"standard_m64_fp8", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_F32, TP_DTYPE_F32, "residual",
       1, 0, 1.0f, 1.0f, 127, 129, 1009, 15, 1},
      {"standard_m64_cluster2", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_NONE,
       "store", 0, 0, 1.5f, 0.0f, 300, 521, 1009, 15, 2},
      {"standard_m64_cluster2", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16,
       "residual", 1, 0, 0.75f, -1.25f, 129, 257, 305, 15, 1},
      {"standard_m64_split3", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_F32, TP_DTYPE_F32,
       "residual", 0, 0, 0.5f, 2.0f, 100, 1009, 1009, 15, 2},
      {"standard", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, "residual", 0, 0,
       1.0f, 1.0f, 128, 4096, 1024, 0, 2},
      {"standard", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_BF16, TP_DTYPE_NONE, "store", 0, 0,
       1.0f, 0.0f, 64, 2048, 2048, 0, 2},
  };
  run_cases(cases, sizeof cases / sizeof cases[0], 18000u);
}
END_TEST

/* 64 x 48 tiles: one consumer warpgroup and a single chunk of D narrower
 * than a whole one (a tail chunk, through boxes of its own), forced on
 * shapes of many tile rows with ragged N (521: the last tile 41 columns,
 * 1009: one column past the TMA store's reach), both epilogues, C aliasing
 * D, fp8, a decode M (short A box), K split 3 ways unevenly; and the
 * heuristic's choice at 32 x 5120 x 5120 (107 tiles, unsplit). */
START_TEST(tile_n48) {
  static const gpu_case cases[] = {
      {"standard_n48", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_NONE, "store", 0, 0,
       1.5f, 0.0f, 300, 521, 1009, 15, 2},
      {"standard_n48", TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F16, "residual", 1, 0,
       0.75f, -1.25f, 1000, 1000, 1000, 8, 1},
      {"standard_n48_fp8", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_BF16, TP_DTYPE_BF16, "residual",
       0, 0, 0.5f, 2.0f, 33, 1009, 1000, 8, 2},
      {"standard_n48_split3", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16,
       "residual", 1, 0, 1.0f, 1.0f, 57, 1009, 1009, 15, 1},
      {"standard", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_BF16, TP_DTYPE_NONE, "store", 0, 0,
       1.0f, 0.0f, 32, 5120, 5120, 0, 2},
  };
  run_cases(cases, sizeof cases / sizeof cases[0], 22000u);
}
END_TEST

/* Decode-sized M (< 64), where A's box holds only M rounded up to 8 rows
 * and the rest of every A tile stays as zeroed at the kernel's start: the
 * heuristic's 64 x 48 at 1 x 6144 x 4096, split K at 13 x 3000 x 4104,
 * more tiles than CTAs (7 x 20012: each CTA reuses its stages over
 * several tiles), 64 x 64 tiles with C aliasing D, a 2-CTA cluster whose
 * second CTA lies past M, an uneven 3-way split, f32 C and D, fp8, and
 * M = 63, the last M under a whole box. */
START_TEST(decode_rows) {
  static const gpu_case cases[] = {
      {"standard", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_NONE, "store", 0, 0,
       1.0f, 0.0f, 1, 6144, 4096, 0, 2},
      {"standard", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_BF16, TP_DTYPE_F32, "residual", 0, 0,
       0.5f, 2.0f, 13, 3000, 4104, 8, 2},
      {"standard_n64", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_F32, TP_DTYPE_NONE, "store", 0, 0,
       1.5f, 0.0f, 7, 20012, 300, 4, 2},
      {"standard_m64", TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F16, "residual", 1, 0,
       0.75f, -1.25f, 33, 1000, 1000, 8, 1},
      {"standard_m64_cluster2", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_NONE,
       "store", 0, 0, 1.5f, 0.0f, 40, 521, 1009, 15, 2},
      {"standard_m64_split3", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_F32, TP_DTYPE_F32,
       "residual", 0, 0, 0.5f, 2.0f, 57, 1009, 1009, 15, 2},
      {"standard", TP_DTYPE_E5M2, TP_DTYPE_E4M3, TP_DTYPE_F16, TP_DTYPE_NONE, "store", 0, 0,
       1.0f, 0.0f, 63, 2009, 777, 7, 1},
  };
  run_cases(cases, sizeof cases / sizeof cases[0], 20000u);
}
END_TEST

/* Stream-K, forced: 1025 x 2561 (189 tiles of 128 x 128: a wave of whole
 * tiles, then 57 tiles' k-blocks shared by all 132 CTAs, each tile over up
 * to 4 of them); few tiles wholly as a stream (15 tiles over 132 CTAs, a
 * tile over up to 10, ragged N, f32 C and D); 128 x 256 with C staged
 * through an input stage, C aliasing D; 64 x 64 fp8 into f16; a decode M
 * (short A box) as a stream. Two runs of a plan where C is not D: the
 * counters must return to 0. */
START_TEST(stream_k) {
  static const gpu_case cases[] = {
      {"standard_stream", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_NONE, "store", 0,
       0, 1.5f, 0.0f, 1025, 2561, 1009, 15, 2},
      {"standard_stream", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_F32, TP_DTYPE_F32, "residual", 0,
       0, 0.5f, 2.0f, 300, 528, 4000, 0, 2},
      {"standard_stream_n256", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16,
       "residual", 1, 0, 0.75f, -1.25f, 300, 1000, 4000, 8, 1},
      {"standard_stream_m64_fp8", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_F16, TP_DTYPE_NONE,
       "store", 0, 0, 1.0f, 0.0f, 100, 1009, 3000, 7, 2},
      {"standard_stream", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, "residual",
       0, 0, 1.0f, 1.0f, 9, 3000, 4104, 8, 2},
  };
  run_cases(cases, sizeof cases / sizeof cases[0], 21000u);
}
END_TEST

/* Two splits per tile, the first handing k-blocks on to the last
 * (split_lead: 2 of its 8 at K = 996, 1000 and 1009 in bf16 and f16, 4 of
 * 56 at 64 x 4096 x 7168, none of 1 in fp8 at K = 305), over more tiles
 * than the grid holds, so that each CTA runs several splits (300 x 4100 x
 * 996: 195 tiles of 128 x 64, 390 units on 132 CTAs; 1000 x 1000 in 64 x
 * 64: 256 tiles); a second warpgroup wholly past M (M = 64 in 128-row
 * tiles); f32 D (two chunks per tile), f32 C under a bf16 D, C aliasing D;
 * and the heuristic's choice at 64 x 4096 x 7168. */
START_TEST(split_two) {
  static const gpu_case cases[] = {
      {"standard_n64", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_F32, TP_DTYPE_NONE, "store", 0, 0,
       1.5f, 0.0f, 300, 4100, 996, 12, 2},
      {"standard_n64", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_F32, "residual", 0,
       0, 0.5f, 2.0f, 300, 4100, 996, 12, 1},
      {"standard_n64", TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F16, "residual", 1, 0,
       0.75f, -1.25f, 64, 521, 1009, 15, 1},
      {"standard_m64_split2", TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F16, "residual",
       1, 0, 0.75f, -1.25f, 1000, 1000, 1000, 8, 1},
      {"standard_m64_split2", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_F32, TP_DTYPE_NONE, "store",
       0, 0, 1.5f, 0.0f, 129, 257, 1009, 15, 2},
      {"standard_m64_split2_fp8", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_BF16, TP_DTYPE_F32,
       "residual", 0, 0, 0.5f, 2.0f, 129, 257, 305, 15, 2},
      {"standard", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, "residual", 0, 0,
       1.0f, 1.0f, 64, 4096, 7168, 0, 2},
  };
  run_cases(cases, sizeof cases / sizeof cases[0], 19000u);
}
END_TEST

/* More splits than k-blocks: refused at plan time, saying so. */
START_TEST(split_k_refused) {
  char err[256] = "";
  /* 8 k-blocks of 128 e4m3 elements; rows of 1008 bytes (TMA's 16). */
  const tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = gpu_case_registry,
                                    .payload = "standard", .a = TP_DTYPE_E4M3,
                                    .b = TP_DTYPE_E4M3, .d = TP_DTYPE_BF16, .m = 64, .n = 64,
                                    .k = 1008, .alpha = 1.0f};
  tp_ref_problem *prob;
  ck_assert_msg(tp_ref_problem_create(&prob, &spec, 5, err, sizeof err) == TP_OK, "%s", err);
  tp_plan *plan = NULL;
  ck_assert_int_eq(tp_plan_create(&plan, gpu_case_registry, "standard_split16", "store",
                                  tp_ref_problem_desc(prob), TP_BACKEND_CUDA),
                   TP_ERR_UNSUPPORTED);
  ck_assert_msg(strstr(tp_error_message(), "splits 16: K = 1008 has only 8 k-blocks") != NULL,
                "%s", tp_error_message());
  ck_assert_ptr_null(plan);
  tp_ref_problem_destroy(prob);
}
END_TEST

/* Tunings of the standard library: split-K, the narrow tiles, clusters,
 * tail splits. */
static const tp_test_tuning tunings[] = {
    {"standard_split3", "standard", "splits = 3"},
    {"standard_split16", "standard", "splits = 16"},
    {"standard_n64", "standard", "tile = 128x64x64\nsplits = 2"},
    {"standard_n64_fp8", "standard", "tile = 128x64x128"},
    {"standard_cluster2", "standard", "cluster = 2x1"},
    {"standard_tail3", "standard", "tile = 128x128x64\ntail_splits = 3"},
    {"standard_tail5", "standard", "tile = 128x128x64\ntail_splits = 5"},
    {"standard_tail2_fp8", "standard", "tile = 128x128x128\ntail_splits = 2"},
    {"standard_n176", "standard", "tile = 128x176x64"},
    {"standard_n176_fp8", "standard", "tile = 128x176x128"},
    {"standard_n144", "standard", "tile = 128x144x64"},
    {"standard_n160", "standard", "tile = 128x160x64"},
    {"standard_n160_fp8", "standard", "tile = 128x160x128"},
    {"standard_n208", "standard", "tile = 128x208x64"},
    {"standard_n208_fp8", "standard", "tile = 128x208x128"},
    {"standard_m64", "standard", "tile = 64x64x64"},
    {"standard_m64_fp8", "standard", "tile = 64x64x128"},
    {"standard_m64_cluster2", "standard", "tile = 64x64x64\ncluster = 2x1"},
    {"standard_m64_split3", "standard", "tile = 64x64x64\nsplits = 3"},
    {"standard_m64_split2", "standard", "tile = 64x64x64\nsplits = 2"},
    {"standard_m64_split2_fp8", "standard", "tile = 64x64x128\nsplits = 2"},
    {"standard_n48", "standard", "tile = 64x48x64"},
    {"standard_n48_fp8", "standard", "tile = 64x48x128"},
    {"standard_n48_split3", "standard", "tile = 64x48x64\nsplits = 3"},
    {"standard_stream", "standard", "tile = 128x128x64\nstream_k = on"},
    {"standard_stream_n256", "standard", "tile = 128x256x64\nstream_k = on"},
    {"standard_stream_m64_fp8", "standard", "tile = 64x64x128\nstream_k = on"},
};

static void add_tests(TCase *tc) {
  tcase_add_test(tc, store_every_dtype);
  tcase_add_test(tc, residual_sources);
  tcase_add_test(tc, residual_beta_zero_ignores_nan_c);
  tcase_add_test(tc, split_k_forced);
  tcase_add_test(tc, split_k_refused);
  tcase_add_test(tc, tile_n64);
  tcase_add_test(tc, cluster_2x1);
  tcase_add_test(tc, tail_split);
  tcase_add_test(tc, tile_n176);
  tcase_add_test(tc, tile_tail_widths);
  tcase_add_test(tc, tile_m64);
  tcase_add_test(tc, tile_n48);
  tcase_add_test(tc, split_two);
  tcase_add_test(tc, decode_rows);
  tcase_add_test(tc, stream_k);
}

int main(void) {
  return tp_gpu_cases_main("test_gpu_gemm", 0, tunings,
                           sizeof tunings / sizeof tunings[0], add_tests);
}
