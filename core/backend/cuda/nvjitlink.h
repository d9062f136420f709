/* core/backend/cuda/nvjitlink.h: device-code linking with nvJitLink, reached
 * through dlopen.
 *
 * tp_jit_link() links LTO-IR inputs (fatbins from nvcc -dc -fatbin
 * -gencode arch=compute_90a,code=lto_90a, or raw LTO-IR) into one cubin. It
 * always passes -lto, -arch=<arch>, -Xptxas=-v and -no-cache, so the info
 * log of every link carries ptxas's register, stack and spill report for
 * link_log.h to check. Linking needs no GPU and no driver: CI runs it.
 *
 * The library is the nvJitLink of the toolkit major we were built with:
 * $TILEPIPE_NVJITLINK when set (and then only that file), else
 * libnvJitLink.so.<major> from the loader's path, else the one under the
 * toolkit configure found. It is opened once per process and never closed.
 * Thread-safe; links run one at a time.
 *
 * Built without the CUDA toolkit, the functions that link or load return
 * TP_ERR_UNSUPPORTED, and tp_jit_fork does not exist. Internal to
 * libtilepipe. */
#ifndef TP_CORE_BACKEND_CUDA_NVJITLINK_H
#define TP_CORE_BACKEND_CUDA_NVJITLINK_H

#include <stddef.h>
#include <sys/types.h>
#include "config.h"
#include "tilepipe/status.h"

/* One link input; name appears in nvJitLink's messages. */
typedef struct tp_jit_input {
  const void *data;
  size_t size;
  const char *name;
} tp_jit_input;

/* What a link produced. Every pointer is NULL or owned by the result;
 * tp_jit_result_free() releases them. */
typedef struct tp_jit_result {
  unsigned char *cubin; /* NULL when the link failed */
  size_t cubin_size;
  char *info_log;       /* ptxas -v report and warnings; "" when empty */
  char *error_log;      /* why the link failed; "" when it did not */
} tp_jit_result;

/* Links inputs for arch ("sm_90a") with the extra options (may be NULL when
 * num_options is 0). *out is always initialised, so the caller frees it on
 * every path: on failure it still holds the logs. TP_ERR_LINK names the
 * failing step and quotes the error log; TP_ERR_NOT_FOUND: no nvJitLink. */
tp_status tp_jit_link(const tp_jit_input *inputs, size_t num_inputs, const char *arch,
                      const char *const *options, size_t num_options, tp_jit_result *out);

void tp_jit_result_free(tp_jit_result *result);

/* The version of the nvJitLink that tp_jit_link() uses (loads it). */
tp_status tp_jit_version(unsigned *major, unsigned *minor);

/* The nvJitLink major tilepipe is built for, whose versioned entry points
 * it calls (13 for CUDA 13.x), without opening the library: a cache lookup
 * needs no nvJitLink. 0 when built without the CUDA toolkit. */
unsigned tp_jit_abi_major(void);

#if TP_HAVE_CUDA
/* fork(), with no link of this process in flight: it holds the link lock
 * across the fork, so the child starts with the lock free and nvJitLink
 * idle and may link (tp_cache_warm's workers). Open nvJitLink first
 * (tp_jit_version) so that the child does not have to. Returns what fork()
 * returns. */
pid_t tp_jit_fork(void);
#endif

#endif
