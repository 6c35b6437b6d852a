// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The x86-64 assembly functions the kprobes suites probe, each with a
 * table of its instructions: instructions that need fixing up or emulating
 * when copied (kprobes_x86_insn), the registers a handler sees and the
 * fault paths (kprobes), regions the jump optimizer must take or refuse
 * (kprobes_optimizer) and text other subsystems own
 * (kprobes_text_reserved).  Declared in x86_targets.h; built on x86-64
 * only.
 */

#include <linux/errno.h>
#include <linux/jump_label.h>
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <linux/types.h>

#include <asm/alternative.h>
#include <asm/asm.h>
#include <asm/extable_fixup_types.h>
#include <asm/ibt.h>
#include <asm/nospec-branch.h>
#include <asm/smap.h>

#include "x86_targets.h"

/*
 * Each function below is plain assembly so that its instructions are known
 * exactly.  KPT_SITE(fn) records the offset of the instruction that follows
 * it in the table fn_sites[] (in .rodata, ended by ~0U), which the tests use
 * to put one probe on every recorded instruction.  Functions start with
 * ENDBR (IBT kernels) because C code takes their addresses, and return with
 * a bare ret so that the ret itself can be probed.  They are aligned and
 * padded as the kernel's own assembly functions are (ASM_FUNC_ALIGN): with
 * call padding, the 16 bytes before a function are its own, and boot-time
 * patching writes there (call-depth thunks; under kCFI the sealing of an
 * ENDBR no indirect call reaches clears the hash of the preamble it expects
 * there), which without the padding would be the previous function's code.
 */
#define KPT_ASM_START(fn, align)					\
	".pushsection .rodata\n"					\
	".balign 4\n"							\
	".globl " #fn "_sites\n"					\
	#fn "_sites:\n"							\
	".popsection\n"							\
	".pushsection .text, \"ax\"\n"					\
	align "\n"							\
	".globl " #fn "\n"						\
	".type " #fn ", @function\n"					\
	#fn ":\n\t"							\
	ASM_ENDBR

#define KPT_ASM_BEGIN(fn)	KPT_ASM_START(fn, ASM_FUNC_ALIGN)

#define KPT_ASM_END(fn)							\
	".size " #fn ", . - " #fn "\n"					\
	".popsection\n"							\
	".pushsection .rodata\n"					\
	".long 0xffffffff\n"						\
	".popsection\n"

#define KPT_SITE(fn)							\
	"9:\n\t"							\
	".pushsection .rodata\n\t"					\
	".long 9b - " #fn "\n\t"					\
	".popsection\n\t"

#define KPT_RET								\
	ANNOTATE_RETPOLINE_SAFE						\
	"ret\n\t"							\
	"int3\n"

/* Near (rel32) forms, which the assembler would otherwise shrink. */
#define KPT_JMP_NEAR(label)						\
	".byte 0xe9\n\t"						\
	".long " label " - . - 4\n\t"

#define KPT_JCC_NEAR(opcode, label)					\
	".byte 0x0f, " #opcode "\n\t"					\
	".long " label " - . - 4\n\t"

/* Short jcc that skips adding @bit to %rax when the condition holds. */
#define KPT_JCC_BIT(fn, cc, bit)					\
	KPT_SITE(fn)							\
	"j" #cc " 1f\n\t"						\
	"leaq " #bit "(%rax), %rax\n"					\
	"1:\n\t"

/* The same with the rel32 form, adding @bit to %rdx. */
#define KPT_JCC_NEAR_BIT(fn, opcode, bit)				\
	KPT_SITE(fn)							\
	KPT_JCC_NEAR(opcode, "1f")					\
	"leaq " #bit "(%rdx), %rdx\n"					\
	"1:\n\t"

