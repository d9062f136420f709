/* tests/plugins/fixture_problem.c: a payload that describes its problem
 * (the problem slot, tilepipe/problem.h) and plans nothing (fixture.h's
 * refusing plan).
 *
 * By default it describes the problem of per-row and per-column scales of
 * s8 operands, examples/int8_w8a8's (built out of tree, so the in-tree
 * tests of the reference and the fills describe it through this fixture):
 * A and B s8, a_scale an f32 vector [M], b_scale [N], each map {rows 1,
 * k 0} with values 2^[-12, -4), acc_bits 24. Its one key, `describe`,
 * makes the slot go wrong in one way each, for tp_problem_describe's
 * checks:
 *
 *   describe = rows      the problem above (the default)
 *   describe = refuse    fails: TP_ERR_UNSUPPORTED, "fixture_problem refuses"
 *   describe = short     a_scale one scale short of its map's M
 *   describe = unmapped  b_scale set, its map left zero
 *   describe = wide      exponents past f32's (2^[120, 136))
 *   describe = retype    A made bf16 whatever the caller asked
 *   describe = none      A left TP_DTYPE_NONE
 *   describe = unblocked a_rounding of rows 1 but k 0 (no block along K)
 *   describe = stray     b_rounding exact (rows 0) but its exp set */
#include <stdlib.h>
#include <string.h>
#include "fixture.h"

static const char *const modes[] = {"rows",   "refuse", "short",     "unmapped", "wide",
                                    "retype", "none",   "unblocked", "stray"};
enum { ROWS, REFUSE, SHORT, UNMAPPED, WIDE, RETYPE, NONE, UNBLOCKED, STRAY, NUM_MODES };

static tp_status problem_init(const tp_host_api *host, void **state, char *err, size_t errlen) {
  int *mode = calloc(1, sizeof *mode);
  if (!mode) {
    snprintf(err, errlen, "out of memory");
    return TP_ERR_OUT_OF_MEMORY;
  }
  *state = mode;
  return TP_OK;
}

static void problem_fini(void *state) { free(state); }

static tp_status problem_set_option(void *state, const char *key, const char *value, char *err,
                                    size_t errlen) {
  if (strcmp(key, "describe") != 0) {
    snprintf(err, errlen, "fixture_problem knows only 'describe'");
    return TP_ERR_NOT_FOUND;
  }
  for (int i = 0; i < NUM_MODES; i++)
    if (strcmp(value, modes[i]) == 0) {
      *(int *)state = i;
      return TP_OK;
    }
  snprintf(err, errlen, "describe = '%s' is none of rows, refuse, short, unmapped, wide, retype, "
           "none, unblocked, stray", value);
  return TP_ERR_INVALID_ARGUMENT;
}

static tp_tensor f32_vector(int64_t n) {
  return (tp_tensor){.dtype = TP_DTYPE_F32, .layout = TP_LAYOUT_STRIDED, .rank = 1,
                     .shape = {n}, .stride = {1}};
}

static tp_status problem_slot(void *state, tp_gemm_desc *desc, const tp_problem_options *opt,
                              tp_problem *out, char *err, size_t errlen) {
  const int mode = *(const int *)state;
  if (mode == REFUSE) {
    snprintf(err, errlen, "fixture_problem refuses to describe anything");
    return TP_ERR_UNSUPPORTED;
  }
  if (desc->a.dtype == TP_DTYPE_NONE) desc->a.dtype = TP_DTYPE_S8;
  if (desc->b.dtype == TP_DTYPE_NONE) desc->b.dtype = TP_DTYPE_S8;
  if (mode == RETYPE) desc->a.dtype = TP_DTYPE_BF16;
  if (mode == NONE) desc->a.dtype = TP_DTYPE_NONE;
  desc->a_scale = f32_vector(mode == SHORT ? desc->m - 1 : desc->m);
  desc->b_scale = f32_vector(desc->n);
  out->a_scale = (tp_scale_map){.rows = 1, .k = 0, .exp_min = mode == WIDE ? 120 : -12,
                                .exp_count = mode == WIDE ? 16 : 8};
  out->b_scale = mode == UNMAPPED ? (tp_scale_map){0} : out->a_scale;
  out->acc_bits = TP_PROBLEM_ACC_BITS_F32;
  if (mode == UNBLOCKED) out->a_rounding = (tp_operand_rounding){.rows = 1, .k = 0, .exp = -10};
  if (mode == STRAY) out->b_rounding = (tp_operand_rounding){.exp = -3};
  return TP_OK;
}

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  static tp_payload_ops ops;
  static tp_plugin_desc desc;
  desc = fixture_desc("fixture_problem", TP_PLUGIN_PAYLOAD);
  ops = *desc.payload;
  ops.problem = problem_slot;
  desc.payload = &ops;
  desc.init = problem_init;
  desc.fini = problem_fini;
  desc.set_option = problem_set_option;
  return &desc;
}
