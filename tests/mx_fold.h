/* tests/mx_fold.h: block_scaled's MXFP8 W8A8 fold (plugins/block_scaled/
 * device/fold.h, docs/payloads.md) done on the host, on the values, for
 * the tests that hold the GPU's result to the folded problem
 * (tests/test_gpu_block_scaled.c) and that check the reference's rounding
 * bound against what the fold does (tests/test_ref_rounding.c). Written
 * from the documented definition, independently of the kernel's bit
 * arithmetic and of the reference's grid. */
#ifndef TP_TESTS_MX_FOLD_H
#define TP_TESTS_MX_FOLD_H

#include <stdint.h>
#include "tilepipe/tensor.h"

/* Code (r, g) of ue8m0 scale tensor t (strided or 128x4 tiled). */
uint8_t *tp_test_code_at(const tp_tensor *t, int64_t r, int64_t g);

/* Folds operand x (rows x k, fp8) with scales sc in place: in each block
 * of 128 of K, the rows in runs of `run` (1: A's rows alone; 128: B's
 * blocks of N) take the largest code among them as their reference; an
 * element of a group d codes below it becomes its value x 2^-d rounded to
 * its dtype (to nearest, ties to even: below the smallest normal, to a
 * subnormal or 0); each group's code becomes the reference. */
void tp_test_mx_fold(const tp_tensor *x, const tp_tensor *sc, int64_t rows, int64_t k,
                     int64_t run);

#endif
