/* tools/seeded_problem.h: a whole random problem made in device memory by
 * the seeded generator (tools/seeded_device.h), for the benchmark: no host
 * copy of its inputs, however large.
 *
 * The descriptor is the reference's (tp_ref_problem_describe: the
 * payload's description, kept in dp->problem) with every
 * strided row padded to 16 bytes (tools/align_rows.h), as
 * tp_tool_problem_create lays it out on the host; each tensor gets a device
 * buffer of its span (whole rows for the scales: tp_tool_buffer_bytes),
 * all 0xFF first (NaN in every dtype: padding, atom padding and D stay
 * so), then every input its values (tools/reference/seeded_fill.h says
 * which get what). The bytes are those
 * tp_seeded_fill_problem writes into tp_tool_problem_create's problem of
 * the same spec and seed; where a host copy is wanted, copy the buffers
 * back. */
#ifndef TP_TOOLS_SEEDED_PROBLEM_H
#define TP_TOOLS_SEEDED_PROBLEM_H

#include <stddef.h>
#include <stdint.h>
#include "tilepipe/status.h"
#include "tools/gpu_problem.h"
#include "tools/reference/problem.h"
#include "tools/seeded_device.h"

/* Makes the problem; the fills are queued on the default stream. On
 * failure (reason in err) *dp is empty. Free it with
 * tp_gpu_problem_destroy. */
tp_status tp_seeded_problem_create(tp_gpu_problem *dp, const tp_seeded_device *gen,
                                   const tp_ref_problem_spec *spec, uint64_t seed, char *err,
                                   size_t errlen);

#endif
