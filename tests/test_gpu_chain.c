/* tests/test_gpu_chain.c: GEMMs queued back to back on one stream, where
 * each kernel is launched as the programmatic dependent of the one before
 * it (tilepipe/internal/kernel/grid_dependency.h): a kernel may start while its
 * predecessor still runs, and must touch no memory before that one is
 * done. Exits 77 when there is no usable GPU.
 *
 * - Read after write: GEMM 2 multiplies GEMM 1's D, which is poisoned
 *   (NaN) before GEMM 1 runs; a GEMM 2 that read it early would carry NaN.
 * - Write after read: GEMM 2 writes its D over GEMM 1's A; a GEMM 2 that
 *   wrote early would change what GEMM 1 reads.
 * GEMM 1 is long (K = 8192) and GEMM 2 short and split over K (its
 * workspace too must wait), so an early start would overlap; each chain
 * runs several times. Both Ds are checked against the f64 reference:
 * GEMM 1's from the inputs, GEMM 2's from GEMM 1's D as it came back. */
#include <stdlib.h>

#include <check.h>

#include "tests/tuned_registry.h"
#include "tilepipe/device.h"
#include "tilepipe/tilepipe.h"
#include "tilepipe/reference.h"

enum { M = 256, K1 = 8192, N1 = 1024, N2 = 512, CHAINS = 8 };

static tp_registry *reg;

/* GEMM 2 split over K: its last split reads the others' partial sums from
 * the plan's workspace, which a previous chain's GEMM 2 also used. */
static const tp_test_tuning tunings[] = {
    {"chain_split3", "standard", "tile = 128x128x64\nsplits = 3"},
};

/* A bf16 matrix in host and device memory. */
typedef struct matrix {
  tp_tensor host, dev;
  size_t bytes;
} matrix;

static void matrix_make(matrix *x, int64_t rows, int64_t cols) {
  x->bytes = (size_t)(rows * cols) * 2u;
  void *h = malloc(x->bytes), *d = NULL;
  ck_assert_ptr_nonnull(h);
  ck_assert_int_eq(tp_device_alloc(&d, x->bytes), TP_OK);
  x->host = tp_tensor_matrix(TP_DTYPE_BF16, rows, cols, cols, h);
  x->dev = tp_tensor_matrix(TP_DTYPE_BF16, rows, cols, cols, d);
}

static void matrix_free(matrix *x) {
  free(x->host.data);
  tp_device_free(x->dev.data);
}

static void to_device(const matrix *x) {
  ck_assert_int_eq(tp_device_copy_to(x->dev.data, x->host.data, x->bytes), TP_OK);
}

static void from_device(matrix *x) {
  ck_assert_int_eq(tp_device_copy_from(x->host.data, x->dev.data, x->bytes), TP_OK);
}

/* D = A B^T over tensors a, b, d (host or device alike). */
static tp_gemm_desc desc_of(const tp_tensor *a, const tp_tensor *b, const tp_tensor *d) {
  tp_gemm_desc desc;
  tp_gemm_desc_init(&desc, a->shape[0], b->shape[0], a->shape[1]);
  desc.a = *a;
  desc.b = *b;
  desc.d = *d;
  return desc;
}

/* d (on the host) against the f64 reference of the problem in host memory. */
static void check_d(const char *what, int chain, const tp_gemm_desc *host_desc) {
  const int64_t m = host_desc->m, n = host_desc->n;
  double *ref = malloc(sizeof(double) * (size_t)(m * n));
  double *mag = malloc(sizeof(double) * (size_t)(m * n));
  ck_assert(ref != NULL && mag != NULL);
  char err[256];
  /* bf16 operands, no scales: the plain problem, summed in f32. */
  const tp_problem plain = {.struct_size = sizeof plain, .acc_bits = TP_PROBLEM_ACC_BITS_F32};
  ck_assert_msg(tp_ref_gemm(host_desc, &plain, TP_REF_STORE, ref, mag, err, sizeof err) == TP_OK,
                "%s", err);
  const tp_ref_tolerance tol = tp_ref_tolerance_for(TP_DTYPE_BF16, host_desc->k,
                                                    tp_ref_acc_bits(&plain, TP_BACKEND_CUDA));
  tp_ref_report rep = {.struct_size = sizeof rep};
  ck_assert_int_eq(tp_ref_compare(&host_desc->d, m, n, ref, mag, NULL, &tol, &rep), TP_OK);
  ck_assert_msg(rep.pass,
                "chain %d, %s: %lld elements out of bound, first (%lld, %lld) = %g against %g; "
                "normwise %g (bound %g)",
                chain, what, (long long)rep.bad, (long long)rep.bad_row, (long long)rep.bad_col,
                rep.bad_value, rep.bad_ref, rep.rel, tol.rel);
  free(ref);
  free(mag);
}

