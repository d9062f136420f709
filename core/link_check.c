/* core/link_check.c: a pair's fused kernel linked without a GPU (see
 * tilepipe/link.h).
 *
 * The figures of the link target live here and nowhere else: an H100 SXM
 * (132 SMs, compute capability 9.0, 227 KiB of opt-in shared memory per
 * block, 50 MiB of L2). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/backend/cuda/cuda_backend.h"
#include "core/error.h"
#include "core/gemm_check.h"
#include "core/plan_internal.h"
#include "tilepipe/link.h"

static const tp_gpu_info link_gpu = {
    .sm_count = 132,
    .cc_major = 9,
    .cc_minor = 0,
    .smem_per_block = 232448u,
    .l2_bytes = 50u << 20,
    .name = "H100 SXM (figures, no GPU)",
};

/* Checks a caller's struct_size against the struct's first version (today's
 * struct is its first version) and zeroes the caller's struct_size bytes
 * past the field itself. */
static tp_status versioned_clear(void *out, size_t first_version, const char *what) {
  uint32_t size;
  memcpy(&size, out, sizeof size);
  if (size < first_version) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "link check: %s struct_size %u is smaller than its first version (%zu "
                        "bytes); set it to sizeof(%s)",
                        what, size, first_version, what);
  }
  memset((unsigned char *)out + sizeof size, 0, size - sizeof size);
  return TP_OK;
}

tp_status tp_link_check_target(tp_link_target *target) {
  if (target == NULL) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "link check: target is NULL");
  tp_status st = versioned_clear(target, sizeof *target, "tp_link_target");
  if (st != TP_OK) return st;
  snprintf(target->name, sizeof target->name, "%s", link_gpu.name);
  target->sm_count = link_gpu.sm_count;
  target->cc_major = link_gpu.cc_major;
  target->cc_minor = link_gpu.cc_minor;
  target->smem_per_block = link_gpu.smem_per_block;
  target->l2_bytes = link_gpu.l2_bytes;
  return TP_OK;
}

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
  tp_status st = versioned_clear(result, sizeof *result, "tp_link_result");
  if (st != TP_OK) return st;
  if (registry == NULL || payload == NULL || epilogue == NULL || desc == NULL)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "link check: the registry, a plugin name or the descriptor is NULL");
  tp_binding b;
  tp_gpu_launch launch;
  tp_link_stats stats;
  memset(&launch, 0, sizeof launch);
  memset(&stats, 0, sizeof stats);
  st = tp_binding_resolve(&b, registry, payload, epilogue);
  if (st == TP_OK) st = tp_gemm_check_desc(desc, TP_BACKEND_CUDA);
  if (st == TP_OK) st = tp_binding_plan(&b, desc, TP_BACKEND_CUDA);
  if (st == TP_OK) {
    result->planned = 1;
    st = tp_cuda_link_check(&b, desc, &link_gpu, &launch, &stats);
    result_from(result, &launch, &stats);
  }
  return st == TP_OK ? TP_OK
                     : tp_error_wrap(st, "link %s x %s for %s", payload, epilogue, link_gpu.name);
}
