/* tests/tuned_registry.c: see tuned_registry.h. */
#include <stdio.h>
#include <stdlib.h>

#include "tests/tmpdir.h"
#include "tests/tuned_registry.h"
#include "tilepipe/tilepipe.h"

int tp_test_tuned_registry(const char *dir, const tp_test_tuning *tunings, size_t count) {
  tp_registry *base = NULL;
  tp_plugin_info info;
  if (tp_registry_open(&base, TP_TEST_REGISTRY) != TP_OK ||
      tp_registry_find(base, "standard", &info) != TP_OK) {
    tp_registry_close(base);
    return 0;
  }
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len), *in = fopen(TP_TEST_REGISTRY, "r");
  int ok = out != NULL && in != NULL;
  for (int c; ok && (c = fgetc(in)) != EOF;) fputc(c, out);
  for (size_t i = 0; ok && i < count; ++i)
    fprintf(out, "\n[%s]\nkind = payload\nlibrary = %s\n%s\n", tunings[i].name, info.library,
            tunings[i].keys);
  if (in) fclose(in);
  if (out && fclose(out) != 0) ok = 0;
  ok = ok && tp_test_file_write(dir, "registry.ini", text, len) == 0;
  free(text);
  tp_registry_close(base);
  return ok;
}
