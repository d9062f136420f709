/* tools/dtype_args.c: see dtype_args.h. */
#include <stdio.h>
#include <string.h>

#include "tools/cli.h"
#include "tools/dtype_args.h"

/* The operands, and s: B's scale dtype (no --s-dtype flag). */
enum { OP_A, OP_B, OP_C, OP_D, OP_S, NUM_OPS };
static const char op_names[NUM_OPS] = {'a', 'b', 'c', 'd', 's'};

/* TP_DTYPE_COUNT stands for "not given"; TP_DTYPE_NONE for "none". */
static int parse_dtype(const char *cmd, const char *what, const char *name, size_t len,
                       tp_dtype *out) {
  char buf[32];
  if (len == 0 || len >= sizeof buf)
    return tp_cli_fail(cmd, TP_EXIT_USAGE, "%s: '%.*s' is not a dtype", what, (int)len, name);
  memcpy(buf, name, len);
  buf[len] = '\0';
  *out = strcmp(buf, "none") == 0 ? TP_DTYPE_NONE : tp_dtype_from_name(buf);
  if (*out == TP_DTYPE_NONE && strcmp(buf, "none") != 0)
    return tp_cli_fail(cmd, TP_EXIT_USAGE,
                       "%s: unknown dtype '%s' (f32, bf16, f16, e4m3, e5m2, e2m1, ue8m0, ue4m3, "
                       "s8)",
                       what, buf);
  return TP_EXIT_OK;
}

/* Records that spec sets operand i; an operand set twice is refused. */
static int set_once(const char *cmd, const char *spec, int i, int given[NUM_OPS]) {
  if (given[i])
    return tp_cli_fail(cmd, TP_EXIT_USAGE, "--dtype: operand %c is given twice in '%s'",
                       op_names[i], spec);
  given[i] = 1;
  return TP_EXIT_OK;
}

/* "a=bf16,b=e4m3" or "e4m3" (A and B) into op[], each operand at most once. */
static int parse_spec(const char *cmd, const char *spec, tp_dtype op[NUM_OPS]) {
  int given[NUM_OPS] = {0};
  for (const char *item = spec; *item;) {
    const char *end = strchr(item, ',');
    const size_t len = end ? (size_t)(end - item) : strlen(item);
    const char *eq = memchr(item, '=', len);
    if (eq == NULL) {
      int rc = set_once(cmd, spec, OP_A, given);
      if (rc == TP_EXIT_OK) rc = set_once(cmd, spec, OP_B, given);
      if (rc == TP_EXIT_OK) rc = parse_dtype(cmd, "--dtype", item, len, &op[OP_A]);
      if (rc != TP_EXIT_OK) return rc;
      op[OP_B] = op[OP_A];
    } else {
      const char *which = eq - item == 1 ? memchr(op_names, item[0], NUM_OPS) : NULL;
      if (which == NULL)
        return tp_cli_fail(cmd, TP_EXIT_USAGE,
                           "--dtype: in '%.*s' the operand must be a, b, c or d, or s for B's "
                           "scales (e.g. --dtype a=e4m3,b=e4m3,d=bf16)",
                           (int)len, item);
      int rc = set_once(cmd, spec, (int)(which - op_names), given);
      if (rc == TP_EXIT_OK) rc = parse_dtype(cmd, "--dtype", eq + 1, len - 2, &op[which - op_names]);
      if (rc != TP_EXIT_OK) return rc;
    }
    item += len + (end != NULL);
  }
  return TP_EXIT_OK;
}

int tp_dtype_args(const char *cmd, const char *epilogue, const char *spec,
                  const char *const flags[4], tp_operand_dtypes *out) {
  tp_dtype op[NUM_OPS] = {TP_DTYPE_COUNT, TP_DTYPE_COUNT, TP_DTYPE_COUNT, TP_DTYPE_COUNT,
                          TP_DTYPE_COUNT};
  int rc = spec ? parse_spec(cmd, spec, op) : TP_EXIT_OK;
  for (int i = 0; i < OP_S && rc == TP_EXIT_OK; i++) {
    char what[16];
    snprintf(what, sizeof what, "--%c-dtype", op_names[i]);
    if (flags[i]) rc = parse_dtype(cmd, what, flags[i], strlen(flags[i]), &op[i]);
  }
  if (rc != TP_EXIT_OK) return rc;
  for (int i = 0; i < NUM_OPS; i++)
    if (i != OP_C && op[i] == TP_DTYPE_NONE)
      return tp_cli_fail(cmd, TP_EXIT_USAGE, "operand %c cannot be 'none'", op_names[i]);
  if (op[OP_A] == TP_DTYPE_COUNT) op[OP_A] = TP_DTYPE_NONE;
  if (op[OP_B] == TP_DTYPE_COUNT) op[OP_B] = TP_DTYPE_NONE;
  if (op[OP_S] == TP_DTYPE_COUNT) op[OP_S] = TP_DTYPE_NONE;
  if (op[OP_D] == TP_DTYPE_COUNT) op[OP_D] = TP_DTYPE_BF16;
  if (op[OP_C] == TP_DTYPE_COUNT)
    op[OP_C] = strcmp(epilogue, "residual") == 0 ? op[OP_D] : TP_DTYPE_NONE;
  if (op[OP_C] != TP_DTYPE_NONE && strcmp(epilogue, "store") == 0)
    return tp_cli_fail(cmd, TP_EXIT_USAGE,
                       "the store epilogue reads no C (D = alpha*acc): drop c=%s, or use "
                       "--epilogue residual",
                       tp_dtype_name(op[OP_C]));
  *out = (tp_operand_dtypes){
      .a = op[OP_A], .b = op[OP_B], .c = op[OP_C], .d = op[OP_D], .b_scale = op[OP_S]};
  return TP_EXIT_OK;
}
