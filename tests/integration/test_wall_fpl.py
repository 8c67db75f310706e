#!/usr/bin/env python3
"""wall_fpl: a small, independent reader of .fpl logs (collector/format/FORMAT.md, versions 1 to 4) for the
wall-clock tests, and its own test.

The wall-clock tests need facts the rendered outputs do not show (yet), or show only in
aggregate: the thread state of each wall sample per thread, each tick's candidates / chosen /
signaled / failed counts and its time, which tick each sample answers. This module decodes
them straight from the log, following FORMAT.md alone (it does not share code with the
collector, so it also cross-checks it): preamble, chunks verified by CRC-32 over sequence
number + payload, length-framed records, THREAD / SAMPLE / WALL_TICK / ANCHOR / HEADER / END /
COUNTERS / EVENTS, and METHOD / METHOD2 / CLASS_NAME / STACK / STACK2 (names, line tables, bcis
and frame types; the stack walker's tests read the types, which folded output does not show).
Damaged or cut-off chunks are not recovered (a test log must be intact): the reader raises.

Used by test_wall_states.py, test_wall_parked.py, test_filter_marked.py and test_churn.py:

    log = read_fpl(path)
    log.wall_samples()            -> [Sample], with .thread (name), .state, .upscaled
    log.ticks                     -> {tick_id: Tick}
    log.seconds(ticks)            -> seconds since the header's anchor (section 9)

Run as a test (`python3 test_wall_fpl.py`) it decodes the example of FORMAT.md section 12 and a
log it writes itself with damage-free chunks, and checks every field.
"""
import struct
import sys
import zlib

MAGIC = b"FLYPROF\0"
SYNC = 0x43504C46
CHUNK_MAX = 16 * 1024 * 1024

REC_HEADER, REC_ANCHOR, REC_THREAD, REC_METHOD, REC_STACK, REC_SAMPLE = 1, 2, 3, 4, 5, 6
REC_COUNTERS, REC_HIST, REC_END, REC_WALL_TICK = 7, 8, 9, 10
REC_EVENTS = 11
REC_CONTEXT, REC_ENDPOINT, REC_SAMPLE2 = 16, 17, 18
REC_ENDPOINT_NAME, REC_ENDPOINT2, REC_STACK2 = 19, 20, 21
REC_CLASS_NAME, REC_METHOD2 = 22, 23
STACK2_RING = 16
S2_THREAD, S2_KIND, S2_STACK, S2_WEIGHT, S2_TICK, S2_CONTEXT, S2_SIZE = 1, 2, 4, 8, 16, 32, 64
EVENT_STRING, EVENT_TRUNCATED, EVENT_DROPPED = 1, 2, 4

KIND_CPU, KIND_WALL = 0, 1
STATES = {0: "unknown", 1: "running", 2: "blocked", 3: "waiting", 4: "timed_waiting",
          5: "parked", 6: "sleeping", 7: "native"}
CTR_SIGNALS, CTR_SAMPLES, CTR_WALL_SIGNALS, CTR_WALL_WALKED = 0, 1, 8, 10


class FplError(Exception):
    """The log does not decode as FORMAT.md says."""


class _Body:
    """A record body: bounded decoding (a field never runs past the body)."""

    def __init__(self, data):
        self.d = data
        self.i = 0

    def left(self):
        return len(self.d) - self.i

    def v(self):
        x, shift = 0, 0
        for n in range(10):
            if self.i >= len(self.d):
                raise FplError("varint runs past the record")
            b = self.d[self.i]
            self.i += 1
            if n == 9 and b > 1:
                raise FplError("invalid 10-byte varint")
            x |= (b & 0x7F) << shift
            if not b & 0x80:
                return x
            shift += 7
        raise FplError("varint longer than 10 bytes")

    def sv(self):
        u = self.v()
        return (u >> 1) ^ -(u & 1)

    def fixed(self, fmt):
        n = struct.calcsize(fmt)
        if self.left() < n:
            raise FplError("fixed field runs past the record")
        x = struct.unpack_from(fmt, self.d, self.i)[0]
        self.i += n
        return x

    def u8(self):
        return self.fixed("<B")

    def u64(self):
        return self.fixed("<Q")

    def str(self):
        n = self.v()
        if n > self.left():
            raise FplError("string runs past the record")
        s = self.d[self.i:self.i + n].decode("utf-8", errors="replace")
        self.i += n
        return s


