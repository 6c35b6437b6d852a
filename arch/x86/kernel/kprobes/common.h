/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the x86 kprobes files and arch/x86/kernel/rethook.c.
 */
#ifndef __X86_KERNEL_KPROBES_COMMON_H
#define __X86_KERNEL_KPROBES_COMMON_H

#include <linux/stddef.h>
#include <linux/stringify.h>
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/ptrace.h>
#include <asm/segment.h>
#include <asm/unwind_hints.h>

/*
 * SAVE_REGS_STRING / RESTORE_REGS_STRING turn a hand-made stack frame into
 * a struct pt_regs and back, for trampolines written in inline asm.
 *
 * On entry to SAVE_REGS_STRING the stack pointer must point at what becomes
 * the pt_regs flags field, with sp and ss above it (the caller pushes
 * whatever it wants there).  SAVE_REGS_STRING moves the stack pointer down
 * to the start of a struct pt_regs and stores every general purpose
 * register in its field; cs, ip and orig_ax are left unwritten for the C
 * side to fill in.
 *
 * RESTORE_REGS_STRING loads the general purpose registers back from that
 * pt_regs (so changes made by the C side take effect) and moves the stack
 * pointer back up to the flags field.
 */
#ifdef CONFIG_X86_64

/* Byte offsets in struct pt_regs; checked against the C layout below. */
#define KPROBE_REGS_R15		0
#define KPROBE_REGS_R14		8
#define KPROBE_REGS_R13		16
#define KPROBE_REGS_R12		24
#define KPROBE_REGS_BP		32
#define KPROBE_REGS_BX		40
#define KPROBE_REGS_R11		48
#define KPROBE_REGS_R10		56
#define KPROBE_REGS_R9		64
#define KPROBE_REGS_R8		72
#define KPROBE_REGS_AX		80
#define KPROBE_REGS_CX		88
#define KPROBE_REGS_DX		96
#define KPROBE_REGS_SI		104
#define KPROBE_REGS_DI		112
#define KPROBE_REGS_ORIG_AX	120
#define KPROBE_REGS_IP		128
#define KPROBE_REGS_CS		136
#define KPROBE_REGS_FLAGS	144
#define KPROBE_REGS_SP		152
#define KPROBE_REGS_SS		160
#define KPROBE_REGS_SIZE	168

#define KPROBE_REGS_CHECK(field, off)	\
	static_assert(offsetof(struct pt_regs, field) == (off))
KPROBE_REGS_CHECK(r15, KPROBE_REGS_R15);
KPROBE_REGS_CHECK(r14, KPROBE_REGS_R14);
KPROBE_REGS_CHECK(r13, KPROBE_REGS_R13);
KPROBE_REGS_CHECK(r12, KPROBE_REGS_R12);
KPROBE_REGS_CHECK(bp, KPROBE_REGS_BP);
KPROBE_REGS_CHECK(bx, KPROBE_REGS_BX);
KPROBE_REGS_CHECK(r11, KPROBE_REGS_R11);
KPROBE_REGS_CHECK(r10, KPROBE_REGS_R10);
KPROBE_REGS_CHECK(r9, KPROBE_REGS_R9);
KPROBE_REGS_CHECK(r8, KPROBE_REGS_R8);
KPROBE_REGS_CHECK(ax, KPROBE_REGS_AX);
KPROBE_REGS_CHECK(cx, KPROBE_REGS_CX);
KPROBE_REGS_CHECK(dx, KPROBE_REGS_DX);
KPROBE_REGS_CHECK(si, KPROBE_REGS_SI);
KPROBE_REGS_CHECK(di, KPROBE_REGS_DI);
KPROBE_REGS_CHECK(orig_ax, KPROBE_REGS_ORIG_AX);
KPROBE_REGS_CHECK(ip, KPROBE_REGS_IP);
KPROBE_REGS_CHECK(cs, KPROBE_REGS_CS);
KPROBE_REGS_CHECK(flags, KPROBE_REGS_FLAGS);
KPROBE_REGS_CHECK(sp, KPROBE_REGS_SP);
KPROBE_REGS_CHECK(ss, KPROBE_REGS_SS);
static_assert(sizeof(struct pt_regs) == KPROBE_REGS_SIZE);

#ifdef CONFIG_FRAME_POINTER
/* Tell the frame-pointer unwinder that %rsp points at a pt_regs. */
#define KPROBE_ENCODE_REGS_FRAME	"	leaq 1(%rsp), %rbp\n"
#else
#define KPROBE_ENCODE_REGS_FRAME
#endif

/* Bytes from the flags field down to the start of struct pt_regs. */
#define KPROBE_REGS_BELOW_FLAGS		__stringify(KPROBE_REGS_FLAGS)

/* Store / load one register at its pt_regs offset from %rsp. */
#define KPROBE_STORE(reg, off)	"	movq %" #reg ", " __stringify(off) "(%rsp)\n"
#define KPROBE_LOAD(reg, off)	"	movq " __stringify(off) "(%rsp), %" #reg "\n"

