/* core/problem.c: a payload's description of a problem (see
 * tilepipe/problem.h).
 *
 * The payload's problem slot works on a copy of the caller's descriptor
 * and a zeroed tp_problem; only what it may set (A's and B's dtypes, the
 * scale tensors, the maps, acc_bits, acc_k, the roundings) goes back to
 * the caller, and only
 * once it holds together: every scale tensor has its map and every map
 * its tensor, each index a map can form lies inside its tensor's shape,
 * the exponent range is one f32 can hold, a rounding's block and exponent
 * make sense. So a caller (the tool, a test)
 * may index the scale tensors by the maps without checking them again. */
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#include "core/error.h"
#include "core/registry/registry_internal.h"
#include "core/versioned.h"
#include "tilepipe/problem.h"

/* A payload's reason, as long as the core keeps it. */
#define SLOT_ERR_MAX 512

/* f32's normal exponents: the drawn scale values stay exact in f32. */
enum { EXP_LOWEST = -126, EXP_HIGHEST = 127 };

/* The most acc_bits can be: f64's significand. */
enum { F64_BITS = 53 };

/* A rounding's exponents: at most the scale itself, at least f32's
 * smallest subnormal. */
enum { ROUNDING_EXP_LOWEST = -149, ROUNDING_EXP_HIGHEST = 0 };

/* tp_problem's first version ended at acc_bits (acc_k came with 2.3, the roundings
 * with 2.4). */
#define FIRST_VERSION (offsetof(tp_problem, acc_bits) + sizeof(int32_t))

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int narrow_float(tp_dtype t) { return tp_dtype_bits(t) <= 8 && t != TP_DTYPE_S8; }

/* The problem of a payload without the slot: no scales. */
static void plain_problem(tp_gemm_desc *d, tp_problem *p) {
  if (d->a.dtype == TP_DTYPE_NONE)
    d->a.dtype = d->b.dtype != TP_DTYPE_NONE ? d->b.dtype : TP_DTYPE_BF16;
  if (d->b.dtype == TP_DTYPE_NONE) d->b.dtype = d->a.dtype;
  if (narrow_float(d->a.dtype) || narrow_float(d->b.dtype))
    p->acc_bits = TP_PROBLEM_ACC_BITS_WGMMA_FP8;
  else if (d->a.dtype == TP_DTYPE_S8 || d->b.dtype == TP_DTYPE_S8)
    p->acc_bits = TP_PROBLEM_ACC_BITS_F32; /* integer products, exact */
  else
    p->acc_bits = TP_PROBLEM_ACC_BITS_WGMMA_16;
}

/* The map of scale tensor `name` against its tensor, for an operand of
 * `rows` rows (M or N); TP_ERR_PLUGIN naming the rule it breaks. */
static tp_status check_map(const char *name, const tp_tensor *t, const tp_scale_map *m,
                           int64_t rows, int64_t k) {
  static const tp_scale_map none;
  if (t->dtype == TP_DTYPE_NONE) {
    if (memcmp(m, &none, sizeof none) != 0)
      return tp_error_set(TP_ERR_PLUGIN, "%s is absent but its map is set (rows %d); an absent "
                          "scale tensor has a zeroed map", name, m->rows);
    return TP_OK;
  }
  if ((int)t->dtype < 0 || t->dtype >= TP_DTYPE_COUNT)
    return tp_error_set(TP_ERR_PLUGIN, "%s has dtype %d, which is none", name, (int)t->dtype);
  if (m->rows < 1 || m->k < 0 || (m->k_first != 0 && m->k_first != 1))
    return tp_error_set(TP_ERR_PLUGIN, "%s's map has rows %d, k %d, k_first %d: it needs rows "
                        ">= 1, k >= 0 and k_first 0 or 1", name, m->rows, m->k, m->k_first);
  if (m->exp_count < 1 || m->exp_min < EXP_LOWEST ||
      (int64_t)m->exp_min + m->exp_count - 1 > EXP_HIGHEST)
    return tp_error_set(TP_ERR_PLUGIN, "%s's values 2^[%d, %d + %d) are out of bounds: at least "
                        "one exponent, all within [%d, %d]", name, m->exp_min, m->exp_min,
                        m->exp_count, EXP_LOWEST, EXP_HIGHEST);
  if (t->layout != TP_LAYOUT_STRIDED && t->layout != TP_LAYOUT_SF_128X4)
    return tp_error_set(TP_ERR_PLUGIN, "%s has layout %d, which is none", name, (int)t->layout);
  const int64_t need_rows = ceil_div(rows, m->rows), need_k = m->k ? ceil_div(k, m->k) : 1;
  if (t->rank == 1) {
    if (m->k != 0 || t->layout != TP_LAYOUT_STRIDED)
      return tp_error_set(TP_ERR_PLUGIN, "%s is a vector, so it needs a strided layout and a map "
                          "with k 0 (one scale for the whole of K), not k %d", name, m->k);
    if (t->shape[0] < need_rows)
      return tp_error_set(TP_ERR_PLUGIN, "%s is a vector of %lld scales; its map (a scale per %d "
                          "rows of %lld) needs %lld", name, (long long)t->shape[0], m->rows,
                          (long long)rows, (long long)need_rows);
    return TP_OK;
  }
  if (t->rank != 2)
    return tp_error_set(TP_ERR_PLUGIN, "%s has rank %d; scale tensors have rank 1 or 2", name,
                        (int)t->rank);
  const int64_t have_rows = t->shape[m->k_first ? 1 : 0], have_k = t->shape[m->k_first ? 0 : 1];
  if (have_rows < need_rows || have_k < need_k)
    return tp_error_set(TP_ERR_PLUGIN, "%s has shape [%lld, %lld]; its map (a scale per %d rows "
                        "of %lld and per %d of K = %lld, %s first) needs at least %lld rows' and "
                        "%lld K-blocks' scales", name, (long long)t->shape[0],
                        (long long)t->shape[1], m->rows, (long long)rows, m->k, (long long)k,
                        m->k_first ? "K" : "rows", (long long)need_rows, (long long)need_k);
  return TP_OK;
}

