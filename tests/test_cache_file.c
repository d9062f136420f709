/* tests/test_cache_file.c: the disk kernel cache's entry reader
 * (core/backend/cuda/cache_file.c) on entries that are no regular file.
 *
 * A FIFO in an entry's place, with no writer, must be rejected at once
 * (an open or read that blocks would hang plan creation for ever: the
 * test's alarm fails it first); so must a folder and a device, each with
 * its kind named. A real entry, written and read back, is a hit with its
 * bytes. No GPU and no driver: the reader is plain file handling. Internal
 * functions, so the convenience library. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "core/backend/cuda/cache_file.h"
#include "tests/tmpdir.h"

static const char KEY[] = "0123456789abcdef";
static const char KEY_TEXT[] = "tilepipe kernel cache test key\n";

static char dir[PATH_MAX], entry[PATH_MAX];

static void setup(void) {
  ck_assert_int_eq(tp_test_tmpdir_make(dir, sizeof dir, "tp-cache-file"), 0);
  snprintf(entry, sizeof entry, "%s/%s.tpk", dir, KEY);
}

static void teardown(void) { ck_assert_int_eq(tp_test_tmpdir_remove(dir), 0); }

/* Reads the entry under a 20 s alarm: rejected, why naming `kind`. */
static void assert_rejected(const char *kind) {
  unsigned char *cubin = NULL;
  size_t cubin_size = 0;
  char *log = NULL, why[512] = "";
  alarm(20); /* SIGALRM fails the test if the read blocks */
  tp_cache_file_status st =
      tp_cache_file_read(dir, KEY, KEY_TEXT, &cubin, &cubin_size, &log, why, sizeof why);
  alarm(0);
  ck_assert_int_eq(st, TP_CACHE_FILE_REJECTED);
  ck_assert_ptr_null(cubin);
  ck_assert_ptr_null(log);
  ck_assert_msg(strstr(why, kind) && strstr(why, entry), "why: \"%s\", expected %s and %s", why,
                entry, kind);
}

START_TEST(test_fifo_entry_is_rejected_at_once) {
  ck_assert_int_eq(mkfifo(entry, 0600), 0);
  assert_rejected("a FIFO, not a regular file");
}
END_TEST

START_TEST(test_folder_and_device_entries_are_rejected) {
  ck_assert_int_eq(mkdir(entry, 0700), 0);
  assert_rejected("a directory, not a regular file");
  ck_assert_int_eq(rmdir(entry), 0);
  ck_assert_int_eq(symlink("/dev/zero", entry), 0);
  assert_rejected("a character device, not a regular file");
}
END_TEST

START_TEST(test_written_entry_reads_back) {
  const unsigned char cubin[5] = {1, 2, 3, 0, 4};
  char why[512] = "";
  ck_assert_msg(tp_cache_file_write(dir, KEY, KEY_TEXT, cubin, sizeof cubin, "log", why,
                                    sizeof why) == 0, "%s", why);
  unsigned char *got = NULL;
  size_t got_size = 0;
  char *log = NULL;
  ck_assert_int_eq(tp_cache_file_read(dir, KEY, KEY_TEXT, &got, &got_size, &log, why, sizeof why),
                   TP_CACHE_FILE_HIT);
  ck_assert_uint_eq(got_size, sizeof cubin);
  ck_assert_int_eq(memcmp(got, cubin, sizeof cubin), 0);
  ck_assert_str_eq(log, "log");
  free(got);
  free(log);
}
END_TEST

int main(void) {
  Suite *s = suite_create("cache file");
  TCase *tc = tcase_create("entries");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 30); /* past the FIFO case's alarm */
  tcase_add_test(tc, test_fifo_entry_is_rejected_at_once);
  tcase_add_test(tc, test_folder_and_device_entries_are_rejected);
  tcase_add_test(tc, test_written_entry_reads_back);
  suite_add_tcase(s, tc);
  SRunner *runner = srunner_create(s);
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
