/* tests/plugins/fixture.h: what the loader fixtures share.
 *
 * Each fixture is a plugin library built to exercise one path of the loader
 * (core/registry/loader.c): most are well-formed except for the one defect
 * their file names. They start from fixture_desc(), a well-formed descriptor
 * whose slots refuse all work, and change what their test needs. Fixtures
 * never link libtilepipe; they are built like real plugins (-module,
 * -fvisibility=hidden, the entry exported with TP_PLUGIN_EXPORT). */
#ifndef TP_TESTS_PLUGINS_FIXTURE_H
#define TP_TESTS_PLUGINS_FIXTURE_H

#include <stdio.h>
#include "tilepipe/plugin/abi.h"

/* plan refuses every GEMM, so the core never reaches the CPU slots below:
 * they exist because the ABI requires them to be set. */
static inline tp_status fixture_payload_plan(void *state, const tp_gemm_desc *desc,
                                             tp_backend backend, tp_payload_plan *out, char *err,
                                             size_t errlen) {
  snprintf(err, errlen, "loader fixture: plans nothing");
  return TP_ERR_UNSUPPORTED;
}

static inline void fixture_cpu_load(const tp_payload_plan *plan, const tp_gemm_desc *desc,
                                    int64_t m0, int64_t n0, int64_t kb, void *const *stage) {}

static inline void fixture_cpu_mma(const tp_payload_plan *plan, const void *const *stage,
                                   int64_t kb, int32_t r0, int32_t rows, float *acc,
                                   int32_t ld_acc) {}

static inline tp_status fixture_epilogue_plan(void *state, const tp_gemm_desc *desc,
                                              tp_backend backend, tp_epilogue_plan *out,
                                              char *err, size_t errlen) {
  snprintf(err, errlen, "loader fixture: plans nothing");
  return TP_ERR_UNSUPPORTED;
}

static inline void fixture_cpu_apply(const tp_epilogue_plan *plan, const tp_gemm_desc *desc,
                                     int64_t m0, int64_t n0, int32_t rows, int32_t cols,
                                     const float *acc, int32_t ld_acc) {}

/* A well-formed descriptor of `kind` named `name`, version "0.0.1", no
 * state, no tuning keys, no device code. */
static inline tp_plugin_desc fixture_desc(const char *name, tp_plugin_kind kind) {
  static const tp_payload_ops payload = {
      .struct_size = sizeof(tp_payload_ops),
      .plan = fixture_payload_plan,
      .cpu_load = fixture_cpu_load,
      .cpu_mma = fixture_cpu_mma,
  };
  static const tp_epilogue_ops epilogue = {
      .struct_size = sizeof(tp_epilogue_ops),
      .plan = fixture_epilogue_plan,
      .cpu_apply = fixture_cpu_apply,
  };
  return (tp_plugin_desc){
      .struct_size = sizeof(tp_plugin_desc),
      .abi_major = TP_PLUGIN_ABI_MAJOR,
      .abi_minor = TP_PLUGIN_ABI_MINOR,
      .name = name,
      .kind = kind,
      .version = "0.0.1",
      .payload = kind == TP_PLUGIN_PAYLOAD ? &payload : NULL,
      .epilogue = kind == TP_PLUGIN_EPILOGUE ? &epilogue : NULL,
  };
}

#endif
