/* tilepipe/dtype.h: element types and their host conversions.
 *
 * Encoding from f32 rounds to nearest, ties to even, everywhere. Formats with
 * an infinity (bf16, f16, e5m2) overflow to it; formats without one (e4m3fn,
 * ue8m0, e2m1, ue4m3) saturate to their largest finite value of the same sign
 * (unsigned formats clamp negatives to zero, or to their smallest value where
 * they have no zero). NaN encodes to the format's canonical NaN where it has
 * one; e2m1 has none, and encodes NaN as +0. The integer s8 rounds to the
 * nearest integer (ties to even) and saturates to -128..127, infinities too;
 * NaN encodes to 0.
 *
 * The inline codecs behind these functions live in tilepipe/plugin/dtype_codec.h,
 * which host code, plugins and device code may include directly. */
#ifndef TILEPIPE_DTYPE_H
#define TILEPIPE_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tp_dtype {
  TP_DTYPE_NONE = 0, /* "absent": an optional tensor that is not given */
  TP_DTYPE_F32,
  TP_DTYPE_BF16,
  TP_DTYPE_F16,
  TP_DTYPE_E4M3,  /* fp8 e4m3fn: no infinity, NaN = S.1111.111, max 448 */
  TP_DTYPE_E5M2,  /* fp8 e5m2: IEEE-like, with infinities, max 57344 */
  TP_DTYPE_UE8M0, /* power-of-two scale 2^(e-127), e in 0..254; 0xFF = NaN */
  TP_DTYPE_E2M1,  /* fp4, packed two per byte, element 2i in the low nibble; max 6 */
  TP_DTYPE_UE4M3, /* unsigned e4m3 (NVFP4 scale): max 448, 0x7F = NaN */
  TP_DTYPE_S8,    /* signed 8-bit integer, two's complement: -128..127 */
  TP_DTYPE_COUNT
} tp_dtype;

/* "bf16", "e4m3", ...; "none" for TP_DTYPE_NONE, "?" for an unknown value. */
const char *tp_dtype_name(tp_dtype dtype);

/* Parses a name as printed by tp_dtype_name (also "fp32", "float32",
 * "bfloat16", "half", "fp8_e4m3", "fp8_e5m2", "fp4", "int8"); TP_DTYPE_NONE if
 * unknown. */
tp_dtype tp_dtype_from_name(const char *name);

/* Storage size in bits of one element: 32, 16, 8 or 4. 0 for NONE/unknown. */
unsigned tp_dtype_bits(tp_dtype dtype);

/* Bytes taken by `count` consecutive elements (rounded up for packed fp4). */
size_t tp_dtype_bytes(tp_dtype dtype, int64_t count);

/* Converts one value. For f32 the code is the IEEE bit pattern, for s8 the
 * two's-complement byte (it decodes to the integer, -128..127). Codes of
 * narrow formats sit in the low bits of the result; extra high bits of a code
 * passed to decode are ignored. Unknown dtypes decode to NaN, encode to 0. */
uint32_t tp_dtype_encode(tp_dtype dtype, float value);
float tp_dtype_decode(tp_dtype dtype, uint32_t code);

/* Element i of a contiguous array of `dtype` values (handles fp4 packing). */
float tp_dtype_load(tp_dtype dtype, const void *base, int64_t i);
void tp_dtype_store(tp_dtype dtype, void *base, int64_t i, float value);

#ifdef __cplusplus
}
#endif
#endif
