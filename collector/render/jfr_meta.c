/* jfr_meta.c: flyprof's JFR types and their metadata event (see jfr_meta.h). The types are a
 * table; the event is made from it: the element tree into one buffer while its strings are
 * pooled, then the pool and the tree after the event's fixed fields. */
#include "jfr_meta.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "jfr_enc.h"

const char *const jfr_meta_state_names[JFR_META_STATES] = {"STATE_UNKNOWN",
                                                           "STATE_RUNNABLE",
                                                           "STATE_BLOCKED_ON_MONITOR_ENTER",
                                                           "STATE_IN_OBJECT_WAIT",
                                                           "STATE_IN_OBJECT_WAIT_TIMED",
                                                           "STATE_PARKED",
                                                           "STATE_SLEEPING",
                                                           "STATE_IN_NATIVE",
                                                           "STATE_JVM_IDLE",
                                                           "STATE_OTHER"};

/* A field's unit annotation: @Timestamp, @Timespan or @DataAmount with its value. */
enum time_unit {
    NO_TIME,
    TIMESTAMP_TICKS,
    TIMESPAN_TICKS,
    TIMESPAN_NS,       /* @Timespan("NANOSECONDS") */
    TIMESTAMP_MS_EPOCH, /* @Timestamp("MILLISECONDS_SINCE_EPOCH") */
    DATA_BYTES,        /* @DataAmount("BYTES") */
};

struct field {
    const char *name;
    uint32_t type;
    uint8_t cp;    /* a constant-pool key */
    uint8_t array; /* an array of the type */
    uint8_t time;  /* enum time_unit (a unit annotation) */
    const char *label;
};

