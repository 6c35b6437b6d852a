// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 breakpoint backend for kprobes.
 *
 * Arming replaces the first byte of the probed instruction with int3.  On a
 * hit, do_int3() calls kprobe_int3_handler(), which runs the pre_handler and
 * then carries the probed instruction out in one of three ways:
 *
 *  - emulated, for instructions whose effect depends on where they sit or
 *    that touch the interrupt flag: jmp/jcc/call rel, call/jmp *%reg,
 *    loop/jrcxz, ret, cli, pushf, popf.  The post_handler runs right away.
 *  - boosted: the CPU returns from the trap into the second copy in the
 *    instruction's slot, which ends with a jmp back to the next
 *    instruction.  Nothing of ours runs after it; used when no post_handler
 *    waits and the instruction has no exception-table entry.  Interrupts
 *    stay as they were, so a task can be preempted inside the slot: slots
 *    are recycled only after a tasks-RCU grace period (see
 *    kernel/kprobes/slots.c).
 *  - stepped: the CPU returns with interrupts off into the first copy, with
 *    the probe still this CPU's running one, so that a fault of the copy
 *    is seen as the original instruction's.  On 64-bit the copy is
 *    followed by a call to kprobe_step_common, which saves the registers
 *    and comes back here (a call costs far less than a second trap); on
 *    32-bit, Xen PV and FRED kernels by an int3 (kprobe_step_by_trap()).
 *    Either way the post_handler runs with interrupts still off, and the
 *    CPU resumes at the next instruction with the probed code's interrupt
 *    flag.  With interrupts off nothing else runs on this CPU in between
 *    except NMIs, which may hit probes themselves: those nest, see struct
 *    kprobe_ctlblk.
 *
 * Copies in slots have RIP-relative displacements rewritten.  Instruction
 * pointers stay what the probed code expects: regs->ip in a pre_handler is
 * the probed address + 1 (just past the int3), in a post_handler the address
 * of the next instruction.
 *
 * Refused (-EOPNOTSUPP), because they can be neither run elsewhere nor
 * emulated safely here:
 *  - int3, int n, into, int1, iret, far jmp/call/ret, syscall/sysret,
 *    sysenter/sysexit: they leave or re-enter the kernel's control flow;
 *  - indirect jmp/call through memory (ff /2, ff /4 with a memory operand)
 *    and far indirect ones (ff /3, ff /5): the target would need operand
 *    evaluation; register-indirect ones (what retpoline patching leaves
 *    behind when retpolines are not needed) are emulated;
 *  - sti, mov to %ss, pop %ss: their one-instruction interrupt shadow cannot
 *    be reproduced; hlt, mwait: would wait with interrupts off;
 *  - ud0/ud1/ud2: BUG()/WARN() traps keyed on their own address;
 *  - xbegin (relative abort address), VMX/SVM entry/exit and swapgs;
 *  - endbr: replacing it would make indirect branches to it fault;
 *  - pushf/popf with a 16-bit operand, loop/jrcxz with a 32-bit address
 *    size, and RIP-relative operands whose slot copy would be out of reach.
 * An address that is not the start of an instruction, found by decoding
 * the function from its start, gives -EILSEQ.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/kgdb.h>
#include <linux/cfi.h>
#include <linux/extable.h>
#include <linux/memory.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/execmem.h>
#include <linux/set_memory.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/objtool.h>
#include <kunit/visibility.h>

#include <asm/alternative.h>
#include <asm/orc_types.h>
#include <asm/text-patching.h>
#include <asm/insn.h>
#include <asm/ibt.h>
#include <asm/traps.h>
#include <asm/sections.h>
#include <asm/extable.h>

#include "common.h"

DEFINE_PER_CPU(struct kprobe *, current_kprobe);
/* kprobe_running() is inline: modules read the variable itself. */
EXPORT_PER_CPU_SYMBOL_GPL(current_kprobe);
DEFINE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);

/* Flags a popf may change at CPL 0. */
#define KPROBE_POPF_MASK						\
	(X86_EFLAGS_CF | X86_EFLAGS_PF | X86_EFLAGS_AF | X86_EFLAGS_ZF |	\
	 X86_EFLAGS_SF | X86_EFLAGS_TF | X86_EFLAGS_IF | X86_EFLAGS_DF |	\
	 X86_EFLAGS_OF | X86_EFLAGS_IOPL | X86_EFLAGS_NT | X86_EFLAGS_AC |	\
	 X86_EFLAGS_ID)

/* ---------------------------------------------------------------------- */
/* Reading text under our own breakpoints                                 */
/* ---------------------------------------------------------------------- */

/*
 * An optimized site's jump replaced JMP32_INSN_SIZE bytes: put the original
 * ones back into the copy @buf of the text at @addr.
 */
static void kprobe_unjump_text(u8 *buf, unsigned long addr, size_t len)
{
	struct optimized_kprobe *op;
	unsigned long a, from, to;
	struct kprobe *p;

	for (a = addr - (JMP32_INSN_SIZE - 1); a < addr + len; a++) {
		p = get_kprobe((void *)a);
		if (!p || !kprobe_optimized(p) || !p->opt)
			continue;
		op = p->opt;
		from = max(a, addr);
		to = min(a + JMP32_INSN_SIZE, addr + len);
		memcpy(buf + (from - addr), op->optinsn.orig + (from - a),
		       to - from);
	}
}

/*
 * Copy up to @len bytes of text at @addr as they would be without any
 * kprobe breakpoint or optimization jump; the copy stops early where the
 * text does (end of the last mapped page).  Called with kprobe_mutex held,
 * so the table is stable, and text_mutex, so no other text patching is
 * half done.  Returns the number of bytes copied, or -EFAULT.
 */
