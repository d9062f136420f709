/* tools/reference/random_fill.c: see random_fill.h. */
#include <math.h>

#include "tools/reference/naive_gemm.h"
#include "tools/reference/random_fill.h"
#include "tools/seeded_values.h"

void tp_rng_seed(tp_rng *rng, uint64_t seed) { rng->state = seed; }

/* splitmix64 (Steele, Lea, Flood 2014). */
uint64_t tp_rng_u64(tp_rng *rng) {
  uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double tp_rng_uniform(tp_rng *rng) { return (double)(tp_rng_u64(rng) >> 11) * 0x1.0p-53; }

/* Box-Muller; 1 - u keeps the logarithm's argument in (0, 1]. */
double tp_rng_normal(tp_rng *rng) {
  double u = 1.0 - tp_rng_uniform(rng), v = tp_rng_uniform(rng);
  return sqrt(-2.0 * log(u)) * cos(2.0 * 3.14159265358979323846 * v);
}

/* Where element (r, c) of t lies; a vector [n] is the matrix [1, n]. */
static int64_t index_of(const tp_tensor *t, int64_t r, int64_t c) {
  return t->rank == 1 ? c * t->stride[0] : tp_ref_index(t, r, c);
}

/* One value per element from draw(rng, dtype, map). */
static void fill(tp_rng *rng, const tp_tensor *t, const tp_scale_map *map,
                 float (*draw)(tp_rng *, tp_dtype, const tp_scale_map *)) {
  const int64_t rows = t->rank == 1 ? 1 : t->shape[0];
  const int64_t cols = t->rank == 1 ? t->shape[0] : t->shape[1];
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++)
      tp_dtype_store(t->dtype, t->data, index_of(t, r, c), draw(rng, t->dtype, map));
}

static float draw_normal(tp_rng *rng, tp_dtype dtype, const tp_scale_map *map) {
  (void)map;
  if (dtype == TP_DTYPE_S8)
    return (float)((int)(tp_rng_u64(rng) % 256) - 128);
  return (float)tp_rng_normal(rng);
}

static float draw_scale(tp_rng *rng, tp_dtype dtype, const tp_scale_map *map) {
  return tp_seeded_pow2_mantissa(tp_rng_u64(rng), map->exp_min, (uint32_t)map->exp_count,
                                 tp_seeded_mantissa_bits(dtype));
}

void tp_fill_normal(tp_rng *rng, const tp_tensor *t) { fill(rng, t, NULL, draw_normal); }

void tp_fill_scales(tp_rng *rng, const tp_tensor *t, const tp_scale_map *map) {
  if (t->dtype != TP_DTYPE_NONE)
    fill(rng, t, map, draw_scale);
}

void tp_fill_value(const tp_tensor *t, float value) {
  const int64_t rows = t->rank == 1 ? 1 : t->shape[0];
  const int64_t cols = t->rank == 1 ? t->shape[0] : t->shape[1];
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++)
      tp_dtype_store(t->dtype, t->data, index_of(t, r, c), value);
}
