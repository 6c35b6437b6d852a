#!/usr/bin/env python3
"""Generate random x86-64 instruction sequences for kp_fuzz.ko.

    kp_fuzz_gen.py SEED COUNT > kp_fuzz_seqs.S

Each sequence is a function kpf_seq_N made of "units": one instruction, or
a few that must stay together (a push and its pop, a forward branch and
what it skips, a call of the sequence's local helper).  The stack pointer
is the same at every unit boundary, so objtool sees one stack state at
every label.  What the units may use:

  - every general register but %rsp and %rbx; %rbx points at a 256-byte
    scratch area (kept, never written), %rsp at the return address with
    a 128-byte area of the runner's above it;
  - ALU (add, or, adc, sbb, and, sub, xor, cmp, test), mov, movzx/movsx,
    lea (also with an address-size prefix), xchg, cmovcc, setcc, shifts
    and rotates by an immediate or %cl, inc, dec, neg, not, bswap, in
    8-, 16-, 32- and 64-bit forms (REX, operand-size prefixes);
  - loads and stores at %rbx + disp, at %rsp + 8 + disp, and RIP-relative
    in kpf_rip_scratch; segment-override prefixes (ignored in 64-bit
    mode) on them, lock on read-modify-write stores;
  - forward jcc (short and near, with branch-hint prefixes) and jmp over
    a unit, push/pop pairs, and a call of a local helper (ALU, then ret;
    it sets the arithmetic flags first, which a call-depth thunk changes).

kp_fuzz_main.c runs each sequence from a fixed register, flag and memory
state, unprobed and with probes at its instruction boundaries, and
compares.  Also emitted: kpf_seqs[] (function, boundary offsets) and the
seed.
"""
import random
import sys

REGS64 = ["rax", "rcx", "rdx", "rsi", "rdi", "rbp", "r8", "r9", "r10",
          "r11", "r12", "r13", "r14", "r15"]
REGS32 = {"rax": "eax", "rcx": "ecx", "rdx": "edx", "rsi": "esi",
          "rdi": "edi", "rbp": "ebp"}
REGS16 = {"rax": "ax", "rcx": "cx", "rdx": "dx", "rsi": "si",
          "rdi": "di", "rbp": "bp"}
REGS8 = {"rax": "al", "rcx": "cl", "rdx": "dl", "rsi": "sil",
         "rdi": "dil", "rbp": "bpl"}
for i in range(8, 16):
    REGS32["r%d" % i] = "r%dd" % i
    REGS16["r%d" % i] = "r%dw" % i
    REGS8["r%d" % i] = "r%db" % i
CALLER_SAVED = ["rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11"]
SIZES = [("q", lambda r: r), ("l", lambda r: REGS32[r]),
         ("w", lambda r: REGS16[r]), ("b", lambda r: REGS8[r])]
ALU = ["add", "or", "adc", "sbb", "and", "sub", "xor", "cmp"]
RMW = ["add", "or", "adc", "sbb", "and", "sub", "xor"]
CC = ["o", "no", "b", "ae", "e", "ne", "be", "a", "s", "ns", "p", "np",
      "l", "ge", "le", "g"]
SHIFTS = ["shl", "shr", "sar", "rol", "ror"]
SEGS = ["", "", "", "%cs:", "%ds:", "%es:", "%ss:"]
# Jcc rel8 / rel32 opcodes, for the forms the assembler would not pick.
JCC8 = {c: 0x70 + i for i, c in enumerate(CC)}


