/* tests/fuzz/fuzz_cache_file.c: the disk kernel cache's entry reader
 * (core/backend/cuda/cache_file.c) on arbitrary file contents. No GPU, no
 * driver, no nvJitLink: the reader is plain file parsing.
 *
 * The input is the whole entry file, read for the key text KEY_TEXT. Every
 * answer must be a clean hit, miss or rejection with a reason; a hit must
 * hand back exactly the bytes the file holds after its header and key, and
 * must survive a round trip through the writer (written to a second folder
 * and read back identical) when its log has no NUL byte (the writer stores
 * the log as a C string). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend/cuda/cache_file.h"
#include "tests/fuzz/fuzz.h"
#include "tests/tmpdir.h"

/* The text the seeds were written for: a key text as make_key writes it. */
static const char KEY_TEXT[] = "tilepipe kernel cache format 1\narch sm_90a\nnvjitlink 13.0\n"
                               "driver 0\noption -kernels-used=fuzz\ninput 16 0123456789abcdef\n";
static const char KEY[] = "00fuzz00fuzz00ff";
#define HEADER_BYTES 40

static char dir[4096], round_trip_dir[4096];

static void remove_dirs(void) {
  tp_test_tmpdir_remove(dir);
  tp_test_tmpdir_remove(round_trip_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  if (tp_test_tmpdir_make(dir, sizeof dir, "tp-fuzz-cache") != 0 ||
      tp_test_tmpdir_make(round_trip_dir, sizeof round_trip_dir, "tp-fuzz-cache-rt") != 0) {
    perror("fuzz_cache_file: scratch folder");
    abort();
  }
  atexit(remove_dirs);
  return 0;
}

static void fail(const char *what) {
  fprintf(stderr, "fuzz_cache_file: %s\n", what);
  abort();
}

static tp_cache_file_status read_entry(const char *from, unsigned char **cubin, size_t *size,
                                       char **log) {
  char why[512] = "";
  tp_cache_file_status st =
      tp_cache_file_read(from, KEY, KEY_TEXT, cubin, size, log, why, sizeof why);
  if (st == TP_CACHE_FILE_REJECTED && why[0] == '\0') fail("a rejection without a reason");
  if (st != TP_CACHE_FILE_HIT && (*cubin || *log)) fail("a miss that hands out buffers");
  return st;
}

static void check_round_trip(const unsigned char *cubin, size_t size, const char *log) {
  char why[512] = "";
  if (tp_cache_file_write(round_trip_dir, KEY, KEY_TEXT, cubin, size, log, why, sizeof why) != 0)
    fail(why);
  unsigned char *again = NULL;
  char *again_log = NULL;
  size_t again_size = 0;
  if (read_entry(round_trip_dir, &again, &again_size, &again_log) != TP_CACHE_FILE_HIT)
    fail("an entry just written does not read back");
  if (again_size != size || memcmp(again, cubin, size) != 0 || strcmp(again_log, log) != 0)
    fail("an entry read back differs from what was written");
  free(again);
  free(again_log);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char name[64];
  snprintf(name, sizeof name, "%s.tpk", KEY);
  if (tp_test_file_write(dir, name, data, size) != 0) fail("cannot write the entry file");
  unsigned char *cubin = NULL;
  char *log = NULL;
  size_t cubin_size = 0;
  if (read_entry(dir, &cubin, &cubin_size, &log) != TP_CACHE_FILE_HIT) return 0;

  /* A hit: header, key text, cubin, log, and nothing else. */
  const size_t key_size = sizeof KEY_TEXT - 1;
  if (cubin_size == 0 || size < HEADER_BYTES + key_size + cubin_size)
    fail("a hit with no cubin, or more cubin than the file holds");
  if (memcmp(data + HEADER_BYTES, KEY_TEXT, key_size) != 0) fail("a hit for another key text");
  if (memcmp(data + HEADER_BYTES + key_size, cubin, cubin_size) != 0)
    fail("a hit whose cubin differs from the file's");
  const size_t log_size = size - HEADER_BYTES - key_size - cubin_size;
  if (memcmp(data + HEADER_BYTES + key_size + cubin_size, log, log_size) != 0 ||
      log[log_size] != '\0')
    fail("a hit whose log differs from the file's or is not NUL-terminated");
  if (memchr(log, '\0', log_size) == NULL) check_round_trip(cubin, cubin_size, log);
  free(cubin);
  free(log);
  return 0;
}
