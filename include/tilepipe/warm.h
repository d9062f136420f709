/* tilepipe/warm.h: a service's kernels linked before its traffic.
 *
 * A CUDA plan links its kernel the first time any process creates it
 * (nvJitLink and ptxas, about a second of one core per kernel) and keeps it
 * in the on-disk kernel cache ($TILEPIPE_CACHE_DIR, else
 * $XDG_CACHE_HOME/tilepipe, else ~/.cache/tilepipe), from which every later
 * plan of that kernel, in any process, loads it in milliseconds.
 * tp_cache_warm pays the links ahead of time: it plans each problem as
 * tp_plan_create would on the target GPU (the generic checks, both plugins'
 * plan slots, the payload's gpu_plan for the target's figures), keeps the
 * distinct kernels, and links those the cache does not hold yet, several
 * at a time in worker processes, into the cache. It needs no GPU: linking
 * needs only nvJitLink, so a build machine can warm the cache that GPU
 * machines then read (the entries name no machine, tilepipe/link.h).
 *
 * The target: options->target, the figures of a named model
 * (tp_link_target_lookup) or any filled tp_link_target; NULL takes them
 * from the GPU the calling thread works on (tp_link_target_detect), and without one
 * the call fails. A plan picks its kernel from those figures alone, so a
 * warm for a model picks what plans on a GPU of that model pick.
 *
 * Workers: options->jobs links at a time (0: one per online CPU). Each
 * worker is a process forked from the caller that only links and writes
 * cache entries (it never touches CUDA, the caller's memory cache or
 * anything its other threads hold) and ends with _exit. With one job, one
 * kernel to link, or the disk cache off ($TILEPIPE_CACHE_DIR=off: the
 * kernels are linked into this process's memory cache, serially), no
 * process is forked. */
#ifndef TILEPIPE_WARM_H
#define TILEPIPE_WARM_H

#include <stddef.h>
#include <stdint.h>
#include "tilepipe/gemm.h"
#include "tilepipe/link.h"
#include "tilepipe/registry.h"
#include "tilepipe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What became of one kernel. */
typedef enum tp_warm_outcome {
  TP_WARM_CACHED = 0, /* the cache held it already */
  TP_WARM_LINKED,     /* linked now, its ptxas report checked, and cached */
  TP_WARM_FAILED      /* the link or its check failed, or the entry could not be written */
} tp_warm_outcome;

/* Called on the caller's thread once per distinct kernel, as its outcome
 * is known. seconds: the time spent on it (the link, or reading the
 * entry); message: "" unless it failed. */
typedef void (*tp_warm_progress_fn)(void *context, const char *kernel, tp_warm_outcome outcome,
                                    double seconds, const char *message);

/* Versioned by its first field, as tilepipe/link.h's structs: set
 * struct_size to sizeof the struct as you compiled it. */
typedef struct tp_warm_options {
  uint32_t struct_size;
  const tp_link_target *target; /* NULL: the GPU the calling thread works on */
  int32_t jobs;                 /* links at a time, 1..1024; 0: one per online CPU */
  tp_warm_progress_fn progress; /* may be NULL */
  void *progress_context;
} tp_warm_options;

/* Filled in as tp_link_result is (the library zeroes struct_size bytes). */
typedef struct tp_warm_result {
  uint32_t struct_size;
  int32_t kernels;      /* distinct kernels the problems need */
  int32_t cached, linked, failed;
  int32_t jobs;         /* worker processes used (0: linked in this process) */
  char cache_dir[4096]; /* where the entries are; "" when the disk cache is off */
} tp_warm_result;

/* Links the kernels of payload x epilogue for descs[0 .. count) (their data
 * pointers are never read) into the kernel cache. descs is an array of the
 * tp_gemm_desc you compiled, each from tp_gemm_desc_init: the library steps
 * through it by the first one's struct_size, and refuses an element whose
 * struct_size differs (the message names its index). options may be NULL (the
 * device's figures, one job per CPU, no progress); result may be NULL.
 * Every problem is planned before anything is linked: a problem the pair
 * or the target refuses fails the call at once, its message naming the
 * problem's index and shape. Otherwise every kernel is tried; TP_OK when
 * each is cached or linked, else the first failure's status, the message
 * naming its kernel (result->failed counts them). TP_ERR_NO_DEVICE when
 * tilepipe was built without the CUDA toolkit, or options->target is NULL
 * and there is no GPU. */
tp_status tp_cache_warm(tp_registry *registry, const char *payload, const char *epilogue,
                        const tp_gemm_desc *descs, size_t count, const tp_warm_options *options,
                        tp_warm_result *result);

#ifdef __cplusplus
}
#endif
#endif
