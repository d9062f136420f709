/* tilepipe/reference.h: the naive f64 reference that checks GEMM results,
 * for the tests of payloads and epilogues, in tree or out
 * (libtilepipe_reference: `pkg-config --cflags --libs tilepipe-reference`;
 * docs/writing-a-payload.md, "Tests").
 *
 * It makes a random problem shaped by the payload's own description
 * (tp_problem_describe, tilepipe/problem.h), runs it on either backend,
 * computes D in f64 and judges every element against a bound derived from
 * the dtypes' unit roundoffs. It shares no code with the plugins: every
 * operand element is decoded to f64 by the reference's own tables of every
 * code's value (not the library's codec, so a codec fault shows in D) and
 * scaled as the payload's map says, then the plain triple loop and the
 * epilogue run in f64. It uses only libtilepipe's public API. A test that
 * lists its own plugins opens its registry from INI text
 * (tp_ref_registry_open).
 *
 * One case, on a registry `reg` that lists the payload and the epilogue:
 *
 *     tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = reg,
 *                                 .payload = "standard", .m = 129, .n = 300, .k = 1009,
 *                                 .d = TP_DTYPE_BF16, .pad = 3, .align_rows = 1,
 *                                 .alpha = 1.0f};
 *     tp_ref_problem *p;
 *     tp_ref_problem_create(&p, &spec, seed, err, sizeof err);
 *     tp_ref_problem_expect(p, TP_REF_STORE, err, sizeof err);   // before the run
 *     tp_ref_tolerance tol = tp_ref_problem_tolerance(p, backend);
 *     tp_ref_report rep = {.struct_size = sizeof rep};
 *     tp_ref_problem_verify(p, reg, "standard", "store", backend, &tol, &rep, err,
 *                           sizeof err);                         // plans, runs, judges
 *     // rep.pass; tp_ref_report_format(&rep, ...) says what failed
 *
 * (tp_ref_problem_verify is tp_plan_create, tp_ref_problem_run and
 * tp_ref_problem_check in a row: a test that keeps its plan calls them.)
 *
 * An epilogue the reference does not know (anything but store and
 * residual) takes the reference's alpha * A x B (TP_REF_STORE) and applies
 * itself to the expected values in place (tp_ref_problem_expected).
 *
 * Versioned structs (tp_ref_problem_spec, tp_ref_report) open with
 * struct_size: set it to sizeof the struct as you compiled it; later
 * versions only append fields. Functions that fail return a tp_status and
 * write the reason into err (errlen bytes, NUL-terminated; err may be NULL
 * when errlen is 0). Nothing here keeps global state: any thread may use
 * its own problems. */
#ifndef TILEPIPE_REFERENCE_H
#define TILEPIPE_REFERENCE_H

#include <stddef.h>
#include <stdint.h>
#include "tilepipe/gemm.h"
#include "tilepipe/plan.h"
#include "tilepipe/problem.h"
#include "tilepipe/registry.h"
#include "tilepipe/status.h"
#include "tilepipe/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ tensors */

/* The tensors of a problem, in the order of their random streams. */
typedef enum tp_ref_tensor {
  TP_REF_A,
  TP_REF_B,
  TP_REF_A_SCALE,
  TP_REF_B_SCALE,
  TP_REF_C,
  TP_REF_D,
  TP_REF_BIAS,
  TP_REF_TENSORS
} tp_ref_tensor;

/* Tensor `which` of a descriptor. */
tp_tensor *tp_ref_desc_tensor(tp_gemm_desc *desc, tp_ref_tensor which);

/* Where element (row, col) of a rank-2 tensor lies, counted in elements
 * from its data pointer (in bytes for the one-byte tiled scales): by its
 * strides, or by the 128x4 tiled layout of tilepipe/tensor.h (written here
 * independently of the core and the plugins). A vector [n] is the matrix
 * [1, n]: its element (0, col). */
int64_t tp_ref_index(const tp_tensor *t, int64_t row, int64_t col);

/* Every element of t (host memory; a vector, or a rank-2 tensor strided or
 * 128x4 tiled) gets a random value from key; bytes outside its elements
 * (row padding, the padding of tiled atoms) are left alone. The value of an
 * element depends only on key and its logical index row * cols + col.
 * scales NULL: operand values, a bell close to N(0, 1) inside (-3, 3),
 * never 0, rounded to t's dtype (fp8 gets subnormal codes too), s8 uniform
 * over all 256 codes; else the values of that scale map (tp_scale_map):
 * 2^e (1 + m), e over its exponents, m over the dtype's mantissa codes. */
