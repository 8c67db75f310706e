#!/bin/sh
# Lists the undefined symbols of the signal-handler objects and fails on any that is not in
# the allowlist. Arguments: object files (one ;-separated list from CMake is accepted).
# Allowed: async-signal-safe calls (clock_gettime, syscall, errno), compiler-emitted
# memcpy/memset/stack protector and libgcc's 128-bit division, and the setup-only calls of these files (mmap, munmap,
# sigaction, sigemptyset, usleep, nanosleep, dlsym), which run outside handlers, and ioctl
# and read (raw syscalls: the perf engine reads and re-arms its event in the handler);
# __libc_current_sigrtmin/max are SIGRTMIN/SIGRTMAX, read when choosing the wall signal.
# sigaddset builds the handlers' sa_mask at install time (and is on POSIX's list of
# async-signal-safe functions anyway). write: ring_commit wakes the writer through its
# eventfd (POSIX lists write(2) as async-signal-safe); nativewalk.c too, once per module
# whose unwind table it asks for.
# pthread_getspecific: glibc's reads the calling thread's own key slots (no lock, no
# allocation); HotSpot's signal handlers read Thread::current through it the same way
# (ThreadLocalStorage), and envtable.c reads that same key to check adopted entries.
# libunwind (nativewalk.c): _ULx86_64_init_local2 (copies register locations out of the
# ucontext; its one-time tdep_init, which locks, ran in cfitab_init), _ULx86_64_apply_reg_state
# (evaluates one precomputed CFI row: arithmetic, DWARF expressions, stack reads) and
# _ULx86_64_get_reg (reads the cursor). None of them looks anything up, allocates or locks;
# unw_step, which does all three on a cache miss, is deliberately absent (see agent/writer/cfitab.h).
# tests/integration/test_native_nolock.py checks the same at run time on a real JVM.
# The crash guard (crashguard.c): __sigsetjmp (sigsetjmp with savemask 0 saves registers only,
# no system call) and siglongjmp out of its SIGSEGV/SIGBUS handler back into the walk it
# interrupted, which POSIX allows from a handler that interrupted async-signal-safe code (the
# walk is), and sigprocmask (in POSIX's list of async-signal-safe functions) to restore the
# walk's signal mask before the jump; mprotect is setup-only (stackwalk_configure);
# dl_iterate_phdr, strrchr and strncmp are setup-only too (crashguard_install lists the code
# its walks run before its handler exists).
allowed='__errno_location clock_gettime syscall memcpy memset __stack_chk_fail
mmap munmap sigaction sigemptyset sigaddset usleep nanosleep dlsym _GLOBAL_OFFSET_TABLE_
__divti3 __udivti3 ioctl read write getpid __libc_current_sigrtmin __libc_current_sigrtmax
pthread_getspecific _ULx86_64_init_local2 _ULx86_64_apply_reg_state _ULx86_64_get_reg
__sigsetjmp siglongjmp sigprocmask mprotect dl_iterate_phdr strrchr strncmp'
objs=$(echo "$*" | tr ';' ' ')
[ -n "$objs" ] || { echo "check_sigsafe: no objects given"; exit 2; }
bad=0
seen=0
for o in $objs; do
    [ -f "$o" ] || { echo "check_sigsafe: missing object $o"; exit 2; }
    seen=$((seen + 1))
    for s in $(nm -u "$o" | awk '{print $NF}' | sed 's/@.*//'); do
        ok=0
        for a in $allowed; do [ "$s" = "$a" ] && ok=1; done
        # calls between the sigsafe objects themselves are fine
        case "$s" in
            ring_*|tsc_*|counters*|tls_*|stackwalk_*|handler_*|signals_*|envtable_*|testhook_*) ok=1 ;;
            nativewalk_*|crashguard_*|codecache_*|context_*|framecache_*) ok=1 ;;
        esac
        if [ $ok = 0 ]; then
            echo "NOT ASYNC-SIGNAL-SAFE: $(basename "$o") imports $s"
            bad=$((bad + 1))
        fi
    done
done
echo "check_sigsafe: $seen objects, $bad forbidden imports"
[ $bad = 0 ]
