"""native_common: what the native-frame tests share (not a test itself).

- CpuPoller: polls a process's CPU time (/proc/PID/stat utime + stime) with timestamps while a
  profile is taken, so the CPU time spent inside the profile's own time range can be
  interpolated (the truth a CPU profile's total weight is compared with).
- log_window(t, fpl): the profile's time range, from its start (`flyprof summary`) to its last
  CPU sample.
- after(frames, java, pred): whether the frame right below (leaf side of) a Java frame holds.
"""
import datetime
import os
import re
import threading
import time

import flyprof_test as ft

CLK_TCK = os.sysconf("SC_CLK_TCK")


def proc_cpu(pid):
    """The process's CPU time in seconds (all threads, dead ones included), or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            s = f.read()
    except OSError:
        return None
    fields = s[s.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


class CpuPoller:
    """Polls proc_cpu(pid) every `every` seconds in a thread, with time.time() stamps."""

    def __init__(self, pid, every=0.02):
        self.pid = pid
        self.points = []
        self.every = every
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop:
            c = proc_cpu(self.pid)
            if c is None:
                break
            self.points.append((time.time(), c))
            time.sleep(self.every)

    def stop(self):
        self._stop = True
        self._thread.join(timeout=5)

    def at(self, when):
        """The CPU time at `when`, interpolated between the polls around it (the last poll
        when `when` is after them all)."""
        pts = self.points
        if not pts:
            raise ft.TestFailure("no CPU time polled for pid %d" % self.pid)
        if when <= pts[0][0]:
            return pts[0][1]
        for (t0, c0), (t1, c1) in zip(pts, pts[1:]):
            if t0 <= when <= t1:
                return c0 + (c1 - c0) * (when - t0) / (t1 - t0) if t1 > t0 else c1
        return pts[-1][1]

    def between(self, a, b):
        return self.at(b) - self.at(a)


def log_window(t, fpl):
    """(start, end) of a complete log in epoch seconds: its start from `flyprof summary`, its
    end at its last CPU sample."""
    r = t.flyprof("summary " + os.path.basename(fpl), ["summary", fpl])
    t.check(r.returncode == 0, "flyprof summary %s: exit status %s", fpl, r.returncode)
    m = re.search(r"^\s*started\s+(\S+)", r.stdout, re.M)
    d = re.search(r"^\s*duration\s+([0-9.]+) s \(start to END\)", r.stdout, re.M)
    t.check(m and d, "flyprof summary of %s shows no start and duration (complete log?):\n%s",
            fpl, r.stdout[:2000])
    start = datetime.datetime.fromisoformat(m.group(1)).timestamp()
    end = start + float(d.group(1))
    # up to the last CPU sample, not END: after the stop the writer drains and names what is
    # left, CPU no sample can cover (hundreds of ms of it on a slow machine)
    import test_wall_fpl as wf
    log = wf.read_fpl(fpl)
    cpu = log.cpu_samples()
    if cpu:
        end = min(end, start + log.seconds(max(s.ticks for s in cpu)))
    return start, end


def is_native(frame):
    """A folded frame that is not a Java method: C/C++ names have no package dots before the
    method, or are `[lib]+0x..`, or C++ `A::b`."""
    if frame.startswith("[") and "]+0x" in frame:
        return True
    if "::" in frame:
        return True
    return "." not in ft.method_of(frame)


def below(frames, java_method):
    """The frame right below (towards the leaf) the first frame of java_method, or None."""
    for i, f in enumerate(frames):
        if ft.method_of(f) == java_method:
            return frames[i + 1] if i + 1 < len(frames) else None
    return None


def native_after(frames, java_method):
    """The native frames below java_method (towards the leaf), root first, or None when the
    stack does not hold java_method."""
    for i, f in enumerate(frames):
        if ft.method_of(f) == java_method:
            rest = frames[i + 1:]
            out = []
            for g in rest:
                if not is_native(g):
                    break
                out.append(g)
            return out
    return None
