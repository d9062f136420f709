/* tests/test_registry.c: reading the INI registry (docs/registry.md).
 *
 * Every INI here is written line by line, one string literal per line with
 * its number in a comment, and each error is asserted with that exact line:
 * "<file>:<line>: ...". Libraries resolve to the fixtures of tests/plugins/
 * through TILEPIPE_PLUGIN_PATH (set by tu_setup). The loader's own refusals
 * are tested in test_loader.c. */
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "tests/registry_util.h"
#include "tilepipe/registry.h"

/* Opening `text` as registry.ini fails with status; the message starts with
 * "<file>:<line>: " and contains needle. */
static void assert_open_fails(const char *text, tp_status status, int line, const char *needle) {
  tp_registry *reg = NULL;
  tp_status st = tu_open(&reg, "registry.ini", text);
  ck_assert_msg(st == status, "status %s, expected %s (%s)", tp_status_string(st),
                tp_status_string(status), tp_error_message());
  ck_assert_ptr_null(reg);
  char where[PATH_MAX + 32];
  snprintf(where, sizeof where, "%s/registry.ini:%d: ", tu_dir, line);
  ck_assert_msg(strncmp(tp_error_message(), where, strlen(where)) == 0,
                "\"%s\" does not start with \"%s\"", tp_error_message(), where);
  TU_ASSERT_HAS(tp_error_message(), needle);
}

static tp_registry *open_ok(const char *name, const char *text) {
  tp_registry *reg = NULL;
  ck_assert_msg(tu_open(&reg, name, text) == TP_OK, "%s", tp_error_message());
  ck_assert_ptr_nonnull(reg);
  return reg;
}

/* n copies of c, in a static buffer of its own per call site's use. */
static const char *repeat(char *buf, char c, size_t n) {
  memset(buf, c, n);
  buf[n] = '\0';
  return buf;
}

/* ------------------------------------------------------------ well-formed */

START_TEST(test_reads_sections_in_file_order) {
  tp_registry *reg = open_ok("registry.ini",
                             "; tilepipe registry\n"                        /* 1 */
                             "# both comment styles\n"                      /* 2 */
                             "\n"                                           /* 3 */
                             "[pay]\n"                                      /* 4 */
                             "kind = payload\n"                             /* 5 */
                             "library = fixture_payload\n"                  /* 6 */
                             "\n"                                           /* 7 */
                             "[epi]   ; a comment after the header\n"       /* 8 */
                             "  kind = epilogue   ; indented, commented\n"  /* 9 */
                             "\tlibrary = fixture_epilogue.so\n"            /* 10 */
                             "enabled = yes\n");                            /* 11 */
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/registry.ini", tu_dir);
  ck_assert_str_eq(tp_registry_path(reg), path);
  ck_assert_uint_eq(tp_registry_count(reg), 2);

  tp_plugin_info info;
  ck_assert_int_eq(tp_registry_get(reg, 0, &info), TP_OK);
  ck_assert_str_eq(info.name, "pay");
  ck_assert_int_eq(info.kind, TP_PLUGIN_PAYLOAD);
  ck_assert_str_eq(info.library, TP_TEST_PLUGIN_DIR "/fixture_payload.so");
  ck_assert_str_eq(info.version, "1.2.3");
  ck_assert_str_eq(info.plugin, "fixture_payload"); /* its descriptor's name, not the section's */
  ck_assert_int_eq(info.cuda_version, 13000);
  ck_assert_int_eq(info.has_device_code, 0);
  ck_assert_int_eq(info.enabled, 1);
  ck_assert_int_eq(info.status, TP_OK);
  ck_assert_str_eq(info.error, "");
  ck_assert_str_eq(info.ini_file, path);
  ck_assert_int_eq(info.ini_line, 4);

  ck_assert_int_eq(tp_registry_get(reg, 1, &info), TP_OK);
  ck_assert_str_eq(info.name, "epi");
  ck_assert_int_eq(info.kind, TP_PLUGIN_EPILOGUE);
  ck_assert_str_eq(info.library, TP_TEST_PLUGIN_DIR "/fixture_epilogue.so");
  ck_assert_str_eq(info.version, "0.0.1");
  ck_assert_int_eq(info.cuda_version, 0);
  ck_assert_int_eq(info.ini_line, 8);
  ck_assert_int_eq(info.status, TP_OK);

  ck_assert_int_eq(tp_registry_find(reg, "epi", &info), TP_OK);
  ck_assert_int_eq(info.ini_line, 8);
  ck_assert_int_eq(tp_registry_get(reg, 2, &info), TP_ERR_INVALID_ARGUMENT);
  TU_ASSERT_HAS(tp_error_message(), "index 2 is out of range");
  ck_assert_int_eq(tp_registry_find(reg, "nope", &info), TP_ERR_NOT_FOUND);
  TU_ASSERT_HAS(tp_error_message(), "no plugin 'nope' (it lists: pay, epi)");
  ck_assert_int_eq(tp_registry_find(reg, NULL, &info), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_registry_get(NULL, 0, &info), TP_ERR_INVALID_ARGUMENT);
  tp_registry_close(reg);
}
END_TEST

