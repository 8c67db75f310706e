/* codecache.h: handler-side readers of HotSpot's structures, for the stack walker: which
 * CodeBlob holds a pc (the code cache's heaps and their segment maps), what that blob is
 * (nmethod, interpreter, stub: its name, frame size, frame-complete offset, method, tier), and
 * what a Java thread knows of its own stack (bounds, last Java frame anchor, state).
 *
 * The offsets come from HotSpot's VMStructs tables (vmstructs_walker_setup fills struct
 * codecache_layout while no handler runs). Every read of JVM memory here may fault when the
 * JVM changes a structure under us (a blob freed and its memory reused): callers run these
 * inside a crash guard (crashguard.h) and every value read is range-checked before it is used
 * as an address. Names returned are validated to lie in libjvm's own image (string literals
 * that live as long as the JVM) or in the stub-name table (never freed).
 *
 * ASYNC-SIGNAL-SAFE: every *_sigsafe function.
 */
#ifndef CODECACHE_H
#define CODECACHE_H

#include <jni.h>
#include <stdint.h>

/* Offsets into HotSpot's classes (bytes), -1 when this JDK has no such field. */
struct codecache_layout {
    const void *heaps_addr;         /* &CodeCache::_heaps (GrowableArray<CodeHeap*>*) */
    const uintptr_t *low_addr;      /* &CodeCache::_low_bound */
    const uintptr_t *high_addr;     /* &CodeCache::_high_bound */
    int ga_len, ga_data;            /* GrowableArrayBase::_len, GrowableArray<T>::_data */
    int heap_memory, heap_segmap;   /* CodeHeap::_memory, _segmap (VirtualSpace) */
    int heap_log2_seg;              /* CodeHeap::_log2_segment_size */
    int vs_low, vs_high;            /* VirtualSpace::_low, _high */
    int hb_size, hb_used;           /* sizeof(HeapBlock), HeapBlock::Header::_used */
    int blob_name, blob_size, blob_frame_size;
    int blob_frame_complete, blob_frame_complete_bytes; /* int (4 bytes) or int16_t (2) */
    int blob_code_begin, blob_code_end; /* address fields (JDK 17) */
    int blob_code_offset, blob_data_offset; /* int offsets from the blob (JDK 21+) */
    int blob_kind;                  /* CodeBlobKind, 1 byte (JDK 21+) */
    int kind_nmethod;               /* CodeBlobKind::Nmethod */
    int nm_method;                  /* nmethod's Method* (CompiledMethod::_method in 17) */
    int nm_level, nm_level_bytes;   /* nmethod::_comp_level: int (17) or CompLevel, 1 byte */
    int nm_vep;                     /* nmethod::_verified_entry_point, an address (JDK 17) */
    int nm_vep_offset;              /* nmethod::_verified_entry_offset from code_begin, u2 (21+) */
    int nm_compile_id;              /* nmethod::_compile_id (int), -1 when unknown */
    uintptr_t interp_lo, interp_hi; /* the template interpreter's code */
    uintptr_t call_stub_return;     /* StubRoutines::_call_stub_return_address */
    int entry_frame_wrapper;        /* frame::entry_frame_call_wrapper_offset, in words from
                                     * the call stub frame's rbp to its JavaCallWrapper* */
    int call_wrapper_anchor;        /* JavaCallWrapper::_anchor, -1 when unknown */
    uintptr_t jvm_seg[6][2];        /* libjvm's loaded segments [lo, hi): blob names live there */
    int jvm_nseg;
    intptr_t env_offset;            /* JNIEnv* - JavaThread* */
    int jt_stack_base, jt_stack_size; /* JavaThread::_stack_base (top), _stack_size */
    int jt_anchor;                  /* JavaThread::_anchor */
    int anchor_sp, anchor_pc, anchor_fp; /* JavaFrameAnchor::_last_Java_sp, _pc, _fp */
    int jt_state;                   /* JavaThread::_thread_state */
    int method_const;               /* Method::_constMethod */
    int cm_constants, cm_idnum;     /* ConstMethod::_constants, _method_idnum (u2) */
    int cp_holder;                  /* ConstantPool::_pool_holder */
    int ik_jmethod_ids;             /* InstanceKlass::_methods_jmethod_ids: [0] = length, then
                                     * the jmethodID of each method idnum */
    int constmethod_size;           /* sizeof(ConstMethod): the bytecodes follow it */
    int constmethod_code_size;      /* ConstMethod::_code_size (u2) */
    /* a compiled frame's debug information (its inlined frames at a call), -1 when unknown:
     * the PcDescs from nm_pcs's int to the int after it, and the scopes, as offsets from the
     * nmethod's immutable data (JDK 24+: nm_immutable) or from the nmethod itself */
    int nm_pcs;                     /* nmethod::_scopes_pcs_offset (int; the int after it is
                                     * where they end) */
    int nm_immutable;               /* nmethod::_immutable_data (address) */
    int nm_scopes_begin;            /* CompiledMethod::_scopes_data_begin (address, JDK 17) */
    int nm_scopes_offset;           /* nmethod::_scopes_data_offset (int, JDK 23+) */
    int nm_metadata;                /* nmethod::_metadata_offset: its Metadata* array ... */
    int nm_metadata_bytes;          /* ... an int from the nmethod (4) or a u2 from the blob's
                                     * data (2); absent (JDK 25): after the relocations in the
                                     * blob's mutable data */
    int blob_mutable_data, blob_relocation_size; /* CodeBlob::_mutable_data, _relocation_size */
    int pcdesc_size, pcdesc_pc, pcdesc_scope; /* sizeof(PcDesc), _pc_offset, _scope_decode_offset */
    int stream_base;                /* the debug stream's byte bias: 0, or 1 from JDK 20 */
    int method_access;              /* Method::_access_flags (its low 16 bits: JVM_ACC_*) */
};