class Tick:
    __slots__ = ("id", "ticks", "candidates", "chosen", "signaled", "failed")

    def __init__(self, tid, ticks, candidates, chosen, signaled, failed):
        self.id, self.ticks, self.candidates = tid, ticks, candidates
        self.chosen, self.signaled, self.failed = chosen, signaled, failed

    def scale(self):
        """candidates / chosen, or None for an impossible tick (FORMAT.md section 10)."""
        if 0 < self.chosen <= self.candidates:
            return self.candidates / self.chosen
        return None


class Sample:
    __slots__ = ("ticks", "thread_id", "stack_id", "weight", "kind", "state", "tick_id", "log",
                 "context_id", "size")

    def __init__(self, log, ticks, thread_id, stack_id, weight, kind, state, tick_id,
                 context_id=0, size=0):
        self.log, self.ticks, self.thread_id, self.stack_id = log, ticks, thread_id, stack_id
        self.weight, self.kind, self.state, self.tick_id = weight, kind, state, tick_id
        self.context_id, self.size = context_id, size

    @property
    def context(self):
        """(span, root) of the sample's CONTEXT, (0, 0) without one, None when undefined."""
        if not self.context_id:
            return (0, 0)
        return self.log.contexts.get(self.context_id)

    @property
    def thread(self):
        t = self.log.threads.get(self.thread_id)
        return t[1] if t else "[unknown thread]"

    @property
    def tid(self):
        t = self.log.threads.get(self.thread_id)
        return t[0] if t else 0

    @property
    def state_name(self):
        return STATES.get(self.state, "state_%d" % self.state)

    @property
    def upscaled(self):
        """The upscaled weight of FORMAT.md section 10 (the weight itself for CPU)."""
        if self.kind != KIND_WALL or not self.tick_id:
            return float(self.weight)
        t = self.log.ticks.get(self.tick_id)
        s = t.scale() if t else None
        return self.weight * s if s is not None else float(self.weight)


class Method:
    __slots__ = ("id", "kind", "klass", "name", "signature", "source", "chunk", "lines")

    def __init__(self, mid, kind, klass, name, signature, source, chunk, lines=()):
        self.id, self.kind, self.klass, self.name = mid, kind, klass, name
        self.signature, self.source, self.chunk = signature, source, chunk
        self.lines = list(lines)  # [(start_bci, line)], sorted by bci

    def __getitem__(self, i):
        """(kind, class, name)[i], as a tuple would give it."""
        return (self.kind, self.klass, self.name)[i]

    @property
    def full(self):
        """`package.Class.method`, or the name alone for markers and C/stub frames."""
        return "%s.%s" % (self.klass, self.name) if self.klass else self.name


def decode_mutf8(b):
    """JVM modified UTF-8 (C0 80 for U+0000, surrogates in 3 bytes each) to a str."""
    s = b.replace(b"\xc0\x80", b"\x00").decode("utf-8", errors="surrogatepass")
    return s.encode("utf-16-le", errors="surrogatepass").decode("utf-16-le", errors="replace")


class Event:
    """An EVENTS event (FORMAT.md 5.11): .thread_id, .ticks, .n, .flags, .dropped (right
    before it), .s (decoded str, None without a string)."""
    __slots__ = ("thread_id", "ticks", "n", "flags", "dropped", "s")

    def __init__(self, thread_id, ticks, n, flags, dropped, s):
        self.thread_id, self.ticks, self.n, self.flags = thread_id, ticks, n, flags
        self.dropped, self.s = dropped, s


