/* core/backend/cuda/kernel.c: from link request to launched kernel. See
 * kernel.h. */
#include "config.h"

#include <stdio.h>

#include "core/backend/cuda/kernel.h"
#include "core/error.h"

tp_status tp_cuda_link_only(const tp_link_request *request, const tp_kernel_entry **entry) {
  if (!request || !entry)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_cuda_link_only: request or entry is NULL");
  tp_kernel_cache *cache;
  tp_status st = tp_kernel_cache_global(&cache);
  return st != TP_OK ? st : tp_kernel_cache_get(cache, request, entry);
}

#if TP_HAVE_CUDA
#include "core/backend/cuda/driver.h"

/* The kernel cache's load and unload of a cubin (tp_kernel_cache_attach). */
static tp_status load_library(const tp_kernel_entry *entry, void **handle) {
  const tp_cuda_driver *cu;
  tp_status st = tp_cuda_driver_get(&cu);
  CUlibrary library = NULL;
  if (st == TP_OK)
    st = tp_cuda_check(cu->LibraryLoadData(&library, entry->cubin, NULL, NULL, 0, NULL, NULL, 0),
                       "cuLibraryLoadData");
  *handle = library;
  return st;
}

static void unload_library(void *handle) {
  const tp_cuda_driver *cu;
  if (tp_cuda_driver_get(&cu) == TP_OK) cu->LibraryUnload((CUlibrary)handle);
}

tp_status tp_cuda_kernel_get(const tp_link_request *request, const char *name,
                             int max_dynamic_smem, tp_cuda_kernel *out) {
  if (!request || !name || !out)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_cuda_kernel_get: NULL argument");
  if (max_dynamic_smem < 0)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_cuda_kernel_get: negative shared memory size");
  tp_cuda_device dev;
  const tp_cuda_driver *cu;
  tp_status st = tp_cuda_device_get(&dev);
  if (st != TP_OK || (st = tp_cuda_driver_get(&cu)) != TP_OK) return st;
  if (max_dynamic_smem > dev.max_smem_optin)
    return tp_error_set(TP_ERR_UNSUPPORTED,
                        "kernel %s needs %d bytes of shared memory; %s allows a block %d", name,
                        max_dynamic_smem, dev.name, dev.max_smem_optin);

  tp_kernel_cache *cache;
  const tp_kernel_entry *entry;
  void *library;
  if ((st = tp_kernel_cache_global(&cache)) != TP_OK ||
      (st = tp_kernel_cache_get(cache, request, &entry)) != TP_OK ||
      (st = tp_kernel_cache_attach(cache, entry, load_library, unload_library, &library)) != TP_OK)
    return st;

  char what[320];
  snprintf(what, sizeof what, "cuLibraryGetKernel(\"%.256s\")", name);
  CUkernel kernel;
  if ((st = tp_cuda_check(cu->LibraryGetKernel(&kernel, (CUlibrary)library, name), what)) != TP_OK)
    return st;
  if (max_dynamic_smem > 0) {
    /* The limit is the kernel's, and every plan of this link shares the
     * kernel, each needing its own amount (stages, D's dtype): were each
     * to set its own, a later plan would lower the limit under an earlier
     * one's launches. So every plan sets the same limit, all the device
     * allows beside the kernel's static shared memory; each launch still
     * asks for its own plan's amount. */
    int static_smem = 0;
    snprintf(what, sizeof what, "cuKernelGetAttribute(%.256s, SHARED_SIZE_BYTES)", name);
    st = tp_cuda_check(cu->KernelGetAttribute(&static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                              kernel, (CUdevice)dev.cu_device),
                       what);
    if (st != TP_OK) return st;
    const int limit = dev.max_smem_optin - static_smem;
    if (max_dynamic_smem > limit)
      return tp_error_set(TP_ERR_UNSUPPORTED,
                          "kernel %s needs %d bytes of dynamic shared memory beside its %d "
                          "static ones; %s allows a block %d in all",
                          name, max_dynamic_smem, static_smem, dev.name, dev.max_smem_optin);
    snprintf(what, sizeof what, "cuKernelSetAttribute(%.256s, MAX_DYNAMIC_SHARED_SIZE_BYTES)",
             name);
    st = tp_cuda_check(cu->KernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                              limit, kernel, (CUdevice)dev.cu_device),
                       what);
    if (st != TP_OK) return st;
  }
  tp_link_stats stats;
  if ((st = tp_link_log_stats(entry->info_log, name, &stats)) != TP_OK) return st;
  out->kernel = kernel;
  out->device = dev.ordinal;
  out->max_dynamic_smem = max_dynamic_smem;
  out->stats = stats;
  out->entry = entry;
  return TP_OK;
}

/* Without the opt-in, a block may use this much dynamic shared memory. */
#define DEFAULT_SMEM_LIMIT (48 * 1024)
/* Larger clusters need CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED. */
#define PORTABLE_CLUSTER_MAX 8

