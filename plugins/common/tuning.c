/* plugins/common/tuning.c: see tuning.h. Values are parsed strictly: decimal
 * digits separated by 'x', nothing else (inih has trimmed the blanks). */
#include <stdlib.h>
#include <string.h>

#include "plugins/common/errmsg.h"
#include "plugins/common/tuning.h"
#include "tilepipe/kernel/shape.h"

#define TPC_MAX_STAGES 16
#define TPC_MAX_CLUSTER 8

tp_status tpc_tuning_create(void **state, int32_t only_tile_k, char *err, size_t errlen) {
  tpc_tuning *t = calloc(1, sizeof *t);
  if (t == NULL)
    return tpc_fail(err, errlen, TP_ERR_OUT_OF_MEMORY, "out of host memory");
  t->only_tile_k = only_tile_k;
  *state = t;
  return TP_OK;
}

tp_status tpc_tuning_init(const tp_host_api *host, void **state, char *err, size_t errlen) {
  (void)host;
  return tpc_tuning_create(state, 0, err, errlen);
}

void tpc_tuning_fini(void *state) { free(state); }

/* Parses exactly `count` numbers 1..99999 joined by 'x'; 0 on any other text. */
static int parse_dims(const char *s, int32_t *dims, int count) {
  for (int i = 0; i < count; i++) {
    int32_t v = 0;
    int digits = 0;
    for (; *s >= '0' && *s <= '9'; s++, digits++) {
      if (digits == 5)
        return 0;
      v = v * 10 + (*s - '0');
    }
    if (digits == 0 || v == 0)
      return 0;
    dims[i] = v;
    if (*s != (i + 1 < count ? 'x' : '\0'))
      return 0;
    s++;
  }
  return 1;
}

static int is_pow2(int32_t v) { return v > 0 && (v & (v - 1)) == 0; }

/* tile M must give each consumer warpgroup whole 64-row wgmma blocks. */
static tp_status check_m_vs_consumers(const tpc_tuning *t, char *err, size_t errlen) {
  const tp_kernel_tuning *k = &t->kernel;
  if (k->tile_m != 0 && k->consumers != 0 &&
      k->tile_m % (TP_KERNEL_WARPGROUP_ROWS * k->consumers) != 0)
    return tpc_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                    "tile M %d does not split into %d consumers of whole 64-row blocks (M must be "
                    "a multiple of %d)",
                    k->tile_m, k->consumers, TP_KERNEL_WARPGROUP_ROWS * k->consumers);
  return TP_OK;
}

static tp_status set_tile(tpc_tuning *t, const char *v, char *err, size_t errlen) {
  int32_t d[3];
  if (!parse_dims(v, d, 3))
    return tpc_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                    "tile '%s' is not MxNxK (e.g. 128x128x64)", v);
  if (d[0] % TP_KERNEL_WARPGROUP_ROWS != 0 || d[0] > 256)
    return tpc_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                    "tile '%s': M must be 64, 128, 192 or 256", v);
  if (d[1] % 16 != 0 || d[1] > 256)
    return tpc_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                    "tile '%s': N must be a multiple of 16 in 16..256", v);
  if (!is_pow2(d[2]) || d[2] < 32 || d[2] > 256)
    return tpc_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                    "tile '%s': K must be 32, 64, 128 or 256", v);
  if (t->only_tile_k != 0 && d[2] != t->only_tile_k)
    return tpc_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                    "tile '%s': K must be %d (one scale per k-block)", v, t->only_tile_k);
  tpc_tuning next = *t;
  next.kernel.tile_m = d[0];
  next.kernel.tile_n = d[1];
  next.kernel.tile_k = d[2];
  tp_status st = check_m_vs_consumers(&next, err, errlen);
  if (st == TP_OK)
    *t = next;
  return st;
}

/* A count key: `value` must be 1..max; into *out. */
static tp_status set_count(const char *key, const char *v, int32_t max, int32_t *out, char *err,
                           size_t errlen) {
  int32_t n;
  if (!parse_dims(v, &n, 1) || n > max)
    return tpc_fail(err, errlen, TP_ERR_INVALID_ARGUMENT, "%s '%s' must be 1..%d", key, v, max);
  *out = n;
  return TP_OK;
}

static tp_status set_stages(tpc_tuning *t, const char *v, char *err, size_t errlen) {
  return set_count("stages", v, TPC_MAX_STAGES, &t->kernel.stages, err, errlen);
}

static tp_status set_cluster(tpc_tuning *t, const char *v, char *err, size_t errlen) {
  int32_t d[2];
  if (!parse_dims(v, d, 2))
    return tpc_fail(err, errlen, TP_ERR_INVALID_ARGUMENT, "cluster '%s' is not MxN (e.g. 2x1)", v);
  if (!is_pow2(d[0]) || !is_pow2(d[1]) || d[0] * d[1] > TPC_MAX_CLUSTER)
    return tpc_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                    "cluster '%s': M and N must be powers of two with M*N <= %d", v,
                    TPC_MAX_CLUSTER);
  t->kernel.cluster_m = d[0];
  t->kernel.cluster_n = d[1];
  return TP_OK;
}

static tp_status set_consumers(tpc_tuning *t, const char *v, char *err, size_t errlen) {
  int32_t c;
  if (!parse_dims(v, &c, 1) || c > 2)
    return tpc_fail(err, errlen, TP_ERR_INVALID_ARGUMENT, "consumers '%s' must be 1 or 2", v);
  tpc_tuning next = *t;
  next.kernel.consumers = c;
  tp_status st = check_m_vs_consumers(&next, err, errlen);
  if (st == TP_OK)
    *t = next;
  return st;
}

static tp_status set_splits(tpc_tuning *t, const char *v, char *err, size_t errlen) {
  return set_count("splits", v, TP_KERNEL_MAX_SPLITS, &t->kernel.splits, err, errlen);
}

static tp_status set_tail_splits(tpc_tuning *t, const char *v, char *err, size_t errlen) {
  return set_count("tail_splits", v, TP_KERNEL_MAX_SPLITS, &t->kernel.tail_splits, err, errlen);
}

static tp_status set_stream_k(tpc_tuning *t, const char *v, char *err, size_t errlen) {
  if (strcmp(v, "on") == 0) {
    t->kernel.stream_k = TP_KERNEL_STREAM_ON;
  } else if (strcmp(v, "off") == 0) {
    t->kernel.stream_k = TP_KERNEL_STREAM_OFF;
  } else {
    return tpc_fail(err, errlen, TP_ERR_INVALID_ARGUMENT, "stream_k '%s' must be on or off", v);
  }
  return TP_OK;
}

tp_status tpc_tuning_set_option(void *state, const char *key, const char *value, char *err,
                                size_t errlen) {
  static const struct {
    const char *key;
    tp_status (*set)(tpc_tuning *, const char *, char *, size_t);
  } keys[] = {{"tile", set_tile},
              {"stages", set_stages},
              {"cluster", set_cluster},
              {"consumers", set_consumers},
              {"splits", set_splits},
              {"tail_splits", set_tail_splits},
              {"stream_k", set_stream_k}};
  if (state == NULL || key == NULL || value == NULL)
    return tpc_fail(err, errlen, TP_ERR_INVALID_ARGUMENT, "set_option: NULL argument");
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (strcmp(key, keys[i].key) == 0)
      return keys[i].set(state, value, err, errlen);
  return tpc_fail(err, errlen, TP_ERR_NOT_FOUND,
                  "unknown key '%s' (payloads take tile, stages, cluster, consumers, splits, "
                  "tail_splits, stream_k)",
                  key);
}