class Log:
    def __init__(self):
        self.header = None
        self.anchors = []       # (ticks, mono_ns, real_ns), the header's first
        self.threads = {}       # id -> (os_tid, name)
        self.samples = []
        self.ticks = {}         # tick id -> Tick
        self.tick_repeats = 0
        self.counters = {}
        self.stacks = {}        # id -> [(method_id, bci, frame type)], leaf first
        self.end_ticks = None
        self.chunks = 0
        self.methods = {}       # id -> Method
        self.method_records = []  # every METHOD record, in log order (ids may repeat a name)
        self.events = []        # Event, in log order
        self.event_drops = []   # (thread_id, dropped after its last event)
        self.contexts = {}      # context id -> (span, root)
        self.endpoints = {}     # root span id -> name (the last ENDPOINT or ENDPOINT2 record)
        self.endpoint_names = {}  # ENDPOINT_NAME id -> name
        self.endpoint2 = 0      # ENDPOINT2 records read
        self.endpoint_name_records = 0
        self.stack2 = 0         # STACK2 records read
        self.classes = {}       # CLASS_NAME id -> (class, source file)
        self.class_name_records = 0
        self.method2 = 0        # METHOD2 records read

    def wall_samples(self):
        return [s for s in self.samples if s.kind == KIND_WALL]

    def cpu_samples(self):
        return [s for s in self.samples if s.kind == KIND_CPU]

    def seconds(self, ticks):
        """Ticks to seconds after the header's anchor, as FORMAT.md section 9 says."""
        t0, m0, _ = self.anchors[0]
        tl, ml, _ = self.anchors[-1]
        if ml - m0 > 1_000_000_000 and tl != t0:
            return (ticks - t0) * (ml - m0) / (tl - t0) / 1e9
        return (ticks - t0) / self.header["ticks_per_sec"]

    def sorted_ticks(self):
        return sorted(self.ticks.values(), key=lambda t: t.ticks)


def chunk_state():
    """What _record carries from one record to the next of a chunk: the delta chain and
    SAMPLE2's chains, all restarting in every chunk."""
    return {"prev": 0, "thread": None, "tick": 0, "threads": {}, "stacks": []}


