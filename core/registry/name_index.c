/* core/registry/name_index.c: see name_index.h. */
#include <stdlib.h>
#include <string.h>

#include "core/backend/cuda/cache_file.h" /* tp_fnv1a64, the core's one hash */
#include "core/registry/name_index.h"

int tp_name_index_init(tp_name_index *ix, size_t count) {
  size_t size = 16;
  while (size < 2 * count) size *= 2;
  ix->slots = calloc(size, sizeof *ix->slots);
  ix->mask = ix->slots ? size - 1 : 0;
  return ix->slots ? 0 : -1;
}

/* The slot that holds name, else the empty slot where it would go. */
static tp_name_slot *slot_of(const tp_name_index *ix, const char *name) {
  size_t i = (size_t)tp_fnv1a64(TP_FNV1A64_INIT, name, strlen(name)) & ix->mask;
  while (ix->slots[i].name && strcmp(ix->slots[i].name, name) != 0) i = (i + 1) & ix->mask;
  return &ix->slots[i];
}

size_t tp_name_index_add(tp_name_index *ix, const char *name, size_t index) {
  tp_name_slot *s = slot_of(ix, name);
  if (!s->name) *s = (tp_name_slot){name, index};
  return s->index;
}

size_t tp_name_index_find(const tp_name_index *ix, const char *name) {
  if (!ix->slots) return TP_NAME_INDEX_NONE;
  const tp_name_slot *s = slot_of(ix, name);
  return s->name ? s->index : TP_NAME_INDEX_NONE;
}

void tp_name_index_free(tp_name_index *ix) {
  free(ix->slots);
  *ix = (tp_name_index){NULL, 0};
}
