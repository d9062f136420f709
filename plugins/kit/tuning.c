/* plugins/kit/tuning.c: see tilepipe/plugin/kit/tuning.h. Values are parsed
 * strictly: decimal digits separated by 'x', nothing else (inih has trimmed
 * the blanks). What the kernels take comes from the tile table through
 * tp_kernel_instances (tilepipe/plugin/kernel/plan.h), filtered by the payload's
 * limits; refusals list what is left, as "a, b or c". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilepipe/plugin/kernel/instances.h"
#include "tilepipe/plugin/kernel/shape.h"
#include "tilepipe/plugin/kernel/tiles.h"
#include "tilepipe/plugin/kit/error.h"
#include "tilepipe/plugin/kit/tuning.h"

/* A list for a message: up to LIST_MAX distinct items ("128x256", "2x1"),
 * more than the table has tiles. */
#define LIST_MAX 32
#define ITEM_MAX 16
typedef struct list {
  char item[LIST_MAX][ITEM_MAX];
  int count;
} list;

static void list_add(list *l, const char *item) {
  for (int i = 0; i < l->count; i++)
    if (strcmp(l->item[i], item) == 0)
      return;
  if (l->count < LIST_MAX)
    snprintf(l->item[l->count++], ITEM_MAX, "%s", item);
}

/* "a", "a or b", "a, b or c". */
static const char *list_text(const list *l, char *out, size_t size) {
  size_t used = 0;
  out[0] = '\0';
  for (int i = 0; i < l->count && used < size; i++) {
    const char *sep = i == 0 ? "" : i + 1 == l->count ? " or " : ", ";
    const int w = snprintf(out + used, size - used, "%s%s", sep, l->item[i]);
    if (w < 0)
      break;
    used += (size_t)w;
  }
  return out;
}

/* Whether the payload has kernel k: no wider than its widest tile, a width
 * dividing its n_block. */
static int payload_has(const tp_kernel_instance *k, const tp_kit_tuning_limits *lim) {
  if (k->transposed) return 0; /* never forced: the payload picks the orientation */
  const int32_t widest = lim->max_tile_n ? lim->max_tile_n : TP_KERNEL_MAX_TILE_N;
  return k->tile_n <= widest && (lim->n_block == 0 || lim->n_block % k->tile_n == 0);
}

/* Whether a kernel of the payload has tile m x n in clusters of cm along M
 * (0: any); into `tiles` the tiles in such clusters, into `clusters` the
 * clusters of such tiles (either may be NULL). */
static int kernels_of(const tp_kit_tuning_limits *lim, int32_t m, int32_t n, int32_t cm,
                      list *tiles, list *clusters) {
  size_t count;
  const tp_kernel_instance *all = tp_kernel_instances(&count);
  int found = 0;
  for (size_t i = 0; i < count; i++) {
    const tp_kernel_instance *k = &all[i];
    if (!payload_has(k, lim))
      continue;
    const int tile = (m == 0 || k->tile_m == m) && (n == 0 || k->tile_n == n);
    const int cluster = cm == 0 || k->cluster_m == cm;
    char text[ITEM_MAX];
    if (cluster && tiles != NULL) {
      snprintf(text, sizeof text, "%dx%d", k->tile_m, k->tile_n);
      list_add(tiles, text);
    }
    if (tile && clusters != NULL) {
      snprintf(text, sizeof text, "%dx1", k->cluster_m);
      list_add(clusters, text);
    }
    found |= tile && cluster;
  }
  return found;
}

static const char *tile_k_text(const tp_kit_tuning_limits *lim, char *out, size_t size) {
  list l = {.count = 0};
  for (int i = 0; i < TP_KIT_TUNING_TILE_KS && lim->tile_k[i] != 0; i++) {
    char text[ITEM_MAX];
    snprintf(text, sizeof text, "%d", lim->tile_k[i]);
    list_add(&l, text);
  }
  return list_text(&l, out, size);
}

