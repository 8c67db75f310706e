#!/usr/bin/env python3
"""disk_full (root only; skipped otherwise, a failure under CI=true): a log whose file system
fills up loses only the chunks written while it is full, says so everywhere, and is read back
right.

The log is written into a tmpfs of its own (16 MiB), mounted here (so root only).
DictBurst (two threads: a burst of new stacks, then a steady loop) runs under the agent at
cpu=10ms,wall=10ms, so that every chunk, written once a second, is larger than the slack of a
tmpfs page (a few KiB) and fails while the file system is full. The test fills the file system
with a filler file once the log holds a chunk of samples (in the burst), and removes it 1.5 s
into the steady phase (once both threads said they are in it: the burst counts each thread's
own CPU time, which a loaded machine stretches; or 1 s after status reported a loss, if
later), so the steady loop's
first stacks and methods are defined in chunks that are lost and used by chunks that land. Run with -agentpath (the JVM ends by itself) and attached (`flyprof start`,
`status`, `stop`). Asserts:

- the JVM's stderr says once, prefixed `flyprof:`, that the log cannot be written;
- `flyprof status` (while full) says chunks and samples were lost to write errors;
- attached: `flyprof stop` says the log is incomplete: chunks could not be written;
- `flyprof summary --json`: `log_state.complete` is false, `reasons` holds `write_errors`,
  `write_lost_chunks` > 0, no damaged region (a chunk cut off by the full file system was
  taken back, not left torn in the middle of the log);
- the log, read chunk by chunk with the tests' own reader (test_wall_fpl, which follows
  FORMAT.md), verifies everywhere; its sequence gaps are exactly the agent's WRITE_LOST_CHUNKS
  counter; every thread, stack, method and context a record uses was defined earlier in a
  chunk that landed (none only in a lost one);
- writing came back: samples from after the filler was removed are in the log (at least
  0.5 s of CPU), DictBurst.steady among their frames, and the log ends with END; `flyprof
  convert` shows no `[unknown stack]` or `[unknown thread]`.
"""
import errno
import json
import os
import re
import subprocess
import struct
import time
import zlib

import test_attach_common as ac
import test_wall_fpl as wf

ft = ac.ft
OPTIONS = "cpu=10ms,wall=10ms"
CTR_LOST_CHUNKS, CTR_LOST_SAMPLES, CTR_WRITE_ERRNO = 40, 41, 42
STEADY = "dev.flyprof.workload.DictBurst.steady"
BURST_S = 5.0             # DictBurst's burst phase (-agentpath; attached: 3 s more)
FREE_AFTER_BURST_S = 1.5  # into the steady phase: the filler goes
AFTER_FREE_S = 4.5        # profiled after that (at least)
WAIT_S = 60               # for the writer to write, and to lose a chunk, on a loaded machine


