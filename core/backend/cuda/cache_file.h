/* core/backend/cuda/cache_file.h: one on-disk kernel cache entry.
 *
 * <dir>/<key>.tpk holds, in host (little-endian) order:
 *
 *   "TPKCACHE"  u32 format  u32 key_size  u64 cubin_size  u64 log_size
 *   u64 checksum (FNV-1a 64 over cubin then log)
 *   key text (key_size bytes)  cubin  info log (log_size bytes, no NUL)
 *
 * and its size is exactly the sum, so a truncated or padded file is caught
 * before anything is trusted. Writes go to a unique temporary file in the
 * same folder, are fsync'ed and renamed over the entry: a reader sees the
 * old entry or the new one, never part of one. Nothing here sets the
 * thread's error message: the cache is an optimisation, and its failures
 * come back as a reason for the debug log. Internal to libtilepipe. */
#ifndef TP_CORE_BACKEND_CUDA_CACHE_FILE_H
#define TP_CORE_BACKEND_CUDA_CACHE_FILE_H

#include <stddef.h>
#include <stdint.h>

/* Bump when the entry layout, the key text (kernel_cache.c) or the link's
 * fixed options (nvjitlink.c) change: older entries then read as stale. It
 * is also part of every key text. */
#define TP_KERNEL_CACHE_FORMAT 2

#define TP_FNV1A64_INIT UINT64_C(0xcbf29ce484222325)

/* Continues the FNV-1a 64 hash h over n bytes. */
uint64_t tp_fnv1a64(uint64_t h, const void *data, size_t n);

typedef enum tp_cache_file_status {
  TP_CACHE_FILE_HIT = 0,
  TP_CACHE_FILE_MISSING,  /* no entry (or the folder does not exist) */
  TP_CACHE_FILE_REJECTED, /* unreadable, corrupt, or another key's: why says which */
} tp_cache_file_status;

/* Reads the entry for key and checks it against key_text. On a hit *cubin
 * and *log (NUL-terminated) are the caller's to free. */
tp_cache_file_status tp_cache_file_read(const char *dir, const char *key, const char *key_text,
                                        unsigned char **cubin, size_t *cubin_size, char **log,
                                        char *why, size_t why_size);

/* Writes the entry, creating dir (and its parents) as needed. 0 on success;
 * -1 with the reason in why. */
int tp_cache_file_write(const char *dir, const char *key, const char *key_text,
                        const unsigned char *cubin, size_t cubin_size, const char *log, char *why,
                        size_t why_size);

#endif
