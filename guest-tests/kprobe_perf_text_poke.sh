#!/bin/bash
# perf learns of every change kprobes make to kernel text, as perf record
# --kcore and Intel PT decoding need: with a dummy event per CPU asking
# for text_poke and ksymbol records (guest-tests/progs/perf_sideband.c),
# probes are defined until a new slot chunk shows in /proc/kallsyms, a few
# are enabled and optimized, the optimization sysctl is turned off and on
# again, and everything is removed.  Asserted on the records:
#  - every new kprobe_insn_page / kprobe_optinsn_page chunk has a KSYMBOL
#    record (type OOL) with its name, address and length, and every chunk
#    that went away meanwhile an unregister record;
#  - each optimized probe's address has a TEXT_POKE for its int3 (1 byte),
#    for its jump going in (5 bytes, int3 + tail -> e9 ...), and for the
#    jump going out (e9 ... -> int3 + tail) when the sysctl goes to 0;
#  - a copy written into a slot and a detour written into its buffer each
#    have a TEXT_POKE with no old bytes, and no record was lost.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"

S=/proc/sys/debug/kprobes-optimization
# shellcheck disable=SC2317 # called through trap
cleanup() { echo 1 > "$S"; reset_tracing; }
trap cleanup EXIT
[ -w "$S" ] || skip "no $S"
[ -w "$T/kprobe_events" ] || skip "no kprobe events"
command -v gcc > /dev/null || skip "no gcc to build the helper"
gcc -O2 -Wall -o sideband "$KP_REPO/guest-tests/progs/perf_sideband.c" 2> gcc.log ||
	{ cat gcc.log; fail "cannot compile progs/perf_sideband.c"; }
reset_tracing
echo 1 > "$S"

cat > drive.py << 'EOF'
import os, re, sys, time
T = "/sys/kernel/tracing"
D = "/sys/kernel/debug/kprobes"
S = "/proc/sys/debug/kprobes-optimization"

def chunks():
    out = set()
    with open("/proc/kallsyms") as f:
        for line in f:
            a, _, name = line.split()[:3]
            if name in ("kprobe_insn_page", "kprobe_optinsn_page"):
                out.add((int(a, 16), name))
    return out

def dump(fn, s):
    with open(fn, "w") as f:
        for a, n in sorted(s):
            f.write("%x %s\n" % (a, n))

before = chunks()
dump("before.txt", before)
funcs = []
with open(T + "/available_filter_functions") as f:
    for line in f:
        w = line.split()
        if len(w) == 1 and re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", w[0]):
            funcs.append(w[0])
# +9: past ENDBR and the call to __fentry__, never a function entry
fd = os.open(T + "/kprobe_events", os.O_WRONLY | os.O_APPEND)
defined = []
for fn in funcs:
    try:
        os.write(fd, ("p:kptp/e%d %s+9\n" % (len(defined), fn)).encode())
        defined.append(fn)
    except OSError:
        continue
    if len(defined) % 100 == 0 and len(defined) >= 300:
        if any(n == "kprobe_insn_page" for _, n in chunks() - before):
            break
    if len(defined) >= 3000:
        break
os.close(fd)
print("defined", len(defined), file=sys.stderr)

def optimized():
    out = {}
    with open(D + "/list") as f:
        for line in f:
            if "[OPTIMIZED]" in line:
                w = line.split()
                out[w[2]] = int(w[0], 16)
    return out

for i in range(min(12, len(defined))):
    with open("%s/events/kptp/e%d/enable" % (T, i), "w") as f:
        f.write("1")
want = set("%s+0x9" % fn for fn in defined[:12])
opt = {}
for _ in range(200):
    opt = {k: v for k, v in optimized().items() if k in want}
    if opt:
        time.sleep(1)
        opt = {k: v for k, v in optimized().items() if k in want}
        break
    time.sleep(0.1)
with open("optimized.txt", "w") as f:
    for k, v in sorted(opt.items()):
        f.write("%x %s\n" % (v, k))
dump("mid.txt", chunks())
with open(S, "w") as f:
    f.write("0")
left = {k for k in optimized() if k in want}
with open(S, "w") as f:
    f.write("1")