/* Values as inih hands them over: BOM, CRLF, "key: value", inline comments
 * only after whitespace, a last line without newline. Disabled sections are
 * not loaded, so their library shows the INI's text. */
START_TEST(test_values_comments_bom_crlf) {
  tp_registry *reg = open_ok("registry.ini",
                             "\xEF\xBB\xBF[bom]\r\n"                         /* 1 */
                             "kind: payload\r\n"                             /* 2 */
                             "library = some/lib.so   ; where it would be\r\n" /* 3 */
                             "enabled = no\r\n"                              /* 4 */
                             "[semicolon]\n"                                 /* 5 */
                             "kind = epilogue\n"                             /* 6 */
                             "library = a;b.so\n"                            /* 7 */
                             "enabled = 0 ; off for now\n"                   /* 8 */
                             "[last]\n"                                      /* 9 */
                             "kind=payload\n"                                /* 10 */
                             "library=x\n"                                   /* 11 */
                             "enabled=false");                               /* 12 */
  ck_assert_uint_eq(tp_registry_count(reg), 3);
  tp_plugin_info info = tu_info(reg, "bom");
  ck_assert_int_eq(info.ini_line, 1);
  ck_assert_int_eq(info.kind, TP_PLUGIN_PAYLOAD);
  ck_assert_str_eq(info.library, "some/lib.so");
  ck_assert_int_eq(info.enabled, 0);
  ck_assert_int_eq(info.status, TP_OK);
  info = tu_info(reg, "semicolon");
  ck_assert_int_eq(info.ini_line, 5);
  ck_assert_int_eq(info.kind, TP_PLUGIN_EPILOGUE);
  ck_assert_str_eq(info.library, "a;b.so");
  ck_assert_int_eq(info.enabled, 0);
  info = tu_info(reg, "last");
  ck_assert_int_eq(info.ini_line, 9);
  ck_assert_str_eq(info.library, "x");
  ck_assert_int_eq(info.enabled, 0);
  tp_registry_close(reg);
}
END_TEST

START_TEST(test_empty_file_is_an_empty_registry) {
  tp_registry *reg = open_ok("registry.ini", "; nothing yet\n");
  ck_assert_uint_eq(tp_registry_count(reg), 0);
  tp_registry_close(reg);
  tp_registry_close(NULL);
  ck_assert_uint_eq(tp_registry_count(NULL), 0);
}
END_TEST

