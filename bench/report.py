#!/usr/bin/env python3
"""Turn a `make bench` run into the results table and chart.

    report.py RUNDIR RESULTSDIR [--quick]

RUNDIR holds r<round>-<base|ours>/bench.txt (lines "BENCH <what> k=v ...",
written by bench/guest.sh).  Writes RESULTSDIR/latest.md (a header with the
machine, accelerator, kernels and method, then one table: kind, upstream,
ours, ratio ours/upstream, samples) and RESULTSDIR/latest.png (the ratios
as bars), prints the Markdown, and puts the same Markdown into README.md
between the "bench:begin" and "bench:end" markers.  A --quick run writes
quick.md and quick.png instead, and replaces the README's table only if
that is a quick one too.  Never fails on a number.
"""
import errno
import os
import platform
import re
import subprocess
import sys
import zlib
import struct
from statistics import median

run, outdir = sys.argv[1], sys.argv[2]
quick = "--quick" in sys.argv
repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ---- parse -------------------------------------------------------------------
data = {"base": [], "ours": []}
accel = {}
for d in sorted(os.listdir(run)):
    m = re.match(r"r(\d+)-(base|ours)$", d)
    if not m:
        continue
    rnd, mode = int(m.group(1)), m.group(2)
    try:
        accel[mode] = open(os.path.join(run, d, "accel")).read().strip()
    except OSError:
        pass
    try:
        lines = open(os.path.join(run, d, "bench.txt")).read().splitlines()
    except OSError:
        continue
    for line in lines:
        parts = line.split()
        if len(parts) < 2 or parts[0] != "BENCH":
            continue
        rec = {"what": parts[1], "round": rnd}
        for p in parts[2:]:
            if "=" in p:
                k, v = p.split("=", 1)
                rec[k] = v
        data[mode].append(rec)


def recs(mode, what, **match):
    return [r for r in data[mode] if r["what"] == what and
            all(r.get(k) == str(v) for k, v in match.items())]


def num(r, k):
    try:
        return float(r[k])
    except (KeyError, ValueError):
        return None


def med(vals):
    vals = [v for v in vals if v is not None]
    return (median(vals), len(vals)) if vals else (None, 0)


def common(vals):
    vals = [v for v in vals if v]
    return max(set(vals), key=vals.count) if vals else ""


# ---- rows ----------------------------------------------------------------------
# Each row: (section, label, base value, ours value, unit, better, base note,
# ours note).  better: "lower" or "higher" (for the reader; ratio is always
# ours/upstream).
rows = []


def add(section, label, fn, unit, better="lower", note=None, steps=None):
    vals, notes, ns, st = {}, {}, {}, {}
    for mode in ("base", "ours"):
        vals[mode], ns[mode] = fn(mode)
        notes[mode] = note(mode) if note else ""
        st[mode] = steps(mode) if steps else None
    rows.append((section, label, vals["base"], vals["ours"], unit, better,
                 notes["base"], notes["ours"], (ns["base"], ns["ours"]),
                 (st["base"], st["ours"])))


def base_of(mode, r):
    """The unprobed loop of hit record R's target, same round and repetition."""
    return [x for x in recs(mode, "base", target=r.get("target"), rep=r.get("rep"))
            if x["round"] == r["round"]]


def hit(kind):
    def fn(mode):
        out = []
        for r in recs(mode, "hit", kind=kind):
            b = [x for x in recs(mode, "base", target=r.get("target"), rep=r.get("rep"))
                 if x["round"] == r["round"]]
            if not b or num(r, "ns") is None or num(b[0], "ns") is None:
                continue
            n, bn = num(r, "n"), num(b[0], "n")
            out.append(num(r, "ns") / n - num(b[0], "ns") / bn)
        return med(out)

    def note(mode):
        rs = recs(mode, "hit", kind=kind)
        st = common([r.get("state") for r in rs])
        bad = [r for r in rs if r.get("hits") not in (r.get("n"), None) and kind != "kret"]
        return st + (" (missed hits)" if bad else "")

    def steps(mode):
        out = []
        for r in recs(mode, "hit", kind=kind):
            b = base_of(mode, r)
            if b and num(r, "steps") is not None and num(b[0], "steps") is not None:
                out.append(num(r, "steps") - num(b[0], "steps"))
        return med(out)[0]
    return fn, note, steps


hitkinds = [
    ("int3", "int3 probe, non-boostable insn (opt off)"),
    ("boost", "boosted probe (opt off)"),
    ("opt", "optimized probe"),
    ("ftrace", "ftrace-based probe at entry"),
    ("kret", "kretprobe"),
    ("both", "kprobe + kretprobe, same function"),
    ("event", "empty kprobe_events event, enabled"),
]
for kind, label in hitkinds:
    fn, note, steps = hit(kind)
    add("hit", label, fn, "ns/hit", note=note, steps=steps)


