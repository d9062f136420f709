/* plugins/kit/cpu_microkernel.h: the CPU consumer's micro-kernels
 * (cpu_microkernel.c), internal to the plugin kit.
 *
 * A micro-kernel overwrites c (8 x 32 f32, row-major) with the product of
 * a packed panel of A (kc x 8: a[k * 8 + i], row i of the panel) and one of
 * B (kc x 32: b[k * 32 + j]) over kc steps of K: f32 panels (fn), or bf16
 * panels in K-pairs (fn_bf16: a[(k / 2) * 16 + 2 * i + k % 2], b[(k / 2) *
 * 64 + 2 * j + k % 2], kc even), the same offsets counted in elements. */
#ifndef TP_PLUGINS_KIT_CPU_MICROKERNEL_H
#define TP_PLUGINS_KIT_CPU_MICROKERNEL_H

#include <stdint.h>

#include "tilepipe/plugin/kit/cpu_stage.h"

typedef void (*tp_kit_cpu_ukernel_fn)(const void *a, const void *b, int32_t kc, float *c);

/* Adds rows lo .. hi - 1 of a micro-kernel's c (8 x 32) into the
 * accumulators, row i at out + (i - lo) * ld_out: out[j] += c[i][j]
 * unscaled (sa NULL), else out[j] += (sa_i * sb[j]) * c[i][j], sa_i =
 * sa[(i - lo) * sa_stride] (a scale group's promotion), multiplied and
 * added in that order, unfused, by every path alike. */
typedef void (*tp_kit_cpu_promote_fn)(const float *c, int32_t lo, int32_t hi, const float *sa,
                                      int32_t sa_stride, const float *sb, float *out,
                                      int32_t ld_out);

/* The packing's transposition of 4-byte words (an f32, or a K-pair of
 * bf16): panel[k * width + i] = rows[i * ld + k] for i < width (a multiple
 * of 8), k < cols; the bits moved as they are. */
typedef void (*tp_kit_cpu_transpose_fn)(const void *rows, int32_t ld, int32_t width, int32_t cols,
                                        void *panel);

typedef struct tp_kit_cpu_ukernel {
  const char *name; /* "avx512bf16", "avx512", "avx2" or "portable" */
  tp_kit_cpu_ukernel_fn fn;      /* on f32 panels */
  tp_kit_cpu_ukernel_fn fn_bf16; /* on bf16 K-pair panels; NULL: bf16 is packed as f32 */
  int32_t bf16_tile_m;           /* fn_bf16 for tiles of at most this many rows */
  tp_kit_cpu_promote_fn promote;     /* of the same instruction set */
  tp_kit_cpu_transpose_fn transpose; /* AVX's 8 x 8 blocks on both x86 paths */
} tp_kit_cpu_ukernel;

/* The one this process uses (chosen on the first call; thread-safe). */
tp_kit_cpu_ukernel tp_kit_cpu_ukernel_get(void);

#endif
