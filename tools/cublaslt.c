/* tools/cublaslt.c: see cublaslt.h.
 *
 * The function table is typed from the toolkit's own cublasLt.h
 * (__typeof__ of each prototype), so a pointer cannot disagree with the
 * function it is called as. Built without the toolkit, opening fails with
 * TP_ERR_UNSUPPORTED and nothing else is reachable; built against headers
 * older than cuBLAS 12.9, which lack the block-scaling modes, blockwise
 * problems are refused with that reason. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "tools/cublaslt.h"
#include "tools/cublaslt_problem.h"

#if TP_HAVE_CUDA
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include <cublasLt.h>

#define TP_STR_(x) #x
#define TP_STR(x) TP_STR_(x)
/* The soname of the cuBLASLt this tool was built against. */
#define TP_CUBLASLT_SONAME "libcublasLt.so." TP_STR(CUBLAS_VER_MAJOR)
/* Whether the headers know the block-scaling modes (cuBLAS 12.9 on). */
#define TP_CUBLASLT_HEADERS_BLOCKWISE \
  (CUBLAS_VER_MAJOR > 12 || (CUBLAS_VER_MAJOR == 12 && CUBLAS_VER_MINOR >= 9))

#define TP_CUBLASLT_FUNCTIONS(X)                                                            \
  X(Create) X(Destroy) X(GetVersion) X(GetStatusName) X(GetStatusString) X(MatmulDescCreate) \
  X(MatmulDescDestroy) X(MatmulDescSetAttribute) X(MatrixLayoutCreate)                      \
  X(MatrixLayoutDestroy) X(MatmulPreferenceCreate) X(MatmulPreferenceDestroy)               \
  X(MatmulPreferenceSetAttribute) X(MatmulAlgoGetHeuristic) X(Matmul)

struct tp_cublaslt {
  void *lib;
  cublasLtHandle_t handle;
#define TP_CUBLASLT_FIELD(name) __typeof__(&cublasLt##name) name;
  TP_CUBLASLT_FUNCTIONS(TP_CUBLASLT_FIELD)
#undef TP_CUBLASLT_FIELD
};

enum { LAYOUT_A, LAYOUT_B, LAYOUT_C, LAYOUT_D, NUM_LAYOUTS };

struct tp_cublaslt_gemm {
  const tp_cublaslt *lt;
  cublasLtMatmulDesc_t op;
  cublasLtMatrixLayout_t layout[NUM_LAYOUTS]; /* cuBLAS's A (our B), B (our A), C, D */
  cublasLtMatmulAlgo_t algo;
  int has_c;
  int blockwise; /* scale pointers set per run */
  float alpha, beta;
  void *workspace;
  size_t workspace_bytes;
};

static tp_status failed(const tp_cublaslt *lt, cublasStatus_t s, const char *what, char *err,
                        size_t errlen) {
  snprintf(err, errlen, "cuBLASLt: %s: %s (%s)", what, lt->GetStatusName(s),
           lt->GetStatusString(s));
  return TP_ERR_CUDA;
}

