/* core/backend/cuda/nvjitlink.c: opens nvJitLink and links. See nvjitlink.h.
 *
 * nvJitLink.h binds each call to a versioned symbol through a static inline
 * wrapper (nvJitLinkCreate calls __nvJitLinkCreate_13_0), so a program is tied
 * to the ABI of the header it was compiled against. We resolve those same
 * versioned names with dlsym; the table's types come from the header's own
 * declarations, so a toolkit whose header names them differently fails to
 * compile here instead of calling the wrong ABI at run time. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/backend/cuda/nvjitlink.h"
#include "core/error.h"

void tp_jit_result_free(tp_jit_result *result) {
  if (!result) return;
  free(result->cubin);
  free(result->info_log);
  free(result->error_log);
  memset(result, 0, sizeof *result);
}

#if TP_HAVE_CUDA
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include <cuda.h> /* CUDA_VERSION: the toolkit whose nvJitLink.h this is */
#include <nvJitLink.h>

#include "core/backend/cuda/once.h"

#if CUDA_VERSION >= 13000 && CUDA_VERSION < 14000
#define TP_JL_VERSIONED(name) __nvJitLink##name##_13_0
#else
/* Another major's header names them differently: read its nvJitLink.h. */
#error "nvjitlink.c: set TP_JL_VERSIONED to this toolkit's __nvJitLinkCreate_* suffix"
#endif
#define TP_JL_STRING_(x) #x
#define TP_JL_STRING(x) TP_JL_STRING_(x)

#define TP_JL_FUNCTIONS(X)                                                         \
  X(Create) X(Destroy) X(AddData) X(Complete) X(GetLinkedCubinSize)                \
  X(GetLinkedCubin) X(GetErrorLogSize) X(GetErrorLog) X(GetInfoLogSize) X(GetInfoLog)

#define TP_JL_FIELD(name) __typeof__(&TP_JL_VERSIONED(name)) name;
static struct {
  TP_JL_FUNCTIONS(TP_JL_FIELD)
  __typeof__(&nvJitLinkVersion) Version; /* the one unversioned entry point */
} jl;
#undef TP_JL_FIELD

#define TP_JL_SYMBOL(name) {TP_JL_STRING(TP_JL_VERSIONED(name)), (void **)&jl.name},
static const struct {
  const char *symbol;
  void **slot;
} jl_symbols[] = {TP_JL_FUNCTIONS(TP_JL_SYMBOL){"nvJitLinkVersion", (void **)&jl.Version}};
#undef TP_JL_SYMBOL

/* One link at a time. nvJitLink does not document thread safety; concurrent
 * links race inside it under ThreadSanitizer, and cuda-python#1023 reports
 * concurrent calls failing. Links are cached (kernel_cache.h), so this
 * costs only the first plan of each kernel. */
static pthread_mutex_t link_lock = PTHREAD_MUTEX_INITIALIZER;

static tp_once_result load_result;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static tp_status open_library(void) {
  const int major = CUDA_VERSION / 1000;
  char soname[64], in_toolkit[512];
  snprintf(soname, sizeof soname, "libnvJitLink.so.%d", major);
  snprintf(in_toolkit, sizeof in_toolkit, "%s/lib64/%s", TP_CUDA_HOME, soname);
  /* An explicit $TILEPIPE_NVJITLINK is the only candidate: falling back
   * would hide a mistyped path behind another library. */
  const char *env = getenv("TILEPIPE_NVJITLINK");
  const char *candidates[2] = {soname, in_toolkit};
  size_t count = 2;
  if (env && *env) {
    candidates[0] = env;
    count = 1;
  }
  void *lib = NULL;
  const char *path = NULL;
  char failures[700] = "";
  for (size_t i = 0; i < count && !lib; i++) {
    lib = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
    path = candidates[i];
    if (!lib) {
      size_t used = strlen(failures);
      snprintf(failures + used, sizeof failures - used, "%s%s", used ? "; " : "", dlerror());
    }
  }
  if (!lib)
    return tp_error_set(TP_ERR_NOT_FOUND,
                        "nvJitLink: cannot open the CUDA %d nvJitLink (%s); set TILEPIPE_NVJITLINK "
                        "to its path",
                        major, failures);
  for (size_t i = 0; i < sizeof jl_symbols / sizeof jl_symbols[0]; i++) {
    void *fn = dlsym(lib, jl_symbols[i].symbol);
    if (!fn)
      return tp_error_set(TP_ERR_NOT_FOUND,
                          "nvJitLink: %s has no %s; it is not the nvJitLink of the CUDA %d.%d "
                          "toolkit tilepipe was built with",
                          path, jl_symbols[i].symbol, major, CUDA_VERSION % 1000 / 10);
    memcpy(jl_symbols[i].slot, &fn, sizeof fn);
  }
  return TP_OK;
}

