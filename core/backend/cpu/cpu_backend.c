/* core/backend/cpu/cpu_backend.c: GEMMs on host threads (see cpu_backend.h).
 *
 * Roles and barriers, as on the GPU, played by every worker thread (the
 * calling thread is worker 0):
 *   producer: the stages of the run are numbered it = tile * k_blocks + kb
 *     (tiles in one order for all); worker w fills those with it % workers
 *     == w: acquire the stage (wait empty), arrive.expect_tx(stage bytes) on
 *     full, cpu_load, complete_tx(stage bytes): the "TMA" has landed;
 *     release (step). Its producer view steps over the others' stages
 *     without touching their barriers.
 *   consumer: for each tile, for each k-block: acquire (wait full), cpu_mma
 *     on its rows, release (arrive on empty, step); then the epilogue writes
 *     its rows of the tile.
 * full[] counts 1 arrival (the expect_tx), empty[] one per worker.
 *
 * A worker fills its own stages ahead of the one it consumes, up to the
 * ring's depth, when their slots are already free (one probe, no wait), so
 * the packing of the next stages overlaps the others' micro-kernels; only a
 * stage it is about to consume itself does it wait for. That wait cannot
 * deadlock: the lowest unfilled stage's owner has consumed every stage
 * before it, and so has every other worker (each has at most waited for
 * that stage's "full"), so the slot it needs is free.
 *
 * Workers 1 .. n-1 are the plan's pool (cpu_pool below), kept between
 * runs; a run that finds the pool in use by another run of the plan starts
 * threads of its own.
 *
 * Each run owns its "shared memory" (barriers + stages) and accumulators, so
 * concurrent runs of one plan do not interfere. Both are allocated before any
 * worker starts on it: once the pipeline runs, no role can fail, so none can
 * leave the others waiting on a barrier. */
#define _GNU_SOURCE /* sched_getaffinity */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/backend/cpu/cpu_backend.h"
#include "core/error.h"
#include "tilepipe/internal/pipeline/pipeline.h"
#include "tilepipe/internal/pipeline/storage.h"

/* Worker threads at most (a plan's, whatever the cores); each takes whole
 * panels of a tile's rows (TP_CPU_ROW_STEP: the kit's micro-kernels' 8). */
#define TP_CPU_MAX_WORKERS 64
#define TP_CPU_ROW_STEP 8
/* How often a worker probes for a stage that another fills (yielding
 * between probes, and filling its own stages meanwhile when it can)
 * before it waits on the barrier, whose wait sleeps after a while. */
#define TP_CPU_WAIT_PROBES 256
/* Stages when the payload leaves the choice to the backend. */
#define TP_CPU_DEFAULT_STAGES 4
/* The host "shared memory" budget: generous, the host has no 227 KB wall. */
#define TP_CPU_SMEM_BUDGET (64u << 20)

typedef struct cpu_run cpu_run;

/* The plan's worker threads, kept between its runs (started by the first
 * run that needs them). One run at a time has them: `owner` is held for
 * the whole run; a run that finds it taken (another thread is running the
 * plan) starts threads of its own. Each run is handed over under `lock`:
 * the threads wait on `wake` for a new generation, work as workers 1 ..
 * run->workers - 1, and the last to finish signals `done`. */
typedef struct cpu_pool cpu_pool;

/* What a pool thread is started with. */
typedef struct pool_arg {
  cpu_pool *pool;
  int32_t index; /* as a worker: 1 .. */
} pool_arg;

struct cpu_pool {
  pthread_mutex_t owner;
  pthread_mutex_t lock;
  pthread_cond_t wake, done;
  pthread_t threads[TP_CPU_MAX_WORKERS];
  pool_arg args[TP_CPU_MAX_WORKERS];
  int32_t started;     /* threads[0 .. started) run, as workers 1 .. started */
  pid_t pid;           /* the process they run in (a forked child has none) */
  cpu_run *run;        /* the run being handed over (under lock) */
  uint64_t generation; /* runs handed over so far (under lock) */
  int32_t busy;        /* threads still working on the run (under lock) */
  int quit;            /* the plan is being destroyed (under lock) */
};

struct tp_cpu_plan {
  const tp_binding *binding;
  tp_storage_layout layout;
  int32_t workers;
  cpu_pool *pool; /* written by runs through the pointer; the plan itself is only read */
};

