/* tests/registry_util.c: scratch folders and INI files for the registry and
 * loader tests (see registry_util.h). */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/registry_util.h"
#include "tests/tmpdir.h"

char tu_dir[PATH_MAX];
static char first_cwd[PATH_MAX];

void tu_setup(void) {
  ck_assert_msg(tp_test_tmpdir_make(tu_dir, sizeof tu_dir, "tp-registry") == 0,
                "cannot make a scratch folder: %s", strerror(errno));
  ck_assert_ptr_nonnull(getcwd(first_cwd, sizeof first_cwd));
  ck_assert_int_eq(setenv("TILEPIPE_PLUGIN_PATH", TP_TEST_PLUGIN_DIR, 1), 0);
  unsetenv("TILEPIPE_REGISTRY");
  unsetenv("TILEPIPE_LOG");
}

void tu_teardown(void) {
  ck_assert_int_eq(chdir(first_cwd), 0);
  ck_assert_msg(tp_test_tmpdir_remove(tu_dir) == 0, "cannot remove %s: %s", tu_dir,
                strerror(errno));
}

const char *tu_write_bytes(const char *name, const void *data, size_t size) {
  static char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", tu_dir, name);
  ck_assert_msg(tp_test_file_write(tu_dir, name, data, size) == 0, "cannot write %s: %s", path,
                strerror(errno));
  return path;
}

const char *tu_write(const char *name, const char *text) {
  return tu_write_bytes(name, text, strlen(text));
}

const char *tu_fixture(const char *name) {
  static char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s.so", TP_TEST_PLUGIN_DIR, name);
  ck_assert_msg(access(path, F_OK) == 0, "fixture %s is not built", path);
  return path;
}

int *tu_tunable_live(void **handle) {
  *handle = dlopen(tu_fixture("fixture_tunable"), RTLD_NOW | RTLD_LOCAL);
  ck_assert_msg(*handle != NULL, "%s", dlerror());
  int *live = dlsym(*handle, "fixture_tunable_live");
  ck_assert_ptr_nonnull(live);
  return live;
}

tp_status tu_open(tp_registry **reg, const char *name, const char *text) {
  return tp_registry_open(reg, tu_write(name, text));
}

tp_plugin_info tu_info(const tp_registry *reg, const char *name) {
  tp_plugin_info info;
  ck_assert_msg(tp_registry_find(reg, name, &info) == TP_OK, "%s", tp_error_message());
  return info;
}

void tu_assert_broken(const tp_registry *reg, const char *name, tp_status status, int line,
                      const char *needle) {
  tp_plugin_info info = tu_info(reg, name);
  char where[PATH_MAX + 32];
  snprintf(where, sizeof where, "%s:%d: ", tp_registry_path(reg), line);
  ck_assert_msg(info.status == status, "[%s]: status %s, expected %s (%s)", name,
                tp_status_string(info.status), tp_status_string(status), info.error);
  ck_assert_msg(strncmp(info.error, where, strlen(where)) == 0, "[%s]: \"%s\" does not start "
                "with \"%s\"", name, info.error, where);
  TU_ASSERT_HAS(info.error, needle);
}