/* Whether k elements of an operand of 4, 8, 16 or 32 bits make one
 * k-block of the skeleton: TP_KERNEL_ROW_BYTES of K. */
static int is_k_block(int32_t k) {
  for (int32_t bits = 4; bits <= 32; bits *= 2)
    if (k * bits == TP_KERNEL_ROW_BYTES * 8)
      return 1;
  return 0;
}

tp_status tp_kit_tuning_create(void **state, const tp_kit_tuning_limits *limits, char *err,
                               size_t errlen) {
  if (state == NULL || limits == NULL)
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT, "tuning: NULL state or limits");
  if (limits->tile_k[0] == 0)
    return tp_kit_fail(err, errlen, TP_ERR_PLUGIN, "tuning limits list no tile K");
  for (int i = 0; i < TP_KIT_TUNING_TILE_KS && limits->tile_k[i] != 0; i++)
    if (!is_k_block(limits->tile_k[i]))
      return tp_kit_fail(err, errlen, TP_ERR_PLUGIN,
                         "tuning limits: tile K %d is not one %d-byte row of an operand of 4, "
                         "8, 16 or 32 bits",
                         limits->tile_k[i], TP_KERNEL_ROW_BYTES);
  if (!kernels_of(limits, 0, 0, 0, NULL, NULL))
    return tp_kit_fail(err, errlen, TP_ERR_PLUGIN,
                       "tuning limits (max_tile_n %d, n_block %d) leave no kernel of the table",
                       limits->max_tile_n, limits->n_block);
  tp_kit_tuning *t = calloc(1, sizeof *t);
  if (t == NULL)
    return tp_kit_fail(err, errlen, TP_ERR_OUT_OF_MEMORY, "out of host memory");
  t->limits = *limits;
  *state = t;
  return TP_OK;
}

void tp_kit_tuning_fini(void *state) { free(state); }

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

/* Splits above 1 run only in single CTAs: the planner refuses them with a
 * cluster, so the section would plan nothing. */
static tp_status check_splits_vs_cluster(const tp_kit_tuning *t, const char *key, const char *v,
                                         char *err, size_t errlen) {
  const tp_kernel_tuning *k = &t->kernel;
  if (k->splits <= 1 || k->cluster_m <= 1)
    return TP_OK;
  char other[32];
  if (strcmp(key, "splits") == 0)
    snprintf(other, sizeof other, "cluster = %dx1", k->cluster_m);
  else
    snprintf(other, sizeof other, "splits = %d", k->splits);
  return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                     "%s '%s': the GPU kernels split K only over single CTAs, and the section "
                     "sets %s",
                     key, v, other);
}

static tp_status set_tile(tp_kit_tuning *t, const char *v, char *err, size_t errlen) {
  int32_t d[3];
  char text[256];
  if (!parse_dims(v, d, 3))
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "tile '%s' is not MxNxK (e.g. 128x128x64)", v);
  int k_ok = 0;
  for (int i = 0; i < TP_KIT_TUNING_TILE_KS && t->limits.tile_k[i] != 0; i++)
    k_ok |= t->limits.tile_k[i] == d[2];
  if (!k_ok)
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "tile '%s': K must be %s (a k-block of this payload's kernels)", v,
                       tile_k_text(&t->limits, text, sizeof text));
  const int32_t cm = t->kernel.cluster_m;
  list tiles = {.count = 0};
  if (!kernels_of(&t->limits, d[0], d[1], cm, &tiles, NULL)) {
    list_text(&tiles, text, sizeof text);
    if (cm != 0)
      return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                         "tile '%s': in clusters of %d (cluster = %dx1) the GPU kernels take "
                         "tiles (MxN) %s",
                         v, cm, cm, text);
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "tile '%s': the GPU kernels take tiles (MxN) %s", v, text);
  }
  t->kernel.tile_m = d[0];
  t->kernel.tile_n = d[1];
  t->kernel.tile_k = d[2];
  return TP_OK;
}

