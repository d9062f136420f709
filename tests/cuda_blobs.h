/* tests/cuda_blobs.h: the LTO-IR of the tests/device/ sources, embedded at build
 * time (build-aux/device.mk), as link inputs for the CUDA tests.
 *
 *   link_kernel:       tp_test_axpy and tp_test_ws, calling tp_test_hook
 *   link_hook:         defines tp_test_hook
 *   link_ws_unbounded: tp_test_ws_unbounded, whose setmaxnreg ptxas ignores
 *                      (C7508); also calls tp_test_hook */
#ifndef TP_TESTS_CUDA_BLOBS_H
#define TP_TESTS_CUDA_BLOBS_H

#include "core/backend/cuda/nvjitlink.h"

tp_jit_input tp_test_blob_link_kernel(void);
tp_jit_input tp_test_blob_link_hook(void);
tp_jit_input tp_test_blob_link_ws_unbounded(void);

#endif
