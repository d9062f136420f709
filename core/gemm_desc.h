/* core/gemm_desc.h: a caller's GEMM descriptor, read by its version.
 *
 * tp_gemm_desc is versioned by its first field, struct_size
 * (tilepipe/gemm.h). Every entry point that takes one reads it through
 * tp_gemm_desc_read into a descriptor of the size this library knows, and
 * works (and hands plugins) only that copy, so neither the core nor a
 * plugin reads past what the caller wrote. Internal to libtilepipe. */
#ifndef TP_CORE_GEMM_DESC_H
#define TP_CORE_GEMM_DESC_H

#include <stddef.h>
#include "tilepipe/gemm.h"
#include "tilepipe/status.h"

/* The first version of tp_gemm_desc ends with its bias. */
#define TP_GEMM_DESC_FIRST_SIZE (offsetof(tp_gemm_desc, bias) + sizeof(tp_tensor))

/* Copies desc up to its struct_size into *copy, every field past it zero
 * (absent), and fields past what this library knows left out; copy's own
 * struct_size is sizeof(tp_gemm_desc). TP_ERR_INVALID_ARGUMENT, the message
 * naming the problem, when desc is NULL or its struct_size is 0 or smaller
 * than TP_GEMM_DESC_FIRST_SIZE. */
tp_status tp_gemm_desc_read(tp_gemm_desc *copy, const tp_gemm_desc *desc);

#endif
