/* tests/device/test_pipeline_device.cu: the pipeline core on the GPU (sm_90a).
 *
 * A standalone CUDA program (nvcc + cudart), built with TP_PIPELINE_DEBUG=1.
 * Exit status: 0 pass, 1 fail, 77 skip (no GPU, or not an sm_90 one).
 *
 *   handoff   one CTA: warp 0 lane 0 is the producer, it fills each stage
 *             with cp.async.bulk global->shared loads that complete_tx on
 *             the stage's full barrier (the expect_tx before or after the
 *             bytes); warps 1..C consume with one arrival per warp. 1..8
 *             stages, k_group_size 1, 2, 4, 1..4 consumer warps, scoped,
 *             explicit and try-acquire forms. Every consumer warp copies every
 *             word it read to global memory; the host compares all of them.
 *   cluster   2 CTAs (__cluster_dims__(2,1,1)): each CTA's producer loads
 *             half of every tile and multicasts it to both CTAs; each
 *             stage's empty barrier counts the consumer warps of both CTAs,
 *             which release with remote arrivals (tp_arrival cta_mask 0b11).
 *   output    the output ring: consumer warps write chunk parts, the store
 *             thread bulk-stores each chunk to global memory
 *             (cp.async.bulk.global.shared::cta, wait_group.read) and frees it.
 *   layout    a kernel runs the storage planner on constants; its layout must
 *             equal the host's, field by field.
 *
 * A kernel that does not finish in 30 s counts as a deadlock (exit 1).
 * `--small` runs fewer items (for compute-sanitizer, see sanitize-pipeline);
 * `--only PART` runs one part; `--thread-arrivals` makes every lane of the
 * consumer and writer warps arrive (barrier counts x 32) instead of one lane
 * per warp after __syncwarp. Both are correct under the PTX memory model
 * (bar.warp.sync orders the lanes' shared-memory accesses before lane 0's
 * release), but racecheck does not follow that chain and reports the other
 * lanes' accesses; the sanitizer script runs racecheck with per-thread
 * arrivals. */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/tile_storage.h"
#include "tilepipe/internal/pipeline/storage.h"

#define A_WORDS 16u /* tensor 0: 64-byte tiles */
#define B_WORDS 8u  /* tensor 1: 32-byte tiles */
#define ITEM_WORDS (A_WORDS + B_WORDS)
#define MAX_CONSUMERS 4u
#define PART_WORDS 32u /* output: one warp's part of a chunk */

static int g_failures = 0;

#define CUDA_OK(call)                                                                      \
  do {                                                                                     \
    cudaError_t err_ = (call);                                                             \
    if (err_ != cudaSuccess) {                                                             \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)

/* Word w of tensor t of item v, as in the host test. */
static __host__ __device__ uint32_t item_word(uint32_t v, uint32_t t, uint32_t w) {
  return v * 131u + t * 17u + w;
}

/* ------------------------------------------------------------ bulk copies */

/* global -> this CTA's shared memory; the bytes complete_tx on bar. */
static __device__ void bulk_load(void *dst, const void *src, uint32_t bytes, tp_mbar *bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
          tp_smem_addr(dst)),
      "l"(src), "r"(bytes), "r"(tp_smem_addr(bar))
      : "memory");
}

/* global -> the same offset in every CTA of mask; each CTA's barrier at
 * bar's offset receives the complete_tx. */
static __device__ void bulk_load_multicast(void *dst, const void *src, uint32_t bytes, tp_mbar *bar,
                                           uint16_t mask) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1], %2, [%3], %4;" ::"r"(tp_smem_addr(dst)),
      "l"(src), "r"(bytes), "r"(tp_smem_addr(bar)), "h"(mask)
      : "memory");
}

static __device__ void bulk_store(void *dst, const void *src, uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst),
               "r"(tp_smem_addr(src)), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

