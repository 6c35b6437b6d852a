// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit tests for kprobes and kretprobes.
 *
 * Every case but those of group 6b registers probes on functions of this
 * file only, runs those functions from the test thread (or from helper
 * kthreads it owns), and asserts what can be observed from outside:
 * registration errnos, the address a probe resolved to, handler hit counts
 * and their order, the registers a handler saw, nmissed counters, return
 * values, stack traces.
 *
 * The cases come in groups, in this order:
 *
 *  1. registration: by symbol, by address, symbol+offset, "mod:sym", and
 *     each refused registration with its errno (the blacklist included);
 *  2. handler semantics: pre/post order, registers seen by post_handler,
 *     a pre_handler that moves regs->ip, nmissed when a probe is hit
 *     inside a handler;
 *  3. several probes on one address, enable/disable, unregister, batches
 *     and their rollback, concurrent hits, unregister vs. a running handler;
 *  4. (x86-64) probes on every instruction of small assembly functions made
 *     of instructions that cannot simply be copied and stepped elsewhere:
 *     RIP-relative operands, relative jmp/call/jcc, loop/jrcxz, push/pop,
 *     pushf and ret.  Each function must still compute its result;
 *  5. kretprobes: return value, entry_handler, per-instance data,
 *     maxactive and nmissed, stack traces through the return trampoline;
 *  6. (x86-64, built in) jump optimization: a probe without post_handler
 *     gets its jump and sees the registers the breakpoint path shows; a
 *     post_handler joining, a probe inside the jump, the sysctl take it
 *     away; a jump target, an instruction with an exception-table entry
 *     or a fixup target inside is refused; kretprobe entries; toggling
 *     under load from every CPU;
 *     6b. ftrace-based probes: pre/post and the ip each sees, a pre_handler
 *     redirecting the call, nmissed, a kretprobe on such a function.  lib/
 *     has no ftrace call at function entry, so these probe mktime64();
 *  7. (x86-64) fault_handler; last, since a broken fault path takes the
 *     kernel down with it.
 *
 * Every probe is registered through kpt_register*(), which also queues its
 * unregistration as a KUnit action: a failed assertion never leaves a probe
 * armed on a function whose handler data has been freed.
 *
 * Targets are noinline and __noipa, so they are real calls that keep their
 * names in kallsyms and are neither cloned nor folded into their callers.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/hw_breakpoint.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/kcsan-checks.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/linkage.h>
#include <linux/module.h>
#include <linux/objtool.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/stacktrace.h>
#include <linux/static_call.h>
#include <linux/time.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#ifdef CONFIG_X86_64
#include <asm/asm.h>
#include <asm/extable_fixup_types.h>
#include <asm/ibt.h>
#include <asm/nospec-branch.h>
#include <asm/smap.h>
#include <asm/trapnr.h>
#endif
#ifdef CONFIG_X86
#include <asm/text-patching.h>
#endif

/*
 * kprobe_running() and the return trampoline are not exported to modules:
 * a modular build of this suite leaves out the checks that need them.
 */
#define KPT_BUILTIN	IS_BUILTIN(CONFIG_KPROBES_SANITY_TEST)

static struct kprobe *kpt_running(void)
{
#if KPT_BUILTIN
	return kprobe_running();
#else
	return NULL;
#endif
}

static bool kpt_is_trampoline(unsigned long addr)
{
#if KPT_BUILTIN
	return is_kretprobe_trampoline(addr);
#else
	return false;
#endif
}

/* Bumped by handlers and targets to record in which order they ran. */
static int kpt_seq;

/* ---------------------------------------------------------------------- */
/* Target functions                                                        */

/*
 * __noipa is empty with clang, which removes a call whose result goes
 * unused when it can see that the function has no side effect: cases that
 * call a target only to hit its probe would then hit nothing.  A volatile
 * asm is a side effect to both compilers.
 */
static __always_inline void kpt_keep_calls(void)
{
	asm volatile("");
}

static int kpt_add_body_seq;

static noinline __noipa unsigned long kpt_target_add(unsigned long a, unsigned long b)
{
	kpt_add_body_seq = ++kpt_seq;
	return a + b;
}

static noinline __noipa unsigned long kpt_target_inner(unsigned long x)
{
	kpt_keep_calls();
	return x * 7 + 3;
}

static noinline __noipa unsigned long kpt_target_outer(unsigned long x)
{
	kpt_keep_calls();
	return x ^ 0x5a;
}

static noinline __noipa unsigned long kpt_target_spin(unsigned long x)
{
	kpt_keep_calls();
	return x + 1;
}

/* Sum of 0..n, computed recursively (the call is not a tail call). */
static noinline __noipa unsigned long kpt_recurse(unsigned long n)
{
	unsigned long sum = n;

	if (n)
		sum += kpt_recurse(n - 1);
	barrier();
	return sum;
}

/* Where kpt_ret_target() was asked to return to, as it saw it. */
static unsigned long kpt_ret_target_ra;

static noinline __noipa unsigned long kpt_ret_target(unsigned long x)
{
	kpt_ret_target_ra = (unsigned long)__builtin_return_address(0);
	return x * 3 + 1;
}

static noinline __noipa unsigned long kpt_ret_caller(unsigned long x)
{
	unsigned long ret = kpt_ret_target(x);

	barrier();
	return ret;
}

/* A task that stops inside kpt_park_target() until released. */
struct kpt_park {
	struct completion entered;
	struct completion release;
	unsigned long result;
	bool done;
};

static unsigned long kpt_park_target_ra;

static noinline __noipa unsigned long kpt_park_target(struct kpt_park *pk)
{
	if (!pk) {
		kpt_park_target_ra = (unsigned long)__builtin_return_address(0);
		return 11;
	}
	complete(&pk->entered);
	wait_for_completion(&pk->release);
	return 11;
}

static noinline __noipa unsigned long kpt_park_caller(struct kpt_park *pk)
{
	unsigned long ret = kpt_park_target(pk);

	barrier();
	return ret;
}

/* Blacklisted by annotation: registration must fail. */
static noinline __noipa unsigned long kpt_nokprobe_target(unsigned long x)
{
	return x + 2;
}

NOKPROBE_SYMBOL(kpt_nokprobe_target);

static noinline __noipa __kprobes unsigned long kpt_kprobes_text_target(unsigned long x)
{
	return x + 3;
}

/* Data, not text. */
static unsigned long kpt_data_word = 0x1234;

/* ---------------------------------------------------------------------- */
/* Probe bookkeeping                                                       */

KUNIT_DEFINE_ACTION_WRAPPER(kpt_unregister_kprobe_action, unregister_kprobe,
			    struct kprobe *);
KUNIT_DEFINE_ACTION_WRAPPER(kpt_unregister_kretprobe_action,
			    unregister_kretprobe, struct kretprobe *);

/* Registers @kp and queues its unregistration for the end of the test. */
static int kpt_register(struct kunit *test, struct kprobe *kp)
{
	int ret = register_kprobe(kp);

	if (ret)
		return ret;
	return kunit_add_action_or_reset(test, kpt_unregister_kprobe_action, kp);
}

static void kpt_unregister(struct kunit *test, struct kprobe *kp)
{
	kunit_release_action(test, kpt_unregister_kprobe_action, kp);
}

/*
 * Batch registrations defer one unregister action per member, so a case
 * that fails half way still leaves nothing registered.  The batch helpers
 * for kprobes and kretprobes share these two loops over their members.
 */
static int kpt_defer_each(struct kunit *test, kunit_action_t *action,
			  void *const *members, int num)
{
	int i, ret = 0;

	for (i = 0; i < num && !ret; i++)
		ret = kunit_add_action_or_reset(test, action, members[i]);
	return ret;
}

static void kpt_forget_each(struct kunit *test, kunit_action_t *action,
			    void *const *members, int num)
{
	int i;

	for (i = 0; i < num; i++)
		kunit_remove_action(test, action, members[i]);
}

static int kpt_register_many(struct kunit *test, struct kprobe **kps, int num)
{
	int ret = register_kprobes(kps, num);

	return ret ? ret : kpt_defer_each(test, kpt_unregister_kprobe_action,
					  (void *const *)kps, num);
}

static void kpt_unregister_many(struct kunit *test, struct kprobe **kps,
				int num)
{
	unregister_kprobes(kps, num);
	kpt_forget_each(test, kpt_unregister_kprobe_action,
			(void *const *)kps, num);
}

static int kpt_register_ret(struct kunit *test, struct kretprobe *rp)
{
	int ret = register_kretprobe(rp);

	if (ret)
		return ret;
	return kunit_add_action_or_reset(test, kpt_unregister_kretprobe_action,
					 rp);
}

static void kpt_unregister_ret(struct kunit *test, struct kretprobe *rp)
{
	kunit_release_action(test, kpt_unregister_kretprobe_action, rp);
}

static int kpt_register_rets(struct kunit *test, struct kretprobe **rps,
			     int num)
{
	int ret = register_kretprobes(rps, num);

	return ret ? ret : kpt_defer_each(test, kpt_unregister_kretprobe_action,
					  (void *const *)rps, num);
}

static void kpt_unregister_rets(struct kunit *test, struct kretprobe **rps,
				int num)
{
	unregister_kretprobes(rps, num);
	kpt_forget_each(test, kpt_unregister_kretprobe_action,
			(void *const *)rps, num);
}

/* The address a probe on @fn+0 must report (past ENDBR on IBT kernels). */
static unsigned long kpt_entry_addr(const void *fn)
{
	unsigned long addr = (unsigned long)fn;

	/* Computed at run time: fn + 4 as a relocation would upset objtool. */
	OPTIMIZER_HIDE_VAR(addr);
#ifdef CONFIG_X86_64
	if (IS_ENABLED(CONFIG_X86_KERNEL_IBT) && is_endbr(*(const u32 *)fn))
		addr += ENDBR_INSN_SIZE;
#endif
	return addr;
}

/* A kprobe that counts and remembers what its handlers saw. */
struct kpt_probe {
	struct kprobe kp;
	unsigned int pre_hits;
	unsigned int post_hits;
	int pre_seq;
	int post_seq;
	struct kprobe *pre_running;
	struct kprobe *post_running;
	bool pre_preemptible;
	unsigned long pre_ax;
	unsigned long post_ax;
	unsigned long post_ip;
	/* If set, pre_handler moves regs->ip here and returns 1. */
	unsigned long new_ip;
	/* If set, pre_handler calls this (to hit a probe from a handler). */
	unsigned long (*call_in_pre)(unsigned long x);
	unsigned long call_result;
	/* An argument for the handlers of the fault tests. */
	unsigned long arg;
	/* fault_handler bookkeeping */
	unsigned int fault_hits;
	int fault_trapnr;
	unsigned long fault_ip;
	unsigned int fault_len;
};

static struct kpt_probe *to_kpt_probe(struct kprobe *kp)
{
	return container_of(kp, struct kpt_probe, kp);
}

static int kpt_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct kpt_probe *p = to_kpt_probe(kp);

	p->pre_hits++;
	p->pre_seq = ++kpt_seq;
	p->pre_running = kpt_running();
	p->pre_preemptible = preemptible();
	p->pre_ax = regs_return_value(regs);
	if (p->call_in_pre)
		p->call_result = p->call_in_pre(41);
	if (p->new_ip) {
		instruction_pointer_set(regs, p->new_ip);
		return 1;
	}
	return 0;
}

static void kpt_post(struct kprobe *kp, struct pt_regs *regs,
		     unsigned long flags)
{
	struct kpt_probe *p = to_kpt_probe(kp);

	p->post_hits++;
	p->post_seq = ++kpt_seq;
	p->post_running = kpt_running();
	p->post_ax = regs_return_value(regs);
	p->post_ip = instruction_pointer(regs);
}

static struct kpt_probe *kpt_probe_new(struct kunit *test, void *addr,
				       bool with_post)
{
	struct kpt_probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->kp.addr = addr;
	p->kp.pre_handler = kpt_pre;
	if (with_post)
		p->kp.post_handler = kpt_post;
	return p;
}

/*
 * @p must be refused with @err, and a refused probe must leave no trace:
 * calling kpt_target_add() afterwards does not reach its handler.
 */
static void kpt_expect_refused(struct kunit *test, struct kpt_probe *p, int err)
{
	KUNIT_EXPECT_EQ(test, kpt_register(test, &p->kp), err);
	kpt_target_add(1, 1);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 0U);
}

static int kprobes_test_init(struct kunit *test)
{
	kpt_seq = 0;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* x86-64 assembly targets                                                 */

#ifdef CONFIG_X86_64
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
	#fn "_sites:\n"							\
	".popsection\n"							\
	".pushsection .text, \"ax\"\n"					\
	align "\n"							\
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

/* Declares an assembly function of this file and its site table. */
#define KPT_ASM_FUNC(fn, ...)	unsigned long fn(__VA_ARGS__)
#define KPT_ASM_SITES(fn)	extern const u32 fn##_sites[]

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

/* The asm above names them: kept even where no test switches them. */
static __used DEFINE_STATIC_KEY_FALSE(kpt_opt_key);
static __used DEFINE_STATIC_KEY_FALSE(kpt_opt_jl_key);

KPT_ASM_FUNC(kpt_asm_riprel, unsigned long x);
KPT_ASM_SITES(kpt_asm_riprel);
KPT_ASM_FUNC(kpt_asm_jmp, unsigned long x);
KPT_ASM_SITES(kpt_asm_jmp);
KPT_ASM_FUNC(kpt_asm_helper, unsigned long x);
KPT_ASM_SITES(kpt_asm_helper);
KPT_ASM_FUNC(kpt_asm_call, unsigned long x);
KPT_ASM_SITES(kpt_asm_call);
KPT_ASM_FUNC(kpt_asm_jcc, unsigned long x);
KPT_ASM_SITES(kpt_asm_jcc);
KPT_ASM_FUNC(kpt_asm_jcc_all, unsigned long x, unsigned long y);
KPT_ASM_SITES(kpt_asm_jcc_all);
KPT_ASM_FUNC(kpt_asm_loop, unsigned long n);
KPT_ASM_SITES(kpt_asm_loop);
KPT_ASM_FUNC(kpt_asm_pushpop, unsigned long x);
KPT_ASM_SITES(kpt_asm_pushpop);
KPT_ASM_FUNC(kpt_asm_flags, unsigned long x, unsigned long y);
KPT_ASM_SITES(kpt_asm_flags);
KPT_ASM_FUNC(kpt_asm_regs, unsigned long x);
KPT_ASM_SITES(kpt_asm_regs);
KPT_ASM_FUNC(kpt_asm_load, const unsigned long *p);
KPT_ASM_SITES(kpt_asm_load);
KPT_ASM_FUNC(kpt_asm_store, unsigned long *p, unsigned long x);
KPT_ASM_SITES(kpt_asm_store);
KPT_ASM_FUNC(kpt_asm_gp, void);
KPT_ASM_SITES(kpt_asm_gp);
KPT_ASM_FUNC(kpt_asm_opt, unsigned long x);
KPT_ASM_SITES(kpt_asm_opt);
KPT_ASM_FUNC(kpt_asm_early, unsigned long x);
KPT_ASM_SITES(kpt_asm_early);
KPT_ASM_FUNC(kpt_asm_optjt, unsigned long x);
KPT_ASM_SITES(kpt_asm_optjt);
KPT_ASM_FUNC(kpt_asm_optex, const unsigned long *p);
KPT_ASM_SITES(kpt_asm_optex);
KPT_ASM_FUNC(kpt_asm_optfx, unsigned long x, const unsigned long *p);
KPT_ASM_SITES(kpt_asm_optfx);
KPT_ASM_FUNC(kpt_asm_optind, unsigned long x, unsigned long y);
KPT_ASM_SITES(kpt_asm_optind);
KPT_ASM_FUNC(kpt_asm_optirq, unsigned long x);
KPT_ASM_SITES(kpt_asm_optirq);
KPT_ASM_FUNC(kpt_asm_optnop, unsigned long x);
KPT_ASM_SITES(kpt_asm_optnop);
KPT_ASM_FUNC(kpt_asm_optcold, unsigned long x);
KPT_ASM_SITES(kpt_asm_optcold);
KPT_ASM_FUNC(kpt_asm_optcold2, unsigned long x);
KPT_ASM_SITES(kpt_asm_optcold2);
KPT_ASM_FUNC(kpt_asm_optac, unsigned long x);
KPT_ASM_SITES(kpt_asm_optac);
KPT_ASM_FUNC(kpt_asm_nokp, unsigned long x);
KPT_ASM_FUNC(kpt_asm_padded, unsigned long x);
KPT_ASM_FUNC(kpt_asm_optkey, unsigned long x);
KPT_ASM_SITES(kpt_asm_optkey);
KPT_ASM_FUNC(kpt_asm_optjl, unsigned long x);
KPT_ASM_SITES(kpt_asm_optjl);
KPT_ASM_FUNC(kpt_asm_retimm_callee, unsigned long x);
KPT_ASM_SITES(kpt_asm_retimm_callee);
KPT_ASM_FUNC(kpt_asm_retimm, unsigned long x);
KPT_ASM_SITES(kpt_asm_retimm);
KPT_ASM_FUNC(kpt_asm_icall, unsigned long x);
KPT_ASM_SITES(kpt_asm_icall);
KPT_ASM_FUNC(kpt_asm_refused, unsigned long x);
KPT_ASM_SITES(kpt_asm_refused);

/* Its traps are dead ends, which leave the rest unreachable for objtool. */
STACK_FRAME_NON_STANDARD(kpt_asm_refused);

static unsigned int kpt_nr_sites(const u32 *sites)
{
	unsigned int n = 0;

	while (sites[n] != ~0U)
		n++;
	return n;
}

static void *kpt_site(void *fn, const u32 *sites, unsigned int i)
{
	return fn + sites[i];
}
#endif /* CONFIG_X86_64 */

/* ---------------------------------------------------------------------- */
/* 1. Registration                                                         */

static void kprobe_register_by_symbol(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, NULL, false);

	p->kp.symbol_name = "kpt_target_add";
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)p->kp.addr,
			kpt_entry_addr(kpt_target_add));
	KUNIT_EXPECT_TRUE(test, p->kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);

	KUNIT_EXPECT_EQ(test, kpt_target_add(2, 3), 5UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, kpt_target_add(4, 3), 7UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 2U);
	KUNIT_EXPECT_EQ(test, p->kp.nmissed, 0UL);
}

#if KPT_BUILTIN
/*
 * Audit row A17: a registration before init_kprobes() has built the
 * blacklist is put off (-EAGAIN), not let through unchecked, and leaves
 * nothing behind.
 */
static void kprobe_register_before_init(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, NULL, false);
	int ret;

	p->kp.symbol_name = "kpt_target_add";
	kprobes_test_set_ready(false);
	ret = register_kprobe(&p->kp);
	kprobes_test_set_ready(true);
	KUNIT_EXPECT_EQ(test, ret, -EAGAIN);
	KUNIT_EXPECT_EQ(test, kpt_target_add(2, 3), 5UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 0U);

	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_target_add(2, 3), 5UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
}

/*
 * Audit row D7: fprobe and kretprobe returns mark their CPU busy with
 * kprobe_busy_begin() while they run a handler; a probe hit meanwhile
 * only counts as missed, and the probe fires again after
 * kprobe_busy_end().
 */
static void kprobe_busy_section_misses(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, NULL, false);
	struct kprobe *running;
	unsigned long ret;
	int status;

	p->kp.symbol_name = "kpt_target_add";
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);

	kprobe_busy_begin();
	running = kprobe_running();
	status = get_kprobe_ctlblk()->kprobe_status;
	ret = kpt_target_add(2, 3);
	kprobe_busy_end();

	KUNIT_EXPECT_NOT_NULL(test, running);
	KUNIT_EXPECT_EQ(test, status, KPROBE_HIT_ACTIVE);
	KUNIT_EXPECT_EQ(test, ret, 5UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 0U);
	KUNIT_EXPECT_EQ(test, p->kp.nmissed, 1UL);
	preempt_disable();
	running = kprobe_running();
	preempt_enable();
	KUNIT_EXPECT_NULL(test, running);

	KUNIT_EXPECT_EQ(test, kpt_target_add(2, 3), 5UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
}
#endif

static void kprobe_register_by_addr(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, kpt_target_add, true);

	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)p->kp.addr,
			kpt_entry_addr(kpt_target_add));
	KUNIT_EXPECT_TRUE(test, p->kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);

	KUNIT_EXPECT_EQ(test, kpt_target_add(10, 20), 30UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->post_hits, 1U);
}

static void kprobe_unknown_symbol(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, NULL, false);

	p->kp.symbol_name = "kpt_no_such_function_anywhere";
	KUNIT_EXPECT_EQ(test, kpt_register(test, &p->kp), -ENOENT);
}

static void kprobe_mod_sym_absent_module(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, NULL, false);

	/* The symbol exists, but not in a module of that name. */
	p->kp.symbol_name = "kpt_no_such_module:kpt_target_add";
	kpt_expect_refused(test, p, -ENOENT);
}

static void kprobe_mod_sym(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, NULL, false);

	if (!IS_MODULE(CONFIG_KPROBES_SANITY_TEST))
		kunit_skip(test, "built in: no module to name (see guest tests)");

	p->kp.symbol_name = KBUILD_MODNAME ":kpt_target_add";
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)p->kp.addr,
			kpt_entry_addr(kpt_target_add));
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 2), 3UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
}

static void kprobe_symbol_and_addr(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, kpt_target_add, false);

	p->kp.symbol_name = "kpt_target_add";
	kpt_expect_refused(test, p, -EINVAL);
}

static void kprobe_no_symbol_no_addr(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, NULL, false);

	KUNIT_EXPECT_EQ(test, kpt_register(test, &p->kp), -EINVAL);
}

static void kprobe_not_text(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, &kpt_data_word, false);
	struct kpt_probe *q = kpt_probe_new(test, NULL, false);
	void *heap = kunit_kzalloc(test, 64, GFP_KERNEL);
	struct kpt_probe *h = kpt_probe_new(test, heap, false);

	KUNIT_EXPECT_EQ(test, kpt_register(test, &p->kp), -EINVAL);
	q->kp.symbol_name = "kpt_data_word";
	/* Without KALLSYMS_ALL a data symbol has no name to look up. */
	KUNIT_EXPECT_EQ(test, kpt_register(test, &q->kp),
			IS_ENABLED(CONFIG_KALLSYMS_ALL) ? -EINVAL : -ENOENT);
	/* Outside any symbol: refused, as -EINVAL or as unknown. */
	KUNIT_EXPECT_LT(test, kpt_register(test, &h->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_data_word, 0x1234UL);
}

