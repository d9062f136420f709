/* tilepipe/kernel/plan.h: planning a GEMM on the structured kernel.
 *
 * A payload's gpu_plan slot picks its kernel with three calls, in order:
 *
 *   tp_kernel_plan_shape    the tile (tilepipe/kernel/tiles.h), the K split,
 *                           the cluster and the tile walk, from the problem,
 *                           the GPU and the INI's tuning keys;
 *   (the payload lists what one stage holds for that tile in its
 *    tp_payload_plan: its A and B tiles, any per-stage extras)
 *   tp_kernel_plan_lay_out  shared memory through the core's storage
 *                           planner: those stage tensors, as many stages as
 *                           fit, the output chunk ring holding C, and which
 *                           chunks of C come through one more input stage;
 *   tp_kernel_plan_launch   the kernel's name, grid, block, cluster, shared
 *                           memory and device workspace (tp_gpu_launch),
 *                           and the tile configuration (tp_payload_plan).
 *
 * and keeps the tp_kernel_plan in its plan's private bytes
 * (tp_kernel_plan_store) for gpu_args, which fills the kernel's parameters
 * with tilepipe/kernel/args.h. A mainloop whose stage holds A and B alone
 * makes the three calls through one, tp_kernel_plan_operands; one with
 * per-stage extras calls tp_kernel_plan_shape, tp_kernel_plan_operand_tensors,
 * adds its tensors, and calls tp_kernel_plan_finish. Header only (static
 * inline, C11): a plugin never links libtilepipe, and its host code and its
 * device code then follow the same version of the skeleton.
 *
 * The heuristic, in order (each choice can be forced by the INI's tuning
 * keys, within what the kernels take; docs/kernel.md, "Choosing the tile",
 * has the measurements behind each figure):
 *   - the width and the K split together: the pair whose work units
 *     (tiles x splits) fill the SMs' waves best, weighted by how fast a
 *     full tile of that width runs (SPEED in tiles.h), by the share of its
 *     columns inside N and by what the split costs. Shapes with fewer
 *     128 x 128 tiles than SMs (few tiles: bound by memory) may also take
 *     narrow widths where one tile row holds M (128 x 64; 64 x 64 and, for
 *     a 16-bit D with C absent or in its dtype, 64 x 48 where M <= 64),
 *     and split every
 *     tile's K when the tiles alone occupy fewer than SPLIT_SATURATION of
 *     the SMs, into the fewest splits that reach it; other shapes may
 *     split the tiles of their partial last wave (tail splits) and may
 *     take a width that is not whole chunks of D (144, 160, 176, 208);
 *   - single CTAs: 2-CTA clusters (B multicast) when the INI asks, or for
 *     1-byte operands whose rows are not whole 128-byte lines apart
 *     (tp_kernel_rows_on_lines), on shapes of more tiles than SMs; such
 *     rows also rule out the tail-chunk width;
 *   - stages: as many as the shared memory holds;
 *   - tiles walked in groups of raster_m cluster rows, for L2 reuse; with
 *     one tile row, B's loads evict first and A's last. */
#ifndef TILEPIPE_KERNEL_PLAN_H
#define TILEPIPE_KERNEL_PLAN_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "tilepipe/dtype_codec.h"
#include "tilepipe/kernel/params.h"
#include "tilepipe/kernel/tiles.h"
#include "tilepipe/kit/error.h"
#include "tilepipe/plugin.h"

/* What the INI may force; 0 leaves a choice to the heuristic. */
typedef struct tp_kernel_tuning {
  int32_t tile_m, tile_n, tile_k;
  int32_t stages;
  int32_t cluster_m, cluster_n;
  int32_t splits;      /* every tile's K split this many ways */
  int32_t tail_splits; /* the partial last wave's tiles split this many ways (1: none) */
  int32_t stream_k;    /* TP_KERNEL_STREAM_ON / _OFF; 0: the heuristic's choice */
} tp_kernel_tuning;

enum { TP_KERNEL_STREAM_OFF = 1, TP_KERNEL_STREAM_ON = 2 };

/* What the planner decided for one GEMM. */
typedef struct tp_kernel_plan {
  tp_storage_layout smem;
  int32_t tile_m, tile_n, cluster_m, raster_m;
  int32_t tiles_m, tiles_n;
  int32_t k_elems, k_blocks; /* K of a k-block; k-blocks per tile */
  int32_t k_group;           /* k-tiles per k-block (one stage: the layout's k_group_size) */
  int32_t max_tile_n;        /* the mainloop's widest tile (its max_tile_n) */
  int32_t n_block;           /* widths divide it (the mainloop's n_block; 0: any) */
  int32_t splits;            /* K split over this many CTAs per tile, */
  int32_t split_from;        /* for the tiles from this one on */
  int32_t split_lead;        /* k-blocks each split hands on to the last */
  /* Stream-K: the tiles from split_from on are one stream of k-blocks that
   * every CTA takes an equal share of (splits: the most CTAs a tile's
   * k-blocks then fall to). */
  int32_t stream_k;
  /* The schedule's divisors (tilepipe/kernel/params.h), made once here:
   * gpu_args runs at every launch. */
  tp_fast_div group_div, rows_div, last_rows_div, splits_div;
  int32_t last_group;
  uint32_t stream_iters; /* stream-K: the stream's k-blocks; 0 without */
  tp_fast_div stream_div, k_blocks_div, grid_div;
  int32_t c_staged_first, c_staged_count, c_staged_a_slots;
  int32_t a_rows; /* rows of A's TMA box: 64, fewer only for tp_kernel_plan_operand_tensors */
  tp_dtype d_dtype, source_dtype;
} tp_kernel_plan;

