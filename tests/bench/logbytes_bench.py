"""Part `logbytes` of the flyprof benchmark (bench.py): how many bytes of log a sample costs,
record type by record type, in two runs: the bundled demo service (CPU and wall clock every
10 ms, its requests traced: trace context on samples, endpoint names) and FixedWork alone at
cpu=10ms (2 threads, 32 extra frames: a stack never seen before in about half the samples,
the worst case for the dictionaries). Each run is read here (collector/format/FORMAT.md:
chunks, then records, each a type byte and a varint length) and printed whole and for the
chunks of its second half, the steady state once the methods are known. Issue 22's targets:
12 bytes a sample for CPU only, 20 with wall and context."""

import os
import struct
import subprocess

NAMES = {1: "HEADER", 2: "ANCHOR", 3: "THREAD", 4: "METHOD", 5: "STACK", 6: "SAMPLE",
         7: "COUNTERS", 8: "HANDLER_HIST", 9: "END", 10: "WALL_TICK", 11: "EVENTS",
         16: "CONTEXT", 17: "ENDPOINT", 18: "SAMPLE2", 19: "ENDPOINT_NAME", 20: "ENDPOINT2",
         21: "STACK2", 22: "CLASS_NAME", 23: "METHOD2"}
SAMPLES = (6, 18)


def _v(b, i):
    x = s = 0
    while True:
        c = b[i]
        i += 1
        x |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return x, i


def chunk_stats(path):
    """[(chunk bytes with its header, samples, {record type: bytes})] of a log, in order."""
    with open(path, "rb") as f:
        data = f.read()
    out, off = [], 16
    while off + 16 <= len(data):
        length = struct.unpack_from("<I", data, off + 4)[0]
        end = min(off + 16 + length, len(data))
        i, by, n = off + 16, {}, 0
        while i < end:
            t = data[i]
            blen, j = _v(data, i + 1)
            j += blen
            by[t] = by.get(t, 0) + (j - i)
            n += t in SAMPLES
            i = j
        out.append((end - off, n, by))
        off = end
    return out


def summarize(chunks):
    """(bytes, samples, {type: bytes}) of chunks."""
    total, n, by = 0, 0, {}
    for b, s, d in chunks:
        total += b
        n += s
        for t, x in d.items():
            by[t] = by.get(t, 0) + x
    return total, n, by


def second_half(chunks):
    """The chunks from the one holding the log's middle sample on."""
    half, seen = sum(s for _, s, _ in chunks) / 2, 0
    for k, (_, s, _) in enumerate(chunks):
        seen += s
        if seen >= half:
            return chunks[k + 1:] or chunks[k:]
    return chunks


def part_logbytes(args, report, log):
    run_dir = os.path.join(args.out, "logbytes")
    os.makedirs(run_dir, exist_ok=True)
    secs = 20 if args.quick else 60
    log("== logbytes: log bytes per sample, by record type (demo and FixedWork, %d s each) =="
        % secs)
    runs = {
        "demo, cpu+wall+context": [args.cli, "record", "-e", "cpu,wall", "--wall", "10ms", "-o",
                                   os.path.join(run_dir, "demo.fpl"), "--", args.java, "-cp",
                                   args.jar, "dev.flyprof.demo.Demo", str(secs)],
        # FixedWork's units: about secs of CPU on each of 2 threads on these machines
        "FixedWork, cpu only": [args.java, "-agentpath:%s=cpu=10ms,file=%s" % (
            args.agent, os.path.join(run_dir, "fixedwork.fpl")), "-cp", args.jar,
            "dev.flyprof.bench.FixedWork", str(1500 * secs), "2", "32"],
    }
    rec = {}
    for name, cmd in runs.items():
        fpl = cmd[cmd.index("-o") + 1] if "-o" in cmd else cmd[1].split("file=")[1]
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           timeout=secs * 20 + 120)
        if p.returncode != 0 or not os.path.exists(fpl):
            log("  ! %s: exit %s: %s" % (name, p.returncode, p.stderr.strip()[-300:]))
            continue
        chunks = chunk_stats(fpl)
        rec[name] = {}
        for part, cs in (("whole", chunks), ("second half", second_half(chunks))):
            total, n, by = summarize(cs)
            if not n:
                continue
            top = sorted(by.items(), key=lambda kv: -kv[1])[:6]
            log("  %-24s %-11s %7d samples %6.1f B/sample: %s" % (
                name, part, n, total / n, ", ".join("%s %.1f" % (NAMES.get(t, str(t)), x / n)
                                                   for t, x in top)))
            rec[name][part] = {"samples": n, "bytes": total,
                               "by_type": {NAMES.get(t, str(t)): x for t, x in by.items()}}
    log("  targets (issue 22): CPU only <= 12 B/sample, with wall and context <= 20, in the")
    log("  steady state (second half: the methods known, the stacks as the workload makes them)")
    log()
    report["logbytes"] = rec
