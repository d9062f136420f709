/* tests/test_storage.c: the tile storages and the shared-memory planner.
 *
 * Every expected number below was worked out by hand from the layout rules
 * in storage.h (tiles first, each array at its alignment, then the output
 * chunks, the barriers), not read back from the planner. The tile storages
 * (tests/tile_storage.h) build the stage tensors of each payload kind.
 * Besides the table: the invariants every layout must keep (every swizzled
 * tile 1024-aligned, regions disjoint and inside the total, barrier counts
 * from the stage counts), budget exhaustion, an exact stage request that
 * does not fit, and malformed requests. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tile_storage.h"
#include "tilepipe/internal/pipeline/storage.h"

#define KB 1024u

static tp_tile_config tile(int32_t m, int32_t n, int32_t k, int32_t kg) {
  tp_tile_config c;
  memset(&c, 0, sizeof c);
  c.tile_m = m;
  c.tile_n = n;
  c.tile_k = k;
  c.k_group_size = kg;
  c.cluster_m = c.cluster_n = 1;
  c.consumers = 2;
  return c;
}

/* ------------------------------------------------------- tile storages */

START_TEST(standard_tiles) {
  tp_stage_tensor t[TP_MAX_STAGE_TENSORS];
  uint32_t n = 9;
  tp_tile_config c = tile(128, 256, 64, 1);
  ck_assert_int_eq(tp_tile_storage_standard(TP_DTYPE_BF16, TP_DTYPE_BF16, &c, t, &n, NULL), TP_OK);
  ck_assert_uint_eq(n, 2);
  ck_assert_uint_eq(t[0].bytes, 16 * KB); /* 128 x 64 x 2 */
  ck_assert_uint_eq(t[1].bytes, 32 * KB); /* 256 x 64 x 2 */
  ck_assert_uint_eq(t[0].align, 1024);
  ck_assert_uint_eq(t[1].align, 1024);

  c = tile(128, 128, 128, 1);
  ck_assert_int_eq(tp_tile_storage_standard(TP_DTYPE_E4M3, TP_DTYPE_E5M2, &c, t, &n, NULL), TP_OK);
  ck_assert_uint_eq(t[0].bytes, 16 * KB);
  ck_assert_uint_eq(t[1].bytes, 16 * KB);
}
END_TEST

START_TEST(blockwise_fp8_tiles) {
  tp_stage_tensor t[TP_MAX_STAGE_TENSORS];
  uint32_t n = 0;
  const char *why = NULL;
  tp_tile_config c = tile(128, 128, 128, 1);
  ck_assert_int_eq(tp_tile_storage_blockwise_fp8(TP_DTYPE_E4M3, TP_DTYPE_E4M3, &c, t, &n, &why),
                   TP_OK);
  ck_assert_uint_eq(n, 3);
  ck_assert_uint_eq(t[2].bytes, 512); /* f32 [128] */
  ck_assert_uint_eq(t[2].align, TP_TMA_ALIGN);

  ck_assert_int_eq(tp_tile_storage_blockwise_fp8(TP_DTYPE_BF16, TP_DTYPE_E4M3, &c, t, &n, &why),
                   TP_ERR_UNSUPPORTED);
  ck_assert_uint_eq(n, 0);
  ck_assert_ptr_nonnull(strstr(why, "blockwise FP8 takes e4m3 or e5m2"));
}
END_TEST