def _record(log, typ, b, state):
    if typ == REC_HEADER:
        if b.v() != 1:
            return
        h = {"pid": b.v(), "clock": b.u8(), "ticks_per_sec": b.u64()}
        anchor = (b.u64(), b.u64(), b.u64())
        h.update(cpu_interval_ns=b.v(), engine=b.u8(), wall_interval_ns=b.v(),
                 wall_threads=b.v(), depth=b.v(), options=b.str(), jvm_name=b.str(),
                 jvm_version=b.str(), command=b.str())
        if log.header is None:
            log.header = h
            log.anchors.insert(0, anchor)
    elif typ == REC_ANCHOR:
        log.anchors.append((b.u64(), b.u64(), b.u64()))
    elif typ == REC_THREAD:
        tid = b.v()
        log.threads[tid] = (b.v(), b.str())
    elif typ == REC_SAMPLE:
        state["prev"] = (state["prev"] + b.sv()) & (2 ** 64 - 1)
        s = Sample(log, state["prev"], b.v(), b.v(), b.v(), b.u8(), b.u8(),
                   b.v() if b.left() else 0, b.v() if b.left() else 0,
                   b.v() if b.left() else 0)
        log.samples.append(s)
    elif typ == REC_SAMPLE2:
        f = b.u8()
        state["prev"] = (state["prev"] + b.sv()) & (2 ** 64 - 1)
        if f & S2_THREAD:
            thread = b.v()
        elif state["thread"] is None:
            raise FplError("SAMPLE2 elides its thread with no sample before it in the chunk")
        else:
            thread = state["thread"]
        kind, st = (b.u8(), b.u8()) if f & S2_KIND else (None, None)
        stack = b.v() if f & S2_STACK else None
        weight = b.v() if f & S2_WEIGHT else 1
        tick = 0
        if f & S2_TICK:
            state["tick"] = (state["tick"] + b.sv()) & (2 ** 64 - 1)
            tick = state["tick"]
        ctx = b.v() if f & S2_CONTEXT else None
        size = b.v() if f & S2_SIZE else 0
        prev = state["threads"].get(thread)
        if prev is None and (kind is None or stack is None):
            raise FplError("SAMPLE2 elides kind or stack of thread %d's first sample in the "
                           "chunk" % thread)
        if kind is None:
            kind, st = prev[0], prev[1]
        if stack is None:
            stack = prev[2]
        if ctx is None:
            ctx = prev[3] if prev else 0
        state["threads"][thread] = (kind, st, stack, ctx)
        state["thread"] = thread
        log.samples.append(Sample(log, state["prev"], thread, stack, weight, kind, st, tick,
                                  ctx, size))
    elif typ == REC_COUNTERS:
        for _ in range(b.v()):
            k = b.v()
            log.counters[k] = b.v()
    elif typ == REC_STACK:
        sid, n = b.v(), b.v()
        frames = [(b.v(), b.sv()) for _ in range(n)]
        types = [b.u8() for _ in range(n)] if b.left() >= n else [0] * n
        log.stacks[sid] = [f + (t,) for f, t in zip(frames, types)]
        state["stacks"].append(log.stacks[sid])
    elif typ == REC_STACK2:
        sid, back, shared, n = b.v(), b.v(), b.v(), b.v()
        ring = state["stacks"][-STACK2_RING:]
        if not 1 <= back <= len(ring) or shared > len(ring[-back]):
            raise FplError("STACK2 %d: no base %d back with %d frames" % (sid, back, shared))
        base = ring[-back]
        frames = [(b.v(), b.sv()) for _ in range(n)]
        types = [b.u8() for _ in range(n)]
        log.stacks[sid] = [f + (t,) for f, t in zip(frames, types)] + \
            (base[len(base) - shared:] if shared else [])
        state["stacks"].append(log.stacks[sid])
        log.stack2 += 1
    elif typ == REC_END:
        log.end_ticks = b.u64()
    elif typ == REC_METHOD:
        m = Method(b.v(), b.u8(), b.str(), b.str(), b.str(), b.str(), log.chunks)
        m.lines = [(b.v(), b.v()) for _ in range(b.v())]
        log.methods[m.id] = m
        log.method_records.append(m)
    elif typ == REC_CLASS_NAME:
        cid = b.v()
        if cid == 0:
            raise FplError("CLASS_NAME with id 0")
        log.classes[cid] = (b.str(), b.str())
        log.class_name_records += 1
    elif typ == REC_METHOD2:
        mid, kind, cid = b.v(), b.u8(), b.v()
        name, sig = b.str(), b.str()
        if cid and cid not in log.classes:
            raise FplError("METHOD2 %d uses class id %d before its CLASS_NAME" % (mid, cid))
        klass, source = log.classes[cid] if cid else ("", "")
        lines, bci, line = [], 0, 0
        for _ in range(b.v()):
            bci += b.v()
            line += b.sv()
            lines.append((bci, line))
        m = Method(mid, kind, klass, name, sig, source, log.chunks, lines)
        log.methods[m.id] = m
        log.method_records.append(m)
        log.method2 += 1
    elif typ == REC_WALL_TICK:
        tid = b.v()
        if tid == 0:
            raise FplError("WALL_TICK with id 0")
        t = Tick(tid, b.u64(), b.v(), b.v(), b.v(), b.v())
        if tid in log.ticks:
            log.tick_repeats += 1
        else:
            log.ticks[tid] = t
    elif typ == REC_EVENTS:
        thread, count, prev, evs = b.v(), b.v(), 0, []
        for _ in range(count):
            prev = (prev + b.sv()) & (2 ** 64 - 1)
            n, flags = b.sv(), b.u8()
            dropped = b.v() if flags & EVENT_DROPPED else 0
            text = None
            if flags & EVENT_STRING:
                k = b.v()
                if k > b.left():
                    raise FplError("event string runs past the record")
                text = decode_mutf8(bytes(b.d[b.i:b.i + k]))
                b.i += k
            evs.append(Event(thread, prev, n, flags, dropped, text))
        log.events.extend(evs)
        after = b.v() if b.left() else 0
        if after:
            log.event_drops.append((thread, after))
    elif typ == REC_CONTEXT:
        cid = b.v()
        if cid == 0:
            raise FplError("CONTEXT with id 0")
        log.contexts[cid] = (b.v(), b.v())
    elif typ == REC_ENDPOINT:
        root = b.v()
        log.endpoints[root] = b.str()
    elif typ == REC_ENDPOINT_NAME:
        nid = b.v()
        if nid == 0:
            raise FplError("ENDPOINT_NAME with id 0")
        log.endpoint_names[nid] = b.str()
        log.endpoint_name_records += 1
    elif typ == REC_ENDPOINT2:
        root, nid = b.v(), b.v()
        if nid not in log.endpoint_names:
            raise FplError("ENDPOINT2 of root %d uses name id %d before its ENDPOINT_NAME"
                           % (root, nid))
        log.endpoints[root] = log.endpoint_names[nid]
        log.endpoint2 += 1
    # HANDLER_HIST and unknown types: skipped by their length


