/* tests/test_cuda_link.c: linking device code with nvJitLink, the ptxas
 * report check on real links, and the kernel cache in memory and on disk.
 *
 * Needs nvcc at build time (the LTO-IR of tests/device/) and nvJitLink at run
 * time, never a GPU or a driver: it runs in CI. A payload fixture with its
 * device code in images (fixture_grouped_link) goes through the plan's link
 * path (tp_cuda_link_plan) into the cache. Every cache lives in a fresh
 * folder under $TMPDIR (default /tmp); main() points TILEPIPE_CACHE_DIR
 * there too before anything reads it, so nothing touches the user's home. */
#include "config.h"

#include <check.h>
#include <cuda.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/backend/cuda/cache_file.h"
#include "core/backend/cuda/cuda_backend.h"
#include "core/backend/cuda/kernel.h"
#include "core/backend/cuda/kernel_cache.h"
#include "core/backend/cuda/link_log.h"
#include "core/backend/cuda/nvjitlink.h"
#include "core/link_target.h"
#include "core/plan_internal.h"
#include "tests/cuda_blobs.h"
#include "tests/tmpdir.h"

static char base_dir[1024]; /* this run's folder; TILEPIPE_CACHE_DIR points here */

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* A fresh empty folder under base_dir. */
static void fresh_dir(char *buf, size_t size) {
  ck_assert_int_lt(snprintf(buf, size, "%s/cache-XXXXXX", base_dir), (int)size);
  ck_assert_ptr_nonnull(mkdtemp(buf));
}

static void entry_file(char *buf, size_t size, const char *dir, const tp_kernel_entry *e) {
  ck_assert_int_lt(snprintf(buf, size, "%s/%s.tpk", dir, e->key), (int)size);
}

static int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* The pair that links: kernel and hook. */
static tp_link_request pair_request(tp_jit_input inputs[2]) {
  inputs[0] = tp_test_blob_link_kernel();
  inputs[1] = tp_test_blob_link_hook();
  return (tp_link_request){.inputs = inputs, .num_inputs = 2, .arch = TP_CUDA_LINK_ARCH};
}

static tp_kernel_cache_stats stats_of(tp_kernel_cache *c) {
  tp_kernel_cache_stats s;
  tp_kernel_cache_stats_get(c, &s);
  return s;
}

/* ------------------------------------------------------------------ linking */

START_TEST(pair_links_clean) {
  tp_jit_input in[2];
  tp_link_request r = pair_request(in);
  tp_jit_result res;
  unsigned major, minor;
  double t0 = now_ms();
  ck_assert_int_eq(tp_jit_version(&major, &minor), TP_OK); /* opens nvJitLink */
  double load = now_ms() - t0;
  ck_assert_uint_eq(major, CUDA_VERSION / 1000);
  t0 = now_ms();
  ck_assert_int_eq(tp_jit_link(r.inputs, 2, r.arch, NULL, 0, &res), TP_OK);
  double cold = now_ms() - t0;
  ck_assert_uint_gt(res.cubin_size, 4);
  ck_assert_int_eq(memcmp(res.cubin, "\177ELF", 4), 0);
  ck_assert_str_eq(res.error_log, "");
  ck_assert_int_eq(tp_link_log_check(res.info_log), TP_OK);
  tp_link_stats ws, axpy;
  ck_assert_int_eq(tp_link_log_stats(res.info_log, "tp_test_ws", &ws), TP_OK);
  ck_assert_int_eq(tp_link_log_stats(res.info_log, "tp_test_axpy", &axpy), TP_OK);
  /* 384 threads with one block per SM: ptxas sizes the entry for 65536/384. */
  ck_assert_int_gt(ws.registers, 128);
  ck_assert_int_le(ws.registers, 170);
  ck_assert_int_eq(ws.stack_bytes, 0); /* the hook was inlined: no call frame */
  ck_assert_int_eq(axpy.stack_bytes, 0);
  tp_jit_result_free(&res);

  t0 = now_ms();
  ck_assert_int_eq(tp_jit_link(r.inputs, 2, r.arch, NULL, 0, &res), TP_OK);
  double warm = now_ms() - t0;
  tp_jit_result_free(&res);
  printf("nvJitLink %u.%u: opening it %.1f ms; link of link_kernel + link_hook %.1f ms cold, "
         "%.1f ms again\n",
         major, minor, load, cold, warm);
}
END_TEST

START_TEST(missing_hook_fails) {
  tp_jit_input kernel = tp_test_blob_link_kernel();
  tp_jit_result res;
  ck_assert_int_eq(tp_jit_link(&kernel, 1, TP_CUDA_LINK_ARCH, NULL, 0, &res), TP_ERR_LINK);
  const char *msg = tp_error_message();
  ck_assert_msg(strstr(msg, "Unresolved extern function 'tp_test_hook'") != NULL, "%s", msg);
  ck_assert_msg(strstr(msg, "nvJitLinkComplete") != NULL, "%s", msg);
  ck_assert_ptr_null(res.cubin);
  ck_assert_ptr_nonnull(strstr(res.error_log, "Unresolved extern function"));
  tp_jit_result_free(&res);
}
END_TEST