START_TEST(block_scaled_tiles) {
  tp_stage_tensor t[TP_MAX_STAGE_TENSORS];
  uint32_t n = 0;
  const char *why = NULL;
  /* MXFP8 128x128x128: 4 ue8m0 scales per row of 128. */
  tp_tile_config c = tile(128, 128, 128, 1);
  ck_assert_int_eq(tp_tile_storage_block_scaled(TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_UE8M0, 32,
                                                &c, t, &n, &why),
                   TP_OK);
  ck_assert_uint_eq(n, 4);
  ck_assert_uint_eq(t[0].bytes, 16 * KB);
  ck_assert_uint_eq(t[2].bytes, 512);
  ck_assert_uint_eq(t[3].bytes, 512);
  /* NVFP4 64x192x256: packed A 64 x 128 bytes; 16 ue4m3 scales per row,
   * rows padded to 128 (SFA) and 256 (SFB). */
  c = tile(64, 192, 256, 1);
  ck_assert_int_eq(tp_tile_storage_block_scaled(TP_DTYPE_E2M1, TP_DTYPE_E2M1, TP_DTYPE_UE4M3, 16,
                                                &c, t, &n, &why),
                   TP_OK);
  ck_assert_uint_eq(t[0].bytes, 8 * KB);
  ck_assert_uint_eq(t[1].bytes, 24 * KB);
  ck_assert_uint_eq(t[2].bytes, 2 * KB);
  ck_assert_uint_eq(t[3].bytes, 4 * KB);
  ck_assert_uint_eq(t[3].align, TP_TMA_ALIGN);

  /* MXFP8 needs whole 4-scale atoms along K: 128 elements. */
  c = tile(128, 128, 64, 1);
  ck_assert_int_eq(tp_tile_storage_block_scaled(TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_UE8M0, 32,
                                                &c, t, &n, &why),
                   TP_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(why, "not a multiple of 4 scale vectors"));
  /* NVFP4 scales with MXFP8 data. */
  ck_assert_int_eq(tp_tile_storage_block_scaled(TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_UE4M3, 16,
                                                &c, t, &n, &why),
                   TP_ERR_UNSUPPORTED);
  ck_assert_uint_eq(n, 0);
}
END_TEST

START_TEST(chunk_and_bad_tiles) {
  tp_stage_tensor t[TP_MAX_STAGE_TENSORS];
  tp_stage_tensor chunk;
  uint32_t n = 0;
  const char *why = NULL;
  ck_assert_int_eq(tp_tile_storage_chunk(TP_DTYPE_BF16, 128, 64, &chunk, &why), TP_OK);
  ck_assert_uint_eq(chunk.bytes, 16 * KB);
  ck_assert_uint_eq(chunk.align, 1024);
  ck_assert_int_eq(tp_tile_storage_chunk(TP_DTYPE_NONE, 128, 64, &chunk, &why),
                   TP_ERR_INVALID_ARGUMENT);

  tp_tile_config c = tile(0, 128, 64, 1);
  ck_assert_int_eq(tp_tile_storage_standard(TP_DTYPE_BF16, TP_DTYPE_BF16, &c, t, &n, &why),
                   TP_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(why, "not positive"));
  ck_assert_int_eq(tp_tile_storage_standard(TP_DTYPE_BF16, TP_DTYPE_BF16, NULL, t, &n, &why),
                   TP_ERR_INVALID_ARGUMENT);
  /* 1 x 8 fp4 = 4 bytes: TMA moves multiples of 16. */
  c = tile(1, 1, 8, 1);
  ck_assert_int_eq(tp_tile_storage_standard(TP_DTYPE_E2M1, TP_DTYPE_E2M1, &c, t, &n, &why),
                   TP_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(why, "multiple of 16"));
  ck_assert_uint_eq(n, 0);
}
END_TEST

/* -------------------------------------------------------- planner table */

typedef enum kind { STANDARD, BLOCKWISE, MXFP8, NVFP4 } kind;

typedef struct config {
  const char *name;
  kind kind;
  tp_dtype a;
  int32_t m, n, k, kg;
  uint32_t stages_asked;
  uint32_t out_stages;  /* bf16 128 x 64 chunks */
  uint32_t c_in_output; /* source_in_output: C loaded into the output chunks */
  uint32_t budget;
  /* expected */
  uint32_t stages;
  uint32_t tensor_offset[4];
  uint32_t output, barriers;
  uint32_t total, expect_bytes;
} config;

