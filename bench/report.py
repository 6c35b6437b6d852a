#!/usr/bin/env python3
"""Turn a `make bench` run into the results table and chart.

    report.py RUNDIR RESULTSDIR [--quick]

RUNDIR holds r<round>-<base|ours>/bench.txt (lines "BENCH <what> k=v ...",
written by bench/guest.sh).  Writes RESULTSDIR/latest.md (a header with the
machine, accelerator, kernels and method, then one table: kind, upstream,
ours, ratio ours/upstream, samples) and RESULTSDIR/latest.png (a chart
drawn with matplotlib: upstream's and our value of every row as a pair of
bars, one panel per unit, each pair labelled with the ratio), prints the
Markdown, and puts the same Markdown into README.md between the
"bench:begin" and "bench:end" markers.  A --quick run writes quick.md and
quick.png instead, and replaces the README's table only if that is a quick
one too.  Never fails on a number.

The steps: parse() reads the run into records, table() turns them into
rows and the Markdown, chart() draws the rows.
"""
import errno
import importlib.util
import os
import platform
import re
import subprocess
import sys
from statistics import median

# matplotlib comes from Debian's python3-matplotlib (harness/deps.sh), which
# only the system interpreter sees; another python3 first in PATH hands the
# run over to it.
SYSTEM_PYTHON = "/usr/bin/python3"
REEXEC_MARK = "KP_REPORT_REEXEC"

# Chart colours: the two kernels, and the ratio label where ours is better
# or worse.
COLOR_BASE = "#9e9e9e"
COLOR_OURS = "#1f77b4"
COLOR_GOOD = "#2e7d32"
COLOR_BAD = "#c62828"
# A panel whose positive values span more than this factor gets a log axis.
LOG_SPAN = 20


def want_matplotlib():
    """Re-run under the system python3 if this one has no matplotlib."""
    if importlib.util.find_spec("matplotlib") is not None:
        return
    if (os.environ.get(REEXEC_MARK) or not os.path.exists(SYSTEM_PYTHON)
            or os.path.realpath(sys.executable) == os.path.realpath(SYSTEM_PYTHON)):
        return
    os.environ[REEXEC_MARK] = "1"
    os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON, os.path.abspath(__file__)] + sys.argv[1:])


# ---- parse -------------------------------------------------------------------
def parse(run):
    """Records of RUN: ({mode: [record, ...]}, {mode: accelerator}).

    A record is a dict of one BENCH line's key=value pairs plus "what" (its
    first word) and "round".
    """
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
    return data, accel


def coverage_only(run, n):
    """{mode: functions that kernel optimized and the other did not}, among
    the functions both were asked to probe at size N, from the debugfs list
    each guest saved in round 1; None without those files.
    """
    opt, picked = {}, {}
    if not run:
        return None
    for mode in ("base", "ours"):
        d = os.path.join(run, f"r1-{mode}")
        try:
            with open(os.path.join(d, f"picked-n{n}.txt")) as f:
                picked[mode] = {line.split()[0] for line in f if line.strip()}
            with open(os.path.join(d, f"kprobes-list-n{n}.txt")) as f:
                opt[mode] = {line.split()[2].split("+")[0] for line in f
                             if "[OPTIMIZED]" in line and len(line.split()) > 2}
        except OSError:
            return None
    both = picked["base"] & picked["ours"]
    return {"base": (opt["base"] - opt["ours"]) & both,
            "ours": (opt["ours"] - opt["base"]) & both}


