/* core/plan.c: plans bind a payload, an epilogue and a descriptor to a backend.
 *
 * Creation does all the checking and all the expensive work; a run only
 * re-checks that the descriptor describes the planned problem, then hands the
 * pointers to the backend.
 *
 * A plan holds its registry (tp_registry_hold) from creation to destroy,
 * so the plugins it calls stay loaded even when the caller closes the
 * registry too early; a run then refuses. A magic word, cleared on
 * destroy, turns a destroyed plan handed back (while its memory still
 * says so) into TP_ERR_INVALID_ARGUMENT instead of a use after free. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend/cpu/cpu_backend.h"
#include "core/backend/cuda/cuda_backend.h"
#include "core/error.h"
#include "core/gemm_check.h"
#include "core/gemm_desc.h"
#include "core/plan_internal.h"
#include "core/registry/registry_internal.h"

/* "TPPL" in a live plan; 0 once destroyed. */
#define PLAN_MAGIC 0x4c505054u

struct tp_plan {
  uint32_t magic;
  tp_registry *registry; /* held; NULL until the plugins are resolved */
  tp_backend backend;
  tp_gemm_desc desc; /* as planned, read at full size; its data pointers are never read */
  tp_binding binding;
  char payload_name[64];
  char epilogue_name[64];
  char why_cpu[512]; /* AUTO that resolved to the CPU: why CUDA was out; else "" */
  tp_cpu_plan *cpu;
  tp_cuda_plan *cuda;
};

const char *tp_backend_name(tp_backend backend) {
  switch (backend) {
  case TP_BACKEND_AUTO: return "auto";
  case TP_BACKEND_CPU: return "cpu";
  case TP_BACKEND_CUDA: return "cuda";
  }
  return "?";
}

int tp_backend_from_name(const char *name) {
  if (name == NULL) return -1;
  for (int b = TP_BACKEND_AUTO; b <= TP_BACKEND_CUDA; ++b) {
    if (strcmp(name, tp_backend_name((tp_backend)b)) == 0) return b;
  }
  return -1;
}

/* AUTO picks CUDA when a usable GPU is there and both plugins carry device
 * code; otherwise the CPU, and why_cpu says why not CUDA. An explicit CUDA
 * request fails instead. (tp_plan_create also falls back to the CPU where
 * a plugin's plan refuses the CUDA backend as unsupported.) */
static tp_status resolve_backend(tp_backend asked, const tp_plugin_desc *payload,
                                 const tp_plugin_desc *epilogue, tp_backend *out, char *why_cpu,
                                 size_t why_size) {
  if (asked == TP_BACKEND_CPU) {
    *out = TP_BACKEND_CPU;
    return TP_OK;
  }
  tp_status st = tp_cuda_backend_available(payload, epilogue);
  if (st == TP_OK) {
    *out = TP_BACKEND_CUDA;
    return TP_OK;
  }
  if (asked == TP_BACKEND_CUDA) return st;
  snprintf(why_cpu, why_size, "%s", tp_error_message());
  *out = TP_BACKEND_CPU;
  return TP_OK;
}

tp_status tp_binding_resolve(tp_binding *b, tp_registry *registry, const char *payload_name,
                             const char *epilogue_name) {
  memset(b, 0, sizeof *b);
  tp_status st = tp_registry_resolve(registry, payload_name, TP_PLUGIN_PAYLOAD, &b->payload_plugin,
                                     &b->payload_state);
  if (st == TP_OK)
    st = tp_registry_resolve(registry, epilogue_name, TP_PLUGIN_EPILOGUE, &b->epilogue_plugin,
                             &b->epilogue_state);
  if (st != TP_OK) return st;
  b->payload = b->payload_plugin->payload;
  b->epilogue = b->epilogue_plugin->epilogue;
  b->payload_name = payload_name;
  b->epilogue_name = epilogue_name;
  return TP_OK;
}

