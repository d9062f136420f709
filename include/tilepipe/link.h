/* tilepipe/link.h: a payload x epilogue pair's fused GPU kernel, linked
 * without a GPU.
 *
 * tp_link_check does everything a CUDA plan does before it loads the
 * kernel: the generic descriptor checks and both plugins' plan slots for
 * the CUDA backend, the payload's gpu_plan for the figures of the link
 * target (an H100 SXM: tp_link_check_target), and the nvJitLink link of the
 * two plugins' LTO-IR with ptxas's report checked (no setmaxnreg ignored, no
 * serialized wgmma, no spill). It needs no GPU and no driver, only
 * nvJitLink, so CI vouches for every pair on a machine without a GPU
 * (`tilepipe link`, docs/tool.md). Links go through the kernel cache, in
 * memory and on disk ($TILEPIPE_CACHE_DIR; "off" links afresh).
 *
 * The structs are versioned by their first field: set struct_size to
 * sizeof the struct as you compiled it. The library zeroes struct_size
 * bytes, fills the fields it knows and leaves struct_size as it was; later
 * versions only append fields. */
#ifndef TILEPIPE_LINK_H
#define TILEPIPE_LINK_H

#include <stdint.h>
#include "tilepipe/gemm.h"
#include "tilepipe/registry.h"
#include "tilepipe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The GPU a link without a GPU plans for. Kernels whose choice depends on
 * the GPU (tile width, grid) are chosen as on this one. */
typedef struct tp_link_target {
  uint32_t struct_size;    /* sizeof(tp_link_target), set by the caller */
  char name[64];           /* "H100 SXM (figures, no GPU)" */
  int32_t sm_count;        /* 132 */
  int32_t cc_major, cc_minor; /* compute capability 9.0 */
  uint32_t smem_per_block; /* opt-in dynamic shared memory per block: 227 KiB */
} tp_link_target;

/* What tp_link_check found for one pair and problem. */
typedef struct tp_link_result {
  uint32_t struct_size;    /* sizeof(tp_link_result), set by the caller */
  int32_t planned;         /* 1 once the descriptor checks and both plan slots accepted it */
  /* The payload's launch, once planned: */
  char kernel[96];         /* the __global__ function's name; "" while the payload's gpu_plan
                              has chosen none (it refused the target) */
  uint32_t grid[3], block[3], cluster[3];
  uint32_t smem_bytes;     /* dynamic shared memory */
  uint64_t workspace_bytes; /* device memory the plan would allocate beyond the operands */
  /* ptxas's figures for that kernel, once linked: */
  int32_t registers;       /* per thread */
  int32_t stack_bytes;     /* stack frame per thread */
  int32_t spill_store_bytes, spill_load_bytes;
  /* Appended: the plan's tile once planned (its output tile and k-block:
   * tp_tile_config's tile_m, tile_n, tile_k; the cluster is cluster[]). */
  int32_t tile_m, tile_n, tile_k;
} tp_link_result;

/* How one tp_link_check_with differs from tp_link_check. */
typedef struct tp_link_options {
  uint32_t struct_size;    /* sizeof(tp_link_options), set by the caller */
  /* Tuning keys of the payload's section for this link only,
   * "key=value,key=value" (e.g. "tile=128x64x64,cluster=2x1"): they go to
   * a state of the payload's own (its init, the section's INI keys, then
   * these, each through set_option as an INI key after the section's;
   * fini when done), so a link can force what the section leaves to the
   * payload's heuristic, and the registry's state is never touched. NULL
   * or "": the section's own state. */
  const char *tuning;
} tp_link_options;

/* Fills *target with the figures tp_link_check plans for (the "h100-sxm"
 * of tp_link_target_lookup). */
tp_status tp_link_check_target(tp_link_target *target);

/* Fills *target with the figures of a GPU model named by gpu: "h100-sxm"
 * (132 SMs), "h100-pcie" (114 SMs), "h200" (132 SMs); each compute
 * capability 9.0 with 232448 bytes of opt-in shared memory per block.
 * TP_ERR_NOT_FOUND for another name (the message lists these). */
tp_status tp_link_target_lookup(const char *gpu, tp_link_target *target);

/* Fills *target with the figures of the GPU the calling thread works on
 * (its current context's device, else $TILEPIPE_DEVICE's: tilepipe/plan.h),
 * exactly as a plan made there hands them to the payload's gpu_plan.
 * TP_ERR_NO_DEVICE without one. */
tp_status tp_link_target_detect(tp_link_target *target);

/* Links the kernel of payload x epilogue from registry for desc (its data
 * pointers are never read) and checks ptxas's report. TP_OK when the link is
 * clean. On failure the message names the step, and result->planned says
 * how far it got. 0: the lookup, the descriptor checks or a plan slot
 * refused (a pair that does not take this problem, which is no link
 * failure). 1, after which the failures are: TP_ERR_UNSUPPORTED when a
 * plugin carries no device code, TP_ERR_NO_DEVICE when tilepipe was built
 * without the CUDA toolkit, the payload's status when its gpu_plan refuses
 * the target, TP_ERR_PLUGIN when it chose a kernel that none of its device
 * images lists (tp_plugin_desc.device_images), TP_ERR_NOT_FOUND when
 * nvJitLink cannot be opened, TP_ERR_LINK when the link or its ptxas report
 * fails. */
tp_status tp_link_check(tp_registry *registry, const char *payload, const char *epilogue,
                        const tp_gemm_desc *desc, tp_link_result *result);

/* tp_link_check with options (NULL: the same as tp_link_check). Tuning the
 * payload refuses (a key it does not know, a bad value, text that is no
 * key=value) fails before anything is planned (result->planned 0) with
 * TP_ERR_REGISTRY, as such a key breaks a registry section, the message
 * naming the key and the payload's reason; a tile the payload's plan does
 * not take for the problem fails as a refusal by the plan slots does. */
tp_status tp_link_check_with(tp_registry *registry, const char *payload, const char *epilogue,
                             const tp_gemm_desc *desc, const tp_link_options *options,
                             tp_link_result *result);

#ifdef __cplusplus
}
#endif
#endif
