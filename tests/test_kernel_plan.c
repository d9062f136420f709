/* tests/test_kernel_plan.c: the structured kernel's planner
 * (tilepipe/plugin/kernel/gpu_plan.h, plugins/kit/kernel_*.c) and the rules
 * it shares with the device (tilepipe/plugin/kernel/schedule.h, operands.h).
 *
 *   - pinned: every case of tests/kernel_plan_sweep.h plans exactly as
 *     tests/kernel_plans.txt says (kernel, grid, splits, stages, shared
 *     memory, workspace, A's box rows, staged chunks of C). A deliberate
 *     change to the heuristic rewrites the table:
 *         tests/test_kernel_plan --write $(srcdir)/tests/kernel_plans.txt
 *     and the diff shows every plan it moved;
 *   - mixed width: bf16 x s8, bf16 x e2m1, e4m3 x e2m1 and s8 x bf16
 *     operands step K by one 128-byte row of the wider operand, size each
 *     stage tensor and TMA box by the operand's own rows (each swizzled
 *     by its row's bytes), and count only whole chunks of C in the stage that
 *     stages C; same-width pairs keep 128-byte swizzled rows;
 *   - transposed requests: the narrowest transposed tile that holds M, the
 *     operands and the skeleton's m and n swapped, D and C by pointer;
 *   - the schedule's rules, on the host as the kernel runs them: raster
 *     groups reach every cluster tile once, stream-K owners invert the
 *     shares, and the grid never exceeds the work units;
 *   - every entry point refuses a bad request with a message naming it. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilepipe/plugin/dtype_codec.h"
#include "tilepipe/plugin/kernel/args.h"
#include "tilepipe/plugin/kernel/gpu_plan.h"
#include "tilepipe/plugin/kernel/operands.h"
#include "tilepipe/plugin/kernel/schedule.h"

#include "tests/kernel_plan_sweep.h"

#define ASSERT_HAS(haystack, needle)                                                          \
  ck_assert_msg(strstr((haystack), (needle)) != NULL, "\"%s\" does not contain \"%s\"",     \
                (haystack), (needle))

/* The sweep's mainloops as requests (kernel names p_o_<tile>). */
static tp_kernel_request request_of(const sweep_case *c) {
  tp_kernel_request rq = {.desc = &c->desc,
                          .epilogue = &c->epilogue,
                          .gpu = &c->gpu,
                          .tuning = &c->tuning,
                          .prefix = "p",
                          .operands = "o",
                          .params_size = 1024,
                          .kernel_offset = 64};
  if (c->mainloop == SWEEP_OPERANDS_192) rq.max_tile_n = 192;
  if (c->mainloop == SWEEP_BLOCKWISE) {
    rq.k_elems = 128;
    rq.k_group = 2;
    rq.max_tile_n = 128;
    rq.n_block = 128;
  }
  return rq;
}

static void sweep_plan(const sweep_case *c, sweep_result *r) {
  char err[512];
  memset(r, 0, sizeof *r);
  const tp_kernel_request rq = request_of(c);
  if (c->mainloop != SWEEP_BLOCKWISE) {
    r->status = tp_kernel_plan_operands(&rq, &r->plan, &r->launch, err, sizeof err);
    if (r->status == TP_OK) tp_kernel_plan_load(&r->plan, &r->kp);
    return;
  }
  /* blockwise_fp8's stage: the operand tiles and a row of A's scales. */
  tp_status st = tp_kernel_plan_shape(&r->kp, &rq, err, sizeof err);
  if (st == TP_OK) st = tp_kernel_plan_operand_tensors(&r->kp, &rq, &r->plan, err, sizeof err);
  if (st == TP_OK) {
    r->plan.tensors[2].bytes = (uint32_t)r->kp.tile_m * 4u;
    r->plan.tensors[2].align = 128;
    r->plan.num_tensors = 3;
    st = tp_kernel_plan_finish(&r->kp, &rq, &r->plan, &r->launch, err, sizeof err);
  }
  r->status = st;
}

/* ------------------------------------------------------------ the table */

typedef struct table_check {
  FILE *table; /* reading the table, or writing it (write) */
  int write;
  long cases, mismatches;
  char first[1024];
} table_check;

/* The table's next line that is not a comment, without its newline. */
static int table_line(FILE *f, char *line, size_t size) {
  while (fgets(line, (int)size, f) != NULL) {
    line[strcspn(line, "\n")] = '\0';
    if (line[0] != '#') return 1;
  }
  return 0;
}

