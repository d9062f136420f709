/* tools/reference/internal.h: what the files of libtilepipe_reference share
 * and do not export (the public API is tilepipe/reference.h).
 *
 * A problem owns one host buffer per present tensor (C lives in D's when C
 * is D), the descriptor that points into them, the payload's description,
 * its device copy once uploaded, and its expected values once computed
 * (with C's values beside them when C is D). */
#ifndef TP_TOOLS_REFERENCE_INTERNAL_H
#define TP_TOOLS_REFERENCE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "tilepipe/reference.h"

struct tp_ref_problem {
  tp_gemm_desc desc;            /* host pointers */
  tp_problem problem;           /* what the scale tensors mean (the payload's word) */
  void *buffer[TP_REF_TENSORS]; /* owned; NULL for absent tensors (and C when C is D) */
  int64_t bytes[TP_REF_TENSORS];
  void *device[TP_REF_TENSORS]; /* device copies of the buffers, once uploaded */
  tp_gemm_desc device_desc;     /* desc with device pointers; valid when uploaded */
  int uploaded;
  double *ref, *mag;            /* expected values, m x n, once computed */
  double *rounding, *spread;    /* tp_ref_rounding_at's, where the problem rounds operands */
  void *c_copy;                 /* when C is D: D's span (C's values) as the expected
                                   values were computed, for tp_ref_problem_unwritten */
};

/* err <- the formatted reason (nothing when errlen is 0). */
void tp_ref_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Whether a versioned struct's struct_size reaches this version's size
 * (`what`: its type's name, for the reason in err). */
int tp_ref_versioned(uint32_t struct_size, size_t size, const char *what, char *err,
                     size_t errlen);

/* Every element of t (as tp_ref_tensor_fill visits them) set to value. */
void tp_ref_tensor_set(const tp_tensor *t, float value);

/* How the scale of operand element (row, k) is found: a tensor and its
 * map (t NULL: unscaled). */
typedef struct tp_ref_scale_rule {
  const tp_tensor *t;
  tp_scale_map map;
} tp_ref_scale_rule;

/* The rule of scale tensor t (`name`) under map for an operand of `rows`
 * rows and K = k: 0 (reason in err) when the two do not go together. */
int tp_ref_scale_rule_of(const tp_tensor *t, const tp_scale_map *map, const char *name,
                         int64_t rows, int64_t k, tp_ref_scale_rule *s, char *err,
                         size_t errlen);

/* The scale of operand element (row, k) under s (1 when unscaled). */
double tp_ref_scale_at(const tp_ref_scale_rule *s, int64_t row, int64_t k);

/* out[i * k + j] (or out32's, when out is NULL) = op(row i, j) * its
 * scale for the rows x k operand t, row i being rows[i] (i itself when
 * rows is NULL). */
void tp_ref_dequantize(const tp_tensor *t, const int64_t *rows, int64_t count, int64_t k,
                       const tp_ref_scale_rule *s, double *out, float *out32);

/* D's offset of the first byte outside its elements that is not 0xFF; -1
 * when all are. */
int64_t tp_ref_padding_written(const tp_ref_problem *p);

#endif