/* Constants read through RIP-relative operands, then the functions. */
asm(".pushsection .rodata\n"
	".balign 8\n"
	"kpt_asm_data:\n"
	".quad 0x1000, 0x200, 0x30, 0x4\n"
	".popsection\n"

	/* x + 0x1231, using RIP-relative loads, lea, and cmp with imm8. */
	KPT_ASM_BEGIN(kpt_asm_riprel)
	KPT_SITE(kpt_asm_riprel) "movq kpt_asm_data(%rip), %rax\n\t"
	KPT_SITE(kpt_asm_riprel) "addq %rdi, %rax\n\t"
	KPT_SITE(kpt_asm_riprel) "leaq kpt_asm_data(%rip), %rdx\n\t"
	KPT_SITE(kpt_asm_riprel) "addq 8(%rdx), %rax\n\t"
	KPT_SITE(kpt_asm_riprel) "addq kpt_asm_data+16(%rip), %rax\n\t"
	KPT_SITE(kpt_asm_riprel) "cmpq $4, kpt_asm_data+24(%rip)\n\t"
	KPT_SITE(kpt_asm_riprel) "sete %dl\n\t"
	KPT_SITE(kpt_asm_riprel) "movzbl %dl, %edx\n\t"
	KPT_SITE(kpt_asm_riprel) "addq %rdx, %rax\n\t"
	KPT_SITE(kpt_asm_riprel) KPT_RET
	KPT_ASM_END(kpt_asm_riprel)

	/* x + 8: short jmp forward, short jmp back, near jmp forward. */
	KPT_ASM_BEGIN(kpt_asm_jmp)
	KPT_SITE(kpt_asm_jmp) "movq %rdi, %rax\n\t"
	KPT_SITE(kpt_asm_jmp) "jmp 2f\n"
	"1:\n\t"
	KPT_SITE(kpt_asm_jmp) "addq $3, %rax\n\t"
	KPT_SITE(kpt_asm_jmp) KPT_JMP_NEAR("3f")
	"2:\n\t"
	KPT_SITE(kpt_asm_jmp) "addq $5, %rax\n\t"
	KPT_SITE(kpt_asm_jmp) "jmp 1b\n"
	"3:\n\t"
	KPT_SITE(kpt_asm_jmp) KPT_RET
	KPT_ASM_END(kpt_asm_jmp)

	/* 2x + 1 */
	KPT_ASM_BEGIN(kpt_asm_helper)
	KPT_SITE(kpt_asm_helper) "leaq 1(%rdi,%rdi), %rax\n\t"
	KPT_SITE(kpt_asm_helper) KPT_RET
	KPT_ASM_END(kpt_asm_helper)

	/* 2x + 8, through a relative call. */
	KPT_ASM_BEGIN(kpt_asm_call)
	KPT_SITE(kpt_asm_call) "call kpt_asm_helper\n\t"
	KPT_SITE(kpt_asm_call) "addq $7, %rax\n\t"
	KPT_SITE(kpt_asm_call) KPT_RET
	KPT_ASM_END(kpt_asm_call)

	/* (x != 0) + 2 * (x >= 100): a short jz and a near jb. */
	KPT_ASM_BEGIN(kpt_asm_jcc)
	KPT_SITE(kpt_asm_jcc) "xorl %eax, %eax\n\t"
	KPT_SITE(kpt_asm_jcc) "testq %rdi, %rdi\n\t"
	KPT_SITE(kpt_asm_jcc) "jz 1f\n\t"
	KPT_SITE(kpt_asm_jcc) "addq $1, %rax\n"
	"1:\n\t"
	KPT_SITE(kpt_asm_jcc) "cmpq $100, %rdi\n\t"
	KPT_SITE(kpt_asm_jcc) KPT_JCC_NEAR(0x82, "2f")
	KPT_SITE(kpt_asm_jcc) "addq $2, %rax\n"
	"2:\n\t"
	KPT_SITE(kpt_asm_jcc) KPT_RET
	KPT_ASM_END(kpt_asm_jcc)
);

/*
 * Compares x with y, then tests all sixteen conditions twice: short forms
 * into bits 0-15, near forms into bits 16-31.  A string of its own: sparse
 * limits their length.
 */
