/* tests/test_loader.c: loading plugins, the ABI checks, init, tuning keys,
 * tp_registry_resolve and unloading.
 *
 * Each refusal is a purpose-built fixture (tests/plugins/) that sits in one
 * registry beside well-formed ones; the test asserts its status, its
 * "<file>:<line>: " and its reason, and that the good plugins beside it stay
 * usable. fixture_tunable counts its live states in an exported int, read
 * here with dlsym, to show fini runs for refused sections and on close. A
 * payload's device code, whole or in groups of kernels, is checked and
 * looked up here too (core/registry/device_code.h). */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "core/registry/device_code.h"
#include "core/registry/registry_internal.h"
#include "tests/registry_util.h"

static tp_registry *open_ok(const char *text) {
  tp_registry *reg = NULL;
  ck_assert_msg(tu_open(&reg, "registry.ini", text) == TP_OK, "%s", tp_error_message());
  return reg;
}

/* Resolves name and calls its plan slot, which every fixture answers with
 * TP_ERR_UNSUPPORTED and a sentence; returns that sentence (static). */
static const char *plan_reply(const tp_registry *reg, const char *name, tp_plugin_kind kind) {
  static char err[256];
  const tp_plugin_desc *desc = NULL;
  void *state = NULL;
  ck_assert_msg(tp_registry_resolve(reg, name, kind, &desc, &state) == TP_OK, "%s",
                tp_error_message());
  ck_assert_int_eq(desc->kind, kind);
  tp_status st;
  if (kind == TP_PLUGIN_PAYLOAD) {
    ck_assert_ptr_null(desc->epilogue);
    tp_payload_plan plan;
    st = desc->payload->plan(state, NULL, TP_BACKEND_CPU, &plan, err, sizeof err);
  } else {
    ck_assert_ptr_null(desc->payload);
    tp_epilogue_plan plan;
    st = desc->epilogue->plan(state, NULL, TP_BACKEND_CPU, &plan, err, sizeof err);
  }
  ck_assert_int_eq(st, TP_ERR_UNSUPPORTED);
  return err;
}

/* ------------------------------------------------------------ refusals */