static const config kConfigs[] = {
    /* 48 KiB a stage + 16 B of barriers, 32 KiB of output: 4 stages. */
    {"bf16 128x256x64, bf16 output ring", STANDARD, TP_DTYPE_BF16, 128, 256, 64, 1, 0, 2, 0,
     TP_SMEM_BUDGET_H100, 4, {0, 65536}, 196608, 229376, 229472, 49152},
    /* 32 KiB a stage: 6 stages + output (7 would need 262144). */
    {"bf16 128x128x64, bf16 output ring", STANDARD, TP_DTYPE_BF16, 128, 128, 64, 1, 0, 2, 0,
     TP_SMEM_BUDGET_H100, 6, {0, 98304}, 196608, 229376, 229504, 32768},
    /* No output ring: 7 stages of 32 KiB + 112 B of barriers. */
    {"fp8 128x128x128", STANDARD, TP_DTYPE_E4M3, 128, 128, 128, 1, 0, 0, 0, TP_SMEM_BUDGET_H100, 7,
     {0, 114688}, 229376, 229376, 229488, 32768},
    /* A-scales (512 B, 128-aligned) after B; the output ring realigns to
     * 1024. 6 stages would end at 232576. */
    {"blockwise fp8 128x128x128 with A-scales", BLOCKWISE, TP_DTYPE_E4M3, 128, 128, 128, 1, 0, 2,
     0, TP_SMEM_BUDGET_H100, 5, {0, 81920, 163840}, 166912, 199680, 199792, 33280},
    {"MXFP8 128x128x128 with SFA, SFB", MXFP8, TP_DTYPE_E4M3, 128, 128, 128, 1, 0, 2, 0,
     TP_SMEM_BUDGET_H100, 5, {0, 81920, 163840, 166400}, 168960, 201728, 201840, 33792},
    /* C in the output chunks: a source pair per chunk and the load-order
     * barrier, no bytes of C's own. 5 stages of 36 KiB (16 + 16 + 2 + 2):
     * 184320 + 32768 of chunks, then 80 + 32 + 32 + 8 of barriers; 6 would
     * need 253952 before the barriers. */
    {"NVFP4 128x128x256 with C in the output ring", NVFP4, TP_DTYPE_E2M1, 128, 128, 256, 1, 0, 2,
     1, TP_SMEM_BUDGET_H100, 5, {0, 81920, 163840, 174080}, 184320, 217088, 217240, 36864},
    /* k_group_size 2: 3 stages of two k-blocks, 6 tiles per array. */
    {"bf16 128x128x64, k_group_size 2", STANDARD, TP_DTYPE_BF16, 128, 128, 64, 2, 0, 0, 0,
     TP_SMEM_BUDGET_H100, 3, {0, 98304}, 196608, 196608, 196656, 65536},
    /* An exact stage count that fits. */
    {"bf16 128x256x64, exactly 3 stages", STANDARD, TP_DTYPE_BF16, 128, 256, 64, 1, 3, 2, 0,
     TP_SMEM_BUDGET_H100, 3, {0, 49152}, 147456, 180224, 180304, 49152},
    /* A budget of exactly the 4-stage total still gives 4; one byte less, 3. */
    {"bf16 128x256x64, budget = 4-stage total", STANDARD, TP_DTYPE_BF16, 128, 256, 64, 1, 0, 2, 0,
     229472, 4, {0, 65536}, 196608, 229376, 229472, 49152},
    {"bf16 128x256x64, budget one byte short", STANDARD, TP_DTYPE_BF16, 128, 256, 64, 1, 0, 2, 0,
     229471, 3, {0, 49152}, 147456, 180224, 180304, 49152},
};
#define NUM_CONFIGS (int)(sizeof kConfigs / sizeof kConfigs[0])

static tp_storage_request request_for(const config *c) {
  tp_storage_request r = tp_storage_request_make(c->budget);
  tp_tile_config t = tile(c->m, c->n, c->k, c->kg);
  const char *why = NULL;
  tp_status st = TP_ERR_INTERNAL;
  switch (c->kind) {
  case STANDARD:
    st = tp_tile_storage_standard(c->a, c->a, &t, r.tensors, &r.num_tensors, &why);
    break;
  case BLOCKWISE:
    st = tp_tile_storage_blockwise_fp8(c->a, c->a, &t, r.tensors, &r.num_tensors, &why);
    break;
  case MXFP8:
    st = tp_tile_storage_block_scaled(c->a, c->a, TP_DTYPE_UE8M0, 32, &t, r.tensors,
                                      &r.num_tensors, &why);
    break;
  case NVFP4:
    st = tp_tile_storage_block_scaled(c->a, c->a, TP_DTYPE_UE4M3, 16, &t, r.tensors,
                                      &r.num_tensors, &why);
    break;
  }
  ck_assert_msg(st == TP_OK, "%s: %s", c->name, why ? why : "?");
  r.k_group_size = (uint32_t)c->kg;
  r.stages = c->stages_asked;
  if (c->out_stages) {
    ck_assert_int_eq(tp_tile_storage_chunk(TP_DTYPE_BF16, 128, 64, &r.output_chunk, NULL), TP_OK);
    r.output_stages = c->out_stages;
  }
  r.source_in_output = c->c_in_output;
  return r;
}