struct type {
    uint32_t id;
    const char *name;
    const char *super; /* NULL, "jdk.jfr.Event", "java.lang.annotation.Annotation" */
    uint8_t simple;    /* one field, which readers show in its place */
    const char *label;
    const char *category[2]; /* an event's category path (JMC's event browser tree) */
    const char *description;
    const struct field *fields;
    size_t nfields;
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* startTime comes first and duration second: the readers take them by position */
#define START_TIME                                                                                 \
    {                                                                                              \
        "startTime", JFR_TYPE_LONG, 0, 0, TIMESTAMP_TICKS, "Start Time"                            \
    }
#define DURATION                                                                                   \
    {                                                                                              \
        "duration", JFR_TYPE_LONG, 0, 0, TIMESPAN_TICKS, "Duration"                                \
    }

static const struct field f_value_string[] = {{"value", JFR_TYPE_STRING, 0, 0, 0, NULL}};
static const struct field f_value_strings[] = {{"value", JFR_TYPE_STRING, 0, 1, 0, NULL}};
static const struct field f_thread[] = {
    {"osName", JFR_TYPE_STRING, 0, 0, 0, "OS Thread Name"},
    {"osThreadId", JFR_TYPE_LONG, 0, 0, 0, "OS Thread Id"},
    {"javaName", JFR_TYPE_STRING, 0, 0, 0, "Java Thread Name"},
    {"javaThreadId", JFR_TYPE_LONG, 0, 0, 0, "Java Thread Id"},
};
static const struct field f_class[] = {
    {"name", JFR_TYPE_SYMBOL, 1, 0, 0, "Name"},
    {"package", JFR_TYPE_PACKAGE, 1, 0, 0, "Package"},
    {"modifiers", JFR_TYPE_INT, 0, 0, 0, "Access Modifiers"},
    {"hidden", JFR_TYPE_BOOLEAN, 0, 0, 0, "Hidden"},
};
static const struct field f_symbol[] = {{"string", JFR_TYPE_STRING, 0, 0, 0, "String"}};
static const struct field f_package[] = {{"name", JFR_TYPE_SYMBOL, 1, 0, 0, "Name"}};
static const struct field f_method[] = {
    {"type", JFR_TYPE_CLASS, 1, 0, 0, "Type"},
    {"name", JFR_TYPE_SYMBOL, 1, 0, 0, "Name"},
    {"descriptor", JFR_TYPE_SYMBOL, 1, 0, 0, "Descriptor"},
    {"modifiers", JFR_TYPE_INT, 0, 0, 0, "Modifiers"},
    {"hidden", JFR_TYPE_BOOLEAN, 0, 0, 0, "Hidden"},
};
static const struct field f_frame[] = {
    {"method", JFR_TYPE_METHOD, 1, 0, 0, "Java Method"},
    {"lineNumber", JFR_TYPE_INT, 0, 0, 0, "Line Number"},
    {"bytecodeIndex", JFR_TYPE_INT, 0, 0, 0, "Bytecode Index"},
    {"type", JFR_TYPE_FRAME_TYPE, 1, 0, 0, "Frame Type"},
};
static const struct field f_frame_type[] = {
    {"description", JFR_TYPE_STRING, 0, 0, 0, "Description"}};
static const struct field f_thread_state[] = {{"name", JFR_TYPE_STRING, 0, 0, 0, "Name"}};
static const struct field f_stack_trace[] = {
    {"truncated", JFR_TYPE_BOOLEAN, 0, 0, 0, "Truncated"},
    {"frames", JFR_TYPE_FRAME, 0, 1, 0, "Stack Frames"},
};
static const struct field f_sample[] = {
    START_TIME,
    {"sampledThread", JFR_TYPE_THREAD, 1, 0, 0, "Thread"},
    {"stackTrace", JFR_TYPE_STACK_TRACE, 1, 0, 0, "Stack Trace"},
    {"state", JFR_TYPE_THREAD_STATE, 1, 0, 0, "Thread State"},
};
static const struct field f_active_setting[] = {
    START_TIME,
    DURATION,
    {"eventThread", JFR_TYPE_THREAD, 1, 0, 0, "Event Thread"},
    {"id", JFR_TYPE_LONG, 0, 0, 0, "Event Id"},
    {"name", JFR_TYPE_STRING, 0, 0, 0, "Setting Name"},
    {"value", JFR_TYPE_STRING, 0, 0, 0, "Setting Value"},
};
static const struct field f_context_sample[] = {
    START_TIME,
    {"sampledThread", JFR_TYPE_THREAD, 1, 0, 0, "Thread"},
    {"stackTrace", JFR_TYPE_STACK_TRACE, 1, 0, 0, "Stack Trace"},
    {"state", JFR_TYPE_THREAD_STATE, 1, 0, 0, "Thread State"},
    {"cpu", JFR_TYPE_BOOLEAN, 0, 0, 0, "CPU Sample"},
    {"spanId", JFR_TYPE_LONG, 0, 0, 0, "Span Id"},
    {"rootSpanId", JFR_TYPE_LONG, 0, 0, 0, "Root Span Id"},
    {"endpoint", JFR_TYPE_STRING, 0, 0, 0, "Endpoint"},
};
static const struct field f_stall[] = {
    START_TIME,
    DURATION,
    {"probe", JFR_TYPE_STRING, 0, 0, 0, "Probe"},
};
static const struct field f_gc_pause[] = {START_TIME, DURATION};
/* the JDK's fields of its allocation and lock events, in the JDK's order and types (its
 * metadata.xml; `jfr metadata` of a JDK 17 and a JDK 25 recording show the same) */
#define EVENT_THREAD                                                                               \
    {                                                                                              \
        "eventThread", JFR_TYPE_THREAD, 1, 0, 0, "Event Thread"                                    \
    }
#define STACK_TRACE                                                                                \
    {                                                                                              \
        "stackTrace", JFR_TYPE_STACK_TRACE, 1, 0, 0, "Stack Trace"                                 \
    }
/* each event's fields, so that its context event (below) repeats them in the same order */
#define ALLOC_SAMPLE                                                                               \
    START_TIME, EVENT_THREAD, STACK_TRACE,                                                         \
        {"objectClass", JFR_TYPE_CLASS, 1, 0, 0, "Object Class"},                                  \
    {                                                                                              \
        "weight", JFR_TYPE_LONG, 0, 0, DATA_BYTES, "Sample Weight"                                 \
    }
#define MONITOR_ENTER                                                                              \
    START_TIME, DURATION, EVENT_THREAD, STACK_TRACE,                                               \
        {"monitorClass", JFR_TYPE_CLASS, 1, 0, 0, "Monitor Class"},                                \
        {"previousOwner", JFR_TYPE_THREAD, 1, 0, 0, "Previous Monitor Owner"},                     \
    {                                                                                              \
        "address", JFR_TYPE_LONG, 0, 0, 0, "Monitor Address"                                       \
    }
#define THREAD_PARK                                                                                \
    START_TIME, DURATION, EVENT_THREAD, STACK_TRACE,                                               \
        {"parkedClass", JFR_TYPE_CLASS, 1, 0, 0, "Class Parked On"},                               \
        {"timeout", JFR_TYPE_LONG, 0, 0, TIMESPAN_NS, "Park Timeout"},                             \
        {"until", JFR_TYPE_LONG, 0, 0, TIMESTAMP_MS_EPOCH, "Park Until"},                          \
    {                                                                                              \
        "address", JFR_TYPE_LONG, 0, 0, 0, "Address of Object Parked"                              \
    }
#define LIVE_OBJECT                                                                                \
    START_TIME, EVENT_THREAD, STACK_TRACE,                                                         \
        {"objectClass", JFR_TYPE_CLASS, 1, 0, 0, "Object Class"},                                  \
        {"weight", JFR_TYPE_LONG, 0, 0, DATA_BYTES, "Sample Weight"},                              \
    {                                                                                              \
        "size", JFR_TYPE_LONG, 0, 0, DATA_BYTES, "Object Size"                                     \
    }
static const struct field f_alloc_sample[] = {ALLOC_SAMPLE};
static const struct field f_monitor_enter[] = {MONITOR_ENTER};
static const struct field f_thread_park[] = {THREAD_PARK};
static const struct field f_live_object[] = {LIVE_OBJECT};
/* The context events of alloc, lock and live events: the event's own fields, in its order,
 * then the context's (flyprof.ContextSample's names), so a reader folds them as it folds the
 * event and filters them by request. */
#define CONTEXT_FIELDS                                                                             \
    {"spanId", JFR_TYPE_LONG, 0, 0, 0, "Span Id"},                                                 \
        {"rootSpanId", JFR_TYPE_LONG, 0, 0, 0, "Root Span Id"},                                    \
    {                                                                                              \
        "endpoint", JFR_TYPE_STRING, 0, 0, 0, "Endpoint"                                          \
    }
static const struct field f_alloc_context[] = {ALLOC_SAMPLE, CONTEXT_FIELDS};
static const struct field f_monitor_context[] = {MONITOR_ENTER, CONTEXT_FIELDS};
static const struct field f_park_context[] = {THREAD_PARK, CONTEXT_FIELDS};
static const struct field f_live_context[] = {LIVE_OBJECT, CONTEXT_FIELDS};

#define ANNOTATION "java.lang.annotation.Annotation"
#define EVENT "jdk.jfr.Event"
#define FIELDS(f) f, N(f)

static const struct type types[] = {
    {JFR_TYPE_BOOLEAN, "boolean", NULL, 0, NULL, {NULL, NULL}, NULL, NULL, 0},
    {JFR_TYPE_INT, "int", NULL, 0, NULL, {NULL, NULL}, NULL, NULL, 0},
    {JFR_TYPE_LONG, "long", NULL, 0, NULL, {NULL, NULL}, NULL, NULL, 0},
    {JFR_TYPE_STRING, "java.lang.String", NULL, 0, NULL, {NULL, NULL}, NULL, NULL, 0},
    {JFR_TYPE_LABEL,
     "jdk.jfr.Label",
     ANNOTATION,
     0,
     NULL,
     {NULL, NULL},
     NULL,
     FIELDS(f_value_string)},
    {JFR_TYPE_CATEGORY,
     "jdk.jfr.Category",
     ANNOTATION,
     0,
     NULL,
     {NULL, NULL},
     NULL,
     FIELDS(f_value_strings)},
    {JFR_TYPE_TIMESTAMP,
     "jdk.jfr.Timestamp",
     ANNOTATION,
     0,
     NULL,
     {NULL, NULL},
     NULL,
     FIELDS(f_value_string)},
    {JFR_TYPE_TIMESPAN,
     "jdk.jfr.Timespan",
     ANNOTATION,
     0,
     NULL,
     {NULL, NULL},
     NULL,
     FIELDS(f_value_string)},
    {JFR_TYPE_DESCRIPTION,
     "jdk.jfr.Description",
     ANNOTATION,
     0,
     NULL,
     {NULL, NULL},
     NULL,
     FIELDS(f_value_string)},
    {JFR_TYPE_DATA_AMOUNT,
     "jdk.jfr.DataAmount",
     ANNOTATION,
     0,
     NULL,
     {NULL, NULL},
     NULL,
     FIELDS(f_value_string)},
    {JFR_TYPE_CONTENT_TYPE, "jdk.jfr.ContentType", ANNOTATION, 0, NULL, {NULL, NULL}, NULL, NULL, 0},
    {JFR_TYPE_THREAD, "java.lang.Thread", NULL, 0, "Thread", {NULL, NULL}, NULL, FIELDS(f_thread)},
    {JFR_TYPE_CLASS, "java.lang.Class", NULL, 0, "Java Class", {NULL, NULL}, NULL, FIELDS(f_class)},
    {JFR_TYPE_SYMBOL, "jdk.types.Symbol", NULL, 1, "Symbol", {NULL, NULL}, NULL, FIELDS(f_symbol)},
    {JFR_TYPE_PACKAGE,
     "jdk.types.Package",
     NULL,
     0,
     "Package",
     {NULL, NULL},
     NULL,
     FIELDS(f_package)},
    {JFR_TYPE_METHOD,
     "jdk.types.Method",
     NULL,
     0,
     "Java Method",
     {NULL, NULL},
     NULL,
     FIELDS(f_method)},
    {JFR_TYPE_FRAME, "jdk.types.StackFrame", NULL, 0, NULL, {NULL, NULL}, NULL, FIELDS(f_frame)},
    {JFR_TYPE_FRAME_TYPE,
     "jdk.types.FrameType",
     NULL,
     1,
     "Frame type",
     {NULL, NULL},
     NULL,
     FIELDS(f_frame_type)},
    {JFR_TYPE_THREAD_STATE,
     "jdk.types.ThreadState",
     NULL,
     1,
     "Java Thread State",
     {NULL, NULL},
     NULL,
     FIELDS(f_thread_state)},
    {JFR_TYPE_STACK_TRACE,
     "jdk.types.StackTrace",
     NULL,
     0,
     "Stacktrace",
     {NULL, NULL},
     NULL,
     FIELDS(f_stack_trace)},
    {JFR_EVENT_EXECUTION_SAMPLE,
     "jdk.ExecutionSample",
     EVENT,
     0,
     "Method Profiling Sample",
     {"Java Virtual Machine", "Profiling"},
     "Snapshot of a thread's stack, taken by flyprof",
     FIELDS(f_sample)},
    {JFR_EVENT_WALL_SAMPLE,
     "flyprof.WallSample",
     EVENT,
     0,
     "Wall-Clock Sample",
     {"flyprof", "Profiling"},
     "A wall-clock sample of a thread in any state (with CPU samples in the same file)",
     FIELDS(f_sample)},
    {JFR_EVENT_ACTIVE_SETTING,
     "jdk.ActiveSetting",
     EVENT,
     0,
     "Recording Setting",
     {"Flight Recorder", NULL},
     NULL,
     FIELDS(f_active_setting)},
    {JFR_EVENT_CONTEXT_SAMPLE,
     "flyprof.ContextSample",
     EVENT,
     0,
     "Sample Trace Context",
     {"flyprof", "Profiling"},
     "The trace context of a sample: one per jdk.ExecutionSample or flyprof.WallSample taken "
     "while its thread worked for a span",
     FIELDS(f_context_sample)},
    {JFR_EVENT_STALL,
     "flyprof.Stall",
     EVENT,
     0,
     "Stall",
     {"flyprof", "Hiccups"},
     "A hiccup probe ran this late",
     FIELDS(f_stall)},
    {JFR_EVENT_GC_PAUSE,
     "flyprof.GCPause",
     EVENT,
     0,
     "GC Pause",
     {"flyprof", "Hiccups"},
     "A garbage-collection pause seen by hiccup mode",
     FIELDS(f_gc_pause)},
    {JFR_EVENT_ALLOC_SAMPLE,
     "jdk.ObjectAllocationSample",
     EVENT,
     0,
     "Object Allocation Sample",
     {"Java Application", NULL},
     "An allocation sampled by flyprof (JVMTI SampledObjectAlloc); weight: the bytes it "
     "stands for",
     FIELDS(f_alloc_sample)},
    {JFR_EVENT_MONITOR_ENTER,
     "jdk.JavaMonitorEnter",
     EVENT,
     0,
     "Java Monitor Blocked",
     {"Java Application", NULL},
     "A contended monitor wait at or above flyprof's lock threshold",
     FIELDS(f_monitor_enter)},
    {JFR_EVENT_THREAD_PARK,
     "jdk.ThreadPark",
     EVENT,
     0,
     "Java Thread Park",
     {"Java Application", NULL},
     "A park for a java.util.concurrent lock at or above flyprof's lock threshold",
     FIELDS(f_thread_park)},
    {JFR_EVENT_LIVE_OBJECT,
     "flyprof.LiveObject",
     EVENT,
     0,
     "Live Object Sample",
     {"flyprof", "Memory"},
     "A sampled allocation whose object was still reachable when profiling stopped; weight: "
     "the bytes it stands for",
     FIELDS(f_live_object)},
    {JFR_EVENT_ALLOC_CONTEXT,
     "flyprof.ObjectAllocationSampleContext",
     EVENT,
     0,
     "Allocation Sample Trace Context",
     {"flyprof", "Profiling"},
     "The trace context of a jdk.ObjectAllocationSample taken while its thread worked for a "
     "span: the same fields, then the context's",
     FIELDS(f_alloc_context)},
    {JFR_EVENT_MONITOR_CONTEXT,
     "flyprof.JavaMonitorEnterContext",
     EVENT,
     0,
     "Monitor Blocked Trace Context",
     {"flyprof", "Profiling"},
     "The trace context of a jdk.JavaMonitorEnter taken while its thread worked for a span: "
     "the same fields, then the context's",
     FIELDS(f_monitor_context)},
    {JFR_EVENT_PARK_CONTEXT,
     "flyprof.ThreadParkContext",
     EVENT,
     0,
     "Thread Park Trace Context",
     {"flyprof", "Profiling"},
     "The trace context of a jdk.ThreadPark taken while its thread worked for a span: the "
     "same fields, then the context's",
     FIELDS(f_park_context)},
    {JFR_EVENT_LIVE_CONTEXT,
     "flyprof.LiveObjectContext",
     EVENT,
     0,
     "Live Object Trace Context",
     {"flyprof", "Profiling"},
     "The trace context of a flyprof.LiveObject allocated while its thread worked for a "
     "span: the same fields, then the context's",
     FIELDS(f_live_context)},
};

#define MAX_STRINGS 512
#define NUM_BYTES 4096

/* The string pool of the event being built. Numbers are formatted into nums. */
struct pool {
    const char *s[MAX_STRINGS];
    size_t n;
    char nums[NUM_BYTES];
    size_t nums_used;
    int overflow;
};

static uint32_t intern(struct pool *p, const char *s)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->s[i], s) == 0)
            return (uint32_t)i;
    if (p->n == MAX_STRINGS) {
        p->overflow = 1;
        return 0;
    }
    p->s[p->n] = s;
    return (uint32_t)p->n++;
}

