/* tests/test_pipeline_host.c: the pipeline core on the host mbarrier.
 *
 * Threads stand in for warps. Every hand-off carries strictly increasing
 * values, so a stale read (an old value), a lost hand-off (a skipped value)
 * and a duplicated one (a repeated value) all show as a mismatch, also
 * across phase wraps. Built with TP_PIPELINE_DEBUG=1: every misuse the debug
 * check must catch runs in a child that must die of SIGABRT, and where the
 * message matters a second child's stderr is read back.
 *
 * Sizes: each stage count (1, 2, 3, 4, 8) moves 1,008,000 items through the
 * input pipeline, spread over 1..4 consumers x k_group_size 1, 2, 4 (84,000
 * items each); the other pipelines move 200,000 per stage count. Under
 * ThreadSanitizer (CI runs it on 2 cores) half of each: 504,000 input
 * items per stage count. */
#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tilepipe/internal/pipeline/storage.h"

#if defined(__SANITIZE_THREAD__)
#define TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TSAN 1
#endif
#endif
#ifndef TSAN
#define TSAN 0
#endif

/* ThreadSanitizer runs the hand-offs 4-5x slower: half the items keeps
 * the whole program near 20 s on 2 cores (40 s unscaled). */
#define SCALE(n) (TSAN ? (n) / 2u : (n))
#define ITEMS_PER_COMBO SCALE(84000u) /* x 12 combos per stage count */
#define SMALL_ITEMS SCALE(200000u)

static const uint32_t kStageCounts[] = {1, 2, 3, 4, 8};
#define NUM_STAGE_COUNTS (sizeof kStageCounts / sizeof kStageCounts[0])

/* ---------------------------------------------------------------- arena */

/* Host "shared memory": the planner's layout in a 1024-aligned buffer. */
typedef struct arena {
  unsigned char *base;
  tp_storage_layout L;
} arena;

static void arena_open(arena *a, const tp_storage_request *r) {
  tp_status st = tp_storage_plan(r, &a->L);
  ck_assert_msg(st == TP_OK, "plan failed: %s", a->L.error ? a->L.error : "?");
  size_t bytes = (a->L.total_bytes + 1023u) / 1024u * 1024u;
  a->base = aligned_alloc(1024, bytes);
  ck_assert_ptr_nonnull(a->base);
  memset(a->base, 0, bytes);
}

static void arena_close(arena *a) { free(a->base); }

static void spawn(pthread_t *t, void *(*fn)(void *), void *arg) {
  ck_assert_int_eq(pthread_create(t, NULL, fn, arg), 0);
}

static void join(pthread_t t) { ck_assert_int_eq(pthread_join(t, NULL), 0); }

/* Word w of tensor t of item v: distinct per item, tensor and word. */
static uint32_t item_word(uint32_t v, uint32_t t, uint32_t w) { return v * 131u + t * 17u + w; }

/* The host "TMA": copy a tile in, then tell the barrier its bytes landed. */
static void tma_load(void *dst, const void *src, uint32_t bytes, tp_mbar *bar) {
  memcpy(dst, src, bytes);
  tp_mbar_complete_tx(bar, bytes);
}

/* ------------------------------------------------- input / epi hand-off */

typedef struct handoff {
  unsigned char *base;
  const tp_storage_layout *L;
  bool epi;              /* the source (epi-load) ring over the output chunks instead */
  uint32_t items;        /* k-blocks */
  tp_arrival arrival;    /* how consumers release */
} handoff;

typedef struct consumer_run {
  const handoff *h;
  uint32_t seen, bad, first_bad;
} consumer_run;

static tp_input_pipeline handoff_pipeline(const handoff *h) {
  return h->epi ? tp_storage_epi_load_pipeline(h->base, h->L)
                : tp_storage_input_pipeline(h->base, h->L, 1);
}

/* Loads item v's tiles (j of the stage) through the "TMA". */
static void load_item(const tp_input_producer_stage *s, uint32_t j, uint32_t v) {
  uint32_t src[64];
  const tp_tile_payload *p = &s->ip->payload;
  for (uint32_t t = 0; t < p->num_tensors; ++t) {
    uint32_t words = p->tensors[t].bytes / 4u;
    for (uint32_t w = 0; w < words; ++w) src[w] = item_word(v, t, w);
    tma_load(tp_input_producer_stage_tile(s, t, j), src, p->tensors[t].bytes,
             tp_input_producer_stage_barrier(s));
  }
}

/* Fills one stage; `when` is where the expect_tx goes relative to the
 * bytes: 0 before all of them, 1 after all, 2 in the middle (before the
 * second half of the k-blocks; with one k-block, before it). */
static void fill_stage(const tp_input_producer_stage *s, uint32_t first, uint32_t when) {
  uint32_t k = s->ip->payload.k_group_size;
  if (when == 0) tp_input_producer_stage_arrive_expect(s);
  for (uint32_t j = 0; j < k; ++j) {
    if (when == 2 && j == k / 2) tp_input_producer_stage_arrive_expect(s);
    load_item(s, j, first + j);
  }
  if (when == 1) tp_input_producer_stage_arrive_expect(s);
}