with open(T + "/events/kptp/enable", "w") as f:
    f.write("0")
with open(T + "/kprobe_events", "w") as f:
    f.write("")
# Emptied chunks are freed a second or so after a tasks-RCU grace period.
mid = chunks()
for _ in range(150):
    if mid - chunks():
        break
    time.sleep(0.1)
time.sleep(2)
dump("after.txt", chunks())
if left:
    print("still optimized after the sysctl went to 0:", left, file=sys.stderr)
    sys.exit(1)
EOF

./sideband python3 drive.py > records 2> drive.log
rc=$?
cat drive.log
[ "$rc" = 0 ] || fail "sideband/driver failed (exit $rc)"
echo "$(grep -c '^poke' records) text_poke and $(grep -c '^ksym' records) ksymbol records"
[ -s optimized.txt ] || fail "none of the first 12 probes was optimized"

python3 - << 'EOF' || exit 1
import sys
def load(fn):
    out = {}
    for line in open(fn):
        a, n = line.split()
        out[int(a, 16)] = n
    return out
before, mid, after = load("before.txt"), load("mid.txt"), load("after.txt")
opt = load("optimized.txt")
pokes, ksyms, lost = [], [], 0
for line in open("records"):
    w = line.split()
    if w[0] == "poke":
        kv = dict(x.split("=", 1) for x in w[1:])
        pokes.append((int(kv["addr"], 16), kv["old"], kv["new"]))
    elif w[0] == "ksym":
        kv = dict(x.split("=", 1) for x in w[1:])
        ksyms.append((int(kv["addr"], 16), int(kv["len"]), int(kv["type"]),
                      kv["unregister"] == "1", kv["name"]))
    elif w[0] == "lost":
        lost += int(w[1])
errors = []
def need(cond, what):
    if not cond:
        errors.append(what)
need(lost == 0, "%d records lost" % lost)
OOL = 2  # PERF_RECORD_KSYMBOL_TYPE_OOL
new = {a: n for a, n in mid.items() if a not in before}
gone = {a: n for a, n in mid.items() if a not in after}
need(any(n == "kprobe_insn_page" for n in new.values()),
     "no new kprobe_insn_page chunk appeared in /proc/kallsyms")
for a, n in new.items():
    need(any(k[0] == a and k[2] == OOL and not k[3] and k[4] == n and
             k[1] >= 4096 and k[1] % 4096 == 0 for k in ksyms),
         "no KSYMBOL register record for new chunk %s at %x" % (n, a))
for a, n in gone.items():
    need(any(k[0] == a and k[2] == OOL and k[3] and k[4] == n for k in ksyms),
         "no KSYMBOL unregister record for chunk %s at %x that went away" % (n, a))
for a, name in opt.items():
    at = [p for p in pokes if p[0] == a]
    need(any(len(o) == 2 and nw == "cc" for _, o, nw in at),
         "%s (%x): no text_poke for its int3" % (name, a))
    need(any(o.startswith("cc") and len(o) == 10 and nw.startswith("e9") and
             len(nw) == 10 for _, o, nw in at),
         "%s (%x): no text_poke for its jump going in: %s" % (name, a, at))
    need(any(o.startswith("e9") and len(o) == 10 and not nw.startswith("e9")
             for _, o, nw in at),
         "%s (%x): no text_poke for its jump going out: %s" % (name, a, at))
def in_chunk(addr, kind):
    return any(n == kind and c <= addr < c + 4 * 4096
               for c, n in list(mid.items()) + list(before.items()))
need(any(o == "-" and len(nw) == 80 and in_chunk(a, "kprobe_insn_page")
         for a, o, nw in pokes), "no text_poke for a copy written into a slot")
need(any(o == "-" and len(nw) == 80 and in_chunk(a, "kprobe_optinsn_page")
         for a, o, nw in pokes), "no text_poke for a detour written into its buffer")
print("optimized %d, new chunks %d, chunks gone %d" % (len(opt), len(new), len(gone)))
if errors:
    for e in errors[:20]:
        print("FAIL:", e)
    sys.exit(1)
EOF
pass "text_poke and ksymbol records for slots, chunks, breakpoints and jumps"
