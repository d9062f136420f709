/* core/backend/cuda/kernel_cache.c: the in-memory list of linked kernels in
 * front of the disk entries of cache_file.c. See kernel_cache.h.
 *
 * The lock guards the list, the stats and the attached handles, never a link
 * or file I/O: two threads missing the same key may both link it, and the
 * second to finish keeps the first one's entry and drops its own. */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend/cuda/cache_file.h"
#include "core/backend/cuda/kernel_cache.h"
#include "core/backend/cuda/link_log.h"
#include "core/backend/cuda/once.h"
#include "core/error.h"
#include "core/registry/host_api.h"

typedef struct node {
  tp_kernel_entry entry; /* points into the buffers below */
  char *key_text;
  unsigned char *cubin;
  char *info_log;
  int loaded;            /* attach() ran load() successfully */
  void *handle;
  tp_kernel_unload_fn unload;
  struct node *next;
} node;

struct tp_kernel_cache {
  pthread_mutex_t lock;
  char *dir; /* NULL: memory only */
  node *head;
  tp_kernel_cache_stats stats;
};

/* Through the core's log ($TILEPIPE_LOG), which plugins use too. */
static void debug(const char *fmt, ...) TP_PRINTF(1, 2);
static void debug(const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  tp_host_api_get()->log(TP_LOG_DEBUG, "kernel-cache", line);
}

/* ------------------------------------------------------------------ keys */

static int has_newline(const char *s) { return strchr(s, '\n') != NULL; }

static tp_status check_request(const tp_link_request *r) {
  if (!r->inputs || r->num_inputs == 0)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "kernel cache: the link request has no inputs");
  for (size_t i = 0; i < r->num_inputs; i++)
    if (!r->inputs[i].data || r->inputs[i].size == 0 || !r->inputs[i].name)
      return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                          "kernel cache: link input %zu has no data, a zero size or no name", i);
  if (!r->arch || !*r->arch || has_newline(r->arch))
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "kernel cache: missing or malformed arch");
  if (r->num_options > 0 && !r->options)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "kernel cache: %zu options but no array",
                        r->num_options);
  for (size_t i = 0; i < r->num_options; i++)
    if (!r->options[i] || has_newline(r->options[i]))
      return tp_error_set(TP_ERR_INVALID_ARGUMENT, "kernel cache: option %zu is NULL or malformed",
                          i);
  return TP_OK;
}

/* The key text of a request (the caller frees it) and its hash in hex. One
 * line per dependency; inputs by size and content hash, not by name, which
 * only labels messages. */
static tp_status make_key(const tp_link_request *r, char **text, char key[17]) {
  tp_status st = check_request(r);
  if (st != TP_OK) return st;
  size_t len = 0;
  *text = NULL;
  FILE *f = open_memstream(text, &len);
  if (!f) return tp_error_set(TP_ERR_OUT_OF_MEMORY, "kernel cache: out of memory");
  fprintf(f, "tilepipe kernel cache format %d\narch %s\nnvjitlink %u\n", TP_KERNEL_CACHE_FORMAT,
          r->arch, tp_jit_abi_major());
  for (size_t i = 0; i < r->num_options; i++) fprintf(f, "option %s\n", r->options[i]);
  for (size_t i = 0; i < r->num_inputs; i++)
    fprintf(f, "input %zu %016llx\n", r->inputs[i].size,
            (unsigned long long)tp_fnv1a64(TP_FNV1A64_INIT, r->inputs[i].data, r->inputs[i].size));
  if (fclose(f) != 0 || !*text) {
    free(*text);
    *text = NULL;
    return tp_error_set(TP_ERR_OUT_OF_MEMORY, "kernel cache: out of memory");
  }
  snprintf(key, 17, "%016llx", (unsigned long long)tp_fnv1a64(TP_FNV1A64_INIT, *text, len));
  return TP_OK;
}

/* ----------------------------------------------------------------- nodes */

/* Takes ownership of the three buffers. */
static node *node_new(const char key[17], char *key_text, unsigned char *cubin, size_t cubin_size,
                      char *info_log, tp_kernel_source source) {
  node *n = calloc(1, sizeof *n);
  if (!n) return NULL;
  memcpy(n->entry.key, key, 17);
  n->key_text = key_text;
  n->cubin = cubin;
  n->info_log = info_log;
  n->entry.key_text = key_text;
  n->entry.cubin = cubin;
  n->entry.cubin_size = cubin_size;
  n->entry.info_log = info_log;
  n->entry.source = source;
  return n;
}

static void node_free(node *n) {
  if (n->loaded && n->unload) n->unload(n->handle);
  free(n->key_text);
  free(n->cubin);
  free(n->info_log);
  free(n);
}

static node *find_locked(const tp_kernel_cache *c, const char *key_text) {
  for (node *n = c->head; n; n = n->next)
    if (strcmp(n->key_text, key_text) == 0) return n;
  return NULL;
}

/* --------------------------------------------------------------- the cache */

