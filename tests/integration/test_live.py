#!/usr/bin/env python3
"""live: the live-heap view (agent option live, with alloc). LiveRatio's thread live-0 keeps
every byte[1000] it allocates in keep() (128 MiB, to the end of the program) and lets go of
three times as many in drop(); at the JVM's exit the agent forces a collection and logs, for
each tracked allocation sample whose object is still reachable, a LIVE sample.

Asserted, with -agentpath (alloc,live) and attached (`flyprof start -e alloc -- live`):
- >= 95% of the live weight is under keep(), with the leaf byte[];
- the live weight under keep() is within 30% of the bytes kept (about 260 samples at 512 KiB:
  +-6% at one sigma);
- the alloc weight under drop() is about 3x that under keep() (+-0.75), and nothing of drop()
  is live (< 2% of the live weight);
- pprof: inuse_space / inuse_objects are the sample types.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import alloclock_common as alc  # noqa: E402
import test_attach_common as ac  # noqa: E402


def check(t, res, fpl, what):
    kept = float(res["kept_bytes"])
    live = alc.folded(t, fpl, "live")
    total = sum(w for _, w in live)
    keep = sum(w for fr, w in live if any(f.endswith("LiveRatio.keep") for f in fr))
    dropw = sum(w for fr, w in live if any(f.endswith("LiveRatio.drop") for f in fr))
    leaf = sum(w for fr, w in live if fr[-1] == "byte[]")
    t.note("%s: live %d bytes, %d under keep(), %d under drop(); kept %d", what, total, keep,
           dropw, kept)
    t.check(total > 0, "%s: no live samples", what)
    t.check(keep >= 0.95 * total, "%s: only %d of %d live bytes under keep()", what, keep, total)
    t.check(leaf >= 0.95 * total, "%s: only %d of %d live bytes with the leaf byte[]", what,
            leaf, total)
    t.check(dropw <= 0.02 * total, "%s: %d of %d live bytes under drop()", what, dropw, total)
    t.close_to(keep / kept, 1.0, 0.3, "%s: live under keep() / kept bytes" % what)
    alloc = alc.folded(t, fpl, "alloc")
    ak = sum(w for fr, w in alloc if any(f.endswith("LiveRatio.keep") for f in fr))
    ad = sum(w for fr, w in alloc if any(f.endswith("LiveRatio.drop") for f in fr))
    t.check(ak > 0, "%s: no alloc samples under keep()", what)
    t.close_to(ad / ak, 3.0, 0.75, "%s: allocated in drop() / keep()" % what)
    out = fpl[:-4] + ".live.pb.gz"
    r = t.flyprof("convert live pprof", ["convert", fpl, "--kind", "live", "-o", out])
    t.check(r.returncode == 0, "%s: convert --kind live to pprof: %s", what, r.stderr[-300:])
    import gzip
    with gzip.open(out) as f:
        data = f.read()
    t.check(b"inuse_space" in data and b"inuse_objects" in data,
            "%s: the pprof profile lacks inuse_space / inuse_objects", what)


def test(t):
    res, fpl, _ = alc.run_agentpath(t, "agentpath", "LiveRatio", [128], "alloc,live")
    check(t, res, fpl, "agentpath")
    res, fpl, _ = alc.run_attached(t, "attached", "LiveRatio", [128], "alloc",
                                   ready_thread="live-0", extra=["live"])
    check(t, res, fpl, "attached")


if __name__ == "__main__":
    ac.main(test, "live-heap view: what is still reachable, by allocation site")
