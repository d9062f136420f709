/* core/backend/cuda/once.h: the remembered outcome of a once-only step.
 *
 * Loading libcuda or nvJitLink runs once per process under pthread_once; the
 * step records its status and message here, and every later caller, on any
 * thread, gets the same answer again without retrying. Internal. */
#ifndef TP_CORE_BACKEND_CUDA_ONCE_H
#define TP_CORE_BACKEND_CUDA_ONCE_H

#include <stdio.h>
#include "core/error.h"

typedef struct tp_once_result {
  tp_status status;
  char message[512];
} tp_once_result;

/* Called at the end of the step, with the status it returns: keeps the
 * calling thread's current message when the step failed. */
static inline void tp_once_record(tp_once_result *r, tp_status status) {
  r->status = status;
  snprintf(r->message, sizeof r->message, "%s", status == TP_OK ? "" : tp_error_message());
}

/* The recorded status, with its message set again for this thread. */
static inline tp_status tp_once_replay(const tp_once_result *r) {
  return r->status == TP_OK ? TP_OK : tp_error_set(r->status, "%s", r->message);
}

#endif
