/* tilepipe/internal/pipeline/mbarrier_host.h: the mbarrier emulated with C11 atomics.
 *
 * Host threads stand in for warps. The whole barrier state is one 64-bit word
 * so that every transition is one compare-and-swap:
 *
 *   bit  63      phase parity (the phase in progress)
 *   bits 42..62  transaction bytes still expected, 21-bit two's complement
 *                (PTX allows the count to dip below zero when bytes land
 *                before the expect_tx that announces them)
 *   bits 21..41  arrival count the barrier was initialised with
 *   bits  0..20  arrivals still pending in this phase
 *
 * A phase completes when pending arrivals and transaction bytes are both zero;
 * the arrival that completes it (or the complete_tx) flips the parity and
 * reloads the pending count in the same CAS. Arrive and complete_tx release;
 * a successful wait acquires, so whatever a producer wrote before arriving is
 * visible to a consumer after its wait (ThreadSanitizer sees the same edges).
 *
 * Extra checks the hardware does not make: arriving on a barrier with no
 * pending arrival aborts (a protocol error that would otherwise corrupt the
 * next phase), as does a transaction count leaving the 21-bit range. */
#ifndef TILEPIPE_INTERNAL_PIPELINE_MBARRIER_HOST_H
#define TILEPIPE_INTERNAL_PIPELINE_MBARRIER_HOST_H

#include <sched.h>
#include <stdatomic.h>
#include <threads.h>

#include "tilepipe/internal/pipeline/defs.h"

typedef struct tp_mbar {
  _Atomic uint64_t word;
} tp_mbar;

_Static_assert(sizeof(tp_mbar) == 8, "an mbarrier is 8 bytes on both backends");

#define TP_MBAR_FIELD_BITS 21u
#define TP_MBAR_FIELD_MASK ((1u << TP_MBAR_FIELD_BITS) - 1u)
#define TP_MBAR_MAX_COUNT TP_MBAR_FIELD_MASK
#define TP_MBAR_TX_LIMIT ((int32_t)(1u << (TP_MBAR_FIELD_BITS - 1u)))

TP_PIPE_FN uint32_t tp_mbar_host_pending(uint64_t w) { return (uint32_t)(w & TP_MBAR_FIELD_MASK); }
TP_PIPE_FN uint32_t tp_mbar_host_count(uint64_t w) {
  return (uint32_t)((w >> TP_MBAR_FIELD_BITS) & TP_MBAR_FIELD_MASK);
}
TP_PIPE_FN int32_t tp_mbar_host_tx(uint64_t w) {
  int32_t raw = (int32_t)((w >> (2u * TP_MBAR_FIELD_BITS)) & TP_MBAR_FIELD_MASK);
  return raw >= TP_MBAR_TX_LIMIT ? raw - (int32_t)(1u << TP_MBAR_FIELD_BITS) : raw;
}
TP_PIPE_FN uint32_t tp_mbar_host_phase(uint64_t w) { return (uint32_t)(w >> 63); }

TP_PIPE_FN uint64_t tp_mbar_host_pack(uint32_t phase, int32_t tx, uint32_t count, uint32_t pending) {
  uint64_t tx_bits = (uint64_t)((uint32_t)tx & TP_MBAR_FIELD_MASK);
  return ((uint64_t)phase << 63) | (tx_bits << (2u * TP_MBAR_FIELD_BITS)) |
         ((uint64_t)count << TP_MBAR_FIELD_BITS) | (uint64_t)pending;
}

/* The state after `arrivals` arrivals and `tx_delta` transaction bytes
 * (positive: expected, negative: landed), completing the phase if it is due. */
TP_PIPE_FN uint64_t tp_mbar_host_step(uint64_t w, uint32_t arrivals, int32_t tx_delta) {
  uint32_t pending = tp_mbar_host_pending(w);
  uint32_t count = tp_mbar_host_count(w);
  uint32_t phase = tp_mbar_host_phase(w);
  int32_t tx = tp_mbar_host_tx(w) + tx_delta;
  if (arrivals > pending) {
    TP_PIPE_FAIL("mbarrier %s: %u arrival(s) on a barrier with %u pending (count %u)",
                 "arrive", arrivals, pending, count);
  }
  if (tx >= TP_MBAR_TX_LIMIT || tx <= -TP_MBAR_TX_LIMIT) {
    TP_PIPE_FAIL("mbarrier transaction count %d out of range", tx);
  }
  pending -= arrivals;
  if (pending == 0 && tx == 0) {
    return tp_mbar_host_pack(phase ^ 1u, 0, count, count);
  }
  return tp_mbar_host_pack(phase, tx, count, pending);
}

TP_PIPE_FN void tp_mbar_host_update(tp_mbar *b, uint32_t arrivals, int32_t tx_delta) {
  uint64_t old = atomic_load_explicit(&b->word, memory_order_relaxed);
  uint64_t next;
  do {
    next = tp_mbar_host_step(old, arrivals, tx_delta);
  } while (!atomic_compare_exchange_weak_explicit(&b->word, &old, next, memory_order_acq_rel,
                                                  memory_order_relaxed));
}

TP_PIPE_FN void tp_mbar_init(tp_mbar *b, uint32_t count) {
  if (count == 0 || count > TP_MBAR_MAX_COUNT) {
    TP_PIPE_FAIL("mbarrier init: arrival count %u outside 1..%u", count, TP_MBAR_MAX_COUNT);
  }
  atomic_store_explicit(&b->word, tp_mbar_host_pack(0, 0, count, count), memory_order_release);
}

TP_PIPE_FN void tp_mbar_arrive(tp_mbar *b) { tp_mbar_host_update(b, 1, 0); }

TP_PIPE_FN void tp_mbar_arrive_expect_tx(tp_mbar *b, uint32_t bytes) {
  tp_mbar_host_update(b, 1, (int32_t)bytes);
}

TP_PIPE_FN void tp_mbar_expect_tx(tp_mbar *b, uint32_t bytes) {
  tp_mbar_host_update(b, 0, (int32_t)bytes);
}

TP_PIPE_FN void tp_mbar_complete_tx(tp_mbar *b, uint32_t bytes) {
  tp_mbar_host_update(b, 0, -(int32_t)bytes);
}

TP_PIPE_FN bool tp_mbar_try_wait(tp_mbar *b, uint32_t parity) {
  return tp_mbar_host_phase(atomic_load_explicit(&b->word, memory_order_acquire)) != (parity & 1u);
}

/* Blocks until the phase of this parity has completed. Host threads may
 * outnumber cores (CI has two): yield instead of burning the time slice that
 * the thread we wait for needs, and after a run of yields sleep, since on a
 * loaded machine a crowd of yielding waiters can keep that thread off the
 * cores for minutes. */
#define TP_MBAR_HOST_YIELDS 64u
TP_PIPE_FN void tp_mbar_wait(tp_mbar *b, uint32_t parity) {
  for (uint32_t tries = 0; !tp_mbar_try_wait(b, parity); ++tries) {
    if (tries < TP_MBAR_HOST_YIELDS) {
      sched_yield();
    } else {
      struct timespec nap = {0, 20000}; /* 20 us */
      thrd_sleep(&nap, NULL);
    }
  }
}

#endif
