/* plugins/kit/cpu_microkernel.h: the CPU consumer's micro-kernels
 * (cpu_microkernel.c), internal to the plugin kit.
 *
 * A micro-kernel overwrites c (8 x 32 f32, row-major) with the product of
 * a packed panel of A (kc x 8: a[k * 8 + i], row i of the panel) and one of
 * B (kc x 32: b[k * 32 + j]) over kc steps of K. */
#ifndef TP_PLUGINS_KIT_CPU_MICROKERNEL_H
#define TP_PLUGINS_KIT_CPU_MICROKERNEL_H

#include <stdint.h>

#include "tilepipe/plugin/kit/cpu_stage.h"

typedef void (*tp_kit_cpu_ukernel_fn)(const float *a, const float *b, int32_t kc, float *c);

/* Adds rows lo .. hi - 1 of a micro-kernel's c (8 x 32) into the
 * accumulators, row i at out + (i - lo) * ld_out: out[j] += c[i][j]
 * unscaled (sa NULL), else out[j] += (sa_i * sb[j]) * c[i][j], sa_i =
 * sa[(i - lo) * sa_stride] (a scale group's promotion), multiplied and
 * added in that order, unfused, by every path alike. */
typedef void (*tp_kit_cpu_promote_fn)(const float *c, int32_t lo, int32_t hi, const float *sa,
                                      int32_t sa_stride, const float *sb, float *out,
                                      int32_t ld_out);

/* The packing's transposition: panel[k * width + i] = rows[i * ld + k]
 * for i < width (a multiple of 8), k < cols. */
typedef void (*tp_kit_cpu_transpose_fn)(const float *rows, int32_t ld, int32_t width,
                                        int32_t cols, float *panel);

typedef struct tp_kit_cpu_ukernel {
  const char *name; /* "avx512", "avx2" or "portable" */
  tp_kit_cpu_ukernel_fn fn;
  tp_kit_cpu_promote_fn promote;     /* of the same instruction set */
  tp_kit_cpu_transpose_fn transpose; /* AVX's 8 x 8 blocks on both x86 paths */
} tp_kit_cpu_ukernel;

/* The one this process uses (chosen on the first call; thread-safe). */
tp_kit_cpu_ukernel tp_kit_cpu_ukernel_get(void);

#endif
