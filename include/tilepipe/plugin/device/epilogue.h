/* tilepipe/plugin/device/epilogue.h: the epilogue hook contract (device side).
 *
 * An epilogue plugin's device code defines exactly this function, as a plain
 * extern "C" __device__ function (not __forceinline__: a forced-inline
 * function alone in its translation unit is never emitted, and the link then
 * fails with "Unresolved extern function"). The payload kernel calls it for
 * every output element after the mainloop; nvJitLink's LTO inlines it into
 * the kernel, so it costs what its body costs.
 *
 *   acc     the f32 accumulator of output (row, col): sum_k A[row,k] B[col,k]
 *           with the payload's scales applied, alpha NOT applied;
 *   source  C[row, col] converted to f32 when args->source_dtype is not
 *           TP_DTYPE_NONE (the kernel staged it through shared memory ahead
 *           of time), else 0;
 *   returns the value of D[row, col] before its conversion to D's dtype.
 *
 * Rows and columns are global indices and always inside [0,M) x [0,N).
 * A tile that overhangs D's edge also calls it for its positions outside D,
 * with the indices clamped into D, and drops those results: the hook must
 * be a pure function of its arguments and what args points to (no stores,
 * no atomics). See docs/writing-an-epilogue.md. */
#ifndef TILEPIPE_PLUGIN_DEVICE_EPILOGUE_H
#define TILEPIPE_PLUGIN_DEVICE_EPILOGUE_H

#include <stdint.h>

#include "tilepipe/plugin/epilogue_args.h"

extern "C" __device__ float tp_epilogue_apply(const tp_epilogue_args *args, float acc,
                                              float source, int32_t row, int32_t col);

#endif
