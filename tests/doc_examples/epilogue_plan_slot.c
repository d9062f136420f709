/* tests/doc_examples/epilogue_plan_slot.c: after a docs example that declares
 * bias_silu's plan slot (tests/test_doc_examples.sh includes it at
 * TP_DOC_EXAMPLE), a definition that must agree with that declaration, put
 * into an epilogue's ops table, whose slot type must agree too. */
#include <tilepipe/plugin/abi.h>

#include TP_DOC_EXAMPLE

static tp_status bias_silu_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                                tp_epilogue_plan *out, char *err, size_t errlen) {
  return TP_OK;
}

extern const tp_epilogue_ops tp_doc_ops;
const tp_epilogue_ops tp_doc_ops = {.struct_size = sizeof(tp_epilogue_ops),
                                    .plan = bias_silu_plan};
