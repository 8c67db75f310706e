/* vmstructs.c: reads HotSpot's exported VMStructs table. Setup context. */
#include "vmstructs.h"

#include <dlfcn.h>
#include <string.h>

/* The table's layout is described by exported offsets rather than a C struct, so the code
 * follows them instead of assuming one. */
static const void *sym(const char *name)
{
    return dlsym(RTLD_DEFAULT, name);
}

static int64_t read_offset(const char *name, int *ok)
{
    const uint64_t *p = sym(name);
    if (!p) {
        *ok = 0;
        return 0;
    }
    return (int64_t)*p;
}

int64_t vmstructs_offset(const char *type, const char *field)
{
    int ok = 1;
    const char *const *table = sym("gHotSpotVMStructs");
    int64_t stride = read_offset("gHotSpotVMStructEntryArrayStride", &ok);
    int64_t type_off = read_offset("gHotSpotVMStructEntryTypeNameOffset", &ok);
    int64_t field_off = read_offset("gHotSpotVMStructEntryFieldNameOffset", &ok);
    int64_t offset_off = read_offset("gHotSpotVMStructEntryOffsetOffset", &ok);
    int64_t static_off = read_offset("gHotSpotVMStructEntryIsStaticOffset", &ok);
    if (!ok || !table || !*table || stride <= 0)
        return -1;
    const char *e = *table;
    for (int i = 0; i < 100000; i++, e += stride) {
        const char *t = *(const char *const *)(e + type_off);
        if (!t)
            break; /* the table ends with an entry whose type name is NULL */
        const char *f = *(const char *const *)(e + field_off);
        if (f && strcmp(t, type) == 0 && strcmp(f, field) == 0) {
            if (*(const int32_t *)(e + static_off))
                return -1;
            return (int64_t)*(const uint64_t *)(e + offset_off);
        }
    }
    return -1;
}

uintptr_t vmstructs_static_address(const char *type, const char *field)
{
    int ok = 1;
    const char *const *table = sym("gHotSpotVMStructs");
    int64_t stride = read_offset("gHotSpotVMStructEntryArrayStride", &ok);
    int64_t type_off = read_offset("gHotSpotVMStructEntryTypeNameOffset", &ok);
    int64_t field_off = read_offset("gHotSpotVMStructEntryFieldNameOffset", &ok);
    int64_t static_off = read_offset("gHotSpotVMStructEntryIsStaticOffset", &ok);
    int64_t addr_off = read_offset("gHotSpotVMStructEntryAddressOffset", &ok);
    if (!ok || !table || !*table || stride <= 0)
        return 0;
    const char *e = *table;
    for (int i = 0; i < 100000; i++, e += stride) {
        const char *t = *(const char *const *)(e + type_off);
        if (!t)
            break;
        const char *f = *(const char *const *)(e + field_off);
        if (f && strcmp(t, type) == 0 && strcmp(f, field) == 0)
            return *(const int32_t *)(e + static_off) ? (uintptr_t)*(const void *const *)(e +
                                                                                  addr_off)
                                                      : 0;
    }
    return 0;
}
