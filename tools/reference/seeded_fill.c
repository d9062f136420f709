/* tools/reference/seeded_fill.c: see seeded_fill.h. */
#include "tools/reference/naive_gemm.h"
#include "tools/reference/seeded_fill.h"

void tp_seeded_fill_host(const tp_tensor *t, tp_seeded_values values, uint64_t key) {
  const int64_t rows = t->rank == 1 ? 1 : t->shape[0];
  const int64_t cols = t->rank == 1 ? t->shape[0] : t->shape[1];
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++) {
      const int64_t at = t->rank == 1 ? c * t->stride[0] : tp_ref_index(t, r, c);
      const uint64_t bits = tp_seeded_bits(key, (uint64_t)(r * cols + c));
      tp_dtype_store(t->dtype, t->data, at, tp_seeded_value(values, t->dtype, bits));
    }
}

int tp_seeded_role(const tp_problem *problem, int c_nan, int which, tp_seeded_values *values) {
  const tp_scale_map *map = which == TP_REF_A_SCALE ? &problem->a_scale : &problem->b_scale;
  *values = (tp_seeded_values){0, 0};
  switch (which) {
  case TP_REF_A_SCALE:
  case TP_REF_B_SCALE: *values = (tp_seeded_values){map->exp_min, map->exp_count}; return 1;
  case TP_REF_C: return !c_nan;
  case TP_REF_D: return 0;
  default: return 1;
  }
}

void tp_seeded_fill_problem(tp_ref_problem *p, const tp_ref_problem_spec *spec, uint64_t seed) {
  tp_seeded_values values;
  for (int i = 0; i < TP_REF_TENSORS; i++) {
    const tp_tensor *t = tp_ref_desc_tensor(&p->desc, i);
    if (t->dtype != TP_DTYPE_NONE && tp_seeded_role(&p->problem, spec->c_nan, i, &values))
      tp_seeded_fill_host(t, values, tp_seeded_key(seed, (uint64_t)i));
  }
}