def parse(data):
    """Decodes a whole .fpl image (bytes). Raises FplError on anything but an intact log."""
    if len(data) < 16 or data[:8] != MAGIC:
        raise FplError("not a flyprof log")
    version = struct.unpack_from("<H", data, 8)[0]
    if version not in (1, 2, 3, 4):
        raise FplError("unsupported version %d" % version)
    log = Log()
    off, seq = 16, 0
    while off < len(data):
        if len(data) - off < 16:
            raise FplError("%d stray bytes at the end" % (len(data) - off))
        sync, length, crc, cseq = struct.unpack_from("<IIII", data, off)
        if sync != SYNC or length > CHUNK_MAX or off + 16 + length > len(data):
            raise FplError("bad chunk header at offset %d" % off)
        payload = data[off + 16:off + 16 + length]
        if zlib.crc32(payload, zlib.crc32(data[off + 12:off + 16])) != crc:
            raise FplError("chunk %d at offset %d: CRC mismatch" % (cseq, off))
        if cseq != seq:
            raise FplError("chunk sequence %d, expected %d" % (cseq, seq))
        seq += 1
        log.chunks += 1
        state = chunk_state()
        b = _Body(payload)
        while b.left():
            typ = b.u8()
            n = b.v()
            if n > b.left():
                raise FplError("record of type %d runs past its chunk" % typ)
            _record(log, typ, _Body(payload[b.i:b.i + n]), state)
            b.i += n
        off += 16 + length
    if log.header is None:
        raise FplError("no HEADER record")
    return log


def read_fpl(path):
    with open(path, "rb") as f:
        return parse(f.read())


# ---- helpers the wall tests share (they need flyprof_test's Test) ----------------------------

STATE_FRAMES = {"[%s]" % n: n for n in STATES.values() if n != "unknown"}


def convert_kind(t, fpl, kind, threads=True):
    """`flyprof convert fpl -o ... --kind KIND [--threads]`, parsed into a flyprof_test.Profile
    (registered for the failure report). Fails the test when convert fails or the profile is
    empty."""
    import os
    import re
    import flyprof_test as ft
    out = re.sub(r"\.fpl$", "", fpl) + ".%s%s.collapsed" % (kind, ".threads" if threads else "")
    cmd = ["convert", fpl, "-o", out, "--kind", kind] + (["--threads"] if threads else [])
    r = t.flyprof("convert --kind %s %s" % (kind, os.path.basename(fpl)), cmd)
    t.check(not r.timed_out and r.returncode == 0, "flyprof convert --kind %s %s: exit status %s",
            kind, fpl, r.returncode)
    with open(out, encoding="utf-8", errors="replace") as f:
        p = ft.Profile.parse(f.read(), threads)
    t.check(p.total() > 0, "%s: empty %s profile", out, kind)
    if threads and fpl not in t.profiles:
        t.profiles[fpl] = p
    return p


def folded_states(p):
    """{thread: {state: weight}} from the state leaf frames ("[parked]") that the renderer adds
    to wall stacks, or None when the folded output has none (renderers before the state
    leaves)."""
    out, any_leaf = {}, False
    for f, w in p.samples:
        leaf = f[-1] if len(f) > 1 else ""
        st = STATE_FRAMES.get(leaf)
        if st:
            any_leaf = True
        d = out.setdefault(f[0], {})
        d[st or "unknown"] = d.get(st or "unknown", 0) + w
    return out if any_leaf else None


def log_states(log):
    """{thread name: {state: upscaled weight}} of the wall samples of a log."""
    out = {}
    for s in log.wall_samples():
        d = out.setdefault(s.thread, {})
        d[s.state_name] = d.get(s.state_name, 0.0) + s.upscaled
    return out


def summary(t, fpl):
    """Runs `flyprof summary` (must exit 0); returns its text and the figures the wall tests
    use, None where the line is absent: wall_samples, wall_upscaled, wall_thread_seconds,
    ticks, mean_candidates, mean_chosen, signaled, signal_failed, cut_off."""
    import os
    import re
    r = t.flyprof("summary " + os.path.basename(fpl), ["summary", fpl])
    t.check(not r.timed_out and r.returncode == 0, "flyprof summary %s: exit status %s",
            fpl, r.returncode)
    txt = r.stdout
    fig = {"cut_off": bool(re.search(r"cut off", txt))}
    m = re.search(r"^\s*wall\s+(\d+) samples, weight (\d+), upscaled ([\d.]+)"
                  r"(?: \(([\d.]+) thread-seconds)?", txt, re.M)
    fig["wall_samples"] = int(m.group(1)) if m else None
    fig["wall_upscaled"] = float(m.group(3)) if m else None
    fig["wall_thread_seconds"] = float(m.group(4)) if m and m.group(4) else None
    m = re.search(r"^\s*cpu\s+(\d+) samples, weight (\d+)", txt, re.M)
    fig["cpu_samples"] = int(m.group(1)) if m else None
    fig["cpu_weight"] = int(m.group(2)) if m else None
    m = re.search(r"wall ticks: (\d+)(?:, on average ([\d.]+) candidate threads and ([\d.]+) "
                  r"chosen per tick; (\d+) threads signaled, (\d+) signals failed)?", txt)
    fig["ticks"] = int(m.group(1)) if m else None
    have = bool(m and m.group(2))
    fig["mean_candidates"] = float(m.group(2)) if have else None
    fig["mean_chosen"] = float(m.group(3)) if have else None
    fig["signaled"] = int(m.group(4)) if have else None
    fig["signal_failed"] = int(m.group(5)) if have else None
    return txt, fig


