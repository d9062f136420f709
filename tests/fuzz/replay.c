/* tests/fuzz/replay.c: a harness of tests/fuzz/ as a plain test program.
 *
 * Runs the harness once on every file of its corpus folder, TP_FUZZ_CORPUS
 * (baked in by tests/fuzz/local.mk; a path given on the command line
 * replaces it: a folder or one file). Any defect shows as the harness's
 * own abort or a sanitizer report; an empty or missing corpus fails too,
 * so the test cannot pass by running nothing. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return -1;
  }
  unsigned char *data = NULL;
  size_t size = 0, cap = 0;
  for (;;) {
    if (size == cap) {
      cap = cap ? 2 * cap : 4096;
      unsigned char *grown = realloc(data, cap);
      if (!grown) {
        free(data);
        fclose(f);
        fprintf(stderr, "%s: out of memory\n", path);
        return -1;
      }
      data = grown;
    }
    size_t got = fread(data + size, 1, cap - size, f);
    size += got;
    if (got == 0) break;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    fprintf(stderr, "%s: read error\n", path);
    free(data);
    return -1;
  }
  LLVMFuzzerTestOneInput(data, size);
  free(data);
  return 0;
}

/* The regular files of dir, in name order (the runs are reproducible). */
static int run_folder(const char *dir, int *count) {
  struct dirent **names;
  int n = scandir(dir, &names, NULL, alphasort);
  if (n < 0) {
    perror(dir);
    return -1;
  }
  int failed = 0;
  for (int i = 0; i < n; i++) {
    char path[4096];
    struct stat st;
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name) < sizeof path &&
        stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
      if (run_file(path) != 0) failed = 1;
      (*count)++;
    }
    free(names[i]);
  }
  free(names);
  return failed ? -1 : 0;
}

int main(int argc, char **argv) {
  const char *target = argc > 1 ? argv[1] : TP_FUZZ_CORPUS;
  LLVMFuzzerInitialize(&argc, &argv);
  struct stat st;
  if (stat(target, &st) != 0) {
    perror(target);
    return 1;
  }
  int count = 0;
  int rc = S_ISDIR(st.st_mode) ? run_folder(target, &count) : run_file(target);
  if (!S_ISDIR(st.st_mode)) count = 1;
  if (rc != 0) return 1;
  if (count == 0) {
    fprintf(stderr, "%s: no inputs\n", target);
    return 1;
  }
  printf("%s: %d inputs, no defect\n", target, count);
  return 0;
}
