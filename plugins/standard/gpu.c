/* plugins/standard/gpu.c: the standard payload on the GPU, host side.
 *
 * gpu_plan picks one of the kernels of device/standard_kernel.cu (output tile
 * 128 x BN with BN 64, 128, 176, 192 or 256, or 64 x 64; 1 or 2 CTAs per
 * cluster sharing B by multicast) from the problem and the GPU, lays out
 * shared memory through the core's storage planner, and sizes the
 * persistent grid. gpu_args fills
 * the kernel's parameter block for each run (TMA descriptors through the
 * host API, since plugins never open libcuda).
 *
 * The heuristic, in order (each choice can be forced by the INI's tuning
 * keys, within what the kernels support):
 *   - BN and the K split together: the pair whose work units (tiles x
 *     splits) fill the SMs' waves best, weighted by how fast a full tile of
 *     that width runs (wider reuses more of each load), by the share of its
 *     columns inside N and by what the split costs. 4096 x 2112 takes 176
 *     (384 tiles, 2.9 waves of 132) over 192 (352 tiles, 2.7 waves) and
 *     256 (288 tiles, the third wave 18% full). Shapes with fewer 128-wide
 *     tiles than SMs (M <= 128) are bound by memory and need more CTAs than
 *     tiles: they may also take 128 x 64 and 64 x 64 tiles, and K is split
 *     when the tiles alone occupy fewer than SPLIT_SATURATION of the SMs,
 *     into the fewest splits that reach it (each at least
 *     MIN_SPLIT_K_BLOCKS k-blocks, all in one wave); each split adds
 *     (splits - 1) partial tiles that the last CTA of a tile reads back
 *     alone (SPLIT_COST). 64-row tiles only where M <= 64. On the H100
 *     (bench/ab.sh, thirteenth session, bf16 / e4m3 store): 128 x 4096 x
 *     7168 takes 128 x 64 in 2 splits (28.3 / 19.6 us) over 128 tiles of 64
 *     x 64 unsplit (30.8 / 19.6, both with the L2 policies of one tile
 *     row, operand_policies); 64 x 4096 x 7168 takes 64 x 64 in 2 splits
 *     (bench/tune.sh at 23ba77e: 30.4 / 19.7 us) over 128 x 64 in 2 (31.7
 *     / 21.5); 128 x 7168 x 16384 takes 112 tiles of 128 x 64 unsplit
 *     (91.9 / 49.0 us) over 224 of 64 x 64 (115 / 61.6).
 *     Shapes with at least a wave of tiles may split the tiles of their
 *     partial last wave instead (tail_split_waves): 2048 x 7168 x 18432
 *     takes 128 x 256 with its 52 tail tiles in 2 splits;
 *   - single CTAs: 2-CTA clusters (B multicast) run 1-4% slower on the
 *     H100 at the shapes measured (8192^3, 4096^3, 4096 x 7168 x 16384,
 *     4096 x 18432 x 7168; bf16 and e4m3), so they stay opt-in;
 *   - stages: as many as the budget holds (the planner's answer);
 *   - tiles walked in groups of tile rows, for L2 reuse of A and B
 *     (raster_rows); with one tile row, B's loads evict first and A's last
 *     (operand_policies).
 * A is loaded in two 64-row boxes, each left out where its rows all lie
 * past M: with one 128-row box, TMA's zero fill of the rows past M = 64
 * cost 64 x 7168 x 16384 (64 wide, unsplit) 119 us against 88 us now. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "plugins/common/errmsg.h"
#include "plugins/common/tuning.h"
#include "plugins/standard/device/standard_params.h"
#include "plugins/standard/standard.h"
#include "tilepipe/dtype_codec.h"
#include "tilepipe/fast_div.h"

/* Output chunks: at least two (the store of one overlaps the writing of
 * the next), and as many more, up to a whole tile's, as the input stages
 * leave room for. C is loaded into them (source_in_output), so each one
 * also prefetches a chunk of C. */
#define STANDARD_OUTPUT_STAGES 2
/* Split-K: the most splits; the fewest k-blocks each takes; the share of
 * the SMs that small-M shapes need busy; the cost of each split beyond the
 * first per 128 x 128 of tile (the partial sums it writes and the last
 * split reads back), relative to an unsplit tile (set from bench/tune.sh
 * runs on the H100). */
#define STANDARD_MAX_SPLITS 16
#define MIN_SPLIT_K_BLOCKS 4
#define SPLIT_SATURATION 0.85
#define SPLIT_COST 0.15
/* The partial last wave of a shape with many tiles, split: each split
 * beyond the first costs about this many k-blocks of time (its partial
 * sums written out and read back by the last, while every CTA of the wave
 * does the same). Measured on the H100 (bench/tune.sh, bf16): 4096 x 2112
 * x 7168 at 128 x 256 with its 24 tail tiles in 4 splits took 0.53 of a
 * tile's time for the tail, where 28 k-blocks of 112 and 2 per split
 * predicted 0.30. */
