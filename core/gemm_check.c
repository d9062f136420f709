/* core/gemm_check.c: generic validation of GEMM descriptors (see gemm_check.h). */
#include <stdint.h>
#include <string.h>

#include "core/error.h"
#include "core/gemm_check.h"

/* TMA takes global strides below 2^40 bytes; the CPU path is no looser. */
#define TP_MAX_STRIDE_BYTES ((int64_t)1 << 40)
/* TMA needs 16-byte aligned global addresses and row strides. */
#define TP_TMA_ALIGN 16

/* Bytes of `elems` elements of a dtype, for stride rules (fp4: half bytes);
 * elems below TP_MAX_STRIDE_BYTES' worth, which check_matrix checks first. */
static int64_t stride_bytes(tp_dtype dtype, int64_t elems) {
  return elems * (int64_t)tp_dtype_bits(dtype) / 8;
}

static tp_status check_matrix(const char *name, const tp_tensor *t, int64_t rows, int64_t cols,
                              tp_backend backend) {
  if (t->dtype <= TP_DTYPE_NONE || t->dtype >= TP_DTYPE_COUNT) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "%s: dtype %d is not a tilepipe dtype", name,
                        (int)t->dtype);
  }
  if (t->layout != TP_LAYOUT_STRIDED || t->rank != 2) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "%s must be a strided rank-2 matrix (got layout %d, rank %d)", name,
                        (int)t->layout, (int)t->rank);
  }
  if (t->shape[0] != rows || t->shape[1] != cols) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "%s has shape [%lld, %lld] but the GEMM needs [%lld, %lld]", name,
                        (long long)t->shape[0], (long long)t->shape[1], (long long)rows,
                        (long long)cols);
  }
  if (t->stride[1] != 1) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "%s: inner stride is %lld; rows must be contiguous (stride 1)", name,
                        (long long)t->stride[1]);
  }
  if (t->stride[0] < cols) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "%s: row stride %lld is shorter than a row (%lld elements)", name,
                        (long long)t->stride[0], (long long)cols);
  }
  /* Counted in elements: the bytes of a huge stride would overflow. */
  if (t->stride[0] >= TP_MAX_STRIDE_BYTES * 8 / (int64_t)tp_dtype_bits(t->dtype)) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "%s: row stride %lld is too large", name,
                        (long long)t->stride[0]);
  }
  if (tp_dtype_bits(t->dtype) < 8 && (t->stride[0] % 2 != 0 || cols % 2 != 0)) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "%s: packed %s rows must hold whole bytes (row length %lld and stride "
                        "%lld must be even)",
                        name, tp_dtype_name(t->dtype), (long long)cols, (long long)t->stride[0]);
  }
  if (backend == TP_BACKEND_CUDA && rows > 1 &&
      stride_bytes(t->dtype, t->stride[0]) % TP_TMA_ALIGN != 0) {
    return tp_error_set(TP_ERR_UNSUPPORTED,
                        "%s: row stride %lld elements = %lld bytes is not a multiple of 16 bytes "
                        "(TMA needs 16-byte aligned rows); pad the rows",
                        name, (long long)t->stride[0],
                        (long long)stride_bytes(t->dtype, t->stride[0]));
  }
  return TP_OK;
}

static tp_status check_optional(const char *name, const tp_tensor *t) {
  if (t->dtype == TP_DTYPE_NONE) return TP_OK;
  if (t->dtype < TP_DTYPE_NONE || t->dtype >= TP_DTYPE_COUNT) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "%s: dtype %d is not a tilepipe dtype", name,
                        (int)t->dtype);
  }
  if (t->layout != TP_LAYOUT_STRIDED && t->layout != TP_LAYOUT_SF_128X4) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "%s: layout %d is not a tilepipe layout", name,
                        (int)t->layout);
  }
  if (t->rank < 1 || t->rank > TP_MAX_RANK) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "%s: rank %d outside 1..%d", name, (int)t->rank,
                        TP_MAX_RANK);
  }
  for (int i = 0; i < t->rank; ++i) {
    if (t->shape[i] < 1 || t->shape[i] > TP_GEMM_MAX_DIM) {
      return tp_error_set(TP_ERR_INVALID_ARGUMENT, "%s: dimension %d has size %lld", name, i,
                          (long long)t->shape[i]);
    }
    if (t->layout == TP_LAYOUT_STRIDED && t->stride[i] < 0) {
      return tp_error_set(TP_ERR_INVALID_ARGUMENT, "%s: dimension %d has negative stride %lld",
                          name, i, (long long)t->stride[i]);
    }
  }
  return TP_OK;
}

