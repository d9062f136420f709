/* core/warm.c: the kernels of a list of problems linked into the kernel
 * cache ahead of their plans (see tilepipe/warm.h).
 *
 * Each problem goes through what tp_plan_create does on the CUDA backend up
 * to the link (core/plan.c, tp_cuda_link_plan), for the target's figures;
 * the distinct kernels then go to the disk folder: those it holds already
 * are reported from here, the others are linked by worker processes
 * (core/backend/cuda/link_workers.h). With the disk cache off they are
 * linked into this process's cache, one after the other. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/backend/cuda/cuda_backend.h"
#include "core/backend/cuda/link_workers.h"
#include "core/error.h"
#include "core/gemm_check.h"
#include "core/gemm_desc.h"
#include "core/link_target.h"
#include "core/plan_internal.h"
#include "core/versioned.h"
#include "tilepipe/warm.h"

/* Most links at a time: more would only queue on the CPUs. */
#define MAX_JOBS 1024

typedef struct warm {
  tp_warm_options opt;
  tp_warm_result *result;
  tp_cuda_link *links;   /* the distinct kernels' links (links[i].kernels_used names them) */
  const char **kernels;  /* their names */
  size_t count;
  tp_status first_failure;
  char failure[1024];    /* its message */
} warm;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One kernel's outcome: counted, handed to the progress callback, and the
 * first failure kept. */
static void outcome(warm *w, size_t i, tp_status st, int linked, double seconds,
                    const char *message) {
  const tp_warm_outcome o = st != TP_OK ? TP_WARM_FAILED : linked ? TP_WARM_LINKED : TP_WARM_CACHED;
  if (o == TP_WARM_FAILED) {
    w->result->failed++;
    if (w->first_failure == TP_OK) {
      w->first_failure = st;
      snprintf(w->failure, sizeof w->failure, "kernel %s: %s", w->kernels[i], message);
    }
  } else {
    *(o == TP_WARM_LINKED ? &w->result->linked : &w->result->cached) += 1;
  }
  if (w->opt.progress)
    w->opt.progress(w->opt.progress_context, w->kernels[i], o, seconds,
                    o == TP_WARM_FAILED ? message : "");
}

/* The link_workers callback: index i of the missing kernels `missing`. */
typedef struct pending {
  warm *w;
  const size_t *index;
} pending;

static void worker_done(void *context, size_t i, tp_status st, int linked, double seconds,
                        const char *message) {
  const pending *p = context;
  outcome(p->w, p->index[i], st, linked, seconds, message);
}

static tp_status check_options(const tp_warm_options *options, tp_warm_options *opt) {
  memset(opt, 0, sizeof *opt);
  if (options != NULL) {
    tp_status st = tp_versioned_check(options, sizeof *options, "tp_warm_options");
    if (st != TP_OK) return st;
    *opt = *options;
  }
  if (opt->jobs < 0 || opt->jobs > MAX_JOBS)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "jobs %d is out of range (0: one per CPU, 1..%d)",
                        opt->jobs, MAX_JOBS);
  if (opt->jobs == 0) {
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    opt->jobs = cpus < 1 ? 1 : cpus > MAX_JOBS ? MAX_JOBS : (int32_t)cpus;
  }
  return TP_OK;
}

/* The figures plans pick from: the caller's target, else the device's. */
static tp_status target_gpu(const tp_warm_options *opt, tp_gpu_info *gpu) {
  if (opt->target != NULL) return tp_link_target_to_gpu(opt->target, gpu);
  tp_status st = tp_cuda_gpu_info(gpu);
  return st == TP_OK ? TP_OK
                     : tp_error_wrap(st, "no target given and no GPU to take its figures from "
                                         "(name one: tp_link_target_lookup)");
}

/* Plans descs[i] on a copy of base; a kernel not seen before becomes
 * w->links[w->count]. */
static tp_status plan_one(warm *w, const tp_binding *base, const tp_gemm_desc *desc,
                          const tp_gpu_info *gpu) {
  tp_binding b = *base;
  tp_gpu_launch launch;
  tp_cuda_link *link = &w->links[w->count];
  tp_status st = tp_gemm_check_desc(desc, TP_BACKEND_CUDA);
  if (st == TP_OK) st = tp_binding_plan(&b, desc, TP_BACKEND_CUDA);
  if (st == TP_OK) st = tp_cuda_link_plan(&b, desc, gpu, &launch, link);
  if (st != TP_OK) return st;
  for (size_t k = 0; k < w->count; k++)
    if (strcmp(w->links[k].kernels_used[0], link->kernels_used[0]) == 0 &&
        strcmp(w->links[k].kernels_used[1], link->kernels_used[1]) == 0)
      return TP_OK;
  w->kernels[w->count++] = link->kernels_used[0] + strlen("-kernels-used=");
  return TP_OK;
}

/* Problem i of the caller's array: the descriptors lie struct_size bytes
 * apart, the size of the tp_gemm_desc the caller compiled (the first one's;
 * each must have it). */