#define SAVE_REGS_STRING				\
	"	leaq -" KPROBE_REGS_BELOW_FLAGS "(%rsp), %rsp\n"	\
	KPROBE_STORE(rax, KPROBE_REGS_AX)	\
	KPROBE_STORE(rbx, KPROBE_REGS_BX)	\
	KPROBE_STORE(rcx, KPROBE_REGS_CX)	\
	KPROBE_STORE(rdx, KPROBE_REGS_DX)	\
	KPROBE_STORE(rsi, KPROBE_REGS_SI)	\
	KPROBE_STORE(rdi, KPROBE_REGS_DI)	\
	KPROBE_STORE(rbp, KPROBE_REGS_BP)	\
	KPROBE_STORE(r8, KPROBE_REGS_R8)	\
	KPROBE_STORE(r9, KPROBE_REGS_R9)	\
	KPROBE_STORE(r10, KPROBE_REGS_R10)	\
	KPROBE_STORE(r11, KPROBE_REGS_R11)	\
	KPROBE_STORE(r12, KPROBE_REGS_R12)	\
	KPROBE_STORE(r13, KPROBE_REGS_R13)	\
	KPROBE_STORE(r14, KPROBE_REGS_R14)	\
	KPROBE_STORE(r15, KPROBE_REGS_R15)	\
	KPROBE_ENCODE_REGS_FRAME

#define RESTORE_REGS_STRING				\
	KPROBE_LOAD(rax, KPROBE_REGS_AX)	\
	KPROBE_LOAD(rbx, KPROBE_REGS_BX)	\
	KPROBE_LOAD(rcx, KPROBE_REGS_CX)	\
	KPROBE_LOAD(rdx, KPROBE_REGS_DX)	\
	KPROBE_LOAD(rsi, KPROBE_REGS_SI)	\
	KPROBE_LOAD(rdi, KPROBE_REGS_DI)	\
	KPROBE_LOAD(rbp, KPROBE_REGS_BP)	\
	KPROBE_LOAD(r8, KPROBE_REGS_R8)	\
	KPROBE_LOAD(r9, KPROBE_REGS_R9)	\
	KPROBE_LOAD(r10, KPROBE_REGS_R10)	\
	KPROBE_LOAD(r11, KPROBE_REGS_R11)	\
	KPROBE_LOAD(r12, KPROBE_REGS_R12)	\
	KPROBE_LOAD(r13, KPROBE_REGS_R13)	\
	KPROBE_LOAD(r14, KPROBE_REGS_R14)	\
	KPROBE_LOAD(r15, KPROBE_REGS_R15)	\
	"	leaq " KPROBE_REGS_BELOW_FLAGS "(%rsp), %rsp\n"

/*
 * A trampoline that a slot or a detour reaches with a call keeps its
 * pt_regs right below the return address: the return address is at
 * KPROBE_CALLED_RET, the stack pointer of the probed code at
 * KPROBE_CALLED_SP.
 *
 * KPROBE_CALLED_SAVE builds that pt_regs: the ss and sp slots are
 * reserved with lea, not sub, so that pushfq saves the probed code's
 * flags; sp, cs, ss and orig_ax are filled in, ip is left to the caller.
 * Each trampoline has a way back of its own: kprobe_opt_common in opt.c
 * returns to its detour, kprobe_step_common in core.c irets.
 */
#define KPROBE_CALLED_RET	KPROBE_REGS_SIZE
#define KPROBE_CALLED_SP	(KPROBE_REGS_SIZE + 8)

#define KPROBE_CALLED_SAVE						\
	"	leaq -16(%rsp), %rsp\n"					\
	"	pushfq\n"							\
	SAVE_REGS_STRING						\
	"	leaq " __stringify(KPROBE_CALLED_SP) "(%rsp), %rax\n"	\
	"	movq %rax, " __stringify(KPROBE_REGS_SP) "(%rsp)\n"		\
	"	movq $" __stringify(__KERNEL_CS) ", "				\
		__stringify(KPROBE_REGS_CS) "(%rsp)\n"			\
	"	movq $" __stringify(__KERNEL_DS) ", "				\
		__stringify(KPROBE_REGS_SS) "(%rsp)\n"			\
	"	movq $-1, " __stringify(KPROBE_REGS_ORIG_AX) "(%rsp)\n"

#else /* CONFIG_X86_32 */

#ifdef CONFIG_FRAME_POINTER
#define KPROBE_ENCODE_REGS_FRAME	"	movl %esp, %ebp\n"
#else
#define KPROBE_ENCODE_REGS_FRAME
#endif

/*
 * 32-bit struct pt_regs, in bytes: bx 0, cx 4, dx 8, si 12, di 16, bp 20,
 * ax 24, ds 28, es 32, fs 36, gs 40, orig_ax 44, ip 48, cs 52, flags 56.
 * gs, orig_ax, ip and cs are left for the C side.
 */