int kprobe_read_text(u8 *buf, unsigned long addr, size_t len)
{
	size_t head = min_t(size_t, len, PAGE_SIZE - offset_in_page(addr));
	struct kprobe *p;
	size_t i;

	if (copy_from_kernel_nofault(buf, (void *)addr, head))
		return -EFAULT;
	if (head < len &&
	    !copy_from_kernel_nofault(buf + head, (void *)(addr + head),
				      len - head))
		head = len;
	len = head;
	for (i = 0; i < len; i++) {
		if (buf[i] != INT3_INSN_OPCODE)
			continue;
		p = get_kprobe((void *)(addr + i));
		if (p)
			buf[i] = p->opcode;
	}
	if (IS_ENABLED(CONFIG_OPTPROBES))
		kprobe_unjump_text(buf, addr, len);
	return len;
}

int kprobe_decode_at(struct insn *insn, u8 *buf, unsigned long addr)
{
	int len = kprobe_read_text(buf, addr, MAX_INSN_SIZE);

	if (len < 0)
		return len;
	if (insn_decode(insn, buf, len, INSN_MODE_KERN) < 0 || !insn->length)
		return -EILSEQ;
	return 0;
}

/*
 * An int3 that is not ours reads as a one-byte instruction, as the
 * compiler's padding after a ret is one; but a kgdb breakpoint hides the
 * first byte of a longer instruction, and a walk would go astray behind it.
 */
static bool kprobe_kgdb_breakpoint(const u8 *buf, unsigned long addr)
{
#ifdef CONFIG_KGDB
	return buf[0] == INT3_INSN_OPCODE && kgdb_has_hit_break(addr);
#else
	return false;
#endif
}

/* Is @addr where an instruction of its function starts? */
static int kprobe_check_boundary(unsigned long addr)
{
	unsigned long size, offset, pos;
	u8 buf[MAX_INSN_SIZE];
	struct insn insn;
	int ret;

	if (!kallsyms_lookup_size_offset(addr, &size, &offset))
		return -EILSEQ;

	for (pos = addr - offset; pos < addr; pos += insn.length) {
		ret = kprobe_decode_at(&insn, buf, pos);
		if (ret)
			return ret == -EFAULT ? -EINVAL : ret;
		if (kprobe_kgdb_breakpoint(buf, pos))
			return -EILSEQ;
	}
	return pos == addr ? 0 : -EILSEQ;
}

/* ---------------------------------------------------------------------- */
/* Classifying the probed instruction                                     */
/* ---------------------------------------------------------------------- */

static int kprobe_classify_0f(struct insn *insn, struct arch_specific_insn *ai,
			      unsigned long next)
{
	u8 op2 = insn->opcode.bytes[1];
	u8 modrm = insn->modrm.bytes[0];

	if (op2 >= 0x80 && op2 <= 0x8f) {		/* jcc rel32 */
		ai->action = KPROBE_X86_JCC;
		ai->cond = op2 & 0xf;
		ai->target = next + insn->immediate.value;
		return 0;
	}
	switch (op2) {
	case 0x05: case 0x07:				/* syscall, sysret */
	case 0x34: case 0x35:				/* sysenter, sysexit */
	case 0x0b: case 0xb9: case 0xff:		/* ud2, ud1, ud0 */
	case 0xa1: case 0xa9:				/* pop %fs, pop %gs */
	case 0xaa:					/* rsm */
		return -EOPNOTSUPP;
	case 0x01:
		/* vmcall..vmxoff, monitor/mwait, svm, swapgs, mwaitx */
		if ((modrm >= 0xc0 && modrm <= 0xc4) || modrm == 0xc9 ||
		    (modrm >= 0xd8 && modrm <= 0xdf) || modrm == 0xf8 ||
		    modrm == 0xfb)
			return -EOPNOTSUPP;
		break;
	}
	return 0;
}

/* pt_regs slots of the general purpose registers, in encoding order. */
static const u8 kprobe_gpr_offset[] = {
	offsetof(struct pt_regs, ax), offsetof(struct pt_regs, cx),
	offsetof(struct pt_regs, dx), offsetof(struct pt_regs, bx),
	offsetof(struct pt_regs, sp), offsetof(struct pt_regs, bp),
	offsetof(struct pt_regs, si), offsetof(struct pt_regs, di),
#ifdef CONFIG_X86_64
	offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
	offsetof(struct pt_regs, r10), offsetof(struct pt_regs, r11),
	offsetof(struct pt_regs, r12), offsetof(struct pt_regs, r13),
	offsetof(struct pt_regs, r14), offsetof(struct pt_regs, r15),
#endif
};

/* call *%reg / jmp *%reg: emulated; through memory: refused. */
static int kprobe_classify_indirect(struct insn *insn,
				    struct arch_specific_insn *ai, bool call)
{
	u8 modrm = insn->modrm.bytes[0];
	unsigned int regno;

	if (X86_MODRM_MOD(modrm) != 3 || insn->opnd_bytes != sizeof(long) ||
	    insn_is_rex2(insn))
		return -EOPNOTSUPP;
	regno = X86_MODRM_RM(modrm);
	if (insn->rex_prefix.nbytes && X86_REX_B(insn->rex_prefix.bytes[0]))
		regno += 8;
	ai->action = call ? KPROBE_X86_ICALL : KPROBE_X86_IJMP;
	ai->cond = kprobe_gpr_offset[regno];
	return 0;
}

/*
 * clang's kCFI checks an indirect call with
 *	movl $-hash, %r10d; addl -N(%target), %r10d; je 1f; ud2; 1:
 * and the CFI trap handler reads the movl and addl back from the ud2 to
 * report the types that did not match: they keep their bytes.  The ud2 is
 * 12 bytes after the movl (6 + 4 + 2) and 6 after the addl.
 */
static bool kprobe_in_cfi_check(struct insn *insn, unsigned long addr)
{
	if (!IS_ENABLED(CONFIG_CFI_CLANG))
		return false;
	switch (insn->opcode.bytes[0]) {
	case 0xba:	/* movl $imm32, %edx or %r10d */
		return is_cfi_trap(addr + 12);
	case 0x03:	/* addl r/m32, r32 */
		return is_cfi_trap(addr + 6);
	}
	return false;
}

/*
 * pushf/popf move 8 bytes in 64-bit mode, unless a 0x66 prefix makes them
 * move 2; the decoder reports 8 for both (the default operand size of
 * these is 64 bits), so the prefix is looked for here.  With REX.W as
 * well the move is 8 bytes again; refusing that too is merely strict.
 */
