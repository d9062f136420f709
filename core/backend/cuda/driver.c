/* core/backend/cuda/driver.c: opens libcuda.so.1, fills the function table,
 * opens the devices. See driver.h.
 *
 * Loading the driver and counting the devices run once under pthread_once;
 * each device is opened once under its own lock, so that threads opening
 * two GPUs at once do not wait for each other's context creation. Each
 * step keeps its outcome in a tp_once_result (once.h). */
#include "config.h"

#include "core/backend/cuda/device_choice.h"
#include "core/backend/cuda/driver.h"
#include "core/backend/cuda/once.h"
#include "core/error.h"

#if TP_HAVE_CUDA
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
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

/* ------------------------------------------------------------ the devices */

/* One device: opened under its lock on first use; `opened` is set (release)
 * once result, device and primary are final, so that a reader that sees it
 * (acquire) reads them without the lock. */
typedef struct device_slot {
  pthread_mutex_t lock;
  atomic_int opened;
  tp_once_result result;
  tp_cuda_device device;
  CUcontext primary;
} device_slot;

/* The machine's devices, counted once; the default device's verdict is
 * kept apart, since only calls with no current context need it. */
static struct {
  int count;
  device_slot *slots; /* count of them, never freed */
  int default_ordinal;
  tp_once_result default_result;
} devices;
static tp_once_result devices_result;
static pthread_once_t devices_once = PTHREAD_ONCE_INIT;

static tp_status count_devices(void) {
  const tp_cuda_driver *cu;
  tp_status st = tp_cuda_driver_get(&cu);
  int count = 0;
  if (st == TP_OK) st = tp_cuda_check(cu->DeviceGetCount(&count), "cuDeviceGetCount");
  if (st != TP_OK) return st;
  if (count > 0 && !(devices.slots = calloc((size_t)count, sizeof *devices.slots)))
    return tp_error_set(TP_ERR_OUT_OF_MEMORY, "CUDA driver: out of host memory");
  for (int i = 0; i < count; i++) {
    device_slot *slot = &devices.slots[i];
    CUdevice dev;
    if (pthread_mutex_init(&slot->lock, NULL) != 0)
      return tp_error_set(TP_ERR_INTERNAL, "CUDA driver: pthread_mutex_init failed");
    atomic_init(&slot->opened, 0);
    if ((st = tp_cuda_check(cu->DeviceGet(&dev, i), "cuDeviceGet")) != TP_OK) return st;
    slot->device.ordinal = i;
    slot->device.cu_device = dev;
  }
  devices.count = count;
  tp_once_record(&devices.default_result,
                 tp_cuda_default_ordinal(getenv("TILEPIPE_DEVICE"), count,
                                         &devices.default_ordinal));
  return TP_OK;
}

static void count_devices_once(void) { tp_once_record(&devices_result, count_devices()); }

static tp_status devices_get(void) {
  pthread_once(&devices_once, count_devices_once);
  return tp_once_replay(&devices_result);
}

/* Reads the figures of slot's device, checks it is a Hopper GPU, retains
 * its primary context. */
static tp_status open_device(device_slot *slot) {
  tp_cuda_device *device = &slot->device;
  const CUdevice dev = (CUdevice)device->cu_device;
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
  tp_status st;
  for (size_t i = 0; i < sizeof attributes / sizeof attributes[0]; i++) {
    int value = 0;
    st = tp_cuda_check(driver.DeviceGetAttribute(&value, attributes[i].attribute, dev),
                       "cuDeviceGetAttribute");
    if (st != TP_OK) return st;
    memcpy((char *)device + attributes[i].offset, &value, sizeof value);
  }
  if ((st = tp_cuda_check(driver.DeviceGetName(device->name, (int)sizeof device->name, dev),
                          "cuDeviceGetName")) != TP_OK)
    return st;
  driver.DriverGetVersion(&device->driver_version);
  /* sm_90a code runs on compute capability 9.0 exactly: not 8.x, not 10.x. */
  if (device->cc_major != 9 || device->cc_minor != 0)
    return tp_error_set(TP_ERR_NO_DEVICE,
                        "CUDA device %d (%s) has compute capability %d.%d; tilepipe's kernels are "
                        "built for sm_90a and need a Hopper GPU (9.0)",
                        device->ordinal, device->name, device->cc_major, device->cc_minor);
  return tp_cuda_check(driver.DevicePrimaryCtxRetain(&slot->primary, dev),
                       "cuDevicePrimaryCtxRetain");
}

