/* tests/test_warm.c: linking a problem list's kernels into the kernel cache
 * ahead of plans (tilepipe/warm.h), and the GPU targets it plans for
 * (tilepipe/link.h), without a GPU.
 *
 * The registry is the build tree's (standard, store, ...) plus fixtures:
 * fixture_small_link (two small kernels that link in a fraction of a
 * second, picked by M), fixture_bad_link (a kernel that fails the ptxas
 * check) and fixture_test_hook (their hook). Every test warms a fresh
 * folder under $TMPDIR, named by TILEPIPE_CACHE_DIR. Needs nvJitLink, no
 * GPU; tests/test_gpu_warm.c checks that plans on a GPU then read what was
 * warmed. */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/tmpdir.h"
#include "tilepipe/device.h"
#include "tilepipe/reference.h"
#include "tilepipe/tilepipe.h"

#define ASSERT_HAS(haystack, needle)                                                          \
  ck_assert_msg(strstr((haystack), (needle)) != NULL, "\"%s\" does not contain \"%s\"",     \
                (haystack), (needle))

static char base_dir[1024]; /* this run's folder */
static char ini[18432];     /* the build tree's registry plus the fixtures */
static tp_registry *reg;
static char cache[1200];    /* the current test's cache folder */

static void open_registry(void) {
  static int n;
  ck_assert_int_lt(snprintf(cache, sizeof cache, "%s/cache-%d-%d", base_dir, (int)getpid(), n++),
                   (int)sizeof cache);
  setenv("TILEPIPE_CACHE_DIR", cache, 1);
  char err[1024];
  ck_assert_msg(tp_ref_registry_open(&reg, ini, err, sizeof err) == TP_OK, "%s", err);
}

static void close_registry(void) { tp_registry_close(reg); }

/* A problem of payload's kind: A and B of dtype ab, D bf16, no C; rows
 * padded to 16 bytes (the GPU's rule) by choosing N and K multiples of 16. */
static tp_gemm_desc problem_ab(const char *payload, tp_dtype a, tp_dtype b, int64_t m, int64_t n,
                               int64_t k) {
  tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = reg, .payload = payload,
                              .a = a, .b = b,
                              .d = TP_DTYPE_BF16, .c = TP_DTYPE_NONE,
                              .sf_layout = TP_LAYOUT_SF_128X4, .m = m, .n = n, .k = k,
                              .alpha = 1.0f};
  tp_gemm_desc desc;
  tp_problem described;
  char err[1024];
  ck_assert_msg(tp_ref_problem_describe(&spec, &desc, &described, err, sizeof err) == TP_OK, "%s",
                err);
  return desc;
}

static tp_gemm_desc problem(const char *payload, tp_dtype ab, int64_t m, int64_t n, int64_t k) {
  return problem_ab(payload, ab, ab, m, n, k);
}

static int count_entries(const char *dir) {
  DIR *d = opendir(dir);
  if (d == NULL) return 0;
  int n = 0;
  for (struct dirent *de; (de = readdir(d)) != NULL;) n += strstr(de->d_name, ".tpk") != NULL;
  closedir(d);
  return n;
}

/* What the progress callback heard. */
typedef struct heard {
  int calls;
  int outcome[3];
  char kernels[8][96];
} heard;

#if TP_HAVE_CUDA
static void listen(void *context, const char *kernel, tp_warm_outcome outcome, double seconds,
                   const char *message) {
  heard *h = context;
  ck_assert_int_ge(seconds, 0.0);
  ck_assert(outcome >= TP_WARM_CACHED && outcome <= TP_WARM_FAILED);
  ck_assert_int_eq(*message != '\0', outcome == TP_WARM_FAILED);
  if (h->calls < 8) snprintf(h->kernels[h->calls], sizeof h->kernels[0], "%s", kernel);
  h->calls++;
  h->outcome[outcome]++;
}

static int heard_kernel(const heard *h, const char *kernel) {
  for (int i = 0; i < h->calls && i < 8; i++)
    if (strcmp(h->kernels[i], kernel) == 0) return 1;
  return 0;
}
#endif

static tp_link_target h100(void) {
  tp_link_target t = {.struct_size = sizeof t};
  ck_assert_int_eq(tp_link_target_lookup("h100-sxm", &t), TP_OK);
  return t;
}

/* ---------------------------------------------------------------- targets */

