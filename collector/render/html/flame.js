/* flyprof flame graph: decodes the embedded tree (format in collector/out_html.h), lays it out
 * in preorder typed arrays and draws the visible part on a canvas. Nothing here touches the
 * network. Test hooks: the URL hash takes search=RE, view=callers|callees|timeline,
 * range=FROM,TO (seconds after the start: the flame graph of that time range), span=ID (the
 * timeline and flame graph of one request: the samples whose span or root span is ID) and dump
 * (write the drawn frames into #fp-dump, the timeline's marks into #fp-tl-dump); #fp-matched,
 * #fp-stats and #fp-tl carry results in data-* attributes. */
(function () {
  "use strict";

  var T_START = performance.now();
  var $ = function (id) { return document.getElementById(id); };

  var ROW = 18;          /* px per frame row */
  var MIN_W = 1;         /* frames narrower than this (css px) are not drawn, nor their callees */
  var FONT = "12px system-ui, -apple-system, \"Segoe UI\", Roboto, \"Noto Sans\", " +
             "\"DejaVu Sans\", \"Liberation Sans\", Arial, sans-serif";
  /* the digit alphabets of out_html.h */
  var DIGIT_END = "#$%()*+,-./0123456789:;=?@ABCDEFGHIJKLMNOPQR";
  var DIGIT_MORE = "STUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~!";
  var BASE = 44;

  /* enum render_type: label, hue range, saturation, lightness range */
  var TYPES = [
    { label: "Java", tip: "Java method", h0: 88, h1: 138, s: 52, l0: 52, l1: 70 },
    { label: "Inlined", tip: "Java method, inlined", h0: 168, h1: 192, s: 52, l0: 58, l1: 68 },
    { label: "Native method", tip: "Java method declared native",
      h0: 18, h1: 30, s: 34, l0: 56, l1: 66 },
    { label: "C / JVM", tip: "native function (JVM internals, libraries)",
      h0: 42, h1: 54, s: 78, l0: 56, l1: 66 },
    { label: "Failure marker", tip: "marker: the stack could not be walked",
      h0: 350, h1: 358, s: 52, l0: 76, l1: 80 },
    { label: "Thread", tip: "thread", h0: 208, h1: 222, s: 32, l0: 76, l1: 82 },
    { label: "Thread state", tip: "thread state", h0: 262, h1: 276, s: 42, l0: 78, l1: 84 },
    { label: "Kind", tip: "sample kind", h0: 0, h1: 0, s: 0, l0: 80, l1: 84 },
    { label: "Interpreted", tip: "Java method, run by the interpreter",
      h0: 96, h1: 128, s: 38, l0: 74, l1: 82 },
    { label: "JIT compiled", tip: "Java method, compiled (C2)",
      h0: 100, h1: 136, s: 62, l0: 44, l1: 56 },
    { label: "C1 compiled", tip: "Java method, compiled by C1",
      h0: 66, h1: 80, s: 62, l0: 58, l1: 66 },
    { label: "JVM stub", tip: "JVM stub or code blob (dispatch, intrinsic, interpreter)",
      h0: 292, h1: 312, s: 44, l0: 70, l1: 78 },
    { label: "Kernel", tip: "kernel code", h0: 196, h1: 206, s: 20, l0: 56, l1: 64 },
    { label: "Small frames", tip: "frames under the page's minimum share, merged",
      h0: 0, h1: 0, s: 0, l0: 88, l1: 90 },
    { label: "Class", tip: "the class allocated (alloc) or the lock's class (lock)",
      h0: 226, h1: 240, s: 58, l0: 66, l1: 74 }
  ];
  /* the types of Java methods, whose names shorten to Class.method */
  function isJava(t) { return t <= 2 || (t >= 8 && t <= 10); }
  var MATCH_FILL = "#d44be3";

  /* The one palette of thread states and sample kinds: the flame graph's state leaves
   * ("[parked]") and kind roots ("[cpu]", "[wall]"), the timeline's marks and the legend all
   * take a state's color from here, so it has one color on the page. Orange is CPU, and no
   * frame type is orange. */
  var STATE_STYLE = {
    cpu: ["#e8590c", "CPU sample: on a CPU"],
    running: ["#2f9e44", "running: RUNNABLE in Java code"],
    blocked: ["#e03131", "blocked entering a monitor"],
    waiting: ["#ae3ec9", "waiting: Object.wait, join"],
    timed_waiting: ["#fab005", "waiting with a timeout"],
    parked: ["#1c7ed6", "parked: LockSupport.park (locks, queues, pools)"],
    sleeping: ["#7048e8", "sleeping: Thread.sleep"],
    native: ["#8d6e63", "in native code (I/O, JNI)"],
    jvm_idle: ["#dee2e6", "JVM idle: a JVM service thread waiting for work"],
    wall: ["#adb5bd", "wall-clock sample, thread state unknown"]
  };
  var STATE_ORDER = ["cpu", "running", "blocked", "waiting", "timed_waiting", "parked",
                     "sleeping", "native", "jvm_idle", "wall"];
  /* hiccup mode's lanes above the timeline's threads */
  var LANE_STYLE = {
    gc: ["#343a40", "GC pauses", "GC pause: every Java thread stopped (its rows shaded)",
         "rgba(52, 58, 64, 0.10)"],
    java: ["#c2255c", "java probe stalls", "stall of the java probe (sees safepoints and GC)"],
    os: ["#0b7285", "os probe stalls", "stall of the os probe (the OS and hypervisor alone)"]
  };
  /* The state or kind a frame stands for ("parked" for "[parked]", "cpu" for the "[cpu]"
   * root), or null for other frames. */
  function stateOf(name, type) {
    if (type !== 6 && type !== 7) return null;
    var st = name.charAt(0) === "[" ? name.slice(1, -1) : null;
    return st && STATE_STYLE[st] ? st : null;
  }
  /* "#rrggbb" mixed with white (f 0: the color, 1: white), as "rgb(...)" */
  function tint(hex, f) {
    var n = parseInt(hex.slice(1), 16), c = [n >> 16, (n >> 8) & 255, n & 255];
    return "rgb(" + c.map(function (v) { return Math.round(v + (255 - v) * f); }).join(",") + ")";
  }
  /* whether text on "#rrggbb" reads better white */
  function darkFill(hex) {
    var n = parseInt(hex.slice(1), 16);
    return 0.299 * (n >> 16) + 0.587 * ((n >> 8) & 255) + 0.114 * (n & 255) < 150;
  }

  var D;
  try {
    D = JSON.parse($("fp-data").textContent);
  } catch (e) {
    $("fp-title").textContent = "flyprof: the embedded profile is damaged (" + e.message + ")";
    return;
  }
  var T_PARSED = performance.now();

  /* ---- decoding ------------------------------------------------------------------------ */

  var DIGIT = new Int8Array(128).fill(-1);
  for (var di = 0; di < BASE; di++) {
    DIGIT[DIGIT_END.charCodeAt(di)] = di;
    DIGIT[DIGIT_MORE.charCodeAt(di)] = BASE + di;
  }

  function reader(s) {
    var pos = 0;
    return function () {
      var v = 0, mul = 1, d;
      for (;;) {
        d = DIGIT[s.charCodeAt(pos++)];
        if (d === undefined || d < 0) throw new Error("bad digit at " + (pos - 1));
        if (d < BASE) return v + d * mul;
        v += (d - BASE) * mul;
        mul *= BASE;
      }
    };
  }

  /* A tree in preorder: per node its frame table entry, weight, self weight, x offset (in
   * weight units from the root's left edge), depth and the end of its subtree. */
  function makeTree(names, types, n) {
    return {
      names: names, types: types, n: n,
      NAME: new Uint32Array(n), TOT: new Float64Array(n), SELF: new Float64Array(n),
      X: new Float64Array(n), DEP: new Uint32Array(n), END: new Uint32Array(n),
      PAR: new Int32Array(n),
      BASE: null, LOST: null, maxDepth: 0, cache: {}
    };
  }

  function typesOf(str, count) {
    var t = new Uint8Array(count);
    for (var i = 0; i < count; i++) t[i] = (str.charCodeAt(i) - 48) & 15;
    return t;
  }

  function decodeTree(names, typeStr, n, str, baseStr, lostStr) {
    var T = makeTree(names, typesOf(typeStr, names.length), n);
    var NAME = T.NAME, TOT = T.TOT, SELF = T.SELF, X = T.X, DEP = T.DEP, END = T.END, PAR = T.PAR;
    var num = reader(str);
    var sn = [], sk = [], sr = [], maxDepth = 0;
    for (var i = 0; i < n; i++) {
      var h = num(), kids = Math.floor(h / 2), e = num(), tot, sp = sn.length;
      if (sp) {
        var top = sp - 1, p = sn[top];
        tot = h % 2 ? sr[top] : num();
        X[i] = X[p] + (TOT[p] - sr[top]);
        PAR[i] = p;
        sr[top] -= tot;
        sk[top]--;
      } else {
        if (i) throw new Error("a second root at node " + i);
        tot = num();
        PAR[i] = -1;
      }
      if (e >= names.length) throw new Error("bad frame index at node " + i);
      NAME[i] = e;
      TOT[i] = tot;
      DEP[i] = sp;
      if (sp > maxDepth) maxDepth = sp;
      if (kids) {
        sn.push(i); sk.push(kids); sr.push(tot);
      } else {
        SELF[i] = tot;
        END[i] = i + 1;
        while (sn.length && sk[sn.length - 1] === 0) {
          var q = sn.pop();
          sk.pop();
          SELF[q] = sr.pop();
          END[q] = i + 1;
        }
      }
    }
    if (sn.length) throw new Error("the tree ends early");
    T.maxDepth = maxDepth;
    if (baseStr != null) {
      var bn = reader(baseStr);
      T.BASE = new Float64Array(n);
      for (var b = 0; b < n; b++) T.BASE[b] = bn();
    }
    if (lostStr != null) {
      var ln = reader(lostStr);
      T.LOST = new Float64Array(n);
      for (var l = 0; l < n; l++) T.LOST[l] = ln();
    }
    return T;
  }

  /* A diff tree holds frames only in the base, drawn as wide as the share they lost: LOST is
   * that width within each node, so a node's own (new) weight is TOT - LOST; TOT lays out. */
  function cur(Tr, i) {
    return Tr.LOST ? Tr.TOT[i] - Tr.LOST[i] : Tr.TOT[i];
  }
  function onlyInBase(Tr, i) {
    return !!Tr.LOST && i !== 0 && Tr.TOT[i] > 0 && Tr.LOST[i] >= Tr.TOT[i];
  }

  /* Ranks of the frame table entries by name (then type): children are sorted by it. */
  function ranks(names, types) {
    var n = names.length, byRank = new Uint32Array(n), rank = new Uint32Array(n), order = [];
    for (var e = 0; e < n; e++) order.push(e);
    order.sort(function (a, b) {
      return names[a] < names[b] ? -1 : names[a] > names[b] ? 1 : types[a] - types[b];
    });
    for (var r = 0; r < n; r++) {
      byRank[r] = order[r];
      rank[order[r]] = r;
    }
    return { rank: rank, byRank: byRank };
  }

  /* The opposite orientation of S, computed here: every sample's path reversed, except the
   * synthetic roots (sample kind, thread), which stay on top. The reversed paths of the nodes
   * with self weight are sorted (by frame name, level by level), which lays the new tree out
   * in preorder directly: each path adds the nodes below its common prefix with the previous
   * one. Work grows with the sum of those paths' depths; no hashing, so little cache missing. */
  function invertTree(S) {
    var R = ranks(S.names, S.types), rank = R.rank, byRank = R.byRank, NE = S.names.length;
    var pinned = new Uint8Array(NE), i, k, d;
    for (var e = 0; e < NE; e++) pinned[rank[e]] = S.types[e] === 5 || S.types[e] === 7 ? 1 : 0;

    var npaths = 0, len = 0;
    for (i = 1; i < S.n; i++) {
      if (S.SELF[i] > 0) {
        npaths++;
        len += S.DEP[i];
      }
    }
    var flat = new Uint32Array(len), start = new Uint32Array(npaths + 1);
    var wt = new Float64Array(npaths), path = new Uint32Array(S.maxDepth + 1), pos = 0;
    for (i = 1, k = 0; i < S.n; i++) {
      d = S.DEP[i];
      path[d] = rank[S.NAME[i]];
      if (!(S.SELF[i] > 0)) continue;
      start[k] = pos;
      wt[k++] = S.SELF[i];
      var p = 1;
      while (p <= d && pinned[path[p]]) flat[pos++] = path[p++];
      for (var j = d; j >= p; j--) flat[pos++] = path[j];
    }
    start[npaths] = pos;

    var order = new Uint32Array(npaths);
    for (k = 0; k < npaths; k++) order[k] = k;
    order.sort(function (a, b) {
      var x = start[a], y = start[b], xe = start[a + 1], ye = start[b + 1];
      for (; x < xe && y < ye; x++, y++) if (flat[x] !== flat[y]) return flat[x] - flat[y];
      return (xe - start[a]) - (ye - start[b]);
    });

    /* common prefix of each path with the previous one; the node count */
    var lcp = new Uint32Array(npaths), n = 1, maxDepth = 0;
    for (k = 0; k < npaths; k++) {
      var q = order[k], L = start[q + 1] - start[q], l = 0;
      if (k) {
        var r = order[k - 1], a = start[r], ae = start[r + 1], b = start[q];
        while (a < ae && l < L && flat[a] === flat[b]) { a++; b++; l++; }
      }
      lcp[k] = l;
      n += L - l;
      if (L > maxDepth) maxDepth = L;
    }

    var T = makeTree(S.names, S.types, n), open = new Uint32Array(maxDepth + 1), depth = 0, cnt = 1;
    T.NAME[0] = S.NAME[0];
    T.TOT[0] = S.TOT[0];
    T.PAR[0] = -1;
    for (k = 0; k < npaths; k++) {
      var pq = order[k], base = start[pq], PL = start[pq + 1] - base, pl = lcp[k], w = wt[pq], lv;
      for (lv = depth; lv > pl; lv--) T.END[open[lv]] = cnt;
      for (lv = 1; lv <= pl; lv++) T.TOT[open[lv]] += w;
      for (lv = pl + 1; lv <= PL; lv++) {
        var v = cnt++;
        T.NAME[v] = byRank[flat[base + lv - 1]];
        T.DEP[v] = lv;
        T.PAR[v] = open[lv - 1];
        T.TOT[v] = w;
        open[lv] = v;
      }
      depth = PL;
    }
    for (; depth > 0; depth--) T.END[open[depth]] = cnt;
    T.END[0] = cnt;

    /* offsets and self weights, parents before children */
    var cursor = new Float64Array(n);
    T.SELF.set(T.TOT);
    for (i = 1; i < n; i++) {
      var pp = T.PAR[i];
      T.X[i] = cursor[pp];
      cursor[pp] += T.TOT[i];
      cursor[i] = T.X[i];
      T.SELF[pp] -= T.TOT[i];
    }
    T.maxDepth = maxDepth;
    return T;
  }

  /* ---- state ----------------------------------------------------------------------------- */

  var diff = !!D.diff;
  var views = {};            /* "callees" / "callers" -> tree, built on first use */
  var home = D.reverse ? "callers" : "callees";
  var viewName = home;
  var T = null;              /* the tree on screen */
  var Z = 0;                 /* zoomed node */
  var HOVER = -1;
  var RE = null, MATCH = null;
  var zoomMaxDepth = 0;
  var drawnCount = 0, dumpWanted = false;
  var FULL = null;           /* the home tree of the whole profile */
  var RANGE = null;          /* [first bin, end bin) of the timeline's selected range, or null */
  var SPAN = null;           /* the request shown alone (spanSelect), or null */
  var timing = {};

  var canvas = $("fp-canvas"), ctx = canvas.getContext("2d"), scroller = $("fp-scroll");
  var spacer = $("fp-spacer"), tip = $("fp-tip"), search = $("fp-search");
  var cssW = 0, cssH = 0, dpr = 1;

  function tree(name) {
    if (views[name]) return views[name];
    var t0 = performance.now();
    if (name === home) {
      if (!FULL) {
        FULL = decodeTree(D.names, D.types, D.n, D.tree, diff ? D.base : null,
                          diff && D.lost != null ? D.lost : null);
      }
      views[name] = SPAN ? spanTree(FULL, SPAN, RANGE) :
                    RANGE ? rangeTree(FULL, RANGE[0], RANGE[1]) : FULL;
    } else if (diff) {
      views[name] = decodeTree(D.names2, D.types2, D.n2, D.tree2, D.base2,
                               D.lost2 != null ? D.lost2 : null);
    } else {
      views[name] = invertTree(tree(home));
    }
    timing[name + "_ms"] = performance.now() - t0;
    return views[name];
  }

  /* ---- formatting ------------------------------------------------------------------------ */

  /* 1234567 -> "1,234,567" (without Intl, whose first use costs tens of milliseconds) */
  function fmtInt(v) {
    var s = String(Math.round(v)), neg = s.charAt(0) === "-", d = neg ? s.slice(1) : s, out = "";
    while (d.length > 3) {
      out = "," + d.slice(-3) + out;
      d = d.slice(0, -3);
    }
    return (neg ? "-" : "") + d + out;
  }
  function pct(f) {
    var p = f * 100, a = Math.abs(p);
    if (p === 0) return "0%";
    return (a !== 0 && a < 0.01 ? p.toFixed(4) : a < 1 ? p.toFixed(3) : p.toFixed(2)) + "%";
  }
  function pts(f) {
    var p = f * 100;
    return (p > 0 ? "+" : p < 0 ? "\u2212" : "\u00b1") + Math.abs(p).toFixed(2) + " pts";
  }
  function dur(w) {
    if (!D.interval_ns) return "";
    var s = w * D.interval_ns / 1e9;
    if (s >= 36000) return (s / 3600).toFixed(1) + " h";
    if (s >= 100) return s.toFixed(0) + " s";
    return s >= 1 ? s.toFixed(2) + " s" : (s * 1000).toFixed(1) + " ms";
  }
  function bytesText(b) {
    if (b >= 1073741824) return (b / 1073741824).toFixed(2) + " GiB";
    if (b >= 1048576) return (b / 1048576).toFixed(1) + " MiB";
    return b >= 1024 ? (b / 1024).toFixed(1) + " KiB" : fmtInt(b) + " B";
  }
  function weightText(w) {
    /* an alloc weight is bytes allocated (estimated) */
    if (D.kind === "alloc") return bytesText(w) + " allocated";
    if (D.kind === "live") return bytesText(w) + " live";
    var t = dur(w);
    /* both kinds on one page weigh time (ns: CPU time and thread time), which is all to say */
    if (D.unit_ns) return t;
    /* a weight counts sampling intervals (upscaled for wall), not samples: say so, and the
     * time it stands for when the interval is known */
    return "weight " + fmtInt(w) + (t ? " \u00b7 " + t : "");
  }

  /* ---- colors ---------------------------------------------------------------------------- */

  function hash(s) {
    var h = 2166136261;
    for (var i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
    h ^= h >>> 13;
    h = Math.imul(h, 0x5bd1e995);
    return ((h ^ (h >>> 15)) >>> 0) / 4294967296;
  }
  function ownerOf(name) {
    var paren = name.indexOf("("), end = paren >= 0 ? paren : name.length;
    var dot = name.lastIndexOf(".", end);
    return dot > 0 ? name.slice(0, dot) : name;
  }
  /* "Class.method" of "pkg.Class.method"; a hidden class's address is left out
   * ("Main$$Lambda$25.0x0000000800c03000.run" -> "Main$$Lambda$25.run") */
  function shortName(name) {
    var owner = ownerOf(name), method = name.slice(owner.length), dot = owner.lastIndexOf(".");
    if (dot > 0 && /^\.0x[0-9a-fA-F]+$/.test(owner.slice(dot))) {
      owner = owner.slice(0, dot);
      dot = owner.lastIndexOf(".");
    }
    return dot > 0 ? owner.slice(dot + 1) + method : owner + method;
  }
  function hsl(h, s, l) { return "hsl(" + h.toFixed(1) + "," + s + "%," + l.toFixed(1) + "%)"; }

  /* Per frame table entry: its color, its color dimmed (while a search runs), its short name. */
  function paint(Tr) {
    if (Tr.cache.fill) return;
    var n = Tr.names.length, fill = new Array(n), dim = new Array(n), short = new Array(n);
    var ink = new Array(n);
    for (var e = 0; e < n; e++) {
      var name = Tr.names[e], ty = TYPES[Tr.types[e]] || TYPES[0], st = stateOf(name, Tr.types[e]);
      ink[e] = "#1f2328";
      short[e] = name;
      if (st) {
        fill[e] = STATE_STYLE[st][0];
        dim[e] = tint(fill[e], 0.6);
        if (darkFill(fill[e])) ink[e] = "#fff";
        continue;
      }
      /* the class picks a band of hues, the method a place in it: neighbours differ */
      var hn = hash(name), hu = ty.h0 + (ty.h1 - ty.h0) * (0.45 * hash(ownerOf(name)) + 0.55 * hn);
      var li = ty.l0 + (ty.l1 - ty.l0) * hash(name + "\u0001");
      fill[e] = hsl(hu, ty.s, li);
      dim[e] = hsl(hu, Math.round(ty.s * 0.35), Math.min(94, li + (100 - li) * 0.55));
      short[e] = isJava(Tr.types[e]) ? shortName(name) : name;
    }
    Tr.cache.fill = fill; Tr.cache.dim = dim; Tr.cache.short = short; Tr.cache.ink = ink;
    Tr.cache.wFull = new Float32Array(n).fill(-1);
    Tr.cache.wShort = new Float32Array(n).fill(-1);
  }

  var RAMP = 20, rampUp = [], rampDown = [];
  for (var ri = 0; ri <= RAMP; ri++) {
    var f = ri / RAMP;
    rampUp.push(ri ? hsl(4, 80, 95 - 43 * f) : "hsl(0,0%,93%)");
    rampDown.push(ri ? hsl(213, 80, 95 - 43 * f) : "hsl(0,0%,93%)");
  }
  function deltaOf(Tr, i) {
    var b = D.base_total ? Tr.BASE[i] / D.base_total : 0;
    return (cur(Tr, 0) ? cur(Tr, i) / cur(Tr, 0) : 0) - b;
  }
  /* Sampling noise. A frame's share of each profile is a binomial estimate: x1 of the n1
   * samples of the new profile, x2 of the n2 of the base (its share of the weight times the
   * samples). Its change is beyond noise when |z| > zLimit, z = (p1 - p2) / sqrt(p (1 - p)
   * (1/n1 + 1/n2)) with p the pooled share (the two-proportion test). A page compares many
   * frames at once, so the limit is Bonferroni's for a 5% chance that noise alone colors any
   * of them -- 3.5 for 100 frames, 3.9 for 1,000 -- and never under 3. */
  var DIFF_FAMILY_ERROR = 0.05, DIFF_Z_MIN = 3;
  function zOf(Tr, i) {
    var n1 = D.samples || 0, n2 = D.base_samples || 0;
    if (!(n1 > 0 && n2 > 0) || i === 0) return 0;
    var p1 = cur(Tr, 0) ? cur(Tr, i) / cur(Tr, 0) : 0;
    var p2 = D.base_total ? Tr.BASE[i] / D.base_total : 0;
    var p = (p1 * n1 + p2 * n2) / (n1 + n2), se = Math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2));
    return se > 0 ? (p1 - p2) / se : 0;
  }
  /* 1 - the standard normal distribution at z (Abramowitz and Stegun 7.1.26, error < 1e-7) */
  function normalTail(z) {
    var x = z / Math.SQRT2, t = 1 / (1 + 0.3275911 * x);
    var e = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 +
            t * 1.061405429)))) * Math.exp(-x * x);
    return e / 2;
  }
  /* The |z| a frame's change must pass to be colored, and the frames compared. */
  function diffLimit(Tr) {
    if (Tr.cache.zlimit) return Tr.cache.zlimit;
    var m = 0;
    for (var i = 1; i < Tr.n; i++) if (cur(Tr, i) > 0 || Tr.BASE[i] > 0) m++;
    var want = DIFF_FAMILY_ERROR / (2 * Math.max(1, m)), lo = 0, hi = 40;
    for (var k = 0; k < 60; k++) {
      var mid = (lo + hi) / 2;
      if (normalTail(mid) > want) lo = mid; else hi = mid;
    }
    Tr.cache.zlimit = { z: Math.max(DIFF_Z_MIN, hi), frames: m };
    return Tr.cache.zlimit;
  }
  function significant(Tr, i) { return Math.abs(zOf(Tr, i)) > diffLimit(Tr).z; }
  /* The change that gets the darkest color: the largest change beyond noise, but at least 1
   * point. */
  function diffScale(Tr) {
    if (Tr.cache.scale) return Tr.cache.scale;
    var m = 0;
    for (var i = 1; i < Tr.n; i++) {
      var d = Math.abs(deltaOf(Tr, i));
      if (d > m && significant(Tr, i)) m = d;
    }
    Tr.cache.scale = Math.max(m, 0.01);
    return Tr.cache.scale;
  }
  /* a change within noise stays grey (level 0) */
  function diffLevel(Tr, i) {
    if (!significant(Tr, i)) return 0;
    var l = Math.round(Math.sqrt(Math.min(1, Math.abs(deltaOf(Tr, i)) / diffScale(Tr))) * RAMP);
    return Math.max(1, l);
  }
  function diffFill(Tr, i) {
    return deltaOf(Tr, i) >= 0 ? rampUp[diffLevel(Tr, i)] : rampDown[diffLevel(Tr, i)];
  }
  /* What the legend says of the colors of a diff. */
  function diffNote(box) {
    var lim = diffLimit(T), k = document.createElement("span");
    k.id = "fp-diff-note";
    k.className = "fp-key";
    k.setAttribute("data-z-limit", lim.z.toFixed(3));
    k.setAttribute("data-frames", String(lim.frames));
    k.textContent = "colored where a change is beyond sampling noise: |z| > " + lim.z.toFixed(2) +
      "; grey within it";
    k.title = "Each frame's two shares are tested as binomial proportions, z = (p_new - " +
      "p_base) / sqrt(p (1 - p) (1/n_new + 1/n_base)), p the pooled share, n the samples (" +
      fmtInt(D.samples) + " new, " + fmtInt(D.base_samples) + " base). The limit gives noise " +
      "alone a 5% chance of coloring any of the " + fmtInt(lim.frames) + " frames compared " +
      "(Bonferroni), and is at least " + DIFF_Z_MIN + ".";
    box.appendChild(k);
  }

  /* ---- search ---------------------------------------------------------------------------- */

  /* Marks the matching entries and sums the weight of matching frames that have no matching
   * ancestor, so that a sample counts once however many of its frames match. */
  function applySearch() {
    var src = search.value, box = $("fp-matched"), t0 = performance.now();
    RE = null; MATCH = null;
    search.classList.remove("fp-bad");
    box.classList.remove("fp-on");
    box.textContent = "";
    box.removeAttribute("data-share");
    box.removeAttribute("data-weight");
    box.removeAttribute("data-base-share");
    if (src) {
      try {
        RE = new RegExp(src, /[A-Z]/.test(src) ? "" : "i");
      } catch (err) {
        search.classList.add("fp-bad");
        box.textContent = "bad regex";
        draw();
        return;
      }
      var ne = T.names.length;
      MATCH = new Uint8Array(ne);
      for (var e = 0; e < ne; e++) MATCH[e] = RE.test(T.names[e]) ? 1 : 0;
      MATCH[T.NAME[0]] = 0; /* the root is no frame (its entry is its own: type kind) */
      var w = 0, bw = 0, zw = 0, i = 0, zEnd = T.END[Z], anc = false;
      for (var a = parentOf(T, Z); a >= 0; a = parentOf(T, a)) if (MATCH[T.NAME[a]]) anc = true;
      while (i < T.n) {
        if (MATCH[T.NAME[i]]) {
          w += cur(T, i);
          if (T.BASE) bw += T.BASE[i];
          if (i >= Z && i < zEnd) zw += cur(T, i);
          i = T.END[i];
        } else {
          i++;
        }
      }
      if (anc) zw = cur(T, Z);
      var share = cur(T, 0) ? w / cur(T, 0) : 0;
      box.classList.add("fp-on");
      box.setAttribute("data-share", share.toFixed(6));
      box.setAttribute("data-weight", String(w));
      var text = "Matched " + pct(share) + " \u00b7 " + weightText(w);
      if (diff) {
        var bs = D.base_total ? bw / D.base_total : 0;
        box.setAttribute("data-base-share", bs.toFixed(6));
        text += " (base " + pct(bs) + ")";
      }
      if (Z !== 0) text += " \u00b7 " + pct(cur(T, Z) ? zw / cur(T, Z) : 0) + " of zoom";
      box.textContent = text;
      box.title = weightText(w) + " of " + weightText(cur(T, 0)) + " has a frame matching /" +
                  src + "/";
      $("fp-stats").setAttribute("data-ms-search", (performance.now() - t0).toFixed(1));
    }
    draw();
  }

  /* ---- layout and drawing ---------------------------------------------------------------- */

  function parentOf(Tr, i) { return Tr.PAR[i]; }

  function ancestors(Tr, i) {
    var out = [];
    for (var p = parentOf(Tr, i); p >= 0; p = parentOf(Tr, p)) out.push(p);
    return out.reverse();
  }

  function resize() {
    dpr = window.devicePixelRatio || 1;
    cssW = scroller.clientWidth;
    cssH = scroller.clientHeight;
    canvas.style.height = cssH + "px";
    canvas.width = Math.max(1, Math.round(cssW * dpr));
    canvas.height = Math.max(1, Math.round(cssH * dpr));
    spacer.style.height = Math.max(0, (zoomMaxDepth + 2) * ROW + 8 - cssH) + "px";
  }

  function label(e, w) {
    var c = T.cache, avail = w - 8;
    if (avail < 16) return null;
    if (c.wFull[e] < 0) c.wFull[e] = ctx.measureText(T.names[e]).width;
    if (c.wFull[e] <= avail) return T.names[e];
    var s = c.short[e];
    if (c.wShort[e] < 0) c.wShort[e] = ctx.measureText(s).width;
    var sw = c.wShort[e];
    if (sw <= avail) return s;
    /* then the method alone ("Split123.unitA" -> "unitA"), cut if need be */
    var dot = s.lastIndexOf(".", s.indexOf("(") >= 0 ? s.indexOf("(") : s.length);
    if (dot > 0 && isJava(T.types[e])) {
      var m = s.slice(dot + 1), mw = sw * m.length / s.length;
      if (mw <= avail) return m;
      s = m;
      sw = mw;
    }
    var keep = Math.floor(s.length * avail / sw) - 1;
    return keep >= 3 ? s.slice(0, keep) + "\u2026" : null;
  }

  function frameFill(i, dimmed) {
    var e = T.NAME[i];
    if (MATCH) return MATCH[e] ? MATCH_FILL : T.cache.dim[e];
    if (diff && i !== 0) return diffFill(T, i);
    return dimmed ? T.cache.dim[e] : T.cache.fill[e];
  }

  function drawFrame(i, x, y, w, dimmed, dump) {
    ctx.fillStyle = frameFill(i, dimmed);
    var gap = w >= 3 ? 1 : 0;
    ctx.fillRect(x, y, w - gap, ROW - 1);
    var text = i === 0 ? "all \u00b7 " + weightText(cur(T, 0)) : label(T.NAME[i], w);
    if (i === 0 && ctx.measureText(text).width > w - 8) text = "all";
    if (text) {
      var light = MATCH ? MATCH[T.NAME[i]] : diff && i !== 0 && diffLevel(T, i) > 13;
      ctx.fillStyle = light ? "#fff" : dimmed ? "#57606a" : MATCH || diff ? "#1f2328" :
                      T.cache.ink[T.NAME[i]];
      ctx.fillText(text, x + 4, y + ROW / 2);
    }
    drawnCount++;
    if (dump) {
      var line = [T.names[T.NAME[i]], cur(T, i), onlyInBase(T, i) ? 0 : T.SELF[i], T.DEP[i],
                  MATCH && MATCH[T.NAME[i]] ? 1 : 0, x.toFixed(1), w.toFixed(1)];
      if (diff) {
        line.push(T.BASE[i], deltaOf(T, i).toFixed(6), zOf(T, i).toFixed(3),
                  i !== 0 && diffLevel(T, i) > 0 ? 1 : 0);
      }
      dump.push(line.join("\t"));
    }
  }

  function draw() {
    if (!T) return;
    var t0 = performance.now();
    var dump = dumpWanted ? [] : null;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, cssW, cssH);
    ctx.font = FONT;
    ctx.textBaseline = "middle";
    drawnCount = 0;
    if (!(T.TOT[0] > 0)) return;
    var top = scroller.scrollTop, bottom = top + cssH;
    var x0 = T.X[Z], scale = cssW / T.TOT[Z];
    var anc = ancestors(T, Z);
    for (var a = 0; a < anc.length; a++) {
      var ya = T.DEP[anc[a]] * ROW;
      if (ya + ROW >= top && ya < bottom) drawFrame(anc[a], 0, ya - top, cssW, true, dump);
    }
    var i = Z, end = T.END[Z];
    while (i < end) {
      var w = T.TOT[i] * scale;
      var y = T.DEP[i] * ROW;
      if (w < MIN_W || y >= bottom) {
        i = T.END[i];
        continue;
      }
      if (y + ROW > top) drawFrame(i, (T.X[i] - x0) * scale, y - top, w, false, dump);
      i++;
    }
    timing.draw_ms = performance.now() - t0;
    var st = $("fp-stats");
    st.setAttribute("data-drawn", String(drawnCount));
    st.setAttribute("data-nodes", String(T.n));
    st.setAttribute("data-view", viewName);
    st.setAttribute("data-zoom", T.names[T.NAME[Z]]);
    st.setAttribute("data-draw-ms", timing.draw_ms.toFixed(1));
    st.textContent = fmtInt(T.n) + " frames \u00b7 " + fmtInt(drawnCount) + " drawn";
    if (dump) $("fp-dump").textContent = dump.join("\n");
  }

  var pending = false;
  function redraw() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; draw(); });
  }

  /* The node under (x, y) in canvas css px, or -1. */
  function hit(x, y) {
    if (!T || !(T.TOT[0] > 0)) return -1;
    var row = Math.floor((y + scroller.scrollTop) / ROW);
    if (row < T.DEP[Z]) {
      var anc = ancestors(T, Z);
      return row < anc.length ? anc[row] : -1;
    }
    var scale = cssW / T.TOT[Z], at = T.X[Z] + x / scale, v = Z;
    if (at < T.X[Z] || at >= T.X[Z] + T.TOT[Z]) return -1;
    while (T.DEP[v] < row) {
      var c = v + 1, found = -1;
      while (c < T.END[v]) {
        if (at >= T.X[c] && at < T.X[c] + T.TOT[c]) { found = c; break; }
        c = T.END[c];
      }
      if (found < 0) return -1;
      v = found;
    }
    return T.TOT[v] * scale >= MIN_W ? v : -1;
  }

  /* ---- interaction ----------------------------------------------------------------------- */

  function subtreeDepth(Tr, z) {
    var m = Tr.DEP[z];
    for (var i = z; i < Tr.END[z]; i++) if (Tr.DEP[i] > m) m = Tr.DEP[i];
    return m;
  }

  function zoomTo(v) {
    Z = v;
    zoomMaxDepth = subtreeDepth(T, Z);
    resize();
    $("fp-reset").disabled = Z === 0;
    crumbs();
    if (RE) applySearch(); else draw();
  }

  function crumbs() {
    var box = document.createElement("span");
    $("fp-crumbs").textContent = "";
    $("fp-crumbs").appendChild(box);
    if (Z === 0) {
      box.textContent = "Click a frame to zoom \u00b7 Esc resets \u00b7 Ctrl+F searches";
      return;
    }
    var path = ancestors(T, Z).concat([Z]), from = Math.max(0, path.length - 6);
    if (from > 0) path = [path[0]].concat(path.slice(from));
    path.forEach(function (v, k) {
      var sep = k === 1 && from > 0 ? " \u203a \u2026 \u203a " : " \u203a ";
      if (k) box.appendChild(document.createTextNode(sep));
      var a = document.createElement("a");
      a.textContent = v === 0 ? "all" : T.cache.short[T.NAME[v]];
      a.title = v === 0 ? "all" : T.names[T.NAME[v]];
      a.addEventListener("click", function () { zoomTo(v); });
      box.appendChild(a);
    });
  }

  function row(tbody, k, v, cls) {
    var tr = document.createElement("tr"), a = document.createElement("td");
    var b = document.createElement("td");
    a.textContent = k;
    b.textContent = v;
    if (cls) b.className = cls;
    tr.appendChild(a); tr.appendChild(b);
    tbody.appendChild(tr);
  }

  function showTip(v, cx, cy) {
    tip.textContent = "";
    var e = T.NAME[v], ty = TYPES[T.types[e]] || TYPES[0], all = cur(T, 0);
    var gone = onlyInBase(T, v), self = gone ? 0 : T.SELF[v];
    var name = document.createElement("div");
    name.className = "fp-name";
    name.textContent = v === 0 ? "all" : T.names[e];
    tip.appendChild(name);
    var kind = document.createElement("div");
    kind.className = "fp-kind";
    kind.textContent = v === 0 ? "every selected sample" :
      gone ? ty.tip + ", only in the base: drawn as wide as the share it lost" : ty.tip;
    tip.appendChild(kind);
    var tb = document.createElement("table"), body = document.createElement("tbody");
    tb.appendChild(body);
    row(body, diff ? "Total (new)" : "Total",
        weightText(cur(T, v)) + " \u00b7 " + pct(cur(T, v) / all) + (gone ? " (not in new)" : ""));
    row(body, diff ? "Self (new)" : "Self", weightText(self) + " \u00b7 " + pct(self / all));
    if (Z !== 0 && v !== Z && T.DEP[v] > T.DEP[Z] && cur(T, Z))
      row(body, "Of zoomed", pct(cur(T, v) / cur(T, Z)));
    if (diff) {
      var bs = D.base_total ? T.BASE[v] / D.base_total : 0, d = deltaOf(T, v);
      row(body, "Total (base)", weightText(T.BASE[v]) + " \u00b7 " + pct(bs) +
          (T.BASE[v] ? "" : " (not in base)"));
      var z = zOf(T, v), sig = v !== 0 && significant(T, v);
      row(body, "Change", pts(d) + " (z " + z.toFixed(1) + (sig ? ", beyond" : ", within") +
          " sampling noise)", sig ? (d > 0 ? "fp-up" : d < 0 ? "fp-down" : "") : "");
    }
    tip.appendChild(tb);
    var hint = document.createElement("div");
    hint.className = "fp-hint";
    hint.textContent = v === Z ? (Z ? "Click the frames above to zoom out" : "") : "Click to zoom";
    if (hint.textContent) tip.appendChild(hint);
    tip.hidden = false;
    var r = tip.getBoundingClientRect(), x = cx + 14, y = cy + 16;
    if (x + r.width > window.innerWidth - 4) x = Math.max(4, cx - r.width - 14);
    if (y + r.height > window.innerHeight - 4) y = Math.max(4, cy - r.height - 12);
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  }

  /* The hovered frame's outline: a box over the canvas, so hovering never redraws it. */
  function outline(v) {
    var box = $("fp-hover");
    if (v < 0) {
      box.hidden = true;
      return;
    }
    var r = canvas.getBoundingClientRect(), anc = v < Z || T.DEP[v] < T.DEP[Z];
    var scale = cssW / T.TOT[Z], x = anc ? 0 : (T.X[v] - T.X[Z]) * scale;
    var w = anc ? cssW : T.TOT[v] * scale, y = T.DEP[v] * ROW - scroller.scrollTop;
    box.style.left = (r.left + x) + "px";
    box.style.top = (r.top + y) + "px";
    box.style.width = Math.max(1, w - (w >= 3 ? 1 : 0)) + "px";
    box.style.height = (ROW - 1) + "px";
    box.hidden = false;
  }

  canvas.addEventListener("mousemove", function (ev) {
    var r = canvas.getBoundingClientRect(), v = hit(ev.clientX - r.left, ev.clientY - r.top);
    if (v !== HOVER) {
      HOVER = v;
      outline(v);
      $("fp-info").textContent = v < 0 ? summary() :
        (v === 0 ? "all" : T.names[T.NAME[v]]) + " \u2014 " + pct(cur(T, v) / cur(T, 0)) +
        " total, " +
        pct((onlyInBase(T, v) ? 0 : T.SELF[v]) / cur(T, 0)) + " self" +
        (onlyInBase(T, v) ? " (only in the base)" : "");
    }
    if (v < 0) tip.hidden = true;
    else showTip(v, ev.clientX, ev.clientY);
  });
  canvas.addEventListener("mouseleave", function () {
    HOVER = -1;
    outline(-1);
    tip.hidden = true;
    $("fp-info").textContent = summary();
  });
  canvas.addEventListener("click", function (ev) {
    var r = canvas.getBoundingClientRect(), v = hit(ev.clientX - r.left, ev.clientY - r.top);
    if (v >= 0) {
      tip.hidden = true;
      HOVER = -1;
      outline(-1);
      zoomTo(v === Z ? (Z ? ancestors(T, Z).pop() : 0) : v);
    }
  });
  scroller.addEventListener("scroll", function () {
    tip.hidden = true;
    HOVER = -1;
    outline(-1);
    redraw();
  });
  window.addEventListener("resize", function () { resize(); draw(); });

  var searchTimer = 0;
  search.addEventListener("input", function () {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(function () { applySearch(); saveHash(); }, T.n > 200000 ? 200 : 60);
  });
  document.addEventListener("keydown", function (ev) {
    if ((ev.ctrlKey || ev.metaKey) && (ev.key === "f" || ev.key === "F")) {
      ev.preventDefault();
      search.focus();
      search.select();
    } else if (ev.key === "Escape") {
      if (document.activeElement === search && search.value) {
        search.value = "";
        applySearch();
        saveHash();
        search.blur();
      } else if (Z !== 0) {
        zoomTo(0);
      } else if (search.value) {
        search.value = "";
        applySearch();
        saveHash();
      }
    } else if (ev.key === "/" && document.activeElement !== search) {
      ev.preventDefault();
      search.focus();
    }
  });
  $("fp-reset").addEventListener("click", function () { zoomTo(0); });
  $("fp-view-callees").addEventListener("click", function () { setView("callees"); saveHash(); });
  $("fp-view-callers").addEventListener("click", function () { setView("callers"); saveHash(); });

  function setView(name) {
    if (name !== "callers") name = "callees";
    viewName = name;
    T = tree(name);
    paint(T);
    $("fp-view-callees").classList.toggle("fp-sel", name === "callees");
    $("fp-view-callers").classList.toggle("fp-sel", name === "callers");
    HOVER = -1;
    outline(-1);
    legend();
    scroller.scrollTop = 0;
    zoomTo(0);
  }

  function saveHash() {
    var q = [];
    if (search.value) q.push("search=" + encodeURIComponent(search.value));
    if (tlOpen) q.push("view=timeline");
    if (viewName !== home) q.push((tlOpen ? "flame=" : "view=") + viewName);
    if (RANGE) q.push("range=" + tlSec(tlBinNs(RANGE[0])) + "," + tlSec(tlBinNs(RANGE[1])));
    if (SPAN) q.push("span=" + encodeURIComponent(SPAN.id));
    if (dumpWanted) q.push("dump");
    try {
      history.replaceState(null, "",
                           q.length ? "#" + q.join("&") : location.pathname + location.search);
    } catch (err) { /* some file: URLs refuse; the hash is a convenience */ }
  }

  /* The page's one legend: the frame types the flame graph shows, the thread states and
   * sample kinds it or the open timeline shows (STATE_STYLE: the same colors in both), the
   * timeline's lanes; in a diff, the color ramp. */
  function legend() {
    var box = $("fp-legend");
    box.textContent = "";
    function group(text) {
      var g = document.createElement("span");
      g.className = "fp-legend-group";
      g.textContent = text;
      box.appendChild(g);
    }
    function key(color, text, title, id) {
      var k = document.createElement("span"), s = document.createElement("span");
      k.className = "fp-key";
      s.className = "fp-swatch";
      s.style.background = color;
      k.appendChild(s);
      k.appendChild(document.createTextNode(text));
      if (title) k.title = title;
      if (id) k.setAttribute("data-key", id);
      box.appendChild(k);
    }
    if (diff) {
      var sc = diffScale(T), k = document.createElement("span");
      var ramp = document.createElement("span");
      k.className = "fp-key";
      ramp.className = "fp-ramp";
      ramp.style.background = "linear-gradient(90deg," + rampDown[RAMP] + "," + rampDown[0] +
                              "," + rampUp[RAMP] + ")";
      k.appendChild(document.createTextNode("shrank " + pts(-sc) + " "));
      k.appendChild(ramp);
      k.appendChild(document.createTextNode(" " + pts(sc) + " grew"));
      k.title = "Each frame's change in share of the total weight, new minus base, where it " +
        "is beyond sampling noise";
      box.appendChild(k);
      diffNote(box);
      return;
    }
    if (!(T.TOT[0] > 0)) return;
    var seen = new Uint8Array(TYPES.length), states = {}, i, t;
    for (i = 1; i < T.n; i++) {
      if (!(T.TOT[i] > 0)) continue; /* a range's or a request's tree keeps empty nodes */
      var e = T.NAME[i], st = stateOf(T.names[e], T.types[e]);
      if (st) states[st] = 1;
      else if (T.types[e] !== 6 && T.types[e] !== 7) seen[T.types[e]] = 1;
    }
    var lanes = [];
    if (tlOpen) {
      var Dd = tlDecode();
      tlRows().forEach(function (row) {
        for (var c = 0; c < TL.cats.length; c++) if (row.sums[c] > 0) states[TL.cats[c]] = 1;
      });
      lanes = Dd.lanes;
    }
    group("Frames");
    for (t = 0; t < TYPES.length; t++) {
      if (!seen[t]) continue;
      var ty = TYPES[t];
      key(hsl((ty.h0 + ty.h1) / 2, ty.s, (ty.l0 + ty.l1) / 2), ty.label, ty.tip, "type:" + t);
    }
    key(MATCH_FILL, "Search match", "frames matching the search", "match");
    if (STATE_ORDER.some(function (st) { return states[st]; })) group("States");
    STATE_ORDER.forEach(function (st) {
      if (states[st]) key(STATE_STYLE[st][0], st, STATE_STYLE[st][1], "state:" + st);
    });
    if (lanes.length) group("Lanes");
    lanes.forEach(function (ln) { key(ln.color, ln.name, ln.tip, "lane:" + ln.id); });
  }

  function summary() {
    if (SPAN) {
      var sw = cur(tree(home), 0);
      return spanText() + (RANGE ? " \u00b7 range " + tlRangeText() : "") + " \u00b7 " +
        weightText(sw);
    }
    if (RANGE) {
      var w = cur(tree(home), 0);
      return "range " + tlRangeText() + " \u00b7 " + weightText(w) +
        (D.total ? " \u00b7 " + pct(w / D.total) + " of the whole" : "");
    }
    var s = D.kind === "all" ? "cpu and wall" : D.kind;
    s += " \u00b7 " + fmtInt(D.samples) + " samples";
    if (D.interval_ns && !D.unit_ns && D.kind !== "lock") s += " \u00b7 interval " + (D.interval_ns / 1e6) + " ms";
    if (D.kind === "alloc") s += " \u00b7 " + bytesText(D.total) + " allocated (estimated)";
    else if (D.kind === "live") s += " \u00b7 " + bytesText(D.total) + " still reachable (estimated)";
    else if (!D.unit_ns && D.total !== D.samples) s += " \u00b7 weight " + fmtInt(D.total);
    var t = D.kind === "alloc" || D.kind === "live" ? "" : dur(D.total);
    if (t) {
      s += " \u00b7 " + t + (D.kind === "cpu" ? " of CPU" : D.kind === "wall" ? " of thread time" :
                             D.kind === "lock" ? " waited for locks" : " of CPU and thread time");
    }
    if (diff) s += " \u00b7 base " + weightText(D.base_total);
    if (D.merged_frames) {
      /* the node budget: say what the page does not show one by one */
      s += " \u00b7 " + fmtInt(D.merged_frames) + " frames under " +
           +(D.min_share * 100).toPrecision(2) + "% of the total merged into " +
           fmtInt(D.merged_nodes) + " [small frames] nodes";
      if (D.max_nodes) s += " (budget " + fmtInt(D.max_nodes) + " nodes)";
    }
    return s;
  }

  /* ---- timeline ------------------------------------------------------------------------- */

  /* The data (collector/render/out_html_timeline.h): thread rows of (bin, category, weight)
   * marks, and per bin the self weights of tree nodes, from which the flame graph of a range
   * of bins is rebuilt (rangeTree). Drawn on its own canvas above the flame graph. */
  var TL = D.tl && !diff ? D.tl : null;
  var tlOpen = false, TLD = null, tlV0 = 0, tlV1 = 0, tlDrag = null;
  /* rows are at least TL_RH px tall (the box scrolls past 38% of the window rather than
   * squash them); a sampled bin's mark is at least TL_MARK_MIN of a row tall and 2 px wide */
  var TL_RH = 18, TL_AXIS = 18, TL_MARK_MIN = 0.6;
  function catColor(c) { var st = STATE_STYLE[TL.cats[c]]; return st ? st[0] : "#868e96"; }

  /* a number stream of the digit encoding that knows where it ends */
  function numbers(s) {
    var pos = 0;
    return {
      more: function () { return pos < s.length; },
      next: function () {
        var v = 0, mul = 1, d;
        for (;;) {
          d = DIGIT[s.charCodeAt(pos++)];
          if (d === undefined || d < 0) throw new Error("bad timeline digit at " + (pos - 1));
          if (d < BASE) return v + d * mul;
          v += (d - BASE) * mul;
          mul *= BASE;
        }
      }
    };
  }

  function tlDecode() {
    if (TLD) return TLD;
    var rows = [], r, k;
    for (r = 0; r < TL.rows.length; r++) {
      var num = numbers(TL.rows[r][1]), B = [], C = [], W = [], bin = 0;
      var sums = new Float64Array(TL.cats.length), max = 0, binW = 0, last = -1;
      while (num.more()) {
        bin += num.next();
        var c = num.next(), w = num.next();
        B.push(bin); C.push(c); W.push(w);
        sums[c] += w;
        binW = bin === last ? binW + w : w;
        last = bin;
        if (binW > max) max = binW;
      }
      rows.push({ r: r, name: TL.rows[r][0], B: B, C: C, W: W, sums: sums, max: max });
    }
    var sn = numbers(TL.stk), start = new Uint32Array(TL.nbins + 1), P = [], SW = [];
    for (var b = 0; b < TL.nbins; b++) {
      start[b] = P.length;
      var m = sn.next(), at = 0;
      for (k = 0; k < m; k++) {
        at += sn.next();
        P.push(at);
        SW.push(sn.next());
      }
    }
    start[TL.nbins] = P.length;
    /* hiccup mode's GC pauses and each probe's stalls: lanes above the threads on the same
     * axis, named and colored apart (LANE_STYLE) */
    var lanes = [];
    function lane(id, spans, over) {
      var st = LANE_STYLE[id];
      lanes.push({ id: id, name: st[1], tip: st[2], spans: spans, over: over, color: st[0],
                   band: st[3] || null });
    }
    if (TL.gc && TL.gc.length) lane("gc", TL.gc, TL.gc_over);
    var stalls = TL.stalls || [];
    ["java", "os"].forEach(function (id, probe) {
      var mine = stalls.filter(function (sp) { return (sp[2] || 0) === probe; });
      if (mine.length) lane(id, mine, probe === 0 ? TL.stalls_over : 0);
    });
    TLD = { rows: rows, lanes: lanes, start: start, P: new Uint32Array(P),
            W: new Float64Array(SW) };
    return TLD;
  }

  /* The home tree S with the self weights fill(SELF) puts; same nodes, same order. */
  function selfTree(S, fill) {
    var n = S.n, R = makeTree(S.names, S.types, n), i;
    R.NAME = S.NAME; R.DEP = S.DEP; R.END = S.END; R.PAR = S.PAR;
    var SELF = R.SELF, TOT = R.TOT, X = R.X;
    fill(SELF, n);
    TOT.set(SELF);
    for (i = n - 1; i > 0; i--) TOT[S.PAR[i]] += TOT[i];
    var cursor = new Float64Array(n), md = 0;
    for (i = 1; i < n; i++) {
      var p = S.PAR[i];
      X[i] = cursor[p];
      cursor[p] += TOT[i];
      cursor[i] = X[i];
      if (TOT[i] > 0 && S.DEP[i] > md) md = S.DEP[i];
    }
    R.maxDepth = md;
    return R;
  }

  /* The home tree S with the self weights of bins [a, b) only. */
  function rangeTree(S, a, b) {
    var Dd = tlDecode();
    return selfTree(S, function (SELF, n) {
      for (var k = Dd.start[a]; k < Dd.start[b]; k++) {
        if (Dd.P[k] < n) SELF[Dd.P[k]] += Dd.W[k];
      }
    });
  }

  /* The home tree S with the self weights of request sel's samples (in bins rg, if given). */
  function spanTree(S, sel, rg) {
    var Q = spDecode(), a = rg ? rg[0] : 0, b = rg ? rg[1] : Infinity;
    return selfTree(S, function (SELF, n) {
      sel.groups.forEach(function (g) {
        for (var k = Q.first[g]; k < Q.first[g + 1]; k++) {
          if (Q.B[k] >= a && Q.B[k] < b && Q.P[k] < n) SELF[Q.P[k]] += Q.W[k];
        }
      });
    });
  }

  /* ---- requests: the samples of each trace context (out_html_spans.h) ---- */
  var SP = TL && TL.sp ? TL.sp : null, SPD = null;

  function spDecode() {
    if (SPD) return SPD;
    var num = numbers(SP.m), n = SP.ids.length, first = new Uint32Array(n + 1);
    var B = [], R = [], C = [], P = [], W = [];
    for (var g = 0; g < n; g++) {
      first[g] = B.length;
      var m = num.next(), bin = 0;
      for (var k = 0; k < m; k++) {
        bin += num.next();
        B.push(bin); R.push(num.next()); C.push(num.next()); P.push(num.next());
        W.push(num.next());
      }
    }
    first[n] = B.length;
    SPD = { first: first, B: new Uint32Array(B), R: new Uint32Array(R), C: new Uint8Array(C),
            P: new Uint32Array(P), W: new Float64Array(W) };
    return SPD;
  }

  /* The request of id: the contexts whose span or root span is id, their samples as timeline
   * rows (only the threads that worked for it) and where they start and end. */
  function spanSelect(id) {
    var sel = { id: id, groups: [], rows: [], total: 0, a: 0, b: 0, endpoint: null, root: null };
    if (!SP) return sel;
    var Q = spDecode(), recs = [], g, k;
    for (g = 0; g < SP.ids.length; g++) {
      if (SP.ids[g][0] !== id && SP.ids[g][1] !== id) continue;
      sel.groups.push(g);
      if (sel.root === null) { sel.root = SP.ids[g][1]; sel.endpoint = SP.ids[g][2]; }
      for (k = Q.first[g]; k < Q.first[g + 1]; k++) recs.push(k);
    }
    recs.sort(function (x, y) {
      return Q.R[x] - Q.R[y] || Q.B[x] - Q.B[y] || Q.C[x] - Q.C[y];
    });
    var row = null, a = Infinity, b = 0;
    recs.forEach(function (k2) {
      var r = Q.R[k2], bin = Q.B[k2], c = Q.C[k2], w = Q.W[k2];
      if (!row || row.r !== r) {
        row = { r: r, name: TL.rows[r] ? TL.rows[r][0] : "?", B: [], C: [], W: [],
                sums: new Float64Array(TL.cats.length), max: 0, binW: 0 };
        sel.rows.push(row);
      }
      var n = row.B.length;
      if (n && row.B[n - 1] === bin && row.C[n - 1] === c) {
        row.W[n - 1] += w;
      } else {
        if (!(n && row.B[n - 1] === bin)) row.binW = 0;
        row.B.push(bin); row.C.push(c); row.W.push(w);
      }
      row.binW += w;
      if (row.binW > row.max) row.max = row.binW;
      row.sums[c] += w;
      sel.total += w;
      if (bin < a) a = bin;
      if (bin + 1 > b) b = bin + 1;
    });
    sel.a = sel.rows.length ? a : 0;
    sel.b = sel.rows.length ? b : 0;
    return sel;
  }

  /* The requests sampled in row r's bin: [[context, weight], ...], heaviest first. */
  var SPAT = null;
  function spAt(r, bin) {
    var Q = spDecode(), g, k, key;
    if (!SPAT) {
      SPAT = new Map();
      for (g = 0; g < SP.ids.length; g++) {
        for (k = Q.first[g]; k < Q.first[g + 1]; k++) {
          key = Q.R[k] * (TL.nbins + 1) + Q.B[k];
          var at = SPAT.get(key);
          if (!at) SPAT.set(key, at = []);
          if (at.length && at[at.length - 1][0] === g) at[at.length - 1][1] += Q.W[k];
          else at.push([g, Q.W[k]]);
        }
      }
      SPAT.forEach(function (v) {
        v.sort(function (x, y) { return y[1] - x[1] || x[0] - y[0]; });
      });
    }
    return SPAT.get(r * (TL.nbins + 1) + bin) || [];
  }

  function spanText() {
    if (!SPAN.groups.length) return "no samples of span " + SPAN.id;
    var s = "request " + (SPAN.endpoint ? SPAN.endpoint + " " : "") + "root " + SPAN.root;
    if (SPAN.id !== SPAN.root) s += " \u00b7 span " + SPAN.id;
    return s + " \u00b7 " + SPAN.rows.length + (SPAN.rows.length === 1 ? " thread" : " threads");
  }

  function tlBinNs(bin) { return TL.t0_ns + bin * TL.bin_ns; }
  /* the thread rows shown: every thread's, or the request's only */
  function tlRows() { return SPAN ? SPAN.rows : tlDecode().rows; }
  function tlSec(ns) { return +(ns / 1e9).toFixed(6); }
  function tlTime(ns) {
    var s = ns / 1e9, a = Math.abs(s);
    if (a >= 100) return s.toFixed(0) + " s";
    if (a >= 1) return s.toFixed(a >= 10 ? 1 : 2) + " s";
    return (s * 1000).toFixed(a >= 0.01 ? 0 : 1) + " ms";
  }
  function tlRangeText() {
    return RANGE ? tlTime(tlBinNs(RANGE[0])) + " \u2013 " + tlTime(tlBinNs(RANGE[1])) : "";
  }

  function tlNote() {
    var notes = [], all = D.total || 1;
    notes.push("Bins of " + tlTime(TL.bin_ns) + ": marks and ranges snap to them.");
    if (TL.moved) {
      notes.push("Each bin keeps at most " + fmtInt(TL.cap) + " stacks: " +
                 weightText(TL.moved) + " (" + pct(TL.moved / all) + ") of the lighter ones " +
                 "shows under a caller frame in range views.");
    }
    if (TL.over) {
      notes.push(weightText(TL.over) + " (" + pct(TL.over / all) + ") came in more " +
                 "distinct stacks than the converter keeps per bin: its stacks are not known by " +
                 "time, so in range views it is the self weight of \"all\".");
    }
    if (TL.hidden) {
      notes.push(weightText(TL.hidden) + " with unknown stacks is left out of the " +
                 "timeline: the include/exclude filters cannot be applied to it.");
    }
    if (TL.rows_merged) {
      notes.push(fmtInt(TL.rows_merged) + " threads with the least weight share the last row.");
    }
    if (SP && SP.let_go) {
      notes.push("The request view keeps the " + fmtInt(SP.ids.length) + " heaviest requests " +
                 "(spans), each with all its samples; " + fmtInt(SP.let_go) + " lighter ones " +
                 "were let go when the converter's table filled.");
    }
    $("fp-tl-note").textContent = notes.join(" ");
    $("fp-tl-note").setAttribute("data-moved", String(TL.moved));
    $("fp-tl-note").setAttribute("data-over", String(TL.over));
  }

  function tlLabels() {
    var box = $("fp-tl-labels"), Dd = tlDecode();
    box.textContent = "";
    Dd.lanes.forEach(function (ln) {
      var d = document.createElement("div"), ms = 0, sw = document.createElement("span");
      ln.spans.forEach(function (sp) { ms += (sp[1] - sp[0]) / 1e6; });
      sw.className = "fp-swatch";
      sw.style.background = ln.color;
      d.appendChild(sw);
      d.appendChild(document.createTextNode(ln.name));
      d.style.height = d.style.lineHeight = TL_RH + "px";
      d.className = "fp-tl-lane";
      d.setAttribute("data-lane", ln.name);
      d.setAttribute("data-count", String(ln.spans.length));
      d.title = ln.name + ": " + fmtInt(ln.spans.length) + ", " + ms.toFixed(1) + " ms in all" +
        (ln.over ? " (" + fmtInt(ln.over) + " more not kept)" : "");
      box.appendChild(d);
    });
    tlRows().forEach(function (row) {
      var d = document.createElement("div"), parts = [], best = -1, bw = 0, tot = 0;
      for (var c = 0; c < TL.cats.length; c++) {
        if (!row.sums[c]) continue;
        parts.push(TL.cats[c] + ":" + row.sums[c]);
        tot += row.sums[c];
        if (row.sums[c] > bw) { bw = row.sums[c]; best = c; }
      }
      d.textContent = row.name;
      d.style.height = d.style.lineHeight = TL_RH + "px";
      d.className = "fp-tl-row";
      d.setAttribute("data-thread", row.name);
      d.setAttribute("data-weights", parts.join(","));
      if (best >= 0) d.setAttribute("data-main", TL.cats[best]);
      d.title = row.name + "\n" + parts.map(function (p) {
        var kv = p.split(":");
        return kv[0] + ": " + weightText(+kv[1]) + " (" + pct(+kv[1] / tot) + ")";
      }).join("\n");
      box.appendChild(d);
    });
  }

  var tlCanvas = $("fp-tl-canvas"), tlCtx = tlCanvas.getContext("2d"), tlW = 0, tlH = 0;

  function tlResize() {
    var Dd = tlDecode();
    tlW = $("fp-tl-plot").clientWidth;
    tlH = TL_AXIS + (Dd.lanes.length + tlRows().length) * TL_RH + 4;
    tlCanvas.style.height = tlH + "px";
    tlCanvas.width = Math.max(1, Math.round(tlW * dpr));
    tlCanvas.height = Math.max(1, Math.round(tlH * dpr));
  }

  function tlX(ns) { return (ns - tlV0) * tlW / (tlV1 - tlV0); }
  function tlAt(x) { return tlV0 + x * (tlV1 - tlV0) / tlW; }

  function tlAxis(ctx2) {
    var span = tlV1 - tlV0, want = span / Math.max(1, tlW / 110), step = 1;
    while (step * 10 <= want) step *= 10;
    if (step * 5 <= want) step *= 5; else if (step * 2 <= want) step *= 2;
    ctx2.fillStyle = "#5b636e";
    ctx2.strokeStyle = "#e6e9ed";
    ctx2.textBaseline = "middle";
    for (var t = Math.ceil(tlV0 / step) * step; t <= tlV1; t += step) {
      var x = Math.round(tlX(t)) + 0.5;
      ctx2.beginPath();
      ctx2.moveTo(x, TL_AXIS - 4);
      ctx2.lineTo(x, tlH);
      ctx2.stroke();
      ctx2.fillText(tlTime(t), x + 3, TL_AXIS / 2);
    }
  }

  function tlDraw() {
    if (!tlOpen) return;
    var t0 = performance.now();
    /* the layout can settle after the timeline opened (a scrollbar, the legend wrapping) */
    if ($("fp-tl-plot").clientWidth !== tlW) tlResize();
    var Dd = tlDecode(), c2 = tlCtx, dump = dumpWanted ? [] : null, marks = 0;
    var shown = tlRows();
    c2.setTransform(dpr, 0, 0, dpr, 0, 0);
    c2.clearRect(0, 0, tlW, tlH);
    c2.font = "11px " + FONT.split(" ").slice(1).join(" ");
    tlAxis(c2);
    var bw = TL.bin_ns * tlW / (tlV1 - tlV0), top = TL_AXIS + Dd.lanes.length * TL_RH, spans = 0;
    Dd.lanes.forEach(function (ln, li) {
      var ly = TL_AXIS + li * TL_RH;
      ln.spans.forEach(function (sp) {
        var xa = tlX(sp[0]), xb = tlX(sp[1]);
        if (xb < 0 || xa > tlW) return;
        var wd = Math.max(1, xb - xa);
        c2.fillStyle = ln.color;
        c2.fillRect(xa, ly + 3, wd, TL_RH - 6);
        if (ln.band) {
          /* a GC pause stops every Java thread: shade their rows too */
          c2.fillStyle = ln.band;
          c2.fillRect(xa, top, wd, tlH - top);
        }
        spans++;
        if (dump) dump.push([ln.name, sp[0], sp[1]].join("\t"));
      });
    });
    for (var r = 0; r < shown.length; r++) {
      var row = shown[r], y = top + r * TL_RH, n = row.B.length, k = 0;
      while (k < n) {
        var bin = row.B[k], e = k, tot = 0;
        while (e < n && row.B[e] === bin) tot += row.W[e++];
        var x = tlX(tlBinNs(bin));
        if (x + bw >= 0 && x <= tlW) {
          /* a column per bin, as tall as its weight against the row's heaviest bin (at
           * least TL_MARK_MIN), cut into the categories' shares */
          var h = (TL_RH - 4) * Math.max(TL_MARK_MIN, Math.sqrt(tot / row.max));
          var yy = y + TL_RH - 2, w = Math.max(2, bw - (bw >= 4 ? 1 : 0));
          for (var q = k; q < e; q++) {
            var hh = h * row.W[q] / tot;
            c2.fillStyle = catColor(row.C[q]);
            c2.fillRect(x, yy - hh, w, hh);
            yy -= hh;
            marks++;
            if (dump) {
              dump.push([row.name, bin, TL.cats[row.C[q]], row.W[q], catColor(row.C[q])]
                .join("\t"));
            }
          }
        }
        k = e;
      }
    }
    /* the selected range: the rest is veiled */
    var sel = tlDrag && tlDrag.mode === "select" ? [tlDrag.a, tlDrag.b].sort(function (u, v) {
      return u - v; }) : RANGE ? [tlBinNs(RANGE[0]), tlBinNs(RANGE[1])] : null;
    if (sel) {
      var xa = Math.max(0, tlX(sel[0])), xb = Math.min(tlW, tlX(sel[1]));
      c2.fillStyle = "rgba(246, 248, 250, 0.72)";
      c2.fillRect(0, TL_AXIS, Math.max(0, xa), tlH - TL_AXIS);
      c2.fillRect(xb, TL_AXIS, Math.max(0, tlW - xb), tlH - TL_AXIS);
      c2.strokeStyle = "#0969da";
      c2.strokeRect(xa + 0.5, TL_AXIS + 0.5, Math.max(1, xb - xa - 1), tlH - TL_AXIS - 1);
    }
    var box = $("fp-tl");
    box.setAttribute("data-marks", String(marks));
    box.setAttribute("data-spans", String(spans));
    box.setAttribute("data-ms-draw", (performance.now() - t0).toFixed(1));
    box.setAttribute("data-view-from-ns", String(Math.round(tlV0)));
    box.setAttribute("data-view-to-ns", String(Math.round(tlV1)));
    if (dump) $("fp-tl-dump").textContent = dump.join("\n");
  }

  function tlFull() {
    var a = TL.nbins, b = 0, Dd = tlDecode();
    Dd.rows.forEach(function (row) {
      if (row.B.length) {
        a = Math.min(a, row.B[0]);
        b = Math.max(b, row.B[row.B.length - 1] + 1);
      }
    });
    if (b <= a) { a = 0; b = Math.max(1, TL.nbins); }
    return [tlBinNs(a), tlBinNs(b)];
  }

  function tlSetView(v0, v1) {
    var f = tlFull(), min = TL.bin_ns * 2, span = Math.max(min, Math.min(v1 - v0, f[1] - f[0]));
    if (v0 < f[0]) v0 = f[0];
    if (v0 + span > f[1]) v0 = f[1] - span;
    tlV0 = v0;
    tlV1 = v0 + span;
    tlDraw();
  }

  /* Shows the flame graph of bins [a, b), or of everything for null. */
  function setRange(a, b) {
    tlMsg("");
    if (a != null) {
      a = Math.max(0, Math.min(TL.nbins, a));
      b = Math.max(a + 1, Math.min(TL.nbins, b));
    }
    var t0 = performance.now();
    RANGE = a == null ? null : [a, b];
    views = {};
    setView(viewName);
    $("fp-tl").setAttribute("data-ms-range", (performance.now() - t0).toFixed(1));
    var box = $("fp-tl");
    if (RANGE) {
      box.setAttribute("data-range-bins", RANGE[0] + "," + RANGE[1]);
      box.setAttribute("data-range-from-ns", String(tlBinNs(RANGE[0])));
      box.setAttribute("data-range-to-ns", String(tlBinNs(RANGE[1])));
      box.setAttribute("data-range-weight", String(cur(T, 0)));
    } else {
      ["data-range-bins", "data-range-from-ns", "data-range-to-ns", "data-range-weight"]
        .forEach(function (k) { box.removeAttribute(k); });
    }
    $("fp-tl-range").textContent = RANGE ? "Range " + tlRangeText() : "Whole profile";
    $("fp-tl-clear").disabled = !RANGE;
    $("fp-info").textContent = summary();
    $("fp-empty").hidden = cur(T, 0) > 0;
    tlDraw();
  }

  /* Shows request id alone (the samples whose span or root span is id), or every request for
   * null: its threads' rows, the flame graph of its samples, the view zoomed to its time. */
  function setSpan(id) {
    var t0 = performance.now();
    id = id == null ? "" : String(id).trim();
    tlMsg("");
    /* ids are decimal here; hex (0x..., as `convert --span` takes it) is turned to decimal */
    if (/^0x[0-9a-f]{1,16}$/i.test(id)) id = BigInt(id).toString();
    SPAN = id === "" ? null : spanSelect(id);
    views = {};
    setView(viewName);
    var box = $("fp-tl");
    box.setAttribute("data-ms-span", (performance.now() - t0).toFixed(1));
    if (SPAN) {
      box.setAttribute("data-span", SPAN.id);
      box.setAttribute("data-span-contexts", String(SPAN.groups.length));
      box.setAttribute("data-span-rows", String(SPAN.rows.length));
      box.setAttribute("data-span-weight", String(cur(T, 0)));
      if (SPAN.root !== null) box.setAttribute("data-span-root", SPAN.root);
      if (SPAN.endpoint) box.setAttribute("data-span-endpoint", SPAN.endpoint);
    } else {
      ["data-span", "data-span-contexts", "data-span-rows", "data-span-weight", "data-span-root",
       "data-span-endpoint"].forEach(function (k) { box.removeAttribute(k); });
    }
    $("fp-tl-span").hidden = !SPAN;
    $("fp-tl-span").textContent = SPAN ? spanText() : "";
    $("fp-tl-span").title = SPAN ? spanText() : "";
    $("fp-tl-span-clear").hidden = !SPAN;
    $("fp-info").textContent = summary();
    $("fp-empty").hidden = cur(T, 0) > 0;
    if (tlOpen) {
      tlNote();
      tlLabels();
      tlResize();
      if (SPAN && SPAN.b > SPAN.a) {
        /* the request's time, with a margin of a tenth on each side */
        var m = (SPAN.b - SPAN.a) * TL.bin_ns / 10;
        tlSetView(tlBinNs(SPAN.a) - m, tlBinNs(SPAN.b) + m);
      } else {
        tlDraw();
      }
    }
  }

  /* What a click found when it found no request to show: a line beside the request
   * buttons, until the next click ("" hides it). */
  function tlMsg(text) {
    var m = $("fp-tl-msg");
    m.textContent = text;
    m.hidden = !text;
  }

  /* A click on the timeline at (x, y): the heaviest request sampled in that thread's bin --
   * or in the nearest bin with one within 3 pixels, marks being thin -- shown alone (among
   * the shown request's contexts when one is). A click on marks of no request kept says why
   * nothing opened: they worked for no request, or for requests the page let go. */
  function tlClick(x, y) {
    tlMsg("");
    if (!SP) return;
    var ri = Math.floor((y - TL_AXIS) / TL_RH) - tlDecode().lanes.length, R = tlRows()[ri];
    if (!R) return;
    var bin = Math.floor((tlAt(x) - TL.t0_ns) / TL.bin_ns);
    var reach = Math.max(1, Math.ceil(3 * (tlV1 - tlV0) / Math.max(1, tlW) / TL.bin_ns));
    var marked = false;
    for (var k = 0; k < R.B.length && !marked; k++) {
      marked = R.B[k] >= bin - reach && R.B[k] <= bin + reach && R.W[k] > 0;
    }
    var best = -1;
    for (var d = 0; d <= reach && best < 0; d++) {
      [bin - d, bin + d].forEach(function (b2) {
        if (best >= 0 || b2 < 0) return;
        spAt(R.r, b2).some(function (gw) {
          if (SPAN && SPAN.groups.indexOf(gw[0]) < 0) return false;
          best = gw[0];
          return true;
        });
      });
    }
    if (best < 0) {
      if (!marked || SPAN) return;
      tlMsg(SP.let_go ?
            "No request this page keeps was sampled here: it keeps the " +
            fmtInt(SP.ids.length) + " heaviest and let " + fmtInt(SP.let_go) + " lighter ones " +
            "go, or these samples worked for none. Drag over this time to see its samples." :
            "These samples worked for no request (no trace context). Drag over this time to " +
            "see them.");
      return;
    }
    RANGE = null;
    setSpan(SP.ids[best][1]);
    saveHash();
  }

  function setTimeline(open) {
    tlOpen = !!open && !!TL;
    $("fp-tl").hidden = !tlOpen;
    $("fp-tl-toggle").classList.toggle("fp-sel", tlOpen);
    if (tlOpen) {
      tlNote();
      tlLabels();
      tlResize();
      if (!(tlV1 > tlV0)) {
        var f = tlFull();
        tlV0 = f[0];
        tlV1 = f[1];
      }
      tlDraw();
    } else if (RANGE || SPAN) {
      RANGE = null;
      setSpan(null);
    }
    legend();
    resize();
    draw();
  }

  if (TL) {
    $("fp-tl-toggle").hidden = false;
    $("fp-tl-toggle").addEventListener("click", function () { setTimeline(!tlOpen); saveHash(); });
    $("fp-tl-clear").addEventListener("click", function () { setRange(null); saveHash(); });
    $("fp-tl-span-clear").addEventListener("click", function () { setSpan(null); saveHash(); });
    if (SP) $("fp-tl-help").textContent += " \u00b7 click a mark to see its request alone";
    $("fp-tl-out").addEventListener("click", function () {
      var f = tlFull();
      tlSetView(f[0], f[1]);
    });
    tlCanvas.addEventListener("mousedown", function (ev) {
      var r = tlCanvas.getBoundingClientRect(), x = ev.clientX - r.left;
      ev.preventDefault();
      tlDrag = ev.shiftKey || ev.button === 1 ?
        { mode: "pan", x: x, v0: tlV0, v1: tlV1 } :
        { mode: "select", x: x, a: tlAt(x), b: tlAt(x) };
    });
    /* hovering a thread's row: what was sampled in the bin under the pointer */
    tlCanvas.addEventListener("mousemove", function (ev) {
      if (tlDrag) return;
      var r = tlCanvas.getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top;
      var Dd = tlDecode(), ri = Math.floor((y - TL_AXIS) / TL_RH) - Dd.lanes.length;
      var bin = Math.floor((tlAt(x) - TL.t0_ns) / TL.bin_ns), R = tlRows()[ri];
      if (!R || bin < 0) {
        tip.hidden = true;
        return;
      }
      var parts = [], tot = 0;
      for (var k = 0; k < R.B.length; k++) {
        if (R.B[k] === bin) {
          parts.push([TL.cats[R.C[k]], R.W[k]]);
          tot += R.W[k];
        }
      }
      tip.textContent = "";
      var nm = document.createElement("div");
      nm.className = "fp-name";
      nm.textContent = R.name;
      tip.appendChild(nm);
      var kd = document.createElement("div");
      kd.className = "fp-kind";
      kd.textContent = tlTime(tlBinNs(bin)) + " \u2013 " + tlTime(tlBinNs(bin + 1)) +
        (tot ? "" : " \u00b7 no samples");
      tip.appendChild(kd);
      if (tot) {
        var tb = document.createElement("table"), body = document.createElement("tbody");
        tb.appendChild(body);
        parts.forEach(function (pw) {
          row(body, pw[0], weightText(pw[1]) + " \u00b7 " + pct(pw[1] / tot));
        });
        /* the requests it worked for: a click shows the first alone */
        if (SP) {
          spAt(R.r, bin).slice(0, 3).forEach(function (gw) {
            var id = SP.ids[gw[0]];
            row(body, "request", (id[2] ? id[2] + " " : "") + "root " + id[1] + " \u00b7 " +
                weightText(gw[1]));
          });
        }
        tip.appendChild(tb);
      }
      tip.hidden = false;
      var tr = tip.getBoundingClientRect(), tx = ev.clientX + 14, ty = ev.clientY + 16;
      if (tx + tr.width > window.innerWidth - 4) tx = Math.max(4, ev.clientX - tr.width - 14);
      tip.style.left = tx + "px";
      tip.style.top = ty + "px";
    });
    tlCanvas.addEventListener("mouseleave", function () { tip.hidden = true; });
    window.addEventListener("mousemove", function (ev) {
      if (!tlDrag) return;
      var r = tlCanvas.getBoundingClientRect(), x = ev.clientX - r.left;
      if (tlDrag.mode === "pan") {
        var dt = (x - tlDrag.x) * (tlDrag.v1 - tlDrag.v0) / tlW;
        tlSetView(tlDrag.v0 - dt, tlDrag.v1 - dt);
      } else {
        tlDrag.b = tlAt(Math.max(0, Math.min(tlW, x)));
        tlDraw();
      }
    });
    window.addEventListener("mouseup", function (ev) {
      if (!tlDrag) return;
      var d = tlDrag, r = tlCanvas.getBoundingClientRect(), x = ev.clientX - r.left;
      tlDrag = null;
      if (d.mode !== "select") return;
      if (Math.abs(x - d.x) < 3) {
        tlDraw();
        tlClick(x, ev.clientY - r.top);
        return;
      }
      var lo = Math.min(d.a, d.b), hi = Math.max(d.a, d.b);
      setRange(Math.floor((lo - TL.t0_ns) / TL.bin_ns), Math.ceil((hi - TL.t0_ns) / TL.bin_ns));
      saveHash();
    });
    tlCanvas.addEventListener("dblclick", function () {
      var f = tlFull();
      tlSetView(f[0], f[1]);
    });
    tlCanvas.addEventListener("wheel", function (ev) {
      ev.preventDefault();
      var r = tlCanvas.getBoundingClientRect(), x = ev.clientX - r.left, span = tlV1 - tlV0;
      var dy = ev.deltaMode ? ev.deltaY * 40 : ev.deltaY;
      if (ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(dy)) {
        var dx = ev.shiftKey ? dy : ev.deltaX, shift = dx / Math.max(1, tlW) * span;
        tlSetView(tlV0 + shift, tlV1 + shift);
        return;
      }
      var f = Math.pow(1.0015, dy), at = tlAt(x);
      tlSetView(at - (at - tlV0) * f, at + (tlV1 - at) * f);
    }, { passive: false });
    window.addEventListener("resize", function () { if (tlOpen) { tlResize(); tlDraw(); } });
  }

  /* ---- start ----------------------------------------------------------------------------- */

  $("fp-title").textContent = D.title;
  $("fp-title").title = D.title;
  $("fp-sub").textContent = D.subtitle || "";
  $("fp-info").textContent = summary();
  document.title = D.title;

  var params = {};
  location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
    if (!kv) return;
    var at = kv.indexOf("="), k = at < 0 ? kv : kv.slice(0, at);
    try {
      params[k] = at < 0 ? "" : decodeURIComponent(kv.slice(at + 1));
    } catch (err) {
      params[k] = "";
    }
  });
  dumpWanted = "dump" in params;

  try {
    T = tree(home);
  } catch (err) {
    $("fp-title").textContent = "flyprof: the embedded profile is damaged (" + err.message + ")";
    return;
  }
  var T_DECODED = performance.now();
  if (!(D.total > 0)) $("fp-empty").hidden = false;
  if (params.search) search.value = params.search;
  var wantTimeline = params.view === "timeline" && !!TL;
  if (wantTimeline && params.range && TL) {
    var rg = params.range.split(",").map(Number);
    if (rg.length === 2 && isFinite(rg[0]) && isFinite(rg[1]) && rg[1] > rg[0]) {
      RANGE = [Math.max(0, Math.floor((rg[0] * 1e9 - TL.t0_ns) / TL.bin_ns)),
               Math.min(TL.nbins, Math.ceil((rg[1] * 1e9 - TL.t0_ns) / TL.bin_ns))];
      if (!(RANGE[1] > RANGE[0])) RANGE = null;
    }
  }
  setView(params.view === "timeline" ? params.flame || home : params.view || home);
  if (wantTimeline) {
    setTimeline(true);
    if (params.span) setSpan(params.span);
    setRange(RANGE ? RANGE[0] : null, RANGE ? RANGE[1] : null);
  }
  if (search.value) applySearch();
  var T_DRAWN = performance.now();

  var st = $("fp-stats");
  st.setAttribute("data-ms-start", T_START.toFixed(1));
  st.setAttribute("data-ms-parse", (T_PARSED - T_START).toFixed(1));
  st.setAttribute("data-ms-decode", (T_DECODED - T_PARSED).toFixed(1));
  st.setAttribute("data-ms-ready", T_DRAWN.toFixed(1));
  /* when the frame has reached the screen: after the next animation frame */
  requestAnimationFrame(function () {
    setTimeout(function () {
      st.setAttribute("data-ms-painted", performance.now().toFixed(1));
      if (timing.callers_ms != null) {
        st.setAttribute("data-ms-callers", timing.callers_ms.toFixed(1));
      }
    }, 0);
  });
})();
