/* bias_silu_args.h: what bias_silu's gpu_args slot (plugin.c, host C) writes
 * into the user bytes of tp_epilogue_args, and what its device hook
 * (bias_silu_hook.cu) reads back: one layout for both compilers, so it is
 * plain fixed-width fields. It must fit TP_EPILOGUE_USER_BYTES (plugin.c
 * checks at compile time). */
#ifndef BIAS_SILU_ARGS_H
#define BIAS_SILU_ARGS_H

#include <stdint.h>

typedef struct bias_silu_args {
  uint64_t bias;      /* device address of bias[0] */
  int32_t bias_dtype; /* tp_dtype: f32, or D's dtype (bf16, f16) */
  int32_t reserved;
} bias_silu_args;

#endif
