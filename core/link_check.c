/* core/link_check.c: see link_check.h. */
#include <stdio.h>
#include <string.h>

#include "core/backend/cuda/cuda_backend.h"
#include "core/error.h"
#include "core/gemm_check.h"
#include "core/link_check.h"
#include "core/plan_internal.h"

void tp_link_check_gpu(tp_gpu_info *gpu) {
  memset(gpu, 0, sizeof *gpu);
  gpu->sm_count = TP_LINK_CHECK_GPU_SMS;
  gpu->cc_major = TP_LINK_CHECK_GPU_CC_MAJOR;
  gpu->cc_minor = TP_LINK_CHECK_GPU_CC_MINOR;
  gpu->smem_per_block = TP_LINK_CHECK_GPU_SMEM_PER_BLOCK;
  gpu->l2_bytes = TP_LINK_CHECK_GPU_L2_BYTES;
  snprintf(gpu->name, sizeof gpu->name, "%s", TP_LINK_CHECK_GPU_NAME);
}

tp_status tp_link_check(tp_registry *registry, const char *payload, const char *epilogue,
                        const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                        tp_link_check_result *result) {
  if (result == NULL) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "link check: result is NULL");
  memset(result, 0, sizeof *result);
  if (registry == NULL || payload == NULL || epilogue == NULL || desc == NULL)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "link check: the registry, a plugin name or the descriptor is NULL");
  tp_gpu_info figures;
  if (gpu == NULL) {
    tp_link_check_gpu(&figures);
    gpu = &figures;
  }
  tp_binding b;
  tp_status st = tp_binding_resolve(&b, registry, payload, epilogue);
  if (st == TP_OK) st = tp_gemm_check_desc(desc, TP_BACKEND_CUDA);
  if (st == TP_OK) st = tp_binding_plan(&b, desc, TP_BACKEND_CUDA);
  if (st == TP_OK) {
    result->planned = 1;
    st = tp_cuda_link_check(&b, desc, gpu, &result->launch, &result->stats);
  }
  return st == TP_OK ? TP_OK
                     : tp_error_wrap(st, "link %s x %s for %s", payload, epilogue, gpu->name);
}
