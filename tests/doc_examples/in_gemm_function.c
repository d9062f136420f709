/* tests/doc_examples/in_gemm_function.c: the surroundings of a docs example
 * made of statements that describe and run a GEMM (tests/test_doc_examples.sh
 * includes the example at TP_DOC_EXAMPLE). It names what those examples take
 * as given: the registry, the sizes, the operands, and the plan. */
#include <stdint.h>
#include <tilepipe/tilepipe.h>

void tp_doc_example(tp_registry *reg, int64_t M, int64_t N, int64_t K, void *a, void *b,
                    void *out, void *bias, void *a_q, void *w_q, float *a_scale, float *w_scale);

void tp_doc_example(tp_registry *reg, int64_t M, int64_t N, int64_t K, void *a, void *b,
                    void *out, void *bias, void *a_q, void *w_q, float *a_scale, float *w_scale) {
  tp_plan *plan = NULL;
#include TP_DOC_EXAMPLE
  tp_plan_destroy(plan);
}