/* Disabled: listed, not loaded, its tuning keys not looked at. */
START_TEST(test_disabled_plugins_are_listed_not_loaded) {
  tp_registry *reg = open_ok("registry.ini",
                             "[off]\n"                       /* 1 */
                             "kind = payload\n"              /* 2 */
                             "library = fixture_payload\n"   /* 3 */
                             "enabled = false\n"             /* 4 */
                             "stages = 99\n"                 /* 5 */
                             "[gone]\n"                      /* 6 */
                             "kind = epilogue\n"             /* 7 */
                             "library = does_not_exist\n"    /* 8 */
                             "enabled = 0\n");               /* 9 */
  tp_plugin_info info = tu_info(reg, "off");
  ck_assert_int_eq(info.status, TP_OK);
  ck_assert_int_eq(info.enabled, 0);
  ck_assert_str_eq(info.version, ""); /* fixture_payload says 1.2.3 once loaded */
  ck_assert_str_eq(info.plugin, "");
  ck_assert_str_eq(info.library, "fixture_payload");
  info = tu_info(reg, "gone");
  ck_assert_int_eq(info.status, TP_OK);
  ck_assert_int_eq(info.enabled, 0);
  tp_registry_close(reg);
}
END_TEST

/* The limits sit exactly where inih's would bite: 198 chars per line (its
 * 200-byte buffer less '\n' and NUL), 48 chars per name. */
START_TEST(test_longest_line_and_names_pass) {
  char comment[256], section[64], key[64], text[1024];
  repeat(comment, 'c', 198);
  comment[0] = ';';
  repeat(section, 's', 48);
  repeat(key, 'k', 48);
  snprintf(text, sizeof text, "%s\n[%s]\nkind = payload\nlibrary = x\nenabled = no\n%s = 1\n",
           comment, section, key);
  tp_registry *reg = open_ok("registry.ini", text);
  tp_plugin_info info = tu_info(reg, section);
  ck_assert_uint_eq(strlen(info.name), 48);
  ck_assert_int_eq(info.ini_line, 2);
  tp_registry_close(reg);
}
END_TEST

/* ------------------------------------------------- file-level refusals */

START_TEST(test_overlong_line) {
  char text[512], value[256];
  snprintf(text, sizeof text, "[a]\nkind = payload\nlibrary = %s\n", repeat(value, 'v', 189));
  assert_open_fails(text, TP_ERR_REGISTRY, 3, "line is longer than 198 chars (the most inih reads)");
  /* CRLF: the '\r' is not counted, so 198 chars and a CRLF pass. */
  snprintf(text, sizeof text, "[a]\r\nkind = payload\r\nlibrary = x\r\nenabled = no\r\n;%s\r\n",
           repeat(value, 'c', 197));
  tp_registry_close(open_ok("registry.ini", text));
}
END_TEST

/* A line with no end: the writer sends 4096 chars and keeps the FIFO open
 * until the registry has answered, so a reader that wanted the whole line
 * before judging its length would wait here for ever (the test's timeout). */
typedef struct fifo_writer {
  const char *path;
  int done[2]; /* a pipe: the test writes to it once the registry answered */
} fifo_writer;

static void *write_endless_line(void *arg) {
  fifo_writer *w = arg;
  char line[4096];
  memset(line, 'x', sizeof line);
  int fd = open(w->path, O_WRONLY);
  if (fd < 0) return NULL;
  ssize_t n = write(fd, line, sizeof line);
  char c;
  ssize_t got = read(w->done[0], &c, 1); /* until the test says so */
  close(fd);
  return (void *)(intptr_t)(n == (ssize_t)sizeof line && got == 1);
}

START_TEST(test_line_without_end) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/endless.ini", tu_dir);
  ck_assert_int_eq(mkfifo(path, 0600), 0);
  fifo_writer w = {.path = path};
  ck_assert_int_eq(pipe(w.done), 0);
  pthread_t writer;
  ck_assert_int_eq(pthread_create(&writer, NULL, write_endless_line, &w), 0);
  tp_registry *reg = NULL;
  tp_status st = tp_registry_open(&reg, path);
  ck_assert_int_eq(write(w.done[1], "!", 1), 1);
  void *wrote = NULL;
  ck_assert_int_eq(pthread_join(writer, &wrote), 0);
  ck_assert_msg(wrote, "the writer could not send its line");
  close(w.done[0]);
  close(w.done[1]);
  ck_assert_int_eq(st, TP_ERR_REGISTRY);
  ck_assert_ptr_null(reg);
  TU_ASSERT_HAS(tp_error_message(), "endless.ini:1: line is longer than 198 chars");
  /* Endless NUL bytes: refused at the first. */
  ck_assert_int_eq(tp_registry_open(&reg, "/dev/zero"), TP_ERR_REGISTRY);
  TU_ASSERT_HAS(tp_error_message(), "/dev/zero:1: NUL byte in the line");
}
END_TEST

