/* core/backend/cuda/cuda_backend.c: plans on the GPU (see cuda_backend.h).
 *
 * A plan belongs to the device the creating thread works on (its current
 * context's, else the default device: driver.h) and keeps its ordinal and
 * that context. Plan time, all under that context: the device's figures go
 * to the payload's gpu_plan, which picks a kernel (an extern "C" name in
 * its LTO-IR) and its launch; the payload's LTO-IR that holds it (its one
 * image, or the group that lists the kernel: core/registry/device_code.h)
 * and the epilogue's are linked (only that kernel and the payload's
 * prologue, if it names one: -kernels-used), checked and loaded through
 * the kernel cache, whose key hashes those inputs; the
 * workspace the payload asks for is allocated and zeroed once, in the
 * plan's context. Run time: the plugins write the parameter block on the
 * stack (payload: tensor maps and sizes; epilogue: its user bytes), then
 * the prologue's launch, if any, and the kernel's, each of which enters
 * the plan's device (a context of another device current is refused
 * before anything is queued). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "core/backend/cuda/cuda_backend.h"
#include "core/error.h"
#include "core/registry/device_code.h"
#include "core/registry/host_api.h"
#include "tilepipe/device.h"
#include "tilepipe/plugin/epilogue_args.h"

#if TP_HAVE_CUDA
#include "core/backend/cuda/driver.h"
#include "core/backend/cuda/kernel.h"

/* Largest kernel parameter block (the driver takes up to 4 KiB). */
#define TP_CUDA_MAX_PARAMS 4096

struct tp_cuda_plan {
  const tp_binding *binding;
  int device;        /* the ordinal of the device it belongs to */
  CUcontext context; /* the context it was created under, which owns the workspace */
  tp_gpu_launch launch;
  tp_cuda_kernel kernel;
  tp_cuda_dims dims;
  tp_cuda_kernel prologue; /* launch.prologue's, where it names one */
  tp_cuda_dims prologue_dims;
  void *workspace; /* launch.workspace_bytes of device memory, or NULL */
};

/* Both plugins carry what a fused kernel is made of. */
static tp_status check_device_code(const tp_plugin_desc *payload, const tp_plugin_desc *epilogue) {
  if (!tp_device_code_present(payload) || payload->payload->gpu_plan == NULL ||
      payload->payload->gpu_args == NULL) {
    return tp_error_set(TP_ERR_UNSUPPORTED, "payload '%s' carries no GPU kernel", payload->name);
  }
  if (!tp_device_code_present(epilogue)) {
    return tp_error_set(TP_ERR_UNSUPPORTED, "epilogue '%s' carries no device hook", epilogue->name);
  }
  return TP_OK;
}

tp_status tp_cuda_backend_available(const tp_plugin_desc *payload, const tp_plugin_desc *epilogue) {
  tp_status st = check_device_code(payload, epilogue);
  if (st != TP_OK) return st;
  tp_cuda_device dev;
  return tp_cuda_device_get(&dev);
}

/* The figures of dev, as the payload's gpu_plan reads them. */
static void gpu_info_of(const tp_cuda_device *dev, tp_gpu_info *gpu) {
  memset(gpu, 0, sizeof *gpu);
  gpu->sm_count = dev->sm_count;
  gpu->cc_major = dev->cc_major;
  gpu->cc_minor = dev->cc_minor;
  gpu->smem_per_block = (uint32_t)dev->max_smem_optin;
  snprintf(gpu->name, sizeof gpu->name, "%s", dev->name);
}

tp_status tp_cuda_gpu_info(tp_gpu_info *gpu) {
  tp_cuda_device dev;
  tp_status st = tp_cuda_device_get(&dev);
  if (st == TP_OK) gpu_info_of(&dev, gpu);
  return st;
}