def select(data, mode, what, **match):
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
def build_rows(data, run=None):
    """The table's rows from the records.

    Each row: (section, label, base value, ours value, unit, better, base
    note, ours note, (base samples, ours samples), (base steps, ours
    steps)).  better: "lower" or "higher" (for the reader; ratio is always
    ours/upstream).
    """
    def recs(mode, what, **match):
        return select(data, mode, what, **match)

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
        ("revent", "kprobe_events return event with $retval, enabled"),
        ("bpfk", "BPF program on a kprobe (bpftrace count(), kprobe PMU)"),
        ("bpfr", "BPF program on a kretprobe (bpftrace count(), kprobe PMU)"),
        ("tracepoint", "not kprobes: a module's tracepoint event, enabled"),
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
                add("reg", f"coverage: [OPTIMIZED] among accepted probes, N={n}",
                    lambda mode, n=n: med([100.0 * num(r, "optimized") / num(r, "ok")
                                           for r in recs(mode, "opt", n=n) if num(r, "ok")]),
                    "%", better="higher")
                only = coverage_only(run, n)
                if only:
                    add("reg", f"coverage: optimized by this kernel and not the other, of the functions "
                        f"both probed, N={n} (round 1; upstream's column must be 0)",
                        lambda mode, only=only: (len(only[mode]), 1), "functions",
                        note=lambda mode, only=only: ", ".join(sorted(only[mode])[:4])
                        + (", ..." if len(only[mode]) > 4 else ""))

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

    def ms_of(key):
        return lambda r: f"of {num(r, key) / 1e6:.0f} ms in all" if num(r, key) else ""

    def count_of(key, what):
        return lambda r: f"{r[key]} {what}" if r.get(key) else ""

    def split(what, title, parts):
        """Rows for the parts of one timed operation, each part's time in ms.

        PARTS: (record key, label, the note a record gives) for each part;
        TITLE has {n} and {label} filled in.  A record whose timing did not
        come up (status not ok) is left out.
        """
        for n in sizes(what):
            for key, label, tell in parts:
                def fn(mode, n=n, key=key):
                    return med([num(r, key) / 1e6 for r in recs(mode, what, n=n)
                                if r.get("status") == "ok" and num(r, key) is not None])

                def note(mode, n=n, tell=tell):
                    return common([tell(r) for r in recs(mode, what, n=n)])
                add("events", title.format(n=n, label=label), fn, "ms", note=note)

    # The split of one "remove all" (opt on): generic event code, timed in the
    # guest by kretprobes on its two functions, and the rest (the kprobe layers).
    split("split", "remove all, N={n}, opt on, split: {label}", (
        ("event_call_ns", "generic: removing the event calls", count_of("event_calls", "calls")),
        ("reset_ns", "generic: resetting the buffers", count_of("resets", "calls")),
        ("ours_ns", "kprobe layers (the rest)", ms_of("total_ns"))))

    # The split of one "disable all" (opt on): the kprobe layers are the
    # event class's ->reg callback and our batch at the return to user space,
    # timed by kretprobes; the rest is the generic event code.
    split("dsplit", "disable all, N={n}, opt on, split: {label}", (
        ("generic_ns", "generic event code (the rest)", ms_of("total_ns")),
        ("ours_ns", "kprobe layers (->reg and the batch)", count_of("reg_calls", "->reg calls"))))

    # One event per write on one open kprobe_events, as "perf probe -d" does,
    # then where its time went: the buffer resets generic code does once per
    # write, and the rest.
    for n in sizes("pdel"):
        def fn(mode, n=n):
            return med([num(r, "ns") / 1e6 for r in recs(mode, "pdel", n=n)
                        if r.get("left") == "0"])

        def note(mode, n=n):
            return common([f"{r.get('defined')} defined, {r.get('left')} left" for r in recs(mode, "pdel", n=n)])
        add("events", f"remove one event per write on one file (perf probe -d), N={n}",
            fn, "ms", note=note)
    split("pdel", "one event per write, N={n}, split: {label}", (
        ("reset_ns", "generic: resetting the buffers, once per write",
         count_of("resets", "calls")),
        ("ours_ns", "kprobe layers and the rest", ms_of("ns"))))

    for n in sizes("mem"):
        def fn(mode, n=n):
            return med([num(r, "bytes_per_probe") for r in recs(mode, "mem", n=n)])

        def note(mode, n=n):
            rs = recs(mode, "mem", n=n)
            return common([f"slab {r.get('slab_kb')} kB + vmalloc {r.get('vmalloc_kb')} kB" for r in rs])
        add("mem", f"memory per armed probe, N={n}", fn, "bytes", note=note)

    for n in sizes("kretmem"):
        def fn(mode, n=n):
            return med([num(r, "bytes_per_kretprobe") for r in recs(mode, "kretmem", n=n)
                        if num(r, "ok")])

        def note(mode, n=n):
            rs = recs(mode, "kretmem", n=n)
            return common([f"{r.get('ok')} defined, possible CPUs {r.get('possible')}, "
                           f"online {r.get('online')}; {r.get('bytes_defined')} B each once defined"
                           for r in rs])
        add("mem", f"memory per kretprobe (r: event, default maxactive, enabled), "
            f"64 possible CPUs, N={n}", fn, "bytes", note=note)

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
    return rows


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


