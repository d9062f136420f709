/* tools/commands.h: the tilepipe tool's subcommands. Each takes its own
 * argv (argv[0] is the subcommand's name) and returns the process's exit
 * status (tools/cli.h, docs/tool.md). */
#ifndef TP_TOOLS_COMMANDS_H
#define TP_TOOLS_COMMANDS_H

int tp_cmd_list(int argc, char **argv);
int tp_cmd_info(int argc, char **argv);
int tp_cmd_run(int argc, char **argv);
int tp_cmd_bench(int argc, char **argv);
int tp_cmd_link(int argc, char **argv);
int tp_cmd_warm(int argc, char **argv);

#endif