START_TEST(test_each_refusal_leaves_the_others_usable) {
  /* Not even an ELF file: long enough that the loader reads a whole header. */
  tu_write("not_a_library.so", "This is a text file that was renamed to look like a shared "
                               "library; dlopen must refuse it, and say why.\n");
  tp_registry *reg = open_ok("[good_payload]\n"                   /* 1 */
                             "kind = payload\n"                   /* 2 */
                             "library = fixture_payload\n"        /* 3 */
                             "[good_epilogue]\n"                  /* 4 */
                             "kind = epilogue\n"                  /* 5 */
                             "library = fixture_epilogue\n"       /* 6 */
                             "[text]\n"                           /* 7 */
                             "kind = payload\n"                   /* 8 */
                             "library = not_a_library.so\n"       /* 9 */
                             "[no_entry]\n"                       /* 10 */
                             "kind = payload\n"                   /* 11 */
                             "library = fixture_no_entry\n"       /* 12 */
                             "[null_entry]\n"                     /* 13 */
                             "kind = payload\n"                   /* 14 */
                             "library = fixture_null_entry\n"     /* 15 */
                             "[abi_major]\n"                      /* 16 */
                             "kind = payload\n"                   /* 17 */
                             "library = fixture_abi_major\n"      /* 18 */
                             "[abi_minor]\n"                      /* 19 */
                             "kind = payload\n"                   /* 20 */
                             "library = fixture_abi_minor\n"      /* 21 */
                             "[small_desc]\n"                     /* 22 */
                             "kind = payload\n"                   /* 23 */
                             "library = fixture_small_desc\n"     /* 24 */
                             "[confused]\n"                       /* 25 */
                             "kind = epilogue\n"                  /* 26 */
                             "library = fixture_kind_confused\n"  /* 27 */
                             "[confused_as_payload]\n"            /* 28 */
                             "kind = payload\n"                   /* 29 */
                             "library = fixture_kind_confused\n"  /* 30 */
                             "[missing_slot]\n"                   /* 31 */
                             "kind = payload\n"                   /* 32 */
                             "library = fixture_missing_slot\n"   /* 33 */
                             "[init_fails]\n"                     /* 34 */
                             "kind = payload\n"                   /* 35 */
                             "library = fixture_init_fails\n"     /* 36 */
                             "[wrong_kind]\n"                     /* 37 */
                             "kind = epilogue\n"                  /* 38 */
                             "library = fixture_payload\n"        /* 39 */
                             "[bad_images]\n"                     /* 40 */
                             "kind = payload\n"                   /* 41 */
                             "library = fixture_bad_images\n"     /* 42 */
                             "[first_minor]\n"                    /* 43 */
                             "kind = payload\n"                   /* 44 */
                             "library = fixture_abi_first_minor\n"); /* 45 */
  char want[PATH_MAX + 128];
  snprintf(want, sizeof want, "cannot load '%s/not_a_library.so': ", tu_dir);
  tu_assert_broken(reg, "text", TP_ERR_PLUGIN, 9, want);
  tu_assert_broken(reg, "text", TP_ERR_PLUGIN, 9, "invalid ELF header"); /* dlerror()'s words */
  tu_assert_broken(reg, "no_entry", TP_ERR_PLUGIN, 12,
                   "fixture_no_entry.so' is not a tilepipe plugin: no tp_plugin_entry symbol");
  tu_assert_broken(reg, "null_entry", TP_ERR_PLUGIN, 15,
                   "fixture_null_entry.so': tp_plugin_entry() returned NULL");
  snprintf(want, sizeof want, "fixture_abi_major.so' is built for plugin ABI %d.%d, this "
           "tilepipe has ABI %d.%d (the major versions differ)", TP_PLUGIN_ABI_MAJOR + 1,
           TP_PLUGIN_ABI_MINOR, TP_PLUGIN_ABI_MAJOR, TP_PLUGIN_ABI_MINOR);
  tu_assert_broken(reg, "abi_major", TP_ERR_PLUGIN, 18, want);
  snprintf(want, sizeof want, "fixture_abi_minor.so' needs plugin ABI %d.%d, newer than this "
           "tilepipe's ABI %d.%d", TP_PLUGIN_ABI_MAJOR, TP_PLUGIN_ABI_MINOR + 1,
           TP_PLUGIN_ABI_MAJOR, TP_PLUGIN_ABI_MINOR);
  tu_assert_broken(reg, "abi_minor", TP_ERR_PLUGIN, 21, want);
  snprintf(want, sizeof want, "fixture_small_desc.so': descriptor struct_size %zu is too small "
           "for the required fields", offsetof(tp_plugin_desc, name));
  tu_assert_broken(reg, "small_desc", TP_ERR_PLUGIN, 24, want);
  tu_assert_broken(reg, "confused", TP_ERR_PLUGIN, 27,
                   "(plugin 'fixture_kind_confused') declares kind epilogue but carries payload ops");
  tu_assert_broken(reg, "confused_as_payload", TP_ERR_PLUGIN, 30,
                   "(plugin 'fixture_kind_confused') is of kind epilogue, but the registry says "
                   "kind = payload");
  tu_assert_broken(reg, "missing_slot", TP_ERR_PLUGIN, 33,
                   "fixture_missing_slot.so': required payload ops slot 'cpu_mma' is NULL");
  tu_assert_broken(reg, "init_fails", TP_ERR_PLUGIN, 36,
                   "plugin 'fixture_init_fails' (" TP_TEST_PLUGIN_DIR "/fixture_init_fails.so): "
                   "init failed: fixture_init_fails: no accelerator here (by design)");
  tu_assert_broken(reg, "wrong_kind", TP_ERR_PLUGIN, 39,
                   "(plugin 'fixture_payload') is of kind payload, but the registry says "
                   "kind = epilogue");
  tu_assert_broken(reg, "bad_images", TP_ERR_PLUGIN, 42,
                   "fixture_bad_images.so' (plugin 'fixture_bad_images') sets both device_image "
                   "and device_images; set one");
  /* Refused means unloaded: no version, no state. */
  for (size_t i = 2; i + 1 < tp_registry_count(reg); i++) {
    tp_plugin_info info;
    ck_assert_int_eq(tp_registry_get(reg, i, &info), TP_OK);
    ck_assert_str_eq(info.version, "");
  }
  ck_assert_int_eq(tu_info(reg, "good_payload").status, TP_OK);
  ck_assert_int_eq(tu_info(reg, "good_epilogue").status, TP_OK);
  ck_assert_str_eq(plan_reply(reg, "good_payload", TP_PLUGIN_PAYLOAD),
                   "loader fixture: plans nothing");
  ck_assert_str_eq(plan_reply(reg, "good_epilogue", TP_PLUGIN_EPILOGUE),
                   "loader fixture: plans nothing");
  /* A plugin built for an older minor of this major loads and plans. */
  ck_assert_int_eq(tu_info(reg, "first_minor").status, TP_OK);
  ck_assert_str_eq(tu_info(reg, "first_minor").version, "0.0.1");
  ck_assert_str_eq(plan_reply(reg, "first_minor", TP_PLUGIN_PAYLOAD),
                   "loader fixture: plans nothing");
  tp_registry_close(reg);
}
END_TEST

