/* vmstructs.c: reads HotSpot's exported VMStructs tables and libjvm's symbol table. Setup
 * context. */
#include "vmstructs.h"

#include <dlfcn.h>
#include <jni.h>
#include <setjmp.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codecache.h"
#include "crashguard.h"

/* The tables' layouts are described by exported offsets rather than a C struct, so the code
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

/* Finds `type::field` in gHotSpotVMStructs: returns the entry, or NULL. */
static const char *struct_entry(const char *type, const char *field, int64_t *stride_out)
{
    int ok = 1;
    const char *const *table = sym("gHotSpotVMStructs");
    int64_t stride = read_offset("gHotSpotVMStructEntryArrayStride", &ok);
    int64_t type_off = read_offset("gHotSpotVMStructEntryTypeNameOffset", &ok);
    int64_t field_off = read_offset("gHotSpotVMStructEntryFieldNameOffset", &ok);
    if (!ok || !table || !*table || stride <= 0)
        return NULL;
    *stride_out = stride;
    const char *e = *table;
    for (int i = 0; i < 100000; i++, e += stride) {
        const char *t = *(const char *const *)(e + type_off);
        if (!t)
            break; /* the table ends with an entry whose type name is NULL */
        const char *f = *(const char *const *)(e + field_off);
        if (f && strcmp(t, type) == 0 && strcmp(f, field) == 0)
            return e;
    }
    return NULL;
}

int64_t vmstructs_field(const char *type, const char *field, const char **ctype)
{
    int ok = 1;
    int64_t stride;
    const char *e = struct_entry(type, field, &stride);
    int64_t offset_off = read_offset("gHotSpotVMStructEntryOffsetOffset", &ok);
    int64_t static_off = read_offset("gHotSpotVMStructEntryIsStaticOffset", &ok);
    int64_t tstr_off = read_offset("gHotSpotVMStructEntryTypeStringOffset", &ok);
    if (!e || !ok || *(const int32_t *)(e + static_off))
        return -1;
    if (ctype)
        *ctype = *(const char *const *)(e + tstr_off);
    return (int64_t)*(const uint64_t *)(e + offset_off);
}

int64_t vmstructs_offset(const char *type, const char *field)
{
    return vmstructs_field(type, field, NULL);
}

void *vmstructs_static(const char *type, const char *field)
{
    int ok = 1;
    int64_t stride;
    const char *e = struct_entry(type, field, &stride);
    int64_t static_off = read_offset("gHotSpotVMStructEntryIsStaticOffset", &ok);
    int64_t addr_off = read_offset("gHotSpotVMStructEntryAddressOffset", &ok);
    if (!e || !ok || !*(const int32_t *)(e + static_off))
        return NULL;
    return *(void *const *)(e + addr_off);
}

int64_t vmstructs_type_size(const char *type)
{
    int ok = 1;
    const char *const *table = sym("gHotSpotVMTypes");
    int64_t stride = read_offset("gHotSpotVMTypeEntryArrayStride", &ok);
    int64_t name_off = read_offset("gHotSpotVMTypeEntryTypeNameOffset", &ok);
    int64_t size_off = read_offset("gHotSpotVMTypeEntrySizeOffset", &ok);
    if (!ok || !table || !*table || stride <= 0)
        return -1;
    const char *e = *table;
    for (int i = 0; i < 100000; i++, e += stride) {
        const char *t = *(const char *const *)(e + name_off);
        if (!t)
            break;
        if (strcmp(t, type) == 0)
            return (int64_t)*(const uint64_t *)(e + size_off);
    }
    return -1;
}

uintptr_t vmstructs_static_address(const char *type, const char *field)
{
    return (uintptr_t)vmstructs_static(type, field);
}

int vmstructs_int_constant(const char *name, int32_t *value)
{
    int ok = 1;
    const char *const *table = sym("gHotSpotVMIntConstants");
    int64_t stride = read_offset("gHotSpotVMIntConstantEntryArrayStride", &ok);
    int64_t name_off = read_offset("gHotSpotVMIntConstantEntryNameOffset", &ok);
    int64_t value_off = read_offset("gHotSpotVMIntConstantEntryValueOffset", &ok);
    if (!ok || !table || !*table || stride <= 0)
        return -ENOENT;
    const char *e = *table;
    for (int i = 0; i < 100000; i++, e += stride) {
        const char *n = *(const char *const *)(e + name_off);
        if (!n)
            break;
        if (strcmp(n, name) == 0) {
            *value = *(const int32_t *)(e + value_off);
            return 0;
        }
    }
    return -ENOENT;
}

