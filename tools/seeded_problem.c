/* tools/seeded_problem.c: see seeded_problem.h. */
#include <stdio.h>
#include <string.h>

#include "tilepipe/device.h"
#include "tools/align_rows.h"
#include "tools/reference/seeded_fill.h"
#include "tools/seeded_problem.h"

/* Device buffers of each present tensor (tp_tool_buffer_bytes: its span,
 * whole rows for the scales), 0xFF throughout. */
static tp_status allocate(tp_gpu_problem *dp, const tp_ref_problem_spec *spec, char *err,
                          size_t errlen) {
  for (int i = 0; i < TP_REF_TENSORS; i++) {
    tp_tensor *t = tp_ref_desc_tensor(&dp->desc, i);
    if (t->dtype == TP_DTYPE_NONE || (i == TP_REF_C && spec->c_is_d)) continue;
    dp->bytes[i] = tp_tool_buffer_bytes(t, i);
    tp_status st = tp_device_alloc(&dp->buffer[i], (size_t)dp->bytes[i]);
    if (st == TP_OK) st = tp_device_memset(dp->buffer[i], 0xFF, (size_t)dp->bytes[i]);
    if (st != TP_OK) {
      static const char *const names[TP_REF_TENSORS] = {"A", "B", "a_scale", "b_scale", "C", "D"};
      snprintf(err, errlen, "%s, %lld bytes: %s", names[i], (long long)dp->bytes[i],
               tp_error_message());
      return st;
    }
    t->data = dp->buffer[i];
  }
  if (spec->c_is_d) dp->desc.c = dp->desc.d;
  return TP_OK;
}

tp_status tp_seeded_problem_create(tp_gpu_problem *dp, const tp_seeded_device *gen,
                                   const tp_ref_problem_spec *spec, uint64_t seed, char *err,
                                   size_t errlen) {
  memset(dp, 0, sizeof *dp);
  tp_status st = tp_ref_problem_describe(spec, &dp->desc, &dp->problem, err, errlen);
  if (st == TP_OK) {
    tp_tool_align_desc(&dp->desc);
    if (spec->c_is_d) dp->desc.c = dp->desc.d;
    st = allocate(dp, spec, err, errlen);
  }
  tp_seeded_values values;
  for (int i = 0; i < TP_REF_TENSORS && st == TP_OK; i++) {
    const tp_tensor *t = tp_ref_desc_tensor(&dp->desc, i);
    if (t->dtype != TP_DTYPE_NONE && tp_seeded_role(&dp->problem, spec->c_nan, i, &values))
      st = tp_seeded_device_fill(gen, t, values, tp_seeded_key(seed, (uint64_t)i), err, errlen);
  }
  if (st != TP_OK) tp_gpu_problem_destroy(dp);
  return st;
}
