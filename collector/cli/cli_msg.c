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
