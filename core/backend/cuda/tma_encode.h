/* core/backend/cuda/tma_encode.h: TMA descriptors for plugins.
 *
 * The core owns libcuda, so plugins encode their tensor maps through the host
 * API (tp_host_api.tma_encode_2d), which lands here. Internal to libtilepipe. */
#ifndef TP_CORE_BACKEND_CUDA_TMA_ENCODE_H
#define TP_CORE_BACKEND_CUDA_TMA_ENCODE_H

#include "tilepipe/plugin/abi.h"

/* Encodes request into out (128 bytes, 64-byte aligned). Validates what
 * cuTensorMapEncodeTiled would reject (alignment, strides, box sizes,
 * swizzle span) with a message naming the field. */
tp_status tp_cuda_tma_encode_2d(void *out, const tp_tma_2d *request, char *err, size_t errlen);

#endif