START_TEST(test_overlong_section_name) {
  char text[512], name[64];
  snprintf(text, sizeof text, "; fine\n[%s]\nkind = payload\n", repeat(name, 'n', 49));
  assert_open_fails(text, TP_ERR_REGISTRY, 2, "section name 'nnnn");
  TU_ASSERT_HAS(tp_error_message(), "is 49 chars long (at most 48)");
}
END_TEST

START_TEST(test_overlong_key_name) {
  char text[512], name[64];
  snprintf(text, sizeof text, "[a]\nkind = payload\n%s = 3\n", repeat(name, 'k', 49));
  assert_open_fails(text, TP_ERR_REGISTRY, 3, "key name 'kkkk");
  TU_ASSERT_HAS(tp_error_message(), "is 49 chars long (at most 48)");
}
END_TEST

START_TEST(test_not_ini) {
  assert_open_fails("[a]\n"            /* 1 */
                    "kind = payload\n" /* 2 */
                    "just some words\n", /* 3 */
                    TP_ERR_REGISTRY, 3, "not an INI line");
  assert_open_fails("; ok\n[a\n", TP_ERR_REGISTRY, 2, "section header without a closing ']'");
  assert_open_fails("[a] b\n", TP_ERR_REGISTRY, 1, "unexpected text 'b' after the section header");
  assert_open_fails("[a]\n= value\n", TP_ERR_REGISTRY, 2, "key with no name");
}
END_TEST

START_TEST(test_key_outside_any_section) {
  assert_open_fails("; header comment\n"   /* 1 */
                    "kind = payload\n"     /* 2 */
                    "[a]\n",               /* 3 */
                    TP_ERR_REGISTRY, 2, "key 'kind' outside any section");
}
END_TEST

START_TEST(test_bad_section_names) {
  const char *good = "[ok-1.x_y]\nkind = payload\nlibrary = x\nenabled = no\n"; /* 1-4 */
  char text[256];
  const char *bad[] = {"[has space]", "[a/b]", "[]", "[ padded ]"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(text, sizeof text, "%s%s\n", good, bad[i]);
    assert_open_fails(text, TP_ERR_REGISTRY, 5, "bad section name");
  }
  TU_ASSERT_HAS(tp_error_message(), "' padded '");
}
END_TEST

START_TEST(test_binary_files) {
  static const char nul[] = "[a]\nkind = pay\0load\n";
  tp_registry *reg = NULL;
  ck_assert_int_eq(tp_registry_open(&reg, tu_write_bytes("registry.ini", nul, sizeof nul - 1)),
                   TP_ERR_REGISTRY);
  TU_ASSERT_HAS(tp_error_message(), "/registry.ini:2: NUL byte in the line: not a text file");
  /* A shared library handed over as the registry. */
  ck_assert_int_eq(tp_registry_open(&reg, tu_fixture("fixture_payload")), TP_ERR_REGISTRY);
  TU_ASSERT_HAS(tp_error_message(), "fixture_payload.so:1: ");
  ck_assert_ptr_null(reg);
}
END_TEST

START_TEST(test_unreadable_files) {
  tp_registry *reg = NULL;
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/missing.ini", tu_dir);
  ck_assert_int_eq(tp_registry_open(&reg, path), TP_ERR_NOT_FOUND);
  TU_ASSERT_HAS(tp_error_message(), path);
  TU_ASSERT_HAS(tp_error_message(), "cannot open");
  ck_assert_int_eq(tp_registry_open(&reg, tu_dir), TP_ERR_IO); /* a folder */
  TU_ASSERT_HAS(tp_error_message(), tu_dir);
  TU_ASSERT_HAS(tp_error_message(), "read error");
  ck_assert_ptr_null(reg);
  ck_assert_int_eq(tp_registry_open(NULL, path), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_registry_open(&reg, ""), TP_ERR_INVALID_ARGUMENT);
}
END_TEST

