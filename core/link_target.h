/* core/link_target.h: the GPU a plan made without that GPU plans for.
 *
 * tilepipe/link.h's tp_link_target, as the payload's gpu_plan takes it
 * (tp_gpu_info), for the link check and for warming the cache. The named
 * models' figures live in link_target.c and nowhere else. Internal to
 * libtilepipe. */
#ifndef TP_CORE_LINK_TARGET_H
#define TP_CORE_LINK_TARGET_H

#include "tilepipe/link.h"
#include "tilepipe/plugin/abi.h"

/* The figures tp_link_check plans for: the H100 SXM's. */
const tp_gpu_info *tp_link_target_default(void);

/* A caller's target as gpu_plan takes it. TP_ERR_INVALID_ARGUMENT naming
 * the field when a figure is impossible (an old struct_size, no name, no
 * SMs, no shared memory); TP_ERR_UNSUPPORTED when it is not a compute
 * capability 9.0 GPU, the only one tilepipe's kernels are built for. */
tp_status tp_link_target_to_gpu(const tp_link_target *target, tp_gpu_info *gpu);

#endif
