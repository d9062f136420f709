/* tools/cpu_blas.c: see cpu_blas.h. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cpu_blas.h"

/* CBLAS's enums (cblas.h), the values every CBLAS shares. */
enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111, CBLAS_TRANS = 112 };

typedef void (*cblas_sgemm_fn)(int order, int transa, int transb, int m, int n, int k,
                               float alpha, const float *a, int lda, const float *b, int ldb,
                               float beta, float *c, int ldc);
/* Fortran's: every argument by reference, the two character lengths last
 * (gfortran's hidden arguments, ignored by the other ABIs). */
typedef void (*sgemm_fn)(const char *transa, const char *transb, const int *m, const int *n,
                         const int *k, const float *alpha, const float *a, const int *lda,
                         const float *b, const int *ldb, const float *beta, float *c,
                         const int *ldc, size_t la, size_t lb);

struct tp_cpu_blas {
  void *lib;
  cblas_sgemm_fn cblas;
  sgemm_fn fortran; /* when the library has no cblas_sgemm */
  char name[256];
};

static const char *const candidates[] = {"libopenblas.so.0", "libblis.so.4", "libmkl_rt.so",
                                         "libblas.so.3"};

/* Opens `file` into b; 0 with the reason appended to err when it has no
 * sgemm. */
static int try_library(tp_cpu_blas *b, const char *file, char *err, size_t errlen) {
  const size_t used = strlen(err);
  b->lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (b->lib == NULL) {
    snprintf(err + used, errlen - used, "%s%s", used ? "; " : "", dlerror());
    return 0;
  }
  b->cblas = (cblas_sgemm_fn)dlsym(b->lib, "cblas_sgemm");
  if (b->cblas == NULL) b->fortran = (sgemm_fn)dlsym(b->lib, "sgemm_");
  if (b->cblas == NULL && b->fortran == NULL) {
    snprintf(err + used, errlen - used, "%s%s: neither cblas_sgemm nor sgemm_", used ? "; " : "",
             file);
    dlclose(b->lib);
    return 0;
  }
  snprintf(b->name, sizeof b->name, "%s (%s)", file, b->cblas ? "cblas_sgemm" : "sgemm_");
  return 1;
}

tp_status tp_cpu_blas_open(tp_cpu_blas **blas, char *err, size_t errlen) {
  *blas = NULL;
  tp_cpu_blas *b = calloc(1, sizeof *b);
  char why[1024] = "";
  if (b == NULL) {
    snprintf(err, errlen, "out of host memory");
    return TP_ERR_OUT_OF_MEMORY;
  }
  const char *chosen = getenv("TILEPIPE_CPU_BLAS");
  if (chosen != NULL && *chosen) {
    if (try_library(b, chosen, why, sizeof why)) {
      *blas = b;
      return TP_OK;
    }
  } else {
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
      if (try_library(b, candidates[i], why, sizeof why)) {
        *blas = b;
        return TP_OK;
      }
    }
  }
  free(b);
  snprintf(err, errlen, "no BLAS sgemm (%s)", why);
  return TP_ERR_NOT_FOUND;
}

const char *tp_cpu_blas_name(const tp_cpu_blas *blas) { return blas->name; }

void tp_cpu_blas_sgemm(const tp_cpu_blas *blas, int64_t m, int64_t n, int64_t k, const float *a,
                       const float *b, float *d) {
  const int im = (int)m, in = (int)n, ik = (int)k;
  const float one = 1.0f, zero = 0.0f;
  if (blas->cblas != NULL) {
    blas->cblas(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_TRANS, im, in, ik, one, a, ik, b, ik, zero,
                d, in);
    return;
  }
  blas->fortran("T", "N", &in, &im, &ik, &one, b, &ik, a, &ik, &zero, d, &in, 1, 1);
}

void tp_cpu_blas_close(tp_cpu_blas *blas) {
  if (blas == NULL) return;
  dlclose(blas->lib);
  free(blas);
}