/* Operand `name`'s rounding: zeroed, or a block of at least one element
 * and an exponent in range; TP_ERR_PLUGIN naming the rule it breaks. */
static tp_status check_rounding(const char *name, const tp_operand_rounding *r) {
  static const tp_operand_rounding none;
  if (r->rows == 0) {
    if (memcmp(r, &none, sizeof none) != 0)
      return tp_error_set(TP_ERR_PLUGIN, "%s has rows 0 (exact) but k %d, exp %d: an exact "
                          "operand's rounding is zeroed", name, r->k, r->exp);
    return TP_OK;
  }
  if (r->rows < 1 || r->k < 1 || r->exp < ROUNDING_EXP_LOWEST || r->exp > ROUNDING_EXP_HIGHEST)
    return tp_error_set(TP_ERR_PLUGIN, "%s has rows %d, k %d, exp %d: it needs rows >= 1, "
                        "k >= 1 and exp within [%d, %d]", name, r->rows, r->k, r->exp,
                        ROUNDING_EXP_LOWEST, ROUNDING_EXP_HIGHEST);
  return TP_OK;
}

/* What the slot wrote, checked against the caller's request `asked`. */
static tp_status check_described(const tp_gemm_desc *asked, const tp_gemm_desc *d,
                                 const tp_problem *p) {
  const tp_dtype given[2] = {asked->a.dtype, asked->b.dtype}, got[2] = {d->a.dtype, d->b.dtype};
  for (int i = 0; i < 2; i++) {
    const char name = i == 0 ? 'A' : 'B';
    if (got[i] == TP_DTYPE_NONE || (int)got[i] < 0 || got[i] >= TP_DTYPE_COUNT)
      return tp_error_set(TP_ERR_PLUGIN, "%c's dtype is left %s: the slot must set it",
                          name, tp_dtype_name(got[i]));
    if (given[i] != TP_DTYPE_NONE && got[i] != given[i])
      return tp_error_set(TP_ERR_PLUGIN, "%c was asked as %s but the slot made it %s (refuse a "
                          "dtype instead)", name, tp_dtype_name(given[i]), tp_dtype_name(got[i]));
  }
  tp_status st = check_map("a_scale", &d->a_scale, &p->a_scale, d->m, d->k);
  if (st == TP_OK) st = check_map("b_scale", &d->b_scale, &p->b_scale, d->n, d->k);
  if (st == TP_OK && (p->acc_bits < 1 || p->acc_bits > F64_BITS))
    st = tp_error_set(TP_ERR_PLUGIN, "acc_bits %d is outside 1..%d", p->acc_bits, F64_BITS);
  if (st == TP_OK && p->acc_k < 0)
    st = tp_error_set(TP_ERR_PLUGIN, "acc_k %d is negative (0: the whole of K)", p->acc_k);
  if (st == TP_OK) st = check_rounding("a_rounding", &p->a_rounding);
  if (st == TP_OK) st = check_rounding("b_rounding", &p->b_rounding);
  return st;
}

