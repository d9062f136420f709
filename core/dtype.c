/* core/dtype.c: the exported dtype functions of tilepipe/dtype.h.
 *
 * Thin wrappers over the inline codecs of tilepipe/plugin/dtype_codec.h, which hold
 * all the arithmetic; what is added here is argument checking for the
 * functions that take a pointer or a count, since they return no status:
 * a NULL base or negative index loads NaN and stores nothing. */
#include <stdint.h>

#include "tilepipe/dtype.h"
#include "tilepipe/plugin/dtype_codec.h"

const char *tp_dtype_name(tp_dtype dtype) { return tp_codec_name(dtype); }

tp_dtype tp_dtype_from_name(const char *name) { return tp_codec_from_name(name); }

unsigned tp_dtype_bits(tp_dtype dtype) { return tp_codec_bits(dtype); }

/* 0 for a negative count or unknown dtype; SIZE_MAX where the size does not
 * fit a size_t, so that an allocation of it fails instead of coming out
 * short. */
size_t tp_dtype_bytes(tp_dtype dtype, int64_t count) {
  unsigned bits = tp_codec_bits(dtype);
  if (bits == 0 || count <= 0)
    return 0;
  uint64_t n = (uint64_t)count;
  if (bits == 4)
    n = n / 2 + n % 2;
  else if (n > SIZE_MAX / (bits / 8))
    return SIZE_MAX;
  else
    n *= bits / 8;
  return n > SIZE_MAX ? SIZE_MAX : (size_t)n;
}

uint32_t tp_dtype_encode(tp_dtype dtype, float value) { return tp_codec_encode(dtype, value); }

float tp_dtype_decode(tp_dtype dtype, uint32_t code) { return tp_codec_decode(dtype, code); }

float tp_dtype_load(tp_dtype dtype, const void *base, int64_t i) {
  if (base == NULL || i < 0)
    return tp_f32_from_bits(TP_F32_NAN_BITS);
  return tp_codec_load(dtype, base, i);
}

void tp_dtype_store(tp_dtype dtype, void *base, int64_t i, float value) {
  if (base == NULL || i < 0)
    return;
  tp_codec_store(dtype, base, i, value);
}
