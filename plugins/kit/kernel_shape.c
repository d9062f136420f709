/* plugins/kit/kernel_shape.c: step 1 of the structured kernel's
 * planner, the tile, the K split, the cluster and the tile walk
 * (tilepipe/plugin/kernel/shape.h, which says the heuristic in order). Every
 * candidate tile of the instance table is scored by how well its work
 * units fill the SMs' waves, its speed, the share of its columns inside N
 * and what its split costs; the best one wins, ties to the table's order. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "tilepipe/plugin/kit/error.h"
#include "tilepipe/plugin/dtype_codec.h"
#include "tilepipe/plugin/kernel/instances.h"
#include "tilepipe/plugin/kernel/operands.h"
#include "tilepipe/plugin/kernel/schedule.h"
#include "tilepipe/plugin/kernel/shape.h"
#include "tilepipe/plugin/kernel/tiles.h"

/* The heuristic's figures (set from bench/tune.sh and bench/ab.sh runs on
 * the H100; docs/kernel.md). */
#define TP_KERNEL_MIN_SPLIT_K_BLOCKS 4  /* the fewest k-blocks of a split */
#define TP_KERNEL_SPLIT_SATURATION 0.85 /* share of the SMs few tiles need busy */
/* The cost of each split beyond the first, per 128 x 128 of tile, relative
 * to an unsplit tile: the partial sums it writes and the last split reads,
 * and the wait for them. Where the operands enter the SMs at least
 * L2_BOUND_REREADS times (rereads), so that a wider tile, which reads A
 * fewer times, saves L2 traffic, it holds for splits of up to
 * SPLIT_FULL_COST_KB k-blocks and weighs less in proportion beyond (a
 * longer split pays it over more time), and each split past the second
 * costs SPLIT_EXTRA_COST of it (the wait is there from two splits on);
 * elsewhere B streams from DRAM whatever the width, and every split costs
 * it whole (docs/kernel.md, "Split-K"). */
#define TP_KERNEL_SPLIT_COST 0.15
#define TP_KERNEL_SPLIT_FULL_COST_KB 16
#define TP_KERNEL_SPLIT_EXTRA_COST 0.5
#define TP_KERNEL_L2_BOUND_REREADS 4.0
/* A tail split's cost beyond the first, in k-blocks of time. */
#define TP_KERNEL_TAIL_SPLIT_COST_KB 16.0
/* The last split of a tile is TP_KERNEL_SPLIT_LEAD_KB k-blocks longer for
 * every other split, at most 1/TP_KERNEL_SPLIT_LEAD_SHARE of a split. */
#define TP_KERNEL_SPLIT_LEAD_KB 4
#define TP_KERNEL_SPLIT_LEAD_SHARE 4
/* Stream-K only where the rows of A and B hold at most this many bytes of
 * K: CTAs sharing a tile row or column read it at different k, and past
 * this their reads no longer meet in L2 (docs/kernel.md, "Stream-K"). */
#define TP_KERNEL_STREAM_MAX_ROW_BYTES 40960
/* Widths up to this one are narrow: only for shapes of few tiles in one
 * tile row. */
#define TP_KERNEL_NARROW_WIDTH 64

static int32_t ceil_div(int64_t a, int64_t b) { return (int32_t)((a + b - 1) / b); }

/* Whether a tile of width n is not whole chunks of a D of d_bits (a tail
 * chunk). */
static bool has_tail(int32_t n, uint32_t d_bits) {
  return n % (int32_t)tp_kernel_row_elems(d_bits) != 0;
}

/* Cluster rows walked together (the raster group). A wave of W clusters
 * then covers r cluster rows by W / r tile columns, and reads r x
 * cluster_m x tile_m rows of A and W / r x tile_n rows of B per k-block
 * out of L2; r = sqrt(W x tile_n / (cluster_m x tile_m)) reads the fewest. */
static int32_t raster_rows(int32_t tile_m, int32_t tile_n, int32_t cluster_m, int32_t sm_count) {
  const double clusters = (double)(sm_count / cluster_m);
  const long r = lround(sqrt(clusters * tile_n / ((double)cluster_m * tile_m)));
  return r < 1 ? 1 : (int32_t)r;
}

