/* tilepipe/device.h: the GPUs tilepipe uses, for applications that do not
 * link the CUDA runtime.
 *
 * A CUDA plan reads and writes device memory. These calls give an
 * application (and the tilepipe tool and tests) what it needs around a plan
 * through the same dlopen'ed driver the backend uses: the device's
 * properties, device buffers, copies, a memset, synchronization, and a
 * timer over CUDA events.
 *
 * Which device: the one of the calling thread's current CUDA context, as
 * for plans (tilepipe/plan.h). A thread with no current context works on
 * the default device ($TILEPIPE_DEVICE, default 0), whose primary context
 * the first call makes current on it. tp_device_select makes another
 * device's primary context current, for this thread's later calls and
 * plans; an application on the CUDA runtime may use cudaSetDevice instead
 * (its current device's primary context is the same one). Every device
 * tilepipe works on must be a Hopper GPU. Device memory belongs to the
 * device it was allocated on; pass it only to plans and calls of that
 * device.
 *
 * Every call validates its arguments first (TP_ERR_INVALID_ARGUMENT), then
 * returns TP_ERR_NO_DEVICE, with a message saying why, when there is no
 * driver, no GPU, no Hopper GPU, or when tilepipe was built without the CUDA
 * toolkit. Driver failures are TP_ERR_CUDA with the driver's error name.
 *
 * Streams are CUstream handles passed as void *; NULL is the context's
 * default (legacy) stream. Copies to and from the host and memset are
 * synchronous: they return when the data has arrived. A copy within the
 * device is queued on a stream, like a plan's run. */
#ifndef TILEPIPE_DEVICE_H
#define TILEPIPE_DEVICE_H

#include <stddef.h>
#include "tilepipe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tp_device_props {
  char name[256];        /* "NVIDIA H100 80GB HBM3" */
  int ordinal;           /* the device's ordinal, 0 .. tp_device_count() - 1 */
  int sm_count;
  int cc_major, cc_minor; /* compute capability: 9.0 */
  int driver_version;    /* CUDA version the driver supports: 13000 = 13.0 */
  size_t total_memory;   /* bytes of device memory */
  size_t l2_bytes;       /* bytes of L2 cache */
} tp_device_props;

/* Fills *props for the device the calling thread works on. */
tp_status tp_device_info(tp_device_props *props);

/* The number of CUDA devices on this machine (Hopper or not), into *count;
 * 0 on failure. TP_ERR_NO_DEVICE without a driver. */
tp_status tp_device_count(int *count);

/* Makes device `ordinal`'s primary context current on the calling thread,
 * in place of whatever context was: its later tp_device_* calls, and the
 * plans it creates, work on that device. TP_ERR_INVALID_ARGUMENT for an
 * ordinal outside 0 .. count - 1; TP_ERR_NO_DEVICE when that device is not
 * a Hopper GPU (or there is no driver). */
tp_status tp_device_select(int ordinal);

/* Allocates `size` (> 0) bytes of device memory, 256-byte aligned (so every
 * tensor starting there meets TMA's 16-byte rule). *ptr is NULL on failure. */
tp_status tp_device_alloc(void **ptr, size_t size);

/* Frees memory from tp_device_alloc. NULL is a no-op (TP_OK). */
tp_status tp_device_free(void *ptr);

/* Copies `size` bytes host -> device, or device -> host. Device pointers
 * must lie in memory from tp_device_alloc, with `size` bytes behind them.
 * size 0 copies nothing. */
tp_status tp_device_copy_to(void *dst_dev, const void *src_host, size_t size);
tp_status tp_device_copy_from(void *dst_host, const void *src_dev, size_t size);

/* Queues a copy of `size` bytes device -> device on `stream` and returns:
 * ordered with the stream's other work (a plan's run, a timer's marks), as
 * a kernel is. Both pointers lie in memory from tp_device_alloc, with `size`
 * bytes behind each; the two ranges must not overlap. size 0 queues
 * nothing. */
tp_status tp_device_copy_within(void *dst_dev, const void *src_dev, size_t size, void *stream);

/* Sets `size` bytes at dst_dev to `byte` (0..255). */
tp_status tp_device_memset(void *dst_dev, int byte, size_t size);

/* Waits for the work queued on `stream`; NULL waits for the whole device
 * (every stream of the context). */
tp_status tp_device_synchronize(void *stream);

/* A timer: two CUDA events. Record START and STOP around the work on a
 * stream; elapsed_ms waits for STOP, then gives the milliseconds between
 * them (TP_ERR_CUDA when either was never recorded). */
typedef struct tp_device_timer tp_device_timer;

typedef enum tp_timer_mark {
  TP_TIMER_START = 0,
  TP_TIMER_STOP = 1
} tp_timer_mark;

tp_status tp_device_timer_create(tp_device_timer **timer);
tp_status tp_device_timer_record(tp_device_timer *timer, tp_timer_mark mark, void *stream);
tp_status tp_device_timer_elapsed_ms(tp_device_timer *timer, float *ms);
/* NULL is a no-op. */
void tp_device_timer_destroy(tp_device_timer *timer);

#ifdef __cplusplus
}
#endif
#endif
