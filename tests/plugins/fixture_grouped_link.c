/* tests/plugins/fixture_grouped_link.c: a payload whose device code comes
 * in two images (tp_plugin_desc.device_images): the first holds
 * tp_test_axpy and tp_test_ws (tests/device/link_kernel.cu), the second
 * tp_test_ws_unbounded (tests/device/link_ws_unbounded.cu, whose setmaxnreg
 * ptxas ignores: C7508). Linked together, the second spoils the first's
 * report, so tp_test_ws links clean only from its own image alone. Its
 * gpu_plan names, by M: tp_test_ws_unbounded from 256, tp_test_ws from 128,
 * tp_test_axpy from 2, and for M = 1 tp_test_nowhere, which neither image
 * lists; and prologues for M 64 (tp_test_ws, in tp_test_axpy's image), 65
 * (tp_test_nowhere) and 66 (tp_test_ws in a block of 2048 threads). The
 * hook is fixture_test_hook's; it never runs anything. */
#include "link_fixture.h"

#define tp_device_blob kernel_blob
#define tp_device_blob_size kernel_blob_size
#include "tests/device/link_kernel.ltoir.h"
#undef tp_device_blob
#undef tp_device_blob_size

#define tp_device_blob unbounded_blob
#define tp_device_blob_size unbounded_blob_size
#include "tests/device/link_ws_unbounded.ltoir.h"
#undef tp_device_blob
#undef tp_device_blob_size

static const char *const kernel_names[] = {"tp_test_axpy", "tp_test_ws"};
static const char *const unbounded_names[] = {"tp_test_ws_unbounded"};
static const tp_device_image images[] = {
    {kernel_names, 2, kernel_blob, sizeof kernel_blob},
    {unbounded_names, 1, unbounded_blob, sizeof unbounded_blob},
};

static const char *link_fixture_kernel(int64_t m) {
  return m >= 256 ? "tp_test_ws_unbounded" : m >= 128 ? "tp_test_ws" : m >= 2 ? "tp_test_axpy"
                                                                             : "tp_test_nowhere";
}

static link_fixture_prologue_choice prologue_of(int64_t m) {
  return m == 64   ? (link_fixture_prologue_choice){"tp_test_ws", 384}
         : m == 65 ? (link_fixture_prologue_choice){"tp_test_nowhere", 384}
         : m == 66 ? (link_fixture_prologue_choice){"tp_test_ws", 2048}
                   : (link_fixture_prologue_choice){NULL, 0};
}

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  tp_plugin_desc *desc = link_fixture_desc("fixture_grouped_link");
  link_fixture_prologue = prologue_of;
  desc->device_images = images;
  desc->num_device_images = 2;
  return desc;
}