#define TAIL_SPLIT_COST_KB 16.0
/* The last split of a tile, which waits for the others' partial sums, is
 * SPLIT_LEAD_KB k-blocks longer for every other split (each of those that
 * much shorter), at most a 1/SPLIT_LEAD_SHARE of a split's k-blocks: the
 * others' sums then reach L2 while it still streams its operands, where an
 * even split left it waiting 2-3 microseconds for them (every CTA's operand
 * reads in flight at once). On the H100 (bench/ab.sh, twelfth session),
 * 64 x 4096 x 7168 bf16, 64 x 64 tiles in 2 splits: store 30.7 -> 29.8 us,
 * residual 31.6 -> 31.0; a lead of 8 was slower than 4 (docs/kernel.md). */
#define SPLIT_LEAD_KB 4
#define SPLIT_LEAD_SHARE 4
/* Partial sums are laid out per tile, split and consumer warpgroup. */
#define STANDARD_COUNTER_ALIGN 256

/* What gpu_plan decided, kept in the payload plan's private bytes. */
typedef struct standard_gpu_plan {
  tp_storage_layout smem;
  int32_t tile_m, tile_n, cluster_m, raster_m;
  int32_t tiles_m, tiles_n;
  int32_t splits;          /* K split over this many CTAs per tile, */
  int32_t split_from;      /* for the tiles from this one on */
  int32_t split_lead;      /* k-blocks each split hands on to the last */
  /* The kernel's schedule divisors (standard_params.h), made once here:
   * gpu_args runs at every launch. */
  tp_fast_div group_div, rows_div, last_rows_div, splits_div;
  int32_t last_group;
  /* The chunks of C the kernel stages (standard_params.h, stage_c_chunks). */
  int32_t c_staged_first, c_staged_count, c_staged_a_slots;
} standard_gpu_plan;

_Static_assert(sizeof(standard_gpu_plan) <= TP_PLAN_PRIVATE_BYTES,
               "the GPU plan must fit the payload plan's private bytes");

static const char *ab_name(tp_dtype a, tp_dtype b) {
  if (a == TP_DTYPE_BF16 && b == TP_DTYPE_BF16) return "bf16";
  if (a == TP_DTYPE_F16 && b == TP_DTYPE_F16) return "f16";
  if (a == TP_DTYPE_E4M3 && b == TP_DTYPE_E4M3) return "e4m3_e4m3";
  if (a == TP_DTYPE_E4M3 && b == TP_DTYPE_E5M2) return "e4m3_e5m2";
  if (a == TP_DTYPE_E5M2 && b == TP_DTYPE_E4M3) return "e5m2_e4m3";
  if (a == TP_DTYPE_E5M2 && b == TP_DTYPE_E5M2) return "e5m2_e5m2";
  return NULL;
}

static const char *d_name(tp_dtype d) {
  switch (d) {
  case TP_DTYPE_BF16: return "bf16";
  case TP_DTYPE_F16: return "f16";
  case TP_DTYPE_F32: return "f32";
  default: return NULL;
  }
}

static int32_t ceil_div(int64_t a, int64_t b) { return (int32_t)((a + b - 1) / b); }

/* D chunks of a tile (128 bytes of D per row each; 176 columns of a 16-bit
 * D make 3, the last 48 columns wide). */
static int32_t tile_chunks(const standard_gpu_plan *g, tp_dtype d) {
  return ceil_div((int64_t)g->tile_n * tp_codec_bits(d), TP_STANDARD_K_BYTES * 8);
}

/* Cluster rows walked together (the raster group). A wave of W clusters
 * then covers r cluster rows by W / r tile columns, and reads r x
 * cluster_m x tile_m rows of A and W / r x tile_n rows of B per k-block
 * out of L2; r = sqrt(W x tile_n / (cluster_m x tile_m)) reads the fewest.
 * At 128 x 256 on 132 SMs that is 16 rows, where 8 were walked before: on
 * the H100, 4096x32768x512 then ran 1.0% (store) and 1.9% (residual)
 * faster, 4096^3's store 0.8%. */
static int32_t raster_rows(int32_t tile_m, int32_t tile_n, int32_t cluster_m, int32_t sm_count) {
  const double clusters = (double)(sm_count / cluster_m);
  const long r = lround(sqrt(clusters * tile_n / ((double)cluster_m * tile_m)));
  return r < 1 ? 1 : (int32_t)r;
}

/* Elements of `dtype` in one 128-byte row of a swizzled tile: a k-block of
 * the operands, a chunk row of D or C. */
