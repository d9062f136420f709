/* core/link_target.c: the GPUs a link without a GPU plans for (see
 * link_target.h and tilepipe/link.h).
 *
 * The figures are what the CUDA driver reports for each model: SMs and the
 * opt-in shared memory per block (cudaDevAttrMaxSharedMemoryPerBlockOptin,
 * 227 KiB on every Hopper); the H100 SXM's and the H200's as read on the
 * GPU machines this project runs on, the H100 PCIe's from its published
 * specification (114 SMs). */
#include <stdio.h>
#include <string.h>

#include "core/backend/cuda/cuda_backend.h"
#include "core/error.h"
#include "core/link_target.h"
#include "core/versioned.h"

static const struct {
  const char *model;
  tp_gpu_info gpu;
} models[] = {
    {"h100-sxm", {.sm_count = 132, .cc_major = 9, .cc_minor = 0, .smem_per_block = 232448u,
                  .name = "H100 SXM (figures, no GPU)"}},
    {"h100-pcie", {.sm_count = 114, .cc_major = 9, .cc_minor = 0, .smem_per_block = 232448u,
                   .name = "H100 PCIe (figures, no GPU)"}},
    {"h200", {.sm_count = 132, .cc_major = 9, .cc_minor = 0, .smem_per_block = 232448u,
              .name = "H200 (figures, no GPU)"}},
};
#define NUM_MODELS (sizeof models / sizeof models[0])

/* Beyond any GPU: a figure past these is a mistake, not a machine. */
#define MAX_SMS 1024
#define MAX_SMEM (1u << 20)

const tp_gpu_info *tp_link_target_default(void) { return &models[0].gpu; }

static tp_status target_from(tp_link_target *target, const tp_gpu_info *gpu) {
  if (target == NULL) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "link target: target is NULL");
  tp_status st = tp_versioned_clear(target, sizeof *target, "tp_link_target");
  if (st != TP_OK) return tp_error_wrap(st, "link target");
  snprintf(target->name, sizeof target->name, "%s", gpu->name);
  target->sm_count = gpu->sm_count;
  target->cc_major = gpu->cc_major;
  target->cc_minor = gpu->cc_minor;
  target->smem_per_block = gpu->smem_per_block;
  return TP_OK;
}

tp_status tp_link_check_target(tp_link_target *target) {
  return target_from(target, tp_link_target_default());
}

tp_status tp_link_target_lookup(const char *gpu, tp_link_target *target) {
  if (gpu == NULL) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "link target: the GPU name is NULL");
  for (size_t i = 0; i < NUM_MODELS; i++)
    if (strcmp(gpu, models[i].model) == 0) return target_from(target, &models[i].gpu);
  char known[128] = "";
  for (size_t i = 0; i < NUM_MODELS; i++) {
    const size_t used = strlen(known);
    snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", models[i].model);
  }
  return tp_error_set(TP_ERR_NOT_FOUND, "link target: no GPU model '%.64s' (known: %s)", gpu,
                      known);
}

tp_status tp_link_target_detect(tp_link_target *target) {
  tp_gpu_info gpu;
  if (target == NULL) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "link target: target is NULL");
  tp_status st = tp_cuda_gpu_info(&gpu);
  return st == TP_OK ? target_from(target, &gpu) : st;
}

tp_status tp_link_target_to_gpu(const tp_link_target *target, tp_gpu_info *gpu) {
  tp_status st = tp_versioned_check(target, sizeof *target, "tp_link_target");
  if (st != TP_OK) return tp_error_wrap(st, "link target");
  if (memchr(target->name, '\0', sizeof target->name) == NULL || target->name[0] == '\0')
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "link target: name is empty or not NUL-terminated in its %zu bytes",
                        sizeof target->name);
  if (target->sm_count < 1 || target->sm_count > MAX_SMS || target->smem_per_block == 0 ||
      target->smem_per_block > MAX_SMEM)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "link target '%s': %d SMs and %u bytes of shared memory per block (1..%d "
                        "SMs, 1..%u bytes)",
                        target->name, target->sm_count, target->smem_per_block, MAX_SMS,
                        MAX_SMEM);
  if (target->cc_major != 9 || target->cc_minor != 0)
    return tp_error_set(TP_ERR_UNSUPPORTED,
                        "link target '%s': compute capability %d.%d; tilepipe's kernels are built "
                        "for 9.0 (sm_90a) only",
                        target->name, target->cc_major, target->cc_minor);
  memset(gpu, 0, sizeof *gpu);
  snprintf(gpu->name, sizeof gpu->name, "%s", target->name);
  gpu->sm_count = target->sm_count;
  gpu->cc_major = target->cc_major;
  gpu->cc_minor = target->cc_minor;
  gpu->smem_per_block = target->smem_per_block;
  return TP_OK;
}