#define SAVE_REGS_STRING				\
	"	leal -56(%esp), %esp\n"			\
	"	movl %eax, 24(%esp)\n"			\
	"	movl %ebx, 0(%esp)\n"			\
	"	movl %ecx, 4(%esp)\n"			\
	"	movl %edx, 8(%esp)\n"			\
	"	movl %esi, 12(%esp)\n"			\
	"	movl %edi, 16(%esp)\n"			\
	"	movl %ebp, 20(%esp)\n"			\
	"	movw %ds, 28(%esp)\n"			\
	"	movw %es, 32(%esp)\n"			\
	"	movw %fs, 36(%esp)\n"			\
	KPROBE_ENCODE_REGS_FRAME

#define RESTORE_REGS_STRING				\
	"	movl 24(%esp), %eax\n"			\
	"	movl 0(%esp), %ebx\n"			\
	"	movl 4(%esp), %ecx\n"			\
	"	movl 8(%esp), %edx\n"			\
	"	movl 12(%esp), %esi\n"			\
	"	movl 16(%esp), %edi\n"			\
	"	movl 20(%esp), %ebp\n"			\
	"	leal 56(%esp), %esp\n"

#endif /* CONFIG_X86_64 */

#ifdef CONFIG_KPROBES
#include <linux/percpu.h>

struct kprobe;
struct kprobe_ctlblk;
struct insn;
struct arch_specific_insn;

/* The breakpoint path's per-CPU state, shared with the ftrace handler. */
DECLARE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);

/* What kprobe_run_pre() did; see there. */
enum kprobe_pre_result {
	KPROBE_PRE_MISSED,
	KPROBE_PRE_RAN,
	KPROBE_PRE_SKIP,
};

int kprobe_run_pre(struct kprobe *p, struct pt_regs *regs);

/*
 * The hit protocol every x86 path shares (breakpoint, detour, ftrace):
 * a hit while another probe runs on this CPU only counts as missed;
 * otherwise the site becomes this CPU's running probe, its pre_handler
 * runs (KPROBE_HIT_ACTIVE), and unless that redirected regs->ip, its
 * post_handler runs once the instruction is done (KPROBE_HIT_SSDONE).
 * Inline, so that the ftrace callback pays no call for sharing it.
 * Context: interrupts or preemption off.
 */
static __always_inline int __kprobe_run_pre(struct kprobe *p,
					    struct pt_regs *regs)
{
	if (kprobe_running()) {
		/* Hit from inside another probe's handler or step. */
		kprobes_inc_nmissed_count(p);
		return KPROBE_PRE_MISSED;
	}

	/* Per-CPU stores by name: no pointer to the ctlblk to keep live. */
	__this_cpu_write(current_kprobe, p);
	__this_cpu_write(kprobe_ctlblk.kprobe_status, KPROBE_HIT_ACTIVE);
	if (unlikely(kprobe_disabled(p))) {
		kprobes_inc_disabled_count(p);
	} else if (p->pre_handler && p->pre_handler(p, regs)) {
		reset_current_kprobe();
		return KPROBE_PRE_SKIP;
	}
	return KPROBE_PRE_RAN;
}

/* The end of a hit that __kprobe_run_pre() answered KPROBE_PRE_RAN. */
static __always_inline void __kprobe_run_post(struct kprobe *p,
					      struct pt_regs *regs)
{
	kprobe_post_handler_t post = READ_ONCE(p->post_handler);

	if (post && !kprobe_disabled(p)) {
		__this_cpu_write(kprobe_ctlblk.kprobe_status, KPROBE_HIT_SSDONE);
		post(p, regs, 0);
	}
	reset_current_kprobe();
}

int kprobe_read_text(u8 *buf, unsigned long addr, size_t len);
int kprobe_decode_at(struct insn *insn, u8 *buf, unsigned long addr);
int kprobe_classify(struct insn *insn, struct arch_specific_insn *ai,
		    unsigned long addr);
int kprobe_fix_riprel(struct insn *insn, u8 *copy, unsigned long addr,
		      unsigned long copy_addr);

/* What every jump-optimization detour calls; opt.c, not C-callable. */
void kprobe_opt_common(void);

/*
 * What every stepped copy calls once it has run (core.c; the first is
 * not C-callable, the second is what it calls).  64-bit only: 32-bit
 * code never gets as far as referring to them.
 */
void kprobe_step_common(void);
__visible void kprobe_step_callback(struct pt_regs *regs);

/* The core kernel's exception table, sorted by instruction address. */
extern struct exception_table_entry __start___ex_table[];
extern struct exception_table_entry __stop___ex_table[];

/*
 * The site's detour, if the optimizer made one; RCU-readable.  x86 always
 * has CONFIG_OPTPROBES along with kprobes.
 */
static __always_inline struct optimized_kprobe *kprobe_site_detour(struct kprobe *p)
{
	return READ_ONCE(p->opt);
}
#endif /* CONFIG_KPROBES */

#endif /* __X86_KERNEL_KPROBES_COMMON_H */