/* The per-column bias: [N] or [1, N], contiguous along N. Which dtypes it
 * may have is the epilogue's rule; only byte-addressable ones have a
 * bias[n] that a hook can read on its own. */
static tp_status check_bias(const tp_tensor *t, int64_t n) {
  if (t->dtype == TP_DTYPE_NONE) return TP_OK;
  if (t->dtype < TP_DTYPE_NONE || t->dtype >= TP_DTYPE_COUNT) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "bias: dtype %d is not a tilepipe dtype",
                        (int)t->dtype);
  }
  if (tp_dtype_bits(t->dtype) < 8) {
    return tp_error_set(TP_ERR_UNSUPPORTED, "bias: packed %s elements are not addressable one "
                        "by one; use an 8-bit or wider dtype", tp_dtype_name(t->dtype));
  }
  const int vector = t->rank == 1, row = t->rank == 2 && t->shape[0] == 1;
  if (t->layout != TP_LAYOUT_STRIDED || !(vector || row)) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "bias must be a strided [N] vector or [1, N] matrix (got layout %d, rank "
                        "%d%s)",
                        (int)t->layout, (int)t->rank, t->rank == 2 ? ", more than one row" : "");
  }
  const int last = t->rank - 1;
  if (t->shape[last] != n) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "bias has %lld elements but D has N = %lld "
                        "columns", (long long)t->shape[last], (long long)n);
  }
  if (t->stride[last] != 1) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "bias: stride %lld along N; it must be contiguous (stride 1)",
                        (long long)t->stride[last]);
  }
  /* The row stride of [1, N] is never used, but the span must be measurable. */
  if (row && t->stride[0] < 0) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "bias: negative row stride %lld",
                        (long long)t->stride[0]);
  }
  return TP_OK;
}

typedef struct named_tensor {
  const char *name;
  const tp_tensor *t;
} named_tensor;

tp_status tp_gemm_check_desc(const tp_gemm_desc *desc, tp_backend backend) {
  tp_status st;
  if (desc->m < 1 || desc->n < 1 || desc->k < 1) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "M, N and K must be >= 1 (got %lld, %lld, %lld)",
                        (long long)desc->m, (long long)desc->n, (long long)desc->k);
  }
  if (desc->m > TP_GEMM_MAX_DIM || desc->n > TP_GEMM_MAX_DIM || desc->k > TP_GEMM_MAX_DIM) {
    return tp_error_set(TP_ERR_UNSUPPORTED, "M, N and K must be below 2^31 (got %lld, %lld, %lld)",
                        (long long)desc->m, (long long)desc->n, (long long)desc->k);
  }
  if ((st = check_matrix("A", &desc->a, desc->m, desc->k, backend)) != TP_OK) return st;
  if ((st = check_matrix("B", &desc->b, desc->n, desc->k, backend)) != TP_OK) return st;
  if ((st = check_matrix("D", &desc->d, desc->m, desc->n, backend)) != TP_OK) return st;
  if (desc->c.dtype != TP_DTYPE_NONE &&
      (st = check_matrix("C", &desc->c, desc->m, desc->n, backend)) != TP_OK) {
    return st;
  }
  if ((st = check_optional("a_scale", &desc->a_scale)) != TP_OK) return st;
  if ((st = check_optional("b_scale", &desc->b_scale)) != TP_OK) return st;
  if ((st = check_bias(&desc->bias, desc->n)) != TP_OK) return st;
  /* No buffer can back a tensor whose bytes an int64_t cannot count, and
   * offsets computed into one could overflow. (A tiled scale tensor's
   * span is bounded by its shape; the payload judges its dtype.) */
  const named_tensor tensors[] = {
      {"A", &desc->a}, {"B", &desc->b}, {"a_scale", &desc->a_scale},
      {"b_scale", &desc->b_scale}, {"C", &desc->c}, {"D", &desc->d}, {"bias", &desc->bias},
  };
  for (size_t i = 0; i < sizeof tensors / sizeof tensors[0]; ++i) {
    if (tensors[i].t->layout == TP_LAYOUT_STRIDED && tp_tensor_span_bytes(tensors[i].t) < 0) {
      return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                          "%s: its shape and strides span more than 2^63 bytes", tensors[i].name);
    }
  }
  return TP_OK;
}

