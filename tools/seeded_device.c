/* tools/seeded_device.c: see seeded_device.h.
 *
 * The driver functions come from cuGetProcAddress at the ABI version of
 * the cudaTypedefs.h prototype each pointer is typed with (the core's
 * backend does the same, core/backend/cuda/driver.h says why); libcuda.so.1
 * is already loaded by then (tilepipe opened it), so dlopen only takes a
 * reference. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "tools/seeded_device.h"

/* A tensor the kernel can address, as its arguments; 0 (reason in err)
 * otherwise. */
static int fill_args(const tp_tensor *t, tp_seeded_values values, uint64_t key,
                     tp_seeded_fill_args *f, char *err, size_t errlen) {
  const unsigned bits = tp_dtype_bits(t->dtype);
  const int tiled = t->layout == TP_LAYOUT_SF_128X4;
  *f = (tp_seeded_fill_args){.data = t->data, .key = key, .dtype = (int32_t)t->dtype,
                             .layout = (int32_t)t->layout, .values = values};
  if (t->data == NULL || bits == 0 || (t->rank != 1 && t->rank != 2) || t->shape[0] < 0 ||
      (t->rank == 2 && t->shape[1] < 0) || (t->layout != TP_LAYOUT_STRIDED && !tiled) ||
      (tiled && (t->rank != 2 || bits != 8))) {
    snprintf(err, errlen,
             "seeded fill: cannot fill a %s tensor of rank %d in layout %d (it takes rank 1, or "
             "rank 2 strided or 128x4 tiled of one-byte scales, with data and no negative size)",
             tp_dtype_name(t->dtype), (int)t->rank, (int)t->layout);
    return 0;
  }
  f->rows = t->rank == 1 ? 1 : t->shape[0];
  f->cols = t->rank == 1 ? t->shape[0] : t->shape[1];
  f->row_stride = t->rank == 1 || tiled ? 0 : t->stride[0];
  f->col_stride = tiled ? 0 : t->rank == 1 ? t->stride[0] : t->stride[1];
  if (bits == 4 && (f->col_stride != 1 || f->row_stride % 2 != 0)) {
    snprintf(err, errlen,
             "seeded fill: packed %s needs column stride 1 and an even row stride (got %lld, %lld)",
             tp_dtype_name(t->dtype), (long long)f->col_stride, (long long)f->row_stride);
    return 0;
  }
  return 1;
}

/* An operand and its scales the dequantization kernel can address, as its
 * arguments; 0 (reason in err) otherwise. */
static int dequantize_args(const tp_tensor *x, const tp_tensor *scale, tp_scale_map map,
                           void *out, tp_dequantize_args *a, char *err, size_t errlen) {
  const int scaled = scale != NULL && scale->data != NULL && scale->dtype != TP_DTYPE_NONE;
  const unsigned bits = tp_dtype_bits(x->dtype);
  const tp_dtype d = x->dtype;
  const int kernel_dtype = d == TP_DTYPE_E4M3 || d == TP_DTYPE_E5M2 || d == TP_DTYPE_E2M1 ||
                           d == TP_DTYPE_S8 || d == TP_DTYPE_BF16 || d == TP_DTYPE_F16;
  if (x->data == NULL || out == NULL || x->rank != 2 || x->layout != TP_LAYOUT_STRIDED ||
      !kernel_dtype || x->stride[1] != 1 || x->shape[0] < 0 || x->shape[1] < 0 ||
      (bits == 4 && x->stride[0] % 2 != 0) ||
      (scaled && (map.rows < 1 || map.k < 0 || map.k % 8 != 0 || scale->rank < 1 ||
                  scale->rank > 2 ||
                  (scale->layout != TP_LAYOUT_STRIDED && scale->layout != TP_LAYOUT_SF_128X4)))) {
    snprintf(err, errlen,
             "dequantize: cannot address a %s operand of rank %d (it takes e4m3, e5m2, e2m1, s8, "
             "bf16 or f16, rank 2, strided rows, column stride 1, an even row stride when "
             "packed) with %s scales (blocks of K a multiple of 8)",
             tp_dtype_name(x->dtype), (int)x->rank,
             scaled ? tp_dtype_name(scale->dtype) : "no");
    return 0;
  }
  *a = (tp_dequantize_args){.x = x->data,
                            .out = out,
                            .rows = x->shape[0],
                            .cols = x->shape[1],
                            .ld = x->stride[0],
                            .dtype = (int32_t)x->dtype};
  if (scaled) {
    a->scale = scale->data;
    a->scale_dtype = (int32_t)scale->dtype;
    a->scale_layout = (int32_t)scale->layout;
    a->map_rows = map.rows;
    a->map_k = map.k;
    a->map_k_first = map.k_first;
    if (scale->rank == 2) {
      a->scale_cols = scale->shape[1];
      a->scale_ld = scale->layout == TP_LAYOUT_SF_128X4 ? 0 : scale->stride[0];
    } else { /* a vector [rows]: element r / map.rows, at its stride */
      a->scale_cols = 1;
      a->scale_ld = scale->stride[0];
      a->map_k = 0;
      a->map_k_first = 0;
    }
  }
  return 1;
}

