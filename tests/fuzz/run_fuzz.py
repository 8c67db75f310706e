#!/usr/bin/env python3
"""run_fuzz: runs the fuzz targets for a bounded time, after their regression inputs.

For each target (fuzz_log, fuzz_cli, fuzz_elf, fuzz_jfr):
1. regressions: tests/fuzz/regressions/<target>/*.hex (inputs that once found a bug, kept as
   hex text: no binaries in the repository) are decoded into the build tree and run once
   each; any failure fails the test;
2. seeds, made now: fuzz_log's are the logs `fuzz_seeds` writes (the collector tests' golden
   log, cut and whole, and a log with every record type); fuzz_cli's are argument lists
   (SEEDS_CLI below) over the two logs its scratch directory holds; fuzz_elf's are ELF images:
   the stripped libraries and separate debug files test_symbols reads (tests/symdbg), and this
   process's vDSO; fuzz_jfr's are JFR files `flyprof convert` makes of fuzz_log's seeds (one
   chunk, several chunks, both kinds);
3. fuzzing: the targets share --seconds (fuzz_log 4/9, fuzz_cli 2/9, fuzz_jfr 2/9, fuzz_elf
   1/9), growing a
   corpus kept in the build tree between runs.
A crash, leak, timeout or out-of-memory stops the test; its input is printed as hex with the
line to store it as a regression. Missing fuzzers (no clang with libFuzzer) exit 77: skipped,
or a failure under CI=true.

    python3 tests/fuzz/run_fuzz.py --build BUILD [--seconds 70] [--target fuzz_log]
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "integration"))
import flyprof_test as ft  # noqa: E402

TARGETS = {"fuzz_log": 4, "fuzz_cli": 2, "fuzz_elf": 1, "fuzz_jfr": 2}  # shares of the time
# argument lists for fuzz_cli: every command, the selection options, errors
SEEDS_CLI = [
    ["convert", "a.fpl", "-o", "o.collapsed"],
    ["convert", "a.fpl", "-o", "o.html", "--threads", "--kind", "all"],
    ["convert", "b.fpl", "-o", "o.txt", "--kind", "wall", "--state", "sleeping", "--reverse"],
    ["convert", "a.fpl", "-o", "o.pb.gz", "--include", "Rich", "--exclude", "x"],
    ["convert", "a.fpl", "--format", "html", "-o", "-", "--from", "1ms", "--to", "2s"],
    ["convert", "a.fpl", "-o", "o.folded", "--title", "t", "--from", "12:00:00"],
    ["summary", "a.fpl"],
    ["convert", "a.fpl", "-o", "o.pb.gz", "--endpoint", "GET /a", "--span", "11"],
    ["convert", "a.fpl", "-o", "o.collapsed", "--root-span", "0xa", "--kind", "all"],
    ["summary", "b.fpl"],
    ["diff", "a.fpl", "b.fpl", "-o", "d.html"],
    ["--help"],
    ["help"],
    ["attach", "1", "-d", "3", "-e", "cpu,wall", "-i", "10ms", "-o", "x.fpl"],
    ["start", "1", "-o", "y.html", "--", "engine=itimer", "wallthreads=4"],
    ["stop", "1"],
    ["status", "1"],
    ["dump", "1", "-o", "z.fpl"],
    ["list"],
    ["record", "-e", "cpu", "-i", "5ms", "-o", "r.fpl", "--", "java", "-version"],
    ["nonsense", "-x"],
]


def hex_of(data):
    return "\n".join(data[i:i + 32].hex() for i in range(0, len(data), 32)) + "\n"


def run(cmd, cwd, timeout, env=None):
    print("$ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, timeout=timeout,
                          env=env).returncode


def elf_seeds(build, seeds):
    """Copies fuzz_elf's seed images into seeds; returns how many."""
    n = 0
    symdbg = os.path.join(build, "tests", "symdbg")
    for path in sorted(glob.glob(os.path.join(symdbg, "*.so")) +
                       glob.glob(os.path.join(symdbg, ".debug", "*.debug"))):
        shutil.copy(path, os.path.join(seeds, "%02d-%s" % (n, os.path.basename(path))))
        n += 1
    # the vDSO: an image whose section headers lie past its loaded segment
    try:
        with open("/proc/self/maps") as f:
            vdso = [l.split()[0] for l in f if l.rstrip().endswith("[vdso]")]
        if vdso:
            lo, hi = (int(x, 16) for x in vdso[0].split("-"))
            with open("/proc/self/mem", "rb") as mem:
                mem.seek(lo)
                data = mem.read(hi - lo)
            with open(os.path.join(seeds, "%02d-vdso" % n), "wb") as out:
                out.write(data)
            n += 1
    except OSError as e:
        print("fuzz_elf: no vDSO seed: %s" % e)
    return n