static bool kprobe_short_stack_operand(struct insn *insn)
{
	insn_byte_t prefix;
	int i;

	if (!IS_ENABLED(CONFIG_X86_64))
		return insn->opnd_bytes != sizeof(long);
	for_each_insn_prefix(insn, i, prefix) {
		if (prefix == 0x66)
			return true;
	}
	return false;
}

/*
 * Decide how the instruction in @insn (at @addr) is carried out, filling
 * in @ai.  Returns -EOPNOTSUPP for the refused ones listed at the top.
 */
int kprobe_classify(struct insn *insn, struct arch_specific_insn *ai,
		    unsigned long addr)
{
	unsigned long next = addr + insn->length;
	u8 op = insn->opcode.bytes[0];
	u8 reg = X86_MODRM_REG(insn->modrm.bytes[0]);

	ai->action = KPROBE_X86_STEP;
	if (insn_has_emulate_prefix(insn) || kprobe_in_cfi_check(insn, addr))
		return -EOPNOTSUPP;
	/* endbr64 (f3 0f 1e fa), whatever the IBT config says */
	if (op == 0x0f && insn->opcode.bytes[1] == 0x1e &&
	    insn->modrm.bytes[0] == 0xfa)
		return -EOPNOTSUPP;

	switch (op) {
	case 0x0f:
		return kprobe_classify_0f(insn, ai, next);
	case 0x70 ... 0x7f:				/* jcc rel8 */
		ai->action = KPROBE_X86_JCC;
		ai->cond = op & 0xf;
		ai->target = next + insn->immediate.value;
		return 0;
	case 0xe0 ... 0xe3:				/* loopne, loope, loop, jrcxz */
		if (insn->addr_bytes != 8)
			return -EOPNOTSUPP;
		ai->action = KPROBE_X86_LOOP;
		ai->cond = op;
		ai->target = next + insn->immediate.value;
		return 0;
	case 0xe8:					/* call rel32 */
		ai->action = KPROBE_X86_CALL;
		ai->target = next + insn->immediate.value;
		return 0;
	case 0xe9: case 0xeb:				/* jmp rel32, rel8 */
		ai->action = KPROBE_X86_JMP;
		ai->target = next + insn->immediate.value;
		return 0;
	case 0xc2:					/* ret imm16 */
		ai->action = KPROBE_X86_RET;
		ai->stack_adjust = insn->immediate.value;
		return 0;
	case 0xc3:					/* ret */
		ai->action = KPROBE_X86_RET;
		return 0;
	case 0xfa:					/* cli */
		ai->action = KPROBE_X86_CLI;
		return 0;
	case 0x9c:					/* pushf */
	case 0x9d:					/* popf */
		if (kprobe_short_stack_operand(insn))
			return -EOPNOTSUPP;
		ai->action = op == 0x9c ? KPROBE_X86_PUSHF : KPROBE_X86_POPF;
		return 0;
	case 0xcc: case 0xcd: case 0xce: case 0xf1:	/* int3, int, into, int1 */
	case 0xcf:					/* iret */
	case 0xca: case 0xcb:				/* lret */
	case 0x9a: case 0xea:				/* far call/jmp */
	case 0xfb:					/* sti */
	case 0xf4:					/* hlt */
	case 0x8e:					/* mov to segment register */
	case 0x07: case 0x17: case 0x1f:		/* pop %es, %ss, %ds */
		return -EOPNOTSUPP;
	case 0xc7:					/* xbegin */
		if (insn->modrm.bytes[0] == 0xf8)
			return -EOPNOTSUPP;
		return 0;
	case 0xff:					/* indirect call/jmp, far */
		if (reg == 2 || reg == 4)
			return kprobe_classify_indirect(insn, ai, reg == 2);
		if (reg == 3 || reg == 5)
			return -EOPNOTSUPP;
		return 0;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Preparing the slot                                                     */
/* ---------------------------------------------------------------------- */

/* Rewrite a RIP-relative displacement for a copy placed at @copy_addr. */
int kprobe_fix_riprel(struct insn *insn, u8 *copy, unsigned long addr,
		      unsigned long copy_addr)
{
	unsigned int off;
	s64 disp;
	s32 d32;

	if (!insn_rip_relative(insn))
		return 0;
	disp = (s64)insn->displacement.value + (s64)addr - (s64)copy_addr;
	if (disp != (s32)disp)
		return -EOPNOTSUPP;
	d32 = disp;
	off = insn_offset_displacement(insn);
	memcpy(copy + off, &d32, sizeof(d32));
	return 0;
}

#if IS_ENABLED(CONFIG_KPROBES_SANITY_TEST)
static bool kprobe_step_trap_forced;

/**
 * kprobe_step_force_trap() - end the copies of new probes with an int3
 * @on: whether to
 *
 * For the KUnit suite, which runs the Xen PV and FRED way out of a step
 * on native hardware.  Probes prepared meanwhile keep their int3.
 */
void kprobe_step_force_trap(bool on)
{
	WRITE_ONCE(kprobe_step_trap_forced, on);
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_step_force_trap);

static bool kprobe_step_trap_is_forced(void)
{
	return READ_ONCE(kprobe_step_trap_forced);
}
#else
static bool kprobe_step_trap_is_forced(void)
{
	return false;
}
#endif

/*
 * Does a stepped copy end in an int3 rather than a call to
 * kprobe_step_common?  Always on 32-bit.  On 64-bit, where the kernel
 * must leave a trap through its own exit code: a Xen PV kernel runs
 * outside ring 0 and returns through the hypervisor (a native iretq to
 * __KERNEL_CS would fault, and could not unmask its event channel), and
 * a FRED kernel returns from events with ERETS, whose NMI and stack-level
 * bookkeeping an iretq of ours would bypass.
 */
static bool kprobe_step_by_trap(void)
{
	return IS_ENABLED(CONFIG_X86_32) ||
	       cpu_feature_enabled(X86_FEATURE_XENPV) ||
	       cpu_feature_enabled(X86_FEATURE_FRED) ||
	       kprobe_step_trap_is_forced();
}

/*
 * Write the way out of a stepped copy at @at, to run at @where: a call
 * to kprobe_step_common (slots sit in the module area, within a rel32 of
 * kernel text), or the int3 the slot is filled with.
 */
static int kprobe_step_exit(u8 *at, unsigned long where)
{
	s64 rel;
	s32 rel32;

	/* Spelt out for 32-bit, where kprobe_step_common does not exist. */
	if (IS_ENABLED(CONFIG_X86_32) || kprobe_step_by_trap())
		return 0;
	rel = (s64)(unsigned long)kprobe_step_common -
	      (s64)(where + CALL_INSN_SIZE);
	rel32 = rel;
	if (rel != rel32)
		return -EOPNOTSUPP;
	at[0] = CALL_INSN_OPCODE;
	memcpy(at + 1, &rel32, sizeof(rel32));
	return 0;
}

/* Write the stepped and the boosted copy of @insn into @p's slot. */
static int kprobe_fill_slot(struct kprobe *p, struct insn *insn, const u8 *orig)
{
	struct arch_specific_insn *ai = &p->ainsn;
	unsigned long addr = (unsigned long)p->addr;
	unsigned long slot = (unsigned long)ai->slot;
	unsigned long boost = slot + KPROBE_BOOST_OFFSET;
	u8 image[KPROBE_INSN_SLOT_SIZE];
	s32 rel32;
	u8 *jmp;
	s64 rel;
	int ret;

	BUILD_BUG_ON(MAX_INSN_SIZE + CALL_INSN_SIZE > KPROBE_BOOST_OFFSET);
	BUILD_BUG_ON(KPROBE_BOOST_OFFSET + MAX_INSN_SIZE + JMP32_INSN_SIZE >
		     KPROBE_INSN_SLOT_SIZE);
	memset(image, INT3_INSN_OPCODE, sizeof(image));

	memcpy(image, orig, insn->length);
	ret = kprobe_fix_riprel(insn, image, addr, slot);
	if (ret)
		return ret;
	ret = kprobe_step_exit(image + insn->length, slot + insn->length);
	if (ret)
		return ret;

	/*
	 * The jump copy is always written: nested hits fall back to it when
	 * no step record is free.  Slots sit in the module area, within a
	 * rel32 of all kernel and module text.
	 */
	memcpy(image + KPROBE_BOOST_OFFSET, orig, insn->length);
	ret = kprobe_fix_riprel(insn, image + KPROBE_BOOST_OFFSET, addr, boost);
	if (ret)
		return ret;
	jmp = image + KPROBE_BOOST_OFFSET + insn->length;
	rel = (s64)(addr + insn->length) -
	      (s64)(boost + insn->length + JMP32_INSN_SIZE);
	if (rel != (s32)rel)
		return -EOPNOTSUPP;
	rel32 = rel;
	jmp[0] = JMP32_INSN_OPCODE;
	memcpy(jmp + 1, &rel32, sizeof(rel32));

	/*
	 * A fault must be fixed up at the original address: only the
	 * stepped copy, run while the probe is marked running, gets that.
	 */
	ai->boostable = !search_exception_tables(addr);

	text_poke_copy_locked(ai->slot, image, sizeof(image), false);
	/* A decoder of Intel PT traces must know what runs there now. */
	perf_event_text_poke(ai->slot, NULL, 0, image, sizeof(image));
	return 0;
}

/**
 * arch_prepare_kprobe() - check and set up the instruction at @p->addr
 * @p: the probe, with @p->addr resolved
 *
 * Context: kprobe_mutex and text_mutex held; may sleep.
 * Return: 0, -EILSEQ (not an instruction boundary), -EOPNOTSUPP (an
 * instruction we refuse), -EINVAL (unreadable text) or -ENOMEM.
 */
int arch_prepare_kprobe(struct kprobe *p)
{
	unsigned long addr = (unsigned long)p->addr;
	struct arch_specific_insn ai = { };
	u8 buf[MAX_INSN_SIZE];
	struct insn insn;
	int ret;

	lockdep_assert_held(&text_mutex);
	ret = kprobe_check_boundary(addr);
	/*
	 * A lock prefix that alternatives may still rewrite (a kernel booted
	 * on one CPU, more to come): a copy of it would keep the old prefix.
	 */
	if (!ret && alternatives_text_reserved(p->addr, p->addr))
		ret = -EINVAL;
	if (!ret)
		ret = kprobe_decode_at(&insn, buf, addr);
	if (ret)
		return ret == -EFAULT ? -EINVAL : ret;
	ret = kprobe_classify(&insn, &ai, addr);
	if (ret)
		return ret;

	ai.len = insn.length;
	p->opcode = buf[0];
	p->ainsn = ai;
	if (ai.action != KPROBE_X86_STEP)
		return 0;

	p->ainsn.slot = get_insn_slot();
	if (!p->ainsn.slot)
		return -ENOMEM;
	ret = kprobe_fill_slot(p, &insn, buf);
	if (ret) {
		free_insn_slot(p->ainsn.slot, 0);
		p->ainsn.slot = NULL;
	}
	return ret;
}

/*
 * Write one byte of live text and make every CPU see it.  The core holds
 * text_mutex around arch_arm_kprobe() and arch_disarm_kprobe().
 */
static void kprobe_poke_byte(kprobe_opcode_t *addr, u8 new)
{
	u8 old = *addr;

	lockdep_assert_held(&text_mutex);
	text_poke(addr, &new, 1);
	text_poke_sync();
	perf_event_text_poke(addr, &old, 1, &new, 1);
}

/**
 * arch_arm_kprobe() - write @p's breakpoint
 * @p: a prepared breakpoint site
 *
 * Context: kprobe_mutex, cpus_read_lock() and text_mutex held.
 */
void arch_arm_kprobe(struct kprobe *p)
{
	kprobe_poke_byte(p->addr, INT3_INSN_OPCODE);
}

/**
 * arch_disarm_kprobe() - put back the byte @p's breakpoint replaced
 * @p: an armed site
 *
 * On return no CPU can take a new trap on it; a CPU that already trapped
 * finds no probe and retries the instruction (see kprobe_int3_handler()).
 * Context: kprobe_mutex held.
 */
void arch_disarm_kprobe(struct kprobe *p)
{
	kprobe_poke_byte(p->addr, p->opcode);
}

/**
 * arch_disarm_kprobes() - put back the bytes of several breakpoints
 * @sites: armed sites
 * @n: how many
 *
 * Each byte is written on its own, all CPUs are synchronised once.  Until
 * then a CPU may still trap on one of them; as for arch_disarm_kprobe(),
 * it finds the original byte back in memory and retries the instruction.
 * Context: kprobe_mutex, cpus_read_lock() and text_mutex held.
 */
void arch_disarm_kprobes(struct kprobe **sites, unsigned int n)
{
	u8 int3 = INT3_INSN_OPCODE;
	unsigned int i;

	lockdep_assert_held(&text_mutex);
	if (!n)
		return;
	for (i = 0; i < n; i++)
		text_poke(sites[i]->addr, &sites[i]->opcode, 1);
	text_poke_sync();
	for (i = 0; i < n; i++)
		perf_event_text_poke(sites[i]->addr, &int3, 1,
				     &sites[i]->opcode, 1);
}

/**
 * arch_remove_kprobe() - release @p's slot
 * @p: an unhashed site
 *
 * Context: kprobe_mutex held, after a grace period.
 */
void arch_remove_kprobe(struct kprobe *p)
{
	if (!p->ainsn.slot)
		return;
	perf_event_text_poke(p->ainsn.slot, p->ainsn.slot,
			     KPROBE_INSN_SLOT_SIZE, NULL, 0);
	free_insn_slot(p->ainsn.slot, 1);
	p->ainsn.slot = NULL;
}

/**
 * arch_alloc_insn_pages() - executable memory for a chunk of slots
 * @npages: how many pages
 *
 * One attribute change (and TLB flush) covers the whole chunk.
 * Return: the pages, filled with int3 and mapped read-only executable.
 */
void *arch_alloc_insn_pages(unsigned int npages)
{
	void *pages;

	pages = execmem_alloc(EXECMEM_KPROBES, npages * PAGE_SIZE);
	if (!pages)
		return NULL;
	memset(pages, INT3_INSN_OPCODE, npages * PAGE_SIZE);
	if (set_memory_rox((unsigned long)pages, npages)) {
		execmem_free(pages);
		return NULL;
	}
	return pages;
}

/**
 * alloc_insn_page() - one page of slots, as arch_alloc_insn_pages() makes them
 *
 * Return: the page, or NULL.
 */
void *alloc_insn_page(void)
{
	return arch_alloc_insn_pages(1);
}

/**
 * arch_adjust_kprobe_addr() - where a probe at @addr + @offset really goes
 * @addr: a function start
 * @offset: offset into it
 * @on_func_entry: returns whether that is still the function's entry
 *
 * With IBT, a function that can be called indirectly starts with ENDBR, and
 * a breakpoint on it would make indirect calls fault: a probe at offset 0
 * moves past it, and offsets 0 and ENDBR_INSN_SIZE both count as the entry.
 *
 * Return: the address the probe goes to.
 */
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset,
					 bool *on_func_entry)
{
	u32 first = 0;

	if (HAS_KERNEL_IBT &&
	    !copy_from_kernel_nofault(&first, (void *)addr, sizeof(first)) &&
	    is_endbr(first)) {
		*on_func_entry = !offset || offset == ENDBR_INSN_SIZE;
		if (!offset)
			offset = ENDBR_INSN_SIZE;
	} else {
		*on_func_entry = !offset;
	}
	return (kprobe_opcode_t *)(addr + offset);
}

/* ---------------------------------------------------------------------- */
/* Blacklist                                                              */
/* ---------------------------------------------------------------------- */

/*
 * Code on the way into and out of the breakpoint path that is not marked
 * NOKPROBE_SYMBOL(): every return in the kernel goes through the return
 * thunk, every indirect call through a retpoline thunk.  The indirect
 * thunks are arrays of one per register, each under a symbol of its own:
 * those are blacklisted from the array's first thunk to the end of its
 * last (@last).
 */
#ifdef CONFIG_X86_64
#define KPROBE_X86_LAST_GPR	"r15"
#else
#define KPROBE_X86_LAST_GPR	"edi"
#endif

static const struct {
	const char *name;
	const char *last;
} kprobe_x86_thunks[] = {
	{ "__x86_return_thunk" },
	{ "__x86_indirect_thunk_array",
	  "__x86_indirect_thunk_" KPROBE_X86_LAST_GPR },
	{ "__x86_indirect_call_thunk_array",
	  "__x86_indirect_call_thunk_" KPROBE_X86_LAST_GPR },
	{ "__x86_indirect_jump_thunk_array",
	  "__x86_indirect_jump_thunk_" KPROBE_X86_LAST_GPR },
	{ "__x86_indirect_its_thunk_array",
	  "__x86_indirect_its_thunk_" KPROBE_X86_LAST_GPR },
	{ "its_return_thunk" },
	{ "retbleed_return_thunk" },
	{ "retbleed_untrain_ret" },
	{ "srso_return_thunk" },
	{ "srso_untrain_ret" },
	{ "srso_alias_return_thunk" },
	{ "srso_alias_untrain_ret" },
	{ "srso_alias_safe_ret" },
	{ "srso_safe_ret" },
	{ "call_depth_return_thunk" },
	{ "entry_untrain_ret" },
};

/* Blacklist one entry of kprobe_x86_thunks[], if this kernel has it. */
static int __init kprobe_blacklist_thunk(unsigned int i)
{
	unsigned long first, last, size, offset;
	int ret;

	first = kallsyms_lookup_name(kprobe_x86_thunks[i].name);
	if (!first)
		return 0;
	last = kprobe_x86_thunks[i].last ?
	       kallsyms_lookup_name(kprobe_x86_thunks[i].last) : 0;
	if (last > first && kallsyms_lookup_size_offset(last, &size, &offset))
		return kprobe_add_area_blacklist(first, last - offset + size);
	/* Only a shortage of memory matters: the thunk is there. */
	ret = kprobe_add_ksym_blacklist(first);
	return ret == -ENOMEM ? ret : 0;
}

int __init arch_populate_kprobe_blacklist(void)
{
	unsigned int i;
	int ret;

	ret = kprobe_add_area_blacklist((unsigned long)__entry_text_start,
					(unsigned long)__entry_text_end);
	for (i = 0; !ret && i < ARRAY_SIZE(kprobe_x86_thunks); i++)
		ret = kprobe_blacklist_thunk(i);
	return ret;
}

/**
 * arch_within_kprobe_blacklist() - x86 text no probe may go to
 * @addr: a text address
 *
 * Return: true if @addr is in the entry text.
 */
bool arch_within_kprobe_blacklist(unsigned long addr)
{
	return addr >= (unsigned long)__entry_text_start &&
	       addr < (unsigned long)__entry_text_end;
}

/**
 * arch_kretprobe_blacklisted() - functions that take no kretprobe
 * @func: a function entry
 *
 * __switch_to() returns on another task's stack.
 *
 * Return: true if @func may not have a kretprobe.
 */
bool arch_kretprobe_blacklisted(unsigned long func)
{
	unsigned long size, offset;
	char name[KSYM_NAME_LEN];

	if (!kallsyms_lookup(func, &size, &offset, NULL, name))
		return false;
	return !strcmp(name, "__switch_to");
}

/* ---------------------------------------------------------------------- */
/* The breakpoint path                                                    */
/* ---------------------------------------------------------------------- */

/* Carry out an emulated instruction on @regs (regs->ip is the probe + 1). */
static void kprobe_emulate(struct kprobe *p, struct pt_regs *regs)
{
	struct arch_specific_insn *ai = &p->ainsn;
	unsigned long next = (unsigned long)p->addr + ai->len;
	unsigned long val;
	bool taken;

	switch (ai->action) {
	case KPROBE_X86_JMP:
		int3_emulate_jmp(regs, ai->target);
		break;
	case KPROBE_X86_JCC:
		int3_emulate_jcc(regs, ai->cond, next, ai->target - next);
		break;
	case KPROBE_X86_CALL:
		int3_emulate_push(regs, next);
		int3_emulate_jmp(regs, ai->target);
		break;
	case KPROBE_X86_ICALL:
		val = *(unsigned long *)((void *)regs + ai->cond);
		int3_emulate_push(regs, next);
		int3_emulate_jmp(regs, val);
		break;
	case KPROBE_X86_IJMP:
		int3_emulate_jmp(regs, *(unsigned long *)((void *)regs + ai->cond));
		break;
	case KPROBE_X86_RET:
		val = int3_emulate_pop(regs);
		regs->sp += ai->stack_adjust;
		int3_emulate_jmp(regs, val);
		break;
	case KPROBE_X86_LOOP:
		if (ai->cond == 0xe3) {			/* jrcxz */
			taken = !regs->cx;
		} else {
			regs->cx--;
			taken = regs->cx != 0;
			if (ai->cond == 0xe1)		/* loope */
				taken &= !!(regs->flags & X86_EFLAGS_ZF);
			else if (ai->cond == 0xe0)	/* loopne */
				taken &= !(regs->flags & X86_EFLAGS_ZF);
		}
		int3_emulate_jmp(regs, taken ? ai->target : next);
		break;
	case KPROBE_X86_CLI:
		regs->flags &= ~X86_EFLAGS_IF;
		int3_emulate_jmp(regs, next);
		break;
	case KPROBE_X86_PUSHF:
		int3_emulate_push(regs, regs->flags & ~(X86_EFLAGS_RF | X86_EFLAGS_VM));
		int3_emulate_jmp(regs, next);
		break;
	case KPROBE_X86_POPF:
		val = int3_emulate_pop(regs);
		regs->flags = (regs->flags & ~KPROBE_POPF_MASK) |
			      (val & KPROBE_POPF_MASK);
		int3_emulate_jmp(regs, next);
		break;
	}
}

NOKPROBE_SYMBOL(kprobe_emulate);

/*
 * Carry out @p's instruction after its pre_handler (or, when @nested, after
 * counting it missed).  On return regs say where the CPU goes next.
 */
static void kprobe_carry_out(struct kprobe *p, struct pt_regs *regs,
			     struct kprobe_ctlblk *kcb, bool nested)
{
	struct arch_specific_insn *ai = &p->ainsn;
	struct optimized_kprobe *op;
	kprobe_opcode_t *copy;
	struct kprobe_step *step;

	/*
	 * A site with a detour runs the detour's copy of the instructions
	 * the jump will cover, emulated ones included (the copy carries them
	 * out as ordinary code): that is what keeps tasks out of the bytes
	 * the optimizer is about to replace.  Such sites have no post_handler.
	 */
	op = kprobe_site_detour(p);
	/* The copy is published after the detour's text is written. */
	copy = op ? smp_load_acquire(&op->optinsn.copy) : NULL;
	if (copy) {
		regs->ip = (unsigned long)copy;
		if (!nested)
			reset_current_kprobe();
		return;
	}

	if (ai->action != KPROBE_X86_STEP) {
		kprobe_emulate(p, regs);
		if (!nested)
			__kprobe_run_post(p, regs);
		return;
	}

	if (ai->boostable && (nested || !READ_ONCE(p->post_handler))) {
		regs->ip = (unsigned long)ai->slot + KPROBE_BOOST_OFFSET;
		if (!nested)
			reset_current_kprobe();
		return;
	}

	/*
	 * Deeper nesting needs an NMI inside a handler inside a step inside
	 * a handler.  Without a free record, run the jump copy: a fault in
	 * it would go unfixed, and a post_handler does not run.
	 */
	if (WARN_ON_ONCE(kcb->depth >= KPROBE_STEP_DEPTH)) {
		regs->ip = (unsigned long)ai->slot + KPROBE_BOOST_OFFSET;
		if (!nested)
			reset_current_kprobe();
		return;
	}

	/*
	 * An NMI may come in anywhere here, push records of its own above
	 * depth and pop them before it returns.  Every free entry has no
	 * probe (a pop clears it; the entry is cleared again here in case
	 * the array was never used), and @p is set last, so that an NMI
	 * finds the innermost record either complete or without a probe,
	 * never half written or stale (see kprobe_step_innermost()).
	 */
	step = &kcb->step[kcb->depth];
	WRITE_ONCE(step->p, NULL);
	barrier();
	kcb->depth++;
	barrier();
	step->flags_if = regs->flags & X86_EFLAGS_IF;
	step->nested = nested;
	barrier();
	WRITE_ONCE(step->p, p);
	if (!nested)
		kcb->kprobe_status = KPROBE_HIT_SS;
	regs->flags &= ~X86_EFLAGS_IF;
	regs->ip = (unsigned long)ai->slot;
}

NOKPROBE_SYMBOL(kprobe_carry_out);

/*
 * The probe whose copy the innermost record is for, or NULL: no record,
 * or one that kprobe_carry_out() is still filling in, when this CPU was
 * interrupted by an NMI (whose code this then is) before its copy ran.
 */
static nokprobe_inline struct kprobe *
kprobe_step_innermost(struct kprobe_ctlblk *kcb)
{
	return kcb->depth ? READ_ONCE(kcb->step[kcb->depth - 1].p) : NULL;
}

/*
 * Pop the innermost record and return what it held.  It is read, then
 * emptied (a free entry has no probe: see kprobe_carry_out()), then
 * popped: an NMI may take the entry for a step of its own once it is free.
 */
static nokprobe_inline struct kprobe_step
kprobe_step_pop(struct kprobe_ctlblk *kcb)
{
	struct kprobe_step *top = &kcb->step[kcb->depth - 1];
	struct kprobe_step step = *top;

	WRITE_ONCE(top->p, NULL);
	barrier();
	kcb->depth--;
	return step;
}

/*
 * The innermost step's copy has run: pop its record and finish the hit
 * as the probed instruction would have, at the next instruction with the
 * probed code's interrupt flag.
 */
static void kprobe_step_finish(struct pt_regs *regs, struct kprobe_ctlblk *kcb)
{
	struct kprobe_step step = kprobe_step_pop(kcb);

	regs->ip = (unsigned long)step.p->addr + step.p->ainsn.len;
	regs->flags |= step.flags_if;
	if (!step.nested)
		__kprobe_run_post(step.p, regs);
}

NOKPROBE_SYMBOL(kprobe_step_finish);

#ifdef CONFIG_X86_64
/*
 * Entered by the call behind a stepped copy (see kprobe_step_exit()),
 * with interrupts still off and the probe still this CPU's running one:
 * the end of a step costs a call and an iretq instead of a second trap.
 *
 * The C side runs with the flags a trap handler would have: the probed
 * instruction may be a user access between stac and clac, and neither
 * that AC nor a DF or TF of the probed code is for our code.  Loading
 * clean flags also keeps objtool's view of AC and DF right.
 *
 * The way back is an iretq from the tail of the pt_regs, which is an
 * iret frame (ip, cs, flags, sp, ss): the next instruction, the stack
 * pointer (a post_handler may have changed either) and the probed code's
 * interrupt flag all come back in one step.  A popfq and a ret would let
 * an interrupt in while the next instruction's address still sat on the
 * stack as a return address, where an unwinder would take it for a call
 * site and describe the frame as it was before the probed instruction.
 *
 * Once complete, the pt_regs is described to objtool as a register frame,
 * as in kprobe_opt_common(); its ip points into the slot until the
 * callback sets the real one.  objtool reads an iretq in a function as
 * an addition to the stack pointer, after which the next instruction
 * runs: what follows the iretq only closes the function for objtool and
 * never runs.  Only the call behind a copy reaches this, hence no ENDBR.
 */
static_assert(X86_EFLAGS_FIXED == 2);

asm("	.pushsection .text, \"ax\"\n"
	"	.type kprobe_step_common, @function\n"
	"kprobe_step_common:\n"
	ANNOTATE_NOENDBR
	KPROBE_CALLED_SAVE
	"	movq " __stringify(KPROBE_CALLED_RET) "(%rsp), %rax\n"
	"	movq %rax, " __stringify(KPROBE_REGS_IP) "(%rsp)\n"
	"	pushq $2\n"
	"	popfq\n"
	"	movq %rsp, %rdi\n"
	UNWIND_HINT(UNWIND_HINT_TYPE_REGS, ORC_REG_SP, 0, 1)
	"	call kprobe_step_callback\n"
	UNWIND_HINT(UNWIND_HINT_TYPE_REGS, ORC_REG_SP, 0, 1)
	RESTORE_REGS_STRING
	"	leaq " __stringify(KPROBE_REGS_IP - KPROBE_REGS_FLAGS) "(%rsp), %rsp\n"
	UNWIND_HINT(UNWIND_HINT_TYPE_REGS_PARTIAL, ORC_REG_SP, 0, 1)
	"	iretq\n"
	UNWIND_HINT_FUNC
	ASM_RET
	"	.size kprobe_step_common, . - kprobe_step_common\n"
	"	.popsection\n"
);

NOKPROBE_SYMBOL(kprobe_step_common);

/*
 * Called from kprobe_step_common() with the registers as the copy left
 * them.  Interrupts are off, so only an NMI can come in between, and an
 * NMI finishes any step of its own before it returns: the innermost
 * record is this copy's.  Preemption is disabled as around every other
 * handler (in_atomic() holds).  lockdep still holds the interrupt state
 * of the probed code (the trap's exit restored it before the copy ran
 * with the flag cleared); it is told the truth while a post_handler runs.
 */
__visible void notrace kprobe_step_callback(struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe_step *step = &kcb->step[kcb->depth - 1];
	bool lockdep_off = step->flags_if && !step->nested;

	preempt_disable_notrace();
	if (lockdep_off)
		trace_hardirqs_off();
	kprobe_step_finish(regs, kcb);
	if (lockdep_off)
		trace_hardirqs_on();
	preempt_enable_notrace();
}

NOKPROBE_SYMBOL(kprobe_step_callback);
#endif /* CONFIG_X86_64 */

/* Is @addr the int3 behind the copy the innermost step is running? */
static bool kprobe_step_done(struct pt_regs *regs, unsigned long addr,
			     struct kprobe_ctlblk *kcb)
{
	struct kprobe *p = kprobe_step_innermost(kcb);

	if (!p || addr != (unsigned long)p->ainsn.slot + p->ainsn.len)
		return false;
	kprobe_step_finish(regs, kcb);
	return true;
}

NOKPROBE_SYMBOL(kprobe_step_done);

/**
 * kprobe_run_pre() - run a site's pre_handlers for a hit
 * @p: the site that was hit
 * @regs: registers as the breakpoint path presents them (regs->ip is the
 *	probed address + 1)
 *
 * The breakpoint path's out-of-line __kprobe_run_pre(): the optimized and
 * ftrace paths inline that, so that all three count misses and mark the
 * CPU busy the same way.
 * Context: interrupts off.
 * Return: KPROBE_PRE_MISSED: another probe runs on this CPU, the hit was
 * counted missed; KPROBE_PRE_RAN: handlers ran, @p is still this CPU's
 * running probe until the caller carried the instruction out; or
 * KPROBE_PRE_SKIP: a handler moved regs->ip, nothing is running any more.
 */
int kprobe_run_pre(struct kprobe *p, struct pt_regs *regs)
{
	return __kprobe_run_pre(p, regs);
}

NOKPROBE_SYMBOL(kprobe_run_pre);

/**
 * kprobe_int3_handler() - handle an int3 that may be a kprobe's
 * @regs: registers at the trap; regs->ip is just past the int3
 *
 * Context: do_int3(), NMI-like: interrupts off, may interrupt anything.
 * Return: 1 if the trap was ours and @regs say where to resume, 0 if not.
 */
int kprobe_int3_handler(struct pt_regs *regs)
{
	unsigned long addr = regs->ip - INT3_INSN_SIZE;
	struct kprobe_ctlblk *kcb;
	struct kprobe *p;

	if (user_mode(regs))
		return 0;

	kcb = get_kprobe_ctlblk();
	/* Whatever kprobe_step_by_trap() says now: it said so at preparation. */
	if (kprobe_step_done(regs, addr, kcb))
		return 1;

	p = kprobe_site_at((void *)addr);
	if (!p) {
		/*
		 * Disarmed between the trap and this lookup: the original
		 * byte is back, run it.  Anything else is not ours.
		 */
		if (*(u8 *)addr != INT3_INSN_OPCODE) {
			regs->ip = addr;
			return 1;
		}
		return 0;
	}

	switch (kprobe_run_pre(p, regs)) {
	case KPROBE_PRE_MISSED:
		kprobe_carry_out(p, regs, kcb, true);
		break;
	case KPROBE_PRE_RAN:
		kprobe_carry_out(p, regs, kcb, false);
		break;
	case KPROBE_PRE_SKIP:
		break;
	}
	return 1;
}

NOKPROBE_SYMBOL(kprobe_int3_handler);

/*
 * A fault hit the copy the innermost step is running: make it a fault of
 * the original instruction, so that exception fixups and oopses see the
 * address they expect.
 */
static void kprobe_step_abort(struct pt_regs *regs, struct kprobe_ctlblk *kcb)
{
	struct kprobe_step step = kprobe_step_pop(kcb);

	regs->ip = (unsigned long)step.p->addr;
	regs->flags |= step.flags_if;
	if (!step.nested)
		reset_current_kprobe();
}

NOKPROBE_SYMBOL(kprobe_step_abort);

/*
 * @p's fault_handler claimed a fault of the innermost step's copy.  Left
 * at the copy, it runs again; left at the copy's end, the step ends as
 * usual; anywhere else, the step is over and the CPU goes where the
 * handler said.
 */
static void kprobe_step_resolved(struct pt_regs *regs,
				 struct kprobe_ctlblk *kcb, struct kprobe *p)
{
	unsigned long slot = (unsigned long)p->ainsn.slot;
	unsigned long ip = regs->ip;

	if (ip == slot || ip == slot + p->ainsn.len)
		return;
	kprobe_step_abort(regs, kcb);
	regs->ip = ip;
}

NOKPROBE_SYMBOL(kprobe_step_resolved);

/**
 * kprobe_fault_handler() - a fault was raised while a probe is running
 * @regs: registers at the fault
 * @trapnr: the trap number
 *
 * The probe's fault_handler is asked first, except about page faults:
 * the #PF handler searches the exception table after us and WARNs when we
 * claim one, so a fixup (copy_from_kernel_nofault()) must stay its job.
 * A fault of a stepped copy is then turned into a fault of the original
 * instruction; for traps other than page faults the exception table is
 * consulted again at that address.
 * Context: trap handler, preemption off.
 * Return: 1 if the fault was handled and execution may resume at @regs.
 */
int kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *cur = kprobe_running();
	struct kprobe_step *step;
	unsigned long slot;
	struct kprobe *p;

	p = kprobe_step_innermost(kcb);
	if (p) {
		step = &kcb->step[kcb->depth - 1];
		slot = (unsigned long)p->ainsn.slot;
		if (regs->ip >= slot && regs->ip < slot + p->ainsn.len) {
			bool asks_handler = p->fault_handler &&
					    trapnr != X86_TRAP_PF;

			if (!step->nested && asks_handler &&
			    p->fault_handler(p, regs, trapnr)) {
				kprobe_step_resolved(regs, kcb, p);
				return 1;
			}
			kprobe_step_abort(regs, kcb);
			if (trapnr != X86_TRAP_PF &&
			    fixup_exception(regs, trapnr,
					    current->thread.error_code, 0))
				return 1;
			return 0;
		}
	}

	if (cur && (kcb->kprobe_status & (KPROBE_HIT_ACTIVE | KPROBE_HIT_SSDONE)) &&
	    cur->fault_handler && trapnr != X86_TRAP_PF)
		return cur->fault_handler(cur, regs, trapnr);
	return 0;
}

NOKPROBE_SYMBOL(kprobe_fault_handler);