/* A count key: `value` must be 1..max; into *out. */
static tp_status set_count(const char *key, const char *v, int32_t max, int32_t *out, char *err,
                           size_t errlen) {
  int32_t n;
  if (!parse_dims(v, &n, 1) || n > max)
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT, "%s '%s' must be 1..%d", key, v,
                       max);
  *out = n;
  return TP_OK;
}

static tp_status set_stages(tp_kit_tuning *t, const char *v, char *err, size_t errlen) {
  return set_count("stages", v, TP_KIT_TUNING_MAX_STAGES, &t->kernel.stages, err, errlen);
}

static tp_status set_cluster(tp_kit_tuning *t, const char *v, char *err, size_t errlen) {
  int32_t d[2];
  char text[256];
  if (!parse_dims(v, d, 2))
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT, "cluster '%s' is not MxN (e.g. 2x1)",
                       v);
  const int32_t m = t->kernel.tile_m, n = t->kernel.tile_n;
  list clusters = {.count = 0};
  if (!kernels_of(&t->limits, m, n, d[0], NULL, &clusters) || d[1] != 1) {
    list_text(&clusters, text, sizeof text);
    if (m != 0)
      return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                         "cluster '%s': the GPU kernels of tile %dx%d (tile = %dx%dx%d) run in "
                         "clusters %s",
                         v, m, n, m, n, t->kernel.tile_k, text);
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "cluster '%s': the GPU kernels run in clusters %s", v, text);
  }
  tp_kit_tuning next = *t;
  next.kernel.cluster_m = d[0];
  next.kernel.cluster_n = d[1];
  tp_status st = check_splits_vs_cluster(&next, "cluster", v, err, errlen);
  if (st == TP_OK)
    *t = next;
  return st;
}

static tp_status set_splits(tp_kit_tuning *t, const char *v, char *err, size_t errlen) {
  tp_kit_tuning next = *t;
  tp_status st = set_count("splits", v, TP_KERNEL_MAX_SPLITS, &next.kernel.splits, err, errlen);
  if (st == TP_OK)
    st = check_splits_vs_cluster(&next, "splits", v, err, errlen);
  if (st == TP_OK)
    *t = next;
  return st;
}

static tp_status set_tail_splits(tp_kit_tuning *t, const char *v, char *err, size_t errlen) {
  return set_count("tail_splits", v, TP_KERNEL_MAX_SPLITS, &t->kernel.tail_splits, err, errlen);
}

static tp_status set_stream_k(tp_kit_tuning *t, const char *v, char *err, size_t errlen) {
  if (strcmp(v, "on") == 0) {
    t->kernel.stream_k = TP_KERNEL_STREAM_ON;
  } else if (strcmp(v, "off") == 0) {
    t->kernel.stream_k = TP_KERNEL_STREAM_OFF;
  } else {
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT, "stream_k '%s' must be on or off",
                       v);
  }
  return TP_OK;
}

tp_status tp_kit_tuning_set_option(void *state, const char *key, const char *value, char *err,
                                   size_t errlen) {
  static const struct {
    const char *key;
    tp_status (*set)(tp_kit_tuning *, const char *, char *, size_t);
  } keys[] = {{"tile", set_tile},
              {"stages", set_stages},
              {"cluster", set_cluster},
              {"splits", set_splits},
              {"tail_splits", set_tail_splits},
              {"stream_k", set_stream_k}};
  if (state == NULL || key == NULL || value == NULL)
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT, "set_option: NULL argument");
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (strcmp(key, keys[i].key) == 0)
      return keys[i].set(state, value, err, errlen);
  return tp_kit_fail(err, errlen, TP_ERR_NOT_FOUND,
                     "unknown key '%s' (payloads take tile, stages, cluster, splits, "
                     "tail_splits, stream_k)",
                     key);
}
