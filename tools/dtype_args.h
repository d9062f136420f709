/* tools/dtype_args.h: the operand dtypes of a `tilepipe run`, from the
 * command line and the epilogue's defaults.
 *
 * `--dtype` takes "a=bf16,b=bf16,d=bf16,c=f32" (any subset, any order) or a
 * bare dtype name meaning A and B; --a-dtype, --b-dtype, --c-dtype and
 * --d-dtype set one operand and win over --dtype. What is left unset
 * defaults to: A and B TP_DTYPE_NONE, for the payload to choose when it
 * describes the problem (tp_problem_describe), D = bf16, C = D for the
 * residual epilogue and none for store (other epilogues get C only when it
 * is named). "c=none" drops C. "s=ue8m0" asks for B's scales in that
 * dtype where the payload tells formats apart by it (block_scaled's e2m1
 * B: ue4m3 NVFP4, the default, or ue8m0 MXFP4). */
#ifndef TP_TOOLS_DTYPE_ARGS_H
#define TP_TOOLS_DTYPE_ARGS_H

#include "tilepipe/dtype.h"

typedef struct tp_operand_dtypes {
  tp_dtype a, b; /* TP_DTYPE_NONE: the payload's default */
  tp_dtype c, d; /* c: TP_DTYPE_NONE when the run has no C */
  tp_dtype b_scale; /* s=: B's scale dtype (tp_ref_problem_spec.b_scale); NONE: the payload's */
} tp_operand_dtypes;

/* flags[] holds --a-dtype, --b-dtype, --c-dtype, --d-dtype (NULL: not
 * given). Returns TP_EXIT_OK, or TP_EXIT_USAGE after printing why. */
int tp_dtype_args(const char *cmd, const char *epilogue, const char *spec,
                  const char *const flags[4], tp_operand_dtypes *out);

#endif