static void *handoff_producer(void *arg) {
  const handoff *h = arg;
  tp_input_pipeline ip = handoff_pipeline(h);
  tp_input_producer prod = tp_input_pipeline_producer(&ip);
  uint32_t k = h->L->k_group_size;
  for (uint32_t g = 0; g * k < h->items; ++g) {
    uint32_t first = g * k + 1;
    switch (g % 4) {
    case 0:
      TP_INPUT_PRODUCE(&prod, s) { fill_stage(&s, first, 0); }
      break;
    case 1: {
      tp_input_producer_stage s = tp_input_producer_acquire_stage(&prod);
      fill_stage(&s, first, 1);
      tp_input_producer_stage_release(&s);
      break;
    }
    case 2: {
      bool ready = tp_input_producer_try_acquire(&prod);
      tp_input_producer_stage s = tp_input_producer_acquire_if_needed(&prod, ready);
      fill_stage(&s, first, 2);
      tp_input_producer_stage_release(&s);
      break;
    }
    default: {
      bool ready = tp_input_producer_try_acquire(&prod);
      TP_INPUT_PRODUCE_IF_NEEDED(&prod, ready, s) { fill_stage(&s, first, 1); }
    }
    }
  }
  tp_input_producer_drain(&prod);
  return NULL;
}

static void check_stage(consumer_run *r, const tp_input_consumer_stage *s) {
  const tp_tile_payload *p = &s->ip->payload;
  for (uint32_t j = 0; j < p->k_group_size; ++j) {
    uint32_t v = ++r->seen;
    for (uint32_t t = 0; t < p->num_tensors; ++t) {
      const uint32_t *tile = tp_input_consumer_stage_tile(s, t, j);
      for (uint32_t w = 0; w < p->tensors[t].bytes / 4u; ++w) {
        if (tile[w] != item_word(v, t, w)) {
          if (r->bad++ == 0) r->first_bad = v;
        }
      }
    }
  }
}

static void *handoff_consumer(void *arg) {
  consumer_run *r = arg;
  const handoff *h = r->h;
  tp_input_pipeline ip = handoff_pipeline(h);
  tp_input_consumer cons = tp_input_pipeline_consumer(&ip, h->arrival);
  uint32_t k = h->L->k_group_size;
  for (uint32_t g = 0; g * k < h->items; ++g) {
    switch (g % 3) {
    case 0:
      TP_INPUT_CONSUME(&cons, s) { check_stage(r, &s); }
      break;
    case 1: {
      tp_input_consumer_stage s = tp_input_consumer_acquire_stage(&cons);
      check_stage(r, &s);
      tp_input_consumer_stage_release(&s);
      break;
    }
    default: {
      bool ready = tp_input_consumer_try_acquire(&cons);
      TP_INPUT_CONSUME_IF_NEEDED(&cons, ready, s) { check_stage(r, &s); }
    }
    }
  }
  tp_input_consumer_drain(&cons);
  return NULL;
}

/* Moves `items` k-blocks from one producer to `consumers` consumers. */
static void run_handoff(bool epi, uint32_t stages, uint32_t consumers, uint32_t k, uint32_t items) {
  tp_storage_request r = tp_storage_request_make(1u << 20);
  r.stages = stages;
  tp_stage_tensor a = {64, 16}, b = {32, 128};
  if (epi) {
    /* The source ring's chunks are the output chunks (source_in_output). */
    r.num_tensors = 1;
    r.tensors[0] = a;
    r.output_chunk = b;
    r.output_stages = stages;
    r.source_in_output = 1;
    r.stages = 1;
  } else {
    r.num_tensors = 2;
    r.tensors[0] = a;
    r.tensors[1] = b;
    r.k_group_size = k;
  }
  arena ar;
  arena_open(&ar, &r);
  tp_storage_counts counts = {consumers, 1, consumers};
  tp_storage_init_barriers(ar.base, &ar.L, &counts);

  handoff h = {ar.base, &ar.L, epi, items, epi ? tp_arrival_warp() : tp_arrival_thread()};
  consumer_run runs[4];
  pthread_t threads[5];
  for (uint32_t c = 0; c < consumers; ++c) {
    runs[c] = (consumer_run){&h, 0, 0, 0};
    spawn(&threads[1 + c], handoff_consumer, &runs[c]);
  }
  spawn(&threads[0], handoff_producer, &h);
  for (uint32_t i = 0; i < 1 + consumers; ++i) join(threads[i]);
  for (uint32_t c = 0; c < consumers; ++c) {
    ck_assert_msg(runs[c].bad == 0,
                  "%s, %u stages, %u consumers, k_group %u: consumer %u saw %u bad words, "
                  "first at item %u",
                  epi ? "epi-load" : "input", stages, consumers, k, c, runs[c].bad,
                  runs[c].first_bad);
    ck_assert_uint_eq(runs[c].seen, items);
  }
  arena_close(&ar);
}

/* One stage count: every consumer count x k_group_size. */
START_TEST(input_handoff) {
  uint32_t stages = kStageCounts[_i];
  static const uint32_t groups[] = {1, 2, 4};
  for (uint32_t consumers = 1; consumers <= 4; ++consumers)
    for (uint32_t g = 0; g < 3; ++g) run_handoff(false, stages, consumers, groups[g], ITEMS_PER_COMBO);
}
END_TEST

