/* core/backend/cuda/driver.c: opens libcuda.so.1, fills the function table,
 * picks the device. See driver.h.
 *
 * Both once-only steps (loading the driver, opening the device) run under
 * pthread_once and keep their outcome in a tp_once_result (once.h). */
#include "config.h"

#include "core/backend/cuda/driver.h"
#include "core/backend/cuda/once.h"
#include "core/error.h"

#if TP_HAVE_CUDA
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- the driver */

static tp_cuda_driver driver;
static tp_once_result driver_result;
static pthread_once_t driver_once = PTHREAD_ONCE_INIT;

#define TP_CUDA_DRIVER_SYMBOL(name, version) \
  {"cu" #name, version, offsetof(tp_cuda_driver, name)},
static const struct {
  const char *symbol; /* base name, as cuGetProcAddress wants it */
  int version;        /* the ABI of the table's type for it */
  size_t offset;
} driver_symbols[] = {TP_CUDA_DRIVER_FUNCTIONS(TP_CUDA_DRIVER_SYMBOL)};
#undef TP_CUDA_DRIVER_SYMBOL

static void describe(CUresult result, const char **name, const char **text) {
  *name = NULL;
  *text = NULL;
  if (driver.GetErrorName) driver.GetErrorName(result, name);
  if (driver.GetErrorString) driver.GetErrorString(result, text);
  if (!*name) *name = "CUDA_ERROR_UNKNOWN";
  if (!*text) *text = "unknown error";
}

static tp_status load_driver(void) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return tp_error_set(TP_ERR_NO_DEVICE,
                        "CUDA driver: cannot open libcuda.so.1 (%s); is the NVIDIA driver "
                        "installed?",
                        dlerror());
  /* The only symbol taken by name: every other one comes at the ABI version
   * its table entry names, which plain dlsym cannot promise (cuMemAlloc is
   * the CUDA 2.0 ABI, cuMemAlloc_v2 the 3.2 one). */
  PFN_cuGetProcAddress_v12000 get_proc =
      (PFN_cuGetProcAddress_v12000)dlsym(lib, "cuGetProcAddress_v2");
  if (!get_proc)
    return tp_error_set(TP_ERR_NO_DEVICE,
                        "CUDA driver: libcuda.so.1 has no cuGetProcAddress_v2; tilepipe needs a "
                        "driver for CUDA %d.0 or newer",
                        CUDA_VERSION / 1000);
  for (size_t i = 0; i < sizeof driver_symbols / sizeof driver_symbols[0]; i++) {
    void *fn = NULL;
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    const int version = driver_symbols[i].version;
    CUresult r = get_proc(driver_symbols[i].symbol, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT,
                          &found);
    if (r != CUDA_SUCCESS || !fn)
      return tp_error_set(TP_ERR_NO_DEVICE,
                          "CUDA driver: libcuda.so.1 lacks %s at the CUDA %d.%d ABI (%s); "
                          "update the NVIDIA driver",
                          driver_symbols[i].symbol, version / 1000, version % 1000 / 10,
                          found == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT ? "driver too old"
                                                                               : "not found");
    memcpy((char *)&driver + driver_symbols[i].offset, &fn, sizeof fn);
  }
  int version = 0;
  driver.DriverGetVersion(&version);
  /* Cubins from a CUDA N.x link run on any driver of major N or newer. */
  if (version / 1000 < CUDA_VERSION / 1000)
    return tp_error_set(TP_ERR_NO_DEVICE,
                        "CUDA driver: the driver supports CUDA %d.%d, but tilepipe was built with "
                        "CUDA %d.%d and needs a driver for CUDA %d.0 or newer",
                        version / 1000, version % 1000 / 10, CUDA_VERSION / 1000,
                        CUDA_VERSION % 1000 / 10, CUDA_VERSION / 1000);
  CUresult r = driver.Init(0);
  if (r != CUDA_SUCCESS) {
    const char *name, *text;
    describe(r, &name, &text);
    return tp_error_set(TP_ERR_NO_DEVICE, "CUDA driver: cuInit failed: %s: %s", name, text);
  }
  return TP_OK;
}

static void load_driver_once(void) { tp_once_record(&driver_result, load_driver()); }

tp_status tp_cuda_driver_get(const tp_cuda_driver **out) {
  if (!out) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_cuda_driver_get: out is NULL");
  pthread_once(&driver_once, load_driver_once);
  *out = driver_result.status == TP_OK ? &driver : NULL;
  return tp_once_replay(&driver_result);
}

tp_status tp_cuda_check(CUresult result, const char *what) {
  if (result == CUDA_SUCCESS) return TP_OK;
  const char *name, *text;
  describe(result, &name, &text);
  return tp_error_set(TP_ERR_CUDA, "%s: %s: %s", what, name, text);
}

