/* tools/roofline.h: the floor under a GEMM's time on one machine.
 *
 * Two ceilings bound every kernel: the rate device memory moves bytes at and
 * the rate the tensor cores multiply at (tools/ceilings.h measures both on
 * the device). A GEMM does 2 M N K flops and moves at least its fewest bytes:
 * each input read once, each output written once. Each over its ceiling is a
 * time; the larger is the floor, and no kernel runs much under it. A
 * kernel's time over its floor is what is left to gain, and which of the two
 * times is larger says whether bytes or arithmetic bound the problem (a
 * residual C adds as many bytes as D: at 4096 x 32768 x 512 that brings the
 * bytes' time up to about the arithmetic's, where the plain store's is well
 * under it).
 *
 * Pure arithmetic on the descriptor: tested on any machine
 * (tests/test_roofline.c). */
#ifndef TP_TOOLS_ROOFLINE_H
#define TP_TOOLS_ROOFLINE_H

#include "tilepipe/gemm.h"

typedef struct tp_ceilings {
  double bytes_per_s; /* device memory: bytes read plus bytes written, per second */
  double flops_per_s; /* matrix products of the problem's dtypes */
} tp_ceilings;

typedef struct tp_roofline {
  double flops;      /* 2 M N K */
  double bytes;      /* the fewest: A, B, their scales, the bias and C (when beta
                        is not 0) read once, D written once; logical elements,
                        not row padding */
  double memory_ms;  /* bytes over the memory ceiling; NaN without one */
  double compute_ms; /* flops over the arithmetic ceiling; NaN without one */
  double floor_ms;   /* the larger of the two; NaN unless both are known */
} tp_roofline;

/* The roofline of desc's problem under `ceilings` (NULL, or a ceiling that is
 * not a positive number: the times that need it are NaN). */
tp_roofline tp_roofline_of(const tp_gemm_desc *desc, const tp_ceilings *ceilings);

/* Whether bytes bound the problem: its memory time is the larger. */
int tp_roofline_memory_bound(const tp_roofline *r);

#endif