static void kprobe_blacklist_local(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, kpt_nokprobe_target, false);
	struct kpt_probe *q = kpt_probe_new(test, kpt_kprobes_text_target,
					    false);

	KUNIT_EXPECT_EQ(test, kpt_register(test, &p->kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_register(test, &q->kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_nokprobe_target(1), 3UL);
	KUNIT_EXPECT_EQ(test, kpt_kprobes_text_target(1), 4UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits + q->pre_hits, 0U);
#if KPT_BUILTIN
	KUNIT_EXPECT_TRUE(test,
			  within_kprobe_blacklist((unsigned long)kpt_nokprobe_target));
	KUNIT_EXPECT_TRUE(test,
			  within_kprobe_blacklist((unsigned long)kpt_kprobes_text_target));
	KUNIT_EXPECT_FALSE(test,
			   within_kprobe_blacklist((unsigned long)kpt_target_add));
#endif
}

#ifdef CONFIG_X86_64
/*
 * What the compiler split off a blacklisted function (NAME.cold,
 * NAME.part.N, ...) runs that function's code, and is refused with it.
 */
static void kprobe_blacklist_split_part(struct kunit *test)
{
	struct kprobe *part = kunit_kzalloc(test, sizeof(*part), GFP_KERNEL);
	struct kprobe *func = kunit_kzalloc(test, sizeof(*func), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, part);
	KUNIT_ASSERT_NOT_NULL(test, func);
	part->symbol_name = "kpt_asm_nokp.part.0";
	func->addr = (kprobe_opcode_t *)kpt_asm_nokp;
	KUNIT_EXPECT_EQ(test, kpt_register(test, func), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_register(test, part), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_asm_nokp(7), 7UL);
#if KPT_BUILTIN
	{
		unsigned long at = kallsyms_lookup_name("kpt_asm_nokp.part.0");
		unsigned long parent = 0;

		KUNIT_ASSERT_NE(test, at, 0UL);
		KUNIT_EXPECT_EQ(test, kprobe_clone_parent(at, true, &parent), 0);
		KUNIT_EXPECT_EQ(test, parent, (unsigned long)kpt_asm_nokp);
		KUNIT_EXPECT_EQ(test, kprobe_clone_parent((unsigned long)kpt_asm_nokp,
							  false, &parent), -ENOENT);
	}
#endif
}

/*
 * A jump optimized over a kCFI preamble would overwrite the type hash that
 * every indirect caller compares: preambles are refused, the function
 * after them is not.
 */
static void kprobe_refused_preamble(struct kunit *test)
{
	static const struct {
		const char *symbol;
		unsigned int offset;
	} refused[] = {
		{ "__cfi_kpt_asm_padded", 0 },
		{ "__cfi_kpt_asm_padded", 5 },
		{ "__pfx_kpt_asm_padded", 0 },
	};
	struct kpt_probe *func = kpt_probe_new(test, kpt_asm_padded, false);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(refused); i++) {
		struct kpt_probe *p = kpt_probe_new(test, NULL, false);

		p->kp.symbol_name = refused[i].symbol;
		p->kp.offset = refused[i].offset;
		KUNIT_EXPECT_EQ_MSG(test, kpt_register(test, &p->kp), -EINVAL,
				    "%s+%u", refused[i].symbol,
				    refused[i].offset);
	}
	KUNIT_ASSERT_EQ(test, kpt_register(test, &func->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_asm_padded(9), 9UL);
	KUNIT_EXPECT_EQ(test, func->pre_hits, 1U);
}

/* x + 1 through a function pointer the compiler cannot see through. */
static noinline __noipa unsigned long kpt_cfi_caller(unsigned long x)
{
	unsigned long (*fn)(unsigned long) = kpt_target_inner;

	OPTIMIZER_HIDE_VAR(fn);
	return fn(x) + 1;
}

/*
 * Under kCFI an indirect call is preceded by its check,
 *	movl $-hash, %r10d; addl -N(%r11), %r10d; je 1f; ud2; 1:
 * and the CFI trap handler reads the movl and addl back from the ud2 to
 * name the types: both are refused (-EOPNOTSUPP), the je takes a probe.
 * Audit A10.
 */
static void kprobe_refused_cfi_check(struct kunit *test)
{
	static const u8 je_ud2[] = { 0x74, 0x02, 0x0f, 0x0b };
	const u8 *text = (const u8 *)kpt_cfi_caller;
	struct kpt_probe *movl, *addl, *je;
	/* The function is a few instructions long; its text is read. */
	unsigned int i, size = 64;

	if (!IS_ENABLED(CONFIG_CFI_CLANG))
		kunit_skip(test, "needs CONFIG_CFI_CLANG");
	/* With IBT, FineIBT may have rewritten the checks at boot. */
	if (cpu_feature_enabled(X86_FEATURE_IBT))
		kunit_skip(test, "IBT: the call sites may be FineIBT's");
	for (i = 0; i + 14 <= size; i++)
		if (text[i] == 0x41 && text[i + 1] == 0xba &&
		    text[i + 6] == 0x45 && text[i + 7] == 0x03 &&
		    !memcmp(text + i + 10, je_ud2, sizeof(je_ud2)))
			break;
	KUNIT_ASSERT_LE_MSG(test, i + 14, size, "no kCFI check in %ps", text);

	movl = kpt_probe_new(test, (void *)text + i, false);
	addl = kpt_probe_new(test, (void *)text + i + 6, false);
	je = kpt_probe_new(test, (void *)text + i + 10, false);
	KUNIT_EXPECT_EQ(test, kpt_register(test, &movl->kp), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, kpt_register(test, &addl->kp), -EOPNOTSUPP);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &je->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_cfi_caller(4), kpt_target_inner(4) + 1);
	KUNIT_EXPECT_EQ(test, je->pre_hits, 1U);
}

/*
 * A jump label's own bytes belong to its key, which rewrites them when
 * it flips, with or without a breakpoint there: -EBUSY, and the key's
 * (off) path runs unchanged.  The instruction after it takes a probe.
 */
static void kprobe_refused_jump_label_site(struct kunit *test)
{
	void *label = kpt_site(kpt_asm_optkey, kpt_asm_optkey_sites, 1);
	void *next = kpt_site(kpt_asm_optkey, kpt_asm_optkey_sites, 2);
	struct kpt_probe *p, *q;

	if (!IS_ENABLED(CONFIG_JUMP_LABEL))
		kunit_skip(test, "no jump labels: the site is a plain nop");
	p = kpt_probe_new(test, label, false);
	q = kpt_probe_new(test, next, false);
	KUNIT_EXPECT_EQ(test, kpt_register(test, &p->kp), -EBUSY);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &q->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_asm_optkey(10), 11UL);
	KUNIT_EXPECT_EQ(test, q->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 0U);
}

#if KPT_BUILTIN && defined(CONFIG_HAVE_STATIC_CALL_INLINE)
static unsigned long kpt_sc_double(unsigned long x)
{
	return 2 * x;
}

DEFINE_STATIC_CALL(kpt_sc, kpt_sc_double);

/* The + 1 keeps the static call a call, not a tail jump. */
static noinline __noclone unsigned long kpt_sc_caller(unsigned long x)
{
	return static_call(kpt_sc)(x) + 1;
}

extern struct static_call_site __start_static_call_sites[],
			       __stop_static_call_sites[];

/* Where objtool says kpt_sc_caller() calls through kpt_sc: its one site. */
static void *kpt_sc_site(void)
{
	struct static_call_site *site;
	unsigned long key;
	void *found = NULL;

	for (site = __start_static_call_sites;
	     site < __stop_static_call_sites; site++) {
		key = ((long)&site->key + site->key) & ~STATIC_CALL_SITE_FLAGS;
		if (key != (unsigned long)&STATIC_CALL_KEY(kpt_sc))
			continue;
		if (found)
			return NULL;
		found = (void *)((long)&site->addr + site->addr);
	}
	return found;
}

/*
 * A static call site belongs to its key, which rewrites the call when the
 * call is updated: -EBUSY, found by static_call_text_reserved()'s lookup
 * by address (a patch to kernel/static_call_inline.c in this series), at
 * its first byte and inside it.  The instruction after it takes a probe.
 * In the kprobes_text_reserved suite, run at boot (init sites count) and
 * again after it (guest:kprobe_text_reserved_after_boot).
 */
static void kprobe_refused_static_call_site(struct kunit *test)
{
	u8 *site = kpt_sc_site();
	struct kpt_probe *p, *q;

	KUNIT_ASSERT_NOT_NULL(test, site);
	KUNIT_ASSERT_TRUE(test, site > (u8 *)kpt_sc_caller);
	KUNIT_EXPECT_EQ(test, static_call_text_reserved(site, site), 1);
	KUNIT_EXPECT_EQ(test, static_call_text_reserved(site + 4, site + 4), 1);
	KUNIT_EXPECT_EQ(test, static_call_text_reserved(site - 1, site - 1), 0);
	KUNIT_EXPECT_EQ(test, static_call_text_reserved(site + 5, site + 5), 0);

	p = kpt_probe_new(test, site, false);
	q = kpt_probe_new(test, site + 5, false);
	KUNIT_EXPECT_EQ(test, kpt_register(test, &p->kp), -EBUSY);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &q->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_sc_caller(20), 41UL);
	KUNIT_EXPECT_EQ(test, q->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 0U);
}
#endif
#endif

/* Functions that no kprobe may ever be put on. */
static const char * const kpt_blacklisted_symbols[] = {
	"notify_die",			/* NOKPROBE_SYMBOL() */
	"bsearch",			/* NOKPROBE_SYMBOL(), in lib/ */
	"get_kprobe",			/* kprobes' own hit path */
#ifdef CONFIG_X86_64
	"kprobe_int3_handler",		/* the x86 breakpoint path */
	"exc_page_fault",		/* noinstr */
	"entry_SYSCALL_64",		/* entry text */
#endif
#ifdef CONFIG_RETHOOK
	"arch_rethook_trampoline",	/* the return trampoline */
#endif
};

static void kprobe_blacklist_kernel(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kpt_blacklisted_symbols); i++) {
		struct kpt_probe *p = kpt_probe_new(test, NULL, false);

		p->kp.symbol_name = kpt_blacklisted_symbols[i];
		KUNIT_EXPECT_EQ_MSG(test, kpt_register(test, &p->kp), -EINVAL,
				    "symbol %s", kpt_blacklisted_symbols[i]);
	}
}

#ifdef CONFIG_X86_64
/*
 * The return and untrain thunks every return may go through, and the
 * indirect-branch thunk arrays: blacklisted by name on x86, as listed in
 * arch_populate_kprobe_blacklist().  Which of them exist depends on the
 * mitigations configured.
 */
static const char * const kpt_thunk_symbols[] = {
	"__x86_return_thunk",
	"__x86_indirect_thunk_array",
	"__x86_indirect_call_thunk_array",
	"__x86_indirect_jump_thunk_array",
	"__x86_indirect_its_thunk_array",
	/* the last thunks of the arrays: the whole array is blacklisted */
	"__x86_indirect_thunk_r15",
	"__x86_indirect_call_thunk_r15",
	"__x86_indirect_jump_thunk_r15",
	"__x86_indirect_its_thunk_r15",
	"its_return_thunk",
	"retbleed_return_thunk",
	"retbleed_untrain_ret",
	"srso_return_thunk",
	"srso_untrain_ret",
	"srso_alias_return_thunk",
	"srso_alias_untrain_ret",
	"srso_alias_safe_ret",
	"srso_safe_ret",
	"call_depth_return_thunk",
	"entry_untrain_ret",
};

/*
 * Is @name in kallsyms?  Modules cannot ask, the lookup is not exported to
 * them; they go by registration's -ENOENT, which comes from that lookup.
 */
static bool kpt_ksym_exists(const char *name)
{
#if KPT_BUILTIN
	return kallsyms_lookup_name(name);
#else
	return true;
#endif
}

static void kprobe_blacklist_thunks(struct kunit *test)
{
	unsigned int i, present = 0;

	for (i = 0; i < ARRAY_SIZE(kpt_thunk_symbols); i++) {
		const char *name = kpt_thunk_symbols[i];
		struct kpt_probe *p;
		int ret;

		if (!kpt_ksym_exists(name))
			continue;
		p = kpt_probe_new(test, NULL, false);
		p->kp.symbol_name = name;
		ret = kpt_register(test, &p->kp);
		if (!KPT_BUILTIN && ret == -ENOENT)
			continue;
		present++;
		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "symbol %s", name);
	}
	if (!present)
		kunit_skip(test, "no return or untrain thunk in this kernel");
}
#endif

static void kprobe_register_twice(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, kpt_target_add, false);

	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, register_kprobe(&p->kp), -EINVAL);
	/* Still registered once, and only once. */
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 1), 2UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
}

static void kprobe_flag_disabled(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, kpt_target_add, true);

	p->kp.flags = KPROBE_FLAG_DISABLED;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_TRUE(test, p->kp.flags & KPROBE_FLAG_DISABLED);
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 2), 3UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 0U);

	KUNIT_ASSERT_EQ(test, enable_kprobe(&p->kp), 0);
	KUNIT_EXPECT_FALSE(test, p->kp.flags & KPROBE_FLAG_DISABLED);
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 2), 3UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->post_hits, 1U);
}

static void kprobe_disable_enable(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, kpt_target_add, true);

	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	kpt_target_add(1, 1);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);

	KUNIT_ASSERT_EQ(test, disable_kprobe(&p->kp), 0);
	KUNIT_EXPECT_TRUE(test, p->kp.flags & KPROBE_FLAG_DISABLED);
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 1), 2UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->post_hits, 1U);

	KUNIT_ASSERT_EQ(test, enable_kprobe(&p->kp), 0);
	KUNIT_EXPECT_FALSE(test, p->kp.flags & KPROBE_FLAG_DISABLED);
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 1), 2UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 2U);
	KUNIT_EXPECT_EQ(test, p->post_hits, 2U);
	/* A disabled probe does not count its non-hits as missed. */
	KUNIT_EXPECT_EQ(test, p->kp.nmissed, 0UL);
}

static void kprobe_unregister(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, kpt_target_add, false);

	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	kpt_target_add(1, 1);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	kpt_unregister(test, &p->kp);
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 1), 2UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);

	/* A second unregister finds no such probe; it clears addr. */
	unregister_kprobe(&p->kp);
	KUNIT_EXPECT_NULL(test, p->kp.addr);

	/* The struct can be registered again from scratch. */
	p->kp.addr = (void *)kpt_target_add;
	p->kp.flags = 0;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	kpt_target_add(1, 1);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 2U);
}

#ifdef CONFIG_X86_64
static void kprobe_register_symbol_offset(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, NULL, true);
	u32 off = kpt_asm_regs_sites[1];

	p->kp.symbol_name = "kpt_asm_regs";
	p->kp.offset = off;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_PTR_EQ(test, (void *)p->kp.addr,
			    (void *)kpt_asm_regs + off);
	KUNIT_EXPECT_FALSE(test, p->kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
	KUNIT_EXPECT_EQ(test, kpt_asm_regs(1), 1UL + 0x55 + 0x1234);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->post_hits, 1U);
}

static void kprobe_not_insn_boundary(struct kunit *test)
{
	/* Three bytes into "movq kpt_asm_data(%rip), %rax" (seven bytes). */
	u32 off = kpt_asm_riprel_sites[0] + 3;
	struct kpt_probe *p = kpt_probe_new(test, (void *)kpt_asm_riprel + off,
					    false);
	struct kpt_probe *q = kpt_probe_new(test, NULL, false);

	KUNIT_EXPECT_EQ(test, kpt_register(test, &p->kp), -EILSEQ);
	q->kp.symbol_name = "kpt_asm_riprel";
	q->kp.offset = off;
	KUNIT_EXPECT_EQ(test, kpt_register(test, &q->kp), -EILSEQ);
	KUNIT_EXPECT_EQ(test, kpt_asm_riprel(0), 0x1231UL);
}
#endif /* CONFIG_X86_64 */

/* ---------------------------------------------------------------------- */
/* 2. Handler semantics                                                    */

static void kprobe_pre_post_order(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, kpt_target_add, true);
	int returned_seq;

	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_target_add(5, 6), 11UL);
	returned_seq = ++kpt_seq;
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->post_hits, 1U);
	/*
	 * pre before the function body, post after pre and before the return.
	 * (The probed first instruction may already belong to the body:
	 * lib/ is built without the ftrace call at function entry.)
	 */
	KUNIT_EXPECT_LT(test, p->pre_seq, kpt_add_body_seq);
	KUNIT_EXPECT_LT(test, p->pre_seq, p->post_seq);
	KUNIT_EXPECT_LT(test, p->post_seq, returned_seq);
	KUNIT_EXPECT_FALSE(test, p->pre_preemptible);
	if (KPT_BUILTIN) {
		/* Both ran as the current kprobe... */
		KUNIT_EXPECT_PTR_EQ(test, p->pre_running, &p->kp);
		KUNIT_EXPECT_PTR_EQ(test, p->post_running, &p->kp);
		/* ...and nothing is left running once we are back. */
		preempt_disable();
		KUNIT_EXPECT_NULL(test, kpt_running());
		preempt_enable();
	}
}

#ifdef CONFIG_X86_64
static void kprobe_post_handler_regs(struct kunit *test)
{
	void *site = kpt_site(kpt_asm_regs, kpt_asm_regs_sites, 1);
	void *next = kpt_site(kpt_asm_regs, kpt_asm_regs_sites, 2);
	struct kpt_probe *p = kpt_probe_new(test, site, true);

	/* The probe sits on "addq $0x55, %rax". */
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_asm_regs(0x100), 0x100UL + 0x55 + 0x1234);
	KUNIT_ASSERT_EQ(test, p->pre_hits, 1U);
	KUNIT_ASSERT_EQ(test, p->post_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->pre_ax, 0x100UL);
	KUNIT_EXPECT_EQ(test, p->post_ax, 0x100UL + 0x55);
	KUNIT_EXPECT_EQ(test, p->post_ip, (unsigned long)next);
}

#if KPT_BUILTIN
static void kpt_step_trap_off(void *unused)
{
	kprobe_step_force_trap(false);
}

/*
 * The way out of a step that Xen PV and FRED kernels take: the copy ends
 * in an int3, and the trap's own return resumes the probed code.  Forced
 * here for one probe, which must behave as one with the call-and-iretq
 * way out: the post_handler sees the next instruction and the copy's
 * result, the function returns the same.
 */
static void kprobe_step_by_trap_exit(struct kunit *test)
{
	void *site = kpt_site(kpt_asm_regs, kpt_asm_regs_sites, 1);
	void *next = kpt_site(kpt_asm_regs, kpt_asm_regs_sites, 2);
	struct kpt_probe *p = kpt_probe_new(test, site, true);
	int ret;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpt_step_trap_off,
							NULL), 0);
	kprobe_step_force_trap(true);
	ret = kpt_register(test, &p->kp);
	kprobe_step_force_trap(false);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, p->kp.ainsn.slot[p->kp.ainsn.len],
			(kprobe_opcode_t)INT3_INSN_OPCODE);

	KUNIT_EXPECT_EQ(test, kpt_asm_regs(0x100), 0x100UL + 0x55 + 0x1234);
	KUNIT_EXPECT_EQ(test, kpt_asm_regs(0x200), 0x200UL + 0x55 + 0x1234);
	KUNIT_ASSERT_EQ(test, p->pre_hits, 2U);
	KUNIT_ASSERT_EQ(test, p->post_hits, 2U);
	KUNIT_EXPECT_EQ(test, p->pre_ax, 0x200UL);
	KUNIT_EXPECT_EQ(test, p->post_ax, 0x200UL + 0x55);
	KUNIT_EXPECT_EQ(test, p->post_ip, (unsigned long)next);
	KUNIT_EXPECT_PTR_EQ(test, p->post_running, &p->kp);
	preempt_disable();
	KUNIT_EXPECT_PTR_EQ(test, kpt_running(), NULL);
	preempt_enable();
}
#endif /* KPT_BUILTIN */

#ifdef CONFIG_STACKTRACE
/* What kprobe_post_handler_unwinds() records from its post_handler. */
static unsigned long kpt_step_trace[32];
static unsigned int kpt_step_trace_len;
static unsigned long kpt_step_post_ip;

static void kpt_post_save_trace(struct kprobe *kp, struct pt_regs *regs,
				unsigned long flags)
{
	kpt_step_post_ip = regs->ip;
	kpt_step_trace_len = stack_trace_save(kpt_step_trace,
					      ARRAY_SIZE(kpt_step_trace), 0);
}

/* The function the unwind must reach past the probed one. */
static noinline __noipa unsigned long kpt_step_trace_caller(unsigned long x)
{
	return kpt_asm_regs(x) + 1;
}

/* Does the trace hold an address inside the function named @name? */
static bool kpt_step_trace_in(const char *name)
{
	char sym[KSYM_SYMBOL_LEN];
	size_t len = strlen(name);
	unsigned int i;

	for (i = 0; i < kpt_step_trace_len; i++) {
		sprint_symbol(sym, kpt_step_trace[i]);
		if (!strncmp(sym, name, len) && sym[len] == '+')
			return true;
	}
	return false;
}
#endif

/*
 * A post_handler of a stepped copy runs after the copy has called back
 * into kprobes (no second trap on 64-bit): a stack trace taken there
 * still shows the probed function at the next instruction, and its
 * caller.
 */
static void kprobe_post_handler_unwinds(struct kunit *test)
{
#ifdef CONFIG_STACKTRACE
	void *site = kpt_site(kpt_asm_regs, kpt_asm_regs_sites, 1);
	void *next = kpt_site(kpt_asm_regs, kpt_asm_regs_sites, 2);
	struct kpt_probe *p = kpt_probe_new(test, site, true);

	p->kp.post_handler = kpt_post_save_trace;
	kpt_step_trace_len = 0;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_step_trace_caller(0x100),
			0x100UL + 0x55 + 0x1234 + 1);
	KUNIT_EXPECT_EQ(test, kpt_step_post_ip, (unsigned long)next);
	KUNIT_ASSERT_GT(test, kpt_step_trace_len, 0U);
	KUNIT_EXPECT_TRUE(test, kpt_step_trace_in("kpt_asm_regs"));
	KUNIT_EXPECT_TRUE(test, kpt_step_trace_in("kpt_step_trace_caller"));
#else
	kunit_skip(test, "needs CONFIG_STACKTRACE");
#endif
}

/* Resume at the last addq of kpt_asm_regs with %rdx = 7. */
static void kpt_post_moves_ip(struct kprobe *kp, struct pt_regs *regs,
			      unsigned long flags)
{
	regs->ip = (unsigned long)kpt_site(kpt_asm_regs, kpt_asm_regs_sites, 3);
	regs->dx = 7;
}

/*
 * What a post_handler writes into the registers of a stepped copy is
 * where the probed code goes on, as after a trap: here the "movq $0x1234,
 * %rdx" after the probed instruction is skipped.
 */
static void kprobe_post_handler_moves_ip(struct kunit *test)
{
	void *site = kpt_site(kpt_asm_regs, kpt_asm_regs_sites, 1);
	struct kpt_probe *p = kpt_probe_new(test, site, true);

	p->kp.post_handler = kpt_post_moves_ip;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_asm_regs(0x100), 0x100UL + 0x55 + 7);
	KUNIT_EXPECT_EQ(test, kpt_asm_regs(0x200), 0x200UL + 0x55 + 7);
}

static void kprobe_pre_handler_moves_ip(struct kunit *test)
{
	void *site = kpt_site(kpt_asm_regs, kpt_asm_regs_sites, 1);
	void *next = kpt_site(kpt_asm_regs, kpt_asm_regs_sites, 2);
	struct kpt_probe *p = kpt_probe_new(test, site, true);

	/* Skip "addq $0x55, %rax": the result lacks 0x55, no post_handler. */
	p->new_ip = (unsigned long)next;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_asm_regs(0x100), 0x100UL + 0x1234);
	KUNIT_EXPECT_EQ(test, kpt_asm_regs(0x200), 0x200UL + 0x1234);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 2U);
	KUNIT_EXPECT_EQ(test, p->post_hits, 0U);
}
#endif /* CONFIG_X86_64 */

static void kprobe_nmissed_nested(struct kunit *test)
{
	struct kpt_probe *outer = kpt_probe_new(test, kpt_target_outer, true);
	struct kpt_probe *inner = kpt_probe_new(test, kpt_target_inner, true);

	outer->call_in_pre = kpt_target_inner;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &inner->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &outer->kp), 0);

	KUNIT_EXPECT_EQ(test, kpt_target_outer(1), 1UL ^ 0x5a);
	KUNIT_EXPECT_EQ(test, outer->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, outer->post_hits, 1U);
	/* inner was hit from outer's handler: missed, but still ran right. */
	KUNIT_EXPECT_EQ(test, outer->call_result, 41UL * 7 + 3);
	KUNIT_EXPECT_EQ(test, inner->pre_hits, 0U);
	KUNIT_EXPECT_EQ(test, inner->post_hits, 0U);
	KUNIT_EXPECT_EQ(test, inner->kp.nmissed, 1UL);
	KUNIT_EXPECT_EQ(test, outer->kp.nmissed, 0UL);
	/* Missed by recursion only. */
	KUNIT_EXPECT_EQ(test, inner->kp.nhits_disabled, 0UL);

	/* Outside a handler, inner works as usual. */
	KUNIT_EXPECT_EQ(test, kpt_target_inner(2), 17UL);
	KUNIT_EXPECT_EQ(test, inner->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, inner->kp.nmissed, 1UL);
}

static void kprobe_nmissed_self(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, kpt_target_inner, false);

	p->call_in_pre = kpt_target_inner;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_target_inner(1), 10UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->call_result, 41UL * 7 + 3);
	KUNIT_EXPECT_EQ(test, p->kp.nmissed, 1UL);
}

#if defined(CONFIG_X86_64) && KPT_BUILTIN
/*
 * A data breakpoint's #DB is NMI-like: it comes whatever the CPU is doing,
 * interrupts off or not, and the code it runs may hit probes.  It lands
 * here while a handler runs, while a probed instruction's copy is being
 * stepped, and while the copy of a probe hit from a handler is (upstream
 * keeps one saved level and BUG()s on a hit there).  Each level needs a
 * step record of its own, and the probe hit from the #DB takes the next.
 */
