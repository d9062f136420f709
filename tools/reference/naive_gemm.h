/* tools/reference/naive_gemm.h: the naive f64 reference that checks every
 * backend, in the tests and in `tilepipe run --verify`.
 *
 * It shares no code with the plugins: it dequantizes every operand element
 * to f64 (tp_dtype_load, i.e. tp_dtype_decode, times its scale), then runs
 * the plain triple loop and the epilogue in f64. What the scales mean is
 * the payload's description (tp_problem, tilepipe/problem.h): element
 * (r, k) of A is scaled by a_scale at [r / rows][k / k] of its map
 * ([k / k][r / rows] when k_first; index 0 along K when k == 0, and a
 * rank-1 tensor has only the row index), B's by b_scale's likewise; an
 * operand whose map has rows == 0 is unscaled.
 *
 *   blockwise FP8    a_scale {1, 128, k_first}   b_scale {128, 128}
 *   MXFP8 / NVFP4    {1, 32} / {1, 16}, tiled (128x4) or strided
 *   per-row vectors  {1, 0}: a_scale [M], b_scale [N] (or [M, 1], and
 *                    [1, N] with k_first)
 *
 * Scale tensors are addressed by their own strides, or the tiled layout's
 * formula (tp_ref_index, written here independently of the plugins and the
 * core). A scale tensor without a map, a map without one, or a map whose
 * indices leave its tensor's shape is refused. */
#ifndef TP_TOOLS_REFERENCE_NAIVE_GEMM_H
#define TP_TOOLS_REFERENCE_NAIVE_GEMM_H

#include <stddef.h>
#include "tilepipe/gemm.h"
#include "tilepipe/problem.h"
#include "tilepipe/status.h"

typedef enum tp_ref_epilogue {
  TP_REF_STORE = 0,   /* D = alpha * acc */
  TP_REF_RESIDUAL = 1 /* D = alpha * acc + beta * C; C not read when beta == 0 */
} tp_ref_epilogue;

/* Where element (row, col) of a rank-2 tensor lies, counted in elements
 * from its data pointer (for the one-byte tiled scales, in bytes): by its
 * strides, or by the 128x4 tiled layout of tensor.h. */
int64_t tp_ref_index(const tp_tensor *t, int64_t row, int64_t col);

/* Fills ref[i * n + j] with the exact-as-f64 result for D(i, j), and, when
 * mag is not NULL, mag[i * n + j] = |alpha| * sum_k |A'(i,k) * B'(j,k)| +
 * |beta * C(i, j)| (A', B' dequantized): the magnitude that bounds the
 * rounding error of any summation order (compare.h). desc must hold host
 * pointers. Reads C before anything is written, so call it before a run
 * that updates C in place. Fails (TP_ERR_INVALID_ARGUMENT, reason in err)
 * on scale tensors that do not match their maps (above), and with
 * TP_ERR_OUT_OF_MEMORY. */
tp_status tp_ref_gemm(const tp_gemm_desc *desc, const tp_problem *problem,
                      tp_ref_epilogue epilogue, double *ref, double *mag, char *err,
                      size_t errlen);

/* The same at the elements of a grid, for problems too large for the whole
 * triple loop: ref[i * ncols + j] (and mag) for D(rows[i], cols[j]), the
 * very sums tp_ref_gemm forms there. It reads the rows `rows` of A and of
 * C, the rows `cols` of B, and the scales; the other rows of A, B and C
 * may hold anything, so a host copy of just those rows will do. NULL rows
 * (cols) stands for 0 .. nrows - 1 (ncols - 1). */
tp_status tp_ref_gemm_at(const tp_gemm_desc *desc, const tp_problem *problem,
                         tp_ref_epilogue epilogue, const int64_t *rows, int64_t nrows,
                         const int64_t *cols, int64_t ncols, double *ref, double *mag, char *err,
                         size_t errlen);

#endif