struct cpu_run {
  const tp_cpu_plan *plan;
  const tp_gemm_desc *desc;
  unsigned char *smem;
  float *acc;            /* one tile of accumulators: consumer rows r0.. at acc + r0 * tile_n */
  int64_t tiles_n, num_tiles;
  int32_t workers;       /* the caller and the threads actually started */
  atomic_int go;         /* threads of its own: 0 wait (the barriers are not set yet), 1 run */
};

typedef struct worker_arg {
  cpu_run *run;
  int32_t index;
  pthread_t thread;
} worker_arg;


static void tile_origin(const cpu_run *run, int64_t tile, int64_t *m0, int64_t *n0) {
  const tp_tile_config *tc = &run->plan->binding->payload_plan.tile;
  *m0 = (tile / run->tiles_n) * tc->tile_m;
  *n0 = (tile % run->tiles_n) * tc->tile_n;
}

/* Fills stage `it` (tile it / k_blocks, k-block it % k_blocks) through
 * prod, whose position is *pos: steps over the stages before it (others'),
 * then acquires it, waiting unless `ready` (a probe at that position said
 * its slot is free). */
static void produce(const cpu_run *run, tp_input_producer *prod, int64_t *pos, int64_t it,
                    bool ready) {
  const tp_binding *b = run->plan->binding;
  int64_t m0, n0;
  tile_origin(run, it / b->payload_plan.k_blocks, &m0, &n0);
  TP_INPUT_PRODUCE_IF_NEEDED(prod, ready, s) {
    void *tiles[TP_MAX_STAGE_TENSORS];
    for (uint32_t t = 0; t < b->payload_plan.num_tensors; ++t) {
      tiles[t] = tp_input_producer_stage_tile(&s, t, 0);
    }
    /* The "TMA": announce the bytes, copy, and let them land. */
    tp_input_producer_stage_arrive_expect(&s);
    b->payload->cpu_load(&b->payload_plan, run->desc, m0, n0, it % b->payload_plan.k_blocks,
                         tiles);
    tp_mbar_complete_tx(tp_input_producer_stage_barrier(&s),
                        tp_input_producer_stage_expect_bytes(&s));
  }
  *pos = it + 1;
}

/* Moves prod from *pos to stage it (it >= *pos), past other workers'. */
static void skip_to(tp_input_producer *prod, int64_t *pos, int64_t it) {
  for (; *pos < it; ++*pos) tp_pipeline_producer_step(&prod->ip->pipe);
}

