/* core/registry/ini_file.h: an INI file read into memory, with the line of
 * every section header and key.
 *
 * Parsing is the system inih's (ini_parse_stream); our own line reader feeds
 * it so that we always know the current line and can refuse, with file:line,
 * what inih would silently mangle: over-long lines (inih splits them) and
 * over-long section or key names (inih truncates them).
 *
 * Invariants of a tp_ini_file that tp_ini_read returned:
 *   - every key belongs to a section (a key before the first header is an error);
 *   - names are 1..TP_INI_MAX_NAME chars (a section name may be empty: "[]");
 *   - sections and keys are in file order, duplicates kept (the caller judges);
 *   - values are as inih delivers them: trimmed, inline "; comment" removed.
 * Leading whitespace is not significant and there are no multi-line values:
 * the reader strips indentation before inih sees the line, so inih's
 * continuation rule never fires (an indented key is just a key). */
#ifndef TP_CORE_REGISTRY_INI_FILE_H
#define TP_CORE_REGISTRY_INI_FILE_H

#include <stddef.h>
#include "tilepipe/status.h"

/* Longest section or key name: inih keeps 49 chars and silently drops the
 * rest; we stay one below and refuse anything longer. */
#define TP_INI_MAX_NAME 48

typedef struct tp_ini_key {
  char *name;
  char *value;
  int line;
} tp_ini_key;

typedef struct tp_ini_section {
  char *name;
  int line;          /* of the "[name]" header */
  tp_ini_key *keys;
  size_t num_keys;
} tp_ini_section;

typedef struct tp_ini_file {
  char *path;        /* as given to tp_ini_read */
  tp_ini_section *sections;
  size_t num_sections;
} tp_ini_file;

/* Reads path. On failure *ini is NULL and the message is "path:line: why"
 * (or "path: why" when the file cannot be opened or read): TP_ERR_NOT_FOUND
 * (no such file), TP_ERR_IO (unreadable), TP_ERR_REGISTRY (not valid INI),
 * TP_ERR_OUT_OF_MEMORY. */
tp_status tp_ini_read(const char *path, tp_ini_file **ini);

/* NULL is a no-op. */
void tp_ini_free(tp_ini_file *ini);

#endif