static uint32_t intern_num(struct pool *p, uint64_t v)
{
    char *d = p->nums + p->nums_used;
    int n = snprintf(d, NUM_BYTES - p->nums_used, "%llu", (unsigned long long)v);
    if (n < 0 || (size_t)n >= NUM_BYTES - p->nums_used) {
        p->overflow = 1;
        return 0;
    }
    uint32_t k = intern(p, d);
    if (p->s[k] == d)
        p->nums_used += (size_t)n + 1;
    return k;
}

/* An element's name and attributes (pairs of pool indices); its children follow. */
static void element(struct fpl_buf *b, struct pool *p, const char *name, const char *const *kv,
                    size_t nkv, size_t nchildren)
{
    jfr_enc_long(b, intern(p, name));
    jfr_enc_long(b, nkv / 2);
    for (size_t i = 0; i < nkv; i++)
        jfr_enc_long(b, intern(p, kv[i]));
    jfr_enc_long(b, nchildren);
}

/* An annotation of type id with one value (or, for Category, a list: value-0, value-1). */
static void annotation(struct fpl_buf *b, struct pool *p, uint32_t id, const char *const *values,
                       size_t n)
{
    static const char *const keys[] = {"value-0", "value-1"};
    jfr_enc_long(b, intern(p, "annotation"));
    jfr_enc_long(b, 1 + n);
    jfr_enc_long(b, intern(p, "class"));
    jfr_enc_long(b, intern_num(p, id));
    for (size_t i = 0; i < n; i++) {
        jfr_enc_long(b, intern(p, id == JFR_TYPE_CATEGORY ? keys[i] : "value"));
        jfr_enc_long(b, intern(p, values[i]));
    }
    jfr_enc_long(b, 0);
}

