// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit suites "kprobes_optimizer" and "kprobes_text_reserved" (x86-64).
 *
 * kprobes_optimizer (built in, CONFIG_OPTPROBES): a probe without
 * post_handler gets its jump and sees the registers the breakpoint path
 * shows; a post_handler joining, a probe inside the jump, the sysctl take
 * it away; a jump target, an instruction with an exception-table entry or
 * a fixup target inside, a jump label's nop or target, a cold part's jump
 * back are refused; branches, calls, rets and flag changes are moved into
 * the detour; kretprobe entries; toggling under load from every CPU.
 *
 * kprobes_text_reserved: text that jump labels and static calls own,
 * looked up in their tables (with the patches to jump_label.c and
 * static_call_inline.c, by address), is refused to a probe.  The guest
 * runs this suite again after boot through KUnit's debugfs
 * (guest:kprobe_text_reserved_after_boot), as the tables' init sites
 * count only while the kernel boots.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/jump_label.h>
#include <linux/kcsan-checks.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/stacktrace.h>
#include <linux/static_call.h>

#include <asm/text-patching.h>

#include "kpt.h"
#include "x86_targets.h"

/* ---------------------------------------------------------------------- */
/* Jump optimization                                                       */

#if defined(CONFIG_OPTPROBES) && KPT_BUILTIN
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
	ret = kpt_defer_unregister(test, &kpt_early_kp);
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
 * x86_targets.c again and again, the site stays reserved, its key's int3
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
	return kpt_wait_for_stop();
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
/* Text other subsystems own                                               */

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

#if KPT_OPT_TESTS
static struct kunit_case kprobes_optimizer_cases[] = {
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
	{}
};

static struct kunit_suite kprobes_optimizer_suite = {
	.name = "kprobes_optimizer",
	.init = kpt_test_init,
	.test_cases = kprobes_optimizer_cases,
};
#endif

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
	.init = kpt_test_init,
	.test_cases = kprobes_text_reserved_cases,
};

/*
 * A modular build, to which the optimizer's interfaces are not exported,
 * has no kprobes_optimizer suite.
 */
#if KPT_OPT_TESTS
kunit_test_suites(&kprobes_optimizer_suite, &kprobes_text_reserved_suite);
#else
kunit_test_suites(&kprobes_text_reserved_suite);
#endif