static void check_case(const sweep_case *c, void *ctx) {
  table_check *t = ctx;
  sweep_result r;
  char got[512], want[512];
  sweep_plan(c, &r);
  sweep_line(&r, 0, got, sizeof got);
  ++t->cases;
  if (t->write) {
    fprintf(t->table, "%s\n", got);
    return;
  }
  if (!table_line(t->table, want, sizeof want)) snprintf(want, sizeof want, "(end of table)");
  if (strcmp(got, want) == 0) return;
  if (t->mismatches++ == 0) {
    char key[256];
    sweep_key(c, key, sizeof key);
    snprintf(t->first, sizeof t->first, "case %ld (%s): planned \"%s\", the table says \"%s\"",
             t->cases, key, got, want);
  }
}

START_TEST(test_pinned) {
  table_check t = {.table = fopen(TP_KERNEL_PLANS_TABLE, "r")};
  ck_assert_msg(t.table != NULL, "cannot open %s", TP_KERNEL_PLANS_TABLE);
  sweep_each(0, check_case, &t);
  char extra[512];
  const int more = table_line(t.table, extra, sizeof extra);
  fclose(t.table);
  ck_assert_msg(t.mismatches == 0, "%ld of %ld plans differ from %s; the first: %s",
                t.mismatches, t.cases, TP_KERNEL_PLANS_TABLE, t.first);
  ck_assert_msg(!more, "%s has lines past the sweep's %ld cases", TP_KERNEL_PLANS_TABLE,
                t.cases);
  ck_assert_int_gt(t.cases, 2000);
}
END_TEST

/* ----------------------------------------------------------- mixed width */

/* A host API that records the TMA requests of gpu_args. */
static tp_tma_2d encoded[8];
static int n_encoded;

static tp_status record_tma(void *out, const tp_tma_2d *r, char *err, size_t errlen) {
  (void)out;
  (void)err;
  (void)errlen;
  if (n_encoded < 8) encoded[n_encoded] = *r;
  ++n_encoded;
  return TP_OK;
}

static const tp_host_api recording_host = {.struct_size = sizeof(tp_host_api),
                                           .tma_encode_2d = record_tma};

typedef struct planned_case {
  sweep_case c;
  sweep_result r;
} planned_case;

/* M x N x K of a x b operands into a bf16 D (C in `c`), rows on lines. */
static planned_case plan_pair(tp_dtype a, tp_dtype b, tp_dtype c, int64_t m, int64_t n,
                              int64_t k) {
  const sweep_operands o = {a, b, TP_DTYPE_BF16, c, SWEEP_OPERANDS};
  planned_case p;
  sweep_make(&p.c, 132, &o, m, n, k, 128, NULL);
  sweep_plan(&p.c, &p.r);
  return p;
}