/* ---------------------------------------------------------- tuning keys */

START_TEST(test_tuning_keys_reach_each_sections_state) {
  void *handle;
  int *live = tu_tunable_live(&handle);
  int before = *live;
  tp_registry *reg = open_ok("[two]\n"                       /* 1 */
                             "kind = payload\n"              /* 2 */
                             "library = fixture_tunable\n"   /* 3 */
                             "stages = 2\n"                  /* 4 */
                             "[eight]\n"                     /* 5 */
                             "kind = payload\n"              /* 6 */
                             "library = fixture_tunable\n"   /* 7 */
                             "stages = 8\n"                  /* 8 */
                             "[default]\n"                   /* 9 */
                             "kind = payload\n"              /* 10 */
                             "library = fixture_tunable\n"   /* 11 */
                             "[too_many]\n"                  /* 12 */
                             "kind = payload\n"              /* 13 */
                             "library = fixture_tunable\n"   /* 14 */
                             "stages = 9\n"                  /* 15 */
                             "[not_a_number]\n"              /* 16 */
                             "kind = payload\n"              /* 17 */
                             "library = fixture_tunable\n"   /* 18 */
                             "stages = four\n"               /* 19 */
                             "[unknown_key]\n"               /* 20 */
                             "kind = payload\n"              /* 21 */
                             "library = fixture_tunable\n"   /* 22 */
                             "stages = 3\n"                  /* 23 */
                             "colour = red\n"                /* 24 */
                             "[no_keys_taken]\n"             /* 25 */
                             "kind = payload\n"              /* 26 */
                             "library = fixture_payload\n"   /* 27 */
                             "stages = 4\n");                /* 28 */
  ck_assert_str_eq(plan_reply(reg, "two", TP_PLUGIN_PAYLOAD),
                   "fixture_tunable: stages = 2; it plans nothing");
  ck_assert_str_eq(plan_reply(reg, "eight", TP_PLUGIN_PAYLOAD),
                   "fixture_tunable: stages = 8; it plans nothing");
  ck_assert_str_eq(plan_reply(reg, "default", TP_PLUGIN_PAYLOAD),
                   "fixture_tunable: stages = 4; it plans nothing");
  tu_assert_broken(reg, "too_many", TP_ERR_REGISTRY, 15, "plugin 'fixture_tunable' refused "
                   "stages = 9: stages must be an integer in 2..8, got '9'");
  tu_assert_broken(reg, "not_a_number", TP_ERR_REGISTRY, 19, "refused stages = four");
  tu_assert_broken(reg, "unknown_key", TP_ERR_REGISTRY, 24, "plugin 'fixture_tunable' has no "
                   "tuning key 'colour': fixture_tunable knows only 'stages'");
  tu_assert_broken(reg, "no_keys_taken", TP_ERR_REGISTRY, 28,
                   "plugin 'fixture_payload' takes no tuning keys, so not 'stages'");
  /* One state per usable section; the refused sections' states were freed. */
  ck_assert_int_eq(*live, before + 3);
  tp_registry_close(reg);
  ck_assert_int_eq(*live, before); /* close ran fini for each */
  dlclose(handle);
}
END_TEST

