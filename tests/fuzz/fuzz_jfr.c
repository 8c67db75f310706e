/* fuzz_jfr: libFuzzer target for the JFR reader (read/jfr_import.c) and what reads its
 * result: the input is a JFR file, imported into a log in a memory file, which is then read
 * as a profile and folded. Seeds are JFR files flyprof writes (run_fuzz.py converts the
 * fuzz_seeds logs to .jfr, one chunk and several); libFuzzer's own mutations reach the chunk
 * headers, the metadata, the constant pools and the events. Checked: nothing crashes, leaks
 * or reads out of bounds (AddressSanitizer, UndefinedBehaviorSanitizer), and a file the
 * reader refuses gets a message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jfr_import.h"
#include "out_collapsed.h"
#include "profile.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
    char err[1024] = "";
    uint64_t samples = 0;
    int fd = memfd_create("fuzz-jfr", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    int rc = jfr_import(data, size, "fuzz.jfr", fd, &samples, err, sizeof(err));
    if (rc && !err[0])
        abort(); /* a refusal without a message */
    off_t len = lseek(fd, 0, SEEK_END);
    if (rc == 0 && len > 0) {
        void *log = mmap(NULL, (size_t)len, PROT_READ, MAP_PRIVATE, fd, 0);
        struct profile *p = profile_new();
        if (log != MAP_FAILED && p &&
            profile_read_mem(p, log, (size_t)len, "fuzz", err, sizeof(err)) == 0) {
            struct out_collapsed_opts o = {PROFILE_KIND_ALL, 1, 1};
            out_collapsed_write(p, &o, sink, err, sizeof(err));
        }
        profile_free(p);
        if (log != MAP_FAILED)
            munmap(log, (size_t)len);
    }
    close(fd);
    return 0;
}