/* ------------------------------------------------------------- the device */

static tp_cuda_device device;
static CUcontext primary_context;
static tp_once_result device_result;
static pthread_once_t device_once = PTHREAD_ONCE_INIT;

static tp_status choose_ordinal(int count, int *ordinal) {
  const char *env = getenv("TILEPIPE_DEVICE");
  *ordinal = 0;
  if (env && *env) {
    char *end;
    errno = 0;
    long v = strtol(env, &end, 10);
    if (errno || *end || v < 0 || v >= count)
      return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                          "TILEPIPE_DEVICE='%s' is not a device ordinal (this machine has %d: "
                          "0..%d)",
                          env, count, count - 1);
    *ordinal = (int)v;
  }
  return TP_OK;
}

static tp_status open_device(void) {
  const tp_cuda_driver *cu;
  tp_status st = tp_cuda_driver_get(&cu);
  if (st != TP_OK) return st;
  int count = 0;
  if ((st = tp_cuda_check(cu->DeviceGetCount(&count), "cuDeviceGetCount")) != TP_OK) return st;
  if (count == 0) return tp_error_set(TP_ERR_NO_DEVICE, "CUDA driver: no CUDA device found");
  if ((st = choose_ordinal(count, &device.ordinal)) != TP_OK) return st;
  CUdevice dev;
  if ((st = tp_cuda_check(cu->DeviceGet(&dev, device.ordinal), "cuDeviceGet")) != TP_OK) return st;
  device.cu_device = dev;
  static const struct {
    CUdevice_attribute attribute;
    size_t offset;
  } attributes[] = {
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, offsetof(tp_cuda_device, sm_count)},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, offsetof(tp_cuda_device, cc_major)},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, offsetof(tp_cuda_device, cc_minor)},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
       offsetof(tp_cuda_device, max_smem_optin)},
      {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, offsetof(tp_cuda_device, l2_bytes)},
  };
  for (size_t i = 0; i < sizeof attributes / sizeof attributes[0]; i++) {
    int value = 0;
    st = tp_cuda_check(cu->DeviceGetAttribute(&value, attributes[i].attribute, dev),
                       "cuDeviceGetAttribute");
    if (st != TP_OK) return st;
    memcpy((char *)&device + attributes[i].offset, &value, sizeof value);
  }
  if ((st = tp_cuda_check(cu->DeviceGetName(device.name, (int)sizeof device.name, dev),
                          "cuDeviceGetName")) != TP_OK)
    return st;
  cu->DriverGetVersion(&device.driver_version);
  /* sm_90a code runs on compute capability 9.0 exactly: not 8.x, not 10.x. */
  if (device.cc_major != 9 || device.cc_minor != 0)
    return tp_error_set(TP_ERR_NO_DEVICE,
                        "CUDA device %d (%s) has compute capability %d.%d; tilepipe's kernels are "
                        "built for sm_90a and need a Hopper GPU (9.0)",
                        device.ordinal, device.name, device.cc_major, device.cc_minor);
  return tp_cuda_check(cu->DevicePrimaryCtxRetain(&primary_context, dev),
                       "cuDevicePrimaryCtxRetain");
}

static void open_device_once(void) { tp_once_record(&device_result, open_device()); }

tp_status tp_cuda_device_get(tp_cuda_device *out) {
  if (!out) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_cuda_device_get: out is NULL");
  pthread_once(&device_once, open_device_once);
  tp_status st = tp_once_replay(&device_result);
  if (st != TP_OK) return st;
  CUcontext current = NULL;
  if ((st = tp_cuda_check(driver.CtxGetCurrent(&current), "cuCtxGetCurrent")) != TP_OK) return st;
  if (!current) {
    st = tp_cuda_check(driver.CtxSetCurrent(primary_context), "cuCtxSetCurrent");
  } else {
    /* The caller's own context is fine, as long as it is on our device:
     * everything we read about the device (SMs, shared memory) is for it. */
    CUdevice on = 0;
    if ((st = tp_cuda_check(driver.CtxGetDevice(&on), "cuCtxGetDevice")) != TP_OK) return st;
    if (on != (CUdevice)device.cu_device)
      st = tp_error_set(TP_ERR_UNSUPPORTED,
                        "the current CUDA context is on device %d, but tilepipe uses device %d "
                        "(set TILEPIPE_DEVICE to change it)",
                        (int)on, device.ordinal);
  }
  if (st == TP_OK) *out = device;
  return st;
}

#else /* built without the CUDA toolkit */

tp_status tp_cuda_device_get(tp_cuda_device *out) {
  (void)out;
  return tp_error_set(TP_ERR_NO_DEVICE,
                      "CUDA backend: this tilepipe was built without the CUDA toolkit "
                      "(" TP_NO_CUDA_REASON ")");
}

#endif
