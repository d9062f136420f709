/* tests/test_registry_scale.c: the registry's cost against its size, and
 * its limits (docs/registry.md, "Limits").
 *
 * A registry of n sections must open in time linear in n and find or miss
 * a name in constant time: 100,000 sections, each with a library that is
 * not there (every section broken, its library searched for), open and
 * answer misses well inside a limit that a registry comparing every
 * section with every other (n^2 / 2 = 5e9 name comparisons per miss)
 * cannot meet on any machine. 200,000 keys in one section with a repeat
 * at the end find the repeat as fast. A file of header-only sections costs
 * memory in proportion to its size. 100,000 sections, the documented
 * limit, open; one section or one key past the limits is refused, naming
 * its line.
 *
 * Run as `test_registry_scale bench` it prints instead the time to open
 * registries of 1k, 10k and 100k such sections, to find the last one and
 * to miss a name (bench/results/2026-11-28e-registry-scaling.txt).
 * Public API only. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <check.h>

#include "tests/registry_util.h"
#include "tilepipe/registry.h"

/* The limits docs/registry.md states. */
#define MAX_SECTIONS 100000
#define MAX_KEYS 1000000

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* A growing text buffer for generated INI files. */
typedef struct ini_text {
  char *buf;
  size_t len, cap;
} ini_text;

static void add(ini_text *t, const char *fmt, long i) {
  if (t->cap - t->len < 128) {
    t->cap = t->cap ? 2 * t->cap : 1 << 20;
    t->buf = realloc(t->buf, t->cap);
    ck_assert_ptr_nonnull(t->buf);
  }
  t->len += (size_t)snprintf(t->buf + t->len, t->cap - t->len, fmt, i);
}

/* n payload sections p0 .. p<n-1>, each naming a library that is not there. */
static const char *write_sections(const char *name, long n) {
  ini_text t = {0};
  for (long i = 0; i < n; i++) {
    add(&t, "[p%ld]\n", i);
    add(&t, "kind = payload\nlibrary = missing_%ld\n", i);
  }
  const char *path = tu_write_bytes(name, t.buf, t.len);
  free(t.buf);
  return path;
}

typedef struct timings {
  double open_s, find_s, miss_s; /* find and miss: per call */
} timings;

/* Opens path (n sections), finds the last section `finds` times and misses
 * a name `misses` times, checking every answer. */
static timings measure(const char *path, long n, int finds, int misses) {
  timings t;
  tp_registry *reg = NULL;
  double t0 = now_s();
  ck_assert_msg(tp_registry_open(&reg, path) == TP_OK, "%s", tp_error_message());
  t.open_s = now_s() - t0;
  ck_assert_uint_eq(tp_registry_count(reg), (size_t)n);
  char last[32];
  snprintf(last, sizeof last, "p%ld", n - 1);
  tp_plugin_info info;
  t0 = now_s();
  for (int i = 0; i < finds; i++) {
    ck_assert_int_eq(tp_registry_find(reg, last, &info), TP_OK);
    ck_assert_int_eq(info.status, TP_ERR_NOT_FOUND);
  }
  t.find_s = (now_s() - t0) / finds;
  t0 = now_s();
  for (int i = 0; i < misses; i++) {
    ck_assert_int_eq(tp_registry_find(reg, "nowhere", &info), TP_ERR_NOT_FOUND);
    TU_ASSERT_HAS(tp_error_message(), "has no plugin 'nowhere' (it lists: p0, p1, p2, ");
  }
  t.miss_s = (now_s() - t0) / misses;
  tp_registry_close(reg);
  return t;
}

START_TEST(test_100k_sections_open_and_miss_fast) {
  const long n = MAX_SECTIONS;
  const char *path = write_sections("big.ini", n);
  double t0 = now_s();
  timings t = measure(path, n, 100, 20);
  double total = now_s() - t0;
  /* Linear code takes about a second here (more under sanitizers); the
   * quadratic search needs minutes for the 20 misses alone. */
  ck_assert_msg(total < 60.0, "open %.2f s, find %.6f s, miss %.6f s: not linear", t.open_s,
                t.find_s, t.miss_s);
  /* A miss costs no more than a find, give or take the message. */
  ck_assert_msg(t.miss_s < 0.05, "a miss takes %.3f s with %ld sections", t.miss_s, n);
}
END_TEST

START_TEST(test_200k_keys_repeat_found_fast) {
  const long n = 200000;
  ini_text t = {0};
  add(&t, "[many]\nkind = payload\nlibrary = fixture_payload\n", 0);
  for (long i = 0; i < n; i++) add(&t, "k%ld = 1\n", i);
  add(&t, "k%ld = 2\n", 7); /* line n + 4 repeats line 11 */
  const char *path = tu_write_bytes("keys.ini", t.buf, t.len);
  free(t.buf);
  tp_registry *reg = NULL;
  double t0 = now_s();
  ck_assert_msg(tp_registry_open(&reg, path) == TP_OK, "%s", tp_error_message());
  double open_s = now_s() - t0;
  tu_assert_broken(reg, "many", TP_ERR_REGISTRY, (int)n + 4, "key 'k7' repeated (first at line 11)");
  tp_registry_close(reg);
  /* Linear: well under a second (a few under sanitizers); comparing each
   * key with those before it: 2e10 comparisons, half a minute or more. */
  ck_assert_msg(open_s < 10.0, "open took %.2f s for %ld keys", open_s, n);
}
END_TEST

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif

