/* tests/gemm_case.h: one random GEMM of the thread tests (test_threads on
 * the CPU, test_gpu_threads and test_gpu_multi on the GPU): its problem
 * (tilepipe/reference.h), with the f64 reference of D computed before any
 * run, and the check of a D against it. Nothing here touches shared state,
 * so any thread may make and check its own. Failures come back as 0 with
 * the reason in err, for a worker thread to report to the test's thread. */
#ifndef TP_TESTS_GEMM_CASE_H
#define TP_TESTS_GEMM_CASE_H

#include <stddef.h>
#include <stdint.h>
#include "tilepipe/reference.h"
#include "tilepipe/tilepipe.h"

typedef struct gemm_case {
  const char *payload;  /* registry section; it describes its problem (tilepipe/problem.h) */
  const char *epilogue; /* "store" (alpha 1.5) or "residual" (alpha 0.75, beta -1.25) */
  tp_dtype a, b, d, c;  /* c: TP_DTYPE_NONE for none */
  int c_is_d;
  tp_layout sf_layout;  /* block_scaled's scales */
  int64_t m, n, k, pad, c_pad;
} gemm_case;

typedef struct gemm_problem {
  tp_ref_problem *host;  /* D starts as NaN (or C, when C is D); its expected values made */
  void *d_start;         /* a copy of D's starting bytes, to start a run again */
  tp_ref_tolerance tol;
} gemm_problem;

/* Problem (as c's payload in reg describes it), reference and tolerance
 * for c's results on backend; inputs from seed. On the CUDA backend every
 * row is padded on to a multiple of 16 bytes (align_rows), so any shape
 * runs there. */
int gemm_problem_make(gemm_problem *p, const tp_registry *reg, const gemm_case *c, uint64_t seed,
                      tp_backend backend, char *err, size_t errlen);

/* 1 when the D in p->host matches the reference and its row padding is
 * untouched; else 0, saying where. */
int gemm_problem_check(const gemm_problem *p, char *err, size_t errlen);

/* D's starting bytes again (before another run of the same problem). */
void gemm_problem_restart(gemm_problem *p);

/* "standard x store bf16 x bf16 -> bf16 300x521x1009" into buf. */
void gemm_case_name(const gemm_case *c, char *buf, size_t size);

void gemm_problem_free(gemm_problem *p);

#endif
