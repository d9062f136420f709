/* tilepipe/internal/pipeline/mbarrier_device.h: the mbarrier as PTX (sm_90).
 *
 * Barriers live in shared memory and are addressed by their 32-bit shared
 * address. Arrivals use release semantics at CTA scope (the PTX default);
 * arrivals on another CTA's barrier of the cluster (remote arrive, used when
 * a consumer frees a stage that a multicast load filled in several CTAs) use
 * release at cluster scope. try_wait has acquire semantics at CTA scope. */
#ifndef TILEPIPE_INTERNAL_PIPELINE_MBARRIER_DEVICE_H
#define TILEPIPE_INTERNAL_PIPELINE_MBARRIER_DEVICE_H

#include "tilepipe/internal/pipeline/defs.h"

typedef struct tp_mbar {
  unsigned long long word;
} tp_mbar;

static_assert(sizeof(tp_mbar) == 8, "an mbarrier is 8 bytes on both backends");

TP_PIPE_FN uint32_t tp_smem_addr(const void *p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}

/* This thread's lane in its warp (%laneid: right for any block shape). */
TP_PIPE_FN uint32_t tp_lane_id(void) {
  uint32_t lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

TP_PIPE_FN void tp_mbar_init(tp_mbar *b, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(tp_smem_addr(b)), "r"(count)
               : "memory");
}

/* Makes barrier initialisation visible to the async proxy (TMA) and to the
 * other CTAs of the cluster; follow it with a CTA or cluster barrier. */
TP_PIPE_FN void tp_mbar_fence_init(void) {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

TP_PIPE_FN void tp_mbar_arrive(tp_mbar *b) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(tp_smem_addr(b)) : "memory");
}

TP_PIPE_FN void tp_mbar_arrive_expect_tx(tp_mbar *b, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(tp_smem_addr(b)),
               "r"(bytes)
               : "memory");
}

TP_PIPE_FN void tp_mbar_expect_tx(tp_mbar *b, uint32_t bytes) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(tp_smem_addr(b)),
               "r"(bytes)
               : "memory");
}

TP_PIPE_FN void tp_mbar_complete_tx(tp_mbar *b, uint32_t bytes) {
  asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(tp_smem_addr(b)),
               "r"(bytes)
               : "memory");
}

/* One arrival on the barrier at the same shared-memory offset in CTA `cta`
 * of this cluster (which may be this CTA). The arrival keeps the default
 * .release.cta semantics, as CUTLASS's cluster barriers do: what it
 * publishes is that this warp is done reading a stage, whose next writer is
 * a TMA load that the peer issues only after the barrier's phase completes.
 * A .release.cluster arrival made every consumer warp wait on a
 * cluster-scope fence at each stage: 2-CTA kernels ran at a quarter of the
 * single-CTA speed, ncu's top stall being "membar". */
TP_PIPE_FN void tp_mbar_arrive_cluster(tp_mbar *b, uint32_t cta) {
  asm volatile(
      "{\n\t.reg .b32 remote;\n\t"
      "mapa.shared::cluster.u32 remote, %0, %1;\n\t"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n\t}" ::"r"(
          tp_smem_addr(b)),
      "r"(cta)
      : "memory");
}

/* One non-blocking probe: has the phase of this parity completed? */
TP_PIPE_FN bool tp_mbar_try_wait(tp_mbar *b, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(done)
      : "r"(tp_smem_addr(b)), "r"(parity)
      : "memory");
  return done != 0;
}

/* Blocks until the phase of this parity has completed. try_wait suspends the
 * thread in hardware for a while before returning false, so the loop does
 * not hammer shared memory. */
TP_PIPE_FN void tp_mbar_wait(tp_mbar *b, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred p;\n"
      "tp_mbar_wait_again:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
      "@!p bra tp_mbar_wait_again;\n\t}" ::"r"(tp_smem_addr(b)),
      "r"(parity)
      : "memory");
}

#endif
