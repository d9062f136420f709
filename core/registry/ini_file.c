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
 * what a line is. The first error stops the parse.
 *
 * The file is read through a non-blocking fd (next_byte), so that a FIFO
 * with no writer is refused after a bounded wait instead of hanging.
 * Sections and keys grow geometrically and stop at TP_INI_MAX_SECTIONS and
 * TP_INI_MAX_KEYS: a file's cost is linear in its size. Text quoted from the file into a
 * message goes through tp_ini_quote, so a binary file cannot put raw bytes
 * into a message. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "core/error.h"
#include "core/registry/ini_file.h"

typedef struct line_reader {
  int fd;             /* opened O_NONBLOCK */
  unsigned char buf[4096];
  size_t pos, len;    /* the unread bytes are buf[pos..len) */
  int fifo;           /* the file is a FIFO: reads may wait (next_byte) */
  int fifo_waited;    /* a wait found a writer since the last data */
  int at_end;         /* read() said end of file */
  int error;          /* read()'s errno, 0 while none */
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
  char shown[TP_ERROR_PATH_MAX];
  r->status = tp_error_set(status, "%s:%d: %s", tp_error_path(r->ini->path, shown), r->line, why);
  return r->status;
}

/* The next byte of the file, EOF at its end or on an error (r->error).
 * The fd is non-blocking, so that a FIFO never blocks the open or a read:
 * where it has no data yet (no writer at all, or one that has not written)
 * the reader waits in poll() for TP_INI_FIFO_WAIT_S at most, then gives up
 * with ETIMEDOUT. A regular file never waits. */
static int next_byte(line_reader *r) {
  if (r->pos < r->len) return r->buf[r->pos++];
  if (r->error || r->at_end) return EOF;
  for (;;) {
    ssize_t n = read(r->fd, r->buf, sizeof r->buf);
    if (n > 0) {
      r->len = (size_t)n;
      r->pos = 1;
      r->fifo_waited = 0;
      return r->buf[0];
    }
    int e = n == 0 ? 0 : errno;
    if (e == EINTR) continue;
    /* A FIFO reads as ended (0) while it has had no writer, and EAGAIN
     * while its writer has not written: wait for either once. */
    if (r->fifo && !r->fifo_waited && (n == 0 || e == EAGAIN || e == EWOULDBLOCK)) {
      struct pollfd p = {.fd = r->fd, .events = POLLIN};
      int ready = poll(&p, 1, TP_INI_FIFO_WAIT_S * 1000);
      if (ready > 0) r->fifo_waited = n == 0; /* a writer came: its end is final */
      if (ready > 0 || (ready < 0 && errno == EINTR)) continue;
      r->error = ready == 0 ? ETIMEDOUT : errno;
      return EOF;
    }
    if (n == 0) {
      r->at_end = 1;
      return EOF;
    }
    r->error = e;
    return EOF;
  }
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

const char *tp_ini_quote(const char *s, size_t len, char *buf, size_t size) {
  size_t n = 0;
  for (size_t i = 0; i < len && s[i] && n + 5 <= size; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c < 0x7f)
      buf[n++] = (char)c;
    else
      n += (size_t)snprintf(buf + n, size - n, "\\x%02x", c);
  }
  buf[n] = '\0';
  return buf;
}

/* items (an array of *cap items of `item` bytes, count used) with room for
 * one more: itself, or moved to twice the room; NULL when out of memory
 * (items is then untouched). */
static void *with_room(void *items, size_t *cap, size_t count, size_t item) {
  if (count < *cap) return items;
  size_t want = *cap ? 2 * *cap : 8;
  void *grown = realloc(items, want * item);
  if (grown) *cap = want;
  return grown;
}