class Gen:
    def __init__(self, rnd, n):
        self.r = rnd
        self.n = n
        self.label = 0

    def reg(self):
        return self.r.choice(REGS64)

    def sized(self):
        suf, f = self.r.choice(SIZES)
        return suf, f

    def mem(self):
        """A memory operand, its kind."""
        k = self.r.randrange(3)
        seg = self.r.choice(SEGS)
        if k == 0:
            return "%s%d(%%rbx)" % (seg, self.r.randrange(0, 248)), "rbx"
        if k == 1:
            return "%s%d(%%rsp)" % (seg, 8 + self.r.randrange(0, 120)), "rsp"
        return "%skpf_rip_scratch+%d(%%rip)" % (seg, self.r.randrange(0, 248)), "rip"

    def imm(self, suf):
        if suf == "b" or self.r.random() < 0.5:
            return self.r.randrange(-128, 128)
        if suf == "w":
            return self.r.randrange(-32768, 32768)
        return self.r.randrange(-2**31, 2**31)

    def simple(self):
        """One instruction that never branches and leaves %rsp alone."""
        r = self.r
        k = r.randrange(17)
        suf, f = self.sized()
        a, b = self.reg(), self.reg()
        if k == 0:
            return ["%s%s %%%s, %%%s" % (r.choice(ALU), suf, f(a), f(b))]
        if k == 1:
            return ["%s%s $%d, %%%s" % (r.choice(ALU), suf, self.imm(suf), f(a))]
        m, kind = self.mem()
        if kind == "rsp":
            # objtool reads a callee-saved register stored to the stack
            # as a saved one: keep those out of stack accesses.
            a = r.choice(CALLER_SAVED)
        if k == 2:
            return ["%s%s %s, %%%s" % (r.choice(ALU), suf, m, f(a))]
        if k == 3:
            lock = "lock " if r.random() < 0.3 else ""
            return ["%s%s%s %%%s, %s" % (lock, r.choice(RMW), suf, f(a), m)]
        if k == 4:
            if r.random() < 0.5:
                return ["mov%s %s, %%%s" % (suf, m, f(a))]
            return ["mov%s %%%s, %s" % (suf, f(a), m)]
        if k == 5:
            if r.random() < 0.3:
                return ["movabsq $%d, %%%s" % (r.randrange(-2**63, 2**63), a)]
            return ["mov%s $%d, %%%s" % (suf, self.imm(suf), f(a))]
        if k == 6:
            scale = r.choice([1, 2, 4, 8])
            if r.random() < 0.3:
                # 32-bit addressing: the assembler adds the 0x67 prefix
                return ["leal %d(%%%s,%%%s,%d), %%%s" %
                        (r.randrange(-128, 128), REGS32[a], REGS32[b], scale,
                         REGS32[self.reg()])]
            return ["leaq %d(%%%s,%%%s,%d), %%%s" %
                    (r.randrange(-2**20, 2**20), a, b, scale, self.reg())]
        if k == 7:
            if r.random() < 0.5:
                return ["xchg%s %%%s, %%%s" % (suf, f(a), f(b))]
            return ["xchg%s %%%s, %s" % (suf, f(a), m)]
        if k == 8:
            suf2, f2 = r.choice(SIZES[:3])
            return ["cmov%s%s %%%s, %%%s" % (r.choice(CC), suf2, f2(a), f2(b))]
        if k == 9:
            return ["set%s %%%s" % (r.choice(CC), REGS8[a])]
        if k == 10:
            if r.random() < 0.5:
                return ["%s%s $%d, %%%s" % (r.choice(SHIFTS), suf, r.randrange(1, 8), f(a))]
            return ["%s%s %%cl, %%%s" % (r.choice(SHIFTS), suf, f(a))]
        if k == 11:
            return ["%s%s %%%s" % (r.choice(["inc", "dec", "neg", "not"]), suf, f(a))]
        if k == 12:
            return ["test%s %%%s, %%%s" % (suf, f(a), f(b))]
        if k == 13:
            return ["movzbl %s, %%%s" % (m, REGS32[a])]
        if k == 14:
            if r.random() < 0.5:
                return ["movsbq %%%s, %%%s" % (REGS8[a], b)]
            return ["movswq %%%s, %%%s" % (REGS16[a], b)]
        if k == 15:
            return ["bswap %%%s" % r.choice([a, REGS32[a]])]
        return ["movq %%%s, %%%s" % (a, b)]

    def unit(self, depth=0):
        r = self.r
        k = r.random()
        if depth == 0 and k < 0.10:
            self.label += 1
            lab = "%d" % (10 + self.label % 80)
            body = self.simple()
            cc = r.choice(CC)
            hint = ".byte 0x%02x; " % r.choice([0x2e, 0x3e]) if r.random() < 0.3 else ""
            if r.random() < 0.5:
                jump = hint + "j%s %sf" % (cc, lab)
            else:
                jump = hint + ".byte 0x0f, 0x%02x; .long %sf - . - 4" % (0x80 + CC.index(cc), lab)
            return [jump] + body + ["%s:" % lab]
        if depth == 0 and k < 0.14:
            # A jmp over a unit the jcc before it can still reach.
            self.label += 2
            lab, lab2 = "%d" % (10 + self.label % 80), "%d" % (11 + self.label % 80)
            return ["j%s %sf" % (r.choice(CC), lab2), "jmp %sf" % lab, "%s:" % lab2] + \
                self.simple() + ["%s:" % lab]
        if depth == 0 and k < 0.20:
            # objtool follows callee-saved registers through the stack:
            # a push of one popped into another would look like a
            # corrupted frame to it.
            a, b = r.choice(CALLER_SAVED), r.choice(CALLER_SAVED)
            mid = self.simple() if r.random() < 0.5 else []
            # a unit between push and pop must not touch the stack area:
            mid = [m for m in mid if "%rsp" not in m]
            return ["pushq %%%s" % a] + mid + ["popq %%%s" % b]
        if depth == 0 and k < 0.24:
            return ["call kpf_helper_%d" % self.n]
        return self.simple()

    def seq(self):
        lines = []
        for _ in range(self.r.randrange(6, 18)):
            lines += self.unit()
        return lines


