/* core/device.c: the public device API (tilepipe/device.h) over the core's
 * dlopen'ed driver table (core/backend/cuda/driver.h).
 *
 * Every entry point checks its arguments, then calls device_ready(), which
 * yields the driver table with a context current on this thread: the
 * caller's own, on whichever device, else the default device's primary
 * context (driver.h), or TP_ERR_NO_DEVICE with the driver layer's reason.
 * tp_device_select names the device instead. Built without the CUDA
 * toolkit, device_ready() always fails, so every entry point still
 * validates its arguments and then says why there is no device. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend/cuda/driver.h"
#include "core/error.h"
#include "tilepipe/device.h"

#if TP_HAVE_CUDA

struct tp_device_timer {
  CUevent event[2]; /* indexed by tp_timer_mark */
};

static tp_status device_ready(const tp_cuda_driver **cu, tp_cuda_device *dev) {
  tp_cuda_device scratch;
  tp_status st = tp_cuda_device_get(dev ? dev : &scratch);
  if (st != TP_OK) return st;
  return tp_cuda_driver_get(cu);
}

static CUdeviceptr dptr(const void *p) { return (CUdeviceptr)(uintptr_t)p; }

#else

struct tp_device_timer {
  int unused;
};

typedef struct tp_cuda_driver tp_cuda_driver;

static tp_status device_ready(const tp_cuda_driver **cu, tp_cuda_device *dev) {
  tp_cuda_device scratch;
  *cu = NULL;
  return tp_cuda_device_get(dev ? dev : &scratch); /* fails, saying why */
}

#endif

tp_status tp_device_info(tp_device_props *props) {
  if (props == NULL) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_device_info: props is NULL");
  const tp_cuda_driver *cu;
  tp_cuda_device dev;
  tp_status st = device_ready(&cu, &dev);
  if (st != TP_OK) return st;
#if TP_HAVE_CUDA
  size_t total = 0;
  st = tp_cuda_check(cu->DeviceTotalMem(&total, (CUdevice)dev.cu_device), "cuDeviceTotalMem");
  if (st != TP_OK) return st;
  memset(props, 0, sizeof *props);
  memcpy(props->name, dev.name, sizeof props->name);
  props->name[sizeof props->name - 1] = '\0';
  props->ordinal = dev.ordinal;
  props->sm_count = dev.sm_count;
  props->cc_major = dev.cc_major;
  props->cc_minor = dev.cc_minor;
  props->driver_version = dev.driver_version;
  props->total_memory = total;
  props->l2_bytes = dev.l2_bytes > 0 ? (size_t)dev.l2_bytes : 0;
#endif
  return st;
}

tp_status tp_device_count(int *count) {
  if (count == NULL) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_device_count: count is NULL");
  return tp_cuda_device_count(count);
}

tp_status tp_device_select(int ordinal) {
  if (ordinal < 0)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_device_select: ordinal %d is negative",
                        ordinal);
  tp_status st = tp_cuda_device_select(ordinal, NULL);
  return st == TP_OK ? TP_OK : tp_error_wrap(st, "tp_device_select(%d)", ordinal);
}

tp_status tp_device_alloc(void **ptr, size_t size) {
  if (ptr == NULL) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_device_alloc: ptr is NULL");
  *ptr = NULL;
  if (size == 0) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_device_alloc: size is 0");
  const tp_cuda_driver *cu;
  tp_status st = device_ready(&cu, NULL);
  if (st != TP_OK) return st;
#if TP_HAVE_CUDA
  CUdeviceptr p = 0;
  CUresult r = cu->MemAlloc(&p, size);
  if (r == CUDA_ERROR_OUT_OF_MEMORY)
    return tp_error_set(TP_ERR_OUT_OF_MEMORY, "tp_device_alloc: out of device memory (%zu bytes)",
                        size);
  if ((st = tp_cuda_check(r, "tp_device_alloc: cuMemAlloc")) != TP_OK) return st;
  *ptr = (void *)(uintptr_t)p;
#endif
  return st;
}

tp_status tp_device_free(void *ptr) {
  if (ptr == NULL) return TP_OK;
  const tp_cuda_driver *cu;
  tp_status st = device_ready(&cu, NULL);
  if (st != TP_OK) return st;
#if TP_HAVE_CUDA
  st = tp_cuda_check(cu->MemFree(dptr(ptr)), "tp_device_free: cuMemFree");
#endif
  return st;
}

/* What the copies check before touching the device. */
static tp_status check_pointers(const char *what, const void *dst, const void *src) {
  if (dst == NULL) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "%s: the destination is NULL", what);
  if (src == NULL) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "%s: the source is NULL", what);
  return TP_OK;
}

tp_status tp_device_copy_to(void *dst_dev, const void *src_host, size_t size) {
  tp_status st = check_pointers("tp_device_copy_to", dst_dev, src_host);
  const tp_cuda_driver *cu;
  if (st == TP_OK) st = device_ready(&cu, NULL);
  if (st != TP_OK || size == 0) return st;
#if TP_HAVE_CUDA
  st = tp_cuda_check(cu->MemcpyHtoD(dptr(dst_dev), src_host, size),
                     "tp_device_copy_to: cuMemcpyHtoD");
#endif
  return st;
}

tp_status tp_device_copy_from(void *dst_host, const void *src_dev, size_t size) {
  tp_status st = check_pointers("tp_device_copy_from", dst_host, src_dev);
  const tp_cuda_driver *cu;
  if (st == TP_OK) st = device_ready(&cu, NULL);
  if (st != TP_OK || size == 0) return st;
#if TP_HAVE_CUDA
  st = tp_cuda_check(cu->MemcpyDtoH(dst_host, dptr(src_dev), size),
                     "tp_device_copy_from: cuMemcpyDtoH");
#endif
  return st;
}

