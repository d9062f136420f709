/* core/backend/cpu/cpu_backend.h: GEMMs on host threads.
 *
 * The same structure as the GPU kernel, on the host pipeline: the
 * producer role plays the TMA warp (the payload's cpu_load fills a stage,
 * then the bytes "land" on the stage's full barrier), the consumer role
 * the wgmma warpgroups (cpu_mma on its rows of the tile, then release the
 * stage), and each consumer finishes its rows of every tile with the
 * epilogue's cpu_apply. Every worker thread (one per core, the caller
 * first) plays both: it fills its share of the stages and multiplies its
 * rows of all of them. Tiles are walked in the same order by every role. */
#ifndef TP_CORE_BACKEND_CPU_H
#define TP_CORE_BACKEND_CPU_H

#include "core/plan_internal.h"

typedef struct tp_cpu_plan tp_cpu_plan;

/* Lays out the stages for binding (which must outlive the plan). */
tp_status tp_cpu_plan_create(tp_cpu_plan **plan, const tp_binding *binding);

/* Runs one GEMM on desc's host buffers; returns when D is written. Safe to
 * call from several threads at once (each run has its own stages). */
tp_status tp_cpu_plan_run(const tp_cpu_plan *plan, const tp_gemm_desc *desc);

int tp_cpu_plan_describe(const tp_cpu_plan *plan, char *buf, size_t size);

void tp_cpu_plan_destroy(tp_cpu_plan *plan);

#endif
