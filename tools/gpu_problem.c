/* tools/gpu_problem.c: see gpu_problem.h. */
#include <string.h>

#include "tilepipe/device.h"
#include "tools/gpu_problem.h"

tp_status tp_gpu_problem_create(tp_gpu_problem *dp, const tp_ref_problem *host) {
  memset(dp, 0, sizeof *dp);
  dp->desc = host->desc;
  dp->problem = host->problem;
  tp_status st = TP_OK;
  for (int i = 0; i < TP_REF_TENSORS && st == TP_OK; i++) {
    tp_tensor *t = tp_ref_desc_tensor(&dp->desc, i);
    t->data = NULL;
    if (host->buffer[i] == NULL) continue;
    st = tp_device_alloc(&dp->buffer[i], (size_t)host->bytes[i]);
    if (st == TP_OK) st = tp_device_copy_to(dp->buffer[i], host->buffer[i], (size_t)host->bytes[i]);
    dp->bytes[i] = host->bytes[i];
    t->data = dp->buffer[i];
  }
  if (host->desc.c.data != NULL && host->desc.c.data == host->desc.d.data)
    dp->desc.c.data = dp->desc.d.data;
  if (st != TP_OK) tp_gpu_problem_destroy(dp);
  return st;
}

tp_status tp_gpu_problem_poison_d(const tp_gpu_problem *dp) {
  if (dp->desc.c.data == dp->desc.d.data) return TP_OK;
  return tp_device_memset(dp->buffer[TP_REF_D], 0xFF, (size_t)dp->bytes[TP_REF_D]);
}

tp_status tp_gpu_problem_fetch_d(const tp_gpu_problem *dp, tp_ref_problem *host) {
  return tp_device_copy_from(host->buffer[TP_REF_D], dp->buffer[TP_REF_D],
                             (size_t)dp->bytes[TP_REF_D]);
}

void tp_gpu_problem_destroy(tp_gpu_problem *dp) {
  for (int i = 0; i < TP_REF_TENSORS; i++) tp_device_free(dp->buffer[i]);
  memset(dp, 0, sizeof *dp);
}