enum kpt_db_where { KPT_DB_HANDLER, KPT_DB_STEP, KPT_DB_NESTED_STEP };

static const enum kpt_db_where kpt_db_wheres[] = {
	KPT_DB_HANDLER, KPT_DB_STEP, KPT_DB_NESTED_STEP,
};

static void kpt_db_desc(const enum kpt_db_where *where, char *desc)
{
	static const char *const names[] = {
		[KPT_DB_HANDLER] = "in a pre_handler",
		[KPT_DB_STEP] = "in a stepped copy",
		[KPT_DB_NESTED_STEP] = "in the copy of a probe hit from a handler",
	};

	strscpy(desc, names[*where], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpt_db, kpt_db_wheres, kpt_db_desc);

/* The watched word, and what the breakpoint's handler saw. */
static unsigned long kpt_db_word __aligned(8);

static struct {
	unsigned int hits;
	unsigned int depth;
	unsigned int depth_after;
	struct kprobe *running;
	struct kprobe *recorded;
	unsigned long ip;
	unsigned long loaded;
} kpt_db_seen;

static void kpt_db_hit(struct perf_event *bp, struct perf_sample_data *data,
		       struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	unsigned int depth = kcb->depth;

	kpt_db_seen.hits++;
	kpt_db_seen.depth = depth;
	kpt_db_seen.running = kprobe_running();
	kpt_db_seen.ip = regs->ip;
	/* The entry a probe hit now would take; it keeps its p once popped. */
	if (depth < KPROBE_STEP_DEPTH)
		kcb->step[depth].p = NULL;
	kpt_db_seen.loaded = kpt_asm_load(&kpt_data_word);
	if (depth < KPROBE_STEP_DEPTH)
		kpt_db_seen.recorded = kcb->step[depth].p;
	kpt_db_seen.depth_after = kcb->depth;
}

static void kpt_db_unregister(void *bp)
{
	unregister_wide_hw_breakpoint(bp);
}

static unsigned long kpt_db_write(unsigned long x)
{
	return kpt_asm_store(&kpt_db_word, x);
}

static void kprobe_hit_from_debug_trap(struct kunit *test)
{
	enum kpt_db_where where = *(const enum kpt_db_where *)test->param_value;
	void *store = kpt_site(kpt_asm_store, kpt_asm_store_sites, 0);
	void *after = kpt_site(kpt_asm_store, kpt_asm_store_sites, 1);
	void *load = kpt_site(kpt_asm_load, kpt_asm_load_sites, 0);
	struct kpt_probe *in_db = kpt_probe_new(test, load, false);
	struct kpt_probe *outer, *stepper = NULL;
	struct perf_event * __percpu *bp;
	struct perf_event_attr attr;
	unsigned int depth;

	KUNIT_ASSERT_EQ(test, kpt_register(test, &in_db->kp), 0);
	if (where == KPT_DB_STEP) {
		outer = kpt_probe_new(test, store, true);
		stepper = outer;
	} else {
		outer = kpt_probe_new(test, kpt_target_outer, true);
		outer->call_in_pre = kpt_db_write;
	}
	KUNIT_ASSERT_EQ(test, kpt_register(test, &outer->kp), 0);
	if (where == KPT_DB_NESTED_STEP) {
		stepper = kpt_probe_new(test, store, true);
		KUNIT_ASSERT_EQ(test, kpt_register(test, &stepper->kp), 0);
	}

	hw_breakpoint_init(&attr);
	attr.bp_addr = (unsigned long)&kpt_db_word;
	attr.bp_len = HW_BREAKPOINT_LEN_8;
	attr.bp_type = HW_BREAKPOINT_W;
	bp = register_wide_hw_breakpoint(&attr, kpt_db_hit, NULL);
	if (IS_ERR_OR_NULL((void __force *)bp))
		kunit_skip(test, "no data breakpoint (%ld)",
			   PTR_ERR((void __force *)bp));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpt_db_unregister,
							 (void __force *)bp), 0);

	memset(&kpt_db_seen, 0, sizeof(kpt_db_seen));
	if (where == KPT_DB_STEP) {
		KUNIT_EXPECT_EQ(test, kpt_db_write(0x77), 0x78UL);
		KUNIT_EXPECT_EQ(test, kpt_db_word, 0x77UL);
	} else {
		KUNIT_EXPECT_EQ(test, kpt_target_outer(1), 1UL ^ 0x5a);
		KUNIT_EXPECT_EQ(test, outer->call_result, 42UL);
		KUNIT_EXPECT_EQ(test, kpt_db_word, 41UL);
	}

	/* The trap came where the case says, and the probe in it worked. */
	KUNIT_ASSERT_EQ(test, kpt_db_seen.hits, 1U);
	KUNIT_EXPECT_PTR_EQ(test, kpt_db_seen.running, &outer->kp);
	if (stepper) {
		struct arch_specific_insn *ai = &stepper->kp.ainsn;

		KUNIT_EXPECT_EQ(test, kpt_db_seen.depth, 1U);
		KUNIT_EXPECT_EQ(test, kpt_db_seen.ip,
				(unsigned long)ai->slot + ai->len);
	} else {
		KUNIT_EXPECT_EQ(test, kpt_db_seen.depth, 0U);
		KUNIT_EXPECT_PTR_EQ(test, (void *)kpt_db_seen.ip, after);
	}
	KUNIT_EXPECT_EQ(test, kpt_db_seen.loaded, kpt_data_word);
	KUNIT_EXPECT_PTR_EQ(test, kpt_db_seen.recorded, &in_db->kp);
	KUNIT_EXPECT_EQ(test, kpt_db_seen.depth_after, kpt_db_seen.depth);
	KUNIT_EXPECT_EQ(test, in_db->kp.nmissed, 1UL);
	KUNIT_EXPECT_EQ(test, in_db->pre_hits, 0U);

	/* The probes outside it ran their handlers, or were missed, as usual. */
	KUNIT_EXPECT_EQ(test, outer->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, outer->post_hits, 1U);
	KUNIT_EXPECT_EQ(test, outer->kp.nmissed, 0UL);
	if (where == KPT_DB_STEP)
		KUNIT_EXPECT_PTR_EQ(test, (void *)outer->post_ip, after);
	if (where == KPT_DB_NESTED_STEP) {
		KUNIT_EXPECT_EQ(test, stepper->kp.nmissed, 1UL);
		KUNIT_EXPECT_EQ(test, stepper->pre_hits, 0U);
	}

	/* Every record is free again, and the probe works outside the trap. */
	preempt_disable();
	depth = get_kprobe_ctlblk()->depth;
	preempt_enable();
	KUNIT_EXPECT_EQ(test, depth, 0U);
	KUNIT_EXPECT_EQ(test, kpt_asm_load(&kpt_data_word), kpt_data_word);
	KUNIT_EXPECT_EQ(test, in_db->pre_hits, 1U);
}
#endif

/* ---------------------------------------------------------------------- */
/* 3. Several probes on one address, batches, concurrency                 */

#define KPT_NR_AGGR	3

static void kpt_new_aggr(struct kunit *test, struct kpt_probe **ps)
{
	int i;

	for (i = 0; i < KPT_NR_AGGR; i++) {
		/* Mixed: with and without post_handler. */
		ps[i] = kpt_probe_new(test, kpt_target_add, i != 1);
		KUNIT_ASSERT_EQ(test, kpt_register(test, &ps[i]->kp), 0);
	}
}

static void kprobe_aggregate_all_handlers(struct kunit *test)
{
	struct kpt_probe *ps[KPT_NR_AGGR];
	int i;

	kpt_new_aggr(test, ps);
	KUNIT_EXPECT_EQ(test, kpt_target_add(3, 4), 7UL);
	KUNIT_EXPECT_EQ(test, kpt_target_add(3, 5), 8UL);
	for (i = 0; i < KPT_NR_AGGR; i++) {
		KUNIT_EXPECT_EQ_MSG(test, ps[i]->pre_hits, 2U, "probe %d", i);
		KUNIT_EXPECT_EQ_MSG(test, ps[i]->post_hits, i != 1 ? 2U : 0U,
				    "probe %d", i);
		KUNIT_EXPECT_PTR_EQ(test, ps[i]->kp.addr, ps[0]->kp.addr);
		/* Every pre_handler ran before any post_handler. */
		if (i != 1)
			KUNIT_EXPECT_LT(test, ps[1]->pre_seq, ps[i]->post_seq);
	}
}

static void kprobe_aggregate_disable_one(struct kunit *test)
{
	struct kpt_probe *ps[KPT_NR_AGGR];

	kpt_new_aggr(test, ps);
	KUNIT_ASSERT_EQ(test, disable_kprobe(&ps[0]->kp), 0);
	kpt_target_add(1, 1);
	KUNIT_EXPECT_EQ(test, ps[0]->pre_hits, 0U);
	KUNIT_EXPECT_EQ(test, ps[0]->post_hits, 0U);
	KUNIT_EXPECT_EQ(test, ps[1]->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, ps[2]->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, ps[2]->post_hits, 1U);

	/* All but one disabled: the last still hits. */
	KUNIT_ASSERT_EQ(test, disable_kprobe(&ps[2]->kp), 0);
	kpt_target_add(1, 1);
	KUNIT_EXPECT_EQ(test, ps[1]->pre_hits, 2U);
	KUNIT_EXPECT_EQ(test, ps[2]->pre_hits, 1U);
	/* Each hit a disabled member saw go by, counted apart from misses. */
	KUNIT_EXPECT_EQ(test, ps[0]->kp.nhits_disabled, 2UL);
	KUNIT_EXPECT_EQ(test, ps[2]->kp.nhits_disabled, 1UL);
	KUNIT_EXPECT_EQ(test, ps[1]->kp.nhits_disabled, 0UL);
	KUNIT_EXPECT_EQ(test, ps[0]->kp.nmissed, 0UL);

	KUNIT_ASSERT_EQ(test, enable_kprobe(&ps[0]->kp), 0);
	KUNIT_ASSERT_EQ(test, enable_kprobe(&ps[2]->kp), 0);
	kpt_target_add(1, 1);
	KUNIT_EXPECT_EQ(test, ps[0]->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, ps[1]->pre_hits, 3U);
	KUNIT_EXPECT_EQ(test, ps[2]->pre_hits, 2U);
}

static void kprobe_aggregate_all_disabled(struct kunit *test)
{
	struct kpt_probe *ps[KPT_NR_AGGR];
	int i;

	kpt_new_aggr(test, ps);
	for (i = 0; i < KPT_NR_AGGR; i++)
		KUNIT_ASSERT_EQ(test, disable_kprobe(&ps[i]->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_target_add(2, 2), 4UL);
	for (i = 0; i < KPT_NR_AGGR; i++)
		KUNIT_EXPECT_EQ(test, ps[i]->pre_hits, 0U);
	KUNIT_ASSERT_EQ(test, enable_kprobe(&ps[1]->kp), 0);
	kpt_target_add(2, 2);
	KUNIT_EXPECT_EQ(test, ps[0]->pre_hits, 0U);
	KUNIT_EXPECT_EQ(test, ps[1]->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, ps[2]->pre_hits, 0U);
}

static void kprobe_aggregate_partial_unregister(struct kunit *test)
{
	struct kpt_probe *ps[KPT_NR_AGGR];

	kpt_new_aggr(test, ps);
	kpt_unregister(test, &ps[1]->kp);
	kpt_target_add(1, 1);
	KUNIT_EXPECT_EQ(test, ps[0]->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, ps[0]->post_hits, 1U);
	KUNIT_EXPECT_EQ(test, ps[1]->pre_hits, 0U);
	KUNIT_EXPECT_EQ(test, ps[2]->pre_hits, 1U);

	kpt_unregister(test, &ps[0]->kp);
	kpt_target_add(1, 1);
	KUNIT_EXPECT_EQ(test, ps[0]->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, ps[2]->pre_hits, 2U);
	KUNIT_EXPECT_EQ(test, ps[2]->post_hits, 2U);

	/* The address can be probed again (the struct reset, as for any user). */
	ps[1]->kp.addr = (void *)kpt_target_add;
	ps[1]->kp.flags = 0;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &ps[1]->kp), 0);
	kpt_target_add(1, 1);
	KUNIT_EXPECT_EQ(test, ps[1]->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, ps[2]->pre_hits, 3U);

	kpt_unregister(test, &ps[1]->kp);
	kpt_unregister(test, &ps[2]->kp);
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 1), 2UL);
	KUNIT_EXPECT_EQ(test, ps[1]->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, ps[2]->pre_hits, 3U);
}

static void kprobes_batch(struct kunit *test)
{
	struct kpt_probe *a = kpt_probe_new(test, kpt_target_inner, true);
	struct kpt_probe *b = kpt_probe_new(test, kpt_target_outer, false);
	struct kpt_probe *c = kpt_probe_new(test, NULL, false);
	struct kprobe *kps[] = { &a->kp, &b->kp, &c->kp };

	c->kp.symbol_name = "kpt_target_spin";
	KUNIT_ASSERT_EQ(test, kpt_register_many(test, kps, ARRAY_SIZE(kps)), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)c->kp.addr,
			kpt_entry_addr(kpt_target_spin));
	kpt_target_inner(1);
	kpt_target_outer(1);
	kpt_target_spin(1);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, a->post_hits, 1U);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, c->pre_hits, 1U);

	kpt_unregister_many(test, kps, ARRAY_SIZE(kps));
	KUNIT_EXPECT_EQ(test, kpt_target_inner(1), 10UL);
	KUNIT_EXPECT_EQ(test, kpt_target_outer(1), 1UL ^ 0x5a);
	KUNIT_EXPECT_EQ(test, kpt_target_spin(1), 2UL);
	KUNIT_EXPECT_EQ(test, a->pre_hits + b->pre_hits + c->pre_hits, 3U);
}

/*
 * unregister_kprobes() takes the breakpoints of a batch out together: a
 * probe listed twice is unregistered once, a group member leaves its
 * group's other probe running, a probe never registered gets a NULL addr,
 * and a removed probe registers again.
 */
static void kprobes_batch_unregister(struct kunit *test)
{
	struct kpt_probe *a = kpt_probe_new(test, kpt_target_inner, true);
	struct kpt_probe *b = kpt_probe_new(test, kpt_target_outer, false);
	struct kpt_probe *c = kpt_probe_new(test, kpt_target_spin, false);
	struct kpt_probe *d = kpt_probe_new(test, kpt_target_inner, false);
	struct kpt_probe *never = kpt_probe_new(test, kpt_target_add, false);
	struct kprobe *kps[] = { &a->kp, &b->kp, &c->kp, &d->kp };
	struct kprobe *gone[] = { &b->kp, &a->kp, &never->kp, &b->kp, &c->kp };

	KUNIT_ASSERT_EQ(test, kpt_register_many(test, kps, ARRAY_SIZE(kps)), 0);
	unregister_kprobes(gone, ARRAY_SIZE(gone));
	KUNIT_EXPECT_EQ(test, (unsigned long)b->kp.addr,
			kpt_entry_addr(kpt_target_outer));
	KUNIT_EXPECT_NULL(test, never->kp.addr);
	KUNIT_EXPECT_EQ(test, kpt_target_inner(1), 10UL);
	KUNIT_EXPECT_EQ(test, kpt_target_outer(1), 1UL ^ 0x5a);
	KUNIT_EXPECT_EQ(test, kpt_target_spin(1), 2UL);
	KUNIT_EXPECT_EQ(test, a->pre_hits + a->post_hits, 0U);
	KUNIT_EXPECT_EQ(test, b->pre_hits + c->pre_hits, 0U);
	KUNIT_EXPECT_EQ(test, d->pre_hits, 1U);

	b->kp.flags = 0;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &b->kp), 0);
	kpt_target_outer(1);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1U);
}

/*
 * disable_kprobes(): every probe of the batch stops, a second member of a
 * group at one of the addresses keeps running, a probe that was never
 * registered is skipped, and each comes back with enable_kprobe().
 */
static void kprobes_batch_disable(struct kunit *test)
{
	struct kpt_probe *a = kpt_probe_new(test, kpt_target_inner, true);
	struct kpt_probe *b = kpt_probe_new(test, kpt_target_outer, false);
	struct kpt_probe *c = kpt_probe_new(test, kpt_target_spin, false);
	struct kpt_probe *d = kpt_probe_new(test, kpt_target_inner, false);
	struct kpt_probe *never = kpt_probe_new(test, kpt_target_add, false);
	struct kprobe *kps[] = { &a->kp, &b->kp, &c->kp, &d->kp };
	struct kprobe *off[] = { &a->kp, &never->kp, &b->kp, &c->kp };

	KUNIT_ASSERT_EQ(test, kpt_register_many(test, kps, ARRAY_SIZE(kps)), 0);
	kpt_target_inner(1);
	kpt_target_outer(1);
	kpt_target_spin(1);
	KUNIT_EXPECT_EQ(test, a->pre_hits + b->pre_hits + c->pre_hits, 3U);

	disable_kprobes(off, ARRAY_SIZE(off));
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&a->kp));
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&b->kp));
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&c->kp));
	KUNIT_EXPECT_FALSE(test, kprobe_disabled(&d->kp));
	KUNIT_EXPECT_EQ(test, kpt_target_inner(1), 10UL);
	KUNIT_EXPECT_EQ(test, kpt_target_outer(1), 1UL ^ 0x5a);
	KUNIT_EXPECT_EQ(test, kpt_target_spin(1), 2UL);
	KUNIT_EXPECT_EQ(test, a->pre_hits + b->pre_hits + c->pre_hits, 3U);
	KUNIT_EXPECT_EQ(test, a->post_hits, 1U);
	/* inner ran twice: its enabled group member saw both */
	KUNIT_EXPECT_EQ(test, d->pre_hits, 2U);
	KUNIT_EXPECT_EQ(test, never->pre_hits, 0U);
	/* outer and spin are plain text again: no trap, nothing missed */
	KUNIT_EXPECT_EQ(test, b->kp.nmissed + c->kp.nmissed, 0UL);

	KUNIT_EXPECT_EQ(test, enable_kprobe(&a->kp), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&b->kp), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&c->kp), 0);
	kpt_target_inner(1);
	kpt_target_outer(1);
	kpt_target_spin(1);
	KUNIT_EXPECT_EQ(test, a->pre_hits + b->pre_hits + c->pre_hits, 6U);
	KUNIT_EXPECT_EQ(test, a->post_hits, 2U);
}

static void kprobes_batch_rollback(struct kunit *test)
{
	struct kpt_probe *a = kpt_probe_new(test, kpt_target_inner, false);
	struct kpt_probe *b = kpt_probe_new(test, kpt_target_outer, true);
	struct kpt_probe *bad = kpt_probe_new(test, kpt_target_spin, false);
	struct kprobe *kps[] = { &a->kp, &b->kp, &bad->kp };

	/* The last one is invalid (symbol and address): all or nothing. */
	bad->kp.symbol_name = "kpt_target_spin";
	KUNIT_EXPECT_EQ(test, kpt_register_many(test, kps, ARRAY_SIZE(kps)),
			-EINVAL);
	kpt_target_inner(1);
	kpt_target_outer(1);
	kpt_target_spin(1);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 0U);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 0U);
	KUNIT_EXPECT_EQ(test, b->post_hits, 0U);
	KUNIT_EXPECT_EQ(test, bad->pre_hits, 0U);

	/* Rolled back, not leaked: the same structs register again. */
	a->kp.addr = (void *)kpt_target_inner;
	a->kp.flags = 0;
	KUNIT_EXPECT_EQ(test, kpt_register(test, &a->kp), 0);
	b->kp.addr = (void *)kpt_target_outer;
	b->kp.flags = 0;
	KUNIT_EXPECT_EQ(test, kpt_register(test, &b->kp), 0);
	kpt_target_inner(1);
	kpt_target_outer(1);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1U);
}

/* Helper threads that call a probed function in a loop. */
struct kpt_worker {
	struct task_struct *task;
	struct completion done;
	unsigned int loops;	/* 0: until told to stop */
	unsigned int calls;
	unsigned long bad_results;
	bool stop;
};

static int kpt_worker_fn(void *arg)
{
	struct kpt_worker *w = arg;

	while (!READ_ONCE(w->stop) && (!w->loops || w->calls < w->loops)) {
		if (kpt_target_spin(w->calls) != w->calls + 1UL)
			w->bad_results++;
		w->calls++;
		if (!w->loops)
			cond_resched();
	}
	complete(&w->done);

	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static void kpt_worker_stop(void *arg)
{
	struct kpt_worker *w = arg;

	WRITE_ONCE(w->stop, true);
	kthread_stop(w->task);
	put_task_struct(w->task);
}

static struct kpt_worker *kpt_worker_start(struct kunit *test,
					   unsigned int loops, int cpu)
{
	struct kpt_worker *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct task_struct *task;

	KUNIT_ASSERT_NOT_NULL(test, w);
	init_completion(&w->done);
	w->loops = loops;
	task = kthread_create(kpt_worker_fn, w, "kprobes_test/%d", cpu);
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	if (cpu >= 0)
		kthread_bind(task, cpu);
	w->task = get_task_struct(task);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpt_worker_stop,
							w), 0);
	wake_up_process(task);
	return w;
}

static atomic_t kpt_spin_hits;
static atomic_t kpt_spin_inside;
static unsigned int kpt_spin_delay_us;

static int kpt_spin_pre(struct kprobe *kp, struct pt_regs *regs)
{
	atomic_inc(&kpt_spin_inside);
	if (kpt_spin_delay_us)
		udelay(kpt_spin_delay_us);
	atomic_inc(&kpt_spin_hits);
	atomic_dec(&kpt_spin_inside);
	return 0;
}

#define KPT_WORKER_LOOPS	500

static void kprobe_concurrent_hits(struct kunit *test)
{
	struct kprobe *kp = kunit_kzalloc(test, sizeof(*kp), GFP_KERNEL);
	struct kpt_worker *w[2];
	int i, cpu;

	KUNIT_ASSERT_NOT_NULL(test, kp);
	atomic_set(&kpt_spin_hits, 0);
	kpt_spin_delay_us = 0;
	kp->addr = (void *)kpt_target_spin;
	kp->pre_handler = kpt_spin_pre;
	KUNIT_ASSERT_EQ(test, kpt_register(test, kp), 0);

	cpu = cpumask_first(cpu_online_mask);
	for (i = 0; i < 2; i++) {
		w[i] = kpt_worker_start(test, KPT_WORKER_LOOPS, cpu);
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
	}
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&w[i]->done,
								  60 * HZ), 0UL);
		KUNIT_EXPECT_EQ(test, w[i]->bad_results, 0UL);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_spin_hits),
			2 * KPT_WORKER_LOOPS);
	KUNIT_EXPECT_EQ(test, kp->nmissed, 0UL);
}

static void kprobe_unregister_waits_for_handlers(struct kunit *test)
{
	struct kprobe *kp = kunit_kzalloc(test, sizeof(*kp), GFP_KERNEL);
	unsigned long timeout = jiffies + 30 * HZ;
	struct kpt_worker *w;
	int hits;

	KUNIT_ASSERT_NOT_NULL(test, kp);
	atomic_set(&kpt_spin_hits, 0);
	atomic_set(&kpt_spin_inside, 0);
	kpt_spin_delay_us = 200;
	kp->addr = (void *)kpt_target_spin;
	kp->pre_handler = kpt_spin_pre;
	KUNIT_ASSERT_EQ(test, kpt_register(test, kp), 0);

	w = kpt_worker_start(test, 0, -1);
	while (atomic_read(&kpt_spin_hits) < 20 && time_before(jiffies, timeout))
		usleep_range(500, 1000);
	KUNIT_ASSERT_GE(test, atomic_read(&kpt_spin_hits), 20);

	kpt_unregister(test, kp);
	/* No handler may still be running, and none may start. */
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_spin_inside), 0);
	hits = atomic_read(&kpt_spin_hits);
	msleep(50);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_spin_hits), hits);
	KUNIT_EXPECT_EQ(test, w->bad_results, 0UL);
	kpt_spin_delay_us = 0;
}

/* ---------------------------------------------------------------------- */
/* 4. x86-64 instructions that need fixing up or emulating                */

#ifdef CONFIG_X86_64
struct kpt_site_probes {
	unsigned int nr;
	struct kpt_probe **probes;
	struct kprobe **kps;
};

/*
 * Arms a probe on every recorded site of @fn at once (with or without a
 * post_handler, which decides whether the step may be boosted), runs @run
 * and checks that site i was hit @hits[i] times.
 */