/* Searches one mapped ELF file's .symtab for name; returns its st_value or 0. */
static uint64_t elf_symtab_value(const unsigned char *img, size_t size, const char *name)
{
    if (size < sizeof(Elf64_Ehdr) || memcmp(img, ELFMAG, SELFMAG) != 0 ||
        img[EI_CLASS] != ELFCLASS64)
        return 0;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
    if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
        eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > size)
        return 0;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum)
            continue;
        const Elf64_Shdr *strs = &sh[sh[i].sh_link];
        if (sh[i].sh_offset + sh[i].sh_size > size || strs->sh_offset + strs->sh_size > size ||
            sh[i].sh_entsize != sizeof(Elf64_Sym))
            return 0;
        const Elf64_Sym *s = (const Elf64_Sym *)(img + sh[i].sh_offset);
        size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
        const char *names = (const char *)(img + strs->sh_offset);
        size_t nlen = strlen(name);
        for (size_t k = 0; k < n; k++) {
            if (s[k].st_name + nlen + 1 > strs->sh_size)
                continue;
            if (memcmp(names + s[k].st_name, name, nlen + 1) == 0)
                return s[k].st_value;
        }
    }
    return 0;
}

uintptr_t vmstructs_local_symbol(const void *anchor, const char *name)
{
    Dl_info info;
    if (!anchor || !dladdr(anchor, &info) || !info.dli_fname || !info.dli_fbase)
        return 0;
    int fd = open(info.dli_fname, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    uintptr_t addr = 0;
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
        void *img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (img != MAP_FAILED) {
            uint64_t v = elf_symtab_value(img, (size_t)st.st_size, name);
            if (v)
                addr = (uintptr_t)info.dli_fbase + (uintptr_t)v; /* a shared object: bias */
            munmap(img, (size_t)st.st_size);
        }
    }
    close(fd);
    return addr;
}

struct seg_search {
    const void *anchor;
    struct codecache_layout *l;
};

/* dl_iterate_phdr callback: records the loaded segments of the object holding anchor. */
static int find_segments(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct seg_search *s = arg;
    uintptr_t a = (uintptr_t)s->anchor;
    int hit = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && a >= lo && a < lo + ph->p_memsz)
            hit = 1;
    }
    if (!hit)
        return 0;
    s->l->jvm_nseg = 0;
    for (int i = 0; i < info->dlpi_phnum && s->l->jvm_nseg < 6; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R))
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        s->l->jvm_seg[s->l->jvm_nseg][0] = lo;
        s->l->jvm_seg[s->l->jvm_nseg][1] = lo + ph->p_filesz; /* the part backed by the file */
        s->l->jvm_nseg++;
    }
    return 1;
}

/* Offset of type::field into *out, or records what is missing. */
static int need(int *out, const char *type, const char *field, char *missing, size_t len)
{
    int64_t v = vmstructs_offset(type, field);
    *out = (int)v;
    if (v < 0 && missing[0] == 0)
        snprintf(missing, len, "%s::%s", type, field);
    return v >= 0;
}

/* AGCT's ABI (not in any JDK header). */
struct agct_trace {
    JNIEnv *env_id;
    jint num_frames;
    void *frames;
};

/* Finds the flag byte AsyncGetCallTrace sets in the calling thread's JavaThread while it runs
 * (JavaThread::_in_asgct in 17u, Thread::_in_asgct in 21+; VMStructs does not describe it): a
 * walk that faults inside AGCT leaves it set, and HotSpot then never caches PcDescs on that
 * thread again. The experiment: call AGCT with a trace it cannot write its result into, so it
 * faults right after setting the flag; the crash guard ends the call, and the one byte of our
 * own JavaThread that went from 0 to 1 is the flag. Three rounds must agree. The calling
 * thread is a Java thread in native code (VMInit, Agent_OnAttach), so nothing else writes its
 * JavaThread meanwhile. Returns the offset, or -1 (none found: nothing to restore). */
