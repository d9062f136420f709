/* tests/doc_examples/payload_plugin.c: the surroundings of a docs example
 * from examples/int8_w8a8/plugin.c (tests/test_doc_examples.sh includes it
 * at TP_DOC_EXAMPLE): the payload's header with its GPU slots, the slots that
 * plugin.c defines, and its device code (as when built with nvcc). */
#define INT8_W8A8_DEVICE_CODE 1
#include "examples/int8_w8a8/int8_w8a8.h"

#define INT8_W8A8_CUDA_VERSION 13000
static const unsigned char int8_w8a8_lto[] = {0};
tp_status w8a8_init(const tp_host_api *host, void **state, char *err, size_t errlen);
void w8a8_fini(void *state);
tp_status w8a8_set_option(void *state, const char *key, const char *value, char *err,
                          size_t errlen);

#include TP_DOC_EXAMPLE
