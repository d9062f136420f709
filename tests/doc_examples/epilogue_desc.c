/* tests/doc_examples/epilogue_desc.c: the surroundings of a docs example
 * that defines bias_silu's plugin descriptor `plugin` (tests/test_doc_examples.sh
 * includes it at TP_DOC_EXAMPLE): its ops table, its device code (as when
 * built with nvcc), and the entry point that returns it. */
#include <tilepipe/plugin.h>

#define BIAS_SILU_DEVICE_CODE 1
#define BIAS_SILU_CUDA_VERSION 13000
static const unsigned char bias_silu_lto[] = {0};
extern const tp_epilogue_ops ops;

#include TP_DOC_EXAMPLE

const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) { return &plugin; }