static uint32_t row_elems(tp_dtype dtype) { return TP_STANDARD_K_BYTES * 8 / tp_codec_bits(dtype); }

/* Tile shapes with a kernel, and the speed of one full tile of each relative
 * to the widest (H100, bf16 8192^3: 128 wide ran at 733 TFLOP/s, 256 wide at
 * 789; 192 is interpolated). 128 counts as 0.88, not 0.93: in some device
 * calls the 128-wide kernel runs far below its best (8192^3 at 0.71 of the
 * 256-wide speed; 2048 x 7168 x 18432 in 0.90-0.96 ms against 0.74 in
 * others) while 192 and 256 hold (0.72 and 0.75 ms there), so 128 should
 * win only on a clearly better wave fill. The narrowest, 64, serves only
 * shapes whose 128-wide tiles fill less than one wave (few_tiles): bound by
 * memory, where it doubles the CTAs that pull data at little cost in split
 * sums; its speed is what bench/tune.sh measured there against 128 in
 * splits (M <= 128). 64 x 64 (one consumer warpgroup) serves the same
 * shapes where M <= 64 (best_shape), every tile bound by the B it streams:
 * it holds more stages than a 128-row tile whose second A box never loads,
 * and its splits cost half as much (half the partial sums); it counts as
 * slightly slower than 128 x 64, as
 * unsplit at 64 x 7168 x 16384 it ran 2-4% slower (bench/results/). 176
 * (TAIL_WIDTH) is not whole 64-column chunks of D:
 * it exists for a 16-bit D with C absent or in D's dtype, single CTAs, and
 * shapes of at least a wave of tiles (4096 x 2112: 384 tiles, 2.9 waves,
 * where 192 wide makes 2.7); its speed is from one bench/tune.sh run there
 * (0.946 of the 192-wide kernel's time, bf16; 0.948 e4m3). */
typedef struct tile_kind {
  int32_t m, n;
  double speed;
} tile_kind;

static const tile_kind tile_kinds[] = {
    {128, 256, 1.0}, {128, 192, 0.96}, {128, 176, 0.93}, {128, 128, 0.88},
    {128, 64, 0.85}, {64, 64, 0.84},
};
#define TILE_KIND_COUNT (sizeof tile_kinds / sizeof tile_kinds[0])
#define NARROW_WIDTH 64
#define TAIL_WIDTH 176

static bool tile_has_kernel(int32_t tile_m, int32_t tile_n) {
  for (size_t i = 0; i < TILE_KIND_COUNT; ++i)
    if ((tile_m == 0 || tile_kinds[i].m == tile_m) && (tile_n == 0 || tile_kinds[i].n == tile_n))
      return true;
  return false;
}

/* The one width that tiles of `tile_m` rows come in (64 for 64-row tiles),
 * or 0 where there are several (or tile_m is 0). */
static int32_t only_width(int32_t tile_m) {
  int32_t width = 0;
  for (size_t i = 0; i < TILE_KIND_COUNT && tile_m; ++i) {
    if (tile_kinds[i].m != tile_m) continue;
    if (width) return 0;
    width = tile_kinds[i].n;
  }
  return width;
}

/* Consumer warpgroups that work in a tile of tile_m rows: one per A box. */
static int32_t tile_warpgroups(int32_t tile_m) { return tile_m / TP_STANDARD_A_BOX_ROWS; }

/* How well `units` work units of tile `t` keep the SMs busy: whole waves
 * count by how full they are, a single partial wave as full once it
 * reaches SPLIT_SATURATION of the SMs; times the tile's speed, the share of
 * its columns inside N (`used`) and the cost of `splits`. */
static double shape_score(int64_t units, int32_t splits, const tile_kind *t, double used,
                          int32_t sm_count) {
  const int64_t waves = (units + sm_count - 1) / sm_count;
  double fill = (double)units / (double)(waves * sm_count);
  if (waves == 1) {
    fill = (double)units / (SPLIT_SATURATION * sm_count);
    if (fill > 1.0) fill = 1.0;
  }
  return fill * t->speed * used /
         (1.0 + SPLIT_COST * (splits - 1) * t->m * t->n / (128.0 * 128.0));
}

/* The fewest splits that bring `tiles` to SPLIT_SATURATION of the SMs
 * within one wave, each split taking at least MIN_SPLIT_K_BLOCKS k-blocks;
 * 1 when the tiles alone get there. */
static int32_t best_splits(int64_t tiles, int64_t k_blocks, int32_t sm_count) {
  int32_t s = 1;
  while (s < STANDARD_MAX_SPLITS && (double)(tiles * s) < SPLIT_SATURATION * sm_count &&
         tiles * (s + 1) <= sm_count && k_blocks / (s + 1) >= MIN_SPLIT_K_BLOCKS)
    ++s;
  return s;
}

