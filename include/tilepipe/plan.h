/* tilepipe/plan.h: plans, the unit of work.
 *
 * A plan binds a payload plugin, an epilogue plugin and a GEMM descriptor to a
 * backend. Creating it validates everything and does all the expensive work
 * (choosing tiles, laying out shared memory, linking and loading the GPU
 * kernel, through an in-memory and on-disk cache). Running it only checks that
 * the descriptor still matches, reads the data pointers and launches: it
 * never allocates device memory.
 *
 *     tp_registry *reg;  tp_plan *plan;
 *     tp_registry_open(&reg, NULL);
 *     tp_plan_create(&plan, reg, "standard", "store", &desc, TP_BACKEND_AUTO);
 *     tp_plan_run(plan, &desc, NULL);
 *     tp_plan_destroy(plan);  tp_registry_close(reg);
 */
#ifndef TILEPIPE_PLAN_H
#define TILEPIPE_PLAN_H

#include <stddef.h>
#include "tilepipe/gemm.h"
#include "tilepipe/registry.h"
#include "tilepipe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tp_backend {
  TP_BACKEND_AUTO = 0, /* CUDA when a usable GPU, device code and a GPU kernel for the
                          problem exist (a plan slot that refuses the CUDA backend as
                          TP_ERR_UNSUPPORTED falls back), else CPU */
  TP_BACKEND_CPU,      /* host threads through the host pipeline; pointers are host memory */
  TP_BACKEND_CUDA      /* the fused, runtime-linked kernel; pointers are device memory */
} tp_backend;

/* "auto", "cpu", "cuda"; and the reverse (returns -1 if unknown). */
const char *tp_backend_name(tp_backend backend);
int tp_backend_from_name(const char *name);

typedef struct tp_plan tp_plan;

/* A CUDA plan belongs to one GPU: the device of the calling thread's
 * current CUDA context when it is created, or, when no context is current,
 * the default device ($TILEPIPE_DEVICE, default 0), whose primary context
 * is then made current on the thread. To plan for another GPU, make one of
 * its contexts current first (tp_device_select, tilepipe/device.h, or
 * cudaSetDevice); the data pointers must be that device's memory. Each GPU
 * of a host may run its own plans from its own threads at the same time
 * (docs/threads.md). */
tp_status tp_plan_create(tp_plan **plan, tp_registry *registry, const char *payload,
                         const char *epilogue, const tp_gemm_desc *desc, tp_backend backend);

/* Runs the plan on the buffers named by desc's data pointers. desc must
 * describe the same problem as at creation (sizes, dtypes, layouts, strides,
 * alpha, beta); only pointers may differ. stream is a CUstream for the CUDA
 * backend (NULL: the default stream; the call returns once the kernel is
 * queued) and must be NULL for the CPU backend (the call returns when done).
 * A CUDA plan runs under the calling thread's current context when that is
 * on the plan's device; with no context current, its device's primary
 * context is made current; under a context of another device the run is
 * refused, TP_ERR_INVALID_ARGUMENT naming both devices, before anything is
 * queued. */
tp_status tp_plan_run(tp_plan *plan, const tp_gemm_desc *desc, void *stream);

/* The backend the plan resolved to (never AUTO). */
tp_backend tp_plan_backend(const tp_plan *plan);

/* One line describing the plan's choices (tile shape, stages, cluster,
 * kernel, the device of a CUDA plan; for TP_BACKEND_AUTO resolved to the
 * CPU, why not CUDA) into buf; returns what snprintf returns: the whole
 * line's length, also when size is too small (the line is then cut to
 * size - 1 chars) or 0 (buf may be NULL), so tp_plan_describe(plan, NULL,
 * 0) + 1 is the buffer that holds it. */
int tp_plan_describe(const tp_plan *plan, char *buf, size_t size);

/* Call it once per plan: the handle is freed memory afterwards, and must
 * not be run, described or destroyed again (a magic word catches such a
 * call only while the freed memory still holds it). Destroy plans before
 * closing their registry (tilepipe/registry.h). NULL is a no-op. */
void tp_plan_destroy(tp_plan *plan);

#ifdef __cplusplus
}
#endif
#endif