static void kpt_probe_sites(struct kunit *test, void *fn, const u32 *sites,
			    const unsigned int *hits, unsigned int nr_hits,
			    void (*run)(struct kunit *test, void *arg),
			    void *arg)
{
	unsigned int nr = kpt_nr_sites(sites);
	struct kpt_site_probes sp = { .nr = nr };
	unsigned int i, pass;

	KUNIT_ASSERT_EQ_MSG(test, nr, nr_hits, "site table of %ps", fn);
	sp.probes = kunit_kcalloc(test, nr, sizeof(*sp.probes), GFP_KERNEL);
	sp.kps = kunit_kcalloc(test, nr, sizeof(*sp.kps), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sp.probes);
	KUNIT_ASSERT_NOT_NULL(test, sp.kps);

	for (pass = 0; pass < 2; pass++) {
		bool with_post = pass == 1;

		for (i = 0; i < nr; i++) {
			sp.probes[i] = kpt_probe_new(test,
						     kpt_site(fn, sites, i),
						     with_post);
			sp.kps[i] = &sp.probes[i]->kp;
		}
		KUNIT_ASSERT_EQ(test, kpt_register_many(test, sp.kps, nr), 0);
		run(test, arg);
		for (i = 0; i < nr; i++) {
			struct kpt_probe *p = sp.probes[i];

			KUNIT_EXPECT_EQ_MSG(test, p->pre_hits, hits[i],
					    "%ps+%#x (post_handler: %d)", fn,
					    sites[i], with_post);
			KUNIT_EXPECT_EQ_MSG(test, p->post_hits,
					    with_post ? hits[i] : 0,
					    "%ps+%#x post", fn, sites[i]);
			KUNIT_EXPECT_EQ(test, p->kp.nmissed, 0UL);
		}
		kpt_unregister_many(test, sp.kps, nr);
		/* Unprobed again, the function is unchanged. */
		run(test, arg);
	}
}

static void kpt_run_riprel(struct kunit *test, void *arg)
{
	KUNIT_EXPECT_EQ(test, kpt_asm_riprel(0), 0x1231UL);
	KUNIT_EXPECT_EQ(test, kpt_asm_riprel(0x10000), 0x11231UL);
}

static void kprobe_insn_rip_relative(struct kunit *test)
{
	static const unsigned int hits[] = { 2, 2, 2, 2, 2, 2, 2, 2, 2, 2 };

	kpt_run_riprel(test, NULL);
	kpt_probe_sites(test, kpt_asm_riprel, kpt_asm_riprel_sites, hits,
			ARRAY_SIZE(hits), kpt_run_riprel, NULL);
}

static void kpt_run_jmp(struct kunit *test, void *arg)
{
	KUNIT_EXPECT_EQ(test, kpt_asm_jmp(1), 9UL);
	KUNIT_EXPECT_EQ(test, kpt_asm_jmp(100), 108UL);
}

static void kprobe_insn_jmp(struct kunit *test)
{
	static const unsigned int hits[] = { 2, 2, 2, 2, 2, 2, 2 };

	kpt_run_jmp(test, NULL);
	kpt_probe_sites(test, kpt_asm_jmp, kpt_asm_jmp_sites, hits,
			ARRAY_SIZE(hits), kpt_run_jmp, NULL);
}

static void kpt_run_call(struct kunit *test, void *arg)
{
	KUNIT_EXPECT_EQ(test, kpt_asm_call(1), 10UL);
	KUNIT_EXPECT_EQ(test, kpt_asm_call(50), 108UL);
}

/*
 * Probe every site of @fn in turn, with one more probe in kpt_asm_helper(),
 * which @fn's calls reach: that one must count @helper_hits in all.
 */
static void kpt_probe_sites_and_helper(struct kunit *test, void *fn,
				       const u32 *sites,
				       const unsigned int *hits,
				       unsigned int nr_sites,
				       void (*run)(struct kunit *, void *),
				       unsigned int helper_hits)
{
	struct kpt_probe *callee;

	callee = kpt_probe_new(test, kpt_site(kpt_asm_helper,
					      kpt_asm_helper_sites, 0), true);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &callee->kp), 0);
	kpt_probe_sites(test, fn, sites, hits, nr_sites, run, NULL);
	KUNIT_EXPECT_EQ(test, callee->pre_hits, helper_hits);
	KUNIT_EXPECT_EQ(test, callee->post_hits, helper_hits);
}

static void kprobe_insn_call(struct kunit *test)
{
	static const unsigned int hits[] = { 2, 2, 2 };

	kpt_run_call(test, NULL);
	/*
	 * Also one probe in the callee, hit through the emulated call: two
	 * passes, each running kpt_run_call() probed and unprobed.
	 */
	kpt_probe_sites_and_helper(test, kpt_asm_call, kpt_asm_call_sites,
				   hits, ARRAY_SIZE(hits), kpt_run_call, 8);
}

static void kpt_run_icall(struct kunit *test, void *arg)
{
	KUNIT_EXPECT_EQ(test, kpt_asm_icall(1), 14UL);
	KUNIT_EXPECT_EQ(test, kpt_asm_icall(50), 210UL);
}

static void kprobe_insn_call_reg(struct kunit *test)
{
	static const unsigned int hits[] = { 2, 2, 2, 2, 2, 2, 2, 2 };
	void *via_ax = kpt_site(kpt_asm_icall, kpt_asm_icall_sites, 1);
	void *via_r10 = kpt_site(kpt_asm_icall, kpt_asm_icall_sites, 5);
	struct kpt_probe *a = kpt_probe_new(test, via_ax, true);
	struct kpt_probe *b = kpt_probe_new(test, via_r10, true);

	kpt_run_icall(test, NULL);

	/*
	 * The call is emulated: the post_handler already sees the callee's
	 * entry, taken from the register the pre_handler saw.
	 */
	KUNIT_ASSERT_EQ(test, kpt_register(test, &a->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &b->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_asm_icall(3), 22UL);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, a->post_hits, 1U);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, b->post_hits, 1U);
	KUNIT_EXPECT_EQ(test, a->pre_ax, (unsigned long)kpt_asm_helper);
	KUNIT_EXPECT_EQ(test, a->post_ip, (unsigned long)kpt_asm_helper);
	KUNIT_EXPECT_EQ(test, b->post_ip, (unsigned long)kpt_asm_helper);
	kpt_unregister(test, &a->kp);
	kpt_unregister(test, &b->kp);

	/*
	 * And the callee's own probe is hit through both emulated calls:
	 * four runs of two calls, each calling the helper twice.
	 */
	kpt_probe_sites_and_helper(test, kpt_asm_icall, kpt_asm_icall_sites,
				   hits, ARRAY_SIZE(hits), kpt_run_icall, 16);
}

static void kpt_run_jcc(struct kunit *test, void *arg)
{
	KUNIT_EXPECT_EQ(test, kpt_asm_jcc(0), 0UL);
	KUNIT_EXPECT_EQ(test, kpt_asm_jcc(5), 1UL);
	KUNIT_EXPECT_EQ(test, kpt_asm_jcc(200), 3UL);
}

static void kprobe_insn_jcc(struct kunit *test)
{
	/* Taken and not taken, short and near. */
	static const unsigned int hits[] = { 3, 3, 3, 2, 3, 3, 1, 3 };

	kpt_run_jcc(test, NULL);
	kpt_probe_sites(test, kpt_asm_jcc, kpt_asm_jcc_sites, hits,
			ARRAY_SIZE(hits), kpt_run_jcc, NULL);
}

/* Operand pairs that set every combination of CF, ZF, SF, OF and PF. */
static const unsigned long kpt_cmp_pairs[][2] = {
	{ 1, 2 }, { 2, 1 }, { 5, 5 }, { 0, 0 }, { -1UL, 1 }, { 1, -1UL },
	{ LONG_MIN, 1 }, { LONG_MAX, -1UL }, { 0x80, 0x7f }, { 3, 0 },
};

#define KPT_NR_CMP	ARRAY_SIZE(kpt_cmp_pairs)

static void kpt_run_jcc_all(struct kunit *test, void *arg)
{
	const unsigned long *want = arg;
	unsigned int i;

	for (i = 0; i < KPT_NR_CMP; i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    kpt_asm_jcc_all(kpt_cmp_pairs[i][0],
						    kpt_cmp_pairs[i][1]),
				    want[i], "pair %u", i);
}

static void kprobe_insn_jcc_all_conditions(struct kunit *test)
{
	unsigned long *want = kunit_kcalloc(test, KPT_NR_CMP, sizeof(*want),
					    GFP_KERNEL);
	unsigned int *hits = kunit_kcalloc(test, 33, sizeof(*hits),
					   GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, hits);
	for (i = 0; i < KPT_NR_CMP; i++) {
		want[i] = kpt_asm_jcc_all(kpt_cmp_pairs[i][0],
					  kpt_cmp_pairs[i][1]);
		/* Each condition and its negation: one taken, one not. */
		KUNIT_EXPECT_EQ(test, hweight32(want[i] & 0xffff), 8);
		KUNIT_EXPECT_EQ(test, want[i] & 0xffff, want[i] >> 16);
	}
	for (i = 0; i < 33; i++)
		hits[i] = KPT_NR_CMP;
	kpt_probe_sites(test, kpt_asm_jcc_all, kpt_asm_jcc_all_sites, hits,
			33, kpt_run_jcc_all, want);
}

static void kpt_run_loop(struct kunit *test, void *arg)
{
	KUNIT_EXPECT_EQ(test, kpt_asm_loop(4), 12UL);
	KUNIT_EXPECT_EQ(test, kpt_asm_loop(0), 0UL);
}

static void kprobe_insn_loop(struct kunit *test)
{
	static const unsigned int hits[] = { 2, 2, 2, 4, 4, 2 };

	kpt_run_loop(test, NULL);
	kpt_probe_sites(test, kpt_asm_loop, kpt_asm_loop_sites, hits,
			ARRAY_SIZE(hits), kpt_run_loop, NULL);
}

static void kpt_run_pushpop(struct kunit *test, void *arg)
{
	KUNIT_EXPECT_EQ(test, kpt_asm_pushpop(0), 0x101aUL);
	KUNIT_EXPECT_EQ(test, kpt_asm_pushpop(0x100), 0x121aUL);
}

static void kprobe_insn_push_pop(struct kunit *test)
{
	static const unsigned int hits[] = {
		2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2
	};

	kpt_run_pushpop(test, NULL);
	kpt_probe_sites(test, kpt_asm_pushpop, kpt_asm_pushpop_sites, hits,
			ARRAY_SIZE(hits), kpt_run_pushpop, NULL);
}

#define KPT_FLAGS_MASK	(X86_EFLAGS_CF | X86_EFLAGS_PF | X86_EFLAGS_ZF | \
			 X86_EFLAGS_SF | X86_EFLAGS_OF | X86_EFLAGS_TF | \
			 X86_EFLAGS_IF | X86_EFLAGS_DF | X86_EFLAGS_AC)

static void kpt_run_flags(struct kunit *test, void *arg)
{
	const unsigned long *want = arg;
	unsigned int i;

	for (i = 0; i < KPT_NR_CMP; i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    kpt_asm_flags(kpt_cmp_pairs[i][0],
						  kpt_cmp_pairs[i][1]) &
				    KPT_FLAGS_MASK,
				    want[i], "pair %u", i);
}

static void kprobe_insn_pushf(struct kunit *test)
{
	unsigned long *want = kunit_kcalloc(test, KPT_NR_CMP, sizeof(*want),
					    GFP_KERNEL);
	unsigned int *hits = kunit_kcalloc(test, 5, sizeof(*hits), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, hits);
	for (i = 0; i < KPT_NR_CMP; i++) {
		want[i] = kpt_asm_flags(kpt_cmp_pairs[i][0],
					kpt_cmp_pairs[i][1]) & KPT_FLAGS_MASK;
		/* Interrupts on, no trap flag, as in any task. */
		KUNIT_EXPECT_TRUE(test, want[i] & X86_EFLAGS_IF);
		KUNIT_EXPECT_FALSE(test, want[i] & X86_EFLAGS_TF);
	}
	for (i = 0; i < 5; i++)
		hits[i] = KPT_NR_CMP;
	kpt_probe_sites(test, kpt_asm_flags, kpt_asm_flags_sites, hits, 5,
			kpt_run_flags, want);
}

static void kpt_run_retimm(struct kunit *test, void *arg)
{
	KUNIT_EXPECT_EQ(test, kpt_asm_retimm(1), 0x41UL);
	KUNIT_EXPECT_EQ(test, kpt_asm_retimm(0x1000), 0x1040UL);
}

/*
 * "ret $8" pops the return address and then the caller's extra word: a
 * result 0x100 too large means the emulated return left %rsp elsewhere.
 */
static void kprobe_insn_ret_imm16(struct kunit *test)
{
	static const unsigned int callee_hits[] = { 2, 2, 2 };
	/* The add of site 6 runs only on an unbalanced stack. */
	static const unsigned int caller_hits[] = { 2, 2, 2, 2, 2, 2, 0, 2, 2 };
	void *ret8 = kpt_site(kpt_asm_retimm_callee,
			      kpt_asm_retimm_callee_sites, 2);
	void *back = kpt_site(kpt_asm_retimm, kpt_asm_retimm_sites, 4);
	struct kpt_probe *p = kpt_probe_new(test, ret8, true);

	kpt_run_retimm(test, NULL);

	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_asm_retimm(5), 0x45UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->post_hits, 1U);
	/* Emulated: the post_handler is already back in the caller. */
	KUNIT_EXPECT_EQ(test, p->post_ip, (unsigned long)back);
	KUNIT_EXPECT_EQ(test, p->post_ax, 0x45UL);
	kpt_unregister(test, &p->kp);

	kpt_probe_sites(test, kpt_asm_retimm_callee,
			kpt_asm_retimm_callee_sites, callee_hits,
			ARRAY_SIZE(callee_hits), kpt_run_retimm, NULL);
	kpt_probe_sites(test, kpt_asm_retimm, kpt_asm_retimm_sites,
			caller_hits, ARRAY_SIZE(caller_hits), kpt_run_retimm,
			NULL);
}

/*
 * What a probe on each site of kpt_asm_refused must get.  All refusals are
 * -EOPNOTSUPP from kprobe_classify(), which runs only once the address has
 * passed the blacklist, boundary and readability checks (-EINVAL, -EILSEQ):
 * each site is a real instruction of ordinary text, so the errno says the
 * instruction itself was refused, and why is one of:
 *  - ud0/ud1/ud2: BUG() and WARN() are looked up by the trap's address,
 *    which a copy elsewhere would not have;
 *  - int3, int n, int1, iret, far returns, far and memory-indirect
 *    calls and jumps, syscall/sysret, sysenter/sysexit, rsm: they leave or
 *    re-enter the kernel's flow, or need an operand read to emulate;
 *  - call through a register with a REX2 prefix: the register file of the
 *    emulation stops at r15;
 *  - sti, mov to %ss: their one-instruction interrupt shadow cannot be
 *    kept; hlt, mwait, mwaitx: would wait with interrupts off;
 *  - swapgs and writes to segment registers (mov, pop): per-CPU data is
 *    found through %gs, and the classifier does not single %gs out;
 *  - VMX and SVM instructions: they enter or leave a guest, or change GIF
 *    as sti and cli change IF;
 *  - xbegin: its abort address is relative, and would point into a copy;
 *  - pushf/popf with a 16-bit operand, loop/jecxz with a 32-bit address:
 *    the emulation handles the 64-bit forms only;
 *  - endbr64 (here not at the symbol's start): an int3 over it would make
 *    an indirect branch to it fault under IBT;
 *  - an instruction behind the KVM emulate prefix: the prefix is a ud2
 *    that only a hypervisor turns into the instruction behind it.
 */
static const struct {
	unsigned int site;
	int err;
	const char *insn;
} kpt_refused[] = {
	{  0, 0,		"movq %rdi, %rax (accepted)" },
	{  1, -EOPNOTSUPP,	"ud2" },
	{  2, -EOPNOTSUPP,	"ud1 %eax, %eax" },
	{  3, -EOPNOTSUPP,	"ud0" },
	{  4, -EOPNOTSUPP,	"int3" },
	{  5, -EOPNOTSUPP,	"int $0x80" },
	{  6, -EOPNOTSUPP,	"int1" },
	{  7, -EOPNOTSUPP,	"iretq" },
	{  8, -EOPNOTSUPP,	"lret" },
	{  9, -EOPNOTSUPP,	"lret $8" },
	{ 10, -EOPNOTSUPP,	"lcall *(%rax)" },
	{ 11, -EOPNOTSUPP,	"ljmp *(%rax)" },
	{ 12, -EOPNOTSUPP,	"call *(%rax)" },
	{ 13, -EOPNOTSUPP,	"jmp *(%rax)" },
	{ 14, -EOPNOTSUPP,	"call *0(%rip)" },
	{ 15, -EOPNOTSUPP,	"call *%r16 (REX2)" },
	{ 16, -EOPNOTSUPP,	"sti" },
	{ 17, -EOPNOTSUPP,	"hlt" },
	{ 18, -EOPNOTSUPP,	"mwait" },
	{ 19, -EOPNOTSUPP,	"mwaitx" },
	{ 20, -EOPNOTSUPP,	"swapgs" },
	{ 21, -EOPNOTSUPP,	"syscall" },
	{ 22, -EOPNOTSUPP,	"sysretq" },
	{ 23, -EOPNOTSUPP,	"sysenter" },
	{ 24, -EOPNOTSUPP,	"sysexitq" },
	{ 25, -EOPNOTSUPP,	"rsm" },
	{ 26, -EOPNOTSUPP,	"mov %eax, %ss" },
	{ 27, -EOPNOTSUPP,	"mov %eax, %ds" },
	{ 28, -EOPNOTSUPP,	"pop %fs" },
	{ 29, -EOPNOTSUPP,	"pop %gs" },
	{ 30, -EOPNOTSUPP,	"vmcall" },
	{ 31, -EOPNOTSUPP,	"vmlaunch" },
	{ 32, -EOPNOTSUPP,	"vmresume" },
	{ 33, -EOPNOTSUPP,	"vmxoff" },
	{ 34, -EOPNOTSUPP,	"vmrun" },
	{ 35, -EOPNOTSUPP,	"vmmcall" },
	{ 36, -EOPNOTSUPP,	"stgi" },
	{ 37, -EOPNOTSUPP,	"clgi" },
	{ 38, -EOPNOTSUPP,	"xbegin" },
	{ 39, -EOPNOTSUPP,	"pushfw" },
	{ 40, -EOPNOTSUPP,	"popfw" },
	{ 41, -EOPNOTSUPP,	"addr32 loop" },
	{ 42, -EOPNOTSUPP,	"jecxz" },
	{ 43, -EOPNOTSUPP,	"endbr64 inside a function" },
	{ 44, -EOPNOTSUPP,	"cpuid behind the KVM emulate prefix" },
};

static u8 kpt_text_byte(struct kunit *test, const void *addr)
{
	u8 byte;

	KUNIT_ASSERT_EQ(test, copy_from_kernel_nofault(&byte, addr, 1), 0L);
	return byte;
}

/*
 * Each refused probe must leave the text as it was; the accepted one shows
 * that an armed site would have read back as int3.
 */
static void kprobe_insn_refused_classes(struct kunit *test)
{
	unsigned int i;

	KUNIT_ASSERT_EQ(test, kpt_nr_sites(kpt_asm_refused_sites),
			(unsigned int)ARRAY_SIZE(kpt_refused));
	for (i = 0; i < ARRAY_SIZE(kpt_refused); i++) {
		void *site = kpt_site(kpt_asm_refused, kpt_asm_refused_sites,
				      kpt_refused[i].site);
		struct kpt_probe *p = kpt_probe_new(test, site, true);
		int err = kpt_refused[i].err;
		u8 before = kpt_text_byte(test, site);

		KUNIT_EXPECT_EQ_MSG(test, kpt_register(test, &p->kp), err,
				    "%s at %pS", kpt_refused[i].insn, site);
		KUNIT_EXPECT_EQ_MSG(test, kpt_text_byte(test, site),
				    err ? before : (u8)INT3_INSN_OPCODE,
				    "text of %s", kpt_refused[i].insn);
	}
}
#endif /* CONFIG_X86_64 */

/* ---------------------------------------------------------------------- */
/* 5. Kretprobes                                                           */

#define KPT_TRACE_MAX	32

struct kpt_data {
	unsigned long arg;
	unsigned long cookie;
};

/* A kretprobe that counts and remembers what its handlers saw. */
struct kpt_rprobe {
	struct kretprobe rp;
	atomic_t entry_hits;
	atomic_t ret_hits;
	int entry_ret;			/* what entry_handler returns */
	bool use_data;			/* entry_handler fills struct kpt_data */
	atomic_t data_ok;		/* return handlers that found it intact */
	unsigned long retval;
	unsigned long ret_addr;
	struct kretprobe *seen_rp;
	bool save_trace;
	unsigned long trace[KPT_TRACE_MAX];
	unsigned int trace_len;
	unsigned long (*call_in_ret)(unsigned long x);
	unsigned long call_result;
};

static struct kpt_rprobe *to_kpt_rprobe(struct kretprobe_instance *ri)
{
	return container_of(get_kretprobe(ri), struct kpt_rprobe, rp);
}

/*
 * The first argument, where the arch can name it; elsewhere KPT_NO_ARG, and
 * the return handler then checks the instance data alone.
 */
#define KPT_NO_ARG	ULONG_MAX

static unsigned long kpt_first_arg(struct pt_regs *regs)
{
#ifdef CONFIG_HAVE_FUNCTION_ARG_ACCESS_API
	return regs_get_kernel_argument(regs, 0);
#else
	return KPT_NO_ARG;
#endif
}

static int kpt_rp_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kpt_rprobe *r = to_kpt_rprobe(ri);

	atomic_inc(&r->entry_hits);
	if (r->use_data) {
		struct kpt_data *d = (struct kpt_data *)ri->data;

		d->arg = kpt_first_arg(regs);
		d->cookie = d->arg ^ 0xc0ffee;
	}
	return r->entry_ret;
}

static int kpt_rp_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kpt_rprobe *r = to_kpt_rprobe(ri);
	unsigned long result;

	if (r->call_in_ret) {
		/* A probed function called from here runs with KCSAN on. */
		result = r->call_in_ret(41);
		/* Several CPUs store alike here at once (sleeper cases). */
		data_race(r->call_result = result);
	}
	/*
	 * In the sleeper cases several CPUs store views alike here at once,
	 * read once they are over: races by design, which KCSAN is told.
	 */
	kcsan_disable_current();
	r->seen_rp = get_kretprobe(ri);
	r->retval = regs_return_value(regs);
	r->ret_addr = get_kretprobe_retaddr(ri);
	if (r->use_data) {
		struct kpt_data *d = (struct kpt_data *)ri->data;
		unsigned long n = d->arg;

		/* kpt_recurse(n) returns n(n+1)/2. */
		if (d->cookie == (n ^ 0xc0ffee) &&
		    (n == KPT_NO_ARG || r->retval == n * (n + 1) / 2))
			atomic_inc(&r->data_ok);
	}
	if (r->save_trace)
		r->trace_len = stack_trace_save(r->trace, KPT_TRACE_MAX, 0);
	kcsan_enable_current();
	atomic_inc(&r->ret_hits);
	return 0;
}

static struct kpt_rprobe *kpt_rprobe_new(struct kunit *test, void *addr,
					 int maxactive)
{
	struct kpt_rprobe *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->rp.kp.addr = addr;
	r->rp.handler = kpt_rp_handler;
	r->rp.entry_handler = kpt_rp_entry;
	r->rp.maxactive = maxactive;
	return r;
}

static void kretprobe_return_value(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_ret_target, 0);
	unsigned long real_ra;

	kpt_ret_caller(1);
	real_ra = kpt_ret_target_ra;

	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)r->rp.kp.addr,
			kpt_entry_addr(kpt_ret_target));
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(10), 31UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 1);
	KUNIT_EXPECT_EQ(test, r->retval, 31UL);
	KUNIT_EXPECT_PTR_EQ(test, r->seen_rp, &r->rp);
	KUNIT_EXPECT_EQ(test, r->ret_addr, real_ra);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed, 0);

	KUNIT_EXPECT_EQ(test, kpt_ret_caller(100), 301UL);
	KUNIT_EXPECT_EQ(test, r->retval, 301UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 2);
}