/* A shape with at least a wave of tiles ends, unless its tiles fill whole
 * waves, with a partial wave that leaves SMs idle: 2048 x 7168 x 18432 at
 * 128 x 256 runs 448 tiles in 4 waves of 132, the last 39% full. The tiles
 * of that wave are split s ways instead (the tail), so that it takes about
 * 1/s of a tile's time. Its units start a wave of a grid that is a multiple
 * of s, so no tile's splits straddle the grid's end (the last split of a
 * tile then waits only for CTAs of lower index). The time, in waves of
 * whole tiles, with the tail split s ways (s = 1: not split), and where the
 * split tiles start; HUGE_VAL where the tail does not fit one wave or a
 * split would take fewer than MIN_SPLIT_K_BLOCKS. */
static double tail_split_waves(int64_t tiles, int64_t k_blocks, int32_t sm_count, int32_t s,
                               int64_t *split_from) {
  if (s == 1) {
    *split_from = tiles;
    return (double)((tiles + sm_count - 1) / sm_count);
  }
  const int32_t g = sm_count / s * s; /* the grid; 0 on a GPU of fewer SMs than s */
  if (g == 0) return HUGE_VAL;
  const int64_t full = tiles / g * g, tail = tiles - full;
  if (tail == 0 || tail * s > g || k_blocks / s < MIN_SPLIT_K_BLOCKS) return HUGE_VAL;
  *split_from = full;
  return (double)(full / g) +
         ((double)ceil_div(k_blocks, s) + TAIL_SPLIT_COST_KB * (s - 1)) / (double)k_blocks;
}

/* The tile and its splits that fill whole waves of SMs best, weighted by
 * speed and split cost: for few tiles (less than a wave of 128 x 128) every
 * tile split (`splits` forces that), else the partial last wave's
 * (`tail_splits` forces its split count, 1: none); forced_m and forced_n,
 * when not 0, are the only tile rows and width tried; NARROW_WIDTH only for
 * few tiles, TAIL_WIDTH only where tail_ok and not. */
static void best_shape(int64_t m, int64_t n, int64_t k_blocks, int32_t sm_count, int32_t forced_m,
                       int32_t forced_n, int32_t forced_splits, int32_t forced_tail, bool tail_ok,
                       standard_gpu_plan *g) {
  double best_score = -1.0;
  const bool few_tiles = (int64_t)ceil_div(m, TP_STANDARD_TILE_M) * ceil_div(n, 128) < sm_count;
  for (size_t i = 0; i < TILE_KIND_COUNT; ++i) {
    const tile_kind *t = &tile_kinds[i];
    if ((forced_m && t->m != forced_m) || (forced_n && t->n != forced_n)) continue;
    if (!forced_n && ((t->n == NARROW_WIDTH && !few_tiles) ||
                      (t->n == TAIL_WIDTH && (few_tiles || !tail_ok))))
      continue;
    /* 64-row tiles only where one holds M: over more rows, each B tile
     * would stream into two CTAs, where a 128-row tile streams it once and
     * gets its CTAs from a K split (under the L2 policies of one tile row,
     * operand_policies below). */
    if (!forced_m && t->m < TP_STANDARD_TILE_M && m > t->m) continue;
    const int32_t tiles_n = ceil_div(n, t->n);
    const int64_t tiles = (int64_t)ceil_div(m, t->m) * tiles_n;
    const double used = (double)n / ((double)tiles_n * t->n);
    int32_t splits = 1;
    int64_t split_from = 0;
    double score;
    if (few_tiles || forced_splits) {
      splits = forced_splits ? forced_splits : best_splits(tiles, k_blocks, sm_count);
      score = shape_score(tiles * splits, splits, t, used, sm_count);
    } else {
      /* Forced, the split count holds where the tail fits it; else the
       * tail stays whole. */
      double waves = tail_split_waves(tiles, k_blocks, sm_count, 1, &split_from);
      for (int32_t s = forced_tail ? forced_tail : 2;
           s <= (forced_tail ? forced_tail : STANDARD_MAX_SPLITS); ++s) {
        int64_t from = 0;
        const double w = tail_split_waves(tiles, k_blocks, sm_count, s, &from);
        if (w < waves - 1e-9 || (forced_tail && w < HUGE_VAL)) {
          waves = w;
          splits = s;
          split_from = from;
        }
      }
      score = (double)tiles / (waves * sm_count) * t->speed * used;
    }
    if (score > best_score + 1e-9) {
      best_score = score;
      g->tile_m = t->m;
      g->tile_n = t->n;
      g->splits = splits;
      g->split_from = splits > 1 ? (int32_t)split_from : 0;
    }
  }
}