/* ------------------------------------------------------------- resolve */

START_TEST(test_resolve_errors) {
  tp_registry *reg = open_ok("[pay]\n"                        /* 1 */
                             "kind = payload\n"               /* 2 */
                             "library = fixture_payload\n"    /* 3 */
                             "[epi]\n"                        /* 4 */
                             "kind = epilogue\n"              /* 5 */
                             "library = fixture_epilogue\n"   /* 6 */
                             "[off]\n"                        /* 7 */
                             "kind = payload\n"               /* 8 */
                             "library = fixture_payload\n"    /* 9 */
                             "enabled = no\n"                 /* 10 */
                             "[broken]\n"                     /* 11 */
                             "kind = payload\n"               /* 12 */
                             "library = fixture_init_fails\n" /* 13 */
                             "[tuned]\n"                      /* 14 */
                             "kind = payload\n"               /* 15 */
                             "library = fixture_tunable\n");  /* 16 */
  const char *path = tp_registry_path(reg);
  const tp_plugin_desc *desc = NULL;
  void *state = NULL;
  char want[PATH_MAX + 128];

  ck_assert_int_eq(tp_registry_resolve(reg, "pay", TP_PLUGIN_PAYLOAD, &desc, &state), TP_OK);
  ck_assert_str_eq(desc->name, "fixture_payload");
  ck_assert_ptr_nonnull(state); /* what its init made */
  ck_assert_ptr_nonnull(desc->payload->cpu_load);
  ck_assert_int_eq(tp_registry_resolve(reg, "epi", TP_PLUGIN_EPILOGUE, &desc, &state), TP_OK);
  ck_assert_str_eq(desc->name, "fixture_epilogue");
  ck_assert_ptr_null(state); /* it has no init */

  ck_assert_int_eq(tp_registry_resolve(reg, "nope", TP_PLUGIN_PAYLOAD, &desc, &state),
                   TP_ERR_NOT_FOUND);
  snprintf(want, sizeof want, "no payload plugin 'nope' in %s (payload plugins there: pay, off, "
           "broken, tuned)", path);
  ck_assert_str_eq(tp_error_message(), want);
  ck_assert_int_eq(tp_registry_resolve(reg, "nope", TP_PLUGIN_EPILOGUE, &desc, &state),
                   TP_ERR_NOT_FOUND);
  TU_ASSERT_HAS(tp_error_message(), "(epilogue plugins there: epi)");

  ck_assert_int_eq(tp_registry_resolve(reg, "epi", TP_PLUGIN_PAYLOAD, &desc, &state),
                   TP_ERR_INVALID_ARGUMENT);
  snprintf(want, sizeof want, "plugin 'epi' is of kind epilogue, not payload (%s:4)", path);
  ck_assert_str_eq(tp_error_message(), want);

  ck_assert_int_eq(tp_registry_resolve(reg, "broken", TP_PLUGIN_PAYLOAD, &desc, &state),
                   TP_ERR_PLUGIN);
  snprintf(want, sizeof want, "payload plugin 'broken' is unusable: %s:13: ", path);
  TU_ASSERT_HAS(tp_error_message(), want);
  TU_ASSERT_HAS(tp_error_message(), "no accelerator here (by design)");

  ck_assert_int_eq(tp_registry_resolve(reg, "off", TP_PLUGIN_PAYLOAD, &desc, &state),
                   TP_ERR_NOT_FOUND);
  snprintf(want, sizeof want, "payload plugin 'off' is disabled (%s:7)", path);
  ck_assert_str_eq(tp_error_message(), want);

  ck_assert_int_eq(tp_registry_resolve(NULL, "pay", TP_PLUGIN_PAYLOAD, &desc, &state),
                   TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_registry_resolve(reg, NULL, TP_PLUGIN_PAYLOAD, &desc, &state),
                   TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_registry_resolve(reg, "pay", TP_PLUGIN_PAYLOAD, NULL, &state),
                   TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_registry_resolve(reg, "pay", TP_PLUGIN_PAYLOAD, &desc, NULL),
                   TP_ERR_INVALID_ARGUMENT);
  tp_registry_close(reg);
}
END_TEST

