/* tests/registry_util.c: scratch folders and INI files for the registry and
 * loader tests (see registry_util.h). */
#define _XOPEN_SOURCE 700 /* nftw */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/registry_util.h"

char tu_dir[PATH_MAX];
static char first_cwd[PATH_MAX];

void tu_setup(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(tu_dir, sizeof tu_dir, "%s/tp-registry-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  ck_assert_msg(mkdtemp(tu_dir) != NULL, "mkdtemp(%s): %s", tu_dir, strerror(errno));
  /* Physical and absolute, as getcwd() reports it after a chdir there. */
  char real[PATH_MAX];
  ck_assert_ptr_nonnull(realpath(tu_dir, real));
  snprintf(tu_dir, sizeof tu_dir, "%s", real);
  ck_assert_ptr_nonnull(getcwd(first_cwd, sizeof first_cwd));
  ck_assert_int_eq(setenv("TILEPIPE_PLUGIN_PATH", TP_TEST_PLUGIN_DIR, 1), 0);
  unsetenv("TILEPIPE_REGISTRY");
  unsetenv("TILEPIPE_LOG");
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  return remove(path);
}

void tu_teardown(void) {
  ck_assert_int_eq(chdir(first_cwd), 0);
  ck_assert_msg(nftw(tu_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) == 0, "cannot remove %s",
                tu_dir);
}

const char *tu_write_bytes(const char *name, const void *data, size_t size) {
  static char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", tu_dir, name);
  for (char *slash = strchr(path + strlen(tu_dir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
    *slash = '\0';
    ck_assert_msg(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", path, strerror(errno));
    *slash = '/';
  }
  FILE *f = fopen(path, "w");
  ck_assert_msg(f != NULL, "cannot write %s: %s", path, strerror(errno));
  ck_assert_uint_eq(fwrite(data, 1, size, f), size);
  ck_assert_int_eq(fclose(f), 0);
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