static void kretprobe_by_symbol(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, NULL, 0);

	r->rp.kp.symbol_name = "kpt_ret_target";
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)r->rp.kp.addr,
			kpt_entry_addr(kpt_ret_target));
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(2), 7UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 1);
	KUNIT_EXPECT_EQ(test, r->retval, 7UL);
}

static void kretprobe_invalid(struct kunit *test)
{
	struct kpt_rprobe *both = kpt_rprobe_new(test, kpt_ret_target, 0);
	struct kpt_rprobe *mid = kpt_rprobe_new(test, NULL, 0);
	struct kpt_rprobe *nok = kpt_rprobe_new(test, kpt_nokprobe_target, 0);

	both->rp.kp.symbol_name = "kpt_ret_target";
	KUNIT_EXPECT_EQ(test, kpt_register_ret(test, &both->rp), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_register_ret(test, &nok->rp), -EINVAL);
#ifdef CONFIG_X86_64
	/* Not a function entry. */
	mid->rp.kp.symbol_name = "kpt_asm_regs";
	mid->rp.kp.offset = kpt_asm_regs_sites[1];
	KUNIT_EXPECT_EQ(test, kpt_register_ret(test, &mid->rp), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_asm_regs(0), 0x55UL + 0x1234);
#endif
	kpt_ret_caller(1);
	kpt_nokprobe_target(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&both->entry_hits) +
			atomic_read(&mid->entry_hits) +
			atomic_read(&nok->entry_hits), 0);
}

/*
 * Both refused before any instance is allocated: too much instance data,
 * and a kretprobe that is already registered, whose instances a second
 * registration would replace under the calls it is following.
 */
static void kretprobe_refused_data_size_and_twice(struct kunit *test)
{
	struct kpt_rprobe *big = kpt_rprobe_new(test, kpt_ret_target, 1);
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_ret_target, 0);

	big->rp.data_size = KRETPROBE_MAX_DATA_SIZE + 1;
	KUNIT_EXPECT_EQ(test, kpt_register_ret(test, &big->rp), -E2BIG);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(1), 4UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&big->entry_hits), 0);

	/* The limit itself is allowed. */
	big->rp.data_size = KRETPROBE_MAX_DATA_SIZE;
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &big->rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(2), 7UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&big->ret_hits), 1);
	kpt_unregister_ret(test, &big->rp);

	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(3), 10UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 1);
	KUNIT_EXPECT_EQ(test, register_kretprobe(&r->rp), -EINVAL);

	/* Still registered once, with its instances. */
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(4), 13UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry_hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 2);
	KUNIT_EXPECT_EQ(test, r->retval, 13UL);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed, 0);
}

static void kretprobe_entry_handler_skips(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_ret_target, 0);

	r->entry_ret = 1;
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(3), 10UL);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(4), 13UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry_hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 0);
	/* Declined by entry_handler is not missed. */
	KUNIT_EXPECT_EQ(test, r->rp.nmissed, 0);

	r->entry_ret = 0;
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(3), 10UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 1);
}

static void kretprobe_data_size(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_recurse, 8);

	r->use_data = true;
	r->rp.data_size = sizeof(struct kpt_data);
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	/* Five nested instances, each with its own data. */
	KUNIT_EXPECT_EQ(test, kpt_recurse(4), 10UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry_hits), 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->data_ok), 5);
	KUNIT_EXPECT_EQ(test, r->retval, 10UL);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed, 0);
}

/*
 * Nested calls past maxactive are followed from the reserve.  With
 * interrupts off the worker that refills it cannot run, so a burst past
 * maxactive + reserve (1 + 16 here) is missed, counted; once interrupts are
 * back a larger reserve is made and a burst of that size loses nothing.
 */
static void kretprobe_supply_burst(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_recurse, 1);
	unsigned long flags, missed, sum;
	int tries;

	r->use_data = true;
	r->rp.data_size = sizeof(struct kpt_data);
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);

	/* 40 calls: 17 instances, each with its own data; 23 missed. */
	local_irq_save(flags);
	sum = kpt_recurse(39);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, sum, 780UL);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed, 23);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed_no_instance, 23UL);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed_return_busy, 0UL);
	KUNIT_EXPECT_EQ(test, r->rp.kp.nmissed, 0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry_hits), 17);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 17);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->data_ok), 17);
	/* The outermost calls got them. */
	KUNIT_EXPECT_EQ(test, r->retval, 780UL);

	/* 1 + 16 + the next reserve (17) hold 30 nested calls. */
	for (tries = 0; tries < 100; tries++) {
		msleep(20);
		missed = r->rp.nmissed;
		atomic_set(&r->ret_hits, 0);
		local_irq_save(flags);
		sum = kpt_recurse(29);
		local_irq_restore(flags);
		KUNIT_EXPECT_EQ(test, sum, 435UL);
		if (r->rp.nmissed == missed)
			break;
	}
	KUNIT_EXPECT_LT(test, tries, 100);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 30);
}

#ifdef CONFIG_KRETPROBE_ON_RETHOOK
/* Never registered: stands for a probe handler running on this CPU. */
static struct kprobe kpt_busy_stand_in;

/* Returns while kpt_busy_stand_in counts as this CPU's running probe. */
static noinline __noipa unsigned long kpt_ret_busy_target(unsigned long x)
{
	__this_cpu_write(current_kprobe, &kpt_busy_stand_in);
	return x + 5;
}

/*
 * A return that comes while another probe's handler runs skips the
 * handler, and is counted as such (rethook, where the return handler
 * checks; without rethook the trampoline marks the CPU busy itself).
 */
static void kretprobe_return_busy(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_ret_busy_target, 0);
	unsigned long v;

	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	preempt_disable();
	v = kpt_ret_busy_target(1);
	__this_cpu_write(current_kprobe, NULL);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, v, 6UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 0);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed_return_busy, 1UL);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed_no_instance, 0UL);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed, 1);
	KUNIT_EXPECT_EQ(test, r->rp.kp.nmissed, 0UL);
}
#endif

static void kretprobe_maxactive_default(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_recurse, 0);

	/* The default is at least 10 (max(10, 2 * CPUs)). */
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_recurse(9), 45UL);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 10);
}

static void kretprobe_disable_enable(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_ret_target, 0);

	r->rp.kp.flags = KPROBE_FLAG_DISABLED;
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(1), 4UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry_hits), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 0);

	KUNIT_ASSERT_EQ(test, enable_kretprobe(&r->rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(1), 4UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 1);

	KUNIT_ASSERT_EQ(test, disable_kretprobe(&r->rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(1), 4UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 1);

	KUNIT_ASSERT_EQ(test, enable_kretprobe(&r->rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(1), 4UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 2);

	kpt_unregister_ret(test, &r->rp);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(1), 4UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 2);
}

static void kretprobes_batch_rollback(struct kunit *test)
{
	struct kpt_rprobe *a = kpt_rprobe_new(test, kpt_ret_target, 0);
	struct kpt_rprobe *b = kpt_rprobe_new(test, kpt_recurse, 0);
	struct kpt_rprobe *bad = kpt_rprobe_new(test, NULL, 0);
	struct kretprobe *rps[] = { &a->rp, &b->rp, &bad->rp };

	/* Neither symbol nor address. */
	KUNIT_EXPECT_EQ(test, kpt_register_rets(test, rps, ARRAY_SIZE(rps)),
			-EINVAL);
	kpt_ret_caller(1);
	kpt_recurse(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->entry_hits), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->entry_hits), 0);

	/* Without the bad one, both work, and go away together. */
	a->rp.kp.addr = (void *)kpt_ret_target;
	a->rp.kp.flags = 0;
	b->rp.kp.addr = (void *)kpt_recurse;
	b->rp.kp.flags = 0;
	KUNIT_ASSERT_EQ(test, kpt_register_rets(test, rps, 2), 0);
	kpt_ret_caller(1);
	kpt_recurse(1);
	kpt_unregister_rets(test, rps, 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->ret_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->ret_hits), 2);
	kpt_ret_caller(1);
	kpt_recurse(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->ret_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->ret_hits), 2);
}

static void kretprobe_with_kprobe(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_ret_target, 0);
	struct kpt_probe *p = kpt_probe_new(test, kpt_ret_target, true);

	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(5), 16UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->post_hits, 1U);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 1);
	KUNIT_EXPECT_EQ(test, r->retval, 16UL);

	kpt_unregister(test, &p->kp);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(6), 19UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 2);
	KUNIT_EXPECT_EQ(test, r->retval, 19UL);
}

static void kretprobe_handler_hits_kprobe(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_ret_target, 0);
	struct kpt_probe *p = kpt_probe_new(test, kpt_target_inner, false);

	r->call_in_ret = kpt_target_inner;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(1), 4UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 1);
	/* A return handler is a kprobe handler: nested hits are missed. */
	KUNIT_EXPECT_EQ(test, r->call_result, 41UL * 7 + 3);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 0U);
	KUNIT_EXPECT_EQ(test, p->kp.nmissed, 1UL);
}

#ifdef CONFIG_STACKTRACE
static bool kpt_trace_has(const unsigned long *trace, unsigned int len,
			  unsigned long addr)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		if (trace[i] == addr)
			return true;
	return false;
}

static bool kpt_trace_has_trampoline(const unsigned long *trace,
				     unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		if (kpt_is_trampoline(trace[i]))
			return true;
	return false;
}
#endif

static void kretprobe_stacktrace_in_handler(struct kunit *test)
{
#ifdef CONFIG_STACKTRACE
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_ret_target, 0);
	unsigned long real_ra;

	kpt_ret_caller(1);
	real_ra = kpt_ret_target_ra;

	r->save_trace = true;
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(2), 7UL);
	KUNIT_ASSERT_EQ(test, atomic_read(&r->ret_hits), 1);
	KUNIT_EXPECT_GT(test, r->trace_len, 0U);
	/* The caller's return address is there, the trampoline is not. */
	KUNIT_EXPECT_TRUE_MSG(test, kpt_trace_has(r->trace, r->trace_len,
						  real_ra),
			      "no %pS in the return handler's stack trace",
			      (void *)real_ra);
	KUNIT_EXPECT_FALSE(test, kpt_trace_has_trampoline(r->trace,
							  r->trace_len));
#else
	kunit_skip(test, "needs CONFIG_STACKTRACE");
#endif
}

static int kpt_park_thread(void *arg)
{
	struct kpt_park *pk = arg;

	pk->result = kpt_park_caller(pk);
	WRITE_ONCE(pk->done, true);

	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

KUNIT_DEFINE_ACTION_WRAPPER(kpt_complete_all_action, complete_all,
			    struct completion *);

static void kpt_park_stop(void *arg)
{
	struct task_struct *task = arg;

	kthread_stop(task);
	put_task_struct(task);
}

/* Is @task off its CPU and asleep? */
static bool kpt_task_parked(struct task_struct *task)
{
	if (READ_ONCE(task->__state) != TASK_UNINTERRUPTIBLE)
		return false;
#ifdef CONFIG_SMP
	if (READ_ONCE(task->on_cpu))
		return false;
#endif
	return true;
}

/*
 * Starts a task that parks in kpt_park_target() on @pk; at the end of the
 * test it is released, then stopped (actions run last-in first-out).
 */
static struct task_struct *kpt_park_start(struct kunit *test,
					  struct kpt_park *pk, int n)
{
	struct task_struct *task;

	init_completion(&pk->entered);
	init_completion(&pk->release);
	task = kthread_run(kpt_park_thread, pk, "kprobes_test_park%d", n);
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	get_task_struct(task);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpt_park_stop,
							task), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							kpt_complete_all_action,
							&pk->release), 0);
	return task;
}

static void kretprobe_parked_task(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_park_target, 1);
	struct kpt_park *pk = kunit_kzalloc(test, sizeof(*pk), GFP_KERNEL);
	unsigned long timeout = jiffies + 30 * HZ;
	struct task_struct *task;
	unsigned long real_ra;
	unsigned long *trace;
	unsigned int len = 0;

	KUNIT_ASSERT_NOT_NULL(test, pk);
	trace = kunit_kcalloc(test, KPT_TRACE_MAX, sizeof(*trace), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, trace);

	kpt_park_caller(NULL);
	real_ra = kpt_park_target_ra;

	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	task = kpt_park_start(test, pk, 0);

	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&pk->entered,
							  30 * HZ), 0UL);
	while (!kpt_task_parked(task) && time_before(jiffies, timeout))
		usleep_range(1000, 2000);
	KUNIT_ASSERT_TRUE(test, kpt_task_parked(task));

	/* Its only first-pool instance is taken: this one is a spare. */
	KUNIT_EXPECT_EQ(test, kpt_park_caller(NULL), 11UL);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry_hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 1);

#ifdef CONFIG_STACKTRACE
	len = stack_trace_save_tsk(task, trace, KPT_TRACE_MAX, 0);
	KUNIT_EXPECT_GT(test, len, 0U);
	KUNIT_EXPECT_TRUE_MSG(test, kpt_trace_has(trace, len, real_ra),
			      "no %pS in the parked task's stack trace",
			      (void *)real_ra);
	KUNIT_EXPECT_FALSE(test, kpt_trace_has_trampoline(trace, len));
#endif

	complete_all(&pk->release);
	while (!READ_ONCE(pk->done) && time_before(jiffies, timeout))
		usleep_range(1000, 2000);
	KUNIT_ASSERT_TRUE(test, READ_ONCE(pk->done));
	KUNIT_EXPECT_EQ(test, pk->result, 11UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 2);
	KUNIT_EXPECT_EQ(test, r->retval, 11UL);
	KUNIT_EXPECT_EQ(test, r->ret_addr, real_ra);
}

/* Releases a parked task when @waiter enters synchronize_rcu(). */
struct kpt_gp_release {
	struct kprobe kp;
	struct task_struct *waiter;
	struct completion *release;
};

static int kpt_release_at_gp(struct kprobe *kp, struct pt_regs *regs)
{
	struct kpt_gp_release *g = container_of(kp, struct kpt_gp_release, kp);

	if (current == READ_ONCE(g->waiter)) {
		WRITE_ONCE(g->waiter, NULL);
		complete(g->release);
	}
	return 0;
}

/*
 * A disabled kretprobe listed twice in one unregister_kretprobes(): its
 * first entry detaches it, the second finds nothing.  A call in flight
 * that returns during the grace period must not run the handler: once
 * that has begun, unregistration waits for no handler that starts
 * later.  The parked call is released as unregistration enters
 * synchronize_rcu().
 */
static void kretprobe_unregister_listed_twice(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_park_target, 1);
	struct kpt_park *pk = kunit_kzalloc(test, sizeof(*pk), GFP_KERNEL);
	struct kpt_gp_release *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	unsigned long timeout = jiffies + 30 * HZ;
	struct kretprobe *rps[2];

	KUNIT_ASSERT_NOT_NULL(test, pk);
	KUNIT_ASSERT_NOT_NULL(test, g);
	g->kp.symbol_name = "synchronize_rcu";
	g->kp.pre_handler = kpt_release_at_gp;
	g->release = &pk->release;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &g->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	kpt_park_start(test, pk, 0);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&pk->entered,
							  30 * HZ), 0UL);
	KUNIT_ASSERT_EQ(test, disable_kretprobe(&r->rp), 0);

	rps[0] = &r->rp;
	rps[1] = &r->rp;
	WRITE_ONCE(g->waiter, current);
	kpt_unregister_rets(test, rps, 2);
	KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(g->waiter), NULL);
	WRITE_ONCE(g->waiter, NULL);

	while (!READ_ONCE(pk->done) && time_before(jiffies, timeout))
		usleep_range(1000, 2000);
	KUNIT_ASSERT_TRUE(test, READ_ONCE(pk->done));
	KUNIT_EXPECT_EQ(test, pk->result, 11UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry_hits), 1);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&r->ret_hits), 0,
			    "a return ran the handler of a detached kretprobe");
}

/*
 * Sleepers, each holding an instance: 40 of them on a kretprobe of
 * maxactive 1 take the first pool, the reserve and the pools made while
 * they come in; every return is seen once they are released.
 */
#define KPT_NR_SLEEPERS	40

static void kretprobe_sleepers_all_followed(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_park_target, 1);
	unsigned long timeout = jiffies + 60 * HZ;
	struct kpt_park *pk;
	int i, done;

	pk = kunit_kcalloc(test, KPT_NR_SLEEPERS, sizeof(*pk), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pk);
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	for (i = 0; i < KPT_NR_SLEEPERS; i++) {
		kpt_park_start(test, &pk[i], i);
		KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&pk[i].entered,
								  30 * HZ), 0UL);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry_hits), KPT_NR_SLEEPERS);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 0);

	for (i = 0; i < KPT_NR_SLEEPERS; i++)
		complete_all(&pk[i].release);
	do {
		for (done = 0, i = 0; i < KPT_NR_SLEEPERS; i++)
			done += READ_ONCE(pk[i].done);
		if (done < KPT_NR_SLEEPERS)
			usleep_range(1000, 2000);
	} while (done < KPT_NR_SLEEPERS && time_before(jiffies, timeout));
	KUNIT_ASSERT_EQ(test, done, KPT_NR_SLEEPERS);
	for (i = 0; i < KPT_NR_SLEEPERS; i++)
		KUNIT_EXPECT_EQ(test, pk[i].result, 11UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), KPT_NR_SLEEPERS);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed, 0);
}

#if KPT_BUILTIN
/*
 * Out-of-line slots come from chunks of up to several pages: every slot of
 * a run long enough to fill a few chunks is distinct, and the slot lookup
 * that unwinders use finds both ends of each, on whichever page of its
 * chunk it lies.
 */
#define KPT_NR_SLOTS	300

static void kpt_slot_run(struct kunit *test, kprobe_opcode_t *(*get)(void),
			 void (*put)(kprobe_opcode_t *, int),
			 bool (*is_slot)(unsigned long), unsigned int size)
{
	kprobe_opcode_t **slots;
	unsigned int i, j, n;

	slots = kunit_kcalloc(test, KPT_NR_SLOTS, sizeof(*slots), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, slots);
	for (n = 0; n < KPT_NR_SLOTS; n++) {
		slots[n] = get();
		if (!slots[n])
			break;
	}
	KUNIT_EXPECT_EQ(test, n, KPT_NR_SLOTS);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_TRUE(test, is_slot((unsigned long)slots[i]));
		KUNIT_EXPECT_TRUE(test,
				  is_slot((unsigned long)slots[i] + size - 1));
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_PTR_NE(test, slots[i], slots[j]);
	}
	KUNIT_EXPECT_FALSE(test, is_slot((unsigned long)kpt_slot_run));
	for (i = 0; i < n; i++)
		put(slots[i], 1);
}

static void kprobe_slot_chunks(struct kunit *test)
{
	kpt_slot_run(test, get_insn_slot, free_insn_slot, is_kprobe_insn_slot,
		     KPROBE_INSN_SLOT_SIZE);
	/* Where the detour size is only known at run time, skip its cache. */
#if defined(CONFIG_OPTPROBES) && defined(KPROBE_OPTINSN_SLOT_SIZE)
	kpt_slot_run(test, get_optinsn_slot, free_optinsn_slot,
		     is_kprobe_optinsn_slot, KPROBE_OPTINSN_SLOT_SIZE);
#endif
}
#endif /* KPT_BUILTIN: the slot allocator is not exported */

/* ---------------------------------------------------------------------- */
/* 6. Jump optimization                                                    */

#if defined(CONFIG_X86_64) && defined(CONFIG_OPTPROBES) && KPT_BUILTIN
#define KPT_OPT_TESTS	1

/* Sites of kpt_asm_opt and kpt_asm_optjt used below (see the tables). */
#define KPT_OPT_SITE		1
#define KPT_OPT_INNER_SITE	2
#define KPT_OPTJT_SITE		2

/*
 * Audit row A39: a probe registered by an early initcall, right after
 * init_kprobes(), with the optimizer free to run from then on (upstream
 * holds optimization back until subsys_initcall);
 * kprobe_opt_early_boot() checks what came of it.  The probe is the
 * suite's only from boot to that case, which unregisters it: a later run
 * of the suite skips the case.
 */
static struct kprobe kpt_early_kp;
static atomic_t kpt_early_hits;
static int kpt_early_err = -ENODATA;
static unsigned long kpt_early_ret;
static bool kpt_early_done;

static int kpt_early_pre(struct kprobe *kp, struct pt_regs *regs)
{
	atomic_inc(&kpt_early_hits);
	return 0;
}

static int __init kpt_early_register(void)
{
	if (!kunit_enabled())
		return 0;
	kpt_early_kp.addr = kpt_site(kpt_asm_early, kpt_asm_early_sites, 1);
	kpt_early_kp.pre_handler = kpt_early_pre;
	kpt_early_err = register_kprobe(&kpt_early_kp);
	if (!kpt_early_err)
		kpt_early_ret = kpt_asm_early(1);
	return 0;
}
early_initcall(kpt_early_register);

/* kpt_asm_opt(x) == x + 0x11 + 0x1000 + 3 */
#define KPT_OPT_RESULT(x)	((x) + 0x1014UL)

/* What an optimizable probe's pre_handler saw. */
struct kpt_opt_probe {
	struct kprobe kp;
	atomic_t hits;
	unsigned long di;
	unsigned long ax;
	unsigned long ip;
	unsigned long sp;
	unsigned long flags;
	unsigned long live_flags;	/* the handler's own */
	bool irqs_off;
	int preempt;
	struct kprobe *running;
#ifdef CONFIG_STACKTRACE
	unsigned long trace[KPT_TRACE_MAX];
	unsigned int trace_len;
#endif
};

/*
 * The handlers below keep the view of the last hit.  Where every CPU hits
 * at once (the stress and sleeper cases) they store views alike, of which
 * a case reads one once the hits are over: KCSAN is told these stores race
 * by design.
 */
static int kpt_opt_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct kpt_opt_probe *o = container_of(kp, struct kpt_opt_probe, kp);

	kcsan_disable_current();
	o->di = regs->di;
	o->ax = regs->ax;
	o->ip = regs->ip;
	o->sp = regs->sp;
	o->flags = regs->flags;
	o->live_flags = native_save_fl();
	o->irqs_off = irqs_disabled();
	o->preempt = preempt_count();
	o->running = kprobe_running();
#ifdef CONFIG_STACKTRACE
	o->trace_len = stack_trace_save(o->trace, KPT_TRACE_MAX, 0);
#endif
	kcsan_enable_current();
	atomic_inc(&o->hits);
	return 0;
}

static struct kpt_opt_probe *kpt_opt_probe_new(struct kunit *test, void *addr)
{
	struct kpt_opt_probe *o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, o);
	o->kp.addr = addr;
	o->kp.pre_handler = kpt_opt_pre;
	return o;
}

static void *kpt_opt_addr(void)
{
	return kpt_site(kpt_asm_opt, kpt_asm_opt_sites, KPT_OPT_SITE);
}

/*
 * One call site, so that the stack pointer is the same on every call; not
 * a tail call, so that its return address is on the stack.
 */
static noinline __noipa unsigned long kpt_call_opt(unsigned long x)
{
	unsigned long ret = kpt_asm_opt(x);

	barrier();
	return ret;
}

static void kpt_opt_restore(void *unused)
{
	kprobe_optimization_set(1);
}

/* Every test leaves optimization on, whatever happens. */
static void kpt_opt_set(struct kunit *test, int on)
{
	int ret;

	kprobe_optimization_set(on);
	if (on)
		return;
	ret = kunit_add_action_or_reset(test, kpt_opt_restore, NULL);
	KUNIT_ASSERT_EQ(test, ret, 0);
}

#define KPT_OPT_WAIT_MS	20000

/* Wait until @kp's site has its jump (true) or the time is up (false). */
static bool kpt_wait_optimized(struct kprobe *kp)
{
	unsigned long end = jiffies + msecs_to_jiffies(KPT_OPT_WAIT_MS);

	do {
		wait_for_kprobe_optimizer();
		if (READ_ONCE(kp->flags) & KPROBE_FLAG_OPTIMIZED)
			return true;
		msleep(20);
	} while (time_before(jiffies, end));
	return false;
}

#ifdef CONFIG_STACKTRACE
/* Is there a return address into the small function at @fn? */
static bool kpt_trace_near(const unsigned long *trace, unsigned int len,
			   unsigned long fn)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		if (trace[i] > fn && trace[i] - fn < 64)
			return true;
	return false;
}

