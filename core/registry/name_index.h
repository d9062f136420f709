/* core/registry/name_index.h: a hash index from names to the position of
 * their first occurrence, for the registry's sections and a section's keys.
 *
 * Open addressing over a power-of-two table at most half full, FNV-1a
 * hashes: adding and finding cost O(1) on average, so a registry of n
 * sections opens, finds a name and finds a repeat in time linear in n. The
 * index keeps the name pointers it is given (they must outlive it) and
 * copies nothing. Internal to libtilepipe. */
#ifndef TP_CORE_REGISTRY_NAME_INDEX_H
#define TP_CORE_REGISTRY_NAME_INDEX_H

#include <stddef.h>
#include <stdint.h>

#define TP_NAME_INDEX_NONE SIZE_MAX

typedef struct tp_name_slot {
  const char *name; /* NULL: empty */
  size_t index;
} tp_name_slot;

typedef struct tp_name_index {
  tp_name_slot *slots;
  size_t mask; /* table size - 1 */
} tp_name_index;

/* Room for up to count names. -1 when out of memory (ix is then empty but
 * safe to free). */
int tp_name_index_init(tp_name_index *ix, size_t count);

/* Adds name at position index unless the index holds it already; returns
 * the position of the name's first occurrence (index when it is new). At
 * most the count given to init may be added. */
size_t tp_name_index_add(tp_name_index *ix, const char *name, size_t index);

/* The position of name's first occurrence; TP_NAME_INDEX_NONE if absent. */
size_t tp_name_index_find(const tp_name_index *ix, const char *name);

void tp_name_index_free(tp_name_index *ix);

#endif
