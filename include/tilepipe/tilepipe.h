/* tilepipe/tilepipe.h: everything an application needs.
 *
 * tilepipe computes D = epilogue(A x B^T) with payload and epilogue plugins
 * named in an INI registry, on the GPU (Hopper, runtime-linked fused kernels)
 * or on the CPU. Start with README.md; docs/architecture.md is the map. */
#ifndef TILEPIPE_TILEPIPE_H
#define TILEPIPE_TILEPIPE_H

#include "tilepipe/status.h"
#include "tilepipe/dtype.h"
#include "tilepipe/tensor.h"
#include "tilepipe/gemm.h"
#include "tilepipe/registry.h"
#include "tilepipe/plan.h"
#include "tilepipe/link.h"
#include "tilepipe/problem.h"
#include "tilepipe/warm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version, "MAJOR.MINOR.PATCH". */
const char *tp_version(void);

#ifdef __cplusplus
}
#endif
#endif
