/* core/backend/cuda/kernel.h: a linked, loaded kernel, and its launch.
 *
 * tp_cuda_kernel_get() is the whole plan-time path: process kernel cache
 * (memory, disk) or a link with the ptxas report checked, then
 * cuLibraryLoadData once per cached link, cuLibraryGetKernel, and the
 * dynamic shared memory opt-in for the device. A CUlibrary is
 * context-independent, so one load serves every context of every device
 * (the driver loads it into each as it is needed), and its CUkernel is one
 * handle for all of them; it stays loaded for the life of the process, like
 * the cache entry it belongs to. What is per device is the kernel's
 * attributes (cuKernelSetAttribute takes the device), so a tp_cuda_kernel
 * names the device it was opted in for and launches only there.
 * tp_cuda_launch() is the run-time path: one cuLaunchKernelEx with the
 * cluster shape as a launch attribute, its config built on the caller's
 * stack (no statics: any thread may launch).
 *
 * tp_cuda_link_only() needs no GPU and no driver: CI links with it, into
 * the same cache entries a plan reads. Built without the CUDA toolkit it
 * returns TP_ERR_UNSUPPORTED; the rest exists only when TP_HAVE_CUDA.
 * Internal to libtilepipe. */
#ifndef TP_CORE_BACKEND_CUDA_KERNEL_H
#define TP_CORE_BACKEND_CUDA_KERNEL_H

#include "config.h"
#include "core/backend/cuda/kernel_cache.h"
#include "core/backend/cuda/link_log.h"
#include "tilepipe/status.h"

/* TP_CUDA_LINK_ARCH (config.h): the one architecture tilepipe's device
 * code is built and linked for, "sm_90a". */

/* The process cache's entry for request, linked without any driver. */
tp_status tp_cuda_link_only(const tp_link_request *request, const tp_kernel_entry **entry);

#if TP_HAVE_CUDA
#include <cuda.h>

typedef struct tp_cuda_kernel {
  CUkernel kernel;              /* pass to cuLaunchKernelEx as a CUfunction */
  int device;                   /* the ordinal of the device it was opted in for */
  int max_dynamic_smem;         /* bytes of dynamic shared memory its launches may ask for
                                   (0: the 48 KiB default) */
  tp_link_stats stats;          /* its registers and stack frame, from the ptxas report */
  const tp_kernel_entry *entry; /* the cubin and the full report */
} tp_cuda_kernel;

/* Kernel `name` (an extern "C" __global__ function) of the link of request,
 * loaded, with up to max_dynamic_smem bytes of dynamic shared memory allowed
 * (0: leave the default) on the device the calling thread works on
 * (tp_cuda_device_get: its current context's, else the default device,
 * whose context it makes current). The kernel itself, which every caller of
 * the same link and name shares, is opted into all the device allows, so
 * that no caller lowers the limit under another (docs/threads.md); the
 * returned max_dynamic_smem is what tp_cuda_launch lets its launches ask
 * for. TP_ERR_NO_DEVICE without a
 * GPU; TP_ERR_LINK for a failed link or a forbidden ptxas diagnostic;
 * TP_ERR_CUDA when the driver refuses the cubin or has no such kernel. */
tp_status tp_cuda_kernel_get(const tp_link_request *request, const char *name,
                             int max_dynamic_smem, tp_cuda_kernel *out);

typedef struct tp_cuda_dims {
  unsigned grid[3];
  unsigned block[3];
  unsigned cluster[3];          /* {0,0,0} or {1,1,1}: no cluster; each must divide grid */
  unsigned dynamic_smem;        /* bytes; at most the kernel's max_dynamic_smem above 48 KiB */
  /* Nonzero: launched as the programmatic dependent of the stream's
   * previous kernel, which only a kernel that waits for it before touching
   * memory may be (tilepipe/internal/kernel/grid_dependency.h). */
  int programmatic;
} tp_cuda_dims;

/* Queues kernel on stream (NULL: the default stream) with the parameter
 * array of its signature (cuLaunchKernelEx's kernelParams), on kernel's
 * device: under the calling thread's context when it is on that device,
 * else under the device's primary context made current when no context is;
 * under another device's context, TP_ERR_INVALID_ARGUMENT, the message
 * naming `what` as the thing that belongs to kernel's device
 * (tp_cuda_device_enter), with nothing queued. Returns once it is queued;
 * errors of the kernel itself show at the next synchronisation. */
tp_status tp_cuda_launch(const tp_cuda_kernel *kernel, const tp_cuda_dims *dims, CUstream stream,
                         void **params, const char *what);

/* How many clusters of dims' shape can be resident at once on kernel's
 * device (cuOccupancyMaxActiveClusters; its context as tp_cuda_launch's;
 * dims.programmatic plays no part); a persistent grid must not launch
 * more, or the surplus waits for a whole wave to finish. */
tp_status tp_cuda_max_active_clusters(const tp_cuda_kernel *kernel, const tp_cuda_dims *dims,
                                      int *clusters);
#endif

#endif
