/* tests/doc_examples/epilogue_desc.c: the surroundings of a docs example
 * that defines bias_silu's plugin descriptor `plugin` (tests/test_doc_examples.sh
 * includes it at TP_DOC_EXAMPLE): its ops table, its device code as
 * tilepipe-embed --nvcc writes it (as when built with nvcc), and the entry
 * point that returns it. */
#include <tilepipe/plugin/kit/device_image.h>
#include <tilepipe/plugin/abi.h>

#define TP_KIT_DEVICE_CODE 1
#define TP_DEVICE_CUDA_VERSION 13000
static const unsigned char tp_device_blob[] = {0};
extern const tp_epilogue_ops ops;

#include TP_DOC_EXAMPLE

const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) { return &plugin; }
