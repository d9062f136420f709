/* tools/bench_shape.h: one row of `tilepipe bench`: our plan and cuBLASLt
 * on the same device buffers of one random problem.
 *
 * The inputs are made on the device by the seeded generator
 * (tools/seeded_problem.h: rows padded to 16 bytes, D all NaN), never on
 * the host. When A and B together are smaller than twice the L2 cache, they
 * get extra device copies (up to 64, copied within the device) and run i
 * reads copy i % copies, so that neither side is timed on inputs left hot
 * in L2 by the previous run. Each side has its own D, poisoned (NaN) first; the sides
 * (ours, our store epilogue as a residual's baseline, cuBLASLt) are timed
 * in rounds, one run of each in turn (or `back_to_back` runs in a row),
 * CUDA events around every run (or every such chain), median of `iters`
 * rounds after `warmup` (tools/timing.h says why). cuBLASLt runs
 * once before the timing: a problem it refuses then, like one it has no
 * algorithm for (or one tools/cublaslt_problem.h refuses), is timed for us
 * alone, "not compared", its reason in the note. Then the two Ds are
 * compared: ||D_ours - D_cublaslt|| / ||D_cublaslt|| must stay within
 * twice the normwise bound of tp_ref_tolerance (tilepipe/reference.h;
 * each side may be that far from the exact result). The rows of a problem with scale
 * tensors (as its payload describes it, tilepipe/problem.h) are also
 * judged against the f64 reference on a sample of D
 * (tools/bench_accuracy.h): our error within the payload's bound and
 * within 1.25 times cuBLASLt's; without cuBLASLt, within the bound (else
 * MISMATCH, though not compared).
 *
 * Each versus side (--versus) is another payload section (with its
 * epilogue section) planned on the same descriptor, C included: C is a
 * buffer of its own, never D, so every side reads the same C and writes
 * only its own D, poisoned first. A versus plan is run once before the
 * timing, like cuBLASLt: a side whose plan or that run fails is "not
 * compared" (its reason in its note) and the others are timed without
 * it. After timing, its D is compared with ours within the same bound as
 * cuBLASLt's (twice the normwise bound); a larger distance makes the side
 * and the row MISMATCH. */
#ifndef TP_TOOLS_BENCH_SHAPE_H
#define TP_TOOLS_BENCH_SHAPE_H

#include <stddef.h>
#include <stdint.h>
#include "tilepipe/registry.h"
#include "tools/bench_progress.h"
#include "tools/bench_report.h"
#include "tools/cublaslt.h"
#include "tools/seeded_device.h"

typedef struct tp_bench_env {
  tp_registry *registry;
  const tp_seeded_device *inputs; /* the input generator */
  tp_cublaslt *cublaslt;    /* NULL: our plan alone (else each row asks it for the
                               problem, tools/cublaslt_problem.h) */
  void *workspace;          /* cuBLASLt's, allocated once */
  size_t workspace_bytes;
  const char *payload, *epilogue; /* epilogue: store or residual (beta = 1, C of D's dtype) */
  const tp_bench_versus *versus;  /* the versus sides' sections (versus_count of them) */
  int versus_count;
  tp_dtype dtype, b_dtype;        /* A's and B's, as the payload described them */
  tp_dtype b_scale;               /* B's scale dtype asked (--dtype s=), or NONE */
  tp_dtype out_dtype;
  int warmup, iters;
  int back_to_back;               /* runs of a side in a row per pair of events */
  size_t l2_bytes;
  uint64_t seed;
  const tp_ceilings *ceilings; /* NULL: no floors (tools/roofline.h) */
  tp_bench_progress *progress; /* each phase is announced there (NULL: not) */
} tp_bench_env;

/* Whether a problem (desc and its description, at any shape) is one
 * cuBLASLt cannot run as it is, scaled in a way it does not take: then its
 * side runs on the operands dequantized to bf16, and the row has a second
 * anchor, the dequantization and cuBLASLt timed together (deq_ms). */
int tp_bench_dequantizes(const tp_bench_env *env, const tp_gemm_desc *desc,
                         const tp_problem *problem);

/* Measures `shape` into *row (every field set; failures go into row->note
 * with row->check = "error"), with its floor under env->ceilings; each
 * phase it enters goes to env->progress (the caller starts the shape there
 * and says when it is done). */
void tp_bench_shape(const tp_bench_env *env, tp_shape shape, tp_bench_row *row);

#endif
