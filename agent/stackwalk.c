/* stackwalk.c: AsyncGetCallTrace. stackwalk_java_sigsafe is async-signal-safe. */
#include "stackwalk.h"

#include <dlfcn.h>
#include <errno.h>

/* AGCT's ABI (not in any JDK header). */
struct agct_trace {
    JNIEnv *env_id;
    jint num_frames;
    struct sample_frame *frames;
};
typedef void (*agct_fn)(struct agct_trace *, jint, void *);

static agct_fn agct;

int stackwalk_init(void)
{
    if (!agct)
        agct = (agct_fn)dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
    return agct ? 0 : -ENOENT;
}

int stackwalk_java_sigsafe(JNIEnv *env, void *uc, struct sample_frame *frames, int depth)
{
    struct agct_trace t = {env, 0, frames};
    agct(&t, depth, uc);
    return t.num_frames;
}