static tp_status check_launch(const tp_binding *b, const tp_gpu_launch *l, const tp_gpu_info *gpu) {
  if (l->kernel[0] == '\0' || memchr(l->kernel, '\0', sizeof l->kernel) == NULL) {
    return tp_error_set(TP_ERR_PLUGIN, "payload '%s' named no kernel", b->payload_name);
  }
  if (l->params_size == 0 || l->params_size > TP_CUDA_MAX_PARAMS ||
      l->epilogue_args_offset % 16 != 0 ||
      l->epilogue_args_offset + sizeof(tp_epilogue_args) > l->params_size) {
    return tp_error_set(TP_ERR_PLUGIN,
                        "payload '%s': kernel parameters of %u bytes with the epilogue block at %u "
                        "do not fit (at most %d bytes, block 16-byte aligned inside)",
                        b->payload_name, l->params_size, l->epilogue_args_offset, TP_CUDA_MAX_PARAMS);
  }
  if (l->smem_bytes > gpu->smem_per_block) {
    return tp_error_set(TP_ERR_PLUGIN, "payload '%s' asks for %u bytes of shared memory; %s has %u",
                        b->payload_name, l->smem_bytes, gpu->name, gpu->smem_per_block);
  }
  if (memchr(l->prologue, '\0', sizeof l->prologue) == NULL) {
    return tp_error_set(TP_ERR_PLUGIN, "payload '%s': its prologue's name is not terminated",
                        b->payload_name);
  }
  if (l->prologue[0] != '\0') {
    unsigned long threads = 1;
    for (int i = 0; i < 3; i++) {
      if (l->prologue_grid[i] == 0 || l->prologue_block[i] == 0)
        return tp_error_set(TP_ERR_PLUGIN,
                            "payload '%s': prologue %s has a grid or block dimension of 0",
                            b->payload_name, l->prologue);
      threads *= l->prologue_block[i];
    }
    if (threads > 1024)
      return tp_error_set(TP_ERR_PLUGIN,
                          "payload '%s': prologue %s has %lu threads a block (at most 1024)",
                          b->payload_name, l->prologue, threads);
  }
  return TP_OK;
}

/* A clustered grid larger than the clusters that fit at once (GPCs whose SM
 * count the cluster size does not divide leave SMs over) would run its
 * surplus clusters after a whole wave: persistent kernels walk their tiles
 * by gridDim, so a smaller grid is always correct. */
static tp_status clamp_persistent_grid(tp_cuda_plan *plan) {
  const unsigned cluster = plan->dims.cluster[0] * plan->dims.cluster[1] * plan->dims.cluster[2];
  if (cluster <= 1 || plan->dims.grid[1] != 1 || plan->dims.grid[2] != 1) return TP_OK;
  int fit = 0;
  tp_status st = tp_cuda_max_active_clusters(&plan->kernel, &plan->dims, &fit);
  if (st != TP_OK) return st;
  if (fit < 1) {
    return tp_error_set(TP_ERR_UNSUPPORTED, "kernel %s: no cluster of %u CTAs fits the GPU",
                        plan->launch.kernel, cluster);
  }
  if (plan->dims.grid[0] > (unsigned)fit * cluster) plan->dims.grid[0] = (unsigned)fit * cluster;
  return TP_OK;
}

/* The payload's gpu_plan for gpu's figures, its launch checked. */
static tp_status plan_launch(tp_binding *b, const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                             tp_gpu_launch *launch) {
  char err[512] = "";
  memset(launch, 0, sizeof *launch);
  tp_status st = b->payload->gpu_plan(b->payload_state, desc, gpu, &b->epilogue_plan,
                                      &b->payload_plan, launch, err, sizeof err);
  if (st != TP_OK) {
    memset(launch, 0, sizeof *launch); /* no kernel chosen, whatever the slot wrote */
    return tp_error_slot(st, "payload", b->payload_name, "gpu_plan", err);
  }
  st = tp_binding_check_tiles(b);
  return st == TP_OK ? check_launch(b, launch, gpu) : st;
}