void tp_ref_tensor_fill(const tp_tensor *t, const tp_scale_map *scales, uint64_t key);

/* ------------------------------------------------------------ problems */

/* A random problem for payload section `payload` of registry. */
typedef struct tp_ref_problem_spec {
  uint32_t struct_size;        /* sizeof(tp_ref_problem_spec), set by the caller */
  const tp_registry *registry; /* where the payload is */
  const char *payload;         /* it describes the problem: dtypes, scale tensors */
  int64_t m, n, k;             /* each >= 1 */
  tp_dtype a, b;               /* TP_DTYPE_NONE: the payload's default */
  tp_dtype d;                  /* D's dtype (required) */
  tp_dtype c;                  /* TP_DTYPE_NONE: no C */
  int c_is_d;                  /* C is D's own memory (D's dtype and strides; c ignored) */
  int c_nan;                   /* C holds NaN instead of random values (for beta == 0) */
  tp_dtype bias;               /* TP_DTYPE_NONE: no bias; else a vector [N] of this dtype */
  tp_layout sf_layout;         /* the scale layout asked of the payload (tp_problem_options) */
  int64_t pad;                 /* spare elements per row of every strided matrix (>= 0; even
                                  for packed fp4; the payload's to apply to its scales) */
  int64_t c_pad;               /* C's spare elements per row; 0: pad + 1, so that C's strides
                                  differ from D's */
  int align_rows;              /* rows padded on to a multiple of 16 bytes, the CUDA
                                  backend's rule (TMA), so one problem runs on both backends */
  float alpha, beta;
  tp_dtype b_scale;            /* B's scale dtype where the payload tells formats apart by it
                                  (tp_problem_options.b_scale_dtype: block_scaled's e2m1 B,
                                  ue4m3 NVFP4 or ue8m0 MXFP4); TP_DTYPE_NONE: its default */
} tp_ref_problem_spec;

typedef struct tp_ref_problem tp_ref_problem;

/* The problem's descriptor alone: shapes, strides, dtypes (A's and B's the
 * payload's defaults where spec leaves them NONE), alpha, beta and the
 * payload's scale tensors, every data pointer NULL (enough to plan, or to
 * link without a GPU), and into *problem what the scales mean. Fails as
 * tp_ref_problem_create does, without allocating. */
tp_status tp_ref_problem_describe(const tp_ref_problem_spec *spec, tp_gemm_desc *desc,
                                  tp_problem *problem, char *err, size_t errlen);

/* Makes the problem in host memory. Every buffer is allocated at exactly
 * its tensor's span (so AddressSanitizer sees any access past it) and
 * filled with 0xFF bytes, a NaN in every dtype; then only the tensors'
 * elements get values: each of A, B, the scales, C and the bias its
 * tp_ref_tensor_fill from a key of its own derived from seed (the scales
 * as the payload's maps say; the same seed, the same values). Row
 * padding, the padding of tiled scale atoms and all of D stay 0xFF: a
 * plugin that reads padding picks up NaN, one that writes outside D's
 * elements leaves a mark tp_ref_problem_check finds.
 * Fails with TP_ERR_INVALID_ARGUMENT (a bad spec), the status of
 * tp_problem_describe (a payload that is unknown or refuses the dtypes:
 * its message) or TP_ERR_OUT_OF_MEMORY; *p is NULL then. */
tp_status tp_ref_problem_create(tp_ref_problem **p, const tp_ref_problem_spec *spec,
                                uint64_t seed, char *err, size_t errlen);

/* Frees the problem, its device copy and its expected values; NULL is a
 * no-op. */
void tp_ref_problem_destroy(tp_ref_problem *p);

/* The descriptor, with host pointers. A test may change it before the run
 * (point a tensor at other elements of the problem's buffers, reshape a
 * scale tensor over the same data, write other values); the device copy
 * follows the change at the next upload. */
tp_gemm_desc *tp_ref_problem_desc(tp_ref_problem *p);

/* What the payload said the scale tensors mean, and its acc_bits. */
const tp_problem *tp_ref_problem_description(const tp_ref_problem *p);

/* Tensor which's host buffer and, when bytes is not NULL, its size; NULL
 * (and 0) for an absent tensor, and for C when C is D. */