#if TP_HAVE_CUDA
#include <dlfcn.h>
#include <string.h>

#include <cuda.h>
#include <cudaTypedefs.h>

#include "tools/device/seeded_fill.cubin.h"

/* X(name, version): as core/backend/cuda/driver.h's table. */
#define TP_SEEDED_DRIVER_FUNCTIONS(X)                                                          \
  X(GetErrorName, 6000) X(ModuleLoadData, 2000) X(ModuleUnload, 2000) X(ModuleGetFunction, 2000) \
  X(LaunchKernel, 4000)

struct tp_seeded_device {
  void *lib;
  CUmodule module;
  CUfunction fill, dequantize;
#define TP_SEEDED_FIELD(name, version) PFN_cu##name##_v##version name;
  TP_SEEDED_DRIVER_FUNCTIONS(TP_SEEDED_FIELD)
#undef TP_SEEDED_FIELD
};

/* Threads per block; blocks across a row, and rows at once (the grid's y
 * limit); the kernel strides over what a launch does not cover. */
enum { THREADS = 256, MAX_ROW_BLOCKS = 1024, MAX_ROWS = 65535 };
/* Blocks of a dequantization (grid-strided past them). */
enum { MAX_BLOCKS = 132 * 16 };

static tp_status failed(const tp_seeded_device *g, CUresult r, const char *what, char *err,
                        size_t errlen) {
  const char *name = NULL;
  if (g->GetErrorName == NULL || g->GetErrorName(r, &name) != CUDA_SUCCESS || name == NULL)
    name = "CUDA_ERROR_UNKNOWN";
  snprintf(err, errlen, "seeded fill: %s: %s", what, name);
  return TP_ERR_CUDA;
}