/* dlopen by soname (the loader's search path), then the toolkit's lib64. */
static void *open_library(char *err, size_t errlen) {
  void *lib = dlopen(TP_CUBLASLT_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (lib) return lib;
  char first[256];
  snprintf(first, sizeof first, "%s", dlerror());
  lib = dlopen(TP_CUDA_HOME "/lib64/" TP_CUBLASLT_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL)
    snprintf(err, errlen, "cannot open %s (%s), nor " TP_CUDA_HOME "/lib64/" TP_CUBLASLT_SONAME
                          " (%s); add the CUDA toolkit's lib64 to LD_LIBRARY_PATH",
             TP_CUBLASLT_SONAME, first, dlerror());
  return lib;
}

tp_status tp_cublaslt_open(tp_cublaslt **out, char *err, size_t errlen) {
  *out = NULL;
  tp_cublaslt *lt = calloc(1, sizeof *lt);
  if (lt == NULL) {
    snprintf(err, errlen, "out of host memory");
    return TP_ERR_OUT_OF_MEMORY;
  }
  if ((lt->lib = open_library(err, errlen)) == NULL) {
    free(lt);
    return TP_ERR_NOT_FOUND;
  }
  /* memcpy: ISO C has no conversion from void * to a function pointer. */
#define TP_CUBLASLT_LOAD(name)                                                       \
  {                                                                                  \
    void *sym = dlsym(lt->lib, "cublasLt" #name);                                    \
    if (sym == NULL) {                                                               \
      snprintf(err, errlen, "%s has no cublasLt" #name, TP_CUBLASLT_SONAME);         \
      dlclose(lt->lib);                                                              \
      free(lt);                                                                      \
      return TP_ERR_NOT_FOUND;                                                       \
    }                                                                                \
    memcpy(&lt->name, &sym, sizeof sym);                                             \
  }
  TP_CUBLASLT_FUNCTIONS(TP_CUBLASLT_LOAD)
#undef TP_CUBLASLT_LOAD
  cublasStatus_t s = lt->Create(&lt->handle);
  if (s != CUBLAS_STATUS_SUCCESS) {
    tp_status st = failed(lt, s, "cublasLtCreate", err, errlen);
    tp_cublaslt_close(lt);
    return st;
  }
  *out = lt;
  return TP_OK;
}

size_t tp_cublaslt_version(const tp_cublaslt *lt) { return lt->GetVersion(); }

void tp_cublaslt_close(tp_cublaslt *lt) {
  if (lt == NULL) return;
  if (lt->handle) lt->Destroy(lt->handle);
  dlclose(lt->lib);
  free(lt);
}

static int cuda_type(tp_dtype dtype, cudaDataType_t *out) {
  switch (dtype) {
  case TP_DTYPE_F32: *out = CUDA_R_32F; return 1;
  case TP_DTYPE_BF16: *out = CUDA_R_16BF; return 1;
  case TP_DTYPE_F16: *out = CUDA_R_16F; return 1;
  case TP_DTYPE_E4M3: *out = CUDA_R_8F_E4M3; return 1;
  case TP_DTYPE_E5M2: *out = CUDA_R_8F_E5M2; return 1;
  default: return 0;
  }
}

/* A column-major rows x cols layout of t's dtype with t's row stride as ld. */
static tp_status make_layout(tp_cublaslt_gemm *g, int which, const tp_tensor *t, int64_t rows,
                             int64_t cols, char *err, size_t errlen) {
  cudaDataType_t type;
  if (!cuda_type(t->dtype, &type)) {
    snprintf(err, errlen, "cuBLASLt: no %s matrices in this comparison", tp_dtype_name(t->dtype));
    return TP_ERR_UNSUPPORTED;
  }
  cublasStatus_t s = g->lt->MatrixLayoutCreate(&g->layout[which], type, (uint64_t)rows,
                                               (uint64_t)cols, t->stride[0]);
  return s == CUBLAS_STATUS_SUCCESS ? TP_OK
                                    : failed(g->lt, s, "cublasLtMatrixLayoutCreate", err, errlen);
}

/* cuBLAS's A is our B, its B our A: our b_scale goes to A_SCALE_POINTER. */
static tp_status set_scale_pointers(const tp_cublaslt_gemm *g, const tp_gemm_desc *desc,
                                    char *err, size_t errlen) {
  const tp_cublaslt *lt = g->lt;
  const void *a = desc->b_scale.data, *b = desc->a_scale.data;
  cublasStatus_t s =
      lt->MatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a, sizeof a);
  if (s == CUBLAS_STATUS_SUCCESS)
    s = lt->MatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &b, sizeof b);
  return s == CUBLAS_STATUS_SUCCESS
             ? TP_OK
             : failed(lt, s, "cublasLtMatmulDescSetAttribute (scale pointers)", err, errlen);
}

/* The block-scaling modes: our B per 128 x 128 as cuBLAS's A, our A per
 * 1 x 128 as its B. */
static tp_status set_scale_modes(const tp_cublaslt_gemm *g, char *err, size_t errlen) {
#if TP_CUBLASLT_HEADERS_BLOCKWISE
  const tp_cublaslt *lt = g->lt;
  const int32_t a_mode = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
  const int32_t b_mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
  cublasStatus_t s = lt->MatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &a_mode,
                                                sizeof a_mode);
  if (s == CUBLAS_STATUS_SUCCESS)
    s = lt->MatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &b_mode,
                                   sizeof b_mode);
  return s == CUBLAS_STATUS_SUCCESS
             ? TP_OK
             : failed(lt, s, "cublasLtMatmulDescSetAttribute (scale modes)", err, errlen);