START_TEST(epi_load_handoff) {
  for (uint32_t readers = 1; readers <= 4; ++readers)
    run_handoff(true, kStageCounts[_i], readers, 1, SMALL_ITEMS / 4);
}
END_TEST

/* A stage filled in part: the full phase completes on exactly the bytes
 * announced, not before. */
START_TEST(input_partial_stage) {
  tp_mbar bars[4];
  uint32_t a[8], b[16], src[8] = {1, 2, 3, 4, 5, 6, 7, 8}; /* 2 stages of 16 and 32 bytes */
  tp_tile_payload payload = {2, 1, {{(unsigned char *)a, 16, 16}, {(unsigned char *)b, 32, 32}}};
  tp_input_pipeline_init_barriers(bars, 2, 1);
  tp_input_pipeline ip = tp_input_pipeline_make(bars, 2, &payload, 1), ic = ip;
  tp_input_producer prod = tp_input_pipeline_producer(&ip);
  tp_input_consumer cons = tp_input_pipeline_consumer(&ic, tp_arrival_thread());
  ck_assert_uint_eq(ip.expect_bytes, 48);
  TP_INPUT_PRODUCE(&prod, s) {
    tp_input_producer_stage_arrive_expect_bytes(&s, 16); /* tensor 1 stays unloaded */
    ck_assert(!tp_input_consumer_try_acquire(&cons));
    tma_load(tp_input_producer_stage_tile(&s, 0, 0), src, 16, tp_input_producer_stage_barrier(&s));
  }
  ck_assert(tp_input_consumer_try_acquire(&cons));
  TP_INPUT_CONSUME(&cons, c) {
    ck_assert_mem_eq(tp_input_consumer_stage_tile(&c, 0, 0), src, 16);
  }
  /* The whole announced: 16 bytes landed of 48 do not complete it. */
  TP_INPUT_PRODUCE(&prod, s) {
    tp_input_producer_stage_arrive_expect(&s);
    tma_load(tp_input_producer_stage_tile(&s, 0, 0), src, 16, tp_input_producer_stage_barrier(&s));
    ck_assert(!tp_input_consumer_try_acquire(&cons));
    tma_load(tp_input_producer_stage_tile(&s, 1, 0), src, 32, tp_input_producer_stage_barrier(&s));
  }
  ck_assert(tp_input_consumer_try_acquire(&cons));
  TP_INPUT_CONSUME(&cons, c) {}
  tp_input_producer_drain(&prod);
  tp_input_consumer_drain(&cons);
}
END_TEST

/* ------------------------------------------------------ output ring */

/* Writers ("consumer warps") each fill their part of a chunk; the store
 * thread checks the whole chunk, "stores" it to global memory and frees it. */
#define PART_WORDS 16u

typedef struct output_run {
  unsigned char *base;
  const tp_storage_layout *L;
  uint32_t writers, items;
  uint32_t *global; /* items x writers x PART_WORDS */
  uint32_t bad;
} output_run;

typedef struct writer_arg {
  output_run *o;
  uint32_t w;
} writer_arg;

static void *output_writer(void *arg) {
  writer_arg *wa = arg;
  output_run *o = wa->o;
  tp_output_pipeline op = tp_storage_output_pipeline(o->base, o->L);
  tp_output_writer wr = tp_output_pipeline_writer(&op, tp_arrival_warp());
  for (uint32_t v = 1; v <= o->items; ++v) {
    if (v % 2) {
      TP_OUTPUT_WRITE(&wr, s) {
        uint32_t *part = (uint32_t *)tp_output_write_stage_tile(&s) + wa->w * PART_WORDS;
        for (uint32_t i = 0; i < PART_WORDS; ++i) part[i] = item_word(v, wa->w, i);
      }
    } else {
      bool ready = tp_output_writer_try_acquire(&wr);
      tp_output_write_stage s = tp_output_writer_acquire_if_needed(&wr, ready);
      uint32_t *part = (uint32_t *)tp_output_write_stage_tile(&s) + wa->w * PART_WORDS;
      for (uint32_t i = 0; i < PART_WORDS; ++i) part[i] = item_word(v, wa->w, i);
      tp_output_write_stage_release(&s);
    }
  }
  tp_output_writer_drain(&wr);
  return NULL;
}

static void *output_store(void *arg) {
  output_run *o = arg;
  tp_output_pipeline op = tp_storage_output_pipeline(o->base, o->L);
  tp_output_store st = tp_output_pipeline_store(&op);
  size_t chunk_words = (size_t)o->writers * PART_WORDS;
  for (uint32_t v = 1; v <= o->items; ++v) {
    bool ready = v % 3 == 0 && tp_output_store_try_acquire(&st);
    tp_output_store_stage s = tp_output_store_acquire_if_needed(&st, ready);
    const uint32_t *chunk = tp_output_store_stage_tile(&s);
    for (uint32_t w = 0; w < o->writers; ++w)
      for (uint32_t i = 0; i < PART_WORDS; ++i)
        o->bad += chunk[w * PART_WORDS + i] != item_word(v, w, i);
    memcpy(o->global + (v - 1) * chunk_words, chunk, chunk_words * 4u); /* the TMA store */
    tp_output_store_stage_release(&s);
  }
  tp_output_store_drain(&st);
  return NULL;
}

