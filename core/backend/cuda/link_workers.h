/* core/backend/cuda/link_workers.h: many kernels linked into the disk
 * cache at once.
 *
 * A link takes one core for about a second, and nvJitLink links one at a
 * time in a process (nvjitlink.c). tp_link_workers_fill forks up to `jobs`
 * worker processes (tp_jit_fork); each takes the next request (a counter
 * in shared memory), fills the disk folder with its entry
 * (tp_kernel_cache_fill) and reports the outcome through a pipe. Workers
 * only link and write files: they touch no CUDA, no cache in memory and
 * nothing another thread of the caller holds, and leave with _exit. The
 * caller hears each outcome as it arrives, on its own thread. With one job,
 * one request, or when no worker process can be started (or tilepipe was
 * built without the CUDA toolkit, when every link fails), it links in the
 * calling process instead, with the same outcomes. Internal to
 * libtilepipe. */
#ifndef TP_CORE_BACKEND_CUDA_LINK_WORKERS_H
#define TP_CORE_BACKEND_CUDA_LINK_WORKERS_H

#include <stddef.h>
#include "core/backend/cuda/kernel_cache.h"

/* One request's outcome: status TP_OK with linked 1 (linked and written) or
 * 0 (the folder held it already); otherwise the failure and its message.
 * seconds: the wall time its worker spent on it. */
typedef void (*tp_link_done_fn)(void *context, size_t index, tp_status status, int linked,
                                double seconds, const char *message);

/* Fills dir with requests[0 .. count), at most jobs (>= 1) at a time, and
 * calls done once per request; *workers: the worker processes it started
 * (0: it linked in this process). TP_OK once every request has an outcome,
 * whatever it is; TP_ERR_INVALID_ARGUMENT for bad arguments. A worker that
 * dies leaves its request failed with TP_ERR_INTERNAL and the reason. */
tp_status tp_link_workers_fill(const char *dir, const tp_link_request *const *requests,
                               size_t count, int jobs, tp_link_done_fn done, void *context,
                               size_t *workers);

#endif