tp_status tp_device_copy_within(void *dst_dev, const void *src_dev, size_t size, void *stream) {
  tp_status st = check_pointers("tp_device_copy_within", dst_dev, src_dev);
  const uintptr_t dst = (uintptr_t)dst_dev, src = (uintptr_t)src_dev;
  if (st == TP_OK && (dst > src ? dst - src : src - dst) < size)
    st = tp_error_set(TP_ERR_INVALID_ARGUMENT,
                      "tp_device_copy_within: the %zu bytes at the source and at the "
                      "destination overlap",
                      size);
  const tp_cuda_driver *cu;
  if (st == TP_OK) st = device_ready(&cu, NULL);
  if (st != TP_OK || size == 0) return st;
#if TP_HAVE_CUDA
  st = tp_cuda_check(cu->MemcpyDtoDAsync(dptr(dst_dev), dptr(src_dev), size, (CUstream)stream),
                     "tp_device_copy_within: cuMemcpyDtoDAsync");
#else
  (void)stream;
#endif
  return st;
}

tp_status tp_device_memset(void *dst_dev, int byte, size_t size) {
  if (dst_dev == NULL)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_device_memset: the destination is NULL");
  if (byte < 0 || byte > 255)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_device_memset: byte %d is not in 0..255",
                        byte);
  const tp_cuda_driver *cu;
  tp_status st = device_ready(&cu, NULL);
  if (st != TP_OK || size == 0) return st;
#if TP_HAVE_CUDA
  /* cuMemsetD8 is asynchronous for device memory: wait, as documented. */
  st = tp_cuda_check(cu->MemsetD8(dptr(dst_dev), (unsigned char)byte, size),
                     "tp_device_memset: cuMemsetD8");
  if (st == TP_OK) st = tp_cuda_check(cu->CtxSynchronize(), "tp_device_memset: cuCtxSynchronize");
#endif
  return st;
}

tp_status tp_device_synchronize(void *stream) {
  const tp_cuda_driver *cu;
  tp_status st = device_ready(&cu, NULL);
  if (st != TP_OK) return st;
#if TP_HAVE_CUDA
  st = stream == NULL
           ? tp_cuda_check(cu->CtxSynchronize(), "tp_device_synchronize: cuCtxSynchronize")
           : tp_cuda_check(cu->StreamSynchronize((CUstream)stream),
                           "tp_device_synchronize: cuStreamSynchronize");
#endif
  return st;
}

tp_status tp_device_timer_create(tp_device_timer **timer) {
  if (timer == NULL)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_device_timer_create: timer is NULL");
  *timer = NULL;
  const tp_cuda_driver *cu;
  tp_status st = device_ready(&cu, NULL);
  if (st != TP_OK) return st;
  tp_device_timer *t = calloc(1, sizeof *t);
  if (t == NULL) return tp_error_set(TP_ERR_OUT_OF_MEMORY, "tp_device_timer_create: out of memory");
#if TP_HAVE_CUDA
  for (int i = 0; i < 2 && st == TP_OK; i++)
    st = tp_cuda_check(cu->EventCreate(&t->event[i], CU_EVENT_DEFAULT),
                       "tp_device_timer_create: cuEventCreate");
#endif
  if (st != TP_OK) {
    tp_device_timer_destroy(t);
    return st;
  }
  *timer = t;
  return TP_OK;
}

tp_status tp_device_timer_record(tp_device_timer *timer, tp_timer_mark mark, void *stream) {
  if (timer == NULL)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_device_timer_record: timer is NULL");
  if (mark != TP_TIMER_START && mark != TP_TIMER_STOP)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "tp_device_timer_record: mark %d is neither TP_TIMER_START nor "
                        "TP_TIMER_STOP",
                        (int)mark);
  const tp_cuda_driver *cu;
  tp_status st = device_ready(&cu, NULL);
  if (st != TP_OK) return st;
#if TP_HAVE_CUDA
  st = tp_cuda_check(cu->EventRecord(timer->event[mark], (CUstream)stream),
                     "tp_device_timer_record: cuEventRecord");
#endif
  return st;
}

tp_status tp_device_timer_elapsed_ms(tp_device_timer *timer, float *ms) {
  if (timer == NULL || ms == NULL)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_device_timer_elapsed_ms: %s is NULL",
                        timer == NULL ? "timer" : "ms");
  *ms = 0.0f;
  const tp_cuda_driver *cu;
  tp_status st = device_ready(&cu, NULL);
  if (st != TP_OK) return st;
#if TP_HAVE_CUDA
  st = tp_cuda_check(cu->EventSynchronize(timer->event[TP_TIMER_STOP]),
                     "tp_device_timer_elapsed_ms: cuEventSynchronize");
  if (st == TP_OK)
    st = tp_cuda_check(cu->EventElapsedTime(ms, timer->event[TP_TIMER_START],
                                            timer->event[TP_TIMER_STOP]),
                       "tp_device_timer_elapsed_ms: cuEventElapsedTime (was each mark recorded?)");
#endif
  return st;
}

void tp_device_timer_destroy(tp_device_timer *timer) {
  if (timer == NULL) return;
#if TP_HAVE_CUDA
  const tp_cuda_driver *cu;
  if (tp_cuda_driver_get(&cu) == TP_OK)
    for (int i = 0; i < 2; i++)
      if (timer->event[i]) cu->EventDestroy(timer->event[i]);
#endif
  free(timer);
}