/* One worker: its share of the stages, its rows of every tile. */
static void run_worker(cpu_run *run, int32_t index) {
  const tp_binding *b = run->plan->binding;
  const tp_tile_config *tc = &b->payload_plan.tile;
  const int64_t k_blocks = b->payload_plan.k_blocks, total = run->num_tiles * k_blocks;
  const int64_t depth = run->plan->layout.stages;
  /* Whole panels of rows each: a panel split between two threads would be
   * multiplied by both. */
  const int32_t rows_each = ((tc->tile_m + run->workers - 1) / run->workers + TP_CPU_ROW_STEP -
                             1) / TP_CPU_ROW_STEP * TP_CPU_ROW_STEP;
  const int32_t r0 = index * rows_each;
  const int32_t rows = r0 >= tc->tile_m ? 0 : (tc->tile_m - r0 < rows_each ? tc->tile_m - r0 : rows_each);
  float *acc = rows > 0 ? run->acc + (size_t)r0 * (size_t)tc->tile_n : NULL;
  /* One copy of the pipeline holds both of this worker's views. */
  tp_input_pipeline ip = tp_storage_input_pipeline(run->smem, &run->plan->layout, 1);
  tp_input_producer prod = tp_input_pipeline_producer(&ip);
  tp_input_consumer cons = tp_input_pipeline_consumer(&ip, tp_arrival_thread());
  int64_t pos = 0, next = index; /* prod's position; the next stage of ours to fill */
  for (int64_t it = 0; it < total; ++it) {
    const int64_t tile = it / k_blocks, kb = it % k_blocks;
    /* Ours up to the ring's depth ahead: those whose slots are free now,
     * and the one consumed next whatever it waits for. */
    while (next < total && next < it + depth) {
      skip_to(&prod, &pos, next);
      const bool ready = tp_input_producer_try_acquire(&prod);
      if (!ready && next > it) break;
      produce(run, &prod, &pos, next, ready);
      next += run->workers;
    }
    if (kb == 0 && rows > 0) memset(acc, 0, sizeof(float) * (size_t)rows * (size_t)tc->tile_n);
    /* While another worker fills this stage, fill ours further ahead as
     * their slots come free; after TP_CPU_WAIT_PROBES probes without
     * either, wait on the barrier (which yields, then sleeps). */
    bool full = tp_input_consumer_try_acquire(&cons);
    for (int probes = 0; !full && probes < TP_CPU_WAIT_PROBES; ++probes) {
      if (next < total && next < it + depth) {
        skip_to(&prod, &pos, next);
        if (tp_input_producer_try_acquire(&prod)) {
          produce(run, &prod, &pos, next, true);
          next += run->workers;
          probes = 0;
        }
      }
      full = tp_input_consumer_try_acquire(&cons);
      if (!full) sched_yield();
    }
    TP_INPUT_CONSUME_IF_NEEDED(&cons, full, s) {
      if (rows > 0) {
        const void *tiles[TP_MAX_STAGE_TENSORS];
        for (uint32_t t = 0; t < b->payload_plan.num_tensors; ++t) {
          tiles[t] = tp_input_consumer_stage_tile(&s, t, 0);
        }
        b->payload->cpu_mma(&b->payload_plan, tiles, kb, r0, rows, acc, tc->tile_n);
      }
    }
    if (kb + 1 < k_blocks) continue;
    int64_t m0, n0;
    tile_origin(run, tile, &m0, &n0);
    int64_t valid_rows = run->desc->m - (m0 + r0);
    int64_t valid_cols = run->desc->n - n0;
    if (valid_rows > rows) valid_rows = rows;
    if (valid_cols > tc->tile_n) valid_cols = tc->tile_n;
    if (valid_rows > 0) {
      b->epilogue->cpu_apply(&b->epilogue_plan, run->desc, m0 + r0, n0, (int32_t)valid_rows,
                             (int32_t)valid_cols, acc, tc->tile_n);
    }
  }
  skip_to(&prod, &pos, total);
  tp_input_producer_drain(&prod);
  tp_input_consumer_drain(&cons);
}

static void *worker_thread(void *arg) {
  worker_arg *wa = arg;
  cpu_run *run = wa->run;
  while (atomic_load_explicit(&run->go, memory_order_acquire) == 0) sched_yield();
  run_worker(run, wa->index);
  return NULL;
}

/* A pool thread: worker `index` of every run handed over that has that
 * many workers, until the plan goes. */
static void *pool_thread(void *arg) {
  const pool_arg *pa = arg;
  cpu_pool *pool = pa->pool;
  uint64_t seen = 0;
  pthread_mutex_lock(&pool->lock);
  for (;;) {
    while (!pool->quit && pool->generation == seen) pthread_cond_wait(&pool->wake, &pool->lock);
    if (pool->quit) break;
    seen = pool->generation;
    cpu_run *run = pool->run;
    if (pa->index >= run->workers) continue;
    pthread_mutex_unlock(&pool->lock);
    run_worker(run, pa->index);
    pthread_mutex_lock(&pool->lock);
    if (--pool->busy == 0) pthread_cond_signal(&pool->done);
  }
  pthread_mutex_unlock(&pool->lock);
  return NULL;
}

/* Workers when the payload leaves them to the backend:
 * $TILEPIPE_CPU_THREADS when it is a number from 1 to TP_CPU_MAX_WORKERS
 * (anything else is ignored), else the cores this process may run on (its
 * affinity mask). */
static int32_t default_workers(void) {
  const char *want = getenv("TILEPIPE_CPU_THREADS");
  if (want != NULL && *want) {
    char *end;
    const long v = strtol(want, &end, 10);
    if (*end == '\0' && v >= 1 && v <= TP_CPU_MAX_WORKERS) return (int32_t)v;
  }
  cpu_set_t set;
  return sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
}

