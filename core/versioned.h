/* core/versioned.h: public structs versioned by their first field.
 *
 * A struct of the public API that may grow starts with uint32_t
 * struct_size, which the caller sets to sizeof the struct as it compiled it
 * (tilepipe/link.h). Today's structs are their first versions, so a caller
 * may be newer (larger) but never older (smaller). Internal to libtilepipe. */
#ifndef TP_CORE_VERSIONED_H
#define TP_CORE_VERSIONED_H

#include <stddef.h>
#include "tilepipe/status.h"

/* An input struct: TP_ERR_INVALID_ARGUMENT when its struct_size is below
 * first_version (what: the type's name, for the message). */
tp_status tp_versioned_check(const void *in, size_t first_version, const char *what);

/* An output struct: the same check, then the caller's struct_size bytes
 * past the field itself zeroed (struct_size stays as the caller set it). */
tp_status tp_versioned_clear(void *out, size_t first_version, const char *what);

#endif