def fmt_states(d):
    tot = sum(d.values()) or 1
    return ", ".join("%s %.1f%%" % (k, 100.0 * v / tot)
                     for k, v in sorted(d.items(), key=lambda kv: -kv[1]))


# ---- self test -------------------------------------------------------------------------------

# FORMAT.md section 12, byte for byte.
EXAMPLE = bytes.fromhex(
    "464c5950524f46000100000000000000"
    "464c504347000000f03b6bbd00000000"
    "0308019221046d61696e"
    "0414010001410162032829560641 2e6a61766101 0007".replace(" ", "") +
    "050401010106"
    "0607d00f0101010001"
    "0a0d01ed0300000000000006020200"
    "060714010101010601")


def _v(x):
    out = bytearray()
    while True:
        b = x & 0x7F
        x >>= 7
        if x:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _sv(x):
    return _v((x << 1) ^ (x >> 63) if x < 0 else x << 1)


def _str(s):
    b = s.encode()
    return _v(len(b)) + b


def _rec(typ, body):
    return bytes([typ]) + _v(len(body)) + body


def _chunk(seq, payload):
    sb = struct.pack("<I", seq)
    return struct.pack("<III", SYNC, len(payload), zlib.crc32(payload, zlib.crc32(sb))) + sb + \
        payload


def _synthetic():
    """A log with a HEADER, two chunks, a renamed thread, ticks before and after their samples,
    a sample without tick, an impossible tick, negative deltas, counters, an unknown record
    type and an appended field, and END."""
    tps = 2_000_000_000
    hdr = (_v(1) + _v(4242) + bytes([0]) + struct.pack("<QQQQ", tps, 10_000, 5, 1_700_000_000)
           + _v(0) + bytes([0]) + _v(20_000_000) + _v(4) + _v(2048) + _str("wall=20ms")
           + _str("VM") + _str("17") + _str("Main"))
    c0 = (_rec(REC_HEADER, hdr) + _rec(REC_THREAD, _v(1) + _v(77) + _str("busy"))
          + _rec(REC_THREAD, _v(2) + _v(78) + _str("sleeper"))
          + _rec(REC_SAMPLE, _sv(50_000) + _v(1) + _v(1) + _v(1) + bytes([1, 1]) + _v(1))
          + _rec(REC_WALL_TICK, _v(1) + struct.pack("<Q", 49_000) + _v(10) + _v(4) + _v(4)
                 + _v(0))
          + _rec(REC_SAMPLE, _sv(-10) + _v(2) + _v(1) + _v(1) + bytes([1, 6]) + _v(1))
          + _rec(99, b"\x01\x02\x03")
          + _rec(REC_SAMPLE, _sv(5) + _v(1) + _v(1) + _v(3) + bytes([0, 1])))
    c1 = (_rec(REC_ANCHOR, struct.pack("<QQQ", 10_000 + 3 * tps, 5 + 3_000_000_000, 0))
          + _rec(REC_THREAD, _v(3) + _v(77) + _str("busy-renamed"))
          + _rec(REC_SAMPLE, _sv(60_000) + _v(3) + _v(1) + _v(1) + bytes([1, 2]) + _v(2)
                 + b"\x09")
          + _rec(REC_SAMPLE, _sv(1) + _v(2) + _v(1) + _v(1) + bytes([1, 5]) + _v(3))
          + _rec(REC_SAMPLE, _sv(1) + _v(2) + _v(1) + _v(1) + bytes([1, 4]))
          + _rec(REC_WALL_TICK, _v(2) + struct.pack("<Q", 59_000) + _v(3) + _v(2) + _v(1)
                 + _v(1))
          + _rec(REC_WALL_TICK, _v(3) + struct.pack("<Q", 59_500) + _v(1) + _v(2) + _v(2)
                 + _v(0))
          + _rec(REC_WALL_TICK, _v(2) + struct.pack("<Q", 1) + _v(9) + _v(9) + _v(9) + _v(0))
          + _rec(REC_EVENTS, _v(3) + _v(2) + _sv(1 << 50) + _sv(-7) + bytes([0])
                 + _sv(-3) + _sv(2) + bytes([EVENT_STRING | EVENT_DROPPED]) + _v(4)
                 + _v(9) + b"\xc0\x80\xed\xa0\xb4\xed\xb4\x9e!" + _v(6))
          + _rec(REC_COUNTERS, _v(2) + _v(CTR_WALL_SIGNALS) + _v(5) + _v(CTR_SIGNALS) + _v(7))
          + _rec(REC_END, struct.pack("<Q", 70_000)))
    return MAGIC + struct.pack("<HHI", 1, 0, 0) + _chunk(0, c0) + _chunk(1, c1)


