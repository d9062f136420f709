/* core/backend/cuda/cuda_backend.h: plans on the GPU.
 *
 * A CUDA plan is the payload kernel linked with the epilogue's hooks
 * (nvJitLink, LTO) and loaded, plus the launch shape and the kernel
 * parameters the plugins prepared, for one device: the one the creating
 * thread works on (driver.h). Running it enters that device (refused under
 * another device's context), encodes the data pointers into the parameters
 * and launches once. */
#ifndef TP_CORE_BACKEND_CUDA_H
#define TP_CORE_BACKEND_CUDA_H

#include "core/backend/cuda/kernel_cache.h"
#include "core/backend/cuda/link_log.h"
#include "core/plan_internal.h"

typedef struct tp_cuda_plan tp_cuda_plan;

/* The figures of the GPU the calling thread works on (driver.h), as a
 * plan made there hands them to the payload's gpu_plan. TP_ERR_NO_DEVICE
 * without one. */
tp_status tp_cuda_gpu_info(tp_gpu_info *gpu);

/* TP_OK when both plugins carry device code and a GPU the kernels run on is
 * present; otherwise the reason, the plugins' first: TP_ERR_UNSUPPORTED
 * naming the plugin without device code (a payload without a GPU kernel
 * runs on the CPU backend only), else TP_ERR_NO_DEVICE. */
tp_status tp_cuda_backend_available(const tp_plugin_desc *payload, const tp_plugin_desc *epilogue);

/* Chooses, links and loads the kernel for binding (which may be refined by
 * the payload's gpu_plan and must outlive the plan). */
tp_status tp_cuda_plan_create(tp_cuda_plan **plan, tp_binding *binding, const tp_gemm_desc *desc);
tp_status tp_cuda_plan_run(const tp_cuda_plan *plan, const tp_gemm_desc *desc, void *stream);
/* The link a plan makes: the payload's kernel with the epilogue's hook,
 * the payload's LTO-IR that holds the kernel (its device_image, or the one
 * of its device_images that lists it) and the epilogue's, only that kernel
 * and the launch's prologue kept (-kernels-used). It points into itself:
 * fill it where it stays, and do not copy it. */
typedef struct tp_cuda_link {
  tp_jit_input inputs[2];
  char kernels_used[2][160];
  const char *options[2];
  tp_link_request request;
} tp_cuda_link;

/* What a plan would link, without linking: binding's plans made for the
 * CUDA backend, the payload's gpu_plan for gpu's figures into *launch, its
 * kernel's link into *link. TP_ERR_UNSUPPORTED when a plugin carries no
 * device code, TP_ERR_NO_DEVICE when tilepipe was built without CUDA, the
 * payload's status when gpu_plan refuses, TP_ERR_PLUGIN when it chose a
 * kernel that none of its device images lists. */
tp_status tp_cuda_link_plan(tp_binding *binding, const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                            tp_gpu_launch *launch, tp_cuda_link *link);

/* A plan's link without a GPU or a driver (tilepipe/link.h): binding's
 * plans made for the CUDA backend, the payload's gpu_plan for gpu's figures
 * (into *launch), then its link (as tp_cuda_link_plan's) through the
 * kernel cache (tp_cuda_link_only) with the ptxas report checked (a
 * prologue's too, which must be in it); *stats are the chosen kernel's
 * figures. The failures of tp_cuda_link_plan, and
 * TP_ERR_LINK for a failed link or log check. */
tp_status tp_cuda_link_check(tp_binding *binding, const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                             tp_gpu_launch *launch, tp_link_stats *stats);
int tp_cuda_plan_describe(const tp_cuda_plan *plan, char *buf, size_t size);
void tp_cuda_plan_destroy(tp_cuda_plan *plan);

#endif