void *tp_ref_problem_buffer(const tp_ref_problem *p, tp_ref_tensor which, int64_t *bytes);

/* 0xFF over D's host buffer (NaN in every element): a run must write every
 * element. A no-op when C is D (D holds C then): tp_ref_problem_unwritten
 * finds the elements a run left alone there. */
void tp_ref_problem_poison_d(tp_ref_problem *p);

/* ----------------------------------------------------- running it */

/* Copies every host buffer into device memory (tilepipe/device.h),
 * allocated on the first call on the calling thread's current device, and
 * builds the descriptor of the copy. Fails with the device API's status,
 * or TP_ERR_INVALID_ARGUMENT when a tensor of the descriptor points outside
 * the problem's buffers. */
tp_status tp_ref_problem_upload(tp_ref_problem *p, char *err, size_t errlen);

/* The descriptor of the device copy (device pointers); NULL before the
 * first upload. */
const tp_gemm_desc *tp_ref_problem_device_desc(const tp_ref_problem *p);

/* Copies D's device buffer back into its host buffer. */
tp_status tp_ref_problem_download_d(tp_ref_problem *p, char *err, size_t errlen);

/* One run of plan on the problem: poisons D, then on a CPU plan runs on the
 * host buffers; on a CUDA plan uploads, runs on the default stream, waits
 * and downloads D. On return D's host buffer holds the result. Fails with
 * the status of the failing step, its message in err. */
tp_status tp_ref_problem_run(tp_ref_problem *p, tp_plan *plan, char *err, size_t errlen);

/* ------------------------------------------------------ the reference */

typedef enum tp_ref_epilogue {
  TP_REF_STORE = 0,   /* D = alpha * acc */
  TP_REF_RESIDUAL = 1 /* D = alpha * acc + beta * C; C not read when beta == 0 */
} tp_ref_epilogue;

/* Fills ref[i * n + j] with D(i, j) computed in f64 and, when mag is not
 * NULL, mag[i * n + j] with |alpha| * sum_k |A'(i, k) B'(j, k)| + |beta
 * C(i, j)| (A', B' dequantized): the magnitude that bounds the rounding
 * error of any summation order. desc holds host pointers. Element (r, k) of
 * A is scaled by a_scale at [r / rows][k / k] of problem's map ([k / k][r /
 * rows] when k_first; index 0 along K when k == 0; a rank-1 tensor has only
 * the row index), B's by b_scale's likewise; an operand whose map has rows
 * == 0 is unscaled. Reads C before anything is written, so call it before
 * a run that updates C in place. Fails (TP_ERR_INVALID_ARGUMENT) on scale
 * tensors that do not match their maps (a tensor without a map, a map
 * without one, indices outside the tensor), and with
 * TP_ERR_OUT_OF_MEMORY. */
tp_status tp_ref_gemm(const tp_gemm_desc *desc, const tp_problem *problem,
                      tp_ref_epilogue epilogue, double *ref, double *mag, char *err,
                      size_t errlen);

/* The same at the elements of a grid, for problems too large for the whole
 * triple loop: ref[i * ncols + j] (and mag) for D(rows[i], cols[j]), the
 * very sums tp_ref_gemm forms there. It reads the rows `rows` of A and of
 * C, the rows `cols` of B, and the scales; the other rows may hold
 * anything. NULL rows (cols) stands for 0 .. nrows - 1 (ncols - 1). */
tp_status tp_ref_gemm_at(const tp_gemm_desc *desc, const tp_problem *problem,
                         tp_ref_epilogue epilogue, const int64_t *rows, int64_t nrows,
                         const int64_t *cols, int64_t ncols, double *ref, double *mag, char *err,
                         size_t errlen);

/* What the GPU's rounding of the operands (tp_problem's a_rounding and
 * b_rounding, tilepipe/problem.h) can add to D, at the elements of a grid
 * as tp_ref_gemm_at's. With A', B' as tp_ref_gemm reads them (decoded,
 * scaled), da(r, k) the distance from A'(r, k) to the nearest multiple of
 * 2^exp times the largest scale of A's rounding block holding (r, k) (the
 * scale tensor read in its layout, strided or 128x4 tiled: how far the GPU
 * moves the element), db B's likewise (0 for an operand taken exactly) and
 * t(k) = da(r, k) |B'(c, k)| + db(c, k) |A'(r, k)| + da(r, k) db(c, k), for
 * D(rows[i], cols[j]):
 *
 *   bound[i * ncols + j]  = |alpha| sum_k t(k)         (every sign aligned: a bound)
 *   spread[i * ncols + j] = |alpha| sqrt(sum_k t(k)^2)  (random signs: its typical size)
 *
 * spread may be NULL. All 0 when the problem rounds neither operand, or
 * its struct_size ends before the fields. It reads the rows `rows` of A,
 * `cols` of B and the scales whole. Fails as tp_ref_gemm does. */