def floor(mode):
    return med([num(r, "ns") / num(r, "n") for r in recs(mode, "base", target="entry")
                if num(r, "ns") is not None])


def floor_steps(mode):
    return med([num(r, "steps") for r in recs(mode, "base", target="entry")])[0]


add("hit", "floor: empty call, no probe", floor, "ns/call", steps=floor_steps)


def sizes(what):
    s = set()
    for mode in data:
        for r in recs(mode, what):
            s.add(int(r["n"]))
    return sorted(s)


def arm_then_opt(mode, n):
    """Arming time plus the optimize wait that followed it, in ms.

    The base kernel's optimizer runs while it arms, and arming there takes
    long enough that most jumps are in before the optimize wait starts;
    the sum is what a caller waits from the first enable_kprobe() until
    the jumps are in, in either kernel.
    """
    out, arm = [], None
    for r in data[mode]:
        if r.get("n") != str(n):
            continue
        if r["what"] == "arm":
            arm = num(r, "ns")
        elif r["what"] == "opt" and arm is not None and num(r, "ns") is not None:
            out.append((arm + num(r, "ns")) / 1e6)
            arm = None
    return out


for n in sizes("reg"):
    def okn(mode, n=n):
        return common([r.get("ok") for r in recs(mode, "reg", n=n)])

    def regnote(mode, n=n):
        rs = recs(mode, "reg", n=n)
        if not rs:
            return ""
        r = rs[0]
        errs = ", ".join(f"{k.upper()} {r[k]}" for k in ("einval", "eilseq", "eopnotsupp")
                         if r.get(k) not in (None, "0"))
        if r.get("eother") not in (None, "0"):
            last = abs(int(r.get("elast") or 0))
            errs += (", " if errs else "") + f"{r['eother']} other (last {errno.errorcode.get(last, last)})"
        return f"{r.get('ok')}/{r.get('asked')} accepted" + (f" ({errs})" if errs else "")
    for what, label in (("reg", "register_kprobes"), ("arm", "arm (enable_kprobe each)"),
                        ("opt", "optimize (until [OPTIMIZED] count settles)"),
                        ("unreg", "unregister_kprobes")):
        def fn(mode, what=what, n=n):
            return med([num(r, "ns") / 1e6 for r in recs(mode, what, n=n)])
        note = regnote if what == "reg" else None
        if what == "opt":
            def note(mode, n=n):
                rs = recs(mode, "opt", n=n)
                return common([f"{r.get('optimized')}/{r.get('ok')} optimized" for r in rs])
        add("reg", f"{label}, N={n}", fn, "ms", note=note)
        if what == "opt":
            add("reg", f"arm + optimize (the two rows above, summed per run), N={n}",
                lambda mode, n=n: med(arm_then_opt(mode, n)), "ms")

for n in sizes("events"):
    for opt in ("1", "0"):
        for step in ("define", "enable", "disable", "remove"):
            def fn(mode, step=step, n=n, opt=opt):
                return med([num(r, step + "_ns") / 1e6 for r in recs(mode, "events", n=n, opt=opt)])
            note = None
            if step == "enable":
                def note(mode, n=n, opt=opt):
                    rs = recs(mode, "events", n=n, opt=opt)
                    return common([f"{r.get('defined')}/{r.get('asked')} defined; {r.get('states')}" for r in rs])
            add("events", f"kprobe_events {step} all, N={n}, opt {'on' if opt == '1' else 'off'}",
                fn, "ms", note=note)

# The split of one "remove all" (opt on): generic event code, timed in the
# guest by kretprobes on its two functions, and the rest (the kprobe layers).
for n in sizes("split"):
    for key, label in (("event_call_ns", "generic: removing the event calls"),
                       ("reset_ns", "generic: resetting the buffers"),
                       ("ours_ns", "kprobe layers (the rest)")):
        def fn(mode, n=n, key=key):
            return med([num(r, key) / 1e6 for r in recs(mode, "split", n=n)
                        if r.get("status") == "ok" and num(r, key) is not None])

        def note(mode, n=n, key=key):
            rs = recs(mode, "split", n=n)
            if key == "event_call_ns":
                return common([f"{r.get('event_calls')} calls" for r in rs])
            if key == "reset_ns":
                return common([f"{r.get('resets')} calls" for r in rs])
            return common([f"of {num(r, 'total_ns') / 1e6:.0f} ms in all" for r in rs
                           if num(r, "total_ns")])
        add("events", f"remove all, N={n}, opt on, split: {label}", fn, "ms", note=note)

