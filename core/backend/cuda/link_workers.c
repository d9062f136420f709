/* core/backend/cuda/link_workers.c: worker processes that fill the disk
 * cache. See link_workers.h.
 *
 * The workers share one counter (an anonymous shared mapping) from which
 * each takes its next request, so a long link never holds up the short
 * ones behind it, and one pipe back to the caller. Each report is one
 * fixed-size record smaller than PIPE_BUF, which a pipe writes atomically:
 * the workers' reports never interleave. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "config.h"

#include <errno.h>
#include <limits.h> /* PIPE_BUF */
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/backend/cuda/link_workers.h"
#include "core/backend/cuda/nvjitlink.h"
#include "core/error.h"

typedef struct report {
  uint64_t index;
  int32_t status;
  int32_t linked;
  double seconds;
  char message[3072];
} report;
_Static_assert(sizeof(report) <= PIPE_BUF, "a report is written to the pipe atomically");

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void fill_one(const char *dir, const tp_link_request *request, size_t index, report *r) {
  const double t0 = now_s();
  int linked = 0;
  const tp_status st = tp_kernel_cache_fill(dir, request, &linked);
  memset(r, 0, sizeof *r);
  r->index = index;
  r->status = (int32_t)st;
  r->linked = linked;
  r->seconds = now_s() - t0;
  snprintf(r->message, sizeof r->message, "%s", st == TP_OK ? "" : tp_error_message());
}

static void tell(tp_link_done_fn done, void *context, const report *r) {
  done(context, (size_t)r->index, (tp_status)r->status, r->linked, r->seconds, r->message);
}

static void serially(const char *dir, const tp_link_request *const *requests, size_t count,
                     tp_link_done_fn done, void *context) {
  report r;
  for (size_t i = 0; i < count; i++) {
    fill_one(dir, requests[i], i, &r);
    tell(done, context, &r);
  }
}

#if TP_HAVE_CUDA
static int write_all(int fd, const void *buf, size_t n) {
  const unsigned char *p = buf;
  while (n > 0) {
    const ssize_t put = write(fd, p, n);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return -1;
    p += put;
    n -= (size_t)put;
  }
  return 0;
}

/* Reads exactly n bytes: 1, or 0 at the end of the pipe, -1 on error. */
static int read_all(int fd, void *buf, size_t n) {
  unsigned char *p = buf;
  size_t got = 0;
  while (got < n) {
    const ssize_t r = read(fd, p + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) return got == 0 ? 0 : -1;
    got += (size_t)r;
  }
  return 1;
}

/* A worker: requests from the shared counter until none is left. */
static void work(const char *dir, const tp_link_request *const *requests, size_t count,
                 atomic_size_t *next, int out) {
  report r;
  for (size_t i; (i = atomic_fetch_add(next, 1)) < count;) {
    fill_one(dir, requests[i], i, &r);
    if (write_all(out, &r, sizeof r) != 0) _exit(2);
  }
  _exit(0);
}

/* How a worker ended, for the requests it left without an outcome. */
static void describe_exit(int status, char *buf, size_t size) {
  if (WIFSIGNALED(status))
    snprintf(buf, size, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
  else if (WIFEXITED(status))
    snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
  else
    snprintf(buf, size, "ended (wait status %d)", status);
}

/* The worker processes; how many started, 0 when none could. */
static size_t in_workers(const char *dir, const tp_link_request *const *requests, size_t count,
                         int jobs, tp_link_done_fn done, void *context) {
  /* The children must find nvJitLink open (tp_jit_fork). A failure here is
   * every link's failure, which the serial path reports request by
   * request. */
  unsigned major, minor;
  atomic_size_t *next = MAP_FAILED;
  int fds[2] = {-1, -1};
  if (tp_jit_version(&major, &minor) != TP_OK ||
      (next = mmap(NULL, sizeof *next, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
                   0)) == MAP_FAILED ||
      pipe(fds) != 0) {
    if (next != MAP_FAILED) munmap(next, sizeof *next);
    serially(dir, requests, count, done, context);
    return 0;
  }
  atomic_init(next, 0);
  const size_t workers = (size_t)jobs < count ? (size_t)jobs : count;
  pid_t *pids = calloc(workers, sizeof *pids);
  unsigned char *told = calloc(count, 1);
  size_t started = 0;
  for (; pids && told && started < workers; started++) {
    const pid_t pid = tp_jit_fork();
    if (pid < 0) break;
    if (pid == 0) {
      close(fds[0]);
      work(dir, requests, count, next, fds[1]);
    }
    pids[started] = pid;
  }
  close(fds[1]);
  report r;
  while (started > 0 && read_all(fds[0], &r, sizeof r) == 1) {
    if (r.index >= count || told[r.index]) continue; /* not ours to trust */
    r.message[sizeof r.message - 1] = '\0';
    told[r.index] = 1;
    tell(done, context, &r);
  }
  close(fds[0]);
  char ended[128] = "";
  for (size_t w = 0; w < started; w++) {
    int status = 0;
    pid_t got;
    while ((got = waitpid(pids[w], &status, 0)) < 0 && errno == EINTR) {
    }
    if (got == pids[w] && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
      describe_exit(status, ended, sizeof ended);
  }
  /* What no worker reported: what none took (none started, or they all
   * died first) is linked here; what a worker took and never reported, it
   * died on. */
  const size_t taken = started > 0 ? atomic_load(next) : 0;
  for (size_t i = 0; i < count; i++) {
    if (told && told[i]) continue;
    if (i >= taken) {
      fill_one(dir, requests[i], i, &r);
    } else {
      memset(&r, 0, sizeof r);
      r.index = i;
      r.status = TP_ERR_INTERNAL;
      snprintf(r.message, sizeof r.message,
               "the worker process linking it %s before reporting",
               *ended ? ended : "ended");
    }
    tell(done, context, &r);
  }
  free(told);
  free(pids);
  munmap(next, sizeof *next);
  return started;
}
#endif

tp_status tp_link_workers_fill(const char *dir, const tp_link_request *const *requests,
                               size_t count, int jobs, tp_link_done_fn done, void *context,
                               size_t *workers) {
  if (!dir || !*dir || (count > 0 && !requests) || jobs < 1 || !done || !workers)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "link workers: no folder, no requests, jobs < 1 or no callback");
  *workers = 0;
#if TP_HAVE_CUDA
  if (jobs > 1 && count > 1) {
    *workers = in_workers(dir, requests, count, jobs, done, context);
    return TP_OK;
  }
#endif
  serially(dir, requests, count, done, context);
  return TP_OK;
}