/* ------------------------------------------------- per-plugin problems */

START_TEST(test_section_problems_break_only_that_plugin) {
  tp_registry *reg = open_ok("registry.ini",
                             "[good]\n"                     /* 1 */
                             "kind = epilogue\n"            /* 2 */
                             "library = fixture_epilogue\n" /* 3 */
                             "[no_kind]\n"                  /* 4 */
                             "library = fixture_payload\n"  /* 5 */
                             "[no_library]\n"               /* 6 */
                             "kind = payload\n"             /* 7 */
                             "[bad_kind]\n"                 /* 8 */
                             "kind = prologue\n"            /* 9 */
                             "library = fixture_payload\n"  /* 10 */
                             "[bad_enabled]\n"              /* 11 */
                             "kind = payload\n"             /* 12 */
                             "library = fixture_payload\n"  /* 13 */
                             "enabled = maybe\n"            /* 14 */
                             "[good]\n"                     /* 15 */
                             "kind = payload\n"             /* 16 */
                             "library = fixture_payload\n"  /* 17 */
                             "[twice]\n"                    /* 18 */
                             "kind = payload\n"             /* 19 */
                             "library = fixture_payload\n"  /* 20 */
                             "kind = epilogue\n"            /* 21 */
                             "[missing]\n"                  /* 22 */
                             "kind = payload\n"             /* 23 */
                             "library = no_such_plugin\n"   /* 24 */
                             "[empty_library]\n"            /* 25 */
                             "kind = payload\n"             /* 26 */
                             "library =\n");                /* 27 */
  ck_assert_uint_eq(tp_registry_count(reg), 9);
  tp_plugin_info info = tu_info(reg, "good"); /* the first [good] */
  ck_assert_int_eq(info.status, TP_OK);
  ck_assert_int_eq(info.kind, TP_PLUGIN_EPILOGUE);
  ck_assert_str_eq(info.version, "0.0.1");

  tu_assert_broken(reg, "no_kind", TP_ERR_REGISTRY, 4, "section [no_kind] has no 'kind' key");
  tu_assert_broken(reg, "no_library", TP_ERR_REGISTRY, 6, "section [no_library] has no 'library'");
  tu_assert_broken(reg, "bad_kind", TP_ERR_REGISTRY, 9, "kind = 'prologue': use payload or epilogue");
  tu_assert_broken(reg, "bad_enabled", TP_ERR_REGISTRY, 14, "enabled = 'maybe': use true, false");
  tu_assert_broken(reg, "twice", TP_ERR_REGISTRY, 21, "key 'kind' repeated (first at line 19)");
  tu_assert_broken(reg, "missing", TP_ERR_NOT_FOUND, 24, "library 'no_such_plugin' not found");
  tu_assert_broken(reg, "empty_library", TP_ERR_REGISTRY, 27, "has no 'library' path");
  ck_assert_str_eq(tu_info(reg, "bad_enabled").version, ""); /* broken: not loaded */

  ck_assert_int_eq(tp_registry_get(reg, 5, &info), TP_OK); /* the second [good] */
  ck_assert_str_eq(info.name, "good");
  ck_assert_int_eq(info.status, TP_ERR_REGISTRY);
  ck_assert_int_eq(info.ini_line, 15);
  TU_ASSERT_HAS(info.error, "registry.ini:15: duplicate section [good] (first at line 1)");
  ck_assert_str_eq(info.version, "");

  /* Every place tried, in order; the first is what info.library shows. */
  info = tu_info(reg, "missing");
  char want[PATH_MAX * 2];
  snprintf(want, sizeof want, "tried %s/no_such_plugin, %s/no_such_plugin.so, %s/no_such_plugin, "
           "%s/no_such_plugin.so, %s/no_such_plugin, %s/no_such_plugin.so", tu_dir, tu_dir,
           TP_TEST_PLUGIN_DIR, TP_TEST_PLUGIN_DIR, TP_PLUGIN_DIR, TP_PLUGIN_DIR);
  TU_ASSERT_HAS(info.error, want);
  snprintf(want, sizeof want, "%s/no_such_plugin", tu_dir);
  ck_assert_str_eq(info.library, want);
  tp_registry_close(reg);
}
END_TEST

