/* writer_service.h: housekeeping of another module that the writer thread runs for it, so
 * the writer names none of them: a session lists them in writer_session.services (writer.h),
 * control.c its own and the engines' (engine.h: service). Apart from writer.h so that an
 * engine can define one without depending on the writer. */
#ifndef WRITER_SERVICE_H
#define WRITER_SERVICE_H

#include <jni.h>
#include <stdint.h>

#include "fpl_codec.h"

#define WRITER_PERIOD_NS 1000000000ull /* counters, anchor and flush each second */

/* One service. */
struct writer_service {
    const char *name;
    /* Runs on the writer thread; may append records to chunk (the chunk being built: records
     * of this log) and call JNI through jni (the writer's). Returns the ns until it wants to
     * run again, UINT64_MAX when its period will do. */
    uint64_t (*run)(struct fpl_buf *chunk, JNIEnv *jni);
    /* 0: after every drain; WRITER_PERIOD_NS: once a second, after the counters (no other
     * period: writer_prepare refuses it) */
    uint64_t period_ns;
    /* 1: also run just before the seam of a loop= rotation, so that what it appends goes into
     * the log that ends there */
    int at_seam;
    /* NULL, or run once when sampling is over and the ring is drained, before the log ends */
    void (*end)(struct fpl_buf *chunk, JNIEnv *jni);
};

#endif