for n in sizes("mem"):
    def fn(mode, n=n):
        return med([num(r, "bytes_per_probe") for r in recs(mode, "mem", n=n)])

    def note(mode, n=n):
        rs = recs(mode, "mem", n=n)
        return common([f"slab {r.get('slab_kb')} kB + vmalloc {r.get('vmalloc_kb')} kB" for r in rs])
    add("mem", f"memory per armed probe, N={n}", fn, "bytes", note=note)

for k in ("1", "2", "4"):
    def fn(mode, k=k):
        return med([num(r, "n") / num(r, "ns") * 1e6 for r in recs(mode, "smp", threads=k)
                    if num(r, "ns")])

    def note(mode, k=k):
        return common([r.get("state") or r.get("error") for r in recs(mode, "smp", threads=k)])
    add("smp", f"boosted-probe hits/ms, {k} vCPU(s)", fn, "hits/ms", better="higher", note=note)


def sleepfn(mode):
    return med([num(r, "n") / num(r, "ns") * 1e9 for r in recs(mode, "sleep") if num(r, "ns")])


def sleepnote(mode):
    rs = recs(mode, "sleep")
    return common([f"nmissed {r.get('nmissed')}/{r.get('n')}, maxactive {r.get('maxactive')}, "
                   f"{r.get('threads')} threads" for r in rs])


add("smp", "kretprobe on a sleeping function, calls/s", sleepfn, "calls/s", better="higher",
    note=sleepnote)


def missfn(mode):
    return med([num(r, "nmissed") for r in recs(mode, "sleep")])


add("smp", "  ... of which missed (instances exhausted)", missfn, "calls", better="lower")

# ---- markdown ------------------------------------------------------------------


def fmt(v):
    if v is None:
        return "n/a"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def ratio(b, o):
    if b is None or o is None or b <= 0 or o < 0:
        return None
    return o / b


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


cpu = sh("sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1") or platform.processor()
info = {m: (recs(m, "info") or [{}])[0] for m in data}
qemu = sh("qemu-system-x86_64 --version | head -n 1")
rev = sh(f"git -C {repo} rev-parse --short HEAD") + (" + uncommitted changes" if sh(f"git -C {repo} status --porcelain -- kernel include arch lib") else "")
rounds = max([r["round"] for m in data for r in data[m]] or [0])
secs = sh(f"cat {run}/seconds 2>/dev/null")
syms = (recs("ours", "syms") or recs("base", "syms") or [{}])[0]
acc = accel.get("ours") or accel.get("base") or "?"
kind = "KVM" if acc.startswith("kvm") else "TCG"

regreps = info['ours'].get('regreps', '1')
bigreps = info['ours'].get('bigreps')
if bigreps == regreps:
    regtext = f"every registration and kprobe_events size {regreps} times per boot"
else:
    regtext = (f"the smallest registration and kprobe_events sizes {regreps} times per boot, larger sizes "
               + (f"{bigreps} times per boot" if bigreps else "once, in round 1"))

out = []
out.append(f"Benchmark run `{os.path.basename(run)}`{' (QUICK=1)' if quick else ''}"
           f"{f', {int(secs) // 60} min {int(secs) % 60} s' if secs.isdigit() else ''}.\n")
out.append(f"- machine: {cpu}, {os.cpu_count()} host cores, {platform.system()} {platform.release()}; {qemu}")
out.append(f"- accelerator: **{kind}** (`{acc}`), {info['ours'].get('cpus', info['base'].get('cpus', '?'))} vCPUs "
           f"(upstream guest: {info['base'].get('cpus', '?')}), same QEMU command line for both kernels"
           + ("; under TCG absolute times are emulation-inflated, read the ratio" if kind == "TCG" else ""))
out.append(f"- kernels: upstream `{info['base'].get('kernel', '?')}` (unmodified base, upstream's kprobes) vs "
           f"ours `{info['ours'].get('kernel', '?')}` (git {rev}), same config")
out.append(f"- method: {rounds} round(s); each round boots both kernels one after the other, the first one "
           f"alternating (base, ours | ours, base | ...); within a boot every hit-cost kind is measured once "
           f"per repetition ({info['ours'].get('reps', '?')} repetitions of {info['ours'].get('loops', '?')} calls), "
           f"kinds interleaved; the SMP and sleeper tests run as many repetitions, {regtext}"
           f".  Numbers are medians over all samples (how many: last column); hit costs are the probed loop minus the "
           f"same loop unprobed (same repetition).  Registration uses {syms.get('picked', '?')} of "
           f"{syms.get('candidates', '?')} candidate functions (unique, ftrace-able, not blacklisted kernel text; "
           f"probe on the first instruction after ENDBR + `__fentry__`); the same list is given to both kernels.")
