/* jfr_meta.h: the types of the JFR files flyprof writes, and the metadata event that
 * describes them (collector/format/JFR.md lists them).
 *
 * A JFR reader knows no type by itself: each chunk carries a metadata event, a tree of
 * elements (root > metadata > class > field / annotation, and root > region) whose strings
 * are kept in a pool at its start, naming every type its events and constant pools use, with
 * its id, fields in order, and annotations. The readers find the JDK's events and types by
 * name (jdk.ExecutionSample, jdk.types.StackFrame, ...) and fields by name, so flyprof's
 * jdk.* types have the JDK's field names and types in the JDK's order, a subset where the
 * JDK's readers fall back to a default for a missing field (RecordedThread.getJavaThreadId,
 * RecordedClass.getClassLoader); flyprof's own events are flyprof.* types. Ids are flyprof's
 * own choice, fixed for all chunks of a file; 0 and 1 are the metadata and checkpoint
 * events. Any thread.
 */
#ifndef JFR_META_H
#define JFR_META_H

#include <stdint.h>

#include "fpl_codec.h"

enum jfr_type_id {
    JFR_TYPE_METADATA = 0,
    JFR_TYPE_CHECKPOINT = 1,
    /* primitives and java.lang.String */
    JFR_TYPE_BOOLEAN = 20,
    JFR_TYPE_INT = 21,
    JFR_TYPE_LONG = 22,
    JFR_TYPE_STRING = 23,
    /* constant-pool types */
    JFR_TYPE_THREAD = 30,       /* java.lang.Thread */
    JFR_TYPE_CLASS = 31,        /* java.lang.Class */
    JFR_TYPE_SYMBOL = 32,       /* jdk.types.Symbol (a simple type: one string) */
    JFR_TYPE_PACKAGE = 33,      /* jdk.types.Package */
    JFR_TYPE_METHOD = 34,       /* jdk.types.Method */
    JFR_TYPE_FRAME = 35,        /* jdk.types.StackFrame (inside stack traces, not a pool) */
    JFR_TYPE_FRAME_TYPE = 36,   /* jdk.types.FrameType (simple: its description) */
    JFR_TYPE_THREAD_STATE = 37, /* jdk.types.ThreadState (simple: its name) */
    JFR_TYPE_STACK_TRACE = 38,  /* jdk.types.StackTrace */
    /* annotations */
    JFR_TYPE_LABEL = 50,       /* jdk.jfr.Label */
    JFR_TYPE_CATEGORY = 51,    /* jdk.jfr.Category */
    JFR_TYPE_TIMESTAMP = 52,   /* jdk.jfr.Timestamp */
    JFR_TYPE_TIMESPAN = 53,    /* jdk.jfr.Timespan */
    JFR_TYPE_DESCRIPTION = 54, /* jdk.jfr.Description */
    JFR_TYPE_DATA_AMOUNT = 55, /* jdk.jfr.DataAmount */
    JFR_TYPE_CONTENT_TYPE = 56, /* jdk.jfr.ContentType: marks the unit annotations above */
    /* events */
    JFR_EVENT_EXECUTION_SAMPLE = 101, /* jdk.ExecutionSample */
    JFR_EVENT_WALL_SAMPLE = 102,      /* flyprof.WallSample: wall samples beside CPU ones */
    JFR_EVENT_ACTIVE_SETTING = 103,   /* jdk.ActiveSetting */
    JFR_EVENT_CONTEXT_SAMPLE = 104,   /* flyprof.ContextSample: a sample's trace context */
    JFR_EVENT_STALL = 105,            /* flyprof.Stall: a hiccup probe's stall */
    JFR_EVENT_GC_PAUSE = 106,         /* flyprof.GCPause: a GC pause of hiccup mode */
    JFR_EVENT_ALLOC_SAMPLE = 107,     /* jdk.ObjectAllocationSample: an ALLOC sample */
    JFR_EVENT_MONITOR_ENTER = 108,    /* jdk.JavaMonitorEnter: a LOCK sample on a monitor */
    JFR_EVENT_THREAD_PARK = 109,      /* jdk.ThreadPark: a LOCK sample of a j.u.c. lock */
    JFR_EVENT_LIVE_OBJECT = 110,      /* flyprof.LiveObject: a LIVE sample */
    /* the trace context of an alloc, lock or live event: its fields, then the context's */
    JFR_EVENT_ALLOC_CONTEXT = 111,  /* flyprof.ObjectAllocationSampleContext */
    JFR_EVENT_MONITOR_CONTEXT = 112, /* flyprof.JavaMonitorEnterContext */
    JFR_EVENT_PARK_CONTEXT = 113,   /* flyprof.ThreadParkContext */
    JFR_EVENT_LIVE_CONTEXT = 114,   /* flyprof.LiveObjectContext */
};

/* jdk.types.ThreadState's values by flyprof state (enum fpl_state, then the collector's
 * PROFILE_STATE_JVM_IDLE and PROFILE_STATE_OTHER, profile.h): HotSpot's names where HotSpot
 * has the state, flyprof's own in the same style where it has not (JFR.md section 2). The
 * writer's key of a state is its index + 1; the reader (jfr_import.c) maps names back. */
#define JFR_META_STATES 10
#define JFR_META_STATE_JVM_IDLE 8 /* PROFILE_STATE_JVM_IDLE */
extern const char *const jfr_meta_state_names[JFR_META_STATES];

/* Appends the metadata event (its size field included) to b, with start ticks and the
 * metadata id (the same id in every chunk: the readers then reuse the types they parsed).
 * Returns 0, -ENOMEM (b->failed), or -EFBIG. */
int jfr_meta_write(struct fpl_buf *b, uint64_t start_ticks, uint64_t metadata_id);

#endif
