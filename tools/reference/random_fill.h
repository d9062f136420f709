/* tools/reference/random_fill.h: seeded random inputs for tests and the
 * `tilepipe run` tool.
 *
 * Operands are N(0,1) samples rounded to their dtype: never a zero matrix,
 * signs mixed (so wrong signs or dropped terms show), and for fp8/fp4 a mix
 * of normal and subnormal codes. s8 operands are uniform over all 256 codes,
 * -128..127: the full range (-128 included, though symmetric quantizers
 * never emit it), so the products reach the 2^14 that bounds an integer
 * k-block's exactness. Scales are drawn per dtype so that products stay
 * well inside every output format: f32 scales 2^U(-2,2) (blockwise), or
 * for the per-row and per-column vectors of s8 operands 2^U(-12,-4):
 * positive like the absmax/127 scales of real int8 quantization, spread
 * over 8 octaves so that a misapplied scale shows, and small enough that a
 * sum of K products (each up to 2^14) stays inside f16 for K up to 2^16;
 * ue8m0 2^{-2..2}, ue4m3 U(0.25, 4) rounded to ue4m3. The generator is
 * splitmix64: the same seed gives the same inputs on every machine.
 *
 * Tensors of rank 1 (vectors) are filled like a [1, n] matrix. */
#ifndef TP_TOOLS_REFERENCE_RANDOM_FILL_H
#define TP_TOOLS_REFERENCE_RANDOM_FILL_H

#include <stdint.h>
#include "tilepipe/tensor.h"

typedef struct tp_rng {
  uint64_t state;
} tp_rng;

void tp_rng_seed(tp_rng *rng, uint64_t seed);
uint64_t tp_rng_u64(tp_rng *rng);
double tp_rng_uniform(tp_rng *rng); /* [0, 1) */
double tp_rng_normal(tp_rng *rng);  /* N(0, 1) */

/* Every element of t (rank 1, or rank 2 strided or 128x4 tiled) gets a
 * value; bytes outside its elements (row padding, atom padding) are not
 * touched. tp_fill_normal draws operands (uniform codes for s8),
 * tp_fill_scales the scales of a tensor of that dtype, and
 * tp_fill_vector_scales the per-row scales that come with s8 operands. */
void tp_fill_normal(tp_rng *rng, const tp_tensor *t);
void tp_fill_scales(tp_rng *rng, const tp_tensor *t);
void tp_fill_vector_scales(tp_rng *rng, const tp_tensor *t);
void tp_fill_value(const tp_tensor *t, float value);

#endif