/* The heuristic's figures (set from bench/tune.sh and bench/ab.sh runs on
 * the H100; docs/kernel.md). */
#define TP_KERNEL_OUTPUT_STAGES 2     /* the fewest output chunks */
#define TP_KERNEL_MAX_SPLITS 16
#define TP_KERNEL_MIN_SPLIT_K_BLOCKS 4 /* the fewest k-blocks of a split */
#define TP_KERNEL_SPLIT_SATURATION 0.85 /* share of the SMs few tiles need busy */
/* The cost of each split beyond the first, per 128 x 128 of tile, relative
 * to an unsplit tile: the partial sums it writes and the last split reads,
 * and the wait for them. Where the operands enter the SMs at least
 * L2_BOUND_REREADS times (tp_kernel_rereads), so that a wider tile, which
 * reads A fewer times, saves L2 traffic, it holds for splits of up to
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
#define TP_KERNEL_COUNTER_ALIGN 256
/* Stream-K only where the rows of A and B hold at most this many bytes of
 * K: CTAs sharing a tile row or column read it at different k, and past
 * this their reads no longer meet in L2 (docs/kernel.md, "Stream-K"). */
#define TP_KERNEL_STREAM_MAX_ROW_BYTES 40960
/* Widths up to this one are narrow: only for shapes of few tiles in one
 * tile row. */
#define TP_KERNEL_NARROW_WIDTH 64

/* One kernel of tiles.h on the host. */
typedef struct tp_kernel_instance {
  int32_t tile_m, tile_n, cluster_m;
  tp_dtype d;
  double speed;
  const char *suffix; /* the kernel name after the operands */
} tp_kernel_instance;

static inline const tp_kernel_instance *tp_kernel_instances(size_t *count) {
#define TP_KERNEL_HOST_INSTANCE_(BM, BN, CM, D_NAME, DT, SPEED, CTX) \
  {BM, BN, CM, DT, SPEED, TP_KERNEL_SUFFIX_STR(BM, BN, CM, D_NAME)},
  static const tp_kernel_instance all[] = {TP_KERNEL_FOR_EACH_INSTANCE(TP_KERNEL_HOST_INSTANCE_, _)};
#undef TP_KERNEL_HOST_INSTANCE_
  *count = sizeof all / sizeof all[0];
  return all;
}

/* Whether instance k serves plan kp: its cluster, its D, no wider than
 * the mainloop's widest tile and, where the mainloop's columns come in
 * blocks (n_block), a width that divides them. */
static inline bool tp_kernel_instance_serves(const tp_kernel_instance *k, const tp_kernel_plan *kp) {
  return k->cluster_m == kp->cluster_m && k->d == kp->d_dtype && k->tile_n <= kp->max_tile_n &&
         kp->n_block % k->tile_n == 0;
}

/* The kernel of tile_m x tile_n that serves kp; NULL when there is none.
 * 0 matches any tile_m, tile_n. */
static inline const tp_kernel_instance *tp_kernel_instance_find(const tp_kernel_plan *kp,
                                                                int32_t tile_m, int32_t tile_n) {
  size_t count;
  const tp_kernel_instance *all = tp_kernel_instances(&count);
  for (size_t i = 0; i < count; ++i) {
    const tp_kernel_instance *k = &all[i];
    if ((tile_m == 0 || k->tile_m == tile_m) && (tile_n == 0 || k->tile_n == tile_n) &&
        tp_kernel_instance_serves(k, kp))
      return k;
  }
  return NULL;
}

static inline int32_t tp_kernel_ceil_div(int64_t a, int64_t b) { return (int32_t)((a + b - 1) / b); }

/* D chunks of a tile (128 bytes of D per row each; 176 columns of a 16-bit
 * D make 3, the last 48 columns wide). */
static inline int32_t tp_kernel_plan_chunks(const tp_kernel_plan *kp) {
  return tp_kernel_ceil_div((int64_t)kp->tile_n * tp_codec_bits(kp->d_dtype),
                            TP_KERNEL_ROW_BYTES * 8);
}

/* Elements of `dtype` in one 128-byte row of a swizzled tile. */
static inline uint32_t tp_kernel_row_elems(tp_dtype dtype) {
  return TP_KERNEL_ROW_BYTES * 8 / tp_codec_bits(dtype);
}

/* Whether a tile of width n is not whole chunks of D (a tail chunk). */
static inline bool tp_kernel_has_tail(int32_t n, tp_dtype d) {
  return n % (int32_t)tp_kernel_row_elems(d) != 0;
}