asm(KPT_ASM_BEGIN(kpt_asm_jcc_all)
	"xorl %eax, %eax\n\t"
	"xorl %edx, %edx\n\t"
	"cmpq %rsi, %rdi\n\t"
	KPT_JCC_BIT(kpt_asm_jcc_all, o, 0x1)
	KPT_JCC_BIT(kpt_asm_jcc_all, no, 0x2)
	KPT_JCC_BIT(kpt_asm_jcc_all, b, 0x4)
	KPT_JCC_BIT(kpt_asm_jcc_all, ae, 0x8)
	KPT_JCC_BIT(kpt_asm_jcc_all, e, 0x10)
	KPT_JCC_BIT(kpt_asm_jcc_all, ne, 0x20)
	KPT_JCC_BIT(kpt_asm_jcc_all, be, 0x40)
	KPT_JCC_BIT(kpt_asm_jcc_all, a, 0x80)
	KPT_JCC_BIT(kpt_asm_jcc_all, s, 0x100)
	KPT_JCC_BIT(kpt_asm_jcc_all, ns, 0x200)
	KPT_JCC_BIT(kpt_asm_jcc_all, p, 0x400)
	KPT_JCC_BIT(kpt_asm_jcc_all, np, 0x800)
	KPT_JCC_BIT(kpt_asm_jcc_all, l, 0x1000)
	KPT_JCC_BIT(kpt_asm_jcc_all, ge, 0x2000)
	KPT_JCC_BIT(kpt_asm_jcc_all, le, 0x4000)
	KPT_JCC_BIT(kpt_asm_jcc_all, g, 0x8000)
	KPT_JCC_NEAR_BIT(kpt_asm_jcc_all, 0x80, 0x1)
	KPT_JCC_NEAR_BIT(kpt_asm_jcc_all, 0x81, 0x2)
	KPT_JCC_NEAR_BIT(kpt_asm_jcc_all, 0x82, 0x4)
	KPT_JCC_NEAR_BIT(kpt_asm_jcc_all, 0x83, 0x8)
	KPT_JCC_NEAR_BIT(kpt_asm_jcc_all, 0x84, 0x10)
	KPT_JCC_NEAR_BIT(kpt_asm_jcc_all, 0x85, 0x20)
	KPT_JCC_NEAR_BIT(kpt_asm_jcc_all, 0x86, 0x40)
	KPT_JCC_NEAR_BIT(kpt_asm_jcc_all, 0x87, 0x80)
	KPT_JCC_NEAR_BIT(kpt_asm_jcc_all, 0x88, 0x100)
	KPT_JCC_NEAR_BIT(kpt_asm_jcc_all, 0x89, 0x200)
	KPT_JCC_NEAR_BIT(kpt_asm_jcc_all, 0x8a, 0x400)
	KPT_JCC_NEAR_BIT(kpt_asm_jcc_all, 0x8b, 0x800)
	KPT_JCC_NEAR_BIT(kpt_asm_jcc_all, 0x8c, 0x1000)
	KPT_JCC_NEAR_BIT(kpt_asm_jcc_all, 0x8d, 0x2000)
	KPT_JCC_NEAR_BIT(kpt_asm_jcc_all, 0x8e, 0x4000)
	KPT_JCC_NEAR_BIT(kpt_asm_jcc_all, 0x8f, 0x8000)
	"shlq $16, %rdx\n\t"
	"orq %rdx, %rax\n\t"
	KPT_SITE(kpt_asm_jcc_all) KPT_RET
	KPT_ASM_END(kpt_asm_jcc_all)
);

/* 3n, with jrcxz around a loop (a new string: sparse limits their length). */
asm(KPT_ASM_BEGIN(kpt_asm_loop)
	KPT_SITE(kpt_asm_loop) "movq %rdi, %rcx\n\t"
	KPT_SITE(kpt_asm_loop) "xorl %eax, %eax\n\t"
	KPT_SITE(kpt_asm_loop) "jrcxz 2f\n"
	"1:\n\t"
	KPT_SITE(kpt_asm_loop) "addq $3, %rax\n\t"
	KPT_SITE(kpt_asm_loop) "loop 1b\n"
	"2:\n\t"
	KPT_SITE(kpt_asm_loop) KPT_RET
	KPT_ASM_END(kpt_asm_loop)

	/* 2x + 0x1000 + 0x1a, through the stack. */
	KPT_ASM_BEGIN(kpt_asm_pushpop)
	KPT_SITE(kpt_asm_pushpop) "pushq %rbx\n\t"
	KPT_SITE(kpt_asm_pushpop) "movq %rdi, %rbx\n\t"
	KPT_SITE(kpt_asm_pushpop) "pushq %rbx\n\t"
	KPT_SITE(kpt_asm_pushpop) "pushq $0x11\n\t"
	KPT_SITE(kpt_asm_pushpop) "pushq kpt_asm_data(%rip)\n\t"
	KPT_SITE(kpt_asm_pushpop) "popq %rcx\n\t"
	KPT_SITE(kpt_asm_pushpop) "popq %rax\n\t"
	KPT_SITE(kpt_asm_pushpop) "addq %rcx, %rax\n\t"
	KPT_SITE(kpt_asm_pushpop) "addq $9, %rbx\n\t"
	KPT_SITE(kpt_asm_pushpop) "popq %rdx\n\t"
	KPT_SITE(kpt_asm_pushpop) "addq %rdx, %rax\n\t"
	KPT_SITE(kpt_asm_pushpop) "addq %rbx, %rax\n\t"
	KPT_SITE(kpt_asm_pushpop) "popq %rbx\n\t"
	KPT_SITE(kpt_asm_pushpop) KPT_RET
	KPT_ASM_END(kpt_asm_pushpop)

	/* The flags after "cmp y, x", as pushf saw them. */
	KPT_ASM_BEGIN(kpt_asm_flags)
	KPT_SITE(kpt_asm_flags) "cmpq %rsi, %rdi\n\t"
	KPT_SITE(kpt_asm_flags) "pushfq\n\t"
	KPT_SITE(kpt_asm_flags) "movq (%rsp), %rax\n\t"
	KPT_SITE(kpt_asm_flags) "popfq\n\t"
	KPT_SITE(kpt_asm_flags) KPT_RET
	KPT_ASM_END(kpt_asm_flags)

	/* x + 0x55 + 0x1234, for the register and ip-change tests. */
	KPT_ASM_BEGIN(kpt_asm_regs)
	KPT_SITE(kpt_asm_regs) "movq %rdi, %rax\n\t"
	KPT_SITE(kpt_asm_regs) "addq $0x55, %rax\n\t"
	KPT_SITE(kpt_asm_regs) "movq $0x1234, %rdx\n\t"
	KPT_SITE(kpt_asm_regs) "addq %rdx, %rax\n\t"
	KPT_SITE(kpt_asm_regs) KPT_RET
	KPT_ASM_END(kpt_asm_regs)

	/* *p, or -EFAULT through the exception table. */
	KPT_ASM_BEGIN(kpt_asm_load)
	KPT_SITE(kpt_asm_load) "1: movq (%rdi), %rax\n\t"
	KPT_SITE(kpt_asm_load) "2:\n\t" KPT_RET
	_ASM_EXTABLE_TYPE(1b, 2b, EX_TYPE_EFAULT_REG)
	KPT_ASM_END(kpt_asm_load)

	/*
	 * *p = x, returning x + 1.  The store has an exception-table entry
	 * (never used) so that a probe on it is stepped even when hit from a
	 * handler, which a boostable instruction would not be.
	 */
	KPT_ASM_BEGIN(kpt_asm_store)
	KPT_SITE(kpt_asm_store) "1: movq %rsi, (%rdi)\n\t"
	KPT_SITE(kpt_asm_store) "2: leaq 1(%rsi), %rax\n\t"
	KPT_SITE(kpt_asm_store) KPT_RET
	_ASM_EXTABLE_TYPE(1b, 2b, EX_TYPE_DEFAULT)
	KPT_ASM_END(kpt_asm_store)

	/*
	 * ++*p with a lock prefix, which the kernel patches to a ds prefix
	 * when it runs on one CPU, and back when a second comes up.
	 */
	KPT_ASM_BEGIN(kpt_asm_locked)
	KPT_SITE(kpt_asm_locked) LOCK_PREFIX "incq (%rdi)\n\t"
	KPT_SITE(kpt_asm_locked) "movq (%rdi), %rax\n\t"
	KPT_SITE(kpt_asm_locked) KPT_RET
	KPT_ASM_END(kpt_asm_locked)

	/* Loads from a non-canonical address: #GP, no fixup. */
	KPT_ASM_BEGIN(kpt_asm_gp)
	KPT_SITE(kpt_asm_gp) "movabsq $0xdead000000000000, %rax\n\t"
	KPT_SITE(kpt_asm_gp) "movq (%rax), %rax\n\t"
	KPT_SITE(kpt_asm_gp) KPT_RET
	KPT_ASM_END(kpt_asm_gp)
);

