/* tools/cpu_blas.h: the system BLAS's sgemm as `tilepipe bench --backend
 * cpu`'s comparator, opened at run time with dlopen, so that the tool
 * neither links nor needs a BLAS.
 *
 * The libraries tried, in order: $TILEPIPE_CPU_BLAS alone when it is set
 * (a file name or path; set it to a missing file to time tilepipe alone),
 * else libopenblas.so.0, libblis.so.4, libmkl_rt.so and libblas.so.3. Of
 * the first that opens, cblas_sgemm is taken, else Fortran's sgemm_.
 *
 * It computes D[M,N] = A[M,K] x B[N,K]^T in f32, all three dense and
 * row-major (tilepipe's layout of A, B and D): cblas_sgemm(RowMajor,
 * NoTrans, Trans), or column-major sgemm_ of D^T[N,M] = B . A^T ("T", "N",
 * B as its A with lda = K, A as its B with ldb = K). BLAS sizes are int:
 * every dimension must be at most INT_MAX, which tilepipe's own bound
 * (TP_GEMM_MAX_DIM) already keeps. The library picks its own thread
 * count (all the cores, as a user's program gets it). */
#ifndef TP_TOOLS_CPU_BLAS_H
#define TP_TOOLS_CPU_BLAS_H

#include <stddef.h>
#include <stdint.h>

#include "tilepipe/status.h"

typedef struct tp_cpu_blas tp_cpu_blas;

/* Opens the first library above that has an sgemm. TP_ERR_NOT_FOUND, with
 * every library tried and why it failed in err, when none does. */
tp_status tp_cpu_blas_open(tp_cpu_blas **blas, char *err, size_t errlen);

/* "libopenblas.so.0 (cblas_sgemm)": the library and the entry point. */
const char *tp_cpu_blas_name(const tp_cpu_blas *blas);

/* d = a x b^T, as above (m, n, k each 1..INT_MAX). */
void tp_cpu_blas_sgemm(const tp_cpu_blas *blas, int64_t m, int64_t n, int64_t k, const float *a,
                       const float *b, float *d);

void tp_cpu_blas_close(tp_cpu_blas *blas);

#endif
