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

typedef struct tp_kit_cpu_ukernel {
  const char *name; /* "avx512", "avx2" or "portable" */
  tp_kit_cpu_ukernel_fn fn;
} tp_kit_cpu_ukernel;

/* The one this process uses (chosen on the first call; thread-safe). */
tp_kit_cpu_ukernel tp_kit_cpu_ukernel_get(void);

#endif