typedef struct span {
  uint64_t begin, end;
} span;

/* What every layout must keep, whatever the request. */
static void check_invariants(const char *name, const tp_storage_request *r,
                             const tp_storage_layout *L) {
  span spans[16];
  int n = 0;
  const tp_smem_array *arrays[TP_MAX_STAGE_TENSORS + 1];
  uint32_t aligns[TP_MAX_STAGE_TENSORS + 1];
  int na = 0;
  for (uint32_t t = 0; t < L->num_tensors; ++t) {
    ck_assert_uint_eq(L->tensors[t].count, L->stages * L->k_group_size);
    aligns[na] = r->tensors[t].align;
    arrays[na++] = &L->tensors[t];
  }
  /* The output ring: what was asked for, grown no further than allowed. */
  ck_assert_uint_eq(L->output.count, L->output_stages);
  ck_assert_uint_ge(L->output_stages, r->output_stages);
  ck_assert_uint_le(L->output_stages, r->output_stages_max > r->output_stages
                                          ? r->output_stages_max
                                          : r->output_stages);
  aligns[na] = r->output_chunk.align;
  arrays[na++] = &L->output;
  /* The source ring is the output chunks, a barrier pair each, or none. */
  ck_assert_uint_eq(L->source_stages, r->source_in_output ? L->output_stages : 0u);
  for (int i = 0; i < na; ++i) {
    const tp_smem_array *a = arrays[i];
    if (a->count == 0) continue;
    ck_assert_uint_ge(a->stride, a->bytes);
    for (uint32_t j = 0; j < a->count; ++j) {
      uint64_t at = (uint64_t)a->offset + (uint64_t)j * a->stride;
      ck_assert_msg(at % aligns[i] == 0, "%s: array %d tile %u at %llu is not %u-aligned", name, i,
                    j, (unsigned long long)at, aligns[i]);
    }
    spans[n++] = (span){a->offset, (uint64_t)a->offset + (uint64_t)a->stride * a->count};
  }
  /* The barriers: counts follow from the stage counts. */
  uint32_t expect_barrier_bytes = 16u * L->stages + 16u * L->output_stages +
                                  16u * L->source_stages + (L->source_stages ? 8u : 0u);
  ck_assert_uint_eq(L->barrier_bytes, expect_barrier_bytes);
  ck_assert_uint_eq(L->barrier_offset % 8, 0);
  ck_assert_uint_eq(L->input_barriers, L->barrier_offset);
  ck_assert_uint_eq(L->output_barriers, L->input_barriers + 16u * L->stages);
  ck_assert_uint_eq(L->source_barriers, L->output_barriers + 16u * L->output_stages);
  ck_assert_uint_eq(L->load_order_barrier, L->source_barriers + 16u * L->source_stages);
  spans[n++] = (span){L->barrier_offset, (uint64_t)L->barrier_offset + L->barrier_bytes};
  ck_assert_uint_eq(L->total_bytes, L->barrier_offset + L->barrier_bytes);
  ck_assert_uint_le(L->total_bytes, r->budget);
  for (int i = 0; i < n; ++i) {
    ck_assert_uint_le(spans[i].end, L->total_bytes);
    for (int j = i + 1; j < n; ++j)
      ck_assert_msg(spans[i].end <= spans[j].begin || spans[j].end <= spans[i].begin,
                    "%s: regions %d and %d overlap", name, i, j);
  }
}

