#!/usr/bin/env python3
"""attach_user (root only; skipped otherwise, a failure under CI=true): root attaches to a JVM that runs as `nobody`.
The flyprof used lives in a directory only root can read, so the agent must be staged where
nobody can load it (/tmp/flyprof-<uid>/libflyprof.so in the JVM's /tmp); the profile is written
by the JVM, owned by nobody, and holds the workload. An output where nobody cannot write is
refused before anything is sent. Another non-root user (`daemon`) gets a clear error naming
the JVM's user, and the JVM keeps running.

The JVM's jar and output directory sit in a fresh directory under /tmp that nobody can read
(the build tree may not be).
"""
import os
import pwd
import shutil
import tempfile

import test_attach_common as ac

HOT = "dev.flyprof.workload.Split123.block"

def group_of(user):
    import grp
    return grp.getgrgid(pwd.getpwnam(user).pw_gid).gr_name


def body(t):
    if os.geteuid() != 0:
        ac.ft.skip("attach_user", "needs root (to start a JVM as another user)")
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        ac.ft.skip("attach_user", "no user nobody")
    staged_dir = "/tmp/flyprof-%d" % nobody.pw_uid
    staged_before = os.path.exists(staged_dir)
    shared = tempfile.mkdtemp(prefix="flyprof-attach-user-", dir="/tmp")
    private = tempfile.mkdtemp(prefix="flyprof-attach-root-", dir="/tmp")
    try:
        os.chmod(shared, 0o755)
        os.chmod(private, 0o700)
        jar = os.path.join(shared, "flyprof.jar")
        shutil.copy(t.jar, jar)
        os.chmod(jar, 0o644)
        out = os.path.join(shared, "out")
        os.mkdir(out, 0o755)
        os.chown(out, nobody.pw_uid, nobody.pw_gid)
        # a flyprof that only root can read: the JVM cannot load its agent in place
        for sub, src in (("bin", t.cli), ("lib", t.agent)):
            os.mkdir(os.path.join(private, sub))
            shutil.copy(src, os.path.join(private, sub))
        cli = os.path.join(private, "bin", "flyprof")
        # and one that anybody may run, for the non-root user
        os.mkdir(os.path.join(shared, "bin"), 0o755)
        shutil.copy(t.cli, os.path.join(shared, "bin"))
        public_cli = os.path.join(shared, "bin", "flyprof")
        os.chmod(public_cli, 0o755)

        jvm = ac.Jvm(t, "nobody", "Split123", [300], user="nobody",
                     group=group_of("nobody"), cwd=out, jar=jar)
        with open("/proc/%d/status" % jvm.pid) as f:
            uid = [line.split()[2] for line in f if line.startswith("Uid:")][0]
        t.check(uid == str(nobody.pw_uid), "the JVM runs as uid %s, not nobody", uid)

        fpl = os.path.join(out, "nobody.fpl")
        t.logs.append(fpl)
        r = ac.flyprof(t, "attach as root", ["attach", jvm.pid, "-d", "2", "-o", fpl], cli=cli)
        ac.expect(t, r, 0, "profile written to " + fpl)
        st = os.stat(fpl)
        t.check(st.st_uid == nobody.pw_uid, "the profile is owned by uid %d, not nobody",
                st.st_uid)
        with open("/proc/%d/maps" % jvm.pid) as f:
            libs = {line.split()[-1] for line in f if "libflyprof.so" in line}
        t.note("agent mapped from %s", libs)
        t.check(libs == {staged_dir + "/libflyprof.so"},
                "the JVM maps the agent from %s, want the staged copy in %s", libs, staged_dir)
        p = t.convert(fpl)
        # the worker's stacks: every thread of the process is sampled, and right after the
        # attach the JIT and the agent's writer (unwind tables) take a share of a 2 s profile
        w = t.thread_profile(p, "split-worker", min_weight=20)
        hot = w.weight(lambda f: w.has(f, HOT))
        t.note("samples %d, split-worker %d, with %s %d", p.total(), w.total(), HOT, hot)
        t.check(hot / w.total() >= 0.9, "%s on %d of split-worker's %d stacks", HOT, hot,
                w.total())

        r = ac.flyprof(t, "start, output nobody cannot write",
                       ["start", jvm.pid, "-o", os.path.join(private, "x.fpl")])
        ac.expect(t, r, 1, "cannot create files in " + private, "nobody")
        out_status = ac.status(t, jvm)
        t.check("not profiling" in out_status, "status after the refused start: %r", out_status)

        try:
            pwd.getpwnam("daemon")
            r = ac.flyprof(t, "status as daemon", ["status", jvm.pid], user="daemon",
                           cli=public_cli)
            ac.expect(t, r, 1, "belongs to user nobody", "run flyprof as nobody or as root")
        except KeyError:
            t.note("no user daemon: the non-root case is not checked")
        t.check(jvm.alive(), "the JVM died")
        jvm.stop()
    finally:
        ac.stop_all()
        shutil.rmtree(shared, ignore_errors=True)
        shutil.rmtree(private, ignore_errors=True)
        if not staged_before:
            shutil.rmtree(staged_dir, ignore_errors=True)


if __name__ == "__main__":
    ac.main(body, "root attaches to another user's JVM; other users get a clear error")