static void field(struct fpl_buf *b, struct pool *p, const struct field *f)
{
    size_t nattr = 2 + (f->cp ? 1 : 0) + (f->array ? 1 : 0);
    size_t nann = (f->label ? 1 : 0) + (f->time ? 1 : 0);
    jfr_enc_long(b, intern(p, "field"));
    jfr_enc_long(b, nattr);
    jfr_enc_long(b, intern(p, "name"));
    jfr_enc_long(b, intern(p, f->name));
    jfr_enc_long(b, intern(p, "class"));
    jfr_enc_long(b, intern_num(p, f->type));
    if (f->cp) {
        jfr_enc_long(b, intern(p, "constantPool"));
        jfr_enc_long(b, intern(p, "true"));
    }
    if (f->array) {
        jfr_enc_long(b, intern(p, "dimension"));
        jfr_enc_long(b, intern(p, "1"));
    }
    jfr_enc_long(b, nann);
    /* startTime and duration: @Label first; other units before the label, as the JDK has them
     * (its `jfr print` then shows a Long.MIN_VALUE timespan or timestamp as N/A) */
    int label_first = f->time <= TIMESPAN_TICKS;
    if (f->label && label_first)
        annotation(b, p, JFR_TYPE_LABEL, &f->label, 1);
    if (f->time) {
        static const struct {
            uint32_t type;
            const char *value;
        } units[] = {{0, NULL},
                     {JFR_TYPE_TIMESTAMP, "TICKS"},
                     {JFR_TYPE_TIMESPAN, "TICKS"},
                     {JFR_TYPE_TIMESPAN, "NANOSECONDS"},
                     {JFR_TYPE_TIMESTAMP, "MILLISECONDS_SINCE_EPOCH"},
                     {JFR_TYPE_DATA_AMOUNT, "BYTES"}};
        annotation(b, p, units[f->time].type, &units[f->time].value, 1);
    }
    if (f->label && !label_first)
        annotation(b, p, JFR_TYPE_LABEL, &f->label, 1);
}