START_TEST(planner_table) {
  const config *c = &kConfigs[_i];
  tp_storage_request r = request_for(c);
  tp_storage_layout L;
  ck_assert_msg(tp_storage_plan(&r, &L) == TP_OK, "%s: %s", c->name, L.error);
  ck_assert_ptr_null(L.error);
  ck_assert_msg(L.stages == c->stages, "%s: %u stages, expected %u", c->name, L.stages, c->stages);
  for (uint32_t t = 0; t < L.num_tensors; ++t)
    ck_assert_msg(L.tensors[t].offset == c->tensor_offset[t], "%s: tensor %u at %u, expected %u",
                  c->name, t, L.tensors[t].offset, c->tensor_offset[t]);
  ck_assert_uint_eq(L.output.offset, c->output);
  ck_assert_uint_eq(L.barrier_offset, c->barriers);
  ck_assert_msg(L.total_bytes == c->total, "%s: %u bytes, expected %u", c->name, L.total_bytes,
                c->total);
  ck_assert_uint_eq(L.expect_bytes, c->expect_bytes);
  check_invariants(c->name, &r, &L);

  /* One more stage must not fit (unless the count was asked for). */
  if (c->stages_asked == 0 && c->stages < TP_STORAGE_MAX_STAGES) {
    tp_storage_request more = r;
    more.stages = c->stages + 1;
    tp_storage_layout M;
    ck_assert_int_eq(tp_storage_plan(&more, &M), TP_ERR_UNSUPPORTED);
    ck_assert_uint_gt(M.need_bytes, r.budget);
  }
}
END_TEST

/* The layout placed in memory: pipelines and payload point where it says. */
START_TEST(layout_in_memory) {
  tp_storage_request r = request_for(&kConfigs[5]); /* NVFP4 with C in the output ring */
  tp_storage_layout L;
  ck_assert_int_eq(tp_storage_plan(&r, &L), TP_OK);
  unsigned char *base = aligned_alloc(1024, (L.total_bytes + 1023u) / 1024u * 1024u);
  ck_assert_ptr_nonnull(base);
  tp_storage_counts counts = {8, 4, 1}; /* source empty: the store alone */
  tp_storage_init_barriers(base, &L, &counts);
  tp_input_pipeline ip = tp_storage_input_pipeline(base, &L, 1);
  ck_assert_uint_eq(ip.expect_bytes, L.expect_bytes);
  ck_assert_uint_eq(ip.pipe.stages, L.stages);
  ck_assert_ptr_eq(ip.pipe.full, (tp_mbar *)(base + L.input_barriers));
  ck_assert_ptr_eq(ip.pipe.empty, (tp_mbar *)(base + L.input_barriers) + L.stages);
  ck_assert_ptr_eq(tp_tile_payload_tile(&ip.payload, 3, 2, 0), base + 163840 + 3 * 2048);
  ck_assert_ptr_eq(tp_tile_payload_tile(&ip.payload, 1, 3, 0), base + 174080 + 2048);
  /* A freshly initialised input empty barrier counts 8 consumer arrivals. */
  ck_assert_uint_eq(tp_mbar_host_count(atomic_load(&ip.pipe.empty[0].word)), 8);
  ck_assert_uint_eq(tp_mbar_host_count(atomic_load(&ip.pipe.full[0].word)), 1);

  tp_output_pipeline op = tp_storage_output_pipeline(base, &L);
  ck_assert_uint_eq(op.pipe.stages, 2);
  ck_assert_ptr_eq(op.chunks.base, base + 184320);
  ck_assert_ptr_eq(op.pipe.full, (tp_mbar *)(base + 217088 + 80));
  ck_assert_uint_eq(tp_mbar_host_count(atomic_load(&op.pipe.full[1].word)), 4);
  ck_assert_uint_eq(tp_mbar_host_count(atomic_load(&op.pipe.empty[1].word)), 1);

  /* The source ring: the output chunks, its own barrier pair. */
  tp_input_pipeline ep = tp_storage_epi_load_pipeline(base, &L);
  ck_assert_uint_eq(ep.pipe.stages, 2);
  ck_assert_uint_eq(ep.expect_bytes, 16 * KB);
  ck_assert_ptr_eq(tp_tile_payload_tile(&ep.payload, 1, 0, 0), base + 184320 + 16384);
  ck_assert_ptr_eq(ep.pipe.full, (tp_mbar *)(base + 217088 + 80 + 32));
  ck_assert_uint_eq(tp_mbar_host_count(atomic_load(&ep.pipe.full[0].word)), 1);
  ck_assert_uint_eq(tp_mbar_host_count(atomic_load(&ep.pipe.empty[0].word)), 1);

  tp_load_order lo = tp_storage_load_order(base, &L);
  ck_assert_ptr_eq(lo.mbar, (tp_mbar *)(base + 217232));
  ck_assert_uint_eq(tp_mbar_host_count(atomic_load(&lo.mbar->word)), 1);
  free(base);
}
END_TEST