tp_status tp_ref_rounding_at(const tp_gemm_desc *desc, const tp_problem *problem,
                             const int64_t *rows, int64_t nrows, const int64_t *cols,
                             int64_t ncols, double *bound, double *spread, char *err,
                             size_t errlen);

/* Operand `which` (TP_REF_A: m x k; TP_REF_B: n x k) of desc (host
 * pointers) dequantized into out, dense row-major f32: every element as
 * tp_ref_gemm reads it (decoded by the reference's tables, times its scale
 * under problem's map), rounded to f32. For a comparator that multiplies
 * f32 operands (a BLAS sgemm). Fails as tp_ref_gemm does on scale tensors
 * that do not match their maps, and with TP_ERR_INVALID_ARGUMENT when
 * `which` is neither A nor B. */
tp_status tp_ref_operand_f32(const tp_gemm_desc *desc, const tp_problem *problem,
                             tp_ref_tensor which, float *out, char *err, size_t errlen);

/* tp_ref_gemm of the problem as it is now, kept in the problem as its
 * expected values (replacing any earlier ones), with tp_ref_rounding_at's
 * bound and spread at every element where the payload says the GPU rounds
 * an operand: call it after the inputs are final and before a run. */
tp_status tp_ref_problem_expect(tp_ref_problem *p, tp_ref_epilogue epilogue, char *err,
                                size_t errlen);

/* The expected values and magnitudes (m x n, row-major), NULL before
 * tp_ref_problem_expect. They are the caller's to change: an epilogue the
 * reference does not know applies itself to ref in place and sets mag to
 * what bounds its error (tp_ref_compare's bound). */
double *tp_ref_problem_expected(tp_ref_problem *p, double **mag);

/* The rounding bound of each element (m x n, row-major) that
 * tp_ref_problem_expect computed and, when spread is not NULL, its spread:
 * NULL before it and where the problem rounds neither operand. The
 * caller's to change as the expected values are: a test whose expected
 * values already hold the GPU's rounding (the route's transform applied to
 * the inputs on the host) zeroes both. */
double *tp_ref_problem_rounding(tp_ref_problem *p, double **spread);

/* ------------------------------------------------------------ judging */

/* The terms of the per-element bound (tp_ref_compare):
 *   |D - ref| <= u_out |ref| + (1 + u_out) (g mag + h rho^2 |ref| + r bnd) + eta_out
 * with mag tp_ref_gemm's magnitude, rho = |ref| / mag (1 where every
 * product has the sign of the sum, about 1 / sqrt(K) for random signs), u_out
 * the unit roundoff of D's dtype (output rounding dominates for bf16 and
 * f16), eta_out half D's smallest subnormal (the absolute floor of
 * rounding near 0), bnd and spr tp_ref_rounding_at's bound and spread for
 * the element (the operands' rounding on the GPU); and of the normwise
 * bound
 *   ||D - ref||_2 / ||ref||_2 <= rel + (||h rho^2 ref||_2 + ||r_rel spr||_2) / ||ref||_2,
 * judged only over 64 elements or more (it is statistical; with fewer,
 * every element is judged alone). Two models fill them in:
 *
 * - tp_ref_tolerance_for, for a sum rounded to nearest in any order (the
 *   CPU backend, f32): g = (K + 16) u_acc, the classic gamma_n bound plus
 *   the few roundings of scales, alpha and beta * C; h = 0; rel = u_out +
 *   (4 sqrt(K) + 16) u_acc, about ten times the 0.4 sqrt(K) u_acc a sum of
 *   K random-sign terms accumulates; r = r_rel = 0 (the CPU takes the
 *   operands exactly).
 * - tp_ref_tolerance_for_gpu, for Hopper's wgmma, whose running sum
 *   truncates: fitted to errors measured on the H100 (docs/testing.md, "The
 *   error model"), with L the K the running sum takes before a promotion
 *   (tp_problem.acc_k, or K) and u_acc = 2^-acc_bits:
 *     g   = 16 u_acc + (ceil(K / 64) + 16) 2^-24   (random-sign error,
 *           measured at most 3.6 u_acc; f32 roundings of split-K partials,
 *           promotions, scales, alpha, beta * C)
 *     h   = L u_acc / 2                            (truncation's bias on a
 *           sum that grows one way, measured at most 0.14 L u_acc)
 *     rel = hypot(0.866 u_out, 4 u_acc sqrt(max(L, 32) / 32))
 *           + (sqrt(K / 64) + 16) 2^-24            (the output's rounding,
 *           statistically, and the running sum's, measured at most 1.7
 *           u_acc sqrt(L / 32))
 *     r   = 1                                      (the operands' rounding
 *           the payload describes, whole: a worst case, not a fit)
 *     r_rel = 4                                    (its random-sign sums:
 *           where an element falls between grid points sets the sign, so
 *           the error is a random walk of spr's size; 4 of it normwise,
 *           as rel's 4 u_acc)
 *   The margins over the worst measured case are 2-4x; a 1% scale
 *   error, a wrong column or a sign flip at the GPU tests' shapes fails it
 *   (tests/test_ref_faults.c).
 *
 * The normwise bound is statistical: it holds for many elements of random
 * sign; a D whose values cancel in C's add or lie among D's subnormals may
 * exceed it though correct, and an epilogue the reference does not know
 * may amplify relative errors, so a test that draws such problems, or
 * judges such an epilogue, sets rel to INFINITY and judges every element
 * alone. A payload whose products are summed exactly in blocks of b
 * (integer products) may tighten g to (ceil(K / b) + 16) u_acc: only the
 * sums of those blocks round. */