static int find_asgct_flag(JNIEnv *env, intptr_t env_offset)
{
    typedef void (*agct_fn)(struct agct_trace *, jint, void *);
    agct_fn agct = (agct_fn)sym("AsyncGetCallTrace");
    int64_t size = vmstructs_type_size("JavaThread");
    static uint8_t before[16384];
    if (!agct || !env || size <= 0 || size > (int64_t)sizeof(before))
        return -1;
    volatile uint8_t *jt = (volatile uint8_t *)env - env_offset;
    struct agct_trace *t = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                                -1, 0);
    if (t == MAP_FAILED)
        return -1;
    t->env_id = env;
    int found = -1;
    if (mprotect(t, 4096, PROT_READ) == 0) {
        for (int round = 0; round < 3; round++) {
            for (int64_t i = 0; i < size; i++)
                before[i] = jt[i];
            struct crashguard g;
            volatile int faulted = 0;
            if (sigsetjmp(g.jb, 0) == 0) {
                crashguard_enter(&g);
                agct(t, 1, NULL);
                crashguard_leave(&g);
            } else {
                faulted = 1;
            }
            int cand = -1, count = 0;
            for (int64_t i = 0; i < size; i++) {
                if (before[i] == 0 && jt[i] == 1) {
                    cand = (int)i;
                    count++;
                }
            }
            if (!faulted || count != 1) {
                found = -1;
                break;
            }
            jt[cand] = 0;
            if (round > 0 && cand != found) {
                found = -1;
                break;
            }
            found = cand;
        }
    }
    munmap(t, 4096);
    return found;
}

int vmstructs_asgct_flag(JNIEnv *env, intptr_t env_offset)
{
    static int flag = -2; /* -2: not looked for yet */
    if (flag == -2)
        flag = find_asgct_flag(env, env_offset);
    return flag;
}

/* Where a compiled method keeps its debug information (see struct codecache_layout), so that
 * the walker can read a compiled frame's inlined frames itself where AGCT cannot start (a
 * blocked thread's anchor in a stub). Leaves nm_pcs at -1 when anything is missing or of a
 * layout this code does not know. */
static void debug_info_setup(struct codecache_layout *l)
{
    const char *t = NULL;
    const int *major = vmstructs_static("Abstract_VM_Version", "_vm_major_version");
    l->nm_pcs = (int)vmstructs_field("nmethod", "_scopes_pcs_offset", &t);
    if (l->nm_pcs >= 0 && (!t || strcmp(t, "int") != 0))
        l->nm_pcs = -1;
    /* the PcDescs end where the next section starts: the int right after (JDK 17:
     * _dependencies_offset, JDK 25: _scopes_data_offset), which the walker reads as their end */
    int64_t deps = vmstructs_offset("nmethod", "_dependencies_offset");
    int64_t data = vmstructs_offset("nmethod", "_scopes_data_offset");
    int pcs_end = l->nm_pcs >= 0 && (deps == l->nm_pcs + 4 || data == l->nm_pcs + 4);
    l->nm_immutable = (int)vmstructs_offset("nmethod", "_immutable_data");
    l->nm_scopes_begin = (int)vmstructs_offset("CompiledMethod", "_scopes_data_begin");
    if (l->nm_scopes_begin < 0)
        l->nm_scopes_begin = (int)vmstructs_offset("nmethod", "_scopes_data_begin");
    t = NULL;
    l->nm_scopes_offset = (int)vmstructs_field("nmethod", "_scopes_data_offset", &t);
    if (l->nm_scopes_offset >= 0 && (!t || strcmp(t, "int") != 0))
        l->nm_scopes_offset = -1;
    t = NULL;
    l->nm_metadata = (int)vmstructs_field("nmethod", "_metadata_offset", &t);
    l->nm_metadata_bytes = !t ? 0 : strcmp(t, "int") == 0 ? 4 : strcmp(t, "u2") == 0 ? 2 : 0;
    l->blob_mutable_data = (int)vmstructs_offset("CodeBlob", "_mutable_data");
    l->blob_relocation_size = (int)vmstructs_offset("CodeBlob", "_relocation_size");
    l->pcdesc_size = (int)vmstructs_type_size("PcDesc");
    l->pcdesc_pc = (int)vmstructs_offset("PcDesc", "_pc_offset");
    l->pcdesc_scope = (int)vmstructs_offset("PcDesc", "_scope_decode_offset");
    /* JDK 20 changed the stream's bytes to UNSIGNED5, which never writes a zero byte */
    l->stream_base = major && *major >= 20 ? 1 : 0;
    l->method_access = (int)vmstructs_offset("Method", "_access_flags");
    int metadata = (l->nm_metadata >= 0 && l->nm_metadata_bytes == 4) ||
                   (l->nm_metadata >= 0 && l->nm_metadata_bytes == 2 && l->blob_data_offset >= 0) ||
                   (l->nm_metadata < 0 && l->blob_mutable_data >= 0 &&
                    l->blob_relocation_size >= 0);
    if (!major || *major < 11 || !pcs_end || l->pcdesc_size <= 0 || l->pcdesc_pc < 0 ||
        l->pcdesc_scope < 0 || (l->nm_scopes_begin < 0 && l->nm_scopes_offset < 0) ||
        !metadata || l->method_access < 0)
        l->nm_pcs = -1;
}