static void open_library_once(void) { tp_once_record(&load_result, open_library()); }

unsigned tp_jit_abi_major(void) { return CUDA_VERSION / 1000; }

/* The pthread_atfork pattern for one lock: taken before, released on both
 * sides after. */
pid_t tp_jit_fork(void) {
  pthread_mutex_lock(&link_lock);
  const pid_t pid = fork();
  pthread_mutex_unlock(&link_lock);
  return pid;
}

static tp_status load(void) {
  pthread_once(&load_once, open_library_once);
  return tp_once_replay(&load_result);
}

tp_status tp_jit_version(unsigned *major, unsigned *minor) {
  if (!major || !minor)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_jit_version: major or minor is NULL");
  tp_status st = load();
  if (st != TP_OK) return st;
  if (jl.Version(major, minor) != NVJITLINK_SUCCESS)
    return tp_error_set(TP_ERR_LINK, "nvJitLink: nvJitLinkVersion failed");
  return TP_OK;
}

static const char *result_name(nvJitLinkResult r) {
  static const char *const names[] = {
      "NVJITLINK_SUCCESS",
      "NVJITLINK_ERROR_UNRECOGNIZED_OPTION",
      "NVJITLINK_ERROR_MISSING_ARCH",
      "NVJITLINK_ERROR_INVALID_INPUT",
      "NVJITLINK_ERROR_PTX_COMPILE",
      "NVJITLINK_ERROR_NVVM_COMPILE",
      "NVJITLINK_ERROR_INTERNAL",
      "NVJITLINK_ERROR_THREADPOOL",
      "NVJITLINK_ERROR_UNRECOGNIZED_INPUT",
      "NVJITLINK_ERROR_FINALIZE",
      "NVJITLINK_ERROR_NULL_INPUT",
      "NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS",
      "NVJITLINK_ERROR_INCORRECT_INPUT_TYPE",
      "NVJITLINK_ERROR_ARCH_MISMATCH",
      "NVJITLINK_ERROR_OUTDATED_LIBRARY",
      "NVJITLINK_ERROR_MISSING_FATBIN",
      "NVJITLINK_ERROR_UNRECOGNIZED_ARCH",
      "NVJITLINK_ERROR_UNSUPPORTED_ARCH",
      "NVJITLINK_ERROR_LTO_NOT_ENABLED",
  };
  size_t i = (size_t)r;
  return i < sizeof names / sizeof names[0] ? names[i] : "NVJITLINK_ERROR_(unknown)";
}

/* Copies one of the handle's logs into a NUL-terminated heap string ("" when
 * it is empty or cannot be read). */
static char *read_log(nvJitLinkHandle h, __typeof__(jl.GetInfoLogSize) get_size,
                      __typeof__(jl.GetInfoLog) get) {
  size_t size = 0;
  if (!h || get_size(h, &size) != NVJITLINK_SUCCESS) size = 0;
  char *log = malloc(size + 1);
  if (!log) return NULL;
  log[0] = '\0';
  if (size > 0 && get(h, log) != NVJITLINK_SUCCESS) log[0] = '\0';
  log[size] = '\0';
  return log;
}

/* A log as one message line: newlines become "; ", the tail is trimmed. */
static void one_line(const char *log, char *buf, size_t size) {
  size_t n = 0;
  for (const char *p = log; *p && n + 3 < size; p++) {
    if (*p != '\n') {
      buf[n++] = *p;
    } else if (p[1]) {
      buf[n++] = ';';
      buf[n++] = ' ';
    }
  }
  while (n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == ';')) n--;
  buf[n] = '\0';
}

/* "sm_" digits, then at most one 'a' or 'f' suffix: "sm_90a". */
static int is_arch(const char *arch) {
  if (!arch || strncmp(arch, "sm_", 3) != 0) return 0;
  const char *p = arch + 3;
  if (*p < '0' || *p > '9') return 0;
  while (*p >= '0' && *p <= '9') p++;
  if (*p == 'a' || *p == 'f') p++;
  return *p == '\0' && p - arch < 16;
}

static tp_status check_arguments(const tp_jit_input *inputs, size_t num_inputs, const char *arch,
                                 const char *const *options, size_t num_options) {
  if (!inputs || num_inputs == 0)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_jit_link: no inputs");
  for (size_t i = 0; i < num_inputs; i++)
    if (!inputs[i].data || inputs[i].size == 0 || !inputs[i].name)
      return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                          "tp_jit_link: input %zu has no data, a zero size or no name", i);
  /* Checked here rather than left to nvJitLinkCreate, which leaks memory
   * when it refuses an option (CUDA 13.0, seen under LeakSanitizer). */
  if (!is_arch(arch))
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_jit_link: arch '%.32s' is not sm_<N>[a|f]",
                        arch ? arch : "(null)");
  if (num_options > 0 && !options)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_jit_link: %zu options but no array",
                        num_options);
  for (size_t i = 0; i < num_options; i++)
    if (!options[i])
      return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_jit_link: option %zu is NULL", i);
  return TP_OK;
}