static tp_status load_functions(tp_seeded_device *g, char *err, size_t errlen) {
  if ((g->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) == NULL) {
    snprintf(err, errlen, "seeded fill: cannot open libcuda.so.1 (%s)", dlerror());
    return TP_ERR_NO_DEVICE;
  }
  void *sym = dlsym(g->lib, "cuGetProcAddress_v2");
  PFN_cuGetProcAddress_v12000 get_proc;
  if (sym == NULL) {
    snprintf(err, errlen, "seeded fill: libcuda.so.1 has no cuGetProcAddress_v2");
    return TP_ERR_NO_DEVICE;
  }
  /* memcpy: ISO C has no conversion from void * to a function pointer. */
  memcpy(&get_proc, &sym, sizeof sym);
#define TP_SEEDED_LOAD(name, version)                                                              \
  {                                                                                                \
    void *fn = NULL;                                                                               \
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;                   \
    if (get_proc("cu" #name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT, &found) != CUDA_SUCCESS || \
        fn == NULL) {                                                                              \
      snprintf(err, errlen, "seeded fill: libcuda.so.1 lacks cu" #name " at the CUDA %d.%d ABI",   \
               version / 1000, version % 1000 / 10);                                               \
      return TP_ERR_NO_DEVICE;                                                                     \
    }                                                                                              \
    memcpy(&g->name, &fn, sizeof fn);                                                              \
  }
  TP_SEEDED_DRIVER_FUNCTIONS(TP_SEEDED_LOAD)
#undef TP_SEEDED_LOAD
  return TP_OK;
}

tp_status tp_seeded_device_open(tp_seeded_device **out, char *err, size_t errlen) {
  *out = NULL;
  tp_seeded_device *g = calloc(1, sizeof *g);
  if (g == NULL) {
    snprintf(err, errlen, "seeded fill: out of host memory");
    return TP_ERR_OUT_OF_MEMORY;
  }
  tp_status st = load_functions(g, err, errlen);
  CUresult r;
  if (st == TP_OK && (r = g->ModuleLoadData(&g->module, tp_device_blob)) != CUDA_SUCCESS)
    st = failed(g, r, "cuModuleLoadData (is a context current?)", err, errlen);
  if (st == TP_OK &&
      (r = g->ModuleGetFunction(&g->fill, g->module, "tp_seeded_fill")) != CUDA_SUCCESS)
    st = failed(g, r, "cuModuleGetFunction", err, errlen);
  if (st == TP_OK &&
      (r = g->ModuleGetFunction(&g->dequantize, g->module, "tp_dequantize")) != CUDA_SUCCESS)
    st = failed(g, r, "cuModuleGetFunction", err, errlen);
  if (st != TP_OK) {
    tp_seeded_device_close(g);
    return st;
  }
  *out = g;
  return TP_OK;
}

void tp_seeded_device_close(tp_seeded_device *g) {
  if (g == NULL) return;
  if (g->module) g->ModuleUnload(g->module);
  if (g->lib) dlclose(g->lib);
  free(g);
}

tp_status tp_seeded_device_fill(const tp_seeded_device *g, const tp_tensor *t,
                                tp_seeded_values values, uint64_t key, char *err, size_t errlen) {
  tp_seeded_fill_args f;
  if (!fill_args(t, values, key, &f, err, errlen)) return TP_ERR_INVALID_ARGUMENT;
  if (f.rows == 0 || f.cols == 0) return TP_OK;
  const int64_t units = tp_dtype_bits(t->dtype) == 4 ? (f.cols + 1) / 2 : f.cols;
  const int64_t row_blocks = (units + THREADS - 1) / THREADS;
  const unsigned gx = (unsigned)(row_blocks < MAX_ROW_BLOCKS ? row_blocks : MAX_ROW_BLOCKS);
  const unsigned gy = (unsigned)(f.rows < MAX_ROWS ? f.rows : MAX_ROWS);
  void *params[] = {&f};
  const CUresult r = g->LaunchKernel(g->fill, gx, gy, 1, THREADS, 1, 1, 0, NULL, params, NULL);
  return r == CUDA_SUCCESS ? TP_OK : failed(g, r, "cuLaunchKernel", err, errlen);
}

tp_status tp_seeded_device_dequantize(const tp_seeded_device *g, const tp_tensor *x,
                                      const tp_tensor *scale, tp_scale_map map, void *out,
                                      char *err, size_t errlen) {
  tp_dequantize_args a;
  if (!dequantize_args(x, scale, map, out, &a, err, errlen)) return TP_ERR_INVALID_ARGUMENT;
  const int64_t units = a.rows * ((a.cols + 7) / 8);
  if (units == 0) return TP_OK;
  const int64_t blocks = (units + THREADS - 1) / THREADS;
  const unsigned gx = (unsigned)(blocks < MAX_BLOCKS ? blocks : MAX_BLOCKS);
  void *params[] = {&a};
  const CUresult r = g->LaunchKernel(g->dequantize, gx, 1, 1, THREADS, 1, 1, 0, NULL, params, NULL);
  return r == CUDA_SUCCESS ? TP_OK : failed(g, r, "cuLaunchKernel", err, errlen);
}

#else /* built without the CUDA toolkit */

static tp_status no_toolkit(char *err, size_t errlen) {
  snprintf(err, errlen, "seeded fill: this tilepipe was built without the CUDA toolkit");
  return TP_ERR_UNSUPPORTED;
}

tp_status tp_seeded_device_open(tp_seeded_device **gen, char *err, size_t errlen) {
  *gen = NULL;
  return no_toolkit(err, errlen);
}

void tp_seeded_device_close(tp_seeded_device *gen) {}

/* Unreachable without a generator; checks its arguments all the same. */
tp_status tp_seeded_device_fill(const tp_seeded_device *gen, const tp_tensor *t,
                                tp_seeded_values values, uint64_t key, char *err, size_t errlen) {
  tp_seeded_fill_args f;
  if (!fill_args(t, values, key, &f, err, errlen)) return TP_ERR_INVALID_ARGUMENT;
  return no_toolkit(err, errlen);
}

tp_status tp_seeded_device_dequantize(const tp_seeded_device *gen, const tp_tensor *x,
                                      const tp_tensor *scale, tp_scale_map map, void *out,
                                      char *err, size_t errlen) {
  tp_dequantize_args a;
  if (!dequantize_args(x, scale, map, out, &a, err, errlen)) return TP_ERR_INVALID_ARGUMENT;
  return no_toolkit(err, errlen);
}

#endif
