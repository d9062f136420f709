/* tests/test_registry_files.c: registries and libraries that are no plain
 * files, or plain files that are no text, as a hostile caller would hand
 * them over (docs/registry.md).
 *
 * - a FIFO as the registry: with no writer it is refused within its wait
 *   (TP_INI_FIFO_WAIT_S, 5 s) instead of blocking for ever; the test's
 *   alarm fails it long before Check's timeout would;
 * - binary bytes: a control byte ends the read at its line, and bytes that
 *   are no printable ASCII in quoted text reach the message as \xNN;
 * - symbolic link loops: the registry path, $TILEPIPE_REGISTRY and a
 *   library each say ELOOP rather than "not found" or nothing;
 * - a registry path of 3.8 KB: a broken entry's error keeps its line
 *   number and reason (the path is cut in the middle instead);
 * - a plugin whose device_image is set with size 0 is refused.
 * Public API only; fixtures through TILEPIPE_PLUGIN_PATH (tu_setup). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "tests/registry_util.h"
#include "tilepipe/registry.h"

START_TEST(test_fifo_without_writer_is_refused_in_time) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/fifo.ini", tu_dir);
  ck_assert_int_eq(mkfifo(path, 0600), 0);
  alarm(20); /* SIGALRM fails the test if the open blocks */
  tp_registry *reg = NULL;
  ck_assert_int_eq(tp_registry_open(&reg, path), TP_ERR_IO);
  alarm(0);
  ck_assert_ptr_null(reg);
  TU_ASSERT_HAS(tp_error_message(), "fifo.ini:1: a FIFO with no data for 5 s (no writer?)");
  /* Through $TILEPIPE_REGISTRY too. */
  setenv("TILEPIPE_REGISTRY", path, 1);
  alarm(20); /* SIGALRM fails the test if the open blocks */
  ck_assert_int_eq(tp_registry_open(&reg, NULL), TP_ERR_IO);
  alarm(0);
  TU_ASSERT_HAS(tp_error_message(), "a FIFO with no data");
}
END_TEST

START_TEST(test_binary_bytes_are_escaped) {
  /* A control byte ends the read at its line, quoting nothing. */
  static const char escape[] = "[a]\nkind = pay\x1b[0mload\n";
  tp_registry *reg = NULL;
  ck_assert_int_eq(tp_registry_open(&reg, tu_write_bytes("esc.ini", escape, sizeof escape - 1)),
                   TP_ERR_REGISTRY);
  TU_ASSERT_HAS(tp_error_message(), "esc.ini:2: control byte 0x1b in the line: not a text file");
  /* High bytes in a section name, a kind and a name asked for. */
  reg = NULL;
  ck_assert_int_eq(tu_open(&reg, "name.ini", "[ab\xff\xfe]\nkind = payload\n"), TP_ERR_REGISTRY);
  TU_ASSERT_HAS(tp_error_message(), "name.ini:1: bad section name 'ab\\xff\\xfe'");
  ck_assert_int_eq(tu_open(&reg, "kind.ini", "[a]\nkind = \xc3\x28\nlibrary = x\n"), TP_OK);
  tu_assert_broken(reg, "a", TP_ERR_REGISTRY, 2, "kind = '\\xc3(': use payload or epilogue");
  tp_plugin_info info;
  ck_assert_int_eq(tp_registry_find(reg, "no\x7f\x80", &info), TP_ERR_NOT_FOUND);
  TU_ASSERT_HAS(tp_error_message(), "has no plugin 'no\\x7f\\x80'");
  tp_registry_close(reg);
  /* A device of random bytes: refused at its first control byte, so the
   * message holds no raw byte at all. */
  ck_assert_int_eq(tp_registry_open(&reg, "/dev/urandom"), TP_ERR_REGISTRY);
  for (const char *c = tp_error_message(); *c; c++)
    ck_assert_msg(*c >= 0x20 && *c < 0x7f, "raw byte 0x%02x in \"%s\"", (unsigned char)*c,
                  tp_error_message());
}
END_TEST