START_TEST(bad_link_arguments) {
  tp_jit_input in[2];
  tp_link_request r = pair_request(in);
  tp_jit_result res;
  ck_assert_int_eq(tp_jit_link(NULL, 2, r.arch, NULL, 0, &res), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_jit_link(in, 0, r.arch, NULL, 0, &res), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_jit_link(in, 2, NULL, NULL, 0, &res), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_jit_link(in, 2, r.arch, NULL, 1, &res), TP_ERR_INVALID_ARGUMENT);
  const char *null_option[1] = {NULL};
  ck_assert_int_eq(tp_jit_link(in, 2, r.arch, null_option, 1, &res), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_jit_link(in, 2, r.arch, NULL, 0, NULL), TP_ERR_INVALID_ARGUMENT);
  tp_jit_input empty = {in[0].data, 0, "empty"};
  ck_assert_int_eq(tp_jit_link(&empty, 1, r.arch, NULL, 0, &res), TP_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(tp_error_message(), "input 0"));

  /* What nvJitLink itself refuses comes back as TP_ERR_LINK naming the step. */
  static const unsigned char garbage[64] = "not a fatbin, not LTO-IR";
  tp_jit_input junk = {garbage, sizeof garbage, "junk"};
  ck_assert_int_eq(tp_jit_link(&junk, 1, r.arch, NULL, 0, &res), TP_ERR_LINK);
  ck_assert_ptr_nonnull(strstr(tp_error_message(), "nvJitLinkAddData"));
  tp_jit_result_free(&res);
  /* nvJitLink 13.0 leaks 176 bytes from nvJitLinkCreate when a link fails
   * on its options or its arch (an unknown option; sm_80 for sm_90a
   * LTO-IR), which fails the LeakSanitizer build: no test provokes those.
   * A malformed arch never reaches nvJitLink. */
  ck_assert_int_eq(tp_jit_link(in, 2, "banana", NULL, 0, &res), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_jit_link(in, 2, "sm_90ab", NULL, 0, &res), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_jit_link(in, 2, "sm_", NULL, 0, &res), TP_ERR_INVALID_ARGUMENT);
}
END_TEST

START_TEST(ignored_setmaxnreg_is_refused) {
  tp_jit_input in[2] = {tp_test_blob_link_ws_unbounded(), tp_test_blob_link_hook()};
  /* ptxas itself accepts it: the link succeeds and the report says C7508. */
  tp_jit_result res;
  ck_assert_int_eq(tp_jit_link(in, 2, TP_CUDA_LINK_ARCH, NULL, 0, &res), TP_OK);
  ck_assert_ptr_nonnull(strstr(res.info_log, "(C7508)"));
  ck_assert_int_eq(tp_link_log_check(res.info_log), TP_ERR_LINK);
  tp_jit_result_free(&res);

  /* The cache refuses it and keeps nothing, in memory or on disk. */
  char dir[1100];
  fresh_dir(dir, sizeof dir);
  tp_kernel_cache *c;
  ck_assert_int_eq(tp_kernel_cache_create(&c, dir), TP_OK);
  tp_link_request r = {.inputs = in, .num_inputs = 2, .arch = TP_CUDA_LINK_ARCH};
  const tp_kernel_entry *e = NULL;
  ck_assert_int_eq(tp_kernel_cache_get(c, &r, &e), TP_ERR_LINK);
  ck_assert_ptr_null(e);
  ck_assert_ptr_nonnull(strstr(tp_error_message(), "setmaxnreg ignored"));
  ck_assert_ptr_nonnull(strstr(tp_error_message(), "(C7508)"));
  tp_kernel_cache_stats s = stats_of(c);
  ck_assert_uint_eq(s.links + s.disk_writes + s.memory_hits, 0);
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int files = 0;
  for (struct dirent *de; (de = readdir(d)) != NULL;) files += de->d_name[0] != '.';
  closedir(d);
  ck_assert_int_eq(files, 0);
  tp_kernel_cache_destroy(c);
}
END_TEST

/* The library is chosen once per process: each of these runs in its own
 * forked child (main() adds them only when tests fork). */
START_TEST(nvjitlink_from_environment_missing) {
  setenv("TILEPIPE_NVJITLINK", "/nonexistent/libnvJitLink.so.13", 1);
  unsigned major, minor;
  ck_assert_int_eq(tp_jit_version(&major, &minor), TP_ERR_NOT_FOUND);
  ck_assert_ptr_nonnull(strstr(tp_error_message(), "/nonexistent/libnvJitLink.so.13"));
  ck_assert_ptr_nonnull(strstr(tp_error_message(), "TILEPIPE_NVJITLINK"));
  /* The answer is remembered, message included. */
  ck_assert_int_eq(tp_jit_version(&major, &minor), TP_ERR_NOT_FOUND);
  ck_assert_ptr_nonnull(strstr(tp_error_message(), "/nonexistent/libnvJitLink.so.13"));
}
END_TEST

START_TEST(nvjitlink_from_environment_not_nvjitlink) {
  /* A real library, but not nvJitLink: it lacks the versioned symbols. */
  setenv("TILEPIPE_NVJITLINK", "libc.so.6", 1);
  tp_jit_input in[2];
  tp_link_request r = pair_request(in);
  tp_jit_result res;
  ck_assert_int_eq(tp_jit_link(in, 2, r.arch, NULL, 0, &res), TP_ERR_NOT_FOUND);
  ck_assert_ptr_nonnull(strstr(tp_error_message(), "__nvJitLinkCreate_"));
}
END_TEST

/* A disk hit opens no nvJitLink: a child process links the entry, then
 * this one, whose nvJitLink cannot be opened, reads it. */
START_TEST(disk_hit_needs_no_nvjitlink) {
  char dir[1100];
  fresh_dir(dir, sizeof dir);
  tp_jit_input in[2];
  tp_link_request r = pair_request(in);
  const pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    int linked = 0;
    _exit(tp_kernel_cache_fill(dir, &r, &linked) == TP_OK && linked ? 0 : 1);
  }
  int status = 0;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);

  setenv("TILEPIPE_NVJITLINK", "/nonexistent/libnvJitLink.so.13", 1);
  tp_kernel_cache *c;
  const tp_kernel_entry *e;
  ck_assert_int_eq(tp_kernel_cache_create(&c, dir), TP_OK);
  ck_assert_int_eq(tp_kernel_cache_get(c, &r, &e), TP_OK);
  ck_assert_int_eq(e->source, TP_KERNEL_FROM_DISK);
  ck_assert_int_eq(tp_kernel_cache_probe(dir, &r), TP_OK);
  unsigned major, minor; /* and nothing opened it on the way */
  ck_assert_int_eq(tp_jit_version(&major, &minor), TP_ERR_NOT_FOUND);
  tp_kernel_cache_destroy(c);
}
END_TEST

