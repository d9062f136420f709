/* tilepipe/internal/pipeline/defs.h: what lets one pipeline source serve two backends.
 *
 * The pipeline headers compile as CUDA device code (nvcc: PTX mbarriers, one
 * warpgroup per role) and as C11 host code (the CPU backend and the host
 * tests: C11-atomic mbarriers, one thread per role). Everything is inline:
 * on the device the pipeline state lives in registers.
 *
 * TP_PIPELINE_DEBUG (0 or 1, default 0) turns on the run-time check of the
 * explicit stage handles (double release, release of a stage never acquired,
 * out-of-order release, acquiring more stages than exist, stages still held at
 * drain): the host aborts with a message on stderr, the device prints it and
 * traps. The tests build with it on. */
#ifndef TILEPIPE_INTERNAL_PIPELINE_DEFS_H
#define TILEPIPE_INTERNAL_PIPELINE_DEFS_H

#include <stdint.h>
#include <stdio.h>

#ifndef TP_PIPELINE_DEBUG
#define TP_PIPELINE_DEBUG 0
#endif

#if defined(__CUDACC__)
#define TP_PIPE_DEVICE 1
#define TP_PIPE_FN static __device__ __forceinline__
#else
#define TP_PIPE_DEVICE 0
#include <stdbool.h>
#include <stdlib.h>
#define TP_PIPE_FN static inline
#endif

/* The storage planner is plain arithmetic: under nvcc its functions are
 * host and device functions, so a .cu file's host code computes the same
 * layout as its kernels. */
#if defined(__CUDACC__)
#define TP_PLAN_FN static __host__ __device__ __forceinline__
#else
#define TP_PLAN_FN static inline
#endif

#if defined(__GNUC__) || defined(__CUDACC__)
#define TP_PIPE_MUST_USE __attribute__((warn_unused_result))
#else
#define TP_PIPE_MUST_USE
#endif

/* Stops the program on a pipeline protocol error found by the debug check. */
#if TP_PIPE_DEVICE
#define TP_PIPE_FAIL(...)                                                         \
  do {                                                                             \
    printf("tilepipe pipeline (block %d thread %d): ", (int)blockIdx.x, (int)threadIdx.x); \
    printf(__VA_ARGS__);                                                           \
    printf("\n");                                                                  \
    __trap();                                                                      \
  } while (0)
#else
#define TP_PIPE_FAIL(...)                                                         \
  do {                                                                             \
    fprintf(stderr, "tilepipe pipeline: ");                                        \
    fprintf(stderr, __VA_ARGS__);                                                  \
    fprintf(stderr, "\n");                                                         \
    abort();                                                                       \
  } while (0)
#endif

#endif
