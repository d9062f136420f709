/* tests/doc_examples/input_pipeline.c: the surroundings of docs/pipeline.md's
 * ways to hold a stage (tests/test_doc_examples.sh includes the example at
 * TP_DOC_EXAMPLE): a producer and a consumer of one input pipeline, a tile
 * index j, and the host stand-ins for a TMA load (`load`), a read of a tile
 * (`use`) and the work done between a probe and its wait (`other_work`). */
#include <stdbool.h>
#include <string.h>
#include <tilepipe/internal/pipeline/input_tile_pipeline.h>

static void load(void *dst, const void *src, uint32_t bytes, tp_mbar *bar) {
  memcpy(dst, src, bytes);
  tp_mbar_complete_tx(bar, bytes);
}

static float use(const void *tile) { return *(const float *)tile; }

static void other_work(void) {}

void tp_doc_example(tp_input_producer prod, tp_input_consumer cons, uint32_t j, const void *src,
                    uint32_t bytes);

void tp_doc_example(tp_input_producer prod, tp_input_consumer cons, uint32_t j, const void *src,
                    uint32_t bytes) {
#include TP_DOC_EXAMPLE
}