/* Fails with the step, the nvJitLink result and the error log. */
static tp_status link_failed(const char *step, nvJitLinkResult r, const tp_jit_result *out) {
  char log[768];
  one_line(out->error_log ? out->error_log : "", log, sizeof log);
  return tp_error_set(TP_ERR_LINK, "nvJitLink: %s failed (%s)%s%s", step, result_name(r),
                      *log ? ": " : "", log);
}

tp_status tp_jit_link(const tp_jit_input *inputs, size_t num_inputs, const char *arch,
                      const char *const *options, size_t num_options, tp_jit_result *out) {
  if (!out) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_jit_link: out is NULL");
  memset(out, 0, sizeof *out);
  tp_status st = check_arguments(inputs, num_inputs, arch, options, num_options);
  if (st != TP_OK || (st = load()) != TP_OK) return st;

  char arch_option[64];
  if ((size_t)snprintf(arch_option, sizeof arch_option, "-arch=%s", arch) >= sizeof arch_option)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_jit_link: arch '%.32s...' is too long", arch);
  /* -Xptxas=-v: registers, stack frame and spills, for link_log.h.
   * -no-cache: nvJitLink otherwise answers a repeated link from its own
   * in-process cache with an empty info log, and the report would be lost
   * (seen with CUDA 13.0 on the H100 machine); kernel_cache.h caches. */
  static const char *const fixed[] = {"-lto", NULL, "-Xptxas=-v", "-no-cache"};
  const size_t num_fixed = sizeof fixed / sizeof fixed[0];
  const char **all = malloc((num_fixed + num_options) * sizeof *all);
  if (!all) return tp_error_set(TP_ERR_OUT_OF_MEMORY, "tp_jit_link: out of memory");
  memcpy(all, fixed, sizeof fixed);
  all[1] = arch_option;
  for (size_t i = 0; i < num_options; i++) all[num_fixed + i] = options[i];

  nvJitLinkHandle h = NULL;
  pthread_mutex_lock(&link_lock);
  nvJitLinkResult r = jl.Create(&h, (uint32_t)(num_fixed + num_options), all);
  free(all);
  const char *step = "nvJitLinkCreate";
  for (size_t i = 0; r == NVJITLINK_SUCCESS && i < num_inputs; i++) {
    r = jl.AddData(h, NVJITLINK_INPUT_ANY, inputs[i].data, inputs[i].size, inputs[i].name);
    step = "nvJitLinkAddData";
  }
  if (r == NVJITLINK_SUCCESS) {
    r = jl.Complete(h);
    step = "nvJitLinkComplete";
  }
  if (r == NVJITLINK_SUCCESS) {
    r = jl.GetLinkedCubinSize(h, &out->cubin_size);
    step = "nvJitLinkGetLinkedCubinSize";
  }
  if (r == NVJITLINK_SUCCESS) {
    out->cubin = malloc(out->cubin_size ? out->cubin_size : 1);
    if (out->cubin) {
      r = jl.GetLinkedCubin(h, out->cubin);
      step = "nvJitLinkGetLinkedCubin";
    }
  }
  out->info_log = read_log(h, jl.GetInfoLogSize, jl.GetInfoLog);
  out->error_log = read_log(h, jl.GetErrorLogSize, jl.GetErrorLog);
  if (h) jl.Destroy(&h);
  pthread_mutex_unlock(&link_lock);

  if (r == NVJITLINK_SUCCESS && (!out->cubin || !out->info_log || !out->error_log))
    st = tp_error_set(TP_ERR_OUT_OF_MEMORY, "tp_jit_link: out of memory for the cubin or logs");
  else if (r != NVJITLINK_SUCCESS)
    st = link_failed(step, r, out);
  if (st != TP_OK) {
    free(out->cubin);
    out->cubin = NULL;
    out->cubin_size = 0;
  }
  return st;
}

#else /* built without the CUDA toolkit */

static tp_status no_toolkit(void) {
  return tp_error_set(TP_ERR_UNSUPPORTED,
                      "nvJitLink: this tilepipe was built without the CUDA toolkit "
                      "(" TP_NO_CUDA_REASON "), so it cannot link device code");
}

tp_status tp_jit_link(const tp_jit_input *inputs, size_t num_inputs, const char *arch,
                      const char *const *options, size_t num_options, tp_jit_result *out) {
  if (out) memset(out, 0, sizeof *out);
  return no_toolkit();
}

tp_status tp_jit_version(unsigned *major, unsigned *minor) { return no_toolkit(); }

unsigned tp_jit_abi_major(void) { return 0; }

#endif
