/* tools/ceilings.c: see ceilings.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tilepipe/device.h"
#include "tilepipe/reference.h"
#include "tools/ceilings.h"
#include "tools/timing.h"

/* Enough runs for a stable median; the GEMM's are about 1.5 ms each on the
 * H100, the copy's under one. */
enum { CEILING_WARMUP = 3, CEILING_ITERS = 21 };
/* Random rows generated on the host and repeated down A and B: 32 slabs of
 * the 8192-row operands, 4 MiB of bf16 to draw instead of 128. */
enum { BLOCK_ROWS = 256 };
static const size_t COPY_BYTES = (size_t)TP_CEILING_COPY_MIB << 20;

/* ------------------------------------------------------------- memory */

typedef struct copy_job {
  void *dst, *src;
} copy_job;

static tp_status run_copy(void *ctx, int iteration, char *err, size_t errlen) {
  (void)iteration;
  const copy_job *c = ctx;
  tp_status st = tp_device_copy_within(c->dst, c->src, COPY_BYTES, NULL);
  return st == TP_OK ? st : tp_time_failed("copy", st, err, errlen);
}

static tp_status measure_memory(double *bytes_per_s, char *err, size_t errlen) {
  copy_job c = {NULL, NULL};
  double ms = NAN;
  tp_status st = tp_device_alloc(&c.src, COPY_BYTES);
  if (st == TP_OK) st = tp_device_alloc(&c.dst, COPY_BYTES);
  /* The source's contents do not change a copy's speed; still not zeros. */
  if (st == TP_OK) st = tp_device_memset(c.src, 0x5A, COPY_BYTES);
  if (st != TP_OK) tp_time_failed("memory ceiling", st, err, errlen);
  if (st == TP_OK)
    st = tp_time_median(1, CEILING_WARMUP, CEILING_ITERS, run_copy, &c, &ms, err, errlen);
  tp_device_free(c.src);
  tp_device_free(c.dst);
  if (st == TP_OK) *bytes_per_s = 2.0 * (double)COPY_BYTES / (ms * 1e-3);
  return st;
}

/* --------------------------------------------------------- arithmetic */

typedef struct gemm_job {
  tp_cublaslt_gemm *gemm;
  tp_gemm_desc desc;
} gemm_job;

static tp_status run_gemm(void *ctx, int iteration, char *err, size_t errlen) {
  (void)iteration;
  const gemm_job *g = ctx;
  return tp_cublaslt_gemm_run(g->gemm, &g->desc, NULL, err, errlen);
}

/* A size x size operand on the device: BLOCK_ROWS rows of N(0,1) values
 * rounded to its dtype (seeded), repeated down the matrix. */
static tp_status random_operand(tp_dtype dtype, uint64_t seed, void **dev, char *err,
                                size_t errlen) {
  const int64_t size = TP_CEILING_GEMM_SIZE;
  const size_t block_bytes = tp_dtype_bytes(dtype, BLOCK_ROWS * size);
  void *host = malloc(block_bytes);
  if (host == NULL) {
    snprintf(err, errlen, "arithmetic ceiling: out of host memory");
    return TP_ERR_OUT_OF_MEMORY;
  }
  const tp_tensor block = tp_tensor_matrix(dtype, BLOCK_ROWS, size, size, host);
  tp_ref_tensor_fill(&block, NULL, seed);
  tp_status st = tp_device_alloc(dev, tp_dtype_bytes(dtype, size * size));
  for (int64_t r = 0; r < size && st == TP_OK; r += BLOCK_ROWS)
    st = tp_device_copy_to((char *)*dev + tp_dtype_bytes(dtype, r * size), host, block_bytes);
  free(host);
  return st == TP_OK ? st : tp_time_failed("arithmetic ceiling", st, err, errlen);
}

static tp_status measure_arithmetic(const tp_ceiling_gemm *g, double *flops_per_s, char *err,
                                    size_t errlen) {
  const int64_t size = TP_CEILING_GEMM_SIZE;
  void *a = NULL, *b = NULL, *d = NULL;
  gemm_job job = {NULL, {0}};
  double ms = NAN;
  tp_status st = random_operand(g->ab, 1, &a, err, errlen);
  if (st == TP_OK) st = random_operand(g->ab, 2, &b, err, errlen);
  if (st == TP_OK && (st = tp_device_alloc(&d, tp_dtype_bytes(g->d, size * size))) != TP_OK)
    tp_time_failed("arithmetic ceiling", st, err, errlen);
  if (st == TP_OK) {
    tp_gemm_desc_init(&job.desc, size, size, size);
    job.desc.a = tp_tensor_matrix(g->ab, size, size, size, a);
    job.desc.b = tp_tensor_matrix(g->ab, size, size, size, b);
    job.desc.d = tp_tensor_matrix(g->d, size, size, size, d);
    st = tp_cublaslt_gemm_create(&job.gemm, g->lt, &job.desc, g->workspace, g->workspace_bytes,
                                 err, errlen);
  }
  if (st == TP_OK)
    st = tp_time_median(1, CEILING_WARMUP, CEILING_ITERS, run_gemm, &job, &ms, err, errlen);
  tp_cublaslt_gemm_destroy(job.gemm);
  tp_device_free(a);
  tp_device_free(b);
  tp_device_free(d);
  if (st == TP_OK) *flops_per_s = 2.0 * (double)size * (double)size * (double)size / (ms * 1e-3);
  return st;
}

tp_status tp_ceilings_measure(const tp_ceiling_gemm *gemm, tp_ceilings *out, char *err,
                              size_t errlen) {
  out->bytes_per_s = out->flops_per_s = NAN;
  tp_status st = measure_memory(&out->bytes_per_s, err, errlen);
  if (st == TP_OK && gemm->lt == NULL) {
    snprintf(err, errlen, "arithmetic ceiling: cuBLASLt is not available");
    return TP_ERR_NOT_FOUND;
  }
  if (st == TP_OK) st = measure_arithmetic(gemm, &out->flops_per_s, err, errlen);
  return st;
}
