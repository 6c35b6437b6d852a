#!/usr/bin/env python3
"""Fuzz kprobe_events with malformed and random definitions.

Used by guest-tests/kprobe_events_fuzz.sh.  Seeded and repeatable:

    kprobe_events_fuzz.py [--seed N] [--count N] [--dump]

(--dump prints the generated lines and touches nothing.)  Each line is
written on its own (os.write, O_APPEND, one line per write) to
kprobe_events, after error_log was cleared by opening it with O_TRUNC.

A refused line must leave an entry in error_log naming it, first line
"[time] trace_kprobe: error: ...", then "  Command: ..." with the command,
except where the kernel refuses before the kprobe parser sees the line (as
upstream does, these log nothing): '-:' deletes, a first word not starting
with p or r, fewer than two words, a line too long for the write buffer,
more than MAX_TRACE_ARGS arguments (E2BIG).  An accepted line's events are
read back from kprobe_events and deleted at once.  Prints totals; the exit
status is 1 if an assertion failed (the first few are printed).
"""
import argparse
import errno
import os
import random
import sys
import time

T = "/sys/kernel/tracing"
KSPACE = b" \t\n\v\f\r\xa0"  # the kernel's isspace() (Latin-1 0xa0 too)
MAX_TRACE_ARGS = 128
WRITE_BUFSIZE = 4096

SAFE_SYMS = ["vfs_read", "vfs_write", "do_sys_openat2", "kernel_clone",
             "ksys_read", "do_nanosleep", "vfs_fstat", "do_exit",
             "__x64_sys_getpid", "schedule_timeout", "kfree", "__kmalloc"]
TYPES = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "x8",
         "x16", "x32", "x64", "string", "ustring", "symbol", "symstr",
         "char", "b4@8/32", "b1@0/8", "u8[4]", "x32[2]", "string[2]",
         "%pd", "%pD"]
BAD_TYPES = ["u128", "s0", "x7", "b99@0/32", "b0@0/32", "b4@30/32",
             "u8[0]", "u8[99999]", "u8[", "[4]", "string[-1]", "foo",
             "", "u8:u8", "b4@8/", "symbol[2]", "%px", "%pd[2]"]
REGS = ["%di", "%si", "%dx", "%cx", "%r8", "%r9", "%ax", "%sp", "%ip",
        "%bp", "%flags", "%r15"]
BAD_REGS = ["%zz", "%", "%rdi", "%di0", "%eax", "%r16", "%xmm0"]
GROUPS = ["kprobes", "kpfz", "kpfz_grp", "Kpfz9"]
BAD_NAMES = ["", "1abc", "a-b", "a.b", "a b", "é", "a/b/c", "/", "*", "a*",
             "x" * 64, "x" * 65, "y" * 300, "$x", "ev:x", "%ev", "-", ".."]
HUGE = ["99999999999999999999", "0xffffffffffffffff", "18446744073709551616",
        "0x10000000000000000", "-1", "-0x8000000000000000", "4294967296",
        "0x7fffffff", "2147483648", "0x", "0x1g", "1e10", "00", "0b101"]
PUNCT = " :/+%$@()[]{},.=-_~'\"\\\t#!*&^;<>?|`"