/* The link of the payload's kernel with the epilogue's hook: the
 * payload's LTO-IR that holds the kernel and the epilogue's, only the
 * kernel and the launch's prologue (if any) kept. */
static tp_status link_for(tp_cuda_link *li, const tp_binding *b, const tp_gpu_launch *launch) {
  const void *data;
  size_t size;
  tp_status st = tp_device_code_for_kernel(b->payload_plugin, launch->kernel, &data, &size);
  if (st != TP_OK) return st;
  li->inputs[0] = (tp_jit_input){data, size, b->payload_name};
  li->inputs[1] = (tp_jit_input){b->epilogue_plugin->device_image,
                                 b->epilogue_plugin->device_image_size, b->epilogue_name};
  snprintf(li->kernels_used[0], sizeof li->kernels_used[0], "-kernels-used=%s", launch->kernel);
  snprintf(li->kernels_used[1], sizeof li->kernels_used[1], "-kernels-used=%s",
           launch->prologue);
  li->options[0] = li->kernels_used[0];
  li->options[1] = li->kernels_used[1];
  const size_t options = launch->prologue[0] != '\0' ? 2 : 1;
  li->request = (tp_link_request){li->inputs, 2, TP_CUDA_LINK_ARCH, li->options, options};
  return TP_OK;
}

/* The payload's workspace, zeroed (what its counters start from), and
 * where gpu_args finds it. */
static tp_status workspace_create(tp_cuda_plan *plan, tp_binding *b) {
  const uint64_t bytes = plan->launch.workspace_bytes;
  if (bytes == 0) return TP_OK;
  tp_status st = tp_device_alloc(&plan->workspace, (size_t)bytes);
  if (st == TP_OK) st = tp_device_memset(plan->workspace, 0, (size_t)bytes);
  if (st != TP_OK) {
    tp_device_free(plan->workspace);
    plan->workspace = NULL;
    return tp_error_wrap(st, "kernel %s: workspace of %llu bytes", plan->launch.kernel,
                         (unsigned long long)bytes);
  }
  b->payload_plan.workspace = plan->workspace;
  return TP_OK;
}

tp_status tp_cuda_plan_create(tp_cuda_plan **out, tp_binding *b, const tp_gemm_desc *desc) {
  *out = NULL;
  tp_cuda_device dev;
  const tp_cuda_driver *cu;
  CUcontext context = NULL;
  tp_status st = tp_cuda_device_get(&dev);
  if (st == TP_OK) st = tp_cuda_driver_get(&cu);
  if (st == TP_OK) st = tp_cuda_check(cu->CtxGetCurrent(&context), "cuCtxGetCurrent");
  if (st != TP_OK) return st;
  tp_gpu_info gpu;
  gpu_info_of(&dev, &gpu);

  tp_cuda_plan *plan = calloc(1, sizeof *plan);
  if (plan == NULL) return tp_error_set(TP_ERR_OUT_OF_MEMORY, "CUDA plan: out of host memory");
  plan->binding = b;
  plan->device = dev.ordinal;
  plan->context = context;
  if ((st = plan_launch(b, desc, &gpu, &plan->launch)) != TP_OK) {
    free(plan);
    return st;
  }

  tp_cuda_link li;
  const char *failed = plan->launch.kernel;
  st = link_for(&li, b, &plan->launch);
  if (st == TP_OK)
    st = tp_cuda_kernel_get(&li.request, plan->launch.kernel, (int)plan->launch.smem_bytes,
                            &plan->kernel);
  if (st == TP_OK && plan->launch.prologue[0] != '\0') {
    failed = plan->launch.prologue;
    st = tp_cuda_kernel_get(&li.request, plan->launch.prologue, 0, &plan->prologue);
  }
  if (st != TP_OK) {
    tp_error_wrap(st, "kernel %s", failed);
    free(plan);
    return st;
  }
  for (int i = 0; i < 3; ++i) {
    plan->prologue_dims.grid[i] = plan->launch.prologue_grid[i];
    plan->prologue_dims.block[i] = plan->launch.prologue_block[i];
  }
  for (int i = 0; i < 3; ++i) {
    plan->dims.grid[i] = plan->launch.grid[i];
    plan->dims.block[i] = plan->launch.block[i];
    plan->dims.cluster[i] = plan->launch.cluster[i];
  }
  plan->dims.dynamic_smem = plan->launch.smem_bytes;
  /* Every GEMM kernel is the structured kernel, which waits for the
   * stream's previous kernel before it touches memory
   * (tilepipe/internal/kernel/grid_dependency.h). */
  plan->dims.programmatic = 1;
  if ((st = clamp_persistent_grid(plan)) == TP_OK) st = workspace_create(plan, b);
  if (st != TP_OK) {
    free(plan);
    return st;
  }
  *out = plan;
  return TP_OK;
}

