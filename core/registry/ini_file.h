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
 *   - values are as inih delivers them: trimmed, inline "; comment" removed;
 *   - at most TP_INI_MAX_SECTIONS sections and TP_INI_MAX_KEYS keys in all.
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

/* The most sections, and keys over all sections, one file may hold: past
 * them the file is refused at the first line too many, so that a registry
 * costs memory and time in proportion to a sane file (docs/registry.md). */
#define TP_INI_MAX_SECTIONS 100000
#define TP_INI_MAX_KEYS 1000000

/* The longest a FIFO given as the file may leave the reader without data
 * (no writer yet, or a writer that does not write): past it, it is
 * refused, so that a FIFO with no writer cannot hang the caller. */
#define TP_INI_FIFO_WAIT_S 5

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
  size_t keys_cap;   /* allocated length of keys */
} tp_ini_section;

typedef struct tp_ini_file {
  char *path;        /* as given to tp_ini_read */
  tp_ini_section *sections;
  size_t num_sections;
  size_t sections_cap; /* allocated length of sections */
  size_t num_keys;     /* over all sections */
} tp_ini_file;

/* Reads path (symbolic links followed). A FIFO is read as its writer
 * writes; one with no data for TP_INI_FIFO_WAIT_S (no writer, say) is
 * refused. A control byte (other than whitespace) ends the read: not a text
 * file. On failure *ini is NULL and the message is "path:line: why" (or
 * "path: why" when the file cannot be opened or read; text quoted from the
 * file has every byte that is no printable ASCII written as \xNN):
 * TP_ERR_NOT_FOUND (no such file), TP_ERR_IO (unreadable, a loop of
 * symbolic links, a FIFO with no data), TP_ERR_REGISTRY (not valid INI,
 * or past the limits above), TP_ERR_OUT_OF_MEMORY. */
tp_status tp_ini_read(const char *path, tp_ini_file **ini);

/* The longest text tp_ini_quote writes, its NUL included. */
#define TP_INI_QUOTE_MAX 128

/* The first len chars of s (up to a NUL) as a message may quote them:
 * printable ASCII as it is, every other byte as \xNN, cut to fit size
 * (at most TP_INI_QUOTE_MAX is plenty for a name). Returns buf. */
const char *tp_ini_quote(const char *s, size_t len, char *buf, size_t size);

/* NULL is a no-op. */
void tp_ini_free(tp_ini_file *ini);

#endif
