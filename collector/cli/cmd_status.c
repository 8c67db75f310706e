/* cmd_status.c: `flyprof status PID`: whether flyprof is loaded and what it does. */
#include "cmd_status.h"

#include <stdio.h>
#include <string.h>

#include "cli_msg.h"
#include "cli_target.h"
#include "fpl_optval.h"

static int run(int argc, char **argv)
{
    struct cli_target_args a;
    int rc = cli_target_parse(argc, argv, 0, &cmd_status, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct attach_target t;
    char desc[512], b1[32], b2[32];
    if ((rc = cli_target_inspect(a.pid, &t)) != 0)
        return rc;
    cli_target_describe(&t, desc, sizeof(desc));
    if (!t.agent[0]) {
        printf("%s: flyprof is not loaded\n", desc);
        return 0;
    }
    cli_target_catch_signals();
    struct attach_reply r;
    struct attach_status st;
    if (cli_target_action(&t, t.agent, "status", &r) != 0)
        return CLI_EXIT_FAIL;
    if (!r.have || attach_parse_status(r.text, &st) != 0) {
        printf("%s: flyprof is loaded; its status: %s\n", desc,
               r.have ? r.text : "(no reply: an older agent prints it on the JVM's stderr)");
        return 0;
    }
    int has_file = st.file[0] && strcmp(st.file, "-");
    char lost[256] = "";
    if (st.lost_chunks)
        snprintf(lost, sizeof(lost),
                 "%llu chunk%s (%llu samples) lost to write errors (%s): the log is incomplete",
                 (unsigned long long)st.lost_chunks, st.lost_chunks == 1 ? "" : "s",
                 (unsigned long long)st.lost_samples, strerror(st.write_errno));
    if (!st.running) {
        printf("%s: flyprof is loaded, not profiling%s%s%s\n", desc,
               has_file ? " (last output " : "", has_file ? st.file : "", has_file ? ")" : "");
        if (lost[0])
            printf("  its log   %s\n", lost);
        return 0;
    }
    printf("%s: flyprof is profiling\n", desc);
    if (st.cpu_ns)
        printf("  cpu       every %s (%s)\n", fpl_optval_time_str(st.cpu_ns, b1, sizeof(b1)),
               st.engine);
    if (st.wall_ns)
        printf("  wall      every %s, %u threads per tick%s\n",
               fpl_optval_time_str(st.wall_ns, b2, sizeof(b2)), st.wall_threads,
               st.filter ? ", marked threads only" : "");
    if (st.alloc)
        printf("  alloc     a sample every %llu bytes allocated on average\n",
               (unsigned long long)st.alloc_bytes);
    if (st.lock)
        printf("  lock      waits of %s or longer\n",
               fpl_optval_time_str(st.lock_ns, b2, sizeof(b2)));
    printf("  samples   %llu (%llu dropped)\n", (unsigned long long)st.samples,
           (unsigned long long)st.drops);
    if (st.live_threads >= 0)
        printf("  threads   %d\n", st.live_threads);
    printf("  output    %s\n", has_file ? st.file : "-");
    if (lost[0])
        printf("  log       %s\n", lost);
    return 0;
}

const struct cli_cmd cmd_status = {
    "status",
    "whether flyprof is loaded in a JVM and what it samples",
    "usage: flyprof status PID\n"
    "\n"
    "Says whether flyprof is loaded in the JVM PID and, when it is profiling, what it samples\n"
    "and how often, the samples and drops so far, the output file, and the chunks of the log\n"
    "it could not write (a full disk), if any.\n"
    "\n"
    "example:\n"
    "  flyprof status 4242\n",
    run,
};
