/* tools/seeded_problem.c: see seeded_problem.h. */
#include <stdio.h>
#include <string.h>

#include "tilepipe/device.h"
#include "tools/seeded_problem.h"
#include "tools/seeded_role.h"

int64_t tp_seeded_buffer_bytes(const tp_tensor *t, tp_ref_tensor which) {
  const int scale = which == TP_REF_A_SCALE || which == TP_REF_B_SCALE;
  if (scale && t->layout == TP_LAYOUT_STRIDED && t->rank == 2)
    return (int64_t)tp_dtype_bytes(t->dtype, t->shape[0] * t->stride[0]);
  return tp_tensor_span_bytes(t);
}

/* Device buffers of each present tensor, 0xFF throughout. */
static tp_status allocate(tp_seeded_problem *dp, const tp_ref_problem_spec *spec, char *err,
                          size_t errlen) {
  static const char *const names[TP_REF_TENSORS] = {"A", "B", "a_scale", "b_scale",
                                                    "C", "D", "bias"};
  for (int i = 0; i < TP_REF_TENSORS; i++) {
    tp_tensor *t = tp_ref_desc_tensor(&dp->desc, (tp_ref_tensor)i);
    if (t->dtype == TP_DTYPE_NONE || (i == TP_REF_C && spec->c_is_d)) continue;
    dp->bytes[i] = tp_seeded_buffer_bytes(t, (tp_ref_tensor)i);
    tp_status st = tp_device_alloc(&dp->buffer[i], (size_t)dp->bytes[i]);
    if (st == TP_OK) st = tp_device_memset(dp->buffer[i], 0xFF, (size_t)dp->bytes[i]);
    if (st != TP_OK) {
      snprintf(err, errlen, "%s, %lld bytes: %s", names[i], (long long)dp->bytes[i],
               tp_error_message());
      return st;
    }
    t->data = dp->buffer[i];
  }
  if (spec->c_is_d) dp->desc.c = dp->desc.d;
  return TP_OK;
}

tp_status tp_seeded_problem_create(tp_seeded_problem *dp, const tp_seeded_device *gen,
                                   const tp_ref_problem_spec *spec, uint64_t seed, char *err,
                                   size_t errlen) {
  memset(dp, 0, sizeof *dp);
  tp_status st = tp_ref_problem_describe(spec, &dp->desc, &dp->problem, err, errlen);
  if (st == TP_OK) st = allocate(dp, spec, err, errlen);
  tp_seeded_values values;
  for (int i = 0; i < TP_REF_TENSORS && st == TP_OK; i++) {
    const tp_tensor *t = tp_ref_desc_tensor(&dp->desc, (tp_ref_tensor)i);
    if (t->dtype != TP_DTYPE_NONE &&
        tp_seeded_role(&dp->problem, spec->c_nan, (tp_ref_tensor)i, &values))
      st = tp_seeded_device_fill(gen, t, values, tp_seeded_key(seed, (uint64_t)i), err, errlen);
  }
  if (st != TP_OK) tp_seeded_problem_destroy(dp);
  return st;
}

void tp_seeded_problem_destroy(tp_seeded_problem *dp) {
  for (int i = 0; i < TP_REF_TENSORS; i++) tp_device_free(dp->buffer[i]);
  memset(dp, 0, sizeof *dp);
}