/* How many times, on average, each byte of A and B enters an SM, in
 * 128 x 128 tiles: A once per tile column, B once per tile row. */
static double rereads(int64_t m, int64_t n) {
  return (double)(m * ceil_div(n, 128) + n * ceil_div(m, 128)) / (double)(m + n);
}

/* Whether M x N makes fewer 128 x 128 tiles than the GPU has SMs: a shape
 * bound by memory, whose tiles split K rather than fill waves. */
static bool few_tiles(int64_t m, int64_t n, int32_t sm_count) {
  return (int64_t)ceil_div(m, 128) * ceil_div(n, 128) < sm_count;
}

/* Whether the rows of A and B lie whole 128-byte lines apart. Where they do
 * not, each row of a k-block's TMA box spans two L2 lines, and the kernels
 * run out of L2 bandwidth before the tensor cores do (docs/kernel.md,
 * "Choosing the tile"). */
static bool rows_on_lines(const tp_gemm_desc *desc) {
  const int64_t a = desc->a.stride[0] * tp_codec_bits(desc->a.dtype) / 8;
  const int64_t b = desc->b.stride[0] * tp_codec_bits(desc->b.dtype) / 8;
  return a % TP_KERNEL_ROW_BYTES == 0 && b % TP_KERNEL_ROW_BYTES == 0;
}

/* How well `units` work units of tile `t` keep the SMs busy: whole waves
 * count by how full they are, a single partial wave as full once it
 * reaches SPLIT_SATURATION of the SMs; times the tile's speed, the share of
 * its columns inside N (`used`) and the cost of `splits` of `k_blocks`
 * (`l2_bound`: a shape of few tiles whose operands enter the SMs at
 * least L2_BOUND_REREADS times, rereads). */
static double shape_score(int64_t units, int32_t splits, int64_t k_blocks, bool l2_bound,
                          const tp_kernel_instance *t, double used, int32_t sm_count) {
  const int64_t waves = (units + sm_count - 1) / sm_count;
  double fill = (double)units / (double)(waves * sm_count);
  if (waves == 1) {
    fill = (double)units / (TP_KERNEL_SPLIT_SATURATION * sm_count);
    if (fill > 1.0) fill = 1.0;
  }
  const double split_kb = (double)k_blocks / splits;
  const double length = l2_bound && split_kb > TP_KERNEL_SPLIT_FULL_COST_KB
                            ? TP_KERNEL_SPLIT_FULL_COST_KB / split_kb
                            : 1.0;
  const double per_split =
      TP_KERNEL_SPLIT_COST * t->tile_m * t->tile_n / (128.0 * 128.0) * length;
  const double extra = l2_bound ? TP_KERNEL_SPLIT_EXTRA_COST : 1.0;
  const double cost = splits > 1 ? per_split * (1.0 + extra * (splits - 2)) : 0.0;
  return fill * t->speed * used / (1.0 + cost);
}

/* The fewest splits that bring `tiles` to SPLIT_SATURATION of the SMs
 * within one wave, each split taking at least MIN_SPLIT_K_BLOCKS k-blocks;
 * 1 when the tiles alone get there. */
static int32_t best_splits(int64_t tiles, int64_t k_blocks, int32_t sm_count) {
  int32_t s = 1;
  while (s < TP_KERNEL_MAX_SPLITS && (double)(tiles * s) < TP_KERNEL_SPLIT_SATURATION * sm_count &&
         tiles * (s + 1) <= sm_count && k_blocks / (s + 1) >= TP_KERNEL_MIN_SPLIT_K_BLOCKS)
    ++s;
  return s;
}

/* A shape with at least a wave of tiles ends, unless its tiles fill whole
 * waves, with a partial wave that leaves SMs idle. The tiles of that wave
 * are split s ways instead (the tail), so that it takes about 1/s of a
 * tile's time. Its units start a wave of a grid that is a multiple of s,
 * so no tile's splits straddle the grid's end. The time, in waves of whole
 * tiles, with the tail split s ways (s = 1: not split), and where the
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
  if (tail == 0 || tail * s > g || k_blocks / s < TP_KERNEL_MIN_SPLIT_K_BLOCKS) return HUGE_VAL;
  *split_from = full;
  return (double)(full / g) +
         ((double)ceil_div(k_blocks, s) + TP_KERNEL_TAIL_SPLIT_COST_KB * (s - 1)) /
             (double)k_blocks;
}

/* Stream-K instead: the whole waves of tiles, then every CTA an equal share
 * of the remaining tiles' k-blocks (a tile's k-blocks may fall to several
 * CTAs, whose partial sums meet as in split-K). The time in waves of whole
 * tiles, a split's cost counted for each share a tile's k-blocks may
 * spill into (the CTA that adds a tile up reads that many partial sums),
 * and where the stream's tiles start. HUGE_VAL without a partial wave,
 * where a share would be under MIN_SPLIT_K_BLOCKS, or where the stream's
 * k-blocks times the grid reach 2^31 (the kernel's arithmetic). */