static void type(struct fpl_buf *b, struct pool *p, const struct type *t)
{
    size_t nattr = 2 + (t->super ? 1 : 0) + (t->simple ? 1 : 0);
    size_t ncat = t->category[0] ? (t->category[1] ? 2 : 1) : 0;
    /* a unit annotation is itself annotated @ContentType: the JDK's reader finds a field's
     * unit only through that (ValueDescriptor.getContentType); without it `jfr print` shows
     * a byte count or a Long.MIN_VALUE timespan raw */
    int content_type = t->id == JFR_TYPE_TIMESTAMP || t->id == JFR_TYPE_TIMESPAN ||
                       t->id == JFR_TYPE_DATA_AMOUNT;
    size_t nann = (t->label ? 1 : 0) + (ncat ? 1 : 0) + (t->description ? 1 : 0) +
                  (content_type ? 1 : 0);
    jfr_enc_long(b, intern(p, "class"));
    jfr_enc_long(b, nattr);
    jfr_enc_long(b, intern(p, "name"));
    jfr_enc_long(b, intern(p, t->name));
    jfr_enc_long(b, intern(p, "id"));
    jfr_enc_long(b, intern_num(p, t->id));
    if (t->super) {
        jfr_enc_long(b, intern(p, "superType"));
        jfr_enc_long(b, intern(p, t->super));
    }
    if (t->simple) {
        jfr_enc_long(b, intern(p, "simpleType"));
        jfr_enc_long(b, intern(p, "true"));
    }
    jfr_enc_long(b, nann + t->nfields);
    if (content_type)
        annotation(b, p, JFR_TYPE_CONTENT_TYPE, NULL, 0);
    if (t->label)
        annotation(b, p, JFR_TYPE_LABEL, &t->label, 1);
    if (ncat)
        annotation(b, p, JFR_TYPE_CATEGORY, t->category, ncat);
    if (t->description)
        annotation(b, p, JFR_TYPE_DESCRIPTION, &t->description, 1);
    for (size_t i = 0; i < t->nfields; i++)
        field(b, p, &t->fields[i]);
}