tp_status tp_binding_check_tiles(const tp_binding *b) {
  if (b->payload_plan.num_tensors == 0 || b->payload_plan.num_tensors > TP_MAX_STAGE_TENSORS ||
      b->payload_plan.k_blocks < 1) {
    return tp_error_set(TP_ERR_PLUGIN, "payload '%s' returned an invalid plan (%u stage tensors, "
                        "%lld k-blocks)", b->payload_name, b->payload_plan.num_tensors,
                        (long long)b->payload_plan.k_blocks);
  }
  return TP_OK;
}

tp_status tp_binding_plan(tp_binding *b, const tp_gemm_desc *desc, tp_backend backend) {
  char err[512] = "";
  tp_status st = b->payload->plan(b->payload_state, desc, backend, &b->payload_plan, err, sizeof err);
  if (st != TP_OK) return tp_error_slot(st, "payload", b->payload_name, "plan", err);
  st = b->epilogue->plan(b->epilogue_state, desc, backend, &b->epilogue_plan, err, sizeof err);
  if (st != TP_OK) return tp_error_slot(st, "epilogue", b->epilogue_name, "plan", err);
  /* On the CUDA backend the payload's gpu_plan fills the plan's tiles. */
  return backend == TP_BACKEND_CUDA ? TP_OK : tp_binding_check_tiles(b);
}

tp_status tp_plan_create(tp_plan **out, tp_registry *registry, const char *payload_name,
                         const char *epilogue_name, const tp_gemm_desc *desc, tp_backend backend) {
  if (out == NULL) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "plan: the output pointer is NULL");
  *out = NULL;
  if (registry == NULL) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "plan: the registry is NULL");
  if (payload_name == NULL || epilogue_name == NULL) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "plan: the payload or epilogue name is NULL");
  }
  if (backend != TP_BACKEND_AUTO && backend != TP_BACKEND_CPU && backend != TP_BACKEND_CUDA) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "plan: backend %d is not auto, cpu or cuda",
                        (int)backend);
  }

  tp_plan *plan = calloc(1, sizeof *plan);
  if (plan == NULL) return tp_error_set(TP_ERR_OUT_OF_MEMORY, "plan: out of host memory");
  plan->magic = PLAN_MAGIC;
  tp_status st = tp_gemm_desc_read(&plan->desc, desc);
  if (st != TP_OK) {
    tp_plan_destroy(plan);
    return tp_error_wrap(st, "plan");
  }
  snprintf(plan->payload_name, sizeof plan->payload_name, "%s", payload_name);
  snprintf(plan->epilogue_name, sizeof plan->epilogue_name, "%s", epilogue_name);
  st = tp_binding_resolve(&plan->binding, registry, plan->payload_name, plan->epilogue_name);
  if (st != TP_OK) {
    tp_plan_destroy(plan);
    return tp_error_wrap(st, "plan");
  }
  tp_registry_hold(registry);
  plan->registry = registry;

  plan->backend = backend; /* what a failure below names until the backend is resolved */
  st = resolve_backend(backend, plan->binding.payload_plugin, plan->binding.epilogue_plugin,
                       &plan->backend, plan->why_cpu, sizeof plan->why_cpu);
  if (st == TP_OK) st = tp_gemm_check_desc(&plan->desc, plan->backend);
  if (st == TP_OK) {
    st = tp_binding_plan(&plan->binding, &plan->desc, plan->backend);
    if (st == TP_ERR_UNSUPPORTED && backend == TP_BACKEND_AUTO &&
        plan->backend == TP_BACKEND_CUDA) {
      /* A plan slot with no GPU kernel for this problem (block_scaled's
       * modes without one): AUTO runs it on the CPU, saying why. */
      snprintf(plan->why_cpu, sizeof plan->why_cpu, "%s", tp_error_message());
      plan->backend = TP_BACKEND_CPU;
      st = tp_gemm_check_desc(&plan->desc, plan->backend);
      if (st == TP_OK) st = tp_binding_plan(&plan->binding, &plan->desc, plan->backend);
    }
  }
  if (st == TP_OK) {
    st = plan->backend == TP_BACKEND_CPU
             ? tp_cpu_plan_create(&plan->cpu, &plan->binding)
             : tp_cuda_plan_create(&plan->cuda, &plan->binding, &plan->desc);
  }
  if (st != TP_OK) {
    const tp_backend chosen = plan->backend;
    tp_plan_destroy(plan);
    return tp_error_wrap(st, "plan %s x %s on %s", payload_name, epilogue_name,
                         tp_backend_name(chosen));
  }
  *out = plan;
  return TP_OK;
}

