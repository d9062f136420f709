/* tools/bench_cpu.h: `tilepipe bench --backend cpu`: our CPU backend
 * against the system BLAS's sgemm (tools/cpu_blas.h), shape by shape, for
 * any payload: the problem is the payload's own (its dtypes, or --dtype,
 * and its scale tensors), made in host memory by the reference library
 * (tp_ref_problem_create, the inputs `tilepipe run` makes from the same
 * seed).
 *
 * Per shape: our plan is made on the CPU backend and timed with the host
 * clock, median of `iters` runs after `warmup` (tools/timing.h). A and B
 * are then dequantized once to dense f32 (tp_ref_operand_f32: codes times
 * their scales, outside the timing) and BLAS's sgemm timed the same way on
 * them; its D, rounded to D's dtype, is what ours is compared with:
 * ||D_ours - D_blas|| / ||D_blas|| within twice the normwise bound of
 * tp_ref_tolerance for the CPU's accumulator (either side may be that far
 * from the exact result), else MISMATCH. Our D is poisoned (NaN) before
 * our runs, so an unwritten element fails the check. Without a BLAS the
 * row is ours alone, "not compared".
 *
 * The table on stdout gives GFLOP/s (2 M N K per run) and the ratio ours /
 * BLAS; the rows go into the CSV and JSON files of tools/bench_report.h,
 * the CPU's model in the gpu field, BLAS's times in the cublaslt fields. */
#ifndef TP_TOOLS_BENCH_CPU_H
#define TP_TOOLS_BENCH_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "tilepipe/registry.h"
#include "tools/bench_report.h"
#include "tools/cpu_blas.h"

typedef struct tp_bench_cpu_env {
  tp_registry *registry;
  const char *payload;
  tp_dtype dtype, b_dtype, b_scale, out_dtype; /* as the payload described them */
  int warmup, iters;
  const tp_cpu_blas *blas; /* NULL: ours alone */
} tp_bench_cpu_env;

/* "Intel(R) Xeon(R) Processor, 2 cores (avx512f avx512_bf16 avx2 fma)":
 * /proc/cpuinfo's model name, the cores this process may use and the
 * vector extensions the CPU backend's micro-kernels look for. */
void tp_bench_cpu_model(char *buf, size_t size);

/* Runs every shape (seed + i for shape i), prints the table and the
 * geometric mean of the ratios (into meta->geomean_ratio too), fills
 * rows[] (count of them) for the report files; the exit status: 0 when every shape ran and matched, 1
 * when some output did not match BLAS's, 3 when some shape could not run. */
int tp_bench_cpu(const tp_bench_cpu_env *env, tp_bench_meta *meta, const tp_shape *shapes,
                 size_t count, uint64_t seed, tp_bench_row *rows);

#endif
