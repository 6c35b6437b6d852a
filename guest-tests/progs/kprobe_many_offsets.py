#!/usr/bin/env python3
"""Define kprobe events at every byte offset of randomly chosen kernel
functions (seeded), as a user probing "everywhere" would.

Writes one definition per offset to kprobe_events; offsets that are not
instruction boundaries (or that kprobes refuses) must fail with an errno,
the others must be accepted.  Prints "accepted refused functions" and the
list of accepted definitions to stdout (one per line after the first).
Events of the first function (f0_*) sit in a function that every read(2)
(or write(2)) runs.

Usage: kprobe_many_offsets.py SEED NFUNCS MAXSIZE
"""
import bisect
import errno
import os
import random
import sys

T = "/sys/kernel/tracing"
seed, nfuncs, maxsize = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])

traceable = set()
with open(T + "/available_filter_functions") as f:
    for line in f:
        name = line.split()[0]
        if "[" not in line:
            traceable.add(name)

addrs, names, count = [], [], {}
with open("/proc/kallsyms") as f:
    for line in f:
        a, t, n = line.split()[:3]
        if t not in "tT" or "[" in line:
            continue
        addrs.append(int(a, 16))
        names.append(n)
        count[n] = count.get(n, 0) + 1
order = sorted(range(len(addrs)), key=lambda i: addrs[i])
addrs = [addrs[i] for i in order]
names = [names[i] for i in order]

with open("/sys/kernel/debug/kprobes/blacklist") as f:
    black = set(line.split()[1] for line in f if len(line.split()) > 1)

HOT = ("ksys_read", "vfs_read", "ksys_write")
cands, hot = [], []
for i in range(len(addrs) - 1):
    n, size = names[i], addrs[i + 1] - addrs[i]
    if n not in traceable or count[n] != 1 or n in black or size < 16:
        continue
    if size <= maxsize:
        cands.append((n, size))
    if n in HOT:
        hot.append((size, n))
cands.sort()
# Which functions the seed picks depends on the kernel's symbol table, and
# a pick of cold functions alone would leave the hit check to chance: the
# first function is one the test's own reads always run.  It may be past
# the size limit (KASAN's instrumentation doubles these): the smallest.
hot = [(n, size) for size, n in sorted(hot)]
if not hot:
    print("no function the workload calls is in the symbol table",
          file=sys.stderr)
    sys.exit(2)
rnd = random.Random(seed)
rest = [c for c in cands if c != hot[0]]
chosen = [hot[0]] + rnd.sample(rest, min(nfuncs - 1, len(rest)))

fd = os.open(T + "/kprobe_events", os.O_WRONLY | os.O_APPEND)
accepted, refused, defs = 0, 0, []
for fi, (name, size) in enumerate(chosen):
    for off in range(size):
        d = "p:kpt_many/f%d_%d %s+%d" % (fi, off, name, off)
        try:
            os.write(fd, (d + "\n").encode())
            accepted += 1
            defs.append(d)
        except OSError as e:
            if e.errno not in (errno.EILSEQ, errno.EINVAL, errno.EOPNOTSUPP,
                               errno.EBUSY, errno.ENOENT):
                print("unexpected errno %d for %s" % (e.errno, d),
                      file=sys.stderr)
                sys.exit(2)
            refused += 1
os.close(fd)
print(accepted, refused, " ".join(n for n, _ in chosen))
for d in defs:
    print(d)