out.append("- state: the probe's flags in `/sys/kernel/debug/kprobes/list` while it was measured "
           "(`k`/`r` = kprobe/kretprobe).  Ratio = ours / upstream; for hits/ms and calls/s higher is better, "
           "elsewhere lower is better.\n")
out.append("- instructions/hit: one hit single-stepped in the guest (`steps` in bench/module/kp_bench.c: "
           "trap flag set, one #DB per instruction, counted), minus the same call unprobed; the floor row gives "
           "the unprobed call itself.  A hit that runs in an exception (int3, boosted) cannot be stepped (the CPU "
           "clears TF in the handler): \u2014.\n")
out.append("| # | kind | upstream | ours | ratio ours/upstream | instructions/hit (upstream/ours) "
           "| samples (upstream/ours) |")
out.append("|---|---|---|---|---|---|---|")
chart = []


def fsteps(st):
    if st is None or (st[0] is None and st[1] is None):
        return ""
    return "/".join("\u2014" if v is None else f"{v:,.0f}" for v in st)


for i, (sec, label, b, o, unit, better, nb, no, n, st) in enumerate(rows, 1):
    r = ratio(b, o)
    bs = fmt(b) + (f" `{nb}`" if nb else "")
    os_ = fmt(o) + (f" `{no}`" if no else "")
    out.append(f"| {i} | {label} ({unit}) | {bs} | {os_} | {fmt(r) if r is not None else 'n/a'} "
               f"| {fsteps(st)} | {n[0]}/{n[1]} |")
    chart.append((i, label, r, better))
md = "\n".join(out) + "\n"

os.makedirs(outdir, exist_ok=True)
stem = "quick" if quick else "latest"
with open(os.path.join(outdir, stem + ".md"), "w") as f:
    f.write("# Benchmark: our kprobes vs upstream's\n\n" + md)
print(md)

# README: replace the block between the markers (atomic rename).
readme = os.path.join(repo, "README.md")
try:
    text = open(readme).read()
    a, b = "<!-- bench:begin -->", "<!-- bench:end -->"
    if a in text and b in text and (not quick or "(QUICK=1)" in text[text.index(a):text.index(b)]):
        new = text[:text.index(a) + len(a)] + "\n" + md + text[text.index(b):]
        if new != text:
            with open(readme + ".tmp", "w") as f:
                f.write(new)
            os.replace(readme + ".tmp", readme)
except OSError:
    pass

# ---- PNG chart -----------------------------------------------------------------
# A 5x7 bitmap font, enough for the labels (lower case drawn as upper case).
FONT = {
    "A": "01110 10001 10001 11111 10001 10001 10001", "B": "11110 10001 10001 11110 10001 10001 11110",
    "C": "01110 10001 10000 10000 10000 10001 01110", "D": "11110 10001 10001 10001 10001 10001 11110",
    "E": "11111 10000 10000 11110 10000 10000 11111", "F": "11111 10000 10000 11110 10000 10000 10000",
    "G": "01110 10001 10000 10111 10001 10001 01111", "H": "10001 10001 10001 11111 10001 10001 10001",
    "I": "01110 00100 00100 00100 00100 00100 01110", "J": "00111 00010 00010 00010 00010 10010 01100",
    "K": "10001 10010 10100 11000 10100 10010 10001", "L": "10000 10000 10000 10000 10000 10000 11111",
    "M": "10001 11011 10101 10101 10001 10001 10001", "N": "10001 10001 11001 10101 10011 10001 10001",
    "O": "01110 10001 10001 10001 10001 10001 01110", "P": "11110 10001 10001 11110 10000 10000 10000",
    "Q": "01110 10001 10001 10001 10101 10010 01101", "R": "11110 10001 10001 11110 10100 10010 10001",
    "S": "01111 10000 10000 01110 00001 00001 11110", "T": "11111 00100 00100 00100 00100 00100 00100",
    "U": "10001 10001 10001 10001 10001 10001 01110", "V": "10001 10001 10001 10001 10001 01010 00100",
    "W": "10001 10001 10001 10101 10101 10101 01010", "X": "10001 10001 01010 00100 01010 10001 10001",
    "Y": "10001 10001 01010 00100 00100 00100 00100", "Z": "11111 00001 00010 00100 01000 10000 11111",
    "0": "01110 10001 10011 10101 11001 10001 01110", "1": "00100 01100 00100 00100 00100 00100 01110",
    "2": "01110 10001 00001 00010 00100 01000 11111", "3": "11111 00010 00100 00010 00001 10001 01110",
    "4": "00010 00110 01010 10010 11111 00010 00010", "5": "11111 10000 11110 00001 00001 10001 01110",
    "6": "00110 01000 10000 11110 10001 10001 01110", "7": "11111 00001 00010 00100 01000 01000 01000",
    "8": "01110 10001 10001 01110 10001 10001 01110", "9": "01110 10001 10001 01111 00001 00010 01100",
    ".": "00000 00000 00000 00000 00000 01100 01100", ",": "00000 00000 00000 00000 01100 00100 01000",
    "-": "00000 00000 00000 11111 00000 00000 00000", "+": "00000 00100 00100 11111 00100 00100 00000",
    "/": "00001 00010 00010 00100 01000 01000 10000", "(": "00010 00100 01000 01000 01000 00100 00010",
    ")": "01000 00100 00010 00010 00010 00100 01000", "=": "00000 00000 11111 00000 11111 00000 00000",
    ":": "00000 01100 01100 00000 01100 01100 00000", "_": "00000 00000 00000 00000 00000 00000 11111",
    "[": "01110 01000 01000 01000 01000 01000 01110", "]": "01110 00010 00010 00010 00010 00010 01110",
    "#": "01010 01010 11111 01010 11111 01010 01010", "x": "00000 00000 10001 01010 00100 01010 10001",
    " ": "00000 00000 00000 00000 00000 00000 00000", "?": "01110 10001 00001 00010 00100 00000 00100",
}
W, ROWH, LEFT, BARW = 1100, 16, 470, 520
H = 60 + ROWH * len(chart) + 30
img = bytearray(b"\xff" * (W * H * 3))