/* Whether the 176-wide kernels take the problem (TAIL_WIDTH above). */
static bool tail_width_ok(const tp_gemm_desc *desc, const tp_epilogue_plan *epi,
                          int32_t cluster_m) {
  const bool d16 = desc->d.dtype == TP_DTYPE_BF16 || desc->d.dtype == TP_DTYPE_F16;
  return d16 && cluster_m == 1 &&
         (epi->source_dtype == TP_DTYPE_NONE || epi->source_dtype == desc->d.dtype);
}

/* The tile shape and cluster: the INI's where it set them (checked against
 * what the kernels take), the heuristic's elsewhere. */
static tp_status choose_shape(const tpc_tuning *tu, const tp_gemm_desc *desc,
                              const tp_epilogue_plan *epi, const tp_gpu_info *gpu,
                              standard_gpu_plan *g, char *err, size_t errlen) {
  const int32_t k_elems = (int32_t)row_elems(desc->a.dtype);
  /* Tile rows: the INI's, or one 64-row block per consumer warpgroup. */
  const int32_t forced_m = tu->tile_m ? tu->tile_m : tu->consumers * TP_STANDARD_A_BOX_ROWS;
  if (!tile_has_kernel(forced_m, tu->tile_n) || (tu->tile_k && tu->tile_k != k_elems) ||
      (tu->consumers && forced_m != tu->consumers * TP_STANDARD_A_BOX_ROWS)) {
    return tpc_fail(err, errlen, TP_ERR_UNSUPPORTED,
                    "the GPU kernels take tile 128xNx%d with N 64, 128, 176, 192 or 256 (2 "
                    "consumers), or 64x64x%d (1 consumer), for %s operands (the registry asks "
                    "for %dx%dx%d, consumers %d; 0: not set)",
                    k_elems, k_elems, tp_codec_name(desc->a.dtype), tu->tile_m, tu->tile_n,
                    tu->tile_k, tu->consumers);
  }
  const int32_t forced_n = tu->tile_n ? tu->tile_n : only_width(forced_m);
  const int32_t cluster_m = tu->cluster_m ? tu->cluster_m : 1;
  const bool tail_ok = tail_width_ok(desc, epi, cluster_m);
  if (tu->tile_n == TAIL_WIDTH && !tail_ok) {
    return tpc_fail(err, errlen, TP_ERR_UNSUPPORTED,
                    "tile 128x176: the 176-wide kernels take a bf16 or f16 D with C absent or "
                    "of D's dtype, in single CTAs (here D %s, C %s, cluster %dx1)",
                    tp_codec_name(desc->d.dtype), tp_codec_name(epi->source_dtype), cluster_m);
  }
  if ((tu->cluster_m && tu->cluster_m > 2) || (tu->cluster_n && tu->cluster_n != 1)) {
    return tpc_fail(err, errlen, TP_ERR_UNSUPPORTED,
                    "the GPU kernels take clusters 1x1 or 2x1 (the registry asks for cluster "
                    "%dx%d)",
                    tu->cluster_m, tu->cluster_n);
  }
  const int64_t k_blocks = ceil_div(desc->k, k_elems);
  if (tu->splits > k_blocks) {
    return tpc_fail(err, errlen, TP_ERR_UNSUPPORTED,
                    "splits %d: K = %lld has only %lld k-blocks of %d to split", tu->splits,
                    (long long)desc->k, (long long)k_blocks, k_elems);
  }
  if (tu->splits > 1 && tu->cluster_m > 1) {
    return tpc_fail(err, errlen, TP_ERR_UNSUPPORTED,
                    "splits %d with cluster %dx1: the GPU kernels split K only over single CTAs",
                    tu->splits, tu->cluster_m);
  }
  /* 2-CTA clusters (B multicast) stay opt-in: 1-4% slower than single
   * CTAs on the H100 (bench/results/, fourth session). */
  g->cluster_m = cluster_m;
  best_shape(desc->m, desc->n, k_blocks, gpu->sm_count, forced_m, forced_n,
             g->cluster_m > 1 ? 1 : tu->splits, g->cluster_m > 1 ? 1 : tu->tail_splits, tail_ok,
             g);
  g->tiles_m = ceil_div(desc->m, g->tile_m);
  g->tiles_n = ceil_div(desc->n, g->tile_n);
  g->raster_m = raster_rows(g->tile_m, g->tile_n, g->cluster_m, gpu->sm_count);
  const int32_t cluster_rows = ceil_div(g->tiles_m, g->cluster_m);
  g->last_group = (cluster_rows - 1) / g->raster_m;
  g->group_div = tp_fast_div_make((uint32_t)(g->raster_m * g->tiles_n));
  g->rows_div = tp_fast_div_make((uint32_t)g->raster_m);
  g->last_rows_div = tp_fast_div_make((uint32_t)(cluster_rows - g->last_group * g->raster_m));
  g->splits_div = tp_fast_div_make((uint32_t)g->splits);
  const int64_t lead_max = k_blocks / g->splits / SPLIT_LEAD_SHARE;
  g->split_lead =
      g->splits == 1 ? 0 : (int32_t)(lead_max < SPLIT_LEAD_KB ? lead_max : SPLIT_LEAD_KB);
  return TP_OK;
}