typedef struct tp_ref_tolerance {
  double u_out, eta_out; /* D's unit roundoff and subnormal floor */
  double u_acc;          /* the accumulation's unit roundoff, 2^-acc_bits */
  double g;              /* the per-element bound's share of mag */
  double rel;            /* the normwise bound's fixed part (INFINITY: none) */
  double h;              /* the share of rho^2 |ref| (0: none) */
  double rounding;       /* r: the share of the operands' rounding bound (0: none) */
  double rounding_rel;   /* r_rel: the share of its spread in the normwise bound */
} tp_ref_tolerance;

/* Significand bits of the running sum on backend: the payload's acc_bits
 * (tp_problem) on the CUDA backend, 24 (f32) on the CPU, which accumulates
 * every payload's products in f32. */
int tp_ref_acc_bits(const tp_problem *problem, tp_backend backend);

/* The tolerance for a D of dtype d (bf16, f16 or f32) from a sum of k
 * products rounded to nearest with acc_bits significand bits, in any
 * order. */
tp_ref_tolerance tp_ref_tolerance_for(tp_dtype d, int64_t k, int acc_bits);

/* The tolerance for a D of dtype d from the GPU's sum of k products as
 * problem describes it (its acc_bits and acc_k): Hopper's wgmma. */
tp_ref_tolerance tp_ref_tolerance_for_gpu(tp_dtype d, int64_t k, const tp_problem *problem);

/* A verdict on one D. */
typedef struct tp_ref_report {
  uint32_t struct_size;      /* sizeof(tp_ref_report), set by the caller */
  int pass;                  /* no element outside its bound, rel within rel_bound, and
                                (tp_ref_problem_check) D's padding intact */
  int64_t elements;          /* elements compared */
  int64_t bad;               /* elements outside their bound (NaN is) */
  int64_t bad_row, bad_col;  /* the first of them; -1 if none */
  double bad_value, bad_ref; /* D and the reference there */
  double max_abs;            /* max |D - ref| (infinity when some element is NaN) */
  double rel, rel_bound;     /* ||D - ref|| / ||ref|| (||D - ref|| when ref is 0), its bound
                                (INFINITY below 64 elements) */
  int64_t padding_at;        /* offset of the first byte of D's buffer outside its elements
                                that a run wrote; -1 when none (or not checked) */
} tp_ref_report;

/* The operands' rounding at each element of D (tp_ref_rounding_at's two
 * outputs, row-major m x n). */
typedef struct tp_ref_rounding {
  const double *bound, *spread;
} tp_ref_rounding;

/* Judges D (m x n, host memory, bf16, f16 or f32) against ref and mag
 * (row-major m x n) and the operands' rounding (NULL: none is rounded).
 * TP_ERR_INVALID_ARGUMENT, nothing written, for a report whose struct_size
 * is below this version's. */