/* ------------------------------------------------------------ host log */

/* Opens a registry whose fixture_payload logs "state created" at info level
 * from init, with $TILEPIPE_LOG = level (NULL: unset), and returns whether
 * the line reached stderr. */
static int init_line_logged(const char *level) {
  if (level)
    setenv("TILEPIPE_LOG", level, 1);
  else
    unsetenv("TILEPIPE_LOG");
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/stderr.txt", tu_dir);
  fflush(stderr);
  int saved = dup(STDERR_FILENO);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_ge(dup2(fd, STDERR_FILENO), 0);
  close(fd);
  tp_registry *reg = NULL;
  tp_status st = tu_open(&reg, "registry.ini", "[p]\nkind = payload\nlibrary = fixture_payload\n");
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  ck_assert_msg(st == TP_OK, "%s", tp_error_message());
  tp_registry_close(reg);

  char text[4096] = "";
  FILE *f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  size_t n = fread(text, 1, sizeof text - 1, f);
  text[n] = '\0';
  fclose(f);
  return strstr(text, "tilepipe[fixture_payload] info: state created\n") != NULL;
}

START_TEST(test_host_log_follows_tilepipe_log) {
  ck_assert_int_eq(init_line_logged(NULL), 0); /* default: warn */
  ck_assert_int_eq(init_line_logged("error"), 0);
  ck_assert_int_eq(init_line_logged("warn"), 0);
  ck_assert_int_eq(init_line_logged("info"), 1);
  ck_assert_int_eq(init_line_logged("debug"), 1);
  ck_assert_int_eq(init_line_logged("loud"), 0); /* unknown: warn */
}
END_TEST

/* ---------------------------------------------------------- device code */

static const unsigned char blob_a[16], blob_b[32], blob_whole[8];
static const char *const names_a[] = {"k_a1", "k_a2"};
static const char *const names_b[] = {"k_b"};

/* A payload descriptor with the given device code, as the loader copies it. */
static tp_plugin_desc device_desc(tp_plugin_kind kind, const tp_device_image *images,
                                  size_t count, const void *whole, size_t whole_size) {
  return (tp_plugin_desc){.name = "p", .kind = kind, .device_image = whole,
                          .device_image_size = whole_size, .device_images = images,
                          .num_device_images = count};
}

