/* cmd_push.c: `flyprof push --db URL --service NAME LOG...`: logs into ClickHouse (push.h). */
#include "cmd_push.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chttp.h"
#include "cli_msg.h"
#include "push.h"

#define ERR_MAX 1024

static int run(int argc, char **argv)
{
    const char *db = NULL;
    struct push_opts o = {0};
    const char **labels = calloc((size_t)argc, sizeof(*labels));
    const char **logs = calloc((size_t)argc, sizeof(*logs));
    size_t nlogs = 0;
    char host[256], err[ERR_MAX];
    int rc = CLI_EXIT_OK;
    if (!labels || !logs) {
        free(labels);
        free(logs);
        cli_msg_error("out of memory");
        return CLI_EXIT_FAIL;
    }
    for (int i = 1; i < argc && rc == CLI_EXIT_OK; i++) {
        const char *v = NULL;
        int m;
        if (cli_args_is_help(argv[i])) {
            cli_args_help(&cmd_push, stdout);
            free(labels);
            free(logs);
            return CLI_EXIT_OK;
        } else if ((m = cli_args_value(argc, argv, &i, "--db", NULL, &v)) != 0) {
            rc = m < 0 ? cli_msg_usage("push", "push: --db needs a URL") : rc;
            db = v;
        } else if ((m = cli_args_value(argc, argv, &i, "--service", NULL, &v)) != 0) {
            rc = m < 0 || !*v ? cli_msg_usage("push", "push: --service needs a name") : rc;
            o.service = v;
        } else if ((m = cli_args_value(argc, argv, &i, "--host", NULL, &v)) != 0) {
            rc = m < 0 || !*v ? cli_msg_usage("push", "push: --host needs a name") : rc;
            o.host = v;
        } else if ((m = cli_args_value(argc, argv, &i, "--label", NULL, &v)) != 0) {
            if (m < 0 || !strchr(v, '=') || v[0] == '=')
                rc = cli_msg_usage("push", "push: --label takes KEY=VALUE ('%s')",
                                   m < 0 ? "" : v);
            labels[o.nlabels++] = v;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            rc = cli_msg_usage("push", "push: unknown option '%s'", argv[i]);
        } else {
            logs[nlogs++] = argv[i];
        }
    }
    if (rc == CLI_EXIT_OK && !db)
        rc = cli_msg_usage("push", "push: where to? add --db http://HOST:8123[/DATABASE]");
    if (rc == CLI_EXIT_OK && !o.service)
        rc = cli_msg_usage("push", "push: add --service NAME (what the fleet's queries select)");
    if (rc == CLI_EXIT_OK && !nlogs)
        rc = cli_msg_usage("push", "push: no log to push");
    struct chttp_url u;
    if (rc == CLI_EXIT_OK && chttp_url_parse(db, &u, err, sizeof(err)) != 0)
        rc = cli_msg_usage("push", "push: %s", err);
    if (rc == CLI_EXIT_OK && !o.host) {
        if (gethostname(host, sizeof(host)) != 0)
            snprintf(host, sizeof(host), "unknown");
        host[sizeof(host) - 1] = 0;
        o.host = host;
    }
    o.labels = labels;
    if (rc == CLI_EXIT_OK && push_schema(&u, err, sizeof(err)) != 0) {
        cli_msg_error("%s", err);
        rc = CLI_EXIT_FAIL;
    }
    size_t failed = 0;
    for (size_t k = 0; rc == CLI_EXIT_OK && k < nlogs; k++) {
        struct push_result r;
        if (push_log(&u, &o, logs[k], &r, err, sizeof(err)) != 0) {
            /* the others still go: a file is done only when ClickHouse has it */
            cli_msg_error("%s: not pushed: %s", logs[k], err);
            failed++;
            continue;
        }
        if (r.skipped) {
            printf("%s: already in %s (log %016llx), skipped\n", logs[k], u.url,
                   (unsigned long long)r.log_id);
            continue;
        }
        printf("%s: %llu samples in %llu rows, %llu stacks%s%s\n", logs[k],
               (unsigned long long)r.samples, (unsigned long long)r.rows,
               (unsigned long long)r.stacks, r.replaced ? ", replacing an earlier push" : "",
               r.complete ? "" : " (incomplete: still being written, or damaged; a later push "
                                 "of the complete log replaces it)");
        if (r.other_kinds)
            cli_msg_error("warning: %s: %llu alloc, lock and live samples not pushed: the "
                          "fleet's tables hold CPU and wall samples (yet)", logs[k],
                          (unsigned long long)r.other_kinds);
        if (r.damaged_chunks)
            cli_msg_error("warning: %s: %llu chunks damaged or lost were skipped", logs[k],
                          (unsigned long long)r.damaged_chunks);
    }
    if (rc == CLI_EXIT_OK && failed) {
        cli_msg_error("%zu of %zu logs not pushed", failed, nlogs);
        rc = CLI_EXIT_FAIL;
    }
    free(labels);
    free(logs);
    return rc;
}

const struct cli_cmd cmd_push = {
    "push",
    "ship logs into ClickHouse, the fleet's profile store",
    "usage: flyprof push --db URL --service NAME [--host H] [--label K=V]... LOG...\n"
    "\n"
    "Ships each LOG into ClickHouse over its HTTP interface, as rows summed per minute,\n"
    "thread, state, request endpoint and stack (the schema is in the README). Makes the\n"
    "database and its tables when missing. Pushing a log twice does not count it twice; a log\n"
    "pushed while incomplete is replaced by the next push of it.\n"
    "\n"
    "options:\n"
    "  --db URL          ClickHouse: http://HOST[:PORT][/DATABASE] (port 8123, database\n"
    "                    flyprof by default)\n"
    "  --service NAME    the service these logs profile\n"
    "  --host H          the host they come from (default: this machine's name)\n"
    "  --label K=V       a label of the logs (repeatable): a deploy, a region, a version\n"
    "\n"
    "example:\n"
    "  flyprof push --db http://clickhouse:8123 --service orders --label version=1.4 app-*.fpl\n",
    run,
};
