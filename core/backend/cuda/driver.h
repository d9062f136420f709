/* core/backend/cuda/driver.h: the CUDA driver, reached through dlopen, and
 * the GPUs it drives.
 *
 * Nothing links against libcuda: tp_cuda_driver_get() opens libcuda.so.1 once
 * per process, resolves every function below through cuGetProcAddress, each
 * at the ABI version of the prototype we call, and runs cuInit. A
 * machine without a driver or a GPU gets TP_ERR_NO_DEVICE and a message saying
 * which.
 *
 * Every GPU of the host may be used, each from any thread. The device a call
 * works on is that of the calling thread's current CUDA context, or, with
 * none current, the default device ($TILEPIPE_DEVICE, default 0), whose
 * primary context is then made current (device_choice.h). A device is opened
 * on its first use, once per process: its figures read, compute capability
 * 9.0 required (we build only sm_90a code), its primary context retained for
 * the life of the process; a failure is remembered, per device, like the
 * driver's. Internal to libtilepipe.
 *
 * Invariant: once tp_cuda_driver_get() has returned TP_OK, every pointer of
 * the table is non-NULL and stays valid for the life of the process (the
 * library is never closed: the driver tears its state down at exit); a
 * device's figures and primary context, once opened, never change. */
#ifndef TP_CORE_BACKEND_CUDA_DRIVER_H
#define TP_CORE_BACKEND_CUDA_DRIVER_H

#include "config.h"
#include "tilepipe/status.h"

/* What the backend needs to know about a device; plain C, so that code
 * built without CUDA can ask (and be told TP_ERR_NO_DEVICE). */
typedef struct tp_cuda_device {
  int ordinal;              /* 0 .. count - 1 */
  int cu_device;            /* its CUdevice handle (an int in cuda.h) */
  int sm_count;
  int cc_major, cc_minor;
  int max_smem_optin;       /* bytes of dynamic shared memory a block may opt into */
  int l2_bytes;
  int driver_version;       /* e.g. 13000 for CUDA 13.0 */
  char name[256];
} tp_cuda_device;

/* The number of CUDA devices the driver sees, Hopper or not.
 * TP_ERR_NO_DEVICE without a driver. */
tp_status tp_cuda_device_count(int *count);

/* Fills *out with the device the calling thread works on: its current
 * context's device, or the default device, whose primary context it then
 * makes current. TP_ERR_NO_DEVICE: no driver, no GPU, or not compute
 * capability 9.0; TP_ERR_INVALID_ARGUMENT: a bad $TILEPIPE_DEVICE (only
 * when the default is needed). */
tp_status tp_cuda_device_get(tp_cuda_device *out);

/* Makes device ordinal's primary context current on the calling thread,
 * whatever was current, and fills *out (may be NULL) with the device.
 * TP_ERR_INVALID_ARGUMENT for an ordinal the machine does not have;
 * otherwise as tp_cuda_device_get. */
tp_status tp_cuda_device_select(int ordinal, tp_cuda_device *out);

/* Before work that belongs to device ordinal (a plan's run, a kernel's
 * launch) on the calling thread: TP_OK when the current context is on that
 * device, or when none is and the device's primary context has been made
 * current; TP_ERR_INVALID_ARGUMENT, naming what and both devices
 * (tp_cuda_device_for), when the current context is on another device. */
tp_status tp_cuda_device_enter(int ordinal, const char *what);

#if TP_HAVE_CUDA
#include <cuda.h>
#include <cudaTypedefs.h>

/* X(name, version): one row per driver function, named without its "cu"
 * prefix, with the ABI version whose prototype we call. The type is
 * cudaTypedefs.h's PFN_cu<name>_v<version> and the same version is what
 * cuGetProcAddress is asked for, so the pointer always matches its type.
 * Asking for CUDA_VERSION instead is wrong: CUDA 13.0 added
 * cuCtxSynchronize_v13000(CUcontext) while cuda.h still declares the
 * argument-less one, and calling one through the other crashes. The versions
 * are those cuda.h 13.0 maps the plain names to (cuMemAlloc: _v2 = 3020). */
#define TP_CUDA_DRIVER_FUNCTIONS(X)                                                  \
  X(Init, 2000) X(DriverGetVersion, 2020) X(GetErrorName, 6000)                      \
  X(GetErrorString, 6000) X(DeviceGet, 2000) X(DeviceGetCount, 2000)                 \
  X(DeviceGetAttribute, 2000) X(DeviceGetName, 2000) X(DeviceTotalMem, 3020)         \
  X(DevicePrimaryCtxRetain, 7000) X(DevicePrimaryCtxRelease, 11000)                  \
  X(CtxGetCurrent, 4000) X(CtxSetCurrent, 4000) X(CtxGetDevice, 2000)                \
  X(CtxPushCurrent, 4000) X(CtxPopCurrent, 4000) X(CtxSynchronize, 2000)             \
  X(LibraryLoadData, 12000) X(LibraryUnload, 12000) X(LibraryGetKernel, 12000)       \
  X(KernelSetAttribute, 12000) X(KernelGetAttribute, 12000)                          \
  X(LaunchKernelEx, 11060) X(OccupancyMaxActiveClusters, 11070) X(KernelGetFunction, 12000)                      \
  X(TensorMapEncodeTiled, 12000) X(MemAlloc, 3020) X(MemFree, 3020)                  \
  X(MemcpyHtoD, 3020) X(MemcpyDtoH, 3020) X(MemcpyDtoDAsync, 3020) X(MemsetD8, 3020) \
  X(StreamCreate, 2000) X(StreamDestroy, 4000) X(StreamSynchronize, 2000) X(StreamQuery, 2000)            \
  X(EventCreate, 2000) X(EventRecord, 2000) X(EventSynchronize, 2000)                \
  X(EventElapsedTime, 12080) X(EventDestroy, 4000)

#define TP_CUDA_DRIVER_FIELD(name, version) PFN_cu##name##_v##version name;
typedef struct tp_cuda_driver {
  TP_CUDA_DRIVER_FUNCTIONS(TP_CUDA_DRIVER_FIELD)
} tp_cuda_driver;
#undef TP_CUDA_DRIVER_FIELD

/* The driver table, loaded and initialised on first use (thread-safe).
 * TP_ERR_NO_DEVICE with the reason when libcuda.so.1 is missing, too old, or
 * cuInit fails (no GPU). */
tp_status tp_cuda_driver_get(const tp_cuda_driver **out);

/* TP_OK for CUDA_SUCCESS; otherwise sets
 * "<what>: CUDA_ERROR_NAME: description" and returns TP_ERR_CUDA. */
tp_status tp_cuda_check(CUresult result, const char *what);
#endif

#endif