/*
 * x + 0x40, through a callee that takes the word its caller pushed for it
 * off the stack with "ret $8".  The caller keeps its entry %rsp in %rbp and
 * adds 0x100 to the result if the stack is not back there after the call;
 * leave then puts %rsp right whatever happened, so a return that pops the
 * wrong amount shows as a wrong result instead of a crash.
 */
asm(KPT_ASM_BEGIN(kpt_asm_retimm_callee)
	KPT_SITE(kpt_asm_retimm_callee) "movq 8(%rsp), %rax\n\t"
	KPT_SITE(kpt_asm_retimm_callee) "addq %rdi, %rax\n\t"
	KPT_SITE(kpt_asm_retimm_callee) ANNOTATE_RETPOLINE_SAFE "ret $8\n\t"
	"int3\n"
	KPT_ASM_END(kpt_asm_retimm_callee)

	KPT_ASM_BEGIN(kpt_asm_retimm)
	KPT_SITE(kpt_asm_retimm) "pushq %rbp\n\t"
	KPT_SITE(kpt_asm_retimm) "movq %rsp, %rbp\n\t"
	KPT_SITE(kpt_asm_retimm) "pushq $0x40\n\t"
	KPT_SITE(kpt_asm_retimm) "call kpt_asm_retimm_callee\n\t"
	KPT_SITE(kpt_asm_retimm) "cmpq %rsp, %rbp\n\t"
	KPT_SITE(kpt_asm_retimm) "je 1f\n\t"
	KPT_SITE(kpt_asm_retimm) "addq $0x100, %rax\n"
	"1:\n\t"
	KPT_SITE(kpt_asm_retimm) "leave\n\t"
	KPT_SITE(kpt_asm_retimm) KPT_RET
	KPT_ASM_END(kpt_asm_retimm)
);

/*
 * 4x + 10: kpt_asm_helper() (2x + 1) twice, called through %rax, then
 * through %r10, which needs REX.B.  Without that bit the same encoding
 * names %rdx, which holds a decoy returning 0xbad: a call taken through
 * the wrong register gives a wrong result, not a jump into the void.
 */
