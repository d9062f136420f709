/* tools/cli.h: the tilepipe tool's option parser, help printer and exit
 * codes, shared by every subcommand.
 *
 * A subcommand describes its options in a table (tp_cli_option); the parser
 * accepts `--name value`, `--name=value` and `-x value` (one-letter names),
 * converts and range-checks each value into the option's target (a list
 * option may be given several times, each value appended), collects
 * positional arguments, and handles `-h`/`--help` by printing the help built
 * from the same table. Every refusal names the option and the problem and
 * points at --help. */
#ifndef TP_TOOLS_CLI_H
#define TP_TOOLS_CLI_H

#include <stdint.h>
#include <stdio.h>

/* The tool's exit statuses (docs/tool.md). */
enum {
  TP_EXIT_OK = 0,
  TP_EXIT_FAIL = 1,    /* the command ran and found a wrong result */
  TP_EXIT_USAGE = 2,   /* bad command line */
  TP_EXIT_ERROR = 3,   /* tilepipe or the system failed (message printed) */
  TP_EXIT_NO_GPU = 77  /* the command needs a CUDA GPU and there is none (test-suite "skip") */
};

typedef enum tp_cli_type {
  TP_CLI_FLAG,   /* int *: set to 1 */
  TP_CLI_INT,    /* int64_t *, within [min, max] */
  TP_CLI_FLOAT,  /* float *, finite */
  TP_CLI_STRING, /* const char **, pointing into argv */
  TP_CLI_LIST    /* tp_cli_list *: one value per use, at most `max` uses */
} tp_cli_type;

/* The values of a repeatable option, in the order given (pointing into
 * argv). */
enum { TP_CLI_LIST_MAX = 8 };
typedef struct tp_cli_list {
  const char *values[TP_CLI_LIST_MAX];
  int count;
} tp_cli_list;

typedef struct tp_cli_option {
  const char *name;   /* long name without "--"; a one-letter name is also "-x" */
  tp_cli_type type;
  void *target;
  const char *metavar; /* the value's name in the help ("M", "PATH"); NULL for flags */
  const char *help;
  int64_t min, max;    /* TP_CLI_INT: the range; TP_CLI_LIST: max is the most uses
                          (1 .. TP_CLI_LIST_MAX) */
} tp_cli_option;

typedef struct tp_cli_command {
  const char *name;        /* "run" */
  const char *usage;       /* "run --payload P --epilogue E -m M -n N -k K [options]" */
  const char *summary;     /* a paragraph printed under the usage line */
  const tp_cli_option *options;
  int num_options;
  int max_positional;      /* how many positional arguments it takes */
} tp_cli_command;

/* Parses argv[1 .. argc-1] (argv[0] is the subcommand's name). Positional
 * arguments go to positional[] (at most cmd->max_positional). Returns
 * TP_EXIT_OK to go on, -1 when help was printed (the caller exits 0), or
 * TP_EXIT_USAGE after printing why to stderr. */
int tp_cli_parse(const tp_cli_command *cmd, int argc, char **argv, const char **positional,
                 int *num_positional);

void tp_cli_print_help(const tp_cli_command *cmd, FILE *out);

#if defined(__GNUC__)
#define TP_CLI_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define TP_CLI_PRINTF(fmt, args)
#endif

/* Prints "tilepipe CMD: message" (printf-style) to stderr and returns code. */
int tp_cli_fail(const char *cmd, int code, const char *fmt, ...) TP_CLI_PRINTF(3, 4);

#endif