START_TEST(test_mixed_width) {
  static const struct {
    tp_dtype a, b;
    int32_t k_elems, a_row, b_row;
  } pairs[] = {
      {TP_DTYPE_BF16, TP_DTYPE_S8, 64, 128, 64},    {TP_DTYPE_BF16, TP_DTYPE_E2M1, 64, 128, 32},
      {TP_DTYPE_E4M3, TP_DTYPE_E2M1, 128, 128, 64}, {TP_DTYPE_S8, TP_DTYPE_BF16, 64, 64, 128},
      {TP_DTYPE_BF16, TP_DTYPE_BF16, 64, 128, 128}, {TP_DTYPE_E2M1, TP_DTYPE_E2M1, 256, 128, 128},
  };
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; ++i) {
    const int64_t m = 4096, n = 7168, k = 4096;
    planned_case p = plan_pair(pairs[i].a, pairs[i].b, TP_DTYPE_NONE, m, n, k);
    const char *an = tp_codec_name(pairs[i].a), *bn = tp_codec_name(pairs[i].b);
    ck_assert_msg(p.r.status == TP_OK, "%s x %s: refused", an, bn);
    const tp_kernel_plan *kp = &p.r.kp;
    ck_assert_int_eq(tp_kernel_operand_k_elems(tp_codec_bits(pairs[i].a),
                                               tp_codec_bits(pairs[i].b)),
                     (uint32_t)pairs[i].k_elems);
    ck_assert_int_eq(p.r.plan.tile.tile_k, pairs[i].k_elems);
    ck_assert_int_eq(kp->k_blocks, (int32_t)((k + pairs[i].k_elems - 1) / pairs[i].k_elems));
    ck_assert_int_eq(kp->a_row_bytes, pairs[i].a_row);
    ck_assert_int_eq(kp->b_row_bytes, pairs[i].b_row);
    ck_assert_uint_eq(p.r.plan.tensors[0].bytes, (uint32_t)(kp->tile_m * pairs[i].a_row));
    ck_assert_uint_eq(p.r.plan.tensors[1].bytes, (uint32_t)(kp->tile_n * pairs[i].b_row));
    /* Staged chunks of C land in both, whatever their rows. */
    ck_assert_uint_eq(p.r.plan.tensors[0].align, 1024);
    ck_assert_uint_eq(p.r.plan.tensors[1].align, 1024);
    ck_assert_uint_eq(p.r.kp.smem.expect_bytes,
                      (uint32_t)(kp->tile_m * pairs[i].a_row + kp->tile_n * pairs[i].b_row));

    /* gpu_args: boxes of one k-tile's K by the operand's rows, swizzled
     * by their rows' bytes. */
    tp_kernel_operands o;
    char err[256];
    n_encoded = 0;
    ck_assert_int_eq(tp_kernel_operands_fill(kp, &p.c.desc, &recording_host, &o, err, sizeof err),
                     TP_OK);
    ck_assert_int_eq(n_encoded, 2);
    for (int j = 0; j < 2; ++j) {
      const int32_t row = j == 0 ? pairs[i].a_row : pairs[i].b_row;
      ck_assert_msg(encoded[j].box_cols == (uint32_t)pairs[i].k_elems,
                    "%s x %s, %c: box of %u columns", an, bn, "AB"[j], encoded[j].box_cols);
      ck_assert_uint_eq(encoded[j].swizzle, (uint32_t)row);
      ck_assert_uint_eq(encoded[j].box_cols * tp_codec_bits(encoded[j].dtype) / 8,
                        (uint32_t)row);
    }
    ck_assert_uint_eq(encoded[0].box_rows, (uint32_t)kp->a_rows);
    ck_assert_uint_eq(encoded[1].box_rows, (uint32_t)(kp->tile_n / kp->cluster_m));
    ck_assert_int_eq(encoded[0].dtype, pairs[i].a);
    ck_assert_int_eq(encoded[1].dtype, pairs[i].b);
  }
}
END_TEST

/* The chunks of C past the ring come through the extra stage's tensors 0
 * and 1 in whole output chunks: a narrower B holds fewer of them. */
START_TEST(test_mixed_width_staged_c) {
  static const tp_dtype bs[] = {TP_DTYPE_BF16, TP_DTYPE_S8, TP_DTYPE_E2M1};
  /* The ring holds two of the tile's four chunks of D (C in D's dtype);
   * the other two come through the extra stage: one in A's tile, one more
   * in B's of 128- or 64-byte rows (256 x 64 bytes: one chunk's 16 KiB),
   * none in B's of 32-byte rows. */
  static const int32_t want[] = {2, 2, 1};
  for (int i = 0; i < 3; ++i) {
    /* One tile row, 256 wide: 4 chunks of bf16 D, C in D's dtype. */
    planned_case p = plan_pair(TP_DTYPE_BF16, bs[i], TP_DTYPE_BF16, 128, 256 * 132, 4096);
    ck_assert_int_eq(p.r.status, TP_OK);
    const tp_kernel_plan *kp = &p.r.kp;
    ck_assert_int_eq(kp->tile_n, 256);
    const uint32_t slot = kp->smem.output.bytes;
    const int32_t b_slots = (int32_t)(p.r.plan.tensors[1].bytes / slot);
    ck_assert_int_eq(kp->c_staged_a_slots, (int32_t)(p.r.plan.tensors[0].bytes / slot));
    ck_assert_int_le(kp->c_staged_count, kp->c_staged_a_slots + b_slots);
    /* Each staged chunk lies inside its tensor's tile. */
    const int32_t in_b = kp->c_staged_count - kp->c_staged_a_slots;
    ck_assert_uint_le((uint64_t)(in_b > 0 ? in_b : 0) * slot, p.r.plan.tensors[1].bytes);
    ck_assert_int_eq(kp->smem.source_stages, 2);
    ck_assert_msg(kp->c_staged_count == want[i], "bf16 x %s: %d chunks of C staged, not %d",
                  tp_codec_name(bs[i]), kp->c_staged_count, want[i]);
  }
}
END_TEST

