/* core/link_check.h: a payload x epilogue pair's fused kernel, linked
 * without a GPU.
 *
 * Everything a CUDA plan does before it loads the kernel: the generic
 * descriptor checks and both plugins' plan slots for the CUDA backend, the
 * payload's gpu_plan for a GPU's figures, and the nvJitLink link of the two
 * plugins' LTO-IR with the ptxas report checked (no setmaxnreg ignored, no
 * serialized wgmma, no spill). It needs no GPU and no driver, only
 * nvJitLink, so CI vouches for every pair (`tilepipe link`, docs/tool.md).
 * Internal to libtilepipe: the tool links the core's convenience library. */
#ifndef TP_CORE_LINK_CHECK_H
#define TP_CORE_LINK_CHECK_H

#include "core/backend/cuda/link_log.h"
#include "tilepipe/plugin.h"

/* The GPU a link without a GPU plans for, the one place these figures live:
 * an H100 SXM (132 SMs, compute capability 9.0, 227 KiB of opt-in shared
 * memory per block, 50 MiB of L2). Kernels whose choice depends on the SM
 * count (tile width, grid) are chosen as on that GPU. */
#define TP_LINK_CHECK_GPU_NAME "H100 SXM (figures, no GPU)"
#define TP_LINK_CHECK_GPU_SMS 132
#define TP_LINK_CHECK_GPU_CC_MAJOR 9
#define TP_LINK_CHECK_GPU_CC_MINOR 0
#define TP_LINK_CHECK_GPU_SMEM_PER_BLOCK 232448u
#define TP_LINK_CHECK_GPU_L2_BYTES (50u << 20)

/* Those figures as the payloads' gpu_plan receives them. */
void tp_link_check_gpu(tp_gpu_info *gpu);

typedef struct tp_link_check_result {
  int planned;          /* 1 once the descriptor checks and both plan slots accepted desc */
  tp_gpu_launch launch; /* the payload's choice: kernel name, grid, shared memory */
  tp_link_stats stats;  /* the linked kernel's registers, stack and spills */
} tp_link_check_result;

/* Links payload x epilogue of registry for desc (pointers unused) on gpu
 * (NULL: tp_link_check_gpu). TP_OK when the link is clean. On failure the
 * message names the step; result->planned says whether the descriptor got
 * past the plan slots (0: the pair refuses this problem, which is no link
 * failure). TP_ERR_UNSUPPORTED when a plugin carries no device code or
 * tilepipe was built without CUDA, TP_ERR_LINK when the link or its ptxas
 * report fails. */
tp_status tp_link_check(tp_registry *registry, const char *payload, const char *epilogue,
                        const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                        tp_link_check_result *result);

#endif
