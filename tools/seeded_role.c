/* tools/seeded_role.c: see seeded_role.h. */
#include "tools/seeded_role.h"

int tp_seeded_role(const tp_problem *problem, int c_nan, tp_ref_tensor which,
                   tp_seeded_values *values) {
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
