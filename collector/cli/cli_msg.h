/* cli_msg.h: how the CLI tells the user something: one line "flyprof: <message>" on stderr.
 * CLI commands only (main.c, cmd_attach.c); library code returns errors instead. */
#ifndef CLI_MSG_H
#define CLI_MSG_H

#include <stdarg.h>

/* Prints "flyprof: " + the formatted message + newline to stderr. */
void cli_msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The same with a va_list. */
void cli_msg_verror(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