/* Device ordinal, opened (on the first call for it, under its lock). */
static tp_status device_at(int ordinal, device_slot **out) {
  tp_status st = devices_get();
  if (st != TP_OK) return st;
  if (ordinal < 0 || ordinal >= devices.count)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "CUDA device %d does not exist (this machine has %d: 0..%d)", ordinal,
                        devices.count, devices.count - 1);
  device_slot *slot = &devices.slots[ordinal];
  if (!atomic_load_explicit(&slot->opened, memory_order_acquire)) {
    pthread_mutex_lock(&slot->lock);
    if (!atomic_load_explicit(&slot->opened, memory_order_relaxed)) {
      tp_once_record(&slot->result, open_device(slot));
      atomic_store_explicit(&slot->opened, 1, memory_order_release);
    }
    pthread_mutex_unlock(&slot->lock);
  }
  *out = slot;
  return tp_once_replay(&slot->result);
}

/* The ordinal of the device of the calling thread's current context, or
 * TP_CUDA_NO_CONTEXT. */
static tp_status current_ordinal(int *ordinal) {
  *ordinal = TP_CUDA_NO_CONTEXT;
  CUcontext current = NULL;
  CUdevice on = 0;
  tp_status st = devices_get();
  if (st == TP_OK) st = tp_cuda_check(driver.CtxGetCurrent(&current), "cuCtxGetCurrent");
  if (st != TP_OK || current == NULL) return st;
  if ((st = tp_cuda_check(driver.CtxGetDevice(&on), "cuCtxGetDevice")) != TP_OK) return st;
  for (int i = 0; i < devices.count; i++)
    if (devices.slots[i].device.cu_device == (int)on) {
      *ordinal = i;
      return TP_OK;
    }
  return tp_error_set(TP_ERR_CUDA, "the current CUDA context is on a device (CUdevice %d) that "
                      "the driver did not count", (int)on);
}

static tp_status make_current(const device_slot *slot) {
  return tp_cuda_check(driver.CtxSetCurrent(slot->primary), "cuCtxSetCurrent");
}

tp_status tp_cuda_device_count(int *count) {
  if (!count) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_cuda_device_count: count is NULL");
  *count = 0;
  tp_status st = devices_get();
  if (st == TP_OK) *count = devices.count;
  return st;
}

tp_status tp_cuda_device_get(tp_cuda_device *out) {
  if (!out) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_cuda_device_get: out is NULL");
  int ordinal;
  device_slot *slot;
  tp_status st = current_ordinal(&ordinal);
  if (st != TP_OK) return st;
  if (ordinal != TP_CUDA_NO_CONTEXT) {
    /* The caller's own context is fine: we work on its device. */
    st = device_at(ordinal, &slot);
  } else if ((st = tp_once_replay(&devices.default_result)) == TP_OK &&
             (st = device_at(devices.default_ordinal, &slot)) == TP_OK) {
    st = make_current(slot);
  }
  if (st == TP_OK) *out = slot->device;
  return st;
}

tp_status tp_cuda_device_select(int ordinal, tp_cuda_device *out) {
  device_slot *slot;
  tp_status st = device_at(ordinal, &slot);
  if (st == TP_OK) st = make_current(slot);
  if (st == TP_OK && out) *out = slot->device;
  return st;
}

tp_status tp_cuda_device_enter(int ordinal, const char *what) {
  int current;
  device_slot *slot;
  tp_status st = current_ordinal(&current);
  if (st == TP_OK) st = tp_cuda_device_for(what, ordinal, current);
  if (st != TP_OK || current != TP_CUDA_NO_CONTEXT) return st;
  st = device_at(ordinal, &slot);
  return st == TP_OK ? make_current(slot) : st;
}

#else /* built without the CUDA toolkit */

static tp_status no_toolkit(void) {
  return tp_error_set(TP_ERR_NO_DEVICE,
                      "CUDA backend: this tilepipe was built without the CUDA toolkit "
                      "(" TP_NO_CUDA_REASON ")");
}

tp_status tp_cuda_device_count(int *count) {
  if (!count) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_cuda_device_count: count is NULL");
  *count = 0;
  return no_toolkit();
}

tp_status tp_cuda_device_get(tp_cuda_device *out) {
  (void)out;
  return no_toolkit();
}

tp_status tp_cuda_device_select(int ordinal, tp_cuda_device *out) {
  (void)ordinal;
  (void)out;
  return no_toolkit();
}

tp_status tp_cuda_device_enter(int ordinal, const char *what) {
  (void)ordinal;
  (void)what;
  return no_toolkit();
}

#endif
