/* tests/mx_fold.c: see mx_fold.h. */
#include <math.h>

#include "tests/mx_fold.h"
#include "tilepipe/dtype.h"
#include "tilepipe/reference.h"

uint8_t *tp_test_code_at(const tp_tensor *t, int64_t r, int64_t g) {
  return (uint8_t *)t->data + tp_ref_index(t, r, g);
}

void tp_test_mx_fold(const tp_tensor *x, const tp_tensor *sc, int64_t rows, int64_t k,
                     int64_t run) {
  const int64_t groups = k / 32;
  for (int64_t g0 = 0; g0 < groups; g0 += 4) {
    const int64_t g1 = g0 + 4 < groups ? g0 + 4 : groups;
    for (int64_t r0 = 0; r0 < rows; r0 += run) {
      const int64_t r1 = r0 + run < rows ? r0 + run : rows;
      int ref = 0;
      for (int64_t r = r0; r < r1; r++)
        for (int64_t g = g0; g < g1; g++)
          if (*tp_test_code_at(sc, r, g) > ref) ref = *tp_test_code_at(sc, r, g);
      for (int64_t r = r0; r < r1; r++)
        for (int64_t g = g0; g < g1; g++) {
          const int d = ref - *tp_test_code_at(sc, r, g);
          for (int64_t c = 32 * g; d > 0 && c < 32 * g + 32; c++) {
            const int64_t i = tp_ref_index(x, r, c);
            const double v = ldexp((double)tp_dtype_load(x->dtype, x->data, i), -d);
            tp_dtype_store(x->dtype, x->data, i, (float)v);
          }
          *tp_test_code_at(sc, r, g) = (uint8_t)ref;
        }
    }
  }
}