START_TEST(nvjitlink_from_environment_found) {
  char path[512];
  snprintf(path, sizeof path, "%s/lib64/libnvJitLink.so.%d", TP_CUDA_HOME,
           CUDA_VERSION / 1000);
  setenv("TILEPIPE_NVJITLINK", path, 1);
  unsigned major, minor;
  ck_assert_int_eq(tp_jit_version(&major, &minor), TP_OK);
  ck_assert_uint_eq(major, CUDA_VERSION / 1000);
}
END_TEST

/* ------------------------------------------------------------------- cache */

START_TEST(second_lookup_hits_memory_then_disk) {
  char dir[1100], path[1200];
  fresh_dir(dir, sizeof dir);
  tp_jit_input in[2];
  tp_link_request r = pair_request(in);

  tp_kernel_cache *a;
  ck_assert_int_eq(tp_kernel_cache_create(&a, dir), TP_OK);
  const tp_kernel_entry *first, *again;
  double t0 = now_ms();
  ck_assert_int_eq(tp_kernel_cache_get(a, &r, &first), TP_OK);
  double linked = now_ms() - t0;
  ck_assert_int_eq(first->source, TP_KERNEL_FROM_LINK);
  entry_file(path, sizeof path, dir, first);
  ck_assert_msg(file_exists(path), "no entry file %s", path);
  ck_assert_int_eq(tp_kernel_cache_get(a, &r, &again), TP_OK);
  ck_assert_ptr_eq(first, again);
  tp_kernel_cache_stats s = stats_of(a);
  ck_assert_uint_eq(s.links, 1);
  ck_assert_uint_eq(s.disk_writes, 1);
  ck_assert_uint_eq(s.memory_hits, 1);

  /* A new cache on the same folder (a new process, in effect) reads the
   * entry instead of linking. */
  tp_kernel_cache *b;
  ck_assert_int_eq(tp_kernel_cache_create(&b, dir), TP_OK);
  const tp_kernel_entry *read;
  t0 = now_ms();
  ck_assert_int_eq(tp_kernel_cache_get(b, &r, &read), TP_OK);
  double from_disk = now_ms() - t0;
  ck_assert_int_eq(read->source, TP_KERNEL_FROM_DISK);
  s = stats_of(b);
  ck_assert_uint_eq(s.disk_hits, 1);
  ck_assert_uint_eq(s.links, 0);
  ck_assert_str_eq(read->key, first->key);
  ck_assert_str_eq(read->key_text, first->key_text);
  ck_assert_uint_eq(read->cubin_size, first->cubin_size);
  ck_assert_int_eq(memcmp(read->cubin, first->cubin, first->cubin_size), 0);
  ck_assert_str_eq(read->info_log, first->info_log);
  printf("kernel cache: link %.1f ms, disk hit %.2f ms\n", linked, from_disk);
  tp_kernel_cache_destroy(a);
  tp_kernel_cache_destroy(b);
}
END_TEST

/* Runs get() on a fresh cache over dir with $TILEPIPE_LOG=debug and stderr
 * sent to a file; returns what was logged (the caller frees it). */
static char *get_logged(const char *dir, const tp_link_request *r, const tp_kernel_entry **e,
                        tp_kernel_cache **cache) {
  char path[1200];
  snprintf(path, sizeof path, "%s/stderr.txt", dir);
  fflush(stderr);
  int saved = dup(STDERR_FILENO);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_ge(dup2(fd, STDERR_FILENO), 0);
  close(fd);
  setenv("TILEPIPE_LOG", "debug", 1);
  ck_assert_int_eq(tp_kernel_cache_create(cache, dir), TP_OK);
  tp_status st = tp_kernel_cache_get(*cache, r, e);
  unsetenv("TILEPIPE_LOG");
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  ck_assert_int_eq(st, TP_OK);
  char *text = calloc(1, 4096);
  FILE *f = fopen(path, "r");
  ck_assert(text && f);
  size_t n = fread(text, 1, 4095, f);
  text[n] = '\0';
  fclose(f);
  unlink(path);
  return text;
}

/* Damages the entry file with `damage`, then checks that a new cache
 * rejects it saying `why` in the debug log, relinks, rewrites it, and that
 * the rewrite reads back. */
static void check_rebuilt(void (*damage)(const char *path, const tp_kernel_entry *e),
                          const char *why) {
  char dir[1100], path[1200];
  fresh_dir(dir, sizeof dir);
  tp_jit_input in[2];
  tp_link_request r = pair_request(in);
  tp_kernel_cache *a;
  const tp_kernel_entry *good;
  ck_assert_int_eq(tp_kernel_cache_create(&a, dir), TP_OK);
  ck_assert_int_eq(tp_kernel_cache_get(a, &r, &good), TP_OK);
  entry_file(path, sizeof path, dir, good);
  damage(path, good);

  tp_kernel_cache *b;
  const tp_kernel_entry *e;
  char *logged = get_logged(dir, &r, &e, &b);
  ck_assert_msg(strstr(logged, "debug: rejected") && strstr(logged, why),
                "debug log '%s' lacks the rejection (%s)", logged, why);
  free(logged);
  ck_assert_int_eq(e->source, TP_KERNEL_FROM_LINK);
  tp_kernel_cache_stats s = stats_of(b);
  ck_assert_uint_eq(s.disk_rejects, 1);
  ck_assert_uint_eq(s.links, 1);
  ck_assert_uint_eq(s.disk_writes, 1);
  ck_assert_int_eq(memcmp(e->cubin, good->cubin, good->cubin_size), 0);

  tp_kernel_cache *c;
  ck_assert_int_eq(tp_kernel_cache_create(&c, dir), TP_OK);
  ck_assert_int_eq(tp_kernel_cache_get(c, &r, &e), TP_OK);
  ck_assert_int_eq(e->source, TP_KERNEL_FROM_DISK);
  tp_kernel_cache_destroy(a);
  tp_kernel_cache_destroy(b);
  tp_kernel_cache_destroy(c);
}