static tp_status problem_at(const tp_gemm_desc *descs, size_t i, tp_gemm_desc *problem) {
  uint32_t stride;
  memcpy(&stride, descs, sizeof stride);
  const tp_gemm_desc *d = (const tp_gemm_desc *)((const unsigned char *)descs + i * stride);
  tp_status st = tp_gemm_desc_read(problem, d);
  if (st != TP_OK) return tp_error_wrap(st, "problem %zu", i);
  uint32_t size;
  memcpy(&size, d, sizeof size);
  if (size != stride)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "problem %zu: tp_gemm_desc.struct_size %u differs from problem 0's %u "
                        "(an array holds descriptors of one version)",
                        i, size, stride);
  return TP_OK;
}

static tp_status plan_all(warm *w, tp_registry *registry, const char *payload,
                          const char *epilogue, const tp_gemm_desc *descs, size_t count,
                          const tp_gpu_info *gpu) {
  tp_binding base;
  tp_status st = tp_binding_resolve(&base, registry, payload, epilogue);
  if (st != TP_OK) return st;
  for (size_t i = 0; i < count; i++) {
    tp_gemm_desc problem;
    if ((st = problem_at(descs, i, &problem)) != TP_OK) return st;
    if ((st = plan_one(w, &base, &problem, gpu)) != TP_OK)
      return tp_error_wrap(st, "problem %zu (%lld x %lld x %lld) for %s", i,
                           (long long)problem.m, (long long)problem.n, (long long)problem.k,
                           gpu->name);
  }
  return TP_OK;
}

/* The disk cache off: each kernel through this process's cache. */
static tp_status link_in_memory(warm *w) {
  tp_kernel_cache *cache;
  tp_status st = tp_kernel_cache_global(&cache);
  for (size_t i = 0; st == TP_OK && i < w->count; i++) {
    tp_kernel_cache_stats before, after;
    tp_kernel_cache_stats_get(cache, &before);
    const double t0 = now_s();
    const tp_kernel_entry *entry;
    const tp_status one = tp_kernel_cache_get(cache, &w->links[i].request, &entry);
    tp_kernel_cache_stats_get(cache, &after);
    outcome(w, i, one, after.links > before.links, now_s() - t0,
            one == TP_OK ? "" : tp_error_message());
  }
  return st;
}

/* Reports what the folder holds; the rest goes to the workers. */
static tp_status link_to_disk(warm *w) {
  const char *dir = w->result->cache_dir;
  const tp_link_request **missing = calloc(w->count, sizeof *missing);
  size_t *index = calloc(w->count, sizeof *index);
  if (missing == NULL || index == NULL) {
    free(missing);
    free(index);
    return tp_error_set(TP_ERR_OUT_OF_MEMORY, "out of host memory");
  }
  size_t n = 0;
  for (size_t i = 0; i < w->count; i++) {
    const double t0 = now_s();
    if (tp_kernel_cache_probe(dir, &w->links[i].request) == TP_OK) {
      outcome(w, i, TP_OK, 0, now_s() - t0, "");
    } else {
      index[n] = i;
      missing[n++] = &w->links[i].request;
    }
  }
  pending p = {w, index};
  size_t workers = 0;
  tp_status st = tp_link_workers_fill(dir, missing, n, w->opt.jobs, worker_done, &p, &workers);
  w->result->jobs = (int32_t)workers;
  free(missing);
  free(index);
  return st;
}

tp_status tp_cache_warm(tp_registry *registry, const char *payload, const char *epilogue,
                        const tp_gemm_desc *descs, size_t count, const tp_warm_options *options,
                        tp_warm_result *result) {
  tp_warm_result scratch = {.struct_size = sizeof scratch};
  if (result == NULL) result = &scratch;
  tp_status st = tp_versioned_clear(result, sizeof *result, "tp_warm_result");
  if (st != TP_OK) return tp_error_wrap(st, "warm");
  if (registry == NULL || payload == NULL || epilogue == NULL)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "warm: the registry or a plugin name is NULL");
  if (descs == NULL || count == 0)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "warm: no problems (descs %s, count %zu)",
                        descs ? "given" : "NULL", count);
  warm w = {.result = result};
  tp_gpu_info gpu;
  if ((st = check_options(options, &w.opt)) != TP_OK || (st = target_gpu(&w.opt, &gpu)) != TP_OK ||
      (st = tp_kernel_cache_dir(result->cache_dir, sizeof result->cache_dir)) != TP_OK)
    return tp_error_wrap(st, "warm %s x %s", payload, epilogue);
  w.links = calloc(count, sizeof *w.links);
  w.kernels = calloc(count, sizeof *w.kernels);
  if (w.links == NULL || w.kernels == NULL) {
    st = tp_error_set(TP_ERR_OUT_OF_MEMORY, "out of host memory for %zu problems", count);
  } else if ((st = plan_all(&w, registry, payload, epilogue, descs, count, &gpu)) == TP_OK) {
    result->kernels = (int32_t)w.count;
    st = result->cache_dir[0] == '\0' ? link_in_memory(&w) : link_to_disk(&w);
    if (st == TP_OK && w.first_failure != TP_OK)
      st = tp_error_set(w.first_failure, "%s", w.failure);
  }
  free(w.links);
  free(w.kernels);
  return st == TP_OK ? TP_OK : tp_error_wrap(st, "warm %s x %s", payload, epilogue);
}