#else
  (void)g;
  snprintf(err, errlen,
           "this tilepipe was built against cuBLAS %d.%d headers, which have no blockwise FP8 "
           "scaling (12.9 and later)",
           CUBLAS_VER_MAJOR, CUBLAS_VER_MINOR);
  return TP_ERR_UNSUPPORTED;
#endif
}

static tp_status describe_op(tp_cublaslt_gemm *g, const tp_gemm_desc *desc, char *err,
                             size_t errlen) {
  const tp_cublaslt *lt = g->lt;
  cublasStatus_t s = lt->MatmulDescCreate(&g->op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  if (s != CUBLAS_STATUS_SUCCESS) return failed(lt, s, "cublasLtMatmulDescCreate", err, errlen);
  const int32_t transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
  s = lt->MatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa);
  if (s == CUBLAS_STATUS_SUCCESS)
    s = lt->MatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb);
  if (s == CUBLAS_STATUS_SUCCESS && tp_dtype_bits(desc->a.dtype) == 8) {
    /* The comparison the benchmark targets: fp8 with promoted (exact f32)
     * accumulation, not the faster approximate one. */
    const int8_t fast_accum = 0;
    s = lt->MatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast_accum,
                                   sizeof fast_accum);
  }
  if (s != CUBLAS_STATUS_SUCCESS)
    return failed(lt, s, "cublasLtMatmulDescSetAttribute", err, errlen);
  if (!g->blockwise) return TP_OK;
  tp_status st = set_scale_modes(g, err, errlen);
  return st == TP_OK ? set_scale_pointers(g, desc, err, errlen) : st;
}

static tp_status choose_algo(tp_cublaslt_gemm *g, char *err, size_t errlen) {
  const tp_cublaslt *lt = g->lt;
  cublasLtMatmulPreference_t pref;
  cublasStatus_t s = lt->MatmulPreferenceCreate(&pref);
  if (s != CUBLAS_STATUS_SUCCESS) return failed(lt, s, "cublasLtMatmulPreferenceCreate", err, errlen);
  const uint64_t ws = g->workspace_bytes;
  s = lt->MatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                       sizeof ws);
  cublasLtMatmulHeuristicResult_t result;
  int count = 0;
  if (s == CUBLAS_STATUS_SUCCESS)
    s = lt->MatmulAlgoGetHeuristic(lt->handle, g->op, g->layout[LAYOUT_A], g->layout[LAYOUT_B],
                                   g->layout[LAYOUT_C], g->layout[LAYOUT_D], pref, 1, &result,
                                   &count);
  lt->MatmulPreferenceDestroy(pref);
  if (s == CUBLAS_STATUS_NOT_SUPPORTED || (s == CUBLAS_STATUS_SUCCESS && count < 1)) {
    snprintf(err, errlen, "cuBLASLt has no algorithm for this problem (%s)",
             s == CUBLAS_STATUS_SUCCESS ? "no heuristic result" : lt->GetStatusString(s));
    return TP_ERR_UNSUPPORTED;
  }
  if (s != CUBLAS_STATUS_SUCCESS)
    return failed(lt, s, "cublasLtMatmulAlgoGetHeuristic", err, errlen);
  g->algo = result.algo;
  return TP_OK;
}