asm(KPT_ASM_BEGIN(kpt_asm_icall_decoy)
	"movl $0xbad, %eax\n\t"
	KPT_RET
	KPT_ASM_END(kpt_asm_icall_decoy)

	KPT_ASM_BEGIN(kpt_asm_icall)
	KPT_SITE(kpt_asm_icall) "leaq kpt_asm_helper(%rip), %rax\n\t"
	KPT_SITE(kpt_asm_icall) ANNOTATE_RETPOLINE_SAFE "call *%rax\n\t"
	KPT_SITE(kpt_asm_icall) "movq %rax, %rdi\n\t"
	KPT_SITE(kpt_asm_icall) "leaq kpt_asm_helper(%rip), %r10\n\t"
	KPT_SITE(kpt_asm_icall) "leaq kpt_asm_icall_decoy(%rip), %rdx\n\t"
	KPT_SITE(kpt_asm_icall) ANNOTATE_RETPOLINE_SAFE "call *%r10\n\t"
	KPT_SITE(kpt_asm_icall) "addq $7, %rax\n\t"
	KPT_SITE(kpt_asm_icall) KPT_RET
	KPT_ASM_END(kpt_asm_icall)
);

/*
 * Never run: one instruction of each class the breakpoint path refuses,
 * for kprobe_insn_refused_classes() to register probes on.  Registration
 * only decodes these bytes, so privileged and trapping instructions are
 * fine; each is a valid x86-64 encoding, given as bytes where assemblers
 * disagree on the mnemonic or its form.  ud0 is two bytes because that is
 * how the kernel's decoder reads it (no ModRM), and the decoder is what
 * finds the instruction boundaries.  Site 0 is an ordinary instruction
 * that must be accepted: it shows that the sites are boundaries.  Nothing
 * after the first trap is reachable, so objtool is told to skip the
 * function (STACK_FRAME_NON_STANDARD below); it still checks indirect
 * branches and returns everywhere, hence the annotations.
 */
asm(KPT_ASM_BEGIN(kpt_asm_refused)
	KPT_SITE(kpt_asm_refused) "movq %rdi, %rax\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x0f, 0x0b\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x0f, 0xb9, 0xc0\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x0f, 0xff\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0xcc\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0xcd, 0x80\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0xf1\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x48, 0xcf\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0xcb\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0xca, 0x08, 0x00\n\t"
	KPT_SITE(kpt_asm_refused) ANNOTATE_RETPOLINE_SAFE ".byte 0xff, 0x18\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0xff, 0x28\n\t"
	KPT_SITE(kpt_asm_refused) ANNOTATE_RETPOLINE_SAFE ".byte 0xff, 0x10\n\t"
	KPT_SITE(kpt_asm_refused) ANNOTATE_RETPOLINE_SAFE ".byte 0xff, 0x20\n\t"
	KPT_SITE(kpt_asm_refused) ANNOTATE_RETPOLINE_SAFE
	".byte 0xff, 0x15, 0, 0, 0, 0\n\t"
	/* objtool takes REX2 for REX: to it this is no indirect call. */
	KPT_SITE(kpt_asm_refused) ".byte 0xd5, 0x10, 0xff, 0xd0\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0xfb\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0xf4\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x0f, 0x01, 0xc9\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x0f, 0x01, 0xfb\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x0f, 0x01, 0xf8\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x0f, 0x05\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x48, 0x0f, 0x07\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x0f, 0x34\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x48, 0x0f, 0x35\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x0f, 0xaa\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x8e, 0xd0\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x8e, 0xd8\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x0f, 0xa1\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x0f, 0xa9\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x0f, 0x01, 0xc1\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x0f, 0x01, 0xc2\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x0f, 0x01, 0xc3\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x0f, 0x01, 0xc4\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x0f, 0x01, 0xd8\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x0f, 0x01, 0xd9\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x0f, 0x01, 0xdc\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x0f, 0x01, 0xdd\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0xc7, 0xf8, 0, 0, 0, 0\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x66, 0x9c\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x66, 0x9d\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x67, 0xe2, 0x00\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0x67, 0xe3, 0x00\n\t"
	KPT_SITE(kpt_asm_refused) ".byte 0xf3, 0x0f, 0x1e, 0xfa\n\t"
	KPT_SITE(kpt_asm_refused)
	".byte 0x0f, 0x0b, 0x6b, 0x76, 0x6d, 0x0f, 0xa2\n\t"
	KPT_RET
	KPT_ASM_END(kpt_asm_refused)
);

/*
 * Targets of the jump optimization tests, in a string of their own (sparse
 * limits string length).  kpt_asm_opt: x + 0x1014, for jump optimization: a probe on site 1 covers
 * the add and the RIP-relative add (11 bytes), nothing jumps into them.
 */