def px(x, y, c):
    if 0 <= x < W and 0 <= y < H:
        i = (y * W + x) * 3
        img[i:i + 3] = bytes(c)


def rect(x0, y0, x1, y1, c):
    for y in range(max(0, y0), min(H, y1)):
        for x in range(max(0, x0), min(W, x1)):
            px(x, y, c)


def text(x, y, s, c=(0, 0, 0)):
    for ch in s:
        g = FONT.get(ch) or FONT.get(ch.upper()) or FONT["?"]
        for ry, row in enumerate(g.split()):
            for rx, bit in enumerate(row):
                if bit == "1":
                    px(x + rx, y + ry, c)
        x += 6
    return x


import math
vals = [r for _, _, r, _ in chart if r]
lo = min([0.25] + [v for v in vals]) if vals else 0.25
hi = max([4.0] + [v for v in vals]) if vals else 4.0
llo, lhi = math.log2(lo), math.log2(hi)


def xpos(v):
    return LEFT + int((math.log2(v) - llo) / (lhi - llo) * BARW)


text(10, 10, f"OUR KPROBES / UPSTREAM KPROBES, RATIO (LOG SCALE, 1.0 = SAME){' - QUICK' if quick else ''} - {kind}")
text(10, 24, f"GREEN: OURS BETTER, RED: OURS WORSE - {info['ours'].get('kernel', '?')} VS {info['base'].get('kernel', '?')} - {os.path.basename(run)}")
top = 44
for t in (0.25, 0.5, 1, 2, 4, 8, 16, 32, 64):
    if lo <= t <= hi:
        x = xpos(t)
        rect(x, top, x + 1, top + ROWH * len(chart), (200, 200, 200) if t != 1 else (0, 0, 0))
        text(x - 6, top + ROWH * len(chart) + 6, f"{t:g}")
for j, (i, label, r, better) in enumerate(chart):
    y = top + j * ROWH
    text(4, y + 4, f"{i:2d} {label[:76]}")
    if r:
        x0, x1 = sorted((xpos(1), xpos(r)))
        good = r <= 1 if better == "lower" else r >= 1
        col = (60, 140, 60) if good else (200, 80, 60)
        rect(x0, y + 3, max(x1, x0 + 1), y + ROWH - 3, col)
        text(LEFT + BARW + 10, y + 4, f"{r:.2f}x")
    else:
        text(LEFT + BARW + 10, y + 4, "n/a")


def png(path):
    raw = b"".join(b"\x00" + bytes(img[y * W * 3:(y + 1) * W * 3]) for y in range(H))

    def chunk(t, d):
        c = t + d
        return struct.pack(">I", len(d)) + c + struct.pack(">I", zlib.crc32(c) & 0xffffffff)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


png(os.path.join(outdir, stem + ".png"))
print(f"(written: {outdir}/{stem}.md, {outdir}/{stem}.png)")
