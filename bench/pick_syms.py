#!/usr/bin/env python3
"""Pick the functions registration benchmarks probe (runs in the guest).

Candidates: kernel text symbols (no module) between _stext and _etext whose
name is unique in /proc/kallsyms, that ftrace lists in
available_filter_functions (so they start with ENDBR + the __fentry__ site
and the first instruction after it is known), and that no range of the
kprobes blacklist covers.  Prints "name address" lines for N functions
spread evenly over the candidates (all of them if N >= their count), and
the candidate count on stderr.
"""
import sys

want = int(sys.argv[1])
syms, count = [], {}
stext = etext = None
with open("/proc/kallsyms") as f:
    for line in f:
        parts = line.split()
        addr, typ, name = int(parts[0], 16), parts[1], parts[2]
        if len(parts) > 3:
            continue
        count[name] = count.get(name, 0) + 1
        if name == "_stext":
            stext = addr
        elif name == "_etext":
            etext = addr
        if typ in "tT":
            syms.append((addr, name))
ftr = set()
with open("/sys/kernel/tracing/available_filter_functions") as f:
    for line in f:
        parts = line.split()
        if len(parts) == 1:
            ftr.add(parts[0])
ranges = []
with open("/sys/kernel/debug/kprobes/blacklist") as f:
    for line in f:
        r = line.split()[0]
        lo, hi = r.split("-")
        ranges.append((int(lo, 16), int(hi, 16)))
ranges.sort()


def blacklisted(a):
    # Few thousand ranges: a linear scan per symbol is fast enough here.
    import bisect
    i = bisect.bisect_right(ranges, (a, float("inf"))) - 1
    # ranges may overlap; look back a little
    for j in range(max(0, i - 8), min(len(ranges), i + 2)):
        lo, hi = ranges[j]
        if lo <= a < hi:
            return True
    return False


cand = sorted(
    (a, n) for a, n in syms
    if stext is not None and stext <= a < etext and count[n] == 1
    and n in ftr and "." not in n and not n.startswith("kpb_")
    and not blacklisted(a))
print(len(cand), file=sys.stderr)
if want < len(cand):
    step = len(cand) / want
    cand = [cand[int(i * step)] for i in range(want)]
for a, n in cand:
    print(f"{n} {a:x}")
