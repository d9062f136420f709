/* tests/tuned_registry.c: see tuned_registry.h. */
#include <stdio.h>
#include <stdlib.h>

#include "tests/tmpdir.h"
#include "tests/tuned_registry.h"
#include "tilepipe/tilepipe.h"

int tp_test_tuned_registry(const char *dir, const tp_test_tuning *tunings, size_t count) {
  tp_registry *base = NULL;
  int ok = tp_registry_open(&base, TP_TEST_REGISTRY) == TP_OK;
  char *text = NULL;
  size_t len = 0;
  FILE *out = ok ? open_memstream(&text, &len) : NULL;
  FILE *in = ok ? fopen(TP_TEST_REGISTRY, "r") : NULL;
  ok = ok && out != NULL && in != NULL;
  for (int c; ok && (c = fgetc(in)) != EOF;) fputc(c, out);
  for (size_t i = 0; ok && i < count; ++i) {
    tp_plugin_info info;
    ok = tp_registry_find(base, tunings[i].library_of, &info) == TP_OK;
    if (ok)
      fprintf(out, "\n[%s]\nkind = payload\nlibrary = %s\n%s\n", tunings[i].name, info.library,
              tunings[i].keys);
  }
  if (in) fclose(in);
  if (out && fclose(out) != 0) ok = 0;
  ok = ok && tp_test_file_write(dir, "registry.ini", text, len) == 0;
  free(text);
  tp_registry_close(base);
  return ok;
}