/* Installs the layout (copied). Setup context, while no handler runs. */
void codecache_set_layout(const struct codecache_layout *l);

/* The installed layout, or NULL when the walker has none (recovery off). Any context. */
const struct codecache_layout *codecache_layout_sigsafe(void);

enum codecache_kind {
    CODECACHE_NMETHOD = 1,     /* compiled Java method (or a native method's wrapper) */
    CODECACHE_INTERPRETER = 2, /* the template interpreter */
    CODECACHE_STUB = 3,        /* anything else: stubs, adapters, runtime blobs */
};

struct codecache_blob {
    uintptr_t blob;            /* the CodeBlob */
    uintptr_t code_begin, code_end;
    const char *name;          /* HotSpot's name of the blob, validated, or NULL */
    int kind;                  /* enum codecache_kind */
    int frame_size;            /* words, return address included (0: unknown) */
    int frame_complete;        /* offset from code_begin where the frame is built, -1 never */
    uintptr_t method;          /* nmethod: its Method* */
    int level;                 /* nmethod: compilation tier (1..3 C1, 4 C2/JVMCI) */
    uintptr_t vep;             /* nmethod: its verified entry point (0: unknown) */
};

/* 1 when pc lies inside the code cache's reserved range, else 0. */
int codecache_contains_sigsafe(uintptr_t pc);

/* Finds the blob that holds pc through the code heaps' segment maps, fills *b and returns 1;
 * 0 when pc is not in a live blob's code. Reads JVM memory: call inside a crash guard. */
int codecache_find_sigsafe(uintptr_t pc, struct codecache_blob *b);

/* The jmethodID of a Method*, or 0 when it has none (HotSpot makes them only on request; the
 * agent requests one for every method of every loaded class) or the structures disagree (the
 * jmethodID must point back at the Method*). Reads JVM memory: call inside a crash guard. */
jmethodID codecache_jmethod_sigsafe(uintptr_t method);

/* What a Java thread knows of itself, read from its JavaThread (env is its JNIEnv). */
struct codecache_thread {
    uintptr_t jt;              /* JavaThread* */
    uintptr_t stack_lo, stack_hi;
    uintptr_t last_sp, last_pc, last_fp; /* the last Java frame anchor (sp 0: none) */
    int state;                 /* JavaThreadState */
};

/* Fills *t for the thread whose JNIEnv is env; returns 1, or 0 when the layout is missing or
 * the bounds make no sense. Reads JVM memory: call inside a crash guard. */
int codecache_thread_sigsafe(JNIEnv *env, struct codecache_thread *t);

/* The stub-name table: [start, end) -> name, from JVMTI DynamicCodeGenerated events, which
 * name each stub as HotSpot does (StubRoutines' arraycopy stubs, "vtable stub", ...) where a
 * code blob's own name covers many stubs ("StubRoutines (2)"). Entries are added by
 * codecache_add_stub and read lock-free by handlers under a sequence count. */

/* Adds a stub whose names live as long as the JVM (the caller copies them): name as JVMTI
 * gives it, qualified with the group HotSpot's StubCodeDesc prints before it
 * ("StubRoutines::name"). An entry with the same start is replaced. Returns 0, -ENOSPC when
 * the table is full, or -EINVAL. Adds must be serialized by the caller (stubnames.c); never
 * from a signal handler. */
int codecache_add_stub(uintptr_t start, uintptr_t end, const char *name, const char *qualified);

/* The name of the stub holding pc, or NULL (none known, or the table was being changed);
 * *start (when not NULL) is set to the stub's first instruction and *qualified to its
 * qualified name. */
const char *codecache_stub_name_sigsafe(uintptr_t pc, uintptr_t *start, const char **qualified);

#endif
