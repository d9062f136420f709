/* tilepipe/plugin/abi.h: the plugin ABI.
 *
 * A plugin is a shared library that exports one symbol, TP_PLUGIN_ENTRY_NAME,
 * a function that returns a static tp_plugin_desc. The library never links
 * against libtilepipe: everything it needs from the core arrives through the
 * tp_host_api table handed to the entry function, and everything the core
 * needs from it goes through the function slots of its descriptor (BLIS
 * style: looked up, never linked). Build it with -fvisibility=hidden and
 * export the entry with TP_PLUGIN_EXPORT; libtool: -module -avoid-version.
 *
 * Compatibility: the core refuses a plugin whose abi_major differs from
 * TP_PLUGIN_ABI_MAJOR or whose abi_minor is newer than TP_PLUGIN_ABI_MINOR.
 * Minor versions only append fields; the core reads a struct only up to the
 * struct_size the plugin reports, so a plugin built for an older minor of
 * the same major loads, its missing slots read as absent. The tp_gemm_desc
 * a slot receives is always the core's own full-size copy of the caller's
 * (tilepipe/gemm.h). docs/writing-a-payload.md walks through a whole
 * plugin.
 *
 * One library may back several registry sections (say, two tunings of one
 * payload): init() runs once per section and returns that section's state.
 *
 * Threads (docs/threads.md): init() and set_option() run while the registry
 * is opened, on one thread. After that the core calls plan() and gpu_plan()
 * from concurrent tp_plan_create calls on the same state, problem() from
 * concurrent tp_problem_describe calls, and cpu_load(),
 * cpu_mma(), cpu_apply() and gpu_args() from concurrent runs of the same
 * plan: treat the state and the plan as read-only and keep no mutable
 * globals. */
#ifndef TILEPIPE_PLUGIN_ABI_H
#define TILEPIPE_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>
#include "tilepipe/gemm.h"
#include "tilepipe/plan.h"
#include "tilepipe/problem.h"
#include "tilepipe/registry.h"
#include "tilepipe/status.h"
#include "tilepipe/plugin/tile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 2.0: the structs below, and the tp_gemm_desc the slots read opening with
 * its struct_size (tilepipe/gemm.h). 2.1: a payload may describe its own
 * problem (tp_payload_ops.problem). 2.2: a GPU plan may run a prologue
 * kernel before its kernel (tp_gpu_launch.prologue). 2.3: the problem
 * says how long the GPU's running sum runs before a promotion
 * (tp_problem.acc_k). 2.4: the problem says how the GPU rounds the
 * operands' elements (tp_problem.a_rounding, b_rounding). */
#define TP_PLUGIN_ABI_MAJOR 2
#define TP_PLUGIN_ABI_MINOR 4
#define TP_PLUGIN_ENTRY_NAME "tp_plugin_entry"

#if defined(__GNUC__)
#define TP_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define TP_PLUGIN_EXPORT
#endif

/* Room for a plugin's own per-plan data, opaque to the core. */
#define TP_PLAN_PRIVATE_BYTES 512

/* Error reporting convention of every slot: on failure return a status other
 * than TP_OK and write a one-line reason into err (at most errlen bytes,
 * always NUL-terminated); the core prefixes it with the plugin's name. A
 * value that is no tp_status is a plugin bug: the caller gets
 * TP_ERR_PLUGIN, "payload 'x': its plan slot returned 999, which is no
 * tilepipe status (reason)". */

/* ------------------------------------------------------------------ host API */

typedef enum tp_log_level { TP_LOG_ERROR = 0, TP_LOG_WARN, TP_LOG_INFO, TP_LOG_DEBUG } tp_log_level;

/* A 2-D TMA descriptor request: a row-major [rows, cols] tensor of dtype at
 * `global` (rows `row_stride` elements apart) read or written in boxes of
 * box_rows x box_cols elements. swizzle: 0, 32, 64 or 128 (bytes); the box
 * row (box_cols elements) must then fit in the swizzle span. */
typedef struct tp_tma_2d {
  tp_dtype dtype;
  const void *global;
  int64_t rows, cols, row_stride;
  uint32_t box_rows, box_cols;
  uint32_t swizzle;
} tp_tma_2d;

/* The GPU a plan targets, as the core found it. */
typedef struct tp_gpu_info {
  int32_t sm_count;
  int32_t cc_major, cc_minor;
  uint32_t smem_per_block; /* opt-in maximum of dynamic shared memory per block */
  char name[64];
} tp_gpu_info;

typedef struct tp_host_api {
  uint32_t struct_size;
  uint16_t abi_major, abi_minor;
  /* Writes a line to the core's log (stderr, filtered by $TILEPIPE_LOG). */
  void (*log)(tp_log_level level, const char *plugin, const char *message);
  /* Encodes a TMA descriptor (a CUtensorMap, 128 bytes, 64-byte aligned) into
   * out. Plugins never open libcuda themselves; the core does. */
  tp_status (*tma_encode_2d)(void *out, const tp_tma_2d *request, char *err, size_t errlen);
} tp_host_api;

