/* tools/shapes.h: the benchmark's shape list: one "M N K" per line, '#'
 * starts a comment, blank lines are skipped (the format of
 * bench/shapes.txt). Every refusal names the file and line. */
#ifndef TP_TOOLS_SHAPES_H
#define TP_TOOLS_SHAPES_H

#include <stddef.h>
#include <stdint.h>
#include "tilepipe/status.h"

typedef struct tp_shape {
  int64_t m, n, k;
} tp_shape;

/* Reads path into a malloc'ed array (*shapes, freed by the caller) of
 * *count >= 1 shapes, each size in 1..TP_GEMM_MAX_DIM (2^31 - 1, the
 * library's bound). TP_ERR_IO when the file cannot be read,
 * TP_ERR_INVALID_ARGUMENT for a bad line (too long, a NUL byte, no three
 * sizes in range) or an empty list. */
tp_status tp_shapes_read(const char *path, tp_shape **shapes, size_t *count, char *err,
                         size_t errlen);

#endif