/* kpt_opt_pre(), then a resume at site 2: kpt_asm_opt's 0x11 is skipped. */
static int kpt_opt_skip_pre(struct kprobe *kp, struct pt_regs *regs)
{
	kpt_opt_pre(kp, regs);
	instruction_pointer_set(regs, (unsigned long)kpt_site(kpt_asm_opt,
							      kpt_asm_opt_sites, 2));
	return 1;
}

/*
 * A pre_handler's new regs->ip is followed from the breakpoint and
 * ignored from the detour, which goes on in its copies (as documented:
 * a probe that redirects must keep itself unoptimized); the handler runs
 * either way.  Audit D5.
 */
static void kprobe_opt_redirect_ignored(struct kunit *test)
{
	struct kpt_opt_probe *o = kpt_opt_probe_new(test, kpt_opt_addr());

	o->kp.pre_handler = kpt_opt_skip_pre;
	kpt_opt_set(test, 0);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &o->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_call_opt(7), KPT_OPT_RESULT(7) - 0x11);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);

	kpt_opt_set(test, 1);
	KUNIT_ASSERT_TRUE_MSG(test, kpt_wait_optimized(&o->kp),
			      "%pS not optimized", o->kp.addr);
	KUNIT_EXPECT_EQ(test, kpt_call_opt(7), KPT_OPT_RESULT(7));
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 2);
	KUNIT_EXPECT_EQ(test, o->kp.nmissed, 0UL);
	kpt_unregister(test, &o->kp);
	KUNIT_EXPECT_EQ(test, kpt_call_opt(7), KPT_OPT_RESULT(7));
}

/* How many entries of the trace lie in a detour buffer? */
static unsigned int kpt_trace_in_detours(const unsigned long *trace,
					 unsigned int len)
{
	unsigned int i, n = 0;

	for (i = 0; i < len; i++)
		n += is_kprobe_optinsn_slot(trace[i]);
	return n;
}
#endif

static void kprobe_opt_early_boot(struct kunit *test)
{
	int ret;

	if (kpt_early_done)
		kunit_skip(test, "the boot's probe is gone since the first run");
	kpt_early_done = true;
	KUNIT_ASSERT_EQ(test, kpt_early_err, 0);
	ret = kunit_add_action_or_reset(test, kpt_unregister_kprobe_action,
					&kpt_early_kp);
	KUNIT_ASSERT_EQ(test, ret, 0);
	/* Hit once as a breakpoint, in the initcall. */
	KUNIT_EXPECT_EQ(test, kpt_early_ret, 1UL + 0x14);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_early_hits), 1);
	kpt_opt_set(test, 1);
	KUNIT_ASSERT_TRUE_MSG(test, kpt_wait_optimized(&kpt_early_kp),
			      "%pS not optimized", kpt_early_kp.addr);
	KUNIT_EXPECT_EQ(test, kpt_asm_early(5), 5UL + 0x14);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_early_hits), 2);
	KUNIT_EXPECT_EQ(test, kpt_early_kp.nmissed, 0UL);
}

static void kprobe_opt_basic(struct kunit *test)
{
	struct kpt_opt_probe *o = kpt_opt_probe_new(test, kpt_opt_addr());
	struct kprobe *running;
	unsigned long ip, sp, flags;

	/* First as a breakpoint probe, to know what the handler sees there. */
	kpt_opt_set(test, 0);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &o->kp), 0);
	/* Not a candidate when registered: the optimizer checks it later. */
	KUNIT_EXPECT_EQ(test, o->kp.ainsn.opt_scan, KPROBE_OPT_SCAN_NONE);
	KUNIT_EXPECT_EQ(test, kpt_call_opt(7), KPT_OPT_RESULT(7));
	KUNIT_ASSERT_EQ(test, atomic_read(&o->hits), 1);
	ip = o->ip;
	sp = o->sp;
	flags = o->flags;
	KUNIT_EXPECT_EQ(test, ip, (unsigned long)kpt_opt_addr() + 1);
	KUNIT_EXPECT_FALSE(test, o->kp.flags & KPROBE_FLAG_OPTIMIZED);

	kpt_opt_set(test, 1);
	KUNIT_ASSERT_TRUE_MSG(test, kpt_wait_optimized(&o->kp),
			      "%pS not optimized", o->kp.addr);
	KUNIT_EXPECT_EQ(test, o->kp.ainsn.opt_scan, KPROBE_OPT_SCAN_FIT);
	KUNIT_EXPECT_EQ(test, kpt_call_opt(0x100), KPT_OPT_RESULT(0x100));
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 2);
	KUNIT_EXPECT_EQ(test, o->di, 0x100UL);
	KUNIT_EXPECT_EQ(test, o->ax, 0x100UL);
	KUNIT_EXPECT_EQ(test, o->ip, ip);
	KUNIT_EXPECT_EQ(test, o->sp, sp);
	KUNIT_EXPECT_EQ(test, o->flags & X86_EFLAGS_IF, flags & X86_EFLAGS_IF);
	/*
	 * The jump path leaves interrupts as the caller had them (on, here)
	 * and only disables preemption.
	 */
	KUNIT_EXPECT_FALSE(test, o->irqs_off);
	if (IS_ENABLED(CONFIG_PREEMPT_COUNT))
		KUNIT_EXPECT_NE(test, o->preempt & PREEMPT_MASK, 0);
	KUNIT_EXPECT_PTR_EQ(test, o->running, &o->kp);
	KUNIT_EXPECT_EQ(test, o->kp.nmissed, 0UL);
	/* current_kprobe is per CPU: read it where no migration can come. */
	preempt_disable();
	running = kprobe_running();
	preempt_enable();
	KUNIT_EXPECT_NULL(test, running);
#ifdef CONFIG_STACKTRACE
	/*
	 * The unwinder finds its way to the caller.  The code that calls
	 * the handlers describes its pt_regs to it, so the trace goes from
	 * there to the probed address, as from a breakpoint, and never
	 * through the detour, which has no unwind data.
	 */
	KUNIT_EXPECT_TRUE(test, kpt_trace_near(o->trace, o->trace_len,
					       (unsigned long)kpt_call_opt));
	KUNIT_EXPECT_TRUE(test, kpt_trace_has(o->trace, o->trace_len, ip));
	KUNIT_EXPECT_EQ(test, kpt_trace_in_detours(o->trace, o->trace_len), 0U);
#endif
}

static void kprobe_opt_post_handler_joins(struct kunit *test)
{
	struct kpt_opt_probe *o = kpt_opt_probe_new(test, kpt_opt_addr());
	struct kpt_probe *post = kpt_probe_new(test, kpt_opt_addr(), true);

	KUNIT_ASSERT_EQ(test, kpt_register(test, &o->kp), 0);
	KUNIT_ASSERT_TRUE(test, kpt_wait_optimized(&o->kp));

	/* Unoptimized before register_kprobe() returns. */
	KUNIT_ASSERT_EQ(test, kpt_register(test, &post->kp), 0);
	KUNIT_EXPECT_FALSE(test, o->kp.flags & KPROBE_FLAG_OPTIMIZED);
	KUNIT_EXPECT_FALSE(test, post->kp.flags & KPROBE_FLAG_OPTIMIZED);
	KUNIT_EXPECT_EQ(test, kpt_call_opt(1), KPT_OPT_RESULT(1));
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);
	KUNIT_EXPECT_EQ(test, post->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, post->post_hits, 1U);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_FALSE(test, o->kp.flags & KPROBE_FLAG_OPTIMIZED);

	kpt_unregister(test, &post->kp);
	KUNIT_EXPECT_TRUE(test, kpt_wait_optimized(&o->kp));
	KUNIT_EXPECT_EQ(test, kpt_call_opt(2), KPT_OPT_RESULT(2));
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 2);
	KUNIT_EXPECT_EQ(test, post->pre_hits, 1U);
}

static void kprobe_opt_probe_inside(struct kunit *test)
{
	void *inner = kpt_site(kpt_asm_opt, kpt_asm_opt_sites,
			       KPT_OPT_INNER_SITE);
	struct kpt_opt_probe *o = kpt_opt_probe_new(test, kpt_opt_addr());
	struct kpt_opt_probe *in = kpt_opt_probe_new(test, inner);

	KUNIT_ASSERT_EQ(test, kpt_register(test, &o->kp), 0);
	KUNIT_ASSERT_TRUE(test, kpt_wait_optimized(&o->kp));

	/* Its breakpoint goes where the jump's displacement was. */
	KUNIT_ASSERT_EQ(test, kpt_register(test, &in->kp), 0);
	KUNIT_EXPECT_FALSE(test, o->kp.flags & KPROBE_FLAG_OPTIMIZED);
	KUNIT_EXPECT_EQ(test, kpt_call_opt(3), KPT_OPT_RESULT(3));
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&in->hits), 1);
	KUNIT_EXPECT_EQ(test, in->ax, 3UL + 0x11);
	/* Refused while the inner probe is there, and only then. */
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, o->kp.flags & KPROBE_FLAG_OPT_REFUSED);

	kpt_unregister(test, &in->kp);
	KUNIT_EXPECT_FALSE(test, o->kp.flags & KPROBE_FLAG_OPT_REFUSED);
	KUNIT_EXPECT_TRUE(test, kpt_wait_optimized(&o->kp));
	KUNIT_EXPECT_EQ(test, kpt_call_opt(4), KPT_OPT_RESULT(4));
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 2);
}

/*
 * An optimized probe's jump outlives its unregistration: the detour then
 * runs no handler, and the next registration (here at the same address)
 * or the optimizer puts the original bytes back first.
 */
static void kprobe_opt_unregister_retires(struct kunit *test)
{
	struct kpt_opt_probe *o = kpt_opt_probe_new(test, kpt_opt_addr());
	struct kpt_opt_probe *again = kpt_opt_probe_new(test, kpt_opt_addr());
	u8 orig[JMP32_INSN_SIZE];

	/* The jump of an earlier case's probe may still be there. */
	wait_for_kprobe_optimizer();
	memcpy(orig, kpt_opt_addr(), sizeof(orig));
	KUNIT_ASSERT_EQ(test, kpt_register(test, &o->kp), 0);
	KUNIT_ASSERT_TRUE(test, kpt_wait_optimized(&o->kp));
	KUNIT_EXPECT_EQ(test, kpt_call_opt(5), KPT_OPT_RESULT(5));
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);

	kpt_unregister(test, &o->kp);
	KUNIT_EXPECT_EQ(test, kpt_call_opt(6), KPT_OPT_RESULT(6));
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);

	/* A breakpoint, not a jump, over the original instruction. */
	KUNIT_ASSERT_EQ(test, kpt_register(test, &again->kp), 0);
	KUNIT_EXPECT_EQ(test, *(u8 *)kpt_opt_addr(), INT3_INSN_OPCODE);
	KUNIT_EXPECT_EQ(test, kpt_call_opt(7), KPT_OPT_RESULT(7));
	KUNIT_EXPECT_EQ(test, atomic_read(&again->hits), 1);
	KUNIT_EXPECT_EQ(test, again->ax, 7UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);

	KUNIT_ASSERT_TRUE(test, kpt_wait_optimized(&again->kp));
	kpt_unregister(test, &again->kp);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_MEMEQ(test, kpt_opt_addr(), orig, sizeof(orig));
	KUNIT_EXPECT_EQ(test, kpt_call_opt(8), KPT_OPT_RESULT(8));
	KUNIT_EXPECT_EQ(test, atomic_read(&again->hits), 1);
}

/*
 * disable_kprobes() with an optimized probe and a breakpoint probe: both
 * stop at once (the breakpoint leaves the text, the jump is retired and
 * its detour runs no handler, not even for a CPU that took it before),
 * the optimizer writes the original bytes back, and enabling brings both
 * probes back.  Then disable_kprobe() and enable_kprobe() in a row, with
 * the retired jump most likely still in place.
 */
static void kprobe_opt_batch_disable(struct kunit *test)
{
	struct kpt_opt_probe *o = kpt_opt_probe_new(test, kpt_opt_addr());
	struct kpt_probe *p = kpt_probe_new(test, kpt_target_spin, false);
	struct pt_regs regs = { .ip = (unsigned long)kpt_opt_addr() + 1 };
	struct kprobe *kps[] = { &o->kp, &p->kp };
	u8 orig[JMP32_INSN_SIZE];
	kprobe_opcode_t *copy;

	wait_for_kprobe_optimizer();
	memcpy(orig, kpt_opt_addr(), sizeof(orig));
	KUNIT_ASSERT_EQ(test, kpt_register(test, &o->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_ASSERT_TRUE(test, kpt_wait_optimized(&o->kp));
	KUNIT_EXPECT_EQ(test, kpt_call_opt(3), KPT_OPT_RESULT(3));
	KUNIT_EXPECT_EQ(test, kpt_target_spin(3), 4UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);

	copy = o->kp.opt->optinsn.copy;
	disable_kprobes(kps, ARRAY_SIZE(kps));
	KUNIT_EXPECT_FALSE(test, o->kp.flags & KPROBE_FLAG_OPTIMIZED);
	/* The jump may still be there: its detour must run no handler. */
	kprobe_opt_callback(&regs, copy);
	KUNIT_EXPECT_EQ(test, kpt_call_opt(4), KPT_OPT_RESULT(4));
	KUNIT_EXPECT_EQ(test, kpt_target_spin(4), 5UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_MEMEQ(test, kpt_opt_addr(), orig, sizeof(orig));

	KUNIT_EXPECT_EQ(test, enable_kprobe(&o->kp), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&p->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_call_opt(5), KPT_OPT_RESULT(5));
	KUNIT_EXPECT_EQ(test, kpt_target_spin(5), 6UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 2);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 2U);
	KUNIT_EXPECT_TRUE(test, kpt_wait_optimized(&o->kp));

	/*
	 * Enabled again before the optimizer wrote the bytes back: the
	 * breakpoint must go on the original bytes, not on the jump.
	 */
	copy = o->kp.opt->optinsn.copy;
	KUNIT_EXPECT_EQ(test, disable_kprobe(&o->kp), 0);
	kprobe_opt_callback(&regs, copy);
	KUNIT_EXPECT_EQ(test, kpt_call_opt(6), KPT_OPT_RESULT(6));
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 2);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&o->kp), 0);
	KUNIT_EXPECT_EQ(test, *(u8 *)kpt_opt_addr(), INT3_INSN_OPCODE);
	KUNIT_EXPECT_MEMEQ(test, kpt_opt_addr() + 1, orig + 1,
			   sizeof(orig) - 1);
	kprobe_opt_callback(&regs, copy);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 2);
	KUNIT_EXPECT_EQ(test, kpt_call_opt(7), KPT_OPT_RESULT(7));
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 3);
	KUNIT_EXPECT_TRUE(test, kpt_wait_optimized(&o->kp));
	KUNIT_EXPECT_EQ(test, kpt_call_opt(8), KPT_OPT_RESULT(8));
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 4);
}

/*
 * A CPU held up between an old jump and the detour's callback past the
 * unregistration of its probe, and the registration of a new one at the
 * address: the callback is called here as that CPU would call it, with
 * the copies of the old detour, and must run no handler of the new probe
 * (a breakpoint probe whose post_handler would not follow).  The same
 * call with the live detour's copies, first, does run the handler.
 */
static void kprobe_opt_stale_detour(struct kunit *test)
{
	struct kpt_opt_probe *o = kpt_opt_probe_new(test, kpt_opt_addr());
	struct kpt_probe *again = kpt_probe_new(test, kpt_opt_addr(), true);
	struct pt_regs regs = { .ip = (unsigned long)kpt_opt_addr() + 1 };
	kprobe_opcode_t *copy;

	KUNIT_ASSERT_EQ(test, kpt_register(test, &o->kp), 0);
	KUNIT_ASSERT_TRUE(test, kpt_wait_optimized(&o->kp));
	copy = o->kp.opt->optinsn.copy;
	KUNIT_ASSERT_NOT_NULL(test, copy);
	kprobe_opt_callback(&regs, copy);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);

	kpt_unregister(test, &o->kp);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &again->kp), 0);
	kprobe_opt_callback(&regs, copy);
	KUNIT_EXPECT_EQ(test, again->pre_hits, 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);

	KUNIT_EXPECT_EQ(test, kpt_call_opt(4), KPT_OPT_RESULT(4));
	KUNIT_EXPECT_EQ(test, again->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, again->post_hits, 1U);
}

static void kprobe_opt_sysctl(struct kunit *test)
{
	struct kpt_opt_probe *o = kpt_opt_probe_new(test, kpt_opt_addr());

	KUNIT_ASSERT_EQ(test, kpt_register(test, &o->kp), 0);
	KUNIT_ASSERT_TRUE(test, kpt_wait_optimized(&o->kp));

	kpt_opt_set(test, 0);
	KUNIT_EXPECT_FALSE(test, o->kp.flags & KPROBE_FLAG_OPTIMIZED);
	KUNIT_EXPECT_EQ(test, kpt_call_opt(5), KPT_OPT_RESULT(5));
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_FALSE(test, o->kp.flags & KPROBE_FLAG_OPTIMIZED);

	kpt_opt_set(test, 1);
	KUNIT_EXPECT_TRUE(test, kpt_wait_optimized(&o->kp));
	KUNIT_EXPECT_EQ(test, kpt_call_opt(6), KPT_OPT_RESULT(6));
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 2);
}

/*
 * An optimizable probe @o whose site must be refused: it stays a
 * breakpoint probe while the one at kpt_opt_addr() gets its jump.  The
 * text was judged at registration, before any optimizer pass: @scan.
 */
static void kpt_opt_expect_refused(struct kunit *test, struct kpt_opt_probe *o,
				   enum kprobe_opt_scan scan)
{
	struct kpt_opt_probe *ok = kpt_opt_probe_new(test, kpt_opt_addr());

	/* A site that is optimized tells that the optimizer has run. */
	KUNIT_ASSERT_EQ(test, kpt_register(test, &o->kp), 0);
	KUNIT_EXPECT_EQ(test, o->kp.ainsn.opt_scan, scan);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &ok->kp), 0);
	KUNIT_ASSERT_TRUE(test, kpt_wait_optimized(&ok->kp));
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_FALSE(test, o->kp.flags & KPROBE_FLAG_OPTIMIZED);
	/* Remembered, so that later passes leave the site alone. */
	KUNIT_EXPECT_TRUE(test, o->kp.flags & KPROBE_FLAG_OPT_REFUSED);
	KUNIT_EXPECT_FALSE(test, ok->kp.flags & KPROBE_FLAG_OPT_REFUSED);
}

static void kprobe_opt_refused_extable(struct kunit *test)
{
	void *addr = kpt_site(kpt_asm_optex, kpt_asm_optex_sites, 0);
	struct kpt_opt_probe *o = kpt_opt_probe_new(test, addr);
	unsigned long v = 0x5eed;

	kpt_opt_expect_refused(test, o, KPROBE_OPT_SCAN_REFUSED);
	KUNIT_EXPECT_EQ(test, kpt_asm_optex(&v), v);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);
	KUNIT_EXPECT_EQ(test, o->ip, (unsigned long)addr + 1);

	/* Turning the sysctl on asks again, and gets the same answer. */
	kpt_opt_set(test, 0);
	kpt_opt_set(test, 1);
	KUNIT_EXPECT_FALSE(test, o->kp.flags & KPROBE_FLAG_OPT_REFUSED);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, o->kp.flags & KPROBE_FLAG_OPT_REFUSED);
	KUNIT_EXPECT_FALSE(test, o->kp.flags & KPROBE_FLAG_OPTIMIZED);
}

static void kprobe_opt_refused_fixup_target(struct kunit *test)
{
	void *addr = kpt_site(kpt_asm_optfx, kpt_asm_optfx_sites, 0);
	struct kpt_opt_probe *o = kpt_opt_probe_new(test, addr);

	kpt_opt_expect_refused(test, o, KPROBE_OPT_SCAN_REFUSED);
	KUNIT_EXPECT_EQ(test, kpt_asm_optfx(41, NULL), 42UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);
	KUNIT_EXPECT_EQ(test, o->ip, (unsigned long)addr + 1);
}

static void kprobe_opt_refused_jump_target(struct kunit *test)
{
	void *addr = kpt_site(kpt_asm_optjt, kpt_asm_optjt_sites,
			      KPT_OPTJT_SITE);
	struct kpt_opt_probe *o = kpt_opt_probe_new(test, addr);

	kpt_opt_expect_refused(test, o, KPROBE_OPT_SCAN_REFUSED);
	KUNIT_EXPECT_EQ(test, kpt_asm_optjt(41), 42UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);
	KUNIT_EXPECT_EQ(test, o->ip, (unsigned long)addr + 1);
}

/* An optimizable probe at @addr, with its jump in place. */
static struct kpt_opt_probe *kpt_opt_jumped(struct kunit *test, void *addr)
{
	struct kpt_opt_probe *o = kpt_opt_probe_new(test, addr);

	KUNIT_ASSERT_EQ(test, kpt_register(test, &o->kp), 0);
	KUNIT_EXPECT_TRUE_MSG(test, kpt_wait_optimized(&o->kp),
			      "%pS not optimized", addr);
	return o;
}

/*
 * Branches the detour re-encodes with a rel32: a short jcc after the
 * probed instruction, a short jcc and a near one as the probed
 * instruction, each taken and not.
 */
static void kprobe_opt_moved_jcc(struct kunit *test)
{
	static const unsigned int sites[] = { 1, 2, 5 };
	struct kpt_opt_probe *o;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sites); i++) {
		o = kpt_opt_jumped(test, kpt_site(kpt_asm_jcc, kpt_asm_jcc_sites,
						  sites[i]));
		KUNIT_EXPECT_EQ(test, kpt_asm_jcc(0), 0UL);
		KUNIT_EXPECT_EQ(test, kpt_asm_jcc(5), 1UL);
		KUNIT_EXPECT_EQ(test, kpt_asm_jcc(150), 3UL);
		KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 3);
		kpt_unregister(test, &o->kp);
	}
}

/*
 * A short jmp after the probed instruction, a near one as the probed
 * instruction; nothing after a jmp is copied.  A short jmp whose next
 * bytes are the target of another jump stays a breakpoint.
 */
static void kprobe_opt_moved_jmp(struct kunit *test)
{
	struct kpt_opt_probe *o, *refused;

	o = kpt_opt_jumped(test, kpt_site(kpt_asm_jmp, kpt_asm_jmp_sites, 0));
	KUNIT_EXPECT_EQ(test, kpt_asm_jmp(10), 18UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);
	kpt_unregister(test, &o->kp);

	o = kpt_opt_jumped(test, kpt_site(kpt_asm_jmp, kpt_asm_jmp_sites, 3));
	KUNIT_EXPECT_EQ(test, kpt_asm_jmp(20), 28UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);
	kpt_unregister(test, &o->kp);

	refused = kpt_opt_probe_new(test, kpt_site(kpt_asm_jmp,
						   kpt_asm_jmp_sites, 1));
	kpt_opt_expect_refused(test, refused, KPROBE_OPT_SCAN_REFUSED);
	KUNIT_EXPECT_EQ(test, kpt_asm_jmp(30), 38UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&refused->hits), 1);
}

/*
 * A call as the probed instruction: the callee returns to the text, and
 * an unwind from inside it sees the caller, not the detour.
 */
static void kprobe_opt_moved_call(struct kunit *test)
{
	struct kpt_opt_probe *o, *callee;

	if (cpu_feature_enabled(X86_FEATURE_CALL_DEPTH)) {
		/* A push and a jmp would unbalance the RSB depth count. */
		o = kpt_opt_probe_new(test, kpt_site(kpt_asm_call,
						     kpt_asm_call_sites, 0));
		kpt_opt_expect_refused(test, o, KPROBE_OPT_SCAN_REFUSED);
		KUNIT_EXPECT_EQ(test, kpt_asm_call(5), 18UL);
		KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);
		return;
	}
	o = kpt_opt_jumped(test, kpt_site(kpt_asm_call, kpt_asm_call_sites, 0));
	callee = kpt_opt_probe_new(test, kpt_site(kpt_asm_helper,
						  kpt_asm_helper_sites, 0));
	KUNIT_ASSERT_EQ(test, kpt_register(test, &callee->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_asm_call(5), 18UL);
	KUNIT_EXPECT_EQ(test, kpt_asm_call(6), 20UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&callee->hits), 2);
#ifdef CONFIG_STACKTRACE
	KUNIT_EXPECT_TRUE(test, kpt_trace_near(callee->trace, callee->trace_len,
					       (unsigned long)kpt_asm_call));
	KUNIT_EXPECT_EQ(test, kpt_trace_in_detours(callee->trace,
						   callee->trace_len), 0U);
