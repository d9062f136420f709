/* plugins/residual/device/residual_hook.cu: the residual epilogue on the GPU.
 *
 * D = alpha * acc + beta * C. The payload kernel stages C through shared
 * memory ahead of the epilogue (the source ring) and hands it in as
 * `source`; with beta == 0 the plan asks for no source (C is never read, so
 * NaNs in it cannot leak into D, as in BLAS) and source is 0. Built into
 * LTO-IR and linked into the payload's kernel at plan time. */
#include "tilepipe/plugin/device/epilogue.h"

extern "C" __device__ float tp_epilogue_apply(const tp_epilogue_args *args, float acc,
                                              float source, int32_t row, int32_t col) {
  (void)row;
  (void)col;
  return args->alpha * acc + args->beta * source;
}