/* The epilogue's chunks, bf16 128x256x64 on the H100 (the standard
 * payload's residual): C loaded into the output chunks, and the ring grown
 * into what the input stages leave. Worked out by hand: a stage is 48 KiB,
 * a chunk 16 KiB, barriers 16 bytes a pair plus 8 for the load order. */
typedef struct ring_case {
  const char *name;
  uint32_t stages_asked, out_max, in_output;
  uint32_t stages, out_stages, output_offset, total;
} ring_case;

static const ring_case kRings[] = {
    /* 4 stages leave 3 KiB: the ring stays at 2, C in its 2 chunks. */
    {"C in output, most stages", 0, 4, 1, 4, 2, 196608, 229376 + 64 + 32 + 32 + 8},
    /* 3 stages leave room for 5 chunks; grown to the 4 allowed. */
    {"C in output, 3 stages, up to 4 chunks", 3, 4, 1, 3, 4, 147456, 212992 + 48 + 64 + 64 + 8},
    {"C in output, 3 stages, up to 8 chunks", 3, 8, 1, 3, 5, 147456, 229376 + 48 + 80 + 80 + 8},
    /* No C: the output ring alone grows. */
    {"store only, 3 stages, up to 8 chunks", 3, 8, 0, 3, 5, 147456, 229376 + 48 + 80},
};

START_TEST(epilogue_ring_choices) {
  const ring_case *c = &kRings[_i];
  tp_storage_request r = request_for(&kConfigs[0]); /* bf16 128x256x64, 2 output chunks */
  r.stages = c->stages_asked;
  r.output_stages_max = c->out_max;
  r.source_in_output = c->in_output;
  tp_storage_layout L;
  ck_assert_msg(tp_storage_plan(&r, &L) == TP_OK, "%s: %s", c->name, L.error);
  ck_assert_msg(L.stages == c->stages && L.output_stages == c->out_stages,
                "%s: %u stages, %u chunks; expected %u, %u", c->name, L.stages, L.output_stages,
                c->stages, c->out_stages);
  ck_assert_uint_eq(L.output.offset, c->output_offset);
  ck_assert_uint_eq(L.source_stages, c->in_output ? c->out_stages : 0u);
  ck_assert_uint_eq(L.load_order_barrier, L.source_barriers + 16u * L.source_stages);
  ck_assert_msg(L.total_bytes == c->total, "%s: %u bytes, expected %u", c->name, L.total_bytes,
                c->total);
  check_invariants(c->name, &r, &L);
  /* One more chunk would not have fitted, unless the cap stopped the ring. */
  if (L.output_stages < c->out_max) {
    tp_storage_request more = r;
    more.stages = L.stages;
    more.output_stages = L.output_stages + 1;
    more.output_stages_max = 0;
    tp_storage_layout M;
    ck_assert_int_eq(tp_storage_plan(&more, &M), TP_ERR_UNSUPPORTED);
  }
}
END_TEST

/* ------------------------------------------------------------ failures */

START_TEST(budget_exhausted) {
  tp_storage_request r = request_for(&kConfigs[0]);
  r.budget = 40000; /* one 128x256x64 bf16 stage is 49152 + 16 */
  r.output_stages = 0;
  r.output_chunk.bytes = 0;
  tp_storage_layout L;
  ck_assert_int_eq(tp_storage_plan(&r, &L), TP_ERR_UNSUPPORTED);
  ck_assert_str_eq(L.error, "storage: not even one stage fits the budget");
  ck_assert_uint_eq(L.need_bytes, 49168);
}
END_TEST

START_TEST(exact_stages_do_not_fit) {
  tp_storage_request r = request_for(&kConfigs[0]);
  r.stages = 5;
  tp_storage_layout L;
  ck_assert_int_eq(tp_storage_plan(&r, &L), TP_ERR_UNSUPPORTED);
  ck_assert_str_eq(L.error, "storage: the requested stage count does not fit the budget");
  ck_assert_uint_eq(L.need_bytes, 5u * 49152u + 32768u + 80u + 32u);
}
END_TEST

typedef struct bad_request {
  const char *why; /* a part of the expected message */
  void (*spoil)(tp_storage_request *r);
} bad_request;

