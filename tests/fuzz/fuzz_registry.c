/* tests/fuzz/fuzz_registry.c: the INI registry (core/registry/) on arbitrary
 * files: open, list, find, plans from what it lists, close.
 *
 * The input is the registry file itself, written into a scratch folder.
 * Libraries resolve as they would for a user: against that folder, then
 * TILEPIPE_PLUGIN_PATH, which points at this build's shipped plugins
 * (TP_FUZZ_PLUGIN_PATH), so seeds name them as `library = tp_standard.so`
 * and sections load, refuse tuning keys and break for real. Every usable
 * payload x epilogue pair then plans and runs a small bf16 GEMM on the CPU
 * (a payload that takes other dtypes refuses it with a message).
 *
 * What must hold: open succeeds or fails with a message; every entry's
 * strings are set, a broken entry has a status and a "file:line: why"
 * message naming the registry file; find returns each listed name's
 * first entry and refuses unknown names; close frees everything. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "tests/tmpdir.h"
#include "tilepipe/tilepipe.h"

static char dir[4096];

static void remove_dir(void) { tp_test_tmpdir_remove(dir); }

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  if (tp_test_tmpdir_make(dir, sizeof dir, "tp-fuzz-registry") != 0) {
    perror("fuzz_registry: scratch folder");
    abort();
  }
  atexit(remove_dir);
  /* Only this build's plugins, and no registry from the environment. */
  setenv("TILEPIPE_PLUGIN_PATH", TP_FUZZ_PLUGIN_PATH, 1);
  unsetenv("TILEPIPE_REGISTRY");
  unsetenv("TILEPIPE_LOG");
  return 0;
}

static void fail(const char *what, const char *detail) {
  fprintf(stderr, "fuzz_registry: %s: %s\n", what, detail);
  abort();
}

static void check_entry(const tp_registry *reg, const tp_plugin_info *info) {
  if (!info->name || !info->library || !info->version || !info->error || !info->ini_file)
    fail("an entry with a NULL string", info->name ? info->name : "(no name)");
  if (strcmp(info->ini_file, tp_registry_path(reg)) != 0)
    fail("an entry of another file", info->ini_file);
  if (info->status == TP_OK && info->error[0] != '\0')
    fail("a usable entry with an error", info->error);
  if (info->status != TP_OK && strncmp(info->error, info->ini_file, strlen(info->ini_file)) != 0)
    fail("a broken entry whose message does not name the file", info->error);
  tp_plugin_info found;
  if (tp_registry_find(reg, info->name, &found) != TP_OK)
    fail("a listed name that find does not know", tp_error_message());
  if (strcmp(found.name, info->name) != 0) fail("find returned another name", found.name);
}

/* A 5 x 7 x 9 bf16 GEMM through the pair; planning may be refused. */
static void plan_and_run(tp_registry *reg, const char *payload, const char *epilogue) {
  enum { M = 5, N = 7, K = 9 };
  static uint16_t a[M * K], b[N * K];
  static float d[M * N];
  for (int i = 0; i < M * K; i++) a[i] = 0x3F80; /* 1.0 in bf16 */
  for (int i = 0; i < N * K; i++) b[i] = 0x4000; /* 2.0 */
  tp_gemm_desc desc;
  tp_gemm_desc_init(&desc, M, N, K);
  desc.a = tp_tensor_matrix(TP_DTYPE_BF16, M, K, K, a);
  desc.b = tp_tensor_matrix(TP_DTYPE_BF16, N, K, K, b);
  desc.d = tp_tensor_matrix(TP_DTYPE_F32, M, N, N, d);
  tp_plan *plan = NULL;
  if (tp_plan_create(&plan, reg, payload, epilogue, &desc, TP_BACKEND_CPU) != TP_OK) {
    if (plan != NULL) fail("a refused plan that is not NULL", payload);
    if (tp_error_message()[0] == '\0') fail("a refused plan without a message", payload);
    return;
  }
  memset(d, 0, sizeof d);
  if (tp_plan_run(plan, &desc, NULL) != TP_OK) fail("a planned run failed", tp_error_message());
  for (int i = 0; i < M * N; i++)
    if (d[i] != 2.0f * K) fail("a wrong result", payload);
  tp_plan_destroy(plan);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (tp_test_file_write(dir, "fuzz.ini", data, size) != 0) fail("cannot write", dir);
  char path[4200];
  snprintf(path, sizeof path, "%s/fuzz.ini", dir);
  tp_registry *reg = NULL;
  if (tp_registry_open(&reg, path) != TP_OK) {
    if (reg != NULL) fail("a refused registry that is not NULL", path);
    if (tp_error_message()[0] == '\0') fail("a refused registry without a message", path);
    return 0;
  }
  const size_t count = tp_registry_count(reg);
  tp_plugin_info info;
  for (size_t i = 0; i < count; i++) {
    if (tp_registry_get(reg, i, &info) != TP_OK)
      fail("get refused a listed index", tp_error_message());
    check_entry(reg, &info);
  }
  if (tp_registry_get(reg, count, &info) == TP_OK) fail("get accepted an index past the end", path);
  if (tp_registry_find(reg, "no such plugin", &info) != TP_ERR_NOT_FOUND)
    fail("find accepted an unlisted name", path);
  for (size_t p = 0; p < count; p++) {
    tp_plugin_info payload;
    tp_registry_get(reg, p, &payload);
    if (payload.kind != TP_PLUGIN_PAYLOAD || payload.status != TP_OK || !payload.enabled) continue;
    for (size_t e = 0; e < count; e++) {
      tp_plugin_info epilogue;
      tp_registry_get(reg, e, &epilogue);
      if (epilogue.kind == TP_PLUGIN_EPILOGUE && epilogue.status == TP_OK && epilogue.enabled)
        plan_and_run(reg, payload.name, epilogue.name);
    }
  }
  tp_registry_close(reg);
  return 0;
}
