/* plugins/kit/kernel_instances.c: the structured kernel's kernels on
 * the host (tilepipe/plugin/kernel/instances.h), expanded from tiles.h's table. */
#include <stdio.h>

#include "tilepipe/plugin/kernel/instances.h"
#include "tilepipe/plugin/kernel/tiles.h"

const tp_kernel_instance *tp_kernel_instances(size_t *count) {
#define TP_KERNEL_HOST_INSTANCE_(BM, BN, CM, D_NAME, DT, SPEED, CTX) \
  {BM, BN, CM, false, DT, SPEED, TP_KERNEL_SUFFIX_STR(BM, BN, CM, D_NAME)},
#define TP_KERNEL_HOST_TRANSPOSED_(BM, BN, CM, D_NAME, DT, SPEED, CTX) \
  {BM, BN, CM, true, DT, SPEED, TP_KERNEL_SUFFIX_STR_TRANSPOSED(BM, BN, CM, D_NAME)},
  static const tp_kernel_instance all[] = {
      TP_KERNEL_FOR_EACH_INSTANCE(TP_KERNEL_HOST_INSTANCE_, _)
          TP_KERNEL_FOR_EACH_TRANSPOSED_INSTANCE(TP_KERNEL_HOST_TRANSPOSED_, _)};
#undef TP_KERNEL_HOST_INSTANCE_
#undef TP_KERNEL_HOST_TRANSPOSED_
  *count = sizeof all / sizeof all[0];
  return all;
}

bool tp_kernel_instance_serves(const tp_kernel_instance *k, const tp_kernel_plan *kp) {
  return k->transposed == (kp->transposed != 0) && k->cluster_m == kp->cluster_m &&
         k->d == kp->d_dtype && k->tile_n <= kp->max_tile_n &&
         kp->n_block % k->tile_n == 0;
}

const tp_kernel_instance *tp_kernel_instance_find(const tp_kernel_plan *kp, int32_t tile_m,
                                                  int32_t tile_n) {
  size_t count;
  const tp_kernel_instance *all = tp_kernel_instances(&count);
  for (size_t i = 0; i < count; ++i) {
    const tp_kernel_instance *k = &all[i];
    if ((tile_m == 0 || k->tile_m == tile_m) && (tile_n == 0 || k->tile_n == tile_n) &&
        tp_kernel_instance_serves(k, kp))
      return k;
  }
  return NULL;
}

void tp_kernel_tile_list(char *out, size_t size, const tp_kernel_plan *kp) {
  size_t count, used = 0;
  const tp_kernel_instance *all = tp_kernel_instances(&count);
  if (size == 0) return;
  out[0] = '\0';
  for (size_t i = 0; i < count && used < size; ++i) {
    if (!tp_kernel_instance_serves(&all[i], kp)) continue;
    const int w = snprintf(out + used, size - used, "%s%s%dx%d", used ? ", " : "",
                           all[i].transposed ? "t" : "", all[i].tile_m, all[i].tile_n);
    if (w < 0) break;
    used += (size_t)w;
  }
}

int32_t tp_kernel_only_width(const tp_kernel_plan *kp, int32_t tile_m) {
  size_t count;
  const tp_kernel_instance *all = tp_kernel_instances(&count);
  int32_t width = 0;
  for (size_t i = 0; i < count && tile_m; ++i) {
    if (all[i].tile_m != tile_m || !tp_kernel_instance_serves(&all[i], kp)) continue;
    if (width) return 0;
    width = all[i].tile_n;
  }
  return width;
}