static long max_rss_kb(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

START_TEST(test_header_only_sections_cost_memory_in_proportion) {
  const long n = 100000;
  ini_text t = {0};
  for (long i = 0; i < n; i++) add(&t, "[s%ld]\n", i);
  const char *path = tu_write_bytes("headers.ini", t.buf, t.len);
  size_t file_bytes = t.len;
  free(t.buf);
  long before = max_rss_kb();
  tp_registry *reg = NULL;
  ck_assert_msg(tp_registry_open(&reg, path) == TP_OK, "%s", tp_error_message());
  long grown_kb = max_rss_kb() - before;
  ck_assert_uint_eq(tp_registry_count(reg), (size_t)n);
  tu_assert_broken(reg, "s99999", TP_ERR_REGISTRY, (int)n, "has no 'kind' key");
  tp_registry_close(reg);
#ifndef UNDER_SANITIZER
  /* The file is 0.9 MB; an entry of a few hundred bytes, with its broken
   * entry's message, is 30 to 40 MB. The sanitizers' allocators add their
   * own per-allocation overhead, so the bound holds for plain builds. */
  ck_assert_msg(grown_kb < 100 * 1024, "%ld KB for %zu bytes of INI (%ld sections)", grown_kb,
                file_bytes, n);
#else
  (void)grown_kb;
  (void)file_bytes;
#endif
}
END_TEST

/* t, written as over.ini, is refused as a whole with needle; t is freed. */
static void assert_refused(ini_text *t, const char *needle) {
  tp_registry *reg = NULL;
  ck_assert_int_eq(tp_registry_open(&reg, tu_write_bytes("over.ini", t->buf, t->len)),
                   TP_ERR_REGISTRY);
  free(t->buf);
  ck_assert_ptr_null(reg);
  TU_ASSERT_HAS(tp_error_message(), needle);
}

START_TEST(test_one_section_past_the_limit_is_refused) {
  ini_text t = {0};
  for (long i = 0; i <= MAX_SECTIONS; i++) add(&t, "[a]\n", 0);
  assert_refused(&t, "over.ini:100001: more than 100000 sections");
}
END_TEST

START_TEST(test_one_key_past_the_limit_is_refused) {
  ini_text t = {0};
  add(&t, "[a]\n", 0);
  for (long i = 0; i < MAX_KEYS; i++) add(&t, "k = v\n", 0);
  add(&t, "[b]\nk = v\n", 0);
  assert_refused(&t, "over.ini:1000003: more than 1000000 keys");
}
END_TEST

/* Open, find and miss at 1k, 10k and 100k sections, one line each (a
 * test of its own, for the fixture and the assertions). */
START_TEST(bench_open_find_miss) {
  printf("%-9s %10s %12s %12s\n", "sections", "open_s", "find_us", "miss_us");
  const long sizes[] = {1000, 10000, 100000};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    long n = sizes[i];
    const char *path = write_sections("bench.ini", n);
    timings t = measure(path, n, 1000, n >= 100000 ? 1 : 10);
    printf("%-9ld %10.3f %12.2f %12.2f\n", n, t.open_s, t.find_s * 1e6, t.miss_s * 1e6);
    fflush(stdout);
  }
}
END_TEST

static Suite *scale_suite(int bench) {
  Suite *s = suite_create("registry scale");
  TCase *tc = tcase_create("scale");
  tcase_add_checked_fixture(tc, tu_setup, tu_teardown);
  if (bench) {
    tcase_set_timeout(tc, 3600); /* a registry of quadratic cost takes minutes */
    tcase_add_test(tc, bench_open_find_miss);
    suite_add_tcase(s, tc);
    return s;
  }
  /* Generous: the linear registry needs a few seconds even under
   * sanitizers; a quadratic one needs far more for its misses. */
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_100k_sections_open_and_miss_fast);
  tcase_add_test(tc, test_200k_keys_repeat_found_fast);
  tcase_add_test(tc, test_header_only_sections_cost_memory_in_proportion);
  tcase_add_test(tc, test_one_section_past_the_limit_is_refused);
  tcase_add_test(tc, test_one_key_past_the_limit_is_refused);
  suite_add_tcase(s, tc);
  return s;
}

int main(int argc, char **argv) {
  SRunner *runner = srunner_create(scale_suite(argc == 2 && strcmp(argv[1], "bench") == 0));
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
