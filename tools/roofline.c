/* tools/roofline.c: see roofline.h. */
#include <math.h>

#include "tilepipe/dtype.h"
#include "tools/roofline.h"

/* Bytes of a tensor's logical elements (0 when absent). */
static double tensor_bytes(const tp_tensor *t) {
  if (t->dtype == TP_DTYPE_NONE) return 0.0;
  int64_t elements = 1;
  for (int32_t i = 0; i < t->rank; i++) elements *= t->shape[i];
  return (double)tp_dtype_bytes(t->dtype, elements);
}

/* amount / rate in milliseconds; NaN when the rate is not a positive number. */
static double time_ms(double amount, double rate) {
  return rate > 0.0 && isfinite(rate) ? amount / rate * 1e3 : NAN;
}

tp_roofline tp_roofline_of(const tp_gemm_desc *desc, const tp_ceilings *ceilings) {
  tp_roofline r;
  r.flops = 2.0 * (double)desc->m * (double)desc->n * (double)desc->k;
  r.bytes = tensor_bytes(&desc->a) + tensor_bytes(&desc->b) + tensor_bytes(&desc->a_scale) +
            tensor_bytes(&desc->b_scale) + tensor_bytes(&desc->bias) + tensor_bytes(&desc->d);
  if (desc->beta != 0.0f) r.bytes += tensor_bytes(&desc->c);
  r.memory_ms = ceilings ? time_ms(r.bytes, ceilings->bytes_per_s) : NAN;
  r.compute_ms = ceilings ? time_ms(r.flops, ceilings->flops_per_s) : NAN;
  r.floor_ms = isnan(r.memory_ms) || isnan(r.compute_ms) ? NAN : fmax(r.memory_ms, r.compute_ms);
  return r;
}

int tp_roofline_memory_bound(const tp_roofline *r) { return r->memory_ms > r->compute_ms; }
