/* core/link_check.c: a pair's fused kernel linked without a GPU (see
 * tilepipe/link.h), for the figures of core/link_target.c's H100 SXM. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/backend/cuda/cuda_backend.h"
#include "core/error.h"
#include "core/gemm_check.h"
#include "core/gemm_desc.h"
#include "core/link_target.h"
#include "core/plan_internal.h"
#include "core/versioned.h"
#include "tilepipe/link.h"

static void result_from(tp_link_result *r, const tp_gpu_launch *launch, const tp_link_stats *s) {
  memcpy(r->kernel, launch->kernel, sizeof r->kernel);
  r->kernel[sizeof r->kernel - 1] = '\0';
  for (int i = 0; i < 3; ++i) {
    r->grid[i] = launch->grid[i];
    r->block[i] = launch->block[i];
    r->cluster[i] = launch->cluster[i];
  }
  r->smem_bytes = launch->smem_bytes;
  r->workspace_bytes = launch->workspace_bytes;
  r->registers = s->registers;
  r->stack_bytes = s->stack_bytes;
  r->spill_store_bytes = s->spill_store_bytes;
  r->spill_load_bytes = s->spill_load_bytes;
}

tp_status tp_link_check(tp_registry *registry, const char *payload, const char *epilogue,
                        const tp_gemm_desc *desc, tp_link_result *result) {
  if (result == NULL) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "link check: result is NULL");
  tp_status st = tp_versioned_clear(result, sizeof *result, "tp_link_result");
  if (st != TP_OK) return tp_error_wrap(st, "link check");
  const tp_gpu_info *gpu = tp_link_target_default();
  if (registry == NULL || payload == NULL || epilogue == NULL)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "link check: the registry or a plugin name is NULL");
  tp_gemm_desc problem;
  if ((st = tp_gemm_desc_read(&problem, desc)) != TP_OK) return tp_error_wrap(st, "link check");
  tp_binding b;
  tp_gpu_launch launch;
  tp_link_stats stats;
  memset(&launch, 0, sizeof launch);
  memset(&stats, 0, sizeof stats);
  st = tp_binding_resolve(&b, registry, payload, epilogue);
  if (st == TP_OK) st = tp_gemm_check_desc(&problem, TP_BACKEND_CUDA);
  if (st == TP_OK) st = tp_binding_plan(&b, &problem, TP_BACKEND_CUDA);
  if (st == TP_OK) {
    result->planned = 1;
    st = tp_cuda_link_check(&b, &problem, gpu, &launch, &stats);
    result_from(result, &launch, &stats);
  }
  return st == TP_OK ? TP_OK
                     : tp_error_wrap(st, "link %s x %s for %s", payload, epilogue, gpu->name);
}
