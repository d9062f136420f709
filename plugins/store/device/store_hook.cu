/* plugins/store/device/store_hook.cu: the plain store epilogue on the GPU.
 *
 * D = alpha * acc. The payload kernel converts the result to D's dtype and
 * stores it; this hook only scales. Built into LTO-IR (build-aux/device.mk)
 * and linked into the payload's kernel at plan time, where it inlines. */
#include "tilepipe/plugin/device/epilogue.h"

extern "C" __device__ float tp_epilogue_apply(const tp_epilogue_args *args, float acc,
                                              float source, int32_t row, int32_t col) {
  (void)source;
  (void)row;
  (void)col;
  return args->alpha * acc;
}