START_TEST(output_handoff) {
  uint32_t stages = kStageCounts[_i];
  for (uint32_t writers = 1; writers <= 4; ++writers) {
    tp_storage_request r = tp_storage_request_make(1u << 20);
    r.num_tensors = 1;
    r.tensors[0] = (tp_stage_tensor){16, 16};
    r.output_chunk = (tp_stage_tensor){writers * PART_WORDS * 4u, 1024};
    r.output_stages = stages;
    arena ar;
    arena_open(&ar, &r);
    tp_storage_counts counts = {1, writers, 1};
    tp_storage_init_barriers(ar.base, &ar.L, &counts);
    uint32_t items = SMALL_ITEMS / 4;
    output_run o = {ar.base, &ar.L, writers, items, NULL, 0};
    o.global = calloc((size_t)items * writers * PART_WORDS, 4);
    ck_assert_ptr_nonnull(o.global);
    writer_arg wa[4];
    pthread_t threads[5];
    spawn(&threads[0], output_store, &o);
    for (uint32_t w = 0; w < writers; ++w) {
      wa[w] = (writer_arg){&o, w};
      spawn(&threads[1 + w], output_writer, &wa[w]);
    }
    for (uint32_t i = 0; i <= writers; ++i) join(threads[i]);
    ck_assert_msg(o.bad == 0, "%u stages, %u writers: the store saw %u bad words", stages, writers,
                  o.bad);
    /* Counted, not asserted per word: each Check assertion is a syscall. */
    uint32_t stored_bad = 0;
    for (uint32_t v = 1; v <= items; ++v)
      for (uint32_t w = 0; w < writers; ++w)
        for (uint32_t i = 0; i < PART_WORDS; ++i)
          stored_bad += o.global[((size_t)(v - 1) * writers + w) * PART_WORDS + i] !=
                        item_word(v, w, i);
    ck_assert_msg(stored_bad == 0, "%u stages, %u writers: %u bad words in global memory", stages,
                  writers, stored_bad);
    free(o.global);
    arena_close(&ar);
  }
}
END_TEST

/* ------------------------------------------ C in the output chunks */

/* The standard kernel's epilogue ring (storage's source_in_output): a
 * chunk goes round C loader -> writers (read C, write D over it) -> store
 * -> C loader. The store, not the writers, frees a chunk for the next C, so
 * C never lands on a chunk the store has not read, and every chunk of the
 * ring prefetches C. Chunk v's C word i is item_word(v, 0, i), its D word
 * item_word(v, 1, i): a writer reading D where C should be, or the store
 * reading C where D should be, counts as bad. */
typedef struct shared_ring_run {
  unsigned char *base;
  const tp_storage_layout *L;
  uint32_t writers, items;
  uint32_t *global;          /* items x writers x PART_WORDS */
  _Atomic uint32_t bad_c;    /* writers: wrong C */
  uint32_t bad_d;            /* store: wrong D */
} shared_ring_run;

typedef struct ring_writer_arg {
  shared_ring_run *o;
  uint32_t w;
} ring_writer_arg;

static void *ring_c_loader(void *arg) {
  shared_ring_run *o = arg;
  tp_input_pipeline ep = tp_storage_epi_load_pipeline(o->base, o->L);
  tp_input_producer prod = tp_input_pipeline_producer(&ep);
  for (uint32_t v = 1; v <= o->items; ++v) {
    TP_INPUT_PRODUCE(&prod, s) { fill_stage(&s, v, 0); } /* C word i: item_word(v, 0, i) */
  }
  tp_input_producer_drain(&prod);
  return NULL;
}

static void *ring_writer(void *arg) {
  ring_writer_arg *wa = arg;
  shared_ring_run *o = wa->o;
  tp_input_pipeline ep = tp_storage_epi_load_pipeline(o->base, o->L);
  tp_input_consumer src = tp_input_pipeline_consumer(&ep, tp_arrival_warp());
  tp_output_pipeline op = tp_storage_output_pipeline(o->base, o->L);
  tp_output_writer wr = tp_output_pipeline_writer(&op, tp_arrival_warp());
  uint32_t bad = 0;
  for (uint32_t v = 1; v <= o->items; ++v) {
    tp_input_consumer_stage in = tp_input_consumer_acquire_stage(&src);
    tp_output_write_stage out = tp_output_writer_acquire_stage(&wr);
    uint32_t *chunk = tp_output_write_stage_tile(&out);
    bad += chunk != (uint32_t *)tp_input_consumer_stage_tile(&in, 0, 0);
    for (uint32_t i = wa->w * PART_WORDS; i < (wa->w + 1) * PART_WORDS; ++i) {
      bad += chunk[i] != item_word(v, 0, i);
      chunk[i] = item_word(v, 1, i);
    }
    tp_output_write_stage_release(&out);
    tp_input_consumer_stage_release_without_signal(&in); /* the store frees it */
  }
  tp_output_writer_drain(&wr);
  atomic_fetch_add(&o->bad_c, bad);
  return NULL;
}