static tp_status add_section(line_reader *r, const char *name, size_t len) {
  tp_ini_file *ini = r->ini;
  if (ini->num_sections == TP_INI_MAX_SECTIONS)
    return fail(r, TP_ERR_REGISTRY, "more than %d sections (the most a registry holds)",
                TP_INI_MAX_SECTIONS);
  tp_ini_section *sections =
      with_room(ini->sections, &ini->sections_cap, ini->num_sections, sizeof *sections);
  if (!sections) return fail(r, TP_ERR_OUT_OF_MEMORY, "out of memory");
  ini->sections = sections;
  tp_ini_section *s = &sections[ini->num_sections];
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
  char quoted[TP_INI_QUOTE_MAX];
  if (len > TP_INI_MAX_NAME)
    return fail(r, TP_ERR_REGISTRY, "section name '%s' is %zu chars long (at most %d)",
                tp_ini_quote(s + 1, len, quoted, sizeof quoted), len, TP_INI_MAX_NAME);
  const char *rest = end + 1;
  while (isspace((unsigned char)*rest)) rest++;
  if (*rest && *rest != ';')
    return fail(r, TP_ERR_REGISTRY, "unexpected text '%s' after the section header",
                tp_ini_quote(rest, strlen(rest), quoted, sizeof quoted));
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
  char quoted[TP_INI_QUOTE_MAX];
  if (len > TP_INI_MAX_NAME)
    return fail(r, TP_ERR_REGISTRY, "key name '%s' is %zu chars long (at most %d)",
                tp_ini_quote(s, len, quoted, sizeof quoted), len, TP_INI_MAX_NAME);
  if (r->ini->num_sections == 0)
    return fail(r, TP_ERR_REGISTRY, "key '%s' outside any section (add a [name] header above it)",
                tp_ini_quote(s, len, quoted, sizeof quoted));
  if (r->ini->num_keys == TP_INI_MAX_KEYS)
    return fail(r, TP_ERR_REGISTRY, "more than %d keys (the most a registry holds)",
                TP_INI_MAX_KEYS);
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
  int c = next_byte(r);
  if (c == EOF && !r->error) return NULL;
  r->line++;
  size_t len = 0, max = (size_t)num - 1;
  for (; c != EOF && c != '\n'; c = next_byte(r)) {
    if ((c < 0x20 && !isspace(c)) || c == 0x7f) { /* no text file */
      if (c == '\0')
        fail(r, TP_ERR_REGISTRY, "NUL byte in the line: not a text file");
      else
        fail(r, TP_ERR_REGISTRY, "control byte 0x%02x in the line: not a text file", c);
      return NULL;
    }
    if (len == max) return too_long(r, num);
    str[len++] = (char)c;
  }
  if (r->error == ETIMEDOUT) {
    fail(r, TP_ERR_IO, "a FIFO with no data for %d s (no writer?): give a regular file, or "
         "write to the FIFO", TP_INI_FIFO_WAIT_S);
    return NULL;
  }
  if (r->error) {
    fail(r, TP_ERR_IO, "read error: %s", strerror(r->error));
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
  tp_ini_key *keys = with_room(s->keys, &s->keys_cap, s->num_keys, sizeof *keys);
  if (!keys) {
    fail(r, TP_ERR_OUT_OF_MEMORY, "out of memory");
    return 0; /* inih stops asking: the reader sees r->status */
  }
  s->keys = keys;
  tp_ini_key *k = &keys[s->num_keys];
  *k = (tp_ini_key){.name = strdup(name), .value = strdup(value), .line = r->line};
  s->num_keys++; /* counted even when half-made, so tp_ini_free frees it */
  r->ini->num_keys++;
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
  char shown[TP_ERROR_PATH_MAX];
  tp_error_path(path, shown);
  r.fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (r.fd < 0) {
    int e = errno;
    tp_ini_free(r.ini);
    return tp_error_set(e == ENOENT ? TP_ERR_NOT_FOUND : TP_ERR_IO, "%s: cannot open: %s%s",
                        shown, strerror(e), e == ELOOP ? " (a loop of symbolic links)" : "");
  }
  struct stat st;
  r.fifo = fstat(r.fd, &st) == 0 && S_ISFIFO(st.st_mode);
  int rc = ini_parse_stream(read_line, &r, on_key, &r);
  close(r.fd);
  /* The reader refuses every line inih could reject; this is a safety net. */
  if (r.status == TP_OK && rc != 0)
    r.status = tp_error_set(TP_ERR_REGISTRY, "%s:%d: inih rejected this line", shown, rc);
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