tp_status tp_cuda_link_plan(tp_binding *b, const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                            tp_gpu_launch *launch, tp_cuda_link *link) {
  tp_status st = check_device_code(b->payload_plugin, b->epilogue_plugin);
  if (st == TP_OK) st = plan_launch(b, desc, gpu, launch);
  if (st == TP_OK) st = link_for(link, b, launch);
  return st;
}

tp_status tp_cuda_link_check(tp_binding *b, const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                             tp_gpu_launch *launch, tp_link_stats *stats) {
  tp_cuda_link li;
  tp_status st = tp_cuda_link_plan(b, desc, gpu, launch, &li);
  if (st != TP_OK) return st;
  const tp_kernel_entry *entry;
  st = tp_cuda_link_only(&li.request, &entry);
  if (st == TP_OK) st = tp_link_log_stats(entry->info_log, launch->kernel, stats);
  if (st != TP_OK) return tp_error_wrap(st, "kernel %s", launch->kernel);
  /* The prologue's report is checked with every other function's by the
   * link; it must be there, or the plan would fail to load it. */
  tp_link_stats prologue;
  if (launch->prologue[0] != '\0' &&
      (st = tp_link_log_stats(entry->info_log, launch->prologue, &prologue)) != TP_OK)
    return tp_error_wrap(st, "prologue %s", launch->prologue);
  return TP_OK;
}

tp_status tp_cuda_plan_run(const tp_cuda_plan *plan, const tp_gemm_desc *desc, void *stream) {
  const tp_binding *b = plan->binding;
  TP_ALIGNAS(64) unsigned char params[TP_CUDA_MAX_PARAMS];
  memset(params, 0, plan->launch.params_size);
  char err[512] = "";
  tp_status st = b->payload->gpu_args(&b->payload_plan, &b->epilogue_plan, desc,
                                      tp_host_api_get(), params, err, sizeof err);
  if (st != TP_OK) return tp_error_slot(st, "payload", b->payload_name, "gpu_args", err);
  tp_epilogue_args *ea = (tp_epilogue_args *)(params + plan->launch.epilogue_args_offset);
  ea->alpha = desc->alpha;
  ea->beta = desc->beta;
  ea->source_dtype = (int32_t)b->epilogue_plan.source_dtype;
  if (b->epilogue->gpu_args != NULL) {
    st = b->epilogue->gpu_args(&b->epilogue_plan, desc, ea->user, sizeof ea->user, err, sizeof err);
    if (st != TP_OK) return tp_error_slot(st, "epilogue", b->epilogue_name, "gpu_args", err);
  }
  /* Each launch enters the plan's device (its kernel's), or refuses a
   * context of another device, before it queues anything. */
  void *kernel_params[1] = {params};
  if (plan->launch.prologue[0] != '\0' &&
      (st = tp_cuda_launch(&plan->prologue, &plan->prologue_dims, (CUstream)stream, kernel_params,
                           "run: the plan")) != TP_OK)
    return st;
  return tp_cuda_launch(&plan->kernel, &plan->dims, (CUstream)stream, kernel_params,
                        "run: the plan");
}