tp_status tp_cublaslt_gemm_create(tp_cublaslt_gemm **out, tp_cublaslt *lt,
                                  const tp_gemm_desc *desc, void *workspace,
                                  size_t workspace_bytes, char *err, size_t errlen) {
  *out = NULL;
  tp_status st = tp_cublaslt_check_problem(desc, lt->GetVersion(), err, errlen);
  if (st != TP_OK) return st;
  tp_cublaslt_gemm *g = calloc(1, sizeof *g);
  if (g == NULL) {
    snprintf(err, errlen, "out of host memory");
    return TP_ERR_OUT_OF_MEMORY;
  }
  g->lt = lt;
  g->has_c = desc->c.dtype != TP_DTYPE_NONE;
  g->blockwise = tp_cublaslt_is_blockwise(desc);
  g->alpha = desc->alpha;
  g->beta = g->has_c ? desc->beta : 0.0f;
  g->workspace = workspace;
  g->workspace_bytes = workspace_bytes;
  /* Without C, cuBLAS still wants a C layout: D's, with beta = 0. */
  const tp_tensor *c = g->has_c ? &desc->c : &desc->d;
  st = describe_op(g, desc, err, errlen);
  if (st == TP_OK) st = make_layout(g, LAYOUT_A, &desc->b, desc->k, desc->n, err, errlen);
  if (st == TP_OK) st = make_layout(g, LAYOUT_B, &desc->a, desc->k, desc->m, err, errlen);
  if (st == TP_OK) st = make_layout(g, LAYOUT_C, c, desc->n, desc->m, err, errlen);
  if (st == TP_OK) st = make_layout(g, LAYOUT_D, &desc->d, desc->n, desc->m, err, errlen);
  if (st == TP_OK) st = choose_algo(g, err, errlen);
  if (st != TP_OK) {
    tp_cublaslt_gemm_destroy(g);
    return st;
  }
  *out = g;
  return TP_OK;
}

tp_status tp_cublaslt_gemm_run(const tp_cublaslt_gemm *g, const tp_gemm_desc *desc, void *stream,
                               char *err, size_t errlen) {
  if (g->blockwise) {
    const tp_status st = set_scale_pointers(g, desc, err, errlen);
    if (st != TP_OK) return st;
  }
  const void *c = g->has_c ? desc->c.data : desc->d.data;
  cublasStatus_t s = g->lt->Matmul(g->lt->handle, g->op, &g->alpha, desc->b.data,
                                   g->layout[LAYOUT_A], desc->a.data, g->layout[LAYOUT_B],
                                   &g->beta, c, g->layout[LAYOUT_C], desc->d.data,
                                   g->layout[LAYOUT_D], &g->algo, g->workspace,
                                   g->workspace_bytes, (cudaStream_t)stream);
  return s == CUBLAS_STATUS_SUCCESS ? TP_OK : failed(g->lt, s, "cublasLtMatmul", err, errlen);
}

void tp_cublaslt_gemm_destroy(tp_cublaslt_gemm *g) {
  if (g == NULL) return;
  for (int i = 0; i < NUM_LAYOUTS; i++)
    if (g->layout[i]) g->lt->MatrixLayoutDestroy(g->layout[i]);
  if (g->op) g->lt->MatmulDescDestroy(g->op);
  free(g);
}

#else /* built without the CUDA toolkit */

tp_status tp_cublaslt_open(tp_cublaslt **lt, char *err, size_t errlen) {
  *lt = NULL;
  snprintf(err, errlen, "this tilepipe was built without the CUDA toolkit (no cublasLt.h)");
  return TP_ERR_UNSUPPORTED;
}

/* Unreachable without a handle; present so that callers link. */
size_t tp_cublaslt_version(const tp_cublaslt *lt) { return 0; }
void tp_cublaslt_close(tp_cublaslt *lt) {}
tp_status tp_cublaslt_gemm_create(tp_cublaslt_gemm **gemm, tp_cublaslt *lt,
                                  const tp_gemm_desc *desc, void *workspace,
                                  size_t workspace_bytes, char *err, size_t errlen) {
  *gemm = NULL;
  return tp_cublaslt_open(&lt, err, errlen);
}
tp_status tp_cublaslt_gemm_run(const tp_cublaslt_gemm *gemm, const tp_gemm_desc *desc,
                               void *stream, char *err, size_t errlen) {
  tp_cublaslt *lt;
  return tp_cublaslt_open(&lt, err, errlen);
}
void tp_cublaslt_gemm_destroy(tp_cublaslt_gemm *gemm) {}

#endif
