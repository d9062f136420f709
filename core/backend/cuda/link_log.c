/* core/backend/cuda/link_log.c: the ptxas report checker. See link_log.h.
 *
 * The report comes in blocks, one per function (nvcc prints the third line
 * without the "ptxas ." prefix; both forms are read):
 *
 *   ptxas info    : Compiling entry function 'k' for 'sm_90a'
 *   ptxas info    : Function properties for k
 *   ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
 *   ptxas info    : Used 168 registers, used 1 barriers
 *
 * Diagnostics such as "ptxas info : (C7508) Potential Performance Loss: ..."
 * come on lines of their own, often before the blocks. Lines are scanned in
 * place (pointer and length), so any line length is fine. */
#include <stdlib.h>
#include <string.h>

#include "core/backend/cuda/link_log.h"
#include "core/error.h"

/* What makes a log fail, most specific first: the first pattern found on a
 * line names the problem. */
static const struct {
  const char *pattern;
  const char *problem;
} forbidden[] = {
    {"(C7504)",
     "setmaxnreg ignored to keep compatibility across compilation units (link with -lto)"},
    {"(C7506)", "setmaxnreg ignored because of an extern call"},
    {"(C7508)",
     "setmaxnreg ignored: register count at entry unknown (give __launch_bounds__ its min-blocks "
     "argument)"},
    {"(C7509)", "wgmma serialized by an extern call (a hook was not inlined)"},
    {"wgmma.mma_async instructions are serialized", "wgmma serialized"},
    {"'setmaxnreg' ignored", "setmaxnreg ignored"},
};

/* The longest part of a line quoted in a message. */
#define QUOTE_MAX 300

typedef struct line {
  const char *s;
  size_t n;
} line;

/* Steps to the next line of log; false at the end. */
static int next_line(const char **cursor, line *l) {
  const char *p = *cursor;
  if (!p || !*p) return 0;
  const char *end = strchr(p, '\n');
  l->s = p;
  l->n = end ? (size_t)(end - p) : strlen(p);
  *cursor = end ? end + 1 : p + l->n;
  return 1;
}

static const char *find(line l, const char *needle) {
  size_t k = strlen(needle);
  for (size_t i = 0; i + k <= l.n; i++)
    if (memcmp(l.s + i, needle, k) == 0) return l.s + i;
  return NULL;
}

/* The decimal number just before `at` on the line ("732 bytes spill": the
 * 732), or -1 when there is none. */
static long number_before(line l, const char *at) {
  const char *p = at;
  while (p > l.s && p[-1] == ' ') p--;
  const char *digits_end = p;
  while (p > l.s && p[-1] >= '0' && p[-1] <= '9') p--;
  if (p == digits_end) return -1;
  return strtol(p, NULL, 10);
}

/* The number just before `label` on the line; -1 when the label is absent. */
static long figure(line l, const char *label) {
  const char *at = find(l, label);
  return at ? number_before(l, at) : -1;
}

/* Copies the function name a line announces into name (empty if none):
 * "Compiling entry function 'k' for ..." or "Function properties for k". */
static void announced(line l, char *name, size_t size) {
  static const char entry[] = "Compiling entry function '", props[] = "Function properties for ";
  const char *from = NULL, *to = l.s + l.n;
  const char *at;
  if ((at = find(l, entry)) != NULL) {
    from = at + sizeof entry - 1;
    const char *q = memchr(from, '\'', (size_t)(to - from));
    if (q) to = q;
  } else if ((at = find(l, props)) != NULL) {
    from = at + sizeof props - 1;
    while (to > from && (to[-1] == ' ' || to[-1] == '\r')) to--;
  }
  size_t n = from ? (size_t)(to - from) : 0;
  if (n >= size) n = size - 1;
  memcpy(name, from ? from : "", n);
  name[n] = '\0';
}

tp_status tp_link_log_check(const char *log) {
  const char *cursor = log;
  line l;
  char function[256] = "";
  int reported = 0;
  while (next_line(&cursor, &l)) {
    reported |= find(l, "Compiling entry function '") != NULL;
    int quoted = (int)(l.n < QUOTE_MAX ? l.n : QUOTE_MAX);
    for (size_t i = 0; i < sizeof forbidden / sizeof forbidden[0]; i++)
      if (find(l, forbidden[i].pattern))
        return tp_error_set(TP_ERR_LINK, "device link: ptxas reports %s: \"%.*s\"",
                            forbidden[i].problem, quoted, l.s);
    if (find(l, "Function properties for ")) announced(l, function, sizeof function);
    long stores = figure(l, "bytes spill stores"), loads = figure(l, "bytes spill loads");
    if (stores > 0 || loads > 0)
      return tp_error_set(TP_ERR_LINK, "device link: function '%s' spills registers: \"%.*s\"",
                          function, quoted, l.s);
  }
  /* A check that saw no report would vouch for a kernel it never saw. */
  if (!reported)
    return tp_error_set(TP_ERR_LINK,
                        "device link: the info log has no ptxas report (no \"Compiling entry "
                        "function\" line); link with -Xptxas=-v and without nvJitLink's cache");
  return TP_OK;
}

tp_status tp_link_log_stats(const char *log, const char *kernel, tp_link_stats *out) {
  if (!kernel || !out)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_link_log_stats: kernel or out is NULL");
  const char *cursor = log;
  line l;
  char entry[256] = "", props[256] = "";
  int have_registers = 0, have_frame = 0;
  tp_link_stats s = {0, 0, 0, 0};
  while (next_line(&cursor, &l)) {
    if (find(l, "Compiling entry function '")) announced(l, entry, sizeof entry);
    if (find(l, "Function properties for ")) announced(l, props, sizeof props);
    long v;
    if (strcmp(entry, kernel) == 0 && (v = figure(l, "registers")) >= 0 && find(l, "Used ")) {
      s.registers = (int)v;
      have_registers = 1;
    }
    if (strcmp(props, kernel) == 0 && (v = figure(l, "bytes stack frame")) >= 0) {
      s.stack_bytes = (int)v;
      s.spill_store_bytes = (int)figure(l, "bytes spill stores");
      s.spill_load_bytes = (int)figure(l, "bytes spill loads");
      have_frame = 1;
    }
  }
  if (!have_registers || !have_frame)
    return tp_error_set(TP_ERR_NOT_FOUND,
                        "device link: the ptxas report has no registers or stack frame for kernel "
                        "'%s'",
                        kernel);
  *out = s;
  return TP_OK;
}