/* Same problem: every field but the data pointer. */
static int tensor_same(const tp_tensor *x, const tp_tensor *y) {
  if (x->dtype != y->dtype) return 0;
  if (x->dtype == TP_DTYPE_NONE) return 1;
  if (x->layout != y->layout || x->rank != y->rank) return 0;
  for (int i = 0; i < x->rank; ++i) {
    if (x->shape[i] != y->shape[i]) return 0;
    if (x->layout == TP_LAYOUT_STRIDED && x->stride[i] != y->stride[i]) return 0;
  }
  return 1;
}

static tp_status check_pointer(const named_tensor *nt, tp_backend backend) {
  const tp_tensor *t = nt->t;
  if (t->dtype == TP_DTYPE_NONE) return TP_OK;
  if (t->data == NULL) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "%s: data pointer is NULL", nt->name);
  }
  uintptr_t align = backend == TP_BACKEND_CUDA ? TP_TMA_ALIGN
                                               : (tp_dtype_bits(t->dtype) >= 8 ? tp_dtype_bits(t->dtype) / 8 : 1);
  if ((uintptr_t)t->data % align != 0) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "%s: data pointer %p is not %u-byte aligned%s",
                        nt->name, t->data, (unsigned)align,
                        backend == TP_BACKEND_CUDA ? " (TMA needs 16-byte aligned addresses)" : "");
  }
  return TP_OK;
}

static int spans_overlap(const tp_tensor *x, const tp_tensor *y) {
  if (x->dtype == TP_DTYPE_NONE || y->dtype == TP_DTYPE_NONE) return 0;
  uintptr_t x0 = (uintptr_t)x->data, x1 = x0 + (uintptr_t)tp_tensor_span_bytes(x);
  uintptr_t y0 = (uintptr_t)y->data, y1 = y0 + (uintptr_t)tp_tensor_span_bytes(y);
  return x0 < y1 && y0 < x1;
}

tp_status tp_gemm_check_run(const tp_gemm_desc *planned, const tp_gemm_desc *desc,
                            tp_backend backend) {
  const named_tensor tensors[] = {
      {"A", &desc->a}, {"B", &desc->b}, {"a_scale", &desc->a_scale},
      {"b_scale", &desc->b_scale}, {"C", &desc->c}, {"bias", &desc->bias}, {"D", &desc->d},
  };
  const tp_tensor *planned_tensors[] = {&planned->a, &planned->b, &planned->a_scale,
                                        &planned->b_scale, &planned->c, &planned->bias,
                                        &planned->d};
  if (desc->m != planned->m || desc->n != planned->n || desc->k != planned->k ||
      memcmp(&desc->alpha, &planned->alpha, sizeof desc->alpha) != 0 ||
      memcmp(&desc->beta, &planned->beta, sizeof desc->beta) != 0) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "run: M, N, K, alpha or beta differ from the plan's; make a new plan");
  }
  for (size_t i = 0; i < sizeof tensors / sizeof tensors[0]; ++i) {
    if (!tensor_same(tensors[i].t, planned_tensors[i])) {
      return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                          "run: %s differs from the plan's (only data pointers may change)",
                          tensors[i].name);
    }
    tp_status st = check_pointer(&tensors[i], backend);
    if (st != TP_OK) return tp_error_wrap(st, "run");
  }
  /* D may be C itself (in-place accumulate), but no other overlap: the
   * kernel reads inputs while it writes D. */
  for (size_t i = 0; i + 1 < sizeof tensors / sizeof tensors[0]; ++i) {
    const tp_tensor *t = tensors[i].t;
    if (t == &desc->c && t->data == desc->d.data && t->dtype == desc->d.dtype &&
        t->stride[0] == desc->d.stride[0]) {
      continue;
    }
    if (spans_overlap(t, &desc->d)) {
      return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                          "run: D overlaps %s in memory (only C may be D itself, same dtype and "
                          "strides)",
                          tensors[i].name);
    }
  }
  return TP_OK;
}