static void *ring_store(void *arg) {
  shared_ring_run *o = arg;
  tp_output_pipeline op = tp_storage_output_pipeline(o->base, o->L);
  tp_output_store st = tp_output_pipeline_store(&op);
  tp_input_pipeline ep = tp_storage_epi_load_pipeline(o->base, o->L);
  tp_input_consumer freer = tp_input_pipeline_consumer(&ep, tp_arrival_thread());
  const uint32_t words = o->writers * PART_WORDS;
  for (uint32_t v = 1; v <= o->items; ++v) {
    TP_OUTPUT_STORE(&st, s) {
      const uint32_t *chunk = tp_output_store_stage_tile(&s);
      for (uint32_t i = 0; i < words; ++i) o->bad_d += chunk[i] != item_word(v, 1, i);
      memcpy(o->global + (size_t)(v - 1) * words, chunk, words * 4u); /* the TMA store */
    }
    TP_INPUT_CONSUME(&freer, freed) {}
  }
  tp_output_store_drain(&st);
  return NULL;
}

START_TEST(source_in_output_ring) {
  const uint32_t stages = kStageCounts[_i];
  static const uint32_t writer_counts[] = {1, 4};
  for (size_t c = 0; c < 2; ++c) {
    const uint32_t writers = writer_counts[c];
    tp_storage_request r = tp_storage_request_make(1u << 20);
    r.num_tensors = 1;
    r.tensors[0] = (tp_stage_tensor){16, 16};
    r.output_chunk = (tp_stage_tensor){writers * PART_WORDS * 4u, 1024};
    r.output_stages = stages;
    r.source_in_output = 1;
    arena ar;
    arena_open(&ar, &r);
    ck_assert_uint_eq(ar.L.source_stages, stages);
    tp_storage_counts counts = {1, writers, 1}; /* source empty: the store alone */
    tp_storage_init_barriers(ar.base, &ar.L, &counts);
    const uint32_t items = SMALL_ITEMS / 8;
    shared_ring_run o = {ar.base, &ar.L, writers, items, NULL, 0, 0};
    o.global = calloc((size_t)items * writers * PART_WORDS, 4);
    ck_assert_ptr_nonnull(o.global);
    ring_writer_arg wa[4];
    pthread_t threads[6];
    spawn(&threads[0], ring_c_loader, &o);
    spawn(&threads[1], ring_store, &o);
    for (uint32_t w = 0; w < writers; ++w) {
      wa[w] = (ring_writer_arg){&o, w};
      spawn(&threads[2 + w], ring_writer, &wa[w]);
    }
    for (uint32_t i = 0; i < 2 + writers; ++i) join(threads[i]);
    ck_assert_msg(atomic_load(&o.bad_c) == 0, "%u chunks, %u writers: writers saw %u bad C words",
                  stages, writers, atomic_load(&o.bad_c));
    ck_assert_msg(o.bad_d == 0, "%u chunks, %u writers: the store saw %u bad D words", stages,
                  writers, o.bad_d);
    uint32_t stored_bad = 0;
    for (size_t i = 0; i < (size_t)items * writers * PART_WORDS; ++i) {
      const uint32_t v = (uint32_t)(i / (writers * PART_WORDS)) + 1u;
      stored_bad += o.global[i] != item_word(v, 1, (uint32_t)(i % (writers * PART_WORDS)));
    }
    ck_assert_msg(stored_bad == 0, "%u chunks, %u writers: %u bad words in global memory", stages,
                  writers, stored_bad);
    free(o.global);
    arena_close(&ar);
  }
}
END_TEST

/* ------------------------------------------------------ load order */

#define ORDER_LOAD_TILES SCALE(200000u)

typedef struct load_order_run {
  tp_load_order lo;
  _Atomic uint32_t issued; /* tiles whose prologue the main loader issued */
  uint32_t tiles, bad;
  bool slow_c_loader;
} load_order_run;

static void *main_loader(void *arg) {
  load_order_run *r = arg;
  for (uint32_t t = 0; t < r->tiles; ++t) {
    atomic_store_explicit(&r->issued, t + 1, memory_order_relaxed);
    tp_load_order_signal(&r->lo);
  }
  return NULL;
}

static void *c_loader(void *arg) {
  load_order_run *r = arg;
  for (uint32_t t = 0; t < r->tiles; ++t) {
    if (r->slow_c_loader && t % 64 == 0) nanosleep(&(struct timespec){0, 50000}, NULL);
    if (t % 2) (void)tp_load_order_try_wait(&r->lo);
    tp_load_order_wait(&r->lo);
    /* The barrier's release/acquire makes the prologue of tile t visible;
     * the main loader can be at most two prologues further. */
    uint32_t seen = atomic_load_explicit(&r->issued, memory_order_relaxed);
    r->bad += seen < t + 1 || seen > t + 3;
  }
  return NULL;
}

START_TEST(load_order_pairs) {
  tp_mbar bar;
  tp_load_order_init(&bar);
  load_order_run r = {tp_load_order_make(&bar), 0, ORDER_LOAD_TILES, 0, _i == 1};
  if (r.slow_c_loader) r.tiles /= 20;
  pthread_t a, b;
  spawn(&a, main_loader, &r);
  spawn(&b, c_loader, &r);
  join(a);
  join(b);
  ck_assert_uint_eq(r.bad, 0);
}
END_TEST

