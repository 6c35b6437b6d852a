/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kpf_call(struct kpf_state *st): run the sequence kpf_target points at
 * with every general register, the arithmetic flags and a 128-byte stack
 * area above its return address taken from @st, and put what it left in
 * them back into @st (layout: see struct kpf_state in kp_fuzz_main.c).
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/nospec-branch.h>

#define ST_RAX		0
#define ST_RCX		8
#define ST_RDX		16
#define ST_RSI		24
#define ST_RDI		32
#define ST_RBP		40
#define ST_R8		48
#define ST_R9		56
#define ST_R10		64
#define ST_R11		72
#define ST_R12		80
#define ST_R13		88
#define ST_R14		96
#define ST_R15		104
#define ST_RBX		112
#define ST_FLAGS	120
#define ST_STACK	128
#define AREA		128

	.text
SYM_FUNC_START(kpf_call)
	pushq %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	pushq %rdi
	subq $AREA, %rsp
	/* The area, from st->stack. */
	leaq ST_STACK(%rdi), %rsi
	movq %rsp, %rdi
	movl $AREA, %ecx
	rep movsb
	movq AREA(%rsp), %r11
	pushq ST_FLAGS(%r11)
	popfq
	movq ST_RAX(%r11), %rax
	movq ST_RCX(%r11), %rcx
	movq ST_RDX(%r11), %rdx
	movq ST_RSI(%r11), %rsi
	movq ST_RDI(%r11), %rdi
	movq ST_RBP(%r11), %rbp
	movq ST_R8(%r11), %r8
	movq ST_R9(%r11), %r9
	movq ST_R10(%r11), %r10
	movq ST_R12(%r11), %r12
	movq ST_R13(%r11), %r13
	movq ST_R14(%r11), %r14
	movq ST_R15(%r11), %r15
	movq ST_RBX(%r11), %rbx
	movq ST_R11(%r11), %r11
	ANNOTATE_RETPOLINE_SAFE
	call *kpf_target(%rip)
	pushfq
	pushq %r11
	movq AREA+16(%rsp), %r11
	movq %rax, ST_RAX(%r11)
	movq %rcx, ST_RCX(%r11)
	movq %rdx, ST_RDX(%r11)
	movq %rsi, ST_RSI(%r11)
	movq %rdi, ST_RDI(%r11)
	movq %rbp, ST_RBP(%r11)
	movq %r8, ST_R8(%r11)
	movq %r9, ST_R9(%r11)
	movq %r10, ST_R10(%r11)
	movq %r12, ST_R12(%r11)
	movq %r13, ST_R13(%r11)
	movq %r14, ST_R14(%r11)
	movq %r15, ST_R15(%r11)
	movq %rbx, ST_RBX(%r11)
	popq %rax
	movq %rax, ST_R11(%r11)
	popq %rax
	movq %rax, ST_FLAGS(%r11)
	/* The area, back into st->stack. */
	leaq ST_STACK(%r11), %rdi
	movq %rsp, %rsi
	movl $AREA, %ecx
	rep movsb
	addq $AREA, %rsp
	popq %rdi
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	RET
SYM_FUNC_END(kpf_call)