/* Cluster rows walked together (the raster group). A wave of W clusters
 * then covers r cluster rows by W / r tile columns, and reads r x
 * cluster_m x tile_m rows of A and W / r x tile_n rows of B per k-block
 * out of L2; r = sqrt(W x tile_n / (cluster_m x tile_m)) reads the fewest. */
static inline int32_t tp_kernel_raster_rows(int32_t tile_m, int32_t tile_n, int32_t cluster_m,
                                            int32_t sm_count) {
  const double clusters = (double)(sm_count / cluster_m);
  const long r = lround(sqrt(clusters * tile_n / ((double)cluster_m * tile_m)));
  return r < 1 ? 1 : (int32_t)r;
}

/* How many times, on average, each byte of A and B enters an SM, in
 * 128 x 128 tiles: A once per tile column, B once per tile row. */
static inline double tp_kernel_rereads(int64_t m, int64_t n) {
  return (double)(m * tp_kernel_ceil_div(n, 128) + n * tp_kernel_ceil_div(m, 128)) /
         (double)(m + n);
}

/* How well `units` work units of tile `t` keep the SMs busy: whole waves
 * count by how full they are, a single partial wave as full once it
 * reaches SPLIT_SATURATION of the SMs; times the tile's speed, the share of
 * its columns inside N (`used`) and the cost of `splits` of `k_blocks`
 * (`l2_bound`: a shape of few tiles whose operands enter the SMs at
 * least L2_BOUND_REREADS times, tp_kernel_rereads). */
