/* tilepipe/internal/kernel/grid_dependency.h: programmatic dependent launch.
 *
 * The host launches every GEMM kernel as the programmatic dependent of the
 * stream's previous kernel (CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
 * core/backend/cuda/kernel.c): its CTAs may start while that kernel's last
 * CTAs still run, so their setup (barriers, descriptors, registers)
 * overlaps that kernel's end. The price is a rule: a thread touches no
 * global memory that an earlier kernel may write or read before
 * tp_grid_dependency_wait has returned (an L2 prefetch excepted: L2 is
 * where every SM's writes meet, so it cannot hold a stale line). */
#ifndef TILEPIPE_INTERNAL_KERNEL_GRID_DEPENDENCY_H
#define TILEPIPE_INTERNAL_KERNEL_GRID_DEPENDENCY_H

#define TP_GRID_FN static __device__ __forceinline__

/* Returns once the kernels this one depends on have completed and their
 * memory operations are visible; at once without such a kernel. */
TP_GRID_FN void tp_grid_dependency_wait(void) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
}

/* Lets the stream's next kernel start launching once every CTA of this
 * grid has called this (one thread of a CTA is enough) or exited; it
 * still waits for this grid's end before it touches memory. */
TP_GRID_FN void tp_grid_launch_dependents(void) {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

#endif
