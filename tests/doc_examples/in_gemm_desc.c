/* tests/doc_examples/in_gemm_desc.c: the surroundings of a docs example that
 * sets a field of a GEMM descriptor `d` (tests/test_doc_examples.sh includes
 * the example at TP_DOC_EXAMPLE). */
#include <stdint.h>
#include <tilepipe/tilepipe.h>

void tp_doc_example(tp_gemm_desc *desc, int64_t M, int64_t N, int64_t K, void *bias);

void tp_doc_example(tp_gemm_desc *desc, int64_t M, int64_t N, int64_t K, void *bias) {
  tp_gemm_desc d;
  tp_gemm_desc_init(&d, M, N, K);
#include TP_DOC_EXAMPLE
  *desc = d;
}
