/* plugins/kit/kernel_plan.c: the structured kernel's plan request
 * checked, and the plan kept in a payload plan's private bytes
 * (tilepipe/plugin/kernel/plan.h). */
#include <string.h>

#include "tilepipe/plugin/kit/error.h"
#include "tilepipe/plugin/kernel/plan.h"

tp_status tp_kernel_request_check(const tp_kernel_request *rq, char *err, size_t errlen) {
  if (rq == NULL) {
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT, "no kernel plan request (NULL)");
  }
  const char *missing = rq->desc == NULL       ? "desc"
                        : rq->epilogue == NULL ? "epilogue"
                        : rq->gpu == NULL      ? "gpu"
                        : rq->tuning == NULL   ? "tuning"
                        : rq->prefix == NULL   ? "prefix"
                        : rq->operands == NULL ? "operands"
                                               : NULL;
  if (missing != NULL) {
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "kernel plan request: no %s (tp_kernel_request.%s is NULL)", missing,
                       missing);
  }
  if (rq->k_elems < 0 || rq->k_group < 0 || rq->max_tile_n < 0 || rq->n_block < 0 ||
      rq->step_stages < 0) {
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "kernel plan request: k_elems %d, k_group %d, max_tile_n %d, n_block %d, "
                       "step_stages %d (each 0 for the default, or positive)",
                       rq->k_elems, rq->k_group, rq->max_tile_n, rq->n_block, rq->step_stages);
  }
  if (rq->transposed != 0 && rq->transposed != 1) {
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "kernel plan request: transposed %d (0 or 1)", rq->transposed);
  }
  return TP_OK;
}

void tp_kernel_request_view(const tp_kernel_request *rq, tp_gemm_desc *view) {
  *view = *rq->desc;
  if (!rq->transposed) return;
  view->m = rq->desc->n;
  view->n = rq->desc->m;
  view->a = rq->desc->b;
  view->b = rq->desc->a;
  view->a_scale = rq->desc->b_scale;
  view->b_scale = rq->desc->a_scale;
}

void tp_kernel_plan_store(const tp_kernel_plan *kp, tp_payload_plan *plan) {
  _Static_assert(sizeof(tp_kernel_plan) <= TP_PLAN_PRIVATE_BYTES,
                 "the kernel plan must fit the payload plan's private bytes");
  memcpy(plan->priv, kp, sizeof *kp);
}

void tp_kernel_plan_load(const tp_payload_plan *plan, tp_kernel_plan *kp) {
  memcpy(kp, plan->priv, sizeof *kp);
}
