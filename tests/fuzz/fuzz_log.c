/* fuzz_log: libFuzzer target for the log reader (read/, model/) and every output writer:
 * folded, HTML (and the differential page), pprof, text and summary. The input is a .fpl log;
 * fuzz_mutator.c keeps its chunks framed and checksummed so the record decoders are reached.
 * The render options come from the input's last byte, so one corpus covers kinds, per-thread
 * roots, the callers view, a state filter and include/exclude regexes. Every output goes to
 * /dev/null: what is checked is that nothing crashes, leaks or reads out of bounds
 * (AddressSanitizer, UndefinedBehaviorSanitizer). */
#include <stdint.h>
#include <stdio.h>

#include "fpl_format.h"
#include "fuzz_mutator.h"
#include "out_collapsed.h"
#include "out_html.h"
#include "out_pprof.h"
#include "out_text.h"
#include "profile.h"
#include "render.h"
#include "summary.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    sink = fopen("/dev/null", "w");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int kinds[] = {PROFILE_KIND_AUTO, FPL_KIND_CPU, FPL_KIND_WALL,
                                PROFILE_KIND_ALL};
    struct profile *p = profile_new();
    if (!p)
        return 0;
    char err[512];
    if (profile_read_mem(p, data, size, "fuzz.fpl", err, sizeof(err)) == 0) {
        uint8_t sel = size ? data[size - 1] : 0;
        struct render_opts o = {
            .kind = kinds[sel & 3],
            .threads = (sel >> 2) & 1,
            .reverse = (sel >> 3) & 1,
            .state = (sel & 0x10) ? FPL_STATE_PARKED : RENDER_STATE_ALL,
            .include = (sel & 0x20) ? "a|\\[" : NULL,
            .exclude = (sel & 0x40) ? "^java\\." : NULL,
            .title = NULL,
        };
        struct out_collapsed_opts co = {o.kind, o.threads};
        out_collapsed_write(p, &co, sink, err, sizeof(err));
        out_html_write(p, &o, sink, err, sizeof(err));
        out_pprof_write(p, &o, sink, err, sizeof(err));
        out_text_write(p, &o, sink, err, sizeof(err));
        summary_write(p, "fuzz.fpl", sink, err, sizeof(err));
        if (sel & 0x80)
            out_html_write_diff(p, p, &o, sink, err, sizeof(err));
    }
    profile_free(p);
    return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    return fuzz_mutate_log(data, size, max_size, seed);
}
