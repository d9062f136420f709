/* tests/doc_examples/payload_images.c: the surroundings of the docs example
 * of a payload's device code in groups (docs/writing-a-payload.md;
 * tests/test_doc_examples.sh includes it at TP_DOC_EXAMPLE): two fatbins as
 * nvcc and embed-blob.sh would give them, and the entry point returning a
 * descriptor that lists the example's images. */
#include <tilepipe/plugin/abi.h>

static const unsigned char narrow_lto[] = {0};
static const unsigned char wide_lto[] = {0};

#include TP_DOC_EXAMPLE

static const tp_plugin_desc desc = {
    .struct_size = sizeof(tp_plugin_desc),
    .device_images = images,
    .num_device_images = sizeof images / sizeof images[0],
};

const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) { return &desc; }