#endif
}

/*
 * A ret after the probed instruction, and as the probed instruction, with
 * the int3 and the padding after it under the jump.
 */
static void kprobe_opt_moved_ret(struct kunit *test)
{
	static const unsigned int sites[] = { 3, 4 };
	struct kpt_opt_probe *o;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sites); i++) {
		o = kpt_opt_jumped(test, kpt_site(kpt_asm_opt, kpt_asm_opt_sites,
						  sites[i]));
		KUNIT_EXPECT_EQ(test, kpt_call_opt(7), KPT_OPT_RESULT(7));
		KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);
		kpt_unregister(test, &o->kp);
	}
}

/*
 * pushf and cli as the probed instruction, sti after it: run by the
 * detour.  A region whose last instruction is the sti (site 1) stays a
 * breakpoint: its interrupt shadow would cover the detour's jmp back.
 */
static void kprobe_opt_moved_flags(struct kunit *test)
{
	static const unsigned int sites[] = { 0, 2 };
	struct kpt_opt_probe *o;
	unsigned int i;

	o = kpt_opt_probe_new(test, kpt_site(kpt_asm_optirq,
					     kpt_asm_optirq_sites, 1));
	kpt_opt_expect_refused(test, o, KPROBE_OPT_SCAN_REFUSED);
	KUNIT_EXPECT_EQ(test, kpt_asm_optirq(30), 31UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);
	kpt_unregister(test, &o->kp);

	for (i = 0; i < ARRAY_SIZE(sites); i++) {
		o = kpt_opt_jumped(test, kpt_site(kpt_asm_optirq,
						  kpt_asm_optirq_sites,
						  sites[i]));
		KUNIT_EXPECT_EQ(test, kpt_asm_optirq(40), 41UL);
		KUNIT_EXPECT_FALSE(test, irqs_disabled());
		local_irq_disable();
		KUNIT_EXPECT_EQ(test, kpt_asm_optirq(50), 51UL);
		KUNIT_EXPECT_TRUE(test, irqs_disabled());
		local_irq_enable();
		KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 2);
		kpt_unregister(test, &o->kp);
	}
}

/*
 * The handlers run with AC and DF clear, as from the breakpoint's trap
 * entry, however the probed code left them: with AC set, a handler (a
 * BPF program, an event's fetch) would run with SMAP off.  The probed
 * code's own flags are in regs->flags, and are its own again after.
 */
static void kpt_expect_clean_flags(struct kunit *test,
				   struct kpt_opt_probe *o, int hits)
{
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), hits);
	KUNIT_EXPECT_TRUE(test, o->flags & X86_EFLAGS_DF);
	if (boot_cpu_has(X86_FEATURE_SMAP))
		KUNIT_EXPECT_TRUE(test, o->flags & X86_EFLAGS_AC);
	KUNIT_EXPECT_EQ_MSG(test, o->live_flags & (X86_EFLAGS_AC | X86_EFLAGS_DF),
			    0UL, "handler ran with flags %#lx (%s)",
			    o->live_flags, o->kp.flags & KPROBE_FLAG_OPTIMIZED ?
			    "optimized" : "breakpoint");
}

static void kprobe_opt_handler_flags(struct kunit *test)
{
	static const unsigned int sites[] = { 0, 1 };
	struct kpt_opt_probe *o;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sites); i++) {
		o = kpt_opt_probe_new(test, kpt_site(kpt_asm_optac,
						     kpt_asm_optac_sites,
						     sites[i]));
		kpt_opt_set(test, 0);
		KUNIT_ASSERT_EQ(test, kpt_register(test, &o->kp), 0);
		KUNIT_EXPECT_EQ(test, kpt_asm_optac(5), 8UL);
		kpt_expect_clean_flags(test, o, 1);

		kpt_opt_set(test, 1);
		KUNIT_ASSERT_TRUE(test, kpt_wait_optimized(&o->kp));
		KUNIT_EXPECT_EQ(test, kpt_asm_optac(6), 9UL);
		kpt_expect_clean_flags(test, o, 2);
		KUNIT_EXPECT_FALSE(test, native_save_fl() &
				   (X86_EFLAGS_AC | X86_EFLAGS_DF));
		kpt_unregister(test, &o->kp);
	}
}

/*
 * A jump from a function's cold part into a region: the cold part is
 * found by name, NAME.cold or NAME.cold.N, and scanned like the
 * function.  The jump's target itself may start a region.
 */
static void kpt_opt_cold_case(struct kunit *test,
			      unsigned long (*fn)(unsigned long),
			      const u32 *sites)
{
	struct kpt_opt_probe *o;

	o = kpt_opt_probe_new(test, kpt_site(fn, sites, 0));
	kpt_opt_expect_refused(test, o, KPROBE_OPT_SCAN_REFUSED);
	KUNIT_EXPECT_EQ(test, fn(1), 4UL);
	/* The cold path comes back past the site. */
	KUNIT_EXPECT_EQ(test, fn(200), 206UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);
	kpt_unregister(test, &o->kp);

	o = kpt_opt_jumped(test, kpt_site(fn, sites, 1));
	KUNIT_EXPECT_EQ(test, fn(2), 5UL);
	KUNIT_EXPECT_EQ(test, fn(300), 306UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 2);
}

static void kprobe_opt_refused_cold_jump(struct kunit *test)
{
	kpt_opt_cold_case(test, kpt_asm_optcold, kpt_asm_optcold_sites);
}

static void kprobe_opt_refused_cold_numbered(struct kunit *test)
{
	kpt_opt_cold_case(test, kpt_asm_optcold2, kpt_asm_optcold2_sites);
}

#if KPT_BUILTIN
static int kpt_key_flipper(void *unused)
{
	while (!kthread_should_stop()) {
		static_branch_enable(&kpt_opt_key);
		static_branch_disable(&kpt_opt_key);
		cond_resched();
	}
	return 0;
}

/*
 * jump_label_text_reserved() decodes a site's length from the text, and
 * its lookup by address (a patch to kernel/jump_label.c in this series)
 * finds the site by a binary search: while another CPU flips a key of
 * this file again and again, the site stays reserved, its key's int3
 * never seen (arch_jump_entry_size() takes that for a BUG()), and the
 * instruction after it stays free.  In the kprobes_text_reserved suite.
 */
static void kprobe_opt_reserved_key_flips(struct kunit *test)
{
	void *label = kpt_site(kpt_asm_optkey, kpt_asm_optkey_sites, 1);
	void *next = kpt_site(kpt_asm_optkey, kpt_asm_optkey_sites, 2);
	struct task_struct *flipper;
	int i, reserved = 0, after = 0;

	if (!IS_ENABLED(CONFIG_JUMP_LABEL))
		kunit_skip(test, "no jump labels: every key is a plain test");
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU to flip the key");
	flipper = kthread_run(kpt_key_flipper, NULL, "kprobes_test_flip");
	KUNIT_ASSERT_FALSE(test, IS_ERR(flipper));
	for (i = 0; i < 100; i++) {
		jump_label_lock();
		reserved += jump_label_text_reserved(label, label);
		/* its last byte: the site starts before the range */
		reserved += jump_label_text_reserved(label + 4, label + 4);
		after += jump_label_text_reserved(next, next + 4);
		jump_label_unlock();
	}
	kthread_stop(flipper);
	static_branch_disable(&kpt_opt_key);
	KUNIT_EXPECT_EQ(test, reserved, 200);
	KUNIT_EXPECT_EQ(test, after, 0);
	KUNIT_EXPECT_EQ(test, kpt_asm_optkey(40), 41UL);
}

#endif /* KPT_BUILTIN */

/*
 * An indirect jump elsewhere in the function: with IBT its targets carry
 * an ENDBR, and a region without one is optimized.  A region covering
 * the target (after a jmp *%reg) never is.
 */
static void kprobe_opt_indirect_jump(struct kunit *test)
{
	struct kpt_opt_probe *o;

	o = kpt_opt_probe_new(test, kpt_site(kpt_asm_optind,
					     kpt_asm_optind_sites, 7));
	kpt_opt_expect_refused(test, o, KPROBE_OPT_SCAN_REFUSED);
	KUNIT_EXPECT_EQ(test, kpt_asm_optind(1, 2), 6UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);

	if (!IS_ENABLED(CONFIG_X86_KERNEL_IBT))
		kunit_skip(test, "without IBT, a function with jmp *%%reg is refused");
	o = kpt_opt_jumped(test, kpt_site(kpt_asm_optind,
					  kpt_asm_optind_sites, 1));
	KUNIT_EXPECT_EQ(test, kpt_asm_optind(10, 0), 13UL);
	KUNIT_EXPECT_EQ(test, kpt_asm_optind(10, 1), 15UL);
	KUNIT_EXPECT_EQ(test, kpt_asm_optind(10, 2), 15UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 3);
}

/*
 * A region holding a nop is looked up in the tables of the text patchers
 * at every pass, and gets its jump when none of them owns the nop.
 */
static void kprobe_opt_nop(struct kunit *test)
{
	void *addr = kpt_site(kpt_asm_optnop, kpt_asm_optnop_sites, 0);
	struct kpt_opt_probe *o = kpt_opt_probe_new(test, addr);

	KUNIT_ASSERT_EQ(test, kpt_register(test, &o->kp), 0);
	KUNIT_EXPECT_EQ(test, o->kp.ainsn.opt_scan, KPROBE_OPT_SCAN_FIT_PATCHABLE);
	KUNIT_ASSERT_TRUE_MSG(test, kpt_wait_optimized(&o->kp),
			      "%pS not optimized", o->kp.addr);
	KUNIT_EXPECT_EQ(test, o->kp.opt->optinsn.len, 8);
	KUNIT_EXPECT_EQ(test, kpt_asm_optnop(40), 42UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);
	KUNIT_EXPECT_EQ(test, o->ip, (unsigned long)addr + 1);
}

static void kpt_opt_key_off(void *unused)
{
	static_branch_disable(&kpt_opt_key);
}

/*
 * A jump label inside the region: refused while it is a nop, and still
 * refused, at a pass after the key turned it into a jump, although the
 * scan made at registration saw a nop there.
 */
static void kprobe_opt_refused_jump_label(struct kunit *test)
{
	void *addr = kpt_site(kpt_asm_optkey, kpt_asm_optkey_sites, 0);
	struct kpt_opt_probe *o = kpt_opt_probe_new(test, addr);

	kpt_opt_expect_refused(test, o, KPROBE_OPT_SCAN_FIT_PATCHABLE);
	KUNIT_EXPECT_EQ(test, kpt_asm_optkey(40), 41UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpt_opt_key_off,
							NULL), 0);
	static_branch_enable(&kpt_opt_key);
	kpt_opt_set(test, 0);
	kpt_opt_set(test, 1);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, o->kp.flags & KPROBE_FLAG_OPT_REFUSED);
	KUNIT_EXPECT_FALSE(test, o->kp.flags & KPROBE_FLAG_OPTIMIZED);
	KUNIT_EXPECT_EQ(test, kpt_asm_optkey(40), 43UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 2);
	static_branch_disable(&kpt_opt_key);
	KUNIT_EXPECT_EQ(test, kpt_asm_optkey(40), 41UL);
}

static void kpt_opt_jl_key_off(void *unused)
{
	static_branch_disable(&kpt_opt_jl_key);
}

/*
 * A jump label outside the region whose target is inside it: refused
 * although the label is a nop, with no target to decode, when the
 * function is scanned.  A jump there would be entered in its middle
 * once the key is on.
 */
static void kprobe_opt_refused_jump_label_target(struct kunit *test)
{
	void *addr = kpt_site(kpt_asm_optjl, kpt_asm_optjl_sites, 2);
	struct kpt_opt_probe *o = kpt_opt_probe_new(test, addr);

	kpt_opt_expect_refused(test, o, KPROBE_OPT_SCAN_REFUSED);
	KUNIT_EXPECT_EQ(test, kpt_asm_optjl(40), 43UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);
	/* Not with the key on over a jump: the next call would crash. */
	KUNIT_ASSERT_FALSE(test, o->kp.flags & KPROBE_FLAG_OPTIMIZED);

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpt_opt_jl_key_off,
							NULL), 0);
	static_branch_enable(&kpt_opt_jl_key);
	KUNIT_EXPECT_EQ(test, kpt_asm_optjl(40), 42UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);
	static_branch_disable(&kpt_opt_jl_key);
	KUNIT_EXPECT_EQ(test, kpt_asm_optjl(40), 43UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 2);
}

/*
 * A site registered while the sysctl is 0 is judged by the optimizer
 * instead, with the same answer.
 */
static void kprobe_opt_refused_late(struct kunit *test)
{
	void *addr = kpt_site(kpt_asm_optjt, kpt_asm_optjt_sites,
			      KPT_OPTJT_SITE);
	struct kpt_opt_probe *o = kpt_opt_probe_new(test, addr);
	struct kpt_opt_probe *ok = kpt_opt_probe_new(test, kpt_opt_addr());

	kpt_opt_set(test, 0);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &o->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &ok->kp), 0);
	KUNIT_EXPECT_EQ(test, o->kp.ainsn.opt_scan, KPROBE_OPT_SCAN_NONE);
	kpt_opt_set(test, 1);
	KUNIT_ASSERT_TRUE(test, kpt_wait_optimized(&ok->kp));
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_EQ(test, o->kp.ainsn.opt_scan, KPROBE_OPT_SCAN_REFUSED);
	KUNIT_EXPECT_TRUE(test, o->kp.flags & KPROBE_FLAG_OPT_REFUSED);
	KUNIT_EXPECT_FALSE(test, o->kp.flags & KPROBE_FLAG_OPTIMIZED);
	KUNIT_EXPECT_EQ(test, kpt_asm_optjt(41), 42UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->hits), 1);
}

static void kretprobe_opt_entry(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_asm_opt, 0);

	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	KUNIT_ASSERT_TRUE_MSG(test, kpt_wait_optimized(&r->rp.kp),
			      "%pS not optimized", r->rp.kp.addr);
	KUNIT_EXPECT_EQ(test, kpt_call_opt(9), KPT_OPT_RESULT(9));
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 1);
	KUNIT_EXPECT_EQ(test, r->retval, KPT_OPT_RESULT(9));
}

/*
 * unregister_kprobes() takes the jumps of a batch away together; a site
 * that keeps a member gets its jump back.
 */
static void kprobes_opt_batch_unregister(struct kunit *test)
{
	void *entry = kpt_site(kpt_asm_opt, kpt_asm_opt_sites, 0);
	void *later = kpt_site(kpt_asm_opt, kpt_asm_opt_sites,
			       KPT_OPT_INNER_SITE);
	struct kpt_opt_probe *first = kpt_opt_probe_new(test, entry);
	struct kpt_opt_probe *second = kpt_opt_probe_new(test, later);
	struct kpt_opt_probe *stays = kpt_opt_probe_new(test, later);
	struct kprobe *batch[] = { &first->kp, &second->kp };

	KUNIT_ASSERT_EQ(test, kpt_register(test, &first->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &second->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &stays->kp), 0);
	KUNIT_ASSERT_TRUE(test, kpt_wait_optimized(&first->kp));
	KUNIT_ASSERT_TRUE(test, kpt_wait_optimized(&stays->kp));
	KUNIT_EXPECT_EQ(test, kpt_call_opt(1), KPT_OPT_RESULT(1));

	kpt_unregister_many(test, batch, ARRAY_SIZE(batch));
	KUNIT_EXPECT_FALSE(test, first->kp.flags & KPROBE_FLAG_OPTIMIZED);
	KUNIT_EXPECT_EQ(test, kpt_call_opt(2), KPT_OPT_RESULT(2));
	KUNIT_EXPECT_TRUE(test, kpt_wait_optimized(&stays->kp));
	KUNIT_EXPECT_EQ(test, kpt_call_opt(3), KPT_OPT_RESULT(3));
	KUNIT_EXPECT_EQ(test, atomic_read(&first->hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&second->hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&stays->hits), 3);
}

/* A thread calling kpt_asm_opt() until told to stop. */
struct kpt_opt_worker {
	struct task_struct *task;
	unsigned long calls;
	unsigned long bad;
	bool stop;
	struct completion done;
};

static int kpt_opt_worker_fn(void *arg)
{
	struct kpt_opt_worker *w = arg;

	while (!READ_ONCE(w->stop)) {
		if (kpt_asm_opt(w->calls) != KPT_OPT_RESULT(w->calls))
			w->bad++;
		w->calls++;
		/* A voluntary switch now and then, for tasks-RCU waiters. */
		if (!(w->calls % 4096))
			usleep_range(10, 20);
		else
			cond_resched();
	}
	complete(&w->done);
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

static void kpt_opt_worker_stop(void *arg)
{
	struct kpt_opt_worker *w = arg;

	WRITE_ONCE(w->stop, true);
	kthread_stop(w->task);
	put_task_struct(w->task);
}

#define KPT_OPT_TOGGLES		1000
/* Callers at least; more threads than CPUs also exercise preemption. */
#define KPT_OPT_MIN_WORKERS	4

/*
 * The jump is written and taken away KPT_OPT_TOGGLES times while every CPU
 * calls the probed function: the results must stay right and every call
 * must be counted, whichever path (jump, breakpoint, text_poke's own int3)
 * it took.
 */
static void kprobe_opt_stress_toggle(struct kunit *test)
{
	struct kpt_opt_probe *o = kpt_opt_probe_new(test, kpt_opt_addr());
	unsigned int nr = max(num_online_cpus(), KPT_OPT_MIN_WORKERS);
	unsigned int i, toggles;
	struct kpt_opt_worker *w;
	unsigned long calls = 0, bad = 0;
	int cpu = -1, ret;

	w = kunit_kcalloc(test, nr, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &o->kp), 0);
	KUNIT_ASSERT_TRUE(test, kpt_wait_optimized(&o->kp));

	for (i = 0; i < nr; i++) {
		struct task_struct *task;

		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
		init_completion(&w[i].done);
		task = kthread_create(kpt_opt_worker_fn, &w[i], "kpt_opt/%u",
				      i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task));
		kthread_bind(task, cpu);
		w[i].task = get_task_struct(task);
		ret = kunit_add_action_or_reset(test, kpt_opt_worker_stop,
						&w[i]);
		KUNIT_ASSERT_EQ(test, ret, 0);
		wake_up_process(task);
	}

	kpt_opt_set(test, 0);
	for (toggles = 0; toggles < KPT_OPT_TOGGLES; toggles++) {
		kprobe_optimization_set(1);
		/* The detour is ready: this writes the jump right away. */
		wait_for_kprobe_optimizer();
		if (!(o->kp.flags & KPROBE_FLAG_OPTIMIZED))
			break;
		kprobe_optimization_set(0);
		if (o->kp.flags & KPROBE_FLAG_OPTIMIZED)
			break;
	}
	kprobe_optimization_set(1);

	for (i = 0; i < nr; i++) {
		WRITE_ONCE(w[i].stop, true);
		wait_for_completion(&w[i].done);
		calls += w[i].calls;
		bad += w[i].bad;
	}
	kunit_info(test, "%u toggles, %lu calls from %u threads on %u CPUs",
		   toggles, calls, nr, num_online_cpus());
	KUNIT_EXPECT_EQ(test, toggles, KPT_OPT_TOGGLES);
	KUNIT_EXPECT_EQ(test, bad, 0UL);
	KUNIT_EXPECT_EQ(test, (unsigned long)atomic_read(&o->hits), calls);
	KUNIT_EXPECT_EQ(test, o->kp.nmissed, 0UL);
	KUNIT_EXPECT_TRUE(test, kpt_wait_optimized(&o->kp));
}
#else
#define KPT_OPT_TESTS	0
#endif

/* ---------------------------------------------------------------------- */
/* 6b. ftrace-based probes                                                 */

#if defined(CONFIG_KPROBES_ON_FTRACE) && defined(CONFIG_X86)
#define KPT_FTRACE_TESTS	1

/*
 * lib/ is built without the ftrace call at function entry, so these cases
 * probe mktime64(): kernel text that has it, exported, without side
 * effects and seldom called.  The handlers count only calls made with
 * KPT_FT_YEAR, which no one else asks about.
 */
#define KPT_FT_YEAR		1999U
#define KPT_FT_OVERRIDE		0x5eedLL

struct kpt_ft_probe {
	struct kprobe kp;
	unsigned int pre_hits;
	unsigned int post_hits;
	unsigned long pre_ip;
	unsigned long post_ip;
	unsigned long day;
	bool redirect;
	bool recurse;
};

static bool kpt_ft_ours(struct pt_regs *regs)
{
	return regs_get_kernel_argument(regs, 0) == KPT_FT_YEAR;
}

static noinline __noipa time64_t kpt_ft_call(unsigned int day)
{
	return mktime64(KPT_FT_YEAR, 1, day, 0, 0, 0);
}

/* Stands in for mktime64() when a pre_handler redirects the call. */
static noinline __noipa time64_t kpt_ft_override(unsigned int year,
						 unsigned int mon,
						 unsigned int day,
						 unsigned int hour,
						 unsigned int min,
						 unsigned int sec)
{
	return KPT_FT_OVERRIDE;
}

static int kpt_ft_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct kpt_ft_probe *f = container_of(kp, struct kpt_ft_probe, kp);

	if (!kpt_ft_ours(regs))
		return 0;
	f->pre_hits++;
	f->pre_ip = instruction_pointer(regs);
	f->day = regs_get_kernel_argument(regs, 2);
	if (f->recurse) {
		/* Once: this nested call must be counted as missed. */
		f->recurse = false;
		kpt_ft_call(2);
	}
	if (f->redirect) {
		instruction_pointer_set(regs, (unsigned long)kpt_ft_override);
		return 1;
	}
	return 0;
}

static void kpt_ft_post(struct kprobe *kp, struct pt_regs *regs,
			unsigned long flags)
{
	struct kpt_ft_probe *f = container_of(kp, struct kpt_ft_probe, kp);

	if (!kpt_ft_ours(regs))
		return;
	f->post_hits++;
	f->post_ip = instruction_pointer(regs);
}

static struct kpt_ft_probe *kpt_ft_probe_new(struct kunit *test)
{
	struct kpt_ft_probe *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->kp.symbol_name = "mktime64";
	f->kp.pre_handler = kpt_ft_pre;
	f->kp.post_handler = kpt_ft_post;
	return f;
}

/* A probe at offset 0 is the ftrace site; pre and post see its ip rules. */
static void kprobe_ftrace_pre_post(struct kunit *test)
{
	struct kpt_ft_probe *f = kpt_ft_probe_new(test);
	time64_t want = kpt_ft_call(7);
	unsigned long site;

	KUNIT_ASSERT_EQ(test, kpt_register(test, &f->kp), 0);
	KUNIT_EXPECT_TRUE(test, f->kp.flags & KPROBE_FLAG_FTRACE);
	KUNIT_EXPECT_TRUE(test, f->kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
	site = (unsigned long)f->kp.addr;
	KUNIT_EXPECT_EQ(test, ftrace_location(site), site);

	KUNIT_EXPECT_EQ(test, kpt_ft_call(7), want);
	KUNIT_EXPECT_EQ(test, f->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, f->post_hits, 1U);
	KUNIT_EXPECT_EQ(test, f->day, 7UL);
	/* As if a breakpoint had been hit, then the 5-byte call stepped. */
	KUNIT_EXPECT_EQ(test, f->pre_ip, site + INT3_INSN_SIZE);
	KUNIT_EXPECT_EQ(test, f->post_ip, site + MCOUNT_INSN_SIZE);

	KUNIT_ASSERT_EQ(test, disable_kprobe(&f->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ft_call(7), want);
	KUNIT_EXPECT_EQ(test, f->pre_hits, 1U);
	KUNIT_ASSERT_EQ(test, enable_kprobe(&f->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ft_call(7), want);
	KUNIT_EXPECT_EQ(test, f->pre_hits, 2U);
	KUNIT_EXPECT_EQ(test, f->post_hits, 2U);
}

/* A pre_handler that sets regs->ip and returns 1 replaces the function. */
static void kprobe_ftrace_redirect(struct kunit *test)
{
	struct kpt_ft_probe *f = kpt_ft_probe_new(test);

	f->redirect = true;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &f->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ft_call(3), KPT_FT_OVERRIDE);
	KUNIT_EXPECT_EQ(test, f->pre_hits, 1U);
	/* The post_handler is for a probed instruction that ran. */
	KUNIT_EXPECT_EQ(test, f->post_hits, 0U);
	f->redirect = false;
	KUNIT_EXPECT_NE(test, kpt_ft_call(3), KPT_FT_OVERRIDE);
}

/* The probed function called from the handler: missed, not run. */
static void kprobe_ftrace_nmissed(struct kunit *test)
{
	struct kpt_ft_probe *f = kpt_ft_probe_new(test);
	time64_t want = kpt_ft_call(4);

	f->recurse = true;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &f->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ft_call(4), want);
	KUNIT_EXPECT_EQ(test, f->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, f->post_hits, 1U);
	KUNIT_EXPECT_EQ(test, f->kp.nmissed, 1UL);
}

/* Sends the suite's own calls to kpt_ft_override(), as a livepatch would. */
static void notrace kpt_ft_steer_cb(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *ops,
				    struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);

	if (regs && kpt_ft_ours(regs))
		instruction_pointer_set(regs, (unsigned long)kpt_ft_override);
}

