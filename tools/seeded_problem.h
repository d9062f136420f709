/* tools/seeded_problem.h: a whole random problem made in device memory by
 * the seeded generator (tools/seeded_device.h), for the benchmark: no host
 * copy of its inputs, however large.
 *
 * The descriptor is the reference library's (tp_ref_problem_describe: the
 * payload's description, kept in dp->problem, and the spec's layout; the
 * benchmark asks for rows padded to 16 bytes, align_rows). Each tensor
 * gets a device buffer of tp_seeded_buffer_bytes, all 0xFF first (NaN in
 * every dtype: padding, atom padding and D stay so), then every input its
 * values (tools/seeded_role.h says which get what): the bytes
 * tp_ref_problem_create writes into its host problem of the same spec and
 * seed, and 0xFF past them. Where a host copy is wanted, copy the buffers
 * back. */
#ifndef TP_TOOLS_SEEDED_PROBLEM_H
#define TP_TOOLS_SEEDED_PROBLEM_H

#include <stddef.h>
#include <stdint.h>
#include "tilepipe/reference.h"
#include "tilepipe/status.h"
#include "tools/seeded_device.h"

typedef struct tp_seeded_problem {
  tp_gemm_desc desc;            /* device pointers */
  tp_problem problem;           /* what its scale tensors mean (the payload's word) */
  void *buffer[TP_REF_TENSORS]; /* owned device memory; NULL for absent tensors (and C when
                                   it is D) */
  int64_t bytes[TP_REF_TENSORS];
} tp_seeded_problem;

/* The bytes of the device buffer that holds tensor `which` (TP_REF_A ...):
 * its span, or for a strided scale matrix its rows times its row stride
 * (its last row's padding too), as cuBLASLt sizes scales by their padded
 * rows. The blockwise_fp8 scales come out in the layout cuBLASLt's
 * blockwise FP8 GEMM takes then (docs/payloads.md): a_scale [L, M] with its
 * rows M rounded up to 4, b_scale [ceil(N/128), L] with its rows L rounded
 * up to 4. */
int64_t tp_seeded_buffer_bytes(const tp_tensor *t, tp_ref_tensor which);

/* Makes the problem; the fills are queued on the default stream. On
 * failure (reason in err) *dp is empty. */
tp_status tp_seeded_problem_create(tp_seeded_problem *dp, const tp_seeded_device *gen,
                                   const tp_ref_problem_spec *spec, uint64_t seed, char *err,
                                   size_t errlen);

void tp_seeded_problem_destroy(tp_seeded_problem *dp);

#endif
