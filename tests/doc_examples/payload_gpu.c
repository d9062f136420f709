/* tests/doc_examples/payload_gpu.c: the surroundings of a docs example from
 * examples/int8_w8a8/gpu.c (tests/test_doc_examples.sh includes it at
 * TP_DOC_EXAMPLE): the headers that file includes, with the GPU slots on. */
#include <stddef.h>
#include <tilepipe/plugin/kernel/args.h>
#include <tilepipe/plugin/kernel/gpu_plan.h>
#include <tilepipe/plugin/kit/tuning.h>

#define TP_KIT_DEVICE_CODE 1
#include "examples/int8_w8a8/int8_w8a8.h"
#include "examples/int8_w8a8/int8_w8a8_params.h"

#include TP_DOC_EXAMPLE