def mount_tmpfs(t, path):
    os.makedirs(path, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", path],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        ft.skip("disk_full", "cannot mount a tmpfs (%s)" % r.stdout.strip())


def umount(path):
    subprocess.run(["umount", "-l", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def fill(path):
    """Writes a filler file until the file system refuses even one byte more."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        for size in (1 << 16, 4096, 512, 1):
            block = b"\xa5" * size
            while True:
                try:
                    os.write(fd, block)
                except OSError as e:
                    if e.errno != errno.ENOSPC:
                        raise
                    break
    finally:
        os.close(fd)


class Checked:
    """A log read chunk by chunk, gaps in the sequence allowed (counted), anything else that is
    not intact refused; define-before-use checked record by record."""

    def __init__(self, path):
        with open(path, "rb") as f:
            data = f.read()
        if len(data) < 16 or data[:8] != wf.MAGIC:
            raise wf.FplError("not a flyprof log")
        self.log = log = wf.Log()
        self.gaps = 0
        self.undefined = []
        off, want = 16, 0
        while off < len(data):
            if len(data) - off < 16:
                raise wf.FplError("%d stray bytes at the end" % (len(data) - off))
            sync, length, crc, seq = struct.unpack_from("<IIII", data, off)
            if sync != wf.SYNC or off + 16 + length > len(data):
                raise wf.FplError("bad chunk header at offset %d (a torn chunk)" % off)
            payload = data[off + 16:off + 16 + length]
            if zlib.crc32(payload, zlib.crc32(data[off + 12:off + 16])) != crc:
                raise wf.FplError("chunk %d at offset %d: CRC mismatch" % (seq, off))
            if seq < want:
                raise wf.FplError("chunk %d after chunk %d" % (seq, want - 1))
            self.gaps += seq - want
            want = seq + 1
            log.chunks += 1
            state = wf.chunk_state()
            b = wf._Body(payload)
            while b.left():
                typ, n = b.u8(), b.v()
                if n > b.left():
                    raise wf.FplError("record of type %d runs past its chunk" % typ)
                body = payload[b.i:b.i + n]
                wf._record(log, typ, wf._Body(body), state)
                self._uses(typ, body, seq)
                b.i += n
            off += 16 + length
        if log.header is None:
            raise wf.FplError("no HEADER record")

    def _uses(self, typ, body, seq):
        log = self.log
        if typ == wf.REC_SAMPLE:
            s = log.samples[-1]
            for what, i, known in (("thread", s.thread_id, log.threads),
                                   ("stack", s.stack_id, log.stacks)):
                if i not in known:
                    self.undefined.append("chunk %d: a sample uses %s %d" % (seq, what, i))
            if s.context_id and s.context_id not in log.contexts:
                self.undefined.append("chunk %d: a sample uses context %d" % (seq, s.context_id))
        elif typ in (wf.REC_STACK, wf.REC_STACK2):
            sid = wf._Body(body).v()
            for m, _, _ in log.stacks[sid]:
                if m not in log.methods:
                    self.undefined.append("chunk %d: stack %d uses method %d" % (seq, sid, m))
        elif typ == wf.REC_EVENTS:
            tid = wf._Body(body).v()
            if tid and tid not in log.threads:
                self.undefined.append("chunk %d: events of thread %d" % (seq, tid))

    def mono_s(self, ticks):
        """A sample's time on CLOCK_MONOTONIC (time.monotonic's clock), in seconds."""
        return self.log.anchors[0][1] / 1e9 + self.log.seconds(ticks)


def summary_json(t, fpl):
    r = ac.flyprof(t, "summary --json " + os.path.basename(fpl), ["summary", "--json", fpl])
    ac.expect(t, r, 0)
    return json.loads(r.stdout)


def wait_writing(t, fpl, what):
    """Waits until the log holds a chunk of samples (the writer runs: a slow start on a loaded
    machine must not put the whole start inside the full window)."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if os.path.exists(fpl) and os.path.getsize(fpl) > 2048:
            return
        time.sleep(0.1)
    t.check(False, "%s: the log %s holds no chunk of samples after %d s", what, fpl, WAIT_S)


def status_loss(t, jvm, what):
    """`flyprof status` while the file system is full must say, once the writer has tried a
    chunk, that chunks and samples were lost to write errors (polled: a loaded machine delays
    the writer's next chunk)."""
    deadline = time.monotonic() + WAIT_S
    out, m = "", None
    while jvm.alive() and time.monotonic() < deadline:
        out = ac.status(t, jvm, "status " + what)
        m = re.search(r"(\d+) chunks? \((\d+) samples?\) lost to write errors", out)
        if m:
            break
        time.sleep(0.5)
    t.note("%s: status says %r", what, m.group(0) if m else out.strip().splitlines()[-1:])
    t.check(m and int(m.group(1)) > 0, "%s: flyprof status never said that chunks were lost to "
            "write errors while the file system was full (%.0f s, until the JVM ended or %d s "
            "passed); it said: %s", what, time.monotonic() - deadline + WAIT_S, WAIT_S,
            out.strip())


def check_log(t, fpl, what, t_free, jvm_err):
    said = [line for line in jvm_err.splitlines() if line.startswith("flyprof:") and
            "cannot write the log" in line]
    t.note("%s: the JVM's stderr says %d times: %s", what, len(said), said[:1])
    t.check(len(said) == 1, "%s: the JVM's stderr should say once that the log cannot be "
            "written; it says it %d times: %s", what, len(said), jvm_err.strip()[-1500:])
    t.check("No space left on device" in said[0], "%s: the message does not name the error: %s",
            what, said[0])

    js = summary_json(t, fpl)
    st = js["log_state"]
    t.note("%s: log_state %s", what, st)
    t.check(st["complete"] is False, "%s: summary --json says the log is complete: %s", what, st)
    t.check("write_errors" in st.get("reasons", []), "%s: log_state.reasons lacks write_errors: "
            "%s", what, st)
    t.check(st.get("write_lost_chunks", 0) > 0 and st.get("write_lost_samples", 0) > 0,
            "%s: log_state does not count the chunks and samples lost: %s", what, st)
    t.check(st["chunks_damaged"] == 0, "%s: %d damaged regions: a chunk cut off by the full "
            "file system was left in the log", what, st["chunks_damaged"])

    try:
        c = Checked(fpl)
    except wf.FplError as e:
        raise ac.TestFailure("%s: the log does not read back intact: %s" % (what, e))
    log = c.log
    lost = log.counters.get(CTR_LOST_CHUNKS, 0)
    t.note("%s: %d chunks read, %d missing by sequence number, WRITE_LOST_CHUNKS %d, "
           "WRITE_LOST_SAMPLES %d, WRITE_ERRNO %d", what, log.chunks, c.gaps, lost,
           log.counters.get(CTR_LOST_SAMPLES, 0), log.counters.get(CTR_WRITE_ERRNO, 0))
    t.check(log.end_ticks is not None, "%s: no END record: writing never came back", what)
    t.check(lost > 0 and c.gaps == lost, "%s: %d chunks missing by sequence number, the agent "
            "counted %d lost", what, c.gaps, lost)
    t.check(log.counters.get(CTR_WRITE_ERRNO) == errno.ENOSPC, "%s: WRITE_ERRNO is %s, want "
            "ENOSPC (%d)", what, log.counters.get(CTR_WRITE_ERRNO), errno.ENOSPC)
    t.check(not c.undefined, "%s: %d references to entries no chunk that landed defined, e.g. "
            "%s", what, len(c.undefined), c.undefined[:5])

    # the samples from after the filler went: the retry worked
    after = [s for s in log.cpu_samples() if c.mono_s(s.ticks) > t_free + 0.5]
    weight = sum(s.weight for s in after)
    steady = [s for s in after if any(log.methods[m].full == STEADY
                                      for m, _, _ in log.stacks[s.stack_id])]
    t.note("%s: %d cpu samples (weight %d) from 0.5 s after the space came back, %d of them in "
           "DictBurst.steady", what, len(after), weight, len(steady))
    t.check(weight >= 50, "%s: only %d cpu samples from after the space came back: later "
            "chunks were not written", what, weight)
    t.check(len(steady) >= 10, "%s: only %d samples after the space came back are in %s",
            what, len(steady), STEADY)

    p = t.convert(fpl)
    bad = [f for f, _ in p.samples if any(x in ("[unknown stack]", "[unknown thread]")
                                          for x in f)]
    t.check(not bad, "%s: flyprof convert shows undefined entries: %s", what, bad[:3])


def wait_steady(t, jvm, what):
    """Waits (bounded) until both DictBurst threads said they are in the steady phase."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        said = set(re.findall(r"^steady (dict-[ab])$", jvm.stdout(), re.M))
        if len(said) == 2:
            return
        t.check(jvm.alive(), "%s: the JVM exited in the burst phase", what)
        time.sleep(0.1)
    t.check(False, "%s: DictBurst's threads did not reach the steady phase in %d s", what,
            WAIT_S)


def run_agentpath(t, mnt):
    fpl = os.path.join(mnt, "agentpath.fpl")
    filler = os.path.join(mnt, "filler")
    t.logs.append(fpl)
    steady_s = FREE_AFTER_BURST_S + AFTER_FREE_S + 2
    jvm = ac.Jvm(t, "disk_full_agentpath", "DictBurst", [BURST_S, steady_s],
                 jvm_options=["-agentpath:%s=%s,file=%s" % (t.agent, OPTIONS, fpl)],
                 ready_thread="dict-a")
    t0 = time.monotonic()
    wait_writing(t, fpl, "-agentpath")
    fill(filler)
    t.note("-agentpath: the file system is full at %.1f s", time.monotonic() - t0)
    status_loss(t, jvm, "-agentpath")
    wait_steady(t, jvm, "-agentpath")
    time.sleep(FREE_AFTER_BURST_S)
    os.unlink(filler)
    t_free = time.monotonic()
    t.note("-agentpath: space is back at %.1f s", t_free - t0)
    try:
        jvm.proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        pass
    t.check(jvm.stop() == 0, "-agentpath: the JVM exited with status %s", jvm.proc.returncode)
    check_log(t, fpl, "-agentpath", t_free, jvm.stderr())


def run_attach(t, mnt):
    fpl = os.path.join(mnt, "attach.fpl")
    filler = os.path.join(mnt, "filler")
    t.logs.append(fpl)
    burst_s = BURST_S + 3  # the attach takes a while
    jvm = ac.Jvm(t, "disk_full_attach", "DictBurst", [burst_s, 600], ready_thread="dict-a")
    t0 = time.monotonic()
    r = ac.flyprof(t, "start", ["start", jvm.pid, "-o", fpl, OPTIONS])
    ac.expect(t, r, 0)
    wait_writing(t, fpl, "attached")
    fill(filler)
    t.note("attached: the file system is full at %.1f s", time.monotonic() - t0)
    status_loss(t, jvm, "attached")
    wait_steady(t, jvm, "attached")
    time.sleep(FREE_AFTER_BURST_S)
    os.unlink(filler)
    t_free = time.monotonic()
    t.note("attached: space is back at %.1f s", t_free - t0)
    time.sleep(AFTER_FREE_S)
    r = ac.flyprof(t, "stop", ["stop", jvm.pid])
    ac.expect(t, r, 0)
    m = re.search(r"warning: (\d+) chunks? of the log \((\d+) samples?\) could not be written "
                  r"\(([^)]*)\)", r.stderr)
    t.note("attached: stop says %r", m.group(0) if m else r.stderr.strip())
    t.check(m and int(m.group(1)) > 0 and "incomplete" in r.stderr,
            "attached: flyprof stop does not say the log lost chunks: %s", r.stderr.strip())
    jvm.stop()
    check_log(t, fpl, "attached", t_free, jvm.stderr())


def body(t):
    if os.geteuid() != 0:
        ft.skip("disk_full", "mounting a tmpfs needs root")
    mnt = t.path("fs")
    for run in (run_agentpath, run_attach):
        mount_tmpfs(t, mnt)
        try:
            run(t, mnt)
        finally:
            # the logs are kept for the failure report: copied out before the tmpfs goes
            for f in list(t.logs):
                if f.startswith(mnt + os.sep) and os.path.isfile(f):
                    keep = t.path(os.path.basename(f))
                    with open(f, "rb") as src, open(keep, "wb") as dst:
                        dst.write(src.read())
                    t.logs[t.logs.index(f)] = keep
            umount(mnt)


if __name__ == "__main__":
    ac.main(body, "a full file system loses only the chunks written while it is full")