int vmstructs_walker_setup(intptr_t env_offset, char *err, size_t errlen)
{
    struct codecache_layout l;
    char miss[128] = "";
    const char *t = NULL;
    int32_t c;
    memset(&l, 0xff, sizeof(l)); /* every offset -1 until found */
    l.env_offset = env_offset;
    l.heaps_addr = vmstructs_static("CodeCache", "_heaps");
    l.low_addr = vmstructs_static("CodeCache", "_low_bound");
    l.high_addr = vmstructs_static("CodeCache", "_high_bound");
    if (!l.heaps_addr || !l.low_addr || !l.high_addr)
        snprintf(miss, sizeof(miss), "CodeCache::_heaps/_low_bound/_high_bound");
    need(&l.ga_len, "GrowableArrayBase", "_len", miss, sizeof(miss));
    need(&l.ga_data, "GrowableArray<int>", "_data", miss, sizeof(miss));
    need(&l.heap_memory, "CodeHeap", "_memory", miss, sizeof(miss));
    need(&l.heap_segmap, "CodeHeap", "_segmap", miss, sizeof(miss));
    need(&l.heap_log2_seg, "CodeHeap", "_log2_segment_size", miss, sizeof(miss));
    need(&l.vs_low, "VirtualSpace", "_low", miss, sizeof(miss));
    need(&l.vs_high, "VirtualSpace", "_high", miss, sizeof(miss));
    l.hb_size = (int)vmstructs_type_size("HeapBlock");
    int64_t hdr = vmstructs_offset("HeapBlock", "_header");
    int64_t used = vmstructs_offset("HeapBlock::Header", "_used");
    if (l.hb_size <= 0 || hdr < 0 || used < 0) {
        if (!miss[0])
            snprintf(miss, sizeof(miss), "HeapBlock");
    }
    l.hb_used = (int)(hdr + used);
    need(&l.blob_name, "CodeBlob", "_name", miss, sizeof(miss));
    need(&l.blob_size, "CodeBlob", "_size", miss, sizeof(miss));
    need(&l.blob_frame_size, "CodeBlob", "_frame_size", miss, sizeof(miss));
    l.blob_frame_complete = (int)vmstructs_field("CodeBlob", "_frame_complete_offset", &t);
    l.blob_frame_complete_bytes = t && strcmp(t, "int16_t") == 0 ? 2 : 4;
    if (l.blob_frame_complete < 0 && !miss[0])
        snprintf(miss, sizeof(miss), "CodeBlob::_frame_complete_offset");
    l.blob_code_begin = (int)vmstructs_offset("CodeBlob", "_code_begin");
    l.blob_code_end = (int)vmstructs_offset("CodeBlob", "_code_end");
    l.blob_code_offset = (int)vmstructs_offset("CodeBlob", "_code_offset");
    l.blob_data_offset = (int)vmstructs_offset("CodeBlob", "_data_offset");
    if ((l.blob_code_begin < 0 || l.blob_code_end < 0) &&
        (l.blob_code_offset < 0 || l.blob_data_offset < 0) && !miss[0])
        snprintf(miss, sizeof(miss), "CodeBlob's code bounds");
    if (l.blob_code_begin >= 0 && l.blob_code_end < 0)
        l.blob_code_begin = -1;
    l.blob_kind = (int)vmstructs_offset("CodeBlob", "_kind");
    l.kind_nmethod = vmstructs_int_constant("CodeBlobKind::Nmethod", &c) == 0 ? c : -1;
    if (l.blob_kind >= 0 && l.kind_nmethod < 0)
        l.blob_kind = -1; /* fall back to the blob's name */
    l.nm_method = (int)vmstructs_offset("nmethod", "_method");
    if (l.nm_method < 0)
        need(&l.nm_method, "CompiledMethod", "_method", miss, sizeof(miss));
    t = NULL;
    l.nm_level = (int)vmstructs_field("nmethod", "_comp_level", &t);
    l.nm_level_bytes = t && strcmp(t, "int") == 0 ? 4 : 1;
    l.nm_vep = (int)vmstructs_offset("nmethod", "_verified_entry_point");
    l.nm_vep_offset = (int)vmstructs_offset("nmethod", "_verified_entry_offset");
    l.nm_compile_id = (int)vmstructs_offset("nmethod", "_compile_id");
    /* the interpreter's code: one stub queue, fixed at startup */
    const uintptr_t *interp = vmstructs_static("AbstractInterpreter", "_code");
    int64_t qbuf = vmstructs_offset("StubQueue", "_stub_buffer");
    int64_t qlim = vmstructs_offset("StubQueue", "_buffer_limit");
    if (interp && *interp && qbuf >= 0 && qlim >= 0) {
        uintptr_t q = *interp;
        l.interp_lo = *(const uintptr_t *)(q + (uintptr_t)qbuf);
        l.interp_hi = l.interp_lo + (uintptr_t)*(const int32_t *)(q + (uintptr_t)qlim);
    } else {
        l.interp_lo = l.interp_hi = 0;
    }
    const uintptr_t *csr = vmstructs_static("StubRoutines", "_call_stub_return_address");
    l.call_stub_return = csr ? *csr : 0;
    l.call_wrapper_anchor = (int)vmstructs_offset("JavaCallWrapper", "_anchor");
    if (vmstructs_int_constant("frame::entry_frame_call_wrapper_offset", &c) == 0)
        l.entry_frame_wrapper = c;
    else
        l.call_wrapper_anchor = -1;
    need(&l.jt_stack_base, "JavaThread", "_stack_base", miss, sizeof(miss));
    need(&l.jt_stack_size, "JavaThread", "_stack_size", miss, sizeof(miss));
    need(&l.jt_anchor, "JavaThread", "_anchor", miss, sizeof(miss));
    need(&l.anchor_sp, "JavaFrameAnchor", "_last_Java_sp", miss, sizeof(miss));
    need(&l.anchor_pc, "JavaFrameAnchor", "_last_Java_pc", miss, sizeof(miss));
    need(&l.anchor_fp, "JavaFrameAnchor", "_last_Java_fp", miss, sizeof(miss));
    need(&l.jt_state, "JavaThread", "_thread_state", miss, sizeof(miss));
    l.method_const = (int)vmstructs_offset("Method", "_constMethod");
    l.cm_constants = (int)vmstructs_offset("ConstMethod", "_constants");
    l.cm_idnum = (int)vmstructs_offset("ConstMethod", "_method_idnum");
    l.cp_holder = (int)vmstructs_offset("ConstantPool", "_pool_holder");
    l.ik_jmethod_ids = (int)vmstructs_offset("InstanceKlass", "_methods_jmethod_ids");
    if (l.method_const < 0 || l.cm_constants < 0 || l.cm_idnum < 0 || l.cp_holder < 0)
        l.ik_jmethod_ids = -1; /* no jmethodIDs from Method*: no frames for them */
    l.constmethod_size = (int)vmstructs_type_size("ConstMethod");
    l.constmethod_code_size = (int)vmstructs_offset("ConstMethod", "_code_size");
    debug_info_setup(&l);
    struct seg_search s = {sym("AsyncGetCallTrace"), &l};
    l.jvm_nseg = 0;
    if (s.anchor)
        dl_iterate_phdr(find_segments, &s);
    if (!miss[0] && (env_offset <= 0 || l.jvm_nseg == 0))
        snprintf(miss, sizeof(miss), "%s", env_offset <= 0 ? "the JNIEnv's place in JavaThread"
                                                           : "libjvm's segments");
    if (miss[0]) {
        snprintf(err, errlen, "HotSpot's structures lack %s: stacks are walked by "
                              "AsyncGetCallTrace alone", miss);
        return -ENOTSUP;
    }
    codecache_set_layout(&l);
    return 0;
}

void vmstructs_guard_setup(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    /* HotSpot's SafeFetch faults on purpose and resumes at a continuation: those faults are
     * its own even inside a walk (AGCT validates pointers with it) */
    const void *a = sym("AsyncGetCallTrace");
    crashguard_set_jvm_faults(vmstructs_local_symbol(a, "_SafeFetch32_fault"),
                              vmstructs_local_symbol(a, "_SafeFetchN_fault"));
    /* and faults in the code cache: compiled code, stubs (SafeFetch was a stub before 17u) */
    crashguard_set_code_cache(vmstructs_static("CodeCache", "_low_bound"),
                              vmstructs_static("CodeCache", "_high_bound"));
}

int vmstructs_debug_nonsafepoints(void)
{
    static int result = -2; /* -2: not tried yet */
    if (result != -2)
        return result;
    uintptr_t a = vmstructs_local_symbol(sym("AsyncGetCallTrace"), "DebugNonSafepoints");
    result = -ENOENT;
    if (a) {
        /* a bool in libjvm's data, read by each compilation as it starts */
        *(volatile unsigned char *)a = 1;
        result = 0;
    }
    return result;
}