def _synthetic_v2():
    """Version 2: the synthetic log's first chunk, then SAMPLE2 records eliding what they can:
    a whole one, one with every field elided, another thread's, and one that names its thread
    and a tick but takes kind, state, stack and context from that thread's previous one."""
    log = _synthetic()
    c0_len = struct.unpack_from("<I", log, 20)[0]
    c0 = log[16:16 + 16 + c0_len]
    s2 = (_rec(REC_SAMPLE2, bytes([S2_THREAD | S2_KIND | S2_STACK | S2_TICK | S2_CONTEXT])
               + _sv(80_000) + _v(2) + bytes([KIND_WALL, 5]) + _v(1) + _sv(3) + _v(7))
          + _rec(REC_SAMPLE2, bytes([0]) + _sv(10))
          + _rec(REC_SAMPLE2, bytes([S2_THREAD | S2_KIND | S2_STACK | S2_WEIGHT]) + _sv(-20)
                 + _v(1) + bytes([KIND_CPU, 1]) + _v(1) + _v(4))
          + _rec(REC_SAMPLE2, bytes([S2_THREAD | S2_TICK]) + _sv(30) + _v(2) + _sv(-1)))
    return MAGIC + struct.pack("<HHI", 2, 0, 0) + c0 + _chunk(1, s2)


