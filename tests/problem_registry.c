/* tests/problem_registry.c: see problem_registry.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/problem_registry.h"
#include "tilepipe/reference.h"

static tp_registry *opened;

static void close_opened(void) { tp_registry_close(opened); }

/* The build tree's registry, then the fixture's section, into text; 0 when
 * the registry cannot be read or the text does not fit. */
static int make_ini(char *text, size_t size) {
  FILE *in = fopen(TP_TEST_REGISTRY, "r");
  if (in == NULL) return 0;
  const size_t len = fread(text, 1, size - 1, in);
  const int whole = feof(in) && !ferror(in);
  fclose(in);
  if (!whole) return 0;
  const int n = snprintf(text + len, size - len,
                         "\n[" TP_TEST_ROW_SCALES "]\nkind = payload\nlibrary = %s\n",
                         TP_TEST_PLUGIN_DIR "/fixture_problem.so");
  return n > 0 && (size_t)n < size - len;
}

tp_registry *tp_test_problem_registry(void) {
  if (opened != NULL) return opened;
  char text[16384], err[1024];
  if (!make_ini(text, sizeof text))
    fprintf(stderr, "problem registry: cannot read %s, or it is too long\n", TP_TEST_REGISTRY);
  else if (tp_ref_registry_open(&opened, text, err, sizeof err) != TP_OK)
    fprintf(stderr, "problem registry: %s\n", err);
  else
    atexit(close_opened);
  return opened;
}