static __device__ void bulk_wait_read_all(void) {
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

static __device__ void bulk_wait_all(void) { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }

static __device__ uint32_t cluster_rank(void) {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

/* Every thread of both CTAs; .aligned needs the warp converged first. */
static __device__ void cluster_sync(void) {
  __syncwarp();
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" :::
                   "memory");
}

/* ----------------------------------------------------------- the layout */

/* What one handoff stage holds; host and device plan the same request. */
static __host__ __device__ tp_storage_request handoff_request(uint32_t stages, uint32_t k) {
  tp_storage_request r = tp_storage_request_make(48u * 1024u);
  r.num_tensors = 2;
  r.tensors[0].bytes = A_WORDS * 4u;
  r.tensors[0].align = 128;
  r.tensors[1].bytes = B_WORDS * 4u;
  r.tensors[1].align = 128;
  r.k_group_size = k;
  r.stages = stages;
  return r;
}

static __host__ __device__ tp_storage_request output_request(uint32_t stages, uint32_t writers) {
  tp_storage_request r = tp_storage_request_make(48u * 1024u);
  r.num_tensors = 1;
  r.tensors[0].bytes = 16;
  r.tensors[0].align = 16;
  r.stages = 1;
  r.output_chunk.bytes = writers * PART_WORDS * 4u;
  r.output_chunk.align = 1024;
  r.output_stages = stages;
  return r;
}

extern __shared__ __align__(1024) unsigned char g_smem[];

struct run_args {
  uint32_t stages, k, consumers, items;
  uint32_t per_thread; /* 1: every lane arrives (counts x 32); 0: one arrival per warp */
  const uint32_t *src_a, *src_b; /* items x A_WORDS, items x B_WORDS */
  uint32_t *out;                 /* [cta][consumer][item][ITEM_WORDS] */
  uint32_t *status;              /* nonzero: the kernel found a problem */
};

/* The CTA's layout, its barriers initialised and visible. */
static __device__ tp_storage_layout setup(const tp_storage_request &r, tp_storage_counts counts,
                                          const run_args &a, bool cluster) {
  tp_storage_layout L;
  if (tp_storage_plan(&r, &L) != TP_OK) {
    if (threadIdx.x == 0) atomicOr(a.status, 1u);
    __trap();
  }
  if (threadIdx.x == 0) {
    if (tp_smem_addr(g_smem) % 1024u != 0) atomicOr(a.status, 2u);
    tp_storage_init_barriers(g_smem, &L, &counts);
    tp_mbar_fence_init();
  }
  if (cluster)
    cluster_sync();
  else
    __syncthreads();
  return L;
}

/* ------------------------------------------------------ producer, consumer */

/* Loads item v into tile j of the stage: whole tiles, or (cluster) this
 * CTA's half of each, multicast to both CTAs. */
static __device__ void load_item(const tp_input_producer_stage *s, uint32_t j, uint32_t v,
                                 const run_args &a, bool cluster, uint32_t rank) {
  const uint32_t *src[2] = {a.src_a + (size_t)(v - 1) * A_WORDS, a.src_b + (size_t)(v - 1) * B_WORDS};
  for (uint32_t t = 0; t < 2; ++t) {
    uint32_t bytes = s->ip->payload.tensors[t].bytes;
    unsigned char *dst = (unsigned char *)tp_input_producer_stage_tile(s, t, j);
    if (cluster) {
      uint32_t half = bytes / 2u;
      bulk_load_multicast(dst + rank * half, (const unsigned char *)src[t] + rank * half, half,
                          tp_input_producer_stage_barrier(s), 0x3);
    } else {
      bulk_load(dst, src[t], bytes, tp_input_producer_stage_barrier(s));
    }
  }
}

/* `when`: the expect_tx 0 before the loads, 1 after them, 2 in between. */
static __device__ void fill_stage(const tp_input_producer_stage *s, uint32_t first, uint32_t when,
                                  const run_args &a, bool cluster, uint32_t rank) {
  uint32_t k = s->ip->payload.k_group_size;
  if (when == 0) tp_input_producer_stage_arrive_expect(s);
  for (uint32_t j = 0; j < k; ++j) {
    if (when == 2 && j == k / 2) tp_input_producer_stage_arrive_expect(s);
    load_item(s, j, first + j, a, cluster, rank);
  }
  if (when == 1) tp_input_producer_stage_arrive_expect(s);
}

static __device__ void produce(const tp_storage_layout &L, const run_args &a, bool cluster,
                               uint32_t rank) {
  tp_input_pipeline ip = tp_storage_input_pipeline(g_smem, &L, 1);
  tp_input_producer prod = tp_input_pipeline_producer(&ip);
  for (uint32_t g = 0; g * a.k < a.items; ++g) {
    uint32_t first = g * a.k + 1;
    switch (g % 4) {
    case 0:
      TP_INPUT_PRODUCE(&prod, s) { fill_stage(&s, first, 0, a, cluster, rank); }
      break;
    case 1: {
      tp_input_producer_stage s = tp_input_producer_acquire_stage(&prod);
      fill_stage(&s, first, 1, a, cluster, rank);
      tp_input_producer_stage_release(&s);
      break;
    }
    case 2: {
      bool ready = tp_input_producer_try_acquire(&prod);
      tp_input_producer_stage s = tp_input_producer_acquire_if_needed(&prod, ready);
      fill_stage(&s, first, 2, a, cluster, rank);
      tp_input_producer_stage_release(&s);
      break;
    }
    default: {
      bool ready = tp_input_producer_try_acquire(&prod);
      TP_INPUT_PRODUCE_IF_NEEDED(&prod, ready, s) { fill_stage(&s, first, 0, a, cluster, rank); }
    }
    }
  }
  tp_input_producer_drain(&prod);
}

/* The whole warp copies what it reads to out[item]. */
static __device__ void copy_stage(const tp_input_consumer_stage *s, uint32_t first, uint32_t *out) {
  uint32_t lane = tp_lane_id();
  for (uint32_t j = 0; j < s->ip->payload.k_group_size; ++j) {
    uint32_t *dst = out + (size_t)(first + j - 1) * ITEM_WORDS;
    const uint32_t *ta = (const uint32_t *)tp_input_consumer_stage_tile(s, 0, j);
    const uint32_t *tb = (const uint32_t *)tp_input_consumer_stage_tile(s, 1, j);
    if (lane < A_WORDS) dst[lane] = ta[lane];
    if (lane < B_WORDS) dst[A_WORDS + lane] = tb[lane];
  }
}

static __device__ void consume(const tp_storage_layout &L, const run_args &a, tp_arrival arrival,
                               uint32_t *out) {
  tp_input_pipeline ip = tp_storage_input_pipeline(g_smem, &L, 1);
  tp_input_consumer cons = tp_input_pipeline_consumer(&ip, arrival);
  for (uint32_t g = 0; g * a.k < a.items; ++g) {
    uint32_t first = g * a.k + 1;
    switch (g % 3) {
    case 0:
      TP_INPUT_CONSUME(&cons, s) { copy_stage(&s, first, out); }
      break;
    case 1: {
      tp_input_consumer_stage s = tp_input_consumer_acquire_stage(&cons);
      copy_stage(&s, first, out);
      tp_input_consumer_stage_release(&s);
      break;
    }
    default: {
      bool ready = tp_input_consumer_try_acquire(&cons);
      TP_INPUT_CONSUME_IF_NEEDED(&cons, ready, s) { copy_stage(&s, first, out); }
    }
    }
  }
  tp_input_consumer_drain(&cons);
}

/* --------------------------------------------------------------- kernels */

/* The arrival unit of the consumer or writer warps, and the arrivals that
 * `warps` of them make on one barrier. */
static __device__ tp_arrival unit(const run_args &a, uint32_t cta_mask) {
  return tp_arrival_make(a.per_thread ? 0u : 1u, cta_mask);
}
static __device__ uint32_t arrivals(const run_args &a, uint32_t warps) {
  return tp_arrival_count(unit(a, 0), warps);
}

/* Warp 0: producer (lane 0); warps 1..consumers: consumers. */
__global__ void handoff_kernel(run_args a) {
  tp_storage_request r = handoff_request(a.stages, a.k);
  tp_storage_counts counts = {arrivals(a, a.consumers), 1, 1};
  tp_storage_layout L = setup(r, counts, a, false);
  uint32_t warp = threadIdx.x / 32u;
  if (warp == 0) {
    if (tp_lane_id() == 0) produce(L, a, false, 0);
  } else {
    consume(L, a, unit(a, 0), a.out + (size_t)(warp - 1) * a.items * ITEM_WORDS);
  }
}

/* Two CTAs, each with a producer and consumers; every stage is filled by
 * both producers' multicast halves and freed by both CTAs' consumers. */
__global__ void __cluster_dims__(2, 1, 1) cluster_kernel(run_args a) {
  uint32_t rank = cluster_rank();
  tp_storage_request r = handoff_request(a.stages, a.k);
  tp_storage_counts counts = {arrivals(a, 2u * a.consumers), 1, 1};
  tp_storage_layout L = setup(r, counts, a, true);
  uint32_t warp = threadIdx.x / 32u;
  if (warp == 0) {
    if (tp_lane_id() == 0) produce(L, a, true, rank);
  } else {
    uint32_t *out = a.out + ((size_t)rank * a.consumers + warp - 1) * a.items * ITEM_WORDS;
    consume(L, a, unit(a, 0x3), out);
  }
  /* No CTA leaves while its peer may still arrive on or write into it. */
  cluster_sync();
}

/* Warps 0..writers-1 write chunk parts; warp `writers`, lane 0, stores. */
__global__ void output_kernel(run_args a) {
  uint32_t writers = a.consumers;
  tp_storage_request r = output_request(a.stages, writers);
  tp_storage_counts counts = {1, arrivals(a, writers), 1};
  tp_storage_layout L = setup(r, counts, a, false);
  tp_output_pipeline op = tp_storage_output_pipeline(g_smem, &L);
  uint32_t warp = threadIdx.x / 32u, lane = tp_lane_id();
  size_t chunk_words = (size_t)writers * PART_WORDS;
  if (warp < writers) {
    tp_output_writer wr = tp_output_pipeline_writer(&op, unit(a, 0));
    for (uint32_t v = 1; v <= a.items; ++v) {
      if (v % 2) {
        TP_OUTPUT_WRITE(&wr, s) {
          ((uint32_t *)tp_output_write_stage_tile(&s))[warp * PART_WORDS + lane] =
              item_word(v, warp, lane);
        }
      } else {
        bool ready = tp_output_writer_try_acquire(&wr);
        tp_output_write_stage s = tp_output_writer_acquire_if_needed(&wr, ready);
        ((uint32_t *)tp_output_write_stage_tile(&s))[warp * PART_WORDS + lane] =
            item_word(v, warp, lane);
        tp_output_write_stage_release(&s);
      }
    }
    tp_output_writer_drain(&wr);
  } else if (lane == 0) {
    tp_output_store st = tp_output_pipeline_store(&op);
    for (uint32_t v = 1; v <= a.items; ++v) {
      TP_OUTPUT_STORE(&st, s) {
        bulk_store(a.out + (v - 1) * chunk_words, tp_output_store_stage_tile(&s),
                   (uint32_t)(chunk_words * 4u));
        bulk_wait_read_all();
      }
    }
    tp_output_store_drain(&st);
    bulk_wait_all();
  }
}

/* The planner on the device, on the same constants as the host. */
__global__ void layout_kernel(tp_storage_layout *out, uint32_t *status) {
  tp_storage_request r;
  switch (threadIdx.x) {
  case 0: {
    r = tp_storage_request_make(TP_SMEM_BUDGET_H100);
    tp_tile_config c = {128, 256, 64, 0, 1, 1, 1, 2};
    const char *why = 0;
    tp_tile_storage_standard(TP_DTYPE_BF16, TP_DTYPE_BF16, &c, r.tensors, &r.num_tensors, &why);
    tp_tile_storage_chunk(TP_DTYPE_BF16, 128, 64, &r.output_chunk, &why);
    r.output_stages = 2;
    break;
  }
  case 1: {
    r = tp_storage_request_make(TP_SMEM_BUDGET_H100);
    tp_tile_config c = {128, 128, 256, 0, 1, 1, 1, 2};
    const char *why = 0;
    tp_tile_storage_block_scaled(TP_DTYPE_E2M1, TP_DTYPE_E2M1, TP_DTYPE_UE4M3, 16, &c, r.tensors,
                                 &r.num_tensors, &why);
    tp_tile_storage_chunk(TP_DTYPE_BF16, 128, 64, &r.output_chunk, &why);
    r.output_stages = 2;
    r.source_in_output = 1;
    break;
  }
  default:
    r = handoff_request(3, 2);
  }
  if (tp_storage_plan(&r, &out[threadIdx.x]) != TP_OK) atomicOr(status, 1u);
  out[threadIdx.x].error = 0; /* a device pointer: not comparable on the host */
}

/* ------------------------------------------------------------------ host */

static void wait_kernel(const char *what) {
  CUDA_OK(cudaGetLastError());
  time_t start = time(NULL);
  cudaError_t err;
  while ((err = cudaStreamQuery(0)) == cudaErrorNotReady) {
    if (time(NULL) - start > 30) {
      fprintf(stderr, "FAIL %s: still running after 30 s (deadlock)\n", what);
      exit(1);
    }
    struct timespec pause = {0, 1000000};
    nanosleep(&pause, NULL);
  }
  if (err != cudaSuccess) {
    fprintf(stderr, "FAIL %s: %s\n", what, cudaGetErrorString(err));
    exit(1);
  }
}

struct buffers {
  uint32_t *src_a, *src_b, *out, *status;
  uint32_t *host_out;
  size_t out_words;
};

static void check_status(const buffers &b, const char *what) {
  uint32_t status = 0;
  CUDA_OK(cudaMemcpy(&status, b.status, 4, cudaMemcpyDeviceToHost));
  if (status) {
    fprintf(stderr, "FAIL %s: kernel status 0x%x (1: plan failed, 2: smem base not 1024-aligned)\n",
            what, status);
    ++g_failures;
  }
}

/* Compares every word each consumer warp copied out. */
static void check_copies(const buffers &b, uint32_t copies, uint32_t items, const char *what) {
  size_t words = (size_t)copies * items * ITEM_WORDS;
  CUDA_OK(cudaMemcpy(b.host_out, b.out, words * 4, cudaMemcpyDeviceToHost));
  size_t bad = 0, first = 0;
  for (uint32_t c = 0; c < copies; ++c)
    for (uint32_t v = 1; v <= items; ++v)
      for (uint32_t w = 0; w < ITEM_WORDS; ++w) {
        size_t at = ((size_t)c * items + v - 1) * ITEM_WORDS + w;
        uint32_t want = w < A_WORDS ? item_word(v, 0, w) : item_word(v, 1, w - A_WORDS);
        if (b.host_out[at] != want && bad++ == 0) first = at;
      }
  if (bad) {
    fprintf(stderr, "FAIL %s: %zu bad words, the first at word %zu\n", what, bad, first);
    ++g_failures;
  }
}

static uint32_t g_per_thread = 0;

static run_args args_for(const buffers &b, uint32_t stages, uint32_t k, uint32_t consumers,
                         uint32_t items) {
  run_args a;
  a.per_thread = g_per_thread;
  a.stages = stages;
  a.k = k;
  a.consumers = consumers;
  a.items = items;
  a.src_a = b.src_a;
  a.src_b = b.src_b;
  a.out = b.out;
  a.status = b.status;
  return a;
}

static void reset(const buffers &b) {
  CUDA_OK(cudaMemset(b.out, 0, b.out_words * 4));
  CUDA_OK(cudaMemset(b.status, 0, 4));
}

static void run_handoffs(const buffers &b, uint32_t items) {
  static const uint32_t stage_counts[] = {1, 2, 3, 4, 5, 6, 7, 8};
  static const uint32_t groups[] = {1, 2, 4};
  static const uint32_t consumer_counts[] = {1, 2, 4};
  int runs = 0;
  for (uint32_t s : stage_counts)
    for (uint32_t k : groups)
      for (uint32_t c : consumer_counts) {
        char what[96];
        snprintf(what, sizeof what, "handoff %u stages, k_group %u, %u consumer warps", s, k, c);
        tp_storage_layout L;
        tp_storage_request r = handoff_request(s, k);
        if (tp_storage_plan(&r, &L) != TP_OK) {
          fprintf(stderr, "FAIL %s: host plan: %s\n", what, L.error);
          ++g_failures;
          continue;
        }
        reset(b);
        handoff_kernel<<<1, 32 * (1 + c), L.total_bytes>>>(args_for(b, s, k, c, items));
        wait_kernel(what);
        check_status(b, what);
        check_copies(b, c, items, what);
        ++runs;
      }
  printf("handoff: %d configurations x %u items\n", runs, items);
}

static void run_clusters(const buffers &b, uint32_t items) {
  static const uint32_t stage_counts[] = {1, 2, 4, 8};
  int runs = 0;
  for (uint32_t s : stage_counts)
    for (uint32_t c = 1; c <= 2; ++c) {
      char what[96];
      snprintf(what, sizeof what, "cluster of 2, %u stages, %u consumer warps per CTA", s, c);
      tp_storage_layout L;
      tp_storage_request r = handoff_request(s, 2);
      if (tp_storage_plan(&r, &L) != TP_OK) {
        ++g_failures;
        continue;
      }
      reset(b);
      cluster_kernel<<<2, 32 * (1 + c), L.total_bytes>>>(args_for(b, s, 2, c, items));
      wait_kernel(what);
      check_status(b, what);
      check_copies(b, 2 * c, items, what);
      ++runs;
    }
  printf("cluster: %d configurations x %u items\n", runs, items);
}

static void run_outputs(const buffers &b, uint32_t items) {
  static const uint32_t stage_counts[] = {1, 2, 3, 4, 8};
  int runs = 0;
  for (uint32_t s : stage_counts)
    for (uint32_t w = 1; w <= MAX_CONSUMERS; w *= 2) {
      char what[96];
      snprintf(what, sizeof what, "output ring, %u stages, %u writer warps", s, w);
      tp_storage_layout L;
      tp_storage_request r = output_request(s, w);
      if (tp_storage_plan(&r, &L) != TP_OK) {
        ++g_failures;
        continue;
      }
      reset(b);
      output_kernel<<<1, 32 * (w + 1), L.total_bytes>>>(args_for(b, s, 1, w, items));
      wait_kernel(what);
      check_status(b, what);
      size_t words = (size_t)items * w * PART_WORDS;
      CUDA_OK(cudaMemcpy(b.host_out, b.out, words * 4, cudaMemcpyDeviceToHost));
      size_t bad = 0;
      for (uint32_t v = 1; v <= items; ++v)
        for (uint32_t p = 0; p < w; ++p)
          for (uint32_t l = 0; l < PART_WORDS; ++l)
            bad += b.host_out[((size_t)(v - 1) * w + p) * PART_WORDS + l] != item_word(v, p, l);
      if (bad) {
        fprintf(stderr, "FAIL %s: %zu bad words in global memory\n", what, bad);
        ++g_failures;
      }
      ++runs;
    }
  printf("output: %d configurations x %u chunks\n", runs, items);
}

static void run_layouts(const buffers &b) {
  tp_storage_layout *dev = NULL;
  tp_storage_layout got[3], want[3];
  CUDA_OK(cudaMalloc(&dev, sizeof got));
  CUDA_OK(cudaMemset(b.status, 0, 4));
  layout_kernel<<<1, 3>>>(dev, b.status);
  wait_kernel("layout");
  check_status(b, "layout");
  CUDA_OK(cudaMemcpy(got, dev, sizeof got, cudaMemcpyDeviceToHost));
  CUDA_OK(cudaFree(dev));
  /* The same requests on the host. */
  memset(want, 0, sizeof want);
  for (int i = 0; i < 3; ++i) {
    tp_storage_request r = tp_storage_request_make(TP_SMEM_BUDGET_H100);
    const char *why = 0;
    if (i == 0) {
      tp_tile_config c = {128, 256, 64, 0, 1, 1, 1, 2};
      tp_tile_storage_standard(TP_DTYPE_BF16, TP_DTYPE_BF16, &c, r.tensors, &r.num_tensors, &why);
      tp_tile_storage_chunk(TP_DTYPE_BF16, 128, 64, &r.output_chunk, &why);
      r.output_stages = 2;
    } else if (i == 1) {
      tp_tile_config c = {128, 128, 256, 0, 1, 1, 1, 2};
      tp_tile_storage_block_scaled(TP_DTYPE_E2M1, TP_DTYPE_E2M1, TP_DTYPE_UE4M3, 16, &c, r.tensors,
                                   &r.num_tensors, &why);
      tp_tile_storage_chunk(TP_DTYPE_BF16, 128, 64, &r.output_chunk, &why);
      r.output_stages = 2;
      r.source_in_output = 1;
    } else {
      r = handoff_request(3, 2);
    }
    if (tp_storage_plan(&r, &want[i]) != TP_OK) ++g_failures;
    want[i].error = 0;
  }
  /* Both sides zeroed no padding: compare the fields that matter. */
  for (int i = 0; i < 3; ++i) {
    const tp_storage_layout &g = got[i], &w = want[i];
    bool same = g.stages == w.stages && g.total_bytes == w.total_bytes &&
                g.barrier_offset == w.barrier_offset && g.expect_bytes == w.expect_bytes &&
                g.output.offset == w.output.offset && g.source_stages == w.source_stages &&
                g.source_barriers == w.source_barriers &&
                g.load_order_barrier == w.load_order_barrier;
    for (int t = 0; t < TP_MAX_STAGE_TENSORS; ++t)
      same = same && g.tensors[t].offset == w.tensors[t].offset &&
             g.tensors[t].stride == w.tensors[t].stride && g.tensors[t].count == w.tensors[t].count;
    if (!same) {
      fprintf(stderr, "FAIL layout %d: device %u stages / %u bytes, host %u stages / %u bytes\n", i,
              g.stages, g.total_bytes, w.stages, w.total_bytes);
      ++g_failures;
    }
  }
  printf("layout: device planner matches the host on 3 requests (first: %u stages, %u bytes)\n",
         got[0].stages, got[0].total_bytes);
}

int main(int argc, char **argv) {
  bool small = false;
  const char *only = NULL; /* --only layout|handoff|cluster|output */
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--small") == 0) {
      small = true;
    } else if (strcmp(argv[i], "--thread-arrivals") == 0) {
      g_per_thread = 1;
    } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      only = argv[++i];
    } else {
      fprintf(stderr, "usage: %s [--small] [--thread-arrivals] [--only layout|handoff|cluster|output]\n",
              argv[0]);
      return 1;
    }
  }
  /* Without a driver cudart says "driver version is insufficient": name
   * the missing library instead, as the library's own GPU tests do. */
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver == NULL) {
    printf("SKIP: no CUDA driver: cannot open libcuda.so.1 (%s); is the NVIDIA driver installed?\n",
           dlerror());
    return 77;
  }
  dlclose(driver);
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    printf("SKIP: no CUDA device (%s)\n", err != cudaSuccess ? cudaGetErrorString(err) : "0 devices");
    return 77;
  }
  cudaDeviceProp prop;
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major != 9) {
    printf("SKIP: %s is sm_%d%d; this test is built for sm_90a\n", prop.name, prop.major, prop.minor);
    return 77;
  }
  printf("device: %s; consumer and writer warps arrive once per %s\n", prop.name,
         g_per_thread ? "thread" : "warp");

  uint32_t items = small ? 512u : 16384u;
  uint32_t max_items = items;
  buffers b;
  size_t src_words = (size_t)max_items * ITEM_WORDS;
  b.out_words = (size_t)2 * MAX_CONSUMERS * max_items * ITEM_WORDS;
  if (b.out_words < (size_t)max_items * MAX_CONSUMERS * PART_WORDS)
    b.out_words = (size_t)max_items * MAX_CONSUMERS * PART_WORDS;
  uint32_t *src = (uint32_t *)malloc(src_words * 4);
  b.host_out = (uint32_t *)malloc(b.out_words * 4);
  if (!src || !b.host_out) return 1;
  for (uint32_t v = 1; v <= max_items; ++v) {
    for (uint32_t w = 0; w < A_WORDS; ++w) src[(size_t)(v - 1) * A_WORDS + w] = item_word(v, 0, w);
    for (uint32_t w = 0; w < B_WORDS; ++w)
      src[(size_t)max_items * A_WORDS + (size_t)(v - 1) * B_WORDS + w] = item_word(v, 1, w);
  }
  CUDA_OK(cudaMalloc(&b.src_a, src_words * 4));
  b.src_b = b.src_a + (size_t)max_items * A_WORDS;
  CUDA_OK(cudaMemcpy(b.src_a, src, src_words * 4, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMalloc(&b.out, b.out_words * 4));
  CUDA_OK(cudaMalloc(&b.status, 4));

  if (!only || strcmp(only, "layout") == 0) run_layouts(b);
  if (!only || strcmp(only, "handoff") == 0) run_handoffs(b, items);
  if (!only || strcmp(only, "cluster") == 0) run_clusters(b, items);
  if (!only || strcmp(only, "output") == 0) run_outputs(b, items);

  CUDA_OK(cudaFree(b.src_a));
  CUDA_OK(cudaFree(b.out));
  CUDA_OK(cudaFree(b.status));
  free(src);
  free(b.host_out);
  if (g_failures) {
    printf("FAIL: %d check(s) failed\n", g_failures);
    return 1;
  }
  printf("PASS\n");
  return 0;
}
