/* tests/plugins/link_fixture.h: what the link fixtures share
 * (fixture_bad_link, fixture_small_link, fixture_grouped_link).
 *
 * A link fixture is a payload whose GPU kernels `tilepipe link`, the
 * kernel cache and `tilepipe warm` link but nothing runs: it plans every
 * GEMM as one k-block of one 16-byte tile, its gpu_plan names the kernel
 * that the fixture's link_fixture_kernel(M) picks (one block of 384
 * threads, the epilogue's arguments as parameters), and its gpu_args
 * refuses. The fixture defines link_fixture_kernel and sets its device
 * code on link_fixture_desc()'s descriptor; one that names prologues too
 * (tp_gpu_launch.prologue) sets link_fixture_prologue. */
#ifndef TP_TESTS_PLUGINS_LINK_FIXTURE_H
#define TP_TESTS_PLUGINS_LINK_FIXTURE_H

#include <stdint.h>
#include <string.h>

#include "fixture.h"
#include "tilepipe/plugin/epilogue_args.h"

static const char *link_fixture_kernel(int64_t m);

/* A prologue for M and its threads (one block), or NULL for none. */
typedef struct link_fixture_prologue_choice {
  const char *name;
  uint32_t threads;
} link_fixture_prologue_choice;
static link_fixture_prologue_choice (*link_fixture_prologue)(int64_t m);

static tp_status link_fixture_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                                   tp_payload_plan *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  out->tile = (tp_tile_config){.tile_m = 128, .tile_n = 128, .tile_k = 64, .k_group_size = 1};
  out->num_tensors = 1;
  out->tensors[0] = (tp_stage_tensor){.bytes = 16, .align = 16};
  out->k_blocks = 1;
  return TP_OK;
}

static tp_status link_fixture_gpu_plan(void *state, const tp_gemm_desc *desc,
                                       const tp_gpu_info *gpu, const tp_epilogue_plan *epilogue,
                                       tp_payload_plan *plan, tp_gpu_launch *launch, char *err,
                                       size_t errlen) {
  memset(launch, 0, sizeof *launch);
  snprintf(launch->kernel, sizeof launch->kernel, "%s", link_fixture_kernel(desc->m));
  for (int i = 0; i < 3; i++) launch->grid[i] = launch->block[i] = launch->cluster[i] = 1;
  launch->block[0] = 384;
  launch->params_size = sizeof(tp_epilogue_args);
  const link_fixture_prologue_choice pro =
      link_fixture_prologue != NULL ? link_fixture_prologue(desc->m)
                                    : (link_fixture_prologue_choice){NULL, 0};
  if (pro.name != NULL) {
    snprintf(launch->prologue, sizeof launch->prologue, "%s", pro.name);
    for (int i = 0; i < 3; i++) launch->prologue_grid[i] = launch->prologue_block[i] = 1;
    launch->prologue_block[0] = pro.threads;
  }
  return TP_OK;
}

static tp_status link_fixture_gpu_args(const tp_payload_plan *plan,
                                       const tp_epilogue_plan *epilogue, const tp_gemm_desc *desc,
                                       const tp_host_api *host, void *params, char *err,
                                       size_t errlen) {
  snprintf(err, errlen, "link fixture: never runs");
  return TP_ERR_UNSUPPORTED;
}

/* A payload descriptor named `name` with the slots above (the CPU slots
 * are the fixtures' empty ones) and no device code yet. */
static inline tp_plugin_desc *link_fixture_desc(const char *name) {
  static tp_payload_ops ops;
  static tp_plugin_desc desc;
  desc = fixture_desc(name, TP_PLUGIN_PAYLOAD);
  ops = *desc.payload;
  ops.plan = link_fixture_plan;
  ops.gpu_plan = link_fixture_gpu_plan;
  ops.gpu_args = link_fixture_gpu_args;
  desc.payload = &ops;
  desc.cuda_version = 13000;
  return &desc;
}

#endif