asm(KPT_ASM_BEGIN(kpt_asm_opt)
	KPT_SITE(kpt_asm_opt) "movq %rdi, %rax\n\t"
	KPT_SITE(kpt_asm_opt) "addq $0x11, %rax\n\t"
	KPT_SITE(kpt_asm_opt) "addq kpt_asm_data(%rip), %rax\n\t"
	KPT_SITE(kpt_asm_opt) "leaq 3(%rax), %rax\n\t"
	KPT_SITE(kpt_asm_opt) KPT_RET
	KPT_ASM_END(kpt_asm_opt)
/* kpt_asm_early: x + 0x14, the same shape for the probe of an early initcall. */
	KPT_ASM_BEGIN(kpt_asm_early)
	KPT_SITE(kpt_asm_early) "movq %rdi, %rax\n\t"
	KPT_SITE(kpt_asm_early) "addq $0x11, %rax\n\t"
	KPT_SITE(kpt_asm_early) "leaq 3(%rax), %rax\n\t"
	KPT_SITE(kpt_asm_early) KPT_RET
	KPT_ASM_END(kpt_asm_early)

	/*
	 * x + 1: a probe on site 2 would cover the add and the incl, and the
	 * loop jumps back to the incl, inside those bytes.
	 */
	KPT_ASM_BEGIN(kpt_asm_optjt)
	KPT_SITE(kpt_asm_optjt) "movq %rdi, %rax\n\t"
	KPT_SITE(kpt_asm_optjt) "xorl %ecx, %ecx\n\t"
	KPT_SITE(kpt_asm_optjt) "addq $1, %rax\n"
	"1:\n\t"
	KPT_SITE(kpt_asm_optjt) "incl %ecx\n\t"
	KPT_SITE(kpt_asm_optjt) "cmpl $3, %ecx\n\t"
	KPT_SITE(kpt_asm_optjt) "jb 1b\n\t"
	KPT_SITE(kpt_asm_optjt) KPT_RET
	KPT_ASM_END(kpt_asm_optjt)

	/*
	 * *p: a probe on site 0 would cover the load, which has an
	 * exception-table entry.
	 */
	KPT_ASM_BEGIN(kpt_asm_optex)
	KPT_SITE(kpt_asm_optex) "movq %rdi, %rdx\n\t"
	KPT_SITE(kpt_asm_optex) "1: movq (%rdx), %rax\n\t"
	KPT_SITE(kpt_asm_optex) "2:\n\t" KPT_RET
	_ASM_EXTABLE_TYPE(1b, 2b, EX_TYPE_EFAULT_REG)
	KPT_ASM_END(kpt_asm_optex)

	/*
	 * x + 1 (p is NULL): a probe on site 0 would cover the add, where
	 * the fixup of the load (never run here) lands.
	 */
	KPT_ASM_BEGIN(kpt_asm_optfx)
	KPT_SITE(kpt_asm_optfx) "movq %rdi, %rax\n"
	"3:\n\t"
	KPT_SITE(kpt_asm_optfx) "addq $1, %rax\n\t"
	KPT_SITE(kpt_asm_optfx) "testq %rsi, %rsi\n\t"
	KPT_SITE(kpt_asm_optfx) "jz 4f\n"
	"1:\n\t"
	KPT_SITE(kpt_asm_optfx) "movq (%rsi), %rdx\n"
	"4:\n\t"
	KPT_SITE(kpt_asm_optfx) KPT_RET
	_ASM_EXTABLE_TYPE(1b, 3b, EX_TYPE_DEFAULT)
	KPT_ASM_END(kpt_asm_optfx)

	/*
	 * x + 3, or x + 5 with y != 0, for y == 2 through an indirect jump,
	 * whose target has an ENDBR (and a direct jump, for objtool to see
	 * it reached).  A probe on site 1 covers none; one on site 7 covers
	 * the target, past the indirect jump.
	 */
	KPT_ASM_BEGIN(kpt_asm_optind)
	KPT_SITE(kpt_asm_optind) "movq %rdi, %rax\n\t"
	KPT_SITE(kpt_asm_optind) "addq $3, %rax\n\t"
	KPT_SITE(kpt_asm_optind) "testq %rsi, %rsi\n\t"
	KPT_SITE(kpt_asm_optind) "jz 2f\n\t"
	KPT_SITE(kpt_asm_optind) "cmpq $1, %rsi\n\t"
	KPT_SITE(kpt_asm_optind) "je 1f\n\t"
	KPT_SITE(kpt_asm_optind) "leaq 1f(%rip), %rcx\n\t"
	KPT_SITE(kpt_asm_optind) ANNOTATE_RETPOLINE_SAFE "jmp *%rcx\n\t"
	"int3\n"
	"1:\n\t"
	ASM_ENDBR
	KPT_SITE(kpt_asm_optind) "addq $2, %rax\n"
	"2:\n\t"
	KPT_SITE(kpt_asm_optind) KPT_RET
	KPT_ASM_END(kpt_asm_optind)

	/*
	 * x + 1 with interrupts off in between, and the flags put back: the
	 * breakpoint path emulates pushf and cli and refuses sti, a detour
	 * runs them.
	 */
	KPT_ASM_BEGIN(kpt_asm_optirq)
	KPT_SITE(kpt_asm_optirq) "pushfq\n\t"
	KPT_SITE(kpt_asm_optirq) "cli\n\t"
	KPT_SITE(kpt_asm_optirq) "movq %rdi, %rax\n\t"
	KPT_SITE(kpt_asm_optirq) "sti\n\t"
	KPT_SITE(kpt_asm_optirq) "addq $1, %rax\n\t"
	KPT_SITE(kpt_asm_optirq) "popfq\n\t"
	KPT_SITE(kpt_asm_optirq) KPT_RET
	KPT_ASM_END(kpt_asm_optirq)

	/* x + 2: a probe on site 0 covers a nop nobody patches. */
	KPT_ASM_BEGIN(kpt_asm_optnop)
	KPT_SITE(kpt_asm_optnop) "movq %rdi, %rax\n\t"
	KPT_SITE(kpt_asm_optnop) ".byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t"
	KPT_SITE(kpt_asm_optnop) "addq $2, %rax\n\t"
	KPT_SITE(kpt_asm_optnop) KPT_RET
	KPT_ASM_END(kpt_asm_optnop)
);

