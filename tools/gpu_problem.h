/* tools/gpu_problem.h: a host problem (tools/reference/problem.h)
 * mirrored into device memory through the public device API
 * (tilepipe/device.h), for runs on the CUDA backend.
 *
 * Each host buffer gets a device buffer of the same size and contents
 * (padding included), so the device descriptor has the same shapes and
 * strides as the host one and only its pointers differ. C living in D's
 * buffer on the host lives in D's device buffer too. */
#ifndef TP_TOOLS_GPU_PROBLEM_H
#define TP_TOOLS_GPU_PROBLEM_H

#include "tilepipe/gemm.h"
#include "tilepipe/status.h"
#include "tools/reference/problem.h"

typedef struct tp_gpu_problem {
  tp_gemm_desc desc;            /* the host descriptor with device pointers */
  tp_problem problem;           /* what its scale tensors mean (the host problem's) */
  void *buffer[TP_REF_TENSORS]; /* owned device memory; NULL where the host has none */
  int64_t bytes[TP_REF_TENSORS];
} tp_gpu_problem;

/* Allocates and uploads. On failure (message in tp_error_message()) *dp is
 * empty. */
tp_status tp_gpu_problem_create(tp_gpu_problem *dp, const tp_ref_problem *host);

/* 0xFF over D's device buffer (NaN in every dtype), unless C is D. */
tp_status tp_gpu_problem_poison_d(const tp_gpu_problem *dp);

/* Copies D's device buffer into the host problem's D buffer. */
tp_status tp_gpu_problem_fetch_d(const tp_gpu_problem *dp, tp_ref_problem *host);

void tp_gpu_problem_destroy(tp_gpu_problem *dp);

#endif