START_TEST(test_device_code) {
  const tp_device_image images[] = {{names_a, 2, blob_a, sizeof blob_a},
                                    {names_b, 1, blob_b, sizeof blob_b}};
  const void *data;
  size_t size;

  /* Groups: each kernel from the image that lists it, and only those. */
  tp_plugin_desc d = device_desc(TP_PLUGIN_PAYLOAD, images, 2, NULL, 0);
  ck_assert_int_eq(tp_device_code_check(&d, "lib.so"), TP_OK);
  ck_assert(tp_device_code_present(&d));
  ck_assert_int_eq(tp_device_code_for_kernel(&d, "k_a2", &data, &size), TP_OK);
  ck_assert_ptr_eq(data, blob_a);
  ck_assert_uint_eq(size, sizeof blob_a);
  ck_assert_int_eq(tp_device_code_for_kernel(&d, "k_b", &data, &size), TP_OK);
  ck_assert_ptr_eq(data, blob_b);
  ck_assert_uint_eq(size, sizeof blob_b);
  ck_assert_int_eq(tp_device_code_for_kernel(&d, "k_a", &data, &size), TP_ERR_PLUGIN);
  ck_assert_ptr_null(data);
  ck_assert_str_eq(tp_error_message(),
                   "payload 'p' chose kernel 'k_a', which none of its 2 device images lists");

  /* One image: whatever the kernel. */
  d = device_desc(TP_PLUGIN_PAYLOAD, NULL, 0, blob_whole, sizeof blob_whole);
  ck_assert_int_eq(tp_device_code_check(&d, "lib.so"), TP_OK);
  ck_assert(tp_device_code_present(&d));
  ck_assert_int_eq(tp_device_code_for_kernel(&d, "anything", &data, &size), TP_OK);
  ck_assert_ptr_eq(data, blob_whole);
  ck_assert_uint_eq(size, sizeof blob_whole);

  /* None. */
  d = device_desc(TP_PLUGIN_PAYLOAD, NULL, 0, NULL, 0);
  ck_assert_int_eq(tp_device_code_check(&d, "lib.so"), TP_OK);
  ck_assert(!tp_device_code_present(&d));
  ck_assert_int_eq(tp_device_code_for_kernel(&d, "k_a1", &data, &size), TP_ERR_UNSUPPORTED);
  TU_ASSERT_HAS(tp_error_message(), "plugin 'p' carries no device code");

  /* Refusals, each naming the library, the plugin and what is wrong. */
  const tp_device_image no_data[] = {{names_a, 2, NULL, 16}};
  const tp_device_image no_kernels[] = {{names_a, 0, blob_a, sizeof blob_a}};
  const char *const empty_name[] = {"k", ""};
  const tp_device_image bad_name[] = {{empty_name, 2, blob_a, sizeof blob_a}};
  const struct {
    tp_plugin_desc d;
    const char *reason;
  } bad[] = {
      {device_desc(TP_PLUGIN_PAYLOAD, images, 0, NULL, 0),
       "'lib.so' (plugin 'p'): device_images is set but num_device_images is 0"},
      {device_desc(TP_PLUGIN_PAYLOAD, NULL, 2, NULL, 0),
       "'lib.so' (plugin 'p'): device_images is NULL but num_device_images is 2"},
      {device_desc(TP_PLUGIN_EPILOGUE, images, 2, NULL, 0),
       "'lib.so' (plugin 'p'): an epilogue's device code is one device_image"},
      {device_desc(TP_PLUGIN_PAYLOAD, images, 2, blob_whole, sizeof blob_whole),
       "'lib.so' (plugin 'p') sets both device_image and device_images; set one"},
      {device_desc(TP_PLUGIN_PAYLOAD, no_data, 1, NULL, 0),
       "'lib.so' (plugin 'p'): device image 0 has no data, a zero size or no kernels"},
      {device_desc(TP_PLUGIN_PAYLOAD, no_kernels, 1, NULL, 0),
       "'lib.so' (plugin 'p'): device image 0 has no data, a zero size or no kernels"},
      {device_desc(TP_PLUGIN_PAYLOAD, bad_name, 1, NULL, 0),
       "'lib.so' (plugin 'p'): device image 0: kernel name 1 is NULL or empty"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_int_eq(tp_device_code_check(&bad[i].d, "lib.so"), TP_ERR_PLUGIN);
    TU_ASSERT_HAS(tp_error_message(), bad[i].reason);
  }
}
END_TEST

static Suite *loader_suite(void) {
  Suite *s = suite_create("loader");
  TCase *tc = tcase_create("loader");
  tcase_add_checked_fixture(tc, tu_setup, tu_teardown);
  tcase_add_test(tc, test_each_refusal_leaves_the_others_usable);
  tcase_add_test(tc, test_tuning_keys_reach_each_sections_state);
  tcase_add_test(tc, test_resolve_errors);
  tcase_add_test(tc, test_host_log_follows_tilepipe_log);
  tcase_add_test(tc, test_device_code);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *runner = srunner_create(loader_suite());
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
