/* main.c: the flyprof command-line tool: picks the command and runs it. Each command lives in
 * its own cmd_*.c with its help text; `flyprof help` lists them. Exit codes: 0 success, 1
 * failure, 2 usage error; record exits with its command's status. */
#include <stdio.h>
#include <string.h>

#include "cli_args.h"
#include "cli_msg.h"
#include "cmd_attach.h"
#include "cmd_convert.h"
#include "cmd_diff.h"
#include "cmd_dump.h"
#include "cmd_events.h"
#include "cmd_hiccups.h"
#include "cmd_jitter.h"
#include "cmd_list.h"
#include "cmd_push.h"
#include "cmd_record.h"
#include "cmd_start.h"
#include "cmd_status.h"
#include "cmd_stop.h"
#include "cmd_summary.h"

#ifndef FLYPROF_VERSION
#define FLYPROF_VERSION "unknown"
#endif

/* In the order `flyprof help` lists them: profiling first, then reading logs. */
static const struct cli_cmd *const commands[] = {
    &cmd_record, &cmd_attach,  &cmd_start, &cmd_stop,    &cmd_dump,   &cmd_status,
    &cmd_list,   &cmd_convert, &cmd_diff,  &cmd_summary, &cmd_events, &cmd_hiccups,
    &cmd_jitter, &cmd_push,
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct cli_cmd *find(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++) {
        if (strcmp(commands[i]->name, name) == 0)
            return commands[i];
    }
    return NULL;
}

/* The overview: one line per command. */
static void overview(FILE *f)
{
    fprintf(f, "flyprof %s: a low-overhead sampling profiler for JVMs\n\n", FLYPROF_VERSION);
    fprintf(f, "usage: flyprof COMMAND [ARGS...]\n\ncommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-9s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(f, "  %-9s %s\n", "help", "a command's usage, options and an example");
    fprintf(f, "\n'flyprof help COMMAND' or 'flyprof COMMAND --help' shows a command's usage;\n"
               "'flyprof --version' prints the version.\n");
}

static int help(int argc, char **argv)
{
    if (argc < 2 || cli_args_is_help(argv[1])) {
        overview(stdout);
        return CLI_EXIT_OK;
    }
    if (argc > 2)
        return cli_msg_usage(NULL, "help: one command at a time ('%s' and '%s')", argv[1], argv[2]);
    if (strcmp(argv[1], "help") == 0) {
        overview(stdout);
        return CLI_EXIT_OK;
    }
    const struct cli_cmd *c = find(argv[1]);
    if (!c)
        return cli_msg_usage(NULL, "help: unknown command '%s'", argv[1]);
    cli_args_help(c, stdout);
    return CLI_EXIT_OK;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return cli_msg_usage(NULL, "no command given");
    const char *cmd = argv[1];
    if (cli_args_is_help(cmd) || strcmp(cmd, "help") == 0)
        return help(argc - 1, argv + 1);
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("flyprof %s\n", FLYPROF_VERSION);
        return CLI_EXIT_OK;
    }
    const struct cli_cmd *c = find(cmd);
    if (!c)
        return cli_msg_usage(NULL, "unknown command '%s'", cmd);
    return c->run(argc - 1, argv + 1);
}