/* --------------------------------------------------------- the schedule */

typedef struct schedule_check {
  long plans, failures;
  char first[512];
  unsigned char *seen;
  size_t seen_size;
} schedule_check;

/* What is wrong with case c's schedule, planned as r; NULL when nothing. */
static const char *schedule_problem(schedule_check *s, const sweep_case *c, sweep_result *r) {
  static unsigned char workspace[256]; /* split plans need one; nothing reads it here */
  static char err[256];
  const tp_kernel_plan *kp = &r->kp;
  /* The kernel's parameters as gpu_args fills them. */
  tp_kernel_params k;
  memset(&k, 0, sizeof k);
  r->plan.workspace = workspace;
  if (tp_kernel_args_fill(kp, &r->plan, &c->desc, &recording_host, &k, err, sizeof err) != TP_OK)
    return err;
  const int32_t rows = tp_schedule_cluster_rows(k.tiles_m, kp->cluster_m);
  const int32_t tiles = rows * k.tiles_n;
  if ((size_t)tiles > s->seen_size) {
    s->seen = realloc(s->seen, (size_t)tiles);
    s->seen_size = (size_t)tiles;
  }
  ck_assert_ptr_nonnull(s->seen);
  memset(s->seen, 0, (size_t)tiles);
  for (int32_t t = 0; t < tiles; ++t) {
    int32_t row, col;
    tp_schedule_tile_position(&k, t, &row, &col);
    if (row < 0 || row >= rows || col < 0 || col >= k.tiles_n)
      return "a tile outside the grid of tiles";
    if (s->seen[(size_t)row * (size_t)k.tiles_n + (size_t)col]++) return "a tile reached twice";
  }
  const int32_t units = TP_SCHEDULE_UNITS(tiles, k.split_from, k.splits);
  if (!k.stream_iters && (int64_t)r->launch.grid[0] / kp->cluster_m > units)
    return "more CTAs than work units";
  if (k.stream_iters) {
    const int32_t grid = (int32_t)r->launch.grid[0];
    for (int32_t cta = 0; cta < grid; ++cta) {
      const int32_t lo = tp_schedule_share_begin(k.grid_div, cta, k.stream_iters);
      const int32_t hi = tp_schedule_share_begin(k.grid_div, cta + 1, k.stream_iters);
      if (lo < hi && (tp_schedule_stream_owner(k.stream_div, lo, grid) != cta ||
                      tp_schedule_stream_owner(k.stream_div, hi - 1, grid) != cta))
        return "a stream-K share whose k-blocks another CTA owns";
    }
    if (tp_schedule_share_begin(k.grid_div, grid, k.stream_iters) != (int32_t)k.stream_iters)
      return "stream-K shares that do not end at the stream's end";
  }
  return NULL;
}

static void check_schedule(const sweep_case *c, void *ctx) {
  schedule_check *s = ctx;
  sweep_result r;
  sweep_plan(c, &r);
  if (r.status != TP_OK) return;
  ++s->plans;
  const char *problem = schedule_problem(s, c, &r);
  if (problem != NULL && s->failures++ == 0) {
    char key[256];
    sweep_key(c, key, sizeof key);
    snprintf(s->first, sizeof s->first, "%s: %s", key, problem);
  }
}

START_TEST(test_schedule_rules) {
  schedule_check s = {0};
  sweep_each(0, check_schedule, &s);
  free(s.seen);
  ck_assert_msg(s.failures == 0, "%ld of %ld plans: the first, %s", s.failures, s.plans,
                s.first);
  ck_assert_int_gt(s.plans, 1500);
}
END_TEST

/* --------------------------------------------------------------- errors */

/* A transposed request (tp_kernel_request.transposed) plans D^T = B A^T:
 * the narrowest transposed width that holds M (128 rows of B by 8, 16, 32
 * or 64 of A), one tile column, the kernel's A the GEMM's B (the weight,
 * streamed once: EVICT_FIRST) and its B the GEMM's A (EVICT_LAST), the
 * skeleton's m and n swapped, D and C reached through their pointers (no
 * TMA, nothing staged). Past 64 rows of A no transposed tile suits. */