def jfr_seeds(build, work, seeds):
    """Writes JFR seeds: fuzz_seeds' logs converted by the CLI (plain, several chunks, both
    kinds); returns how many."""
    logs = os.path.join(work, "logs")
    os.makedirs(logs)
    if run([os.path.join(build, "tests", "fuzz_seeds"), logs], work, 60) != 0:
        return 0
    cli = os.path.join(build, "bin", "flyprof")
    n = 0
    for log in sorted(os.listdir(logs)):
        for i, opts in enumerate([[], ["--chunk-size", "1k", "--kind", "all"]]):
            out = os.path.join(seeds, "%s-%d.jfr" % (log, i))
            r = subprocess.run([cli, "convert", os.path.join(logs, log), "-o", out] + opts,
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=60)
            n += r.returncode == 0 and os.path.isfile(out)
    return n


def report_crash(target, workdir):
    found = sorted(glob.glob(os.path.join(workdir, "crash-*")) +
                   glob.glob(os.path.join(workdir, "leak-*")) +
                   glob.glob(os.path.join(workdir, "timeout-*")) +
                   glob.glob(os.path.join(workdir, "oom-*")))
    for path in found:
        with open(path, "rb") as f:
            data = f.read()
        name = os.path.basename(path)
        print("\n%s found %s (%d bytes). Keep it as a regression test:" % (target, name,
                                                                          len(data)))
        print("  tests/fuzz/regressions/%s/%s.hex with this content:" % (target, name[:24]))
        print(hex_of(data))
    return found


def main():
    ap = argparse.ArgumentParser(description="run the fuzz targets for a bounded time")
    ap.add_argument("--build", required=True)
    ap.add_argument("--seconds", type=float, default=70)
    ap.add_argument("--target", action="append", help="only these targets")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    targets = args.target or list(TARGETS)
    missing = [t for t in targets if not os.path.isfile(os.path.join(build, "tests", t))]
    if missing:
        ft.skip("fuzz", "no %s (clang with libFuzzer: apt-get install clang "
                "libclang-rt-14-dev; scripts/setup does)" % ", ".join(missing))
    base = os.path.join(build, "tests", "fuzz")
    os.makedirs(base, exist_ok=True)
    share = sum(TARGETS[t] for t in targets)
    failed = []
    for target in targets:
        exe = os.path.join(build, "tests", target)
        work = os.path.join(base, target + ".work")
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        seeds = os.path.join(work, "seeds")
        os.makedirs(seeds)
        corpus = os.path.join(base, target + ".corpus")
        os.makedirs(corpus, exist_ok=True)
        if target == "fuzz_log":
            rc = run([os.path.join(build, "tests", "fuzz_seeds"), seeds], work, 60)
            if rc != 0:
                failed.append("fuzz_seeds exited %d" % rc)
                continue
        elif target == "fuzz_jfr":
            n = jfr_seeds(build, work, seeds)
            if n < 2:
                failed.append("fuzz_jfr: %d seed files (want fuzz_seeds' logs as JFR)" % n)
                continue
        elif target == "fuzz_elf":
            n = elf_seeds(build, seeds)
            if n < 2:
                failed.append("fuzz_elf: %d seed images (want the tests/symdbg libraries)" % n)
                continue
        else:
            for i, argv in enumerate(SEEDS_CLI):
                with open(os.path.join(seeds, "args-%02d" % i), "wb") as f:
                    f.write(b"\0".join(a.encode() for a in argv))
        opts = ["-timeout=20", "-rss_limit_mb=2048", "-artifact_prefix=" + work + "/",
                "-print_final_stats=1"]
        env = dict(os.environ)
        if target == "fuzz_cli":
            # its sandbox lets nothing exec, the sanitizers' symbolizer included
            opts += ["-close_fd_mask=3", "-print_funcs=0"]
            env["FLYPROF_FUZZ_SCRATCH"] = os.path.join(work, "scratch")
            for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
                env[k] = "symbolize=0" + (":" + env[k] if env.get(k) else "")
        # 1. regressions
        reg_src = sorted(glob.glob(os.path.join(HERE, "regressions", target, "*.hex")))
        if reg_src:
            reg = os.path.join(work, "regressions")
            os.makedirs(reg)
            for src in reg_src:
                with open(src) as f:
                    data = bytes.fromhex("".join(f.read().split()))
                with open(os.path.join(reg, os.path.basename(src)[:-4]), "wb") as f:
                    f.write(data)
            files = sorted(os.path.join(reg, x) for x in os.listdir(reg))
            rc = run([exe] + opts + files, work, 300, env)
            print("%s: %d regression inputs, exit %d" % (target, len(files), rc), flush=True)
            if rc != 0:
                report_crash(target, work)
                failed.append("%s fails on a regression input" % target)
                continue
        # 2 and 3. the seeds, then fuzzing for its share of the time
        seconds = max(1, int(args.seconds * TARGETS[target] / share))
        rc = run([exe] + opts + ["-max_total_time=%d" % seconds, corpus, seeds], work,
                 seconds + 300, env)
        print("%s: fuzzed %d s, exit %d" % (target, seconds, rc), flush=True)
        if rc != 0:
            if not report_crash(target, work):
                print("%s: exited %d without an artifact" % (target, rc))
            failed.append("%s found a bug" % target)
    for f in failed:
        print("FAIL fuzz: " + f)
    if failed:
        sys.exit(1)
    print("PASS fuzz")


if __name__ == "__main__":
    main()
