/* cmd_list.c: `flyprof list`: the local JVMs and whether flyprof is loaded in them. */
#include "cmd_list.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_msg.h"
#include "jvmlist.h"

#define ERR_MAX 2048

static int run(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (cli_args_is_help(argv[i])) {
            cli_args_help(&cmd_list, stdout);
            return CLI_EXIT_OK;
        }
        return cli_msg_usage("list", "list: unexpected argument '%s'", argv[i]);
    }
    struct jvmlist_entry *v;
    size_t n, hidden;
    char err[ERR_MAX];
    if (jvmlist_scan(&v, &n, &hidden, err, sizeof(err)) != 0) {
        cli_msg_error("%s", err);
        return CLI_EXIT_FAIL;
    }
    if (n)
        printf("%-8s %-10s %-4s %-8s %s\n", "PID", "USER", "JDK", "FLYPROF", "MAIN");
    for (size_t i = 0; i < n; i++) {
        char user[32], jdk[16];
        struct passwd *pw = getpwuid(v[i].uid);
        if (pw)
            snprintf(user, sizeof(user), "%s", pw->pw_name);
        else
            snprintf(user, sizeof(user), "%u", (unsigned)v[i].uid);
        if (v[i].java_major)
            snprintf(jdk, sizeof(jdk), "%d", v[i].java_major);
        else
            snprintf(jdk, sizeof(jdk), "?");
        printf("%-8d %-10s %-4s %-8s %s\n", (int)v[i].pid, user, jdk, v[i].flyprof ? "loaded" : "-",
               v[i].main[0] ? v[i].main : "?");
    }
    if (!n)
        cli_msg_error("no Java VMs found");
    if (hidden)
        cli_msg_error(
            "%zu java process%s of other users not shown: run flyprof as root to see them", hidden,
            hidden == 1 ? "" : "es");
    free(v);
    return 0;
}

const struct cli_cmd cmd_list = {
    "list",
    "the local JVMs, and whether flyprof is loaded in them",
    "usage: flyprof list\n"
    "\n"
    "Lists the local JVMs: pid, user, JDK version, main class or jar, and whether flyprof is\n"
    "loaded. As root it shows every user's JVMs.\n"
    "\n"
    "example:\n"
    "  flyprof list\n",
    run,
};
