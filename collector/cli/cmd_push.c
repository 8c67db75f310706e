/* cmd_push.c: `flyprof push --db URL --service NAME LOG...`: logs into ClickHouse (push.h). */
#include "cmd_push.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "chttp.h"
#include "cli_msg.h"
#include "profile.h"
#include "push.h"

#define ERR_MAX 1024
#define FOLLOW_PERIOD_S 2   /* --follow: how often the folder is looked at */
#define FOLLOW_DEAD_S 60    /* a log unchanged this long without its END: pushed as it is */

/* Pushes one log and says what happened. Returns 0, or -1 (said on stderr). */
static int push_one(const struct chttp_url *u, const struct push_opts *o, const char *path)
{
    struct push_result r;
    char err[ERR_MAX];
    if (push_log(u, o, path, &r, err, sizeof(err)) != 0) {
        cli_msg_error("%s: not pushed: %s", path, err);
        return -1;
    }
    if (r.skipped) {
        printf("%s: already in %s (log %016llx), skipped\n", path, u->url,
               (unsigned long long)r.log_id);
        fflush(stdout);
        return 0;
    }
    printf("%s: %llu samples in %llu rows, %llu new stacks%s%s\n", path,
           (unsigned long long)r.samples, (unsigned long long)r.rows,
           (unsigned long long)r.stacks, r.replaced ? ", replacing an earlier push" : "",
           r.complete ? "" : " (incomplete: still being written, or damaged; a later push "
                             "of the complete log replaces it)");
    fflush(stdout);
    if (r.damaged_chunks)
        cli_msg_error("warning: %s: %llu chunks damaged or lost were skipped", path,
                      (unsigned long long)r.damaged_chunks);
    return 0;
}

static volatile sig_atomic_t follow_stop;

static void on_stop(int sig)
{
    (void)sig;
    follow_stop = 1;
}

/* A log of the folder --follow watches. */
struct seen {
    char *name;
    off_t size;
    struct timespec mtime;
    time_t still_since; /* when it was first seen at this size and time */
    int done;           /* pushed complete (or pushed as it was, dead) */
};

/* Whether the log at path has its END and no damage: the agent closed it. */
static int log_complete(const char *path)
{
    struct profile *p = profile_new();
    char err[ERR_MAX];
    int ok = p && profile_read_file(p, path, err, sizeof(err)) == 0 && p->end_seen &&
             !p->stats.chunks_truncated;
    profile_free(p);
    return ok;
}

/* --follow DIR: pushes each log of DIR once the agent has closed it (its END is written and
 * it no longer changes; a log that stays unchanged without END for FOLLOW_DEAD_S, a killed
 * JVM's, goes as it is), until SIGINT or SIGTERM. A push that fails (ClickHouse down,
 * restarting) is tried again every round: a log is done only when ClickHouse has it. */
