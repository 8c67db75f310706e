/* methods.c: jmethodID preloading and resolution. JVMTI callbacks and the writer thread. */
#include "methods.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fpl_format.h"

static void make_ids(jvmtiEnv *jvmti, jclass klass)
{
    jint n = 0;
    jmethodID *ids = NULL;
    /* GetClassMethods creates the jmethodIDs as a side effect; the array itself is dropped */
    if ((*jvmti)->GetClassMethods(jvmti, klass, &n, &ids) == JVMTI_ERROR_NONE && ids)
        (*jvmti)->Deallocate(jvmti, (unsigned char *)ids);
}

int methods_preload(jvmtiEnv *jvmti, JNIEnv *jni)
{
    jint n = 0;
    jclass *classes = NULL;
    if ((*jvmti)->GetLoadedClasses(jvmti, &n, &classes) != JVMTI_ERROR_NONE)
        return 0;
    for (jint i = 0; i < n; i++) {
        make_ids(jvmti, classes[i]);
        (*jni)->DeleteLocalRef(jni, classes[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)classes);
    return (int)n;
}

void methods_on_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jclass klass)
{
    (void)jni;
    make_ids(jvmti, klass);
}

/* "Ljava/util/Map$Entry;" -> "java.util.Map$Entry"; "[I" -> "int[]". */
static char *dotted_class(const char *sig)
{
    int dims = 0;
    while (sig[dims] == '[')
        dims++;
    const char *base = sig + dims;
    const char *prim = NULL;
    size_t blen;
    switch (*base) {
    case 'B': prim = "byte"; break;
    case 'C': prim = "char"; break;
    case 'D': prim = "double"; break;
    case 'F': prim = "float"; break;
    case 'I': prim = "int"; break;
    case 'J': prim = "long"; break;
    case 'S': prim = "short"; break;
    case 'Z': prim = "boolean"; break;
    case 'V': prim = "void"; break;
    default: break;
    }
    if (prim) {
        base = prim;
        blen = strlen(prim);
    } else if (*base == 'L') {
        base++;
        blen = strlen(base);
        if (blen && base[blen - 1] == ';')
            blen--;
    } else {
        blen = strlen(base);
    }
    char *out = malloc(blen + 2 * (size_t)dims + 1);
    if (!out)
        return NULL;
    for (size_t i = 0; i < blen; i++)
        out[i] = base[i] == '/' ? '.' : base[i];
    for (int d = 0; d < dims; d++)
        memcpy(out + blen + 2 * (size_t)d, "[]", 2);
    out[blen + 2 * (size_t)dims] = 0;
    return out;
}

static char *dup_jvmti(jvmtiEnv *jvmti, char *s)
{
    char *r = strdup(s ? s : "");
    if (s)
        (*jvmti)->Deallocate(jvmti, (unsigned char *)s);
    return r;
}

static int cmp_line(const void *a, const void *b)
{
    const struct methods_line *x = a, *y = b;
    return (x->bci > y->bci) - (x->bci < y->bci);
}

int methods_resolve(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID id, struct methods_info *out)
{
    memset(out, 0, sizeof(*out));
    out->kind = FPL_METHOD_JAVA;
    jclass klass = NULL;
    char *csig = NULL, *name = NULL, *msig = NULL, *src = NULL;
    if (!id || (*jvmti)->GetMethodDeclaringClass(jvmti, id, &klass) != JVMTI_ERROR_NONE ||
        (*jvmti)->GetMethodName(jvmti, id, &name, &msig, NULL) != JVMTI_ERROR_NONE) {
        if (klass)
            (*jni)->DeleteLocalRef(jni, klass);
        out->kind = FPL_METHOD_MARKER;
        out->klass = strdup("");
        out->name = strdup("[unknown_method]");
        out->signature = strdup("");
        out->source = strdup("");
        return -EINVAL;
    }
    if ((*jvmti)->GetClassSignature(jvmti, klass, &csig, NULL) == JVMTI_ERROR_NONE && csig) {
        out->klass = dotted_class(csig);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)csig);
    } else {
        out->klass = strdup("[unknown_class]");
    }
    if ((*jvmti)->GetSourceFileName(jvmti, klass, &src) != JVMTI_ERROR_NONE)
        src = NULL;
    out->source = dup_jvmti(jvmti, src);
    out->name = dup_jvmti(jvmti, name);
    out->signature = dup_jvmti(jvmti, msig);

    jboolean native = 0;
    if ((*jvmti)->IsMethodNative(jvmti, id, &native) == JVMTI_ERROR_NONE && native)
        out->kind = FPL_METHOD_NATIVE;

    jint n = 0;
    jvmtiLineNumberEntry *t = NULL;
    if (!native && (*jvmti)->GetLineNumberTable(jvmti, id, &n, &t) == JVMTI_ERROR_NONE && t) {
        out->lines = malloc(sizeof(*out->lines) * (size_t)(n ? n : 1));
        if (out->lines) {
            for (jint i = 0; i < n; i++) {
                out->lines[i].bci = (int)t[i].start_location;
                out->lines[i].line = t[i].line_number;
            }
            out->nlines = (int)n;
            qsort(out->lines, (size_t)n, sizeof(*out->lines), cmp_line);
        }
        (*jvmti)->Deallocate(jvmti, (unsigned char *)t);
    }
    /* klass is a local ref in the writer's long-lived native frame: free it */
    (*jni)->DeleteLocalRef(jni, klass);
    return 0;
}

void methods_info_destroy(struct methods_info *m)
{
    free(m->klass);
    free(m->name);
    free(m->signature);
    free(m->source);
    free(m->lines);
    memset(m, 0, sizeof(*m));
}
