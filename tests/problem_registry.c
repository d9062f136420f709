/* tests/problem_registry.c: see problem_registry.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/problem_registry.h"
#include "tests/tmpdir.h"
#include "tilepipe/status.h"

static tp_registry *opened;

static void close_opened(void) { tp_registry_close(opened); }

/* The build tree's registry, then the fixture's section, into dir. */
static int write_ini(const char *dir) {
  FILE *in = fopen(TP_TEST_REGISTRY, "r");
  if (in == NULL) return 0;
  char text[16384];
  const size_t len = fread(text, 1, sizeof text - 1, in);
  const int whole = feof(in) && !ferror(in);
  fclose(in);
  if (!whole) return 0;
  const int n = snprintf(text + len, sizeof text - len,
                         "\n[" TP_TEST_ROW_SCALES "]\nkind = payload\nlibrary = %s\n",
                         TP_TEST_PLUGIN_DIR "/fixture_problem.so");
  return n > 0 && (size_t)n < sizeof text - len &&
         tp_test_file_write(dir, "registry.ini", text, len + (size_t)n) == 0;
}

tp_registry *tp_test_problem_registry(void) {
  if (opened != NULL) return opened;
  char dir[512], path[600];
  if (tp_test_tmpdir_make(dir, sizeof dir, "tilepipe-problem") != 0) {
    perror("problem registry: cannot make a scratch folder");
    return NULL;
  }
  snprintf(path, sizeof path, "%s/registry.ini", dir);
  if (!write_ini(dir))
    fprintf(stderr, "problem registry: cannot write %s from %s\n", path, TP_TEST_REGISTRY);
  else if (tp_registry_open(&opened, path) != TP_OK)
    fprintf(stderr, "problem registry: %s\n", tp_error_message());
  else
    atexit(close_opened);
  tp_test_tmpdir_remove(dir);
  return opened;
}
