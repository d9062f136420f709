/* core/backend/cuda/device_choice.c: see device_choice.h. */
#include <errno.h>
#include <stdlib.h>

#include "core/backend/cuda/device_choice.h"
#include "core/error.h"

tp_status tp_cuda_default_ordinal(const char *env, int count, int *ordinal) {
  *ordinal = 0;
  if (count < 1) return tp_error_set(TP_ERR_NO_DEVICE, "CUDA driver: no CUDA device found");
  if (env == NULL || *env == '\0') return TP_OK;
  char *end;
  errno = 0;
  const long v = strtol(env, &end, 10);
  if (errno != 0 || *end != '\0' || v < 0 || v >= count)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "TILEPIPE_DEVICE='%s' is not a device ordinal (this machine has %d: "
                        "0..%d)",
                        env, count, count - 1);
  *ordinal = (int)v;
  return TP_OK;
}

tp_status tp_cuda_device_for(const char *what, int owner, int current) {
  if (current == TP_CUDA_NO_CONTEXT || current == owner) return TP_OK;
  return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                      "%s belongs to CUDA device %d, but the calling thread's current CUDA "
                      "context is on device %d; make a context of device %d current first "
                      "(tp_device_select(%d))",
                      what, owner, current, owner, owner);
}
