/* tests/tmpdir.c: scratch folders and files for the tests (see tmpdir.h). */
#define _XOPEN_SOURCE 700 /* nftw, realpath */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/tmpdir.h"

int tp_test_tmpdir_make(char *buf, size_t size, const char *prefix) {
  const char *tmp = getenv("TMPDIR");
  char dir[PATH_MAX], real[PATH_MAX];
  const int n = snprintf(dir, sizeof dir, "%s/%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", prefix);
  if (n < 0 || (size_t)n >= sizeof dir) {
    errno = ENAMETOOLONG;
    return -1;
  }
  if (mkdtemp(dir) == NULL) return -1;
  if (realpath(dir, real) == NULL) {
    const int why = errno;
    tp_test_tmpdir_remove(dir);
    errno = why;
    return -1;
  }
  if (strlen(real) >= size) {
    tp_test_tmpdir_remove(dir);
    errno = ENAMETOOLONG;
    return -1;
  }
  memcpy(buf, real, strlen(real) + 1);
  return 0;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  return remove(path);
}

int tp_test_tmpdir_remove(const char *path) {
  return nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

int tp_test_file_write(const char *dir, const char *name, const void *data, size_t size) {
  char path[PATH_MAX];
  const int n = snprintf(path, sizeof path, "%s/%s", dir, name);
  if (n < 0 || (size_t)n >= sizeof path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  for (char *slash = strchr(path + strlen(dir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
    *slash = '\0';
    if (mkdir(path, 0755) != 0 && errno != EEXIST) return -1;
    *slash = '/';
  }
  FILE *f = fopen(path, "w");
  if (f == NULL) return -1;
  const int complete = fwrite(data, 1, size, f) == size;
  if (fclose(f) != 0 || !complete) return -1;
  return 0;
}
