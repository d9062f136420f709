/* tests/test_cpu_bounds.c: the CPU backend reads and writes no byte outside
 * its tensors, seen without a sanitizer.
 *
 * Each tensor of a problem (tilepipe/reference.h) is copied into memory of
 * its own whose span touches a page the process may not read (mmap,
 * PROT_NONE): once with its last byte just before that page, once with its
 * first byte just after one. Rows are back to back (no padding to absorb a
 * stray access) and M, N and K ragged against every tile and panel (13 rows
 * of A are one panel of 8 and a part; 37 of B one panel of 32 and a part),
 * so an access one row, one element or one panel past a tensor's end (or
 * before its start) stops the test with SIGSEGV, which Check reports as
 * the test's error. D comes back into the problem and is judged against
 * the f64 reference, so the run is a real one. Every shipped payload runs,
 * each operand and scale layout, through store and residual (C in memory
 * of its own, f32 under a bf16 D). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <check.h>

#include "tilepipe/reference.h"
#include "tilepipe/tilepipe.h"

static tp_registry *reg;

/* A mapping whose usable part holds `bytes` bytes next to a PROT_NONE page:
 * after them (at_end) or before them. */
typedef struct guarded {
  void *map;
  size_t map_bytes;
  void *data;
} guarded;

static guarded guarded_copy(const void *src, size_t bytes, int at_end) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  const size_t usable = (bytes + page - 1) / page * page;
  guarded g = {.map_bytes = usable + page};
  g.map = mmap(NULL, g.map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ck_assert_ptr_ne(g.map, MAP_FAILED);
  unsigned char *base = g.map;
  if (at_end) {
    ck_assert_int_eq(mprotect(base + usable, page, PROT_NONE), 0);
    g.data = base + usable - bytes;
  } else {
    ck_assert_int_eq(mprotect(base, page, PROT_NONE), 0);
    g.data = base + page;
  }
  memcpy(g.data, src, bytes);
  return g;
}

typedef struct operands {
  const char *payload;
  tp_dtype a, b;
  tp_layout sf;
} operands;

static const operands operand_sets[] = {
    {"standard", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_LAYOUT_STRIDED},
    {"standard", TP_DTYPE_F16, TP_DTYPE_F16, TP_LAYOUT_STRIDED},
    {"standard", TP_DTYPE_E4M3, TP_DTYPE_E5M2, TP_LAYOUT_STRIDED},
    {"blockwise_fp8", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_LAYOUT_STRIDED},
    {"block_scaled", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_LAYOUT_STRIDED},
    {"block_scaled", TP_DTYPE_E5M2, TP_DTYPE_E4M3, TP_LAYOUT_SF_128X4},
    {"block_scaled", TP_DTYPE_BF16, TP_DTYPE_E4M3, TP_LAYOUT_STRIDED},
    {"block_scaled", TP_DTYPE_E2M1, TP_DTYPE_E2M1, TP_LAYOUT_STRIDED},
    {"block_scaled", TP_DTYPE_E2M1, TP_DTYPE_E2M1, TP_LAYOUT_SF_128X4},
};
#define NUM_SETS ((int)(sizeof operand_sets / sizeof operand_sets[0]))

/* Case _i: operand set _i / 4, guard after or before (bit 0), store or
 * residual (bit 1). */
START_TEST(test_no_access_outside) {
  const operands *ops = &operand_sets[_i / 4];
  const int at_end = _i % 2 == 0, residual = _i / 2 % 2;
  const tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = reg,
                                    .payload = ops->payload, .a = ops->a, .b = ops->b,
                                    .d = TP_DTYPE_BF16, .c = residual ? TP_DTYPE_F32 : TP_DTYPE_NONE,
                                    .sf_layout = ops->sf, .m = 13, .n = 37, .k = 224,
                                    .alpha = 0.75f, .beta = residual ? -0.5f : 0.0f};
  char err[512];
  tp_ref_problem *p;
  ck_assert_msg(tp_ref_problem_create(&p, &spec, 500u + (uint64_t)_i, err, sizeof err) == TP_OK,
                "%s", err);
  ck_assert_msg(tp_ref_problem_expect(p, residual ? TP_REF_RESIDUAL : TP_REF_STORE, err,
                                      sizeof err) == TP_OK,
                "%s", err);
  tp_gemm_desc desc = *tp_ref_problem_desc(p);
  guarded copies[TP_REF_TENSORS];
  memset(copies, 0, sizeof copies);
  for (int t = 0; t < TP_REF_TENSORS; t++) {
    int64_t bytes;
    const void *buf = tp_ref_problem_buffer(p, (tp_ref_tensor)t, &bytes);
    if (buf == NULL) continue;
    copies[t] = guarded_copy(buf, (size_t)bytes, at_end);
    tp_ref_desc_tensor(&desc, (tp_ref_tensor)t)->data = copies[t].data;
  }
  tp_plan *plan = NULL;
  ck_assert_msg(tp_plan_create(&plan, reg, ops->payload, residual ? "residual" : "store", &desc,
                               TP_BACKEND_CPU) == TP_OK,
                "%s", tp_error_message());
  ck_assert_msg(tp_plan_run(plan, &desc, NULL) == TP_OK, "%s", tp_error_message());
  tp_plan_destroy(plan);
  int64_t d_bytes;
  void *d = tp_ref_problem_buffer(p, TP_REF_D, &d_bytes);
  memcpy(d, copies[TP_REF_D].data, (size_t)d_bytes);
  const tp_ref_tolerance tol = tp_ref_problem_tolerance(p, TP_BACKEND_CPU);
  tp_ref_report rep = {.struct_size = sizeof rep};
  ck_assert_int_eq(tp_ref_problem_check(p, &tol, &rep), TP_OK);
  tp_ref_report_format(&rep, err, sizeof err);
  ck_assert_msg(rep.pass, "%s A=%s B=%s: %s", ops->payload, tp_dtype_name(ops->a),
                tp_dtype_name(ops->b), err);
  for (int t = 0; t < TP_REF_TENSORS; t++)
    if (copies[t].map != NULL) munmap(copies[t].map, copies[t].map_bytes);
  tp_ref_problem_destroy(p);
}
END_TEST

int main(void) {
  if (tp_registry_open(&reg, TP_TEST_REGISTRY) != TP_OK) {
    fprintf(stderr, "cannot open %s: %s\n", TP_TEST_REGISTRY, tp_error_message());
    return 1;
  }
  Suite *s = suite_create("cpu_bounds");
  TCase *tc = tcase_create("guarded");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_no_access_outside, 0, NUM_SETS * 4);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  tp_registry_close(reg);
  return failed == 0 ? 0 : 1;
}