/* Split-K's workspace: one counter per split tile and consumer warpgroup
 * (the first counter_bytes), then the partial sums of every split but the
 * last (tile_m x BN f32 each). */
static uint64_t split_tiles(const standard_gpu_plan *g) {
  return (uint64_t)g->tiles_m * (uint64_t)g->tiles_n - (uint64_t)g->split_from;
}

static uint64_t counter_bytes(const standard_gpu_plan *g) {
  const uint64_t counters =
      split_tiles(g) * (uint64_t)tile_warpgroups(g->tile_m) * sizeof(uint32_t);
  return (counters + STANDARD_COUNTER_ALIGN - 1) / STANDARD_COUNTER_ALIGN * STANDARD_COUNTER_ALIGN;
}

static uint64_t workspace_bytes(const standard_gpu_plan *g) {
  if (g->splits == 1) return 0;
  return counter_bytes(g) + split_tiles(g) * (uint64_t)(g->splits - 1) * (uint64_t)g->tile_m *
                                (uint64_t)g->tile_n * sizeof(float);
}

/* The stage contents (A and B k-block tiles, recorded in the payload plan
 * so that it describes what the kernel stages), then the whole layout. */
static tp_status lay_out(const tpc_tuning *tu, tp_payload_plan *plan,
                         const tp_epilogue_plan *epi, const tp_gemm_desc *desc,
                         const tp_gpu_info *gpu, standard_gpu_plan *g, char *err, size_t errlen) {
  const tp_stage_tensor a = {(uint32_t)g->tile_m * TP_STANDARD_K_BYTES, TP_SWIZZLE_128B_ALIGN};
  const tp_stage_tensor b = {(uint32_t)g->tile_n * TP_STANDARD_K_BYTES, TP_SWIZZLE_128B_ALIGN};
  plan->num_tensors = 2;
  plan->tensors[0] = a;
  plan->tensors[1] = b;
  tp_storage_request r = tp_storage_request_make(gpu->smem_per_block);
  r.num_tensors = plan->num_tensors;
  r.tensors[0] = plan->tensors[0];
  r.tensors[1] = plan->tensors[1];
  r.stages = (uint32_t)tu->stages;
  const uint32_t d_bits = tp_codec_bits(desc->d.dtype);
  const uint32_t chunks = (uint32_t)tile_chunks(g, desc->d.dtype);
  r.output_chunk.bytes = (uint32_t)g->tile_m * TP_STANDARD_K_BYTES;
  r.output_chunk.align = TP_SWIZZLE_128B_ALIGN;
  r.output_stages = STANDARD_OUTPUT_STAGES;
  r.output_stages_max = chunks > STANDARD_OUTPUT_STAGES ? chunks : STANDARD_OUTPUT_STAGES;
  if (epi->source_dtype != TP_DTYPE_NONE) {
    /* A C chunk spans D's chunk columns: twice the bytes for f32 C under a
     * 16-bit D, and the output chunk holds it. */
    const uint32_t c_bits = tp_codec_bits(epi->source_dtype);
    if (c_bits > d_bits) r.output_chunk.bytes = r.output_chunk.bytes * c_bits / d_bits;
    r.source_in_output = 1;
    if (c_bits != 32 && c_bits != d_bits) {
      return tpc_fail(err, errlen, TP_ERR_UNSUPPORTED,
                      "the GPU kernels stage C as f32 or as D's dtype, not %s under a %s D",
                      tp_codec_name(epi->source_dtype), tp_codec_name(desc->d.dtype));
    }
  }
  tp_status st = tp_storage_plan(&r, &g->smem);
  if (st != TP_OK) {
    return tpc_fail(err, errlen, st, "%s (%llu bytes needed, %u available)", g->smem.error,
                    (unsigned long long)g->smem.need_bytes, gpu->smem_per_block);
  }
  return TP_OK;
}

/* Which chunks of a tile's C past the ring the main loader stages in one
 * more input stage (standard_params.h): as many as its A and B tiles hold,
 * whole output chunks each; none under an f32 D (the kernel has no room
 * in registers for it there). */