static int follow_dir(const struct chttp_url *u, const struct push_opts *o, const char *dir)
{
    struct seen *logs = NULL;
    size_t n = 0, cap = 0;
    int schema_ok = 0, down = 0, rc = CLI_EXIT_OK;
    char err[ERR_MAX];
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop; /* no SA_RESTART: the sleep ends at once */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    while (!follow_stop) {
        DIR *d = opendir(dir);
        if (!d) {
            cli_msg_error("push --follow: cannot read the folder '%s': %s", dir, strerror(errno));
            rc = CLI_EXIT_FAIL;
            break;
        }
        if (!schema_ok && push_schema(u, o->cluster, err, sizeof(err)) == 0)
            schema_ok = 1;
        struct dirent *de;
        time_t now = time(NULL);
        while ((de = readdir(d)) != NULL && !follow_stop) {
            size_t len = strlen(de->d_name);
            if (len < 5 || strcmp(de->d_name + len - 4, ".fpl") != 0)
                continue;
            char path[PATH_MAX];
            if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= sizeof(path))
                continue;
            struct stat st;
            if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
                continue;
            size_t k;
            for (k = 0; k < n && strcmp(logs[k].name, de->d_name) != 0; k++)
                ;
            if (k == n) {
                struct seen *q = n == cap ? realloc(logs, (cap = cap ? 2 * cap : 64) *
                                                              sizeof(*logs))
                                          : logs;
                char *name = q ? strdup(de->d_name) : NULL;
                if (!q || !name) {
                    free(name);
                    cli_msg_error("out of memory");
                    rc = CLI_EXIT_FAIL;
                    break;
                }
                logs = q;
                logs[n++] = (struct seen){name, -1, {0, 0}, now, 0};
            }
            struct seen *s = &logs[k];
            if (st.st_size != s->size || st.st_mtim.tv_sec != s->mtime.tv_sec ||
                st.st_mtim.tv_nsec != s->mtime.tv_nsec) {
                s->size = st.st_size; /* changed: written to, or new */
                s->mtime = st.st_mtim;
                s->still_since = now;
                s->done = 0;
                continue;
            }
            if (s->done || !schema_ok)
                continue;
            int complete = log_complete(path);
            if (!complete && now - s->still_since < FOLLOW_DEAD_S)
                continue;
            if (push_one(u, o, path) == 0) {
                s->done = 1;
                down = 0;
            } else if (!down) {
                down = 1;
                cli_msg_error("push --follow: will try again every %d s", FOLLOW_PERIOD_S);
            }
        }
        closedir(d);
        if (rc != CLI_EXIT_OK)
            break;
        if (!schema_ok && !down) {
            down = 1;
            cli_msg_error("%s; push --follow: will try again every %d s", err, FOLLOW_PERIOD_S);
        }
        if (!follow_stop)
            sleep(FOLLOW_PERIOD_S);
    }
    for (size_t k = 0; k < n; k++)
        free(logs[k].name);
    free(logs);
    return rc;
}

static int run(int argc, char **argv)
{
    const char *db = NULL, *follow = NULL;
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
        } else if ((m = cli_args_value(argc, argv, &i, "--cluster", NULL, &v)) != 0) {
            rc = m < 0 || !*v ? cli_msg_usage("push", "push: --cluster needs a name") : rc;
            o.cluster = v;
        } else if ((m = cli_args_value(argc, argv, &i, "--follow", NULL, &v)) != 0) {
            rc = m < 0 || !*v ? cli_msg_usage("push", "push: --follow needs a folder") : rc;
            follow = v;
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
    if (rc == CLI_EXIT_OK && !nlogs && !follow)
        rc = cli_msg_usage("push", "push: no log to push (give logs, or --follow DIR)");
    if (rc == CLI_EXIT_OK && nlogs && follow)
        rc = cli_msg_usage("push", "push: logs or --follow DIR, not both");
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
    if (rc == CLI_EXIT_OK && !follow && push_schema(&u, o.cluster, err, sizeof(err)) != 0) {
        cli_msg_error("%s", err);
        rc = CLI_EXIT_FAIL;
    }
    size_t failed = 0;
    for (size_t k = 0; rc == CLI_EXIT_OK && !follow && k < nlogs; k++)
        failed += push_one(&u, &o, logs[k]) != 0;
    if (rc == CLI_EXIT_OK && follow)
        rc = follow_dir(&u, &o, follow);
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
    "usage: flyprof push --db URL --service NAME [--host H] [--label K=V]... LOG...|--follow DIR\n"
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
    "  --cluster NAME    the database spans the servers of cluster NAME (their\n"
    "                    remote_servers): tables on each, Distributed tables over them\n"
    "  --follow DIR      keep pushing the logs a rotating agent (loop=) closes in DIR, until\n"
    "                    stopped; a failed push is tried again every 2 s\n"
    "\n"
    "example:\n"
    "  flyprof push --db http://clickhouse:8123 --service orders --label version=1.4 app-*.fpl\n",
    run,
};
