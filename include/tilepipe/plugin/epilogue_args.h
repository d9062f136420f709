/* tilepipe/plugin/epilogue_args.h: what an epilogue's device hook receives.
 *
 * Every payload kernel carries one tp_epilogue_args in its parameters (at the
 * offset it reports in tp_gpu_launch) and passes its address to the hook
 * (tilepipe/plugin/device/epilogue.h). The core fills alpha, beta and source_dtype;
 * the epilogue plugin's gpu_args slot fills `user` with whatever its hook
 * needs (a bias pointer, a scale...). Plain data for host C and device code. */
#ifndef TILEPIPE_PLUGIN_EPILOGUE_ARGS_H
#define TILEPIPE_PLUGIN_EPILOGUE_ARGS_H

#include <stdint.h>

#include "tilepipe/plugin/tile.h"

#define TP_EPILOGUE_USER_BYTES 112

typedef struct tp_epilogue_args {
  float alpha, beta;
  int32_t source_dtype; /* tp_dtype of the staged C tile; TP_DTYPE_NONE: no source */
  int32_t reserved;
  TP_ALIGNAS(16) unsigned char user[TP_EPILOGUE_USER_BYTES];
} tp_epilogue_args;

#endif
