/* plugins/common/stage_tensor.h: appending a tensor to a payload plan's
 * stage contents (both backends' plans build theirs this way). Callers stay
 * within TP_MAX_STAGE_TENSORS: no payload stages more than A, B and two
 * scale tiles. */
#ifndef TP_PLUGINS_COMMON_STAGE_TENSOR_H
#define TP_PLUGINS_COMMON_STAGE_TENSOR_H

#include "tilepipe/plugin.h"

static inline void tpc_plan_add_tensor(tp_payload_plan *out, uint32_t bytes, uint32_t align) {
  out->tensors[out->num_tensors].bytes = bytes;
  out->tensors[out->num_tensors].align = align;
  out->num_tensors++;
}

#endif