static tp_status check_dims(const tp_cuda_kernel *kernel, const tp_cuda_dims *d, int *clustered) {
  unsigned long threads = 1, cluster_size = 1;
  int cluster_zero = 0;
  for (int i = 0; i < 3; i++) {
    if (d->grid[i] == 0 || d->block[i] == 0)
      return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                          "launch: grid and block dimensions must be >= 1");
    threads *= d->block[i];
    cluster_zero += d->cluster[i] == 0;
    cluster_size *= d->cluster[i] ? d->cluster[i] : 1;
  }
  if (threads > 1024)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "launch: %lu threads per block (at most 1024)",
                        threads);
  if (cluster_zero != 0 && cluster_zero != 3)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "launch: cluster dimensions must be all 0 (none) or all >= 1");
  *clustered = cluster_zero == 0 && cluster_size > 1;
  for (int i = 0; *clustered && i < 3; i++)
    if (d->grid[i] % d->cluster[i] != 0)
      return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                          "launch: cluster dimension %u does not divide grid dimension %u",
                          d->cluster[i], d->grid[i]);
  if (cluster_size > PORTABLE_CLUSTER_MAX)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "launch: cluster of %lu blocks (at most %d)",
                        cluster_size, PORTABLE_CLUSTER_MAX);
  if (d->dynamic_smem > DEFAULT_SMEM_LIMIT && d->dynamic_smem > (unsigned)kernel->max_dynamic_smem)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "launch: %u bytes of dynamic shared memory, but the kernel was opted into "
                        "%d (ask tp_cuda_kernel_get for more)",
                        d->dynamic_smem, kernel->max_dynamic_smem);
  return TP_OK;
}

/* The driver's launch configuration for dims: its cluster and (when
 * programmatic) programmatic launch attributes in attrs[2], which must
 * outlive config. */
static CUlaunchConfig launch_config(const tp_cuda_dims *dims, int clustered, int programmatic,
                                    CUstream stream, CUlaunchAttribute attrs[2]) {
  unsigned n = 0;
  if (clustered) {
    attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attrs[n].value.clusterDim.x = dims->cluster[0];
    attrs[n].value.clusterDim.y = dims->cluster[1];
    attrs[n].value.clusterDim.z = dims->cluster[2];
    n++;
  }
  if (programmatic) {
    attrs[n].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attrs[n].value.programmaticStreamSerializationAllowed = 1;
    n++;
  }
  CUlaunchConfig config = {
      .gridDimX = dims->grid[0],
      .gridDimY = dims->grid[1],
      .gridDimZ = dims->grid[2],
      .blockDimX = dims->block[0],
      .blockDimY = dims->block[1],
      .blockDimZ = dims->block[2],
      .sharedMemBytes = dims->dynamic_smem,
      .hStream = stream,
      .attrs = n ? attrs : NULL,
      .numAttrs = n,
  };
  return config;
}

/* The kernel's device entered on the calling thread (tp_cuda_device_enter),
 * and the driver table. */
static tp_status enter_device(const tp_cuda_kernel *kernel, const char *what,
                              const tp_cuda_driver **cu) {
  tp_status st = tp_cuda_device_enter(kernel->device, what);
  return st == TP_OK ? tp_cuda_driver_get(cu) : st;
}

tp_status tp_cuda_launch(const tp_cuda_kernel *kernel, const tp_cuda_dims *dims, CUstream stream,
                         void **params, const char *what) {
  if (!kernel || !kernel->kernel || !dims)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_cuda_launch: kernel or dims is NULL");
  int clustered = 0;
  /* The launching thread may not be the one that loaded the kernel. */
  const tp_cuda_driver *cu;
  tp_status st = check_dims(kernel, dims, &clustered);
  if (st != TP_OK || (st = enter_device(kernel, what, &cu)) != TP_OK) return st;
  CUlaunchAttribute attrs[2];
  CUlaunchConfig config = launch_config(dims, clustered, dims->programmatic, stream, attrs);
  return tp_cuda_check(cu->LaunchKernelEx(&config, (CUfunction)kernel->kernel, params, NULL),
                       "cuLaunchKernelEx");
}

tp_status tp_cuda_max_active_clusters(const tp_cuda_kernel *kernel, const tp_cuda_dims *dims,
                                      int *clusters) {
  int clustered = 0;
  const tp_cuda_driver *cu;
  tp_status st = check_dims(kernel, dims, &clustered);
  if (st != TP_OK || (st = enter_device(kernel, "the kernel", &cu)) != TP_OK) return st;
  CUfunction function;
  st = tp_cuda_check(cu->KernelGetFunction(&function, kernel->kernel), "cuKernelGetFunction");
  if (st != TP_OK) return st;
  /* How many clusters fit does not depend on how the launch follows the
   * stream's previous kernel: the query asks about the cluster alone. */
  CUlaunchAttribute attrs[2];
  CUlaunchConfig config = launch_config(dims, clustered, 0, NULL, attrs);
  return tp_cuda_check(cu->OccupancyMaxActiveClusters(clusters, function, &config),
                       "cuOccupancyMaxActiveClusters");
}
#endif
