/* tools/reference/random_fill.h: seeded random inputs for tests and the
 * `tilepipe run` tool.
 *
 * Operands are N(0,1) samples rounded to their dtype: never a zero matrix,
 * signs mixed (so wrong signs or dropped terms show), and for fp8/fp4 a mix
 * of normal and subnormal codes. s8 operands are uniform over all 256 codes,
 * -128..127: the full range (-128 included, though symmetric quantizers
 * never emit it), so the products reach the 2^14 that bounds an integer
 * k-block's exactness. Scales take the values their payload's map names
 * (tp_scale_map, tilepipe/problem.h): 2^e (1 + m), e uniform over the
 * map's exponents and m over the scale dtype's mantissa codes, the
 * formula of the benchmark's seeded scales (tools/seeded_values.h) with
 * this generator's bits. The generator is splitmix64: the same seed gives
 * the same inputs on every machine.
 *
 * Tensors of rank 1 (vectors) are filled like a [1, n] matrix. */
#ifndef TP_TOOLS_REFERENCE_RANDOM_FILL_H
#define TP_TOOLS_REFERENCE_RANDOM_FILL_H

#include <stdint.h>
#include "tilepipe/problem.h"
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
 * tp_fill_scales the values of `map` (an absent t is left alone). */
void tp_fill_normal(tp_rng *rng, const tp_tensor *t);
void tp_fill_scales(tp_rng *rng, const tp_tensor *t, const tp_scale_map *map);
void tp_fill_value(const tp_tensor *t, float value);

#endif