/* ------------------------------------------------------- search order */

START_TEST(test_search_order) {
  char env_file[PATH_MAX], cwd_file[PATH_MAX], missing[PATH_MAX];
  snprintf(env_file, sizeof env_file, "%s", tu_write("env/a.ini", "[from_env]\n"));
  snprintf(cwd_file, sizeof cwd_file, "%s", tu_write("tilepipe.ini", "[from_cwd]\n"));
  snprintf(missing, sizeof missing, "%s/missing.ini", tu_dir);
  ck_assert_int_eq(chdir(tu_dir), 0);
  struct { const char *env; const char *want; } cases[] = {
      {env_file, env_file}, /* $TILEPIPE_REGISTRY first */
      {missing, cwd_file},  /* set but absent: go on searching */
      {"", cwd_file},       /* empty means unset */
      {NULL, cwd_file},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (cases[i].env)
      setenv("TILEPIPE_REGISTRY", cases[i].env, 1);
    else
      unsetenv("TILEPIPE_REGISTRY");
    tp_registry *reg = NULL;
    ck_assert_msg(tp_registry_open(&reg, NULL) == TP_OK, "%s", tp_error_message());
    ck_assert_str_eq(tp_registry_path(reg), cases[i].want);
    tp_registry_close(reg);
  }
  /* A relative path is taken against the working directory. */
  tp_registry *reg = NULL;
  ck_assert_int_eq(tp_registry_open(&reg, "env/a.ini"), TP_OK);
  ck_assert_str_eq(tp_registry_path(reg), env_file);
  ck_assert_str_eq(tu_info(reg, "from_env").ini_file, env_file);
  tp_registry_close(reg);
}
END_TEST

START_TEST(test_nothing_found_lists_every_place) {
  if (access(TP_REGISTRY_FILE, F_OK) == 0) {
    /* An installed registry would (rightly) be found; nothing to test here. */
    fprintf(stderr, "%s exists: not testing the empty search\n", TP_REGISTRY_FILE);
    return;
  }
  char missing[PATH_MAX];
  snprintf(missing, sizeof missing, "%s/missing.ini", tu_dir);
  char empty[PATH_MAX];
  tu_write("empty/README", "no registry in this folder\n");
  snprintf(empty, sizeof empty, "%s/empty", tu_dir);
  ck_assert_int_eq(chdir(empty), 0);
  setenv("TILEPIPE_REGISTRY", missing, 1);
  tp_registry *reg = NULL;
  ck_assert_int_eq(tp_registry_open(&reg, NULL), TP_ERR_NOT_FOUND);
  ck_assert_ptr_null(reg);
  const char *msg = tp_error_message();
  TU_ASSERT_HAS(msg, missing);
  TU_ASSERT_HAS(msg, "($TILEPIPE_REGISTRY)");
  TU_ASSERT_HAS(msg, "tilepipe.ini (the working directory)");
  TU_ASSERT_HAS(msg, TP_REGISTRY_FILE " (the installed registry)");
  unsetenv("TILEPIPE_REGISTRY");
  ck_assert_int_eq(tp_registry_open(&reg, NULL), TP_ERR_NOT_FOUND);
  TU_ASSERT_HAS(tp_error_message(), "$TILEPIPE_REGISTRY (unset)");
}
END_TEST

/* ---------------------------------------------------- library paths */

static void link_fixture(const char *name, const char *as) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s", tu_write(as, "")); /* makes the folders */
  ck_assert_int_eq(unlink(path), 0);
  ck_assert_int_eq(symlink(tu_fixture(name), path), 0);
}

static void assert_library(const char *ini_name, const char *library_line, const char *want) {
  char text[PATH_MAX + 64];
  snprintf(text, sizeof text, "[p]\nkind = payload\nlibrary = %s\n", library_line);
  tp_registry *reg = open_ok(ini_name, text);
  tp_plugin_info info = tu_info(reg, "p");
  ck_assert_msg(info.status == TP_OK, "%s", info.error);
  ck_assert_str_eq(info.library, want);
  ck_assert_str_eq(info.version, "1.2.3");
  tp_registry_close(reg);
}