START_TEST(test_named_targets) {
  tp_link_target t = {.struct_size = sizeof t}, check = {.struct_size = sizeof check};
  ck_assert_int_eq(tp_link_check_target(&check), TP_OK);
  ck_assert_int_eq(tp_link_target_lookup("h100-sxm", &t), TP_OK);
  ck_assert_int_eq(memcmp(&t, &check, sizeof t), 0);
  ck_assert_int_eq(tp_link_target_lookup("h100-pcie", &t), TP_OK);
  ck_assert_int_eq(t.sm_count, 114);
  ck_assert_int_eq(tp_link_target_lookup("h200", &t), TP_OK);
  ck_assert_int_eq(t.sm_count, 132);
  ck_assert_str_eq(t.name, "H200 (figures, no GPU)");
  ck_assert_int_eq(t.cc_major, 9);
  ck_assert_uint_eq(t.smem_per_block, 232448u);
  ck_assert_int_eq(tp_link_target_lookup("a100", &t), TP_ERR_NOT_FOUND);
  ASSERT_HAS(tp_error_message(), "no GPU model 'a100' (known: h100-sxm, h100-pcie, h200)");
  ck_assert_int_eq(tp_link_target_lookup(NULL, &t), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_link_target_lookup("h200", NULL), TP_ERR_INVALID_ARGUMENT);
  tp_link_target old = {.struct_size = 4};
  ck_assert_int_eq(tp_link_target_lookup("h200", &old), TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(tp_error_message(), "tp_link_target struct_size 4 is smaller");
}
END_TEST

START_TEST(test_detected_target) {
  tp_link_target t = {.struct_size = sizeof t};
  tp_device_props props;
  const tp_status st = tp_link_target_detect(&t);
  if (tp_device_info(&props) == TP_OK) {
    ck_assert_int_eq(st, TP_OK);
    ck_assert_int_eq(t.sm_count, props.sm_count);
    ck_assert_int_eq(strncmp(t.name, props.name, sizeof t.name - 1), 0);
  } else {
    ck_assert_int_eq(st, TP_ERR_NO_DEVICE);
  }
  ck_assert_int_eq(tp_link_target_detect(NULL), TP_ERR_INVALID_ARGUMENT);
}
END_TEST

/* ---------------------------------------------------------------- refusals */

START_TEST(test_bad_arguments) {
  tp_gemm_desc d = problem("standard", TP_DTYPE_BF16, 256, 256, 256);
  const tp_link_target t = h100();
  tp_warm_options opt = {.struct_size = sizeof opt, .target = &t, .jobs = 1};
  tp_warm_result r = {.struct_size = sizeof r};
  ck_assert_int_eq(tp_cache_warm(NULL, "standard", "store", &d, 1, &opt, &r),
                   TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_cache_warm(reg, NULL, "store", &d, 1, &opt, &r), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_cache_warm(reg, "standard", NULL, &d, 1, &opt, &r),
                   TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_cache_warm(reg, "standard", "store", NULL, 1, &opt, &r),
                   TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_cache_warm(reg, "standard", "store", &d, 0, &opt, &r),
                   TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(tp_error_message(), "no problems");

  tp_warm_options small = {.struct_size = 8};
  ck_assert_int_eq(tp_cache_warm(reg, "standard", "store", &d, 1, &small, &r),
                   TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(tp_error_message(), "tp_warm_options struct_size 8 is smaller");
  tp_warm_result old = {.struct_size = 4};
  ck_assert_int_eq(tp_cache_warm(reg, "standard", "store", &d, 1, &opt, &old),
                   TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(tp_error_message(), "tp_warm_result struct_size 4 is smaller");

  opt.jobs = -1;
  ck_assert_int_eq(tp_cache_warm(reg, "standard", "store", &d, 1, &opt, &r),
                   TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(tp_error_message(), "jobs -1 is out of range");
  opt.jobs = 1025;
  ck_assert_int_eq(tp_cache_warm(reg, "standard", "store", &d, 1, &opt, &r),
                   TP_ERR_INVALID_ARGUMENT);
  opt.jobs = 1;

  /* Targets no plan could be made for. */
  tp_link_target bad = t;
  bad.cc_major = 10;
  opt.target = &bad;
  ck_assert_int_eq(tp_cache_warm(reg, "standard", "store", &d, 1, &opt, &r), TP_ERR_UNSUPPORTED);
  ASSERT_HAS(tp_error_message(), "compute capability 10.0; tilepipe's kernels are built for 9.0");
  bad = t;
  bad.sm_count = 0;
  ck_assert_int_eq(tp_cache_warm(reg, "standard", "store", &d, 1, &opt, &r),
                   TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(tp_error_message(), "0 SMs");
  bad = t;
  memset(bad.name, 'x', sizeof bad.name);
  ck_assert_int_eq(tp_cache_warm(reg, "standard", "store", &d, 1, &opt, &r),
                   TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(tp_error_message(), "not NUL-terminated");
  bad = t;
  bad.struct_size = 2;
  ck_assert_int_eq(tp_cache_warm(reg, "standard", "store", &d, 1, &opt, &r),
                   TP_ERR_INVALID_ARGUMENT);

  /* No target and no GPU: the caller must name one. */
  tp_device_props props;
  if (tp_device_info(&props) != TP_OK) {
    opt.target = NULL;
    ck_assert_int_eq(tp_cache_warm(reg, "standard", "store", &d, 1, &opt, &r), TP_ERR_NO_DEVICE);
    ASSERT_HAS(tp_error_message(), "no target given and no GPU");
    ck_assert_int_eq(tp_cache_warm(reg, "standard", "store", &d, 1, NULL, &r), TP_ERR_NO_DEVICE);
  }
  ck_assert_int_eq(count_entries(cache), 0);
}
END_TEST

/* A pair or a problem a plan would refuse is refused before any link, the
 * message naming the problem. */
START_TEST(test_refused_problems) {
  const tp_link_target t = h100();
  tp_warm_options opt = {.struct_size = sizeof opt, .target = &t, .jobs = 2};
  tp_warm_result r = {.struct_size = sizeof r};
  tp_gemm_desc d[3] = {problem("standard", TP_DTYPE_BF16, 256, 256, 256),
                       problem("standard", TP_DTYPE_BF16, 64, 512, 128),
                       problem("standard", TP_DTYPE_BF16, 128, 256, 64)};
  d[1].b.dtype = TP_DTYPE_F16;
#if TP_HAVE_CUDA
  ck_assert_int_eq(tp_cache_warm(reg, "standard", "store", d, 3, &opt, &r), TP_ERR_UNSUPPORTED);
  ASSERT_HAS(tp_error_message(), "warm standard x store: problem 1 (64 x 512 x 128) for H100 SXM");
  ASSERT_HAS(tp_error_message(), "payload 'standard'");
#else
  /* Without the toolkit nothing links: refused before any problem's plan. */
  ck_assert_int_eq(tp_cache_warm(reg, "standard", "store", d, 3, &opt, &r), TP_ERR_NO_DEVICE);
#endif
  ck_assert_int_eq(r.kernels, 0);

  ck_assert_int_eq(tp_cache_warm(reg, "standard", "nosuch", d, 1, &opt, &r), TP_ERR_NOT_FOUND);
  ASSERT_HAS(tp_error_message(), "nosuch");

#if TP_HAVE_CUDA
  /* The array steps by the first descriptor's struct_size: a newer
   * caller's, with fields this library does not know, reaches problem 1
   * (refused, as above, naming its shape). One of another size in the same
   * array, and one of size 0, are refused by index. */
  struct newer {
    tp_gemm_desc known;
    unsigned char unknown[24];
  } nd[2];
  memset(nd, 0xA5, sizeof nd);
  for (int i = 0; i < 2; i++) {
    nd[i].known = d[i];
    nd[i].known.struct_size = (uint32_t)sizeof nd[0];
  }
  ck_assert_int_eq(tp_cache_warm(reg, "standard", "store", &nd[0].known, 2, &opt, &r),
                   TP_ERR_UNSUPPORTED);
  ASSERT_HAS(tp_error_message(), "problem 1 (64 x 512 x 128) for H100 SXM");
  nd[1].known.struct_size = (uint32_t)sizeof(tp_gemm_desc);
  ck_assert_int_eq(tp_cache_warm(reg, "standard", "store", &nd[0].known, 2, &opt, &r),
                   TP_ERR_INVALID_ARGUMENT);
  char want[160];
  snprintf(want, sizeof want,
           "problem 1: tp_gemm_desc.struct_size %zu differs from problem 0's %zu",
           sizeof(tp_gemm_desc), sizeof nd[0]);
  ASSERT_HAS(tp_error_message(), want);
  tp_gemm_desc unset = d[0];
  unset.struct_size = 0;
  ck_assert_int_eq(tp_cache_warm(reg, "standard", "store", &unset, 1, &opt, &r),
                   TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(tp_error_message(), "warm standard x store: problem 0: tp_gemm_desc.struct_size is 0");
#endif

  tp_gemm_desc w4a8 = problem_ab("block_scaled", TP_DTYPE_E4M3, TP_DTYPE_E2M1, 256, 256, 256);
  ck_assert_int_eq(tp_cache_warm(reg, "block_scaled", "store", &w4a8, 1, &opt, &r),
                   TP_ERR_UNSUPPORTED);
  ASSERT_HAS(tp_error_message(), "A e4m3 x B e2m1 (NVFP4 W4A8) has no GPU kernel");
  ck_assert_int_eq(count_entries(cache), 0);
}
END_TEST

#if TP_HAVE_CUDA
/* ------------------------------------------------------------------ links */

/* Three problems, two kernels (M decides): linked by two worker
 * processes, then found in the cache, then one damaged entry relinked. */
START_TEST(test_links_then_finds_them) {
  const tp_link_target t = h100();
  heard h = {0};
  tp_warm_options opt = {.struct_size = sizeof opt, .target = &t, .jobs = 2, .progress = listen,
                         .progress_context = &h};
  tp_warm_result r = {.struct_size = sizeof r};
  tp_gemm_desc d[3] = {problem("standard", TP_DTYPE_BF16, 256, 64, 64),
                       problem("standard", TP_DTYPE_BF16, 64, 64, 64),
                       problem("standard", TP_DTYPE_BF16, 512, 64, 64)};
  ck_assert_msg(tp_cache_warm(reg, "small", "hook", d, 3, &opt, &r) == TP_OK, "%s",
                tp_error_message());
  ck_assert_int_eq(r.kernels, 2);
  ck_assert_int_eq(r.linked, 2);
  ck_assert_int_eq(r.cached + r.failed, 0);
  ck_assert_int_eq(r.jobs, 2); /* two worker processes */
  ck_assert_str_eq(r.cache_dir, cache);
  ck_assert_int_eq(h.calls, 2);
  ck_assert_int_eq(h.outcome[TP_WARM_LINKED], 2);
  ck_assert(heard_kernel(&h, "tp_test_ws") && heard_kernel(&h, "tp_test_axpy"));
  ck_assert_int_eq(count_entries(cache), 2);

  memset(&h, 0, sizeof h);
  ck_assert_int_eq(tp_cache_warm(reg, "small", "hook", d, 3, &opt, &r), TP_OK);
  ck_assert_int_eq(r.cached, 2);
  ck_assert_int_eq(r.linked, 0);
  ck_assert_int_eq(r.jobs, 0);
  ck_assert_int_eq(h.outcome[TP_WARM_CACHED], 2);

  /* Damage one entry: it is linked again (alone, in this process). */
  DIR *dir = opendir(cache);
  ck_assert_ptr_nonnull(dir);
  char path[1500] = "";
  for (struct dirent *de; (de = readdir(dir)) != NULL && !*path;)
    if (strstr(de->d_name, ".tpk")) snprintf(path, sizeof path, "%s/%s", cache, de->d_name);
  closedir(dir);
  ck_assert_int_eq(truncate(path, 100), 0);
  ck_assert_int_eq(tp_cache_warm(reg, "small", "hook", d, 3, &opt, &r), TP_OK);
  ck_assert_int_eq(r.cached, 1);
  ck_assert_int_eq(r.linked, 1);
  ck_assert_int_eq(r.jobs, 0);
  struct stat st;
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_int_gt(st.st_size, 100);
}
END_TEST

/* A kernel that fails the ptxas check: reported, counted, nothing kept. */
START_TEST(test_failed_link) {
  const tp_link_target t = h100();
  heard h = {0};
  tp_warm_options opt = {.struct_size = sizeof opt, .target = &t, .jobs = 4, .progress = listen,
                         .progress_context = &h};
  tp_warm_result r = {.struct_size = sizeof r};
  tp_gemm_desc d = problem("standard", TP_DTYPE_BF16, 256, 64, 64);
  ck_assert_int_eq(tp_cache_warm(reg, "bad", "hook", &d, 1, &opt, &r), TP_ERR_LINK);
  ASSERT_HAS(tp_error_message(), "warm bad x hook: kernel tp_test_ws_unbounded:");
  ASSERT_HAS(tp_error_message(), "(C7508)");
  ck_assert_int_eq(r.kernels, 1);
  ck_assert_int_eq(r.failed, 1);
  ck_assert_int_eq(h.outcome[TP_WARM_FAILED], 1);
  ck_assert_int_eq(count_entries(cache), 0);
}
END_TEST

/* The standard kernel a warm for the H100 SXM links is the one the link
 * check (tilepipe/link.h, same figures) picks, and it reads it from the
 * cache: the warm runs in a child process, and this one, whose nvJitLink
 * cannot be opened, could not link it. */
START_TEST(test_standard_as_link_check_picks_it) {
  tp_gemm_desc d = problem("standard", TP_DTYPE_BF16, 64, 4096, 7168);
  const pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    const tp_link_target t = h100();
    tp_warm_options opt = {.struct_size = sizeof opt, .target = &t, .jobs = 1};
    tp_warm_result r = {.struct_size = sizeof r};
    const tp_status st = tp_cache_warm(reg, "standard", "store", &d, 1, &opt, &r);
    if (st != TP_OK) fprintf(stderr, "warm: %s\n", tp_error_message());
    _exit(st == TP_OK && r.linked == 1 ? 0 : 1);
  }
  int status = 0;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ck_assert_int_eq(count_entries(cache), 1);
  setenv("TILEPIPE_NVJITLINK", "/nonexistent/libnvJitLink.so", 1);
  tp_link_result lr = {.struct_size = sizeof lr};
  ck_assert_msg(tp_link_check(reg, "standard", "store", &d, &lr) == TP_OK, "%s",
                tp_error_message());
  ck_assert_str_eq(lr.kernel, "tp_standard_bf16_bf16_64x64_c1");
  unsetenv("TILEPIPE_NVJITLINK");
}
END_TEST

/* TILEPIPE_CACHE_DIR=off: linked into this process's cache, one at a time;
 * a second warm finds them there. */
START_TEST(test_without_disk_cache) {
  setenv("TILEPIPE_CACHE_DIR", "off", 1);
  const tp_link_target t = h100();
  tp_warm_options opt = {.struct_size = sizeof opt, .target = &t, .jobs = 4};
  tp_warm_result r = {.struct_size = sizeof r};
  tp_gemm_desc d[2] = {problem("standard", TP_DTYPE_BF16, 256, 64, 64),
                       problem("standard", TP_DTYPE_BF16, 64, 64, 64)};
  ck_assert_int_eq(tp_cache_warm(reg, "small", "hook", d, 2, &opt, &r), TP_OK);
  ck_assert_str_eq(r.cache_dir, "");
  ck_assert_int_eq(r.linked, 2);
  ck_assert_int_eq(r.jobs, 0);
  ck_assert_int_eq(tp_cache_warm(reg, "small", "hook", d, 2, &opt, &r), TP_OK);
  ck_assert_int_eq(r.cached, 2);
  ck_assert_int_eq(r.linked, 0);
}
END_TEST
#endif

/* ini <- the build tree's registry, then (with CUDA) the fixtures. */
static int make_ini(void) {
  FILE *in = fopen(TP_TEST_REGISTRY, "r");
  if (in == NULL) return -1;
  const size_t n = fread(ini, 1, sizeof ini - 2048, in);
  const int whole = feof(in) && !ferror(in);
  fclose(in);
  ini[n] = '\0';
  if (!whole) return -1;
#if TP_HAVE_CUDA
  const int extra =
      snprintf(ini + n, sizeof ini - n,
               "\n[small]\nkind = payload\nlibrary = %s/fixture_small_link.so\n"
               "\n[bad]\nkind = payload\nlibrary = %s/fixture_bad_link.so\n"
               "\n[hook]\nkind = epilogue\nlibrary = %s/fixture_test_hook.so\n",
               TP_TEST_PLUGIN_DIR, TP_TEST_PLUGIN_DIR, TP_TEST_PLUGIN_DIR);
  if (extra < 0 || (size_t)extra >= sizeof ini - n) return -1;
#endif
  return 0;
}

int main(void) {
  if (tp_test_tmpdir_make(base_dir, sizeof base_dir, "tilepipe-test-warm") != 0 ||
      make_ini() != 0) {
    perror("cannot make a scratch folder and registry");
    return 99;
  }
  Suite *s = suite_create("warm");
  TCase *tc = tcase_create("warm");
  tcase_set_timeout(tc, 120);
  tcase_add_checked_fixture(tc, open_registry, close_registry);
  tcase_add_test(tc, test_named_targets);
  tcase_add_test(tc, test_detected_target);
  tcase_add_test(tc, test_bad_arguments);
  tcase_add_test(tc, test_refused_problems);
  SRunner *sr = srunner_create(s);
#if TP_HAVE_CUDA
  tcase_add_test(tc, test_links_then_finds_them);
  tcase_add_test(tc, test_failed_link);
  /* These need a process of their own: which nvJitLink, which cache. */
  if (srunner_fork_status(sr) != CK_NOFORK) {
    tcase_add_test(tc, test_standard_as_link_check_picks_it);
    tcase_add_test(tc, test_without_disk_cache);
  }
#endif
  suite_add_tcase(s, tc);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  tp_test_tmpdir_remove(base_dir);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
