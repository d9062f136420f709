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
#include "core/registry/registry_internal.h"
#include "core/versioned.h"
#include "tilepipe/link.h"

static void result_from(tp_link_result *r, const tp_binding *b, const tp_gpu_launch *launch,
                        const tp_link_stats *s) {
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
  r->tile_m = b->payload_plan.tile.tile_m;
  r->tile_n = b->payload_plan.tile.tile_n;
  r->tile_k = b->payload_plan.tile.tile_k;
}

tp_status tp_link_check(tp_registry *registry, const char *payload, const char *epilogue,
                        const tp_gemm_desc *desc, tp_link_result *result) {
  return tp_link_check_with(registry, payload, epilogue, desc, NULL, result);
}

/* Everything after the argument checks; b's payload state may be a fresh
 * one (options' tuning). */
static tp_status link_binding(tp_binding *b, const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                              tp_link_result *result) {
  tp_gpu_launch launch;
  tp_link_stats stats;
  memset(&launch, 0, sizeof launch);
  memset(&stats, 0, sizeof stats);
  tp_status st = tp_gemm_check_desc(desc, TP_BACKEND_CUDA);
  if (st == TP_OK) st = tp_binding_plan(b, desc, TP_BACKEND_CUDA);
  if (st == TP_OK) {
    result->planned = 1;
    st = tp_cuda_link_check(b, desc, gpu, &launch, &stats);
    result_from(result, b, &launch, &stats);
  }
  return st;
}

tp_status tp_link_check_with(tp_registry *registry, const char *payload, const char *epilogue,
                             const tp_gemm_desc *desc, const tp_link_options *options,
                             tp_link_result *result) {
  if (result == NULL) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "link check: result is NULL");
  tp_status st = tp_versioned_clear(result, sizeof *result, "tp_link_result");
  if (st == TP_OK && options != NULL)
    st = tp_versioned_check(options, sizeof *options, "tp_link_options");
  if (st != TP_OK) return tp_error_wrap(st, "link check");
  const tp_gpu_info *gpu = tp_link_target_default();
  if (registry == NULL || payload == NULL || epilogue == NULL)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "link check: the registry or a plugin name is NULL");
  tp_gemm_desc problem;
  if ((st = tp_gemm_desc_read(&problem, desc)) != TP_OK) return tp_error_wrap(st, "link check");
  const char *tuning = options != NULL && options->tuning != NULL ? options->tuning : "";
  tp_binding b;
  void *fresh = NULL;
  int own_state = 0;
  st = tp_binding_resolve(&b, registry, payload, epilogue);
  if (st == TP_OK && *tuning) {
    st = tp_registry_state_fresh(registry, payload, TP_PLUGIN_PAYLOAD, tuning, &fresh);
    own_state = st == TP_OK;
    b.payload_state = fresh;
  }
  if (st == TP_OK) st = link_binding(&b, &problem, gpu, result);
  if (own_state) tp_registry_state_free(registry, payload, fresh);
  if (st == TP_OK) return TP_OK;
  if (*tuning)
    return tp_error_wrap(st, "link %s x %s (%s) for %s", payload, epilogue, tuning, gpu->name);
  return tp_error_wrap(st, "link %s x %s for %s", payload, epilogue, gpu->name);
}