START_TEST(test_library_resolution) {
  char want[PATH_MAX];
  link_fixture("fixture_payload", "reg/plugins/fixture_payload.so");
  link_fixture("fixture_payload", "reg/fixture_payload.so");

  /* Relative to the INI file's folder, with folders in the name. */
  snprintf(want, sizeof want, "%s/reg/plugins/fixture_payload.so", tu_dir);
  assert_library("reg/registry.ini", "plugins/fixture_payload.so", want);
  /* The INI folder comes before $TILEPIPE_PLUGIN_PATH; ".so" is added. */
  snprintf(want, sizeof want, "%s/reg/fixture_payload.so", tu_dir);
  assert_library("reg/registry.ini", "fixture_payload", want);
  /* Each folder of $TILEPIPE_PLUGIN_PATH in turn; empty ones skipped. */
  char path[PATH_MAX * 2];
  snprintf(path, sizeof path, "%s/nothing_here::%s", tu_dir, TP_TEST_PLUGIN_DIR);
  setenv("TILEPIPE_PLUGIN_PATH", path, 1);
  assert_library("registry.ini", "fixture_payload", TP_TEST_PLUGIN_DIR "/fixture_payload.so");
  /* Absolute: as it is (and with ".so" added). */
  unsetenv("TILEPIPE_PLUGIN_PATH");
  assert_library("registry.ini", TP_TEST_PLUGIN_DIR "/fixture_payload.so",
                 TP_TEST_PLUGIN_DIR "/fixture_payload.so");
  assert_library("registry.ini", TP_TEST_PLUGIN_DIR "/fixture_payload",
                 TP_TEST_PLUGIN_DIR "/fixture_payload.so");
  /* Without $TILEPIPE_PLUGIN_PATH the fixture folder is not searched. */
  tp_registry *reg = open_ok("registry.ini", "[p]\nkind = payload\nlibrary = fixture_payload\n");
  tu_assert_broken(reg, "p", TP_ERR_NOT_FOUND, 3, "library 'fixture_payload' not found");
  tp_registry_close(reg);
}
END_TEST

/* A library that exists but is no regular file is named as what it is,
 * not "not found"; a folder of that name does not stop the search. */
START_TEST(test_library_not_a_file) {
  char text[PATH_MAX + 128], want[PATH_MAX + 128];
  tu_write("libs/fixture_payload/README", "a folder, not a library\n");
  snprintf(text, sizeof text, "[dir]\nkind = payload\nlibrary = %s/libs\n"  /* 1-3 */
                              "[dev]\nkind = payload\nlibrary = /dev/null\n"  /* 4-6 */
                              "[rel]\nkind = payload\nlibrary = libs\n",       /* 7-9 */
           tu_dir);
  tp_registry *reg = open_ok("registry.ini", text);
  snprintf(want, sizeof want, "library '%s/libs': %s/libs is a directory, not a shared library; "
           "tried %s/libs (a directory), %s/libs.so", tu_dir, tu_dir, tu_dir, tu_dir);
  tu_assert_broken(reg, "dir", TP_ERR_PLUGIN, 3, want);
  tu_assert_broken(reg, "dev", TP_ERR_PLUGIN, 6, "library '/dev/null': /dev/null is a character "
                   "device, not a shared library; tried /dev/null (a character device), "
                   "/dev/null.so");
  snprintf(want, sizeof want, "%s/libs is a directory, not a shared library", tu_dir);
  tu_assert_broken(reg, "rel", TP_ERR_PLUGIN, 9, want);
  tp_registry_close(reg);
  /* The folder libs/fixture_payload is passed over for the library after it. */
  char path[PATH_MAX * 2];
  snprintf(path, sizeof path, "%s/libs:%s", tu_dir, TP_TEST_PLUGIN_DIR);
  setenv("TILEPIPE_PLUGIN_PATH", path, 1);
  assert_library("registry.ini", "fixture_payload", TP_TEST_PLUGIN_DIR "/fixture_payload.so");
}
END_TEST

