/* tools/reference/random_fill.h: seeded random inputs for tests and the
 * `tilepipe run` tool.
 *
 * Operands are N(0,1) samples rounded to their dtype: never a zero matrix,
 * signs mixed (so wrong signs or dropped terms show), and for fp8/fp4 a mix
 * of normal and subnormal codes. Scales are drawn per dtype so that products
 * stay well inside every output format: f32 scales (blockwise) 2^U(-2,2),
 * ue8m0 2^{-2..2}, ue4m3 U(0.25, 4) rounded to ue4m3. The generator is
 * splitmix64: the same seed gives the same inputs on every machine. */
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

/* Every element of t (rank 2, strided or 128x4 tiled) gets a value; bytes
 * outside its elements (row padding, atom padding) are not touched. */
void tp_fill_normal(tp_rng *rng, const tp_tensor *t);
void tp_fill_scales(tp_rng *rng, const tp_tensor *t);
void tp_fill_value(const tp_tensor *t, float value);

#endif