/* The shape that deadlocks a one-way load-order barrier: small K and many
 * input stages let the main loader run tiles ahead while the C loader waits
 * for consumers that wait for its C. Main loader: 1 k-block per tile into
 * an 8-stage input ring; C loader: 2 chunks per tile into a 1-stage ring;
 * consumer: per tile, the k-block, then both chunks, values checked. */
typedef struct kernel_run {
  unsigned char *base;
  const tp_storage_layout *L;
  uint32_t tiles, bad;
} kernel_run;

static void *kernel_main_loader(void *arg) {
  kernel_run *k = arg;
  tp_input_pipeline ip = tp_storage_input_pipeline(k->base, k->L, 1);
  tp_input_producer prod = tp_input_pipeline_producer(&ip);
  tp_load_order lo = tp_storage_load_order(k->base, k->L);
  for (uint32_t t = 0; t < k->tiles; ++t) {
    TP_INPUT_PRODUCE(&prod, s) { fill_stage(&s, t + 1, 0); }
    tp_load_order_signal(&lo);
  }
  tp_input_producer_drain(&prod);
  return NULL;
}

static void *kernel_c_loader(void *arg) {
  kernel_run *k = arg;
  tp_input_pipeline ep = tp_storage_epi_load_pipeline(k->base, k->L);
  tp_input_producer prod = tp_input_pipeline_producer(&ep);
  tp_load_order lo = tp_storage_load_order(k->base, k->L);
  for (uint32_t t = 0; t < k->tiles; ++t) {
    tp_load_order_wait(&lo);
    for (uint32_t c = 0; c < 2; ++c) {
      TP_INPUT_PRODUCE(&prod, s) { fill_stage(&s, 2 * t + c + 1, 1); }
    }
  }
  tp_input_producer_drain(&prod);
  return NULL;
}

static void *kernel_consumer(void *arg) {
  kernel_run *k = arg;
  tp_input_pipeline ip = tp_storage_input_pipeline(k->base, k->L, 1);
  tp_input_pipeline ep = tp_storage_epi_load_pipeline(k->base, k->L);
  tp_input_consumer in = tp_input_pipeline_consumer(&ip, tp_arrival_thread());
  tp_input_consumer src = tp_input_pipeline_consumer(&ep, tp_arrival_warp());
  consumer_run in_run = {NULL, 0, 0, 0}, src_run = {NULL, 0, 0, 0};
  for (uint32_t t = 0; t < k->tiles; ++t) {
    TP_INPUT_CONSUME(&in, s) { check_stage(&in_run, &s); }
    for (uint32_t c = 0; c < 2; ++c) {
      TP_INPUT_CONSUME(&src, s) { check_stage(&src_run, &s); }
    }
  }
  k->bad = in_run.bad + src_run.bad + (in_run.seen != k->tiles) + (src_run.seen != 2 * k->tiles);
  return NULL;
}

START_TEST(load_order_kernel_shape) {
  tp_storage_request r = tp_storage_request_make(1u << 20);
  r.num_tensors = 2;
  r.tensors[0] = (tp_stage_tensor){64, 16};
  r.tensors[1] = (tp_stage_tensor){32, 16};
  r.stages = 8;
  r.output_chunk = (tp_stage_tensor){64, 1024};
  r.output_stages = 1;
  r.source_in_output = 1;
  arena ar;
  arena_open(&ar, &r);
  tp_storage_counts counts = {1, 1, 1};
  tp_storage_init_barriers(ar.base, &ar.L, &counts);
  kernel_run k = {ar.base, &ar.L, SMALL_ITEMS / 2, 0};
  pthread_t t[3];
  spawn(&t[0], kernel_consumer, &k);
  spawn(&t[1], kernel_c_loader, &k);
  spawn(&t[2], kernel_main_loader, &k);
  for (int i = 0; i < 3; ++i) join(t[i]);
  ck_assert_uint_eq(k.bad, 0);
  arena_close(&ar);
}
END_TEST

/* ------------------------------------------------------ debug check */

/* Each misuse runs single-threaded on a 2-stage pipeline and must abort.
 * A filled stage for the consumer comes from a producer acquire with a
 * zero-byte expect (a plain arrival). */
typedef struct pipe2 {
  tp_mbar bars[4];
  tp_pipeline prod, cons;
} pipe2;

static void pipe2_open(pipe2 *p) {
  tp_barrier_pair_init(p->bars, 2, 1, 1);
  p->prod = tp_pipeline_make(p->bars, 2);
  p->cons = p->prod;
}

static void pipe2_fill(pipe2 *p) {
  tp_producer_stage s = tp_pipeline_acquire_producer(&p->prod);
  tp_mbar_arrive_expect_tx(tp_producer_stage_mbar(&s), 0);
  tp_producer_stage_release(&s);
}

static void misuse_producer_double_release(void) {
  pipe2 p;
  pipe2_open(&p);
  tp_producer_stage s = tp_pipeline_acquire_producer(&p.prod);
  tp_producer_stage_release(&s);
  tp_producer_stage_release(&s);
}

static void misuse_producer_copy_released_twice(void) {
  pipe2 p;
  pipe2_open(&p);
  tp_producer_stage s = tp_pipeline_acquire_producer(&p.prod);
  tp_producer_stage copy = s;
  tp_producer_stage_release(&s);
  tp_producer_stage_release(&copy);
}

