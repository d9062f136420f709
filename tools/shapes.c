/* tools/shapes.c: see shapes.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilepipe/gemm.h"
#include "tools/shapes.h"

enum { MAX_LINE = 256 };
static const int64_t MAX_SIZE = TP_GEMM_MAX_DIM;

/* Parses one line (comment already cut); 0 = blank, 1 = shape, -1 = bad. */
static int parse_line(char *line, tp_shape *out) {
  int64_t v[3];
  char *p = line, *end;
  for (int i = 0; i < 3; i++) {
    errno = 0;
    long long x = strtoll(p, &end, 10);
    if (end == p) return i == 0 && strspn(p, " \t\r\n") == strlen(p) ? 0 : -1;
    if (errno || x < 1 || x > MAX_SIZE) return -1;
    v[i] = x;
    p = end;
  }
  if (strspn(p, " \t\r\n") != strlen(p)) return -1;
  *out = (tp_shape){v[0], v[1], v[2]};
  return 1;
}

/* One line of f into line (its '\n' dropped): TP_ERR_NOT_FOUND at the end
 * of the file; TP_ERR_INVALID_ARGUMENT, said in err, for a line longer than
 * MAX_LINE - 2 characters or one with a NUL byte (no text file). */
static tp_status read_line(FILE *f, char *line, const char *path, int lineno, char *err,
                           size_t errlen) {
  int c = getc(f);
  if (c == EOF) return TP_ERR_NOT_FOUND;
  size_t len = 0;
  for (; c != EOF && c != '\n'; c = getc(f)) {
    if (c == '\0') {
      snprintf(err, errlen, "%s:%d: NUL byte in the line: not a text file", path, lineno);
      return TP_ERR_INVALID_ARGUMENT;
    }
    if (len == MAX_LINE - 2) {
      snprintf(err, errlen, "%s:%d: line longer than %d characters", path, lineno, MAX_LINE - 2);
      return TP_ERR_INVALID_ARGUMENT;
    }
    line[len++] = (char)c;
  }
  line[len] = '\0';
  return TP_OK;
}

tp_status tp_shapes_read(const char *path, tp_shape **shapes, size_t *count, char *err,
                         size_t errlen) {
  *shapes = NULL;
  *count = 0;
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    snprintf(err, errlen, "cannot read the shapes file %s: %s", path, strerror(errno));
    return TP_ERR_IO;
  }
  tp_status st = TP_OK;
  size_t cap = 0;
  char line[MAX_LINE];
  for (int lineno = 1; st == TP_OK && (st = read_line(f, line, path, lineno, err, errlen)) == TP_OK;
       lineno++) {
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    tp_shape s;
    const int kind = parse_line(line, &s);
    if (kind < 0) {
      snprintf(err, errlen, "%s:%d: expected \"M N K\", three integers in 1..%lld", path, lineno,
               (long long)MAX_SIZE);
      st = TP_ERR_INVALID_ARGUMENT;
    } else if (kind == 1) {
      if (*count == cap) {
        cap = cap ? 2 * cap : 16;
        tp_shape *grown = realloc(*shapes, cap * sizeof *grown);
        if (grown == NULL) {
          snprintf(err, errlen, "out of host memory");
          st = TP_ERR_OUT_OF_MEMORY;
          break;
        }
        *shapes = grown;
      }
      (*shapes)[(*count)++] = s;
    }
  }
  if (st == TP_ERR_NOT_FOUND) st = TP_OK; /* the end of the file */
  if (st == TP_OK && ferror(f)) {
    snprintf(err, errlen, "error reading %s", path);
    st = TP_ERR_IO;
  }
  fclose(f);
  if (st == TP_OK && *count == 0) {
    snprintf(err, errlen, "%s lists no shapes", path);
    st = TP_ERR_INVALID_ARGUMENT;
  }
  if (st != TP_OK) {
    free(*shapes);
    *shapes = NULL;
    *count = 0;
  }
  return st;
}
