/* tools/reference/seeded_fill.c: see seeded_fill.h. */
#include <string.h>

#include "tools/reference/naive_gemm.h"
#include "tools/reference/seeded_fill.h"

void tp_seeded_fill_host(const tp_tensor *t, tp_seeded_kind kind, uint64_t key) {
  const int64_t rows = t->rank == 1 ? 1 : t->shape[0];
  const int64_t cols = t->rank == 1 ? t->shape[0] : t->shape[1];
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++) {
      const int64_t at = t->rank == 1 ? c * t->stride[0] : tp_ref_index(t, r, c);
      const uint64_t bits = tp_seeded_bits(key, (uint64_t)(r * cols + c));
      tp_dtype_store(t->dtype, t->data, at, tp_seeded_value(kind, t->dtype, bits));
    }
}

int tp_seeded_role(const tp_ref_problem_spec *spec, int which, tp_seeded_kind *kind) {
  switch (which) {
  case TP_REF_A_SCALE:
  case TP_REF_B_SCALE:
    if (strcmp(spec->payload, "int8_w8a8") == 0)
      *kind = TP_SEEDED_ROW_SCALE;
    else if (strcmp(spec->payload, "blockwise_fp8") == 0 && spec->d != TP_DTYPE_F16)
      *kind = TP_SEEDED_WIDE_SCALE;
    else
      *kind = TP_SEEDED_SCALE;
    return 1;
  case TP_REF_C: *kind = TP_SEEDED_OPERAND; return !spec->c_nan;
  case TP_REF_D: return 0;
  default: *kind = TP_SEEDED_OPERAND; return 1;
  }
}

void tp_seeded_fill_problem(tp_ref_problem *p, const tp_ref_problem_spec *spec, uint64_t seed) {
  tp_seeded_kind kind;
  for (int i = 0; i < TP_REF_TENSORS; i++) {
    const tp_tensor *t = tp_ref_desc_tensor(&p->desc, i);
    if (t->dtype != TP_DTYPE_NONE && tp_seeded_role(spec, i, &kind))
      tp_seeded_fill_host(t, kind, tp_seeded_key(seed, (uint64_t)i));
  }
}