def fsteps(st):
    if st is None or (st[0] is None and st[1] is None):
        return ""
    return "/".join("\u2014" if v is None else f"{v:,.0f}" for v in st)


def accelerator(accel):
    """(accelerator as QEMU was given it, "KVM" or "TCG")."""
    acc = accel.get("ours") or accel.get("base") or "?"
    return acc, "KVM" if acc.startswith("kvm") else "TCG"


def kernel_info(data):
    """The "info" record of each kernel ({} where there is none)."""
    return {m: (select(data, m, "info") or [{}])[0] for m in data}


def table(data, accel, run, quick, repo):
    """The rows of DATA and the Markdown of the results (header and table).

    Returns (rows, md); a row here is (number, label, unit, upstream value,
    our value, ratio ours/upstream or None, better).
    """
    def recs(mode, what, **match):
        return select(data, mode, what, **match)

    rows = build_rows(data, run)
    cpu = sh("sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1") or platform.processor()
    info = kernel_info(data)
    qemu = sh("qemu-system-x86_64 --version | head -n 1")
    rev = sh(f"git -C {repo} rev-parse --short HEAD") + (" + uncommitted changes" if sh(f"git -C {repo} status --porcelain -- kernel include arch lib") else "")
    rounds = max([r["round"] for m in data for r in data[m]] or [0])
    hitrounds = sh(f"cat {run}/hit-rounds 2>/dev/null")
    hitrounds = int(hitrounds) if hitrounds.isdigit() else 0
    secs = sh(f"cat {run}/seconds 2>/dev/null")
    syms = (recs("ours", "syms") or recs("base", "syms") or [{}])[0]
    acc, kind = accelerator(accel)

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
    out.append(f"- method: {rounds} round(s)"
               + (f" ({rounds - hitrounds} full, then {hitrounds} that measure the hit costs only: their cost moves "
                  f"from boot to boot of the same kernel with where the ftrace trampoline and the slots land, "
                  f"so they get more boots)" if 0 < hitrounds < rounds else "")
               + "; each round boots both kernels one after the other, the first one "
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
    chart_rows = []
    for i, (sec, label, b, o, unit, better, nb, no, n, st) in enumerate(rows, 1):
        r = ratio(b, o)
        bs = fmt(b) + (f" `{nb}`" if nb else "")
        os_ = fmt(o) + (f" `{no}`" if no else "")
        out.append(f"| {i} | {label} ({unit}) | {bs} | {os_} | {fmt(r) if r is not None else 'n/a'} "
                   f"| {fsteps(st)} | {n[0]}/{n[1]} |")
        chart_rows.append((i, label, unit, b, o, r, better))
    md = "\n".join(out) + "\n"
    return chart_rows, md


def write_markdown(outdir, stem, md):
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, stem + ".md"), "w") as f:
        f.write("# Benchmark: our kprobes vs upstream's\n\n" + md)


def update_readme(repo, md, quick):
    """README: replace the block between the markers (atomic rename)."""
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
def panels(rows):
    """ROWS grouped by unit, in the order the units first appear."""
    out = {}
    for row in rows:
        out.setdefault(row[2], []).append(row)
    return list(out.items())


