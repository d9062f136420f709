/* core/plan_internal.h: what a backend sees of a plan.
 *
 * The plugins' slots and their per-plan decisions, bound together at plan
 * creation (and by the link check without a GPU, core/link_check.c).
 * Backends read it; they never look plugins up themselves. */
#ifndef TP_CORE_PLAN_INTERNAL_H
#define TP_CORE_PLAN_INTERNAL_H

#include "tilepipe/plugin/abi.h"

typedef struct tp_binding {
  const tp_plugin_desc *payload_plugin;
  const tp_plugin_desc *epilogue_plugin;
  void *payload_state;
  void *epilogue_state;
  const tp_payload_ops *payload;
  const tp_epilogue_ops *epilogue;
  tp_payload_plan payload_plan;
  tp_epilogue_plan epilogue_plan;
  const char *payload_name; /* registry names, for messages */
  const char *epilogue_name;
} tp_binding;

/* Looks the payload and the epilogue up in registry and fills in b's
 * plugins, slots and states (the plans stay zero). b keeps the names by
 * pointer: they must outlive it. */
tp_status tp_binding_resolve(tp_binding *b, tp_registry *registry, const char *payload_name,
                             const char *epilogue_name);

/* Runs both plugins' plan slots on desc (the core's full-size copy, already
 * through tp_gemm_check_desc for backend) into b's plans: the payload's,
 * then the epilogue's. On the CPU backend the payload's plan then holds its
 * tiles; on the CUDA backend its gpu_plan fills them (tp_binding_check_tiles
 * after it). */
tp_status tp_binding_plan(tp_binding *b, const tp_gemm_desc *desc, tp_backend backend);

/* TP_ERR_PLUGIN unless the payload plan has 1..TP_MAX_STAGE_TENSORS stage
 * tensors and at least one k-block. */
tp_status tp_binding_check_tiles(const tp_binding *b);

#endif