static double stream_waves(int64_t tiles, int64_t k_blocks, int32_t sm_count,
                           int64_t *split_from) {
  const int64_t full = tiles / sm_count * sm_count, tail = tiles - full;
  const int64_t iters = tail * k_blocks;
  if (tail == 0 || iters / sm_count < TP_KERNEL_MIN_SPLIT_K_BLOCKS ||
      iters * sm_count >= ((int64_t)1 << 31))
    return HUGE_VAL;
  *split_from = full;
  const double share = (double)iters / sm_count;
  return (double)(full / sm_count) +
         (share + TP_KERNEL_TAIL_SPLIT_COST_KB * ceil((double)k_blocks / share)) /
             (double)k_blocks;
}

/* What the search for the best tile takes beyond the plan's filters (its
 * cluster, D, widest tile and width block) and k-blocks. */
typedef struct shape_search {
  int64_t m, n;
  int32_t sm_count;
  int32_t forced_m, forced_n; /* the only tile rows and width tried; 0: any */
  int32_t forced_splits;      /* every tile split so many ways; 0: the heuristic's */
  int32_t forced_tail;        /* the last wave's split count (1: none); 0: the heuristic's */
  int32_t stream_k;           /* TP_KERNEL_STREAM_ON / _OFF forces it; 0: the heuristic's */
  bool stream_ok;             /* rows short enough for the heuristic's stream-K */
  bool c_as_d;                /* C absent or in D's dtype: tail-chunk widths allowed */
  bool on_lines;              /* rows on 128-byte lines: wide tail-chunk widths allowed */
} shape_search;

/* The tile and its splits that fill whole waves of SMs best, weighted by
 * speed and split cost, into kp (tile_m stays 0 where no tile suits): for
 * few tiles every tile split, else the partial last wave's, split or as
 * stream-K. Narrow widths only for few tiles in one tile row, a tail-chunk
 * width only where C (if any) comes in D's dtype and, if it is not narrow,
 * only for many tiles whose rows lie on lines. */