int jfr_meta_write(struct fpl_buf *b, uint64_t start_ticks, uint64_t metadata_id)
{
    static const char *const region[] = {"locale", "en_US", "gmtOffset", "0"};
    struct pool p = {.n = 0};
    struct fpl_buf tree = {0};
    int rc;

    element(&tree, &p, "root", NULL, 0, 2);
    element(&tree, &p, "metadata", NULL, 0, N(types));
    for (size_t i = 0; i < N(types); i++)
        type(&tree, &p, &types[i]);
    element(&tree, &p, "region", region, N(region), 0);
    if (p.overflow) {
        fpl_buf_free(&tree);
        return -EOVERFLOW; /* the pool's bounds are too small for the table: a bug here */
    }

    size_t off = jfr_enc_begin(b);
    jfr_enc_long(b, JFR_TYPE_METADATA);
    jfr_enc_long(b, start_ticks);
    jfr_enc_long(b, 0); /* duration */
    jfr_enc_long(b, metadata_id);
    jfr_enc_long(b, p.n);
    for (size_t i = 0; i < p.n; i++)
        jfr_enc_cstr(b, p.s[i]);
    if (tree.failed)
        b->failed = 1;
    else
        fpl_put_bytes(b, tree.data, tree.len);
    fpl_buf_free(&tree);
    rc = jfr_enc_end(b, off);
    return rc;
}