def _self_test():
    fails = []

    def check(cond, what):
        print("  %s %s" % ("ok  " if cond else "FAIL", what))
        if not cond:
            fails.append(what)

    # FORMAT.md section 12: it has no HEADER, so parse() refuses it; decode it chunk-wise
    try:
        parse(EXAMPLE)
        check(False, "example: a log without HEADER is refused")
    except FplError as e:
        check("HEADER" in str(e), "example: a log without HEADER is refused (%s)" % e)
    log = Log()
    payload = EXAMPLE[32:]
    check(zlib.crc32(payload, zlib.crc32(EXAMPLE[28:32])) == 0xBD6B3BF0, "example: CRC")
    b = _Body(payload)
    state = chunk_state()
    while b.left():
        typ = b.u8()
        n = b.v()
        _record(log, typ, _Body(payload[b.i:b.i + n]), state)
        b.i += n
    check(log.threads == {1: (4242, "main")}, "example: THREAD 1 = tid 4242 main")
    check(len(log.samples) == 2, "example: 2 samples")
    s0, s1 = log.samples
    check((s0.ticks, s0.kind, s0.state, s0.tick_id, s0.weight) == (1000, KIND_CPU, 1, 0, 1),
          "example: CPU sample at 1000, running, no tick")
    check((s1.ticks, s1.kind, s1.state, s1.tick_id) == (1010, KIND_WALL, 6, 1),
          "example: wall sample at 1010, sleeping, tick 1")
    t = log.ticks.get(1)
    check(t is not None and (t.ticks, t.candidates, t.chosen, t.signaled, t.failed)
          == (1005, 6, 2, 2, 0), "example: WALL_TICK 1 at 1005, 6/2/2/0")
    check(s1.upscaled == 3.0 and s0.upscaled == 1.0, "example: upscaled wall weight 3, cpu 1")

    log = parse(_synthetic())
    check(log.chunks == 2 and log.header["wall_interval_ns"] == 20_000_000
          and log.header["wall_threads"] == 4 and log.header["options"] == "wall=20ms"
          and log.header["command"] == "Main", "synthetic: header fields")
    ws = log.wall_samples()
    check(len(ws) == 5 and len(log.cpu_samples()) == 1, "synthetic: 5 wall + 1 cpu samples")
    check([s.ticks for s in log.samples] == [50_000, 49_990, 49_995, 60_000, 60_001, 60_002],
          "synthetic: delta chain restarts per chunk, negative deltas")
    check([s.thread for s in log.samples] ==
          ["busy", "sleeper", "busy", "busy-renamed", "sleeper", "sleeper"],
          "synthetic: thread names per id")
    check([s.state_name for s in ws] == ["running", "sleeping", "blocked", "parked",
                                         "timed_waiting"], "synthetic: states")
    check([s.upscaled for s in ws] == [2.5, 2.5, 1.5, 1.0, 1.0],
          "synthetic: upscaled (tick after samples, impossible tick, no tick)")
    check(log.tick_repeats == 1 and log.ticks[2].ticks == 59_000,
          "synthetic: a repeated tick id keeps the first definition")
    check(log.counters == {CTR_WALL_SIGNALS: 5, CTR_SIGNALS: 7}, "synthetic: counters")
    check(log.end_ticks == 70_000, "synthetic: END")
    ev = [(e.thread_id, e.ticks, e.n, e.flags, e.dropped, e.s) for e in log.events]
    check(ev == [(3, 1 << 50, -7, 0, 0, None),
                 (3, (1 << 50) - 3, 2, EVENT_STRING | EVENT_DROPPED, 4, "\x00\U0001d11e!")]
          and log.event_drops == [(3, 6)], "synthetic: EVENTS (deltas, drops, modified UTF-8)")
    check(abs(log.seconds(10_000 + 2_000_000_000) - 1.0) < 1e-9,
          "synthetic: seconds() from the last anchor's frequency")
    log = parse(_synthetic_v2())
    got = [(s.ticks, s.thread_id, s.kind, s.state, s.stack_id, s.weight, s.tick_id, s.context_id)
           for s in log.samples[3:]]
    check(got == [(80_000, 2, KIND_WALL, 5, 1, 1, 3, 7), (80_010, 2, KIND_WALL, 5, 1, 1, 0, 7),
                  (79_990, 1, KIND_CPU, 1, 1, 4, 0, 0), (80_020, 2, KIND_WALL, 5, 1, 1, 2, 7)],
          "version 2: SAMPLE2's elided fields from the chunk's chains (%s)" % got)
    # version 4: FORMAT.md 5.22's and 5.23's examples, then a method of no class (0)
    log = Log()
    _record(log, REC_CLASS_NAME, _Body(bytes.fromhex(
        "01116a6176612e7574696c2e486173684d61700c486173684d61702e6a617661")), chunk_state())
    _record(log, REC_METHOD2, _Body(bytes.fromhex(
        "0700010468617368152" "84c6a6176612f6c616e672f4f626a6563743b2949" "0300a605040208" "03")),
        chunk_state())
    _record(log, REC_METHOD2, _Body(_v(8) + bytes([2]) + _v(0) + _str("[marker]") + _str("")
                                     + _v(0)), chunk_state())
    m, k = log.methods.get(7), log.methods.get(8)
    check(m is not None and (m.kind, m.klass, m.name, m.signature, m.source, m.lines)
          == (0, "java.util.HashMap", "hash", "(Ljava/lang/Object;)I", "HashMap.java",
              [(0, 339), (4, 340), (12, 338)]), "version 4: FORMAT.md's METHOD2 example")
    check(k is not None and (k.klass, k.name, k.source) == ("", "[marker]", ""),
          "version 4: METHOD2 of class 0: no class, no source")
    try:
        _record(log, REC_METHOD2, _Body(_v(9) + bytes([0]) + _v(5) + _str("f") + _str("()V")
                                         + _v(0)), chunk_state())
        check(False, "version 4: an undefined class id is refused")
    except FplError as e:
        check("class id 5" in str(e), "version 4: an undefined class id is refused (%s)" % e)
    bad = bytearray(_synthetic())
    bad[40] ^= 1
    try:
        parse(bytes(bad))
        check(False, "synthetic: a flipped bit is detected")
    except FplError as e:
        check("CRC" in str(e), "synthetic: a flipped bit is detected (%s)" % e)
    return fails


if __name__ == "__main__":
    print("wall_fpl: the tests' .fpl reader against FORMAT.md")
    failed = _self_test()
    print("%s wall_fpl" % ("FAIL" if failed else "PASS"))
    sys.exit(1 if failed else 0)
