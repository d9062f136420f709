/* tests/cuda_blobs.c: see cuda_blobs.h. Each generated header defines the
 * same two names, so each is included under names of its own. */
#include "tests/cuda_blobs.h"

#define tp_device_blob link_kernel_blob
#define tp_device_blob_size link_kernel_blob_size
#include "tests/device/link_kernel.ltoir.h"
#undef tp_device_blob
#undef tp_device_blob_size

#define tp_device_blob link_hook_blob
#define tp_device_blob_size link_hook_blob_size
#include "tests/device/link_hook.ltoir.h"
#undef tp_device_blob
#undef tp_device_blob_size

#define tp_device_blob link_ws_unbounded_blob
#define tp_device_blob_size link_ws_unbounded_blob_size
#include "tests/device/link_ws_unbounded.ltoir.h"
#undef tp_device_blob
#undef tp_device_blob_size

tp_jit_input tp_test_blob_link_kernel(void) {
  return (tp_jit_input){link_kernel_blob, link_kernel_blob_size, "link_kernel.cu"};
}

tp_jit_input tp_test_blob_link_hook(void) {
  return (tp_jit_input){link_hook_blob, link_hook_blob_size, "link_hook.cu"};
}

tp_jit_input tp_test_blob_link_ws_unbounded(void) {
  return (tp_jit_input){link_ws_unbounded_blob, link_ws_unbounded_blob_size,
                        "link_ws_unbounded.cu"};
}