tp_status tp_kernel_cache_create(tp_kernel_cache **cache, const char *dir) {
  if (!cache) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_kernel_cache_create: cache is NULL");
  *cache = NULL;
  if (dir && !*dir)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_kernel_cache_create: empty folder name");
  tp_kernel_cache *c = calloc(1, sizeof *c);
  if (!c || (dir && !(c->dir = strdup(dir)))) {
    free(c);
    return tp_error_set(TP_ERR_OUT_OF_MEMORY, "tp_kernel_cache_create: out of memory");
  }
  if (pthread_mutex_init(&c->lock, NULL) != 0) {
    free(c->dir);
    free(c);
    return tp_error_set(TP_ERR_INTERNAL, "tp_kernel_cache_create: pthread_mutex_init failed");
  }
  *cache = c;
  return TP_OK;
}

void tp_kernel_cache_destroy(tp_kernel_cache *cache) {
  if (!cache) return;
  for (node *n = cache->head, *next; n; n = next) {
    next = n->next;
    node_free(n);
  }
  pthread_mutex_destroy(&cache->lock);
  free(cache->dir);
  free(cache);
}

tp_status tp_kernel_cache_dir(char *buf, size_t size) {
  if (!buf || size == 0)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_kernel_cache_dir: no buffer");
  const char *env = getenv("TILEPIPE_CACHE_DIR");
  const char *xdg = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  int n;
  if (env && *env)
    n = snprintf(buf, size, "%s", strcmp(env, "off") == 0 ? "" : env);
  else if (xdg && xdg[0] == '/') /* the XDG spec says to ignore relative paths */
    n = snprintf(buf, size, "%s/tilepipe", xdg);
  else if (home && *home)
    n = snprintf(buf, size, "%s/.cache/tilepipe", home);
  else
    n = snprintf(buf, size, "%s", "");
  if (n < 0 || (size_t)n >= size) {
    buf[0] = '\0';
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "kernel cache: the cache folder path is too long");
  }
  return TP_OK;
}

static tp_kernel_cache *global_cache;
static tp_once_result global_result;
static pthread_once_t global_once = PTHREAD_ONCE_INIT;

static tp_status create_global(void) {
  char dir[4096];
  tp_status st = tp_kernel_cache_dir(dir, sizeof dir);
  return st != TP_OK ? st : tp_kernel_cache_create(&global_cache, *dir ? dir : NULL);
}

static void create_global_once(void) { tp_once_record(&global_result, create_global()); }

tp_status tp_kernel_cache_global(tp_kernel_cache **cache) {
  if (!cache) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_kernel_cache_global: cache is NULL");
  pthread_once(&global_once, create_global_once);
  *cache = global_cache;
  return tp_once_replay(&global_result);
}

/* The disk's answer for key, or NULL (a miss or a rejected entry). */
static node *from_disk(tp_kernel_cache *c, const char key[17], const char *key_text,
                       int *rejected) {
  unsigned char *cubin;
  size_t size;
  char *log, why[512];
  switch (tp_cache_file_read(c->dir, key, key_text, &cubin, &size, &log, why, sizeof why)) {
  case TP_CACHE_FILE_HIT: {
    char *text = strdup(key_text);
    node *n = text ? node_new(key, text, cubin, size, log, TP_KERNEL_FROM_DISK) : NULL;
    if (!n) {
      free(text);
      free(cubin);
      free(log);
    }
    return n;
  }
  case TP_CACHE_FILE_REJECTED:
    *rejected = 1;
    debug("rejected %s; relinking", why);
    return NULL;
  case TP_CACHE_FILE_MISSING: break;
  }
  return NULL;
}

/* The link of r with its ptxas report checked; on failure res is freed. */
static tp_status link_checked(const tp_link_request *r, tp_jit_result *res) {
  tp_status st = tp_jit_link(r->inputs, r->num_inputs, r->arch, r->options, r->num_options, res);
  if (st == TP_OK) st = tp_link_log_check(res->info_log);
  if (st != TP_OK) tp_jit_result_free(res);
  return st;
}

/* Links, checks the ptxas report, and writes the disk entry. */
static tp_status from_link(tp_kernel_cache *c, const tp_link_request *r, const char key[17],
                           char *key_text, node **out, int *written) {
  tp_jit_result res;
  tp_status st = link_checked(r, &res);
  if (st != TP_OK) return st;
  char why[512];
  if (c->dir && tp_cache_file_write(c->dir, key, key_text, res.cubin, res.cubin_size,
                                    res.info_log, why, sizeof why) == 0)
    *written = 1;
  else if (c->dir)
    debug("not saved: %s", why);
  *out = node_new(key, key_text, res.cubin, res.cubin_size, res.info_log, TP_KERNEL_FROM_LINK);
  if (!*out) {
    tp_jit_result_free(&res);
    return tp_error_set(TP_ERR_OUT_OF_MEMORY, "kernel cache: out of memory");
  }
  free(res.error_log);
  return TP_OK;
}

