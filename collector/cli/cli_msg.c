/* cli_msg.c: the CLI's error lines. */
#include "cli_msg.h"

#include <stdio.h>

void cli_msg_verror(const char *fmt, va_list ap)
{
    fputs("flyprof: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\n", stderr);
}

void cli_msg_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_msg_verror(fmt, ap);
    va_end(ap);
}

int cli_msg_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_msg_verror(fmt, ap);
    va_end(ap);
    fprintf(stderr, "flyprof: see 'flyprof help%s%s' for the usage\n", cmd ? " " : "",
            cmd ? cmd : "");
    return CLI_EXIT_USAGE;
}
