/* tests/gpu_case.h: one fused GEMM on the GPU against the naive f64
 * reference, for the GPU test programs (test_gpu_gemm.c,
 * test_gpu_blockwise.c, test_gpu_block_scaled.c).
 *
 * A case names a registry section (a payload, or a tuning of one written
 * by tp_gpu_cases_main), dtypes, an epilogue and a shape; the payload
 * describes the problem (tilepipe/reference.h: its scale tensors and
 * what they mean). run_case draws fresh random inputs from its seed (a
 * program may ask for scales wider than the payload's own: f32 matrices
 * 2^-20 .. 2^20, ue8m0 codes 2^-64 .. 2^64 for B alone, 2^-12 .. 2^12 for
 * A and B, each 2^-4 .. 2^4 under an f16 D), lays every row out 16-byte
 * aligned after `pad` spare elements (TMA's rule), checks that the plan is
 * the one its section's tuning asks for (tp_test_tuned_plan_is_asked:
 * tile, cluster, split-K), poisons D
 * with NaN (0xFF bytes) on the device before every run, and checks every
 * element against a bound derived from the dtypes' roundoff
 * (tp_ref_problem_check), and that no run wrote D's row padding. */
#ifndef TP_TESTS_GPU_CASE_H
#define TP_TESTS_GPU_CASE_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "tests/tuned_registry.h"
#include "tilepipe/reference.h"
#include "tilepipe/tilepipe.h"

typedef struct gpu_case {
  const char *payload; /* registry section: a payload or a tuning of one */
  tp_dtype a, b, d, c;
  const char *epilogue;
  int c_is_d, c_nan;
  float alpha, beta;
  int64_t m, n, k, pad;
  int runs; /* runs of one plan, each on a freshly poisoned D; C must not alias D for 2+ */
} gpu_case;

/* The registry the cases run against (the build tree's plus the tunings),
 * and whether the program redraws f32 scale matrices wide (above). */
extern tp_registry *gpu_case_registry;
extern int gpu_case_wide_scales;
/* The scale dtype of the cases' block-scaled e2m1 B (ue8m0: MXFP4);
 * TP_DTYPE_NONE, the default: the payload's. */
extern tp_dtype gpu_case_b_scale;
/* What a case's D is judged against: by default the reference of the
 * problem as drawn (tp_ref_problem_expect); a program whose kernel
 * computes a documented transform of it (block_scaled's MXFP8 W8A8 fold)
 * sets its own, which may change the host inputs only to restore them. */
extern tp_status (*gpu_case_expect)(tp_ref_problem *prob, tp_ref_epilogue epi, char *err,
                                    size_t errlen);

void run_case(const gpu_case *gc, uint64_t seed);
/* The same with the scales in layout sf (block-scaled payloads; run_case's
 * are strided). */
void run_case_sf(const gpu_case *gc, tp_layout sf, uint64_t seed);

/* Each case of a table, case i with seed first_seed + i. */
void run_cases(const gpu_case *cases, size_t count, uint64_t first_seed);

/* A test program's main, its f32 scale matrices redrawn wide when
 * wide_scales: 77 without a usable GPU; else opens the build tree's
 * registry with the tunings added, runs the tests that add_tests puts in
 * one test case (no fork: CUDA cannot be used in a child forked after
 * cuInit), and returns 0 when all pass. */
int tp_gpu_cases_main(const char *name, int wide_scales, const tp_test_tuning *tunings,
                      size_t count, void (*add_tests)(TCase *tc));

#endif