START_TEST(test_symlink_loops_say_eloop) {
  char a[PATH_MAX], b[PATH_MAX];
  snprintf(a, sizeof a, "%s/loop_a", tu_dir);
  snprintf(b, sizeof b, "%s/loop_b", tu_dir);
  ck_assert_int_eq(symlink(b, a), 0);
  ck_assert_int_eq(symlink(a, b), 0);
  tp_registry *reg = NULL;
  ck_assert_int_eq(tp_registry_open(&reg, a), TP_ERR_IO);
  TU_ASSERT_HAS(tp_error_message(), "loop_a: cannot open: ");
  TU_ASSERT_HAS(tp_error_message(), "(a loop of symbolic links)");
  /* $TILEPIPE_REGISTRY on a loop is taken (and fails naming it), not
   * passed over for the next place. */
  tu_write("tilepipe.ini", "[a]\nkind = payload\nlibrary = fixture_payload\n");
  ck_assert_int_eq(chdir(tu_dir), 0);
  setenv("TILEPIPE_REGISTRY", a, 1);
  ck_assert_int_eq(tp_registry_open(&reg, NULL), TP_ERR_IO);
  TU_ASSERT_HAS(tp_error_message(), "(a loop of symbolic links)");
  unsetenv("TILEPIPE_REGISTRY");
  /* A library that is a loop is no library, rather than none found. */
  char text[PATH_MAX + 64];
  snprintf(text, sizeof text, "[l]\nkind = payload\nlibrary = %s\n", a);
  ck_assert_int_eq(tu_open(&reg, "registry.ini", text), TP_OK);
  char want[PATH_MAX + 64];
  snprintf(want, sizeof want, "%s is a loop of symbolic links (ELOOP), not a shared library", a);
  tu_assert_broken(reg, "l", TP_ERR_PLUGIN, 3, want);
  tp_registry_close(reg);
}
END_TEST

START_TEST(test_long_registry_path_keeps_line_and_reason) {
  /* 19 folders of 200 chars: a registry path of about 3.8 KB. */
  char name[PATH_MAX];
  size_t len = 0;
  for (int i = 0; i < 19; i++) {
    memset(name + len, 'a' + i, 200);
    len += 200;
    name[len++] = '/';
  }
  snprintf(name + len, sizeof name - len, "registry.ini");
  ck_assert_uint_lt(strlen(tu_dir) + 1 + strlen(name), PATH_MAX);
  const char *path = tu_write(name, "[ok]\nkind = payload\nlibrary = fixture_payload\n"
                                    "[gone]\nkind = payload\nlibrary = no_such_library\n");
  ck_assert_uint_gt(strlen(path), 3800);
  tp_registry *reg = NULL;
  ck_assert_msg(tp_registry_open(&reg, path) == TP_OK, "%s", tp_error_message());
  tp_plugin_info info = tu_info(reg, "gone");
  ck_assert_int_eq(info.status, TP_ERR_NOT_FOUND);
  TU_ASSERT_HAS(info.error, "/registry.ini:6: library 'no_such_library' not found; tried ");
  ck_assert_str_eq(info.ini_file, path); /* the full path, where it is not a message */
  /* Asking for it by name: the thread's message keeps them too. */
  ck_assert_int_eq(tp_registry_find(reg, "nowhere", &info), TP_ERR_NOT_FOUND);
  TU_ASSERT_HAS(tp_error_message(), "/registry.ini has no plugin 'nowhere' (it lists: ok, gone)");
  tp_registry_close(reg);
  /* A broken file: the reader's message keeps its line and reason. */
  path = tu_write(name, "[ok]\nkind = payload\nnot ini\n");
  ck_assert_int_eq(tp_registry_open(&reg, path), TP_ERR_REGISTRY);
  TU_ASSERT_HAS(tp_error_message(), "/registry.ini:3: not an INI line");
}
END_TEST

START_TEST(test_empty_device_image_is_refused) {
  tp_registry *reg = NULL;
  ck_assert_int_eq(tu_open(&reg, "registry.ini", "[e]\nkind = payload\n"
                                                 "library = fixture_empty_image\n"),
                   TP_OK);
  tu_assert_broken(reg, "e", TP_ERR_PLUGIN, 3, "(plugin 'fixture_empty_image'): device_image is "
                   "set but device_image_size is 0");
  tp_registry_close(reg);
}
END_TEST

static Suite *files_suite(void) {
  Suite *s = suite_create("registry files");
  TCase *tc = tcase_create("files");
  tcase_add_checked_fixture(tc, tu_setup, tu_teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_fifo_without_writer_is_refused_in_time);
  tcase_add_test(tc, test_binary_bytes_are_escaped);
  tcase_add_test(tc, test_symlink_loops_say_eloop);
  tcase_add_test(tc, test_long_registry_path_keeps_line_and_reason);
  tcase_add_test(tc, test_empty_device_image_is_refused);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *runner = srunner_create(files_suite());
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
