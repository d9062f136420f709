/* core/registry/ini_file.c: reads an INI file with the system inih and keeps
 * the line of every section header and key.
 *
 * Debian's inih 55 gives the handler no line numbers, reads lines into a
 * 200-byte buffer (a longer line is split, its tail parsed as a new line) and
 * truncates names to 49 chars without a word. So we hand ini_parse_stream our
 * own reader: it reads each raw line into inih's buffer, never past the
 * length limit (a file with no line break, /dev/zero, a pipe that never ends
 * a line, is refused after that many chars), counts lines, checks names,
 * records section headers (the handler never sees them), strips the BOM and
 * the indentation, and only then passes the line on. inih numbers lines by
 * reader calls and calls the handler before asking for the next one, so the
 * reader's count is the handler's line too. The reader
 * classifies a line with inih's own rules (start comments ";#", inline ";"
 * after whitespace, name ends at the first '=' or ':'), so both agree on
 * what a line is. The first error stops the parse. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "core/error.h"
#include "core/registry/ini_file.h"

typedef struct line_reader {
  FILE *file;
  tp_ini_file *ini;
  int line;           /* of the line last handed to inih */
  tp_status status;   /* the first error; the message is already set */
} line_reader;

static tp_status fail(line_reader *r, tp_status status, const char *fmt, ...) TP_PRINTF(3, 4);
static tp_status fail(line_reader *r, tp_status status, const char *fmt, ...) {
  char why[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  r->status = tp_error_set(status, "%s:%d: %s", r->ini->path, r->line, why);
  return r->status;
}

/* inih's find_chars_or_comment: the first char of `chars`, or an inline
 * comment (';' right after whitespace), or the end. */
static const char *scan_to(const char *s, const char *chars) {
  int was_space = 0;
  while (*s && !strchr(chars, *s) && !(was_space && *s == ';')) {
    was_space = isspace((unsigned char)*s);
    s++;
  }
  return s;
}

static tp_status add_section(line_reader *r, const char *name, size_t len) {
  tp_ini_file *ini = r->ini;
  tp_ini_section *grown = realloc(ini->sections, (ini->num_sections + 1) * sizeof *grown);
  if (!grown) return fail(r, TP_ERR_OUT_OF_MEMORY, "out of memory");
  ini->sections = grown;
  tp_ini_section *s = &grown[ini->num_sections];
  *s = (tp_ini_section){.name = strndup(name, len), .line = r->line};
  if (!s->name) return fail(r, TP_ERR_OUT_OF_MEMORY, "out of memory");
  ini->num_sections++;
  return TP_OK;
}

/* "[name]", then nothing but an optional inline comment. */
static tp_status take_section(line_reader *r, const char *s) {
  const char *end = scan_to(s + 1, "]");
  if (*end != ']') return fail(r, TP_ERR_REGISTRY, "section header without a closing ']'");
  size_t len = (size_t)(end - (s + 1));
  if (len > TP_INI_MAX_NAME)
    return fail(r, TP_ERR_REGISTRY, "section name '%.*s' is %zu chars long (at most %d)",
                (int)len, s + 1, len, TP_INI_MAX_NAME);
  const char *rest = end + 1;
  while (isspace((unsigned char)*rest)) rest++;
  if (*rest && *rest != ';')
    return fail(r, TP_ERR_REGISTRY, "unexpected text '%s' after the section header", rest);
  return add_section(r, s + 1, len);
}

/* "name = value" or "name: value"; inih extracts the value, we check the name. */
static tp_status check_key(line_reader *r, const char *s) {
  const char *end = scan_to(s, "=:");
  if (*end != '=' && *end != ':')
    return fail(r, TP_ERR_REGISTRY,
                "not an INI line: expected '[section]', 'key = value' or a ';' or '#' comment");
  size_t len = (size_t)(end - s);
  while (len > 0 && isspace((unsigned char)s[len - 1])) len--;
  if (len == 0) return fail(r, TP_ERR_REGISTRY, "key with no name before '%c'", *end);
  if (len > TP_INI_MAX_NAME)
    return fail(r, TP_ERR_REGISTRY, "key name '%.*s' is %zu chars long (at most %d)", (int)len,
                s, len, TP_INI_MAX_NAME);
  if (r->ini->num_sections == 0)
    return fail(r, TP_ERR_REGISTRY, "key '%.*s' outside any section (add a [name] header above it)",
                (int)len, s);
  return TP_OK;
}

static char *too_long(line_reader *r, int num) {
  fail(r, TP_ERR_REGISTRY, "line is longer than %d chars (the most inih reads)", num - 2);
  return NULL;
}

/* The ini_reader handed to inih: fgets-like, one whole raw line per call,
 * into str. inih needs room for the line, its '\n' and the NUL in num bytes,
 * so a line may have num - 2 chars, and one more for a CRLF's '\r': reading
 * stops at num - 1 chars. */
static char *read_line(char *str, int num, void *stream) {
  line_reader *r = stream;
  if (r->status != TP_OK) return NULL; /* the handler failed: stop */
  errno = 0;
  int c = getc(r->file);
  if (c == EOF && !ferror(r->file)) return NULL;
  r->line++;
  size_t len = 0, max = (size_t)num - 1;
  for (; c != EOF && c != '\n'; c = getc(r->file)) {
    if (c == '\0') {
      fail(r, TP_ERR_REGISTRY, "NUL byte in the line: not a text file");
      return NULL;
    }
    if (len == max) return too_long(r, num);
    str[len++] = (char)c;
  }
  if (ferror(r->file)) {
    fail(r, TP_ERR_IO, "read error: %s", strerror(errno ? errno : EIO));
    return NULL;
  }
  if (len > 0 && str[len - 1] == '\r') len--;
  str[len] = '\0';
  if (len > max - 1) return too_long(r, num);
  char *line = str;
  if (r->line == 1 && strncmp(line, "\xEF\xBB\xBF", 3) == 0) line += 3;
  while (isspace((unsigned char)*line)) line++;

  tp_status st = TP_OK;
  if (*line == '[')
    st = take_section(r, line);
  else if (*line && !strchr(";#", *line))
    st = check_key(r, line);
  if (st != TP_OK) return NULL;
  memmove(str, line, strlen(line) + 1);
  return str;
}

static int on_key(void *user, const char *section, const char *name, const char *value) {
  line_reader *r = user;
  tp_ini_section *s = &r->ini->sections[r->ini->num_sections - 1];
  tp_ini_key *grown = realloc(s->keys, (s->num_keys + 1) * sizeof *grown);
  if (!grown) {
    fail(r, TP_ERR_OUT_OF_MEMORY, "out of memory");
    return 0; /* inih stops asking: the reader sees r->status */
  }
  s->keys = grown;
  tp_ini_key *k = &grown[s->num_keys];
  *k = (tp_ini_key){.name = strdup(name), .value = strdup(value), .line = r->line};
  s->num_keys++; /* counted even when half-made, so tp_ini_free frees it */
  if (!k->name || !k->value) {
    fail(r, TP_ERR_OUT_OF_MEMORY, "out of memory");
    return 0;
  }
  return 1;
}

tp_status tp_ini_read(const char *path, tp_ini_file **ini) {
  if (!ini) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "ini_read: ini is NULL");
  *ini = NULL;
  if (!path) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "ini_read: path is NULL");
  line_reader r = {.status = TP_OK};
  r.ini = calloc(1, sizeof *r.ini);
  if (!r.ini || !(r.ini->path = strdup(path))) {
    tp_ini_free(r.ini);
    return tp_error_set(TP_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
  }
  r.file = fopen(path, "r");
  if (!r.file) {
    int e = errno;
    tp_ini_free(r.ini);
    return tp_error_set(e == ENOENT ? TP_ERR_NOT_FOUND : TP_ERR_IO, "%s: cannot open: %s", path,
                        strerror(e));
  }
  int rc = ini_parse_stream(read_line, &r, on_key, &r);
  fclose(r.file);
  /* The reader refuses every line inih could reject; this is a safety net. */
  if (r.status == TP_OK && rc != 0)
    r.status = tp_error_set(TP_ERR_REGISTRY, "%s:%d: inih rejected this line", path, rc);
  if (r.status != TP_OK) {
    tp_ini_free(r.ini);
    return r.status;
  }
  *ini = r.ini;
  return TP_OK;
}

void tp_ini_free(tp_ini_file *ini) {
  if (!ini) return;
  for (size_t i = 0; i < ini->num_sections; i++) {
    tp_ini_section *s = &ini->sections[i];
    for (size_t k = 0; k < s->num_keys; k++) {
      free(s->keys[k].name);
      free(s->keys[k].value);
    }
    free(s->keys);
    free(s->name);
  }
  free(ini->sections);
  free(ini->path);
  free(ini);
}