static void best_shape(tp_kernel_plan *kp, const shape_search *s) {
  size_t count;
  const tp_kernel_instance *all = tp_kernel_instances(&count);
  const int64_t k_blocks = kp->k_blocks;
  const int32_t sm_count = s->sm_count;
  double best_score = -1.0;
  const bool few = few_tiles(s->m, s->n, sm_count);
  const bool l2_bound = few && rereads(s->m, s->n) >= TP_KERNEL_L2_BOUND_REREADS;
  for (size_t i = 0; i < count; ++i) {
    const tp_kernel_instance *t = &all[i];
    if (!tp_kernel_instance_serves(t, kp)) continue;
    if ((s->forced_m && t->tile_m != s->forced_m) || (s->forced_n && t->tile_n != s->forced_n))
      continue;
    const bool tail = has_tail(t->tile_n, tp_codec_bits(kp->d_dtype));
    /* Narrow widths only where their tiles are few and one tile row holds
     * M (or where the INI asks for 64-row tiles, which are all narrow):
     * over more rows, each column of narrow tiles reads all of A again,
     * where a wider tile's K split reads it once per column. A wide tail
     * width (144 to 208) only where many tiles need the waves it fills. */
    const bool narrow = t->tile_n <= TP_KERNEL_NARROW_WIDTH;
    const bool narrow_ok = (few && s->m <= t->tile_m) || s->forced_m == TP_KERNEL_WARPGROUP_ROWS;
    /* Transposed tiles are all narrow, and only one that holds the tokens
     * (A's rows, N here) in one tile column: each tile of B (M here) is
     * then read once, whatever the width. */
    if (t->transposed && t->tile_n < s->n) continue;
    if (!s->forced_n && !t->transposed &&
        ((narrow && !narrow_ok) || (tail && (!s->c_as_d || (!narrow && (few || !s->on_lines))))))
      continue;
    /* 64-row tiles only where one holds M: over more rows, each B tile
     * would stream into two CTAs, where a 128-row tile streams it once and
     * gets its CTAs from a K split. */
    if (!s->forced_m && t->tile_m < 128 && s->m > t->tile_m) continue;
    const int32_t tiles_n = ceil_div(s->n, t->tile_n);
    const int64_t tiles = (int64_t)ceil_div(s->m, t->tile_m) * tiles_n;
    const double used = (double)s->n / ((double)tiles_n * t->tile_n);
    int32_t splits = 1;
    int64_t split_from = 0;
    bool stream = false;
    double score;
    if (few || s->forced_splits) {
      splits = s->forced_splits ? s->forced_splits : best_splits(tiles, k_blocks, sm_count);
      score = shape_score(tiles * splits, splits, k_blocks, l2_bound, t, used, sm_count);
      /* Stream-K over few tiles only when the INI asks for it. */
      if (s->stream_k == TP_KERNEL_STREAM_ON && !s->forced_splits &&
          stream_waves(tiles, k_blocks, sm_count, &split_from) < HUGE_VAL) {
        splits = 1;
        stream = true;
      }
    } else {
      /* Forced, the split count holds where the tail fits it; else the
       * tail stays whole. */
      double waves = tail_split_waves(tiles, k_blocks, sm_count, 1, &split_from);
      for (int32_t ts = s->forced_tail ? s->forced_tail : 2;
           ts <= (s->forced_tail ? s->forced_tail : TP_KERNEL_MAX_SPLITS); ++ts) {
        int64_t from = 0;
        const double w = tail_split_waves(tiles, k_blocks, sm_count, ts, &from);
        if (w < waves - 1e-9 || (s->forced_tail && w < HUGE_VAL)) {
          waves = w;
          splits = ts;
          split_from = from;
        }
      }
      /* Stream-K by the heuristic over more than one tile row (one holding
       * M is bound by memory, which an even share does not lessen) and
       * rows of A and B short enough (stream_ok). */
      int64_t from = 0;
      const bool stream_try = s->stream_k == TP_KERNEL_STREAM_ON ||
                              (s->stream_k == 0 && s->stream_ok && s->m > t->tile_m);
      const double w = !stream_try || s->forced_tail
                           ? HUGE_VAL
                           : stream_waves(tiles, k_blocks, sm_count, &from);
      if (w < HUGE_VAL && (w < waves - 1e-9 || s->stream_k == TP_KERNEL_STREAM_ON)) {
        waves = w;
        splits = 1;
        split_from = from;
        stream = true;
      }
      score = (double)tiles / (waves * sm_count) * t->speed * used;
    }
    if (score > best_score + 1e-9) {
      best_score = score;
      kp->tile_m = t->tile_m;
      kp->tile_n = t->tile_n;
      /* Under stream-K, plan_shape sets splits from the stream's shares. */
      kp->splits = splits;
      kp->split_from = splits > 1 || stream ? (int32_t)split_from : 0;
      kp->stream_k = stream;
    }
  }
}

/* The tile walk of the chosen tile: tile counts, raster groups, stream-K's
 * shares and the split lead (tilepipe/plugin/kernel/schedule.h); fails where the
 * kernel's 32-bit unit count would not hold the work units. */
