/* tilepipe/plugin/tma_desc.h: a TMA descriptor as plain data.
 *
 * The same 128 bytes as the driver's CUtensorMap (64-byte aligned), defined
 * here so that kernel parameter structs shared by host C and device code need
 * no cuda.h. The core encodes them (tp_host_api.tma_encode_2d); kernels use
 * them through tilepipe/plugin/device/tma.h. */
#ifndef TILEPIPE_PLUGIN_TMA_DESC_H
#define TILEPIPE_PLUGIN_TMA_DESC_H

#include <stdint.h>

#include "tilepipe/plugin/tile.h"

typedef struct tp_tma_desc {
  TP_ALIGNAS(64) uint64_t opaque[16];
} tp_tma_desc;

/* L2 cache policies for TMA loads (tilepipe/plugin/device/tma.h's _hint loads),
 * chosen on the host and passed in kernel parameters: the 64-bit encodings
 * that `createpolicy.fractional.L2::<priority>.b64` makes with a fraction
 * of 1.0 (the values CUTLASS's CacheHintSm90 names). EVICT_FIRST suits
 * data read once (its lines go before others'), EVICT_LAST data that many
 * CTAs read again, EVICT_NORMAL what a load without a hint does. */
#define TP_TMA_L2_EVICT_NORMAL 0x1000000000000000ull
#define TP_TMA_L2_EVICT_FIRST 0x12F0000000000000ull
#define TP_TMA_L2_EVICT_LAST 0x14F0000000000000ull

#endif