static void misuse_producer_never_acquired(void) {
  tp_producer_stage s;
  memset(&s, 0, sizeof s);
  tp_producer_stage_release(&s);
}

static void misuse_consumer_double_release(void) {
  pipe2 p;
  pipe2_open(&p);
  pipe2_fill(&p);
  tp_consumer_stage c = tp_pipeline_acquire_consumer(&p.cons);
  tp_consumer_stage_release(&c);
  tp_consumer_stage_release(&c);
}

static void misuse_consumer_never_acquired(void) {
  tp_consumer_stage c;
  memset(&c, 0, sizeof c);
  tp_consumer_stage_release(&c);
}

static void misuse_out_of_order(void) {
  pipe2 p;
  pipe2_open(&p);
  pipe2_fill(&p);
  pipe2_fill(&p);
  tp_consumer_stage c0 = tp_pipeline_acquire_consumer(&p.cons);
  tp_consumer_stage c1 = tp_pipeline_acquire_consumer(&p.cons);
  tp_consumer_stage_release(&c1);
  tp_consumer_stage_release(&c0);
}

static void misuse_producer_acquires_too_many(void) {
  pipe2 p;
  pipe2_open(&p);
  tp_producer_stage s0 = tp_pipeline_acquire_producer(&p.prod);
  tp_producer_stage s1 = tp_pipeline_acquire_producer(&p.prod);
  tp_producer_stage s2 = tp_pipeline_acquire_producer(&p.prod);
  (void)s0, (void)s1, (void)s2;
}

static void misuse_consumer_acquires_too_many(void) {
  pipe2 p;
  pipe2_open(&p);
  pipe2_fill(&p);
  pipe2_fill(&p);
  tp_consumer_stage c0 = tp_pipeline_acquire_consumer(&p.cons);
  tp_consumer_stage c1 = tp_pipeline_acquire_consumer(&p.cons);
  tp_consumer_stage c2 = tp_pipeline_acquire_consumer(&p.cons);
  (void)c0, (void)c1, (void)c2;
}

static void misuse_producer_drains_holding(void) {
  pipe2 p;
  pipe2_open(&p);
  tp_producer_stage s = tp_pipeline_acquire_producer(&p.prod);
  (void)s;
  tp_pipeline_drain_producer(&p.prod);
}

static void misuse_consumer_drains_holding(void) {
  pipe2 p;
  pipe2_open(&p);
  pipe2_fill(&p);
  tp_consumer_stage c = tp_pipeline_acquire_consumer(&p.cons);
  (void)c;
  tp_pipeline_drain_consumer(&p.cons);
}

/* Leaving a scoped block with break skips its release. */
static void misuse_scoped_break(void) {
  tp_mbar bars[4];
  uint32_t tiles[8];
  tp_tile_payload payload = {1, 1, {{(unsigned char *)tiles, 16, 16}}};
  tp_input_pipeline_init_barriers(bars, 2, 1);
  tp_input_pipeline ip = tp_input_pipeline_make(bars, 2, &payload, 1);
  tp_input_producer prod = tp_input_pipeline_producer(&ip);
  for (int i = 0; i < 1; ++i) {
    TP_INPUT_PRODUCE(&prod, s) {
      tp_input_producer_stage_arrive_expect(&s);
      tp_mbar_complete_tx(tp_input_producer_stage_barrier(&s), 16);
      break;
    }
  }
  tp_input_producer_drain(&prod);
}

static void misuse_input_double_release(void) {
  tp_mbar bars[4];
  uint32_t tiles[8];
  tp_tile_payload payload = {1, 1, {{(unsigned char *)tiles, 16, 16}}};
  tp_input_pipeline_init_barriers(bars, 2, 1);
  tp_input_pipeline ip = tp_input_pipeline_make(bars, 2, &payload, 1);
  tp_input_pipeline ic = ip;
  tp_input_producer prod = tp_input_pipeline_producer(&ip);
  tp_input_consumer cons = tp_input_pipeline_consumer(&ic, tp_arrival_warp());
  TP_INPUT_PRODUCE(&prod, s) { tp_mbar_arrive_expect_tx(tp_input_producer_stage_barrier(&s), 0); }
  tp_input_consumer_stage c = tp_input_consumer_acquire_stage(&cons);
  tp_input_consumer_stage_release(&c);
  tp_input_consumer_stage_release(&c);
}

static void misuse_output_writer_double_release(void) {
  tp_mbar bars[4];
  uint32_t chunks[8];
  tp_tile_array ring = {(unsigned char *)chunks, 16, 16};
  tp_output_pipeline_init_barriers(bars, 2, 1);
  tp_output_pipeline op = tp_output_pipeline_make(bars, 2, ring);
  tp_output_writer wr = tp_output_pipeline_writer(&op, tp_arrival_warp());
  tp_output_write_stage s = tp_output_writer_acquire_stage(&wr);
  tp_output_write_stage_release(&s);
  tp_output_write_stage_release(&s);
}

static void misuse_output_writer_drains_holding(void) {
  tp_mbar bars[4];
  uint32_t chunks[8];
  tp_tile_array ring = {(unsigned char *)chunks, 16, 16};
  tp_output_pipeline_init_barriers(bars, 2, 1);
  tp_output_pipeline op = tp_output_pipeline_make(bars, 2, ring);
  tp_output_writer wr = tp_output_pipeline_writer(&op, tp_arrival_warp());
  tp_output_write_stage s = tp_output_writer_acquire_stage(&wr);
  (void)s;
  tp_output_writer_drain(&wr);
}

