/* plugins/blockwise_fp8/plan.c: what blockwise_fp8 accepts and how it tiles.
 *
 * A [M,K] and B [N,K] are e4m3. With L = ceil(K/128):
 *   a_scale  f32 [L, M], strided, M contiguous: scale of A(m, k) at
 *            a_scale[(k/128) * stride0 + m], stride0 >= M
 *   b_scale  f32 [ceil(N/128), L], strided: scale of B(n, k) at
 *            b_scale[(n/128) * stride0 + k/128], stride0 >= L
 * On the GPU a_scale rows are loaded by TMA (16-byte row stride) into the
 * stage next to A; b_scale is read from global memory by the consumers
 * (DeepGEMM's scheme), so its rows need no alignment. */
#include <string.h>

#include "tilepipe/plugin/dtype_codec.h"
#include "plugins/blockwise_fp8/blockwise_fp8.h"
#include "tilepipe/plugin/kit/checks.h"
#include "tilepipe/plugin/kit/cpu_stage.h"
#include "tilepipe/plugin/kit/error.h"

tp_status blockwise_check_operand(const tp_tensor *t, const char *name, char *err, size_t errlen) {
  if (t->dtype == TP_DTYPE_E4M3)
    return TP_OK;
  return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                     "%s is %s; blockwise_fp8 takes e4m3 A and B (use standard for other dtypes)",
                     name, tp_codec_name(t->dtype));
}

tp_status blockwise_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                         tp_payload_plan *out, char *err, size_t errlen) {
  const int64_t l = blockwise_blocks(desc->k);
  const tp_kit_scale_rule a_rule = {"a_scale", TP_DTYPE_F32, l, desc->m, "[ceil(K/128), M]", 0,
                                    1};
  const tp_kit_scale_rule b_rule = {"b_scale", TP_DTYPE_F32, blockwise_blocks(desc->n), l,
                                    "[ceil(N/128), ceil(K/128)]", 0, 0};
  tp_status st = blockwise_check_operand(&desc->a, "A", err, errlen);
  if (st == TP_OK)
    st = blockwise_check_operand(&desc->b, "B", err, errlen);
  if (st == TP_OK)
    st = tp_kit_scale_check(&desc->a_scale, &a_rule, backend, err, errlen);
  if (st == TP_OK)
    st = tp_kit_scale_check(&desc->b_scale, &b_rule, backend, err, errlen);
  if (st != TP_OK)
    return st;
  /* On the CUDA backend the tile is the GPU planner's (gpu_plan). */
  if (backend == TP_BACKEND_CUDA)
    memset(out, 0, sizeof *out);
  else
    tp_kit_cpu_plan(out, state, desc, BLOCKWISE_BLOCK);
  return TP_OK;
}
