/* tools/seeded_device.h: the benchmark's random inputs made on the device
 * (tools/seeded_values.h), a few milliseconds for gigabytes where the host
 * takes minutes, and their dequantization to bf16.
 *
 * The kernels (tools/device/seeded_fill.cu) are built by nvcc into
 * a cubin for sm_90a that the tool carries as data. It is loaded through
 * the CUDA driver, which this file opens itself (libcuda.so.1 and
 * cuGetProcAddress, like the core's backend; the tool links neither), into
 * the context current on the calling thread: open it after a tilepipe
 * device call (tp_device_info), which makes the device's primary context
 * current, and use it on that thread. Fills are queued on the default
 * stream, ordered with tilepipe's copies and plan runs there. Built without
 * the CUDA toolkit, opening fails with TP_ERR_UNSUPPORTED. */
#ifndef TP_TOOLS_SEEDED_DEVICE_H
#define TP_TOOLS_SEEDED_DEVICE_H

#include <stddef.h>
#include <stdint.h>
#include "tilepipe/problem.h"
#include "tilepipe/status.h"
#include "tilepipe/tensor.h"
#include "tools/seeded_values.h"

typedef struct tp_seeded_device tp_seeded_device;

/* Opens the driver and loads the kernel. TP_ERR_NO_DEVICE without a
 * driver, TP_ERR_CUDA when the driver refuses the module, reason in err. */
tp_status tp_seeded_device_open(tp_seeded_device **gen, char *err, size_t errlen);

void tp_seeded_device_close(tp_seeded_device *gen);

/* Queues the fill of every element of t (device memory; rank 1, or rank 2
 * strided or 128x4 tiled) with `values` from `key`: the bytes the
 * reference library's tp_ref_tensor_fill (tilepipe/reference.h) writes on
 * the host.
 * Bytes outside the elements are not touched. TP_ERR_INVALID_ARGUMENT for
 * a tensor the kernel cannot address (no data, another rank, packed fp4
 * with an odd row stride or a column stride other than 1, a tiled tensor
 * of a dtype other than a one-byte one), TP_ERR_CUDA when the launch
 * fails; reason in err. */
tp_status tp_seeded_device_fill(const tp_seeded_device *gen, const tp_tensor *t,
                                tp_seeded_values values, uint64_t key, char *err, size_t errlen);

/* Queues the dequantization of operand x (device memory, rank 2 strided,
 * as a problem's A or B) with its scale tensor (data NULL or dtype
 * TP_DTYPE_NONE: none) under map (tilepipe/problem.h) into out: bf16
 * [rows, cols], rows cols elements apart. TP_ERR_INVALID_ARGUMENT for a
 * tensor the kernel cannot address (see tp_seeded_device_fill; a scale
 * map with rows < 1), TP_ERR_CUDA when the launch fails; reason in err. */
tp_status tp_seeded_device_dequantize(const tp_seeded_device *gen, const tp_tensor *x,
                                      const tp_tensor *scale, tp_scale_map map, void *out,
                                      char *err, size_t errlen);

#endif