static void stage_c_chunks(const tp_epilogue_plan *epi, const tp_gemm_desc *desc,
                           standard_gpu_plan *g) {
  const uint32_t slot = g->smem.output.bytes;
  const int32_t a_slots = (int32_t)(g->smem.tensors[0].bytes / slot);
  const int32_t slots = a_slots + (int32_t)(g->smem.tensors[1].bytes / slot);
  const int32_t past_ring = tile_chunks(g, desc->d.dtype) - (int32_t)g->smem.source_stages;
  const bool staged = epi->source_dtype != TP_DTYPE_NONE && desc->d.dtype != TP_DTYPE_F32;
  g->c_staged_first = (int32_t)g->smem.source_stages;
  g->c_staged_count = !staged || past_ring <= 0 ? 0 : (past_ring < slots ? past_ring : slots);
  g->c_staged_a_slots = a_slots;
}

tp_status standard_gpu_plan_slot(void *state, const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                                 const tp_epilogue_plan *epi, tp_payload_plan *plan,
                                 tp_gpu_launch *launch, char *err, size_t errlen) {
  const tpc_tuning *tu = state;
  const char *ab = ab_name(desc->a.dtype, desc->b.dtype), *d = d_name(desc->d.dtype);
  if (ab == NULL || d == NULL) {
    return tpc_fail(err, errlen, TP_ERR_UNSUPPORTED, "no GPU kernel for %s x %s -> %s",
                    tp_codec_name(desc->a.dtype), tp_codec_name(desc->b.dtype),
                    tp_codec_name(desc->d.dtype));
  }
  standard_gpu_plan g;
  memset(&g, 0, sizeof g);
  tp_status st = choose_shape(tu, desc, epi, gpu, &g, err, errlen);
  if (st == TP_OK) st = lay_out(tu, plan, epi, desc, gpu, &g, err, errlen);
  if (st != TP_OK) return st;
  stage_c_chunks(epi, desc, &g);

  plan->tile.tile_m = g.tile_m;
  plan->tile.tile_n = g.tile_n;
  plan->tile.tile_k = (int32_t)row_elems(desc->a.dtype);
  plan->tile.stages = (int32_t)g.smem.stages;
  plan->tile.cluster_m = g.cluster_m;
  plan->tile.cluster_n = 1;
  plan->tile.consumers = tile_warpgroups(g.tile_m);
  plan->k_blocks = ceil_div(desc->k, plan->tile.tile_k);

  memset(launch, 0, sizeof *launch);
  snprintf(launch->kernel, sizeof launch->kernel, "tp_standard_%s_%s_%dx%d_c%d", ab, d, g.tile_m,
           g.tile_n, g.cluster_m);
  /* One CTA per work unit up to a CTA per SM. The kernel gives the splits
   * of a tile to consecutive CTAs of one wave, the last of them waiting for
   * the others: the grid is a whole number of tiles' splits (and a tail's
   * split tiles start a wave of it), so that a CTA only ever waits for CTAs
   * of lower index (already resident). */
  const int64_t tiles = (int64_t)ceil_div(g.tiles_m, g.cluster_m) * g.tiles_n;
  const int64_t units = g.split_from + (tiles - g.split_from) * g.splits;
  const int64_t slots = gpu->sm_count / g.cluster_m / g.splits * g.splits;
  launch->grid[0] = (uint32_t)((units < slots ? units : slots) * g.cluster_m);
  launch->grid[1] = launch->grid[2] = 1;
  launch->block[0] = TP_STANDARD_THREADS;
  launch->block[1] = launch->block[2] = 1;
  launch->cluster[0] = (uint32_t)g.cluster_m;
  launch->cluster[1] = launch->cluster[2] = 1;
  launch->smem_bytes = g.smem.total_bytes;
  launch->params_size = sizeof(tp_standard_params);
  launch->epilogue_args_offset = offsetof(tp_standard_params, epilogue);
  launch->workspace_bytes = workspace_bytes(&g);
  memcpy(plan->priv, &g, sizeof g);
  return TP_OK;
}

/* The L2 cache policies of the operand loads. With one tile row (M within
 * a tile, decode-sized shapes, bound by the bytes of B) each k-block of B
 * is read by one CTA and never again, while every CTA reads the same few
 * rows of A: B's lines go first (EVICT_FIRST), so that A's stay (EVICT_LAST)
 * and B's stream does not push out what is read again. Elsewhere both are
 * read by several tiles and keep the default. On the H100 (bench/ab.sh,
 * thirteenth session, store): bf16 64 x 4096 x 7168 30.0 -> 28.1 us, 64 x
 * 7168 x 16384 89.1 -> 83.1; e4m3 64 x 7168 x 16384 48.7 -> 44.7. */
static void operand_policies(const standard_gpu_plan *g, uint64_t *a, uint64_t *b) {
  const bool one_row = g->tiles_m == 1;
  *a = one_row ? TP_TMA_L2_EVICT_LAST : TP_TMA_L2_EVICT_NORMAL;
  *b = one_row ? TP_TMA_L2_EVICT_FIRST : TP_TMA_L2_EVICT_NORMAL;
}