static inline double tp_kernel_shape_score(int64_t units, int32_t splits, int64_t k_blocks,
                                           bool l2_bound, const tp_kernel_instance *t,
                                           double used, int32_t sm_count) {
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
static inline int32_t tp_kernel_best_splits(int64_t tiles, int64_t k_blocks, int32_t sm_count) {
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
static inline double tp_kernel_tail_split_waves(int64_t tiles, int64_t k_blocks, int32_t sm_count,
                                                int32_t s, int64_t *split_from) {
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
         ((double)tp_kernel_ceil_div(k_blocks, s) + TP_KERNEL_TAIL_SPLIT_COST_KB * (s - 1)) /
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
static inline double tp_kernel_stream_waves(int64_t tiles, int64_t k_blocks, int32_t sm_count,
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

/* The CTA of a stream-K grid of `grid` CTAs whose share of `iters`
 * k-blocks holds k-block x: CTA c takes [c * iters / grid, (c + 1) * iters
 * / grid). The kernel computes the same (tilepipe/device/kernel_schedule.h). */
static inline int64_t tp_kernel_stream_owner(int64_t x, int64_t iters, int64_t grid) {
  return ((x + 1) * grid - 1) / iters;
}

/* Whether M x N makes fewer 128 x 128 tiles than the GPU has SMs: a shape
 * bound by memory, whose tiles split K rather than fill waves. */
static inline bool tp_kernel_few_tiles(int64_t m, int64_t n, int32_t sm_count) {
  return (int64_t)tp_kernel_ceil_div(m, 128) * tp_kernel_ceil_div(n, 128) < sm_count;
}

/* The rows of A's TMA box: 64 (a consumer warpgroup's), or M rounded up
 * to 8 where M < 64. TMA's zero fill of rows past M costs about as much
 * as loading them, so a decode-sized M loads only its own rows and the
 * rest of each A tile, which no load then touches, is zeroed once at the
 * kernel's start (tilepipe/device/kernel_operands.h; docs/kernel.md). */
static inline int32_t tp_kernel_a_rows(int64_t m) {
  return m < TP_KERNEL_WARPGROUP_ROWS ? (int32_t)((m + 7) / 8 * 8) : TP_KERNEL_WARPGROUP_ROWS;
}

/* Whether the rows of A and B lie whole 128-byte lines apart. Where they do
 * not, each row of a k-block's TMA box spans two L2 lines, and the kernels
 * run out of L2 bandwidth before the tensor cores do (docs/kernel.md,
 * "Choosing the tile"). */
static inline bool tp_kernel_rows_on_lines(const tp_gemm_desc *desc) {
  const int64_t a = desc->a.stride[0] * tp_codec_bits(desc->a.dtype) / 8;
  const int64_t b = desc->b.stride[0] * tp_codec_bits(desc->b.dtype) / 8;
  return a % TP_KERNEL_ROW_BYTES == 0 && b % TP_KERNEL_ROW_BYTES == 0;
}

/* The tile and its splits that fill whole waves of SMs best, weighted by
 * speed and split cost: for few tiles every tile split (forced_splits
 * forces that), else the partial last wave's, split (forced_tail forces
 * its split count, 1: none) or as stream-K (stream_k forces it on or off;
 * the heuristic's only where stream_ok); forced_m and forced_n, when not
 * 0, are the only tile rows and width tried; narrow widths only for few
 * tiles in one tile row, a tail-chunk width only where C (if any) comes in
 * D's dtype (c_as_d) and, if it is not narrow, only for many tiles whose
 * rows lie on lines (on_lines). */
static inline void tp_kernel_best_shape(tp_kernel_plan *kp, int64_t m, int64_t n,
                                        int32_t sm_count, int32_t forced_m, int32_t forced_n,
                                        int32_t forced_splits, int32_t forced_tail,
                                        int32_t stream_k, bool stream_ok, bool c_as_d,
                                        bool on_lines) {
  size_t count;
  const tp_kernel_instance *all = tp_kernel_instances(&count);
  const int64_t k_blocks = kp->k_blocks;
  double best_score = -1.0;
  const bool few_tiles = tp_kernel_few_tiles(m, n, sm_count);
  const bool l2_bound = few_tiles && tp_kernel_rereads(m, n) >= TP_KERNEL_L2_BOUND_REREADS;
  for (size_t i = 0; i < count; ++i) {
    const tp_kernel_instance *t = &all[i];
    if (!tp_kernel_instance_serves(t, kp)) continue;
    if ((forced_m && t->tile_m != forced_m) || (forced_n && t->tile_n != forced_n)) continue;
    const bool tail = tp_kernel_has_tail(t->tile_n, kp->d_dtype);
    /* Narrow widths only where their tiles are few and one tile row holds
     * M (or where the INI asks for 64-row tiles, which are all narrow):
     * over more rows, each column of narrow tiles reads all of A again,
     * where a wider tile's K split reads it once per column. A wide tail
     * width (144 to 208) only where many tiles need the waves it fills. */
    const bool narrow = t->tile_n <= TP_KERNEL_NARROW_WIDTH;
    const bool narrow_ok =
        (few_tiles && m <= t->tile_m) || forced_m == TP_KERNEL_WARPGROUP_ROWS;
    if (!forced_n && ((narrow && !narrow_ok) ||
                      (tail && (!c_as_d || (!narrow && (few_tiles || !on_lines))))))
      continue;
    /* 64-row tiles only where one holds M: over more rows, each B tile
     * would stream into two CTAs, where a 128-row tile streams it once and
     * gets its CTAs from a K split. */
    if (!forced_m && t->tile_m < 128 && m > t->tile_m) continue;
    const int32_t tiles_n = tp_kernel_ceil_div(n, t->tile_n);
    const int64_t tiles = (int64_t)tp_kernel_ceil_div(m, t->tile_m) * tiles_n;
    const double used = (double)n / ((double)tiles_n * t->tile_n);
    int32_t splits = 1;
    int64_t split_from = 0;
    bool stream = false;
    double score;
    if (few_tiles || forced_splits) {
      splits = forced_splits ? forced_splits : tp_kernel_best_splits(tiles, k_blocks, sm_count);
      score = tp_kernel_shape_score(tiles * splits, splits, k_blocks, l2_bound, t, used,
                                    sm_count);
      /* Stream-K over few tiles only when the INI asks for it. */
      if (stream_k == TP_KERNEL_STREAM_ON && !forced_splits &&
          tp_kernel_stream_waves(tiles, k_blocks, sm_count, &split_from) < HUGE_VAL) {
        splits = 1;
        stream = true;
      }
    } else {
      /* Forced, the split count holds where the tail fits it; else the
       * tail stays whole. */
      double waves = tp_kernel_tail_split_waves(tiles, k_blocks, sm_count, 1, &split_from);
      for (int32_t s = forced_tail ? forced_tail : 2;
           s <= (forced_tail ? forced_tail : TP_KERNEL_MAX_SPLITS); ++s) {
        int64_t from = 0;
        const double w = tp_kernel_tail_split_waves(tiles, k_blocks, sm_count, s, &from);
        if (w < waves - 1e-9 || (forced_tail && w < HUGE_VAL)) {
          waves = w;
          splits = s;
          split_from = from;
        }
      }
      /* Stream-K by the heuristic over more than one tile row (one holding
       * M is bound by memory, which an even share does not lessen) and
       * rows of A and B short enough (stream_ok). */
      int64_t from = 0;
      const bool stream_try =
          stream_k == TP_KERNEL_STREAM_ON ||
          (stream_k == 0 && stream_ok && m > t->tile_m);
      const double w = !stream_try || forced_tail
                           ? HUGE_VAL
                           : tp_kernel_stream_waves(tiles, k_blocks, sm_count, &from);
      if (w < HUGE_VAL && (w < waves - 1e-9 || stream_k == TP_KERNEL_STREAM_ON)) {
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

/* The tile shapes with a kernel that serves kp, as "128x256, 128x192, ..."
 * for a message. */
static inline void tp_kernel_tile_list(char *out, size_t size, const tp_kernel_plan *kp) {
  size_t count, used = 0;
  const tp_kernel_instance *all = tp_kernel_instances(&count);
  out[0] = '\0';
  for (size_t i = 0; i < count && used < size; ++i) {
    if (!tp_kernel_instance_serves(&all[i], kp)) continue;
    const int w = snprintf(out + used, size - used, "%s%dx%d", used ? ", " : "", all[i].tile_m,
                           all[i].tile_n);
    if (w < 0) break;
    used += (size_t)w;
  }
}

/* The one width that tiles of `tile_m` rows come in for kp (64 for 64-row
 * tiles), or 0 where there are several (or tile_m is 0). */
static inline int32_t tp_kernel_only_width(const tp_kernel_plan *kp, int32_t tile_m) {
  size_t count;
  const tp_kernel_instance *all = tp_kernel_instances(&count);
  int32_t width = 0;
  for (size_t i = 0; i < count && tile_m; ++i) {
    if (all[i].tile_m != tile_m || !tp_kernel_instance_serves(&all[i], kp)) continue;
    if (width) return 0;
    width = all[i].tile_n;
  }
  return width;
}

/* Step 1: the tile shape, the splits, the cluster and the tile walk of D =
 * desc's for a mainloop whose k-tile is k_elems elements of K (the INI's
 * tile K), whose k-block (one stage, one step of the k-loop) holds k_group
 * k-tiles (the seeds' k_group_size), whose widest tile is max_tile_n and
 * whose tile widths divide n_block (0: any; its max_tile_n and n_block:
 * tilepipe/device/kernel_mainloop.h); the INI's (tu) where
 * it set them, checked against the kernels, the heuristic's elsewhere.
 * source_dtype: the epilogue's C (tp_epilogue_plan.source_dtype). */
static inline tp_status tp_kernel_plan_shape(tp_kernel_plan *kp, const tp_kernel_tuning *tu,
                                             const tp_gemm_desc *desc, tp_dtype source_dtype,
                                             const tp_gpu_info *gpu, int32_t k_elems,
                                             int32_t k_group, int32_t max_tile_n,
                                             int32_t n_block, char *err, size_t errlen) {
  memset(kp, 0, sizeof *kp);
  kp->d_dtype = desc->d.dtype;
  kp->max_tile_n = max_tile_n;
  kp->n_block = n_block;
  kp->cluster_m = 1;
  if (tp_kernel_instance_find(kp, 0, 0) == NULL) {
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "no GPU kernel writes a %s D (bf16, f16 or f32)",
                       tp_codec_name(desc->d.dtype));
  }
  kp->source_dtype = source_dtype;
  kp->k_group = k_group;
  kp->k_elems = k_elems * k_group;
  kp->k_blocks = tp_kernel_ceil_div(desc->k, kp->k_elems);
  if ((tu->cluster_m && tu->cluster_m > 2) || (tu->cluster_n && tu->cluster_n != 1)) {
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "the GPU kernels take clusters 1x1 or 2x1 (the registry asks for "
                       "cluster %dx%d)",
                       tu->cluster_m, tu->cluster_n);
  }
  kp->cluster_m = tu->cluster_m ? tu->cluster_m : 1;
  /* Rows off the L2 lines (tp_kernel_rows_on_lines) call for the tiles
   * that read the least per FLOP: no tail-chunk width (below) and, for
   * 1-byte operands, which the tensor cores consume twice as fast, B shared
   * through 2-CTA clusters; not where the INI sets the cluster or a split,
   * nor on shapes of few tiles (those split K, and clusters do not). */
  const bool on_lines = tp_kernel_rows_on_lines(desc);
  if (!on_lines && !tu->cluster_m && !tu->splits && !tu->tail_splits &&
      tp_codec_bits(desc->a.dtype) == 8 && tp_codec_bits(desc->b.dtype) == 8 &&
      !tp_kernel_few_tiles(desc->m, desc->n, gpu->sm_count)) {
    kp->cluster_m = 2;
    if (tp_kernel_instance_find(kp, tu->tile_m, tu->tile_n) == NULL) kp->cluster_m = 1;
  }
  if (tp_kernel_instance_find(kp, tu->tile_m, tu->tile_n) == NULL ||
      (tu->tile_k && tu->tile_k != k_elems)) {
    char tiles[160];
    tp_kernel_tile_list(tiles, sizeof tiles, kp);
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "the GPU kernels for a %s D in clusters of %d take tiles (MxN) %s, "
                       "K %d (the registry asks for %dx%dx%d; 0: not set)",
                       tp_codec_name(kp->d_dtype), kp->cluster_m, tiles, k_elems,
                       tu->tile_m, tu->tile_n, tu->tile_k);
  }
  const bool c_as_d = source_dtype == TP_DTYPE_NONE || source_dtype == desc->d.dtype;
  if (tu->tile_n && tp_kernel_has_tail(tu->tile_n, kp->d_dtype) && !c_as_d) {
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "tile width %d is not whole chunks of a %s D: its kernels take C "
                       "only in D's dtype (here C is %s)",
                       tu->tile_n, tp_codec_name(kp->d_dtype), tp_codec_name(source_dtype));
  }
  if (tu->splits > kp->k_blocks) {
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "splits %d: K = %lld has only %d k-blocks of %d to split", tu->splits,
                       (long long)desc->k, kp->k_blocks, kp->k_elems);
  }
  if (tu->splits > 1 && tu->cluster_m > 1) {
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "splits %d with cluster %dx1: the GPU kernels split K only over "
                       "single CTAs",
                       tu->splits, tu->cluster_m);
  }
  const int32_t forced_n =
      tu->tile_n ? tu->tile_n : tp_kernel_only_width(kp, tu->tile_m);
  const bool clustered = kp->cluster_m > 1;
  const bool rows_short =
      desc->k * tp_codec_bits(desc->a.dtype) / 8 <= TP_KERNEL_STREAM_MAX_ROW_BYTES &&
      desc->k * tp_codec_bits(desc->b.dtype) / 8 <= TP_KERNEL_STREAM_MAX_ROW_BYTES;
  tp_kernel_best_shape(kp, desc->m, desc->n, gpu->sm_count, tu->tile_m, forced_n,
                       clustered ? 1 : tu->splits, clustered ? 1 : tu->tail_splits,
                       clustered ? TP_KERNEL_STREAM_OFF : tu->stream_k, rows_short,
                       c_as_d, on_lines);
  if (kp->tile_m == 0) {
    char tiles[160];
    tp_kernel_tile_list(tiles, sizeof tiles, kp);
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "none of the GPU kernels' tiles (MxN) %s suits %lldx%lld (narrow "
                       "widths serve only shapes of few tiles in one tile row)",
                       tiles, (long long)desc->m, (long long)desc->n);
  }
  kp->a_rows = TP_KERNEL_WARPGROUP_ROWS;
  kp->tiles_m = tp_kernel_ceil_div(desc->m, kp->tile_m);
  kp->tiles_n = tp_kernel_ceil_div(desc->n, kp->tile_n);
  kp->raster_m = tp_kernel_raster_rows(kp->tile_m, kp->tile_n, kp->cluster_m, gpu->sm_count);
  const int32_t cluster_rows = tp_kernel_ceil_div(kp->tiles_m, kp->cluster_m);
  kp->last_group = (cluster_rows - 1) / kp->raster_m;
  kp->group_div = tp_fast_div_make((uint32_t)(kp->raster_m * kp->tiles_n));
  kp->rows_div = tp_fast_div_make((uint32_t)kp->raster_m);
  kp->last_rows_div =
      tp_fast_div_make((uint32_t)(cluster_rows - kp->last_group * kp->raster_m));
  if (kp->stream_k) {
    /* The grid is every SM; splits the most CTAs one tile's k-blocks fall
     * to, for the workspace's slots. */
    const int64_t tiles = (int64_t)kp->tiles_m * kp->tiles_n, kb = kp->k_blocks;
    const int64_t iters = (tiles - kp->split_from) * kb;
    kp->stream_iters = (uint32_t)iters;
    kp->stream_div = tp_fast_div_make((uint32_t)iters);
    kp->grid_div = tp_fast_div_make((uint32_t)gpu->sm_count);
    kp->splits = 1;
    for (int64_t t = 0; t < tiles - kp->split_from; ++t) {
      const int64_t ctas = tp_kernel_stream_owner(t * kb + kb - 1, iters, gpu->sm_count) -
                           tp_kernel_stream_owner(t * kb, iters, gpu->sm_count) + 1;
      if (ctas > kp->splits) kp->splits = (int32_t)ctas;
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

/* Step 2: shared memory for stages of plan's stage tensors, k_group tiles
 * of each a stage (a k-tile's; tensors 0 and 1, the operand tiles, also
 * hold staged chunks of C in their first), `stages` of them (0: as many as
 * fit gpu's budget). The output ring holds at least
 * TP_KERNEL_OUTPUT_STAGES chunks, as many more, up to a whole tile's, as
 * the stages leave room for, and with C each chunk also prefetches a chunk
 * of C (the source ring lives in them). The chunks of C past the ring go
 * through one more input stage, as many as its tensors 0 and 1 hold; none
 * under an f32 D (the kernel has no room in registers for it there). */
static inline tp_status tp_kernel_plan_lay_out(tp_kernel_plan *kp, const tp_payload_plan *plan,
                                               int32_t stages, const tp_gpu_info *gpu, char *err,
                                               size_t errlen) {
  tp_storage_request r = tp_storage_request_make(gpu->smem_per_block);
  if (plan->num_tensors < 2 || plan->num_tensors > TP_MAX_STAGE_TENSORS) {
    return tp_kit_fail(err, errlen, TP_ERR_INTERNAL,
                       "a stage of the structured kernel holds 2 to %d tensors, not %u",
                       TP_MAX_STAGE_TENSORS, plan->num_tensors);
  }
  r.num_tensors = plan->num_tensors;
  for (uint32_t i = 0; i < plan->num_tensors; ++i) r.tensors[i] = plan->tensors[i];
  r.k_group_size = (uint32_t)kp->k_group;
  r.stages = (uint32_t)stages;
  const uint32_t d_bits = tp_codec_bits(kp->d_dtype);
  const uint32_t chunks = (uint32_t)tp_kernel_plan_chunks(kp);
  r.output_chunk.bytes = (uint32_t)kp->tile_m * TP_KERNEL_ROW_BYTES;
  r.output_chunk.align = TP_SWIZZLE_128B_ALIGN;
  r.output_stages = TP_KERNEL_OUTPUT_STAGES;
  r.output_stages_max = chunks > TP_KERNEL_OUTPUT_STAGES ? chunks : TP_KERNEL_OUTPUT_STAGES;
  if (kp->source_dtype != TP_DTYPE_NONE) {
    /* A C chunk spans D's chunk columns: twice the bytes for f32 C under a
     * 16-bit D, and the output chunk holds it. */
    const uint32_t c_bits = tp_codec_bits(kp->source_dtype);
    if (c_bits != 32 && c_bits != d_bits) {
      return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                         "the GPU kernels stage C as f32 or as D's dtype, not %s under a "
                         "%s D",
                         tp_codec_name(kp->source_dtype), tp_codec_name(kp->d_dtype));
    }
    if (c_bits > d_bits) r.output_chunk.bytes = r.output_chunk.bytes * c_bits / d_bits;
    r.source_in_output = 1;
  }
  tp_status st = tp_storage_plan(&r, &kp->smem);
  if (st != TP_OK) {
    return tp_kit_fail(err, errlen, st, "%s (%llu bytes needed, %u available)",
                       kp->smem.error, (unsigned long long)kp->smem.need_bytes,
                       gpu->smem_per_block);
  }
  const uint32_t slot = kp->smem.output.bytes;
  const int32_t a_slots = (int32_t)(kp->smem.tensors[0].bytes / slot);
  const int32_t slots = a_slots + (int32_t)(kp->smem.tensors[1].bytes / slot);
  const int32_t past_ring = tp_kernel_plan_chunks(kp) - (int32_t)kp->smem.source_stages;
  const bool staged = kp->source_dtype != TP_DTYPE_NONE && kp->d_dtype != TP_DTYPE_F32;
  kp->c_staged_first = (int32_t)kp->smem.source_stages;
  kp->c_staged_count = !staged || past_ring <= 0 ? 0 : (past_ring < slots ? past_ring : slots);
  kp->c_staged_a_slots = a_slots;
  /* Staged C lands in tensor 0 and would overwrite the rows kept zero. */
  if (kp->c_staged_count > 0) kp->a_rows = TP_KERNEL_WARPGROUP_ROWS;
  return TP_OK;
}

/* Split-K's workspace: one counter per split tile and consumer warpgroup
 * (the first tp_kernel_counter_bytes), then the partial sums of every
 * split but the last (tile_m x tile_n f32 each). */
static inline uint64_t tp_kernel_split_tiles(const tp_kernel_plan *kp) {
  return (uint64_t)kp->tiles_m * (uint64_t)kp->tiles_n - (uint64_t)kp->split_from;
}

static inline uint64_t tp_kernel_counter_bytes(const tp_kernel_plan *kp) {
  const uint64_t counters = tp_kernel_split_tiles(kp) *
                            (uint64_t)(kp->tile_m / TP_KERNEL_WARPGROUP_ROWS) * sizeof(uint32_t);
  return (counters + TP_KERNEL_COUNTER_ALIGN - 1) / TP_KERNEL_COUNTER_ALIGN *
         TP_KERNEL_COUNTER_ALIGN;
}

static inline uint64_t tp_kernel_workspace_bytes(const tp_kernel_plan *kp) {
  if (kp->splits == 1) return 0;
  return tp_kernel_counter_bytes(kp) + tp_kernel_split_tiles(kp) * (uint64_t)(kp->splits - 1) *
                                           (uint64_t)kp->tile_m * (uint64_t)kp->tile_n *
                                           sizeof(float);
}

/* Step 3: the launch of kernel <prefix>_<operands>_<suffix> whose one
 * parameter is params_size bytes with its tp_kernel_params at
 * kernel_offset, and the tile configuration of `plan`. One CTA per work
 * unit up to a CTA per SM: the grid is a whole number of tiles' splits,
 * so that a tail's split tiles start a wave of it and the last split of a
 * tile only ever waits for CTAs of lower index. */
static inline tp_status tp_kernel_plan_launch(const tp_kernel_plan *kp, const char *prefix,
                                              const char *operands, const tp_gpu_info *gpu,
                                              uint32_t params_size, uint32_t kernel_offset,
                                              tp_payload_plan *plan, tp_gpu_launch *launch,
                                              char *err, size_t errlen) {
  const tp_kernel_instance *k =
      tp_kernel_instance_find(kp, kp->tile_m, kp->tile_n);
  memset(launch, 0, sizeof *launch);
  if (k == NULL) {
    return tp_kit_fail(err, errlen, TP_ERR_INTERNAL, "no kernel of tile %dx%d, cluster %d",
                       kp->tile_m, kp->tile_n, kp->cluster_m);
  }
  const int w = snprintf(launch->kernel, sizeof launch->kernel, "%s_%s_%s", prefix, operands,
                         k->suffix);
  if (w < 0 || (size_t)w >= sizeof launch->kernel) {
    return tp_kit_fail(err, errlen, TP_ERR_INTERNAL, "kernel name %s_%s_%s is too long",
                       prefix, operands, k->suffix);
  }
  const int64_t tiles = (int64_t)tp_kernel_ceil_div(kp->tiles_m, kp->cluster_m) * kp->tiles_n;
  const int64_t units = kp->split_from + (tiles - kp->split_from) * kp->splits;
  const int64_t slots = gpu->sm_count / kp->cluster_m / kp->splits * kp->splits;
  launch->grid[0] = kp->stream_k ? (uint32_t)gpu->sm_count
                                 : (uint32_t)((units < slots ? units : slots) * kp->cluster_m);
  launch->grid[1] = launch->grid[2] = 1;
  launch->block[0] = TP_KERNEL_THREADS;
  launch->block[1] = launch->block[2] = 1;
  launch->cluster[0] = (uint32_t)kp->cluster_m;
  launch->cluster[1] = launch->cluster[2] = 1;
  launch->smem_bytes = kp->smem.total_bytes;
  launch->params_size = params_size;
  launch->epilogue_args_offset = kernel_offset + (uint32_t)offsetof(tp_kernel_params, epilogue);
  launch->workspace_bytes = tp_kernel_workspace_bytes(kp);

  plan->tile.tile_m = kp->tile_m;
  plan->tile.tile_n = kp->tile_n;
  plan->tile.tile_k = kp->k_elems / kp->k_group;
  plan->tile.stages = (int32_t)kp->smem.stages;
  plan->tile.k_group_size = kp->k_group;
  plan->tile.cluster_m = kp->cluster_m;
  plan->tile.cluster_n = 1;
  plan->tile.consumers = kp->tile_m / TP_KERNEL_WARPGROUP_ROWS;
  plan->k_blocks = kp->k_blocks;
  return TP_OK;
}

/* The planner's decision kept in and read back from plan's private bytes
 * (gpu_plan stores it, gpu_args reads it). */
static inline void tp_kernel_plan_store(const tp_kernel_plan *kp, tp_payload_plan *plan) {
  _Static_assert(sizeof(tp_kernel_plan) <= TP_PLAN_PRIVATE_BYTES,
                 "the kernel plan must fit the payload plan's private bytes");
  memcpy(plan->priv, kp, sizeof *kp);
}

static inline void tp_kernel_plan_load(const tp_payload_plan *plan, tp_kernel_plan *kp) {
  memcpy(kp, plan->priv, sizeof *kp);
}

/* A stage's first two tensors: A's and B's k-block tiles for kp's tile
 * (tilepipe/device/kernel_operands.h: one 128-byte row of K each), A's
 * box of tp_kernel_a_rows(M) rows. A mainloop with per-stage extras (a row
 * of scales) adds its tensors after them. */
static inline void tp_kernel_plan_operand_tensors(tp_kernel_plan *kp, const tp_gemm_desc *desc,
                                                  tp_payload_plan *plan) {
  kp->a_rows = tp_kernel_a_rows(desc->m);
  plan->num_tensors = 2;
  plan->tensors[0].bytes = (uint32_t)kp->tile_m * TP_KERNEL_ROW_BYTES; /* A */
  plan->tensors[0].align = TP_SWIZZLE_128B_ALIGN;
  plan->tensors[1].bytes = (uint32_t)kp->tile_n * TP_KERNEL_ROW_BYTES; /* B */
  plan->tensors[1].align = TP_SWIZZLE_128B_ALIGN;
}

/* Steps 2 and 3 once plan lists its stage tensors, then the decision kept
 * in plan: the kernel <prefix>_<operands>_..., its parameter struct
 * params_size bytes with the tp_kernel_params at kernel_offset. */
static inline tp_status tp_kernel_plan_finish(tp_kernel_plan *kp, int32_t stages,
                                              const tp_gpu_info *gpu, const char *prefix,
                                              const char *operands, uint32_t params_size,
                                              uint32_t kernel_offset, tp_payload_plan *plan,
                                              tp_gpu_launch *launch, char *err, size_t errlen) {
  tp_status st = tp_kernel_plan_lay_out(kp, plan, stages, gpu, err, errlen);
  if (st == TP_OK) {
    st = tp_kernel_plan_launch(kp, prefix, operands, gpu, params_size, kernel_offset, plan,
                               launch, err, errlen);
  }
  if (st == TP_OK) tp_kernel_plan_store(kp, plan);
  return st;
}

/* The whole of a gpu_plan for a mainloop whose stage holds A's and B's
 * k-block tiles alone: the tile (step 1, a k-block one 128-byte row of A's
 * dtype, the widest tile max_tile_n), the operand tensors, and the rest
 * (tp_kernel_plan_finish). */
static inline tp_status tp_kernel_plan_operands(const tp_kernel_tuning *tu,
                                                const tp_gemm_desc *desc,
                                                const tp_epilogue_plan *epi,
                                                const tp_gpu_info *gpu, int32_t max_tile_n,
                                                const char *prefix, const char *operands,
                                                uint32_t params_size, uint32_t kernel_offset,
                                                tp_payload_plan *plan, tp_gpu_launch *launch,
                                                char *err, size_t errlen) {
  tp_kernel_plan kp;
  tp_status st =
      tp_kernel_plan_shape(&kp, tu, desc, epi->source_dtype, gpu,
                           (int32_t)tp_kernel_row_elems(desc->a.dtype), 1, max_tile_n, 0, err,
                           errlen);
  if (st != TP_OK) return st;
  tp_kernel_plan_operand_tensors(&kp, desc, plan);
  return tp_kernel_plan_finish(&kp, tu->stages, gpu, prefix, operands, params_size, kernel_offset,
                               plan, launch, err, errlen);
}

#endif
