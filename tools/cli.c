/* tools/cli.c: see cli.h. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cli.h"

int tp_cli_fail(const char *cmd, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "tilepipe %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return code;
}

static int usage_error(const tp_cli_command *cmd, const char *fmt, const char *a, const char *b) {
  fprintf(stderr, "tilepipe %s: ", cmd->name);
  fprintf(stderr, fmt, a, b);
  fprintf(stderr, "\n(see 'tilepipe %s --help')\n", cmd->name);
  return TP_EXIT_USAGE;
}

static const tp_cli_option *find_option(const tp_cli_command *cmd, const char *name, size_t len) {
  for (int i = 0; i < cmd->num_options; i++)
    if (strlen(cmd->options[i].name) == len && strncmp(cmd->options[i].name, name, len) == 0)
      return &cmd->options[i];
  return NULL;
}

/* Converts `text` into the option's target; TP_EXIT_USAGE (printed) if it
 * is not a value of the option's type and range. */
static int set_value(const tp_cli_command *cmd, const tp_cli_option *o, const char *spelled,
                     const char *text) {
  char *end;
  errno = 0;
  switch (o->type) {
  case TP_CLI_FLAG:
    *(int *)o->target = 1;
    return TP_EXIT_OK;
  case TP_CLI_STRING:
    if (*text == '\0') return usage_error(cmd, "%s needs a non-empty value%s", spelled, "");
    *(const char **)o->target = text;
    return TP_EXIT_OK;
  case TP_CLI_LIST: {
    tp_cli_list *list = o->target;
    if (*text == '\0') return usage_error(cmd, "%s needs a non-empty value%s", spelled, "");
    if (list->count >= o->max || list->count >= TP_CLI_LIST_MAX) {
      char most[96];
      snprintf(most, sizeof most, "%s is given more than %" PRId64 " times", spelled, o->max);
      return usage_error(cmd, "%s%s", most, "");
    }
    list->values[list->count++] = text;
    return TP_EXIT_OK;
  }
  case TP_CLI_INT: {
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end)
      return usage_error(cmd, "%s takes an integer, not '%s'", spelled, text);
    if (v < o->min || v > o->max) {
      char range[96];
      snprintf(range, sizeof range, "%s: %lld is outside %" PRId64 "..%" PRId64, spelled, v, o->min,
               o->max);
      return usage_error(cmd, "%s%s", range, "");
    }
    *(int64_t *)o->target = v;
    return TP_EXIT_OK;
  }
  case TP_CLI_FLOAT: {
    /* strtof sets ERANGE for a subnormal result too: that is a float all
     * the same; only one that overflows (inf) or underflows to 0 is not. */
    float v = strtof(text, &end);
    if ((errno && errno != ERANGE) || end == text || *end || !isfinite(v))
      return usage_error(cmd, "%s takes a finite number, not '%s'", spelled, text);
    if (errno == ERANGE && v == 0.0f)
      return usage_error(cmd, "%s: '%s' is too small for a float (it would be 0)", spelled, text);
    *(float *)o->target = v;
    return TP_EXIT_OK;
  }
  }
  return usage_error(cmd, "%s: bad option table entry%s", spelled, "");
}

int tp_cli_parse(const tp_cli_command *cmd, int argc, char **argv, const char **positional,
                 int *num_positional) {
  *num_positional = 0;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      tp_cli_print_help(cmd, stdout);
      return -1;
    }
    if (arg[0] != '-' || arg[1] == '\0') {
      if (*num_positional >= cmd->max_positional)
        return usage_error(cmd, "unexpected argument '%s'%s", arg, "");
      positional[(*num_positional)++] = arg;
      continue;
    }
    /* "--name", "--name=value", or "-x" (one-letter names only). */
    const int dashes = arg[1] == '-' ? 2 : 1;
    const char *name = arg + dashes, *eq = strchr(name, '=');
    const size_t len = eq ? (size_t)(eq - name) : strlen(name);
    const tp_cli_option *o = find_option(cmd, name, len);
    if (o == NULL || (dashes == 1) != (strlen(o->name) == 1) ||
        (eq && o->type == TP_CLI_FLAG))
      return usage_error(cmd, "unknown option '%s'%s", arg, "");
    const char *value = eq ? eq + 1 : NULL;
    if (o->type != TP_CLI_FLAG && value == NULL) {
      if (i + 1 >= argc) return usage_error(cmd, "%s needs a value (%s)", arg, o->metavar);
      value = argv[++i];
    }
    char spelled[64];
    snprintf(spelled, sizeof spelled, "%s%s", dashes == 2 ? "--" : "-", o->name);
    int rc = set_value(cmd, o, spelled, value);
    if (rc != TP_EXIT_OK) return rc;
  }
  return TP_EXIT_OK;
}

void tp_cli_print_help(const tp_cli_command *cmd, FILE *out) {
  fprintf(out, "Usage: tilepipe %s\n\n%s\n\nOptions:\n", cmd->usage, cmd->summary);
  for (int i = 0; i < cmd->num_options; i++) {
    const tp_cli_option *o = &cmd->options[i];
    char left[64];
    snprintf(left, sizeof left, "%s%s%s%s", strlen(o->name) == 1 ? "-" : "--", o->name,
             o->metavar ? " " : "", o->metavar ? o->metavar : "");
    fprintf(out, "  %-22s %s\n", left, o->help);
  }
  fprintf(out, "  %-22s %s\n", "-h, --help", "print this help and exit");
}