/* How the core launches a payload's kernel. */
typedef struct tp_gpu_launch {
  char kernel[96];             /* extern "C" name of the __global__ in its LTO-IR */
  uint32_t grid[3], block[3];
  uint32_t cluster[3];         /* cluster dims; {1,1,1} for none */
  uint32_t smem_bytes;         /* dynamic shared memory */
  uint32_t params_size;        /* bytes of the kernel's one parameter struct */
  uint32_t epilogue_args_offset; /* where tp_epilogue_args sits inside it */
  /* Device memory the kernel needs beyond its operands (split-K partial
   * sums, tile counters); 0 for none. The core allocates it once, when the
   * plan is created, zeroes it, and hands it to gpu_args through
   * tp_payload_plan.workspace. It belongs to the plan, not to one run: a
   * kernel that keeps counters there must leave them as it found them, and
   * runs of one plan must not overlap (one stream, or one plan per stream). */
  uint64_t workspace_bytes;
  /* 2.2, optional: a kernel the core launches before `kernel` at every
   * run, on the same stream, with the same parameter block, e.g. one that
   * rewrites the operands into the workspace for the kernel to read: its
   * extern "C" name, in the same LTO-IR as `kernel` ("" for none), and its
   * grid and block (no cluster, no dynamic shared memory). It follows the
   * stream's previous kernel as any launch does; `kernel`, a programmatic
   * dependent (tilepipe/internal/kernel/grid_dependency.h), reads nothing
   * before it has completed, and may start its setup once every CTA of the
   * prologue has called tp_grid_launch_dependents. */
  char prologue[96];
  uint32_t prologue_grid[3], prologue_block[3];
} tp_gpu_launch;

/* What an epilogue decided for one GEMM. */
typedef struct tp_epilogue_plan {
  tp_dtype source_dtype;  /* dtype of C it reads; TP_DTYPE_NONE if it reads none */
  TP_ALIGNAS(16) unsigned char priv[TP_PLAN_PRIVATE_BYTES];
} tp_epilogue_plan;

/* ------------------------------------------------------------------ payloads */

/* What a payload decided for one GEMM: the tile configuration and what one
 * pipeline stage holds. The core's storage planner lays the stages out from
 * this; both backends read the same layout. */
typedef struct tp_payload_plan {
  tp_tile_config tile;
  uint32_t num_tensors;                          /* tiles per k-block: A, B, scales... */
  tp_stage_tensor tensors[TP_MAX_STAGE_TENSORS]; /* in stage order */
  int64_t k_blocks;                              /* k-blocks per output tile */
  TP_ALIGNAS(16) unsigned char priv[TP_PLAN_PRIVATE_BYTES];
  /* Set by the core before gpu_args: the plan's workspace_bytes of device
   * memory (see tp_gpu_launch), 256-byte aligned; NULL when none. */
  void *workspace;
} tp_payload_plan;

typedef struct tp_payload_ops {
  uint32_t struct_size;

  /* Plan time. Validates desc (dtypes, scales, strides: every problem named in
   * err), then chooses the tiles for `backend` (CPU or CUDA, never AUTO). */
  tp_status (*plan)(void *state, const tp_gemm_desc *desc, tp_backend backend,
                    tp_payload_plan *out, char *err, size_t errlen);

  /* CPU producer ("the TMA"): copy k-block `kb` of output tile (m0, n0) into
   * the stage, tensor i at stage[i], in the payload's own tile format. Parts
   * of the tile outside the matrices read as zeros. */
  void (*cpu_load)(const tp_payload_plan *plan, const tp_gemm_desc *desc, int64_t m0,
                   int64_t n0, int64_t kb, void *const *stage);

  /* CPU consumer ("the MMA"): for tile rows [r0, r0 + rows) add the
   * contribution of the staged k-block kb to acc (rows x tile.n, row stride
   * ld_acc), in f32. */
  void (*cpu_mma)(const tp_payload_plan *plan, const void *const *stage, int64_t kb,
                  int32_t r0, int32_t rows, float *acc, int32_t ld_acc);

  /* GPU plan time, after plan(..., TP_BACKEND_CUDA, ...): chooses the kernel
   * for this GPU and epilogue (tiles, stages through the storage planner, the
   * grid) and may refine *plan. NULL: the payload has no GPU path. */
  tp_status (*gpu_plan)(void *state, const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                        const tp_epilogue_plan *epilogue, tp_payload_plan *plan,
                        tp_gpu_launch *launch, char *err, size_t errlen);

  /* GPU run time: writes the kernel parameters (launch->params_size bytes,
   * 64-byte aligned) for desc's device pointers, TMA descriptors included,
   * except the tp_epilogue_args block that the epilogue fills. */
  tp_status (*gpu_args)(const tp_payload_plan *plan, const tp_epilogue_plan *epilogue,
                        const tp_gemm_desc *desc, const tp_host_api *host, void *params,
                        char *err, size_t errlen);

  /* 2.1, optional: describes the payload's problem for desc's shape, so
   * that tools can make its inputs and check its results
   * (tilepipe/problem.h, tp_problem_describe). desc is the caller's with
   * a_scale and b_scale zeroed: set A's and B's dtypes where they are
   * TP_DTYPE_NONE (keep those given; refuse, TP_ERR_UNSUPPORTED, a pair
   * the payload does not take), then each scale tensor the payload takes
   * (dtype, layout, shape, strides; data NULL), following opt (never
   * NULL), and its map in *out (zeroed, struct_size the core's), and
   * out->acc_bits, acc_k (2.3) and the GPU's rounding of the operands'
   * elements, a_rounding and b_rounding (2.4), where the route has any.
   * Anything else written to desc is ignored. NULL: the
   * core describes the plain problem (no scales; A bf16, B = A). */
  tp_status (*problem)(void *state, tp_gemm_desc *desc, const tp_problem_options *opt,
                       tp_problem *out, char *err, size_t errlen);
} tp_payload_ops;

