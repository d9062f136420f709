/* tilepipe/tma_desc.h: a TMA descriptor as plain data.
 *
 * The same 128 bytes as the driver's CUtensorMap (64-byte aligned), defined
 * here so that kernel parameter structs shared by host C and device code need
 * no cuda.h. The core encodes them (tp_host_api.tma_encode_2d); kernels use
 * them through tilepipe/device/tma.h. */
#ifndef TILEPIPE_TMA_DESC_H
#define TILEPIPE_TMA_DESC_H

#include <stdint.h>

#include "tilepipe/tile.h"

typedef struct tp_tma_desc {
  TP_ALIGNAS(64) uint64_t opaque[16];
} tp_tma_desc;

#endif