tp_status tp_ref_compare(const tp_tensor *d, int64_t m, int64_t n, const double *ref,
                         const double *mag, const tp_ref_rounding *rounding,
                         const tp_ref_tolerance *tol, tp_ref_report *report);

/* The tolerance for the problem's D after a run on backend: D's dtype, K
 * and its description's acc_bits and acc_k: tp_ref_tolerance_for_gpu on
 * the CUDA backend, tp_ref_tolerance_for at 24 bits on the CPU. */
tp_ref_tolerance tp_ref_problem_tolerance(const tp_ref_problem *p, tp_backend backend);

/* Judges the problem's D (its host buffer, after a run) against its
 * expected values and operand rounding (tp_ref_problem_expect) under tol,
 * and its row padding:
 * every byte of D's buffer outside its elements still 0xFF.
 * TP_ERR_INVALID_ARGUMENT, nothing written, before tp_ref_problem_expect or
 * for a report whose struct_size is below this version's. */
tp_status tp_ref_problem_check(const tp_ref_problem *p, const tp_ref_tolerance *tol,
                               tp_ref_report *report);

/* A case in one call: plans payload x epilogue of reg for the problem on
 * backend (refusing a plan for another backend than one asked for), runs
 * it once (tp_ref_problem_run) and judges D under tol
 * (tp_ref_problem_check) into *report. TP_OK when the verdict is in
 * *report (report->pass), else the status of the step that failed (no
 * expected values, the plan, the run, a report too small), its message in
 * err. */
tp_status tp_ref_problem_verify(tp_ref_problem *p, tp_registry *reg, const char *payload,
                                const char *epilogue, tp_backend backend,
                                const tp_ref_tolerance *tol, tp_ref_report *report, char *err,
                                size_t errlen);

/* One line for a report: "max abs error 0.0039, relative error 0.0012
 * (bound 0.0039)", and for a failure what failed ("3 of 1200 elements
 * outside their bound, first D[2][5] = nan (reference 0.51)", "D's row
 * padding written at byte 42"). */
void tp_ref_report_format(const tp_ref_report *report, char *buf, size_t size);

/* When C is D: how many elements of D (its host buffer, after a run) still
 * hold, bit for bit, C's value from when tp_ref_problem_expect ran,
 * although the run must have changed them: |ref - C| exceeds u_out (|ref| +
 * |C|) + eta_out + 16 u_acc mag + r bnd under tol, so that rounding D cannot give
 * back C's bits. The margin of 16 roundings of the accumulator at the
 * products' magnitude is many times the error of a real summation at an
 * element (whose worst case, tp_ref_compare's g mag, grows with K), and a
 * written element would also have to land on C's exact bits; an element
 * left unwritten is found wherever its product term is that large, however
 * loose the comparator's bound. *row, *col (either may be NULL): the first
 * such element, -1 when none. 0 when C is not D or before
 * tp_ref_problem_expect. */
int64_t tp_ref_problem_unwritten(const tp_ref_problem *p, const tp_ref_tolerance *tol,
                                 int64_t *row, int64_t *col);

/* --------------------------------------------------------- registries */

/* tp_registry_open on INI text instead of a file, for a test that lists
 * its own plugins and sections:
 *
 *     char ini[1024], err[512];
 *     snprintf(ini, sizeof ini, "[mine]\nkind = payload\nlibrary = %s\n", so_path);
 *     tp_registry *reg;
 *     if (tp_ref_registry_open(&reg, ini, err, sizeof err) != TP_OK) ... err says why
 *
 * The text is written as registry.ini into a fresh folder under $TMPDIR
 * (else /tmp) and opened; the file and the folder are gone when the call
 * returns. The registry's messages (a broken section's error,
 * tp_registry_path, tp_plugin_info.ini_file) name that file and the text's
 * lines ("/tmp/tilepipe-registry-Xq3b9Z/registry.ini:4: ..."). A relative
 * `library` finds nothing in that folder: give absolute paths, or plain
 * names for $TILEPIPE_PLUGIN_PATH and the installed plugin folder. TP_OK
 * with *reg open (tp_registry_close it); else *reg is NULL and err says
 * why: TP_ERR_INVALID_ARGUMENT for a NULL reg or ini, TP_ERR_IO when the
 * file cannot be written, or tp_registry_open's status and message. */
tp_status tp_ref_registry_open(tp_registry **reg, const char *ini, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
