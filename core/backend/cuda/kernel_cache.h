/* core/backend/cuda/kernel_cache.h: linked kernels, kept in memory for the
 * process and on disk across processes.
 *
 * tp_kernel_cache_get() answers a link request from memory, else from the
 * disk, else by linking (nvjitlink.h) and checking the ptxas report
 * (link_log.h); a kernel whose report fails the check is never cached. The
 * key is a 64-bit FNV-1a hash over a key text that names what the cubin is
 * made of: each input's size and hash, the arch, the extra options, the
 * nvJitLink major tilepipe is built for and the cache format version. The
 * disk entry stores the full key text, so a hash collision reads as a stale
 * entry, never as a wrong kernel.
 *
 * The key names no machine: an entry linked without a GPU (`tilepipe link`,
 * `tilepipe warm` on a build machine) is the one a plan on the GPU reads.
 * It names no driver (the driver loads a cubin, it does not shape it) and
 * only the nvJitLink major, which tilepipe knows without opening nvJitLink,
 * so a lookup never opens it (6 ms): every entry passed the ptxas check when
 * it was linked, and a newer minor of nvJitLink only relinks once the
 * folder is cleared.
 *
 * Disk entries live in $TILEPIPE_CACHE_DIR, else $XDG_CACHE_HOME/tilepipe,
 * else $HOME/.cache/tilepipe; TILEPIPE_CACHE_DIR=off keeps the cache in
 * memory only. An entry is written atomically (a unique temporary file in
 * the same folder, fsync, rename), so readers never see half an entry and
 * concurrent writers of one key are harmless. A corrupt (bad magic,
 * checksum or size) or stale (other key text) entry is reported at debug
 * level ($TILEPIPE_LOG=debug), relinked and rewritten. A disk that cannot be
 * written only costs the next process a link.
 *
 * Entries stay valid, at the same address, until the cache is destroyed;
 * the process cache (tp_kernel_cache_global) never is. All functions are
 * thread-safe. Internal to libtilepipe. */
#ifndef TP_CORE_BACKEND_CUDA_KERNEL_CACHE_H
#define TP_CORE_BACKEND_CUDA_KERNEL_CACHE_H

#include <stddef.h>
#include "core/backend/cuda/nvjitlink.h"
#include "tilepipe/status.h"

/* Everything a link depends on. */
typedef struct tp_link_request {
  const tp_jit_input *inputs;
  size_t num_inputs;
  const char *arch;            /* "sm_90a" */
  const char *const *options;  /* extra nvJitLink options; may be NULL if num_options is 0 */
  size_t num_options;
} tp_link_request;

/* Where an entry came from, for tests and reports. */
typedef enum tp_kernel_source {
  TP_KERNEL_FROM_LINK = 0,
  TP_KERNEL_FROM_DISK,
} tp_kernel_source;

typedef struct tp_kernel_entry {
  char key[17];                /* the hash as 16 hex digits, the disk entry's name */
  const char *key_text;
  const unsigned char *cubin;
  size_t cubin_size;
  const char *info_log;        /* the link's ptxas report (checked clean) */
  tp_kernel_source source;
} tp_kernel_entry;

typedef struct tp_kernel_cache_stats {
  unsigned long memory_hits;
  unsigned long disk_hits;
  unsigned long links;         /* successful links */
  unsigned long disk_rejects;  /* corrupt or stale entries found on disk */
  unsigned long disk_writes;
} tp_kernel_cache_stats;

typedef struct tp_kernel_cache tp_kernel_cache;

/* A cache whose disk entries live in dir (created when first written; NULL:
 * memory only). */
tp_status tp_kernel_cache_create(tp_kernel_cache **cache, const char *dir);

/* Frees the entries after releasing what tp_kernel_cache_attach() loaded.
 * NULL is a no-op. */
void tp_kernel_cache_destroy(tp_kernel_cache *cache);

/* The process's cache, created on first use from the environment (above). */
tp_status tp_kernel_cache_global(tp_kernel_cache **cache);

/* The disk folder the environment names, into buf; "" when the disk cache
 * is off or no variable names one. TP_ERR_INVALID_ARGUMENT if it does not fit. */
tp_status tp_kernel_cache_dir(char *buf, size_t size);

/* The entry for request: from memory, disk, or a fresh link. A failed link
 * or log check returns its status and message and caches nothing. */
tp_status tp_kernel_cache_get(tp_kernel_cache *cache, const tp_link_request *request,
                              const tp_kernel_entry **entry);

/* What the caller keeps per entry (the backend: the loaded CUlibrary),
 * without this file knowing what it is. The first call for an entry runs
 * load() under the cache's lock and keeps its handle; later calls return
 * that handle. unload() runs when the cache is destroyed. */
typedef tp_status (*tp_kernel_load_fn)(const tp_kernel_entry *entry, void **handle);
typedef void (*tp_kernel_unload_fn)(void *handle);
tp_status tp_kernel_cache_attach(tp_kernel_cache *cache, const tp_kernel_entry *entry,
                                 tp_kernel_load_fn load, tp_kernel_unload_fn unload,
                                 void **handle);

void tp_kernel_cache_stats_get(tp_kernel_cache *cache, tp_kernel_cache_stats *stats);

/* For filling the disk folder dir ahead of plans (tp_cache_warm), with no
 * cache in memory. tp_kernel_cache_probe: TP_OK when dir holds a sound entry
 * for request, else TP_ERR_NOT_FOUND (the message says why: missing,
 * corrupt or stale). tp_kernel_cache_fill: the same check, then, when it
 * fails, the link with its ptxas report checked and the entry written;
 * *linked says which happened. A link or log failure returns its status;
 * an entry that cannot be written is TP_ERR_IO, naming the file and the
 * system's reason. */
tp_status tp_kernel_cache_probe(const char *dir, const tp_link_request *request);
tp_status tp_kernel_cache_fill(const char *dir, const tp_link_request *request, int *linked);

#endif
