/* tests/doc_examples/payload_plugin.c: the surroundings of a docs example
 * from examples/int8_w8a8/plugin.c (tests/test_doc_examples.sh includes it
 * at TP_DOC_EXAMPLE): the payload's headers with its GPU slots, the plugin
 * kit's headers that plugin.c includes, and its device code as
 * tilepipe-embed --nvcc writes it (as when built with nvcc). */
#define TP_KIT_DEVICE_CODE 1
#include <tilepipe/plugin/kit/cpu_stage.h>
#include <tilepipe/plugin/kit/device_image.h>
#include <tilepipe/plugin/kit/tuning.h>

#include "examples/int8_w8a8/int8_w8a8.h"
#include "examples/int8_w8a8/int8_w8a8_params.h"

#define TP_DEVICE_CUDA_VERSION 13000
static const unsigned char tp_device_blob[] = {0};

#include TP_DOC_EXAMPLE
