#!/usr/bin/env python3
"""native_frames: native (C) frames under the Java methods that called them (cstack=auto).

NativeFrames runs two threads that live in native code called from Java: `read-worker` reads
/dev/zero through FileInputStream.read (JNI `readBytes` -> `handleRead` -> libc `read`), and
`deflate-worker` compresses with Deflater (JNI Java_java_util_zip_Deflater_deflateBytesBytes ->
zlib `deflate` -> its internals). Truth: nearly all of each thread's CPU is below
FileInputStream.readBytes, resp. Deflater.deflateBytesBytes, in C code.

Asserted, with the agent loaded at startup (-agentpath) and again attached to a JVM already
running the workload (threads that existed before the attach):
- >= 85% of the weight of read-worker stacks through FileInputStream.readBytes has a native
  frame right below it, and >= 80% has the JNI function `readBytes` there; >= 30% reaches
  libc's `read` (or `handleRead`) below it. The rest are ticks in the JNI wrapper, Java code:
  4-6% on a quiet machine, 11% in a loaded CI run. (Until libjava's unwind table was built,
  behind libjvm's, walks stopped at `handleRead` and lost `readBytes`: 59-89% attached, 83%
  -agentpath; they go on by frame pointer since: 89-96%.)
- >= 90% of deflate-worker stacks through Deflater.deflateBytesBytes have a native frame below
  it, >= 75% have `Java_java_util_zip_Deflater_deflateBytesBytes` right below, and >= 75% have
  zlib's `deflate` among the native frames. (JDK 25 loads libzip after the agent started: a
  walk that meets code outside every known library asks the writer for a rescan, and small
  libraries' unwind tables are built before libjvm's; before that, 30% of these samples lost
  their native frames.)
- with cstack=off (the control): no native or kernel frame at all, by the frames' types in the
  log (so the checks above can fail); JVM stub frames, which the walker keeps whatever cstack
  says, are not native frames.
A profiler without native frames fails all of them; one that walks but does not symbolize
fails the names.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import native_common as nc  # noqa: E402
import test_attach_common as ac  # noqa: E402
import test_wall_fpl as fpl_reader  # noqa: E402

READ_JAVA = "java.io.FileInputStream.readBytes"
DEFLATE_JAVA = "java.util.zip.Deflater.deflateBytesBytes"
DEFLATE_JNI = "Java_java_util_zip_Deflater_deflateBytesBytes"
FRAME_NATIVE, FRAME_KERNEL = 5, 7  # FORMAT.md 6.7


def share(prof, pred, base):
    """Weight share of stacks where pred holds among those where base holds."""
    total = prof.weight(base)
    return (prof.weight(lambda f: base(f) and pred(f)) / total if total else 0.0), total


def check_profile(t, p, what):
    read = t.thread_profile(p, "read-worker", min_weight=20)
    through = lambda f: read.has(f, READ_JAVA)  # noqa: E731
    nat, total = share(read, lambda f: bool(nc.native_after(f, READ_JAVA)), through)
    jni, _ = share(read, lambda f: nc.below(f, READ_JAVA) == "readBytes", through)
    libc, _ = share(read, lambda f: any(x in ("read", "handleRead")
                                        for x in nc.native_after(f, READ_JAVA) or ()), through)
    t.note("%s read-worker: %d through readBytes; native below %.3f, `readBytes` %.3f, "
           "read/handleRead %.3f", what, total, nat, jni, libc)
    t.check(total >= 20, "%s: read-worker has only %d weight through %s", what, total, READ_JAVA)
    t.check(nat >= 0.85, "%s: only %.1f%% of read-worker stacks have native frames below %s",
            what, 100 * nat, READ_JAVA)
    t.check(jni >= 0.80, "%s: `readBytes` right below %s in %.1f%%, want >= 80%%", what,
            READ_JAVA, 100 * jni)
    t.check(libc >= 0.30, "%s: libc read/handleRead below %s in %.1f%%, want >= 30%%", what,
            READ_JAVA, 100 * libc)

    dfl = t.thread_profile(p, "deflate-worker", min_weight=20)
    through = lambda f: dfl.has(f, DEFLATE_JAVA)  # noqa: E731
    nat, total = share(dfl, lambda f: bool(nc.native_after(f, DEFLATE_JAVA)), through)
    jni, _ = share(dfl, lambda f: nc.below(f, DEFLATE_JAVA) == DEFLATE_JNI, through)
    z, _ = share(dfl, lambda f: "deflate" in (nc.native_after(f, DEFLATE_JAVA) or ()), through)
    t.note("%s deflate-worker: %d through deflateBytesBytes; native below %.3f, JNI %.3f, "
           "`deflate` %.3f", what, total, nat, jni, z)
    t.check(total >= 20, "%s: deflate-worker has only %d weight through %s", what, total,
            DEFLATE_JAVA)
    t.check(nat >= 0.90, "%s: only %.1f%% of deflate-worker stacks have native frames below "
            "%s", what, 100 * nat, DEFLATE_JAVA)
    t.check(jni >= 0.75, "%s: %s right below %s in %.1f%%, want >= 75%%", what, DEFLATE_JNI,
            DEFLATE_JAVA, 100 * jni)
    t.check(z >= 0.75, "%s: zlib `deflate` below %s in %.1f%%, want >= 75%%", what,
            DEFLATE_JAVA, 100 * z)


def body(t):
    # loaded at startup
    run, fpl = t.run_java("startup", "NativeFrames", [3])
    check_profile(t, t.convert(fpl), "-agentpath")

    # the control: Java frames only
    run, fpl = t.run_java("cstack_off", "NativeFrames", [2], agent_options="cpu=10ms,cstack=off")
    p = t.convert(fpl)
    # native (C) and kernel frames by their type in the log: a JVM stub frame the walker keeps
    # as a leaf (`new_type_array Runtime1 stub` under a blocked allocation) is not one
    log = fpl_reader.read_fpl(fpl)
    natives = sum(smp.weight for smp in log.samples
                  if any(ft_ in (FRAME_NATIVE, FRAME_KERNEL)
                         for _, _, ft_ in log.stacks.get(smp.stack_id, ())))
    t.note("cstack=off: %d of %d weight with a native frame", natives, p.total())
    t.check(natives == 0, "cstack=off still gave %d weight with native frames", natives)

    # attached to a JVM whose threads started before the agent was there
    jvm = ac.Jvm(t, "attached", "NativeFrames", [120], ready_thread="deflate-worker")
    fpl = t.path("attach.fpl")
    t.logs.append(fpl)
    r = ac.flyprof(t, "start", ["start", jvm.pid, "-o", fpl])
    ac.expect(t, r, 0, "profiling process %d" % jvm.pid)
    # a budget of process CPU rather than of wall time: a loaded machine stretches the window
    cpu0, deadline = nc.proc_cpu(jvm.pid), time.monotonic() + 90
    while nc.proc_cpu(jvm.pid) - cpu0 < 4 and time.monotonic() < deadline:
        time.sleep(0.1)
    r = ac.flyprof(t, "stop", ["stop", jvm.pid])
    ac.expect(t, r, 0, "profile written to " + fpl)
    check_profile(t, t.convert(fpl), "attach")
    t.check(jvm.alive(), "the JVM died after the attach")
    jvm.stop()


if __name__ == "__main__":
    ac.main(body, "native frames below the Java methods that called them (JNI, zlib, libc)")