tp_status tp_kernel_cache_get(tp_kernel_cache *cache, const tp_link_request *request,
                              const tp_kernel_entry **entry) {
  if (!cache || !request || !entry)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_kernel_cache_get: NULL argument");
  *entry = NULL;
  char *key_text, key[17];
  tp_status st = make_key(request, &key_text, key);
  if (st != TP_OK) return st;

  pthread_mutex_lock(&cache->lock);
  node *found = find_locked(cache, key_text);
  if (found) cache->stats.memory_hits++;
  pthread_mutex_unlock(&cache->lock);
  if (found) {
    free(key_text);
    *entry = &found->entry;
    return TP_OK;
  }

  int rejected = 0, written = 0;
  node *fresh = cache->dir ? from_disk(cache, key, key_text, &rejected) : NULL;
  if (fresh) {
    free(key_text);
  } else if ((st = from_link(cache, request, key, key_text, &fresh, &written)) != TP_OK) {
    free(key_text);
    return st;
  }

  pthread_mutex_lock(&cache->lock);
  cache->stats.disk_rejects += (unsigned long)rejected;
  cache->stats.disk_writes += (unsigned long)written;
  if (fresh->entry.source == TP_KERNEL_FROM_DISK)
    cache->stats.disk_hits++;
  else
    cache->stats.links++;
  found = find_locked(cache, fresh->key_text);
  if (!found) {
    fresh->next = cache->head;
    cache->head = fresh;
    found = fresh;
    fresh = NULL;
  }
  pthread_mutex_unlock(&cache->lock);
  if (fresh) node_free(fresh); /* another thread got there first */
  *entry = &found->entry;
  return TP_OK;
}

tp_status tp_kernel_cache_attach(tp_kernel_cache *cache, const tp_kernel_entry *entry,
                                 tp_kernel_load_fn load, tp_kernel_unload_fn unload,
                                 void **handle) {
  if (!cache || !entry || !load || !handle)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_kernel_cache_attach: NULL argument");
  tp_status st = TP_OK;
  pthread_mutex_lock(&cache->lock);
  node *n = cache->head;
  while (n && &n->entry != entry) n = n->next;
  if (!n) {
    st = tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_kernel_cache_attach: entry not in this cache");
  } else if (!n->loaded && (st = load(entry, &n->handle)) == TP_OK) {
    n->loaded = 1;
    n->unload = unload;
  }
  *handle = st == TP_OK ? n->handle : NULL;
  pthread_mutex_unlock(&cache->lock);
  return st;
}

void tp_kernel_cache_stats_get(tp_kernel_cache *cache, tp_kernel_cache_stats *stats) {
  if (!cache || !stats) return;
  pthread_mutex_lock(&cache->lock);
  *stats = cache->stats;
  pthread_mutex_unlock(&cache->lock);
}

/* ------------------------------------------------------ filling the disk */

/* TP_OK when dir holds a sound entry for key; else TP_ERR_NOT_FOUND saying
 * why. */
static tp_status probe(const char *dir, const char key[17], const char *key_text) {
  unsigned char *cubin;
  size_t size;
  char *log, why[512];
  switch (tp_cache_file_read(dir, key, key_text, &cubin, &size, &log, why, sizeof why)) {
  case TP_CACHE_FILE_HIT:
    free(cubin);
    free(log);
    return TP_OK;
  case TP_CACHE_FILE_REJECTED:
    return tp_error_set(TP_ERR_NOT_FOUND, "kernel cache: rejected %s", why);
  case TP_CACHE_FILE_MISSING: break;
  }
  return tp_error_set(TP_ERR_NOT_FOUND, "kernel cache: no entry %s.tpk in %s", key, dir);
}

static tp_status check_dir(const char *dir) {
  return dir && *dir ? TP_OK
                     : tp_error_set(TP_ERR_INVALID_ARGUMENT, "kernel cache: no disk folder");
}

tp_status tp_kernel_cache_probe(const char *dir, const tp_link_request *request) {
  char *key_text, key[17];
  tp_status st = request ? check_dir(dir)
                         : tp_error_set(TP_ERR_INVALID_ARGUMENT, "kernel cache: no request");
  if (st != TP_OK || (st = make_key(request, &key_text, key)) != TP_OK) return st;
  st = probe(dir, key, key_text);
  free(key_text);
  return st;
}

tp_status tp_kernel_cache_fill(const char *dir, const tp_link_request *request, int *linked) {
  char *key_text, key[17];
  tp_status st = request && linked
                     ? check_dir(dir)
                     : tp_error_set(TP_ERR_INVALID_ARGUMENT, "kernel cache: NULL argument");
  if (st != TP_OK || (st = make_key(request, &key_text, key)) != TP_OK) return st;
  *linked = 0;
  if (probe(dir, key, key_text) == TP_OK) {
    free(key_text);
    return TP_OK;
  }
  debug("%s; linking", tp_error_message());
  tp_jit_result res;
  char why[512];
  if ((st = link_checked(request, &res)) == TP_OK) {
    if (tp_cache_file_write(dir, key, key_text, res.cubin, res.cubin_size, res.info_log, why,
                            sizeof why) == 0)
      *linked = 1;
    else
      st = tp_error_set(TP_ERR_IO, "kernel cache: linked, but %s", why);
    tp_jit_result_free(&res);
  }
  free(key_text);
  return st;
}