class Fuzz:
    def __init__(self, seed, syms, blacklisted):
        self.r = random.Random(seed)
        self.syms = syms
        self.blacklisted = blacklisted
        self.n = 0

    def name(self):
        self.n += 1
        return "kpfz%d" % self.n

    def sym(self):
        r = self.r
        k = r.random()
        if k < 0.6:
            return r.choice(self.syms)
        if k < 0.7 and self.blacklisted:
            return r.choice(self.blacklisted)
        if k < 0.85:
            return "kpfz_nosuch_%d" % r.randrange(10 ** 6)
        if k < 0.93:
            return "kpfz_nomod:%s" % r.choice(self.syms)
        return r.choice(["", ":", "vfs_read:", ":vfs_read", "kernel:vfs_read",
                         "vfs_read.isra.0", "VFS_READ", "vfs_read\\",
                         "_text", "_etext", "__init_begin"])

    def place(self, ret):
        r = self.r
        s = self.sym()
        k = r.random()
        if k < 0.5:
            p = s
        elif k < 0.7:
            p = "%s+%s" % (s, r.choice(["0", "0x0", "4", "1", "0x10", "3",
                                         "0x1000", "100000"]))
        elif k < 0.85:
            p = "%s+%s" % (s, r.choice(HUGE))
        else:
            p = r.choice(["0x0", "0", "0xffffffff81000000",
                          "0xffffffffffffffff", "0x" + "f" * 20, "12345",
                          "0xdeadbeef", "+0", "-4", s + "-4", s + "++4",
                          s + "+", s + "+0x+1"])
        if ret or r.random() < 0.08:
            p += r.choice(["%return", "%return", "%retur", "%RETURN",
                           "%return%return", "%", "%return+4"])
        return p

    def arg(self, ret, i):
        r = self.r
        k = r.random()
        base = r.choice([
            "$arg%d" % r.randint(1, 6), "$arg%d" % r.choice([0, 7, 99, 100000]),
            r.choice(REGS), r.choice(BAD_REGS), "$stack", "$stack%d" % r.randint(0, 5),
            "$stack%s" % r.choice(HUGE), "$retval", "$comm", "$COMM", "$current",
            "$argx", "$", "@jiffies", "@jiffies+8", "@kpfz_nosuch", "@0x0",
            "@vfs_read+0", "+0(%di)", "+8($stack)", "-8(%sp)", "+0(+0(%si))",
            "+0(%di", "+(%di)", "+0x(%di)", "+%s(%%di)" % r.choice(HUGE),
            "\\1234", "\\0x10", "\\\"hello\"", "\\\"unterminated", "\\x",
            "+0($arg1)", "+0(@jiffies)", "$arg1" * 3, "()", "%di%si",
            "+0(" * 20 + "%di" + ")" * 20, "$$", "%%di"])
        if k < 0.5:
            base += ":" + r.choice(TYPES)
        elif k < 0.65:
            base += ":" + r.choice(BAD_TYPES)
        j = r.random()
        if j < 0.4:
            return "a%d=%s" % (i, base)
        if j < 0.5:
            return "%s=%s" % (r.choice(BAD_NAMES + ["arg", "common_pid",
                                                    "a%d" % (i - 1 if i else 0)]), base)
        return base

    def valid(self):
        """A plausible definition (some are still refused: bad args etc.)."""
        r = self.r
        ret = r.random() < 0.35
        head = "r" if ret else "p"
        if ret and r.random() < 0.3:
            head += r.choice(["0", "1", "4", "16", "4096", "4097", "0x10",
                              "-1", "x"] + HUGE)
        k = r.random()
        if k < 0.7:
            head += ":%s/%s" % (r.choice(GROUPS), self.name())
        elif k < 0.85:
            head += ":%s" % self.name()
        words = [head, self.place(ret and r.random() < 0.2)]
        for i in range(r.choice([0, 0, 1, 1, 2, 3, 5])):
            words.append(self.arg(ret, i))
        return " ".join(words)

    def mutate(self, s):
        r = self.r
        b = bytearray(s.encode())
        for _ in range(r.randint(1, 4)):
            op = r.randrange(9)
            pos = r.randrange(len(b) + 1)
            if op == 0 and b:
                del b[min(pos, len(b) - 1)]
            elif op == 1:
                b[pos:pos] = r.choice(PUNCT).encode()
            elif op == 2 and b:
                b[min(pos, len(b) - 1)] = r.randrange(1, 256)
            elif op == 3:
                b = b[:pos]
            elif op == 4:
                words = bytes(b).split(b" ")
                r.shuffle(words)
                b = bytearray(b" ".join(words))
            elif op == 5:
                words = bytes(b).split(b" ")
                w = r.choice(words)
                words.insert(r.randrange(len(words) + 1), w)
                b = bytearray(b" ".join(words))
            elif op == 6:
                b[pos:pos] = r.choice(HUGE).encode()
            elif op == 7:
                b[pos:pos] = b" " * r.randint(1, 5)
            else:
                b[pos:pos] = r.choice([b"p:", b"r:", b"-:", b"%return",
                                       b"+0x8", b"$retval", b":string",
                                       b"kpfz/"])
        return bytes(b)

    def line(self):
        r = self.r
        k = r.random()
        if k < 0.30:
            return self.valid().encode()
        if k < 0.62:
            return self.mutate(self.valid())
        if k < 0.70:
            grp = r.choice(GROUPS + BAD_NAMES)
            return ("-:%s/%s" % (grp, r.choice([self.name(), "", "*"])
                                 ) if r.random() < 0.6 else
                    "-:%s %s" % (self.name(), self.place(False))).encode()
        if k < 0.76:
            head = r.choice(["p", "r", "r4"]) + ":" + "/".join(
                r.choice(BAD_NAMES + GROUPS) for _ in range(r.randint(1, 3)))
            return (head + " " + self.place(False)).encode()
        if k < 0.82:
            n = r.randint(1, 300)
            return bytes(r.choice(b"\x01\x02\x7f\x80\xa0\xff\t\r\v\f %:/+$@"
                                  b"pr-!#abc019") for _ in range(n))
        if k < 0.87:
            n = r.randint(1, 200)
            return bytes(r.randrange(1, 256) for _ in range(n)).replace(b"\n", b" ")
        if k < 0.92:
            # long lines: around the write buffer's limit and beyond
            n = r.choice([200, 1000, 3000, 4000, 4093, 4094, 4095, 5000])
            base = "p:kpfz/%s vfs_read " % self.name()
            filler = r.choice(["x", "$arg1 ", "a=%di ", "+0(" ])
            return (base + filler * n)[:n].encode()
        if k < 0.95:
            # many arguments, around MAX_TRACE_ARGS
            n = r.choice([127, 128, 129, 200])
            return ("p:kpfz/%s vfs_read " % self.name() + " ".join(
                "a%d=%%di" % i for i in range(n))).encode()
        return r.choice([b"", b" ", b"p", b"r", b"-", b"-:", b"p:", b"r:",
                         b"p:kpfz/x", b"#p:kpfz/x vfs_read", b"x vfs_read",
                         b"P:kpfz/x vfs_read", b"\tp:kpfz/tab vfs_read",
                         b"p vfs_read # comment", b"!:kpfz/x", b"e:kpfz/x vfs_read"])


