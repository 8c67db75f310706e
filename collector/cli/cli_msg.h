/* cli_msg.h: how the CLI tells the user something: lines "flyprof: <message>" on stderr.
 * CLI commands only (collector/cli/); library code returns errors instead. */
#ifndef CLI_MSG_H
#define CLI_MSG_H

#include <stdarg.h>

/* Exit codes of every command. record exits with the command's own status instead. */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2

/* Prints "flyprof: " + the formatted message + newline to stderr. */
void cli_msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The same with a va_list. */
void cli_msg_verror(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* A usage error: the message, then one line saying where the usage is ("flyprof help CMD",
 * or "flyprof help" when cmd is NULL), so the error does not scroll away under a page of
 * usage. Returns CLI_EXIT_USAGE. */
int cli_msg_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