static void no_tensors(tp_storage_request *r) { r->num_tensors = 0; }
static void five_tensors(tp_storage_request *r) { r->num_tensors = 5; }
static void odd_bytes(tp_storage_request *r) { r->tensors[1].bytes = 1000; }
static void small_align(tp_storage_request *r) { r->tensors[0].align = 8; }
static void odd_align(tp_storage_request *r) { r->tensors[0].align = 1000; }
static void zero_group(tp_storage_request *r) { r->k_group_size = 0; }
static void too_many_stages(tp_storage_request *r) { r->stages = TP_STORAGE_MAX_STAGES + 1; }
static void ring_without_stages(tp_storage_request *r) { r->output_stages = 0; }
static void odd_chunk(tp_storage_request *r) { r->output_chunk.bytes = 16 * KB + 8; }
static void chunk_align(tp_storage_request *r) { r->output_chunk.align = 8; }
static void ring_max_below(tp_storage_request *r) { r->output_stages_max = 1; }
static void ring_over_max(tp_storage_request *r) {
  r->output_stages_max = TP_STORAGE_MAX_STAGES + 1;
}
static void source_flag_two(tp_storage_request *r) { r->source_in_output = 2; }
static void shared_without_output(tp_storage_request *r) {
  r->source_in_output = 1;
  r->output_chunk.bytes = 0;
  r->output_stages = 0;
}
static void stage_over_tx(tp_storage_request *r) { r->k_group_size = 32; } /* 32 x 48 KiB */
static void c_chunk_over_tx(tp_storage_request *r) { /* 1 MiB of C: one past the count */
  r->output_chunk.bytes = 1u << 20;
  r->source_in_output = 1;
}

static const bad_request kBad[] = {
    {"a payload stages 1 to 4 tensors", no_tensors},
    {"a payload stages 1 to 4 tensors", five_tensors},
    {"not a multiple of 16 bytes", odd_bytes},
    {"alignment is not a power of two >= 16", small_align},
    {"alignment is not a power of two >= 16", odd_align},
    {"k_group_size must be 1 to 32", zero_group},
    {"more than 32 stages", too_many_stages},
    {"output ring needs both", ring_without_stages},
    {"output chunk is not a multiple of 16 bytes", odd_chunk},
    {"output chunk is not a multiple of 16 bytes", chunk_align},
    {"output_stages_max is below output_stages", ring_max_below},
    {"an output ring of more than 32 stages", ring_over_max},
    {"source_in_output is 0 or 1", source_flag_two},
    {"source_in_output needs an output ring", shared_without_output},
    {"one stage's bytes exceed an mbarrier's transaction count", stage_over_tx},
    {"an output chunk that C is loaded into exceeds", c_chunk_over_tx},
};

START_TEST(malformed_requests) {
  tp_storage_request r = request_for(&kConfigs[0]);
  kBad[_i].spoil(&r);
  tp_storage_layout L;
  ck_assert_int_eq(tp_storage_plan(&r, &L), TP_ERR_INVALID_ARGUMENT);
  ck_assert_msg(L.error && strstr(L.error, kBad[_i].why), "got \"%s\", expected \"%s\"",
                L.error ? L.error : "(none)", kBad[_i].why);
  ck_assert_int_eq(tp_storage_plan(NULL, &L), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_storage_plan(&r, NULL), TP_ERR_INVALID_ARGUMENT);
}
END_TEST

static Suite *storage_suite(void) {
  Suite *s = suite_create("storage");
  TCase *tiles = tcase_create("tile_storage");
  tcase_add_test(tiles, standard_tiles);
  tcase_add_test(tiles, blockwise_fp8_tiles);
  tcase_add_test(tiles, block_scaled_tiles);
  tcase_add_test(tiles, chunk_and_bad_tiles);
  suite_add_tcase(s, tiles);
  TCase *plan = tcase_create("planner");
  tcase_add_loop_test(plan, planner_table, 0, NUM_CONFIGS);
  tcase_add_test(plan, layout_in_memory);
  tcase_add_loop_test(plan, epilogue_ring_choices, 0, (int)(sizeof kRings / sizeof kRings[0]));
  tcase_add_test(plan, budget_exhausted);
  tcase_add_test(plan, exact_stages_do_not_fit);
  tcase_add_loop_test(plan, malformed_requests, 0, (int)(sizeof kBad / sizeof kBad[0]));
  suite_add_tcase(s, plan);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(storage_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