static tp_status check_args(const tp_registry *reg, const char *payload,
                            const tp_problem_options *opt, const tp_gemm_desc *desc,
                            const tp_problem *problem) {
  if (reg == NULL || payload == NULL || desc == NULL || problem == NULL)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "describe: the registry, the payload's name, desc or problem is NULL");
  tp_status st = tp_versioned_check(problem, FIRST_VERSION, "tp_problem");
  if (st == TP_OK && opt != NULL)
    st = tp_versioned_check(opt, sizeof *opt, "tp_problem_options");
  if (st != TP_OK) return st;
  if (desc->m < 1 || desc->n < 1 || desc->k < 1)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "sizes must be >= 1 (M = %lld, N = %lld, K = "
                        "%lld)", (long long)desc->m, (long long)desc->n, (long long)desc->k);
  const tp_dtype ab[2] = {desc->a.dtype, desc->b.dtype};
  for (int i = 0; i < 2; i++)
    if ((int)ab[i] < 0 || ab[i] >= TP_DTYPE_COUNT)
      return tp_error_set(TP_ERR_INVALID_ARGUMENT, "%c's dtype %d is none", i ? 'B' : 'A',
                          (int)ab[i]);
  if (opt != NULL && opt->scale_layout != TP_LAYOUT_STRIDED &&
      opt->scale_layout != TP_LAYOUT_SF_128X4)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "options: scale_layout %d is none (strided or "
                        "128x4 tiled)", (int)opt->scale_layout);
  if (opt != NULL && ((int)opt->b_scale_dtype < 0 || opt->b_scale_dtype >= TP_DTYPE_COUNT))
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "options: b_scale_dtype %d is no dtype",
                        (int)opt->b_scale_dtype);
  if (opt != NULL && opt->pad < 0)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "options: pad %lld is negative",
                        (long long)opt->pad);
  return TP_OK;
}

/* The description into work and *out, the caller's untouched. */
static tp_status describe(const tp_registry *reg, const char *payload,
                          const tp_problem_options *opt, const tp_gemm_desc *asked,
                          tp_gemm_desc *work, tp_problem *out) {
  const tp_plugin_desc *plugin;
  void *state;
  tp_status st = tp_registry_resolve(reg, payload, TP_PLUGIN_PAYLOAD, &plugin, &state);
  if (st != TP_OK) return st;
  *work = *asked;
  memset(&work->a_scale, 0, sizeof work->a_scale);
  memset(&work->b_scale, 0, sizeof work->b_scale);
  memset(out, 0, sizeof *out);
  out->struct_size = sizeof *out;
  tp_problem_options o = {.struct_size = sizeof o, .scale_layout = TP_LAYOUT_STRIDED, .pad = 0};
  if (opt != NULL) {
    o.scale_layout = opt->scale_layout;
    o.pad = opt->pad;
    o.b_scale_dtype = opt->b_scale_dtype;
  }
  if (plugin->payload->problem == NULL) {
    plain_problem(work, out);
  } else {
    char err[SLOT_ERR_MAX] = "";
    st = plugin->payload->problem(state, work, &o, out, err, sizeof err);
    err[sizeof err - 1] = '\0';
    if (st != TP_OK) return tp_error_slot(st, NULL, payload, "problem", err);
  }
  if (o.b_scale_dtype != TP_DTYPE_NONE && work->b_scale.dtype != o.b_scale_dtype)
    return tp_error_set(TP_ERR_UNSUPPORTED,
                        "its b_scale is %s, not the %s asked (options.b_scale_dtype)",
                        tp_dtype_name(work->b_scale.dtype), tp_dtype_name(o.b_scale_dtype));
  if (plugin->payload->problem == NULL) return TP_OK;
  work->a_scale.data = NULL;
  work->b_scale.data = NULL;
  return check_described(asked, work, out);
}

tp_status tp_problem_describe(const tp_registry *reg, const char *payload,
                              const tp_problem_options *opt, tp_gemm_desc *desc,
                              tp_problem *problem) {
  tp_status st = check_args(reg, payload, opt, desc, problem);
  if (st != TP_OK) return tp_error_wrap(st, "describe %s's problem", payload ? payload : "(null)");
  tp_gemm_desc work;
  tp_problem out;
  st = describe(reg, payload, opt, desc, &work, &out);
  if (st != TP_OK)
    return tp_error_wrap(st, "payload '%s', problem %lldx%lldx%lld (A %s, B %s, D %s)", payload,
                         (long long)desc->m, (long long)desc->n, (long long)desc->k,
                         tp_dtype_name(desc->a.dtype), tp_dtype_name(desc->b.dtype),
                         tp_dtype_name(desc->d.dtype));
  desc->a.dtype = work.a.dtype;
  desc->b.dtype = work.b.dtype;
  desc->a_scale = work.a_scale;
  desc->b_scale = work.b_scale;
  /* The caller's struct may be newer (larger) than the core's: the core's
   * fields, the rest zero; or older, down to the first version
   * (tp_versioned_check refused one before it): the fields it has. */
  tp_versioned_clear(problem, FIRST_VERSION, "tp_problem");
  const size_t size = problem->struct_size < sizeof out ? problem->struct_size : sizeof out;
  memcpy((unsigned char *)problem + sizeof out.struct_size,
         (const unsigned char *)&out + sizeof out.struct_size, size - sizeof out.struct_size);
  return TP_OK;
}