static tp_status plan_walk(tp_kernel_plan *kp, const tp_gemm_desc *desc, int32_t sm_count,
                           char *err, size_t errlen) {
  kp->a_rows = TP_KERNEL_WARPGROUP_ROWS;
  kp->tiles_m = ceil_div(desc->m, kp->tile_m);
  kp->tiles_n = ceil_div(desc->n, kp->tile_n);
  const int32_t cluster_rows = tp_schedule_cluster_rows(kp->tiles_m, kp->cluster_m);
  const int64_t units =
      TP_SCHEDULE_UNITS((int64_t)cluster_rows * kp->tiles_n, (int64_t)kp->split_from, kp->splits);
  if (units > INT32_MAX) {
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "%lldx%lld in tiles of %dx%d, split %d ways, makes %lld work units: the GPU "
                       "kernels count them in 31 bits",
                       (long long)desc->m, (long long)desc->n, kp->tile_m, kp->tile_n, kp->splits,
                       (long long)units);
  }
  kp->raster_m = raster_rows(kp->tile_m, kp->tile_n, kp->cluster_m, sm_count);
  kp->last_group = tp_schedule_last_group(cluster_rows, kp->raster_m);
  kp->group_div = tp_fast_div_make((uint32_t)(kp->raster_m * kp->tiles_n));
  kp->rows_div = tp_fast_div_make((uint32_t)kp->raster_m);
  kp->last_rows_div = tp_fast_div_make((uint32_t)tp_schedule_last_rows(cluster_rows, kp->raster_m));
  if (kp->stream_k) {
    /* The grid is every SM; splits the most CTAs one tile's k-blocks fall
     * to, for the workspace's slots (the stream's k-blocks times the grid
     * stay below 2^31: stream_waves). */
    const int32_t tiles = cluster_rows * kp->tiles_n, kb = kp->k_blocks;
    const int32_t iters = (tiles - kp->split_from) * kb;
    kp->stream_iters = (uint32_t)iters;
    kp->stream_div = tp_fast_div_make((uint32_t)iters);
    kp->grid_div = tp_fast_div_make((uint32_t)sm_count);
    kp->splits = 1;
    for (int32_t t = 0; t < tiles - kp->split_from; ++t) {
      const int32_t ctas = tp_schedule_stream_owner(kp->stream_div, t * kb + kb - 1, sm_count) -
                           tp_schedule_stream_owner(kp->stream_div, t * kb, sm_count) + 1;
      if (ctas > kp->splits) kp->splits = ctas;
    }
  }
  kp->k_blocks_div = tp_fast_div_make((uint32_t)kp->k_blocks);
  kp->splits_div = tp_fast_div_make((uint32_t)kp->splits);
  const int64_t lead_max = kp->k_blocks / kp->splits / TP_KERNEL_SPLIT_LEAD_SHARE;
  kp->split_lead = kp->splits == 1 || kp->stream_k
                       ? 0
                       : (int32_t)(lead_max < TP_KERNEL_SPLIT_LEAD_KB ? lead_max
                                                                       : TP_KERNEL_SPLIT_LEAD_KB);
  return TP_OK;
}