/* A descriptor of box_rows x one 128-byte swizzled row, or, with tail_cols
 * set, of box_rows x tail_cols unswizzled (a 176-wide tile's last chunk). */
static tp_status encode(const tp_host_api *host, tp_tma_desc *out, tp_dtype dtype, const void *data,
                        int64_t rows, int64_t cols, int64_t ld, uint32_t box_rows,
                        uint32_t tail_cols, char *err, size_t errlen) {
  tp_tma_2d r;
  r.dtype = dtype;
  r.global = data;
  r.rows = rows;
  r.cols = cols;
  r.row_stride = ld;
  r.box_rows = box_rows;
  r.box_cols = tail_cols ? tail_cols : row_elems(dtype);
  r.swizzle = tail_cols ? 0 : 128;
  return host->tma_encode_2d(out, &r, err, errlen);
}

tp_status standard_gpu_args_slot(const tp_payload_plan *plan, const tp_epilogue_plan *epi,
                                 const tp_gemm_desc *desc, const tp_host_api *host, void *params,
                                 char *err, size_t errlen) {
  standard_gpu_plan g;
  memcpy(&g, plan->priv, sizeof g);
  tp_standard_params *p = params;
  tp_status st =
      encode(host, &p->a, desc->a.dtype, desc->a.data, desc->m, desc->k, desc->a.stride[0],
             TP_STANDARD_A_BOX_ROWS, 0, err, errlen);
  if (st == TP_OK) {
    st = encode(host, &p->b, desc->b.dtype, desc->b.data, desc->n, desc->k, desc->b.stride[0],
                (uint32_t)(g.tile_n / g.cluster_m), 0, err, errlen);
  }
  /* D's columns up to the last full 16-byte granule of a row go through TMA
   * (see standard_params.h); none when a row is shorter than 16 bytes. */
  const int64_t granule = 128 / tp_codec_bits(desc->d.dtype);
  const int64_t n_tma = desc->n / granule * granule;
  /* A 176-wide tile's last chunk: 48 columns of a 16-bit D (and C). */
  const uint32_t tail_cols = (uint32_t)(g.tile_n % (int32_t)row_elems(desc->d.dtype));
  if (st == TP_OK && n_tma > 0) {
    st = encode(host, &p->d, desc->d.dtype, desc->d.data, desc->m, n_tma, desc->d.stride[0],
                (uint32_t)g.tile_m, 0, err, errlen);
  }
  if (st == TP_OK && n_tma > 0 && tail_cols) {
    st = encode(host, &p->d_tail, desc->d.dtype, desc->d.data, desc->m, n_tma,
                desc->d.stride[0], (uint32_t)g.tile_m, tail_cols, err, errlen);
  }
  if (st == TP_OK && epi->source_dtype != TP_DTYPE_NONE) {
    st = encode(host, &p->c, desc->c.dtype, desc->c.data, desc->m, desc->n, desc->c.stride[0],
                (uint32_t)g.tile_m, 0, err, errlen);
  }
  if (st == TP_OK && epi->source_dtype != TP_DTYPE_NONE && tail_cols) {
    st = encode(host, &p->c_tail, desc->c.dtype, desc->c.data, desc->m, desc->n,
                desc->c.stride[0], (uint32_t)g.tile_m, tail_cols, err, errlen);
  }
  if (st != TP_OK) return st;
  p->smem = g.smem;
  p->m = (int32_t)desc->m;
  p->n = (int32_t)desc->n;
  p->k = (int32_t)desc->k;
  p->tiles_m = g.tiles_m;
  p->tiles_n = g.tiles_n;
  p->k_blocks = (int32_t)plan->k_blocks;
  p->raster_m = g.raster_m;
  p->last_group = g.last_group;
  p->group_div = g.group_div;
  p->rows_div = g.rows_div;
  p->last_rows_div = g.last_rows_div;
  p->splits_div = g.splits_div;
  p->n_tma = (int32_t)n_tma;
  p->d_data = desc->d.data;
  p->ldd = desc->d.stride[0];
  p->splits = g.splits;
  p->split_from = g.split_from;
  p->split_lead = g.split_lead;
  p->c_staged_first = g.c_staged_first;
  p->c_staged_count = g.c_staged_count;
  p->c_staged_a_slots = g.c_staged_a_slots;
  operand_policies(&g, &p->a_policy, &p->b_policy);
  if (g.splits > 1) {
    if (plan->workspace == NULL)
      return tpc_fail(err, errlen, TP_ERR_INTERNAL, "split-K plan without its workspace");
    p->counters = plan->workspace;
    p->partials = (float *)((unsigned char *)plan->workspace + counter_bytes(&g));
  }
  return TP_OK;
}
