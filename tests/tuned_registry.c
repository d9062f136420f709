/* tests/tuned_registry.c: see tuned_registry.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tmpdir.h"
#include "tests/tuned_registry.h"
#include "tilepipe/device.h"
#include "tilepipe/reference.h"
#include "tilepipe/tilepipe.h"

/* The text of TP_TEST_REGISTRY followed by the count tunings into *text
 * (malloc'd: the caller frees it); 1 on success, 0 with the reason in
 * tp_error_message() or errno. */
static int tuned_ini(const tp_test_tuning *tunings, size_t count, char **text) {
  tp_registry *base = NULL;
  int ok = tp_registry_open(&base, TP_TEST_REGISTRY) == TP_OK;
  size_t len = 0;
  *text = NULL;
  FILE *out = ok ? open_memstream(text, &len) : NULL;
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
  tp_registry_close(base);
  return ok;
}

/* The tunings of the registry the program opened, for
 * tp_test_expect_tuned_plan. */
static const tp_test_tuning *opened_tunings;
static size_t opened_count;

/* The value of `key` in a tuning's keys ("tile = 64x64x64\nsplits = 3")
 * into value; 0 when the key is not there. */
static int tuning_value(const char *keys, const char *key, char *value, size_t size) {
  const size_t len = strlen(key);
  for (const char *line = keys; line != NULL && *line; line = strchr(line, '\n')) {
    if (*line == '\n') line++;
    if (strncmp(line, key, len) != 0 || line[len] != ' ') continue;
    const char *v = line + len + strspn(line + len, " =");
    snprintf(value, size, "%.*s", (int)strcspn(v, "\n "), v);
    return 1;
  }
  return 0;
}

int tp_test_tuned_plan_is_asked(const char *section, const tp_plan *plan, char *text,
                                size_t size) {
  char described[512], value[64], want[96], differs[128] = "";
  tp_plan_describe(plan, described, sizeof described);
  for (size_t i = 0; i < opened_count && !differs[0]; ++i) {
    if (strcmp(opened_tunings[i].name, section) != 0) continue;
    const char *keys = opened_tunings[i].keys;
    if (tuning_value(keys, "tile", value, sizeof value)) {
      snprintf(want, sizeof want, " tile %s,", value);
      if (strstr(described, want) == NULL)
        snprintf(differs, sizeof differs, "[%s] asks for tile %s", section, value);
    }
    if (!differs[0] && tuning_value(keys, "cluster", value, sizeof value)) {
      snprintf(want, sizeof want, " cluster %s,", value);
      if (strstr(described, want) == NULL)
        snprintf(differs, sizeof differs, "[%s] asks for cluster %s", section, value);
    }
    if (!differs[0] && tuning_value(keys, "splits", value, sizeof value) && atoi(value) >= 2 &&
        (strstr(described, " bytes workspace") == NULL ||
         strstr(described, ", 0 bytes workspace") != NULL))
      snprintf(differs, sizeof differs, "[%s] asks for %s splits of K: no split-K workspace",
               section, value);
  }
  snprintf(text, size, "%s%s%s", differs, differs[0] ? "; the plan: " : "", described);
  return differs[0] == '\0';
}

int tp_test_tuned_registry_open(const char *name, const tp_test_tuning *tunings, size_t count,
                                int fresh_cache, char *dir, size_t dir_size, tp_registry **reg) {
  opened_tunings = tunings;
  opened_count = count;
  if (tp_test_tmpdir_make(dir, dir_size, name) != 0) {
    perror("setup failed: cannot make a scratch folder");
    return 0;
  }
  if (fresh_cache) {
    /* Empty, and read on the process cache's first use. */
    char cache[1100];
    snprintf(cache, sizeof cache, "%s/cache", dir);
    setenv("TILEPIPE_CACHE_DIR", cache, 1);
  }
  char *text = NULL, err[1024];
  int ok = tuned_ini(tunings, count, &text);
  if (!ok)
    printf("setup failed: cannot make the tuned registry: %s\n", tp_error_message());
  else if (!(ok = tp_ref_registry_open(reg, text, err, sizeof err) == TP_OK))
    printf("setup failed: %s\n", err);
  free(text);
  if (!ok) tp_test_tmpdir_remove(dir);
  return ok;
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