def main():
    seed, count = int(sys.argv[1]), int(sys.argv[2])
    rnd = random.Random(seed)
    out = []
    w = out.append
    w("/* Generated by kp_fuzz_gen.py %d %d: do not edit. */" % (seed, count))
    w("#include <linux/linkage.h>")
    w("#include <linux/objtool.h>")
    w("#include <asm/ibt.h>")
    w("#include <asm/nospec-branch.h>")
    w("\t.section .rodata")
    w("\t.balign 8")
    w("\t.globl kpf_seed")
    w("kpf_seed:\t.quad %d" % seed)
    w("\t.globl kpf_nseqs")
    w("kpf_nseqs:\t.long %d" % count)
    w("\t.section .data")
    w("\t.balign 64")
    w("\t.globl kpf_rip_scratch")
    w("kpf_rip_scratch:\t.skip 256")
    w("\t.text")
    descs, bounds = [], []
    for n in range(count):
        g = Gen(rnd, n)
        body = g.seq()
        helper = g.simple() + (g.simple() if rnd.random() < 0.5 else [])
        helper = [h for h in helper if "%rsp" not in h]
        w("SYM_FUNC_START_LOCAL(kpf_helper_%d)" % n)
        # A call may go through a call-depth accounting thunk (retbleed=
        # stuff), whose sarq leaves flags that depend on the CPU's call
        # depth: the helper defines all six arithmetic flags first, from a
        # register the run decides, as a call may clobber them (ABI).
        w("\taddq $0, %rax")
        for h in helper:
            w("\t" + h)
        w("\tANNOTATE_UNRET_SAFE")
        w("\tret")
        w("\tint3")
        w("SYM_FUNC_END(kpf_helper_%d)" % n)
        # SYM_FUNC_START puts the ENDBR that the runner's indirect call needs.
        w("SYM_FUNC_START(kpf_seq_%d)" % n)
        first, nb = len(bounds), 0
        for line in body:
            if line.endswith(":"):
                w(line)
                continue
            w(".Lb_%d_%d:" % (n, nb))
            bounds.append(".Lb_%d_%d - kpf_seq_%d" % (n, nb, n))
            nb += 1
            w("\t" + line)
        w(".Lb_%d_%d:" % (n, nb))
        bounds.append(".Lb_%d_%d - kpf_seq_%d" % (n, nb, n))
        nb += 1
        w("\tANNOTATE_UNRET_SAFE")
        w("\tret")
        w("\tint3")
        w("SYM_FUNC_END(kpf_seq_%d)" % n)
        descs.append((n, nb, first))
    # struct kpf_desc { void *fn; u32 nbounds; u32 first; } kpf_descs[];
    w("\t.section .rodata")
    w("\t.balign 8")
    w("\t.globl kpf_descs")
    w("kpf_descs:")
    for n, nb, first in descs:
        w("\t.quad kpf_seq_%d" % n)
        w("\t.long %d, %d" % (nb, first))
    w("\t.globl kpf_bounds")
    w("kpf_bounds:")
    for b in bounds:
        w("\t.short " + b)
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
