/* tests/doc_examples/epilogue_gpu_args.c: the surroundings of a docs example
 * from bias_silu's gpu_args slot (tests/test_doc_examples.sh includes it at
 * TP_DOC_EXAMPLE): the slot's parameters and the example's user bytes. */
#include <stdint.h>
#include <string.h>
#include <tilepipe/plugin/abi.h>

#include "examples/bias_silu/bias_silu_args.h"

static tp_status gpu_args(const tp_epilogue_plan *plan, const tp_gemm_desc *desc, void *user,
                          size_t user_size, char *err, size_t errlen) {
#include TP_DOC_EXAMPLE
  return TP_OK;
}

extern const tp_epilogue_ops tp_doc_ops;
const tp_epilogue_ops tp_doc_ops = {.struct_size = sizeof(tp_epilogue_ops), .gpu_args = gpu_args};