tp_status tp_kernel_plan_shape(tp_kernel_plan *kp, const tp_kernel_request *rq, char *err,
                               size_t errlen) {
  tp_status st = tp_kernel_request_check(rq, err, errlen);
  if (st != TP_OK) return st;
  if (kp == NULL) {
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT, "tp_kernel_plan_shape: no plan");
  }
  memset(kp, 0, sizeof *kp);
  tp_gemm_desc view;
  tp_kernel_request_view(rq, &view);
  const tp_gemm_desc *desc = &view;
  kp->transposed = rq->transposed;
  const tp_kernel_tuning *tu = rq->tuning;
  const tp_gpu_info *gpu = rq->gpu;
  const tp_dtype source_dtype = rq->epilogue->source_dtype;
  const uint32_t a_bits = tp_codec_bits(desc->a.dtype), b_bits = tp_codec_bits(desc->b.dtype);
  if (a_bits == 0 || b_bits == 0) {
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED, "no GPU kernel takes %s x %s operands",
                       tp_codec_name(desc->a.dtype), tp_codec_name(desc->b.dtype));
  }
  const int32_t k_elems =
      rq->k_elems ? rq->k_elems : (int32_t)tp_kernel_operand_k_elems(a_bits, b_bits);
  const int32_t k_group = rq->k_group ? rq->k_group : 1;
  kp->d_dtype = desc->d.dtype;
  kp->max_tile_n = rq->max_tile_n ? rq->max_tile_n : TP_KERNEL_MAX_TILE_N;
  kp->n_block = rq->n_block;
  kp->cluster_m = 1;
  if (tp_kernel_instance_find(kp, 0, 0) == NULL) {
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "no GPU kernel writes a %s D (bf16, f16 or f32)",
                       tp_codec_name(desc->d.dtype));
  }
  kp->source_dtype = source_dtype;
  kp->k_group = k_group;
  kp->k_elems = k_elems * k_group;
  kp->k_blocks = ceil_div(desc->k, kp->k_elems);
  if ((tu->cluster_m && tu->cluster_m > 2) || (tu->cluster_n && tu->cluster_n != 1)) {
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "the GPU kernels take clusters 1x1 or 2x1 (the registry asks for "
                       "cluster %dx%d)",
                       tu->cluster_m, tu->cluster_n);
  }
  kp->cluster_m = tu->cluster_m ? tu->cluster_m : 1;
  /* Rows off the L2 lines (rows_on_lines) call for the tiles that read
   * the least per FLOP: no tail-chunk width (best_shape) and, for 1-byte
   * operands, which the tensor cores consume twice as fast, B shared
   * through 2-CTA clusters; not where the INI sets the cluster or a split,
   * nor on shapes of few tiles (those split K, and clusters do not). */
  const bool on_lines = rows_on_lines(desc);
  if (!on_lines && !tu->cluster_m && !tu->splits && !tu->tail_splits && a_bits == 8 &&
      b_bits == 8 && !few_tiles(desc->m, desc->n, gpu->sm_count)) {
    kp->cluster_m = 2;
    if (tp_kernel_instance_find(kp, tu->tile_m, tu->tile_n) == NULL) kp->cluster_m = 1;
  }
  if (tp_kernel_instance_find(kp, tu->tile_m, tu->tile_n) == NULL ||
      (tu->tile_k && tu->tile_k != k_elems)) {
    char tiles[160];
    tp_kernel_tile_list(tiles, sizeof tiles, kp);
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "the GPU kernels for a %s D in clusters of %d take tiles (MxN) %s, K %d "
                       "(the registry asks for %dx%dx%d; 0: not set)",
                       tp_codec_name(kp->d_dtype), kp->cluster_m, tiles, k_elems, tu->tile_m,
                       tu->tile_n, tu->tile_k);
  }
  const bool c_as_d = source_dtype == TP_DTYPE_NONE || source_dtype == desc->d.dtype;
  if (tu->tile_n && has_tail(tu->tile_n, tp_codec_bits(kp->d_dtype)) && !c_as_d) {
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "tile width %d is not whole chunks of a %s D: its kernels take C only in "
                       "D's dtype (here C is %s)",
                       tu->tile_n, tp_codec_name(kp->d_dtype), tp_codec_name(source_dtype));
  }
  if (tu->splits > kp->k_blocks) {
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "splits %d: K = %lld has only %d k-blocks of %d to split", tu->splits,
                       (long long)desc->k, kp->k_blocks, kp->k_elems);
  }
  if (tu->splits > 1 && tu->cluster_m > 1) {
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "splits %d with cluster %dx1: the GPU kernels split K only over single CTAs",
                       tu->splits, tu->cluster_m);
  }
  const bool clustered = kp->cluster_m > 1;
  const shape_search search = {
      .m = desc->m,
      .n = desc->n,
      .sm_count = gpu->sm_count,
      .forced_m = tu->tile_m,
      .forced_n = tu->tile_n ? tu->tile_n : tp_kernel_only_width(kp, tu->tile_m),
      .forced_splits = clustered ? 1 : tu->splits,
      .forced_tail = clustered ? 1 : tu->tail_splits,
      .stream_k = clustered ? TP_KERNEL_STREAM_OFF : tu->stream_k,
      .stream_ok = desc->k * a_bits / 8 <= TP_KERNEL_STREAM_MAX_ROW_BYTES &&
                   desc->k * b_bits / 8 <= TP_KERNEL_STREAM_MAX_ROW_BYTES,
      .c_as_d = c_as_d,
      .on_lines = on_lines,
  };
  best_shape(kp, &search);
  if (kp->tile_m == 0) {
    char tiles[160];
    tp_kernel_tile_list(tiles, sizeof tiles, kp);
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "none of the GPU kernels' tiles (MxN) %s suits %lldx%lld (narrow widths "
                       "serve only shapes of few tiles in one tile row)",
                       tiles, (long long)desc->m, (long long)desc->n);
  }
  return plan_walk(kp, desc, gpu->sm_count, err, errlen);
}