/* ----------------------------------------------------------------- epilogues */


typedef struct tp_epilogue_ops {
  uint32_t struct_size;

  /* Plan time: validates D (and C, alpha, beta) for this epilogue. */
  tp_status (*plan)(void *state, const tp_gemm_desc *desc, tp_backend backend,
                    tp_epilogue_plan *out, char *err, size_t errlen);

  /* CPU: finishes rows x cols outputs whose top-left is (m0, n0) from the raw
   * f32 accumulators acc (row stride ld_acc) and writes them into desc->d. */
  void (*cpu_apply)(const tp_epilogue_plan *plan, const tp_gemm_desc *desc, int64_t m0,
                    int64_t n0, int32_t rows, int32_t cols, const float *acc, int32_t ld_acc);

  /* GPU run time: fills the user bytes of the tp_epilogue_args that its
   * device hook reads (tilepipe/plugin/device/epilogue.h); alpha, beta and the source
   * dtype are already set by the core. NULL when it needs nothing. */
  tp_status (*gpu_args)(const tp_epilogue_plan *plan, const tp_gemm_desc *desc, void *user,
                        size_t user_size, char *err, size_t errlen);
} tp_epilogue_ops;

/* ---------------------------------------------------------------- descriptor */

/* One group of a payload's kernels and the LTO-IR that holds them. A link
 * reads every function of the IR it is given, so a payload with many
 * kernels splits them (say, one image per operand pair), and a plan's link
 * takes only the image that lists the kernel gpu_plan chose. */
typedef struct tp_device_image {
  const char *const *kernels; /* the extern "C" names of the kernels it holds */
  size_t num_kernels;
  const void *data;           /* LTO-IR, as tp_plugin_desc.device_image */
  size_t size;
} tp_device_image;

typedef struct tp_plugin_desc {
  uint32_t struct_size;    /* sizeof(tp_plugin_desc) as the plugin was built */
  uint16_t abi_major, abi_minor;
  const char *name;        /* the plugin's own name, e.g. "standard" */
  tp_plugin_kind kind;
  const char *version;     /* the plugin's version, e.g. "1.0.0" */
  int32_t cuda_version;    /* toolkit that built its device code (13000 = 13.0); 0: none */

  /* Creates the state of one registry section. May be NULL (state = NULL). */
  tp_status (*init)(const tp_host_api *host, void **state, char *err, size_t errlen);
  /* Frees it; called before the library is closed. May be NULL. */
  void (*fini)(void *state);
  /* One INI tuning key of the section (any key the core does not know).
   * TP_ERR_NOT_FOUND for an unknown key, TP_ERR_INVALID_ARGUMENT for a bad
   * value. May be NULL when the plugin takes no keys. */
  tp_status (*set_option)(void *state, const char *key, const char *value, char *err,
                          size_t errlen);

  /* The slots of its kind; the other is NULL. */
  const tp_payload_ops *payload;
  const tp_epilogue_ops *epilogue;

  /* LTO-IR of its device code (a fatbin from nvcc -dc -fatbin
   * -gencode arch=compute_90a,code=lto_90a); NULL when it has none. Its
   * size is 0 exactly when it is NULL: the loader refuses one without the
   * other. */
  const void *device_image;
  size_t device_image_size;

  /* Payloads only: its device code as groups of kernels instead of one
   * device_image (set one or the other). A plan's link takes the first image
   * whose list names the chosen kernel; a kernel that none names fails the
   * plan. NULL and 0 when device_image holds it all. */
  const tp_device_image *device_images;
  size_t num_device_images;
} tp_plugin_desc;

typedef const tp_plugin_desc *(*tp_plugin_entry_fn)(const tp_host_api *host);

/* The one symbol a plugin defines and exports (declared here so that its
 * definition has a prototype). */
TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host);

#ifdef __cplusplus
}
#endif
#endif