/* Runs GEMM 1 (A B1^T into D1) then GEMM 2 (D1 B2^T into D2) on one
 * stream, with no wait between them, CHAINS times. With `overwrite_a`, D2
 * is A's memory (M x N2 in the first columns of A's rows, ld K1). */
static void run_chains(int overwrite_a, uint64_t seed) {
  matrix a, b1, d1, b2, d2;
  matrix_make(&a, M, K1);
  matrix_make(&b1, N1, K1);
  matrix_make(&d1, M, N1);
  matrix_make(&b2, N2, N1);
  matrix_make(&d2, M, N2);
  tp_ref_tensor_fill(&a.host, NULL, seed);
  tp_ref_tensor_fill(&b1.host, NULL, seed + 1);
  tp_ref_tensor_fill(&b2.host, NULL, seed + 2);
  to_device(&b1);
  to_device(&b2);
  /* D2 over A: the first N2 columns of A's rows. */
  const tp_tensor d2_dev =
      overwrite_a ? tp_tensor_matrix(TP_DTYPE_BF16, M, N2, K1, a.dev.data) : d2.dev;
  const tp_gemm_desc g1 = desc_of(&a.dev, &b1.dev, &d1.dev);
  const tp_gemm_desc g2 = desc_of(&d1.dev, &b2.dev, &d2_dev);
  tp_plan *p1 = NULL, *p2 = NULL;
  ck_assert_msg(tp_plan_create(&p1, reg, "standard", "store", &g1, TP_BACKEND_CUDA) == TP_OK, "%s",
                tp_error_message());
  ck_assert_msg(tp_plan_create(&p2, reg, "chain_split3", "store", &g2, TP_BACKEND_CUDA) == TP_OK,
                "%s", tp_error_message());
  char asked[640];
  ck_assert_msg(tp_test_tuned_plan_is_asked("chain_split3", p2, asked, sizeof asked), "%s", asked);
  for (int chain = 0; chain < CHAINS; ++chain) {
    to_device(&a); /* GEMM 2 of the chain before may have written over it */
    ck_assert_int_eq(tp_device_memset(d1.dev.data, 0xff, d1.bytes), TP_OK);
    if (!overwrite_a) ck_assert_int_eq(tp_device_memset(d2.dev.data, 0xff, d2.bytes), TP_OK);
    ck_assert_msg(tp_plan_run(p1, &g1, NULL) == TP_OK, "%s", tp_error_message());
    ck_assert_msg(tp_plan_run(p2, &g2, NULL) == TP_OK, "%s", tp_error_message());
    ck_assert_int_eq(tp_device_synchronize(NULL), TP_OK);
    from_device(&d1);
    tp_gemm_desc h1 = desc_of(&a.host, &b1.host, &d1.host);
    check_d("GEMM 1's D", chain, &h1);
    /* GEMM 2 against GEMM 1's D as it came back. */
    if (overwrite_a) {
      for (int64_t r = 0; r < M; ++r) {
        ck_assert_int_eq(tp_device_copy_from((char *)d2.host.data + r * N2 * 2,
                                             (char *)a.dev.data + r * K1 * 2, (size_t)N2 * 2u),
                         TP_OK);
      }
    } else {
      from_device(&d2);
    }
    tp_gemm_desc h2 = desc_of(&d1.host, &b2.host, &d2.host);
    check_d("GEMM 2's D", chain, &h2);
  }
  tp_plan_destroy(p1);
  tp_plan_destroy(p2);
  matrix_free(&a);
  matrix_free(&b1);
  matrix_free(&d1);
  matrix_free(&b2);
  matrix_free(&d2);
}

START_TEST(read_after_write) { run_chains(0, 0x5eed0001u); }
END_TEST

START_TEST(write_after_read) { run_chains(1, 0x5eed0002u); }
END_TEST

static void add_tests(TCase *tc) {
  tcase_add_test(tc, read_after_write);
  tcase_add_test(tc, write_after_read);
}

int main(void) {
  if (!tp_test_gpu_usable()) return 77;
  return tp_test_tuned_run("test_gpu_chain", tunings, sizeof tunings / sizeof tunings[0], 0, 300,
                           &reg, add_tests);
}
