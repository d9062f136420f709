/* core/backend/cuda/link_log.h: reading ptxas's report in nvJitLink's info log.
 *
 * A fused kernel is only as good as what ptxas made of it. The link passes
 * -Xptxas=-v, and this checker turns the diagnostics that mean "the fusion
 * failed" into errors: setmaxnreg ignored (C7504, C7506, C7508), wgmma
 * serialized (C7509, or any other "wgmma.mma_async instructions are
 * serialized" reason), and any register spill. It also extracts one kernel's
 * registers and stack frame for reporting. A log without any ptxas report
 * (no entry function compiled) fails too: the check cannot vouch for what it
 * did not see. Pure string code: no CUDA, no allocation. Internal to
 * libtilepipe. */
#ifndef TP_CORE_BACKEND_CUDA_LINK_LOG_H
#define TP_CORE_BACKEND_CUDA_LINK_LOG_H

#include "tilepipe/status.h"

typedef struct tp_link_stats {
  int registers;         /* per thread ("Used N registers") */
  int stack_bytes;       /* stack frame per thread */
  int spill_store_bytes;
  int spill_load_bytes;
} tp_link_stats;

/* TP_OK when the log reports at least one entry function and is clean;
 * otherwise TP_ERR_LINK with a message that names the problem and quotes the
 * first offending line. */
tp_status tp_link_log_check(const char *log);

/* The figures ptxas reported for entry function `kernel`. TP_ERR_NOT_FOUND
 * when the log does not report that kernel (it was not linked, or the link
 * ran without -Xptxas=-v). */
tp_status tp_link_log_stats(const char *log, const char *kernel, tp_link_stats *out);

#endif
