/* tests/tuned_registry.c: see tuned_registry.h. */
#include <stdio.h>
#include <stdlib.h>

#include "tests/tmpdir.h"
#include "tests/tuned_registry.h"
#include "tilepipe/device.h"
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

int tp_test_tuned_registry_open(const char *name, const tp_test_tuning *tunings, size_t count,
                                int fresh_cache, char *dir, size_t dir_size, tp_registry **reg) {
  if (tp_test_tmpdir_make(dir, dir_size, name) != 0) {
    perror("setup failed: cannot make a scratch folder");
    return 0;
  }
  char path[1100];
  if (fresh_cache) {
    /* Empty, and read on the process cache's first use. */
    snprintf(path, sizeof path, "%s/cache", dir);
    setenv("TILEPIPE_CACHE_DIR", path, 1);
  }
  snprintf(path, sizeof path, "%s/registry.ini", dir);
  if (!tp_test_tuned_registry(dir, tunings, count)) {
    printf("setup failed: cannot write the tuned registry: %s\n", tp_error_message());
    tp_test_tmpdir_remove(dir);
    return 0;
  }
  if (tp_registry_open(reg, path) != TP_OK) {
    printf("setup failed: %s\n", tp_error_message());
    tp_test_tmpdir_remove(dir);
    return 0;
  }
  return 1;
}

int tp_test_gpu_usable(void) {
  tp_device_props props;
  if (tp_device_info(&props) != TP_OK) {
    printf("SKIP: no usable GPU: %s\n", tp_error_message());
    return 0;
  }
  printf("GPU: %s, %d SMs\n", props.name, props.sm_count);
  return 1;
}

int tp_test_tuned_run(const char *name, const tp_test_tuning *tunings, size_t count,
                      int fresh_cache, int timeout, tp_registry **reg,
                      void (*add_tests)(TCase *tc)) {
  char dir[512];
  if (!tp_test_tuned_registry_open(name, tunings, count, fresh_cache, dir, sizeof dir, reg))
    return 99;
  Suite *s = suite_create(name);
  TCase *tc = tcase_create(name);
  tcase_set_timeout(tc, timeout);
  add_tests(tc);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  tp_registry_close(*reg);
  tp_test_tmpdir_remove(dir);
  return failed == 0 ? 0 : 1;
}
