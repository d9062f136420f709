/* tools/tilepipe.c: the `tilepipe` command-line tool: dispatches to its
 * subcommands (tools/cmd_*.c). docs/tool.md documents every command. */
#include <stdio.h>
#include <string.h>

#include "tilepipe/tilepipe.h"
#include "tools/cli.h"
#include "tools/commands.h"

static const struct {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
} commands[] = {
    {"list", tp_cmd_list, "list the plugins of the registry, with their status and load errors"},
    {"info", tp_cmd_info, "show everything the registry knows about one plugin"},
    {"run", tp_cmd_run, "run one GEMM on random inputs; time it, optionally verify it"},
    {"bench", tp_cmd_bench, "benchmark a payload against cuBLASLt on the GPU"},
    {"link", tp_cmd_link, "link a payload x epilogue kernel without a GPU, check ptxas's report"},
    {"warm", tp_cmd_warm, "link the kernels of a shape list into the kernel cache, in parallel"},
};
#define NUM_COMMANDS (int)(sizeof commands / sizeof commands[0])

static void print_usage(FILE *out) {
  fprintf(out, "Usage: tilepipe COMMAND [options]   (tilepipe COMMAND --help for its options)\n\n"
               "tilepipe %s: GEMMs composed of payload and epilogue plugins.\n\nCommands:\n",
          tp_version());
  for (int i = 0; i < NUM_COMMANDS; i++)
    fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
  fprintf(out, "\nThe registry is --registry PATH, else $TILEPIPE_REGISTRY, ./tilepipe.ini, or the\n"
               "installed one. Exit status: 0 ok, 1 wrong result, 2 bad command line, 3 error,\n"
               "77 no CUDA GPU for a command that needs one.\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    print_usage(stderr);
    return TP_EXIT_USAGE;
  }
  const char *name = argv[1];
  if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "help") == 0) {
    print_usage(stdout);
    return TP_EXIT_OK;
  }
  if (strcmp(name, "--version") == 0) {
    printf("tilepipe %s\n", tp_version());
    return TP_EXIT_OK;
  }
  for (int i = 0; i < NUM_COMMANDS; i++)
    if (strcmp(name, commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "tilepipe: unknown command '%s' (commands: list, info, run, bench, link, warm; see "
                  "'tilepipe --help')\n",
          name);
  return TP_EXIT_USAGE;
}