/*
 * x + 1, or x + 3 while kpt_opt_key is on: a probe on site 0 would cover
 * the key's jump label, a nop until the key turns it into a jump.  The
 * __jump_table entry is written out by hand, as arch_static_branch()
 * writes it for a branch that is false by default.
 */
asm(KPT_ASM_BEGIN(kpt_asm_optkey)
	KPT_SITE(kpt_asm_optkey) "movq %rdi, %rax\n"
	"1:\n\t"
	KPT_SITE(kpt_asm_optkey) ".byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t"
	".pushsection __jump_table, \"aw\"\n\t"
	".balign 8\n\t"
	".long 1b - .\n\t"
	".long 2f - .\n\t"
	".quad kpt_opt_key - .\n\t"
	".popsection\n\t"
	KPT_SITE(kpt_asm_optkey) "addq $1, %rax\n\t"
	KPT_SITE(kpt_asm_optkey) KPT_RET
	"2:\n\t"
	"addq $3, %rax\n\t"
	KPT_RET
	KPT_ASM_END(kpt_asm_optkey)
);

/*
 * x + 3, or x + 2 while kpt_opt_jl_key is on: a probe on site 2 would
 * cover both adds, and the jump label of site 1, a nop until the key
 * turns it on, jumps to the second one, inside those bytes.
 */
asm(KPT_ASM_BEGIN(kpt_asm_optjl)
	KPT_SITE(kpt_asm_optjl) "movq %rdi, %rax\n"
	"1:\n\t"
	KPT_SITE(kpt_asm_optjl) ".byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t"
	".pushsection __jump_table, \"aw\"\n\t"
	".balign 8\n\t"
	".long 1b - .\n\t"
	".long 2f - .\n\t"
	".quad kpt_opt_jl_key - .\n\t"
	".popsection\n\t"
	KPT_SITE(kpt_asm_optjl) "addq $1, %rax\n"
	"2:\n\t"
	KPT_SITE(kpt_asm_optjl) "addq $2, %rax\n\t"
	KPT_SITE(kpt_asm_optjl) KPT_RET
	KPT_ASM_END(kpt_asm_optjl)
);

/*
 * x + 3, and x + 6 through the function's cold part for x > 100: the
 * cold part jumps back into the middle of site 0's region, as the
 * unlikely code GCC splits off into NAME.cold jumps back into its
 * function; a site there must stay a breakpoint.  Site 1 is that jump's
 * target, which may be a region's first byte.  kpt_asm_optcold2 is the
 * same with its part named NAME.cold.1, as other GCC versions number
 * them.
 */
asm(KPT_ASM_BEGIN(kpt_asm_optcold)
	"movq %rdi, %rax\n\t"
	"cmpq $100, %rdi\n\t"
	KPT_JCC_NEAR(0x87, "kpt_asm_optcold.cold")
	KPT_SITE(kpt_asm_optcold) "addq $1, %rax\n"
	"1:\n\t"
	KPT_SITE(kpt_asm_optcold) "addq $2, %rax\n\t"
	KPT_SITE(kpt_asm_optcold) KPT_RET
	KPT_ASM_END(kpt_asm_optcold)
	".pushsection .text, \"ax\"\n"
	".type kpt_asm_optcold.cold, @function\n"
	"kpt_asm_optcold.cold:\n\t"
	"addq $4, %rax\n\t"
	KPT_JMP_NEAR("1b")
	".size kpt_asm_optcold.cold, . - kpt_asm_optcold.cold\n"
	".popsection\n");