def chart(rows, path, title):
    """Draw ROWS (from table()) into the PNG at PATH.

    One panel per unit; in it a pair of horizontal bars per row, upstream's
    and ours, and the ratio ours/upstream at the right, green where ours is
    better and red where it is worse.  A panel whose values span more than
    LOG_SPAN gets a log axis (where a value is not positive, no bar).
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    groups = panels(rows)
    heights = [len(g) + 1.5 for _, g in groups]
    fig_h = 1.6 + 0.34 * sum(heights)
    fig, axes = plt.subplots(len(groups), 1, figsize=(13, fig_h), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    bar_h = 0.38
    for ax, (unit, group) in zip(axes[:, 0], groups):
        pos = [v for row in group for v in row[3:5] if v is not None and v > 0]
        log = bool(pos) and max(pos) / min(pos) > LOG_SPAN
        ys = list(range(len(group)))
        for y, (i, label, _, b, o, r, better) in zip(ys, group):
            for v, dy, color in ((b, -bar_h / 2, COLOR_BASE), (o, bar_h / 2, COLOR_OURS)):
                if v is not None and (v > 0 or not log and v != 0):
                    ax.barh(y + dy, v, height=bar_h, color=color)
        vals = [v for row in group for v in row[3:5] if v is not None]
        if log:
            ax.set_xscale("log")
        elif vals:
            ax.set_xlim(left=min([0] + vals))
        else:
            ax.set_xticks([])
            ax.text(0.5, 0.5, "no samples in this run", transform=ax.transAxes, ha="center",
                    va="center", fontsize=9, color="#777777")
        ax.set_yticks(ys)
        ax.set_yticklabels([f"{i}  {label.strip()}" for i, label, *_ in group], fontsize=8)
        ax.set_ylim(len(group) - 0.4, -0.6)
        better = {row[6] for row in group}
        ax.set_xlabel(unit + (" (log scale)" if log else "")
                      + (f", {better.pop()} is better" if len(better) == 1 else ""), fontsize=9)
        ax.tick_params(axis="x", labelsize=8)
        ax.grid(axis="x", which="major", color="#dddddd", linewidth=0.6)
        ax.set_axisbelow(True)
        # The ratio of each pair, just right of the panel.
        for y, (i, label, _, b, o, r, better) in zip(ys, group):
            if r is None:
                text, color = "n/a", "#555555"
            else:
                good = r <= 1 if better == "lower" else r >= 1
                text, color = f"{r:.2f}x", COLOR_GOOD if good else COLOR_BAD
            ax.annotate(text, xy=(1.0, y), xycoords=("axes fraction", "data"), xytext=(6, 0),
                        textcoords="offset points", va="center", ha="left", fontsize=8,
                        color=color, fontweight="bold")
        ax.annotate("ours/\nupstream", xy=(1.0, 1.0), xycoords="axes fraction", xytext=(6, 2),
                    textcoords="offset points", va="bottom", ha="left", fontsize=7, color="#555555")
    fig.suptitle(title, fontsize=11, y=1 - 0.15 / fig_h, va="top")
    fig.legend(handles=[Patch(color=COLOR_BASE, label="upstream"), Patch(color=COLOR_OURS, label="ours"),
                        Patch(color=COLOR_GOOD, label="ratio: ours better"),
                        Patch(color=COLOR_BAD, label="ratio: ours worse")],
               loc="upper center", ncol=4, fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, 1 - 0.5 / fig_h))
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.8 / fig_h))
    fig.subplots_adjust(right=0.90)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def chart_title(data, accel, run, quick):
    info = kernel_info(data)
    kind = accelerator(accel)[1]
    return (f"Our kprobes vs upstream's{' (QUICK=1)' if quick else ''}, {kind}: "
            f"{info['ours'].get('kernel', '?')} vs {info['base'].get('kernel', '?')}, "
            f"{os.path.basename(run)}")


# ---- main ----------------------------------------------------------------------
def main():
    want_matplotlib()
    run, outdir = sys.argv[1], sys.argv[2]
    quick = "--quick" in sys.argv
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    data, accel = parse(run)
    rows, md = table(data, accel, run, quick, repo)
    stem = "quick" if quick else "latest"
    write_markdown(outdir, stem, md)
    print(md)
    update_readme(repo, md, quick)
    try:
        chart(rows, os.path.join(outdir, stem + ".png"), chart_title(data, accel, run, quick))
    except ImportError as e:
        sys.exit(f"report.py: no chart ({e}; harness/deps.sh installs python3-matplotlib)")
    print(f"(written: {outdir}/{stem}.md, {outdir}/{stem}.png)")


if __name__ == "__main__":
    main()
