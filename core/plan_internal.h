/* core/plan_internal.h: what a backend sees of a plan.
 *
 * The plugins' slots and their per-plan decisions, bound together at plan
 * creation. Backends read it; they never look plugins up themselves. */
#ifndef TP_CORE_PLAN_INTERNAL_H
#define TP_CORE_PLAN_INTERNAL_H

#include "tilepipe/plugin.h"

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

#endif