static void kpt_ft_steer_stop(void *arg)
{
	struct ftrace_ops *ops = arg;

	WARN_ON(unregister_ftrace_function(ops));
	ftrace_free_filter(ops);
}

/*
 * Holds @func's entry as livepatch does: an ftrace_ops with registers
 * saved and IPMODIFY, which ftrace grants one user per function.
 */
static void kpt_ft_steer(struct kunit *test, void *func)
{
	struct ftrace_ops *ops = kunit_kzalloc(test, sizeof(*ops), GFP_KERNEL);
	unsigned long ip = ftrace_location((unsigned long)func);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, ops);
	KUNIT_ASSERT_NE(test, ip, 0UL);
	ops->func = kpt_ft_steer_cb;
	ops->flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY;
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(ops, ip, 0, 0), 0);
	ret = register_ftrace_function(ops);
	if (ret)
		ftrace_free_filter(ops);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpt_ft_steer_stop,
							ops), 0);
}

/*
 * A probe without a post_handler shares a livepatched function's entry,
 * registered before the livepatch or after it, and leaves the livepatch's
 * redirection alone (ftrace calls the ops last registered first).
 */
static void kprobe_ftrace_beside_ipmodify(struct kunit *test)
{
	struct kpt_ft_probe *f = kpt_ft_probe_new(test);
	struct kpt_ft_probe *g = kpt_ft_probe_new(test);

	f->kp.post_handler = NULL;
	g->kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &f->kp), 0);
	kpt_ft_steer(test, mktime64);
	KUNIT_EXPECT_TRUE(test, f->kp.flags & KPROBE_FLAG_FTRACE);
	KUNIT_EXPECT_EQ(test, kpt_ft_call(5), KPT_FT_OVERRIDE);
	KUNIT_EXPECT_EQ(test, f->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, f->day, 5UL);

	kpt_unregister(test, &f->kp);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &g->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ft_call(6), KPT_FT_OVERRIDE);
	KUNIT_EXPECT_EQ(test, g->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, g->day, 6UL);
}

static noinline __noipa void kpt_ft_call_tm(void)
{
	struct tm tm;

	time64_to_tm(KPT_FT_YEAR, 0, &tm);
	barrier_data(&tm);
}

/*
 * A probe that needs IPMODIFY on a function another ops already steers is
 * refused with ftrace's error, by registration and by enabling alike, and
 * leaves nothing behind: another site attached through the same ops
 * (counted once per attached site) keeps firing after the refused probe
 * is unregistered.
 */
static void kprobe_ftrace_ipmodify_refused(struct kunit *test)
{
	struct kpt_ft_probe *other = kpt_ft_probe_new(test);
	struct kpt_ft_probe *f = kpt_ft_probe_new(test);
	int ret;

	other->kp.symbol_name = "time64_to_tm";
	KUNIT_ASSERT_EQ(test, kpt_register(test, &other->kp), 0);
	KUNIT_ASSERT_TRUE(test, other->kp.flags & KPROBE_FLAG_FTRACE);
	kpt_ft_call_tm();
	KUNIT_EXPECT_EQ(test, other->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, other->post_hits, 1U);

	kpt_ft_steer(test, mktime64);
	ret = register_kprobe(&f->kp);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
	if (!ret)
		unregister_kprobe(&f->kp);
	KUNIT_EXPECT_TRUE(test, list_empty(&f->kp.list));

	/* Registered disabled, it is refused when enabled, and stays off. */
	f->kp.flags = KPROBE_FLAG_DISABLED;
	f->kp.addr = NULL;
	KUNIT_ASSERT_EQ(test, register_kprobe(&f->kp), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&f->kp), -EBUSY);
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&f->kp));
	kpt_ft_call(6);
	KUNIT_EXPECT_EQ(test, f->pre_hits, 0U);
	unregister_kprobe(&f->kp);

	kpt_ft_call_tm();
	KUNIT_EXPECT_EQ(test, other->pre_hits, 2U);
	KUNIT_EXPECT_EQ(test, other->post_hits, 2U);
}

struct kpt_ft_rprobe {
	struct kretprobe rp;
	unsigned int entries;
	unsigned int returns;
	long long retval;
};

static int kpt_ft_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kpt_ft_rprobe *r = container_of(get_kretprobe(ri),
					       struct kpt_ft_rprobe, rp);

	if (!kpt_ft_ours(regs))
		return 1;	/* not ours: no return hook */
	r->entries++;
	return 0;
}

static int kpt_ft_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kpt_ft_rprobe *r = container_of(get_kretprobe(ri),
					       struct kpt_ft_rprobe, rp);

	r->returns++;
	r->retval = (long long)regs_return_value(regs);
	return 0;
}

/* A kretprobe whose entry probe goes through ftrace. */
static void kretprobe_ftrace(struct kunit *test)
{
	struct kpt_ft_rprobe *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	time64_t want = kpt_ft_call(9);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->rp.kp.symbol_name = "mktime64";
	r->rp.entry_handler = kpt_ft_entry;
	r->rp.handler = kpt_ft_ret;
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	KUNIT_EXPECT_TRUE(test, r->rp.kp.flags & KPROBE_FLAG_FTRACE);
	KUNIT_EXPECT_EQ(test, kpt_ft_call(9), want);
	KUNIT_EXPECT_EQ(test, r->entries, 1U);
	KUNIT_EXPECT_EQ(test, r->returns, 1U);
	KUNIT_EXPECT_EQ(test, r->retval, want);
}

#if KPT_BUILTIN
static void kpt_ft_revive(void *unused)
{
	WRITE_ONCE(kprobe_ftrace_disabled, false);
}

/*
 * Once ftrace_kill() has told kprobes that ftrace is dead, no handler of a
 * probe attached through ftrace runs, although ftrace (alive here) still
 * calls ours.  The flag is cleared again before the probe is unregistered
 * (kunit runs actions last added first), so that it leaves the ftrace_ops
 * as it would with ftrace alive.
 */
static void kprobe_ftrace_killed(struct kunit *test)
{
	struct kpt_ft_probe *f = kpt_ft_probe_new(test);
	time64_t want = kpt_ft_call(7);

	KUNIT_ASSERT_EQ(test, kpt_register(test, &f->kp), 0);
	KUNIT_EXPECT_TRUE(test, f->kp.flags & KPROBE_FLAG_FTRACE);
	KUNIT_EXPECT_EQ(test, kpt_ft_call(7), want);
	KUNIT_EXPECT_EQ(test, f->pre_hits, 1U);

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpt_ft_revive,
							NULL), 0);
	kprobe_ftrace_kill();
	KUNIT_EXPECT_EQ(test, kpt_ft_call(7), want);
	KUNIT_EXPECT_EQ(test, f->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, f->post_hits, 1U);
}
#endif
#else
#define KPT_FTRACE_TESTS	0
#endif

/* ---------------------------------------------------------------------- */
/* 7. fault_handler                                                        */

#ifdef CONFIG_X86_64
#define KPT_GP_MARK	0x600dUL

static int kpt_fault_note(struct kprobe *kp, struct pt_regs *regs, int trapnr)
{
	struct kpt_probe *p = to_kpt_probe(kp);

	p->fault_hits++;
	p->fault_trapnr = trapnr;
	return 0;
}

/* Steps over the faulting load of kpt_asm_gp(), which then returns a mark. */
static int kpt_fault_fix_gp(struct kprobe *kp, struct pt_regs *regs,
			    int trapnr)
{
	struct kpt_probe *p = to_kpt_probe(kp);

	p->fault_hits++;
	p->fault_trapnr = trapnr;
	if (trapnr != X86_TRAP_GP || regs->ip != p->fault_ip)
		return 0;
	regs->ip += p->fault_len;
	regs->ax = KPT_GP_MARK;
	return 1;
}

static int kpt_pre_load_bad(struct kprobe *kp, struct pt_regs *regs)
{
	struct kpt_probe *p = to_kpt_probe(kp);

	p->pre_hits++;
	p->call_result = kpt_asm_load((const unsigned long *)p->arg);
	return 0;
}

static int kpt_pre_gp(struct kprobe *kp, struct pt_regs *regs)
{
	struct kpt_probe *p = to_kpt_probe(kp);

	p->pre_hits++;
	p->call_result = kpt_asm_gp();
	return 0;
}

KUNIT_DEFINE_ACTION_WRAPPER(kpt_vfree_action, vfree, const void *);

/* An address in the guard page behind a vmalloc() area: never mapped. */
static const unsigned long *kpt_unmapped(struct kunit *test)
{
	void *area = vmalloc(PAGE_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, area);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpt_vfree_action,
							area), 0);
	return area + PAGE_SIZE;
}

static void kprobe_fault_in_single_step(struct kunit *test)
{
	void *site = kpt_site(kpt_asm_load, kpt_asm_load_sites, 0);
	struct kpt_probe *p = kpt_probe_new(test, site, true);
	const unsigned long *bad = kpt_unmapped(test);
	unsigned long good = 0xfeed;
	int pc = preempt_count();

	p->kp.fault_handler = kpt_fault_note;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);

	/*
	 * The probed load faults; its exception-table fixup still applies.
	 * A page fault is never offered to fault_handler.
	 */
	KUNIT_EXPECT_EQ(test, kpt_asm_load(bad), (unsigned long)-EFAULT);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->fault_hits, 0U);
	KUNIT_EXPECT_EQ(test, p->post_hits, 0U);
	KUNIT_EXPECT_EQ(test, preempt_count(), pc);
	preempt_disable();
	KUNIT_EXPECT_NULL(test, kpt_running());
	preempt_enable();

	/* And the probe goes on working. */
	KUNIT_EXPECT_EQ(test, kpt_asm_load(&good), 0xfeedUL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 2U);
	KUNIT_EXPECT_EQ(test, p->post_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->fault_hits, 0U);
}

/*
 * A #GP, not a page fault, in a stepped load that has a fixup: the
 * exception table has nothing for the copy's address, so the step is
 * undone and the load's own fixup applies at the probed address.
 */
static void kprobe_gp_fixup_in_single_step(struct kunit *test)
{
	void *site = kpt_site(kpt_asm_load, kpt_asm_load_sites, 0);
	struct kpt_probe *p = kpt_probe_new(test, site, true);
	const unsigned long *noncanonical = (void *)0xdead000000000000UL;
	unsigned long good = 0xbeef;
	int pc = preempt_count();

	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_asm_load(noncanonical),
			(unsigned long)-EFAULT);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->post_hits, 0U);
	KUNIT_EXPECT_EQ(test, preempt_count(), pc);
	preempt_disable();
	KUNIT_EXPECT_NULL(test, kpt_running());
	preempt_enable();
	KUNIT_EXPECT_EQ(test, kpt_asm_load(&good), 0xbeefUL);
	KUNIT_EXPECT_EQ(test, p->post_hits, 1U);
}

/* Claims the first fault it is offered without repairing anything. */
static int kpt_fault_claim_once(struct kprobe *kp, struct pt_regs *regs,
				int trapnr)
{
	struct kpt_probe *p = to_kpt_probe(kp);

	p->fault_trapnr = trapnr;
	return ++p->fault_hits == 1;
}

/*
 * A page fault in a pre_handler, with a fault_handler that would claim it:
 * arch/x86/mm/fault.c WARNs when kprobes claims a page fault and then
 * retries the load, so the fault_handler must not be asked; the exception
 * table fixes the load up.
 */
static void kprobe_fault_in_handler(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, kpt_target_add, true);
	int pc = preempt_count();

	p->kp.pre_handler = kpt_pre_load_bad;
	p->kp.fault_handler = kpt_fault_claim_once;
	p->arg = (unsigned long)kpt_unmapped(test);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);

	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 2), 3UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->fault_hits, 0U);
	KUNIT_EXPECT_EQ(test, p->call_result, (unsigned long)-EFAULT);
	KUNIT_EXPECT_EQ(test, p->post_hits, 1U);
	KUNIT_EXPECT_EQ(test, preempt_count(), pc);
}

static void kprobe_fault_handler_handles(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, kpt_target_add, true);

	p->kp.pre_handler = kpt_pre_gp;
	p->kp.fault_handler = kpt_fault_fix_gp;
	p->fault_ip = (unsigned long)kpt_site(kpt_asm_gp, kpt_asm_gp_sites, 1);
	p->fault_len = kpt_asm_gp_sites[2] - kpt_asm_gp_sites[1];
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);

	/* The #GP in pre_handler is handled by fault_handler returning 1. */
	KUNIT_EXPECT_EQ(test, kpt_target_add(2, 2), 4UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->fault_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->fault_trapnr, X86_TRAP_GP);
	KUNIT_EXPECT_EQ(test, p->call_result, KPT_GP_MARK);
	KUNIT_EXPECT_EQ(test, p->post_hits, 1U);
}
#endif /* CONFIG_X86_64 */

#ifndef CONFIG_X86_64
/*
 * The cases that need x86-64 (hand-written instruction targets, register
 * names, the jump optimizer, the fault paths) stand for themselves on
 * other architectures as one skipped case per group, with the reason.
 */
static void kprobe_x86_insn_cases(struct kunit *test)
{
	kunit_skip(test, "x86-64 only: probes on hand-written x86 instructions");
}

static void kprobe_x86_regs_cases(struct kunit *test)
{
	kunit_skip(test,
		   "x86-64 only: symbol+offset, boundaries, handler registers");
}

static void kprobe_x86_opt_cases(struct kunit *test)
{
	kunit_skip(test, "x86-64 built-in only: jump optimization (17 cases)");
}

static void kprobe_x86_fault_cases(struct kunit *test)
{
	kunit_skip(test, "x86-64 only: fault_handler on #GP in a step or handler");
}
#endif

#if !KPT_FTRACE_TESTS
static void kprobe_x86_ftrace_cases(struct kunit *test)
{
	kunit_skip(test,
		   "x86 only: ftrace-based probes on the suite's own targets");
}
#endif

static struct kunit_case kprobes_test_cases[] = {
	/* 1. registration */
	KUNIT_CASE(kprobe_register_by_symbol),
	KUNIT_CASE(kprobe_register_by_addr),
#if KPT_BUILTIN
	KUNIT_CASE(kprobe_register_before_init),
	KUNIT_CASE(kprobe_busy_section_misses),
#endif
	KUNIT_CASE(kprobe_unknown_symbol),
	KUNIT_CASE(kprobe_mod_sym_absent_module),
	KUNIT_CASE(kprobe_mod_sym),
	KUNIT_CASE(kprobe_symbol_and_addr),
	KUNIT_CASE(kprobe_no_symbol_no_addr),
	KUNIT_CASE(kprobe_not_text),
	KUNIT_CASE(kprobe_blacklist_local),
#ifdef CONFIG_X86_64
	KUNIT_CASE(kprobe_blacklist_split_part),
	KUNIT_CASE(kprobe_refused_preamble),
	KUNIT_CASE(kprobe_refused_cfi_check),
#endif
	KUNIT_CASE(kprobe_blacklist_kernel),
#ifdef CONFIG_X86_64
	KUNIT_CASE(kprobe_blacklist_thunks),
#endif
	KUNIT_CASE(kprobe_register_twice),
	KUNIT_CASE(kprobe_flag_disabled),
	KUNIT_CASE(kprobe_disable_enable),
	KUNIT_CASE(kprobe_unregister),
#ifdef CONFIG_X86_64
	KUNIT_CASE(kprobe_register_symbol_offset),
	KUNIT_CASE(kprobe_not_insn_boundary),
#else
	KUNIT_CASE(kprobe_x86_regs_cases),
#endif
	/* 2. handlers */
	KUNIT_CASE(kprobe_pre_post_order),
#ifdef CONFIG_X86_64
	KUNIT_CASE(kprobe_post_handler_regs),
#if KPT_BUILTIN
	KUNIT_CASE(kprobe_step_by_trap_exit),
#endif
	KUNIT_CASE(kprobe_post_handler_unwinds),
	KUNIT_CASE(kprobe_post_handler_moves_ip),
	KUNIT_CASE(kprobe_pre_handler_moves_ip),
#endif
	KUNIT_CASE(kprobe_nmissed_nested),
	KUNIT_CASE(kprobe_nmissed_self),
#if defined(CONFIG_X86_64) && KPT_BUILTIN
	KUNIT_CASE_PARAM(kprobe_hit_from_debug_trap, kpt_db_gen_params),
#endif
	/* 3. several probes, batches, concurrency */
	KUNIT_CASE(kprobe_aggregate_all_handlers),
	KUNIT_CASE(kprobe_aggregate_disable_one),
	KUNIT_CASE(kprobe_aggregate_all_disabled),
	KUNIT_CASE(kprobe_aggregate_partial_unregister),
	KUNIT_CASE(kprobes_batch),
	KUNIT_CASE(kprobes_batch_rollback),
	KUNIT_CASE(kprobes_batch_unregister),
	KUNIT_CASE(kprobes_batch_disable),
	KUNIT_CASE(kprobe_concurrent_hits),
	KUNIT_CASE(kprobe_unregister_waits_for_handlers),
	/* 4. x86-64 instructions */
#ifdef CONFIG_X86_64
	KUNIT_CASE(kprobe_insn_rip_relative),
	KUNIT_CASE(kprobe_insn_jmp),
	KUNIT_CASE(kprobe_insn_call),
	KUNIT_CASE(kprobe_insn_call_reg),
	KUNIT_CASE(kprobe_insn_jcc),
	KUNIT_CASE(kprobe_insn_jcc_all_conditions),
	KUNIT_CASE(kprobe_insn_loop),
	KUNIT_CASE(kprobe_insn_push_pop),
	KUNIT_CASE(kprobe_insn_pushf),
	KUNIT_CASE(kprobe_insn_ret_imm16),
	KUNIT_CASE(kprobe_insn_refused_classes),
#else
	KUNIT_CASE(kprobe_x86_insn_cases),
#endif
	/* 5. kretprobes */
	KUNIT_CASE(kretprobe_return_value),
	KUNIT_CASE(kretprobe_by_symbol),
	KUNIT_CASE(kretprobe_invalid),
	KUNIT_CASE(kretprobe_refused_data_size_and_twice),
	KUNIT_CASE(kretprobe_entry_handler_skips),
	KUNIT_CASE(kretprobe_data_size),
	KUNIT_CASE(kretprobe_supply_burst),
#ifdef CONFIG_KRETPROBE_ON_RETHOOK
	KUNIT_CASE(kretprobe_return_busy),
#endif
	KUNIT_CASE(kretprobe_maxactive_default),
	KUNIT_CASE(kretprobe_disable_enable),
	KUNIT_CASE(kretprobes_batch_rollback),
	KUNIT_CASE(kretprobe_with_kprobe),
	KUNIT_CASE(kretprobe_handler_hits_kprobe),
	KUNIT_CASE(kretprobe_stacktrace_in_handler),
	KUNIT_CASE(kretprobe_parked_task),
	KUNIT_CASE(kretprobe_unregister_listed_twice),
	KUNIT_CASE(kretprobe_sleepers_all_followed),
#if KPT_BUILTIN
	KUNIT_CASE(kprobe_slot_chunks),
#endif
	/* 6. jump optimization */
#if KPT_OPT_TESTS
	KUNIT_CASE(kprobe_opt_early_boot),
	KUNIT_CASE(kprobe_opt_basic),
	KUNIT_CASE(kprobe_opt_redirect_ignored),
	KUNIT_CASE(kprobe_opt_post_handler_joins),
	KUNIT_CASE(kprobe_opt_probe_inside),
	KUNIT_CASE(kprobe_opt_unregister_retires),
	KUNIT_CASE(kprobe_opt_batch_disable),
	KUNIT_CASE(kprobe_opt_stale_detour),
	KUNIT_CASE(kprobe_opt_sysctl),
	KUNIT_CASE(kprobe_opt_refused_jump_target),
	KUNIT_CASE(kprobe_opt_refused_extable),
	KUNIT_CASE(kprobe_opt_refused_fixup_target),
	KUNIT_CASE(kprobe_opt_refused_late),
	KUNIT_CASE(kprobe_opt_nop),
	KUNIT_CASE(kprobe_opt_refused_jump_label),
	KUNIT_CASE(kprobe_opt_refused_jump_label_target),
	KUNIT_CASE(kprobe_opt_moved_jcc),
	KUNIT_CASE(kprobe_opt_moved_jmp),
	KUNIT_CASE(kprobe_opt_moved_call),
	KUNIT_CASE(kprobe_opt_moved_ret),
	KUNIT_CASE(kprobe_opt_moved_flags),
	KUNIT_CASE(kprobe_opt_indirect_jump),
	KUNIT_CASE(kprobe_opt_handler_flags),
	KUNIT_CASE(kprobe_opt_refused_cold_jump),
	KUNIT_CASE(kprobe_opt_refused_cold_numbered),
	KUNIT_CASE(kretprobe_opt_entry),
	KUNIT_CASE(kprobes_opt_batch_unregister),
	KUNIT_CASE_SLOW(kprobe_opt_stress_toggle),
#elif !defined(CONFIG_X86_64)
	KUNIT_CASE(kprobe_x86_opt_cases),
#endif
	/* 6b. ftrace-based probes */
#if KPT_FTRACE_TESTS
	KUNIT_CASE(kprobe_ftrace_pre_post),
	KUNIT_CASE(kprobe_ftrace_redirect),
	KUNIT_CASE(kprobe_ftrace_nmissed),
	KUNIT_CASE(kprobe_ftrace_beside_ipmodify),
	KUNIT_CASE(kprobe_ftrace_ipmodify_refused),
	KUNIT_CASE(kretprobe_ftrace),
#if KPT_BUILTIN
	KUNIT_CASE(kprobe_ftrace_killed),
#endif
#else
	KUNIT_CASE(kprobe_x86_ftrace_cases),
#endif
	/* 7. fault_handler, last */
#ifdef CONFIG_X86_64
	KUNIT_CASE(kprobe_fault_in_single_step),
	KUNIT_CASE(kprobe_fault_in_handler),
	KUNIT_CASE(kprobe_fault_handler_handles),
	KUNIT_CASE(kprobe_gp_fixup_in_single_step),
#else
	KUNIT_CASE(kprobe_x86_fault_cases),
#endif
	{}
};

static struct kunit_suite kprobes_test_suite = {
	.name = "kprobes",
	.init = kprobes_test_init,
	.test_cases = kprobes_test_cases,
};

#ifdef CONFIG_X86_64
/*
 * Text other subsystems own, looked up in their tables (with the patches
 * to jump_label.c and static_call_inline.c, by address).  The guest runs
 * this suite again after boot through KUnit's debugfs, as the tables'
 * init sites count only while the kernel boots.
 */
static struct kunit_case kprobes_text_reserved_cases[] = {
	KUNIT_CASE(kprobe_refused_jump_label_site),
#if KPT_BUILTIN && defined(CONFIG_HAVE_STATIC_CALL_INLINE)
	KUNIT_CASE(kprobe_refused_static_call_site),
#endif
#if defined(CONFIG_OPTPROBES) && KPT_BUILTIN
	KUNIT_CASE(kprobe_opt_reserved_key_flips),
#endif
	{}
};

static struct kunit_suite kprobes_text_reserved_suite = {
	.name = "kprobes_text_reserved",
	.init = kprobes_test_init,
	.test_cases = kprobes_text_reserved_cases,
};

kunit_test_suites(&kprobes_test_suite, &kprobes_text_reserved_suite);
#else
kunit_test_suites(&kprobes_test_suite);
#endif

MODULE_DESCRIPTION("KUnit tests for kprobes and kretprobes");
MODULE_LICENSE("GPL");