tp_status tp_cpu_plan_create(tp_cpu_plan **out, const tp_binding *binding) {
  const tp_payload_plan *pp = &binding->payload_plan;
  const tp_tile_config *tc = &pp->tile;
  *out = NULL;
  if (tc->tile_m < 1 || tc->tile_n < 1 || tc->tile_k < 1 || tc->k_group_size > 1) {
    return tp_error_set(TP_ERR_PLUGIN,
                        "payload '%s' planned tile %dx%dx%d with k_group_size %d for the CPU "
                        "(needs positive sizes and k_group_size 1)",
                        binding->payload_name, tc->tile_m, tc->tile_n, tc->tile_k, tc->k_group_size);
  }
  tp_cpu_plan *plan = calloc(1, sizeof *plan);
  if (plan == NULL) return tp_error_set(TP_ERR_OUT_OF_MEMORY, "CPU plan: out of host memory");
  plan->binding = binding;
  plan->workers = tc->consumers < 1 ? default_workers() : tc->consumers;
  if (plan->workers > TP_CPU_MAX_WORKERS) plan->workers = TP_CPU_MAX_WORKERS;

  tp_storage_request req = tp_storage_request_make(TP_CPU_SMEM_BUDGET);
  req.num_tensors = pp->num_tensors;
  memcpy(req.tensors, pp->tensors, sizeof req.tensors);
  req.stages = tc->stages > 0 ? (uint32_t)tc->stages : TP_CPU_DEFAULT_STAGES;
  tp_status st = tp_storage_plan(&req, &plan->layout);
  if (st != TP_OK) {
    const char *why = plan->layout.error;
    free(plan);
    return tp_error_set(TP_ERR_PLUGIN, "payload '%s': %s", binding->payload_name, why);
  }
  plan->pool = calloc(1, sizeof *plan->pool);
  if (plan->pool == NULL) {
    free(plan);
    return tp_error_set(TP_ERR_OUT_OF_MEMORY, "CPU plan: out of host memory");
  }
  pthread_mutex_init(&plan->pool->owner, NULL);
  pthread_mutex_init(&plan->pool->lock, NULL);
  pthread_cond_init(&plan->pool->wake, NULL);
  pthread_cond_init(&plan->pool->done, NULL);
  *out = plan;
  return TP_OK;
}

/* Starts workers 1 .. wanted - 1 (the caller is worker 0); on a failure
 * runs with those that started (rows and stages are shared out among the
 * workers that exist). */
static void start_workers(cpu_run *run, worker_arg *args, int32_t wanted) {
  run->workers = 1;
  for (int32_t i = 1; i < wanted; ++i) {
    args[i].run = run;
    args[i].index = i;
    if (pthread_create(&args[i].thread, NULL, worker_thread, &args[i]) != 0) break;
    run->workers = i + 1;
  }
}

/* The run's stages and its tile of f32 accumulators (tile_m x tile_n, shared
 * out by rows among the consumers, however many start). */
static tp_status run_memory_create(cpu_run *run) {
  const tp_tile_config *tc = &run->plan->binding->payload_plan.tile;
  const size_t smem_bytes = (run->plan->layout.total_bytes + TP_SWIZZLE_128B_ALIGN - 1) /
                            TP_SWIZZLE_128B_ALIGN * TP_SWIZZLE_128B_ALIGN;
  const size_t acc_elems = (size_t)tc->tile_m * (size_t)tc->tile_n;
  if ((size_t)tc->tile_n > SIZE_MAX / (size_t)tc->tile_m ||
      acc_elems > SIZE_MAX / sizeof(float)) {
    return tp_error_set(TP_ERR_OUT_OF_MEMORY,
                        "CPU run: the accumulators of a %dx%d tile exceed the address space",
                        tc->tile_m, tc->tile_n);
  }
  run->smem = aligned_alloc(TP_SWIZZLE_128B_ALIGN, smem_bytes);
  if (run->smem == NULL) {
    return tp_error_set(TP_ERR_OUT_OF_MEMORY, "CPU run: no host memory for %zu bytes of stages",
                        smem_bytes);
  }
  run->acc = malloc(acc_elems * sizeof(float));
  if (run->acc == NULL) {
    free(run->smem);
    run->smem = NULL;
    return tp_error_set(TP_ERR_OUT_OF_MEMORY,
                        "CPU run: no host memory for the accumulators of a %dx%d tile (%zu bytes)",
                        tc->tile_m, tc->tile_n, acc_elems * sizeof(float));
  }
  return TP_OK;
}

/* Runs `run` on the plan's pool (whose owner lock the caller holds) with
 * up to `wanted` workers, starting the threads it lacks (on a failure,
 * with those that exist). */
