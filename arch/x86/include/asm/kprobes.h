/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * x86 side of kprobes: the instruction and per-CPU state the breakpoint
 * path in arch/x86/kernel/kprobes/core.c keeps.  The generic interface is
 * described in <linux/kprobes.h>.
 */
#ifndef _ASM_X86_KPROBES_H
#define _ASM_X86_KPROBES_H

#include <asm-generic/kprobes.h>

#ifdef CONFIG_KPROBES

#include <linux/types.h>
#include <linux/ptrace.h>
#include <linux/percpu.h>
#include <asm/insn.h>

typedef u8 kprobe_opcode_t;

/*
 * Each out-of-line slot holds two copies of the probed instruction:
 *
 *   [0, len)                the stepped copy: run with interrupts off
 *                           while the probe stays this CPU's running one
 *   [len]                   "the copy has run", back to the core: on
 *                           64-bit a call to kprobe_step_common (no trap),
 *                           on 32-bit an int3
 *   [KPROBE_BOOST_OFFSET..] copy followed by a jmp back to the probed
 *                           function, used when nothing has to happen after
 *                           the instruction (no post_handler), saving a trap
 *                           ("boosting")
 */
#define KPROBE_INSN_SLOT_SIZE	40
#define KPROBE_BOOST_OFFSET	20

/*
 * A jump-optimization detour buffer (see arch/x86/kernel/kprobes/opt.c):
 * a data word, a call to the shared register-saving code, the copies of
 * the instructions the jump covers and a jmp back.
 */
#define KPROBE_OPTINSN_SLOT_SIZE	40
/*
 * Longest run of instructions a jump covers: 4 bytes + one instruction.
 * The core looks this far back for detours a new probe would fall into.
 */
#define KPROBE_OPT_REGION_MAX		(4 + MAX_INSN_SIZE)

/*
 * arch_unoptimize_retired() writes the original bytes over a jump with no
 * breakpoint of ours in between, so the core may leave a disabled site's
 * jump in place for later, the site staying in the table.
 */
#define KPROBE_OPT_DIRECT_UNJUMP	1

/* How the probed instruction is carried out after the pre_handlers ran. */
enum kprobe_x86_action {
	KPROBE_X86_STEP,	/* run the copy in the slot */
	KPROBE_X86_JMP,		/* jmp rel8/rel32 */
	KPROBE_X86_JCC,		/* jcc rel8/rel32 */
	KPROBE_X86_CALL,	/* call rel32 */
	KPROBE_X86_ICALL,	/* call *%reg */
	KPROBE_X86_IJMP,	/* jmp *%reg */
	KPROBE_X86_RET,		/* ret, ret imm16 */
	KPROBE_X86_LOOP,	/* loop, loope, loopne, jrcxz */
	KPROBE_X86_CLI,		/* cli */
	KPROBE_X86_PUSHF,	/* pushf */
	KPROBE_X86_POPF,	/* popf */
};

/* The verdict of the jump optimizer's checks on a site's text, kept. */
enum kprobe_opt_scan {
	KPROBE_OPT_SCAN_NONE,		/* not checked yet */
	KPROBE_OPT_SCAN_FIT,		/* the function's text allows a jump */
	KPROBE_OPT_SCAN_FIT_PATCHABLE,	/* likewise, over text others patch */
	KPROBE_OPT_SCAN_REFUSED,	/* the text rules a jump out */
};

/**
 * struct arch_specific_insn - how one probed x86 instruction is carried out
 * @slot: out-of-line slot (see KPROBE_INSN_SLOT_SIZE), NULL for emulated
 *	instructions
 * @target: branch target (jmp, jcc, call, loop)
 * @len: length of the probed instruction
 * @action: enum kprobe_x86_action
 * @cond: condition code (jcc), loop variant opcode (loop family), or
 *	offset in struct pt_regs of the target register (call/jmp *%reg)
 * @boostable: the slot's jump copy may be used when no post_handler waits
 *	(false when the instruction has an exception-table fixup)
 * @stack_adjust: extra bytes popped by "ret imm16"
 * @opt_scan: what the text allows a jump optimization of the site
 *	(enum kprobe_opt_scan, CONFIG_OPTPROBES); the arch's to keep
 * @opt_len: bytes of whole instructions a jump at the site would cover,
 *	once @opt_scan says it fits
 */
struct arch_specific_insn {
	kprobe_opcode_t *slot;
	unsigned long target;
	u8 len;
	u8 action;
	u8 cond;
	bool boostable;
	u16 stack_adjust;
	u8 opt_scan;
	u8 opt_len;
};

/**
 * struct arch_optimized_insn - the x86 part of a jump-optimization detour
 * @buf: the detour buffer (a KPROBE_OPTINSN_SLOT_SIZE slot)
 * @copy: where in @buf the copied instructions start; NULL until the
 *	detour's text is written (set with release semantics)
 * @len: bytes of whole instructions the detour runs in place of the
 *	original ones; the jump covers the first JMP32_INSN_SIZE of them
 * @orig: the original bytes under the jump
 *
 * The core's struct optimized_kprobe holds it, with the probed address in
 * its @kp.addr.
 */
struct arch_optimized_insn {
	kprobe_opcode_t *buf;
	kprobe_opcode_t *copy;
	u8 len;
	u8 orig[5];
};

/*
 * Probes hit while another probe is being handled on the same CPU (from
 * an NMI, or from the handler itself) are stepped silently; each level of
 * such nesting needs one step record.
 */
#define KPROBE_STEP_DEPTH	4

/**
 * struct kprobe_step - an instruction copy in flight on this CPU
 * @p: the probe whose instruction runs
 * @flags_if: the interrupt flag the probed code had; interrupts stay off
 *	while the copy runs so that nothing else runs on this CPU meanwhile
 * @nested: hit while another probe was running; no handlers run afterwards
 */
struct kprobe_step {
	struct kprobe *p;
	unsigned long flags_if;
	bool nested;
};

/**
 * struct kprobe_ctlblk - per-CPU state of the breakpoint path
 * @kprobe_status: KPROBE_HIT_* of the outermost probe (the name every
 *	arch uses; the core writes it in kprobe_busy_begin())
 * @depth: used entries of @step
 * @step: copies in flight, innermost last
 */
struct kprobe_ctlblk {
	unsigned int kprobe_status;
	unsigned int depth;
	struct kprobe_step step[KPROBE_STEP_DEPTH];
};

/* Entry points from arch/x86/kernel/traps.c. */
int kprobe_int3_handler(struct pt_regs *regs);
int kprobe_fault_handler(struct pt_regs *regs, int trapnr);

/*
 * Called by every jump-optimization detour's register-saving code with
 * the probed code's registers and the detour's copies (opt.c); declared
 * here for the KUnit suite, which calls it as a CPU late in a stale
 * detour would.
 */
__visible void kprobe_opt_callback(struct pt_regs *regs, kprobe_opcode_t *copy);

#if IS_ENABLED(CONFIG_KPROBES_SANITY_TEST)
/* For the KUnit suite: the int3 way out of a step (core.c). */
void kprobe_step_force_trap(bool on);
#endif

#else /* !CONFIG_KPROBES */

struct pt_regs;

/* traps.c asks unconditionally; without kprobes no fault is ours. */
static inline int kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	return 0;
}

#endif /* CONFIG_KPROBES */
#endif /* _ASM_X86_KPROBES_H */