static void flip_byte_at(const char *path, long offset) {
  FILE *f = fopen(path, "r+b");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(fseek(f, offset, SEEK_SET), 0);
  int c = fgetc(f);
  ck_assert_int_ne(c, EOF);
  ck_assert_int_eq(fseek(f, offset, SEEK_SET), 0);
  fputc(c ^ 0x5a, f);
  ck_assert_int_eq(fclose(f), 0);
}

static void flip_cubin_byte(const char *path, const tp_kernel_entry *e) {
  /* header (40 bytes), key text, then the cubin: hit its middle */
  flip_byte_at(path, 40 + (long)strlen(e->key_text) + (long)e->cubin_size / 2);
}

static void flip_magic(const char *path, const tp_kernel_entry *e) { flip_byte_at(path, 0); }

static void truncate_entry(const char *path, const tp_kernel_entry *e) {
  ck_assert_int_eq(truncate(path, 40 + (off_t)strlen(e->key_text) + 100), 0);
}

static void replace_with_other_key(const char *path, const tp_kernel_entry *e) {
  /* A well-formed entry under this name, for another key text: what a
   * hash collision or an entry of an older tilepipe looks like. */
  char dir[1200];
  snprintf(dir, sizeof dir, "%s", path);
  *strrchr(dir, '/') = '\0';
  char why[256];
  ck_assert_int_eq(tp_cache_file_write(dir, e->key, "some other key", e->cubin, e->cubin_size,
                                       e->info_log, why, sizeof why),
                   0);
}

START_TEST(corrupt_entry_is_rebuilt) { check_rebuilt(flip_cubin_byte, "checksum mismatch"); }
END_TEST
START_TEST(bad_magic_is_rebuilt) { check_rebuilt(flip_magic, "bad magic"); }
END_TEST
START_TEST(truncated_entry_is_rebuilt) { check_rebuilt(truncate_entry, "truncated"); }
END_TEST
START_TEST(stale_entry_is_rebuilt) { check_rebuilt(replace_with_other_key, "stale"); }
END_TEST

START_TEST(key_covers_what_the_cubin_depends_on) {
  tp_kernel_cache *c;
  ck_assert_int_eq(tp_kernel_cache_create(&c, NULL), TP_OK);
  tp_jit_input in[2];
  tp_link_request r = pair_request(in);
  const tp_kernel_entry *base, *other;
  ck_assert_int_eq(tp_kernel_cache_get(c, &r, &base), TP_OK);
  ck_assert_ptr_nonnull(strstr(base->key_text, "arch sm_90a\n"));
  char major[32];
  snprintf(major, sizeof major, "\nnvjitlink %d\n", CUDA_VERSION / 1000);
  ck_assert_ptr_nonnull(strstr(base->key_text, major));
  /* Nothing of this machine: a GPU's plan reads what a build machine linked. */
  ck_assert_ptr_null(strstr(base->key_text, "driver"));

  const char *opt[1] = {"-maxrregcount=200"};
  tp_link_request changed = r;
  changed.options = opt;
  changed.num_options = 1;
  ck_assert_int_eq(tp_kernel_cache_get(c, &changed, &other), TP_OK);
  ck_assert_str_ne(other->key, base->key);
  ck_assert_ptr_nonnull(strstr(other->key_text, "option -maxrregcount=200"));

  /* The same bytes under other names are the same link. */
  tp_jit_input renamed[2] = {in[0], in[1]};
  renamed[0].name = "another name";
  changed = r;
  changed.inputs = renamed;
  ck_assert_int_eq(tp_kernel_cache_get(c, &changed, &other), TP_OK);
  ck_assert_ptr_eq(other, base);
  ck_assert_uint_eq(stats_of(c).links, 2);
  tp_kernel_cache_destroy(c);
}
END_TEST

/* The key text's line for an input of these bytes. */
static void input_line(char *buf, size_t size, tp_jit_input in) {
  snprintf(buf, size, "input %zu %016llx\n", in.size,
           (unsigned long long)tp_fnv1a64(TP_FNV1A64_INIT, in.data, in.size));
}

/* The kernel fixture_grouped_link names for M, linked through the plan
 * path: what tp_cuda_link_plan hands the cache and the entry it gets. */
static const tp_kernel_entry *grouped_link(tp_registry *reg, tp_kernel_cache *c, int64_t m,
                                           tp_cuda_link *li, tp_gpu_launch *launch) {
  tp_binding b;
  ck_assert_msg(tp_binding_resolve(&b, reg, "grouped", "hook") == TP_OK, "%s",
                tp_error_message());
  tp_gemm_desc desc;
  tp_gemm_desc_init(&desc, m, 64, 64);
  desc.a = tp_tensor_matrix(TP_DTYPE_BF16, m, 64, 64, NULL);
  desc.b = tp_tensor_matrix(TP_DTYPE_BF16, 64, 64, 64, NULL);
  desc.d = tp_tensor_matrix(TP_DTYPE_BF16, m, 64, 64, NULL);
  ck_assert_int_eq(tp_binding_plan(&b, &desc, TP_BACKEND_CUDA), TP_OK);
  ck_assert_msg(tp_cuda_link_plan(&b, &desc, tp_link_target_default(), launch, li) == TP_OK, "%s",
                tp_error_message());
  const tp_kernel_entry *e = NULL;
  tp_status st = tp_kernel_cache_get(c, &li->request, &e);
  return st == TP_OK ? e : NULL;
}

/* A registry of fixture_grouped_link ("grouped") and the test hook
 * ("hook"). */