/* A $TILEPIPE_PLUGIN_PATH entry too long for a path is listed as such, and
 * the places after it are still tried and listed. */
START_TEST(test_plugin_path_too_long) {
  static char path[6000];
  memset(path, 'd', 5000);
  path[0] = '/';
  snprintf(path + 5000, sizeof path - 5000, ":%s/elsewhere", tu_dir);
  setenv("TILEPIPE_PLUGIN_PATH", path, 1);
  tp_registry *reg = open_ok("registry.ini", "[p]\nkind = payload\nlibrary = nowhere\n");
  tu_assert_broken(reg, "p", TP_ERR_NOT_FOUND, 3, "library 'nowhere' not found; tried ");
  const char *error = tu_info(reg, "p").error;
  TU_ASSERT_HAS(error, "dddd... (5008 chars, longer than PATH_MAX), /ddd");
  TU_ASSERT_HAS(error, "dddd... (5011 chars, longer than PATH_MAX), ");
  TU_ASSERT_HAS(error, "/elsewhere/nowhere.so, ");
  TU_ASSERT_HAS(error, TP_PLUGIN_DIR "/nowhere.so");
  tp_registry_close(reg);
  /* Too many places for the message: the list shows that it is cut. */
  memset(path, 0, sizeof path);
  for (int i = 0; i < 40; i++) snprintf(path + strlen(path), 64, "/folder/number/%02d:", i);
  setenv("TILEPIPE_PLUGIN_PATH", path, 1);
  reg = open_ok("registry.ini", "[p]\nkind = payload\nlibrary = nowhere\n");
  error = tu_info(reg, "p").error;
  ck_assert_msg(strlen(error) > 3 && strcmp(error + strlen(error) - 3, "...") == 0,
                "\"%s\" does not end in \"...\"", error);
  tp_registry_close(reg);
}
END_TEST

static Suite *registry_suite(void) {
  Suite *s = suite_create("registry");
  TCase *ok = tcase_create("well-formed");
  tcase_add_checked_fixture(ok, tu_setup, tu_teardown);
  tcase_add_test(ok, test_reads_sections_in_file_order);
  tcase_add_test(ok, test_values_comments_bom_crlf);
  tcase_add_test(ok, test_empty_file_is_an_empty_registry);
  tcase_add_test(ok, test_disabled_plugins_are_listed_not_loaded);
  tcase_add_test(ok, test_longest_line_and_names_pass);
  suite_add_tcase(s, ok);

  TCase *file = tcase_create("file refused");
  tcase_add_checked_fixture(file, tu_setup, tu_teardown);
  tcase_add_test(file, test_overlong_line);
  tcase_add_test(file, test_line_without_end);
  tcase_add_test(file, test_overlong_section_name);
  tcase_add_test(file, test_overlong_key_name);
  tcase_add_test(file, test_not_ini);
  tcase_add_test(file, test_key_outside_any_section);
  tcase_add_test(file, test_bad_section_names);
  tcase_add_test(file, test_binary_files);
  tcase_add_test(file, test_unreadable_files);
  suite_add_tcase(s, file);

  TCase *entry = tcase_create("plugin broken");
  tcase_add_checked_fixture(entry, tu_setup, tu_teardown);
  tcase_add_test(entry, test_section_problems_break_only_that_plugin);
  suite_add_tcase(s, entry);

  TCase *paths = tcase_create("paths");
  tcase_add_checked_fixture(paths, tu_setup, tu_teardown);
  tcase_add_test(paths, test_search_order);
  tcase_add_test(paths, test_nothing_found_lists_every_place);
  tcase_add_test(paths, test_library_resolution);
  tcase_add_test(paths, test_library_not_a_file);
  tcase_add_test(paths, test_plugin_path_too_long);
  suite_add_tcase(s, paths);
  return s;
}

int main(void) {
  SRunner *runner = srunner_create(registry_suite());
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