static void pool_run(const tp_cpu_plan *plan, cpu_run *run, int32_t wanted) {
  cpu_pool *pool = plan->pool;
  if (pool->started == 0) pool->pid = getpid();
  while (pool->started + 1 < wanted) {
    pool_arg *pa = &pool->args[pool->started];
    pa->pool = pool;
    pa->index = pool->started + 1;
    if (pthread_create(&pool->threads[pool->started], NULL, pool_thread, pa) != 0) break;
    pool->started++;
  }
  run->workers = wanted < pool->started + 1 ? wanted : pool->started + 1;
  tp_input_pipeline_init_barriers(tp_storage_mbar(run->smem, plan->layout.input_barriers),
                                  plan->layout.stages, (uint32_t)run->workers);
  pthread_mutex_lock(&pool->lock);
  pool->run = run;
  pool->busy = run->workers - 1;
  pool->generation++;
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->lock);
  run_worker(run, 0);
  pthread_mutex_lock(&pool->lock);
  while (pool->busy > 0) pthread_cond_wait(&pool->done, &pool->lock);
  pool->run = NULL;
  pthread_mutex_unlock(&pool->lock);
}

tp_status tp_cpu_plan_run(const tp_cpu_plan *plan, const tp_gemm_desc *desc) {
  const tp_tile_config *tc = &plan->binding->payload_plan.tile;
  cpu_run run;
  memset(&run, 0, sizeof run);
  run.plan = plan;
  run.desc = desc;
  run.tiles_n = (desc->n + tc->tile_n - 1) / tc->tile_n;
  run.num_tiles = ((desc->m + tc->tile_m - 1) / tc->tile_m) * run.tiles_n;
  atomic_init(&run.go, 0);
  tp_status st = run_memory_create(&run);
  if (st != TP_OK) return st;

  /* No more workers than the rows' panels or the stages to fill, whichever
   * is larger: each has rows to multiply or stages to pack. */
  const int64_t panels = (tc->tile_m + TP_CPU_ROW_STEP - 1) / TP_CPU_ROW_STEP;
  const int64_t fills = run.num_tiles * plan->binding->payload_plan.k_blocks;
  int32_t wanted = plan->workers;
  if (wanted > panels && wanted > fills) wanted = (int32_t)(panels > fills ? panels : fills);
  cpu_pool *pool = plan->pool;
  if (pthread_mutex_trylock(&pool->owner) == 0) {
    if (pool->started > 0 && pool->pid != getpid()) {
      /* A forked child: its parent's threads are not here to join. */
      pthread_mutex_unlock(&pool->owner);
    } else {
      pool_run(plan, &run, wanted);
      pthread_mutex_unlock(&pool->owner);
      free(run.acc);
      free(run.smem);
      return TP_OK;
    }
  }
  worker_arg args[TP_CPU_MAX_WORKERS];
  start_workers(&run, args, wanted);
  /* Barrier counts depend on how many workers really started. */
  tp_input_pipeline_init_barriers(tp_storage_mbar(run.smem, plan->layout.input_barriers),
                                  plan->layout.stages, (uint32_t)run.workers);
  atomic_store_explicit(&run.go, 1, memory_order_release);
  run_worker(&run, 0);
  for (int32_t i = 1; i < run.workers; ++i) pthread_join(args[i].thread, NULL);
  free(run.acc);
  free(run.smem);
  return st;
}

int tp_cpu_plan_describe(const tp_cpu_plan *plan, char *buf, size_t size) {
  return snprintf(buf, size, "%u stages of %u bytes, %d worker threads", plan->layout.stages,
                  plan->layout.expect_bytes, plan->workers);
}

void tp_cpu_plan_destroy(tp_cpu_plan *plan) {
  if (plan == NULL) return;
  cpu_pool *pool = plan->pool;
  pthread_mutex_lock(&pool->lock);
  pool->quit = 1;
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->lock);
  /* A forked child's pool has no threads of its own to join. */
  if (pool->pid == getpid())
    for (int32_t i = 0; i < pool->started; ++i) pthread_join(pool->threads[i], NULL);
  pthread_cond_destroy(&pool->done);
  pthread_cond_destroy(&pool->wake);
  pthread_mutex_destroy(&pool->lock);
  pthread_mutex_destroy(&pool->owner);
  free(pool);
  free(plan);
}