START_TEST(test_transposed) {
  const sweep_operands w8a16 = {TP_DTYPE_BF16, TP_DTYPE_E4M3, TP_DTYPE_BF16, TP_DTYPE_BF16,
                                SWEEP_OPERANDS};
  static const struct {
    int64_t m;
    const char *suffix;
  } cases[] = {{1, "bf16_t128x8_c1"},   {8, "bf16_t128x8_c1"},   {9, "bf16_t128x16_c1"},
               {17, "bf16_t128x32_c1"}, {33, "bf16_t128x64_c1"}, {64, "bf16_t128x64_c1"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    sweep_case c;
    sweep_make(&c, 132, &w8a16, cases[i].m, 5000, 4096, 16, NULL);
    tp_kernel_request rq = request_of(&c);
    rq.transposed = 1;
    rq.k_group = 2;
    tp_payload_plan plan;
    tp_gpu_launch launch;
    char err[256], want[64];
    memset(&plan, 0, sizeof plan);
    ck_assert_msg(tp_kernel_plan_operands(&rq, &plan, &launch, err, sizeof err) == TP_OK,
                  "M = %lld: %s", (long long)cases[i].m, err);
    snprintf(want, sizeof want, "p_o_%s", cases[i].suffix);
    ck_assert_str_eq(launch.kernel, want);
    tp_kernel_plan kp;
    tp_kernel_plan_load(&plan, &kp);
    ck_assert_int_eq(kp.transposed, 1);
    ck_assert_int_eq(kp.tile_m, 128);
    ck_assert_int_eq(kp.tiles_m, (5000 + 127) / 128);
    ck_assert_int_eq(kp.tiles_n, 1);
    ck_assert_int_eq(kp.a_row_bytes, 64); /* the kernel's A is the fp8 weight */
    ck_assert_int_eq(kp.b_row_bytes, 128);
    ck_assert_int_eq(kp.c_staged_count, 0);
    ck_assert_int_eq(plan.tile.tile_k, 64);
    ck_assert_int_eq(plan.tile.k_group_size, 2);
    /* Few tiles (40): every tile's K split to fill the SMs. */
    ck_assert_int_gt(kp.splits, 1);

    tp_kernel_operands o;
    n_encoded = 0;
    ck_assert_int_eq(tp_kernel_operands_fill(&kp, &c.desc, &recording_host, &o, err, sizeof err),
                     TP_OK);
    ck_assert_int_eq(n_encoded, 2);
    ck_assert_int_eq(encoded[0].dtype, TP_DTYPE_E4M3);
    ck_assert_int_eq(encoded[0].rows, 5000);
    ck_assert_uint_eq(encoded[0].box_rows, 64);
    ck_assert_uint_eq(encoded[0].swizzle, 64);
    ck_assert_int_eq(encoded[1].dtype, TP_DTYPE_BF16);
    ck_assert_int_eq(encoded[1].rows, cases[i].m);
    ck_assert_uint_eq(encoded[1].box_rows, (uint32_t)kp.tile_n);
    ck_assert_uint_eq(encoded[1].swizzle, 128);
    ck_assert_uint_eq(o.a_policy, TP_TMA_L2_EVICT_FIRST);
    ck_assert_uint_eq(o.b_policy, TP_TMA_L2_EVICT_LAST);

    /* The skeleton's part: m and n are N and M, D and C by pointer only. */
    unsigned char workspace[1];
    plan.workspace = workspace;
    tp_kernel_params k;
    memset(&k, 0, sizeof k);
    n_encoded = 0;
    ck_assert_int_eq(tp_kernel_args_fill(&kp, &plan, &c.desc, &recording_host, &k, err,
                                         sizeof err),
                     TP_OK);
    ck_assert_int_eq(n_encoded, 0);
    ck_assert_int_eq(k.m, 5000);
    ck_assert_int_eq(k.n, (int32_t)cases[i].m);
    ck_assert_int_eq(k.n_tma, 0);
    ck_assert_int_eq(k.ldd, c.desc.d.stride[0]);
    ck_assert_int_eq(k.ldc, c.desc.c.stride[0]);
  }
  /* 65 rows of A: wider than every transposed tile. */
  sweep_case c;
  sweep_make(&c, 132, &w8a16, 65, 5000, 4096, 16, NULL);
  tp_kernel_request rq = request_of(&c);
  rq.transposed = 1;
  tp_kernel_plan kp;
  char err[256];
  ck_assert_int_eq(tp_kernel_plan_shape(&kp, &rq, err, sizeof err), TP_ERR_UNSUPPORTED);
  ASSERT_HAS(err, "t128x8, t128x16, t128x32, t128x64");
  ASSERT_HAS(err, "suits 5000x65");
  rq.transposed = 2;
  ck_assert_int_eq(tp_kernel_plan_shape(&kp, &rq, err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(err, "transposed 2 (0 or 1)");
}
END_TEST

START_TEST(test_request_errors) {
  const sweep_operands bf16 = {TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_NONE,
                               SWEEP_OPERANDS};
  sweep_case c;
  sweep_make(&c, 132, &bf16, 4096, 4096, 4096, 128, NULL);
  tp_kernel_plan kp;
  tp_payload_plan plan;
  tp_gpu_launch launch;
  char err[256];
  memset(&plan, 0, sizeof plan);

  ck_assert_int_eq(tp_kernel_plan_operands(NULL, &plan, &launch, err, sizeof err),
                   TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(err, "no kernel plan request (NULL)");
  tp_kernel_request rq = request_of(&c);
  rq.gpu = NULL;
  ck_assert_int_eq(tp_kernel_plan_shape(&kp, &rq, err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(err, "tp_kernel_request.gpu is NULL");
  rq = request_of(&c);
  rq.operands = NULL;
  ck_assert_int_eq(tp_kernel_plan_launch(&kp, &rq, &plan, &launch, err, sizeof err),
                   TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(err, "tp_kernel_request.operands is NULL");
  rq = request_of(&c);
  rq.k_group = -1;
  ck_assert_int_eq(tp_kernel_plan_shape(&kp, &rq, err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(err, "k_group -1");

  /* Operands without a dtype the codecs know. */
  rq = request_of(&c);
  c.desc.b.dtype = TP_DTYPE_NONE;
  ck_assert_int_eq(tp_kernel_plan_shape(&kp, &rq, err, sizeof err), TP_ERR_UNSUPPORTED);
  ASSERT_HAS(err, "no GPU kernel takes bf16 x none operands");
  c.desc.b.dtype = TP_DTYPE_BF16;

  /* A k-tile other than one 128-byte row of the wider operand has no
   * operand tiles to stage. */
  rq.k_elems = 128;
  ck_assert_int_eq(tp_kernel_plan_shape(&kp, &rq, err, sizeof err), TP_OK);
  ck_assert_int_eq(tp_kernel_plan_operand_tensors(&kp, &rq, &plan, err, sizeof err),
                   TP_ERR_INTERNAL);
  ASSERT_HAS(err, "operand tiles of bf16 x bf16 hold one 128-byte row of the wider operand's K "
                  "(64), not the plan's k-tile of 128");
  /* Nor descriptors for them. */
  tp_kernel_operands o;
  ck_assert_int_eq(tp_kernel_operands_fill(&kp, &c.desc, &recording_host, &o, err, sizeof err),
                   TP_ERR_INTERNAL);
  ASSERT_HAS(err, "the plan has no operand tiles");

  /* A D no kernel writes. */
  rq = request_of(&c);
  c.desc.d.dtype = TP_DTYPE_E4M3;
  ck_assert_int_eq(tp_kernel_plan_operands(&rq, &plan, &launch, err, sizeof err),
                   TP_ERR_UNSUPPORTED);
  ASSERT_HAS(err, "no GPU kernel writes a e4m3 D");
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("kernel_plan");
  TCase *tc = tcase_create("plan");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_pinned);
  tcase_add_test(tc, test_mixed_width);
  tcase_add_test(tc, test_mixed_width_staged_c);
  tcase_add_test(tc, test_schedule_rules);
  tcase_add_test(tc, test_request_errors);
  tcase_add_test(tc, test_transposed);
  suite_add_tcase(s, tc);
  return s;
}

/* --write FILE: the table of what the planner decides now. */
static int write_table(const char *path) {
  table_check t = {.table = fopen(path, "w"), .write = 1};
  if (t.table == NULL) {
    perror(path);
    return 1;
  }
  fprintf(t.table,
          "# tests/kernel_plans.txt: what the structured kernel's planner decides for each case\n"
          "# of tests/kernel_plan_sweep.h, in its order (tests/test_kernel_plan.c compares;\n"
          "# `tests/test_kernel_plan --write tests/kernel_plans.txt` rewrites it).\n");
  sweep_each(0, check_case, &t);
  return fclose(t.table) == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--write") == 0) return write_table(argv[2]);
  SRunner *sr = srunner_create(suite());
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
