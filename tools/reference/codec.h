/* tools/reference/codec.h: the reference's own decoding of every dtype,
 * written from the formats' definitions and sharing nothing with the
 * library's codec (tilepipe/plugin/dtype_codec.h, behind tp_dtype_load).
 *
 * The narrow formats (e2m1, e4m3, e5m2, ue4m3, ue8m0) are literal tables of
 * every code's value (codec.c); bf16, f16 and f32 are decoded from their
 * IEEE bit fields, s8 as two's complement. The f64 reference (naive_gemm.c)
 * reads A, B, C and the scales through it, so a decoding fault of the
 * library shows as a wrong D in every test of the reference, not only in
 * tests/test_dtype.c; tests/test_codec_tables.c holds tp_dtype_load and
 * tp_dtype_store to these tables for every code. */
#ifndef TP_TOOLS_REFERENCE_CODEC_H
#define TP_TOOLS_REFERENCE_CODEC_H

#include <stdint.h>

#include "tilepipe/dtype.h"

/* The value of `code` in dtype: its low 4 bits for e2m1, 8 for the 8-bit
 * formats (ue4m3's bit 7 carries nothing), 16 for bf16 and f16, 32 for f32
 * (higher bits ignored). NaN for NaN codes and for a dtype that is not a
 * tilepipe dtype. */
double tp_ref_code_value(tp_dtype dtype, uint32_t code);

/* Element i of a tensor of dtype whose elements start at base (e2m1:
 * packed two a byte, element 2j in byte j's low nibble), decoded by
 * tp_ref_code_value. */
double tp_ref_load(tp_dtype dtype, const void *base, int64_t i);

#endif