asm(KPT_ASM_BEGIN(kpt_asm_optcold2)
	"movq %rdi, %rax\n\t"
	"cmpq $100, %rdi\n\t"
	KPT_JCC_NEAR(0x87, "kpt_asm_optcold2.cold.1")
	KPT_SITE(kpt_asm_optcold2) "addq $1, %rax\n"
	"1:\n\t"
	KPT_SITE(kpt_asm_optcold2) "addq $2, %rax\n\t"
	KPT_SITE(kpt_asm_optcold2) KPT_RET
	KPT_ASM_END(kpt_asm_optcold2)
	".pushsection .text, \"ax\"\n"
	".type kpt_asm_optcold2.cold.1, @function\n"
	"kpt_asm_optcold2.cold.1:\n\t"
	"addq $4, %rax\n\t"
	KPT_JMP_NEAR("1b")
	".size kpt_asm_optcold2.cold.1, . - kpt_asm_optcold2.cold.1\n"
	".popsection\n");

/*
 * x + 3, with the probed code's AC (SMAP off, as between stac and clac
 * around a user access) and DF set at sites 0 and 1.
 */
asm(KPT_ASM_BEGIN(kpt_asm_optac)
	ASM_STAC "\n\t"
	"std\n\t"
	KPT_SITE(kpt_asm_optac) "movq %rdi, %rax\n\t"
	KPT_SITE(kpt_asm_optac) "addq $1, %rax\n\t"
	"addq $2, %rax\n\t"
	"cld\n\t"
	ASM_CLAC "\n\t"
	KPT_RET
	KPT_ASM_END(kpt_asm_optac)
);

/*
 * Blacklisted by annotation, with a part named as GCC names what it splits
 * off (kpt_asm_nokp.part.0, never run): the part is blacklisted with it.
 * (A .cold part would be followed by objtool only from jumps into it.)
 */
asm(KPT_ASM_BEGIN(kpt_asm_nokp)
	"movq %rdi, %rax\n\t"
	KPT_RET
	KPT_ASM_END(kpt_asm_nokp)
	".pushsection .text, \"ax\"\n"
	".type kpt_asm_nokp.part.0, @function\n"
	"kpt_asm_nokp.part.0:\n\t"
	"addq $1, %rax\n\t"
	KPT_RET
	".size kpt_asm_nokp.part.0, . - kpt_asm_nokp.part.0\n"
	".popsection\n"
	".pushsection _kprobe_blacklist, \"aw\"\n"
	".balign 8\n"
	".quad kpt_asm_nokp\n"
	".popsection\n");

/*
 * The preambles clang's kCFI (the type hash in a movl) and call padding
 * put before a function, under symbols of their own; never run.
 */
asm(".pushsection .text, \"ax\"\n"
	".balign 16\n"
	".type __cfi_kpt_asm_padded, @function\n"
	"__cfi_kpt_asm_padded:\n\t"
	"movl $0x6b707431, %eax\n\t"
	".fill 11, 1, 0x90\n"
	".size __cfi_kpt_asm_padded, . - __cfi_kpt_asm_padded\n"
	".type __pfx_kpt_asm_padded, @function\n"
	"__pfx_kpt_asm_padded:\n\t"
	".fill 16, 1, 0x90\n"
	".size __pfx_kpt_asm_padded, . - __pfx_kpt_asm_padded\n"
	".popsection\n"
	KPT_ASM_START(kpt_asm_padded, ".balign 16")
	"movq %rdi, %rax\n\t"
	KPT_RET
	KPT_ASM_END(kpt_asm_padded));

/*
 * The keys the asm above names in its __jump_table entries; optimizer.c
 * switches them.
 */
DEFINE_STATIC_KEY_FALSE(kpt_opt_key);
DEFINE_STATIC_KEY_FALSE(kpt_opt_jl_key);

/* Its traps are dead ends, which leave the rest unreachable for objtool. */
STACK_FRAME_NON_STANDARD(kpt_asm_refused);

/**
 * kpt_nr_sites() - count the recorded instructions of an assembly target
 * @sites: the function's site table, fn_sites[]
 *
 * Return: the number of offsets in @sites before its ~0U end mark.
 */
unsigned int kpt_nr_sites(const u32 *sites)
{
	unsigned int n = 0;

	while (sites[n] != ~0U)
		n++;
	return n;
}

/**
 * kpt_site() - the address of one recorded instruction
 * @fn: the assembly function
 * @sites: its site table, fn_sites[]
 * @i: the index of the instruction in @sites
 *
 * Return: @fn plus the @i-th offset of @sites.
 */
void *kpt_site(void *fn, const u32 *sites, unsigned int i)
{
	return fn + sites[i];
}
