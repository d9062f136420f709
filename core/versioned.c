/* core/versioned.c: see versioned.h. */
#include <stdint.h>
#include <string.h>

#include "core/error.h"
#include "core/versioned.h"

tp_status tp_versioned_check(const void *in, size_t first_version, const char *what) {
  uint32_t size;
  memcpy(&size, in, sizeof size);
  if (size < first_version) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "%s struct_size %u is smaller than its first version (%zu bytes); set it "
                        "to sizeof(%s)",
                        what, size, first_version, what);
  }
  return TP_OK;
}

tp_status tp_versioned_clear(void *out, size_t first_version, const char *what) {
  tp_status st = tp_versioned_check(out, first_version, what);
  if (st != TP_OK) return st;
  uint32_t size;
  memcpy(&size, out, sizeof size);
  memset((unsigned char *)out + sizeof size, 0, size - sizeof size);
  return TP_OK;
}
