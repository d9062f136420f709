/* tools/reference/problem.h: a whole random GEMM problem in host memory,
 * shaped for one payload: the descriptor the tests and `tilepipe run` hand
 * to tp_plan_create, with its buffers.
 *
 * The payload describes its own problem (tp_problem_describe,
 * tilepipe/problem.h): the default dtypes of A and B, its scale tensors
 * and what they mean (tp_problem), which the reference reads
 * (naive_gemm.h) and the fills follow (random_fill.h, seeded_fill.h); the
 * reference knows no payload by name.
 *
 * Every buffer is allocated at exactly its tensor's span (so AddressSanitizer
 * sees any access past it) and first filled with 0xFF bytes, a NaN in every
 * dtype; then only the tensor's elements get values. Row padding (`pad`
 * extra elements per row), the padding of tiled scale atoms, and all of D
 * stay 0xFF: a plugin that reads padding picks up NaN, one that writes
 * outside D's elements leaves a mark tp_ref_problem_padding_written finds. */
#ifndef TP_TOOLS_REFERENCE_PROBLEM_H
#define TP_TOOLS_REFERENCE_PROBLEM_H

#include <stddef.h>
#include <stdint.h>
#include "tilepipe/gemm.h"
#include "tilepipe/problem.h"
#include "tilepipe/registry.h"
#include "tilepipe/status.h"

typedef struct tp_ref_problem_spec {
  const tp_registry *registry; /* where the payload is */
  const char *payload;  /* its section: the payload that describes the problem */
  tp_dtype a, b;        /* TP_DTYPE_NONE: the payload's default */
  tp_dtype d;
  tp_dtype c;           /* TP_DTYPE_NONE: no C */
  int c_is_d;           /* C is D's own memory (same dtype and strides as D; c is ignored) */
  int c_nan;            /* C holds NaN instead of random values (for beta == 0) */
  tp_layout sf_layout;  /* the scale layout asked of the payload (tp_problem_options) */
  int64_t m, n, k;
  int64_t pad;          /* extra elements per row of every strided tensor (rounded up to
                           even for packed fp4; the payload's to apply to its scales) */
  int64_t c_pad;       /* C's extra elements per row; 0: pad + 1, so C's strides differ
                          from D's */
  float alpha, beta;
} tp_ref_problem_spec;

enum { TP_REF_A, TP_REF_B, TP_REF_A_SCALE, TP_REF_B_SCALE, TP_REF_C, TP_REF_D, TP_REF_TENSORS };

/* Tensor `which` (TP_REF_A ... TP_REF_D) of a descriptor. */
tp_tensor *tp_ref_desc_tensor(tp_gemm_desc *desc, int which);

typedef struct tp_ref_problem {
  tp_gemm_desc desc;
  tp_problem problem;           /* what the scale tensors mean (the payload's word) */
  void *buffer[TP_REF_TENSORS]; /* owned; NULL for absent tensors (and C when c_is_d) */
  int64_t bytes[TP_REF_TENSORS];
} tp_ref_problem;

/* The problem's descriptor alone: shapes, strides, dtypes (A's and B's the
 * payload's defaults where spec leaves them NONE), alpha, beta and the
 * payload's scale tensors, every data pointer NULL (enough to plan, or to
 * link without a GPU), and into *problem what the scales mean. Fails like
 * tp_ref_problem_create, without allocating. */
tp_status tp_ref_problem_describe(const tp_ref_problem_spec *spec, tp_gemm_desc *desc,
                                  tp_problem *problem, char *err, size_t errlen);

/* Builds the problem with inputs drawn from seed: operands and C
 * (tp_fill_normal), the scales from their maps' values (tp_fill_scales).
 * Fails with TP_ERR_INVALID_ARGUMENT (bad sizes), the status of
 * tp_problem_describe (a payload that is unknown or refuses the dtypes:
 * its message) or TP_ERR_OUT_OF_MEMORY, reason in err; *p is then empty. */
tp_status tp_ref_problem_create(tp_ref_problem *p, const tp_ref_problem_spec *spec, uint64_t seed,
                                char *err, size_t errlen);

/* 0xFF over D's whole buffer (NaN in every element): a run must write every
 * element. A no-op when C is D (D holds the source then). */
void tp_ref_problem_poison_d(tp_ref_problem *p);

/* The offset in D's buffer of the first byte outside D's elements that is
 * no longer 0xFF (a run wrote D's row padding); -1 when all are intact. */
int64_t tp_ref_problem_padding_written(const tp_ref_problem *p);

void tp_ref_problem_destroy(tp_ref_problem *p);

#endif