static tp_registry *grouped_registry(void) {
  char ini[1024], text[1024];
  ck_assert_int_lt(snprintf(ini, sizeof ini, "%s/grouped.ini", base_dir), (int)sizeof ini);
  snprintf(text, sizeof text,
           "[grouped]\nkind = payload\nlibrary = %s/fixture_grouped_link.so\n"
           "[hook]\nkind = epilogue\nlibrary = %s/fixture_test_hook.so\n",
           TP_TEST_PLUGIN_DIR, TP_TEST_PLUGIN_DIR);
  FILE *f = fopen(ini, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
  tp_registry *reg;
  ck_assert_msg(tp_registry_open(&reg, ini) == TP_OK, "%s", tp_error_message());
  return reg;
}

/* A payload whose device code comes in images (fixture_grouped_link:
 * link_kernel's tp_test_axpy and tp_test_ws, link_ws_unbounded's kernel)
 * links the image that lists the chosen kernel, alone with the hook, and
 * the cache key names exactly those two inputs. */
START_TEST(grouped_payload_links_its_image) {
  tp_registry *reg = grouped_registry();
  tp_kernel_cache *c;
  ck_assert_int_eq(tp_kernel_cache_create(&c, NULL), TP_OK);
  const tp_jit_input kernel = tp_test_blob_link_kernel(), hook = tp_test_blob_link_hook(),
                     unbounded = tp_test_blob_link_ws_unbounded();
  char kernel_line[64], hook_line[64], unbounded_line[64];
  input_line(kernel_line, sizeof kernel_line, kernel);
  input_line(hook_line, sizeof hook_line, hook);
  input_line(unbounded_line, sizeof unbounded_line, unbounded);

  /* tp_test_ws: link_kernel's image. Had the other come along, its
   * kernel's C7508 would fail the report check. */
  tp_cuda_link li;
  tp_gpu_launch launch;
  const tp_kernel_entry *e = grouped_link(reg, c, 128, &li, &launch);
  ck_assert_msg(e != NULL, "%s", tp_error_message());
  ck_assert_str_eq(launch.kernel, "tp_test_ws");
  ck_assert_uint_eq(li.request.num_inputs, 2);
  ck_assert_uint_eq(li.inputs[0].size, kernel.size);
  ck_assert_int_eq(memcmp(li.inputs[0].data, kernel.data, kernel.size), 0);
  ck_assert_ptr_nonnull(strstr(e->key_text, kernel_line));
  ck_assert_ptr_nonnull(strstr(e->key_text, hook_line));
  ck_assert_ptr_null(strstr(e->key_text, unbounded_line));
  const char *second = strstr(e->key_text, "input ");
  ck_assert_ptr_nonnull(second);
  second = strstr(second + 1, "input ");
  ck_assert_ptr_nonnull(second);
  ck_assert_ptr_null(strstr(second + 1, "input ")); /* two inputs, no more */
  tp_link_stats ws;
  ck_assert_int_eq(tp_link_log_stats(e->info_log, "tp_test_ws", &ws), TP_OK);

  /* tp_test_ws_unbounded: the other image, whose report fails the check. */
  ck_assert_ptr_null(grouped_link(reg, c, 256, &li, &launch));
  ck_assert_str_eq(launch.kernel, "tp_test_ws_unbounded");
  ck_assert_uint_eq(li.inputs[0].size, unbounded.size);
  ck_assert_int_eq(memcmp(li.inputs[0].data, unbounded.data, unbounded.size), 0);
  ck_assert_ptr_nonnull(strstr(tp_error_message(), "(C7508)"));
  ck_assert_uint_eq(stats_of(c).links, 1);
  tp_kernel_cache_destroy(c);
  tp_registry_close(reg);
}
END_TEST

/* A prologue (tp_gpu_launch.prologue) is linked beside the kernel from
 * the kernel's image, its report required; a launch that names one with
 * an impossible block is refused before any link. */
START_TEST(prologue_links_with_its_kernel) {
  tp_registry *reg = grouped_registry();
  tp_kernel_cache *c;
  ck_assert_int_eq(tp_kernel_cache_create(&c, NULL), TP_OK);
  tp_cuda_link li;
  tp_gpu_launch launch;
  const tp_kernel_entry *e = grouped_link(reg, c, 64, &li, &launch);
  ck_assert_msg(e != NULL, "%s", tp_error_message());
  ck_assert_str_eq(launch.kernel, "tp_test_axpy");
  ck_assert_str_eq(launch.prologue, "tp_test_ws");
  ck_assert_uint_eq(li.request.num_options, 2);
  ck_assert_str_eq(li.request.options[0], "-kernels-used=tp_test_axpy");
  ck_assert_str_eq(li.request.options[1], "-kernels-used=tp_test_ws");
  tp_link_stats stats;
  ck_assert_int_eq(tp_link_log_stats(e->info_log, "tp_test_axpy", &stats), TP_OK);
  ck_assert_int_eq(tp_link_log_stats(e->info_log, "tp_test_ws", &stats), TP_OK);
  /* without one, the kernel's link keeps that kernel alone */
  e = grouped_link(reg, c, 2, &li, &launch);
  ck_assert_msg(e != NULL, "%s", tp_error_message());
  ck_assert_str_eq(launch.prologue, "");
  ck_assert_uint_eq(li.request.num_options, 1);
  ck_assert_int_ne(tp_link_log_stats(e->info_log, "tp_test_ws", &stats), TP_OK);

  tp_binding b;
  ck_assert_int_eq(tp_binding_resolve(&b, reg, "grouped", "hook"), TP_OK);
  tp_gemm_desc desc;
  for (int64_t m = 65; m <= 66; ++m) {
    tp_gemm_desc_init(&desc, m, 64, 64);
    desc.a = tp_tensor_matrix(TP_DTYPE_BF16, m, 64, 64, NULL);
    desc.b = tp_tensor_matrix(TP_DTYPE_BF16, 64, 64, 64, NULL);
    desc.d = tp_tensor_matrix(TP_DTYPE_BF16, m, 64, 64, NULL);
    ck_assert_int_eq(tp_binding_plan(&b, &desc, TP_BACKEND_CUDA), TP_OK);
    const tp_status st = tp_cuda_link_check(&b, &desc, tp_link_target_default(), &launch, &stats);
    if (m == 65) { /* a prologue the image does not hold */
      ck_assert_int_eq(st, TP_ERR_NOT_FOUND);
      ck_assert_ptr_nonnull(strstr(tp_error_message(), "prologue tp_test_nowhere"));
    } else {
      ck_assert_int_eq(st, TP_ERR_PLUGIN);
      ck_assert_ptr_nonnull(strstr(tp_error_message(), "prologue tp_test_ws has 2048 threads"));
    }
  }
  tp_kernel_cache_destroy(c);
  tp_registry_close(reg);
}
END_TEST

START_TEST(bad_requests) {
  tp_kernel_cache *c;
  ck_assert_int_eq(tp_kernel_cache_create(&c, NULL), TP_OK);
  tp_jit_input in[2];
  tp_link_request r = pair_request(in);
  const tp_kernel_entry *e;
  ck_assert_int_eq(tp_kernel_cache_get(NULL, &r, &e), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_kernel_cache_get(c, NULL, &e), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_kernel_cache_get(c, &r, NULL), TP_ERR_INVALID_ARGUMENT);
  tp_link_request bad = r;
  bad.num_inputs = 0;
  ck_assert_int_eq(tp_kernel_cache_get(c, &bad, &e), TP_ERR_INVALID_ARGUMENT);
  bad = r;
  bad.arch = "sm_90a\narch sm_80";
  ck_assert_int_eq(tp_kernel_cache_get(c, &bad, &e), TP_ERR_INVALID_ARGUMENT);
  const char *newline[1] = {"-O3\ninput 1 0"};
  bad = r;
  bad.options = newline;
  bad.num_options = 1;
  ck_assert_int_eq(tp_kernel_cache_get(c, &bad, &e), TP_ERR_INVALID_ARGUMENT);
  tp_jit_input missing[2] = {in[0], {NULL, 10, "null"}};
  bad = r;
  bad.inputs = missing;
  ck_assert_int_eq(tp_kernel_cache_get(c, &bad, &e), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_kernel_cache_create(NULL, NULL), TP_ERR_INVALID_ARGUMENT);
  tp_kernel_cache *d;
  ck_assert_int_eq(tp_kernel_cache_create(&d, ""), TP_ERR_INVALID_ARGUMENT);
  tp_kernel_cache_destroy(NULL);
  tp_kernel_cache_destroy(c);
}
END_TEST

START_TEST(unwritable_folder_costs_only_the_disk) {
  /* A regular file where the folder should be: nothing can be written. */
  char dir[1100];
  fresh_dir(dir, sizeof dir);
  ck_assert_int_lt((int)strlen(dir) + 8, (int)sizeof dir);
  strcat(dir, "/file");
  FILE *f = fopen(dir, "w");
  ck_assert_ptr_nonnull(f);
  fclose(f);
  tp_kernel_cache *c;
  ck_assert_int_eq(tp_kernel_cache_create(&c, dir), TP_OK);
  tp_jit_input in[2];
  tp_link_request r = pair_request(in);
  const tp_kernel_entry *e;
  ck_assert_int_eq(tp_kernel_cache_get(c, &r, &e), TP_OK);
  tp_kernel_cache_stats s = stats_of(c);
  ck_assert_uint_eq(s.links, 1);
  ck_assert_uint_eq(s.disk_writes, 0);
  tp_kernel_cache_destroy(c);
}
END_TEST

START_TEST(nested_folder_is_created) {
  char dir[1100], path[1200];
  fresh_dir(dir, sizeof dir);
  strcat(dir, "/a/b");
  tp_kernel_cache *c;
  ck_assert_int_eq(tp_kernel_cache_create(&c, dir), TP_OK);
  tp_jit_input in[2];
  tp_link_request r = pair_request(in);
  const tp_kernel_entry *e;
  ck_assert_int_eq(tp_kernel_cache_get(c, &r, &e), TP_OK);
  entry_file(path, sizeof path, dir, e);
  ck_assert(file_exists(path));
  tp_kernel_cache_destroy(c);
}
END_TEST

/* Sets or (value NULL) unsets an environment variable. */
static void set_env(const char *name, const char *value) {
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
}

START_TEST(cache_folder_from_environment) {
  /* Restored at the end, for runs without fork (CK_FORK=no). */
  char *saved_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
  char *saved_xdg = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
  char buf[512];
  setenv("TILEPIPE_CACHE_DIR", "/somewhere/cache", 1);
  ck_assert_int_eq(tp_kernel_cache_dir(buf, sizeof buf), TP_OK);
  ck_assert_str_eq(buf, "/somewhere/cache");
  setenv("TILEPIPE_CACHE_DIR", "off", 1);
  ck_assert_int_eq(tp_kernel_cache_dir(buf, sizeof buf), TP_OK);
  ck_assert_str_eq(buf, "");
  unsetenv("TILEPIPE_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  setenv("HOME", "/home/someone", 1);
  ck_assert_int_eq(tp_kernel_cache_dir(buf, sizeof buf), TP_OK);
  ck_assert_str_eq(buf, "/xdg/tilepipe");
  setenv("XDG_CACHE_HOME", "relative", 1);
  ck_assert_int_eq(tp_kernel_cache_dir(buf, sizeof buf), TP_OK);
  ck_assert_str_eq(buf, "/home/someone/.cache/tilepipe");
  unsetenv("XDG_CACHE_HOME");
  unsetenv("HOME");
  ck_assert_int_eq(tp_kernel_cache_dir(buf, sizeof buf), TP_OK);
  ck_assert_str_eq(buf, "");
  setenv("TILEPIPE_CACHE_DIR", "/a/rather/long/path", 1);
  ck_assert_int_eq(tp_kernel_cache_dir(buf, 8), TP_ERR_INVALID_ARGUMENT);
  set_env("HOME", saved_home);
  set_env("XDG_CACHE_HOME", saved_xdg);
  setenv("TILEPIPE_CACHE_DIR", base_dir, 1);
  free(saved_home);
  free(saved_xdg);
}
END_TEST

START_TEST(link_only_uses_the_process_cache) {
  /* main() pointed TILEPIPE_CACHE_DIR at base_dir. */
  tp_jit_input in[2];
  tp_link_request r = pair_request(in);
  const tp_kernel_entry *e, *again;
  ck_assert_int_eq(tp_cuda_link_only(&r, &e), TP_OK);
  char path[1200];
  entry_file(path, sizeof path, base_dir, e);
  ck_assert_msg(file_exists(path), "no entry file %s", path);
  ck_assert_int_eq(tp_cuda_link_only(&r, &again), TP_OK);
  ck_assert_ptr_eq(e, again);
  ck_assert_int_eq(tp_cuda_link_only(NULL, &e), TP_ERR_INVALID_ARGUMENT);
}
END_TEST

/* ------------------------------------------------------ filling the disk */

static int count_entries(const char *dir) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int files = 0;
  for (struct dirent *de; (de = readdir(d)) != NULL;)
    files += de->d_name[0] != '.' && strstr(de->d_name, ".tpk") != NULL;
  closedir(d);
  return files;
}

START_TEST(fill_links_once_then_finds_it) {
  char dir[1100];
  fresh_dir(dir, sizeof dir);
  tp_jit_input in[2];
  tp_link_request r = pair_request(in);
  ck_assert_int_eq(tp_kernel_cache_probe(dir, &r), TP_ERR_NOT_FOUND);
  ck_assert_ptr_nonnull(strstr(tp_error_message(), "no entry"));
  int linked = -1;
  ck_assert_int_eq(tp_kernel_cache_fill(dir, &r, &linked), TP_OK);
  ck_assert_int_eq(linked, 1);
  ck_assert_int_eq(count_entries(dir), 1);
  ck_assert_int_eq(tp_kernel_cache_probe(dir, &r), TP_OK);
  ck_assert_int_eq(tp_kernel_cache_fill(dir, &r, &linked), TP_OK);
  ck_assert_int_eq(linked, 0);

  /* What it wrote is what a cache reads: a disk hit, the same cubin. */
  tp_kernel_cache *c;
  const tp_kernel_entry *e;
  ck_assert_int_eq(tp_kernel_cache_create(&c, dir), TP_OK);
  ck_assert_int_eq(tp_kernel_cache_get(c, &r, &e), TP_OK);
  ck_assert_int_eq(e->source, TP_KERNEL_FROM_DISK);
  tp_jit_result res;
  ck_assert_int_eq(tp_jit_link(r.inputs, 2, r.arch, NULL, 0, &res), TP_OK);
  ck_assert_uint_eq(res.cubin_size, e->cubin_size);
  ck_assert_int_eq(memcmp(res.cubin, e->cubin, e->cubin_size), 0);
  tp_jit_result_free(&res);
  tp_kernel_cache_destroy(c);
}
END_TEST

START_TEST(fill_relinks_a_corrupt_entry) {
  char dir[1100], path[1200];
  fresh_dir(dir, sizeof dir);
  tp_jit_input in[2];
  tp_link_request r = pair_request(in);
  tp_kernel_cache *c;
  const tp_kernel_entry *good;
  ck_assert_int_eq(tp_kernel_cache_create(&c, dir), TP_OK);
  ck_assert_int_eq(tp_kernel_cache_get(c, &r, &good), TP_OK);
  entry_file(path, sizeof path, dir, good);
  flip_cubin_byte(path, good);
  ck_assert_int_eq(tp_kernel_cache_probe(dir, &r), TP_ERR_NOT_FOUND);
  ck_assert_ptr_nonnull(strstr(tp_error_message(), "checksum mismatch"));
  int linked = 0;
  ck_assert_int_eq(tp_kernel_cache_fill(dir, &r, &linked), TP_OK);
  ck_assert_int_eq(linked, 1);
  ck_assert_int_eq(tp_kernel_cache_probe(dir, &r), TP_OK);
  tp_kernel_cache_destroy(c);
}
END_TEST

START_TEST(fill_failures_are_reported) {
  char dir[1100];
  fresh_dir(dir, sizeof dir);
  /* A link whose ptxas report fails the check writes nothing. */
  tp_jit_input bad[2] = {tp_test_blob_link_ws_unbounded(), tp_test_blob_link_hook()};
  tp_link_request r = {.inputs = bad, .num_inputs = 2, .arch = TP_CUDA_LINK_ARCH};
  int linked = 0;
  ck_assert_int_eq(tp_kernel_cache_fill(dir, &r, &linked), TP_ERR_LINK);
  ck_assert_ptr_nonnull(strstr(tp_error_message(), "(C7508)"));
  ck_assert_int_eq(linked, 0);
  ck_assert_int_eq(count_entries(dir), 0);

  /* A folder that cannot be written: the link is lost, and said so. */
  tp_jit_input in[2];
  tp_link_request good = pair_request(in);
  strcat(dir, "/file");
  FILE *f = fopen(dir, "w");
  ck_assert_ptr_nonnull(f);
  fclose(f);
  ck_assert_int_eq(tp_kernel_cache_fill(dir, &good, &linked), TP_ERR_IO);
  ck_assert_ptr_nonnull(strstr(tp_error_message(), "linked, but cannot create"));
  ck_assert_ptr_nonnull(strstr(tp_error_message(), dir));

  ck_assert_int_eq(tp_kernel_cache_fill(NULL, &good, &linked), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_kernel_cache_fill("", &good, &linked), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_kernel_cache_fill(dir, NULL, &linked), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_kernel_cache_fill(dir, &good, NULL), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_kernel_cache_probe(NULL, &good), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_kernel_cache_probe(dir, NULL), TP_ERR_INVALID_ARGUMENT);
}
END_TEST

/* attach(): load runs once per entry, unload once at destroy. */
static int loads, unloads;
static int token;
static tp_status count_load(const tp_kernel_entry *e, void **handle) {
  loads++;
  *handle = &token;
  return TP_OK;
}
static void count_unload(void *handle) {
  ck_assert_ptr_eq(handle, &token);
  unloads++;
}

START_TEST(attach_loads_once) {
  tp_kernel_cache *c, *other;
  ck_assert_int_eq(tp_kernel_cache_create(&c, NULL), TP_OK);
  ck_assert_int_eq(tp_kernel_cache_create(&other, NULL), TP_OK);
  tp_jit_input in[2];
  tp_link_request r = pair_request(in);
  const tp_kernel_entry *e;
  ck_assert_int_eq(tp_kernel_cache_get(c, &r, &e), TP_OK);
  void *h1 = NULL, *h2 = NULL;
  ck_assert_int_eq(tp_kernel_cache_attach(c, e, count_load, count_unload, &h1), TP_OK);
  ck_assert_int_eq(tp_kernel_cache_attach(c, e, count_load, count_unload, &h2), TP_OK);
  ck_assert_ptr_eq(h1, &token);
  ck_assert_ptr_eq(h2, &token);
  ck_assert_int_eq(loads, 1);
  ck_assert_int_eq(tp_kernel_cache_attach(other, e, count_load, count_unload, &h1),
                   TP_ERR_INVALID_ARGUMENT);
  tp_kernel_cache_destroy(other);
  ck_assert_int_eq(unloads, 0);
  tp_kernel_cache_destroy(c);
  ck_assert_int_eq(unloads, 1);
}
END_TEST

typedef struct racer {
  tp_kernel_cache *cache;
  const tp_link_request *request;
  const tp_kernel_entry *entry;
  tp_status status;
} racer;

static void *race(void *arg) {
  racer *r = arg;
  r->status = tp_kernel_cache_get(r->cache, r->request, &r->entry);
  return NULL;
}

START_TEST(concurrent_lookups_agree) {
  char dir[1100];
  fresh_dir(dir, sizeof dir);
  tp_kernel_cache *c;
  ck_assert_int_eq(tp_kernel_cache_create(&c, dir), TP_OK);
  tp_jit_input in[2];
  tp_link_request r = pair_request(in);
  enum { N = 4 };
  racer racers[N];
  pthread_t threads[N];
  for (int i = 0; i < N; i++) {
    racers[i] = (racer){c, &r, NULL, TP_ERR_INTERNAL};
    ck_assert_int_eq(pthread_create(&threads[i], NULL, race, &racers[i]), 0);
  }
  for (int i = 0; i < N; i++) pthread_join(threads[i], NULL);
  for (int i = 0; i < N; i++) {
    ck_assert_int_eq(racers[i].status, TP_OK);
    ck_assert_ptr_eq(racers[i].entry, racers[0].entry);
  }
  tp_kernel_cache_stats s = stats_of(c);
  ck_assert_uint_eq(s.memory_hits + s.disk_hits + s.links, N);
  ck_assert_uint_ge(s.links, 1);
  tp_kernel_cache_destroy(c);
}
END_TEST

int main(void) {
  if (tp_test_tmpdir_make(base_dir, sizeof base_dir, "tilepipe-test-cuda-link") != 0) {
    perror("cannot make a scratch folder");
    return 99;
  }
  setenv("TILEPIPE_CACHE_DIR", base_dir, 1);

  Suite *s = suite_create("cuda_link");
  TCase *link = tcase_create("link");
  tcase_set_timeout(link, 120);
  tcase_add_test(link, pair_links_clean);
  tcase_add_test(link, missing_hook_fails);
  tcase_add_test(link, bad_link_arguments);
  tcase_add_test(link, ignored_setmaxnreg_is_refused);
  suite_add_tcase(s, link);
  TCase *cache = tcase_create("cache");
  tcase_set_timeout(cache, 120);
  tcase_add_test(cache, second_lookup_hits_memory_then_disk);
  tcase_add_test(cache, corrupt_entry_is_rebuilt);
  tcase_add_test(cache, bad_magic_is_rebuilt);
  tcase_add_test(cache, truncated_entry_is_rebuilt);
  tcase_add_test(cache, stale_entry_is_rebuilt);
  tcase_add_test(cache, key_covers_what_the_cubin_depends_on);
  tcase_add_test(cache, grouped_payload_links_its_image);
  tcase_add_test(cache, prologue_links_with_its_kernel);
  tcase_add_test(cache, bad_requests);
  tcase_add_test(cache, unwritable_folder_costs_only_the_disk);
  tcase_add_test(cache, nested_folder_is_created);
  tcase_add_test(cache, cache_folder_from_environment);
  tcase_add_test(cache, link_only_uses_the_process_cache);
  tcase_add_test(cache, attach_loads_once);
  tcase_add_test(cache, concurrent_lookups_agree);
  tcase_add_test(cache, fill_links_once_then_finds_it);
  tcase_add_test(cache, fill_relinks_a_corrupt_entry);
  tcase_add_test(cache, fill_failures_are_reported);
  suite_add_tcase(s, cache);

  SRunner *sr = srunner_create(s);
  if (srunner_fork_status(sr) != CK_NOFORK) {
    TCase *env = tcase_create("environment");
    tcase_add_test(env, nvjitlink_from_environment_missing);
    tcase_add_test(env, nvjitlink_from_environment_not_nvjitlink);
    tcase_add_test(env, nvjitlink_from_environment_found);
    tcase_add_test(env, disk_hit_needs_no_nvjitlink);
    suite_add_tcase(s, env);
  }
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  tp_test_tmpdir_remove(base_dir);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
