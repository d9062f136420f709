/* plugins/common/cuda_stage.h: the GPU tile choice and the operand tiles of a
 * GPU stage, shared by every payload.
 *
 * On the GPU a stage holds what TMA copies, in the operands' own dtypes:
 * A [tile_m][tile_k] and B [tile_n][tile_k], K-major, 128-byte swizzled (so
 * 1024-byte aligned). Payloads append their scale tiles after these. The
 * tile is the tuning's, else tile_m = tile_n = 128 and tile_k = one 128-byte
 * swizzle row of A (64 bf16/f16, 128 fp8, 256 fp4 elements). The device
 * kernels themselves are separate work; this fixes what the storage planner
 * lays out for them. */
#ifndef TP_PLUGINS_COMMON_CUDA_STAGE_H
#define TP_PLUGINS_COMMON_CUDA_STAGE_H

#include "tilepipe/plugin.h"
#include "plugins/common/tuning.h"

void tpc_cuda_plan(tp_payload_plan *out, const tpc_tuning *tuning, const tp_gemm_desc *desc);

#endif