static void misuse_output_store_never_acquired(void) {
  tp_output_store_stage s;
  memset(&s, 0, sizeof s);
  tp_output_store_stage_release(&s);
}

static void misuse_mbar_tx_overflow(void) {
  tp_mbar b;
  tp_mbar_init(&b, 1);
  tp_mbar_expect_tx(&b, 1u << 20);
}

static void misuse_mbar_zero_count(void) {
  tp_mbar b;
  tp_mbar_init(&b, 0);
}

typedef struct misuse {
  const char *name;
  void (*fn)(void);
  const char *message; /* a part of what stderr must say */
} misuse;

static const misuse kMisuses[] = {
    {"producer double release", misuse_producer_double_release,
     "double release of a producer stage (acquisition #0)"},
    {"producer copy released twice", misuse_producer_copy_released_twice,
     "double release of a producer stage (acquisition #0, a copy released before)"},
    {"producer never acquired", misuse_producer_never_acquired,
     "release of a producer stage that was never acquired"},
    {"consumer double release", misuse_consumer_double_release,
     "double release of a consumer stage"},
    {"consumer never acquired", misuse_consumer_never_acquired,
     "release of a consumer stage that was never acquired"},
    {"out-of-order release", misuse_out_of_order,
     "out-of-order release of a consumer stage: acquisition #1 released before #0"},
    {"producer acquires too many", misuse_producer_acquires_too_many,
     "producer acquires a stage while all 2 stages are held"},
    {"consumer acquires too many", misuse_consumer_acquires_too_many,
     "consumer acquires a stage while all 2 stages are held"},
    {"producer drains holding", misuse_producer_drains_holding,
     "producer drains while 1 stage(s) are still held"},
    {"consumer drains holding", misuse_consumer_drains_holding,
     "consumer finishes while 1 stage(s) are still held"},
    {"scoped block left by break", misuse_scoped_break,
     "producer drains while 1 stage(s) are still held"},
    {"input consumer double release", misuse_input_double_release,
     "double release of a consumer stage"},
    {"output writer double release", misuse_output_writer_double_release,
     "double release of a producer stage"},
    {"output writer drains holding", misuse_output_writer_drains_holding,
     "output writer finishes while 1 chunk(s) are still held"},
    {"output store never acquired", misuse_output_store_never_acquired,
     "release of a consumer stage that was never acquired"},
    {"mbarrier transaction overflow", misuse_mbar_tx_overflow,
     "mbarrier transaction count 1048576 out of range"},
    {"mbarrier count 0", misuse_mbar_zero_count, "mbarrier init: arrival count 0 outside"},
};
#define NUM_MISUSES (int)(sizeof kMisuses / sizeof kMisuses[0])

/* Check runs this in a child and expects SIGABRT. */
START_TEST(misuse_aborts) {
  kMisuses[_i].fn();
  ck_abort_msg("%s: the debug check did not stop the program", kMisuses[_i].name);
}
END_TEST

/* Runs the misuse in a grandchild with stderr on a pipe; checks the signal
 * and the message. */
START_TEST(misuse_message) {
  const misuse *m = &kMisuses[_i];
  int fds[2];
  ck_assert_int_eq(pipe(fds), 0);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    dup2(fds[1], STDERR_FILENO);
    m->fn();
    _exit(0);
  }
  close(fds[1]);
  char text[4096];
  size_t len = 0;
  ssize_t got;
  while (len < sizeof text - 1 && (got = read(fds[0], text + len, sizeof text - 1 - len)) > 0)
    len += (size_t)got;
  text[len] = '\0';
  close(fds[0]);
  int status = 0;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
                "%s: the child was not stopped by SIGABRT (status 0x%x)", m->name, status);
  ck_assert_msg(strstr(text, "tilepipe pipeline: ") && strstr(text, m->message),
                "%s: stderr says \"%s\", expected \"%s\"", m->name, text, m->message);
}
END_TEST

/* ------------------------------------------------------------- main */

static Suite *pipeline_suite(void) {
  Suite *s = suite_create("pipeline_host");
  TCase *tc = tcase_create("handoff");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, input_handoff, 0, NUM_STAGE_COUNTS);
  tcase_add_loop_test(tc, epi_load_handoff, 0, NUM_STAGE_COUNTS);
  tcase_add_test(tc, input_partial_stage);
  tcase_add_loop_test(tc, output_handoff, 0, NUM_STAGE_COUNTS);
  tcase_add_loop_test(tc, source_in_output_ring, 0, NUM_STAGE_COUNTS);
  tcase_add_loop_test(tc, load_order_pairs, 0, 2);
  tcase_add_test(tc, load_order_kernel_shape);
  suite_add_tcase(s, tc);

  TCase *debug = tcase_create("debug_check");
  tcase_add_loop_test_raise_signal(debug, misuse_aborts, SIGABRT, 0, NUM_MISUSES);
  tcase_add_loop_test(debug, misuse_message, 0, NUM_MISUSES);
  suite_add_tcase(s, debug);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(pipeline_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