int tp_cuda_plan_describe(const tp_cuda_plan *plan, char *buf, size_t size) {
  const tp_gpu_launch *l = &plan->launch;
  const int n = snprintf(buf, size,
                         "kernel %s, grid %u, cluster %ux%u, %u bytes smem, %d registers, "
                         "%llu bytes workspace, device %d",
                         l->kernel, plan->dims.grid[0], l->cluster[0], l->cluster[1],
                         l->smem_bytes, plan->kernel.stats.registers,
                         (unsigned long long)l->workspace_bytes, plan->device);
  if (l->prologue[0] == '\0' || n < 0) return n;
  /* Counted in full when buf is already full, as one snprintf would. */
  const size_t room = (size_t)n < size ? size - (size_t)n : 0;
  const int m = snprintf(room ? buf + n : NULL, room, "; prologue %s, grid %ux%u, %d registers",
                         l->prologue, l->prologue_grid[0], l->prologue_grid[1],
                         plan->prologue.stats.registers);
  return m < 0 ? m : n + m;
}

/* Freed under the context that allocated it, whichever is current on the
 * destroying thread (pushed, then popped back); cuMemFree waits for the
 * kernels still using the workspace. */
void tp_cuda_plan_destroy(tp_cuda_plan *plan) {
  const tp_cuda_driver *cu;
  if (plan != NULL && plan->workspace != NULL && tp_cuda_driver_get(&cu) == TP_OK &&
      cu->CtxPushCurrent(plan->context) == CUDA_SUCCESS) {
    CUcontext popped;
    cu->MemFree((CUdeviceptr)(uintptr_t)plan->workspace);
    cu->CtxPopCurrent(&popped);
  }
  free(plan);
}

#else /* !TP_HAVE_CUDA */

tp_status tp_cuda_backend_available(const tp_plugin_desc *payload, const tp_plugin_desc *epilogue) {
  (void)payload;
  (void)epilogue;
  return tp_error_set(TP_ERR_NO_DEVICE, "tilepipe was built without the CUDA toolkit "
                      "(" TP_NO_CUDA_REASON ")");
}

tp_status tp_cuda_plan_create(tp_cuda_plan **plan, tp_binding *binding, const tp_gemm_desc *desc) {
  (void)binding;
  (void)desc;
  *plan = NULL;
  return tp_cuda_backend_available(NULL, NULL);
}

tp_status tp_cuda_gpu_info(tp_gpu_info *gpu) {
  (void)gpu;
  return tp_cuda_backend_available(NULL, NULL);
}

tp_status tp_cuda_link_plan(tp_binding *b, const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                            tp_gpu_launch *launch, tp_cuda_link *link) {
  (void)b;
  (void)desc;
  (void)gpu;
  (void)launch;
  (void)link;
  return tp_cuda_backend_available(NULL, NULL);
}

tp_status tp_cuda_link_check(tp_binding *b, const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                             tp_gpu_launch *launch, tp_link_stats *stats) {
  (void)b;
  (void)desc;
  (void)gpu;
  (void)launch;
  (void)stats;
  return tp_cuda_backend_available(NULL, NULL);
}

tp_status tp_cuda_plan_run(const tp_cuda_plan *plan, const tp_gemm_desc *desc, void *stream) {
  (void)plan;
  (void)desc;
  (void)stream;
  return tp_cuda_backend_available(NULL, NULL);
}

int tp_cuda_plan_describe(const tp_cuda_plan *plan, char *buf, size_t size) {
  (void)plan;
  return snprintf(buf, size, "(no CUDA)");
}

void tp_cuda_plan_destroy(tp_cuda_plan *plan) { (void)plan; }

#endif
