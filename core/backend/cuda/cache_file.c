/* core/backend/cuda/cache_file.c: reading and writing one kernel cache
 * entry. See cache_file.h for the layout and the guarantees.
 *
 * An entry is opened non-blocking and must be a regular file: a FIFO (no
 * writer would block the read forever), a device or a folder in its place
 * is rejected, and relinked over, like a corrupt entry. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/backend/cuda/cache_file.h"
#include "core/file_kind.h"

static const char magic[8] = {'T', 'P', 'K', 'C', 'A', 'C', 'H', 'E'};

/* A cubin or log larger than this is a corrupt size field, not a kernel. */
#define MAX_PART ((uint64_t)1 << 30)

typedef struct header {
  char magic[8];
  uint32_t format;
  uint32_t key_size;
  uint64_t cubin_size;
  uint64_t log_size;
  uint64_t checksum;
} header;
_Static_assert(sizeof(header) == 40, "the entry header has no padding");

uint64_t tp_fnv1a64(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

static int entry_path(char *buf, size_t size, const char *dir, const char *key) {
  return (size_t)snprintf(buf, size, "%s/%s.tpk", dir, key) < size ? 0 : -1;
}

/* Reads exactly n bytes; 0 on success. */
static int read_all(int fd, void *buf, size_t n) {
  unsigned char *p = buf;
  while (n > 0) {
    ssize_t got = read(fd, p, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return -1;
    p += got;
    n -= (size_t)got;
  }
  return 0;
}

static int write_all(int fd, const void *buf, size_t n) {
  const unsigned char *p = buf;
  while (n > 0) {
    ssize_t put = write(fd, p, n);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return -1;
    p += put;
    n -= (size_t)put;
  }
  return 0;
}

/* Checks the header against the file's size and the expected key size;
 * NULL when it holds, else the reason. */
static const char *check_header(const header *h, uint64_t file_size, size_t key_size) {
  if (memcmp(h->magic, magic, sizeof magic) != 0) return "bad magic";
  if (h->format != TP_KERNEL_CACHE_FORMAT) return "other format version (stale)";
  if (h->cubin_size == 0 || h->cubin_size > MAX_PART || h->log_size > MAX_PART ||
      h->key_size > MAX_PART)
    return "corrupt sizes";
  if (file_size != sizeof *h + h->key_size + h->cubin_size + h->log_size)
    return "size does not match its header (truncated?)";
  if (h->key_size != key_size) return "other key (stale)";
  return NULL;
}

tp_cache_file_status tp_cache_file_read(const char *dir, const char *key, const char *key_text,
                                        unsigned char **cubin, size_t *cubin_size, char **log,
                                        char *why, size_t why_size) {
  char path[4096];
  *cubin = NULL;
  *log = NULL;
  if (entry_path(path, sizeof path, dir, key) != 0) {
    snprintf(why, why_size, "path too long");
    return TP_CACHE_FILE_REJECTED;
  }
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return TP_CACHE_FILE_MISSING;
    snprintf(why, why_size, "%s: %s", path, strerror(errno));
    return TP_CACHE_FILE_REJECTED;
  }
  const char *problem = NULL;
  struct stat st;
  header h;
  size_t key_size = strlen(key_text);
  char *stored_key = NULL;
  char odd[64];
  if (fstat(fd, &st) != 0) {
    problem = "cannot stat";
  } else if (*tp_file_kind(st.st_mode)) {
    snprintf(odd, sizeof odd, "%s, not a regular file", tp_file_kind(st.st_mode));
    problem = odd;
  } else if (read_all(fd, &h, sizeof h) != 0) {
    problem = "unreadable or shorter than its header";
  } else if ((problem = check_header(&h, (uint64_t)st.st_size, key_size)) == NULL) {
    stored_key = malloc(key_size + 1);
    *cubin = malloc(h.cubin_size);
    *log = malloc(h.log_size + 1);
    if (!stored_key || !*cubin || !*log)
      problem = "out of memory";
    else if (read_all(fd, stored_key, key_size) != 0 || read_all(fd, *cubin, h.cubin_size) != 0 ||
             read_all(fd, *log, h.log_size) != 0)
      problem = "read failed";
    else if (memcmp(stored_key, key_text, key_size) != 0)
      problem = "other key (stale)";
    else if (tp_fnv1a64(tp_fnv1a64(TP_FNV1A64_INIT, *cubin, h.cubin_size), *log, h.log_size) !=
             h.checksum)
      problem = "checksum mismatch";
  }
  close(fd);
  free(stored_key);
  if (problem) {
    free(*cubin);
    free(*log);
    *cubin = NULL;
    *log = NULL;
    snprintf(why, why_size, "%s: %s", path, problem);
    return TP_CACHE_FILE_REJECTED;
  }
  (*log)[h.log_size] = '\0';
  *cubin_size = h.cubin_size;
  return TP_CACHE_FILE_HIT;
}

/* mkdir -p, for the cache folder and its parents. */
static int make_dirs(const char *dir) {
  char path[4096];
  if ((size_t)snprintf(path, sizeof path, "%s", dir) >= sizeof path) return -1;
  for (char *p = path + 1;; p++) {
    if (*p != '/' && *p != '\0') continue;
    char c = *p;
    *p = '\0';
    if (mkdir(path, 0777) != 0 && errno != EEXIST) return -1;
    *p = c;
    if (c == '\0') return 0;
  }
}

int tp_cache_file_write(const char *dir, const char *key, const char *key_text,
                        const unsigned char *cubin, size_t cubin_size, const char *log, char *why,
                        size_t why_size) {
  char path[4096], temp[4096];
  if (entry_path(path, sizeof path, dir, key) != 0 ||
      (size_t)snprintf(temp, sizeof temp, "%s/.%s.XXXXXX", dir, key) >= sizeof temp) {
    snprintf(why, why_size, "path too long");
    return -1;
  }
  if (make_dirs(dir) != 0) {
    snprintf(why, why_size, "cannot create %s: %s", dir, strerror(errno));
    return -1;
  }
  int fd = mkstemp(temp);
  if (fd < 0) {
    snprintf(why, why_size, "cannot create a file in %s: %s", dir, strerror(errno));
    return -1;
  }
  size_t log_size = strlen(log);
  header h;
  memcpy(h.magic, magic, sizeof magic);
  h.format = TP_KERNEL_CACHE_FORMAT;
  h.key_size = (uint32_t)strlen(key_text);
  h.cubin_size = cubin_size;
  h.log_size = log_size;
  h.checksum = tp_fnv1a64(tp_fnv1a64(TP_FNV1A64_INIT, cubin, cubin_size), log, log_size);
  int failed = write_all(fd, &h, sizeof h) != 0 || write_all(fd, key_text, h.key_size) != 0 ||
               write_all(fd, cubin, cubin_size) != 0 || write_all(fd, log, log_size) != 0 ||
               fsync(fd) != 0;
  int saved = errno;
  if (close(fd) != 0 && !failed) {
    failed = 1;
    saved = errno;
  }
  /* rename() replaces any entry atomically; losing a race to another
   * process writing the same key leaves an equally good entry. */
  if (!failed && rename(temp, path) != 0) {
    failed = 1;
    saved = errno;
  }
  if (failed) {
    unlink(temp);
    snprintf(why, why_size, "cannot write %s: %s", path, strerror(saved));
    return -1;
  }
  return 0;
}