tp_status tp_plan_run(tp_plan *plan, const tp_gemm_desc *desc, void *stream) {
  if (plan == NULL) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "run: the plan is NULL");
  if (plan->magic != PLAN_MAGIC)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "run: not a live plan (destroyed already?)");
  if (tp_registry_closed(plan->registry))
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "run: the plan's registry is closed (destroy "
                        "plans before closing their registry)");
  tp_gemm_desc run;
  tp_status st = tp_gemm_desc_read(&run, desc);
  if (st != TP_OK) return tp_error_wrap(st, "run");
  st = tp_gemm_check_run(&plan->desc, &run, plan->backend);
  if (st != TP_OK) return st;
  if (plan->backend == TP_BACKEND_CPU) {
    if (stream != NULL) {
      return tp_error_set(TP_ERR_INVALID_ARGUMENT, "run: a CPU plan takes no stream (pass NULL)");
    }
    return tp_cpu_plan_run(plan->cpu, &run);
  }
  return tp_cuda_plan_run(plan->cuda, &run, stream);
}

tp_backend tp_plan_backend(const tp_plan *plan) {
  return plan == NULL || plan->magic != PLAN_MAGIC ? TP_BACKEND_AUTO : plan->backend;
}

/* Where the next part of a description goes once n chars are counted: the
 * rest of buf, or nowhere (NULL, *room 0) once it is full. snprintf counts
 * a part either way, so the parts' sum is what one snprintf would return. */
static char *rest_of(char *buf, size_t size, int n, size_t *room) {
  *room = (size_t)n < size ? size - (size_t)n : 0;
  return *room ? buf + n : NULL;
}

int tp_plan_describe(const tp_plan *plan, char *buf, size_t size) {
  if (plan == NULL || plan->magic != PLAN_MAGIC)
    return snprintf(buf, size, "%s", plan ? "(not a live plan)" : "(no plan)");
  const tp_tile_config *t = &plan->binding.payload_plan.tile;
  char group[32] = "";
  if (t->k_group_size > 1) snprintf(group, sizeof group, " of %d k-tiles", t->k_group_size);
  int n = snprintf(buf, size, "%s x %s on %s: tile %dx%dx%d, %lld k-blocks%s, ", plan->payload_name,
                   plan->epilogue_name, tp_backend_name(plan->backend), t->tile_m, t->tile_n,
                   t->tile_k, (long long)plan->binding.payload_plan.k_blocks, group);
  if (n < 0) return n;
  size_t room;
  char *rest = rest_of(buf, size, n, &room);
  int m = plan->backend == TP_BACKEND_CPU ? tp_cpu_plan_describe(plan->cpu, rest, room)
                                          : tp_cuda_plan_describe(plan->cuda, rest, room);
  if (m < 0) return m;
  n += m;
  if (!plan->why_cpu[0]) return n;
  rest = rest_of(buf, size, n, &room);
  m = snprintf(rest, room, "; auto chose the CPU: %s", plan->why_cpu);
  return m < 0 ? m : n + m;
}

void tp_plan_destroy(tp_plan *plan) {
  if (plan == NULL || plan->magic != PLAN_MAGIC) return;
  plan->magic = 0;
  tp_cpu_plan_destroy(plan->cpu);
  tp_cuda_plan_destroy(plan->cuda);
  if (plan->registry) tp_registry_release(plan->registry);
  free(plan);
}