def classify(line):
    """What the kernel does with LINE before the kprobe parser: returns
    (kind, argv) where kind is 'toolong', 'empty', 'delete', 'notprobe',
    'short', 'manyargs' or 'parse' (the parser sees it and must log)."""
    if len(line) + 1 >= WRITE_BUFSIZE:
        return "toolong", []
    cmd = line.split(b"#")[0]
    for c in KSPACE[1:]:
        cmd = cmd.replace(bytes([c]), b" ")
    argv = [w for w in cmd.split(b" ") if w]
    if not argv:
        return "empty", argv
    if argv[0][:1] == b"-":
        return "delete", argv
    if argv[0][:1] not in (b"p", b"r"):
        return "notprobe", argv
    if len(argv) < 2:
        return "short", argv
    if len(argv) - 2 > MAX_TRACE_ARGS:
        return "manyargs", argv
    return "parse", argv


def read(path):
    with open(path, "rb") as f:
        return f.read()


def clear_errlog():
    os.close(os.open(T + "/error_log", os.O_WRONLY | os.O_TRUNC))


def defined():
    return [l for l in read(T + "/kprobe_events").split(b"\n") if l]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int,
                    default=int(os.environ.get("KP_FUZZ_SEED", "20261122")))
    ap.add_argument("--count", type=int,
                    default=int(os.environ.get("KP_FUZZ_COUNT", "5000")))
    ap.add_argument("--dump", action="store_true")
    a = ap.parse_args()

    if a.dump:
        f = Fuzz(a.seed, SAFE_SYMS, ["kprobe_int3_handler"])
        for _ in range(a.count):
            l = f.line()
            print(classify(l)[0], repr(l)[:200])
        return 0

    kall = set()
    with open("/proc/kallsyms") as f:
        for l in f:
            p = l.split()
            if len(p) == 3:	# core kernel symbols only
                kall.add(p[2])
    syms = [s for s in SAFE_SYMS if s in kall]
    blk = []
    try:
        for l in read("/sys/kernel/debug/kprobes/blacklist").decode().splitlines()[:200:20]:
            blk.append(l.split()[-1])
    except OSError:
        pass
    fz = Fuzz(a.seed, syms, blk)

    fd = os.open(T + "/kprobe_events", os.O_WRONLY | os.O_APPEND)
    stats = {"written": 0, "rejected": 0, "accepted": 0}
    kinds = {}
    errnos = {}
    problems = []
    samples_ok = []
    t0 = time.monotonic()
    for i in range(a.count):
        line = fz.line()
        kind, argv = classify(line)
        clear_errlog()
        stats["written"] += 1
        try:
            os.write(fd, line + b"\n")
            err = 0
        except OSError as e:
            err = e.errno
        kinds[(kind, "ok" if not err else "refused")] = \
            kinds.get((kind, "ok" if not err else "refused"), 0) + 1
        if err:
            stats["rejected"] += 1
            en = errno.errorcode.get(err, str(err))
            errnos[en] = errnos.get(en, 0) + 1
            log = read(T + "/error_log")
            if kind == "parse" and err != errno.ENOMEM:
                lines = log.split(b"\n")
                ok = (len(lines) >= 2 and b"] trace_kprobe: error: " in lines[0]
                      and lines[1].startswith(b"  Command: ")
                      and argv[0] in lines[1])
                if not ok:
                    problems.append("#%d %r: refused (%s) but error_log has %s"
                                    % (i, line[:160], en,
                                       repr(log[:300]) if log else "nothing"))
            elif kind == "delete" and err not in (errno.ENOENT, errno.EINVAL):
                problems.append("#%d %r: delete refused with %s (want ENOENT/EINVAL)"
                                % (i, line[:160], en))
            elif kind in ("notprobe", "short", "toolong") and err != errno.EINVAL:
                problems.append("#%d %r (%s): refused with %s, want EINVAL"
                                % (i, line[:160], kind, en))
            elif kind == "manyargs" and err not in (errno.E2BIG, errno.EINVAL):
                problems.append("#%d %r: %d args refused with %s, want E2BIG"
                                % (i, line[:100], len(argv) - 2, en))
        else:
            if kind in ("toolong", "notprobe", "short", "manyargs"):
                problems.append("#%d %r (%s): accepted" % (i, line[:160], kind))
            evs = defined()
            if evs:
                stats["accepted"] += 1
                if len(samples_ok) < 8:
                    samples_ok.append(line[:100])
            for ev in evs:
                name = ev.split(b" ")[0].split(b":", 1)[1]
                try:
                    os.write(fd, b"-:" + name + b"\n")
                except OSError as e:
                    problems.append("#%d: cannot delete accepted %r: %s"
                                    % (i, ev, os.strerror(e.errno)))
            left = defined()
            if left:
                problems.append("#%d: still defined after delete: %r" % (i, left))
                break
        if len(problems) > 50:
            break
    os.close(fd)
    secs = time.monotonic() - t0
    print("seed=%d count=%d written=%d rejected=%d accepted=%d seconds=%.1f"
          % (a.seed, a.count, stats["written"], stats["rejected"],
             stats["accepted"], secs))
    print("by kind:", ", ".join("%s/%s=%d" % (k[0], k[1], v)
                                for k, v in sorted(kinds.items())))
    print("errnos:", ", ".join("%s=%d" % kv for kv in sorted(errnos.items())))
    for s in samples_ok:
        print("accepted e.g.:", s)
    for p in problems[:20]:
        print("PROBLEM:", p)
    if problems:
        print("problems=%d" % len(problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
